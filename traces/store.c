/* store.c - the SQLite trace store: schema, streaming writer, random-access reader.
 *
 * Schema (version LBS_TRACE_SCHEMA_VERSION, PRAGMA user_version; PRAGMA application_id
 * 'LBST' marks the file as a trace):
 *   meta(key, value)                    format, sizes, mesh description, source recipe
 *   metrics(id, name, unit, codec, bound)  bound in its one spelling ("rel:0.005")
 *   steps(idx, app_step)                idx 0..S-1, the application's step number
 *   chunks(id, step, metric, chunk, first_elem, count, codec, crc32,
 *          vmin, vmax, err_max, err_sq, err_rel, sum_err, data)
 *                                       id = (step*M + metric)*NC + chunk, so a chunk is
 *                                       one rowid lookup from any step, in any order
 *   arrays(name, type, count, codec, crc32, data)   mesh arrays (coords, CSR, cell order)
 * Each step is written in one transaction: a writer killed at any moment leaves every
 * complete step readable and no partial one. Schema 1 (metrics with error_bound and a
 * relative flag, chunks without err_rel and sum_err) is still read, never upgraded in place
 * (trace recode writes it anew). Files are opened through core's lbs_db (TRACE below). */
#include "codec_int.h"
#include "traces_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lbs_db.h"

static const char SCHEMA[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE metrics(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, unit TEXT NOT NULL,"
    " codec TEXT NOT NULL, bound TEXT NOT NULL);"
    "CREATE TABLE steps(idx INTEGER PRIMARY KEY, app_step INTEGER NOT NULL);"
    "CREATE TABLE chunks(id INTEGER PRIMARY KEY, step INTEGER NOT NULL, metric INTEGER NOT NULL,"
    " chunk INTEGER NOT NULL, first_elem INTEGER NOT NULL, count INTEGER NOT NULL,"
    " codec INTEGER NOT NULL, crc32 INTEGER NOT NULL, vmin REAL, vmax REAL, err_max REAL,"
    " err_sq REAL, err_rel REAL, sum_err REAL, data BLOB NOT NULL);"
    "CREATE TABLE arrays(name TEXT PRIMARY KEY, type TEXT NOT NULL, count INTEGER NOT NULL,"
    " codec INTEGER NOT NULL, crc32 INTEGER NOT NULL, data BLOB NOT NULL);";

/* A trace file: written once, new (LBS_DB_CREATE), in WAL mode while it is written; read from
 * schema 1 on. */
static const lbs_db_kind TRACE = {
    .what = "trace",
    .a_what = "an lbsim trace",
    .schema_name = "trace",
    .app_id = LBS_TRACE_APP_ID,
    .version = LBS_TRACE_SCHEMA_VERSION,
    .oldest = 1,
    .new_pragmas = "PRAGMA page_size=4096; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    .schema = SCHEMA,
    .rw_reader = 1, /* so that SQLite can roll back what a killed writer left */
};

/* Small traces are rewritten at close in smaller pages (see compact()) when their file exceeds
 * LBS_TRACE_COMPACT_SLACK times their blob bytes: in 512-byte pages up to
 * LBS_TRACE_COMPACT_SMALL bytes, in 1024-byte ones up to LBS_TRACE_COMPACT_MAX. */
#define LBS_TRACE_COMPACT_SLACK 1.1
#define LBS_TRACE_COMPACT_SMALL (1 << 20)
#define LBS_TRACE_COMPACT_MAX (8 << 20)

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ================================================================ writer */

struct lbs_trace_writer {
  lbs_db *d;
  int64_t E, C, nchunks, next_step;
  int nm;
  lbs_metric_spec *metrics; /* names and units owned */
  sqlite3_stmt *ins_step, *ins_chunk;
  lbs_codec_ctx *ctx;
  lbs_buf blob;
  double *check; /* one decoded chunk */
  double enc_s;
  int nev, ranks; /* per-rank events of each step (lbs_trace_writer_set_events) */
  double *ev;     /* ranks x nev values for the next step */
  int ev_pending; /* ev holds the next step's */
  int edge_steps; /* created with edge_weight = LBS_EDGE_STEPS (lbs_trace_write_edge_weights) */
  int64_t arcs;   /* the mesh graph's arcs, -1 without one */
  double *ew;     /* arcs weights for the next step (lbs_trace_step_edge_weights), or NULL */
  int ew_pending; /* ew holds the next step's */
};

static lbs_err put_meta(lbs_trace_writer *w, const char *key, const char *val) {
  lbs_db_val row[] = {LBS_DB_TEXT(key), LBS_DB_TEXT(val)};
  return lbs_db_insert(w->d, "INSERT OR REPLACE INTO meta VALUES(?1,?2)", "meta", row,
                       LBS_DB_COUNT(row));
}

lbs_err lbs_trace_writer_set_meta(lbs_trace_writer *w, const char *key, const char *value) {
  return put_meta(w, key, value);
}

static lbs_err put_meta_i(lbs_trace_writer *w, const char *key, int64_t v) {
  char b[32];
  snprintf(b, sizeof b, "%lld", (long long)v);
  return put_meta(w, key, b);
}

static lbs_err put_meta_d(lbs_trace_writer *w, const char *key, double v) {
  char b[40];
  snprintf(b, sizeof b, "%.17g", v);
  return put_meta(w, key, b);
}

/* Stores an array of n 8-byte items (doubles or int64) losslessly with a CRC. */
static lbs_err put_array(lbs_trace_writer *w, const char *name, const char *type, const void *data,
                         int64_t n) {
  w->blob.len = 0;
  lbs_codec used;
  lbs_err e = lbs_codec_encode(w->ctx, LBS_CODEC_LOSSLESS, data, (size_t)n,
                               (lbs_bound){LBS_BOUND_LOSSLESS, 0}, &w->blob, &used);
  if (e) return e;
  lbs_db_val row[] = {LBS_DB_TEXT(name),
                      LBS_DB_TEXT(type),
                      LBS_DB_INT(n),
                      LBS_DB_INT(LBS_CODEC_LOSSLESS),
                      LBS_DB_INT(lbs_crc32(w->blob.data, w->blob.len)),
                      LBS_DB_BLOB(w->blob.data, w->blob.len)};
  return lbs_db_insert(w->d, "INSERT INTO arrays VALUES(?1,?2,?3,?4,?5,?6)", "arrays", row,
                       LBS_DB_COUNT(row));
}

static lbs_err put_mesh(lbs_trace_writer *w, lbs_mesh *m) {
  lbs_err e;
  int structured = m->kind == LBS_MESH_STRUCTURED;
  if ((e = put_meta(w, "mesh.kind", structured ? "structured" : "unstructured"))) return e;
  if ((e = put_meta_d(w, "mesh.bytes_per_elem", m->bytes_elem))) return e;
  if ((e = put_meta_d(w, "mesh.bytes_per_edge", m->bytes_edge))) return e;
  if (structured) {
    char dims[80];
    snprintf(dims, sizeof dims, "%lldx%lldx%lld", (long long)m->dims[0], (long long)m->dims[1],
             (long long)m->dims[2]);
    if ((e = put_meta(w, "mesh.dims", dims))) return e;
    if ((e = put_meta(w, "mesh.order", m->order == LBS_ORDER_HILBERT ? "hilbert" : "natural")))
      return e;
    if (m->order == LBS_ORDER_HILBERT) {
      const int64_t *cell = lbs_mesh_cell_index(m);
      if (!cell) return lbs_fail(LBS_NOMEM, "Hilbert order");
      return put_array(w, "cell_index", "i64", cell, m->n);
    }
    return LBS_OK;
  }
  if ((e = put_meta_i(w, "mesh.directed", m->directed))) return e;
  if ((e = put_meta_i(w, "mesh.dim", m->dim))) return e;
  if (m->dim && (e = put_array(w, "coords", "f64", m->coords, m->n * m->dim))) return e;
  if ((e = put_array(w, "xadj", "i64", m->xadj, m->n + 1))) return e;
  if ((e = put_array(w, "adjncy", "i64", m->adjncy, m->xadj[m->n]))) return e;
  return put_array(w, "adjwgt", "f64", m->adjwgt, m->xadj[m->n]);
}

static void writer_free(lbs_trace_writer *w) {
  sqlite3_finalize(w->ins_step);
  sqlite3_finalize(w->ins_chunk);
  lbs_db_close(&w->d);
  for (int i = 0; w->metrics && i < w->nm; i++) {
    free((char *)w->metrics[i].name);
    free((char *)w->metrics[i].unit);
  }
  free(w->metrics);
  lbs_codec_ctx_destroy(&w->ctx);
  lbs_buf_free(&w->blob);
  free(w->check);
  free(w->ev);
  free(w->ew);
  free(w);
}

/* What lbs_trace_create refuses before anything is made; C is the chunk size. */
static lbs_err check_spec(const lbs_trace_spec *spec, int64_t C) {
  if (spec->elements < 1) return lbs_fail(LBS_INVAL, "a trace needs at least one element");
  if (C < 1 || C > LBS_TRACE_MAX_CHUNK)
    return lbs_fail(LBS_INVAL, "chunk size %lld outside 1..%d", (long long)C, LBS_TRACE_MAX_CHUNK);
  if (spec->nmetrics < 1 || !spec->metrics) return lbs_fail(LBS_INVAL, "a trace needs a metric");
  if (spec->mesh && spec->mesh->n != spec->elements)
    return lbs_fail(LBS_INVAL, "mesh has %lld elements, trace %lld", (long long)spec->mesh->n,
                    (long long)spec->elements);
  for (int i = 0; i < spec->nmetrics; i++) {
    const lbs_metric_spec *m = &spec->metrics[i];
    if (!m->name || !*m->name) return lbs_fail(LBS_INVAL, "metric %d has no name", i);
    if (lbs_codec_check(m->bound.kind == LBS_BOUND_LOSSLESS ? LBS_CODEC_LOSSLESS : m->codec,
                        m->bound))
      return lbs_fail(LBS_INVAL, "metric '%s': %s", m->name, lbs_errmsg());
    if (m->encode.eps > 0 && (m->encode.kind != m->bound.kind || m->encode.eps > m->bound.eps))
      return lbs_fail(LBS_INVAL,
                      "metric '%s': the encoding bound must be of the same kind and tighter",
                      m->name);
    for (int j = 0; j < i; j++)
      if (!strcmp(spec->metrics[j].name, m->name))
        return lbs_fail(LBS_INVAL, "metric '%s' given twice", m->name);
  }
  return LBS_OK;
}

/* A writer with its own copies of the spec's metrics and its buffers, not yet connected; NULL
 * when out of memory. */
static lbs_trace_writer *writer_new(const lbs_trace_spec *spec, int64_t C) {
  lbs_trace_writer *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->E = spec->elements;
  w->C = C;
  w->nchunks = (w->E + C - 1) / C;
  w->nm = spec->nmetrics;
  w->metrics = calloc((size_t)w->nm, sizeof *w->metrics);
  w->check = malloc((size_t)C * sizeof *w->check);
  if (!w->metrics || !w->check || lbs_codec_ctx_create(&w->ctx)) {
    writer_free(w);
    return NULL;
  }
  for (int i = 0; i < w->nm; i++) {
    w->metrics[i] = spec->metrics[i];
    w->metrics[i].name = strdup(spec->metrics[i].name);
    w->metrics[i].unit = strdup(spec->metrics[i].unit ? spec->metrics[i].unit : "");
    if (w->metrics[i].bound.kind == LBS_BOUND_LOSSLESS) w->metrics[i].codec = LBS_CODEC_LOSSLESS;
    if (!w->metrics[i].name || !w->metrics[i].unit) {
      writer_free(w);
      return NULL;
    }
  }
  return w;
}

/* The trace's meta, mesh and metric rows, in the transaction that made the file. */
static lbs_err put_header(lbs_trace_writer *w, const lbs_trace_spec *spec) {
  lbs_err e;
  if ((e = put_meta(w, "format", "lbsim-trace"))) return e;
  if ((e = put_meta_i(w, "schema_version", LBS_TRACE_SCHEMA_VERSION))) return e;
  if ((e = put_meta_i(w, "elements", w->E))) return e;
  if ((e = put_meta_i(w, "chunk_elems", w->C))) return e;
  for (int i = 0; i < spec->nmeta; i++) {
    if ((e = put_meta(w, spec->meta[2 * i], spec->meta[2 * i + 1]))) return e;
    if (!strcmp(spec->meta[2 * i], "edge_weight"))
      w->edge_steps = !strcmp(spec->meta[2 * i + 1], LBS_EDGE_STEPS);
  }
  if (spec->mesh && (e = put_mesh(w, spec->mesh))) return e;
  w->arcs = -1;
  const int64_t *gx, *ga;
  const double *gw;
  if (w->edge_steps && spec->mesh && !lbs_mesh_graph(spec->mesh, &gx, &ga, &gw))
    w->arcs = gx[w->E]; /* what each step's array must hold */
  sqlite3_stmt *st;
  if ((e = lbs_db_prepare(w->d, "INSERT INTO metrics VALUES(?1,?2,?3,?4,?5)", "metrics", &st)))
    return e;
  for (int i = 0; i < w->nm && !e; i++) {
    char bound[LBS_BOUND_STRLEN];
    lbs_db_val row[] = {LBS_DB_INT(i), LBS_DB_TEXT(w->metrics[i].name),
                        LBS_DB_TEXT(w->metrics[i].unit),
                        LBS_DB_TEXT(lbs_codec_name(w->metrics[i].codec)),
                        LBS_DB_TEXT(lbs_bound_format(w->metrics[i].bound, bound))};
    e = lbs_db_row(w->d, st, "metrics", row, LBS_DB_COUNT(row));
  }
  sqlite3_finalize(st);
  return e;
}

lbs_err lbs_trace_create(const char *path, const lbs_trace_spec *spec, lbs_trace_writer **out) {
  *out = NULL;
  int64_t C = spec->chunk_elems ? spec->chunk_elems : LBS_TRACE_DEFAULT_CHUNK;
  lbs_err e = check_spec(spec, C);
  if (e) return e;
  lbs_trace_writer *w = writer_new(spec, C);
  if (!w) return lbs_fail(LBS_NOMEM, "writer");
  /* a new file only (anything there, a link too, is never written through), made with its
   * schema in a transaction that the header rows join */
  e = lbs_db_open(&TRACE, path, &(lbs_db_opts){.mode = LBS_DB_CREATE, .keep_tx = 1}, &w->d);
  if (e) {
    writer_free(w);
    return e;
  }
  if (!(e = put_header(w, spec))) e = lbs_db_commit(w->d, "create");
  if (!e) e = lbs_db_prepare(w->d, "INSERT INTO steps VALUES(?1,?2)", "prepare", &w->ins_step);
  if (!e)
    e = lbs_db_prepare(
        w->d, "INSERT INTO chunks VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15)",
        "prepare", &w->ins_chunk);
  if (e) {
    writer_free(w);
    remove(path); /* made by this call */
    return e;
  }
  *out = w;
  return LBS_OK;
}

double lbs_trace_writer_encode_seconds(const lbs_trace_writer *w) { return w->enc_s; }

/* Encodes one chunk within bound b (lossless, abs or rel), measures its errors and its sum
 * against the input, inserts the row. */
static lbs_err write_chunk(lbs_trace_writer *w, int64_t step, int m, int64_t c, const double *v,
                           lbs_bound b) {
  int64_t first = c * w->C, n = w->E - first < w->C ? w->E - first : w->C;
  lbs_codec codec = b.kind == LBS_BOUND_LOSSLESS ? LBS_CODEC_LOSSLESS : w->metrics[m].codec;
  double t0 = now_s();
  w->blob.len = 0;
  lbs_err e = lbs_codec_encode(w->ctx, codec, v, (size_t)n, b, &w->blob, &codec);
  w->enc_s += now_s() - t0;
  if (e)
    return lbs_fail(e, "step %lld metric '%s' chunk %lld: %s", (long long)step, w->metrics[m].name,
                    (long long)c, lbs_errmsg());
  e = lbs_codec_decode(w->ctx, codec, w->blob.data, w->blob.len, (size_t)n, 0, (size_t)n, w->check);
  if (e)
    return lbs_fail(LBS_CORRUPT, "step %lld metric '%s' chunk %lld: re-decode failed: %s",
                    (long long)step, w->metrics[m].name, (long long)c, lbs_errmsg());
  double vmin = INFINITY, vmax = -INFINITY, emax = 0, esq = 0, erel = 0;
  for (int64_t i = 0; i < n; i++) {
    double x = v[i], d = w->check[i];
    if (isfinite(x)) {
      if (x < vmin) vmin = x;
      if (x > vmax) vmax = x;
      double err = fabs(d - x);
      if (!(err <= lbs_bound_tolerance(b, x, 0))) /* NaN-safe: the codec contract is broken */
        return lbs_fail(
            LBS_CORRUPT,
            "step %lld metric '%s' element %lld: stored %.17g for %.17g, outside the bound",
            (long long)step, w->metrics[m].name, (long long)(first + i), d, x);
      if (err > emax) emax = err;
      if (x != 0 && err / fabs(x) > erel) erel = err / fabs(x);
      esq += err * err;
    } else if (memcmp(&x, &d, sizeof x)) {
      return lbs_fail(LBS_CORRUPT, "step %lld element %lld: non-finite value not kept",
                      (long long)step, (long long)(first + i));
    }
  }
  double serr = lbs_sum_error(v, w->check, (size_t)n);
  if (!(serr <= LBS_SUM_TOL))
    return lbs_fail(LBS_CORRUPT, "step %lld metric '%s' chunk %lld: sum off by %g of its magnitude",
                    (long long)step, w->metrics[m].name, (long long)c, serr);
  int some = vmin <= vmax; /* a finite value: vmin and vmax are NULL without one */
  lbs_db_val row[] = {LBS_DB_INT((step * w->nm + m) * w->nchunks + c),
                      LBS_DB_INT(step),
                      LBS_DB_INT(m),
                      LBS_DB_INT(c),
                      LBS_DB_INT(first),
                      LBS_DB_INT(n),
                      LBS_DB_INT(codec),
                      LBS_DB_INT(lbs_crc32(w->blob.data, w->blob.len)),
                      some ? LBS_DB_REAL(vmin) : LBS_DB_NULL,
                      some ? LBS_DB_REAL(vmax) : LBS_DB_NULL,
                      LBS_DB_REAL(emax),
                      LBS_DB_REAL(esq),
                      LBS_DB_REAL(erel),
                      LBS_DB_REAL(serr),
                      LBS_DB_BLOB(w->blob.data, w->blob.len)};
  return lbs_db_row(w->d, w->ins_chunk, "chunk", row, LBS_DB_COUNT(row));
}

static int event_name_ok(const char *n) {
  size_t len = strlen(n);
  return len > 0 && len < 32 &&
         strspn(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == len;
}

lbs_err lbs_trace_writer_set_events(lbs_trace_writer *w, int nevents, const char *const *names,
                                    int ranks) {
  if (w->nev || w->next_step)
    return lbs_fail(LBS_INVAL, "events: declared once, before the first step");
  if (nevents < 1 || nevents > LBS_TRACE_MAX_EVENTS || ranks < 1)
    return lbs_fail(LBS_INVAL, "events: %d events of %d ranks (1..%d events, 1 rank or more)",
                    nevents, ranks, LBS_TRACE_MAX_EVENTS);
  char list[LBS_TRACE_MAX_EVENTS * 33] = "";
  for (int k = 0; k < nevents; k++) {
    if (!event_name_ok(names[k]))
      return lbs_fail(LBS_INVAL, "event '%s': names are 1-31 of [A-Za-z0-9_.-]", names[k]);
    for (int j = 0; j < k; j++)
      if (!strcmp(names[j], names[k])) return lbs_fail(LBS_INVAL, "event '%s' twice", names[k]);
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? "," : "", names[k]);
  }
  if (!(w->ev = calloc((size_t)nevents * (size_t)ranks, sizeof *w->ev)))
    return lbs_fail(LBS_NOMEM, "events of %d ranks", ranks);
  lbs_err e = put_meta(w, "events", list);
  if (!e) e = put_meta_i(w, "events.ranks", ranks);
  if (e) return free(w->ev), w->ev = NULL, e;
  w->nev = nevents, w->ranks = ranks;
  return LBS_OK;
}

lbs_err lbs_trace_step_events(lbs_trace_writer *w, const double *ev) {
  if (!w->nev) return lbs_fail(LBS_INVAL, "step events: no events declared");
  memcpy(w->ev, ev, (size_t)w->nev * (size_t)w->ranks * sizeof *ev);
  w->ev_pending = 1;
  return LBS_OK;
}

/* Can edge weights cw be stored for step `step` (lbs_trace_write_edge_weights' checks)? */
static lbs_err edge_weights_ok(const lbs_trace_writer *w, int64_t step, const double *cw) {
  if (!w->edge_steps)
    return lbs_fail(LBS_INVAL,
                    "edge weights at step %lld: the trace was not created with meta edge_weight "
                    "= " LBS_EDGE_STEPS,
                    (long long)step);
  if (w->arcs < 0)
    return lbs_fail(LBS_INVAL, "edge weights at step %lld: the trace has no mesh graph",
                    (long long)step);
  if (step < 0) return lbs_fail(LBS_INVAL, "edge weights at step %lld", (long long)step);
  for (int64_t k = 0; k < w->arcs; k++)
    if (!isfinite(cw[k]) || cw[k] < 0)
      return lbs_fail(LBS_INVAL,
                      "edge weights at step %lld: arc %lld weighs %g (finite and >= 0 only)",
                      (long long)step, (long long)k, cw[k]);
  return LBS_OK;
}

/* The array edgew@STEP, replacing one stored for the same step; in the caller's transaction. */
static lbs_err put_edge_weights(lbs_trace_writer *w, int64_t step, const double *cw) {
  char name[48];
  snprintf(name, sizeof name, "edgew@%lld", (long long)step);
  lbs_db_val key[] = {LBS_DB_TEXT(name)};
  lbs_err e = lbs_db_insert(w->d, "DELETE FROM arrays WHERE name=?1", "edge weights", key,
                            LBS_DB_COUNT(key));
  return e ? e : put_array(w, name, "f64", cw, w->arcs);
}

lbs_err lbs_trace_write_step(lbs_trace_writer *w, int64_t app_step, const double *const *values) {
  int64_t s = w->next_step;
  for (int m = 0; m < w->nm; m++)
    if (!values[m])
      return lbs_fail(LBS_INVAL, "step %lld: no values for metric '%s'", (long long)s,
                      w->metrics[m].name);
  lbs_err e = lbs_db_begin(w->d, "step");
  if (e) return e;
  lbs_db_val row[] = {LBS_DB_INT(s), LBS_DB_INT(app_step)};
  e = lbs_db_row(w->d, w->ins_step, "step", row, LBS_DB_COUNT(row));
  for (int m = 0; m < w->nm && !e; m++) {
    const double *v = values[m];
    /* a range bound is a fraction of the step's range: absolute for this step */
    lbs_bound b = lbs_bound_resolve(
        w->metrics[m].encode.eps > 0 ? w->metrics[m].encode : w->metrics[m].bound, v, (size_t)w->E);
    for (int64_t c = 0; c < w->nchunks && !e; c++) e = write_chunk(w, s, m, c, v + c * w->C, b);
  }
  if (!e && w->ev_pending) { /* the step's events, in its transaction */
    char name[48];
    snprintf(name, sizeof name, "events@%lld", (long long)s);
    e = put_array(w, name, "f64", w->ev, (int64_t)w->nev * w->ranks);
  }
  if (!e && w->ew_pending) e = put_edge_weights(w, s, w->ew); /* and its edge weights */
  if (!e) e = lbs_db_commit(w->d, "step");
  if (e) {
    lbs_db_rollback(w->d);
    return e;
  }
  w->next_step++;
  w->ev_pending = w->ew_pending = 0;
  return LBS_OK;
}

lbs_err lbs_trace_write_pinned(lbs_trace_writer *w, const int64_t *pinned) {
  int64_t n = 0;
  for (int64_t i = 0; i < w->E; i++) {
    if (pinned[i] != 0 && pinned[i] != 1)
      return lbs_fail(LBS_INVAL, "pinned elements: element %lld has %lld (0 or 1)", (long long)i,
                      (long long)pinned[i]);
    n += pinned[i];
  }
  if (!n) return LBS_OK; /* a trace without the array has none pinned */
  lbs_err e = lbs_db_begin(w->d, "pinned");
  if (e) return e;
  lbs_db_val key[] = {LBS_DB_TEXT(LBS_TRACE_PINNED)};
  e = lbs_db_insert(w->d, "DELETE FROM arrays WHERE name=?1", "pinned", key, LBS_DB_COUNT(key));
  if (!e) e = put_array(w, LBS_TRACE_PINNED, "i64", pinned, w->E);
  if (!e) e = lbs_db_commit(w->d, "pinned");
  if (e) lbs_db_rollback(w->d);
  return e;
}

lbs_err lbs_trace_write_owners(lbs_trace_writer *w, int64_t app_step, const int64_t *owner) {
  if (app_step < 0) return lbs_fail(LBS_INVAL, "owners from step %lld", (long long)app_step);
  for (int64_t i = 0; i < w->E; i++)
    if (owner[i] < 0 || owner[i] > INT32_MAX)
      return lbs_fail(LBS_INVAL, "owners from step %lld: element %lld has owner %lld",
                      (long long)app_step, (long long)i, (long long)owner[i]);
  char name[48];
  snprintf(name, sizeof name, "owners@%lld", (long long)app_step);
  lbs_err e = lbs_db_begin(w->d, "owners");
  if (e) return e;
  /* a second assignment for the same step replaces the first */
  lbs_db_val key[] = {LBS_DB_TEXT(name)};
  e = lbs_db_insert(w->d, "DELETE FROM arrays WHERE name=?1", "owners", key, LBS_DB_COUNT(key));
  if (!e) e = put_array(w, name, "i64", owner, w->E);
  if (!e) e = lbs_db_commit(w->d, "owners");
  if (e) lbs_db_rollback(w->d);
  return e;
}

lbs_err lbs_trace_write_edge_weights(lbs_trace_writer *w, int64_t step, const double *cw) {
  lbs_err e = edge_weights_ok(w, step, cw);
  if (!e) e = lbs_db_begin(w->d, "edge weights");
  if (e) return e;
  e = put_edge_weights(w, step, cw);
  if (!e) e = lbs_db_commit(w->d, "edge weights");
  if (e) lbs_db_rollback(w->d);
  return e;
}

lbs_err lbs_trace_step_edge_weights(lbs_trace_writer *w, const double *cw) {
  lbs_err e = edge_weights_ok(w, w->next_step, cw);
  if (e) return e;
  if (!w->ew && !(w->ew = malloc((size_t)(w->arcs ? w->arcs : 1) * sizeof *w->ew)))
    return lbs_fail(LBS_NOMEM, "edge weights of %lld arcs", (long long)w->arcs);
  if (w->arcs) memcpy(w->ew, cw, (size_t)w->arcs * sizeof *cw);
  w->ew_pending = 1;
  return LBS_OK;
}

/* One integer from a query on the writer's file. */
static lbs_err writer_int(lbs_trace_writer *w, const char *sql, int64_t *out) {
  sqlite3_stmt *st;
  lbs_err e = lbs_db_prepare(w->d, sql, "compact", &st);
  if (e) return e;
  int rc = sqlite3_step(st);
  *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_finalize(st);
  return rc == SQLITE_ROW ? LBS_OK : lbs_db_fail(w->d, "compact");
}

/* Rewrites a small trace in smaller pages when its pages hold much less than its blobs. A 4 KiB
 * leaf page holds one chunk row of 2-4 KiB (a compressed 8192-element chunk of a real profile is
 * about 2 KiB), the rest of it stays empty, and the schema, meta, metrics, steps and index pages
 * take 32 KiB of their own: a 16,384-element x 30-step profile took 1.66-1.80x its blob bytes.
 * Small pages pack such rows (a row larger than a page spills into full overflow pages). 512-byte
 * pages pack best, but once the file outgrows SQLite's page cache (2000 KiB by default) each page
 * it misses is a read of its own, so files over LBS_TRACE_COMPACT_SMALL get 1024-byte ones. Only
 * files up to LBS_TRACE_COMPACT_MAX are rewritten: VACUUM copies the whole file, and a large
 * trace's rows are either large (their overflow pages fill) or many to a page.
 * The trace on disk stays whole throughout: the small copy goes to a new file beside it (VACUUM
 * INTO PATH.compact-XXXXXX, with the trace's mode, synced), which lbs_trace_writer_close renames
 * over the trace once the writer has closed; a failure leaves the trace as it was and removes the
 * copy. *tmp: the copy's path (NULL when there is none). */
static lbs_err compact(lbs_trace_writer *w, char **tmp) {
  int64_t page = 0, pages = 0, blobs; /* 0 after a failed read: bytes is computed first */
  lbs_err e = writer_int(w, "PRAGMA page_size", &page);
  if (!e) e = writer_int(w, "PRAGMA page_count", &pages);
  int64_t bytes = pages * page, want = bytes <= LBS_TRACE_COMPACT_SMALL ? 512 : 1024;
  if (e || page <= want || bytes > LBS_TRACE_COMPACT_MAX) return e;
  e = writer_int(w,
                 "SELECT (SELECT total(length(data)) FROM chunks) +"
                 " (SELECT total(length(data)) FROM arrays)",
                 &blobs);
  if (e || (double)bytes <= LBS_TRACE_COMPACT_SLACK * (double)blobs) return e;
  const char *path = lbs_db_path(w->d);
  size_t n = strlen(path) + 16;
  char *t = malloc(n);
  if (!t) return lbs_fail(LBS_NOMEM, "compact");
  snprintf(t, n, "%s.compact-XXXXXX", path);
  int fd = mkstemp(t); /* VACUUM INTO writes into an empty file */
  struct stat st;
  if (fd < 0) {
    e = lbs_fail(LBS_IO, "%s: %s", t, strerror(errno));
    return free(t), e;
  }
  if (!stat(path, &st)) (void)fchmod(fd, st.st_mode & 07777);
  close(fd);
  char *sql = sqlite3_mprintf("PRAGMA page_size=%d; VACUUM INTO %Q;", (int)want, t);
  e = sql ? lbs_db_exec(w->d, sql, "compact") : lbs_fail(LBS_NOMEM, "compact");
  sqlite3_free(sql);
  if (!e && ((fd = open(t, O_RDONLY)) < 0 || fsync(fd)))
    e = lbs_fail(LBS_IO, "%s: %s", t, strerror(errno));
  if (fd >= 0) close(fd);
  if (e) return unlink(t), free(t), e;
  *tmp = t;
  return LBS_OK;
}

lbs_err lbs_trace_writer_close(lbs_trace_writer **wp) {
  if (!wp || !*wp) return LBS_OK;
  lbs_trace_writer *w = *wp;
  *wp = NULL;
  sqlite3_finalize(w->ins_step);
  sqlite3_finalize(w->ins_chunk);
  w->ins_step = w->ins_chunk = NULL;
  /* out of WAL mode first: the trace is one whole file, which compact() copies */
  lbs_err e = lbs_db_exec(w->d, "PRAGMA journal_mode=DELETE", "close");
  /* the trace is complete whether or not it is compacted: a failed copy (a full disk) leaves it
   * as it was, in its larger pages. SIGINT, SIGTERM and SIGHUP wait until the copy is in place
   * or gone (a command's handler would remove the trace, a collector's default action leave the
   * copy behind); a SIGKILL may leave the copy beside the whole trace. */
  sigset_t hold, saved;
  sigemptyset(&hold);
  sigaddset(&hold, SIGINT), sigaddset(&hold, SIGTERM), sigaddset(&hold, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &hold, &saved);
  char *tmp = NULL, *path = e ? NULL : strdup(lbs_db_path(w->d));
  if (path && compact(w, &tmp)) lbs_log(LBS_LOG_WARN, "trace: not compacted: %s", lbs_errmsg());
  writer_free(w);
  if (tmp && rename(tmp, path)) {
    lbs_log(LBS_LOG_WARN, "trace: not compacted: %s: %s", tmp, strerror(errno));
    unlink(tmp);
  }
  free(tmp), free(path);
  pthread_sigmask(SIG_SETMASK, &saved, NULL);
  return e;
}

/* ================================================================ reader */

struct lbs_trace {
  lbs_db *d;
  sqlite3 *db;      /* lbs_db_sqlite(d) */
  const char *path; /* lbs_db_path(d) */
  int version;      /* schema version of the file */
  int64_t E, S, C, nchunks;
  int nm;
  lbs_metric_info *metrics; /* names owned */
  int64_t *app;             /* S application step numbers */
  int nmeta;
  char **meta; /* 2*nmeta owned strings */
  lbs_mesh *mesh;
  sqlite3_stmt *get_chunk;
  lbs_codec_ctx *ctx;
  int64_t nowners, *owners_step; /* the recorded assignments' first steps, ascending */
  int64_t nedgew, *edgew_step;   /* the steps of stored edge weights (edgew@STEP), ascending */
  int nev, ev_ranks;             /* per-rank events of each step (meta events) */
  char ev_names[LBS_TRACE_MAX_EVENTS][32];
};

void lbs_trace_close(lbs_trace **tp) {
  if (!tp || !*tp) return;
  lbs_trace *t = *tp;
  sqlite3_finalize(t->get_chunk);
  lbs_db_close(&t->d);
  for (int i = 0; t->metrics && i < t->nm; i++) {
    free((char *)t->metrics[i].name);
    free((char *)t->metrics[i].unit);
  }
  free(t->metrics);
  free(t->app);
  for (int i = 0; i < 2 * t->nmeta; i++) free(t->meta[i]);
  free(t->meta);
  lbs_mesh_destroy(&t->mesh);
  lbs_codec_ctx_destroy(&t->ctx);
  free(t->owners_step);
  free(t->edgew_step);
  free(t);
  *tp = NULL;
}

int lbs_trace_meta_count(const lbs_trace *t) { return t->nmeta; }
const char *lbs_trace_meta_key(const lbs_trace *t, int i) {
  return i >= 0 && i < t->nmeta ? t->meta[2 * i] : NULL;
}

const char *lbs_trace_path(const lbs_trace *t) { return t->path; }

const char *lbs_trace_meta(const lbs_trace *t, const char *key) {
  for (int i = 0; i < t->nmeta; i++)
    if (!strcmp(t->meta[2 * i], key)) return t->meta[2 * i + 1];
  return NULL;
}

static lbs_err meta_int(lbs_trace *t, const char *key, int64_t lo, int64_t hi, int64_t *out) {
  const char *v = lbs_trace_meta(t, key);
  char *end;
  if (!v) return lbs_fail(LBS_CORRUPT, "%s: metadata '%s' is missing", t->path, key);
  long long x = strtoll(v, &end, 10);
  if (*end || end == v || x < lo || x > hi)
    return lbs_fail(LBS_CORRUPT, "%s: metadata '%s' = '%s' is invalid", t->path, key, v);
  *out = x;
  return LBS_OK;
}

static lbs_err pragma_int(lbs_trace *t, const char *sql, int64_t *out) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) != SQLITE_OK)
    return lbs_db_err(t->db, t->path, sql);
  int rc = sqlite3_step(st);
  *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_finalize(st);
  return rc == SQLITE_ROW ? LBS_OK : lbs_db_err(t->db, t->path, sql);
}

/* Loads a stored array of n 8-byte items into a new buffer after checking its CRC. */
static lbs_err get_array(lbs_trace *t, const char *name, int64_t n, void **out) {
  *out = NULL;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(t->db, "SELECT count, codec, crc32, data FROM arrays WHERE name=?1", -1,
                         &st, NULL))
    return lbs_db_err(t->db, t->path, "arrays");
  sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
  lbs_err e = LBS_OK;
  int rc = sqlite3_step(st);
  if (rc != SQLITE_ROW) {
    e = rc == SQLITE_DONE ? lbs_fail(LBS_CORRUPT, "%s: mesh array '%s' is missing", t->path, name)
                          : lbs_db_err(t->db, t->path, "arrays");
  } else {
    const uint8_t *b = sqlite3_column_blob(st, 3);
    size_t len = (size_t)sqlite3_column_bytes(st, 3);
    if (sqlite3_column_int64(st, 0) != n)
      e = lbs_fail(LBS_CORRUPT, "%s: mesh array '%s' has %lld items, expected %lld", t->path, name,
                   (long long)sqlite3_column_int64(st, 0), (long long)n);
    else if ((uint32_t)sqlite3_column_int64(st, 2) != lbs_crc32(b, len))
      e = lbs_fail(LBS_CORRUPT, "%s: mesh array '%s': checksum mismatch", t->path, name);
    else if (sqlite3_column_int(st, 1) != LBS_CODEC_LOSSLESS ||
             lbs__lossless_check(b, len, (size_t)n))
      e = lbs_fail(LBS_CORRUPT, "%s: mesh array '%s' is malformed", t->path, name);
    else if (!(*out = malloc((size_t)(n ? n : 1) * 8)))
      e = lbs_fail(LBS_NOMEM, "mesh array '%s'", name);
    else if ((e = lbs_codec_decode(t->ctx, (lbs_codec)sqlite3_column_int(st, 1), b, len, (size_t)n,
                                   0, (size_t)n, *out)))
      e = lbs_fail(LBS_CORRUPT, "%s: mesh array '%s': %s", t->path, name, lbs_errmsg());
  }
  sqlite3_finalize(st);
  if (e) {
    free(*out);
    *out = NULL;
  }
  return e;
}

static lbs_err load_mesh(lbs_trace *t) {
  const char *kind = lbs_trace_meta(t, "mesh.kind");
  if (!kind) return LBS_OK;
  const char *be = lbs_trace_meta(t, "mesh.bytes_per_elem"),
             *bd = lbs_trace_meta(t, "mesh.bytes_per_edge");
  lbs_err e;
  if (!strcmp(kind, "structured")) {
    const char *dims = lbs_trace_meta(t, "mesh.dims"), *order = lbs_trace_meta(t, "mesh.order");
    long long nx, ny, nz;
    char tail;
    if (!dims || sscanf(dims, "%lldx%lldx%lld%c", &nx, &ny, &nz, &tail) != 3)
      return lbs_fail(LBS_CORRUPT, "%s: metadata 'mesh.dims' is invalid", t->path);
    int hil = order && !strcmp(order, "hilbert");
    if ((e = lbs_mesh_create_structured(nx, ny, nz, hil ? LBS_ORDER_HILBERT : LBS_ORDER_NATURAL,
                                        &t->mesh)))
      return lbs_fail(LBS_CORRUPT, "%s: %s", t->path, lbs_errmsg());
    if (t->mesh->n != t->E)
      return lbs_fail(LBS_CORRUPT, "%s: mesh has %lld cells, trace %lld elements", t->path,
                      (long long)t->mesh->n, (long long)t->E);
    if (hil) {
      void *cell;
      if ((e = get_array(t, "cell_index", t->E, &cell))) return e;
      int64_t *c = cell;
      char *seen = calloc((size_t)t->E, 1);
      for (int64_t i = 0; seen && i < t->E && !e; i++) {
        if (c[i] < 0 || c[i] >= t->E || seen[c[i]])
          e = lbs_fail(LBS_CORRUPT, "%s: mesh array 'cell_index' is not a permutation", t->path);
        else
          seen[c[i]] = 1;
      }
      if (!seen) e = lbs_fail(LBS_NOMEM, "permutation check");
      free(seen);
      if (e) {
        free(cell);
        return e;
      }
      lbs__mesh_set_cells(t->mesh, cell);
    }
  } else if (!strcmp(kind, "unstructured")) {
    int64_t dim, dir;
    if ((e = meta_int(t, "mesh.dim", 0, 3, &dim)) || (e = meta_int(t, "mesh.directed", 0, 1, &dir)))
      return e;
    void *coords = NULL, *xadj = NULL, *adj = NULL, *w = NULL;
    if ((dim && (e = get_array(t, "coords", t->E * dim, &coords))) ||
        (e = get_array(t, "xadj", t->E + 1, &xadj))) {
      free(coords);
      return e;
    }
    int64_t ne = ((int64_t *)xadj)[t->E];
    if (ne < 0 || ne > (INT64_C(1) << 40)) e = lbs_fail(LBS_CORRUPT, "%s: bad edge count", t->path);
    if (!e) e = get_array(t, "adjncy", ne, &adj);
    if (!e) e = get_array(t, "adjwgt", ne, &w);
    if (e) {
      free(coords);
      free(xadj);
      free(adj);
      free(w);
      return e;
    }
    if ((e = lbs__mesh_adopt(t->E, (int)dim, coords, xadj, adj, w, (int)dir, &t->mesh)))
      return lbs_fail(LBS_CORRUPT, "%s: stored mesh: %s", t->path, lbs_errmsg());
  } else {
    return lbs_fail(LBS_CORRUPT, "%s: unknown mesh kind '%s'", t->path, kind);
  }
  if (be && bd) lbs_mesh_set_bytes(t->mesh, atof(be), atof(bd));
  return LBS_OK;
}

/* The meta table, and from it the format, elements and chunk size. */
static lbs_err load_meta(lbs_trace *t) {
  lbs_err e;
  sqlite3_stmt *st;
  int rc;
  if (sqlite3_prepare_v2(t->db, "SELECT key, value FROM meta ORDER BY key", -1, &st, NULL))
    return lbs_db_err(t->db, t->path, "meta");
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    char **m = realloc(t->meta, (size_t)(t->nmeta + 1) * 2 * sizeof *m);
    if (!m) {
      sqlite3_finalize(st);
      return lbs_fail(LBS_NOMEM, "metadata");
    }
    t->meta = m;
    const char *k = (const char *)sqlite3_column_text(st, 0),
               *v = (const char *)sqlite3_column_text(st, 1);
    m[2 * t->nmeta] = strdup(k ? k : "");
    m[2 * t->nmeta + 1] = strdup(v ? v : "");
    t->nmeta++;
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return lbs_db_err(t->db, t->path, "meta");
  const char *fmt = lbs_trace_meta(t, "format");
  if (!fmt || strcmp(fmt, "lbsim-trace"))
    return lbs_fail(LBS_FORMAT, "%s: not an lbsim trace", t->path);
  if ((e = meta_int(t, "elements", 1, INT64_C(1) << 40, &t->E))) return e;
  if ((e = meta_int(t, "chunk_elems", 1, LBS_TRACE_MAX_CHUNK, &t->C))) return e;
  t->nchunks = (t->E + t->C - 1) / t->C;
  return LBS_OK;
}

/* The metrics in id order, each with its codec and bound. */
static lbs_err load_metrics(lbs_trace *t) {
  sqlite3_stmt *st;
  int rc;
  /* schema 1 kept the bound as (error_bound, relative): relative meant the step's range */
  const char *msql =
      t->version == 1
          ? "SELECT id, name, unit, codec, error_bound, relative FROM metrics ORDER BY id"
          : "SELECT id, name, unit, codec, bound, 0 FROM metrics ORDER BY id";
  if (sqlite3_prepare_v2(t->db, msql, -1, &st, NULL)) return lbs_db_err(t->db, t->path, "metrics");
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    lbs_metric_info *m = realloc(t->metrics, (size_t)(t->nm + 1) * sizeof *m);
    if (!m) {
      sqlite3_finalize(st);
      return lbs_fail(LBS_NOMEM, "metrics");
    }
    t->metrics = m;
    m += t->nm;
    const char *name = (const char *)sqlite3_column_text(st, 1),
               *unit = (const char *)sqlite3_column_text(st, 2);
    const char *codec = (const char *)sqlite3_column_text(st, 3);
    m->name = strdup(name ? name : "");
    m->unit = strdup(unit ? unit : "");
    int bad = 0;
    if (t->version == 1) {
      double eps = sqlite3_column_double(st, 4);
      m->bound =
          eps == 0 ? (lbs_bound){LBS_BOUND_LOSSLESS, 0}
                   : (lbs_bound){sqlite3_column_int(st, 5) ? LBS_BOUND_RANGE : LBS_BOUND_ABS, eps};
    } else {
      const char *b = (const char *)sqlite3_column_text(st, 4);
      bad = !b || lbs_bound_parse(b, &m->bound);
    }
    t->nm++;
    if (bad || sqlite3_column_int(st, 0) != t->nm - 1 || !codec ||
        lbs_codec_from_name(codec, &m->codec)) {
      sqlite3_finalize(st);
      return lbs_fail(LBS_CORRUPT, "%s: metrics table is invalid at metric %d", t->path, t->nm - 1);
    }
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return lbs_db_err(t->db, t->path, "metrics");
  if (t->nm < 1) return lbs_fail(LBS_CORRUPT, "%s: trace has no metrics", t->path);
  return LBS_OK;
}

/* The steps' application step numbers, every index 0..S-1 present. */
static lbs_err load_steps(lbs_trace *t) {
  sqlite3_stmt *st;
  int rc;
  int64_t nsteps;
  lbs_err e;
  if ((e = pragma_int(t, "SELECT count(*) FROM steps", &nsteps))) return e;
  t->app = malloc((size_t)(nsteps ? nsteps : 1) * sizeof *t->app);
  if (!t->app) return lbs_fail(LBS_NOMEM, "step table");
  if (sqlite3_prepare_v2(t->db, "SELECT idx, app_step FROM steps ORDER BY idx", -1, &st, NULL))
    return lbs_db_err(t->db, t->path, "steps");
  while ((rc = sqlite3_step(st)) == SQLITE_ROW && t->S < nsteps) {
    if (sqlite3_column_int64(st, 0) != t->S) {
      sqlite3_finalize(st);
      return lbs_fail(LBS_CORRUPT, "%s: step %lld is missing from the step table", t->path,
                      (long long)t->S);
    }
    t->app[t->S++] = sqlite3_column_int64(st, 1);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE || t->S != nsteps) return lbs_db_err(t->db, t->path, "steps");
  return LBS_OK;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The steps of the arrays named PREFIX@STEP (owners, edgew), ascending, into *steps (*n). */
static lbs_err load_steps_of(lbs_trace *t, const char *prefix, const char *what, int64_t **steps,
                             int64_t *n) {
  char like[32];
  snprintf(like, sizeof like, "%s@%%", prefix);
  size_t pl = strlen(prefix) + 1;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(t->db, "SELECT name FROM arrays WHERE name LIKE ?1", -1, &st, NULL))
    return lbs_db_err(t->db, t->path, what);
  sqlite3_bind_text(st, 1, like, -1, SQLITE_STATIC);
  lbs_err e = LBS_OK;
  int rc;
  while (!e && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 0);
    int64_t step;
    if (!name || lbs_parse_i64(name + pl, 0, INT64_MAX, &step)) {
      e = lbs_fail(LBS_CORRUPT, "%s: %s '%s': not a step", t->path, what, name ? name : "");
      break;
    }
    int64_t *s = realloc(*steps, (size_t)(*n + 1) * sizeof *s);
    if (!s)
      e = lbs_fail(LBS_NOMEM, "%s", what);
    else
      *steps = s, s[(*n)++] = step;
  }
  if (!e && rc != SQLITE_DONE) e = lbs_db_err(t->db, t->path, what);
  sqlite3_finalize(st);
  if (!e && *n) qsort(*steps, (size_t)*n, sizeof **steps, cmp_i64);
  return e;
}

/* The recorded assignments' steps (arrays named owners@STEP), ascending. */
static lbs_err load_owners(lbs_trace *t) {
  return load_steps_of(t, "owners", "recorded owners", &t->owners_step, &t->nowners);
}

/* The per-rank events the meta keys events and events.ranks declare. */
static lbs_err load_events(lbs_trace *t) {
  const char *list = lbs_trace_meta(t, "events"), *r = lbs_trace_meta(t, "events.ranks");
  if (!list) return LBS_OK;
  int64_t ranks;
  if (!r || lbs_parse_i64(r, 1, INT32_MAX, &ranks))
    return lbs_fail(LBS_CORRUPT, "%s: events.ranks '%s' is not a count", t->path, r ? r : "");
  for (const char *p = list; *p;) {
    size_t n = strcspn(p, ",");
    if (!n || n >= sizeof t->ev_names[0] || t->nev == LBS_TRACE_MAX_EVENTS)
      return lbs_fail(LBS_CORRUPT, "%s: events '%s' is not a list of names", t->path, list);
    memcpy(t->ev_names[t->nev], p, n);
    t->ev_names[t->nev++][n] = '\0';
    p += n + (p[n] == ',');
  }
  t->ev_ranks = (int)ranks;
  return LBS_OK;
}

int lbs_trace_nevents(const lbs_trace *t) { return t->nev; }
int lbs_trace_event_ranks(const lbs_trace *t) { return t->ev_ranks; }
const char *lbs_trace_event_name(const lbs_trace *t, int k) {
  return k >= 0 && k < t->nev ? t->ev_names[k] : NULL;
}
int lbs_trace_event_find(const lbs_trace *t, const char *name) {
  for (int k = 0; k < t->nev; k++)
    if (!strcmp(t->ev_names[k], name)) return k;
  return -1;
}

lbs_err lbs_trace_read_events(lbs_trace *t, int64_t step, double *out, int *have) {
  *have = 0;
  if (step < 0 || step >= t->S)
    return lbs_fail(LBS_RANGE, "step %lld out of range (trace has %lld steps)", (long long)step,
                    (long long)t->S);
  int64_t n = (int64_t)t->nev * t->ev_ranks;
  memset(out, 0, (size_t)n * sizeof *out);
  if (!n) return LBS_OK;
  char name[48];
  snprintf(name, sizeof name, "events@%lld", (long long)step);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(t->db, "SELECT 1 FROM arrays WHERE name=?1", -1, &st, NULL))
    return lbs_db_err(t->db, t->path, "events");
  sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc == SQLITE_DONE) return LBS_OK; /* none recorded at this step */
  if (rc != SQLITE_ROW) return lbs_db_err(t->db, t->path, "events");
  void *v;
  lbs_err e = get_array(t, name, n, &v);
  if (e) return e;
  memcpy(out, v, (size_t)n * sizeof *out);
  free(v);
  *have = 1;
  return LBS_OK;
}

lbs_err lbs_trace_pinned(lbs_trace *t, unsigned char *pinned, int64_t *npinned) {
  *npinned = 0;
  if (pinned) memset(pinned, 0, (size_t)t->E);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(t->db, "SELECT 1 FROM arrays WHERE name=?1", -1, &st, NULL))
    return lbs_db_err(t->db, t->path, "pinned");
  sqlite3_bind_text(st, 1, LBS_TRACE_PINNED, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc == SQLITE_DONE) return LBS_OK; /* none pinned */
  if (rc != SQLITE_ROW) return lbs_db_err(t->db, t->path, "pinned");
  void *v;
  lbs_err e = get_array(t, LBS_TRACE_PINNED, t->E, &v); /* its count is E, its CRC right */
  if (e) return e;
  const int64_t *p = v;
  for (int64_t k = 0; k < t->E && !e; k++) {
    if (p[k] != 0 && p[k] != 1)
      e = lbs_fail(LBS_CORRUPT,
                   "%s: mesh array '" LBS_TRACE_PINNED "': element %lld has %lld (0 or 1)", t->path,
                   (long long)k, (long long)p[k]);
    else if (pinned)
      pinned[k] = (unsigned char)p[k];
    *npinned += p[k] == 1;
  }
  free(v);
  if (e) *npinned = 0;
  return e;
}

int64_t lbs_trace_owners_count(const lbs_trace *t) { return t->nowners; }

int64_t lbs_trace_owners_step(const lbs_trace *t, int64_t i) {
  return i >= 0 && i < t->nowners ? t->owners_step[i] : -1;
}

lbs_err lbs_trace_owners_read(lbs_trace *t, int64_t i, int64_t *owner) {
  if (i < 0 || i >= t->nowners)
    return lbs_fail(LBS_RANGE, "%s: recorded assignment %lld of %lld", t->path, (long long)i,
                    (long long)t->nowners);
  char name[48];
  snprintf(name, sizeof name, "owners@%lld", (long long)t->owners_step[i]);
  void *v;
  lbs_err e = get_array(t, name, t->E, &v);
  if (e) return e;
  memcpy(owner, v, (size_t)t->E * sizeof *owner);
  free(v);
  for (int64_t k = 0; k < t->E; k++)
    if (owner[k] < 0 || owner[k] > INT32_MAX)
      return lbs_fail(LBS_CORRUPT,
                      "%s: recorded owners from step %lld: element %lld has owner %lld", t->path,
                      (long long)t->owners_step[i], (long long)k, (long long)owner[k]);
  return LBS_OK;
}

lbs_err lbs_trace_edge_weights_slice(lbs_trace *t, int64_t s, int64_t arc0, int64_t n, double *cw,
                                     int64_t *from) {
  *from = -1;
  if (!lbs_trace_edge_weights_stored(t))
    return lbs_fail(LBS_INVAL, "%s: the trace stores no edge weights per step", t->path);
  const int64_t *xadj, *adj;
  const double *adjw;
  if (!t->mesh || lbs_mesh_graph(t->mesh, &xadj, &adj, &adjw))
    return lbs_fail(LBS_INVAL, "%s: the trace has no mesh graph", t->path);
  int64_t ne = xadj[t->E];
  if (s < 0 || s >= t->S || arc0 < 0 || n < 0 || arc0 > ne - n)
    return lbs_fail(LBS_RANGE, "%s: arcs [%lld, %lld) at step %lld (%lld arcs, %lld steps)",
                    t->path, (long long)arc0, (long long)(arc0 + n), (long long)s, (long long)ne,
                    (long long)t->S);
  for (int64_t i = 0; i < t->nedgew && t->edgew_step[i] <= s; i++) *from = t->edgew_step[i];
  if (*from < 0) { /* before the first array: the mesh's own */
    if (n) memcpy(cw, adjw + arc0, (size_t)n * sizeof *cw);
    return LBS_OK;
  }
  char name[48];
  snprintf(name, sizeof name, "edgew@%lld", (long long)*from);
  void *v;
  lbs_err e = get_array(t, name, ne, &v);
  if (e) return e;
  const double *w = v;
  for (int64_t k = 0; k < n; k++)
    if (!isfinite(w[arc0 + k]) || w[arc0 + k] < 0)
      e = lbs_fail(LBS_CORRUPT, "%s: edge weights of step %lld: arc %lld weighs %g", t->path,
                   (long long)*from, (long long)(arc0 + k), w[arc0 + k]);
  if (!e && n) memcpy(cw, w + arc0, (size_t)n * sizeof *cw);
  free(v);
  return e;
}

/* Reads what a trace holds beyond its chunks (lbs_db_open checked that it is one, and its
 * version). */
static lbs_err load(lbs_trace *t) {
  lbs_err e;
  if ((e = load_meta(t)) || (e = load_metrics(t)) || (e = load_steps(t)) || (e = load_owners(t)) ||
      (e = load_events(t)) ||
      (e = load_steps_of(t, "edgew", "edge weights", &t->edgew_step, &t->nedgew)))
    return e;
  if (sqlite3_prepare_v2(t->db,
                         "SELECT step, metric, chunk, first_elem, count, codec, crc32, data"
                         " FROM chunks WHERE id=?1",
                         -1, &t->get_chunk, NULL))
    return lbs_db_err(t->db, t->path, "chunks");
  return load_mesh(t);
}

lbs_err lbs_trace_open(const char *path, lbs_trace **out) {
  *out = NULL;
  lbs_trace *t = calloc(1, sizeof *t);
  if (!t || lbs_codec_ctx_create(&t->ctx)) {
    free(t);
    return lbs_fail(LBS_NOMEM, "trace");
  }
  /* a FIFO or device is refused, never opened; a killed writer's transaction is rolled back */
  lbs_err e = lbs_db_open(&TRACE, path, &(lbs_db_opts){.mode = LBS_DB_READ}, &t->d);
  if (!e) {
    t->db = lbs_db_sqlite(t->d);
    t->path = lbs_db_path(t->d);
    t->version = lbs_db_version(t->d);
    e = load(t);
  }
  if (e) {
    lbs_trace_close(&t);
    return e;
  }
  lbs_log(LBS_LOG_DEBUG, "trace: opened %s: %lld elements, %lld steps, %d metrics, schema %d", path,
          (long long)lbs_trace_elements(t), (long long)lbs_trace_steps(t), lbs_trace_nmetrics(t),
          lbs_trace_schema_version(t));
  *out = t;
  return LBS_OK;
}

int64_t lbs_trace_elements(const lbs_trace *t) { return t->E; }
int64_t lbs_trace_steps(const lbs_trace *t) { return t->S; }
int64_t lbs_trace_chunk_elems(const lbs_trace *t) { return t->C; }
int lbs_trace_nmetrics(const lbs_trace *t) { return t->nm; }
int lbs_trace_schema_version(const lbs_trace *t) { return t->version; }
lbs_mesh *lbs_trace_mesh(lbs_trace *t) { return t->mesh; }

lbs_err lbs_trace_metric(const lbs_trace *t, int metric, lbs_metric_info *out) {
  if (metric < 0 || metric >= t->nm)
    return lbs_fail(LBS_RANGE, "metric %d out of range (trace has %d)", metric, t->nm);
  *out = t->metrics[metric];
  return LBS_OK;
}

int lbs_trace_metric_find(const lbs_trace *t, const char *name) {
  for (int i = 0; i < t->nm; i++)
    if (!strcmp(t->metrics[i].name, name)) return i;
  return -1;
}

lbs_err lbs_trace_app_step(const lbs_trace *t, int64_t step, int64_t *app_step) {
  if (step < 0 || step >= t->S)
    return lbs_fail(LBS_RANGE, "step %lld out of range (trace has %lld steps)", (long long)step,
                    (long long)t->S);
  *app_step = t->app[step];
  return LBS_OK;
}

/* Fetches chunk c of (step, metric), checks it, decodes [first, first+count) of it. */
static lbs_err read_chunk(lbs_trace *t, int64_t step, int m, int64_t c, int64_t first,
                          int64_t count, double *out) {
  sqlite3_stmt *st = t->get_chunk;
  sqlite3_reset(st);
  sqlite3_bind_int64(st, 1, (step * t->nm + m) * t->nchunks + c);
  int rc = sqlite3_step(st);
  const char *mn = t->metrics[m].name;
  if (rc == SQLITE_DONE)
    return lbs_fail(LBS_CORRUPT, "%s: step %lld metric '%s' chunk %lld is missing", t->path,
                    (long long)step, mn, (long long)c);
  if (rc != SQLITE_ROW) return lbs_db_err(t->db, t->path, "reading a chunk");
  int64_t cfirst = c * t->C, cn = t->E - cfirst < t->C ? t->E - cfirst : t->C;
  if (sqlite3_column_int64(st, 0) != step || sqlite3_column_int(st, 1) != m ||
      sqlite3_column_int64(st, 2) != c || sqlite3_column_int64(st, 3) != cfirst ||
      sqlite3_column_int64(st, 4) != cn)
    return lbs_fail(LBS_CORRUPT, "%s: step %lld metric '%s' chunk %lld: wrong element range",
                    t->path, (long long)step, mn, (long long)c);
  const uint8_t *b = sqlite3_column_blob(st, 7);
  size_t len = (size_t)sqlite3_column_bytes(st, 7);
  if ((uint32_t)sqlite3_column_int64(st, 6) != lbs_crc32(b, len))
    return lbs_fail(LBS_CORRUPT, "%s: step %lld metric '%s' chunk %lld: checksum mismatch", t->path,
                    (long long)step, mn, (long long)c);
  lbs_err e = lbs_codec_decode(t->ctx, (lbs_codec)sqlite3_column_int(st, 5), b, len, (size_t)cn,
                               (size_t)first, (size_t)count, out);
  if (e)
    return lbs_fail(LBS_CORRUPT, "%s: step %lld metric '%s' chunk %lld: %s", t->path,
                    (long long)step, mn, (long long)c, lbs_errmsg());
  return LBS_OK;
}

lbs_err lbs_trace_read(lbs_trace *t, int64_t step, int metric, int64_t first, int64_t count,
                       double *out) {
  if (step < 0 || step >= t->S)
    return lbs_fail(LBS_RANGE, "%s: step %lld out of range (trace has %lld steps)", t->path,
                    (long long)step, (long long)t->S);
  if (metric < 0 || metric >= t->nm)
    return lbs_fail(LBS_RANGE, "%s: metric %d out of range (trace has %d)", t->path, metric, t->nm);
  if (first < 0 || count < 0 || first > t->E || count > t->E - first)
    return lbs_fail(LBS_RANGE, "%s: elements [%lld, %lld) outside the trace's %lld", t->path,
                    (long long)first, (long long)(first + count), (long long)t->E);
  int64_t end = first + count;
  while (first < end) {
    int64_t c = first / t->C, cf = c * t->C, ce = cf + t->C < end ? cf + t->C : end;
    lbs_err e = read_chunk(t, step, metric, c, first - cf, ce - first, out);
    if (e) return e;
    out += ce - first;
    first = ce;
  }
  return LBS_OK;
}

int64_t lbs_trace_file_bytes(const lbs_trace *t) {
  struct stat sb;
  return stat(t->path, &sb) == 0 ? (int64_t)sb.st_size : -1;
}

lbs_err lbs_trace_get_stats(lbs_trace *t, int metric, lbs_trace_stats *out) {
  memset(out, 0, sizeof *out);
  if (metric < -1 || metric >= t->nm) return lbs_fail(LBS_RANGE, "metric %d out of range", metric);
  sqlite3_stmt *st;
  const char *sql = t->version == 1
                        ? "SELECT count(*), total(length(data)), max(err_max), total(err_sq),"
                          " count(err_max), NULL, NULL, 0 FROM chunks WHERE ?1 < 0 OR metric = ?1"
                        : "SELECT count(*), total(length(data)), max(err_max), total(err_sq),"
                          " count(err_max), max(err_rel), max(sum_err), count(sum_err)"
                          " FROM chunks WHERE ?1 < 0 OR metric = ?1";
  if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL)) return lbs_db_err(t->db, t->path, "stats");
  sqlite3_bind_int(st, 1, metric);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    int nm = metric < 0 ? t->nm : 1;
    out->chunks = sqlite3_column_int64(st, 0);
    out->stored_bytes = (int64_t)sqlite3_column_double(st, 1);
    out->raw_bytes = t->E * t->S * nm * 8;
    out->has_error = out->chunks > 0 && sqlite3_column_int64(st, 4) == out->chunks;
    out->max_abs_error = sqlite3_column_double(st, 2);
    double n = (double)t->E * (double)t->S * nm;
    out->rms_error = n > 0 ? sqrt(sqlite3_column_double(st, 3) / n) : 0;
    out->max_rel_error =
        sqlite3_column_type(st, 5) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 5);
    out->max_sum_error = sqlite3_column_double(st, 6);
    out->has_sum_error = out->chunks > 0 && sqlite3_column_int64(st, 7) == out->chunks;
  }
  sqlite3_finalize(st);
  return rc == SQLITE_ROW ? LBS_OK : lbs_db_err(t->db, t->path, "stats");
}

lbs_err lbs_trace_codec_chunks(lbs_trace *t, int metric, int64_t *counts, int n) {
  for (int i = 0; i < n; i++) counts[i] = 0;
  if (metric < -1 || metric >= t->nm) return lbs_fail(LBS_RANGE, "metric %d out of range", metric);
  sqlite3_stmt *st;
  const char *sql = "SELECT codec, count(*) FROM chunks WHERE ?1 < 0 OR metric = ?1 GROUP BY codec";
  if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL))
    return lbs_db_err(t->db, t->path, "codec counts");
  sqlite3_bind_int(st, 1, metric);
  int rc;
  /* each codec id the chunks hold, matched to the registry's */
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
    for (int i = 0; i < n; i++)
      if ((int)lbs_codec_at(i) == sqlite3_column_int(st, 0))
        counts[i] = sqlite3_column_int64(st, 1);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? LBS_OK : lbs_db_err(t->db, t->path, "codec counts");
}

/* The arrays kept per step (owners@, edgew@, events@): each readable (count, CRC, codec) and its
 * values in range, which their readers check; edge weights and events (numbered by trace step)
 * at a step the trace has. Recorded owners are numbered by application step, and a remap after
 * the last step (or between sampled steps) records owners from a step the trace does not hold. */
static lbs_err verify_step_arrays(lbs_trace *t) {
  lbs_err e = LBS_OK;
  for (int64_t i = 0; i < t->nowners && !e; i++) {
    int64_t *own = malloc((size_t)(t->E ? t->E : 1) * sizeof *own);
    if (!own) return lbs_fail(LBS_NOMEM, "recorded owners");
    e = lbs_trace_owners_read(t, i, own); /* application steps: a remap after the last is one */
    free(own);
  }
  int64_t npinned;
  if (!e) e = lbs_trace_pinned(t, NULL, &npinned); /* count E, values 0/1 */
  if (!e && t->nedgew && !lbs_trace_edge_weights_stored(t))
    e = lbs_fail(LBS_CORRUPT,
                 "%s: %lld arrays of edge weights (edgew@STEP), but meta edge_weight "
                 "is not " LBS_EDGE_STEPS,
                 t->path, (long long)t->nedgew);
  const int64_t *xadj, *adj;
  const double *adjw;
  for (int64_t i = 0; i < t->nedgew && !e; i++) {
    int64_t s = t->edgew_step[i], from;
    if (s >= t->S) {
      e = lbs_fail(LBS_CORRUPT, "%s: edge weights at step %lld, past the trace's %lld steps",
                   t->path, (long long)s, (long long)t->S);
      break;
    }
    if (!t->mesh || lbs_mesh_graph(t->mesh, &xadj, &adj, &adjw))
      return lbs_fail(LBS_CORRUPT, "%s: edge weights per step, but no mesh graph", t->path);
    double *w = malloc((size_t)(xadj[t->E] ? xadj[t->E] : 1) * sizeof *w);
    if (!w) return lbs_fail(LBS_NOMEM, "edge weights");
    e = lbs_trace_edge_weights_slice(t, s, 0, xadj[t->E], w, &from);
    free(w);
  }
  int64_t nev = (int64_t)t->nev * t->ev_ranks, nsteps = 0, *steps = NULL;
  if (!e) e = load_steps_of(t, "events", "events", &steps, &nsteps);
  if (!e && nsteps && !nev)
    e = lbs_fail(LBS_CORRUPT, "%s: events at %lld steps, but meta events declares none", t->path,
                 (long long)nsteps);
  double *ev = nev && nsteps ? malloc((size_t)nev * sizeof *ev) : NULL;
  if (!e && nev && nsteps && !ev) e = lbs_fail(LBS_NOMEM, "events");
  for (int64_t i = 0; i < nsteps && !e; i++) {
    int have;
    if (steps[i] >= t->S)
      e = lbs_fail(LBS_CORRUPT, "%s: events at step %lld, past the trace's %lld steps", t->path,
                   (long long)steps[i], (long long)t->S);
    else
      e = lbs_trace_read_events(t, steps[i], ev, &have);
  }
  free(ev);
  free(steps);
  return e;
}

lbs_err lbs_trace_verify(lbs_trace *t, lbs_progress_fn progress, void *arg) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(t->db, "PRAGMA integrity_check(1)", -1, &st, NULL))
    return lbs_db_err(t->db, t->path, "integrity check");
  int rc = sqlite3_step(st);
  const char *r = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
  lbs_err e = LBS_OK;
  if (rc != SQLITE_ROW)
    e = lbs_db_err(t->db, t->path, "integrity check");
  else if (!r || strcmp(r, "ok"))
    e = lbs_fail(LBS_CORRUPT, "%s: SQLite integrity check failed: %s", t->path, r ? r : "?");
  sqlite3_finalize(st);
  if (e) return e;
  int64_t rows;
  if ((e = pragma_int(t, "SELECT count(*) FROM chunks", &rows))) return e;
  if (rows != t->S * t->nm * t->nchunks)
    return lbs_fail(LBS_CORRUPT,
                    "%s: %lld chunk rows, expected %lld (%lld steps x %d metrics x %lld)", t->path,
                    (long long)rows, (long long)(t->S * t->nm * t->nchunks), (long long)t->S, t->nm,
                    (long long)t->nchunks);
  double *buf = malloc((size_t)t->C * sizeof *buf);
  if (!buf) return lbs_fail(LBS_NOMEM, "verify buffer");
  for (int64_t s = 0; s < t->S && !e; s++) {
    for (int m = 0; m < t->nm && !e; m++)
      for (int64_t c = 0; c < t->nchunks && !e; c++) {
        int64_t cn = t->E - c * t->C < t->C ? t->E - c * t->C : t->C;
        e = read_chunk(t, s, m, c, 0, cn, buf);
      }
    if (!e && progress && progress(arg, s + 1, t->S)) break;
  }
  free(buf);
  return e ? e : verify_step_arrays(t);
}

/* The steps a trace's `source` promises: the " steps=N" of a generator's recipe (bump, hotspot,
 * random, nbody); -1 for any other source, or none. */
static int64_t source_steps(const lbs_trace *t) {
  const char *src = lbs_trace_meta(t, "source");
  const char *p = src ? strstr(src, " steps=") : NULL;
  if (!p) return -1;
  char *end;
  errno = 0;
  long long n = strtoll(p + 7, &end, 10);
  return errno || end == p + 7 || (*end && *end != ' ') || n < 0 ? -1 : (int64_t)n;
}

lbs_err lbs_trace_check_complete(lbs_trace *t) {
  int64_t want = source_steps(t);
  if (want >= 0 && t->S < want)
    return lbs_fail(LBS_CORRUPT, "%s: %lld of %lld steps: the writer did not finish", t->path,
                    (long long)t->S, (long long)want);
  /* the collector writes profiler.complete ("yes", or "no" for a run that ended badly) as it
   * finishes: a profiled trace without it lost its collector */
  if (lbs_trace_meta(t, "profiler.ranks") && !lbs_trace_meta(t, "profiler.complete"))
    return lbs_fail(LBS_CORRUPT,
                    "%s: %lld steps: the collector did not finish (no profiler.complete)", t->path,
                    (long long)t->S);
  /* the writer leaves WAL mode as it closes the file (lbs_trace_writer_close): a file still in
   * it was never closed, whatever it says it holds */
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(t->db, "PRAGMA journal_mode", -1, &st, NULL) != SQLITE_OK)
    return lbs_db_err(t->db, t->path, "journal mode");
  int rc = sqlite3_step(st);
  const char *mode = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
  int wal = mode && !strcmp(mode, "wal");
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW) return lbs_db_err(t->db, t->path, "journal mode");
  if (wal)
    return lbs_fail(LBS_CORRUPT, "%s: %lld steps: the writer did not finish (never closed)",
                    t->path, (long long)t->S);
  return LBS_OK;
}
