/* report.c - lbsim report: the results store read with SQLite and written as one HTML page
 * that holds its data (JSON in an inert <script type="application/json">), Vega and the page's
 * own script (both inlined at build time by embed.c), so it works offline. The data is bounded:
 * per-processor loads and the step series are summed into buckets of steps when a store holds
 * more than the page should carry. Every table and column past schema 1 is optional: a section
 * without its data says so in the page. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_db.h"
#include "lbs_json.h"
#include "lbs_report.h"
#include "lbs_study.h"

extern const char lbs__vega_js[], lbs__report_js[], lbs__report_css[];
extern const size_t lbs__vega_js_len, lbs__report_js_len, lbs__report_css_len;

/* The page being written: output errors are remembered and reported once at the end. */
typedef struct writer {
  lbs_buf *b;
  lbs_err e;
} writer;

static void put(writer *w, const char *s, size_t n) {
  if (!w->e && lbs_buf_append(w->b, s, n)) w->e = lbs_fail(LBS_NOMEM, "report: out of memory");
}

static void puts_(writer *w, const char *s) { put(w, s, strlen(s)); }

/* ---------------------------------------------------------------- the data as JSON
 * Built as jansson objects (core/lbs_json.h) and written with every real to 6 significant digits
 * (a whole number as an integer); text is valid UTF-8 (a bad byte as U+FFFD). */

#define DATA_PRECISION 6

static lbs_err nomem(void) { return lbs_fail(LBS_NOMEM, "report: out of memory"); }

/* Column k of a row as JSON: NULL as null, numbers as numbers, text as a string. */
static json_t *jcol(sqlite3_stmt *q, int k) {
  switch (sqlite3_column_type(q, k)) {
  case SQLITE_NULL: return json_null();
  case SQLITE_INTEGER: return lbs_json_int(sqlite3_column_int64(q, k));
  case SQLITE_FLOAT: return lbs_json_real(sqlite3_column_double(q, k));
  default: return lbs_json_str((const char *)sqlite3_column_text(q, k));
  }
}

/* jansson's text into the page, '<', '>' and '&' as \u003c, \u003e, \u0026, so no text from
 * the store can end the <script> element that holds the data ("</script>") or open a comment
 * in it. Outside strings JSON has none of the three, so each one met is inside a string. */
static int put_data(const char *text, size_t n, void *arg) {
  writer *w = arg;
  size_t from = 0;
  for (size_t i = 0; i < n; i++) {
    const char *esc = text[i] == '<'   ? "\\u003c"
                      : text[i] == '>' ? "\\u003e"
                      : text[i] == '&' ? "\\u0026"
                                       : NULL;
    if (!esc) continue;
    put(w, text + from, i - from);
    puts_(w, esc);
    from = i + 1;
  }
  put(w, text + from, n - from);
  return w->e ? -1 : 0;
}

/* ---------------------------------------------------------------- the store */

typedef struct store {
  const char *path;
  sqlite3 *db;
  int version; /* 1 or 2 */
} store;

/* The store's last SQLite error, mapped once for every store (lbs_db_err): "PATH: message". */
static lbs_err store_err(const store *s) { return lbs_db_err(s->db, s->path, NULL); }

static int has_table(const store *s, const char *name) {
  sqlite3_stmt *q;
  int has = 0;
  if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &q, NULL)) return 0;
  sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
  has = sqlite3_step(q) == SQLITE_ROW;
  sqlite3_finalize(q);
  return has;
}

static int has_column(const store *s, const char *table, const char *column) {
  return lbs_results_has_column(s->db, table, column);
}

static int64_t count(const store *s, const char *table) {
  if (!has_table(s, table)) return 0;
  char sql[96];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
  sqlite3_stmt *q;
  int64_t n = 0;
  if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
    n = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  return n;
}

/* Opens the store read-only after checking what it is (study/results.c: a regular file, an
 * SQLite file, lbsim's results store, a schema this lbsim reads). */
static lbs_err store_open(store *s, const char *path) {
  memset(s, 0, sizeof *s);
  s->path = path;
  lbs_err e = lbs_results_open_read(path, &s->db, &s->version);
  if (e) return e;
  if (!has_table(s, "runs")) {
    sqlite3_close(s->db);
    s->db = NULL;
    return lbs_fail(LBS_FORMAT, "%s: a results store without its runs table", path);
  }
  return LBS_OK;
}

/* ---------------------------------------------------------------- sections */

/* What the page knows of each run while writing the per-step data. */
typedef struct run_info {
  int64_t id;
  int64_t nsteps; /* rows in steps */
  int procs;
} run_info;

/* SELECT list for table t: each wanted column, or NULL AS it where the store lacks it. */
static char *select_list(const store *s, const char *t, const char *const *cols) {
  size_t cap = 64;
  for (size_t i = 0; cols[i]; i++) cap += 2 * strlen(cols[i]) + 16;
  char *sql = malloc(cap);
  if (!sql) return NULL;
  size_t n = 0;
  for (size_t i = 0; cols[i]; i++)
    n += (size_t)snprintf(sql + n, cap - n, has_column(s, t, cols[i]) ? "%s%s" : "%sNULL AS %s", i ? ", " : "", cols[i]);
  return sql;
}

/* Rows of a query as a JSON array of objects named by cols into *out; null without the table. */
static lbs_err rows_json(const store *s, const char *table, const char *const *cols,
                         const char *tail, json_t **out) {
  *out = NULL;
  if (!has_table(s, table)) return (*out = json_null()) ? LBS_OK : nomem();
  char *list = select_list(s, table, cols);
  if (!list) return nomem();
  size_t len = strlen(list) + strlen(table) + strlen(tail) + 32;
  char *sql = malloc(len);
  if (!sql) return free(list), nomem();
  snprintf(sql, len, "SELECT %s FROM %s %s", list, table, tail);
  free(list);
  sqlite3_stmt *q;
  lbs_err e = LBS_OK;
  if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL)) e = store_err(s);
  free(sql);
  if (e) return e;
  json_t *rows = json_array();
  int rc = SQLITE_DONE, bad = !rows;
  while (!bad && (rc = sqlite3_step(q)) == SQLITE_ROW) {
    json_t *row = json_object();
    bad = json_array_append_new(rows, row);
    for (int k = 0; !bad && cols[k]; k++) bad = lbs_json_set(row, cols[k], jcol(q, k));
  }
  e = bad ? nomem() : rc != SQLITE_DONE ? store_err(s) : LBS_OK;
  sqlite3_finalize(q);
  if (e)
    json_decref(rows);
  else
    *out = rows;
  return e;
}

static const char *const RUN_COLS[] = {
    "id", "study", "task", "labels", "trace", "grid", "metric", "partitioner", "policy", "mode", "elements",
    "steps", "procs", "total_time_s", "compute_time_s", "comm_time_s", "partition_time_s", "migration_time_s",
    "repartitions", "mean_imbalance", "max_imbalance", "mean_loadimb", "moved_elements", "wall_s", "created",
    "command", "version", "host", "cost", "overrides", "trace_hash", "grid_hash", "optimum_s", "gap_to_optimal",
    NULL};
static const char *const STUDY_COLS[] = {"id", "kind", "command", "version", "started", "host", "file", "file_hash",
                                         "axes", "tasks", NULL};
static const char *const PARTITION_COLS[] = {
    "id", "study", "trace", "grid", "step", "partitioner", "procs", "elements", "maxqwgt_s", "loadimb",
    "work_imbalance", "tolerance", "wsysll_s", "wgt_s", "comm_s", "remap_s", "edge_cut", "moved", "wall_s",
    "created", "overrides", "grid_hash", NULL};

/* The resolved grid configurations (schema 2), each once: [[grid, config], ...]. */
static lbs_err configs_json(const store *s, json_t **out) {
  int runs = has_column(s, "runs", "config"), parts = has_table(s, "partitions") && has_column(s, "partitions", "config");
  json_t *a = json_array();
  *out = NULL;
  if (!a) return nomem();
  if (!runs && !parts) return *out = a, LBS_OK;
  char sql[400];
  snprintf(sql, sizeof sql, "SELECT grid, config FROM (%s%s%s) WHERE config IS NOT NULL GROUP BY config ORDER BY grid, config",
           runs ? "SELECT grid, config FROM runs" : "", runs && parts ? " UNION " : "",
           parts ? "SELECT grid, config FROM partitions" : "");
  sqlite3_stmt *q;
  if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL)) return json_decref(a), store_err(s);
  int rc = SQLITE_DONE, bad = 0;
  while (!bad && (rc = sqlite3_step(q)) == SQLITE_ROW)
    bad = json_array_append_new(a, json_pack("[o,o]", jcol(q, 0), jcol(q, 1)));
  lbs_err e = bad ? nomem() : rc != SQLITE_DONE ? store_err(s) : LBS_OK;
  sqlite3_finalize(q);
  if (e)
    json_decref(a);
  else
    *out = a;
  return e;
}

/* The runs in id order with their step counts and processors. */
static lbs_err load_runs(const store *s, run_info **runs, int64_t *n) {
  sqlite3_stmt *q;
  *runs = NULL;
  *n = 0;
  if (sqlite3_prepare_v2(s->db, "SELECT r.id, coalesce(r.procs, 0), (SELECT count(*) FROM steps WHERE run = r.id)"
                                " FROM runs r ORDER BY r.id", -1, &q, NULL))
    return store_err(s);
  int64_t cap = 0;
  lbs_err e = LBS_OK;
  int rc;
  while (!e && (rc = sqlite3_step(q)) == SQLITE_ROW) {
    if (*n == cap) {
      cap = cap ? 2 * cap : 64;
      run_info *t = realloc(*runs, (size_t)cap * sizeof *t);
      if (!t) {
        e = lbs_fail(LBS_NOMEM, "report: out of memory");
        break;
      }
      *runs = t;
    }
    run_info *r = &(*runs)[(*n)++];
    r->id = sqlite3_column_int64(q, 0);
    int64_t p = sqlite3_column_int64(q, 1);
    r->procs = p > 0 && p < 1 << 24 ? (int)p : 0;
    r->nsteps = sqlite3_column_int64(q, 2);
  }
  if (!e && rc != SQLITE_DONE) e = store_err(s);
  sqlite3_finalize(q);
  return e;
}

/* One bucket of steps of a run: sums over the steps it covers. */
typedef struct bucket {
  int64_t first, last; /* trace steps */
  double time_ns, compute_ns, partition_ns, migration_ns;
} bucket;

/* Per run: the imbalance series ([step, imbalance, LoadImb, repartitioned] for every k-th step
 * and every repartition), then the buckets of steps, each with its time, slowest compute,
 * partitioning and migration and every processor's compute, as integers in a unit of 10^u ns
 * chosen so that the largest has at most 6 digits:
 *   "RUN": {"imb": [[s, i, l, r], ...], "k": steps per bucket, "unit": ns, "b": [[first, last,
 *           time, slowest, partition, migration], ...], "p": [[c_0 .. c_P-1] per bucket]} */
static lbs_err steps_json(const store *s, const run_info *runs, int64_t nruns,
                          const lbs_report_opts *o, json_t **out) {
  int64_t max_cells = o && o->max_cells > 0 ? o->max_cells : 2000000, max_points = o && o->max_points > 0 ? o->max_points : 2000;
  int64_t per_run = nruns ? max_cells / nruns : max_cells;
  if (per_run < 1) per_run = 1;
  sqlite3_stmt *qs = NULL, *qp = NULL, *qr = NULL;
  lbs_err e = LBS_OK;
  *out = NULL;
  if (sqlite3_prepare_v2(s->db, "SELECT step, imbalance, loadimb, repartitioned, time_ns, compute_ns FROM steps"
                                " WHERE run = ? ORDER BY step", -1, &qs, NULL) ||
      sqlite3_prepare_v2(s->db, "SELECT step, proc, compute_ns FROM procs WHERE run = ? ORDER BY step, proc", -1, &qp,
                         NULL) ||
      sqlite3_prepare_v2(s->db, "SELECT step, partition_ns, migration_ns FROM repartitions WHERE run = ? ORDER BY step",
                         -1, &qr, NULL))
    e = store_err(s);
  json_t *all = json_object();
  if (!e && !all) e = nomem();
  bucket *bk = NULL;
  double *cells = NULL;
  for (int64_t i = 0; !e && i < nruns; i++) {
    const run_info *r = &runs[i];
    int64_t S = r->nsteps, P = r->procs;
    int64_t k = 1, kp = S > max_points ? (S + max_points - 1) / max_points : 1;
    if (P > 0 && S * P > per_run) k = (S * P + per_run - 1) / per_run;
    if (k > S) k = S > 0 ? S : 1; /* one bucket: P cells however small the share */
    int64_t nb = S ? (S + k - 1) / k : 0;
    free(bk);
    free(cells);
    bk = calloc((size_t)nb + 1, sizeof *bk);
    cells = calloc((size_t)(nb * P) + 1, sizeof *cells);
    if (!bk || !cells) {
      e = lbs_fail(LBS_NOMEM, "report: out of memory");
      break;
    }
    char key[24];
    snprintf(key, sizeof key, "%lld", (long long)r->id);
    json_t *run = json_object(), *imb = json_array(), *ba = json_array(), *pa = json_array();
    int bad =
        lbs_json_set(all, key, json_incref(run)) || lbs_json_set(run, "imb", json_incref(imb));
    /* the steps: the thinned imbalance series, and each bucket's sums */
    sqlite3_reset(qs);
    sqlite3_bind_int64(qs, 1, r->id);
    int rc = SQLITE_DONE;
    int64_t pos = 0;
    while (!bad && (rc = sqlite3_step(qs)) == SQLITE_ROW && pos < S) {
      int64_t step = sqlite3_column_int64(qs, 0);
      int rep = sqlite3_column_int(qs, 3);
      if (pos % kp == 0 || rep || pos == S - 1)
        bad = json_array_append_new(imb, json_pack("[I,o,o,i]", (json_int_t)step,
                                                   lbs_json_real(sqlite3_column_double(qs, 1)),
                                                   lbs_json_real(sqlite3_column_double(qs, 2)),
                                                   rep ? 1 : 0));
      bucket *b = &bk[pos / k];
      if (pos % k == 0) b->first = step;
      b->last = step;
      b->time_ns += sqlite3_column_double(qs, 4);
      b->compute_ns += sqlite3_column_double(qs, 5);
      pos++;
    }
    if (!bad && rc != SQLITE_ROW && rc != SQLITE_DONE) e = store_err(s);
    /* partitioning and migration, charged at the step of each repartition */
    sqlite3_reset(qr);
    sqlite3_bind_int64(qr, 1, r->id);
    int64_t b = 0;
    while (!e && (rc = sqlite3_step(qr)) == SQLITE_ROW) {
      int64_t step = sqlite3_column_int64(qr, 0);
      while (b < nb && bk[b].last < step) b++;
      if (b < nb && bk[b].first <= step) {
        bk[b].partition_ns += sqlite3_column_double(qr, 1);
        bk[b].migration_ns += sqlite3_column_double(qr, 2);
      }
    }
    if (!e && rc != SQLITE_DONE) e = store_err(s);
    /* every processor's compute */
    sqlite3_reset(qp);
    sqlite3_bind_int64(qp, 1, r->id);
    b = 0;
    while (!e && P > 0 && (rc = sqlite3_step(qp)) == SQLITE_ROW) {
      int64_t step = sqlite3_column_int64(qp, 0), p = sqlite3_column_int64(qp, 1);
      while (b < nb && bk[b].last < step) b++;
      if (b < nb && bk[b].first <= step && p >= 0 && p < P) cells[b * P + p] += sqlite3_column_double(qp, 2);
    }
    if (!e && P > 0 && rc != SQLITE_DONE) e = store_err(s);
    /* the unit: the largest value (a bucket's time or partitioning) within 6 digits */
    double mx = 0;
    for (int64_t j = 0; j < nb; j++) {
      double t = bk[j].time_ns + bk[j].partition_ns + bk[j].migration_ns;
      mx = t > mx ? t : mx;
    }
    double unit = 1;
    while (mx / unit >= 1e6) unit *= 10;
    bad = bad || lbs_json_set(run, "k", lbs_json_int(k)) ||
          lbs_json_set(run, "unit", lbs_json_real(unit)) ||
          lbs_json_set(run, "procs", lbs_json_int(P)) || lbs_json_set(run, "b", json_incref(ba)) ||
          lbs_json_set(run, "p", json_incref(pa));
    for (int64_t j = 0; !bad && j < nb; j++)
      bad = json_array_append_new(ba, json_pack("[I,I,o,o,o,o]", (json_int_t)bk[j].first,
                                                (json_int_t)bk[j].last,
                                                lbs_json_real(round(bk[j].time_ns / unit)),
                                                lbs_json_real(round(bk[j].compute_ns / unit)),
                                                lbs_json_real(round(bk[j].partition_ns / unit)),
                                                lbs_json_real(round(bk[j].migration_ns / unit))));
    for (int64_t j = 0; !bad && j < nb && P > 0; j++) {
      json_t *row = json_array();
      bad = json_array_append_new(pa, row);
      for (int64_t p = 0; !bad && p < P; p++)
        bad = json_array_append_new(row, lbs_json_real(round(cells[j * P + p] / unit)));
    }
    json_decref(run), json_decref(imb), json_decref(ba), json_decref(pa);
    if (bad && !e) e = nomem();
  }
  free(bk);
  free(cells);
  sqlite3_finalize(qs);
  sqlite3_finalize(qp);
  sqlite3_finalize(qr);
  if (e)
    json_decref(all);
  else
    *out = all;
  return e;
}

/* The policies' recorded series (schema 2; adaptive: the interval at each probe, Figure 9):
 * {"RUN": [[k, step, value], ...]}; null without the table. */
static lbs_err series_json(const store *s, json_t **out) {
  *out = NULL;
  if (!has_table(s, "series")) return (*out = json_null()) ? LBS_OK : nomem();
  sqlite3_stmt *q;
  if (sqlite3_prepare_v2(s->db, "SELECT run, k, step, value FROM series ORDER BY run, k", -1, &q, NULL)) return store_err(s);
  json_t *all = json_object(), *cur = NULL;
  int rc = SQLITE_DONE, bad = !all;
  int64_t run_cur = 0;
  while (!bad && (rc = sqlite3_step(q)) == SQLITE_ROW) {
    int64_t run = sqlite3_column_int64(q, 0);
    if (!cur || run != run_cur) {
      char key[24];
      snprintf(key, sizeof key, "%lld", (long long)run);
      bad = lbs_json_set(all, key, cur = json_array());
      run_cur = run;
    }
    if (!bad)
      bad = json_array_append_new(cur, json_pack("[I,I,o]", (json_int_t)sqlite3_column_int64(q, 1),
                                                 (json_int_t)sqlite3_column_int64(q, 2),
                                                 lbs_json_real(sqlite3_column_double(q, 3))));
  }
  lbs_err e = bad ? nomem() : rc != SQLITE_DONE ? store_err(s) : LBS_OK;
  sqlite3_finalize(q);
  if (e)
    json_decref(all);
  else
    *out = all;
  return e;
}

/* ---------------------------------------------------------------- the page */

/* Text for an HTML element's content. */
static void html_text(writer *w, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '<': puts_(w, "&lt;"); break;
    case '>': puts_(w, "&gt;"); break;
    case '&': puts_(w, "&amp;"); break;
    case '"': puts_(w, "&quot;"); break;
    default: put(w, s, 1);
    }
  }
}

/* Before anything else: every error the page meets, Vega's included, is counted in the status
 * element the tests read (console.error too, which Vega's warnings and errors go through). */
static const char CAPTURE_JS[] =
    "window.lbsErrors=[];\n"
    "window.lbsError=function(m){window.lbsErrors.push(String(m));var s=document.getElementById('lbsim-status');"
    "if(s){s.setAttribute('data-errors',String(window.lbsErrors.length));"
    "var li=document.createElement('li');li.textContent=String(m);s.querySelector('ul').appendChild(li);}};\n"
    "window.addEventListener('error',function(ev){window.lbsError('error: '+(ev.message||ev));});\n"
    "window.addEventListener('unhandledrejection',function(ev){window.lbsError('unhandled: '+(ev.reason&&ev.reason.message||ev.reason));});\n"
    "(function(){var ce=console.error;console.error=function(){window.lbsError('console.error: '+"
    "Array.prototype.map.call(arguments,String).join(' '));return ce.apply(console,arguments);};})();\n";

/* Narrows the store to one study: views in the connection's own temp schema take the tables'
 * names (SQLite looks there first), so every query below sees only the study's rows. */
static lbs_err only_study(store *s, const char *study) {
  static const struct {
    const char *table, *filter;
  } T[] = {{"studies", "id = %Q"},
           {"runs", "study = %Q"},
           {"steps", "run IN (SELECT id FROM main.runs WHERE study = %Q)"},
           {"procs", "run IN (SELECT id FROM main.runs WHERE study = %Q)"},
           {"repartitions", "run IN (SELECT id FROM main.runs WHERE study = %Q)"},
           {"series", "run IN (SELECT id FROM main.runs WHERE study = %Q)"},
           {"partitions", "study = %Q"}};
  if (s->version < 2 || !has_table(s, "studies"))
    return lbs_fail(LBS_NOTFOUND, "%s: no study '%s' (a schema-%d store has none)", s->path, study, s->version);
  sqlite3_stmt *q;
  int found = 0;
  if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM main.studies WHERE id = ?", -1, &q, NULL)) return store_err(s);
  sqlite3_bind_text(q, 1, study, -1, SQLITE_STATIC);
  found = sqlite3_step(q) == SQLITE_ROW;
  sqlite3_finalize(q);
  if (!found) return lbs_fail(LBS_NOTFOUND, "%s: no study '%s' ('lbsim results %s' lists them)", s->path, study, s->path);
  for (size_t i = 0; i < sizeof T / sizeof *T; i++) {
    if (!has_table(s, T[i].table)) continue;
    char *filter = sqlite3_mprintf(T[i].filter, study);
    char *sql = filter ? sqlite3_mprintf("CREATE TEMP VIEW %s AS SELECT * FROM main.%s WHERE %s", T[i].table, T[i].table, filter) : NULL;
    int rc = sql ? sqlite3_exec(s->db, sql, NULL, NULL, NULL) : SQLITE_NOMEM;
    sqlite3_free(sql);
    sqlite3_free(filter);
    if (rc) return store_err(s);
  }
  return LBS_OK;
}

lbs_err lbs_report_html(const char *path, const lbs_report_opts *o, lbs_buf *html) {
  store s;
  lbs_err e = store_open(&s, path);
  if (e) return e;
  if (o && o->study && (e = only_study(&s, o->study))) {
    sqlite3_close(s.db);
    return e;
  }
  writer w = {html, LBS_OK};
  run_info *runs = NULL;
  int64_t nruns = 0, nparts = count(&s, "partitions");
  e = load_runs(&s, &runs, &nruns);
  if (!e && nruns == 0 && nparts == 0)
    e = lbs_fail(LBS_NOTFOUND, "%s: an empty results store (no runs, no partition rows): nothing to report", path);
  if (e) goto done;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  char title[512];
  if (o && o->title) snprintf(title, sizeof title, "%s", o->title);
  else snprintf(title, sizeof title, "lbsim report: %s", base);

  puts_(&w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
  if (o && o->generator) {
    puts_(&w, "<meta name=\"generator\" content=\"");
    html_text(&w, o->generator);
    puts_(&w, "\">\n");
  }
  puts_(&w, "<title>");
  html_text(&w, title);
  puts_(&w, "</title>\n<style>\n");
  put(&w, lbs__report_css, lbs__report_css_len);
  puts_(&w, "</style>\n<script>\n");
  puts_(&w, CAPTURE_JS);
  puts_(&w, "</script>\n<script>\n");
  put(&w, lbs__vega_js, lbs__vega_js_len);
  puts_(&w, "</script>\n</head>\n<body>\n<h1>");
  html_text(&w, title);
  puts_(&w, "</h1>\n<div id=\"lbsim-status\" data-done=\"0\" data-charts=\"0\" data-expected=\"0\" data-errors=\"0\">"
            "<span></span><ul></ul></div>\n<main id=\"lbsim-report\"><noscript>This report draws its charts with "
            "JavaScript.</noscript></main>\n<script type=\"application/json\" id=\"lbsim-data\">\n");
  /* the data */
  json_t *data = json_object(), *studies = NULL, *runs_j = NULL, *configs = NULL, *steps = NULL,
         *series = NULL, *parts = NULL;
  if (!data) e = nomem();
  if (!e) e = rows_json(&s, "studies", STUDY_COLS, "ORDER BY started, id", &studies);
  if (!e) e = rows_json(&s, "runs", RUN_COLS, "ORDER BY id", &runs_j);
  if (!e) e = configs_json(&s, &configs);
  if (!e) e = steps_json(&s, runs, nruns, o, &steps);
  if (!e) e = series_json(&s, &series);
  if (!e)
    e = rows_json(&s, "partitions", PARTITION_COLS, "ORDER BY trace, grid, step, partitioner, id",
                  &parts);
  if (!e && (lbs_json_set(data, "store", lbs_json_str(base)) ||
             lbs_json_set(data, "schema", lbs_json_int(s.version)) ||
             lbs_json_set(data, "nruns", lbs_json_int(nruns)) ||
             lbs_json_set(data, "npartitions", lbs_json_int(nparts)) ||
             lbs_json_set(data, "studies", json_incref(studies)) ||
             lbs_json_set(data, "runs", json_incref(runs_j)) ||
             lbs_json_set(data, "configs", json_incref(configs)) ||
             lbs_json_set(data, "steps", json_incref(steps)) ||
             lbs_json_set(data, "series", json_incref(series)) ||
             lbs_json_set(data, "partitions", json_incref(parts))))
    e = nomem();
  json_decref(studies), json_decref(runs_j), json_decref(configs), json_decref(steps),
      json_decref(series);
  json_decref(parts);
  if (!e && json_dump_callback(data, put_data, &w,
                               LBS_JSON_COMPACT | JSON_REAL_PRECISION(DATA_PRECISION)))
    e = w.e ? w.e : nomem();
  json_decref(data);
  puts_(&w, "\n</script>\n<script>\n");
  put(&w, lbs__report_js, lbs__report_js_len);
  puts_(&w, "</script>\n</body>\n</html>\n");
  if (!e) e = w.e;
done:
  free(runs);
  sqlite3_close(s.db);
  return e;
}
