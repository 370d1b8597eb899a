/* recorded.c - the application's own assignments replayed (a policy whose flags say
 * LBS_POLICY_RECORDED: `recorded`). The trace records which rank held each element from which
 * application step on (lbs_trace_owners_*); the assignment at application step a is the last one
 * whose first step is <= a. The replay starts from the one in force at its window's first step
 * (the first recorded one when that step comes before it), rank r on processor r, and moves to
 * the one in force at window step s before s wherever it differs from step s-1's: several
 * recorded between two sampled steps collapse to the last. What such a repartition costs is
 * what the application recorded where the trace has it (its events partition_s and
 * migration_s at trace step s: the sums since the previous sampled step, each rank's; the
 * largest over the ranks is charged); where it has not, the partitioning time is 0 (the
 * application's partitioner ran, not one of ours) and the moves are charged by the migration
 * model like any repartition's.
 *
 * Each rank reads a whole assignment (E owners) and keeps its own elements' parts: O(E)
 * transient memory per rank while it reads, once per change of assignment. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

/* Local: the index of the recorded assignment in force at trace step ts (0 before the first). */
static int64_t in_force(const lbs__engine *x, int64_t ts) {
  int64_t app = 0, lo = 0, hi = lbs_trace_owners_count(x->t); /* the last i with step <= app */
  lbs_trace_app_step(x->t, ts, &app);
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (lbs_trace_owners_step(x->t, mid) <= app)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* Local: the owners of assignment i into owner (E), the largest into *max. */
static lbs_err read_owners(lbs__engine *x, int64_t i, int64_t *owner, int64_t *max) {
  lbs_err e = lbs_trace_owners_read(x->t, i, owner);
  *max = -1;
  for (int64_t k = 0; !e && k < x->E; k++) *max = owner[k] > *max ? owner[k] : *max;
  return e;
}

/* Collective: every assignment the window uses puts its elements on the grid's processors. The
 * ranks share the reading (assignment k of the window's on rank k mod size); the largest owner
 * and the first assignment that has it are agreed (MPI_MAXLOC). */
static lbs_err check_owners(lbs__engine *x) {
  int64_t *owner = malloc((size_t)x->E * sizeof *owner), max;
  lbs_err e =
      owner ? LBS_OK : lbs_fail(LBS_NOMEM, "recorded owners of %lld elements", (long long)x->E);
  struct {
    int owner, k; /* the largest owner; the window step of the first assignment that has it
                     (MAXLOC keeps the smallest index of equal values) */
  } mine = {-1, 0}, all;
  for (int64_t s = 0, k = 0; !e && s < x->S; s++) {
    if (s && x->rec_idx[s] == x->rec_idx[s - 1]) continue;
    if (k++ % x->size != x->rank) continue;
    if (!(e = read_owners(x, x->rec_idx[s], owner, &max)) && max > mine.owner)
      mine.owner = (int)max, mine.k = (int)s;
  }
  free(owner);
  if ((e = lbs__agree(x, e))) return e;
  MPI_Allreduce(&mine, &all, 1, MPI_2INT, MPI_MAXLOC, x->comm);
  if (all.owner < x->P) return LBS_OK;
  int64_t app = 0;
  lbs_trace_app_step(x->t, x->S0 + all.k, &app);
  return lbs_fail(LBS_INVAL,
                  "%s: policy recorded: the recorded assignment in force at application step %lld "
                  "puts elements on rank %d, and the grid has %d processors: it needs %d or more "
                  "(one per rank of the recorded run)",
                  lbs_trace_path(x->t), (long long)app, all.owner, x->P, all.owner + 1);
}

lbs_err lbs__recorded_setup(lbs__engine *x) {
  lbs_err e = LBS_OK;
  x->ev_part = lbs_trace_event_find(x->t, LBS_EVENT_PARTITION);
  x->ev_mig = lbs_trace_event_find(x->t, LBS_EVENT_MIGRATION);
  if (lbs_trace_owners_count(x->t) < 1)
    e = lbs_fail(LBS_INVAL,
                 "%s: policy recorded replays the application's own assignments, and this trace "
                 "has none recorded (the profiler records them where the application migrates "
                 "elements: lbsprof_remap); choose another policy",
                 lbs_trace_path(x->t));
  else if (!(x->rec_idx = malloc((size_t)x->S * sizeof *x->rec_idx)))
    e = lbs_fail(LBS_NOMEM, "recorded assignments of %lld steps", (long long)x->S);
  for (int64_t s = 0; !e && s < x->S; s++) x->rec_idx[s] = in_force(x, x->S0 + s);
  if ((e = lbs__agree(x, e))) return e;
  return lbs__agree(x, check_owners(x));
}

int lbs__recorded_due(const lbs__engine *x, int64_t s) {
  return s > 0 && s < x->S && x->rec_idx[s] != x->rec_idx[s - 1];
}

lbs_err lbs__recorded_assign(lbs__engine *x, int64_t s, int *part) {
  int64_t *owner = malloc((size_t)x->E * sizeof *owner), max;
  lbs_err e = owner ? read_owners(x, x->rec_idx[s], owner, &max)
                    : lbs_fail(LBS_NOMEM, "recorded owners of %lld elements", (long long)x->E);
  for (int64_t i = 0; !e && i < x->n; i++) part[i] = (int)owner[x->first + i];
  free(owner);
  return lbs__agree(x, e);
}

#define EVENT_MAX_S 1e6 /* a recorded cost above this (11.6 days) is taken for a broken record */

/* Local: the largest over the ranks of the events idx[0] and idx[1] (-1: none) at trace step
 * ts, in ns, into ns[0] and ns[1] (left as they are where the trace has no such event there). */
static lbs_err read_costs(lbs__engine *x, int64_t ts, const int idx[2], int64_t ns[2]) {
  int nev = lbs_trace_nevents(x->t), R = lbs_trace_event_ranks(x->t), have = 0;
  double *ev = malloc((size_t)nev * (size_t)R * sizeof *ev);
  lbs_err e = ev ? lbs_trace_read_events(x->t, ts, ev, &have)
                 : lbs_fail(LBS_NOMEM, "events of %d ranks", R);
  for (int k = 0; !e && have && k < 2; k++) {
    double mx = 0;
    for (int r = 0; !e && idx[k] >= 0 && r < R; r++) {
      double v = ev[(size_t)r * (size_t)nev + (size_t)idx[k]];
      if (!(v >= 0 && v <= EVENT_MAX_S)) { /* NaN fails too */
        int64_t app = 0;
        lbs_trace_app_step(x->t, ts, &app);
        e = lbs_fail(LBS_RANGE,
                     "%s: step %lld (application step %lld): rank %d's %s %g is negative, not "
                     "finite or more than %g seconds",
                     lbs_trace_path(x->t), (long long)ts, (long long)app, r,
                     lbs_trace_event_name(x->t, idx[k]), v, EVENT_MAX_S);
      }
      mx = v > mx ? v : mx;
    }
    if (!e && idx[k] >= 0) ns[k] = llround(mx * 1e9);
  }
  free(ev);
  return e;
}

lbs_err lbs__recorded_costs(lbs__engine *x, int64_t s, int64_t *part_ns, int64_t *mig_ns) {
  int64_t ns[2] = {-1, -1};
  lbs_err e = LBS_OK;
  const int idx[2] = {x->ev_part, x->ev_mig};
  if (x->rank == 0 && (x->ev_part >= 0 || x->ev_mig >= 0)) e = read_costs(x, x->S0 + s, idx, ns);
  if ((e = lbs__agree(x, e))) return e;
  MPI_Bcast(ns, 2, MPI_INT64_T, 0, x->comm);
  *part_ns = ns[0], *mig_ns = ns[1];
  return LBS_OK;
}

/* ---------------------------------------------------------------- the application's rate */

/* Local: the largest count of elements one processor sends or receives in going from owners a
 * to owners b (E each), as lbs__model_migration_ns counts them. */
static lbs_err busiest(const lbs__engine *x, const int64_t *a, const int64_t *b, int64_t *out) {
  int64_t top = 0;
  for (int64_t i = 0; i < x->E; i++) top = a[i] > top ? a[i] : b[i] > top ? b[i] : top;
  int64_t *m = calloc((size_t)top + 1, sizeof *m);
  if (!m) return lbs_fail(LBS_NOMEM, "migration rate: counts of %lld ranks", (long long)top + 1);
  *out = 0;
  for (int64_t i = 0; i < x->E; i++)
    if (a[i] != b[i]) m[a[i]]++, m[b[i]]++;
  for (int64_t p = 0; p <= top; p++) *out = m[p] > *out ? m[p] : *out;
  free(m);
  return LBS_OK;
}

/* Local: point j's figures, pt[0..2] = {migrations, elements, ns}: the recorded migrations
 * between the assignments in force at trace steps ts - 1 and ts (several where they collapse
 * between two sampled steps), the sum over them of the busiest processor's elements, and the
 * largest over the ranks of the event migration_s at ts; all 0 where ts has no such event. */
static lbs_err rate_point(lbs__engine *x, int64_t ts, int64_t *own[2], double pt[3]) {
  const int idx[2] = {-1, x->ev_mig};
  int64_t ns[2] = {-1, -1}, i0 = in_force(x, ts - 1), i1 = in_force(x, ts), sum = 0, one = 0, max;
  lbs_err e = read_costs(x, ts, idx, ns);
  if (e || ns[1] < 0) return e;
  e = read_owners(x, i0, own[0], &max);
  for (int64_t i = i0 + 1; !e && i <= i1; i++) {
    if (!(e = read_owners(x, i, own[1], &max)) && !(e = busiest(x, own[0], own[1], &one)))
      sum += one;
    int64_t *t = own[0];
    own[0] = own[1], own[1] = t;
  }
  if (!e) pt[0] = (double)(i1 - i0), pt[1] = (double)sum, pt[2] = (double)ns[1];
  return e;
}

/* The fit, the same on every rank from the same points (n x 3, unused ones all 0): y = a k + b X
 * for k migrations moving X elements (the busiest processor's) in y ns. Least squares wants 3
 * or more points whose X are not proportional to their k (else a and b trade off freely) and
 * must give a >= 0 and b >= 0 (a migration neither pays back time nor gets cheaper per
 * element); otherwise the ratio of the sums, a = 0 and b = sum y / sum X: with a profiled run's
 * usual 1 or 2 repartitions, or noisy ones, a line through two points would take their noise
 * for the fixed term, and the ratio is the per-element figure the larger migrations (what
 * matters most for the total) pin down. Nothing where no recorded migration moved anything. */
static void rate_fit(lbs__engine *x, const double *pt, int64_t n) {
  double kk = 0, kX = 0, XX = 0, ky = 0, Xy = 0, X = 0, y = 0;
  int used = 0;
  for (int64_t j = 0; j < n; j++) {
    const double *p = pt + 3 * j;
    if (p[0] <= 0) continue; /* no event at that step */
    kk += p[0] * p[0], kX += p[0] * p[1], XX += p[1] * p[1];
    ky += p[0] * p[2], Xy += p[1] * p[2], X += p[1], y += p[2], used++;
  }
  x->mig_points = used;
  double det = kk * XX - kX * kX;
  if (used >= 3 && det > 1e-9 * kk * XX) {
    double a = (XX * ky - kX * Xy) / det, b = (kk * Xy - kX * ky) / det;
    if (a >= 0 && b >= 0) {
      x->mig_fit = 2, x->mig_fixed_us = a / 1e3, x->mig_per_elem_ns = b;
      return;
    }
  }
  if (X > 0) x->mig_fit = 1, x->mig_fixed_us = 0, x->mig_per_elem_ns = y / X;
}

lbs_err lbs__migration_rate_setup(lbs__engine *x) {
  x->mig_fit = 0;
  if (x->recorded || x->o->migration_cost != LBS_MIGCOST_MEASURED) return LBS_OK;
  x->ev_mig = lbs_trace_event_find(x->t, LBS_EVENT_MIGRATION);
  if (x->ev_mig < 0 || lbs_trace_owners_count(x->t) < 2) return LBS_OK;
  /* the points: each trace step the recorded assignment changes before, as the recorded policy
   * charges it (the events there), over the whole trace whatever the window */
  int64_t T = lbs_trace_steps(x->t), n = 0;
  for (int64_t ts = 1; ts < T; ts++) n += in_force(x, ts) != in_force(x, ts - 1);
  double *pt = calloc((size_t)(3 * n + 1), sizeof *pt);
  int64_t *own[2] = {malloc((size_t)x->E * sizeof *own[0]), malloc((size_t)x->E * sizeof *own[1])};
  lbs_err e = pt && own[0] && own[1]
                  ? LBS_OK
                  : lbs_fail(LBS_NOMEM, "migration rate: owners of %lld elements", (long long)x->E);
  /* the ranks share the reading (point j on rank j mod size) and sum the points: one rank's
   * figures and zeros, exact, so the fit is the same on any number of ranks */
  for (int64_t ts = 1, j = 0; !e && ts < T; ts++)
    if (in_force(x, ts) != in_force(x, ts - 1) && j++ % x->size == x->rank)
      e = rate_point(x, ts, own, pt + 3 * (j - 1));
  free(own[0]), free(own[1]);
  if (!(e = lbs__agree(x, e))) {
    MPI_Allreduce(MPI_IN_PLACE, pt, (int)(3 * n), MPI_DOUBLE, MPI_SUM, x->comm);
    rate_fit(x, pt, n);
  }
  free(pt);
  return e;
}
/* ---------------------------------------------------------------- outside the elements
 *
 * The profiler records each rank's time outside its measured elements at each sampled step
 * (event outside_s: halo packing and MPI calls, code between element loops, its own work, and
 * waiting for slower ranks at exchanges). The replay already makes every processor wait for the
 * slowest at each phase and at the step's end, so charging a rank's outside time as it is would
 * count that waiting twice.
 *
 * Recorded policy: processor r is the application's rank r, with the same elements. Rank r's
 * step took its wall time outside_r + L_r (L_r its elements' time, the replay's load of
 * processor r), and every rank's step is about as long, the exchanges holding them together.
 * The replay charges the step's compute C (the slowest processor of each phase in turn) and
 * its communication; what the run spent beyond C is mean_r (outside_r + L_r) - C (at least 0).
 * Without phases and with equal walls it is the outside time of the slowest rank, which waited
 * least; with phases a rank also waits for the slowest of each phase, which C holds already, so
 * the least outside_r would count that wait twice. The mean, not the least or the largest: the
 * ranks' step ends are not simultaneous (a rank late to one lbsprof_step_end has that step
 * longer and the next one shorter), so per step the least is biased low and the largest high,
 * while each rank's walls add up to the run's time over the steps, and so does their mean.
 * It still holds the real halo exchange, which the replay also charges over the links: on one
 * node a small part (bench/RESULTS.md, "self-validation"). L_r and C are the replay's, in
 * the grid's ns: on the machine that was profiled (`grid probe`: ns_per_work 1), the measured
 * ones.
 *
 * Cost measured with one of lbsim's policies: the processors are not the ranks, so the
 * recorded run's loads are not at hand; the least over the ranks of outside_r is charged,
 * which also holds the recorded run's waiting between phases (an upper bound of its overhead
 * where the run has phases, the same without).
 *
 * Only where costs are charged as measured (cost measured, or the recorded policy): a replay
 * that models the costs of another machine has no measured overhead of its own to add. */

void lbs__outside_setup(lbs__engine *x) {
  x->ev_out = -1;
  if (!x->o->no_outside && (x->recorded || x->o->cost == LBS_COST_MEASURED))
    x->ev_out = lbs_trace_event_find(x->t, LBS_EVENT_OUTSIDE);
}

/* Local (rank 0): what trace step ts adds (above), into *ns; 0 where the step has no events. */
static lbs_err read_outside(lbs__engine *x, int64_t ts, int64_t *ns) {
  int nev = lbs_trace_nevents(x->t), R = lbs_trace_event_ranks(x->t), have = 0;
  double *ev = malloc((size_t)nev * (size_t)R * sizeof *ev);
  lbs_err e = ev ? lbs_trace_read_events(x->t, ts, ev, &have)
                 : lbs_fail(LBS_NOMEM, "events of %d ranks", R);
  int64_t least = INT64_MAX, sum = 0;
  for (int r = 0; !e && have && r < R; r++) {
    double v = ev[(size_t)r * (size_t)nev + (size_t)x->ev_out];
    if (!(v >= 0 && v <= EVENT_MAX_S)) { /* NaN fails too */
      int64_t app = 0;
      lbs_trace_app_step(x->t, ts, &app);
      e = lbs_fail(LBS_RANGE,
                   "%s: step %lld (application step %lld): rank %d's %s %g is negative, not "
                   "finite or more than %g seconds",
                   lbs_trace_path(x->t), (long long)ts, (long long)app, r, LBS_EVENT_OUTSIDE, v,
                   EVENT_MAX_S);
      break;
    }
    /* recorded: rank r's wall time of the step (a rank beyond the grid's processors has
     * no elements: check_owners) */
    int64_t t = llround(v * 1e9) + (x->recorded && r < x->P ? x->load[r] : 0);
    least = t < least ? t : least, sum += t;
  }
  *ns = 0;
  if (!e && have && R > 0) {
    int64_t c = x->recorded ? lbs__compute_done(x, NULL, x->load, x->phload, NULL) : 0,
            t = x->recorded ? sum / R : least; /* integers: the same on any number of ranks */
    *ns = t > c ? t - c : 0;
  }
  free(ev);
  return e;
}

lbs_err lbs__outside_at(lbs__engine *x, int64_t s, int64_t *ns) {
  *ns = 0;
  lbs_err e = x->rank == 0 ? read_outside(x, x->S0 + s, ns) : LBS_OK;
  if ((e = lbs__agree(x, e))) return e;
  MPI_Bcast(ns, 1, MPI_INT64_T, 0, x->comm);
  return LBS_OK;
}
