/* cmd_replay.c - lbsim replay: a trace on a grid with a partitioner and a policy (MPI). */
#include <getopt.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lbs_mpi.h"
#include "lbs_part.h"
#include "lbs_policy.h"
#include "lbs_sim.h"
#include "lbs_study.h"

static void usage(void) {
  printf(
      "usage: [mpirun -n R] lbsim replay t.lbt --grid g.ini [options]\n\n"
      "Replays the trace on the simulated grid, calling the partitioner whenever the policy\n"
      "says so, and reports the simulated time (compute, communication, partitioning,\n"
      "migration), repartitions, imbalance and moved elements. Same answer on any number\n"
      "of MPI ranks; each rank decodes only its share of the elements. --policy recorded\n"
      "replays the application's own assignments instead (a trace that recorded its element\n"
      "owners): no partitioner runs, no partitioning time is charged.\n\noptions:\n"
      "  --grid FILE          the grid (INI; 'lbsim grid --help-config'); may hold [zoltan]\n"
      "                       and [sim] (the replay's settings: --help-config)\n"
      "  --set SEC.KEY=VAL    override a grid key, e.g. --set zoltan.IMBALANCE_TOL=1.05\n"
      "  --partitioner NAME   %s (default zoltan:rcb)\n"
      "  --policy NAME        %s (default none)\n"
      "  --mode bsp|des       barrier per step (default) or discrete events per processor\n"
      "  --metric NAME        the replayed metric (default: the trace's first)\n"
      "  --partition-metric NAME  the metric the partitioner gets as weights (default: the\n"
      "                       replayed one), e.g. weight: what the application gives it\n"
      "  --steps A:B          replay trace steps A..B-1 only (policies count from A)\n"
      "  --cost model|measured|zero\n"
      "                       partitioning time: a deterministic model (default), the\n"
      "                       measured wall time x --cost-scale (not reproducible), or zero\n"
      "  --cost-scale X       measured: simulated time = wall time x X (default 1)\n"
      "  --part-fixed-us US, --part-per-elem-ns NS   the model's constants (-1: the\n"
      "                       partitioner's own, the default)\n"
      "  --results FILE       append the run to an SQLite results store\n"
      "  --save-assignment    with --results: the assignment after every repartition\n"
      "  --json               one JSON object on stdout\n"
      "  --help-config        the [sim] keys a grid file (or --set sim.KEY=VALUE) may set\n\n"
      "Each replay flag is the [sim] override it names: --policy X is --set sim.policy=X, --steps\n"
      "A:B is --set sim.steps=A:B, --part-fixed-us US is --set sim.partition_fixed_us=US (docs/config.md).\n"
      "One precedence: the defaults, then the grid file's [sim], then the command line's flags\n"
      "and --set overrides from left to right (the later wins). A bad flag value is a usage error\n"
      "(exit 2); errors found later exit 1.\n\n"
      "Under MPI each rank holds its share of the elements; --set sim.partition_mode=rank0 (the same\n"
      "answer on any number of ranks), distributed (the partitioner runs where the elements are:\n"
      "memory per rank shrinks with ranks, answers reproducible at a fixed number of ranks) or\n"
      "auto (the default: distributed from 1,000,000 elements on 2 or more ranks). Example:\n"
      "  mpiexec -n 4 lbsim replay big.lbt --grid g.ini --set sim.partition_mode=distributed\n\n"
      "In des on a fair network overlapping steps' halos share the network as SimGrid's SMPI\n"
      "shares them (policies see each step in flight as if it were the last; auto, the default,\n"
      "falls back to ordered with phases, availability profiles or optimal); --set\n"
      "sim.des_overlap=ordered serves each step's halo after the earlier steps':\n"
      "  lbsim replay t.lbt --grid g.ini --mode des --set sim.des_overlap=ordered\n",
      lbs_part_known(), lbs_policy_known());
}

enum { O_GRID = 1000, O_RESULTS, O_SAVE, O_JSON, O_HELPCFG };

typedef struct args {
  const char *trace, *grid, *results;
  int json, save_assignment;
  cli_overrides over; /* -o and the replay flags, in command-line order */
} args;

/* The command line into a: 0, 2 after a usage error, or -1 after --help or --help-config. */
static int parse(int argc, char **argv, args *a) {
  static const struct option lo[] = {{"grid", required_argument, 0, O_GRID},
                                     CLI_REPLAY_OPTIONS,
                                     {"results", required_argument, 0, O_RESULTS},
                                     {"save-assignment", no_argument, 0, O_SAVE},
                                     {"json", no_argument, 0, O_JSON},
                                     {"help-config", no_argument, 0, O_HELPCFG},
                                     CLI_SET_OPTION,
                                     {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  int c, rc = 0;
  while (!rc && (c = cli_getopt(argc, argv, "ho:", lo)) != -1) {
    if (c >= CLI_RO_FIRST && c <= CLI_RO_LAST) {
      rc = cli_replay_flag(&a->over, "replay", c, optarg);
      continue;
    }
    switch (c) {
    case O_GRID: a->grid = optarg; break;
    case CLI_SET: rc = cli_override(&a->over, "replay", optarg); break;
    case 'o': rc = cli_o_none("replay", optarg); break;
    case O_RESULTS: a->results = optarg; break;
    case O_SAVE: a->save_assignment = 1; break;
    case O_JSON: a->json = 1; break;
    case 'h': usage(); return -1;
    case O_HELPCFG: lbs_config_help(stdout, lbs_sim_spec); return -1;
    default: rc = cli_bad_option("replay");
    }
  }
  if (!rc && optind != argc - 1)
    rc = cli_usage("replay", "expected one trace file");
  else if (!rc && !a->grid)
    rc = cli_usage("replay", "missing --grid FILE");
  else if (!rc && a->save_assignment && !a->results)
    rc = cli_usage("replay", "--save-assignment goes with --results");
  if (!rc) a->trace = argv[optind];
  return rc;
}

/* The run as text on stdout; wall_s the command's wall time, saved_s the store's (< 0: not saved).
 */
static void print_run(const args *a, const lbs_replay_result *r, double wall_s, double saved_s) {
  printf("replay        %s on %s (%d processors, %s), %s, policy %s, metric %s\n", a->trace,
         a->grid, r->procs,
         r->mode == LBS_MODE_BSP ? "bsp"
         : r->des_shared         ? "des, steps sharing the network"
                                 : "des",
         r->partitioner, r->policy, r->metric);
  printf(
      "simulated     %.6f s = compute %.6f + communication %.6f + partitioning %.6f + migration %.6f",
      1e-9 * (double)r->total_ns, 1e-9 * (double)r->compute_ns, 1e-9 * (double)r->comm_ns,
      1e-9 * (double)r->partition_ns, 1e-9 * (double)r->migration_ns);
  /* [sim] outside: the application's recorded time outside its elements, beyond the step's
   * compute (sim/recorded.c); other replays print as before */
  if (r->outside) printf(" + outside %.6f", 1e-9 * (double)r->outside_ns);
  printf("\n");
  if (r->mig_fit) /* the application's own rate charged the migrations */
    printf("migration     the application's own rate, %.4g ns per element + %.4g us (%s of the "
           "%d migration%s its trace recorded)\n",
           r->mig_per_elem_ns, r->mig_fixed_us,
           r->mig_fit == 2 ? "least squares" : "ratio of the sums", r->mig_points,
           r->mig_points == 1 ? "" : "s");
  if (r->nphases) { /* the step's compute is charged phase by phase */
    printf("phases        ");
    for (int k = 0; k < r->nphases; k++) printf("%s%s", k ? ", " : "", r->phases[k]);
    printf(" (each phase's slowest processor)\n");
  }
  printf("repartitions  %d", r->nrep);
  for (int k = 0; k < r->nrep && k < 20; k++)
    printf("%s%lld", k ? ", " : " before steps ", (long long)(r->first_step + r->reparts[k].step));
  if (r->nrep > 20) printf(", ...");
  if (r->recorded_costs) /* the rest modelled */
    printf("; %d charged the application's own recorded costs", r->recorded_costs);
  printf("\nimbalance     mean %.4f, max %.4f ((Lmax-Lavg)/Lmax); LoadImb mean %.4f (Lmax/Lavg)\n",
         r->mean_imbalance, r->max_imbalance, r->mean_loadimb);
  printf("balance       work imbalance %.4f initially, %.4f at worst (max work / target share)",
         r->initial_work_imbalance, r->max_work_imbalance);
  if (r->tolerance > 0) printf("; %s promises %.4g", r->partitioner, r->tolerance);
  printf("\nmoved         %lld elements\nwall          %.3f s (replay %.3f s", (long long)r->moved,
         wall_s, r->wall_s);
  if (saved_s >= 0) printf(", results store %.3f s, in %s", saved_s, a->results);
  printf(
      ")\nranks         %d, partitioning %s, peak memory %.1f MB (the largest rank's resident set)\n",
      r->ranks, lbs_partition_mode_name(r->partition_mode), r->peak_rss_mb);
}

/* Rank 0: the run to the results store, its progress on a bar; the error, if any, for later. */
static lbs_err save(const lbs_session *s, const args *a, lbs_replay_result *r, double *saved_s) {
  cli_progress wp;
  double t0 = MPI_Wtime();
  cli_progress_start(&wp, "results store", 2);
  lbs_err e = lbs_session_save(s, a->results, "replay", &r, 1, -1, cli_progress_cb, &wp);
  cli_progress_end(&wp);
  *saved_s = MPI_Wtime() - t0;
  return e;
}

/* Rank 0 reports: the run (JSON or text), a missed tolerance, a store that failed. Exit code. */
static int report(const args *a, const lbs_replay_result *r, double t_cmd, double saved_s,
                  lbs_err re) {
  char rmsg[1024] = "";
  if (re) snprintf(rmsg, sizeof rmsg, "%s", lbs_errmsg());
  int rc = 0;
  if (a->json)
    rc = cli_json_print("replay", lbs_replay_json(r), LBS_JSON_COMPACT);
  else
    print_run(a, r, MPI_Wtime() - t_cmd, a->results && !re ? saved_s : -1);
  if (r->tolerance_missed) {
    fflush(stdout);
    fprintf(
        stderr,
        "lbsim replay: warning: %s missed its tolerance %.4g in %d of %d partitions (against the shares it "
        "aims at; against the grid's, the worst work imbalance is %.4f)\n",
        r->partitioner, r->tolerance, r->tolerance_missed, r->nrep + 1, r->max_work_imbalance);
  }
  if (re) {
    fflush(stdout);
    fprintf(stderr, "lbsim: results store: %s\n", *rmsg ? rmsg : lbs_strerror(re));
    rc = 1;
  }
  return rc;
}

int cmd_replay(int argc, char **argv) {
  args a = {0};
  int rc = parse(argc, argv, &a);
  if (rc) return cli_overrides_free(&a.over), rc < 0 ? 0 : rc;
  cli_mpi_init();
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double t_cmd =
      MPI_Wtime(); /* the wall time printed counts the search, the replay and the store */
  /* the outputs before the work (rank 0 writes them; every rank learns the answer) */
  int bad = rank == 0 && a.results && cli_check_output(a.results, CLI_OUT_APPEND, CLI_FILE_STORE);
  if (lbs_mpi_agree(MPI_COMM_WORLD, bad ? LBS_IO : LBS_OK)) { /* said on rank 0 */
    cli_overrides_free(&a.over);
    MPI_Finalize();
    return 1;
  }
  lbs_session s;
  lbs_replay_result *r = NULL;
  /* every rank loads the same inputs; failures are the same everywhere */
  lbs_err e = lbs_session_open(&s, a.trace, a.grid, (const char *const *)a.over.v, a.over.n);
  s.opts.save_assignment = a.save_assignment;
  if (!e) e = cli_session_replay(&s, "replaying", "optimal's search", &r);
  /* a results-store error (a full disk) is reported after the summary, which is printed anyway */
  lbs_err re = LBS_OK;
  double saved_s = 0;
  if (!e && rank == 0 && a.results) re = save(&s, &a, r, &saved_s);
  if (e) {
    if (rank == 0) cli_error("replay", e);
    rc = 1;
  } else if (rank == 0) {
    rc = report(&a, r, t_cmd, saved_s, re);
  }
  lbs_replay_result_free(&r);
  lbs_session_close(&s);
  cli_overrides_free(&a.over);
  MPI_Finalize();
  return rc;
}
