/* MPI test of policy recorded, the application's own assignments replayed (sim/recorded.c;
 * CTest: 1 and 2 ranks, outputs compared).
 *
 * A trace of 8 elements in a line (a graph, so halos cost time) sampled at application steps
 * 0, 5, ..., 30 (trace steps 0..6), work 10 x (element + 1) + step, with owners recorded from
 * application steps 0, 10 (elements 0 and 5 move), 20 (element 0 moves again, rank 0 gives its
 * last two away), 22 and 24 (both between the sampled steps 20 and 25: they collapse to 24's,
 * one element away from 20's) and 30 (the same as 24's: a repartition that moves nothing). On 3
 * processors with ns_per_work = 3: repartitions before trace steps 2, 4, 5 and 6 moving 2, 3, 1
 * and 0 elements, each processor's compute time 3 x the work of its recorded elements, the
 * saved assignments the recorded ones, the partitioner reported as "recorded" (the option names
 * one that cannot even run on this trace: it has no coordinates). Without the application's
 * costs in the trace (plain.lbt) nothing is charged for partitioning and the moves go over the
 * links; with them (own.lbt: events partition_s and migration_s of 3 ranks at trace steps 2 and
 * 5, not 4 and 6, and at 3, where nothing repartitions) the repartitions at 2 and 5 are charged
 * the largest over the ranks instead (partitioning none under cost zero), the others as
 * without, the rest of the run unchanged, the recorder hearing the same charges and the result
 * counting 2 recorded costs. A window from trace step 3 starts from the assignment in force
 * there. Refused, on every rank, naming the trace: a trace with no recorded owners, a grid with
 * fewer processors than the recorded ranks, a negative recorded cost. `mpi_recorded --write
 * DIR` writes the four traces (own.lbt, plain.lbt, bare.lbt, badev.lbt) for e2e.recorded_cli
 * and does nothing else. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_sim.h"
#include "mpi_check.h"
#include "path_trace.h"

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

/* The application's own costs (events partition_s, migration_s of its 3 ranks, seconds) at the
 * trace steps that have them: before the repartitions of trace steps 2 and 5 (not 4 and 6), and
 * at step 3, where nothing repartitions (the replay charges none of it). */
#define NR 3
static const int ev_at[3] = {2, 3, 5};
static const double ev_part[3][NR] = {{1.5e-3, 2.5e-3, 2e-3}, {9, 9, 9}, {0, 1.2345678915e-3, 0}};
static const double ev_mig[3][NR] = {{4e-3, 1e-3, 3e-3}, {9, 9, 9}, {0, 0, 7.5e-4}};

/* The index into ev_at of trace step ts, -1 when it has no events. */
static int events_of(int64_t ts) {
  for (int k = 0; k < 3; k++)
    if (ev_at[k] == ts) return k;
  return -1;
}

/* What the replay charges from the events of trace step ts: the largest over the ranks, ns. */
static int64_t max_ns(const double v[NR]) {
  double m = 0;
  for (int r = 0; r < NR; r++) m = v[r] > m ? v[r] : m;
  return llround(m * 1e9);
}

/* Declares the events and gives trace step s's (rank-major), if it has any; bad: a negative
 * migration_s of rank 1 at step 5. */
static lbs_err write_events(lbs_trace_writer *w, int64_t s, int bad) {
  static const char *names[2] = {LBS_EVENT_MIGRATION, LBS_EVENT_PARTITION}; /* any order */
  lbs_err e = s ? LBS_OK : lbs_trace_writer_set_events(w, 2, names, NR);
  int k = events_of(s);
  double ev[2 * NR];
  for (int r = 0; k >= 0 && r < NR; r++)
    ev[2 * r] = bad && s == 5 && r == 1 ? -1 : ev_mig[k][r], ev[2 * r + 1] = ev_part[k][r];
  return e || k < 0 ? e : lbs_trace_step_events(w, ev);
}

/* Rank 0 writes the trace, with the recorded owners or without, and with events: 0 none, 1 the
 * application's costs, 2 the same with a negative one. */
static int write_trace(const char *path, int with_owners, int events) {
  lbs_mesh *m;
  lbs_trace_writer *w;
  lbs_err e = path_trace_create(path, E, &w, &m);
  if (e) return 2;
  for (int64_t s = 0, k = 0; !e && s < S; s++) {
    for (; with_owners && k < NA && rec_step[k] <= app_of[s]; k++) /* before its first step */
      e = lbs_trace_write_owners(w, rec_step[k], owners[k]);
    double v[E];
    for (int i = 0; i < E; i++) v[i] = work(s, i);
    const double *cols[1] = {v};
    if (!e && events) e = write_events(w, s, events == 2);
    if (!e) e = lbs_trace_write_step(w, app_of[s], cols);
  }
  if (!e) e = lbs_trace_writer_close(&w);
  lbs_mesh_destroy(&m);
  return e ? printf("writing %s: %s\n", path, lbs_errmsg()), 2 : 0;
}

/* What the recorder heard of each repartition (lbs_replay_recorder.repartition). */
typedef struct {
  int64_t part, mig, span; /* span: the transfers' latest arrival - their ready time, or -1 */
  int nmig;
} heard_rep;
static heard_rep heard[S];
static int nheard;

static lbs_err on_repartition(void *arg, int64_t step, int64_t partition_ns, int64_t migration_ns,
                              const lbs_transfer *mig, int nmig) {
  (void)arg, (void)step;
  int64_t span = -1;
  for (int i = 0; i < nmig; i++)
    span = mig[i].arrival - mig[i].ready > span ? mig[i].arrival - mig[i].ready : span;
  if (nheard < S) heard[nheard++] = (heard_rep){partition_ns, migration_ns, span, nmig};
  return LBS_OK;
}

/* The replay of trace on grid_text under policy recorded, window [first, first + n), the cost
 * kind cost, the recorder listening; NULL and the agreed error in *err when it fails. */
static lbs_replay_result *run(const char *trace, const char *grid_text, int64_t first, int64_t n,
                              lbs_cost_kind cost, lbs_err *err) {
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
  o.first_step = first, o.nsteps = n, o.cost = cost;
  lbs_replay_recorder rec = {on_repartition, NULL, NULL};
  nheard = 0;
  *err = lbs_replay_record(t, g, &o, &rec, MPI_COMM_WORLD, &r);
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  return r;
}

/* The checks every window shares: where it repartitions, what moves, each processor's compute
 * time and the saved assignments, against the recorded owners. */
static void check_window(const lbs_replay_result *r, int64_t first, int events) {
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
    moves_ok &= rr->step == s && rr->moved == moved;
    if (!events) /* the charges of a trace without the application's own (check_charges) */
      moves_ok &= rr->partition_ns == 0 && rr->recorded == 0 &&
                  (moved ? rr->migration_ns > 0 : rr->migration_ns == 0);
  }
  CHECK(r->nrep == expect_rep, "window from %lld: %d repartitions, expected %d", (long long)first,
        r->nrep, expect_rep);
  CHECK(moves_ok, "window from %lld: moves, migration and no partitioning time", (long long)first);
  CHECK(loads_ok, "window from %lld: compute = 3 x the work of each processor's elements",
        (long long)first);
  CHECK(assign_ok, "window from %lld: the saved assignments are the recorded ones",
        (long long)first);
  CHECK(!strcmp(r->partitioner, "recorded") && (events || r->partition_ns == 0),
        "reported partitioner '%s' (the application's own), partitioning %lld ns", r->partitioner,
        (long long)r->partition_ns);
  CHECK(r->total_ns == r->compute_ns + r->comm_ns + r->partition_ns + r->migration_ns &&
            r->comm_ns > 0,
        "total = compute + communication + partitioning + migration");
}

/* The charges of r, a replay of the trace with the application's costs (cost zero or not),
 * against ref, the same window of the trace without them: where the repartition's trace step
 * has events, the largest over the ranks (partitioning none under cost zero), else ref's (no
 * partitioning, migration over the links); the recorder heard the same; the rest of the run
 * is ref's. */
static void check_charges(const lbs_replay_result *r, const lbs_replay_result *ref, int zero) {
  int ok = r->nrep == ref->nrep && nheard == r->nrep, heard_ok = ok, nrec = 0;
  int64_t part = 0, mig = 0;
  for (int k = 0; ok && k < r->nrep; k++) {
    const lbs_repart_rec *rr = &r->reparts[k], *rf = &ref->reparts[k];
    int ev = events_of(r->first_step + rr->step), from = ev >= 0 ? (zero ? 2 : 3) : 0;
    int64_t want_part = ev >= 0 && !zero ? max_ns(ev_part[ev]) : 0,
            want_mig = ev >= 0 ? max_ns(ev_mig[ev]) : rf->migration_ns;
    ok &= rr->step == rf->step && rr->partition_ns == want_part && rr->migration_ns == want_mig &&
          rr->recorded == from && rf->partition_ns == 0 && rf->recorded == 0;
    if (!ok)
      printf("step %lld: partition %lld migration %lld (%d), expected %lld %lld (%d)\n",
             (long long)(r->first_step + rr->step), (long long)rr->partition_ns,
             (long long)rr->migration_ns, rr->recorded, (long long)want_part, (long long)want_mig,
             from);
    const heard_rep *h = &heard[k];
    heard_ok &= h->part == want_part &&
                (ev >= 0 ? h->mig == want_mig && h->nmig == 0
                         : h->mig == -1 && (h->nmig ? h->span == want_mig : want_mig == 0));
    part += want_part, mig += want_mig, nrec += from != 0;
  }
  CHECK(ok, "window from %lld%s: each repartition's charges", (long long)r->first_step,
        zero ? ", cost zero" : "");
  CHECK(heard_ok, "window from %lld%s: the recorder hears the same charges",
        (long long)r->first_step, zero ? ", cost zero" : "");
  CHECK(r->partition_ns == part && r->migration_ns == mig && r->recorded_costs == nrec,
        "window from %lld: partitioning %lld migration %lld ns, %d recorded costs; expected %lld "
        "%lld, %d",
        (long long)r->first_step, (long long)r->partition_ns, (long long)r->migration_ns,
        r->recorded_costs, (long long)part, (long long)mig, nrec);
  CHECK(r->compute_ns == ref->compute_ns && r->comm_ns == ref->comm_ns &&
            r->total_ns == ref->total_ns - ref->migration_ns + part + mig,
        "window from %lld: the totals add up (total %lld, without the application's costs %lld)",
        (long long)r->first_step, (long long)r->total_ns, (long long)ref->total_ns);
}

/* What must be the same on 1 and 2 ranks. */
static void print_result(const char *what, const lbs_replay_result *r) {
  if (check_rank) return;
  printf("%s: total %lld compute %lld comm %lld migration %lld moved %lld reps", what,
         (long long)r->total_ns, (long long)r->compute_ns, (long long)r->comm_ns,
         (long long)r->migration_ns, (long long)r->moved);
  for (int k = 0; k < r->nrep; k++)
    printf(" %lld:%lld:%lld:%lld:%d", (long long)(r->first_step + r->reparts[k].step),
           (long long)r->reparts[k].moved, (long long)r->reparts[k].partition_ns,
           (long long)r->reparts[k].migration_ns, r->reparts[k].recorded);
  printf(" recorded_costs %d\n", r->recorded_costs);
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

/* The traces, in dir: own.lbt (owners and the application's costs), plain.lbt (owners alone),
 * bare.lbt (neither), badev.lbt (owners and a negative cost). */
static int write_all(const char *dir) {
  char p[4][160];
  const char *name[4] = {"own", "plain", "bare", "badev"};
  const int owners_of[4] = {1, 1, 0, 1}, events[4] = {1, 0, 0, 2};
  int bad = 0;
  for (int k = 0; k < 4; k++) {
    snprintf(p[k], sizeof p[k], "%s/%s.lbt", dir, name[k]);
    bad = bad || write_trace(p[k], owners_of[k], events[k]);
  }
  return bad;
}

/* A window of own.lbt against the same of plain.lbt: the schedule, the charges (also under cost
 * zero), the same on 1 and 2 ranks. */
static void check_costs(const char *own, const char *plain, int64_t first, int64_t n, int nrep) {
  lbs_err e;
  lbs_replay_result *ref = run(plain, GRID3, first, n, LBS_COST_MODEL, &e);
  CHECK(!e && ref, "%s from step %lld: %s", plain, (long long)first, lbs_errmsg());
  lbs_replay_result *r = run(own, GRID3, first, n, LBS_COST_MODEL, &e);
  CHECK(!e && r, "%s from step %lld: %s", own, (long long)first, lbs_errmsg());
  if (r && ref) {
    CHECK(r->nrep == nrep, "window from %lld: %d repartitions, got %d", (long long)first, nrep,
          r->nrep);
    check_window(ref, first, 0);
    check_window(r, first, 1);
    check_charges(r, ref, 0);
    print_result(first ? "window" : "whole", r);
  }
  lbs_replay_result_free(&r);
  r = run(own, GRID3, first, n, LBS_COST_ZERO, &e);
  CHECK(!e && r, "%s from step %lld, cost zero: %s", own, (long long)first, lbs_errmsg());
  if (r && ref) {
    check_charges(r, ref, 1);
    print_result("zero", r);
  }
  lbs_replay_result_free(&r);
  lbs_replay_result_free(&ref);
}

int main(int argc, char **argv) {
  char own[128], plain[128], bare[128], badev[128];
  if (argc == 3 && !strcmp(argv[1], "--write")) /* the traces for e2e.recorded_cli, no MPI */
    return write_all(argv[2]) ? 2 : 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
  char dir[64] = "/tmp/lbs_recorded_XXXXXX";
  if (check_rank == 0 && !mkdtemp(dir)) return 2;
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(own, sizeof own, "%s/own.lbt", dir);
  snprintf(plain, sizeof plain, "%s/plain.lbt", dir);
  snprintf(bare, sizeof bare, "%s/bare.lbt", dir);
  snprintf(badev, sizeof badev, "%s/badev.lbt", dir);
  int bad = check_rank == 0 ? write_all(dir) : 0;
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (bad) return 2;
  lbs_err e;
  lbs_replay_result *r = run(plain, GRID3, 0, 0, LBS_COST_MODEL, &e);
  CHECK(!e && r, "the whole trace: %s", lbs_errmsg());
  if (r)
    CHECK(r->nrep == 4 && r->moved == 6, "4 repartitions moving 6 elements, got %d moving %lld",
          r->nrep, (long long)r->moved);
  lbs_replay_result_free(&r);
  check_costs(own, plain, 0, 0, 4);
  check_costs(own, plain, 3, 3, 2); /* trace steps 3..5: starts under step 10's assignment */
  r = run(bare, GRID3, 0, 0, LBS_COST_MODEL, &e);
  check_refused(e, r, LBS_INVAL, bare, "has none recorded");
  lbs_replay_result_free(&r);
  r = run(own, GRID2, 0, 0, LBS_COST_MODEL, &e);
  check_refused(e, r, LBS_INVAL, own, "puts elements on rank 2, and the grid has 2 processors");
  lbs_replay_result_free(&r);
  r = run(badev, GRID3, 0, 0, LBS_COST_MODEL, &e);
  check_refused(e, r, LBS_RANGE, badev,
                "step 5 (application step 25): rank 1's migration_s -1 is negative");
  lbs_replay_result_free(&r);
  check_remove_dir(dir);
  int rc = check_finish();
  MPI_Finalize();
  return rc;
}
