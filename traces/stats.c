/* stats.c - order statistics of a metric's stored values, exact, in bounded memory.
 *
 * A double's bits, with the sign bit flipped for positive values and all bits flipped for
 * negative ones, sort as the doubles do. The first pass counts the values per 16-bit prefix
 * of that key; each further pass looks only at the values under the prefix where a wanted
 * rank falls and counts them per next 16 bits, until that prefix holds at most COLLECT
 * values, which the last pass gathers and sorts. At most five passes, memory O(2^16 + COLLECT). */
#include "lbs_traces.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BINS 65536
int64_t lbs__stats_collect = 1 << 20; /* values gathered at most (tests lower it) */
#define COLLECT lbs__stats_collect

static inline uint64_t key_of(double x) {
  uint64_t b;
  memcpy(&b, &x, 8);
  return (b >> 63) ? ~b : b | (UINT64_C(1) << 63);
}

static inline double value_of(uint64_t k) {
  uint64_t b = (k >> 63) ? k & ~(UINT64_C(1) << 63) : ~k;
  double x;
  memcpy(&x, &b, 8);
  return x;
}

typedef struct {
  int64_t rank;    /* wanted rank among the values under prefix */
  uint64_t prefix; /* the key's top `depth` bits */
  int depth;       /* bits known (0, 16, ..., 64) */
  int64_t count;   /* values under prefix */
  double *vals;    /* the gathered values (collect pass) */
  int64_t nvals;
  double result;
  int done;
} target;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Moves t one level down using the histogram h of the next 16 bits. */
static void descend(target *t, const int64_t *h) {
  int64_t r = t->rank;
  int b = 0;
  while (r >= h[b]) r -= h[b++];
  t->prefix = (t->prefix << 16) | (uint64_t)b;
  t->depth += 16;
  t->rank = r;
  t->count = h[b];
  if (t->depth == 64) t->result = value_of(t->prefix), t->done = 1;
}

/* What the passes over a metric share: the trace, its sizes, one step's values, the histograms. */
typedef struct pass {
  lbs_trace *t;
  int metric;
  int64_t E, S;
  double *v;     /* one step's values */
  int64_t *h[2]; /* a histogram per target (h[0] also pass 1's) */
  lbs_progress_fn progress;
  void *arg;
} pass;

/* Pass 1: counts, extremes, the largest step range and the histogram of the top 16 bits. */
static lbs_err first_pass(pass *p, lbs_value_stats *out, double *lo, double *hi) {
  *lo = INFINITY, *hi = -INFINITY;
  for (int64_t s = 0; s < p->S; s++) {
    lbs_err e = lbs_trace_read(p->t, s, p->metric, 0, p->E, p->v);
    if (e) return e;
    double slo = INFINITY, shi = -INFINITY;
    for (int64_t i = 0; i < p->E; i++) {
      double x = p->v[i];
      if (!isfinite(x)) {
        out->nonfinite++;
        continue;
      }
      out->finite++;
      out->negative += x < 0;
      out->zero += x == 0;
      slo = fmin(slo, x), shi = fmax(shi, x);
      p->h[0][key_of(x) >> 48]++;
    }
    if (slo <= shi) {
      *lo = fmin(*lo, slo), *hi = fmax(*hi, shi);
      if (shi - slo > out->max_step_range) out->max_step_range = shi - slo;
    }
    if (p->progress && p->progress(p->arg, s + 1, p->S)) return lbs_fail(LBS_INVAL, "stopped");
  }
  return LBS_OK;
}

/* One more pass: each unresolved target's values under its prefix, counted in its histogram or,
 * when gather[k], kept whole. */
static lbs_err next_pass(pass *p, target *tg, const int *gather) {
  for (int64_t s = 0; s < p->S; s++) {
    lbs_err e = lbs_trace_read(p->t, s, p->metric, 0, p->E, p->v);
    if (e) return e;
    for (int64_t i = 0; i < p->E; i++) {
      if (!isfinite(p->v[i])) continue;
      uint64_t key = key_of(p->v[i]);
      for (int k = 0; k < 2; k++) {
        if (tg[k].done || key >> (64 - tg[k].depth) != tg[k].prefix) continue;
        if (gather[k]) {
          if (tg[k].nvals < tg[k].count) tg[k].vals[tg[k].nvals++] = p->v[i];
        } else {
          p->h[k][(key >> (48 - tg[k].depth)) & 0xffff]++;
        }
      }
    }
    if (p->progress && p->progress(p->arg, s + 1, p->S)) return lbs_fail(LBS_INVAL, "stopped");
  }
  return LBS_OK;
}

/* After a pass: a gathered target's value found by sorting, another narrowed by its histogram. */
static lbs_err settle(pass *p, target *tg, const int *gather) {
  for (int k = 0; k < 2; k++) {
    if (tg[k].done) continue;
    if (gather[k]) {
      if (tg[k].nvals != tg[k].count)
        return lbs_fail(LBS_CORRUPT, "the trace changed while it was read");
      qsort(tg[k].vals, (size_t)tg[k].nvals, sizeof(double), cmp_double);
      tg[k].result = tg[k].vals[tg[k].rank];
      tg[k].done = 1;
    } else {
      descend(&tg[k], p->h[k]);
    }
    free(tg[k].vals);
    tg[k].vals = NULL;
  }
  return LBS_OK;
}

/* The median and the 99th percentile of N finite values: targets placed by pass 1's histogram,
 * then narrowed pass after pass, or gathered when few enough are left. */
static lbs_err quantiles(pass *p, target *tg, int64_t N) {
  const double q[2] = {0.5, 0.99};
  for (int k = 0; k < 2; k++) {
    int64_t r = (int64_t)ceil(q[k] * (double)N) - 1;
    tg[k].rank = r < 0 ? 0 : r >= N ? N - 1 : r;
    descend(&tg[k], p->h[0]);
  }
  lbs_err e = LBS_OK;
  while (!e && !(tg[0].done && tg[1].done)) {
    int gather[2];
    for (int k = 0; k < 2; k++) {
      gather[k] = !tg[k].done && tg[k].count <= COLLECT;
      if (!tg[k].done && !gather[k]) memset(p->h[k], 0, BINS * sizeof(int64_t));
      if (gather[k] && !(tg[k].vals = malloc((size_t)tg[k].count * sizeof(double))))
        e = lbs_fail(LBS_NOMEM, "value statistics");
      tg[k].nvals = 0;
    }
    if (!e) e = next_pass(p, tg, gather);
    if (!e) e = settle(p, tg, gather);
  }
  return e;
}

lbs_err lbs_trace_value_stats(lbs_trace *t, int metric, lbs_progress_fn progress, void *arg,
                              lbs_value_stats *out) {
  memset(out, 0, sizeof *out);
  out->min = out->median = out->p99 = out->max = NAN;
  int64_t E = lbs_trace_elements(t), S = lbs_trace_steps(t);
  if (metric < 0 || metric >= lbs_trace_nmetrics(t))
    return lbs_fail(LBS_RANGE, "metric %d out of range", metric);
  pass p = {t,
            metric,
            E,
            S,
            malloc((size_t)(E ? E : 1) * sizeof(double)),
            {calloc(BINS, sizeof(int64_t)), calloc(BINS, sizeof(int64_t))},
            progress,
            arg};
  target tg[2];
  memset(tg, 0, sizeof tg);
  lbs_err e = p.v && p.h[0] && p.h[1] ? LBS_OK : lbs_fail(LBS_NOMEM, "value statistics");
  double lo, hi;
  if (!e) e = first_pass(&p, out, &lo, &hi);
  out->values = E * S;
  int64_t N = out->finite;
  if (!e && N > 0) {
    out->min = lo, out->max = hi;
    e = quantiles(&p, tg, N);
  }
  if (!e && N > 0) out->median = tg[0].result, out->p99 = tg[1].result;
  for (int k = 0; k < 2; k++) free(tg[k].vals);
  free(p.h[0]), free(p.h[1]), free(p.v);
  return e;
}
