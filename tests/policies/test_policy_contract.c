/* test_policy_contract.c - the contract every registered policy keeps, run over the registry
 * with the example plug-in (examples/plugins/ahead.c, built as test_plugin_ahead) loaded: the
 * policy is created from its own example; on a synthetic replay of 60 steps its decisions
 * are 0 or 1, deterministic (two fresh instances, one after the other and interleaved, decide
 * alike); it reads no history past the step it decides (the arrays end where an over-read
 * faults); its series is well formed; fini is NULL-safe; a nonsense argument is refused with
 * a message that names the policy, or accepted, never a crash. A policy whose argument is a
 * script (LBS_POLICY_SCRIPT: lua) runs its example's script from the source tree. Its flags
 * hold together, and the view offers optimize to a policy that plans ahead alone, as the
 * replay does. A policy with no example (recorded: the trace decides, on no view) is skipped
 * where it would run. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lbs_plugin_load.h"
#include "lbs_policy.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#define MAX_POLICIES 64
#define P 8
#define STEPS 60
#define REPART_NS 300000 /* a repartition's cost in the synthetic replay */

/* The plug-in's registration lives in the process that loaded it: the runner builds the
 * parameters, and each test runs in a process of its own, so both load it (once each). */
static lbs_err load_plugin(void) {
  static int loaded;
  if (loaded) return LBS_OK;
  lbs_err e = lbs_plugin_load(LBS_TEST_PLUGIN_AHEAD);
  loaded = !e;
  return e;
}

/* A test's policy, by name: the address of an ops table differs between processes. */
typedef struct {
  char name[64];
} policy;

/* Every registered policy, the plug-in's included, as Criterion's parameters. */
static struct criterion_test_params every_policy(void) {
  static policy pols[MAX_POLICIES];
  if (load_plugin())
    fprintf(stderr, "test_policy_contract: %s\n", lbs_errmsg()); /* includes_the_plugin fails */
  int n = lbs_policy_count() < MAX_POLICIES ? lbs_policy_count() : MAX_POLICIES;
  for (int i = 0; i < n; i++)
    snprintf(pols[i].name, sizeof pols[i].name, "%s", lbs_policy_at(i)->name);
  return cr_make_param_array(policy, pols, (size_t)n);
}

static const lbs_policy_ops *ops_of(const policy *p) {
  cr_assert_eq(load_plugin(), LBS_OK, "%s", lbs_errmsg());
  for (int i = 0; i < lbs_policy_count(); i++)
    if (!strcmp(lbs_policy_at(i)->name, p->name)) return lbs_policy_at(i);
  cr_assert_fail("policy '%s' is not registered in the test's process", p->name);
  return NULL;
}

/* The spec the contract runs: the policy's example, a script's path in it taken from the source
 * tree ("lua:examples/x.lua:1" -> "lua:SRC/examples/x.lua:1"). */
static const char *spec_of(const lbs_policy_ops *ops) {
  static char spec[4096];
  if (!ops->example) {
    cr_skip_test("%s has no example", ops->name);
    return NULL;
  }
  if (!(ops->flags & LBS_POLICY_SCRIPT)) return ops->example;
  size_t n = strlen(ops->name);
  cr_assert(!strncmp(ops->example, ops->name, n) && ops->example[n] == ':' &&
                ops->example[n + 1] != '/',
            "%s: a script's example is NAME:PATH[:ARGS], the path relative ('%s')", ops->name,
            ops->example);
  snprintf(spec, sizeof spec, "%.*s:%s/%s", (int)n, ops->example, LBS_SOURCE_DIR,
           ops->example + n + 1);
  return spec;
}

/* ------------------------------------------------------------ the synthetic replay */

/* n items of size sz that end where reading on faults: under ASan a malloc of exactly that
 * size; otherwise placed at the end of mapped pages followed by an inaccessible one. */
typedef struct {
  void *p, *map;
  size_t maplen;
} guarded;

static void *guard_alloc(guarded *g, size_t n, size_t sz, const void *from) {
  size_t bytes = n * sz;
#ifdef UNDER_ASAN
  g->map = NULL;
  g->p = malloc(bytes ? bytes : 1); /* (1 byte: any read of an item overruns it) */
  cr_assert_not_null(g->p);
#else
  size_t page = (size_t)sysconf(_SC_PAGESIZE), data = (bytes + page - 1) / page * page;
  g->maplen = data + page;
  g->map = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  cr_assert_neq(g->map, MAP_FAILED);
  cr_assert_eq(mprotect((char *)g->map + data, page, PROT_NONE), 0);
  g->p = (char *)g->map + data - bytes;
#endif
  if (bytes) memcpy(g->p, from, bytes);
  return g->p;
}

static void guard_free(guarded *g) {
#ifdef UNDER_ASAN
  free(g->p);
#else
  munmap(g->map, g->maplen);
#endif
}

/* What the replay knows: the step the assignment was last made at, and each past step. */
typedef struct {
  int64_t r, last_repart_ns;
  int64_t step_ns[STEPS], excess_ns[STEPS];
  double imbalance[STEPS];
  int bad_steps; /* eval_step calls outside 0..STEPS-1 */
} world;

/* The compute time of processor p at step s under the assignment made at step r: nearly
 * equal right after it, drifting apart as steps pass, with a small pattern over the steps. */
static int64_t load_at(int64_t s, int64_t r, int p) {
  int64_t age = s >= r ? s - r : 0;
  return 1000000 + 20000 * age * ((p * 37 + s * 11) % 23) + 5000 * ((s * 13 + p * 7) % 5);
}

static double loads(const world *w, int64_t s, int64_t *load, int64_t *excess) {
  int64_t mx = 0, sum = 0;
  for (int p = 0; p < P; p++) {
    load[p] = load_at(s, w->r, p);
    mx = load[p] > mx ? load[p] : mx;
    sum += load[p];
  }
  double avg = (double)sum / P;
  if (excess) *excess = mx - (int64_t)avg;
  return ((double)mx - avg) / (double)mx;
}

/* The replay's step navigation (sim/replay.c), over the synthetic loads. */
static lbs_err eval_step(void *nav, int64_t s, int64_t *load_ns, double *imbalance) {
  world *w = nav;
  if (s < 0 || s >= STEPS) {
    w->bad_steps++;
    return lbs_fail(LBS_RANGE, "step navigation: step %lld outside 0..%d", (long long)s, STEPS - 1);
  }
  double imb = loads(w, s, load_ns, NULL);
  if (imbalance) *imbalance = imb;
  return LBS_OK;
}

/* The replay's optimiser (sim/optimal.c) answers a schedule; this one a fixed one. */
static lbs_err optimize(void *nav, int64_t maxcand, const int64_t **steps, int *nsteps) {
  static const int64_t plan[] = {12, 30, 47};
  (void)nav;
  if (STEPS - 1 > maxcand)
    return lbs_fail(LBS_RANGE, "optimal: %d candidate steps exceed %lld", STEPS - 1,
                    (long long)maxcand);
  *steps = plan;
  *nsteps = 3;
  return LBS_OK;
}

/* Asks the policy about step s of w, as sim/replay.c does, and plays the step; the decision. */
static int play_step(lbs_policy *pol, world *w, int64_t s) {
  int64_t load[P], excess;
  double imb = loads(w, s, load, NULL);
  guarded gl, gs, gi, ge;
  lbs_loadview v = {
      .step = s,
      .steps = STEPS,
      .since = s - w->r,
      .procs = P,
      .load_ns = guard_alloc(&gl, P, sizeof *load, load),
      .imbalance = imb,
      /* a policy that says it never reads them gets none: a read faults */
      .step_ns =
          guard_alloc(&gs, lbs_policy_ops_of(pol)->flags & LBS_POLICY_NO_STEP_TIMES ? 0 : (size_t)s,
                      sizeof *w->step_ns, w->step_ns),
      .past_imbalance = guard_alloc(&gi, (size_t)s, sizeof *w->imbalance, w->imbalance),
      .past_excess_ns = guard_alloc(&ge, (size_t)s, sizeof *w->excess_ns, w->excess_ns),
      .last_repart_ns = w->last_repart_ns,
      .est_repart_ns = w->last_repart_ns ? w->last_repart_ns : REPART_NS,
      .eval_step = eval_step,
      .optimize = lbs_policy_ops_of(pol)->flags & LBS_POLICY_PLANS_AHEAD ? optimize : NULL,
      .nav = w};
  int rep = -1;
  lbs_err e = lbs_policy_decide(pol, &v, &rep);
  guard_free(&gl), guard_free(&gs), guard_free(&gi), guard_free(&ge);
  cr_assert_eq(e, LBS_OK, "%s at step %lld: %s", lbs_policy_name(pol), (long long)s, lbs_errmsg());
  cr_assert(rep == 0 || rep == 1, "%s at step %lld: repartition %d", lbs_policy_name(pol),
            (long long)s, rep);
  cr_assert_eq(w->bad_steps, 0, "%s looked at a step outside the run", lbs_policy_name(pol));
  if (rep) {
    w->r = s;
    w->last_repart_ns = REPART_NS + 1000 * s;
  }
  imb = loads(w, s, load, &excess);
  int64_t mx = 0;
  for (int p = 0; p < P; p++) mx = load[p] > mx ? load[p] : mx;
  w->step_ns[s] = mx + (rep ? w->last_repart_ns : 0);
  w->imbalance[s] = imb;
  w->excess_ns[s] = excess;
  return rep;
}

static lbs_policy *create(const char *spec) {
  lbs_policy *pol = NULL;
  cr_assert_eq(lbs_policy_create(spec, &pol), LBS_OK, "%s: %s", spec, lbs_errmsg());
  return pol;
}

/* Every step of a fresh replay, the decisions into rep[STEPS]; the policy is kept (series). */
static lbs_policy *run(const char *spec, int *rep) {
  lbs_policy *pol = create(spec);
  world w = {0};
  for (int64_t s = 0; s < STEPS; s++) rep[s] = play_step(pol, &w, s);
  return pol;
}

/* ------------------------------------------------------------ the contract */

Test(policy_contract, includes_the_plugin) {
  struct criterion_test_params params = every_policy();
  const policy *pols = params.params;
  int found = 0;
  for (size_t i = 0; i < params.length; i++) found += !strcmp(pols[i].name, "ahead");
  cr_assert_eq(found, 1, "the plug-in's policy 'ahead' among the parameters (%s): %s",
               LBS_TEST_PLUGIN_AHEAD, lbs_errmsg());
}

ParameterizedTestParameters(policy_contract, example_creates_it) { return every_policy(); }
ParameterizedTest(policy *param, policy_contract, example_creates_it) {
  const lbs_policy_ops *ops = ops_of(param);
  cr_assert_eq(ops->abi, LBS_POLICY_ABI, "%s", ops->name);
  cr_assert(ops->init && ops->decide, "%s", ops->name);
  cr_assert(ops->usage && !strncmp(ops->usage, ops->name, strlen(ops->name)), "%s: usage '%s'",
            ops->name, ops->usage ? ops->usage : "(null)");
  const char *spec = spec_of(ops);
  size_t n = strlen(ops->name);
  cr_assert(!strncmp(spec, ops->name, n) && (!spec[n] || spec[n] == ':'), "%s: example '%s'",
            ops->name, spec);
  lbs_policy *pol = create(spec);
  cr_assert_str_eq(lbs_policy_name(pol), spec);
  lbs_policy_destroy(&pol); /* fini right after init */
  cr_assert_null(pol);
  /* found by its bare name too, though it may want arguments */
  lbs_err e = lbs_policy_create(ops->name, &pol);
  cr_assert_neq(e, LBS_NOTFOUND, "%s: %s", ops->name, lbs_errmsg());
  lbs_policy_destroy(&pol);
}

ParameterizedTestParameters(policy_contract, decides_zero_or_one_within_its_view) {
  return every_policy();
}
ParameterizedTest(policy *param, policy_contract, decides_zero_or_one_within_its_view) {
  int rep[STEPS];
  /* play_step checks each decision, and the guarded history catches a read past the step */
  lbs_policy *pol = run(spec_of(ops_of(param)), rep);
  lbs_policy_destroy(&pol);
}

ParameterizedTestParameters(policy_contract, deterministic) { return every_policy(); }
ParameterizedTest(policy *param, policy_contract, deterministic) {
  const char *spec = spec_of(ops_of(param));
  int a[STEPS], b[STEPS];
  lbs_policy *pa = run(spec, a), *pb = run(spec, b);
  for (int s = 0; s < STEPS; s++)
    cr_assert_eq(b[s], a[s], "%s: a second instance differs at step %d", spec, s);
  /* two instances deciding turn about: no state shared between them */
  lbs_policy *pc = create(spec), *pd = create(spec);
  world wc = {0}, wd = {0};
  for (int64_t s = 0; s < STEPS; s++) {
    cr_assert_eq(play_step(pc, &wc, s), a[s], "%s: interleaved instance differs at step %lld", spec,
                 (long long)s);
    cr_assert_eq(play_step(pd, &wd, s), a[s], "%s: interleaved instance differs at step %lld", spec,
                 (long long)s);
  }
  lbs_policy_destroy(&pa), lbs_policy_destroy(&pb), lbs_policy_destroy(&pc),
      lbs_policy_destroy(&pd);
}

/* Series points are (step, value) of steps the run had; adaptive's probes step back and forth
 * (its Figure 9 trajectory), so their order is not part of the contract. */
ParameterizedTestParameters(policy_contract, series_is_well_formed) { return every_policy(); }
ParameterizedTest(policy *param, policy_contract, series_is_well_formed) {
  int rep[STEPS];
  lbs_policy *pol = run(spec_of(ops_of(param)), rep);
  const int64_t *steps;
  const double *values;
  int n = lbs_policy_series(pol, &steps, &values);
  cr_assert_geq(n, 0, "%s", lbs_policy_name(pol));
  if (n) cr_assert(steps && values, "%s: %d points without arrays", lbs_policy_name(pol), n);
  for (int i = 0; i < n; i++) {
    cr_assert(steps[i] >= 0 && steps[i] < STEPS, "%s: point %d at step %lld", lbs_policy_name(pol),
              i, (long long)steps[i]);
    cr_assert(isfinite(values[i]), "%s: point %d is %g", lbs_policy_name(pol), i, values[i]);
  }
  lbs_policy_destroy(&pol);
}

/* What the engine and the CLI ask instead of a name: known bits only; the optimum plans ahead
 * (policy compare's gap is to a plan over the whole run); a script's example names a script
 * that is there. */
ParameterizedTestParameters(policy_contract, flags_hold_together) { return every_policy(); }
ParameterizedTest(policy *param, policy_contract, flags_hold_together) {
  const lbs_policy_ops *ops = ops_of(param);
  unsigned known = LBS_POLICY_PLANS_AHEAD | LBS_POLICY_OPTIMUM | LBS_POLICY_SCRIPT |
                   LBS_POLICY_NAVIGATES | LBS_POLICY_RECORDED | LBS_POLICY_NO_STEP_TIMES;
  cr_assert_eq(ops->flags & ~known, 0, "%s: unknown flags %#x", ops->name, ops->flags);
  if (ops->flags & LBS_POLICY_OPTIMUM)
    cr_assert(ops->flags & LBS_POLICY_PLANS_AHEAD, "%s: the optimum without planning ahead",
              ops->name);
  /* the trace's recorded assignments decide for it: the replay never asks it, so it neither
   * plans nor navigates */
  if (ops->flags & LBS_POLICY_RECORDED)
    cr_assert_eq(ops->flags & ~(LBS_POLICY_RECORDED | LBS_POLICY_NO_STEP_TIMES), 0,
                 "%s: recorded with other flags %#x", ops->name, ops->flags);
  /* a script reads what its author wrote: it cannot promise not to read the step times */
  if (ops->flags & LBS_POLICY_SCRIPT)
    cr_assert_eq(ops->flags & LBS_POLICY_NO_STEP_TIMES, 0, "%s: a script without step times",
                 ops->name);
  if (ops->flags & LBS_POLICY_SCRIPT) {
    cr_assert_not_null(ops->example, "%s: a script policy without an example script", ops->name);
    char path[4096];
    const char *spec = spec_of(ops), *start = spec + strlen(ops->name) + 1,
               *end = strchr(start, ':');
    snprintf(path, sizeof path, "%.*s", end ? (int)(end - start) : (int)strlen(start), start);
    cr_assert_eq(access(path, R_OK), 0, "%s: its example's script %s", ops->name, path);
  }
  cr_assert_eq(lbs_policy_find(ops->name), ops, "%s: found by its name", ops->name);
}

ParameterizedTestParameters(policy_contract, fini_is_null_safe) { return every_policy(); }
ParameterizedTest(policy *param, policy_contract, fini_is_null_safe) {
  const lbs_policy_ops *ops = ops_of(param);
  if (ops->fini) ops->fini(NULL);
  lbs_policy_destroy(NULL);
  lbs_policy *none = NULL;
  lbs_policy_destroy(&none);
}

/* Nonsense after the name: refused with a message that places itself ("policy 'NAME...': "
 * or "policy NAME:..."), or taken (a policy may ignore arguments); never a crash. */
ParameterizedTestParameters(policy_contract, nonsense_arguments_are_refused_or_taken) {
  return every_policy();
}
ParameterizedTest(policy *param, policy_contract, nonsense_arguments_are_refused_or_taken) {
  const lbs_policy_ops *ops = ops_of(param);
  static const char *const nonsense[] = {"",
                                         ":",
                                         "x",
                                         "-1",
                                         "1e999",
                                         "nan",
                                         "0.5:0.5:0.5:0.5:0.5",
                                         "@/nonexistent",
                                         "\x01\x7f",
                                         ":::",
                                         "99999999999999999999"};
  char spec[256], prefix[128], placed[128];
  snprintf(prefix, sizeof prefix, "policy '%s", ops->name);
  snprintf(placed, sizeof placed, "policy %s:", ops->name);
  for (size_t i = 0; i < sizeof nonsense / sizeof *nonsense; i++) {
    snprintf(spec, sizeof spec, "%s:%s", ops->name, nonsense[i]);
    lbs_policy *pol = NULL;
    lbs_err e = lbs_policy_create(spec, &pol);
    if (e) {
      const char *m = lbs_errmsg();
      cr_assert(!strncmp(m, prefix, strlen(prefix)) || !strncmp(m, placed, strlen(placed)),
                "%s refused with '%s'", spec, m);
      cr_assert_null(pol);
    }
    lbs_policy_destroy(&pol);
  }
}
