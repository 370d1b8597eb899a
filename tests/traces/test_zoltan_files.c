/* The reader of Zoltan_Generate_Files's files (traces/zoltan_files.c) on files real Zoltan wrote
 * (tests/data/zoltan-files, made by tests/traces/zoltan_genfiles.c: its formulas are the
 * expected values here), then each kind of bad input, each refused naming its file and line. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "lbs_traces.h"
#include "testutil.h"

#define ZDIR LBS_SOURCE_DIR "/tests/data/zoltan-files/"
#define MESHES LBS_SOURCE_DIR "/tests/data/meshes/"

/* the generator's formulas (tests/traces/zoltan_genfiles.c) */
static double obj_weight(int64_t g, int k) {
  return k == 0 ? 1.0 + (double)(g % 5) : k == 1 ? 0.5 * (double)(g % 3) : 10.0 + (double)g;
}
static double edge_weight(int64_t u, int64_t v) { return 1.0 + (double)((u + v) % 4); }
static int64_t init_part(int64_t g) { return 7 * g % 4; }

/* Checks everything read against the generator's input: the mesh simple.graph/.coords (same
 * adjacency, in the same order), its weights, its edge weights (the first of each), its parts. */
static void check_against_generator(lbs_zfiles *z) {
  lbs_mesh *ref;
  double *rvw;
  int rncon;
  cr_assert_eq(
      lbs_chaco_read(MESHES "simple.graph", MESHES "simple.coords", &ref, &rvw, &rncon, NULL),
      LBS_OK, "%s", lbs_errmsg());
  lbs_mesh *m = lbs_zfiles_mesh(z);
  int64_t n = lbs_mesh_elements(m);
  cr_assert_eq(n, 25);
  int ncon;
  const double *vw = lbs_zfiles_weights(z, &ncon);
  cr_assert_eq(ncon, 3);
  for (int64_t g = 0; g < n; g++)
    for (int k = 0; k < 3; k++)
      cr_assert_eq(vw[g * 3 + k], obj_weight(g, k), "vertex %lld weight %d", (long long)g, k);
  const int64_t *x, *a, *rx, *ra;
  const double *w, *rw;
  lbs_mesh_graph(m, &x, &a, &w);
  lbs_mesh_graph(ref, &rx, &ra, &rw);
  cr_assert_eq(x[n], rx[n]);
  for (int64_t v = 0; v < n; v++) {
    cr_assert_eq(x[v], rx[v]);
    for (int64_t j = x[v]; j < x[v + 1]; j++) {
      cr_assert_eq(a[j], ra[j], "vertex %lld", (long long)v);
      cr_assert_eq(w[j], edge_weight(v, a[j]), "arc %lld-%lld", (long long)v, (long long)a[j]);
    }
  }
  const double *xyz, *rxyz;
  int dim, rdim;
  lbs_mesh_coords(m, &xyz, &dim);
  lbs_mesh_coords(ref, &rxyz, &rdim);
  cr_assert_eq(dim, 2);
  cr_assert_eq(rdim, 2);
  for (int64_t i = 0; i < n * dim; i++) cr_assert_eq(xyz[i], rxyz[i]);
  int64_t np;
  const int64_t *part = lbs_zfiles_parts(z, &np);
  cr_assert_eq(np, 4);
  for (int64_t g = 0; g < n; g++) cr_assert_eq(part[g], init_part(g), "vertex %lld", (long long)g);
  free(rvw);
  lbs_mesh_destroy(&ref);
}

Test(zoltan_files, two_ranks_base_index_1_with_a_hypergraph) {
  lbs_zfiles *z;
  cr_assert_eq(lbs_zfiles_read(ZDIR "simple", &z), LBS_OK, "%s", lbs_errmsg());
  check_against_generator(z);
  cr_assert_eq(lbs_zfiles_base_index(z), 1);
  cr_assert_eq(lbs_zfiles_notes(z)->nwarn, 0, "%s", lbs_zfiles_notes(z)->warning[0]);
  lbs_zfiles_destroy(&z);
  cr_assert_null(z);
  lbs_zfiles_destroy(&z); /* NULL-safe */
}

Test(zoltan_files, base_index_0_and_two_edge_weights) {
  lbs_zfiles *z;
  cr_assert_eq(lbs_zfiles_read(ZDIR "simple0", &z), LBS_OK, "%s", lbs_errmsg());
  check_against_generator(z); /* the first of the two edge weights kept */
  cr_assert_eq(lbs_zfiles_base_index(z), 0);
  const lbs_chaco_notes *nt = lbs_zfiles_notes(z);
  cr_assert_eq(nt->nwarn, 2);
  cr_assert(strstr(nt->warning[0], "simple0.graph:3: 2 weights an edge: the first kept"), "%s",
            nt->warning[0]);
  cr_assert(strstr(nt->warning[1], "simple0.graph:4: vertex 0 named: the vertices are numbered "
                                   "from 0"),
            "%s", nt->warning[1]);
  lbs_zfiles_destroy(&z);
}

Test(zoltan_files, trace_holds_weights_and_owners) {
  char *d = tu_tmpdir(), *out = tu_path(d, "z.lbt");
  lbs_zfiles *z;
  cr_assert_eq(lbs_zfiles_read(ZDIR "simple", &z), LBS_OK, "%s", lbs_errmsg());
  lbs_encoding enc = {0};
  cr_assert_eq(lbs_zfiles_write_trace(z, &enc, 0, out), LBS_OK, "%s", lbs_errmsg());
  lbs_zfiles_destroy(&z);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(out, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_elements(t), 25);
  cr_assert_eq(lbs_trace_steps(t), 1);
  cr_assert_eq(lbs_trace_nmetrics(t), 3);
  cr_assert_str_eq(lbs_trace_meta(t, "source"), "zoltan-files " ZDIR "simple");
  double v[25];
  for (int k = 0; k < 3; k++) {
    char name[16];
    snprintf(name, sizeof name, "weight%d", k);
    int m = lbs_trace_metric_find(t, name);
    cr_assert_geq(m, 0, "metric %s", name);
    cr_assert_eq(lbs_trace_read(t, 0, m, 0, 25, v), LBS_OK, "%s", lbs_errmsg());
    for (int g = 0; g < 25; g++) cr_assert_eq(v[g], obj_weight(g, k));
  }
  cr_assert_eq(lbs_trace_owners_count(t), 1);
  cr_assert_eq(lbs_trace_owners_step(t, 0), 0);
  int64_t own[25];
  cr_assert_eq(lbs_trace_owners_read(t, 0, own), LBS_OK);
  for (int g = 0; g < 25; g++) cr_assert_eq(own[g], init_part(g));
  lbs_trace_close(&t);
  free(out);
  tu_rmrf(d);
}

/* ---------------------------------------------------------------- bad input */

/* A copy of tests/data/zoltan-files/simple.* in a fresh directory, with file EXT's line LINE
 * (from 1) replaced by TEXT (NULL: removed; LINE 0: TEXT appended), or the file left out when
 * LINE is -1. Returns the directory; the base is DIR/simple. */
static char *edited(const char *ext, int line, const char *text) {
  char *d = tu_tmpdir();
  const char *exts[] = {".graph", ".coords", ".assign", ".gids", ".mtxp"};
  for (int i = 0; i < 5; i++) {
    char src[512], *dst;
    snprintf(src, sizeof src, ZDIR "simple%s", exts[i]);
    char name[32];
    snprintf(name, sizeof name, "simple%s", exts[i]);
    dst = tu_path(d, name);
    if (strcmp(ext, exts[i])) {
      char cmd[1200];
      snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, dst);
      cr_assert_eq(system(cmd), 0);
    } else if (line >= 0) {
      FILE *in = fopen(src, "r"), *o = fopen(dst, "w");
      cr_assert(in && o);
      char buf[4096];
      for (int k = 1; fgets(buf, sizeof buf, in); k++)
        if (k != line)
          fputs(buf, o);
        else if (text)
          fprintf(o, "%s\n", text);
      if (!line) fprintf(o, "%s\n", text);
      fclose(in);
      fclose(o);
    }
    free(dst);
  }
  return d;
}

#define REFUSED(ext, line, text, code, needle)                                                     \
  do {                                                                                             \
    char *d_ = edited(ext, line, text), *b_ = tu_path(d_, "simple");                               \
    lbs_zfiles *z_ = (lbs_zfiles *)1;                                                              \
    cr_assert_eq(lbs_zfiles_read(b_, &z_), code, "%s", lbs_errmsg());                              \
    cr_assert_null(z_);                                                                            \
    cr_assert(strstr(lbs_errmsg(), needle), "'%s' lacks '%s'", lbs_errmsg(), needle);              \
    cr_assert(strstr(lbs_errmsg(), d_), "'%s' names no file", lbs_errmsg());                       \
    free(b_);                                                                                      \
    tu_rmrf(d_);                                                                                   \
  } while (0)

Test(zoltan_files, header_counts_disagree_with_the_body) {
  REFUSED(".graph", 2, "25 41 011 3 1", LBS_PARSE,
          "simple.graph:2: the header says m = 41 edges, but the vertex lines hold 40");
  REFUSED(".graph", 2, "26 40 011 3 1", LBS_PARSE, "simple.graph:27: file ends after 25 of 26");
  REFUSED(".graph", 2, "24 40 011 3 1", LBS_PARSE,
          "simple.graph:22: vertex 20: neighbour 25 outside 1..24");
  REFUSED(".graph", 2, "25 40 011 2 1", LBS_PARSE,
          "simple.graph:3: vertex 1: '10.000000' stands where a neighbour's number goes");
  REFUSED(".graph", 2, "25 40 011 0 1", LBS_PARSE,
          "simple.graph:2: ncon 0 with vertex weights (fmt 11)");
  REFUSED(".graph", 2, "25 40 010 3 1", LBS_PARSE,
          "simple.graph:2: ewdim 1 without edge weights (fmt 10)");
}

Test(zoltan_files, a_weight_missing_on_a_line) {
  /* vertex 3 (line 5) loses its third vertex weight, then its second edge weight */
  REFUSED(".graph", 5, "3.000000 1.000000 2 4.000000 8 2.000000 4 2.000000 ", LBS_PARSE,
          "simple.graph:5: vertex 3: its vertex weight 3 of 3 is '2'");
  REFUSED(".graph", 5, "3.000000 1.000000 12.000000 2 4.000000 8 4 2.000000 ", LBS_PARSE,
          "simple.graph:5: vertex 3: neighbour 8: its edge weight 1 of 1 is '4'");
  REFUSED(".graph", 5, "3.000000 1.000000 12.000000 2 4.000000 8 2.000000 4 ", LBS_PARSE,
          "simple.graph:5: vertex 3: neighbour 4 has no edge weight");
}

Test(zoltan_files, assign_with_wrong_lines_or_a_negative_part) {
  REFUSED(".assign", 25, NULL, LBS_PARSE, "simple.assign:24: file ends after 24 of the graph's 25");
  REFUSED(".assign", 0, "1", LBS_PARSE, "simple.assign:26: more parts than the graph's 25");
  REFUSED(".assign", 7, "-1", LBS_PARSE, "simple.assign:7: part -1 of vertex 7 outside");
  REFUSED(".assign", 7, "2.5", LBS_PARSE, "simple.assign:7: '2.5' is not a part number");
}

Test(zoltan_files, coordinates_of_the_wrong_dimension) {
  REFUSED(".coords", 4, "3.000000 0.000000 1.000000 ", LBS_PARSE,
          "simple.coords:4: expected 2 coordinates, found 3");
  REFUSED(".coords", 25, NULL, LBS_PARSE, "simple.coords:24: file ends after 24 of 25");
}

Test(zoltan_files, a_missing_companion_file) {
  REFUSED(".assign", -1, NULL, LBS_IO,
          "simple.assign: cannot open: No such file or directory (Zoltan_Generate_Files writes "
          "it beside");
  REFUSED(".graph", -1, NULL, LBS_IO, "simple.graph: cannot open: No such file or directory");
  /* no coordinates: Zoltan wrote none (gen_geom 0), and the mesh has none */
  char *d = edited(".coords", -1, NULL), *b = tu_path(d, "simple");
  lbs_zfiles *z;
  cr_assert_eq(lbs_zfiles_read(b, &z), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_mesh_dim(lbs_zfiles_mesh(z)), 0);
  lbs_zfiles_destroy(&z);
  free(b);
  tu_rmrf(d);
}

/* ---------------------------------------------------------------- the Chaco reader */

Test(zoltan_files, chaco_five_field_header) {
  /* a path 1-2-3 with two vertex weights and two edge weights an edge: the first kept */
  const char *g = "3 2 011 2 2\n1 5 2 7 8\n2 6 1 7 8 3 9 1\n3 4 2 9 1\n";
  lbs_mesh *m;
  double *vw;
  int ncon;
  lbs_chaco_notes nt;
  cr_assert_eq(lbs_chaco_parse("g.graph", g, strlen(g), NULL, NULL, 0, &m, &vw, &ncon, &nt), LBS_OK,
               "%s", lbs_errmsg());
  cr_assert_eq(ncon, 2);
  cr_assert_eq(vw[3], 6);
  const int64_t *x, *a;
  const double *w;
  lbs_mesh_graph(m, &x, &a, &w);
  cr_assert_eq(w[0], 7);
  cr_assert_eq(w[2], 9);
  cr_assert_eq(nt.nwarn, 1);
  cr_assert(strstr(nt.warning[0], "g.graph:2: 2 weights an edge: the first kept"), "%s",
            nt.warning[0]);
  free(vw);
  lbs_mesh_destroy(&m);
  /* Zoltan's 0 for the side without weights; a fifth field that disagrees with fmt */
  const char *g0 = "2 1 001 0 2\n2 3 4\n1 3 4\n";
  cr_assert_eq(lbs_chaco_parse("g.graph", g0, strlen(g0), NULL, NULL, 0, &m, &vw, &ncon, &nt),
               LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(ncon, 1);
  cr_assert_eq(vw[1], 1);
  free(vw);
  lbs_mesh_destroy(&m);
  const char *bad = "2 1 011 1 0\n1 2 3\n1 1 3\n";
  cr_assert_eq(lbs_chaco_parse("g.graph", bad, strlen(bad), NULL, NULL, 0, &m, &vw, &ncon, &nt),
               LBS_PARSE);
  cr_assert(strstr(lbs_errmsg(), "g.graph:1: ewdim 0 with edge weights"), "%s", lbs_errmsg());
  /* a Chaco file is numbered from 1: its vertex 0 stays an error */
  const char *zero = "2 1\n0\n1\n";
  cr_assert_eq(lbs_chaco_parse("g.graph", zero, strlen(zero), NULL, NULL, 0, &m, &vw, &ncon, &nt),
               LBS_PARSE);
  cr_assert(strstr(lbs_errmsg(), "g.graph:2: vertex 1: neighbour 0 outside 1..2"), "%s",
            lbs_errmsg());
}
