/* export_vt.c - a replay as DARMA vt's LB data (lbs_export.h): one file per simulated processor,
 * data.<proc>.json, whose phases are the replayed steps and whose tasks are the elements that
 * processor holds at that step, for vt-tv and LBAF. The inverse of traces/vt.c's import: what
 * that reads back is what was written (times to the nanosecond, owners, per-step arc weights).
 *
 * Rank 0 reads each step's values once and streams every processor's phase of that step to its
 * file (plain, or through a brotli encoder), so memory is one step's values and JSON objects,
 * not the run's; at most MAX_OPEN files are open at once, further processors take further
 * passes over the steps. */
#include <brotli/encode.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbs_export.h"
#include "lbs_json.h"
#include "study_int.h"

enum { MAX_OPEN = 256 }; /* files open at once (a pass over the steps each) */

/* One processor's file: plain, or brotli-compressed as it is written. */
typedef struct {
  FILE *f;
  BrotliEncoderState *br; /* NULL: plain JSON */
  char path[4400];
  int bad; /* a write failed: errno in err */
  int err;
  uint8_t out[1 << 16]; /* the encoder's output, on its way to f */
} vt_sink;

/* len bytes of text into s (op: brotli's PROCESS, or FINISH with len 0 at the end). */
static void sink_put(vt_sink *s, const char *text, size_t len, BrotliEncoderOperation op) {
  if (s->bad) return;
  if (!s->br) {
    if (len && fwrite(text, 1, len, s->f) != len) s->bad = 1, s->err = errno;
    return;
  }
  const uint8_t *in = (const uint8_t *)text;
  size_t avail_in = len;
  for (;;) {
    uint8_t *next_out = s->out;
    size_t avail_out = sizeof s->out;
    if (!BrotliEncoderCompressStream(s->br, op, &avail_in, &in, &avail_out, &next_out, NULL)) {
      s->bad = 1, s->err = 0;
      return;
    }
    size_t n = sizeof s->out - avail_out;
    if (n && fwrite(s->out, 1, n, s->f) != n) {
      s->bad = 1, s->err = errno;
      return;
    }
    if (avail_in == 0 && !BrotliEncoderHasMoreOutput(s->br) &&
        (op != BROTLI_OPERATION_FINISH || BrotliEncoderIsFinished(s->br)))
      return;
  }
}

static void sink_text(vt_sink *s, const char *text) {
  sink_put(s, text, strlen(text), BROTLI_OPERATION_PROCESS);
}

/* v (compact, as every lbsim document) into s; a NULL v (out of memory building it) fails. */
static lbs_err sink_json(vt_sink *s, const json_t *v) {
  char *t = lbs_json_dumps(v, LBS_JSON_COMPACT);
  if (!t) return lbs_fail(LBS_NOMEM, "%s: the JSON of a phase", s->path);
  sink_text(s, t);
  free(t);
  return LBS_OK;
}

/* Creates processor p's file in dir: LBS_IO naming it. */
static lbs_err sink_open(vt_sink *s, const char *dir, int p, int brotli) {
  snprintf(s->path, sizeof s->path, "%s/data.%d.json", dir, p);
  if (!(s->f = fopen(s->path, "wx")))
    return lbs_fail(LBS_IO, "%s: cannot create: %s", s->path, strerror(errno));
  if (!brotli) return LBS_OK;
  /* quality 5: brotli's default (11) costs many times the time for a few percent of size */
  if (!(s->br = BrotliEncoderCreateInstance(NULL, NULL, NULL)) ||
      !BrotliEncoderSetParameter(s->br, BROTLI_PARAM_QUALITY, 5) ||
      !BrotliEncoderSetParameter(s->br, BROTLI_PARAM_MODE, BROTLI_MODE_TEXT))
    return lbs_fail(LBS_NOMEM, "%s: brotli encoder", s->path);
  return LBS_OK;
}

/* Ends and closes the file: LBS_IO "PATH: write failed: why" (the file removed). */
static lbs_err sink_close(vt_sink *s) {
  if (!s->f) return LBS_OK;
  if (s->br) sink_put(s, NULL, 0, BROTLI_OPERATION_FINISH);
  BrotliEncoderDestroyInstance(s->br);
  s->br = NULL;
  FILE *f = s->f;
  s->f = NULL;
  if (s->bad) {
    fclose(f);
    unlink(s->path);
    return lbs_fail(LBS_IO, "%s: write failed: %s", s->path,
                    s->err ? strerror(s->err) : "the brotli encoder failed");
  }
  return lbs__close_new(f, s->path);
}

/* ---------------------------------------------------------------- what every phase shares */

/* The replay's view of the trace that the files need. */
typedef struct {
  lbs_trace *t;
  const lbs_replay_result *r;
  int64_t E;
  int metric;
  double per_s;   /* the metric's units per second (1e9 for ns); 0: not a time */
  int dim;        /* index components per task (0: none) */
  int64_t *index; /* E x dim */
  const int64_t *xadj, *adj;
  int64_t *rev;       /* each arc's reverse arc, -1 when none */
  double *cw;         /* the arcs' weights at the step */
  double *cost;       /* the step's values */
  const int *home;    /* the owners at the window's first step */
  unsigned char *pin; /* E: the trace's pinned elements (lbs_trace_pinned), not migratable */
  /* An imported vt run's node elements (LBS_VT_META_NODE_ELEMENTS): elements node0 .. node0 +
   * nnodes - 1 stand for ranks nrank[0 ..], written as the node end of communications */
  int64_t node0, nnodes, *nrank;
  int absent;         /* meta absent = zero_work: a task with no work at a step is not in it */
  unsigned char *any; /* E, with absent: the element has work at some step of the window */
} vt_view;

/* Units per second of a metric's unit; 0 when it is not a time. */
static double per_second(const char *unit) {
  static const struct {
    const char *unit;
    double per_s;
  } u[] = {{"ns", 1e9}, {"us", 1e6}, {"ms", 1e3}, {"s", 1}};
  for (size_t i = 0; unit && i < sizeof u / sizeof *u; i++)
    if (!strcmp(unit, u[i].unit)) return u[i].per_s;
  return 0;
}

/* The tasks' indices: a structured mesh's cells (i, j, k); an unstructured mesh's coordinates
 * when every one is a whole number (vt's indices are integers; the import makes them the
 * coordinates again); else none. */
static lbs_err task_index(vt_view *x) {
  lbs_mesh *m = lbs_trace_mesh(x->t);
  if (!m) return LBS_OK;
  if (lbs_mesh_get_kind(m) == LBS_MESH_STRUCTURED) {
    int64_t d[3];
    lbs_mesh_dims(m, d);
    const int64_t *cell = lbs_mesh_cell_index(m);
    if (!cell || !(x->index = malloc((size_t)x->E * 3 * sizeof *x->index)))
      return lbs_fail(LBS_NOMEM, "the indices of %lld tasks", (long long)x->E);
    for (int64_t e = 0; e < x->E; e++) {
      int64_t c = cell[e], *ix = x->index + 3 * e;
      ix[0] = c % d[0], ix[1] = c / d[0] % d[1], ix[2] = c / d[0] / d[1];
    }
    x->dim = 3;
    return LBS_OK;
  }
  const double *co;
  int dim;
  lbs_err e = lbs_mesh_coords(m, &co, &dim);
  if (e || !co || dim < 1 || dim > 3) return e;
  for (int64_t i = 0; i < x->E * dim; i++)
    if (co[i] != floor(co[i]) || fabs(co[i]) > 9e15) return LBS_OK; /* not integral: none */
  if (!(x->index = malloc((size_t)(x->E * dim) * sizeof *x->index)))
    return lbs_fail(LBS_NOMEM, "the indices of %lld tasks", (long long)x->E);
  for (int64_t i = 0; i < x->E * dim; i++) x->index[i] = (int64_t)co[i];
  x->dim = dim;
  return LBS_OK;
}

/* The graph and each arc's reverse (a row's arcs scanned: graphs of meshes and task pairs have
 * few neighbours a row). */
static lbs_err task_graph(vt_view *x) {
  lbs_mesh *m = lbs_trace_mesh(x->t);
  const double *w;
  if (!m || lbs_mesh_graph(m, &x->xadj, &x->adj, &w)) {
    x->xadj = x->adj = NULL;
    return LBS_OK; /* no graph: no communications */
  }
  int64_t na = x->xadj[x->E];
  x->rev = malloc((size_t)(na + 1) * sizeof *x->rev);
  x->cw = malloc((size_t)(na + 1) * sizeof *x->cw);
  if (!x->rev || !x->cw) return lbs_fail(LBS_NOMEM, "the %lld arcs of the graph", (long long)na);
  for (int64_t u = 0; u < x->E; u++)
    for (int64_t k = x->xadj[u]; k < x->xadj[u + 1]; k++) {
      int64_t v = x->adj[k];
      x->rev[k] = -1;
      for (int64_t j = x->xadj[v]; j < x->xadj[v + 1] && x->rev[k] < 0; j++)
        if (x->adj[j] == u) x->rev[k] = j;
    }
  return LBS_OK;
}

/* The node elements of an imported vt run (meta vt.node_elements "FIRST COUNT" and vt.node_ranks,
 * as traces/vt.c writes them); none without them. LBS_PARSE when they do not fit the trace. */
static lbs_err node_elements(vt_view *x) {
  const char *ne = lbs_trace_meta(x->t, LBS_VT_META_NODE_ELEMENTS);
  const char *nr = lbs_trace_meta(x->t, LBS_VT_META_NODE_RANKS);
  if (!ne) return LBS_OK;
  long long first, count;
  int end = 0;
  if (sscanf(ne, "%lld %lld%n", &first, &count, &end) != 2 || ne[end] || first < 0 || count < 1 ||
      first + count > x->E || !nr)
    return lbs_fail(LBS_PARSE, "%s: meta %s '%s' does not fit its %lld elements (or no %s)",
                    lbs_trace_path(x->t), LBS_VT_META_NODE_ELEMENTS, ne, (long long)x->E,
                    LBS_VT_META_NODE_RANKS);
  if (!(x->nrank = malloc((size_t)count * sizeof *x->nrank)))
    return lbs_fail(LBS_NOMEM, "node elements");
  const char *at = nr;
  for (long long j = 0; j < count; j++) {
    char *next;
    long long r = strtoll(at, &next, 10);
    if (next == at || r < 0 || r > INT32_MAX)
      return lbs_fail(LBS_PARSE, "%s: meta %s: rank %lld of %lld is not one in 0..2^31-1",
                      lbs_trace_path(x->t), LBS_VT_META_NODE_RANKS, j, count);
    x->nrank[j] = r, at = next;
  }
  x->node0 = first, x->nnodes = count;
  return LBS_OK;
}

static int is_node(const vt_view *x, int64_t e) {
  return e >= x->node0 && e < x->node0 + x->nnodes;
}

/* With meta absent = zero_work: which elements have work at some step of the window (one pass
 * over the steps). One that has none is still written, in the first phase, so the import knows
 * it. */
static lbs_err some_work(vt_view *x) {
  const char *ab = lbs_trace_meta(x->t, LBS_META_ABSENT);
  if (!ab || strcmp(ab, LBS_ABSENT_ZERO_WORK)) return LBS_OK;
  x->absent = 1;
  if (!(x->any = calloc((size_t)x->E + 1, 1))) return lbs_fail(LBS_NOMEM, "absent tasks");
  lbs_err e = LBS_OK;
  for (int64_t s = 0; !e && s < x->r->steps; s++) {
    e = lbs_trace_read(x->t, x->r->first_step + s, x->metric, 0, x->E, x->cost);
    for (int64_t el = 0; !e && el < x->E; el++) x->any[el] |= x->cost[el] != 0;
  }
  return e;
}

/* The entity of task e. */
static json_t *entity(const vt_view *x, int64_t e) {
  json_t *o = json_object();
  int bad = !o || lbs_json_set(o, "type", json_string("object")) ||
            lbs_json_set(o, "seq_id", lbs_json_int(e)) ||
            lbs_json_set(o, "home", lbs_json_int(x->home[e])) ||
            lbs_json_set(o, "migratable", json_boolean(!x->pin[e]));
  if (!bad && x->dim) {
    json_t *ix = json_array();
    for (int d = 0; ix && d < x->dim; d++)
      if (json_array_append_new(ix, lbs_json_int(x->index[e * x->dim + d])))
        json_decref(ix), ix = NULL;
    bad = lbs_json_set(o, "index", ix);
  }
  if (bad) json_decref(o);
  return bad ? NULL : o;
}

/* An end of a communication: task e's entity, or a node element's {"type": "node", "id": r}. */
static json_t *endpoint(const vt_view *x, int64_t e) {
  if (!is_node(x, e)) return entity(x, e);
  json_t *o = json_object();
  if (o && (lbs_json_set(o, "type", json_string("node")) ||
            lbs_json_set(o, "id", lbs_json_int(x->nrank[e - x->node0]))))
    json_decref(o), o = NULL;
  return o;
}

/* Appends a communication of bytes from a to b to the list l: a SendRecv between tasks, a
 * CollectionToNode from a task to a node element, a NodeToCollection the other way. */
static int comm(const vt_view *x, json_t *l, int64_t a, int64_t b, double bytes) {
  json_t *c = json_object();
  const char *type = is_node(x, b)   ? "CollectionToNode"
                     : is_node(x, a) ? "NodeToCollection"
                                     : "SendRecv";
  int bad = !c || lbs_json_set(c, "type", json_string(type)) ||
            lbs_json_set(c, "from", endpoint(x, a)) || lbs_json_set(c, "to", endpoint(x, b)) ||
            lbs_json_set(c, "messages", lbs_json_int(1)) ||
            lbs_json_set(c, "bytes", lbs_json_real(bytes));
  if (bad) return json_decref(c), -1;
  return json_array_append_new(l, c);
}

/* One phase of a pass: the trace step's values, arcs and owners; each processor of [p0, p1) its
 * phase object, streamed to its file. *ncomm counts the communications written. */
static lbs_err phase(vt_view *x, vt_sink *sinks, int p0, int p1, int64_t s, const int *owner,
                     int64_t *ncomm) {
  int64_t ts = x->r->first_step + s, E = x->E;
  lbs_err e = lbs_trace_read(x->t, ts, x->metric, 0, E, x->cost);
  if (!e && x->xadj) e = lbs_trace_edge_weights(x->t, ts, x->cw);
  if (e) return e;
  int n = p1 - p0;
  json_t **tasks = calloc((size_t)n, sizeof *tasks), **comms = calloc((size_t)n, sizeof *comms);
  int bad = !tasks || !comms;
  for (int i = 0; !bad && i < n; i++)
    bad = !(tasks[i] = json_array()) || !(comms[i] = json_array());
  for (int64_t el = 0; !bad && el < E; el++) {
    int p = owner[el];
    if (p < p0 || p >= p1 || is_node(x, el)) continue; /* a node element: its traffic, below */
    /* absent (no work, meta absent): not in the phase, as vt leaves out a task that does not
     * exist then; one with no work anywhere in the window only in the first, to be known */
    if (x->absent && x->cost[el] == 0 && (x->any[el] || s > 0)) continue;
    double v = x->per_s ? x->cost[el] / x->per_s : x->cost[el];
    json_t *t = json_object();
    bad = !t || lbs_json_set(t, "entity", entity(x, el)) ||
          lbs_json_set(t, "node", lbs_json_int(p)) ||
          lbs_json_set(t, "resource", json_string("cpu")) ||
          lbs_json_set(t, "time", lbs_json_real(v)) || json_array_append_new(tasks[p - p0], t);
  }
  /* The import reads a pair's bytes (both directions summed) as the weight of both its arcs: a
   * pair whose two arcs weigh the same is one communication; arcs that differ (a directed graph)
   * are one each, which the import sums. In the file of the processor that holds the receiver.
   * Node elements come after the tasks: a symmetric pair with one goes as CollectionToNode from
   * the task; two node elements (which an import never makes) are not vt's: left out. */
  for (int64_t u = 0; !bad && x->xadj && u < E; u++)
    for (int64_t k = x->xadj[u]; !bad && k < x->xadj[u + 1]; k++) {
      int64_t v = x->adj[k], r = x->rev[k];
      int p = owner[v];
      if (v == u || !(x->cw[k] > 0) || p < p0 || p >= p1 || (is_node(x, u) && is_node(x, v)))
        continue;
      if (r >= 0 && x->cw[r] == x->cw[k] && u > v) continue; /* written as v -> u */
      bad = comm(x, comms[p - p0], u, v, x->cw[k]);
      if (!bad) ++*ncomm;
    }
  for (int i = 0; !bad && !e && i < n; i++) {
    json_t *ph = json_object();
    bad = !ph || lbs_json_set(ph, "id", lbs_json_int(ts)) ||
          lbs_json_set(ph, "tasks", json_incref(tasks[i])) ||
          lbs_json_set(ph, "communications", json_incref(comms[i]));
    if (!bad) {
      if (s) sink_text(&sinks[i], ",");
      e = sink_json(&sinks[i], ph);
    }
    json_decref(ph);
  }
  for (int i = 0; tasks && comms && i < n; i++) json_decref(tasks[i]), json_decref(comms[i]);
  free(tasks), free(comms);
  return bad ? lbs_fail(LBS_NOMEM, "step %lld: its tasks as JSON", (long long)ts) : e;
}

/* What the numbers mean, for a reader of the files. */
static json_t *attributes(const vt_view *x, lbs_metric_info *mi) {
  char t[200];
  if (x->per_s)
    snprintf(t, sizeof t, "seconds: the replayed metric %s (%s) / %.0f", mi->name,
             mi->unit ? mi->unit : "", x->per_s);
  else
    snprintf(t, sizeof t, "not a time: the replayed metric %s's value (unit '%s')", mi->name,
             mi->unit ? mi->unit : "");
  json_t *a = json_object();
  int bad = !a || lbs_json_set(a, "lbsim.time", lbs_json_str(t)) ||
            lbs_json_set(a, "lbsim.bytes",
                         json_string("the trace's arc weight at the step (the replay sends "
                                     "bytes_per_edge x weight); messages: 1 a phase")) ||
            lbs_json_set(a, "lbsim.trace", lbs_json_str(lbs_trace_path(x->t))) ||
            lbs_json_set(a, "lbsim.policy", lbs_json_str(x->r->policy)) ||
            lbs_json_set(a, "lbsim.partitioner", lbs_json_str(x->r->partitioner)) ||
            lbs_json_set(a, "lbsim.first_step", lbs_json_int(x->r->first_step));
  if (bad) json_decref(a);
  return bad ? NULL : a;
}

/* The head of processor p's file, up to the opening of its phases list. */
static lbs_err head(const vt_view *x, vt_sink *s, int p, lbs_metric_info *mi) {
  json_t *md = json_object(), *ph = json_object();
  int bad = !md || !ph || lbs_json_set(ph, "count", lbs_json_int(x->r->steps)) ||
            lbs_json_set(md, "type", json_string("LBDatafile")) ||
            lbs_json_set(md, "rank", lbs_json_int(p)) || lbs_json_set(md, "phases", ph) ||
            lbs_json_set(md, "attributes", attributes(x, mi));
  if (bad && md) json_decref(md);
  if (bad) return lbs_fail(LBS_NOMEM, "%s: metadata", s->path);
  sink_text(s, "{\"type\":\"LBDatafile\",\"metadata\":");
  lbs_err e = sink_json(s, md);
  json_decref(md);
  sink_text(s, ",\"phases\":[");
  return e;
}

/* Processors [p0, p1): their files, every step's phase, closed. */
static lbs_err pass(vt_view *x, const lbs_vtdata_opts *o, const char *dir, vt_sink *sinks, int p0,
                    int p1, lbs_metric_info *mi, int64_t *ncomm, int64_t *done, int64_t total) {
  lbs_err e = LBS_OK;
  int n = p1 - p0;
  for (int i = 0; i < n; i++) memset(&sinks[i], 0, offsetof(vt_sink, out));
  for (int i = 0; !e && i < n; i++) {
    if (!(e = sink_open(&sinks[i], dir, p0 + i, o->brotli))) e = head(x, &sinks[i], p0 + i, mi);
  }
  const lbs_replay_result *r = x->r;
  int k = 0; /* the assignment in force: after reparts[k-1] */
  for (int64_t s = 0; !e && s < r->steps; s++) {
    while (k < r->nrep && r->reparts[k].step <= s) k++;
    e = phase(x, sinks, p0, p1, s, r->assign + (size_t)k * (size_t)x->E, ncomm);
    if (o->progress) o->progress(o->progress_arg, ++*done, total);
  }
  for (int i = 0; i < n; i++) {
    if (!e) sink_text(&sinks[i], "]}\n");
    lbs_err c = sink_close(&sinks[i]);
    e = e ? e : c;
  }
  return e;
}

lbs_err lbs_vtdata_write(lbs_trace *t, const lbs_replay_result *r, const lbs_vtdata_opts *o,
                         const char *dir, lbs_vtdata_summary *sum) {
  vt_view x = {.t = t, .r = r, .E = lbs_trace_elements(t)};
  *sum = (lbs_vtdata_summary){0};
  lbs_metric_info mi;
  x.metric = lbs_trace_metric_find(t, r->metric);
  if (x.metric < 0 || lbs_trace_metric(t, x.metric, &mi))
    return lbs_fail(LBS_INVAL, "the replayed metric %s is not in the trace", r->metric);
  if (!r->assign) return lbs_fail(LBS_INVAL, "the replay kept no assignments");
  x.per_s = per_second(mi.unit);
  int first = 0; /* the assignment at the window's first step: every task's home */
  while (first < r->nrep && r->reparts[first].step <= 0) first++;
  x.home = r->assign + (size_t)first * (size_t)x.E;
  x.cost = malloc((size_t)(x.E ? x.E : 1) * sizeof *x.cost);
  x.pin = malloc((size_t)x.E + 1);
  int64_t npin = 0;
  int nopen = r->procs < MAX_OPEN ? r->procs : MAX_OPEN;
  vt_sink *sinks = malloc((size_t)(nopen ? nopen : 1) * sizeof *sinks);
  lbs_err e = x.cost && sinks && x.pin ? LBS_OK : lbs_fail(LBS_NOMEM, "out of memory");
  if (!e) e = lbs_trace_pinned(t, x.pin, &npin); /* an objgroup goes back as one */
  if (!e) e = task_index(&x);
  if (!e) e = task_graph(&x);
  if (!e) e = node_elements(&x);
  if (!e) e = some_work(&x);
  int64_t done = 0, total = r->steps * ((r->procs + MAX_OPEN - 1) / MAX_OPEN);
  for (int p0 = 0; !e && p0 < r->procs; p0 += MAX_OPEN) {
    int p1 = p0 + MAX_OPEN < r->procs ? p0 + MAX_OPEN : r->procs;
    e = pass(&x, o, dir, sinks, p0, p1, &mi, &sum->comms, &done, total);
    if (!e) sum->files += p1 - p0;
  }
  if (!e) sum->phases = r->steps, sum->tasks = x.E - x.nnodes, sum->seconds = x.per_s != 0;
  if (!e) sum->nodes = x.nnodes;
  free(x.cost), free(x.index), free(x.rev), free(x.cw), free(x.pin), free(sinks);
  free(x.nrank), free(x.any);
  return e;
}
