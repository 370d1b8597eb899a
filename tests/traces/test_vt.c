/* test_vt.c - DARMA vt's LB data files imported as a trace (traces/vt.c): files of our own,
 * plain and brotli-compressed. */
#include <brotli/encode.h>
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "brotli_file.h"
#include "lbs_traces.h"
#include "testutil.h"
#include "traces_int.h"

#define META(rank)                                                                                 \
  "\"metadata\":{\"type\":\"LBDatafile\",\"rank\":" #rank ",\"phases\":{\"count\":5,"              \
  "\"skipped\":{\"list\":[2],\"range\":[]},\"identical_to_previous\":{\"list\":[],\"range\":[[3,"  \
  "3]]}}}"
#define TASK(id, mig, idx, node, time)                                                             \
  "{\"entity\":{\"type\":\"object\",\"id\":" #id ",\"home\":0,\"migratable\":" #mig                \
  ",\"index\":" idx "},\"node\":" #node ",\"resource\":\"cpu\",\"time\":" #time "}"

/* rank 0: tasks 10 and 11 (pinned) throughout, 20 in phase 1 (migrated here), 10 with
 * subphases in phase 0; 10 <-> 20 exchange 100 + 50 bytes in phase 1; a message to a node */
static const char *RANK0 = "{\"type\":\"LBDatafile\"," META(
    0) ",\"phases\":["
       "{\"id\":0,\"tasks\":[{\"entity\":{\"type\":\"object\",\"id\":10,\"home\":0,\"migratable\":true,"
       "\"index\":[0,0]},\"node\":0,\"resource\":\"cpu\",\"time\":0.001,\"subphases\":[{\"id\":0,"
       "\"time\":0.0004},{\"id\":1,\"time\":0.0006}]}," TASK(
           11, false, "[1,0]", 0,
           0.5) "]},"
                "{\"id\":1,\"tasks\":[" TASK(10, true, "[0,0]", 0, 0.002) "," TASK(
                    11, false, "[1,0]", 0,
                    0.25) "," TASK(20, true, "[0,1]", 0,
                                   3e-6) "],\"communications\":["
                                         "{\"type\":\"SendRecv\",\"from\":{\"type\":\"object\",\"id\":10},\"to\":{\"type\":\"object\","
                                         "\"id\":20},\"messages\":1,\"bytes\":100.0},"
                                         "{\"type\":\"SendRecv\",\"from\":{\"type\":\"object\",\"id\":20},\"to\":{\"type\":\"object\","
                                         "\"id\":10},\"messages\":2,\"bytes\":50.0},"
                                         "{\"type\":\"CollectionToNode\",\"from\":{\"type\":\"object\",\"id\":10},\"to\":{\"type\":"
                                         "\"node\",\"id\":1},\"messages\":1,\"bytes\":8.0}]},"
                                         "{\"id\":2,\"tasks\":[]},"
                                         "{\"id\":4,\"tasks\":[" TASK(
                                             10, true, "[0,0]", 0,
                                             0.004) "," TASK(11, false, "[1,0]", 0, 0.125) "]}]}";
/* rank 1: task 20 in phases 0 and 4, task 30 only in phase 4, 30 -> 10 7 bytes */
static const char *RANK1 = "{" META(
    1) ",\"phases\":["
       "{\"id\":0,\"tasks\":[" TASK(
           20, true, "[0,1]", 1,
           1e-6) "]},"
                 "{\"id\":1,\"tasks\":[]},"
                 "{\"id\":4,\"tasks\":[" TASK(20, true, "[0,1]", 1, 5e-6) "," TASK(
                     30, true, "[1,1]", 1,
                     0.01) "],\"communications\":[{\"type\":\"SendRecv\",\"from\":{\"type\":\"object\",\"id\":30},"
                           "\"to\":{\"type\":\"object\",\"id\":10},\"messages\":1,\"bytes\":7}]}]}";

static lbs_err import(char *const *paths, int n, const char *out) {
  lbs_vt *v = NULL;
  lbs_encoding enc = {0};
  cr_assert_eq(lbs_encoding_add_bound(&enc, "lossless"), LBS_OK);
  lbs_err e = lbs_vt_read((const char *const *)paths, n, &v);
  if (!e) e = lbs_vt_write_trace(v, &enc, 0, out);
  lbs_vt_destroy(&v);
  return e;
}

static void check_step(lbs_trace *t, int64_t s, int metric, const double *want) {
  double got[4];
  cr_assert_eq(lbs_trace_read(t, s, metric, 0, 4, got), LBS_OK, "%s", lbs_errmsg());
  for (int i = 0; i < 4; i++)
    cr_assert_eq(got[i], want[i], "step %lld metric %d element %d: %.17g, want %.17g", (long long)s,
                 metric, i, got[i], want[i]);
}

static void check_owners(lbs_trace *t) {
  static const int64_t app[3] = {0, 1, 4}, own[3][4] = {{0, 0, 1, 1}, {0, 0, 0, 1}, {0, 0, 1, 1}};
  cr_assert_eq(lbs_trace_owners_count(t), 3, "owners written where they change");
  for (int i = 0; i < 3; i++) {
    int64_t o[4];
    cr_assert_eq(lbs_trace_owners_step(t, i), app[i]);
    cr_assert_eq(lbs_trace_owners_read(t, i, o), LBS_OK);
    for (int k = 0; k < 4; k++) cr_assert_eq(o[k], own[i][k], "assignment %d element %d", i, k);
  }
}

/* arcs: 10-20 and 10-30 (elements 0-2, 0-3): rows 0: {2, 3}, 2: {0}, 3: {0} */
static void check_edges(lbs_trace *t) {
  static const double w[4][4] = {{0, 0, 0, 0}, {150, 0, 150, 0}, {150, 0, 150, 0}, {0, 7, 0, 7}};
  const int64_t *x, *a;
  const double *mw;
  cr_assert_eq(lbs_mesh_graph(lbs_trace_mesh(t), &x, &a, &mw), LBS_OK);
  cr_assert_eq(x[4], 4);
  cr_assert(a[0] == 2 && a[1] == 3 && a[2] == 0 && a[3] == 0);
  cr_assert_str_eq(lbs_trace_meta(t, "edge_weight"), LBS_EDGE_STEPS);
  /* the weights are vt's bytes: a unit of weight is one byte of halo */
  cr_assert_eq(lbs_mesh_bytes_per_edge(lbs_trace_mesh(t)), 1.0);
  for (int s = 0; s < 4; s++) {
    double cw[4];
    cr_assert_eq(lbs_trace_edge_weights(t, s, cw), LBS_OK, "%s", lbs_errmsg());
    for (int k = 0; k < 4; k++) cr_assert_eq(cw[k], w[s][k], "step %d arc %d: %g", s, k, cw[k]);
  }
}

Test(vt, plain_and_brotli_files_with_skipped_and_identical_phases) {
  char *d = tu_tmpdir(), *p[2] = {tu_path(d, "data.0.json"), tu_path(d, "data.1.json")};
  char *out = tu_path(d, "vt.lbt");
  tu_write(p[0], RANK0);
  write_brotli(p[1], RANK1, -1, NULL);
  cr_assert_eq(import(p, 2, out), LBS_OK, "%s", lbs_errmsg());
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(out, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_elements(t), 4, "tasks 10, 11, 20, 30");
  cr_assert_eq(lbs_trace_steps(t), 4, "phases 0, 1, 3 (identical to 1), 4; 2 skipped");
  static const int64_t app[4] = {0, 1, 3, 4};
  for (int s = 0; s < 4; s++) {
    int64_t a;
    lbs_trace_app_step(t, s, &a);
    cr_assert_eq(a, app[s]);
  }
  cr_assert_eq(lbs_trace_nmetrics(t), 3);
  cr_assert_eq(lbs_trace_metric_find(t, "time_ns"), 0);
  cr_assert_eq(lbs_trace_metric_find(t, "time_ns.s1"), 2);
  cr_assert_str_eq(lbs_trace_meta(t, "phases.time_ns"), "time_ns.s0,time_ns.s1");
  cr_assert_str_eq(lbs_trace_meta(t, "source"), "vt");
  cr_assert_str_eq(lbs_trace_meta(t, "vt.pinned"), "1");
  cr_assert_str_eq(lbs_trace_meta(t, "vt.ranks"), "2");
  cr_assert_str_eq(lbs_trace_meta(t, "vt.node_comms_left_out"), "1");
  check_step(t, 0, 0, (double[]){1e6, 5e8, 1e3, 0});
  check_step(t, 1, 0, (double[]){2e6, 2.5e8, 3e3, 0});
  check_step(t, 2, 0, (double[]){2e6, 2.5e8, 3e3, 0});
  check_step(t, 3, 0, (double[]){4e6, 1.25e8, 5e3, 1e7});
  check_step(t, 0, 1, (double[]){4e5, 0, 0, 0});
  check_step(t, 0, 2, (double[]){6e5, 0, 0, 0});
  check_step(t, 3, 2, (double[]){0, 0, 0, 0});
  check_owners(t);
  check_edges(t);
  const double *xy;
  int dim;
  cr_assert_eq(lbs_mesh_coords(lbs_trace_mesh(t), &xy, &dim), LBS_OK);
  cr_assert_eq(dim, 2);
  cr_assert(xy[2] == 1 && xy[3] == 0 && xy[6] == 1 && xy[7] == 1, "the tasks' indices");
  unsigned char pin[4] = {9, 9, 9, 9};
  int64_t npin = -1;
  cr_assert_eq(lbs_trace_pinned(t, pin, &npin), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(npin, 1, "task 11 alone is not migratable");
  cr_assert_str_eq(lbs_trace_meta(t, LBS_META_ABSENT), LBS_ABSENT_ZERO_WORK,
                   "task 30 is absent before phase 4: idle means absent");
  for (int k = 0; k < 4; k++) cr_assert_eq(pin[k], k == 1, "element %d pinned %d", k, pin[k]);
  cr_assert_eq(lbs_trace_verify(t, NULL, NULL), LBS_OK, "%s", lbs_errmsg());
  lbs_trace_close(&t);
  free(p[0]), free(p[1]), free(out);
  tu_rmrf(d);
}

Test(vt, a_directory_in_rank_order) {
  char *d = tu_tmpdir(), *p10 = tu_path(d, "data.10.json"), *p2 = tu_path(d, "data.2.json");
  char *other = tu_path(d, "notes.json");
  tu_write(p10, RANK1);
  tu_write(p2, RANK0);
  tu_write(other, "not vt");
  char **files;
  int n;
  cr_assert_eq(lbs_vt_dir_files(d, &files, &n), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(n, 2);
  cr_assert_str_eq(files[0], p2, "rank 2 before rank 10");
  cr_assert_str_eq(files[1], p10);
  lbs_vt_files_free(files, n);
  free(p10), free(p2), free(other);
  tu_rmrf(d);
}

/* files[0..n) as texts (a NULL text: RANK1 brotli-compressed, cut to half) must fail to read
 * with a message holding needle */
static void bad(int n, const char *const *texts, const char *needle) {
  char *d = tu_tmpdir(), *p[4];
  for (int i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "data.%d.json", i);
    p[i] = tu_path(d, name);
    if (texts[i])
      tu_write(p[i], texts[i]);
    else
      write_brotli(p[i], RANK1, 60, NULL);
  }
  lbs_vt *v = NULL;
  lbs_err e = lbs_vt_read((const char *const *)p, n, &v);
  cr_assert_neq(e, LBS_OK, "accepted (%s)", needle);
  cr_assert_null(v);
  cr_assert(strstr(lbs_errmsg(), needle), "message '%s' lacks '%s'", lbs_errmsg(), needle);
  cr_assert(strstr(lbs_errmsg(), "data."), "message '%s' names no file", lbs_errmsg());
  for (int i = 0; i < n; i++) free(p[i]);
  tu_rmrf(d);
}

#define ONE(phases) "{\"phases\":[" phases "]}"

Test(vt, bad_input_names_file_phase_and_task) {
  bad(1, (const char *[]){"this is not json, nor brotli"}, "neither JSON nor brotli");
  bad(1, (const char *[]){NULL}, "truncated");
  bad(1, (const char *[]){"{\"phases\":[{\"id\":0,\"tasks\":[]"}, "line");
  bad(1, (const char *[]){ONE("{\"id\":0,\"tasks\":[]},{\"id\":0,\"tasks\":[]}")},
      "data.0.json: phase 0: listed twice");
  bad(1, (const char *[]){ONE("{\"id\":3,\"tasks\":[{\"entity\":{\"id\":7},\"node\":0}]}")},
      "data.0.json: phase 3: task 7: no time");
  bad(1, (const char *[]){ONE("{\"id\":3,\"tasks\":[" TASK(7, true, "[0]", 0, -1) "]}")},
      "data.0.json: phase 3: task 7: time -1 is not a finite number >= 0");
  bad(1, (const char *[]){ONE("{\"id\":3,\"tasks\":[" TASK(7, true, "[0]", 0, 1e999) "]}")},
      "data.0.json");
  bad(1,
      (const char *[]){ONE("{\"id\":3,\"tasks\":[" TASK(
          7, true, "[0]", 0, 1) "],"
                                "\"communications\":[{\"type\":\"SendRecv\",\"from\":{\"id\":7},"
                                "\"to\":{\"id\":99},\"messages\":1,\"bytes\":1}]}")},
      "data.0.json: phase 3: task 99: a communication names this unknown task");
  bad(2, (const char *[]){RANK0, RANK0}, "data.1.json: rank 0 again (also");
  bad(2, (const char *[]){RANK0, ONE("{\"id\":0,\"tasks\":[]}")},
      "data.1.json: 1 phases (0..0), and");
  bad(1, (const char *[]){ONE("{\"id\":0,\"tasks\":[{\"entity\":{\"home\":0},\"time\":1}]}")},
      "neither id nor seq_id");
  bad(2,
      (const char *[]){ONE("{\"id\":0,\"tasks\":[" TASK(7, true, "[0]", 0, 1) "]}"),
                       ONE("{\"id\":0,\"tasks\":[" TASK(7, true, "[0]", 1, 1) "]}")},
      "phase 0: task 7: also in ");
  bad(1,
      (const char *[]){ONE("{\"id\":0,\"tasks\":[{\"entity\":{\"seq_id\":1,\"collection_id\":7},"
                           "\"node\":0,\"time\":1}],\"communications\":[{\"type\":\"SendRecv\","
                           "\"from\":{\"seq_id\":1,\"collection_id\":7},\"to\":{\"seq_id\":1,"
                           "\"collection_id\":9},\"messages\":1,\"bytes\":1}]}")},
      "phase 0: task seq 1 (collection 9): a communication names this unknown task");
  /* pinned in one phase and migratable in another: refused, both places named */
  bad(2,
      (const char *[]){
          ONE("{\"id\":0,\"tasks\":[" TASK(7, true, "[0]", 0, 1) "]},{\"id\":1,"
                                                                 "\"tasks\":[]}"),
          ONE("{\"id\":0,\"tasks\":[]},{\"id\":1,\"tasks\":[" TASK(7, false, "[0]", 1, 1) "]}")},
      "data.1.json: phase 1: task 7 is not migratable, but is in ");
}

/* A trace without pinned tasks has no array, and no task absent no meta absent;
 * lbs_trace_write_pinned refuses values but 0 and 1 (lbs_trace_pinned checks them too). */
Test(vt, pinned_array_absent_or_checked) {
  char *d = tu_tmpdir(), *p = tu_path(d, "data.0.json"), *out = tu_path(d, "free.lbt");
  tu_write(p, ONE("{\"id\":0,\"tasks\":[" TASK(7, true, "[0]", 0, 1) "]}"));
  cr_assert_eq(import(&p, 1, out), LBS_OK, "%s", lbs_errmsg());
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(out, &t), LBS_OK, "%s", lbs_errmsg());
  unsigned char pin[2] = {7, 7};
  int64_t npin = -1;
  cr_assert_eq(lbs_trace_pinned(t, pin, &npin), LBS_OK, "%s", lbs_errmsg());
  cr_assert(npin == 0 && pin[0] == 0, "nothing pinned");
  cr_assert_null(lbs_trace_meta(t, LBS_META_ABSENT), "no task absent from a phase");
  lbs_trace_close(&t);
  char *bad_out = tu_path(d, "bad.lbt");
  lbs_trace_writer *w;
  lbs_metric_spec ms = {.name = "time_ns",
                        .unit = "ns",
                        .codec = LBS_CODEC_LOSSLESS,
                        .bound = {LBS_BOUND_LOSSLESS, 0}};
  lbs_trace_spec spec = {2, 0, 1, &ms, NULL, 0, NULL};
  cr_assert_eq(lbs_trace_create(bad_out, &spec, &w), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_write_pinned(w, (int64_t[]){0, 2}), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "element 1 has 2"), "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_write_pinned(w, (int64_t[]){0, 1}), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_write_step(w, 0, (const double *const[]){(double[]){1, 2}}), LBS_OK);
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_open(bad_out, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_pinned(t, pin, &npin), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(npin, 1);
  lbs_trace_close(&t);
  free(p), free(out), free(bad_out);
  tu_rmrf(d);
}

/* seq_id tasks: told apart by their collection (or objgroup) */
Test(vt, seq_ids_of_two_collections) {
  char *d = tu_tmpdir(), *p = tu_path(d, "data.0.json"), *out = tu_path(d, "s.lbt");
  tu_write(p, ONE("{\"id\":5,\"tasks\":["
                  "{\"entity\":{\"seq_id\":1,\"collection_id\":8},\"node\":0,\"time\":2},"
                  "{\"entity\":{\"seq_id\":1,\"collection_id\":7},\"node\":0,\"time\":1},"
                  "{\"entity\":{\"seq_id\":1,\"objgroup_id\":9},\"node\":0,\"time\":3}]}"));
  cr_assert_eq(import(&p, 1, out), LBS_OK, "%s", lbs_errmsg());
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(out, &t), LBS_OK);
  cr_assert_eq(lbs_trace_elements(t), 3);
  double v[3];
  cr_assert_eq(lbs_trace_read(t, 0, 0, 0, 3, v), LBS_OK);
  cr_assert(v[0] == 1e9 && v[1] == 2e9 && v[2] == 3e9, "in collection order");
  cr_assert_null(lbs_trace_meta(t, "edge_weight"), "no communication, no per-step weights");
  lbs_trace_close(&t);
  free(p), free(out);
  tu_rmrf(d);
}

Test(vt, the_decompressed_size_is_capped) {
  lbs__vt_max_bytes = 100;
  char *d = tu_tmpdir(), *p = tu_path(d, "data.0.json");
  write_brotli(p, RANK1, -1, NULL);
  lbs_vt *v = NULL;
  cr_assert_neq(lbs_vt_read((const char *const *)&p, 1, &v), LBS_OK);
  cr_assert(strstr(lbs_errmsg(), "decompresses to more than 100 bytes"), "%s", lbs_errmsg());
  free(p);
  tu_rmrf(d);
}

/* ---------------------------------------------------------------- node elements */

#define TOOBJ(id) "{\"type\":\"object\",\"id\":" #id "}"
#define TONODE(r) "{\"type\":\"node\",\"id\":" #r "}"
#define COMM(type, from, to, bytes)                                                                \
  "{\"type\":\"" type "\",\"from\":" from ",\"to\":" to ",\"messages\":1,\"bytes\":" #bytes "}"

/* rank 0 (plain): tasks 1 and 2 in phase 0, 2 alone in phase 1 (1 migrated to rank 1), none in
 * phase 2 (2 vanished); task 1 -> node 1 10 bytes and node 1 -> task 1 5 bytes in phase 0, and a
 * node-to-node broadcast (left out). */
static const char *NODE0 =
    "{\"metadata\":{\"rank\":0},\"phases\":["
    "{\"id\":0,\"tasks\":[" TASK(1, true, "[0]", 0, 0.001) "," TASK(
        2, true, "[1]", 0,
        0.002) "],\"communications\":[" COMM("CollectionToNode", TOOBJ(1), TONODE(1),
                                             10) "," COMM("NodeToCollection", TONODE(1), TOOBJ(1),
                                                          5) "," COMM("Broadcast", TONODE(0),
                                                                      TONODE(1),
                                                                      3) "]},"
                                                                         "{\"id\":1,\"tasks\":[" TASK(
                                                                             2, true, "[1]", 0,
                                                                             0.002) "]},{\"id\":2,\"tasks\":[]}]}";
/* rank 1 (brotli): task 1 from phase 1, task 3 appears in phase 1; node 0 -> task 3 7 bytes and
 * task 1 -> task 3 4 bytes in phase 1, task 3 -> node 0 2 bytes in phase 2. */
static const char *NODE1 =
    "{\"metadata\":{\"rank\":1},\"phases\":[{\"id\":0,\"tasks\":[]},"
    "{\"id\":1,\"tasks\":[" TASK(1, true, "[0]", 1, 0.003) "," TASK(3, true, "[2]", 1, 0.004) "],\"communications\":[" COMM(
        "NodeToCollectionBcast", TONODE(0), TOOBJ(3),
        7) "," COMM("SendRecv", TOOBJ(1), TOOBJ(3),
                    4) "]},"
                       "{\"id\":2,\"tasks\":[" TASK(1, true, "[0]", 1, 0.005) "," TASK(
                           3, true, "[2]", 1,
                           0.006) "],\"communications\":[" COMM("CollectionToNodeBcast", TOOBJ(3),
                                                                TONODE(0), 2) "]}]}";

static lbs_err import_nodes(char *const *paths, int n, const char *out, lbs_vt_summary *s) {
  lbs_vt *v = NULL;
  lbs_encoding enc = {0};
  lbs_vt_opts o = {.node_elements = 1};
  cr_assert_eq(lbs_encoding_add_bound(&enc, "lossless"), LBS_OK);
  lbs_err e = lbs_vt_read_opts((const char *const *)paths, n, &o, &v);
  if (!e) lbs_vt_summary_get(v, s);
  if (!e) e = lbs_vt_write_trace(v, &enc, 0, out);
  lbs_vt_destroy(&v);
  return e;
}

/* Elements: tasks 1, 2, 3 (0, 1, 2), then node 0 (3) and node 1 (4). Each task-to-node
 * communication is the per-step weight of the arc between the task and its node element (both
 * directions summed), the node elements pinned on their rank with no work. */
Test(vt, task_to_node_traffic_as_pinned_node_elements) {
  char *d = tu_tmpdir(), *p[2] = {tu_path(d, "data.0.json"), tu_path(d, "data.1.json")};
  char *out = tu_path(d, "n.lbt"), *plain = tu_path(d, "plain.lbt");
  tu_write(p[0], NODE0);
  write_brotli(p[1], NODE1, -1, NULL);
  lbs_vt_summary s;
  cr_assert_eq(import_nodes(p, 2, out, &s), LBS_OK, "%s", lbs_errmsg());
  cr_assert(s.tasks == 3 && s.nodes == 2 && s.node_traffic == 4 && s.node_comms == 1 &&
                s.pairs == 3,
            "summary: %lld tasks, %lld nodes, %lld node traffic, %lld left out, %lld pairs",
            (long long)s.tasks, (long long)s.nodes, (long long)s.node_traffic,
            (long long)s.node_comms, (long long)s.pairs);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(out, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_elements(t), 5);
  cr_assert_eq(lbs_trace_steps(t), 3);
  cr_assert_str_eq(lbs_trace_meta(t, LBS_VT_META_NODE_ELEMENTS), "3 2");
  cr_assert_str_eq(lbs_trace_meta(t, LBS_VT_META_NODE_RANKS), "0 1");
  cr_assert_str_eq(lbs_trace_meta(t, "vt.node_traffic"), "4");
  cr_assert_str_eq(lbs_trace_meta(t, "vt.node_comms_left_out"), "1", "node to node only");
  cr_assert_str_eq(lbs_trace_meta(t, "vt.pinned"), "0", "no task is pinned");
  cr_assert_str_eq(lbs_trace_meta(t, LBS_META_ABSENT), LBS_ABSENT_ZERO_WORK);
  static const double load[3][5] = {
      {1e6, 2e6, 0, 0, 0}, {3e6, 2e6, 4e6, 0, 0}, {5e6, 0, 6e6, 0, 0}};
  static const int64_t own[3][5] = {{0, 0, 1, 0, 1}, {1, 0, 1, 0, 1}, {1, 0, 1, 0, 1}};
  for (int st = 0; st < 3; st++) {
    double v[5];
    int64_t o[5];
    cr_assert_eq(lbs_trace_read(t, st, 0, 0, 5, v), LBS_OK, "%s", lbs_errmsg());
    int64_t app, n = lbs_trace_owners_count(t), k = 0;
    lbs_trace_app_step(t, st, &app);
    while (k + 1 < n && lbs_trace_owners_step(t, k + 1) <= app) k++;
    cr_assert_eq(lbs_trace_owners_read(t, k, o), LBS_OK, "%s", lbs_errmsg());
    for (int e = 0; e < 5; e++) {
      cr_assert_eq(v[e], load[st][e], "step %d element %d load %g", st, e, v[e]);
      cr_assert_eq(o[e], own[st][e], "step %d element %d owner %lld", st, e, (long long)o[e]);
    }
  }
  unsigned char pin[5];
  int64_t npin;
  cr_assert_eq(lbs_trace_pinned(t, pin, &npin), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(npin, 2);
  for (int e = 0; e < 5; e++) cr_assert_eq(pin[e], e >= 3, "element %d pinned %d", e, pin[e]);
  /* pairs (0, 2): 4 at step 1; (0, 4): 10 + 5 at step 0; (2, 3): 7, then 2 */
  const int64_t *x, *a;
  const double *mw;
  cr_assert_eq(lbs_mesh_graph(lbs_trace_mesh(t), &x, &a, &mw), LBS_OK);
  cr_assert_eq(x[5], 6, "three pairs, two arcs each");
  const double *xy;
  int dim;
  cr_assert_eq(lbs_mesh_coords(lbs_trace_mesh(t), &xy, &dim), LBS_OK);
  cr_assert(dim == 1 && xy[2] == 2 && xy[3] == -1 && xy[4] == -2, "node r at -1 - r");
  for (int st = 0; st < 3; st++) {
    double cw[6];
    cr_assert_eq(lbs_trace_edge_weights(t, st, cw), LBS_OK, "%s", lbs_errmsg());
    for (int64_t u = 0; u < 5; u++)
      for (int64_t k = x[u]; k < x[u + 1]; k++) {
        int64_t lo = u < a[k] ? u : a[k], hi = u < a[k] ? a[k] : u;
        double want = lo == 0 && hi == 2   ? (st == 1 ? 4 : 0)
                      : lo == 0 && hi == 4 ? (st == 0 ? 15 : 0)
                      : lo == 2 && hi == 3 ? (st == 1   ? 7
                                              : st == 2 ? 2
                                                        : 0)
                                           : -1;
        cr_assert_eq(cw[k], want, "step %d arc %lld -> %lld: %g", st, (long long)u, (long long)a[k],
                     cw[k]);
      }
  }
  cr_assert_eq(lbs_trace_verify(t, NULL, NULL), LBS_OK, "%s", lbs_errmsg());
  lbs_trace_close(&t);
  /* lbs_vt_read: the same files with node traffic left out, all five communications counted */
  cr_assert_eq(import(p, 2, plain), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_open(plain, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_elements(t), 3);
  cr_assert_str_eq(lbs_trace_meta(t, "vt.node_comms_left_out"), "5");
  cr_assert_null(lbs_trace_meta(t, LBS_VT_META_NODE_ELEMENTS));
  lbs_trace_close(&t);
  free(p[0]), free(p[1]), free(out), free(plain);
  tu_rmrf(d);
}

Test(vt, a_node_without_a_rank_is_refused) {
  char *d = tu_tmpdir(), *p = tu_path(d, "data.0.json"), *out = tu_path(d, "n.lbt");
  tu_write(p, ONE("{\"id\":4,\"tasks\":[" TASK(7, true, "[0]", 0, 1) "],\"communications\":[" COMM(
                  "CollectionToNode", TOOBJ(7), "{\"type\":\"node\"}", 1) "]}"));
  lbs_vt_summary s;
  cr_assert_eq(import_nodes(&p, 1, out, &s), LBS_PARSE);
  cr_assert(strstr(lbs_errmsg(), "data.0.json: phase 4: task 7: a communication with a node "
                                 "without an id"),
            "%s", lbs_errmsg());
  free(p), free(out);
  tu_rmrf(d);
}
