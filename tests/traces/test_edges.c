/* test_edges.c - the edge rule (traces/edges.c): the check of a trace's meta with its messages,
 * the rule on a range of rows with ghosts against the whole graph's weights, stored weights
 * where there is no rule; weights stored per step (stored@step), read at each step, and
 * verified with the rest of the file (lbs_trace_verify, `lbsim trace check`). */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
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
      "meta edge_weight = 'flag*pwgt[source]': the rules lbsim knows are flag*rwgt[target] and "
      "stored@step");
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

/* Weights stored per step (edge_weight = stored@step): 4 steps on the graph above, arrays at
 * steps 1 and 3 (arc k weighs 100 s + k); step 0 weighs the mesh's flags, step 2 step 1's. */
static void write_stored(void) {
  lbs_mesh *m;
  cr_assert_eq(lbs_mesh_create_unstructured(5, 0, NULL, xadj, adj, flag, 1, &m), LBS_OK);
  const lbs_bound exact = {LBS_BOUND_LOSSLESS, 0};
  const lbs_metric_spec ms[] = {{"work", "ns", LBS_CODEC_LOSSLESS, exact, exact}};
  const char *meta[] = {"edge_weight", LBS_EDGE_STEPS};
  lbs_trace_spec spec = {5, 0, 1, ms, m, 1, meta};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(path, &spec, &w), LBS_OK, "%s", lbs_errmsg());
  double cw[10];
  for (int s = 0; s < 4; s++) {
    double work[5] = {1, 1, 1, 1, 1};
    const double *vals[] = {work};
    cr_assert_eq(lbs_trace_write_step(w, s, vals), LBS_OK, "%s", lbs_errmsg());
    for (int k = 0; k < 10; k++) cw[k] = 100.0 * s + k;
    if (s % 2) cr_assert_eq(lbs_trace_write_edge_weights(w, s, cw), LBS_OK, "%s", lbs_errmsg());
  }
  /* refused: a negative or NaN weight (naming the arc), a negative step */
  cw[7] = -1;
  cr_assert_eq(lbs_trace_write_edge_weights(w, 2, cw), LBS_INVAL);
  cr_assert_str_eq(lbs_errmsg(), "edge weights at step 2: arc 7 weighs -1 (finite and >= 0 only)");
  cw[7] = NAN;
  cr_assert_eq(lbs_trace_write_edge_weights(w, 2, cw), LBS_INVAL);
  cw[7] = 7;
  cr_assert_eq(lbs_trace_write_edge_weights(w, -1, cw), LBS_INVAL);
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK);
  lbs_mesh_destroy(&m);
}

Test(edges, weights_stored_per_step_are_read_at_each_step, .init = setup, .fini = teardown) {
  write_stored();
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert(lbs_trace_edge_weights_vary(t) && lbs_trace_edge_weights_stored(t));
  int r;
  cr_assert_eq(lbs_trace_edge_rule_check(t, &r), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(r, -1, "no metric to read");
  static const int64_t in_force[4] = {-1, 1, 1, 3};
  for (int s = 0; s < 4; s++) {
    double cw[10];
    cr_assert_eq(lbs_trace_edge_weights(t, s, cw), LBS_OK, "%s", lbs_errmsg());
    for (int k = 0; k < 10; k++) {
      double want = in_force[s] < 0 ? flag[k] : 100.0 * (double)in_force[s] + k;
      cr_assert_eq(cw[k], want, "step %d arc %d: %g", s, k, cw[k]);
    }
    /* a rank's rows: arcs [4, 7) */
    double part[3];
    int64_t from;
    cr_assert_eq(lbs_trace_edge_weights_slice(t, s, 4, 3, part, &from), LBS_OK);
    cr_assert_eq(from, in_force[s]);
    for (int k = 0; k < 3; k++) cr_assert_eq(part[k], cw[4 + k]);
  }
  double x[10];
  int64_t from;
  cr_assert_eq(lbs_trace_edge_weights_slice(t, 4, 0, 10, x, &from), LBS_RANGE, "past the steps");
  cr_assert_eq(lbs_trace_edge_weights_slice(t, 0, 8, 3, x, &from), LBS_RANGE, "past the arcs");
  /* trace recode keeps them, at the same steps */
  char out[80];
  snprintf(out, sizeof out, "%s.recoded", path);
  unlink(out);
  cr_assert_eq(lbs_trace_recode(t, path, NULL, 0, NULL, 0, out, NULL, NULL, NULL), LBS_OK, "%s",
               lbs_errmsg());
  lbs_trace *o;
  cr_assert_eq(lbs_trace_open(out, &o), LBS_OK, "%s", lbs_errmsg());
  cr_assert(lbs_trace_edge_weights_stored(o));
  for (int s = 0; s < 4; s++) {
    double a[10], b[10];
    int64_t fa, fb;
    cr_assert_eq(lbs_trace_edge_weights_slice(t, s, 0, 10, a, &fa), LBS_OK);
    cr_assert_eq(lbs_trace_edge_weights_slice(o, s, 0, 10, b, &fb), LBS_OK, "%s", lbs_errmsg());
    cr_assert(fa == fb && !memcmp(a, b, sizeof a), "step %d: recoded from %lld, not %lld", s,
              (long long)fb, (long long)fa);
  }
  lbs_trace_close(&o);
  unlink(out);
  lbs_trace_close(&t);
}

Test(edges, weights_per_step_need_the_trace_to_say_so, .init = setup, .fini = teardown) {
  lbs_mesh *m;
  cr_assert_eq(lbs_mesh_create_unstructured(5, 0, NULL, xadj, adj, flag, 1, &m), LBS_OK);
  const lbs_bound exact = {LBS_BOUND_LOSSLESS, 0};
  const lbs_metric_spec ms[] = {{"work", "ns", LBS_CODEC_LOSSLESS, exact, exact}};
  lbs_trace_spec spec = {5, 0, 1, ms, m, 0, NULL};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(path, &spec, &w), LBS_OK, "%s", lbs_errmsg());
  double cw[10] = {0};
  cr_assert_eq(lbs_trace_write_edge_weights(w, 0, cw), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "not created with meta edge_weight = stored@step"), "%s",
            lbs_errmsg());
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK);
  lbs_mesh_destroy(&m);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK);
  int64_t from;
  cr_assert_eq(lbs_trace_edge_weights_slice(t, 0, 0, 10, cw, &from), LBS_INVAL);
  lbs_trace_close(&t);
}

/* Runs sql on the trace file, then verifies it: the error's code, its message in *msg. */
static lbs_err verify_after(const char *sql, char *msg, size_t len) {
  sqlite3 *db;
  cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
  cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
  sqlite3_close(db);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK, "%s", lbs_errmsg());
  lbs_err e = lbs_trace_verify(t, NULL, NULL);
  snprintf(msg, len, "%s", e ? lbs_errmsg() : "");
  lbs_trace_close(&t);
  return e;
}

Test(edges, verify_reads_every_array_of_weights, .init = setup, .fini = teardown) {
  write_stored();
  char msg[512];
  cr_assert_eq(verify_after("SELECT 1", msg, sizeof msg), LBS_OK, "%s", msg);
  /* an array at a step the trace does not have */
  cr_assert_eq(
      verify_after("UPDATE arrays SET name='edgew@9' WHERE name='edgew@3'", msg, sizeof msg),
      LBS_CORRUPT);
  cr_assert(strstr(msg, "edge weights at step 9, past the trace's 4 steps"), "%s", msg);
  /* an array whose bytes changed: its checksum, named */
  cr_assert_eq(
      verify_after("UPDATE arrays SET name='edgew@3' WHERE name='edgew@9';"
                   "UPDATE arrays SET crc32 = crc32 + 1 - 2 * (crc32 & 1) WHERE name='edgew@1'",
                   msg, sizeof msg),
      LBS_CORRUPT);
  cr_assert(strstr(msg, "'edgew@1': checksum mismatch"), "%s", msg);
  /* arrays that a trace without stored@step does not read */
  cr_assert_eq(
      verify_after("UPDATE arrays SET crc32 = crc32 + 1 - 2 * (crc32 & 1) WHERE name='edgew@1';"
                   "UPDATE meta SET value='flag*rwgt[target]' WHERE key='edge_weight'",
                   msg, sizeof msg),
      LBS_CORRUPT);
  cr_assert(strstr(msg, "2 arrays of edge weights (edgew@STEP), but meta edge_weight is not "
                        "stored@step"),
            "%s", msg);
}
