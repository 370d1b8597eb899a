/* extras.c - a plug-in with a speed model and a MinEX latency function, for their contract
 * tests (unit.grid.speed_models, unit.partitioners.latency_contract) and e2e.lua_policy:
 *   stepped: work runs in whole chunks of stepped_chunk units at stepped_speed (a node that
 *            schedules fixed-size blocks): time = ceil(work / chunk) x chunk x ns_per_work / speed;
 *   hidden:  communication and relocation fully overlap processing: QWgt = max(Wgt, Comm + Remap)
 *            (hidden:F scales what cannot hide: max(Wgt, F x (Comm + Remap)), F >= 1). */
#include <lbsim_plugin.h>
#include <math.h>
#include <stdlib.h>

typedef struct {
  double speed, chunk, ns_per_unit;
} stepped;

static const lbs_opt keys[] = {
    {"stepped_speed", LBS_OPT_DOUBLE, "1", 1e-12, 1e12, "relative speed"},
    {"stepped_chunk", LBS_OPT_DOUBLE, "100", 1e-9, 1e12, "units of work run as one block"},
    {NULL, 0, NULL, 0, 0, NULL}};

static lbs_err init(void **state, const lbs_config *cfg, const char *nt, double ns_per_work) {
  stepped *s = malloc(sizeof *s);
  if (!s) return lbs_fail(LBS_NOMEM, "stepped");
  lbs_err e = lbs_config_double(cfg, lbs_grid_spec(), "nodetype", nt, "stepped_speed", &s->speed);
  if (!e) e = lbs_config_double(cfg, lbs_grid_spec(), "nodetype", nt, "stepped_chunk", &s->chunk);
  if (e) {
    free(s);
    return e;
  }
  s->ns_per_unit = ns_per_work / s->speed;
  *state = s;
  return LBS_OK;
}

static int64_t time_ns(const void *state, double work) {
  const stepped *s = state;
  double t = ceil(work / s->chunk) * s->chunk * s->ns_per_unit;
  if (!(t > 0)) return 0;
  return t > 9e18 ? INT64_C(9000000000000000000) : llround(t);
}

static double rate(const void *state) { return ((const stepped *)state)->speed; }

static const lbs_speed_ops stepped_ops = {.abi = LBS_SPEED_ABI,
                                          .name = "stepped",
                                          .keys = keys,
                                          .example = "stepped_speed = 2\nstepped_chunk = 50\n",
                                          .monotone = 1,
                                          .init = init,
                                          .time_ns = time_ns,
                                          .rate = rate,
                                          .fini = free};

static lbs_err hidden_create(void **user, const char *args) {
  double *f = malloc(sizeof *f);
  if (!f) return lbs_fail(LBS_NOMEM, "hidden");
  char *end = NULL;
  *f = args ? strtod(args, &end) : 1;
  if (args && (end == args || *end || !(*f >= 1) || !isfinite(*f))) {
    free(f);
    return lbs_fail(LBS_INVAL, "needs F >= 1 (got '%s')", args);
  }
  *user = f;
  return LBS_OK;
}

static double hidden(void *user, const lbs_minex_ipg *ipg, const lbs_minex_tot *t) {
  (void)ipg;
  double c = *(const double *)user * (t->comm + t->remap);
  return t->pproc > c ? t->pproc : c;
}

static const lbs_minex_latency_ops hidden_ops = {.abi = LBS_MINEX_LATENCY_ABI,
                                                 .name = "hidden",
                                                 .usage = "hidden[:F] (F >= 1)",
                                                 .example = "hidden:2",
                                                 .create = hidden_create,
                                                 .latency = hidden,
                                                 .destroy = free};

static const lbs_speed_ops *const speeds[] = {&stepped_ops, NULL};
static const lbs_minex_latency_ops *const latencies[] = {&hidden_ops, NULL};
static const lbsim_plugin plugin = {
    .abi = LBSIM_PLUGIN_ABI, .name = "extras", .speed_models = speeds, .latencies = latencies};

const lbsim_plugin *lbsim_plugin_entry(void) { return &plugin; }
