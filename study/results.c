/* results.c - the results store: one SQLite file, one row in runs per replay, series in
 * steps and procs, repartitions, and (with --save-assignment) the assignment after every
 * repartition. A run is written in one transaction, so a failure leaves nothing half-way.
 * The file is opened through core's lbs_db (lbs__results_kind below); results_read.c reads it. */
#include <errno.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lbs_study.h"
#include "results_int.h"

/* Schema 2 (PRAGMA user_version): provenance on every run (study, labels, command, version,
 * host, time, cost model, overrides, resolved configuration, content hashes), the studies
 * that group runs, per-step communication, partitioning and migration, the policies' series,
 * and lbsim partition's rows. Schema 3: where the partitioner ran and on how many ranks (a
 * distributed run is reproducible at its number of ranks). An older store (schema 1 has
 * user_version 0) is upgraded when written. Schema 4: the table validation_pairs (lbsim validate's
 * verdict on each pair of policies). Schema 5: runs.des_overlap, how a des run's steps used the
 * network ('shared' or 'ordered'; NULL in bsp), since the default (auto) depends on the run. */
#define RESULTS_SCHEMA 5

/* Schema 1's tables and the tables added since (a new store is made as schema 1, then
 * upgraded as an old one is: its columns come in the same order). */

static const char SCHEMA[] =
    "CREATE TABLE IF NOT EXISTS runs(id INTEGER PRIMARY KEY, trace TEXT, grid TEXT, metric TEXT,"
    " partitioner TEXT, policy TEXT, mode TEXT, elements INTEGER, steps INTEGER, procs INTEGER,"
    " total_time_s REAL, compute_time_s REAL, comm_time_s REAL, partition_time_s REAL,"
    " migration_time_s REAL, repartitions INTEGER, mean_imbalance REAL, max_imbalance REAL,"
    " mean_loadimb REAL, moved_elements INTEGER, wall_s REAL);"
    "CREATE TABLE IF NOT EXISTS steps(run INTEGER, step INTEGER, app_step INTEGER, time_ns INTEGER,"
    " compute_ns INTEGER, imbalance REAL, loadimb REAL, repartitioned INTEGER, PRIMARY KEY(run, step));"
    "CREATE TABLE IF NOT EXISTS procs(run INTEGER, step INTEGER, proc INTEGER, compute_ns INTEGER,"
    " PRIMARY KEY(run, step, proc));"
    "CREATE TABLE IF NOT EXISTS repartitions(run INTEGER, step INTEGER, partition_ns INTEGER,"
    " migration_ns INTEGER, moved_elements INTEGER, moved_bytes REAL, wall_s REAL, PRIMARY KEY(run, step));"
    "CREATE TABLE IF NOT EXISTS assignment(run INTEGER, step INTEGER, element INTEGER, part INTEGER,"
    " PRIMARY KEY(run, step, element));" /* steps are trace steps; the initial partition is the
                                            first replayed step - 1 */
    "CREATE TABLE IF NOT EXISTS validations(id INTEGER PRIMARY KEY, run INTEGER, app TEXT, args TEXT,"
    " ranks INTEGER, schedule TEXT, predicted_s REAL, measured_median_s REAL, measured_min_s REAL,"
    " measured_max_s REAL, error REAL, real_runs INTEGER);"
    "CREATE TABLE IF NOT EXISTS measurements(validation INTEGER, k INTEGER, total_s REAL,"
    " PRIMARY KEY(validation, k));"
    "CREATE TABLE IF NOT EXISTS validation_pairs(a INTEGER, b INTEGER, policy_a TEXT,"
    " policy_b TEXT, predicted_gain REAL, measured_gain REAL, measured_gain_min REAL,"
    " measured_gain_max REAL, rounds INTEGER, gain_error_points REAL, predicted_within INTEGER,"
    " verdict TEXT, PRIMARY KEY(a, b));"
    "CREATE TABLE IF NOT EXISTS studies(id TEXT PRIMARY KEY, kind TEXT, command TEXT, version TEXT,"
    " started TEXT, host TEXT, file TEXT, file_hash TEXT, axes TEXT, tasks INTEGER);"
    "CREATE TABLE IF NOT EXISTS series(run INTEGER, k INTEGER, step INTEGER, value REAL, PRIMARY KEY(run, k));"
    "CREATE TABLE IF NOT EXISTS partitions(id INTEGER PRIMARY KEY, study TEXT, trace TEXT, grid TEXT,"
    " step INTEGER, partitioner TEXT, procs INTEGER, elements INTEGER, maxqwgt_s REAL, loadimb REAL,"
    " work_imbalance REAL, tolerance REAL, wsysll_s REAL, wgt_s REAL, comm_s REAL, remap_s REAL,"
    " edge_cut REAL, moved INTEGER, wall_s REAL, created TEXT, command TEXT, version TEXT, host TEXT,"
    " overrides TEXT, config TEXT, trace_hash TEXT, grid_hash TEXT);";

/* The columns schemas 2, 3 and 5 add to schema 1's tables, each at its version (schema 4 adds a
 * table only). */
static const struct {
  const char *table, *column, *type;
  int version;
} ADDED[] = {
    {"runs", "study", "TEXT", 2},
    {"runs", "task", "INTEGER", 2},
    {"runs", "labels", "TEXT", 2},
    {"runs", "created", "TEXT", 2},
    {"runs", "command", "TEXT", 2},
    {"runs", "version", "TEXT", 2},
    {"runs", "host", "TEXT", 2},
    {"runs", "cost", "TEXT", 2},
    {"runs", "overrides", "TEXT", 2},
    {"runs", "config", "TEXT", 2},
    {"runs", "trace_hash", "TEXT", 2},
    {"runs", "grid_hash", "TEXT", 2},
    {"runs", "optimum_s", "REAL", 2},
    {"runs", "gap_to_optimal", "REAL", 2},
    {"steps", "comm_ns", "INTEGER", 2},
    {"steps", "partition_ns", "INTEGER", 2},
    {"steps", "migration_ns", "INTEGER", 2},
    {"runs", "partition_mode", "TEXT", 3},
    {"runs", "ranks", "INTEGER", 3},
    {"runs", "des_overlap", "TEXT", 5},
};

/* The step to schema `to` (2 to 5): the tables the store lacks (a store of schema 1 may have
 * only some of them), then the columns of that version it lacks. */
static lbs_err upgrade(lbs_db *d, int to) {
  lbs_err e = lbs_db_exec(d, SCHEMA, NULL);
  for (size_t i = 0; !e && i < sizeof ADDED / sizeof *ADDED; i++) {
    if (ADDED[i].version != to ||
        lbs__results_has_column(lbs_db_sqlite(d), ADDED[i].table, ADDED[i].column))
      continue;
    char sql[160];
    snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN %s %s", ADDED[i].table, ADDED[i].column,
             ADDED[i].type);
    e = lbs_db_exec(d, sql, NULL);
  }
  return e;
}

static const lbs_db_step STEPS[] = {
    {2, NULL, upgrade}, {3, NULL, upgrade}, {4, NULL, upgrade}, {5, NULL, upgrade}};

/* A results store: PRAGMA application_id 'LBSR', the schema in user_version (0 in schema 1). */
const lbs_db_kind lbs__results_kind = {
    .what = "results store",
    .a_what = "a results store",
    .schema_name = "results",
    .terse = 1,           /* "PATH: SQLite's message", "PATH: strerror" */
    .app_id = 0x4C425352, /* 'LBSR' */
    .version = RESULTS_SCHEMA,
    .oldest = 1,
    .zero_is = 1, /* schema 1 did not set user_version */
    .schema = SCHEMA,
    .schema_version = 1,
    .steps = STEPS,
    .nsteps = sizeof STEPS / sizeof *STEPS,
};

int lbs__results_has_table(sqlite3 *db, const char *table) {
  sqlite3_stmt *q;
  int has = 0;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1,
                         &q, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
  has = sqlite3_step(q) == SQLITE_ROW;
  sqlite3_finalize(q);
  return has;
}

int lbs__results_has_column(sqlite3 *db, const char *table, const char *column) {
  char sql[96];
  snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", table);
  sqlite3_stmt *q;
  int has = 0;
  if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) return 0;
  while (!has && sqlite3_step(q) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(q, 1);
    has = name && !strcmp(name, column);
  }
  sqlite3_finalize(q);
  return has;
}

/* Opens (making) the results store at path for writing and returns inside its write
 * transaction (lbs_db_finish ends it): its schema is there, upgraded, and with check it is
 * intact (SQLite may insert into a damaged b-tree without noticing, leaving the new run, and the
 * old ones, unreadable; a quick check reads the whole store). Messages without a `what`: "PATH:
 * SQLite's message", as the store always said. */
static lbs_err store_begin(const char *path, lbs_db **d, int check) {
  lbs_db_opts o = {.mode = LBS_DB_WRITE,
                   .busy_ms = 120000, /* a sweep's ranks take turns: wait for the other's write */
                   .quick_check = check,
                   .keep_tx = 1};
  return lbs_db_open(&lbs__results_kind, path, &o, d);
}

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

lbs_err lbs_results_save_validation(const char *path, const lbs_validation *v) {
  return lbs_results_save_validation_id(path, v, NULL);
}

lbs_err lbs_results_save_validation_id(const char *path, const lbs_validation *v, int64_t *vid) {
  if (v->nmeasured < 1) return lbs_fail(LBS_INVAL, "a validation without measurements");
  double *m = malloc((size_t)v->nmeasured * sizeof *m);
  if (!m) return lbs_fail(LBS_NOMEM, "validation");
  memcpy(m, v->measured_s, (size_t)v->nmeasured * sizeof *m);
  qsort(m, (size_t)v->nmeasured, sizeof *m, cmp_dbl);
  int n = v->nmeasured;
  double med = n % 2 ? m[n / 2] : 0.5 * (m[n / 2 - 1] + m[n / 2]), lo = m[0], hi = m[n - 1];
  free(m);
  lbs_db *d;
  lbs_err e = store_begin(path, &d, 1);
  if (e) return e;
  lbs_db_val row[] = {LBS_DB_INT(v->run),
                      LBS_DB_TEXT(v->app),
                      LBS_DB_TEXT(v->args),
                      LBS_DB_INT(v->ranks),
                      LBS_DB_TEXT(v->schedule),
                      LBS_DB_REAL(v->predicted_s),
                      LBS_DB_REAL(med),
                      LBS_DB_REAL(lo),
                      LBS_DB_REAL(hi),
                      LBS_DB_REAL((v->predicted_s - med) / med),
                      LBS_DB_INT(n)};
  e = lbs_db_insert(
      d,
      "INSERT INTO validations(run, app, args, ranks, schedule, predicted_s, measured_median_s,"
      " measured_min_s, measured_max_s, error, real_runs) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
      NULL, row, LBS_DB_COUNT(row));
  int64_t id = sqlite3_last_insert_rowid(lbs_db_sqlite(d));
  sqlite3_stmt *st = NULL;
  if (!e)
    e = lbs_db_prepare(d, "INSERT INTO measurements(validation, k, total_s) VALUES(?,?,?)", NULL,
                       &st);
  for (int k = 0; !e && k < n; k++) {
    lbs_db_val one[] = {LBS_DB_INT(id), LBS_DB_INT(k), LBS_DB_REAL(v->measured_s[k])};
    e = lbs_db_row(d, st, NULL, one, LBS_DB_COUNT(one));
  }
  sqlite3_finalize(st);
  if (!e && vid) *vid = id;
  return lbs_db_finish(&d, e);
}

lbs_err lbs_results_save_validation_pairs(const char *path, const lbs_validation_pair *p, int n) {
  lbs_db *d;
  lbs_err e = store_begin(path, &d, 0);
  if (e) return e;
  sqlite3_stmt *st = NULL;
  e = lbs_db_prepare(d,
                     "INSERT INTO validation_pairs(a, b, policy_a, policy_b, predicted_gain,"
                     " measured_gain, measured_gain_min, measured_gain_max, rounds,"
                     " gain_error_points, predicted_within, verdict)"
                     " VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
                     NULL, &st);
  for (int i = 0; !e && i < n; i++) {
    lbs_db_val row[] = {LBS_DB_INT(p[i].a),
                        LBS_DB_INT(p[i].b),
                        LBS_DB_TEXT(p[i].policy_a),
                        LBS_DB_TEXT(p[i].policy_b),
                        LBS_DB_REAL(p[i].predicted_gain),
                        LBS_DB_REAL(p[i].measured_gain),
                        LBS_DB_REAL(p[i].measured_gain_min),
                        LBS_DB_REAL(p[i].measured_gain_max),
                        LBS_DB_INT(p[i].rounds),
                        LBS_DB_REAL(p[i].gain_error_points),
                        LBS_DB_INT(p[i].predicted_within),
                        LBS_DB_TEXT(p[i].verdict)};
    e = lbs_db_row(d, st, NULL, row, LBS_DB_COUNT(row));
  }
  sqlite3_finalize(st);
  return lbs_db_finish(&d, e);
}

void lbs_results_now(char iso[32]) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(iso, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The study's row, once: a resumed sweep finds it there. */
static lbs_err insert_study(lbs_db *d, const lbs_study_info *si) {
  lbs_db_val row[] = {LBS_DB_TEXT(si->id),      LBS_DB_TEXT(si->kind),
                      LBS_DB_TEXT(si->command), LBS_DB_TEXT(si->version),
                      LBS_DB_TEXT(si->started), LBS_DB_TEXT(si->host),
                      LBS_DB_TEXT(si->file),    LBS_DB_TEXT(si->file_hash),
                      LBS_DB_TEXT(si->axes),    LBS_DB_INT(si->tasks)};
  return lbs_db_insert(
      d,
      "INSERT OR IGNORE INTO studies(id, kind, command, version, started, host, file,"
      " file_hash, axes, tasks) VALUES(?,?,?,?,?,?,?,?,?,?)",
      NULL, row, LBS_DB_COUNT(row));
}

/* Rows written so far, for the study's progress callback. */
typedef struct {
  const lbs_study_info *si;
  int64_t done, total;
} rows_done;

static int64_t run_rows(const lbs_replay_result *r) {
  return 1 + r->steps * (1 + r->procs) + r->nrep + r->nseries +
         (r->assign ? (r->nrep + 1) * r->elements : 0);
}

static void row_written(rows_done *rd) {
  if (++rd->done % 4096 == 0 || rd->done == rd->total)
    if (rd->si && rd->si->progress) rd->si->progress(rd->si->progress_arg, rd->done, rd->total);
}

/* One run and its series, inside the caller's transaction. */
/* The run's row in runs. */
static lbs_err insert_run_row(lbs_db *d, const lbs_replay_result *r, const lbs_study_info *si,
                              const lbs_run_info *ri, rows_done *rd) {
  char now[32];
  lbs_results_now(now);
  /* the columns by name: a store whose tables have other columns, or in another order, gets
   * nothing in the wrong place (an unknown column is an error) */
  static const char *INSERT_RUN =
      "INSERT INTO runs(trace, grid, metric, partitioner, policy, mode, elements, steps, procs,"
      " total_time_s, compute_time_s, comm_time_s, partition_time_s, migration_time_s,"
      " repartitions, mean_imbalance, max_imbalance, mean_loadimb, moved_elements, wall_s, study,"
      " task, labels, created, command, version, host, cost, overrides, config, trace_hash,"
      " grid_hash, optimum_s, gap_to_optimal, partition_mode, ranks, des_overlap)"
      " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  lbs_db_val row[] = {
      LBS_DB_TEXT(ri && ri->trace ? ri->trace : ""),
      LBS_DB_TEXT(ri && ri->grid ? ri->grid : ""),
      LBS_DB_TEXT(r->metric),
      LBS_DB_TEXT(r->partitioner),
      LBS_DB_TEXT(r->policy),
      LBS_DB_TEXT(r->mode == LBS_MODE_BSP ? "bsp" : "des"),
      LBS_DB_INT(r->elements),
      LBS_DB_INT(r->steps),
      LBS_DB_INT(r->procs),
      LBS_DB_REAL(1e-9 * (double)r->total_ns),
      LBS_DB_REAL(1e-9 * (double)r->compute_ns),
      LBS_DB_REAL(1e-9 * (double)r->comm_ns),
      LBS_DB_REAL(1e-9 * (double)r->partition_ns),
      LBS_DB_REAL(1e-9 * (double)r->migration_ns),
      LBS_DB_INT(r->nrep),
      LBS_DB_REAL(r->mean_imbalance),
      LBS_DB_REAL(r->max_imbalance),
      LBS_DB_REAL(r->mean_loadimb),
      LBS_DB_INT(r->moved),
      LBS_DB_REAL(r->wall_s),
      LBS_DB_TEXT(si ? si->id : NULL),
      ri && ri->task >= 0 ? LBS_DB_INT(ri->task) : LBS_DB_NULL,
      LBS_DB_TEXT(ri ? ri->labels : NULL),
      LBS_DB_TEXT(now),
      LBS_DB_TEXT(si ? si->command : NULL),
      LBS_DB_TEXT(si ? si->version : NULL),
      LBS_DB_TEXT(si ? si->host : NULL),
      LBS_DB_TEXT(ri ? ri->cost : NULL),
      LBS_DB_TEXT(ri ? ri->overrides : NULL),
      LBS_DB_TEXT(ri ? ri->config : NULL),
      LBS_DB_TEXT(ri ? ri->trace_hash : NULL),
      LBS_DB_TEXT(ri ? ri->grid_hash : NULL),
      LBS_DB_FINITE(ri ? ri->optimum_s : NAN),
      LBS_DB_FINITE(ri ? ri->gap_to_optimal : NAN),
      LBS_DB_TEXT(lbs_partition_mode_name(r->partition_mode)),
      LBS_DB_INT(r->ranks),
      r->mode == LBS_MODE_DES ? LBS_DB_TEXT(r->des_shared ? "shared" : "ordered") : LBS_DB_NULL,
  };
  lbs_err e = lbs_db_insert(d, INSERT_RUN, NULL, row, LBS_DB_COUNT(row));
  if (!e) row_written(rd);
  return e;
}

/* Its steps: what each was charged. */
static lbs_err insert_steps(lbs_db *d, const lbs_replay_result *r, int64_t run, rows_done *rd) {
  sqlite3_stmt *st;
  /* what each step was charged: a repartition's partitioning and migration at its step, and
   * in bsp the rest of the step beyond the slowest compute: communication and the barrier */
  lbs_err e = lbs_db_prepare(
      d,
      "INSERT INTO steps(run, step, app_step, time_ns, compute_ns, imbalance, loadimb,"
      " repartitioned, comm_ns, partition_ns, migration_ns) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
      NULL, &st);
  for (int64_t s = 0, k = 0; !e && s < r->steps; s++) {
    int64_t part = 0, mig = 0;
    while (k < r->nrep && r->reparts[k].step < s) k++;
    if (k < r->nrep && r->reparts[k].step == s)
      part = r->reparts[k].partition_ns, mig = r->reparts[k].migration_ns;
    lbs_db_val row[] = {
        LBS_DB_INT(run), LBS_DB_INT(r->first_step + s), LBS_DB_INT(r->app_step[s]),
        LBS_DB_INT(r->step_ns[s]), LBS_DB_INT(r->step_compute_ns[s]), LBS_DB_REAL(r->imbalance[s]),
        LBS_DB_REAL(r->loadimb[s]), LBS_DB_INT(r->repartitioned[s]),
        /* des has no step-wide communication phase */
        r->mode == LBS_MODE_BSP ? LBS_DB_INT(r->step_ns[s] - r->step_compute_ns[s]) : LBS_DB_NULL,
        LBS_DB_INT(part), LBS_DB_INT(mig)};
    if (!(e = lbs_db_row(d, st, NULL, row, LBS_DB_COUNT(row)))) row_written(rd);
  }
  sqlite3_finalize(st);
  return e;
}

/* Its per-processor compute time at each step. */
static lbs_err insert_procs(lbs_db *d, const lbs_replay_result *r, int64_t run, rows_done *rd) {
  sqlite3_stmt *st;
  lbs_err e = lbs_db_prepare(d, "INSERT INTO procs(run, step, proc, compute_ns) VALUES(?,?,?,?)",
                             NULL, &st);
  for (int64_t s = 0; !e && s < r->steps; s++)
    for (int p = 0; !e && p < r->procs; p++) {
      lbs_db_val row[] = {LBS_DB_INT(run), LBS_DB_INT(r->first_step + s), LBS_DB_INT(p),
                          LBS_DB_INT(r->proc_ns[s * r->procs + p])};
      if (!(e = lbs_db_row(d, st, NULL, row, LBS_DB_COUNT(row)))) row_written(rd);
    }
  sqlite3_finalize(st);
  return e;
}

/* Its repartitions. */
static lbs_err insert_reparts(lbs_db *d, const lbs_replay_result *r, int64_t run, rows_done *rd) {
  sqlite3_stmt *st;
  lbs_err e = lbs_db_prepare(
      d,
      "INSERT INTO repartitions(run, step, partition_ns, migration_ns, moved_elements,"
      " moved_bytes, wall_s) VALUES(?,?,?,?,?,?,?)",
      NULL, &st);
  for (int k = 0; !e && k < r->nrep; k++) {
    const lbs_repart_rec *p = &r->reparts[k];
    lbs_db_val row[] = {LBS_DB_INT(run),
                        LBS_DB_INT(r->first_step + p->step),
                        LBS_DB_INT(p->partition_ns),
                        LBS_DB_INT(p->migration_ns),
                        LBS_DB_INT(p->moved),
                        LBS_DB_REAL(p->moved_bytes),
                        LBS_DB_REAL(p->wall_s)};
    if (!(e = lbs_db_row(d, st, NULL, row, LBS_DB_COUNT(row)))) row_written(rd);
  }
  sqlite3_finalize(st);
  return e;
}

/* The policy's recorded series. */
static lbs_err insert_series(lbs_db *d, const lbs_replay_result *r, int64_t run, rows_done *rd) {
  if (r->nseries <= 0) return LBS_OK;
  sqlite3_stmt *st;
  lbs_err e =
      lbs_db_prepare(d, "INSERT INTO series(run, k, step, value) VALUES(?,?,?,?)", NULL, &st);
  for (int k = 0; !e && k < r->nseries; k++) {
    lbs_db_val row[] = {LBS_DB_INT(run), LBS_DB_INT(k),
                        LBS_DB_INT(r->first_step + r->series_step[k]),
                        LBS_DB_REAL(r->series_value[k])};
    if (!(e = lbs_db_row(d, st, NULL, row, LBS_DB_COUNT(row)))) row_written(rd);
  }
  sqlite3_finalize(st);
  return e;
}

/* The assignments (save_assignment): the initial one at step first - 1, then after each
 * repartition. */
static lbs_err insert_assignment(lbs_db *d, const lbs_replay_result *r, int64_t run,
                                 rows_done *rd) {
  if (!r->assign) return LBS_OK;
  sqlite3_stmt *st;
  lbs_err e = lbs_db_prepare(d, "INSERT INTO assignment(run, step, element, part) VALUES(?,?,?,?)",
                             NULL, &st);
  for (int k = 0; !e && k <= r->nrep; k++) {
    /* step -1: the initial partition */
    int64_t step = k ? r->first_step + r->reparts[k - 1].step : r->first_step - 1;
    for (int64_t el = 0; !e && el < r->elements; el++) {
      lbs_db_val row[] = {LBS_DB_INT(run), LBS_DB_INT(step), LBS_DB_INT(el),
                          LBS_DB_INT(r->assign[(size_t)k * (size_t)r->elements + (size_t)el])};
      if (!(e = lbs_db_row(d, st, NULL, row, LBS_DB_COUNT(row)))) row_written(rd);
    }
  }
  sqlite3_finalize(st);
  return e;
}

static lbs_err insert_run(lbs_db *d, const lbs_replay_result *r, const lbs_study_info *si,
                          const lbs_run_info *ri, int64_t *run_out, rows_done *rd) {
  lbs_err e = insert_run_row(d, r, si, ri, rd);
  int64_t run = sqlite3_last_insert_rowid(lbs_db_sqlite(d));
  if (!e) e = insert_steps(d, r, run, rd);
  if (!e) e = insert_procs(d, r, run, rd);
  if (!e) e = insert_reparts(d, r, run, rd);
  if (!e) e = insert_series(d, r, run, rd);
  if (!e) e = insert_assignment(d, r, run, rd);
  if (!e && run_out) *run_out = run;
  return e;
}

lbs_err lbs_results_save_study(const char *path, const lbs_study_info *si,
                               lbs_replay_result *const *r, const lbs_run_info *ri, int n,
                               int64_t *ids) {
  lbs_db *d;
  lbs_err e = store_begin(path, &d, !(si && si->checked));
  if (e) return e;
  if (si && si->id) e = insert_study(d, si);
  rows_done rd = {si, 0, 0};
  for (int k = 0; k < n; k++) rd.total += run_rows(r[k]);
  for (int k = 0; !e && k < n; k++)
    e = insert_run(d, r[k], si, ri ? &ri[k] : NULL, ids ? &ids[k] : NULL, &rd);
  /* commits (or rolls back on e); a store this call made and left empty (a full disk) is not
   * left behind; one that another process has written to meanwhile is not empty */
  return lbs_db_finish(&d, e);
}

lbs_err lbs_results_save(const char *path, const lbs_replay_result *r, const char *trace_path,
                         const char *grid_path) {
  return lbs_results_save_run(path, r, trace_path, grid_path, NULL);
}

lbs_err lbs_results_save_run(const char *path, const lbs_replay_result *r, const char *trace_path,
                             const char *grid_path, int64_t *run_out) {
  lbs_run_info ri = {
      .trace = trace_path, .grid = grid_path, .task = -1, .optimum_s = NAN, .gap_to_optimal = NAN};
  lbs_replay_result *rr = (lbs_replay_result *)r;
  return lbs_results_save_study(path, NULL, &rr, &ri, 1, run_out);
}

/* One partition row, bound to the INSERT of lbs_results_save_partitions. */
static lbs_err insert_partition(lbs_db *d, sqlite3_stmt *st, const lbs_study_info *si,
                                const lbs_partition_row *w, const char *now) {
  lbs_db_val row[] = {
      LBS_DB_TEXT(si ? si->id : NULL),
      LBS_DB_TEXT(w->run.trace),
      LBS_DB_TEXT(w->run.grid),
      LBS_DB_INT(w->step),
      LBS_DB_TEXT(w->partitioner),
      LBS_DB_INT(w->procs),
      LBS_DB_INT(w->elements),
      LBS_DB_FINITE(w->maxqwgt_s),
      LBS_DB_FINITE(w->loadimb),
      LBS_DB_FINITE(w->work_imbalance),
      LBS_DB_FINITE(w->tolerance),
      LBS_DB_FINITE(w->wsysll_s),
      LBS_DB_FINITE(w->wgt_s),
      LBS_DB_FINITE(w->comm_s),
      LBS_DB_FINITE(w->remap_s),
      LBS_DB_FINITE(w->edge_cut),
      LBS_DB_INT(w->moved),
      LBS_DB_FINITE(w->wall_s),
      LBS_DB_TEXT(now),
      LBS_DB_TEXT(si ? si->command : NULL),
      LBS_DB_TEXT(si ? si->version : NULL),
      LBS_DB_TEXT(si ? si->host : NULL),
      LBS_DB_TEXT(w->run.overrides),
      LBS_DB_TEXT(w->run.config),
      LBS_DB_TEXT(w->run.trace_hash),
      LBS_DB_TEXT(w->run.grid_hash),
  };
  return lbs_db_row(d, st, NULL, row, LBS_DB_COUNT(row));
}

lbs_err lbs_results_save_partitions(const char *path, const lbs_study_info *si,
                                    const lbs_partition_row *rows, int n) {
  lbs_db *d;
  sqlite3_stmt *st = NULL;
  char now[32];
  lbs_results_now(now);
  lbs_err e = store_begin(path, &d, 1);
  if (e) return e;
  if (si && si->id) e = insert_study(d, si);
  if (!e)
    e = lbs_db_prepare(
        d,
        "INSERT INTO partitions(study, trace, grid, step, partitioner, procs, elements,"
        " maxqwgt_s, loadimb, work_imbalance, tolerance, wsysll_s, wgt_s, comm_s, remap_s,"
        " edge_cut, moved, wall_s, created, command, version, host, overrides, config,"
        " trace_hash, grid_hash) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        NULL, &st);
  for (int i = 0; !e && i < n; i++) e = insert_partition(d, st, si, &rows[i], now);
  sqlite3_finalize(st);
  return lbs_db_finish(&d, e);
}

lbs_err lbs_results_study_tasks(const char *path, const char *study, uint8_t *done,
                                int64_t ntasks) {
  struct stat sb;
  if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0)
    return LBS_OK; /* a new store, empty */
  lbs_db *d;
  lbs_db_opts o = {.mode = LBS_DB_READ, .busy_ms = 10000};
  lbs_err e = lbs_db_open(&lbs__results_kind, path, &o, &d);
  if (e || lbs_db_version(d) < 2) { /* a schema-1 store holds no sweep */
    lbs_db_close(&d);
    return e;
  }
  sqlite3_stmt *q;
  e = lbs_db_prepare(d, "SELECT task FROM runs WHERE study = ? AND task IS NOT NULL", NULL, &q);
  int rc = SQLITE_DONE;
  if (!e) sqlite3_bind_text(q, 1, study, -1, SQLITE_STATIC);
  while (!e && (rc = sqlite3_step(q)) == SQLITE_ROW) {
    int64_t t = sqlite3_column_int64(q, 0);
    if (t >= 0 && t < ntasks) done[t] = 1;
  }
  if (!e && rc != SQLITE_DONE) e = lbs_db_fail(d, NULL);
  sqlite3_finalize(q);
  lbs_db_close(&d);
  return e;
}

lbs_err lbs_file_sha256(const char *path, char hex[65]) {
  struct stat sb;
  if (stat(path, &sb)) return lbs_fail(LBS_IO, "%s: %s", path, strerror(errno));
  if (!S_ISREG(sb.st_mode)) return lbs_fail(LBS_IO, "%s: not a regular file", path);
  FILE *f = fopen(path, "rb");
  if (!f) return lbs_fail(LBS_IO, "%s: %s", path, strerror(errno));
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  lbs_err e =
      ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) ? LBS_OK : lbs_fail(LBS_NOMEM, "sha256");
  static unsigned char buf[1 << 16];
  size_t got;
  while (!e && (got = fread(buf, 1, sizeof buf, f)) > 0)
    if (!EVP_DigestUpdate(ctx, buf, got)) e = lbs_fail(LBS_NOMEM, "sha256");
  if (!e && ferror(f)) e = lbs_fail(LBS_IO, "%s: read failed", path);
  unsigned char md[32];
  unsigned int len = 0;
  if (!e && (!EVP_DigestFinal_ex(ctx, md, &len) || len != 32)) e = lbs_fail(LBS_NOMEM, "sha256");
  for (unsigned i = 0; !e && i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
  EVP_MD_CTX_free(ctx);
  fclose(f);
  return e;
}

lbs_err lbs_sha256_hex(const void *data, size_t len, char hex[65]) {
  unsigned char md[32];
  unsigned int n = 0;
  if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) || n != 32)
    return lbs_fail(LBS_NOMEM, "sha256");
  for (unsigned i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
  return LBS_OK;
}

lbs_err lbs_results_check(const char *path) {
  lbs_db *d;
  lbs_db_opts o = {.mode = LBS_DB_READ, .busy_ms = 10000, .quick_check = 1};
  lbs_err e = lbs_db_open(&lbs__results_kind, path, &o, &d);
  lbs_db_close(&d);
  return e;
}
