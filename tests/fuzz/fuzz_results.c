/* libFuzzer: `lbsim replay --results FILE` appending to whatever FILE holds, then `lbsim results`
 * and `lbsim report` reading it.
 * Input: the file's bytes (none: no file, the store is created), optionally followed by
 * "@@LBS-SIDE" and 'w' or 'j' and the bytes of a -wal or -journal file left beside it (a stale
 * -shm is always removed, as the reader fuzzer does). lbs_results_save appends a small real
 * run, then every reader of lbs_results reads the file, whole and narrowed to a study. When the
 * save succeeds the file must be a results store holding that run, which the runs reader finds;
 * when it fails on a file with no side file, the file must be as it was after the save and the
 * readers (one transaction: nothing on failure; reading never writes). A reader may refuse what
 * it reads, never crash, leak or hang. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbs_study.h"

static char path[64];
static const char *const sfx[] = {"-wal", "-shm", "-journal"};

static void remove_all(void) {
  char side[80];
  remove(path);
  for (int i = 0; i < 3; i++) {
    snprintf(side, sizeof side, "%s%s", path, sfx[i]);
    remove(side);
  }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  snprintf(path, sizeof path, "/tmp/lbs_fuzz_results_%d.db", (int)getpid());
  atexit(remove_all);
  return 0;
}

static int write_file(const char *p, const uint8_t *d, size_t n) {
  FILE *f = fopen(p, "wb");
  if (!f) return -1;
  int bad = fwrite(d, 1, n, f) != n;
  return fclose(f) || bad ? -1 : 0;
}

/* What the file holds now, or NULL (len 0) when it is gone. */
static uint8_t *slurp(const char *p, size_t *len) {
  *len = 0;
  FILE *f = fopen(p, "rb");
  if (!f) return NULL;
  uint8_t *b = NULL;
  size_t cap = 0;
  for (;;) {
    if (*len == cap && !(b = realloc(b, cap = 2 * cap + 4096))) abort();
    size_t got = fread(b + *len, 1, cap - *len, f);
    if (!got) break;
    *len += got;
  }
  fclose(f);
  return b;
}

/* A run of 3 steps on 2 processors with one repartition and the assignment of 4 elements,
 * as lbs_replay fills it. */
static void make_run(lbs_replay_result *r) {
  static int64_t app[3] = {0, 10, 20}, step_ns[3] = {1000, 900, 950}, comp[3] = {800, 700, 750},
                 excess[3] = {100, 50, 60}, proc_ns[6] = {800, 600, 700, 700, 750, 740};
  static double imb[3] = {0.25, 0.0, 0.01}, limb[3] = {1.33, 1.0, 1.01};
  static int rep[3] = {0, 1, 0}, assign[8] = {0, 0, 1, 1, 0, 1, 0, 1};
  static lbs_repart_rec rr[1] = {{1, 50, 40, 2, 2048, 1e-4, 1.02, 0}};
  *r = (lbs_replay_result){.metric = "time_ns",
                           .partitioner = "zoltan:rcb",
                           .policy = "fixed:1",
                           .mode = LBS_MODE_BSP,
                           .elements = 4,
                           .steps = 3,
                           .first_step = 0,
                           .procs = 2,
                           .total_ns = 2850,
                           .compute_ns = 2250,
                           .comm_ns = 510,
                           .partition_ns = 50,
                           .migration_ns = 40,
                           .moved = 2,
                           .mean_imbalance = 0.0867,
                           .max_imbalance = 0.25,
                           .mean_loadimb = 1.113,
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
                           .assign = assign,
                           .wall_s = 0.01,
                           .optimum_ns = -1};
}

/* The file is a results store and holds the run just saved. */
static void check_store(void) {
  sqlite3 *db;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL)) abort();
  sqlite3_stmt *q;
  int64_t app = 0, runs = 0;
  if (sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &q, NULL) == SQLITE_OK &&
      sqlite3_step(q) == SQLITE_ROW)
    app = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  if (sqlite3_prepare_v2(db,
                         "SELECT count(*) FROM runs WHERE partitioner = 'zoltan:rcb' AND steps = 3",
                         -1, &q, NULL) == SQLITE_OK &&
      sqlite3_step(q) == SQLITE_ROW)
    runs = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  sqlite3_close(db);
  if (app != 0x4C425352 || runs < 1) abort();
}

/* Counts what a callback reader hands over. */
static lbs_err count_step(void *arg, const lbs_results_step *s) {
  (void)s;
  ++*(int64_t *)arg;
  return LBS_OK;
}

static lbs_err count_proc(void *arg, const lbs_results_proc *p) {
  (void)p;
  ++*(int64_t *)arg;
  return LBS_OK;
}

static lbs_err count_repart(void *arg, const lbs_results_repart *r) {
  (void)r;
  ++*(int64_t *)arg;
  return LBS_OK;
}

static lbs_err count_point(void *arg, const lbs_results_point *p) {
  (void)p;
  ++*(int64_t *)arg;
  return LBS_OK;
}

static lbs_err count_row(void *arg, int n, const char *const *names, const lbs_results_val *row) {
  for (int k = 0; row && k < n; k++)
    if (!names[k] || (row[k].type == LBS_RV_TEXT && !row[k].s)) abort();
  ++*(int64_t *)arg;
  return LBS_OK;
}

/* Every reader over the store, narrowed to study when it is not NULL. */
static void read_study(lbs_results *h, const char *study) {
  const lbs_results_study *st;
  const lbs_results_partition *p;
  const lbs_results_validation *v;
  const lbs_results_config *c;
  int64_t n, rows = 0;
  lbs_results_studies(h, study, &st, &n);
  lbs_results_partitions(h, study, &p, &n);
  lbs_results_validations(h, study, &v, &n);
  for (int64_t i = 0; i < n; i++) /* every measurement read: the sanitizer sees a bad pointer */
    for (int64_t k = 0; k < v[i].nmeasured; k++) rows += v[i].measured_s[k] == v[i].measured_s[k];
  lbs_results_configs(h, study, &c, &n);
  lbs_results_series(h, study, count_point, &rows);
  for (const char *const *t = lbs_results_tables(); *t; t++) {
    lbs_results_count(h, *t, study, &n);
    lbs_results_table(h, *t, study, count_row, &rows);
  }
}

/* The readers over whatever the file holds: 1 when the runs reader finds the run saved, 0 when
 * it reads the runs without it, -1 when the file or its runs are refused. */
static int read_all(void) {
  lbs_results *h;
  if (lbs_results_open(path, &h)) return -1;
  const lbs_results_run *r;
  int64_t n, rows = 0;
  int found = -1, stop = 0;
  if (!lbs_results_runs(h, NULL, LBS_RESULTS_BY_STUDY, &r, &n))
    for (int64_t i = found = 0; i < n; i++)
      found |= r[i].partitioner && !strcmp(r[i].partitioner, "zoltan:rcb") && r[i].steps == 3;
  /* each run's rows, until a reader refuses what it meets (a store that passed the save's quick
     check may still hold a page these reads find damaged) */
  for (int64_t i = 0; found >= 0 && i < n && !stop; i++)
    stop = lbs_results_steps(h, r[i].id, count_step, &rows) ||
           lbs_results_procs(h, r[i].id, count_proc, &rows) ||
           lbs_results_reparts(h, r[i].id, count_repart, &rows);
  read_study(h, NULL);
  const lbs_results_study *st;
  if (!lbs_results_studies(h, NULL, &st, &n) && n > 0 && st[0].id) {
    int has = 0;
    lbs_results_has_study(h, st[0].id, &has);
    read_study(h, st[0].id);
    lbs_results_runs(h, st[0].id, LBS_RESULTS_BY_ID, &r, &n);
  }
  lbs_results_close(&h);
  return found;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  remove_all();
  const uint8_t *side = memmem(data, size, "@@LBS-SIDE", 10);
  size_t dl = side ? (size_t)(side - data) : size;
  if (dl && write_file(path, data, dl)) return 0;
  if (side && side + 10 < data + size) {
    char sp[80];
    snprintf(sp, sizeof sp, "%s%s", path, side[10] == 'w' ? "-wal" : "-journal");
    if (write_file(sp, side + 11, (size_t)(data + size - side - 11))) return 0;
  }
  lbs_replay_result r;
  make_run(&r);
  lbs_err e = lbs_results_save(path, &r, "fuzz.lbt", "fuzz.ini");
  int found = read_all();
  if (e == LBS_OK) {
    check_store();
    if (found == 0) abort(); /* the runs reader lost the run SQLite finds */
  } else if (!side) {
    size_t len;
    uint8_t *now = slurp(path, &len);
    if (len != dl || (dl && memcmp(now, data, dl))) abort(); /* a failed save changed the file */
    free(now);
  }
  remove_all();
  return 0;
}
