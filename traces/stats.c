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

lbs_err lbs_trace_value_stats(lbs_trace *t, int metric, lbs_progress_fn progress, void *arg,
                              lbs_value_stats *out) {
  memset(out, 0, sizeof *out);
  out->min = out->median = out->p99 = out->max = NAN;
  int64_t E = lbs_trace_elements(t), S = lbs_trace_steps(t);
  if (metric < 0 || metric >= lbs_trace_nmetrics(t)) return lbs_fail(LBS_RANGE, "metric %d out of range", metric);
  double *v = malloc((size_t)(E ? E : 1) * sizeof *v);
  int64_t *h[2] = {calloc(BINS, sizeof(int64_t)), calloc(BINS, sizeof(int64_t))};
  target tg[2];
  memset(tg, 0, sizeof tg);
  lbs_err e = v && h[0] && h[1] ? LBS_OK : lbs_fail(LBS_NOMEM, "value statistics");
  double lo = INFINITY, hi = -INFINITY;
  /* pass 1: counts, extremes, and the histogram of the top 16 bits */
  for (int64_t s = 0; s < S && !e; s++) {
    if ((e = lbs_trace_read(t, s, metric, 0, E, v))) break;
    double slo = INFINITY, shi = -INFINITY;
    for (int64_t i = 0; i < E; i++) {
      double x = v[i];
      if (!isfinite(x)) {
        out->nonfinite++;
        continue;
      }
      out->finite++;
      out->negative += x < 0;
      out->zero += x == 0;
      slo = fmin(slo, x), shi = fmax(shi, x);
      h[0][key_of(x) >> 48]++;
    }
    if (slo <= shi) {
      lo = fmin(lo, slo), hi = fmax(hi, shi);
      if (shi - slo > out->max_step_range) out->max_step_range = shi - slo;
    }
    if (progress && progress(arg, s + 1, S)) e = lbs_fail(LBS_INVAL, "stopped");
  }
  out->values = E * S;
  int64_t N = out->finite;
  if (!e && N > 0) {
    out->min = lo, out->max = hi;
    const double q[2] = {0.5, 0.99};
    for (int k = 0; k < 2; k++) {
      int64_t r = (int64_t)ceil(q[k] * (double)N) - 1;
      tg[k].rank = r < 0 ? 0 : r >= N ? N - 1 : r;
      descend(&tg[k], h[0]);
    }
  }
  /* further passes: narrow each unresolved target, or gather it when small enough */
  while (!e && N > 0 && !(tg[0].done && tg[1].done)) {
    int gather[2];
    for (int k = 0; k < 2; k++) {
      gather[k] = !tg[k].done && tg[k].count <= COLLECT;
      if (!tg[k].done && !gather[k]) memset(h[k], 0, BINS * sizeof(int64_t));
      if (gather[k] && !(tg[k].vals = malloc((size_t)tg[k].count * sizeof(double))))
        e = lbs_fail(LBS_NOMEM, "value statistics");
      tg[k].nvals = 0;
    }
    for (int64_t s = 0; s < S && !e; s++) {
      if ((e = lbs_trace_read(t, s, metric, 0, E, v))) break;
      for (int64_t i = 0; i < E; i++) {
        if (!isfinite(v[i])) continue;
        uint64_t key = key_of(v[i]);
        for (int k = 0; k < 2; k++) {
          if (tg[k].done || key >> (64 - tg[k].depth) != tg[k].prefix) continue;
          if (gather[k]) {
            if (tg[k].nvals < tg[k].count) tg[k].vals[tg[k].nvals++] = v[i];
          } else {
            h[k][(key >> (48 - tg[k].depth)) & 0xffff]++;
          }
        }
      }
      if (progress && progress(arg, s + 1, S)) e = lbs_fail(LBS_INVAL, "stopped");
    }
    for (int k = 0; k < 2 && !e; k++) {
      if (tg[k].done) continue;
      if (gather[k]) {
        if (tg[k].nvals != tg[k].count) {
          e = lbs_fail(LBS_CORRUPT, "the trace changed while it was read");
          break;
        }
        qsort(tg[k].vals, (size_t)tg[k].nvals, sizeof(double), cmp_double);
        tg[k].result = tg[k].vals[tg[k].rank];
        tg[k].done = 1;
      } else {
        descend(&tg[k], h[k]);
      }
      free(tg[k].vals);
      tg[k].vals = NULL;
    }
  }
  if (!e && N > 0) out->median = tg[0].result, out->p99 = tg[1].result;
  for (int k = 0; k < 2; k++) free(tg[k].vals);
  free(h[0]), free(h[1]), free(v);
  return e;
}
