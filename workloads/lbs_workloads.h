/* lbs_workloads.h - workloads/: the physics kernels of the applications lbsim models, one
 * header each, shared by the real MPI codes (apps/), the calibration kernels that time them
 * (calibrate/) and the trace generator (traces/), so that a profiled run, an IPG and a
 * generated trace execute the very same operations:
 *
 *   lbs_wave.h   the seed's MRTD wave case: a cell's H and E updates (apps/wave; kernel wave).
 *                Header only.
 *   lbs_walk.h   seed 000's Monte-Carlo Laplace solver: one random walk (apps/laplace-mc;
 *                kernel walk). Header only.
 *   lbs_nbody.h  seed 003's Barnes-Hut N-body case: Plummer bodies, the octree, forces, the
 *                fixed cells, their close-cell graph and PWgt (nbody.c; apps/nbody, kernel
 *                nbody, `lbsim trace gen --kind nbody`).
 *
 * The folder sits just above core/ (its only dependency: errors and the counter-based RNG) and
 * below traces/ and calibrate/; library lbs_workloads. An application that needs only a header
 * includes it from here without linking anything (apps/wave, apps/laplace-mc). */
#ifndef LBS_WORKLOADS_H
#define LBS_WORKLOADS_H

#include "lbs_nbody.h"
#include "lbs_walk.h"
#include "lbs_wave.h"

#endif
