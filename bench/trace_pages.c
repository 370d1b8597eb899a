/* bench/trace_pages - a trace's file bytes against its blob bytes, as the writer leaves it (small
 * traces compacted into small pages as it closes, traces/store.c compact()) against the same
 * rows in the 4 KiB pages every trace had before (a copy of the file rewritten with
 * `PRAGMA page_size=4096; VACUUM`), side by side for each trace given:
 *  - file bytes / blob bytes (chunks and arrays), both layouts;
 *  - reading every chunk of every step and metric (decoded), best of 7 rounds, both layouts;
 *  - reading 1% of a step (the middle elements of every step), best of 7 rounds, both layouts
 *    (the rounds alternate between the layouts);
 *  - the cost of the compaction itself: the 4 KiB copy rewritten in the pages the writer's close
 *    chooses (512 bytes up to 1 MiB, 1024 above), as it does.
 * Usage: bench_trace_pages TRACE... (bench/trace_pages.sh records real profiles for it). No
 * pass/fail. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lbs_traces.h"

#define REPS 7

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, const char *msg) {
  fprintf(stderr, "bench_trace_pages: %s: %s\n", what, msg);
  exit(1);
}

/* Copies file src to dst. */
static void copy(const char *src, const char *dst) {
  FILE *a = fopen(src, "rb"), *b = fopen(dst, "wb");
  if (!a || !b) die(src, "cannot copy");
  char buf[1 << 16];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, a)) > 0)
    if (fwrite(buf, 1, n, b) != n) die(dst, "cannot write");
  fclose(a);
  if (fclose(b)) die(dst, "cannot write");
}

/* Runs sql on the file at path; its wall time in seconds. */
static double run_sql(const char *path, const char *sql) {
  sqlite3 *db;
  if (sqlite3_open(path, &db)) die(path, "cannot open");
  double t0 = now();
  if (sqlite3_exec(db, sql, NULL, NULL, NULL)) die(path, sqlite3_errmsg(db));
  double t = now() - t0;
  sqlite3_close(db);
  return t;
}

typedef struct {
  lbs_trace *t;
  double file, blobs, all_s, part_s;
  int page;
} fig;

/* Opens the trace at path: its sizes and page size; times start at +inf. */
static fig measure_open(const char *path) {
  fig f = {NULL, 0, 0, 1e30, 1e30, 0};
  if (lbs_trace_open(path, &f.t)) die(path, lbs_errmsg());
  f.file = (double)lbs_trace_file_bytes(f.t);
  lbs_trace_stats st;
  if (lbs_trace_get_stats(f.t, -1, &st)) die(path, lbs_errmsg());
  f.blobs = (double)st.stored_bytes;
  sqlite3 *db;
  sqlite3_stmt *q;
  if (sqlite3_open(path, &db) || sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &q, NULL) ||
      sqlite3_step(q) != SQLITE_ROW)
    die(path, "page size");
  f.page = sqlite3_column_int(q, 0);
  sqlite3_finalize(q);
  /* the arrays (events, owners, mesh) are blobs too */
  if (sqlite3_prepare_v2(db, "SELECT total(length(data)) FROM arrays", -1, &q, NULL) ||
      sqlite3_step(q) != SQLITE_ROW)
    die(path, "arrays");
  f.blobs += sqlite3_column_double(q, 0);
  sqlite3_finalize(q);
  sqlite3_close(db);
  return f;
}

/* One round: every step and metric read whole, then 1% of every step; keeps the best times. */
static void measure_round(fig *f, double *v) {
  lbs_trace *t = f->t;
  int64_t E = lbs_trace_elements(t), S = lbs_trace_steps(t), n = E / 100 ? E / 100 : 1;
  int nm = lbs_trace_nmetrics(t);
  double t0 = now();
  for (int64_t s = 0; s < S; s++)
    for (int m = 0; m < nm; m++)
      if (lbs_trace_read(t, s, m, 0, E, v)) die("read", lbs_errmsg());
  double t1 = now();
  for (int64_t s = 0; s < S; s++)
    if (lbs_trace_read(t, s, 0, (E - n) / 2, n, v)) die("read", lbs_errmsg());
  double t2 = now();
  if (t1 - t0 < f->all_s) f->all_s = t1 - t0;
  if ((t2 - t1) / (double)S < f->part_s) f->part_s = (t2 - t1) / (double)S;
}

int main(int argc, char **argv) {
  if (argc < 2) die("usage", "bench_trace_pages TRACE...");
  printf("%-34s %9s %15s %6s  %9s %6s  %9s %9s  %7s %7s  %8s\n", "trace (elements x steps)",
         "blobs B", "file B", "file/", "4K file B", "file/", "read all", "4K", "1% ms", "4K",
         "compact");
  printf("%-34s %9s %15s %6s  %9s %6s  %9s %9s  %7s %7s  %8s\n", "", "", "(page)", "blobs", "",
         "blobs", "ms", "ms", "", "ms", "ms");
  for (int i = 1; i < argc; i++) {
    char base[4096], again[4096];
    snprintf(base, sizeof base, "%s.4k", argv[i]);
    snprintf(again, sizeof again, "%s.again", argv[i]);
    copy(argv[i], base);
    run_sql(base, "PRAGMA page_size=4096; VACUUM;");
    copy(base, again);
    FILE *fb = fopen(base, "rb");
    if (!fb || fseek(fb, 0, SEEK_END)) die(base, "cannot read");
    long bytes = ftell(fb);
    fclose(fb);
    /* the writer's choice (traces/store.c compact()) */
    double compact_s = run_sql(again, bytes <= (1 << 20) ? "PRAGMA page_size=512; VACUUM;"
                                                         : "PRAGMA page_size=1024; VACUUM;");
    remove(again);
    /* the two layouts in alternating rounds, so that a busy machine slows both alike */
    fig a = measure_open(argv[i]), b = measure_open(base);
    double *v = malloc((size_t)lbs_trace_elements(a.t) * sizeof *v);
    if (!v) die(argv[i], "out of memory");
    for (int r = 0; r < REPS; r++) measure_round(&a, v), measure_round(&b, v);
    free(v);
    char name[64];
    const char *slash = strrchr(argv[i], '/');
    snprintf(name, sizeof name, "%s (%lld x %lld)", slash ? slash + 1 : argv[i],
             (long long)lbs_trace_elements(a.t), (long long)lbs_trace_steps(a.t));
    lbs_trace_close(&a.t);
    lbs_trace_close(&b.t);
    remove(base);
    char file[32];
    snprintf(file, sizeof file, "%.0f (%d)", a.file, a.page);
    printf("%-34s %9.0f %15s %6.3f  %9.0f %6.3f  %9.2f %9.2f  %7.4f %7.4f  %8.1f\n", name, a.blobs,
           file, a.file / a.blobs, b.file, b.file / b.blobs, a.all_s * 1e3, b.all_s * 1e3,
           a.part_s * 1e3, b.part_s * 1e3, compact_s * 1e3);
  }
  return 0;
}
