/* replay.c - the replay engine: a trace on a simulated grid, under MPI.
 *
 * Model (DESIGN.md): at step s processor p computes for f_p(W_p(s)) ns, W_p(s) the sum of
 * the replayed metric over its elements; then every pair (p, q) sharing graph edges
 * exchanges B_pq = bytes_per_edge x (weight of the cut edges from p to q) bytes, taking
 * latency + B / bandwidth on the link between their clusters, alone; a shared link and the
 * NICs are shared by max-min fair flows (SimGrid's model) or first come first served
 * (network.c, [grid] sharing), a dedicated link gives each transfer its bandwidth.
 *   bsp: every step ends at a barrier: when the last processor has computed and received,
 *        plus the barrier's cost ([grid] barrier_us).
 *   des: a processor starts step s+1 when its own compute of step s is done and the halos
 *        of step s from its neighbours have arrived. Transfers of one step get what those
 *        of earlier steps leave on a shared resource.
 * A repartition is collective: the clocks meet at a barrier, the partitioner's time is
 * charged (a deterministic model by default), then migration: each element that changes
 * processor moves bytes_per_elem over the links, as one transfer per (old, new) pair.
 *
 * Under MPI, rank r holds a chunk-aligned range of elements, decodes only those and sums
 * its elements' work per processor; sums are 64-bit fixed point (2^-12 units), so they are
 * exact and the result does not depend on the number of ranks. Every rank keeps the whole
 * assignment (4 bytes an element) and the same clocks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lbs_part.h"
#include "lbs_policy.h"
#include "lbs_sim.h"
#include "sim_int.h"

#define FIX 4096.0 /* fixed-point units per work unit */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Makes every rank return the same error: the first failing rank's code and message. */
lbs_err lbs__agree(eng *x, lbs_err e) {
  int mine = e ? x->rank : x->size, first;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, x->comm);
  if (first == x->size) return LBS_OK;
  char msg[1024];
  int code = e;
  if (x->rank == first) snprintf(msg, sizeof msg, "%s", lbs_errmsg());
  MPI_Bcast(msg, sizeof msg, MPI_CHAR, first, x->comm);
  MPI_Bcast(&code, 1, MPI_INT, first, x->comm);
  return lbs_fail((lbs_err)code, "%s", msg);
}

void lbs_partition_cost_default(const char *partitioner, double *fixed_us, double *per_elem_ns) {
  /* Fitted to the real calls' wall time on the 2-core EPYC VM, one rank, 12,000 and 96,000
   * element bump traces, 10 calls each (bench/RESULTS.md has the command and figures). */
  static const struct {
    const char *name;
    double fixed_us, per_elem_ns;
  } table[] = {{"zoltan:rcb", 600, 100},    {"zoltan:rib", 500, 120},     {"zoltan:hsfc", 150, 170},
               {"zoltan:block", 70, 30},    {"zoltan:random", 140, 30},   {"zoltan:phg", 17000, 15000},
               {"zoltan:graph", 500, 5500}, {"metis", 5900, 1000},      {"metis:rb", 780, 1660},
               {"minex", 7700, 980},        {"minex:diffusive", 890, 860}, {NULL, 0, 0}};
  *fixed_us = 500;
  *per_elem_ns = 1000;
  /* the longest entry that is the name or a prefix of it up to a ':' ("metis:rb:speed") */
  size_t best = 0;
  for (int i = 0; table[i].name; i++) {
    size_t n = strlen(table[i].name);
    if (n > best && !strncmp(table[i].name, partitioner, n) && (partitioner[n] == '\0' || partitioner[n] == ':')) {
      best = n;
      *fixed_us = table[i].fixed_us;
      *per_elem_ns = table[i].per_elem_ns;
    }
  }
}

/* ---------------------------------------------------------------- loads */

/* Reads this rank's work values of step s into w; checks them. */
lbs_err lbs__read_work(eng *x, int64_t s, double *w) {
  lbs_err e = x->n ? lbs_trace_read(x->t, s, x->metric, x->first, x->n, w) : LBS_OK;
  int bad = 0;
  for (int64_t i = 0; !e && i < x->n; i++) bad |= !(w[i] >= 0 && w[i] <= 1e15); /* NaN fails too */
  for (int64_t i = 0; !e && bad && i < x->n; i++)
    if (!(w[i] >= 0 && w[i] <= 1e15))
      e = lbs_fail(LBS_RANGE, "step %lld element %lld: work %g is negative, too large or not finite", (long long)s,
                   (long long)(x->first + i), w[i]);
  return lbs__agree(x, e);
}

lbs_err lbs__part_weights(eng *x, int64_t s, const double *work, const double **out) {
  *out = work;
  if (x->pmetric < 0) return LBS_OK;
  lbs_err e = x->n ? lbs_trace_read(x->t, s, x->pmetric, x->first, x->n, x->wpart) : LBS_OK;
  for (int64_t i = 0; !e && i < x->n; i++)
    if (!(x->wpart[i] >= 0 && x->wpart[i] <= 1e15))
      e = lbs_fail(LBS_RANGE, "step %lld element %lld: partition weight %g is negative, too large or not finite",
                   (long long)s, (long long)(x->first + i), x->wpart[i]);
  *out = x->wpart;
  return lbs__agree(x, e);
}

/* Per-processor compute times of the work in x->w under the current assignment. */
void lbs__compute_loads(eng *x) {
  memset(x->fix, 0, (size_t)x->P * sizeof *x->fix);
  /* work was checked to be in [0, 1e15]: rounding half up by truncation is exact enough
   * and far cheaper than llround() on the hot path */
  for (int64_t i = 0; i < x->n; i++) x->fix[x->cur[i]] += (int64_t)(x->w[i] * FIX + 0.5);
  MPI_Allreduce(MPI_IN_PLACE, x->fix, x->P, MPI_INT64_T, MPI_SUM, x->comm);
  for (int p = 0; p < x->P; p++) x->load[p] = lbs_grid_compute_ns(x->g, p, (double)x->fix[p] / FIX);
}

void lbs__imbalance(const int64_t *load, int P, double *imb, double *limb);

/* Step navigation for policies: loads of window step s under the current assignment. */
static lbs_err eval_step(void *nav, int64_t s, int64_t *load_ns, double *imb) {
  eng *x = nav;
  if (s < 0 || s >= x->S)
    return lbs_fail(LBS_RANGE, "step navigation: step %lld outside 0..%lld", (long long)s, (long long)(x->S - 1));
  lbs_err e = lbs__read_work(x, x->S0 + s, x->wnav);
  if (e) return e;
  memset(x->fixnav, 0, (size_t)x->P * sizeof *x->fixnav);
  for (int64_t i = 0; i < x->n; i++) x->fixnav[x->cur[i]] += (int64_t)(x->wnav[i] * FIX + 0.5);
  MPI_Allreduce(MPI_IN_PLACE, x->fixnav, x->P, MPI_INT64_T, MPI_SUM, x->comm);
  const lbs_grid *g = lbs__avail_grid_at(x, s); /* x->g, or as it is at step s (avail.c) */
  for (int p = 0; p < x->P; p++) load_ns[p] = lbs_grid_compute_ns(g, p, (double)x->fixnav[p] / FIX);
  double limb;
  if (imb) lbs__avail_imbalance(g, load_ns, x->P, imb, &limb); /* over the live processors */
  return LBS_OK;
}

/* The offline optimum for the `optimal` policy (optimal.c). */
lbs_err lbs__optimize(void *nav, int64_t maxcand, const int64_t **steps, int *nsteps);
static lbs_err optimize_hook(void *nav, int64_t maxcand, const int64_t **steps, int *nsteps) {
  return lbs__optimize(nav, maxcand, steps, nsteps);
}

void lbs__imbalance(const int64_t *load, int P, double *imb, double *limb) {
  double mx = 0, sum = 0;
  for (int p = 0; p < P; p++) {
    mx = fmax(mx, (double)load[p]);
    sum += (double)load[p];
  }
  double avg = sum / P;
  *imb = mx > 0 ? (mx - avg) / mx : 0;
  *limb = avg > 0 ? mx / avg : 1;
}

/* ---------------------------------------------------------------- transfers */

static int cmp_key(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Combines (key, fixed-point amount) pairs from every rank into sorted transfers. */
#define DENSE_PAIRS_MAX 512 /* P up to this: aggregate in a P x P table, no sort */

lbs_err lbs__merge_pairs(eng *x, int64_t *kv, int64_t nkv, double unit_bytes, xfer **out, int *nout) {
  int64_t m = 0;
  if (x->P <= DENSE_PAIRS_MAX) {
    int64_t PP = (int64_t)x->P * x->P, *dense = calloc((size_t)PP, sizeof *dense);
    if (!dense) return lbs_fail(LBS_NOMEM, "transfer table");
    for (int64_t i = 0; i < nkv; i++) dense[kv[2 * i]] += kv[2 * i + 1];
    for (int64_t k = 0; k < PP; k++)
      if (dense[k]) kv[2 * m] = k, kv[2 * m + 1] = dense[k], m++;
    free(dense);
  } else {
    qsort(kv, (size_t)nkv, 2 * sizeof *kv, cmp_key);
    for (int64_t i = 0; i < nkv; i++) {
      if (m && kv[2 * (m - 1)] == kv[2 * i]) kv[2 * (m - 1) + 1] += kv[2 * i + 1];
      else kv[2 * m] = kv[2 * i], kv[2 * m + 1] = kv[2 * i + 1], m++;
    }
  }
  int cnt = (int)(2 * m), *counts = malloc((size_t)x->size * sizeof *counts), *displs = malloc((size_t)x->size * sizeof *displs);
  MPI_Allgather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, x->comm);
  int64_t total = 0;
  for (int r = 0; r < x->size; r++) {
    displs[r] = (int)total;
    total += counts[r];
  }
  int64_t *all = malloc((size_t)(total + 2) * sizeof *all);
  lbs_err e = counts && displs && all ? LBS_OK : lbs_fail(LBS_NOMEM, "transfer lists");
  if (!e) MPI_Allgatherv(kv, cnt, MPI_INT64_T, all, counts, displs, MPI_INT64_T, x->comm);
  int64_t na = total / 2, k = 0;
  if (!e) {
    qsort(all, (size_t)na, 2 * sizeof *all, cmp_key);
    xfer *xs = malloc((size_t)(na + 1) * sizeof *xs);
    if (!xs) e = lbs_fail(LBS_NOMEM, "transfer lists");
    /* the ranks' shares are added as fixed-point integers and converted once: the bytes do not
     * depend on how the pairs were split over the ranks (a fractional unit included) */
    for (int64_t i = 0; !e && i < na; i++) {
      if (k && (int64_t)xs[k - 1].p * x->P + xs[k - 1].q == all[2 * i]) {
        all[2 * (k - 1) + 1] += all[2 * i + 1];
      } else {
        xs[k].p = (int)(all[2 * i] / x->P);
        xs[k].q = (int)(all[2 * i] % x->P);
        all[2 * k + 1] = all[2 * i + 1];
        k++;
      }
    }
    for (int64_t j = 0; !e && j < k; j++) xs[j].bytes = (double)all[2 * j + 1] / FIX * unit_bytes;
    *out = xs;
    *nout = (int)k;
  }
  free(counts);
  free(displs);
  free(all);
  return e;
}

/* Halo transfers under the current assignment: cut edge weight between each (p, q). */
lbs_err lbs__build_halo(eng *x) {
  free(x->halo);
  x->halo = NULL;
  x->nhalo = 0;
  if (!x->xadj || x->bytes_edge <= 0) return lbs__agree(x, LBS_OK);
  int64_t ne = x->xadj[x->first + x->n] - x->xadj[x->first], nkv = 0;
  int64_t *kv = malloc((size_t)(2 * ne + 2) * sizeof *kv);
  if (!kv) return lbs__agree(x, lbs_fail(LBS_NOMEM, "halo pairs"));
  for (int64_t i = 0; i < x->n; i++) {
    int64_t u = x->first + i;
    for (int64_t k = x->xadj[u]; k < x->xadj[u + 1]; k++) {
      int p = x->assign[u], q = x->assign[x->adj[k]];
      if (p != q && x->adjw[k] > 0) {
        kv[2 * nkv] = (int64_t)p * x->P + q;
        kv[2 * nkv + 1] = llround(x->adjw[k] * FIX);
        nkv++;
      }
    }
  }
  lbs_err e = lbs__merge_pairs(x, kv, nkv, x->bytes_edge, &x->halo, &x->nhalo);
  free(kv);
  return lbs__agree(x, e);
}

/* Serves transfers that become ready at ready[p] (ns) over the network; arrival times into
 * each processor are maxed into x->arrive. Returns the latest arrival. */
lbs_err lbs__run_transfers(eng *x, xfer *xs, int nx, const int64_t *ready, int64_t *latest) {
  for (int i = 0; i < nx; i++) xs[i].ready = ready[xs[i].p];
  lbs_err e = lbs_net_run(x->net, xs, nx);
  int64_t last = *latest; /* no transfer: time stays where the caller is */
  for (int i = 0; !e && i < nx; i++) {
    int64_t arrival = xs[i].arrival;
    if (arrival > x->arrive[xs[i].q]) x->arrive[xs[i].q] = arrival;
    if (arrival > last) last = arrival;
  }
  *latest = last;
  return e;
}

/* ---------------------------------------------------------------- steps */

/* Simulates one step from the current clocks; returns how far the makespan moved. */
lbs_err lbs__run_step(eng *x, int64_t *advance) {
  int64_t before = 0, after = 0, latest = 0;
  int64_t *done = x->fix; /* reuse: P */
  for (int p = 0; p < x->P; p++) {
    if (x->o->mode == LBS_MODE_BSP && x->clock[p] != x->clock[0]) x->clock[p] = x->clock[0];
    before = x->clock[p] > before ? x->clock[p] : before;
    done[p] = x->clock[p] + x->load[p];
    x->arrive[p] = 0;
  }
  lbs_err e = lbs__run_transfers(x, x->halo, x->nhalo, done, &latest);
  for (int p = 0; p < x->P; p++) {
    int64_t c = done[p] > x->arrive[p] ? done[p] : x->arrive[p];
    x->clock[p] = c;
    if (c > after) after = c;
  }
  if (x->o->mode == LBS_MODE_BSP) { /* the barrier, and what it costs */
    after += lbs_grid_barrier_ns(x->g);
    for (int p = 0; p < x->P; p++) x->clock[p] = after;
  }
  *advance = after - before;
  return e;
}

/* The deterministic partitioning time: fixed + per element x elements. */
int64_t lbs__model_partition_ns(const eng *x) {
  double fixed_us = x->o->part_fixed_us, per_ns = x->o->part_per_elem_ns, dfix, dper;
  lbs_partition_cost_default(lbs_part_name(x->part), &dfix, &dper);
  if (fixed_us < 0) fixed_us = dfix;
  if (per_ns < 0) per_ns = dper;
  return llround(fixed_us * 1e3 + per_ns * (double)x->E);
}

/* Partition with the work in w (local), then migrate; updates assignment and clocks. */
static lbs_err repartition(eng *x, const double *w, int approach, int64_t step, lbs_repart_rec *rec) {
  int64_t T = 0;
  for (int p = 0; p < x->P; p++) T = x->clock[p] > T ? x->clock[p] : T;
  lbs_part_input in = {x->comm, x->n, x->gid, w, x->dim, x->coords ? x->coords + x->first * x->dim : NULL,
                       x->xadj ? x->lxadj : NULL, x->xadj ? x->adj + x->xadj[x->first] : NULL,
                       x->xadj ? x->adjw + x->xadj[x->first] : NULL, x->rank_first, x->cur, x->P, x->sizes, approach,
                       x->g, NULL, x->bytes_edge, x->bytes_elem};
  MPI_Barrier(x->comm);
  double t0 = now_s();
  lbs_err e = LBS_OK;
  if (x->opt_assign && x->cur_step > 0) /* the optimiser computed this partition already */
    memcpy(x->newp, x->opt_assign + (size_t)x->cur_step * (size_t)x->E + (size_t)x->first, (size_t)x->n * sizeof *x->newp);
  else
    e = lbs__agree(x, lbs_part_run(x->part, &in, x->newp));
  double wall = now_s() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &wall, 1, MPI_DOUBLE, MPI_MAX, x->comm);
  if (e) return e;
  lbs__avail_place(x); /* nothing on a failed processor (avail.c) */
  /* migration: (old, new) pairs of moved elements */
  int64_t *kv = malloc((size_t)(2 * x->n + 2) * sizeof *kv), nkv = 0, moved = 0;
  if (!kv) return lbs__agree(x, lbs_fail(LBS_NOMEM, "migration"));
  for (int64_t i = 0; i < x->n; i++)
    if (x->cur[i] >= 0 && x->newp[i] != x->cur[i]) { /* an element with no place yet does not move */
      kv[2 * nkv] = (int64_t)x->cur[i] * x->P + x->newp[i];
      kv[2 * nkv + 1] = (int64_t)FIX;
      nkv++;
      moved++;
    }
  xfer *mig = NULL;
  int nmig = 0;
  e = lbs__agree(x, lbs__merge_pairs(x, kv, nkv, x->bytes_elem, &mig, &nmig));
  free(kv);
  MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_INT64_T, MPI_SUM, x->comm);
  if (e) {
    free(mig);
    return e;
  }
  /* the new assignment everywhere */
  int *counts = malloc((size_t)x->size * sizeof *counts), *displs = malloc((size_t)x->size * sizeof *displs);
  for (int r = 0; r < x->size; r++) {
    counts[r] = (int)(x->rank_first[r + 1] - x->rank_first[r]);
    displs[r] = (int)x->rank_first[r];
  }
  MPI_Allgatherv(x->newp, (int)x->n, MPI_INT, x->assign, counts, displs, MPI_INT, x->comm);
  /* the work imbalance the partitioner left, with the work it was given (fixed point: exact) */
  double wimb = 0;
  {
    int64_t *wl = calloc((size_t)x->P + 1, sizeof *wl);
    if (wl) {
      for (int64_t i = 0; i < x->n; i++) wl[x->newp[i]] += (int64_t)(w[i] * FIX + 0.5), wl[x->P] += (int64_t)(w[i] * FIX + 0.5);
      MPI_Allreduce(MPI_IN_PLACE, wl, x->P + 1, MPI_INT64_T, MPI_SUM, x->comm);
      int own = lbs_part_takes_sizes(x->part); /* the shares it aimed at: the grid's, or equal */
      x->own_imb = 0;
      for (int p = 0; p < x->P && wl[x->P] > 0; p++) {
        double r = wl[p] ? (x->sizes[p] > 0 ? (double)wl[p] / (x->sizes[p] * (double)wl[x->P]) : 1e300) : 0;
        double q = own ? r : (double)wl[p] * x->P / (double)wl[x->P];
        wimb = r > wimb ? r : wimb;
        x->own_imb = q > x->own_imb ? q : x->own_imb;
      }
      if (wl[x->P] == 0) wimb = x->own_imb = 1;
      free(wl);
    }
  }
  free(counts);
  free(displs);
  memcpy(x->cur, x->newp, (size_t)x->n * sizeof *x->cur);
  /* charged times */
  int64_t part_ns = x->o->cost == LBS_COST_ZERO       ? 0
                    : x->o->cost == LBS_COST_MEASURED ? llround(wall * 1e9 * x->o->cost_scale)
                                                      : lbs__model_partition_ns(x);
  int64_t start = T + part_ns, latest = start, *ready = x->fix;
  for (int p = 0; p < x->P; p++) {
    ready[p] = start;
    x->arrive[p] = 0;
  }
  e = lbs__run_transfers(x, mig, nmig, ready, &latest);
  if (!e && step >= 0 && x->rec && x->rec->repartition)
    e = lbs__agree(x, x->rec->repartition(x->rec->arg, step, part_ns, mig, nmig));
  double bytes = 0;
  for (int i = 0; i < nmig; i++) bytes += mig[i].bytes;
  free(mig);
  for (int p = 0; p < x->P; p++) x->clock[p] = latest;
  *rec = (lbs_repart_rec){0, part_ns, latest - start, moved, bytes, wall, wimb};
  if (!e) e = lbs__build_halo(x);
  return e;
}

/* ---------------------------------------------------------------- setup */

static void eng_free(eng *x) {
  lbs_part_destroy(&x->part);
  lbs_policy_destroy(&x->policy);
  lbs_net_destroy(&x->net);
  lbs_grid_destroy(&x->live);
  lbs_grid_destroy(&x->live_nav);
  free(x->rank_first), free(x->sizes), free(x->assign), free(x->cur), free(x->newp), free(x->gid);
  free(x->lxadj), free(x->w), free(x->wprev), free(x->wpart), free(x->wnav), free(x->fixnav), free(x->fix), free(x->load), free(x->halo), free(x->clock);
  free(x->arrive), free(x->opt_steps), free(x->opt_assign), free(x->adjw_step);
}

lbs_err lbs__edge_weights_at(eng *x, int64_t s, int *changed) {
  *changed = 0;
  if (!x->adjw_step || x->edge_step == s) return LBS_OK;
  lbs_err e = lbs__agree(x, lbs_trace_edge_weights(x->t, s, x->adjw_step));
  if (!e) x->edge_step = s, *changed = 1;
  return e;
}

void lbs_replay_result_free(lbs_replay_result **rp) {
  if (!rp || !*rp) return;
  lbs_replay_result *r = *rp;
  free(r->metric), free(r->partitioner), free(r->policy), free(r->app_step), free(r->step_ns);
  free(r->step_compute_ns), free(r->imbalance), free(r->loadimb), free(r->excess_ns), free(r->repartitioned), free(r->proc_ns);
  free(r->reparts), free(r->assign), free(r->series_step), free(r->series_value), free(r);
  *rp = NULL;
}

static lbs_err setup(eng *x) {
  lbs_err e = LBS_OK;
  x->E = lbs_trace_elements(x->t);
  x->S = lbs_trace_steps(x->t);
  x->P = lbs_grid_procs(x->g);
  x->C = lbs_grid_nclusters(x->g);
  x->pmetric = -1;
  const char *names[2] = {x->o->metric, x->o->partition_metric};
  for (int k = 0; k < 2; k++) {
    if (!names[k]) continue;
    int m = lbs_trace_metric_find(x->t, names[k]);
    if (m < 0) {
      char known[512] = "";
      for (int j = 0; j < lbs_trace_nmetrics(x->t); j++) {
        lbs_metric_info mi;
        lbs_trace_metric(x->t, j, &mi);
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", j ? ", " : "", mi.name);
      }
      return lbs_fail(LBS_NOTFOUND, "the trace has no %smetric '%s' (it has: %s)", k ? "partition " : "", names[k], known);
    }
    if (k == 0) x->metric = m;
    else if (m != x->metric) x->pmetric = m;
  }
  int64_t total_steps = x->S;
  x->S0 = x->o->first_step;
  x->S = x->o->nsteps > 0 ? x->o->nsteps : total_steps - x->S0;
  if (total_steps < 1) return lbs_fail(LBS_INVAL, "the trace has no steps");
  if (x->S0 < 0 || x->S0 >= total_steps || x->S < 1 || x->S > total_steps - x->S0)
    return lbs_fail(LBS_RANGE, "steps [%lld, %lld) are outside the trace's %lld steps", (long long)x->S0,
                    (long long)(x->S0 + x->S), (long long)total_steps);
  if (x->P > x->E)
    return lbs_fail(LBS_INVAL, "the grid has %d processors but the trace only %lld elements", x->P, (long long)x->E);
  if (x->E >= ((int64_t)1 << 31)) return lbs_fail(LBS_RANGE, "traces of 2^31 elements or more are not supported");
  if ((e = lbs_policy_create(x->o->policy, &x->policy))) return e;
  if ((e = lbs_part_create(x->o->partitioner, x->o->cfg, x->comm, &x->part))) return e;
  x->mesh = lbs_trace_mesh(x->t);
  if (x->mesh) {
    if ((e = lbs_mesh_coords(x->mesh, &x->coords, &x->dim))) return e;
    if ((e = lbs_mesh_graph(x->mesh, &x->xadj, &x->adj, &x->adjw))) return e;
    x->bytes_elem = lbs_mesh_bytes_per_elem(x->mesh);
    x->bytes_edge = lbs_mesh_bytes_per_edge(x->mesh);
    /* communication weights that change with the step (N-body): read through the trace's rule */
    x->edge_step = -1;
    if (x->xadj && lbs_trace_edge_weights_vary(x->t)) {
      if (!(x->adjw_step = malloc((size_t)(x->xadj[x->E] + 1) * sizeof *x->adjw_step)))
        return lbs_fail(LBS_NOMEM, "edge weights");
      if ((e = lbs_trace_edge_weights(x->t, x->S0, x->adjw_step))) return e;
      x->adjw = x->adjw_step, x->edge_step = x->S0;
    }
  }
  if (lbs_grid_bytes_per_elem(x->g) > 0) x->bytes_elem = lbs_grid_bytes_per_elem(x->g);
  if (lbs_grid_bytes_per_edge(x->g) > 0) x->bytes_edge = lbs_grid_bytes_per_edge(x->g);
  if (lbs_part_needs_graph(x->part) && !x->xadj)
    return lbs_fail(LBS_INVAL, "%s needs the mesh graph, and this trace has none", x->o->partitioner);
  if (lbs_part_needs_coords(x->part) && !x->coords)
    return lbs_fail(LBS_INVAL, "%s needs element coordinates, and this trace has none", x->o->partitioner);
  /* the optimum caches one partition per step: it holds only when a partition depends on the step alone */
  if (!strncmp(x->o->policy, "optimal", 7) && lbs_part_uses_current(x->part))
    return lbs_fail(LBS_INVAL, "the optimal policy needs a partitioner whose answer depends only on the step; %s "
                    "starts from where the elements are (use zoltan:* or metis)", x->o->partitioner);
  /* chunk-aligned element ranges per rank */
  int64_t C = lbs_trace_chunk_elems(x->t), nch = (x->E + C - 1) / C;
  x->rank_first = malloc((size_t)(x->size + 1) * sizeof *x->rank_first);
  if (!x->rank_first) return lbs_fail(LBS_NOMEM, "ranks");
  for (int r = 0; r <= x->size; r++) {
    int64_t f = nch * r / x->size * C;
    x->rank_first[r] = f < x->E ? f : x->E;
  }
  x->first = x->rank_first[x->rank];
  x->n = x->rank_first[x->rank + 1] - x->first;
  size_t n1 = (size_t)x->n + 1, P = (size_t)x->P;
  x->sizes = malloc(P * sizeof *x->sizes);
  x->assign = malloc((size_t)x->E * sizeof *x->assign);
  x->cur = malloc(n1 * sizeof *x->cur);
  x->newp = malloc(n1 * sizeof *x->newp);
  x->gid = malloc(n1 * sizeof *x->gid);
  x->lxadj = malloc(n1 * sizeof *x->lxadj);
  x->w = malloc(n1 * sizeof *x->w);
  x->wprev = malloc(n1 * sizeof *x->wprev);
  x->wpart = malloc(n1 * sizeof *x->wpart);
  x->wnav = malloc(n1 * sizeof *x->wnav);
  x->fixnav = malloc(P * sizeof *x->fixnav);
  x->fix = malloc(P * sizeof *x->fix);
  x->load = malloc(P * sizeof *x->load);
  x->clock = calloc(P, sizeof *x->clock);
  x->arrive = calloc(P, sizeof *x->arrive);
  if (!x->sizes || !x->assign || !x->cur || !x->newp || !x->gid || !x->lxadj || !x->w || !x->wprev || !x->wpart || !x->wnav || !x->fixnav || !x->fix ||
      !x->load || !x->clock || !x->arrive)
    return lbs_fail(LBS_NOMEM, "replay state for %lld elements and %d processors", (long long)x->E, x->P);
  if ((e = lbs__avail_setup(x, total_steps))) return e; /* a changing grid: x->g follows it */
  if ((e = lbs_net_create(x->g, &x->net))) return e;
  lbs_grid_part_sizes(x->g, x->sizes);
  /* where a replay starts: the first step partitioned from nowhere (as `partition --from none`),
   * so no partitioner is steered by a made-up starting assignment and nothing moves */
  for (int64_t i = 0; i < x->n; i++) x->gid[i] = x->first + i, x->cur[i] = -1;
  for (int64_t i = 0; x->xadj && i <= x->n; i++) x->lxadj[i] = x->xadj[x->first + i] - x->xadj[x->first];
  return LBS_OK;
}

static lbs_err result_alloc(eng *x) {
  lbs_replay_result *r = x->r = calloc(1, sizeof *r);
  if (!r) return lbs_fail(LBS_NOMEM, "result");
  size_t S = (size_t)x->S;
  r->metric = strdup(x->o->metric ? x->o->metric : "");
  r->partitioner = strdup(x->o->partitioner);
  r->policy = strdup(x->o->policy);
  r->app_step = malloc(S * sizeof *r->app_step);
  r->step_ns = malloc(S * sizeof *r->step_ns);
  r->step_compute_ns = malloc(S * sizeof *r->step_compute_ns);
  r->imbalance = malloc(S * sizeof *r->imbalance);
  r->loadimb = malloc(S * sizeof *r->loadimb);
  r->excess_ns = malloc(S * sizeof *r->excess_ns);
  r->repartitioned = calloc(S, sizeof *r->repartitioned);
  r->proc_ns = malloc(S * (size_t)x->P * sizeof *r->proc_ns);
  r->reparts = malloc(S * sizeof *r->reparts);
  if (x->o->save_assignment) r->assign = malloc((S + 1) * (size_t)x->E * sizeof *r->assign);
  if (!r->metric || !r->partitioner || !r->policy || !r->app_step || !r->step_ns || !r->step_compute_ns ||
      !r->imbalance || !r->loadimb || !r->excess_ns || !r->repartitioned || !r->proc_ns || !r->reparts ||
      (x->o->save_assignment && !r->assign))
    return lbs_fail(LBS_NOMEM, "result series for %lld steps", (long long)x->S);
  r->mode = x->o->mode;
  r->elements = x->E;
  r->steps = x->S;
  r->first_step = x->S0;
  r->procs = x->P;
  return LBS_OK;
}

/* A repartition before window step s (the policy's, or one a failure forces), with the work
 * the application measured last: the previous step's; recorded, its loads made current. */
static lbs_err repart_at(eng *x, int64_t s) {
  lbs_replay_result *r = x->r;
  const double *pw;
  x->cur_step = s;
  lbs_err e = lbs__part_weights(x, x->S0 + s - 1, x->wprev, &pw);
  if (!e) e = repartition(x, pw, x->o->approach, s, &r->reparts[r->nrep]);
  if (e) return e;
  r->reparts[r->nrep].step = s;
  double wi = r->reparts[r->nrep].work_imbalance;
  if (wi > r->max_work_imbalance) r->max_work_imbalance = wi;
  r->tolerance_missed += r->tolerance > 0 && x->own_imb > r->tolerance * (1 + 1e-9);
  r->partition_ns += r->reparts[r->nrep].partition_ns;
  r->migration_ns += r->reparts[r->nrep].migration_ns;
  r->moved += r->reparts[r->nrep].moved;
  if (r->assign) memcpy(r->assign + (size_t)(r->nrep + 1) * (size_t)x->E, x->assign, (size_t)x->E * sizeof *x->assign);
  r->nrep++;
  r->repartitioned[s] = 1;
  lbs__compute_loads(x);
  return LBS_OK;
}

lbs_err lbs_replay(lbs_trace *t, const lbs_grid *g, const lbs_replay_opts *o, MPI_Comm comm, lbs_replay_result **out) {
  return lbs_replay_record(t, g, o, NULL, comm, out);
}

lbs_err lbs_replay_record(lbs_trace *t, const lbs_grid *g, const lbs_replay_opts *o, const lbs_replay_recorder *recorder,
                          MPI_Comm comm, lbs_replay_result **out) {
  *out = NULL;
  eng x;
  memset(&x, 0, sizeof x);
  x.t = t, x.g = g, x.o = o, x.comm = comm, x.rec = recorder;
  MPI_Comm_rank(comm, &x.rank);
  MPI_Comm_size(comm, &x.size);
  double t_start = now_s();
  lbs_err e = lbs__agree(&x, setup(&x));
  if (!e) e = lbs__agree(&x, result_alloc(&x));
  if (!e && !o->metric) {
    lbs_metric_info mi;
    lbs_trace_metric(t, 0, &mi);
    free(x.r->metric);
    x.r->metric = strdup(mi.name);
  }
  lbs_replay_result *r = x.r;
  /* the initial partition, from the first step's work: setup, not charged */
  const double *pw = NULL;
  if (!e) e = lbs__read_work(&x, x.S0, x.w);
  if (!e) e = lbs__part_weights(&x, x.S0, x.w, &pw);
  lbs_repart_rec rec;
  if (!e) e = repartition(&x, pw, 0, -1, &rec);
  if (!e) { /* balance: the partitioner's promise against what it did */
    r->tolerance = lbs_part_tolerance(x.part);
    r->initial_work_imbalance = r->max_work_imbalance = rec.work_imbalance;
    r->tolerance_missed = r->tolerance > 0 && x.own_imb > r->tolerance * (1 + 1e-9);
  }
  if (!e) { /* the initial partition is setup: time and links start afresh */
    for (int p = 0; p < x.P; p++) x.clock[p] = 0;
    lbs_net_reset(x.net);
    if (r->assign) memcpy(r->assign, x.assign, (size_t)x.E * sizeof *x.assign);
  }
  double imb_sum = 0, limb_sum = 0;
  int64_t compute_bsp = 0, *busy = calloc((size_t)x.P, sizeof *busy);
  if (!busy && !e) e = lbs_fail(LBS_NOMEM, "busy times");
  for (int64_t s = 0; s < x.S && !e; s++) {
    if (s > 0) {
      double *tmp = x.wprev;
      x.wprev = x.w;
      x.w = tmp;
      if ((e = lbs__read_work(&x, x.S0 + s, x.w))) break;
    }
    int reloaded; /* the halo of this step under its own communication weights */
    if ((e = lbs__edge_weights_at(&x, x.S0 + s, &reloaded))) break;
    if (reloaded && (e = lbs__build_halo(&x))) break;
    int forced; /* a processor fails now: its elements move before the step (avail.c) */
    if ((e = lbs__avail_step(&x, s, &forced))) break;
    lbs__compute_loads(&x);
    if (forced && (e = repart_at(&x, s))) break;
    double imb, limb;
    lbs__avail_imbalance(x.g, x.load, x.P, &imb, &limb);
    int64_t since = s;
    for (int k = r->nrep - 1; k >= 0; k--)
      if (r->reparts[k].step <= s) {
        since = s - r->reparts[k].step;
        break;
      }
    int64_t last = r->nrep ? r->reparts[r->nrep - 1].partition_ns + r->reparts[r->nrep - 1].migration_ns : 0;
    lbs_loadview v = {s,          x.S,      since,     x.P,    x.load,
                      imb,        r->step_ns, r->imbalance, r->excess_ns, last,
                      r->nrep ? last : (x.o->cost == LBS_COST_ZERO ? 0 : lbs__model_partition_ns(&x)),
                      eval_step,  optimize_hook, &x};
    int rep = 0;
    if ((e = lbs__agree(&x, lbs_policy_decide(x.policy, &v, &rep)))) break;
    if (rep && !forced) { /* (a forced repartition at this step has met the policy's wish) */
      if ((e = repart_at(&x, s))) break;
      lbs__avail_imbalance(x.g, x.load, x.P, &imb, &limb);
    }
    int64_t adv, mx = 0;
    if ((e = lbs__agree(&x, lbs__run_step(&x, &adv)))) break;
    if (recorder && recorder->step &&
        (e = lbs__agree(&x, recorder->step(recorder->arg, s, x.load, x.P, x.halo, x.nhalo))))
      break;
    lbs_trace_app_step(t, x.S0 + s, &r->app_step[s]);
    for (int p = 0; p < x.P; p++) {
      mx = x.load[p] > mx ? x.load[p] : mx;
      busy[p] += x.load[p];
      r->proc_ns[s * x.P + p] = x.load[p];
    }
    r->step_ns[s] = adv;
    r->step_compute_ns[s] = mx;
    r->imbalance[s] = imb;
    r->loadimb[s] = limb;
    {
      double sum = 0;
      int live = 0; /* a failed processor's idleness is no imbalance */
      for (int p = 0; p < x.P; p++)
        if (!lbs_grid_proc_failed(x.g, p)) sum += (double)x.load[p], live++;
      r->excess_ns[s] = mx - llround(sum / live);
    }
    compute_bsp += mx;
    imb_sum += imb;
    limb_sum += limb;
    if (imb > r->max_imbalance) r->max_imbalance = imb;
    if (x.rank == 0 && o->progress && o->progress(o->progress_arg, s + 1, x.S)) break;
  }
  if (!e) {
    for (int p = 0; p < x.P; p++) r->total_ns = x.clock[p] > r->total_ns ? x.clock[p] : r->total_ns;
    int64_t busiest = 0;
    for (int p = 0; p < x.P; p++) busiest = busy[p] > busiest ? busy[p] : busiest;
    /* compute time: what the run needs with free communication in this mode */
    r->compute_ns = o->mode == LBS_MODE_BSP ? compute_bsp : busiest;
    r->comm_ns = r->total_ns - r->compute_ns - r->partition_ns - r->migration_ns;
    r->mean_imbalance = imb_sum / (double)x.S;
    r->mean_loadimb = limb_sum / (double)x.S;
    r->wall_s = now_s() - t_start;
    r->optimum_ns = x.opt_done ? x.opt_total : -1;
    const int64_t *ss;
    const double *sv;
    int ns = lbs_policy_series(x.policy, &ss, &sv);
    if (ns > 0 && (r->series_step = malloc((size_t)ns * sizeof *ss)) && (r->series_value = malloc((size_t)ns * sizeof *sv))) {
      memcpy(r->series_step, ss, (size_t)ns * sizeof *ss);
      memcpy(r->series_value, sv, (size_t)ns * sizeof *sv);
      r->nseries = ns;
    }
    *out = r;
    x.r = NULL;
  }
  free(busy);
  lbs_replay_result_free(&x.r);
  eng_free(&x);
  return e;
}
