/* mpi_remap.c - profiling across migration (lbsprof_remap), on 1 and 2 ranks: 60 elements by id,
 * 12 steps sampled every 2nd, remapped from step 3 (an unsampled step: every third element moves
 * to the next rank, local order reversed), from step 5 (no moves) and from step 8 (rank 0 gives
 * all its elements to the last rank, so on 2 ranks some elements have moved twice). Each element
 * sets its value gid + 1000 * step (lossless). The trace must hold the four assignments at steps
 * 0, 3, 5 and 8, and every sampled step's values on the right ids. Bad calls (before the mesh,
 * in the middle of a step, a wrong total, an element lost or given twice, an id out of range,
 * n < 0) must fail on every rank with the same message and change nothing. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbs_traces.h"
#include "lbsprof.h"
#include "mpi_check.h"

#define E 60
#define STEPS 12

static int rank, size;

/* the owner of element g in phase ph (0: from step 0, 1: from 3, 2: from 5, 3: from 8) */
static int owner_of(int64_t g, int ph) {
  if (ph == 3) return size - 1;
  int r = (int)(g % size);
  return ph >= 1 && g % 3 == 0 ? (r + 1) % size : r;
}

/* this rank's elements in phase ph into gid (ascending, descending in phases 1 and 2) */
static int64_t layout(int ph, int64_t *gid) {
  int64_t n = 0;
  for (int64_t g = 0; g < E; g++)
    if (owner_of(g, ph) == rank) gid[n++] = g;
  for (int64_t i = 0; ph >= 1 && ph <= 2 && i < n / 2; i++) {
    int64_t t = gid[i];
    gid[i] = gid[n - 1 - i], gid[n - 1 - i] = t;
  }
  return n;
}

/* a remap that must fail on every rank with a message holding want */
static void refused(lbsprof *p, int64_t n, const int64_t *gid, const char *want, const char *what) {
  int rc = lbsprof_remap(p, n, gid);
  CHECK(rc != 0 && strstr(lbsprof_errmsg(), want), "%s: rc %d, '%s' (want '%s')", what, rc,
        lbsprof_errmsg(), want);
}

/* the bad calls after step 0, with this rank's layout gid[n] of phase 0 */
static void bad_calls(lbsprof *p, int64_t n, const int64_t *gid) {
  int64_t bad[E + 1];
  memcpy(bad, gid, (size_t)n * sizeof *bad);
  char want[128];
  snprintf(want, sizeof want, "the ranks give %d elements in all, the mesh has %d", E - 1, E);
  refused(p, rank == 0 ? n - 1 : n, bad, want, "a wrong total");
  /* rank 0 gives element 1 in place of element 0: lost (2 ranks: 1 given twice); 1 rank: twice */
  if (rank == 0) bad[0] = size == 1 ? bad[1] : 1;
  refused(p, n, bad, "element 0 is given 0 times over the ranks", "element 0 lost");
  memcpy(bad, gid, (size_t)n * sizeof *bad);
  if (rank == size - 1) bad[n - 1] = E;
  snprintf(want, sizeof want, "rank %d's local element %lld has id %d, outside 0..%d", size - 1,
           (long long)n - 1, E, E - 1);
  refused(p, n, bad, want, "an id out of range");
  refused(p, rank == 0 ? -1 : n, gid, "rank 0 gives -1 elements", "n < 0");
}

/* step s: every element measured and its value set; when mid, a remap is tried after the first */
static void run_step(lbsprof *p, int w, int64_t n, const int64_t *gid, int s, int mid) {
  for (int64_t i = 0; i < n; i++) {
    lbsprof_elem_begin(p, i);
    lbsprof_elem_end(p, i);
    CHECK(lbsprof_set_value(p, w, i, (double)gid[i] + 1000.0 * s) == 0, "set_value");
  }
  if (mid)
    refused(p, n, gid, "step 2 (elements measured or values set); call it after lbsprof_step_end",
            "mid-step");
  CHECK(lbsprof_step_end(p) == 0, "step_end: %s", lbsprof_errmsg());
}

/* rank 0: the trace's owners and values against what the program did */
static void check_trace(const char *path) {
  lbs_trace *t;
  CHECK(lbs_trace_open(path, &t) == LBS_OK, "open: %s", lbs_errmsg());
  if (!t) return;
  CHECK(lbs_trace_elements(t) == E && lbs_trace_steps(t) == STEPS / 2, "%lld elements, %lld steps",
        (long long)lbs_trace_elements(t), (long long)lbs_trace_steps(t));
  CHECK(!strcmp(lbs_trace_meta(t, "profiler.complete"), "yes"), "complete");
  static const int64_t from[4] = {0, 3, 5, 8};
  CHECK(lbs_trace_owners_count(t) == 4, "%lld assignments", (long long)lbs_trace_owners_count(t));
  int64_t own[E];
  for (int i = 0; i < 4 && lbs_trace_owners_count(t) == 4; i++) {
    CHECK(lbs_trace_owners_step(t, i) == from[i], "assignment %d from step %lld", i,
          (long long)lbs_trace_owners_step(t, i));
    CHECK(lbs_trace_owners_read(t, i, own) == LBS_OK, "read owners: %s", lbs_errmsg());
    for (int64_t g = 0; g < E; g++)
      CHECK(own[g] == owner_of(g, i), "assignment %d: element %lld on rank %lld, not %d", i,
            (long long)g, (long long)own[g], owner_of(g, i));
  }
  int wm = lbs_trace_metric_find(t, "gid");
  double v[E];
  for (int64_t s = 0; s < lbs_trace_steps(t); s++) {
    int64_t app = -1;
    lbs_trace_app_step(t, s, &app);
    CHECK(app == 2 * s, "step %lld is application step %lld", (long long)s, (long long)app);
    CHECK(lbs_trace_read(t, s, wm, 0, E, v) == LBS_OK, "read step %lld", (long long)s);
    for (int64_t g = 0; g < E; g++)
      CHECK(v[g] == (double)g + 1000.0 * (double)app, "step %lld: element %lld holds %g",
            (long long)app, (long long)g, v[g]);
  }
  lbs_trace_close(&t);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check_rank = rank;
  char path[128];
  if (rank == 0) snprintf(path, sizeof path, "/tmp/lbsprof_remap_%d.lbt", (int)getpid());
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  lbsprof_opts o;
  lbsprof_opts_default(&o);
  o.trace_path = path, o.sample_every = 2, o.bound = "lossless";
  lbsprof *p;
  CHECK(lbsprof_init(MPI_COMM_WORLD, &o, &p) == 0, "init: %s", lbsprof_errmsg());
  int w = lbsprof_value_metric(p, "gid", "id");
  int64_t gid[E], n = layout(0, gid);
  refused(p, n, gid, "lbsprof_remap: before the mesh was described", "before the mesh");
  CHECK(lbsprof_mesh_elements(p, n, gid, 0, NULL, NULL, NULL) == 0, "mesh: %s", lbsprof_errmsg());
  for (int s = 0; s < STEPS; s++) {
    run_step(p, w, n, gid, s, s == 2); /* a sampled step */
    if (s == 0) bad_calls(p, n, gid);
    int ph = s == 2 ? 1 : s == 4 ? 2 : s == 7 ? 3 : -1; /* from steps 3, 5, 8 */
    if (ph > 0) {
      n = layout(ph, gid);
      CHECK(lbsprof_remap(p, n, gid) == 0, "remap from step %d: %s", s + 1, lbsprof_errmsg());
    }
  }
  CHECK(lbsprof_finalize(&p) == 0, "finalize: %s", lbsprof_errmsg());
  if (rank == 0) check_trace(path), unlink(path);
  int rc = check_finish();
  MPI_Finalize();
  return rc;
}
