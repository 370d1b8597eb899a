/* base.c - the engine's leaves, which every other part of it uses and which use none of
 * them: errors agreed over the ranks (core's lbs_mpi_agree), a step's imbalance, and whether the
 * policy plans ahead (its flags). */
#include <math.h>

#include "lbs_mpi.h"
#include "sim_int.h"

lbs_err lbs__agree(lbs__engine *x, lbs_err e) { return lbs_mpi_agree(x->comm, e); }

void lbs__imbalance(const int64_t *load, int P, double *imb, double *limb) {
  double mx = 0, sum = 0;
  for (int p = 0; p < P; p++) {
    mx = fmax(mx, (double)load[p]);
    sum += (double)load[p];
  }
  double avg = sum / P;
  *imb = mx > 0 ? (mx - avg) / mx : 0;
  *limb = avg > 0 ? mx / avg : 1;
}

int lbs__plans_ahead(const lbs__engine *x) {
  return x->policy && (lbs_policy_ops_of(x->policy)->flags & LBS_POLICY_PLANS_AHEAD);
}
