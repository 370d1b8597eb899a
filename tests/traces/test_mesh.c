#include <criterion/criterion.h>
#include <stdio.h>
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
    if (i)
      cr_assert(adjacent(o[i - 1], o[i], 8, 8), "curve jumps between %lld and %lld",
                (long long)o[i - 1], (long long)o[i]);
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
    cr_assert(jumps <= n / 4, "box %d: %lld jumps in %lld cells", t, (long long)jumps,
              (long long)n);
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
  cr_assert_eq(lbs_mesh_create_unstructured(3, 0, NULL, xa, ad, NULL, 1, &m), LBS_OK,
               "directed allowed");
  lbs_mesh_destroy(&m);
  double wneg[] = {-1, -1};
  cr_assert_eq(lbs_mesh_create_unstructured(3, 0, NULL, xadj, adj, wneg, 0, &m), LBS_INVAL);
  double wzero[] = {0, 0};
  cr_assert_eq(lbs_mesh_create_unstructured(3, 0, NULL, xadj, adj, wzero, 0, &m), LBS_OK,
               "zero weights allowed");
  lbs_mesh_destroy(&m);
  int64_t bad[] = {1, 0};
  cr_assert_eq(lbs_mesh_create_unstructured(3, 0, NULL, xadj, (int64_t[]){7, 0}, NULL, 0, &m),
               LBS_INVAL);
  (void)bad;
}

/* lbs_mesh_rows_get gives exactly the rows of the whole arrays, whatever the range. */
static void rows_match(lbs_mesh *m, int64_t first, int64_t n) {
  const double *co;
  int dim;
  const int64_t *xadj, *adj;
  const double *w;
  cr_assert_eq(lbs_mesh_coords(m, &co, &dim), LBS_OK);
  cr_assert_eq(lbs_mesh_graph(m, &xadj, &adj, &w), LBS_OK);
  lbs_mesh_rows r;
  cr_assert_eq(lbs_mesh_rows_get(m, first, n, 1, 1, &r), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(r.first, first);
  cr_assert_eq(r.n, n);
  cr_assert_eq(r.dim, dim);
  for (int64_t i = 0; co && i < n * dim; i++)
    cr_assert_eq(r.coords[i], co[first * dim + i], "coordinate %lld", (long long)i);
  cr_assert_eq(r.coords == NULL, co == NULL);
  cr_assert_eq(r.xadj[0], 0);
  int ones = 1;
  for (int64_t i = 0; i < n; i++) {
    cr_assert_eq(r.xadj[i + 1] - r.xadj[i], xadj[first + i + 1] - xadj[first + i], "degree of %lld",
                 (long long)(first + i));
    for (int64_t k = 0; k < r.xadj[i + 1] - r.xadj[i]; k++) {
      int64_t a = xadj[first + i] + k;
      cr_assert_eq(r.adj[r.xadj[i] + k], adj[a], "neighbour %lld of %lld", (long long)k,
                   (long long)(first + i));
      cr_assert_eq(r.adjw ? r.adjw[r.xadj[i] + k] : 1.0, w[a]);
      ones &= w[a] == 1.0;
    }
  }
  cr_assert_eq(r.adjw == NULL, ones, "weights are NULL exactly when all are 1");
  lbs_mesh_rows_free(&r);
  cr_assert_null(r.adj);
}

Test(mesh, rows_of_structured_boxes) {
  for (int h = 0; h < 2; h++) {
    lbs_mesh *m;
    cr_assert_eq(lbs_mesh_create_structured(7, 5, 3, h ? LBS_ORDER_HILBERT : LBS_ORDER_NATURAL, &m),
                 LBS_OK);
    rows_match(m, 0, 105);
    rows_match(m, 0, 1);
    rows_match(m, 17, 40);
    rows_match(m, 104, 1);
    rows_match(m, 50, 0);
    lbs_mesh_destroy(&m);
  }
  lbs_mesh *m;
  cr_assert_eq(lbs_mesh_create_structured(4, 1, 1, LBS_ORDER_NATURAL, &m), LBS_OK); /* a line */
  rows_match(m, 1, 3);
  lbs_mesh_rows r;
  cr_assert_eq(lbs_mesh_rows_get(m, 2, 3, 1, 1, &r), LBS_RANGE, "rows past the end are refused");
  cr_assert_eq(lbs_mesh_rows_get(m, -1, 1, 1, 1, &r), LBS_RANGE);
  cr_assert_eq(lbs_mesh_rows_get(m, 1, 2, 0, 0, &r), LBS_OK, "nothing asked: nothing built");
  cr_assert(!r.coords && !r.xadj && !r.adj && !r.adjw);
  lbs_mesh_destroy(&m);
}

Test(mesh, rows_of_real_chaco_meshes) {
  /* Zoltan's test meshes: one with edge weights (ewgt), one with coordinates (simple3d) */
  const char *names[][2] = {{"ewgt.graph", NULL},
                            {"simple3d.graph", "simple3d.coords"},
                            {"grid20x19.graph", "grid20x19.coords"}};
  for (int k = 0; k < 3; k++) {
    char g[512], c[512];
    snprintf(g, sizeof g, "%s/tests/data/meshes/%s", LBS_SOURCE_DIR, names[k][0]);
    if (names[k][1]) snprintf(c, sizeof c, "%s/tests/data/meshes/%s", LBS_SOURCE_DIR, names[k][1]);
    lbs_mesh *m;
    double *vw;
    int ncon;
    cr_assert_eq(lbs_chaco_read(g, names[k][1] ? c : NULL, &m, &vw, &ncon, NULL), LBS_OK, "%s: %s",
                 g, lbs_errmsg());
    int64_t n = lbs_mesh_elements(m);
    rows_match(m, 0, n);
    rows_match(m, n / 3, n - n / 3);
    rows_match(m, n / 2, 1);
    free(vw);
    lbs_mesh_destroy(&m);
  }
}
