/* recorded.c - recorded: the application's own assignments, replayed. A trace of an application
 * that migrates elements records which rank held each element from which step on
 * (lbs_trace_write_owners); the replay (LBS_POLICY_RECORDED, sim/recorded.c) starts from the
 * assignment in force at its first step (rank r on processor r) and moves to each later one
 * before the first sampled step it applies to. It is charged what the application recorded of
 * it (the trace's events partition_s and migration_s at that step, the largest over its ranks)
 * where the trace has it, else partitioning 0 and the migration over the simulated links. The
 * schedule and the partitions are the trace's, so the replay
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
                                             .flags =
                                                 LBS_POLICY_NO_STEP_TIMES | LBS_POLICY_RECORDED};
