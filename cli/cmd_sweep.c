/* cmd_sweep.c - lbsim sweep study.ini: the product of traces, grids, partitioners, policies
 * and override values, replayed as a dynamic task farm over the MPI ranks (MPI starts once for
 * the whole study), into one results store and a tidy CSV (DIR/tidy.csv). Resumable: a restarted
 * sweep skips the tasks the store holds already. The study, its tasks, its id, its generated traces
 * and the farm are study/'s (lbs_sweep.h, docs/sweep.md); this face parses, checks the outputs,
 * prints and writes the tidy CSV. */
#include <errno.h>
#include <getopt.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "lbs_mpi.h"
#include "lbs_sweep.h"

static void usage(void) {
  printf(
      "usage: [mpirun -n R] lbsim sweep study.ini [--results r.db] [--csv DIR] [-f] [--dry-run]\n\n"
      "Replays every combination of the study's traces, grids, partitioners, policies and\n"
      "override values (a what-if study), farming the replays over the MPI ranks, and appends\n"
      "each run to one results store with its provenance and its axis values (runs.labels).\n"
      "The tidy CSV has one row per run and measure. A sweep that is stopped (even killed)\n"
      "and started again skips the runs the store holds: nothing done is lost or redone.\n\n"
      "study file:\n"
      "  [study]\n"
      "  name = whatif                        the default outputs: whatif.db, whatif-csv/\n"
      "  traces = bump.lbt                    comma-separated, relative to the study file, or\n"
      "                                       gen:KIND:NXxNYxNZ:STEPS[:SEED] ('lbsim trace gen',\n"
      "                                       KIND bump|hotspot|random), made in RESULTS.traces/\n"
      "  seeds = 1, 2, 3                      generated traces once per seed (an axis)\n"
      "  grids = ../grids/homogeneous16.ini, gen:UP:16:4:2\n"
      "                                       files, or gen:FAMILY:P:C:I as 'lbsim grid gen'\n"
      "  partitioners = zoltan:rcb, metis     (default zoltan:rcb)\n"
      "  policies = none, fixed:10            (default none)\n"
      "  steps = 0:50                         the trace steps replayed (default: [sim] steps,\n"
      "                                       else all)\n"
      "  [overrides]                          'lbsim replay --set' keys: one value is a setting,\n"
      "  sim.cost = model                     several (comma-separated) are an axis\n"
      "  cluster main.bandwidth_gbps = 1, 10, 100\n\n"
      "options:\n"
      "  --results FILE       the results store (default NAME.db); runs are appended\n"
      "  --csv DIR            the tidy CSV, DIR/tidy.csv (default NAME-csv): study, task, the\n"
      "                       axes, measure, value; rewritten from the store at the end, in task\n"
      "                       order. DIR may hold this study's tidy CSV already (a re-run)\n"
      "  -f, --force          replace another study's tidy CSV directory (never a directory\n"
      "                       holding any other file)\n"
      "  --dry-run            list the tasks and exit\n\n"
      "examples:\n"
      "  lbsim sweep examples/whatif/study.ini\n"
      "  mpirun -n 2 lbsim sweep study.ini --results whatif.db   # two replays at a time\n"
      "  lbsim sweep study.ini --csv tidy   # the tidy CSV in tidy/tidy.csv\n"
      "  lbsim results whatif.db; lbsim report whatif.db -o whatif.html\n");
}

typedef struct args {
  const char *file, *results, *csv; /* the study file, the store, the tidy CSV's directory */
  int force, dry;
  char dbname[4200], csvname[4200]; /* the default outputs, NAME.db and NAME-csv */
  cli_outdir od;                    /* rank 0: the tidy CSV's directory, checked in prepare */
} args;

/* The command line into a: 0, 2 after a usage error, or -1 after --help. */
static int parse(int argc, char **argv, args *a) {
  enum { O_RESULTS = 1000, O_CSV, O_DRY };
  static const struct option lo[] = {{"results", required_argument, 0, O_RESULTS},
                                     {"csv", required_argument, 0, O_CSV},
                                     {"dry-run", no_argument, 0, O_DRY},
                                     {"force", no_argument, 0, 'f'},
                                     {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = cli_getopt(argc, argv, "fh", lo)) != -1) {
    switch (c) {
    case O_RESULTS:
      if (cli_output_arg("sweep", "--results", optarg, &a->results)) return 2;
      break;
    case O_CSV:
      if (cli_output_arg("sweep", "--csv", optarg, &a->csv)) return 2;
      break;
    case O_DRY: a->dry = 1; break;
    case 'f': a->force = 1; break;
    case 'h': usage(); return -1;
    default: return cli_bad_option("sweep");
    }
  }
  if (optind != argc - 1) return cli_usage("sweep", "expected one study file");
  a->file = argv[optind];
  return 0;
}

/* Every rank reads the same study (the same tasks, the same errors) and the ranks agree on it:
 * rank 0 says why not, another rank only what rank 0 could not know. 0, or 1 after saying it. */
static int load(lbs_sweep *s, const char *file, int rank) {
  lbs_err e = lbs_sweep_load(s, file);
  int tell;
  lbs_err agreed = lbs_sweep_agree(s, e, MPI_COMM_WORLD, &tell);
  if (agreed && tell) {
    char what[32];
    snprintf(what, sizeof what, e && rank ? "sweep (rank %d)" : "sweep", rank);
    cli_error(what, agreed);
  }
  return agreed != LBS_OK;
}

/* --dry-run: the tasks, on rank 0. */
static void dry_run(const lbs_sweep *s) {
  printf("study %s: %lld tasks\n", s->id, (long long)s->ntasks);
  for (int64_t t = 0; t < s->ntasks; t++) {
    int i4[4], iov[LBS_SWEEP_MAXOV];
    lbs_sweep_task_axes(s, t, i4, iov);
    printf("  %4lld  %s  %s  %s  %s", (long long)t, s->ax[0].v[i4[0]], s->ax[1].v[i4[1]],
           s->ax[2].v[i4[2]], s->ax[3].v[i4[3]]);
    for (int k = 0; k < s->nov; k++) printf("  %s=%s", s->ov[k].name, s->ov[k].v[iov[k]]);
    printf("\n");
  }
}

/* What DIR/tidy.csv is, for what may replace it. Only a regular file is opened (never a FIFO);
 * anything else there is cli_outdir's to refuse. */
enum { TIDY_NONE, TIDY_FOREIGN, TIDY_OTHER, TIDY_OURS };
/* TIDY_NONE: no regular file there; TIDY_FOREIGN: not a tidy CSV (its header does not start
 * "study,task,"); TIDY_OTHER: another study's, or empty; TIDY_OURS: this study's (no row, or its
 * first row's study is s->id). A re-run or a resume replaces its own without --force, --force any
 * study's, nothing replaces a foreign one. */
static int tidy_kind(const lbs_sweep *s, const char *dir) {
  char path[4200], head[512] = "", line[512] = "";
  struct stat sb;
  if (snprintf(path, sizeof path, "%s/tidy.csv", dir) >= (int)sizeof path || lstat(path, &sb) ||
      !S_ISREG(sb.st_mode))
    return TIDY_NONE;
  if (sb.st_size == 0) return TIDY_OTHER; /* holds nothing to lose: --force replaces it */
  FILE *f = fopen(path, "r");
  size_t n = strlen(s->id);
  int kind = TIDY_FOREIGN;
  if (f && fgets(head, sizeof head, f) && !strncmp(head, "study,task,", 11))
    kind = !fgets(line, sizeof line, f) || (!strncmp(line, s->id, n) && line[n] == ',')
               ? TIDY_OURS
               : TIDY_OTHER;
  if (f) fclose(f);
  return kind;
}

/* 1 when the tidy CSV's directory csv (its trailing slashes dropped) would replace the results
 * store, 2 when it holds it (the store's own directory: its rename would take the store along),
 * else 0. */
static int csv_meets_store(const char *csv, const char *results) {
  char dir[4200], parent[4200];
  size_t n = strlen(csv);
  while (n > 1 && csv[n - 1] == '/') n--;
  snprintf(dir, sizeof dir, "%.*s", (int)n, csv);
  snprintf(parent, sizeof parent, "%s", results);
  char *slash = strrchr(parent, '/');
  if (slash)
    *(slash == parent ? slash + 1 : slash) = '\0';
  else
    snprintf(parent, sizeof parent, ".");
  struct stat x, y, p;
  if (!strcmp(dir, results) || stat(dir, &x)) return !strcmp(dir, results);
  if (stat(results, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino) return 1;
  return stat(parent, &p) == 0 && x.st_dev == p.st_dev && x.st_ino == p.st_ino ? 2 : 0;
}

/* Rank 0, before the work: the outputs, and what the store holds of this study already. 0, or
 * 1 after saying why not. */
static int prepare(const lbs_sweep *s, args *a, uint8_t *done, int64_t *ndone) {
  /* the CSV's directory is never the store, nor the store's directory (said first: the
   * plainest reason) */
  int meets = csv_meets_store(a->csv, a->results);
  if (meets) {
    fprintf(stderr, "lbsim: sweep: %s: the tidy CSV's directory would %s the results store %s\n",
            a->csv, meets == 1 ? "replace" : "hold", a->results);
    return 1;
  }
  int tidy = tidy_kind(s, a->csv);
  if (cli_check_output(a->results, CLI_OUT_APPEND, CLI_FILE_STORE) ||
      cli_outdir_check_as(&a->od, "sweep", a->csv, a->force || tidy == TIDY_OURS, CLI_DIR_SWEEP))
    return 1;
  if (tidy == TIDY_FOREIGN) { /* a user's file of that name: never replaced */
    fprintf(stderr, "lbsim: sweep: %s/tidy.csv: not a sweep's tidy CSV; refusing to replace %s\n",
            a->od.dir, a->od.dir);
    return 1;
  }
  lbs_err e = lbs_sweep_done(s, a->results, done, ndone);
  return e ? cli_error("sweep", e) : 0;
}

/* lbs_sweep_inputs' note: a generated trace is being made. */
static int note_generating(void *arg, int64_t i, int64_t n) {
  (void)n;
  fprintf(stderr, "lbsim: sweep: generating %s\n", ((const lbs_sweep *)arg)->trace_path[i]);
  return 0;
}

/* lbs_sweep_run's: a task failed (said now; the others go on, and a restart retries it). */
static void task_failed(void *arg, const lbs_sweep *s, int64_t t, lbs_err e) {
  (void)arg;
  if (t < 0) {
    cli_error("sweep", e);
    return;
  }
  int i4[4], iov[LBS_SWEEP_MAXOV];
  lbs_sweep_task_axes(s, t, i4, iov);
  fprintf(stderr, "lbsim: sweep: task %lld (%s, %s, %s, %s): %s\n", (long long)t, s->ax[0].v[i4[0]],
          s->ax[1].v[i4[1]], s->ax[2].v[i4[2]], s->ax[3].v[i4[3]], lbs_errmsg());
}

/* Rank 0, after the farm: the tidy CSV from the store, written into a fresh directory that is
 * then renamed onto --csv's (cli_outdir): a killed sweep leaves no CSV, an older one stays whole
 * until the new one is complete. 0, or 1 after saying why not. */
static int write_csv(const lbs_sweep *s, args *a) {
  char path[4400];
  int bad = cli_outdir_begin(&a->od);
  if (!bad) {
    snprintf(path, sizeof path, "%s/tidy.csv", a->od.tmp);
    lbs_err e = lbs_sweep_write_tidy(s, a->results, path);
    bad = (e && cli_error("sweep", e)) || cli_outdir_commit(&a->od);
  }
  cli_outdir_abort(&a->od);
  return bad;
}

/* The farm, with rank 0's progress bar, then rank 0's tidy CSV and summary. The exit code. */
static int farm(const lbs_sweep *s, args *a, uint8_t *done, int64_t ndone, int rank, int size) {
  if (rank == 0) {
    fprintf(stderr, "lbsim: sweep: study %s: %lld tasks", s->id, (long long)s->ntasks);
    if (ndone) fprintf(stderr, ", %lld done already (resuming)", (long long)ndone);
    fprintf(stderr, ", on %d rank%s\n", size, size > 1 ? "s" : "");
  }
  cli_progress bar;
  cli_progress_start(&bar, "sweep", rank == 0 ? s->ntasks : 0);
  lbs_sweep_farm f = {
      .progress = bar.on ? cli_progress_cb : NULL, .progress_arg = &bar, .failed = task_failed};
  lbs_sweep_run(s, a->results, done, MPI_COMM_WORLD, &f);
  cli_progress_end(&bar);
  int rc = f.failures ? 1 : 0;
  if (rank == 0) {
    int csv_bad = write_csv(s, a);
    printf("sweep %s: %lld tasks (%lld resumed) in %.3f s on %d rank%s: results in %s, tidy CSV "
           "%s %s/tidy.csv\n",
           s->id, (long long)s->ntasks, (long long)f.resumed, f.wall_s, size, size > 1 ? "s" : "",
           a->results, csv_bad ? "not written to" : "in", a->od.dir);
    if (f.failures)
      fprintf(stderr, "lbsim: sweep: %d task%s failed; run the sweep again to retry them\n",
              f.failures, f.failures > 1 ? "s" : "");
    rc = rc || csv_bad;
  }
  return lbs_mpi_agree(MPI_COMM_WORLD, rc ? LBS_IO : LBS_OK) ? 1 : 0; /* rank 0's tidy CSV too */
}

/* The outputs checked and the generated traces made (rank 0), agreed, then the farm. */
static int sweep(lbs_sweep *s, args *a, int rank, int size) {
  uint8_t *done = calloc((size_t)s->ntasks, 1);
  int64_t ndone = 0;
  int bad = !done || (rank == 0 && prepare(s, a, done, &ndone));
  /* generated traces: made once by rank 0 beside the store (RESULTS.traces/), kept for a resume */
  lbs_err e = bad ? LBS_OK : lbs_sweep_inputs(s, a->results, rank == 0, note_generating, s);
  if (e) bad = cli_error("sweep", e);
  /* rank 0's checks, any rank's memory */
  if (lbs_mpi_agree(MPI_COMM_WORLD, bad ? LBS_IO : LBS_OK) == LBS_OK)
    bad = farm(s, a, done, ndone, rank, size);
  else
    bad = 1;
  free(done);
  return bad;
}

int cmd_sweep(int argc, char **argv) {
  args a = {0};
  int rc = parse(argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc;
  cli_mpi_init();
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  lbs_sweep s;
  rc = load(&s, a.file, rank);
  if (!rc) {
    snprintf(a.dbname, sizeof a.dbname, "%s.db", s.name);
    snprintf(a.csvname, sizeof a.csvname, "%s-csv", s.name);
    if (!a.results) a.results = a.dbname;
    if (!a.csv) a.csv = a.csvname;
    if (a.dry) {
      if (rank == 0) dry_run(&s);
    } else {
      rc = sweep(&s, &a, rank, size);
    }
  }
  lbs_sweep_free(&s);
  MPI_Finalize();
  return rc;
}
