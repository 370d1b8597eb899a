/* mpi_prof_phases.c - phases of a step (lbsprof_phase_register, lbsprof_phase), on 1 and 2 ranks:
 * 20 elements by id, 5 steps of two phases A and B, each element busy for a known time in each (A:
 * 20 us x (1 + gid % 2), B: 10 us). The lossless trace must hold time_ns.A and time_ns.B next to
 * time_ns, the metadata phases.time_ns = "time_ns.A,time_ns.B", each phase's time at least its busy
 * time, and time_ns their sum; at step 3 each element is measured once more with no phase selected
 * (lbsprof_phase(p, -1)), which only time_ns holds. Bad calls (a bad name, a duplicate, a bad id,
 * registering after the mesh or without time_ns) are refused; ranks that register different phases
 * fail the mesh's description on every rank with one message. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lbs_traces.h"
#include "lbsprof.h"
#include "mpi_check.h"

#define E 20
#define STEPS 5
#define EXTRA_STEP 3
#define EXTRA_US 5.0

static int rank, size;

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void busy(double us) {
  double t0 = now_us();
  while (now_us() - t0 < us) {}
}

static double a_us(int64_t g) { return 20.0 * (double)(1 + g % 2); }
#define B_US 10.0

static void elements(int64_t gid[E], int64_t *n) {
  *n = 0;
  for (int64_t g = 0; g < E; g++)
    if (g % size == rank) gid[(*n)++] = g;
}

/* ranks that register different phases (2 ranks or more): the mesh fails on every rank */
static void disagreeing_ranks(const lbsprof_opts *o) {
  lbsprof *p;
  CHECK(lbsprof_init(MPI_COMM_WORLD, o, &p) == 0, "init: %s", lbsprof_errmsg());
  lbsprof_phase_register(p, "A");
  if (rank == 0) lbsprof_phase_register(p, "B");
  int64_t gid[E], n;
  elements(gid, &n);
  int rc = lbsprof_mesh_elements(p, n, gid, 0, NULL, NULL, NULL);
  const char *want = "rank 1 registered the phases 'A', rank 0 'A,B': every rank registers the "
                     "same phases in the same order";
  CHECK(rc != 0 && strstr(lbsprof_errmsg(), want), "different phases: rc %d, '%s'", rc,
        lbsprof_errmsg());
  lbsprof_finalize(&p);
}

/* a run without time_ns has no phases */
static void without_time(const lbsprof_opts *o) {
  lbsprof_opts x = *o;
  x.metrics = "";
  lbsprof *p;
  CHECK(lbsprof_init(MPI_COMM_WORLD, &x, &p) == 0, "init: %s", lbsprof_errmsg());
  CHECK(lbsprof_phase_register(p, "A") < 0 && strstr(lbsprof_errmsg(), "does not measure"),
        "a phase without time_ns accepted (%s)", lbsprof_errmsg());
  lbsprof_finalize(&p);
}

/* registrations and selections that must be refused, the phases registered (ids 0 and 1) */
static void bad_calls_before(lbsprof *p) {
  static const char *const bad[] = {"", "a b", "A/B", "a_name_of_24_characters_"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    CHECK(lbsprof_phase_register(p, bad[i]) < 0 && strstr(lbsprof_errmsg(), "1-23 of"),
          "name '%s' accepted (%s)", bad[i], lbsprof_errmsg());
  CHECK(lbsprof_phase_register(p, NULL) < 0, "a NULL name accepted");
  CHECK(lbsprof_phase_register(p, "A") == 0, "A: %s", lbsprof_errmsg());
  CHECK(lbsprof_phase_register(p, "B") == 1, "B: %s", lbsprof_errmsg());
  CHECK(lbsprof_phase_register(p, "A") < 0 && strstr(lbsprof_errmsg(), "exists"),
        "a duplicate accepted (%s)", lbsprof_errmsg());
  CHECK(lbsprof_phase(p, 2) != 0 && strstr(lbsprof_errmsg(), "no phase 2"), "id 2 accepted (%s)",
        lbsprof_errmsg());
  CHECK(lbsprof_phase(p, -2) != 0, "id -2 accepted");
  CHECK(lbsprof_phase(p, -1) == 0 && lbsprof_phase(p, 1) == 0, "a good id refused");
}

/* one element's stored times at one step: the phases' lower bounds and their sum */
static void check_element(int64_t app, int64_t g, double t, double a, double b) {
  CHECK(a >= a_us(g) * 1e3 * 0.99 && b >= B_US * 1e3 * 0.99,
        "step %lld element %lld: A %.0f ns (busy %.0f us), B %.0f ns (busy %.0f us)",
        (long long)app, (long long)g, a, a_us(g), b, B_US);
  if (app == EXTRA_STEP)
    CHECK(t >= a + b + EXTRA_US * 1e3 * 0.99, "step %lld element %lld: time %.0f, A + B %.0f",
          (long long)app, (long long)g, t, a + b);
  else
    CHECK(t > 0 && (t - (a + b)) <= 1e-9 * t && (a + b - t) <= 1e-9 * t,
          "step %lld element %lld: time %.0f is not A + B = %.0f", (long long)app, (long long)g, t,
          a + b);
}

/* rank 0: the metrics, the metadata and every element's times */
static void check_trace(const char *path) {
  lbs_trace *t;
  CHECK(lbs_trace_open(path, &t) == LBS_OK, "open: %s", lbs_errmsg());
  if (!t) return;
  int mt = lbs_trace_metric_find(t, "time_ns"), ma = lbs_trace_metric_find(t, "time_ns.A"),
      mb = lbs_trace_metric_find(t, "time_ns.B");
  const char *ph = lbs_trace_meta(t, LBS_PHASES_META_PREFIX "time_ns");
  CHECK(ph && !strcmp(ph, "time_ns.A,time_ns.B"), "phases.time_ns is '%s'", ph ? ph : "(none)");
  CHECK(mt >= 0 && ma >= 0 && mb >= 0, "metrics time_ns %d, time_ns.A %d, time_ns.B %d", mt, ma,
        mb);
  lbs_metric_info info;
  CHECK(ma >= 0 && lbs_trace_metric(t, ma, &info) == LBS_OK && !strcmp(info.unit, "ns"),
        "time_ns.A's unit");
  CHECK(lbs_trace_steps(t) == STEPS, "%lld steps", (long long)lbs_trace_steps(t));
  double v[3][E];
  int m[3] = {mt, ma, mb};
  for (int64_t s = 0; mt >= 0 && ma >= 0 && mb >= 0 && s < lbs_trace_steps(t); s++) {
    int64_t app = -1;
    lbs_trace_app_step(t, s, &app);
    for (int k = 0; k < 3; k++)
      CHECK(lbs_trace_read(t, s, m[k], 0, E, v[k]) == LBS_OK, "read: %s", lbs_errmsg());
    for (int64_t g = 0; g < E; g++) check_element(app, g, v[0][g], v[1][g], v[2][g]);
  }
  lbs_trace_close(&t);
}

static void one_step(lbsprof *p, int64_t n, const int64_t *gid, int s) {
  CHECK(lbsprof_phase(p, 0) == 0, "phase A: %s", lbsprof_errmsg());
  for (int64_t i = 0; i < n; i++)
    lbsprof_elem_begin(p, i), busy(a_us(gid[i])), lbsprof_elem_end(p, i);
  MPI_Barrier(MPI_COMM_WORLD); /* the exchange between the phases */
  CHECK(lbsprof_phase(p, 1) == 0, "phase B: %s", lbsprof_errmsg());
  for (int64_t i = 0; i < n; i++) lbsprof_elem_begin(p, i), busy(B_US), lbsprof_elem_end(p, i);
  if (s == EXTRA_STEP) {
    lbsprof_phase(p, -1);
    for (int64_t i = 0; i < n; i++)
      lbsprof_elem_begin(p, i), busy(EXTRA_US), lbsprof_elem_end(p, i);
  }
  CHECK(lbsprof_step_end(p) == 0, "step_end: %s", lbsprof_errmsg());
}

static void run(const lbsprof_opts *o) {
  lbsprof *p;
  CHECK(lbsprof_init(MPI_COMM_WORLD, o, &p) == 0, "init: %s", lbsprof_errmsg());
  bad_calls_before(p);
  int64_t gid[E], n;
  elements(gid, &n);
  CHECK(lbsprof_mesh_elements(p, n, gid, 0, NULL, NULL, NULL) == 0, "mesh: %s", lbsprof_errmsg());
  CHECK(lbsprof_phase_register(p, "late") < 0 && strstr(lbsprof_errmsg(), "after the mesh"),
        "registered after the mesh (%s)", lbsprof_errmsg());
  for (int s = 0; s < STEPS; s++) one_step(p, n, gid, s);
  CHECK(lbsprof_finalize(&p) == 0, "finalize: %s", lbsprof_errmsg());
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check_rank = rank;
  char path[128];
  if (rank == 0) snprintf(path, sizeof path, "/tmp/lbsprof_phases_%d.lbt", (int)getpid());
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  lbsprof_opts o;
  lbsprof_opts_default(&o);
  o.trace_path = path, o.bound = "lossless";
  without_time(&o);
  if (size > 1) disagreeing_ranks(&o);
  run(&o);
  if (rank == 0) check_trace(path), unlink(path);
  int rc = check_finish();
  MPI_Finalize();
  return rc;
}
