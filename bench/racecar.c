/* racecar.c - RACECAR's planning (seed 004, 5.3) against its baseline, a brute-force search
 * over every split tree on a grid of works, side by side on the same synthetic IPGs: planning
 * time, and how far each answer is from the other.
 *
 *   bench_racecar [grid points of the brute force, default 1000]
 *
 * The IPGs are random piecewise linear curves (k points, any shape, seeded): one-thread,
 * two-thread and device implementations, as a calibration of a node gives. The brute force's
 * answer at x is the best over splits at grid points, so it can only be worse than the exact
 * optimum by the grid's resolution; RACECAR's should be at most that much better, never worse. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lbs_plan.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double urand(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) / 9007199254740992.0;
}

static void add_impl(lbs_plan *p, const char *name, int threads, unsigned mask, int k, double start,
                     double per, uint64_t *s) {
  p->impl = realloc(p->impl, (size_t)(p->nimpl + 1) * sizeof *p->impl);
  lbs_plan_impl *m = &p->impl[p->nimpl++];
  memset(m, 0, sizeof *m);
  snprintf(m->impl, sizeof m->impl, "%s", name);
  m->threads = threads, m->devmask = mask;
  m->ipg = (lbs_ipg){k, malloc((size_t)k * sizeof(double)), malloc((size_t)k * sizeof(double))};
  for (int i = 0; i < k; i++) { /* rising on the whole, with bumps of up to 20% (caches, shapes) */
    m->ipg.w[i] = p->hi * i / (k - 1);
    m->ipg.t[i] = (start + per * m->ipg.w[i]) * (0.9 + 0.2 * urand(s));
  }
}

/* best[ws][i]: the best over every split tree at x = i hi / n (as tests/calibrate/test_racecar.c).
 */
static void brute(const lbs_plan *p, int n, double *best) {
  double h = p->hi / n;
  for (int ws = 0; ws < p->nws; ws++) {
    int t = lbs_plan_ws_threads(p, ws);
    unsigned mask = lbs_plan_ws_devices(p, ws);
    for (int i = 0; i <= n; i++) {
      double b = INFINITY;
      for (int k = 0; k < p->nimpl; k++)
        if (p->impl[k].threads <= t && !(p->impl[k].devmask & ~mask))
          b = fmin(b, lbs_ipg_eval(&p->impl[k].ipg, i * h));
      for (int s = 0; s < p->nsplit; s++) {
        int wa = p->split[s].ws_a, wb = p->split[s].ws_b;
        int tt = lbs_plan_ws_threads(p, wa) + lbs_plan_ws_threads(p, wb);
        unsigned mm = lbs_plan_ws_devices(p, wa) | lbs_plan_ws_devices(p, wb);
        if (tt > t || (mm & ~mask)) continue;
        for (int j = 0; j <= i; j++)
          b = fmin(b, p->ovh_s + fmax(best[wa * (n + 1) + j], best[wb * (n + 1) + i - j]));
      }
      best[ws * (n + 1) + i] = b;
    }
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  if (n < 10 || n > 100000) {
    fprintf(stderr, "usage: bench_racecar [grid points, 10..100000]\n");
    return 2;
  }
  printf("%7s %5s %6s %10s %8s %12s %12s %9s %12s %12s\n", "threads", "devs", "points",
         "planning_s", "pieces", "brute_s", "brute/plan", "splits", "plan-brute", "worse_by");
  uint64_t s = 42;
  int configs[][3] = {{2, 0, 8},  {2, 1, 8},   {2, 1, 32}, {2, 1, 128},
                      {4, 1, 32}, {4, 1, 128}, {8, 1, 32}};
  for (size_t c = 0; c < sizeof configs / sizeof *configs; c++) {
    lbs_plan p;
    memset(&p, 0, sizeof p);
    snprintf(p.kernel, sizeof p.kernel, "synthetic");
    snprintf(p.tmpl, sizeof p.tmpl, "data");
    p.threads = configs[c][0], p.ndev = configs[c][1], p.hi = 1e6, p.ovh_s = 2e-5;
    if (p.ndev) snprintf(p.devices[0], sizeof p.devices[0], "opencl: synthetic");
    int k = configs[c][2];
    add_impl(&p, "k.cpu", 1, 0, k, 1e-5, 1e-8, &s);
    add_impl(&p, "k.threads", 2, 0, k, 5e-5, 0.55e-8, &s);
    if (p.ndev) add_impl(&p, "k.opencl", 1, 1, k, 1e-3, 0.2e-8, &s);
    double t0 = now_s();
    if (lbs_plan_build(&p)) {
      fprintf(stderr, "bench_racecar: %s\n", lbs_errmsg());
      return 1;
    }
    double plan_s = now_s() - t0;
    int pieces = 0;
    for (int ws = 0; ws < p.nws; ws++) pieces += p.fpg[ws].n + p.pg[ws].n;
    double *best = malloc((size_t)p.nws * (size_t)(n + 1) * sizeof *best);
    t0 = now_s();
    brute(&p, n, best);
    double brute_s = now_s() - t0;
    /* on the whole node: RACECAR - brute force, relative; the most RACECAR is worse by */
    double lo = INFINITY, worse = 0;
    int full = p.nws - 1;
    for (int i = 0; i <= n; i++) {
      double x = p.hi * i / n, a = lbs_plan_time(&p, full, x), b = best[full * (n + 1) + i];
      lo = fmin(lo, (a - b) / b);
      worse = fmax(worse, (a - b) / b);
    }
    printf("%7d %5d %6d %10.4g %8d %12.4g %12.1f %9d %11.3f%% %11.2g%%\n", p.threads, p.ndev, k,
           plan_s, pieces, brute_s, brute_s / plan_s, p.nsplit, 100 * lo, 100 * worse);
    free(best);
    lbs_plan_free(&p);
  }
  return 0;
}
