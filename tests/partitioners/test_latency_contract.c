/* test_latency_contract.c - the contract every registered MinEX latency-tolerance function
 * keeps, run over the registry with a plug-in's (tests/plugins/extras.c, `hidden`) loaded as
 * lbsim --plugin loads it, lua's example on examples/minex/overlap.lua (LBS_MINEX_LATENCY_SCRIPT:
 * its path from the source tree): created from its example;
 * QWgt finite, never decreasing as a total grows, the same for the same
 * totals; MinEX partitions with it into valid parts, the same twice; destroy NULL-safe. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_minex.h"
#include "lbs_plugin_load.h"

#define MAX_FUNCS 64

/* The plug-in's registration lives in the process that loaded it: the runner builds the
 * parameters, and each test runs in a process of its own, so both load it (once each). */
static lbs_err load_plugin(void) {
  static int loaded;
  if (loaded) return LBS_OK;
  lbs_err e = lbs_plugin_load(LBS_TEST_PLUGIN_EXTRAS);
  loaded = !e;
  return e;
}

typedef struct {
  char name[64];
} func;

static struct criterion_test_params every_function(void) {
  static func fs[MAX_FUNCS];
  if (load_plugin()) fprintf(stderr, "test_latency_contract: %s\n", lbs_errmsg());
  int n = lbs_minex_latency_count() < MAX_FUNCS ? lbs_minex_latency_count() : MAX_FUNCS;
  for (int i = 0; i < n; i++)
    snprintf(fs[i].name, sizeof fs[i].name, "%s", lbs_minex_latency_at(i)->name);
  return cr_make_param_array(func, fs, (size_t)n);
}

/* The instance the contract runs: its example (a script's taken from the source tree), or its
 * name when it has none. */
static lbs_minex_latency *instance(const func *f) {
  cr_assert_eq(load_plugin(), LBS_OK, "%s", lbs_errmsg());
  const lbs_minex_latency_ops *ops = NULL;
  for (int i = 0; i < lbs_minex_latency_count(); i++)
    if (!strcmp(lbs_minex_latency_at(i)->name, f->name)) ops = lbs_minex_latency_at(i);
  cr_assert_not_null(ops, "latency function '%s' is registered in the test's process", f->name);
  cr_assert_eq(ops->abi, LBS_MINEX_LATENCY_ABI);
  char spec[4096];
  size_t n = strlen(ops->name);
  if (ops->flags & LBS_MINEX_LATENCY_SCRIPT) { /* NAME:PATH[:ARGS], PATH in the source tree */
    cr_assert(ops->example && !strncmp(ops->example, ops->name, n) && ops->example[n] == ':' &&
                  ops->example[n + 1] != '/',
              "%s: a script's example is NAME:PATH[:ARGS], the path relative", ops->name);
    snprintf(spec, sizeof spec, "%.*s:%s/%s", (int)n, ops->example, LBS_SOURCE_DIR,
             ops->example + n + 1);
  } else {
    snprintf(spec, sizeof spec, "%s", ops->example ? ops->example : ops->name);
  }
  lbs_minex_latency *l = NULL;
  cr_assert_eq(lbs_minex_latency_create(spec, NULL, &l), LBS_OK, "%s: %s", spec, lbs_errmsg());
  cr_assert_not_null(l);
  return l;
}

/* Two clusters of two processors. */
static const int cl[] = {0, 0, 1, 1};
static const double proc[] = {1, 1, 2, 2}, conn[] = {1, 20, 20, 1};
static const lbs_minex_ipg ipg = {4, 2, cl, proc, conn, NULL};

static double q(lbs_minex_latency *l, double pproc, double comm, double remap, int64_t qlen) {
  lbs_minex_opts o = lbs_minex_defaults();
  lbs_minex_latency_apply(l, &o);
  lbs_minex_tot t = {2, pproc, comm, remap, qlen};
  return o.latency(o.user, &ipg, &t);
}

static const double totals[] = {0, 1e-3, 1, 7.5, 1e3, 1e9};
#define NT (sizeof totals / sizeof *totals)

ParameterizedTestParameters(latency_contract, finite_monotone_and_deterministic) {
  return every_function();
}
ParameterizedTest(func *f, latency_contract, finite_monotone_and_deterministic) {
  lbs_minex_latency *l = instance(f);
  cr_assert_eq(lbs_minex_latency_begin(l, &ipg), LBS_OK, "%s", lbs_errmsg());
  for (size_t a = 0; a < NT; a++)
    for (size_t b = 0; b < NT; b++)
      for (size_t c = 0; c < NT; c++) {
        double v = q(l, totals[a], totals[b], totals[c], 10);
        cr_assert(isfinite(v), "%s(%g, %g, %g) = %g", f->name, totals[a], totals[b], totals[c], v);
        cr_assert_eq(q(l, totals[a], totals[b], totals[c], 10), v, "%s is deterministic", f->name);
        /* "must not decrease when a total grows" (lbs_minex.h) */
        if (a + 1 < NT)
          cr_assert_geq(q(l, totals[a + 1], totals[b], totals[c], 10), v, "%s in Wgt", f->name);
        if (b + 1 < NT)
          cr_assert_geq(q(l, totals[a], totals[b + 1], totals[c], 10), v, "%s in Comm", f->name);
        if (c + 1 < NT)
          cr_assert_geq(q(l, totals[a], totals[b], totals[c + 1], 10), v, "%s in Remap", f->name);
      }
  lbs_minex_latency_destroy(&l);
  cr_assert_null(l);
  lbs_minex_latency_destroy(&l);
  lbs_minex_latency_destroy(NULL);
}

/* A ring of n vertices with a chord every 7, all on processor 0 now. */
static void ring(int64_t n, int64_t *xadj, int64_t *adj, double *pw, int *cur) {
  int64_t m = 0;
  for (int64_t v = 0; v < n; v++) {
    xadj[v] = m;
    adj[m++] = (v + 1) % n;
    adj[m++] = (v + n - 1) % n;
    adj[m++] = (v + 7) % n;
    pw[v] = 1 + (double)(v % 5);
    cur[v] = 0;
  }
  xadj[n] = m;
}

ParameterizedTestParameters(latency_contract, minex_partitions_with_it) { return every_function(); }
ParameterizedTest(func *f, latency_contract, minex_partitions_with_it) {
  enum { N = 200 };
  static int64_t xadj[N + 1], adj[3 * N];
  static double pw[N];
  static int cur[N], a[N], b[N];
  ring(N, xadj, adj, pw, cur);
  lbs_minex_graph g = {N, xadj, adj, NULL, pw, NULL, cur};
  int *out[2] = {a, b};
  for (int k = 0; k < 2; k++) {
    lbs_minex_latency *l = instance(f);
    lbs_minex_opts o = lbs_minex_defaults();
    lbs_minex_latency_apply(l, &o);
    lbs_err e = lbs_minex_latency_begin(l, &ipg);
    if (!e) e = lbs_minex_latency_why(l, lbs_minex_partition(&g, &ipg, &o, out[k], NULL));
    cr_assert_eq(e, LBS_OK, "%s: %s", f->name, lbs_errmsg());
    lbs_minex_latency_destroy(&l);
  }
  for (int v = 0; v < N; v++)
    cr_assert(a[v] >= 0 && a[v] < 4, "%s: vertex %d on %d", f->name, v, a[v]);
  cr_assert_eq(memcmp(a, b, sizeof a), 0, "%s: the same parts twice", f->name);
}

Test(latency_contract, includes_the_plugin) {
  cr_assert_eq(load_plugin(), LBS_OK, "%s", lbs_errmsg());
  int n = lbs_minex_latency_count();
  cr_assert_str_eq(lbs_minex_latency_at(n - 1)->name, "hidden",
                   "the plug-in's function, after the built-in ones");
  lbs_minex_latency *l = NULL;
  cr_assert_eq(lbs_minex_latency_create("hidden:0.5", "g.ini:4", &l), LBS_INVAL);
  cr_assert(
      strstr(
          lbs_errmsg(),
          "g.ini:4: latency 'hidden:0.5': needs F >= 1 (got '0.5') (expected hidden[:F] (F >= 1))"),
      "%s", lbs_errmsg());
  cr_assert_eq(lbs_minex_latency_create("hidden", NULL, &l), LBS_OK, "%s", lbs_errmsg());
  cr_assert_float_eq(q(l, 10, 4, 3, 1), 10, 1e-12, "communication hides behind processing");
  cr_assert_float_eq(q(l, 10, 8, 3, 1), 11, 1e-12, "until there is more of it");
  lbs_minex_latency_destroy(&l);
}
