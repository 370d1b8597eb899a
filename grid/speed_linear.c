/* speed_linear.c - linear speed model: time = work x ns_per_work / speed.
 * A node type gives either `speed` (relative throughput, 2 = twice as fast) or `slowdown`
 * (its inverse, as in seed 003's processing slowdown); speed 1 by default. */
#include <math.h>
#include <stdlib.h>

#include "grid_int.h"

typedef struct {
  double ns_per_unit; /* ns_per_work / speed */
  double speed;       /* relative throughput */
} linear;

/* Its [nodetype] keys (--help-config prefixes the help with "linear: "). */
static const lbs_opt keys[] = {
    {"speed", LBS_OPT_DOUBLE, "1", 1e-12, 1e12, "relative speed (2 = twice as fast)"},
    {"slowdown", LBS_OPT_DOUBLE, "1", 1e-12, 1e12,
     "processing slowdown (1/speed); give speed or slowdown"},
    {NULL, 0, NULL, 0, 0, NULL}};

static lbs_err init(void **state, const lbs_config *cfg, const char *nt, double ns_per_work) {
  double speed = 1, slow = 1;
  lbs_err e;
  int has_speed = lbs_config_has(cfg, "nodetype", nt, "speed"),
      has_slow = lbs_config_has(cfg, "nodetype", nt, "slowdown");
  if (has_speed && has_slow)
    return lbs_fail(LBS_PARSE, "%s: [nodetype %s] gives both 'speed' and 'slowdown'; give one",
                    lbs_config_where(cfg, "nodetype", nt, "slowdown"), nt);
  if ((e = lbs_config_double(cfg, lbs_grid_spec(), "nodetype", nt, "speed", &speed))) return e;
  if ((e = lbs_config_double(cfg, lbs_grid_spec(), "nodetype", nt, "slowdown", &slow))) return e;
  if (has_slow) speed = 1.0 / slow;
  linear *l = malloc(sizeof *l);
  if (!l) return lbs_fail(LBS_NOMEM, "speed model");
  l->speed = speed;
  l->ns_per_unit = ns_per_work / speed;
  *state = l;
  return LBS_OK;
}

static int64_t time_ns(const void *state, double work) {
  const linear *l = state;
  double t = work * l->ns_per_unit;
  if (!(t > 0)) return 0;
  return t > 9e18 ? INT64_C(9000000000000000000) : llround(t);
}

static double rate(const void *state) { return ((const linear *)state)->speed; }

const lbs_speed_ops lbs__speed_linear = {.abi = LBS_SPEED_ABI,
                                         .name = "linear",
                                         .keys = keys,
                                         .example = "speed = 2.5\n",
                                         .monotone = 1,
                                         .init = init,
                                         .time_ns = time_ns,
                                         .rate = rate,
                                         .fini = free};
