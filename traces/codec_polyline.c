/* codec_polyline.c - error-bounded polyline codec (the seed's least-squares polyline).
 *
 * Every decoded value lies within its tolerance of the original: eps (absolute bound) or
 * eps |x| (pointwise relative bound), written e(x) = a + r |x| below. Four stages per chunk:
 *
 * 1. Segmentation with the minimal number of disjoint segments for the bound. A segment
 *    [s, e) is feasible when some line y = c + b x has |v_k - (c + b k)| <= e(v_k) for every
 *    k in it; feasibility is hereditary, so growing each segment as far as it goes
 *    (greedy) is optimal. Growing is the feasible-space window of O'Rourke (1981), in the
 *    amortized O(1) form of Xie et al. (OptimalPLR, 2014): keep the steepest and the
 *    flattest feasible lines (rho_max, rho_min), the upper convex hull of the lower bounds
 *    L_k = v_k - e(v_k) and the lower convex hull of the upper bounds U_k = v_k + e(v_k); a
 *    new point ends the segment when it leaves the window [rho_min(x), rho_max(x)], otherwise
 *    it tightens the window through a tangent to one of the hulls, whose points before
 *    the tangent are dropped for good.
 * 2. Fitting: the least-squares line of the segment when it is feasible, else the
 *    least-squares line constrained to the feasible set. With y = c + b (x - xbar) the
 *    objective is m (c - ybar)^2 + Sxx (b - b_ls)^2; for a fixed slope b the best c is
 *    ybar clamped into [lo(b), hi(b)] (from the two hulls), and the remaining function of
 *    b is convex on [b_min, b_max], so a golden-section search finds it.
 * 3. Storage: each segment keeps its two end values quantized to delta, the power of two
 *    in (t/8, t/4] for t the smallest tolerance of the chunk's values (so the fit above uses
 *    the tolerance less delta/2 and the quantized line still meets it; dyadic values such as
 *    small integers stay exact). Every segment is checked with the decoder's own arithmetic
 *    against its tolerance less LBS_CORR_MARGIN; one that fails (zeros inside a segment under
 *    a relative bound, rounding on extreme inputs) and every non-finite value is stored
 *    literally.
 * 4. Sums: the least-squares line keeps each segment's sum, quantization moves it a little;
 *    a chunk-wide correction (lbs__corr_find: a factor for relative bounds, an offset for
 *    absolute ones, applied to every value not stored literally) brings the chunk's sum back
 *    within LBS_SUM_TOL, inside the margin the segments left.
 *
 * Blob: [u8 version=2][u8 flags: bit0 zstd, bit1 correction][f64 delta]([f64 mul][f64 add] with
 * bit1)[varint n][payload], payload a run of segments: varint ((len-1) << 1 | literal), then
 * for a literal len raw doubles, else zigzag(q0 - previous q) and, when len > 1,
 * zigzag(q1 - q0). Version 1 blobs (no correction) still decode. Doubles are stored in the
 * host's byte order; lbsim supports little-endian hosts only. */
#include "codec_int.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define POLY_VERSION 2
#define POLY_ZSTD_LEVEL 1
#define GOLDEN_ITERS 40

typedef struct {
  double x, y;
} pt;

static inline double cross(pt o, pt a, pt b) {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

/* The decoder's value for offset k of a segment; the encoder checks with the same code. */
static inline double seg_value(double base, double step, int32_t k) {
  return base + step * (double)k;
}

/* Grows the segment that starts at s (v[s] finite) as far as the bound allows. Returns
 * its end (exclusive) and the feasible slope interval in *bmin, *bmax. lh and uh are
 * work arrays of at least n - s + 1 points, and lh[-1] and uh[-1]. */
typedef struct {
  double bmin, bmax; /* feasible slopes at the end of the segment */
  double sd, skd;    /* sums of d_k = v_k - v_s and of k d_k over the segment */
} seginfo;

/* Fit tolerance of a value: e(y) = a + r |y|, never below 0. */
static inline double fit_tol(lbs__tol t, double y) {
  double e = t.a + t.r * fabs(y);
  return e > 0 ? e : 0;
}

/* A point of one of grow()'s hulls and its edge (dx, dy) from the point before it in the
 * hull, which stays the same while the point is in the hull (points leave from the back, or
 * are skipped from the front). */
typedef struct {
  double x, y, dx, dy;
} hpt;

static inline hpt hpt_after(const hpt *prev, double x, double y) {
  return (hpt){x, y, x - prev->x, y - prev->y};
}

/* cross(h[-1], h[0], (x, y)) of the original points, the same operations on the same values:
 * below 0 when (x, y) lies right of (below) the line from h[-1] through h[0], above 0 left. */
static inline double turn(const hpt *h, double x, double y) {
  return h->dx * (y - h[-1].y) - h->dy * (x - h[-1].x);
}

/* The upper hull (upper != 0, of the lower bounds L) or the lower hull (of the upper bounds
 * U) goes from f to the point before b. For P_i, P_{i+1} left of R: slope(P_{i+1}, R) <=
 * slope(P_i, R) iff cross(P_i, P_{i+1}, R) <= 0, so the tangent from R = (x, y), a point the
 * window's line now passes through, needs no division: its point of contact is the new front.
 *
 * Sentinel edges spare the loops their bounds. The front carries (0, 1) (upper) or (0, -1)
 * (lower), which makes the cross product push() takes there negative (positive): the front is
 * never popped. lh[-1] and uh[-1] are the points before the first front (finite, to the
 * left); the edges of points before the front are never read. b carries (0, -1) (upper) or
 * (0, 1) (lower), which makes the cross product the tangent takes there positive (negative):
 * the front never moves past the last point. */
static inline __attribute__((always_inline)) int moves(const hpt *f, double x, double y,
                                                       int upper) {
  return upper ? turn(f + 1, x, y) <= 0 : turn(f + 1, x, y) >= 0;
}

/* Whether the front f moves: moves(f, x, y, upper), with x - f->x and y - f->y given. */
static inline __attribute__((always_inline)) int front_moves(const hpt *f, double dx, double dy,
                                                             int upper) {
  double c = f[1].dx * dy - f[1].dy * dx;
  return upper ? c <= 0 : c >= 0;
}

/* The new front, where front_moves() said the front f moves. */
static inline __attribute__((always_inline)) hpt *move_front(hpt *f, double x, double y,
                                                             int upper) {
  do f++;
  while (moves(f, x, y, upper));
  f->dx = 0;
  f->dy = upper ? 1 : -1;
  return f;
}

/* Appends (x, y) to the hull ending before b, dropping the points it makes non-convex; the new
 * end. */
static inline __attribute__((always_inline)) hpt *push(hpt *b, double x, double y, int upper) {
  hpt *p = b - 1; /* the last point */
  while (upper ? turn(p, x, y) >= 0 : turn(p, x, y) <= 0) p--;
  p[1] = hpt_after(p, x, y);
  p[2].dx = 0;
  p[2].dy = upper ? -1 : 1;
  return p + 2;
}

/* si's sums over the m values y[0..m), m >= 2, in the order of a loop that kept them as it
 * went: sd = sum of d_k = y_k - y_0, skd = sum of k d_k (k and k d_k as doubles). */
static void seg_sums(const double *y, size_t m, seginfo *si) {
  double sd = y[1] - y[0], skd = sd, x = 1;
  const double *p = y + 2, *end = y + m;
  for (; end - p >= 2; p += 2) { /* two at a time: fewer loop tests */
    double d0 = p[0] - y[0], d1 = p[1] - y[0];
    x += 1;
    sd += d0;
    skd += x * d0;
    x += 1;
    sd += d1;
    skd += x * d1;
  }
  if (p < end) {
    double d = p[0] - y[0];
    sd += d;
    skd += (x + 1) * d;
  }
  si->sd = sd;
  si->skd = skd;
}

LBS_CLONES
static size_t grow(const double *restrict v, size_t s, size_t n, lbs__tol t, hpt *restrict lh,
                   hpt *restrict uh, seginfo *si) {
  si->bmin = si->bmax = 0;
  si->sd = si->skd = 0;
  if (s + 1 >= n || !isfinite(v[s + 1])) return s + 1;
  double y0 = v[s], y1 = v[s + 1], e0 = fit_tol(t, y0), e1 = fit_tol(t, y1);
  lh[-1] = uh[-1] = (hpt){-1, 0, 0, 0};
  lh[0] = (hpt){0, y0 - e0, 0, 1};
  uh[0] = (hpt){0, y0 + e0, 0, -1};
  lh[1] = hpt_after(lh, 1, y1 - e1);
  uh[1] = hpt_after(uh, 1, y1 + e1);
  lh[2].dx = uh[2].dx = 0;
  lh[2].dy = -1;
  uh[2].dy = 1;
  /* rho_max is the line through pmax (a lower bound, always lh[lf]: lf is the hull's front)
   * and qmax (a later upper bound), rho_min the line through pmin (an upper bound, uh[uf]) and
   * qmin (a later lower bound). Which side of them a point R lies on is the sign of a cross
   * product, a multiple of A (R.y - P.y) - B (R.x - P.x) with A = Q.x - P.x, B = Q.y - P.y
   * (Q.x > P.x); L and U of a point share everything but +-A eps. So no division sits on the
   * loop's critical path: the slopes B / A are computed once, at the end. */
  hpt *lf = lh, *lb = lh + 2, *uf = uh, *ub = uh + 2; /* fronts, ends */
  double amx = 1 - lf->x, bmx = uh[1].y - lf->y, amn = 1 - uf->x, bmn = lh[1].y - uf->y;
  /* k - s, and its distance from pmax and pmin, exact */
  double x = 1, dxm = x - lf->x, dxn = x - uf->x, pmy = lf->y, pny = uf->y;
  size_t k;
  for (k = s + 2; k < n; k++) {
    double y = v[k], eps = fit_tol(t, y);
    x += 1;
    dxm += 1;
    dxn += 1;
    double ly = y - eps, uy = y + eps;
    double tmax = amx * (y - pmy) - bmx * dxm, emax = amx * eps;
    double tmin = amn * (y - pny) - bmn * dxn, emin = amn * eps;
    double u_vs_max = tmax + emax, l_vs_min = tmin - emin;
    if (!(u_vs_max < 0 && l_vs_min > 0)) {
      double l_vs_max = tmax - emax, u_vs_min = tmin + emin;
      /* L above rho_max or U below rho_min ends the segment, as does a y not finite */
      if (!(y - y == 0) || l_vs_max > 0 || u_vs_min < 0) break; /* y - y: NaN unless finite */
    }
    if (u_vs_max < 0) {
      if (front_moves(lf, dxm, uy - pmy, 1)) {
        lf = move_front(lf, x, uy, 1);
        pmy = lf->y;
        dxm = x - lf->x;
      }
      amx = dxm;
      bmx = uy - pmy;
    }
    if (l_vs_min > 0) {
      if (front_moves(uf, dxn, ly - pny, 0)) {
        uf = move_front(uf, x, ly, 0);
        pny = uf->y;
        dxn = x - uf->x;
      }
      amn = dxn;
      bmn = ly - pny;
    }
    /* Every feasible line is at least rho_min(x) and at most rho_max(x) at the newest x, so
     * a lower bound below rho_min (an upper bound above rho_max) is implied by the
     * constraints so far and stays implied as they tighten: it stays out of the hull. */
    if (!(l_vs_min < 0)) lb = push(lb, x, ly, 1);
    if (!(u_vs_max > 0)) ub = push(ub, x, uy, 0);
  }
  seg_sums(v + s, k - s, si);
  si->bmax = bmx / amx;
  si->bmin = bmn / amn;
  return k;
}

/* Upper hull of (k - xbar, y_k + sign e(y_k)) when upper != 0, else lower hull. */
static size_t hull(const double *y, size_t m, double xbar, lbs__tol t, double sign, int upper,
                   pt *h) {
  size_t nh = 0;
  for (size_t k = 0; k < m; k++) {
    pt p = {(double)k - xbar, y[k] + sign * fit_tol(t, y[k])};
    if (upper)
      while (nh >= 2 && cross(h[nh - 2], h[nh - 1], p) >= 0) nh--;
    else
      while (nh >= 2 && cross(h[nh - 2], h[nh - 1], p) <= 0) nh--;
    h[nh++] = p;
  }
  return nh;
}

typedef struct {
  const pt *lh, *uh; /* hulls of lower and upper bounds, centred abscissae */
  size_t nl, nu;
  double m, sxx, ybar, bls;
} fitprob;

/* Intercept window [lo, hi] at the centroid for slope b, and the objective there. */
static double objective(const fitprob *f, double b, double *c) {
  double lo = -INFINITY, hi = INFINITY;
  for (size_t i = 0; i < f->nl; i++) {
    double a = f->lh[i].y - b * f->lh[i].x;
    if (a > lo) lo = a;
  }
  for (size_t i = 0; i < f->nu; i++) {
    double a = f->uh[i].y - b * f->uh[i].x;
    if (a < hi) hi = a;
  }
  double cc = f->ybar;
  if (lo > hi)
    cc = 0.5 * (lo + hi);
  else if (cc < lo)
    cc = lo;
  else if (cc > hi)
    cc = hi;
  *c = cc;
  double dc = cc - f->ybar, db = b - f->bls;
  return f->m * dc * dc + f->sxx * db * db;
}

/* The least-squares line of the segment, from the sums grow() kept: end values. */
static void lsq_line(const double *y, size_t m, const seginfo *si, double *v0, double *v1) {
  if (m <= 2) {
    *v0 = y[0];
    *v1 = y[m - 1];
    return;
  }
  double dm = (double)m, xbar = 0.5 * (dm - 1.0), dbar = si->sd / dm;
  double sxx = dm * (dm * dm - 1.0) / 12.0, b = (si->skd - xbar * si->sd) / sxx, c = y[0] + dbar;
  *v0 = c - b * xbar;
  *v1 = c + b * xbar;
}

/* The least-squares line constrained to the feasible set of y[0..m) at fit tolerance t. */
static void constrained_fit(const double *y, size_t m, lbs__tol t, const seginfo *si, pt *wl,
                            pt *wu, double *v0, double *v1) {
  double dm = (double)m, xbar = 0.5 * (dm - 1.0), sxx = dm * (dm * dm - 1.0) / 12.0;
  double ybar = y[0] + si->sd / dm, bls = (si->skd - xbar * si->sd) / sxx, b, c;
  fitprob f = {wl,   wu, hull(y, m, xbar, t, -1, 1, wl), hull(y, m, xbar, t, 1, 0, wu), dm, sxx,
               ybar, bls};
  double lo = fmin(si->bmin, si->bmax), hi = fmax(si->bmin, si->bmax), c1, c2;
  const double g = 0.6180339887498949;
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double f1 = objective(&f, x1, &c1), f2 = objective(&f, x2, &c2);
  for (int it = 0; it < GOLDEN_ITERS && hi > lo; it++) {
    if (f1 <= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = objective(&f, x1, &c1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = objective(&f, x2, &c2);
    }
  }
  b = 0.5 * (lo + hi);
  objective(&f, b, &c);
  *v0 = c - b * xbar;
  *v1 = c + b * xbar;
}

/* Quantizes a segment's end values; 1 when the decoder's values (left in out) all lie within
 * tolerance t of y, and then adds to cs what lbs__corr_find sums over the segment (finite
 * values, none of them stored exactly). */
LBS_CLONES
static int quantize(const double *y, size_t m, double v0, double v1, double delta, lbs__tol t,
                    int64_t *q0, int64_t *q1, double *out, lbs__corr_sums *cs) {
  /* An end value that is not finite (a fit of values near DBL_MAX) rounds to LLONG_MIN: the
   * codes' difference is taken modulo 2^64 (no signed overflow), and its values fail the check. */
  *q0 = llround(v0 / delta);
  *q1 = m > 1 ? llround(v1 / delta) : *q0;
  double base = (double)*q0 * delta,
         step =
             m > 1 ? (double)(int64_t)((uint64_t)*q1 - (uint64_t)*q0) * delta / (double)(m - 1) : 0;
  lbs__corr_sums c = *cs;
  int bad = 0;
  for (int32_t k = 0; k < (int32_t)m; k++) {
    double z = seg_value(base, step, k), x = y[k];
    out[k] = z;
    bad += !(fabs(z - x) <= lbs__tol_of(t, x));
    c.sx += x, c.sy += z, c.sa += fabs(x);
    c.d += x - z, c.sq += z, c.sqx += x;
  }
  if (bad) return 0;
  c.nq += m;
  *cs = c;
  return 1;
}

/* Adds to cs what lbs__corr_find sums over finite values y[0..m) stored exactly. */
static void sums_exact(lbs__corr_sums *cs, const double *y, size_t m) {
  double sx = cs->sx, sy = cs->sy, sa = cs->sa;
  for (size_t k = 0; k < m; k++) sx += y[k], sy += y[k], sa += fabs(y[k]);
  cs->sx = sx;
  cs->sy = sy;
  cs->sa = sa;
}

static lbs_err put_literal(lbs_buf *b, const double *v, size_t len) {
  lbs_err e = lbs__put_varint(b, ((uint64_t)(len - 1) << 1) | 1);
  return e ? e : lbs_buf_append(b, v, len * sizeof *v);
}

/* The tolerances of a chunk: delta (the power of two in (t/8, t/4] for t the smallest
 * tolerance of a nonzero finite value), the check tolerance (less the correction margin) and
 * the fit tolerance (less delta/2 and a slack for rounding in the decoder's arithmetic).
 * LBS_RANGE when the values are too large for that resolution. */
LBS_CLONES
static lbs_err tolerances(const double *v, size_t n, lbs__tol t, double *delta, lbs__tol *chk,
                          lbs__tol *fit) {
  double maxabs = 0, tmin = INFINITY;
  for (size_t i = 0; i < n; i++)
    if (isfinite(v[i])) {
      double a = fabs(v[i]), e = lbs__tol_of(t, v[i]);
      if (a > maxabs) maxabs = a;
      if (e > 0 && e < tmin) tmin = e;
    }
  if (!isfinite(tmin)) tmin = t.a > 0 ? t.a : 1; /* all zero: any step reproduces them */
  int ex;
  frexp(tmin / 4, &ex);
  *delta = ldexp(0.5, ex);
  double slack = 64 * DBL_EPSILON * (maxabs + lbs__tol_of(t, maxabs));
  *chk = (lbs__tol){t.a * (1 - LBS_CORR_MARGIN), t.r * (1 - LBS_CORR_MARGIN)};
  *fit = (lbs__tol){chk->a - *delta / 2 - slack, chk->r};
  if (maxabs / *delta > 0x1p52 || slack > tmin / 8)
    return lbs_fail(LBS_RANGE, "values up to %g are too large for a tolerance of %g", maxabs, tmin);
  return LBS_OK;
}

/* The work arrays for n values: grow()'s two hulls of n + 2 points with their edges (lh[-1]
 * and uh[-1] and a last sentinel included), or constrained_fit()'s two of n points. -1 when out
 * of memory. */
static int work_reserve(lbs_codec_ctx *ctx, size_t n) {
  if (ctx->work_n >= n && ctx->work) return 0;
  double *w = realloc(ctx->work, (n + 2) * 2 * sizeof(hpt));
  if (!w) return -1;
  ctx->work = w;
  ctx->work_n = n;
  return 0;
}

static lbs_err encode(lbs_codec_ctx *ctx, const double *v, size_t n, lbs__tol t, lbs_buf *out) {
  if (!(t.a >= 0 && t.r >= 0 && t.a + t.r > 0 && isfinite(t.a + t.r)))
    return lbs_fail(LBS_INVAL, "polyline codec needs a finite error bound > 0");
  double delta;
  lbs__tol chk, fit;
  lbs_err e = tolerances(v, n, t, &delta, &chk, &fit);
  if (e) return e;
  if (work_reserve(ctx, n)) return lbs_fail(LBS_NOMEM, "polyline work arrays for %zu elements", n);
  if ((e = lbs__codec_reserve(ctx, n))) return e;
  /* grow()'s hulls, then constrained_fit()'s (grow's are done with by then) */
  hpt *lh = (hpt *)ctx->work + 1, *uh = lh + n + 2;
  pt *wl = (pt *)ctx->work, *wu = wl + n;
  lbs_buf *pl = &ctx->scratch2;
  pl->len = 0;
  uint64_t prev = 0;
  lbs__corr_sums cs = {0}; /* what lbs__corr_find sums, in element order */
  size_t s = 0;
  while (s < n && !e) {
    if (!isfinite(v[s])) {
      size_t t2 = s;
      while (t2 < n && !isfinite(v[t2])) t2++;
      e = put_literal(pl, v + s, t2 - s);
      memcpy(ctx->y + s, v + s, (t2 - s) * sizeof *v);
      memset(ctx->exact + s, 1, t2 - s);
      s = t2;
      continue;
    }
    seginfo si;
    double v0, v1;
    int64_t q0, q1;
    size_t t2 = grow(v, s, n, fit, lh, uh, &si), m = t2 - s;
    /* the plain least-squares line when it meets the bound once quantized, else the
     * least-squares line inside the feasible set */
    lsq_line(v + s, m, &si, &v0, &v1);
    int ok = quantize(v + s, m, v0, v1, delta, chk, &q0, &q1, ctx->y + s, &cs);
    if (!ok) {
      constrained_fit(v + s, m, fit, &si, wl, wu, &v0, &v1);
      ok = quantize(v + s, m, v0, v1, delta, chk, &q0, &q1, ctx->y + s, &cs);
    }
    memset(ctx->exact + s, !ok, m);
    if (!ok) {
      e = put_literal(pl, v + s, m);
      memcpy(ctx->y + s, v + s, m * sizeof *v);
      sums_exact(&cs, v + s, m);
    } else {
      e = lbs__put_varint(pl, (uint64_t)(m - 1) << 1);
      if (!e) e = lbs__put_varint(pl, lbs_zigzag((int64_t)((uint64_t)q0 - prev)));
      if (!e && m > 1) e = lbs__put_varint(pl, lbs_zigzag(q1 - q0));
      prev = (uint64_t)q1;
    }
    s = t2;
  }
  lbs__corr corr;
  if (!e) e = lbs__corr_find_sums(ctx, v, n, t, &cs, &corr);
  if (e) return e;
  uint8_t hdr[26 + 10];
  size_t h = lbs__head_put(hdr, POLY_VERSION, 1, delta, corr, 2);
  h += lbs_varint_put(hdr + h, n);
  return lbs__emit_blob(ctx, hdr, h, pl, POLY_ZSTD_LEVEL, 1, out);
}

/* The fill loop is the hot path: built for AVX2 too (same formula, so the same values as the
 * encoder checked). */
LBS_CLONES
static lbs_err decode(lbs_codec_ctx *ctx, const uint8_t *blob, size_t len, size_t n, size_t first,
                      size_t count, double *out) {
  const uint8_t *p = blob, *end = blob + len;
  /* version 1: no correction; version 2: bit 1 says a correction follows the step */
  if (len < 11 || (p[0] != 1 && p[0] != POLY_VERSION) || p[1] > (p[0] == 1 ? 1 : 3) ||
      ((p[1] & 2) && len < 27))
    return lbs_fail(LBS_CORRUPT, "polyline chunk: bad header");
  double delta;
  lbs__corr corr;
  int h = lbs__head_get(blob, len, 2, &delta, &corr);
  if (h < 0) return lbs_fail(LBS_CORRUPT, "polyline chunk: bad step or correction");
  double mul = corr.mul, add = corr.add;
  p += h;
  uint64_t bn;
  if (lbs_varint_get(&p, end, &bn) || bn != n)
    return lbs_fail(LBS_CORRUPT, "polyline chunk: element count %llu, expected %zu",
                    (unsigned long long)bn, n);
  if (blob[1] & 1) {
    lbs_err e = lbs__zstd_unpack(ctx, p, (size_t)(end - p), n * 19 + 16);
    if (e) return e;
    p = ctx->scratch.data;
    end = p + ctx->scratch.len;
  }
  size_t pos = 0, stop = first + count;
  uint64_t prev = 0;
  while (pos < stop) {
    uint64_t h, z0, z1 = 0;
    if (lbs_varint_get(&p, end, &h)) return lbs_fail(LBS_CORRUPT, "polyline chunk: truncated");
    uint64_t m = (h >> 1) + 1;
    if (m > n - pos) return lbs_fail(LBS_CORRUPT, "polyline chunk: segment runs past the chunk");
    size_t a = pos > first ? pos : first, b = pos + m < stop ? pos + (size_t)m : stop;
    if (h & 1) {
      if ((size_t)(end - p) / 8 < m) return lbs_fail(LBS_CORRUPT, "polyline chunk: truncated");
      if (a < b) memcpy(out + (a - first), p + (a - pos) * 8, (b - a) * 8);
      p += m * 8;
    } else {
      if (lbs_varint_get(&p, end, &z0) || (m > 1 && lbs_varint_get(&p, end, &z1)))
        return lbs_fail(LBS_CORRUPT, "polyline chunk: truncated");
      uint64_t q0 = prev + (uint64_t)lbs_unzigzag(z0), q1 = q0 + (uint64_t)lbs_unzigzag(z1);
      prev = q1;
      double base = (double)(int64_t)q0 * delta;
      double step = m > 1 ? (double)(int64_t)(q1 - q0) * delta / (double)(m - 1) : 0;
      double *o = out + (a - first); /* o[j]: offset k0 + j of the segment */
      int32_t k0 = (int32_t)(a - pos);
      for (int32_t k = k0; k < (int32_t)(b - pos); k++)
        o[k - k0] = seg_value(base, step, k) * mul + add;
    }
    pos += (size_t)m;
  }
  return LBS_OK;
}

const lbs_codec_ops lbs__codec_polyline = {.abi = LBS_CODEC_ABI,
                                           .id = LBS_CODEC_POLYLINE,
                                           .name = "polyline",
                                           .encode = encode,
                                           .decode = decode};

size_t lbs__polyline_segments(lbs_codec_ctx *ctx, const double *v, size_t n, lbs__tol t,
                              size_t *ends) {
  if (work_reserve(ctx, n)) return 0;
  hpt *lh = (hpt *)ctx->work + 1, *uh = lh + n + 2;
  size_t s = 0, k = 0;
  while (s < n) {
    seginfo si;
    s = grow(v, s, n, t, lh, uh, &si);
    ends[k++] = s;
  }
  return k;
}
