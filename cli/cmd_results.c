/* cmd_results.c - lbsim results: what a results store holds (studies, runs, partition rows),
 * listed, as JSON, or every table as CSV. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void usage(void) {
  printf("usage: lbsim results r.db [--study ID] [--json | --csv DIR [-f]]\n\n"
         "Lists what a results store holds: its studies (one replay, one policy compare, one\n"
         "partition, one sweep: the command line, lbsim version, machine and time) and their runs\n"
         "(trace, grid, partitioner, policy, overrides, total simulated time, repartitions, mean\n"
         "imbalance). Stores of schema 1 (before provenance) are read as they are.\n\n"
         "options:\n"
         "  --study ID           only this study's runs and partition rows\n"
         "  --json               one JSON object: schema, studies, runs and partitions, every\n"
         "                       column (the resolved configuration included)\n"
         "  --csv DIR            every table as DIR/<table>.csv (runs, steps, procs,\n"
         "                       repartitions, series, assignment, studies, partitions,\n"
         "                       validations, measurements, validation_pairs), a header\n"
         "                       row, written fresh and renamed into place; with --study,\n"
         "                       only that study's rows\n"
         "  -f, --force          replace DIR when it holds an earlier 'lbsim results --csv'\n\n"
         "examples:\n"
         "  lbsim policy compare t.lbt --grid g.ini --policies none,fixed:10 --results r.db\n"
         "  lbsim results r.db\n"
         "  lbsim results r.db --json | jq '.runs[] | {policy, total_time_s}'\n"
         "  lbsim results r.db --csv out/\n");
}

/* ---------------------------------------------------------------- --csv DIR */

/* A table being written as DIR/<table>.csv: opened at its header. */
typedef struct csv_out {
  char path[4300];
  FILE *f;
} csv_out;

static void csv_value(FILE *f, const lbs_results_val *v) {
  switch (v->type) {
  case LBS_RV_NULL: break;
  case LBS_RV_INT: fprintf(f, "%lld", (long long)v->i); break;
  case LBS_RV_REAL: fprintf(f, "%.17g", v->d); break;
  case LBS_RV_TEXT: lbs_csv_field(f, v->s); break;
  }
}

/* The header (row NULL: the file is made) or one row. */
static lbs_err csv_row(void *arg, int n, const char *const *names, const lbs_results_val *row) {
  csv_out *c = arg;
  if (!row && !(c->f = fopen(c->path, "w")))
    return lbs_fail(LBS_IO, "%s: cannot write: %s", c->path, strerror(errno));
  for (int k = 0; k < n; k++) {
    if (k) fputc(',', c->f);
    if (row)
      csv_value(c->f, &row[k]);
    else
      fputs(names[k], c->f);
  }
  fputc('\n', c->f);
  return LBS_OK;
}

/* Every table the store has (with a study, that study's rows) as dir/<table>.csv. */
static int write_csvs(lbs_results *h, const char *dir, const char *study) {
  for (const char *const *t = lbs_results_tables(); *t; t++) {
    csv_out c = {.f = NULL};
    snprintf(c.path, sizeof c.path, "%s/%s.csv", dir, *t);
    lbs_err e = lbs_results_table(h, *t, study, csv_row, &c);
    if (e) cli_error("results", e);
    if (!c.f) {
      if (e) return 1;
      continue; /* the store has no such table */
    }
    errno = 0;
    int werr = ferror(c.f) || fflush(c.f);
    if (fclose(c.f)) werr = 1;
    if (werr)
      fprintf(stderr, "lbsim: results: %s: write failed: %s\n", c.path,
              errno ? strerror(errno) : "I/O error");
    if (e || werr) return 1;
  }
  return 0;
}

/* ---------------------------------------------------------------- --json */

/* A text column: a string, but the columns the store keeps as JSON text (a study's axes, a sweep
 * run's labels) as the JSON they hold, not a string of it. */
static json_t *text_json(const char *name, const char *s) {
  if (strcmp(name, "axes") && strcmp(name, "labels")) return lbs_json_str(s);
  json_t *j = json_loads(s, JSON_DECODE_ANY, NULL);
  return j ? j : lbs_json_str(s);
}

/* One row as a JSON object into the array arg: NULL as null, numbers as numbers, text as a
 * string (JSON text as JSON). */
static lbs_err json_row(void *arg, int n, const char *const *names, const lbs_results_val *row) {
  if (!row) return LBS_OK;
  json_t *o = json_object();
  int bad = json_array_append_new(arg, o);
  for (int k = 0; !bad && k < n; k++) {
    const lbs_results_val *v = &row[k];
    bad = lbs_json_set(o, names[k],
                       v->type == LBS_RV_INT    ? lbs_json_int(v->i)
                       : v->type == LBS_RV_REAL ? lbs_json_real(v->d)
                       : v->type == LBS_RV_TEXT ? text_json(names[k], v->s)
                                                : json_null());
  }
  return bad ? lbs_fail(LBS_NOMEM, "out of memory") : LBS_OK;
}

/* The studies, runs and partition rows with every column, as one JSON object on stdout. */
static int print_json(lbs_results *h, const char *path, const char *study) {
  static const char *const parts[] = {"studies", "runs", "partitions"};
  json_t *o = json_object();
  lbs_err e = lbs_json_set(o, "path", lbs_json_str(path)) ||
                      lbs_json_set(o, "schema", lbs_json_int(lbs_results_version(h)))
                  ? LBS_NOMEM
                  : LBS_OK;
  for (int i = 0; i < 3 && !e; i++) {
    json_t *rows = json_array();
    if (lbs_json_set(o, parts[i], rows))
      e = LBS_NOMEM;
    else
      e = lbs_results_table(h, parts[i], study, json_row, rows);
  }
  if (e && e != LBS_NOMEM) {
    json_decref(o);
    return cli_error("results", e);
  }
  if (e) json_decref(o), o = NULL;
  return cli_json_print("results", o, LBS_JSON_COMPACT);
}

/* ---------------------------------------------------------------- the listing */

static const char *txt(const char *s) { return s ? s : ""; }

/* The file name of a path. */
static const char *base(const char *path) {
  const char *s = strrchr(txt(path), '/');
  return s ? s + 1 : txt(path);
}

/* The studies: kind, start, runs (of the tasks, for a sweep), partition rows, command line. */
static int list_studies(lbs_results *h, const char *study) {
  const lbs_results_study *st;
  int64_t n;
  lbs_err e = lbs_results_studies(h, study, &st, &n);
  if (e) return cli_error("results", e);
  printf("\nstudies\n  %-44s %-15s %-20s %6s %6s  %s\n", "id", "kind", "started", "runs", "parts",
         "command");
  for (int64_t i = 0; i < n; i++) {
    char runs[48];
    if (st[i].tasks > 0)
      snprintf(runs, sizeof runs, "%lld/%lld", (long long)st[i].nruns, (long long)st[i].tasks);
    else
      snprintf(runs, sizeof runs, "%lld", (long long)st[i].nruns);
    printf("  %-44s %-15s %-20s %6s %6lld  %s\n", txt(st[i].id), txt(st[i].kind),
           txt(st[i].started), runs, (long long)st[i].npartitions, txt(st[i].command));
  }
  return 0;
}

/* The runs, each study's together (by id in a schema-1 store): what ran and how long it took
 * (a NULL as 0), with its task and overrides on one line. */
static int list_runs(lbs_results *h, const char *study, int v2) {
  const lbs_results_run *r;
  int64_t n;
  lbs_err e = lbs_results_runs(h, study, v2 ? LBS_RESULTS_BY_STUDY : LBS_RESULTS_BY_ID, &r, &n);
  if (e) return cli_error("results", e);
  printf("\nruns\n  %5s %5s %-16s %-24s %-14s %-20s %12s %5s %9s  %s\n", "id", "task", "trace",
         "grid", "partitioner", "policy", "total s", "reps", "mean imb", "overrides");
  for (int64_t i = 0; i < n; i++) {
    char task[24] = "-";
    if (v2 && r[i].task != LBS_RESULTS_NONE)
      snprintf(task, sizeof task, "%lld", (long long)r[i].task);
    printf("  %5lld %5s %-16s %-24s %-14s %-20s %12.6f %5d %9.4f  ", (long long)r[i].id, task,
           base(r[i].trace), base(r[i].grid), txt(r[i].partitioner), txt(r[i].policy),
           isnan(r[i].total_time_s) ? 0 : r[i].total_time_s,
           r[i].repartitions == LBS_RESULTS_NONE ? 0 : (int)r[i].repartitions,
           isnan(r[i].mean_imbalance) ? 0 : r[i].mean_imbalance);
    for (const char *o = v2 ? txt(r[i].overrides) : ""; *o; o++) putchar(*o == '\n' ? ' ' : *o);
    putchar('\n');
  }
  return 0;
}

/* The human-readable listing: what the store holds, its studies (schema 2), its runs. */
static int list(lbs_results *h, const char *path, const char *study) {
  int version = lbs_results_version(h), v2 = version >= 2;
  int64_t nruns = 0, nparts = 0;
  if (lbs_results_count(h, "runs", study, &nruns)) nruns = 0;
  if (v2 && lbs_results_count(h, "partitions", study, &nparts)) nparts = 0;
  printf("%s: results schema %d, %lld runs, %lld partition rows%s%s\n", path, version,
         (long long)nruns, (long long)nparts, study ? ", study " : "", study ? study : "");
  if (v2 && lbs_results_has_table(h, "studies") && list_studies(h, study)) return 1;
  return list_runs(h, study, v2);
}

/* ---------------------------------------------------------------- the command */

typedef struct opts {
  const char *path, *csv, *study;
  int json, force;
} opts;

/* The command line into o: 0, -1 after --help, or cli_usage's 2. */
static int parse(int argc, char **argv, opts *o) {
  enum { O_JSON = 1000, O_CSV, O_STUDY };
  static const struct option lo[] = {{"json", no_argument, 0, O_JSON},
                                     {"csv", required_argument, 0, O_CSV},
                                     {"study", required_argument, 0, O_STUDY},
                                     {"force", no_argument, 0, 'f'},
                                     {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  int c;
  *o = (opts){0};
  optind = 1;
  while ((c = cli_getopt(argc, argv, "fh", lo)) != -1) {
    switch (c) {
    case O_JSON: o->json = 1; break;
    case O_CSV: o->csv = optarg; break;
    case O_STUDY: o->study = optarg; break;
    case 'f': o->force = 1; break;
    case 'h': usage(); return -1;
    default: return cli_bad_option("results");
    }
  }
  if (optind != argc - 1) return cli_usage("results", "expected one results store (r.db)");
  if (o->json && o->csv) return cli_usage("results", "--json and --csv go separately");
  if (o->force && !o->csv) return cli_usage("results", "--force goes with --csv DIR");
  o->path = argv[optind];
  return 0;
}

/* What the store holds, in the form asked for. */
static int show(lbs_results *h, const opts *o, cli_outdir *od) {
  int found = 0;
  if (o->study &&
      (lbs_results_version(h) < 2 || lbs_results_has_study(h, o->study, &found) || !found)) {
    fprintf(stderr, "lbsim: results: %s: no study '%s' (lbsim results %s lists them)\n", o->path,
            o->study, o->path);
    return 1;
  }
  if (o->json) return print_json(h, o->path, o->study);
  if (!o->csv) return list(h, o->path, o->study);
  int rc = cli_outdir_begin(od) || write_csvs(h, od->tmp, o->study) || cli_outdir_commit(od);
  cli_outdir_abort(od);
  if (!rc) printf("%s: tables in %s/\n", o->path, od->dir);
  return rc;
}

int cmd_results(int argc, char **argv) {
  opts o;
  int rc = parse(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  cli_outdir od = {0};
  if (o.csv && cli_outdir_check_as(&od, "results", o.csv, o.force, CLI_DIR_RESULTS)) return 1;
  lbs_results *h;
  lbs_err e = lbs_results_open(o.path, &h);
  if (e) return cli_error("results", e);
  rc = show(h, &o, &od);
  lbs_results_close(&h);
  return rc;
}
