/* cmd_policy.c - lbsim policy compare: several policies on one trace, grid and partitioner. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lbs_mpi.h"
#include "lbs_part.h"
#include "lbs_policy.h"
#include "lbs_sim.h"

static void usage(void) {
  printf("usage: [mpirun -n R] lbsim policy compare t.lbt --grid g.ini --policies A,B,C [options]\n\n"
         "Replays the trace once per policy (same grid, partitioner, mode and cost model) and\n"
         "compares total simulated time, repartitions, imbalance and costs. With `optimal`\n"
         "among them, gap_to_optimal is each policy's extra time as a fraction of the optimum.\n\n"
         "options:\n"
         "  --policies LIST      comma-separated: %s\n"
         "  --partitioner NAME   default zoltan:rcb; --mode bsp|des; --metric NAME; --steps A:B;\n"
         "  --partition-metric NAME; --part-fixed-us US; --part-per-elem-ns NS: as in 'lbsim replay'\n"
         "  --cost model|zero    partitioning time; not measured, which is not reproducible (a\n"
         "                       measured from the grid file or -o is taken as model)\n"
         "  -o SECTION.KEY=VAL   override a grid key, e.g. -o sim.mode=des\n"
         "  --csv DIR            DIR/summary.csv, DIR/imbalance.csv (imbalance per step per policy,\n"
         "                       Figure 10 of seed 002), DIR/series_<policy>.csv (adaptive's interval\n"
         "                       at each probe, Figure 9); written fresh and renamed into place\n"
         "  -f, --force          replace DIR when it holds an earlier output of lbsim\n"
         "  --results FILE       append every run to an SQLite results store\n"
         "  --json               one JSON object on stdout\n\n"
         "Each replay flag is the [sim] override it names (--mode des is -o sim.mode=des): the\n"
         "defaults, then the grid file's [sim], then the command line's flags and -o overrides\n"
         "from left to right (the later wins). [sim] policy is not read: --policies names them.\n",
         lbs_policy_known());
}

/* Opens dir/name for writing; prints why not. */
static FILE *csv_open(const char *dir, const char *name, char *path, size_t len) {
  if (snprintf(path, len, "%s/%s", dir, name) >= (int)len) {
    fprintf(stderr, "lbsim: policy compare: %s/%s: path too long\n", dir, name);
    return NULL;
  }
  FILE *f = fopen(path, "w");
  if (!f) fprintf(stderr, "lbsim: policy compare: %s: cannot write: %s\n", path, strerror(errno));
  return f;
}

/* Closes f; prints a write error (a full disk) naming path and returns 1. */
static int csv_close(FILE *f, const char *path) {
  errno = 0;
  int bad = ferror(f) || fflush(f), err = errno;
  if (fclose(f) && !bad) bad = 1, err = errno;
  if (bad)
    fprintf(stderr, "lbsim: policy compare: %s: write failed: %s\n", path,
            err ? strerror(err) : "I/O error");
  return bad;
}

/* Writes the CSV files into dir (a fresh directory, renamed into place by the caller). */
static int write_csvs(const char *dir, lbs_replay_result **r, int n, int iopt) {
  char path[4200];
  FILE *f = csv_open(dir, "imbalance.csv", path, sizeof path);
  if (!f) return 1;
  fprintf(f, "step,app_step");
  for (int k = 0; k < n; k++) fprintf(f, ",%s", r[k]->policy);
  fprintf(f, "\n");
  for (int64_t s = 0; s < r[0]->steps; s++) {
    fprintf(f, "%lld,%lld", (long long)(r[0]->first_step + s), (long long)r[0]->app_step[s]);
    for (int k = 0; k < n; k++) fprintf(f, ",%.6f", r[k]->imbalance[s]);
    fprintf(f, "\n");
  }
  if (csv_close(f, path) || !(f = csv_open(dir, "summary.csv", path, sizeof path))) return 1;
  fprintf(f, "policy,total_time_s,repartitions,mean_imbalance,partition_time_s,migration_time_s,repartition_steps,"
             "compute_time_s,comm_time_s,moved_elements,mean_loadimb,max_imbalance,gap_to_optimal\n");
  for (int k = 0; k < n; k++) {
    fprintf(f, "%s,%.9f,%d,%.6f,%.9f,%.9f,", r[k]->policy, 1e-9 * (double)r[k]->total_ns, r[k]->nrep,
            r[k]->mean_imbalance, 1e-9 * (double)r[k]->partition_ns, 1e-9 * (double)r[k]->migration_ns);
    for (int j = 0; j < r[k]->nrep; j++) fprintf(f, "%s%lld", j ? " " : "", (long long)(r[k]->first_step + r[k]->reparts[j].step));
    fprintf(f, ",%.9f,%.9f,%lld,%.6f,%.6f,", 1e-9 * (double)r[k]->compute_ns, 1e-9 * (double)r[k]->comm_ns,
            (long long)r[k]->moved, r[k]->mean_loadimb, r[k]->max_imbalance);
    if (iopt >= 0) /* empty without optimal among the policies */
      fprintf(f, "%.9f", ((double)r[k]->total_ns - (double)r[iopt]->total_ns) / (double)r[iopt]->total_ns);
    fprintf(f, "\n");
  }
  if (csv_close(f, path)) return 1;
  for (int k = 0; k < n; k++) {
    if (!r[k]->nseries) continue;
    char name[256];
    snprintf(name, sizeof name, "series_%s.csv", r[k]->policy);
    for (char *c = name; *c; c++)
      if (*c == ':' || *c == '/') *c = '_';
    if (!(f = csv_open(dir, name, path, sizeof path))) return 1;
    fprintf(f, "probe,step,interval\n");
    for (int i = 0; i < r[k]->nseries; i++)
      fprintf(f, "%d,%lld,%g\n", i, (long long)(r[k]->first_step + r[k]->series_step[i]), r[k]->series_value[i]);
    if (csv_close(f, path)) return 1;
  }
  return 0;
}

enum { O_GRID = 1000, O_POLICIES, O_RESULTS, O_JSON, O_CSV };

/* --json: the compare, then each policy with replay --json's fields and its gap to optimal
 * (null without optimal among the policies); NULL when out of memory. */
static json_t *compare_json(const char *trace, const char *grid, const lbs_replay_opts *o,
                            lbs_replay_result **r, int n, int iopt) {
  double opt = iopt >= 0 ? (double)r[iopt]->total_ns : NAN;
  json_t *doc = json_object(), *pols = json_array();
  int bad = lbs_json_set(doc, "trace", lbs_json_str(trace)) ||
            lbs_json_set(doc, "grid", lbs_json_str(grid)) ||
            lbs_json_set(doc, "partitioner", lbs_json_str(o->partitioner)) ||
            lbs_json_set(doc, "mode", json_string(o->mode == LBS_MODE_BSP ? "bsp" : "des")) ||
            lbs_json_set(doc, "policies", json_incref(pols));
  for (int k = 0; !bad && k < n; k++) {
    json_t *p = json_object();
    bad = json_array_append_new(pols, p) || lbs_replay_json_fields(p, r[k]) ||
          lbs_json_set(p, "gap_to_optimal",
                       lbs_json_real(iopt >= 0 ? ((double)r[k]->total_ns - opt) / opt : NAN));
  }
  json_decref(pols);
  if (bad) json_decref(doc), doc = NULL;
  return doc;
}

static int compare(int argc, char **argv) {
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
                                     {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  const char *grid_path = NULL, *policies = NULL, *results = NULL, *csv = NULL;
  cli_overrides over = {0}; /* -o and the replay flags, in command-line order */
  int json = 0, c, force = 0, rc = 0;
  while (!rc && (c = getopt_long(argc, argv, "fho:", lo, NULL)) != -1) {
    if (c == CLI_RO_COST && !strcmp(optarg, "measured")) {
      rc = cli_usage("policy compare", "--cost: 'measured' is not reproducible: model or zero");
      continue;
    }
    if (c >= CLI_RO_FIRST && c <= CLI_RO_LAST) {
      rc = cli_replay_flag(&over, "policy compare", c, optarg);
      continue;
    }
    switch (c) {
    case 'f': force = 1; break;
    case O_GRID: grid_path = optarg; break;
    case 'o': rc = cli_override(&over, "policy compare", optarg); break;
    case O_POLICIES: policies = optarg; break;
    case O_RESULTS: results = optarg; break;
    case O_CSV: csv = optarg; break;
    case O_JSON: json = 1; break;
    case 'h': usage(); cli_overrides_free(&over); return 0;
    default: rc = cli_usage("policy compare", "bad option");
    }
  }
  if (!rc && optind != argc - 1) rc = cli_usage("policy compare", "expected one trace file");
  else if (!rc && !grid_path) rc = cli_usage("policy compare", "missing --grid FILE");
  else if (!rc && (!policies || !*policies)) rc = cli_usage("policy compare", "missing --policies A,B,...");
  if (rc) return cli_overrides_free(&over), rc;
  char *list = strdup(policies), *names[64];
  int n = 0;
  for (char *tok = strtok(list, ","); tok && n < 64; tok = strtok(NULL, ",")) names[n++] = tok;
  const char *trace_path = argv[optind];
  MPI_Init(NULL, NULL);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double t_cmd = MPI_Wtime();
  /* the outputs before the work (rank 0 writes them; every rank learns the answer) */
  cli_outdir od = {0};
  int bad = rank == 0 && ((results && cli_check_output(results, CLI_OUT_APPEND)) ||
                          (csv && cli_outdir_check(&od, csv, force)));
  if (lbs_mpi_agree(MPI_COMM_WORLD, bad ? LBS_IO : LBS_OK)) { /* said on rank 0 */
    free(list);
    cli_overrides_free(&over);
    MPI_Finalize();
    return 1;
  }
  lbs_config *cfg = NULL;
  lbs_grid *g = NULL;
  lbs_trace *t = NULL;
  lbs_replay_result *res[64] = {0};
  lbs_replay_opts o;
  lbs_replay_opts_default(&o);
  lbs_err e = lbs_config_load(grid_path, &cfg);
  if (!e) e = cli_overrides_apply(&over, cfg); /* -o and the flags, left to right */
  if (!e) e = lbs_grid_from_config(cfg, &g);
  if (!e) e = lbs_replay_opts_from_config(cfg, &o); /* [sim]: the grid file's, then the command line's */
  if (!e) e = lbs_trace_open(trace_path, &t);
  if (!e && o.cost == LBS_COST_MEASURED) o.cost = LBS_COST_MODEL; /* a file's measured: the runs must compare */
  o.cfg = cfg;
  int iopt = -1;
  for (int k = 0; !e && k < n; k++) {
    o.policy = names[k];
    const lbs_policy_ops *po = lbs_policy_find(names[k]);
    if (po && (po->flags & LBS_POLICY_OPTIMUM)) iopt = k; /* the others' gaps are to it */
    cli_progress prog;
    char label[128];
    snprintf(label, sizeof label, "%-20s", names[k]);
    cli_progress_start(&prog, label, 0);
    cli_progress search;
    char slabel[160], search_of[128]; /* a policy that plans ahead searches first */
    snprintf(search_of, sizeof search_of, "  %.*s's search", (int)strcspn(names[k], ":"), names[k]);
    snprintf(slabel, sizeof slabel, "%-20s", search_of);
    cli_progress_start(&search, slabel, 0);
    if (rank == 0 && t) {
      cli_progress_start(&prog, label, lbs_trace_steps(t));
      o.progress = cli_progress_cb;
      o.progress_arg = &prog;
      cli_progress_start(&search, slabel, 3 * lbs_trace_steps(t));
      o.search_progress = cli_progress_cb;
      o.search_progress_arg = &search;
    }
    e = lbs_replay(t, g, &o, MPI_COMM_WORLD, &res[k]);
    cli_progress_end(&search);
    cli_progress_end(&prog);
  }
  int csv_bad = 0;
  lbs_err re = LBS_OK; /* a results-store error (a full disk) is reported after the summary */
  char rmsg[1024] = "";
  if (!e && rank == 0) {
    if (results) { /* the runs of this compare are one study, in one transaction */
      lbs_prov_study st;
      lbs_prov_run ri;
      lbs_run_info info[64];
      cli_progress wp;
      lbs_prov_study_init(&st, "policy compare", NULL);
      lbs_prov_run_init(&ri, trace_path, grid_path, cfg, (const char *const *)over.v, over.n, o.cost);
      cli_progress_start(&wp, "results store", 2);
      st.info.progress = cli_progress_cb;
      st.info.progress_arg = &wp;
      for (int k = 0; k < n; k++) {
        info[k] = ri.info;
        if (iopt >= 0) {
          info[k].optimum_s = 1e-9 * (double)res[iopt]->total_ns;
          info[k].gap_to_optimal = ((double)res[k]->total_ns - (double)res[iopt]->total_ns) / (double)res[iopt]->total_ns;
        }
      }
      re = lbs_results_save_study(results, &st.info, res, info, n, NULL);
      cli_progress_end(&wp);
      lbs_prov_run_free(&ri);
    }
    if (re) snprintf(rmsg, sizeof rmsg, "%s", lbs_errmsg());
    if (csv) {
      csv_bad = cli_outdir_begin(&od) || write_csvs(od.tmp, res, n, iopt) || cli_outdir_commit(&od);
      cli_outdir_abort(&od);
    }
  }
  if (e) {
    if (rank == 0) cli_error("policy compare", e);
    rc = 1;
  } else if (rank == 0) {
    double opt = iopt >= 0 ? (double)res[iopt]->total_ns : NAN;
    int json_bad = 0;
    if (json) {
      json_bad =
          cli_json_print("policy compare", compare_json(trace_path, grid_path, &o, res, n, iopt),
                         LBS_JSON_COMPACT, LBS_JSON_SHORT);
    } else {
      printf("%s on %s (%d processors, %s), %s\n", trace_path, grid_path, lbs_grid_procs(g),
             o.mode == LBS_MODE_BSP ? "bsp" : "des", o.partitioner);
      printf("  %-22s %12s %6s %10s %12s %12s %8s\n", "policy", "total s", "reps", "mean imb", "partition s",
             "migration s", "gap");
      for (int k = 0; k < n; k++) {
        lbs_replay_result *r = res[k];
        char gap[32] = "-";
        if (iopt >= 0) snprintf(gap, sizeof gap, "%+.2f%%", 100.0 * ((double)r->total_ns - opt) / opt);
        printf("  %-22s %12.6f %6d %10.4f %12.6f %12.6f %8s\n", r->policy, 1e-9 * (double)r->total_ns, r->nrep,
               r->mean_imbalance, 1e-9 * (double)r->partition_ns, 1e-9 * (double)r->migration_ns, gap);
      }
      if (csv && !csv_bad) printf("series in %s/\n", od.dir);
      printf("wall %.3f s (replays, searches and outputs)%s%s\n", MPI_Wtime() - t_cmd, results && !re ? ", results in " : "",
             results && !re ? results : "");
    }
    if (re) {
      fflush(stdout);
      fprintf(stderr, "lbsim: results store: %s\n", *rmsg ? rmsg : lbs_strerror(re));
    }
    rc = re || csv_bad || json_bad;
  }
  for (int k = 0; k < n; k++) lbs_replay_result_free(&res[k]);
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  free(list);
  cli_overrides_free(&over);
  MPI_Finalize();
  return rc;
}

int cmd_policy(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    FILE *f = argc < 2 ? stderr : stdout;
    fprintf(f, "usage: lbsim policy compare t.lbt --grid g.ini --policies A,B,C [options]\n\npolicies: %s\n",
            lbs_policy_known());
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "compare")) {
    optind = 1;
    return compare(argc - 1, argv + 1);
  }
  return cli_usage("policy", "unknown command '%s' (known: compare)", argv[1]);
}
