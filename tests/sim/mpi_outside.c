/* MPI test of the charge for the application's time outside its elements (the profiler's event
 * outside_s, sim/recorded.c; CTest: 1 and 2 ranks, outputs compared).
 *
 * A trace of 4 elements in a line, 4 steps, work 10 x (element + 1) + step, the owners recorded
 * from step 0 (0 0 1 1) and 2 (0 1 1 1), and the events partition_s and outside_s of 2 ranks at
 * every step but 2. On 2 processors (ns_per_work = 3), each step of the recorded policy costs
 * what it costs without the event plus the mean over the ranks of their wall time (outside_s
 * + their load L_r) less the step's compute (the largest load): at step 0 (loads 90 and 210 ns)
 * (2 ms + 90 + 1 ms + 210) / 2 - 210, at 1 (96, 216) (0.5 ms + 96 + 0.75 ms + 216) / 2 - 216, at
 * 2 nothing (no events), at 3 (39, 297) (1.25 ms + 39 + 3 ms + 297) / 2 - 297 (in integer ns,
 * rounded down), reported as
 * outside_ns and not as communication; compute, communication and migration as without. Under
 * policy none with cost measured (the processors are not the ranks) the least outside_s: 1 ms,
 * 0.5 ms, 0, 1.25 ms. Nothing under cost model (the default), with [sim] outside = no, or on a
 * trace without the event. A negative outside_s is refused on every rank, naming the trace. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_sim.h"
#include "mpi_check.h"
#include "path_trace.h"

#define E 4
#define S 4
#define NR 2
static const int64_t owners[2][E] = {{0, 0, 1, 1}, {0, 1, 1, 1}};
static const double outside[S][NR] = {{2e-3, 1e-3}, {5e-4, 7.5e-4}, {0, 0}, {1.25e-3, 3e-3}};
/* what each step adds: recorded (its loads: work x 3 under the owners in force), and the least
 * outside_s (cost measured under policy none); step 2 has no events */
static const int64_t want_rec[S] = {1500150 - 210, 625156 - 216, 0, 2125168 - 297};
static const int64_t want_min[S] = {1000000, 500000, 0, 1250000};

static const char *GRID = "[grid]\nns_per_work = 3\nbytes_per_elem = 100\nbytes_per_edge = 8\n"
                          "[cluster A]\nnodes = 2\nlatency_us = 1\n";

/* Rank 0 writes the trace: events 0 none, 1 partition_s alone, 2 with outside_s, 3 the same
 * with a negative outside_s of rank 1 at step 3. */
static int write_trace(const char *path, int events) {
  lbs_mesh *m;
  lbs_trace_writer *w;
  static const char *names[2] = {LBS_EVENT_PARTITION, LBS_EVENT_OUTSIDE};
  int K = events >= 2 ? 2 : 1;
  lbs_err e = path_trace_create(path, E, &w, &m);
  if (e) return 2;
  if (!e && events) e = lbs_trace_writer_set_events(w, K, names, NR);
  for (int64_t s = 0; !e && s < S; s++) {
    if (s == 0 || s == 2) e = lbs_trace_write_owners(w, s, owners[s / 2]);
    double v[E], ev[2 * NR];
    for (int i = 0; i < E; i++) v[i] = 10.0 * (i + 1) + (double)s;
    for (int r = 0; r < NR; r++) {
      ev[r * K] = 1e-3 * (r + 1); /* partition_s: charged at repartitions only */
      if (K == 2) ev[r * K + 1] = events == 3 && s == 3 && r == 1 ? -1 : outside[s][r];
    }
    const double *cols[1] = {v};
    if (!e && events && s != 2) e = lbs_trace_step_events(w, ev);
    if (!e) e = lbs_trace_write_step(w, s, cols);
  }
  if (!e) e = lbs_trace_writer_close(&w);
  lbs_mesh_destroy(&m);
  return e ? printf("writing %s: %s\n", path, lbs_errmsg()), 2 : 0;
}

/* The replay of trace under policy, cost, [sim] outside; NULL and the error in *err. */
static lbs_replay_result *run(const char *trace, const char *policy, lbs_cost_kind cost,
                              const char *outside_opt, lbs_err *err) {
  lbs_config *cfg;
  lbs_grid *g;
  lbs_trace *t;
  lbs_replay_result *r = NULL;
  if (lbs_config_parse_string("grid.ini", GRID, &cfg) || lbs_grid_from_config(cfg, &g) ||
      lbs_trace_open(trace, &t)) {
    printf("setup failed: %s\n", lbs_errmsg());
    exit(2);
  }
  lbs_replay_opts o;
  lbs_replay_opts_default(&o);
  o.partitioner = "zoltan:block", o.policy = policy, o.cfg = cfg, o.cost = cost;
  CHECK(lbs_replay_opts_set(&o, "outside", outside_opt) == LBS_OK, "outside = %s: %s", outside_opt,
        lbs_errmsg());
  *err = lbs_replay(t, g, &o, MPI_COMM_WORLD, &r);
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  return r;
}

/* r against ref, the same replay without the charge: every step longer by the least outside_s,
 * the rest as ref's. */
static void check_charged(const char *what, const lbs_replay_result *r,
                          const lbs_replay_result *ref, const int64_t *want_ns, int64_t total) {
  if (!r || !ref) return;
  int steps_ok = r->steps == S && ref->steps == S;
  int64_t sum = 0;
  for (int s = 0; steps_ok && s < S; s++)
    steps_ok &= r->step_ns[s] == ref->step_ns[s] + want_ns[s], sum += want_ns[s];
  CHECK(steps_ok, "%s: each step longer by the application's time outside its elements", what);
  CHECK(r->outside && !ref->outside && r->outside_ns == sum && sum == total &&
            r->total_ns == ref->total_ns + sum,
        "%s: outside %lld ns (expected %lld), total %lld against %lld", what,
        (long long)r->outside_ns, (long long)sum, (long long)r->total_ns, (long long)ref->total_ns);
  CHECK(r->compute_ns == ref->compute_ns && r->comm_ns == ref->comm_ns &&
            r->migration_ns == ref->migration_ns && r->partition_ns == ref->partition_ns &&
            r->nrep == ref->nrep,
        "%s: compute, communication, partitioning and migration as without", what);
  if (!check_rank)
    printf("%s: total %lld compute %lld comm %lld migration %lld outside %lld reps %d\n", what,
           (long long)r->total_ns, (long long)r->compute_ns, (long long)r->comm_ns,
           (long long)r->migration_ns, (long long)r->outside_ns, r->nrep);
}

/* r and ref are the same replay, nothing charged. */
static void check_same(const char *what, const lbs_replay_result *r, const lbs_replay_result *ref) {
  if (!r || !ref) return;
  CHECK(!r->outside && r->outside_ns == 0 && r->total_ns == ref->total_ns &&
            r->comm_ns == ref->comm_ns,
        "%s: nothing charged (total %lld, %lld)", what, (long long)r->total_ns,
        (long long)ref->total_ns);
}

static void cases(const char *with, const char *without, const char *bad) {
  lbs_err e;
  lbs_replay_result *ref = run(with, "recorded", LBS_COST_MODEL, "no", &e);
  CHECK(!e && ref, "recorded, outside = no: %s", lbs_errmsg());
  lbs_replay_result *r = run(with, "recorded", LBS_COST_MODEL, "yes", &e);
  CHECK(!e && r, "recorded: %s", lbs_errmsg());
  check_charged("recorded", r, ref, want_rec, 4249751);
  lbs_replay_result_free(&r);
  r = run(without, "recorded", LBS_COST_MODEL, "yes", &e); /* no outside_s: as before */
  CHECK(!e && r, "recorded, no event: %s", lbs_errmsg());
  check_same("recorded, no outside_s", r, ref);
  lbs_replay_result_free(&r);
  lbs_replay_result_free(&ref);
  ref = run(with, "none", LBS_COST_MEASURED, "no", &e);
  r = run(with, "none", LBS_COST_MEASURED, "yes", &e);
  CHECK(!e && r && ref, "none, cost measured: %s", lbs_errmsg());
  check_charged("none, cost measured", r, ref, want_min, 2750000);
  lbs_replay_result_free(&r);
  r = run(with, "none", LBS_COST_MODEL, "yes", &e); /* modelled costs: no measured overhead */
  CHECK(!e && r, "none, cost model: %s", lbs_errmsg());
  check_same("none, cost model", r, ref);
  lbs_replay_result_free(&r);
  lbs_replay_result_free(&ref);
  r = run(bad, "recorded", LBS_COST_MODEL, "yes", &e);
  const char *m = lbs_errmsg();
  int named = strstr(m, bad) && strstr(m, "rank 1's outside_s -1 is negative");
  MPI_Bcast(&named, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK(e == LBS_RANGE && !r && named, "a negative outside_s: code %d, '%s'", e, m);
  lbs_replay_result_free(&r);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
  char dir[64] = "/tmp/lbs_outside_XXXXXX", with[128], without[128], bad[128];
  if (check_rank == 0 && !mkdtemp(dir)) return 2;
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(with, sizeof with, "%s/with.lbt", dir);
  snprintf(without, sizeof without, "%s/without.lbt", dir);
  snprintf(bad, sizeof bad, "%s/bad.lbt", dir);
  int fail =
      check_rank == 0 && (write_trace(with, 2) || write_trace(without, 1) || write_trace(bad, 3));
  MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (fail) return 2;
  cases(with, without, bad);
  check_remove_dir(dir);
  int rc = check_finish();
  MPI_Finalize();
  return rc;
}
