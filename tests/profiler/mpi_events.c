/* mpi_events.c - the application's own costs (lbsprof_event_register, lbsprof_event_add), on 1
 * and 2 ranks: 40 elements by id, 10 steps sampled every 2nd, two events (partition_s,
 * migration_s). Rank r adds known seconds at sampled and unsampled steps (an unsampled step's
 * land in the next sampled step's record) and remaps after step 4; the trace must hold every
 * rank's values at the right steps, and zeros elsewhere. Bad calls (a bad name, a duplicate,
 * registering after the mesh, a bad id, a negative or non-finite value) are refused and change
 * nothing; ranks that register different events fail the mesh's description on every rank with
 * one message. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbs_traces.h"
#include "lbsprof.h"
#include "mpi_check.h"

#define E 40
#define STEPS 10
#define K 2

static int rank, size;

/* what rank r adds to event k during application step s (before its lbsprof_step_end) */
static double added(int r, int k, int s) {
  if (k == 0 && s == 1) return 0.5 * (r + 1); /* unsampled: lands in step 2's record */
  if (k == 0 && s == 2) return 0.125 * (r + 1);
  if (k == 1 && s == 4) return 1.0 + r;
  if (k == 1 && s == 5) return 0.25; /* after the remap, unsampled: step 6's record */
  return 0;
}

/* what the trace holds for rank r, event k at sampled application step s */
static double expected(int r, int k, int s) { return added(r, k, s) + added(r, k, s - 1); }

/* ranks that register different events (2 ranks or more): the mesh fails on every rank */
static void disagreeing_ranks(const lbsprof_opts *o) {
  lbsprof *p;
  CHECK(lbsprof_init(MPI_COMM_WORLD, o, &p) == 0, "init: %s", lbsprof_errmsg());
  lbsprof_value_metric(p, "gid", "id");
  lbsprof_event_register(p, LBS_EVENT_PARTITION);
  if (rank == 0) lbsprof_event_register(p, LBS_EVENT_MIGRATION);
  int64_t gid[E], n = 0;
  for (int64_t g = 0; g < E; g++)
    if (g % size == rank) gid[n++] = g;
  int rc = lbsprof_mesh_elements(p, n, gid, 0, NULL, NULL, NULL);
  const char *want = "rank 1 registered the events 'partition_s', rank 0 "
                     "'partition_s,migration_s': every rank registers the same events";
  CHECK(rc != 0 && strstr(lbsprof_errmsg(), want), "different events: rc %d, '%s'", rc,
        lbsprof_errmsg());
  lbsprof_finalize(&p);
}

/* registrations and additions that must be refused, the events registered (ids 0 and 1) */
static void bad_calls_before(lbsprof *p) {
  static const char *const bad[] = {"", "a b", "partition/s", "a_name_of_thirty_two_characters_"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    CHECK(lbsprof_event_register(p, bad[i]) < 0 && strstr(lbsprof_errmsg(), "1-31 of"),
          "name '%s' accepted (%s)", bad[i], lbsprof_errmsg());
  CHECK(lbsprof_event_register(p, NULL) < 0, "a NULL name accepted");
  CHECK(lbsprof_event_register(p, LBS_EVENT_PARTITION) == 0, "partition: %s", lbsprof_errmsg());
  CHECK(lbsprof_event_register(p, LBS_EVENT_MIGRATION) == 1, "migration: %s", lbsprof_errmsg());
  CHECK(lbsprof_event_register(p, LBS_EVENT_PARTITION) < 0 && strstr(lbsprof_errmsg(), "exists"),
        "a duplicate accepted (%s)", lbsprof_errmsg());
}

static void bad_adds(lbsprof *p) {
  CHECK(lbsprof_event_add(p, -1, 1.0) != 0 && strstr(lbsprof_errmsg(), "no event -1"),
        "id -1 accepted (%s)", lbsprof_errmsg());
  /* id K is the profiler's own outside_s, K + 1 none */
  CHECK(lbsprof_event_add(p, K, 1.0) != 0 && strstr(lbsprof_errmsg(), "records 'outside_s'"),
        "id 2 (outside_s) accepted (%s)", lbsprof_errmsg());
  CHECK(lbsprof_event_add(p, K + 1, 1.0) != 0 && strstr(lbsprof_errmsg(), "no event 3"),
        "id 3 accepted (%s)", lbsprof_errmsg());
  CHECK(lbsprof_event_add(p, 0, -1.0) != 0 && strstr(lbsprof_errmsg(), "finite and >= 0"),
        "a negative value accepted (%s)", lbsprof_errmsg());
  CHECK(lbsprof_event_add(p, 1, NAN) != 0, "NaN accepted");
  CHECK(lbsprof_event_add(p, 1, INFINITY) != 0, "infinity accepted");
}

/* rank 0: every rank's events at every sampled step */
static void check_trace(const char *path) {
  lbs_trace *t;
  CHECK(lbs_trace_open(path, &t) == LBS_OK, "open: %s", lbs_errmsg());
  if (!t) return;
  CHECK(lbs_trace_steps(t) == STEPS / 2, "%lld steps", (long long)lbs_trace_steps(t));
  /* the application's, then the profiler's own outside_s (mpi_prof_outside.c checks its values) */
  CHECK(lbs_trace_nevents(t) == K + 1 && lbs_trace_event_ranks(t) == size, "%d events of %d ranks",
        lbs_trace_nevents(t), lbs_trace_event_ranks(t));
  if (lbs_trace_nevents(t) != K + 1 || lbs_trace_event_ranks(t) != size) {
    lbs_trace_close(&t);
    return;
  }
  CHECK(!strcmp(lbs_trace_event_name(t, 0), LBS_EVENT_PARTITION) &&
            !strcmp(lbs_trace_event_name(t, 1), LBS_EVENT_MIGRATION) &&
            !strcmp(lbs_trace_event_name(t, 2), LBS_EVENT_OUTSIDE),
        "names %s, %s, %s", lbs_trace_event_name(t, 0), lbs_trace_event_name(t, 1),
        lbs_trace_event_name(t, 2));
  double ev[2 * (K + 1)];
  for (int64_t s = 0; s < lbs_trace_steps(t); s++) {
    int64_t app = -1;
    int have = 0;
    lbs_trace_app_step(t, s, &app);
    CHECK(lbs_trace_read_events(t, s, ev, &have) == LBS_OK && have, "events of step %lld: %s",
          (long long)s, lbs_errmsg());
    for (int r = 0; r < size; r++)
      for (int k = 0; k < K; k++)
        CHECK(ev[r * (K + 1) + k] == expected(r, k, (int)app),
              "application step %lld: rank %d's %s is %g, not %g", (long long)app, r,
              lbs_trace_event_name(t, k), ev[r * (K + 1) + k], expected(r, k, (int)app));
  }
  lbs_trace_close(&t);
}

static void run(const lbsprof_opts *o) {
  lbsprof *p;
  CHECK(lbsprof_init(MPI_COMM_WORLD, o, &p) == 0, "init: %s", lbsprof_errmsg());
  int w = lbsprof_value_metric(p, "gid", "id");
  bad_calls_before(p);
  int64_t gid[E], n = 0;
  for (int64_t g = 0; g < E; g++)
    if (g % size == rank) gid[n++] = g;
  CHECK(lbsprof_mesh_elements(p, n, gid, 0, NULL, NULL, NULL) == 0, "mesh: %s", lbsprof_errmsg());
  CHECK(lbsprof_event_register(p, "late") < 0 && strstr(lbsprof_errmsg(), "after the mesh"),
        "registered after the mesh (%s)", lbsprof_errmsg());
  bad_adds(p);
  for (int s = 0; s < STEPS; s++) {
    for (int64_t i = 0; i < n; i++) {
      lbsprof_elem_begin(p, i);
      lbsprof_elem_end(p, i);
      lbsprof_set_value(p, w, i, (double)gid[i]);
    }
    for (int k = 0; k < K; k++)
      if (added(rank, k, s) > 0)
        CHECK(lbsprof_event_add(p, k, added(rank, k, s)) == 0, "add: %s", lbsprof_errmsg());
    CHECK(lbsprof_step_end(p) == 0, "step_end: %s", lbsprof_errmsg());
    if (s == 4) { /* the local order reversed: the events go on with the new layout */
      for (int64_t i = 0; i < n / 2; i++) {
        int64_t x = gid[i];
        gid[i] = gid[n - 1 - i], gid[n - 1 - i] = x;
      }
      CHECK(lbsprof_remap(p, n, gid) == 0, "remap: %s", lbsprof_errmsg());
    }
  }
  CHECK(lbsprof_finalize(&p) == 0, "finalize: %s", lbsprof_errmsg());
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check_rank = rank;
  char path[128];
  if (rank == 0) snprintf(path, sizeof path, "/tmp/lbsprof_events_%d.lbt", (int)getpid());
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  lbsprof_opts o;
  lbsprof_opts_default(&o);
  o.trace_path = path, o.sample_every = 2, o.bound = "lossless";
  CHECK(!strcmp(LBSPROF_EVENT_PARTITION, LBS_EVENT_PARTITION) &&
            !strcmp(LBSPROF_EVENT_MIGRATION, LBS_EVENT_MIGRATION),
        "lbsprof.h's event names are not lbs_traces.h's");
  if (size > 1) disagreeing_ranks(&o);
  run(&o);
  if (rank == 0) check_trace(path), unlink(path);
  int rc = check_finish();
  MPI_Finalize();
  return rc;
}
