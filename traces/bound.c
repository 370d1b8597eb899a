/* bound.c - error bounds: their one spelling, tolerances, and chunk-sum errors. */
#include "lbs_traces.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name;
  lbs_bound_kind kind;
} kinds[] = {{"rel", LBS_BOUND_REL}, {"abs", LBS_BOUND_ABS}, {"range", LBS_BOUND_RANGE}};

lbs_err lbs_bound_parse(const char *s, lbs_bound *out) {
  if (!s) return lbs_fail(LBS_PARSE, "no error bound given");
  if (!strcmp(s, "lossless")) {
    *out = (lbs_bound){LBS_BOUND_LOSSLESS, 0};
    return LBS_OK;
  }
  const char *colon = strchr(s, ':');
  for (size_t i = 0; colon && i < sizeof kinds / sizeof *kinds; i++) {
    size_t len = strlen(kinds[i].name);
    if ((size_t)(colon - s) != len || strncmp(s, kinds[i].name, len)) continue;
    const char *num = colon + 1;
    char *end;
    errno = 0;
    double eps = strtod(num, &end);
    if (!*num || *end || errno == ERANGE)
      return lbs_fail(LBS_PARSE, "error bound '%s': '%s' is not a number", s, num);
    if (isnan(eps)) return lbs_fail(LBS_PARSE, "error bound '%s': eps is NaN", s);
    if (eps < 0) return lbs_fail(LBS_PARSE, "error bound '%s': eps is negative", s);
    if (eps == 0)
      return lbs_fail(LBS_PARSE,
                      "error bound '%s': eps is zero (write 'lossless' for exact values)", s);
    if (!isfinite(eps)) return lbs_fail(LBS_PARSE, "error bound '%s': eps is infinite", s);
    if (kinds[i].kind != LBS_BOUND_ABS && eps > LBS_BOUND_MAX_REL)
      return lbs_fail(LBS_PARSE, "error bound '%s': a %s bound above %g keeps nothing of the data",
                      s, kinds[i].name, LBS_BOUND_MAX_REL);
    *out = (lbs_bound){kinds[i].kind, eps};
    return LBS_OK;
  }
  return lbs_fail(LBS_PARSE,
                  "error bound '%s' is not one of rel:EPS (pointwise relative), abs:EPS, range:EPS "
                  "(of each step's value range) or lossless",
                  s);
}

char *lbs_bound_format(lbs_bound b, char *buf) {
  const char *name = NULL;
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (kinds[i].kind == b.kind) name = kinds[i].name;
  if (!name || b.kind == LBS_BOUND_LOSSLESS) {
    snprintf(buf, LBS_BOUND_STRLEN, "lossless");
    return buf;
  }
  for (int digits = 6; digits <= 17;
       digits++) { /* the shortest spelling that reads back the same */
    snprintf(buf, LBS_BOUND_STRLEN, "%s:%.*g", name, digits, b.eps);
    if (strtod(strchr(buf, ':') + 1, NULL) == b.eps) break;
  }
  return buf;
}

double lbs_bound_tolerance(lbs_bound b, double x, double range) {
  switch (b.kind) {
  case LBS_BOUND_REL: return b.eps * fabs(x);
  case LBS_BOUND_ABS: return b.eps;
  case LBS_BOUND_RANGE: return b.eps * range;
  default: return 0;
  }
}

lbs_bound lbs_bound_resolve(lbs_bound b, const double *v, size_t n) {
  if (b.kind != LBS_BOUND_RANGE) return b;
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < n; i++)
    if (isfinite(v[i])) {
      if (v[i] < lo) lo = v[i];
      if (v[i] > hi) hi = v[i];
    }
  double eps = lo < hi ? b.eps * (hi - lo) : 0;
  return eps > 0 && isfinite(eps) ? (lbs_bound){LBS_BOUND_ABS, eps}
                                  : (lbs_bound){LBS_BOUND_LOSSLESS, 0};
}

void lbs_encoding_apply(lbs_codec *codec, lbs_bound *bound, const lbs_codec *set_codec,
                        const lbs_bound *set_bound) {
  if (set_codec) *codec = *set_codec;
  if (set_bound) *bound = *set_bound;
  if (set_bound && !set_codec) { /* the bound decides the codec */
    if (bound->kind == LBS_BOUND_LOSSLESS)
      *codec = LBS_CODEC_LOSSLESS;
    else if (*codec == LBS_CODEC_LOSSLESS)
      *codec = LBS_CODEC_DEFAULT;
  }
  if (set_codec && !set_bound) { /* the codec decides the bound */
    if (*codec == LBS_CODEC_LOSSLESS)
      *bound = (lbs_bound){LBS_BOUND_LOSSLESS, 0};
    else if (bound->kind == LBS_BOUND_LOSSLESS)
      lbs_bound_parse(LBS_BOUND_DEFAULT, bound);
  }
}

/* Neumaier's compensated sum: exact enough that the chunk-sum check measures the codec,
 * not the summation. */
typedef struct {
  double s, c;
} ksum;

static inline void kadd(ksum *k, double x) {
  double t = k->s + x;
  k->c += fabs(k->s) >= fabs(x) ? (k->s - t) + x : (x - t) + k->s;
  k->s = t;
}

double lbs_sum_error(const double *x, const double *y, size_t n) {
  /* values near the top of the double range: sum them scaled (a power of two, exact) so the
   * sums do not overflow */
  double big = 0, k = 1;
  for (size_t i = 0; i < n; i++)
    if (isfinite(x[i])) big = fmax(big, fmax(fabs(x[i]), fabs(y[i])));
  if (big > 0x1p900) k = 0x1p-200;
  ksum sx = {0, 0}, sy = {0, 0}, sa = {0, 0};
  for (size_t i = 0; i < n; i++)
    if (isfinite(x[i])) {
      kadd(&sx, x[i] * k);
      kadd(&sy, y[i] * k);
      kadd(&sa, fabs(x[i]) * k);
    }
  double d = fabs((sy.s + sy.c) - (sx.s + sx.c)), a = sa.s + sa.c;
  if (a > 0) return d / a;
  return d == 0 ? 0 : INFINITY;
}
