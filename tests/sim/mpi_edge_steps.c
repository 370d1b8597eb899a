/* MPI test of arc weights stored per step (meta edge_weight = stored@step, arrays edgew@STEP)
 * in the replay (sim/engine.c: each rank reads its rows' slice of the array in force; CTest: 1
 * and 2 ranks, outputs compared).
 *
 * A trace of 8 elements in a line, unit work, 5 trace steps, the owners recorded from step 0
 * (elements 0-3 on processor 0, 4-7 on 1: policy recorded keeps them, so only the weights change
 * the communication). Unit weights in the mesh, every arc weighing 3 from step 1 and 10 from step
 * 3 (nothing stored at 2 and 4: the array of the step before stays in force). On 2 processors
 * the steps cost compute + the halo of the one cut edge: steps 1 and 2 alike and dearer than 0,
 * steps 3 and 4 alike and dearer still; compute the same at every step. The same trace with the
 * arrays but without the meta key charges every step alike (the mesh's unit weights). The
 * optimal policy, whose search shares the weights' buffer, runs on it too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbs_sim.h"
#include "mpi_check.h"

#define E 8
#define S 5

static const char *GRID =
    "[grid]\nns_per_work = 1000\nbytes_per_edge = 100000\n[cluster A]\nnodes = 2\nlatency_us = 1\n";

/* Rank 0 writes the trace; with_key: meta edge_weight = stored@step. */
static int write_trace(const char *path, int with_key) {
  int64_t xadj[E + 1], adj[2 * E], na = 0;
  for (int i = 0; i < E; i++) {
    xadj[i] = na;
    if (i > 0) adj[na++] = i - 1;
    if (i < E - 1) adj[na++] = i + 1;
  }
  xadj[E] = na;
  lbs_mesh *m;
  lbs_metric_spec ms = {"work", "1", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}};
  const char *meta[] = {"edge_weight", LBS_EDGE_STEPS};
  lbs_trace_writer *w;
  if (lbs_mesh_create_unstructured(E, 0, NULL, xadj, adj, NULL, 0, &m)) return 2;
  lbs_trace_spec spec = {E, 4, 1, &ms, m, 1, meta};
  if (!with_key) meta[1] = "";
  lbs_err e = lbs_trace_create(path, &spec, &w);
  static const int64_t owner[E] = {0, 0, 0, 0, 1, 1, 1, 1};
  if (!e) e = lbs_trace_write_owners(w, 0, owner);
  for (int64_t s = 0; !e && s < S; s++) {
    double v[E], cw[2 * E];
    for (int i = 0; i < E; i++) v[i] = 1;
    const double *cols[1] = {v};
    e = lbs_trace_write_step(w, s, cols);
    for (int k = 0; k < na; k++) cw[k] = s == 1 ? 3 : 10;
    if (!e && with_key && (s == 1 || s == 3)) e = lbs_trace_write_edge_weights(w, s, cw);
  }
  if (!e) e = lbs_trace_writer_close(&w);
  lbs_mesh_destroy(&m);
  return e ? printf("writing %s: %s\n", path, lbs_errmsg()), 2 : 0;
}

static lbs_replay_result *run(const char *trace, const char *policy) {
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
  o.partitioner = "zoltan:block", o.policy = policy, o.cfg = cfg;
  lbs_err e = lbs_replay(t, g, &o, MPI_COMM_WORLD, &r);
  CHECK(e == LBS_OK, "replay %s under %s: %s", trace, policy, lbs_errmsg());
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  return r;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  check_rank = rank;
  char dir[64] = "/tmp/lbs_edge_steps_XXXXXX", with[128], without[128];
  if (rank == 0 && !mkdtemp(dir)) return printf("mkdtemp failed\n"), 2;
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(with, sizeof with, "%s/with.lbt", dir);
  snprintf(without, sizeof without, "%s/without.lbt", dir);
  int bad = rank == 0 ? write_trace(with, 1) || write_trace(without, 0) : 0;
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (bad) return MPI_Finalize(), 2;

  lbs_replay_result *r = run(with, "recorded"), *u = run(without, "recorded");
  if (r && u && r->steps == S && u->steps == S) {
    int64_t comm[S], compute_ok = 1, plain_ok = 1;
    for (int s = 0; s < S; s++) {
      comm[s] = r->step_ns[s] - r->step_compute_ns[s];
      compute_ok &= r->step_compute_ns[s] == r->step_compute_ns[0];
      plain_ok &= u->step_ns[s] == u->step_ns[0] && u->step_ns[s] == r->step_ns[0];
      if (rank == 0)
        printf("step %d: %lld ns, communication %lld ns\n", s, (long long)r->step_ns[s],
               (long long)comm[s]);
    }
    CHECK(compute_ok, "the compute of every step is the same");
    CHECK(comm[0] > 0 && comm[1] > comm[0] && comm[2] == comm[1] && comm[3] > comm[2] &&
              comm[4] == comm[3],
          "communication by the array in force: %lld %lld %lld %lld %lld", (long long)comm[0],
          (long long)comm[1], (long long)comm[2], (long long)comm[3], (long long)comm[4]);
    CHECK(plain_ok, "without the key, every step as step 0 with the key (the mesh's weights)");
  } else {
    CHECK(0, "replays of %d steps", S);
  }
  lbs_replay_result_free(&r), lbs_replay_result_free(&u);
  /* the optimal policy's search shares the weights' buffer with the replay */
  lbs_replay_result *o = run(with, "optimal");
  CHECK(o && o->total_ns > 0, "optimal on weights per step");
  if (o && rank == 0) printf("optimal: %lld ns\n", (long long)o->total_ns);
  lbs_replay_result_free(&o);
  check_remove_dir(dir);
  int rc = check_finish();
  MPI_Finalize();
  return rc;
}
