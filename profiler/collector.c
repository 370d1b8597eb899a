/* collector.c - the collector (the seed's GlobalAgent): receives the node agents' frames,
 * puts each step together from all nodes and writes the trace store, one transaction per
 * completed step. Steps that some node never completes (a lost rank or agent, a dropped
 * sample) are left out; everything complete before them is kept. Messages go through lbs_log
 * as "collect: ...", the program adding "lbsim: " (`lbsim collect`, and lbsprof-agent for the
 * collector liblbsprof starts). */
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/crypto.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lbs_traces.h"
#include "prof_int.h"

/* A connection's state: it answers the challenge, then says which node it is, then streams. */
enum { S_AUTH, S_HELLO, S_NODE };

typedef struct {
  int live, fd, node, state; /* node -1 until its HELLO */
  double opened, since;      /* opened; its last bytes */
  uint8_t nonce[LBSPROF_NONCE_BYTES];
  char peer[96];
  frame_reader fr;
  struct lbs_coll *c;
} conn;

/* A node's layout from step `from` on (its mesh from step 0, each remap after): n elements, the
 * ids in the node's order and the MPI rank that holds each. */
typedef struct {
  int64_t from, n, *gid;
  int32_t *rank;
} nlayout;

typedef struct {
  nlayout *l; /* oldest first: the one in force at the last owners written, and newer ones */
  int n, cap;
} nlayouts;

typedef struct {
  int64_t step, app;
  int count;
  uint8_t *have; /* per node */
  double *vals;  /* M x E */
  double *ev;    /* ranks x K (the run's events), or NULL without */
  lbs_buf *ew;   /* per node: its arc weights' counts and weights (take_weights), or NULL */
} cstep;

struct lbs_coll {
  const char *out;
  int nodes;
  prof_meta meta;
  int have_meta, M;
  int64_t E;
  lbs_buf *mesh;       /* per node: its MESH payload */
  int64_t **gid, *n;   /* per node: global ids in the node's order (its newest layout) */
  int *nranks;         /* per node: local ranks */
  int32_t **rank;      /* per node: each local rank's MPI rank */
  nlayouts *lay;       /* per node: its layouts, for the owners recorded */
  int64_t owners_from; /* the last assignment written: from this step (-1: none yet) */
  int64_t *owner;      /* E: scratch for an assignment */
  uint8_t *mark;       /* E: scratch for a remap's check */
  int *ended, *lost, meshed;
  int64_t *last;
  lbs_trace_writer *w;
  cstep *cs;
  int ncs, ccs;
  int64_t written, incomplete, dropped, lost_ranks, refused;
  lbs_codec_ctx *cc;
  double *tmp;
  uint8_t *owned; /* per element: claimed by a node's mesh */
  int64_t *ex;    /* stored@step: the trace graph's xadj (E + 1), once the trace is created */
  double *ew;     /* stored@step: every arc's weight now (the last written, or the mesh's) */
  int failed;
  uint8_t secret[LBSPROF_SECRET_BYTES];
  conn *k; /* connection slots; ids are indices */
  int nk;
  /* limits (LBSPROF_AUTH_TIMEOUT_S, LBSPROF_CONN_IDLE_S, LBSPROF_COLLECT_CONN_MB, _STEP_MB) */
  double auth_timeout, idle_timeout;
  uint64_t conn_cap, step_cap; /* bytes: one connection's buffer, one step being put together */
};
typedef struct lbs_coll coll;

static int setup_nodes(coll *c, int nodes) {
  c->nodes = nodes;
  c->mesh = calloc((size_t)nodes, sizeof *c->mesh), c->gid = calloc((size_t)nodes, sizeof *c->gid);
  c->n = calloc((size_t)nodes, sizeof *c->n), c->ended = calloc((size_t)nodes, sizeof *c->ended);
  c->lost = calloc((size_t)nodes, sizeof *c->lost),
  c->last = malloc((size_t)nodes * sizeof *c->last);
  c->nranks = calloc((size_t)nodes, sizeof *c->nranks);
  c->rank = calloc((size_t)nodes, sizeof *c->rank), c->lay = calloc((size_t)nodes, sizeof *c->lay);
  c->owners_from = -1;
  if (!c->mesh || !c->gid || !c->n || !c->ended || !c->lost || !c->last || !c->nranks || !c->rank ||
      !c->lay)
    return -1;
  for (int i = 0; i < nodes; i++) c->last[i] = -1;
  return 0;
}

/* One rank's part of a node's MESH payload: {u64 len, i64 n, dim, has_adj, rank, gid[n],
 * coords[n * dim], deg[n] (has_adj), adj[sum deg], adjw[sum deg] (adj_weights)} (see describe()
 * in lbsprof.c). */
typedef struct {
  int64_t n, rank;
  const int64_t *gid, *deg, *adj;
  const double *x, *w; /* w: the arcs' weights, NULL without adj_weights */
} mesh_part;

/* Walks the parts of a node's MESH payload (8-aligned, as lbs_buf keeps it), checking every
 * length, count and id against the run's description; each part goes to fn when given. */
static lbs_err mesh_walk(coll *c, const uint8_t *p, size_t len,
                         lbs_err (*fn)(coll *, const mesh_part *, void *), void *arg) {
  int32_t nranks;
  if (len < 8) return lbs_fail(LBS_FORMAT, "a mesh record of %zu bytes", len);
  memcpy(&nranks, p + 4, 4);
  if (nranks < 1 || nranks > c->meta.ranks)
    return lbs_fail(LBS_FORMAT, "a mesh of %d ranks in a run of %d", nranks, c->meta.ranks);
  size_t at = 8;
  for (int r = 0; r < nranks; r++) {
    uint64_t l;
    int64_t h[4];
    if (len - at < 8 + sizeof h) return lbs_fail(LBS_FORMAT, "rank %d's mesh is cut short", r);
    memcpy(&l, p + at, 8), memcpy(h, p + at + 8, sizeof h);
    at += 8;
    if (l > len - at || l % 8 || l < sizeof h)
      return lbs_fail(LBS_FORMAT, "rank %d's mesh has a bad length", r);
    uint64_t words = (l - sizeof h) / 8,
             per = 1 + (uint64_t)c->meta.dim + (c->meta.has_adj ? 1 : 0);
    if (h[0] < 0 || h[1] != c->meta.dim || h[2] != c->meta.has_adj || h[3] < 0 ||
        h[3] >= c->meta.ranks || (uint64_t)h[0] > words / per)
      return lbs_fail(LBS_FORMAT, "rank %d's mesh does not fit the run's description", r);
    mesh_part m = {h[0], h[3], NULL, NULL, NULL, NULL, NULL};
    const int64_t *w = (const int64_t *)(const void *)(p + at + sizeof h);
    m.gid = w, m.x = (const double *)(const void *)(w + m.n);
    uint64_t used = (uint64_t)m.n * per;
    if (c->meta.has_adj) {
      m.deg = w + m.n * (1 + c->meta.dim), m.adj = m.deg + m.n;
      for (int64_t i = 0; i < m.n; i++) {
        if (m.deg[i] < 0 || (uint64_t)m.deg[i] > words - used)
          return lbs_fail(LBS_FORMAT, "rank %d's adjacency is cut short", r);
        used += (uint64_t)m.deg[i];
      }
    }
    uint64_t arcs = used - (uint64_t)m.n * per;
    if (c->meta.adj_weights) { /* as many weights again, after the arcs */
      if (arcs > words - used)
        return lbs_fail(LBS_FORMAT, "rank %d's arc weights are cut short", r);
      m.w = (const double *)(const void *)(m.adj + arcs);
      used += arcs;
    }
    if (used != words)
      return lbs_fail(LBS_FORMAT, "rank %d's mesh has %llu words too many", r,
                      (unsigned long long)(words - used));
    for (int64_t i = 0; i < m.n; i++)
      if (m.gid[i] < 0 || m.gid[i] >= c->E)
        return lbs_fail(LBS_FORMAT, "element id %lld is out of range", (long long)m.gid[i]);
    for (uint64_t i = 0; m.adj && i < arcs; i++)
      if (m.adj[i] < 0 || m.adj[i] >= c->E)
        return lbs_fail(LBS_FORMAT, "neighbour id %lld is out of range", (long long)m.adj[i]);
    /* the library refuses them too; this is for a record that did not come through it */
    for (uint64_t i = 0; m.w && i < arcs; i++)
      if (!isfinite(m.w[i]) || m.w[i] < 0)
        return lbs_fail(LBS_FORMAT, "rank %d's arc to %lld weighs %g: weights are finite and >= 0",
                        r, (long long)m.adj[i], m.w[i]);
    lbs_err e = fn ? fn(c, &m, arg) : LBS_OK;
    if (e) return e;
    at += l;
  }
  if (at != len) return lbs_fail(LBS_FORMAT, "%zu bytes after the mesh", len - at);
  return LBS_OK;
}

/* Elements of a node's mesh, counted or listed in the node's order. */
typedef struct {
  int64_t count, *gid;
  int nparts;
  int32_t *owner, *part_rank; /* with gid: each element's rank; each part's rank */
} id_list;

static lbs_err list_ids(coll *c, const mesh_part *m, void *arg) {
  (void)c;
  id_list *l = arg;
  if (l->gid) memcpy(l->gid + l->count, m->gid, (size_t)m->n * sizeof *m->gid);
  for (int64_t i = 0; l->owner && i < m->n; i++) l->owner[l->count + i] = (int32_t)m->rank;
  if (l->part_rank) l->part_rank[l->nparts] = (int32_t)m->rank;
  l->count += m->n, l->nparts++;
  return LBS_OK;
}

/* The whole mesh, put together from the nodes' parts. */
typedef struct {
  uint8_t *seen;
  double *co;
  int64_t *deg, **nb;
  double **nw; /* each element's arc weights (adj_weights), else NULL */
} mesh_all;

static lbs_err gather_part(coll *c, const mesh_part *m, void *arg) {
  mesh_all *a = arg;
  int dim = c->meta.dim;
  const int64_t *aj = m->adj;
  const double *aw = m->w;
  for (int64_t i = 0; i < m->n; i++) {
    int64_t id = m->gid[i];
    if (a->seen[id]) return lbs_fail(LBS_INVAL, "element id %lld is given twice", (long long)id);
    a->seen[id] = 1;
    if (a->co) memcpy(a->co + id * dim, m->x + i * dim, (size_t)dim * sizeof *a->co);
    if (a->nb) {
      a->deg[id] = m->deg[i];
      if (!(a->nb[id] = malloc((size_t)(m->deg[i] ? m->deg[i] : 1) * sizeof **a->nb)))
        return lbs_fail(LBS_NOMEM, "mesh");
      if (m->deg[i]) memcpy(a->nb[id], aj, (size_t)m->deg[i] * sizeof **a->nb);
      aj += m->deg[i];
    }
    if (a->nw) {
      if (!(a->nw[id] = malloc((size_t)(m->deg[i] ? m->deg[i] : 1) * sizeof **a->nw)))
        return lbs_fail(LBS_NOMEM, "mesh");
      if (m->deg[i]) memcpy(a->nw[id], aw, (size_t)m->deg[i] * sizeof **a->nw);
      aw += m->deg[i];
    }
  }
  return LBS_OK;
}

/* The nodes' parts of the mesh put together into a: its arrays are allocated here and freed by
 * free_mesh_all, on failure too. Every element must be on one node. */
static lbs_err gather_mesh(coll *c, mesh_all *a) {
  int64_t E = c->E;
  int dim = c->meta.dim, adj = c->meta.has_adj;
  a->seen = calloc((size_t)E, 1);
  a->co = dim ? calloc((size_t)(E * dim), sizeof *a->co) : NULL;
  a->deg = adj ? calloc((size_t)E + 1, sizeof *a->deg) : NULL;
  a->nb = adj ? calloc((size_t)E, sizeof *a->nb) : NULL;
  a->nw = adj && c->meta.adj_weights ? calloc((size_t)E, sizeof *a->nw) : NULL;
  lbs_err e = !a->seen || (dim && !a->co) || (adj && (!a->deg || !a->nb)) ||
                      (adj && c->meta.adj_weights && !a->nw)
                  ? lbs_fail(LBS_NOMEM, "%lld elements", (long long)E)
                  : LBS_OK;
  for (int k = 0; k < c->nodes && !e; k++)
    e = mesh_walk(c, c->mesh[k].data, c->mesh[k].len, gather_part, a);
  for (int64_t i = 0; !e && i < E; i++)
    if (!a->seen[i]) e = lbs_fail(LBS_INVAL, "element %lld is on no node", (long long)i);
  return e;
}

/* Frees what gather_mesh allocated in a (E elements). */
static void free_mesh_all(mesh_all *a, int64_t E) {
  for (int64_t i = 0; a->nb && i < E; i++) free(a->nb[i]);
  for (int64_t i = 0; a->nw && i < E; i++) free(a->nw[i]);
  free(a->seen), free(a->co), free(a->deg), free(a->nb), free(a->nw);
}

/* The trace's mesh into *mesh (the caller's): the run's box, or the elements with a's
 * coordinates and adjacency (which the mesh copies). Arc weights make it directed (a close flag
 * u -> v need not be v -> u's), the arcs themselves still symmetric: checked first without
 * them, as an unweighted mesh is. */
static lbs_err make_mesh(coll *c, const mesh_all *a, lbs_mesh **mesh) {
  int64_t E = c->E;
  int dim = c->meta.dim, adj = c->meta.has_adj;
  if (c->meta.mesh_kind == 1)
    return lbs_mesh_create_structured(c->meta.dims[0], c->meta.dims[1], c->meta.dims[2],
                                      LBS_ORDER_NATURAL, mesh);
  int64_t *xadj = calloc((size_t)E + 1, sizeof *xadj), *flat = NULL;
  for (int64_t i = 0; xadj && i < E; i++) xadj[i + 1] = xadj[i] + (adj ? a->deg[i] : 0);
  flat = xadj ? malloc((size_t)(xadj[E] + 1) * sizeof *flat) : NULL;
  double *w = a->nw && xadj ? malloc((size_t)(xadj[E] + 1) * sizeof *w) : NULL;
  for (int64_t i = 0; flat && adj && i < E; i++)
    if (a->deg[i]) memcpy(flat + xadj[i], a->nb[i], (size_t)a->deg[i] * sizeof *flat);
  for (int64_t i = 0; w && i < E; i++)
    if (a->deg[i]) memcpy(w + xadj[i], a->nw[i], (size_t)a->deg[i] * sizeof *w);
  lbs_err e = !xadj || !flat || (a->nw && !w)
                  ? lbs_fail(LBS_NOMEM, "mesh")
                  : lbs_mesh_create_unstructured(E, dim, a->co, xadj, flat, NULL, 0, mesh);
  if (!e && w) {
    lbs_mesh_destroy(mesh);
    e = lbs_mesh_create_unstructured(E, dim, a->co, xadj, flat, w, 1, mesh);
  }
  free(xadj), free(flat), free(w);
  return e;
}

/* The trace's metadata: the profiler's FIXED_KEYS pairs, then the application's keys as
 * app.KEY, at most MAX_APP_KEYS, then phases.time_ns when the run has phases; the strings are the
 * struct's or the run description's. */
enum { FIXED_KEYS = 7, MAX_APP_KEYS = LBSPROF_APP_META / 4 };
typedef struct {
  char ranks[32], nodes[32], every[32], bound[LBS_BOUND_STRLEN], b0[LBS_BOUND_STRLEN],
      b1[LBS_BOUND_STRLEN], split[200];
  char app[LBSPROF_APP_META], keys[MAX_APP_KEYS][72];  /* app: the lines, cut at '\n' and '=' */
  char phases[LBSPROF_MAX_METRICS * 32];               /* phases.time_ns's value */
  const char *kv[2 * (FIXED_KEYS + MAX_APP_KEYS + 2)]; /* key, value, ... */
  int n;                                               /* pairs in kv */
} run_meta;

/* The value of the application's key in its "key=value\n" lines into v (LBSPROF_APP_META
 * bytes): 1, or 0 when it has no such key. */
static int app_value(const char *app, const char *key, char *v) {
  size_t kl = strlen(key);
  for (const char *line = app, *nl; (nl = strchr(line, '\n')); line = nl + 1)
    if (!strncmp(line, key, kl) && line[kl] == '=') {
      snprintf(v, LBSPROF_APP_META, "%.*s", (int)(nl - line - (ptrdiff_t)kl - 1), line + kl + 1);
      return 1;
    }
  return 0;
}

/* The profiler's keys into rm: ranks, nodes, sampling, what a full ring does, the bound whole
 * and how it is split between the node agents and the store. */
static void fixed_keys(const coll *c, lbs_bound whole, lbs_bound store, run_meta *rm) {
  snprintf(rm->ranks, sizeof rm->ranks, "%d", c->meta.ranks);
  snprintf(rm->nodes, sizeof rm->nodes, "%d", c->meta.nodes);
  snprintf(rm->every, sizeof rm->every, "%d", c->meta.sample_every);
  lbs_bound_format(whole, rm->bound);
  snprintf(rm->split, sizeof rm->split, "%s at the node agents%s, %s in the store%s",
           lbs_bound_format(lbs__bound_stage(whole, 0), rm->b0),
           whole.kind == LBS_BOUND_RANGE ? " (of each node's range)" : "",
           lbs_bound_format(store, rm->b1),
           whole.kind == LBS_BOUND_RANGE ? " (of each step's range)" : "");
  const char **kv = rm->kv;
  memset(rm->kv, 0, sizeof rm->kv);
  kv[0] = "source", kv[1] = "lbsprof";
  kv[2] = "profiler.ranks", kv[3] = rm->ranks;
  kv[4] = "profiler.nodes", kv[5] = rm->nodes;
  kv[6] = "profiler.sample_every", kv[7] = rm->every;
  kv[8] = "profiler.on_full", kv[9] = c->meta.on_full ? "drop" : "wait";
  kv[10] = "profiler.bound", kv[11] = rm->bound;
  kv[12] = "profiler.error_split", kv[13] = rm->split;
  rm->n = FIXED_KEYS;
}

/* The application's keys (checked in on_hello): its "key=value\n" lines become app.KEY in rm;
 * bytes_per_elem and bytes_per_edge, when positive, also replace *per_elem and *per_edge, and
 * edge_weight (its rule checked in on_hello) is also the trace's edge_weight (edges.c). */
static void app_keys(const coll *c, run_meta *rm, double *per_elem, double *per_edge) {
  const char *rule = NULL;
  memcpy(rm->app, c->meta.app, sizeof rm->app);
  for (char *line = rm->app, *nl; (nl = strchr(line, '\n')) && rm->n < FIXED_KEYS + MAX_APP_KEYS;
       line = nl + 1) {
    char *eq = strchr(line, '=');
    *nl = *eq = '\0';
    snprintf(rm->keys[rm->n - FIXED_KEYS], sizeof rm->keys[0], "app.%.64s", line);
    rm->kv[2 * rm->n] = rm->keys[rm->n - FIXED_KEYS], rm->kv[2 * rm->n + 1] = eq + 1, rm->n++;
    double v = strtod(eq + 1, NULL);
    if (!strcmp(line, "bytes_per_elem") && v > 0) *per_elem = v;
    if (!strcmp(line, "bytes_per_edge") && v > 0) *per_edge = v;
    if (!strcmp(line, "edge_weight")) rule = eq + 1;
  }
  if (rule) rm->kv[2 * rm->n] = "edge_weight", rm->kv[2 * rm->n + 1] = rule, rm->n++;
}

/* The phases of time_ns (lbsprof_phase_register, checked in on_hello), when the run has some:
 * phases.time_ns = their metrics' names, comma-separated, in metric order (lbs_traces.h). */
static void phase_keys(const coll *c, run_meta *rm) {
  rm->phases[0] = '\0';
  for (int m = 0; m < c->M; m++)
    if (c->meta.phases >> m & 1)
      snprintf(rm->phases + strlen(rm->phases), sizeof rm->phases - strlen(rm->phases), "%s%s",
               rm->phases[0] ? "," : "", c->meta.name[m]);
  if (!rm->phases[0]) return;
  rm->kv[2 * rm->n] = LBS_PHASES_META_PREFIX "time_ns", rm->kv[2 * rm->n + 1] = rm->phases;
  rm->n++;
}

/* Creates the writer c->w for the trace of mesh (borrowed): a spec per metric, the run's
 * metadata, and the mesh's bytes per element and edge (the application's when it gives them). */
static lbs_err open_writer(coll *c, lbs_mesh *mesh) {
  /* the metric records the whole path's bound; the store encodes within its share */
  lbs_bound whole = {(lbs_bound_kind)c->meta.bound_kind, c->meta.eps},
            store = lbs__bound_stage(whole, 1);
  lbs_metric_spec ms[LBSPROF_MAX_METRICS];
  for (int m = 0; m < c->M; m++)
    ms[m] =
        (lbs_metric_spec){c->meta.name[m], c->meta.unit[m], (lbs_codec)c->meta.codec, whole, store};
  run_meta rm;
  fixed_keys(c, whole, store, &rm);
  double per_elem = lbs_mesh_bytes_per_elem(mesh), per_edge = lbs_mesh_bytes_per_edge(mesh);
  app_keys(c, &rm, &per_elem, &per_edge);
  phase_keys(c, &rm);
  lbs_mesh_set_bytes(mesh, per_elem, per_edge);
  lbs_trace_spec spec = {c->E, 0, c->M, ms, mesh, rm.n, rm.kv};
  lbs_err e = lbs_trace_create(c->out, &spec, &c->w);
  const char *ev[LBSPROF_MAX_EVENTS]; /* the application's events, when it has some */
  for (int k = 0; k < c->meta.nevents; k++) ev[k] = c->meta.event[k];
  if (!e && c->meta.nevents)
    e = lbs_trace_writer_set_events(c->w, c->meta.nevents, ev, c->meta.ranks);
  return e;
}

/* stored@step: the trace graph's offsets and its arcs' weights (the mesh's, or 1), which the
 * steps' weights overwrite (apply_weights). */
static lbs_err keep_graph(coll *c, lbs_mesh *mesh) {
  const int64_t *xadj, *adj;
  const double *adjw;
  lbs_err e = lbs_mesh_graph(mesh, &xadj, &adj, &adjw);
  if (e) return e;
  int64_t arcs = xadj[c->E];
  c->ex = malloc((size_t)(c->E + 1) * sizeof *c->ex);
  c->ew = malloc((size_t)(arcs ? arcs : 1) * sizeof *c->ew);
  if (!c->ex || !c->ew) return lbs_fail(LBS_NOMEM, "the weights of %lld arcs", (long long)arcs);
  memcpy(c->ex, xadj, (size_t)(c->E + 1) * sizeof *c->ex);
  if (arcs) memcpy(c->ew, adjw, (size_t)arcs * sizeof *c->ew);
  return LBS_OK;
}

/* All meshes in: build the trace's mesh and create the writer. */
static lbs_err create_trace(coll *c) {
  mesh_all a = {0};
  lbs_mesh *mesh = NULL;
  lbs_err e = gather_mesh(c, &a);
  if (!e) e = make_mesh(c, &a, &mesh);
  if (!e) e = open_writer(c, mesh);
  if (!e && c->meta.edge_steps) e = keep_graph(c, mesh);
  lbs_mesh_destroy(&mesh);
  free_mesh_all(&a, c->E);
  return e;
}

static void free_cstep(coll *c, cstep *s) {
  for (int k = 0; s->ew && k < c->nodes; k++) lbs_buf_free(&s->ew[k]);
  free(s->have), free(s->vals), free(s->ev), free(s->ew);
}

static void drop_cstep(coll *c, int i) {
  free_cstep(c, &c->cs[i]);
  c->cs[i] = c->cs[--c->ncs];
}

/* Node k's layout at step `at`: its newest from that step or before. */
static const nlayout *layout_at(const coll *c, int k, int64_t at) {
  const nlayouts *q = &c->lay[k];
  int i = 0;
  while (i + 1 < q->n && q->l[i + 1].from <= at) i++;
  return &q->l[i];
}

/* The owners at step `at`: each node's layout at that step. */
static void owners_at(coll *c, int64_t at) {
  for (int k = 0; k < c->nodes; k++) {
    const nlayout *l = layout_at(c, k, at);
    for (int64_t j = 0; j < l->n; j++) c->owner[l->gid[j]] = l->rank[j];
  }
}

/* Node `node`'s arc weights at step `step` (w: nranks counts, then the weights; checked by
 * take_weights) against its layout l and the trace graph: each local rank that gave some must
 * give its elements' arcs, no more, no less (its elements: the run of l's ids held by its MPI
 * rank, in local rank order). With dst, they overwrite dst (the arcs' weights), *changed set
 * when one differs. The error names the step, node and rank. */
static lbs_err place_weights(const coll *c, int node, int64_t step, const nlayout *l,
                             const uint8_t *w, double *dst, int *changed) {
  int nr = c->nranks[node];
  const uint8_t *q = w + (size_t)nr * 8;
  int64_t pos = 0;
  for (int r = 0; r < nr; r++) {
    int64_t cnt, first = pos, arcs = 0;
    memcpy(&cnt, w + (size_t)r * 8, 8);
    while (pos < l->n && l->rank[pos] == c->rank[node][r])
      arcs += c->ex[l->gid[pos] + 1] - c->ex[l->gid[pos]], pos++;
    if (cnt < 0) continue;
    if (cnt != arcs)
      return lbs_fail(
          LBS_FORMAT,
          "step %lld: node %d's local rank %d (rank %d) gives %lld arc weights, its %lld "
          "elements have %lld arcs",
          (long long)step, node, r, c->rank[node][r], (long long)cnt, (long long)(pos - first),
          (long long)arcs);
    for (int64_t i = first; dst && i < pos; i++) {
      int64_t g = l->gid[i], d = c->ex[g + 1] - c->ex[g];
      double *to = dst + c->ex[g];
      for (int64_t k = 0; k < d; k++, q += 8) {
        double v;
        memcpy(&v, q, sizeof v);
        *changed |= to[k] != v;
        to[k] = v;
      }
    }
    if (!dst) q += (size_t)cnt * 8;
  }
  if (pos != l->n)
    return lbs_fail(LBS_FORMAT, "step %lld: node %d's layout does not follow its ranks",
                    (long long)step, node);
  return LBS_OK;
}

/* stored@step, step s complete: the arcs of every rank that gave weights at s take them; when
 * some weight changed, the array goes with the step (lbs_trace_step_edge_weights, in its
 * transaction). A node whose weights came before the whole mesh was in and do not fit it (checked
 * then only in form) is said and skipped. */
static lbs_err apply_weights(coll *c, const cstep *s) {
  int changed = 0;
  for (int k = 0; s->ew && k < c->nodes; k++) {
    if (!s->ew[k].len) continue;
    const nlayout *l = layout_at(c, k, s->step);
    if (place_weights(c, k, s->app, l, s->ew[k].data, NULL, NULL) == LBS_OK)
      place_weights(c, k, s->app, l, s->ew[k].data, c->ew, &changed);
    else
      lbs_log(LBS_LOG_ERROR, "collect: %s; those weights are not recorded", lbs_errmsg());
  }
  return changed ? lbs_trace_step_edge_weights(c->w, c->ew) : LBS_OK;
}

/* Records the assignments in force from steps after the last recorded up to step `upto` (the
 * next step written), in order: each step from which some node's layout changed. The older
 * layouts are forgotten. */
static lbs_err write_owners(coll *c, int64_t upto) {
  for (;;) {
    int64_t next = INT64_MAX;
    for (int k = 0; k < c->nodes; k++)
      for (int i = 0; i < c->lay[k].n; i++) {
        int64_t f = c->lay[k].l[i].from;
        if (f > c->owners_from && f <= upto && f < next) next = f;
      }
    if (next == INT64_MAX) return LBS_OK;
    owners_at(c, next);
    lbs_err e = lbs_trace_write_owners(c->w, next, c->owner);
    if (e) return e;
    c->owners_from = next;
    for (int k = 0; k < c->nodes; k++) { /* the one in force at `next` and newer stay */
      nlayouts *q = &c->lay[k];
      while (q->n > 1 && q->l[1].from <= next) {
        free(q->l[0].gid), free(q->l[0].rank);
        memmove(q->l, q->l + 1, (size_t)(--q->n) * sizeof *q->l);
      }
    }
  }
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
      lbs_err e = write_owners(c, s->step); /* the owners first: a step never goes without */
      if (!e && c->ew) e = apply_weights(c, s);
      if (!e && s->ev) e = lbs_trace_step_events(c->w, s->ev);
      if (!e) e = lbs_trace_write_step(c->w, s->app, cols);
      if (e) {
        lbs_log(LBS_LOG_ERROR, "collect: cannot write step %lld: %s", (long long)s->app,
                lbs_errmsg());
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

/* The arcs a run's mesh may have: a box's, or the elements' adjacency entries (a bound on what
 * a node's step may carry; the trace graph is checked once the mesh is in). */
static double run_arcs(const prof_meta *m) {
  const int64_t *d = m->dims;
  if (m->mesh_kind != 1) return (double)m->adj_entries;
  double arcs = 2.0 * ((double)(d[0] - 1) * (double)d[1] * (double)d[2] +
                       (double)d[0] * (double)(d[1] - 1) * (double)d[2] +
                       (double)d[0] * (double)d[1] * (double)(d[2] - 1));
  return arcs > 0 ? arcs : 0; /* a description of no box: its mesh is refused later */
}

/* With stored@step, the rest of node `node`'s step frame after the events (len bytes at q): an
 * i64 count of arc weights per local rank (-1: none at this step), then the weights of those that
 * gave some (prof_int.h). Checked in form (counts, length, each weight finite and >= 0), and
 * against the trace graph once the whole mesh is in (place_weights); kept with the step until it
 * is written. */
static int take_weights(coll *c, int node, cstep *s, const uint8_t *q, size_t len) {
  int nr = c->nranks[node];
  if (!c->meta.edge_steps || len < (size_t)nr * 8)
    return lbs_fail(LBS_FORMAT, "step %lld: %zu bytes after the events%s", (long long)s->app, len,
                    c->meta.edge_steps ? ", fewer than the ranks' counts of arc weights" : ""),
           -1;
  uint64_t tot = 0, any = 0;
  for (int r = 0; r < nr; r++) {
    int64_t cnt;
    memcpy(&cnt, q + (size_t)r * 8, 8);
    if (cnt < -1 || (double)cnt > run_arcs(&c->meta))
      return lbs_fail(LBS_FORMAT, "step %lld: local rank %d gives %lld arc weights",
                      (long long)s->app, r, (long long)cnt),
             -1;
    tot += cnt > 0 ? (uint64_t)cnt : 0, any |= cnt >= 0;
  }
  if ((len - (size_t)nr * 8) / 8 != tot || len % 8)
    return lbs_fail(LBS_FORMAT, "step %lld: %zu bytes of arc weights, not %llu weights",
                    (long long)s->app, len - (size_t)nr * 8, (unsigned long long)tot),
           -1;
  for (uint64_t k = 0; k < tot; k++) {
    double v;
    memcpy(&v, q + (size_t)nr * 8 + k * 8, sizeof v);
    if (!isfinite(v) || v < 0)
      return lbs_fail(LBS_FORMAT, "step %lld: arc weight %llu of node %d is %g (finite and >= 0)",
                      (long long)s->app, (unsigned long long)k, node, v),
             -1;
  }
  const nlayouts *lq = &c->lay[node];
  if (c->ex && place_weights(c, node, s->app, &lq->l[lq->n - 1], q, NULL, NULL)) return -1;
  if (!any) return 0;
  if (!s->ew && !(s->ew = calloc((size_t)c->nodes, sizeof *s->ew)))
    return lbs_fail(LBS_NOMEM, "step %lld's arc weights", (long long)s->app), -1;
  return lbs_buf_append(&s->ew[node], q, len) ? -1 : 0;
}

/* The rest of node `node`'s step frame (len bytes at q): K doubles per local rank, which go to
 * the rank's row of the step's events (its MPI rank, from the node's MESH), then (stored@step) its
 * arc weights (take_weights). */
static int take_events(coll *c, int node, cstep *s, const uint8_t *q, size_t len) {
  int K = c->meta.nevents, nr = c->nranks[node];
  size_t evb = (size_t)nr * (size_t)K * sizeof(double);
  if (len < evb || (!c->meta.edge_steps && len != evb))
    return lbs_fail(LBS_FORMAT, "step %lld: %zu bytes after the values, not %d ranks x %d events",
                    (long long)s->app, len, nr, K),
           -1;
  for (int r = 0; r < nr; r++)
    for (int k = 0; k < K; k++) {
      double v;
      memcpy(&v, q + ((size_t)r * (size_t)K + (size_t)k) * sizeof v, sizeof v);
      s->ev[(size_t)c->rank[node][r] * (size_t)K + (size_t)k] = v;
    }
  return c->meta.edge_steps ? take_weights(c, node, s, q + evb, len - evb) : 0;
}

static int on_step(coll *c, int node, const uint8_t *p, uint32_t len) {
  struct {
    int32_t node, M;
    int64_t step, app, n;
  } h;
  if (len < sizeof h) return lbs_fail(LBS_FORMAT, "a step record of %u bytes", len), -1;
  memcpy(&h, p, sizeof h);
  if (h.M != c->M || h.n != c->n[node])
    return lbs_fail(LBS_FORMAT, "a step of %lld elements x %d metrics", (long long)h.n, h.M), -1;
  /* an agent sends its steps in order: what is pending stays within the nodes' lag */
  if (h.step <= c->last[node])
    return lbs_fail(LBS_FORMAT, "step %lld after step %lld", (long long)h.step,
                    (long long)c->last[node]),
           -1;
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
    s->step = h.step, s->app = h.app, s->count = 0, s->ew = NULL;
    s->have = calloc((size_t)c->nodes, 1);
    s->vals = malloc((size_t)(c->E * c->M) * sizeof *s->vals);
    size_t nev = (size_t)c->meta.ranks * (size_t)c->meta.nevents;
    s->ev = nev ? calloc(nev, sizeof *s->ev) : NULL;
    if (!s->have || !s->vals || (nev && !s->ev))
      return lbs_fail(LBS_NOMEM, "step of %lld elements", (long long)c->E), -1;
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
    if (lbs_codec_decode(c->cc, (lbs_codec)mh.codec, q, mh.len, (size_t)h.n, 0, (size_t)h.n,
                         c->tmp))
      return lbs_fail(LBS_CORRUPT, "step %lld metric %s: %s", (long long)h.app, c->meta.name[m],
                      lbs_errmsg()),
             -1;
    q += mh.len;
    double *v = s->vals + (size_t)m * (size_t)c->E;
    for (int64_t i = 0; i < h.n; i++) v[c->gid[node][i]] = c->tmp[i];
  }
  if (take_events(c, node, s, q, (size_t)(end - q))) return -1;
  s->have[node] = 1, s->count++;
  c->last[node] = h.step;
  write_ready(c);
  return 0;
}

/* Appends node k's layout from step `from` (n ids gid and their ranks, which it takes). */
static lbs_err push_layout(coll *c, int k, int64_t from, int64_t n, int64_t *gid, int32_t *rank) {
  nlayouts *q = &c->lay[k];
  if (q->n == q->cap) {
    int cap = q->cap ? 2 * q->cap : 4;
    nlayout *l = realloc(q->l, (size_t)cap * sizeof *l);
    if (!l) return free(gid), free(rank), lbs_fail(LBS_NOMEM, "a layout of node %d", k);
    q->l = l, q->cap = cap;
  }
  q->l[q->n++] = (nlayout){from, n, gid, rank};
  return LBS_OK;
}

/* Node `node`'s mesh: its ids and each one's rank (its layout from step 0), every element on one
 * node only. Checked against the run's description before anything is kept. */
static int on_mesh(coll *c, int node, const uint8_t *p, uint32_t len) {
  if (c->mesh[node].len) return 0; /* a reconnecting agent sends it again */
  lbs_buf copy = {0};              /* aligned for the walk */
  id_list l = {0};
  if (lbs_buf_append(&copy, p, len)) return -1;
  lbs_err e = mesh_walk(c, copy.data, copy.len, list_ids, &l);
  int64_t N = l.count;
  int64_t *gid = e ? NULL : malloc((size_t)(N ? N : 1) * sizeof *gid);
  int32_t *own = e ? NULL : malloc((size_t)(N ? N : 1) * sizeof *own),
          *ranks = e ? NULL : malloc((size_t)l.nparts * sizeof *ranks);
  if (!e && !(gid && own && ranks)) e = lbs_fail(LBS_NOMEM, "mesh");
  l = (id_list){0, gid, 0, own, ranks};
  if (!e) e = mesh_walk(c, copy.data, copy.len, list_ids, &l);
  /* every element on one node only: claimed now, so a step never holds more than E values */
  for (int64_t i = 0; !e && i < N; i++)
    if (c->owned[gid[i]]) {
      e = lbs_fail(LBS_INVAL, "element %lld is given twice", (long long)gid[i]);
      while (i--) c->owned[gid[i]] = 0;
    } else {
      c->owned[gid[i]] = 1;
    }
  int64_t *cur = e ? NULL : malloc((size_t)(N ? N : 1) * sizeof *cur);
  if (!e && !cur) e = lbs_fail(LBS_NOMEM, "mesh");
  if (e) {
    free(gid), free(own), free(ranks), free(cur), lbs_buf_free(&copy);
    return -1;
  }
  memcpy(cur, gid, (size_t)N * sizeof *cur);
  c->mesh[node] = copy, c->gid[node] = cur, c->n[node] = N;
  c->nranks[node] = l.nparts, c->rank[node] = ranks;
  if (push_layout(c, node, 0, N, gid, own)) return -1;
  if (++c->meshed == c->nodes) {
    if (create_trace(c)) {
      lbs_log(LBS_LOG_ERROR, "collect: cannot create %s: %s", c->out, lbs_errmsg());
      c->failed = 2;
    }
    write_ready(c);
  }
  return 0;
}

/* Node `node`'s REMAP: {node, nranks, from_step, n[nranks]}, then the ids of its ranks in turn;
 * in force for its step frames from here on. One already had (a reconnecting agent sends its last
 * again) is skipped; the ids must be in range and each once on the node (the ranks have checked
 * the whole mesh before sending). */
static int on_remap(coll *c, int node, const uint8_t *p, uint32_t len) {
  prof_remap_hdr h;
  memcpy(&h, p, sizeof h);
  int nr = c->nranks[node];
  if (h.nranks != nr || len < sizeof h + (size_t)nr * 8)
    return lbs_fail(LBS_FORMAT, "a remap of %d ranks on a node of %d", h.nranks, nr), -1;
  nlayouts *q = &c->lay[node];
  if (h.from_step <= q->l[q->n - 1].from) return 0;
  if (h.from_step <= c->last[node])
    return lbs_fail(LBS_FORMAT, "a remap from step %lld after step %lld", (long long)h.from_step,
                    (long long)c->last[node]),
           -1;
  int64_t N = 0, cnt[nr];
  memcpy(cnt, p + sizeof h, sizeof cnt);
  for (int r = 0; r < nr; r++) {
    if (cnt[r] < 0 || cnt[r] > c->E - N)
      return lbs_fail(LBS_FORMAT, "a remap of more than %lld elements", (long long)c->E), -1;
    N += cnt[r];
  }
  if (len != sizeof h + sizeof cnt + (size_t)N * 8)
    return lbs_fail(LBS_FORMAT, "a remap of %lld elements in %u bytes", (long long)N, len), -1;
  int64_t *gid = malloc((size_t)(N ? N : 1) * sizeof *gid), *cur = malloc((size_t)(N ? N : 1) * 8);
  int32_t *own = malloc((size_t)(N ? N : 1) * sizeof *own);
  lbs_err e =
      gid && cur && own ? LBS_OK : lbs_fail(LBS_NOMEM, "a remap of %lld elements", (long long)N);
  if (!e) memcpy(gid, p + sizeof h + sizeof cnt, (size_t)N * sizeof *gid);
  for (int64_t i = 0, r = 0, left = nr ? cnt[0] : 0; !e && i < N; i++, left--) {
    while (!left) left = cnt[++r];
    own[i] = c->rank[node][r];
    if (gid[i] < 0 || gid[i] >= c->E)
      e = lbs_fail(LBS_FORMAT, "a remap from step %lld: element id %lld is out of range",
                   (long long)h.from_step, (long long)gid[i]);
    else if (c->mark[gid[i]]++)
      e = lbs_fail(LBS_INVAL, "a remap from step %lld: element %lld is on the node twice",
                   (long long)h.from_step, (long long)gid[i]);
  }
  for (int64_t i = 0; gid && i < N; i++)
    if (gid[i] >= 0 && gid[i] < c->E) c->mark[gid[i]] = 0;
  if (e) return free(gid), free(cur), free(own), -1;
  memcpy(cur, gid, (size_t)N * sizeof *cur);
  free(c->gid[node]);
  c->gid[node] = cur, c->n[node] = N;
  return push_layout(c, node, h.from_step, N, gid, own) ? -1 : 0;
}

/* The largest encoded step node k may send (every metric at its codec's worst, the events, and
 * with stored@step the arc weights). */
static uint64_t step_max(const coll *c, int k) {
  uint64_t weights = c->meta.edge_steps
                         ? 8 * ((uint64_t)c->nranks[k] + (uint64_t)run_arcs(&c->meta))
                         : 0; /* stored@step: every arc, at most */
  return 32 + (uint64_t)c->M * (16 + (uint64_t)lbs_codec_max_bytes((size_t)c->n[k])) +
         8 * (uint64_t)c->nranks[k] * (uint64_t)c->meta.nevents + weights;
}

/* The largest MESH record the run's description allows. */
static double mesh_max(const coll *c) {
  double E = (double)c->E, per = 8.0 * (1 + c->meta.dim + (c->meta.has_adj ? 1 : 0));
  return 8 + 40.0 * c->meta.ranks + E * per +
         8.0 * (double)c->meta.adj_entries * (c->meta.adj_weights ? 2 : 1);
}

static const char *frame_name(uint16_t type) {
  static const char *names[] = {"?",    "hello", "mesh",    "step", "end", "challenge",
                                "auth", "ping",  "verdict", "remap"}; /* "a %s frame" */
  return type < sizeof names / sizeof *names ? names[type] : "unknown";
}

/* frame_reader's check: the announced length against what the frame's type may carry in the
 * connection's state, before its payload is buffered. */
static int frame_check(void *ctx, uint16_t type, uint32_t len) {
  conn *k = ctx;
  coll *c = k->c;
  double max = 0;
  int exact = 1;
  if (k->state == S_AUTH) {
    if (type != FR_AUTH)
      return lbs_fail(LBS_FORMAT, "a frame (%s) before the challenge was answered",
                      frame_name(type)),
             -1;
    max = 8 + LBSPROF_MAC_BYTES;
  } else if (k->state == S_HELLO) {
    if (type != FR_HELLO)
      return lbs_fail(LBS_FORMAT, "a frame (%s) before the hello", frame_name(type)), -1;
    max = 8 + sizeof(prof_meta);
  } else {
    exact = 0;
    switch (type) {
    case FR_MESH: max = mesh_max(c); break;
    case FR_STEP: max = c->mesh[k->node].len ? (double)step_max(c, k->node) : 0; break;
    case FR_REMAP:
      max = c->mesh[k->node].len
                ? (double)sizeof(prof_remap_hdr) + 8.0 * c->meta.ranks + 8.0 * (double)c->E
                : 0;
      break;
    case FR_END: max = 8 + sizeof(prof_end), exact = 1; break;
    case FR_PING: max = 8, exact = 1; break;
    default:
      return lbs_fail(LBS_FORMAT, "a frame (%s, type %u) after the hello", frame_name(type), type),
             -1;
    }
    if ((type == FR_STEP || type == FR_REMAP) && max == 0)
      return lbs_fail(LBS_FORMAT, "a %s before the node's mesh", frame_name(type)), -1;
  }
  if ((exact && len != max) || (double)len > max || len < 8)
    return lbs_fail(LBS_FORMAT, "a frame (%s) announcing %u bytes (%s %.0f)", frame_name(type), len,
                    exact ? "it has" : "at most", max),
           -1;
  if (16 + (uint64_t)len > c->conn_cap)
    return lbs_fail(LBS_RANGE,
                    "a frame (%s) of %u bytes is over the memory cap of %llu MiB per connection "
                    "(LBSPROF_COLLECT_CONN_MB)",
                    frame_name(type), len, (unsigned long long)(c->conn_cap >> 20)),
           -1;
  return 0;
}

/* The application's keys: NUL-terminated "key=value\n" lines, keys of [A-Za-z0-9_.-]{1,64},
 * values printable. */
static int app_keys_ok(const char *app) {
  const char *end = memchr(app, '\0', LBSPROF_APP_META);
  if (!end) return 0;
  for (const char *line = app; line < end;) {
    const char *nl = memchr(line, '\n', (size_t)(end - line)),
               *eq = memchr(line, '=', (size_t)(end - line));
    if (!nl || !eq || eq > nl) return 0;
    size_t kl = (size_t)(eq - line);
    if (!kl || kl > 64) return 0;
    for (const char *q = line; q < eq; q++)
      if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-", *q) || !*q)
        return 0;
    for (const char *q = eq + 1; q < nl; q++)
      if ((unsigned char)*q < 0x20 || *q == 0x7f) return 0;
    line = nl + 1;
  }
  return 1;
}

/* The application's events: 0..LBSPROF_MAX_EVENTS names of 1-31 of [A-Za-z0-9_.-], each once. */
static int events_ok(const prof_meta *m) {
  if (m->nevents < 0 || m->nevents > LBSPROF_MAX_EVENTS) return 0;
  for (int k = 0; k < m->nevents; k++) {
    const char *n = m->event[k];
    size_t len = strnlen(n, sizeof m->event[k]);
    if (!len || len == sizeof m->event[k] ||
        strspn(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != len)
      return 0;
    for (int j = 0; j < k; j++)
      if (!strcmp(m->event[j], n)) return 0;
  }
  return 1;
}

/* The phases of time_ns: metrics named time_ns.NAME (NAME 1-23 of [A-Za-z0-9_.-]) of a run that
 * has time_ns, at most LBSPROF_MAX_PHASES; the names are NUL-terminated already. */
static int phases_ok(const prof_meta *m) {
  int n = 0, time = 0;
  for (int i = 0; i < m->nmetrics; i++) time |= !strcmp(m->name[i], "time_ns");
  for (int i = 0; i < LBSPROF_MAX_METRICS; i++) {
    if (!(m->phases >> i & 1)) continue;
    if (i >= m->nmetrics) return 0;
    const char *s = m->name[i];
    size_t len = strlen(s);
    if (strncmp(s, "time_ns.", 8) || len == 8 ||
        strspn(s + 8, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") !=
            len - 8)
      return 0;
    n++;
  }
  return (m->phases >> LBSPROF_MAX_METRICS) == 0 && n <= LBSPROF_MAX_PHASES && (!n || time);
}

/* The application's edge rule, when it gives one: LBS_EDGE_RULE, of a run that records the
 * metric it reads, or LBS_EDGE_STEPS exactly when the description says steps carry arc weights,
 * of a mesh that has arcs (lbsprof_meta and the mesh's description check them; this is for a
 * description that did not come through them). The keys are checked already. */
static int rule_ok(const prof_meta *m) {
  char rule[LBSPROF_APP_META];
  int has_rule = app_value(m->app, "edge_weight", rule);
  if (m->edge_steps != 0 && m->edge_steps != 1) return 0;
  if (m->edge_steps || (has_rule && !strcmp(rule, LBS_EDGE_STEPS)))
    return m->edge_steps && has_rule && !strcmp(rule, LBS_EDGE_STEPS) &&
           (m->mesh_kind == 1 || m->has_adj);
  if (!has_rule) return 1;
  int has = 0;
  for (int i = 0; i < m->nmetrics; i++) has |= !strcmp(m->name[i], LBS_EDGE_RULE_METRIC);
  return !strcmp(rule, LBS_EDGE_RULE) && has;
}

static int on_hello(coll *c, conn *k, int32_t node, const uint8_t *p) {
  prof_meta m;
  memcpy(&m, p + 8, sizeof m);
  if (!c->have_meta) {
    if (m.nmetrics < 1 || m.nmetrics > LBSPROF_MAX_METRICS || m.elements < 1 || m.nodes < 1 ||
        m.nodes > (1 << 20) || m.ranks < m.nodes || m.dim < 0 || m.dim > 3 || m.adj_entries < 0 ||
        (m.mesh_kind != 1 && m.mesh_kind != 2) ||
        (uint64_t)m.elements > SIZE_MAX / 8 / LBSPROF_MAX_METRICS)
      return lbs_fail(LBS_FORMAT, "a bad run description"), -1;
    if (c->nodes && c->nodes != m.nodes)
      return lbs_fail(LBS_INVAL, "the run has %d nodes, --nodes says %d", m.nodes, c->nodes), -1;
    /* a step being assembled holds every element's metrics and every rank's events */
    double step_bytes = ((double)m.elements * m.nmetrics + (double)m.ranks * m.nevents +
                         (m.edge_steps ? run_arcs(&m) : 0)) *
                        8; /* and its arc weights, with stored@step */
    if (step_bytes > (double)c->step_cap)
      return lbs_fail(LBS_RANGE,
                      "a run of %lld elements x %d metrics and %d ranks x %d events needs %.0f MiB "
                      "per step, over the cap of %llu MiB (LBSPROF_COLLECT_STEP_MB)",
                      (long long)m.elements, m.nmetrics, m.ranks, m.nevents, step_bytes / 1048576,
                      (unsigned long long)(c->step_cap >> 20)),
             -1;
    for (int i = 0; i < m.nmetrics; i++) m.name[i][31] = m.unit[i][15] = '\0';
    if (!app_keys_ok(m.app))
      return lbs_fail(LBS_FORMAT, "a bad run description (the application's keys)"), -1;
    if (!events_ok(&m))
      return lbs_fail(LBS_FORMAT, "a bad run description (the application's events)"), -1;
    if (!phases_ok(&m))
      return lbs_fail(LBS_FORMAT, "a bad run description (the phases of time_ns)"), -1;
    if ((m.adj_weights != 0 && m.adj_weights != 1) || (m.adj_weights && !m.has_adj))
      return lbs_fail(LBS_FORMAT, "a bad run description (the arc weights)"), -1;
    if (!rule_ok(&m))
      return lbs_fail(LBS_FORMAT,
                      "a bad run description (the edge rule: edge_weight is " LBS_EDGE_RULE
                      " and the run records " LBS_EDGE_RULE_METRIC ", or " LBS_EDGE_STEPS
                      " with arc weights in the steps and a mesh with arcs)"),
             -1;
    c->meta = m, c->have_meta = 1, c->M = m.nmetrics, c->E = m.elements;
    if (setup_nodes(c, m.nodes) || !(c->tmp = malloc((size_t)c->E * sizeof *c->tmp)) ||
        !(c->owned = calloc((size_t)c->E, 1)) || !(c->mark = calloc((size_t)c->E, 1)) ||
        !(c->owner = malloc((size_t)c->E * sizeof *c->owner)))
      return lbs_fail(LBS_NOMEM, "a run of %lld elements", (long long)m.elements), -1;
  } else if (memcmp(&m, &c->meta, sizeof m)) {
    return lbs_fail(LBS_INVAL, "node %d describes another run", node), -1;
  }
  if (node < 0 || node >= c->nodes)
    return lbs_fail(LBS_FORMAT, "node %d of %d", node, c->nodes), -1;
  if (c->ended[node]) return lbs_fail(LBS_INVAL, "node %d has ended already", node), -1;
  /* one connection per node: an agent that reconnects replaces its old connection */
  for (int j = 0; j < c->nk; j++)
    if (c->k[j].live && c->k[j].state == S_NODE && c->k[j].node == node) {
      k->node = node; /* so the old one's close does not count the node lost */
      lbs__coll_close(c, j, "replaced by the node's new connection");
    }
  k->node = node, k->state = S_NODE;
  c->lost[node] = 0; /* back: its steps from here on count again */
  lbs_log(LBS_LOG_DEBUG, "collect: node %d's agent (%s) joined", node, k->peer);
  return 0;
}

/* Tells the agent whether its answer was right (a small frame into the socket: never blocks). */
static void send_verdict(conn *k, int ok) {
  int32_t v[2] = {ok, 0};
  lbs_buf f = {0};
  if (k->fd >= 0 && !lbs__frame_build(&f, FR_VERDICT, v, sizeof v, NULL, 0))
    (void)!send(k->fd, f.data, f.len, MSG_DONTWAIT | MSG_NOSIGNAL);
  lbs_buf_free(&f);
}

/* One frame from connection k: 0 go on, 1 its end, -1 drop it. */
static int on_frame(coll *c, conn *k, uint16_t type, const uint8_t *p, uint32_t len) {
  int32_t node;
  memcpy(&node, p, 4); /* every frame that passed frame_check has 8 bytes or more */
  if (type == FR_AUTH) {
    int ok = lbs__auth_verify(c->secret, k->nonce, p + 8);
    send_verdict(k, ok);
    if (!ok) {
      c->refused++;
      return lbs_fail(LBS_INVAL, "wrong token (not this run's secret)"), -1;
    }
    k->state = S_HELLO;
    return 0;
  }
  if (type == FR_HELLO) return on_hello(c, k, node, p);
  if (node != k->node)
    return lbs_fail(LBS_FORMAT, "a frame of node %d on node %d's connection", node, k->node), -1;
  if (type == FR_PING) return 0;
  if (type == FR_MESH) return on_mesh(c, node, p, len);
  if (type == FR_STEP) return on_step(c, node, p, len);
  if (type == FR_REMAP) return on_remap(c, node, p, len);
  /* FR_END */
  prof_end e;
  memcpy(&e, p + 8, sizeof e);
  if (e.dropped < 0 || e.lost < 0) return lbs_fail(LBS_FORMAT, "a bad end record"), -1;
  c->dropped += e.dropped, c->lost_ranks += e.lost;
  c->ended[node] = 1;
  write_ready(c);
  return 1;
}

/* ---------------------------------------------------------------- connections */

lbs_coll *lbs__coll_create(const char *out_path, int nodes,
                           const uint8_t secret[LBSPROF_SECRET_BYTES]) {
  coll *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->out = out_path, c->nodes = nodes;
  memcpy(c->secret, secret, LBSPROF_SECRET_BYTES);
  c->auth_timeout = lbs__env(LBS_ENV_AUTH_TIMEOUT_S);
  c->idle_timeout = lbs__env(LBS_ENV_CONN_IDLE_S);
  c->conn_cap = (uint64_t)(lbs__env(LBS_ENV_COLLECT_CONN_MB) * 1048576);
  c->step_cap = (uint64_t)(lbs__env(LBS_ENV_COLLECT_STEP_MB) * 1048576);
  if (lbs_codec_ctx_create(&c->cc)) return free(c), NULL;
  return c;
}

/* Connections that have not answered the challenge yet; *victim: one of them at random. */
static int pending(const coll *c, int *victim) {
  int n = 0;
  uint32_t r = 0;
  lbs__random(&r, sizeof r);
  *victim = -1;
  for (int j = 0; j < c->nk; j++)
    if (c->k[j].live && c->k[j].state == S_AUTH && (n++ == 0 || r % (uint32_t)n == 0))
      *victim = j; /* reservoir */
  return n;
}

/* At most this many connections wait to answer the challenge; a newcomer evicts one of them at
 * random (an agent answers within a round trip, so a flood rarely catches it). */
#define MAX_PENDING 16

int lbs__coll_open(lbs_coll *c, int fd, const char *peer, int trusted) {
  int victim;
  if (pending(c, &victim) >= MAX_PENDING)
    lbs__coll_close(c, victim, "evicted: too many connections waiting to authenticate");
  int id = -1;
  for (int j = 0; j < c->nk && id < 0; j++)
    if (!c->k[j].live) id = j;
  if (id < 0) {
    conn *k = realloc(c->k, (size_t)(c->nk + 1) * sizeof *k);
    if (!k) {
      if (fd >= 0) close(fd);
      return -1;
    }
    c->k = k, id = c->nk++;
  }
  conn *k = &c->k[id];
  memset(k, 0, sizeof *k);
  k->live = 1, k->fd = fd, k->node = -1, k->state = trusted ? S_HELLO : S_AUTH, k->c = c;
  k->opened = k->since = lbs__now_s();
  k->fr.check = frame_check;
  snprintf(k->peer, sizeof k->peer, "%s", peer);
  if (!trusted) {
    lbs_buf f = {0};
    lbs_err e = lbs__random(k->nonce, sizeof k->nonce);
    if (!e) e = lbs__frame_build(&f, FR_CHALLENGE, k->nonce, sizeof k->nonce, NULL, 0);
    /* 48 bytes into a fresh socket's buffer: never blocks */
    if (!e && fd >= 0 && send(fd, f.data, f.len, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)f.len)
      e = lbs_fail(LBS_IO, "cannot send the challenge: %s", strerror(errno));
    lbs_buf_free(&f);
    if (e) {
      lbs__coll_close(c, id, lbs_errmsg());
      return -1;
    }
  }
  return id;
}

void lbs__coll_close(lbs_coll *c, int id, const char *why) {
  conn *k = &c->k[id];
  if (!k->live) return;
  int node = k->node, was_node = k->state == S_NODE;
  if (why && was_node)
    lbs_log(LBS_LOG_WARN, "collect: node %d's agent (%s): %s; dropping its connection", node,
            k->peer, why);
  else if (why)
    lbs_log(LBS_LOG_WARN, "collect: connection from %s: %s; dropped, nothing it sent was used",
            k->peer, why);
  if (k->fd >= 0) close(k->fd);
  lbs_buf_free(&k->fr.in);
  k->live = 0;
  if (was_node && c->have_meta && !c->ended[node]) {
    /* an agent that reconnects later takes its node back */
    int again = 0;
    for (int j = 0; j < c->nk; j++) again |= c->k[j].live && c->k[j].node == node;
    if (!again) {
      c->lost[node] = 1;
      lbs_log(
          LBS_LOG_WARN,
          "collect: node %d's agent went away before its end; later steps of the run are incomplete",
          node);
      write_ready(c);
    }
  }
}

int lbs__coll_input(lbs_coll *c, int id, const uint8_t *data, size_t n) {
  conn *k = &c->k[id];
  if (!k->live) return -1;
  if (n && lbs_buf_append(&k->fr.in, data, n)) return lbs__coll_close(c, id, "out of memory"), -1;
  if (n) k->since = lbs__now_s(); /* a node sending a large frame is not silent */
  k->fr.ctx = k;                  /* the slots move when more connections come */
  uint16_t type;
  const uint8_t *pay;
  uint32_t len;
  int f;
  while ((f = lbs__frame_next(&k->fr, &type, &pay, &len)) != 0) {
    int r = f < 0 ? -1 : on_frame(c, k, type, pay, len);
    if (r < 0) {
      char why[512];
      snprintf(why, sizeof why, "%s", lbs_errmsg());
      lbs__coll_close(c, id, why);
      return -1;
    }
    if (r == 1) {
      lbs__coll_close(c, id, NULL);
      return 1;
    }
    k = &c->k[id]; /* on_hello may have closed others (the slots stay put) */
  }
  /* a frame still coming: its length passed the check, so the buffer stays within the cap */
  return 0;
}

/* Connections that waited too long to authenticate, or went silent (agents ping when idle). */
static void expire(coll *c, double t) {
  for (int j = 0; j < c->nk; j++) {
    conn *k = &c->k[j];
    if (!k->live) continue;
    char why[128];
    if (k->state != S_NODE && t - k->opened > c->auth_timeout) {
      snprintf(why, sizeof why,
               "did not authenticate and say hello within %g s (LBSPROF_AUTH_TIMEOUT_S)",
               c->auth_timeout);
      lbs__coll_close(c, j, why);
    } else if (k->state == S_NODE && t - k->since > c->idle_timeout) {
      snprintf(why, sizeof why, "silent for %g s (LBSPROF_CONN_IDLE_S)", c->idle_timeout);
      lbs__coll_close(c, j, why);
    }
  }
}

static int all_done(const coll *c) {
  int done = c->have_meta;
  for (int k = 0; done && k < c->nodes; k++) done = c->ended[k] || c->lost[k];
  return done;
}

int lbs__coll_finish(lbs_coll *c) {
  int rc = 0;
  for (int j = 0; j < c->nk; j++)
    lbs__coll_close(c, j, c->k[j].state == S_NODE ? "the collector stops" : NULL);
  if (c->refused)
    lbs_log(LBS_LOG_WARN, "collect: %lld connection%s refused: wrong token", (long long)c->refused,
            c->refused == 1 ? "" : "s");
  if (c->w) {
    write_ready(c);
    c->incomplete += c->ncs;
    int ended = 1; /* then every remap is in: those after the last step are recorded too */
    for (int k = 0; k < c->nodes; k++) ended &= c->ended[k];
    if (ended && write_owners(c, INT64_MAX)) {
      lbs_log(LBS_LOG_ERROR, "collect: cannot record the owners: %s", lbs_errmsg());
      c->failed = 1;
    }
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
      lbs_log(LBS_LOG_ERROR, "collect: %s: %s", c->out, lbs_errmsg());
      rc = 1;
    }
    lbs_log(whole ? LBS_LOG_INFO : LBS_LOG_WARN, "collect: wrote %s: %lld steps%s", c->out,
            (long long)c->written,
            whole ? "" : " (the run did not end cleanly: see its profiler.* metadata)");
    if (!whole) rc = 1;
  } else {
    lbs_log(LBS_LOG_ERROR,
            "collect: no trace written to %s: the agents never described the whole mesh", c->out);
    rc = 1;
  }
  if (c->failed) rc = 1;
  return rc;
}

void lbs__coll_free(lbs_coll *c) {
  if (!c) return;
  for (int j = 0; j < c->nk; j++)
    if (c->k[j].live) {
      if (c->k[j].fd >= 0) close(c->k[j].fd);
      lbs_buf_free(&c->k[j].fr.in);
    }
  free(c->k);
  if (c->w) lbs_trace_writer_close(&c->w);
  for (int i = 0; i < c->ncs; i++) free_cstep(c, &c->cs[i]);
  free(c->cs);
  for (int k = 0; k < c->nodes && c->mesh && c->rank && c->lay; k++) {
    lbs_buf_free(&c->mesh[k]), free(c->gid[k]), free(c->rank[k]);
    for (int i = 0; i < c->lay[k].n; i++) free(c->lay[k].l[i].gid), free(c->lay[k].l[i].rank);
    free(c->lay[k].l);
  }
  free(c->mesh), free(c->gid), free(c->n), free(c->ended), free(c->lost), free(c->last),
      free(c->tmp), free(c->owned), free(c->mark), free(c->owner), free(c->nranks), free(c->rank),
      free(c->lay), free(c->ex), free(c->ew);
  lbs_codec_ctx_destroy(&c->cc);
  OPENSSL_cleanse(c->secret, sizeof c->secret);
  free(c);
}

/* Who is at the other end: an address and port, or a local process (its uid checked). */
static int describe_peer(int fd, int *uid_ok, char *out, size_t n) {
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  *uid_ok = 1;
  if (getpeername(fd, (struct sockaddr *)&ss, &sl))
    return *uid_ok = 0, snprintf(out, n, "an unknown peer"), 0;
  if (ss.ss_family == AF_UNIX) { /* who it is, or it does not get in */
    struct ucred cr;
    socklen_t cl = sizeof cr;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl))
      return *uid_ok = 0, snprintf(out, n, "a local process"), 0;
    *uid_ok = cr.uid == geteuid();
    return snprintf(out, n, "local pid %d (uid %d)", (int)cr.pid, (int)cr.uid), 0;
  }
  char host[NI_MAXHOST], port[NI_MAXSERV];
  if (getnameinfo((struct sockaddr *)&ss, sl, host, sizeof host, port, sizeof port,
                  NI_NUMERICHOST | NI_NUMERICSERV))
    return snprintf(out, n, "an unknown address"), 0;
  snprintf(out, n, ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, port);
  /* a half-open TCP connection (the agent's host gone) is found by keepalives */
  int one = 1, idle = 30, intvl = 10, cnt = 3;
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
  return 0;
}

int lbs__collect_main(int lfd, const char *addr, const char *out_path, int nodes,
                      const uint8_t secret[LBSPROF_SECRET_BYTES]) {
  signal(SIGPIPE, SIG_IGN);
  if (lbs__env_check(LBS_ENV_FIRST_COLLECTOR, LBS_ENV_N))
    return lbs_log(LBS_LOG_ERROR, "collect: %s", lbs_errmsg()), 1;
  coll *c = lbs__coll_create(out_path, nodes, secret);
  if (!c) return lbs_log(LBS_LOG_ERROR, "collect: out of memory"), 1;
  double idle_limit = lbs__env(LBS_ENV_COLLECT_IDLE_S), idle_since = lbs__now_s();
  struct pollfd *pf = NULL;
  int *ids = NULL;
  uint8_t *rbuf = malloc(1 << 16);
  while (rbuf && !all_done(c)) {
    struct pollfd *p2 = realloc(pf, (size_t)(c->nk + 1) * sizeof *pf);
    int *i2 = realloc(ids, (size_t)(c->nk + 1) * sizeof *ids);
    if (p2) pf = p2;
    if (i2) ids = i2;
    if (!p2 || !i2) break;
    int np = 0, nodes_up = 0;
    pf[np++] = (struct pollfd){lfd, POLLIN, 0};
    for (int j = 0; j < c->nk; j++)
      if (c->k[j].live) {
        ids[np] = j, pf[np++] = (struct pollfd){c->k[j].fd, POLLIN, 0};
        nodes_up += c->k[j].state == S_NODE;
      }
    int r = poll(pf, (nfds_t)np, 250);
    double t = lbs__now_s();
    if (nodes_up) idle_since = t;
    if (!nodes_up && t - idle_since > idle_limit) {
      lbs_log(LBS_LOG_ERROR, "collect: no agent for %.0f s at %s; giving up", idle_limit, addr);
      break;
    }
    for (int i = 1; r > 0 && i < np; i++) {
      if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)) || !c->k[ids[i]].live) continue;
      /* before its hello, a connection is read no further than its answer and hello */
      size_t want = c->k[ids[i]].state == S_NODE ? 1 << 16 : 16 + 8 + sizeof(prof_meta);
      ssize_t got = recv(pf[i].fd, rbuf, want, 0);
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (got <= 0) {
        int node = c->k[ids[i]].state == S_NODE;
        lbs__coll_close(c, ids[i],
                        got < 0 ? strerror(errno)
                        : node  ? "the connection closed before the node's end"
                                : NULL);
        continue;
      }
      lbs__coll_input(c, ids[i], rbuf, (size_t)got);
    }
    if (r > 0 && (pf[0].revents & POLLIN)) {
      int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
      if (fd >= 0) {
        char peer[96];
        int uid_ok;
        describe_peer(fd, &uid_ok, peer, sizeof peer);
        if (!uid_ok) {
          lbs_log(LBS_LOG_WARN,
                  "collect: connection from %s: another user, or one that cannot be told; dropped",
                  peer);
          c->refused++;
          close(fd);
        } else {
          lbs__coll_open(c, fd, peer, 0);
        }
      }
    }
    expire(c, t);
  }
  free(pf), free(ids), free(rbuf);
  int rc = lbs__coll_finish(c);
  lbs__coll_free(c);
  return rc;
}
