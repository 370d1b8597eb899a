/* info.c - a trace described: sizes, the writer's errors, chunks per codec, the mesh, the stored
 * values of each metric with a warning where a range bound meets outliers, and all of it as text
 * or as one JSON document (what `lbsim trace info` shows). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_json.h"
#include "lbs_traces.h"

/* The mesh in words: "structured 30x20x20 (natural order)", "unstructured, N edges", "none". */
static void mesh_words(lbs_trace *t, char *buf, size_t n) {
  lbs_mesh *mesh = lbs_trace_mesh(t);
  snprintf(buf, n, "none");
  if (mesh && lbs_mesh_get_kind(mesh) == LBS_MESH_STRUCTURED) {
    int64_t d[3];
    lbs_mesh_dims(mesh, d);
    snprintf(buf, n, "structured %lldx%lldx%lld (%s order)", (long long)d[0], (long long)d[1],
             (long long)d[2], lbs_mesh_order(mesh) == LBS_ORDER_HILBERT ? "hilbert" : "natural");
  } else if (mesh) {
    const int64_t *xadj, *adj;
    const double *w;
    lbs_mesh_graph(mesh, &xadj, &adj, &w);
    snprintf(buf, n, "unstructured, %lld %sedges", (long long)xadj[lbs_trace_elements(t)],
             lbs_mesh_directed(mesh) ? "directed " : "");
  }
}

lbs_err lbs_trace_info_get(lbs_trace *t, lbs_trace_info *out) {
  int nm = lbs_trace_nmetrics(t), nc = lbs_codec_count();
  *out = (lbs_trace_info){.nmetrics = nm, .ncodecs = nc};
  out->metric = calloc((size_t)nm, sizeof *out->metric);
  out->values = calloc((size_t)nm, sizeof *out->values);
  out->warning = calloc((size_t)nm, sizeof *out->warning);
  out->codec_chunks = calloc((size_t)nm * (size_t)nc + 1, sizeof *out->codec_chunks);
  lbs_err e = LBS_OK;
  if (!out->metric || !out->values || !out->warning || !out->codec_chunks)
    e = lbs_fail(LBS_NOMEM, "statistics");
  if (!e) e = lbs_trace_get_stats(t, -1, &out->all);
  for (int m = 0; m < nm && !e; m++) e = lbs_trace_get_stats(t, m, &out->metric[m]);
  for (int m = 0; m < nm && !e; m++)
    e = lbs_trace_codec_chunks(t, m, out->codec_chunks + (size_t)m * nc, nc);
  mesh_words(t, out->mesh, sizeof out->mesh);
  return e;
}

/* The warning for a range-relative bound whose range outliers set: the bound then lets every
 * value move by more than a typical value's share. Empty when there is nothing to say. */
static void range_warning(const lbs_metric_info *mi, const lbs_value_stats *vs, char *buf,
                          size_t len) {
  buf[0] = '\0';
  if (mi->bound.kind != LBS_BOUND_RANGE || !(vs->median > 0)) return;
  double tol = mi->bound.eps * vs->max_step_range;
  if (!(tol > 0.05 * vs->median)) return;
  char b[LBS_BOUND_STRLEN];
  snprintf(
      buf, len,
      "metric '%s': the bound %s lets a value move by up to %.4g, %.3gx the median value %.4g, "
      "because outliers set each step's range (max %.4g, p99 %.4g); the replay sums these "
      "errors over every part: use a pointwise bound such as %s",
      mi->name, lbs_bound_format(mi->bound, b), tol, tol / vs->median, vs->median, vs->max, vs->p99,
      LBS_BOUND_DEFAULT);
}

lbs_err lbs_trace_info_values(lbs_trace *t, int m, lbs_progress_fn progress, void *arg,
                              lbs_trace_info *info) {
  lbs_metric_info mi;
  lbs_trace_metric(t, m, &mi);
  lbs_err e = lbs_trace_value_stats(t, m, progress, arg, &info->values[m]);
  if (e)
    snprintf(info->values_error, sizeof info->values_error, "%s", lbs_errmsg());
  else
    range_warning(&mi, &info->values[m], info->warning[m], sizeof info->warning[m]);
  info->values_read += !e;
  return e;
}

/* ---------------------------------------------------------------- the text */

/* Every stored codec in id order (lbs_codec_at), joined by '/': its initial when counts is NULL
 * (the text's "l/p/q" header), else its count of chunks ("12/0/3", a metric's cell). */
static const char *codec_column(char *buf, size_t n, const int64_t *counts) {
  size_t at = 0;
  buf[0] = '\0';
  for (int k = 0; k < lbs_codec_count() && at < n; k++) {
    const char *sep = k ? "/" : "";
    int w = counts ? snprintf(buf + at, n - at, "%s%lld", sep, (long long)counts[k])
                   : snprintf(buf + at, n - at, "%s%c", sep, lbs_codec_name(lbs_codec_at(k))[0]);
    at += w > 0 ? (size_t)w : 0;
  }
  return buf;
}

/* The per-rank events' totals over the steps and ranks into tot (nevents), and how many steps
 * hold events into *steps. 0, or -1 when a step's cannot be read (the message set). */
static int event_totals(lbs_trace *t, double *tot, int64_t *steps) {
  int K = lbs_trace_nevents(t), R = lbs_trace_event_ranks(t);
  double *ev = malloc((size_t)(K * R > 0 ? K * R : 1) * sizeof *ev);
  int bad = !ev;
  *steps = 0;
  for (int k = 0; k < K; k++) tot[k] = 0;
  for (int64_t s = 0; !bad && K && s < lbs_trace_steps(t); s++) {
    int have;
    bad = lbs_trace_read_events(t, s, ev, &have) != LBS_OK;
    *steps += !bad && have;
    for (int i = 0; !bad && have && i < K * R; i++) tot[i % K] += ev[i];
  }
  free(ev);
  return bad ? -1 : 0;
}

/* The text's head: sizes, mesh, source, how a profiled run ended, the application's keys. */
static void info_head(FILE *f, lbs_trace *t, const char *path, const lbs_trace_info *in) {
  int64_t file = lbs_trace_file_bytes(t), S = lbs_trace_steps(t);
  const char *src = lbs_trace_meta(t, "source");
  fprintf(f, "trace     %s\nelements  %lld\nsteps     %lld", path, (long long)lbs_trace_elements(t),
          (long long)S);
  if (S > 0) {
    int64_t a0, a1;
    lbs_trace_app_step(t, 0, &a0);
    lbs_trace_app_step(t, S - 1, &a1);
    fprintf(f, " (application steps %lld..%lld)", (long long)a0, (long long)a1);
  }
  fprintf(f, "\nmesh      %s\nchunks    %lld elements each, %lld stored\nsource    %s\n", in->mesh,
          (long long)lbs_trace_chunk_elems(t), (long long)in->all.chunks, src ? src : "unknown");
  if (lbs_trace_meta(t, "denoise")) fprintf(f, "denoised  %s\n", lbs_trace_meta(t, "denoise"));
  if (lbs_trace_edge_weights_vary(t)) /* which weights the replay and partition will charge */
    fprintf(f, "edges     %s (%s)\n", lbs_trace_meta(t, "edge_weight"),
            lbs_trace_edge_weights_stored(t)
                ? "each step: the arc weights stored for the latest step at or before it"
                : "arc u -> v: its stored weight x rwgt of v, at each step");
  if (lbs_trace_meta(t, "profiler.ranks")) {
    const char *c = lbs_trace_meta(t, "profiler.complete"),
               *d = lbs_trace_meta(t, "profiler.dropped_steps");
    const char *i = lbs_trace_meta(t, "profiler.incomplete_steps"),
               *l = lbs_trace_meta(t, "profiler.lost_ranks");
    fprintf(f,
            "profiler  ranks %s, nodes %s, sample_every %s: %s; steps dropped %s, incomplete %s; "
            "ranks lost %s\n",
            lbs_trace_meta(t, "profiler.ranks"),
            lbs_trace_meta(t, "profiler.nodes") ? lbs_trace_meta(t, "profiler.nodes") : "?",
            lbs_trace_meta(t, "profiler.sample_every") ? lbs_trace_meta(t, "profiler.sample_every")
                                                       : "?",
            c && !strcmp(c, "yes") ? "complete"
            : c                    ? "did not end cleanly"
                                   : "still being written",
            d ? d : "?", i ? i : "?", l ? l : "?");
  }
  int64_t na = lbs_trace_owners_count(t); /* an application that migrates (lbsprof_remap) */
  if (na > 0) {
    fprintf(f, "owners    recorded assignments: %lld (from steps", (long long)na);
    for (int64_t i = 0; i < na && i < 20; i++)
      fprintf(f, "%s %lld", i ? "," : "", (long long)lbs_trace_owners_step(t, i));
    fprintf(f, "%s)\n", na > 20 ? ", ..." : "");
  }
  int64_t npin = 0; /* elements that never move (a vt task that is not migratable) */
  if (!lbs_trace_pinned(t, NULL, &npin) && npin > 0)
    fprintf(f, "pinned    %lld element%s never move%s (they stay where they are)\n",
            (long long)npin, npin == 1 ? "" : "s", npin == 1 ? "s" : "");
  double tot[LBS_TRACE_MAX_EVENTS];
  int64_t evs;
  if (lbs_trace_nevents(t) > 0) { /* the application's own costs (lbsprof_event_add) */
    if (event_totals(t, tot, &evs)) {
      fprintf(f, "events    unreadable: %s\n", lbs_errmsg());
    } else {
      fprintf(f, "events   ");
      for (int k = 0; k < lbs_trace_nevents(t); k++)
        fprintf(f, "%s %s %.6g s", k ? "," : "", lbs_trace_event_name(t, k), tot[k]);
      fprintf(f, " (totals over %d ranks and the %lld steps that have events)\n",
              lbs_trace_event_ranks(t), (long long)evs);
    }
  }
  for (int k = 0, n = 0; k < lbs_trace_meta_count(t); k++) {
    const char *key = lbs_trace_meta_key(t, k);
    if (!strncmp(key, "app.", 4))
      fprintf(f, "%s%s=%s", n++ ? ", " : "app       ", key + 4, lbs_trace_meta(t, key));
    if (n &&
        (k + 1 == lbs_trace_meta_count(t) || strncmp(lbs_trace_meta_key(t, k + 1), "app.", 4))) {
      fprintf(f, "\n");
      break;
    }
  }
  fprintf(f, "size      %lld bytes raw, %lld bytes on disk (ratio %.1f), %lld in chunks\n",
          (long long)in->all.raw_bytes, (long long)file,
          file > 0 ? (double)in->all.raw_bytes / (double)file : NAN,
          (long long)in->all.stored_bytes);
}

void lbs_trace_info_text(FILE *f, lbs_trace *t, const char *path, const lbs_trace_info *in,
                         int values) {
  info_head(f, t, path, in);
  char head[128], col[96];
  /* "chunks l/p/q": each codec's initial, in id order */
  snprintf(head, sizeof head, "chunks %s", codec_column(col, sizeof col, NULL));
  fprintf(f, "metrics\n  %-12s %-6s %-14s %-9s %-16s %11s %10s %9s %9s\n", "name", "unit", "bound",
          "codec", head, "chunk bytes", "max error", "max rel", "sum err");
  for (int m = 0; m < in->nmetrics; m++) {
    const lbs_trace_stats *ms = &in->metric[m];
    lbs_metric_info mi;
    char b[LBS_BOUND_STRLEN], e1[16] = "unknown", e2[16] = "unknown", e3[16] = "unknown";
    lbs_trace_metric(t, m, &mi);
    codec_column(col, sizeof col, in->codec_chunks + (size_t)m * in->ncodecs);
    if (ms->has_error) snprintf(e1, sizeof e1, "%.4g", ms->max_abs_error);
    if (ms->has_error && !isnan(ms->max_rel_error))
      snprintf(e2, sizeof e2, "%.3g", ms->max_rel_error);
    if (ms->has_sum_error) snprintf(e3, sizeof e3, "%.2g", ms->max_sum_error);
    fprintf(f, "  %-12s %-6s %-14s %-9s %-16s %11lld %10s %9s %9s\n", mi.name, mi.unit,
            lbs_bound_format(mi.bound, b), lbs_codec_name(mi.codec), col,
            (long long)ms->stored_bytes, e1, e2, e3);
  }
  if (!values) return;
  fprintf(f, "values    stored, over all steps\n  %-12s %12s %12s %12s %12s %9s %9s\n", "name",
          "min", "median", "p99", "max", "negative", "nonfinite");
  for (int m = 0; m < in->nmetrics; m++) {
    const lbs_value_stats *vs = &in->values[m];
    lbs_metric_info mi;
    lbs_trace_metric(t, m, &mi);
    fprintf(f, "  %-12s %12.5g %12.5g %12.5g %12.5g %9lld %9lld\n", mi.name, vs->min, vs->median,
            vs->p99, vs->max, (long long)vs->negative, (long long)vs->nonfinite);
  }
}

void lbs_trace_info_free(lbs_trace_info *info) {
  free(info->metric), free(info->values), free(info->warning), free(info->codec_chunks);
  info->metric = NULL, info->values = NULL, info->warning = NULL, info->codec_chunks = NULL;
}

/* ---------------------------------------------------------------- JSON */

/* A measured error: null when not known. */
static json_t *json_known(int known, double v) { return known ? lbs_json_real(v) : json_null(); }

/* The four errors the writer measured. 0, or -1 when out of memory. */
static int json_errors(json_t *o, const lbs_trace_stats *st) {
  return lbs_json_set(o, "max_abs_error", json_known(st->has_error, st->max_abs_error)) ||
         lbs_json_set(o, "rms_error", json_known(st->has_error, st->rms_error)) ||
         lbs_json_set(o, "max_rel_error",
                      json_known(st->has_error && !isnan(st->max_rel_error), st->max_rel_error)) ||
         lbs_json_set(o, "max_sum_error", json_known(st->has_sum_error, st->max_sum_error));
}

/* A profiled run's profiler.* keys (profiler/collector.c), the application's own (app.*) and its
 * recorded element owners (the first step of each assignment), when the trace has them. 0, or -1
 * when out of memory. */
static int json_meta(json_t *o, lbs_trace *t) {
  static const char *const pk[] = {"ranks",     "nodes",    "sample_every",  "on_full",
                                   "bound",     "complete", "dropped_steps", "incomplete_steps",
                                   "lost_ranks"};
  int bad = 0;
  if (lbs_trace_meta(t, "profiler.ranks")) {
    json_t *prof = json_object();
    bad = lbs_json_set(o, "profiler", json_incref(prof));
    for (size_t k = 0; !bad && k < sizeof pk / sizeof *pk; k++) {
      char key[64];
      snprintf(key, sizeof key, "profiler.%s", pk[k]);
      bad = lbs_json_set(prof, pk[k], lbs_json_str_or_null(lbs_trace_meta(t, key)));
    }
    json_decref(prof);
  }
  if (!bad && lbs_trace_meta(t, "denoise")) /* trace recode --denoise's rules */
    bad = lbs_json_set(o, "denoise", lbs_json_str(lbs_trace_meta(t, "denoise")));
  if (!bad && lbs_trace_edge_weights_vary(t)) /* the edge rule (edges.c) */
    bad = lbs_json_set(o, "edge_weight", lbs_json_str(lbs_trace_meta(t, "edge_weight")));
  json_t *app = NULL;
  for (int k = 0; !bad && k < lbs_trace_meta_count(t); k++) {
    const char *key = lbs_trace_meta_key(t, k);
    if (strncmp(key, "app.", 4)) continue;
    if (!app) bad = lbs_json_set(o, "app", json_incref(app = json_object()));
    if (!bad) bad = lbs_json_set(app, key + 4, lbs_json_str(lbs_trace_meta(t, key)));
  }
  json_decref(app);
  int64_t na = lbs_trace_owners_count(t);
  if (!bad && na > 0) { /* "owners": {"assignments": N, "steps": [first step of each]} */
    json_t *own = json_object(), *steps = json_array();
    bad = lbs_json_set(o, "owners", json_incref(own)) ||
          lbs_json_set(own, "assignments", lbs_json_int(na)) ||
          lbs_json_set(own, "steps", json_incref(steps));
    for (int64_t i = 0; !bad && i < na; i++)
      bad = json_array_append_new(steps, lbs_json_int(lbs_trace_owners_step(t, i)));
    json_decref(own), json_decref(steps);
  }
  int64_t npin = 0; /* "pinned": elements that never move, when any */
  if (!bad && !lbs_trace_pinned(t, NULL, &npin) && npin > 0)
    bad = lbs_json_set(o, "pinned", lbs_json_int(npin));
  return bad ? -1 : 0;
}

/* The per-rank events, when the trace has them: "events": {"ranks": R, "names": [...], "total_s":
 * [each one's sum over the steps and ranks], "steps": the steps that have events}. 0, or -1 when
 * out of memory or a step's events cannot be read. */
static int json_events(json_t *o, lbs_trace *t) {
  int K = lbs_trace_nevents(t);
  double tot[LBS_TRACE_MAX_EVENTS];
  int64_t evs;
  if (!K) return 0;
  if (event_totals(t, tot, &evs)) return -1;
  json_t *ev = json_object(), *names = json_array(), *totals = json_array();
  int bad = lbs_json_set(o, "events", json_incref(ev)) ||
            lbs_json_set(ev, "ranks", lbs_json_int(lbs_trace_event_ranks(t))) ||
            lbs_json_set(ev, "names", json_incref(names)) ||
            lbs_json_set(ev, "total_s", json_incref(totals)) ||
            lbs_json_set(ev, "steps", lbs_json_int(evs));
  for (int k = 0; !bad && k < K; k++)
    bad = json_array_append_new(names, lbs_json_str(lbs_trace_event_name(t, k))) ||
          json_array_append_new(totals, lbs_json_real(tot[k]));
  json_decref(ev), json_decref(names), json_decref(totals);
  return bad ? -1 : 0;
}

/* Metric m: its name, unit, codec, bound, chunks per codec, sizes, errors and values. */
static json_t *json_metric(const lbs_trace *t, const lbs_trace_info *info, int m, int values) {
  lbs_metric_info mi;
  char b[LBS_BOUND_STRLEN];
  lbs_trace_metric(t, m, &mi);
  const lbs_value_stats *vs = &info->values[m];
  json_t *x = json_object(), *chunks = json_object();
  int bad = lbs_json_set(x, "name", lbs_json_str(mi.name)) ||
            lbs_json_set(x, "unit", lbs_json_str(mi.unit)) ||
            lbs_json_set(x, "codec", json_string(lbs_codec_name(mi.codec))) ||
            lbs_json_set(x, "bound", lbs_json_str(lbs_bound_format(mi.bound, b))) ||
            lbs_json_set(x, "error_bound", lbs_json_real(mi.bound.eps)) ||
            lbs_json_set(x, "chunks", json_incref(chunks));
  for (int k = 0; !bad && k < info->ncodecs; k++) /* each stored codec's chunks, in id order */
    bad = lbs_json_set(chunks, lbs_codec_name(lbs_codec_at(k)),
                       lbs_json_int(info->codec_chunks[(size_t)m * info->ncodecs + k]));
  json_decref(chunks);
  if (!bad)
    bad = lbs_json_set(x, "chunk_bytes", lbs_json_int(info->metric[m].stored_bytes)) ||
          json_errors(x, &info->metric[m]);
  if (!bad && !values)
    bad = lbs_json_set(x, "values", json_null());
  else if (!bad)
    bad = lbs_json_set(x, "values",
                       json_pack("{s:I,s:I,s:I,s:I,s:I,s:o,s:o,s:o,s:o}", "count",
                                 (json_int_t)vs->values, "finite", (json_int_t)vs->finite,
                                 "negative", (json_int_t)vs->negative, "zero", (json_int_t)vs->zero,
                                 "nonfinite", (json_int_t)vs->nonfinite, "min",
                                 lbs_json_real(vs->min), "median", lbs_json_real(vs->median), "p99",
                                 lbs_json_real(vs->p99), "max", lbs_json_real(vs->max)));
  if (bad) json_decref(x), x = NULL;
  return x;
}

json_t *lbs_trace_info_json(lbs_trace *t, const char *path, const lbs_trace_info *info,
                            int values) {
  int64_t file = lbs_trace_file_bytes(t);
  double ratio = file > 0 ? (double)info->all.raw_bytes / (double)file : NAN;
  json_t *o = json_object(), *metrics = json_array(), *warnings = json_array();
  int bad = lbs_json_set(o, "path", lbs_json_str(path)) ||
            lbs_json_set(o, "elements", lbs_json_int(lbs_trace_elements(t))) ||
            lbs_json_set(o, "steps", lbs_json_int(lbs_trace_steps(t))) ||
            lbs_json_set(o, "chunk_elems", lbs_json_int(lbs_trace_chunk_elems(t))) ||
            lbs_json_set(o, "schema_version", lbs_json_int(lbs_trace_schema_version(t))) ||
            lbs_json_set(o, "mesh", lbs_json_str(info->mesh)) ||
            lbs_json_set(o, "source", lbs_json_str_or_null(lbs_trace_meta(t, "source"))) ||
            json_meta(o, t) || json_events(o, t) ||
            lbs_json_set(o, "metrics", json_incref(metrics));
  for (int m = 0; !bad && m < info->nmetrics; m++)
    bad = json_array_append_new(metrics, json_metric(t, info, m, values));
  if (!bad)
    bad = lbs_json_set(o, "raw_bytes", lbs_json_int(info->all.raw_bytes)) ||
          lbs_json_set(o, "stored_bytes", lbs_json_int(file)) ||
          lbs_json_set(o, "chunk_bytes", lbs_json_int(info->all.stored_bytes)) ||
          lbs_json_set(o, "ratio", lbs_json_real(ratio)) || json_errors(o, &info->all) ||
          lbs_json_set(o, "warnings", json_incref(warnings));
  for (int m = 0; !bad && m < info->nmetrics; m++)
    if (info->warning[m][0]) bad = json_array_append_new(warnings, lbs_json_str(info->warning[m]));
  json_decref(metrics), json_decref(warnings);
  if (bad) json_decref(o), o = NULL;
  return o;
}
