/* profiler_overhead.c - what liblbsprof costs the application, measured side by side:
 *  1. an elem_begin/elem_end pair (time_ns) against a bare pair of clock_gettime calls;
 *  2. a step of E elements x ~1 us of work, sampled, against the same step without the
 *     profiler: R x S rounds of one step off and one step on (which goes first alternates:
 *     the second of two runs is faster here), so that the drift of this VM's
 *     speed hits both alike; the slowdown is the median of the rounds' ratios (and the ratio
 *     of the totals is printed too).
 * usage: mpiexec -n 1 bench_profiler_overhead [E S R]  (goal: slowdown <= 3%) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "lbsprof.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static volatile double sink;
static long iters_per_us;

__attribute__((noinline)) static void work(long iters) {
  double s = 0;
  for (long k = 0; k < iters; k++) s += (double)k * 1e-9;
  sink += s;
}

/* Sets iters_per_us: work() iterations that take ~1 us here. */
static void calibrate_work(void) {
  long it = 1000;
  for (;;) {
    double t0 = now();
    work(it);
    double dt = now() - t0;
    if (dt > 0.05) {
      iters_per_us = (long)((double)it / (dt * 1e6));
      break;
    }
    it *= 2;
  }
}

/* 1. the pair: the best of 3 runs of N elem_begin/elem_end pairs over E elements, and of N
 * pairs of clock reads, in ns per pair. */
static void time_pair(lbsprof *p, int64_t E, double *best_pair, double *best_clock) {
  const long N = 2000000;
  *best_pair = 1e9, *best_clock = 1e9;
  for (int r = 0; r < 3; r++) {
    struct timespec a, b;
    double t0 = now();
    for (long k = 0; k < N; k++) {
      clock_gettime(CLOCK_MONOTONIC, &a);
      clock_gettime(CLOCK_MONOTONIC, &b);
    }
    double t1 = now();
    for (long k = 0; k < N; k++) {
      lbsprof_elem_begin(p, k % E);
      lbsprof_elem_end(p, k % E);
    }
    double t2 = now();
    *best_clock = (t1 - t0) / N * 1e9 < *best_clock ? (t1 - t0) / N * 1e9 : *best_clock;
    *best_pair = (t2 - t1) / N * 1e9 < *best_pair ? (t2 - t1) / N * 1e9 : *best_pair;
  }
}

/* 2. the loop, off and on, interleaved: rounds rounds of a step of E elements without the
 * profiler and one with it; their totals in *off and *on (s). Returns the median of the
 * rounds' ratios. */
static double time_steps(lbsprof *p, int64_t E, int64_t rounds, double *off, double *on) {
  long w = iters_per_us;
  double *ratio = malloc((size_t)rounds * sizeof *ratio);
  *off = 0, *on = 0;
  for (int64_t r = 0; r < rounds; r++) {
    double t_off = 0, t_on = 0;
    for (int k = 0; k < 2; k++) { /* odd rounds run the profiled step first: no position bias */
      double t0 = now();
      if ((k ^ (int)(r & 1)) == 0) {
        for (int64_t i = 0; i < E; i++) work(w);
        t_off = now() - t0;
      } else {
        for (int64_t i = 0; i < E; i++) {
          lbsprof_elem_begin(p, i);
          work(w);
          lbsprof_elem_end(p, i);
        }
        lbsprof_step_end(p);
        t_on = now() - t0;
      }
    }
    *off += t_off, *on += t_on;
    ratio[r] = t_on / t_off;
  }
  for (int64_t a = 1; a < rounds; a++) /* insertion sort for the median */
    for (int64_t b = a; b > 0 && ratio[b - 1] > ratio[b]; b--) {
      double t = ratio[b];
      ratio[b] = ratio[b - 1], ratio[b - 1] = t;
    }
  double med = ratio[rounds / 2];
  free(ratio);
  return med;
}

/* Measures both (see the head of this file) on a box of E elements profiled into a temporary
 * trace, removed after, and prints them. */
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int64_t E = argc > 1 ? atol(argv[1]) : 20000, S = argc > 2 ? atol(argv[2]) : 20,
          R = argc > 3 ? atol(argv[3]) : 5;
  calibrate_work(); /* ~1 us of work */
  char path[128];
  snprintf(path, sizeof path, "/tmp/lbs_bench_prof_%d.lbt", (int)getpid());
  lbsprof_opts o;
  lbsprof_opts_default(&o);
  o.trace_path = path;
  lbsprof *p;
  int64_t g[3] = {E, 1, 1}, lo[3] = {0, 0, 0};
  if (lbsprof_init(MPI_COMM_WORLD, &o, &p) || lbsprof_mesh_box(p, g, lo, g)) {
    fprintf(stderr, "bench: %s\n", lbsprof_errmsg());
    return 1;
  }
  double best_pair, best_clock;
  time_pair(p, E, &best_pair, &best_clock);
  lbsprof_step_end(p); /* sends the pair loop's step */
  int64_t rounds = R * S;
  double off, on;
  double med = time_steps(p, E, rounds, &off, &on);
  int rc = lbsprof_finalize(&p);
  unlink(path);
  printf(
      "bench/profiler_overhead: %lld elements x ~1 us of work (%.3f us measured), %lld rounds of a step off and a step on\n",
      (long long)E, off / (double)(E * rounds) * 1e6, (long long)rounds);
  printf("  %-46s %10.1f ns   baseline (2 clock reads) %6.1f ns   ratio %5.2f\n",
         "elem_begin + elem_end (time_ns)", best_pair, best_clock, best_pair / best_clock);
  char label[96];
  snprintf(label, sizeof label, "steps profiled (time_ns, %s, %s)",
           getenv("LBSPROF_CODEC") ? getenv("LBSPROF_CODEC") : o.codec,
           getenv("LBSPROF_BOUND") ? getenv("LBSPROF_BOUND") : o.bound);
  printf(
      "  %-46s %10.4f s    without the profiler %10.4f s   slowdown %+.2f%% (median of rounds; totals %+.2f%%)   goal <= 3%%\n",
      label, on, off, (med - 1) * 100, (on / off - 1) * 100);
  MPI_Finalize();
  return rc;
}
