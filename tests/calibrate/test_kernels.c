/* test_kernels.c - the kernels' adapters (RoundMetric, NextMetric, CalcMetric, CreateParams,
 * random parameters, checks) and the cpu and threads implementations: every adapter keeps the
 * invariants of seed 004 Table 4-2, every implementation's outputs pass the adapter's check at
 * small, odd and random sizes, threads agree with cpu, and the checks can fail. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_int.h"
#include "kernels.h"
#include "lbs_calib.h"

#define NADAPTERS 7
static const char *kernels[NADAPTERS] = {"sort", "dot",  "conv1d", "matmul",
                                         "wave", "walk", "bhforce"};

static const lbs_impl_ops *impl_of(const char *kernel, const char *target) {
  char name[64];
  snprintf(name, sizeof name, "%s.%s", kernel, target);
  const lbs_impl_ops *ops;
  cr_assert_eq(lbs_impl_find(name, &ops), LBS_OK, "%s", lbs_errmsg());
  return ops;
}

/* Runs impl (threads: T) on params; the error code. */
static lbs_err run(const lbs_impl_ops *ops, int T, void *params) {
  void *ctx = NULL;
  char dev[256];
  lbs_impl_args args = {T, 0};
  lbs_err e = ops->open(&ctx, &args, dev, sizeof dev);
  cr_assert_eq(e, LBS_OK, "%s", lbs_errmsg());
  e = ops->execute(ctx, params);
  ops->close(ctx);
  return e;
}

static void *create(const lbs_adapter *a, double w, uint64_t seed) {
  void *p = NULL;
  cr_assert_eq(a->create_params(w, seed, &p), LBS_OK, "%s(%.17g): %s", a->kernel, w, lbs_errmsg());
  cr_assert_not_null(p);
  return p;
}

static void assert_checks(const lbs_adapter *a, const void *p, const char *what) {
  char why[512] = "";
  cr_assert_eq(a->check(p, why, sizeof why), 0, "%s %s, metric %.17g: %s", a->kernel, what,
               a->calc_metric(p), why);
}

/* ---------------------------------------------------------------- the registry */

Test(kernels, registry_lists_every_kernel_on_cpu_and_threads) {
  for (int i = 0; i < NADAPTERS; i++) {
    const lbs_adapter *a = lbs_adapter_at(i);
    cr_assert_not_null(a);
    cr_assert_str_eq(a->kernel, kernels[i]);
    cr_assert_eq(lbs_adapter_find(kernels[i]), a);
    cr_assert(a->metric && *a->metric && a->help && *a->help);
    /* the default range: valid metrics, four decades */
    cr_assert_eq(a->round_metric(a->lo), a->lo, "%s lo %g", a->kernel, a->lo);
    cr_assert_eq(a->round_metric(a->hi), a->hi, "%s hi %g", a->kernel, a->hi);
    cr_assert_geq(a->hi / a->lo, 1e4, "%s: [%g, %g]", a->kernel, a->lo, a->hi);
    cr_assert_geq(a->lo, a->round_metric(0));
    const lbs_impl_ops *c = impl_of(a->kernel, "cpu"), *t = impl_of(a->kernel, "threads");
    cr_assert_str_eq(c->kernel, a->kernel);
    cr_assert_str_eq(t->target, "threads");
  }
  cr_assert_null(lbs_adapter_at(NADAPTERS));
}

Test(kernels, devices_are_described) {
  char dev[256], want[64];
  void *ctx = NULL;
  lbs_impl_args args = {3, 0};
  const lbs_impl_ops *c = impl_of("sort", "cpu"), *t = impl_of("sort", "threads");
  cr_assert_eq(c->open(&ctx, &args, dev, sizeof dev), LBS_OK);
  cr_assert(!strncmp(dev, "cpu: ", 5) && strlen(dev) > 5, "%s", dev);
  c->close(ctx);
  cr_assert_eq(t->open(&ctx, &args, dev, sizeof dev), LBS_OK);
  cr_assert(!strncmp(dev, "threads:3: ", 11), "%s", dev);
  t->close(ctx);
  args.threads = 0;
  cr_assert_eq(t->open(&ctx, &args, dev, sizeof dev), LBS_OK);
  snprintf(want, sizeof want, "threads:%ld: ", sysconf(_SC_NPROCESSORS_ONLN));
  cr_assert(!strncmp(dev, want, strlen(want)), "%s (want %s)", dev, want);
  t->close(ctx);
  args.threads = -1;
  cr_assert_eq(t->open(&ctx, &args, dev, sizeof dev), LBS_RANGE);
  t->close(NULL), c->close(NULL);
}

/* ---------------------------------------------------------------- metrics */

static int adapter_ids[NADAPTERS] = {0, 1, 2, 3, 4, 5, 6};
ParameterizedTestParameters(kernels, metric_rules) {
  return cr_make_param_array(int, adapter_ids, NADAPTERS);
}

/* Walks the valid metrics from the smallest with NextMetric; between two of them, every value
 * rounds to the nearer and NextMetric gives the upper one. CreateParams gives back the metric
 * (CalcMetric) and refuses values that are not valid. */
ParameterizedTest(int *k, kernels, metric_rules) {
  const lbs_adapter *a = lbs_adapter_at(*k);
  const double min = a->round_metric(0);
  cr_assert_geq(min, 1);
  cr_assert_eq(a->round_metric(min), min);
  cr_assert_eq(a->round_metric(-5), min);
  cr_assert_eq(a->round_metric(NAN), min);
  cr_assert_eq(a->next_metric(-1), min);
  cr_assert_eq(a->next_metric(min - 0.5), min);
  int created = 0, refused = 0;
  double v = min;
  for (int step = 0; v < 30000; step++) {
    double nv = a->next_metric(v);
    cr_assert_gt(nv, v, "%s: next(%g) = %g", a->kernel, v, nv);
    cr_assert_eq(a->round_metric(nv), nv, "%s: next(%g) = %g is not valid", a->kernel, v, nv);
    for (double x = v + 0.25; x < nv; x += x < v + 40 ? 0.25 : (nv - v) / 7.3) {
      double r = a->round_metric(x);
      cr_assert(r == v || r == nv, "%s: round(%g) = %g, not %g or %g", a->kernel, x, r, v, nv);
      cr_assert_leq(fabs(r - x), fmin(x - v, nv - x), "%s: round(%g) = %g", a->kernel, x, r);
      cr_assert_eq(a->next_metric(x), nv, "%s: next(%g) = %g, not %g", a->kernel, x,
                   a->next_metric(x), nv);
      if (refused < 20 && (step % 7 == 0 || x == floor(x))) {
        void *p = (void *)1;
        cr_assert_eq(a->create_params(x, 1, &p), LBS_RANGE, "%s: created an invalid metric %g",
                     a->kernel, x);
        cr_assert_null(p);
        refused++;
      }
    }
    if (step < 40 || (step % 97 == 0 && v <= 3000)) {
      void *p = create(a, v, (uint64_t)step);
      cr_assert_eq(a->calc_metric(p), v, "%s: calc(create(%g)) = %g", a->kernel, v,
                   a->calc_metric(p));
      a->delete_params(p);
      created++;
    }
    v = nv;
  }
  cr_assert_gt(refused, 0);
  /* larger metrics: valid results, next above, round the nearer of the two around w */
  const double big[] = {65536.5, 1e6 + 0.3, 123456789.7, 987654321012.0, 4e15};
  for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
    double w = big[i], r = a->round_metric(w), nx = a->next_metric(w);
    if (isinf(nx)) { /* beyond the largest valid metric (walk: 2^32 - 1) */
      cr_assert_eq(r, a->round_metric(INFINITY), "%s: round(%.17g) = %.17g", a->kernel, w, r);
      cr_assert_leq(r, w);
      cr_assert_eq(a->next_metric(r), INFINITY);
      void *p = (void *)1;
      cr_assert_eq(a->create_params(a->round_metric(r) + 1, 1, &p), LBS_RANGE);
      continue;
    }
    cr_assert_eq(a->round_metric(r), r, "%s: round(%.17g) = %.17g is not valid", a->kernel, w, r);
    cr_assert_eq(a->round_metric(nx), nx, "%s: next(%.17g) = %.17g is not valid", a->kernel, w, nx);
    cr_assert_gt(nx, w);
    cr_assert_gt(a->next_metric(r), r);
    if (r <= w) {
      cr_assert_gt(a->next_metric(r), w, "%s: a valid metric between round(%.17g) and it",
                   a->kernel, w);
      cr_assert_leq(w - r, nx - w, "%s: round(%.17g) = %.17g, next is nearer", a->kernel, w, r);
    } else {
      cr_assert_eq(r, nx);
    }
    cr_assert_lt(fabs(r - w) / w, 0.01, "%s: round(%.17g) = %.17g", a->kernel, w, r);
  }
  /* CreateParams over the decades, to a tenth of the default range */
  for (double x = min; x <= fmin(a->hi / 10, 3e5); x *= 1.9) {
    double w = a->round_metric(x);
    void *p = create(a, w, 7);
    cr_assert_eq(a->calc_metric(p), w, "%s: calc(create(%.17g)) = %.17g", a->kernel, w,
                 a->calc_metric(p));
    a->delete_params(p);
    created++;
  }
  cr_assert_gt(created, 40);
  a->delete_params(NULL);
}

/* ---------------------------------------------------------------- random parameters */

ParameterizedTestParameters(kernels, random_params) {
  return cr_make_param_array(int, adapter_ids, NADAPTERS);
}

ParameterizedTest(int *k, kernels, random_params) {
  const lbs_adapter *a = lbs_adapter_at(*k);
  const double ranges[][2] = {{10, 1e4}, {1, 3}, {1000, 1003}, {3000, 3500}};
  for (size_t r = 0; r < sizeof ranges / sizeof *ranges; r++)
    for (uint64_t seed = 0; seed < 12; seed++) {
      double lo = ranges[r][0], hi = ranges[r][1];
      void *p = NULL, *q = NULL;
      cr_assert_eq(a->random_params(lo, hi, seed, &p), LBS_OK, "%s [%g, %g]: %s", a->kernel, lo, hi,
                   lbs_errmsg());
      double w = a->calc_metric(p);
      cr_assert(w >= lo && w <= hi, "%s: random metric %g outside [%g, %g]", a->kernel, w, lo, hi);
      cr_assert_eq(a->random_params(lo, hi, seed, &q), LBS_OK);
      cr_assert_eq(a->calc_metric(q), w, "%s: random_params is not deterministic", a->kernel);
      a->delete_params(p), a->delete_params(q);
    }
  void *p = (void *)1;
  cr_assert_eq(a->random_params(5, 4, 1, &p), LBS_RANGE);
  cr_assert_eq(a->random_params(2.2, 2.8, 1, &p), LBS_RANGE);
}

/* Shapes, values and placements vary over seeds (the degrees of freedom of each kernel). */
Test(kernels, random_params_vary_every_degree_of_freedom) {
  const int n = 40;
  int conv_long_a = 0, conv_long_b = 0, mm_skinny = 0, mm_distinct = 0, sort_dups = 0, sort_neg = 0,
      walk_part = 0, bh_close = 0, wave_s = 0, walk_seeds = 0;
  double first_S = -1;
  uint64_t first_seed = 0;
  for (uint64_t seed = 0; seed < (uint64_t)n; seed++) {
    void *p;
    cr_assert_eq(lbs_adapter_find("conv1d")->random_params(1000, 1e6, seed, &p), LBS_OK);
    lbs_k_conv1d *c = p;
    conv_long_a += c->na > c->nb, conv_long_b += c->nb > c->na;
    lbs_adapter_find("conv1d")->delete_params(p);

    cr_assert_eq(lbs_adapter_find("matmul")->random_params(1e4, 1e6, seed, &p), LBS_OK);
    lbs_k_matmul *m = p;
    int mx = m->m > m->n ? m->m : m->n, mn = m->m < m->n ? m->m : m->n;
    mx = m->p > mx ? m->p : mx, mn = m->p < mn ? m->p : mn;
    mm_skinny += mx >= 2 * mn;
    mm_distinct += m->m != m->n && m->n != m->p && m->m != m->p;
    lbs_adapter_find("matmul")->delete_params(p);

    cr_assert_eq(lbs_adapter_find("sort")->random_params(1000, 2000, seed, &p), LBS_OK);
    lbs_k_sort *s = p;
    int dup = 0, neg = 0;
    for (int64_t i = 1; i < s->n && !dup; i++)
      for (int64_t j = 0; j < i && j < 64; j++) dup |= s->a[i] == s->a[j];
    for (int64_t i = 0; i < s->n; i++) neg |= s->a[i] < 0;
    sort_dups += dup, sort_neg += neg;
    lbs_adapter_find("sort")->delete_params(p);

    cr_assert_eq(lbs_adapter_find("walk")->random_params(500, 1000, seed, &p), LBS_OK);
    lbs_k_walk *w = p;
    int64_t xmin = w->N, xmax = -1;
    for (int64_t i = 0; i < w->nwalks; i++) {
      cr_assert(w->start[i] >= 0 && w->start[i] < w->N * w->N);
      int64_t x = w->start[i] % w->N;
      xmin = x < xmin ? x : xmin, xmax = x > xmax ? x : xmax;
    }
    walk_part += xmax - xmin < w->N / 2;
    walk_seeds += seed > 0 && w->seed != first_seed;
    if (seed == 0) first_seed = w->seed;
    lbs_adapter_find("walk")->delete_params(p);

    cr_assert_eq(lbs_adapter_find("bhforce")->random_params(100, 200, seed, &p), LBS_OK);
    lbs_k_bhforce *b = p;
    /* coherent targets lie close together: the mean distance of consecutive targets is small */
    double d = 0;
    for (int64_t i = 1; i < b->ntarget; i++) {
      const double *x = b->x + 3 * b->target[i], *y = b->x + 3 * b->target[i - 1];
      d += sqrt((x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) +
                (x[2] - y[2]) * (x[2] - y[2]));
    }
    bh_close += d / (double)(b->ntarget - 1) < 0.3;
    for (int64_t i = 0; i < b->ntarget; i++)
      cr_assert(b->target[i] >= 0 && b->target[i] < b->nbody);
    lbs_adapter_find("bhforce")->delete_params(p);

    cr_assert_eq(lbs_adapter_find("wave")->random_params(1, 10, seed, &p), LBS_OK);
    lbs_k_wave *v = p;
    cr_assert(v->S > 0 && v->S < 1 / sqrt(3.0), "S %g", v->S);
    if (seed == 0) first_S = v->S;
    wave_s += v->S != first_S;
    lbs_adapter_find("wave")->delete_params(p);
  }
  cr_assert(conv_long_a > 5 && conv_long_b > 5, "conv1d: a longer %d times, b longer %d times",
            conv_long_a, conv_long_b);
  cr_assert(mm_skinny > 5 && mm_distinct > 5,
            "matmul: %d skinny, %d with three distinct dimensions", mm_skinny, mm_distinct);
  cr_assert(sort_dups > 3 && sort_dups < n, "sort: %d of %d with duplicates", sort_dups, n);
  cr_assert(sort_neg > 3 && sort_neg < n, "sort: %d of %d with negative values", sort_neg, n);
  cr_assert(walk_part > 3 && walk_part < n, "walk: %d of %d from part of the grid", walk_part, n);
  cr_assert_gt(walk_seeds, n / 2);
  cr_assert(bh_close > 3 && bh_close < n, "bhforce: %d of %d coherent", bh_close, n);
  cr_assert_gt(wave_s, n / 2);
}

/* ---------------------------------------------------------------- implementations */

/* Compares the outputs of two invocations of the same parameters: exact where the threads
 * target promises the cpu target's bits, else within a summation bound. */
static void assert_same(const char *k, const void *pa, const void *pb, int T) {
  if (!strcmp(k, "sort")) {
    const lbs_k_sort *a = pa, *b = pb;
    for (int64_t i = 0; i < a->n; i++)
      cr_assert(a->a[i] == b->a[i], "sort, %d threads: element %lld differs", T, (long long)i);
  } else if (!strcmp(k, "dot")) {
    const lbs_k_dot *a = pa, *b = pb;
    double s = 0;
    for (int64_t i = 0; i < a->n; i++) s += fabs(a->x[i] * a->y[i]);
    double tol = 2 * ((double)a->n + 2) * DBL_EPSILON * s;
    cr_assert_leq(fabs(a->result - b->result), tol, "dot, %d threads: %.17g vs %.17g", T, a->result,
                  b->result);
  } else if (!strcmp(k, "conv1d")) {
    const lbs_k_conv1d *a = pa, *b = pb;
    cr_assert(!memcmp(a->out, b->out, (size_t)(a->na + a->nb - 1) * sizeof *a->out),
              "conv1d, %d threads differ", T);
  } else if (!strcmp(k, "matmul")) {
    const lbs_k_matmul *a = pa, *b = pb;
    cr_assert(!memcmp(a->C, b->C, (size_t)a->m * (size_t)a->p * sizeof *a->C),
              "matmul, %d threads differ", T);
  } else if (!strcmp(k, "wave")) {
    const lbs_k_wave *a = pa, *b = pb;
    int64_t nv = a->ncells * 6 * (a->b + 1) * (a->b + 1) * (a->b + 1);
    cr_assert(!memcmp(a->F, b->F, (size_t)nv * sizeof *a->F), "wave, %d threads: fields differ", T);
    cr_assert_eq(a->emax, b->emax);
    double s = 0;
    for (int64_t i = 0; i < nv; i++) s += a->F[i] * a->F[i];
    cr_assert_leq(fabs(a->energy - b->energy), 8 * (double)nv * DBL_EPSILON * s,
                  "wave, %d threads: energy %.17g vs %.17g", T, a->energy, b->energy);
  } else if (!strcmp(k, "walk")) {
    const lbs_k_walk *a = pa, *b = pb;
    cr_assert(a->hits == b->hits && a->steps == b->steps,
              "walk, %d threads: %lld/%lld vs %lld/%lld", T, (long long)a->hits,
              (long long)a->steps, (long long)b->hits, (long long)b->steps);
  } else if (!strcmp(k, "bhforce")) {
    const lbs_k_bhforce *a = pa, *b = pb;
    cr_assert_eq(a->interactions, b->interactions);
    cr_assert(!memcmp(a->acc, b->acc, 3 * (size_t)a->ntarget * sizeof *a->acc),
              "bhforce, %d threads differ", T);
  }
}

ParameterizedTestParameters(kernels, implementations_pass_checks) {
  return cr_make_param_array(int, adapter_ids, NADAPTERS);
}

/* Every cpu and threads (1, 2, 3 threads) implementation at the smallest metrics, odd ones, the
 * default lo, a hundredth of the default hi, and random invocations. */
ParameterizedTest(int *k, kernels, implementations_pass_checks) {
  const lbs_adapter *a = lbs_adapter_at(*k);
  const lbs_impl_ops *cpu = impl_of(a->kernel, "cpu"), *thr = impl_of(a->kernel, "threads");
  double v0 = a->round_metric(0), v1 = a->next_metric(v0), v2 = a->next_metric(v1);
  double ws[] = {
      v0, v1, v2, a->round_metric(37), a->round_metric(1001), a->lo, a->round_metric(a->hi / 100),
      -1, -2, -3};
  for (size_t i = 0; i < sizeof ws / sizeof *ws; i++) {
    uint64_t seed = 11 + i;
    void *pc;
    if (ws[i] >= 0)
      pc = create(a, ws[i], seed);
    else
      cr_assert_eq(a->random_params(1, 2e4, seed, &pc), LBS_OK, "%s", lbs_errmsg());
    cr_assert_eq(run(cpu, 0, pc), LBS_OK, "%s", lbs_errmsg());
    assert_checks(a, pc, "cpu");
    for (int T = 1; T <= 3; T++) {
      void *pt;
      if (ws[i] >= 0)
        pt = create(a, ws[i], seed);
      else
        cr_assert_eq(a->random_params(1, 2e4, seed, &pt), LBS_OK);
      cr_assert_eq(run(thr, T, pt), LBS_OK, "%s", lbs_errmsg());
      char what[32];
      snprintf(what, sizeof what, "threads:%d", T);
      assert_checks(a, pt, what);
      assert_same(a->kernel, pc, pt, T);
      a->delete_params(pt);
    }
    a->delete_params(pc);
  }
}

/* Sort's merge rounds with more threads than elements, and with run counts that are not powers
 * of two. */
Test(kernels, threads_sort_any_thread_count) {
  const lbs_adapter *a = lbs_adapter_find("sort");
  const lbs_impl_ops *thr = impl_of("sort", "threads");
  const int counts[] = {4, 5, 7, 8, 13};
  const double sizes[] = {3, 6, 100, 4097};
  for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
      void *p = create(a, sizes[s], 3);
      cr_assert_eq(run(thr, counts[c], p), LBS_OK, "%s", lbs_errmsg());
      assert_checks(a, p, "threads");
      a->delete_params(p);
      cr_assert_eq(a->random_params(500, 5000, c * 10 + s, &p),
                   LBS_OK); /* with duplicates, negatives */
      cr_assert_eq(run(thr, counts[c], p), LBS_OK, "%s", lbs_errmsg());
      assert_checks(a, p, "threads (random)");
      a->delete_params(p);
    }
}

/* The serial sort on the inputs that break naive quicksorts: sorted, reversed, all equal,
 * organ pipe, and many duplicates. */
Test(kernels, introsort_on_adversarial_inputs) {
  const int64_t n = 20000;
  double *v = malloc((size_t)n * sizeof *v), *r = malloc((size_t)n * sizeof *r);
  for (int kind = 0; kind < 5; kind++) {
    for (int64_t i = 0; i < n; i++)
      v[i] = kind == 0   ? (double)i
             : kind == 1 ? (double)(n - i)
             : kind == 2 ? 1.5
             : kind == 3 ? (double)(i < n / 2 ? i : n - i)
                         : (double)(i * 7919 % 3);
    memcpy(r, v, (size_t)n * sizeof *v);
    lbs__sort_doubles(v, n);
    for (int64_t i = 1; i < n; i++)
      cr_assert_leq(v[i - 1], v[i], "kind %d at %lld", kind, (long long)i);
    double s0 = 0, s1 = 0;
    for (int64_t i = 0; i < n; i++) s0 += r[i], s1 += v[i];
    cr_assert_eq(s0, s1, "kind %d: not the same values", kind);
  }
  free(v), free(r);
}

/* ---------------------------------------------------------------- the checks can fail */

ParameterizedTestParameters(kernels, check_rejects_corrupted_outputs) {
  return cr_make_param_array(int, adapter_ids, NADAPTERS);
}

static double bump(double x) { return x + 1e-6 * (1 + fabs(x)); }

/* Corruption number c of kernel k's outputs in p; 0 when k has no corruption c. */
static int corrupt(const char *k, void *p, int c) {
  if (!strcmp(k, "sort")) {
    lbs_k_sort *s = p;
    if (c == 0) { /* out of order */
      double t = s->a[0];
      s->a[0] = s->a[s->n - 1], s->a[s->n - 1] = t;
    } else if (c == 1) { /* still ascending, another multiset */
      s->a[0] -= 1;
    } else if (c == 2) {
      s->a[s->n / 2] = s->a[s->n / 2 + 1];
    } else {
      return 0;
    }
  } else if (!strcmp(k, "dot")) {
    lbs_k_dot *d = p;
    if (c) return 0;
    d->result = bump(d->result);
  } else if (!strcmp(k, "conv1d")) {
    lbs_k_conv1d *v = p;
    if (c > 1) return 0;
    int64_t i = c ? v->na + v->nb - 2 : (v->na + v->nb) / 2;
    v->out[i] = bump(v->out[i]);
  } else if (!strcmp(k, "matmul")) {
    lbs_k_matmul *m = p;
    if (c > 1) return 0;
    size_t i = c ? (size_t)m->m * (size_t)m->p - 1 : 0;
    m->C[i] = bump(m->C[i]);
  } else if (!strcmp(k, "wave")) {
    lbs_k_wave *w = p;
    int64_t comp = (w->b + 1) * (w->b + 1) * (w->b + 1);
    if (c == 0)
      w->F[(w->ncells - 1) * 6 * comp + 3 * comp + comp / 2] += 1e-6; /* an H in the last cell */
    else if (c == 1)
      w->F[2 * comp + w->b] += 1e-6; /* an E halo (must stay) */
    else if (c == 2)
      w->energy = bump(w->energy);
    else if (c == 3)
      w->emax = bump(w->emax);
    else
      return 0;
  } else if (!strcmp(k, "walk")) {
    lbs_k_walk *w = p;
    if (c == 0)
      w->steps++;
    else if (c == 1)
      w->hits++;
    else
      return 0;
  } else if (!strcmp(k, "bhforce")) {
    lbs_k_bhforce *b = p;
    if (c == 0)
      b->acc[3 * (b->ntarget - 1) + 1] = bump(b->acc[3 * (b->ntarget - 1) + 1]);
    else if (c == 1)
      b->interactions++;
    else
      return 0;
  }
  return 1;
}

ParameterizedTest(int *k, kernels, check_rejects_corrupted_outputs) {
  const lbs_adapter *a = lbs_adapter_at(*k);
  const lbs_impl_ops *cpu = impl_of(a->kernel, "cpu");
  double w = a->round_metric(300);
  int tried = 0;
  for (int c = 0;; c++) {
    void *p = create(a, w, 5);
    cr_assert_eq(run(cpu, 0, p), LBS_OK);
    assert_checks(a, p, "cpu");
    if (!corrupt(a->kernel, p, c)) {
      a->delete_params(p);
      break;
    }
    char why[512] = "";
    cr_assert_eq(a->check(p, why, sizeof why), -1, "%s: corruption %d passed the check", a->kernel,
                 c);
    cr_assert(!strncmp(why, a->kernel, strlen(a->kernel)) && strlen(why) > strlen(a->kernel) + 5,
              "%s: why '%s'", a->kernel, why);
    a->delete_params(p);
    tried++;
  }
  cr_assert_gt(tried, 0);
}

/* ---------------------------------------------------------------- threads that fail to start */

static int create_calls, fail_at, fail_errno;

static int failing_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
                          void *arg) {
  if (++create_calls >= fail_at) return fail_errno;
  return pthread_create(th, attr, fn, arg);
}

Test(kernels, a_thread_that_fails_to_start_is_an_error) {
  lbs__thread_create = failing_create;
  for (int i = 0; i < NADAPTERS; i++) {
    const lbs_adapter *a = lbs_adapter_at(i);
    const lbs_impl_ops *thr = impl_of(a->kernel, "threads");
    const int at[] = {1, 2}, err[] = {EAGAIN, EPERM};
    for (int j = 0; j < 2; j++) {
      create_calls = 0, fail_at = at[j], fail_errno = err[j];
      void *p = create(a, a->round_metric(100), 1);
      lbs_err e = run(thr, 3, p);
      cr_assert_eq(e, err[j] == EAGAIN ? LBS_NOMEM : LBS_IO, "%s: %s", a->kernel, lbs_strerror(e));
      cr_assert(strstr(lbs_errmsg(), "starting thread") && strstr(lbs_errmsg(), a->kernel), "%s",
                lbs_errmsg());
      a->delete_params(p);
    }
  }
  lbs__thread_create = pthread_create;
}
