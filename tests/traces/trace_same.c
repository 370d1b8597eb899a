/* trace_same.c - compares two traces' loads, recorded owners and arc weights, step by step:
 * what `lbsim export vt` then `trace import --vt` must give back exactly (tests/e2e/export_vt.sh,
 * bench/vt_import.sh).
 *
 * usage: trace_same [--ns] A.lbt B.lbt [METRIC]
 *   loads    every element's METRIC of A (default time_ns) against B's time_ns, bit for bit;
 *            with --ns A's rounded to the ns first (nearbyint, as the vt import rounds a time),
 *            for a trace whose times are not whole ns (the profiler's TSC conversions)
 *   owners   every element's recorded owner in force at each step (each trace's own app steps),
 *            when both have them (a trace without: "owners: only in B", compared elsewhere)
 *   arcs     every arc's weight at each step (lbs_trace_edge_weights), matched by its two ends:
 *            an arc of weight > 0 in one must weigh the same in the other
 *   pinned   the pinned elements (lbs_trace_pinned) and the meta that says which elements are
 *            absent when idle (absent) and which are a vt run's nodes (vt.node_elements,
 *            vt.node_ranks): the same in both
 * Prints "compared L loads, O owners, W arc weights: M mismatches" and the first mismatches;
 * exit 0 when there are none, 1 when there are, 2 on an error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_traces.h"

typedef struct {
  lbs_trace *t;
  int64_t *own;
  double *v, *cw;
  const int64_t *xadj, *adj;
} side;

static int64_t mism, shown;

static void miss(const char *fmt, long long s, long long a, long long b, double x, double y) {
  mism++;
  if (shown++ < 10) {
    printf("mismatch: ");
    printf(fmt, s, a, b, x, y);
    printf("\n");
  }
}

/* The owners in force at step s (app step): the last recorded assignment whose first step is
 * <= it. 0 when the trace has none. */
static int owners_at(side *x, int64_t s) {
  int64_t n = lbs_trace_owners_count(x->t), app = 0, i = 0;
  if (n < 1) return 0;
  lbs_trace_app_step(x->t, s, &app);
  while (i + 1 < n && lbs_trace_owners_step(x->t, i + 1) <= app) i++;
  return lbs_trace_owners_read(x->t, i, x->own) == LBS_OK;
}

/* The weight of arc u -> v in x at the step (its cw), -1 when x has no such arc. */
static double arc(const side *x, int64_t u, int64_t v) {
  if (!x->xadj) return -1;
  for (int64_t k = x->xadj[u]; k < x->xadj[u + 1]; k++)
    if (x->adj[k] == v) return x->cw[k];
  return -1;
}

/* Every arc of weight > 0 in x weighs the same in y at step s. */
static int64_t arcs(const side *x, const side *y, int64_t s, int64_t E) {
  int64_t n = 0;
  for (int64_t u = 0; x->xadj && u < E; u++)
    for (int64_t k = x->xadj[u]; k < x->xadj[u + 1]; k++) {
      if (!(x->cw[k] > 0)) continue;
      double w = arc(y, u, x->adj[k]);
      n++;
      if (w != x->cw[k])
        miss("step %lld arc %lld -> %lld: %.17g and %.17g", s, u, x->adj[k], x->cw[k], w);
    }
  return n;
}

static int open_side(const char *path, side *x, int64_t E) {
  if (lbs_trace_open(path, &x->t)) return fprintf(stderr, "%s: %s\n", path, lbs_errmsg()), 0;
  x->own = malloc((size_t)E * sizeof *x->own);
  x->v = malloc((size_t)E * sizeof *x->v);
  lbs_mesh *m = lbs_trace_mesh(x->t);
  const double *w;
  if (m && !lbs_mesh_graph(m, &x->xadj, &x->adj, &w))
    x->cw = malloc((size_t)(x->xadj[E] + 1) * sizeof *x->cw);
  else
    x->xadj = x->adj = NULL;
  return x->own && x->v && (!x->xadj || x->cw);
}

int main(int argc, char **argv) {
  int ns = argc > 1 && !strcmp(argv[1], "--ns");
  argc -= ns, argv += ns;
  if (argc < 3 || argc > 4)
    return fprintf(stderr, "usage: trace_same [--ns] A.lbt B.lbt [METRIC]\n"), 2;
  side a = {0}, b = {0};
  lbs_trace *probe;
  if (lbs_trace_open(argv[1], &probe)) return fprintf(stderr, "%s: %s\n", argv[1], lbs_errmsg()), 2;
  int64_t E = lbs_trace_elements(probe), S = lbs_trace_steps(probe);
  lbs_trace_close(&probe);
  if (!open_side(argv[1], &a, E) || !open_side(argv[2], &b, E)) return 2;
  if (lbs_trace_elements(b.t) != E || lbs_trace_steps(b.t) != S)
    return printf("mismatch: %lld elements x %lld steps, and %lld x %lld\n", (long long)E,
                  (long long)S, (long long)lbs_trace_elements(b.t),
                  (long long)lbs_trace_steps(b.t)),
           1;
  int ma = lbs_trace_metric_find(a.t, argc > 3 ? argv[3] : "time_ns");
  int mb = lbs_trace_metric_find(b.t, "time_ns");
  if (ma < 0 || mb < 0) return fprintf(stderr, "no such metric\n"), 2;
  int64_t nload = 0, nown = 0, narc = 0, only = 0;
  double maxdiff = 0; /* the largest |a - b| of the loads as A holds them */
  for (int64_t s = 0; s < S; s++) {
    if (lbs_trace_read(a.t, s, ma, 0, E, a.v) || lbs_trace_read(b.t, s, mb, 0, E, b.v))
      return fprintf(stderr, "step %lld: %s\n", (long long)s, lbs_errmsg()), 2;
    for (int64_t e = 0; e < E; e++, nload++) {
      double d = fabs(a.v[e] - b.v[e]);
      maxdiff = d > maxdiff ? d : maxdiff;
      if (ns) a.v[e] = nearbyint(a.v[e]);
      if (memcmp(&a.v[e], &b.v[e], sizeof a.v[e]))
        miss("step %lld element %lld (%lld): load %.17g and %.17g", s, e, 0, a.v[e], b.v[e]);
    }
    int ha = owners_at(&a, s), hb = owners_at(&b, s);
    if (ha && !hb) miss("step %lld: owners in A only (%lld %lld)", s, 0, 0, 0, 0);
    only += !ha && hb;
    for (int64_t e = 0; ha && hb && e < E; e++, nown++)
      if (a.own[e] != b.own[e])
        miss("step %lld element %lld: owner %lld and %.0f%.0f", s, e, a.own[e], (double)b.own[e],
             0);
    if ((a.xadj && lbs_trace_edge_weights(a.t, s, a.cw)) ||
        (b.xadj && lbs_trace_edge_weights(b.t, s, b.cw)))
      return fprintf(stderr, "step %lld: %s\n", (long long)s, lbs_errmsg()), 2;
    narc += arcs(&a, &b, s, E);
    arcs(&b, &a, s, E); /* B has no arc A lacks (counted once: A's) */
  }
  /* which elements are pinned, absent when idle, node elements: the same model of the run */
  unsigned char *pa = malloc((size_t)E + 1), *pb = malloc((size_t)E + 1);
  int64_t na = 0, nb = 0;
  if (!pa || !pb || lbs_trace_pinned(a.t, pa, &na) || lbs_trace_pinned(b.t, pb, &nb))
    return fprintf(stderr, "pinned: %s\n", lbs_errmsg()), 2;
  for (int64_t e = 0; e < E; e++)
    if (pa[e] != pb[e]) miss("element %lld: pinned %lld and %lld%.0f%.0f", e, pa[e], pb[e], 0, 0);
  free(pa), free(pb);
  static const char *keys[] = {LBS_META_ABSENT, LBS_VT_META_NODE_ELEMENTS, LBS_VT_META_NODE_RANKS};
  for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
    const char *x = lbs_trace_meta(a.t, keys[k]), *y = lbs_trace_meta(b.t, keys[k]);
    if ((x || y) && (!x || !y || strcmp(x, y))) {
      mism++;
      printf("mismatch: meta %s: '%s' and '%s'\n", keys[k], x ? x : "(none)", y ? y : "(none)");
    }
  }
  printf("compared %lld loads%s, %lld owners, %lld arc weights: %lld mismatches (loads differ by "
         "%.3g at most)%s; pinned (%lld) and meta absent, node elements compared\n",
         (long long)nload, ns ? " (A's rounded to the ns)" : "", (long long)nown, (long long)narc,
         (long long)mism, maxdiff, only ? "; owners: only in B" : "", (long long)na);
  free(a.own), free(a.v), free(a.cw), free(b.own), free(b.v), free(b.cw);
  lbs_trace_close(&a.t), lbs_trace_close(&b.t);
  return mism ? 1 : 0;
}
