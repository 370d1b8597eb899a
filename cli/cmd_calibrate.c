/* cmd_calibrate.c - lbsim calibrate: implementation performance graphs from real runs.
 *
 *   run      the IA heuristic (seed 004, 4.3) on implementations of a kernel, one child
 *            process each, every IPG stored as soon as it is done
 *   verify   random invocations of each stored IPG's implementation: mean, RMS and max error
 *   show     the database as a table, JSON or CSV files
 *   import   samples measured elsewhere (FPGAs, other machines) as IPGs */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_calibrate_plan.h"
#include "lbs_calib.h"
#include "lbs_calib_run.h"

#ifndef LBSIM_VERSION
#define LBSIM_VERSION "0.1.0"
#endif

static const char usage_text[] =
    "usage: lbsim calibrate run --kernel K [--impl LIST] -o calib.db [options]\n"
    "       lbsim calibrate verify calib.db [--impl NAME] [-n 250] [--json]\n"
    "       lbsim calibrate show calib.db [--json | --csv DIR]\n"
    "       lbsim calibrate import samples.csv -o calib.db [--accuracy PCT] [--min-abs S]\n"
    "       lbsim calibrate list\n"
    "       lbsim calibrate plan --kernel K [--node threads=N,opencl=N,cuda=N] -o calib.db\n"
    "       lbsim calibrate run-plan calib.db [--kernel K] [--work W,...] [--repeat R] [--json]\n"
    "\n"
    "Measures implementations of kernels (a kernel on a target: one CPU thread, pthreads,\n"
    "OpenCL, CUDA) as black boxes and builds their implementation performance graphs (IPGs):\n"
    "piecewise-linear curves from work metric to seconds, to a requested accuracy, with the\n"
    "IA heuristic (few samples: it spaces them by the time they take). A grid's node type\n"
    "then uses a curve as its speed ('speed_model = ipg', see 'lbsim grid --help-config').\n"
    "\n"
    "run options:\n"
    "  --kernel K          sort, dot, conv1d, matmul, wave, walk, bhforce ('list' shows them)\n"
    "  --impl LIST         targets or implementations, comma-separated: cpu, threads, opencl,\n"
    "                      cuda, or names such as sort.threads (default: every target built)\n"
    "  -o, --output DB     the calibration database (made, or added to)\n"
    "  --accuracy PCT      requested accuracy, percent (default 5)\n"
    "  --min-abs S         absolute floor of the accuracy, seconds (default 5e-5: timer noise)\n"
    "  --max-abs S         absolute ceiling, seconds (default 0: none)\n"
    "  --range LO:HI       work-metric range (default: the kernel's, 4 decades or more)\n"
    "  --threads N         threads of the threads target (default: the online CPUs)\n"
    "  --device I          OpenCL / CUDA device index (default 0)\n"
    "  --timeout S         per implementation, seconds (default 300): at 90% it stops with a\n"
    "                      partial IPG, at 100% it is killed (failed); the others go on\n"
    "  --max-samples N     stop an implementation after N samples (default 4000)\n"
    "  --window N, --max-point-samples N, --confidence C, --sets PCT, --mets PCT, --ci PCT,\n"
    "  --set PCT           the heuristic's parameters (seed 004 Table 4-3), see docs/calibration.md\n"
    "  --seed N            data of the invocation parameters (default 1)\n"
    "  --repeat R          a sample is the median of R timed calls (default 3; 1..15): one\n"
    "                      preempted call does not make a sample (verify times its invocations\n"
    "                      the same way)\n"
    "verify options:\n"
    "  --impl NAME         only this implementation (default: every complete IPG runnable here)\n"
    "  -n N                random invocations per IPG (default 250, as the thesis' Figure 6-1)\n"
    "  --floor S           absolute floor of the errors (default: the IPG's --min-abs)\n"
    "  --invocations K     usage (default): the kernel's representative invocations (CreateParams,\n"
    "                      as the IPG was built) at log-uniform metrics with fresh data; varied:\n"
    "                      the adapter's random shapes and value ranges too (how well the work\n"
    "                      metric alone predicts the time)\n"
    "plan options (RACECAR, seed 004 chapter 5: which devices take which share of the work):\n"
    "  --kernel K          the kernel whose IPGs in -o calib.db the plan combines\n"
    "  --node SPEC         the node's resources, e.g. threads=2,opencl=1,cuda=0 (default: the\n"
    "                      CPUs of the machine the IPGs were measured on, every device with IPGs)\n"
    "  --range [0:]HI      plan work metrics up to HI (default: the widest IPG's range)\n"
    "  --no-template-cost  take the template's split and combine as free (default: measured)\n"
    "  --allow-partial     an implementation without a complete IPG takes its newest partial one\n"
    "                      (its last segment goes on past its end)\n"
    "run-plan options: runs the newest plan (of --kernel) for real at each work and compares it\n"
    "  with its prediction and with every implementation alone\n"
    "  --work W,...        works to run (default: six from HI/1000 to HI)\n"
    "  --repeat R          runs per measurement, the median taken (default 3)\n"
    "show prints the plans' implementation and parallelization tables after the IPGs.\n"
    "common: --json (machine-readable output on stdout), -h/--help\n"
    "\n"
    "examples:\n"
    "  lbsim calibrate run --kernel wave --impl cpu,threads,opencl -o calib.db\n"
    "  lbsim calibrate verify calib.db --json\n"
    "  lbsim calibrate show calib.db --csv calib-csv\n"
    "  lbsim calibrate import fpga.csv -o calib.db   # columns implementation,device,metric,seconds\n"
    "  lbsim calibrate plan --kernel matmul --node threads=2 -o calib.db\n"
    "  lbsim calibrate run-plan calib.db --kernel matmul --work 1e8,1e9\n";

typedef struct {
  const char *db, *kernel, *impls, *only, *csv_dir, *range, *node, *works;
  double accuracy, min_abs, max_abs, timeout, floor_s, confidence;
  double sets, mets, ci, set;
  int threads, device, json, nverify, window, max_point, max_samples, repeat, varied, no_tcost, allow_partial;
  int64_t seed;
} opts;

/* ---------------------------------------------------------------- machine and progress */

/* This machine as JSON text (runs.machine); NULL when out of memory. */
static char *machine_json(void) {
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
  char *txt = lbs_json_dumps(o, LBS_JSON_SPACED, LBS_JSON_SHORT);
  json_decref(o);
  return txt;
}

typedef struct {
  cli_progress bar;
  double lo, hi;
  int verify;
} progress_ctx;

/* The frontier's progress through the range in log scale (what the heuristic spends is about
 * even per decade of time), or the invocations done. */
static void on_progress(void *arg, double frontier, int n) {
  progress_ctx *p = arg;
  if (p->verify) {
    cli_progress_update(&p->bar, n);
    return;
  }
  double lo = p->lo > 1 ? p->lo : 1, f = frontier > lo ? frontier : lo;
  cli_progress_update(&p->bar, (int64_t)(1000 * log(f / lo) / log(p->hi / lo > 1 ? p->hi / lo : 2)));
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
  char *txt = lbs_json_dumps(j, LBS_JSON_SPACED, LBS_JSON_SHORT);
  json_decref(j);
  return txt;
}

/* ---------------------------------------------------------------- run */

static int parse_range(const char *s, double *lo, double *hi) {
  char *end;
  *lo = strtod(s, &end);
  if (*end != ':' || !(*lo >= 0)) return -1;
  *hi = strtod(end + 1, &end);
  return *end || !(*hi >= *lo) || !isfinite(*hi) ? -1 : 0;
}

/* The implementations LIST names for kernel K: targets or full names. */
static int pick_impls(const opts *o, const lbs_impl_ops **out, int max) {
  int n = 0;
  char list[1024], name[96];
  snprintf(list, sizeof list, "%s", o->impls ? o->impls : "");
  if (!o->impls) {
    for (int i = 0; lbs_impl_at(i) && n < max; i++)
      if (!o->kernel || !strcmp(lbs_impl_at(i)->kernel, o->kernel)) out[n++] = lbs_impl_at(i);
    return n;
  }
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    if (strchr(tok, '.')) snprintf(name, sizeof name, "%s", tok);
    else if (!o->kernel) return -cli_usage("calibrate", "--impl %s: a target needs --kernel (or name kernel.target)", tok);
    else snprintf(name, sizeof name, "%s.%s", o->kernel, tok);
    const lbs_impl_ops *ops;
    lbs_err e = lbs_impl_find(name, &ops);
    if (e) return -cli_error("--impl", e);
    if (n < max) out[n++] = ops;
  }
  return n;
}

static void opts_ia(const opts *o, lbs_ia_opts *ia) {
  lbs_ia_defaults(ia, o->accuracy, o->min_abs, o->max_abs);
  if (o->window > 0) ia->window = o->window;
  if (o->max_point > 0) ia->max_point_samples = o->max_point;
  if (o->max_samples > 0) ia->max_samples = o->max_samples;
  if (o->confidence > 0) ia->confidence = o->confidence;
  if (o->sets > 0) ia->sets.pct = o->sets;
  if (o->mets > 0) ia->mets.pct = o->mets;
  if (o->ci > 0) ia->ci.pct = o->ci;
  if (o->set > 0) ia->set.pct = o->set;
}

static int do_run(const opts *o, const char *command) {
  if (!o->db) return cli_usage("calibrate", "run needs -o calib.db");
  if (!o->kernel && !o->impls) return cli_usage("calibrate", "run needs --kernel K or --impl kernel.target,...");
  if (o->kernel && !lbs_adapter_find(o->kernel))
    return cli_usage("calibrate", "unknown kernel '%s' ('lbsim calibrate list' shows them)", o->kernel);
  const lbs_impl_ops *impls[64];
  int n = pick_impls(o, impls, 64);
  if (n < 0) return -n;
  if (!n) return cli_usage("calibrate", "no implementation of kernel '%s' was built", o->kernel);
  if (cli_check_output(o->db, CLI_OUT_APPEND)) return 1;
  lbs_calib_db *db = NULL;
  lbs_err e = lbs_calib_open(o->db, 1, &db);
  if (e) return cli_error(o->db, e);
  char *machine = machine_json();
  int64_t run_id = 0;
  e = lbs_calib_begin_run(db, command, machine, &run_id);
  free(machine);
  if (e) {
    lbs_calib_close(&db);
    return cli_error(o->db, e);
  }
  int failed = 0, complete = 0;
  json_t *ipgs = o->json ? json_array() : NULL; /* --json: one line at the end */
  for (int k = 0; k < n; k++) {
    const lbs_adapter *a = lbs_adapter_find(impls[k]->kernel);
    char name[96];
    lbs_impl_name(impls[k], name, sizeof name);
    lbs_calib_job job = {0};
    job.kind = LBS_JOB_IA;
    job.adapter = a;
    job.impl = impls[k];
    job.threads = o->threads;
    job.device = o->device;
    job.lo = a->lo, job.hi = a->hi;
    if (o->range && parse_range(o->range, &job.lo, &job.hi)) {
      json_decref(ipgs);
      lbs_calib_close(&db);
      return cli_usage("calibrate", "--range %s: expected LO:HI with 0 <= LO <= HI", o->range);
    }
    opts_ia(o, &job.opts);
    job.seed = (uint64_t)o->seed;
    job.repeat = o->repeat;
    job.timeout_s = o->timeout;
    progress_ctx pc = {{0}, job.lo, job.hi, 0};
    char label[128];
    snprintf(label, sizeof label, "calibrate %s", name);
    cli_progress_start(&pc.bar, label, 1000);
    job.progress = on_progress;
    job.pctx = &pc;
    lbs_calib_job_out out;
    e = lbs_calib_job_run(&job, &out);
    cli_progress_end(&pc.bar);
    if (e) {
      json_decref(ipgs);
      lbs_calib_close(&db);
      return cli_error(name, e);
    }
    lbs_ipg_rec r = {0};
    r.run_id = run_id;
    snprintf(r.impl, sizeof r.impl, "%.63s", name);
    snprintf(r.kernel, sizeof r.kernel, "%s", a->kernel);
    snprintf(r.device, sizeof r.device, "%s", out.device[0] ? out.device : impls[k]->target);
    snprintf(r.metric, sizeof r.metric, "%s", a->metric);
    snprintf(r.status, sizeof r.status, "%s", out.complete ? "complete" : out.ipg.n ? "partial" : "failed");
    snprintf(r.message, sizeof r.message, "%.300s%s%.200s", out.message, out.message[0] && out.note[0] ? "; " : "", out.note);
    r.lo = job.lo, r.hi = job.hi;
    r.seconds = out.seconds;
    char *params = params_json(&job.opts);
    r.params = params;
    r.ipg = out.ipg;
    r.samples = out.samples;
    r.nsamples = out.nsamples;
    e = lbs_calib_put_ipg(db, &r);
    r.params = NULL;
    free(params);
    if (e) {
      json_decref(ipgs);
      lbs_calib_job_out_free(&out);
      lbs_calib_close(&db);
      return cli_error(o->db, e);
    }
    if (out.complete) complete++;
    else failed++;
    if (o->json) {
      json_array_append_new(
          ipgs, json_pack("{s:I,s:o,s:o,s:s,s:i,s:i,s:o,s:o}", "id", (json_int_t)r.id, "impl",
                          lbs_json_str(name), "device", lbs_json_str(r.device), "status", r.status,
                          "samples", out.nsamples, "points", out.ipg.n, "seconds",
                          lbs_json_fixed(out.seconds, 3), "message", lbs_json_str(r.message)));
    } else {
      printf("%-18s %-9s %4d samples %3d points %7.1f s  %s\n", name, r.status, out.nsamples, out.ipg.n, out.seconds,
             r.device);
      if (r.message[0]) printf("  %s\n", r.message);
    }
    if (!out.complete) fprintf(stderr, "lbsim: %s: %s\n", name, out.message[0] ? out.message : "incomplete IPG");
    else if (out.note[0]) fprintf(stderr, "lbsim: warning: %s: %s\n", name, out.note);
    lbs_calib_job_out_free(&out);
  }
  lbs_calib_close(&db);
  int rc = failed ? 1 : 0;
  if (o->json && cli_json_print("calibrate run",
                                json_pack("{s:o,s:I,s:o,s:i,s:i}", "database", lbs_json_str(o->db),
                                          "run", (json_int_t)run_id, "ipgs", ipgs, "complete",
                                          complete, "failed", failed),
                                LBS_JSON_SPACED, LBS_JSON_SHORT))
    rc = 1;
  return rc;
}

/* ---------------------------------------------------------------- verify */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int do_verify(const opts *o) {
  lbs_calib_db *db = NULL;
  lbs_err e = lbs_calib_open(o->db, 0, &db);
  if (e) return cli_error(o->db, e);
  lbs_ipg_rec *recs = NULL;
  int n = 0, bad = 0, done = 0;
  if ((e = lbs_calib_list(db, &recs, &n))) {
    lbs_calib_close(&db);
    return cli_error(o->db, e);
  }
  json_t *vers = o->json ? json_array() : NULL; /* --json: one line at the end */
  if (!o->json)
    printf("%s invocations\n%-18s %5s %9s %9s %9s %10s  %s\n", o->varied ? "varied" : "usage", "implementation", "n",
           "mean err", "rms err", "max err", "mean(floor)", "device");
  for (int k = 0; k < n; k++) {
    lbs_ipg_rec *r = &recs[k];
    if (strcmp(r->status, "complete") || (o->only && strcmp(o->only, r->impl))) continue;
    /* Only the newest complete IPG of each implementation and device. */
    int newer = 0;
    for (int j = k + 1; j < n; j++)
      newer |= !strcmp(recs[j].status, "complete") && !strcmp(recs[j].impl, r->impl) && !strcmp(recs[j].device, r->device);
    if (newer) continue;
    const lbs_impl_ops *impl;
    if (lbs_impl_find(r->impl, &impl)) {
      fprintf(stderr, "lbsim: %s (%s): not verified: lbsim cannot run it here (imported)\n", r->impl, r->device);
      continue;
    }
    lbs_calib_job job = {0};
    job.kind = LBS_JOB_VERIFY;
    job.adapter = lbs_adapter_find(impl->kernel);
    job.impl = impl;
    job.threads = o->threads;
    job.device = o->device;
    job.lo = r->lo, job.hi = r->hi;
    job.nverify = o->nverify;
    job.varied = o->varied;
    job.repeat = o->repeat;
    job.seed = (uint64_t)o->seed + 1000003;
    job.timeout_s = o->timeout;
    progress_ctx pc = {{0}, 0, 0, 1};
    char label[128];
    snprintf(label, sizeof label, "verify %s", r->impl);
    cli_progress_start(&pc.bar, label, o->nverify);
    job.progress = on_progress;
    job.pctx = &pc;
    lbs_calib_job_out out;
    e = lbs_calib_job_run(&job, &out);
    cli_progress_end(&pc.bar);
    if (e) break;
    if (!out.complete || out.err) {
      fprintf(stderr, "lbsim: %s: verification failed: %s\n", r->impl, out.message);
      bad++;
      lbs_calib_job_out_free(&out);
      continue;
    }
    /* The floor: --floor, else the accuracy's absolute floor the IPG was built with. */
    double floor_s = o->floor_s;
    if (!(floor_s >= 0)) {
      floor_s = 0;
      json_t *params = r->params ? json_loads(r->params, 0, NULL) : NULL, *min_s;
      min_s = json_array_get(json_object_get(params, "accuracy"), 1);
      if (json_is_number(min_s)) floor_s = json_number_value(min_s);
      json_decref(params);
    }
    lbs_verify v = {0};
    v.n = out.nsamples;
    v.floor_s = floor_s;
    v.points = out.samples;
    v.pred = malloc((size_t)(v.n ? v.n : 1) * sizeof *v.pred);
    double *errs = malloc((size_t)(v.n ? v.n : 1) * sizeof *errs);
    if (!v.pred || !errs) {
      free(v.pred), free(errs);
      e = LBS_NOMEM;
      break;
    }
    for (int i = 0; i < v.n; i++) {
      double m = v.points[i].t, p = lbs_ipg_eval(&r->ipg, v.points[i].w), d = fabs(m - p);
      v.pred[i] = p;
      errs[i] = m > 0 ? d / m : 0;
      v.mean_err += errs[i];
      v.rms_err += errs[i] * errs[i];
      v.max_err = errs[i] > v.max_err ? errs[i] : v.max_err;
      v.mean_err_floor += d / (m > floor_s ? m : floor_s > 0 ? floor_s : 1);
    }
    if (v.n) v.mean_err /= v.n, v.rms_err = sqrt(v.rms_err / v.n), v.mean_err_floor /= v.n;
    qsort(errs, (size_t)v.n, sizeof *errs, cmp_double);
    double med = v.n ? errs[v.n / 2] : 0;
    free(errs);
    e = lbs_calib_put_verify(db, r->id, &v);
    if (o->json)
      json_array_append_new(
          vers, json_pack("{s:I,s:o,s:o,s:s,s:i,s:o,s:o,s:o,s:o,s:o,s:o}", "ipg", (json_int_t)r->id,
                          "impl", lbs_json_str(r->impl), "device", lbs_json_str(r->device),
                          "invocations", o->varied ? "varied" : "usage", "n", v.n, "floor_s",
                          lbs_json_sig(floor_s, 6), "mean_err", lbs_json_fixed(v.mean_err, 6),
                          "rms_err", lbs_json_fixed(v.rms_err, 6), "max_err",
                          lbs_json_fixed(v.max_err, 6), "median_err", lbs_json_fixed(med, 6),
                          "mean_err_floor", lbs_json_fixed(v.mean_err_floor, 6)));
    else
      printf("%-18s %5d %8.2f%% %8.2f%% %8.1f%% %9.2f%%  %s\n", r->impl, v.n, 100 * v.mean_err, 100 * v.rms_err,
             100 * v.max_err, 100 * v.mean_err_floor, r->device);
    done++;
    free(v.pred);
    lbs_calib_job_out_free(&out);
    if (e) break;
  }
  int jbad = 0;
  if (o->json && !e)
    jbad = cli_json_print(
        "calibrate verify",
        json_pack("{s:o,s:o}", "database", lbs_json_str(o->db), "verifications", json_incref(vers)),
        LBS_JSON_SPACED, LBS_JSON_SHORT);
  json_decref(vers);
  for (int k = 0; k < n; k++) lbs_ipg_rec_free(&recs[k]);
  free(recs);
  lbs_calib_close(&db);
  if (e) return cli_error(o->db, e);
  if (jbad) return 1;
  if (!done && !bad) {
    fprintf(stderr, "lbsim: %s: no complete IPG%s%s to verify\n", o->db, o->only ? " of " : "", o->only ? o->only : "");
    return 1;
  }
  return bad ? 1 : 0;
}

/* ---------------------------------------------------------------- show, import, list */

static int do_show(const opts *o) {
  lbs_calib_db *db = NULL;
  lbs_err e = lbs_calib_open(o->db, 0, &db);
  if (e) return cli_error(o->db, e);
  if (o->json) e = lbs_calib_export_json(db, stdout);
  else if (o->csv_dir) e = lbs_calib_export_csv(db, o->csv_dir);
  else {
    lbs_ipg_rec *recs = NULL;
    int n = 0;
    if (!(e = lbs_calib_list(db, &recs, &n))) {
      printf("%4s %-18s %-9s %14s %7s %6s %8s  %s\n", "id", "implementation", "status", "range", "samples", "points",
             "seconds", "device");
      for (int k = 0; k < n; k++) {
        lbs_ipg_rec *r = &recs[k];
        char range[64];
        snprintf(range, sizeof range, "%g:%g", r->lo, r->hi);
        printf("%4lld %-18s %-9s %14s %7d %6d %8.1f  %s\n", (long long)r->id, r->impl, r->status, range, r->nsamples,
               r->ipg.n, r->seconds, r->device);
        if (r->message[0]) printf("     %s\n", r->message);
        for (int i = 0; i < r->ipg.n && r->ipg.n <= 64; i++)
          printf("       %14.17g  %.6g s\n", r->ipg.w[i], r->ipg.t[i]);
      }
      for (int k = 0; k < n; k++) lbs_ipg_rec_free(&recs[k]);
      free(recs);
    }
    if (!e) e = cli_calibrate_show_plans(o->db, stdout);
  }
  lbs_calib_close(&db);
  return e ? cli_error(o->csv_dir && !o->json ? o->csv_dir : o->db, e) : 0;
}

static int do_import(const opts *o, const char *csv, const char *command) {
  if (!o->db) return cli_usage("calibrate", "import needs -o calib.db");
  lbs_import_group *g = NULL;
  int ng = 0;
  lbs_err e = lbs_calib_read_csv(csv, &g, &ng);
  if (e) return cli_error(csv, e);
  if (cli_check_output(o->db, CLI_OUT_APPEND)) {
    lbs_import_groups_free(g, ng);
    return 1;
  }
  lbs_calib_db *db = NULL;
  int64_t run_id = 0;
  json_t *mj = json_pack("{s:o}", "imported", lbs_json_str(csv)),
         *ipgs = o->json ? json_array() : NULL;
  char *machine = lbs_json_dumps(mj, LBS_JSON_SPACED, LBS_JSON_SHORT);
  json_decref(mj);
  if (!(e = lbs_calib_open(o->db, 1, &db))) e = lbs_calib_begin_run(db, command, machine, &run_id);
  free(machine);
  int bad = 0;
  lbs_ia_bound acc = {o->accuracy, o->min_abs, o->max_abs};
  json_t *pj = json_pack("{s:o,s:b}", "accuracy", bound_json(acc), "imported", 1);
  char *params = lbs_json_dumps(pj, LBS_JSON_SPACED, LBS_JSON_SHORT);
  json_decref(pj);
  for (int k = 0; !e && k < ng; k++) {
    lbs_ipg_rec r = {0};
    r.run_id = run_id;
    snprintf(r.impl, sizeof r.impl, "%s", g[k].impl);
    snprintf(r.kernel, sizeof r.kernel, "%.*s", (int)strcspn(g[k].impl, "."), g[k].impl);
    snprintf(r.device, sizeof r.device, "%s", g[k].device);
    snprintf(r.metric, sizeof r.metric, "imported");
    r.lo = INFINITY, r.hi = -INFINITY;
    for (int i = 0; i < g[k].n; i++) {
      r.lo = g[k].samples[i].w < r.lo ? g[k].samples[i].w : r.lo;
      r.hi = g[k].samples[i].w > r.hi ? g[k].samples[i].w : r.hi;
    }
    lbs_err ge = lbs_ipg_from_samples(g[k].samples, g[k].n, &acc, &r.ipg);
    snprintf(r.status, sizeof r.status, "%s", ge ? "failed" : "complete");
    if (ge) snprintf(r.message, sizeof r.message, "%s", lbs_errmsg());
    r.params = params;
    r.samples = g[k].samples;
    r.nsamples = g[k].n;
    e = lbs_calib_put_ipg(db, &r);
    if (o->json)
      json_array_append_new(ipgs, json_pack("{s:o,s:o,s:s,s:i,s:i}", "impl", lbs_json_str(r.impl),
                                            "device", lbs_json_str(r.device), "status", r.status,
                                            "samples", r.nsamples, "points", r.ipg.n));
    else
      printf("%-18s %-9s %4d samples %3d points  %s\n", r.impl, r.status, r.nsamples, r.ipg.n, r.device);
    if (ge) fprintf(stderr, "lbsim: %s: %s (%s): %s\n", csv, r.impl, r.device, r.message), bad++;
    lbs_ipg_free(&r.ipg);
  }
  if (o->json && !e &&
      cli_json_print("calibrate import", json_pack("{s:O}", "ipgs", ipgs), LBS_JSON_SPACED,
                     LBS_JSON_SHORT))
    bad++;
  json_decref(ipgs);
  free(params);
  lbs_import_groups_free(g, ng);
  lbs_calib_close(&db);
  if (e) return cli_error(o->db, e);
  return bad ? 1 : 0;
}

static int do_list(const opts *o) {
  json_t *ks = o->json ? json_array() : NULL;
  for (int i = 0; lbs_adapter_at(i); i++) {
    const lbs_adapter *a = lbs_adapter_at(i);
    char names[512] = "";
    for (int k = 0; lbs_impl_at(k); k++)
      if (!strcmp(lbs_impl_at(k)->kernel, a->kernel))
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? ", " : "", lbs_impl_at(k)->target);
    if (o->json)
      json_array_append_new(ks, json_pack("{s:o,s:o,s:[o,o],s:o}", "kernel",
                                          lbs_json_str(a->kernel), "metric",
                                          lbs_json_str(a->metric), "range", lbs_json_real(a->lo),
                                          lbs_json_real(a->hi), "targets", lbs_json_str(names)));
    else
      printf("%-8s %-30s range %g:%g  targets: %s\n         %s\n", a->kernel, a->metric, a->lo, a->hi, names, a->help);
  }
  if (o->json)
    return cli_json_print("calibrate list", json_pack("{s:o}", "kernels", ks), LBS_JSON_SPACED,
                          LBS_JSON_EXACT);
  return 0;
}

int cmd_calibrate(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(usage_text, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *sub = argv[1];
  char command[2048] = "lbsim calibrate";
  for (int i = 1; i < argc; i++)
    snprintf(command + strlen(command), sizeof command - strlen(command), " %s", argv[i]);
  opts o = {0};
  o.accuracy = 5, o.min_abs = 5e-5, o.timeout = 300, o.repeat = 3, o.nverify = 250, o.seed = 1, o.floor_s = -1;
  enum { O_KERNEL = 256, O_IMPL, O_ACC, O_MINABS, O_MAXABS, O_RANGE, O_THREADS, O_DEVICE, O_TIMEOUT, O_MAXS, O_WINDOW,
         O_MAXPT, O_CONF, O_SETS, O_METS, O_CI, O_SET, O_SEED, O_JSON, O_CSV, O_FLOOR, O_REPEAT, O_INVOC,
         O_NODE, O_WORK, O_NOTCOST, O_PARTIAL };
  static const struct option lo[] = {
      {"kernel", 1, 0, O_KERNEL}, {"impl", 1, 0, O_IMPL}, {"output", 1, 0, 'o'}, {"accuracy", 1, 0, O_ACC},
      {"min-abs", 1, 0, O_MINABS}, {"max-abs", 1, 0, O_MAXABS}, {"range", 1, 0, O_RANGE}, {"threads", 1, 0, O_THREADS},
      {"device", 1, 0, O_DEVICE}, {"timeout", 1, 0, O_TIMEOUT}, {"max-samples", 1, 0, O_MAXS}, {"window", 1, 0, O_WINDOW},
      {"max-point-samples", 1, 0, O_MAXPT}, {"confidence", 1, 0, O_CONF}, {"sets", 1, 0, O_SETS}, {"mets", 1, 0, O_METS},
      {"ci", 1, 0, O_CI}, {"set", 1, 0, O_SET}, {"seed", 1, 0, O_SEED}, {"json", 0, 0, O_JSON}, {"csv", 1, 0, O_CSV},
      {"floor", 1, 0, O_FLOOR}, {"repeat", 1, 0, O_REPEAT}, {"invocations", 1, 0, O_INVOC},
      {"node", 1, 0, O_NODE}, {"work", 1, 0, O_WORK}, {"no-template-cost", 0, 0, O_NOTCOST},
      {"allow-partial", 0, 0, O_PARTIAL}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
  int c, rc = 0;
  int64_t v;
  optind = 2;
  opterr = 0;
  while (!rc && (c = getopt_long(argc, argv, "o:n:h", lo, NULL)) != -1) {
    switch (c) {
    case 'o': o.db = optarg; break;
    case O_KERNEL: o.kernel = optarg; break;
    case O_IMPL: o.impls = o.only = optarg; break;
    case O_ACC: rc = cli_parse_f64("--accuracy", optarg, 0.01, 1000, &o.accuracy); break;
    case O_MINABS: rc = cli_parse_f64("--min-abs", optarg, 0, 1e6, &o.min_abs); break;
    case O_MAXABS: rc = cli_parse_f64("--max-abs", optarg, 0, 1e6, &o.max_abs); break;
    case O_RANGE: o.range = optarg; break;
    case O_THREADS: rc = cli_parse_i64("--threads", optarg, 0, 4096, &v), o.threads = (int)v; break;
    case O_DEVICE: rc = cli_parse_i64("--device", optarg, 0, 1024, &v), o.device = (int)v; break;
    case O_TIMEOUT: rc = cli_parse_f64("--timeout", optarg, 0, 1e7, &o.timeout); break;
    case O_MAXS: rc = cli_parse_i64("--max-samples", optarg, 3, 10000000, &v), o.max_samples = (int)v; break;
    case O_WINDOW: rc = cli_parse_i64("--window", optarg, 1, 1000, &v), o.window = (int)v; break;
    case O_MAXPT: rc = cli_parse_i64("--max-point-samples", optarg, 3, 100000, &v), o.max_point = (int)v; break;
    case O_CONF: rc = cli_parse_f64("--confidence", optarg, 0.5, 0.9999, &o.confidence); break;
    case O_SETS: rc = cli_parse_f64("--sets", optarg, 0.01, 1000, &o.sets); break;
    case O_METS: rc = cli_parse_f64("--mets", optarg, 0.01, 1000, &o.mets); break;
    case O_CI: rc = cli_parse_f64("--ci", optarg, 0.01, 1000, &o.ci); break;
    case O_SET: rc = cli_parse_f64("--set", optarg, 0.01, 1000, &o.set); break;
    case O_SEED: rc = cli_parse_i64("--seed", optarg, 0, INT64_MAX, &o.seed); break;
    case O_JSON: o.json = 1; break;
    case O_CSV: o.csv_dir = optarg; break;
    case O_FLOOR: rc = cli_parse_f64("--floor", optarg, 0, 1e6, &o.floor_s); break;
    case O_REPEAT: rc = cli_parse_i64("--repeat", optarg, 1, LBS_CALIB_MAX_REPEAT, &v), o.repeat = (int)v; break;
    case O_INVOC:
      if (!strcmp(optarg, "usage")) o.varied = 0;
      else if (!strcmp(optarg, "varied")) o.varied = 1;
      else rc = cli_usage("calibrate", "--invocations: '%s' is neither usage nor varied", optarg);
      break;
    case O_NODE: o.node = optarg; break;
    case O_WORK: o.works = optarg; break;
    case O_NOTCOST: o.no_tcost = 1; break;
    case O_PARTIAL: o.allow_partial = 1; break;
    case 'n': rc = cli_parse_i64("-n", optarg, 1, 1000000, &v), o.nverify = (int)v; break;
    case 'h': fputs(usage_text, stdout); return 0;
    default: return cli_usage("calibrate", "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (rc) return rc;
  const char *arg = optind < argc ? argv[optind] : NULL;
  if (optind + 1 < argc) return cli_usage("calibrate", "unexpected argument '%s'", argv[optind + 1]);
  if (!strcmp(sub, "run")) {
    if (arg) return cli_usage("calibrate", "unexpected argument '%s'", arg);
    o.only = NULL;
    return do_run(&o, command);
  }
  if (!strcmp(sub, "list")) return do_list(&o);
  cli_plan_opts po = {o.db, o.kernel, o.node, o.range, o.works, o.repeat, o.json, !o.no_tcost, o.allow_partial};
  if (!strcmp(sub, "plan")) {
    if (arg) return cli_usage("calibrate", "unexpected argument '%s' (the database is -o calib.db)", arg);
    return cli_calibrate_plan(&po, command);
  }
  if (!strcmp(sub, "run-plan")) {
    if (!arg) return cli_usage("calibrate", "run-plan needs a calibration database");
    po.db = arg;
    return cli_calibrate_run_plan(&po);
  }
  if (!strcmp(sub, "verify") || !strcmp(sub, "show")) {
    if (!arg) return cli_usage("calibrate", "%s needs a calibration database", sub);
    o.db = arg;
    return !strcmp(sub, "verify") ? do_verify(&o) : do_show(&o);
  }
  if (!strcmp(sub, "import")) {
    if (!arg) return cli_usage("calibrate", "import needs a CSV file of samples");
    return do_import(&o, arg, command);
  }
  return cli_usage("calibrate", "unknown sub-command '%s' (run, verify, show, import, list, plan, run-plan)", sub);
}
