/* base.c - the engine's leaves, which every other part of it uses and which use none of
 * them: errors and the policy's decisions agreed over the ranks (core's lbs_mpi_agree), a step's
 * imbalance, and whether the policy plans ahead (its flags). */
#include <math.h>

#include "lbs_mpi.h"
#include "sim_int.h"

lbs_err lbs__agree(lbs__engine *x, lbs_err e) { return lbs_mpi_agree(x->comm, e); }

/* One MPI_Allreduce per decision: how many ranks would repartition, all of them or none. */
lbs_err lbs__agree_decision(lbs__engine *x, int64_t s, int *rep) {
  *rep = *rep != 0;
  if (x->size < 2) return LBS_OK;
  int yes = 0;
  MPI_Allreduce(rep, &yes, 1, MPI_INT, MPI_SUM, x->comm);
  if (yes == 0 || yes == x->size) return LBS_OK;
  *rep = 0;
  return lbs_fail(LBS_INVAL,
                  "policy %s: decided differently on the ranks (deciding step %lld: repartition "
                  "on %d of %d ranks); a policy must decide the same on every rank",
                  x->o->policy, (long long)s, yes, x->size);
}

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
