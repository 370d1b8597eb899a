/* base.c - the engine's leaves, which every other part of it uses and which use none of
 * them: errors agreed over the ranks, and a step's imbalance. */
#include <math.h>
#include <stdio.h>

#include "sim_int.h"

lbs_err lbs__agree(lbs__engine *x, lbs_err e) {
  int mine = e ? x->rank : x->size, first;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, x->comm);
  if (first == x->size) return LBS_OK;
  char msg[1024];
  int code = e;
  if (x->rank == first) snprintf(msg, sizeof msg, "%s", lbs_errmsg());
  MPI_Bcast(msg, sizeof msg, MPI_CHAR, first, x->comm);
  MPI_Bcast(&code, 1, MPI_INT, first, x->comm);
  return lbs_fail((lbs_err)code, "%s", msg);
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
