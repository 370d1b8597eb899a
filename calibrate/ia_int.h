/* ia_int.h - the IA heuristic's state and its four steps (seed 004, 4.3), for ia.c and its
 * unit tests. Private to calibrate/. */
#ifndef LBS_CALIB_IA_INT_H
#define LBS_CALIB_IA_INT_H

#include "lbs_calib.h"

/* The samples taken at one work metric (a work metric group's measurements). */
typedef struct {
  double w;
  int n;
  double mean, m2; /* running mean and sum of squared deviations (Welford) */
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
  double lo, hi;      /* the range, rounded to valid metrics */
  lbs__ia_group *g;   /* ng groups in ascending metric */
  int ng, gcap;
  lbs__ia_stats *m;   /* regression matrix: cell (i, j), i <= j, at m[i * mcap + j] */
  int mcap;
  int row0;           /* rows above this one were removed by segment commitment */
  lbs__ia_seg *seg;   /* nseg segments, ascending; the first ncommitted are committed */
  int nseg, segcap, ncommitted;
  double last_w;         /* metric of the previous sample (NAN before the first) */
  double last_frontier;  /* the frontier when that sample was selected */
  lbs_sample *samples;   /* every sample in the order taken */
  int ns, scap;
} lbs__ia;

lbs_err lbs__ia_init(lbs__ia *s, const lbs_ia_opts *o, const lbs_ia_space *sp);
void lbs__ia_free(lbs__ia *s);
/* The right end of the right-most segment (NAN while the IPG is empty). */
double lbs__ia_frontier(const lbs__ia *s);
/* The minimum sampling work metric: NextMetric(frontier), or lo while the IPG is empty. */
double lbs__ia_mswm(const lbs__ia *s);
/* Step 1 (4.3.2): the metric of the next sample (it records what the fallback needs). */
double lbs__ia_select(lbs__ia *s);
/* Step 2, first half (4.3.3): a sample into its group and the regression matrix. */
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

#endif
