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
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_calibrate_plan.h"
#include "lbs_calib.h"
#include "lbs_calib_run.h"
#include "lbs_traces.h"

static const char usage_text[] =
    "usage: lbsim calibrate run --kernel K [--impl LIST] -o calib.db [options]\n"
    "       lbsim calibrate verify calib.db [--impl NAME] [-n 250] [--json]\n"
    "       lbsim calibrate show calib.db [--json | --csv DIR [-f]]\n"
    "       lbsim calibrate import samples.csv -o calib.db [--accuracy PCT] [--min-abs S]\n"
    "       lbsim calibrate list\n"
    "       lbsim calibrate plan --kernel K [--node threads=N,opencl=N,cuda=N] -o calib.db\n"
    "       lbsim calibrate run-plan calib.db [--kernel K] [--work W,...] [--repeat R]\n"
    "                [--warmup N] [--json]\n"
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
    "  --range-from TRACE  the range a replay of TRACE asks of the kernel: from its metric's\n"
    "                      smallest element value above 0 to its largest step's total (one\n"
    "                      processor given all), in the kernel's unit (docs/calibration.md)\n"
    "  --trace-metric M    that metric (default: the trace's metric in the kernel's unit)\n"
    "  --metric-per-work F work-metric units per unit of M (default 1), as ipg_metric_per_work\n"
    "  --threads N         threads of the threads target (default: the online CPUs)\n"
    "  --device I          OpenCL / CUDA device index (default 0)\n"
    "  --timeout S         per implementation, seconds (default 300): at 90% it stops with a\n"
    "                      partial IPG, at 100% it is killed (failed); the others go on\n"
    "  --max-samples N     stop an implementation after N samples (default 4000)\n"
    "  --window N, --max-point-samples N, --confidence C, --sets PCT, --mets PCT, --ci PCT,\n"
    "  --set-pct PCT       the heuristic's parameters (seed 004 Table 4-3; --set-pct is its SET),\n"
    "                      see docs/calibration.md\n"
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
    "  --warmup N          untimed runs before each measurement (default 1; 0..15): the IPGs\n"
    "                      are measured warm, and a GPU left idle starts its first calls slowly\n"
    "show prints the plans' implementation and parallelization tables after the IPGs.\n"
    "show options:\n"
    "  --csv DIR           ipgs.csv, points.csv, samples.csv, verifies.csv and plan_pieces.csv in\n"
    "                      DIR, which must be new or empty\n"
    "  -f, --force         replace DIR when it holds only an earlier 'calibrate show --csv'\n"
    "common: --json (machine-readable output on stdout), -h/--help; an option of another\n"
    "sub-command is refused (a usage error naming those that take it)\n"
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
  const char *range_from, *trace_metric; /* --range-from TRACE, --trace-metric M */
  double mpw;                            /* --metric-per-work (0: not given, 1) */
  double range_lo, range_hi;             /* from --range-from, when given */
  double accuracy, min_abs, max_abs, timeout, floor_s, confidence;
  double sets, mets, ci, set;
  int threads, device, json, force, nverify, window, max_point, max_samples, repeat, varied,
      no_tcost, allow_partial, warmup;
  int64_t seed;
  int given[64], ngiven; /* the options given, as getopt returned them */
} opts;

/* ---------------------------------------------------------------- machine and progress */

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
  cli_progress_update(&p->bar,
                      (int64_t)(1000 * log(f / lo) / log(p->hi / lo > 1 ? p->hi / lo : 2)));
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
    if (strchr(tok, '.'))
      snprintf(name, sizeof name, "%s", tok);
    else if (!o->kernel)
      return -cli_usage("calibrate", "--impl %s: a target needs --kernel (or name kernel.target)",
                        tok);
    else
      snprintf(name, sizeof name, "%s.%s", o->kernel, tok);
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

/* One implementation's IPG: measured in a child process, stored, said (JSON into ipgs). 0; 1 with
 * *e set when it could not run or be stored (the caller says why: *bad names who). */
static int run_one(const opts *o, lbs_calib_db *db, int64_t run_id, const lbs_impl_ops *impl,
                   json_t *ipgs, int *complete, lbs_err *e, const char **bad) {
  lbs_calib_job job = {.kind = LBS_JOB_IA,
                       .adapter = lbs_adapter_find(impl->kernel),
                       .impl = impl,
                       .threads = o->threads,
                       .device = o->device,
                       .seed = (uint64_t)o->seed,
                       .repeat = o->repeat,
                       .timeout_s = o->timeout};
  job.lo = job.adapter->lo, job.hi = job.adapter->hi;
  if (o->range) parse_range(o->range, &job.lo, &job.hi); /* checked before */
  if (o->range_from) job.lo = o->range_lo, job.hi = o->range_hi;
  opts_ia(o, &job.opts);
  char name[96], label[128];
  lbs_impl_name(impl, name, sizeof name);
  progress_ctx pc = {{0}, job.lo, job.hi, 0};
  snprintf(label, sizeof label, "calibrate %s", name);
  cli_progress_start(&pc.bar, label, 1000);
  job.progress = on_progress, job.pctx = &pc;
  lbs_calib_job_out out;
  *e = lbs_calib_job_run(&job, &out);
  cli_progress_end(&pc.bar);
  if (*e) return *bad = impl->kernel, 1; /* reported with the name by the caller */
  lbs_ipg_rec r;
  if ((*e = lbs_calib_store_ia(db, run_id, &job, &out, &r)))
    return lbs_calib_job_out_free(&out), *bad = o->db, 1;
  *complete += out.complete;
  if (o->json)
    json_array_append_new(
        ipgs, json_pack("{s:I,s:o,s:o,s:s,s:i,s:i,s:o,s:o}", "id", (json_int_t)r.id, "impl",
                        lbs_json_str(name), "device", lbs_json_str(r.device), "status", r.status,
                        "samples", out.nsamples, "points", out.ipg.n, "seconds",
                        lbs_json_fixed(out.seconds, 3), "message", lbs_json_str(r.message)));
  else {
    printf("%-18s %-9s %4d samples %3d points %7.1f s  %s\n", name, r.status, out.nsamples,
           out.ipg.n, out.seconds, r.device);
    if (r.message[0]) printf("  %s\n", r.message);
  }
  if (!out.complete)
    fprintf(stderr, "lbsim: %s: %s\n", name, out.message[0] ? out.message : "incomplete IPG");
  else if (out.note[0])
    fprintf(stderr, "lbsim: warning: %s: %s\n", name, out.note);
  lbs_calib_job_out_free(&out);
  return 0;
}

/* The trace metric --range-from reads: --trace-metric's (named: the user vouches for its unit,
 * converted by --metric-per-work), else the one in the kernel's unit; -1 after saying why. */
static int trace_metric_of(const opts *o, lbs_trace *t, const char *unit) {
  if (o->trace_metric) {
    int m = lbs_trace_metric_find(t, o->trace_metric);
    if (m < 0)
      fprintf(stderr, "lbsim: calibrate: %s has no metric '%s'\n", o->range_from, o->trace_metric);
    return m;
  }
  char list[512] = "";
  for (int m = 0; m < lbs_trace_nmetrics(t); m++) {
    lbs_metric_info mi;
    if (lbs_trace_metric(t, m, &mi)) continue;
    const char *u = mi.unit && *mi.unit ? mi.unit : mi.name;
    if (*unit && !strcasecmp(u, unit)) return m;
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s (%s)", m ? ", " : "", mi.name,
             u);
  }
  fprintf(stderr,
          "lbsim: calibrate: %s has no metric in the kernel's unit '%s' (it has %s): name the one "
          "the replay will use, --trace-metric M with --metric-per-work F (%s per unit of M)\n",
          o->range_from, unit, list, unit);
  return -1;
}

/* --range-from: the work metrics a replay of the trace's metric asks of the kernel of adapter a
 * into o->range_lo, o->range_hi (see the usage); 0, or 1 after saying why. */
static int range_from_trace(opts *o, const lbs_adapter *a) {
  char unit[64];
  lbs_ipg_metric_unit(a->metric, unit, sizeof unit);
  lbs_trace *t = NULL;
  lbs_err e = lbs_trace_open(o->range_from, &t);
  if (e) return cli_error(o->range_from, e);
  int m = trace_metric_of(o, t, unit);
  int64_t E = lbs_trace_elements(t), S = lbs_trace_steps(t);
  double *v = m < 0 ? NULL : malloc((size_t)(E > 0 ? E : 1) * sizeof *v), lo = INFINITY, hi = 0;
  if (m >= 0 && !v) e = lbs_fail(LBS_NOMEM, "%s", o->range_from);
  for (int64_t s = 0; v && !e && s < S; s++) {
    double total = 0;
    if ((e = lbs_trace_read(t, s, m, 0, E, v))) break;
    for (int64_t i = 0; i < E; i++)
      if (v[i] > 0) total += v[i], lo = v[i] < lo ? v[i] : lo;
    hi = total > hi ? total : hi;
  }
  free(v);
  lbs_trace_close(&t);
  if (m < 0) return 1;
  if (e) return cli_error(o->range_from, e);
  double f = o->mpw > 0 ? o->mpw : 1;
  if (!(hi > 0))
    return fprintf(stderr, "lbsim: calibrate: %s: its metric holds no work\n", o->range_from), 1;
  o->range_lo = lo * f, o->range_hi = hi * f;
  if (!o->json)
    printf("range         %g:%g %s, from %s (%g to %g per step of its metric, x %g)\n", o->range_lo,
           o->range_hi, unit, o->range_from, lo, hi, f);
  return 0;
}

static int do_run(opts *o, const char *command) {
  if (!o->db) return cli_usage("calibrate", "run needs -o calib.db");
  if (!o->kernel && !o->impls)
    return cli_usage("calibrate", "run needs --kernel K or --impl kernel.target,...");
  if (o->kernel && !lbs_adapter_find(o->kernel))
    return cli_usage("calibrate", "unknown kernel '%s' ('lbsim calibrate list' shows them)",
                     o->kernel);
  const lbs_impl_ops *impls[64];
  int n = pick_impls(o, impls, 64);
  if (n < 0) return -n;
  if (!n) return cli_usage("calibrate", "no implementation of kernel '%s' was built", o->kernel);
  double lo, hi; /* checked before the database is made or added to */
  if (o->range && parse_range(o->range, &lo, &hi))
    return cli_usage("calibrate", "--range %s: expected LO:HI with 0 <= LO <= HI", o->range);
  if (o->range && o->range_from)
    return cli_usage("calibrate", "--range and --range-from both give the range; give one");
  if ((o->trace_metric || o->mpw > 0) && !o->range_from)
    return cli_usage("calibrate", "--trace-metric and --metric-per-work go with --range-from");
  for (int i = 1; o->range_from && i < n; i++)
    if (strcmp(impls[i]->kernel, impls[0]->kernel))
      return cli_usage("calibrate", "--range-from: one kernel at a time (%s, %s)", impls[0]->kernel,
                       impls[i]->kernel);
  if (o->range_from && range_from_trace(o, lbs_adapter_find(impls[0]->kernel))) return 1;
  if (cli_check_output(o->db, CLI_OUT_APPEND, CLI_FILE_STORE)) return 1;
  lbs_calib_db *db = NULL;
  int64_t run_id = 0;
  lbs_err e = lbs_calib_open(o->db, 1, &db);
  char *machine = e ? NULL : lbs_calib_machine_json();
  if (!e) e = lbs_calib_begin_run(db, command, machine, &run_id);
  free(machine);
  if (e) return lbs_calib_close(&db), cli_error(o->db, e);
  int complete = 0, rc = 0;
  json_t *ipgs = o->json ? json_array() : NULL; /* --json: one line at the end */
  const char *bad = NULL;
  for (int k = 0; k < n && !rc; k++)
    if (run_one(o, db, run_id, impls[k], ipgs, &complete, &e, &bad)) {
      char name[96];
      rc = cli_error(bad == o->db ? o->db : lbs_impl_name(impls[k], name, sizeof name), e);
    }
  lbs_calib_close(&db);
  if (rc) return json_decref(ipgs), rc;
  if (o->json && cli_json_print("calibrate run",
                                json_pack("{s:o,s:I,s:o,s:i,s:i}", "database", lbs_json_str(o->db),
                                          "run", (json_int_t)run_id, "ipgs", ipgs, "complete",
                                          complete, "failed", n - complete),
                                LBS_JSON_SPACED))
    return 1;
  return n - complete ? 1 : 0;
}

/* ---------------------------------------------------------------- verify */

/* Verifies IPG r: its implementation's invocations in a child process, the errors stored and
 * said (JSON into vers). 0; 1 when it could not be verified (said: counted as bad); -1 with *e
 * set when the job could not run or the store failed. */
static int verify_one(const opts *o, lbs_calib_db *db, const lbs_ipg_rec *r,
                      const lbs_impl_ops *impl, json_t *vers, lbs_err *e) {
  lbs_calib_job job = {.kind = LBS_JOB_VERIFY,
                       .adapter = lbs_adapter_find(impl->kernel),
                       .impl = impl,
                       .threads = o->threads,
                       .device = o->device,
                       .lo = r->lo,
                       .hi = r->hi,
                       .nverify = o->nverify,
                       .varied = o->varied,
                       .repeat = o->repeat,
                       .seed = (uint64_t)o->seed + 1000003,
                       .timeout_s = o->timeout};
  progress_ctx pc = {{0}, 0, 0, 1};
  char label[128];
  snprintf(label, sizeof label, "verify %s", r->impl);
  cli_progress_start(&pc.bar, label, o->nverify);
  job.progress = on_progress, job.pctx = &pc;
  lbs_calib_job_out out;
  *e = lbs_calib_job_run(&job, &out);
  cli_progress_end(&pc.bar);
  if (*e) return -1;
  if (!out.complete || out.err) {
    fprintf(stderr, "lbsim: %s: verification failed: %s\n", r->impl, out.message);
    lbs_calib_job_out_free(&out);
    return 1;
  }
  /* the floor: --floor, else the accuracy's absolute floor the IPG was built with */
  double floor_s = o->floor_s >= 0 ? o->floor_s : lbs_calib_floor(r), med = 0;
  lbs_verify v;
  if (!(*e = lbs_calib_verify_errors(r, &out, floor_s, &v, &med)))
    *e = lbs_calib_put_verify(db, r->id, &v);
  if (o->json && v.pred)
    json_array_append_new(
        vers, json_pack("{s:I,s:o,s:o,s:s,s:i,s:o,s:o,s:o,s:o,s:o,s:o}", "ipg", (json_int_t)r->id,
                        "impl", lbs_json_str(r->impl), "device", lbs_json_str(r->device),
                        "invocations", o->varied ? "varied" : "usage", "n", v.n, "floor_s",
                        lbs_json_sig(floor_s, 6), "mean_err", lbs_json_fixed(v.mean_err, 6),
                        "rms_err", lbs_json_fixed(v.rms_err, 6), "max_err",
                        lbs_json_fixed(v.max_err, 6), "median_err", lbs_json_fixed(med, 6),
                        "mean_err_floor", lbs_json_fixed(v.mean_err_floor, 6)));
  else if (v.pred)
    printf("%-18s %5d %8.2f%% %8.2f%% %8.1f%% %9.2f%%  %s\n", r->impl, v.n, 100 * v.mean_err,
           100 * v.rms_err, 100 * v.max_err, 100 * v.mean_err_floor, r->device);
  free(v.pred);
  lbs_calib_job_out_free(&out);
  return *e ? -1 : 0;
}

static int do_verify(const opts *o) {
  lbs_calib_db *db = NULL;
  lbs_ipg_rec *recs = NULL;
  int n = 0, bad = 0, done = 0;
  lbs_err e = lbs_calib_open(o->db, 0, &db);
  if (!e) e = lbs_calib_list(db, &recs, &n);
  if (e) return lbs_calib_close(&db), cli_error(o->db, e);
  json_t *vers = o->json ? json_array() : NULL; /* --json: one line at the end */
  if (!o->json)
    printf("%s invocations\n%-18s %5s %9s %9s %9s %10s  %s\n", o->varied ? "varied" : "usage",
           "implementation", "n", "mean err", "rms err", "max err", "mean(floor)", "device");
  for (int k = 0; k < n && !e; k++) {
    lbs_ipg_rec *r = &recs[k];
    if (strcmp(r->status, "complete") || (o->only && strcmp(o->only, r->impl)) ||
        !lbs_calib_newest(recs, n, k))
      continue; /* only the newest complete IPG of each implementation and device */
    const lbs_impl_ops *impl;
    if (lbs_impl_find(r->impl, &impl)) {
      fprintf(stderr, "lbsim: %s (%s): not verified: lbsim cannot run it here (imported)\n",
              r->impl, r->device);
      continue;
    }
    int v = verify_one(o, db, r, impl, vers, &e);
    bad += v > 0, done += v <= 0;
  }
  int jbad = 0;
  if (o->json && !e)
    jbad = cli_json_print(
        "calibrate verify",
        json_pack("{s:o,s:o}", "database", lbs_json_str(o->db), "verifications", json_incref(vers)),
        LBS_JSON_SPACED);
  json_decref(vers);
  for (int k = 0; k < n; k++) lbs_ipg_rec_free(&recs[k]);
  free(recs);
  lbs_calib_close(&db);
  if (e) return cli_error(o->db, e);
  if (jbad) return 1;
  if (!done && !bad) {
    fprintf(stderr, "lbsim: %s: no complete IPG%s%s to verify\n", o->db, o->only ? " of " : "",
            o->only ? o->only : "");
    return 1;
  }
  return bad ? 1 : 0;
}

/* ---------------------------------------------------------------- show, import, list */

/* --csv DIR: written into a fresh directory renamed into place, as every --csv DIR is, so that
 * a user's files there are never written over and no stale file of an earlier export stays. */
static int show_csv(const opts *o) {
  cli_outdir od;
  if (cli_outdir_check_as(&od, "calibrate show", o->csv_dir, o->force, CLI_DIR_CALIB)) return 1;
  lbs_calib_db *db = NULL;
  lbs_err e = lbs_calib_open(o->db, 0, &db);
  if (e) return cli_error(o->db, e);
  int rc = cli_outdir_begin(&od);
  if (!rc && (e = lbs_calib_export_csv(db, od.tmp))) rc = cli_error("calibrate show", e);
  if (!rc) rc = cli_outdir_commit(&od);
  cli_outdir_abort(&od);
  lbs_calib_close(&db);
  return rc;
}

static int do_show(const opts *o) {
  if (o->json && o->csv_dir) return cli_usage("calibrate", "--json and --csv go separately");
  if (o->force && (!o->csv_dir || o->json))
    return cli_usage("calibrate", "--force goes with show --csv DIR");
  if (o->csv_dir && !o->json) return show_csv(o);
  lbs_calib_db *db = NULL;
  lbs_err e = lbs_calib_open(o->db, 0, &db);
  if (e) return cli_error(o->db, e);
  if (o->json)
    e = lbs_calib_export_json(db, stdout);
  else {
    lbs_ipg_rec *recs = NULL;
    int n = 0;
    if (!(e = lbs_calib_list(db, &recs, &n))) {
      printf("%4s %-18s %-9s %14s %7s %6s %8s  %s\n", "id", "implementation", "status", "range",
             "samples", "points", "seconds", "device");
      for (int k = 0; k < n; k++) {
        lbs_ipg_rec *r = &recs[k];
        char range[64];
        snprintf(range, sizeof range, "%g:%g", r->lo, r->hi);
        printf("%4lld %-18s %-9s %14s %7d %6d %8.1f  %s\n", (long long)r->id, r->impl, r->status,
               range, r->nsamples, r->ipg.n, r->seconds, r->device);
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
  return e ? cli_error(o->db, e) : 0;
}

static int do_import(const opts *o, const char *csv, const char *command) {
  if (!o->db) return cli_usage("calibrate", "import needs -o calib.db");
  lbs_import_group *g = NULL;
  int ng = 0, bad = 0;
  lbs_err e = lbs_calib_read_csv(csv, &g, &ng);
  if (e) return cli_error(csv, e);
  if (cli_check_output(o->db, CLI_OUT_APPEND, CLI_FILE_STORE))
    return lbs_import_groups_free(g, ng), 1;
  lbs_calib_db *db = NULL;
  int64_t run_id = 0;
  json_t *mj = json_pack("{s:o}", "imported", lbs_json_str(csv)),
         *ipgs = o->json ? json_array() : NULL;
  char *machine = lbs_json_dumps(mj, LBS_JSON_SPACED);
  json_decref(mj);
  if (!(e = lbs_calib_open(o->db, 1, &db))) e = lbs_calib_begin_run(db, command, machine, &run_id);
  free(machine);
  lbs_ia_bound acc = {o->accuracy, o->min_abs, o->max_abs};
  char *params = lbs_calib_import_params_json(&acc);
  for (int k = 0; !e && k < ng; k++) {
    lbs_ipg_rec r;
    e = lbs_calib_store_import(db, run_id, &g[k], &acc, params, &r);
    if (o->json)
      json_array_append_new(ipgs, json_pack("{s:o,s:o,s:s,s:i,s:i}", "impl", lbs_json_str(r.impl),
                                            "device", lbs_json_str(r.device), "status", r.status,
                                            "samples", r.nsamples, "points", r.ipg.n));
    else
      printf("%-18s %-9s %4d samples %3d points  %s\n", r.impl, r.status, r.nsamples, r.ipg.n,
             r.device);
    if (!strcmp(r.status, "failed"))
      fprintf(stderr, "lbsim: %s: %s (%s): %s\n", csv, r.impl, r.device, r.message), bad++;
    lbs_ipg_free(&r.ipg);
  }
  if (o->json && !e &&
      cli_json_print("calibrate import", json_pack("{s:O}", "ipgs", ipgs), LBS_JSON_SPACED))
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
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? ", " : "",
                 lbs_impl_at(k)->target);
    if (o->json)
      json_array_append_new(ks, json_pack("{s:o,s:o,s:[o,o],s:o}", "kernel",
                                          lbs_json_str(a->kernel), "metric",
                                          lbs_json_str(a->metric), "range", lbs_json_real(a->lo),
                                          lbs_json_real(a->hi), "targets", lbs_json_str(names)));
    else
      printf("%-8s %-30s range %g:%g  targets: %s\n         %s\n", a->kernel, a->metric, a->lo,
             a->hi, names, a->help);
  }
  if (o->json)
    return cli_json_print("calibrate list", json_pack("{s:o}", "kernels", ks), LBS_JSON_SPACED);
  return 0;
}

enum {
  O_KERNEL = 256,
  O_IMPL,
  O_ACC,
  O_MINABS,
  O_MAXABS,
  O_RANGE,
  O_THREADS,
  O_DEVICE,
  O_TIMEOUT,
  O_MAXS,
  O_WINDOW,
  O_MAXPT,
  O_CONF,
  O_SETS,
  O_METS,
  O_CI,
  O_SET,
  O_SEED,
  O_JSON,
  O_CSV,
  O_FLOOR,
  O_REPEAT,
  O_WARMUP,
  O_INVOC,
  O_NODE,
  O_WORK,
  O_NOTCOST,
  O_PARTIAL,
  O_RANGE_FROM,
  O_TRACE_METRIC,
  O_MPW
};

/* An option taking a number: 0, or 2 after a usage error naming it. */
static int number_opt(int c, const char *arg, opts *o) {
  int64_t v;
  int rc;
  switch (c) {
  case O_ACC: return cli_parse_f64("--accuracy", arg, 0.01, 1000, &o->accuracy);
  case O_MINABS: return cli_parse_f64("--min-abs", arg, 0, 1e6, &o->min_abs);
  case O_MAXABS: return cli_parse_f64("--max-abs", arg, 0, 1e6, &o->max_abs);
  case O_THREADS: rc = cli_parse_i64("--threads", arg, 0, 4096, &v), o->threads = (int)v; return rc;
  case O_DEVICE: rc = cli_parse_i64("--device", arg, 0, 1024, &v), o->device = (int)v; return rc;
  case O_TIMEOUT: return cli_parse_f64("--timeout", arg, 0, 1e7, &o->timeout);
  case O_MAXS:
    rc = cli_parse_i64("--max-samples", arg, 3, 10000000, &v), o->max_samples = (int)v;
    return rc;
  case O_WINDOW: rc = cli_parse_i64("--window", arg, 1, 1000, &v), o->window = (int)v; return rc;
  case O_MAXPT:
    rc = cli_parse_i64("--max-point-samples", arg, 3, 100000, &v), o->max_point = (int)v;
    return rc;
  case O_CONF: return cli_parse_f64("--confidence", arg, 0.5, 0.9999, &o->confidence);
  case O_SETS: return cli_parse_f64("--sets", arg, 0.01, 1000, &o->sets);
  case O_METS: return cli_parse_f64("--mets", arg, 0.01, 1000, &o->mets);
  case O_CI: return cli_parse_f64("--ci", arg, 0.01, 1000, &o->ci);
  case O_SET: return cli_parse_f64("--set-pct", arg, 0.01, 1000, &o->set);
  case O_SEED: return cli_parse_i64("--seed", arg, 0, INT64_MAX, &o->seed);
  case O_FLOOR: return cli_parse_f64("--floor", arg, 0, 1e6, &o->floor_s);
  case O_MPW: return cli_parse_f64("--metric-per-work", arg, 1e-15, 1e15, &o->mpw);
  case O_REPEAT:
    rc = cli_parse_i64("--repeat", arg, 1, LBS_CALIB_MAX_REPEAT, &v), o->repeat = (int)v;
    return rc;
  case O_WARMUP:
    rc = cli_parse_i64("--warmup", arg, 0, LBS_CALIB_MAX_REPEAT, &v), o->warmup = (int)v;
    return rc;
  case 'n': rc = cli_parse_i64("-n", arg, 1, 1000000, &v), o->nverify = (int)v; return rc;
  }
  return -1;
}

/* Every sub-command's options, by long name (-n is "n"), space-separated. */
static const struct {
  const char *sub, *takes;
} sub_opts[] = {
    {"run", " kernel impl output accuracy min-abs max-abs range range-from trace-metric "
            "metric-per-work threads device timeout max-samples window max-point-samples "
            "confidence sets mets ci set-pct seed repeat json "},
    {"verify", " impl n floor invocations threads device timeout repeat seed json "},
    {"show", " csv force json "},
    {"import", " output accuracy min-abs max-abs json "},
    {"list", " json "},
    {"plan", " kernel node range no-template-cost allow-partial output json "},
    {"run-plan", " kernel work repeat warmup json "},
};

static const struct option long_opts[] = {{"kernel", 1, 0, O_KERNEL},
                                          {"impl", 1, 0, O_IMPL},
                                          {"output", 1, 0, 'o'},
                                          {"accuracy", 1, 0, O_ACC},
                                          {"min-abs", 1, 0, O_MINABS},
                                          {"max-abs", 1, 0, O_MAXABS},
                                          {"range", 1, 0, O_RANGE},
                                          {"range-from", 1, 0, O_RANGE_FROM},
                                          {"trace-metric", 1, 0, O_TRACE_METRIC},
                                          {"metric-per-work", 1, 0, O_MPW},
                                          {"threads", 1, 0, O_THREADS},
                                          {"device", 1, 0, O_DEVICE},
                                          {"timeout", 1, 0, O_TIMEOUT},
                                          {"max-samples", 1, 0, O_MAXS},
                                          {"window", 1, 0, O_WINDOW},
                                          {"max-point-samples", 1, 0, O_MAXPT},
                                          {"confidence", 1, 0, O_CONF},
                                          {"sets", 1, 0, O_SETS},
                                          {"mets", 1, 0, O_METS},
                                          {"ci", 1, 0, O_CI},
                                          {"set-pct", 1, 0, O_SET},
                                          CLI_SET_OPTION,
                                          {"seed", 1, 0, O_SEED},
                                          {"json", 0, 0, O_JSON},
                                          {"csv", 1, 0, O_CSV},
                                          {"force", 0, 0, 'f'},
                                          {"floor", 1, 0, O_FLOOR},
                                          {"repeat", 1, 0, O_REPEAT},
                                          {"warmup", 1, 0, O_WARMUP},
                                          {"invocations", 1, 0, O_INVOC},
                                          {"node", 1, 0, O_NODE},
                                          {"work", 1, 0, O_WORK},
                                          {"no-template-cost", 0, 0, O_NOTCOST},
                                          {"allow-partial", 0, 0, O_PARTIAL},
                                          {"help", 0, 0, 'h'},
                                          {0, 0, 0, 0}};

/* The options after the sub-command into o: 0, 2 after a usage error, or -1 after --help. */
static int parse(int argc, char **argv, opts *o) {
  int c, rc = 0;
  optind = 2;
  opterr = 0;
  while (!rc && (c = cli_getopt(argc, argv, "o:n:fh", long_opts)) != -1) {
    if (o->ngiven < 64) o->given[o->ngiven++] = c;
    if ((rc = number_opt(c, optarg, o)) >= 0) continue;
    rc = 0;
    switch (c) {
    case 'o': rc = cli_output_arg("calibrate", "-o", optarg, &o->db); break;
    case CLI_SET:
      rc = cli_usage("calibrate",
                     "--set %s: calibrate reads no configuration to override (--set KEY=VALUE); "
                     "the heuristic's SET is --set-pct PCT",
                     optarg);
      break;
    case O_KERNEL: o->kernel = optarg; break;
    case O_IMPL: o->impls = o->only = optarg; break;
    case O_RANGE: o->range = optarg; break;
    case O_RANGE_FROM: o->range_from = optarg; break;
    case O_TRACE_METRIC: o->trace_metric = optarg; break;
    case O_JSON: o->json = 1; break;
    case O_CSV: o->csv_dir = optarg; break;
    case 'f': o->force = 1; break;
    case O_INVOC:
      if (!strcmp(optarg, "usage"))
        o->varied = 0;
      else if (!strcmp(optarg, "varied"))
        o->varied = 1;
      else
        rc = cli_usage("calibrate", "--invocations: '%s' is neither usage nor varied", optarg);
      break;
    case O_NODE: o->node = optarg; break;
    case O_WORK: o->works = optarg; break;
    case O_NOTCOST: o->no_tcost = 1; break;
    case O_PARTIAL: o->allow_partial = 1; break;
    case 'h': fputs(usage_text, stdout); return -1;
    default: return cli_bad_option("calibrate");
    }
  }
  return rc;
}

/* The long name of option c ("n" for -n). */
static const char *opt_name(int c) {
  for (const struct option *l = long_opts; l->name; l++)
    if (l->val == c) return l->name;
  return c == 'n' ? "n" : "?";
}

/* 0 when sub takes every option given, else 2 after a usage error naming the first that it does
 * not take and the sub-commands that do. */
static int options_fit(const char *sub, const opts *o) {
  for (int i = 0; i < o->ngiven; i++) {
    char key[40], with[160] = "";
    int takes = 0;
    const char *name = opt_name(o->given[i]);
    snprintf(key, sizeof key, " %s ", name);
    for (size_t k = 0; k < sizeof sub_opts / sizeof *sub_opts; k++)
      if (strstr(sub_opts[k].takes, key)) {
        takes |= !strcmp(sub_opts[k].sub, sub);
        snprintf(with + strlen(with), sizeof with - strlen(with), "%s%s", with[0] ? ", " : "",
                 sub_opts[k].sub);
      }
    if (!takes)
      return cli_usage("calibrate", "%s%s: %s does not take it (%s does)", name[1] ? "--" : "-",
                       name, sub, with);
  }
  return 0;
}

/* One of the sub-commands, so that 'lbsim help calibrate NAME' names a wrong NAME too. */
static int known_sub(const char *sub) {
  static const char *const subs[] = {"run", "verify", "show", "import", "list", "plan", "run-plan"};
  for (size_t i = 0; i < sizeof subs / sizeof *subs; i++)
    if (!strcmp(sub, subs[i])) return 1;
  return 0;
}

int cmd_calibrate(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(usage_text, argc < 2 ? stderr : stdout);
    return argc < 2 ? cli_usage("calibrate", "expected a sub-command") : 0;
  }
  const char *sub = argv[1];
  if (!known_sub(sub))
    return cli_unknown_sub("calibrate", "sub-command", sub,
                           "run, verify, show, import, list, plan, run-plan");
  char command[2048] = "lbsim calibrate";
  for (int i = 1; i < argc; i++)
    snprintf(command + strlen(command), sizeof command - strlen(command), " %s", argv[i]);
  opts o = {.accuracy = 5,
            .min_abs = 5e-5,
            .timeout = 300,
            .repeat = 3,
            .warmup = 1,
            .nverify = 250,
            .seed = 1,
            .floor_s = -1};
  int rc = parse(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  if ((rc = options_fit(sub, &o))) return rc;
  const char *arg = optind < argc ? argv[optind] : NULL;
  if (optind + 1 < argc)
    return cli_usage("calibrate", "unexpected argument '%s'", argv[optind + 1]);
  if (o.force && strcmp(sub, "show")) /* the databases are added to, never replaced */
    return cli_usage("calibrate", "--force goes with show --csv DIR");
  if (!strcmp(sub, "run")) {
    if (arg) return cli_usage("calibrate", "unexpected argument '%s'", arg);
    o.only = NULL;
    return do_run(&o, command);
  }
  if (!strcmp(sub, "list"))
    return arg ? cli_usage("calibrate", "unexpected argument '%s'", arg) : do_list(&o);
  cli_plan_opts po = {o.db,     o.kernel, o.node,      o.range,         o.works,
                      o.repeat, o.json,   !o.no_tcost, o.allow_partial, o.warmup};
  if (!strcmp(sub, "plan")) {
    if (arg)
      return cli_usage("calibrate", "unexpected argument '%s' (the database is -o calib.db)", arg);
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
  return cli_unknown_sub("calibrate", "sub-command", sub,
                         "run, verify, show, import, list, plan, run-plan");
}
