/* racecar.c - the RACECAR heuristic (seed 004, 5.3): function performance graphs (lower
 * envelopes), segment adding (Table 5-1), restricted parallelization graphs, parallelization
 * graphs, and the loop over working sets that builds a node's plan. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lbs_plan.h"

/* ---------------------------------------------------------------- graphs */

void lbs_graph_free(lbs_graph *g) {
  free(g->p);
  g->p = NULL;
  g->n = g->cap = 0;
}

const lbs_piece *lbs_graph_find(const lbs_graph *g, double x) {
  if (!g || g->n <= 0) return NULL;
  int lo = 0, hi = g->n - 1; /* the first piece with x <= x1 */
  if (x > g->p[hi].x1) return &g->p[hi];
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (g->p[mid].x1 < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return x >= g->p[lo].x0 ? &g->p[lo] : NULL;
}

static double lerp(double x0, double x1, double v0, double v1, double x) {
  return x1 > x0 ? v0 + (v1 - v0) * (x - x0) / (x1 - x0) : v1;
}

double lbs_graph_eval(const lbs_graph *g, double x) {
  const lbs_piece *p = lbs_graph_find(g, x);
  return p ? lerp(p->x0, p->x1, p->t0, p->t1, x) : NAN;
}

double lbs_piece_a(const lbs_piece *p, double x) { return lerp(p->x0, p->x1, p->a0, p->a1, x); }

/* p restricted to [l, r] (inside it). */
static lbs_piece cut(const lbs_piece *p, double l, double r) {
  lbs_piece c = *p;
  c.x0 = l, c.x1 = r;
  c.t0 = lerp(p->x0, p->x1, p->t0, p->t1, l), c.t1 = lerp(p->x0, p->x1, p->t0, p->t1, r);
  c.a0 = lbs_piece_a(p, l), c.a1 = lbs_piece_a(p, r);
  return c;
}

static int same(double a, double b) {
  return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b)) + 1e-300;
}

/* Appends c, joining it to the last piece when that has the same source and c continues its
 * line (time and split). Zero-width pieces are dropped. */
static lbs_err push(lbs_graph *g, lbs_piece c) {
  if (!(c.x1 > c.x0)) return LBS_OK;
  if (g->n) {
    lbs_piece *l = &g->p[g->n - 1];
    if (l->src == c.src && same(l->x1, c.x0) && same(l->t1, c.t0) && same(l->a1, c.a0) &&
        same(lerp(l->x0, l->x1, l->t0, l->t1, c.x1), c.t1) &&
        same(lerp(l->x0, l->x1, l->a0, l->a1, c.x1), c.a1)) {
      l->x1 = c.x1, l->t1 = c.t1, l->a1 = c.a1;
      return LBS_OK;
    }
  }
  if (g->n == g->cap) {
    int cap = g->cap ? 2 * g->cap : 8;
    lbs_piece *np = realloc(g->p, (size_t)cap * sizeof *np);
    if (!np) return lbs_fail(LBS_NOMEM, "plan: graph");
    g->p = np, g->cap = cap;
  }
  g->p[g->n++] = c;
  return LBS_OK;
}

lbs_err lbs_graph_from_ipg(const lbs_ipg *g, double hi, int src, lbs_graph *out) {
  lbs_graph r = {0};
  if (!g || g->n < 1) return lbs_fail(LBS_RANGE, "plan: an IPG without points");
  double x = 0, t = lbs_ipg_eval(g, 0);
  /* past the last point: the last segment's slope when it rises, else the last point's time per
   * unit (a partial IPG whose noisy last segment falls would reach negative times) */
  double wl = g->w[g->n - 1], tl = g->t[g->n - 1];
  double sl = g->n >= 2 && wl > g->w[g->n - 2] ? (tl - g->t[g->n - 2]) / (wl - g->w[g->n - 2]) : 0;
  if (!(sl > 0)) sl = wl > 0 ? tl / wl : 0;
  lbs_err e = LBS_OK;
  for (int i = 0; i <= g->n && !e && x < hi; i++) {
    double nx = i < g->n ? g->w[i] : hi;
    if (nx > hi) nx = hi;
    if (!(nx > x)) continue;
    double nt = i < g->n ? lbs_ipg_eval(g, nx) : tl + sl * (nx - wl);
    e = push(&r, (lbs_piece){x, nx, t, nt, 0, 0, src});
    x = nx, t = nt;
  }
  if (!e && r.n == 0) e = lbs_fail(LBS_RANGE, "plan: an empty range of work (hi %g)", hi);
  if (e) {
    lbs_graph_free(&r);
    return e;
  }
  lbs_graph_free(out);
  *out = r;
  return LBS_OK;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The lower envelope of two graphs into out (emptied first); ties go to a. Every piece end of
 * either is a breakpoint; between two, each graph is one line or absent, and two lines cross
 * at most once (the sweep of a Bentley-Ottmann over two monotone chains). */
static lbs_err merge(const lbs_graph *a, const lbs_graph *b, lbs_graph *out) {
  int nx = 2 * (a->n + b->n), k = 0;
  double *xs = malloc((size_t)(nx ? nx : 1) * sizeof *xs);
  if (!xs) return lbs_fail(LBS_NOMEM, "plan: envelope");
  for (int i = 0; i < a->n; i++) xs[k++] = a->p[i].x0, xs[k++] = a->p[i].x1;
  for (int i = 0; i < b->n; i++) xs[k++] = b->p[i].x0, xs[k++] = b->p[i].x1;
  qsort(xs, (size_t)nx, sizeof *xs, cmp_double);
  lbs_err e = LBS_OK;
  out->n = 0;
  int ia = 0, ib = 0;
  for (int i = 0; i + 1 < nx && !e; i++) {
    double l = xs[i], r = xs[i + 1];
    if (!(r > l)) continue;
    while (ia < a->n && a->p[ia].x1 <= l) ia++;
    while (ib < b->n && b->p[ib].x1 <= l) ib++;
    const lbs_piece *pa = ia < a->n && a->p[ia].x0 <= l ? &a->p[ia] : NULL;
    const lbs_piece *pb = ib < b->n && b->p[ib].x0 <= l ? &b->p[ib] : NULL;
    if (!pa && !pb) continue;
    if (!pb || !pa) {
      e = push(out, cut(pa ? pa : pb, l, r));
      continue;
    }
    lbs_piece ca = cut(pa, l, r), cb = cut(pb, l, r);
    double d0 = ca.t0 - cb.t0, d1 = ca.t1 - cb.t1;
    if (d0 <= 0 && d1 <= 0)
      e = push(out, ca);
    else if (d0 >= 0 && d1 >= 0)
      e = push(out, cb);
    else { /* they cross inside */
      double xc = l + (r - l) * d0 / (d0 - d1);
      const lbs_piece *first = d0 < 0 ? pa : pb, *second = d0 < 0 ? pb : pa;
      e = push(out, cut(first, l, xc));
      if (!e) e = push(out, cut(second, xc, r));
    }
  }
  free(xs);
  return e;
}

/* The envelope of gs[0..n) into out (divide and conquer: ties to the earlier graph). */
static lbs_err envelope(const lbs_graph *gs, int n, lbs_graph *out) {
  if (n == 1) {
    out->n = 0;
    lbs_err e = LBS_OK;
    for (int i = 0; i < gs->n && !e; i++) e = push(out, gs->p[i]);
    return e;
  }
  lbs_graph l = {0}, r = {0};
  lbs_err e = envelope(gs, n / 2, &l);
  if (!e) e = envelope(gs + n / 2, n - n / 2, &r);
  if (!e) e = merge(&l, &r, out);
  lbs_graph_free(&l);
  lbs_graph_free(&r);
  return e;
}

lbs_err lbs_graph_envelope(const lbs_graph *gs, int n, lbs_graph *out) {
  lbs_graph r = {0};
  lbs_err e = n > 0 ? envelope(gs, n, &r) : LBS_OK;
  if (e) {
    lbs_graph_free(&r);
    return e;
  }
  lbs_graph_free(out);
  *out = r;
  return LBS_OK;
}

/* ---------------------------------------------------------------- segment adding (5.3.3) */

/* Emits the move of the pointers from (u, v) to (nu, nv) along p and q, where each pointer's
 * time is linear along the move: the max of the two, split where they cross. */
static lbs_err emit_move(const lbs_piece *p, const lbs_piece *q, double u, double v, double nu,
                         double nv, double hi, int src, lbs_graph *out) {
  double yu0 = lerp(p->x0, p->x1, p->t0, p->t1, u), yu1 = lerp(p->x0, p->x1, p->t0, p->t1, nu);
  double yv0 = lerp(q->x0, q->x1, q->t0, q->t1, v), yv1 = lerp(q->x0, q->x1, q->t0, q->t1, nv);
  double d0 = yu0 - yv0, d1 = yu1 - yv1, s[3] = {0, 1, 1};
  int ns = 2;
  if ((d0 < 0 && d1 > 0) || (d0 > 0 && d1 < 0)) s[1] = d0 / (d0 - d1), ns = 3;
  for (int i = 0; i + 1 < ns; i++) {
    double s0 = s[i], s1 = s[i + 1];
    double u0 = u + (nu - u) * s0, u1 = u + (nu - u) * s1, v0 = v + (nv - v) * s0,
           v1 = v + (nv - v) * s1;
    lbs_piece c = {u0 + v0,
                   u1 + v1,
                   fmax(yu0 + (yu1 - yu0) * s0, yv0 + (yv1 - yv0) * s0),
                   fmax(yu0 + (yu1 - yu0) * s1, yv0 + (yv1 - yv0) * s1),
                   u0,
                   u1,
                   src};
    if (c.x0 >= hi) break;
    if (c.x1 > hi) c = cut(&c, c.x0, hi);
    lbs_err e = push(out, c);
    if (e) return e;
  }
  return LBS_OK;
}

/* The pointer rules of Table 5-1, in priority order (the seed's table as we read it; its
 * garbled third row we take as "both fall from the same time: move both"):
 *   1 both pointers at their right ends: done;
 *   2 only one is not: move it to its end;
 *   3 equal times, both falling: move both, times kept equal, until one ends;
 *   4 the pointer with the larger time falls: move it until the times meet or it ends
 *     (a tie with one falling: that one, to its end);
 *   5 unequal times (the larger does not fall): move the smaller until the times meet or it
 *     ends;
 *   6 equal times, neither falls: a flat one first; both rising: move both, times kept
 *     equal, until one ends.
 * Each rule lowers the maximum as early, and raises it as late, as the two segments allow. */
lbs_err lbs_segment_add(const lbs_piece *p, const lbs_piece *q, double hi, int src,
                        lbs_graph *out) {
  double sp = (p->t1 - p->t0) / (p->x1 - p->x0), sq = (q->t1 - q->t0) / (q->x1 - q->x0);
  double u = p->x0, v = q->x0;
  for (int iter = 0; iter < 16 && u + v < hi; iter++) {
    int eu = u >= p->x1, ev = v >= q->x1;
    if (eu && ev) break; /* rule 1 */
    double yu = lerp(p->x0, p->x1, p->t0, p->t1, u), yv = lerp(q->x0, q->x1, q->t0, q->t1, v);
    double nu = u, nv = v, tol = 1e-9 * fmax(fabs(yu), fabs(yv));
    int eq = fabs(yu - yv) <= tol;
    if (eu || ev) { /* rule 2 */
      nu = p->x1, nv = q->x1;
    } else if (eq && sp < 0 && sq < 0) { /* rule 3 */
      double du = p->x1 - u, dv = q->x1 - v;
      if (sp * du >= sq * dv)
        nu = p->x1, nv = v + sp * du / sq; /* p ends first (drops less) */
      else
        nv = q->x1, nu = u + sq * dv / sp;
    } else if (eq && (sp < 0 || sq < 0)) { /* rule 4, a tie */
      if (sp < 0)
        nu = p->x1;
      else
        nv = q->x1;
    } else if (!eq && (yu > yv ? sp : sq) < 0) { /* rule 4 */
      if (yu > yv)
        nu = fmin(p->x1, u + (yv - yu) / sp);
      else
        nv = fmin(q->x1, v + (yu - yv) / sq);
    } else if (!eq) { /* rule 5 */
      if (yu < yv)
        nu = sp > 0 ? fmin(p->x1, u + (yv - yu) / sp) : p->x1;
      else
        nv = sq > 0 ? fmin(q->x1, v + (yu - yv) / sq) : q->x1;
    } else if (sp <= 0) { /* rule 6: flat first */
      nu = p->x1;
    } else if (sq <= 0) {
      nv = q->x1;
    } else { /* rule 6: both rising */
      double dyu = sp * (p->x1 - u), dyv = sq * (q->x1 - v), dy = fmin(dyu, dyv);
      nu = dyu <= dyv ? p->x1 : u + dy / sp;
      nv = dyv < dyu ? q->x1 : v + dy / sq;
    }
    if (nu > p->x1) nu = p->x1;
    if (nv > q->x1) nv = q->x1;
    lbs_err e = emit_move(p, q, u, v, nu, nv, hi, src, out);
    if (e) return e;
    u = nu, v = nv;
  }
  return LBS_OK;
}

lbs_err lbs_graph_rpg(const lbs_graph *fa, const lbs_graph *fb, double hi, int src,
                      lbs_graph *out) {
  int n = fa->n * fb->n, k = 0;
  if (n == 0) {
    lbs_graph_free(out);
    return LBS_OK;
  }
  lbs_graph *subs = calloc((size_t)n, sizeof *subs);
  if (!subs) return lbs_fail(LBS_NOMEM, "plan: sub parallelization graphs");
  lbs_err e = LBS_OK;
  for (int i = 0; i < fa->n && !e; i++)
    for (int j = 0; j < fb->n && !e; j++) {
      e = lbs_segment_add(&fa->p[i], &fb->p[j], hi, src, &subs[k]);
      if (subs[k].n) k++;
    }
  if (!e) e = lbs_graph_envelope(subs, k, out);
  for (int i = 0; i < n; i++) lbs_graph_free(&subs[i]);
  free(subs);
  return e;
}

/* ---------------------------------------------------------------- plans */

void lbs_plan_free(lbs_plan *p) {
  for (int i = 0; i < p->nimpl; i++) lbs_ipg_free(&p->impl[i].ipg);
  free(p->impl);
  for (int i = 0; p->fpg && i < p->nws; i++) lbs_graph_free(&p->fpg[i]);
  for (int i = 0; p->pg && i < p->nws; i++) lbs_graph_free(&p->pg[i]);
  free(p->fpg);
  free(p->pg);
  free(p->split);
  memset(p, 0, sizeof *p);
}

void lbs_plan_needs(const char *impl, const char *device, int *threads, int *is_device) {
  const char *dot = strrchr(impl, '.');
  const char *target = dot ? dot + 1 : impl;
  *threads = 1, *is_device = 0;
  if (!strcmp(target, "opencl") || !strcmp(target, "cuda"))
    *is_device = 1;
  else if (!strncmp(device, "threads:", 8)) {
    int t = atoi(device + 8);
    *threads = t >= 1 ? t : 1;
  }
}

const char *lbs_plan_ws_name(const lbs_plan *p, int ws, char *buf, size_t n) {
  int t = lbs_plan_ws_threads(p, ws), k = snprintf(buf, n, "%d thread%s", t, t == 1 ? "" : "s");
  unsigned m = lbs_plan_ws_devices(p, ws);
  for (int d = 0; d < p->ndev && k >= 0 && (size_t)k < n; d++)
    if (m & 1u << d) {
      char name[40];
      snprintf(name, sizeof name, "%.*s", (int)strcspn(p->devices[d], ":"), p->devices[d]);
      k += snprintf(buf + k, n - (size_t)k, " + %s%d", name, d);
    }
  return buf;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Adds a split of ws into (ta, ma) | (tb, mb). */
static lbs_err add_split(lbs_plan *p, int *cap, int wa, int wb) {
  if (p->nsplit == *cap) {
    int nc = *cap ? 2 * *cap : 16;
    lbs_plan_split *ns = realloc(p->split, (size_t)nc * sizeof *ns);
    if (!ns) return lbs_fail(LBS_NOMEM, "plan: splits");
    p->split = ns, *cap = nc;
  }
  p->split[p->nsplit++] = (lbs_plan_split){wa, wb};
  return LBS_OK;
}

/* The plan's node and kernel fit the limits: 1..LBS_PLAN_MAX_THREADS threads, at most
 * LBS_PLAN_MAX_DEV devices, a work range, and every implementation runs on the node. */
static lbs_err check_plan(const lbs_plan *p) {
  if (p->threads < 1 || p->threads > LBS_PLAN_MAX_THREADS || p->ndev < 0 ||
      p->ndev > LBS_PLAN_MAX_DEV)
    return lbs_fail(LBS_RANGE, "plan: %d threads and %d devices (1..%d threads, 0..%d devices)",
                    p->threads, p->ndev, LBS_PLAN_MAX_THREADS, LBS_PLAN_MAX_DEV);
  if (!(p->hi > 0) || !isfinite(p->hi))
    return lbs_fail(LBS_RANGE, "plan: the work range [0, %g] is empty", p->hi);
  for (int i = 0; i < p->nimpl; i++) {
    const lbs_plan_impl *m = &p->impl[i];
    if (m->threads > p->threads || (m->devmask >> p->ndev))
      return lbs_fail(
          LBS_RANGE, "plan: %s (%s) needs %d threads%s; the node has %d threads and %d devices",
          m->impl, m->device, m->threads, m->devmask ? " and a device" : "", p->threads, p->ndev);
  }
  return LBS_OK;
}

/* Recursive Add, Compare for working set ws of t threads and devices mask: adds its splits to
 * p->split (*cap its capacity), makes the RPG of each from the FPGs of its sides, and their
 * envelope p->pg[ws]; then the template's graph tmpl (the PG plus the template's own time),
 * owned by the caller. */
static lbs_err build_pg(lbs_plan *p, int ws, int t, unsigned mask, int *cap, lbs_graph *tmpl) {
  lbs_err e = LBS_OK;
  int first = p->nsplit;
  for (int ta = 1; ta <= t / 2 && !e; ta++)
    for (unsigned ma = 0; ma <= mask && !e; ma++) {
      if ((ma & mask) != ma) continue;
      unsigned mb = mask & ~ma;
      if (ta == t - ta && ma > mb) continue; /* the same split, sides swapped */
      e = add_split(p, cap, lbs_plan_ws(p, ta, ma), lbs_plan_ws(p, t - ta, mb));
    }
  int nr = p->nsplit - first;
  lbs_graph *rpgs = e ? NULL : calloc((size_t)nr, sizeof *rpgs);
  if (!e && !rpgs) e = lbs_fail(LBS_NOMEM, "plan: restricted parallelization graphs");
  for (int s = 0; s < nr && !e; s++)
    e = lbs_graph_rpg(&p->fpg[p->split[first + s].ws_a], &p->fpg[p->split[first + s].ws_b], p->hi,
                      first + s, &rpgs[s]);
  if (!e) e = lbs_graph_envelope(rpgs, nr, &p->pg[ws]);
  for (int s = 0; rpgs && s < nr; s++) lbs_graph_free(&rpgs[s]);
  free(rpgs);
  /* the template's graph: the PG plus its own time */
  for (int i = 0; i < p->pg[ws].n && !e; i++) {
    lbs_piece c = p->pg[ws].p[i];
    c.t0 += p->ovh_s + p->ovh_per_work_s * c.x0, c.t1 += p->ovh_s + p->ovh_per_work_s * c.x1;
    c.src = LBS_PLAN_TMPL(ws);
    e = push(tmpl, c);
  }
  return e;
}

/* Execute, Compare for working set ws of t threads and devices mask: p->fpg[ws], the envelope
 * of every implementation and every smaller set's template graph (tmpl[0..ws]) that fits it.
 * cand is the caller's scratch of nimpl + nws graphs, left empty. */
static lbs_err build_fpg(lbs_plan *p, int ws, int t, unsigned mask, const lbs_graph *tmpl,
                         lbs_graph *cand) {
  lbs_err e = LBS_OK;
  int nc = 0;
  for (int i = 0; i < p->nimpl && !e; i++) {
    const lbs_plan_impl *m = &p->impl[i];
    if (m->threads > t || (m->devmask & ~mask)) continue;
    e = lbs_graph_from_ipg(&m->ipg, p->hi, i, &cand[nc]);
    if (!e) nc++;
  }
  for (int w = 0; w <= ws && !e; w++) {
    if (!tmpl[w].n || lbs_plan_ws_threads(p, w) > t || (lbs_plan_ws_devices(p, w) & ~mask))
      continue;
    lbs_graph_free(&cand[nc]);
    for (int i = 0; i < tmpl[w].n && !e; i++) e = push(&cand[nc], tmpl[w].p[i]);
    nc++;
  }
  if (!e && nc == 0) {
    char name[256];
    e = lbs_fail(LBS_NOTFOUND, "plan: no implementation of %s runs on %s", p->kernel,
                 lbs_plan_ws_name(p, ws, name, sizeof name));
  }
  if (!e) e = lbs_graph_envelope(cand, nc, &p->fpg[ws]);
  for (int i = 0; i < nc; i++) lbs_graph_free(&cand[i]);
  return e;
}

lbs_err lbs_plan_build(lbs_plan *p) {
  double t_start = now_s();
  lbs_err e = check_plan(p);
  if (e) return e;
  p->nws = p->threads << p->ndev;
  p->fpg = calloc((size_t)p->nws, sizeof *p->fpg);
  p->pg = calloc((size_t)p->nws, sizeof *p->pg);
  lbs_graph *cand = calloc((size_t)(p->nimpl + p->nws), sizeof *cand),
            *tmpl = calloc((size_t)p->nws, sizeof *tmpl);
  int cap = 0;
  e = p->fpg && p->pg && cand && tmpl ? LBS_OK : lbs_fail(LBS_NOMEM, "plan");
  p->nsplit = 0;
  /* Working sets smallest first: a proper subset has fewer threads, or the same threads and
   * a numerically smaller device mask, so its FPG is built before it is needed. */
  for (int ws = 0; ws < p->nws && !e; ws++) {
    int t = lbs_plan_ws_threads(p, ws);
    unsigned mask = lbs_plan_ws_devices(p, ws);
    if (t >= 2 && p->tmpl[0]) e = build_pg(p, ws, t, mask, &cap, &tmpl[ws]);
    if (!e) e = build_fpg(p, ws, t, mask, tmpl, cand);
  }
  for (int w = 0; tmpl && w < p->nws; w++) lbs_graph_free(&tmpl[w]);
  free(tmpl);
  free(cand);
  p->plan_s = now_s() - t_start;
  return e;
}

double lbs_plan_time(const lbs_plan *p, int ws, double x) {
  if (ws < 0 || ws >= p->nws) return NAN;
  return lbs_graph_eval(&p->fpg[ws], x);
}

/* "sort.cpu", "template on 2 threads", ... */
static const char *src_name(const lbs_plan *p, int src, char *buf, size_t n) {
  if (src >= 0 && src < p->nimpl) return snprintf(buf, n, "%s", p->impl[src].impl), buf;
  char ws[128];
  snprintf(buf, n, "%s template on %s", p->tmpl,
           lbs_plan_ws_name(p, LBS_PLAN_TMPL_WS(src), ws, sizeof ws));
  return buf;
}

void lbs_plan_print(const lbs_plan *p, FILE *f) {
  char a[256], b[256], s[256];
  fprintf(f, "plan %s: %d thread%s, %d device%s, work [0, %.6g], template %s, planned in %.3f s\n",
          p->kernel, p->threads, p->threads == 1 ? "" : "s", p->ndev, p->ndev == 1 ? "" : "s",
          p->hi, p->tmpl[0] ? p->tmpl : "none", p->plan_s);
  for (int d = 0; d < p->ndev; d++) fprintf(f, "  device %d: %s\n", d, p->devices[d]);
  if (p->tmpl[0])
    fprintf(f, "  template's own time: %.3g s + %.3g s per unit of work\n", p->ovh_s,
            p->ovh_per_work_s);
  fprintf(f,
          "\nimplementation table (function performance graphs)\n%-24s %12s %12s %11s %11s  %s\n",
          "working set", "work from", "work to", "time from", "time to", "runs");
  for (int ws = 0; ws < p->nws; ws++)
    for (int i = 0; i < p->fpg[ws].n; i++) {
      const lbs_piece *c = &p->fpg[ws].p[i];
      fprintf(f, "%-24s %12.6g %12.6g %11.4g %11.4g  %s\n",
              i ? "" : lbs_plan_ws_name(p, ws, a, sizeof a), c->x0, c->x1, c->t0, c->t1,
              src_name(p, c->src, s, sizeof s));
    }
  if (!p->tmpl[0]) return;
  fprintf(
      f, "\nparallelization table (parallelization graphs)\n%-24s %12s %12s %11s  %-18s %-23s %s\n",
      "working set", "work from", "work to", "time to", "side A", "A's work", "side B");
  for (int ws = 0; ws < p->nws; ws++)
    for (int i = 0; i < p->pg[ws].n; i++) {
      const lbs_piece *c = &p->pg[ws].p[i];
      const lbs_plan_split *sp = &p->split[c->src];
      char aw[64];
      snprintf(aw, sizeof aw, "%.6g..%.6g", c->a0, c->a1);
      fprintf(f, "%-24s %12.6g %12.6g %11.4g  %-18s %-23s %s\n",
              i ? "" : lbs_plan_ws_name(p, ws, s, sizeof s), c->x0, c->x1, c->t1,
              lbs_plan_ws_name(p, sp->ws_a, a, sizeof a), aw,
              lbs_plan_ws_name(p, sp->ws_b, b, sizeof b));
    }
}
