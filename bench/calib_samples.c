/* calib_samples.c - the IA heuristic against dense sampling, on real implementations.
 *
 * usage: bench_calib_samples [--accuracy PCT] [--min-abs S] [-n 250] IMPL...
 *
 * For each implementation (e.g. dot.cpu): builds its IPG with the IA heuristic (N_ia samples,
 * each the median of 3 calls as `lbsim calibrate run` takes them), measures 250 invocations
 * under the usage assumptions (as `calibrate verify`: CreateParams at log-uniform metrics),
 * and their mean error with the floor as denominator. Then the baselines on the same
 * invocations: k samples at evenly spaced metrics over the range (uniform), and k at
 * log-spaced metrics, joined by straight lines, for k = N_ia/4 .. 64 N_ia (doubling), until the
 * error is at or below the IA heuristic's. Prints the smallest such k and k / N_ia for each
 * baseline ("> 64" when none reached it), and the wall time of the IA run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_calib.h"

typedef struct {
  const lbs_adapter *a;
  const lbs_impl_ops *impl;
  void *ctx;
  uint64_t k;
} sampler;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A sample as `lbsim calibrate run` takes it: the median of 3 calls on fresh parameters. */
static lbs_err sample(void *arg, double w, double *t) {
  sampler *s = arg;
  double r[3];
  for (int q = 0; q < 3; q++) {
    lbs_err e =
        lbs_calib_measure(s->a, s->impl, s->ctx, w, 1 + s->k++, &lbs_clock_monotonic, &r[q]);
    if (e) return e;
  }
  qsort(r, 3, sizeof *r, cmp_double);
  *t = r[1];
  return LBS_OK;
}

static double err_of(const lbs_ipg *g, const lbs_sample *v, int n, double floor_s) {
  double e = 0;
  int used = 0;
  for (int i = 0; i < n; i++) {
    if (isnan(v[i].t)) continue;
    used++;
    double m = v[i].t, d = fabs(m - lbs_ipg_eval(g, v[i].w));
    e += d / (m > floor_s ? m : floor_s);
  }
  return used ? e / used : NAN;
}

/* k samples at metrics spread over [lo, hi] (log-spaced when logs), joined. */
static int baseline(sampler *s, double lo, double hi, int k, int logs, lbs_ipg *g) {
  g->w = malloc((size_t)k * sizeof *g->w);
  g->t = malloc((size_t)k * sizeof *g->t);
  g->n = 0;
  double l0 = lo > 1 ? lo : 1;
  for (int i = 0; i < k; i++) {
    double u = k > 1 ? (double)i / (k - 1) : 0;
    double w =
        s->a->round_metric(logs ? exp(log(l0) + (log(hi) - log(l0)) * u) : lo + (hi - lo) * u);
    if (w > hi) w = hi;
    if (g->n && w <= g->w[g->n - 1]) continue;
    double t;
    if (sample(s, w, &t)) return -1;
    g->w[g->n] = w, g->t[g->n++] = t;
  }
  return 0;
}

/* The options before the implementations into *pct, *floor_s and *nverify. Returns the index
 * of the first implementation, or -1 after the usage message. */
static int parse_options(int argc, char **argv, double *pct, double *floor_s, int *nverify) {
  int first = 1;
  while (first < argc && argv[first][0] == '-') {
    if (!strcmp(argv[first], "--accuracy") && first + 1 < argc)
      *pct = atof(argv[++first]);
    else if (!strcmp(argv[first], "--min-abs") && first + 1 < argc)
      *floor_s = atof(argv[++first]);
    else if (!strcmp(argv[first], "-n") && first + 1 < argc)
      *nverify = atoi(argv[++first]);
    else {
      fprintf(stderr,
              "usage: bench_calib_samples [--accuracy PCT] [--min-abs S] [-n 250] IMPL...\n");
      return -1;
    }
    first++;
  }
  return first;
}

/* The verification set, as `lbsim calibrate verify` (usage invocations): CreateParams at
 * metrics log-uniform over the range with fresh data, each the median of 3 calls; a failed
 * sample is NAN. The caller frees the array. */
static lbs_sample *verify_set(const sampler *s, int nverify) {
  lbs_sample *v = malloc((size_t)nverify * sizeof *v);
  double l0 = s->a->lo > 1 ? s->a->lo : 1;
  for (int i = 0; i < nverify; i++) {
    double w = s->a->round_metric(
        exp(log(l0) + (log(s->a->hi) - log(l0)) * lbs_rng_unit(1000003, 77, (uint64_t)i)));
    if (w < s->a->lo) w = s->a->next_metric(w);
    if (w > s->a->hi) w = s->a->round_metric(s->a->hi);
    v[i].w = w;
    sampler sv = *s;
    sv.k = 1000003 + 3 * (uint64_t)i;
    if (sample(&sv, w, &v[i].t)) v[i].t = NAN;
  }
  return v;
}

/* One baseline (log-spaced when logs, else uniform) against the IA heuristic's error ia_err
 * with nsamples samples: the smallest k, doubling from nsamples/4, whose error on the
 * verification set v is at or below it, written into res ("> ..." when none is). */
static void smallest_k(sampler *s, int logs, int nsamples, const lbs_sample *v, int nverify,
                       double floor_s, double ia_err, char *res, size_t res_len) {
  snprintf(res, res_len, "> %d, > 64", 64 * nsamples);
  for (int k = nsamples / 4 > 2 ? nsamples / 4 : 2; k <= 64 * nsamples; k *= 2) {
    lbs_ipg g;
    if (baseline(s, s->a->lo, s->a->hi, k, logs, &g)) break;
    double be = err_of(&g, v, nverify, floor_s);
    lbs_ipg_free(&g);
    if (be <= ia_err) {
      snprintf(res, res_len, "%d, %.1f (err %.2f%%)", k, (double)k / nsamples, 100 * be);
      break;
    }
  }
}

/* One implementation's line of the table: the IA run, its error on the verification set, the
 * baselines. An implementation that does not open or whose IA run fails is skipped with a
 * message. Returns 1 when name is no implementation (after its message), else 0. */
static int bench_impl(const char *name, double pct, double floor_s, int nverify) {
  sampler s = {0};
  if (lbs_impl_find(name, &s.impl)) {
    fprintf(stderr, "bench_calib_samples: %s\n", lbs_errmsg());
    return 1;
  }
  s.a = lbs_adapter_find(s.impl->kernel);
  char dev[160];
  lbs_impl_args args = {0, 0};
  if (s.impl->open(&s.ctx, &args, dev, sizeof dev)) {
    fprintf(stderr, "bench_calib_samples: %s: %s\n", name, lbs_errmsg());
    return 0;
  }
  lbs_ia_opts o;
  lbs_ia_defaults(&o, pct, floor_s, 0);
  lbs_ia_space sp = {s.a->lo, s.a->hi, s.a->round_metric, s.a->next_metric};
  lbs_ia_result r;
  double t0 = lbs_clock_monotonic.now(NULL);
  lbs_err e = lbs_ia_run(&o, &sp, sample, &s, NULL, NULL, &r);
  double ia_s = lbs_clock_monotonic.now(NULL) - t0;
  if (e) {
    fprintf(stderr, "bench_calib_samples: %s: %s\n", name, lbs_errmsg());
    lbs_ia_result_free(&r);
    s.impl->close(s.ctx);
    return 0;
  }
  lbs_sample *v = verify_set(&s, nverify);
  double ia_err = err_of(&r.ipg, v, nverify, floor_s);
  char res[2][64];
  for (int logs = 0; logs < 2; logs++)
    smallest_k(&s, logs, r.nsamples, v, nverify, floor_s, ia_err, res[logs], sizeof res[logs]);
  printf("%-14s %6d %8.1f %9.2f%% | %-22s | %-22s\n", name, r.nsamples, ia_s, 100 * ia_err, res[0],
         res[1]);
  fflush(stdout);
  free(v);
  lbs_ia_result_free(&r);
  s.impl->close(s.ctx);
  return 0;
}

/* The options, the table's head, then a line per implementation (see the head of this file). */
int main(int argc, char **argv) {
  double pct = 5, floor_s = 5e-5;
  int nverify = 250;
  int first = parse_options(argc, argv, &pct, &floor_s, &nverify);
  if (first < 0) return 2;
  printf("%-14s %6s %8s %10s | %-22s | %-22s\n", "implementation", "N_ia", "IA s", "IA err",
         "uniform: k, k/N_ia", "log-spaced: k, k/N_ia");
  for (int a = first; a < argc; a++)
    if (bench_impl(argv[a], pct, floor_s, nverify)) return 1;
  return 0;
}
