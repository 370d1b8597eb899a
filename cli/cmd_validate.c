/* cmd_validate.c - lbsim validate: predictions checked against real runs.
 *
 * For a trace profiled from one of lbsim's apps (apps/README.md: the trace holds app.name,
 * app.args and profiler.ranks), each policy is replayed on the grid (a probed one: `lbsim
 * grid probe`), which gives a predicted total and the schedule the policy chose; then the app
 * is run for real with each schedule (--schedule LIST) on the profiled number of ranks,
 * several times, interleaved across policies so that a drift of the machine touches them all
 * alike. Reported per policy: the schedule, the predicted total, the measured median, minimum
 * and maximum, and the error; and whether simulation and reality rank the policies alike.
 *
 * The replays run in this process (an MPI singleton); the app runs under mpiexec in child
 * processes that get the environment this process started with (the singleton's own
 * variables would make mpiexec believe it runs inside a job). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <mpi.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "lbs_grid.h"
#include "lbs_policy.h"
#include "lbs_sim.h"
#include "lbs_traces.h"

extern char **environ;

#define MAXPOL 16
#define MAXRUNS 50

typedef struct {
  char *policy;
  lbs_replay_result *r;
  char schedule[8192]; /* application steps, comma-separated ("" none) */
  int nrep;
  double predicted_s;
  double measured[MAXRUNS];
  int nmeasured;
  double median_s, min_s, max_s, error;
  char app_reps[8192]; /* the repartitions the app reported (its JSON), for the check */
} pol;

static void usage(void) {
  printf("usage: lbsim validate t.lbt --grid machine.ini [options]\n\n"
         "Checks lbsim's predictions against real runs. The trace must come from one of lbsim's\n"
         "apps (apps/: wave, nbody, laplace-mc) profiled at every step; its keys app.name,\n"
         "app.args and profiler.ranks say how to run it again. For each policy, lbsim replays\n"
         "the trace on the grid (predicted total, and the schedule the policy chose), then runs\n"
         "the app for real with that schedule (--schedule) on the same number of ranks, --runs\n"
         "times, interleaved across policies. Reports the measured median and spread, the\n"
         "prediction's error, and whether simulation and reality rank the policies alike. Run\n"
         "it without mpiexec: it starts mpiexec itself. The grid must have one processor per\n"
         "rank: the one 'lbsim grid probe' writes for this machine.\n\n"
         "options:\n"
         "  --grid FILE          the grid (required; e.g. from 'mpiexec -n 2 lbsim grid probe')\n"
         "  --policies LIST      comma-separated (default none,fixed:20,adaptive:0.15:5:20,optimal);\n"
         "                       a steps:LIST policy keeps its commas\n"
         "  --runs N             real runs per policy (default 3)\n"
         "  --app PATH           the application (default: app.name beside lbsim, e.g. build/bin/wave)\n"
         "  --ranks N            must equal the profiled rank count (checked; default: that count)\n"
         "  --mpiexec CMD        the launcher, split at blanks (default $LBSIM_MPIEXEC, else\n"
         "                       'mpiexec', with --allow-run-as-root when run as root)\n"
         "  --timeout S          seconds one real run may take (default 600)\n"
         "  --partitioner NAME   the replay's (default: the grid's [sim], else the trace's\n"
         "                       app.partitioner, else zoltan:rcb)\n"
         "  --mode bsp|des       the replay's mode (default: the grid's [sim], else bsp)\n"
         "  -o SECTION.KEY=VAL   override a grid key; --partitioner X is -o sim.partitioner=X,\n"
         "                       --mode M is -o sim.mode=M, and the later on the line wins\n"
         "  --results FILE       append the replays and the measurements to a results store\n"
         "  --json               one JSON object on stdout\n\n"
         "example:\n"
         "  mpiexec -n 2 build/bin/wave --trace w.lbt\n"
         "  mpiexec -n 2 lbsim grid probe -o machine.ini\n"
         "  lbsim validate w.lbt --grid machine.ini --policies none,fixed:20,optimal --runs 3\n");
}

/* "a,b:1,2,c" -> a | b:1,2 | c: a token starting with a digit belongs to the one before. */
static int split_policies(const char *list, char **out, int max) {
  int n = 0;
  char *copy = strdup(list), *save = NULL;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (n && (tok[0] >= '0' && tok[0] <= '9')) {
      size_t l = strlen(out[n - 1]) + strlen(tok) + 2;
      char *j = malloc(l);
      snprintf(j, l, "%s,%s", out[n - 1], tok);
      free(out[n - 1]);
      out[n - 1] = j;
    } else if (n < max) {
      out[n++] = strdup(tok);
    } else {
      n = max + 1;
      break;
    }
  }
  free(copy);
  return n;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
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

/* Runs argv with env, output into log, within timeout_s; 0 with the exit status in *status,
 * -1 when it could not start, -2 on timeout (the process group killed). */
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
  struct timespec t0, now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    pid_t w = waitpid(pid, status, WNOHANG);
    if (w == pid) return 0;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if ((double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec) > timeout_s) {
      kill(-pid, SIGTERM);
      usleep(500000);
      kill(-pid, SIGKILL);
      waitpid(pid, status, 0);
      return -2;
    }
    usleep(20000);
  }
}

/* The last lines of a log, for messages. */
static void log_tail(const char *log, char *out, size_t len) {
  char *text = NULL;
  size_t n = 0;
  out[0] = '\0';
  if (lbs_read_file(log, &text, &n) || !n) {
    free(text);
    return;
  }
  size_t from = n > len - 1 ? n - (len - 1) : 0;
  snprintf(out, len, "%s", text + from);
  free(text);
}

int cmd_validate(int argc, char **argv) {
  enum { O_GRID = 256, O_POL, O_RUNS, O_APP, O_RANKS, O_MPIEXEC, O_TIMEOUT, O_RESULTS, O_JSON };
  static const struct option lo[] = {{"grid", required_argument, 0, O_GRID},       {"policies", required_argument, 0, O_POL},
                                     {"runs", required_argument, 0, O_RUNS},       {"app", required_argument, 0, O_APP},
                                     {"ranks", required_argument, 0, O_RANKS},     {"mpiexec", required_argument, 0, O_MPIEXEC},
                                     {"timeout", required_argument, 0, O_TIMEOUT}, {"partitioner", required_argument, 0, CLI_RO_PART},
                                     {"mode", required_argument, 0, CLI_RO_MODE},   {"results", required_argument, 0, O_RESULTS},
                                     {"json", no_argument, 0, O_JSON},             {"set", required_argument, 0, 'o'},
                                     {"help", no_argument, 0, 'h'},                {0, 0, 0, 0}};
  const char *grid_path = NULL, *policies = "none,fixed:20,adaptive:0.15:5:20,optimal", *app_path = NULL,
             *launcher = getenv("LBSIM_MPIEXEC"), *results = NULL;
  int64_t runs = 3, ranks = 0;
  double timeout = 600;
  int json = 0, c, bad = 0;
  cli_overrides over = {0}; /* -o, --partitioner and --mode, in command-line order */
  while (!bad && (c = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
    switch (c) {
    case O_GRID: grid_path = optarg; break;
    case O_POL: policies = optarg; break;
    case O_RUNS: bad = cli_parse_i64("--runs", optarg, 1, MAXRUNS, &runs); break;
    case O_APP: app_path = optarg; break;
    case O_RANKS: bad = cli_parse_i64("--ranks", optarg, 1, 1 << 20, &ranks); break;
    case O_MPIEXEC: launcher = optarg; break;
    case O_TIMEOUT: bad = cli_parse_f64("--timeout", optarg, 1, 1e6, &timeout); break;
    case CLI_RO_PART:
    case CLI_RO_MODE: bad = cli_replay_flag(&over, "validate", c, optarg); break;
    case O_RESULTS: results = optarg; break;
    case O_JSON: json = 1; break;
    case 'o': bad = cli_override(&over, "validate", optarg); break;
    case 'h': usage(); cli_overrides_free(&over); return 0;
    default: bad = cli_usage("validate", "bad option");
    }
  }
  if (!bad && optind != argc - 1) bad = cli_usage("validate", "expected one trace file");
  else if (!bad && !grid_path) bad = cli_usage("validate", "missing --grid FILE (e.g. from 'lbsim grid probe')");
  if (bad) return cli_overrides_free(&over), bad;
  if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_RANK") || getenv("PMIX_RANK")) {
    cli_overrides_free(&over);
    fprintf(stderr, "lbsim: validate: run it without mpiexec: it starts the app under mpiexec itself\n");
    return 1;
  }
  char *pl[MAXPOL + 1];
  int np = split_policies(policies, pl, MAXPOL);
  if (np < 1 || np > MAXPOL) {
    for (int k = 0; k < np && k < MAXPOL; k++) free(pl[k]);
    cli_overrides_free(&over);
    return cli_usage("validate", "--policies: 1 to %d policies", MAXPOL);
  }
  if (results && cli_check_output(results, CLI_OUT_APPEND)) {
    for (int k = 0; k < np; k++) free(pl[k]);
    cli_overrides_free(&over);
    return 1;
  }
  const char *trace_path = argv[optind];
  /* the environment as it was, for the children (before MPI adds its own) */
  size_t nenv = 0;
  while (environ[nenv]) nenv++;
  char **env0 = calloc(nenv + 1, sizeof *env0);
  for (size_t i = 0; i < nenv; i++) env0[i] = strdup(environ[i]);
  int rc = 1;
  pol *P = calloc((size_t)np, sizeof *P);
  lbs_config *cfg = NULL;
  lbs_grid *g = NULL;
  lbs_trace *t = NULL;
  char app_bin[4096] = "", *app_args = NULL, tmpdir[] = "/tmp/lbsim-validate-XXXXXX";
  int have_tmp = 0;
  MPI_Init(NULL, NULL);
  /* 1. the trace: which app, how it ran */
  lbs_err e = lbs_trace_open(trace_path, &t);
  if (e) {
    cli_error("validate", e);
    goto done;
  }
  const char *name = lbs_trace_meta(t, "app.name"), *args = lbs_trace_meta(t, "app.args"),
             *pranks = lbs_trace_meta(t, "profiler.ranks"), *every = lbs_trace_meta(t, "profiler.sample_every");
  if (!name || !pranks) {
    fprintf(stderr, "lbsim: validate: %s: not a profile of one of lbsim's apps (no %s key); profile one, e.g. "
                    "'mpiexec -n 2 build/bin/wave --trace wave.lbt'\n", trace_path, !pranks ? "profiler.ranks" : "app.name");
    goto done;
  }
  if (every && strcmp(every, "1")) {
    fprintf(stderr, "lbsim: validate: %s: sampled every %s steps; validation needs every step profiled (the replay's "
                    "total covers the sampled steps only)\n", trace_path, every);
    goto done;
  }
  const char *complete = lbs_trace_meta(t, "profiler.complete");
  if (!complete || strcmp(complete, "yes")) {
    fprintf(stderr, "lbsim: validate: %s: the profiled run did not end cleanly (profiler.complete = %s)\n", trace_path,
            complete ? complete : "missing");
    goto done;
  }
  int R = atoi(pranks);
  if (ranks && ranks != R) {
    fprintf(stderr, "lbsim: validate: %s was profiled on %d ranks, --ranks says %lld: the real runs must use the profiled "
                    "rank count\n", trace_path, R, (long long)ranks);
    goto done;
  }
  if (app_path) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", app_path);
    if (strcmp(basename(tmp), name)) {
      fprintf(stderr, "lbsim: validate: %s is a profile of '%s', --app runs '%s'\n", trace_path, name, basename(tmp));
      goto done;
    }
    snprintf(app_bin, sizeof app_bin, "%s", app_path);
  } else {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
      fprintf(stderr, "lbsim: validate: cannot find lbsim's own directory; give --app PATH\n");
      goto done;
    }
    self[n] = '\0';
    snprintf(app_bin, sizeof app_bin, "%s/%s", dirname(self), name);
  }
  if (access(app_bin, X_OK)) {
    fprintf(stderr, "lbsim: validate: %s: the app '%s' is not there or not executable (%s); give --app PATH\n", app_bin,
            name, strerror(errno));
    goto done;
  }
  app_args = strdup(args ? args : "");
  /* 2. the grid: one processor per rank */
  if ((e = lbs_config_load(grid_path, &cfg))) {
    cli_error("validate", e);
    goto done;
  }
  /* what the app ran with (the trace's app.partitioner, app.partition_metric) where the grid
   * file's [sim] says nothing; then the command line's flags and -o, left to right */
  static const char *const meta_key[2][2] = {{"app.partitioner", "partitioner"}, {"app.partition_metric", "partition_metric"}};
  for (int k = 0; k < 2 && !e; k++) {
    const char *v = lbs_trace_meta(t, meta_key[k][0]);
    if (!v || lbs_config_has(cfg, "sim", "", meta_key[k][1])) continue;
    char *a = malloc(strlen(v) + 32);
    if (!a) {
      e = lbs_fail(LBS_NOMEM, "validate");
      break;
    }
    sprintf(a, "sim.%s=%s", meta_key[k][1], v);
    e = lbs_config_override(cfg, a);
    free(a);
  }
  if (!e) e = cli_overrides_apply(&over, cfg);
  lbs_replay_opts o;
  lbs_replay_opts_default(&o);
  if (!e) e = lbs_grid_from_config(cfg, &g);
  if (!e) e = lbs_replay_opts_from_config(cfg, &o); /* [sim] as the app, the grid file and the command line say */
  if (e) {
    cli_error("validate", e);
    goto done;
  }
  if (lbs_grid_procs(g) != R) {
    fprintf(stderr, "lbsim: validate: %s has %d processors, the app ran on %d ranks: use a grid of this machine with "
                    "one processor per rank ('mpiexec -n %d lbsim grid probe -o machine.ini')\n", grid_path,
            lbs_grid_procs(g), R, R);
    goto done;
  }
  o.cfg = cfg;
  /* 3. the predictions */
  for (int k = 0; k < np; k++) {
    P[k].policy = pl[k];
    o.policy = pl[k];
    if ((e = lbs_replay(t, g, &o, MPI_COMM_WORLD, &P[k].r))) {
      char what[300];
      snprintf(what, sizeof what, "validate: replay with %s", pl[k]);
      cli_error(what, e);
      goto done;
    }
    lbs_replay_result *r = P[k].r;
    P[k].predicted_s = 1e-9 * (double)r->total_ns;
    P[k].nrep = r->nrep;
    size_t used = 0;
    for (int i = 0; i < r->nrep; i++) {
      int64_t s = r->reparts[i].step, app_step = s < r->steps ? r->app_step[s] : s;
      used += (size_t)snprintf(P[k].schedule + used, sizeof P[k].schedule - used, "%s%lld", i ? "," : "", (long long)app_step);
      if (used >= sizeof P[k].schedule) {
        fprintf(stderr, "lbsim: validate: %s: a schedule of %d repartitions is too long to pass\n", pl[k], r->nrep);
        goto done;
      }
    }
  }
  /* 4. the real runs, interleaved */
  if (!mkdtemp(tmpdir)) {
    fprintf(stderr, "lbsim: validate: %s: %s\n", tmpdir, strerror(errno));
    goto done;
  }
  have_tmp = 1;
  char *lv[64];
  int nl = 0;
  char *lcopy = strdup(launcher && *launcher ? launcher : geteuid() == 0 ? "mpiexec --allow-run-as-root" : "mpiexec");
  for (char *s2 = NULL, *tok = strtok_r(lcopy, " \t", &s2); tok && nl < 40; tok = strtok_r(NULL, " \t", &s2)) lv[nl++] = tok;
  char *acopy = strdup(app_args);
  char *av[256];
  int na = 0;
  for (char *s2 = NULL, *tok = strtok_r(acopy, " \t", &s2); tok && na < 200; tok = strtok_r(NULL, " \t", &s2)) av[na++] = tok;
  char nbuf[16], jpath[4200], lpath[4200];
  snprintf(nbuf, sizeof nbuf, "%d", R);
  cli_progress prog;
  cli_progress_start(&prog, "real runs", runs * np);
  for (int64_t run = 0; run < runs; run++)
    for (int k = 0; k < np; k++) {
      snprintf(jpath, sizeof jpath, "%s/run%lld_%d.json", tmpdir, (long long)run, k);
      snprintf(lpath, sizeof lpath, "%s/run%lld_%d.log", tmpdir, (long long)run, k);
      char *cmd[320];
      int m = 0;
      for (int i = 0; i < nl; i++) cmd[m++] = lv[i];
      cmd[m++] = "-n", cmd[m++] = nbuf, cmd[m++] = app_bin;
      for (int i = 0; i < na; i++) cmd[m++] = av[i];
      if (P[k].nrep) cmd[m++] = "--schedule", cmd[m++] = P[k].schedule;
      else cmd[m++] = "--policy", cmd[m++] = "none";
      cmd[m++] = "--json", cmd[m++] = jpath, cmd[m] = NULL;
      int status = 0, got = run_child(cmd, env0, lpath, timeout, &status);
      char tail[1200], *text = NULL;
      size_t tl;
      double total;
      if (got == -1) {
        cli_progress_end(&prog);
        fprintf(stderr, "lbsim: validate: cannot start '%s': %s\n", cmd[0], strerror(errno));
        goto done_runs;
      }
      if (got == -2 || !WIFEXITED(status) || WEXITSTATUS(status) ||
          lbs_read_file(jpath, &text, &tl) || !summary_number(text, "total_s", &total) ||
          !(total > 0)) {
        cli_progress_end(&prog);
        log_tail(lpath, tail, sizeof tail);
        fprintf(stderr, "lbsim: validate: the real run of %s with %s (run %lld) %s; its output ends:\n%s\n", name,
                P[k].policy, (long long)run + 1,
                got == -2 ? "took longer than --timeout" : !WIFEXITED(status) || WEXITSTATUS(status) ? "failed"
                                                                                                     : "wrote no total_s",
                tail);
        free(text);
        goto done_runs;
      }
      if (!summary_array(text, "repartitions", P[k].app_reps, sizeof P[k].app_reps))
        P[k].app_reps[0] = '\0';
      free(text);
      if (strcmp(P[k].app_reps, P[k].schedule)) {
        cli_progress_end(&prog);
        fprintf(stderr, "lbsim: validate: %s repartitioned before steps [%s], not the schedule [%s] it was given\n", name,
                P[k].app_reps, P[k].schedule);
        goto done_runs;
      }
      P[k].measured[P[k].nmeasured++] = total;
      cli_progress_update(&prog, run * np + k + 1);
    }
  cli_progress_end(&prog);
  rc = 0;
done_runs:
  free(lcopy), free(acopy);
  if (rc) goto done;
  /* 5. the comparison */
  int order_sim[MAXPOL], order_real[MAXPOL];
  for (int k = 0; k < np; k++) {
    double v[MAXRUNS];
    memcpy(v, P[k].measured, (size_t)P[k].nmeasured * sizeof *v);
    qsort(v, (size_t)P[k].nmeasured, sizeof *v, cmp_d);
    int n = P[k].nmeasured;
    P[k].median_s = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    P[k].min_s = v[0], P[k].max_s = v[n - 1];
    P[k].error = (P[k].predicted_s - P[k].median_s) / P[k].median_s;
    order_sim[k] = order_real[k] = k;
  }
  for (int i = 0; i < np; i++) /* insertion sorts: small lists, stable */
    for (int j = i; j > 0; j--) {
      if (P[order_sim[j]].predicted_s < P[order_sim[j - 1]].predicted_s) {
        int x = order_sim[j];
        order_sim[j] = order_sim[j - 1], order_sim[j - 1] = x;
      }
      if (P[order_real[j]].median_s < P[order_real[j - 1]].median_s) {
        int x = order_real[j];
        order_real[j] = order_real[j - 1], order_real[j - 1] = x;
      }
    }
  /* pairs ranked the other way round; a pair whose measured spreads overlap is a tie in reality */
  int discordant = 0, ties = 0;
  for (int a = 0; a < np; a++)
    for (int b = a + 1; b < np; b++) {
      double ds = P[a].predicted_s - P[b].predicted_s, dr = P[a].median_s - P[b].median_s;
      int overlap = P[a].min_s <= P[b].max_s && P[b].min_s <= P[a].max_s;
      if (ds * dr < 0) {
        if (overlap) ties++;
        else discordant++;
      }
    }
  int same = discordant == 0;
  double worst = 0;
  for (int k = 0; k < np; k++) worst = fabs(P[k].error) > worst ? fabs(P[k].error) : worst;
  lbs_err re = LBS_OK;
  char rmsg[1024] = "";
  if (results) {
    lbs_prov_study st; /* one study: the replays of every schedule and their real runs */
    lbs_prov_run ri;
    lbs_prov_study_init(&st, "validate", NULL);
    lbs_prov_run_init(&ri, trace_path, grid_path, cfg, (const char *const *)over.v, over.n, (int)o.cost);
    for (int k = 0; k < np && !re; k++) {
      int64_t run_id = 0;
      re = lbs_results_save_study(results, &st.info, &P[k].r, &ri.info, 1, &run_id);
      if (!re) {
        lbs_validation v = {run_id, name, app_args, R, P[k].schedule, P[k].predicted_s, P[k].nmeasured, P[k].measured};
        re = lbs_results_save_validation(results, &v);
      }
    }
    lbs_prov_run_free(&ri);
    if (re) snprintf(rmsg, sizeof rmsg, "%s", lbs_errmsg());
  }
  if (json) {
    json_t *doc = json_object(), *pols = json_array(), *os = json_array(), *om = json_array();
    int bad = lbs_json_set(doc, "trace", lbs_json_str(trace_path)) ||
              lbs_json_set(doc, "app", lbs_json_str(name)) ||
              lbs_json_set(doc, "args", lbs_json_str(app_args)) ||
              lbs_json_set(doc, "ranks", lbs_json_int(R)) ||
              lbs_json_set(doc, "grid", lbs_json_str(grid_path)) ||
              lbs_json_set(doc, "partitioner", lbs_json_str(o.partitioner)) ||
              lbs_json_set(doc, "runs", lbs_json_int(runs)) ||
              lbs_json_set(doc, "policies", json_incref(pols));
    for (int k = 0; !bad && k < np; k++) {
      json_t *x = json_object(), *sched = json_array(), *meas = json_array();
      bad = json_array_append_new(pols, x);
      for (const char *c = P[k].schedule; !bad && *c; c += strcspn(c, ","), c += *c == ',')
        bad = json_array_append_new(sched, lbs_json_int(strtoll(c, NULL, 10)));
      for (int i = 0; !bad && i < P[k].nmeasured; i++)
        bad = json_array_append_new(meas, lbs_json_sig(P[k].measured[i], 9));
      bad = bad || lbs_json_set(x, "policy", lbs_json_str(P[k].policy)) ||
            lbs_json_set(x, "repartitions", lbs_json_int(P[k].nrep)) ||
            lbs_json_set(x, "schedule", json_incref(sched)) ||
            lbs_json_set(x, "predicted_s", lbs_json_sig(P[k].predicted_s, 9)) ||
            lbs_json_set(x, "measured_median_s", lbs_json_sig(P[k].median_s, 9)) ||
            lbs_json_set(x, "measured_min_s", lbs_json_sig(P[k].min_s, 9)) ||
            lbs_json_set(x, "measured_max_s", lbs_json_sig(P[k].max_s, 9)) ||
            lbs_json_set(x, "error", lbs_json_sig(P[k].error, 6)) ||
            lbs_json_set(x, "measured_s", json_incref(meas));
      json_decref(sched), json_decref(meas);
    }
    for (int k = 0; !bad && k < np; k++)
      bad = json_array_append_new(os, lbs_json_str(P[order_sim[k]].policy)) ||
            json_array_append_new(om, lbs_json_str(P[order_real[k]].policy));
    bad = bad || lbs_json_set(doc, "order_simulated", json_incref(os)) ||
          lbs_json_set(doc, "order_measured", json_incref(om)) ||
          lbs_json_set(doc, "same_ranking", json_boolean(same)) ||
          lbs_json_set(doc, "discordant_pairs", lbs_json_int(discordant)) ||
          lbs_json_set(doc, "tied_pairs", lbs_json_int(ties)) ||
          lbs_json_set(doc, "max_abs_error", lbs_json_sig(worst, 6));
    json_decref(pols), json_decref(os), json_decref(om);
    if (bad) json_decref(doc), doc = NULL;
    if (cli_json_print("validate", doc, LBS_JSON_COMPACT, LBS_JSON_SHORT)) rc = 1;
  } else {
    printf("validate      %s: %s %s on %d ranks, %lld real runs per policy; predicted on %s with %s\n", trace_path, name,
           app_args, R, (long long)runs, grid_path, o.partitioner);
    printf("\n  %-22s %6s %12s %12s %21s %8s\n", "policy", "reps", "predicted s", "measured s", "(min..max)", "error");
    for (int k = 0; k < np; k++)
      printf("  %-22s %6d %12.4f %12.4f %10.4f..%-10.4f %+7.1f%%\n", P[k].policy, P[k].nrep, P[k].predicted_s,
             P[k].median_s, P[k].min_s, P[k].max_s, 100 * P[k].error);
    printf("\n  simulated order  ");
    for (int k = 0; k < np; k++) printf("%s%s", k ? " < " : "", P[order_sim[k]].policy);
    printf("\n  measured order   ");
    for (int k = 0; k < np; k++) printf("%s%s", k ? " < " : "", P[order_real[k]].policy);
    printf("\n  ranking          %s", same ? "the same" : "differs");
    if (discordant) printf(" (%d pair%s the other way round, beyond the measured spread)", discordant, discordant > 1 ? "s" : "");
    if (ties) printf("%s%d pair%s swapped within the measured spread (a tie in reality)", discordant ? "; " : " (",
                     ties, ties > 1 ? "s" : "");
    if (ties && !discordant) printf(")");
    printf("\n  largest error    %.1f%%%s%s\n", 100 * worst, results && !re ? "; results in " : "", results && !re ? results : "");
  }
  if (re) {
    fflush(stdout);
    fprintf(stderr, "lbsim: results store: %s\n", *rmsg ? rmsg : lbs_strerror(re));
    rc = 1;
  }
done:
  if (have_tmp) { /* the runs' JSON and logs */
    char cmdline[256];
    snprintf(cmdline, sizeof cmdline, "%s", tmpdir);
    for (int64_t run = 0; run < MAXRUNS; run++)
      for (int k = 0; k < np; k++) {
        char p1[4200];
        snprintf(p1, sizeof p1, "%s/run%lld_%d.json", cmdline, (long long)run, k);
        unlink(p1);
        snprintf(p1, sizeof p1, "%s/run%lld_%d.log", cmdline, (long long)run, k);
        unlink(p1);
      }
    rmdir(tmpdir);
  }
  for (int k = 0; k < np; k++) {
    lbs_replay_result_free(&P[k].r);
    free(pl[k]);
  }
  free(P);
  free(app_args);
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  for (size_t i = 0; i < nenv; i++) free(env0[i]);
  free(env0);
  cli_overrides_free(&over);
  MPI_Finalize();
  return rc;
}
