/* MPI test of partition_mode distributed (CTest: 2 ranks only; its answers are reproducible at
 * a fixed number of ranks, not across rank counts).
 *
 * 1. Reproducibility: on a bump trace, each of Zoltan's parallel paths (RCB, HSFC, PHG and
 *    PT-Scotch through zoltan:graph) replayed twice in one process gives identical results,
 *    step times and assignments; every element has one processor; RCB keeps its tolerance.
 * 2. The mode says which one ran: distributed when asked, rank0 by default on a small trace,
 *    distributed under auto from distributed_min_elements on.
 * 3. Bad input, each refused on every rank with its message: distributed on one rank (a
 *    communicator of one), a partitioner without a distributed path (METIS), a node whose
 *    memory cannot hold the run ([sim] memory_limit_gb), more ranks than elements. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_sim.h"
#include "mpi_check.h"

static const char *GRID =
    "[grid]\nns_per_work = 1\n[cluster A]\nnodes = 6\nlatency_us = 5\nbandwidth_gbps = 16\n";

static lbs_err run(const char *trace, const char *grid_text, const char *part, const char *settings,
                   MPI_Comm comm, lbs_replay_result **r) {
  lbs_config *cfg;
  lbs_grid *g;
  lbs_trace *t;
  lbs_replay_opts o;
  *r = NULL;
  if (lbs_config_parse_string("grid.ini", grid_text, &cfg) || lbs_grid_from_config(cfg, &g) ||
      lbs_trace_open(trace, &t)) {
    printf("setup failed: %s\n", lbs_errmsg());
    exit(2);
  }
  char buf[256];
  snprintf(buf, sizeof buf, "%s", settings);
  for (char *kv = strtok(buf, " "); kv; kv = strtok(NULL, " "))
    if (lbs_config_override(cfg, kv)) printf("override %s: %s\n", kv, lbs_errmsg()), exit(2);
  lbs_replay_opts_default(&o);
  lbs_err e = lbs_replay_opts_from_config(cfg, &o);
  if (e) printf("options: %s\n", lbs_errmsg()), exit(2);
  o.partitioner = part, o.policy = "fixed:4", o.save_assignment = 1, o.cfg = cfg;
  e = lbs_replay(t, g, &o, comm, r);
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  return e;
}

static int same(const lbs_replay_result *a, const lbs_replay_result *b) {
  if (a->total_ns != b->total_ns || a->nrep != b->nrep || a->moved != b->moved ||
      a->steps != b->steps)
    return 0;
  for (int64_t s = 0; s < a->steps; s++)
    if (a->step_ns[s] != b->step_ns[s]) return 0;
  return !memcmp(a->assign, b->assign,
                 (size_t)(a->nrep + 1) * (size_t)a->elements * sizeof *a->assign);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (check_rank == 0) printf("mpi_distributed runs on 2 ranks (it has %d)\n", size);
    MPI_Finalize();
    return 2;
  }
  char dir[64] = "/tmp/lbs_dist_XXXXXX", bump[128], one[128];
  if (check_rank == 0 && !mkdtemp(dir)) return 2;
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(bump, sizeof bump, "%s/bump.lbt", dir);
  snprintf(one, sizeof one, "%s/one.lbt", dir);
  if (check_rank == 0) {
    lbs_gen_params gp = {"bump", 40, 30,       20,
                         12,     1,  {0, 0, 0}}; /* 24,000 elements: ranks hold 8192 and 15808 */
    if (lbs_gen_write(&gp, LBS_ORDER_NATURAL, bump, NULL, NULL))
      return printf("%s\n", lbs_errmsg()), 2;
    lbs_gen_params g1 = {"bump", 1, 1, 1, 2, 1, {0, 0, 0}};
    if (lbs_gen_write(&g1, LBS_ORDER_NATURAL, one, NULL, NULL))
      return printf("%s\n", lbs_errmsg()), 2;
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* 1. the same answer twice, for each parallel path */
  const char *parts[] = {"zoltan:rcb", "zoltan:hsfc", "zoltan:phg", "zoltan:graph"};
  for (int k = 0; k < 4; k++) {
    lbs_replay_result *a, *b;
    lbs_err ea = run(bump, GRID, parts[k], "sim.partition_mode=distributed", MPI_COMM_WORLD, &a);
    lbs_err eb = run(bump, GRID, parts[k], "sim.partition_mode=distributed", MPI_COMM_WORLD, &b);
    CHECK(!ea && !eb, "%s distributed: %s", parts[k], lbs_errmsg());
    if (ea || eb) continue;
    CHECK(a->partition_mode == LBS_PARTMODE_DISTRIBUTED, "%s: the result says %s", parts[k],
          lbs_partition_mode_name(a->partition_mode));
    CHECK(same(a, b), "%s distributed: two runs differ (total %lld and %lld ns)", parts[k],
          (long long)a->total_ns, (long long)b->total_ns);
    CHECK(a->nrep == 2, "%s: fixed:4 over 12 steps repartitions before steps 4 and 8 (%d)",
          parts[k], a->nrep);
    int bad = 0;
    for (int64_t i = 0; i < (int64_t)(a->nrep + 1) * a->elements; i++)
      bad += a->assign[i] < 0 || a->assign[i] >= 6;
    CHECK(bad == 0, "%s: %d elements without a processor", parts[k], bad);
    if (k == 0)
      CHECK(a->tolerance_missed == 0, "zoltan:rcb distributed missed its tolerance (%.4f)",
            a->max_work_imbalance);
    lbs_replay_result_free(&a);
    lbs_replay_result_free(&b);
  }

  /* 2. which mode ran */
  lbs_replay_result *r;
  CHECK(!run(bump, GRID, "zoltan:rcb", "", MPI_COMM_WORLD, &r) &&
            r->partition_mode == LBS_PARTMODE_RANK0,
        "auto on 24,000 elements: rank0");
  lbs_replay_result_free(&r);
  CHECK(!run(bump, GRID, "zoltan:rcb", "sim.distributed_min_elements=20000", MPI_COMM_WORLD, &r) &&
            r->partition_mode == LBS_PARTMODE_DISTRIBUTED,
        "auto from 20,000 elements: distributed");
  lbs_replay_result_free(&r);
  CHECK(!run(bump, GRID, "metis", "sim.distributed_min_elements=20000", MPI_COMM_WORLD, &r) &&
            r->partition_mode == LBS_PARTMODE_RANK0,
        "auto with METIS, which has no distributed path: rank0");
  lbs_replay_result_free(&r);

  /* 3. bad input */
  lbs_err e = run(bump, GRID, "zoltan:rcb", "sim.partition_mode=distributed", MPI_COMM_SELF, &r);
  CHECK(e == LBS_INVAL && strstr(lbs_errmsg(), "needs 2 or more MPI ranks"),
        "distributed on one rank: %s", lbs_errmsg());
  e = run(bump, GRID, "metis", "sim.partition_mode=distributed", MPI_COMM_WORLD, &r);
  CHECK(e == LBS_INVAL && strstr(lbs_errmsg(), "metis has no distributed path"),
        "metis distributed: %s", lbs_errmsg());
  e = run(bump, GRID, "zoltan:rcb", "sim.memory_limit_gb=0.001", MPI_COMM_WORLD, &r);
  CHECK(e == LBS_NOMEM && strstr(lbs_errmsg(), "partition_mode = rank0 needs about") &&
            strstr(lbs_errmsg(), "[sim] memory_limit_gb"),
        "too little memory: %s", lbs_errmsg());
  e = run(one, "[grid]\n[cluster A]\nnodes = 1\n", "zoltan:block", "", MPI_COMM_WORLD, &r);
  CHECK(e == LBS_INVAL && strstr(lbs_errmsg(), "2 MPI ranks but the trace has only 1 elements"),
        "more ranks than elements: %s", lbs_errmsg());
  CHECK(!r, "no result after an error");

  int status = check_finish();
  check_remove_dir(dir);
  MPI_Finalize();
  return status;
}
