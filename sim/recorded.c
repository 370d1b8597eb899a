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

/* Local: the largest over the ranks of the events partition_s and migration_s at trace step ts,
 * in ns, into ns[0] and ns[1] (left as they are where the trace has no such event there). */
static lbs_err read_costs(lbs__engine *x, int64_t ts, int64_t ns[2]) {
  int nev = lbs_trace_nevents(x->t), R = lbs_trace_event_ranks(x->t), have = 0;
  const int idx[2] = {x->ev_part, x->ev_mig};
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
  if (x->rank == 0 && (x->ev_part >= 0 || x->ev_mig >= 0)) e = read_costs(x, x->S0 + s, ns);
  if ((e = lbs__agree(x, e))) return e;
  MPI_Bcast(ns, 2, MPI_INT64_T, 0, x->comm);
  *part_ns = ns[0], *mig_ns = ns[1];
  return LBS_OK;
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
