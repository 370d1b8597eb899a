/* report.c - a pipeline's laws as `lbsim pipeline` reports them: the mappings asked for, a
 * mapping's copies on a processor in words, the whole as text, JSON or CSV (lbs_pipeline.h). */
#include <stdlib.h>
#include <string.h>

#include "lbs_json.h"
#include "lbs_pipeline.h"

lbs_err lbs_pipeline_select(const lbs_pipeline *p, const char *list, int *sel, int *nsel) {
  int nm = lbs_pipeline_nmappings(p), n = 0;
  *nsel = 0;
  if (!list) {
    for (int m = 0; m < nm; m++) sel[n++] = m;
    return *nsel = n, LBS_OK;
  }
  char *copy = strdup(list);
  if (!copy) return lbs_fail(LBS_NOMEM, "out of memory");
  lbs_err e = LBS_OK;
  for (char *save = NULL, *w = strtok_r(copy, ",", &save); w && !e;
       w = strtok_r(NULL, ",", &save)) {
    int m = 0;
    while (m < nm && strcmp(lbs_pipeline_mapping_name(p, m), w)) m++;
    if (m < nm && n < nm) {
      sel[n++] = m;
      continue;
    }
    lbs_buf known = {0};
    for (int i = 0; i < nm; i++) {
      lbs_buf_append(&known, " ", 1);
      lbs_buf_append(&known, lbs_pipeline_mapping_name(p, i),
                     strlen(lbs_pipeline_mapping_name(p, i)));
    }
    lbs_buf_append(&known, "", 1);
    e = lbs_fail(LBS_NOTFOUND, "--mappings: %s '%s' (known:%s)",
                 m == nm ? "no mapping" : "too many, at", w,
                 known.data ? (const char *)known.data : "");
    lbs_buf_free(&known);
  }
  free(copy);
  if (!e && !n) e = lbs_fail(LBS_NOTFOUND, "--mappings: no mapping named");
  *nsel = n;
  return e;
}

void lbs_pipeline_copies_text(FILE *f, const lbs_pipeline *p, int m, int k) {
  int n, first = 1;
  const lbs_pipeline_copy *c = lbs_pipeline_mapping_copies(p, m, &n);
  for (int i = 0; i < n; i++) {
    if (c[i].proc != k) continue;
    fprintf(f, "%s%s", first ? "" : " ", lbs_pipeline_block_name(p, c[i].block));
    if (c[i].share != 1) fprintf(f, "*%.6g", c[i].share);
    first = 0;
  }
}

void lbs_pipeline_write_text(FILE *f, const lbs_pipeline *p, const int *sel, int nsel) {
  double N = (double)lbs_pipeline_jobs(p);
  fprintf(f, "pipeline %s: %lld jobs, think time %g s\n", lbs_pipeline_name(p),
          lbs_pipeline_jobs(p), lbs_pipeline_think_s(p));
  fprintf(f, "  %-12s %14s\n", "block", "demand s/job");
  for (int b = 0; b < lbs_pipeline_nblocks(p); b++)
    fprintf(f, "  %-12s %14.6g\n", lbs_pipeline_block_name(p, b),
            lbs_pipeline_block_demand_s(p, b));
  for (int i = 0; i < lbs_pipeline_nbuffers(p); i++) {
    int a, b;
    long long cap;
    lbs_pipeline_buffer(p, i, &a, &b, &cap);
    fprintf(f, "  buffer %s -> %s: ", lbs_pipeline_block_name(p, a), lbs_pipeline_block_name(p, b));
    if (cap)
      fprintf(f, "%lld jobs\n", cap);
    else
      fprintf(f, "unbounded\n");
  }
  if (lbs_pipeline_nbuffers(p))
    fprintf(f, "  (the laws assume no buffer fills: X is an upper bound)\n");
  for (int j = 0; j < nsel; j++) {
    int m = sel[j];
    const lbs_pipeline_law *L = lbs_pipeline_mapping_law(p, m);
    fprintf(f, "\nmapping %s\n  %-12s %14s %12s %12s  %s\n", lbs_pipeline_mapping_name(p, m),
            "processor", "demand s/job", "utilisation", "busy s", "copies");
    for (int k = 0; k < lbs_pipeline_nprocs(p); k++) {
      if (!L->used[k]) continue;
      fprintf(f, "  %-12s %14.6g %11.4f%% %12.6g  ", lbs_pipeline_proc_name(p, k), L->demand_s[k],
              100 * L->util[k], N * L->demand_s[k]);
      lbs_pipeline_copies_text(f, p, m, k);
      fprintf(f, "%s\n", k == L->bottleneck ? "  <- bottleneck" : "");
    }
  }
  fprintf(f, "\n%-10s %5s  %-12s %14s %14s %12s %14s\n", "mapping", "procs", "bottleneck",
          "Dmax s/job", "X jobs/s", "R s", "balanced X");
  for (int j = 0; j < nsel; j++) {
    const lbs_pipeline_law *L = lbs_pipeline_mapping_law(p, sel[j]);
    fprintf(f, "%-10s %5d  %-12s %14.6g %14.6g %12.6g %14.6g\n",
            lbs_pipeline_mapping_name(p, sel[j]), L->nused,
            lbs_pipeline_proc_name(p, L->bottleneck), L->dmax_s, L->throughput, L->response_s,
            L->balanced);
  }
}

void lbs_pipeline_write_csv(FILE *f, const lbs_pipeline *p, const int *sel, int nsel) {
  double N = (double)lbs_pipeline_jobs(p);
  fprintf(
      f,
      "mapping,processor,speed,demand_s,utilization,busy_s,bottleneck,copies,dmax_s,total_demand_s,"
      "throughput_jobs_per_s,response_s,balanced_jobs_per_s\n");
  for (int j = 0; j < nsel; j++) {
    int m = sel[j];
    const lbs_pipeline_law *L = lbs_pipeline_mapping_law(p, m);
    for (int k = 0; k < lbs_pipeline_nprocs(p); k++) {
      if (!L->used[k]) continue;
      lbs_csv_field(f, lbs_pipeline_mapping_name(p, m));
      fputc(',', f);
      lbs_csv_field(f, lbs_pipeline_proc_name(p, k));
      fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%d,", lbs_pipeline_proc_speed(p, k), L->demand_s[k],
              L->util[k], N * L->demand_s[k], k == L->bottleneck);
      lbs_pipeline_copies_text(f, p, m, k); /* block names and numbers: no comma */
      fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g\n", L->dmax_s, L->total_s, L->throughput,
              L->response_s, L->balanced);
    }
  }
}

/* The pipeline's blocks, processors and buffers into o. 0, or -1 when out of memory. */
static int parts_json(json_t *o, const lbs_pipeline *p) {
  json_t *blocks = json_array(), *procs = json_array(), *bufs = json_array();
  int bad = lbs_json_set(o, "blocks", json_incref(blocks)) ||
            lbs_json_set(o, "processors", json_incref(procs)) ||
            lbs_json_set(o, "buffers", json_incref(bufs));
  for (int b = 0; !bad && b < lbs_pipeline_nblocks(p); b++) {
    json_t *x = json_object();
    bad = json_array_append_new(blocks, x) ||
          lbs_json_set(x, "name", lbs_json_str(lbs_pipeline_block_name(p, b))) ||
          lbs_json_set(x, "demand_s", lbs_json_real(lbs_pipeline_block_demand_s(p, b)));
  }
  for (int k = 0; !bad && k < lbs_pipeline_nprocs(p); k++) {
    json_t *x = json_object();
    bad = json_array_append_new(procs, x) ||
          lbs_json_set(x, "name", lbs_json_str(lbs_pipeline_proc_name(p, k))) ||
          lbs_json_set(x, "speed", lbs_json_real(lbs_pipeline_proc_speed(p, k)));
  }
  for (int i = 0; !bad && i < lbs_pipeline_nbuffers(p); i++) {
    int a, b;
    long long cap;
    lbs_pipeline_buffer(p, i, &a, &b, &cap);
    json_t *x = json_object();
    bad = json_array_append_new(bufs, x) ||
          lbs_json_set(x, "from", lbs_json_str(lbs_pipeline_block_name(p, a))) ||
          lbs_json_set(x, "to", lbs_json_str(lbs_pipeline_block_name(p, b))) ||
          lbs_json_set(x, "capacity", lbs_json_int(cap));
  }
  json_decref(blocks), json_decref(procs), json_decref(bufs);
  return bad ? -1 : 0;
}

/* Processor k under mapping m: its demand, utilisation, busy time and copies. */
static json_t *used_json(const lbs_pipeline *p, int m, int k) {
  const lbs_pipeline_law *L = lbs_pipeline_mapping_law(p, m);
  int n;
  const lbs_pipeline_copy *c = lbs_pipeline_mapping_copies(p, m, &n);
  json_t *u = json_object(), *copies = json_array();
  int bad =
      lbs_json_set(u, "name", lbs_json_str(lbs_pipeline_proc_name(p, k))) ||
      lbs_json_set(u, "demand_s", lbs_json_real(L->demand_s[k])) ||
      lbs_json_set(u, "utilization", lbs_json_real(L->util[k])) ||
      lbs_json_set(u, "busy_s", lbs_json_real((double)lbs_pipeline_jobs(p) * L->demand_s[k])) ||
      lbs_json_set(u, "bottleneck", json_boolean(k == L->bottleneck)) ||
      lbs_json_set(u, "copies", json_incref(copies));
  for (int i = 0; !bad && i < n; i++) {
    if (c[i].proc != k) continue;
    json_t *y = json_object();
    bad = json_array_append_new(copies, y) ||
          lbs_json_set(y, "block", lbs_json_str(lbs_pipeline_block_name(p, c[i].block))) ||
          lbs_json_set(y, "share", lbs_json_real(c[i].share));
  }
  json_decref(copies);
  if (bad) json_decref(u), u = NULL;
  return u;
}

/* Mapping m: its laws and the processors it uses. */
static json_t *mapping_json(const lbs_pipeline *p, int m) {
  const lbs_pipeline_law *L = lbs_pipeline_mapping_law(p, m);
  json_t *x = json_object(), *used = json_array();
  int bad = lbs_json_set(x, "name", lbs_json_str(lbs_pipeline_mapping_name(p, m))) ||
            lbs_json_set(x, "bottleneck", lbs_json_str(lbs_pipeline_proc_name(p, L->bottleneck))) ||
            lbs_json_set(x, "dmax_s", lbs_json_real(L->dmax_s)) ||
            lbs_json_set(x, "total_demand_s", lbs_json_real(L->total_s)) ||
            lbs_json_set(x, "throughput_jobs_per_s", lbs_json_real(L->throughput)) ||
            lbs_json_set(x, "response_s", lbs_json_real(L->response_s)) ||
            lbs_json_set(x, "balanced_jobs_per_s", lbs_json_real(L->balanced)) ||
            lbs_json_set(x, "processors", json_incref(used));
  for (int k = 0; !bad && k < lbs_pipeline_nprocs(p); k++)
    if (L->used[k]) bad = json_array_append_new(used, used_json(p, m, k));
  json_decref(used);
  if (bad) json_decref(x), x = NULL;
  return x;
}

json_t *lbs_pipeline_json(const lbs_pipeline *p, const int *sel, int nsel) {
  json_t *o = json_object(), *maps = json_array();
  int bad = lbs_json_set(o, "name", lbs_json_str(lbs_pipeline_name(p))) ||
            lbs_json_set(o, "jobs", lbs_json_int(lbs_pipeline_jobs(p))) ||
            lbs_json_set(o, "think_s", lbs_json_real(lbs_pipeline_think_s(p))) ||
            parts_json(o, p) || lbs_json_set(o, "mappings", json_incref(maps));
  for (int j = 0; !bad && j < nsel; j++) bad = json_array_append_new(maps, mapping_json(p, sel[j]));
  json_decref(maps);
  if (bad) json_decref(o), o = NULL;
  return o;
}
