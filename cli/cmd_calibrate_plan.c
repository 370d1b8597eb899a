/* cmd_calibrate_plan.c - `lbsim calibrate plan`, `run-plan` and the plan tables of `show`:
 * RACECAR plans (seed 004, chapter 5) from a node's IPGs, run for real and compared with
 * their prediction. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    if (!eq) return cli_usage("calibrate", "--node %s: expected KEY=N items (threads, opencl, cuda), got '%s'", s, tok);
    *eq = '\0';
    char opt[64];
    snprintf(opt, sizeof opt, "--node %s", tok);
    int rc = cli_parse_i64(opt, eq + 1, 0, LBS_PLAN_MAX_THREADS, &v);
    if (rc) return rc;
    if (!strcmp(tok, "threads")) {
      if (v < 1) return cli_usage("calibrate", "--node threads=%s: a node has at least one thread", eq + 1);
      n->threads = (int)v;
    } else if (!strcmp(tok, "opencl")) n->opencl = (int)v;
    else if (!strcmp(tok, "cuda")) n->cuda = (int)v;
    else return cli_usage("calibrate", "--node: unknown resource '%s' (threads, opencl, cuda)", tok);
  }
  return 0;
}

int cli_calibrate_plan(const cli_plan_opts *o, const char *command) {
  if (!o->db) return cli_usage("calibrate", "plan needs -o calib.db (the database with the node's IPGs)");
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
    if (p.threads > 1 && (strstr(p.devices[d], "Portable Computing Language") || strstr(p.devices[d], "pthread")))
      fprintf(stderr,
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
        LBS_JSON_SPACED, LBS_JSON_EXACT);
  } else {
    printf("plan %lld of %s written to %s\n\n", (long long)p.id, p.kernel, o->db);
    lbs_plan_print(&p, stdout);
  }
  lbs_plan_free(&p);
  if (!rc && (fflush(stdout) || ferror(stdout)))
    rc = cli_error("stdout", lbs_fail(LBS_IO, "write error"));
  return rc;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct timed {
  double median_s;
  char why[256]; /* a wrong output */
} timed;

/* Median of r runs of exec (or of implementation ops/ctx when exec is NULL) at work w, each on
 * fresh parameters; the first run's output is checked. */
static lbs_err time_runs(const lbs_adapter *a, lbs_exec *ex, const lbs_impl_ops *ops, void *ctx, double w, int r,
                         timed *out) {
  double s[16];
  out->why[0] = '\0';
  for (int i = 0; i < r; i++) {
    void *params = NULL;
    lbs_err e = a->create_params(w, 77 + (uint64_t)i, &params);
    if (e) return e;
    double t0 = lbs_clock_monotonic.now(NULL);
    e = ex ? lbs_exec_run(ex, params) : ops->execute(ctx, params);
    s[i] = lbs_clock_monotonic.now(NULL) - t0;
    if (!e && i == 0 && a->check && a->check(params, out->why, sizeof out->why)) e = LBS_RANGE;
    a->delete_params(params);
    if (e == LBS_RANGE && out->why[0]) return lbs_fail(e, "wrong output at work %g: %s", w, out->why);
    if (e) return e;
  }
  qsort(s, (size_t)r, sizeof *s, cmp_double);
  out->median_s = r % 2 ? s[r / 2] : (s[r / 2 - 1] + s[r / 2]) / 2;
  return LBS_OK;
}

/* The works to run: the list given, or six from hi/1000 to hi, log spaced. */
static int works_of(const char *list, const lbs_adapter *a, double hi, double *w, int max) {
  int n = 0;
  if (list) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save)) {
      char *end;
      double v = strtod(tok, &end);
      if (end == tok || *end || !(v >= 1) || !isfinite(v)) return -cli_usage("calibrate", "--work: '%s' is not a work >= 1", tok);
      w[n++] = a->round_metric(v);
    }
    return n;
  }
  for (int i = 0; i < 6; i++) w[n++] = a->round_metric(hi * pow(10, -3.0 + 3.0 * i / 5));
  return n;
}

int cli_calibrate_run_plan(const cli_plan_opts *o) {
  lbs_calib_db *db = NULL;
  lbs_err e = lbs_calib_open(o->db, 0, &db);
  if (e) return cli_error(o->db, e);
  lbs_plan p;
  e = lbs_calib_get_plan(db, o->kernel, 0, &p);
  lbs_calib_close(&db);
  if (e) return cli_error("calibrate run-plan", e);
  const lbs_adapter *a = lbs_adapter_find(p.kernel);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int rc = 0;
  if (!a) rc = cli_error("calibrate run-plan", lbs_fail(LBS_NOTFOUND, "plan %lld: no kernel '%s' in this lbsim", (long long)p.id, p.kernel));
  else if (cpus > 0 && p.threads > cpus)
    rc = cli_error("calibrate run-plan", lbs_fail(LBS_RANGE, "plan %lld is for a node of %d threads; this machine has %ld online CPU%s (make a plan for it: 'lbsim calibrate plan --node threads=%ld')",
                                                   (long long)p.id, p.threads, cpus, cpus == 1 ? "" : "s", cpus));
  double w[64];
  int nw = rc ? 0 : works_of(o->works, a, p.hi, w, 64);
  if (nw < 0) rc = -nw;
  int full = rc ? 0 : lbs_plan_ws(&p, p.threads, (1u << p.ndev) - 1);
  json_t *runs = o->json ? json_array() : NULL; /* --json: one line at the end */
  if (!rc) {
    if (!o->json)
      printf("plan %lld of %s on %d threads and %d device%s, median of %d runs each\n%12s %11s %11s %7s  %-16s %11s %7s  %11s %7s %7s  %s\n",
             (long long)p.id, p.kernel, p.threads, p.ndev, p.ndev == 1 ? "" : "s", o->repeat, "work", "predicted",
             "measured", "error", "best single", "its time", "speedup", "one thread", "speedup", "IPG err", "calls");
  }
  for (int k = 0; k < nw && !rc; k++) {
    lbs_exec *ex = NULL;
    double pred = 0;
    timed tp, ts;
    e = lbs_exec_create(&p, full, w[k], &ex, &pred);
    if (!e) e = time_runs(a, ex, NULL, NULL, w[k], o->repeat, &tp);
    char calls[512] = "";
    lbs_exec_describe(ex, calls, sizeof calls);
    lbs_exec_destroy(&ex);
    double best = INFINITY, one = INFINITY;
    int best_i = -1;
    for (int i = 0; i < p.nimpl && !e; i++) { /* each implementation alone, on its own resources */
      const lbs_impl_ops *ops = NULL;
      void *ctx = NULL;
      int th, isdev;
      lbs_plan_needs(p.impl[i].impl, p.impl[i].device, &th, &isdev);
      if (lbs_plan_impl_open(&p.impl[i], &ops, &ctx)) continue; /* not here: the plan's run said so */
      e = time_runs(a, NULL, ops, ctx, w[k], o->repeat, &ts);
      ops->close(ctx);
      if (e) break;
      if (ts.median_s < best) best = ts.median_s, best_i = i;
      if (th == 1 && !isdev && ts.median_s < one) one = ts.median_s;
    }
    if (e) {
      rc = cli_error("calibrate run-plan", e);
      break;
    }
    double err = (pred - tp.median_s) / tp.median_s * 100;
    /* the one-thread FPG against the one thread measured now: how far the IPGs themselves are
     * off today (the machine's drift), next to the plan's error */
    double pred1 = lbs_plan_time(&p, lbs_plan_ws(&p, 1, 0), w[k]), err1 = (pred1 - one) / one * 100;
    if (o->json)
      json_array_append_new(
          runs,
          json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "work",
                    lbs_json_real(w[k]), "predicted_s", lbs_json_sig(pred, 9), "measured_s",
                    lbs_json_sig(tp.median_s, 9), "error_pct", lbs_json_sig(err, 4), "best_single",
                    lbs_json_str(best_i >= 0 ? p.impl[best_i].impl : ""), "best_single_s",
                    lbs_json_sig(best, 9), "speedup", lbs_json_sig(best / tp.median_s, 4),
                    "one_thread_s", lbs_json_sig(one, 9), "speedup_one_thread",
                    lbs_json_sig(one / tp.median_s, 4), "one_thread_predicted_s",
                    lbs_json_sig(pred1, 9), "one_thread_error_pct",
                    lbs_json_sig(isfinite(err1) ? err1 : 0, 4), "calls", lbs_json_str(calls)));
    else
      printf("%12.6g %11.4g %11.4g %6.1f%%  %-16s %11.4g %6.2fx  %11.4g %6.2fx %6.1f%%  %s\n", w[k], pred, tp.median_s,
             err, best_i >= 0 ? p.impl[best_i].impl : "-", best, best / tp.median_s, one, one / tp.median_s, err1,
             calls);
    fflush(stdout);
  }
  if (!rc && o->json)
    rc = cli_json_print("calibrate run-plan",
                        json_pack("{s:I,s:o,s:i,s:i,s:i,s:O}", "plan", (json_int_t)p.id, "kernel",
                                  lbs_json_str(p.kernel), "threads", p.threads, "devices", p.ndev,
                                  "repeat", o->repeat, "runs", runs),
                        LBS_JSON_SPACED, LBS_JSON_SHORT);
  json_decref(runs);
  lbs_plan_free(&p);
  if (!rc && (fflush(stdout) || ferror(stdout))) rc = cli_error("stdout", lbs_fail(LBS_IO, "write error"));
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
