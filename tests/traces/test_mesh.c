#include <criterion/criterion.h>
#include <stdlib.h>

#include "lbs_traces.h"

static int adjacent(int64_t a, int64_t b, int64_t nx, int64_t ny) {
  int64_t ai = a % nx, aj = a / nx % ny, ak = a / (nx * ny);
  int64_t bi = b % nx, bj = b / nx % ny, bk = b / (nx * ny);
  return llabs(ai - bi) + llabs(aj - bj) + llabs(ak - bk) == 1;
}

Test(mesh, hilbert_is_a_permutation_and_continuous_on_a_cube) {
  int64_t n = 8 * 8 * 8, *o = malloc((size_t)n * sizeof *o);
  char *seen = calloc((size_t)n, 1);
  cr_assert_eq(lbs_hilbert_order(8, 8, 8, o), LBS_OK);
  for (int64_t i = 0; i < n; i++) {
    cr_assert(o[i] >= 0 && o[i] < n && !seen[o[i]]);
    seen[o[i]] = 1;
    if (i) cr_assert(adjacent(o[i - 1], o[i], 8, 8), "curve jumps between %lld and %lld", (long long)o[i - 1], (long long)o[i]);
  }
  free(o);
  free(seen);
}

Test(mesh, hilbert_on_odd_and_flat_boxes) {
  int64_t dims[][3] = {{30, 20, 20}, {16, 16, 1}, {7, 1, 1}, {1, 1, 1}, {5, 3, 9}};
  for (int t = 0; t < 5; t++) {
    int64_t n = dims[t][0] * dims[t][1] * dims[t][2], *o = malloc((size_t)n * sizeof *o), jumps = 0;
    char *seen = calloc((size_t)n, 1);
    cr_assert_eq(lbs_hilbert_order(dims[t][0], dims[t][1], dims[t][2], o), LBS_OK);
    for (int64_t i = 0; i < n; i++) {
      cr_assert(!seen[o[i]]);
      seen[o[i]] = 1;
      if (i && !adjacent(o[i - 1], o[i], dims[t][0], dims[t][1])) jumps++;
    }
    /* a flat power-of-two square is continuous; clipped boxes jump only at the edges */
    if (t == 1) cr_assert_eq(jumps, 0);
    cr_assert(jumps <= n / 4, "box %d: %lld jumps in %lld cells", t, (long long)jumps, (long long)n);
    free(o);
    free(seen);
  }
}

Test(mesh, structured_graph_in_hilbert_numbering) {
  lbs_mesh *m;
  cr_assert_eq(lbs_mesh_create_structured(6, 5, 4, LBS_ORDER_HILBERT, &m), LBS_OK);
  const int64_t *xadj, *adj, *cell = lbs_mesh_cell_index(m);
  const double *w;
  cr_assert_eq(lbs_mesh_graph(m, &xadj, &adj, &w), LBS_OK);
  int64_t n = 120, edges = 2 * (5 * 5 * 4 + 6 * 4 * 4 + 6 * 5 * 3);
  cr_assert_eq(xadj[n], edges);
  for (int64_t v = 0; v < n; v++)
    for (int64_t k = xadj[v]; k < xadj[v + 1]; k++) {
      cr_assert(adjacent(cell[v], cell[adj[k]], 6, 5));
      cr_assert_eq(w[k], 1.0);
    }
  const double *x;
  int dim;
  cr_assert_eq(lbs_mesh_coords(m, &x, &dim), LBS_OK);
  cr_assert_eq(dim, 3);
  cr_assert_eq(x[0], (double)(cell[0] % 6) + 0.5);
  lbs_mesh_destroy(&m);
  cr_assert_null(m);
  lbs_mesh_destroy(&m); /* NULL-safe */
}

Test(mesh, unstructured_validation) {
  int64_t xadj[] = {0, 1, 2, 2}, adj[] = {1, 0};
  lbs_mesh *m;
  cr_assert_eq(lbs_mesh_create_unstructured(3, 0, NULL, xadj, adj, NULL, 0, &m), LBS_OK);
  lbs_mesh_destroy(&m);
  int64_t adj_self[] = {0, 0};
  cr_assert_eq(lbs_mesh_create_unstructured(3, 0, NULL, xadj, adj_self, NULL, 0, &m), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "self loop"));
  int64_t xa[] = {0, 1, 1, 1}, ad[] = {2};
  cr_assert_eq(lbs_mesh_create_unstructured(3, 0, NULL, xa, ad, NULL, 0, &m), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "no reverse edge"), "%s", lbs_errmsg());
  cr_assert_eq(lbs_mesh_create_unstructured(3, 0, NULL, xa, ad, NULL, 1, &m), LBS_OK, "directed allowed");
  lbs_mesh_destroy(&m);
  double wneg[] = {-1, -1};
  cr_assert_eq(lbs_mesh_create_unstructured(3, 0, NULL, xadj, adj, wneg, 0, &m), LBS_INVAL);
  double wzero[] = {0, 0};
  cr_assert_eq(lbs_mesh_create_unstructured(3, 0, NULL, xadj, adj, wzero, 0, &m), LBS_OK, "zero weights allowed");
  lbs_mesh_destroy(&m);
  int64_t bad[] = {1, 0};
  cr_assert_eq(lbs_mesh_create_unstructured(3, 0, NULL, xadj, (int64_t[]){7, 0}, NULL, 0, &m), LBS_INVAL);
  (void)bad;
}
