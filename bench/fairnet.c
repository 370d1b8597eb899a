/* bench/fairnet - the fair network model at scale (issue 34): the replay of a trace's halo
 * traffic in des on one shared cluster of P processors, sharing = fair against sharing = fifo,
 * with the general max-min solver (every flow re-rated at every event) and with the shortcut for
 * flows that share one resource equally (sim/network.c, run_one), in one run.
 *
 * Per step: (T(all steps) - T(first step)) / (steps - 1), the best of REPS runs, so the set-up
 * (initial partition, halo lists) is left out. Also checks that both solvers give the same
 * simulated time to the ns (exit 1 if not).
 * usage: bench_fairnet TRACE P [P...]   (env BENCH_REPS: runs per figure, 2) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lbs_sim.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One shared cluster of P processors (10 Gbit/s, 2 us), sharing S: one resource for all. */
static lbs_grid *cluster(int P, const char *sharing) {
  char text[256];
  snprintf(text, sizeof text,
           "[grid]\nsharing = %s\n[cluster a]\nnodes = %d\nlatency_us = 2\n"
           "bandwidth_gbps = 10\nshared = true\n",
           sharing, P);
  lbs_config *c;
  lbs_grid *g = NULL;
  if (lbs_config_parse_string("fairnet.ini", text, &c) == LBS_OK) {
    if (lbs_grid_from_config(c, &g)) g = NULL;
    lbs_config_destroy(&c);
  }
  return g;
}

/* Wall seconds of a des replay of the first nsteps steps (*total: its simulated ns); < 0 on
 * error. */
static double replay(lbs_trace *t, const lbs_grid *g, int64_t nsteps, int64_t *total) {
  lbs_replay_opts o;
  lbs_replay_opts_default(&o);
  o.nsteps = nsteps, o.partitioner = "zoltan:block", o.policy = "none", o.mode = LBS_MODE_DES;
  lbs_replay_result *res;
  double t0 = now();
  if (lbs_replay(t, g, &o, MPI_COMM_WORLD, &res)) {
    fprintf(stderr, "bench_fairnet: %s\n", lbs_errmsg());
    return -1;
  }
  double dt = now() - t0;
  *total = res->total_ns;
  lbs_replay_result_free(&res);
  return dt;
}

/* Seconds per step (best of reps), *total the simulated ns of the whole run. */
static double per_step(lbs_trace *t, const lbs_grid *g, int64_t S, int reps, int64_t *total) {
  double all = INFINITY, one = INFINITY;
  int64_t t1;
  for (int r = 0; r < reps; r++) {
    double a = replay(t, g, S, total), b = replay(t, g, 1, &t1);
    if (a < 0 || b < 0) return -1;
    all = fmin(all, a), one = fmin(one, b);
  }
  return (all - one) / (double)(S - 1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc < 3) {
    fprintf(stderr, "usage: bench_fairnet TRACE P [P...]\n");
    return 2;
  }
  lbs_trace *t;
  if (lbs_trace_open(argv[1], &t)) {
    fprintf(stderr, "bench_fairnet: %s\n", lbs_errmsg());
    return 1;
  }
  int64_t S = lbs_trace_steps(t);
  int reps = getenv("BENCH_REPS") ? atoi(getenv("BENCH_REPS")) : 2, bad = 0;
  printf("trace %s: %lld elements x %lld steps; des, one shared cluster (10 Gbit/s, 2 us), "
         "zoltan:block, policy none; ms of wall time per step, best of %d\n",
         argv[1], (long long)lbs_trace_elements(t), (long long)S, reps);
  printf("  %6s %10s %12s %12s %12s %12s %10s\n", "P", "fifo", "fair before", "fair after",
         "before/fifo", "after/fifo", "speedup");
  for (int a = 2; a < argc && !bad; a++) {
    int P = atoi(argv[a]);
    lbs_grid *fifo = cluster(P, "fifo"), *fair = cluster(P, "fair");
    int64_t tf, tb, ta;
    if (!fifo || !fair) {
      fprintf(stderr, "bench_fairnet: %s\n", lbs_errmsg());
      return 1;
    }
    double sf = per_step(t, fifo, S, reps, &tf);
    lbs__net_full_solver(1);
    double sb = per_step(t, fair, S, reps > 1 ? reps - 1 : 1, &tb); /* slow: fewer runs */
    lbs__net_full_solver(0);
    double sa = per_step(t, fair, S, reps, &ta);
    if (sf < 0 || sb < 0 || sa < 0) return 1;
    printf("  %6d %10.3f %12.3f %12.3f %12.2f %12.2f %9.1fx\n", P, 1e3 * sf, 1e3 * sb, 1e3 * sa,
           sb / sf, sa / sf, sb / sa);
    if (tb != ta) {
      fprintf(stderr, "bench_fairnet: P=%d: the solvers disagree: %lld ns against %lld ns\n", P,
              (long long)tb, (long long)ta);
      bad = 1;
    } else
      printf("  %6s simulated: fair %lld ns by both solvers, fifo %lld ns\n", "", (long long)ta,
             (long long)tf);
    lbs_grid_destroy(&fifo);
    lbs_grid_destroy(&fair);
  }
  lbs_trace_close(&t);
  MPI_Finalize();
  return bad;
}
