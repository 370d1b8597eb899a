/* plan_run.c - a RACECAR plan run for real at a work and compared with its prediction and with
 * each of its implementations alone (lbs_plan.h): what `lbsim calibrate run-plan` measures. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbs_calib_run.h"
#include "lbs_plan.h"

lbs_err lbs_plan_runnable(const lbs_plan *p, const lbs_adapter **a) {
  *a = lbs_adapter_find(p->kernel);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (!*a)
    return lbs_fail(LBS_NOTFOUND, "plan %lld: no kernel '%s' in this lbsim", (long long)p->id,
                    p->kernel);
  if (cpus > 0 && p->threads > cpus)
    return lbs_fail(LBS_RANGE,
                    "plan %lld is for a node of %d threads; this machine has %ld online CPU%s "
                    "(make a plan for it: "
                    "'lbsim calibrate plan --node threads=%ld')",
                    (long long)p->id, p->threads, cpus, cpus == 1 ? "" : "s", cpus);
  return LBS_OK;
}

int lbs_plan_works(const lbs_plan *p, const lbs_adapter *a, double *w) {
  for (int i = 0; i < 6; i++) w[i] = a->round_metric(p->hi * pow(10, -3.0 + 3.0 * i / 5));
  return 6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of r runs of exec (or of implementation ops/ctx when exec is NULL) at work w, each on
 * fresh parameters, after `warm` untimed runs. The first run's output is checked after the last
 * run, so that no host check (a matmul's takes 10^5 times the GPU's call) comes between the
 * warm-up and the timed runs. The warm-up is there because the IPGs are measured warm (the
 * calibration's samples come back to back), while a GPU left idle, as it is through the other
 * implementations' runs, starts its first calls slowly. */
static lbs_err time_runs(const lbs_adapter *a, lbs_exec *ex, const lbs_impl_ops *ops, void *ctx,
                         double w, int r, int warm, double *median_s) {
  double s[LBS_CALIB_MAX_REPEAT];
  char why[256] = ""; /* a wrong output */
  void *first = NULL; /* the first run's parameters, its output in them */
  lbs_err e = LBS_OK;
  for (int i = -warm; !e && i < r; i++) {
    void *params = NULL;
    if ((e = a->create_params(w, (uint64_t)(77 + i), &params))) break;
    double t0 = lbs_clock_monotonic.now(NULL);
    e = ex ? lbs_exec_run(ex, params) : ops->execute(ctx, params);
    if (i >= 0) s[i] = lbs_clock_monotonic.now(NULL) - t0;
    if (!first)
      first = params;
    else
      a->delete_params(params);
  }
  if (!e && first && a->check && a->check(first, why, sizeof why)) e = LBS_RANGE;
  if (first) a->delete_params(first);
  if (e == LBS_RANGE && why[0]) return lbs_fail(e, "wrong output at work %g: %s", w, why);
  if (e) return e;
  qsort(s, (size_t)r, sizeof *s, cmp_double);
  *median_s = r % 2 ? s[r / 2] : (s[r / 2 - 1] + s[r / 2]) / 2;
  return LBS_OK;
}

/* Each implementation alone, on its own resources: the fastest, and the fastest on one thread
 * of the CPU. An implementation that cannot open here is left out (the plan's run said so). */
static lbs_err singles(const lbs_plan *p, const lbs_adapter *a, double w, int repeat, int warm,
                       lbs_plan_run *out) {
  for (int i = 0; i < p->nimpl; i++) {
    const lbs_impl_ops *ops = NULL;
    void *ctx = NULL;
    int th, isdev;
    double s;
    lbs_plan_needs(p->impl[i].impl, p->impl[i].device, &th, &isdev);
    if (lbs_plan_impl_open(&p->impl[i], &ops, &ctx)) continue;
    lbs_err e = time_runs(a, NULL, ops, ctx, w, repeat, warm, &s);
    ops->close(ctx);
    if (e) return e;
    if (s < out->best_s) out->best_s = s, out->best = i;
    if (th == 1 && !isdev && s < out->one_s) out->one_s = s;
  }
  return LBS_OK;
}

lbs_err lbs_plan_measure(const lbs_plan *p, const lbs_adapter *a, double w, int repeat, int warm,
                         lbs_plan_run *out) {
  if (repeat < 1 || repeat > LBS_CALIB_MAX_REPEAT || warm < 0 || warm > LBS_CALIB_MAX_REPEAT)
    return lbs_fail(LBS_RANGE, "runs %d and warm-up runs %d: expected 1..%d and 0..%d", repeat,
                    warm, LBS_CALIB_MAX_REPEAT, LBS_CALIB_MAX_REPEAT);
  *out = (lbs_plan_run){.work = w, .best = -1, .best_s = INFINITY, .one_s = INFINITY};
  lbs_exec *ex = NULL;
  int full = lbs_plan_ws(p, p->threads, (1u << p->ndev) - 1);
  lbs_err e = lbs_exec_create(p, full, w, &ex, &out->predicted_s);
  if (!e) e = time_runs(a, ex, NULL, NULL, w, repeat, warm, &out->measured_s);
  lbs_exec_describe(ex, out->calls, sizeof out->calls);
  lbs_exec_destroy(&ex);
  if (!e) e = singles(p, a, w, repeat, warm, out);
  /* the one-thread FPG against the one thread measured now: how far the IPGs themselves are off
   * today (the machine's drift), next to the plan's error */
  out->one_predicted_s = lbs_plan_time(p, lbs_plan_ws(p, 1, 0), w);
  return e;
}
