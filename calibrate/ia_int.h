/* ia_int.h - the IA heuristic's state and its four steps (seed 004, 4.3), for ia.c and its
 * unit tests. Private to calibrate/. */
#ifndef LBS_CALIB_IA_INT_H
#define LBS_CALIB_IA_INT_H

#include "lbs_calib.h"

/* The samples taken at one work metric (a work metric group's measurements). */
typedef struct {
  double w;
  int n;           /* samples kept (from 3 samples on, far outliers are left out) */
  double mean, m2; /* mean and sum of squared deviations of the kept samples */
  int taken;       /* samples taken at this metric */
} lbs__ia_group;

/* Centred regression sums of a run of samples: merged pairwise (Chan et al.), so a cell of
 * the regression matrix is its left neighbour merged with one group, without cancellation. */
typedef struct {
  int n;
  double mx, my;        /* means */
  double sxx, sxy, syy; /* centred sums of squares and products */
} lbs__ia_stats;
lbs__ia_stats lbs__ia_merge(lbs__ia_stats a, lbs__ia_stats b);

/* A least-squares line over a cell (t = c0 + c1 w) with GSL's covariance terms, and the
 * half-widths of the confidence intervals of its value at the cell's two ends. For a cell of
 * one metric (a point) c1 = 0 and the interval is that of the mean. */
typedef struct {
  int ok; /* 0: fewer than 3 samples (or no spread to fit a slope) */
  double c0, c1, cov00, cov01, cov11, sumsq;
  double h0, h1; /* confidence half-widths at the first and last metric */
} lbs__ia_fit;
lbs__ia_fit lbs__ia_fit_cell(const lbs__ia_stats *st, double w0, double w1, double confidence);

/* One segment of the IPG under construction; a point when w0 == w1. */
typedef struct {
  double w0, t0, w1, t1;
} lbs__ia_seg;

/* A candidate segment: cell (i, j) of the regression matrix, its line clipped to [w_i, w_j]. */
typedef struct {
  int i, j;
  double c0, c1;
} lbs__ia_cand;

typedef struct {
  lbs_ia_opts o;
  lbs_ia_space sp;
  double lo, hi;    /* the range, rounded to valid metrics */
  lbs__ia_group *g; /* ng groups in ascending metric */
  int ng, gcap;
  lbs__ia_stats *m; /* regression matrix: cell (i, j), i <= j, at m[i * mcap + j] */
  int mcap;
  int row0;         /* rows above this one were removed by segment commitment */
  lbs__ia_seg *seg; /* nseg segments, ascending; the first ncommitted are committed */
  int nseg, segcap, ncommitted;
  double last_w;        /* the probe: metric of the previous extrapolated or fallback sample */
  double last_frontier; /* the frontier when that sample was selected */
  lbs_sample *samples;  /* every sample in the order taken */
  int ns, scap;
  double noise;  /* relative noise of one sample (robust, from repeated metrics); 0: none seen */
  int noise_n;   /* deviations it was estimated from */
  int resampled; /* samples taken to narrow a candidate's intervals (not the probe) */
} lbs__ia;

lbs_err lbs__ia_init(lbs__ia *s, const lbs_ia_opts *o, const lbs_ia_space *sp);
void lbs__ia_free(lbs__ia *s);
/* The right end of the right-most segment (NAN while the IPG is empty). */
double lbs__ia_frontier(const lbs__ia *s);
/* The minimum sampling work metric: NextMetric(frontier), or lo while the IPG is empty. */
double lbs__ia_mswm(const lbs__ia *s);
/* Step 1 (4.3.2): the metric of the next sample (it records what the fallback needs). */
double lbs__ia_select(lbs__ia *s);
/* Step 2, first half (4.3.3): a sample into its group and the regression matrix (and the
 * noise estimate when it repeats a metric). */
lbs_err lbs__ia_add_sample(lbs__ia *s, double w, double t);
/* Step 2, second half: the candidate segments (*out owned by the caller); their count or -1
 * (out of memory). */
int lbs__ia_candidates(const lbs__ia *s, lbs__ia_cand **out);
/* Step 3 (4.3.4): inserts the best candidate at its best location; 1 when one was inserted. */
int lbs__ia_insert(lbs__ia *s, const lbs__ia_cand *c, int nc);
/* Step 4 (4.3.5): commits segments left of the active window and drops their rows. */
void lbs__ia_commit(lbs__ia *s);
/* The IPG's points from the segments. */
lbs_err lbs__ia_points(const lbs__ia *s, lbs_ipg *out);

/* Why cell (i, j) is or is not a candidate. */
enum {
  LBS__IA_OK,
  LBS__IA_FEW,
  LBS__IA_NONPOS,
  LBS__IA_METS,
  LBS__IA_FIT,
  LBS__IA_UNSURE,
  LBS__IA_CI
};
/* *fit: the cell's line; *which: for UNSURE the group whose mean is undecided, for CI the end
 * with the wider interval (relative to its threshold), else -1. FIT: a group significantly
 * beyond the sample error threshold (any beyond it without noise). */
int lbs__ia_verdict(const lbs__ia *s, int i, int j, lbs__ia_fit *fit, int *which);
/* How far group g's mean lies beyond the sample error threshold of value e, in standard errors
 * of that mean under the noise estimate (0 within the threshold, INFINITY without noise). */
double lbs__ia_excess(const lbs__ia *s, const lbs__ia_group *g, double e);

#endif
