/* test_ia.c - the IA heuristic (seed 004, 4.3): each step on hand-made sample sets, then whole
 * runs driven by a fake clock over known curves. */
#include <criterion/criterion.h>
#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ia_int.h"

/* Integer work metrics >= 0. */
static double round_int(double w) { return w < 0 ? 0 : floor(w + 0.5); }
static double next_int(double w) { return floor(w) + 1; }

static lbs_ia_space space(double lo, double hi) {
  return (lbs_ia_space){lo, hi, round_int, next_int};
}

static lbs_ia_opts opts(double pct, double floor_s) {
  lbs_ia_opts o;
  lbs_ia_defaults(&o, pct, floor_s, 0);
  return o;
}

/* ---------------------------------------------------------------- statistics */

Test(ia_stats, merged_cells_fit_as_gsl_does) {
  /* 40 samples at 12 metrics, repeated metrics included, around 1e6 to test cancellation. */
  double x[40], y[40];
  for (int k = 0; k < 40; k++) {
    x[k] = 1e6 + 1000.0 * (k % 12);
    y[k] = 3e-3 + 2e-9 * x[k] + 1e-5 * lbs_rng_normal(7, 1, (uint64_t)k);
  }
  lbs_ia_opts o = opts(5, 1e-6);
  lbs_ia_space sp = space(1e6, 2e6);
  lbs__ia s;
  cr_assert_eq(lbs__ia_init(&s, &o, &sp), LBS_OK);
  for (int k = 0; k < 40; k++) cr_assert_eq(lbs__ia_add_sample(&s, x[k], y[k]), LBS_OK);
  cr_assert_eq(s.ng, 12);
  double c0, c1, c00, c01, c11, ss;
  gsl_fit_linear(x, 1, y, 1, 40, &c0, &c1, &c00, &c01, &c11, &ss);
  lbs__ia_stats *st = &s.m[(size_t)0 * (size_t)s.mcap + (size_t)(s.ng - 1)];
  cr_assert_eq(st->n, 40);
  lbs__ia_fit f = lbs__ia_fit_cell(st, s.g[0].w, s.g[s.ng - 1].w, 0.95);
  cr_assert(f.ok);
  cr_assert_float_eq(f.c1, c1, 1e-9 * fabs(c1), "slope %g vs gsl %g", f.c1, c1);
  cr_assert_float_eq(f.c0, c0, 1e-9 * fabs(c0) + 1e-12, "intercept %g vs gsl %g", f.c0, c0);
  cr_assert_float_eq(f.sumsq, ss, 1e-6 * ss, "sumsq %g vs gsl %g", f.sumsq, ss);
  cr_assert_float_eq(f.cov11, c11, 1e-6 * c11);
  cr_assert_float_eq(f.cov00, c00, 1e-6 * c00);
  /* Every cell (i, j) equals a fit of its own samples. */
  for (int i = 0; i < s.ng; i++)
    for (int j = i + 1; j < s.ng; j++) {
      double xs[40], ys[40];
      int n = 0;
      for (int k = 0; k < 40; k++)
        if (x[k] >= s.g[i].w && x[k] <= s.g[j].w) xs[n] = x[k], ys[n++] = y[k];
      if (n < 3) continue;
      gsl_fit_linear(xs, 1, ys, 1, (size_t)n, &c0, &c1, &c00, &c01, &c11, &ss);
      lbs__ia_fit g =
          lbs__ia_fit_cell(&s.m[(size_t)i * (size_t)s.mcap + (size_t)j], s.g[i].w, s.g[j].w, 0.95);
      cr_assert_float_eq(g.c1, c1, 1e-8 * fabs(c1) + 1e-18, "cell (%d,%d)", i, j);
    }
  lbs__ia_free(&s);
}

Test(ia_stats, confidence_interval_of_a_point_and_a_line) {
  lbs__ia_stats a = {1, 10, 1.0, 0, 0, 0}, b = {1, 10, 1.2, 0, 0, 0}, c = {1, 10, 0.8, 0, 0, 0};
  lbs__ia_stats p = lbs__ia_merge(lbs__ia_merge(a, b), c);
  lbs__ia_fit f = lbs__ia_fit_cell(&p, 10, 10, 0.95);
  cr_assert(f.ok);
  cr_assert_float_eq(f.c0, 1.0, 1e-12);
  /* s = 0.2, se = 0.2/sqrt(3), t(0.975, 2) = 4.302653 */
  cr_assert_float_eq(f.h0, 4.302653 * 0.2 / sqrt(3), 1e-5);
  /* Two samples are not enough. */
  lbs__ia_stats two = lbs__ia_merge(a, b);
  cr_assert_not(lbs__ia_fit_cell(&two, 10, 10, 0.95).ok);
  /* Exact line: zero width at both ends. */
  lbs__ia_stats l = {0};
  for (int k = 0; k < 4; k++) l = lbs__ia_merge(l, (lbs__ia_stats){1, k, 1 + 2.0 * k, 0, 0, 0});
  f = lbs__ia_fit_cell(&l, 0, 3, 0.95);
  cr_assert_float_eq(f.c1, 2, 1e-12);
  cr_assert(f.h0 < 1e-9 && f.h1 < 1e-9);
}

/* ---------------------------------------------------------------- step 1: sample collection */

Test(ia_select, first_lower_bound_then_next_metric_then_extrapolation) {
  lbs_ia_opts o = opts(10, 0);
  lbs_ia_space sp = space(0, 1000);
  lbs__ia s;
  lbs__ia_init(&s, &o, &sp);
  cr_assert_eq(lbs__ia_select(&s), 0, "an empty IPG samples the lower bound");
  s.seg = malloc(8 * sizeof *s.seg);
  s.segcap = 8;
  s.seg[0] = (lbs__ia_seg){0, 1, 0, 1};
  s.nseg = 1;
  cr_assert_eq(lbs__ia_select(&s), 1, "a single point: NextMetric of the lower bound");
  /* A segment 0..100, t from 1 to 2: slope 0.01 per metric; SETS 5% of t=2 is 0.1 -> +10. */
  s.seg[0] = (lbs__ia_seg){0, 1, 100, 2};
  cr_assert_eq(lbs__ia_select(&s), 110);
  lbs__ia_free(&s);
}

Test(ia_select, growth_limit_and_upper_bound) {
  lbs_ia_opts o = opts(10, 0);
  lbs_ia_space sp = space(10, 1000);
  lbs__ia s;
  lbs__ia_init(&s, &o, &sp);
  s.seg = malloc(8 * sizeof *s.seg);
  s.segcap = 8;
  s.seg[0] = (lbs__ia_seg){10, 1, 20, 1}; /* flat: no positive slope */
  s.nseg = 1;
  cr_assert_eq(lbs__ia_select(&s), 30, "at most double the IPG's extent (20 + (20 - 10))");
  s.seg[0] = (lbs__ia_seg){10, 1, 900, 1.0001}; /* nearly flat: would overshoot hi */
  s.last_w = NAN;
  cr_assert_eq(lbs__ia_select(&s), 1000, "clipped to the upper bound");
  lbs__ia_free(&s);
}

Test(ia_select, exponential_fallback_reaches_the_mswm) {
  lbs_ia_opts o = opts(10, 0);
  lbs_ia_space sp = space(0, 100000);
  lbs__ia s;
  lbs__ia_init(&s, &o, &sp);
  s.seg = malloc(8 * sizeof *s.seg);
  s.segcap = 8;
  s.seg[0] = (lbs__ia_seg){0, 1, 100, 1.001};
  s.nseg = 1;
  double w = lbs__ia_select(&s), prev = w;
  cr_assert_eq(w, 200, "flat-ish: the growth limit");
  /* The frontier does not move: each sample halves the way back to the MSWM (101). */
  double expect[] = {151 /* (200+101)/2 = 150.5 */,
                     126,
                     114 /* 113.5 */,
                     108 /* 107.5 */,
                     105 /* 104.5 */,
                     103,
                     102,
                     101,
                     101};
  for (size_t k = 0; k < sizeof expect / sizeof *expect; k++) {
    w = lbs__ia_select(&s);
    cr_assert_eq(w, expect[k], "fallback %zu: %g after %g", k, w, prev);
    prev = w;
  }
  lbs__ia_free(&s);
}

/* ---------------------------------------------------------------- step 2: identification */

static void feed(lbs__ia *s, const double *w, const double *t, int n) {
  for (int k = 0; k < n; k++) cr_assert_eq(lbs__ia_add_sample(s, w[k], t[k]), LBS_OK);
}

Test(ia_identify, collinear_samples_over_the_mswm) {
  lbs_ia_opts o = opts(200, 0); /* wide METS: only the other rules matter */
  lbs_ia_space sp = space(0, 100);
  lbs__ia s;
  lbs__ia_init(&s, &o, &sp);
  double w[] = {0, 2, 4}, t[] = {1, 2, 3};
  feed(&s, w, t, 2);
  lbs__ia_cand *c;
  cr_assert_eq(lbs__ia_candidates(&s, &c), 0, "two samples: no candidate");
  free(c);
  feed(&s, w + 2, t + 2, 1);
  int n = lbs__ia_candidates(&s, &c);
  /* MSWM = lo = 0 (empty IPG): cells starting at 0; only (0..2) has 3 samples. */
  cr_assert_eq(n, 1);
  cr_assert_eq(c[0].i, 0);
  cr_assert_eq(c[0].j, 2);
  cr_assert_float_eq(c[0].c1, 0.5, 1e-12);
  free(c);
  lbs__ia_free(&s);
}

Test(ia_identify, mets_spacing_rejects_sparse_samples) {
  lbs_ia_opts o = opts(10, 0);
  lbs_ia_space sp = space(0, 1000);
  lbs__ia s;
  lbs__ia_init(&s, &o, &sp);
  /* t = 1 + w/10: from w=0 (t=1) the METS allows 10% of 1 = 0.1 s, i.e. 1 metric; samples 5
   * apart break it. */
  double w[] = {0, 5, 10}, t[] = {1, 1.5, 2};
  feed(&s, w, t, 3);
  lbs__ia_cand *c;
  cr_assert_eq(lbs__ia_candidates(&s, &c), 0);
  free(c);
  lbs__ia_free(&s);
  /* The same line sampled densely enough (t grows by 0.1 = 10% of 1 at most) passes. */
  lbs__ia_init(&s, &o, &sp);
  double w2[] = {0, 1, 2}, t2[] = {1, 1.1, 1.2};
  feed(&s, w2, t2, 3);
  cr_assert_eq(lbs__ia_candidates(&s, &c), 1);
  free(c);
  lbs__ia_free(&s);
}

Test(ia_identify, wide_confidence_rejects_noise_and_max_point_samples_accepts) {
  lbs_ia_opts o = opts(5, 0);
  lbs_ia_space sp = space(0, 1000);
  lbs__ia s;
  lbs__ia_init(&s, &o, &sp);
  double w[8] = {0, 0, 0, 0, 0, 0, 0, 0}, t[8] = {1, 1.3, 0.8, 1.2, 0.9, 1.25, 0.7, 1.1};
  feed(&s, w, t, 3);
  lbs__ia_cand *c;
  cr_assert_eq(lbs__ia_candidates(&s, &c), 0, "a noisy point: interval too wide");
  free(c);
  feed(&s, w + 3, t + 3, 4);
  cr_assert_eq(lbs__ia_candidates(&s, &c), 0, "7 samples: still too wide");
  free(c);
  feed(&s, w + 7, t + 7, 1);
  cr_assert_eq(lbs__ia_candidates(&s, &c), 1,
               "8 = max point samples: a candidate whatever the spread");
  free(c);
  lbs__ia_free(&s);
}

/* ---------------------------------------------------------------- noise (beyond the thesis) */

Test(ia_noise, robust_estimate_and_preempted_calls_left_out) {
  lbs_ia_opts o = opts(5, 0);
  lbs_ia_space sp = space(0, 1000);
  lbs__ia s;
  lbs__ia_init(&s, &o, &sp);
  cr_assert_eq(s.noise, 0);
  /* Pairs of samples 2% apart (1% either side of their mean) at five metrics. */
  for (int k = 1; k <= 5; k++) {
    double w[2] = {k, k}, t[2] = {0.99 * k, 1.01 * k};
    feed(&s, w, t, 2);
  }
  cr_assert_float_eq(s.noise, 1.4826 * 0.01 * M_SQRT2, 1e-9, "noise %g", s.noise);
  /* A third sample at metric 3, preempted (10x): left out of its group, and the estimate moves
   * little. */
  double w = 3, t = 30;
  feed(&s, &w, &t, 1);
  cr_assert_eq(s.g[2].taken, 3);
  cr_assert_eq(s.g[2].n, 2, "the preempted call is left out");
  cr_assert_float_eq(s.g[2].mean, 3, 1e-12);
  cr_assert(s.noise < 0.03, "noise %g", s.noise);
  lbs__ia_free(&s);
}

Test(ia_noise, a_group_beyond_the_threshold_is_decided_by_its_noise) {
  lbs_ia_opts o;
  lbs_ia_space sp = space(0, 1000);
  lbs__ia s;
  lbs_ia_defaults(&o, 5, 0, 0);
  o.mets = (lbs_ia_bound){1000, 0, 0}; /* spacing is not what this test is about */
  /* t = 1 at metrics 0..4, pairs at 0 and 4; metric 2 measured once 15% high (the line, pulled
   * by it, passes 2% above 1: 8% past the threshold). */
  double w[] = {0, 0, 1, 2, 3, 4, 4}, t[] = {0.995, 1.005, 1, 1.15, 1, 0.995, 1.005};
  lbs__ia_init(&s, &o, &sp);
  feed(&s, w, t, 7);
  lbs__ia_fit f;
  int which;
  /* Noise 1%: 8% past the threshold is significant, but one sample could be a preempted
   * call: confirmed first. Three samples there decide it. */
  cr_assert_eq(lbs__ia_verdict(&s, 0, 4, &f, &which), LBS__IA_UNSURE);
  cr_assert_eq(which, 2);
  double w1[] = {2, 2}, t1[] = {1.15, 1.15};
  feed(&s, w1, t1, 2);
  cr_assert_eq(lbs__ia_verdict(&s, 0, 4, &f, &which), LBS__IA_FIT);
  lbs__ia_free(&s);
  /* Noise 5%: not significant, so undecided, and metric 2 is where to sample. */
  double t2[] = {0.95, 1.05, 1, 1.15, 1, 0.95, 1.05};
  lbs__ia_init(&s, &o, &sp);
  feed(&s, w, t2, 7);
  cr_assert(s.noise > 0.05);
  cr_assert_eq(lbs__ia_verdict(&s, 0, 4, &f, &which), LBS__IA_UNSURE);
  cr_assert_eq(which, 2);
  lbs__ia_free(&s);
  /* Without noise (identical repeats) any group past the threshold fails the cell. */
  double t3[] = {1, 1, 1, 1.15, 1, 1, 1};
  lbs__ia_init(&s, &o, &sp);
  feed(&s, w, t3, 7);
  cr_assert_eq(s.noise, 0);
  cr_assert_eq(lbs__ia_verdict(&s, 0, 4, &f, &which), LBS__IA_FIT);
  lbs__ia_free(&s);
}

Test(ia_noise, a_lone_end_the_cell_does_not_predict_is_confirmed) {
  lbs_ia_opts o;
  lbs_ia_defaults(&o, 5, 0, 0);
  o.mets = (lbs_ia_bound){1000, 0, 0};
  lbs_ia_space sp = space(0, 1000);
  lbs__ia s;
  lbs__ia_init(&s, &o, &sp);
  /* t = 1 + w / 100 with 1% noise, then one sample at 5 that is 4x (a preempted call). */
  double w[] = {0, 0, 1, 2, 3, 4, 4, 5}, t[] = {0.99, 1.01, 1.01, 1.02, 1.03, 1.03, 1.05, 4.2};
  feed(&s, w, t, 8);
  lbs__ia_fit f;
  int which;
  cr_assert_eq(lbs__ia_verdict(&s, 0, 5, &f, &which), LBS__IA_UNSURE,
               "one sample at 5 would make a knee");
  cr_assert_eq(which, 5);
  /* Confirmed by a second sample on the line: then an end like any other. */
  double w2 = 5, t2 = 1.05;
  feed(&s, &w2, &t2, 1);
  cr_assert_eq(s.g[5].taken, 2);
  lbs__ia_free(&s);
}

Test(ia_identify, negative_times_at_the_ends_are_rejected) {
  lbs_ia_opts o = opts(100, 0);
  lbs_ia_space sp = space(0, 1000);
  lbs__ia s;
  lbs__ia_init(&s, &o, &sp);
  double w[] = {0, 1, 2}, t[] = {0, 0, 0};
  feed(&s, w, t, 3);
  lbs__ia_cand *c;
  cr_assert_eq(lbs__ia_candidates(&s, &c), 0, "zero times: no positive ends");
  free(c);
  lbs__ia_free(&s);
  cr_assert_eq(lbs__ia_init(&s, &o, &sp), LBS_OK);
  cr_assert_eq(lbs__ia_add_sample(&s, 1, -1e-3), LBS_RANGE);
  cr_assert(strstr(lbs_errmsg(), "-0.001") != NULL, "%s", lbs_errmsg());
  cr_assert_eq(lbs__ia_add_sample(&s, 1, NAN), LBS_RANGE);
  lbs__ia_free(&s);
}

/* ---------------------------------------------------------------- step 3: insertion */

static void set_segs(lbs__ia *s, const lbs__ia_seg *g, int n) {
  s->seg = realloc(s->seg, (size_t)(n + 4) * sizeof *s->seg);
  s->segcap = n + 4;
  memcpy(s->seg, g, (size_t)n * sizeof *g);
  s->nseg = n;
}

Test(ia_insert, append_at_the_mswm) {
  lbs_ia_opts o = opts(5, 0);
  lbs_ia_space sp = space(0, 100);
  lbs__ia s;
  lbs__ia_init(&s, &o, &sp);
  set_segs(&s, (lbs__ia_seg[]){{0, 1, 10, 2}}, 1);
  double w[] = {11, 12, 13}, t[] = {5, 6, 7}; /* a jump: a new line from the MSWM 11 */
  feed(&s, w, t, 3);
  lbs__ia_cand c = {0, 2, -6, 1};
  c.i = 0, c.j = 2; /* groups 0..2 are 11..13 */
  cr_assert(lbs__ia_insert(&s, &c, 1));
  cr_assert_eq(s.nseg, 2);
  cr_assert_float_eq(s.seg[1].w0, 11, 0);
  cr_assert_float_eq(s.seg[1].t1, 7, 1e-12);
  lbs__ia_free(&s);
}

Test(ia_insert, cut_in_at_an_intersection) {
  lbs_ia_opts o = opts(5, 0);
  lbs_ia_space sp = space(0, 100);
  lbs__ia s;
  lbs__ia_init(&s, &o, &sp);
  /* IPG: t = 1 over 0..10 (flat). Samples of t = w/5 from 4 to 20 cross it at w = 5. */
  double w[] = {4, 8, 12, 16, 20}, t[] = {0.8, 1.6, 2.4, 3.2, 4.0};
  feed(&s, w, t, 5);
  set_segs(&s, (lbs__ia_seg[]){{0, 1, 10, 1}}, 1);
  lbs__ia_cand c = {0, 4, 0, 0.2};
  cr_assert(lbs__ia_insert(&s, &c, 1));
  cr_assert_eq(s.nseg, 2);
  cr_assert_float_eq(s.seg[0].w1, 5, 1e-9, "the old segment ends at the intersection");
  cr_assert_float_eq(s.seg[1].w0, 5, 1e-9);
  cr_assert_float_eq(s.seg[1].w1, 20, 0);
  cr_assert_float_eq(s.seg[1].t1, 4, 1e-12);
  lbs__ia_free(&s);
}

Test(ia_insert, replace_the_whole_ipg_and_prefer_fewer_bad_samples) {
  lbs_ia_opts o = opts(5, 0);
  lbs_ia_space sp = space(0, 100);
  lbs__ia s;
  lbs__ia_init(&s, &o, &sp);
  /* Samples on t = 1 + w over 0..12; the IPG has a bad first segment (t = 1 flat to 6). */
  double w[] = {0, 3, 6, 9, 12}, t[] = {1, 4, 7, 10, 13};
  feed(&s, w, t, 5);
  set_segs(&s, (lbs__ia_seg[]){{0, 1, 6, 1}}, 1);
  /* Two candidates: a short one from 6 (MSWM is 7: it cannot append; it starts before the
   * MSWM and touches the flat segment only at its end) and the whole line from 0. */
  lbs__ia_cand c[2] = {{2, 4, 1, 1}, {0, 4, 1, 1}};
  cr_assert(lbs__ia_insert(&s, c, 2));
  cr_assert_eq(s.nseg, 1, "the whole line replaces the IPG: no badly estimated sample");
  cr_assert_float_eq(s.seg[0].w0, 0, 0);
  cr_assert_float_eq(s.seg[0].w1, 12, 0);
  lbs__ia_free(&s);
}

/* ---------------------------------------------------------------- step 4: commitment */

Test(ia_commit, window_fixes_segments_and_drops_rows) {
  lbs_ia_opts o = opts(5, 0);
  o.window = 2;
  lbs_ia_space sp = space(0, 100);
  lbs__ia s;
  lbs__ia_init(&s, &o, &sp);
  double w[] = {0, 10, 20, 30, 40}, t[] = {1, 2, 3, 4, 5};
  feed(&s, w, t, 5);
  set_segs(&s, (lbs__ia_seg[]){{0, 1, 10, 2}, {11, 2, 20, 3}, {21, 3, 30, 4}, {31, 4, 40, 5}}, 4);
  lbs__ia_commit(&s);
  cr_assert_eq(s.ncommitted, 2);
  cr_assert_eq(s.row0, 2, "rows starting inside committed segments (0, 10) are gone; 20 stays");
  /* A candidate that would replace everything is not tried any more. */
  lbs__ia_cand c = {0, 4, 1, 0.1};
  lbs__ia_seg before[4];
  memcpy(before, s.seg, sizeof before);
  lbs__ia_insert(&s, &c, 1);
  cr_assert_eq(memcmp(before, s.seg, 2 * sizeof *before), 0, "committed segments never change");
  lbs__ia_free(&s);
}

/* ---------------------------------------------------------------- whole runs on a fake clock */

/* A fake implementation on a fake clock: executing advances the clock by curve(w) (+ noise). */
typedef struct {
  double now;
  double (*curve)(double w);
  double noise; /* relative standard deviation */
  uint64_t k;
  double spikes; /* fraction of calls preempted for a time slice (4 ms more) */
} fake;

static double fake_now(void *ctx) { return ((fake *)ctx)->now; }
static fake *the_fake;
static double calc_w(const void *p) { return *(const double *)p; }
static lbs_err create_w(double w, uint64_t seed, void **p) {
  (void)seed;
  double *d = malloc(sizeof *d);
  *d = w;
  *p = d;
  return LBS_OK;
}
static void delete_w(void *p) { free(p); }
static lbs_err exec_w(void *ctx, void *p) {
  fake *f = ctx;
  double w = *(double *)p, t = f->curve(w);
  if (f->noise > 0) t *= 1 + f->noise * lbs_rng_normal(42, 0, f->k++);
  if (f->spikes > 0 && lbs_rng_unit(43, 0, f->k++) < f->spikes) t += 4e-3;
  f->now += t;
  return LBS_OK;
}
static const lbs_adapter fake_adapter = {"fake",   "units",   "a known curve", 0,
                                         0,        round_int, next_int,        calc_w,
                                         create_w, NULL,      delete_w,        NULL};
static const lbs_impl_ops fake_impl = {"fake", "clock", NULL, exec_w, NULL};

static lbs_err sample(void *ctx, double w, double *t) {
  fake *f = ctx;
  lbs_clock clk = {fake_now, f};
  return lbs_calib_measure(&fake_adapter, &fake_impl, f, w, 1, &clk, t);
}

static double lin_overhead(double w) { return 50e-6 + 1e-8 * w; }
static double knee(double w) { return w < 1e5 ? 2e-5 + 1e-8 * w : 2e-5 + 1e-3 + 3e-8 * (w - 1e5); }
static double gpu_like(double w) { return w < 5e4 ? 2e-4 : 2e-4 + 4e-9 * (w - 5e4); }
static double jump(double w) { return 1e-5 + 1e-8 * w + (w > 3e5 ? 2e-3 : 0); }
static double quadratic(double w) { return 1e-5 + 1e-13 * w * w; }

/* Runs the heuristic on curve over [lo, hi] and checks the IPG against the curve at 4000
 * metrics spread over the range (log and linear): within tol of the requested accuracy. */
static double spikes;
static void recover(const char *name, double (*curve)(double), double lo, double hi, double noise,
                    double pct, double floor_s, double tol, int *nsamples) {
  fake f = {0, curve, noise, 0, spikes};
  the_fake = &f;
  lbs_ia_opts o = opts(pct, floor_s);
  lbs_ia_space sp = space(lo, hi);
  lbs_ia_result r;
  lbs_err e = lbs_ia_run(&o, &sp, sample, &f, NULL, NULL, &r);
  cr_assert_eq(e, LBS_OK, "%s: %s", name, lbs_errmsg());
  cr_assert(r.complete);
  cr_assert_float_eq(r.ipg.w[0], lo, 0);
  cr_assert_float_eq(r.ipg.w[r.ipg.n - 1], hi, 0);
  double worst = 0, sum = 0;
  int n = 0;
  for (int k = 0; k < 4000; k++) {
    double u = (k + 0.5) / 2000;
    double w = k < 2000
                   ? floor(lo + (hi - lo) * u)
                   : floor(exp(log(lo > 1 ? lo : 1) + (log(hi) - log(lo > 1 ? lo : 1)) * (u - 1)));
    if (w < lo || w > hi) continue;
    double want = curve(w), got = lbs_ipg_eval(&r.ipg, w);
    double err =
        fabs(got - want) / lbs_ia_bound_at(&o.accuracy, want); /* 1 = the requested accuracy */
    if (err > 1 && getenv("IA_DEBUG")) fprintf(stderr, "  w %.0f want %g got %g\n", w, want, got);
    worst = err > worst ? err : worst;
    sum += err;
    n++;
  }
  cr_log_info(
      "%s: %d samples, %d points, worst error %.2f and mean %.3f of the requested accuracy (%g%%, floor %g s)",
      name, r.nsamples, r.ipg.n, worst, sum / n, pct, floor_s);
  fprintf(stderr,
          "ia %s: %d samples, %d points, noise %.3g, worst %.2f mean %.3f of the accuracy\n", name,
          r.nsamples, r.ipg.n, r.noise, worst, sum / n);
  if (getenv("IA_DEBUG"))
    for (int k = 0; k < r.ipg.n; k++)
      fprintf(stderr, "  point %.0f %g (curve %g)\n", r.ipg.w[k], r.ipg.t[k], curve(r.ipg.w[k]));
  cr_assert(worst <= tol, "%s: worst error %.2f x the requested accuracy", name, worst);
  if (nsamples) *nsamples = r.nsamples;
  lbs_ia_result_free(&r);
}

Test(ia_run, recovers_piecewise_linear_curves) {
  recover("linear+overhead", lin_overhead, 1, 1e6, 0, 5, 1e-6, 1.0, NULL);
  recover("knee", knee, 1, 1e6, 0, 5, 1e-6, 1.0, NULL);
  recover("gpu-like", gpu_like, 0, 1e6, 0, 5, 1e-6, 1.0, NULL);
  recover("jump", jump, 1, 1e6, 0, 5, 1e-6, 1.0, NULL);
  recover("quadratic", quadratic, 1, 1e6, 0, 5, 1e-6, 1.0, NULL);
}

Test(ia_run, recovers_noisy_curves) {
  /* 1% noise against 5% accuracy: the IPG stays within the accuracy of the samples it fits;
   * against the noiseless curve it may be off by a noisy sample more (1.25 x the accuracy). */
  recover("linear+overhead, noise 1%", lin_overhead, 1, 1e6, 0.01, 5, 1e-6, 1.25, NULL);
  recover("knee, noise 1%", knee, 1, 1e6, 0.01, 5, 1e-6, 1.25, NULL);
  recover("gpu-like, noise 1%", gpu_like, 0, 1e6, 0.01, 5, 1e-6, 1.25, NULL);
  recover("quadratic, noise 1%", quadratic, 1, 1e6, 0.01, 5, 1e-6, 1.25, NULL);
}

static lbs_err failing(void *ctx, double w, double *t) {
  int *n = ctx;
  if (++*n > 20) return lbs_fail(LBS_IO, "the device went away at work metric %g", w);
  *t = 1e-3 + 1e-6 * w;
  return LBS_OK;
}

Test(ia_run, a_failing_sampler_keeps_what_was_built) {
  lbs_ia_opts o = opts(5, 1e-6);
  lbs_ia_space sp = space(1, 1e6);
  lbs_ia_result r;
  int n = 0;
  cr_assert_eq(lbs_ia_run(&o, &sp, failing, &n, NULL, NULL, &r), LBS_IO);
  cr_assert(strstr(lbs_errmsg(), "went away") != NULL);
  cr_assert_not(r.complete);
  cr_assert_eq(r.nsamples, 20);
  cr_assert(r.ipg.n >= 2, "the part built so far is kept");
  lbs_ia_result_free(&r);
}

Test(ia_run, sample_limit_stops_with_a_partial_ipg) {
  fake f = {0, lin_overhead, 0, 0, 0};
  lbs_ia_opts o = opts(5, 1e-6);
  o.max_samples = 15;
  lbs_ia_space sp = space(1, 1e6);
  lbs_ia_result r;
  cr_assert_eq(lbs_ia_run(&o, &sp, sample, &f, NULL, NULL, &r), LBS_RANGE);
  cr_assert(strstr(lbs_errmsg(), "15 samples") != NULL, "%s", lbs_errmsg());
  cr_assert_not(r.complete);
  cr_assert_eq(r.nsamples, 15);
  lbs_ia_result_free(&r);
}

static double falling(double w) { return w < 1000 ? 1e-3 + 1e-6 * w : 1e-4 + 1e-9 * w; }

Test(ia_run, falling_times_are_noted) {
  fake f = {0, falling, 0, 0, 0};
  lbs_ia_opts o = opts(5, 1e-6);
  lbs_ia_space sp = space(1, 1e5);
  lbs_ia_result r;
  cr_assert_eq(lbs_ia_run(&o, &sp, sample, &f, NULL, NULL, &r), LBS_OK);
  cr_assert(strstr(r.note, "falls") != NULL, "note: '%s'", r.note);
  lbs_ia_result_free(&r);
  f = (fake){0, lin_overhead, 0, 0, 0};
  cr_assert_eq(lbs_ia_run(&o, &sp, sample, &f, NULL, NULL, &r), LBS_OK);
  cr_assert_str_empty(r.note);
  lbs_ia_result_free(&r);
}

Test(ia_run, deterministic) {
  lbs_ia_opts o = opts(5, 1e-6);
  lbs_ia_space sp = space(1, 1e6);
  lbs_ia_result a, b;
  fake f = {0, knee, 0.01, 0, 0};
  lbs_ia_run(&o, &sp, sample, &f, NULL, NULL, &a);
  f = (fake){0, knee, 0.01, 0, 0};
  lbs_ia_run(&o, &sp, sample, &f, NULL, NULL, &b);
  cr_assert_eq(a.nsamples, b.nsamples);
  cr_assert_eq(a.ipg.n, b.ipg.n);
  cr_assert_eq(memcmp(a.ipg.t, b.ipg.t, (size_t)a.ipg.n * sizeof *a.ipg.t), 0);
  lbs_ia_result_free(&a);
  lbs_ia_result_free(&b);
}

Test(ia_run, noise_as_large_as_the_accuracy) {
  /* 5% noise against 5% accuracy: one sample says little, so the heuristic takes more where a
   * segment's intervals or a metric's mean are undecided; every IPG completes and stays within
   * the noise of one sample past the accuracy (2x). */
  int n[3];
  recover("linear+overhead, noise 5%", lin_overhead, 1, 1e6, 0.05, 5, 1e-6, 2.0, &n[0]);
  recover("knee, noise 5%", knee, 1, 1e6, 0.05, 5, 1e-6, 2.0, &n[1]);
  recover("gpu-like, noise 5%", gpu_like, 0, 1e6, 0.05, 5, 1e-6, 2.0, &n[2]);
  for (int k = 0; k < 3; k++) cr_assert(n[k] < 4000);
}

Test(ia_run, preempted_calls_are_left_out) {
  /* 1% noise and 5% of the samples 4 ms late (a time slice on a loaded machine: 4x to 400x
   * the time here): the outliers do not stall the heuristic nor bend the IPG. */
  spikes = 0.05;
  recover("linear+overhead, 5% preempted", lin_overhead, 1, 1e6, 0.01, 5, 1e-6, 1.25, NULL);
  recover("knee, 5% preempted", knee, 1, 1e6, 0.01, 5, 1e-6, 1.25, NULL);
  spikes = 0;
}
