/* MPI test of policy recorded, the application's own assignments replayed (sim/recorded.c;
 * CTest: 1 and 2 ranks, outputs compared).
 *
 * A trace of 8 elements in a line (a graph, so halos cost time) sampled at application steps
 * 0, 5, ..., 30 (trace steps 0..6), work 10 x (element + 1) + step, with owners recorded from
 * application steps 0, 10 (elements 0 and 5 move), 20 (element 0 moves again, rank 0 gives its
 * last two away), 22 and 24 (both between the sampled steps 20 and 25: they collapse to 24's,
 * one element away from 20's) and 30 (the same as 24's: a repartition that moves nothing). On 3
 * processors with ns_per_work = 3: repartitions before trace steps 2, 4, 5 and 6 moving 2, 3, 1
 * and 0 elements, each processor's compute time 3 x the work of its recorded elements, nothing
 * charged for partitioning, the saved assignments the recorded ones, the partitioner reported
 * as "recorded" (the option names one that cannot even run on this trace: it has no
 * coordinates). A window from trace step 3 starts from the assignment in force there. Refused,
 * on every rank, naming the trace: a trace with no recorded owners, a grid with fewer
 * processors than the recorded ranks. `mpi_recorded --write DIR` writes the two traces (own.lbt,
 * bare.lbt) for e2e.recorded_cli and does nothing else. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_sim.h"
#include "mpi_check.h"

#define E 8
#define S 7
#define NA 6
static const int64_t app_of[S] = {0, 5, 10, 15, 20, 25, 30};
static const int64_t rec_step[NA] = {0, 10, 20, 22, 24, 30};
static const int64_t owners[NA][E] = {{0, 0, 0, 1, 1, 1, 2, 2}, {1, 0, 0, 1, 1, 2, 2, 2},
                                      {2, 1, 2, 1, 1, 2, 2, 2}, {0, 0, 0, 0, 0, 0, 0, 0},
                                      {2, 1, 2, 1, 1, 2, 2, 1}, {2, 1, 2, 1, 1, 2, 2, 1}};

static const char *GRID3 = "[grid]\nns_per_work = 3\nbytes_per_elem = 100\nbytes_per_edge = 8\n"
                           "[cluster A]\nnodes = 3\nlatency_us = 1\n";
static const char *GRID2 =
    "[grid]\nns_per_work = 3\nbytes_per_elem = 100\n[cluster A]\nnodes = 2\n";

static double work(int64_t s, int i) { return 10.0 * (i + 1) + (double)s; }

/* The recorded assignment in force at trace step s, found the slow way. */
static int in_force(int64_t s) {
  int k = 0;
  for (int i = 0; i < NA; i++)
    if (rec_step[i] <= app_of[s]) k = i;
  return k;
}

/* Rank 0 writes the trace, with the recorded owners or without. */
static int write_trace(const char *path, int with_owners) {
  int64_t xadj[E + 1], adj[2 * E], na = 0;
  for (int i = 0; i < E; i++) {
    xadj[i] = na;
    if (i > 0) adj[na++] = i - 1;
    if (i < E - 1) adj[na++] = i + 1;
  }
  xadj[E] = na;
  lbs_mesh *m;
  lbs_metric_spec ms = {"work", "1", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}};
  lbs_trace_writer *w;
  if (lbs_mesh_create_unstructured(E, 0, NULL, xadj, adj, NULL, 0, &m)) return 2;
  lbs_trace_spec spec = {E, 4, 1, &ms, m, 0, NULL};
  lbs_err e = lbs_trace_create(path, &spec, &w);
  for (int64_t s = 0, k = 0; !e && s < S; s++) {
    for (; with_owners && k < NA && rec_step[k] <= app_of[s]; k++) /* before its first step */
      e = lbs_trace_write_owners(w, rec_step[k], owners[k]);
    double v[E];
    for (int i = 0; i < E; i++) v[i] = work(s, i);
    const double *cols[1] = {v};
    if (!e) e = lbs_trace_write_step(w, app_of[s], cols);
  }
  if (!e) e = lbs_trace_writer_close(&w);
  lbs_mesh_destroy(&m);
  return e ? printf("writing %s: %s\n", path, lbs_errmsg()), 2 : 0;
}

/* The replay of trace on grid_text under policy recorded, window [first, first + n); NULL and
 * the agreed error in *err when it fails. */
static lbs_replay_result *run(const char *trace, const char *grid_text, int64_t first, int64_t n,
                              lbs_err *err) {
  lbs_config *cfg;
  lbs_grid *g;
  lbs_trace *t;
  lbs_replay_result *r = NULL;
  if (lbs_config_parse_string("grid.ini", grid_text, &cfg) || lbs_grid_from_config(cfg, &g) ||
      lbs_trace_open(trace, &t)) {
    printf("setup failed: %s\n", lbs_errmsg());
    exit(2);
  }
  lbs_replay_opts o;
  lbs_replay_opts_default(&o);
  o.partitioner = "zoltan:rcb", o.policy = "recorded", o.cfg = cfg, o.save_assignment = 1;
  o.first_step = first, o.nsteps = n;
  *err = lbs_replay(t, g, &o, MPI_COMM_WORLD, &r);
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  return r;
}

/* The checks every window shares: where it repartitions, what moves, each processor's compute
 * time and the saved assignments, against the recorded owners. */
static void check_window(const lbs_replay_result *r, int64_t first) {
  int expect_rep = 0, moves_ok = 1, loads_ok = 1, assign_ok = 1, k = 0;
  for (int64_t s = 0; s < r->steps; s++) {
    int64_t ts = first + s, want[3] = {0, 0, 0};
    int a = in_force(ts), rep = s > 0 && a != in_force(ts - 1);
    CHECK(r->repartitioned[s] == rep, "window from %lld: step %lld repartitioned %d, expected %d",
          (long long)first, (long long)ts, r->repartitioned[s], rep);
    for (int i = 0; i < E; i++) want[owners[a][i]] += (int64_t)(3 * work(ts, i));
    for (int p = 0; p < 3; p++) loads_ok &= r->proc_ns[s * 3 + p] == want[p];
    if (s == 0 || rep) { /* the saved assignment k is the one recorded */
      for (int i = 0; i < E; i++) assign_ok &= r->assign[(size_t)k * E + i] == owners[a][i];
      k++;
    }
    if (!rep) continue;
    int moved = 0, prev = in_force(ts - 1);
    for (int i = 0; i < E; i++) moved += owners[a][i] != owners[prev][i];
    const lbs_repart_rec *rr = &r->reparts[expect_rep++];
    moves_ok &= rr->step == s && rr->moved == moved && rr->partition_ns == 0 &&
                (moved ? rr->migration_ns > 0 : rr->migration_ns == 0);
  }
  CHECK(r->nrep == expect_rep, "window from %lld: %d repartitions, expected %d", (long long)first,
        r->nrep, expect_rep);
  CHECK(moves_ok, "window from %lld: moves, migration and no partitioning time", (long long)first);
  CHECK(loads_ok, "window from %lld: compute = 3 x the work of each processor's elements",
        (long long)first);
  CHECK(assign_ok, "window from %lld: the saved assignments are the recorded ones",
        (long long)first);
  CHECK(!strcmp(r->partitioner, "recorded") && r->partition_ns == 0,
        "reported partitioner '%s' (the application's own), partitioning %lld ns", r->partitioner,
        (long long)r->partition_ns);
  CHECK(r->total_ns == r->compute_ns + r->comm_ns + r->migration_ns && r->comm_ns > 0,
        "total = compute + communication + migration");
}

/* What must be the same on 1 and 2 ranks. */
static void print_result(const char *what, const lbs_replay_result *r) {
  if (check_rank) return;
  printf("%s: total %lld compute %lld comm %lld migration %lld moved %lld reps", what,
         (long long)r->total_ns, (long long)r->compute_ns, (long long)r->comm_ns,
         (long long)r->migration_ns, (long long)r->moved);
  for (int k = 0; k < r->nrep; k++)
    printf(" %lld:%lld:%lld", (long long)(r->first_step + r->reparts[k].step),
           (long long)r->reparts[k].moved, (long long)r->reparts[k].migration_ns);
  printf("\n");
}

/* A refusal: every rank fails with the same code, its message names the trace and says why. */
static void check_refused(lbs_err e, lbs_replay_result *r, lbs_err want, const char *trace,
                          const char *why) {
  const char *m = lbs_errmsg();
  CHECK(e == want && !r, "%s: code %d, expected %d", why, e, want);
  int named = strstr(m, trace) && strstr(m, why); /* the agreed message is rank 0's */
  MPI_Bcast(&named, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK(named, "message names %s and '%s': %s", trace, why, m);
}

int main(int argc, char **argv) {
  char own[128], bare[128];
  if (argc == 3 && !strcmp(argv[1], "--write")) { /* the traces for e2e.recorded_cli, no MPI */
    snprintf(own, sizeof own, "%s/own.lbt", argv[2]);
    snprintf(bare, sizeof bare, "%s/bare.lbt", argv[2]);
    return write_trace(own, 1) || write_trace(bare, 0) ? 2 : 0;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
  char dir[64] = "/tmp/lbs_recorded_XXXXXX";
  if (check_rank == 0 && !mkdtemp(dir)) return 2;
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(own, sizeof own, "%s/own.lbt", dir);
  snprintf(bare, sizeof bare, "%s/bare.lbt", dir);
  int bad = check_rank == 0 ? write_trace(own, 1) || write_trace(bare, 0) : 0;
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (bad) return 2;
  lbs_err e;
  lbs_replay_result *r = run(own, GRID3, 0, 0, &e);
  CHECK(!e && r, "the whole trace: %s", lbs_errmsg());
  if (r) {
    CHECK(r->nrep == 4 && r->moved == 6, "4 repartitions moving 6 elements, got %d moving %lld",
          r->nrep, (long long)r->moved);
    check_window(r, 0);
    print_result("whole", r);
  }
  lbs_replay_result_free(&r);
  r = run(own, GRID3, 3, 3, &e); /* trace steps 3..5: starts under step 10's assignment */
  CHECK(!e && r, "the window from step 3: %s", lbs_errmsg());
  if (r) {
    CHECK(r->nrep == 2, "the window repartitions twice, got %d", r->nrep);
    check_window(r, 3);
    print_result("window", r);
  }
  lbs_replay_result_free(&r);
  r = run(bare, GRID3, 0, 0, &e);
  check_refused(e, r, LBS_INVAL, bare, "has none recorded");
  lbs_replay_result_free(&r);
  r = run(own, GRID2, 0, 0, &e);
  check_refused(e, r, LBS_INVAL, own, "puts elements on rank 2, and the grid has 2 processors");
  lbs_replay_result_free(&r);
  check_remove_dir(dir);
  int rc = check_finish();
  MPI_Finalize();
  return rc;
}
