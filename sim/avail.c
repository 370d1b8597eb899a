/* avail.c - the replay under a changing grid: the grid file's availability profiles
 * ([availability NAME], grid/avail.c) applied as the steps pass.
 *
 * The engine replays on a live copy of the grid (lbs_grid_live_create): at the start of each
 * step the profiles due then set its processors' speed factors and its links, so compute times
 * (lbs_grid_compute_ns), the network (lbs_net_relink) and the part sizes the partitioners aim at
 * (speed-proportional: a slowed processor gets a smaller share) follow, and so do the loads the
 * policies see. Profiles whose from_step is at or before the window's first step hold from the
 * initial partition on. Step navigation (lbs_loadview.eval_step) sees the grid as it is at the
 * step it looks at, as it sees that step's work: a policy that looks ahead sees a slowdown
 * coming (a failure too: its processor's load is then 9e18 ns).
 *
 * A processor that fails at step s gets no work from then on: before step s runs, the engine
 * repartitions (replay.c; recorded, counted and charged as any other repartition) with its part
 * size 0, and every element it held moves. Its elements' migration is charged as any other:
 * bytes_per_elem each from the failed processor over its links and NIC, as if its state were
 * read back from a checkpoint kept at its node. A partitioner may not honour a zero share
 * (METIS without :speed aims at equal parts): lbs__avail_place then deals the elements it left
 * on failed processors out over the live ones, so no failed processor ever holds work. */
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

lbs_err lbs__avail_setup(lbs__engine *x, int64_t total_steps) {
  int na = lbs_grid_avail_count(x->g);
  if (na == 0) return LBS_OK;
  for (int i = 0; i < na; i++) {
    const lbs_avail *a = lbs_grid_avail(x->g, i);
    if (a->from_step >= total_steps)
      return lbs_fail(LBS_RANGE,
                      "%s: [availability %s] from_step = %lld is past the trace's last step %lld",
                      a->where, a->name, (long long)a->from_step, (long long)total_steps - 1);
    if (a->until_step > total_steps)
      return lbs_fail(
          LBS_RANGE, "%s: [availability %s] until_step = %lld is past the trace's end (%lld steps)",
          a->until_where, a->name, (long long)a->until_step, (long long)total_steps);
  }
  const lbs_avail *a0 = lbs_grid_avail(x->g, 0);
  if (x->rec)
    return lbs_fail(
        LBS_INVAL,
        "%s: [availability %s]: a recorded replay (export simgrid) cannot follow availability "
        "profiles (the exported platform is fixed); remove them",
        a0->where, a0->name);
  for (int i = 0; x->recorded && i < lbs_grid_avail_count(x->g); i++) {
    const lbs_avail *a = lbs_grid_avail(x->g, i); /* slowdowns and links it follows */
    if (a->kind == LBS_AVAIL_PROCS && a->fail)
      return lbs_fail(LBS_INVAL,
                      "%s: [availability %s]: policy recorded replays the application's own "
                      "assignments, which cannot follow a failing processor (its elements would "
                      "need a partitioner); remove the failure or choose another policy",
                      a->where, a->name);
  }
  if (lbs__plans_ahead(x))
    return lbs_fail(LBS_INVAL,
                    "%s: [availability %s]: the %s policy plans on a grid that does not change; "
                    "remove the availability profiles or choose another policy",
                    a0->where, a0->name, lbs_policy_ops_of(x->policy)->name);
  int changed;
  lbs_err e = lbs_grid_live_create(x->g, &x->live);
  if (!e) e = lbs_grid_live_create(x->g, &x->live_nav);
  if (!e) e = lbs_grid_live_step(x->live, x->S0, &changed);
  if (e) return e;
  x->g = x->live;
  return LBS_OK;
}

lbs_err lbs__avail_step(lbs__engine *x, int64_t s, int *forced) {
  *forced = 0;
  if (!x->live) return LBS_OK;
  int changed;
  lbs_err e = lbs_grid_live_step(x->live, x->S0 + s, &changed);
  if (e) return lbs__agree(x, e);
  if (changed & LBS_AVAIL_LINKS) lbs_net_relink(x->net);
  if (changed & LBS_AVAIL_SPEED) e = lbs_replay_part_sizes(x->t, x->g, x->o->part_sizes, x->sizes);
  if (e) return lbs__agree(x, e);
  *forced = (changed & LBS_AVAIL_FAILED) != 0;
  return LBS_OK;
}

const lbs_grid *lbs__avail_grid_at(lbs__engine *x, int64_t s) {
  int changed;
  if (!x->live_nav || lbs_grid_live_step(x->live_nav, x->S0 + s, &changed))
    return x->g; /* (fails only when not live) */
  return x->live_nav;
}

void lbs__avail_imbalance(const lbs_grid *g, const int64_t *load, int P, double *imb,
                          double *limb) {
  int failed = 0;
  for (int p = 0; p < P; p++) failed += lbs_grid_proc_failed(g, p);
  if (!failed || failed == P) {
    lbs__imbalance(load, P, imb, limb);
    return;
  }
  int64_t *live = malloc((size_t)(P - failed) * sizeof *live);
  if (!live) { /* (out of memory: every processor, as without failures) */
    lbs__imbalance(load, P, imb, limb);
    return;
  }
  int n = 0;
  for (int p = 0; p < P; p++)
    if (!lbs_grid_proc_failed(g, p)) live[n++] = load[p];
  lbs__imbalance(live, n, imb, limb);
  free(live);
}

void lbs__avail_place(lbs__engine *x) {
  if (!x->live) return;
  int any = 0;
  for (int p = 0; p < x->P && !any; p++) any = lbs_grid_proc_failed(x->g, p);
  if (!any) return;
  /* the k-th element on a failed processor, in global id order, of K: to the live processor
   * whose stretch of the cumulated part sizes holds (k + 1/2) / K: the same on any rank count */
  int64_t mine = 0, before = 0, K = 0;
  for (int64_t i = 0; i < x->n; i++) mine += lbs_grid_proc_failed(x->g, x->newp[i]);
  MPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, x->comm);
  if (x->rank == 0) before = 0; /* MPI_Exscan leaves rank 0's undefined */
  MPI_Allreduce(&mine, &K, 1, MPI_INT64_T, MPI_SUM, x->comm);
  if (K == 0) return;
  double total = 0;
  for (int p = 0; p < x->P; p++) total += lbs_grid_proc_failed(x->g, p) ? 0 : x->sizes[p];
  int last = x->P - 1; /* rounding at the end: the last live processor */
  while (last > 0 && lbs_grid_proc_failed(x->g, last)) last--;
  int64_t k = before;
  int p = 0;
  double upto = 0; /* the cumulated share of processors before p */
  for (int64_t i = 0; i < x->n; i++) {
    if (!lbs_grid_proc_failed(x->g, x->newp[i])) continue;
    double at = ((double)k++ + 0.5) / (double)K * total;
    int q = last;
    for (; p <= last; p++) {
      double share = lbs_grid_proc_failed(x->g, p) ? 0 : x->sizes[p];
      if (share > 0 && at < upto + share) {
        q = p;
        break;
      }
      upto += share;
    }
    x->newp[i] = q;
  }
}
