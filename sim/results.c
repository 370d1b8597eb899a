/* results.c - the results store: one SQLite file, one row in runs per replay, series in
 * steps and procs, repartitions, and (with --save-assignment) the assignment after every
 * repartition. A run is written in one transaction, so a failure leaves nothing half-way. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lbs_sim.h"

#define RESULTS_APP_ID 0x4C425352 /* 'LBSR' */

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
    " PRIMARY KEY(validation, k));";

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

lbs_err lbs_results_save(const char *path, const lbs_replay_result *r, const char *trace_path, const char *grid_path) {
  return lbs_results_save_run(path, r, trace_path, grid_path, NULL);
}

/* Opens (creating) a results store and begins a write transaction on it: its schema is there
 * and it is intact. *existed: the file was there before. */
static lbs_err store_begin(const char *path, sqlite3 **dbp, int *existed) {
  sqlite3 *db = NULL;
  struct stat sb; /* a FIFO or device is never opened: SQLite would wait on it or write into it */
  *dbp = NULL;
  *existed = stat(path, &sb) == 0;
  if (*existed && !S_ISREG(sb.st_mode)) return lbs_fail(LBS_IO, "%s: not a regular file", path);
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
    lbs_err e = dberr(db, path);
    sqlite3_close(db);
    return e;
  }
  sqlite3_busy_timeout(db, 10000);
  lbs_err e = LBS_OK;
  int64_t app = -1;
  sqlite3_stmt *q;
  if (sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
    app = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  int empty = 1;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &q, NULL) == SQLITE_OK &&
      sqlite3_step(q) == SQLITE_ROW)
    empty = sqlite3_column_int(q, 0) == 0;
  else
    e = lbs_fail(LBS_FORMAT, "%s: not a results store (not an SQLite file)", path);
  sqlite3_finalize(q);
  if (!e && !empty && app != RESULTS_APP_ID) e = lbs_fail(LBS_FORMAT, "%s: an SQLite file but not an lbsim results store", path);
  /* A file cut short inside a page: a rolled-back write would restore whole pages and so grow
   * it, changing a file the failed save must leave as it was. */
  int64_t page = 0;
  if (!e && *existed && sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &q, NULL) == SQLITE_OK &&
      sqlite3_step(q) == SQLITE_ROW)
    page = sqlite3_column_int64(q, 0);
  if (!e && *existed) sqlite3_finalize(q);
  if (!e && *existed && page > 0 && sb.st_size % page)
    e = lbs_fail(LBS_CORRUPT, "%s: a damaged results store (%lld bytes: not a whole number of %lld-byte pages)", path,
                 (long long)sb.st_size, (long long)page);
  if (!e && sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL)) e = dberr(db, path);
  if (!e) e = check_intact(db, path);
  char pragma[64];
  snprintf(pragma, sizeof pragma, "PRAGMA application_id=%d", RESULTS_APP_ID);
  if (!e && (sqlite3_exec(db, pragma, NULL, NULL, NULL) || sqlite3_exec(db, SCHEMA, NULL, NULL, NULL))) e = dberr(db, path);
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
  lbs_err e = store_begin(path, &db, &existed);
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

lbs_err lbs_results_save_run(const char *path, const lbs_replay_result *r, const char *trace_path, const char *grid_path,
                             int64_t *run_out) {
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  struct stat sb;
  int existed;
  int64_t run;
  lbs_err e = store_begin(path, &db, &existed);
  if (e) return e;
  /* the columns by name: a store whose tables have other columns, or in another order, gets
   * nothing in the wrong place (an unknown column is an error) */
  static const char *INSERT_RUN =
      "INSERT INTO runs(trace, grid, metric, partitioner, policy, mode, elements, steps, procs, total_time_s,"
      " compute_time_s, comm_time_s, partition_time_s, migration_time_s, repartitions, mean_imbalance,"
      " max_imbalance, mean_loadimb, moved_elements, wall_s) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  if (!e && sqlite3_prepare_v2(db, INSERT_RUN, -1, &st, NULL)) e = dberr(db, path);
  if (!e) {
    int k = 1;
    sqlite3_bind_text(st, k++, trace_path ? trace_path : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, k++, grid_path ? grid_path : "", -1, SQLITE_STATIC);
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
    if (sqlite3_step(st) != SQLITE_DONE) e = dberr(db, path);
  }
  sqlite3_finalize(st);
  st = NULL;
  run = sqlite3_last_insert_rowid(db);
  if (!e && sqlite3_prepare_v2(db, "INSERT INTO steps(run, step, app_step, time_ns, compute_ns, imbalance, loadimb,"
                              " repartitioned) VALUES(?,?,?,?,?,?,?,?)", -1, &st, NULL)) e = dberr(db, path);
  for (int64_t s = 0; !e && s < r->steps; s++) {
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int64(st, 2, r->first_step + s);
    sqlite3_bind_int64(st, 3, r->app_step[s]);
    sqlite3_bind_int64(st, 4, r->step_ns[s]);
    sqlite3_bind_int64(st, 5, r->step_compute_ns[s]);
    sqlite3_bind_double(st, 6, r->imbalance[s]);
    sqlite3_bind_double(st, 7, r->loadimb[s]);
    sqlite3_bind_int(st, 8, r->repartitioned[s]);
    if (sqlite3_step(st) != SQLITE_DONE) e = dberr(db, path);
  }
  sqlite3_finalize(st);
  st = NULL;
  if (!e && sqlite3_prepare_v2(db, "INSERT INTO procs(run, step, proc, compute_ns) VALUES(?,?,?,?)", -1, &st, NULL)) e = dberr(db, path);
  for (int64_t s = 0; !e && s < r->steps; s++)
    for (int p = 0; !e && p < r->procs; p++) {
      sqlite3_reset(st);
      sqlite3_bind_int64(st, 1, run);
      sqlite3_bind_int64(st, 2, r->first_step + s);
      sqlite3_bind_int(st, 3, p);
      sqlite3_bind_int64(st, 4, r->proc_ns[s * r->procs + p]);
      if (sqlite3_step(st) != SQLITE_DONE) e = dberr(db, path);
    }
  sqlite3_finalize(st);
  st = NULL;
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
  }
  sqlite3_finalize(st);
  st = NULL;
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
      }
    sqlite3_finalize(st);
  }
  if (!e && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL)) e = dberr(db, path);
  if (e) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  else if (run_out) *run_out = run;
  sqlite3_close(db);
  /* a store this call created and left empty (a full disk) is not left behind; one that another
   * process has written to meanwhile is not empty */
  if (e && !existed && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0) unlink(path);
  return e;
}
