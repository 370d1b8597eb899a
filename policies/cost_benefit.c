/* cost_benefit.c - cost-benefit[:H]: repartition when the time a repartition is predicted to
 * save over the next H steps exceeds what it costs. A perfect repartition brings every
 * processor to the average, saving Lmax - Lavg per step; with the last step's excess as the
 * prediction, repartition when H x (Lmax - Lavg) > C, C the last repartition's partition +
 * migration time (before the first, the estimate). H = 20 by default. Online. */
#include <stdlib.h>

#include "args.h"
#include "lbs_policy.h"

static lbs_err init(void **state, const char *args) {
  double v[1] = {20};
  int n = policy_numbers(args, v, 1);
  if (n < 0 || !is_whole(v[0]) || v[0] < 1 || v[0] > 1e9)
    return lbs_fail(LBS_INVAL, "H must be a whole number of steps >= 1 (got '%s')",
                    args ? args : "");
  int64_t *h = malloc(sizeof *h);
  if (!h) return lbs_fail(LBS_NOMEM, "policy");
  *h = (int64_t)v[0];
  *state = h;
  return LBS_OK;
}

static lbs_err decide(void *state, const lbs_loadview *v, int *rep) {
  int64_t H = *(int64_t *)state;
  *rep = 0;
  if (v->step < 1 || v->since < 1) return LBS_OK;
  double C = (double)(v->last_repart_ns ? v->last_repart_ns : v->est_repart_ns);
  *rep = (double)H * (double)v->past_excess_ns[v->step - 1] > C;
  return LBS_OK;
}

const lbs_policy_ops lbs__policy_cost_benefit = {.abi = LBS_POLICY_ABI,
                                                 .name = "cost-benefit",
                                                 .usage = "cost-benefit[:H]",
                                                 .init = init,
                                                 .decide = decide,
                                                 .fini = free,
                                                 .example = "cost-benefit:20",
                                                 .flags = LBS_POLICY_NO_STEP_TIMES};
