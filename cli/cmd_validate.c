/* cmd_validate.c - lbsim validate: predictions checked against real runs. The plan, the real
 * runs under mpiexec, their statistics and the store are study/'s (lbs_validate.h); this face
 * parses, prints the table or the JSON document, and says what failed. Run without mpiexec: the
 * replays run in this process (an MPI singleton), the app's runs in child processes. */
#include <getopt.h>
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lbs_policy.h"
#include "lbs_validate.h"

#define MAXPOL LBS_VALIDATE_MAXPOL

static void usage(void) {
  printf(
      "usage: lbsim validate t.lbt --grid machine.ini [options]\n\n"
      "Checks lbsim's predictions against real runs. The trace must come from one of lbsim's\n"
      "apps (apps/: wave, nbody, laplace-mc) profiled at every step; its keys app.name,\n"
      "app.args and profiler.ranks say how to run it again. For each policy, lbsim replays\n"
      "the trace on the grid (predicted total, and the schedule the policy chose), then runs\n"
      "the app for real with that schedule (--schedule) on the same number of ranks, --runs\n"
      "times, interleaved across policies (round by round). Reports the measured median and\n"
      "spread and the prediction's error; then, for each pair of policies A and B (A first in\n"
      "--policies), B's gain over A predicted and measured, with the range of the rounds'\n"
      "gains, the error in points and a verdict: 'agrees' or 'wrong order' where every round\n"
      "has the same one faster, 'tie' where not (a tie confirms nothing), 'unknown (1 run)'\n"
      "with --runs 1. Run it without mpiexec: it starts mpiexec itself. The grid\n"
      "must have one processor per rank: the one 'lbsim grid probe' writes for this machine.\n\n"
      "options:\n"
      "  --grid FILE          the grid (required; e.g. from 'mpiexec -n 2 lbsim grid probe')\n"
      "  --policies LIST      comma-separated (default none,fixed:20,adaptive:0.15:5:20,optimal);\n"
      "                       a steps:LIST policy keeps its commas\n"
      "  --runs N             real runs per policy (default 3; 2 or more for verdicts)\n"
      "  --app PATH           the application (default: app.name beside lbsim, e.g. build/bin/wave)\n"
      "  --ranks N            must equal the profiled rank count (checked; default: that count)\n"
      "  --mpiexec CMD        the launcher, split at blanks (default $LBSIM_MPIEXEC, else\n"
      "                       'mpiexec', with --allow-run-as-root when run as root)\n"
      "  --timeout S          seconds one real run may take (default 600)\n"
      "  --partitioner NAME   the replay's (default: the grid's [sim], else the trace's\n"
      "                       app.partitioner, else zoltan:rcb)\n"
      "  --mode bsp|des       the replay's mode (default: the grid's [sim], else bsp)\n"
      "  --set SEC.KEY=VAL    override a grid key; --partitioner X is --set sim.partitioner=X,\n"
      "                       --mode M is --set sim.mode=M, and the later on the line wins\n"
      "  --emulate            run each rank at its processor's speed on this machine: a\n"
      "                       control group per rank capped to that share of a CPU (cgroup\n"
      "                       v2 cpu.max or v1 cpu.cfs_quota_us; root, or a delegated\n"
      "                       controller); speeds relative to this machine's (1, as 'grid\n"
      "                       probe' writes), at most 1, one CPU per rank\n"
      "  --keep DIR           keep each real run's JSON summary (its step times included) and\n"
      "                       log in DIR (new or empty; -f: replacing an earlier --keep's),\n"
      "                       with DIR/runs.csv listing them\n"
      "  --results FILE       append the replays and the measurements to a results store\n"
      "  --json               one JSON object on stdout\n\n"
      "example:\n"
      "  mpiexec -n 2 build/bin/wave --trace w.lbt\n"
      "  mpiexec -n 2 lbsim grid probe -o machine.ini\n"
      "  lbsim validate w.lbt --grid machine.ini --policies none,fixed:20,optimal --runs 3\n"
      "  lbsim validate w.lbt --grid half.ini --emulate   (half.ini: machine.ini with a\n"
      "                       second node type of speed 0.5 for rank 1)\n");
}

typedef struct args {
  const char *trace, *grid, *policies, *results, *keep;
  int force;     /* -f: --keep may replace an earlier validate's runs */
  cli_outdir od; /* --keep DIR */
  int json;
  lbs_validate_opts o; /* how the app runs */
  cli_overrides over;  /* --set, --partitioner and --mode, in command-line order */
} args;

/* The command line into a: 0, 2 after a usage error, or -1 after --help. */
static int parse(int argc, char **argv, args *a) {
  enum {
    O_GRID = 256,
    O_POL,
    O_RUNS,
    O_APP,
    O_RANKS,
    O_MPIEXEC,
    O_TIMEOUT,
    O_RESULTS,
    O_JSON,
    O_EMULATE,
    O_KEEP
  };
  static const struct option lo[] = {{"grid", required_argument, 0, O_GRID},
                                     {"policies", required_argument, 0, O_POL},
                                     {"runs", required_argument, 0, O_RUNS},
                                     {"app", required_argument, 0, O_APP},
                                     {"ranks", required_argument, 0, O_RANKS},
                                     {"mpiexec", required_argument, 0, O_MPIEXEC},
                                     {"timeout", required_argument, 0, O_TIMEOUT},
                                     {"partitioner", required_argument, 0, CLI_RO_PART},
                                     {"mode", required_argument, 0, CLI_RO_MODE},
                                     {"results", required_argument, 0, O_RESULTS},
                                     {"json", no_argument, 0, O_JSON},
                                     {"emulate", no_argument, 0, O_EMULATE},
                                     {"keep", required_argument, 0, O_KEEP},
                                     {"force", no_argument, 0, 'f'},
                                     CLI_SET_OPTION,
                                     {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  int64_t runs = 3, ranks = 0;
  int c, bad = 0;
  a->policies = "none,fixed:20,adaptive:0.15:5:20,optimal";
  a->o = (lbs_validate_opts){.launcher = getenv("LBSIM_MPIEXEC"), .timeout_s = 600};
  while (!bad && (c = cli_getopt(argc, argv, "hfo:", lo)) != -1) {
    switch (c) {
    case O_GRID: a->grid = optarg; break;
    case O_POL: a->policies = optarg; break;
    case O_RUNS: bad = cli_parse_i64("--runs", optarg, 1, LBS_VALIDATE_MAXRUNS, &runs); break;
    case O_APP: a->o.app = optarg; break;
    case O_RANKS: bad = cli_parse_i64("--ranks", optarg, 1, 1 << 20, &ranks); break;
    case O_MPIEXEC: a->o.launcher = optarg; break;
    case O_TIMEOUT: bad = cli_parse_f64("--timeout", optarg, 1, 1e6, &a->o.timeout_s); break;
    case CLI_RO_PART:
    case CLI_RO_MODE: bad = cli_replay_flag(&a->over, "validate", c, optarg); break;
    case O_RESULTS: a->results = optarg; break;
    case O_JSON: a->json = 1; break;
    case O_EMULATE: a->o.emulate = 1; break;
    case O_KEEP: a->keep = optarg; break;
    case 'f': a->force = 1; break;
    case CLI_SET: bad = cli_override(&a->over, "validate", optarg); break;
    case 'o': bad = cli_o_none("validate", optarg); break;
    case 'h': usage(); return -1;
    default: bad = cli_bad_option("validate");
    }
  }
  if (!bad && optind != argc - 1)
    bad = cli_usage("validate", "expected one trace file");
  else if (!bad && !a->grid)
    bad = cli_usage("validate", "missing --grid FILE (e.g. from 'lbsim grid probe')");
  a->trace = bad ? NULL : argv[optind];
  a->o.runs = (int)runs, a->o.ranks = (int)ranks;
  return bad;
}

/* "s" for a count other than 1. */
static const char *plural(int n) { return n == 1 ? "" : "s"; }

/* The pairs: B's gain over A predicted and measured (the range over the rounds), the error in
 * points and the verdict; then what reality separates and what lbsim orders right. */
static void print_pairs(const lbs_validate *v) {
  const lbs_validate_ranking *rk = &v->rank;
  if (!rk->npairs) return;
  printf("\n  pairs: B's gain over A, a fraction of A's total (+: B is faster)\n");
  printf("  %-22s %-22s %10s %10s %21s %9s  %s\n", "A", "B", "predicted", "measured", "(range)",
         "error", "verdict");
  for (int i = 0; i < rk->npairs; i++) {
    const lbs_validate_pair *q = &rk->pairs[i];
    char range[48], verdict[128];
    snprintf(range, sizeof range, "(%+.2f..%+.2f%%)", 100 * q->gain_min, 100 * q->gain_max);
    if (q->verdict == LBS_VERDICT_TIE)
      snprintf(verdict, sizeof verdict, "tie (predicted %s)",
               q->predicted_within ? "within the range too" : "outside the range");
    else
      snprintf(verdict, sizeof verdict, "%s", lbs_validate_verdict_name(q->verdict));
    if (q->below_noise) /* the prediction could not be seen with these runs, right or wrong */
      snprintf(verdict + strlen(verdict), sizeof verdict - strlen(verdict),
               "; predicted below the noise (%.1f%%)", 100 * q->noise);
    printf("  %-22s %-22s %+9.2f%% %+9.2f%% %21s %+6.1f pt  %s\n", v->pol[q->a].policy,
           v->pol[q->b].policy, 100 * q->predicted_gain, 100 * q->measured_gain, range,
           q->error_points, verdict);
  }
  printf("\n  reality separates %d of %d pair%s; lbsim orders %d of them right; largest gain error "
         "%.1f points\n",
         rk->separated, rk->npairs, plural(rk->npairs), rk->ordered_right,
         rk->max_gain_error_points);
  if (rk->ties)
    printf("  %d pair%s tied in reality (not every round has the same one faster): a tie "
           "confirms nothing\n",
           rk->ties, plural(rk->ties));
  if (rk->unknown)
    printf("  %d pair%s unknown: one real run gives no spread (--runs 2 or more)\n", rk->unknown,
           plural(rk->unknown));
  int below = 0;
  for (int i = 0; i < rk->npairs; i++) below += rk->pairs[i].below_noise;
  if (below)
    printf("  %d pair%s predicted to differ by less than the run-to-run noise (half the rounds'\n"
           "  range): more runs, or a case where the choice matters more, to tell them apart\n",
           below, plural(below));
  for (int k = 0; k < v->npol; k++)
    if (!strcmp(v->pol[k].policy, "recorded"))
      printf(
          "  profiler's inflation: the profiled run (recorded, replayed with its own assignments\n"
          "  and costs) %+.1f%% against its schedule run unprofiled (on the machine it was\n"
          "  profiled on: other speeds or an emulation change the runs, not the profile)\n",
          100 * v->pol[k].error);
}

/* Each rank's share of a CPU and its throttling, under an emulation. */
static void print_emulation(const lbs_validate *v) {
  const lbs_emulate *em = &v->emu;
  if (!em->dir[0]) return;
  printf("\n  emulated with %s, period %lld us:\n", lbs_emulate_controller(em),
         (long long)em->period_us);
  for (int r = 0; r < em->ranks; r++)
    if (em->share[r] < 1)
      printf("    rank %d at %.3g of a CPU: throttled in %lld periods, %.3f s held back\n", r,
             em->share[r], (long long)v->emu_periods[r], v->emu_throttled_s[r]);
    else
      printf("    rank %d at full speed (not capped)\n", r);
}

/* The validation as a table on stdout; re: the results store's error, if any. */
static void print_table(const args *a, const lbs_validate *v, lbs_err re) {
  const lbs_validate_policy *P = v->pol;
  const lbs_validate_ranking *rk = &v->rank;
  int np = v->npol;
  printf(
      "validate      %s: %s %s on %d ranks, %lld real runs per policy; predicted on %s with %s\n",
      a->trace, v->app, v->args, v->ranks, (long long)a->o.runs, a->grid,
      v->session.opts.partitioner);
  printf("\n  %-22s %6s %12s %12s %21s %8s\n", "policy", "reps", "predicted s", "measured s",
         "(min..max)", "error");
  for (int k = 0; k < np; k++)
    printf("  %-22s %6d %12.4f %12.4f %10.4f..%-10.4f %+7.1f%%\n", P[k].policy, P[k].nrep,
           P[k].predicted_s, P[k].median_s, P[k].min_s, P[k].max_s, 100 * P[k].error);
  printf("\n  part sizes       %s: %s, the replay's and the app's (--part-sizes)\n",
         lbs_validate_part_rule(v), v->part_arg);
  print_emulation(v);
  print_pairs(v);
  printf("\n  simulated order  ");
  for (int k = 0; k < np; k++) printf("%s%s", k ? " < " : "", P[rk->order_sim[k]].policy);
  printf("\n  measured order   ");
  for (int k = 0; k < np; k++) printf("%s%s", k ? " < " : "", P[rk->order_real[k]].policy);
  printf(" (medians)\n  largest error    %.1f%% of a policy's total%s%s\n", 100 * rk->worst,
         a->results && !re ? "; results in " : "", a->results && !re ? a->results : "");
}

static int validate_with(args *a, lbs_validate *v, char **pl, int np, lbs_err e);

/* The trace and the grid, the emulation (--emulate), then the plan, the real runs (a progress
 * bar), the statistics, the store, the report. Exit code. */
static int validate(args *a, lbs_validate *v, char **pl, int np) {
  lbs_err e =
      lbs_validate_open(v, a->trace, a->grid, (const char *const *)a->over.v, a->over.n, &a->o);
  int guard = -1;
  cli_interrupt_call(lbs_validate_kill_running); /* no real run outlives an interrupt */
  if (!e && a->o.emulate) {
    sigset_t saved; /* made and registered as one step for a signal */
    cli_interrupt_hold(&saved);
    if (!(e = lbs_validate_emulate(v)))
      guard = cli_interrupt_remove(v->emu.dir, CLI_RM_CGROUP, NULL);
    cli_interrupt_release(&saved);
  }
  int rc = validate_with(a, v, pl, np, e);
  lbs_emulate_close(&v->emu); /* the ranks' groups, before they are forgotten */
  cli_interrupt_keep(guard);
  return rc;
}

/* validate, after the trace and the grid were opened (e: how that went). Exit code. */
static int validate_with(args *a, lbs_validate *v, char **pl, int np, lbs_err e) {
  if (!e) e = lbs_validate_plan(v, (const char *const *)pl, np, MPI_COMM_WORLD);
  if (e) return cli_error("validate", e);
  cli_progress prog;
  lbs_validate_opts o = a->o;
  if (a->keep) {
    if (cli_outdir_begin(&a->od)) return 1;
    o.keep_dir = a->od.tmp;
  }
  cli_progress_start(&prog, "real runs", (int64_t)a->o.runs * np);
  e = lbs_validate_run(v, &o, cli_progress_cb, &prog);
  cli_progress_end(&prog);
  if (!e && a->keep && cli_outdir_commit(&a->od)) return 1;
  if (e) {
    cli_error("validate", e);
    if (v->tail) fprintf(stderr, "%s\n", v->tail); /* the failed run's output */
    return 1;
  }
  lbs_validate_stats(v->pol, v->npol, &v->rank);
  /* a results-store error (a full disk) is reported after the report, which is printed anyway */
  lbs_err re = a->results ? lbs_validate_save(v, a->results) : LBS_OK;
  char rmsg[1024] = "";
  if (re) snprintf(rmsg, sizeof rmsg, "%s", lbs_errmsg());
  int rc = 0;
  if (a->json)
    rc = cli_json_print("validate", lbs_validate_json(v, a->o.runs), LBS_JSON_COMPACT);
  else
    print_table(a, v, re);
  if (re) {
    fflush(stdout);
    fprintf(stderr, "lbsim: results store: %s\n", *rmsg ? rmsg : lbs_strerror(re));
    rc = 1;
  }
  return rc;
}

int cmd_validate(int argc, char **argv) {
  args a = {0};
  int rc = parse(argc, argv, &a);
  if (rc) return cli_overrides_free(&a.over), rc < 0 ? 0 : rc;
  if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_RANK") || getenv("PMIX_RANK")) {
    cli_overrides_free(&a.over);
    fprintf(stderr,
            "lbsim: validate: run it without mpiexec: it starts the app under mpiexec itself\n");
    return 1;
  }
  char *pl[MAXPOL + 1];
  int np = lbs_policy_split(a.policies, pl, MAXPOL);
  if (np < 1 || np > MAXPOL) {
    for (int k = 0; k < np && k < MAXPOL; k++) free(pl[k]);
    cli_overrides_free(&a.over);
    return cli_usage("validate", "--policies: 1 to %d policies", MAXPOL);
  }
  if (a.results && cli_check_output(a.results, CLI_OUT_APPEND, CLI_FILE_STORE)) rc = 1;
  a.od.tmp[0] = '\0', a.od.guard = -1;
  if (!rc && a.keep && cli_outdir_check_as(&a.od, "validate", a.keep, a.force, CLI_DIR_VALIDATE))
    rc = 1;
  lbs_validate v;
  lbs_err e =
      rc ? LBS_OK : lbs_validate_init(&v); /* the environment as it was, for the app's runs */
  if (!rc) {
    cli_mpi_init();
    rc = e ? cli_error("validate", e) : validate(&a, &v, pl, np);
    lbs_validate_close(&v);
    MPI_Finalize();
  }
  if (a.keep) cli_outdir_abort(&a.od); /* nothing once committed */
  for (int k = 0; k < np; k++) free(pl[k]);
  cli_overrides_free(&a.over);
  return rc;
}
