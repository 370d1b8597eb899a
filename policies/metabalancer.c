/* metabalancer.c - the Charm++ MetaBalancer period (Menon, Jain, Zheng, Kale, "Automated load
 * balancing invocation based on application characteristics", CLUSTER 2012): if the load
 * imbalance cost per step grows linearly, excess(t) = m t after a balancing, the total over a
 * period tau is C + m tau^2 / 2, whose average per step is least at tau = sqrt(2 C / m).
 * m is the least-squares slope (through the origin) of Lmax - Lavg against the steps since
 * the last repartition; C the last repartition's cost (before the first, the estimate).
 * Repartition once `since` reaches tau; no decision before 3 points, none while m <= 0. */
#include <math.h>

#include "lbs_policy.h"

static lbs_err init(void **state, const char *args) {
  *state = NULL;
  return args ? lbs_fail(LBS_INVAL, "takes no arguments") : LBS_OK;
}

static lbs_err decide(void *state, const lbs_loadview *v, int *rep) {
  (void)state;
  *rep = 0;
  int64_t k = v->since, r = v->step - k;
  if (k < 3) return LBS_OK;
  double sxy = 0, sxx = 0;
  for (int64_t i = r; i < v->step; i++) {
    /* t = steps since the repartition: the step right after it is t = 0, excess growth 0 */
    double t = (double)(i - r), y = (double)v->past_excess_ns[i] - (double)v->past_excess_ns[r];
    sxy += t * y;
    sxx += t * t;
  }
  double m = sxy / sxx, C = (double)(v->last_repart_ns ? v->last_repart_ns : v->est_repart_ns);
  if (!(m > 0)) return LBS_OK;
  *rep = (double)k >= sqrt(2.0 * C / m);
  return LBS_OK;
}

const lbs_policy_ops lbs__policy_metabalancer = {.abi = LBS_POLICY_ABI,
                                                 .name = "metabalancer",
                                                 .usage = "metabalancer",
                                                 .init = init,
                                                 .decide = decide,
                                                 .example = "metabalancer",
                                                 .flags = LBS_POLICY_NO_STEP_TIMES};
