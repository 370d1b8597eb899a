/* execute.c - elastic function execution (seed 004, 5.4): a plan's calls for one invocation,
 * run for real. The lookups are made before the run (the tree of calls and every
 * implementation's device opened), so the timed part is what an application would wait for:
 * the template's splits, its threads, the implementations and the combines. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_plan.h"

typedef struct call {
  double x; /* planned work */
  int ws;
  /* an implementation */
  const lbs_impl_ops *ops;
  void *ctx;
  int impl;
  /* a template */
  const lbs_template *tmpl;
  double wa; /* planned work of side a */
  struct call *a, *b;
} call;

struct lbs_exec {
  const lbs_plan *plan;
  call *root;
};

static void call_free(call *c) {
  if (!c) return;
  call_free(c->a);
  call_free(c->b);
  if (c->ops && c->ops->close) c->ops->close(c->ctx);
  free(c);
}

lbs_err lbs_plan_impl_open(const lbs_plan_impl *m, const lbs_impl_ops **ops, void **ctx) {
  *ops = NULL, *ctx = NULL;
  const lbs_impl_ops *o;
  lbs_err e = lbs_impl_find(m->impl, &o);
  if (e) return e;
  int is_dev = 0, threads = 1;
  lbs_plan_needs(m->impl, m->device, &threads, &is_dev);
  for (int d = 0; d < (is_dev ? 16 : 1); d++) {
    lbs_impl_args args = {threads, d};
    char desc[160] = "";
    void *c = NULL;
    e = o->open(&c, &args, desc, sizeof desc);
    if (e) break;
    if (!is_dev || !strcmp(desc, m->device)) {
      *ops = o, *ctx = c;
      return LBS_OK;
    }
    o->close(c);
  }
  return lbs_fail(e ? e : LBS_NOTFOUND, "plan: %s: its device '%s' is not here%s%s", m->impl,
                  m->device, e ? ": " : "", e ? lbs_errmsg() : "");
}

/* The calls for work x on working set ws. */
static lbs_err plan_call(const lbs_plan *p, int ws, double x, int depth, call **out) {
  *out = NULL;
  const lbs_piece *pc = lbs_graph_find(&p->fpg[ws], x);
  if (!pc || depth > 2 * LBS_PLAN_MAX_THREADS)
    return lbs_fail(LBS_RANGE, "plan: no entry for work %g on working set %d", x, ws);
  call *c = calloc(1, sizeof *c);
  if (!c) return lbs_fail(LBS_NOMEM, "plan: calls");
  c->x = x, c->ws = ws, c->impl = -1;
  lbs_err e = LBS_OK;
  if (pc->src >= 0) {
    c->impl = pc->src;
    e = lbs_plan_impl_open(&p->impl[pc->src], &c->ops, &c->ctx);
  } else {
    int tws = LBS_PLAN_TMPL_WS(pc->src);
    const lbs_piece *pp = lbs_graph_find(&p->pg[tws], x);
    c->tmpl = lbs_template_find(p->kernel);
    if (!pp || !c->tmpl)
      e = lbs_fail(LBS_CORRUPT, "plan: the template of %s has no split for work %g", p->kernel, x);
    else {
      const lbs_plan_split *s = &p->split[pp->src];
      c->ws = tws;
      c->wa = lbs_piece_a(pp, x);
      if (c->wa < 0) c->wa = 0;
      if (c->wa > x) c->wa = x;
      e = plan_call(p, s->ws_a, c->wa, depth + 1, &c->a);
      if (!e) e = plan_call(p, s->ws_b, x - c->wa, depth + 1, &c->b);
    }
  }
  if (e) {
    call_free(c);
    return e;
  }
  *out = c;
  return LBS_OK;
}

lbs_err lbs_exec_create(const lbs_plan *p, int ws, double x, lbs_exec **out, double *pred_s) {
  *out = NULL;
  if (ws < 0 || ws >= p->nws) return lbs_fail(LBS_RANGE, "plan: working set %d of %d", ws, p->nws);
  lbs_exec *e = calloc(1, sizeof *e);
  if (!e) return lbs_fail(LBS_NOMEM, "plan: execution");
  e->plan = p;
  lbs_err err = plan_call(p, ws, x, 0, &e->root);
  if (err) {
    free(e);
    return err;
  }
  if (pred_s) *pred_s = lbs_plan_time(p, ws, x);
  *out = e;
  return LBS_OK;
}

typedef struct job {
  call *c;
  void *params;
  lbs_err err;
  char msg[512];
} job;

static lbs_err run(call *c, void *params);

static void *run_job(void *arg) {
  job *j = arg;
  j->err = run(j->c, j->params);
  if (j->err) snprintf(j->msg, sizeof j->msg, "%s", lbs_errmsg());
  return NULL;
}

/* Runs c on params: an implementation, or a template's split, both sides at once (side a on a
 * thread of its own), and its combine. A side the split left without work is not run. */
static lbs_err run(call *c, void *params) {
  if (c->ops) return c->ops->execute(c->ctx, params);
  const lbs_template *t = c->tmpl;
  union {
    char bytes[256];
    double align;
  } va, vb;
  if (t->size > sizeof va.bytes)
    return lbs_fail(LBS_INVAL, "plan: template view of %zu bytes", t->size);
  double wa = t->split(params, c->wa, va.bytes, vb.bytes), wb = c->x - wa;
  job ja = {c->a, va.bytes, LBS_OK, ""};
  pthread_t th;
  int threaded = 0;
  if (wa > 0) {
    if (wb > 0 && pthread_create(&th, NULL, run_job, &ja) == 0)
      threaded = 1;
    else
      run_job(&ja);
  }
  lbs_err eb = wb > 0 ? run(c->b, vb.bytes) : LBS_OK;
  char mb[512] = "";
  if (eb) snprintf(mb, sizeof mb, "%s", lbs_errmsg());
  if (threaded) pthread_join(th, NULL);
  if (ja.err) return lbs_fail(ja.err, "%s", ja.msg);
  if (eb) return lbs_fail(eb, "%s", mb);
  return t->combine(params, va.bytes, vb.bytes);
}

lbs_err lbs_exec_run(lbs_exec *e, void *params) { return run(e->root, params); }

static void describe(const lbs_exec *e, const call *c, char *buf, size_t n, size_t *k) {
  if (*k >= n) return;
  if (c->ops) {
    int w = snprintf(buf + *k, n - *k, "%s(%.6g)", e->plan->impl[c->impl].impl, c->x);
    *k += w > 0 ? (size_t)w : 0;
    return;
  }
  int w = snprintf(buf + *k, n - *k, "[");
  *k += w > 0 ? (size_t)w : 0;
  describe(e, c->a, buf, n, k);
  if (*k < n) {
    w = snprintf(buf + *k, n - *k, " | ");
    *k += w > 0 ? (size_t)w : 0;
  }
  describe(e, c->b, buf, n, k);
  if (*k < n) {
    w = snprintf(buf + *k, n - *k, "]");
    *k += w > 0 ? (size_t)w : 0;
  }
}

void lbs_exec_describe(const lbs_exec *e, char *buf, size_t n) {
  size_t k = 0;
  if (n) buf[0] = '\0';
  if (e && e->root) describe(e, e->root, buf, n, &k);
}

void lbs_exec_destroy(lbs_exec **e) {
  if (!e || !*e) return;
  call_free((*e)->root);
  free(*e);
  *e = NULL;
}
