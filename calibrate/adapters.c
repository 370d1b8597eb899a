/* adapters.c - the adapters of the built-in kernels (seed 004 4.2.3, Table 4-2): which work
 * metrics are valid (RoundMetric, NextMetric), the metric of an invocation (CalcMetric), a
 * representative invocation for a metric (CreateParams, DeleteParams), random invocations for
 * verification and a check of the outputs an implementation left.
 *
 * Work metrics (seed 004 Table 6-1 where the thesis has the function):
 *   sort     n, the elements                 valid: integers >= 1
 *   dot      n, the length of either vector  valid: integers >= 1
 *   conv1d   na * nb                         valid: multiples of 64 (CreateParams: a filter b
 *                                            of nb = 64 taps over a signal of na = w / 64)
 *   matmul   m * n * p                       valid: d^2 p with d = floor(cbrt(w)) and p >= d,
 *                                            i.e. every w whose floor(cbrt(w))^2 divides it
 *                                            (CreateParams: m = n = d, p in d..d+3 for d >= 4:
 *                                            near-cubic), steps of d^2, about 1/d relative
 *   wave     ncells (cells of 4^3 points)    valid: integers >= 1
 *   walk     walks (on a 64 x 64 grid)       valid: integers 1 .. 2^32 - 1 (as apps/laplace-mc)
 *   bhforce  target bodies (of 16384)        valid: integers >= 1
 * Metrics stop at 2^52, walk's at 2^32 - 1 (RoundMetric clamps there; NextMetric beyond it is
 * +inf).
 *
 * Default ranges [lo, hi] of `lbsim calibrate run` (seed 004 6.2 sized its ranges so that the
 * largest took about 3 s; here hi takes 30-100 ms on one thread and lo = hi / 1e4, four
 * decades). Timed roughly with lbs_calib_measure on the cpu target, 2-core Xeon development VM
 * (a few runs each, other work on the machine):
 *   sort     100 .. 1e6                 62 ms at hi
 *   dot      3000 .. 3e7                40 ms (memory-bound: 480 MB of operands)
 *   conv1d   12800 .. 1.28e8            53 ms (2e6 x 64 taps)
 *   matmul   19683 (27^3) .. 199858816  53 ms (584 x 584 times 584 x 586)
 *   wave     4 .. 40000                 36 ms (240 MB of fields)
 *   walk     4 .. 40000                 39 ms
 *   bhforce  1 .. 10000                 ~150 ms: about 15 us a target, so four decades above
 *                                       the smallest metric (1) cannot stay under 100 ms
 *
 * Usage assumptions of CreateParams (seed 004 3.3.3): values in random order, uniform in
 * [0, 1) (sort) or [-1, 1) (the others); walks from points uniform over the grid; bhforce
 * targets uniform over a fixed Plummer sphere. Data are drawn from the seed with lbs_rng_*, so
 * the same (w, seed) always gives the same invocation.
 *
 * random_params draws a metric log-uniform in [lo, hi] (every decade as likely) and then the
 * rest of the invocation: value distributions, scales and offsets (sort also few distinct
 * values, i.e. many duplicates); conv1d and matmul shapes (either operand the longer, skinny to
 * cubic matrices, each matrix held to at most metric^0.8 elements); walks from random
 * sub-rectangles of the grid; bhforce targets scattered or spatially coherent (a run of the
 * tree's order); wave's field amplitude and Courant number.
 *
 * Parameters are the kernel's struct of kernels.h, first member of a private struct here when
 * check() needs more (the seed to regenerate inputs the kernel overwrote). */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "lbs_nbody.h"
#include "lbs_walk.h"

#define METRIC_MAX 4503599627370496.0 /* 2^52 */

/* Random streams: data of the first and second operand, invocation shapes. */
enum { S_A = 1, S_B = 2, S_SHAPE = 16 };

/* ---------------------------------------------------------------- helpers */

static double unit(uint64_t seed, uint64_t i) { return lbs_rng_unit(seed, S_SHAPE, i); }

/* Log-uniform in [lo, hi] (lo > 0). */
static double log_uniform(double lo, double hi, uint64_t seed, uint64_t i) {
  double v = exp(log(lo) + unit(seed, i) * (log(hi) - log(lo)));
  return v < lo ? lo : v > hi ? hi : v;
}

/* Uniform integer in [lo, hi]. */
static int64_t pick(int64_t lo, int64_t hi, uint64_t seed, uint64_t i) {
  return lo + (int64_t)(lbs_rng_u64(seed, S_SHAPE, i) % (uint64_t)(hi - lo + 1));
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Valid metrics that are the integers of [min, max]. */
static double round_int(double w, double min, double max) {
  if (!(w > min)) return min; /* NaN too */
  if (w >= max) return max;
  return floor(w + 0.5);
}

static double next_int(double w, double min, double max) {
  if (!(w >= min)) return min;
  if (w >= max) return INFINITY;
  return floor(w) + 1;
}

static int is_int(double w, double min, double max) {
  return w >= min && w <= max && w == floor(w);
}

/* The integers of [lo, hi] within [min, max], or LBS_RANGE. */
static lbs_err int_range(const char *k, double lo, double hi, double min, double max, int64_t *ilo,
                         int64_t *ihi) {
  double l = lo > min ? ceil(lo) : min, h = hi < max ? floor(hi) : max;
  if (isnan(lo) || isnan(hi) || l > h)
    return lbs_fail(LBS_RANGE, "%s: no valid work metric in [%g, %g] (valid: %g to %g)", k, lo, hi,
                    min, max);
  *ilo = (int64_t)l, *ihi = (int64_t)h;
  return LBS_OK;
}

/* A metric log-uniform in [ilo, ihi], rounded. */
static int64_t draw_metric(int64_t ilo, int64_t ihi, uint64_t seed, uint64_t i) {
  return clamp64(llround(log_uniform((double)ilo, (double)ihi, seed, i)), ilo, ihi);
}

static lbs_err invalid(const char *k, double w, const char *rule) {
  return lbs_fail(LBS_RANGE, "%s: work metric %.17g is not valid (%s)", k, w, rule);
}

/* count elements of size bytes; zero: zeroed and so touched (outputs: their page faults
 * happen here, not inside a measured execute), else left for the caller to fill. */
static lbs_err alloc_n(void **out, int64_t count, size_t size, int zero, const char *k,
                       const char *what) {
  *out = NULL;
  if (count < 0 || (uint64_t)count > (uint64_t)PTRDIFF_MAX / size)
    return lbs_fail(LBS_NOMEM, "%s: %lld %s are more than memory can hold", k, (long long)count,
                    what);
  size_t bytes = (count ? (size_t)count : 1) * size;
  if (!(*out = malloc(bytes)))
    return lbs_fail(LBS_NOMEM, "%s: %lld %s (%.3g MB)", k, (long long)count, what,
                    (double)bytes / 1e6);
  if (zero) memset(*out, 0, bytes);
  return LBS_OK;
}

/* Values off + scale (2u - 1) of stream s, u uniform in [0, 1). */
static void fill_uniform(double *v, int64_t n, uint64_t seed, uint64_t s, double off,
                         double scale) {
  for (int64_t i = 0; i < n; i++) v[i] = off + scale * (2 * lbs_rng_unit(seed, s, (uint64_t)i) - 1);
}

/* A random scale 10^[-3, 3) and an offset: 0 half the time, else up to twice the scale (sums
 * without cancellation). */
static void draw_scale(uint64_t seed, uint64_t i, double *off, double *scale) {
  *scale = pow(10, -3 + 6 * unit(seed, i));
  *off = unit(seed, i + 1) < 0.5 ? 0 : *scale * 2 * (2 * unit(seed, i + 2) - 1);
}

/* |got - want| <= tol, false for NaN. */
static int near(double got, double want, double tol) { return fabs(got - want) <= tol; }

/* The ops of an adapter whose functions are prefix_round, prefix_next, ... */
#define ADAPTER_OPS(prefix)                                                                        \
  .round_metric = prefix##_round, .next_metric = prefix##_next, .calc_metric = prefix##_calc,      \
  .create_params = prefix##_create, .random_params = prefix##_random,                              \
  .delete_params = prefix##_delete, .check = prefix##_check

/* ---------------------------------------------------------------- sort */

enum { SORT_UNIT, SORT_UNIFORM, SORT_NORMAL, SORT_FEW };

typedef struct {
  lbs_k_sort k; /* first: what implementations see */
  uint64_t seed;
  int dist;          /* SORT_*: how values are drawn */
  double off, scale; /* SORT_UNIFORM, SORT_NORMAL, SORT_FEW */
  int64_t ndistinct; /* SORT_FEW: values off + scale q, q in 0..ndistinct-1 */
} sort_params;

static double sort_value(const sort_params *q, int64_t i) {
  double u = lbs_rng_unit(q->seed, S_A, (uint64_t)i);
  switch (q->dist) {
  case SORT_UNIFORM: return q->off + q->scale * (2 * u - 1);
  case SORT_NORMAL: return q->off + q->scale * lbs_rng_normal(q->seed, S_A, (uint64_t)i);
  case SORT_FEW: return q->off + q->scale * floor(u * (double)q->ndistinct);
  default: return u;
  }
}

static double sort_round(double w) { return round_int(w, 1, METRIC_MAX); }
static double sort_next(double w) { return next_int(w, 1, METRIC_MAX); }
static double sort_calc(const void *params) { return (double)((const lbs_k_sort *)params)->n; }

static void sort_delete(void *params) {
  sort_params *q = params;
  if (q) free(q->k.a);
  free(q);
}

static lbs_err sort_make(int64_t n, uint64_t seed, int dist, double off, double scale, int64_t nd,
                         void **params) {
  *params = NULL;
  sort_params *q = calloc(1, sizeof *q);
  if (!q) return lbs_fail(LBS_NOMEM, "sort: parameters");
  *q = (sort_params){{n, NULL}, seed, dist, off, scale, nd};
  lbs_err e = alloc_n((void **)&q->k.a, n, sizeof(double), 0, "sort", "values");
  if (e) {
    sort_delete(q);
    return e;
  }
  for (int64_t i = 0; i < n; i++) q->k.a[i] = sort_value(q, i);
  *params = q;
  return LBS_OK;
}

static lbs_err sort_create(double w, uint64_t seed, void **params) {
  *params = NULL;
  if (!is_int(w, 1, METRIC_MAX)) return invalid("sort", w, "a whole number of elements >= 1");
  return sort_make((int64_t)w, seed, SORT_UNIT, 0, 1, 0, params);
}

static lbs_err sort_random(double lo, double hi, uint64_t seed, void **params) {
  int64_t ilo = 1, ihi = 1;
  lbs_err e = int_range("sort", lo, hi, 1, METRIC_MAX, &ilo, &ihi);
  if (e) return e;
  int64_t n = draw_metric(ilo, ihi, seed, 0);
  int dist = (int)pick(SORT_UNIT, SORT_FEW, seed, 1);
  double off, scale;
  draw_scale(seed, 2, &off, &scale);
  return sort_make(n, seed, dist, off, scale, pick(1, 100, seed, 5), params);
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static int sort_check(const void *params, char *why, size_t n) {
  const sort_params *q = params;
  const double *a = q->k.a;
  for (int64_t i = 1; i < q->k.n; i++)
    if (!(a[i - 1] <= a[i])) {
      snprintf(why, n, "sort: not ascending at %lld: %.17g after %.17g", (long long)i, a[i],
               a[i - 1]);
      return -1;
    }
  double *ref = malloc((size_t)(q->k.n ? q->k.n : 1) * sizeof *ref);
  if (!ref) {
    snprintf(why, n, "sort: cannot check %lld values: out of memory", (long long)q->k.n);
    return -1;
  }
  for (int64_t i = 0; i < q->k.n; i++) ref[i] = sort_value(q, i);
  qsort(ref, (size_t)q->k.n, sizeof *ref, cmp_double);
  int rc = 0;
  for (int64_t i = 0; i < q->k.n && !rc; i++)
    if (a[i] != ref[i]) {
      snprintf(
          why, n,
          "sort: element %lld is %.17g where the sorted input has %.17g (not the input's values)",
          (long long)i, a[i], ref[i]);
      rc = -1;
    }
  free(ref);
  return rc;
}

static const lbs_adapter sort_adapter = {
    .kernel = "sort",
    .metric = "elements",
    .help = "sort n doubles ascending; usage: values in random order (uniform in [0, 1))",
    .lo = 100,
    .hi = 1000000,
    ADAPTER_OPS(sort)};

/* ---------------------------------------------------------------- dot */

static double dot_round(double w) { return round_int(w, 1, METRIC_MAX); }
static double dot_next(double w) { return next_int(w, 1, METRIC_MAX); }
static double dot_calc(const void *params) { return (double)((const lbs_k_dot *)params)->n; }

static void dot_delete(void *params) {
  lbs_k_dot *p = params;
  if (p) free(p->x), free(p->y);
  free(p);
}

static lbs_err dot_make(int64_t n, uint64_t seed, const double offs[2], const double scales[2],
                        void **params) {
  *params = NULL;
  lbs_k_dot *p = calloc(1, sizeof *p);
  if (!p) return lbs_fail(LBS_NOMEM, "dot: parameters");
  p->n = n;
  lbs_err e = alloc_n((void **)&p->x, n, sizeof(double), 0, "dot", "values of x");
  if (!e) e = alloc_n((void **)&p->y, n, sizeof(double), 0, "dot", "values of y");
  if (e) {
    dot_delete(p);
    return e;
  }
  fill_uniform(p->x, n, seed, S_A, offs[0], scales[0]);
  fill_uniform(p->y, n, seed, S_B, offs[1], scales[1]);
  *params = p;
  return LBS_OK;
}

static lbs_err dot_create(double w, uint64_t seed, void **params) {
  *params = NULL;
  if (!is_int(w, 1, METRIC_MAX)) return invalid("dot", w, "a whole length >= 1");
  return dot_make((int64_t)w, seed, (const double[]){0, 0}, (const double[]){1, 1}, params);
}

static lbs_err dot_random(double lo, double hi, uint64_t seed, void **params) {
  int64_t ilo = 1, ihi = 1;
  lbs_err e = int_range("dot", lo, hi, 1, METRIC_MAX, &ilo, &ihi);
  if (e) return e;
  double offs[2], scales[2];
  draw_scale(seed, 1, &offs[0], &scales[0]);
  draw_scale(seed, 4, &offs[1], &scales[1]);
  return dot_make(draw_metric(ilo, ihi, seed, 0), seed, offs, scales, params);
}

/* Any summation order of n products is within (n + 1) u of the sum of their magnitudes (u the
 * unit roundoff, eps / 2): the tolerance is twice that, so no correct order fails. */
static int dot_check(const void *params, char *why, size_t n) {
  const lbs_k_dot *p = params;
  long double s = 0, a = 0;
  for (int64_t i = 0; i < p->n; i++) {
    long double t = (long double)p->x[i] * p->y[i];
    s += t, a += fabsl(t);
  }
  double tol = ((double)p->n + 2) * DBL_EPSILON * (double)a;
  if (near(p->result, (double)s, tol)) return 0;
  snprintf(why, n, "dot: result %.17g, reference %.17g (tolerance %.3g)", p->result, (double)s,
           tol);
  return -1;
}

static const lbs_adapter dot_adapter = {
    .kernel = "dot",
    .metric = "elements (n)",
    .help = "inner product of two n-vectors of doubles; usage: values uniform in [-1, 1)",
    .lo = 3000,
    .hi = 30000000,
    ADAPTER_OPS(dot)};

/* ---------------------------------------------------------------- conv1d */

#define CONV_TAPS 64 /* CreateParams' filter length: the metrics are its multiples */
/* random_params: the longer operand at most this long if it can */
#define CONV_LONG_MAX (1 << 22)

static double conv_round(double w) {
  if (!(w > CONV_TAPS)) return CONV_TAPS;
  if (w >= METRIC_MAX) return METRIC_MAX;
  return CONV_TAPS * floor(w / CONV_TAPS + 0.5);
}

static double conv_next(double w) {
  if (!(w >= CONV_TAPS)) return CONV_TAPS;
  if (w >= METRIC_MAX) return INFINITY;
  return CONV_TAPS * (floor(w / CONV_TAPS) + 1);
}

static double conv_calc(const void *params) {
  const lbs_k_conv1d *p = params;
  return (double)p->na * (double)p->nb;
}

static void conv_delete(void *params) {
  lbs_k_conv1d *p = params;
  if (p) free(p->a), free(p->b), free(p->out);
  free(p);
}

static lbs_err conv_make(int64_t na, int64_t nb, uint64_t seed, const double offs[2],
                         const double scales[2], void **params) {
  *params = NULL;
  lbs_k_conv1d *p = calloc(1, sizeof *p);
  if (!p) return lbs_fail(LBS_NOMEM, "conv1d: parameters");
  p->na = na, p->nb = nb;
  lbs_err e = alloc_n((void **)&p->a, na, sizeof(double), 0, "conv1d", "values of a");
  if (!e) e = alloc_n((void **)&p->b, nb, sizeof(double), 0, "conv1d", "values of b");
  if (!e) e = alloc_n((void **)&p->out, na + nb - 1, sizeof(double), 1, "conv1d", "outputs");
  if (e) {
    conv_delete(p);
    return e;
  }
  fill_uniform(p->a, na, seed, S_A, offs[0], scales[0]);
  fill_uniform(p->b, nb, seed, S_B, offs[1], scales[1]);
  *params = p;
  return LBS_OK;
}

static lbs_err conv_create(double w, uint64_t seed, void **params) {
  *params = NULL;
  if (!(w >= CONV_TAPS && w <= METRIC_MAX && w == conv_round(w)))
    return invalid("conv1d", w, "a multiple of 64 >= 64");
  return conv_make((int64_t)(w / CONV_TAPS), CONV_TAPS, seed, (const double[]){0, 0},
                   (const double[]){1, 1}, params);
}

/* The shorter length s log-uniform in [1, sqrt(w)] (at least w / CONV_LONG_MAX), the longer
 * w / s, either of them a. */
static lbs_err conv_random(double lo, double hi, uint64_t seed, void **params) {
  int64_t ilo = 1, ihi = 1;
  lbs_err e = int_range("conv1d", lo, hi, 1, METRIC_MAX, &ilo, &ihi);
  if (e) return e;
  int64_t w = draw_metric(ilo, ihi, seed, 0);
  double smin = (double)w / CONV_LONG_MAX > 1 ? (double)w / CONV_LONG_MAX : 1,
         smax = sqrt((double)w);
  int64_t s = llround(log_uniform(smin < smax ? smin : smax, smax, seed, 1));
  if (s < 1) s = 1;
  int64_t llo = (ilo + s - 1) / s, lhi = ihi / s;
  if (llo > lhi) s = 1, llo = ilo, lhi = ihi; /* [lo, hi] narrower than s */
  int64_t l = clamp64(llround((double)w / (double)s), llo, lhi);
  double offs[2], scales[2];
  draw_scale(seed, 2, &offs[0], &scales[0]);
  draw_scale(seed, 5, &offs[1], &scales[1]);
  if (unit(seed, 8) < 0.5) return conv_make(l, s, seed, offs, scales, params);
  return conv_make(s, l, seed, offs, scales, params);
}

/* Per output, twice the bound of any summation order (see dot_check). */
static int conv_check(const void *params, char *why, size_t n) {
  const lbs_k_conv1d *p = params;
  for (int64_t k = 0; k < p->na + p->nb - 1; k++) {
    int64_t i0 = k - p->nb + 1 > 0 ? k - p->nb + 1 : 0, i1 = k < p->na - 1 ? k : p->na - 1;
    long double s = 0, a = 0;
    for (int64_t i = i0; i <= i1; i++) {
      long double t = (long double)p->a[i] * p->b[k - i];
      s += t, a += fabsl(t);
    }
    double tol = ((double)(i1 - i0 + 1) + 2) * DBL_EPSILON * (double)a;
    if (!near(p->out[k], (double)s, tol)) {
      snprintf(why, n, "conv1d: out[%lld] = %.17g, reference %.17g (tolerance %.3g)", (long long)k,
               p->out[k], (double)s, tol);
      return -1;
    }
  }
  return 0;
}

static const lbs_adapter conv_adapter = {
    .kernel = "conv1d",
    .metric = "multiply-adds (na*nb)",
    .help =
        "full 1-D convolution of a (na) with b (nb); usage: a 64-tap filter b, values uniform in [-1, 1)",
    .lo = 12800,
    .hi = 128000000,
    ADAPTER_OPS(conv)};

/* ---------------------------------------------------------------- matmul */

/* floor(cbrt(v)) for 1 <= v <= 2^52, exactly. */
static int64_t icbrt(int64_t v) {
  int64_t d = (int64_t)cbrt((double)v);
  while (d > 1 && d * d * d > v) d--;
  while ((d + 1) * (d + 1) * (d + 1) <= v) d++;
  return d;
}

/* The largest valid metric <= f (f >= 1): d^2 floor(f / d^2), d = icbrt(f). */
static int64_t mm_floor(int64_t f) {
  int64_t d = icbrt(f);
  return d * d * (f / (d * d));
}

/* The smallest valid metric > f (f >= 0): the next multiple of d^2, or the next cube. */
static int64_t mm_after(int64_t f) {
  if (f < 1) return 1;
  int64_t d = icbrt(f), v = d * d * (f / (d * d) + 1);
  return v < (d + 1) * (d + 1) * (d + 1) ? v : (d + 1) * (d + 1) * (d + 1);
}

static double mm_round(double w) {
  if (!(w > 1)) return 1;
  if (w >= METRIC_MAX) return (double)mm_floor((int64_t)METRIC_MAX);
  int64_t f = (int64_t)floor(w), lo = mm_floor(f), hi = mm_after(f);
  return w - (double)lo <= (double)hi - w ? (double)lo : (double)hi;
}

static double mm_next(double w) {
  if (!(w >= 1)) return 1;
  if (w >= METRIC_MAX) return INFINITY;
  return (double)mm_after((int64_t)floor(w));
}

static double mm_calc(const void *params) {
  const lbs_k_matmul *p = params;
  return (double)p->m * (double)p->n * (double)p->p;
}

static void mm_delete(void *params) {
  lbs_k_matmul *p = params;
  if (p) free(p->A), free(p->B), free(p->C);
  free(p);
}

static lbs_err mm_make(int64_t m, int64_t n, int64_t pp, uint64_t seed, const double offs[2],
                       const double scales[2], void **params) {
  *params = NULL;
  if (m > INT_MAX || n > INT_MAX || pp > INT_MAX)
    return lbs_fail(LBS_RANGE, "matmul: %lld x %lld times %lld x %lld: a dimension beyond %d",
                    (long long)m, (long long)n, (long long)n, (long long)pp, INT_MAX);
  lbs_k_matmul *p = calloc(1, sizeof *p);
  if (!p) return lbs_fail(LBS_NOMEM, "matmul: parameters");
  p->m = (int)m, p->n = (int)n, p->p = (int)pp;
  lbs_err e = alloc_n((void **)&p->A, m * n, sizeof(double), 0, "matmul", "values of A");
  if (!e) e = alloc_n((void **)&p->B, n * pp, sizeof(double), 0, "matmul", "values of B");
  if (!e) e = alloc_n((void **)&p->C, m * pp, sizeof(double), 1, "matmul", "values of C");
  if (e) {
    mm_delete(p);
    return e;
  }
  fill_uniform(p->A, m * n, seed, S_A, offs[0], scales[0]);
  fill_uniform(p->B, n * pp, seed, S_B, offs[1], scales[1]);
  *params = p;
  return LBS_OK;
}

static lbs_err mm_create(double w, uint64_t seed, void **params) {
  *params = NULL;
  if (!(w >= 1 && w <= METRIC_MAX && w == mm_round(w)))
    return invalid("matmul", w, "d^2 p with d = floor(cbrt(metric)); see NextMetric");
  int64_t v = (int64_t)w, d = icbrt(v);
  return mm_make(d, d, v / (d * d), seed, (const double[]){0, 0}, (const double[]){1, 1}, params);
}

/* m = w^a, n = w^b, p = w / (m n) with a, b and 1 - a - b in [0.2, 0.5]: from cubic to about
 * 1:3:10 (so no matrix holds more than w^0.8 elements); p adjusted into [lo, hi]. */
static lbs_err mm_random(double lo, double hi, uint64_t seed, void **params) {
  int64_t ilo = 1, ihi = 1;
  lbs_err e = int_range("matmul", lo, hi, 1, METRIC_MAX, &ilo, &ihi);
  if (e) return e;
  double w = (double)draw_metric(ilo, ihi, seed, 0), a = 1.0 / 3, b = 1.0 / 3;
  for (uint64_t t = 0; t < 64; t++) {
    double x = 0.2 + 0.3 * unit(seed, 1 + 2 * t), y = 0.2 + 0.3 * unit(seed, 2 + 2 * t),
           z = 1 - x - y;
    if (z >= 0.2 && z <= 0.5) {
      a = x, b = y;
      break;
    }
  }
  int64_t m = llround(pow(w, a)), n = llround(pow(w, b));
  m = m < 1 ? 1 : m, n = n < 1 ? 1 : n;
  for (;;) {
    int64_t plo = (ilo + m * n - 1) / (m * n), phi = ihi / (m * n);
    if (plo <= phi && phi >= 1) {
      int64_t pp = clamp64(llround(w / (double)(m * n)), plo > 1 ? plo : 1, phi);
      double offs[2], scales[2];
      draw_scale(seed, 200, &offs[0], &scales[0]);
      draw_scale(seed, 203, &offs[1], &scales[1]);
      return mm_make(m, n, pp, seed, offs, scales, params);
    }
    if (m >= n)
      m = (m + 1) / 2; /* [lo, hi] too narrow for m n: smaller rows or columns */
    else
      n = (n + 1) / 2;
  }
}

static int mm_check(const void *params, char *why, size_t nw) {
  const lbs_k_matmul *p = params;
  const size_t n = (size_t)p->n, np = (size_t)p->p;
  for (size_t i = 0; i < (size_t)p->m; i++)
    for (size_t j = 0; j < np; j++) {
      long double s = 0, a = 0;
      for (size_t k = 0; k < n; k++) {
        long double t = (long double)p->A[i * n + k] * p->B[k * np + j];
        s += t, a += fabsl(t);
      }
      double tol = ((double)n + 2) * DBL_EPSILON * (double)a, c = p->C[i * np + j];
      if (!near(c, (double)s, tol)) {
        snprintf(why, nw, "matmul: C(%zu, %zu) = %.17g, reference %.17g (tolerance %.3g)", i, j, c,
                 (double)s, tol);
        return -1;
      }
    }
  return 0;
}

static const lbs_adapter mm_adapter = {
    .kernel = "matmul",
    .metric = "multiply-adds (m*n*p)",
    .help = "C (m x p) = A (m x n) B (n x p) in doubles; usage: near-cubic (m = n = "
            "floor(cbrt(w))), values uniform in [-1, 1)",
    .lo = 19683,
    .hi = 199858816,
    ADAPTER_OPS(mm)};

/* ---------------------------------------------------------------- wave */

#define WAVE_S 0.5 /* apps/wave's Courant number */

typedef struct {
  lbs_k_wave k; /* first: what implementations see */
  uint64_t seed;
  double amp; /* fields uniform in [-amp, amp) */
} wave_params;

static int64_t wave_doubles(int b) { return 6 * (int64_t)(b + 1) * (b + 1) * (b + 1); }

static void wave_fill(const wave_params *q, double *F) {
  fill_uniform(F, q->k.ncells * wave_doubles(q->k.b), q->seed, S_A, 0, q->amp);
}

static double wave_round(double w) { return round_int(w, 1, METRIC_MAX); }
static double wave_next(double w) { return next_int(w, 1, METRIC_MAX); }
static double wave_calc(const void *params) { return (double)((const lbs_k_wave *)params)->ncells; }

static void wave_delete(void *params) {
  wave_params *q = params;
  if (q) free(q->k.F);
  free(q);
}

static lbs_err wave_make(int64_t ncells, uint64_t seed, double S, double amp, void **params) {
  *params = NULL;
  wave_params *q = calloc(1, sizeof *q);
  if (!q) return lbs_fail(LBS_NOMEM, "wave: parameters");
  q->k.ncells = ncells, q->k.b = LBS_K_WAVE_B, q->k.S = S, q->seed = seed, q->amp = amp;
  if (ncells > INT64_MAX / wave_doubles(q->k.b)) {
    wave_delete(q);
    return lbs_fail(LBS_NOMEM, "wave: %lld cells are more than memory can hold", (long long)ncells);
  }
  lbs_err e = alloc_n((void **)&q->k.F, ncells * wave_doubles(q->k.b), sizeof(double), 0, "wave",
                      "field values");
  if (e) {
    wave_delete(q);
    return e;
  }
  wave_fill(q, q->k.F);
  *params = q;
  return LBS_OK;
}

static lbs_err wave_create(double w, uint64_t seed, void **params) {
  *params = NULL;
  if (!is_int(w, 1, METRIC_MAX)) return invalid("wave", w, "a whole number of cells >= 1");
  return wave_make((int64_t)w, seed, WAVE_S, 1, params);
}

static lbs_err wave_random(double lo, double hi, uint64_t seed, void **params) {
  int64_t ilo = 1, ihi = 1;
  lbs_err e = int_range("wave", lo, hi, 1, METRIC_MAX, &ilo, &ihi);
  if (e) return e;
  double S = 0.05 + 0.52 * unit(seed, 1),
         amp = pow(10, -3 + 6 * unit(seed, 2)); /* S stable below 1/sqrt(3) */
  return wave_make(draw_metric(ilo, ihi, seed, 0), seed, S, amp, params);
}

/* The step of one cell written plainly from apps/wave's formulas: E component c at (i, j, k),
 * i in 0..b, and H component c at (i, j, k), i in -1..b-1 (one place further in the block). */
#define WE(c, i, j, k) F[(c)*comp + (i) + n1 * ((j) + n1 * (k))]
#define WH(c, i, j, k) F[(3 + (c)) * comp + (i) + 1 + n1 * ((j) + 1 + n1 * ((k) + 1))]
static void wave_ref_cell(double *F, int b, double S, double *energy, double *abs_energy,
                          double *emax) {
  const ptrdiff_t n1 = b + 1, comp = n1 * n1 * n1;
  double w = 0, wa = 0, m = 0;
  for (ptrdiff_t k = 0; k < b; k++)
    for (ptrdiff_t j = 0; j < b; j++)
      for (ptrdiff_t i = 0; i < b; i++) {
        double ex = WE(0, i, j, k), ey = WE(1, i, j, k), ez = WE(2, i, j, k);
        double hx = WH(0, i, j, k) - S * ((WE(2, i, j + 1, k) - ez) - (WE(1, i, j, k + 1) - ey));
        double hy = WH(1, i, j, k) - S * ((WE(0, i, j, k + 1) - ex) - (WE(2, i + 1, j, k) - ez));
        double hz = WH(2, i, j, k) - S * ((WE(1, i + 1, j, k) - ey) - (WE(0, i, j + 1, k) - ex));
        w += ex * ex + ey * ey + ez * ez + hx * WH(0, i, j, k) + hy * WH(1, i, j, k) +
             hz * WH(2, i, j, k);
        wa += ex * ex + ey * ey + ez * ez + fabs(hx * WH(0, i, j, k)) + fabs(hy * WH(1, i, j, k)) +
              fabs(hz * WH(2, i, j, k));
        WH(0, i, j, k) = hx, WH(1, i, j, k) = hy, WH(2, i, j, k) = hz;
      }
  for (ptrdiff_t k = 0; k < b; k++)
    for (ptrdiff_t j = 0; j < b; j++)
      for (ptrdiff_t i = 0; i < b; i++) {
        double ex = WE(0, i, j, k) + S * ((WH(2, i, j, k) - WH(2, i, j - 1, k)) -
                                          (WH(1, i, j, k) - WH(1, i, j, k - 1)));
        double ey = WE(1, i, j, k) + S * ((WH(0, i, j, k) - WH(0, i, j, k - 1)) -
                                          (WH(2, i, j, k) - WH(2, i - 1, j, k)));
        double ez = WE(2, i, j, k) + S * ((WH(1, i, j, k) - WH(1, i - 1, j, k)) -
                                          (WH(0, i, j, k) - WH(0, i, j - 1, k)));
        WE(0, i, j, k) = ex, WE(1, i, j, k) = ey, WE(2, i, j, k) = ez;
        m = fmax(m, fmax(fabs(ex), fmax(fabs(ey), fabs(ez))));
      }
  *energy += w, *abs_energy += wa, *emax = fmax(*emax, m);
}
#undef WE
#undef WH

/* Fields within 1e-12 of the amplitude (a few operations each, whatever their order or
 * contraction); energy within twice the summation bound over its terms. */
static int wave_check(const void *params, char *why, size_t n) {
  const wave_params *q = params;
  const int64_t per = wave_doubles(q->k.b), total = q->k.ncells * per;
  double *F = malloc((size_t)(total ? total : 1) * sizeof *F);
  if (!F) {
    snprintf(why, n, "wave: cannot check %lld cells: out of memory", (long long)q->k.ncells);
    return -1;
  }
  wave_fill(q, F);
  double energy = 0, abs_energy = 0, emax = 0, tol = 1e-12 * q->amp;
  for (int64_t c = 0; c < q->k.ncells; c++)
    wave_ref_cell(F + c * per, q->k.b, q->k.S, &energy, &abs_energy, &emax);
  int rc = 0;
  static const char *names[6] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
  for (int64_t v = 0; v < total && !rc; v++)
    if (!near(q->k.F[v], F[v], tol)) {
      int64_t c = v / per, r = v % per, comp = per / 6;
      snprintf(why, n, "wave: cell %lld %s[%lld] = %.17g, reference %.17g (tolerance %.3g)",
               (long long)c, names[r / comp], (long long)(r % comp), q->k.F[v], F[v], tol);
      rc = -1;
    }
  double etol = (8 * (double)q->k.ncells * q->k.b * q->k.b * q->k.b + 2) * DBL_EPSILON * abs_energy;
  if (!rc && !near(q->k.energy, energy, etol)) {
    snprintf(why, n, "wave: energy %.17g, reference %.17g (tolerance %.3g)", q->k.energy, energy,
             etol);
    rc = -1;
  }
  if (!rc && !near(q->k.emax, emax, tol)) {
    snprintf(why, n, "wave: emax %.17g, reference %.17g (tolerance %.3g)", q->k.emax, emax, tol);
    rc = -1;
  }
  free(F);
  return rc;
}

static const lbs_adapter wave_adapter = {
    .kernel = "wave",
    .metric = "cells (of 4^3 points)",
    .help = "one MRTD leapfrog step (H then E) of ncells cells of 4^3 points, apps/wave's update; "
            "usage: S = 0.5, fields uniform in [-1, 1)",
    .lo = 4,
    .hi = 40000,
    ADAPTER_OPS(wave)};

/* ---------------------------------------------------------------- walk */

#define WALK_N 64             /* the grid (usage assumption) */
#define WALK_MAX 4294967295.0 /* walks: the walk number is the low 32 bits of its random stream */

static double walk_round(double w) { return round_int(w, 1, WALK_MAX); }
static double walk_next(double w) { return next_int(w, 1, WALK_MAX); }
static double walk_calc(const void *params) { return (double)((const lbs_k_walk *)params)->nwalks; }

static void walk_delete(void *params) {
  lbs_k_walk *p = params;
  if (p) free(p->start);
  free(p);
}

/* nwalks walks from points uniform over [x0, x1) x [y0, y1). */
static lbs_err walk_make(int64_t nwalks, uint64_t seed, const int64_t box[4], void **params) {
  *params = NULL;
  lbs_k_walk *p = calloc(1, sizeof *p);
  if (!p) return lbs_fail(LBS_NOMEM, "walk: parameters");
  p->N = WALK_N, p->nwalks = nwalks, p->seed = seed;
  lbs_err e = alloc_n((void **)&p->start, nwalks, sizeof *p->start, 0, "walk", "start points");
  if (e) {
    walk_delete(p);
    return e;
  }
  uint64_t wx = (uint64_t)(box[1] - box[0]), wy = (uint64_t)(box[3] - box[2]);
  for (int64_t k = 0; k < nwalks; k++) {
    uint64_t r = lbs_rng_u64(seed, S_A, (uint64_t)k);
    int64_t x = box[0] + (int64_t)((r & 0xffffffff) % wx), y = box[2] + (int64_t)((r >> 32) % wy);
    p->start[k] = x + WALK_N * y;
  }
  *params = p;
  return LBS_OK;
}

static lbs_err walk_create(double w, uint64_t seed, void **params) {
  *params = NULL;
  if (!is_int(w, 1, WALK_MAX)) return invalid("walk", w, "a whole number of walks, 1 to 2^32 - 1");
  return walk_make((int64_t)w, seed, (const int64_t[]){0, WALK_N, 0, WALK_N}, params);
}

/* Half the time from the whole grid, else from a random sub-rectangle (walks from near the
 * boundary take a few steps, from the centre about N^2 / 3). */
static lbs_err walk_random(double lo, double hi, uint64_t seed, void **params) {
  int64_t ilo = 1, ihi = 1;
  lbs_err e = int_range("walk", lo, hi, 1, WALK_MAX, &ilo, &ihi);
  if (e) return e;
  int64_t box[4] = {0, WALK_N, 0, WALK_N};
  if (unit(seed, 1) >= 0.5) {
    box[0] = pick(0, WALK_N - 1, seed, 2), box[1] = pick(box[0] + 1, WALK_N, seed, 3);
    box[2] = pick(0, WALK_N - 1, seed, 4), box[3] = pick(box[2] + 1, WALK_N, seed, 5);
  }
  return walk_make(draw_metric(ilo, ihi, seed, 0), lbs_rng_u64(seed, S_SHAPE, 6), box, params);
}

static int walk_check(const void *params, char *why, size_t n) {
  const lbs_k_walk *p = params;
  int64_t hits = 0, steps = 0;
  for (int64_t k = 0; k < p->nwalks; k++) {
    int hot;
    int64_t g = p->start[k];
    steps += lbs_walk_one(p->seed, p->N, g, g % p->N, g / p->N, (uint64_t)k, &hot);
    hits += hot;
  }
  if (p->hits == hits && p->steps == steps) return 0;
  snprintf(why, n, "walk: %lld hits and %lld steps, reference %lld and %lld", (long long)p->hits,
           (long long)p->steps, (long long)hits, (long long)steps);
  return -1;
}

static const lbs_adapter walk_adapter = {
    .kernel = "walk",
    .metric = "walks",
    .help =
        "Laplace random walks on a 64 x 64 grid (apps/laplace-mc's walk); usage: starts uniform over the grid",
    .lo = 4,
    .hi = 40000,
    ADAPTER_OPS(walk)};

/* ---------------------------------------------------------------- bhforce */

#define BH_NBODY 16384
#define BH_LEAF 8 /* bodies per leaf, as apps/nbody's force tree */
#define BH_SEED 1 /* the Plummer sphere's */
#define BH_THETA 0.5

/* The tree of a fixed Plummer sphere, built once per process (not timed) and shared by every
 * invocation; never freed. */
static pthread_once_t bh_once = PTHREAD_ONCE_INIT;
static struct {
  lbs_err err;
  char msg[256];
  double *x; /* 3 BH_NBODY positions */
  lbs_nb_tree t;
} bh;

static void bh_build(void) {
  double *v = malloc(3 * BH_NBODY * sizeof *v);
  bh.x = malloc(3 * BH_NBODY * sizeof *bh.x);
  if (!v || !bh.x) {
    bh.err = LBS_NOMEM;
    snprintf(bh.msg, sizeof bh.msg, "bhforce: %d bodies", BH_NBODY);
  } else {
    lbs_nb_plummer(BH_NBODY, BH_SEED, bh.x, v);
    if ((bh.err = lbs_nb_build(&bh.t, bh.x, BH_NBODY, BH_LEAF)))
      snprintf(bh.msg, sizeof bh.msg, "bhforce: the tree of %d bodies: %s", BH_NBODY, lbs_errmsg());
  }
  free(v);
}

static double bh_round(double w) { return round_int(w, 1, METRIC_MAX); }
static double bh_next(double w) { return next_int(w, 1, METRIC_MAX); }
static double bh_calc(const void *params) {
  return (double)((const lbs_k_bhforce *)params)->ntarget;
}

static void bh_delete(void *params) {
  lbs_k_bhforce *p = params;
  if (p) free(p->target), free(p->acc);
  free(p);
}

/* ntarget targets: uniform over the bodies, or (coherent) a run of the tree's body order from
 * a random place. */
static lbs_err bh_make(int64_t ntarget, uint64_t seed, int coherent, void **params) {
  *params = NULL;
  pthread_once(&bh_once, bh_build);
  if (bh.err) return lbs_fail(bh.err, "%s", bh.msg);
  lbs_k_bhforce *p = calloc(1, sizeof *p);
  if (!p) return lbs_fail(LBS_NOMEM, "bhforce: parameters");
  p->nbody = BH_NBODY, p->x = bh.x, p->theta = BH_THETA, p->tree = &bh.t, p->ntarget = ntarget;
  lbs_err e = alloc_n((void **)&p->target, ntarget, sizeof *p->target, 0, "bhforce", "targets");
  if (!e && ntarget > INT64_MAX / 3)
    e = lbs_fail(LBS_NOMEM, "bhforce: %lld targets", (long long)ntarget);
  if (!e)
    e = alloc_n((void **)&p->acc, 3 * ntarget, sizeof *p->acc, 1, "bhforce",
                "acceleration components");
  if (e) {
    bh_delete(p);
    return e;
  }
  uint64_t first = lbs_rng_u64(seed, S_SHAPE, 100) % BH_NBODY;
  for (int64_t i = 0; i < ntarget; i++)
    p->target[i] = coherent ? bh.t.idx[(first + (uint64_t)i) % BH_NBODY]
                            : (int64_t)(lbs_rng_u64(seed, S_A, (uint64_t)i) % BH_NBODY);
  *params = p;
  return LBS_OK;
}

static lbs_err bh_create(double w, uint64_t seed, void **params) {
  *params = NULL;
  if (!is_int(w, 1, METRIC_MAX)) return invalid("bhforce", w, "a whole number of targets >= 1");
  return bh_make((int64_t)w, seed, 0, params);
}

static lbs_err bh_random(double lo, double hi, uint64_t seed, void **params) {
  int64_t ilo = 1, ihi = 1;
  lbs_err e = int_range("bhforce", lo, hi, 1, METRIC_MAX, &ilo, &ihi);
  if (e) return e;
  return bh_make(draw_metric(ilo, ihi, seed, 0), seed, unit(seed, 1) < 0.5, params);
}

/* Accelerations within 1e-9 of their size (floor 1e-12): the same traversal in another
 * summation order or with contraction is far closer; interactions exact. */
static int bh_check(const void *params, char *why, size_t n) {
  const lbs_k_bhforce *p = params;
  const lbs_nb_tree *t = p->tree;
  int32_t *stack = malloc((size_t)(t->nn + 1) * sizeof *stack);
  if (!stack) {
    snprintf(why, n, "bhforce: cannot check: out of memory");
    return -1;
  }
  int64_t inter = 0;
  int rc = 0;
  for (int64_t i = 0; i < p->ntarget && !rc; i++) {
    double a[3];
    inter += lbs_nb_accel(t, p->x, p->nbody, p->theta, p->target[i], a, stack);
    double tol = 1e-9 * sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) + 1e-12;
    for (int k = 0; k < 3 && !rc; k++)
      if (!near(p->acc[3 * i + k], a[k], tol)) {
        snprintf(
            why, n,
            "bhforce: target %lld (body %lld) acc[%d] = %.17g, reference %.17g (tolerance %.3g)",
            (long long)i, (long long)p->target[i], k, p->acc[3 * i + k], a[k], tol);
        rc = -1;
      }
  }
  free(stack);
  if (!rc && inter != p->interactions) {
    snprintf(why, n, "bhforce: %lld interactions, reference %lld", (long long)p->interactions,
             (long long)inter);
    rc = -1;
  }
  return rc;
}

static const lbs_adapter bh_adapter = {
    .kernel = "bhforce",
    .metric = "target bodies",
    .help = "Barnes-Hut accelerations (theta 0.5) of target bodies against a fixed 16384-body "
            "Plummer tree; usage: targets uniform over the bodies",
    .lo = 1,
    .hi = 10000,
    ADAPTER_OPS(bh)};

/* ---------------------------------------------------------------- the list */

const lbs_adapter *const lbs__adapters[] = {&sort_adapter, &dot_adapter,  &conv_adapter,
                                            &mm_adapter,   &wave_adapter, &walk_adapter,
                                            &bh_adapter,   NULL};
