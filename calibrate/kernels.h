/* kernels.h - the invocation parameters of every kernel, shared by the adapters (adapters.c)
 * and every target's implementations (cpu.c, threads.c, opencl.c, cuda/). Private to calibrate/.
 *
 * Kernels and their work metrics (seed 004 Table 6-1 for the thesis' functions):
 *   sort     sort n doubles ascending                      metric n
 *   dot      inner product of two n-vectors                metric n
 *   conv1d   full 1-D convolution of a (na) with b (nb)    metric na * nb
 *   matmul   C (m x p) = A (m x n) B (n x p)               metric m * n * p
 *   wave     one MRTD leapfrog step (H then E) of ncells
 *            cells of B^3 points (apps/wave's update)      metric ncells
 *   walk     Laplace random walks on an N x N grid
 *            (apps/laplace-mc's walk), from given points   metric walks
 *   bhforce  Barnes-Hut accelerations of ntarget bodies
 *            against a fixed Plummer tree (apps/nbody)     metric ntarget
 */
#ifndef LBS_CALIB_KERNELS_H
#define LBS_CALIB_KERNELS_H

#include <stdint.h>

#include "lbs_calib.h"

typedef struct {
  int64_t n;
  double *a; /* in: the values; out: sorted ascending */
} lbs_k_sort;

typedef struct {
  int64_t n;
  double *x, *y;
  double result; /* out */
} lbs_k_dot;

typedef struct {
  int64_t na, nb;
  double *a, *b;
  double *out; /* na + nb - 1 values: out[k] = sum_i a[i] b[k - i] */
} lbs_k_conv1d;

typedef struct {
  int m, n, p;
  double *A, *B; /* row-major m x n and n x p */
  double *C;     /* out: row-major m x p */
} lbs_k_matmul;

/* apps/wave's cell: six components (Ex Ey Ez Hx Hy Hz) of (B+1)^3 doubles each, E(i,j,k) at
 * i + (B+1)(j + (B+1)k), H one place further in each dimension (see apps/wave/wave.c). */
#define LBS_K_WAVE_B 4
typedef struct {
  int64_t ncells;
  int b;         /* B, points per cell edge */
  double S;      /* Courant number */
  double *F;     /* in/out: ncells * 6 * (B+1)^3 doubles; halos are read, never written */
  double energy; /* out: sum over cells of update_H's energy */
  double emax;   /* out: max |E| over cells after update_E */
} lbs_k_wave;

/* apps/laplace-mc's walks: walk k starts at point start[k] (x + N y, interior) and steps to a
 * neighbour at random (counter-based: lbs_rng_u64(seed, start point, k)) until it leaves the
 * grid; it is hot when it leaves through y = N. */
typedef struct {
  int64_t N;      /* grid size (usage assumption: fixed, 64) */
  int64_t nwalks; /* < 2^32: walk k draws from stream start[k] << 32 | k (apps/laplace-mc's) */
  int64_t *start; /* nwalks start points */
  uint64_t seed;
  int64_t hits;  /* out: hot walks */
  int64_t steps; /* out: walk steps taken */
} lbs_k_walk;

/* Barnes-Hut: the tree of a Plummer sphere of nbody bodies (built by CreateParams, not
 * timed), and ntarget target bodies whose accelerations (opening angle theta) are computed. */
typedef struct {
  int64_t nbody; /* bodies in the tree (usage assumption: fixed, 16384) */
  double *x;     /* 3 * nbody positions */
  double theta;
  void *tree; /* lbs_nb_tree * (workloads/lbs_nbody.h) */
  /* x and tree are built once per process and shared by every invocation (the same pointers
   * each time, never freed): read-only for implementations, which may cache them on a device. */
  int64_t ntarget;
  int64_t *target;      /* ntarget body indices */
  double *acc;          /* out: 3 * ntarget */
  int64_t interactions; /* out */
} lbs_k_bhforce;

#endif
