/* MPI test of the phases of a step (trace metadata phases.M, sim/engine.c lbs__compute_done;
 * CTest: 1 and 2 ranks, outputs compared).
 *
 * A trace of 8 elements without a mesh (no halo), 4 steps, metrics time_ns (the sum), time_ns.H
 * and time_ns.E, phases.time_ns = "time_ns.H,time_ns.E", and recorded owners putting elements
 * 0..3 on processor 0 and 4..7 on processor 1 (policy recorded: no partitioner, no
 * repartition). At step s element i has H = 100 + s and E = 10 for i < 4, H = 10 and E = 100 + 2s
 * for the others: processor 0 is the slowest in phase H, processor 1 in phase E. On 2
 * processors with ns_per_work = 3 and a barrier of 1 us:
 *   phase H: 3 x (400 + 4s) on 0, 120 on 1; phase E: 120 on 0, 3 x (400 + 8s) on 1;
 *   bsp with phases: the step's compute 3 x (800 + 12s), its sum over the ranks' slowest;
 *   phases = no (and a trace without the key): the largest sum, 3 x (440 + 8s);
 *   des: each phase ends at the slowest processor, worked out step by step below.
 * The per-processor loads (proc_ns) are the sums either way. Refused on every rank, naming the
 * trace, the key and the metric: phases.time_ns naming a metric the trace lacks.
 *
 * Phase constraints ([sim] phase_constraints = yes): a 16 x 8 structured mesh, phase H 3 on its
 * left half (x < 8) and 1 on the right, phase E the reverse, every sum 4, no halo bytes, policy
 * none. Balanced by the sum, zoltan:rcb cuts at x = 8: each phase 192 units on its slower
 * processor, a step 3 x 384 ns of compute (metis near it: between 3 x 256 and 3 x 384). With the
 * phases as two constraints they cut across y, 128 and 128 (rcb exactly: 3 x 256 ns). Refused on
 * every rank: constraints on a trace without phases, with phases = no, with a partitioner of one
 * weight. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_json.h"
#include "lbs_sim.h"
#include "mpi_check.h"

#define E 8
#define S 4
#define BARRIER_NS 1000

static const char *GRID = "[grid]\nns_per_work = 3\nbarrier_us = 1\n[cluster A]\nnodes = 2\n";

static double hwork(int64_t s, int i) { return i < 4 ? 100.0 + (double)s : 10.0; }
static double ework(int64_t s, int i) { return i < 4 ? 10.0 : 100.0 + 2.0 * (double)s; }

/* Rank 0 writes the trace with the metadata value phases (NULL: no key). */
static int write_trace(const char *path, const char *phases) {
  lbs_metric_spec ms[3] = {
      {"time_ns", "ns", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}},
      {"time_ns.H", "ns", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}},
      {"time_ns.E", "ns", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}}};
  const char *meta[2] = {LBS_PHASES_META_PREFIX "time_ns", phases};
  lbs_trace_spec spec = {E, 4, 3, ms, NULL, phases ? 1 : 0, meta};
  static const int64_t owner[E] = {0, 0, 0, 0, 1, 1, 1, 1};
  lbs_trace_writer *w;
  lbs_err e = lbs_trace_create(path, &spec, &w);
  if (!e) e = lbs_trace_write_owners(w, 0, owner);
  for (int64_t s = 0; !e && s < S; s++) {
    double sum[E], h[E], x[E];
    for (int i = 0; i < E; i++) h[i] = hwork(s, i), x[i] = ework(s, i), sum[i] = h[i] + x[i];
    const double *cols[3] = {sum, h, x};
    e = lbs_trace_write_step(w, s, cols);
  }
  if (!e) e = lbs_trace_writer_close(&w);
  return e ? printf("writing %s: %s\n", path, lbs_errmsg()), 2 : 0;
}

/* The replay of trace under policy recorded in mode, with [sim] phases = phases; NULL and the
 * agreed error in *err when it fails. */
static lbs_replay_result *run(const char *trace, lbs_sim_mode mode, const char *phases,
                              lbs_err *err) {
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
  o.policy = "recorded", o.cfg = cfg, o.mode = mode;
  if (lbs_replay_opts_set(&o, "phases", phases)) printf("phases = %s: %s\n", phases, lbs_errmsg());
  *err = lbs_replay(t, g, &o, MPI_COMM_WORLD, &r);
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  return r;
}

/* Checks every processor's load is its sum over the phases (3 x its time_ns). */
static void check_loads(const char *what, const lbs_replay_result *r) {
  int ok = 1;
  for (int64_t s = 0; s < S; s++) {
    int64_t want[2] = {0, 0};
    for (int i = 0; i < E; i++) want[i >= 4] += (int64_t)(3 * (hwork(s, i) + ework(s, i)));
    ok &= r->proc_ns[s * 2] == want[0] && r->proc_ns[s * 2 + 1] == want[1];
  }
  CHECK(ok, "%s: each processor's load is the sum of its phases", what);
}

/* bsp: step_compute_ns of every step, the total with the barriers, the phases reported. */
static void check_bsp(const char *what, const lbs_replay_result *r, int phased) {
  int ok = 1;
  int64_t total = 0;
  for (int64_t s = 0; s < S; s++) {
    int64_t want = phased ? 3 * (800 + 12 * s) : 3 * (440 + 8 * s);
    ok &= r->step_compute_ns[s] == want;
    total += want + BARRIER_NS;
  }
  CHECK(ok, "%s: step_compute_ns %s", what, phased ? "the sum of each phase's slowest" : "max sum");
  CHECK(r->total_ns == total && r->compute_ns == total - S * BARRIER_NS,
        "%s: total %lld ns (expected %lld), compute %lld", what, (long long)r->total_ns,
        (long long)total, (long long)r->compute_ns);
  CHECK(phased ? r->nphases == 2 && !strcmp(r->phases[0], "time_ns.H") &&
                     !strcmp(r->phases[1], "time_ns.E")
               : r->nphases == 0,
        "%s: %d phases reported", what, r->nphases);
  check_loads(what, r);
  json_t *j = lbs_replay_json(r);
  char *text = j ? json_dumps(json_object_get(j, "phases"), JSON_ENCODE_ANY) : NULL;
  const char *want = phased ? "[\"time_ns.H\", \"time_ns.E\"]" : "null";
  CHECK(text && !strcmp(text, want), "%s: --json phases %s, expected %s", what,
        text ? text : "(none)", want);
  free(text);
  json_decref(j);
  if (check_rank == 0)
    printf("%s: total %lld ns, compute %lld ns\n", what, (long long)r->total_ns,
           (long long)r->compute_ns);
}

/* des: each phase ends when the slowest processor ends it; no barrier, no halo. */
static void check_des(const lbs_replay_result *r) {
  int64_t clock[2] = {0, 0};
  for (int64_t s = 0; s < S; s++) {
    int64_t h[2] = {3 * (400 + 4 * s), 120}, x[2] = {120, 3 * (400 + 8 * s)};
    int64_t sync = clock[0] + h[0] > clock[1] + h[1] ? clock[0] + h[0] : clock[1] + h[1];
    clock[0] = sync + x[0], clock[1] = sync + x[1];
  }
  int64_t want = clock[0] > clock[1] ? clock[0] : clock[1];
  CHECK(r->total_ns == want, "des: total %lld ns, expected %lld (phases synchronised)",
        (long long)r->total_ns, (long long)want);
  CHECK(r->nphases == 2, "des: %d phases reported", r->nphases);
  check_loads("des", r);
  if (check_rank == 0) printf("des: total %lld ns\n", (long long)r->total_ns);
}

#define NX 16
#define NY 8

/* Rank 0 writes the 16 x 8 mesh trace with phases H and E (phased 0: without the key). */
static int write_mesh_trace(const char *path, int phased) {
  lbs_metric_spec ms[3] = {
      {"time_ns", "ns", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}},
      {"time_ns.H", "ns", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}},
      {"time_ns.E", "ns", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}}};
  const char *meta[2] = {LBS_PHASES_META_PREFIX "time_ns", "time_ns.H,time_ns.E"};
  lbs_mesh *m = NULL;
  lbs_err e = lbs_mesh_create_structured(NX, NY, 1, LBS_ORDER_NATURAL, &m);
  if (!e) lbs_mesh_set_bytes(m, 64, 0); /* no halo: the compute alone */
  lbs_trace_spec spec = {NX * NY, 32, 3, ms, m, phased, meta};
  lbs_trace_writer *w = NULL;
  if (!e) e = lbs_trace_create(path, &spec, &w);
  for (int64_t s = 0; !e && s < S; s++) {
    double sum[NX * NY], h[NX * NY], x[NX * NY];
    for (int i = 0; i < NX * NY; i++) { /* natural order: x fastest */
      h[i] = i % NX < NX / 2 ? 3 : 1, x[i] = i % NX < NX / 2 ? 1 : 3, sum[i] = h[i] + x[i];
    }
    const double *cols[3] = {sum, h, x};
    e = lbs_trace_write_step(w, s, cols);
  }
  if (!e) e = lbs_trace_writer_close(&w);
  lbs_mesh_destroy(&m);
  return e ? printf("writing %s: %s\n", path, lbs_errmsg()), 2 : 0;
}

/* The replay of trace with partitioner part, policy none, bsp, [sim] phase_constraints = con and
 * phases = phases; NULL and the agreed error in *err when it fails. */
static lbs_replay_result *run_con(const char *trace, const char *part, const char *con,
                                  const char *phases, lbs_err *err) {
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
  o.partitioner = part, o.cfg = cfg;
  if (lbs_replay_opts_set(&o, "phase_constraints", con) ||
      lbs_replay_opts_set(&o, "phases", phases))
    printf("options: %s\n", lbs_errmsg());
  *err = lbs_replay(t, g, &o, MPI_COMM_WORLD, &r);
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  return r;
}

/* Each partitioner with and without the constraints: the sum's cut at x = 8 charges 3 x 384 ns a
 * step; the constraints' balance both phases, less (rcb: 3 x 256 exactly). */
static void check_constraints(const char *mesh) {
  const char *parts[2] = {"zoltan:rcb", "metis"};
  for (int k = 0; k < 2; k++) {
    lbs_err e1, e2;
    lbs_replay_result *one = run_con(mesh, parts[k], "no", "yes", &e1),
                      *two = run_con(mesh, parts[k], "yes", "yes", &e2);
    CHECK(!e1 && one && !e2 && two, "%s with and without phase constraints: %s", parts[k],
          lbs_errmsg());
    if (one && two) {
      int64_t sum_step = 3 * 384 + BARRIER_NS, con_step = 3 * 256 + BARRIER_NS;
      CHECK(k || one->total_ns == S * sum_step, "%s on the sum: total %lld ns, expected %lld",
            parts[k], (long long)one->total_ns, (long long)(S * sum_step));
      CHECK(two->total_ns < one->total_ns && (k || two->total_ns == S * con_step),
            "%s with phase constraints: total %lld ns, the sum's %lld (rcb: expected %lld)",
            parts[k], (long long)two->total_ns, (long long)one->total_ns,
            (long long)(S * con_step));
      if (check_rank == 0)
        printf("%s: total %lld ns on the sum, %lld ns with phase constraints\n", parts[k],
               (long long)one->total_ns, (long long)two->total_ns);
    }
    lbs_replay_result_free(&one);
    lbs_replay_result_free(&two);
  }
}

/* Phase constraints refused, the same code on every rank, the message saying why. */
static void check_constraints_refused(const char *mesh, const char *plain) {
  struct {
    const char *trace, *part, *phases, *why;
  } bad[3] = {{plain, "zoltan:rcb", "yes", "lists no phases"},
              {mesh, "zoltan:rcb", "no", "needs phases = yes"},
              {mesh, "minex", "yes", "takes one weight"}};
  for (int k = 0; k < 3; k++) {
    lbs_err e;
    lbs_replay_result *r = run_con(bad[k].trace, bad[k].part, "yes", bad[k].phases, &e);
    const char *m = lbs_errmsg();
    CHECK(e == LBS_INVAL && !r && strstr(m, "phase_constraints") && strstr(m, bad[k].why),
          "phase constraints, %s: LBS_INVAL saying '%s', got %d (%s)", bad[k].part, bad[k].why,
          (int)e, m);
    lbs_replay_result_free(&r);
  }
}

/* A refusal: the same code on every rank, its message naming what. */
static void check_bad(const char *path) {
  lbs_err e;
  lbs_replay_result *r = run(path, LBS_MODE_BSP, "yes", &e);
  const char *m = lbs_errmsg();
  CHECK(e == LBS_FORMAT && !r && strstr(m, path) && strstr(m, "phases.time_ns") &&
            strstr(m, "'time_ns.X'"),
        "a phase metric the trace lacks: LBS_FORMAT naming the trace, key and metric, got %d (%s)",
        (int)e, m);
  lbs_replay_result_free(&r);
  r = run(path, LBS_MODE_BSP, "no", &e); /* phases = no: the key is not read */
  CHECK(!e && r, "phases = no on the bad trace: %s", lbs_errmsg());
  if (r) check_bsp("bad, phases = no", r, 0);
  lbs_replay_result_free(&r);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
  char dir[64] = "/tmp/lbs_phases_XXXXXX", ph[128], plain[128], bad[128], mesh[128], mplain[128];
  if (check_rank == 0 && !mkdtemp(dir)) return 2;
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(ph, sizeof ph, "%s/phases.lbt", dir);
  snprintf(plain, sizeof plain, "%s/plain.lbt", dir);
  snprintf(bad, sizeof bad, "%s/bad.lbt", dir);
  snprintf(mesh, sizeof mesh, "%s/mesh.lbt", dir);
  snprintf(mplain, sizeof mplain, "%s/mesh_plain.lbt", dir);
  int fail = check_rank == 0 ? write_trace(ph, "time_ns.H,time_ns.E") || write_trace(plain, NULL) ||
                                   write_trace(bad, "time_ns.H,time_ns.X") ||
                                   write_mesh_trace(mesh, 1) || write_mesh_trace(mplain, 0)
                             : 0;
  MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (fail) return 2;
  lbs_err e;
  struct {
    const char *what, *path, *phases;
    int phased;
  } cases[3] = {{"phases", ph, "yes", 1}, {"phases = no", ph, "no", 0}, {"plain", plain, "yes", 0}};
  for (int k = 0; k < 3; k++) {
    lbs_replay_result *r = run(cases[k].path, LBS_MODE_BSP, cases[k].phases, &e);
    CHECK(!e && r, "%s: %s", cases[k].what, lbs_errmsg());
    if (r) check_bsp(cases[k].what, r, cases[k].phased);
    lbs_replay_result_free(&r);
  }
  lbs_replay_result *r = run(ph, LBS_MODE_DES, "yes", &e);
  CHECK(!e && r, "des: %s", lbs_errmsg());
  if (r) check_des(r);
  lbs_replay_result_free(&r);
  check_bad(bad);
  check_constraints(mesh);
  check_constraints_refused(mesh, mplain);
  check_remove_dir(dir);
  int rc = check_finish();
  MPI_Finalize();
  return rc;
}
