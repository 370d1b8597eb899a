/* mpi_sweep.c - the sweep's task farm (lbs_sweep_run, study/sweep.c) on 1 and 2 ranks (CTest
 * compares the outputs): every task runs once and is stored once, whichever rank takes it; a
 * farm started again over the same store resumes everything and runs nothing; the runs taken
 * out of the store, and only they, run again; a task that fails is told on the rank that ran
 * it, counted on every rank, agreed as the farm's error, and the other tasks still run. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbs_grid.h"
#include "lbs_mpi.h"
#include "lbs_sweep.h"
#include "mpi_check.h"

static char dir[64], results[128];

/* Rank 0 writes the inputs into a fresh directory every rank learns. */
static void inputs(void) {
  int ok = 1;
  if (check_rank == 0) {
    snprintf(dir, sizeof dir, "/tmp/lbs_mpi_sweep_XXXXXX");
    if (!mkdtemp(dir)) abort();
    char p[256];
    snprintf(p, sizeof p, "%s/t.lbt", dir);
    lbs_gen_params gp = {"bump", 8, 4, 2, 10, 1, {0, 0, 0}};
    ok = lbs_gen_write(&gp, LBS_ORDER_NATURAL, p, NULL, NULL) == LBS_OK;
    lbs_buf b = {0};
    ok = ok && lbs_grid_family_ini("HO", 4, 2, 1, 10, 10, &b) == LBS_OK;
    snprintf(p, sizeof p, "%s/g.ini", dir);
    FILE *f = fopen(p, "w");
    fputs((const char *)b.data, f);
    fclose(f);
    lbs_buf_free(&b);
    snprintf(p, sizeof p, "%s/s.ini", dir);
    f = fopen(p, "w");
    fputs("[study]\nname = farm\ntraces = t.lbt\ngrids = g.ini, gen:UP:4:2:2\npolicies = none, "
          "fixed:3\n"
          "[overrides]\ngrid.barrier_us = 1, 5\n",
          f);
    fclose(f);
    snprintf(p, sizeof p, "%s/bad.ini", dir);
    f = fopen(p, "w");
    fputs(
        "[study]\nname = bad\ntraces = t.lbt\ngrids = g.ini\npolicies = none, optimal:2, fixed:4\n",
        f);
    fclose(f);
  }
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK(ok, "the inputs written");
  snprintf(results, sizeof results, "%s/r.db", dir);
}

/* One number from the store, read on every rank (waiting, as the store's readers do, while the
 * other rank writes). */
static long long query(const char *sql) {
  sqlite3 *db;
  sqlite3_stmt *q;
  long long v = -1;
  if (sqlite3_open_v2(results, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_busy_timeout(db, 30000) == SQLITE_OK &&
      sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK) {
    if (sqlite3_step(q) == SQLITE_ROW) v = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
  }
  sqlite3_close(db);
  return v;
}

static int64_t last_done = -1; /* rank 0's progress */
static int progress(void *arg, int64_t done, int64_t total) {
  (void)arg, (void)total;
  last_done = done;
  return 0;
}
static int told, told_task = -1; /* this rank's failed tasks, and the last one */
static void failed(void *arg, const lbs_sweep *s, int64_t t, lbs_err e) {
  (void)arg, (void)s, (void)e;
  told_task = (int)t;
  told++;
}

/* A farm over the store: rank 0 reads what it holds; every rank learns the outcome. */
static lbs_err farm(const lbs_sweep *s, lbs_sweep_farm *f) {
  uint8_t *done = calloc((size_t)s->ntasks, 1);
  int64_t ndone = 0;
  lbs_err e = check_rank == 0 ? lbs_sweep_done(s, results, done, &ndone) : LBS_OK;
  CHECK(lbs_mpi_agree(MPI_COMM_WORLD, e) == LBS_OK, "done: %s", lbs_errmsg());
  *f = (lbs_sweep_farm){.progress = progress, .failed = failed};
  last_done = -1;
  e = lbs_sweep_run(s, results, done, MPI_COMM_WORLD, f);
  MPI_Bcast(&last_done, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  free(done);
  return e;
}

/* Loads a study on every rank, agreed; p (256 bytes) holds its path while s lives. */
static void load(lbs_sweep *s, const char *name, char *p) {
  snprintf(p, 256, "%s/%s", dir, name);
  int tell;
  lbs_err e = lbs_sweep_load(s, p);
  CHECK(lbs_sweep_agree(s, e, MPI_COMM_WORLD, &tell) == LBS_OK && !tell, "load: %s", lbs_errmsg());
  CHECK(lbs_sweep_inputs(s, results, check_rank == 0, NULL, NULL) == LBS_OK, "inputs");
}

static void resume(void) {
  lbs_sweep s;
  char path[256];
  load(&s, "s.ini", path);
  CHECK(s.ntasks == 8, "8 tasks, not %lld", (long long)s.ntasks);
  lbs_sweep_farm f;
  CHECK(farm(&s, &f) == LBS_OK, "first farm: %s", lbs_errmsg());
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(f.failures == 0 && f.resumed == 0, "failures %d, resumed %lld", f.failures,
        (long long)f.resumed);
  CHECK(query("SELECT count(*) FROM runs") == 8, "8 runs stored");
  CHECK(query("SELECT count(DISTINCT task) FROM runs") == 8, "one run per task");
  CHECK(query("SELECT count(*) FROM studies WHERE kind = 'sweep' AND tasks = 8") == 1,
        "the study's row");
  CHECK(last_done == 8, "progress ends at 8 of 8, not %lld", (long long)last_done);
  if (check_rank == 0)
    printf("first farm: %lld runs of %lld tasks\n", query("SELECT count(*) FROM runs"),
           (long long)s.ntasks);
  CHECK(farm(&s, &f) == LBS_OK && f.resumed == 8, "second farm resumes all: %lld",
        (long long)f.resumed);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(query("SELECT count(*) FROM runs") == 8, "nothing ran again");
  MPI_Barrier(MPI_COMM_WORLD); /* every rank has read before rank 0 writes */
  int ok = 1;
  if (check_rank == 0) {
    sqlite3 *db;
    sqlite3_open(results, &db);
    /* a run and its rows (a new run may take a removed one's id) */
    ok = sqlite3_exec(
             db,
             "CREATE TEMP TABLE gone AS SELECT id FROM runs WHERE task IN (2, 5);"
             "DELETE FROM steps WHERE run IN gone; DELETE FROM procs WHERE run IN gone;"
             "DELETE FROM repartitions WHERE run IN gone; DELETE FROM assignment WHERE run IN gone;"
             "DELETE FROM series WHERE run IN gone; DELETE FROM runs WHERE id IN gone;",
             NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_close(db);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK(ok, "two runs taken out");
  CHECK(farm(&s, &f) == LBS_OK && f.resumed == 6, "third farm resumes 6: %lld",
        (long long)f.resumed);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(query("SELECT count(*) FROM runs") == 8 &&
            query("SELECT count(DISTINCT task) FROM runs") == 8,
        "the two taken out ran again, alone");
  if (check_rank == 0)
    printf("resumed: %lld runs of %lld tasks\n", query("SELECT count(*) FROM runs"),
           (long long)s.ntasks);
  lbs_sweep_free(&s);
  MPI_Barrier(MPI_COMM_WORLD); /* every rank has read before the next study writes */
}

static void failure(void) {
  lbs_sweep s;
  char path[256];
  load(&s, "bad.ini", path);
  lbs_sweep_farm f;
  told = 0;
  lbs_err e = farm(&s, &f);
  MPI_Barrier(MPI_COMM_WORLD);
  int all = 0, task = -1;
  MPI_Allreduce(&told, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&told_task, &task, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(task == 1, "the failing task is task 1, not %d", task);
  CHECK(e != LBS_OK && strstr(lbs_errmsg(), "bound of 2"), "the farm's error on every rank: %s",
        lbs_errmsg());
  CHECK(f.failures == 1 && all == 1, "one failure, told once: %d, %d", f.failures, all);
  CHECK(query("SELECT count(*) FROM runs r JOIN studies s ON r.study = s.id WHERE s.kind = 'sweep' "
              "AND s.tasks = 3") == 2,
        "the other tasks ran");
  if (check_rank == 0)
    printf("failing task: %d failure, %lld runs of %lld tasks\n", f.failures,
           query("SELECT count(*) FROM runs r JOIN studies s ON r.study = s.id WHERE s.tasks = 3"),
           (long long)s.ntasks);
  lbs_sweep_free(&s);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
  inputs();
  resume();
  failure();
  MPI_Barrier(MPI_COMM_WORLD);
  check_remove_dir(dir);
  int rc = check_finish();
  MPI_Finalize();
  return rc;
}
