/* bench/fairnet - the fair network model at scale (issue 34): the replay of a trace's halo
 * traffic in des on one shared cluster of P processors, sharing = fair against sharing = fifo,
 * with the reference solver (the general max-min solver as it was: every flow re-rated at every
 * event, lbs__net_full_solver) and with the fast paths (sim/network.c: run_one for flows that
 * share one resource equally, run_common for flows that cross one shared network and NICs), in
 * one run, on two grids: "cluster" (10 Gbit/s, no NICs) and "nics" (a 100 Gbit/s shared network,
 * a 10 Gbit/s NIC each way on every node).
 *
 * Per step: from the end of the first step to the end of the last, over steps - 1, the best of
 * BENCH_REPS runs (interleaved), so the set-up (initial partition, halo lists) is left out. Also
 * checks that both solvers give the same simulated time to the ns (exit 1 if not). usage:
 * bench_fairnet TRACE P [P...]   (env BENCH_REPS: runs per figure, 3; BENCH_GRIDS: "cluster",
 * "nics" or both, the default) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lbs_sim.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
/* This process's CPU time: on a machine shared with other work, what the replay itself cost. */
static double cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One shared cluster of P processors, sharing S. Without NICs (nic = 0): 10 Gbit/s, 2 us, one
 * resource for all (the one-resource shortcut's case). With NICs: a 100 Gbit/s shared network
 * and a 10 Gbit/s NIC each way on every node, so every flow crosses three resources (the
 * general solver's case). */
static lbs_grid *cluster(int P, const char *sharing, int nic) {
  char text[320];
  snprintf(text, sizeof text,
           "[grid]\nsharing = %s\n%s[cluster a]\nnodes = %d\nlatency_us = 2\n"
           "bandwidth_gbps = %s\nshared = true\n%s",
           sharing, nic ? "[nodetype n]\nnic_gbps = 10\n" : "", P, nic ? "100" : "10",
           nic ? "nodetype = n\n" : "");
  lbs_config *c;
  lbs_grid *g = NULL;
  if (lbs_config_parse_string("fairnet.ini", text, &c) == LBS_OK) {
    if (lbs_grid_from_config(c, &g)) g = NULL;
    lbs_config_destroy(&c);
  }
  return g;
}

/* The wall time at the end of the first step and of the last one (the replay's progress). */
typedef struct {
  double first, last, cfirst, clast;
} marks;
static int mark(void *arg, int64_t done, int64_t total) {
  marks *m = arg;
  if (done == 1) m->first = now(), m->cfirst = cpu();
  if (done == total) m->last = now(), m->clast = cpu();
  return 0;
}

/* Wall seconds per step of a des replay of the whole trace, from the end of its first step to
 * the end of its last, so the set-up (initial partition, halo lists) is left out; *c the same
 * in CPU seconds, *total its simulated ns. NAN on error. */
static double per_step(lbs_trace *t, const lbs_grid *g, int64_t S, double *c, int64_t *total) {
  lbs_replay_opts o;
  lbs_replay_opts_default(&o);
  marks m = {0, 0, 0, 0};
  o.partitioner = "zoltan:block", o.policy = "none", o.mode = LBS_MODE_DES;
  o.des_overlap = LBS_DES_ORDERED; /* each step one batch: lbs_net_run, full or fast */
  o.progress = mark, o.progress_arg = &m;
  lbs_replay_result *res;
  if (lbs_replay(t, g, &o, MPI_COMM_WORLD, &res)) {
    fprintf(stderr, "bench_fairnet: %s\n", lbs_errmsg());
    return NAN;
  }
  *total = res->total_ns;
  lbs_replay_result_free(&res);
  *c = (m.clast - m.cfirst) / (double)(S - 1);
  return (m.last - m.first) / (double)(S - 1);
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
  if (S < 2) {
    fprintf(stderr, "bench_fairnet: %s: %lld steps; per step needs 2 or more\n", argv[1],
            (long long)S);
    return 2;
  }
  int reps = getenv("BENCH_REPS") ? atoi(getenv("BENCH_REPS")) : 3, bad = 0;
  /* BENCH_GRIDS: "cluster", "nics" or both (the default) */
  const char *which = getenv("BENCH_GRIDS") ? getenv("BENCH_GRIDS") : "cluster nics";
  printf("trace %s: %lld elements x %lld steps; des, zoltan:block, policy none, one shared "
         "cluster: \"cluster\" 10 Gbit/s without NICs, \"nics\" 100 Gbit/s with 10 Gbit/s "
         "NICs (2 us); ms per step (wall, and this process's CPU), best of %d\n",
         argv[1], (long long)lbs_trace_elements(t), (long long)S, reps);
  printf("  %-7s %6s %4s %10s %12s %12s %12s %12s %10s\n", "grid", "P", "", "fifo", "fair full",
         "fair fast", "full/fifo", "fast/fifo", "speedup");
  for (int nic = 0; nic < 2 && !bad; nic++) {
    const char *gname = nic ? "nics" : "cluster";
    if (!strstr(which, gname)) continue;
    for (int a = 2; a < argc && !bad; a++) {
      int P = atoi(argv[a]);
      lbs_grid *fifo = cluster(P, "fifo", nic), *fair = cluster(P, "fair", nic);
      int64_t tf, tb, ta;
      if (!fifo || !fair) {
        fprintf(stderr, "bench_fairnet: %s\n", lbs_errmsg());
        return 1;
      }
      /* interleaved, so that the load of the machine falls on all three alike; [0] wall, [1] CPU */
      double sf[2] = {INFINITY, INFINITY}, sb[2] = {INFINITY, INFINITY},
             sa[2] = {INFINITY, INFINITY};
      for (int r = 0; r < reps; r++) {
        double w, c;
        if (isnan(w = per_step(t, fifo, S, &c, &tf))) return 1;
        sf[0] = fmin(sf[0], w), sf[1] = fmin(sf[1], c);
        if (isnan(w = per_step(t, fair, S, &c, &ta))) return 1;
        sa[0] = fmin(sa[0], w), sa[1] = fmin(sa[1], c);
        if (r == reps - 1 && r > 0) continue; /* the general solver is slow: one run fewer */
        lbs__net_full_solver(1);
        w = per_step(t, fair, S, &c, &tb);
        lbs__net_full_solver(0);
        if (isnan(w)) return 1;
        sb[0] = fmin(sb[0], w), sb[1] = fmin(sb[1], c);
      }
      for (int k = 0; k < 2; k++)
        printf("  %-7s %6d %4s %10.3f %12.3f %12.3f %12.2f %12.2f %9.1fx\n", gname, P,
               k ? "CPU" : "wall", 1e3 * sf[k], 1e3 * sb[k], 1e3 * sa[k], sb[k] / sf[k],
               sa[k] / sf[k], sb[k] / sa[k]);
      if (tb != ta) {
        fprintf(stderr, "bench_fairnet: %s, P=%d: the solvers disagree: %lld ns against %lld ns\n",
                gname, P, (long long)tb, (long long)ta);
        bad = 1;
      } else
        printf("  %19s simulated: fair %lld ns by both solvers, fifo %lld ns\n", "", (long long)ta,
               (long long)tf);
      lbs_grid_destroy(&fifo);
      lbs_grid_destroy(&fair);
    }
  }
  lbs_trace_close(&t);
  MPI_Finalize();
  return bad;
}
