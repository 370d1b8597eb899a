/* recode.c - a trace written again with other error bounds, codecs or chunk size (lbs_traces.h):
 * what `lbsim trace recode` does. */
#include <stdlib.h>
#include <string.h>

#include "lbs_traces.h"

/* Every metric's spec under enc (names and units borrowed from t); names gets the names. */
static lbs_err specs(lbs_trace *t, const lbs_encoding *enc, lbs_metric_spec *ms,
                     const char **names) {
  int nm = lbs_trace_nmetrics(t);
  lbs_bound dflt;
  lbs_bound_parse(LBS_BOUND_DEFAULT, &dflt);
  lbs_err e = LBS_OK;
  for (int m = 0; m < nm && !e; m++) {
    lbs_metric_info mi;
    lbs_trace_metric(t, m, &mi);
    names[m] = mi.name;
    ms[m] = (lbs_metric_spec){mi.name, mi.unit, LBS_CODEC_DEFAULT, dflt, {0, 0}};
    e = lbs_encoding_resolve(enc, mi.name, LBS_CODEC_DEFAULT, dflt, &ms[m].codec, &ms[m].bound);
  }
  if (!e) e = lbs_encoding_check_names(enc, names, nm);
  return e;
}

lbs_err lbs_trace_recode_check(lbs_trace *t, const lbs_encoding *enc) {
  int nm = lbs_trace_nmetrics(t);
  lbs_metric_spec *ms = calloc((size_t)nm, sizeof *ms);
  const char **names = calloc((size_t)nm, sizeof *names);
  lbs_err e = !ms || !names ? lbs_fail(LBS_NOMEM, "%d metrics", nm) : specs(t, enc, ms, names);
  free(ms), free(names);
  return e;
}

/* Metadata the writer sets itself, or that describes the stored chunks: not copied. */
static int own_meta(const char *key) {
  static const char *const own[] = {"format", "schema_version", "elements", "chunk_elems",
                                    "events", "events.ranks",   NULL};
  for (int i = 0; own[i]; i++)
    if (!strcmp(key, own[i])) return 1;
  return !strncmp(key, "mesh.", 5);
}

/* The input's metadata, less what the writer sets itself; where it came from. `source` lets
 * trace check regenerate the values: it stays only when the input held them exactly and no rule
 * changes them (else the check would count the input's errors or the rule's changes too); kept
 * as recoded_source. denoise (NULL: none): the rules the new file's values went through, which
 * replace the input's denoise key. meta gets 2 x its count. */
static int meta_of(lbs_trace *t, const char *in_path, const char *denoise, const char **meta) {
  int k = 0, exact = !denoise, nm = lbs_trace_nmetrics(t);
  for (int m = 0; m < nm; m++) {
    lbs_metric_info mi;
    lbs_trace_metric(t, m, &mi);
    exact &= mi.bound.kind == LBS_BOUND_LOSSLESS;
  }
  for (int i = 0; i < lbs_trace_meta_count(t); i++) {
    const char *key = lbs_trace_meta_key(t, i);
    if (own_meta(key) || !strcmp(key, "recoded_from") ||
        (!exact && !strcmp(key, "recoded_source")) || (denoise && !strcmp(key, "denoise")))
      continue;
    meta[2 * k] = !exact && !strcmp(key, "source") ? "recoded_source" : key,
             meta[2 * k + 1] = lbs_trace_meta(t, key);
    k++;
  }
  if (denoise) meta[2 * k] = "denoise", meta[2 * k + 1] = denoise, k++;
  meta[2 * k] = "recoded_from", meta[2 * k + 1] = in_path;
  return k + 1;
}

/* The denoise key: the input's rules, then dn's ("time_ns=spike:3:3; weight=median:5"), into
 * buf; NULL when dn has none. */
static const char *denoise_text(lbs_trace *t, const lbs_denoise *dn, int ndn, char *buf, size_t n) {
  if (!ndn) return NULL;
  const char *had = lbs_trace_meta(t, "denoise");
  snprintf(buf, n, "%s", had ? had : "");
  for (int k = 0; k < ndn; k++) {
    char one[128];
    size_t len = strlen(buf);
    snprintf(buf + len, n - len, "%s%s", len ? "; " : "",
             lbs_denoise_format(&dn[k], one, sizeof one));
  }
  return buf;
}

/* A denoised metric's window: the W steps around the one being written, each in the slot
 * step % W of ring (W x E values), have[slot] the step it holds (-1: none). */
typedef struct window {
  lbs_denoise *d;
  int m;
  double *ring;
  int64_t have[LBS_DENOISE_MAX_WINDOW];
} window;

/* Metric m of step s into out: read, or through its window's rule. */
static lbs_err read_metric(lbs_trace *t, window *wins, int nwin, int64_t s, int m, double *out) {
  int64_t E = lbs_trace_elements(t), lo, hi;
  window *w = NULL;
  for (int k = 0; k < nwin; k++)
    if (wins[k].m == m) w = &wins[k];
  if (!w) return lbs_trace_read(t, s, m, 0, E, out);
  int W = w->d->window;
  lbs_denoise_window(W, s, lbs_trace_steps(t), &lo, &hi);
  const double *cols[LBS_DENOISE_MAX_WINDOW];
  int self = 0;
  for (int64_t st = lo; st <= hi; st++) {
    int slot = (int)(st % W);
    double *v = w->ring + (int64_t)slot * E;
    if (w->have[slot] != st) {
      w->have[slot] = -1;
      lbs_err e = lbs_trace_read(t, st, m, 0, E, v);
      if (e) return e;
      w->have[slot] = st;
    }
    if (st == s) self = (int)(st - lo);
    cols[st - lo] = v;
  }
  w->d->changed += lbs_denoise_apply(w->d, cols, (int)(hi - lo + 1), self, E, out);
  return LBS_OK;
}

/* The per-rank events' declaration (lbs_trace_writer_set_events), as t has it. */
static lbs_err copy_event_names(lbs_trace *t, lbs_trace_writer *w) {
  int k = lbs_trace_nevents(t);
  const char *names[LBS_TRACE_MAX_EVENTS];
  for (int i = 0; i < k; i++) names[i] = lbs_trace_event_name(t, i);
  return k ? lbs_trace_writer_set_events(w, k, names, lbs_trace_event_ranks(t)) : LBS_OK;
}

/* Step s's events, when it has some, for the step about to be written. */
static lbs_err copy_step_events(lbs_trace *t, lbs_trace_writer *w, int64_t s) {
  int64_t n = (int64_t)lbs_trace_nevents(t) * lbs_trace_event_ranks(t);
  if (!n) return LBS_OK;
  double *ev = malloc((size_t)n * sizeof *ev);
  int have = 0;
  lbs_err e = ev ? lbs_trace_read_events(t, s, ev, &have) : lbs_fail(LBS_NOMEM, "events");
  if (!e && have) e = lbs_trace_step_events(w, ev);
  free(ev);
  return e;
}

/* Every step of t read and written to w; a read error closes w (the steps before it kept). */
static lbs_err copy_steps(lbs_trace *t, lbs_trace_writer **w, window *wins, int nwin, double *vals,
                          const double **cols, lbs_progress_fn progress, void *arg, int64_t *kept) {
  int nm = lbs_trace_nmetrics(t);
  int64_t E = lbs_trace_elements(t), S = lbs_trace_steps(t);
  lbs_err e = LBS_OK;
  for (int64_t s = 0; s < S && !e; s++) {
    int64_t app;
    lbs_trace_app_step(t, s, &app);
    for (int m = 0; m < nm && !e; m++) e = read_metric(t, wins, nwin, s, m, vals + (int64_t)m * E);
    if (!e) e = copy_step_events(t, *w, s);
    if (e) {
      char why[1024];
      snprintf(why, sizeof why, "%s", lbs_errmsg());
      lbs_trace_writer_close(w);
      if (kept) *kept = s;
      return lbs_fail(e, "%s", why);
    }
    e = lbs_trace_write_step(*w, app, cols);
    if (progress) progress(arg, s + 1, S);
  }
  return e;
}

/* The recorded assignments (an application that migrated elements), as they are. */
static lbs_err copy_owners(lbs_trace *t, lbs_trace_writer *w) {
  int64_t n = lbs_trace_owners_count(t);
  if (!n) return LBS_OK;
  int64_t *owner = malloc((size_t)lbs_trace_elements(t) * sizeof *owner);
  lbs_err e = owner ? LBS_OK : lbs_fail(LBS_NOMEM, "recorded owners");
  for (int64_t i = 0; i < n && !e; i++)
    if (!(e = lbs_trace_owners_read(t, i, owner)))
      e = lbs_trace_write_owners(w, lbs_trace_owners_step(t, i), owner);
  free(owner);
  return e;
}

/* The pinned elements (a vt task that is not migratable), as they are. */
static lbs_err copy_pinned(lbs_trace *t, lbs_trace_writer *w) {
  int64_t E = lbs_trace_elements(t), n = 0;
  unsigned char *pin = malloc((size_t)E + 1);
  int64_t *v = malloc((size_t)(E + 1) * sizeof *v);
  lbs_err e = pin && v ? lbs_trace_pinned(t, pin, &n) : lbs_fail(LBS_NOMEM, "pinned elements");
  for (int64_t i = 0; !e && n && i < E; i++) v[i] = pin[i];
  if (!e && n) e = lbs_trace_write_pinned(w, v);
  free(pin), free(v);
  return e;
}

/* Arc weights stored per step (edge_weight = stored@step), as they are: each array at the step
 * it comes into force (an array no step reaches is not worth copying). */
static lbs_err copy_edge_weights(lbs_trace *t, lbs_trace_writer *w) {
  const int64_t *xadj, *adj;
  const double *adjw;
  if (!lbs_trace_edge_weights_stored(t) || !lbs_trace_mesh(t) ||
      lbs_mesh_graph(lbs_trace_mesh(t), &xadj, &adj, &adjw))
    return LBS_OK;
  int64_t ne = xadj[lbs_trace_elements(t)], from;
  double *cw = malloc((size_t)(ne + 1) * sizeof *cw);
  lbs_err e = cw ? LBS_OK : lbs_fail(LBS_NOMEM, "edge weights of %lld arcs", (long long)ne);
  for (int64_t s = 0; !e && s < lbs_trace_steps(t); s++)
    if (!(e = lbs_trace_edge_weights_slice(t, s, 0, ne, cw, &from)) && from == s)
      e = lbs_trace_write_edge_weights(w, s, cw);
  free(cw);
  return e;
}

/* The windows of dn's rules over t's metrics: LBS_NOTFOUND for a metric t lacks, LBS_INVAL for
 * two rules on one metric, LBS_NOMEM. wins gets ndn entries (rings allocated when alloc). */
static lbs_err windows(lbs_trace *t, lbs_denoise *dn, int ndn, window *wins, int alloc) {
  for (int k = 0; k < ndn; k++) {
    int m = lbs_trace_metric_find(t, dn[k].metric);
    if (m < 0) {
      char known[512] = "";
      for (int j = 0; j < lbs_trace_nmetrics(t); j++) {
        lbs_metric_info mi;
        lbs_trace_metric(t, j, &mi);
        snprintf(known + strlen(known), sizeof known - strlen(known), " %s", mi.name);
      }
      return lbs_fail(LBS_NOTFOUND, "--denoise: no metric '%s' (metrics:%s)", dn[k].metric, known);
    }
    for (int j = 0; j < k; j++)
      if (wins[j].m == m)
        return lbs_fail(LBS_INVAL, "--denoise: two rules for metric '%s'", dn[k].metric);
    wins[k] = (window){.d = &dn[k], .m = m};
    for (int j = 0; j < LBS_DENOISE_MAX_WINDOW; j++) wins[k].have[j] = -1;
    dn[k].changed = 0;
    if (alloc && !(wins[k].ring = malloc((size_t)(dn[k].window * lbs_trace_elements(t)) *
                                         sizeof *wins[k].ring)))
      return lbs_fail(LBS_NOMEM, "--denoise %s: %d steps of %lld elements", dn[k].metric,
                      dn[k].window, (long long)lbs_trace_elements(t));
  }
  return LBS_OK;
}

lbs_err lbs_trace_denoise_check(lbs_trace *t, lbs_denoise *dn, int ndn) {
  window wins[LBS_DENOISE_MAX_RULES];
  if (ndn > LBS_DENOISE_MAX_RULES)
    return lbs_fail(LBS_RANGE, "--denoise: at most %d rules", LBS_DENOISE_MAX_RULES);
  return windows(t, dn, ndn, wins, 0);
}

lbs_err lbs_trace_recode(lbs_trace *t, const char *in_path, const lbs_encoding *enc,
                         int64_t chunk_elems, lbs_denoise *dn, int ndn, const char *out_path,
                         lbs_progress_fn progress, void *arg, int64_t *kept) {
  int nm = lbs_trace_nmetrics(t), nmeta = lbs_trace_meta_count(t);
  int64_t E = lbs_trace_elements(t);
  if (kept) *kept = -1;
  window wins[LBS_DENOISE_MAX_RULES] = {0};
  char dtext[2048];
  lbs_err e = lbs_trace_denoise_check(t, dn, ndn);
  if (e) return e;
  lbs_metric_spec *ms = calloc((size_t)nm, sizeof *ms);
  const char **names = calloc((size_t)nm, sizeof *names),
             **meta = calloc((size_t)(2 * nmeta + 4), sizeof *meta);
  double *vals = malloc((size_t)(E * nm) * sizeof *vals);
  const double **cols = calloc((size_t)nm, sizeof *cols);
  lbs_trace_writer *w = NULL;
  e = !ms || !names || !meta || !vals || !cols ? lbs_fail(LBS_NOMEM, "%lld elements", (long long)E)
                                               : LBS_OK;
  if (!e) e = specs(t, enc, ms, names);
  if (!e) e = windows(t, dn, ndn, wins, 1);
  for (int m = 0; m < nm && !e; m++) cols[m] = vals + (int64_t)m * E;
  if (!e) {
    lbs_trace_spec spec = {E,
                           chunk_elems ? chunk_elems : lbs_trace_chunk_elems(t),
                           nm,
                           ms,
                           lbs_trace_mesh(t),
                           meta_of(t, in_path, denoise_text(t, dn, ndn, dtext, sizeof dtext), meta),
                           meta};
    e = lbs_trace_create(out_path, &spec, &w);
  }
  if (!e) e = copy_owners(t, w);
  if (!e) e = copy_pinned(t, w);
  if (!e) e = copy_edge_weights(t, w);
  if (!e) e = copy_event_names(t, w);
  if (!e) e = copy_steps(t, &w, wins, ndn, vals, cols, progress, arg, kept);
  if (!e) e = lbs_trace_writer_close(&w);
  lbs_trace_writer_close(&w);
  for (int k = 0; k < ndn; k++) free(wins[k].ring);
  free(ms), free(names), free(vals), free(cols), free(meta);
  return e;
}
