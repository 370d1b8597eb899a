/* engine.c - the replay engine's primitives: setup, loads, transfers, ghosts, steps and
 * repartitions (the model is described in replay.c, the data placement in sim_int.h).
 *
 * Sums over elements are 64-bit fixed point (2^-12 units), so they are exact and the result
 * does not depend on how the elements are spread over the ranks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_int.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------------- loads */

/* Local: metric m of trace step s into w, checked (what: how a bad value is named). */
static lbs_err read_checked(lbs__engine *x, int64_t s, int m, const char *what, double *w) {
  lbs_err e = x->n ? lbs_trace_read(x->t, s, m, x->first, x->n, w) : LBS_OK;
  int bad = 0;
  for (int64_t i = 0; !e && i < x->n; i++) bad |= !(w[i] >= 0 && w[i] <= 1e15); /* NaN fails too */
  for (int64_t i = 0; !e && bad && i < x->n; i++)
    if (!(w[i] >= 0 && w[i] <= 1e15))
      e = lbs_fail(LBS_RANGE, "step %lld element %lld: %s %g is negative, too large or not finite",
                   (long long)s, (long long)(x->first + i), what, w[i]);
  return e;
}

lbs_err lbs__read_work(lbs__engine *x, int64_t s, double *w) {
  return lbs__agree(x, read_checked(x, s, x->metric, "work", w));
}

lbs_err lbs__read_phases(lbs__engine *x, int64_t s, double *wph) {
  lbs_err e = LBS_OK;
  for (int k = 0; !e && k < x->nph; k++)
    e = read_checked(x, s, x->phm[k], "phase work", wph + (size_t)k * (size_t)x->n);
  return lbs__agree(x, e);
}

/* Collective: each phase's values at trace step s, element-major into x->wcon (the repartition
 * before a step reads the step before's, while x->wph holds the step's own for its charge). */
static lbs_err constraint_weights(lbs__engine *x, int64_t s) {
  double *v = malloc((size_t)(x->n + 1) * sizeof *v);
  lbs_err e = v ? LBS_OK : lbs_fail(LBS_NOMEM, "phase weights of %lld elements", (long long)x->n);
  for (int k = 0; !e && k < x->ncon; k++) {
    e = read_checked(x, s, x->phm[k], "phase work", v);
    for (int64_t i = 0; !e && i < x->n; i++) x->wcon[i * x->ncon + k] = v[i];
  }
  free(v);
  return lbs__agree(x, e);
}

lbs_err lbs__part_weights(lbs__engine *x, int64_t s, const double *work, const double **out) {
  *out = work;
  if (x->ncon) return constraint_weights(x, s); /* setup refused a partition metric with them */
  if (x->pmetric < 0) return LBS_OK;
  lbs_err e = x->n ? lbs_trace_read(x->t, s, x->pmetric, x->first, x->n, x->wpart) : LBS_OK;
  for (int64_t i = 0; !e && i < x->n; i++)
    if (!(x->wpart[i] >= 0 && x->wpart[i] <= 1e15))
      e = lbs_fail(
          LBS_RANGE,
          "step %lld element %lld: partition weight %g is negative, too large or not finite",
          (long long)s, (long long)(x->first + i), x->wpart[i]);
  *out = x->wpart;
  return lbs__agree(x, e);
}

void lbs__loads_of(lbs__engine *x, const double *w, const lbs_grid *g, int64_t *fix,
                   int64_t *load) {
  memset(fix, 0, (size_t)x->P * sizeof *fix);
  /* work was checked to be in [0, 1e15]: rounding half up by truncation is exact enough
   * and far cheaper than llround() on the hot path */
  for (int64_t i = 0; i < x->n; i++) fix[x->cur[i]] += (int64_t)(w[i] * FIX + 0.5);
  MPI_Allreduce(MPI_IN_PLACE, fix, x->P, MPI_INT64_T, MPI_SUM, x->comm);
  for (int p = 0; p < x->P; p++) load[p] = lbs_grid_compute_ns(g, p, (double)fix[p] / FIX);
}

/* Rank 0 warns once per processor whose work of metric m at window step s (fix: each processor's,
 * x FIX) lies outside the range its speed model measured: a calibrated curve's time is then
 * extrapolated past its last point, or held at its first point's. */
static void range_check(lbs__engine *x, int64_t s, int m, const int64_t *fix) {
  if (!x->range_said || s < 0) return;
  for (int p = 0; p < x->P; p++) {
    double w = (double)fix[p] / FIX, lo, hi;
    char what[256];
    if (x->range_said[p] || !(w > 0) || !lbs_grid_work_range(x->g, p, &lo, &hi, NULL, 0) ||
        (w >= lo && w <= hi)) /* (what it is only once it is said) */
      continue;
    x->range_said[p] = 1;
    lbs_metric_info mi;
    if (x->rank || lbs_trace_metric(x->t, m, &mi)) continue;
    lbs_grid_work_range(x->g, p, &lo, &hi, what, sizeof what);
    if (w > hi)
      lbs_log(LBS_LOG_WARN,
              "replay: warning: processor %d ([nodetype %s]) has %.6g of %s at trace step %lld, "
              "%.3gx the most %s measured (%.6g): its time is extrapolated past the curve's last "
              "point (said once per processor)",
              p, lbs_grid_proc_nodetype(x->g, p), w, mi.name, (long long)(x->S0 + s), w / hi, what,
              hi);
    else
      lbs_log(LBS_LOG_WARN,
              "replay: warning: processor %d ([nodetype %s]) has %.6g of %s at trace step %lld, "
              "%.3gx the least %s measured (%.6g): its time is the curve's first point's (said "
              "once per processor)",
              p, lbs_grid_proc_nodetype(x->g, p), w, mi.name, (long long)(x->S0 + s), w / lo, what,
              lo);
  }
}

void lbs__compute_loads(lbs__engine *x, int64_t s) {
  lbs__loads_of(x, x->w, x->g, x->fix, x->load);
  range_check(x, s, x->metric, x->fix);
  for (int k = 0; k < x->nph; k++) {
    lbs__loads_of(x, x->wph + (size_t)k * (size_t)x->n, x->g, x->fix,
                  x->phload + (size_t)k * (size_t)x->P);
    range_check(x, s, x->phm[k], x->fix);
  }
}

int64_t lbs__compute_done(const lbs__engine *x, const int64_t *start, const int64_t *load,
                          const int64_t *phload, int64_t *done) {
  int64_t sync = -1, last = 0; /* sync: where the phases so far ended (-1: none yet) */
  for (int k = 0; k + 1 < x->nph; k++) {
    int64_t end = 0;
    for (int p = 0; p < x->P; p++) {
      int64_t t = (sync >= 0 ? sync : start ? start[p] : 0) + phload[(size_t)k * x->P + p];
      end = t > end ? t : end;
    }
    sync = end;
  }
  const int64_t *lastload = x->nph ? phload + (size_t)(x->nph - 1) * x->P : load;
  for (int p = 0; p < x->P; p++) {
    int64_t t = (sync >= 0 ? sync : start ? start[p] : 0) + lastload[p];
    if (done) done[p] = t;
    last = t > last ? t : last;
  }
  return last;
}

/* ---------------------------------------------------------------- transfers */

static int cmp_key(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  return (x[0] > y[0]) - (x[0] < y[0]);
}

#define DENSE_PAIRS_MAX 512 /* P up to this: aggregate in a P x P table, no sort */

/* Local: sums equal keys of kv in place; returns how many pairs are left. */
static int64_t combine_pairs(const lbs__engine *x, int64_t *kv, int64_t nkv, lbs_err *e) {
  int64_t m = 0;
  if (x->P <= DENSE_PAIRS_MAX) {
    int64_t PP = (int64_t)x->P * x->P, *dense = calloc((size_t)PP, sizeof *dense);
    if (!dense) return *e = lbs_fail(LBS_NOMEM, "transfer table"), 0;
    for (int64_t i = 0; i < nkv; i++) dense[kv[2 * i]] += kv[2 * i + 1];
    for (int64_t k = 0; k < PP; k++)
      if (dense[k]) kv[2 * m] = k, kv[2 * m + 1] = dense[k], m++;
    free(dense);
    return m;
  }
  qsort(kv, (size_t)nkv, 2 * sizeof *kv, cmp_key);
  for (int64_t i = 0; i < nkv; i++) {
    if (m && kv[2 * (m - 1)] == kv[2 * i])
      kv[2 * (m - 1) + 1] += kv[2 * i + 1];
    else
      kv[2 * m] = kv[2 * i], kv[2 * m + 1] = kv[2 * i + 1], m++;
  }
  return m;
}

lbs_err lbs__merge_pairs(lbs__engine *x, int64_t *kv, int64_t nkv, double unit_bytes, xfer **out,
                         int *nout) {
  lbs_err e = LBS_OK;
  int64_t m = combine_pairs(x, kv, nkv, &e);
  int cnt = (int)(2 * m), *counts = malloc((size_t)x->size * sizeof *counts),
      *displs = malloc((size_t)x->size * sizeof *displs);
  if (!counts || !displs) e = lbs_fail(LBS_NOMEM, "transfer lists");
  if ((e = lbs__agree(x, e))) {
    free(counts), free(displs);
    return e;
  }
  MPI_Allgather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, x->comm);
  int64_t total = 0;
  for (int r = 0; r < x->size; r++) {
    displs[r] = (int)total;
    total += counts[r];
  }
  int64_t *all = malloc((size_t)(total + 2) * sizeof *all);
  xfer *xs = malloc((size_t)(total / 2 + 1) * sizeof *xs);
  if ((e = lbs__agree(x, all && xs ? LBS_OK : lbs_fail(LBS_NOMEM, "transfer lists")))) {
    free(counts), free(displs), free(all), free(xs);
    return e;
  }
  MPI_Allgatherv(kv, cnt, MPI_INT64_T, all, counts, displs, MPI_INT64_T, x->comm);
  int64_t na = total / 2, k = 0;
  qsort(all, (size_t)na, 2 * sizeof *all, cmp_key);
  /* the ranks' shares are added as fixed-point integers and converted once: the bytes do not
   * depend on how the pairs were split over the ranks (a fractional unit included) */
  for (int64_t i = 0; i < na; i++) {
    if (k && (int64_t)xs[k - 1].p * x->P + xs[k - 1].q == all[2 * i]) {
      all[2 * (k - 1) + 1] += all[2 * i + 1];
    } else {
      xs[k].p = (int)(all[2 * i] / x->P);
      xs[k].q = (int)(all[2 * i] % x->P);
      all[2 * k + 1] = all[2 * i + 1];
      k++;
    }
  }
  for (int64_t j = 0; j < k; j++) xs[j].bytes = (double)all[2 * j + 1] / FIX * unit_bytes;
  *out = xs;
  *nout = (int)k;
  free(counts), free(displs), free(all);
  return LBS_OK;
}

/* ---------------------------------------------------------------- ghosts */

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

lbs_err lbs__ghost_setup(lbs__engine *x) {
  lbs__ghosts *gh = &x->gh;
  int64_t ne = x->rows.xadj ? x->rows.xadj[x->n] : 0, ng = 0;
  int R = x->size;
  gh->rcount = calloc((size_t)R, sizeof *gh->rcount),
  gh->rdispl = calloc((size_t)R, sizeof *gh->rdispl);
  gh->scount = calloc((size_t)R, sizeof *gh->scount),
  gh->sdispl = calloc((size_t)R, sizeof *gh->sdispl);
  gh->id = malloc((size_t)(ne + 1) * sizeof *gh->id);
  lbs_err e = gh->rcount && gh->rdispl && gh->scount && gh->sdispl && gh->id
                  ? LBS_OK
                  : lbs_fail(LBS_NOMEM, "ghosts");
  for (int64_t k = 0; !e && k < ne; k++) {
    int64_t u = x->rows.adj[k];
    if (u < x->first || u >= x->first + x->n) gh->id[ng++] = u;
  }
  if (!e && ng > 1) {
    qsort(gh->id, (size_t)ng, sizeof *gh->id, cmp_i64);
    int64_t m = 1;
    for (int64_t i = 1; i < ng; i++)
      if (gh->id[i] != gh->id[m - 1]) gh->id[m++] = gh->id[i];
    ng = m;
  }
  gh->ng = ng;
  x->gpart = malloc((size_t)(ng + 1) * sizeof *x->gpart);
  if (!e && !x->gpart) e = lbs_fail(LBS_NOMEM, "ghost parts");
  if ((e = lbs__agree(x, e))) return e;
  for (int64_t i = 0, r = 0; i < ng; i++) { /* sorted ids: owners in rank order */
    while (gh->id[i] >= x->rank_first[r + 1]) r++;
    gh->rcount[r]++;
  }
  MPI_Alltoall(gh->rcount, 1, MPI_INT, gh->scount, 1, MPI_INT, x->comm);
  for (int r = 1; r < R; r++) {
    gh->rdispl[r] = gh->rdispl[r - 1] + gh->rcount[r - 1];
    gh->sdispl[r] = gh->sdispl[r - 1] + gh->scount[r - 1];
  }
  gh->ns = (int64_t)gh->sdispl[R - 1] + gh->scount[R - 1];
  int64_t *want = malloc((size_t)(gh->ns + 1) * sizeof *want);
  gh->sidx = malloc((size_t)(gh->ns + 1) * sizeof *gh->sidx);
  if ((e = lbs__agree(x, want && gh->sidx ? LBS_OK : lbs_fail(LBS_NOMEM, "ghost lists")))) {
    free(want);
    return e;
  }
  MPI_Alltoallv(gh->id, gh->rcount, gh->rdispl, MPI_INT64_T, want, gh->scount, gh->sdispl,
                MPI_INT64_T, x->comm);
  for (int64_t k = 0; k < gh->ns; k++) gh->sidx[k] = (int)(want[k] - x->first);
  free(want);
  return LBS_OK;
}

lbs_err lbs__ghost_exchange(lbs__engine *x, const void *local, void *ghost, MPI_Datatype t,
                            size_t size) {
  const lbs__ghosts *gh = &x->gh;
  char *buf = malloc((size_t)(gh->ns + 1) * size);
  lbs_err e = lbs__agree(x, buf ? LBS_OK : lbs_fail(LBS_NOMEM, "ghost values"));
  if (e) return e;
  for (int64_t k = 0; k < gh->ns; k++)
    memcpy(buf + (size_t)k * size, (const char *)local + (size_t)gh->sidx[k] * size, size);
  MPI_Alltoallv(buf, gh->scount, gh->sdispl, t, ghost, gh->rcount, gh->rdispl, t, x->comm);
  free(buf);
  return LBS_OK;
}

/* Local: the index of global id u among the ghosts (it is one). */
static int64_t ghost_index(const lbs__ghosts *gh, int64_t u) {
  int64_t lo = 0, hi = gh->ng;
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (gh->id[mid] <= u)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

lbs_err lbs__build_halo_of(lbs__engine *x, const int *cur, const int *gpart, xfer **halo,
                           int *nhalo) {
  free(*halo);
  *halo = NULL;
  *nhalo = 0;
  if (!x->rows.xadj || x->bytes_edge <= 0) return lbs__agree(x, LBS_OK);
  int64_t ne = x->rows.xadj[x->n], nkv = 0, lo = x->first, hi = x->first + x->n;
  int64_t *kv = malloc((size_t)(2 * ne + 2) * sizeof *kv);
  if (!kv) return lbs__agree(x, lbs_fail(LBS_NOMEM, "halo pairs"));
  for (int64_t i = 0; i < x->n; i++)
    for (int64_t k = x->rows.xadj[i]; k < x->rows.xadj[i + 1]; k++) {
      int64_t u = x->rows.adj[k];
      double wk = x->adjw ? x->adjw[k] : 1.0;
      int p = cur[i], q = u >= lo && u < hi ? cur[u - lo] : gpart[ghost_index(&x->gh, u)];
      if (p != q && wk > 0) {
        kv[2 * nkv] = (int64_t)p * x->P + q;
        kv[2 * nkv + 1] = llround(wk * FIX);
        nkv++;
      }
    }
  lbs_err e = lbs__merge_pairs(x, kv, nkv, x->bytes_edge, halo, nhalo);
  free(kv);
  return e;
}

lbs_err lbs__build_halo(lbs__engine *x) {
  return lbs__build_halo_of(x, x->cur, x->gpart, &x->halo, &x->nhalo);
}

lbs_err lbs__run_transfers(lbs__engine *x, xfer *xs, int nx, const int64_t *ready,
                           int64_t *latest) {
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

lbs_err lbs__run_step(lbs__engine *x, int64_t *advance) {
  int64_t before = 0, after = 0, latest = 0;
  int64_t *done = x->fix; /* reuse: P */
  for (int p = 0; p < x->P; p++) {
    if (x->o->mode == LBS_MODE_BSP && x->clock[p] != x->clock[0]) x->clock[p] = x->clock[0];
    before = x->clock[p] > before ? x->clock[p] : before;
    x->arrive[p] = 0;
  }
  lbs__compute_done(x, x->clock, x->load, x->phload, done);
  lbs_err e = lbs__run_transfers(x, x->halo, x->nhalo, done, &latest);
  for (int p = 0; p < x->P; p++) {
    /* then the application's time outside its elements, on every processor (recorded.c) */
    int64_t c = (done[p] > x->arrive[p] ? done[p] : x->arrive[p]) + x->outside_ns;
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

int64_t lbs__model_partition_ns(const lbs__engine *x) {
  double fixed_us = x->o->part_fixed_us, per_ns = x->o->part_per_elem_ns, dfix, dper;
  if (!x->part) return 0; /* recorded partitions: the application's partitioner ran */
  lbs_part_cost_model(x->part, &dfix, &dper);
  if (fixed_us < 0) fixed_us = dfix;
  if (per_ns < 0) per_ns = dper;
  return llround(fixed_us * 1e3 + per_ns * (double)x->E);
}

lbs_err lbs__model_migration_ns(lbs__engine *x, const int *from, const int *to, int64_t *ns) {
  double fixed_us, per_ns, gbps = 0;
  *ns = -1;
  /* the application's own rate first: fitted to its own migrations, it has its unpacking in it,
   * which no generic probe sees (bench/RESULTS.md: wave's was 4-6 times the probed model's) */
  if (x->mig_fit)
    fixed_us = x->mig_fixed_us, per_ns = x->mig_per_elem_ns;
  else if (x->o->migration_cost == LBS_MIGCOST_LINKS ||
           !lbs_grid_migration_model(x->g, &fixed_us, &per_ns, &gbps))
    return LBS_OK;
  /* elements each processor sends or receives: both ends pack or unpack them (as the probe
   * counts them); integer sums, so the charge does not depend on the ranks */
  int64_t *m = calloc((size_t)x->P + 1, sizeof *m);
  lbs_err e = lbs__agree(x, m ? LBS_OK : lbs_fail(LBS_NOMEM, "migration model"));
  if (e) return e;
  for (int64_t i = 0; i < x->n; i++)
    if (from[i] >= 0 && to[i] != from[i]) m[from[i]]++, m[to[i]]++, m[x->P]++;
  MPI_Allreduce(MPI_IN_PLACE, m, x->P + 1, MPI_INT64_T, MPI_SUM, x->comm);
  double worst = 0;
  for (int p = 0; p < x->P && m[x->P]; p++) { /* nothing moves: no migration to call */
    double t = fixed_us * 1e3 + per_ns * (double)m[p] +
               (gbps > 0 ? (double)m[p] * x->bytes_elem * 8 / gbps : 0);
    worst = t > worst ? t : worst;
  }
  free(m);
  *ns = llround(worst);
  return LBS_OK;
}

/* The trace's edge rule (traces/edges.c) on this rank's rows, fed its rows' values read here and
 * its ghosts' exchanged over the ranks; or, for weights stored per step, the rows' slice of the
 * array in force at step s. */
lbs_err lbs__edge_weights_at(lbs__engine *x, int64_t s, int *changed) {
  *changed = 0;
  if (!x->adjw_step || x->edge_step == s) return LBS_OK;
  if (lbs_trace_edge_weights_stored(x->t)) { /* this rank's slice of the array in force */
    int64_t from = -1;
    lbs_err e = lbs__agree(
        x, lbs_trace_edge_weights_slice(x->t, s, x->arc0, x->rows.xadj[x->n], x->adjw_step, &from));
    if (e) return e;
    /* the halo needs rebuilding only when another array is in force (the buffer is read
     * whatever: the optimal policy's search shares it) */
    *changed = from != x->edge_from, x->edge_from = from, x->edge_step = s;
    return LBS_OK;
  }
  int r;
  lbs_err e = lbs_trace_edge_rule_check(x->t, &r); /* checked at setup: the rule metric's index */
  double *rw = malloc((size_t)(x->n + 1) * sizeof *rw),
         *grw = malloc((size_t)(x->gh.ng + 1) * sizeof *grw);
  if (!e && !(rw && grw)) e = lbs_fail(LBS_NOMEM, "rwgt of %lld elements", (long long)x->n);
  if (!e && x->n) e = lbs_trace_read(x->t, s, r, x->first, x->n, rw);
  if (!(e = lbs__agree(x, e))) e = lbs__ghost_exchange(x, rw, grw, MPI_DOUBLE, sizeof *rw);
  if (!e) {
    const lbs_edge_rows rows = {.first = x->first,
                                .n = x->n,
                                .xadj = x->rows.xadj,
                                .adj = x->rows.adj,
                                .flag = x->rows.adjw,
                                .val = rw,
                                .ng = x->gh.ng,
                                .gid = x->gh.id,
                                .gval = grw};
    lbs_trace_edge_weights_rows(&rows, x->adjw_step);
  }
  free(rw), free(grw);
  if (!e) x->edge_step = s, *changed = 1;
  return e;
}

/* ---------------------------------------------------------------- repartitions */

lbs_part_input lbs__part_input(lbs__engine *x, const double *w, int approach) {
  const double *aw = x->adjw_step ? x->adjw_step : x->rows.adjw ? x->rows.adjw : x->ones;
  /* an element that has a place and is pinned, or absent (no work), does not move: an absent
   * one has no data to move, nor any reason to */
  for (int64_t i = 0; x->fixnow && i < x->n; i++)
    x->fixnow[i] = x->cur[i] >= 0 && ((x->pinned && x->pinned[i]) || (x->absent_idle && w[i] == 0));
  return (lbs_part_input){.comm = x->comm,
                          .nlocal = x->n,
                          .gid = x->gid,
                          .weight = w,
                          .dim = x->rows.dim,
                          .coords = x->rows.coords,
                          .xadj = x->rows.xadj,
                          .adj = x->rows.adj,
                          .adjw = aw,
                          .rank_first = x->rank_first,
                          .current = x->cur,
                          .nparts = x->P,
                          .part_sizes = x->sizes,
                          .repartition = approach,
                          .grid = x->g,
                          .rwgt = NULL,
                          .bytes_per_edge = x->bytes_edge,
                          .bytes_per_rwgt = x->bytes_elem,
                          .distributed = x->pmode == LBS_PARTMODE_DISTRIBUTED,
                          .wdim = x->ncon,
                          .weights = x->wcon,
                          .fixed = x->fixnow};
}

/* Collective: the work imbalance the partition in x->newp leaves with work w, against the
 * grid's shares (returned) and against the shares its partitioner aimed at (x->own_imb). */
static double partition_imbalance(lbs__engine *x, const double *w) {
  double wimb = 0;
  int64_t *wl = calloc((size_t)x->P + 1, sizeof *wl);
  int ok = wl != NULL, all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, x->comm);
  if (!all) return free(wl), x->own_imb = 0, 0;
  for (int64_t i = 0; i < x->n; i++) {
    int64_t v = (int64_t)(w[i] * FIX + 0.5);
    wl[x->newp[i]] += v, wl[x->P] += v;
  }
  MPI_Allreduce(MPI_IN_PLACE, wl, x->P + 1, MPI_INT64_T, MPI_SUM, x->comm);
  /* the shares it aimed at: the grid's, or equal (recorded partitions: equal, as the ranks) */
  int own = x->part && lbs_part_takes_sizes(x->part);
  x->own_imb = 0;
  for (int p = 0; p < x->P && wl[x->P] > 0; p++) {
    double r =
        wl[p] ? (x->sizes[p] > 0 ? (double)wl[p] / (x->sizes[p] * (double)wl[x->P]) : 1e300) : 0;
    double q = own ? r : (double)wl[p] * x->P / (double)wl[x->P];
    wimb = r > wimb ? r : wimb;
    x->own_imb = q > x->own_imb ? q : x->own_imb;
  }
  if (wl[x->P] == 0) wimb = x->own_imb = 1;
  free(wl);
  return wimb;
}

/* Collective: the migration from x->cur to x->newp as transfers, and as the grid's migration
 * model charges it (*model_ns, -1 without one); *moved elements. */
static lbs_err migration(lbs__engine *x, xfer **mig, int *nmig, int64_t *moved, int64_t *model_ns) {
  int64_t *kv = malloc((size_t)(2 * x->n + 2) * sizeof *kv), nkv = 0;
  lbs_err e = lbs__agree(x, kv ? LBS_OK : lbs_fail(LBS_NOMEM, "migration"));
  if (e) return e;
  for (int64_t i = 0; i < x->n; i++)
    if (x->cur[i] >= 0 &&
        x->newp[i] != x->cur[i]) { /* an element with no place yet does not move */
      kv[2 * nkv] = (int64_t)x->cur[i] * x->P + x->newp[i];
      kv[2 * nkv + 1] = (int64_t)FIX;
      nkv++;
    }
  *moved = nkv;
  MPI_Allreduce(MPI_IN_PLACE, moved, 1, MPI_INT64_T, MPI_SUM, x->comm);
  e = lbs__merge_pairs(x, kv, nkv, x->bytes_elem, mig, nmig);
  free(kv);
  if (!e) e = lbs__model_migration_ns(x, x->cur, x->newp, model_ns);
  return e;
}

/* Collective: what the repartition before window step `step` is charged (partition wall time
 * `wall` measured): the partitioning time into *part_ns, and -1 into *mig_ns for the migration's
 * transfers over the links, or in their place the application's recorded migration time, else
 * the model's (model_ns: the application's fitted rate or the grid's model, -1 without one);
 * *from: what the application recorded (lbs_repart_rec.recorded). Recorded partitions: the
 * application's recorded costs where the trace has them (recorded.c), else partitioning 0. */
static lbs_err charges(lbs__engine *x, int64_t step, double wall, int64_t model_ns,
                       int64_t *part_ns, int64_t *mig_ns, int *from) {
  int64_t rp = -1;
  *mig_ns = -1, *from = 0;
  if (x->recorded && step >= 0) {
    lbs_err e = lbs__recorded_costs(x, step, &rp, mig_ns);
    if (e) return e;
  }
  if (x->o->cost == LBS_COST_ZERO)
    *part_ns = 0;
  else if (x->recorded)
    *part_ns = rp > 0 ? rp : 0, *from |= rp >= 0;
  else if (x->o->cost == LBS_COST_MEASURED)
    *part_ns = llround(wall * 1e9 * x->o->cost_scale);
  else
    *part_ns = lbs__model_partition_ns(x);
  *from |= *mig_ns >= 0 ? 2 : 0;
  /* The model stands in for the links rather than adding to them: `grid probe` fits it to whole
   * migrations (packing, the wire, unpacking), so the links' transfer time is in it already. */
  if (*mig_ns < 0) *mig_ns = model_ns;
  return LBS_OK;
}

lbs_err lbs__repartition(lbs__engine *x, const double *w, int approach, int64_t step,
                         lbs_repart_rec *rec) {
  int64_t T = 0;
  for (int p = 0; p < x->P; p++) T = x->clock[p] > T ? x->clock[p] : T;
  lbs_part_input in = lbs__part_input(x, w, approach);
  MPI_Barrier(x->comm);
  double t0 = now_s();
  lbs_err e = LBS_OK;
  if (x->recorded) /* the application's own (recorded.c) */
    e = lbs__recorded_assign(x, x->cur_step, x->newp);
  else if (x->opt_assign && x->cur_step > 0) { /* the optimiser computed this partition already */
    memcpy(x->newp, x->opt_assign + (size_t)x->cur_step * (size_t)x->n,
           (size_t)x->n * sizeof *x->newp);
    /* what stays (in.fixed: pinned, absent) stays where it is now, which may not be where the
     * candidate partition, computed from the initial one, left it (optimal.c charges the same) */
    for (int64_t i = 0; in.fixed && i < x->n; i++)
      if (in.fixed[i]) x->newp[i] = x->cur[i];
  } else
    e = lbs__agree(x, lbs_part_run(x->part, &in, x->newp));
  double wall = now_s() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &wall, 1, MPI_DOUBLE, MPI_MAX, x->comm);
  if (e) return e;
  lbs__avail_place(x); /* nothing on a failed processor (avail.c) */
  xfer *mig = NULL;
  int nmig = 0;
  int64_t moved = 0, model_ns = -1;
  if ((e = migration(x, &mig, &nmig, &moved, &model_ns))) return e;
  double wimb = partition_imbalance(x, w);
  memcpy(x->cur, x->newp, (size_t)x->n * sizeof *x->cur);
  e = lbs__ghost_exchange(x, x->cur, x->gpart, MPI_INT, sizeof *x->cur);
  int64_t part_ns = 0, mig_ns = -1; /* charged times */
  int from = 0;
  if (!e) e = charges(x, step, wall, model_ns, &part_ns, &mig_ns, &from);
  int64_t start = T + part_ns, latest = start, *ready = x->fix;
  for (int p = 0; p < x->P; p++) {
    ready[p] = start;
    x->arrive[p] = 0;
  }
  if (!e && mig_ns >= 0) /* the application's own or the model's, in place of the links' */
    latest = start + mig_ns;
  else if (!e)
    e = lbs__run_transfers(x, mig, nmig, ready, &latest);
  if (!e && step >= 0 && x->rec && x->rec->repartition)
    e = lbs__agree(x, x->rec->repartition(x->rec->arg, step, part_ns, mig_ns,
                                          mig_ns >= 0 ? NULL : mig, mig_ns >= 0 ? 0 : nmig));
  double bytes = 0;
  for (int i = 0; i < nmig; i++) bytes += mig[i].bytes;
  free(mig);
  for (int p = 0; p < x->P; p++) x->clock[p] = latest;
  *rec = (lbs_repart_rec){0, part_ns, latest - start, moved, bytes, wall, wimb, from};
  if (!e) e = lbs__build_halo(x);
  return e;
}

lbs_err lbs__gather_assignment(lbs__engine *x, int *out) {
  int *counts = malloc((size_t)x->size * sizeof *counts),
      *displs = malloc((size_t)x->size * sizeof *displs);
  lbs_err e = lbs__agree(x, counts && displs ? LBS_OK : lbs_fail(LBS_NOMEM, "assignment"));
  for (int r = 0; !e && r < x->size; r++) {
    counts[r] = (int)(x->rank_first[r + 1] - x->rank_first[r]);
    displs[r] = (int)x->rank_first[r];
  }
  if (!e) MPI_Allgatherv(x->cur, (int)x->n, MPI_INT, out, counts, displs, MPI_INT, x->comm);
  free(counts), free(displs);
  return e;
}
