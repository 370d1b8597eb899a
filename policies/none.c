/* none.c - never repartition after the initial partition. */
#include "lbs_policy.h"

static lbs_err init(void **state, const char *args) {
  *state = NULL;
  return args ? lbs_fail(LBS_INVAL, "takes no arguments") : LBS_OK;
}

static lbs_err decide(void *state, const lbs_loadview *view, int *repartition) {
  (void)state, (void)view;
  *repartition = 0;
  return LBS_OK;
}

const lbs_policy_ops lbs__policy_none = {.abi = LBS_POLICY_ABI,
                                         .name = "none",
                                         .usage = "none",
                                         .init = init,
                                         .decide = decide,
                                         .example = "none",
                                         .flags = LBS_POLICY_NO_STEP_TIMES};
