/* ipg.c - implementation performance graphs: lookup (seed 004, Figure 4-3). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_calib.h"

double lbs_ipg_eval(const lbs_ipg *g, double w) {
  if (g->n <= 0) return 0;
  if (g->n == 1 || w <= g->w[0]) return g->t[0];
  int lo = 0, hi = g->n - 1; /* binary search: w[lo] <= w < w[hi], or the last segment */
  if (w >= g->w[hi])
    lo = hi - 1;
  else
    while (hi - lo > 1) {
      int mid = (lo + hi) / 2;
      if (g->w[mid] <= w)
        lo = mid;
      else
        hi = mid;
    }
  double dw = g->w[lo + 1] - g->w[lo];
  if (!(dw > 0)) return g->t[lo + 1];
  return g->t[lo] + (g->t[lo + 1] - g->t[lo]) * (w - g->w[lo]) / dw;
}

const char *lbs_ipg_metric_unit(const char *metric, char *buf, size_t n) {
  if (!n) return buf;
  *buf = '\0';
  if (!metric || !strcmp(metric, "imported")) return buf;
  while (*metric == ' ' || *metric == '\t') metric++;
  const char *end = strstr(metric, " (");
  size_t len = end ? (size_t)(end - metric) : strlen(metric);
  while (len && (metric[len - 1] == ' ' || metric[len - 1] == '\t')) len--;
  if (len >= n) len = n - 1;
  memcpy(buf, metric, len);
  buf[len] = '\0';
  return buf;
}

void lbs_ipg_free(lbs_ipg *g) {
  free(g->w);
  free(g->t);
  g->w = g->t = NULL;
  g->n = 0;
}

double lbs_ia_bound_at(const lbs_ia_bound *b, double t) {
  double v = b->pct / 100.0 * fabs(t);
  if (v < b->min_s) v = b->min_s;
  if (b->max_s > 0 && v > b->max_s) v = b->max_s;
  return v;
}
