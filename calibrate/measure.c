/* measure.c - the clock and one sample (seed 004 4.3.2: CreateParams, execute, DeleteParams). */
#include <time.h>

#include "lbs_calib.h"

static double mono_now(void *ctx) {
  (void)ctx;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const lbs_clock lbs_clock_monotonic = {mono_now, NULL};

lbs_err lbs_calib_measure(const lbs_adapter *a, const lbs_impl_ops *impl, void *ctx, double w,
                          uint64_t seed, const lbs_clock *clk, double *seconds) {
  void *params = NULL;
  lbs_err e = a->create_params(w, seed, &params);
  if (e) return e;
  double t0 = clk->now(clk->ctx);
  e = impl->execute(ctx, params);
  double t1 = clk->now(clk->ctx);
  a->delete_params(params);
  if (e) return e;
  *seconds = t1 - t0;
  return LBS_OK;
}
