/* graph.c - graph helpers shared by partitioners and commands. */
#include <stdlib.h>
#include <string.h>

#include "lbs_part.h"

typedef struct {
  int64_t v;
  double w;
} nbr;

static int cmp_nbr(const void *a, const void *b) {
  const nbr *x = a, *y = b;
  return (x->v > y->v) - (x->v < y->v);
}

lbs_err lbs_part_symmetrize(int64_t n, const int64_t *xadj, const int64_t *adj, const double *w, double min_w,
                            int64_t **oxadj, int64_t **oadj, double **ow) {
  *oxadj = NULL, *oadj = NULL, *ow = NULL;
  int64_t ne = xadj[n], k = 0;
  int64_t *cnt = calloc((size_t)n + 2, sizeof *cnt), *src = malloc((size_t)(2 * ne + 1) * sizeof *src);
  nbr *e = malloc((size_t)(2 * ne + 1) * sizeof *e), *row = malloc((size_t)(2 * ne + 1) * sizeof *row);
  int64_t *rx = malloc((size_t)(n + 1) * sizeof *rx), *ra = malloc((size_t)(2 * ne + 1) * sizeof *ra);
  double *rw = malloc((size_t)(2 * ne + 1) * sizeof *rw);
  lbs_err err = LBS_OK;
  if (!cnt || !src || !e || !row || !rx || !ra || !rw) {
    err = lbs_fail(LBS_NOMEM, "symmetric graph of %lld vertices", (long long)n);
    goto done;
  }
  for (int64_t u = 0; u < n; u++)
    for (int64_t j = xadj[u]; j < xadj[u + 1]; j++) {
      int64_t v = adj[j];
      if (v == u || v < 0 || v >= n) continue;
      src[k] = u, e[k].v = v, e[k++].w = w ? w[j] : 1;
      src[k] = v, e[k].v = u, e[k++].w = w ? w[j] : 1;
    }
  /* bucket by source (counting sort keeps it stable), sort each row, merge duplicates */
  for (int64_t i = 0; i < k; i++) cnt[src[i] + 2]++;
  for (int64_t u = 0; u < n; u++) cnt[u + 2] += cnt[u + 1];
  for (int64_t i = 0; i < k; i++) row[cnt[src[i] + 1]++] = e[i];
  int64_t m = 0;
  for (int64_t u = 0; u < n; u++) {
    rx[u] = m;
    qsort(row + cnt[u], (size_t)(cnt[u + 1] - cnt[u]), sizeof *row, cmp_nbr);
    for (int64_t i = cnt[u]; i < cnt[u + 1]; i++) {
      double x = row[i].w > min_w ? row[i].w : min_w;
      if (m > rx[u] && ra[m - 1] == row[i].v) {
        if (x > rw[m - 1]) rw[m - 1] = x;
      } else {
        ra[m] = row[i].v, rw[m++] = x;
      }
    }
  }
  rx[n] = m;
  *oxadj = rx, *oadj = ra, *ow = rw;
  rx = ra = NULL, rw = NULL;
done:
  free(cnt), free(src), free(e), free(row), free(rx), free(ra), free(rw);
  return err;
}
