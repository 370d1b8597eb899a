/* test_minex.c - MinEX: the reassignment filter rule by rule, the model by hand, and the
 * partitioner's invariants on random directed graphs and heterogeneous grids. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_minex.h"

/* ---------------------------------------------------------------- the filter (slide 15) */

Test(filter, passes_a_move_that_evens_two_processors) {
  /* from 10 -> 8, to 4 -> 6, variance down, total unchanged */
  cr_assert_eq(lbs_minex_filter(10, 4, 8, 6, -16, 0, 1), LBS_MINEX_PASS);
}

Test(filter, rejects_a_source_that_gets_heavier) {
  cr_assert_eq(lbs_minex_filter(10, 4, 10.5, 6, -1, 0, 1), LBS_MINEX_FROM_GROWS);
  cr_assert_eq(lbs_minex_filter(10, 4, 10, 6, -1, 0, 1), LBS_MINEX_PASS); /* equal is not heavier */
}

Test(filter, rejects_a_target_that_gets_lighter) {
  cr_assert_eq(lbs_minex_filter(10, 4, 8, 3.5, -1, 0, 1), LBS_MINEX_TO_SHRINKS);
}

Test(filter, rejects_a_variance_increase) {
  cr_assert_eq(lbs_minex_filter(10, 4, 9, 5, 0.001, 0, 1), LBS_MINEX_VAR_GROWS);
  cr_assert_eq(lbs_minex_filter(10, 4, 9, 5, 0, 0, 1),
               LBS_MINEX_PASS); /* no change is not an increase */
}

Test(filter, throttle_bounds_the_load_a_move_may_add) {
  /* Gain 2: 2^2 / 8 = 0.5 passes throttle 1, fails throttle 0.4 */
  cr_assert_eq(lbs_minex_filter(10, 4, 8, 8, -8, 2, 1), LBS_MINEX_PASS);
  cr_assert_eq(lbs_minex_filter(10, 4, 8, 8, -8, 2, 0.4), LBS_MINEX_THROTTLE);
  /* a load-adding move that leaves the variance unchanged has an infinite ratio */
  cr_assert_eq(lbs_minex_filter(10, 4, 8, 8, 0, 2, 1e300), LBS_MINEX_THROTTLE);
  /* Gain <= 0 never meets the throttle */
  cr_assert_eq(lbs_minex_filter(10, 4, 8, 5, -8, -1, 0), LBS_MINEX_PASS);
}

Test(filter, rejects_an_overshoot_past_the_old_loads) {
  /* the gap grows (2 -> 8) and the source falls below the target's old load */
  cr_assert_eq(lbs_minex_filter(10, 8, 5, 13, -1, 0, 1), LBS_MINEX_OVERSHOOT);
  /* the gap grows and the target rises above the source's old load */
  cr_assert_eq(lbs_minex_filter(10, 8, 9, 12, -1, 0, 1e9), LBS_MINEX_OVERSHOOT);
  /* the gap grows but neither passes the other's old load: allowed */
  cr_assert_eq(lbs_minex_filter(10, 2, 9.5, 2.5, -1, 0, 1), LBS_MINEX_PASS);
  /* the order swaps but the gap shrinks: allowed */
  cr_assert_eq(lbs_minex_filter(10, 4, 6.5, 7.5, -1, 0, 1), LBS_MINEX_PASS);
}

/* ---------------------------------------------------------------- the model by hand */

/* Two clusters of one processor: p0 (1 ns/unit, cluster 0), p1 (2 ns/unit, cluster 1).
 * Connect: inside 1, between 10 ns per unit of CWgt; relocation between 100 ns per unit. */
static const int cl2[] = {0, 1};
static const double proc2[] = {1, 2}, conn2[] = {1, 10, 10, 1}, reloc2[] = {1, 100, 100, 1};
static const lbs_minex_ipg ipg2 = {2, 2, cl2, proc2, conn2, reloc2};

Test(model, qwgt_by_hand_on_a_directed_graph_with_zero_weights) {
  /* 0 -> 1 (3), 1 -> 0 (0), 1 -> 2 (5), 2 -> 1 (2) */
  int64_t xadj[] = {0, 1, 3, 4}, adj[] = {1, 0, 2, 1};
  double cw[] = {3, 0, 5, 2}, pw[] = {4, 6, 8}, rw[] = {1, 2, 3};
  int cur[] = {0, 0, 0}, part[] = {0, 0, 1};
  lbs_minex_graph g = {3, xadj, adj, cw, pw, rw, cur};
  lbs_minex_eval ev;
  double qw[2];
  cr_assert_eq(lbs_minex_evaluate(&g, &ipg2, NULL, NULL, part, qw, &ev), LBS_OK);
  /* p0: Wgt 4+6 = 10; Comm: 1 -> 2 crosses, 5 x 10 = 50. p1: Wgt 8 x 2 = 16; Comm 2 -> 1:
   * 2 x 10 = 20; Remap 3 x 100 = 300. */
  cr_assert_float_eq(qw[0], 60, 1e-12);
  cr_assert_float_eq(qw[1], 336, 1e-12);
  cr_assert_float_eq(ev.maxqwgt, 336, 1e-12);
  cr_assert_float_eq(ev.wsysll, 198, 1e-12);
  cr_assert_float_eq(ev.loadimb, 336.0 / 198, 1e-12);
  cr_assert_float_eq(ev.edge_cut, 3.5, 1e-12,
                     "the arcs 1 -> 2 (5) and 2 -> 1 (2) are one edge: their mean");
  cr_assert_eq(ev.moved, 1);
}

Test(model, the_cut_counts_each_undirected_edge_once) {
  /* a 4-cycle 0-1-2-3-0 stored both ways, unit weights, parts {0,1} {2,3}: METIS says 2 */
  int64_t xadj[] = {0, 2, 4, 6, 8}, adj[] = {1, 3, 0, 2, 1, 3, 2, 0};
  double cw[] = {1, 1, 1, 1, 1, 1, 1, 1}, pw[] = {1, 1, 1, 1}, rw[] = {1, 1, 1, 1};
  int cur[] = {0, 0, 1, 1}, part[] = {0, 0, 1, 1};
  lbs_minex_graph g = {4, xadj, adj, cw, pw, rw, cur};
  lbs_minex_eval ev;
  cr_assert_eq(lbs_minex_evaluate(&g, &ipg2, NULL, NULL, part, NULL, &ev), LBS_OK);
  cr_assert_float_eq(ev.edge_cut, 2, 1e-12);
}

static int calls;
static double half_hidden(void *user, const lbs_minex_ipg *ipg, const lbs_minex_tot *t) {
  (void)ipg;
  calls++;
  cr_assert_eq(*(int *)user, 42);
  double h = t->comm + t->remap - 0.5 * t->pproc;
  return t->pproc + (h > 0 ? h : 0);
}

Test(model, the_latency_function_sets_qwgt) {
  int64_t xadj[] = {0, 1, 3, 4}, adj[] = {1, 0, 2, 1};
  double cw[] = {3, 0, 5, 2}, pw[] = {4, 6, 8};
  int part[] = {0, 0, 1}, tag = 42;
  lbs_minex_graph g = {3, xadj, adj, cw, pw, NULL, NULL};
  double qw[2], f = 1;
  lbs_minex_eval ev;
  calls = 0;
  cr_assert_eq(lbs_minex_evaluate(&g, &ipg2, half_hidden, &tag, part, qw, &ev), LBS_OK);
  cr_assert_gt(calls, 0);
  /* p0: 10 + max(0, 50 - 5) = 55; p1: 16 + max(0, 20 - 8) = 28 */
  cr_assert_float_eq(qw[0], 55, 1e-12);
  cr_assert_float_eq(qw[1], 28, 1e-12);
  cr_assert_eq(lbs_minex_evaluate(&g, &ipg2, lbs_minex_latency_overlap, &f, part, qw, &ev), LBS_OK);
  cr_assert_float_eq(qw[0], 50, 1e-12); /* 10 + (50 - 10) */
  cr_assert_float_eq(qw[1], 20, 1e-12); /* 16 + (20 - 16) */
  /* and the partitioner calls it */
  lbs_minex_opts o = lbs_minex_defaults();
  o.latency = half_hidden, o.user = &tag;
  calls = 0;
  cr_assert_eq(lbs_minex_partition(&g, &ipg2, &o, part, NULL), LBS_OK);
  cr_assert_gt(calls, 0);
}

Test(model, work_goes_where_it_runs_fastest) {
  /* 12 equal isolated vertices on processors of speed 1 and 1/2: 8 and 4 */
  int64_t xadj[13] = {0};
  double pw[12];
  for (int i = 0; i < 12; i++) pw[i] = 1;
  int part[12];
  lbs_minex_graph g = {12, xadj, NULL, NULL, pw, NULL, NULL};
  lbs_minex_stats st;
  cr_assert_eq(lbs_minex_partition(&g, &ipg2, NULL, part, &st), LBS_OK);
  int n0 = 0;
  for (int i = 0; i < 12; i++) n0 += part[i] == 0;
  cr_assert_eq(n0, 8, "fast processor got %d of 12", n0);
  cr_assert_float_eq(st.maxqwgt, 8, 1e-12);
}

/* ---------------------------------------------------------------- invariants */

typedef struct {
  int64_t n, *xadj, *adj;
  double *cw, *pw, *rw;
  int *cur;
} rgraph;

static uint64_t rng = 88172645463325252ull;
static double urand(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

/* A random geometric directed graph: points in the unit cube, edges to close points, some
 * one-way, some of weight zero, a few isolated vertices. */
static rgraph random_graph(int64_t n, int P) {
  rgraph g = {n,
              calloc((size_t)n + 1, 8),
              malloc((size_t)n * 64 * 8),
              malloc((size_t)n * 64 * 8),
              malloc((size_t)n * 8),
              malloc((size_t)n * 8),
              malloc((size_t)n * sizeof(int))};
  double *x = malloc((size_t)n * 3 * 8), r = cbrt(12.0 / n);
  for (int64_t i = 0; i < 3 * n; i++) x[i] = urand();
  int64_t m = 0;
  for (int64_t v = 0; v < n; v++) {
    g.pw[v] = urand() < 0.05 ? 0 : 1 + 20 * urand();
    g.rw[v] = 1 + 3 * urand();
    g.cur[v] = (int)(x[3 * v] * P) % P;
    for (int64_t w = 0; w < n && m - g.xadj[v] < 60; w++) {
      if (w == v || v % 37 == 5 || w % 37 == 5) continue; /* isolated vertices */
      double d = 0;
      for (int k = 0; k < 3; k++)
        d += (x[3 * v + k] - x[3 * w + k]) * (x[3 * v + k] - x[3 * w + k]);
      if (d > r * r) continue;
      if ((v * 7 + w) % 11 == 0) continue; /* one-way: w -> v may exist without v -> w */
      g.adj[m] = w, g.cw[m++] = (v + w) % 5 == 0 ? 0 : floor(1 + 9 * urand());
    }
    g.xadj[v + 1] = m;
  }
  free(x);
  return g;
}

static void free_graph(rgraph *g) {
  free(g->xadj), free(g->adj), free(g->cw), free(g->pw), free(g->rw), free(g->cur);
}

typedef struct {
  int P, C, *cl;
  double *proc, *conn, *reloc;
} rgrid;

/* C clusters; cluster i has processing slowdown i+1; intra links fast, inter links I x slower */
static rgrid make_grid(int P, int C, double I, int up) {
  rgrid r = {P,
             C,
             malloc((size_t)P * sizeof(int)),
             malloc((size_t)P * 8),
             malloc((size_t)C * C * 8),
             malloc((size_t)C * C * 8)};
  for (int p = 0; p < P; p++) r.cl[p] = p * C / P, r.proc[p] = 1 + r.cl[p];
  for (int c = 0; c < C; c++)
    for (int d = 0; d < C; d++) {
      double s = c == d ? (up ? c + 1 : C - c) : I;
      r.conn[c * C + d] = 0.5 * s, r.reloc[c * C + d] = 2 * s;
    }
  return r;
}

static void free_grid(rgrid *r) { free(r->cl), free(r->proc), free(r->conn), free(r->reloc); }

static void check_invariants(int64_t n, int P, int C, double I, int diffusive) {
  rgraph rg = random_graph(n, P);
  rgrid gr = make_grid(P, C, I, 1);
  lbs_minex_ipg ipg = {P, C, gr.cl, gr.proc, gr.conn, gr.reloc};
  lbs_minex_graph g = {n, rg.xadj, rg.adj, rg.cw, rg.pw, rg.rw, rg.cur};
  lbs_minex_opts o = lbs_minex_defaults();
  o.diffusive = diffusive;
  int *part = malloc((size_t)n * sizeof *part), *again = malloc((size_t)n * sizeof *again);
  for (int64_t v = 0; v < n; v++) part[v] = again[v] = -1;
  lbs_minex_stats st, st2;
  cr_assert_eq(lbs_minex_partition(&g, &ipg, &o, part, &st), LBS_OK, "%s", lbs_errmsg());
  for (int64_t v = 0; v < n; v++)
    cr_assert(part[v] >= 0 && part[v] < P, "vertex %lld unassigned", (long long)v);
  /* refinement never raises MaxQWgt, at any level */
  cr_assert_gt(st.levels, 0);
  for (int l = 0; l < st.levels; l++)
    cr_assert_leq(st.level_after[l], st.level_before[l] * (1 + 1e-9), "level %d: %g -> %g", l,
                  st.level_before[l], st.level_after[l]);
  /* the projection down the hierarchy keeps the loads exactly */
  for (int l = 1; l < st.levels; l++)
    cr_assert_float_eq(st.level_before[l], st.level_after[l - 1], 1e-9 * st.level_after[l - 1]);
  /* what it reports is what the model says of its answer */
  lbs_minex_eval ev;
  cr_assert_eq(lbs_minex_evaluate(&g, &ipg, NULL, NULL, part, NULL, &ev), LBS_OK);
  cr_assert_float_eq(ev.maxqwgt, st.maxqwgt, 1e-9 * ev.maxqwgt);
  cr_assert_float_eq(ev.loadimb, st.loadimb, 1e-9);
  /* every move made passed the filter */
  cr_assert_leq(st.accepted + st.failed, st.passed);
  int64_t rej = 0;
  for (int r = 1; r < LBS_MINEX_NREASONS; r++) rej += st.rejected[r];
  cr_assert_eq(rej + st.passed, st.considered);
  /* deterministic */
  cr_assert_eq(lbs_minex_partition(&g, &ipg, &o, again, &st2), LBS_OK);
  cr_assert_arr_eq(part, again, (size_t)n * sizeof *part);
  /* diffusive: never worse than where it started */
  if (diffusive) {
    lbs_minex_eval ev0;
    cr_assert_eq(lbs_minex_evaluate(&g, &ipg, NULL, NULL, rg.cur, NULL, &ev0), LBS_OK);
    cr_assert_leq(ev.maxqwgt, ev0.maxqwgt * (1 + 1e-12));
  }
  free(part), free(again);
  free_graph(&rg), free_grid(&gr);
}

Test(invariants, from_scratch_small) { check_invariants(300, 4, 2, 10, 0); }
Test(invariants, from_scratch_many_procs) { check_invariants(2000, 64, 4, 100, 0); }
Test(invariants, diffusive) { check_invariants(2000, 16, 4, 10, 1); }
Test(invariants, one_processor) { check_invariants(50, 1, 1, 1, 0); }
Test(invariants, as_many_processors_as_vertices) { check_invariants(40, 40, 4, 10, 0); }

Test(quality, beats_equal_blocks_on_a_heterogeneous_grid) {
  int64_t n = 3000;
  int P = 16, C = 4;
  rgraph rg = random_graph(n, P);
  rgrid gr = make_grid(P, C, 100, 1);
  lbs_minex_ipg ipg = {P, C, gr.cl, gr.proc, gr.conn, gr.reloc};
  lbs_minex_graph g = {n, rg.xadj, rg.adj, rg.cw, rg.pw, rg.rw, NULL};
  int *part = malloc((size_t)n * sizeof *part), *block = malloc((size_t)n * sizeof *block);
  for (int64_t v = 0; v < n; v++) block[v] = rg.cur[v]; /* equal slabs along x */
  lbs_minex_stats st;
  lbs_minex_eval eb;
  cr_assert_eq(lbs_minex_partition(&g, &ipg, NULL, part, &st), LBS_OK);
  cr_assert_eq(lbs_minex_evaluate(&g, &ipg, NULL, NULL, block, NULL, &eb), LBS_OK);
  cr_assert_lt(st.maxqwgt, 0.6 * eb.maxqwgt, "minex %g, slabs %g", st.maxqwgt, eb.maxqwgt);
  cr_assert_lt(st.loadimb, 1.3, "LoadImb %g", st.loadimb);
  free(part), free(block);
  free_graph(&rg), free_grid(&gr);
}

/* ---------------------------------------------------------------- bad input */

static void expect_inval(const lbs_minex_graph *g, const lbs_minex_ipg *ipg, const char *what) {
  int part[8];
  cr_assert_eq(lbs_minex_partition(g, ipg, NULL, part, NULL), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), what), "message '%s' lacks '%s'", lbs_errmsg(), what);
  lbs_minex_eval ev;
  int zero[8] = {0};
  cr_assert_eq(lbs_minex_evaluate(g, ipg, NULL, NULL, zero, NULL, &ev), LBS_INVAL);
}

Test(bad_input, clear_errors) {
  int64_t xadj[] = {0, 1, 2, 3}, adj[] = {1, 2, 0}, loop[] = {1, 1, 0};
  double cw[] = {1, 1, 1}, neg[] = {1, -1, 1}, pw[] = {1, 1, 1}, npw[] = {1, NAN, 1};
  int badcur[] = {0, 5, 0};
  lbs_minex_graph g = {3, xadj, loop, cw, pw, NULL, NULL};
  expect_inval(&g, &ipg2, "vertex 1 has a self loop");
  g.adj = adj, g.cwgt = neg;
  expect_inval(&g, &ipg2, "edge 1 -> 2 has weight -1");
  g.cwgt = cw, g.pwgt = npw;
  expect_inval(&g, &ipg2, "vertex 1 has processing weight nan");
  g.pwgt = pw, g.current = badcur;
  expect_inval(&g, &ipg2, "vertex 1 is on processor 5 of 2");
  g.current = NULL, g.n = 1;
  expect_inval(&g, &ipg2, "more processors (2) than vertices (1)");
  g.n = 3;
  int badcl[] = {0, 3};
  lbs_minex_ipg bad = ipg2;
  bad.cluster = badcl;
  expect_inval(&g, &bad, "processor 1 is in cluster 3 of 2");
}

/* ---------------------------------------------------------------- latency functions by name */

#include <stdio.h>
#include <unistd.h>

#include "lbs_config.h"

/* A script written to a temporary file; the path is static storage. */
static const char *script(const char *text) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/lbs_test_latency_XXXXXX.lua");
  int fd = mkstemps(path, 4);
  cr_assert_geq(fd, 0);
  FILE *f = fdopen(fd, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
  return path;
}

/* Partitions a random graph under the latency function spec: its parts and MaxQWgt. */
static lbs_err partition_with(const char *spec, int **parts, double *maxq) {
  rng = 88172645463325252ull;
  rgraph rg = random_graph(600, 8);
  rgrid r = make_grid(8, 2, 30, 0);
  lbs_minex_graph g = {rg.n, rg.xadj, rg.adj, rg.cw, rg.pw, rg.rw, rg.cur};
  lbs_minex_ipg ipg = {r.P, r.C, r.cl, r.proc, r.conn, r.reloc};
  lbs_minex_latency *l = NULL;
  lbs_err e = lbs_minex_latency_create(spec, NULL, &l);
  cr_assert_eq(e, LBS_OK, "%s: %s", spec, lbs_errmsg());
  lbs_minex_opts o = lbs_minex_defaults();
  lbs_minex_latency_apply(l, &o);
  lbs_minex_stats st;
  *parts = malloc((size_t)rg.n * sizeof **parts);
  if (!(e = lbs_minex_latency_begin(l, &ipg)))
    e = lbs_minex_latency_why(l, lbs_minex_partition(&g, &ipg, &o, *parts, &st));
  *maxq = st.maxqwgt;
  lbs_minex_latency_destroy(&l);
  cr_assert_null(l);
  free_graph(&rg), free_grid(&r);
  return e;
}

static const char overlap_lua[] =
    "local F\n"
    "function init(args) F = tonumber(args) end\n"
    "function latency(ipg, tot)\n"
    "  assert(ipg.P == 8 and ipg.C == 2 and #ipg.proc == 8 and ipg.cluster[8] == 2)\n"
    "  assert(ipg.connect[1][2] == 15 and ipg.relocate[2][1] == 60 and tot.p >= 1 and tot.p <= 8)\n"
    "  local hidden = tot.comm + tot.remap - F * tot.pproc\n"
    "  return tot.pproc + (hidden > 0 and hidden or 0)\n"
    "end\n";

Test(latency, lua_overlap_partitions_as_the_builtin_overlap) {
  char spec[128], path[64];
  snprintf(path, sizeof path, "%s", script(overlap_lua));
  snprintf(spec, sizeof spec, "lua:%s:0.25", path);
  int *a, *b, *c;
  double qa, qb, qc;
  cr_assert_eq(partition_with("overlap:0.25", &a, &qa), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(partition_with(spec, &b, &qb), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(partition_with("none", &c, &qc), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(memcmp(a, b, 600 * sizeof *a), 0, "the Lua overlap decides as the built-in");
  cr_assert_eq(qa, qb);
  cr_assert_neq(memcmp(a, c, 600 * sizeof *a), 0,
                "overlap changes the partition (else the test shows nothing)");
  cr_assert_lt(qa, qc, "hiding communication lowers the projected time");
  free(a), free(b), free(c);
  unlink(path);
}

/* The script's failure, kept, stops MinEX with the script's own message. */
static void expect_script_failure(const char *text, const char *want) {
  char spec[128];
  snprintf(spec, sizeof spec, "lua:%s", script(text));
  int *p;
  double q;
  cr_assert_eq(partition_with(spec, &p, &q), LBS_INVAL, "%s", text);
  cr_assert(strstr(lbs_errmsg(), "minex latency lua:/tmp/lbs_test_latency_") &&
                strstr(lbs_errmsg(), want),
            "%s", lbs_errmsg());
  free(p);
  unlink(spec + 4);
}

Test(latency, a_failing_script_stops_minex_with_its_message) {
  expect_script_failure(
      "function latency(ipg, tot)\n  if tot.p == 3 then error('boom') end\n  return tot.pproc\nend\n",
      ".lua:2: boom (processor 3)");
  expect_script_failure("function latency(ipg, tot)\n  return 'x'\nend\n",
                        ".lua:1: latency must return a finite number, not string (processor 1)");
  expect_script_failure("function latency(ipg, tot)\n  return 0/0\nend\n",
                        "latency must return a finite number, not");
  expect_script_failure("function latency(ipg, tot)\n  while true do end\nend\n",
                        ".lua:2: ran past its budget of 10000000 instructions per call");
  expect_script_failure("function latency(ipg, tot)\n  return os.time()\nend\n", "global 'os'");
}

Test(latency, bad_specs_are_refused_with_their_usage) {
  lbs_minex_latency *l = NULL;
  cr_assert_eq(lbs_minex_latency_create("overlp:0.5", "g.ini:3", &l), LBS_NOTFOUND);
  cr_assert(strstr(lbs_errmsg(), "g.ini:3: unknown latency function 'overlp:0.5'") &&
                strstr(lbs_errmsg(), "did you mean 'overlap'?"),
            "%s", lbs_errmsg());
  cr_assert_eq(lbs_minex_latency_create("overlap:1.5", NULL, &l), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "needs 0 <= F <= 1 (expected overlap:F (0 <= F <= 1))"), "%s",
            lbs_errmsg());
  cr_assert_eq(lbs_minex_latency_create("none:1", NULL, &l), LBS_INVAL);
  cr_assert_eq(lbs_minex_latency_create("lua", NULL, &l), LBS_INVAL);
  cr_assert_eq(lbs_minex_latency_create("lua:/nonexistent/x.lua", NULL, &l), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "minex latency lua:/nonexistent/x.lua: cannot open it"), "%s",
            lbs_errmsg());
  const char *p = script("function lat(ipg, tot) return 1 end\n");
  char spec[128];
  snprintf(spec, sizeof spec, "lua:%s", p);
  cr_assert_eq(lbs_minex_latency_create(spec, NULL, &l), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "defines no function latency(ipg, tot)"), "%s", lbs_errmsg());
  unlink(p);
  cr_assert_null(l);
}

Test(latency, a_relative_script_is_found_beside_the_file_that_names_it) {
  char dir[] = "/tmp/lbs_test_latdir_XXXXXX", path[128], ini[160];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/o.lua", dir);
  FILE *f = fopen(path, "w");
  fputs(overlap_lua, f);
  fclose(f);
  snprintf(ini, sizeof ini, "%s/g.ini:7", dir);
  lbs_minex_latency *l = NULL;
  cr_assert_eq(lbs_minex_latency_create("lua:o.lua:0.5", ini, &l), LBS_OK, "%s", lbs_errmsg());
  char want[200];
  snprintf(want, sizeof want, "lua:%s:0.5", path);
  cr_assert_str_eq(lbs_minex_latency_spec(l), want);
  lbs_minex_latency_destroy(&l);
  /* a command-line override ("g.ini (command line)") is relative to the working directory */
  cr_assert_eq(lbs_minex_latency_create("lua:o.lua:0.5", "g.ini (command line)", &l), LBS_INVAL);
  unlink(path), rmdir(dir);
}

Test(latency, config_takes_latency_or_latency_tolerance_not_both) {
  lbs_config *c;
  lbs_minex_latency *l = (lbs_minex_latency *)1;
  cr_assert_eq(lbs_config_parse_string("g.ini", "[minex]\nlatency_tolerance = 0.3\n", &c), LBS_OK);
  cr_assert_eq(lbs_minex_latency_from_config(c, &l), LBS_OK, "%s", lbs_errmsg());
  cr_assert_str_eq(lbs_minex_latency_spec(l), "overlap:0.29999999999999999");
  lbs_minex_latency_destroy(&l);
  lbs_config_destroy(&c);
  cr_assert_eq(lbs_config_parse_string("g.ini", "[minex]\nlatency = none\n", &c), LBS_OK);
  cr_assert_eq(lbs_minex_latency_from_config(c, &l), LBS_OK);
  cr_assert_null(l, "none is the default: no function");
  lbs_config_destroy(&c);
  cr_assert_eq(lbs_config_parse_string(
                   "g.ini", "[minex]\nlatency = overlap:0.5\nlatency_tolerance = 0.3\n", &c),
               LBS_OK);
  cr_assert_eq(lbs_minex_latency_from_config(c, &l), LBS_INVAL);
  cr_assert(
      strstr(lbs_errmsg(), "g.ini:2: [minex] gives both latency and latency_tolerance; give one"),
      "%s", lbs_errmsg());
  lbs_config_destroy(&c);
}

static double twice(void *user, const lbs_minex_ipg *ipg, const lbs_minex_tot *t) {
  (void)user, (void)ipg;
  return 2 * (t->pproc + t->comm + t->remap);
}
static lbs_err twice_create(void **user, const char *args) {
  (void)args;
  *user = NULL;
  return LBS_OK;
}

Test(latency, the_registry_takes_a_new_function_and_refuses_clashes) {
  static const lbs_minex_latency_ops mine = {.abi = LBS_MINEX_LATENCY_ABI,
                                             .name = "twice",
                                             .usage = "twice",
                                             .example = "twice",
                                             .create = twice_create,
                                             .latency = twice};
  static const lbs_minex_latency_ops clash = {.abi = LBS_MINEX_LATENCY_ABI,
                                              .name = "overlap",
                                              .usage = "overlap",
                                              .create = twice_create,
                                              .latency = twice};
  static const lbs_minex_latency_ops old = {.abi = LBS_MINEX_LATENCY_ABI + 1,
                                            .name = "old",
                                            .usage = "old",
                                            .create = twice_create,
                                            .latency = twice};
  int n = lbs_minex_latency_count();
  cr_assert_eq(n, 3, "none, overlap, lua");
  cr_assert_eq(lbs_minex_latency_register(&mine), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_minex_latency_register(&clash), LBS_INVAL);
  cr_assert_eq(lbs_minex_latency_register(&old), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "ABI"), "%s", lbs_errmsg());
  cr_assert_eq(lbs_minex_latency_count(), n + 1);
  cr_assert_eq(lbs_minex_latency_at(n), &mine);
  cr_assert(strstr(lbs_minex_latency_known(), "twice"), "%s", lbs_minex_latency_known());
  int *a;
  double q2, q1;
  int *b;
  cr_assert_eq(partition_with("twice", &a, &q2), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(partition_with("none", &b, &q1), LBS_OK);
  cr_assert_float_eq(q2, 2 * q1, 1e-9 * q1, "the registered function sets QWgt");
  free(a), free(b);
}
