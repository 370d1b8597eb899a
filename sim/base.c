/* base.c - the engine's leaves, which every other part of it uses and which use none of
 * them: errors and the policy's decisions agreed over the ranks (core's lbs_mpi_agree), a step's
 * imbalance, and whether the policy plans ahead (its flags). */
#include <math.h>

#include "lbs_mpi.h"
#include "sim_int.h"

lbs_err lbs__agree(lbs__engine *x, lbs_err e) { return lbs_mpi_agree(x->comm, e); }

static lbs_err split_fail(const lbs__engine *x) {
  return lbs_fail(LBS_INVAL,
                  "policy %s: its ranks went apart in deciding step %lld (%d of %d ranks call "
                  "view.eval_step where the others have decided); a policy must make the same "
                  "calls on every rank",
                  x->o->policy, (long long)x->deciding, x->split_nav, x->size);
}

/* One MPI_Allreduce: how many ranks navigate (nav 1) and how many would repartition (into *yes:
 * rep summed); a split when some navigate and the others do not. */
static lbs_err decide_step(lbs__engine *x, int nav, int rep, int *yes) {
  *yes = rep;
  if (x->split_nav) return split_fail(x);
  if (x->size < 2) return LBS_OK;
  int in[2] = {nav, rep}, sum[2];
  MPI_Allreduce(in, sum, 2, MPI_INT, MPI_SUM, x->comm);
  *yes = sum[1];
  if (sum[0] == 0 || sum[0] == x->size) return LBS_OK;
  x->split_nav = sum[0];
  return split_fail(x);
}

lbs_err lbs__decide_nav(lbs__engine *x) {
  int yes;
  return decide_step(x, 1, 0, &yes);
}

lbs_err lbs__decide_done(lbs__engine *x, lbs_err e, int *rep) {
  int yes;
  *rep = !e && *rep;
  lbs_err split = decide_step(x, 0, *rep, &yes);
  if (split) return *rep = 0, split;
  if ((e = lbs__agree(x, e))) return *rep = 0, e;
  if (yes == 0 || yes == x->size) return LBS_OK;
  *rep = 0;
  return lbs_fail(LBS_INVAL,
                  "policy %s: decided differently on the ranks (deciding step %lld: repartition "
                  "on %d of %d ranks); a policy must decide the same on every rank",
                  x->o->policy, (long long)x->deciding, yes, x->size);
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
