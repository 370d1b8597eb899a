/* graph.c - graph helpers shared by partitioners and commands. */
#include <stdlib.h>
#include <string.h>

#include "lbs_part.h"

typedef struct {
  int64_t v;
  double w;
} nbr;

lbs_err lbs_part_symmetrize(int64_t n, const int64_t *xadj, const int64_t *adj, const double *w,
                            double min_w, int64_t **oxadj, int64_t **oadj, double **ow) {
  *oxadj = NULL, *oadj = NULL, *ow = NULL;
  int64_t ne = xadj[n], k = 0;
  int64_t *cnt = calloc((size_t)n + 2, sizeof *cnt),
          *src = malloc((size_t)(2 * ne + 1) * sizeof *src);
  nbr *e = malloc((size_t)(2 * ne + 1) * sizeof *e),
      *row = malloc((size_t)(2 * ne + 1) * sizeof *row);
  int64_t *rx = malloc((size_t)(n + 1) * sizeof *rx),
          *ra = malloc((size_t)(2 * ne + 1) * sizeof *ra);
  int64_t *at =
      malloc((size_t)(n ? n : 1) * sizeof *at); /* where v went in the current row, or -1 */
  double *rw = malloc((size_t)(2 * ne + 1) * sizeof *rw);
  lbs_err err = LBS_OK;
  if (!cnt || !src || !e || !row || !rx || !ra || !rw || !at) {
    err = lbs_fail(LBS_NOMEM, "symmetric graph of %lld vertices", (long long)n);
    goto done;
  }
  /* every vertex's own arcs first, in the input's order, then the reverse arcs: a symmetric
   * input comes out in its own neighbour order (METIS's result depends on it) */
  for (int pass = 0; pass < 2; pass++)
    for (int64_t u = 0; u < n; u++)
      for (int64_t j = xadj[u]; j < xadj[u + 1]; j++) {
        int64_t v = adj[j];
        if (v == u || v < 0 || v >= n) continue;
        if (pass == 0)
          src[k] = u, e[k].v = v, e[k++].w = w ? w[j] : 1;
        else
          src[k] = v, e[k].v = u, e[k++].w = w ? w[j] : 1;
      }
  /* bucket by source (counting sort keeps that order), merge duplicates where they first came */
  for (int64_t i = 0; i < k; i++) cnt[src[i] + 2]++;
  for (int64_t u = 0; u < n; u++) cnt[u + 2] += cnt[u + 1];
  for (int64_t i = 0; i < k; i++) row[cnt[src[i] + 1]++] = e[i];
  for (int64_t v = 0; v < n; v++) at[v] = -1;
  int64_t m = 0;
  for (int64_t u = 0; u < n; u++) {
    rx[u] = m;
    for (int64_t i = cnt[u]; i < cnt[u + 1]; i++) {
      double x = row[i].w > min_w ? row[i].w : min_w;
      int64_t v = row[i].v;
      if (at[v] >= rx[u]) {
        if (x > rw[at[v]]) rw[at[v]] = x;
      } else {
        at[v] = m, ra[m] = v, rw[m++] = x;
      }
    }
  }
  rx[n] = m;
  *oxadj = rx, *oadj = ra, *ow = rw;
  rx = ra = NULL, rw = NULL;
done:
  free(cnt), free(src), free(e), free(row), free(rx), free(ra), free(rw), free(at);
  return err;
}

double lbs_part_work_imbalance(const int *part, const double *w, int64_t n, const double *sizes,
                               int P) {
  double *load = calloc((size_t)(P > 0 ? P : 1), sizeof *load), total = 0, worst = 0;
  if (!load) return 0;
  for (int64_t i = 0; i < n; i++)
    if (part[i] >= 0 && part[i] < P) load[part[i]] += w[i], total += w[i];
  for (int p = 0; p < P && total > 0; p++) {
    double share = sizes ? sizes[p] : 1.0 / P;
    double r = load[p] > 0 ? (share > 0 ? load[p] / (share * total) : 1.0 / 0.0) : 0;
    worst = r > worst ? r : worst;
  }
  free(load);
  return total > 0 ? worst : 1;
}
