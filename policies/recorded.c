/* recorded.c - recorded: the application's own assignments, replayed. A trace of an application
 * that migrates elements records which rank held each element from which step on
 * (lbs_trace_write_owners); the replay (LBS_POLICY_RECORDED, sim/recorded.c) starts from the
 * assignment in force at its first step (rank r on processor r) and moves to each later one
 * before the first sampled step it applies to, its migration charged over the simulated links
 * and its partitioning time 0. The schedule and the partitions are the trace's, so the replay
 * never asks this policy's decide; a caller that does (an application deciding as it runs) is
 * told why it cannot follow it. */
#include "lbs_policy.h"

static lbs_err init(void **state, const char *args) {
  *state = NULL;
  return args ? lbs_fail(LBS_INVAL, "takes no arguments") : LBS_OK;
}

static lbs_err decide(void *state, const lbs_loadview *view, int *repartition) {
  (void)state, (void)view;
  *repartition = 0;
  return lbs_fail(LBS_INVAL,
                  "policy recorded: the trace's recorded assignments decide, and only a replay "
                  "(lbsim replay) reads them");
}

const lbs_policy_ops lbs__policy_recorded = {.abi = LBS_POLICY_ABI,
                                             .name = "recorded",
                                             .usage = "recorded",
                                             .init = init,
                                             .decide = decide,
                                             .example = NULL, /* it decides on no view */
                                             .flags = LBS_POLICY_RECORDED};
