/* test_speed_models.c - the contract every registered speed model keeps, run over the registry:
 * a node type built from the model's own example loads; times are >= 0, monotone in work where
 * the model says so, and deterministic; the rate is > 0 and finite; fini is NULL-safe; its
 * keys are its own and documented. The registry holds a plug-in's model too
 * (tests/plugins/extras.c, `stepped`), loaded as lbsim --plugin loads it. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_grid.h"
#include "lbs_plugin_load.h"

#define MAX_MODELS 64

/* A test's model, by name: Criterion runs each test in a process of its own, where the address
 * of an ops table may differ from the runner's. */
typedef struct {
  char name[64];
} model;

/* The plug-in's registration lives in the process that loaded it: the runner builds the
 * parameters, and each test runs in a process of its own, so both load it (once each). */
static lbs_err load_plugin(void) {
  static int loaded;
  if (loaded) return LBS_OK;
  lbs_err e = lbs_plugin_load(LBS_TEST_PLUGIN_EXTRAS);
  loaded = !e;
  return e;
}

/* Every registered speed model, the plug-in's included, as Criterion's parameters. */
static struct criterion_test_params every_model(void) {
  static model models[MAX_MODELS];
  if (load_plugin())
    fprintf(stderr, "test_speed_models: %s\n", lbs_errmsg()); /* includes_the_plugin fails */
  int n = lbs_speed_count() < MAX_MODELS ? lbs_speed_count() : MAX_MODELS;
  for (int i = 0; i < n; i++)
    snprintf(models[i].name, sizeof models[i].name, "%s", lbs_speed_at(i)->name);
  return cr_make_param_array(model, models, (size_t)n);
}

static const lbs_speed_ops *ops_of(const model *m) {
  cr_assert_eq(load_plugin(), LBS_OK, "%s", lbs_errmsg());
  const lbs_speed_ops *ops = lbs_speed_find(m->name);
  cr_assert_not_null(ops, "speed model '%s'", m->name);
  return ops;
}

/* Work from nothing to the largest double, in increasing order. */
static const double works[] = {0, DBL_TRUE_MIN, 1e-9, 1, 1e3, 1e9, 1e300, DBL_MAX};
#define NWORKS (sizeof works / sizeof *works)
/* ns per work the contract holds for (the grid's [grid] ns_per_work). */
static const double ns_per_work[] = {1e-3, 1, 1e3};
#define NNPW (sizeof ns_per_work / sizeof *ns_per_work)

/* A grid whose one cluster has a node type "t" of the model's example. */
static lbs_config *example_config(const lbs_speed_ops *ops, double npw) {
  char text[8192];
  const char *ex = ops->example ? ops->example : "";
  snprintf(
      text, sizeof text,
      "[grid]\nns_per_work = %.17g\n[nodetype t]\nspeed_model = %s\n%s%s[cluster A]\nnodes = 2\nnodetype = t\n",
      npw, ops->name, ex, *ex && ex[strlen(ex) - 1] != '\n' ? "\n" : "");
  lbs_config *c;
  cr_assert_eq(lbs_config_parse_string("example.ini", text, &c), LBS_OK, "%s: %s", ops->name,
               lbs_errmsg());
  return c;
}

static void *example_state(const lbs_speed_ops *ops, const lbs_config *c, double npw) {
  void *s = NULL;
  cr_assert_eq(ops->init(&s, c, "t", npw), LBS_OK, "%s: init from its example: %s", ops->name,
               lbs_errmsg());
  return s;
}

static void fini(const lbs_speed_ops *ops, void *s) {
  if (ops->fini) ops->fini(s);
}

ParameterizedTestParameters(speed_model, example_builds_a_grid) { return every_model(); }
ParameterizedTest(model *param, speed_model, example_builds_a_grid) {
  const lbs_speed_ops *ops = ops_of(param);
  cr_assert_eq(ops->abi, LBS_SPEED_ABI, "%s", ops->name);
  cr_assert_eq(lbs_speed_find(ops->name), ops, "%s is found by its name", ops->name);
  lbs_config *c = example_config(ops, 1);
  cr_assert_eq(lbs_config_check(c, lbs_grid_spec()), LBS_OK, "%s: %s", ops->name, lbs_errmsg());
  lbs_grid *g;
  cr_assert_eq(lbs_grid_from_config(c, &g), LBS_OK, "%s: %s", ops->name, lbs_errmsg());
  void *s = example_state(ops, c, 1);
  /* the grid asks its node type's model */
  for (size_t i = 0; i < NWORKS; i++)
    cr_assert_eq(lbs_grid_compute_ns(g, 1, works[i]), ops->time_ns(s, works[i]), "%s at work %g",
                 ops->name, works[i]);
  cr_assert(lbs_grid_rate(g, 0) == ops->rate(s), "%s", ops->name);
  fini(ops, s);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&c);
}

ParameterizedTestParameters(speed_model, times_are_not_negative) { return every_model(); }
ParameterizedTest(model *param, speed_model, times_are_not_negative) {
  const lbs_speed_ops *ops = ops_of(param);
  for (size_t k = 0; k < NNPW; k++) {
    lbs_config *c = example_config(ops, ns_per_work[k]);
    void *s = example_state(ops, c, ns_per_work[k]);
    for (size_t i = 0; i < NWORKS; i++)
      cr_assert_geq(ops->time_ns(s, works[i]), 0, "%s: time of work %g at %g ns/work", ops->name,
                    works[i], ns_per_work[k]);
    fini(ops, s);
    lbs_config_destroy(&c);
  }
}

ParameterizedTestParameters(speed_model, monotone_models_never_take_less_for_more) {
  return every_model();
}
ParameterizedTest(model *param, speed_model, monotone_models_never_take_less_for_more) {
  const lbs_speed_ops *ops = ops_of(param);
  if (!ops->monotone) cr_skip_test("%s does not declare itself monotone", ops->name);
  for (size_t k = 0; k < NNPW; k++) {
    lbs_config *c = example_config(ops, ns_per_work[k]);
    void *s = example_state(ops, c, ns_per_work[k]);
    int64_t prev = ops->time_ns(s, 0);
    double w = 0;
    for (size_t i = 1; i < NWORKS; i++) { /* the landmarks */
      int64_t t = ops->time_ns(s, works[i]);
      cr_assert_geq(t, prev, "%s: %g takes less than %g", ops->name, works[i], works[i - 1]);
      prev = t;
    }
    prev = ops->time_ns(s, 0);
    for (int i = 0; i <= 2000; i++, w = i) { /* unit steps, where rounding shows */
      int64_t t = ops->time_ns(s, w);
      cr_assert_geq(t, prev, "%s: %g takes less than %g", ops->name, w, w - 1);
      prev = t;
    }
    prev = ops->time_ns(s, 1e-12);
    for (int i = 1; i <= 600; i++) { /* 1e-12 .. 1e18, ten points a decade */
      w = pow(10, -12 + i / 10.0);
      int64_t t = ops->time_ns(s, w);
      cr_assert_geq(t, prev, "%s: %g takes less than the work a tenth of a decade below", ops->name,
                    w);
      prev = t;
    }
    fini(ops, s);
    lbs_config_destroy(&c);
  }
}

ParameterizedTestParameters(speed_model, deterministic) { return every_model(); }
ParameterizedTest(model *param, speed_model, deterministic) {
  const lbs_speed_ops *ops = ops_of(param);
  lbs_config *c = example_config(ops, 1), *c2 = example_config(ops, 1);
  /* two instances of one config, and one of the same text parsed again */
  void *a = example_state(ops, c, 1), *b = example_state(ops, c, 1), *d = example_state(ops, c2, 1);
  for (size_t i = 0; i < NWORKS; i++) {
    int64_t t = ops->time_ns(a, works[i]);
    cr_assert_eq(ops->time_ns(a, works[i]), t, "%s: the same call twice at work %g", ops->name,
                 works[i]);
    cr_assert_eq(ops->time_ns(b, works[i]), t, "%s: two instances of one config at work %g",
                 ops->name, works[i]);
    cr_assert_eq(ops->time_ns(d, works[i]), t, "%s: the config parsed again at work %g", ops->name,
                 works[i]);
  }
  for (int i = 0; i < 1000; i++) {
    double w = (double)i * 0.37;
    cr_assert_eq(ops->time_ns(b, w), ops->time_ns(a, w), "%s at work %g", ops->name, w);
  }
  double r = ops->rate(a);
  cr_assert(ops->rate(a) == r && ops->rate(b) == r && ops->rate(d) == r, "%s: rate", ops->name);
  fini(ops, a);
  fini(ops, b);
  fini(ops, d);
  lbs_config_destroy(&c);
  lbs_config_destroy(&c2);
}

ParameterizedTestParameters(speed_model, rate_is_positive_and_finite) { return every_model(); }
ParameterizedTest(model *param, speed_model, rate_is_positive_and_finite) {
  const lbs_speed_ops *ops = ops_of(param);
  for (size_t k = 0; k < NNPW; k++) {
    lbs_config *c = example_config(ops, ns_per_work[k]);
    void *s = example_state(ops, c, ns_per_work[k]);
    double r = ops->rate(s);
    cr_assert(r > 0 && isfinite(r), "%s: rate %g at %g ns/work", ops->name, r, ns_per_work[k]);
    fini(ops, s);
    lbs_config_destroy(&c);
  }
}

ParameterizedTestParameters(speed_model, fini_is_null_safe) { return every_model(); }
ParameterizedTest(model *param, speed_model, fini_is_null_safe) {
  const lbs_speed_ops *ops = ops_of(param);
  fini(ops, NULL);
}

/* Each key is one model's, documented, and listed by --help-config under the model's name. */
ParameterizedTestParameters(speed_model, keys_are_its_own_and_documented) { return every_model(); }
ParameterizedTest(model *param, speed_model, keys_are_its_own_and_documented) {
  const lbs_speed_ops *ops = ops_of(param);
  const lbs_section_spec *sp = lbs_grid_spec();
  while (sp->kind && strcmp(sp->kind, "nodetype")) sp++;
  cr_assert_not_null(sp->kind);
  for (const lbs_opt *k = ops->keys; k && k->key; k++) {
    cr_assert(k->help && *k->help, "%s: key '%s' has no help", ops->name, k->key);
    cr_assert(k->type >= LBS_OPT_INT && k->type <= LBS_OPT_STRING, "%s: key '%s'", ops->name,
              k->key);
    int found = 0;
    for (const lbs_opt *o = sp->opts; o->key; o++)
      if (!strcmp(o->key, k->key)) {
        found++;
        char prefix[128];
        snprintf(prefix, sizeof prefix, "%s: ", ops->name);
        cr_assert(!strncmp(o->help, prefix, strlen(prefix)), "%s: '%s' help '%s'", ops->name,
                  k->key, o->help);
      }
    cr_assert_eq(found, 1, "%s: key '%s' is in [nodetype] %d times", ops->name, k->key, found);
  }
}

Test(speed_model, includes_the_plugin) {
  cr_assert_eq(load_plugin(), LBS_OK, "%s", lbs_errmsg());
  const lbs_speed_ops *ops = lbs_speed_find("stepped");
  cr_assert_not_null(ops, "the plug-in's speed model is registered");
  cr_assert_eq(lbs_speed_at(lbs_speed_count() - 1), ops, "after the built-in ones");
  /* and a grid uses it, with its own keys */
  lbs_config *c;
  cr_assert_eq(
      lbs_config_parse_string(
          "g.ini",
          "[grid]\nns_per_work = 1\n[nodetype t]\nspeed_model = stepped\nstepped_chunk = 50\n"
          "[cluster A]\nnodes = 1\nnodetype = t\n",
          &c),
      LBS_OK);
  lbs_grid *g;
  cr_assert_eq(lbs_grid_from_config(c, &g), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_compute_ns(g, 0, 1), 50, "one unit runs as a block of 50");
  cr_assert_eq(lbs_grid_compute_ns(g, 0, 51), 100);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&c);
}
