/* test_collector.c - the collector's state machine (profiler/collector.c) without its sockets:
 * the challenge and its answer, frame lengths refused before their payload is kept, a whole
 * run from two nodes, and records that would break it (steps out of order, an element twice);
 * remaps: values and owners follow them, bad ones are refused; arc weights and the edge rule reach
 * the trace, bad ones are refused. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lbs_traces.h"
#include "prof_int.h"

static const uint8_t SECRET[LBSPROF_SECRET_BYTES] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

static void tmp_path(char *p, size_t n) {
  snprintf(p, n, "/tmp/lbs_test_collector_%d.lbt", (int)getpid());
  remove(p);
}

static prof_meta run_meta(void) {
  prof_meta m;
  memset(&m, 0, sizeof m);
  m.elements = 8, m.nmetrics = 1, m.codec = LBS_CODEC_LOSSLESS, m.mesh_kind = 1, m.sample_every = 1;
  m.nodes = 2, m.ranks = 2, m.bound_kind = LBS_BOUND_LOSSLESS, m.dims[0] = 8,
  m.dims[1] = m.dims[2] = 1;
  snprintf(m.name[0], 32, "time_ns");
  return m;
}

static void frame(lbs_buf *out, uint16_t type, int32_t node, const void *b, size_t blen) {
  int32_t h[2] = {node, 0};
  cr_assert_eq(lbs__frame_build(out, type, h, 8, b, blen), LBS_OK);
}

/* node k holds elements 4k..4k+3 (one rank, MPI rank `rank`) */
static void mesh_of(lbs_buf *out, int32_t node, int64_t first, int64_t rank) {
  /* {node, nranks = 1}, then the rank's part {len, n = 4, dim 0, no adjacency, rank, ids} */
  uint8_t part[8 + 32 + 32];
  uint64_t len = 32 + 32;
  int64_t h[4] = {4, 0, 0, rank}, g[4] = {first, first + 1, first + 2, first + 3};
  memcpy(part, &len, 8), memcpy(part + 8, h, 32), memcpy(part + 40, g, 32);
  int32_t head[2] = {node, 1};
  cr_assert_eq(lbs__frame_build(out, FR_MESH, head, 8, part, sizeof part), LBS_OK);
}

static void mesh(lbs_buf *out, int32_t node, int64_t first) { mesh_of(out, node, first, node); }

static void step(lbs_buf *out, lbs_codec_ctx *cc, int32_t node, int64_t s) {
  double v[4] = {100.0 + node, 200, 300, 400 + (double)s};
  lbs_buf blob = {0};
  lbs_codec used;
  cr_assert_eq(lbs_codec_encode(cc, LBS_CODEC_LOSSLESS, v, 4, (lbs_bound){LBS_BOUND_LOSSLESS, 0},
                                &blob, &used),
               LBS_OK);
  struct {
    int32_t node, M;
    int64_t step, app, n;
    int32_t codec, pad;
    uint64_t len;
  } h = {node, 1, s, s, 4, (int32_t)used, 0, blob.len};
  cr_assert_eq(lbs__frame_build(out, FR_STEP, &h, sizeof h, blob.data, blob.len), LBS_OK);
  lbs_buf_free(&blob);
}

/* node's step s, and after its values nev doubles ev (its one rank's events) */
static void step_ev(lbs_buf *out, lbs_codec_ctx *cc, int32_t node, int64_t s, const double *ev,
                    int nev) {
  lbs_buf one = {0}, pay = {0};
  step(&one, cc, node, s); /* the same frame, its payload then the events */
  cr_assert_eq(lbs_buf_append(&pay, one.data + 16, one.len - 16), LBS_OK);
  cr_assert_eq(lbs_buf_append(&pay, ev, (size_t)nev * sizeof *ev), LBS_OK);
  cr_assert_eq(lbs__frame_build(out, FR_STEP, pay.data, pay.len, NULL, 0), LBS_OK);
  lbs_buf_free(&one), lbs_buf_free(&pay);
}

Test(collector, a_whole_run_from_two_nodes_is_written) {
  char path[64];
  tmp_path(path, sizeof path);
  lbs_coll *c = lbs__coll_create(path, 0, SECRET);
  int a = lbs__coll_open(c, -1, "a", 1), b = lbs__coll_open(c, -1, "b", 1);
  lbs_codec_ctx *cc;
  lbs_codec_ctx_create(&cc);
  prof_meta m = run_meta();
  lbs_buf fa = {0}, fb = {0};
  frame(&fa, FR_HELLO, 0, &m, sizeof m), mesh(&fa, 0, 0);
  frame(&fb, FR_HELLO, 1, &m, sizeof m), mesh(&fb, 1, 4);
  for (int s = 0; s < 3; s++) step(&fa, cc, 0, s), step(&fb, cc, 1, s);
  frame(&fa, FR_PING, 0, NULL, 0);
  prof_end e = {0, 3, 0, 0};
  frame(&fa, FR_END, 0, &e, sizeof e), frame(&fb, FR_END, 1, &e, sizeof e);
  /* in pieces of 7 bytes, interleaved */
  int ra = 0, rb = 0;
  for (size_t at = 0; at < fa.len || at < fb.len; at += 7) {
    if (at < fa.len && !ra)
      ra = lbs__coll_input(c, a, fa.data + at, fa.len - at < 7 ? fa.len - at : 7);
    if (at < fb.len && !rb)
      rb = lbs__coll_input(c, b, fb.data + at, fb.len - at < 7 ? fb.len - at : 7);
  }
  cr_assert_eq(ra, 1, "node 0 ended cleanly");
  cr_assert_eq(rb, 1, "node 1 ended cleanly");
  cr_assert_eq(lbs__coll_finish(c), 0);
  lbs__coll_free(c);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_steps(t), 3);
  double v[8];
  cr_assert_eq(lbs_trace_read(t, 2, 0, 0, 8, v), LBS_OK);
  cr_assert_eq(v[0], 100);
  cr_assert_eq(v[4], 101);
  cr_assert_eq(v[7], 402);
  lbs_trace_close(&t);
  lbs_codec_ctx_destroy(&cc);
  lbs_buf_free(&fa), lbs_buf_free(&fb);
  remove(path);
}

Test(collector, nothing_before_the_answer_and_no_wrong_answer) {
  char path[64];
  tmp_path(path, sizeof path);
  lbs_coll *c = lbs__coll_create(path, 0, SECRET);
  prof_meta m = run_meta();
  lbs_buf f = {0};
  /* a hello where the answer belongs */
  int k = lbs__coll_open(c, -1, "x", 0);
  frame(&f, FR_HELLO, 0, &m, sizeof m);
  cr_assert_eq(lbs__coll_input(c, k, f.data, f.len), -1);
  cr_assert_str_eq(lbs_errmsg(), "a frame (hello) before the challenge was answered");
  /* an answer of the right shape, with the wrong MAC */
  k = lbs__coll_open(c, -1, "y", 0);
  uint8_t wrong[8 + LBSPROF_MAC_BYTES] = {0};
  f.len = 0;
  cr_assert_eq(lbs__frame_build(&f, FR_AUTH, wrong, sizeof wrong, NULL, 0), LBS_OK);
  cr_assert_eq(lbs__coll_input(c, k, f.data, f.len), -1);
  cr_assert_str_eq(lbs_errmsg(), "wrong token (not this run's secret)");
  /* a header announcing 2 GiB: refused from its 16 bytes */
  k = lbs__coll_open(c, -1, "z", 0);
  uint8_t h[16];
  uint32_t magic = LBSPROF_FRAME_MAGIC, len = 1u << 31, crc = 0;
  uint16_t ver = LBSPROF_PROTO_VERSION, type = FR_AUTH;
  memcpy(h, &magic, 4), memcpy(h + 4, &ver, 2), memcpy(h + 6, &type, 2), memcpy(h + 8, &len, 4),
      memcpy(h + 12, &crc, 4);
  cr_assert_eq(lbs__coll_input(c, k, h, 16), -1);
  cr_assert_str_eq(lbs_errmsg(), "a frame (auth) announcing 2147483648 bytes (it has 40)");
  cr_assert_neq(lbs__coll_finish(c), 0, "no trace without a run");
  lbs__coll_free(c);
  cr_assert_neq(access(path, F_OK), 0, "nothing written");
  lbs_buf_free(&f);
}

Test(collector, the_right_answer_over_a_socket_lets_the_agent_in) {
  char path[64];
  tmp_path(path, sizeof path);
  int sv[2];
  cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  lbs_coll *c = lbs__coll_create(path, 0, SECRET);
  int k = lbs__coll_open(c, sv[0], "pair", 0); /* sends the challenge on sv[0] */
  cr_assert_geq(k, 0);
  cr_assert_eq(lbs__auth_answer(sv[1], SECRET, 0, 2), LBS_OK, "%s", lbs_errmsg());
  prof_meta m = run_meta();
  lbs_buf f = {0};
  frame(&f, FR_HELLO, 0, &m, sizeof m);
  cr_assert_eq(send(sv[1], f.data, f.len, 0), (ssize_t)f.len);
  uint8_t buf[4096];
  ssize_t n = recv(sv[0], buf, sizeof buf, 0);
  cr_assert_gt(n, 16);
  cr_assert_eq(lbs__coll_input(c, k, buf, (size_t)n), 0, "authenticated, then the hello: %s",
               lbs_errmsg());
  cr_assert_eq(lbs__auth_verdict(sv[1], 2), LBS_OK, "the collector says yes: %s", lbs_errmsg());
  /* a mesh announcing more than the run can hold is refused from its header */
  f.len = 0;
  uint8_t big[16];
  memcpy(big, "FSBL", 4); /* little-endian 'LBSF' */
  uint16_t ver = LBSPROF_PROTO_VERSION, type = FR_MESH;
  uint32_t len = 1u << 20, crc = 0;
  memcpy(big + 4, &ver, 2), memcpy(big + 6, &type, 2), memcpy(big + 8, &len, 4),
      memcpy(big + 12, &crc, 4);
  cr_assert_eq(lbs__coll_input(c, k, big, 16), -1);
  cr_assert(strstr(lbs_errmsg(), "a frame (mesh) announcing 1048576 bytes (at most"), "%s",
            lbs_errmsg());
  lbs__coll_finish(c);
  lbs__coll_free(c); /* closes sv[0] */
  close(sv[1]);
  lbs_buf_free(&f);
  remove(path);
}

Test(collector, a_wrong_secret_hears_no) {
  char path[64];
  tmp_path(path, sizeof path);
  int sv[2];
  cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  lbs_coll *c = lbs__coll_create(path, 0, SECRET);
  int k = lbs__coll_open(c, sv[0], "pair", 0);
  uint8_t other[LBSPROF_SECRET_BYTES] = {9};
  cr_assert_eq(lbs__auth_answer(sv[1], other, 0, 2), LBS_OK);
  uint8_t buf[256];
  ssize_t n = recv(sv[0], buf, sizeof buf, 0);
  cr_assert_eq(lbs__coll_input(c, k, buf, (size_t)n), -1);
  cr_assert_eq(lbs__auth_verdict(sv[1], 2), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "refused this run's token"), "%s", lbs_errmsg());
  lbs__coll_finish(c);
  lbs__coll_free(c);
  close(sv[1]);
  remove(path);
}

Test(collector, steps_out_of_order_and_elements_twice_are_refused) {
  char path[64];
  tmp_path(path, sizeof path);
  lbs_coll *c = lbs__coll_create(path, 0, SECRET);
  int a = lbs__coll_open(c, -1, "a", 1), b = lbs__coll_open(c, -1, "b", 1);
  lbs_codec_ctx *cc;
  lbs_codec_ctx_create(&cc);
  prof_meta m = run_meta();
  lbs_buf f = {0};
  frame(&f, FR_HELLO, 0, &m, sizeof m), mesh(&f, 0, 0), step(&f, cc, 0, 5), step(&f, cc, 0, 4);
  cr_assert_eq(lbs__coll_input(c, a, f.data, f.len), -1);
  cr_assert_str_eq(lbs_errmsg(), "step 4 after step 5");
  f.len = 0;
  frame(&f, FR_HELLO, 1, &m, sizeof m), mesh(&f, 1, 2); /* elements 2, 3 are node 0's */
  cr_assert_eq(lbs__coll_input(c, b, f.data, f.len), -1);
  cr_assert_str_eq(lbs_errmsg(), "element 2 is given twice");
  lbs__coll_finish(c);
  lbs__coll_free(c);
  lbs_codec_ctx_destroy(&cc);
  lbs_buf_free(&f);
  remove(path);
}

Test(collector, a_node_that_reconnects_takes_its_place_back) {
  char path[64];
  tmp_path(path, sizeof path);
  lbs_coll *c = lbs__coll_create(path, 0, SECRET);
  int a = lbs__coll_open(c, -1, "a", 1), b = lbs__coll_open(c, -1, "b", 1);
  lbs_codec_ctx *cc;
  lbs_codec_ctx_create(&cc);
  prof_meta m = run_meta();
  lbs_buf fa = {0}, fb = {0};
  frame(&fa, FR_HELLO, 0, &m, sizeof m), mesh(&fa, 0, 0);
  frame(&fb, FR_HELLO, 1, &m, sizeof m), mesh(&fb, 1, 4);
  cr_assert_eq(lbs__coll_input(c, a, fa.data, fa.len), 0);
  cr_assert_eq(lbs__coll_input(c, b, fb.data, fb.len), 0);
  lbs__coll_close(c, a, "the network went away"); /* node 0 lost... */
  a = lbs__coll_open(c, -1, "a again", 1);        /* ...and back: hello and mesh again */
  cr_assert_eq(lbs__coll_input(c, a, fa.data, fa.len), 0);
  fa.len = fb.len = 0;
  for (int s = 0; s < 3; s++) step(&fa, cc, 0, s), step(&fb, cc, 1, s);
  prof_end e = {0, 3, 0, 0};
  frame(&fa, FR_END, 0, &e, sizeof e), frame(&fb, FR_END, 1, &e, sizeof e);
  cr_assert_eq(lbs__coll_input(c, a, fa.data, fa.len), 1);
  cr_assert_eq(lbs__coll_input(c, b, fb.data, fb.len), 1);
  cr_assert_eq(lbs__coll_finish(c), 0, "every step of the run is there");
  lbs__coll_free(c);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK);
  cr_assert_eq(lbs_trace_steps(t), 3);
  lbs_trace_close(&t);
  lbs_codec_ctx_destroy(&cc);
  lbs_buf_free(&fa), lbs_buf_free(&fb);
  remove(path);
}

/* What the collector says goes through lbs_log, as "collect: ..." lines with their levels: the
 * program that runs it (lbsim collect, lbsprof-agent) decides the prefix and how much is shown. */
#define HEARD_MAX 16
typedef struct {
  int n;
  lbs_log_level level[HEARD_MAX];
  char msg[HEARD_MAX][300];
} heard;

static void hear(void *arg, lbs_log_level level, const char *msg) {
  heard *h = arg;
  if (h->n == HEARD_MAX) return;
  h->level[h->n] = level;
  snprintf(h->msg[h->n++], sizeof h->msg[0], "%s", msg);
}

static int heard_at(const heard *h, lbs_log_level level, const char *text) {
  for (int i = 0; i < h->n; i++)
    if (h->level[i] == level && !strcmp(h->msg[i], text)) return 1;
  return 0;
}

Test(collector, it_speaks_through_the_log) {
  char path[64], wrote[256];
  tmp_path(path, sizeof path);
  heard h = {0};
  lbs_log_set_sink(hear, &h);
  lbs_log_set_level(LBS_LOG_DEBUG);
  lbs_coll *c = lbs__coll_create(path, 0, SECRET);
  int a = lbs__coll_open(c, -1, "a", 1), b = lbs__coll_open(c, -1, "b", 1);
  lbs_codec_ctx *cc;
  lbs_codec_ctx_create(&cc);
  prof_meta m = run_meta();
  lbs_buf fa = {0}, fb = {0};
  frame(&fa, FR_HELLO, 0, &m, sizeof m), mesh(&fa, 0, 0);
  frame(&fb, FR_HELLO, 1, &m, sizeof m), mesh(&fb, 1, 4);
  cr_assert_eq(lbs__coll_input(c, a, fa.data, fa.len), 0);
  cr_assert_eq(lbs__coll_input(c, b, fb.data, fb.len), 0);
  cr_assert(heard_at(&h, LBS_LOG_DEBUG, "collect: node 1's agent (b) joined"));
  lbs__coll_close(c, a, "the network went away");
  cr_assert(
      heard_at(&h, LBS_LOG_WARN,
               "collect: node 0's agent (a): the network went away; dropping its connection"));
  cr_assert(heard_at(
      &h, LBS_LOG_WARN,
      "collect: node 0's agent went away before its end; later steps of the run are incomplete"));
  fb.len = 0;
  for (int s = 0; s < 2; s++) step(&fb, cc, 1, s);
  prof_end e = {0, 2, 0, 0};
  frame(&fb, FR_END, 1, &e, sizeof e);
  cr_assert_eq(lbs__coll_input(c, b, fb.data, fb.len), 1);
  cr_assert_neq(lbs__coll_finish(c), 0, "node 0 never came back: the run is incomplete");
  snprintf(wrote, sizeof wrote,
           "collect: wrote %s: 0 steps (the run did not end cleanly: see its profiler.* metadata)",
           path);
  cr_assert(heard_at(&h, LBS_LOG_WARN, wrote), "an incomplete run's summary is a warning");
  for (int i = 0; i < h.n; i++)
    cr_assert(!strncmp(h.msg[i], "collect: ", 9), "no program prefix: %s", h.msg[i]);
  lbs__coll_free(c);
  lbs_codec_ctx_destroy(&cc);
  lbs_buf_free(&fa), lbs_buf_free(&fb);
  remove(path);
}

/* node's REMAP from step `from`: its one rank holds ids g[0..3] */
static void remap(lbs_buf *out, int32_t node, int64_t from, const int64_t g[4]) {
  prof_remap_hdr h = {node, 1, from};
  uint8_t rest[8 + 32];
  int64_t n = 4;
  memcpy(rest, &n, 8), memcpy(rest + 8, g, 32);
  cr_assert_eq(lbs__frame_build(out, FR_REMAP, &h, sizeof h, rest, sizeof rest), LBS_OK);
}

Test(collector, a_remap_moves_the_values_and_records_the_owners) {
  char path[64];
  tmp_path(path, sizeof path);
  lbs_coll *c = lbs__coll_create(path, 0, SECRET);
  int a = lbs__coll_open(c, -1, "a", 1), b = lbs__coll_open(c, -1, "b", 1);
  lbs_codec_ctx *cc;
  lbs_codec_ctx_create(&cc);
  prof_meta m = run_meta();
  lbs_buf fa = {0}, fb = {0};
  frame(&fa, FR_HELLO, 0, &m, sizeof m), mesh(&fa, 0, 0);
  frame(&fb, FR_HELLO, 1, &m, sizeof m), mesh(&fb, 1, 4);
  for (int s = 0; s < 2; s++) step(&fa, cc, 0, s), step(&fb, cc, 1, s);
  /* from step 2 the nodes swap their elements (node 0's in reverse); node 0's remap comes
   * twice, as from an agent that reconnected: the second is skipped */
  static const int64_t g0[4] = {7, 6, 5, 4}, g1[4] = {0, 1, 2, 3};
  remap(&fa, 0, 2, g0), remap(&fa, 0, 2, g0), remap(&fb, 1, 2, g1);
  for (int s = 2; s < 4; s++) step(&fa, cc, 0, s), step(&fb, cc, 1, s);
  prof_end e = {0, 4, 0, 0};
  frame(&fa, FR_END, 0, &e, sizeof e), frame(&fb, FR_END, 1, &e, sizeof e);
  cr_assert_eq(lbs__coll_input(c, a, fa.data, fa.len), 1, "%s", lbs_errmsg());
  cr_assert_eq(lbs__coll_input(c, b, fb.data, fb.len), 1, "%s", lbs_errmsg());
  cr_assert_eq(lbs__coll_finish(c), 0);
  lbs__coll_free(c);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_steps(t), 4);
  double v[8];
  cr_assert_eq(lbs_trace_read(t, 1, 0, 0, 8, v), LBS_OK);
  cr_assert(v[0] == 100 && v[3] == 401 && v[4] == 101 && v[7] == 401, "step 1 as meshed");
  cr_assert_eq(lbs_trace_read(t, 3, 0, 0, 8, v), LBS_OK);
  cr_assert(v[7] == 100 && v[4] == 403 && v[0] == 101 && v[3] == 403, "step 3 as remapped");
  cr_assert_eq(lbs_trace_owners_count(t), 2);
  cr_assert(lbs_trace_owners_step(t, 0) == 0 && lbs_trace_owners_step(t, 1) == 2);
  int64_t own[8];
  cr_assert_eq(lbs_trace_owners_read(t, 0, own), LBS_OK);
  for (int i = 0; i < 8; i++) cr_assert_eq(own[i], i / 4, "element %d at step 0", i);
  cr_assert_eq(lbs_trace_owners_read(t, 1, own), LBS_OK);
  for (int i = 0; i < 8; i++) cr_assert_eq(own[i], 1 - i / 4, "element %d from step 2", i);
  lbs_trace_close(&t);
  lbs_codec_ctx_destroy(&cc);
  lbs_buf_free(&fa), lbs_buf_free(&fb);
  remove(path);
}

Test(collector, bad_remaps_are_refused) {
  static const int64_t twice[4] = {0, 1, 1, 2}, out[4] = {0, 1, 2, 8}, ok[4] = {3, 2, 1, 0};
  const struct {
    const int64_t *g;
    int64_t from;
    const char *msg;
  } bad[] = {{twice, 2, "a remap from step 2: element 1 is on the node twice"},
             {out, 2, "a remap from step 2: element id 8 is out of range"},
             {ok, 1, "a remap from step 1 after step 1"}};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    char path[64];
    tmp_path(path, sizeof path);
    lbs_coll *c = lbs__coll_create(path, 0, SECRET);
    int a = lbs__coll_open(c, -1, "a", 1);
    lbs_codec_ctx *cc;
    lbs_codec_ctx_create(&cc);
    prof_meta m = run_meta();
    lbs_buf f = {0};
    frame(&f, FR_HELLO, 0, &m, sizeof m), mesh(&f, 0, 0), step(&f, cc, 0, 0), step(&f, cc, 0, 1);
    remap(&f, 0, bad[k].from, bad[k].g);
    cr_assert_eq(lbs__coll_input(c, a, f.data, f.len), -1);
    cr_assert_str_eq(lbs_errmsg(), bad[k].msg);
    lbs__coll_finish(c);
    lbs__coll_free(c);
    lbs_codec_ctx_destroy(&cc);
    lbs_buf_free(&f);
    remove(path);
  }
}

/* two nodes whose one rank each is MPI rank 1 (node 0) and 0 (node 1): every step's events are
 * stored at the MPI rank, rank-major; a step frame without its events is refused */
Test(collector, the_events_go_to_their_ranks) {
  char path[64];
  tmp_path(path, sizeof path);
  lbs_coll *c = lbs__coll_create(path, 0, SECRET);
  int a = lbs__coll_open(c, -1, "a", 1), b = lbs__coll_open(c, -1, "b", 1);
  lbs_codec_ctx *cc;
  lbs_codec_ctx_create(&cc);
  prof_meta m = run_meta();
  m.nevents = 2;
  snprintf(m.event[0], 32, "partition_s"), snprintf(m.event[1], 32, "migration_s");
  lbs_buf fa = {0}, fb = {0};
  frame(&fa, FR_HELLO, 0, &m, sizeof m), mesh_of(&fa, 0, 0, 1);
  frame(&fb, FR_HELLO, 1, &m, sizeof m), mesh_of(&fb, 1, 4, 0);
  for (int s = 0; s < 2; s++) {
    double ea[2] = {1 + s, 10 + s}, eb[2] = {100 + s, 1000 + s};
    step_ev(&fa, cc, 0, s, ea, 2), step_ev(&fb, cc, 1, s, eb, 2);
  }
  prof_end e = {0, 2, 0, 0};
  frame(&fa, FR_END, 0, &e, sizeof e), frame(&fb, FR_END, 1, &e, sizeof e);
  cr_assert_eq(lbs__coll_input(c, a, fa.data, fa.len), 1, "%s", lbs_errmsg());
  cr_assert_eq(lbs__coll_input(c, b, fb.data, fb.len), 1, "%s", lbs_errmsg());
  cr_assert_eq(lbs__coll_finish(c), 0);
  lbs__coll_free(c);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_nevents(t), 2);
  cr_assert_eq(lbs_trace_event_ranks(t), 2);
  cr_assert_str_eq(lbs_trace_event_name(t, 1), "migration_s");
  double ev[4];
  int have = 0;
  cr_assert_eq(lbs_trace_read_events(t, 1, ev, &have), LBS_OK, "%s", lbs_errmsg());
  cr_assert(have && ev[0] == 101 && ev[1] == 1001 && ev[2] == 2 && ev[3] == 11, "%g %g %g %g",
            ev[0], ev[1], ev[2], ev[3]);
  lbs_trace_close(&t);
  remove(path);
  /* node 0 leaves its events out: refused */
  c = lbs__coll_create(path, 0, SECRET);
  a = lbs__coll_open(c, -1, "a", 1);
  lbs_buf fc = {0};
  frame(&fc, FR_HELLO, 0, &m, sizeof m), mesh_of(&fc, 0, 0, 1), step(&fc, cc, 0, 0);
  cr_assert_eq(lbs__coll_input(c, a, fc.data, fc.len), -1);
  cr_assert(strstr(lbs_errmsg(), "0 bytes after the values, not 1 ranks x 2 events"), "%s",
            lbs_errmsg());
  lbs__coll_free(c);
  remove(path);
  lbs_codec_ctx_destroy(&cc);
  lbs_buf_free(&fa), lbs_buf_free(&fb), lbs_buf_free(&fc);
}

/* the phases of time_ns (prof_meta.phases): a marked metric that is not time_ns.NAME of a run
 * with time_ns, or beyond the run's metrics, is refused in the hello */
Test(collector, bad_phases_are_refused) {
  static const struct {
    uint32_t phases;
    const char *second; /* metric 1's name */
  } bad[] = {{1u << 0, "time_ns.A"}, {1u << 1, "weight"},     {1u << 1, "time_ns."},
             {1u << 2, "time_ns.A"}, {1u << 1, "time_ns.A/"}, {1u << 20, "time_ns.A"}};
  for (size_t k = 0; k < sizeof bad / sizeof *bad + 1; k++) {
    char path[64];
    tmp_path(path, sizeof path);
    lbs_coll *c = lbs__coll_create(path, 0, SECRET);
    int a = lbs__coll_open(c, -1, "a", 1);
    prof_meta m = run_meta();
    m.nmetrics = 2;
    if (k < sizeof bad / sizeof *bad) {
      m.phases = bad[k].phases;
      snprintf(m.name[1], 32, "%s", bad[k].second);
    } else { /* time_ns.A in a run without time_ns */
      m.phases = 1u << 1;
      snprintf(m.name[0], 32, "cycles"), snprintf(m.name[1], 32, "time_ns.A");
    }
    lbs_buf f = {0};
    frame(&f, FR_HELLO, 0, &m, sizeof m);
    cr_assert_eq(lbs__coll_input(c, a, f.data, f.len), -1, "case %zu accepted", k);
    cr_assert_str_eq(lbs_errmsg(), "a bad run description (the phases of time_ns)", "case %zu", k);
    lbs__coll_free(c);
    lbs_buf_free(&f);
    remove(path);
  }
  /* and a good one is taken */
  lbs_coll *c = lbs__coll_create("/tmp/lbs_test_collector_unused.lbt", 0, SECRET);
  int a = lbs__coll_open(c, -1, "a", 1);
  prof_meta m = run_meta();
  m.nmetrics = 2, m.phases = 1u << 1;
  snprintf(m.name[1], 32, "time_ns.A");
  lbs_buf f = {0};
  frame(&f, FR_HELLO, 0, &m, sizeof m);
  cr_assert_eq(lbs__coll_input(c, a, f.data, f.len), 0, "%s", lbs_errmsg());
  lbs__coll_free(c);
  lbs_buf_free(&f);
}

/* A step being assembled holds every rank's events too: a run claiming more ranks x events than
 * the step cap allows is refused at its hello, before anything is allocated (the fuzzer found a
 * hello of ~10^8 ranks x 8 events that asked for 6.7 GB per step). */
Test(collector, a_run_whose_events_exceed_the_step_cap_is_refused) {
  setenv("LBSPROF_COLLECT_STEP_MB", "64", 1);
  lbs_coll *c = lbs__coll_create("/tmp/lbs_test_collector_unused.lbt", 0, SECRET);
  int a = lbs__coll_open(c, -1, "a", 1);
  prof_meta m = run_meta();
  m.ranks = 1 << 24, m.nevents = 1;
  snprintf(m.event[0], 32, "partition_s");
  lbs_buf f = {0};
  frame(&f, FR_HELLO, 0, &m, sizeof m);
  cr_assert_eq(lbs__coll_input(c, a, f.data, f.len), -1);
  cr_assert(strstr(lbs_errmsg(), "16777216 ranks x 1 events needs 128 MiB per step, over the cap "
                                 "of 64 MiB (LBSPROF_COLLECT_STEP_MB)"),
            "%s", lbs_errmsg());
  lbs__coll_free(c);
  /* half as many ranks fit */
  c = lbs__coll_create("/tmp/lbs_test_collector_unused.lbt", 0, SECRET);
  a = lbs__coll_open(c, -1, "a", 1);
  m.ranks = 1 << 22;
  f.len = 0;
  frame(&f, FR_HELLO, 0, &m, sizeof m);
  cr_assert_eq(lbs__coll_input(c, a, f.data, f.len), 0, "%s", lbs_errmsg());
  lbs__coll_free(c);
  lbs_buf_free(&f);
}

/* Arc weights (lbsprof_mesh_weighted) and the edge rule (lbsprof_meta "edge_weight"): one node
 * of one rank, a ring of 4 elements whose arcs u -> u+1 are close (1) and u -> u-1 are not (0),
 * time_ns and rwgt recorded. */
static prof_meta ring_meta(void) {
  prof_meta m = run_meta();
  m.elements = 4, m.nmetrics = 2, m.mesh_kind = 2, m.has_adj = 1, m.adj_entries = 8;
  m.nodes = 1, m.ranks = 1, m.dims[0] = m.dims[1] = m.dims[2] = 0, m.adj_weights = 1;
  snprintf(m.name[1], 32, LBS_EDGE_RULE_METRIC);
  snprintf(m.app, sizeof m.app, "edge_weight=" LBS_EDGE_RULE "\n");
  return m;
}

static const int64_t RING_ADJ[8] = {1, 3, 2, 0, 3, 1, 0, 2};

static void ring_mesh(lbs_buf *out, const double w[8]) {
  int64_t h[4] = {4, 0, 1, 0}, g[4] = {0, 1, 2, 3}, deg[4] = {2, 2, 2, 2};
  lbs_buf part = {0};
  uint64_t len = sizeof h + sizeof g + sizeof deg + sizeof RING_ADJ + 8 * sizeof *w;
  lbs_buf_append(&part, &len, 8), lbs_buf_append(&part, h, sizeof h);
  lbs_buf_append(&part, g, sizeof g), lbs_buf_append(&part, deg, sizeof deg);
  lbs_buf_append(&part, RING_ADJ, sizeof RING_ADJ), lbs_buf_append(&part, w, 8 * sizeof *w);
  int32_t head[2] = {0, 1};
  cr_assert_eq(lbs__frame_build(out, FR_MESH, head, 8, part.data, part.len), LBS_OK);
  lbs_buf_free(&part);
}

/* step s: time_ns 1000 + i, rwgt (s + 1) x (i + 1) */
static void ring_step(lbs_buf *out, lbs_codec_ctx *cc, int64_t s) {
  struct {
    int32_t node, M;
    int64_t step, app, n;
  } h = {0, 2, s, s, 4};
  lbs_buf pay = {0};
  lbs_buf_append(&pay, &h, sizeof h);
  for (int m = 0; m < 2; m++) {
    double v[4];
    for (int i = 0; i < 4; i++) v[i] = m ? (double)((s + 1) * (i + 1)) : 1000.0 + i;
    lbs_buf blob = {0};
    lbs_codec used;
    cr_assert_eq(lbs_codec_encode(cc, LBS_CODEC_LOSSLESS, v, 4, (lbs_bound){LBS_BOUND_LOSSLESS, 0},
                                  &blob, &used),
                 LBS_OK);
    struct {
      int32_t codec, pad;
      uint64_t len;
    } c = {(int32_t)used, 0, blob.len};
    lbs_buf_append(&pay, &c, sizeof c), lbs_buf_append(&pay, blob.data, blob.len);
    lbs_buf_free(&blob);
  }
  cr_assert_eq(lbs__frame_build(out, FR_STEP, pay.data, pay.len, NULL, 0), LBS_OK);
  lbs_buf_free(&pay);
}

Test(collector, arc_weights_and_the_edge_rule_reach_the_trace) {
  char path[64];
  tmp_path(path, sizeof path);
  lbs_coll *c = lbs__coll_create(path, 0, SECRET);
  int a = lbs__coll_open(c, -1, "a", 1);
  lbs_codec_ctx *cc;
  lbs_codec_ctx_create(&cc);
  prof_meta m = ring_meta();
  static const double flag[8] = {1, 0, 1, 0, 1, 0, 1, 0}; /* u -> u+1 close, not the reverse */
  lbs_buf f = {0};
  frame(&f, FR_HELLO, 0, &m, sizeof m), ring_mesh(&f, flag);
  for (int s = 0; s < 2; s++) ring_step(&f, cc, s);
  prof_end e = {0, 2, 0, 0};
  frame(&f, FR_END, 0, &e, sizeof e);
  cr_assert_eq(lbs__coll_input(c, a, f.data, f.len), 1, "%s", lbs_errmsg());
  cr_assert_eq(lbs__coll_finish(c), 0);
  lbs__coll_free(c);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_str_eq(lbs_trace_meta(t, "edge_weight"), LBS_EDGE_RULE);
  cr_assert_str_eq(lbs_trace_meta(t, "app.edge_weight"), LBS_EDGE_RULE);
  cr_assert(lbs_trace_edge_weights_vary(t));
  const int64_t *xadj, *adj;
  const double *w;
  cr_assert_eq(lbs_mesh_graph(lbs_trace_mesh(t), &xadj, &adj, &w), LBS_OK);
  cr_assert(lbs_mesh_directed(lbs_trace_mesh(t)), "weights per direction: a directed mesh");
  for (int k = 0; k < 8; k++)
    cr_assert(adj[k] == RING_ADJ[k] && w[k] == flag[k], "arc %d: %lld %g", k, (long long)adj[k],
              w[k]);
  /* the rule at each step: flag x rwgt of the target, rwgt (s + 1) x (v + 1) */
  for (int s = 0; s < 2; s++) {
    double cw[8];
    cr_assert_eq(lbs_trace_edge_weights(t, s, cw), LBS_OK, "%s", lbs_errmsg());
    for (int k = 0; k < 8; k++)
      cr_assert_eq(cw[k], flag[k] * (double)((s + 1) * (RING_ADJ[k] + 1)), "step %d arc %d", s, k);
  }
  lbs_trace_close(&t);
  lbs_codec_ctx_destroy(&cc);
  lbs_buf_free(&f);
  remove(path);
}

Test(collector, bad_arc_weights_and_rules_are_refused) {
  /* weights: negative, NaN, infinite; the mesh is refused with the arc named */
  static const double bad[3] = {-1, NAN, INFINITY};
  for (int k = 0; k < 3; k++) {
    char path[64];
    tmp_path(path, sizeof path);
    lbs_coll *c = lbs__coll_create(path, 0, SECRET);
    int a = lbs__coll_open(c, -1, "a", 1);
    prof_meta m = ring_meta();
    double w[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    w[5] = bad[k];
    lbs_buf f = {0};
    frame(&f, FR_HELLO, 0, &m, sizeof m), ring_mesh(&f, w);
    cr_assert_eq(lbs__coll_input(c, a, f.data, f.len), -1, "weight %g accepted", bad[k]);
    cr_assert(strstr(lbs_errmsg(), "rank 0's arc to 1 weighs") &&
                  strstr(lbs_errmsg(), "weights are finite and >= 0"),
              "%s", lbs_errmsg());
    lbs__coll_free(c);
    lbs_buf_free(&f);
    remove(path);
  }
  /* descriptions: weights without adjacency, a flag out of {0, 1}, a rule lbsim does not know, the
   * rule without its metric */
  for (int k = 0; k < 4; k++) {
    lbs_coll *c = lbs__coll_create("/tmp/lbs_test_collector_unused.lbt", 0, SECRET);
    int a = lbs__coll_open(c, -1, "a", 1);
    prof_meta m = ring_meta();
    if (k == 0) m.has_adj = 0, m.adj_entries = 0;
    if (k == 1) m.adj_weights = 2;
    if (k == 2) snprintf(m.app, sizeof m.app, "edge_weight=flag*pwgt[target]\n");
    if (k == 3) snprintf(m.name[1], 32, "pwgt");
    lbs_buf f = {0};
    frame(&f, FR_HELLO, 0, &m, sizeof m);
    cr_assert_eq(lbs__coll_input(c, a, f.data, f.len), -1, "case %d accepted", k);
    cr_assert(strstr(lbs_errmsg(), k < 2 ? "(the arc weights)" : "(the edge rule"), "case %d: %s",
              k, lbs_errmsg());
    lbs__coll_free(c);
    lbs_buf_free(&f);
  }
}

/* Arc weights per step (edge_weight = stored@step, prof_meta.edge_steps): the ring's node sends,
 * after each step's values, its rank's count of weights (-1: none) and the weights. */
static prof_meta steps_meta(void) {
  prof_meta m = ring_meta();
  m.edge_steps = 1;
  snprintf(m.app, sizeof m.app, "edge_weight=" LBS_EDGE_STEPS "\n");
  return m;
}

/* ring step s with its trailer: cnt, then n weights w */
static void ring_step_w(lbs_buf *out, lbs_codec_ctx *cc, int64_t s, int64_t cnt, const double *w,
                        int n) {
  lbs_buf one = {0}, pay = {0};
  ring_step(&one, cc, s);
  cr_assert_eq(lbs_buf_append(&pay, one.data + 16, one.len - 16), LBS_OK);
  cr_assert_eq(lbs_buf_append(&pay, &cnt, sizeof cnt), LBS_OK);
  if (n) cr_assert_eq(lbs_buf_append(&pay, w, (size_t)n * sizeof *w), LBS_OK);
  cr_assert_eq(lbs__frame_build(out, FR_STEP, pay.data, pay.len, NULL, 0), LBS_OK);
  lbs_buf_free(&one), lbs_buf_free(&pay);
}

Test(collector, arc_weights_per_step_are_stored_where_they_change) {
  char path[64];
  tmp_path(path, sizeof path);
  lbs_coll *c = lbs__coll_create(path, 0, SECRET);
  int a = lbs__coll_open(c, -1, "a", 1);
  lbs_codec_ctx *cc;
  lbs_codec_ctx_create(&cc);
  prof_meta m = steps_meta();
  static const double flag[8] = {1, 0, 1, 0, 1, 0, 1, 0};
  double w0[8], w3[8];
  for (int k = 0; k < 8; k++) w0[k] = 10 + k, w3[k] = k == 6 ? 0.5 : w0[k];
  lbs_buf f = {0};
  frame(&f, FR_HELLO, 0, &m, sizeof m), ring_mesh(&f, flag);
  /* new at 0, none at 1, the same at 2, one arc changed at 3 */
  ring_step_w(&f, cc, 0, 8, w0, 8), ring_step_w(&f, cc, 1, -1, NULL, 0);
  ring_step_w(&f, cc, 2, 8, w0, 8), ring_step_w(&f, cc, 3, 8, w3, 8);
  prof_end e = {0, 4, 0, 0};
  frame(&f, FR_END, 0, &e, sizeof e);
  cr_assert_eq(lbs__coll_input(c, a, f.data, f.len), 1, "%s", lbs_errmsg());
  cr_assert_eq(lbs__coll_finish(c), 0);
  lbs__coll_free(c);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_str_eq(lbs_trace_meta(t, "edge_weight"), LBS_EDGE_STEPS);
  static const int64_t from_want[4] = {0, 0, 0, 3};
  for (int s = 0; s < 4; s++) {
    double cw[8];
    int64_t from;
    cr_assert_eq(lbs_trace_edge_weights_slice(t, s, 0, 8, cw, &from), LBS_OK, "%s", lbs_errmsg());
    cr_assert_eq(from, from_want[s], "step %d: the array of step %lld", s, (long long)from);
    cr_assert_eq(memcmp(cw, s == 3 ? w3 : w0, sizeof cw), 0, "step %d's weights", s);
  }
  lbs_trace_close(&t);
  lbs_codec_ctx_destroy(&cc);
  lbs_buf_free(&f);
  remove(path);
}

Test(collector, bad_arc_weights_per_step_are_refused) {
  double w[8] = {1, 1, 1, 1, 1, 1, 1, 1}, neg[8] = {1, 1, -1, 1, 1, 1, 1, 1};
  struct {
    int64_t cnt;
    const double *w;
    int n;
    const char *want;
  } bad[] = {{7, w, 7,
              "step 0: node 0's local rank 0 (rank 0) gives 7 arc weights, its 4 elements "
              "have 8 arcs"},
             {8, neg, 8, "step 0: arc weight 2 of node 0 is -1 (finite and >= 0)"},
             {8, w, 7, "step 0: 56 bytes of arc weights, not 8 weights"},
             {-2, NULL, 0, "step 0: local rank 0 gives -2 arc weights"},
             {1 << 20, NULL, 0, "step 0: local rank 0 gives 1048576 arc weights"}};
  lbs_codec_ctx *cc;
  lbs_codec_ctx_create(&cc);
  static const double flag[8] = {1, 0, 1, 0, 1, 0, 1, 0};
  char path[64];
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    tmp_path(path, sizeof path); /* the trace is created at the mesh: its graph checks the counts */
    lbs_coll *c = lbs__coll_create(path, 0, SECRET);
    int a = lbs__coll_open(c, -1, "a", 1);
    prof_meta m = steps_meta();
    lbs_buf f = {0};
    frame(&f, FR_HELLO, 0, &m, sizeof m), ring_mesh(&f, flag);
    ring_step_w(&f, cc, 0, bad[k].cnt, bad[k].w, bad[k].n);
    cr_assert_eq(lbs__coll_input(c, a, f.data, f.len), -1, "case %zu accepted", k);
    cr_assert(strstr(lbs_errmsg(), bad[k].want), "case %zu: %s", k, lbs_errmsg());
    lbs__coll_free(c);
    lbs_buf_free(&f);
    remove(path);
  }
  /* a step without the counts: the frame of a run without stored@step */
  tmp_path(path, sizeof path);
  lbs_coll *c = lbs__coll_create(path, 0, SECRET);
  int a = lbs__coll_open(c, -1, "a", 1);
  prof_meta m = steps_meta();
  lbs_buf f = {0};
  frame(&f, FR_HELLO, 0, &m, sizeof m), ring_mesh(&f, flag), ring_step(&f, cc, 0);
  cr_assert_eq(lbs__coll_input(c, a, f.data, f.len), -1, "a step without its counts accepted");
  cr_assert(strstr(lbs_errmsg(), "fewer than the ranks' counts of arc weights"), "%s",
            lbs_errmsg());
  lbs__coll_free(c);
  lbs_buf_free(&f);
  remove(path);
  /* descriptions: stored@step without edge_steps and the reverse, edge_steps out of {0, 1},
   * elements without arcs */
  for (int k = 0; k < 4; k++) {
    c = lbs__coll_create("/tmp/lbs_test_collector_unused.lbt", 0, SECRET);
    a = lbs__coll_open(c, -1, "a", 1);
    m = steps_meta();
    if (k == 0) m.edge_steps = 0;
    if (k == 1) snprintf(m.app, sizeof m.app, "edge_weight=" LBS_EDGE_RULE "\n");
    if (k == 2) m.edge_steps = 2;
    if (k == 3) m.has_adj = 0, m.adj_entries = 0, m.adj_weights = 0;
    f = (lbs_buf){0};
    frame(&f, FR_HELLO, 0, &m, sizeof m);
    cr_assert_eq(lbs__coll_input(c, a, f.data, f.len), -1, "case %d accepted", k);
    cr_assert(strstr(lbs_errmsg(), "(the edge rule"), "case %d: %s", k, lbs_errmsg());
    lbs__coll_free(c);
    lbs_buf_free(&f);
  }
  lbs_codec_ctx_destroy(&cc);
}
