/* results_fixtures.h - stores for the results store's suites (test_results.c, the writers;
 * test_results_read.c, the readers): a run as lbs_replay fills it, a schema-1 and a schema-2
 * store, and what SQLite reads back. */
#ifndef LBS_RESULTS_FIXTURES_H
#define LBS_RESULTS_FIXTURES_H

#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

#include "lbs_study.h"

/* A run of 3 steps on 2 processors with one repartition, as lbs_replay fills it. */
static inline lbs_replay_result run(void) {
  static int64_t app[3] = {0, 10, 20}, step_ns[3] = {1000, 900, 950}, comp[3] = {800, 700, 750},
                 excess[3] = {100, 50, 60}, proc_ns[6] = {800, 600, 700, 700, 750, 740};
  static double imb[3] = {0.25, 0.0, 0.01}, limb[3] = {1.33, 1.0, 1.01};
  static int rep[3] = {0, 1, 0};
  static lbs_repart_rec rr[1] = {{1, 50, 40, 2, 2048, 1e-4, 1.02, 0}};
  return (lbs_replay_result){.metric = "time_ns",
                             .partitioner = "zoltan:rcb",
                             .policy = "fixed:1",
                             .mode = LBS_MODE_BSP,
                             .elements = 4,
                             .steps = 3,
                             .procs = 2,
                             .total_ns = 2850,
                             .app_step = app,
                             .step_ns = step_ns,
                             .step_compute_ns = comp,
                             .imbalance = imb,
                             .loadimb = limb,
                             .excess_ns = excess,
                             .repartitioned = rep,
                             .proc_ns = proc_ns,
                             .reparts = rr,
                             .nrep = 1,
                             .optimum_ns = -1};
}

/* The first column of the first row of sql on the store, -1 without one. */
static inline long long query(const char *path, const char *sql) {
  sqlite3 *db;
  sqlite3_stmt *q;
  long long v = -1;
  cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
    v = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  sqlite3_close(db);
  return v;
}

/* Runs sql on the file at path (made when missing), as another program would. */
static inline void exec_sql(const char *path, const char *sql) {
  sqlite3 *s;
  cr_assert_eq(sqlite3_open(path, &s), SQLITE_OK);
  cr_assert_eq(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(s));
  sqlite3_close(s);
}

/* The file's bytes (malloc'd) and their count. */
static inline char *slurp(const char *path, long *len) {
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f);
  fseek(f, 0, SEEK_END);
  *len = ftell(f);
  rewind(f);
  char *b = malloc((size_t)*len);
  cr_assert_eq(fread(b, 1, (size_t)*len, f), (size_t)*len);
  fclose(f);
  return b;
}

/* A schema-1 store as lbsim before provenance made it (no user_version, runs and steps without
 * their later columns), holding one run of old.lbt. */
static inline void make_schema1(const char *path) {
  exec_sql(
      path,
      "PRAGMA application_id=1279415122;"
      "CREATE TABLE runs(id INTEGER PRIMARY KEY, trace TEXT, grid TEXT, metric TEXT,"
      " partitioner TEXT, policy TEXT, mode TEXT, elements INTEGER, steps INTEGER, procs INTEGER,"
      " total_time_s REAL, compute_time_s REAL, comm_time_s REAL, partition_time_s REAL,"
      " migration_time_s REAL, repartitions INTEGER, mean_imbalance REAL, max_imbalance REAL,"
      " mean_loadimb REAL, moved_elements INTEGER, wall_s REAL);"
      "CREATE TABLE steps(run INTEGER, step INTEGER, app_step INTEGER, time_ns INTEGER,"
      " compute_ns INTEGER, imbalance REAL, loadimb REAL, repartitioned INTEGER,"
      " PRIMARY KEY(run, step));"
      "INSERT INTO runs(trace, policy) VALUES('old.lbt', 'none');");
}

/* A schema-2 store (no partition_mode, no ranks) holding r once. */
static inline void make_schema2(const char *path, const lbs_replay_result *r) {
  cr_assert_eq(lbs_results_save(path, r, "t.lbt", "g.ini"), LBS_OK, "%s", lbs_errmsg());
  exec_sql(path, "ALTER TABLE runs DROP COLUMN partition_mode; ALTER TABLE runs DROP COLUMN ranks;"
                 "ALTER TABLE runs DROP COLUMN des_overlap; PRAGMA user_version=2");
}

#endif
