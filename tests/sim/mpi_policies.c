/* MPI property test (1 and 2 ranks, outputs compared): on random small traces the optimal
 * schedule is never worse than any other policy, and replaying it gives exactly the total
 * its optimiser computed. Also: the optimal bound stops cleanly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_sim.h"
#include "mpi_check.h"

static const char *grids[] = {
    "[cluster A]\nnodes = 4\nlatency_us = 2\nbandwidth_gbps = 1\n",
    "[nodetype f]\nspeed = 3\n[cluster A]\nnodes = 2\nnodetype = f\n[cluster B]\nnodes = 3\n"
    "[link A B]\nlatency_us = 20\nbandwidth_gbps = 0.5\n"};
/* the last: seed 002's heuristic in Lua (examples/policies/adaptive.lua), which must replay as
 * adaptive:0.1:2:8 does, on 1 and 2 ranks alike */
#define LUA_ADAPTIVE "lua:" LBS_SOURCE_DIR "/examples/policies/adaptive.lua:0.1:2:8"
static const char *policies[] = {"none",          "fixed:3",          "fixed:7",
                                 "threshold:0.2", "adaptive:0.1:2:8", "stop-at-rise",
                                 "metabalancer",  "cost-benefit:4",   LUA_ADAPTIVE};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
  int rank = check_rank;
  char dir[64] = "/tmp/lbs_pol_XXXXXX";
  if (rank == 0 && !mkdtemp(dir)) return 2;
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  const char *kinds[] = {"hotspot", "random", "bump"};
  for (int trial = 0; trial < 6; trial++) {
    char path[128];
    snprintf(path, sizeof path, "%s/t%d.lbt", dir, trial);
    if (rank == 0) {
      lbs_gen_params gp = {kinds[trial % 3], 8, 6, 4, 24, (uint64_t)(100 + trial), {0, 0, 0}};
      lbs_gen *g;
      lbs_mesh *m;
      lbs_gen_create(&gp, &g);
      lbs_mesh_create_structured(8, 6, 4, LBS_ORDER_NATURAL, &m);
      lbs_mesh_set_bytes(m, 256 * (trial + 1), 32);
      lbs_metric_spec ms = {"time_ns", "ns", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}};
      lbs_trace_spec spec = {192, 64, 1, &ms, m, 0, NULL};
      lbs_trace_writer *w;
      if (lbs_trace_create(path, &spec, &w)) return printf("%s\n", lbs_errmsg()), 2;
      double v[192];
      for (int s = 0; s < 24; s++) {
        lbs_gen_step(g, s, 0, NULL, v);
        for (int i = 0; i < 192; i++) v[i] *= 200; /* make imbalance worth fixing */
        const double *cols[1] = {v};
        lbs_trace_write_step(w, s, cols);
      }
      lbs_trace_writer_close(&w);
      lbs_mesh_destroy(&m);
      lbs_gen_destroy(&g);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    lbs_config *cfg;
    lbs_grid *g;
    lbs_trace *t;
    lbs_config_parse_string("g.ini", grids[trial % 2], &cfg);
    if (lbs_grid_from_config(cfg, &g) || lbs_trace_open(path, &t))
      return printf("%s\n", lbs_errmsg()), 2;
    lbs_replay_opts o;
    lbs_replay_opts_default(&o);
    o.policy = "optimal", o.mode = trial % 4 == 3 ? LBS_MODE_DES : LBS_MODE_BSP;
    o.part_fixed_us = 20, o.part_per_elem_ns = 50, o.cfg = cfg;
    lbs_replay_result *opt = NULL, *r = NULL;
    lbs_err e = lbs_replay(t, g, &o, MPI_COMM_WORLD, &opt);
    CHECK(!e, "trial %d optimal: %s", trial, lbs_errmsg());
    if (!e) {
      CHECK(opt->total_ns == opt->optimum_ns,
            "trial %d: replaying the plan gives %lld, the optimiser said %lld", trial,
            (long long)opt->total_ns, (long long)opt->optimum_ns);
      if (rank == 0)
        printf("trial %d %s optimal %lld (%d repartitions)\n", trial, kinds[trial % 3],
               (long long)opt->total_ns, opt->nrep);
      long long adaptive = -1;
      for (size_t k = 0; k < sizeof policies / sizeof *policies; k++) {
        o.policy = policies[k];
        e = lbs_replay(t, g, &o, MPI_COMM_WORLD, &r);
        CHECK(!e, "trial %d %s: %s", trial, policies[k], lbs_errmsg());
        if (e) continue;
        CHECK(opt->total_ns <= r->total_ns, "trial %d: optimal %lld > %s %lld", trial,
              (long long)opt->total_ns, policies[k], (long long)r->total_ns);
        int lua =
            !strncmp(policies[k], "lua:", 4); /* printed short: the path differs between trees */
        if (!strcmp(policies[k], "adaptive:0.1:2:8")) adaptive = (long long)r->total_ns;
        if (lua)
          CHECK(r->total_ns == adaptive, "trial %d: adaptive.lua %lld, adaptive %lld", trial,
                (long long)r->total_ns, adaptive);
        if (rank == 0)
          printf("  %-18s %lld (%d repartitions)\n", lua ? "adaptive.lua" : policies[k],
                 (long long)r->total_ns, r->nrep);
        lbs_replay_result_free(&r);
      }
    }
    lbs_replay_result_free(&opt);
    /* the bound: 23 candidate steps, bound 10 */
    o.policy = "optimal:10";
    e = lbs_replay(t, g, &o, MPI_COMM_WORLD, &r);
    CHECK(e == LBS_RANGE && strstr(lbs_errmsg(), "23 candidate steps exceed its bound of 10"),
          "bound: %s", lbs_errmsg());
    /* and a window that fits it */
    o.first_step = 5;
    o.nsteps = 10;
    e = lbs_replay(t, g, &o, MPI_COMM_WORLD, &r);
    CHECK(!e && r->total_ns == r->optimum_ns, "optimal on a window: %s",
          e ? lbs_errmsg() : "totals differ");
    lbs_replay_result_free(&r);
    o.first_step = o.nsteps = 0;
    /* optimal cannot prove anything with history-dependent partitions */
    o.policy = "optimal";
    o.approach = 1;
    e = lbs_replay(t, g, &o, MPI_COMM_WORLD, &r);
    CHECK(e == LBS_INVAL && strstr(lbs_errmsg(), "approach = partition"), "approach: %s",
          lbs_errmsg());
    lbs_trace_close(&t);
    lbs_grid_destroy(&g);
    lbs_config_destroy(&cfg);
  }
  int status = check_finish();
  check_remove_dir(dir);
  MPI_Finalize();
  return status;
}
