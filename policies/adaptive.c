/* adaptive.c - adaptive:T:MIN:MAX, the seed's heuristic (seed 002, section 4.2, Figure 9).
 *
 * The seed's pseudo code is garbled: it computes (max - avg) / avg although the text defines
 * imbalance as (Lmax - Lavg) / Lmax, and the repartition branch lost its braces. Its stated
 * intent, which this file implements: look ahead in time from the last repartition with an
 * interval; while the imbalance at the probed step stays under T, double the interval (up
 * to MAX) and march on; when it exceeds T, halve the interval and step back; when the
 * interval is already MIN and the imbalance still exceeds T, repartition at that step.
 * Imbalance is (Lmax - Lavg) / Lmax of the probed step under the current assignment, seen
 * through the simulator's step navigation (forwards and backwards).
 *
 * Reading details: the first probe is MIN steps after the last repartition; a probe never
 * goes back to or before the last step known to be balanced, nor past the first step known
 * to be unbalanced, so the search always ends; past the end of the run nothing is planned.
 * Every probe is recorded as (step, interval): the trajectory of Figure 9. */
#include <stdlib.h>

#include "args.h"
#include "lbs_policy.h"

typedef struct {
  double T;
  int64_t min, max;
  int64_t next; /* planned repartition step, -1: none, -2: plan at the next call */
  int64_t *ps;  /* probes: step */
  double *pv;   /* probes: interval */
  int np, cap;
  int64_t *load; /* P scratch */
  int P;
} adaptive;

static lbs_err init(void **state, const char *args) {
  double v[3];
  if (policy_numbers(args, v, 3) != 3 || !(v[0] > 0 && v[0] < 1) || !is_whole(v[1]) ||
      !is_whole(v[2]) || v[1] < 1 || v[2] < v[1] || v[2] > 1e9)
    return lbs_fail(LBS_INVAL, "needs 0 < T < 1 and whole steps 1 <= MIN <= MAX (got '%s')",
                    args ? args : "");
  adaptive *a = calloc(1, sizeof *a);
  if (!a) return lbs_fail(LBS_NOMEM, "policy");
  a->T = v[0];
  a->min = (int64_t)v[1];
  a->max = (int64_t)v[2];
  a->next = -2;
  *state = a;
  return LBS_OK;
}

static void fini(void *state) {
  adaptive *a = state;
  if (!a) return;
  free(a->ps);
  free(a->pv);
  free(a->load);
  free(a);
}

static lbs_err record(adaptive *a, int64_t step, int64_t interval) {
  if (a->np == a->cap) {
    a->cap = a->cap ? 2 * a->cap : 64;
    int64_t *ps = realloc(a->ps, (size_t)a->cap * sizeof *ps);
    if (ps) a->ps = ps;
    double *pv = realloc(a->pv, (size_t)a->cap * sizeof *pv);
    if (pv) a->pv = pv;
    if (!ps || !pv) return lbs_fail(LBS_NOMEM, "policy trajectory");
  }
  a->ps[a->np] = step;
  a->pv[a->np++] = (double)interval;
  return LBS_OK;
}

/* Plans the next repartition after the one at step r (0: the start). */
static lbs_err plan(adaptive *a, const lbs_loadview *v, int64_t r) {
  if (!v->eval_step) return lbs_fail(LBS_INVAL, "adaptive needs the simulator's step navigation");
  if (a->P != v->procs) {
    free(a->load);
    a->P = v->procs;
    if (!(a->load = malloc((size_t)a->P * sizeof *a->load))) return lbs_fail(LBS_NOMEM, "policy");
  }
  int64_t I = a->min, s = r + I, good = r, bad = -1;
  for (;;) {
    if (bad < 0 && s >= v->steps) {
      a->next = -1;
      return LBS_OK;
    }
    if (bad >= 0 && s > bad) s = bad;
    double imb;
    lbs_err e = v->eval_step(v->nav, s, a->load, &imb);
    if (!e) e = record(a, s, I);
    if (e) return e;
    if (imb < a->T) { /* balanced: double the rate and march */
      good = s;
      if (I <= a->max / 2) I *= 2;
      s += I;
    } else if (I > a->min) { /* unbalanced: halve and step back */
      bad = s;
      I /= 2;
      if (I < a->min) I = a->min;
      s -= I;
      if (s <= good) s = good + 1;
    } else { /* unbalanced at the smallest interval: repartition here */
      a->next = s;
      return LBS_OK;
    }
  }
}

static lbs_err decide(void *state, const lbs_loadview *v, int *rep) {
  adaptive *a = state;
  *rep = 0;
  /* a repartition this step that we did not plan (a processor failed: sim/avail.c) */
  int forced = v->step > 0 && v->since == 0 && a->next != v->step;
  if (a->next == -2 || forced ||
      (a->next >= 0 && a->next < v->step)) { /* start, or after a repartition */
    lbs_err e = plan(a, v, a->next == -2 || forced ? v->step : a->next);
    if (e) return e;
  }
  *rep = a->next == v->step;
  return LBS_OK;
}

static int series(const void *state, const int64_t **steps, const double **values) {
  const adaptive *a = state;
  *steps = a->ps;
  *values = a->pv;
  return a->np;
}

const lbs_policy_ops lbs__policy_adaptive = {.abi = LBS_POLICY_ABI,
                                             .name = "adaptive",
                                             .usage = "adaptive:T:MIN:MAX",
                                             .init = init,
                                             .decide = decide,
                                             .fini = fini,
                                             .series = series,
                                             .example = "adaptive:0.15:5:20",
                                             .flags =
                                                 LBS_POLICY_NO_STEP_TIMES | LBS_POLICY_NAVIGATES};
