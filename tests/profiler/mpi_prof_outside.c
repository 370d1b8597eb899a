/* mpi_prof_outside.c - the event outside_s that the profiler records itself (lbsprof.h,
 * LBSPROF_EVENT_OUTSIDE), on 1 and 2 ranks: 8 steps sampled every 2nd, 10 elements a rank that
 * each spin 0.1 ms. Each step a rank sleeps 2 ms outside its elements (between its element
 * loop and lbsprof_step_end, and at odd steps between lbsprof_step_end and the next step's
 * elements: an unsampled step's end still starts the next step). At step 4 it also sleeps 30 ms
 * that it records as partition_s (what the sleep took), which outside_s must not hold. Every
 * sampled step of every rank must then record outside_s >= 2 ms (the sleeps are at least that),
 * below 1 s, and the elements' time_ns must not be in it: outside_s plus the elements' time covers
 * the step. The application may not register or add outside_s, nor more than 7 events of its own.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lbs_traces.h"
#include "lbsprof.h"
#include "mpi_check.h"

#define N 10 /* elements a rank */
#define STEPS 8

static int rank, size;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void sleep_s(double s) {
  struct timespec t = {0, (long)(s * 1e9)};
  while (nanosleep(&t, &t)) {}
}

static void spin_s(double s) {
  double t0 = now_s();
  while (now_s() - t0 < s) {}
}

/* the application may not record the profiler's own event, nor take the trace's last slot */
static void bad_registrations(lbsprof *p) {
  CHECK(lbsprof_event_register(p, LBSPROF_EVENT_OUTSIDE) < 0 &&
            strstr(lbsprof_errmsg(), "records the event"),
        "outside_s registered by the application (%s)", lbsprof_errmsg());
  char name[16];
  for (int k = 0; k < 7; k++) {
    snprintf(name, sizeof name, "e%d", k);
    CHECK(lbsprof_event_register(p, name) == k, "event %d: %s", k, lbsprof_errmsg());
  }
  CHECK(lbsprof_event_register(p, "e7") < 0 && strstr(lbsprof_errmsg(), "at most 7 events"),
        "an 8th event accepted (%s)", lbsprof_errmsg());
}

static void run(const char *path) {
  lbsprof_opts o;
  lbsprof_opts_default(&o);
  o.trace_path = path, o.sample_every = 2, o.bound = "lossless";
  lbsprof *p;
  CHECK(lbsprof_init(MPI_COMM_WORLD, &o, &p) == 0, "init: %s", lbsprof_errmsg());
  bad_registrations(p); /* e0..e6: e0 stands for the partitioning */
  int64_t gid[N];
  for (int i = 0; i < N; i++) gid[i] = (int64_t)rank * N + i;
  CHECK(lbsprof_mesh_elements(p, N, gid, 0, NULL, NULL, NULL) == 0, "mesh: %s", lbsprof_errmsg());
  CHECK(lbsprof_event_add(p, 7, 1.0) != 0 && strstr(lbsprof_errmsg(), "records 'outside_s'"),
        "outside_s added by the application (%s)", lbsprof_errmsg());
  for (int s = 0; s < STEPS; s++) {
    for (int i = 0; i < N; i++) {
      lbsprof_elem_begin(p, i);
      spin_s(1e-4);
      lbsprof_elem_end(p, i);
    }
    sleep_s(s % 2 ? 1e-3 : 2e-3); /* odd steps: 1 ms here and 1 ms after their end */
    if (s == 4) {
      /* what the sleep took, not 0.03: on a loaded machine it may take far longer, and what it
       * took beyond what is recorded would be outside time */
      double t0 = now_s();
      sleep_s(0.03);
      CHECK(lbsprof_event_add(p, 0, now_s() - t0) == 0, "add: %s", lbsprof_errmsg());
    }
    CHECK(lbsprof_step_end(p) == 0, "step_end: %s", lbsprof_errmsg());
    if (s % 2) sleep_s(1e-3); /* in the next (sampled) step's outside time */
  }
  CHECK(lbsprof_finalize(&p) == 0, "finalize: %s", lbsprof_errmsg());
}

/* rank 0: every rank's outside_s at every sampled step */
static void check_trace(const char *path) {
  lbs_trace *t;
  CHECK(lbs_trace_open(path, &t) == LBS_OK, "open: %s", lbs_errmsg());
  if (!t) return;
  int K = lbs_trace_nevents(t), tm = lbs_trace_metric_find(t, "time_ns");
  CHECK(K == 8 && !strcmp(lbs_trace_event_name(t, 7), LBS_EVENT_OUTSIDE) && tm >= 0,
        "%d events, the last '%s'; time_ns %d", K, K ? lbs_trace_event_name(t, K - 1) : "", tm);
  if (K != 8 || tm < 0) {
    lbs_trace_close(&t);
    return;
  }
  double ev[8 * 2], v[2 * N];
  for (int64_t s = 0; s < lbs_trace_steps(t); s++) {
    int have = 0;
    int64_t app = -1;
    lbs_trace_app_step(t, s, &app);
    CHECK(lbs_trace_read_events(t, s, ev, &have) == LBS_OK && have, "events of step %lld: %s",
          (long long)s, lbs_errmsg());
    CHECK(lbs_trace_read(t, s, tm, 0, (int64_t)N * size, v) == LBS_OK, "time_ns: %s", lbs_errmsg());
    for (int r = 0; r < size; r++) {
      double out = ev[r * 8 + 7], in = 0;
      for (int i = 0; i < N; i++) in += 1e-9 * v[r * N + i];
      CHECK(out >= 2e-3 && out < 1, "application step %lld: rank %d's outside_s %g s",
            (long long)app, r, out);
      CHECK(in >= N * 1e-4, "application step %lld: rank %d's elements %g s", (long long)app, r,
            in);
      /* the 30 ms the application recorded as its own are not outside time */
      if (app == 4) CHECK(out < 0.03, "step 4: rank %d's outside_s %g s holds partition_s", r, out);
      CHECK(app == 4 ? ev[r * 8] >= 0.03 && ev[r * 8] < 1 : ev[r * 8] == 0,
            "step %lld: rank %d's e0 %g", (long long)app, r, ev[r * 8]);
    }
  }
  lbs_trace_close(&t);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check_rank = rank;
  char path[128];
  if (rank == 0) snprintf(path, sizeof path, "/tmp/lbsprof_outside_%d.lbt", (int)getpid());
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  CHECK(!strcmp(LBSPROF_EVENT_OUTSIDE, LBS_EVENT_OUTSIDE),
        "lbsprof.h's outside event is not lbs_traces.h's");
  run(path);
  if (rank == 0) check_trace(path), unlink(path);
  int rc = check_finish();
  MPI_Finalize();
  return rc;
}
