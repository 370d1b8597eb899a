/* test_vt_stream.c - the vt reader as a stream (traces/vt.c): a file read a chunk at a time,
 * cut at every byte, plain and brotli; what the schema does not read (user_defined, attributes,
 * lb_iterations, nested objects and arrays) stepped over; metadata and a phase's id after what
 * they govern; a brotli stream cut short; a key twice. */
#include <brotli/encode.h>
#include <criterion/criterion.h>
#include <string.h>

#include "brotli_file.h"
#include "lbs_traces.h"
#include "testutil.h"
#include "traces_int.h"

static long brotli_size(const char *text) {
  size_t n = strlen(text), cap = BrotliEncoderMaxCompressedSize(n);
  uint8_t *buf = malloc(cap);
  cr_assert(BrotliEncoderCompress(BROTLI_DEFAULT_QUALITY, BROTLI_DEFAULT_WINDOW,
                                  BROTLI_DEFAULT_MODE, n, (const uint8_t *)text, &cap, buf));
  free(buf);
  return (long)cap;
}

/* Phases 0, 1, 2 (skipped: task 55 there is no task), 3 (identical to 1). Tasks 1 and 2 (2
 * pinned); decoys everywhere a reader must not look: a "phases" in the metadata's attributes,
 * tasks in user_defined and lb_iterations (99, 77), "time", "node", "bytes" and "id" keys in
 * nested objects, arrays of arrays. */
static const char *DEEP =
    "  \n{\"type\":\"LBDatafile\",\"metadata\":{\"type\":\"LBDatafile\",\"rank\":0,"
    "\"attributes\":{\"a\":[1,[2,{\"tasks\":[9]}]],\"phases\":{\"skipped\":{\"list\":[0,1]}}},"
    "\"shared_node\":{\"id\":0,\"size\":1,\"rank\":0,\"num_nodes\":1},"
    "\"phases\":{\"count\":4,\"skipped\":{\"list\":[2],\"range\":[]},"
    "\"identical_to_previous\":{\"list\":[],\"range\":[[3,3]]}}},\n"
    "\"phases\":[{\"id\":0,\"user_defined\":{\"tasks\":[{\"entity\":{\"id\":99},\"time\":1,"
    "\"node\":0}]},\"tasks\":[{\"entity\":{\"type\":\"object\",\"id\":1,\"home\":0,"
    "\"migratable\":true,\"index\":[0,0],\"extra\":{\"id\":5,\"index\":[7]}},\"node\":0,"
    "\"resource\":\"cpu\",\"time\":0.5,\"subphases\":[{\"id\":0,\"time\":0.25,"
    "\"user_defined\":[1,{\"id\":3}]},{\"id\":1,\"time\":0.25}],\"user_defined\":{\"time\":7,"
    "\"x\":[[[]],{},\"s\",true,null,-1.5e3]},\"attributes\":{\"node\":3,\"deep\":{\"a\":{\"b\":"
    "[{\"c\":null}]}}}},\n{\"entity\":{\"type\":\"object\",\"id\":2,\"home\":0,"
    "\"migratable\":false,\"index\":[1,0]},\"node\":0,\"time\":1.5}],"
    "\"communications\":[{\"type\":\"SendRecv\",\"from\":{\"type\":\"object\",\"id\":1},"
    "\"to\":{\"type\":\"object\",\"id\":2},\"messages\":1,\"bytes\":64.0,\"user_defined\":{"
    "\"bytes\":1}},{\"type\":\"CollectionToNode\",\"from\":{\"type\":\"object\",\"id\":1},"
    "\"to\":{\"type\":\"node\",\"id\":0},\"messages\":1,\"bytes\":8}],"
    "\"lb_iterations\":[{\"id\":0,\"tasks\":[{\"entity\":{\"id\":77},\"node\":0,\"time\":9}]}]},\n"
    "{\"id\":1,\"tasks\":[{\"entity\":{\"id\":2,\"migratable\":false,\"index\":[1,0]},\"node\":0,"
    "\"time\":3},{\"entity\":{\"id\":1,\"index\":[0,0]},\"node\":0,\"time\":2}]},"
    "{\"id\":2,\"tasks\":[{\"entity\":{\"id\":55},\"node\":0,\"time\":4}]}]}\n";

static lbs_err import(const char *path, const char *out) {
  lbs_vt *v = NULL;
  lbs_encoding enc = {0};
  cr_assert_eq(lbs_encoding_add_bound(&enc, "lossless"), LBS_OK);
  lbs_err e = lbs_vt_read((const char *const *)&path, 1, &v);
  if (!e) e = lbs_vt_write_trace(v, &enc, 0, out);
  lbs_vt_destroy(&v);
  return e;
}

static void check_step(lbs_trace *t, int64_t s, int metric, double a, double b) {
  double got[2];
  cr_assert_eq(lbs_trace_read(t, s, metric, 0, 2, got), LBS_OK, "%s", lbs_errmsg());
  cr_assert(got[0] == a && got[1] == b, "step %lld metric %d: %.17g %.17g, want %.17g %.17g",
            (long long)s, metric, got[0], got[1], a, b);
}

/* What DEEP holds, and nothing of the decoys. */
static void check_deep(const char *out, const char *how) {
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(out, &t), LBS_OK, "%s: %s", how, lbs_errmsg());
  cr_assert_eq(lbs_trace_elements(t), 2, "%s: tasks 1 and 2 only", how);
  cr_assert_eq(lbs_trace_steps(t), 3, "%s: phases 0, 1, 3", how);
  cr_assert_eq(lbs_trace_nmetrics(t), 3, "%s: time_ns and two subphases", how);
  check_step(t, 0, 0, 5e8, 1.5e9);
  check_step(t, 1, 0, 2e9, 3e9);
  check_step(t, 2, 0, 2e9, 3e9);
  check_step(t, 0, 1, 2.5e8, 0);
  check_step(t, 0, 2, 2.5e8, 0);
  check_step(t, 1, 1, 0, 0);
  cr_assert_str_eq(lbs_trace_meta(t, "vt.node_comms_left_out"), "1", "%s", how);
  cr_assert_str_eq(lbs_trace_meta(t, "vt.pinned"), "1", "%s", how);
  unsigned char pin[2] = {9, 9};
  int64_t npin = -1;
  cr_assert_eq(lbs_trace_pinned(t, pin, &npin), LBS_OK, "%s", lbs_errmsg());
  cr_assert(npin == 1 && pin[0] == 0 && pin[1] == 1, "%s: task 2 pinned", how);
  const double *xy;
  int dim;
  cr_assert_eq(lbs_mesh_coords(lbs_trace_mesh(t), &xy, &dim), LBS_OK);
  cr_assert(dim == 2 && xy[0] == 0 && xy[1] == 0 && xy[2] == 1 && xy[3] == 0, "%s: indices", how);
  for (int s = 0; s < 3; s++) {
    double cw[2];
    cr_assert_eq(lbs_trace_edge_weights(t, s, cw), LBS_OK, "%s", lbs_errmsg());
    cr_assert(cw[0] == (s ? 0 : 64) && cw[1] == cw[0], "%s: step %d arc bytes %g", how, s, cw[0]);
  }
  lbs_trace_close(&t);
}

/* Every chunk size from 1 byte (each byte its own chunk: every boundary) up, plain and brotli
 * (the compressed bytes and the decompressed text both in chunks of that size). */
Test(vt_stream, a_file_split_at_every_chunk_boundary) {
  char *d = tu_tmpdir(), *p = tu_path(d, "data.0.json"), *out = tu_path(d, "t.lbt");
  static const size_t chunks[] = {1, 2, 3, 4, 5, 7, 8, 13, 31, 64, 100, 333, 1000, 1 << 16};
  for (int brotli = 0; brotli < 2; brotli++) {
    if (brotli)
      write_brotli(p, DEEP, -1, NULL);
    else
      tu_write(p, DEEP);
    for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
      char how[64];
      snprintf(how, sizeof how, "%s, chunks of %zu bytes", brotli ? "brotli" : "plain", chunks[c]);
      lbs__vt_chunk = chunks[c];
      remove(out);
      cr_assert_eq(import(p, out), LBS_OK, "%s: %s", how, lbs_errmsg());
      check_deep(out, how);
    }
  }
  free(p), free(out);
  tu_rmrf(d);
}

/* The metadata after the phases it skips, a phase's id after its tasks: still skipped (task 5,
 * only in skipped phase 2, is no task). */
Test(vt_stream, metadata_and_ids_after_what_they_govern) {
  char *d = tu_tmpdir(), *p = tu_path(d, "data.0.json"), *out = tu_path(d, "t.lbt");
  tu_write(p, "{\"phases\":[{\"tasks\":[{\"entity\":{\"id\":5},\"node\":0,\"time\":1}],\"id\":2},"
              "{\"tasks\":[{\"entity\":{\"id\":1},\"node\":0,\"time\":2}],\"id\":0}],"
              "\"metadata\":{\"phases\":{\"skipped\":{\"list\":[2]}}}}");
  lbs__vt_chunk = 3;
  cr_assert_eq(import(p, out), LBS_OK, "%s", lbs_errmsg());
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(out, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_elements(t), 1, "task 1 alone");
  cr_assert_eq(lbs_trace_steps(t), 1, "phase 0 alone");
  double v;
  cr_assert_eq(lbs_trace_read(t, 0, 0, 0, 1, &v), LBS_OK);
  cr_assert_eq(v, 2e9);
  cr_assert_str_eq(lbs_trace_meta(t, "vt.skipped_phases"), "1");
  lbs_trace_close(&t);
  free(p), free(out);
  tu_rmrf(d);
}

/* path must fail to read with a message holding needle and the file's name */
static void refused(const char *path, const char *needle) {
  lbs_vt *v = NULL;
  cr_assert_neq(lbs_vt_read((const char *const *)&path, 1, &v), LBS_OK, "accepted (%s)", needle);
  cr_assert_null(v);
  cr_assert(strstr(lbs_errmsg(), needle), "message '%s' lacks '%s'", lbs_errmsg(), needle);
  cr_assert(strstr(lbs_errmsg(), "data.0.json"), "message '%s' names no file", lbs_errmsg());
}

/* A brotli stream cut anywhere, read in chunks smaller and larger than what is left: truncated;
 * bytes after its end: refused. */
Test(vt_stream, brotli_truncated_mid_stream) {
  char *d = tu_tmpdir(), *p = tu_path(d, "data.0.json");
  long n = brotli_size(DEEP);
  static const size_t chunks[] = {1, 7, 1 << 16};
  for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
    lbs__vt_chunk = chunks[c];
    for (long keep = 8; keep < n; keep += keep < n / 2 ? n / 4 : 1 + (n - keep) / 2) {
      write_brotli(p, DEEP, keep, NULL);
      refused(p, "truncated");
    }
    write_brotli(p, DEEP, -1, "{}");
    refused(p, "2 bytes after the end of the brotli stream");
  }
  free(p);
  tu_rmrf(d);
}

/* A syntax error's line, counted across chunks; a key twice in one object, read or skipped:
 * refused where the schema reads it (as a document reader refuses it), named. */
Test(vt_stream, lines_and_keys_twice) {
  char *d = tu_tmpdir(), *p = tu_path(d, "data.0.json");
  lbs__vt_chunk = 2;
  tu_write(p, "\n\n {\"phases\":[\n{\"id\":0,\"tasks\":[]}\n,]}");
  refused(p, "line 5");
  tu_write(p, "{\"phases\":[{\"id\":0,\"tasks\":[{\"entity\":{\"id\":1},\"node\":0,\"time\":1,"
              "\"time\":2}]}]}");
  refused(p, "phase 0: \"time\" twice in one object");
  tu_write(p, "{\"phases\":[],\"phases\":[]}");
  refused(p, "\"phases\" twice");
  free(p);
  tu_rmrf(d);
}

/* vt writes keys sorted: a phase's "communications" come before its "id". A skipped phase's
 * node traffic (the only traffic to rank 7) then makes no node element and counts nowhere; an
 * error in a communication names the phase by its id, not by what was known when it was read;
 * metadata after the phases: a task's pinning in a skipped phase does not count. */
#define OBJ(n) "{\"home\":0,\"migratable\":true,\"seq_id\":" #n ",\"type\":\"object\"}"
#define TASKS "\"tasks\":[{\"entity\":" OBJ(1) ",\"node\":0,\"time\":0.5}]"
#define TONODE(r) "{\"bytes\":10,\"from\":" OBJ(1) ",\"to\":{\"id\":" #r ",\"type\":\"node\"}}"
Test(vt_stream, communications_before_the_phase_id) {
  char *d = tu_tmpdir(), *p = tu_path(d, "data.0.json"), *out = tu_path(d, "t.lbt");
  tu_write(p, "{\"metadata\":{\"phases\":{\"skipped\":{\"list\":[1]}},\"rank\":0},\"phases\":["
              "{\"communications\":[" TONODE(0) "],\"id\":0," TASKS "},"
                                                "{\"communications\":[" TONODE(7) "," TONODE(
                                                    7) "],\"id\":1," TASKS "},"
                                                       "{\"communications\":[" TONODE(
                                                           0) "],\"id\":2," TASKS "}]}");
  lbs_vt *v = NULL;
  lbs_vt_opts o = {.node_elements = 1};
  cr_assert_eq(lbs_vt_read_opts((const char *const *)&p, 1, &o, &v), LBS_OK, "%s", lbs_errmsg());
  lbs_vt_summary s;
  lbs_vt_summary_get(v, &s);
  lbs_vt_destroy(&v);
  cr_assert_eq(s.nodes, 1, "one node element (rank 0), not %lld", (long long)s.nodes);
  cr_assert_eq(s.node_traffic, 2, "two communications with rank 0, not %lld",
               (long long)s.node_traffic);
  cr_assert_eq(s.node_comms, 0);
  /* without node elements: the same two left out and counted, the skipped phase's not */
  cr_assert_eq(lbs_vt_read((const char *const *)&p, 1, &v), LBS_OK, "%s", lbs_errmsg());
  lbs_vt_summary_get(v, &s);
  lbs_vt_destroy(&v);
  cr_assert_eq(s.node_comms, 2, "%lld left out", (long long)s.node_comms);

  tu_write(p,
           "{\"phases\":[{\"communications\":[],\"id\":0," TASKS "},"
           "{\"communications\":[{\"from\":" OBJ(1) ",\"to\":" OBJ(1) "}],\"id\":3," TASKS "}]}");
  refused(p, "phase 3: task seq 1: a communication without bytes >= 0");

  tu_write(p, "{\"phases\":[{\"id\":0,\"tasks\":[{\"entity\":{\"seq_id\":1,\"home\":0,"
              "\"migratable\":false},\"node\":0,\"time\":1}]},{\"id\":1,\"tasks\":[{\"entity\":"
              "{\"seq_id\":1,\"home\":0,\"migratable\":true},\"node\":0,\"time\":1}]}],"
              "\"metadata\":{\"phases\":{\"skipped\":{\"list\":[0]}}}}");
  cr_assert_eq(import(p, out), LBS_OK, "%s", lbs_errmsg());
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(out, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_steps(t), 1, "phase 1 alone");
  cr_assert_str_eq(lbs_trace_meta(t, "vt.pinned"), "0", "migratable in the phase kept");
  lbs_trace_close(&t);
  free(p), free(out);
  tu_rmrf(d);
}
