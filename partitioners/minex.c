/* minex.c - MinEX (seed 003; see lbs_minex.h for the model and the algorithm).
 *
 * The hierarchy is a list of levels; level 0 is the input graph. Each level keeps out-edges
 * (v -> w, CWgt(v,w)) and in-edges (the transpose), because moving v changes the Comm of
 * every processor holding a vertex with an edge into v. Totals per processor (Wgt, Comm,
 * Remap, QLen) are kept exactly as slide 8 defines them; a potential move projects the new
 * totals of every processor it touches, asks the latency function for their new QWgt, and
 * gives the filter newQWgt_from, newQWgt_to, DVar and newGain. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_grid.h"
#include "lbs_minex.h"

#define MAX_LEVELS 32

typedef struct {
  int64_t n;
  int64_t *xadj, *adj;   /* out-edges */
  double *cw;            /* CWgt(v, adj) */
  int64_t *ixadj, *iadj; /* in-edges: iadj = the source w of w -> v */
  double *icw;           /* CWgt(w, v) */
  double *pw, *rw;       /* PWgt, RWgt */
  int64_t *size;         /* input vertices inside */
  int *cur;              /* current processor, -1 for none */
  int64_t *map;          /* vertex of the next coarser level */
} level;

/* The latency function's first QWgt that was not a finite number. */
typedef struct {
  int seen;
  double q;
  lbs_minex_tot t;
} badq;

typedef struct {
  const lbs_minex_ipg *ipg;
  lbs_minex_opts o;
  badq *bad;
  int P, C;
  const int *cl;
  const double *conn, *reloc;
  lbs_minex_tot *tot; /* P */
  double *q;          /* P: QWgt */
  double T;           /* QWgtToT */
  int *order, *pos;   /* processors sorted by (QWgt, p) */
  int *mark;          /* P: index into aff, or -1 */
  int *aff;           /* affected processors of a projected move */
  lbs_minex_tot *nt;  /* their projected totals */
  double *nq;         /* and QWgt */
  int naff;
  lbs_minex_stats *st;
  int *nbmark, *nbp; /* the vertex nbv's neighbour processors (nnb of them) */
  double *nbo, *nbi; /* and its out- and in-edge weights to each */
  int nnb;
  int64_t nbv;  /* -1: none summarised (parts changed since) */
  double *gain; /* initial partition scratch: growing gains, and a min-heap of -gain */
  struct hedge *heap;
} ctx;

/* ---------------------------------------------------------------- model */

double lbs_minex_latency_none(void *user, const lbs_minex_ipg *ipg, const lbs_minex_tot *t) {
  (void)user, (void)ipg;
  return t->pproc + t->comm + t->remap;
}

double lbs_minex_latency_overlap(void *user, const lbs_minex_ipg *ipg, const lbs_minex_tot *t) {
  (void)ipg;
  double f = user ? *(const double *)user : 0, hidden = t->comm + t->remap - f * t->pproc;
  return t->pproc + (hidden > 0 ? hidden : 0);
}

lbs_minex_opts lbs_minex_defaults(void) {
  lbs_minex_opts o = {0, 1.0, lbs_minex_latency_none, NULL, 16, 8, 0.03};
  return o;
}

lbs_minex_reason lbs_minex_filter(double qfrom, double qto, double nqfrom, double nqto, double dvar,
                                  double gain, double throttle) {
  if (nqfrom > qfrom) return LBS_MINEX_FROM_GROWS;
  if (nqto < qto) return LBS_MINEX_TO_SHRINKS;
  if (dvar > 0) return LBS_MINEX_VAR_GROWS;
  if (gain > 0 && (dvar >= 0 || gain * gain / -dvar > throttle)) return LBS_MINEX_THROTTLE;
  double dnew = nqfrom - nqto, dold = qfrom - qto;
  if (fabs(dnew) > fabs(dold) && (nqfrom < qto || nqto > qfrom)) return LBS_MINEX_OVERSHOOT;
  return LBS_MINEX_PASS;
}

static double conn(const ctx *x, int p, int q) {
  return p == q ? 0 : x->conn[x->cl[p] * x->C + x->cl[q]];
}

/* Comm_v^p with the other vertices where part says. */
static double comm_of(const ctx *x, const level *L, const int *part, int64_t v, int p) {
  double s = 0;
  for (int64_t j = L->xadj[v]; j < L->xadj[v + 1]; j++) {
    int q = part[L->adj[j]];
    if (q != p) s += L->cw[j] * x->conn[x->cl[p] * x->C + x->cl[q]];
  }
  return s;
}

static double remap_of(const ctx *x, const level *L, int64_t v, int p) {
  int r = L->cur[v];
  return r >= 0 && r != p ? L->rw[v] * x->reloc[x->cl[p] * x->C + x->cl[r]] : 0;
}

static double qwgt(const ctx *x, const lbs_minex_tot *t) {
  double q = x->o.latency(x->o.user, x->ipg, t);
  if (!isfinite(q) && !x->bad->seen) x->bad->seen = 1, x->bad->q = q, x->bad->t = *t;
  return q;
}

/* LBS_INVAL when the latency function gave a QWgt that is not a finite number. (A slightly
 * negative one is fine: the totals are updated incrementally, and an empty processor's may
 * come out at -1e-12.) */
static lbs_err check_qwgt(const ctx *x) {
  const badq *b = x->bad;
  if (!b->seen) return LBS_OK;
  return lbs_fail(
      LBS_INVAL,
      "the latency function gave QWgt %g for processor %d (Wgt %g, Comm %g, Remap %g, QLen %lld); "
      "it must be a finite number",
      b->q, b->t.p, b->t.pproc, b->t.comm, b->t.remap, (long long)b->t.qlen);
}

/* Totals, QWgt, QWgtToT and the sorted processor list from scratch. */
static void totals(ctx *x, const level *L, const int *part) {
  x->nbv = -1; /* a new level or new parts */
  for (int p = 0; p < x->P; p++) x->tot[p] = (lbs_minex_tot){p, 0, 0, 0, 0};
  for (int64_t v = 0; v < L->n; v++) {
    int p = part[v];
    x->tot[p].pproc += L->pw[v] * x->ipg->proc[p];
    x->tot[p].comm += comm_of(x, L, part, v, p);
    x->tot[p].remap += remap_of(x, L, v, p);
    x->tot[p].qlen += L->size[v];
  }
  x->T = 0;
  for (int p = 0; p < x->P; p++) x->T += x->q[p] = qwgt(x, &x->tot[p]);
}

static int less(const ctx *x, int a, int b) {
  return x->q[a] < x->q[b] || (x->q[a] == x->q[b] && a < b);
}

static int cmp_ctx_q(const void *a, const void *b, void *arg) {
  const ctx *x = arg;
  int p = *(const int *)a, q = *(const int *)b;
  return less(x, p, q) ? -1 : less(x, q, p) ? 1 : 0;
}

static void sort_procs(ctx *x) {
  for (int p = 0; p < x->P; p++) x->order[p] = p;
  qsort_r(x->order, (size_t)x->P, sizeof *x->order, cmp_ctx_q, x);
  for (int i = 0; i < x->P; i++) x->pos[x->order[i]] = i;
}

/* Moves processor p to its place after its QWgt changed (few places move: slide 16). */
static void resort(ctx *x, int p) {
  int i = x->pos[p];
  while (i > 0 && less(x, p, x->order[i - 1])) {
    x->order[i] = x->order[i - 1], x->pos[x->order[i]] = i;
    i--;
  }
  while (i < x->P - 1 && less(x, x->order[i + 1], p)) {
    x->order[i] = x->order[i + 1], x->pos[x->order[i]] = i;
    i++;
  }
  x->order[i] = p, x->pos[p] = i;
}

static lbs_minex_tot *touch(ctx *x, int p) {
  if (x->mark[p] < 0) {
    x->mark[p] = x->naff;
    x->aff[x->naff] = p;
    x->nt[x->naff++] = x->tot[p];
  }
  return &x->nt[x->mark[p]];
}

typedef struct {
  double nqa, nqb, dT, dvar,
      maxq; /* projected loads, change of total and variance, largest touched */
} proj;

/* Projects moving v from a to b (slide 15: vertex totals, edge weights in and between
 * clusters, relocation and processing weights). Leaves the touched processors in x->aff. */
/* Sums v's edge weights by the processor at the other end, so that projecting a move costs
 * the number of neighbouring processors rather than the degree. */
static void summarize(ctx *x, const level *L, const int *part, int64_t v) {
  for (int i = 0; i < x->nnb; i++) x->nbmark[x->nbp[i]] = -1;
  x->nnb = 0, x->nbv = v;
  for (int dir = 0; dir < 2; dir++) {
    const int64_t *xa = dir ? L->ixadj : L->xadj, *ad = dir ? L->iadj : L->adj;
    const double *cw = dir ? L->icw : L->cw;
    for (int64_t j = xa[v]; j < xa[v + 1]; j++) {
      int r = part[ad[j]];
      if (x->nbmark[r] < 0)
        x->nbmark[r] = x->nnb, x->nbp[x->nnb] = r, x->nbo[x->nnb] = x->nbi[x->nnb] = 0, x->nnb++;
      (dir ? x->nbi : x->nbo)[x->nbmark[r]] += cw[j];
    }
  }
}

static proj project(ctx *x, const level *L, const int *part, int64_t v, int a, int b) {
  for (int i = 0; i < x->naff; i++) x->mark[x->aff[i]] = -1;
  x->naff = 0;
  if (x->nbv != v) summarize(x, L, part, v);
  lbs_minex_tot *ta = touch(x, a), *tb = touch(x, b);
  ta->pproc -= L->pw[v] * x->ipg->proc[a], tb->pproc += L->pw[v] * x->ipg->proc[b];
  ta->remap -= remap_of(x, L, v, a), tb->remap += remap_of(x, L, v, b);
  ta->qlen -= L->size[v], tb->qlen += L->size[v];
  double ca = 0, cb = 0;
  for (int i = 0; i < x->nnb;
       i++) { /* Comm of v on a and on b; in-edges change their sources' Comm */
    int r = x->nbp[i];
    ca += x->nbo[i] * conn(x, a, r), cb += x->nbo[i] * conn(x, b, r);
  }
  ta->comm -= ca, tb->comm += cb;
  for (int i = 0; i < x->nnb; i++) {
    int r = x->nbp[i];
    double d = x->nbi[i] * (conn(x, r, b) - conn(x, r, a));
    if (d != 0) touch(x, r)->comm += d;
  }
  proj pr = {0, 0, 0, 0, 0};
  double dsq = 0;
  for (int i = 0; i < x->naff; i++) {
    int p = x->aff[i];
    if (x->nt[i].comm < 0) x->nt[i].comm = 0; /* rounding */
    double nq = x->nq[i] = qwgt(x, &x->nt[i]);
    pr.dT += nq - x->q[p];
    dsq += nq * nq - x->q[p] * x->q[p];
    if (nq > pr.maxq) pr.maxq = nq;
  }
  pr.nqa = x->nq[0], pr.nqb = x->nq[1];
  /* Var = sum q^2 - T^2 / P */
  pr.dvar = dsq - ((x->T + pr.dT) * (x->T + pr.dT) - x->T * x->T) / x->P;
  return pr;
}

static void apply(ctx *x, int *part, int64_t v, int b, double dT) {
  part[v] = b;
  x->nbv = -1;
  x->T += dT;
  for (int i = 0; i < x->naff; i++) {
    int p = x->aff[i];
    x->tot[p] = x->nt[i];
    x->q[p] = x->nq[i];
    resort(x, p);
  }
}

/* ---------------------------------------------------------------- refinement */

static double max_q(const ctx *x) { return x->q[x->order[x->P - 1]]; }

static void add_cand(int *cand, int *nc, int max, int b) {
  for (int i = 0; i < *nc; i++)
    if (cand[i] == b) return;
  if (*nc < max) cand[(*nc)++] = b;
}

#define MAX_CAND 8

/* Gain moves (lbsim's addition to the seed's balancing moves): a vertex on the boundary goes
 * to the neighbouring processor where the total load QWgtToT drops most (Gain < 0), when no
 * processor it touches ends above MaxQWgt, the target stays within max(its load,
 * (1 + slack) WSysLL), and the source gets no heavier. This is what cuts edges on the way back
 * up the hierarchy; the filter's moves only balance. Returns the moves made. */
static void touch_nbrs(const level *L, int64_t v, uint8_t *dirty) {
  dirty[v] = 1;
  for (int64_t j = L->xadj[v]; j < L->xadj[v + 1]; j++) dirty[L->adj[j]] = 1;
  for (int64_t j = L->ixadj[v]; j < L->ixadj[v + 1]; j++) dirty[L->iadj[j]] = 1;
}

/* dirty: vertices whose neighbourhood changed since they were last found without a move
 * that lowers the total (a vertex's Gain depends only on where its neighbours are). */
static int64_t gain_pass(ctx *x, const level *L, int *part, uint8_t *dirty) {
  int64_t moved = 0;
  for (int64_t v = 0; v < L->n; v++) {
    if (!dirty[v]) continue;
    int a = part[v], cand[MAX_CAND], nc = 0, lower = 0;
    summarize(x, L, part, v);
    for (int i = 0; i < x->nnb && nc < MAX_CAND; i++)
      if (x->nbp[i] != a) cand[nc++] = x->nbp[i];
    if (!nc) {
      dirty[v] = 0;
      continue;
    }
    double maxq = x->q[x->order[x->P - 1]], bound = (1 + x->o.slack) * x->T / x->P, bestg = 0;
    int best = -1;
    for (int c = 0; c < nc; c++) {
      int b = cand[c];
      proj pr = project(x, L, part, v, a, b);
      lower |= pr.dT < 0;
      if (pr.dT < bestg && pr.maxq <= maxq && pr.nqa <= x->q[a] && pr.nqb <= fmax(x->q[b], bound))
        best = b, bestg = pr.dT;
    }
    if (best >= 0) {
      proj pr = project(x, L, part, v, a, best);
      apply(x, part, v, best, pr.dT);
      x->st->gain_moves++;
      moved++;
      touch_nbrs(L, v, dirty);
    } else if (!lower) {
      dirty[v] = 0;
    }
  }
  return moved;
}

/* Moves vertices from overloaded to underloaded processors while moves pass the filter. */
static lbs_err refine(ctx *x, const level *L, int *part) {
  int64_t *start = malloc((size_t)(x->P + 1) * sizeof *start),
          *verts = malloc((size_t)(L->n + 1) * sizeof *verts);
  int *snap = malloc((size_t)x->P * sizeof *snap);
  uint8_t *dirty = malloc((size_t)L->n + 1);
  if (!start || !verts || !snap || !dirty) {
    free(start), free(verts), free(snap), free(dirty);
    return lbs_fail(LBS_NOMEM, "minex refinement");
  }
  double before = INFINITY;
  memset(dirty, 1, (size_t)L->n + 1);
  totals(x, L, part);
  for (int pass = 0; pass < x->o.max_passes; pass++) {
    /* the totals are kept move by move; sorted again from scratch once a pass */
    sort_procs(x);
    /* stop when a pass gained less than 0.2% of MaxQWgt */
    if (max_q(x) > before * 0.998) break;
    before = max_q(x);
    /* bucket sort of the vertices by processor */
    memset(start, 0, (size_t)(x->P + 1) * sizeof *start);
    for (int64_t v = 0; v < L->n; v++) start[part[v] + 1]++;
    for (int p = 0; p < x->P; p++) start[p + 1] += start[p];
    for (int64_t v = 0; v < L->n; v++) verts[start[part[v]]++] = v;
    for (int p = x->P; p > 0; p--) start[p] = start[p - 1];
    start[0] = 0;
    memcpy(snap, x->order, (size_t)x->P * sizeof *snap);
    int64_t moved = 0;
    for (int i = x->P - 1; i >= 0; i--) {
      int a = snap[i];
      for (int64_t k = start[a]; k < start[a + 1]; k++) {
        double avg = x->T / x->P;
        if (!(x->q[a] > avg)) break; /* no longer overloaded */
        int64_t v = verts[k];
        if (part[v] != a) continue;
        int cand[MAX_CAND], nc = 0;
        summarize(x, L, part, v);
        for (int i = 0; i < x->nnb && nc < MAX_CAND - 2; i++)
          if (x->nbp[i] != a && x->q[x->nbp[i]] < avg) cand[nc++] = x->nbp[i];
        for (int s = 0; s < x->P; s++) /* the least loaded processor in a's cluster */
          if (x->cl[x->order[s]] == x->cl[a]) {
            if (x->order[s] != a && x->q[x->order[s]] < avg)
              add_cand(cand, &nc, MAX_CAND, x->order[s]);
            break;
          }
        if (x->order[0] != a && x->q[x->order[0]] < avg) add_cand(cand, &nc, MAX_CAND, x->order[0]);
        int best = -1;
        double bestvar = 0;
        for (int c = 0; c < nc; c++) {
          int b = cand[c];
          x->st->considered++;
          proj pr = project(x, L, part, v, a, b);
          lbs_minex_reason r =
              lbs_minex_filter(x->q[a], x->q[b], pr.nqa, pr.nqb, pr.dvar, pr.dT, x->o.throttle);
          if (r) {
            x->st->rejected[r]++;
            continue;
          }
          x->st->passed++;
          /* never raise MaxQWgt; a move that changes nothing is no progress */
          if (pr.maxq > x->q[x->order[x->P - 1]] || !(pr.dvar < 0)) {
            x->st->failed++;
            continue;
          }
          if (best < 0 || pr.dvar < bestvar) best = b, bestvar = pr.dvar;
        }
        if (best >= 0) {
          proj pr = project(x, L, part, v, a, best);
          apply(x, part, v, best, pr.dT);
          touch_nbrs(L, v, dirty);
          x->st->accepted++;
          moved++;
        }
      }
    }
    moved += gain_pass(x, L, part, dirty);
    if (!moved) break;
  }
  free(start), free(verts), free(snap), free(dirty);
  return LBS_OK;
}

/* ---------------------------------------------------------------- hierarchy */

static void level_free(level *L) {
  free(L->xadj), free(L->adj), free(L->cw), free(L->ixadj), free(L->iadj), free(L->icw);
  free(L->pw), free(L->rw), free(L->size), free(L->cur), free(L->map);
  memset(L, 0, sizeof *L);
}

/* In-edges from the out-edges. */
static lbs_err transpose(level *L) {
  int64_t n = L->n, m = L->xadj[n];
  L->ixadj = calloc((size_t)n + 1, sizeof *L->ixadj);
  L->iadj = malloc((size_t)(m + 1) * sizeof *L->iadj);
  L->icw = malloc((size_t)(m + 1) * sizeof *L->icw);
  if (!L->ixadj || !L->iadj || !L->icw) return lbs_fail(LBS_NOMEM, "minex graph");
  for (int64_t j = 0; j < m; j++) L->ixadj[L->adj[j] + 1]++;
  for (int64_t v = 0; v < n; v++) L->ixadj[v + 1] += L->ixadj[v];
  int64_t *fill = malloc((size_t)(n + 1) * sizeof *fill);
  if (!fill) return lbs_fail(LBS_NOMEM, "minex graph");
  memcpy(fill, L->ixadj, (size_t)n * sizeof *fill);
  for (int64_t v = 0; v < n; v++)
    for (int64_t j = L->xadj[v]; j < L->xadj[v + 1]; j++) {
      int64_t k = fill[L->adj[j]]++;
      L->iadj[k] = v, L->icw[k] = L->cw[j];
    }
  free(fill);
  return LBS_OK;
}

static lbs_err level_alloc(level *L, int64_t n, int64_t m) {
  L->n = n;
  L->xadj = malloc((size_t)(n + 1) * sizeof *L->xadj);
  L->adj = malloc((size_t)(m + 1) * sizeof *L->adj);
  L->cw = malloc((size_t)(m + 1) * sizeof *L->cw);
  L->pw = malloc((size_t)(n + 1) * sizeof *L->pw);
  L->rw = malloc((size_t)(n + 1) * sizeof *L->rw);
  L->size = malloc((size_t)(n + 1) * sizeof *L->size);
  L->cur = malloc((size_t)(n + 1) * sizeof *L->cur);
  L->map = malloc((size_t)(n + 1) * sizeof *L->map);
  if (!L->xadj || !L->adj || !L->cw || !L->pw || !L->rw || !L->size || !L->cur || !L->map)
    return lbs_fail(LBS_NOMEM, "minex graph of %lld vertices", (long long)n);
  return LBS_OK;
}

typedef struct hedge {
  double key; /* ordered by key, then u, then w */
  int64_t u, w;
} hedge;

static int hless(const hedge *a, const hedge *b) {
  return a->key < b->key || (a->key == b->key && (a->u < b->u || (a->u == b->u && a->w < b->w)));
}

static void sift_down(hedge *h, int64_t n, int64_t i) {
  for (;;) {
    int64_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && hless(&h[l], &h[m])) m = l;
    if (r < n && hless(&h[r], &h[m])) m = r;
    if (m == i) return;
    hedge t = h[i];
    h[i] = h[m], h[m] = t, i = m;
  }
}

/* The best edge of v to contract: the free neighbour w on the same current processor whose
 * edges (both directions) hide the most communication on that processor's network, with
 * PWgt(v) + PWgt(w) <= cap. acc is n zeros (left zeroed). Returns the Gain (< 0 is better). */
static double best_edge(const ctx *x, const level *f, const int64_t *mate, double cap, int64_t v,
                        double *acc, int64_t *touched, int64_t *w_out) {
  int64_t nt = 0;
  for (int dir = 0; dir < 2; dir++) {
    const int64_t *xa = dir ? f->ixadj : f->xadj, *ad = dir ? f->iadj : f->adj;
    const double *cw = dir ? f->icw : f->cw;
    for (int64_t j = xa[v]; j < xa[v + 1]; j++) {
      int64_t w = ad[j];
      if (mate[w] >= 0 || f->cur[w] != f->cur[v] || f->pw[v] + f->pw[w] > cap) continue;
      if (acc[w] == 0) touched[nt++] = w;
      acc[w] += cw[j] + 1e-300; /* zero-weight edges still count as edges */
    }
  }
  double best = 1, net = f->cur[v] >= 0 ? x->conn[x->cl[f->cur[v]] * x->C + x->cl[f->cur[v]]] : 1;
  if (!(net > 0)) net = 1;
  *w_out = -1;
  for (int64_t i = 0; i < nt; i++) {
    int64_t w = touched[i];
    double g = -acc[w] * net;
    if (*w_out < 0 || g < best || (g == best && w < *w_out)) best = g, *w_out = w;
    acc[w] = 0;
  }
  return best;
}

/* Contracts edges in order of best Gain from a min-heap holding each free vertex's best edge
 * (refreshed when its partner is taken), between vertices on the same current processor (the
 * seed's bucket sort by processor), keeping merged vertices under cap of PWgt. Fills f->map
 * and builds c. */
static lbs_err coarsen(const ctx *x, level *f, level *c, double cap) {
  int64_t n = f->n, m = f->xadj[n], nh = 0;
  hedge *h = malloc((size_t)(n + 1) * sizeof *h);
  int64_t *mate = malloc((size_t)(n + 1) * sizeof *mate),
          *touched = malloc((size_t)(n + 1) * sizeof *touched);
  double *acc = calloc((size_t)n + 1, sizeof *acc);
  if (!h || !mate || !touched || !acc) {
    free(h), free(mate), free(touched), free(acc);
    return lbs_fail(LBS_NOMEM, "minex contraction");
  }
  for (int64_t v = 0; v < n; v++) mate[v] = -1;
  for (int64_t v = 0; v < n; v++) {
    int64_t w;
    double g = best_edge(x, f, mate, cap, v, acc, touched, &w);
    if (w >= 0) h[nh++] = (hedge){g, v, w};
  }
  for (int64_t i = nh / 2 - 1; i >= 0; i--) sift_down(h, nh, i);
  while (nh > 0) {
    hedge e = h[0];
    if (mate[e.u] >= 0) { /* taken meanwhile */
      h[0] = h[--nh];
      sift_down(h, nh, 0);
    } else if (mate[e.w] >= 0) { /* its partner was taken: its next best edge */
      int64_t w;
      double g = best_edge(x, f, mate, cap, e.u, acc, touched, &w);
      if (w >= 0)
        h[0] = (hedge){g, e.u, w};
      else
        h[0] = h[--nh];
      sift_down(h, nh, 0);
    } else {
      mate[e.u] = e.w, mate[e.w] = e.u;
      h[0] = h[--nh];
      sift_down(h, nh, 0);
    }
  }
  free(h), free(touched), free(acc);
  int64_t nc = 0;
  for (int64_t v = 0; v < n; v++) f->map[v] = -1;
  for (int64_t v = 0; v < n; v++)
    if (f->map[v] < 0) {
      f->map[v] = nc;
      if (mate[v] >= 0) f->map[mate[v]] = nc;
      nc++;
    }
  lbs_err e = level_alloc(c, nc, m);
  int64_t *last = malloc((size_t)(nc + 1) * sizeof *last),
          *members = malloc((size_t)(2 * nc + 1) * sizeof *members);
  if (!e && (!last || !members)) e = lbs_fail(LBS_NOMEM, "minex contraction");
  if (!e) {
    for (int64_t k = 0; k < nc; k++) members[2 * k] = members[2 * k + 1] = -1, last[k] = -1;
    for (int64_t v = 0; v < n; v++) {
      int64_t k = f->map[v];
      members[2 * k + (members[2 * k] >= 0)] = v;
    }
    int64_t ne = 0;
    for (int64_t k = 0; k < nc; k++) {
      c->xadj[k] = ne;
      c->pw[k] = c->rw[k] = 0, c->size[k] = 0, c->cur[k] = f->cur[members[2 * k]];
      for (int s = 0; s < 2; s++) {
        int64_t v = members[2 * k + s];
        if (v < 0) continue;
        c->pw[k] += f->pw[v], c->rw[k] += f->rw[v], c->size[k] += f->size[v];
        for (int64_t j = f->xadj[v]; j < f->xadj[v + 1]; j++) {
          int64_t t = f->map[f->adj[j]];
          if (t == k) continue;
          if (last[t] >= c->xadj[k])
            c->cw[last[t]] += f->cw[j];
          else
            last[t] = ne, c->adj[ne] = t, c->cw[ne++] = f->cw[j];
        }
      }
    }
    c->xadj[nc] = ne;
    e = transpose(c);
  }
  free(mate), free(last), free(members);
  return e;
}

/* ---------------------------------------------------------------- initial partition */

static void sift_up(hedge *h, int64_t i) {
  while (i > 0 && hless(&h[i], &h[(i - 1) / 2])) {
    hedge t = h[i];
    h[i] = h[(i - 1) / 2], h[(i - 1) / 2] = t, i = (i - 1) / 2;
  }
}

/* One bisection of verts[0..nv): the tags that mark its vertices (in_set) and its left side
 * (left) in tag, the bounds on the left side's vertex count, and its weight against the target. */
typedef struct {
  const level *L;
  int64_t *verts, nv; /* the vertices to split */
  int64_t *tag;       /* n-sized: in_set or left for the vertices of verts */
  int64_t in_set, left;
  int64_t minl, maxl, nl; /* bounds on the left side's vertex count; its count */
  double total, target;   /* PWgt of verts; the left side's share of it */
  double wl;              /* PWgt on the left side */
} cut;

/* Where [p0, p1) splits: its middle, or the cluster boundary nearest the middle. */
static int split_proc(const ctx *x, int p0, int p1) {
  int pm = p0 + (p1 - p0) / 2;
  if (x->cl[p0] != x->cl[p1 - 1]) { /* cut at the cluster boundary nearest the middle */
    int best = -1;
    for (int p = p0 + 1; p < p1; p++)
      if (x->cl[p] != x->cl[p - 1] && (best < 0 || abs(p - pm) < abs(best - pm))) best = p;
    pm = best;
  }
  return pm;
}

/* A pseudo-peripheral start: the last vertex a BFS from verts[0] reaches, through the set's
 * vertices (tagged seen while it runs, in_set again after). queue is n-sized scratch. */
static int64_t peripheral(const cut *c, int64_t *queue, int64_t seen) {
  const level *L = c->L;
  int64_t *tag = c->tag, qh = 0, qt = 0, start = c->verts[0];
  queue[qt++] = start, tag[start] = seen;
  while (qh < qt) {
    int64_t v = queue[qh++];
    start = v;
    for (int dir = 0; dir < 2; dir++) {
      const int64_t *xa = dir ? L->ixadj : L->xadj, *ad = dir ? L->iadj : L->adj;
      for (int64_t j = xa[v]; j < xa[v + 1]; j++)
        if (tag[ad[j]] == c->in_set) tag[ad[j]] = seen, queue[qt++] = ad[j];
    }
  }
  for (int64_t i = 0; i < c->nv; i++) tag[c->verts[i]] = c->in_set;
  return start;
}

/* gain[v] for each vertex of the set: minus the weight of its edges inside the set. */
static void set_gains(const cut *c, double *gain) {
  const level *L = c->L;
  for (int64_t i = 0; i < c->nv; i++) {
    int64_t v = c->verts[i];
    gain[v] = 0;
    for (int dir = 0; dir < 2; dir++) {
      const int64_t *xa = dir ? L->ixadj : L->xadj, *ad = dir ? L->iadj : L->adj;
      const double *cw = dir ? L->icw : L->cw;
      for (int64_t j = xa[v]; j < xa[v + 1]; j++)
        if (c->tag[ad[j]] == c->in_set) gain[v] -= cw[j];
    }
  }
}

/* Grows the left side from start, greedily (GGGP): always the frontier vertex whose edges gain
 * most (from x's gain and heap scratch), another component's first vertex when the frontier is
 * empty, until the left side holds its share of PWgt within its bounds. */
static void grow_left(ctx *x, cut *c, int64_t start) {
  const level *L = c->L;
  int64_t *tag = c->tag, in_set = c->in_set, next = 0, nh = 0;
  double *gain = x->gain;
  hedge *heap = x->heap;
  set_gains(c, gain);
  heap[nh++] = (hedge){-gain[start], start, 0};
  for (;;) {
    int64_t v = -1;
    while (nh > 0 && v < 0) {
      hedge h = heap[0];
      heap[0] = heap[--nh];
      sift_down(heap, nh, 0);
      if (tag[h.u] == in_set && -h.key == gain[h.u]) v = h.u;
    }
    if (v < 0) { /* another component */
      while (next < c->nv && tag[c->verts[next]] != in_set) next++;
      if (next == c->nv) break;
      v = c->verts[next];
    }
    if (c->nl >= c->minl && (c->nl >= c->maxl || c->wl + L->pw[v] / 2 > c->target))
      break; /* v stays right */
    tag[v] = c->left, c->nl++, c->wl += L->pw[v];
    for (int dir = 0; dir < 2; dir++) {
      const int64_t *xa = dir ? L->ixadj : L->xadj, *ad = dir ? L->iadj : L->adj;
      const double *cw = dir ? L->icw : L->cw;
      for (int64_t j = xa[v]; j < xa[v + 1]; j++) {
        int64_t w = ad[j];
        if (tag[w] != in_set) continue;
        gain[w] += 2 * cw[j];
        heap[nh] = (hedge){-gain[w], w, 0};
        sift_up(heap, nh++);
      }
    }
  }
}

/* Greedy boundary passes, 4 at most: moves a vertex to the other side when that cuts less edge
 * weight and keeps the weights within tolerance of the target (or brings them nearer it). */
static void refine_cut(cut *c) {
  const level *L = c->L;
  int64_t *tag = c->tag, in_set = c->in_set, left = c->left;
  double wmax = 0;
  for (int64_t i = 0; i < c->nv; i++) wmax = fmax(wmax, L->pw[c->verts[i]]);
  double tol = fmax(0.01 * c->total, wmax);
  for (int pass = 0; pass < 4; pass++) {
    int moved = 0;
    for (int64_t i = 0; i < c->nv; i++) {
      int64_t v = c->verts[i];
      int isl = tag[v] == left;
      double ext = 0, in = 0;
      for (int dir = 0; dir < 2; dir++) {
        const int64_t *xa = dir ? L->ixadj : L->xadj, *ad = dir ? L->iadj : L->adj;
        const double *cw = dir ? L->icw : L->cw;
        for (int64_t j = xa[v]; j < xa[v + 1]; j++) {
          int64_t t = tag[ad[j]];
          if (t != left && t != in_set) continue;
          if ((t == left) == isl)
            in += cw[j];
          else
            ext += cw[j];
        }
      }
      if (!(ext > in)) continue;
      double nw = isl ? c->wl - L->pw[v] : c->wl + L->pw[v];
      int64_t nn = isl ? c->nl - 1 : c->nl + 1;
      if (nn < c->minl || nn > c->maxl ||
          (fabs(nw - c->target) > tol && fabs(nw - c->target) >= fabs(c->wl - c->target)))
        continue;
      tag[v] = isl ? in_set : left, c->wl = nw, c->nl = nn, moved++;
    }
    if (!moved) break;
  }
}

/* Reorders verts stably, the left side first (through queue); returns the left side's count. */
static int64_t split_verts(cut *c, int64_t *queue) {
  int64_t a = 0;
  for (int64_t i = 0; i < c->nv; i++)
    if (c->tag[c->verts[i]] == c->left) queue[a++] = c->verts[i];
  int64_t b = a;
  for (int64_t i = 0; i < c->nv; i++)
    if (c->tag[c->verts[i]] != c->left) queue[b++] = c->verts[i];
  memcpy(c->verts, queue, (size_t)c->nv * sizeof *c->verts);
  return a;
}

/* Splits verts[0..nv) onto processors [p0, p1): graph growing from a pseudo-peripheral
 * vertex until the left side holds its share of PWgt (proportional to speed), clusters kept
 * together, then the same on each side. tag/queue are n-sized scratch. */
static void bisect(ctx *x, const level *L, int64_t *verts, int64_t nv, int p0, int p1, int *part,
                   int64_t *tag, int64_t *queue, int64_t *token) {
  if (nv == 0) return;
  if (p1 - p0 == 1) {
    for (int64_t i = 0; i < nv; i++) part[verts[i]] = p0;
    return;
  }
  int pm = split_proc(x, p0, p1);
  double sl = 0, s = 0, total = 0;
  for (int p = p0; p < p1; p++) s += 1 / x->ipg->proc[p], sl += p < pm ? 1 / x->ipg->proc[p] : 0;
  for (int64_t i = 0; i < nv; i++) total += L->pw[verts[i]];
  cut c = {.L = L, .verts = verts, .nv = nv, .tag = tag, .total = total, .target = total * sl / s};
  c.minl = nv >= p1 - p0 ? pm - p0 : 0, c.maxl = nv >= p1 - p0 ? nv - (p1 - pm) : nv;
  c.in_set = ++*token;
  for (int64_t i = 0; i < nv; i++) tag[verts[i]] = c.in_set;
  int64_t start = peripheral(&c, queue, ++*token);
  c.left = ++*token;
  grow_left(x, &c, start);
  refine_cut(&c);
  int64_t a = split_verts(&c, queue);
  bisect(x, L, verts, a, p0, pm, part, tag, queue, token);
  bisect(x, L, verts + a, nv - a, pm, p1, part, tag, queue, token);
}

static lbs_err initial(ctx *x, const level *L, int *part) {
  if (x->o.diffusive && L->n && L->cur[0] >= 0) {
    for (int64_t v = 0; v < L->n; v++) part[v] = L->cur[v];
    return LBS_OK;
  }
  int64_t *verts = malloc((size_t)(L->n + 1) * sizeof *verts),
          *tag = calloc((size_t)L->n + 1, sizeof *tag);
  int64_t *queue = malloc((size_t)(L->n + 1) * sizeof *queue), token = 0;
  x->gain = malloc((size_t)(L->n + 1) * sizeof *x->gain);
  x->heap = malloc((size_t)(2 * L->xadj[L->n] + L->n + 1) * sizeof *x->heap);
  lbs_err e = LBS_OK;
  if (!verts || !tag || !queue || !x->gain || !x->heap)
    e = lbs_fail(LBS_NOMEM, "minex initial partition");
  for (int64_t v = 0; !e && v < L->n; v++) verts[v] = v;
  if (!e) bisect(x, L, verts, L->n, 0, x->P, part, tag, queue, &token);
  free(verts), free(tag), free(queue), free(x->gain), free(x->heap);
  x->gain = NULL, x->heap = NULL;
  return e;
}

/* ---------------------------------------------------------------- checks */

static lbs_err check(const lbs_minex_graph *g, const lbs_minex_ipg *ipg) {
  if (!ipg || ipg->P < 1 || ipg->C < 1)
    return lbs_fail(LBS_INVAL, "minex: the grid has no processors");
  for (int p = 0; p < ipg->P; p++) {
    if (ipg->cluster[p] < 0 || ipg->cluster[p] >= ipg->C)
      return lbs_fail(LBS_INVAL, "minex: processor %d is in cluster %d of %d", p, ipg->cluster[p],
                      ipg->C);
    if (!(ipg->proc[p] > 0) || !isfinite(ipg->proc[p]))
      return lbs_fail(LBS_INVAL, "minex: processor %d has processing slowdown %g", p, ipg->proc[p]);
  }
  for (int i = 0; i < ipg->C * ipg->C; i++)
    if (!(ipg->connect[i] >= 0) || !isfinite(ipg->connect[i]) ||
        (ipg->relocate && (!(ipg->relocate[i] >= 0) || !isfinite(ipg->relocate[i]))))
      return lbs_fail(LBS_INVAL, "minex: clusters %d and %d have a bad link slowdown", i / ipg->C,
                      i % ipg->C);
  if (g->n < ipg->P)
    return lbs_fail(LBS_INVAL, "minex: more processors (%d) than vertices (%lld)", ipg->P,
                    (long long)g->n);
  if (g->xadj[0] != 0) return lbs_fail(LBS_INVAL, "minex: the graph's offsets do not start at 0");
  for (int64_t v = 0; v < g->n; v++) {
    if (g->xadj[v + 1] < g->xadj[v])
      return lbs_fail(LBS_INVAL, "minex: vertex %lld has a negative degree", (long long)v);
    if (!(g->pwgt[v] >= 0) || !isfinite(g->pwgt[v]))
      return lbs_fail(LBS_INVAL, "minex: vertex %lld has processing weight %g", (long long)v,
                      g->pwgt[v]);
    if (g->rwgt && (!(g->rwgt[v] >= 0) || !isfinite(g->rwgt[v])))
      return lbs_fail(LBS_INVAL, "minex: vertex %lld has relocation weight %g", (long long)v,
                      g->rwgt[v]);
    if (g->current && (g->current[v] < 0 || g->current[v] >= ipg->P))
      return lbs_fail(LBS_INVAL, "minex: vertex %lld is on processor %d of %d", (long long)v,
                      g->current[v], ipg->P);
    for (int64_t j = g->xadj[v]; j < g->xadj[v + 1]; j++) {
      int64_t w = g->adj[j];
      if (w < 0 || w >= g->n)
        return lbs_fail(LBS_INVAL, "minex: edge %lld -> %lld leaves the graph", (long long)v,
                        (long long)w);
      if (w == v) return lbs_fail(LBS_INVAL, "minex: vertex %lld has a self loop", (long long)v);
      if (g->cwgt && (!(g->cwgt[j] >= 0) || !isfinite(g->cwgt[j])))
        return lbs_fail(LBS_INVAL, "minex: edge %lld -> %lld has weight %g", (long long)v,
                        (long long)w, g->cwgt[j]);
    }
  }
  return LBS_OK;
}

static lbs_err ctx_init(ctx *x, const lbs_minex_ipg *ipg, const lbs_minex_opts *o,
                        lbs_minex_stats *st, badq *bad) {
  memset(x, 0, sizeof *x);
  memset(bad, 0, sizeof *bad);
  x->bad = bad;
  x->ipg = ipg, x->P = ipg->P, x->C = ipg->C, x->cl = ipg->cluster, x->conn = ipg->connect;
  x->reloc = ipg->relocate ? ipg->relocate : ipg->connect;
  x->o = o ? *o : lbs_minex_defaults();
  if (!x->o.latency) x->o.latency = lbs_minex_latency_none;
  if (x->o.max_passes <= 0) x->o.max_passes = 16;
  if (x->o.coarse_per_proc <= 0) x->o.coarse_per_proc = 8;
  x->st = st;
  size_t P = (size_t)x->P;
  x->tot = malloc(P * sizeof *x->tot), x->nt = malloc(P * sizeof *x->nt),
  x->q = malloc(P * sizeof *x->q);
  x->nq = malloc(P * sizeof *x->nq), x->order = malloc(P * sizeof *x->order),
  x->pos = malloc(P * sizeof *x->pos);
  x->mark = malloc(P * sizeof *x->mark), x->aff = malloc(P * sizeof *x->aff);
  x->nbmark = malloc(P * sizeof *x->nbmark), x->nbp = malloc(P * sizeof *x->nbp);
  x->nbo = malloc(P * sizeof *x->nbo), x->nbi = malloc(P * sizeof *x->nbi);
  x->nbv = -1;
  if (!x->tot || !x->nt || !x->q || !x->nq || !x->order || !x->pos || !x->mark || !x->aff ||
      !x->nbmark || !x->nbp || !x->nbo || !x->nbi)
    return lbs_fail(LBS_NOMEM, "minex");
  for (int p = 0; p < x->P; p++) x->mark[p] = x->nbmark[p] = -1;
  return LBS_OK;
}

static void ctx_free(ctx *x) {
  free(x->tot), free(x->nt), free(x->q), free(x->nq), free(x->order), free(x->pos), free(x->mark),
      free(x->aff);
  free(x->nbmark), free(x->nbp), free(x->nbo), free(x->nbi);
}

/* Level 0: a copy of the input. */
static lbs_err level0(const lbs_minex_graph *g, level *L) {
  int64_t n = g->n, m = g->xadj[n];
  lbs_err e = level_alloc(L, n, m);
  if (e) return e;
  memcpy(L->xadj, g->xadj, (size_t)(n + 1) * sizeof *L->xadj);
  if (m) memcpy(L->adj, g->adj, (size_t)m * sizeof *L->adj);
  for (int64_t j = 0; j < m; j++) L->cw[j] = g->cwgt ? g->cwgt[j] : 1;
  for (int64_t v = 0; v < n; v++) {
    L->pw[v] = g->pwgt[v], L->rw[v] = g->rwgt ? g->rwgt[v] : 1, L->size[v] = 1;
    L->cur[v] = g->current ? g->current[v] : -1;
  }
  return transpose(L);
}

lbs_err lbs_minex_partition(const lbs_minex_graph *g, const lbs_minex_ipg *ipg,
                            const lbs_minex_opts *opts, int *part, lbs_minex_stats *stats) {
  lbs_minex_stats local;
  if (!stats) stats = &local;
  memset(stats, 0, sizeof *stats);
  lbs_err e = check(g, ipg);
  if (e) return e;
  ctx x;
  level L[MAX_LEVELS];
  memset(L, 0, sizeof L);
  int *parts[MAX_LEVELS] = {0};
  int nl = 1;
  badq bad;
  if ((e = ctx_init(&x, ipg, opts, stats, &bad)) || (e = level0(g, &L[0]))) goto done;
  double total = 0;
  for (int64_t v = 0; v < g->n; v++) total += g->pwgt[v];
  double cap = total / ((double)x.o.coarse_per_proc * x.P) * 2;
  int64_t stop = (int64_t)x.o.coarse_per_proc * x.P;
  while (nl < MAX_LEVELS && L[nl - 1].n > stop) {
    if ((e = coarsen(&x, &L[nl - 1], &L[nl], cap))) goto done;
    nl++;
    if (L[nl - 1].n > L[nl - 2].n * 0.95) break; /* little left to contract */
  }
  for (int l = 0; l < nl; l++)
    if (!(parts[l] = malloc((size_t)(L[l].n + 1) * sizeof *parts[l]))) {
      e = lbs_fail(LBS_NOMEM, "minex");
      goto done;
    }
  if ((e = initial(&x, &L[nl - 1], parts[nl - 1])) || (e = check_qwgt(&x))) goto done;
  for (int l = nl - 1; l >= 0; l--) {
    if (l < nl - 1)
      for (int64_t v = 0; v < L[l].n; v++) parts[l][v] = parts[l + 1][L[l].map[v]];
    totals(&x, &L[l], parts[l]);
    sort_procs(&x);
    stats->level_before[nl - 1 - l] = max_q(&x);
    if ((e = refine(&x, &L[l], parts[l])) || (e = check_qwgt(&x))) goto done;
    totals(&x, &L[l], parts[l]);
    sort_procs(&x);
    if ((e = check_qwgt(&x))) goto done;
    stats->level_after[nl - 1 - l] = max_q(&x);
  }
  memcpy(part, parts[0], (size_t)g->n * sizeof *part);
  stats->levels = nl;
  stats->maxqwgt = max_q(&x);
  stats->wsysll = x.T / x.P;
  stats->loadimb = stats->wsysll > 0 ? stats->maxqwgt / stats->wsysll : 1;
done:
  for (int l = 0; l < nl; l++) level_free(&L[l]), free(parts[l]);
  ctx_free(&x);
  return e;
}

lbs_err lbs_minex_evaluate(const lbs_minex_graph *g, const lbs_minex_ipg *ipg,
                           lbs_minex_latency_fn latency, void *user, const int *part, double *qwgt,
                           lbs_minex_eval *out) {
  memset(out, 0, sizeof *out);
  lbs_err e = check(g, ipg);
  if (e) return e;
  for (int64_t v = 0; v < g->n; v++)
    if (part[v] < 0 || part[v] >= ipg->P)
      return lbs_fail(LBS_INVAL, "vertex %lld is on processor %d of %d", (long long)v, part[v],
                      ipg->P);
  lbs_minex_opts o = lbs_minex_defaults();
  o.latency = latency, o.user = user;
  ctx x;
  level L;
  memset(&L, 0, sizeof L);
  lbs_minex_stats st;
  badq bad;
  if (!(e = ctx_init(&x, ipg, &o, &st, &bad)) && !(e = level0(g, &L))) {
    totals(&x, &L, part);
    e = check_qwgt(&x);
    for (int p = 0; p < x.P; p++) {
      if (qwgt) qwgt[p] = x.q[p];
      if (x.q[p] > out->maxqwgt) out->maxqwgt = x.q[p];
    }
    out->qwgttot = x.T;
    for (int p = 0; p < x.P; p++)
      out->wgt += x.tot[p].pproc, out->comm += x.tot[p].comm, out->remap += x.tot[p].remap;
    out->wsysll = x.T / x.P;
    out->loadimb = out->wsysll > 0 ? out->maxqwgt / out->wsysll : 1;
    /* the cut as METIS, Zoltan and Chaco count it: each undirected edge once, so half the weight of
     * the cut arcs (a symmetric graph stores every edge as two arcs; on a directed graph a pair of
     * arcs counts their mean, a lone arc half its weight) */
    double arcs = 0;
    for (int64_t v = 0; v < g->n; v++) {
      out->moved += g->current && g->current[v] != part[v];
      for (int64_t j = g->xadj[v]; j < g->xadj[v + 1]; j++)
        if (part[g->adj[j]] != part[v]) arcs += L.cw[j];
    }
    out->edge_cut = arcs / 2;
  }
  level_free(&L);
  ctx_free(&x);
  return e;
}

/* ---------------------------------------------------------------- the grid */

lbs_err lbs_minex_ipg_from_grid(const lbs_grid *grid, double bytes_per_edge, double bytes_per_rwgt,
                                lbs_minex_ipg *out) {
  memset(out, 0, sizeof *out);
  int P = lbs_grid_procs(grid), C = lbs_grid_nclusters(grid);
  int *cl = malloc((size_t)P * sizeof *cl);
  double *proc = malloc((size_t)P * sizeof *proc), *cn = malloc((size_t)C * C * sizeof *cn);
  double *rl = malloc((size_t)C * C * sizeof *rl);
  if (!cl || !proc || !cn || !rl) {
    free(cl), free(proc), free(cn), free(rl);
    return lbs_fail(LBS_NOMEM, "grid model");
  }
  for (int p = 0; p < P; p++) {
    cl[p] = lbs_grid_proc_cluster(grid, p);
    proc[p] = (double)lbs_grid_compute_ns(grid, p, 1e6) / 1e6; /* ns per unit, to 1e-6 ns */
    if (!(proc[p] > 0)) proc[p] = 1e-6;
  }
  for (int c = 0; c < C; c++)
    for (int d = 0; d < C; d++) {
      lbs_link l = lbs_grid_link(grid, c, d);
      cn[c * C + d] = 8 * bytes_per_edge / l.bw_gbps;
      rl[c * C + d] = 8 * bytes_per_rwgt / l.bw_gbps;
    }
  *out = (lbs_minex_ipg){P, C, cl, proc, cn, rl};
  return LBS_OK;
}

void lbs_minex_ipg_free(lbs_minex_ipg *ipg) {
  free((void *)ipg->cluster), free((void *)ipg->proc), free((void *)ipg->connect),
      free((void *)ipg->relocate);
  memset(ipg, 0, sizeof *ipg);
}
