/* optimal.c - optimal[:MAXCAND]: the offline schedule that minimises the total simulated
 * time for the trace, grid, partitioner and cost model. The simulator computes it (see
 * sim/optimal.c: dynamic programming over the repartition steps, with the partition of
 * every candidate step computed once and cached); this policy asks for it once and follows
 * it. MAXCAND bounds the candidate steps (the work grows as MAXCAND^2 x elements): a run
 * with more candidates than that stops with an error instead of running for hours.
 * Default 1000. */
#include <stdlib.h>

#include "args.h"
#include "lbs_policy.h"

typedef struct {
  int64_t maxcand;
  const int64_t *plan;
  int n, at;
  int planned;
} optimal;

static lbs_err init(void **state, const char *args) {
  double v[1] = {1000};
  if (policy_numbers(args, v, 1) < 0 || !is_whole(v[0]) || v[0] < 1 || v[0] > 1e7)
    return lbs_fail(LBS_INVAL, "MAXCAND must be a whole number of candidate steps >= 1 (got '%s')",
                    args ? args : "");
  optimal *o = calloc(1, sizeof *o);
  if (!o) return lbs_fail(LBS_NOMEM, "policy");
  o->maxcand = (int64_t)v[0];
  *state = o;
  return LBS_OK;
}

static lbs_err decide(void *state, const lbs_loadview *v, int *rep) {
  optimal *o = state;
  *rep = 0;
  if (!o->planned) {
    if (!v->optimize) return lbs_fail(LBS_INVAL, "optimal needs the simulator's optimiser");
    lbs_err e = v->optimize(v->nav, o->maxcand, &o->plan, &o->n);
    if (e) return e;
    o->planned = 1;
  }
  while (o->at < o->n && o->plan[o->at] < v->step) o->at++;
  *rep = o->at < o->n && o->plan[o->at] == v->step;
  return LBS_OK;
}

const lbs_policy_ops lbs__policy_optimal = {.abi = LBS_POLICY_ABI,
                                            .name = "optimal",
                                            .usage = "optimal[:MAXCAND]",
                                            .init = init,
                                            .decide = decide,
                                            .fini = free,
                                            .example = "optimal:100",
                                            .flags = LBS_POLICY_NO_STEP_TIMES |
                                                     LBS_POLICY_PLANS_AHEAD | LBS_POLICY_OPTIMUM};
