/* record.c - what calibration jobs leave in the database: the machine a run measured, an IA
 * job's IPG with its parameters, samples imported from elsewhere, a verification's errors
 * (lbs_calib_run.h). What `lbsim calibrate run`, `import` and `verify` store. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lbs_calib_run.h"
#include "lbs_json.h"

#ifndef LBSIM_VERSION
#define LBSIM_VERSION "unknown" /* calibrate/CMakeLists.txt passes PROJECT_VERSION */
#endif

char *lbs_calib_machine_json(void) {
  char host[256] = "?", model[256] = "?", line[512], os[256];
  gethostname(host, sizeof host - 1);
  FILE *f = fopen("/proc/cpuinfo", "r");
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
      snprintf(model, sizeof model, "%s", strchr(line, ':') + 2);
      model[strcspn(model, "\n")] = 0;
      break;
    }
  if (f) fclose(f);
  struct utsname u;
  if (uname(&u)) memset(&u, 0, sizeof u);
  snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, u.machine);
  json_t *o = json_pack("{s:o,s:o,s:I,s:o,s:s}", "host", lbs_json_str(host), "cpu",
                        lbs_json_str(model), "cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN),
                        "os", lbs_json_str(os), "lbsim", LBSIM_VERSION);
  char *txt = lbs_json_dumps(o, LBS_JSON_SPACED);
  json_decref(o);
  return txt;
}

/* A bound's percent, floor and ceiling as %g shows them. */
static json_t *bound_json(lbs_ia_bound b) {
  return json_pack("[o,o,o]", lbs_json_sig(b.pct, 6), lbs_json_sig(b.min_s, 6),
                   lbs_json_sig(b.max_s, 6));
}

/* The heuristic's parameters as JSON text (ipgs.params); NULL when out of memory. */
static char *params_json(const lbs_ia_opts *o) {
  json_t *j = json_pack("{s:o,s:i,s:o,s:o,s:o,s:o,s:i,s:o,s:i}", "accuracy",
                        bound_json(o->accuracy), "window", o->window, "sets", bound_json(o->sets),
                        "mets", bound_json(o->mets), "ci", bound_json(o->ci), "confidence",
                        lbs_json_sig(o->confidence, 6), "max_point_samples", o->max_point_samples,
                        "set", bound_json(o->set), "max_samples", o->max_samples);
  char *txt = lbs_json_dumps(j, LBS_JSON_SPACED);
  json_decref(j);
  return txt;
}

char *lbs_calib_import_params_json(const lbs_ia_bound *acc) {
  json_t *pj = json_pack("{s:o,s:b}", "accuracy", bound_json(*acc), "imported", 1);
  char *params = lbs_json_dumps(pj, LBS_JSON_SPACED);
  json_decref(pj);
  return params;
}

lbs_err lbs_calib_store_ia(lbs_calib_db *db, int64_t run_id, const lbs_calib_job *job,
                           const lbs_calib_job_out *out, lbs_ipg_rec *r) {
  const lbs_adapter *a = job->adapter;
  char name[96];
  lbs_impl_name(job->impl, name, sizeof name);
  *r = (lbs_ipg_rec){.run_id = run_id, .lo = job->lo, .hi = job->hi, .seconds = out->seconds};
  snprintf(r->impl, sizeof r->impl, "%.63s", name);
  snprintf(r->kernel, sizeof r->kernel, "%s", a->kernel);
  snprintf(r->device, sizeof r->device, "%s", out->device[0] ? out->device : job->impl->target);
  snprintf(r->metric, sizeof r->metric, "%s", a->metric);
  snprintf(r->status, sizeof r->status, "%s",
           out->complete ? "complete"
           : out->ipg.n  ? "partial"
                         : "failed");
  snprintf(r->message, sizeof r->message, "%.300s%s%.200s", out->message,
           out->message[0] && out->note[0] ? "; " : "", out->note);
  char *params = params_json(&job->opts);
  r->params = params;
  r->ipg = out->ipg;
  r->samples = out->samples;
  r->nsamples = out->nsamples;
  lbs_err e = lbs_calib_put_ipg(db, r);
  r->params = NULL;
  free(params);
  return e;
}

lbs_err lbs_calib_store_import(lbs_calib_db *db, int64_t run_id, const lbs_import_group *g,
                               const lbs_ia_bound *acc, const char *params, lbs_ipg_rec *r) {
  *r = (lbs_ipg_rec){.run_id = run_id, .lo = INFINITY, .hi = -INFINITY};
  snprintf(r->impl, sizeof r->impl, "%s", g->impl);
  snprintf(r->kernel, sizeof r->kernel, "%.*s", (int)strcspn(g->impl, "."), g->impl);
  snprintf(r->device, sizeof r->device, "%s", g->device);
  snprintf(r->metric, sizeof r->metric, "imported");
  for (int i = 0; i < g->n; i++) {
    r->lo = g->samples[i].w < r->lo ? g->samples[i].w : r->lo;
    r->hi = g->samples[i].w > r->hi ? g->samples[i].w : r->hi;
  }
  lbs_err ge = lbs_ipg_from_samples(g->samples, g->n, acc, &r->ipg);
  snprintf(r->status, sizeof r->status, "%s", ge ? "failed" : "complete");
  if (ge) snprintf(r->message, sizeof r->message, "%s", lbs_errmsg());
  r->params = (char *)params; /* borrowed for the write */
  r->samples = g->samples;
  r->nsamples = g->n;
  lbs_err e = lbs_calib_put_ipg(db, r);
  r->params = NULL, r->samples = NULL;
  return e;
}

int lbs_calib_newest(const lbs_ipg_rec *recs, int n, int k) {
  const lbs_ipg_rec *r = &recs[k];
  for (int j = k + 1; j < n; j++)
    if (!strcmp(recs[j].status, "complete") && !strcmp(recs[j].impl, r->impl) &&
        !strcmp(recs[j].device, r->device))
      return 0;
  return 1;
}

double lbs_calib_floor(const lbs_ipg_rec *r) {
  double floor_s = 0;
  json_t *params = r->params ? json_loads(r->params, 0, NULL) : NULL;
  json_t *min_s = json_array_get(json_object_get(params, "accuracy"), 1);
  if (json_is_number(min_s)) floor_s = json_number_value(min_s);
  json_decref(params);
  return floor_s;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

lbs_err lbs_calib_verify_errors(const lbs_ipg_rec *r, const lbs_calib_job_out *out, double floor_s,
                                lbs_verify *v, double *median) {
  *v = (lbs_verify){.n = out->nsamples, .floor_s = floor_s, .points = out->samples};
  v->pred = malloc((size_t)(v->n ? v->n : 1) * sizeof *v->pred);
  double *errs = malloc((size_t)(v->n ? v->n : 1) * sizeof *errs);
  if (!v->pred || !errs) {
    free(v->pred), free(errs);
    v->pred = NULL;
    return lbs_fail(LBS_NOMEM, "%s: %d invocations", r->impl, v->n);
  }
  for (int i = 0; i < v->n; i++) {
    double m = v->points[i].t, p = lbs_ipg_eval(&r->ipg, v->points[i].w), d = fabs(m - p);
    v->pred[i] = p;
    errs[i] = m > 0 ? d / m : 0;
    v->mean_err += errs[i];
    v->rms_err += errs[i] * errs[i];
    v->max_err = errs[i] > v->max_err ? errs[i] : v->max_err;
    v->mean_err_floor += d / (m > floor_s ? m : floor_s > 0 ? floor_s : 1);
  }
  if (v->n) v->mean_err /= v->n, v->rms_err = sqrt(v->rms_err / v->n), v->mean_err_floor /= v->n;
  qsort(errs, (size_t)v->n, sizeof *errs, cmp_double);
  *median = v->n ? errs[v->n / 2] : 0;
  free(errs);
  return LBS_OK;
}
