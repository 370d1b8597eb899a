/* overlap.c - des with [sim] des_overlap = shared (or auto, the default, where it applies): the
 * halos of overlapping steps share the network as SimGrid shares them (docs/design.md, "Steps
 * that overlap").
 *
 * The network is one simulation that goes on across steps (lbs_netsim, network.c). A
 * processor's transfers of step k join it when the processor starts computing step k: when its
 * own compute of step k-1 is done and the halos of step k-1 into it have arrived (its gate),
 * plus the step's outside time; they are ready when its compute of step k is done. Arrivals are
 * events of that same simulation, and gates events of this file's own heap, interleaved in time
 * so that the network computes no rates at a time before every transfer starting then has
 * joined.
 *
 * A policy decides before each step, and the next step's transfers may slow this step's: so the
 * simulation runs after step s joins only until the first processor is through step s (it
 * would start step s + 1, not decided yet). What a step's time is at that point is not final.
 * The policy sees each step in flight as if it were the last before a barrier: a copy of the
 * simulation run to its end with no later step. That time is final when the policy repartitions
 * (the barrier stops the next step from starting); otherwise the step's recorded time becomes
 * the one it has with the later steps' traffic, once every processor is through it.
 *
 * Every rank runs the same simulation on the same agreed loads and halos: the answer does not
 * depend on the number of ranks. */
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

/* A step in flight: decided, not every processor through it. */
typedef struct {
  int64_t s;        /* window step */
  int64_t *load;    /* P: compute ns */
  int64_t outside;  /* what each processor adds after the step (x->outside_ns) */
  xfer *halo;       /* its transfers, sorted by (p, q) */
  int nhalo, *hoff; /* halo[hoff[p] .. hoff[p + 1]): p's */
  int *pend;        /* P: transfers into each processor not arrived yet */
  int64_t *arr;     /* P: the latest arrival into each */
  int left;         /* processors not through it */
  int64_t after;    /* the latest time a processor is through it (its clock then) */
} ostep;

struct lbs__ovl {
  lbs_netsim *sim;
  int P;
  ostep *st; /* steps lo .. lo + nst - 1 in flight, st[0] the oldest */
  int nst, cap;
  int64_t next;           /* the next window step to join */
  int64_t before;         /* the latest clock before st[0] (its step time counts from there) */
  int64_t *k;             /* P: the step each processor is in (or through, when blocked) */
  int64_t *done, *clock;  /* P: when its compute of that step ends; when it started it */
  unsigned char *blocked; /* P: through the newest step, waiting for the next to join */
  int nblocked;
  int64_t *gt; /* gate events: a heap by (time, processor) */
  int *gp, ng;
  int64_t *tags; /* arrivals handed back */
  int tcap;
  int64_t *out; /* where finished step times go: x->r->step_ns (a copy: its own scratch) */
};

int lbs__ovl_on(const lbs__engine *x) {
  return x->o->mode == LBS_MODE_DES && x->o->des_overlap != LBS_DES_ORDERED &&
         lbs_grid_sharing(x->g) == LBS_SHARING_FAIR && x->nph <= 1 && !x->live &&
         !lbs__plans_ahead(x);
}

static void step_free(ostep *t) {
  free(t->load), free(t->halo), free(t->hoff), free(t->pend), free(t->arr);
  memset(t, 0, sizeof *t);
}

static void ovl_free(lbs__ovl **op) {
  lbs__ovl *o = *op;
  if (!o) return;
  lbs_netsim_destroy(&o->sim);
  for (int i = 0; i < o->nst; i++) step_free(&o->st[i]);
  free(o->st), free(o->k), free(o->done), free(o->clock), free(o->blocked), free(o->gt),
      free(o->gp);
  free(o->tags), free(o);
  *op = NULL;
}

void lbs__ovl_free(lbs__engine *x) { ovl_free(&x->ovl); }

/* A simulation from the current clocks, every processor waiting for window step s. */
static lbs_err ovl_start(lbs__engine *x, int64_t s) {
  lbs__ovl *o = calloc(1, sizeof *o);
  int P = x->P;
  if (o) {
    o->P = P;
    o->k = malloc((size_t)P * sizeof *o->k);
    o->done = malloc((size_t)P * sizeof *o->done);
    o->clock = malloc((size_t)P * sizeof *o->clock);
    o->blocked = malloc((size_t)P);
    o->gt = malloc((size_t)P * sizeof *o->gt);
    o->gp = malloc((size_t)P * sizeof *o->gp);
  }
  if (!o || !o->k || !o->done || !o->clock || !o->blocked || !o->gt || !o->gp) {
    ovl_free(&o);
    return lbs_fail(LBS_NOMEM, "des overlap: %d processors", P);
  }
  int64_t t0 = 0;
  for (int p = 0; p < P; p++) {
    o->k[p] = s - 1, o->clock[p] = x->clock[p], o->blocked[p] = 1;
    t0 = x->clock[p] > t0 ? x->clock[p] : t0;
  }
  o->nblocked = P;
  o->next = s;
  o->before = t0;
  o->out = x->r->step_ns;
  int64_t tmin = t0;
  for (int p = 0; p < P; p++) tmin = x->clock[p] < tmin ? x->clock[p] : tmin;
  lbs_err e = lbs_netsim_create(x->net, tmin, &o->sim);
  if (e) ovl_free(&o);
  x->ovl = o;
  return e;
}

static void gate_push(lbs__ovl *o, int64_t t, int p) {
  int k = o->ng++;
  while (k > 0) {
    int u = (k - 1) / 2;
    if (o->gt[u] < t || (o->gt[u] == t && o->gp[u] < p)) break;
    o->gt[k] = o->gt[u], o->gp[k] = o->gp[u];
    k = u;
  }
  o->gt[k] = t, o->gp[k] = p;
}

static void gate_pop(lbs__ovl *o) {
  int64_t t = o->gt[--o->ng];
  int p = o->gp[o->ng], k = 0;
  for (;;) {
    int c = 2 * k + 1;
    if (c >= o->ng) break;
    if (c + 1 < o->ng &&
        (o->gt[c + 1] < o->gt[c] || (o->gt[c + 1] == o->gt[c] && o->gp[c + 1] < o->gp[c])))
      c++;
    if (t < o->gt[c] || (t == o->gt[c] && p < o->gp[c])) break;
    o->gt[k] = o->gt[c], o->gp[k] = o->gp[c];
    k = c;
  }
  if (o->ng) o->gt[k] = t, o->gp[k] = p;
}

static ostep *step_of(lbs__ovl *o, int64_t s) { return &o->st[s - o->st[0].s]; }

/* Processor p's gate of its step, once its compute is done and its halo in. */
static void gate_check(lbs__ovl *o, int p) {
  ostep *t = step_of(o, o->k[p]);
  if (t->pend[p] == 0) gate_push(o, o->done[p] > t->arr[p] ? o->done[p] : t->arr[p], p);
}

/* Processor p starts step s at its clock: its transfers join, ready when its compute is done. */
static lbs_err proc_start(lbs__ovl *o, int p, int64_t s) {
  ostep *t = step_of(o, s);
  o->k[p] = s;
  o->done[p] = o->clock[p] + t->load[p]; /* lbs__compute_done without phases */
  lbs_err e = LBS_OK;
  for (int i = t->hoff[p]; !e && i < t->hoff[p + 1]; i++) {
    lbs_transfer tr = t->halo[i];
    tr.ready = o->done[p];
    e = lbs_netsim_add(o->sim, &tr, (s << 32) | (int64_t)i);
  }
  if (!e) gate_check(o, p);
  return e;
}

/* The steps every processor is through leave, oldest first, their times final. */
static void steps_retire(lbs__ovl *o) {
  while (o->nst && o->st[0].left == 0) {
    ostep *t = &o->st[0];
    o->out[t->s] = t->after - o->before;
    o->before = t->after;
    step_free(t);
    memmove(o->st, o->st + 1, (size_t)(--o->nst) * sizeof *o->st);
  }
}

/* Processor p's gate at time g: through its step; on to the next one, or blocked. */
static lbs_err gate_pass(lbs__ovl *o, int p, int64_t g) {
  ostep *t = step_of(o, o->k[p]);
  int64_t c = g + t->outside;
  o->clock[p] = c;
  if (c > t->after) t->after = c;
  t->left--;
  int64_t s = o->k[p];
  steps_retire(o);
  if (s + 1 < o->next) return proc_start(o, p, s + 1);
  o->blocked[p] = 1, o->nblocked++;
  return LBS_OK;
}

static void arrival(lbs__ovl *o, int64_t tag, int64_t t) {
  ostep *st = step_of(o, tag >> 32);
  int q = st->halo[tag & 0xffffffff].q;
  if (t > st->arr[q]) st->arr[q] = t;
  if (--st->pend[q] == 0 && o->k[q] == st->s && !o->blocked[q]) gate_check(o, q);
}

/* Runs events in time order until a processor is blocked (drain: until none is in flight). */
static lbs_err ovl_run(lbs__ovl *o, int drain) {
  lbs_err e = LBS_OK;
  while (!e && (drain || o->nblocked == 0)) {
    int64_t te = o->ng ? o->gt[0] : INT64_MAX, t = 0;
    int nout = 0;
    e = lbs_netsim_next(o->sim, te == INT64_MAX ? te : te - 1, &t, &o->tags, &nout, &o->tcap);
    for (int i = 0; !e && i < nout; i++) arrival(o, o->tags[i], t);
    if (e || nout) continue;
    if (te == INT64_MAX) {
      if (!lbs_netsim_idle(o->sim) || o->nst)
        e = lbs_fail(LBS_RANGE, "des overlap: %d steps left with nothing to run", o->nst);
      break;
    }
    int p = o->gp[0];
    gate_pop(o);
    e = gate_pass(o, p, te);
  }
  return e;
}

/* Step s joins with the current loads, halo and outside time. */
static lbs_err step_join(lbs__engine *x, lbs__ovl *o, int64_t s) {
  int P = x->P;
  if (o->nst == o->cap) {
    int c = 2 * o->cap + 4;
    ostep *st = realloc(o->st, (size_t)c * sizeof *st);
    if (!st) return lbs_fail(LBS_NOMEM, "des overlap: %d steps in flight", c);
    o->st = st, o->cap = c;
  }
  ostep *t = &o->st[o->nst];
  memset(t, 0, sizeof *t);
  t->s = s, t->outside = x->outside_ns, t->nhalo = x->nhalo, t->left = P;
  t->load = malloc((size_t)P * sizeof *t->load);
  t->halo = malloc((size_t)(x->nhalo + 1) * sizeof *t->halo);
  t->hoff = calloc((size_t)P + 1, sizeof *t->hoff);
  t->pend = calloc((size_t)P, sizeof *t->pend);
  t->arr = calloc((size_t)P, sizeof *t->arr);
  if (!t->load || !t->halo || !t->hoff || !t->pend || !t->arr) {
    step_free(t);
    return lbs_fail(LBS_NOMEM, "des overlap: step %lld", (long long)s);
  }
  o->nst++;
  /* a single phase is the step's compute as lbs__compute_done charges it (no synchronisation) */
  memcpy(t->load, x->nph == 1 ? x->phload : x->load, (size_t)P * sizeof *t->load);
  memcpy(t->halo, x->halo, (size_t)x->nhalo * sizeof *t->halo);
  for (int i = 0; i < x->nhalo; i++) t->hoff[x->halo[i].p + 1]++, t->pend[x->halo[i].q]++;
  for (int p = 0; p < P; p++) t->hoff[p + 1] += t->hoff[p];
  o->next = s + 1;
  lbs_err e = LBS_OK;
  for (int p = 0; !e && p < P; p++)
    if (o->blocked[p]) o->blocked[p] = 0, o->nblocked--, e = proc_start(o, p, s);
  return e;
}

/* The copy of o that goes on alone (its step times into out). */
static lbs_err ovl_copy(const lbs__ovl *o, int64_t *out, lbs__ovl **cp) {
  lbs__ovl *c = calloc(1, sizeof *c);
  int P = o->P;
  lbs_err e = c ? LBS_OK : lbs_fail(LBS_NOMEM, "des overlap");
  if (e) return e;
  *c = *o;
  c->sim = NULL, c->tags = NULL, c->tcap = 0, c->out = out;
  c->st = calloc((size_t)o->cap + 1, sizeof *c->st), c->nst = 0;
  c->k = malloc((size_t)P * sizeof *c->k), c->done = malloc((size_t)P * sizeof *c->done);
  c->clock = malloc((size_t)P * sizeof *c->clock), c->blocked = malloc((size_t)P);
  c->gt = malloc((size_t)P * sizeof *c->gt), c->gp = malloc((size_t)P * sizeof *c->gp);
  if (!c->st || !c->k || !c->done || !c->clock || !c->blocked || !c->gt || !c->gp)
    e = lbs_fail(LBS_NOMEM, "des overlap");
  for (int i = 0; !e && i < o->nst; i++) {
    const ostep *a = &o->st[i];
    ostep *b = &c->st[i];
    *b = *a;
    b->load = malloc((size_t)P * sizeof *b->load),
    b->hoff = malloc((size_t)(P + 1) * sizeof *b->hoff);
    b->pend = malloc((size_t)P * sizeof *b->pend), b->arr = malloc((size_t)P * sizeof *b->arr);
    b->halo = malloc((size_t)(a->nhalo + 1) * sizeof *b->halo);
    c->nst++;
    if (!b->load || !b->hoff || !b->pend || !b->arr || !b->halo) {
      e = lbs_fail(LBS_NOMEM, "des overlap");
      break;
    }
    memcpy(b->load, a->load, (size_t)P * sizeof *b->load);
    memcpy(b->hoff, a->hoff, (size_t)(P + 1) * sizeof *b->hoff);
    memcpy(b->pend, a->pend, (size_t)P * sizeof *b->pend);
    memcpy(b->arr, a->arr, (size_t)P * sizeof *b->arr);
    memcpy(b->halo, a->halo, (size_t)a->nhalo * sizeof *b->halo);
  }
  if (!e) {
    memcpy(c->k, o->k, (size_t)P * sizeof *c->k),
        memcpy(c->done, o->done, (size_t)P * sizeof *c->done);
    memcpy(c->clock, o->clock, (size_t)P * sizeof *c->clock),
        memcpy(c->blocked, o->blocked, (size_t)P);
    memcpy(c->gt, o->gt, (size_t)o->ng * sizeof *c->gt),
        memcpy(c->gp, o->gp, (size_t)o->ng * sizeof *c->gp);
    e = lbs_netsim_copy(o->sim, &c->sim);
  }
  if (e) ovl_free(&c);
  *cp = c;
  return e;
}

lbs_err lbs__ovl_step(lbs__engine *x, int64_t s, int64_t *adv) {
  lbs_err e = x->ovl ? LBS_OK : ovl_start(x, s);
  lbs__ovl *o = x->ovl, *c = NULL;
  if (!e) e = step_join(x, o, s);
  if (!e) e = ovl_run(o, 0);
  /* the steps in flight as if s were the last before a barrier: a copy run to its end, for a
   * policy that reads them */
  unsigned flags = x->policy ? lbs_policy_ops_of(x->policy)->flags : 0;
  if (!e && o->nst && !(flags & LBS_POLICY_NO_STEP_TIMES)) e = ovl_copy(o, x->r->step_ns, &c);
  if (!e && c) e = ovl_run(c, 1);
  ovl_free(&c);
  if (!e) *adv = x->r->step_ns[s];
  return e;
}

lbs_err lbs__ovl_drain(lbs__engine *x) {
  lbs__ovl *o = x->ovl;
  if (!o) return LBS_OK;
  lbs_err e = ovl_run(o, 1);
  for (int p = 0; !e && p < x->P; p++) x->clock[p] = o->clock[p];
  ovl_free(&x->ovl);
  lbs_net_reset(x->net);
  return e;
}
