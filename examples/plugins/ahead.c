/* ahead.c - an example lbsim plug-in: the policy ahead:T repartitions before a step whose own
 * imbalance (Lmax - Lavg) / Lmax under the current assignment would exceed T, 0 < T < 1. The
 * built-in threshold:T looks at the last step; this one looks at the step about to run (the
 * view's load_ns, which a trace knows), so it is an oracle of one step.
 *
 *   make PKG_CONFIG_PATH=PREFIX/lib/pkgconfig       (or CMake: see CMakeLists.txt)
 *   lbsim --plugin ./libahead.so policy compare t.lbt --grid g.ini --policies ahead:0.2,none */
#include <lbsim_plugin.h>
#include <stdlib.h>

static lbs_err init(void **state, const char *args) {
  char *end = NULL;
  double t = args ? strtod(args, &end) : 0;
  if (!args || end == args || *end || !(t > 0 && t < 1))
    return lbs_fail(LBS_INVAL, "T must be an imbalance between 0 and 1 (got '%s')",
                    args ? args : "");
  double *s = malloc(sizeof *s);
  if (!s) return lbs_fail(LBS_NOMEM, "ahead");
  *s = t;
  *state = s;
  return LBS_OK;
}

/* Deterministic: every MPI rank sees the same view and must decide the same. */
static lbs_err decide(void *state, const lbs_loadview *view, int *repartition) {
  *repartition = view->step > 0 && view->imbalance > *(const double *)state;
  return LBS_OK;
}

static const lbs_policy_ops ahead = {.abi = LBS_POLICY_ABI,
                                     .name = "ahead",
                                     .usage = "ahead:T",
                                     .init = init,
                                     .decide = decide,
                                     .fini = free,
                                     .example = "ahead:0.2"};
static const lbs_policy_ops *const policies[] = {&ahead, NULL};
static const lbsim_plugin plugin = {.abi = LBSIM_PLUGIN_ABI, .name = "ahead", .policies = policies};

const lbsim_plugin *lbsim_plugin_entry(void) { return &plugin; }
