/* ia.c - the IA heuristic (seed 004, 4.3): builds an implementation performance graph by
 * sampling an implementation through its adapter's work metrics.
 *
 * Every iteration runs four steps:
 *  1. sample collection (4.3.2): the next metric is extrapolated from the right-most segment so
 *     that the time grows by SETS past the frontier; when the last sample did not move the
 *     frontier, exponential fallback halves the way back to the minimum sampling work metric
 *     (MSWM, NextMetric of the frontier); the IPG may at most double its extent (growth limit).
 *  2. segment identification (4.3.3): the sample joins its metric's group and the regression
 *     matrix (cell (i, j): the least-squares line over groups i..j, built by merging centred
 *     sums, so each cell is its left neighbour plus one group). Cells that start at or before
 *     the MSWM and end at or after it become candidates when they hold 3 samples or more,
 *     their ends have positive times, neighbouring samples are no further apart than METS
 *     allows along the line (or one NextMetric step), and the confidence intervals of both
 *     ends (GSL: gsl_fit_linear_est, Student's t) are no wider than the segment confidence
 *     threshold. A point (one metric) passes on its mean's interval, or when it holds
 *     max_point_samples samples whatever their spread.
 *  3. segment insertion (4.3.4): each candidate is tried appended (it starts at the MSWM), cut
 *     in at every intersection with an active segment, and replacing the whole IPG (it starts
 *     at lo, nothing committed). The best IPG has the fewest sample groups off by more than
 *     the sample error threshold, then the larger extent, then fewer segments, then the lower
 *     mean squared error.
 *  4. segment commitment (4.3.5): segments more than `window` from the right become fixed and
 *     the regression matrix loses the rows that start inside them.
 *
 * Defaults (lbs_ia_defaults) from an accuracy A% with an absolute floor and ceiling:
 *   METS = A (the METS technique: with non-decreasing times, samples no more than A apart
 *   bound the error of interpolating between them by A), SETS = A/2 (the next sample aims
 *   halfway to the METS limit so a slope that steepens a little still meets it), segment
 *   confidence threshold = A (full width of the 95% intervals), sample error threshold = A,
 *   active segment window 4, max point samples 8, at most 4000 samples. */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ia_int.h"

void lbs_ia_defaults(lbs_ia_opts *o, double accuracy_pct, double min_abs_s, double max_abs_s) {
  lbs_ia_bound a = {accuracy_pct, min_abs_s, max_abs_s};
  memset(o, 0, sizeof *o);
  o->accuracy = a;
  o->window = 4;
  o->sets = (lbs_ia_bound){accuracy_pct / 2, min_abs_s / 2, max_abs_s / 2};
  o->mets = a;
  o->ci = a;
  o->confidence = 0.95;
  o->max_point_samples = 8;
  o->set = a;
  o->max_samples = 4000;
  o->max_seconds = 0;
}

void lbs_ia_result_free(lbs_ia_result *r) {
  lbs_ipg_free(&r->ipg);
  free(r->samples);
  memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------------- statistics */

lbs__ia_stats lbs__ia_merge(lbs__ia_stats a, lbs__ia_stats b) {
  if (a.n == 0) return b;
  if (b.n == 0) return a;
  lbs__ia_stats r;
  double na = a.n, nb = b.n, n = na + nb, dx = b.mx - a.mx, dy = b.my - a.my, f = na * nb / n;
  r.n = a.n + b.n;
  r.mx = a.mx + dx * nb / n;
  r.my = a.my + dy * nb / n;
  r.sxx = a.sxx + b.sxx + dx * dx * f;
  r.sxy = a.sxy + b.sxy + dx * dy * f;
  r.syy = a.syy + b.syy + dy * dy * f;
  return r;
}

lbs__ia_fit lbs__ia_fit_cell(const lbs__ia_stats *st, double w0, double w1, double confidence) {
  lbs__ia_fit f = {0};
  if (st->n < 3) return f;
  double n = st->n, p = (1 + confidence) / 2;
  if (!(st->sxx > 0)) { /* a point: the mean and its interval */
    double s2 = st->syy / (n - 1), y, yerr;
    f.c0 = st->my;
    f.cov00 = s2 / n;
    f.sumsq = st->syy;
    gsl_fit_linear_est(0, f.c0, 0, f.cov00, 0, 0, &y, &yerr);
    f.h0 = f.h1 = gsl_cdf_tdist_Pinv(p, n - 1) * yerr;
    f.ok = 1;
    return f;
  }
  /* The line in the centred variable u = w - mx (GSL's estimate and error at u), where the
   * covariance has no cancellation; c0, c1 and cov are then given for w as gsl_fit_linear. */
  double c1 = st->sxy / st->sxx, sumsq = st->syy - c1 * st->sxy;
  if (sumsq < 0) sumsq = 0;
  double s2 = sumsq / (n - 2), q = gsl_cdf_tdist_Pinv(p, n - 2), y, e0, e1;
  gsl_fit_linear_est(w0 - st->mx, st->my, c1, s2 / n, 0, s2 / st->sxx, &y, &e0);
  gsl_fit_linear_est(w1 - st->mx, st->my, c1, s2 / n, 0, s2 / st->sxx, &y, &e1);
  f.c1 = c1;
  f.c0 = st->my - c1 * st->mx;
  f.cov11 = s2 / st->sxx;
  f.cov01 = -st->mx * f.cov11;
  f.cov00 = s2 / n + st->mx * st->mx * f.cov11;
  f.sumsq = sumsq;
  f.h0 = q * e0;
  f.h1 = q * e1;
  f.ok = 1;
  return f;
}

/* ---------------------------------------------------------------- state */

lbs_err lbs__ia_init(lbs__ia *s, const lbs_ia_opts *o, const lbs_ia_space *sp) {
  memset(s, 0, sizeof *s);
  if (!(sp->lo >= 0) || !(sp->hi >= sp->lo) || !isfinite(sp->hi))
    return lbs_fail(LBS_INVAL, "bad work-metric range [%g, %g]", sp->lo, sp->hi);
  if (!(o->accuracy.pct > 0) && !(o->accuracy.min_s > 0))
    return lbs_fail(LBS_INVAL, "the accuracy needs a percentage or an absolute floor above 0");
  if (o->window < 1 || o->max_point_samples < 3 || !(o->confidence > 0 && o->confidence < 1))
    return lbs_fail(LBS_INVAL,
                    "bad heuristic parameters (window %d, max point samples %d, confidence %g)",
                    o->window, o->max_point_samples, o->confidence);
  s->o = *o;
  s->sp = *sp;
  s->lo = sp->round_metric(sp->lo);
  if (s->lo < sp->lo) s->lo = sp->next_metric(s->lo);
  s->hi = sp->round_metric(sp->hi); /* the range is rounded to valid metrics */
  if (s->hi < s->lo) s->hi = s->lo;
  s->last_w = NAN;
  s->last_frontier = NAN;
  return LBS_OK;
}

void lbs__ia_free(lbs__ia *s) {
  free(s->g);
  free(s->m);
  free(s->seg);
  free(s->samples);
  memset(s, 0, sizeof *s);
}

double lbs__ia_frontier(const lbs__ia *s) { return s->nseg ? s->seg[s->nseg - 1].w1 : NAN; }

double lbs__ia_mswm(const lbs__ia *s) {
  return s->nseg ? s->sp.next_metric(lbs__ia_frontier(s)) : s->lo;
}

static int group_of(const lbs__ia *s, double w);

#define CELL(s, i, j) ((s)->m[(size_t)(i) * (size_t)(s)->mcap + (size_t)(j)])

static lbs__ia_stats group_stats(const lbs__ia_group *g) {
  lbs__ia_stats st = {g->n, g->w, g->mean, 0, 0, g->m2};
  return st;
}

/* ---------------------------------------------------------------- step 1: sample collection */

/* Under noise, when the probe did not move the frontier only because more samples are needed:
 * of the cells ending at the probe, one with a metric whose mean is undecided (beyond the sample
 * error threshold by less than the noise, or far off on fewer than 3 samples: a preempted call
 * until a third sample outvotes it), else one whose intervals are too wide; the one nearest
 * its interval threshold, and its metric where one more sample decides most. A metric that
 * holds 4 x max point samples gets no more: the fallback goes on instead. 0 when none. */
static int resample_at(const lbs__ia *s, double mswm, double *at) {
  if (!(s->noise > 0)) return 0;
  int j = group_of(s, s->last_w);
  if (j >= s->ng || s->g[j].w != s->last_w) return 0;
  double best[2] = {INFINITY, INFINITY}, where[2] = {0, 0};
  int found[2] = {0, 0};
  for (int i = s->row0; i < j && s->g[i].w <= mswm; i++) {
    lbs__ia_fit f;
    int which, v = lbs__ia_verdict(s, i, j, &f, &which);
    if (!(v == LBS__IA_UNSURE || v == LBS__IA_CI) || which < 0 ||
        s->g[which].taken >= 4 * s->o.max_point_samples)
      continue;
    double w0 = s->g[i].w, w1 = s->g[j].w;
    double r0 = 2 * f.h0 / lbs_ia_bound_at(&s->o.ci, f.c0 + f.c1 * w0);
    double r1 = 2 * f.h1 / lbs_ia_bound_at(&s->o.ci, f.c0 + f.c1 * w1);
    double r = r0 > r1 ? r0 : r1;
    int c = v == LBS__IA_CI;
    if (!found[c] || r < best[c]) best[c] = r, where[c] = s->g[which].w, found[c] = 1;
  }
  for (int c = 0; c < 2; c++)
    if (found[c]) {
      *at = where[c];
      return 1;
    }
  return 0;
}

double lbs__ia_select(lbs__ia *s) {
  double w = NAN;
  if (!s->nseg) { /* no point yet: the lower bound of the range */
    s->last_w = s->lo;
    return s->lo;
  }
  const lbs__ia_seg *last = &s->seg[s->nseg - 1];
  double f = last->w1, tf = last->t1, mswm = s->sp.next_metric(f);
  int progressed = isnan(s->last_w) || f != s->last_frontier;
  if (!progressed && s->last_w > mswm && resample_at(s, mswm, &w)) {
    s->resampled++; /* the probe stays where it is */
    return w;
  }
  if (progressed) { /* extrapolate the right-most segment's slope by SETS */
    double slope = NAN;
    for (int k = s->nseg - 1; k >= 0 && isnan(slope); k--)
      if (s->seg[k].w1 > s->seg[k].w0)
        slope = (s->seg[k].t1 - s->seg[k].t0) / (s->seg[k].w1 - s->seg[k].w0);
    w = slope > 0 ? f + lbs_ia_bound_at(&s->o.sets, tf) / slope : INFINITY;
  } else { /* exponential fallback: halfway back to the MSWM, always closer than before */
    w = s->sp.round_metric((s->last_w + mswm) / 2);
    if (!(w < s->last_w)) w = mswm;
  }
  if (w > s->hi) w = s->hi;
  if (w > f + (f - s->lo)) w = f + (f - s->lo); /* growth limit: at most double the IPG */
  w = s->sp.round_metric(w);
  if (!(w >= mswm)) w = mswm;
  if (w > s->hi) w = s->hi;
  s->last_w = w;
  s->last_frontier = f;
  return w;
}

/* ---------------------------------------------------------------- step 2: identification */

static lbs_err grow(void **p, int *cap, int need, size_t size) {
  if (need <= *cap) return LBS_OK;
  int c = *cap ? *cap : 16;
  while (c < need) c *= 2;
  void *q = realloc(*p, (size_t)c * size);
  if (!q) return lbs_fail(LBS_NOMEM, "IA heuristic");
  *p = q;
  *cap = c;
  return LBS_OK;
}

/* The robust relative noise of one sample, from every sample of a metric measured more than
 * once: its deviation from the group's mean relative to that mean (or the absolute floor) (scaled
 * by sqrt(n / (n - 1)) so that each has the variance of one sample), then 1.4826 x the median of
 * their absolute values. A preempted call among them moves the median little, where it would
 * dominate a pooled variance. */
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int group_of(const lbs__ia *s, double w) {
  int lo = 0, hi = s->ng;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (s->g[mid].w < w)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Noise is relative to the time, and to no less than the accuracy's absolute floor: below it a
 * timer's tick and a call's overhead set the jitter, not the work. */
static double noise_scale(const lbs__ia *s, double t) {
  t = fabs(t);
  return t > s->o.accuracy.min_s ? t : s->o.accuracy.min_s;
}

static lbs_err noise_update(lbs__ia *s) {
  double *d = malloc((size_t)s->ns * sizeof *d);
  if (!d) return lbs_fail(LBS_NOMEM, "IA heuristic: noise estimate");
  int n = 0;
  for (int k = 0; k < s->ns; k++) {
    const lbs__ia_group *g = &s->g[group_of(s, s->samples[k].w)];
    if (g->n < 2 || !(noise_scale(s, g->mean) > 0)) continue;
    d[n++] =
        fabs(s->samples[k].t - g->mean) / noise_scale(s, g->mean) * sqrt((double)g->n / (g->n - 1));
  }
  if (n) {
    qsort(d, (size_t)n, sizeof *d, cmp_double);
    s->noise = 1.4826 * (n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2);
    if (s->noise < 1e-9) s->noise = 0; /* rounding of equal times (a fake clock), not noise */
  }
  s->noise_n = n;
  free(d);
  return LBS_OK;
}

/* A group of three samples or more keeps those within 5 robust spreads of its median (the
 * larger of 1.4826 x its median absolute deviation and the noise estimate): a call preempted
 * for a time slice, 5x and more on a loaded machine, would otherwise move the mean of its
 * metric beyond the accuracy for good. */
static lbs_err group_refresh(lbs__ia *s, lbs__ia_group *g) {
  double *v = malloc(2 * (size_t)g->taken * sizeof *v);
  if (!v) return lbs_fail(LBS_NOMEM, "IA heuristic: a group");
  int n = 0;
  for (int k = 0; k < s->ns && n < g->taken; k++)
    if (s->samples[k].w == g->w) v[n++] = s->samples[k].t;
  double *a = v + n;
  memcpy(a, v, (size_t)n * sizeof *a);
  qsort(a, (size_t)n, sizeof *a, cmp_double);
  double med = n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
  for (int k = 0; k < n; k++) a[k] = fabs(v[k] - med);
  qsort(a, (size_t)n, sizeof *a, cmp_double);
  double mad = 1.4826 * (n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2),
         spread = s->noise * noise_scale(s, med);
  double cut = 5 * (mad > spread ? mad : spread);
  if (cut < 1e-9 * fabs(med)) cut = 1e-9 * fabs(med); /* (rounding of equal times) */
  g->n = 0;
  g->mean = g->m2 = 0;
  for (int k = 0; k < n; k++) {
    if (fabs(v[k] - med) > cut) continue;
    g->n++;
    double d = v[k] - g->mean;
    g->mean += d / g->n;
    g->m2 += d * (v[k] - g->mean);
  }
  free(v);
  return LBS_OK;
}

lbs_err lbs__ia_add_sample(lbs__ia *s, double w, double t) {
  if (!isfinite(t) || t < 0)
    return lbs_fail(LBS_RANGE,
                    "a sample at work metric %.17g measured %g s: times must be finite and >= 0", w,
                    t);
  if (grow((void **)&s->samples, &s->scap, s->ns + 1, sizeof *s->samples)) return LBS_NOMEM;
  s->samples[s->ns++] = (lbs_sample){w, t};
  int k = group_of(s, w), fresh = !(k < s->ng && s->g[k].w == w);
  if (fresh) {
    if (grow((void **)&s->g, &s->gcap, s->ng + 1, sizeof *s->g)) return LBS_NOMEM;
    if (s->ng + 1 > s->mcap) { /* a larger matrix: copy the cells over */
      int nc = s->mcap ? s->mcap * 2 : 16;
      lbs__ia_stats *m = calloc((size_t)nc * (size_t)nc, sizeof *m);
      if (!m) return lbs_fail(LBS_NOMEM, "IA heuristic: regression matrix");
      for (int i = 0; i < s->ng; i++)
        for (int j = i; j < s->ng; j++) m[(size_t)i * (size_t)nc + (size_t)j] = CELL(s, i, j);
      free(s->m);
      s->m = m;
      s->mcap = nc;
    }
    memmove(s->g + k + 1, s->g + k, (size_t)(s->ng - k) * sizeof *s->g);
    s->g[k] = (lbs__ia_group){w, 0, 0, 0, 0};
    s->ng++;
    if (k < s->row0)
      s->row0++; /* (a sample left of the committed rows: cannot happen, kept safe) */
  }
  lbs__ia_group *g = &s->g[k];
  if (++g->taken < 3) {
    g->n++;
    double d = t - g->mean;
    g->mean += d / g->n;
    g->m2 += d * (t - g->mean);
  } else if (group_refresh(s, g))
    return LBS_NOMEM;
  if (g->taken >= 2 && noise_update(s)) return LBS_NOMEM;
  /* Cells that include group k, and (a new group shifts them) every cell ending after it:
   * row by row, each cell is its left neighbour merged with one group. */
  for (int i = s->row0; i < s->ng; i++)
    for (int j = i > k ? i : k; j < s->ng; j++) {
      lbs__ia_stats b = group_stats(&s->g[j]);
      CELL(s, i, j) = j == i ? b : lbs__ia_merge(CELL(s, i, j - 1), b);
    }
  return LBS_OK;
}

double lbs__ia_excess(const lbs__ia *s, const lbs__ia_group *g, double e) {
  double d = fabs(g->mean - e) - lbs_ia_bound_at(&s->o.set, e);
  if (!(d > 0)) return 0;
  /* A group with max point samples is taken at its mean, as a point is: resampling it would only
   * pull the line towards it. */
  double se = g->n < s->o.max_point_samples ? s->noise * noise_scale(s, e) / sqrt(g->n) : 0;
  return se > 0 ? d / se : INFINITY;
}

/* Under noise, whether the end group e of a cell stands on one sample, or on two that disagree
 * by more than 5 noise spreads, and the rest of the cell (groups a..b) does not predict it
 * within 5 noise spreads past the sample error threshold: one preempted call would otherwise
 * make a segment end of its own. A lone end the rest cannot predict (fewer than 3 samples) is
 * confirmed too. */
static int lone_end(const lbs__ia *s, int e, int a, int b) {
  const lbs__ia_group *g = &s->g[e];
  if (g->taken >= 3 ||
      (g->taken == 2 && sqrt(2 * g->m2) <= 5 * M_SQRT2 * s->noise * noise_scale(s, g->mean)))
    return 0;
  if (a > b) return 1;
  lbs__ia_fit f = lbs__ia_fit_cell(&CELL(s, a, b), s->g[a].w, s->g[b].w, s->o.confidence);
  if (!f.ok) return 1;
  double p = f.c0 + f.c1 * g->w;
  return !(fabs(g->mean - p) <= lbs_ia_bound_at(&s->o.set, p) + 5 * s->noise * noise_scale(s, p));
}

int lbs__ia_verdict(const lbs__ia *s, int i, int j, lbs__ia_fit *fit, int *which) {
  const lbs__ia_stats *st = &CELL(s, i, j);
  double w0 = s->g[i].w, w1 = s->g[j].w;
  lbs__ia_fit f = lbs__ia_fit_cell(st, w0, w1, s->o.confidence);
  *fit = f;
  *which = -1;
  if (!f.ok) return LBS__IA_FEW;
  double t0 = f.c0 + f.c1 * w0, t1 = f.c0 + f.c1 * w1;
  if (!(t0 > 0 && t1 > 0)) return LBS__IA_NONPOS;
  double r0 = 2 * f.h0 / lbs_ia_bound_at(&s->o.ci, t0),
         r1 = 2 * f.h1 / lbs_ia_bound_at(&s->o.ci, t1);
  if (i == j) {
    *which = i;
    return st->n < s->o.max_point_samples && !(r0 <= 1) ? LBS__IA_CI : LBS__IA_OK;
  }
  if (s->noise > 0 &&
      (lone_end(s, i, i + 1, j) || lone_end(s, j, i, j - 1))) { /* confirm it first */
    *which = lone_end(s, i, i + 1, j) ? i : j;
    return LBS__IA_UNSURE;
  }
  for (int k = i; k < j; k++) { /* METS: neighbouring samples close enough along the line */
    double wk = s->g[k].w, tk = f.c0 + f.c1 * wk;
    double allowed = f.c1 > 0 ? lbs_ia_bound_at(&s->o.mets, tk) / f.c1 : INFINITY;
    double step = s->sp.next_metric(wk) - wk; /* attainable by the adapter */
    if (allowed < step) allowed = step;
    if (s->g[k + 1].w - wk > allowed) return LBS__IA_METS;
  }
  /* Beyond the thesis: the groups' means on the line within the sample error threshold. A
   * narrow interval only says the line is well determined; many samples on one side of a knee
   * make it narrow while the line misses the samples across the knee. Under noise a group
   * beyond the threshold is decided only when significantly so: any one of them (Bonferroni over
   * the groups) or all together (the chi-square of their excesses: a bend that moves many groups
   * a little). One beyond it by less is undecided until more samples narrow its mean. */
  int G = j - i + 1, kmax = -1, kodd = -1;
  double alpha = 1 - s->o.confidence,
         zcrit = s->noise > 0 ? gsl_cdf_ugaussian_Qinv(alpha / (2 * G)) : 0;
  double zmax = 0, chi = 0;
  for (int k = i; k <= j; k++) {
    double z = lbs__ia_excess(s, &s->g[k], f.c0 + f.c1 * s->g[k].w);
    if (z > zcrit && s->noise > 0 && s->g[k].taken < 3) { /* a preempted call? confirm first */
      if (kodd < 0 || z > lbs__ia_excess(s, &s->g[kodd], f.c0 + f.c1 * s->g[kodd].w)) kodd = k;
      continue;
    }
    if (z > zmax) zmax = z, kmax = k;
    chi += z * z;
  }
  if (zmax > 0 && (isinf(zmax) || zmax > zcrit || chi > gsl_cdf_chisq_Qinv(alpha, G)))
    return LBS__IA_FIT;
  if (kodd >= 0 || zmax > 0) {
    *which = kodd >= 0 ? kodd : kmax;
    return LBS__IA_UNSURE;
  }
  if (!(r0 <= 1) || !(r1 <= 1)) {
    *which = r0 > r1 ? i : j;
    return LBS__IA_CI;
  }
  return LBS__IA_OK;
}

/* Whether cell (i, j) is a candidate segment. */
static int candidate(const lbs__ia *s, int i, int j, lbs__ia_cand *c) {
  lbs__ia_fit f;
  int which;
  if (lbs__ia_verdict(s, i, j, &f, &which) != LBS__IA_OK) return 0;
  *c = (lbs__ia_cand){i, j, f.c0, f.c1};
  return 1;
}

int lbs__ia_candidates(const lbs__ia *s, lbs__ia_cand **out) {
  double mswm = lbs__ia_mswm(s);
  int n = 0, cap = 0;
  lbs__ia_cand *c = NULL, one;
  *out = NULL;
  for (int i = s->row0; i < s->ng && s->g[i].w <= mswm; i++)
    for (int j = i; j < s->ng; j++) {
      if (s->g[j].w < mswm || !candidate(s, i, j, &one)) continue;
      if (grow((void **)&c, &cap, n + 1, sizeof *c)) {
        free(c);
        return -1;
      }
      c[n++] = one;
    }
  *out = c;
  return n;
}

/* ---------------------------------------------------------------- step 3: insertion */

/* The time of a segment list at w, or NAN outside it. */
static double segs_eval(const lbs__ia_seg *sg, int n, double w) {
  for (int k = n - 1; k >= 0; k--)
    if (w >= sg[k].w0 && w <= sg[k].w1)
      return sg[k].w1 > sg[k].w0
                 ? sg[k].t0 + (sg[k].t1 - sg[k].t0) * (w - sg[k].w0) / (sg[k].w1 - sg[k].w0)
                 : sg[k].t1;
  return NAN;
}

typedef struct {
  int bad;    /* groups off by more than the sample error threshold */
  double end; /* extent */
  int nseg;
  double mse;
} score;

/* Lexicographic: fewer bad groups, larger extent, fewer segments, lower error. */
static int better(const score *a, const score *b) {
  if (a->bad != b->bad) return a->bad < b->bad;
  if (a->end != b->end) return a->end > b->end;
  if (a->nseg != b->nseg) return a->nseg < b->nseg;
  return a->mse < b->mse;
}

/* A group is bad when its mean lies beyond the sample error threshold by more than the noise
 * explains (Bonferroni over the groups scored); without noise, when beyond the threshold. */
static score score_of(const lbs__ia *s, const lbs__ia_seg *sg, int n) {
  score r = {0, sg[n - 1].w1, n, 0};
  double from = s->ncommitted ? s->seg[s->ncommitted - 1].w1 : s->lo;
  int cnt = 0, G = 0;
  for (int k = 0; k < s->ng; k++) G += s->g[k].w >= from && s->g[k].w <= r.end;
  double zcrit = s->noise > 0 && G ? gsl_cdf_ugaussian_Qinv((1 - s->o.confidence) / (2 * G)) : 0;
  for (int k = 0; k < s->ng; k++) {
    const lbs__ia_group *g = &s->g[k];
    if (g->w < from || g->w > r.end) continue;
    double e = segs_eval(sg, n, g->w);
    if (isnan(e)) continue;
    double d = g->mean - e;
    r.bad += lbs__ia_excess(s, g, e) > zcrit;
    r.mse += d * d;
    cnt++;
  }
  if (cnt) r.mse /= cnt;
  return r;
}

int lbs__ia_insert(lbs__ia *s, const lbs__ia_cand *c, int nc) {
  if (nc <= 0) return 0;
  double mswm = lbs__ia_mswm(s);
  int cap = s->nseg + 2, bestn = 0, found = 0;
  lbs__ia_seg *trial = malloc((size_t)cap * sizeof *trial),
              *best = malloc((size_t)cap * sizeof *best);
  score bs = {0};
  if (!trial || !best) {
    free(trial);
    free(best);
    return 0;
  }
#define TRY(n)                                                                                     \
  do {                                                                                             \
    score sc_ = score_of(s, trial, (n));                                                           \
    if (!found || better(&sc_, &bs)) {                                                             \
      bs = sc_;                                                                                    \
      bestn = (n);                                                                                 \
      memcpy(best, trial, (size_t)(n) * sizeof *trial);                                            \
      found = 1;                                                                                   \
    }                                                                                              \
  } while (0)
  for (int q = 0; q < nc; q++) {
    double w0 = s->g[c[q].i].w, w1 = s->g[c[q].j].w, a = c[q].c0, b = c[q].c1;
    lbs__ia_seg mine = {w0, a + b * w0, w1, a + b * w1};
    if (w0 == mswm) { /* append */
      if (s->nseg) memcpy(trial, s->seg, (size_t)s->nseg * sizeof *trial);
      trial[s->nseg] = mine;
      TRY(s->nseg + 1);
    }
    if (w0 < mswm) /* cut in where it crosses an active segment */
      for (int k = s->ncommitted; k < s->nseg; k++) {
        const lbs__ia_seg *g = &s->seg[k];
        if (!(g->w1 > g->w0)) continue;
        double L = w0 > g->w0 ? w0 : g->w0, R = w1 < g->w1 ? w1 : g->w1;
        if (L > R) continue;
        double sl = (g->t1 - g->t0) / (g->w1 - g->w0);
        double fL = (a + b * L) - (g->t0 + sl * (L - g->w0)),
               fR = (a + b * R) - (g->t0 + sl * (R - g->w0));
        double x;
        if (fL == 0)
          x = L;
        else if (fR == 0)
          x = R;
        else if ((fL < 0) != (fR < 0))
          x = L + (R - L) * fL / (fL - fR);
        else
          continue;
        if (!(x > g->w0)) continue; /* (at its start it is the previous segment's end) */
        memcpy(trial, s->seg, (size_t)k * sizeof *trial);
        trial[k] = (lbs__ia_seg){g->w0, g->t0, x, g->t0 + sl * (x - g->w0)};
        trial[k + 1] = (lbs__ia_seg){x, trial[k].t1, w1, mine.t1};
        TRY(k + 2);
      }
    if (w0 == s->lo && s->ncommitted == 0 && s->nseg > 0) { /* replace the whole IPG */
      trial[0] = mine;
      TRY(1);
    }
  }
#undef TRY
  if (found) {
    if (grow((void **)&s->seg, &s->segcap, bestn, sizeof *s->seg))
      found = 0;
    else {
      memcpy(s->seg, best, (size_t)bestn * sizeof *best);
      s->nseg = bestn;
    }
  }
  free(trial);
  free(best);
  return found;
}

/* ---------------------------------------------------------------- step 4: commitment */

void lbs__ia_commit(lbs__ia *s) {
  while (s->nseg - s->ncommitted > s->o.window) s->ncommitted++;
  if (!s->ncommitted) return;
  double end = s->seg[s->ncommitted - 1].w1;
  while (s->row0 < s->ng && s->g[s->row0].w < end) s->row0++;
}

lbs_err lbs__ia_points(const lbs__ia *s, lbs_ipg *out) {
  memset(out, 0, sizeof *out);
  if (!s->nseg) return LBS_OK;
  int cap = 2 * s->nseg;
  out->w = malloc((size_t)cap * sizeof *out->w);
  out->t = malloc((size_t)cap * sizeof *out->t);
  if (!out->w || !out->t) {
    lbs_ipg_free(out);
    return lbs_fail(LBS_NOMEM, "IPG");
  }
  for (int k = 0; k < s->nseg; k++) {
    const lbs__ia_seg *g = &s->seg[k];
    if (!out->n || g->w0 > out->w[out->n - 1]) out->w[out->n] = g->w0, out->t[out->n++] = g->t0;
    if (g->w1 > out->w[out->n - 1]) out->w[out->n] = g->w1, out->t[out->n++] = g->t1;
  }
  return LBS_OK;
}

/* ---------------------------------------------------------------- the heuristic */

lbs_err lbs_ia_run(const lbs_ia_opts *o, const lbs_ia_space *sp, lbs_ia_sample_fn f, void *ctx,
                   lbs_ia_progress_fn progress, void *pctx, lbs_ia_result *res) {
  lbs__ia s;
  memset(res, 0, sizeof *res);
  lbs_err e = lbs__ia_init(&s, o, sp);
  if (e) return e;
  while (!e && !(s.nseg && lbs__ia_frontier(&s) >= s.hi)) {
    if (s.ns >= o->max_samples) {
      e = lbs_fail(
          LBS_RANGE,
          "stopped after %d samples (the limit) with the IPG up to work metric %g of [%g, %g]",
          s.ns, s.nseg ? lbs__ia_frontier(&s) : s.lo, s.lo, s.hi);
      break;
    }
    if (o->max_seconds > 0 && res->sample_s >= o->max_seconds) {
      e = lbs_fail(
          LBS_RANGE,
          "stopped after %.1f s of samples (the limit) with the IPG up to work metric %g of [%g, %g]",
          res->sample_s, s.nseg ? lbs__ia_frontier(&s) : s.lo, s.lo, s.hi);
      break;
    }
    double w = lbs__ia_select(&s), t = 0;
    if ((e = f(ctx, w, &t))) break;
    if ((e = lbs__ia_add_sample(&s, w, t))) break;
    res->sample_s += t;
    lbs__ia_cand *c = NULL;
    int nc = lbs__ia_candidates(&s, &c);
    if (nc < 0)
      e = lbs_fail(LBS_NOMEM, "IA heuristic: candidates");
    else
      lbs__ia_insert(&s, c, nc);
    free(c);
    lbs__ia_commit(&s);
    res->iterations++;
    if (progress) progress(pctx, s.nseg ? lbs__ia_frontier(&s) : s.lo, s.ns);
  }
  res->complete = s.nseg && lbs__ia_frontier(&s) >= s.hi;
  res->noise = s.noise;
  lbs_err pe = lbs__ia_points(&s, &res->ipg);
  if (!e) e = pe;
  res->samples = s.samples;
  res->nsamples = s.ns;
  s.samples = NULL;
  /* Guideline 2 of 4.2.1: time should not fall as work grows. */
  for (int k = 0; k + 1 < res->ipg.n; k++) {
    double drop = res->ipg.t[k] - res->ipg.t[k + 1];
    if (drop > lbs_ia_bound_at(&o->set, res->ipg.t[k])) {
      snprintf(
          res->note, sizeof res->note,
          "the time falls from %.3g s at work metric %.17g to %.3g s at %.17g: this work metric does not order "
          "the work (times should not fall as it grows)",
          res->ipg.t[k], res->ipg.w[k], res->ipg.t[k + 1], res->ipg.w[k + 1]);
      break;
    }
  }
  if (!res->complete && !res->note[0] && s.noise > o->accuracy.pct / 200)
    snprintf(
        res->note, sizeof res->note,
        "one sample varies by %.3g%% (robust spread at repeated metrics), against an accuracy of %g%%: take "
        "more calls per sample (--repeat), a quieter machine or a looser accuracy",
        100 * s.noise, o->accuracy.pct);
  lbs__ia_free(&s);
  return e;
}
