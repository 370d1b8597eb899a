/* bench/replay - the replay kernel against its baselines, side by side (run on 1 rank).
 *  1. Replay throughput (element-steps/s, policy none, bsp, halos on) against decoding the
 *     same steps alone. Goal: the kernel at least half as fast as decoding.
 *  2. Zoltan RCB through lbsim's adapter against a minimal direct Zoltan call on the same
 *     points and weights. Goal: <= 10% overhead.
 * usage: bench_replay TRACE GRID */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zoltan.h>

#include "lbs_part.h"
#include "lbs_sim.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
  int n;
  const double *x, *w;
} pts;
static int d_num(void *d, int *ierr) {
  *ierr = 0;
  return ((pts *)d)->n;
}
static void d_list(void *d, int ng, int nl, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l, int wd, float *w,
                   int *ierr) {
  pts *p = d;
  (void)ng, (void)nl, (void)wd;
  for (int i = 0; i < p->n; i++)
    g[i] = (ZOLTAN_ID_TYPE)i, l[i] = (ZOLTAN_ID_TYPE)i, w[i] = (float)p->w[i];
  *ierr = 0;
}
static int d_dim(void *d, int *ierr) {
  (void)d;
  *ierr = 0;
  return 3;
}
static void d_geom(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l, int dim,
                   double *x, int *ierr) {
  pts *p = d;
  (void)ng, (void)nl, (void)g, (void)dim;
  for (int i = 0; i < n; i++) memcpy(x + 3 * i, p->x + 3 * l[i], 3 * sizeof *x);
  *ierr = 0;
}

static double direct_rcb(pts *p, int parts) {
  struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
  char np[16];
  snprintf(np, sizeof np, "%d", parts);
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "LB_METHOD", "RCB");
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", np);
  Zoltan_Set_Param(zz, "RETURN_LISTS", "PARTS");
  Zoltan_Set_Param(zz, "KEEP_CUTS", "0");
  Zoltan_Set_Num_Obj_Fn(zz, d_num, p);
  Zoltan_Set_Obj_List_Fn(zz, d_list, p);
  Zoltan_Set_Num_Geom_Fn(zz, d_dim, p);
  Zoltan_Set_Geom_Multi_Fn(zz, d_geom, p);
  int ch, ng, nl, ni, ne, *ip, *ipt, *ep, *ept;
  ZOLTAN_ID_PTR ig, il, eg, el;
  double t0 = now();
  Zoltan_LB_Partition(zz, &ch, &ng, &nl, &ni, &ig, &il, &ip, &ipt, &ne, &eg, &el, &ep, &ept);
  double t = now() - t0;
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipt);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &ept);
  Zoltan_Destroy(&zz);
  return t;
}

/* 1. The best of 3 rounds (s) of decoding every step alone (*dec, into v, E values), of the
 * whole replay (*rep) and of its first step only (*first). Returns 1 after the message when a
 * replay fails. */
static int time_replay(lbs_trace *t, lbs_grid *g, int64_t E, int64_t S, double *v, double *dec,
                       double *rep, double *first) {
  *dec = INFINITY, *rep = INFINITY, *first = INFINITY;
  for (int r = 0; r < 3; r++) {
    double t0 = now();
    for (int64_t s = 0; s < S; s++) lbs_trace_read(t, s, 0, 0, E, v);
    *dec = fmin(*dec, now() - t0);
    for (int one = 0; one < 2; one++) {
      lbs_replay_opts o;
      lbs_replay_opts_default(&o);
      o.nsteps = one ? 1 : 0, o.partitioner = "zoltan:block";
      lbs_replay_result *res;
      t0 = now();
      if (lbs_replay(t, g, &o, MPI_COMM_WORLD, &res)) {
        fprintf(stderr, "bench_replay: %s\n", lbs_errmsg());
        return 1;
      }
      double dt = now() - t0;
      if (one)
        *first = fmin(*first, dt);
      else
        *rep = fmin(*rep, dt);
      lbs_replay_result_free(&res);
    }
  }
  return 0;
}

/* 2. RCB through the adapter against a direct call, on the points of step S/2 with its
 * first metric as weights (read into v, E values); prints the figure. */
static void compare_rcb(lbs_trace *t, lbs_grid *g, int64_t E, int64_t S, double *v) {
  lbs_mesh *mesh = lbs_trace_mesh(t);
  const double *x;
  int dim;
  lbs_mesh_coords(mesh, &x, &dim);
  lbs_trace_read(t, S / 2, 0, 0, E, v);
  int P = lbs_grid_procs(g), *cur = calloc((size_t)E, sizeof *cur),
      *np = malloc((size_t)E * sizeof *np);
  int64_t *gid = malloc((size_t)E * sizeof *gid), rf[2] = {0, E};
  double *sizes = malloc((size_t)P * sizeof *sizes);
  for (int64_t i = 0; i < E; i++) gid[i] = i;
  for (int p = 0; p < P; p++) sizes[p] = 1.0 / P;
  lbs_part_input in = {.comm = MPI_COMM_WORLD,
                       .nlocal = E,
                       .gid = gid,
                       .weight = v,
                       .dim = 3,
                       .coords = x,
                       .rank_first = rf,
                       .current = cur,
                       .nparts = P,
                       .part_sizes = sizes};
  lbs_partitioner *pt;
  lbs_part_create("zoltan:rcb", NULL, MPI_COMM_WORLD, &pt);
  pts p = {(int)E, x, v};
  double best_ad = INFINITY, best_direct = INFINITY;
  for (int r = 0; r < 3; r++) {
    double t0 = now();
    lbs_part_run(pt, &in, np);
    best_ad = fmin(best_ad, now() - t0);
    best_direct = fmin(best_direct, direct_rcb(&p, P));
  }
  printf("  %-52s %12.2f %12.2f %8.3f   goal <= 1.10 (baseline: direct Zoltan call)\n",
         "zoltan:rcb on the step's points, ms", 1e3 * best_ad, 1e3 * best_direct,
         best_ad / best_direct);
  lbs_part_destroy(&pt);
  free(cur), free(np), free(gid), free(sizes);
}

/* Both comparisons (see the head of this file) on TRACE and GRID, printed. */
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc != 3) {
    fprintf(stderr, "usage: bench_replay TRACE GRID\n");
    return 2;
  }
  lbs_trace *t;
  lbs_grid *g;
  if (lbs_trace_open(argv[1], &t) || lbs_grid_load(argv[2], NULL, 0, &g)) {
    fprintf(stderr, "bench_replay: %s\n", lbs_errmsg());
    return 1;
  }
  int64_t E = lbs_trace_elements(t), S = lbs_trace_steps(t);
  double *v = malloc((size_t)E * sizeof *v);
  /* 1. decode alone against the replay: whole runs, and per step with the one-off setup
   *    (initial partition, halo lists) taken out as T(all steps) - T(first step) */
  double best_dec, best_rep, best_one;
  if (time_replay(t, g, E, S, v, &best_dec, &best_rep, &best_one)) return 1;
  double es = (double)E * (double)S, step_rep = (best_rep - best_one) / (double)(S - 1),
         step_dec = best_dec / (double)S;
  printf("trace %s: %lld elements x %lld steps, grid %s (%d processors)\n", argv[1], (long long)E,
         (long long)S, argv[2], lbs_grid_procs(g));
  printf("  %-52s %12s %12s %8s\n", "figure", "lbsim", "baseline", "ratio");
  printf("  %-52s %12.1f %12.1f %8.2f   goal >= 0.50 (baseline: decoding alone)\n",
         "replay per step, M element-steps/s (setup excluded)", (double)E / step_rep / 1e6,
         (double)E / step_dec / 1e6, step_dec / step_rep);
  printf("  %-52s %12.1f %12.1f %8.2f   (whole run, with the initial partition)\n",
         "replay whole run, M element-steps/s", es / best_rep / 1e6, es / best_dec / 1e6,
         best_dec / best_rep);
  compare_rcb(t, g, E, S, v);
  free(v);
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  MPI_Finalize();
  return 0;
}
