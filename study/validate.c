/* validate.c - predictions checked against real runs (lbsim validate, lbs_validate.h): the
 * profile and the app it came from, the plan (a replay and a schedule per policy), the real
 * runs as child processes under mpiexec, their statistics and each pair of policies' verdict,
 * and the validation saved to a results store. Reports through the caller's lbs_progress_fn; never
 * prints. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lbs_compare.h"
#include "lbs_grid.h"
#include "lbs_validate.h"

extern char **environ;

/* ---------------------------------------------------------------- the profile and its app */

lbs_err lbs_validate_init(lbs_validate *v) {
  memset(v, 0, sizeof *v);
  size_t n = 0;
  while (environ[n]) n++;
  if (!(v->env = calloc(n + 1, sizeof *v->env)))
    return lbs_fail(LBS_NOMEM, "validate: environment");
  for (size_t i = 0; i < n; i++)
    if (!(v->env[i] = strdup(environ[i]))) return lbs_fail(LBS_NOMEM, "validate: environment");
  return LBS_OK;
}

/* The trace is a whole profile of one of lbsim's apps, every step profiled, on the ranks asked. */
static lbs_err check_profile(lbs_validate *v, const lbs_validate_opts *o) {
  const char *path = v->trace_path, *pranks = lbs_trace_meta(v->trace, "profiler.ranks"),
             *every = lbs_trace_meta(v->trace, "profiler.sample_every"),
             *complete = lbs_trace_meta(v->trace, "profiler.complete");
  v->app = lbs_trace_meta(v->trace, "app.name");
  if (!v->app || !pranks)
    return lbs_fail(LBS_FORMAT,
                    "%s: not a profile of one of lbsim's apps (no %s key); profile one, e.g. "
                    "'mpiexec -n 2 build/bin/wave --trace wave.lbt'",
                    path, !pranks ? "profiler.ranks" : "app.name");
  if (every && strcmp(every, "1"))
    return lbs_fail(LBS_INVAL,
                    "%s: sampled every %s steps; validation needs every step profiled (the "
                    "replay's total covers "
                    "the sampled steps only)",
                    path, every);
  if (!complete || strcmp(complete, "yes"))
    return lbs_fail(LBS_INVAL, "%s: the profiled run did not end cleanly (profiler.complete = %s)",
                    path, complete ? complete : "missing");
  v->ranks = atoi(pranks);
  if (o->ranks && o->ranks != v->ranks)
    return lbs_fail(LBS_INVAL,
                    "%s was profiled on %d ranks, --ranks says %lld: the real runs must use the "
                    "profiled rank count",
                    path, v->ranks, (long long)o->ranks);
  return LBS_OK;
}

/* The app: o->app, which must be named as the profiled one, or app.name beside this program. */
static lbs_err find_app(lbs_validate *v, const lbs_validate_opts *o) {
  if (o->app) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", o->app);
    if (strcmp(basename(tmp), v->app))
      return lbs_fail(LBS_INVAL, "%s is a profile of '%s', --app runs '%s'", v->trace_path, v->app,
                      basename(tmp));
    snprintf(v->app_bin, sizeof v->app_bin, "%s", o->app);
  } else {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return lbs_fail(LBS_NOTFOUND, "cannot find lbsim's own directory; give --app PATH");
    self[n] = '\0';
    snprintf(v->app_bin, sizeof v->app_bin, "%s/%s", dirname(self), v->app);
  }
  if (access(v->app_bin, X_OK))
    return lbs_fail(LBS_NOTFOUND,
                    "%s: the app '%s' is not there or not executable (%s); give --app PATH",
                    v->app_bin, v->app, strerror(errno));
  const char *args = lbs_trace_meta(v->trace, "app.args");
  if (!(v->args = strdup(args ? args : ""))) return lbs_fail(LBS_NOMEM, "validate");
  return LBS_OK;
}

/* The session: what the app ran with (the trace's app.partitioner, app.partition_metric) where
 * the grid file's [sim] says nothing, then the caller's overrides, left to right. */
static lbs_err load_grid(lbs_validate *v, const char *grid, const char *const *over, int nover) {
  static const char *const meta_key[2][2] = {{"app.partitioner", "partitioner"},
                                             {"app.partition_metric", "partition_metric"}};
  lbs_config *cfg = NULL;
  lbs_err e = lbs_config_load(grid, &cfg); /* what its [sim] names */
  int napp = 0;
  for (int k = 0; !e && k < 2; k++) {
    const char *val = lbs_trace_meta(v->trace, meta_key[k][0]);
    if (!val || lbs_config_has(cfg, "sim", "", meta_key[k][1])) continue;
    if (!(v->app_over[napp] = malloc(strlen(val) + 32)))
      e = lbs_fail(LBS_NOMEM, "validate");
    else
      sprintf(v->app_over[napp++], "sim.%s=%s", meta_key[k][1], val);
  }
  lbs_config_destroy(&cfg);
  if (!e && !(v->all_over = malloc((size_t)(napp + nover + 1) * sizeof *v->all_over)))
    e = lbs_fail(LBS_NOMEM, "validate");
  if (e) return e;
  for (int k = 0; k < napp; k++) v->all_over[k] = v->app_over[k];
  for (int i = 0; i < nover; i++) v->all_over[napp + i] = over[i];
  return lbs_session_open(&v->session, NULL, grid, v->all_over, napp + nover);
}

/* The part sizes of the replay ([sim] part_sizes) into v->part_sizes, and the app's
 * --part-sizes: "equal" where they are, else each share to 9 digits. */
static lbs_err part_sizes(lbs_validate *v) {
  int P = v->ranks, equal = 1;
  if (!(v->part_sizes = malloc((size_t)P * sizeof *v->part_sizes)) ||
      !(v->part_arg = malloc((size_t)P * 24 + 8)))
    return lbs_fail(LBS_NOMEM, "part sizes");
  lbs_err e =
      lbs_replay_part_sizes(v->trace, v->session.grid, v->session.opts.part_sizes, v->part_sizes);
  if (e) return lbs_fail(e, "%s: %s", v->trace_path, lbs_errmsg());
  size_t at = 0;
  for (int r = 0; r < P; r++) {
    equal &= fabs(v->part_sizes[r] - v->part_sizes[0]) <= 1e-12;
    if (!(v->part_sizes[r] > 0))
      return lbs_fail(LBS_INVAL,
                      "the grid gives processor %d no part (failed): the app's rank %d "
                      "cannot run without one",
                      r, r);
    at += (size_t)snprintf(v->part_arg + at, 24, "%s%.9g", r ? "," : "", v->part_sizes[r]);
  }
  if (equal) strcpy(v->part_arg, "equal");
  return LBS_OK;
}

lbs_err lbs_validate_open(lbs_validate *v, const char *trace, const char *grid,
                          const char *const *over, int nover, const lbs_validate_opts *o) {
  v->trace_path = trace;
  v->over = over, v->nover = nover;
  lbs_err e = lbs_trace_open(trace, &v->trace);
  if (!e) e = check_profile(v, o);
  if (!e) e = find_app(v, o);
  if (!e) e = load_grid(v, grid, over, nover);
  int procs = e ? 0 : lbs_grid_procs(v->session.grid);
  if (!e && procs != v->ranks)
    e = lbs_fail(LBS_INVAL,
                 "%s has %d processors, the app ran on %d ranks: use a grid of this machine with "
                 "one processor per "
                 "rank ('mpiexec -n %d lbsim grid probe -o machine.ini')",
                 grid, procs, v->ranks, v->ranks);
  return e ? e : part_sizes(v);
}

/* ---------------------------------------------------------------- the plan */

/* Policy p's replay: its predicted total, and its schedule as application steps. */
static lbs_err plan_one(lbs_validate *v, lbs_validate_policy *p, MPI_Comm comm) {
  lbs_replay_opts o = v->session.opts;
  o.policy = p->policy;
  lbs_err e = lbs_replay(v->trace, v->session.grid, &o, comm, &p->r);
  if (e) {
    const char *why = lbs_errmsg();
    return lbs_fail(e, "replay with %s: %s", p->policy, *why ? why : lbs_strerror(e));
  }
  const lbs_replay_result *r = p->r;
  p->predicted_s = 1e-9 * (double)r->total_ns;
  p->nrep = r->nrep;
  size_t used = 0;
  for (int i = 0; i < r->nrep; i++) {
    int64_t s = r->reparts[i].step, app_step = s < r->steps ? r->app_step[s] : s;
    used += (size_t)snprintf(p->schedule + used, sizeof p->schedule - used, "%s%lld", i ? "," : "",
                             (long long)app_step);
    if (used >= sizeof p->schedule)
      return lbs_fail(LBS_RANGE, "%s: a schedule of %d repartitions is too long to pass", p->policy,
                      r->nrep);
  }
  return LBS_OK;
}

lbs_err lbs_validate_plan(lbs_validate *v, const char *const *policies, int n, MPI_Comm comm) {
  if (!(v->pol = calloc((size_t)n, sizeof *v->pol))) return lbs_fail(LBS_NOMEM, "validate");
  v->npol = n;
  lbs_err e = lbs_compare_one_model(&v->session.opts, v->session.grid, policies, n);
  for (int k = 0; !e && k < n; k++) {
    if (!(v->pol[k].policy = strdup(policies[k])))
      e = lbs_fail(LBS_NOMEM, "validate");
    else
      e = plan_one(v, &v->pol[k], comm);
  }
  return e;
}

lbs_err lbs_validate_emulate(lbs_validate *v) {
  return lbs_emulate_open(&v->emu, v->session.grid, v->ranks);
}

/* ---------------------------------------------------------------- the real runs */

/* The real run under way: its process group (0: none), for lbs_validate_kill_running. */
static volatile sig_atomic_t running_pgid;

void lbs_validate_kill_running(void) {
  pid_t g = (pid_t)running_pgid;
  if (g > 0) kill(-g, SIGKILL);
}

/* Runs argv with env, output into log, within timeout_s; 0 with the exit status in *status,
 * -1 when it could not start (errno), -2 on timeout (the process group killed). */
static int run_child(char **argv, char **env, const char *log, double timeout_s, int *status) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&at);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_setpgroup(&at, 0);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, env);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  if (rc) {
    errno = rc;
    return -1;
  }
  running_pgid = pid;
  struct timespec t0, now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    pid_t w = waitpid(pid, status, WNOHANG);
    if (w == pid) {
      running_pgid = 0;
      return 0;
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    if ((double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec) > timeout_s) {
      kill(-pid, SIGTERM);
      usleep(500000);
      kill(-pid, SIGKILL);
      waitpid(pid, status, 0);
      running_pgid = 0;
      return -2;
    }
    usleep(20000);
  }
}

/* The last 1199 bytes of a log, for messages ("" when there are none; NULL out of memory). */
static char *log_tail(const char *log) {
  enum { LEN = 1200 };
  char *text = NULL, *out = malloc(LEN);
  size_t n = 0;
  if (!out) return NULL;
  out[0] = '\0';
  if (!lbs_read_file(log, &text, &n) && n)
    snprintf(out, LEN, "%s", text + (n > LEN - 1 ? n - (LEN - 1) : 0));
  free(text);
  return out;
}

/* The value of "key": in a one-line JSON object (the apps' summary): a number, or the text of
 * an array without its brackets into arr. 0 when absent. */
static int summary_number(const char *text, const char *key, double *v) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *at = strstr(text, pat);
  if (!at) return 0;
  char *end;
  *v = strtod(at + strlen(pat), &end);
  return end != at + strlen(pat);
}
static int summary_array(const char *text, const char *key, char *arr, size_t len) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":[", key);
  const char *at = strstr(text, pat);
  if (!at) return 0;
  at += strlen(pat);
  const char *end = strchr(at, ']');
  if (!end || (size_t)(end - at) >= len) return 0;
  memcpy(arr, at, (size_t)(end - at));
  arr[end - at] = '\0';
  return 1;
}

/* What every real run shares: the launcher and the app's arguments split at blanks, the rank
 * count, the directory of the runs' summaries and logs. */
typedef struct runner {
  char *lcopy, *lv[64]; /* the launcher */
  int nl;
  char *acopy, *av[256]; /* the app's arguments */
  int na;
  char nbuf[16];   /* the rank count */
  char tmpdir[32]; /* the runs' JSON and logs, removed after ("" with keep_dir) */
  char dir[4096];  /* where they go: tmpdir, or keep_dir */
} runner;

static lbs_err runner_init(runner *rn, const lbs_validate *v, const lbs_validate_opts *o) {
  const char *launcher = o->launcher;
  *rn = (runner){.tmpdir = "/tmp/lbsim-validate-XXXXXX"};
  if (o->keep_dir) { /* the caller's: kept */
    if (strlen(o->keep_dir) >= sizeof rn->dir)
      return lbs_fail(LBS_INVAL, "%s: path too long", o->keep_dir);
    strcpy(rn->dir, o->keep_dir);
    rn->tmpdir[0] = '\0';
  } else if (!mkdtemp(rn->tmpdir)) {
    lbs_err e = lbs_fail(LBS_IO, "%s: %s", rn->tmpdir, strerror(errno));
    rn->tmpdir[0] = '\0'; /* nothing to remove */
    return e;
  }
  if (!o->keep_dir) strcpy(rn->dir, rn->tmpdir);
  rn->lcopy = strdup(launcher && *launcher ? launcher
                     : geteuid() == 0      ? "mpiexec --allow-run-as-root"
                                           : "mpiexec");
  rn->acopy = strdup(v->args);
  if (!rn->lcopy || !rn->acopy) return lbs_fail(LBS_NOMEM, "validate");
  char *s2 = NULL;
  for (char *tok = strtok_r(rn->lcopy, " \t", &s2); tok && rn->nl < 40;
       tok = strtok_r(NULL, " \t", &s2))
    rn->lv[rn->nl++] = tok;
  for (char *tok = strtok_r(rn->acopy, " \t", &s2); tok && rn->na < 200;
       tok = strtok_r(NULL, " \t", &s2))
    rn->av[rn->na++] = tok;
  snprintf(rn->nbuf, sizeof rn->nbuf, "%d", v->ranks);
  return LBS_OK;
}

/* The runs' files and directory removed, the copies freed. */
static void runner_free(runner *rn, int runs, int npol) {
  for (int run = 0; rn->tmpdir[0] && run < runs; run++)
    for (int k = 0; k < npol; k++) {
      char p[4200];
      snprintf(p, sizeof p, "%s/run%d_%d.json", rn->tmpdir, run, k);
      unlink(p);
      snprintf(p, sizeof p, "%s/run%d_%d.log", rn->tmpdir, run, k);
      unlink(p);
    }
  if (rn->tmpdir[0]) rmdir(rn->tmpdir);
  free(rn->lcopy), free(rn->acopy);
}

/* A real run that failed, its output's end into v->tail. */
static lbs_err run_failed(lbs_validate *v, const lbs_validate_policy *p, int run, int got,
                          int status, const char *log) {
  free(v->tail);
  v->tail = log_tail(log);
  return lbs_fail(LBS_IO, "the real run of %s with %s (run %lld) %s; its output ends:", v->app,
                  p->policy, (long long)run + 1,
                  got == -2                                   ? "took longer than --timeout"
                  : !WIFEXITED(status) || WEXITSTATUS(status) ? "failed"
                                                              : "wrote no total_s");
}

/* Real run `run` of policy k: launcher -n R app ARGS --schedule LIST --json FILE. */
static lbs_err one_run(lbs_validate *v, const runner *rn, double timeout_s, int run, int k) {
  lbs_validate_policy *p = &v->pol[k];
  char jpath[4200], lpath[4200], *cmd[320];
  snprintf(jpath, sizeof jpath, "%s/run%d_%d.json", rn->dir, run, k);
  snprintf(lpath, sizeof lpath, "%s/run%d_%d.log", rn->dir, run, k);
  int m = 0;
  for (int i = 0; i < rn->nl; i++) cmd[m++] = rn->lv[i];
  cmd[m++] = "-n", cmd[m++] = (char *)rn->nbuf;
  if (v->emu.dir[0]) m += lbs_emulate_wrap(&v->emu, cmd + m);
  cmd[m++] = v->app_bin;
  for (int i = 0; i < rn->na; i++) cmd[m++] = rn->av[i];
  if (p->nrep)
    cmd[m++] = "--schedule", cmd[m++] = p->schedule;
  else
    cmd[m++] = "--policy", cmd[m++] = "none";
  /* the recorded policy replays the profiled run's own assignments: the app gets its own sizes */
  const char *own = lbs_trace_meta(v->trace, LBS_APP_PART_SIZES_META);
  cmd[m++] = "--part-sizes";
  cmd[m++] = strcmp(p->policy, "recorded") ? v->part_arg : (char *)(own ? own : "equal");
  cmd[m++] = "--json", cmd[m++] = jpath, cmd[m] = NULL;
  int status = 0, got = run_child(cmd, v->env, lpath, timeout_s, &status);
  if (got == -1) return lbs_fail(LBS_IO, "cannot start '%s': %s", cmd[0], strerror(errno));
  char *text = NULL, reps[8192];
  size_t tl;
  double total;
  if (got == -2 || !WIFEXITED(status) || WEXITSTATUS(status) || lbs_read_file(jpath, &text, &tl) ||
      !summary_number(text, "total_s", &total) || !(total > 0)) {
    free(text);
    return run_failed(v, p, run, got, status, lpath);
  }
  if (!summary_array(text, "repartitions", reps, sizeof reps)) reps[0] = '\0';
  free(text);
  if (strcmp(reps, p->schedule))
    return lbs_fail(LBS_INVAL,
                    "%s repartitioned before steps [%s], not the schedule [%s] it was given",
                    v->app, reps, p->schedule);
  p->measured_s[p->nmeasured++] = total;
  return LBS_OK;
}

/* keep_dir's runs.csv: a row per real run (round, policy, its schedule, total_s, the files). */
static lbs_err write_index(const lbs_validate *v, const char *dir, int runs) {
  char path[4200];
  snprintf(path, sizeof path, "%s/runs.csv", dir);
  FILE *f = fopen(path, "w");
  if (!f) return lbs_fail(LBS_IO, "%s: %s", path, strerror(errno));
  fprintf(f, "round,policy,schedule,total_s,json,log\n");
  for (int run = 0; run < runs; run++)
    for (int k = 0; k < v->npol; k++)
      fprintf(f, "%d,\"%s\",\"%s\",%.9g,run%d_%d.json,run%d_%d.log\n", run + 1, v->pol[k].policy,
              v->pol[k].schedule, v->pol[k].measured_s[run], run, k, run, k);
  int bad = ferror(f);
  if (fclose(f) || bad) return lbs_fail(LBS_IO, "%s: %s", path, strerror(errno));
  return LBS_OK;
}

lbs_err lbs_validate_run(lbs_validate *v, const lbs_validate_opts *o, lbs_progress_fn progress,
                         void *progress_arg) {
  runner rn;
  lbs_err e = runner_init(&rn, v, o);
  for (int run = 0; !e && run < o->runs; run++)
    for (int k = 0; !e && k < v->npol; k++) {
      e = one_run(v, &rn, o->timeout_s, run, k);
      if (!e && progress)
        progress(progress_arg, (int64_t)run * v->npol + k + 1, (int64_t)o->runs * v->npol);
    }
  if (!e && o->keep_dir) e = write_index(v, rn.dir, o->runs);
  runner_free(&rn, o->runs, v->npol);
  for (int r = 0; !e && v->emu.dir[0] && r < v->emu.ranks; r++)
    e = lbs_emulate_throttled(&v->emu, r, &v->emu_periods[r], &v->emu_throttled_s[r]);
  return e;
}

/* ---------------------------------------------------------------- statistics */

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One policy's median, minimum, maximum and error. */
static void policy_stats(lbs_validate_policy *p) {
  double v[LBS_VALIDATE_MAXRUNS];
  int n = p->nmeasured;
  memcpy(v, p->measured_s, (size_t)n * sizeof *v);
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  p->median_s = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  p->min_s = v[0], p->max_s = v[n - 1];
  p->error = (p->predicted_s - p->median_s) / p->median_s;
}

/* A fraction of a, guarded: 0 where a is not positive (no total to be a fraction of). */
static double gain(double a, double b) { return a > 0 ? (a - b) / a : 0; }

static double median_of(const double *m, int n) {
  double v[LBS_VALIDATE_MAXRUNS];
  memcpy(v, m, (size_t)n * sizeof *v);
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void lbs_validate_pair_verdict(double pa, const double *ma, int na, double pb, const double *mb,
                               int nb, lbs_validate_pair *out) {
  out->predicted_gain = gain(pa, pb);
  out->measured_gain = gain(median_of(ma, na), median_of(mb, nb));
  out->error_points = 100 * (out->predicted_gain - out->measured_gain);
  out->rounds = 0;
  if (na == nb && na >= 2) { /* paired by round: each round's gain */
    out->rounds = na;
    out->gain_min = out->gain_max = gain(ma[0], mb[0]);
    for (int k = 1; k < na; k++) {
      double g = gain(ma[k], mb[k]);
      out->gain_min = g < out->gain_min ? g : out->gain_min;
      out->gain_max = g > out->gain_max ? g : out->gain_max;
    }
  } else { /* the spreads: B's slowest against A's fastest, B's fastest against A's slowest */
    double amin = ma[0], amax = ma[0], bmin = mb[0], bmax = mb[0];
    for (int k = 1; k < na; k++) amin = fmin(amin, ma[k]), amax = fmax(amax, ma[k]);
    for (int k = 1; k < nb; k++) bmin = fmin(bmin, mb[k]), bmax = fmax(bmax, mb[k]);
    out->gain_min = gain(amin, bmax), out->gain_max = gain(amax, bmin);
  }
  out->predicted_within =
      out->predicted_gain >= out->gain_min && out->predicted_gain <= out->gain_max;
  out->noise = (out->gain_max - out->gain_min) / 2;
  out->below_noise = na >= 2 && nb >= 2 && fabs(out->predicted_gain) <= out->noise;
  int sep = out->gain_min > 0 ? 1 : out->gain_max < 0 ? -1 : 0; /* reality's sign, 0: a tie */
  int pred = (out->predicted_gain > 0) - (out->predicted_gain < 0);
  if (na < 2 || nb < 2)
    out->verdict = LBS_VERDICT_UNKNOWN;
  else if (!sep)
    out->verdict = LBS_VERDICT_TIE;
  else if (!pred)
    out->verdict = LBS_VERDICT_PREDICTED_EQUAL;
  else
    out->verdict = pred == sep ? LBS_VERDICT_AGREES : LBS_VERDICT_WRONG_ORDER;
}

const char *lbs_validate_verdict_name(lbs_validate_verdict v) {
  switch (v) {
  case LBS_VERDICT_TIE: return "tie";
  case LBS_VERDICT_AGREES: return "agrees";
  case LBS_VERDICT_WRONG_ORDER: return "wrong order";
  case LBS_VERDICT_PREDICTED_EQUAL: return "predicted equal";
  case LBS_VERDICT_UNKNOWN: break;
  }
  return "unknown (1 run)";
}

void lbs_validate_stats(lbs_validate_policy *p, int n, lbs_validate_ranking *out) {
  memset(out, 0, sizeof *out);
  for (int k = 0; k < n; k++) {
    policy_stats(&p[k]);
    out->order_sim[k] = out->order_real[k] = k;
  }
  int *os = out->order_sim, *om = out->order_real;
  for (int i = 0; i < n; i++) /* insertion sorts: small lists, stable */
    for (int j = i; j > 0; j--) {
      if (p[os[j]].predicted_s < p[os[j - 1]].predicted_s) {
        int x = os[j];
        os[j] = os[j - 1], os[j - 1] = x;
      }
      if (p[om[j]].median_s < p[om[j - 1]].median_s) {
        int x = om[j];
        om[j] = om[j - 1], om[j - 1] = x;
      }
    }
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++) {
      lbs_validate_pair *q = &out->pairs[out->npairs++];
      q->a = a, q->b = b;
      lbs_validate_pair_verdict(p[a].predicted_s, p[a].measured_s, p[a].nmeasured, p[b].predicted_s,
                                p[b].measured_s, p[b].nmeasured, q);
      out->separated += q->verdict >= LBS_VERDICT_AGREES;
      out->ordered_right += q->verdict == LBS_VERDICT_AGREES;
      out->discordant += q->verdict == LBS_VERDICT_WRONG_ORDER;
      out->ties += q->verdict == LBS_VERDICT_TIE;
      out->unknown += q->verdict == LBS_VERDICT_UNKNOWN;
      out->max_gain_error_points = fmax(out->max_gain_error_points, fabs(q->error_points));
    }
  out->same = out->ordered_right == out->npairs;
  for (int k = 0; k < n; k++)
    out->worst = fabs(p[k].error) > out->worst ? fabs(p[k].error) : out->worst;
}

/* ---------------------------------------------------------------- the store and JSON */

lbs_err lbs_validate_save(const lbs_validate *v, const char *results) {
  lbs_prov_study st; /* one study: the replays of every schedule and their real runs */
  lbs_prov_run ri;
  lbs_prov_study_init(&st, "validate", NULL);
  lbs_prov_run_init(&ri, v->trace_path, v->session.grid_path, v->session.cfg, v->over, v->nover,
                    (int)v->session.opts.cost);
  lbs_err e = LBS_OK;
  int64_t vid[LBS_VALIDATE_MAXPOL] = {0}; /* each policy's row in validations */
  for (int k = 0; k < v->npol && !e; k++) {
    const lbs_validate_policy *p = &v->pol[k];
    int64_t run_id = 0;
    e = lbs_results_save_study(results, &st.info, &p->r, &ri.info, 1, &run_id);
    if (!e) {
      lbs_validation row = {run_id,      v->app,         v->args,      v->ranks,
                            p->schedule, p->predicted_s, p->nmeasured, p->measured_s};
      e = lbs_results_save_validation_id(results, &row, &vid[k]);
    }
  }
  lbs_prov_run_free(&ri);
  const lbs_validate_ranking *rk = &v->rank;
  lbs_validation_pair rows[LBS_VALIDATE_MAXPAIRS];
  for (int i = 0; i < rk->npairs; i++) {
    const lbs_validate_pair *q = &rk->pairs[i];
    rows[i] = (lbs_validation_pair){.a = vid[q->a],
                                    .b = vid[q->b],
                                    .policy_a = v->pol[q->a].policy,
                                    .policy_b = v->pol[q->b].policy,
                                    .predicted_gain = q->predicted_gain,
                                    .measured_gain = q->measured_gain,
                                    .measured_gain_min = q->gain_min,
                                    .measured_gain_max = q->gain_max,
                                    .rounds = q->rounds,
                                    .gain_error_points = q->error_points,
                                    .predicted_within = q->predicted_within,
                                    .verdict = lbs_validate_verdict_name(q->verdict)};
  }
  if (!e && rk->npairs) e = lbs_results_save_validation_pairs(results, rows, rk->npairs);
  return e;
}

/* One policy's object: its schedule, prediction, measurements and error. */
static json_t *policy_json(const lbs_validate_policy *p) {
  json_t *x = json_object(), *sched = json_array(), *meas = json_array();
  int bad = !x || !sched || !meas;
  for (const char *c = p->schedule; !bad && *c; c += strcspn(c, ","), c += *c == ',')
    bad = json_array_append_new(sched, lbs_json_int(strtoll(c, NULL, 10)));
  for (int i = 0; !bad && i < p->nmeasured; i++)
    bad = json_array_append_new(meas, lbs_json_sig(p->measured_s[i], 9));
  bad = bad || lbs_json_set(x, "policy", lbs_json_str(p->policy)) ||
        lbs_json_set(x, "repartitions", lbs_json_int(p->nrep)) ||
        lbs_json_set(x, "schedule", json_incref(sched)) ||
        lbs_json_set(x, "predicted_s", lbs_json_sig(p->predicted_s, 9)) ||
        lbs_json_set(x, "measured_median_s", lbs_json_sig(p->median_s, 9)) ||
        lbs_json_set(x, "measured_min_s", lbs_json_sig(p->min_s, 9)) ||
        lbs_json_set(x, "measured_max_s", lbs_json_sig(p->max_s, 9)) ||
        lbs_json_set(x, "error", lbs_json_sig(p->error, 6)) ||
        lbs_json_set(x, "measured_s", json_incref(meas));
  json_decref(sched), json_decref(meas);
  if (bad) json_decref(x), x = NULL;
  return x;
}

/* One pair's object: the policies, the gains, the measured range, the error and the verdict. */
static json_t *pair_json(const lbs_validate *v, const lbs_validate_pair *q) {
  json_t *x = json_object();
  int bad = !x || lbs_json_set(x, "a", lbs_json_str(v->pol[q->a].policy)) ||
            lbs_json_set(x, "b", lbs_json_str(v->pol[q->b].policy)) ||
            lbs_json_set(x, "predicted_gain", lbs_json_sig(q->predicted_gain, 6)) ||
            lbs_json_set(x, "measured_gain", lbs_json_sig(q->measured_gain, 6)) ||
            lbs_json_set(x, "measured_gain_min", lbs_json_sig(q->gain_min, 6)) ||
            lbs_json_set(x, "measured_gain_max", lbs_json_sig(q->gain_max, 6)) ||
            lbs_json_set(x, "rounds", lbs_json_int(q->rounds)) ||
            lbs_json_set(x, "gain_error_points", lbs_json_sig(q->error_points, 6)) ||
            lbs_json_set(x, "predicted_within", json_boolean(q->predicted_within)) ||
            lbs_json_set(x, "noise", lbs_json_sig(q->noise, 6)) ||
            lbs_json_set(x, "predicted_below_noise", json_boolean(q->below_noise)) ||
            lbs_json_set(x, "verdict", lbs_json_str(lbs_validate_verdict_name(q->verdict)));
  if (bad) json_decref(x), x = NULL;
  return x;
}

/* The pairs' counts: what reality separates, what the prediction orders right, the largest
 * gain error. */
static json_t *pairs_summary_json(const lbs_validate_ranking *rk) {
  json_t *x = json_object();
  int bad = !x || lbs_json_set(x, "pairs", lbs_json_int(rk->npairs)) ||
            lbs_json_set(x, "separated", lbs_json_int(rk->separated)) ||
            lbs_json_set(x, "ordered_right", lbs_json_int(rk->ordered_right)) ||
            lbs_json_set(x, "wrong_order", lbs_json_int(rk->discordant)) ||
            lbs_json_set(x, "ties", lbs_json_int(rk->ties)) ||
            lbs_json_set(x, "unknown", lbs_json_int(rk->unknown)) ||
            lbs_json_set(x, "max_gain_error_points", lbs_json_sig(rk->max_gain_error_points, 6));
  if (bad) json_decref(x), x = NULL;
  return x;
}

const char *lbs_validate_part_rule(const lbs_validate *v) {
  static const char *const rules[] = {"speed", "equal", "app"};
  return rules[v->session.opts.part_sizes % 3];
}

/* The emulation: its controller and period, each rank's share and throttling. */
static json_t *emulation_json(const lbs_validate *v) {
  json_t *x = json_object(), *rs = json_array();
  int bad = !x || !rs ||
            lbs_json_set(x, "controller", lbs_json_str(lbs_emulate_controller(&v->emu))) ||
            lbs_json_set(x, "period_us", lbs_json_int(v->emu.period_us)) ||
            lbs_json_set(x, "ranks", json_incref(rs));
  for (int r = 0; !bad && r < v->emu.ranks; r++)
    bad = json_array_append_new(rs, json_pack("{s:i,s:o,s:I,s:o}", "rank", r, "share",
                                              lbs_json_sig(v->emu.share[r], 6), "throttled_periods",
                                              (json_int_t)v->emu_periods[r], "throttled_s",
                                              lbs_json_sig(v->emu_throttled_s[r], 6)));
  json_decref(rs);
  if (bad) json_decref(x), x = NULL;
  return x;
}

json_t *lbs_validate_json(const lbs_validate *v, int runs) {
  const lbs_validate_ranking *rk = &v->rank;
  json_t *doc = json_object(), *pols = json_array(), *os = json_array(), *om = json_array(),
         *prs = json_array();
  int bad = lbs_json_set(doc, "trace", lbs_json_str(v->trace_path)) ||
            lbs_json_set(doc, "app", lbs_json_str(v->app)) ||
            lbs_json_set(doc, "args", lbs_json_str(v->args)) ||
            lbs_json_set(doc, "ranks", lbs_json_int(v->ranks)) ||
            lbs_json_set(doc, "grid", lbs_json_str(v->session.grid_path)) ||
            lbs_json_set(doc, "partitioner", lbs_json_str(v->session.opts.partitioner)) ||
            lbs_json_set(doc, "runs", lbs_json_int(runs)) ||
            lbs_json_set(doc, "policies", json_incref(pols));
  for (int k = 0; !bad && k < v->npol; k++) {
    json_t *x = policy_json(&v->pol[k]);
    bad = !x || json_array_append_new(pols, x);
  }
  for (int k = 0; !bad && k < v->npol; k++)
    bad = json_array_append_new(os, lbs_json_str(v->pol[rk->order_sim[k]].policy)) ||
          json_array_append_new(om, lbs_json_str(v->pol[rk->order_real[k]].policy));
  bad = bad || lbs_json_set(doc, "order_simulated", json_incref(os)) ||
        lbs_json_set(doc, "order_measured", json_incref(om)) ||
        lbs_json_set(doc, "same_ranking", json_boolean(rk->same)) ||
        lbs_json_set(doc, "discordant_pairs", lbs_json_int(rk->discordant)) ||
        lbs_json_set(doc, "tied_pairs", lbs_json_int(rk->ties)) ||
        lbs_json_set(doc, "max_abs_error", lbs_json_sig(rk->worst, 6)) ||
        lbs_json_set(doc, "pairs", json_incref(prs));
  for (int i = 0; !bad && i < rk->npairs; i++) {
    json_t *x = pair_json(v, &rk->pairs[i]);
    bad = !x || json_array_append_new(prs, x);
  }
  if (!bad) {
    json_t *x = pairs_summary_json(rk);
    bad = !x || lbs_json_set(doc, "pairs_summary", x);
  }
  json_t *ps = v->part_sizes ? json_array() : json_null();
  bad = bad || !ps || lbs_json_set(doc, "part_sizes", json_incref(ps)) ||
        lbs_json_set(doc, "part_sizes_rule", lbs_json_str(lbs_validate_part_rule(v)));
  for (int r = 0; !bad && v->part_sizes && r < v->ranks; r++)
    bad = json_array_append_new(ps, lbs_json_sig(v->part_sizes[r], 9));
  json_decref(ps);
  if (!bad) {
    json_t *x = v->emu.dir[0] ? emulation_json(v) : json_null();
    bad = !x || lbs_json_set(doc, "emulation", x);
  }
  json_decref(pols), json_decref(os), json_decref(om), json_decref(prs);
  if (bad) json_decref(doc), doc = NULL;
  return doc;
}

void lbs_validate_close(lbs_validate *v) {
  for (char **e = v->env; e && *e; e++) free(*e);
  free(v->env);
  for (int k = 0; v->pol && k < v->npol; k++) {
    lbs_replay_result_free(&v->pol[k].r);
    free(v->pol[k].policy);
  }
  free(v->pol);
  lbs_session_close(&v->session);
  lbs_trace_close(&v->trace);
  free(v->app_over[0]), free(v->app_over[1]);
  free(v->all_over);
  free(v->args);
  free(v->tail);
  free(v->part_sizes), free(v->part_arg);
  lbs_emulate_close(&v->emu);
  memset(v, 0, sizeof *v);
}
