#include <criterion/criterion.h>
#include <math.h>

#include "lbs_traces.h"
#include "testutil.h"

static lbs_import_opts lossless(void) {
  lbs_import_opts o = {LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, 0, 0, 0};
  return o;
}

static void gen_trace(const char *path, lbs_order order) {
  lbs_gen_params gp = {"bump", 8, 6, 5, 6, 2, {0, 0, 0}};
  lbs_gen *g;
  lbs_mesh *mesh;
  cr_assert_eq(lbs_gen_create(&gp, &g), LBS_OK);
  cr_assert_eq(lbs_mesh_create_structured(8, 6, 5, order, &mesh), LBS_OK);
  lbs_metric_spec ms[2] = {{"time_ns", "ns", LBS_CODEC_POLYLINE, {LBS_BOUND_RANGE, 1e-2}, {0, 0}},
                           {"weight", "1", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}}};
  lbs_trace_spec spec = {240, 64, 2, ms, mesh, 0, NULL};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(path, &spec, &w), LBS_OK);
  double v[480];
  const double *cols[2] = {v, v + 240};
  for (int64_t s = 0; s < 6; s++) {
    lbs_gen_step(g, s, 0, lbs_mesh_cell_index(mesh), v);
    lbs_gen_step(g, s, 1, lbs_mesh_cell_index(mesh), v + 240);
    cr_assert_eq(lbs_trace_write_step(w, s * 3, cols), LBS_OK);
  }
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK);
  lbs_mesh_destroy(&mesh);
  lbs_gen_destroy(&g);
}

Test(stepsdir, export_import_roundtrip_is_exact) {
  char *dir = tu_tmpdir(), *a = tu_path(dir, "a.lbt"), *b = tu_path(dir, "b.lbt"),
       *sd = tu_path(dir, "steps");
  gen_trace(a, LBS_ORDER_HILBERT);
  lbs_trace *ta, *tb;
  cr_assert_eq(lbs_trace_open(a, &ta), LBS_OK);
  cr_assert_eq(lbs_stepsdir_export(ta, sd, 0, -1), LBS_OK, "%s", lbs_errmsg());
  /* lossless import of the decoded values must reproduce them bit for bit */
  lbs_import_opts io = lossless();
  cr_assert_eq(lbs_stepsdir_import(sd, b, &io), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_open(b, &tb), LBS_OK);
  cr_assert_eq(lbs_trace_steps(tb), 6);
  cr_assert_eq(lbs_mesh_order(lbs_trace_mesh(tb)), LBS_ORDER_HILBERT);
  for (int64_t s = 0; s < 6; s++) {
    int64_t x, y;
    lbs_trace_app_step(ta, s, &x);
    lbs_trace_app_step(tb, s, &y);
    cr_assert_eq(x, y);
    for (int m = 0; m < 2; m++) {
      double va[240], vb[240];
      cr_assert_eq(lbs_trace_read(ta, s, m, 0, 240, va), LBS_OK);
      cr_assert_eq(lbs_trace_read(tb, s, m, 0, 240, vb), LBS_OK);
      cr_assert(!memcmp(va, vb, sizeof va), "step %lld metric %d differs", (long long)s, m);
    }
  }
  lbs_trace_close(&ta);
  lbs_trace_close(&tb);
  free(a);
  free(b);
  free(sd);
  tu_rmrf(dir);
}

Test(stepsdir, unstructured_mesh_travels_as_chaco) {
  char *dir = tu_tmpdir(), *a = tu_path(dir, "a.lbt"), *b = tu_path(dir, "b.lbt"),
       *sd = tu_path(dir, "s");
  int64_t xadj[] = {0, 1, 3, 4}, adj[] = {1, 0, 2, 1};
  double w[] = {2, 2, 3, 3}, x[] = {0, 1, 2};
  lbs_mesh *m;
  cr_assert_eq(lbs_mesh_create_unstructured(3, 1, x, xadj, adj, w, 0, &m), LBS_OK);
  lbs_metric_spec ms = {"load", "s", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}};
  lbs_trace_spec spec = {3, 0, 1, &ms, m, 0, NULL};
  lbs_trace_writer *wr;
  cr_assert_eq(lbs_trace_create(a, &spec, &wr), LBS_OK);
  double v[3] = {0.1, 0.2, 0.3};
  const double *cols[1] = {v};
  cr_assert_eq(lbs_trace_write_step(wr, 0, cols), LBS_OK);
  cr_assert_eq(lbs_trace_writer_close(&wr), LBS_OK);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(a, &t), LBS_OK);
  cr_assert_eq(lbs_stepsdir_export(t, sd, 0, -1), LBS_OK, "%s", lbs_errmsg());
  lbs_trace_close(&t);
  lbs_import_opts io = lossless();
  cr_assert_eq(lbs_stepsdir_import(sd, b, &io), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_open(b, &t), LBS_OK);
  const int64_t *x2, *a2;
  const double *w2;
  cr_assert_eq(lbs_mesh_graph(lbs_trace_mesh(t), &x2, &a2, &w2), LBS_OK);
  cr_assert(!memcmp(x2, xadj, sizeof xadj) && !memcmp(a2, adj, sizeof adj) &&
            !memcmp(w2, w, sizeof w));
  lbs_trace_close(&t);
  lbs_mesh_destroy(&m);
  free(a);
  free(b);
  free(sd);
  tu_rmrf(dir);
}

Test(stepsdir, malformed_directories_name_file_and_line) {
  char *dir = tu_tmpdir(), *man = tu_path(dir, "manifest"), *st = tu_path(dir, "s0.txt"),
       *out = tu_path(dir, "o.lbt");
  lbs_import_opts io = lossless();
  tu_write(man, "hello\n");
  cr_assert_eq(lbs_stepsdir_import(dir, out, &io), LBS_FORMAT);
  tu_write(man, "lbsim-steps 1\nelements 3\nmetric t ns\nstep s0.txt 0\nbogus 1\n");
  cr_assert_eq(lbs_stepsdir_import(dir, out, &io), LBS_PARSE);
  cr_assert(strstr(lbs_errmsg(), "manifest:5: unknown or malformed declaration 'bogus'"), "%s",
            lbs_errmsg());
  tu_write(man, "lbsim-steps 1\nelements 3\nmetric t ns\nstep s0.txt 0\n");
  tu_write(st, "0 1.5\n1 2.5\n# comment\n3 9\n");
  cr_assert_eq(lbs_stepsdir_import(dir, out, &io), LBS_PARSE);
  cr_assert(strstr(lbs_errmsg(), "s0.txt:4: expected element 2"), "%s", lbs_errmsg());
  tu_write(st, "0 1.5\n1\n2 3\n");
  cr_assert_eq(lbs_stepsdir_import(dir, out, &io), LBS_PARSE);
  cr_assert(strstr(lbs_errmsg(), "s0.txt:2: element 1: missing value for metric 't'"), "%s",
            lbs_errmsg());
  tu_write(st, "0 1.5\n1 2\n");
  cr_assert_eq(lbs_stepsdir_import(dir, out, &io), LBS_PARSE);
  cr_assert(strstr(lbs_errmsg(), "2 element lines, the manifest says 3"), "%s", lbs_errmsg());
  FILE *f = fopen(out, "r");
  cr_assert_null(f, "a failed import must not leave a trace behind");
  tu_write(st, "0 1.5\n1 2\n2 3.25\n");
  cr_assert_eq(lbs_stepsdir_import(dir, out, &io), LBS_OK, "%s", lbs_errmsg());
  lbs_trace *t;
  double v[3];
  cr_assert_eq(lbs_trace_open(out, &t), LBS_OK);
  cr_assert_eq(lbs_trace_read(t, 0, 0, 0, 3, v), LBS_OK);
  cr_assert_eq(v[2], 3.25);
  lbs_trace_close(&t);
  free(man);
  free(st);
  free(out);
  tu_rmrf(dir);
}

/* Measured costs are finite: NaN and infinities are refused, naming file, line and metric,
 * unless allowed; a lossy import of measured values keeps them within the bound. */
Test(stepsdir, nonfinite_values_are_refused_unless_allowed) {
  char *dir = tu_tmpdir(), *man = tu_path(dir, "manifest"), *st = tu_path(dir, "s0.txt"),
       *out = tu_path(dir, "o.lbt");
  tu_write(man, "lbsim-steps 1\nelements 4\nmetric time_ns ns\nmetric w 1\nstep s0.txt 0\n");
  tu_write(st, "0 700 1\n1 710 1\n2 nan 1\n3 7e6 inf\n");
  lbs_import_opts io = {LBS_CODEC_AUTO, {LBS_BOUND_REL, 0.005}, 0, 0, 0};
  cr_assert_eq(lbs_stepsdir_import(dir, out, &io), LBS_PARSE);
  cr_assert(strstr(lbs_errmsg(), "s0.txt:3: element 2: metric 'time_ns' is NaN"), "%s",
            lbs_errmsg());
  FILE *f = fopen(out, "r");
  cr_assert_null(f, "a refused import must not leave a trace behind");
  tu_write(st, "0 700 1\n1 710 1\n2 690 1\n3 7e6 inf\n");
  cr_assert_eq(lbs_stepsdir_import(dir, out, &io), LBS_PARSE);
  cr_assert(strstr(lbs_errmsg(), "s0.txt:4: element 3: metric 'w' is infinite"), "%s",
            lbs_errmsg());
  io.allow_nonfinite = 1;
  cr_assert_eq(lbs_stepsdir_import(dir, out, &io), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(io.nonfinite, 1);
  lbs_trace *t;
  double v[4], w[4];
  cr_assert_eq(lbs_trace_open(out, &t), LBS_OK);
  cr_assert_eq(lbs_trace_read(t, 0, 0, 0, 4, v), LBS_OK);
  cr_assert_eq(lbs_trace_read(t, 0, 1, 0, 4, w), LBS_OK);
  const double src[4] = {700, 710, 690, 7e6};
  for (int i = 0; i < 4; i++)
    cr_assert(fabs(v[i] - src[i]) <= 0.005 * src[i], "element %d: %g", i, v[i]);
  cr_assert(isinf(w[3]));
  lbs_trace_close(&t);
  free(man), free(st), free(out);
  tu_rmrf(dir);
}

/* The manifest's element count sized the step buffer (elements x metrics values) before any
 * step was read: a count whose product with the metrics overflowed gave a small buffer that the
 * first line then wrote far outside, and a huge one an allocation of that size. Every element
 * is a line of every step file, so a count the first step file cannot hold is refused. */
Test(stepsdir, element_count_beyond_the_step_file_is_refused) {
  char *dir = tu_tmpdir(), *man = tu_path(dir, "manifest"), *st = tu_path(dir, "s0.txt"),
       *out = tu_path(dir, "o.lbt");
  lbs_import_opts io = lossless();
  tu_write(st, "0 1 2 3\n");
  /* 3 x 6148914691236517206 is 2 modulo 2^64: a buffer of 2 values, and metric b's first
   * value went 6148914691236517206 values past its start */
  tu_write(
      man,
      "lbsim-steps 1\nelements 6148914691236517206\nmetric a 1\nmetric b 1\nmetric c 1\nstep s0.txt 0\n");
  cr_assert_eq(lbs_stepsdir_import(dir, out, &io), LBS_PARSE);
  cr_assert(strstr(lbs_errmsg(), "s0.txt: 8 bytes cannot hold 6148914691236517206 element lines"),
            "%s", lbs_errmsg());
  tu_write(
      man,
      "lbsim-steps 1\nelements 1000000000000\nmetric a 1\nmetric b 1\nmetric c 1\nstep s0.txt 0\n");
  cr_assert_eq(lbs_stepsdir_import(dir, out, &io), LBS_PARSE);
  cr_assert(strstr(lbs_errmsg(), "cannot hold 1000000000000 element lines"), "%s", lbs_errmsg());
  FILE *f = fopen(out, "r");
  cr_assert_null(f, "a refused import must not leave a trace behind");
  free(man), free(st), free(out);
  tu_rmrf(dir);
}
