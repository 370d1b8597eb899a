/* threshold.c - threshold:T repartitions when the last step's imbalance (Lmax - Lavg) / Lmax
 * exceeded T, 0 < T < 1: the usual online rule (it sees only the past). */
#include <stdlib.h>

#include "args.h"
#include "lbs_policy.h"

static lbs_err init(void **state, const char *args) {
  double v[1];
  if (policy_numbers(args, v, 1) != 1 || !(v[0] > 0 && v[0] < 1))
    return lbs_fail(LBS_INVAL, "T must be an imbalance between 0 and 1 (got '%s')",
                    args ? args : "");
  double *t = malloc(sizeof *t);
  if (!t) return lbs_fail(LBS_NOMEM, "policy");
  *t = v[0];
  *state = t;
  return LBS_OK;
}

static lbs_err decide(void *state, const lbs_loadview *v, int *rep) {
  *rep = v->step > 0 && v->since > 0 && v->past_imbalance[v->step - 1] > *(double *)state;
  return LBS_OK;
}

const lbs_policy_ops lbs__policy_threshold = {.abi = LBS_POLICY_ABI,
                                              .name = "threshold",
                                              .usage = "threshold:T",
                                              .init = init,
                                              .decide = decide,
                                              .fini = free,
                                              .example = "threshold:0.2",
                                              .flags = LBS_POLICY_NO_STEP_TIMES};
