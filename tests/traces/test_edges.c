/* test_edges.c - the edge rule (traces/edges.c): the check of a trace's meta with its messages,
 * the rule on a range of rows with ghosts against the whole graph's weights, stored weights
 * where there is no rule. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbs_traces.h"

static char path[64];
static void setup(void) {
  snprintf(path, sizeof path, "/tmp/lbs_edges_%d.lbt", (int)getpid());
  unlink(path);
}
static void teardown(void) { unlink(path); }

/* A directed 5-cycle with chords: i -> i+1 (flag 1), i -> i+3 (flag 0.5), mod 5. */
static const int64_t xadj[] = {0, 2, 4, 6, 8, 10};
static const int64_t adj[] = {1, 3, 2, 4, 3, 0, 4, 1, 0, 2};
static const double flag[] = {1, 0.5, 1, 0.5, 1, 0.5, 1, 0.5, 1, 0.5};

/* Two steps of metrics "work" and `metric2` (i + 1 + 10 s at step s) on the graph above, with
 * meta edge_weight = rule (none when NULL). */
static void write_trace(const char *rule, const char *metric2) {
  lbs_mesh *m;
  cr_assert_eq(lbs_mesh_create_unstructured(5, 0, NULL, xadj, adj, flag, 1, &m), LBS_OK, "%s",
               lbs_errmsg());
  const lbs_bound exact = {LBS_BOUND_LOSSLESS, 0};
  const lbs_metric_spec ms[] = {{"work", "ns", LBS_CODEC_LOSSLESS, exact, exact},
                                {metric2, "bodies", LBS_CODEC_LOSSLESS, exact, exact}};
  const char *meta[] = {"edge_weight", rule};
  lbs_trace_spec spec = {5, 0, 2, ms, m, rule ? 1 : 0, meta};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(path, &spec, &w), LBS_OK, "%s", lbs_errmsg());
  for (int s = 0; s < 2; s++) {
    double work[5], v[5];
    for (int i = 0; i < 5; i++) work[i] = 1, v[i] = i + 1 + 10 * s;
    const double *vals[] = {work, v};
    cr_assert_eq(lbs_trace_write_step(w, s, vals), LBS_OK, "%s", lbs_errmsg());
  }
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK);
  lbs_mesh_destroy(&m);
}

Test(edges, the_rule_weighs_each_arc_by_its_target, .init = setup, .fini = teardown) {
  write_trace(LBS_EDGE_RULE, "rwgt");
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK);
  cr_assert(lbs_trace_edge_weights_vary(t));
  int r;
  cr_assert_eq(lbs_trace_edge_rule_check(t, &r), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(r, 1, "the rwgt metric's index");
  double cw[10];
  cr_assert_eq(lbs_trace_edge_weights(t, 1, cw), LBS_OK, "%s", lbs_errmsg());
  for (int k = 0; k < 10; k++)
    cr_assert_eq(cw[k], flag[k] * (double)(adj[k] + 11), "arc %d: %g", k, cw[k]);
  lbs_trace_close(&t);
}

/* A rank's rows [2, 4) with its ghosts (targets 0, 1 and 4): what the whole graph gives them. */
Test(edges, rows_with_ghosts_match_the_whole_graph) {
  const double val[] = {3, 4}, gval[] = {1, 2, 5}, all[] = {1, 2, 3, 4, 5};
  const int64_t gid[] = {0, 1, 4};
  double part[4], whole[10];
  const lbs_edge_rows rows = {.first = 2,
                              .n = 2,
                              .xadj = xadj + 2,
                              .adj = adj,
                              .flag = flag,
                              .val = val,
                              .ng = 3,
                              .gid = gid,
                              .gval = gval};
  lbs_trace_edge_weights_rows(&rows, part);
  const lbs_edge_rows g = {.first = 0, .n = 5, .xadj = xadj, .adj = adj, .flag = flag, .val = all};
  lbs_trace_edge_weights_rows(&g, whole);
  for (int k = 0; k < 4; k++) cr_assert_eq(part[k], whole[4 + k], "arc %d of the rows", k);
  cr_assert_eq(part[0], 4.0 * 1, "2 -> 3");
  cr_assert_eq(part[1], 1.0 * 0.5, "2 -> 0, a ghost");
  /* without flags every arc weighs its target's value */
  const lbs_edge_rows nf = {.first = 2,
                            .n = 2,
                            .xadj = xadj + 2,
                            .adj = adj,
                            .val = val,
                            .ng = 3,
                            .gid = gid,
                            .gval = gval};
  lbs_trace_edge_weights_rows(&nf, part);
  cr_assert(part[0] == 4 && part[1] == 1 && part[2] == 5 && part[3] == 2);
}

Test(edges, without_a_rule_the_stored_weights, .init = setup, .fini = teardown) {
  write_trace(NULL, "rwgt");
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK);
  cr_assert_not(lbs_trace_edge_weights_vary(t));
  int r = 7;
  cr_assert_eq(lbs_trace_edge_rule_check(t, &r), LBS_OK);
  cr_assert_eq(r, -1);
  double cw[10];
  cr_assert_eq(lbs_trace_edge_weights(t, 0, cw), LBS_OK);
  cr_assert_arr_eq(cw, flag, sizeof cw);
  lbs_trace_close(&t);
}

Test(edges, an_unknown_rule_is_refused, .init = setup, .fini = teardown) {
  write_trace("flag*pwgt[source]", "rwgt");
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK);
  cr_assert_eq(lbs_trace_edge_rule_check(t, NULL), LBS_FORMAT);
  cr_assert_str_eq(
      lbs_errmsg(),
      "meta edge_weight = 'flag*pwgt[source]': the only rule lbsim knows is flag*rwgt[target]");
  double cw[10];
  cr_assert_eq(lbs_trace_edge_weights(t, 0, cw), LBS_FORMAT);
  lbs_trace_close(&t);
}

Test(edges, the_rule_needs_its_metric, .init = setup, .fini = teardown) {
  write_trace(LBS_EDGE_RULE, "bodies");
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK);
  int r = 7;
  cr_assert_eq(lbs_trace_edge_rule_check(t, &r), LBS_FORMAT);
  cr_assert_eq(r, -1);
  cr_assert_str_eq(lbs_errmsg(),
                   "meta edge_weight = flag*rwgt[target], but the trace has no rwgt metric");
  lbs_trace_close(&t);
}
