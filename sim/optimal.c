/* optimal.c - the offline optimal repartitioning schedule, offered to a policy that plans ahead
 * (LBS_POLICY_PLANS_AHEAD: `optimal`).
 *
 * With partitions computed from scratch (approach = partition), the assignment after a
 * repartition before step r depends only on r: A_r = partition(work of step r-1), and A_0 is
 * the initial partition. Between two repartitions the clocks start from a barrier, so the
 * time of a segment [r', r) depends only on A_r' (and the trace); migration from A_r' to A_r
 * only on the pair. The total time of a schedule r_1 < ... < r_k is then
 *   seg(0, r_1) + sum_i [ part + mig(r_{i-1}, r_i) + seg(r_{i-1}, r_{i+1}) ... ]
 * and the best schedule follows from dynamic programming over the last repartition:
 *   best[0] = 0,  best[r] = min_{r' < r} best[r'] + seg(r', r) + part + mig(r', r),
 *   total = min_{r'} best[r'] + seg(r', S).
 * Every A_r is computed once and cached (the replay then reuses it); each seg(r', .) comes
 * from one forward simulation from r' with the engine's own step code, so the replay of the
 * plan reproduces the optimiser's total exactly (with phases too: the same lbs__run_step charges
 * each phase's slowest processor).
 * Work: S partitioner calls, S^2/2 step simulations and S^2/2 migrations of E elements:
 * O(S^2 E) time, O(S E / R) memory per rank for the cached partitions (each rank keeps its
 * elements' parts) and work values. S - 1 candidate steps must not exceed the policy's bound
 * MAXCAND. */
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

#define OPT_MAX_BYTES (3LL << 30) /* cached partitions and work values, per rank */

/* The optimiser's tables (this rank's part of the partitions and work values). */
typedef struct {
  int64_t S, n;
  int *A;              /* S x n: this rank's elements' parts under A_r */
  double *W;           /* S x n: their work at each step */
  double *WP;          /* S x nph x n: their phases' work at each step (NULL without phases) */
  int64_t *end;        /* S x (S+1): end[r0][s], the makespan after step s - 1 simulated from r0 */
  int64_t *mig;        /* S x S: migration time from A_r0 to A_r */
  int64_t units, unit; /* the search's progress */
} opt_tables;

static void search_progress(lbs__engine *x, opt_tables *o) {
  o->unit++;
  if (x->rank == 0 && x->o->search_progress)
    x->o->search_progress(x->o->search_progress_arg, o->unit, o->units);
}

/* Collective: the work of every step, and the partition of every candidate step. */
static lbs_err opt_partitions(lbs__engine *x, opt_tables *o) {
  lbs_err e = LBS_OK;
  int64_t n = o->n;
  for (int64_t s = 0; !e && s < o->S; s++)
    e = lbs__read_work(x, x->S0 + s, o->W + (size_t)s * (size_t)n);
  for (int64_t s = 0; !e && x->nph && s < o->S; s++)
    e = lbs__read_phases(x, x->S0 + s, o->WP + (size_t)s * (size_t)x->nph * (size_t)n);
  if (!e) memcpy(o->A, x->cur, (size_t)n * sizeof *o->A); /* A_0: the initial partition */
  for (int64_t r = 1; !e && r < o->S; r++) {
    const double *pw;
    if ((e = lbs__part_weights(x, x->S0 + r - 1, o->W + (size_t)(r - 1) * (size_t)n, &pw))) break;
    lbs_part_input in = lbs__part_input(x, pw, 0);
    e = lbs__agree(x, lbs_part_run(x->part, &in, o->A + (size_t)r * (size_t)n));
    search_progress(x, o);
  }
  return e;
}

/* Collective: seg, one forward simulation from every segment start with the engine's step code. */
static lbs_err opt_segments(lbs__engine *x, opt_tables *o, lbs_net *net, int64_t *clock,
                            int64_t *arrive, int64_t *fix, int64_t *load, int64_t *phload) {
  int64_t S = o->S,
          keep_step = x->edge_step; /* the step whose weights x->adjw holds (varying weights) */
  lbs__engine y = *x;
  y.clock = clock, y.arrive = arrive, y.net = net, y.fix = fix, y.load = load, y.phload = phload;
  y.halo = NULL, y.nhalo = 0, y.rec = NULL;
  y.gpart = malloc((size_t)(x->gh.ng + 1) * sizeof *y.gpart);
  lbs_err e = lbs__agree(x, y.gpart ? LBS_OK : lbs_fail(LBS_NOMEM, "optimal: ghost parts"));
  for (int64_t r0 = 0; !e && r0 < S; r0++) {
    y.cur = o->A + (size_t)r0 * (size_t)o->n;
    if ((e = lbs__ghost_exchange(&y, y.cur, y.gpart, MPI_INT, sizeof *y.cur))) break;
    if ((e = lbs__build_halo(&y))) break;
    memset(clock, 0, (size_t)x->P * sizeof *clock);
    lbs_net_reset(net);
    o->end[r0 * (S + 1) + r0] = 0;
    for (int64_t s = r0; !e && s < S; s++) {
      y.w = o->W + (size_t)s * (size_t)o->n;
      if (x->nph) y.wph = o->WP + (size_t)s * (size_t)x->nph * (size_t)o->n;
      int reloaded; /* varying communication weights: this step's halo */
      if ((e = lbs__edge_weights_at(&y, x->S0 + s, &reloaded))) break;
      if (reloaded && (e = lbs__build_halo(&y))) break;
      lbs__compute_loads(&y, -1); /* a candidate segment: no warnings */
      int64_t adv, mx = 0;
      e = lbs__agree(x, lbs__run_step(&y, &adv));
      for (int p = 0; p < x->P; p++) mx = clock[p] > mx ? clock[p] : mx;
      o->end[r0 * (S + 1) + s + 1] = mx;
    }
    search_progress(x, o);
  }
  free(y.halo);
  free(y.gpart);
  if (x->adjw_step) { /* y shared the buffer: give x its step's weights back */
    int reloaded;
    x->edge_step = y.edge_step;
    lbs_err e2 = lbs__edge_weights_at(x, keep_step, &reloaded);
    if (!e) e = e2;
  }
  return e;
}

/* Collective: mig, every pair of partitions, over fresh links from a barrier at 0. */
static lbs_err opt_migrations(lbs__engine *x, opt_tables *o, lbs_net *net, int64_t *arrive) {
  int64_t S = o->S, n = o->n;
  int64_t *kv = malloc((size_t)(2 * n + 2) * sizeof *kv),
          *ready = calloc((size_t)x->P, sizeof *ready);
  int *held = malloc((size_t)(n + 1) * sizeof *held);
  lbs_err e =
      lbs__agree(x, kv && ready && held ? LBS_OK : lbs_fail(LBS_NOMEM, "optimal: migrations"));
  lbs__engine y = *x;
  y.net = net, y.arrive = arrive;
  for (int64_t r0 = 0; !e && r0 < S; r0++)
    for (int64_t r = r0 + 1; !e && r < S; r++) {
      const int *a = o->A + (size_t)r0 * (size_t)n, *b = o->A + (size_t)r * (size_t)n;
      /* an element absent at step r - 1 (no work, meta absent) stays where it is, as the replay
       * of the plan keeps it (lbs__repartition): its move is neither made nor charged */
      const double *wr = o->W + (size_t)(r - 1) * (size_t)n;
      for (int64_t i = 0; x->absent_idle && i < n; i++) held[i] = wr[i] == 0 ? a[i] : b[i];
      if (x->absent_idle) b = held;
      int64_t nkv = 0;
      for (int64_t i = 0; i < n; i++)
        if (a[i] != b[i]) {
          kv[2 * nkv] = (int64_t)a[i] * x->P + b[i];
          kv[2 * nkv + 1] = (int64_t)FIX;
          nkv++;
        }
      xfer *xs = NULL;
      int nx = 0;
      e = lbs__merge_pairs(x, kv, nkv, x->bytes_elem, &xs, &nx);
      lbs_net_reset(net);
      memset(arrive, 0, (size_t)x->P * sizeof *arrive);
      int64_t latest = 0;
      if (!e) e = lbs__model_migration_ns(x, a, b, &latest); /* as the replay will charge it */
      if (!e && latest < 0) latest = 0, e = lbs__run_transfers(&y, xs, nx, ready, &latest);
      o->mig[r0 * S + r] = latest;
      free(xs);
      if (r == S - 1) search_progress(x, o);
    }
  free(kv), free(ready), free(held);
  return e;
}

/* Local: the dynamic programme; ties go to the earlier last repartition (fewer moves). */
static lbs_err opt_plan(lbs__engine *x, const opt_tables *o) {
  int64_t S = o->S, part = x->o->cost == LBS_COST_ZERO ? 0 : lbs__model_partition_ns(x), total,
          last = 0;
  int64_t *best = malloc((size_t)S * sizeof *best), *from = malloc((size_t)S * sizeof *from);
  if (!best || !from) {
    free(best), free(from);
    return lbs_fail(LBS_NOMEM, "optimal plan");
  }
  best[0] = 0;
  from[0] = -1;
  for (int64_t r = 1; r < S; r++) {
    best[r] = INT64_MAX;
    for (int64_t r0 = 0; r0 < r; r0++) {
      if (best[r0] == INT64_MAX) continue;
      int64_t c = best[r0] + o->end[r0 * (S + 1) + r] + part + o->mig[r0 * S + r];
      if (c < best[r]) best[r] = c, from[r] = r0;
    }
  }
  total = INT64_MAX;
  for (int64_t r0 = 0; r0 < S; r0++) {
    int64_t c = best[r0] + o->end[r0 * (S + 1) + S];
    if (c < total) total = c, last = r0;
  }
  int k = 0;
  for (int64_t r = last; r > 0; r = from[r]) k++;
  lbs_err e = LBS_OK;
  if (!(x->opt_steps = malloc((size_t)(k + 1) * sizeof *x->opt_steps))) {
    e = lbs_fail(LBS_NOMEM, "optimal plan");
  } else {
    x->opt_n = k;
    for (int64_t r = last; r > 0; r = from[r]) x->opt_steps[--k] = r;
    x->opt_total = total;
  }
  free(best), free(from);
  return e;
}

lbs_err lbs__optimize(void *nav, int64_t maxcand, const int64_t **steps, int *nsteps) {
  lbs__engine *x = nav;
  if (x->opt_done) {
    *steps = x->opt_steps;
    *nsteps = x->opt_n;
    return LBS_OK;
  }
  int64_t S = x->S, n = x->n;
  lbs_err e = LBS_OK;
  if (x->o->approach != 0)
    e = lbs_fail(LBS_INVAL,
                 "optimal needs partitions from scratch (approach = partition): with repartition a "
                 "partition depends on the history and no schedule can be proven best");
  else if (S - 1 > maxcand)
    e = lbs_fail(
        LBS_RANGE,
        "optimal: %lld candidate steps exceed its bound of %lld (raise it with optimal:N, or "
        "replay a window with --steps; the work grows as candidates^2 x elements)",
        (long long)(S - 1), (long long)maxcand);
  else if ((double)S * (double)n * (12 + 8.0 * x->nph) > (double)OPT_MAX_BYTES)
    e = lbs_fail(
        LBS_RANGE,
        "optimal: caching %lld partitions of %lld elements needs more than %lld GiB on a rank; "
        "replay a window with --steps, or on more ranks",
        (long long)S, (long long)n, (long long)(OPT_MAX_BYTES >> 30));
  if ((e = lbs__agree(x, e))) return e;
  opt_tables o = {S,
                  n,
                  malloc((size_t)S * (size_t)(n ? n : 1) * sizeof *o.A),
                  malloc((size_t)S * (size_t)(n ? n : 1) * sizeof *o.W),
                  x->nph ? malloc((size_t)S * (size_t)x->nph * (size_t)(n ? n : 1) * sizeof *o.WP)
                         : NULL,
                  malloc((size_t)S * (size_t)(S + 1) * sizeof *o.end),
                  malloc((size_t)S * (size_t)S * sizeof *o.mig),
                  3 * S - 2,
                  0};
  /* rank 0 tells how far the search is: S - 1 partitions, S simulations, S - 1 rows of migrations
   */
  int64_t *clock = malloc((size_t)x->P * sizeof *clock),
          *arrive = malloc((size_t)x->P * sizeof *arrive);
  int64_t *fix = malloc((size_t)x->P * sizeof *fix), *load = malloc((size_t)x->P * sizeof *load);
  int64_t *phload = malloc((size_t)(x->nph + 1) * (size_t)x->P * sizeof *phload);
  lbs_net *net = NULL;
  if (!o.A || !o.W || (x->nph && !o.WP) || !o.end || !o.mig || !clock || !arrive || !fix || !load ||
      !phload)
    e = lbs_fail(LBS_NOMEM, "optimal: tables for %lld steps", (long long)S);
  if (!e) e = lbs_net_create(x->g, &net); /* its own network: the replay's stays as it is */
  e = lbs__agree(x, e);
  if (!e) e = opt_partitions(x, &o);
  if (!e) e = opt_segments(x, &o, net, clock, arrive, fix, load, phload);
  if (!e) e = opt_migrations(x, &o, net, arrive);
  if (!e) e = lbs__agree(x, opt_plan(x, &o));
  free(o.W), free(o.WP), free(o.end), free(o.mig), free(clock), free(arrive), free(fix), free(load),
      free(phload);
  lbs_net_destroy(&net);
  if (e) {
    free(o.A);
    return e;
  }
  x->opt_assign = o.A;
  x->opt_done = 1;
  *steps = x->opt_steps;
  *nsteps = x->opt_n;
  return LBS_OK;
}
