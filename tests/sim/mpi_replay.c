/* MPI test of the replay engine (CTest: 1 and 2 ranks, outputs compared).
 *
 * 1. Hand-computed answers. Four elements in a line 0-1-2-3 (edges weight 1), a mock
 *    partitioner that puts {0,1} on p0 and {2,3} on p1 (then {0} and {1,2,3}), p0 in
 *    cluster A (speed 1), p1 in cluster B (speed 2), one shared A-B link of 5 ns latency
 *    and 8 Gbit/s (1 byte/ns), 16 bytes per cut edge, 100 bytes per migrated element.
 *    Work per step: [10,10,10,10], [30,10,10,10], [10,10,10,40]. Worked by hand:
 *    bsp 165 ns (steps end at 47, 108, 165), des 140 ns with sharing = fifo and 144 ns with
 *    fair sharing (step 0: p1's halo starts at 15 alone, shares the link from 25 with p0's
 *    and arrives at 37, not 31: p0 starts step 1 later); bsp with a repartition before step 2
 *    (50 ns partitioning, 1 element migrated: 105 ns) 314 ns; with the grid's migration model
 *    in place of the link (2 us + 30 ns per element + 8 Gbit/s: 2130 ns) 2339 ns.
 * 2. Properties on a bump trace with real Zoltan: every element assigned exactly once; work
 *    conserved; with free links (no halo bytes) and equal speeds a bsp step lasts exactly
 *    its largest load and the total is compute + partitioning + migration.
 * 3. A policy that decides differently on the ranks (the last rank alone repartitions before
 *    step 1), and one that navigates on the last rank alone (view->eval_step, collective): on
 *    1 rank a run like any other; on 2 ranks every rank fails with the same message naming the
 *    step, where the ranks went on apart and waited for ever before. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbs_part.h"
#include "lbs_policy.h"
#include "lbs_sim.h"
#include "mpi_check.h"

static int calls;
static lbs_err mock_create(void **s, const char *a, const lbs_config *c, MPI_Comm comm) {
  (void)a, (void)c, (void)comm;
  *s = NULL;
  calls = 0;
  return LBS_OK;
}
static int mock_no(const void *s) { return (void)s, 0; }
static lbs_err mock_partition(void *s, const lbs_part_input *in, int *np) {
  static const int first[4] = {0, 0, 1, 1}, second[4] = {0, 1, 1, 1};
  (void)s;
  for (int64_t i = 0; i < in->nlocal; i++) np[i] = (calls ? second : first)[in->gid[i]];
  calls++;
  return LBS_OK;
}
static const lbs_partitioner_ops mock = {.abi = LBS_PART_ABI,
                                         .name = "mock",
                                         .methods = "",
                                         .create = mock_create,
                                         .needs_graph = mock_no,
                                         .needs_coords = mock_no,
                                         .partition = mock_partition};

/* A policy that never repartitions but, before step 5, looks back at step 2 and ahead at
 * step 9 through the navigation API; the replay's own series must agree. */
static int64_t probe_back[16], probe_ahead[16], probe_now[16];
static int probed;
static lbs_err probe_init(void **s, const char *a) {
  (void)a;
  *s = NULL;
  probed = 0;
  return LBS_OK;
}
static lbs_err probe_decide(void *s, const lbs_loadview *v, int *rep) {
  (void)s;
  *rep = 0;
  if (v->step != 5 || !v->eval_step) return LBS_OK;
  double imb;
  lbs_err e = v->eval_step(v->nav, 2, probe_back, &imb);
  if (!e) e = v->eval_step(v->nav, 9, probe_ahead, &imb);
  memcpy(probe_now, v->load_ns, (size_t)v->procs * sizeof *probe_now);
  probed = !e;
  return e;
}
static const lbs_policy_ops probe = {.abi = LBS_POLICY_ABI,
                                     .name = "probe",
                                     .usage = "probe",
                                     .init = probe_init,
                                     .decide = probe_decide};

/* Repartitions before step 1 on the last rank alone: a decision that differs between ranks. */
static lbs_err split_decide(void *s, const lbs_loadview *v, int *rep) {
  (void)s;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  *rep = v->step == 1 && rank == size - 1;
  return LBS_OK;
}
static const lbs_policy_ops split = {.abi = LBS_POLICY_ABI,
                                     .name = "split",
                                     .usage = "split",
                                     .init = probe_init,
                                     .decide = split_decide};

/* Looks at step 0 before step 1 on the last rank alone: collective calls that differ. */
static lbs_err navsplit_decide(void *s, const lbs_loadview *v, int *rep) {
  (void)s;
  int rank, size;
  int64_t load[2];
  double imb;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  *rep = 0;
  return v->step == 1 && rank == size - 1 ? v->eval_step(v->nav, 0, load, &imb) : LBS_OK;
}
static const lbs_policy_ops navsplit = {.abi = LBS_POLICY_ABI,
                                        .name = "navsplit",
                                        .usage = "navsplit",
                                        .init = probe_init,
                                        .decide = navsplit_decide};

/* Before step s, step_ns[s - 1] as the policy saw it; repartitions before every 4th step. It
 * reads the step times (no LBS_POLICY_NO_STEP_TIMES): with des_overlap = shared it gets each step
 * in flight as if it were the last. */
static int64_t seen[64];
static lbs_err seer_decide(void *s, const lbs_loadview *v, int *rep) {
  (void)s;
  if (v->step > 0 && v->step < 64) seen[v->step] = v->step_ns[v->step - 1];
  *rep = v->step > 0 && v->step % 4 == 0;
  return LBS_OK;
}
static const lbs_policy_ops seer = {.abi = LBS_POLICY_ABI,
                                    .name = "seer",
                                    .usage = "seer",
                                    .init = probe_init,
                                    .decide = seer_decide};

static int run_shared; /* run(): [sim] des_overlap = shared */

static const char *GRID =
    "[grid]\nbytes_per_edge = 16\nbytes_per_elem = 100\n[nodetype fast]\nspeed = 2\n"
    "[cluster A]\nnodes = 1\n[cluster B]\nnodes = 1\nnodetype = fast\n"
    "[link A B]\nlatency_us = 0.005\nbandwidth_gbps = 8\nshared = true\n";
static const char *GRID_FIFO =
    "[grid]\nbytes_per_edge = 16\nbytes_per_elem = 100\nsharing = fifo\n[nodetype fast]\nspeed = 2\n"
    "[cluster A]\nnodes = 1\n[cluster B]\nnodes = 1\nnodetype = fast\n"
    "[link A B]\nlatency_us = 0.005\nbandwidth_gbps = 8\nshared = true\n";

static lbs_replay_result *run(const char *trace, const char *grid_text, const char *part,
                              const char *policy, lbs_sim_mode mode, int save) {
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
  o.partitioner = part, o.policy = policy, o.mode = mode, o.part_fixed_us = 0.05,
  o.part_per_elem_ns = 0;
  o.cfg = cfg, o.save_assignment = save,
  o.des_overlap = run_shared ? LBS_DES_SHARED : LBS_DES_ORDERED;
  lbs_err e = lbs_replay(t, g, &o, MPI_COMM_WORLD, &r);
  CHECK(!e, "replay %s %s: %s", part, policy, lbs_errmsg());
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  return r;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
  int rank = check_rank;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char dir[64] = "/tmp/lbs_replay_XXXXXX", line4[128], bump[128];
  if (rank == 0 && !mkdtemp(dir)) return 2;
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(line4, sizeof line4, "%s/line4.lbt", dir);
  snprintf(bump, sizeof bump, "%s/bump.lbt", dir);
  if (rank == 0) { /* the two traces */
    int64_t xadj[] = {0, 1, 3, 5, 6}, adj[] = {1, 0, 2, 1, 3, 2};
    double xy[] = {0, 1, 2, 3};
    lbs_mesh *m;
    lbs_mesh_create_unstructured(4, 1, xy, xadj, adj, NULL, 0, &m);
    lbs_metric_spec ms = {"work", "1", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}};
    lbs_trace_spec spec = {4, 2, 1, &ms, m, 0, NULL};
    lbs_trace_writer *w;
    if (lbs_trace_create(line4, &spec, &w)) return printf("%s\n", lbs_errmsg()), 2;
    double v[3][4] = {{10, 10, 10, 10}, {30, 10, 10, 10}, {10, 10, 10, 40}};
    for (int s = 0; s < 3; s++) {
      const double *cols[1] = {v[s]};
      lbs_trace_write_step(w, s, cols);
    }
    lbs_trace_writer_close(&w);
    lbs_mesh_destroy(&m);
    lbs_gen_params gp = {"bump", 16, 10, 8, 40, 1, {0, 0, 0}};
    lbs_gen *g;
    lbs_gen_create(&gp, &g);
    lbs_mesh_create_structured(16, 10, 8, LBS_ORDER_NATURAL, &m);
    lbs_mesh_set_bytes(m, 512, 0); /* no halo bytes: free links */
    lbs_metric_spec bs = {"time_ns", "ns", LBS_CODEC_POLYLINE, {LBS_BOUND_RANGE, 1e-3}, {0, 0}};
    lbs_trace_spec bspec = {1280, 256, 1, &bs, m, 0, NULL};
    if (lbs_trace_create(bump, &bspec, &w)) return printf("%s\n", lbs_errmsg()), 2;
    double *val = malloc(1280 * sizeof *val);
    for (int s = 0; s < 40; s++) {
      lbs_gen_step(g, s, 0, NULL, val);
      const double *cols[1] = {val};
      lbs_trace_write_step(w, s, cols);
    }
    lbs_trace_writer_close(&w);
    free(val);
    lbs_mesh_destroy(&m);
    lbs_gen_destroy(&g);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  lbs_part_register(&mock);

  /* 1. hand-computed */
  lbs_replay_result *r = run(line4, GRID, "mock", "none", LBS_MODE_BSP, 0);
  if (r) {
    CHECK(r->total_ns == 165, "bsp total %lld, by hand 165", (long long)r->total_ns);
    CHECK(r->step_ns[0] == 47 && r->step_ns[1] == 61 && r->step_ns[2] == 57,
          "bsp steps %lld %lld %lld, by hand 47 61 57", (long long)r->step_ns[0],
          (long long)r->step_ns[1], (long long)r->step_ns[2]);
    CHECK(r->compute_ns == 85 && r->comm_ns == 80, "bsp compute %lld comm %lld, by hand 85 80",
          (long long)r->compute_ns, (long long)r->comm_ns);
    CHECK(r->proc_ns[2 * 2 + 1] == 25, "p1 at step 2: (10 + 40) / speed 2 = 25, got %lld",
          (long long)r->proc_ns[5]);
    if (rank == 0)
      printf("bsp  total %lld steps %lld %lld %lld\n", (long long)r->total_ns,
             (long long)r->step_ns[0], (long long)r->step_ns[1], (long long)r->step_ns[2]);
  }
  lbs_replay_result_free(&r);
  r = run(line4, GRID_FIFO, "mock", "none", LBS_MODE_DES, 0);
  if (r) {
    CHECK(r->total_ns == 140, "des fifo total %lld, by hand 140", (long long)r->total_ns);
    CHECK(r->step_ns[0] == 47 && r->step_ns[1] == 47 && r->step_ns[2] == 46,
          "des fifo advances %lld %lld %lld, by hand 47 47 46", (long long)r->step_ns[0],
          (long long)r->step_ns[1], (long long)r->step_ns[2]);
    CHECK(r->compute_ns == 80, "des compute (busiest processor) %lld, by hand 80",
          (long long)r->compute_ns);
    if (rank == 0) printf("des fifo total %lld\n", (long long)r->total_ns);
  }
  lbs_replay_result_free(&r);
  r = run(line4, GRID, "mock", "none", LBS_MODE_DES, 0);
  if (r) {
    CHECK(r->total_ns == 144, "des fair total %lld, by hand 144", (long long)r->total_ns);
    CHECK(r->step_ns[0] == 47 && r->step_ns[1] == 51 && r->step_ns[2] == 46,
          "des fair advances %lld %lld %lld, by hand 47 51 46", (long long)r->step_ns[0],
          (long long)r->step_ns[1], (long long)r->step_ns[2]);
    if (rank == 0) printf("des fair total %lld\n", (long long)r->total_ns);
  }
  lbs_replay_result_free(&r);
  r = run(line4, GRID_FIFO, "mock", "none", LBS_MODE_BSP, 0);
  if (r)
    CHECK(r->total_ns == 165,
          "bsp fifo total %lld, by hand 165 (as fair: one link, the last byte leaves as late)",
          (long long)r->total_ns);
  lbs_replay_result_free(&r);
  r = run(line4, GRID, "mock", "fixed:2", LBS_MODE_BSP, 1);
  if (r) {
    CHECK(r->nrep == 1 && r->reparts[0].step == 2, "one repartition before step 2");
    CHECK(r->partition_ns == 50, "partitioning %lld, model 50", (long long)r->partition_ns);
    CHECK(r->migration_ns == 105 && r->moved == 1,
          "migration %lld ns of %lld elements, by hand 105 ns of 1", (long long)r->migration_ns,
          (long long)r->moved);
    CHECK(r->total_ns == 314, "bsp with a repartition %lld, by hand 314", (long long)r->total_ns);
    CHECK(r->assign[4 + 1] == 1 && r->assign[1] == 0, "saved assignments before and after");
    if (rank == 0) printf("bsp+repartition total %lld\n", (long long)r->total_ns);
  }
  lbs_replay_result_free(&r);
  /* the grid's migration model in place of the links: p0 sends element 1, p1 receives it, each
   * 2 us + 1 x 30 ns + 100 B at 8 Gbit/s (100 ns) = 2130 ns, not the link's 105 */
  char gm[512];
  snprintf(gm, sizeof gm,
           "[grid]\nbytes_per_edge = 16\nbytes_per_elem = 100\nmigration_fixed_us = 2\n"
           "migration_per_elem_ns = 30\nmigration_gbps = 8\n%s",
           strstr(GRID, "[nodetype"));
  r = run(line4, gm, "mock", "fixed:2", LBS_MODE_BSP, 0);
  if (r) {
    CHECK(r->nrep == 1 && r->reparts[0].migration_ns == 2130 && r->migration_ns == 2130 &&
              r->moved == 1 && r->reparts[0].recorded == 0,
          "migration model %lld ns, by hand 2130", (long long)r->migration_ns);
    CHECK(r->total_ns == 314 - 105 + 2130, "bsp with a modelled migration %lld, by hand 2339",
          (long long)r->total_ns);
    if (rank == 0) printf("bsp+modelled migration total %lld\n", (long long)r->total_ns);
  }
  lbs_replay_result_free(&r);
  /* per element only (no byte term): 10 ns */
  snprintf(gm, sizeof gm,
           "[grid]\nbytes_per_edge = 16\nbytes_per_elem = 100\n"
           "migration_per_elem_ns = 10\n%s",
           strstr(GRID, "[nodetype"));
  r = run(line4, gm, "mock", "fixed:2", LBS_MODE_BSP, 0);
  if (r)
    CHECK(r->migration_ns == 10 && r->total_ns == 314 - 105 + 10,
          "per-element migration %lld ns, total %lld; by hand 10 and 219",
          (long long)r->migration_ns, (long long)r->total_ns);
  lbs_replay_result_free(&r);

  /* 2. properties with real Zoltan */
  const char *eq16 = "[cluster A]\nnodes = 16\nlatency_us = 3\n";
  const char *parts[] = {"zoltan:rcb", "zoltan:hsfc", "zoltan:phg"};
  for (int k = 0; k < 3; k++) {
    r = run(bump, eq16, parts[k], "fixed:10", LBS_MODE_BSP, 1);
    if (!r) continue;
    int ok = 1;
    for (int64_t s = 0; s < r->steps; s++) ok &= r->step_ns[s] == r->step_compute_ns[s];
    CHECK(ok, "%s: with free links a bsp step lasts exactly its largest load", parts[k]);
    CHECK(r->total_ns == r->compute_ns + r->partition_ns + r->migration_ns,
          "%s: total = compute + partition + migration", parts[k]);
    CHECK(r->comm_ns == 0, "%s: no communication with free links", parts[k]);
    CHECK(r->nrep == 3, "%s: fixed:10 over 40 steps repartitions 3 times", parts[k]);
    int assigned = 1;
    for (int64_t i = 0; i < (int64_t)(r->nrep + 1) * r->elements; i++)
      assigned &= r->assign[i] >= 0 && r->assign[i] < 16;
    CHECK(assigned, "%s: every element assigned to exactly one processor", parts[k]);
    /* work conserved: the per-processor sums add up to the trace's total for every step */
    lbs_trace *t;
    lbs_trace_open(bump, &t);
    double v[1280];
    int conserved = 1;
    for (int64_t s = 0; s < r->steps; s++) {
      double total = 0, sum = 0;
      lbs_trace_read(t, s, 0, 0, 1280, v);
      for (int i = 0; i < 1280; i++) total += v[i];
      for (int p = 0; p < 16; p++) sum += (double)r->proc_ns[s * 16 + p];
      conserved &= fabs(sum - total) <= 16.0; /* rounding: at most 1/2 ns per processor */
    }
    lbs_trace_close(&t);
    CHECK(conserved, "%s: work conserved at every step", parts[k]);
    if (rank == 0) {
      printf(
          "%s: total %lld compute %lld partition %lld migration %lld moved %lld imbalance %.9f\n",
          parts[k], (long long)r->total_ns, (long long)r->compute_ns, (long long)r->partition_ns,
          (long long)r->migration_ns, (long long)r->moved, r->mean_imbalance);
    }
    lbs_replay_result_free(&r);
  }
  /* the network on many flows: shared networks and NICs, fair and fifo, bsp and des; the lines
   * printed must be the same on 1 and 2 ranks (ranks_equal), and fair is never idle where fifo is
   */
  {
    const char *net =
        "[grid]\nbytes_per_edge = 2000\nbytes_per_elem = 400\nsharing = %s\n[nodetype n]\nnic_gbps = 4\n"
        "[cluster A]\nnodes = 8\nnodetype = n\nshared = true\n[cluster B]\nnodes = 8\n"
        "[link A B]\nlatency_us = 20\nbandwidth_gbps = 2\nshared = true\n";
    const char *sh[] = {"fair", "fifo"};
    int64_t tot[2][2] = {{0}};
    for (int m = 0; m < 2; m++)
      for (int k = 0; k < 2; k++) {
        char text[512];
        snprintf(text, sizeof text, net, sh[k]);
        r = run(bump, text, "zoltan:rcb", "fixed:10", m ? LBS_MODE_DES : LBS_MODE_BSP, 0);
        if (!r) continue;
        tot[m][k] = r->total_ns;
        CHECK(r->comm_ns > 0, "%s %s: halos cost time", sh[k], m ? "des" : "bsp");
        if (rank == 0)
          printf("network %s %s: total %lld comm %lld migration %lld\n", m ? "des" : "bsp", sh[k],
                 (long long)r->total_ns, (long long)r->comm_ns, (long long)r->migration_ns);
        lbs_replay_result_free(&r);
      }
    CHECK(tot[0][0] <= tot[0][1],
          "bsp: here fair sharing (%lld) is no slower than fifo (%lld), which holds the NICs idle",
          (long long)tot[0][0], (long long)tot[0][1]);
  }
  /* des_overlap = shared: the halos of overlapping steps share the network (overlap.c). On
   * dedicated links nothing is shared: the very times of ordered. On the shared grid above the
   * steps overlap: the total moves, the lines printed must be the same on 1 and 2 ranks, and a
   * policy that reads the step times sees each step in flight as if it were the last before a
   * barrier: where it repartitions, that is the step's final time. */
  {
    const char *ded =
        "[grid]\nbytes_per_edge = 20000\n[cluster A]\nnodes = 8\n[cluster B]\nnodes = 8\n"
        "[link A B]\nlatency_us = 20\nbandwidth_gbps = 2\nshared = false\n";
    const char *shr =
        "[grid]\nbytes_per_edge = 20000\nbytes_per_elem = 400\n[cluster A]\nnodes = 8\n"
        "shared = true\nbandwidth_gbps = 1\n[cluster B]\nnodes = 8\n"
        "[link A B]\nlatency_us = 20\nbandwidth_gbps = 2\nshared = true\n";
    lbs_policy_register(&seer);
    lbs_replay_result *a[2][2] = {{NULL}};
    for (int k = 0; k < 2; k++)
      for (run_shared = 0; run_shared < 2; run_shared++) {
        memset(seen, 0, sizeof seen);
        a[k][run_shared] =
            run(bump, k ? shr : ded, "zoltan:rcb", k ? "seer" : "fixed:10", LBS_MODE_DES, 0);
      }
    run_shared = 0;
    lbs_replay_result *o = a[1][0], *sh = a[1][1];
    if (a[0][0] && a[0][1]) {
      CHECK(a[0][0]->total_ns == a[0][1]->total_ns &&
                !memcmp(a[0][0]->step_ns, a[0][1]->step_ns, 40 * sizeof *a[0][0]->step_ns),
            "dedicated links: shared %lld, ordered %lld", (long long)a[0][1]->total_ns,
            (long long)a[0][0]->total_ns);
      if (rank == 0) printf("overlap, dedicated: total %lld\n", (long long)a[0][1]->total_ns);
    }
    if (o && sh) {
      int64_t sum = 0;
      int differ = 0;
      for (int st = 0; st < 40; st++) sum += sh->step_ns[st];
      for (int st = 1; st < 40; st++) differ += st % 4 != 0 && seen[st] != sh->step_ns[st - 1];
      CHECK(sh->total_ns != o->total_ns, "shared %lld = ordered: the steps do not overlap here",
            (long long)sh->total_ns);
      CHECK(sum + sh->partition_ns + sh->migration_ns == sh->total_ns,
            "the steps' final times (%lld) and the repartitions' (%lld) make the total %lld",
            (long long)sum, (long long)(sh->partition_ns + sh->migration_ns),
            (long long)sh->total_ns);
      for (int st = 4; st < 40; st += 4)
        CHECK(seen[st] == sh->step_ns[st - 1],
              "step %d before a repartition: seen %lld, final %lld", st - 1, (long long)seen[st],
              (long long)sh->step_ns[st - 1]);
      CHECK(differ > 0, "no step in flight was seen with a time other than its final one");
      if (rank == 0)
        printf("overlap, shared: total %lld (ordered %lld), %d steps seen before they were final\n",
               (long long)sh->total_ns, (long long)o->total_ns, differ);
    }
    for (int k = 0; k < 4; k++) lbs_replay_result_free(&a[k / 2][k % 2]);
  }
  /* step navigation: looking backwards and forwards does not move the simulation */
  lbs_policy_register(&probe);
  r = run(bump, eq16, "zoltan:hsfc", "probe", LBS_MODE_BSP, 0);
  lbs_replay_result *ref = run(bump, eq16, "zoltan:hsfc", "none", LBS_MODE_BSP, 0);
  if (r && ref) {
    CHECK(probed, "the probe policy navigated");
    CHECK(!memcmp(probe_back, r->proc_ns + 2 * 16, sizeof probe_back),
          "step 2 seen from step 5 = step 2 as replayed");
    CHECK(!memcmp(probe_ahead, r->proc_ns + 9 * 16, sizeof probe_ahead),
          "step 9 seen from step 5 = step 9 as replayed");
    CHECK(!memcmp(probe_now, r->proc_ns + 5 * 16, sizeof probe_now),
          "the view's loads are step 5's");
    CHECK(r->total_ns == ref->total_ns, "navigating left simulated time alone (%lld vs %lld)",
          (long long)r->total_ns, (long long)ref->total_ns);
  }
  lbs_replay_result_free(&r);
  lbs_replay_result_free(&ref);

  /* a decision, or a navigation, that differs between ranks: an error on every rank, the same,
   * naming the step */
  lbs_policy_register(&split);
  lbs_policy_register(&navsplit);
  for (int k = 0; k < 2; k++) {
    const char *pol = k ? "navsplit" : "split";
    lbs_config *cfg;
    lbs_grid *g;
    lbs_trace *t;
    lbs_config_parse_string("grid.ini", GRID, &cfg);
    lbs_grid_from_config(cfg, &g);
    lbs_trace_open(line4, &t);
    lbs_replay_opts o;
    lbs_replay_opts_default(&o);
    o.partitioner = "mock", o.policy = pol, o.cfg = cfg;
    lbs_err e = lbs_replay(t, g, &o, MPI_COMM_WORLD, &r);
    if (size == 1) { /* as many checks as on 2 ranks: the tallies are compared */
      CHECK(!e && r, "one rank: %s runs: %s", pol, lbs_errmsg());
      CHECK(r && r->nrep == 1 - k, "one rank: %s repartitions %d times", pol, 1 - k);
      CHECK(r && r->repartitioned[1] == 1 - k, "one rank: %s before step 1", pol);
    } else {
      CHECK(e == LBS_INVAL && !r, "%s: ranks that go apart fail: %d", pol, (int)e);
      char want[512], first[512] = "";
      if (k)
        snprintf(want, sizeof want,
                 "policy navsplit: its ranks went apart in deciding step 1 (1 of %d ranks call "
                 "view.eval_step where the others have decided); a policy must make the same "
                 "calls on every rank",
                 size);
      else
        snprintf(want, sizeof want,
                 "policy split: decided differently on the ranks (deciding step 1: repartition "
                 "on 1 of %d ranks); a policy must decide the same on every rank",
                 size);
      CHECK(!strcmp(lbs_errmsg(), want), "%s's message: '%s'", pol, lbs_errmsg());
      snprintf(first, sizeof first, "%s", lbs_errmsg());
      MPI_Bcast(first, sizeof first, MPI_CHAR, 0, MPI_COMM_WORLD);
      CHECK(!strcmp(first, lbs_errmsg()), "rank 0's message, '%s', is this rank's", first);
    }
    lbs_replay_result_free(&r);
    lbs_trace_close(&t);
    lbs_grid_destroy(&g);
    lbs_config_destroy(&cfg);
  }

  /* bad input: more processors than elements, graph method without graph */
  lbs_config *cfg;
  lbs_grid *g;
  lbs_trace *t;
  lbs_config_parse_string("g.ini", "[cluster A]\nnodes = 5\n", &cfg);
  lbs_grid_from_config(cfg, &g);
  lbs_trace_open(line4, &t);
  lbs_replay_opts o;
  lbs_replay_opts_default(&o);
  CHECK(lbs_replay(t, g, &o, MPI_COMM_WORLD, &r) == LBS_INVAL &&
            strstr(lbs_errmsg(), "5 processors but the trace only 4"),
        "more processors than elements: %s", lbs_errmsg());
  o.policy = "fixed:0";
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  lbs_config_parse_string("g.ini", "[cluster A]\nnodes = 2\n", &cfg);
  lbs_grid_from_config(cfg, &g);
  CHECK(lbs_replay(t, g, &o, MPI_COMM_WORLD, &r) == LBS_INVAL && strstr(lbs_errmsg(), "fixed:K"),
        "bad policy argument: %s", lbs_errmsg());
  o.policy = "none";
  o.metric = "nosuch";
  CHECK(lbs_replay(t, g, &o, MPI_COMM_WORLD, &r) == LBS_NOTFOUND &&
            strstr(lbs_errmsg(), "it has: work"),
        "unknown metric: %s", lbs_errmsg());
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);

  int status = check_finish();
  check_remove_dir(dir);
  MPI_Finalize();
  return status;
}
