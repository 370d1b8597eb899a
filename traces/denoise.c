/* denoise.c - noise that is not the application's, removed from a trace by rule (lbs_traces.h):
 * a preempted element's time is the machine's, and one processor would carry it in a replay.
 * Each value is compared with the same element's values at the nearest sampled steps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_traces.h"

static lbs_err bad(const char *arg, const char *why) {
  return lbs_fail(LBS_PARSE,
                  "--denoise '%s': %s (give [METRIC=]median[:W] or [METRIC=]spike[:W[:F]], W odd "
                  "in 3..%d, F > 1)",
                  arg, why, LBS_DENOISE_MAX_WINDOW);
}

lbs_err lbs_denoise_parse(const char *arg, lbs_denoise *out) {
  lbs_denoise d = {.kind = LBS_DENOISE_SPIKE, .window = 3, .factor = 3};
  const char *rule = arg, *eq = strchr(arg, '=');
  if (eq) {
    size_t n = (size_t)(eq - arg);
    if (!n || n >= sizeof d.metric) return bad(arg, "bad metric name");
    memcpy(d.metric, arg, n);
    rule = eq + 1;
  } else {
    snprintf(d.metric, sizeof d.metric, "time_ns");
  }
  char buf[96];
  if (strlen(rule) >= sizeof buf) return bad(arg, "too long");
  snprintf(buf, sizeof buf, "%s", rule);
  char *save, *name = strtok_r(buf, ":", &save), *w = strtok_r(NULL, ":", &save),
              *f = strtok_r(NULL, ":", &save), *more = strtok_r(NULL, ":", &save);
  if (!name) return bad(arg, "no rule");
  if (!strcmp(name, "median"))
    d.kind = LBS_DENOISE_MEDIAN;
  else if (strcmp(name, "spike"))
    return bad(arg, "unknown rule");
  int64_t wv;
  if (w && (lbs_parse_i64(w, 3, LBS_DENOISE_MAX_WINDOW, &wv) || wv % 2 == 0))
    return bad(arg, "the window is not an odd number of steps");
  if (w) d.window = (int)wv;
  if (f &&
      (d.kind != LBS_DENOISE_SPIKE || lbs_parse_f64(f, 1, 1e300, &d.factor) || !(d.factor > 1)))
    return bad(arg, d.kind == LBS_DENOISE_SPIKE ? "the factor is not a number above 1"
                                                : "median takes no factor");
  if (more) return bad(arg, "too many fields");
  *out = d;
  return LBS_OK;
}

char *lbs_denoise_format(const lbs_denoise *d, char *buf, size_t n) {
  if (d->kind == LBS_DENOISE_MEDIAN)
    snprintf(buf, n, "%s=median:%d", d->metric, d->window);
  else
    snprintf(buf, n, "%s=spike:%d:%g", d->metric, d->window, d->factor);
  return buf;
}

/* The steps of the window around step s of S: W consecutive ones, centred, shifted inward at
 * the ends (all S when there are fewer). */
void lbs_denoise_window(int window, int64_t s, int64_t S, int64_t *lo, int64_t *hi) {
  int64_t w = window < S ? window : S, l = s - w / 2;
  if (l < 0) l = 0;
  if (l > S - w) l = S - w;
  *lo = l, *hi = l + w - 1;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int64_t lbs_denoise_apply(const lbs_denoise *d, const double *const *win, int nwin, int self,
                          int64_t n, double *out) {
  int64_t changed = 0;
  double v[LBS_DENOISE_MAX_WINDOW];
  for (int64_t i = 0; i < n; i++) {
    double x = win[self][i];
    int k = 0;
    for (int j = 0; j < nwin; j++)
      if (isfinite(win[j][i])) v[k++] = win[j][i];
    out[i] = x;
    if (!isfinite(x) || k == 0) continue; /* stored as it is */
    qsort(v, (size_t)k, sizeof *v, cmp_d);
    double med = k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
    double y = d->kind == LBS_DENOISE_MEDIAN ? med : x > d->factor * med && med >= 0 ? med : x;
    if (y != x) out[i] = y, changed++;
  }
  return changed;
}
