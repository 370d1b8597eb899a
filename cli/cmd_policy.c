/* cmd_policy.c - lbsim policy compare: several policies on one trace, grid and partitioner. The
 * replays, the optimum's gaps, the CSV files and the JSON document are study/'s
 * (lbs_compare.h); this face parses, checks the outputs, draws the progress bars and prints. */
#include <getopt.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lbs_compare.h"
#include "lbs_mpi.h"
#include "lbs_policy.h"

static void usage(void) {
  printf(
      "usage: [mpirun -n R] lbsim policy compare t.lbt --grid g.ini --policies A,B,C [options]\n\n"
      "Replays the trace once per policy (same grid, partitioner, mode and cost model) and\n"
      "compares total simulated time, repartitions, imbalance and costs. With `optimal`\n"
      "among them, gap_to_optimal is each policy's extra time as a fraction of the optimum.\n\n"
      "options:\n"
      "  --policies LIST      comma-separated (a steps:LIST policy keeps its commas): %s\n"
      "  --partitioner NAME   default zoltan:rcb; --mode bsp|des; --metric NAME; --steps A:B;\n"
      "  --partition-metric NAME; --part-fixed-us US; --part-per-elem-ns NS: as in 'lbsim replay'\n"
      "  --cost model|zero    partitioning time; not measured, which is not reproducible (a\n"
      "                       measured from the grid file or -o is taken as model)\n"
      "  --set SEC.KEY=VAL    override a grid key, e.g. --set sim.mode=des\n"
      "  --csv DIR            DIR/summary.csv, DIR/imbalance.csv (imbalance per step per policy,\n"
      "                       Figure 10 of seed 002), DIR/series_<policy>.csv (adaptive's interval\n"
      "                       at each probe, Figure 9); written fresh and renamed into place\n"
      "  -f, --force          replace DIR when it holds an earlier output of lbsim\n"
      "  --results FILE       append every run to an SQLite results store\n"
      "  --json               one JSON object on stdout\n\n"
      "Each replay flag is the [sim] override it names (--mode des is --set sim.mode=des): the\n"
      "defaults, then the grid file's [sim], then the command line's flags and --set overrides\n"
      "from left to right (the later wins). [sim] policy is not read: --policies names them.\n"
      "In des on a fair network the steps share the network ([sim] des_overlap = auto), except\n"
      "beside optimal, which plans over ordered steps: then every policy runs ordered, so that\n"
      "the gaps compare schedules, not models (the table's first line says which).\n",
      lbs_policy_known());
}

enum { O_GRID = 1000, O_POLICIES, O_RESULTS, O_JSON, O_CSV };

typedef struct args {
  const char *trace, *grid, *policies, *results, *csv;
  int json, force;
  cli_overrides over; /* -o and the replay flags, in command-line order */
} args;

/* The command line into a: 0, 2 after a usage error, or -1 after --help. */
static int parse(int argc, char **argv, args *a) {
  static const struct option lo[] = {{"grid", required_argument, 0, O_GRID},
                                     {"partitioner", required_argument, 0, CLI_RO_PART},
                                     {"policies", required_argument, 0, O_POLICIES},
                                     {"mode", required_argument, 0, CLI_RO_MODE},
                                     {"metric", required_argument, 0, CLI_RO_METRIC},
                                     {"partition-metric", required_argument, 0, CLI_RO_PMETRIC},
                                     {"cost", required_argument, 0, CLI_RO_COST},
                                     {"part-fixed-us", required_argument, 0, CLI_RO_FIXED},
                                     {"part-per-elem-ns", required_argument, 0, CLI_RO_PERELEM},
                                     {"steps", required_argument, 0, CLI_RO_STEPS},
                                     {"results", required_argument, 0, O_RESULTS},
                                     {"json", no_argument, 0, O_JSON},
                                     {"csv", required_argument, 0, O_CSV},
                                     {"force", no_argument, 0, 'f'},
                                     CLI_SET_OPTION,
                                     {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  int c, rc = 0;
  while (!rc && (c = cli_getopt(argc, argv, "fho:", lo)) != -1) {
    if (c == CLI_RO_COST && !strcmp(optarg, "measured")) {
      rc = cli_usage("policy compare", "--cost: 'measured' is not reproducible: model or zero");
      continue;
    }
    if (c >= CLI_RO_FIRST && c <= CLI_RO_LAST) {
      rc = cli_replay_flag(&a->over, "policy compare", c, optarg);
      continue;
    }
    switch (c) {
    case 'f': a->force = 1; break;
    case O_GRID: a->grid = optarg; break;
    case CLI_SET: rc = cli_override(&a->over, "policy compare", optarg); break;
    case 'o': rc = cli_o_none("policy compare", optarg); break;
    case O_POLICIES: a->policies = optarg; break;
    case O_RESULTS: a->results = optarg; break;
    case O_CSV: a->csv = optarg; break;
    case O_JSON: a->json = 1; break;
    case 'h': usage(); return -1;
    default: rc = cli_bad_option("policy compare");
    }
  }
  if (!rc && optind != argc - 1)
    rc = cli_usage("policy compare", "expected one trace file");
  else if (!rc && !a->grid)
    rc = cli_usage("policy compare", "missing --grid FILE");
  else if (!rc && (!a->policies || !*a->policies))
    rc = cli_usage("policy compare", "missing --policies A,B,...");
  if (!rc) a->trace = argv[optind];
  return rc;
}

/* Rank 0's progress bars around each policy's replay (lbs_compare_run's watch). */
typedef struct bars {
  const lbs_session *s;
  cli_progress prog, search;
  char label[128], slabel[160]; /* the policy, and its search (a policy that plans ahead) */
} bars;
static void watch(void *arg, int k, lbs_replay_opts *o, int after) {
  (void)k;
  bars *b = arg;
  if (after) {
    cli_progress_end(&b->search);
    cli_progress_end(&b->prog);
    return;
  }
  char search_of[128];
  snprintf(b->label, sizeof b->label, "%-20s", o->policy);
  snprintf(search_of, sizeof search_of, "  %.*s's search", (int)strcspn(o->policy, ":"), o->policy);
  snprintf(b->slabel, sizeof b->slabel, "%-20s", search_of);
  cli_progress_start(&b->prog, b->label, lbs_trace_steps(b->s->trace));
  o->progress = cli_progress_cb, o->progress_arg = &b->prog;
  cli_progress_start(&b->search, b->slabel, 3 * lbs_trace_steps(b->s->trace));
  o->search_progress = cli_progress_cb, o->search_progress_arg = &b->search;
}

/* What rank 0's outputs came to: a results-store error (a full disk) is reported after the
 * summary, which is printed anyway; a CSV's is said at once. */
typedef struct outcome {
  lbs_err re;
  char rmsg[1024]; /* the store's message */
  int csv_bad;
} outcome;

/* Rank 0: the runs to the results store (one study), the CSV files into --csv's directory. */
static void save(const args *a, const lbs_session *s, const lbs_compare *c, cli_outdir *od,
                 outcome *out) {
  if (a->results) {
    cli_progress wp;
    cli_progress_start(&wp, "results store", 2);
    out->re = lbs_session_save(s, a->results, "policy compare", c->r, c->n, c->iopt,
                               cli_progress_cb, &wp);
    cli_progress_end(&wp);
    if (out->re) snprintf(out->rmsg, sizeof out->rmsg, "%s", lbs_errmsg());
  }
  if (a->csv) {
    lbs_err e = LBS_OK;
    out->csv_bad = cli_outdir_begin(od) ||
                   ((e = lbs_compare_write_csv(c, od->tmp)) && cli_error("policy compare", e)) ||
                   cli_outdir_commit(od);
    cli_outdir_abort(od);
  }
}

/* Rank 0 reports: the table or the JSON document, then a store that failed. The exit code. */
static int report(const args *a, const lbs_session *s, const lbs_compare *c, const cli_outdir *od,
                  double t_cmd, const outcome *out) {
  double opt = c->iopt >= 0 ? (double)c->r[c->iopt]->total_ns : 0;
  int json_bad = 0;
  if (a->json) {
    json_bad = cli_json_print("policy compare", lbs_compare_json(c, s), LBS_JSON_COMPACT);
  } else {
    /* des on a fair network: how the steps used it (ordered for all beside optimal) */
    const char *mode = s->opts.mode == LBS_MODE_BSP                    ? "bsp"
                       : lbs_grid_sharing(s->grid) != LBS_SHARING_FAIR ? "des"
                       : c->n && c->r[0]->des_shared ? "des, steps sharing the network"
                                                     : "des, ordered steps";
    printf("%s on %s (%d processors, %s), %s\n", a->trace, a->grid, lbs_grid_procs(s->grid), mode,
           s->opts.partitioner);
    printf("  %-22s %12s %6s %10s %12s %12s %8s\n", "policy", "total s", "reps", "mean imb",
           "partition s", "migration s", "gap");
    for (int k = 0; k < c->n; k++) {
      const lbs_replay_result *r = c->r[k];
      char gap[32] = "-";
      if (c->iopt >= 0)
        snprintf(gap, sizeof gap, "%+.2f%%", 100.0 * ((double)r->total_ns - opt) / opt);
      printf("  %-22s %12.6f %6d %10.4f %12.6f %12.6f %8s\n", r->policy, 1e-9 * (double)r->total_ns,
             r->nrep, r->mean_imbalance, 1e-9 * (double)r->partition_ns,
             1e-9 * (double)r->migration_ns, gap);
    }
    if (a->csv && !out->csv_bad) printf("series in %s/\n", od->dir);
    printf("wall %.3f s (replays, searches and outputs)%s%s\n", MPI_Wtime() - t_cmd,
           a->results && !out->re ? ", results in " : "", a->results && !out->re ? a->results : "");
  }
  if (out->re) {
    fflush(stdout);
    fprintf(stderr, "lbsim: results store: %s\n", *out->rmsg ? out->rmsg : lbs_strerror(out->re));
  }
  return out->re || out->csv_bad || json_bad;
}

/* --policies LIST split into names (lbs_policy_split: a steps:LIST policy keeps its commas; the
 * caller frees names[0 .. *n - 1]): 0, or 2 after naming an empty name or more than
 * LBS_COMPARE_MAX of them, or 1 out of memory. */
static int split_policies(const char *list, char **names, int *n) {
  size_t len = strlen(list);
  *n = 0;
  if (!len || list[0] == ',' || list[len - 1] == ',' || strstr(list, ",,"))
    return cli_usage("policy compare", "--policies '%s': an empty policy name", list);
  int got = lbs_policy_split(list, names, LBS_COMPARE_MAX);
  if (got < 0) return fprintf(stderr, "lbsim: policy compare: out of memory\n"), 1;
  *n = got > LBS_COMPARE_MAX ? LBS_COMPARE_MAX : got;
  if (got > LBS_COMPARE_MAX)
    return cli_usage("policy compare", "--policies: more than %d policies", LBS_COMPARE_MAX);
  return 0;
}

/* The names split_policies gave freed. */
static void free_names(char **names, int n) {
  for (int k = 0; k < n; k++) free(names[k]);
}

static int compare(int argc, char **argv) {
  args a = {0};
  int rc = parse(argc, argv, &a);
  if (rc) return cli_overrides_free(&a.over), rc < 0 ? 0 : rc;
  char *names[LBS_COMPARE_MAX];
  int n = 0;
  if ((rc = split_policies(a.policies, names, &n)))
    return free_names(names, n), cli_overrides_free(&a.over), rc;
  cli_mpi_init();
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double t_cmd = MPI_Wtime();
  /* the outputs before the work (rank 0 writes them; every rank learns the answer) */
  cli_outdir od = {0};
  int bad =
      rank == 0 &&
      ((a.results && cli_check_output(a.results, CLI_OUT_APPEND, CLI_FILE_STORE)) ||
       (a.csv && cli_outdir_check_as(&od, "policy compare", a.csv, a.force, CLI_DIR_COMPARE)));
  lbs_session s = {0};
  lbs_compare c = {.iopt = -1};
  if (lbs_mpi_agree(MPI_COMM_WORLD, bad ? LBS_IO : LBS_OK)) { /* said on rank 0 */
    rc = 1;
  } else {
    bars b = {.s = &s};
    lbs_err e = lbs_session_open(&s, a.trace, a.grid, (const char *const *)a.over.v, a.over.n);
    if (!e) e = lbs_compare_run(&s, (const char *const *)names, n, MPI_COMM_WORLD, watch, &b, &c);
    outcome out = {0};
    if (!e && rank == 0) save(&a, &s, &c, &od, &out);
    if (e)
      rc = rank == 0 ? cli_error("policy compare", e) : 1;
    else if (rank == 0)
      rc = report(&a, &s, &c, &od, t_cmd, &out);
  }
  lbs_compare_free(&c);
  lbs_session_close(&s);
  free_names(names, n);
  cli_overrides_free(&a.over);
  MPI_Finalize();
  return rc;
}

int cmd_policy(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    FILE *f = argc < 2 ? stderr : stdout;
    fprintf(
        f,
        "usage: lbsim policy compare t.lbt --grid g.ini --policies A,B,C [options]\n\npolicies: %s\n",
        lbs_policy_known());
    return argc < 2 ? cli_usage("policy", "expected a command") : 0;
  }
  if (!strcmp(argv[1], "compare")) {
    optind = 1;
    return compare(argc - 1, argv + 1);
  }
  return cli_unknown_sub("policy", "command", argv[1], "compare");
}
