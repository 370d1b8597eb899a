/* compare.c - policies compared on one session (lbsim policy compare, lbs_compare.h): the
 * replays, the optimum and each policy's gap to it, the CSV files and the JSON document. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lbs_compare.h"
#include "lbs_policy.h"

int lbs_compare_optimum(const char *const *policies, int n) {
  int iopt = -1;
  for (int k = 0; k < n; k++) {
    const lbs_policy_ops *po = lbs_policy_find(policies[k]);
    if (po && (po->flags & LBS_POLICY_OPTIMUM)) iopt = k; /* the others' gaps are to it */
  }
  return iopt;
}

lbs_err lbs_compare_one_model(lbs_replay_opts *o, const lbs_grid *g, const char *const *policies,
                              int n) {
  /* A policy that plans ahead replays ordered steps (sim/overlap.c): beside policies whose steps
   * share the network, its gap would measure the two models, not the schedules. */
  int ahead = -1, other = -1;
  for (int k = 0; k < n; k++) {
    const lbs_policy_ops *po = lbs_policy_find(policies[k]);
    if (po && (po->flags & LBS_POLICY_PLANS_AHEAD))
      ahead = k;
    else
      other = k;
  }
  int mixed = o->mode == LBS_MODE_DES && ahead >= 0 && other >= 0 &&
              lbs_grid_sharing(g) == LBS_SHARING_FAIR;
  if (mixed && o->des_overlap == LBS_DES_AUTO) /* one model for all: the one both can run */
    o->des_overlap = LBS_DES_ORDERED;
  if (mixed && o->des_overlap == LBS_DES_SHARED)
    return lbs_fail(
        LBS_INVAL,
        "des_overlap = shared: %s plans ahead over ordered steps, while %s's steps would "
        "share the network; compare them with des_overlap = ordered, or without %s",
        policies[ahead], policies[other], policies[ahead]);
  return LBS_OK;
}

lbs_err lbs_compare_run(lbs_session *s, const char *const *policies, int n, MPI_Comm comm,
                        lbs_compare_watch_fn watch, void *watch_arg, lbs_compare *c) {
  memset(c, 0, sizeof *c);
  c->iopt = -1;
  if (n < 0 || n > LBS_COMPARE_MAX)
    return lbs_fail(LBS_RANGE, "at most %d policies", LBS_COMPARE_MAX);
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (s->opts.cost == LBS_COST_MEASURED) s->opts.cost = LBS_COST_MODEL; /* the runs must compare */
  lbs_err e = lbs_compare_one_model(&s->opts, s->grid, policies, n);
  for (int k = 0; !e && k < n; k++) {
    s->opts.policy = policies[k];
    if (lbs_compare_optimum(&policies[k], 1) == 0) c->iopt = k;
    if (rank == 0 && watch) watch(watch_arg, k, &s->opts, 0);
    e = lbs_replay(s->trace, s->grid, &s->opts, comm, &c->r[k]);
    if (rank == 0 && watch) watch(watch_arg, k, &s->opts, 1);
    s->opts.progress = s->opts.search_progress = NULL; /* the caller's, for this replay only */
    s->opts.progress_arg = s->opts.search_progress_arg = NULL;
    c->n = k + 1;
  }
  return e;
}

double lbs_compare_gap(const lbs_compare *c, int k) {
  if (c->iopt < 0) return NAN;
  double opt = (double)c->r[c->iopt]->total_ns;
  return ((double)c->r[k]->total_ns - opt) / opt;
}

void lbs_compare_free(lbs_compare *c) {
  for (int k = 0; k < LBS_COMPARE_MAX; k++) lbs_replay_result_free(&c->r[k]);
  memset(c, 0, sizeof *c);
  c->iopt = -1;
}

/* ---------------------------------------------------------------- CSV files */

/* Opens dir/name for writing into *f; the path into path. */
static lbs_err csv_open(const char *dir, const char *name, char *path, size_t len, FILE **f) {
  if (snprintf(path, len, "%s/%s", dir, name) >= (int)len)
    return lbs_fail(LBS_IO, "%s/%s: path too long", dir, name);
  if (!(*f = fopen(path, "w")))
    return lbs_fail(LBS_IO, "%s: cannot write: %s", path, strerror(errno));
  return LBS_OK;
}

/* Closes f; a write error (a full disk) names path. */
static lbs_err csv_close(FILE *f, const char *path) {
  errno = 0;
  int bad = ferror(f) || fflush(f), err = errno;
  if (fclose(f) && !bad) bad = 1, err = errno;
  return bad ? lbs_fail(LBS_IO, "%s: write failed: %s", path, err ? strerror(err) : "I/O error")
             : LBS_OK;
}

/* imbalance.csv: a row per step, a column per policy. */
static lbs_err write_imbalance(const lbs_compare *c, const char *dir) {
  lbs_replay_result *const *r = c->r;
  char path[4200];
  FILE *f;
  lbs_err e = csv_open(dir, "imbalance.csv", path, sizeof path, &f);
  if (e) return e;
  fprintf(f, "step,app_step");
  for (int k = 0; k < c->n; k++) fprintf(f, ",%s", r[k]->policy);
  fprintf(f, "\n");
  for (int64_t s = 0; c->n && s < r[0]->steps; s++) {
    fprintf(f, "%lld,%lld", (long long)(r[0]->first_step + s), (long long)r[0]->app_step[s]);
    for (int k = 0; k < c->n; k++) fprintf(f, ",%.6f", r[k]->imbalance[s]);
    fprintf(f, "\n");
  }
  return csv_close(f, path);
}

/* summary.csv: a row per policy. */
static lbs_err write_summary(const lbs_compare *c, const char *dir) {
  lbs_replay_result *const *r = c->r;
  char path[4200];
  FILE *f;
  lbs_err e = csv_open(dir, "summary.csv", path, sizeof path, &f);
  if (e) return e;
  fprintf(f,
          "policy,total_time_s,repartitions,mean_imbalance,partition_time_s,migration_time_s,"
          "repartition_steps,"
          "compute_time_s,comm_time_s,moved_elements,mean_loadimb,max_imbalance,gap_to_optimal\n");
  for (int k = 0; k < c->n; k++) {
    fprintf(f, "%s,%.9f,%d,%.6f,%.9f,%.9f,", r[k]->policy, 1e-9 * (double)r[k]->total_ns,
            r[k]->nrep, r[k]->mean_imbalance, 1e-9 * (double)r[k]->partition_ns,
            1e-9 * (double)r[k]->migration_ns);
    for (int j = 0; j < r[k]->nrep; j++)
      fprintf(f, "%s%lld", j ? " " : "", (long long)(r[k]->first_step + r[k]->reparts[j].step));
    fprintf(f, ",%.9f,%.9f,%lld,%.6f,%.6f,", 1e-9 * (double)r[k]->compute_ns,
            1e-9 * (double)r[k]->comm_ns, (long long)r[k]->moved, r[k]->mean_loadimb,
            r[k]->max_imbalance);
    if (c->iopt >= 0)
      fprintf(f, "%.9f", lbs_compare_gap(c, k)); /* empty without optimal among the policies */
    fprintf(f, "\n");
  }
  return csv_close(f, path);
}

/* series_<policy>.csv for replay k: its series (adaptive's interval at each probe). */
static lbs_err write_series(const lbs_replay_result *r, const char *dir) {
  char name[256], path[4200];
  snprintf(name, sizeof name, "series_%s.csv", r->policy);
  for (char *c = name; *c; c++)
    if (*c == ':' || *c == '/') *c = '_';
  FILE *f;
  lbs_err e = csv_open(dir, name, path, sizeof path, &f);
  if (e) return e;
  fprintf(f, "probe,step,interval\n");
  for (int i = 0; i < r->nseries; i++)
    fprintf(f, "%d,%lld,%g\n", i, (long long)(r->first_step + r->series_step[i]),
            r->series_value[i]);
  return csv_close(f, path);
}

lbs_err lbs_compare_write_csv(const lbs_compare *c, const char *dir) {
  lbs_err e = write_imbalance(c, dir);
  if (!e) e = write_summary(c, dir);
  for (int k = 0; !e && k < c->n; k++)
    if (c->r[k]->nseries) e = write_series(c->r[k], dir);
  return e;
}

/* ---------------------------------------------------------------- JSON */

json_t *lbs_compare_json(const lbs_compare *c, const lbs_session *s) {
  const lbs_replay_opts *o = &s->opts;
  json_t *doc = json_object(), *pols = json_array();
  int bad = lbs_json_set(doc, "trace", lbs_json_str(s->trace_path)) ||
            lbs_json_set(doc, "grid", lbs_json_str(s->grid_path)) ||
            lbs_json_set(doc, "partitioner", lbs_json_str(o->partitioner)) ||
            lbs_json_set(doc, "mode", json_string(o->mode == LBS_MODE_BSP ? "bsp" : "des")) ||
            lbs_json_set(doc, "policies", json_incref(pols));
  for (int k = 0; !bad && k < c->n; k++) {
    json_t *p = json_object();
    bad = json_array_append_new(pols, p) || lbs_replay_json_fields(p, c->r[k]) ||
          lbs_json_set(p, "gap_to_optimal", lbs_json_real(lbs_compare_gap(c, k)));
  }
  json_decref(pols);
  if (bad) json_decref(doc), doc = NULL;
  return doc;
}
