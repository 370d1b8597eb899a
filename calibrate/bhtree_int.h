/* bhtree_int.h - the Barnes-Hut tree flattened for the device targets (opencl.c, cuda.cu).
 * Private to calibrate/. */
#ifndef LBS_CALIB_BHTREE_INT_H
#define LBS_CALIB_BHTREE_INT_H

#include <stdint.h>

#include "lbs_core.h"
#include "lbs_nbody.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The nodes of t in the preorder of lbs_nb_accel's stack walk (children 0 to 7), so that a
 * device walks the tree without a stack in the same order: node k of the preorder is
 * nd[5k .. 5k+5) = com x, y, z, half width h, mass m, and ni[4k .. 4k+4) = leaf number (-1 for an
 * inner node), first, cnt (its bodies idx[first .. first+cnt)), skip (the preorder index of the
 * node after its subtree). The walk: at node k, a far inner node (its monopole) or a leaf goes on
 * to skip, an opened inner node to k + 1 (its first child); it ends at t->nn. nd (5 t->nn) and
 * ni (4 t->nn) are the caller's. LBS_RANGE when a count does not fit an int32, LBS_NOMEM. */
lbs_err lbs__bh_flatten(const lbs_nb_tree *t, double *nd, int32_t *ni);

#ifdef __cplusplus
}
#endif

#endif
