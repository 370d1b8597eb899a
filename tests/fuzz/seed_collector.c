/* seed_collector DIR: writes seed inputs for fuzz_collector (records {u8 control, u32 length,
 * payload}, each sent as a frame: see fuzz_collector.c) that hold a whole run as agents send it:
 * hello, mesh, encoded steps, a remap (from step 2: each rank's ids reversed), pings and ends,
 * from two nodes (elements with coordinates, adjacency, arc weights and the edge rule over the
 * metric rwgt) and from one node (a box, with two
 * events: each rank's partition_s and migration_s after each step's values, and time_ns's one
 * phase, the metric time_ns.A), and the two nodes again with arc weights per step (stored@step:
 * each rank's count and weights after the events, every other step). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_traces.h"
#include "prof_int.h"

/* f: a frame just built; its payload goes out as a record of that frame type on connection conn
 * (the control byte's value mod 3: its two low bits are free for that) */
static void rec(lbs_buf *out, int conn, const lbs_buf *f) {
  uint16_t type;
  memcpy(&type, f->data + 6, 2);
  uint8_t h[5] = {0};
  for (int lo = 3; lo >= 0; lo--)
    if ((0x80 | type << 2 | lo) % 3 == conn) h[0] = (uint8_t)(0x80 | type << 2 | lo);
  uint32_t len = (uint32_t)f->len - 16;
  memcpy(h + 1, &len, 4);
  lbs_buf_append(out, h, 5);
  lbs_buf_append(out, f->data + 16, f->len - 16);
}

/* One node's frames: its share of E elements (every nodes-th id), ranks local ranks. */
static void node_frames(lbs_buf *out, int conn, int node, int nodes, int ranks, prof_meta m,
                        int steps, int box) {
  lbs_buf f = {0}, pay = {0}, blob = {0};
  int32_t hn[2] = {node, 0};
  lbs_buf_append(&pay, hn, 8), lbs_buf_append(&pay, &m, sizeof m);
  lbs__frame_build(&f, FR_HELLO, pay.data, pay.len, NULL, 0), rec(out, conn, &f);
  /* the mesh: the node's ids split over its ranks */
  int64_t E = m.elements, mine[4096], n = 0;
  for (int64_t id = node; id < E && n < 4096; id += nodes) mine[n++] = id;
  pay.len = 0, f.len = 0;
  int32_t mh[2] = {node, ranks};
  lbs_buf_append(&pay, mh, 8);
  for (int r = 0; r < ranks; r++) {
    int64_t lo = n * r / ranks, hi = n * (r + 1) / ranks, cnt = hi - lo;
    lbs_buf part = {0};
    int64_t h[4] = {cnt, m.dim, m.has_adj, (node * ranks + r) % m.ranks};
    lbs_buf_append(&part, h, sizeof h);
    lbs_buf_append(&part, mine + lo, (size_t)cnt * 8);
    for (int64_t i = lo; i < hi && m.dim; i++) {
      double x[2] = {(double)(mine[i] % 6), (double)(mine[i] / 6)};
      lbs_buf_append(&part, x, sizeof x);
    }
    if (m.has_adj) {
      for (int64_t i = lo; i < hi; i++) {
        int64_t d = (mine[i] > 0) + (mine[i] < E - 1);
        lbs_buf_append(&part, &d, 8);
      }
      for (int64_t i = lo; i < hi; i++) {
        int64_t a = mine[i] - 1, b = mine[i] + 1;
        if (mine[i] > 0) lbs_buf_append(&part, &a, 8);
        if (mine[i] < E - 1) lbs_buf_append(&part, &b, 8);
      }
      for (int64_t i = lo; i < hi && m.adj_weights; i++) { /* down 0 (not close), up 1 + id */
        double a = 0, b = 1.0 + (double)mine[i];
        if (mine[i] > 0) lbs_buf_append(&part, &a, 8);
        if (mine[i] < E - 1) lbs_buf_append(&part, &b, 8);
      }
    }
    uint64_t len = part.len;
    lbs_buf_append(&pay, &len, 8), lbs_buf_append(&pay, part.data, part.len);
    lbs_buf_free(&part);
  }
  lbs__frame_build(&f, FR_MESH, pay.data, pay.len, NULL, 0), rec(out, conn, &f);
  (void)box;
  lbs_codec_ctx *cc;
  lbs_codec_ctx_create(&cc);
  for (int s = 0; s < steps; s++) {
    pay.len = 0, f.len = 0;
    struct {
      int32_t node, M;
      int64_t step, app, n;
    } sh = {node, m.nmetrics, s, s * 10, n};
    lbs_buf_append(&pay, &sh, sizeof sh);
    for (int k = 0; k < m.nmetrics; k++) {
      double v[4096];
      for (int64_t i = 0; i < n; i++)
        v[i] = 700 + 13 * ((mine[i] * 7 + s + k) % 11) + (i == 3 ? 7e6 : 0);
      lbs_codec used;
      blob.len = 0;
      lbs_bound b = k ? (lbs_bound){LBS_BOUND_LOSSLESS, 0} : (lbs_bound){LBS_BOUND_REL, 0.002};
      lbs_codec_encode(cc, k ? LBS_CODEC_LOSSLESS : LBS_CODEC_AUTO, v, (size_t)n, b, &blob, &used);
      struct {
        int32_t codec, pad;
        uint64_t len;
      } bh = {(int32_t)used, 0, blob.len};
      lbs_buf_append(&pay, &bh, sizeof bh), lbs_buf_append(&pay, blob.data, blob.len);
    }
    for (int r = 0; r < ranks * m.nevents; r++) { /* each local rank's events */
      double ev = 0.001 * (s + 1) * (r + 1);
      lbs_buf_append(&pay, &ev, sizeof ev);
    }
    for (int r = 0; r < ranks && m.edge_steps; r++) { /* stored@step: rank r at every other step */
      int64_t cnt = 0;
      for (int64_t i = n * r / ranks; i < n * (r + 1) / ranks; i++)
        cnt += (mine[i] > 0) + (mine[i] < E - 1);
      if ((s + r) % 2) cnt = -1;
      lbs_buf_append(&pay, &cnt, 8);
    }
    for (int r = 0; r < ranks && m.edge_steps; r++)
      for (int64_t i = n * r / ranks; i < n * (r + 1) / ranks && (s + r) % 2 == 0; i++)
        for (int64_t k = 0; k < (mine[i] > 0) + (mine[i] < E - 1); k++) {
          double w = 0.5 * (double)(s + 1) + (double)mine[i];
          lbs_buf_append(&pay, &w, 8);
        }
    lbs__frame_build(&f, FR_STEP, pay.data, pay.len, NULL, 0), rec(out, conn, &f);
    if (s == 1) {
      f.len = 0;
      lbs__frame_build(&f, FR_PING, hn, 8, NULL, 0), rec(out, conn, &f);
      prof_remap_hdr rh = {node, ranks, 2};
      pay.len = 0, f.len = 0;
      lbs_buf_append(&pay, &rh, sizeof rh);
      for (int r = 0; r < ranks; r++) {
        int64_t cnt = n * (r + 1) / ranks - n * r / ranks;
        lbs_buf_append(&pay, &cnt, 8);
      }
      for (int r = 0; r < ranks; r++)
        for (int64_t i = n * (r + 1) / ranks - 1; i >= n * r / ranks; i--)
          lbs_buf_append(&pay, &mine[i], 8);
      lbs__frame_build(&f, FR_REMAP, pay.data, pay.len, NULL, 0), rec(out, conn, &f);
    }
  }
  prof_end e = {0, steps, 0, 0};
  f.len = 0;
  lbs__frame_build(&f, FR_END, hn, 8, &e, sizeof e), rec(out, conn, &f);
  lbs_codec_ctx_destroy(&cc);
  lbs_buf_free(&f), lbs_buf_free(&pay), lbs_buf_free(&blob);
}

static void save(const char *dir, const char *name, const lbs_buf *b) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (f) fwrite(b->data, 1, b->len, f), fclose(f);
}

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: seed_collector DIR\n"), 2;
  prof_meta m;
  memset(&m, 0, sizeof m);
  m.elements = 30, m.nmetrics = 2, m.codec = LBS_CODEC_AUTO, m.eps = 0.005, m.mesh_kind = 2,
  m.dim = 2, m.has_adj = 1;
  m.sample_every = 1, m.nodes = 2, m.ranks = 3, m.bound_kind = LBS_BOUND_REL, m.adj_entries = 58;
  snprintf(m.name[0], 32, "time_ns"), snprintf(m.unit[0], 16, "ns"),
      snprintf(m.name[1], 32, LBS_EDGE_RULE_METRIC);
  m.adj_weights = 1;
  snprintf(m.app, sizeof m.app, "edge_weight=" LBS_EDGE_RULE "\n");
  lbs_buf two = {0};
  node_frames(&two, 0, 0, 2, 2, m, 3, 0);
  node_frames(&two, 1, 1, 2, 1, m, 3, 0);
  save(argv[1], "two_nodes", &two);
  prof_meta b = m;
  b.adj_weights = 0, b.app[0] = '\0';
  b.elements = 24, b.nmetrics = 2, b.mesh_kind = 1, b.dim = 0, b.has_adj = 0, b.nodes = 1,
  b.ranks = 2, b.adj_entries = 0;
  b.dims[0] = 4, b.dims[1] = 3, b.dims[2] = 2;
  b.nevents = 2; /* the application's own costs, after each step's values */
  snprintf(b.event[0], 32, "partition_s"), snprintf(b.event[1], 32, "migration_s");
  b.phases = 1u << 1; /* time_ns's one phase, metric time_ns.A */
  snprintf(b.name[1], 32, "time_ns.A"), snprintf(b.unit[1], 16, "ns");
  lbs_buf one = {0};
  node_frames(&one, 0, 0, 1, 2, b, 4, 1);
  save(argv[1], "one_box", &one);
  prof_meta w = m; /* the two nodes, their arcs weighed per step */
  w.edge_steps = 1;
  snprintf(w.app, sizeof w.app, "edge_weight=" LBS_EDGE_STEPS "\n");
  lbs_buf steps = {0};
  node_frames(&steps, 0, 0, 2, 2, w, 4, 0);
  node_frames(&steps, 1, 1, 2, 1, w, 4, 0);
  save(argv[1], "two_nodes_edge_steps", &steps);
  lbs_buf_free(&two), lbs_buf_free(&one), lbs_buf_free(&steps);
  return 0;
}
