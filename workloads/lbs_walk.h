/* lbs_walk.h - one random walk of seed 000's Monte-Carlo Laplace solver (apps/laplace-mc),
 * shared by the real MPI code, the calibration kernel `walk` (calibrate/cpu.c) and its
 * reference check (calibrate/adapters.c), so that an IPG measures the walks a profiled run
 * takes. Header only: apps/laplace-mc links no lbsim library beyond lbs_core. */
#ifndef LBS_WALK_H
#define LBS_WALK_H

#include <stdint.h>

#include "lbs_core.h"

/* Walk k from point (x, y), numbered g on an N x N grid: the steps it took until it left the
 * grid; *hot = 1 when it left through y = N. Two bits of lbs_rng_u64(seed, g << 32 | k, i)
 * per step: 0 +x, 1 -x, 2 +y, 3 -y. */
static inline int64_t lbs_walk_one(uint64_t seed, int64_t N, int64_t g, int64_t x, int64_t y,
                                   uint64_t k, int *hot) {
  uint64_t stream = (uint64_t)g << 32 | k, word = 0, widx = 0;
  int left = 0;
  int64_t steps = 0;
  for (;;) {
    if (!left) word = lbs_rng_u64(seed, stream, widx++), left = 32;
    unsigned d = (unsigned)(word & 3);
    x += (d == 0) - (d == 1), y += (d == 2) - (d == 3);
    word >>= 2, left--, steps++;
    if ((uint64_t)x >= (uint64_t)N || (uint64_t)y >= (uint64_t)N) break;
  }
  *hot = y >= N;
  return steps;
}

#endif
