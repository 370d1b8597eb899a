/* collector.c - the collector (the seed's GlobalAgent): receives the node agents' frames,
 * puts each step together from all nodes and writes the trace store, one transaction per
 * completed step. Steps that some node never completes (a lost rank or agent, a dropped
 * sample) are left out; everything complete before them is kept. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lbs_traces.h"
#include "prof_int.h"

typedef struct {
  int fd, node; /* node -1 until its HELLO */
  frame_reader fr;
} conn;

typedef struct {
  int64_t step, app;
  int count;
  uint8_t *have; /* per node */
  double *vals;  /* M x E */
} cstep;

typedef struct {
  const char *out;
  int nodes;
  prof_meta meta;
  int have_meta, M;
  int64_t E;
  lbs_buf *mesh;     /* per node: its MESH payload */
  int64_t **gid, *n; /* per node: global ids in the node's order */
  int *ended, *lost, meshed;
  int64_t *last;
  lbs_trace_writer *w;
  cstep *cs;
  int ncs, ccs;
  int64_t written, incomplete, dropped, lost_ranks;
  lbs_codec_ctx *cc;
  double *tmp;
  int failed;
} coll;

static void warn(const char *fmt, long long a, const char *b) {
  fprintf(stderr, "lbsim collect: ");
  fprintf(stderr, fmt, a, b);
  fputc('\n', stderr);
}

static int setup_nodes(coll *c, int nodes) {
  c->nodes = nodes;
  c->mesh = calloc((size_t)nodes, sizeof *c->mesh), c->gid = calloc((size_t)nodes, sizeof *c->gid);
  c->n = calloc((size_t)nodes, sizeof *c->n), c->ended = calloc((size_t)nodes, sizeof *c->ended);
  c->lost = calloc((size_t)nodes, sizeof *c->lost), c->last = malloc((size_t)nodes * sizeof *c->last);
  if (!c->mesh || !c->gid || !c->n || !c->ended || !c->lost || !c->last) return -1;
  for (int i = 0; i < nodes; i++) c->last[i] = -1;
  return 0;
}

/* All meshes in: build the trace's mesh and create the writer. */
static lbs_err create_trace(coll *c) {
  int64_t E = c->E;
  uint8_t *seen = calloc((size_t)E, 1);
  if (!seen) return lbs_fail(LBS_NOMEM, "%lld elements", (long long)E);
  lbs_err e = LBS_OK;
  int dim = c->meta.dim, adj = c->meta.has_adj;
  double *co = dim ? calloc((size_t)(E * dim), sizeof *co) : NULL;
  int64_t *deg = adj ? calloc((size_t)E + 1, sizeof *deg) : NULL, **nb = adj ? calloc((size_t)E, sizeof *nb) : NULL;
  for (int k = 0; k < c->nodes && !e; k++) {
    const uint8_t *p = c->mesh[k].data + 8, *end = c->mesh[k].data + c->mesh[k].len;
    int32_t nranks;
    memcpy(&nranks, c->mesh[k].data + 4, 4);
    for (int r = 0; r < nranks && !e; r++) {
      uint64_t len;
      int64_t h[3];
      memcpy(&len, p, 8), p += 8;
      memcpy(h, p, sizeof h);
      const int64_t *g = (const int64_t *)(const void *)(p + sizeof h);
      const double *x = (const double *)(const void *)(g + h[0]);
      const int64_t *dg = (const int64_t *)(const void *)(x + h[0] * h[1]), *aj = dg + h[0];
      for (int64_t i = 0; i < h[0] && !e; i++) {
        int64_t id = g[i];
        if (id < 0 || id >= E || seen[id]) {
          e = lbs_fail(LBS_INVAL, "element id %lld (node %d) is out of range or given twice", (long long)id, k);
          break;
        }
        seen[id] = 1;
        if (co) memcpy(co + id * dim, x + i * dim, (size_t)dim * sizeof *co);
        if (adj) {
          deg[id] = dg[i];
          nb[id] = malloc((size_t)(dg[i] ? dg[i] : 1) * sizeof **nb);
          if (dg[i]) memcpy(nb[id], aj, (size_t)dg[i] * sizeof **nb);
          aj += dg[i];
        }
      }
      p += len;
    }
    (void)end;
  }
  lbs_mesh *mesh = NULL;
  int64_t *xadj = NULL, *flat = NULL;
  if (!e && c->meta.mesh_kind == 1) {
    e = lbs_mesh_create_structured(c->meta.dims[0], c->meta.dims[1], c->meta.dims[2], LBS_ORDER_NATURAL, &mesh);
  } else if (!e) {
    xadj = calloc((size_t)E + 1, sizeof *xadj);
    for (int64_t i = 0; xadj && i < E; i++) xadj[i + 1] = xadj[i] + (adj ? deg[i] : 0);
    flat = xadj ? malloc((size_t)(xadj[E] + 1) * sizeof *flat) : NULL;
    for (int64_t i = 0; flat && adj && i < E; i++)
      if (deg[i]) memcpy(flat + xadj[i], nb[i], (size_t)deg[i] * sizeof *flat);
    e = !xadj || !flat ? lbs_fail(LBS_NOMEM, "mesh") : lbs_mesh_create_unstructured(E, dim, co, xadj, flat, NULL, 0, &mesh);
  }
  if (!e) {
    /* the metric records the whole path's bound; the store encodes within its share */
    lbs_bound whole = {(lbs_bound_kind)c->meta.bound_kind, c->meta.eps}, store = lbs__bound_stage(whole, 1);
    lbs_metric_spec ms[LBSPROF_MAX_METRICS];
    for (int m = 0; m < c->M; m++)
      ms[m] = (lbs_metric_spec){c->meta.name[m], c->meta.unit[m], (lbs_codec)c->meta.codec, whole, store};
    char ranks[32], nodes[32], every[32], bound[LBS_BOUND_STRLEN], b0[LBS_BOUND_STRLEN], b1[LBS_BOUND_STRLEN],
        split[200];
    snprintf(ranks, sizeof ranks, "%d", c->meta.ranks), snprintf(nodes, sizeof nodes, "%d", c->meta.nodes);
    snprintf(every, sizeof every, "%d", c->meta.sample_every);
    lbs_bound_format(whole, bound);
    snprintf(split, sizeof split, "%s at the node agents%s, %s in the store%s", lbs_bound_format(lbs__bound_stage(whole, 0), b0),
             whole.kind == LBS_BOUND_RANGE ? " (of each node's range)" : "", lbs_bound_format(store, b1),
             whole.kind == LBS_BOUND_RANGE ? " (of each step's range)" : "");
    const char *meta[] = {"source", "lbsprof", "profiler.ranks", ranks, "profiler.nodes", nodes,
                          "profiler.sample_every", every, "profiler.on_full", c->meta.on_full ? "drop" : "wait",
                          "profiler.bound", bound, "profiler.error_split", split};
    lbs_trace_spec spec = {E, 0, c->M, ms, mesh, 7, meta};
    e = lbs_trace_create(c->out, &spec, &c->w);
  }
  lbs_mesh_destroy(&mesh);
  for (int64_t i = 0; nb && i < E; i++) free(nb[i]);
  free(seen), free(co), free(deg), free(nb), free(xadj), free(flat);
  return e;
}

static void drop_cstep(coll *c, int i) {
  free(c->cs[i].have), free(c->cs[i].vals);
  c->cs[i] = c->cs[--c->ncs];
}

/* Writes complete steps in order; forgets steps no node can complete any more. */
static void write_ready(coll *c) {
  if (!c->w) return;
  int64_t minlast = INT64_MAX;
  int anylost = 0;
  for (int k = 0; k < c->nodes; k++) {
    if (!c->ended[k] && c->last[k] < minlast) minlast = c->last[k];
    anylost |= c->lost[k];
  }
  for (;;) {
    int best = -1;
    for (int i = 0; i < c->ncs; i++)
      if (best < 0 || c->cs[i].step < c->cs[best].step) best = i;
    if (best < 0) return;
    cstep *s = &c->cs[best];
    if (s->count == c->nodes) {
      const double *cols[LBSPROF_MAX_METRICS];
      for (int m = 0; m < c->M; m++) cols[m] = s->vals + (size_t)m * (size_t)c->E;
      lbs_err e = lbs_trace_write_step(c->w, s->app, cols);
      if (e) {
        warn("cannot write step %lld: %s", (long long)s->app, lbs_errmsg());
        c->failed = 1;
      } else {
        c->written++;
      }
      drop_cstep(c, best);
    } else if (anylost || s->step < minlast) {
      c->incomplete++;
      drop_cstep(c, best);
    } else {
      return;
    }
  }
}

static int on_step(coll *c, int node, const uint8_t *p, uint32_t len) {
  struct {
    int32_t node, M;
    int64_t step, app, n;
  } h;
  if (len < sizeof h) return -1;
  memcpy(&h, p, sizeof h);
  if (h.M != c->M || h.n != c->n[node]) return lbs_fail(LBS_FORMAT, "a step of %lld elements x %d metrics", (long long)h.n, h.M), -1;
  cstep *s = NULL;
  for (int i = 0; i < c->ncs; i++)
    if (c->cs[i].step == h.step) s = &c->cs[i];
  if (!s) {
    if (c->ncs == c->ccs) {
      int cap = c->ccs ? 2 * c->ccs : 8;
      cstep *cs = realloc(c->cs, (size_t)cap * sizeof *cs);
      if (!cs) return -1;
      c->cs = cs, c->ccs = cap;
    }
    s = &c->cs[c->ncs++];
    s->step = h.step, s->app = h.app, s->count = 0;
    s->have = calloc((size_t)c->nodes, 1);
    s->vals = malloc((size_t)(c->E * c->M) * sizeof *s->vals);
    if (!s->have || !s->vals) return lbs_fail(LBS_NOMEM, "step of %lld elements", (long long)c->E), -1;
  }
  if (s->have[node]) return lbs_fail(LBS_FORMAT, "step %lld sent twice", (long long)h.step), -1;
  const uint8_t *q = p + sizeof h, *end = p + len;
  for (int m = 0; m < c->M; m++) {
    struct {
      int32_t codec, pad;
      uint64_t len;
    } mh;
    if (end - q < (long)sizeof mh) return lbs_fail(LBS_FORMAT, "truncated step"), -1;
    memcpy(&mh, q, sizeof mh), q += sizeof mh;
    if ((uint64_t)(end - q) < mh.len) return lbs_fail(LBS_FORMAT, "truncated step"), -1;
    if (lbs_codec_decode(c->cc, (lbs_codec)mh.codec, q, mh.len, (size_t)h.n, 0, (size_t)h.n, c->tmp))
      return lbs_fail(LBS_CORRUPT, "step %lld metric %s: %s", (long long)h.app, c->meta.name[m], lbs_errmsg()), -1;
    q += mh.len;
    double *v = s->vals + (size_t)m * (size_t)c->E;
    for (int64_t i = 0; i < h.n; i++) v[c->gid[node][i]] = c->tmp[i];
  }
  s->have[node] = 1, s->count++;
  c->last[node] = h.step;
  write_ready(c);
  return 0;
}

static int on_mesh(coll *c, int node, const uint8_t *p, uint32_t len) {
  if (c->mesh[node].len) return 0; /* a reconnecting agent sends it again */
  if (lbs_buf_append(&c->mesh[node], p, len)) return -1;
  /* the node's element ids, in its order */
  int32_t nranks;
  if (len < 8) return -1;
  memcpy(&nranks, p + 4, 4);
  const uint8_t *q = p + 8, *end = p + len;
  int64_t total = 0;
  for (int r = 0; r < nranks; r++) {
    uint64_t l;
    int64_t h[3];
    if (end - q < 8 + (long)sizeof h) return lbs_fail(LBS_FORMAT, "truncated mesh"), -1;
    memcpy(&l, q, 8), memcpy(h, q + 8, sizeof h);
    if (h[0] < 0 || (uint64_t)(end - q - 8) < l || l < sizeof h + (uint64_t)h[0] * 8) return lbs_fail(LBS_FORMAT, "bad mesh"), -1;
    total += h[0], q += 8 + l;
  }
  c->gid[node] = malloc((size_t)(total ? total : 1) * sizeof **c->gid);
  if (!c->gid[node]) return -1;
  c->n[node] = total;
  q = p + 8;
  int64_t k = 0;
  for (int r = 0; r < nranks; r++) {
    uint64_t l;
    int64_t h[3];
    memcpy(&l, q, 8), memcpy(h, q + 8, sizeof h);
    memcpy(c->gid[node] + k, q + 8 + sizeof h, (size_t)h[0] * 8);
    for (int64_t i = k; i < k + h[0]; i++)
      if (c->gid[node][i] < 0 || c->gid[node][i] >= c->E) return lbs_fail(LBS_FORMAT, "element id out of range"), -1;
    k += h[0], q += 8 + l;
  }
  if (++c->meshed == c->nodes) {
    lbs_err e = create_trace(c);
    if (e) {
      fprintf(stderr, "lbsim collect: cannot create %s: %s\n", c->out, lbs_errmsg());
      c->failed = 2;
    }
    write_ready(c);
  }
  return 0;
}

/* One frame from connection k; -1 ends the connection. */
static int on_frame(coll *c, conn *k, uint16_t type, const uint8_t *p, uint32_t len) {
  int32_t node;
  if (len < 4) return lbs_fail(LBS_FORMAT, "empty frame"), -1;
  memcpy(&node, p, 4);
  if (type == FR_HELLO) {
    if (len != 8 + sizeof(prof_meta)) return lbs_fail(LBS_FORMAT, "bad hello"), -1;
    prof_meta m;
    memcpy(&m, p + 8, sizeof m);
    if (!c->have_meta) {
      if (m.nmetrics < 1 || m.nmetrics > LBSPROF_MAX_METRICS || m.elements < 1 || m.nodes < 1)
        return lbs_fail(LBS_FORMAT, "bad run description"), -1;
      if (c->nodes && c->nodes != m.nodes)
        return lbs_fail(LBS_INVAL, "the run has %d nodes, --nodes says %d", m.nodes, c->nodes), -1;
      c->meta = m, c->have_meta = 1, c->M = m.nmetrics, c->E = m.elements;
      if (setup_nodes(c, m.nodes) || !(c->tmp = malloc((size_t)c->E * sizeof *c->tmp))) return -1;
    } else if (m.elements != c->meta.elements || m.nmetrics != c->meta.nmetrics || m.nodes != c->meta.nodes) {
      return lbs_fail(LBS_INVAL, "node %d describes another run", node), -1;
    }
    if (node < 0 || node >= c->nodes) return lbs_fail(LBS_FORMAT, "node %d of %d", node, c->nodes), -1;
    k->node = node;
    return 0;
  }
  if (k->node < 0 || node != k->node) return lbs_fail(LBS_FORMAT, "frame before hello"), -1;
  if (type == FR_MESH) return on_mesh(c, node, p, len);
  if (type == FR_STEP) return c->mesh[node].len ? on_step(c, node, p, len) : -1;
  if (type == FR_END && len == 8 + sizeof(prof_end)) {
    prof_end e;
    memcpy(&e, p + 8, sizeof e);
    c->dropped += e.dropped, c->lost_ranks += e.lost;
    c->ended[node] = 1;
    write_ready(c);
    return 1; /* done with this connection */
  }
  return lbs_fail(LBS_FORMAT, "unknown frame type %u", type), -1;
}

int lbs__collect_main(int lfd, const char *addr, const char *out_path, int nodes, int force) {
  (void)force;
  signal(SIGPIPE, SIG_IGN);
  coll C, *c = &C;
  memset(c, 0, sizeof C);
  c->out = out_path;
  c->nodes = nodes;
  if (lbs_codec_ctx_create(&c->cc)) return 1;
  conn *cs = NULL;
  int ncs = 0;
  const char *idle_env = getenv("LBSPROF_COLLECT_IDLE_S");
  double idle_limit = idle_env ? atof(idle_env) : 120, idle = 0;
  for (;;) {
    int done = c->have_meta;
    for (int k = 0; done && k < c->nodes; k++) done = c->ended[k] || c->lost[k];
    if (done) break;
    struct pollfd *pf = calloc((size_t)ncs + 1, sizeof *pf);
    if (!pf) break;
    pf[0] = (struct pollfd){lfd, POLLIN, 0};
    for (int i = 0; i < ncs; i++) pf[i + 1] = (struct pollfd){cs[i].fd, POLLIN, 0};
    int r = poll(pf, (nfds_t)ncs + 1, 500);
    if (r == 0 && ncs == 0 && (idle += 0.5) > idle_limit) {
      free(pf);
      warn("no agent for %lld s at %s; giving up", (long long)idle_limit, addr);
      break;
    }
    if (r > 0) idle = 0;
    for (int i = 0; r > 0 && i < ncs; i++) {
      if (!(pf[i + 1].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      conn *k = &cs[i];
      int end = 0;
      if (!lbs_buf_reserve(&k->fr.in, 1 << 16)) {
        ssize_t got = recv(k->fd, k->fr.in.data + k->fr.in.len, 1 << 16, 0);
        if (got <= 0) end = -1;
        else k->fr.in.len += (size_t)got;
      }
      uint16_t type;
      const uint8_t *pay;
      uint32_t len;
      int f;
      while (!end && (f = lbs__frame_next(&k->fr, &type, &pay, &len)) != 0) {
        if (f < 0) end = -2;
        else end = on_frame(c, k, type, pay, len);
        if (end < 0) {
          warn("node %lld's agent: %s; dropping its connection", k->node, lbs_errmsg());
          end = -2;
        }
      }
      if (end) {
        if (end < 0 && k->node >= 0 && c->have_meta && !c->ended[k->node]) {
          /* an agent that reconnects later takes its node back */
          int again = 0;
          for (int j = 0; j < ncs; j++) again |= j != i && cs[j].node == k->node;
          if (!again) {
            c->lost[k->node] = 1;
            warn("node %lld's agent went away before its end; later steps of the run are incomplete", k->node, "");
            write_ready(c);
          }
        }
        close(k->fd);
        lbs_buf_free(&k->fr.in);
        cs[i--] = cs[--ncs];
        pf[i + 2] = pf[ncs + 1]; /* keep the poll results aligned with cs */
      }
    }
    if (r > 0 && (pf[0].revents & POLLIN)) { /* after the clients: pf covers those polled */
      int fd = accept(lfd, NULL, NULL);
      conn *n2 = fd >= 0 ? realloc(cs, (size_t)(ncs + 1) * sizeof *cs) : NULL;
      if (n2) cs = n2, cs[ncs++] = (conn){fd, -1, {{0}, 0}};
      else if (fd >= 0) close(fd);
    }
    free(pf);
  }
  for (int i = 0; i < ncs; i++) close(cs[i].fd), lbs_buf_free(&cs[i].fr.in);
  free(cs);
  int rc = 0;
  if (c->w) {
    write_ready(c);
    c->incomplete += c->ncs;
    char v[32];
    snprintf(v, sizeof v, "%lld", (long long)c->dropped);
    lbs_trace_writer_set_meta(c->w, "profiler.dropped_steps", v);
    snprintf(v, sizeof v, "%lld", (long long)c->incomplete);
    lbs_trace_writer_set_meta(c->w, "profiler.incomplete_steps", v);
    snprintf(v, sizeof v, "%lld", (long long)c->lost_ranks);
    lbs_trace_writer_set_meta(c->w, "profiler.lost_ranks", v);
    int whole = !c->incomplete && !c->lost_ranks;
    for (int k = 0; k < c->nodes; k++) whole &= !c->lost[k];
    lbs_trace_writer_set_meta(c->w, "profiler.complete", whole ? "yes" : "no");
    if (lbs_trace_writer_close(&c->w)) {
      fprintf(stderr, "lbsim collect: %s: %s\n", c->out, lbs_errmsg());
      rc = 1;
    }
    fprintf(stderr, "lbsim collect: wrote %s: %lld steps%s\n", c->out, (long long)c->written,
            whole ? "" : " (the run did not end cleanly: see its profiler.* metadata)");
    if (!whole) rc = 1;
  } else {
    fprintf(stderr, "lbsim collect: no trace written to %s: the agents never described the whole mesh\n", c->out);
    rc = 1;
  }
  if (c->failed) rc = 1;
  for (int i = 0; i < c->ncs; i++) free(c->cs[i].have), free(c->cs[i].vals);
  free(c->cs);
  for (int k = 0; k < c->nodes && c->mesh; k++) lbs_buf_free(&c->mesh[k]), free(c->gid[k]);
  free(c->mesh), free(c->gid), free(c->n), free(c->ended), free(c->lost), free(c->last), free(c->tmp);
  lbs_codec_ctx_destroy(&c->cc);
  return rc;
}
