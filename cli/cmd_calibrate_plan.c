/* cmd_calibrate_plan.c - `lbsim calibrate plan`, `run-plan` and the plan tables of `show`:
 * RACECAR plans (seed 004, chapter 5) from a node's IPGs, run for real and compared with
 * their prediction. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_calibrate_plan.h"
#include "lbs_plan.h"

/* "threads=2,opencl=1,cuda=0" (any subset, any order). */
static int parse_node(const char *s, lbs_plan_node *n) {
  *n = (lbs_plan_node){0, -1, -1, 0};
  if (!s) return 0;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", s);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    int64_t v;
    if (!eq)
      return cli_usage("calibrate",
                       "--node %s: expected KEY=N items (threads, opencl, cuda), got '%s'", s, tok);
    *eq = '\0';
    char opt[64];
    snprintf(opt, sizeof opt, "--node %s", tok);
    int rc = cli_parse_i64(opt, eq + 1, 0, LBS_PLAN_MAX_THREADS, &v);
    if (rc) return rc;
    if (!strcmp(tok, "threads")) {
      if (v < 1)
        return cli_usage("calibrate", "--node threads=%s: a node has at least one thread", eq + 1);
      n->threads = (int)v;
    } else if (!strcmp(tok, "opencl"))
      n->opencl = (int)v;
    else if (!strcmp(tok, "cuda"))
      n->cuda = (int)v;
    else
      return cli_usage("calibrate", "--node: unknown resource '%s' (threads, opencl, cuda)", tok);
  }
  return 0;
}

int cli_calibrate_plan(const cli_plan_opts *o, const char *command) {
  if (!o->db)
    return cli_usage("calibrate", "plan needs -o calib.db (the database with the node's IPGs)");
  if (!o->kernel) return cli_usage("calibrate", "plan needs --kernel K");
  lbs_plan_node node;
  int rc = parse_node(o->node, &node);
  if (rc) return rc;
  node.allow_partial = o->allow_partial;
  double hi = 0;
  if (o->range) {
    char *end;
    const char *colon = strchr(o->range, ':');
    hi = strtod(colon ? colon + 1 : o->range, &end);
    if (end == (colon ? colon + 1 : o->range) || *end || !(hi > 0) || !isfinite(hi))
      return cli_usage("calibrate", "--range %s: expected [0:]HI with HI > 0", o->range);
  }
  lbs_calib_db *db = NULL;
  lbs_err e = lbs_calib_open(o->db, 0, &db);
  if (e) return cli_error(o->db, e);
  lbs_calib_close(&db);
  if ((e = lbs_calib_open(o->db, 1, &db))) return cli_error(o->db, e);
  lbs_plan p;
  e = lbs_plan_make(db, o->kernel, &node, hi, o->measure, &p);
  if (!e) e = lbs_calib_put_plan(db, &p, command);
  lbs_calib_close(&db);
  if (e) return cli_error("calibrate plan", e);
  for (int d = 0; d < p.ndev; d++) /* RACECAR takes a device as resources of its own */
    if (p.threads > 1 &&
        (strstr(p.devices[d], "Portable Computing Language") || strstr(p.devices[d], "pthread")))
      fprintf(
          stderr,
          "lbsim: warning: calibrate plan: device %d (%s) runs on this machine's CPU cores: it shares them with "
          "the plan's threads, which RACECAR assumes it does not (seed 004, 5.3.5); its splits with threads will "
          "run slower than planned (--node opencl=0 leaves it out)\n",
          d, p.devices[d]);
  rc = 0;
  if (o->json) {
    json_t *devs = json_array();
    for (int d = 0; d < p.ndev; d++) json_array_append_new(devs, lbs_json_str(p.devices[d]));
    rc = cli_json_print(
        "calibrate plan",
        json_pack("{s:I,s:o,s:i,s:o,s:o,s:o,s:o,s:o,s:o,s:i,s:i}", "plan", (json_int_t)p.id,
                  "kernel", lbs_json_str(p.kernel), "threads", p.threads, "devices", devs, "hi",
                  lbs_json_real(p.hi), "template", lbs_json_str(p.tmpl), "template_s",
                  lbs_json_real(p.ovh_s), "template_per_work_s", lbs_json_real(p.ovh_per_work_s),
                  "planning_s", lbs_json_real(p.plan_s), "working_sets", p.nws, "splits", p.nsplit),
        LBS_JSON_SPACED);
  } else {
    printf("plan %lld of %s written to %s\n\n", (long long)p.id, p.kernel, o->db);
    lbs_plan_print(&p, stdout);
  }
  lbs_plan_free(&p);
  if (!rc && (fflush(stdout) || ferror(stdout)))
    rc = cli_error("stdout", lbs_fail(LBS_IO, "write error"));
  return rc;
}

/* The works to run: the list given (rounded to valid metrics), else the plan's six. 0 with *n
 * set, or 2 after a usage error. */
static int works_of(const char *list, const lbs_plan *p, const lbs_adapter *a, double *w, int max,
                    int *n) {
  if (!list) return *n = lbs_plan_works(p, a, w), 0;
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", list);
  *n = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && *n < max;
       tok = strtok_r(NULL, ",", &save)) {
    char *end;
    double v = strtod(tok, &end);
    if (end == tok || *end || !(v >= 1) || !isfinite(v))
      return cli_usage("calibrate", "--work: '%s' is not a work >= 1", tok);
    w[(*n)++] = a->round_metric(v);
  }
  return 0;
}

/* One work's line (or JSON object into runs). */
static void print_run(const cli_plan_opts *o, const lbs_plan *p, const lbs_plan_run *r,
                      json_t *runs) {
  double err = (r->predicted_s - r->measured_s) / r->measured_s * 100;
  double one = r->one_s, err1 = (r->one_predicted_s - one) / one * 100;
  const char *best = r->best >= 0 ? p->impl[r->best].impl : NULL;
  if (o->json)
    json_array_append_new(
        runs,
        json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "work",
                  lbs_json_real(r->work), "predicted_s", lbs_json_sig(r->predicted_s, 9),
                  "measured_s", lbs_json_sig(r->measured_s, 9), "error_pct", lbs_json_sig(err, 4),
                  "best_single", lbs_json_str(best ? best : ""), "best_single_s",
                  lbs_json_sig(r->best_s, 9), "speedup", lbs_json_sig(r->best_s / r->measured_s, 4),
                  "one_thread_s", lbs_json_sig(one, 9), "speedup_one_thread",
                  lbs_json_sig(one / r->measured_s, 4), "one_thread_predicted_s",
                  lbs_json_sig(r->one_predicted_s, 9), "one_thread_error_pct",
                  lbs_json_sig(isfinite(err1) ? err1 : 0, 4), "calls", lbs_json_str(r->calls)));
  else
    printf("%12.6g %11.4g %11.4g %6.1f%%  %-16s %11.4g %6.2fx  %11.4g %6.2fx %6.1f%%  %s\n",
           r->work, r->predicted_s, r->measured_s, err, best ? best : "-", r->best_s,
           r->best_s / r->measured_s, one, one / r->measured_s, err1, r->calls);
  fflush(stdout);
}

int cli_calibrate_run_plan(const cli_plan_opts *o) {
  lbs_calib_db *db = NULL;
  lbs_err e = lbs_calib_open(o->db, 0, &db);
  if (e) return cli_error(o->db, e);
  lbs_plan p;
  e = lbs_calib_get_plan(db, o->kernel, 0, &p);
  lbs_calib_close(&db);
  if (e) return cli_error("calibrate run-plan", e);
  const lbs_adapter *a = NULL;
  double w[64];
  int nw = 0, rc = (e = lbs_plan_runnable(&p, &a)) ? cli_error("calibrate run-plan", e) : 0;
  if (!rc) rc = works_of(o->works, &p, a, w, 64, &nw);
  json_t *runs = o->json ? json_array() : NULL; /* --json: one line at the end */
  if (!rc && !o->json)
    printf("plan %lld of %s on %d threads and %d device%s, median of %d runs each after %d "
           "untimed\n%12s %11s %11s "
           "%7s  %-16s %11s %7s  "
           "%11s %7s %7s  %s\n",
           (long long)p.id, p.kernel, p.threads, p.ndev, p.ndev == 1 ? "" : "s", o->repeat,
           o->warmup, "work", "predicted", "measured", "error", "best single", "its time",
           "speedup", "one thread", "speedup", "IPG err", "calls");
  for (int k = 0; k < nw && !rc; k++) {
    lbs_plan_run r;
    if ((e = lbs_plan_measure(&p, a, w[k], o->repeat, o->warmup, &r)))
      rc = cli_error("calibrate run-plan", e);
    else
      print_run(o, &p, &r, runs);
  }
  if (!rc && o->json)
    rc = cli_json_print("calibrate run-plan",
                        json_pack("{s:I,s:o,s:i,s:i,s:i,s:i,s:O}", "plan", (json_int_t)p.id,
                                  "kernel", lbs_json_str(p.kernel), "threads", p.threads, "devices",
                                  p.ndev, "repeat", o->repeat, "warmup", o->warmup, "runs", runs),
                        LBS_JSON_SPACED);
  json_decref(runs);
  lbs_plan_free(&p);
  if (!rc && (fflush(stdout) || ferror(stdout)))
    rc = cli_error("stdout", lbs_fail(LBS_IO, "write error"));
  return rc;
}

lbs_err cli_calibrate_show_plans(const char *path, FILE *f) {
  lbs_calib_db *db = NULL;
  int64_t *ids = NULL;
  int n = 0;
  lbs_err e = lbs_calib_open(path, 0, &db);
  if (!e) e = lbs_calib_plan_ids(db, &ids, &n);
  for (int i = 0; i < n && !e; i++) {
    lbs_plan p;
    if ((e = lbs_calib_get_plan(db, NULL, ids[i], &p))) break;
    fprintf(f, "\n");
    lbs_plan_print(&p, f);
    lbs_plan_free(&p);
  }
  free(ids);
  lbs_calib_close(&db);
  return e;
}
