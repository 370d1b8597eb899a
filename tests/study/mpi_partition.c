/* MPI test of lbsim partition's study (study/partition.c; CTest: 1 and 2 ranks, outputs compared).
 *
 * Four elements in a line 0-1-2-3 (unit edges), weights 1, 1, 1, 3, on two processors of equal
 * speed; a mock partitioner puts {0, 1} on p0 and {2, 3} on p1, the blocks the elements start in:
 * the work imbalance is 4 / 3 (p1's 4 of 6 against a half share), the edge cut 1, no element
 * moves. The hook sees the whole partition on every rank, once per partitioner; a hook's failure
 * and the study's refusals are the same on every rank and name what is at fault. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_part.h"
#include "lbs_partition.h"
#include "mpi_check.h"

static lbs_err mock_create(void **s, const char *a, const lbs_config *c, MPI_Comm comm) {
  (void)a, (void)c, (void)comm;
  *s = NULL;
  return LBS_OK;
}
static int mock_no(const void *s) { return (void)s, 0; }
static lbs_err mock_partition(void *s, const lbs_part_input *in, int *np) {
  (void)s;
  for (int64_t i = 0; i < in->nlocal; i++) np[i] = in->gid[i] < 2 ? 0 : 1;
  return LBS_OK;
}
static const lbs_partitioner_ops mock = {.abi = LBS_PART_ABI,
                                         .name = "halves",
                                         .methods = "",
                                         .create = mock_create,
                                         .needs_graph = mock_no,
                                         .needs_coords = mock_no,
                                         .partition = mock_partition};

static char dir[64], trace[128], grid[128], grid3[128], store[128];

/* Rank 0 writes the trace and the grids; every rank gets their paths. */
static void files(void) {
  if (check_rank == 0) {
    snprintf(dir, sizeof dir, "/tmp/lbs_mpi_partition_XXXXXX");
    if (!mkdtemp(dir)) abort();
  }
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(trace, sizeof trace, "%s/line4.lbt", dir);
  snprintf(grid, sizeof grid, "%s/g.ini", dir);
  snprintf(grid3, sizeof grid3, "%s/g3.ini", dir);
  snprintf(store, sizeof store, "%s/r.db", dir);
  if (check_rank == 0) {
    FILE *f = fopen(grid, "w");
    fputs("[grid]\nbytes_per_edge = 16\n[cluster A]\nnodes = 1\n[cluster B]\nnodes = 1\n", f);
    fclose(f);
    f = fopen(grid3, "w");
    fputs("[cluster A]\nnodes = 5\n", f);
    fclose(f);
    int64_t xadj[] = {0, 1, 3, 5, 6}, adj[] = {1, 0, 2, 1, 3, 2};
    double x[] = {0, 1, 2, 3}, v[4] = {1, 1, 1, 3};
    lbs_mesh *m;
    lbs_err e = lbs_mesh_create_unstructured(4, 1, x, xadj, adj, NULL, 0, &m);
    lbs_metric_spec ms = {"work", "1", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}};
    lbs_trace_spec spec = {4, 0, 1, &ms, m, 0, NULL};
    lbs_trace_writer *w = NULL;
    const double *cols[1] = {v};
    if (!e) e = lbs_trace_create(trace, &spec, &w);
    if (!e) e = lbs_trace_write_step(w, 0, cols);
    if (!e) e = lbs_trace_writer_close(&w);
    if (e) printf("setup: %s\n", lbs_errmsg()), abort();
    lbs_mesh_destroy(&m);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* The hook: the partition as the mock made it, counted; fails when told to. */
static int hook_calls, hook_fail, hook_bad;
static lbs_err on_done(void *arg, const lbs_partition_eval *ev, const int *part, int64_t E) {
  (void)arg;
  hook_calls++;
  for (int64_t i = 0; i < E && !strcmp(ev->name, "halves"); i++)
    hook_bad += part[i] != (i < 2 ? 0 : 1);
  return hook_fail && check_rank == hook_fail - 1 ? LBS_IO : LBS_OK;
}

static lbs_err study(const char *g, lbs_partition_opts o, lbs_partition_eval *ev, int n,
                     lbs_partition_info *info) {
  lbs_session s;
  lbs_err e = lbs_session_open(&s, trace, g, NULL, 0);
  if (!e) e = lbs_partition_study(&s, &o, ev, n, MPI_COMM_WORLD, on_done, NULL, info);
  if (!e && check_rank == 0) e = lbs_partition_save(&s, store, &o, ev, n, info);
  lbs_session_close(&s);
  return e;
}

static long long rows(void) {
  sqlite3 *db;
  sqlite3_stmt *q;
  long long v = -1;
  if (sqlite3_open_v2(store, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(db, "SELECT count(*) FROM partitions WHERE partitioner = 'halves'", -1, &q,
                         NULL) == SQLITE_OK &&
      sqlite3_step(q) == SQLITE_ROW)
    v = sqlite3_column_int64(q, 0), sqlite3_finalize(q);
  sqlite3_close(db);
  return v;
}

/* A refusal: code, and what it names as at fault. */
static void refused(const char *g, lbs_partition_opts o, const char *name, lbs_err want,
                    const char *failed, const char *msg) {
  lbs_partition_eval ev[1] = {{.name = name}};
  lbs_partition_info info;
  lbs_err e = study(g, o, ev, 1, &info);
  CHECK(e == want, "%s: %s (%d), not %d", msg, lbs_errmsg(), e, want);
  CHECK(info.failed && !strcmp(info.failed, failed), "%s: failed %s, not %s", msg,
        info.failed ? info.failed : "NULL", failed);
}

int main(int argc, char **argv) {
  (void)argc, (void)argv;
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  lbs_part_register(&mock);
  files();
  lbs_partition_opts o = {.step = 0, .from_block = 1, .repeat = 2};
  lbs_partition_eval ev[2] = {{.name = "halves"}, {.name = "metis"}};
  lbs_partition_info info;
  lbs_err e = study(grid, o, ev, 2, &info);
  CHECK(e == LBS_OK, "study: %s", lbs_errmsg());
  CHECK(info.elements == 4 && info.procs == 2 && info.clusters == 2 && !info.failed,
        "info %lld %d %d", (long long)info.elements, info.procs, info.clusters);
  CHECK(hook_calls == 2 && hook_bad == 0, "hook: %d calls, %d parts not the mock's", hook_calls,
        hook_bad);
  CHECK(fabs(ev[0].work_imb - 4.0 / 3) < 1e-12, "work imbalance %.17g", ev[0].work_imb);
  CHECK(ev[0].ev.edge_cut == 1 && ev[0].ev.moved == 0, "edge cut %g, moved %lld", ev[0].ev.edge_cut,
        (long long)ev[0].ev.moved);
  CHECK(ev[0].tol == 0 && ev[0].wall_s >= 0, "tolerance %g, wall %g", ev[0].tol, ev[0].wall_s);
  CHECK(ev[1].tol > 0 && (!ev[1].own_sizes || ev[1].own_imb == ev[1].work_imb),
        "metis promises a tolerance, against the shares it aims at");
  long long n = check_rank == 0 ? rows() : 0;
  MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  CHECK(n == 1, "the store has %lld rows of halves", n);
  json_t *j = lbs_partition_json(&o, ev, 2, &info);
  CHECK(json_array_size(j) == 2 &&
            !strcmp(json_string_value(json_object_get(json_array_get(j, 0), "partitioner")),
                    "halves"),
        "JSON: an array of both");
  json_decref(j);
  /* the hook fails on the last rank: every rank stops with LBS_IO, nothing to name */
  hook_fail = size;
  e = study(grid, o, ev, 2, &info);
  CHECK(e == LBS_IO && !info.failed, "a hook's failure: %d, %s", e,
        info.failed ? info.failed : "NULL");
  hook_fail = 0;
  refused(grid, (lbs_partition_opts){.procs = 3, .repeat = 1}, "halves", LBS_INVAL, "partition",
          "--procs 3");
  refused(grid, (lbs_partition_opts){.step = 5, .repeat = 1}, "halves", LBS_RANGE, trace, "step 5");
  refused(grid, (lbs_partition_opts){.metric = "nope", .repeat = 1}, "halves", LBS_NOTFOUND, trace,
          "no metric");
  refused(grid, (lbs_partition_opts){.repeat = 1}, "nope", LBS_NOTFOUND, "partition",
          "unknown partitioner");
  refused(grid3, (lbs_partition_opts){.repeat = 1}, "halves", LBS_INVAL, "partition",
          "5 processors, 4 elements");
  CHECK(strstr(lbs_errmsg(), "more processors (5) than elements (4)") != NULL, "%s", lbs_errmsg());
  MPI_Barrier(MPI_COMM_WORLD);
  check_remove_dir(dir);
  int rc = check_finish();
  MPI_Finalize();
  return rc;
}
