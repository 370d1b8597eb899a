/* test_avail.c - replays on a changing grid (sim/avail.c), under an MPI singleton: a slowdown
 * shows in the slowed processor's compute from its step on; a failure forces a repartition at
 * exactly its step that moves every element of the failed processor, which never gets work
 * again, whether the partitioner honours its zero share (zoltan:rcb) or not (a mock that cuts
 * equal blocks); steps past the trace are named; a policy that plans ahead is known by its flag
 * (LBS_POLICY_PLANS_AHEAD), not its name: it alone is offered the optimum, and it is refused a
 * changing grid and a partitioner that starts from the current assignment. */
#include <criterion/criterion.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_part.h"
#include "lbs_policy.h"
#include "lbs_sim.h"
#include "lbs_traces.h"
#include "testutil.h"

#define E 64 /* elements in a line */
#define S 8  /* steps */

/* Equal blocks of element ids, whatever the part sizes (as METIS without :speed). */
static lbs_err mock_create(void **s, const char *a, const lbs_config *c, MPI_Comm comm) {
  (void)a, (void)c, (void)comm;
  *s = NULL;
  return LBS_OK;
}
static int mock_no(const void *s) { return (void)s, 0; }
static lbs_err mock_partition(void *s, const lbs_part_input *in, int *np) {
  (void)s;
  for (int64_t i = 0; i < in->nlocal; i++) np[i] = (int)(in->gid[i] * in->nparts / E);
  return LBS_OK;
}
static const lbs_partitioner_ops mock = {.abi = LBS_PART_ABI,
                                         .name = "blocks",
                                         .methods = "",
                                         .create = mock_create,
                                         .needs_graph = mock_no,
                                         .needs_coords = mock_no,
                                         .partition = mock_partition};

/* Two policies that never repartition and note whether their view offered the optimum: planner
 * says it plans ahead, glancer does not. */
static int offered[2];
static lbs_err note_init(void **s, const char *a) {
  (void)a;
  *s = NULL;
  return LBS_OK;
}
static lbs_err planner_decide(void *s, const lbs_loadview *v, int *rep) {
  (void)s;
  offered[0] |= v->optimize != NULL;
  *rep = 0;
  return LBS_OK;
}
static lbs_err glancer_decide(void *s, const lbs_loadview *v, int *rep) {
  (void)s;
  offered[1] |= v->optimize != NULL;
  *rep = 0;
  return LBS_OK;
}
static const lbs_policy_ops planner = {.abi = LBS_POLICY_ABI,
                                       .name = "planner",
                                       .usage = "planner",
                                       .init = note_init,
                                       .decide = planner_decide,
                                       .flags = LBS_POLICY_PLANS_AHEAD};
static const lbs_policy_ops glancer = {.abi = LBS_POLICY_ABI,
                                       .name = "glancer",
                                       .usage = "glancer",
                                       .init = note_init,
                                       .decide = glancer_decide};

static char *dir, *line;
static char *mpi_session; /* tu_mpi_session */
static void up(void) {
  mpi_session = tu_mpi_session();
  MPI_Init(NULL, NULL);
  lbs_part_register(&mock);
  lbs_policy_register(&planner);
  lbs_policy_register(&glancer);
  dir = tu_tmpdir();
  line = tu_path(dir, "line.lbt");
  int64_t xadj[E + 1], adj[2 * E];
  double xy[E];
  int64_t k = 0;
  for (int i = 0; i < E; i++) {
    xadj[i] = k;
    if (i > 0) adj[k++] = i - 1;
    if (i < E - 1) adj[k++] = i + 1;
    xy[i] = i;
  }
  xadj[E] = k;
  lbs_mesh *m;
  cr_assert_eq(lbs_mesh_create_unstructured(E, 1, xy, xadj, adj, NULL, 0, &m), LBS_OK);
  lbs_metric_spec ms = {"work", "1", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}};
  lbs_trace_spec spec = {E, 2, 1, &ms, m, 0, NULL};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(line, &spec, &w), LBS_OK, "%s", lbs_errmsg());
  double v[E];
  for (int i = 0; i < E; i++) v[i] = 10; /* the same work every step: only the grid changes */
  for (int s = 0; s < S; s++) {
    const double *cols[1] = {v};
    cr_assert_eq(lbs_trace_write_step(w, s, cols), LBS_OK);
  }
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK);
  lbs_mesh_destroy(&m);
}
static void down(void) {
  free(line);
  tu_rmrf(dir);
  MPI_Finalize();
  tu_rmrf(mpi_session);
}
TestSuite(avail_replay, .init = up, .fini = down);

/* Four processors in two clusters, with the profiles given. */
static lbs_err replay(const char *profiles, const char *part, const char *policy,
                      lbs_replay_result **r) {
  char text[1024];
  snprintf(
      text, sizeof text,
      "[grid]\nbytes_per_edge = 16\nbytes_per_elem = 100\n[cluster A]\nnodes = 2\n[cluster B]\nnodes = 2\n"
      "[link A B]\nlatency_us = 10\nbandwidth_gbps = 1\n%s",
      profiles);
  lbs_config *c;
  lbs_grid *g = NULL;
  cr_assert_eq(lbs_config_parse_string("f.ini", text, &c), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_from_config(c, &g), LBS_OK, "%s", lbs_errmsg());
  lbs_config_destroy(&c);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(line, &t), LBS_OK);
  lbs_replay_opts o;
  lbs_replay_opts_default(&o);
  o.partitioner = part, o.policy = policy, o.part_fixed_us = 0.05, o.part_per_elem_ns = 0,
  o.save_assignment = 1;
  *r = NULL;
  lbs_err e = lbs_replay(t, g, &o, MPI_COMM_WORLD, r);
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  return e;
}

Test(avail_replay, without_profiles_nothing_changes) {
  lbs_replay_result *r;
  cr_assert_eq(replay("", "zoltan:rcb", "none", &r), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(r->nrep, 0);
  for (int s = 1; s < S; s++)
    for (int p = 0; p < 4; p++) cr_assert_eq(r->proc_ns[s * 4 + p], r->proc_ns[p]);
  lbs_replay_result_free(&r);
}

Test(avail_replay, a_slowdown_shows_from_its_step) {
  lbs_replay_result *r;
  cr_assert_eq(replay("[availability slow]\ntarget = proc 2\nfrom_step = 3\nspeed_factor = 0.5\n",
                      "zoltan:rcb", "none", &r),
               LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(r->nrep, 0, "a slowdown forces nothing");
  for (int s = 0; s < S; s++) {
    cr_assert_eq(r->proc_ns[s * 4 + 2], s < 3 ? r->proc_ns[2] : 2 * r->proc_ns[2], "step %d", s);
    cr_assert_eq(r->proc_ns[s * 4 + 1], r->proc_ns[1]);
  }
  cr_assert_gt(r->imbalance[3], r->imbalance[2] + 0.2);
  lbs_replay_result_free(&r);
  /* a policy that looks at the last step's imbalance reacts: the next partition gives the slow
   * processor half the share of the others */
  cr_assert_eq(replay("[availability slow]\ntarget = proc 2\nfrom_step = 3\nspeed_factor = 0.5\n",
                      "zoltan:rcb", "threshold:0.2", &r),
               LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(r->nrep, 1);
  cr_assert_eq(r->reparts[0].step, 4);
  cr_assert_lt(r->imbalance[5], 0.1);
  lbs_replay_result_free(&r);
}

static void check_failure(const char *part, const char *policy) {
  lbs_replay_result *r;
  cr_assert_eq(replay("[availability down]\ntarget = proc 1\nfrom_step = 5\nfail = true\n", part,
                      policy, &r),
               LBS_OK, "%s: %s", part, lbs_errmsg());
  int k = -1; /* the forced one */
  for (int i = 0; i < r->nrep; i++)
    if (r->reparts[i].step == 5) k = i;
  cr_assert_geq(k, 0, "%s: a repartition at exactly the failure's step", part);
  cr_assert(r->repartitioned[5]);
  for (int i = 0; i < r->nrep; i++)
    cr_assert(r->reparts[i].step != 5 || i == k, "one repartition at that step");
  const int *before = r->assign + (size_t)k * E;
  int64_t held = 0;
  for (int e = 0; e < E; e++) held += before[e] == 1;
  cr_assert_gt(held, 0);
  cr_assert_geq(r->reparts[k].moved, held, "%s: every element of the failed processor moves", part);
  cr_assert_gt(r->reparts[k].migration_ns, 0, "its migration is charged");
  cr_assert_gt(r->reparts[k].partition_ns, 0);
  for (int i = k + 1; i <= r->nrep; i++)
    for (int e = 0; e < E; e++)
      cr_assert_neq(r->assign[(size_t)i * E + e], 1, "%s: no work on it again", part);
  for (int s = 5; s < S; s++) cr_assert_eq(r->proc_ns[s * 4 + 1], 0, "%s: step %d", part, s);
  for (int s = 0; s < 5; s++) cr_assert_gt(r->proc_ns[s * 4 + 1], 0);
  lbs_replay_result_free(&r);
}

Test(avail_replay, a_failure_forces_a_repartition_that_empties_the_processor) {
  check_failure("zoltan:rcb", "none");
  check_failure("blocks", "none"); /* ignores the zero share: the engine deals its leftovers out */
  check_failure("zoltan:rcb", "fixed:2"); /* later repartitions leave it empty too */
  check_failure("blocks", "fixed:5");     /* the policy's wish at the failure's step is met by it */
}

Test(avail_replay, a_failure_before_the_window_holds_from_the_start) {
  lbs_replay_result *r;
  cr_assert_eq(replay("[availability down]\ntarget = cluster B\nfrom_step = 0\nfail = true\n",
                      "blocks", "none", &r),
               LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(r->nrep, 0, "the initial partition leaves it out: nothing to force");
  for (int e = 0; e < E; e++) cr_assert_lt(r->assign[e], 2);
  lbs_replay_result_free(&r);
}

Test(avail_replay, steps_past_the_trace_are_named) {
  lbs_replay_result *r;
  cr_assert_eq(replay("[availability late]\ntarget = proc 1\nfrom_step = 8\nfail = true\n",
                      "zoltan:rcb", "none", &r),
               LBS_RANGE);
  cr_assert_null(r);
  cr_assert_str_eq(lbs_errmsg(),
                   "f.ini:13: [availability late] from_step = 8 is past the trace's last step 7");
  cr_assert_eq(
      replay(
          "[availability late]\ntarget = proc 1\nfrom_step = 2\nuntil_step = 9\nspeed_factor = 2\n",
          "zoltan:rcb", "none", &r),
      LBS_RANGE);
  cr_assert(
      strstr(lbs_errmsg(),
             "f.ini:14: [availability late] until_step = 9 is past the trace's end (8 steps)"),
      "%s", lbs_errmsg());
  cr_assert_eq(replay("[availability x]\ntarget = proc 1\nfrom_step = 2\nspeed_factor = 2\n",
                      "zoltan:rcb", "optimal", &r),
               LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "the optimal policy"), "%s", lbs_errmsg());
}

Test(avail_replay, a_policy_that_plans_ahead_is_known_by_its_flag) {
  lbs_replay_result *r;
  cr_assert_eq(replay("", "blocks", "planner", &r), LBS_OK, "%s", lbs_errmsg());
  lbs_replay_result_free(&r);
  cr_assert_eq(replay("", "blocks", "glancer", &r), LBS_OK, "%s", lbs_errmsg());
  lbs_replay_result_free(&r);
  cr_assert(offered[0], "the policy that plans ahead is offered the optimum");
  cr_assert(!offered[1], "a policy that does not say so is not");
  cr_assert_eq(replay("[availability x]\ntarget = proc 1\nfrom_step = 2\nspeed_factor = 2\n",
                      "blocks", "planner", &r),
               LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(),
                   "[availability x]: the planner policy plans on a grid that does not change"),
            "%s", lbs_errmsg());
  cr_assert_eq(replay("", "minex", "planner", &r), LBS_INVAL);
  cr_assert(
      strstr(
          lbs_errmsg(),
          "the planner policy needs a partitioner whose answer depends only on the step; minex "),
      "%s", lbs_errmsg());
  cr_assert_eq(replay("", "minex", "glancer", &r), LBS_OK, "%s", lbs_errmsg());
  lbs_replay_result_free(&r);
}
