/* fixed.c - fixed:K repartitions every K steps: before steps K, 2K, 3K, ... (seed 002,
 * section 4.3: over 300 steps a fixed interval of 20 means 14 repartitions). */
#include <errno.h>
#include <stdlib.h>

#include "lbs_policy.h"

static lbs_err init(void **state, const char *args) {
  char *end;
  errno = 0;
  long long k = args ? strtoll(args, &end, 10) : 0;
  if (!args || !*args || *end || errno || k < 1 || k > INT32_MAX)
    return lbs_fail(LBS_INVAL, "K must be a whole number of steps >= 1 (got '%s')",
                    args ? args : "");
  int64_t *s = malloc(sizeof *s);
  if (!s) return lbs_fail(LBS_NOMEM, "policy");
  *s = k;
  *state = s;
  return LBS_OK;
}

static lbs_err decide(void *state, const lbs_loadview *view, int *repartition) {
  int64_t k = *(int64_t *)state;
  *repartition = view->step > 0 && view->step % k == 0;
  return LBS_OK;
}

const lbs_policy_ops lbs__policy_fixed = {.abi = LBS_POLICY_ABI,
                                          .name = "fixed",
                                          .usage = "fixed:K",
                                          .init = init,
                                          .decide = decide,
                                          .fini = free,
                                          .example = "fixed:10",
                                          .flags = LBS_POLICY_NO_STEP_TIMES};
