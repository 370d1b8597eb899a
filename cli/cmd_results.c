/* cmd_results.c - lbsim results: what a results store holds (studies, runs, partition rows),
 * listed, as JSON, or every table as CSV. */
#include <errno.h>
#include <getopt.h>
#include <sqlite3.h>
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
         "                       validations, measurements), a header row, written fresh and\n"
         "                       renamed into place; with --study, only that study's rows\n"
         "  -f, --force          replace DIR when it holds an earlier 'lbsim results --csv'\n\n"
         "examples:\n"
         "  lbsim policy compare t.lbt --grid g.ini --policies none,fixed:10 --results r.db\n"
         "  lbsim results r.db\n"
         "  lbsim results r.db --json | jq '.runs[] | {policy, total_time_s}'\n"
         "  lbsim results r.db --csv out/\n");
}

/* The tables and, for --study, how a row belongs to a study. */
static const struct {
  const char *name, *study_filter;
} TABLES[] = {
    {"studies", "id = ?1"},
    {"runs", "study = ?1"},
    {"steps", "run IN (SELECT id FROM runs WHERE study = ?1)"},
    {"procs", "run IN (SELECT id FROM runs WHERE study = ?1)"},
    {"repartitions", "run IN (SELECT id FROM runs WHERE study = ?1)"},
    {"series", "run IN (SELECT id FROM runs WHERE study = ?1)"},
    {"assignment", "run IN (SELECT id FROM runs WHERE study = ?1)"},
    {"partitions", "study = ?1"},
    {"validations", "run IN (SELECT id FROM runs WHERE study = ?1)"},
    {"measurements", "validation IN (SELECT id FROM validations WHERE run IN (SELECT id FROM runs WHERE study = ?1))"},
};
#define NTABLES (sizeof TABLES / sizeof *TABLES)

static int has_table(sqlite3 *db, const char *name) {
  sqlite3_stmt *q;
  int has = 0;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &q, NULL) == SQLITE_OK) {
    sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
    has = sqlite3_step(q) == SQLITE_ROW;
  }
  sqlite3_finalize(q);
  return has;
}

/* SELECT * FROM table [WHERE the study's] ORDER BY its key, prepared; NULL when the table
 * is absent (a schema-1 store) or, with a study, cannot be filtered there. */
static sqlite3_stmt *select_all(sqlite3 *db, int t, const char *study) {
  if (!has_table(db, TABLES[t].name)) return NULL;
  if (study && !strcmp(TABLES[t].study_filter, "study = ?1") && !lbs_results_has_column(db, TABLES[t].name, "study"))
    return NULL;
  if (study && !strcmp(TABLES[t].name, "studies") && !has_table(db, "studies")) return NULL;
  char sql[512];
  snprintf(sql, sizeof sql, "SELECT * FROM %s%s%s ORDER BY rowid", TABLES[t].name, study ? " WHERE " : "",
           study ? TABLES[t].study_filter : "");
  sqlite3_stmt *q = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) return NULL;
  if (study) sqlite3_bind_text(q, 1, study, -1, SQLITE_STATIC);
  return q;
}

static void put_value(FILE *f, sqlite3_stmt *q, int c) {
  switch (sqlite3_column_type(q, c)) {
  case SQLITE_NULL: break;
  case SQLITE_INTEGER: fprintf(f, "%lld", (long long)sqlite3_column_int64(q, c)); break;
  case SQLITE_FLOAT: fprintf(f, "%.17g", sqlite3_column_double(q, c)); break;
  default: {
    const char *s = (const char *)sqlite3_column_text(q, c);
    lbs_csv_field(f, s ? s : "");
  }
  }
}

/* Writes the rows of q to f as CSV, header first. */
static int dump(FILE *f, sqlite3_stmt *q) {
  int nc = sqlite3_column_count(q), rc;
  for (int c = 0; c < nc; c++) fprintf(f, "%s%s", c ? "," : "", sqlite3_column_name(q, c));
  fputc('\n', f);
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    for (int c = 0; c < nc; c++) {
      if (c) fputc(',', f);
      put_value(f, q, c);
    }
    fputc('\n', f);
  }
  return rc == SQLITE_DONE ? 0 : -1;
}

/* Column c of a row as JSON: NULL as null, numbers as numbers, text as a string. */
static json_t *json_value(sqlite3_stmt *q, int c) {
  switch (sqlite3_column_type(q, c)) {
  case SQLITE_NULL: return json_null();
  case SQLITE_INTEGER: return lbs_json_int(sqlite3_column_int64(q, c));
  case SQLITE_FLOAT: return lbs_json_real(sqlite3_column_double(q, c));
  default: return lbs_json_str((const char *)sqlite3_column_text(q, c));
  }
}

/* The rows of q as a JSON array of objects into *out: 0, -1 on a database error (*out NULL),
 * -2 when out of memory. */
static int rows_json(sqlite3_stmt *q, json_t **out) {
  int nc = sqlite3_column_count(q), rc, bad = 0;
  json_t *rows = json_array();
  while (!bad && (rc = sqlite3_step(q)) == SQLITE_ROW) {
    json_t *row = json_object();
    bad = json_array_append_new(rows, row);
    for (int c = 0; !bad && c < nc; c++)
      bad = lbs_json_set(row, sqlite3_column_name(q, c), json_value(q, c));
  }
  if (!bad && rc == SQLITE_DONE) return *out = rows, 0;
  json_decref(rows);
  *out = NULL;
  return bad ? -2 : -1;
}

static int write_csvs(sqlite3 *db, const char *dir, const char *study, const char *path) {
  for (size_t t = 0; t < NTABLES; t++) {
    sqlite3_stmt *q = select_all(db, (int)t, study);
    if (!q) continue;
    char out[4300];
    snprintf(out, sizeof out, "%s/%s.csv", dir, TABLES[t].name);
    FILE *f = fopen(out, "w");
    if (!f) {
      fprintf(stderr, "lbsim: results: %s: cannot write: %s\n", out, strerror(errno));
      sqlite3_finalize(q);
      return 1;
    }
    int bad = dump(f, q);
    if (bad) fprintf(stderr, "lbsim: results: %s: %s\n", path, sqlite3_errmsg(db));
    sqlite3_finalize(q);
    errno = 0;
    int werr = ferror(f) || fflush(f);
    if (fclose(f)) werr = 1;
    if (werr) fprintf(stderr, "lbsim: results: %s: write failed: %s\n", out, errno ? strerror(errno) : "I/O error");
    if (bad || werr) return 1;
  }
  return 0;
}

/* A text column, "" for NULL. */
static const char *txt(sqlite3_stmt *q, int c) {
  const char *s = (const char *)sqlite3_column_text(q, c);
  return s ? s : "";
}

static long long count(sqlite3 *db, const char *sql, const char *study) {
  sqlite3_stmt *q;
  long long n = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) return -1;
  if (study) sqlite3_bind_text(q, 1, study, -1, SQLITE_STATIC);
  if (sqlite3_step(q) == SQLITE_ROW) n = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  return n;
}

/* The human-readable listing. */
static int list(sqlite3 *db, const char *path, int version, const char *study) {
  int v2 = version >= 2;
  long long nruns = count(db, study ? "SELECT count(*) FROM runs WHERE study = ?1" : "SELECT count(*) FROM runs", study);
  long long nparts = v2 ? count(db, study ? "SELECT count(*) FROM partitions WHERE study = ?1" : "SELECT count(*) FROM partitions", study) : 0;
  printf("%s: results schema %d, %lld runs, %lld partition rows%s%s\n", path, version, nruns < 0 ? 0 : nruns,
         nparts < 0 ? 0 : nparts, study ? ", study " : "", study ? study : "");
  if (v2) {
    sqlite3_stmt *q;
    const char *sql = "SELECT s.id, s.kind, s.started, s.version, s.host, (SELECT count(*) FROM runs r WHERE r.study = s.id),"
                      " (SELECT count(*) FROM partitions p WHERE p.study = s.id), s.tasks, s.command FROM studies s"
                      " WHERE ?1 IS NULL OR s.id = ?1 ORDER BY s.started, s.id";
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK) {
      if (study) sqlite3_bind_text(q, 1, study, -1, SQLITE_STATIC);
      printf("\nstudies\n  %-44s %-15s %-20s %6s %6s  %s\n", "id", "kind", "started", "runs", "parts", "command");
      while (sqlite3_step(q) == SQLITE_ROW) {
        char runs[32];
        long long tasks = sqlite3_column_int64(q, 7);
        if (tasks > 0) snprintf(runs, sizeof runs, "%lld/%lld", (long long)sqlite3_column_int64(q, 5), tasks);
        else snprintf(runs, sizeof runs, "%lld", (long long)sqlite3_column_int64(q, 5));
        printf("  %-44s %-15s %-20s %6s %6lld  %s\n", txt(q, 0), txt(q, 1), txt(q, 2), runs,
               (long long)sqlite3_column_int64(q, 6), txt(q, 8));
      }
    }
    sqlite3_finalize(q);
  }
  sqlite3_stmt *q;
  char sql[512];
  snprintf(sql, sizeof sql,
           "SELECT id, %s, trace, grid, partitioner, policy, total_time_s, repartitions, mean_imbalance, %s FROM runs%s"
           " ORDER BY %s",
           v2 ? "coalesce(task, '-')" : "'-'", v2 ? "coalesce(replace(overrides, char(10), ' '), '')" : "''",
           study ? " WHERE study = ?1" : "", v2 ? "coalesce((SELECT min(r2.id) FROM runs r2 WHERE r2.study = runs.study), id), task, id" : "id");
  if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
    fprintf(stderr, "lbsim: results: %s: %s\n", path, sqlite3_errmsg(db));
    return 1;
  }
  if (study) sqlite3_bind_text(q, 1, study, -1, SQLITE_STATIC);
  printf("\nruns\n  %5s %5s %-16s %-24s %-14s %-20s %12s %5s %9s  %s\n", "id", "task", "trace", "grid", "partitioner",
         "policy", "total s", "reps", "mean imb", "overrides");
  int rc;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    const char *tr = txt(q, 2), *gr = txt(q, 3);
    const char *tb = strrchr(tr, '/') ? strrchr(tr, '/') + 1 : tr, *gb = strrchr(gr, '/') ? strrchr(gr, '/') + 1 : gr;
    printf("  %5lld %5s %-16s %-24s %-14s %-20s %12.6f %5d %9.4f  %s\n", (long long)sqlite3_column_int64(q, 0), txt(q, 1),
           tb, gb, txt(q, 4), txt(q, 5), sqlite3_column_double(q, 6), sqlite3_column_int(q, 7), sqlite3_column_double(q, 8),
           txt(q, 9));
  }
  sqlite3_finalize(q);
  if (rc != SQLITE_DONE) {
    fprintf(stderr, "lbsim: results: %s: %s\n", path, sqlite3_errmsg(db));
    return 1;
  }
  return 0;
}

int cmd_results(int argc, char **argv) {
  enum { O_JSON = 1000, O_CSV, O_STUDY };
  static const struct option lo[] = {{"json", no_argument, 0, O_JSON}, {"csv", required_argument, 0, O_CSV},
                                     {"study", required_argument, 0, O_STUDY}, {"force", no_argument, 0, 'f'},
                                     {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  const char *csv = NULL, *study = NULL;
  int json = 0, force = 0, c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "fh", lo, NULL)) != -1) {
    switch (c) {
    case O_JSON: json = 1; break;
    case O_CSV: csv = optarg; break;
    case O_STUDY: study = optarg; break;
    case 'f': force = 1; break;
    case 'h': usage(); return 0;
    default: return cli_usage("results", "bad option");
    }
  }
  if (optind != argc - 1) return cli_usage("results", "expected one results store (r.db)");
  if (json && csv) return cli_usage("results", "--json and --csv go separately");
  const char *path = argv[optind];
  cli_outdir od = {0};
  if (csv && cli_outdir_check_kind(&od, csv, force, CLI_DIR_RESULTS)) return 1;
  sqlite3 *db;
  int version;
  lbs_err e = lbs_results_open_read(path, &db, &version);
  if (e) return cli_error("results", e);
  if (study && (version < 2 || count(db, "SELECT count(*) FROM studies WHERE id = ?1", study) < 1)) {
    fprintf(stderr, "lbsim: results: %s: no study '%s' (lbsim results %s lists them)\n", path, study, path);
    sqlite3_close(db);
    return 1;
  }
  int rc = 0;
  if (csv) {
    rc = cli_outdir_begin(&od) || write_csvs(db, od.tmp, study, path) || cli_outdir_commit(&od);
    cli_outdir_abort(&od);
    if (!rc) printf("%s: tables in %s/\n", path, od.dir);
  } else if (json) {
    json_t *o = json_object();
    int bad = lbs_json_set(o, "path", lbs_json_str(path)) ||
              lbs_json_set(o, "schema", lbs_json_int(version));
    static const int parts[] = {0, 1, 7}; /* studies, runs, partitions */
    for (int i = 0; i < 3 && !bad && !rc; i++) {
      sqlite3_stmt *q = select_all(db, parts[i], study);
      json_t *rows = NULL;
      int qe = q ? rows_json(q, &rows) : (rows = json_array(), 0);
      if (qe == -1) {
        fprintf(stderr, "lbsim: results: %s: %s\n", path, sqlite3_errmsg(db));
        rc = 1;
      }
      sqlite3_finalize(q);
      bad = !rc && lbs_json_set(o, TABLES[parts[i]].name, rows);
    }
    if (bad) json_decref(o), o = NULL;
    if (rc)
      json_decref(o);
    else
      rc = cli_json_print("results", o, LBS_JSON_COMPACT, LBS_JSON_EXACT);
  } else
    rc = list(db, path, version, study);
  sqlite3_close(db);
  return rc;
}
