/* The results store as lbs_results_save appends to it: what it refuses, and that a refusal
 * leaves the file as it was. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_study.h"
#include "results_fixtures.h"
#include "testutil.h"

/* A store whose runs page says its cells start further up than they do (as in the damaged
 * file fuzz_results found): SQLite wrote the next row over an earlier one and reported success,
 * and the runs table could no longer be read. Such a store is refused and left as it was. */
Test(results, a_damaged_store_is_refused_and_left_alone) {
  char *dir = tu_tmpdir(), *db = tu_path(dir, "r.db");
  lbs_replay_result r = run();
  cr_assert_eq(lbs_results_save(db, &r, "t.lbt", "g.ini"), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_results_save(db, &r, "t.lbt", "g.ini"), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(query(db, "SELECT count(*) FROM runs"), 2);
  long page = query(db, "PRAGMA page_size"),
       root = query(db, "SELECT rootpage FROM sqlite_master WHERE name = 'runs'");
  cr_assert(page > 0 && root > 1);
  /* the b-tree page header: byte 5-6, where the cell content area starts */
  FILE *f = fopen(db, "r+b");
  unsigned char h[8];
  cr_assert_eq(fseek(f, (root - 1) * page, SEEK_SET), 0);
  cr_assert_eq(fread(h, 1, 8, f), 8);
  cr_assert_eq(h[0], 13, "a leaf table page");
  unsigned start = (unsigned)h[5] << 8 | h[6];
  start += 40;
  h[5] = (unsigned char)(start >> 8), h[6] = (unsigned char)start;
  cr_assert_eq(fseek(f, (root - 1) * page, SEEK_SET), 0);
  cr_assert_eq(fwrite(h, 1, 8, f), 8);
  fclose(f);
  long n0, n1;
  char *before = slurp(db, &n0);
  cr_assert_eq(lbs_results_save(db, &r, "t.lbt", "g.ini"), LBS_CORRUPT);
  cr_assert(strstr(lbs_errmsg(), "r.db: a damaged results store"), "%s", lbs_errmsg());
  char *after = slurp(db, &n1);
  cr_assert(n0 == n1 && !memcmp(before, after, (size_t)n0), "a refused save changed the file");
  free(before), free(after), free(db);
  tu_rmrf(dir);
}

/* What is not a results store is refused too, and left as it was. */
Test(results, other_files_are_refused) {
  char *dir = tu_tmpdir(), *db = tu_path(dir, "x.db");
  lbs_replay_result r = run();
  tu_write(db,
           "not a database, but text of some length to look like one.............................");
  cr_assert_eq(lbs_results_save(db, &r, NULL, NULL), LBS_FORMAT);
  sqlite3 *s;
  cr_assert_eq(remove(db), 0);
  cr_assert_eq(sqlite3_open(db, &s), SQLITE_OK);
  cr_assert_eq(sqlite3_exec(s, "CREATE TABLE mine(x)", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(s);
  cr_assert_eq(lbs_results_save(db, &r, NULL, NULL), LBS_FORMAT);
  cr_assert(strstr(lbs_errmsg(), "not an lbsim results store"), "%s", lbs_errmsg());
  cr_assert_eq(query(db, "SELECT count(*) FROM sqlite_master"), 1);
  free(db);
  tu_rmrf(dir);
}

/* The rows went in by position: a store whose runs table has its columns in another order
 * (fuzz_results made one with two columns run together and another split) got each value in
 * the wrong column and no error. They go in by name: the order does not matter, and a store
 * that lacks a column is refused and left as it was. */
static void make_store(const char *path, const char *runs_columns) {
  sqlite3 *s;
  char sql[1024];
  snprintf(sql, sizeof sql, "PRAGMA application_id=1279415122; CREATE TABLE runs(%s);",
           runs_columns);
  cr_assert_eq(sqlite3_open(path, &s), SQLITE_OK);
  cr_assert_eq(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(s));
  sqlite3_close(s);
}

Test(results, rows_go_in_by_column_name) {
  char *dir = tu_tmpdir(), *db = tu_path(dir, "r.db"), *bad = tu_path(dir, "bad.db");
  lbs_replay_result r = run();
  make_store(
      db,
      "id INTEGER PRIMARY KEY, grid TEXT, trace TEXT, metric TEXT, partitioner TEXT, policy TEXT,"
      " elements INTEGER, mode TEXT, steps INTEGER, procs INTEGER, total_time_s REAL, compute_time_s REAL,"
      " comm_time_s REAL, partition_time_s REAL, migration_time_s REAL, repartitions INTEGER,"
      " mean_imbalance REAL, max_imbalance REAL, mean_loadimb REAL, moved_elements INTEGER, wall_s REAL");
  cr_assert_eq(lbs_results_save(db, &r, "t.lbt", "g.ini"), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(
      query(db,
            "SELECT count(*) FROM runs WHERE trace = 't.lbt' AND grid = 'g.ini' AND mode = 'bsp'"
            " AND elements = 4 AND steps = 3 AND procs = 2"),
      1);
  make_store(
      bad,
      "id INTEGER PRIMARY KEY, trace TEXT, grid TEXT, metric TEXT, partitioner TEXT, policy TEXT,"
      " modesqlite_seqlements INTEGER, steps INTEGER, procs INTEGER, total_time_s REAL, compute_time_s REAL,"
      " comm_time_s REAL, partition_time_s REAL, migration_time_s REAL, repartitions INTEGER,"
      " mean_imbalance REAL, max_imbalance REAL, mean_loadimb REAL, moved_elements INTEGER, wall_s REAL, x");
  long n0, n1;
  char *before = slurp(bad, &n0);
  cr_assert_eq(lbs_results_save(bad, &r, "t.lbt", "g.ini"), LBS_DB);
  cr_assert(strstr(lbs_errmsg(), "no column named mode"), "%s", lbs_errmsg());
  char *after = slurp(bad, &n1);
  cr_assert(n0 == n1 && !memcmp(before, after, (size_t)n0), "a refused save changed the file");
  free(before), free(after), free(db), free(bad);
  tu_rmrf(dir);
}

/* Schema 2: a run saved with its study keeps its provenance, the study is written once, and
 * each step carries what it was charged (communication in bsp: the step beyond its slowest
 * compute; partitioning and migration at the repartition's step). */
Test(results, provenance_and_per_step_costs_are_kept) {
  char *dir = tu_tmpdir(), *db = tu_path(dir, "r.db");
  lbs_replay_result r = run();
  static int64_t sstep[2] = {0, 2};
  static double sval[2] = {1, 2};
  r.series_step = sstep, r.series_value = sval, r.nseries = 2;
  lbs_study_info si = {.id = "s1",
                       .kind = "policy compare",
                       .command = "lbsim policy compare x",
                       .version = "9.9",
                       .host = "h",
                       .started = "2026-01-01T00:00:00Z"};
  lbs_run_info ri = {.trace = "t.lbt",
                     .grid = "g.ini",
                     .trace_hash = "ab",
                     .grid_hash = "cd",
                     .cost = "model",
                     .overrides = "grid.x=1\ngrid.y=2",
                     .config = "[grid]\nx = 1\n",
                     .labels = "{\"policy\":\"fixed:1\"}",
                     .task = 7,
                     .optimum_s = 2e-6,
                     .gap_to_optimal = 0.425};
  lbs_replay_result *rs[2] = {&r, &r};
  lbs_run_info ris[2] = {ri, ri};
  int64_t ids[2] = {0, 0};
  cr_assert_eq(lbs_results_save_study(db, &si, rs, ris, 2, ids), LBS_OK, "%s", lbs_errmsg());
  cr_assert(ids[0] > 0 && ids[1] == ids[0] + 1);
  cr_assert_eq(lbs_results_save_study(db, &si, rs, ris, 1, NULL), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(query(db, "PRAGMA user_version"), 5);
  cr_assert_eq(
      query(
          db,
          "SELECT count(*) FROM studies WHERE id = 's1' AND kind = 'policy compare' AND version = '9.9'"),
      1);
  cr_assert_eq(
      query(
          db,
          "SELECT count(*) FROM runs WHERE study = 's1' AND task = 7 AND cost = 'model' AND trace_hash = 'ab'"
          " AND overrides = 'grid.x=1' || char(10) || 'grid.y=2' AND config LIKE '[grid]%'"
          " AND abs(gap_to_optimal - 0.425) < 1e-12 AND command = 'lbsim policy compare x'"
          " AND labels = '{\"policy\":\"fixed:1\"}' AND created IS NOT NULL"),
      3);
  cr_assert_eq(query(db, "SELECT sum(comm_ns) FROM steps WHERE run = 1"), 600);
  cr_assert_eq(
      query(db, "SELECT partition_ns * 1000 + migration_ns FROM steps WHERE run = 1 AND step = 1"),
      50040);
  cr_assert_eq(
      query(db, "SELECT sum(partition_ns + migration_ns) FROM steps WHERE run = 1 AND step <> 1"),
      0);
  cr_assert_eq(query(db, "SELECT sum(step * 10 + value) FROM series WHERE run = 2"), 23);
  uint8_t done[10] = {0};
  cr_assert_eq(lbs_results_study_tasks(db, "s1", done, 10), LBS_OK, "%s", lbs_errmsg());
  for (int t = 0; t < 10; t++) cr_assert_eq(done[t], t == 7);
  free(db);
  tu_rmrf(dir);
}

/* A schema-1 store (no user_version, no provenance columns) is upgraded by the next save
 * and keeps its runs; a store a newer lbsim wrote is refused and left as it was. */
Test(results, schema_1_is_upgraded_and_a_newer_schema_refused) {
  char *dir = tu_tmpdir(), *db = tu_path(dir, "r.db"), *newer = tu_path(dir, "n.db");
  lbs_replay_result r = run();
  sqlite3 *s;
  make_schema1(db);
  lbs_results *rd;
  cr_assert_eq(lbs_results_open(db, &rd), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_results_version(rd), 1);
  cr_assert_not(lbs_results_has_column(rd, "runs", "study"));
  lbs_results_close(&rd);
  cr_assert_eq(lbs_results_save(db, &r, "t.lbt", "g.ini"), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(query(db, "PRAGMA user_version"), 5);
  cr_assert_eq(query(db, "SELECT count(*) FROM runs WHERE trace = 'old.lbt' AND study IS NULL"), 1);
  cr_assert_eq(query(db, "SELECT count(*) FROM steps WHERE comm_ns = 200"), 3);
  cr_assert_eq(lbs_results_save(newer, &r, "t.lbt", "g.ini"), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(sqlite3_open(newer, &s), SQLITE_OK);
  cr_assert_eq(sqlite3_exec(s, "PRAGMA user_version=6", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(s);
  long n0, n1;
  char *before = slurp(newer, &n0);
  cr_assert_eq(lbs_results_save(newer, &r, "t.lbt", "g.ini"), LBS_VERSION);
  cr_assert(strstr(lbs_errmsg(), "results schema version 6, this lbsim reads versions 1 to 5"),
            "%s", lbs_errmsg());
  cr_assert_eq(lbs_results_open(newer, &rd), LBS_VERSION);
  char *after = slurp(newer, &n1);
  cr_assert(n0 == n1 && !memcmp(before, after, (size_t)n0), "a refused save changed the file");
  free(before), free(after), free(db), free(newer);
  tu_rmrf(dir);
}

/* A schema-2 store (no partition_mode, no ranks) is read as it is and upgraded by the next
 * save, its runs kept with the new columns NULL, schema 4's table validation_pairs added, and
 * schema 5's des_overlap written for des runs. */
Test(results, schema_2_is_upgraded) {
  char *dir = tu_tmpdir(), *db = tu_path(dir, "r.db");
  lbs_replay_result r = run();
  r.ranks = 2;
  make_schema2(db, &r);
  lbs_results *rd;
  cr_assert_eq(lbs_results_open(db, &rd), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_results_version(rd), 2);
  cr_assert(lbs_results_has_column(rd, "runs", "study") &&
            !lbs_results_has_column(rd, "runs", "ranks"));
  lbs_results_close(&rd);
  cr_assert_eq(query(db, "PRAGMA user_version"), 2, "reading does not upgrade");
  r.mode = LBS_MODE_DES, r.des_shared = 1;
  cr_assert_eq(lbs_results_save(db, &r, "t.lbt", "g.ini"), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(query(db, "PRAGMA user_version"), 5);
  cr_assert_eq(query(db, "SELECT count(*) FROM runs WHERE des_overlap IS NULL AND id = 1"), 1,
               "the old run: NULL");
  cr_assert_eq(query(db, "SELECT count(*) FROM runs WHERE des_overlap = 'shared' AND id = 2"), 1,
               "a des run whose steps shared the network says so");
  r.des_shared = 0;
  cr_assert_eq(lbs_results_save(db, &r, "t.lbt", "g.ini"), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(query(db, "SELECT count(*) FROM runs WHERE des_overlap = 'ordered' AND id = 3"), 1);
  r.mode = LBS_MODE_BSP;
  cr_assert_eq(
      query(db,
            "SELECT count(*) FROM runs WHERE ranks IS NULL AND partition_mode IS NULL AND id = 1"),
      1);
  cr_assert_eq(
      query(db,
            "SELECT count(*) FROM runs WHERE ranks = 2 AND partition_mode IS NOT NULL AND id = 2"),
      1);
  cr_assert_eq(
      query(
          db,
          "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'validation_pairs'"),
      1);
  cr_assert_eq(lbs_results_open(db, &rd), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_results_version(rd), 5);
  lbs_results_close(&rd);
  free(db);
  tu_rmrf(dir);
}
