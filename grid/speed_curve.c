/* speed_curve.c - what the speed models that read a measured curve share (speed_ipg.c,
 * speed_plan.c): a database path relative to the grid file, the rate at large work, and
 * seconds as whole nanoseconds. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "grid_int.h"

double lbs__curve_rate(double (*eval)(const void *curve, double x), const void *curve, double hi,
                       double mpw, double ns_per_work) {
  double lo = hi / 2, dt = eval(curve, hi) - eval(curve, lo);
  double s_per_metric = dt > 0 && hi > lo ? dt / (hi - lo) : hi > 0 ? eval(curve, hi) / hi : 0;
  double ns_per_unit = s_per_metric * 1e9 * mpw,
         rate = ns_per_unit > 0 ? ns_per_work / ns_per_unit : 1;
  return rate > 0 && isfinite(rate) ? rate : 1;
}

int64_t lbs__seconds_ns(double s) {
  double t = s * 1e9;
  if (!(t > 0)) return 0;
  return t > 9e18 ? INT64_C(9000000000000000000) : llround(t);
}
