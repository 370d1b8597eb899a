/* stop_at_rise.c - stop-at-rise (Moon and Saltz, "Adaptive runtime support for direct
 * simulation Monte Carlo methods on distributed memory architectures", SHPCC 1994): after a
 * repartition at step r with cost C, the average cost per step since then,
 *   avg(k) = (C + t_r + ... + t_{r+k-1}) / k,
 * first falls as C is amortised, then rises as imbalance grows; repartition as soon as it
 * rises: avg(k) > avg(k-1). C is the last repartition's partition + migration time (before
 * the first, the simulator's estimate). Online: it uses past step times only. */
#include "lbs_policy.h"

static lbs_err init(void **state, const char *args) {
  *state = NULL;
  return args ? lbs_fail(LBS_INVAL, "takes no arguments") : LBS_OK;
}

static lbs_err decide(void *state, const lbs_loadview *v, int *rep) {
  (void)state;
  *rep = 0;
  int64_t k = v->since, r = v->step - k;
  if (k < 2) return LBS_OK;
  double C = (double)(v->last_repart_ns ? v->last_repart_ns : v->est_repart_ns), sum = C;
  for (int64_t i = r; i < v->step - 1; i++) sum += (double)v->step_ns[i];
  double before = sum / (double)(k - 1), now = (sum + (double)v->step_ns[v->step - 1]) / (double)k;
  *rep = now > before;
  return LBS_OK;
}

const lbs_policy_ops lbs__policy_stop_at_rise = {.abi = LBS_POLICY_ABI,
                                                 .name = "stop-at-rise",
                                                 .usage = "stop-at-rise",
                                                 .init = init,
                                                 .decide = decide,
                                                 .example = "stop-at-rise"};
