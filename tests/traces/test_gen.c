/* test_gen.c - writing generated traces (lbs_gen_write_trace, lbs_gen_metric_specs) and checking
 * a trace against its generator (lbs_trace_check_source), on generated traces and on the real
 * profile in tests/data. */
#include <criterion/criterion.h>
#include <math.h>
#include <unistd.h>

#include "lbs_traces.h"
#include "testutil.h"

static lbs_bound bound(const char *s) {
  lbs_bound b;
  cr_assert_eq(lbs_bound_parse(s, &b), LBS_OK, "%s", lbs_errmsg());
  return b;
}

static lbs_gen *gen(const char *kind, int64_t nx, int64_t ny, int64_t nz, int64_t steps) {
  lbs_gen_params p = {kind, nx, ny, nz, steps, 3, {0, 0, 0}};
  lbs_gen *g = NULL;
  cr_assert_eq(lbs_gen_create(&p, &g), LBS_OK, "%s", lbs_errmsg());
  return g;
}

typedef struct {
  int calls;
  int64_t last, total, stop_at;
} progress_log;

static int progress(void *arg, int64_t done, int64_t total) {
  progress_log *l = arg;
  l->calls++;
  l->last = done;
  l->total = total;
  return l->stop_at && done >= l->stop_at;
}

/* The options reach the file: order, bytes, chunk, per-metric codecs and bounds, the recipe. */
Test(gen, write_trace_takes_the_layout_and_the_settings) {
  char *dir = tu_tmpdir(), *path = tu_path(dir, "b.lbt");
  lbs_gen *g = gen("bump", 12, 8, 4, 5);
  lbs_encoding enc = {0};
  cr_assert_eq(lbs_encoding_add_bound(&enc, "time_ns=range:1e-3"), LBS_OK);
  cr_assert_eq(lbs_encoding_add_codec(&enc, "time_ns=polyline"), LBS_OK);
  cr_assert_eq(lbs_encoding_add_bound(&enc, "weight=lossless"), LBS_OK);
  lbs_gen_write_opts o = {LBS_ORDER_HILBERT, 10, 3, 100, &enc};
  progress_log pl = {0, 0, 0, 0};
  cr_assert_eq(lbs_gen_write_trace(g, &o, path, progress, &pl), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(pl.calls, 5);
  cr_assert_eq(pl.last, 5);
  cr_assert_eq(pl.total, 5);
  lbs_trace *t = NULL;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_elements(t), lbs_gen_elements(g));
  cr_assert_eq(lbs_gen_elements(g), 12 * 8 * 4);
  cr_assert_eq(lbs_trace_steps(t), 5);
  cr_assert_eq(lbs_trace_chunk_elems(t), 100);
  cr_assert_str_eq(lbs_trace_meta(t, "source"), lbs_gen_recipe(g));
  lbs_mesh *m = lbs_trace_mesh(t);
  cr_assert_eq(lbs_mesh_order(m), LBS_ORDER_HILBERT);
  cr_assert_eq(lbs_mesh_bytes_per_elem(m), 10);
  cr_assert_eq(lbs_mesh_bytes_per_edge(m), 3);
  lbs_metric_info mi;
  cr_assert_eq(lbs_trace_metric(t, lbs_trace_metric_find(t, "time_ns"), &mi), LBS_OK);
  cr_assert_eq(mi.bound.kind, LBS_BOUND_RANGE);
  cr_assert_eq(mi.codec, LBS_CODEC_POLYLINE);
  cr_assert_eq(lbs_trace_metric(t, lbs_trace_metric_find(t, "weight"), &mi), LBS_OK);
  cr_assert_eq(mi.codec, LBS_CODEC_LOSSLESS);
  for (int64_t s = 0; s < 5; s++) {
    int64_t app;
    cr_assert_eq(lbs_trace_app_step(t, s, &app), LBS_OK);
    cr_assert_eq(app, lbs_gen_app_step(g, s));
  }
  /* and what was written is what the generator makes, within those bounds */
  lbs_source_check sc;
  cr_assert_eq(lbs_trace_check_source(t, NULL, NULL, &sc), LBS_OK, "%s", lbs_errmsg());
  cr_assert(sc.checked);
  cr_assert(sc.max_abs_error > 0, "time_ns is stored lossy");
  cr_assert(sc.max_sum_error <= LBS_SUM_TOL);
  lbs_trace_close(&t);
  /* no file over an existing one */
  cr_assert_eq(lbs_gen_write_trace(g, &o, path, NULL, NULL), LBS_IO);
  lbs_gen_destroy(&g);
  free(path);
  tu_rmrf(dir);
}

Test(gen, specs_refuse_bad_pairs_and_unknown_metrics_before_any_file) {
  char *dir = tu_tmpdir(), *path = tu_path(dir, "x.lbt");
  lbs_gen *g = gen("hotspot", 4, 4, 2, 2);
  lbs_metric_spec ms[LBS_GEN_MAX_METRICS];
  cr_assert_eq(lbs_gen_metric_specs(g, NULL, ms), LBS_OK);
  cr_assert_str_eq(ms[0].name, "time_ns");
  cr_assert_eq(ms[0].bound.kind, LBS_BOUND_REL);
  cr_assert_eq(ms[0].bound.eps, 0.005);
  cr_assert_eq(ms[0].codec, LBS_CODEC_DEFAULT);
  lbs_encoding enc = {0};
  cr_assert_eq(lbs_encoding_add_bound(&enc, "weight=abs:1"), LBS_OK); /* hotspot has no weight */
  cr_assert_eq(lbs_gen_metric_specs(g, &enc, ms), LBS_NOTFOUND);
  cr_assert_str_eq(lbs_errmsg(), "no metric 'weight' (metrics: time_ns)");
  lbs_gen_write_opts o = LBS_GEN_WRITE_OPTS_DEFAULT;
  o.enc = &enc;
  cr_assert_eq(lbs_gen_write_trace(g, &o, path, NULL, NULL), LBS_NOTFOUND);
  cr_assert_neq(access(path, F_OK), 0, "a refused trace left a file");
  lbs_encoding bad = {0};
  cr_assert_eq(lbs_encoding_add_bound(&bad, "lossless"), LBS_OK);
  cr_assert_eq(lbs_encoding_add_codec(&bad, "quant"), LBS_OK);
  cr_assert_eq(lbs_gen_metric_specs(g, &bad, ms), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "metric 'time_ns': "), "%s", lbs_errmsg());
  lbs_gen_destroy(&g);
  free(path);
  tu_rmrf(dir);
}

Test(gen, a_progress_that_says_stop_keeps_the_complete_steps) {
  char *dir = tu_tmpdir(), *path = tu_path(dir, "s.lbt");
  lbs_gen *g = gen("random", 5, 5, 1, 10);
  progress_log pl = {0, 0, 0, 3};
  cr_assert_eq(lbs_gen_write_trace(g, NULL, path, progress, &pl), LBS_INVAL);
  cr_assert_eq(pl.calls, 3);
  lbs_trace *t = NULL;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_steps(t), 3);
  lbs_trace_close(&t);
  lbs_gen_destroy(&g);
  free(path);
  tu_rmrf(dir);
}

/* A trace whose source meta is g's recipe but whose values are g's times factor, or with one
 * value changed: what a damaged or foreign trace looks like to the check. */
static void write_altered(const char *path, lbs_gen *g, const char *bnd, const char *encode,
                          double factor, int64_t bad_step, int64_t bad_elem) {
  int64_t E = lbs_gen_elements(g), S = 3;
  lbs_mesh *mesh;
  cr_assert_eq(lbs_mesh_create_structured(E, 1, 1, LBS_ORDER_NATURAL, &mesh), LBS_OK);
  lbs_metric_spec ms = {"time_ns", "ns", LBS_CODEC_AUTO, bound(bnd), {0, 0}};
  if (encode) ms.encode = bound(encode);
  if (!strcmp(bnd, "lossless")) ms.codec = LBS_CODEC_LOSSLESS;
  const char *meta[] = {"source", lbs_gen_recipe(g)};
  lbs_trace_spec spec = {E, 0, 1, &ms, mesh, 1, meta};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(path, &spec, &w), LBS_OK, "%s", lbs_errmsg());
  double *v = malloc((size_t)E * sizeof *v);
  for (int64_t s = 0; s < S; s++) {
    lbs_gen_step(g, s, 0, NULL, v);
    for (int64_t i = 0; i < E; i++) v[i] *= factor;
    if (s == bad_step) v[bad_elem] *= 2;
    const double *cols[1] = {v};
    cr_assert_eq(lbs_trace_write_step(w, lbs_gen_app_step(g, s), cols), LBS_OK, "%s", lbs_errmsg());
  }
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK);
  free(v);
  lbs_mesh_destroy(&mesh);
}

Test(gen, check_source_names_the_first_value_outside_the_bound) {
  char *dir = tu_tmpdir(), *path = tu_path(dir, "a.lbt");
  lbs_gen *g = gen("random", 40, 1, 1, 3);
  write_altered(path, g, "lossless", NULL, 1, 1, 17);
  lbs_trace *t = NULL;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert(lbs_trace_has_gen_source(t));
  cr_assert_eq(lbs_trace_verify(t, NULL, NULL), LBS_OK, "the file itself is sound");
  lbs_source_check sc;
  cr_assert_eq(lbs_trace_check_source(t, NULL, NULL, &sc), LBS_CORRUPT);
  cr_assert(strstr(lbs_errmsg(), "step 1 metric 'time_ns' element 17: stored "), "%s",
            lbs_errmsg());
  cr_assert(strstr(lbs_errmsg(), "outside the bound lossless"), "%s", lbs_errmsg());
  cr_assert_eq(sc.max_abs_error, sc.max_abs_error, "checked values give numbers, not NaN");
  lbs_trace_close(&t);
  lbs_gen_destroy(&g);
  free(path);
  tu_rmrf(dir);
}

Test(gen, check_source_finds_a_chunk_sum_off_within_every_pointwise_bound) {
  char *dir = tu_tmpdir(), *path = tu_path(dir, "s.lbt");
  lbs_gen *g = gen("random", 50, 1, 1, 3);
  /* every value 0.3% high: within rel:0.01 one by one, but each chunk's sum is off by 3e-3 */
  write_altered(path, g, "rel:0.01", "rel:1e-6", 1.003, -1, 0);
  lbs_trace *t = NULL;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK, "%s", lbs_errmsg());
  lbs_source_check sc;
  cr_assert_eq(lbs_trace_check_source(t, NULL, NULL, &sc), LBS_CORRUPT);
  cr_assert(
      strstr(lbs_errmsg(), "step 0 metric 'time_ns' chunk 0: sum off by 0.003 of its magnitude"),
      "%s", lbs_errmsg());
  lbs_trace_close(&t);
  lbs_gen_destroy(&g);
  free(path);
  tu_rmrf(dir);
}

Test(gen, check_source_refuses_a_recipe_of_other_metrics) {
  char *dir = tu_tmpdir(), *path = tu_path(dir, "m.lbt");
  lbs_gen *g = gen("bump", 10, 1, 1, 3); /* time_ns and weight; the trace has time_ns only */
  write_altered(path, g, "lossless", NULL, 1, -1, 0);
  lbs_trace *t = NULL;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK, "%s", lbs_errmsg());
  lbs_source_check sc;
  cr_assert_eq(lbs_trace_check_source(t, NULL, NULL, &sc), LBS_CORRUPT);
  cr_assert(strstr(lbs_errmsg(), "has 2 metrics, the trace 1"), "%s", lbs_errmsg());
  lbs_trace_close(&t);
  lbs_gen_destroy(&g);
  free(path);
  tu_rmrf(dir);
}

/* The real profile has no generator behind it: nothing to check, and no numbers made up. */
Test(gen, check_source_leaves_a_real_profile_alone) {
  lbs_trace *t = NULL;
  cr_assert_eq(lbs_trace_open(LBS_SOURCE_DIR "/tests/data/heat_2ranks.lbt", &t), LBS_OK, "%s",
               lbs_errmsg());
  cr_assert_not(lbs_trace_has_gen_source(t));
  progress_log pl = {0, 0, 0, 0};
  lbs_source_check sc = {1, 0, 0, 0};
  cr_assert_eq(lbs_trace_check_source(t, progress, &pl, &sc), LBS_OK);
  cr_assert_eq(sc.checked, 0);
  cr_assert(isnan(sc.max_abs_error) && isnan(sc.max_range_error) && isnan(sc.max_sum_error));
  cr_assert_eq(pl.calls, 0);
  lbs_trace_close(&t);
}

Test(gen, check_source_reports_progress_and_the_errors_it_measured) {
  char *dir = tu_tmpdir(), *path = tu_path(dir, "h.lbt");
  lbs_gen_params p = {"hotspot", 16, 16, 4, 4, 1, {0.01, 1, 2}};
  cr_assert_eq(lbs_gen_write(&p, LBS_ORDER_HILBERT, path, NULL, NULL), LBS_OK, "%s", lbs_errmsg());
  lbs_trace *t = NULL;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert(lbs_trace_has_gen_source(t));
  progress_log pl = {0, 0, 0, 0};
  lbs_source_check sc;
  cr_assert_eq(lbs_trace_check_source(t, progress, &pl, &sc), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(pl.calls, 4);
  cr_assert_eq(pl.total, 4);
  cr_assert(sc.checked);
  cr_assert(sc.max_abs_error > 0 && sc.max_range_error > 0 && sc.max_range_error < 0.005, "%g %g",
            sc.max_abs_error, sc.max_range_error);
  cr_assert(sc.max_sum_error <= LBS_SUM_TOL);
  lbs_trace_close(&t);
  free(path);
  tu_rmrf(dir);
}
