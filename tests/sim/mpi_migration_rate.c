/* MPI test of the application's own migration rate (sim/recorded.c lbs__migration_rate_setup,
 * charged by lbs__model_migration_ns; CTest: 1 and 2 ranks, outputs compared).
 *
 * The trace is mpi_recorded's (8 elements in a line, sampled at application steps 0, 5, ...,
 * 30, owners recorded from steps 0, 10, 20, 22, 24 and 30), with the event migration_s of 3
 * ranks at some of the trace steps where the recorded assignment changes. Those changes, worked
 * out by hand, as (migrations k, the busiest rank's elements sent + received X):
 *   trace step 2: 0 -> 10, elements 0 (0->1) and 5 (1->2) move: ranks 1, 2, 1: k 1, X 2;
 *   trace step 4: 10 -> 20, elements 0 (1->2), 1 (0->1), 2 (0->2): ranks 2, 2, 2: k 1, X 2;
 *   trace step 5: 20 -> 22 -> 24 collapsed: all 8 onto rank 0, then all 8 away: k 2, X 16;
 *   trace step 6: 24 -> 30, the same owners: k 1, X 0.
 * fit.lbt has events at all four, the largest over the ranks 100 us x k + 50 us x X (200, 200,
 * 1000, 100 us): least squares gives 100 us + 50,000 ns exactly. ratio.lbt has them at 2 and 5
 * alone (200, 1000 us): 2 points, the ratio of the sums, 1200 us / 18 = 66,666.67 ns, fixed 0.
 * neg.lbt at 2, 4 and 5 (100, 100, 1600 us): least squares would give a negative fixed term
 * (-133 us), so the ratio of the sums, 1800 us / 20 = 90,000 ns. plain.lbt has the owners and
 * no events: no rate.
 *
 * Each is replayed under policy fixed:2 with metis on 3 processors; every repartition must be
 * charged fixed + per element x the busiest processor's elements sent + received, counted here
 * from the saved assignments, and the result reports the rate. Under [sim] migration_cost =
 * links, or on plain.lbt, the charges are the links' (fit.lbt's equal plain.lbt's); on a grid
 * with a migration model the trace's rate comes first, and migration_cost = model charges the
 * grid's. Policy recorded fits none (its own migrations are charged as recorded). */
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
#define NR 3
static const int64_t app_of[S] = {0, 5, 10, 15, 20, 25, 30};
static const int64_t rec_step[NA] = {0, 10, 20, 22, 24, 30};
static const int64_t owners[NA][E] = {{0, 0, 0, 1, 1, 1, 2, 2}, {1, 0, 0, 1, 1, 2, 2, 2},
                                      {2, 1, 2, 1, 1, 2, 2, 2}, {0, 0, 0, 0, 0, 0, 0, 0},
                                      {2, 1, 2, 1, 1, 2, 2, 1}, {2, 1, 2, 1, 1, 2, 2, 1}};

static const char *GRID3 = "[grid]\nns_per_work = 3\nbytes_per_elem = 100\nbytes_per_edge = 8\n"
                           "[cluster A]\nnodes = 3\nlatency_us = 1\n";
static const char *GRID3M = "[grid]\nns_per_work = 3\nbytes_per_elem = 100\nbytes_per_edge = 8\n"
                            "migration_fixed_us = 7\nmigration_per_elem_ns = 11\n"
                            "[cluster A]\nnodes = 3\nlatency_us = 1\n";

/* The events of a trace: the largest migration_s over the ranks at each trace step, seconds
 * (0: none there); rank 1 records it, the others less. */
static const double fit_ev[S] = {0, 0, 200e-6, 0, 200e-6, 1000e-6, 100e-6};
static const double ratio_ev[S] = {0, 0, 200e-6, 0, 0, 1000e-6, 0};
static const double neg_ev[S] = {0, 0, 100e-6, 0, 100e-6, 1600e-6, 0};

/* Rank 0 writes the trace: owners, and events ev (NULL: none). */
static int write_trace(const char *path, const double *ev) {
  lbs_mesh *m;
  lbs_trace_writer *w;
  lbs_err e = path_trace_create(path, E, &w, &m);
  if (e) return 2;
  static const char *names[2] = {LBS_EVENT_PARTITION, LBS_EVENT_MIGRATION};
  if (!e && ev) e = lbs_trace_writer_set_events(w, 2, names, NR);
  for (int64_t s = 0, k = 0; !e && s < S; s++) {
    for (; k < NA && rec_step[k] <= app_of[s]; k++)
      e = lbs_trace_write_owners(w, rec_step[k], owners[k]);
    double v[E], evs[2 * NR];
    for (int i = 0; i < E; i++) v[i] = 10.0 * (i + 1) + (double)s;
    const double *cols[1] = {v};
    for (int r = 0; r < NR; r++)
      evs[2 * r] = 1e-3, evs[2 * r + 1] = ev ? ev[s] * (r == 1 ? 1 : 0.5) : 0;
    if (!e && ev && ev[s] > 0) e = lbs_trace_step_events(w, evs);
    if (!e) e = lbs_trace_write_step(w, app_of[s], cols);
  }
  if (!e) e = lbs_trace_writer_close(&w);
  lbs_mesh_destroy(&m);
  return e ? printf("writing %s: %s\n", path, lbs_errmsg()), 2 : 0;
}

/* The replay of trace on grid_text under policy pol, [sim] migration_cost mc; exits on failure. */
static lbs_replay_result *run(const char *trace, const char *grid_text, const char *pol,
                              const char *mc) {
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
  o.partitioner = "metis", o.policy = pol, o.cfg = cfg, o.save_assignment = 1;
  lbs_err e = lbs_replay_opts_set(&o, "migration_cost", mc);
  if (!e) e = lbs_replay(t, g, &o, MPI_COMM_WORLD, &r);
  CHECK(!e && r, "%s, %s, migration_cost %s: %s", trace, pol, mc, lbs_errmsg());
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  if (!r) exit(1); /* the check said why */
  return r;
}

/* The busiest processor's elements sent + received from assignment a to b (E each). */
static int64_t busiest(const int *a, const int *b) {
  int64_t m[3] = {0, 0, 0}, top = 0;
  for (int i = 0; i < E; i++)
    if (a[i] != b[i]) m[a[i]]++, m[b[i]]++;
  for (int p = 0; p < 3; p++) top = m[p] > top ? m[p] : top;
  return top;
}

/* Every repartition of r charged llround(fixed + per x busiest), none recorded; the sum. */
static void check_charges(const char *what, const lbs_replay_result *r, double fixed_us,
                          double per_ns) {
  int ok = r->nrep > 0, moved = 0;
  int64_t sum = 0;
  for (int k = 0; k < r->nrep; k++) {
    int64_t X = busiest(r->assign + (size_t)k * E, r->assign + (size_t)(k + 1) * E);
    int64_t want = X ? llround(fixed_us * 1e3 + per_ns * (double)X) : 0;
    ok &= r->reparts[k].migration_ns == want && r->reparts[k].recorded == 0;
    if (r->reparts[k].migration_ns != want)
      printf("%s: repartition %d (X %lld): %lld ns, expected %lld\n", what, k, (long long)X,
             (long long)r->reparts[k].migration_ns, (long long)want);
    sum += want, moved += X > 0;
  }
  CHECK(ok && moved, "%s: each repartition charged %g us + %g ns x the busiest's elements", what,
        fixed_us, per_ns);
  CHECK(r->migration_ns == sum, "%s: migration %lld ns, expected %lld", what,
        (long long)r->migration_ns, (long long)sum);
}

/* What must be the same on 1 and 2 ranks. */
static void print_result(const char *what, const lbs_replay_result *r) {
  if (check_rank) return;
  printf("%s: fit %d points %d fixed %.9g us per %.9g ns; total %lld migration %lld reps", what,
         r->mig_fit, r->mig_points, r->mig_fixed_us, r->mig_per_elem_ns, (long long)r->total_ns,
         (long long)r->migration_ns);
  for (int k = 0; k < r->nrep; k++)
    printf(" %lld:%lld:%lld", (long long)r->reparts[k].step, (long long)r->reparts[k].moved,
           (long long)r->reparts[k].migration_ns);
  printf("\n");
}

/* The rate r reports: fit kind, points, fixed us and ns per element (to 1e-6 relative). */
static void check_rate(const char *what, const lbs_replay_result *r, int fit, int points,
                       double fixed_us, double per_ns) {
  CHECK(r->mig_fit == fit && r->mig_points == points &&
            fabs(r->mig_fixed_us - fixed_us) <= 1e-6 * (fixed_us + 1) &&
            fabs(r->mig_per_elem_ns - per_ns) <= 1e-6 * per_ns,
        "%s: fit %d of %d points, %.9g us + %.9g ns; expected %d of %d, %g us + %g ns", what,
        r->mig_fit, r->mig_points, r->mig_fixed_us, r->mig_per_elem_ns, fit, points, fixed_us,
        per_ns);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
  char dir[64] = "/tmp/lbs_migrate_XXXXXX", fit[128], ratio[128], neg[128], plain[128];
  if (check_rank == 0 && !mkdtemp(dir)) return 2;
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(fit, sizeof fit, "%s/fit.lbt", dir);
  snprintf(ratio, sizeof ratio, "%s/ratio.lbt", dir);
  snprintf(neg, sizeof neg, "%s/neg.lbt", dir);
  snprintf(plain, sizeof plain, "%s/plain.lbt", dir);
  int bad = check_rank == 0 ? write_trace(fit, fit_ev) || write_trace(ratio, ratio_ev) ||
                                  write_trace(neg, neg_ev) || write_trace(plain, NULL)
                            : 0;
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (bad) return 2;

  lbs_replay_result *r = run(fit, GRID3, "fixed:2", "measured");
  check_rate("fit.lbt", r, 2, 4, 100, 50000);
  check_charges("fit.lbt", r, 100, 50000);
  print_result("fit", r);
  lbs_replay_result *ref = run(plain, GRID3, "fixed:2", "measured");
  CHECK(ref->mig_fit == 0, "plain.lbt: no rate without recorded migration times");
  lbs_replay_result *links = run(fit, GRID3, "fixed:2", "links");
  CHECK(links->mig_fit == 0 && links->migration_ns == ref->migration_ns &&
            links->total_ns == ref->total_ns && links->nrep == r->nrep,
        "fit.lbt under migration_cost = links: the links' charges, as plain.lbt's (%lld, %lld ns)",
        (long long)links->migration_ns, (long long)ref->migration_ns);
  CHECK(r->total_ns - r->migration_ns == ref->total_ns - ref->migration_ns,
        "fit.lbt: the rest of the run as plain.lbt's");
  print_result("plain", ref);
  lbs_replay_result_free(&links);
  lbs_replay_result_free(&ref);
  lbs_replay_result_free(&r);

  r = run(fit, GRID3M, "fixed:2", "measured"); /* the trace's rate before the grid's model */
  check_rate("fit.lbt, a grid with a model", r, 2, 4, 100, 50000);
  check_charges("fit.lbt, a grid with a model", r, 100, 50000);
  lbs_replay_result_free(&r);
  r = run(fit, GRID3M, "fixed:2", "model");
  CHECK(r->mig_fit == 0, "migration_cost = model: no rate");
  check_charges("fit.lbt, migration_cost = model", r, 7, 11);
  print_result("model", r);
  lbs_replay_result_free(&r);

  r = run(ratio, GRID3, "fixed:2", "measured");
  check_rate("ratio.lbt", r, 1, 2, 0, 1200e3 / 18);
  check_charges("ratio.lbt", r, 0, 1200e3 / 18);
  print_result("ratio", r);
  lbs_replay_result_free(&r);
  r = run(neg, GRID3, "fixed:2", "measured");
  check_rate("neg.lbt", r, 1, 3, 0, 90000);
  check_charges("neg.lbt", r, 0, 90000);
  print_result("neg", r);
  lbs_replay_result_free(&r);

  r = run(fit, GRID3, "recorded", "measured");
  CHECK(r->mig_fit == 0 && r->recorded_costs == 4,
        "policy recorded: no rate (fit %d), its own 4 recorded costs charged (%d)", r->mig_fit,
        r->recorded_costs);
  lbs_replay_result_free(&r);

  check_remove_dir(dir);
  int rc = check_finish();
  MPI_Finalize();
  return rc;
}
