/* test_racecar.c - RACECAR (seed 004, 5.3) against brute force: segment adding, restricted
 * parallelization graphs, whole plans on synthetic IPGs with known optima, and plans in the
 * calibration database. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_plan.h"
#include "plan_fixture.h"

static double urand(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) / 9007199254740992.0;
}

/* A random IPG of k points over [0, hi]: times in [lo_t, lo_t * 20], any shape. */
static lbs_ipg random_ipg(uint64_t *s, int k, double hi, double lo_t) {
  lbs_ipg g = {k, malloc((size_t)k * sizeof(double)), malloc((size_t)k * sizeof(double))};
  for (int i = 0; i < k; i++) {
    g.w[i] = hi * i / (k - 1);
    g.t[i] = lo_t * (1 + 19 * urand(s));
  }
  return g;
}

/* min over a of max(f(a), g(x - a)), a on a grid of n steps over the feasible range. */
static double brute_pair(const lbs_graph *f, const lbs_graph *g, double hi, double x, int n) {
  double lo = fmax(0, x - hi), up = fmin(x, hi), best = INFINITY;
  for (int i = 0; i <= n; i++) {
    double a = lo + (up - lo) * i / n;
    double v = fmax(lbs_graph_eval(f, a), lbs_graph_eval(g, x - a));
    if (v < best) best = v;
  }
  return best;
}

static double max_slope(const lbs_graph *g) {
  double m = 0;
  for (int i = 0; i < g->n; i++)
    m = fmax(m, fabs(g->p[i].t1 - g->p[i].t0) / (g->p[i].x1 - g->p[i].x0));
  return m;
}

Test(racecar, segment_adding_is_optimal_for_every_pair_of_segments) {
  uint64_t s = 7;
  for (int trial = 0; trial < 2000; trial++) {
    lbs_piece p = {0, 1 + 9 * urand(&s), 1 + 9 * urand(&s), 0, 0, 0, 0};
    lbs_piece q = {0, 1 + 9 * urand(&s), 1 + 9 * urand(&s), 0, 0, 0, 0};
    p.x0 = 5 * urand(&s), q.x0 = 5 * urand(&s);
    p.x1 += p.x0, q.x1 += q.x0;
    int kind = trial % 5; /* flat segments and equal starts are the corner cases of Table 5-1 */
    p.t1 = kind == 0 ? p.t0 : 1 + 9 * urand(&s);
    q.t1 = kind == 1 ? q.t0 : 1 + 9 * urand(&s);
    if (kind == 2) q.t0 = p.t0;
    if (kind == 3) q.t1 = p.t1;
    lbs_graph out = {0};
    cr_assert_eq(lbs_segment_add(&p, &q, 1e9, 3, &out), LBS_OK);
    cr_assert_gt(out.n, 0);
    cr_assert_float_eq(out.p[0].x0, p.x0 + q.x0, 1e-9);
    cr_assert_float_eq(out.p[out.n - 1].x1, p.x1 + q.x1, 1e-9);
    double sp = fabs(p.t1 - p.t0) / (p.x1 - p.x0), sq = fabs(q.t1 - q.t0) / (q.x1 - q.x0);
    for (int i = 0; i <= 50; i++) {
      double x = p.x0 + q.x0 + (p.x1 + q.x1 - p.x0 - q.x0) * i / 50;
      const lbs_piece *c = lbs_graph_find(&out, x);
      cr_assert(c, "trial %d: no piece at %g", trial, x);
      double t = lbs_graph_eval(&out, x), a = lbs_piece_a(c, x);
      /* the split it names gives the time it says */
      double fa = p.t0 + (p.t1 - p.t0) * (a - p.x0) / (p.x1 - p.x0),
             fb = q.t0 + (q.t1 - q.t0) * (x - a - q.x0) / (q.x1 - q.x0);
      cr_assert(a >= p.x0 - 1e-9 && a <= p.x1 + 1e-9 && x - a >= q.x0 - 1e-9 &&
                    x - a <= q.x1 + 1e-9,
                "trial %d", trial);
      cr_assert_float_eq(t, fmax(fa, fb), 1e-9, "trial %d x %g", trial, x);
      /* and no split is better (brute force over a fine grid) */
      double lo = fmax(p.x0, x - q.x1), up = fmin(p.x1, x - q.x0), best = INFINITY;
      for (int j = 0; j <= 1000; j++) { /* (a grid of 1000: the bound below scales with it) */
        double aa = lo + (up - lo) * j / 1000;
        double v = fmax(p.t0 + (p.t1 - p.t0) * (aa - p.x0) / (p.x1 - p.x0),
                        q.t0 + (q.t1 - q.t0) * (x - aa - q.x0) / (q.x1 - q.x0));
        best = fmin(best, v);
      }
      double res = (sp + sq) * (up - lo) / 1000 + 1e-9;
      cr_assert(t <= best + 1e-9 && t >= best - res,
                "trial %d x %g: segment adding %.12g, brute force %.12g", trial, x, t, best);
    }
    lbs_graph_free(&out);
  }
}

Test(racecar, envelope_keeps_the_lowest_graph_and_its_source) {
  lbs_ipg a = {2, (double[]){0, 10}, (double[]){1, 11}},
          b = {2, (double[]){0, 10}, (double[]){5, 6}};
  lbs_graph g[2] = {{0}, {0}}, env = {0};
  cr_assert_eq(lbs_graph_from_ipg(&a, 10, 0, &g[0]), LBS_OK);
  cr_assert_eq(lbs_graph_from_ipg(&b, 10, 1, &g[1]), LBS_OK);
  cr_assert_eq(lbs_graph_envelope(g, 2, &env), LBS_OK);
  /* 1 + x and 5 + x/10 cross at x = 40/9 */
  cr_assert_eq(env.n, 2);
  cr_assert_eq(env.p[0].src, 0);
  cr_assert_eq(env.p[1].src, 1);
  cr_assert_float_eq(env.p[0].x1, 40.0 / 9, 1e-12);
  cr_assert_float_eq(lbs_graph_eval(&env, 2), 3, 1e-12);
  cr_assert_float_eq(lbs_graph_eval(&env, 10), 6, 1e-12);
  for (int i = 0; i < 2; i++) lbs_graph_free(&g[i]);
  lbs_graph_free(&env);
}

Test(racecar, restricted_parallelization_graph_matches_brute_force) {
  uint64_t s = 11;
  for (int trial = 0; trial < 40; trial++) {
    double hi = 1000;
    lbs_ipg ia = random_ipg(&s, 3 + trial % 6, hi, 1e-3),
            ib = random_ipg(&s, 2 + trial % 7, hi, 2e-3);
    lbs_graph fa = {0}, fb = {0}, rpg = {0};
    cr_assert_eq(lbs_graph_from_ipg(&ia, hi, 0, &fa), LBS_OK);
    cr_assert_eq(lbs_graph_from_ipg(&ib, hi, 1, &fb), LBS_OK);
    cr_assert_eq(lbs_graph_rpg(&fa, &fb, hi, 0, &rpg), LBS_OK);
    double res = (max_slope(&fa) + max_slope(&fb)) * hi / 4000 + 1e-12;
    for (int i = 0; i <= 200; i++) {
      double x = hi * i / 200, t = lbs_graph_eval(&rpg, x), bf = brute_pair(&fa, &fb, hi, x, 4000);
      cr_assert(t <= bf + 1e-12 && t >= bf - res, "trial %d x %g: RPG %.9g, brute force %.9g",
                trial, x, t, bf);
      const lbs_piece *c = lbs_graph_find(&rpg, x);
      double a = lbs_piece_a(c, x), b = fmax(0, x - a); /* rounding may take b a hair below 0 */
      cr_assert_float_eq(fmax(lbs_graph_eval(&fa, a), lbs_graph_eval(&fb, b)), t, 1e-9 * t + 1e-15,
                         "trial %d x %g a %g: %.12g %.12g, piece [%g %g] a %g %g t %g %g", trial, x,
                         a, lbs_graph_eval(&fa, a), lbs_graph_eval(&fb, b), c->x0, c->x1, c->a0,
                         c->a1, c->t0, c->t1);
    }
    lbs_ipg_free(&ia);
    lbs_ipg_free(&ib);
    lbs_graph_free(&fa);
    lbs_graph_free(&fb);
    lbs_graph_free(&rpg);
  }
}

Test(racecar, two_equal_threads_split_in_halves_once_the_template_pays) {
  lbs_plan p = {0};
  snprintf(p.kernel, sizeof p.kernel, "k");
  snprintf(p.tmpl, sizeof p.tmpl, "data");
  p.threads = 2, p.hi = 1e6, p.ovh_s = 5e-4;
  add_impl(&p, "k.cpu", 1, 0, 2, (double[]){0, 1e6}, (double[]){1e-3, 1e-3 + 1});
  cr_assert_eq(lbs_plan_build(&p), LBS_OK, "%s", lbs_errmsg());
  int ws2 = lbs_plan_ws(&p, 2, 0);
  /* one thread: t = 1e-3 + 1e-6 x; the template: 5e-4 + 1e-3 + 1e-6 x / 2, better past x = 1000 */
  const lbs_piece *c = lbs_graph_find(&p.fpg[ws2], 500);
  cr_assert_eq(c->src, 0);
  c = lbs_graph_find(&p.fpg[ws2], 2000);
  cr_assert_eq(c->src, LBS_PLAN_TMPL(ws2));
  cr_assert_float_eq(c->x0, 1000, 1e-6);
  for (double x = 2000; x <= 1e6; x *= 3) {
    cr_assert_float_eq(lbs_plan_time(&p, ws2, x), 1.5e-3 + 1e-6 * x / 2, 1e-12);
    const lbs_piece *q = lbs_graph_find(&p.pg[ws2], x);
    cr_assert_float_eq(lbs_piece_a(q, x), x / 2, 1e-6 * x);
  }
  cr_assert_geq(p.plan_s, 0);
  lbs_plan_free(&p);
}

/* Brute force over every split tree: best[ws][i] at x = i h. */
static void brute_plan(const lbs_plan *p, int n, double *best) {
  double h = p->hi / n;
  for (int ws = 0; ws < p->nws; ws++) {
    int t = lbs_plan_ws_threads(p, ws);
    unsigned mask = lbs_plan_ws_devices(p, ws);
    for (int i = 0; i <= n; i++) {
      double b = INFINITY;
      for (int k = 0; k < p->nimpl; k++)
        if (p->impl[k].threads <= t && !(p->impl[k].devmask & ~mask))
          b = fmin(b, lbs_ipg_eval(&p->impl[k].ipg, i * h));
      for (int s = 0; s < p->nsplit; s++) { /* splits of ws and of its subsets */
        int wa = p->split[s].ws_a, wb = p->split[s].ws_b;
        int tt = lbs_plan_ws_threads(p, wa) + lbs_plan_ws_threads(p, wb);
        unsigned mm = lbs_plan_ws_devices(p, wa) | lbs_plan_ws_devices(p, wb);
        if (tt > t || (mm & ~mask)) continue;
        for (int j = 0; j <= i; j++)
          b = fmin(b, p->ovh_s + p->ovh_per_work_s * i * h +
                          fmax(best[wa * (n + 1) + j], best[wb * (n + 1) + i - j]));
      }
      best[ws * (n + 1) + i] = b;
    }
  }
}

Test(racecar, plans_on_two_threads_and_a_device_match_brute_force) {
  uint64_t s = 5;
  for (int trial = 0; trial < 6; trial++) {
    lbs_plan p = {0};
    snprintf(p.kernel, sizeof p.kernel, "k");
    snprintf(p.tmpl, sizeof p.tmpl, "data");
    p.threads = 3, p.ndev = 1, p.hi = 1e5, p.ovh_s = 1e-4 * urand(&s),
    p.ovh_per_work_s = 1e-9 * urand(&s);
    snprintf(p.devices[0], sizeof p.devices[0], "opencl: test");
    double w[5] = {0, 1e3, 1e4, 5e4, 1e5};
    double cpu[5] = {1e-5, 1e-3, 1e-2, 5e-2, 1e-1}, thr[5], ocl[5];
    for (int i = 0; i < 5; i++) {
      cpu[i] *= 0.8 + 0.4 * urand(&s);
      thr[i] =
          2e-4 + cpu[i] * (0.5 + 0.3 * urand(&s)); /* two threads: a start-up, then near half */
      ocl[i] = 3e-3 + cpu[i] * (0.1 + 0.5 * urand(&s)); /* a device: a launch, then faster */
    }
    add_impl(&p, "k.cpu", 1, 0, 5, w, cpu);
    add_impl(&p, "k.threads", 2, 0, 5, w, thr);
    add_impl(&p, "k.opencl", 1, 1, 5, w, ocl);
    cr_assert_eq(lbs_plan_build(&p), LBS_OK, "%s", lbs_errmsg());
    cr_assert_eq(p.nws, 6);
    int n = 400;
    double *best = malloc((size_t)p.nws * (size_t)(n + 1) * sizeof *best), h = p.hi / n;
    brute_plan(&p, n, best);
    double slope = 0;
    for (int i = 0; i < 4; i++) slope = fmax(slope, (cpu[i + 1] - cpu[i]) / (w[i + 1] - w[i]));
    for (int ws = 0; ws < p.nws; ws++)
      for (int i = 0; i <= n; i += 7) {
        double t = lbs_plan_time(&p, ws, i * h), bf = best[ws * (n + 1) + i];
        /* the brute force's grid loses at most a step per split level */
        cr_assert(t <= bf + 1e-12 && t >= bf - 3 * slope * h - 1e-12,
                  "trial %d ws %d x %g: plan %.9g, brute force %.9g", trial, ws, i * h, t, bf);
      }
    free(best);
    lbs_plan_free(&p);
  }
}

Test(racecar, a_node_smaller_than_an_implementation_is_refused) {
  lbs_plan p = {0};
  snprintf(p.kernel, sizeof p.kernel, "k");
  p.threads = 1, p.hi = 10;
  add_impl(&p, "k.threads", 2, 0, 2, (double[]){0, 10}, (double[]){1, 2});
  cr_assert_eq(lbs_plan_build(&p), LBS_RANGE);
  cr_assert(strstr(lbs_errmsg(), "needs 2 threads"), "%s", lbs_errmsg());
  lbs_plan_free(&p);
}

Test(racecar, a_partial_ipg_whose_last_segment_falls_never_reaches_negative_times) {
  /* a noisy partial IPG: its last segment falls; past its end it grows with its time per unit */
  lbs_ipg g = {3, (double[]){0, 1000, 1001}, (double[]){1e-5, 3e-3, 2e-3}};
  lbs_graph out = {0};
  cr_assert_eq(lbs_graph_from_ipg(&g, 1e6, 0, &out), LBS_OK);
  cr_assert_float_eq(lbs_graph_eval(&out, 1001), 2e-3, 1e-15);
  cr_assert_float_eq(lbs_graph_eval(&out, 1e6), 2e-3 + 2e-3 / 1001 * (1e6 - 1001), 1e-12);
  for (double x = 0; x <= 1e6; x += 997) cr_assert_gt(lbs_graph_eval(&out, x), 0, "x %g", x);
  lbs_graph_free(&out);
  /* a rising last segment goes on */
  lbs_ipg r = {2, (double[]){0, 10}, (double[]){1, 2}};
  cr_assert_eq(lbs_graph_from_ipg(&r, 100, 0, &out), LBS_OK);
  cr_assert_float_eq(lbs_graph_eval(&out, 100), 11, 1e-12);
  lbs_graph_free(&out);
}
