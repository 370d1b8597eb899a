/* hilbert.c - Hilbert-curve ordering of the cells of a structured box.
 *
 * Skilling's transform ("Programming the Hilbert curve", AIP Conf. Proc. 707, 2004) turns
 * cell coordinates into the transposed Hilbert index in the enclosing 2^b cube, over the
 * dimensions that have more than one cell; cells are then sorted by that index. */
#include "lbs_traces.h"

#include <stdlib.h>

typedef struct {
  uint64_t key;
  int64_t cell;
} keyed;

static int cmp_keyed(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->cell > y->cell) - (x->cell < y->cell);
}

static uint64_t hilbert_key(uint32_t *X, int b, int n) {
  uint32_t M = 1u << (b - 1), P, Q, t;
  for (Q = M; Q > 1; Q >>= 1) {
    P = Q - 1;
    for (int i = 0; i < n; i++) {
      if (X[i] & Q) {
        X[0] ^= P;
      } else {
        t = (X[0] ^ X[i]) & P;
        X[0] ^= t;
        X[i] ^= t;
      }
    }
  }
  for (int i = 1; i < n; i++) X[i] ^= X[i - 1];
  t = 0;
  for (Q = M; Q > 1; Q >>= 1)
    if (X[n - 1] & Q) t ^= Q - 1;
  for (int i = 0; i < n; i++) X[i] ^= t;
  uint64_t key = 0;
  for (int j = b - 1; j >= 0; j--)
    for (int i = 0; i < n; i++) key = (key << 1) | ((X[i] >> j) & 1u);
  return key;
}

lbs_err lbs_hilbert_order(int64_t nx, int64_t ny, int64_t nz, int64_t *order) {
  int64_t d[3] = {nx, ny, nz}, total = nx * ny * nz, maxd = 1;
  int act[3], n = 0;
  for (int i = 0; i < 3; i++) {
    if (d[i] < 1) return lbs_fail(LBS_INVAL, "mesh dimensions must be >= 1");
    if (d[i] > 1) act[n++] = i;
    if (d[i] > maxd) maxd = d[i];
  }
  int b = 1;
  while ((INT64_C(1) << b) < maxd) b++;
  if (n == 0 || b * n > 63 || b > 31) {
    for (int64_t c = 0; c < total; c++) order[c] = c;
    return n == 0 ? LBS_OK : lbs_fail(LBS_RANGE, "mesh too large for a Hilbert order");
  }
  keyed *k = malloc((size_t)total * sizeof *k);
  if (!k) return lbs_fail(LBS_NOMEM, "Hilbert keys for %lld cells", (long long)total);
  for (int64_t c = 0; c < total; c++) {
    int64_t ijk[3] = {c % nx, (c / nx) % ny, c / (nx * ny)};
    uint32_t X[3];
    for (int i = 0; i < n; i++) X[i] = (uint32_t)ijk[act[i]];
    k[c].key = b == 0 ? 0 : hilbert_key(X, b, n);
    k[c].cell = c;
  }
  qsort(k, (size_t)total, sizeof *k, cmp_keyed);
  for (int64_t c = 0; c < total; c++) order[c] = k[c].cell;
  free(k);
  return LBS_OK;
}
