/* network.c - transfers over the grid's network (lbs_net in lbs_sim.h).
 *
 * A transfer of B bytes from processor p to q crosses the link between their clusters
 * (latency L ns, bandwidth W Gbit/s = bits/ns) and, when their node types have one, p's
 * outgoing NIC and q's incoming NIC (nic_gbps each way). Alone it arrives L + ceil(8B / W)
 * ns after it is ready (W the slowest of the link and the NICs). What transfers share: a
 * link with shared = true (one medium for both directions) and every NIC; a dedicated link
 * gives every transfer its own W.
 *
 * fifo: a shared resource serves whole transfers one after the other, in the order they are
 *   ready (ties: the order given). A transfer starts when it is ready and all its shared
 *   resources are free, holds them 8B / W ns, and arrives L later.
 * fair: SimGrid's flow model (CM02, as SMPI with network/model:CM02, no cross-traffic, no
 *   TCP window bound). A transfer first pays its latency, using no bandwidth, then becomes a
 *   flow. The flows in flight get rates by weighted max-min fairness (progressive filling)
 *   over the shared resources they cross, each at most its link's W. A flow's weight is
 *   1 / its latency (SimGrid's sharing penalty, TCP's RTT unfairness; a route without latency
 *   counts 1 s): the flows on one link have the same latency and share it equally, flows of
 *   different latencies meet only at a NIC. Rates are recomputed whenever a flow starts or
 *   ends, and the bits left advanced between those events. Event times are whole ns (a finish
 *   rounded up), so a lone transfer arrives exactly L + ceil(8B / W) after it is ready. A batch
 *   whose flows all share one resource equally takes a shortcut (run_one), one whose flows
 *   all cross one shared resource with NICs beside it another (run_common), both with the
 *   same arithmetic and the same arrivals to the ns ("Design" above run_common); the others
 *   re-solve every flow at every event. lbs__net_full_solver keeps the solver as it was
 *   (fill_ref), the reference for tests and benchmarks.
 *
 * Batches. Each lbs_net_run serves one batch (a step's halo, a migration). Earlier batches
 * stay on the resources: in fifo as the time each resource is free, in fair as a profile of
 * the bandwidth they use over time (run_common's batches as a record merged into it when a
 * later batch crosses the resource, lazy_resolve). A later batch gets what is left: earlier steps
 * first, as fifo, so a batch never slows down an earlier one, whose arrivals are already known.
 * Steps meet at barriers in bsp, so this matters only in des, where a fast processor's next step
 * can start sending while a slow one's last step is still in flight on the same resource.
 * Every rank computes the same batches from the same data: results do not depend on the
 * number of MPI ranks. With [sim] des_overlap = shared the steps' halos are not batches but
 * join one simulation that goes on across steps (lbs_netsim, at the end of this file), so that
 * they share as SimGrid shares them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_sim.h"

#define NS_MAX INT64_C(9000000000000000000) /* times are held there, as compute times */
#define NO_TIME INT64_MAX
#define REL 1e-12 /* relative slack of float arithmetic on exact values */

/* A resource's usage by earlier batches: u[k] bits/ns on [t[k], t[k+1]), 0 before t[0]; the
 * last u is 0. */
typedef struct {
  int64_t *t;
  double *u;
  int n, cap;
} profile;

typedef struct {
  int64_t act;  /* when the latency is paid and the flow starts */
  int64_t cand; /* when it ends at the current rate (NO_TIME: rate 0) */
  double rem;   /* bits left */
  double bound; /* its link's bandwidth */
  double w;     /* weight: 1 / latency */
  double rate;
  int res[3], nres;
  int idx;   /* the transfer */
  int fixed; /* fill_ref(): progressive filling */
} flow;

/* A run_common() batch's usage, kept for later batches (lazy_resolve): its events (every
 * iteration of its loop, and its end), with the one rate of every flow at each. */
typedef struct {
  int64_t *t;   /* per event: its time */
  double *rate; /* per event: every flow's rate; 0 at a general event (fill()'s, see ust), the
                 bound where no flow is in flight (no resource uses it then) */
  int *nz;      /* ne + 1: nz[e], the events before e whose rate is not 0 */
  int ne, cap;  /* events */
  int refs;     /* resources whose usage this still holds (n->pend) */
} crec;

/* Per resource, its count of flows over a crec's events: from event e[i] on, k[i] flows (never
 * two equal k in a row, the first k > 0; 0 before e[0]). */
typedef struct {
  int *e, *k;
  int n, cap;
} ksteps;

/* Per resource, its usage at a crec's general events where it is in use: u[i] at event e[i]. */
typedef struct {
  int *e;
  double *u;
  int n, cap;
} usteps;

#define NCLS 4 /* run_common(): classes of resources by capacity (others stay in the list) */
#define LIVE 8 /* crecs held at most: the oldest is merged whole beyond (lazy_flush) */

struct lbs_net {
  const lbs_grid *g;
  int P, C, fair, R, nlinks; /* resources: nlinks link slots (a <= b), then P NICs out, then P in */
  double *cap;               /* R: bandwidth of each resource, bits/ns */
  int64_t *free_at;          /* fifo: R */
  profile *prof;             /* fair: R, earlier batches */
  profile *rec;              /* fair: R, this batch */
  /* scratch */
  flow *f;
  int fcap;
  int *order, *active, *unfixed, *touched, *prev, *mark, *sat, *cnt;
  int *ucnt, *upos, *utouch; /* run_common(): R each, flows in flight per resource, the list */
  long common_events[2];     /* run_common()'s events: [0] in one round, [1] through fill() */
  int *seg;      /* fair: R, the segment of prof[r] at the batch's current time (seg_at) */
  int64_t *nbp;  /* fair: R, when prof[r]'s next segment starts (NO_TIME: none) */
  double *avail; /* fair: R, what earlier batches leave of r in the current segment */
  double *remcap, *wsum, *used;
  int mark_epoch;
  long one_batches;     /* fair batches served by run_one (lbs__net_one_batches) */
  crec **pend;          /* fair: R, the batch whose usage of r is not in prof[r] yet, or NULL */
  ksteps *kst;          /* fair: R, r's flows over pend[r]'s events (or the batch in progress) */
  usteps *ust;          /* fair: R, r's usage at pend[r]'s general events */
  crec *live[LIVE + 1]; /* the crecs some resource still holds, oldest first */
  int nlive;
  crec **dfr;      /* fair: R, a record merged at a batch's start but not written (lazy_start) */
  ksteps *dks;     /* fair: R, its counts */
  usteps *dus;     /* fair: R, its sums */
  int64_t *dt0;    /* fair: R, that batch's start: prof[r] is prune(merge(prof[r], dfr[r]), dt0) */
  int64_t *dend;   /* fair: R, where that merged profile is prof[r] again (lazy_start) */
  int64_t *tfirst; /* fair: R, the batch's first start of a flow on r (batch_start) */
  crec *cur;       /* run_common()'s batch in progress */
  int ev;          /* the index its next event gets */
  long lazy[4];    /* lbs__net_lazy_counts: records merged [0] by a later batch, [1] flushed,
                    * [2] deferred, [3] dropped unwritten */
  /* run_common(): the resources in use whose availability stays their capacity to the batch's
   * end, in classes by capacity, each a count of its resources per number of flows */
  int *ucls;               /* R: 1 + the class of such a resource, 0 for the others */
  double ccap[NCLS];       /* per class: the capacity */
  int ckmax[NCLS];         /* per class: the most flows on one of its resources (0: none in use) */
  int *chist, cstride, nc; /* chist[c x cstride + k]: its resources crossed by k flows */
};

static void lazy_drop_all(lbs_net *n);

static int full_solver; /* lbs__net_full_solver: every fair batch through fill() */

void lbs__net_full_solver(int on) { full_solver = on; }

long lbs__net_one_batches(const lbs_net *n) { return n->one_batches; }

void lbs__net_common_events(const lbs_net *n, long *one_round, long *general) {
  *one_round = n->common_events[0], *general = n->common_events[1];
}

void lbs__net_lazy_counts(const lbs_net *n, long *resolved, long *flushed, long *deferred,
                          long *dropped) {
  *resolved = n->lazy[0], *flushed = n->lazy[1], *deferred = n->lazy[2], *dropped = n->lazy[3];
}

static int link_slot(const lbs_net *n, int a, int b) {
  if (a > b) {
    int t = a;
    a = b, b = t;
  }
  return (int)((int64_t)a * n->C - (int64_t)a * (a - 1) / 2 + (b - a));
}

void lbs_net_destroy(lbs_net **np) {
  if (!np || !*np) return;
  lbs_net *n = *np;
  for (int r = 0; n->prof && r < n->R; r++) free(n->prof[r].t), free(n->prof[r].u);
  for (int r = 0; n->rec && r < n->R; r++) free(n->rec[r].t), free(n->rec[r].u);
  if (n->pend) lazy_drop_all(n);
  for (int r = 0; n->kst && r < n->R; r++) free(n->kst[r].e), free(n->kst[r].k);
  for (int r = 0; n->ust && r < n->R; r++) free(n->ust[r].e), free(n->ust[r].u);
  for (int r = 0; n->dks && r < n->R; r++) free(n->dks[r].e), free(n->dks[r].k);
  for (int r = 0; n->dus && r < n->R; r++) free(n->dus[r].e), free(n->dus[r].u);
  free(n->pend), free(n->kst), free(n->ust), free(n->ucls);
  free(n->dfr), free(n->dks), free(n->dus), free(n->dt0), free(n->dend), free(n->tfirst);
  free(n->cap), free(n->free_at), free(n->prof), free(n->rec), free(n->f), free(n->order),
      free(n->active), free(n->unfixed), free(n->seg), free(n->nbp), free(n->avail);
  free(n->ucnt), free(n->upos), free(n->utouch);
  free(n->touched), free(n->prev), free(n->mark), free(n->sat), free(n->cnt), free(n->remcap),
      free(n->wsum), free(n->used);
  free(n);
  *np = NULL;
}

lbs_err lbs_net_create(const lbs_grid *g, lbs_net **out) {
  *out = NULL;
  lbs_net *n = calloc(1, sizeof *n);
  if (!n) return lbs_fail(LBS_NOMEM, "network");
  n->g = g;
  n->P = lbs_grid_procs(g);
  n->C = lbs_grid_nclusters(g);
  n->fair = lbs_grid_sharing(g) == LBS_SHARING_FAIR;
  int64_t nl = (int64_t)n->C * (n->C + 1) / 2, R = nl + 2 * (int64_t)n->P;
  if (R > (1 << 30)) {
    lbs_net_destroy(&n);
    return lbs_fail(LBS_RANGE,
                    "network: %d clusters and %d processors are too many links to follow", n->C,
                    n->P);
  }
  n->nlinks = (int)nl;
  n->R = (int)R;
  size_t Rz = (size_t)R + 1;
  n->cap = calloc(Rz, sizeof *n->cap);
  n->free_at = calloc(Rz, sizeof *n->free_at);
  n->mark = calloc(Rz, sizeof *n->mark);
  n->sat = calloc(Rz, sizeof *n->sat);
  n->cnt = calloc(Rz, sizeof *n->cnt);
  n->remcap = calloc(Rz, sizeof *n->remcap);
  n->wsum = calloc(Rz, sizeof *n->wsum);
  n->used = calloc(Rz, sizeof *n->used);
  n->touched = calloc(Rz, sizeof *n->touched);
  n->prev = calloc(Rz, sizeof *n->prev);
  n->seg = calloc(Rz, sizeof *n->seg);
  n->nbp = calloc(Rz, sizeof *n->nbp);
  n->ucnt = calloc(Rz, sizeof *n->ucnt);
  n->upos = calloc(Rz, sizeof *n->upos);
  n->utouch = calloc(Rz, sizeof *n->utouch);
  n->ucls = calloc(Rz, sizeof *n->ucls);
  n->avail = calloc(Rz, sizeof *n->avail);
  if (n->fair) {
    n->prof = calloc(Rz, sizeof *n->prof);
    n->rec = calloc(Rz, sizeof *n->rec);
    n->pend = calloc(Rz, sizeof *n->pend);
    n->kst = calloc(Rz, sizeof *n->kst);
    n->ust = calloc(Rz, sizeof *n->ust);
    n->dfr = calloc(Rz, sizeof *n->dfr);
    n->dks = calloc(Rz, sizeof *n->dks);
    n->dus = calloc(Rz, sizeof *n->dus);
    n->dt0 = calloc(Rz, sizeof *n->dt0);
    n->dend = calloc(Rz, sizeof *n->dend);
    n->tfirst = calloc(Rz, sizeof *n->tfirst);
  }
  if (!n->cap || !n->free_at || !n->mark || !n->sat || !n->cnt || !n->remcap || !n->wsum ||
      !n->used || !n->touched || !n->prev || !n->seg || !n->nbp || !n->avail || !n->ucnt ||
      !n->upos || !n->utouch || !n->ucls ||
      (n->fair && (!n->prof || !n->rec || !n->pend || !n->kst || !n->ust || !n->dfr || !n->dks ||
                   !n->dus || !n->dt0 || !n->dend || !n->tfirst))) {
    lbs_net_destroy(&n);
    return lbs_fail(LBS_NOMEM, "network state for %d clusters and %d processors",
                    lbs_grid_nclusters(g), lbs_grid_procs(g));
  }
  lbs_net_relink(n);
  for (int p = 0; p < n->P; p++)
    n->cap[n->nlinks + p] = n->cap[n->nlinks + n->P + p] = lbs_grid_nic_gbps(g, p);
  *out = n;
  return LBS_OK;
}

void lbs_net_relink(lbs_net *n) {
  for (int a = 0; a < n->C; a++)
    for (int b = a; b < n->C; b++) {
      lbs_link l = lbs_grid_link(n->g, a, b);
      n->cap[link_slot(n, a, b)] = l.shared ? l.bw_gbps : 0;
    }
}

void lbs_net_reset(lbs_net *n) {
  memset(n->free_at, 0, (size_t)n->R * sizeof *n->free_at);
  for (int r = 0; n->prof && r < n->R; r++) n->prof[r].n = 0;
  if (n->pend) lazy_drop_all(n);
}

/* Whole ns a flow at rate needs for rem bits: rounded up, with slack for float arithmetic on
 * exact values (16 bits at 0.5 bits/ns are 32 ns, not 33). */
static int64_t ns_for(double rem, double rate) {
  double d = rem / rate * (1 - REL);
  if (!(d > 0)) return 0;
  d = ceil(d);
  return d < (double)NS_MAX ? (int64_t)d : NS_MAX;
}

static int64_t add_ns(int64_t a, int64_t b) { return a > NS_MAX - b ? NS_MAX : a + b; }

/* The flow of transfer i: its resources, bound and weight. */
static void make_flow(const lbs_net *n, const lbs_transfer *t, int i, flow *f) {
  int a = lbs_grid_proc_cluster(n->g, t->p), b = lbs_grid_proc_cluster(n->g, t->q);
  lbs_link l = lbs_grid_link(n->g, a, b);
  memset(f, 0, sizeof *f);
  f->idx = i;
  f->act = add_ns(t->ready, l.lat_ns);
  f->rem = t->bytes > 0 ? t->bytes * 8.0 : 0;
  f->bound = l.bw_gbps;
  f->w = 1.0 / (l.lat_ns > 0 ? (double)l.lat_ns : 1e9);
  if (l.shared) f->res[f->nres++] = link_slot(n, a, b);
  if (n->cap[n->nlinks + t->p] > 0) f->res[f->nres++] = n->nlinks + t->p;
  if (n->cap[n->nlinks + n->P + t->q] > 0) f->res[f->nres++] = n->nlinks + n->P + t->q;
}

static lbs_err grow(lbs_net *n, int nx) {
  if (nx <= n->fcap) return LBS_OK;
  int c = nx + nx / 2 + 16;
  flow *f = realloc(n->f, (size_t)c * sizeof *f);
  if (f) n->f = f;
  int *o = realloc(n->order, (size_t)c * sizeof *o);
  if (o) n->order = o;
  int *a = realloc(n->active, (size_t)c * sizeof *a);
  if (a) n->active = a;
  int *u = realloc(n->unfixed, (size_t)c * sizeof *u);
  if (u) n->unfixed = u;
  if (!f || !o || !a || !u) return lbs_fail(LBS_NOMEM, "network: %d transfers", nx);
  n->fcap = c;
  return LBS_OK;
}

/* Orders flows by (activation time, index), transfers by (ready time, index). */
static int by_act(const void *pa, const void *pb, void *arg) {
  const flow *base = arg, *a = &base[*(const int *)pa], *b = &base[*(const int *)pb];
  if (a->act != b->act) return a->act < b->act ? -1 : 1;
  return (a->idx > b->idx) - (a->idx < b->idx);
}
static int by_ready(const void *pa, const void *pb, void *arg) {
  const lbs_transfer *xs = arg;
  int i = *(const int *)pa, j = *(const int *)pb;
  if (xs[i].ready != xs[j].ready) return xs[i].ready < xs[j].ready ? -1 : 1;
  return (i > j) - (i < j);
}

/* n->order: the batch's nf flows by (activation time, index), as qsort_r with by_act orders them,
 * without sorting every flow. A halo's flows come in (sender, receiver) order, a sender's all
 * ready at once: runs of consecutive flows with one activation time. Runs are index ranges that
 * do not overlap, so sorting their first flows by_act, then writing each run out whole, is that
 * order (runs of one time keep the order of their indices); about one run per sender, not per
 * flow. n->active holds the runs meanwhile (run_fair() fills it afresh). */
static void sort_by_act(lbs_net *n, int nf) {
  const flow *f = n->f;
  int nr = 0;
  for (int k = 0; k < nf; k++)
    if (k == 0 || f[k].act != f[k - 1].act) n->active[nr++] = k;
  int sorted = 1; /* often already in order (bsp, or a batch with one ready time) */
  for (int i = 1; i < nr && sorted; i++) sorted = f[n->active[i]].act > f[n->active[i - 1]].act;
  if (!sorted) qsort_r(n->active, (size_t)nr, sizeof *n->active, by_act, n->f);
  int o = 0;
  for (int i = 0; i < nr; i++) {
    int k = n->active[i];
    do n->order[o++] = k++;
    while (k < nf && f[k].act == f[k - 1].act);
  }
}

/* ---------------------------------------------------------------- fifo */

static lbs_err run_fifo(lbs_net *n, lbs_transfer *xs, int nx) {
  lbs_err e = grow(n, nx);
  if (e) return e;
  for (int i = 0; i < nx; i++) n->order[i] = i;
  qsort_r(n->order, (size_t)nx, sizeof *n->order, by_ready, xs);
  for (int k = 0; k < nx; k++) {
    lbs_transfer *t = &xs[n->order[k]];
    flow f;
    make_flow(n, t, n->order[k], &f);
    double bw = f.bound;
    int64_t start = t->ready;
    for (int j = 0; j < f.nres; j++) {
      if (n->free_at[f.res[j]] > start) start = n->free_at[f.res[j]];
      if (n->cap[f.res[j]] < bw) bw = n->cap[f.res[j]];
    }
    double tx = ceil(f.rem / bw);
    int64_t done = add_ns(start, tx < (double)NS_MAX ? (int64_t)tx : NS_MAX);
    for (int j = 0; j < f.nres; j++) n->free_at[f.res[j]] = done;
    t->arrival = add_ns(done, f.act - t->ready);
  }
  return LBS_OK;
}

/* ---------------------------------------------------------------- fair */

static lbs_err prof_push(profile *p, int64_t t, double u) {
  if (p->n && p->t[p->n - 1] == t) { /* the same instant: the later value holds */
    p->u[p->n - 1] = u;
    if (p->n > 1 && p->u[p->n - 2] == u) p->n--;
    return LBS_OK;
  }
  if (p->n ? p->u[p->n - 1] == u : u == 0) return LBS_OK; /* no change */
  if (p->n == p->cap) {
    int c = p->cap ? 2 * p->cap : 8;
    int64_t *nt = realloc(p->t, (size_t)c * sizeof *nt);
    if (nt) p->t = nt;
    double *nu = realloc(p->u, (size_t)c * sizeof *nu);
    if (nu) p->u = nu;
    if (!nt || !nu) return lbs_fail(LBS_NOMEM, "network usage profile");
    p->cap = c;
  }
  p->t[p->n] = t;
  p->u[p->n] = u;
  p->n++;
  return LBS_OK;
}

/* The segment of p holding time t: -1 before the first breakpoint. */
static int prof_seg(const profile *p, int64_t t) {
  int lo = 0, hi = p->n - 1, k = -1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (p->t[mid] <= t)
      k = mid, lo = mid + 1;
    else
      hi = mid - 1;
  }
  return k;
}

/* prof_seg(&n->prof[r], t) for a batch whose times only grow: a cursor per resource, set to -1
 * when the batch starts (after prof_prune) and walked forward, so an event costs O(1) per
 * resource instead of a bisection (the same segment, so the same arithmetic). */
static int seg_at(lbs_net *n, int r, int64_t t) {
  const profile *p = &n->prof[r];
  int k = n->seg[r];
  while (k + 1 < p->n && p->t[k + 1] <= t) k++;
  n->seg[r] = k;
  return k;
}

/* The batch's cache of what earlier batches leave of r at time t (t >= the last t asked):
 * n->avail[r] as fill() computes it, valid until n->nbp[r]. */
static void avail_at(lbs_net *n, int r, int64_t t) {
  if (t < n->nbp[r]) return;
  int s = seg_at(n, r, t);
  const profile *p = &n->prof[r];
  double avail = n->cap[r] - (s >= 0 ? p->u[s] : 0);
  n->avail[r] = avail > n->cap[r] * REL ? avail : 0;
  n->nbp[r] = s + 1 < p->n ? p->t[s + 1] : NO_TIME;
}

/* Drops what ended before t (no later batch starts before it). */
static void prof_prune(profile *p, int64_t t) {
  int k = prof_seg(p, t);
  if (k <= 0) return;
  memmove(p->t, p->t + k, (size_t)(p->n - k) * sizeof *p->t);
  memmove(p->u, p->u + k, (size_t)(p->n - k) * sizeof *p->u);
  p->n -= k;
}

/* prof += rec (both step functions). */
static lbs_err prof_merge(profile *prof, const profile *rec) {
  if (!rec->n) return LBS_OK;
  profile out = {NULL, NULL, 0, 0};
  int i = 0, j = 0;
  double a = 0, b = 0;
  lbs_err e = LBS_OK;
  while (!e && (i < prof->n || j < rec->n)) {
    int64_t t = i < prof->n && (j >= rec->n || prof->t[i] <= rec->t[j]) ? prof->t[i] : rec->t[j];
    while (i < prof->n && prof->t[i] == t) a = prof->u[i++];
    while (j < rec->n && rec->t[j] == t) b = rec->u[j++];
    double u = a + b;
    if (u < 1e-15) u = 0; /* what float leaves of a sum that ended */
    e = prof_push(&out, t, u);
  }
  if (e) {
    free(out.t), free(out.u);
    return e;
  }
  free(prof->t), free(prof->u);
  *prof = out;
  return LBS_OK;
}

/* Rates of the active flows at time now: weighted max-min over what earlier batches left
 * (progressive filling: raise every unfixed flow's rate as lam x its weight until a resource
 * is full or a flow reaches its bound; fix those flows; repeat). The resources the flows
 * cross are listed in n->touched. */
static void fill(lbs_net *n, int na, int64_t now, int *ntouched) {
  int nt = 0;
  if (++n->mark_epoch == 0x7fffffff) {
    memset(n->mark, 0, (size_t)n->R * sizeof *n->mark);
    n->mark_epoch = 1;
  }
  for (int k = 0; k < na; k++) {
    flow *f = &n->f[n->active[k]];
    for (int j = 0; j < f->nres; j++) {
      int r = f->res[j];
      if (n->mark[r] == n->mark_epoch) continue;
      n->mark[r] = n->mark_epoch;
      n->touched[nt++] = r;
      avail_at(n, r, now);
      n->remcap[r] = n->avail[r];
    }
  }
  /* The unfixed flows in active order, compacted after each round: the sums below add the same
   * terms in the same order as a pass over every active flow that skips the fixed ones. */
  memcpy(n->unfixed, n->active, (size_t)na * sizeof *n->unfixed);
  for (int left = na; left > 0;) {
    for (int i = 0; i < nt; i++) n->wsum[n->touched[i]] = 0, n->cnt[n->touched[i]] = 0;
    double lam = INFINITY;
    for (int k = 0; k < left; k++) {
      const flow *f = &n->f[n->unfixed[k]];
      if (f->bound / f->w < lam) lam = f->bound / f->w;
      for (int j = 0; j < f->nres; j++) n->wsum[f->res[j]] += f->w, n->cnt[f->res[j]]++;
    }
    for (int i = 0; i < nt; i++) {
      int r = n->touched[i];
      if (n->cnt[r] && n->remcap[r] / n->wsum[r] < lam) lam = n->remcap[r] / n->wsum[r];
    }
    double thr = lam * (1 + 1e-9);
    for (int i = 0; i < nt; i++) {
      int r = n->touched[i];
      n->sat[r] = n->cnt[r] && n->remcap[r] / n->wsum[r] <= thr;
    }
    int keep = 0;
    for (int k = 0; k < left; k++) {
      flow *f = &n->f[n->unfixed[k]];
      int fix = f->bound / f->w <= thr;
      for (int j = 0; j < f->nres && !fix; j++) fix = n->sat[f->res[j]];
      if (!fix) {
        n->unfixed[keep++] = n->unfixed[k];
        continue;
      }
      f->rate = lam * f->w < f->bound ? lam * f->w : f->bound;
      for (int j = 0; j < f->nres; j++) {
        int r = f->res[j];
        n->remcap[r] = n->remcap[r] > f->rate ? n->remcap[r] - f->rate : 0;
      }
    }
    left = keep;
  }
  *ntouched = nt;
}

/* The batch's flows in n->f (the first *nf), those that share nothing given their arrival at
 * once; *t0 the earliest ready time of the rest. */
static void start_flows(lbs_net *n, lbs_transfer *xs, int nx, int *nf, int64_t *t0) {
  *nf = 0;
  *t0 = NO_TIME;
  for (int i = 0; i < nx; i++) {
    flow *f = &n->f[*nf];
    make_flow(n, &xs[i], i, f);
    if (f->nres == 0) { /* nothing shared: its own bandwidth */
      xs[i].arrival = add_ns(f->act, f->rem > 0 ? ns_for(f->rem, f->bound) : 0);
      continue;
    }
    if (xs[i].ready < *t0) *t0 = xs[i].ready;
    n->order[*nf] = *nf;
    (*nf)++;
  }
}

/* The next event after now: a flow starts (the next in order, at) or ends (each active flow's
 * cand, set here), or an earlier batch's usage of a touched resource changes. */
static int64_t next_event(lbs_net *n, int na, int nt, int64_t now, int64_t at) {
  for (int k = 0; k < na; k++) {
    flow *f = &n->f[n->active[k]];
    f->cand = f->rem <= 0 ? now : f->rate > 0 ? add_ns(now, ns_for(f->rem, f->rate)) : NO_TIME;
    if (f->cand < at) at = f->cand;
  }
  for (int i = 0; i < nt; i++) {
    int64_t t = n->nbp[n->touched[i]]; /* avail_at() in fill() at now */
    if (t < at) at = t;
  }
  return at;
}

/* This batch's usage of its resources from now on, recorded for later batches (a resource used
 * before and idle now records 0); the touched resources become the previous ones. */
static lbs_err record_usage(lbs_net *n, int na, int nt, int *nprev, int64_t now) {
  for (int i = 0; i < *nprev; i++) n->used[n->prev[i]] = 0;
  for (int i = 0; i < nt; i++) n->used[n->touched[i]] = 0;
  for (int k = 0; k < na; k++) {
    const flow *f = &n->f[n->active[k]];
    for (int j = 0; j < f->nres; j++) n->used[f->res[j]] += f->rate;
  }
  lbs_err e = LBS_OK;
  for (int i = 0; !e && i < *nprev; i++)
    e = prof_push(&n->rec[n->prev[i]], now, n->used[n->prev[i]]);
  for (int i = 0; !e && i < nt; i++)
    e = prof_push(&n->rec[n->touched[i]], now, n->used[n->touched[i]]);
  if (e) return e;
  memcpy(n->prev, n->touched,
         (size_t)nt * sizeof *n->prev); /* a resource left idle gets its 0 next time */
  *nprev = nt;
  return LBS_OK;
}

/* Advances the active flows from now to at: those due end there (their arrival), the others
 * carry their remaining bytes on. The number still active. */
static int advance(lbs_net *n, lbs_transfer *xs, int na, int64_t now, int64_t at) {
  double dt = (double)(at - now);
  int keep = 0;
  for (int k = 0; k < na; k++) {
    flow *f = &n->f[n->active[k]];
    if (f->cand <= at) {
      xs[f->idx].arrival = at;
      continue;
    }
    f->rem -= f->rate * dt;
    if (f->rem < 0) f->rem = 0;
    n->active[keep++] = n->active[k];
  }
  return keep;
}

/* The batch ends at now (e: how it went): its usage joins the earlier batches' and the records
 * are cleared, also after an error. */
static lbs_err end_batch(lbs_net *n, int nf, int nprev, int64_t now, lbs_err e) {
  for (int i = 0; !e && i < nprev; i++) e = prof_push(&n->rec[n->prev[i]], now, 0);
  for (int k = 0; !e && k < nf; k++)
    for (int j = 0; !e && j < n->f[k].nres; j++) {
      int r = n->f[k].res[j];
      if (n->rec[r].n) e = prof_merge(&n->prof[r], &n->rec[r]);
      n->rec[r].n = 0;
    }
  for (int k = 0; k < nf; k++) /* after an error */
    for (int j = 0; j < n->f[k].nres; j++) n->rec[n->f[k].res[j]].n = 0;
  return e;
}

/* ------------------------------------------------ fair, one resource shared equally */

/* When every flow of a batch crosses one and the same resource with the same weight and bound
 * (one shared cluster, a shared link without NICs), progressive filling fixes every flow in its
 * first round at one rate, rate(na, what earlier batches left): run_one below computes that rate
 * as fill() does, term for term, without looking at the flows (the weights' sum kept per count,
 * the usage sum by sum_repeated()). Every flow in flight then loses the same rate x dt bits at
 * each event; x - d is monotone in x, so the flows keep their order by bits left, and the ones
 * that end (cand <= at, cand monotone in rem) are the ones with the fewest bits. The flows sit
 * sorted by bits left, fewest first: the next end is read off the first, the flows that end
 * leave from there, and the flows that start at an event are put in place together, each by
 * bisection in its own binade, the others moved once, on the shorter sides (one_insert_all). Each
 * finish time is fixed by the chain of roundings of rem -= rate x dt, one per event (a service
 * clock, bits served since the flow started, would round differently), so that chain is kept,
 * but not flow by flow: in a binade of spacing u, v - d rounds to v - k u (k u the multiple of u
 * nearest d) for every v that stays in the binade, unless d is halfway between two multiples.
 * Each binade (a slot) counts the spacings its flows lost; a flow's bits left are its anchor
 * less those (exact), and an event costs O(binades). A flow that would leave its binade, a
 * halfway d, and 0 or extreme values are stepped alone (one_split). */
#define EOFF 1040        /* binade slot of a value in [2^(e-1), 2^e): e + EOFF */
#define NSLOT (2 * EOFF) /* slot 0: 0 and tiny values, NSLOT - 1: huge ones, both kept as is */
typedef struct {
  int *id;           /* per place: the flows in flight at [h, h + na), fewest bits left first */
  double *b;         /* per flow (n->f): its bits left at its anchor */
  int64_t *a;        /* per flow: its slot's count of spacings taken off (c) at its anchor */
  int *e;            /* per flow: its slot */
  double *ws;        /* ws[k]: the weights of k flows summed one by one, as fill() sums them */
  int64_t *c;        /* NSLOT: per slot, the spacings taken off its flows at every event */
  int *cnt;          /* NSLOT: flows in each slot */
  int *ind;          /* scratch: flows stepped one by one at an event, or starting at one */
  int *pos;          /* scratch: the places of flows starting at an event (one_insert_all) */
  double *nv;        /* scratch: their new bits left */
  int64_t *gk;       /* scratch, NSLOT: per slot, the spacings an event takes off (-1: none) */
  int h, na, lo, hi; /* the first place, flows in flight; the slots that may hold some */
  int cap;           /* places in id (lbs_netsim's, which moves its flows down when full) */
} one_state;

/* The resource every flow of the batch crosses alone, with equal weights and bounds; -1 when
 * the batch is not of that kind. */
static int one_resource(const lbs_net *n, int nf) {
  const flow *f0 = &n->f[0];
  if (full_solver || f0->nres != 1) return -1;
  for (int k = 1; k < nf; k++) {
    const flow *f = &n->f[k];
    if (f->nres != 1 || f->res[0] != f0->res[0] || f->w != f0->w || f->bound != f0->bound)
      return -1;
  }
  return f0->res[0];
}

/* fill()'s rate for na flows of weight w and bound b on resource r at time now. */
static double one_rate(const lbs_net *n, const one_state *s, int r, double w, double b,
                       int64_t now) {
  const profile *p = &n->prof[r];
  int k = prof_seg(p, now);
  double avail = n->cap[r] - (k >= 0 ? p->u[k] : 0);
  double remcap = avail > n->cap[r] * REL ? avail : 0;
  double lam = INFINITY;
  if (b / w < lam) lam = b / w;
  if (remcap / s->ws[s->na] < lam) lam = remcap / s->ws[s->na];
  return lam * w < b ? lam * w : b;
}

/* next_event()'s cand of a flow with rem bits left at rate. */
static int64_t one_cand(double rem, double rate, int64_t now) {
  return rem <= 0 ? now : rate > 0 ? add_ns(now, ns_for(rem, rate)) : NO_TIME;
}

/* The slot of v bits left: its binade, where float subtraction has one spacing (0x1p-53 of
 * the binade's top), or 0 / NSLOT - 1 for the values outside (kept exactly, stepped alone). */
static int slot_of(double v) {
  if (!(v >= 0x1p-900)) return 0;
  if (!(v < 0x1p1000)) return NSLOT - 1;
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  return (int)((bits >> 52) & 0x7ff) - 1022 + EOFF; /* frexp's exponent, without the call */
}
static int alone(int e) { return e == 0 || e == NSLOT - 1; }
static double spacing(int e) { /* 2^(e - EOFF - 53), built from its bits */
  uint64_t bits = (uint64_t)(e - EOFF - 53 + 1023) << 52;
  double u;
  memcpy(&u, &bits, sizeof u);
  return u;
}

/* 1 / spacing(e), built from its bits: 2^(EOFF + 53 - e), for the slots that are not alone */
static double inv_spacing(int e) {
  uint64_t bits = (uint64_t)(EOFF + 53 - e + 1023) << 52;
  double u;
  memcpy(&u, &bits, sizeof u);
  return u;
}

/* 0 + x + x + ... (k times), rounded after each addition as a loop rounds it, in about
 * 2 log2(k) steps (record_usage()'s sum of k equal rates). While the sum s stays in one binade
 * [top / 2, top) of spacing u, s + x rounds to s + d, d the multiple of u nearest x, the same d
 * at every step (s is a multiple of u) unless x lies exactly halfway between two multiples: in
 * units of u (s = S u, d = D u, integers below 2^53), a step from S with S + D <= 2^53 - 1 lands
 * on S + D exactly (s + x lies below top - u / 2), so m = (2^53 - 1 - S) / D steps add m x d
 * exactly, and the next one leaves the binade: two additions a binade. Where x is halfway, the
 * additions are made one by one. */
static double sum_repeated(double x, int k) {
  double s = 0;
  if (x == 0) return s; /* a resource that earlier batches fill: 0 x k */
  while (k > 0) {
    s += x, k--; /* one addition as the loop makes it */
    if (!(x > 0) || !(s < 0x1p1000) || s < 0x1p-900 || k < 2) continue;
    double u = spacing(slot_of(s)), d = (s + x) - s; /* s in [top / 2, top) */
    if (x - d == u / 2 || d - x == u / 2) continue;  /* halfway: ties go to even, s's parity */
    if (d == 0) return s;                            /* x < u / 2: s never moves again */
    double iu = inv_spacing(slot_of(s));             /* x iu is / u (powers of 2) */
    int64_t m = ((INT64_C(1) << 53) - 1 - (int64_t)(s * iu)) / (int64_t)(d * iu); /* exact */
    if (m > k) m = k;
    if (m < 1) continue; /* s + x leaves the binade */
    s += (double)m * d, k -= (int)m;
  }
  return s;
}

/* The bits left of the flow at place i: exact, as the flow has stayed in its binade. */
static double one_val(const one_state *s, int i) {
  int k = s->id[i], e = s->e[k];
  return alone(e) ? s->b[k] : s->b[k] - (double)(s->c[e] - s->a[k]) * spacing(e);
}

/* Anchors the flow at place i with v bits left in v's slot. */
static inline void one_anchor(one_state *s, int i, double v) {
  int e = slot_of(v);
  if (!s->cnt[e]) s->c[e] = 0; /* an empty slot starts again (its count stays small) */
  int k = s->id[i];
  s->e[k] = e, s->b[k] = v, s->a[k] = s->c[e], s->cnt[e]++;
  if (e < s->lo) s->lo = e;
  if (e > s->hi) s->hi = e;
}

/* Orders flows by (bits left, index): the flows that start at one event have one activation
 * time, so by their index is by their order. */
static int by_rem_idx(const void *pa, const void *pb, void *arg) {
  const flow *base = arg;
  int i = *(const int *)pa, j = *(const int *)pb;
  if (base[i].rem != base[j].rem) return base[i].rem < base[j].rem ? -1 : 1;
  return (i > j) - (i < j);
}

/* The k flows ids[] of fl that start at one event, by bits left (stable: a tie keeps their
 * order) in s->ind, and in s->pos each one's place among the flows in flight: the first whose
 * bits left are above its own (putting them in one by one, in order, each by bisection, would
 * put each there, and the later of two ties after the earlier). */
static void one_places(one_state *s, const int *ids, int k, const flow *fl) {
  int *nw = s->ind;
  if (k > 16) { /* a batch's first event: many at once */
    memcpy(nw, ids, (size_t)k * sizeof *nw);
    qsort_r(nw, (size_t)k, sizeof *nw, by_rem_idx, (void *)fl);
  }
  for (int i = 0; k <= 16 && i < k; i++) { /* insertion sort: a sender's few flows */
    int x = ids[i], j = i;
    double v = fl[x].rem;
    for (; j > 0 && fl[nw[j - 1]].rem > v; j--) nw[j] = nw[j - 1];
    nw[j] = x;
  }
  /* The flows of a slot hold consecutive places (slot_of() grows with the value): a flow's
   * place lies among those of its own slot, whose values one_val() gives with e known. */
  int lo = s->h, e = s->lo, start = s->h; /* start: the first place of slot e */
  for (int i = 0; i < k; i++) {           /* places and slots only grow along the sorted flows */
    double v = fl[nw[i]].rem;
    int ev = slot_of(v);
    for (; e < ev && e <= s->hi; e++) start += s->cnt[e];
    if (ev > s->hi || ev < e) { /* above every slot in use, or below (e stays s->lo) */
      if (ev > s->hi) lo = start;
      s->pos[i] = lo;
      continue;
    }
    if (lo < start) lo = start;
    double u = spacing(e);
    for (int hi = start + s->cnt[e]; lo < hi;) {
      int mid = lo + (hi - lo) / 2, f = s->id[mid];
      if ((alone(e) ? s->b[f] : s->b[f] - (double)(s->c[e] - s->a[f]) * u) <= v)
        lo = mid + 1;
      else
        hi = mid;
    }
    s->pos[i] = lo;
  }
}

/* Puts the k flows ids[] of fl, which start at one event, in flight at their places by bits
 * left, moving every flow in flight at most once: the first j of them (by bits left) go in
 * from the front, the flows below them moving down, the others from the end, the flows above
 * them moving up; j the cheapest split where the front has room. A sender's few flows thus
 * cost one move, not one each. Places stay below nf + 1 in a batch: the end moves up only by
 * flows put in. */
static void one_insert_all(one_state *s, const int *ids, int k, const flow *fl) {
  int *nw = s->ind, *pos = s->pos, *id = s->id, h = s->h, end = s->h + s->na;
  one_places(s, ids, k, fl);
  int j = 0;
  int64_t best = end - pos[0];
  for (int i = 1; i <= k && i <= h; i++) { /* i go in from the front */
    int64_t c = (pos[i - 1] - h) + (i < k ? end - pos[i] : 0);
    if (c < best) best = c, j = i;
  }
  for (int i = 0; i < j; i++) { /* [pos[i - 1], pos[i]) down by j - i, flow i below it */
    int b0 = i ? pos[i - 1] + (j - i + 1) : h; /* pos[i - 1] has moved */
    memmove(id + b0 - (j - i), id + b0, (size_t)(pos[i] - b0) * sizeof *id);
    pos[i] -= j - i;
    id[pos[i]] = nw[i];
  }
  for (int i = k - 1; i >= j; i--) { /* [pos[i], pos[i + 1]) up by i - j + 1, flow i below it */
    int b1 = i + 1 < k ? pos[i + 1] - (i + 1 - j) : end; /* pos[i + 1] has moved */
    memmove(id + pos[i] + (i - j + 1), id + pos[i], (size_t)(b1 - pos[i]) * sizeof *id);
    pos[i] += i - j;
    id[pos[i]] = nw[i];
  }
  s->h -= j, s->na += k;
  for (int i = 0; i < k; i++) one_anchor(s, pos[i], fl[nw[i]].rem);
}

/* The next event after now (next_event()): at, the next start, or the last flow's end, or a
 * change of what earlier batches use of r. */
static int64_t one_next(const lbs_net *n, const one_state *s, int r, double rate, int64_t now,
                        int64_t at) {
  if (!s->na) return at;
  int64_t c = one_cand(one_val(s, s->h), rate, now);
  if (c < at) at = c;
  const profile *p = &n->prof[r];
  int k = prof_seg(p, now);
  if (k + 1 < p->n && p->t[k + 1] < at) at = p->t[k + 1];
  return at;
}

/* The flows of slot e (places [lo, hi)) that cannot lose d bits as a group: listed in s->ind
 * [0, n) with their bits left after the event in s->nv (as advance(): v - d, not below 0), the
 * others get s->gk[e] spacings off. In a binade of spacing u, v - d rounds to v - k u (k u the
 * multiple of u nearest d) for every v with v - k u above the binade's foot: unless d lies
 * halfway between two multiples, or v - d would leave the binade. Returns n. */
static int one_split(one_state *s, int e, int lo, int hi, double d) {
  int i = lo, ni = 0, *ind = s->ind;
  const int *id = s->id;
  const double *b = s->b;
  const int64_t *a = s->a;
  double *nv = s->nv;
  s->gk[e] = -1;
  if (!alone(e)) {
    /* u and 1 / u are powers of 2 (u from 2^-952 up): x iu is / u, rounding and all, without
     * a division's wait */
    double u = spacing(e), iu = inv_spacing(e), q = d * iu, fq = floor(q);
    if (q < 0x1p52 && q - fq != 0.5) {
      int64_t k = (int64_t)fq + (q - fq > 0.5), c = s->c[e];
      for (; i < hi; i++) { /* the smallest leave first; one_val() with e and u known */
        double v = b[id[i]] - (double)(c - a[id[i]]) * u;
        if (v * iu - (double)k >= 0x1p52 + 1) break;
        ind[ni] = i, nv[ni++] = v - d < 0 ? 0 : v - d;
      }
      if (i < hi && c > INT64_C(1) << 61) { /* keep the counts far from overflowing */
        for (int j = lo; j < hi; j++) s->b[s->id[j]] = one_val(s, j), s->a[s->id[j]] = 0;
        s->c[e] = 0;
      }
      if (i < hi) s->gk[e] = k;
      return ni;
    }
  }
  for (; i < hi; i++) { /* halfway, or all leave: one by one */
    double v = one_val(s, i);
    ind[ni] = i, nv[ni++] = v - d < 0 ? 0 : v - d;
  }
  return ni;
}

/* advance()'s step for the flows in flight: each loses d bits (rate x dt), with the roundings
 * of one subtraction per flow: a slot's flows at once where they can, the others one by one. */
static void one_step(one_state *s, double d) {
  if (!s->na) {
    s->lo = NSLOT, s->hi = -1;
    return;
  }
  /* The slots from the smallest values, the first. A flow stepped alone lands in its slot or a
   * lower one (v - d <= v), whose count c is final by then: it is anchored at once, as after
   * every slot's step (an anchor in a slot above would come too early; there is none). */
  for (int e = s->lo, hi = s->hi, lo = s->h; e <= hi; e++) {
    int m = s->cnt[e];
    if (!m) continue;
    int left = one_split(s, e, lo, lo + m, d);
    s->cnt[e] -= left; /* those leave it, for now */
    if (s->cnt[e] && s->gk[e] >= 0) s->c[e] += s->gk[e];
    for (int j = 0; j < left; j++) one_anchor(s, s->ind[j], s->nv[j]);
    lo += m;
  }
  while (!s->cnt[s->lo]) s->lo++; /* the slots in use only: 0 comes and goes */
  while (!s->cnt[s->hi]) s->hi--;
}

/* advance(): the flows due end at at, the others lose rate x (at - now) bits (one_step). */
static void one_advance(one_state *s, lbs_transfer *xs, const lbs_net *n, double rate, int64_t now,
                        int64_t at) {
  while (s->na && one_cand(one_val(s, s->h), rate, now) <= at) {
    s->cnt[s->e[s->id[s->h]]]--;
    xs[n->f[s->id[s->h]].idx].arrival = at;
    s->h++, s->na--;
  }
  one_step(s, rate * (double)(at - now)); /* advance()'s rate * dt */
}

/* The one-resource state for nf flows of weight w (NULL, after the message, without memory). */
static lbs_err one_alloc(one_state *s, int nf, double w) {
  memset(s, 0, sizeof *s);
  size_t z = (size_t)nf + 1;
  s->b = malloc(z * sizeof *s->b), s->a = malloc(z * sizeof *s->a);
  s->e = malloc(z * sizeof *s->e), s->id = malloc(z * sizeof *s->id);
  s->ws = malloc(z * sizeof *s->ws), s->ind = malloc(z * sizeof *s->ind);
  s->nv = malloc(z * sizeof *s->nv), s->gk = malloc(NSLOT * sizeof *s->gk);
  s->pos = malloc(z * sizeof *s->pos);
  s->c = calloc(NSLOT, sizeof *s->c), s->cnt = calloc(NSLOT, sizeof *s->cnt);
  if (!s->b || !s->a || !s->e || !s->id || !s->ws || !s->ind || !s->nv || !s->gk || !s->pos ||
      !s->c || !s->cnt)
    return lbs_fail(LBS_NOMEM, "network: %d transfers", nf);
  s->ws[0] = 0;
  for (int k = 1; k <= nf; k++) s->ws[k] = s->ws[k - 1] + w;
  s->lo = NSLOT, s->hi = -1, s->cap = nf + 1;
  return LBS_OK;
}

static void one_free(one_state *s) {
  free(s->b), free(s->a), free(s->e), free(s->id), free(s->ws), free(s->ind), free(s->nv);
  free(s->gk), free(s->pos), free(s->c), free(s->cnt);
}

/* run_fair()'s loop for a batch on one resource r (one_resource()); *nprev and *now as
 * end_batch() wants them. */
static lbs_err run_one(lbs_net *n, lbs_transfer *xs, int nf, int r, int *nprev, int64_t *now) {
  one_state s;
  double w = n->f[0].w, b = n->f[0].bound;
  lbs_err e = one_alloc(&s, nf, w);
  n->prev[0] = r;
  int next = 0;
  *now = n->f[n->order[0]].act;
  while (!e && (next < nf || s.na > 0)) {
    int from = next;
    while (next < nf && n->f[n->order[next]].act <= *now) next++;
    if (next > from) one_insert_all(&s, n->order + from, next - from, n->f);
    double rate = s.na ? one_rate(n, &s, r, w, b, *now) : 0;
    int64_t at = one_next(n, &s, r, rate, *now, next < nf ? n->f[n->order[next]].act : NO_TIME);
    if (at == NO_TIME) {
      e = lbs_fail(LBS_RANGE, "network: %d transfers can never finish", s.na);
      break;
    }
    double used = s.na ? sum_repeated(rate, s.na) : 0;
    if (*nprev) e = prof_push(&n->rec[r], *now, used);
    if (!e && s.na) e = prof_push(&n->rec[r], *now, used);
    *nprev = s.na > 0;
    if (e) break;
    one_advance(&s, xs, n, rate, *now, at);
    *now = at;
  }
  one_free(&s);
  return e;
}

/* ------------------------------------- fair, run_common()'s usage kept for later batches */

/* What run_common() would push to rec[r] at each event (record_usage(): the usage of r while
 * flows cross it, 0 at the first event it is idle) is, at a one-round event, its k flows x
 * the one rate, summed as run_common() sums them (usum). So a run_common() batch records its
 * events once (crec: time and rate, O(1) an event), per resource its count of flows (ksteps,
 * O(1) a start or end) and the sums of its general events (usteps), instead of a push per
 * resource in use per event. That usage joins prof[r] when a later batch crosses r, with the
 * later batch's prune (lazy_resolve): prune(merge(prof[r], rec[r]), t0), the same profile as
 * end_batch()'s merge then run_fair()'s prune, computed from the few events about t0 (the
 * merged profile's last change at or before t0, then its changes after t0) instead of every
 * event of the batch. The value of that profile is the same function (merged value: prof's
 * plus the batch's, clamped as prof_merge() clamps it), and its breakpoints are where it
 * changes, as prof_push() keeps them; so every reader sees the same numbers. */

/* 0 + x + x ... (k times), as run_common() sums a resource's usage. */
static double usum(double x, int k) {
  double u = 0;
  if (k >= 16) return sum_repeated(x, k);
  for (int j = 0; j < k; j++) u += x; /* the loop itself: a NIC has few flows */
  return u;
}

/* The last entry of s at or before event e; -1 when none. */
static int ks_find(const ksteps *s, int e) {
  int lo = 0, hi = s->n - 1, k = -1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (s->e[mid] <= e)
      k = mid, lo = mid + 1;
    else
      hi = mid - 1;
  }
  return k;
}

/* From event e on, k flows cross the resource (a later change at the same event holds). */
static lbs_err ks_set(ksteps *s, int e, int k) {
  if (s->n && s->e[s->n - 1] == e) {
    s->k[s->n - 1] = k;
    if (s->n > 1 ? s->k[s->n - 2] == k : k == 0) s->n--;
    return LBS_OK;
  }
  if (s->n ? s->k[s->n - 1] == k : k == 0) return LBS_OK;
  if (s->n == s->cap) {
    int c = s->cap ? 2 * s->cap : 8;
    int *ne = realloc(s->e, (size_t)c * sizeof *ne);
    if (ne) s->e = ne;
    int *nk = realloc(s->k, (size_t)c * sizeof *nk);
    if (nk) s->k = nk;
    if (!ne || !nk) return lbs_fail(LBS_NOMEM, "network usage record");
    s->cap = c;
  }
  s->e[s->n] = e, s->k[s->n] = k, s->n++;
  return LBS_OK;
}

static lbs_err us_add(usteps *s, int e, double u) {
  if (s->n == s->cap) {
    int c = s->cap ? 2 * s->cap : 8;
    int *ne = realloc(s->e, (size_t)c * sizeof *ne);
    if (ne) s->e = ne;
    double *nu = realloc(s->u, (size_t)c * sizeof *nu);
    if (nu) s->u = nu;
    if (!ne || !nu) return lbs_fail(LBS_NOMEM, "network usage record");
    s->cap = c;
  }
  s->e[s->n] = e, s->u[s->n] = u, s->n++;
  return LBS_OK;
}

/* Appends an event at t where every flow runs at rate (0: a general event). */
static lbs_err crec_event(crec *c, int64_t t, double rate) {
  if (c->ne + 1 >= c->cap) {
    int cap = c->cap ? 2 * c->cap : 64;
    int64_t *nt = realloc(c->t, (size_t)cap * sizeof *nt);
    if (nt) c->t = nt;
    double *nr = realloc(c->rate, (size_t)cap * sizeof *nr);
    if (nr) c->rate = nr;
    int *nz = realloc(c->nz, (size_t)cap * sizeof *nz);
    if (nz) c->nz = nz;
    if (!nt || !nr || !nz) return lbs_fail(LBS_NOMEM, "network usage record");
    if (!c->cap) c->nz[0] = 0;
    c->cap = cap;
  }
  c->t[c->ne] = t, c->rate[c->ne] = rate;
  c->nz[c->ne + 1] = c->nz[c->ne] + (rate != 0);
  c->ne++;
  return LBS_OK;
}

static void crec_free(crec *c) {
  if (c) free(c->t), free(c->rate), free(c->nz);
  free(c);
}

/* The last event of c at or before t; -1 when none. */
static int crec_at(const crec *c, int64_t t) {
  int lo = 0, hi = c->ne - 1, k = -1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (c->t[mid] <= t)
      k = mid, lo = mid + 1;
    else
      hi = mid - 1;
  }
  return k;
}

/* rec[r]'s value at t, had pend[r]'s batch pushed it: the last push at or before t. */
static double crec_val(const lbs_net *n, int r, int64_t t) {
  const crec *c = n->pend[r];
  int e = crec_at(c, t);
  int i = e >= 0 ? ks_find(&n->kst[r], e) : -1;
  if (i < 0 || n->kst[r].k[i] == 0) return 0;
  const usteps *u = &n->ust[r];
  int lo = 0, hi = u->n - 1; /* a general event's own sum */
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (u->e[mid] == e) return u->u[mid];
    if (u->e[mid] < e)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return usum(c->rate[e], n->kst[r].k[i]);
}

/* merge(prof[r], rec[r])'s value at t (prof_merge(): older + newer, clamped). */
static double lazy_sum(const lbs_net *n, int r, int64_t t) {
  const profile *p = &n->prof[r];
  int s = prof_seg(p, t);
  double u = (s >= 0 ? p->u[s] : 0) + crec_val(n, r, t);
  return u < 1e-15 ? 0 : u;
}

/* The last event at or before e where the batch pushed r's usage (r in use, or idle after
 * use); -1 when none. */
static int rec_prev(const lbs_net *n, int r, int e) {
  const ksteps *s = &n->kst[r];
  int i = e >= 0 ? ks_find(s, e) : -1;
  if (i < 0) return -1;
  return s->k[i] > 0 ? e : s->e[i]; /* k 0: idle from e[i] on, the event that pushed 0 */
}

/* Whether rec[r] would hold anything: some push was not 0 (prof_merge() skips an empty rec). */
static int lazy_nonempty(const lbs_net *n, int r) {
  const ksteps *s = &n->kst[r];
  const usteps *u = &n->ust[r];
  const crec *c = n->pend[r];
  for (int j = 0; j < u->n; j++)
    if (u->u[j] != 0) return 1;
  for (int i = 0; i < s->n; i++) /* an event with flows on r and a rate not 0 */
    if (s->k[i] > 0 && c->nz[i + 1 < s->n ? s->e[i + 1] : c->ne] > c->nz[s->e[i]]) return 1;
  return 0;
}

/* A walk over r's pushes in a crec, in event order: ki the last count at or before the event,
 * ui the first general event's sum at or after it. */
typedef struct {
  const ksteps *ks;
  const usteps *us;
  const crec *c;
  int ki, ui;
} rec_walk;

/* The first event at or after e where the batch pushed r's usage (rec_next()); -1 if none. */
static int walk_next(rec_walk *w, int e) {
  while (w->ki + 1 < w->ks->n && w->ks->e[w->ki + 1] <= e) w->ki++;
  if (w->ki >= 0 && (w->ks->k[w->ki] > 0 || w->ks->e[w->ki] == e)) return e;
  if (w->ki + 1 >= w->ks->n) return -1;
  return w->ks->e[++w->ki];
}

/* What the batch pushed last at event e (crec_val()), for events in increasing order. */
static double walk_val(rec_walk *w, int e) {
  while (w->ki + 1 < w->ks->n && w->ks->e[w->ki + 1] <= e) w->ki++;
  int k = w->ki >= 0 ? w->ks->k[w->ki] : 0;
  if (!k) return 0;
  while (w->ui < w->us->n && w->us->e[w->ui] < e) w->ui++;
  if (w->ui < w->us->n && w->us->e[w->ui] == e) return w->us->u[w->ui];
  return usum(w->c->rate[e], k);
}

/* lazy_merge()'s second half: every change of the merged profile after t0 (prof's segment s
 * holds t0), pushed to out; prof and the record walked in time order as prof_merge() walks. */
static lbs_err lazy_forward(const lbs_net *n, int r, int64_t t0, int s, profile *out) {
  const profile *p = &n->prof[r];
  const crec *c = n->pend[r];
  rec_walk w = {&n->kst[r], &n->ust[r], c, -1, 0};
  int si = s + 1, ri = walk_next(&w, crec_at(c, t0) + 1);
  double a = s >= 0 ? p->u[s] : 0, b = crec_val(n, r, t0);
  lbs_err e = LBS_OK;
  while (!e && (si < p->n || ri >= 0)) {
    int64_t t = si < p->n && (ri < 0 || p->t[si] <= c->t[ri]) ? p->t[si] : c->t[ri];
    if (si < p->n && p->t[si] == t) a = p->u[si++];
    if (ri >= 0 && c->t[ri] == t) {
      while (ri + 1 < c->ne && c->t[ri + 1] == t) ri++; /* the last push at t holds */
      b = walk_val(&w, ri);
      ri = walk_next(&w, ri + 1);
    }
    double u = a + b;
    e = prof_push(out, t, u < 1e-15 ? 0 : u);
  }
  return e;
}

/* The last change at or before t0 of merge(prof[r], rec[r]), the first entry prune() keeps
 * (NO_TIME: none), found backwards: changes are only where prof or rec has a breakpoint, so
 * only those instants are looked at. */
static int64_t lazy_floor(const lbs_net *n, int r, int64_t t0) {
  const profile *p = &n->prof[r];
  const crec *c = n->pend[r];
  int si = prof_seg(p, t0), ri = rec_prev(n, r, crec_at(c, t0));
  while (si >= 0 || ri >= 0) { /* backwards: the first change is prune()'s first entry */
    int64_t tp = si >= 0 ? p->t[si] : -1, tr = ri >= 0 ? c->t[ri] : -1, t = tp > tr ? tp : tr;
    if (lazy_sum(n, r, t) != lazy_sum(n, r, t - 1)) return t;
    if (si >= 0 && p->t[si] == t) si--;
    while (ri >= 0 && c->t[ri] == t) ri = rec_prev(n, r, ri - 1);
  }
  return NO_TIME;
}

/* prof[r] = prune(merge(prof[r], rec[r]), t0) (t0 = -1: no prune): lazy_floor(), then the
 * merged profile's changes after t0. */
static lbs_err lazy_merge(lbs_net *n, int r, int64_t t0) {
  profile out = {NULL, NULL, 0, 0};
  int64_t f = lazy_floor(n, r, t0);
  lbs_err e = LBS_OK;
  if (f != NO_TIME && !(e = prof_push(&out, f, 1)))
    out.u[0] = lazy_sum(n, r, f); /* kept, 0 too: prune() keeps it */
  if (!e) e = lazy_forward(n, r, t0, prof_seg(&n->prof[r], t0), &out);
  if (e) {
    free(out.t), free(out.u);
    return e;
  }
  free(n->prof[r].t), free(n->prof[r].u);
  n->prof[r] = out;
  return LBS_OK;
}

/* r's record is dropped (merged or not); its crec freed with the last. */
static void lazy_release(lbs_net *n, int r) {
  crec *c = n->pend[r];
  n->pend[r] = NULL, n->kst[r].n = 0, n->ust[r].n = 0;
  if (--c->refs > 0) return;
  int i = 0;
  while (n->live[i] != c) i++;
  memmove(n->live + i, n->live + i + 1, (size_t)(n->nlive - i - 1) * sizeof *n->live);
  n->nlive--;
  crec_free(c);
}

/* Before a batch crosses r from t0 on: prof[r] as end_batch() and prof_prune() leave it. */
static lbs_err lazy_resolve(lbs_net *n, int r, int64_t t0) {
  lbs_err e = LBS_OK;
  if (n->pend[r]) {
    if (lazy_nonempty(n, r)) e = lazy_merge(n, r, t0), n->lazy[t0 < 0]++;
    lazy_release(n, r);
  }
  if (!e) prof_prune(&n->prof[r], t0);
  return e;
}

/* Swaps r's pending record and its deferred one (with their counts and sums). */
static void lazy_swap(lbs_net *n, int r) {
  crec *c = n->pend[r];
  n->pend[r] = n->dfr[r], n->dfr[r] = c;
  ksteps k = n->kst[r];
  n->kst[r] = n->dks[r], n->dks[r] = k;
  usteps u = n->ust[r];
  n->ust[r] = n->dus[r], n->dus[r] = u;
}

/* r's deferred record written out (write) or dropped: prof[r] as its batch's start left it. */
static lbs_err lazy_undefer(lbs_net *n, int r, int write) {
  lazy_swap(n, r);
  lbs_err e = LBS_OK;
  if (write)
    e = lazy_resolve(n, r, n->dt0[r]);
  else
    lazy_release(n, r);
  lazy_swap(n, r);
  return e;
}

/* Before a batch crosses r from t0 on, its first flow there starting at tr (-1: the batch may
 * read r through any path, from t0 on): what lazy_resolve() leaves, or the same deferred.
 * Deferred: a run_common() batch B crosses r from tr on. Where the merged profile prune(merge(
 * prof[r], L), t0) (L the record pending on r) is prof[r] again from tr on (L ended on r, and
 * its floor lazy_floor() is before tr), B reads prof[r] as it is, and L waits in dfr[r], its
 * merge not written: the next batch C to cross r merges B's own record into that profile and
 * prunes at its start t0'; if the last change at or before t0' comes after L's end and floor
 * (dend), the profile C keeps holds nothing of L, and L is dropped unwritten. Otherwise, or for
 * any other batch, L is written first. Most of a NIC's record in des (the part after the next
 * step's start, which the step after prunes) is so never written. */
static lbs_err lazy_start(lbs_net *n, int r, int64_t t0, int64_t tr) {
  lbs_err e = LBS_OK;
  if (n->dfr[r]) {
    int64_t f = n->pend[r] && lazy_nonempty(n, r) ? lazy_floor(n, r, t0) : NO_TIME;
    int drop = f != NO_TIME && f > n->dend[r];
    n->lazy[3] += drop;
    if ((e = lazy_undefer(n, r, !drop))) return e;
  }
  if (tr >= 0 && n->pend[r] && lazy_nonempty(n, r)) {
    const ksteps *ks = &n->kst[r];
    const profile *p = &n->prof[r];
    int64_t f = lazy_floor(n, r, t0), end = n->pend[r]->t[ks->e[ks->n - 1]]; /* L idle */
    if (f != NO_TIME && f > end) end = f;
    if (end <= tr && !(p->n && p->u[0] == 0 && p->t[0] > tr)) { /* no breakpoint of its own */
      lazy_swap(n, r);
      n->dt0[r] = t0, n->dend[r] = end, n->lazy[2]++;
      return LBS_OK;
    }
  }
  return lazy_resolve(n, r, t0);
}

static void lazy_drop_all(lbs_net *n) {
  for (int r = 0; r < n->R && n->nlive; r++) {
    if (n->dfr[r]) lazy_undefer(n, r, 0);
    if (n->pend[r]) lazy_release(n, r);
  }
  crec_free(n->cur);
  n->cur = NULL;
}

/* More than LIVE crecs held: the oldest is merged whole into the profiles that hold it (as
 * end_batch() would have merged it), so that memory stays bounded. A merge that fails (out of
 * memory) leaves the oldest held: every record is dropped then, so that live[] never holds more
 * than LIVE + 1 (the run has failed; what later batches would read of it is gone with it). */
static lbs_err lazy_flush(lbs_net *n) {
  lbs_err e = LBS_OK;
  crec *c = n->live[0];
  for (int r = 0; !e && r < n->R && n->nlive > LIVE; r++) {
    if (n->dfr[r] && (n->dfr[r] == c || n->pend[r] == c)) e = lazy_undefer(n, r, 1);
    if (!e && n->pend[r] == c) e = lazy_resolve(n, r, -1);
  }
  if (e) lazy_drop_all(n);
  return e;
}

/* run_common()'s batch ends at now (e: how it went): it holds the usage of its resources
 * until a later batch crosses them; after an error, nothing (end_batch()). */
static lbs_err lazy_end(lbs_net *n, int nf, int64_t now, lbs_err e) {
  crec *c = n->cur;
  n->cur = NULL;
  if (!e) e = crec_event(c, now, 0); /* the end: every resource idle */
  for (int k = 0; k < nf; k++)
    for (int j = 0; j < n->f[k].nres; j++) {
      int r = n->f[k].res[j];
      if (e) n->kst[r].n = 0, n->ust[r].n = 0;
      if (e || n->pend[r] == c) continue;
      n->pend[r] = c, c->refs++;
    }
  if (e || !c->refs) {
    crec_free(c);
    return e;
  }
  n->live[n->nlive++] = c;
  return n->nlive > LIVE ? lazy_flush(n) : LBS_OK;
}

/* ------------------------------------- fair, one common resource, NICs beside it */

/* Design: what a flow's start or end can change, and what may be skipped (issue 34).
 *
 * Which rates change. Max-min rates depend on the connected component of the flow-resource
 * graph through saturated resources; SimGrid's lazy lmm re-solves only that. Here it cannot be
 * taken as is, for two reasons. (1) Exactness: fill() raises one level lam for all flows and
 * fixes every resource within a relative 1e-9 of it in the same round, so two components that
 * saturate at nearly the same level get the same lam, not each its own: re-solving one
 * component alone changes the last bits of its rates, and a finish time by a ns. (2) Gain: in
 * the case that costs (a halo on one shared network with NICs) every flow crosses the network,
 * which is full: one component, whose share changes at every start and end, so every flow's
 * rate changes at every event and locality saves nothing. What saves is that those flows
 * share one rate: fill() fixes them all in its first round at lam x w.
 *
 * Finish times. fill()'s flows would keep a heap keyed by finish time, invalidated when a
 * rate changes; with one rate for all, finish order is the order of bits left (the finish
 * candidate is monotone in it), so the heap is run_one's array sorted by bits left, and the
 * next end is its first flow's candidate, computed as next_event() computes it.
 *
 * Bits left. The reference subtracts rate x dt from every flow at every event and rounds each
 * time; one subtraction of rate x (t1 - t0) at the next change of rate (a flow stamped with
 * its last update) rounds differently and can move an end by a ns, so it is not done. The
 * chain of roundings is kept exactly, per binade rather than per flow (run_one, above).
 *
 * Rounding. Every quantity that decides an event time or a recorded usage is computed by the
 * same float operations in the same order as the reference: the weights' sum on a resource
 * crossed by k flows of weight w is ws[k] (k equal terms, order of no account), its usage
 * k equal rates added one by one (sum_repeated), a finish ns_for() of the same bits left. Where
 * the order matters, sums of different rates or weights, the reference's code runs on the
 * flows in activation order: an event where a NIC fills before the network (few flows in
 * flight, the start and the end of a halo) goes through fill(), next_event(), record_usage()
 * and advance(), and the sorted state is rebuilt after it. Batches whose flows differ in
 * weight or bound, or cross no common resource (transfers between clusters meeting at NICs),
 * take run_fair()'s loop over every flow: the reference's arithmetic, with a cursor per
 * resource into what earlier batches use (avail_at) and the unfixed flows compacted per round.
 *
 * Usage records. A NIC's usage changes at every event with the shared rate; pushing it to a
 * profile per resource made an event cost O(resources in use). The batch records instead the
 * rate once per event and per resource its count of flows (crec, ksteps: "run_common()'s usage
 * kept for later batches" above), merged into the resource's profile when a later batch crosses
 * it, from that batch's start on (lazy_resolve), or deferred, and often never written, where
 * that batch is of this kind and reaches the resource after the record ended there
 * (lazy_start). fill()'s first level (common_level) loops only over the resources whose earlier
 * usage still changes; the others, at their capacity to the end, are counted per capacity
 * (class) and flow count. What stays in proportion to P: the records written (a NIC used by the
 * next batch while its record still runs), and the NICs with earlier usage ahead, looked at
 * every event. Reading a record lazily in every case (a profile of terms summed when read, in
 * prof_merge()'s order) would remove the first; not done.
 *
 * run_common: a batch whose flows all have the same weight and bound and all cross one shared
 * link or cluster r0 first, some of them NICs too (one shared cluster with NICs). While r0 is
 * full at fill()'s first level (or the flows' bound is), every flow is fixed in the first
 * round at one rate and run_one's state serves them. */

/* The common resource of a batch of that kind (a link slot every flow crosses first, equal
 * weights and bounds, some flow with a NIC); -1 otherwise. */
static int common_resource(const lbs_net *n, int nf) {
  const flow *f0 = &n->f[0];
  if (full_solver || f0->nres < 1 || f0->res[0] >= n->nlinks) return -1;
  int nic = 0;
  for (int k = 0; k < nf; k++) {
    const flow *f = &n->f[k];
    if (f->nres < 1 || f->res[0] != f0->res[0] || f->w != f0->w || f->bound != f0->bound) return -1;
    nic |= f->nres > 1;
  }
  return nic ? f0->res[0] : -1;
}

/* Resource r of a class goes from `from` flows to `to` (0: it leaves the class). */
static void class_move(lbs_net *n, int r, int from, int to) {
  int c = n->ucls[r] - 1, *h = n->chist + (size_t)c * n->cstride;
  if (from) h[from]--;
  if (to)
    h[to]++;
  else
    n->ucls[r] = 0;
  if (to > n->ckmax[c]) n->ckmax[c] = to;
  while (n->ckmax[c] > 0 && !h[n->ckmax[c]]) n->ckmax[c]--;
}

/* r, in use, joins the class of its capacity (made if there is room): 0 if there is none. */
static int class_join(lbs_net *n, int r) {
  int c = 0;
  while (c < n->nc && n->ccap[c] != n->cap[r]) c++;
  if (c == NCLS) return 0;
  if (c == n->nc) n->ccap[n->nc++] = n->cap[r], n->ckmax[c] = 0;
  n->ucls[r] = c + 1;
  class_move(n, r, 0, n->ucnt[r]);
  return 1;
}

/* Flow f enters (d = 1) or leaves (d = -1) the per-resource counts: a resource in a class in
 * its count, the others in the list n->utouch (*nu; its order is of no account: fill()'s first
 * level is a minimum); the counts from the batch's next event on go to its record (n->kst). */
static lbs_err common_count(lbs_net *n, const flow *f, int d, int *nu) {
  lbs_err e = LBS_OK;
  for (int j = 0; !e && j < f->nres; j++) {
    int r = f->res[j], k = n->ucnt[r] += d;
    if (n->ucls[r])
      class_move(n, r, k - d, k);
    else if (d > 0 && k == 1)
      n->upos[r] = *nu, n->utouch[(*nu)++] = r;
    else if (d < 0 && k == 0) {
      int last = n->utouch[--*nu];
      n->utouch[n->upos[r]] = last, n->upos[last] = n->upos[r];
    }
    e = ks_set(&n->kst[r], n->ev, k);
  }
  return e;
}

static int by_rem(const void *pa, const void *pb, void *arg) {
  const flow *base = arg, *a = &base[*(const int *)pa], *b = &base[*(const int *)pb];
  return (a->rem > b->rem) - (a->rem < b->rem);
}

/* one_state anew from the flows in n->active[0, na) and their bits left. */
static void common_rebuild(const lbs_net *n, one_state *s, int na) {
  memcpy(s->id, n->active, (size_t)na * sizeof *s->id);
  qsort_r(s->id, (size_t)na, sizeof *s->id, by_rem, n->f);
  memset(s->cnt, 0, NSLOT * sizeof *s->cnt);
  s->h = 0, s->na = na, s->lo = NSLOT, s->hi = -1;
  for (int i = 0; i < na; i++) one_anchor(s, i, n->f[s->id[i]].rem);
}

/* record_usage() at a general event: each touched resource's sum of its flows' rates, in
 * activation order, recorded as the event's own value (n->ust); then the event. */
static lbs_err common_record(lbs_net *n, int na, int nt, int64_t now) {
  for (int i = 0; i < nt; i++) n->used[n->touched[i]] = 0;
  for (int k = 0; k < na; k++) {
    const flow *f = &n->f[n->active[k]];
    for (int j = 0; j < f->nres; j++) n->used[f->res[j]] += f->rate;
  }
  lbs_err e = LBS_OK;
  for (int i = 0; !e && i < nt; i++)
    e = us_add(&n->ust[n->touched[i]], n->ev, n->used[n->touched[i]]);
  if (!e) e = crec_event(n->cur, now, 0);
  n->ev++;
  return e;
}

/* run_common()'s event where a NIC fills first: served as run_fair() serves it, the flows in
 * activation order (cand marks them: 0 in flight, -1 ended), the sorted state rebuilt after. */
static lbs_err common_general(lbs_net *n, lbs_transfer *xs, one_state *s, int next, int nf, int *nu,
                              int64_t *now) {
  n->common_events[1]++;
  int na = 0, nt = 0;
  for (int i = s->h; i < s->h + s->na; i++)
    n->f[s->id[i]].rem = one_val(s, i), n->f[s->id[i]].cand = 0;
  for (int k = 0; k < next; k++)
    if (n->f[n->order[k]].cand == 0) n->active[na++] = n->order[k];
  fill(n, na, *now, &nt);
  int64_t at = next_event(n, na, nt, *now, next < nf ? n->f[n->order[next]].act : NO_TIME);
  if (at == NO_TIME) return lbs_fail(LBS_RANGE, "network: %d transfers can never finish", na);
  lbs_err e = common_record(n, na, nt, *now);
  for (int k = 0; !e && k < na; k++) /* advance() ends these */
    if (n->f[n->active[k]].cand <= at) {
      e = common_count(n, &n->f[n->active[k]], -1, nu);
      n->f[n->active[k]].cand = -1;
    }
  if (e) return e;
  na = advance(n, xs, na, *now, at);
  for (int k = 0; k < na; k++) n->f[n->active[k]].cand = 0;
  common_rebuild(n, s, na);
  *now = at;
  return LBS_OK;
}

/* fill()'s first round over the resources in use at now: its level lam, the least of the
 * flows' bound and of what earlier batches leave of each resource over the weights crossing
 * it (ws[k] for k flows); *at the next change of what earlier batches use of one. A resource
 * whose availability is its capacity to the end (no earlier usage ahead, avail_at()) joins
 * its class and leaves the list: in a class, the resource with the most flows gives the least
 * capacity / ws[k] (ws grows with k, division is monotone), so the minimum is the same, and
 * costs O(classes) an event instead of O(resources in use). */
static double common_level(lbs_net *n, const one_state *s, int r0, int *nu, double blam,
                           int64_t now, int64_t *at) {
  double lam = blam;
  for (int i = 0; i < *nu;) {
    int r = n->utouch[i];
    avail_at(n, r, now);
    if (r != r0 && n->nbp[r] == NO_TIME && n->avail[r] == n->cap[r] && class_join(n, r)) {
      int last = n->utouch[--*nu]; /* out of the list, into its class's counts */
      n->utouch[i] = last, n->upos[last] = i;
      continue;
    }
    if (n->avail[r] / s->ws[n->ucnt[r]] < lam) lam = n->avail[r] / s->ws[n->ucnt[r]];
    if (n->nbp[r] < *at) *at = n->nbp[r];
    i++;
  }
  for (int c = 0; c < n->nc; c++)
    if (n->ckmax[c] && n->ccap[c] / s->ws[n->ckmax[c]] < lam) lam = n->ccap[c] / s->ws[n->ckmax[c]];
  return lam;
}

/* run_fair()'s loop for a batch with the common resource r0 (common_resource()); *now as
 * lazy_end() wants it. Its usage goes to n->cur (crec), not to rec. */
static lbs_err run_common(lbs_net *n, lbs_transfer *xs, int nf, int r0, int64_t *now) {
  one_state s;
  double w = n->f[0].w, b = n->f[0].bound;
  lbs_err e = one_alloc(&s, nf, w);
  int next = 0, nu = 0;
  n->nc = 0, n->cstride = nf + 1;
  n->chist = calloc((size_t)NCLS * (size_t)n->cstride, sizeof *n->chist);
  if (!e && !n->chist) e = lbs_fail(LBS_NOMEM, "network: %d transfers", nf);
  *now = n->f[n->order[0]].act;
  while (!e && (next < nf || s.na > 0)) {
    int from = next;
    while (next < nf && n->f[n->order[next]].act <= *now) next++;
    if (next > from) one_insert_all(&s, n->order + from, next - from, n->f);
    for (int i = from; !e && i < next; i++) e = common_count(n, &n->f[n->order[i]], 1, &nu);
    int64_t at = next < nf ? n->f[n->order[next]].act : NO_TIME;
    double lam = e ? 0 : common_level(n, &s, r0, &nu, b / w, *now, &at), thr = lam * (1 + 1e-9);
    if (e) break;
    if (s.na && !(b / w <= thr) && !(n->avail[r0] / s.ws[s.na] <= thr)) {
      if ((e = common_general(n, xs, &s, next, nf, &nu, now))) break;
      continue;
    }
    n->common_events[0]++;
    double rate = lam * w < b ? lam * w : b;
    if (s.na) {
      int64_t c = one_cand(one_val(&s, s.h), rate, *now);
      if (c < at) at = c;
    }
    if (at == NO_TIME) {
      e = lbs_fail(LBS_RANGE, "network: %d transfers can never finish", s.na);
      break;
    }
    /* record_usage(): each resource in use k x rate (usum), from its counts in n->kst */
    if ((e = crec_event(n->cur, *now, rate))) break;
    n->ev++;
    int h0 = s.h;
    one_advance(&s, xs, n, rate, *now, at);
    for (int i = h0; !e && i < s.h; i++) {
      e = common_count(n, &n->f[s.id[i]], -1, &nu);
      n->f[s.id[i]].cand = -1;
    }
    *now = at;
  }
  for (int k = 0; e && k < nf; k++) /* after an error */
    for (int j = 0; j < n->f[k].nres; j++) n->ucnt[n->f[k].res[j]] = 0, n->ucls[n->f[k].res[j]] = 0;
  free(n->chist);
  n->chist = NULL;
  one_free(&s);
  return e;
}

/* ---------------------------------------------------------------- fair, any flows */

/* The reference (lbs__net_full_solver): fill() as it was before the cursors, verbatim. Rates of the
 * active flows at time now: weighted max-min over what earlier batches left
 * (progressive filling: raise every unfixed flow's rate as lam x its weight until a resource
 * is full or a flow reaches its bound; fix those flows; repeat). The resources the flows
 * cross are listed in n->touched. */
static void fill_ref(lbs_net *n, int na, int64_t now, int *ntouched) {
  int nt = 0;
  if (++n->mark_epoch == 0x7fffffff) {
    memset(n->mark, 0, (size_t)n->R * sizeof *n->mark);
    n->mark_epoch = 1;
  }
  for (int k = 0; k < na; k++) {
    flow *f = &n->f[n->active[k]];
    f->fixed = 0;
    for (int j = 0; j < f->nres; j++) {
      int r = f->res[j];
      if (n->mark[r] == n->mark_epoch) continue;
      n->mark[r] = n->mark_epoch;
      n->touched[nt++] = r;
      const profile *p = &n->prof[r];
      int s = prof_seg(p, now);
      double avail = n->cap[r] - (s >= 0 ? p->u[s] : 0);
      n->remcap[r] = avail > n->cap[r] * REL ? avail : 0;
    }
  }
  for (int left = na; left > 0;) {
    for (int i = 0; i < nt; i++) n->wsum[n->touched[i]] = 0, n->cnt[n->touched[i]] = 0;
    double lam = INFINITY;
    for (int k = 0; k < na; k++) {
      const flow *f = &n->f[n->active[k]];
      if (f->fixed) continue;
      if (f->bound / f->w < lam) lam = f->bound / f->w;
      for (int j = 0; j < f->nres; j++) n->wsum[f->res[j]] += f->w, n->cnt[f->res[j]]++;
    }
    for (int i = 0; i < nt; i++) {
      int r = n->touched[i];
      if (n->cnt[r] && n->remcap[r] / n->wsum[r] < lam) lam = n->remcap[r] / n->wsum[r];
    }
    double thr = lam * (1 + 1e-9);
    for (int i = 0; i < nt; i++) {
      int r = n->touched[i];
      n->sat[r] = n->cnt[r] && n->remcap[r] / n->wsum[r] <= thr;
    }
    for (int k = 0; k < na; k++) {
      flow *f = &n->f[n->active[k]];
      if (f->fixed) continue;
      int fix = f->bound / f->w <= thr;
      for (int j = 0; j < f->nres && !fix; j++) fix = n->sat[f->res[j]];
      if (!fix) continue;
      f->rate = lam * f->w < f->bound ? lam * f->w : f->bound;
      f->fixed = 1;
      left--;
      for (int j = 0; j < f->nres; j++) {
        int r = f->res[j];
        n->remcap[r] = n->remcap[r] > f->rate ? n->remcap[r] - f->rate : 0;
      }
    }
  }
  *ntouched = nt;
}

/* The reference: next_event() as it was, verbatim. The next event after now: a flow starts (the
 * next in order, at) or ends (each active flow's cand, set here), or an earlier batch's usage of a
 * touched resource changes. */
static int64_t next_event_ref(lbs_net *n, int na, int nt, int64_t now, int64_t at) {
  for (int k = 0; k < na; k++) {
    flow *f = &n->f[n->active[k]];
    f->cand = f->rem <= 0 ? now : f->rate > 0 ? add_ns(now, ns_for(f->rem, f->rate)) : NO_TIME;
    if (f->cand < at) at = f->cand;
  }
  for (int i = 0; i < nt; i++) {
    const profile *p = &n->prof[n->touched[i]];
    int s = prof_seg(p, now);
    if (s + 1 < p->n && p->t[s + 1] < at) at = p->t[s + 1];
  }
  return at;
}

/* Before the batch's nf flows run from t0 on, each resource they cross once: what ended before
 * t0 is forgotten, earlier records join (lazy_start; defer: a run_common() batch, which reads a
 * resource only from its first flow there on, tfirst), its cursors start from the beginning. */
static lbs_err batch_start(lbs_net *n, int nf, int64_t t0, int defer) {
  for (int k = 0; k < nf; k++)
    for (int j = 0; j < n->f[k].nres; j++) n->tfirst[n->f[k].res[j]] = NO_TIME;
  for (int k = 0; k < nf; k++)
    for (int j = 0; j < n->f[k].nres; j++)
      if (n->f[k].act < n->tfirst[n->f[k].res[j]]) n->tfirst[n->f[k].res[j]] = n->f[k].act;
  lbs_err e = LBS_OK;
  for (int k = 0; !e && k < nf; k++)
    for (int j = 0; !e && j < n->f[k].nres; j++) {
      int r = n->f[k].res[j];
      if (n->tfirst[r] == INT64_MIN) continue; /* done */
      e = lazy_start(n, r, t0, defer ? n->tfirst[r] : -1);
      n->tfirst[r] = INT64_MIN;
      n->seg[r] = -1;        /* seg_at walks from the start */
      n->nbp[r] = INT64_MIN; /* avail_at reads it at first */
    }
  return e;
}

static lbs_err run_fair(lbs_net *n, lbs_transfer *xs, int nx) {
  lbs_err e = grow(n, nx);
  if (e) return e;
  int nf;
  int64_t t0;
  start_flows(n, xs, nx, &nf, &t0);
  if (!nf) return LBS_OK;
  int next = 0, na = 0, nprev = 0, nt = 0;
  int r = one_resource(n, nf), r0 = r < 0 ? common_resource(n, nf) : -1;
  if ((e = batch_start(n, nf, t0, r0 >= 0))) return e;
  sort_by_act(n, nf);
  if (r0 >= 0) {
    int64_t end = 0;
    n->cur = calloc(1, sizeof *n->cur), n->ev = 0;
    e = n->cur ? run_common(n, xs, nf, r0, &end) : lbs_fail(LBS_NOMEM, "network usage record");
    return lazy_end(n, nf, end, e);
  }
  if (r >= 0) {
    int64_t end = 0;
    e = run_one(n, xs, nf, r, &nprev, &end);
    if (e == LBS_RANGE) return e; /* as below: a batch that never ends records nothing */
    n->one_batches++;
    return end_batch(n, nf, nprev, end, e);
  }
  int64_t now = n->f[n->order[0]].act;
  while (next < nf || na > 0) {
    while (next < nf && n->f[n->order[next]].act <= now) n->active[na++] = n->order[next++];
    int64_t nx_at = next < nf ? n->f[n->order[next]].act : NO_TIME, at;
    if (full_solver) {
      fill_ref(n, na, now, &nt);
      at = next_event_ref(n, na, nt, now, nx_at);
    } else {
      fill(n, na, now, &nt);
      at = next_event(n, na, nt, now, nx_at);
    }
    if (at == NO_TIME) return lbs_fail(LBS_RANGE, "network: %d transfers can never finish", na);
    if ((e = record_usage(n, na, nt, &nprev, now))) break;
    na = advance(n, xs, na, now, at);
    now = at;
  }
  return end_batch(n, nf, nprev, now, e);
}

/* ------------------------------------------------- fair, one simulation across batches */

/* lbs_netsim (lbs_sim.h): the general solver's loop (fill(), next_event(), advance's
 * arithmetic) kept open between calls, so that transfers join it as the caller learns of them.
 * Its flows live in slots of its own, swapped into n->f, n->active and n->unfixed while it
 * runs (sim_enter). The loop is cut where the caller must be heard: after an advance to `now`
 * (dirty: the arrivals there are handed back, the rates at now not yet filled), so a transfer
 * the caller adds in answer, active at now, is in the fill at now, as if it had been known from
 * the start; and before an advance to the next event `at` beyond the caller's limit, where a
 * transfer it adds later may still start before `at` (add() then brings `at` forward). So the
 * arrivals are those of one batch holding every transfer from the start, given each transfer's
 * ready time, whenever it was added: the flows of a step and of the next share as SimGrid
 * shares them. Transfers that share nothing arrive at a time known when they are added; they
 * are kept in a heap of their own and handed back in order, before the flows' arrivals at the
 * same ns. */
struct lbs_netsim {
  lbs_net *n;
  flow *f;            /* fcap slots; f[i].idx == i */
  int64_t *tag, *seq; /* per slot: the caller's tag, the order of addition */
  int *freel, nfree;  /* free slots */
  int *active, na;    /* the flows in flight, in activation order */
  int *unfixed;       /* fill()'s scratch */
  int *wait, nw;      /* slots not active yet: a heap by (act, seq) */
  int fcap;
  int64_t *dt, *dtag, *dseq; /* transfers that share nothing: a heap by (arrival, seq) */
  int nd, dcap;
  int64_t now, at, nseq; /* the last event; the next one (while not dirty); additions so far */
  int dirty, nt;         /* dirty: advanced to now, not filled there; nt: fill()'s resources */
  flow *save_f;          /* sim_enter(): the batches' scratch */
  int *save_active, *save_unfixed, save_fcap;
  /* kind: every flow in flight since none was crosses resource ores first, with weight ow and
   * bound ob, and NICs besides (a shared cluster or link, with or without NICs). Where ores
   * then fills first (or the bound holds), fill() fixes every flow in its first round at one
   * rate, which is computed as it computes it: the weights summed one by one (ws[k] for k flows,
   * nws of them), and a NIC's level from its count of flows (ucnt), the most loaded NIC of each
   * capacity (ccap, with chist its NICs per count, stride hst, and ckmax the largest count)
   * giving its class's lowest (division is monotone). At such a fill the flows are sorted: kept
   * in run_one()'s state (os: by bits left, in binades; f->rem is not kept meanwhile), as they
   * all lose the same rate x dt, x - d is monotone in x and the next end is the first's: a fill
   * and a next event cost O(1), the advance O(binades in use) with a flow stepped alone only
   * where it leaves its binade (one_step: the same rounding as advance()'s, flow by flow). The
   * flows that join at one event wait in pj (npj of them, counted in na) and go in together
   * (sim_insert, at the fill). Where a NIC fills first, the general fill runs on the active
   * list, rebuilt in activation order (sim_unsort), until the one rate holds again (sim_sort).
   * A flow of another kind leaves the kind until none is in flight. */
  int kind, sorted, ores, nws, *pj, npj;
  double ow, ob, rate, *ws;
  one_state os;
  int *ucnt, *chist, hst, nc, ckmax[NCLS];
  double ccap[NCLS];
};

/* fill() and next_event() read n->f, n->active and n->unfixed: the simulation's own while it
 * runs (sim_enter), the batches' again after (sim_leave). */
static void sim_enter(lbs_netsim *s) {
  lbs_net *n = s->n;
  s->save_f = n->f, s->save_active = n->active, s->save_unfixed = n->unfixed;
  s->save_fcap = n->fcap;
  n->f = s->f, n->active = s->active, n->unfixed = s->unfixed, n->fcap = s->fcap;
}

static void sim_leave(lbs_netsim *s) {
  lbs_net *n = s->n;
  n->f = s->save_f, n->active = s->save_active, n->unfixed = s->save_unfixed;
  n->fcap = s->save_fcap;
}

static int wait_less(const lbs_netsim *s, int i, int j) {
  const flow *a = &s->f[i], *b = &s->f[j];
  return a->act != b->act ? a->act < b->act : s->seq[i] < s->seq[j];
}

static void wait_push(lbs_netsim *s, int i) {
  int k = s->nw++;
  while (k > 0 && wait_less(s, i, s->wait[(k - 1) / 2])) {
    s->wait[k] = s->wait[(k - 1) / 2];
    k = (k - 1) / 2;
  }
  s->wait[k] = i;
}

static int wait_pop(lbs_netsim *s) {
  int top = s->wait[0], last = s->wait[--s->nw], k = 0;
  for (;;) {
    int c = 2 * k + 1;
    if (c >= s->nw) break;
    if (c + 1 < s->nw && wait_less(s, s->wait[c + 1], s->wait[c])) c++;
    if (!wait_less(s, s->wait[c], last)) break;
    s->wait[k] = s->wait[c];
    k = c;
  }
  if (s->nw) s->wait[k] = last;
  return top;
}

static int ded_less(const lbs_netsim *s, int i, int j) {
  return s->dt[i] != s->dt[j] ? s->dt[i] < s->dt[j] : s->dseq[i] < s->dseq[j];
}

static void ded_move(lbs_netsim *s, int to, int from) {
  s->dt[to] = s->dt[from], s->dtag[to] = s->dtag[from], s->dseq[to] = s->dseq[from];
}

/* The heap's entry at nd (just written) sifted up. */
static void ded_up(lbs_netsim *s) {
  int k = s->nd++;
  int64_t t = s->dt[k], tag = s->dtag[k], q = s->dseq[k];
  while (k > 0 && (t != s->dt[(k - 1) / 2] ? t < s->dt[(k - 1) / 2] : q < s->dseq[(k - 1) / 2])) {
    ded_move(s, k, (k - 1) / 2);
    k = (k - 1) / 2;
  }
  s->dt[k] = t, s->dtag[k] = tag, s->dseq[k] = q;
}

static void ded_pop(lbs_netsim *s) {
  int last = --s->nd, k = 0;
  for (;;) {
    int c = 2 * k + 1;
    if (c >= s->nd) break;
    if (c + 1 < s->nd && ded_less(s, c + 1, c)) c++;
    if (!ded_less(s, c, last)) break;
    ded_move(s, k, c);
    k = c;
  }
  if (s->nd) ded_move(s, k, last);
}

void lbs_netsim_destroy(lbs_netsim **sp) {
  if (!sp || !*sp) return;
  lbs_netsim *s = *sp;
  free(s->f), free(s->tag), free(s->seq), free(s->freel), free(s->active), free(s->unfixed);
  free(s->wait), free(s->dt), free(s->dtag), free(s->dseq), free(s->pj), free(s->ws);
  one_free(&s->os);
  free(s->ucnt), free(s->chist), free(s);
  *sp = NULL;
}

/* Room in o for c flows (slots below c) and 2c + 2 places; 0 without memory. The places keep
 * their content: sim_insert() moves them down when the end is reached. */
static int one_room(one_state *o, int c) {
  size_t z = (size_t)c + 1;
  double *b = realloc(o->b, z * sizeof *b);
  if (b) o->b = b;
  int64_t *a = realloc(o->a, z * sizeof *a);
  if (a) o->a = a;
  int *e = realloc(o->e, z * sizeof *e), *id = realloc(o->id, 2 * z * sizeof *id);
  if (e) o->e = e;
  if (id) o->id = id, o->cap = 2 * c + 2;
  int *ind = realloc(o->ind, z * sizeof *ind), *pos = realloc(o->pos, z * sizeof *pos);
  if (ind) o->ind = ind;
  if (pos) o->pos = pos;
  double *nv = realloc(o->nv, z * sizeof *nv);
  if (nv) o->nv = nv;
  if (!o->gk) o->gk = malloc(NSLOT * sizeof *o->gk);
  if (!o->c) o->c = calloc(NSLOT, sizeof *o->c);
  if (!o->cnt) o->cnt = calloc(NSLOT, sizeof *o->cnt), o->lo = NSLOT, o->hi = -1;
  return b && a && e && id && ind && pos && nv && o->gk && o->c && o->cnt;
}

/* Room for c flow slots (the new ones free) and dc transfers that share nothing. */
static lbs_err sim_grow(lbs_netsim *s, int c, int dc) {
  if (c > s->fcap) {
    flow *f = realloc(s->f, (size_t)c * sizeof *f);
    if (f) s->f = f;
    int64_t *tag = realloc(s->tag, (size_t)c * sizeof *tag);
    if (tag) s->tag = tag;
    int64_t *seq = realloc(s->seq, (size_t)c * sizeof *seq);
    if (seq) s->seq = seq;
    int *fl = realloc(s->freel, (size_t)c * sizeof *fl);
    if (fl) s->freel = fl;
    int *a = realloc(s->active, (size_t)c * sizeof *a);
    if (a) s->active = a;
    int *u = realloc(s->unfixed, (size_t)c * sizeof *u);
    if (u) s->unfixed = u;
    int *w = realloc(s->wait, (size_t)c * sizeof *w);
    if (w) s->wait = w;
    int *pj = realloc(s->pj, (size_t)c * sizeof *pj);
    if (pj) s->pj = pj;
    int room = one_room(&s->os, c);
    double *ws = realloc(s->ws, (size_t)(c + 1) * sizeof *ws);
    if (ws) s->ws = ws;
    int *ch = calloc((size_t)NCLS * (size_t)(c + 1), sizeof *ch);
    for (int k = 0; ch && k < NCLS && s->chist; k++)
      memcpy(ch + (size_t)k * (size_t)(c + 1), s->chist + (size_t)k * (size_t)s->hst,
             (size_t)s->hst * sizeof *ch);
    if (ch) free(s->chist), s->chist = ch, s->hst = c + 1;
    if (!f || !tag || !seq || !fl || !a || !u || !w || !pj || !ws || !room || !ch)
      return lbs_fail(LBS_NOMEM, "network: %d transfers in flight", c);
    for (int i = c - 1; i >= s->fcap; i--) s->freel[s->nfree++] = i;
    s->fcap = c;
  }
  if (dc > s->dcap) {
    int64_t *t = realloc(s->dt, (size_t)dc * sizeof *t);
    if (t) s->dt = t;
    int64_t *tag = realloc(s->dtag, (size_t)dc * sizeof *tag);
    if (tag) s->dtag = tag;
    int64_t *q = realloc(s->dseq, (size_t)dc * sizeof *q);
    if (q) s->dseq = q;
    if (!t || !tag || !q) return lbs_fail(LBS_NOMEM, "network: %d transfers in flight", dc);
    s->dcap = dc;
  }
  return LBS_OK;
}

lbs_err lbs_netsim_create(lbs_net *n, int64_t t0, lbs_netsim **out) {
  *out = NULL;
  if (!n->fair)
    return lbs_fail(LBS_INVAL, "network: a simulation across batches needs fair sharing");
  lbs_netsim *s = calloc(1, sizeof *s);
  if (!s) return lbs_fail(LBS_NOMEM, "network simulation");
  s->n = n;
  s->now = t0;
  s->dirty = 1;
  if (!(s->ucnt = calloc((size_t)n->R + 1, sizeof *s->ucnt))) {
    free(s);
    return lbs_fail(LBS_NOMEM, "network simulation");
  }
  lbs_net_reset(n); /* nothing of earlier batches is in flight from t0 on */
  for (int r = 0; r < n->R; r++) n->seg[r] = -1, n->nbp[r] = INT64_MIN;
  *out = s;
  return LBS_OK;
}

/* src's state into o, made by one_room() for src's c flows. */
static void one_copy(one_state *o, const one_state *src, int c) {
  size_t z = (size_t)c + 1;
  if (!src->c) return; /* no flow yet: nothing made */
  memcpy(o->b, src->b, z * sizeof *o->b), memcpy(o->a, src->a, z * sizeof *o->a);
  memcpy(o->e, src->e, z * sizeof *o->e), memcpy(o->id, src->id, 2 * z * sizeof *o->id);
  memcpy(o->c, src->c, NSLOT * sizeof *o->c), memcpy(o->cnt, src->cnt, NSLOT * sizeof *o->cnt);
  o->h = src->h, o->na = src->na, o->lo = src->lo, o->hi = src->hi;
}

lbs_err lbs_netsim_copy(const lbs_netsim *src, lbs_netsim **out) {
  *out = NULL;
  lbs_netsim *s = calloc(1, sizeof *s);
  if (!s) return lbs_fail(LBS_NOMEM, "network simulation");
  *s = *src;
  s->f = NULL, s->tag = s->seq = NULL, s->freel = s->active = s->unfixed = s->wait = NULL;
  s->pj = NULL, s->ws = NULL, s->chist = NULL, s->hst = 0;
  memset(&s->os, 0, sizeof s->os);
  s->ucnt = malloc(((size_t)src->n->R + 1) * sizeof *s->ucnt);
  s->dt = s->dtag = s->dseq = NULL;
  s->fcap = s->dcap = s->nfree = 0;
  lbs_err e =
      s->ucnt ? sim_grow(s, src->fcap, src->dcap) : lbs_fail(LBS_NOMEM, "network simulation");
  if (e) {
    lbs_netsim_destroy(&s);
    return e;
  }
  size_t c = (size_t)src->fcap, d = (size_t)src->dcap;
  memcpy(s->f, src->f, c * sizeof *s->f), memcpy(s->tag, src->tag, c * sizeof *s->tag);
  memcpy(s->seq, src->seq, c * sizeof *s->seq), memcpy(s->freel, src->freel, c * sizeof *s->freel);
  memcpy(s->active, src->active, c * sizeof *s->active);
  memcpy(s->wait, src->wait, c * sizeof *s->wait);
  memcpy(s->pj, src->pj, c * sizeof *s->pj), memcpy(s->ws, src->ws, (c + 1) * sizeof *s->ws);
  one_copy(&s->os, &src->os, src->fcap);
  memcpy(s->ucnt, src->ucnt, ((size_t)src->n->R + 1) * sizeof *s->ucnt);
  memcpy(s->chist, src->chist, (size_t)NCLS * (size_t)src->hst * sizeof *s->chist);
  memcpy(s->dt, src->dt, d * sizeof *s->dt), memcpy(s->dtag, src->dtag, d * sizeof *s->dtag);
  memcpy(s->dseq, src->dseq, d * sizeof *s->dseq);
  s->nfree = src->nfree;
  *out = s;
  return LBS_OK;
}

lbs_err lbs_netsim_add(lbs_netsim *s, const lbs_transfer *t, int64_t tag) {
  lbs_net *n = s->n;
  if (t->p < 0 || t->p >= n->P || t->q < 0 || t->q >= n->P || !(t->bytes >= 0) || t->ready < s->now)
    return lbs_fail(
        LBS_INVAL, "network: transfer %d -> %d (%g bytes, ready at %lld ns) cannot join at %lld ns",
        t->p, t->q, t->bytes, (long long)t->ready, (long long)s->now);
  flow f;
  make_flow(n, t, 0, &f);
  lbs_err e = sim_grow(s, s->nfree ? s->fcap : 2 * s->fcap + 16,
                       s->nd < s->dcap ? s->dcap : 2 * s->dcap + 16);
  if (e) return e;
  if (f.nres == 0) { /* nothing shared: its own bandwidth, as start_flows() */
    s->dt[s->nd] = add_ns(f.act, f.rem > 0 ? ns_for(f.rem, f.bound) : 0);
    s->dtag[s->nd] = tag, s->dseq[s->nd] = s->nseq++;
    ded_up(s);
    return LBS_OK;
  }
  if (!s->dirty && f.act <= s->now) /* the fill at now is done: it would come too late */
    return lbs_fail(LBS_INVAL, "network: a flow joins at %lld ns, after the rates there were set",
                    (long long)f.act);
  int i = s->freel[--s->nfree];
  f.idx = i;
  s->f[i] = f;
  s->tag[i] = tag, s->seq[i] = s->nseq++;
  wait_push(s, i);
  if (!s->dirty && f.act < s->at) s->at = f.act;
  return LBS_OK;
}

int lbs_netsim_idle(const lbs_netsim *s) { return s->na == 0 && s->nw == 0 && s->nd == 0; }

/* Room for k tags in *tags. */
static lbs_err tags_room(int64_t **tags, int *cap, int k) {
  if (k <= *cap) return LBS_OK;
  int c = 2 * k + 16;
  int64_t *t = realloc(*tags, (size_t)c * sizeof *t);
  if (!t) return lbs_fail(LBS_NOMEM, "network: %d arrivals", k);
  *tags = t, *cap = c;
  return LBS_OK;
}

/* Orders slots by (activation time, order of addition): the order they became active in. */
static int by_act_seq(const void *pa, const void *pb, void *arg) {
  const lbs_netsim *s = arg;
  int i = *(const int *)pa, j = *(const int *)pb;
  return wait_less(s, i, j) ? -1 : wait_less(s, j, i);
}

/* The flows leave the sorted state (and pj) for the active list, in activation order, their
 * bits left back in f->rem. */
static void sim_unsort(lbs_netsim *s) {
  one_state *o = &s->os;
  int m = 0;
  for (int i = o->h; i < o->h + o->na; i++)
    s->f[o->id[i]].rem = one_val(o, i), s->active[m++] = o->id[i];
  for (int j = 0; j < s->npj; j++) s->active[m++] = s->pj[j];
  for (int e = o->lo; e <= o->hi; e++) o->cnt[e] = 0;
  o->h = 0, o->na = 0, o->lo = NSLOT, o->hi = -1;
  qsort_r(s->active, (size_t)m, sizeof *s->active, by_act_seq, s);
  s->sorted = 0, s->npj = 0;
}

/* The k flows ids[] into the sorted state, its places first moved down to the middle where
 * the end has no room for them (so each place moves once per c / 2 flows put in). */
static void sim_insert(lbs_netsim *s, const int *ids, int k) {
  one_state *o = &s->os;
  if (o->h + o->na + k > o->cap) {
    int h = (o->cap - o->na - k) / 2;
    memmove(o->id + h, o->id + o->h, (size_t)o->na * sizeof *o->id);
    o->h = h;
  }
  one_insert_all(o, ids, k, s->f);
}

/* The active flows into the sorted state. */
static void sim_sort(lbs_netsim *s) {
  sim_insert(s, s->active, s->na);
  s->sorted = 1, s->npj = 0;
}

/* NIC r's class (by capacity), or -1 when there are NCLS others. */
static int sim_class(lbs_netsim *s, int r) {
  double c = s->n->cap[r];
  for (int k = 0; k < s->nc; k++)
    if (s->ccap[k] == c) return k;
  if (s->nc == NCLS) return -1;
  s->ccap[s->nc] = c, s->ckmax[s->nc] = 0;
  memset(s->chist + (size_t)s->nc * (size_t)s->hst, 0, (size_t)s->hst * sizeof *s->chist);
  return s->nc++;
}

/* Flow f's NICs count it (d = 1) or not any more (d = -1); 0 when a NIC has no class. */
static int sim_count(lbs_netsim *s, const flow *f, int d) {
  for (int j = 1; j < f->nres; j++) {
    int r = f->res[j], c = sim_class(s, r);
    if (c < 0) return 0;
    int *h = s->chist + (size_t)c * (size_t)s->hst, k = s->ucnt[r];
    if (k) h[k]--;
    s->ucnt[r] = k += d;
    if (k) h[k]++;
    if (k > s->ckmax[c]) s->ckmax[c] = k;
    while (s->ckmax[c] > 0 && !h[s->ckmax[c]]) s->ckmax[c]--;
  }
  return 1;
}

/* The kind ends: the flows go to the active list, the NICs' counts are cleared. */
static void sim_unkind(lbs_netsim *s) {
  if (s->sorted) sim_unsort(s);
  for (int k = 0; k < s->na; k++) {
    const flow *f = &s->f[s->active[k]];
    for (int j = 1; j < f->nres; j++) s->ucnt[f->res[j]] = 0;
  }
  s->kind = 0, s->nc = 0;
}

/* Whether flow f is of the kind: ores first, the same weight and bound, NICs besides. */
static int sim_of_kind(const lbs_netsim *s, const flow *f) {
  if (f->nres < 1 || f->res[0] != s->ores || f->w != s->ow || f->bound != s->ob) return 0;
  for (int j = 1; j < f->nres; j++)
    if (f->res[j] < s->n->nlinks) return 0;
  return 1;
}

/* Flow i joins the na in flight: into the active list, or (sorted) in place by bits left. */
static void sim_join(lbs_netsim *s, int i) {
  const flow *f = &s->f[i];
  if (s->na == 0) { /* the first in flight sets the kind */
    s->ores = f->res[0], s->ow = f->w, s->ob = f->bound, s->nc = 0;
    s->kind = sim_of_kind(s, f), s->sorted = s->kind, s->npj = 0, s->ws[0] = 0, s->nws = 1;
  } else if (s->kind && !sim_of_kind(s, f))
    sim_unkind(s);
  if (s->kind && !sim_count(s, f, 1)) { /* a fifth NIC capacity: not counted any more */
    for (int j = 1; j < f->nres; j++) s->ucnt[f->res[j]] = 0;
    sim_unkind(s);
  }
  if (s->kind)
    for (; s->nws <= s->na + 1; s->nws++) s->ws[s->nws] = s->ws[s->nws - 1] + s->ow;
  if (s->sorted)
    s->pj[s->npj++] = i, s->na++; /* into the sorted state with the others due now (sim_fill) */
  else
    s->active[s->na++] = i;
}

/* When a flow with rem bits left ends at the one rate (next_event()'s cand). */
static int64_t sim_cand(const lbs_netsim *s, double rem) {
  return rem <= 0 ? s->now : s->rate > 0 ? add_ns(s->now, ns_for(rem, s->rate)) : NO_TIME;
}

/* fill()'s first round for the kind: its level lam (the least of the bound over the weight and
 * every resource's capacity over its weights, as fill() finds it); 1 when ores saturates there
 * (or the bound holds), so that every flow is fixed at one rate (s->rate). */
static int sim_level(lbs_netsim *s) {
  lbs_net *n = s->n;
  avail_at(n, s->ores, s->now);
  double lam = s->ob / s->ow, l0 = n->avail[s->ores] / s->ws[s->na];
  if (l0 < lam) lam = l0;
  for (int c = 0; c < s->nc; c++) {
    if (!s->ckmax[c]) continue;
    double cap = s->ccap[c] > s->ccap[c] * REL ? s->ccap[c] : 0, l = cap / s->ws[s->ckmax[c]];
    if (l < lam) lam = l;
  }
  double thr = lam * (1 + 1e-9);
  s->rate = lam * s->ow < s->ob ? lam * s->ow : s->ob;
  return s->ob / s->ow <= thr || l0 <= thr;
}

/* At a dirty now: the flows due join, their rates are filled, the next event found. */
static lbs_err sim_fill(lbs_netsim *s) {
  while (s->nw && s->f[s->wait[0]].act <= s->now) sim_join(s, wait_pop(s));
  int64_t nx = s->nw ? s->f[s->wait[0]].act : NO_TIME;
  s->at = nx;
  int one = s->na && s->kind && sim_level(s);
  if (one) {
    if (!s->sorted)
      sim_sort(s);
    else if (s->npj) {
      sim_insert(s, s->pj, s->npj);
      s->npj = 0;
    }
    int64_t c = sim_cand(s, one_val(&s->os, s->os.h)), b = s->n->nbp[s->ores];
    s->at = c < nx ? c : nx;
    if (b < s->at) s->at = b;
  } else if (s->na) {
    if (s->sorted) sim_unsort(s);
    fill(s->n, s->na, s->now, &s->nt);
    s->at = next_event(s->n, s->na, s->nt, s->now, nx);
  }
  if (s->na && s->at == NO_TIME)
    return lbs_fail(LBS_RANGE, "network: %d transfers can never finish", s->na);
  s->dirty = 0;
  return LBS_OK;
}

/* advance() for the sorted flows: the first k by bits left end (their tags in activation
 * order), the others lose rate x dt bits each (one_step). */
static void sim_advance_one(lbs_netsim *s, double dt, int64_t *tags, int *nout) {
  one_state *o = &s->os;
  int k = 0, *end = s->pj; /* pj is empty between a fill and its advance */
  while (o->na && sim_cand(s, one_val(o, o->h)) <= s->at) {
    o->cnt[o->e[o->id[o->h]]]--;
    end[k++] = o->id[o->h++], o->na--;
  }
  if (k > 1) qsort_r(end, (size_t)k, sizeof *end, by_act_seq, s);
  for (int j = 0; j < k; j++) {
    tags[(*nout)++] = s->tag[end[j]], s->freel[s->nfree++] = end[j];
    sim_count(s, &s->f[end[j]], -1);
  }
  s->na -= k;
  one_step(o, s->rate * dt);
}

/* advance()'s arithmetic from now to at: the flows due leave (their tags into *tags, in
 * activation order). */
static lbs_err sim_advance(lbs_netsim *s, int64_t **tags, int *nout, int *cap) {
  double dt = (double)(s->at - s->now);
  lbs_err e = tags_room(tags, cap, s->na);
  if (e) return e;
  if (s->sorted)
    sim_advance_one(s, dt, *tags, nout);
  else {
    int keep = 0;
    for (int j = 0; j < s->na; j++) {
      flow *f = &s->f[s->active[j]];
      if (f->cand <= s->at) {
        (*tags)[(*nout)++] = s->tag[f->idx];
        s->freel[s->nfree++] = f->idx;
        if (s->kind) sim_count(s, f, -1);
        continue;
      }
      f->rem -= f->rate * dt;
      if (f->rem < 0) f->rem = 0;
      s->active[keep++] = s->active[j];
    }
    s->na = keep;
  }
  s->now = s->at;
  s->dirty = 1;
  return LBS_OK;
}

lbs_err lbs_netsim_next(lbs_netsim *s, int64_t limit, int64_t *t, int64_t **tags, int *nout,
                        int *cap) {
  lbs_err e = LBS_OK;
  *nout = 0;
  sim_enter(s);
  while (!e && !*nout) {
    int64_t td = s->nd ? s->dt[0] : NO_TIME;
    if (s->dirty && td > s->now) { /* (what arrives at now is heard before the fill at now) */
      if (s->now > limit) break;
      if ((e = sim_fill(s))) break;
    }
    int64_t ta = s->dirty ? NO_TIME : s->at, tn = td <= ta ? td : ta;
    if (tn == NO_TIME || tn > limit) break;
    if (td <= ta) { /* transfers that share nothing, before the flows at the same ns */
      while (!e && s->nd && s->dt[0] == td) {
        if (!(e = tags_room(tags, cap, *nout + 1))) (*tags)[(*nout)++] = s->dtag[0], ded_pop(s);
      }
      *t = td;
      break;
    }
    e = sim_advance(s, tags, nout, cap);
    *t = s->now;
  }
  sim_leave(s);
  return e;
}

lbs_err lbs_net_run(lbs_net *n, lbs_transfer *xs, int nx) {
  if (nx <= 0) return LBS_OK;
  for (int i = 0; i < nx; i++)
    if (xs[i].p < 0 || xs[i].p >= n->P || xs[i].q < 0 || xs[i].q >= n->P || xs[i].ready < 0 ||
        !(xs[i].bytes >= 0))
      return lbs_fail(LBS_INVAL,
                      "network: transfer %d (%d -> %d, %g bytes, ready at %lld ns) is not one", i,
                      xs[i].p, xs[i].q, xs[i].bytes, (long long)xs[i].ready);
  return n->fair ? run_fair(n, xs, nx) : run_fifo(n, xs, nx);
}
