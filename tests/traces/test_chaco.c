#include <criterion/criterion.h>
#include <string.h>

#include "lbs_traces.h"

static lbs_err parse(const char *g, const char *c, lbs_mesh **m, double **vw, int *ncon) {
  return lbs_chaco_parse("g.graph", g, strlen(g), "g.coords", c, c ? strlen(c) : 0, m, vw, ncon);
}

Test(chaco, plain_graph_with_comments_and_an_isolated_vertex) {
  /* square 1-2-3-4 plus isolated vertex 5 (empty line) */
  const char *g = "% a comment\n5 4\n2 4\n1 3\n2 4\n% inside\n1 3\n\n";
  lbs_mesh *m;
  double *vw;
  int ncon;
  cr_assert_eq(parse(g, NULL, &m, &vw, &ncon), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_mesh_elements(m), 5);
  cr_assert_eq(ncon, 1);
  cr_assert_eq(vw[4], 1.0);
  const int64_t *x, *a;
  const double *w;
  lbs_mesh_graph(m, &x, &a, &w);
  cr_assert_eq(x[5], 8);
  cr_assert_eq(x[4], x[5], "vertex 5 is isolated");
  cr_assert_eq(a[0], 1);
  cr_assert_eq(a[1], 3);
  free(vw);
  lbs_mesh_destroy(&m);
}

Test(chaco, weights_sizes_and_coordinates) {
  /* fmt 111: size, 2 vertex weights, edge weights */
  const char *g = "3 2 111 2\n9 5 6 2 7\n9 1 1 1 7 3 0.5\n9 2 2 2 0.5\n";
  const char *c = "0 0 0\n1 0 0\n2 0 0\n";
  lbs_mesh *m;
  double *vw;
  int ncon;
  cr_assert_eq(parse(g, c, &m, &vw, &ncon), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(ncon, 2);
  cr_assert_eq(vw[0], 5);
  cr_assert_eq(vw[1], 6);
  cr_assert_eq(vw[5], 2);
  const int64_t *x, *a;
  const double *w, *xyz;
  int dim;
  lbs_mesh_graph(m, &x, &a, &w);
  cr_assert_eq(w[0], 7);
  cr_assert_eq(w[x[2]], 0.5);
  lbs_mesh_coords(m, &xyz, &dim);
  cr_assert_eq(dim, 3);
  cr_assert_eq(xyz[6], 2);
  free(vw);
  lbs_mesh_destroy(&m);
}

#define BAD(text, coords, needle)                                                 \
  do {                                                                            \
    lbs_mesh *m = NULL;                                                           \
    double *vw = NULL;                                                            \
    int ncon;                                                                     \
    lbs_err e = parse(text, coords, &m, &vw, &ncon);                              \
    cr_assert_neq(e, LBS_OK, "accepted: %s", text);                               \
    cr_assert(strstr(lbs_errmsg(), needle), "message '%s' lacks '%s'", lbs_errmsg(), needle); \
    cr_assert_null(m);                                                            \
    cr_assert_null(vw);                                                           \
  } while (0)

Test(chaco, malformed_files_name_the_line) {
  BAD("", NULL, "empty graph file");
  BAD("3\n", NULL, "g.graph:1: header");
  BAD("2 1\n2\nx\n", NULL, "g.graph:3: 'x' is not a number");
  BAD("2 1\n3\n1\n", NULL, "g.graph:2: vertex 1: neighbour 3 outside 1..2");
  BAD("2 1\n1\n1\n", NULL, "g.graph:2: vertex 1: self loop");
  BAD("3 2\n2\n1 3\n", NULL, "g.graph:3: file ends after 2 of 3 vertex lines");
  BAD("2 1\n2\n1\n1\n", NULL, "g.graph:4: more vertex lines");
  BAD("3 2\n2      \n1      \n\n", NULL, "header says m = 2 edges but the lines list 2 entries (expected 4)");
  BAD("2 1 1\n2\n1 4\n", NULL, "g.graph:2: vertex 1: neighbour 2 has no edge weight");
  BAD("2 1 1\n2 -3\n1 -3\n", NULL, "negative edge weight");
  BAD("2 1 10\n-1 2\n1 1\n", NULL, "g.graph:2: vertex 1: negative vertex weight");
  BAD("2 1 7\n2\n1\n", NULL, "fmt 7");
  BAD("900000000 1\n2\n1\n", NULL, "g.graph:1: header says 900000000 vertices and 1 edges, more than");
  BAD("3 1\n2\n3\n\n", NULL, "no reverse edge");
  BAD("2 1\n2\n1\n", "0 0\n1\n", "g.coords:2: expected 2 coordinates, found 1");
  BAD("2 1\n2\n1\n", "0 0\n", "g.coords:1: file ends after 1 of 2");
  BAD("2 1\n2\n1\n", "0 0\n1 q\n", "g.coords:2: 'q' is not a number");
}

Test(chaco, files_on_disk) {
  lbs_mesh *m;
  double *vw;
  int ncon;
  cr_assert_eq(lbs_chaco_read("/nonexistent/x.graph", NULL, &m, &vw, &ncon), LBS_IO);
  cr_assert(strstr(lbs_errmsg(), "/nonexistent/x.graph: cannot open"));
}
