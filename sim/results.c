/* results.c - the results store: one SQLite file, one row in runs per replay, series in
 * steps and procs, repartitions, and (with --save-assignment) the assignment after every
 * repartition. A run is written in one transaction, so a failure leaves nothing half-way. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <openssl/evp.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lbs_sim.h"

#define RESULTS_APP_ID 0x4C425352 /* 'LBSR' */

/* Schema 2 (PRAGMA user_version): provenance on every run (study, labels, command, version,
 * host, time, cost model, overrides, resolved configuration, content hashes), the studies
 * that group runs, per-step communication, partitioning and migration, the policies' series,
 * and lbsim partition's rows. Schema 3: where the partitioner ran and on how many ranks (a
 * distributed run is reproducible at its number of ranks). An older store (schema 1 has
 * user_version 0) is upgraded when written. */
#define RESULTS_SCHEMA 3

static const char *SCHEMA =
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
    "CREATE TABLE IF NOT EXISTS studies(id TEXT PRIMARY KEY, kind TEXT, command TEXT, version TEXT,"
    " started TEXT, host TEXT, file TEXT, file_hash TEXT, axes TEXT, tasks INTEGER);"
    "CREATE TABLE IF NOT EXISTS series(run INTEGER, k INTEGER, step INTEGER, value REAL, PRIMARY KEY(run, k));"
    "CREATE TABLE IF NOT EXISTS partitions(id INTEGER PRIMARY KEY, study TEXT, trace TEXT, grid TEXT,"
    " step INTEGER, partitioner TEXT, procs INTEGER, elements INTEGER, maxqwgt_s REAL, loadimb REAL,"
    " work_imbalance REAL, tolerance REAL, wsysll_s REAL, wgt_s REAL, comm_s REAL, remap_s REAL,"
    " edge_cut REAL, moved INTEGER, wall_s REAL, created TEXT, command TEXT, version TEXT, host TEXT,"
    " overrides TEXT, config TEXT, trace_hash TEXT, grid_hash TEXT);";

/* The columns schemas 2 and 3 add to schema 1's tables (a new store gets them the same way). */
static const char *const ADDED[][3] = {
    {"runs", "study", "TEXT"},       {"runs", "task", "INTEGER"},      {"runs", "labels", "TEXT"},
    {"runs", "created", "TEXT"},     {"runs", "command", "TEXT"},      {"runs", "version", "TEXT"},
    {"runs", "host", "TEXT"},        {"runs", "cost", "TEXT"},         {"runs", "overrides", "TEXT"},
    {"runs", "config", "TEXT"},      {"runs", "trace_hash", "TEXT"},   {"runs", "grid_hash", "TEXT"},
    {"runs", "optimum_s", "REAL"},   {"runs", "gap_to_optimal", "REAL"}, {"steps", "comm_ns", "INTEGER"},
    {"steps", "partition_ns", "INTEGER"}, {"steps", "migration_ns", "INTEGER"},
    {"runs", "partition_mode", "TEXT"},   {"runs", "ranks", "INTEGER"}, /* schema 3 */
};

static lbs_err dberr(sqlite3 *db, const char *path) {
  return lbs_fail(LBS_DB, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
}

/* SQLite may insert into a damaged b-tree without noticing, leaving the new run, and the old
 * ones, unreadable: a store that fails its quick check is refused before anything is written. */
static lbs_err check_intact(sqlite3 *db, const char *path) {
  sqlite3_stmt *q;
  if (sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &q, NULL) != SQLITE_OK) return dberr(db, path);
  const char *r = sqlite3_step(q) == SQLITE_ROW ? (const char *)sqlite3_column_text(q, 0) : NULL;
  lbs_err e = LBS_OK;
  if (!r || strcmp(r, "ok")) e = lbs_fail(LBS_CORRUPT, "%s: a damaged results store (%s)", path, r ? r : sqlite3_errmsg(db));
  sqlite3_finalize(q);
  return e;
}


int lbs_results_has_column(sqlite3 *db, const char *table, const char *column) {
  char sql[96];
  snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", table);
  sqlite3_stmt *q;
  int has = 0;
  if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) return 0;
  while (!has && sqlite3_step(q) == SQLITE_ROW) has = !strcmp((const char *)sqlite3_column_text(q, 1), column);
  sqlite3_finalize(q);
  return has;
}

static lbs_err results_version(sqlite3 *db, const char *path, int *version) {
  sqlite3_stmt *q;
  *version = -1;
  if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
    *version = sqlite3_column_int(q, 0);
  sqlite3_finalize(q);
  if (*version < 0) return dberr(db, path);
  if (*version == 0) *version = 1; /* schema 1 did not set it */
  if (*version > RESULTS_SCHEMA)
    return lbs_fail(LBS_VERSION, "%s: results schema version %d, this lbsim reads versions 1 to %d (a newer lbsim wrote it)",
                    path, *version, RESULTS_SCHEMA);
  return LBS_OK;
}

/* Opens (creating) a results store and begins a write transaction on it: its schema is there
 * and, with check, it is intact (a quick check reads the whole store). *existed: the file was
 * there before. */
static lbs_err store_begin(const char *path, sqlite3 **dbp, int *existed, int check) {
  sqlite3 *db = NULL;
  struct stat sb; /* a FIFO or device is never opened: SQLite would wait on it or write into it */
  *dbp = NULL;
  *existed = stat(path, &sb) == 0;
  if (!*existed) { /* made here, exclusively: only the call that made it may remove it (a sweep's
                      ranks may both find it missing) */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) close(fd);
    else if (errno == EEXIST) *existed = stat(path, &sb) == 0;
    else return lbs_fail(LBS_IO, "%s: %s", path, strerror(errno));
  }
  if (*existed && !S_ISREG(sb.st_mode)) return lbs_fail(LBS_IO, "%s: not a regular file", path);
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
    lbs_err e = dberr(db, path);
    sqlite3_close(db);
    return e;
  }
  sqlite3_busy_timeout(db, 120000); /* a sweep's ranks take turns: wait for the other's write */
  lbs_err e = LBS_OK;
  /* The write lock first: what follows reads the store as one transaction, so another rank's
   * commit (a sweep's ranks share the store) cannot land between reading the application id and
   * reading the tables. */
  if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL))
    e = sqlite3_errcode(db) == SQLITE_NOTADB ? lbs_fail(LBS_FORMAT, "%s: not a results store (not an SQLite file)", path)
                                             : dberr(db, path);
  int64_t app = -1;
  sqlite3_stmt *q;
  if (!e && sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
    app = sqlite3_column_int64(q, 0);
  if (!e) sqlite3_finalize(q);
  int empty = 1;
  if (!e) {
    int ok = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &q, NULL) == SQLITE_OK &&
             sqlite3_step(q) == SQLITE_ROW;
    if (ok) empty = sqlite3_column_int(q, 0) == 0;
    sqlite3_finalize(q);
    if (!ok) e = lbs_fail(LBS_FORMAT, "%s: not a results store (not an SQLite file)", path);
  }
  if (!e && !empty && app != RESULTS_APP_ID) e = lbs_fail(LBS_FORMAT, "%s: an SQLite file but not an lbsim results store", path);
  /* A file cut short inside a page: a rolled-back write would restore whole pages and so grow
   * it, changing a file the failed save must leave as it was. (Its size now, under the lock.) */
  int64_t page = 0;
  if (!e && *existed && sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &q, NULL) == SQLITE_OK &&
      sqlite3_step(q) == SQLITE_ROW)
    page = sqlite3_column_int64(q, 0);
  if (!e && *existed) sqlite3_finalize(q);
  if (!e && *existed && stat(path, &sb)) e = lbs_fail(LBS_IO, "%s: %s", path, strerror(errno));
  if (!e && *existed && page > 0 && sb.st_size % page)
    e = lbs_fail(LBS_CORRUPT, "%s: a damaged results store (%lld bytes: not a whole number of %lld-byte pages)", path,
                 (long long)sb.st_size, (long long)page);
  if (!e && check) e = check_intact(db, path);
  int version = 0;
  if (!e && !empty) e = results_version(db, path, &version);
  char pragma[64];
  snprintf(pragma, sizeof pragma, "PRAGMA application_id=%d", RESULTS_APP_ID);
  if (!e && (sqlite3_exec(db, pragma, NULL, NULL, NULL) || sqlite3_exec(db, SCHEMA, NULL, NULL, NULL))) e = dberr(db, path);
  for (size_t i = 0; !e && version < RESULTS_SCHEMA && i < sizeof ADDED / sizeof *ADDED; i++) {
    char sql[160];
    snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN %s %s", ADDED[i][0], ADDED[i][1], ADDED[i][2]);
    if (!lbs_results_has_column(db, ADDED[i][0], ADDED[i][1]) && sqlite3_exec(db, sql, NULL, NULL, NULL)) e = dberr(db, path);
  }
  snprintf(pragma, sizeof pragma, "PRAGMA user_version=%d", RESULTS_SCHEMA);
  if (!e && version < RESULTS_SCHEMA && sqlite3_exec(db, pragma, NULL, NULL, NULL)) e = dberr(db, path);
  if (e) {
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);
    /* a store this call created and left empty is not left behind */
    if (!*existed && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0) unlink(path);
    return e;
  }
  *dbp = db;
  return LBS_OK;
}

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

lbs_err lbs_results_save_validation(const char *path, const lbs_validation *v) {
  if (v->nmeasured < 1) return lbs_fail(LBS_INVAL, "a validation without measurements");
  double *m = malloc((size_t)v->nmeasured * sizeof *m);
  if (!m) return lbs_fail(LBS_NOMEM, "validation");
  memcpy(m, v->measured_s, (size_t)v->nmeasured * sizeof *m);
  qsort(m, (size_t)v->nmeasured, sizeof *m, cmp_dbl);
  int n = v->nmeasured;
  double med = n % 2 ? m[n / 2] : 0.5 * (m[n / 2 - 1] + m[n / 2]), lo = m[0], hi = m[n - 1];
  free(m);
  sqlite3 *db;
  int existed;
  lbs_err e = store_begin(path, &db, &existed, 1);
  if (e) return e;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, "INSERT INTO validations(run, app, args, ranks, schedule, predicted_s, measured_median_s,"
                         " measured_min_s, measured_max_s, error, real_runs) VALUES(?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL))
    e = dberr(db, path);
  if (!e) {
    sqlite3_bind_int64(st, 1, v->run);
    sqlite3_bind_text(st, 2, v->app, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, v->args, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, v->ranks);
    sqlite3_bind_text(st, 5, v->schedule, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 6, v->predicted_s);
    sqlite3_bind_double(st, 7, med);
    sqlite3_bind_double(st, 8, lo);
    sqlite3_bind_double(st, 9, hi);
    sqlite3_bind_double(st, 10, (v->predicted_s - med) / med);
    sqlite3_bind_int(st, 11, n);
    if (sqlite3_step(st) != SQLITE_DONE) e = dberr(db, path);
  }
  sqlite3_finalize(st);
  st = NULL;
  int64_t id = sqlite3_last_insert_rowid(db);
  if (!e && sqlite3_prepare_v2(db, "INSERT INTO measurements(validation, k, total_s) VALUES(?,?,?)", -1, &st, NULL))
    e = dberr(db, path);
  for (int k = 0; !e && k < n; k++) {
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int(st, 2, k);
    sqlite3_bind_double(st, 3, v->measured_s[k]);
    if (sqlite3_step(st) != SQLITE_DONE) e = dberr(db, path);
  }
  sqlite3_finalize(st);
  if (!e && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL)) e = dberr(db, path);
  if (e) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_close(db);
  return e;
}

/* Binds text, or NULL for a NULL pointer. */
static void bind_text(sqlite3_stmt *st, int k, const char *v) {
  if (v) sqlite3_bind_text(st, k, v, -1, SQLITE_TRANSIENT);
  else sqlite3_bind_null(st, k);
}

static void bind_real(sqlite3_stmt *st, int k, double v) {
  if (isfinite(v)) sqlite3_bind_double(st, k, v);
  else sqlite3_bind_null(st, k);
}

void lbs_results_now(char iso[32]) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(iso, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The study's row, once: a resumed sweep finds it there. */
static lbs_err insert_study(sqlite3 *db, const char *path, const lbs_study_info *si) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO studies(id, kind, command, version, started, host, file, file_hash,"
                         " axes, tasks) VALUES(?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL))
    return dberr(db, path);
  bind_text(st, 1, si->id);
  bind_text(st, 2, si->kind);
  bind_text(st, 3, si->command);
  bind_text(st, 4, si->version);
  bind_text(st, 5, si->started);
  bind_text(st, 6, si->host);
  bind_text(st, 7, si->file);
  bind_text(st, 8, si->file_hash);
  bind_text(st, 9, si->axes);
  sqlite3_bind_int64(st, 10, si->tasks);
  lbs_err e = sqlite3_step(st) == SQLITE_DONE ? LBS_OK : dberr(db, path);
  sqlite3_finalize(st);
  return e;
}

/* Rows written so far, for the study's progress callback. */
typedef struct {
  const lbs_study_info *si;
  int64_t done, total;
} rows_done;

static int64_t run_rows(const lbs_replay_result *r) {
  return 1 + r->steps * (1 + r->procs) + r->nrep + r->nseries + (r->assign ? (r->nrep + 1) * r->elements : 0);
}

static void row_written(rows_done *rd) {
  if (++rd->done % 4096 == 0 || rd->done == rd->total)
    if (rd->si && rd->si->progress) rd->si->progress(rd->si->progress_arg, rd->done, rd->total);
}

/* One run and its series, inside the caller's transaction. */
/* The run's row in runs. */
static lbs_err insert_run_row(sqlite3 *db, const char *path, const lbs_replay_result *r, const lbs_study_info *si,
                              const lbs_run_info *ri, rows_done *rd) {
  sqlite3_stmt *st = NULL;
  lbs_err e = LBS_OK;
  char now[32];
  lbs_results_now(now);
  /* the columns by name: a store whose tables have other columns, or in another order, gets
   * nothing in the wrong place (an unknown column is an error) */
  static const char *INSERT_RUN =
      "INSERT INTO runs(trace, grid, metric, partitioner, policy, mode, elements, steps, procs, total_time_s,"
      " compute_time_s, comm_time_s, partition_time_s, migration_time_s, repartitions, mean_imbalance,"
      " max_imbalance, mean_loadimb, moved_elements, wall_s, study, task, labels, created, command, version,"
      " host, cost, overrides, config, trace_hash, grid_hash, optimum_s, gap_to_optimal, partition_mode, ranks)"
      " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  if (sqlite3_prepare_v2(db, INSERT_RUN, -1, &st, NULL)) e = dberr(db, path);
  if (!e) {
    int k = 1;
    sqlite3_bind_text(st, k++, ri && ri->trace ? ri->trace : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, k++, ri && ri->grid ? ri->grid : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, k++, r->metric, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, k++, r->partitioner, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, k++, r->policy, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, k++, r->mode == LBS_MODE_BSP ? "bsp" : "des", -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, k++, r->elements);
    sqlite3_bind_int64(st, k++, r->steps);
    sqlite3_bind_int(st, k++, r->procs);
    sqlite3_bind_double(st, k++, 1e-9 * (double)r->total_ns);
    sqlite3_bind_double(st, k++, 1e-9 * (double)r->compute_ns);
    sqlite3_bind_double(st, k++, 1e-9 * (double)r->comm_ns);
    sqlite3_bind_double(st, k++, 1e-9 * (double)r->partition_ns);
    sqlite3_bind_double(st, k++, 1e-9 * (double)r->migration_ns);
    sqlite3_bind_int(st, k++, r->nrep);
    sqlite3_bind_double(st, k++, r->mean_imbalance);
    sqlite3_bind_double(st, k++, r->max_imbalance);
    sqlite3_bind_double(st, k++, r->mean_loadimb);
    sqlite3_bind_int64(st, k++, r->moved);
    sqlite3_bind_double(st, k++, r->wall_s);
    bind_text(st, k++, si ? si->id : NULL);
    if (ri && ri->task >= 0) sqlite3_bind_int64(st, k++, ri->task);
    else sqlite3_bind_null(st, k++);
    bind_text(st, k++, ri ? ri->labels : NULL);
    bind_text(st, k++, now);
    bind_text(st, k++, si ? si->command : NULL);
    bind_text(st, k++, si ? si->version : NULL);
    bind_text(st, k++, si ? si->host : NULL);
    bind_text(st, k++, ri ? ri->cost : NULL);
    bind_text(st, k++, ri ? ri->overrides : NULL);
    bind_text(st, k++, ri ? ri->config : NULL);
    bind_text(st, k++, ri ? ri->trace_hash : NULL);
    bind_text(st, k++, ri ? ri->grid_hash : NULL);
    bind_real(st, k++, ri ? ri->optimum_s : NAN);
    bind_real(st, k++, ri ? ri->gap_to_optimal : NAN);
    sqlite3_bind_text(st, k++, lbs_partition_mode_name(r->partition_mode), -1, SQLITE_STATIC);
    sqlite3_bind_int(st, k++, r->ranks);
    if (sqlite3_step(st) != SQLITE_DONE) e = dberr(db, path);
    else row_written(rd);
  }
  sqlite3_finalize(st);
  st = NULL;
  return e;
}

/* Its steps: what each was charged. */
static lbs_err insert_steps(sqlite3 *db, const char *path, const lbs_replay_result *r, int64_t run, rows_done *rd) {
  sqlite3_stmt *st = NULL;
  lbs_err e = LBS_OK;
  /* what each step was charged: a repartition's partitioning and migration at its step, and
   * in bsp the rest of the step beyond the slowest compute: communication and the barrier */
  if (!e && sqlite3_prepare_v2(db, "INSERT INTO steps(run, step, app_step, time_ns, compute_ns, imbalance, loadimb,"
                              " repartitioned, comm_ns, partition_ns, migration_ns) VALUES(?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL))
    e = dberr(db, path);
  for (int64_t s = 0, k = 0; !e && s < r->steps; s++) {
    int64_t part = 0, mig = 0;
    while (k < r->nrep && r->reparts[k].step < s) k++;
    if (k < r->nrep && r->reparts[k].step == s) part = r->reparts[k].partition_ns, mig = r->reparts[k].migration_ns;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int64(st, 2, r->first_step + s);
    sqlite3_bind_int64(st, 3, r->app_step[s]);
    sqlite3_bind_int64(st, 4, r->step_ns[s]);
    sqlite3_bind_int64(st, 5, r->step_compute_ns[s]);
    sqlite3_bind_double(st, 6, r->imbalance[s]);
    sqlite3_bind_double(st, 7, r->loadimb[s]);
    sqlite3_bind_int(st, 8, r->repartitioned[s]);
    if (r->mode == LBS_MODE_BSP) sqlite3_bind_int64(st, 9, r->step_ns[s] - r->step_compute_ns[s]);
    else sqlite3_bind_null(st, 9); /* des has no step-wide communication phase */
    sqlite3_bind_int64(st, 10, part);
    sqlite3_bind_int64(st, 11, mig);
    if (sqlite3_step(st) != SQLITE_DONE) e = dberr(db, path);
    else row_written(rd);
  }
  sqlite3_finalize(st);
  st = NULL;
  return e;
}

/* Its per-processor compute time at each step. */
static lbs_err insert_procs(sqlite3 *db, const char *path, const lbs_replay_result *r, int64_t run, rows_done *rd) {
  sqlite3_stmt *st = NULL;
  lbs_err e = LBS_OK;
  if (!e && sqlite3_prepare_v2(db, "INSERT INTO procs(run, step, proc, compute_ns) VALUES(?,?,?,?)", -1, &st, NULL)) e = dberr(db, path);
  for (int64_t s = 0; !e && s < r->steps; s++)
    for (int p = 0; !e && p < r->procs; p++) {
      sqlite3_reset(st);
      sqlite3_bind_int64(st, 1, run);
      sqlite3_bind_int64(st, 2, r->first_step + s);
      sqlite3_bind_int(st, 3, p);
      sqlite3_bind_int64(st, 4, r->proc_ns[s * r->procs + p]);
      if (sqlite3_step(st) != SQLITE_DONE) e = dberr(db, path);
    else row_written(rd);
    }
  sqlite3_finalize(st);
  st = NULL;
  return e;
}

/* Its repartitions. */
static lbs_err insert_reparts(sqlite3 *db, const char *path, const lbs_replay_result *r, int64_t run, rows_done *rd) {
  sqlite3_stmt *st = NULL;
  lbs_err e = LBS_OK;
  if (!e && sqlite3_prepare_v2(db, "INSERT INTO repartitions(run, step, partition_ns, migration_ns, moved_elements,"
                              " moved_bytes, wall_s) VALUES(?,?,?,?,?,?,?)", -1, &st, NULL)) e = dberr(db, path);
  for (int k = 0; !e && k < r->nrep; k++) {
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int64(st, 2, r->first_step + r->reparts[k].step);
    sqlite3_bind_int64(st, 3, r->reparts[k].partition_ns);
    sqlite3_bind_int64(st, 4, r->reparts[k].migration_ns);
    sqlite3_bind_int64(st, 5, r->reparts[k].moved);
    sqlite3_bind_double(st, 6, r->reparts[k].moved_bytes);
    sqlite3_bind_double(st, 7, r->reparts[k].wall_s);
    if (sqlite3_step(st) != SQLITE_DONE) e = dberr(db, path);
    else row_written(rd);
  }
  sqlite3_finalize(st);
  st = NULL;
  return e;
}

/* The policy's recorded series. */
static lbs_err insert_series(sqlite3 *db, const char *path, const lbs_replay_result *r, int64_t run, rows_done *rd) {
  sqlite3_stmt *st = NULL;
  lbs_err e = LBS_OK;
  if (!e && r->nseries > 0 && sqlite3_prepare_v2(db, "INSERT INTO series(run, k, step, value) VALUES(?,?,?,?)", -1, &st, NULL))
    e = dberr(db, path);
  for (int k = 0; !e && k < r->nseries; k++) {
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int(st, 2, k);
    sqlite3_bind_int64(st, 3, r->first_step + r->series_step[k]);
    sqlite3_bind_double(st, 4, r->series_value[k]);
    if (sqlite3_step(st) != SQLITE_DONE) e = dberr(db, path);
    else row_written(rd);
  }
  sqlite3_finalize(st);
  st = NULL;
  return e;
}

/* The assignments (save_assignment): the initial one at step first - 1, then after each repartition. */
static lbs_err insert_assignment(sqlite3 *db, const char *path, const lbs_replay_result *r, int64_t run, rows_done *rd) {
  sqlite3_stmt *st = NULL;
  lbs_err e = LBS_OK;
  if (r->assign) { /* step -1: the initial partition */
    if (!e && sqlite3_prepare_v2(db, "INSERT INTO assignment(run, step, element, part) VALUES(?,?,?,?)", -1, &st, NULL)) e = dberr(db, path);
    for (int k = 0; !e && k <= r->nrep; k++)
      for (int64_t el = 0; !e && el < r->elements; el++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, run);
        sqlite3_bind_int64(st, 2, k ? r->first_step + r->reparts[k - 1].step : r->first_step - 1);
        sqlite3_bind_int64(st, 3, el);
        sqlite3_bind_int(st, 4, r->assign[(size_t)k * (size_t)r->elements + (size_t)el]);
        if (sqlite3_step(st) != SQLITE_DONE) e = dberr(db, path);
    else row_written(rd);
      }
    sqlite3_finalize(st);
  }
  return e;
}

static lbs_err insert_run(sqlite3 *db, const char *path, const lbs_replay_result *r, const lbs_study_info *si,
                          const lbs_run_info *ri, int64_t *run_out, rows_done *rd) {
  lbs_err e = insert_run_row(db, path, r, si, ri, rd);
  int64_t run = sqlite3_last_insert_rowid(db);
  if (!e) e = insert_steps(db, path, r, run, rd);
  if (!e) e = insert_procs(db, path, r, run, rd);
  if (!e) e = insert_reparts(db, path, r, run, rd);
  if (!e) e = insert_series(db, path, r, run, rd);
  if (!e) e = insert_assignment(db, path, r, run, rd);
  if (!e && run_out) *run_out = run;
  return e;
}

/* Commits (or rolls back on e) and closes; a store this call created and left empty (a full
 * disk) is not left behind; one that another process has written to meanwhile is not empty. */
static lbs_err store_end(sqlite3 *db, const char *path, int existed, lbs_err e) {
  struct stat sb;
  if (!e && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL)) e = dberr(db, path);
  if (e) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_close(db);
  if (e && !existed && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0) unlink(path);
  return e;
}

lbs_err lbs_results_save_study(const char *path, const lbs_study_info *si, lbs_replay_result *const *r,
                               const lbs_run_info *ri, int n, int64_t *ids) {
  sqlite3 *db = NULL;
  int existed;
  lbs_err e = store_begin(path, &db, &existed, !(si && si->checked));
  if (e) return e;
  if (si && si->id) e = insert_study(db, path, si);
  rows_done rd = {si, 0, 0};
  for (int k = 0; k < n; k++) rd.total += run_rows(r[k]);
  for (int k = 0; !e && k < n; k++) e = insert_run(db, path, r[k], si, ri ? &ri[k] : NULL, ids ? &ids[k] : NULL, &rd);
  return store_end(db, path, existed, e);
}

lbs_err lbs_results_save(const char *path, const lbs_replay_result *r, const char *trace_path, const char *grid_path) {
  return lbs_results_save_run(path, r, trace_path, grid_path, NULL);
}

lbs_err lbs_results_save_run(const char *path, const lbs_replay_result *r, const char *trace_path, const char *grid_path,
                             int64_t *run_out) {
  lbs_run_info ri = {.trace = trace_path, .grid = grid_path, .task = -1, .optimum_s = NAN, .gap_to_optimal = NAN};
  lbs_replay_result *rr = (lbs_replay_result *)r;
  return lbs_results_save_study(path, NULL, &rr, &ri, 1, run_out);
}

lbs_err lbs_results_save_partitions(const char *path, const lbs_study_info *si, const lbs_partition_row *rows, int n) {
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int existed;
  char now[32];
  lbs_results_now(now);
  lbs_err e = store_begin(path, &db, &existed, 1);
  if (e) return e;
  if (si && si->id) e = insert_study(db, path, si);
  if (!e && sqlite3_prepare_v2(db, "INSERT INTO partitions(study, trace, grid, step, partitioner, procs, elements,"
                              " maxqwgt_s, loadimb, work_imbalance, tolerance, wsysll_s, wgt_s, comm_s, remap_s, edge_cut,"
                              " moved, wall_s, created, command, version, host, overrides, config, trace_hash, grid_hash)"
                              " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL))
    e = dberr(db, path);
  for (int i = 0; !e && i < n; i++) {
    const lbs_partition_row *w = &rows[i];
    int k = 1;
    sqlite3_reset(st);
    bind_text(st, k++, si ? si->id : NULL);
    bind_text(st, k++, w->run.trace);
    bind_text(st, k++, w->run.grid);
    sqlite3_bind_int64(st, k++, w->step);
    bind_text(st, k++, w->partitioner);
    sqlite3_bind_int(st, k++, w->procs);
    sqlite3_bind_int64(st, k++, w->elements);
    bind_real(st, k++, w->maxqwgt_s);
    bind_real(st, k++, w->loadimb);
    bind_real(st, k++, w->work_imbalance);
    bind_real(st, k++, w->tolerance);
    bind_real(st, k++, w->wsysll_s);
    bind_real(st, k++, w->wgt_s);
    bind_real(st, k++, w->comm_s);
    bind_real(st, k++, w->remap_s);
    bind_real(st, k++, w->edge_cut);
    sqlite3_bind_int64(st, k++, w->moved);
    bind_real(st, k++, w->wall_s);
    bind_text(st, k++, now);
    bind_text(st, k++, si ? si->command : NULL);
    bind_text(st, k++, si ? si->version : NULL);
    bind_text(st, k++, si ? si->host : NULL);
    bind_text(st, k++, w->run.overrides);
    bind_text(st, k++, w->run.config);
    bind_text(st, k++, w->run.trace_hash);
    bind_text(st, k++, w->run.grid_hash);
    if (sqlite3_step(st) != SQLITE_DONE) e = dberr(db, path);
  }
  sqlite3_finalize(st);
  return store_end(db, path, existed, e);
}

lbs_err lbs_results_open_read(const char *path, sqlite3 **out, int *version) {
  struct stat sb;
  *out = NULL;
  if (stat(path, &sb)) return lbs_fail(LBS_IO, "%s: %s", path, strerror(errno));
  if (!S_ISREG(sb.st_mode)) return lbs_fail(LBS_IO, "%s: not a regular file", path);
  sqlite3 *db = NULL;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
    lbs_err e = dberr(db, path);
    sqlite3_close(db);
    return e;
  }
  sqlite3_busy_timeout(db, 10000);
  sqlite3_stmt *q;
  int64_t app = -1;
  lbs_err e = LBS_OK;
  if (sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
    app = sqlite3_column_int64(q, 0);
  else
    e = lbs_fail(LBS_FORMAT, "%s: not a results store (not an SQLite file)", path);
  sqlite3_finalize(q);
  if (!e && app != RESULTS_APP_ID) e = lbs_fail(LBS_FORMAT, "%s: not an lbsim results store", path);
  if (!e) e = results_version(db, path, version);
  if (e) {
    sqlite3_close(db);
    return e;
  }
  *out = db;
  return LBS_OK;
}

lbs_err lbs_results_study_tasks(const char *path, const char *study, uint8_t *done, int64_t ntasks) {
  struct stat sb;
  if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0) return LBS_OK; /* a new store, empty */
  sqlite3 *db;
  int version;
  lbs_err e = lbs_results_open_read(path, &db, &version);
  if (e) return e;
  sqlite3_stmt *q;
  if (version < 2) { /* a schema-1 store holds no sweep */
    sqlite3_close(db);
    return LBS_OK;
  }
  if (sqlite3_prepare_v2(db, "SELECT task FROM runs WHERE study = ? AND task IS NOT NULL", -1, &q, NULL)) {
    e = dberr(db, path);
    sqlite3_close(db);
    return e;
  }
  sqlite3_bind_text(q, 1, study, -1, SQLITE_STATIC);
  int rc;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    int64_t t = sqlite3_column_int64(q, 0);
    if (t >= 0 && t < ntasks) done[t] = 1;
  }
  if (rc != SQLITE_DONE) e = dberr(db, path);
  sqlite3_finalize(q);
  sqlite3_close(db);
  return e;
}

lbs_err lbs_file_sha256(const char *path, char hex[65]) {
  struct stat sb;
  if (stat(path, &sb)) return lbs_fail(LBS_IO, "%s: %s", path, strerror(errno));
  if (!S_ISREG(sb.st_mode)) return lbs_fail(LBS_IO, "%s: not a regular file", path);
  FILE *f = fopen(path, "rb");
  if (!f) return lbs_fail(LBS_IO, "%s: %s", path, strerror(errno));
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  lbs_err e = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) ? LBS_OK : lbs_fail(LBS_NOMEM, "sha256");
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
  if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) || n != 32) return lbs_fail(LBS_NOMEM, "sha256");
  for (unsigned i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
  return LBS_OK;
}

lbs_err lbs_results_check(const char *path) {
  sqlite3 *db;
  int version;
  lbs_err e = lbs_results_open_read(path, &db, &version);
  if (e) return e;
  e = check_intact(db, path);
  sqlite3_close(db);
  return e;
}

/* ---------------------------------------------------------------- a run as JSON (lbsim replay --json) */

json_t *lbs_replay_json(const lbs_replay_result *r) {
  json_t *o = json_object();
  if (o && lbs_replay_json_fields(o, r)) json_decref(o), o = NULL;
  return o;
}

/* Seconds from nanoseconds, to the nanosecond (as %.9f always showed them). */
static json_t *seconds(int64_t ns) { return lbs_json_fixed(1e-9 * (double)ns, 9); }

int lbs_replay_json_fields(json_t *o, const lbs_replay_result *r) {
  json_t *steps = json_array();
  int bad = !steps;
  for (int k = 0; !bad && k < r->nrep; k++)
    bad = json_array_append_new(steps, lbs_json_int(r->first_step + r->reparts[k].step));
  if (bad) json_decref(steps), steps = NULL;
  bad |= lbs_json_set(o, "partitioner", lbs_json_str(r->partitioner));
  bad |= lbs_json_set(o, "policy", lbs_json_str(r->policy));
  bad |= lbs_json_set(o, "metric", lbs_json_str(r->metric));
  bad |= lbs_json_set(o, "mode", json_string(r->mode == LBS_MODE_BSP ? "bsp" : "des"));
  bad |= lbs_json_set(o, "elements", lbs_json_int(r->elements));
  bad |= lbs_json_set(o, "steps", lbs_json_int(r->steps));
  bad |= lbs_json_set(o, "first_step", lbs_json_int(r->first_step));
  bad |= lbs_json_set(o, "procs", lbs_json_int(r->procs));
  bad |= lbs_json_set(o, "total_time_s", seconds(r->total_ns));
  bad |= lbs_json_set(o, "compute_time_s", seconds(r->compute_ns));
  bad |= lbs_json_set(o, "comm_time_s", seconds(r->comm_ns));
  bad |= lbs_json_set(o, "partition_time_s", seconds(r->partition_ns));
  bad |= lbs_json_set(o, "migration_time_s", seconds(r->migration_ns));
  bad |= lbs_json_set(o, "repartitions", lbs_json_int(r->nrep));
  bad |= lbs_json_set(o, "repartition_steps", steps);
  bad |= lbs_json_set(o, "mean_imbalance", lbs_json_fixed(r->mean_imbalance, 9));
  bad |= lbs_json_set(o, "max_imbalance", lbs_json_fixed(r->max_imbalance, 9));
  bad |= lbs_json_set(o, "mean_loadimb", lbs_json_fixed(r->mean_loadimb, 9));
  bad |= lbs_json_set(o, "moved_elements", lbs_json_int(r->moved));
  bad |= lbs_json_set(o, "initial_work_imbalance", lbs_json_fixed(r->initial_work_imbalance, 9));
  bad |= lbs_json_set(o, "max_work_imbalance", lbs_json_fixed(r->max_work_imbalance, 9));
  bad |=
      lbs_json_set(o, "tolerance", r->tolerance > 0 ? lbs_json_sig(r->tolerance, 9) : json_null());
  bad |= lbs_json_set(o, "tolerance_missed", lbs_json_int(r->tolerance_missed));
  bad |= lbs_json_set(o, "partition_mode", json_string(lbs_partition_mode_name(r->partition_mode)));
  bad |= lbs_json_set(o, "wall_s", lbs_json_fixed(r->wall_s, 3));
  return bad ? -1 : 0;
}
