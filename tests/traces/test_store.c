/* The SQLite trace store: round trips within every bound kind with chunk sums kept, partial
 * decode, random access in both directions, bad files of every kind, schema 1 files, and a
 * writer killed with SIGKILL in a real child process. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lbs_traces.h"
#include "testutil.h"
#include "traces_int.h"

/* Writes a generated trace; returns the generator (caller destroys). */
static lbs_bound bound(const char *s) {
  lbs_bound b;
  cr_assert_eq(lbs_bound_parse(s, &b), LBS_OK, "%s", lbs_errmsg());
  return b;
}

static lbs_gen *make_trace(const char *path, const char *kind, int64_t nx, int64_t ny, int64_t nz,
                           int64_t steps, const char *bnd, lbs_order order, int64_t chunk) {
  lbs_gen_params gp = {kind, nx, ny, nz, steps, 5, {0, 0, 0}};
  lbs_gen *g;
  lbs_mesh *mesh;
  cr_assert_eq(lbs_gen_create(&gp, &g), LBS_OK);
  cr_assert_eq(lbs_mesh_create_structured(nx, ny, nz, order, &mesh), LBS_OK);
  int nm = lbs_gen_nmetrics(g);
  lbs_metric_spec ms[2];
  for (int m = 0; m < nm; m++)
    ms[m] = (lbs_metric_spec){
        lbs_gen_metric_name(g, m), lbs_gen_metric_unit(g, m), LBS_CODEC_AUTO, bound(bnd), {0, 0}};
  const char *meta[] = {"source", lbs_gen_recipe(g)};
  int64_t E = nx * ny * nz;
  lbs_trace_spec spec = {E, chunk, nm, ms, mesh, 1, meta};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(path, &spec, &w), LBS_OK, "%s", lbs_errmsg());
  double *v = malloc((size_t)(2 * E) * sizeof *v);
  const int64_t *cell = lbs_mesh_cell_index(mesh);
  for (int64_t s = 0; s < steps; s++) {
    const double *cols[2] = {v, v + E};
    for (int m = 0; m < nm; m++) lbs_gen_step(g, s, m, cell, v + m * E);
    cr_assert_eq(lbs_trace_write_step(w, 100 + 10 * s, cols), LBS_OK, "%s", lbs_errmsg());
  }
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK);
  free(v);
  lbs_mesh_destroy(&mesh);
  return g;
}

/* Every step, read in reverse order, is within the bound of the regenerated source, and every
 * chunk's sum within LBS_SUM_TOL of the source's. */
static void check_against_source(lbs_trace *t, lbs_gen *g) {
  int64_t E = lbs_trace_elements(t);
  double *src = malloc((size_t)E * sizeof *src), *dec = malloc((size_t)E * sizeof *dec);
  const int64_t *cell = lbs_mesh_cell_index(lbs_trace_mesh(t));
  for (int64_t s = lbs_trace_steps(t) - 1; s >= 0; s--)
    for (int m = 0; m < lbs_trace_nmetrics(t); m++) {
      lbs_metric_info mi;
      cr_assert_eq(lbs_trace_metric(t, m, &mi), LBS_OK);
      lbs_gen_step(g, s, m, cell, src);
      cr_assert_eq(lbs_trace_read(t, s, m, 0, E, dec), LBS_OK, "%s", lbs_errmsg());
      double lo = INFINITY, hi = -INFINITY;
      for (int64_t i = 0; i < E; i++) {
        lo = fmin(lo, src[i]);
        hi = fmax(hi, src[i]);
      }
      for (int64_t i = 0; i < E; i++)
        if (mi.bound.kind == LBS_BOUND_LOSSLESS)
          cr_assert(!memcmp(&dec[i], &src[i], 8), "step %lld element %lld not bit-exact",
                    (long long)s, (long long)i);
        else
          cr_assert(fabs(dec[i] - src[i]) <= lbs_bound_tolerance(mi.bound, src[i], hi - lo),
                    "step %lld metric %d element %lld", (long long)s, m, (long long)i);
      int64_t C = lbs_trace_chunk_elems(t);
      for (int64_t f = 0; f < E; f += C) {
        size_t n = (size_t)(E - f < C ? E - f : C);
        cr_assert(lbs_sum_error(src + f, dec + f, n) <= LBS_SUM_TOL, "step %lld chunk %lld: sum",
                  (long long)s, (long long)(f / C));
      }
    }
  free(src);
  free(dec);
}

Test(store, roundtrip_within_bound_any_order) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "t.lbt");
  lbs_gen *g = make_trace(p, "bump", 12, 10, 8, 30, "range:1e-3", LBS_ORDER_NATURAL, 256);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(p, &t), LBS_OK);
  cr_assert_eq(lbs_trace_elements(t), 960);
  cr_assert_eq(lbs_trace_steps(t), 30);
  cr_assert_eq(lbs_trace_nmetrics(t), 2);
  cr_assert_eq(lbs_trace_metric_find(t, "weight"), 1);
  cr_assert_eq(lbs_trace_metric_find(t, "nope"), -1);
  int64_t app;
  cr_assert_eq(lbs_trace_app_step(t, 29, &app), LBS_OK);
  cr_assert_eq(app, 390);
  cr_assert_str_eq(lbs_trace_meta(t, "source"), lbs_gen_recipe(g));
  check_against_source(t, g);
  lbs_trace_stats st;
  cr_assert_eq(lbs_trace_get_stats(t, -1, &st), LBS_OK);
  cr_assert(st.has_error);
  cr_assert_eq(st.chunks, 30 * 2 * 4);
  cr_assert(st.stored_bytes > 0 && st.stored_bytes < st.raw_bytes / 10, "ratio too low: %lld",
            (long long)st.stored_bytes);
  cr_assert_eq(lbs_trace_verify(t, NULL, NULL), LBS_OK, "%s", lbs_errmsg());
  lbs_trace_close(&t);
  lbs_gen_destroy(&g);
  free(p);
  tu_rmrf(dir);
}

Test(store, lossless_is_bit_exact_and_hilbert_order_survives) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "t.lbt");
  lbs_gen *g = make_trace(p, "random", 9, 7, 5, 4, "lossless", LBS_ORDER_HILBERT, 100);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(p, &t), LBS_OK);
  lbs_mesh *m = lbs_trace_mesh(t);
  cr_assert_eq(lbs_mesh_order(m), LBS_ORDER_HILBERT);
  int64_t *o = malloc(315 * sizeof *o);
  lbs_hilbert_order(9, 7, 5, o);
  cr_assert(!memcmp(o, lbs_mesh_cell_index(m), 315 * sizeof *o));
  check_against_source(t, g);
  free(o);
  lbs_trace_close(&t);
  lbs_gen_destroy(&g);
  free(p);
  tu_rmrf(dir);
}

Test(store, partial_decode_equals_slice_of_full) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "t.lbt");
  lbs_gen *g = make_trace(p, "hotspot", 20, 15, 3, 3, "rel:0.01", LBS_ORDER_NATURAL, 128);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(p, &t), LBS_OK);
  int64_t E = 900;
  double full[900], part[900];
  for (int64_t s = 2; s >= 0; s--) {
    cr_assert_eq(lbs_trace_read(t, s, 0, 0, E, full), LBS_OK);
    int64_t ranges[][2] = {{0, 1},   {127, 2}, {128, 128}, {5, 890},
                           {899, 1}, {300, 0}, {0, 900},   {250, 311}};
    for (int r = 0; r < 8; r++) {
      cr_assert_eq(lbs_trace_read(t, s, 0, ranges[r][0], ranges[r][1], part), LBS_OK);
      cr_assert(!memcmp(part, full + ranges[r][0], (size_t)ranges[r][1] * 8), "range %d", r);
    }
  }
  lbs_trace_close(&t);
  lbs_gen_destroy(&g);
  free(p);
  tu_rmrf(dir);
}

Test(store, out_of_range_requests) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "t.lbt");
  lbs_gen *g = make_trace(p, "random", 10, 10, 1, 2, "abs:10", LBS_ORDER_NATURAL, 0);
  lbs_trace *t;
  double v[200];
  cr_assert_eq(lbs_trace_open(p, &t), LBS_OK);
  cr_assert_eq(lbs_trace_read(t, 2, 0, 0, 1, v), LBS_RANGE);
  cr_assert(strstr(lbs_errmsg(), "step 2 out of range"), "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_read(t, -1, 0, 0, 1, v), LBS_RANGE);
  cr_assert_eq(lbs_trace_read(t, 0, 1, 0, 1, v), LBS_RANGE);
  cr_assert_eq(lbs_trace_read(t, 0, 0, 90, 11, v), LBS_RANGE);
  cr_assert_eq(lbs_trace_read(t, 0, 0, -1, 2, v), LBS_RANGE);
  int64_t a;
  cr_assert_eq(lbs_trace_app_step(t, 5, &a), LBS_RANGE);
  lbs_trace_close(&t);
  lbs_gen_destroy(&g);
  free(p);
  tu_rmrf(dir);
}

static void sql(const char *path, const char *q) {
  sqlite3 *db;
  cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
  cr_assert_eq(sqlite3_exec(db, q, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
  sqlite3_close(db);
}

/* Flips one bit of a chunk's stored blob, as a disk error would. */
static void flip_bit(const char *path, int64_t step, int metric, int64_t chunk, int byte) {
  sqlite3 *db;
  sqlite3_stmt *st;
  cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
  cr_assert_eq(
      sqlite3_prepare_v2(db, "SELECT id, data FROM chunks WHERE step=?1 AND metric=?2 AND chunk=?3",
                         -1, &st, NULL),
      SQLITE_OK);
  sqlite3_bind_int64(st, 1, step);
  sqlite3_bind_int(st, 2, metric);
  sqlite3_bind_int64(st, 3, chunk);
  cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
  int64_t id = sqlite3_column_int64(st, 0);
  int n = sqlite3_column_bytes(st, 1);
  uint8_t *b = malloc((size_t)n);
  memcpy(b, sqlite3_column_blob(st, 1), (size_t)n);
  sqlite3_finalize(st);
  cr_assert_lt(byte, n);
  b[byte] ^= 0x10;
  cr_assert_eq(sqlite3_prepare_v2(db, "UPDATE chunks SET data=?1 WHERE id=?2", -1, &st, NULL),
               SQLITE_OK);
  sqlite3_bind_blob(st, 1, b, n, SQLITE_STATIC);
  sqlite3_bind_int64(st, 2, id);
  cr_assert_eq(sqlite3_step(st), SQLITE_DONE);
  sqlite3_finalize(st);
  sqlite3_close(db);
  free(b);
}

Test(store, bit_flip_in_a_chunk_is_named) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "t.lbt");
  lbs_gen *g = make_trace(p, "bump", 10, 10, 10, 5, "rel:0.005", LBS_ORDER_NATURAL, 300);
  /* flip one bit in the blob of step 3, metric 1, chunk 2 */
  flip_bit(p, 3, 1, 2, 5);
  lbs_trace *t;
  double v[1000];
  cr_assert_eq(lbs_trace_open(p, &t), LBS_OK);
  cr_assert_eq(lbs_trace_read(t, 3, 0, 0, 1000, v), LBS_OK, "other metrics stay readable");
  cr_assert_eq(lbs_trace_read(t, 3, 1, 0, 600, v), LBS_OK, "other chunks stay readable");
  cr_assert_eq(lbs_trace_read(t, 3, 1, 0, 1000, v), LBS_CORRUPT);
  cr_assert(strstr(lbs_errmsg(), "step 3 metric 'weight' chunk 2: checksum mismatch"), "%s",
            lbs_errmsg());
  cr_assert_eq(lbs_trace_verify(t, NULL, NULL), LBS_CORRUPT);
  cr_assert(strstr(lbs_errmsg(), "chunk 2"), "%s", lbs_errmsg());
  lbs_trace_close(&t);
  lbs_gen_destroy(&g);
  free(p);
  tu_rmrf(dir);
}

Test(store, missing_chunk_and_wrong_version_and_foreign_files) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "t.lbt");
  lbs_gen *g = make_trace(p, "random", 10, 10, 1, 2, "range:1e-2", LBS_ORDER_NATURAL, 50);
  lbs_trace *t;
  sql(p, "DELETE FROM chunks WHERE step=1 AND metric=0 AND chunk=1");
  cr_assert_eq(lbs_trace_open(p, &t), LBS_OK);
  cr_assert_eq(lbs_trace_verify(t, NULL, NULL), LBS_CORRUPT);
  cr_assert(strstr(lbs_errmsg(), "chunk rows"), "%s", lbs_errmsg());
  double v[100];
  cr_assert_eq(lbs_trace_read(t, 1, 0, 0, 100, v), LBS_CORRUPT);
  cr_assert(strstr(lbs_errmsg(), "step 1 metric 'time_ns' chunk 1 is missing"), "%s", lbs_errmsg());
  lbs_trace_close(&t);
  sql(p, "PRAGMA user_version=99");
  cr_assert_eq(lbs_trace_open(p, &t), LBS_VERSION);
  cr_assert(strstr(lbs_errmsg(), "version 99"), "%s", lbs_errmsg());
  char *q = tu_path(dir, "other.db");
  sql(q, "CREATE TABLE x(a)");
  cr_assert_eq(lbs_trace_open(q, &t), LBS_FORMAT);
  cr_assert(strstr(lbs_errmsg(), "not an lbsim trace"), "%s", lbs_errmsg());
  char *txt = tu_path(dir, "notes.txt");
  tu_write(txt, "hello, this is not a trace\n");
  cr_assert_eq(lbs_trace_open(txt, &t), LBS_FORMAT);
  char *none = tu_path(dir, "missing.lbt");
  cr_assert_eq(lbs_trace_open(none, &t), LBS_IO);
  cr_assert(strstr(lbs_errmsg(), "No such file"), "%s", lbs_errmsg());
  cr_assert_null(t);
  lbs_gen_destroy(&g);
  free(p);
  free(q);
  free(txt);
  free(none);
  tu_rmrf(dir);
}

Test(store, truncated_files_fail_cleanly) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "t.lbt"), *q = tu_path(dir, "cut.lbt");
  lbs_gen *g = make_trace(p, "hotspot", 30, 30, 4, 6, "rel:1e-3", LBS_ORDER_NATURAL, 512);
  FILE *f = fopen(p, "rb");
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  char *buf = malloc((size_t)size);
  fseek(f, 0, SEEK_SET);
  cr_assert_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
  fclose(f);
  int failures = 0;
  for (long cut = 0; cut < size; cut += size / 13 + 1) {
    remove(q);
    FILE *o = fopen(q, "wb");
    fwrite(buf, 1, (size_t)cut, o);
    fclose(o);
    lbs_trace *t;
    lbs_err e = lbs_trace_open(q, &t);
    if (!e) e = lbs_trace_verify(t, NULL, NULL);
    if (e) {
      failures++;
      cr_assert(*lbs_errmsg(), "an error needs a message");
    }
    lbs_trace_close(&t);
  }
  cr_assert_gt(failures, 10, "truncated files must be reported");
  free(buf);
  lbs_gen_destroy(&g);
  free(p);
  free(q);
  tu_rmrf(dir);
}

Test(store, create_refuses_bad_specs_and_existing_files) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "t.lbt");
  lbs_metric_spec ms[2] = {{"a", "ns", LBS_CODEC_POLYLINE, {LBS_BOUND_ABS, 0.1}, {0, 0}},
                           {"a", "ns", LBS_CODEC_POLYLINE, {LBS_BOUND_ABS, 0.1}, {0, 0}}};
  lbs_trace_spec spec = {10, 0, 2, ms, NULL, 0, NULL};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(p, &spec, &w), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "given twice"));
  spec.nmetrics = 1;
  ms[0].bound.eps = -1;
  cr_assert_eq(lbs_trace_create(p, &spec, &w), LBS_INVAL);
  ms[0].bound.eps = NAN;
  cr_assert_eq(lbs_trace_create(p, &spec, &w), LBS_INVAL);
  ms[0].bound = (lbs_bound){LBS_BOUND_REL, 0.1};
  ms[0].codec = LBS_CODEC_LOSSLESS; /* the wrong kind of bound for the codec */
  cr_assert_eq(lbs_trace_create(p, &spec, &w), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "lossless"), "%s", lbs_errmsg());
  ms[0].codec = LBS_CODEC_QUANT;
  ms[0].encode = (lbs_bound){LBS_BOUND_ABS, 0.01}; /* an encoding bound of another kind */
  cr_assert_eq(lbs_trace_create(p, &spec, &w), LBS_INVAL);
  ms[0].encode = (lbs_bound){LBS_BOUND_REL, 0.05};
  spec.elements = 0;
  cr_assert_eq(lbs_trace_create(p, &spec, &w), LBS_INVAL);
  spec.elements = 10;
  cr_assert_eq(lbs_trace_create(p, &spec, &w), LBS_OK);
  double v[10] = {0};
  const double *cols[1] = {NULL};
  cr_assert_eq(lbs_trace_write_step(w, 0, cols), LBS_INVAL);
  cols[0] = v;
  cr_assert_eq(lbs_trace_write_step(w, 0, cols), LBS_OK);
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK);
  cr_assert_eq(lbs_trace_create(p, &spec, &w), LBS_IO, "existing file must not be overwritten");
  free(p);
  tu_rmrf(dir);
}

Test(store, unstructured_mesh_roundtrip) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "t.lbt");
  int64_t xadj[] = {0, 2, 3, 4, 4}, adj[] = {1, 2, 3, 0}; /* directed, with a sink vertex */
  double w[] = {1.5, 0, 2, 7}, xy[] = {0, 0, 1, 0, 0, 1, 1, 1};
  lbs_mesh *m, *m2;
  cr_assert_eq(lbs_mesh_create_unstructured(4, 2, xy, xadj, adj, w, 1, &m), LBS_OK);
  lbs_mesh_set_bytes(m, 4096, 8);
  lbs_metric_spec ms = {"load", "s", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}};
  lbs_trace_spec spec = {4, 0, 1, &ms, m, 0, NULL};
  lbs_trace_writer *wr;
  cr_assert_eq(lbs_trace_create(p, &spec, &wr), LBS_OK);
  double v[4] = {1, 2, 3, 4};
  const double *cols[1] = {v};
  cr_assert_eq(lbs_trace_write_step(wr, 7, cols), LBS_OK);
  cr_assert_eq(lbs_trace_writer_close(&wr), LBS_OK);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(p, &t), LBS_OK);
  m2 = lbs_trace_mesh(t);
  cr_assert_eq(lbs_mesh_get_kind(m2), LBS_MESH_UNSTRUCTURED);
  cr_assert(lbs_mesh_directed(m2));
  cr_assert_eq(lbs_mesh_bytes_per_elem(m2), 4096);
  const int64_t *x2, *a2;
  const double *w2, *c2;
  int dim;
  cr_assert_eq(lbs_mesh_graph(m2, &x2, &a2, &w2), LBS_OK);
  cr_assert(!memcmp(x2, xadj, sizeof xadj) && !memcmp(a2, adj, sizeof adj) &&
            !memcmp(w2, w, sizeof w));
  cr_assert_eq(lbs_mesh_coords(m2, &c2, &dim), LBS_OK);
  cr_assert_eq(dim, 2);
  cr_assert(!memcmp(c2, xy, sizeof xy));
  cr_assert_eq(lbs_trace_verify(t, NULL, NULL), LBS_OK);
  lbs_trace_close(&t);
  lbs_mesh_destroy(&m);
  free(p);
  tu_rmrf(dir);
}

Test(store, killed_writer_keeps_every_complete_step) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "t.lbt");
  int fd[2];
  cr_assert_eq(pipe(fd), 0);
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) { /* the writer: a real process, killed while it writes */
    close(fd[0]);
    lbs_gen_params gp = {"hotspot", 60, 50, 20, 100000, 3, {0, 0, 0}};
    lbs_gen *g;
    lbs_mesh *mesh;
    if (lbs_gen_create(&gp, &g) || lbs_mesh_create_structured(60, 50, 20, LBS_ORDER_NATURAL, &mesh))
      _exit(3);
    lbs_metric_spec ms = {"time_ns", "ns", LBS_CODEC_AUTO, {LBS_BOUND_RANGE, 1e-3}, {0, 0}};
    const char *meta[] = {"source", lbs_gen_recipe(g)};
    lbs_trace_spec spec = {60000, 4096, 1, &ms, mesh, 1, meta};
    lbs_trace_writer *w;
    if (lbs_trace_create(p, &spec, &w)) _exit(4);
    static double v[60000];
    const double *cols[1] = {v};
    for (int64_t s = 0;; s++) {
      lbs_gen_step(g, s, 0, NULL, v);
      if (lbs_trace_write_step(w, s, cols)) _exit(5);
      char c = 1;
      if (write(fd[1], &c, 1) != 1) _exit(6);
    }
  }
  close(fd[1]);
  char c;
  int done = 0;
  while (done < 7 && read(fd[0], &c, 1) == 1) done++;
  usleep(3000); /* let it get into the middle of the next step */
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  close(fd[0]);
  cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "writer was not killed");
  cr_assert_eq(done, 7);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(p, &t), LBS_OK, "%s", lbs_errmsg());
  int64_t S = lbs_trace_steps(t);
  cr_assert_geq(S, 7, "complete steps lost: %lld", (long long)S);
  cr_assert_eq(lbs_trace_verify(t, NULL, NULL), LBS_OK, "%s", lbs_errmsg());
  /* whole in every way but its length: told apart from a finished trace */
  cr_assert_eq(lbs_trace_check_complete(t), LBS_CORRUPT);
  cr_assert(strstr(lbs_errmsg(), " of 100000 steps: the writer did not finish"), "%s",
            lbs_errmsg());
  lbs_gen *g;
  cr_assert_eq(lbs_gen_from_recipe(lbs_trace_meta(t, "source"), &g), LBS_OK);
  check_against_source(t, g);
  lbs_gen_destroy(&g);
  lbs_trace_close(&t);
  free(p);
  tu_rmrf(dir);
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The stored values' statistics are exact order statistics, also when the quantile search has
 * to narrow its histogram several times (a small gather limit forces it). */
Test(store, value_statistics_are_exact) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "t.lbt");
  enum { E = 3000, S = 4 };
  lbs_metric_spec ms = {"time_ns", "ns", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}};
  lbs_trace_spec spec = {E, 1000, 1, &ms, NULL, 0, NULL};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(p, &spec, &w), LBS_OK);
  static double v[E], all[E * S];
  int64_t n = 0, neg = 0, nonfinite = 0;
  for (int s = 0; s < S; s++) {
    for (int i = 0; i < E; i++) {
      uint64_t r = lbs_rng_u64(1, (uint64_t)s, (uint64_t)i);
      /* many near-equal values (one histogram bin), negatives, zeros, outliers, NaN */
      v[i] = 321.5 + (double)(r % 1000) * 1e-9;
      if (r % 97 == 0) v[i] = -(double)(r % 50);
      if (r % 89 == 0) v[i] = 0;
      if (r % 1009 == 0) v[i] = 3e6;
      if (r % 1013 == 0) v[i] = NAN;
      if (isfinite(v[i]))
        all[n++] = v[i], neg += v[i] < 0;
      else
        nonfinite++;
    }
    const double *cols[1] = {v};
    cr_assert_eq(lbs_trace_write_step(w, s, cols), LBS_OK);
  }
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK);
  qsort(all, (size_t)n, sizeof *all, cmp_d);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(p, &t), LBS_OK);
  for (int k = 0; k < 2; k++) {
    lbs__stats_collect = k == 0 ? 1 << 20 : 50;
    lbs_value_stats st;
    cr_assert_eq(lbs_trace_value_stats(t, 0, NULL, NULL, &st), LBS_OK, "%s", lbs_errmsg());
    cr_assert_eq(st.values, E * S);
    cr_assert_eq(st.finite, n);
    cr_assert_eq(st.negative, neg);
    cr_assert_eq(st.nonfinite, nonfinite);
    cr_assert_eq(st.min, all[0]);
    cr_assert_eq(st.max, all[n - 1]);
    cr_assert_eq(st.median, all[(int64_t)ceil(0.5 * (double)n) - 1], "median %.17g", st.median);
    cr_assert_eq(st.p99, all[(int64_t)ceil(0.99 * (double)n) - 1], "p99 %.17g", st.p99);
  }
  lbs__stats_collect = 1 << 20;
  lbs_trace_close(&t);
  free(p);
  tu_rmrf(dir);
}

/* A file of schema 1 (bounds as error_bound and a relative flag, chunks without sum errors)
 * still opens, with its bound in today's spelling. */
Test(store, schema_1_files_are_read) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "t.lbt");
  lbs_gen *g = make_trace(p, "bump", 8, 6, 4, 3, "range:1e-3", LBS_ORDER_NATURAL, 100);
  sql(p,
      "CREATE TABLE m1(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, unit TEXT NOT NULL,"
      " codec TEXT NOT NULL, error_bound REAL NOT NULL, relative INTEGER NOT NULL);"
      "INSERT INTO m1 SELECT id, name, unit, codec, 0.001, 1 FROM metrics;"
      "DROP TABLE metrics; ALTER TABLE m1 RENAME TO metrics;"
      "ALTER TABLE chunks DROP COLUMN err_rel; ALTER TABLE chunks DROP COLUMN sum_err;"
      "UPDATE metrics SET error_bound = 0, relative = 0 WHERE name = 'weight'; PRAGMA user_version=1");
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(p, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_schema_version(t), 1);
  lbs_metric_info mi;
  cr_assert_eq(lbs_trace_metric(t, 0, &mi), LBS_OK);
  cr_assert(mi.bound.kind == LBS_BOUND_RANGE && mi.bound.eps == 1e-3);
  cr_assert_eq(lbs_trace_metric(t, 1, &mi), LBS_OK);
  cr_assert_eq(mi.bound.kind, LBS_BOUND_LOSSLESS);
  lbs_trace_stats st;
  cr_assert_eq(lbs_trace_get_stats(t, -1, &st), LBS_OK, "%s", lbs_errmsg());
  cr_assert(st.has_error && !st.has_sum_error && isnan(st.max_rel_error));
  cr_assert_eq(lbs_trace_verify(t, NULL, NULL), LBS_OK, "%s", lbs_errmsg());
  lbs_trace_close(&t);
  lbs_gen_destroy(&g);
  free(p);
  tu_rmrf(dir);
}

/* lbs_gen_write (lbsim sweep's generated traces): the generator's values within the default
 * bound at every step, its recipe as the source, and no file over an existing one. */
Test(store, gen_write_stores_the_generator_within_the_default_bound) {
  char *dir = tu_tmpdir(), *path = tu_path(dir, "g.lbt");
  lbs_gen_params p = {"hotspot", 6, 5, 4, 3, 7, {0, 0, 0}};
  cr_assert_eq(lbs_gen_write(&p, LBS_ORDER_NATURAL, path, NULL, NULL), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_gen_write(&p, LBS_ORDER_NATURAL, path, NULL, NULL), LBS_IO);
  lbs_trace *t = NULL;
  lbs_gen *g = NULL;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_gen_create(&p, &g), LBS_OK);
  cr_assert_eq(lbs_trace_elements(t), 120);
  cr_assert_eq(lbs_trace_steps(t), 3);
  cr_assert_str_eq(lbs_trace_meta(t, "source"), lbs_gen_recipe(g));
  double got[120], want[120];
  for (int64_t s = 0; s < 3; s++) {
    cr_assert_eq(lbs_trace_read(t, s, 0, 0, 120, got), LBS_OK, "%s", lbs_errmsg());
    lbs_gen_step(g, s, 0, NULL, want);
    for (int i = 0; i < 120; i++)
      cr_assert(fabs(got[i] - want[i]) <= 0.005 * fabs(want[i]) + 1e-9, "step %lld element %d",
                (long long)s, i);
  }
  lbs_gen_destroy(&g);
  lbs_trace_close(&t);
  free(path);
  tu_rmrf(dir);
}

/* Stops lbs_gen_write_trace after *arg steps, as a writer cut short would. */
static int stop_after(void *arg, int64_t done, int64_t total) {
  (void)total;
  return done >= *(int64_t *)arg;
}

/* lbs_trace_check_complete, without signals: a generated trace stopped after 3 of its recipe's
 * 10 steps (closed, valid in every other way) is named short; a whole one passes. */
Test(store, check_complete_names_the_steps_a_recipe_misses) {
  char *dir = tu_tmpdir(), *full = tu_path(dir, "full.lbt"), *cut = tu_path(dir, "cut.lbt");
  lbs_gen_params p = {"bump", 6, 5, 4, 10, 7, {0, 0, 0}};
  int64_t three = 3;
  cr_assert_eq(lbs_gen_write(&p, LBS_ORDER_NATURAL, full, NULL, NULL), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_gen_write(&p, LBS_ORDER_NATURAL, cut, stop_after, &three), LBS_INVAL);
  lbs_trace *t = NULL;
  cr_assert_eq(lbs_trace_open(full, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_check_complete(t), LBS_OK, "%s", lbs_errmsg());
  lbs_trace_close(&t);
  cr_assert_eq(lbs_trace_open(cut, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_steps(t), 3);
  cr_assert_eq(lbs_trace_verify(t, NULL, NULL), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_check_complete(t), LBS_CORRUPT);
  cr_assert(strstr(lbs_errmsg(), "cut.lbt: 3 of 10 steps: the writer did not finish"), "%s",
            lbs_errmsg());
  lbs_trace_close(&t);
  free(full), free(cut);
  tu_rmrf(dir);
}

/* A trace written by a child that writes 2 steps of source meta[1] with the extra pair meta[2..3]
 * and closes the writer only when close_it is set (else it exits at once, as a killed writer). */
static void write_two_steps(const char *path, const char *const meta[4], int close_it) {
  pid_t pid = fork();
  cr_assert_neq(pid, -1);
  if (pid == 0) {
    lbs_metric_spec ms = {"time_ns", "ns", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}};
    lbs_trace_spec spec = {8, 0, 1, &ms, NULL, 2, meta};
    lbs_trace_writer *w;
    double v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const double *cols[1] = {v};
    if (lbs_trace_create(path, &spec, &w) || lbs_trace_write_step(w, 0, cols) ||
        lbs_trace_write_step(w, 1, cols))
      _exit(3);
    if (close_it && lbs_trace_writer_close(&w)) _exit(4);
    _exit(0);
  }
  int status;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer failed: %d", status);
}

/* Traces that promise no step count: one whose writer never closed it, and a profiled one
 * without profiler.complete (its collector never finished), are named; a profiled one with it
 * (even "no": a run that ended badly, faithfully recorded) and an imported one pass. */
Test(store, check_complete_names_unclosed_and_unfinished_profiles) {
  char *dir = tu_tmpdir();
  struct {
    const char *name, *key, *value;
    int close_it;
    const char *want; /* in the message, or NULL: LBS_OK */
  } cases[] = {
      {"open.lbt", "workload", "x", 0,
       "open.lbt: 2 steps: the writer did not finish (never closed)"},
      {"closed.lbt", "workload", "x", 1, NULL},
      {"prof.lbt", "profiler.ranks", "2", 1,
       "prof.lbt: 2 steps: the collector did not finish (no profiler.complete)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *p = tu_path(dir, cases[i].name);
    const char *meta[4] = {"source", "steps-dir", cases[i].key, cases[i].value};
    write_two_steps(p, meta, cases[i].close_it);
    lbs_trace *t = NULL;
    cr_assert_eq(lbs_trace_open(p, &t), LBS_OK, "%s", lbs_errmsg());
    cr_assert_eq(lbs_trace_steps(t), 2);
    lbs_err e = lbs_trace_check_complete(t);
    if (cases[i].want)
      cr_assert(e == LBS_CORRUPT && strstr(lbs_errmsg(), cases[i].want), "%s: %s", cases[i].name,
                lbs_errmsg());
    else
      cr_assert_eq(e, LBS_OK, "%s: %s", cases[i].name, lbs_errmsg());
    lbs_trace_close(&t);
    free(p);
  }
  /* the collector's ending key, as it writes it for a run that lost a rank */
  char *p = tu_path(dir, "ended.lbt");
  const char *meta[4] = {"profiler.ranks", "2", "profiler.complete", "no"};
  write_two_steps(p, meta, 1);
  lbs_trace *t = NULL;
  cr_assert_eq(lbs_trace_open(p, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_check_complete(t), LBS_OK, "%s", lbs_errmsg());
  lbs_trace_close(&t);
  free(p);
  tu_rmrf(dir);
}

/* Recorded owners (an application that migrates): written between steps, out of order and once
 * replaced, read back ascending; a trace without them has none; recode keeps them; a bad owner
 * is refused before anything is written. */
Test(store, recorded_owners_roundtrip_and_survive_recode) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "o.lbt"), *q = tu_path(dir, "r.lbt");
  lbs_metric_spec ms = {"time_ns", "ns", LBS_CODEC_AUTO, bound("rel:0.005"), {0, 0}};
  lbs_trace_spec spec = {6, 0, 1, &ms, NULL, 0, NULL};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(p, &spec, &w), LBS_OK, "%s", lbs_errmsg());
  int64_t a0[6] = {0, 0, 0, 1, 1, 1}, a1[6] = {1, 0, 0, 1, 1, 0}, a2[6] = {1, 1, 1, 1, 1, 1},
          bad[6] = {0, 0, -1, 1, 1, 1};
  double v[6] = {1, 2, 3, 4, 5, 6};
  const double *cols[1] = {v};
  cr_assert_eq(lbs_trace_write_owners(w, 0, a0), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_write_step(w, 0, cols), LBS_OK);
  cr_assert_eq(lbs_trace_write_owners(w, 20, a2), LBS_OK); /* a rank gives all away */
  cr_assert_eq(lbs_trace_write_owners(w, 10, a2), LBS_OK);
  cr_assert_eq(lbs_trace_write_owners(w, 10, a1), LBS_OK, "the same step again replaces");
  cr_assert_eq(lbs_trace_write_owners(w, 30, bad), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "element 2 has owner -1"), "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_write_step(w, 10, cols), LBS_OK);
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK);
  for (int pass = 0; pass < 2; pass++) {
    lbs_trace *t;
    cr_assert_eq(lbs_trace_open(pass ? q : p, &t), LBS_OK, "%s", lbs_errmsg());
    cr_assert_eq(lbs_trace_owners_count(t), 3);
    int64_t want_step[3] = {0, 10, 20}, *want[3] = {a0, a1, a2}, got[6];
    for (int i = 0; i < 3; i++) {
      cr_assert_eq(lbs_trace_owners_step(t, i), want_step[i]);
      cr_assert_eq(lbs_trace_owners_read(t, i, got), LBS_OK, "%s", lbs_errmsg());
      cr_assert_arr_eq(got, want[i], sizeof got, "assignment %d", i);
    }
    cr_assert_eq(lbs_trace_owners_step(t, 3), -1);
    cr_assert_eq(lbs_trace_owners_read(t, 3, got), LBS_RANGE);
    if (!pass)
      cr_assert_eq(lbs_trace_recode(t, p, NULL, 0, NULL, 0, q, NULL, NULL, NULL), LBS_OK, "%s",
                   lbs_errmsg());
    lbs_trace_close(&t);
  }
  /* a trace written without them */
  char *n = tu_path(dir, "n.lbt");
  lbs_gen *g = make_trace(n, "bump", 4, 4, 1, 2, "rel:0.005", LBS_ORDER_NATURAL, 0);
  lbs_gen_destroy(&g);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(n, &t), LBS_OK);
  cr_assert_eq(lbs_trace_owners_count(t), 0);
  lbs_trace_close(&t);
  free(p), free(q), free(n);
  tu_rmrf(dir);
}

/* Per-rank events of a step (an application's own partitioning and migration time): declared
 * once, stored with the steps that have them, read back exactly, kept by recode; bad
 * declarations refused. */
Test(store, step_events_roundtrip_and_survive_recode) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "e.lbt"), *q = tu_path(dir, "r.lbt");
  lbs_metric_spec ms = {"time_ns", "ns", LBS_CODEC_AUTO, bound("rel:0.005"), {0, 0}};
  lbs_trace_spec spec = {4, 0, 1, &ms, NULL, 0, NULL};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(p, &spec, &w), LBS_OK, "%s", lbs_errmsg());
  const char *names[] = {"partition_s", "migration_s"}, *dup[] = {"a", "a"}, *bad[] = {"x y"};
  cr_assert_eq(lbs_trace_writer_set_events(w, 2, dup, 3), LBS_INVAL);
  cr_assert_eq(lbs_trace_writer_set_events(w, 1, bad, 3), LBS_INVAL);
  cr_assert_eq(lbs_trace_writer_set_events(w, 2, names, 0), LBS_INVAL);
  cr_assert_eq(lbs_trace_writer_set_events(w, 2, names, 3), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_writer_set_events(w, 2, names, 3), LBS_INVAL, "declared twice");
  double v[4] = {1, 2, 3, 4}, ev[6] = {0.01, 0.5, 0.02, 0.25, 1e-9, 0};
  const double *cols[1] = {v};
  cr_assert_eq(lbs_trace_write_step(w, 0, cols), LBS_OK); /* none at step 0 */
  cr_assert_eq(lbs_trace_step_events(w, ev), LBS_OK);
  cr_assert_eq(lbs_trace_write_step(w, 7, cols), LBS_OK);
  cr_assert_eq(lbs_trace_write_step(w, 8, cols), LBS_OK); /* nor at step 2 */
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK);
  for (int pass = 0; pass < 2; pass++) {
    lbs_trace *t;
    cr_assert_eq(lbs_trace_open(pass ? q : p, &t), LBS_OK, "%s", lbs_errmsg());
    cr_assert_eq(lbs_trace_nevents(t), 2);
    cr_assert_eq(lbs_trace_event_ranks(t), 3);
    cr_assert_str_eq(lbs_trace_event_name(t, 1), "migration_s");
    cr_assert_eq(lbs_trace_event_find(t, "partition_s"), 0);
    cr_assert_eq(lbs_trace_event_find(t, "nope"), -1);
    double got[6];
    int have;
    for (int s = 0; s < 3; s++) {
      cr_assert_eq(lbs_trace_read_events(t, s, got, &have), LBS_OK, "%s", lbs_errmsg());
      cr_assert_eq(have, s == 1, "step %d", s);
      for (int k = 0; k < 6; k++)
        cr_assert(got[k] == (s == 1 ? ev[k] : 0), "step %d value %d", s, k);
    }
    cr_assert_eq(lbs_trace_read_events(t, 3, got, &have), LBS_RANGE);
    if (!pass)
      cr_assert_eq(lbs_trace_recode(t, p, NULL, 0, NULL, 0, q, NULL, NULL, NULL), LBS_OK, "%s",
                   lbs_errmsg());
    lbs_trace_close(&t);
  }
  free(p), free(q);
  tu_rmrf(dir);
}

/* One integer from a query on a closed trace file. */
static int64_t query_int(const char *path, const char *q) {
  sqlite3 *db;
  sqlite3_stmt *st;
  cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
  cr_assert_eq(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
  cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
  int64_t v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

/* Writes E elements x S steps of pseudo-random doubles losslessly in chunks of C; returns the
 * values of the last step (caller frees). */
static double *write_lossless(const char *path, int64_t E, int64_t S, int64_t C) {
  lbs_metric_spec ms = {"time_ns", "ns", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}};
  lbs_trace_spec spec = {E, C, 1, &ms, NULL, 0, NULL};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(path, &spec, &w), LBS_OK, "%s", lbs_errmsg());
  double *v = malloc((size_t)E * sizeof *v);
  uint64_t x = 88172645463325252u;
  for (int64_t s = 0; s < S; s++) {
    for (int64_t i = 0; i < E; i++) { /* xorshift: mantissas that do not compress */
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      v[i] = 1000.0 + (double)(x >> 11) * 0x1p-53 * 500.0;
    }
    const double *cols[1] = {v};
    cr_assert_eq(lbs_trace_write_step(w, s, cols), LBS_OK, "%s", lbs_errmsg());
  }
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK, "%s", lbs_errmsg());
  return v;
}

/* A small trace of 2.2 KiB chunks (a real profile's size: one to a 4 KiB page, the rest empty) is
 * rewritten in small pages as the writer closes: its file within 1.2x of its blob bytes, where
 * the same file in 4 KiB pages is over 1.4x; it reads back bit for bit, verifies, and counts as
 * closed. A trace of 64 KiB chunks (full overflow pages) keeps its 4 KiB pages. */
Test(store, small_traces_are_compacted_as_the_writer_closes) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "small.lbt"), *q = tu_path(dir, "large.lbt");
  double *last = write_lossless(p, 4096, 30, 320);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(p, &t), LBS_OK, "%s", lbs_errmsg());
  lbs_trace_stats st;
  cr_assert_eq(lbs_trace_get_stats(t, -1, &st), LBS_OK);
  double per_chunk = (double)st.stored_bytes / (double)st.chunks,
         file = (double)lbs_trace_file_bytes(t);
  cr_assert(per_chunk > 2100 && per_chunk < 2600, "chunks of %.0f bytes", per_chunk);
  cr_assert_leq(file, 1.2 * (double)st.stored_bytes, "file %.0f bytes for %lld of chunks", file,
                (long long)st.stored_bytes);
  cr_assert_eq(lbs_trace_verify(t, NULL, NULL), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_check_complete(t), LBS_OK, "%s", lbs_errmsg());
  double *got = malloc(4096 * sizeof *got);
  cr_assert_eq(lbs_trace_read(t, 29, 0, 0, 4096, got), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(memcmp(got, last, 4096 * sizeof *got), 0, "the last step changed");
  lbs_trace_close(&t);
  cr_assert_lt(query_int(p, "PRAGMA page_size"), 4096);
  /* the small copy was put in the trace's place (rename), with its mode: nothing else left */
  struct stat sb, sq;
  cr_assert_eq(stat(p, &sb), 0);
  DIR *dd = opendir(dir);
  for (struct dirent *de; (de = readdir(dd));)
    cr_assert(de->d_name[0] == '.' || !strcmp(de->d_name, "small.lbt"), "left: %s", de->d_name);
  closedir(dd);
  /* the baseline: the same rows in 4 KiB pages */
  sql(p, "PRAGMA page_size=4096; VACUUM;");
  cr_assert_eq(query_int(p, "PRAGMA page_size"), 4096);
  cr_assert_gt((double)query_int(p, "PRAGMA page_count") * 4096, 1.4 * (double)st.stored_bytes,
               "the test's chunks pack into 4 KiB pages anyway: %.0f bytes each, %lld pages",
               per_chunk, (long long)query_int(p, "PRAGMA page_count"));
  free(last);
  last = write_lossless(q, 16384, 10, 8192);
  cr_assert_eq(query_int(q, "PRAGMA page_size"), 4096, "a trace of large chunks was rewritten");
  cr_assert_eq(stat(q, &sq), 0);
  cr_assert_eq(sb.st_mode & 07777, sq.st_mode & 07777, "the compacted trace's mode %o, not %o",
               (unsigned)(sb.st_mode & 07777), (unsigned)(sq.st_mode & 07777));
  cr_assert_eq(lbs_trace_open(q, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_read(t, 9, 0, 0, 4096, got), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(memcmp(got, last, 4096 * sizeof *got), 0, "the last step changed");
  lbs_trace_close(&t);
  free(got);
  free(last);
  free(p);
  free(q);
  tu_rmrf(dir);
}
