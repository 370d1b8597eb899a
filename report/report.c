/* report.c - lbsim report: the results store read through study/'s readers (lbs_results) and
 * written as one HTML page
 * that holds its data (JSON in an inert <script type="application/json">), Vega and the page's
 * own script (both inlined at build time by embed.c), so it works offline. The data is bounded:
 * per-processor loads and the step series are summed into buckets of steps when a store holds
 * more than the page should carry. Every table and column past schema 1 is optional: a section
 * without its data says so in the page. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---------------------------------------------------------------- rows as JSON
 * A row struct of the store's readers as a JSON object, column by column, NULL as null. */

/* A column shown, and where the reader's struct holds it. */
typedef struct jcol {
  const char *name;
  char type; /* 'i' int64_t, 'd' double, 't' text */
  size_t off;
} jcol;
#define JC(T, f, t)                                                                                \
  { #f, t, offsetof(T, f) }

/* What the page shows of each run (every column but config, partition_mode and ranks). */
#define RUN(f, t) JC(lbs_results_run, f, t)
static const jcol RUN_COLS[] = {RUN(id, 'i'),
                                RUN(study, 't'),
                                RUN(task, 'i'),
                                RUN(labels, 't'),
                                RUN(trace, 't'),
                                RUN(grid, 't'),
                                RUN(metric, 't'),
                                RUN(partitioner, 't'),
                                RUN(policy, 't'),
                                RUN(mode, 't'),
                                RUN(des_overlap, 't'),
                                RUN(elements, 'i'),
                                RUN(steps, 'i'),
                                RUN(procs, 'i'),
                                RUN(total_time_s, 'd'),
                                RUN(compute_time_s, 'd'),
                                RUN(comm_time_s, 'd'),
                                RUN(partition_time_s, 'd'),
                                RUN(migration_time_s, 'd'),
                                RUN(repartitions, 'i'),
                                RUN(mean_imbalance, 'd'),
                                RUN(max_imbalance, 'd'),
                                RUN(mean_loadimb, 'd'),
                                RUN(moved_elements, 'i'),
                                RUN(wall_s, 'd'),
                                RUN(created, 't'),
                                RUN(command, 't'),
                                RUN(version, 't'),
                                RUN(host, 't'),
                                RUN(cost, 't'),
                                RUN(overrides, 't'),
                                RUN(trace_hash, 't'),
                                RUN(grid_hash, 't'),
                                RUN(optimum_s, 'd'),
                                RUN(gap_to_optimal, 'd'),
                                {NULL, 0, 0}};
#define STUDY(f, t) JC(lbs_results_study, f, t)
static const jcol STUDY_COLS[] = {STUDY(id, 't'),      STUDY(kind, 't'),      STUDY(command, 't'),
                                  STUDY(version, 't'), STUDY(started, 't'),   STUDY(host, 't'),
                                  STUDY(file, 't'),    STUDY(file_hash, 't'), STUDY(axes, 't'),
                                  STUDY(tasks, 'i'),   {NULL, 0, 0}};
#define PART(f, t) JC(lbs_results_partition, f, t)
static const jcol PARTITION_COLS[] = {PART(id, 'i'),
                                      PART(study, 't'),
                                      PART(trace, 't'),
                                      PART(grid, 't'),
                                      PART(step, 'i'),
                                      PART(partitioner, 't'),
                                      PART(procs, 'i'),
                                      PART(elements, 'i'),
                                      PART(maxqwgt_s, 'd'),
                                      PART(loadimb, 'd'),
                                      PART(work_imbalance, 'd'),
                                      PART(tolerance, 'd'),
                                      PART(wsysll_s, 'd'),
                                      PART(wgt_s, 'd'),
                                      PART(comm_s, 'd'),
                                      PART(remap_s, 'd'),
                                      PART(edge_cut, 'd'),
                                      PART(moved, 'i'),
                                      PART(wall_s, 'd'),
                                      PART(created, 't'),
                                      PART(overrides, 't'),
                                      PART(grid_hash, 't'),
                                      {NULL, 0, 0}};

/* A NULL as SQLite reads a number: 0 (the per-step data has always shown it so). */
static double num(double v) { return isnan(v) ? 0 : v; }
static int64_t whole(int64_t v) { return v == LBS_RESULTS_NONE ? 0 : v; }

/* The row's columns as a JSON object; NULL when out of memory. */
static json_t *row_json(const void *row, const jcol *cols) {
  json_t *o = json_object();
  int bad = !o;
  for (const jcol *c = cols; !bad && c->name; c++) {
    const char *at = (const char *)row + c->off;
    int64_t i = c->type == 'i' ? *(const int64_t *)at : 0;
    bad = lbs_json_set(o, c->name,
                       c->type == 'i'   ? (i == LBS_RESULTS_NONE ? json_null() : lbs_json_int(i))
                       : c->type == 'd' ? lbs_json_real(*(const double *)at)
                                        : lbs_json_str_or_null(*(const char *const *)at));
  }
  if (bad) json_decref(o);
  return bad ? NULL : o;
}

/* n rows of size bytes as a JSON array of objects into *out. */
static lbs_err rows_json(const void *rows, int64_t n, size_t size, const jcol *cols, json_t **out) {
  json_t *a = json_array();
  int bad = !a;
  for (int64_t i = 0; !bad && i < n; i++)
    bad = json_array_append_new(a, row_json((const char *)rows + (size_t)i * size, cols));
  if (bad) json_decref(a);
  *out = bad ? NULL : a;
  return bad ? nomem() : LBS_OK;
}

/* ---------------------------------------------------------------- sections */

/* The store being reported: the whole of it, or one study's rows. */
typedef struct store {
  const char *path;
  const char *study; /* NULL: all */
  lbs_results *h;
} store;

/* The studies (schema 2) by start: null without the table. */
static lbs_err studies_json(const store *s, json_t **out) {
  *out = NULL;
  if (!lbs_results_has_table(s->h, "studies")) return (*out = json_null()) ? LBS_OK : nomem();
  const lbs_results_study *st;
  int64_t n;
  lbs_err e = lbs_results_studies(s->h, s->study, &st, &n);
  return e ? e : rows_json(st, n, sizeof *st, STUDY_COLS, out);
}

/* lbsim partition's rows (schema 2) by trace, grid, step, partitioner: null without the table. */
static lbs_err partitions_json(const store *s, json_t **out) {
  *out = NULL;
  if (!lbs_results_has_table(s->h, "partitions")) return (*out = json_null()) ? LBS_OK : nomem();
  const lbs_results_partition *p;
  int64_t n;
  lbs_err e = lbs_results_partitions(s->h, s->study, &p, &n);
  return e ? e : rows_json(p, n, sizeof *p, PARTITION_COLS, out);
}

/* The resolved grid configurations (schema 2), each once: [[grid, config], ...]. */
static lbs_err configs_json(const store *s, json_t **out) {
  const lbs_results_config *c;
  int64_t n;
  *out = NULL;
  lbs_err e = lbs_results_configs(s->h, s->study, &c, &n);
  json_t *a = e ? NULL : json_array();
  if (!e && !a) e = nomem();
  for (int64_t i = 0; !e && i < n; i++)
    if (json_array_append_new(a, json_pack("[o,o]", lbs_json_str_or_null(c[i].grid),
                                           lbs_json_str_or_null(c[i].config))))
      e = nomem();
  if (e)
    json_decref(a);
  else
    *out = a;
  return e;
}

/* One bucket of steps of a run: sums over the steps it covers. */
typedef struct bucket {
  int64_t first, last; /* trace steps */
  double time_ns, compute_ns, partition_ns, migration_ns;
} bucket;

/* One run's steps summed in buckets of k steps as its rows are read. */
typedef struct run_steps {
  int64_t S, P;    /* its steps (rows in steps) and processors */
  int64_t k, kp;   /* steps per bucket; every kp-th step in the imbalance series */
  int64_t nb, pos; /* buckets; the step being read */
  int64_t b;       /* the bucket the repartitions, then the processors, have reached */
  bucket *bk;      /* nb buckets */
  double *cells;   /* nb x P: each bucket's compute per processor */
  json_t *imb;     /* [[step, imbalance, LoadImb, repartitioned], ...] */
} run_steps;

/* A step: into the imbalance series when it is every kp-th, a repartition's or the last; into
 * its bucket's sums. */
static lbs_err on_step(void *arg, const lbs_results_step *st) {
  run_steps *r = arg;
  if (r->pos >= r->S) return LBS_OK;
  int64_t step = whole(st->step);
  int rep = whole(st->repartitioned) != 0;
  if ((r->pos % r->kp == 0 || rep || r->pos == r->S - 1) &&
      json_array_append_new(r->imb, json_pack("[I,o,o,i]", (json_int_t)step,
                                              lbs_json_real(num(st->imbalance)),
                                              lbs_json_real(num(st->loadimb)), rep)))
    return nomem();
  bucket *b = &r->bk[r->pos / r->k];
  if (r->pos % r->k == 0) b->first = step;
  b->last = step;
  b->time_ns += (double)whole(st->time_ns);
  b->compute_ns += (double)whole(st->compute_ns);
  r->pos++;
  return LBS_OK;
}

/* A repartition: its partitioning and migration charged to the bucket of its step. */
static lbs_err on_repart(void *arg, const lbs_results_repart *p) {
  run_steps *r = arg;
  int64_t step = whole(p->step);
  while (r->b < r->nb && r->bk[r->b].last < step) r->b++;
  if (r->b < r->nb && r->bk[r->b].first <= step) {
    r->bk[r->b].partition_ns += (double)whole(p->partition_ns);
    r->bk[r->b].migration_ns += (double)whole(p->migration_ns);
  }
  return LBS_OK;
}

/* A processor's compute at a step, into its bucket's cell. */
static lbs_err on_proc(void *arg, const lbs_results_proc *p) {
  run_steps *r = arg;
  int64_t step = whole(p->step), proc = whole(p->proc);
  while (r->b < r->nb && r->bk[r->b].last < step) r->b++;
  if (r->b < r->nb && r->bk[r->b].first <= step && proc >= 0 && proc < r->P)
    r->cells[r->b * r->P + proc] += (double)whole(p->compute_ns);
  return LBS_OK;
}

/* Reads a run's steps, repartitions and processors into r's buckets, k steps each so that its
 * nb x P cells stay within per_run. */
static lbs_err bucket_run(const store *s, const lbs_results_run *run, int64_t per_run,
                          int64_t max_points, run_steps *r) {
  int64_t S = run->nsteps, P = run->procs > 0 && run->procs < 1 << 24 ? run->procs : 0;
  int64_t k = 1, kp = S > max_points ? (S + max_points - 1) / max_points : 1;
  if (P > 0 && S * P > per_run) k = (S * P + per_run - 1) / per_run;
  if (k > S) k = S > 0 ? S : 1; /* one bucket: P cells however small the share */
  int64_t nb = S ? (S + k - 1) / k : 0;
  *r = (run_steps){.S = S, .P = P, .k = k, .kp = kp, .nb = nb};
  r->bk = calloc((size_t)nb + 1, sizeof *r->bk);
  r->cells = calloc((size_t)(nb * P) + 1, sizeof *r->cells);
  r->imb = json_array();
  if (!r->bk || !r->cells || !r->imb) return nomem();
  lbs_err e = lbs_results_steps(s->h, run->id, on_step, r);
  if (!e) e = lbs_results_reparts(s->h, run->id, on_repart, r);
  r->b = 0;
  if (!e && P > 0) e = lbs_results_procs(s->h, run->id, on_proc, r);
  return e;
}

/* The buckets as integers in a unit of 10^u ns chosen so that the largest value (a bucket's
 * time or partitioning) has at most 6 digits: {"imb", "k", "unit", "procs", "b", "p"}. */
static json_t *bucket_json(const run_steps *r) {
  double mx = 0, unit = 1;
  for (int64_t j = 0; j < r->nb; j++) {
    double t = r->bk[j].time_ns + r->bk[j].partition_ns + r->bk[j].migration_ns;
    mx = t > mx ? t : mx;
  }
  while (mx / unit >= 1e6) unit *= 10;
  json_t *run = json_object(), *ba = json_array(), *pa = json_array();
  int bad = lbs_json_set(run, "imb", json_incref(r->imb)) ||
            lbs_json_set(run, "k", lbs_json_int(r->k)) ||
            lbs_json_set(run, "unit", lbs_json_real(unit)) ||
            lbs_json_set(run, "procs", lbs_json_int(r->P)) ||
            lbs_json_set(run, "b", json_incref(ba)) || lbs_json_set(run, "p", json_incref(pa));
  for (int64_t j = 0; !bad && j < r->nb; j++) {
    const bucket *b = &r->bk[j];
    bad = json_array_append_new(ba, json_pack("[I,I,o,o,o,o]", (json_int_t)b->first,
                                              (json_int_t)b->last,
                                              lbs_json_real(round(b->time_ns / unit)),
                                              lbs_json_real(round(b->compute_ns / unit)),
                                              lbs_json_real(round(b->partition_ns / unit)),
                                              lbs_json_real(round(b->migration_ns / unit))));
  }
  for (int64_t j = 0; !bad && j < r->nb && r->P > 0; j++) {
    json_t *row = json_array();
    bad = json_array_append_new(pa, row);
    for (int64_t p = 0; !bad && p < r->P; p++)
      bad = json_array_append_new(row, lbs_json_real(round(r->cells[j * r->P + p] / unit)));
  }
  json_decref(ba), json_decref(pa);
  if (bad) json_decref(run);
  return bad ? NULL : run;
}

/* Per run: the imbalance series ([step, imbalance, LoadImb, repartitioned] for every k-th step
 * and every repartition), then the buckets of steps, each with its time, slowest compute,
 * partitioning and migration and every processor's compute, as integers in a unit of 10^u ns
 * chosen so that the largest has at most 6 digits:
 *   "RUN": {"imb": [[s, i, l, r], ...], "k": steps per bucket, "unit": ns, "b": [[first, last,
 *           time, slowest, partition, migration], ...], "p": [[c_0 .. c_P-1] per bucket]} */
static lbs_err steps_json(const store *s, const lbs_results_run *runs, int64_t nruns,
                          const lbs_report_opts *o, json_t **out) {
  int64_t max_cells = o && o->max_cells > 0 ? o->max_cells : 2000000;
  int64_t max_points = o && o->max_points > 0 ? o->max_points : 2000;
  int64_t per_run = nruns ? max_cells / nruns : max_cells;
  if (per_run < 1) per_run = 1;
  json_t *all = json_object();
  lbs_err e = all ? LBS_OK : nomem();
  for (int64_t i = 0; !e && i < nruns; i++) {
    run_steps r;
    e = bucket_run(s, &runs[i], per_run, max_points, &r);
    char key[24];
    snprintf(key, sizeof key, "%lld", (long long)runs[i].id);
    if (!e && lbs_json_set(all, key, bucket_json(&r))) e = nomem();
    free(r.bk), free(r.cells), json_decref(r.imb);
  }
  if (e)
    json_decref(all);
  else
    *out = all;
  return e;
}

/* The policies' recorded series being gathered: the array of the run met last. */
typedef struct series_acc {
  json_t *all, *cur;
  int64_t run;
} series_acc;

static lbs_err on_point(void *arg, const lbs_results_point *p) {
  series_acc *a = arg;
  int64_t run = whole(p->run);
  if (!a->cur || run != a->run) {
    char key[24];
    snprintf(key, sizeof key, "%lld", (long long)run);
    if (lbs_json_set(a->all, key, a->cur = json_array())) return nomem();
    a->run = run;
  }
  return json_array_append_new(a->cur,
                               json_pack("[I,I,o]", (json_int_t)whole(p->k),
                                         (json_int_t)whole(p->step), lbs_json_real(num(p->value))))
             ? nomem()
             : LBS_OK;
}

/* The policies' recorded series (schema 2; adaptive: the interval at each probe, Figure 9):
 * {"RUN": [[k, step, value], ...]}; null without the table. */
static lbs_err series_json(const store *s, json_t **out) {
  *out = NULL;
  if (!lbs_results_has_table(s->h, "series")) return (*out = json_null()) ? LBS_OK : nomem();
  series_acc a = {json_object(), NULL, 0};
  lbs_err e = a.all ? lbs_results_series(s->h, s->study, on_point, &a) : nomem();
  if (e)
    json_decref(a.all);
  else
    *out = a.all;
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

/* With a study: the store has it (a schema-1 store has no studies). */
static lbs_err check_study(const store *s) {
  int version = lbs_results_version(s->h), found = 0;
  if (version < 2 || !lbs_results_has_table(s->h, "studies"))
    return lbs_fail(LBS_NOTFOUND, "%s: no study '%s' (a schema-%d store has none)", s->path,
                    s->study, version);
  lbs_err e = lbs_results_has_study(s->h, s->study, &found);
  if (!e && !found)
    e = lbs_fail(LBS_NOTFOUND, "%s: no study '%s' ('lbsim results %s' lists them)", s->path,
                 s->study, s->path);
  return e;
}

/* The page's data: the store's name and schema, its counts and every section. */
static lbs_err data_json(const store *s, const char *base, const lbs_results_run *runs,
                         int64_t nruns, int64_t nparts, const lbs_report_opts *o, json_t **out) {
  json_t *data = json_object(), *studies = NULL, *runs_j = NULL, *configs = NULL, *steps = NULL,
         *series = NULL, *parts = NULL;
  lbs_err e = data ? LBS_OK : nomem();
  if (!e) e = studies_json(s, &studies);
  if (!e) e = rows_json(runs, nruns, sizeof *runs, RUN_COLS, &runs_j);
  if (!e) e = configs_json(s, &configs);
  if (!e) e = steps_json(s, runs, nruns, o, &steps);
  if (!e) e = series_json(s, &series);
  if (!e) e = partitions_json(s, &parts);
  if (!e && (lbs_json_set(data, "store", lbs_json_str(base)) ||
             lbs_json_set(data, "schema", lbs_json_int(lbs_results_version(s->h))) ||
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
      json_decref(series), json_decref(parts);
  if (e)
    json_decref(data);
  else
    *out = data;
  return e;
}

/* The page: its head (style, the error capture, Vega), the status element, the data, then the
 * page's script. */
static lbs_err write_page(writer *w, const char *title, const lbs_report_opts *o,
                          const json_t *data) {
  puts_(w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
  if (o && o->generator) {
    puts_(w, "<meta name=\"generator\" content=\"");
    html_text(w, o->generator);
    puts_(w, "\">\n");
  }
  puts_(w, "<title>");
  html_text(w, title);
  puts_(w, "</title>\n<style>\n");
  put(w, lbs__report_css, lbs__report_css_len);
  puts_(w, "</style>\n<script>\n");
  puts_(w, CAPTURE_JS);
  puts_(w, "</script>\n<script>\n");
  put(w, lbs__vega_js, lbs__vega_js_len);
  puts_(w, "</script>\n</head>\n<body>\n<h1>");
  html_text(w, title);
  puts_(w, "</h1>\n<div id=\"lbsim-status\" data-done=\"0\" data-charts=\"0\" data-expected=\"0\" "
           "data-errors=\"0\">"
           "<span></span><ul></ul></div>\n<main id=\"lbsim-report\"><noscript>This report draws "
           "its charts with "
           "JavaScript.</noscript></main>\n<script type=\"application/json\" id=\"lbsim-data\">\n");
  lbs_err e = LBS_OK;
  if (json_dump_callback(data, put_data, w, LBS_JSON_COMPACT | JSON_REAL_PRECISION(DATA_PRECISION)))
    e = w->e ? w->e : nomem();
  puts_(w, "\n</script>\n<script>\n");
  put(w, lbs__report_js, lbs__report_js_len);
  puts_(w, "</script>\n</body>\n</html>\n");
  return e ? e : w->e;
}

lbs_err lbs_report_html(const char *path, const lbs_report_opts *o, lbs_buf *html) {
  store s = {.path = path, .study = o ? o->study : NULL};
  lbs_err e = lbs_results_open(path, &s.h);
  if (e) return e;
  const lbs_results_run *runs = NULL;
  int64_t nruns = 0, nparts = 0;
  if (s.study) e = check_study(&s);
  if (!e) e = lbs_results_count(s.h, "partitions", s.study, &nparts);
  if (!e) e = lbs_results_runs(s.h, s.study, LBS_RESULTS_BY_ID, &runs, &nruns);
  if (!e && nruns == 0 && nparts == 0)
    e = lbs_fail(LBS_NOTFOUND,
                 "%s: an empty results store (no runs, no partition rows): nothing to report",
                 path);
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  char title[512];
  if (o && o->title)
    snprintf(title, sizeof title, "%s", o->title);
  else
    snprintf(title, sizeof title, "lbsim report: %s", base);
  json_t *data = NULL;
  if (!e) e = data_json(&s, base, runs, nruns, nparts, o, &data);
  writer w = {html, LBS_OK};
  if (!e) e = write_page(&w, title, o, data);
  json_decref(data);
  lbs_results_close(&s.h);
  return e;
}
