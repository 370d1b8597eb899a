/* A trace described (traces/info.c) and recoded (traces/recode.c): the description against what
 * the trace holds, the range-bound warning, a damaged chunk's error kept for the end; a recode
 * within its bound, its metadata, the steps a damaged input leaves; the recorded owners named. */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>

#include "lbs_json.h"
#include "lbs_traces.h"
#include "testutil.h"

static char *dir;
static void up(void) { dir = tu_tmpdir(); }
static void down(void) { tu_rmrf(dir); }
TestSuite(info, .init = up, .fini = down);
TestSuite(recode, .init = up, .fini = down);

static char *bump(const char *name) {
  char *p = tu_path(dir, name);
  lbs_gen_params gp = {"bump", 4, 3, 2, 5, 1, {0, 0, 0}};
  cr_assert_eq(lbs_gen_write(&gp, LBS_ORDER_NATURAL, p, NULL, NULL), LBS_OK, "%s", lbs_errmsg());
  return p;
}

/* One metric t of 100 elements over 4 steps, under bound: 1, 2, ... with one outlier a step. */
static char *outliers(const char *name, const char *bound) {
  char *p = tu_path(dir, name);
  lbs_metric_spec ms = {"t", "ns", LBS_CODEC_DEFAULT, {0, 0}, {0, 0}};
  cr_assert_eq(lbs_bound_parse(bound, &ms.bound), LBS_OK);
  if (ms.bound.kind == LBS_BOUND_LOSSLESS) ms.codec = LBS_CODEC_LOSSLESS;
  lbs_trace_spec spec = {100, 32, 1, &ms, NULL, 1, (const char *const[]){"source", "made here"}};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(p, &spec, &w), LBS_OK, "%s", lbs_errmsg());
  double v[100];
  const double *cols[1] = {v};
  for (int s = 0; s < 4; s++) {
    for (int i = 0; i < 100; i++) v[i] = 1 + i % 7;
    v[s] = 1e6;
    cr_assert_eq(lbs_trace_write_step(w, 10 * s, cols), LBS_OK);
  }
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK);
  return p;
}

static void damage(const char *path, int step, int metric) {
  sqlite3 *db;
  char sql[200];
  snprintf(
      sql, sizeof sql,
      "UPDATE chunks SET data = zeroblob(length(data)) WHERE step=%d AND metric=%d AND chunk=0",
      step, metric);
  cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
  cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(db);
}

Test(info, describes_what_the_trace_holds) {
  char *path = bump("b.lbt");
  lbs_trace *t;
  lbs_trace_info in;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK);
  cr_assert_eq(lbs_trace_info_get(t, &in), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(in.nmetrics, 2);
  cr_assert_eq(in.ncodecs, lbs_codec_count());
  cr_assert_str_eq(in.mesh, "structured 4x3x2 (natural order)");
  cr_assert_eq(in.all.raw_bytes, 24 * 5 * 8 * 2);
  for (int m = 0; m < 2; m++) {
    int64_t chunks = 0;
    for (int k = 0; k < in.ncodecs; k++) chunks += in.codec_chunks[m * in.ncodecs + k];
    cr_assert_eq(chunks, in.metric[m].chunks, "metric %d: every chunk has a codec", m);
    cr_assert_eq(lbs_trace_info_values(t, m, NULL, NULL, &in), LBS_OK);
    cr_assert_eq(in.values[m].values, 24 * 5);
    cr_assert_eq(in.warning[m][0], '\0');
  }
  cr_assert_eq(in.values_read, 2);
  json_t *j = lbs_trace_info_json(t, path, &in, 1);
  cr_assert_eq(json_integer_value(json_object_get(j, "elements")), 24);
  json_t *m0 = json_array_get(json_object_get(j, "metrics"), 0);
  cr_assert_eq(json_integer_value(json_object_get(json_object_get(m0, "values"), "count")), 120);
  cr_assert_null(json_object_get(j, "profiler"), "no profiler key for a generated trace");
  json_decref(j);
  j = lbs_trace_info_json(t, path, &in, 0);
  cr_assert(
      json_is_null(json_object_get(json_array_get(json_object_get(j, "metrics"), 1), "values")));
  json_decref(j);
  lbs_trace_info_free(&in);
  lbs_trace_close(&t);
  free(path);
}

Test(info, warns_of_a_range_bound_that_outliers_set) {
  char *path = outliers("o.lbt", "range:0.01");
  lbs_trace *t;
  lbs_trace_info in;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK);
  cr_assert_eq(lbs_trace_info_get(t, &in), LBS_OK);
  cr_assert_str_eq(in.mesh, "none");
  cr_assert_eq(lbs_trace_info_values(t, 0, NULL, NULL, &in), LBS_OK);
  cr_assert(strstr(in.warning[0], "metric 't': the bound range:0.01 lets a value move by up to"),
            "%s", in.warning[0]);
  json_t *j = lbs_trace_info_json(t, path, &in, 1);
  cr_assert_eq(json_array_size(json_object_get(j, "warnings")), 1);
  json_decref(j);
  lbs_trace_info_free(&in);
  lbs_trace_close(&t);
  free(path);
}

Test(info, keeps_a_damaged_chunk_for_the_end) {
  char *path = bump("d.lbt");
  damage(path, 3, 1);
  lbs_trace *t;
  lbs_trace_info in;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK);
  cr_assert_eq(lbs_trace_info_get(t, &in), LBS_OK, "the sizes need no decoding");
  cr_assert_eq(lbs_trace_info_values(t, 0, NULL, NULL, &in), LBS_OK);
  cr_assert_eq(lbs_trace_info_values(t, 1, NULL, NULL, &in), LBS_CORRUPT);
  cr_assert_eq(in.values_read, 1);
  cr_assert(strstr(in.values_error, "step 3 metric 'weight' chunk 0: checksum mismatch"), "%s",
            in.values_error);
  lbs_trace_info_free(&in);
  lbs_trace_close(&t);
  free(path);
}

/* Every value of step s of metric m of both traces. */
static void values(const char *path, int64_t s, int m, double *v, int64_t n) {
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK);
  cr_assert_eq(lbs_trace_read(t, s, m, 0, n, v), LBS_OK);
  lbs_trace_close(&t);
}

Test(recode, stays_within_its_bound_and_keeps_the_metadata) {
  char *in = outliers("in.lbt", "lossless"), *out = tu_path(dir, "out.lbt");
  lbs_encoding enc = {0};
  cr_assert_eq(lbs_encoding_add_bound(&enc, "t=abs:0.25"), LBS_OK);
  lbs_trace *t, *r;
  int64_t kept = 7;
  cr_assert_eq(lbs_trace_open(in, &t), LBS_OK);
  cr_assert_eq(lbs_trace_recode_check(t, &enc), LBS_OK);
  cr_assert_eq(lbs_trace_recode(t, in, &enc, 16, NULL, 0, out, NULL, NULL, &kept), LBS_OK, "%s",
               lbs_errmsg());
  cr_assert_eq(kept, -1);
  cr_assert_eq(lbs_trace_open(out, &r), LBS_OK);
  cr_assert_eq(lbs_trace_steps(r), 4);
  cr_assert_eq(lbs_trace_chunk_elems(r), 16);
  int64_t app;
  cr_assert_eq(lbs_trace_app_step(r, 3, &app), LBS_OK);
  cr_assert_eq(app, 30);
  cr_assert_str_eq(lbs_trace_meta(r, "recoded_from"), in);
  cr_assert_str_eq(lbs_trace_meta(r, "source"), "made here", "a lossless input's source stays");
  lbs_metric_info mi;
  lbs_trace_metric(r, 0, &mi);
  cr_assert_eq(mi.bound.kind, LBS_BOUND_ABS);
  double a[100], b[100];
  for (int s = 0; s < 4; s++) {
    values(in, s, 0, a, 100), values(out, s, 0, b, 100);
    for (int i = 0; i < 100; i++)
      cr_assert_leq(fabs(a[i] - b[i]), 0.25 * (1 + 1e-12), "step %d element %d", s, i);
  }
  lbs_trace_close(&r);
  /* a lossy input: its source is not the recoded values' */
  char *again = tu_path(dir, "again.lbt");
  lbs_trace *o;
  cr_assert_eq(lbs_trace_open(out, &o), LBS_OK);
  cr_assert_eq(lbs_trace_recode(o, out, NULL, 0, NULL, 0, again, NULL, NULL, NULL), LBS_OK, "%s",
               lbs_errmsg());
  lbs_trace_close(&o);
  cr_assert_eq(lbs_trace_open(again, &r), LBS_OK);
  cr_assert_null(lbs_trace_meta(r, "source"));
  cr_assert_str_eq(lbs_trace_meta(r, "recoded_source"), "made here");
  cr_assert_str_eq(lbs_trace_meta(r, "recoded_from"), out);
  lbs_trace_close(&r);
  /* an existing output is not replaced */
  cr_assert_eq(lbs_trace_recode(t, in, NULL, 0, NULL, 0, again, NULL, NULL, NULL), LBS_IO);
  lbs_trace_close(&t);
  free(in), free(out), free(again);
}

Test(recode, checks_the_settings_against_the_metrics) {
  char *in = outliers("in.lbt", "rel:0.01");
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(in, &t), LBS_OK);
  lbs_encoding enc = {0};
  cr_assert_eq(lbs_encoding_add_bound(&enc, "nosuch=lossless"), LBS_OK);
  cr_assert_eq(lbs_trace_recode_check(t, &enc), LBS_NOTFOUND);
  cr_assert(strstr(lbs_errmsg(), "no metric 'nosuch'"), "%s", lbs_errmsg());
  lbs_encoding bad = {0};
  cr_assert_eq(lbs_encoding_add_codec(&bad, "lossless"), LBS_OK);
  cr_assert_eq(lbs_encoding_add_bound(&bad, "rel:0.1"), LBS_OK);
  cr_assert_eq(lbs_trace_recode_check(t, &bad), LBS_INVAL);
  lbs_trace_close(&t);
  free(in);
}

Test(recode, a_damaged_input_leaves_the_steps_before_it) {
  char *in = bump("d.lbt"), *out = tu_path(dir, "dr.lbt");
  damage(in, 2, 0);
  lbs_trace *t;
  int64_t kept = -1;
  cr_assert_eq(lbs_trace_open(in, &t), LBS_OK);
  cr_assert_eq(lbs_trace_recode(t, in, NULL, 0, NULL, 0, out, NULL, NULL, &kept), LBS_CORRUPT);
  cr_assert_eq(kept, 2);
  cr_assert(strstr(lbs_errmsg(), "step 2 metric 'time_ns' chunk 0: checksum mismatch"), "%s",
            lbs_errmsg());
  lbs_trace_close(&t);
  cr_assert_eq(lbs_trace_open(out, &t), LBS_OK);
  cr_assert_eq(lbs_trace_steps(t), 2);
  lbs_trace_close(&t);
  free(in), free(out);
}

Test(info, names_the_recorded_owners) {
  char *path = tu_path(dir, "o.lbt");
  lbs_metric_spec ms = {"t", "ns", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}};
  lbs_trace_spec spec = {4, 0, 1, &ms, NULL, 0, NULL};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(path, &spec, &w), LBS_OK, "%s", lbs_errmsg());
  double v[4] = {1, 2, 3, 4};
  const double *cols[1] = {v};
  const int64_t o0[4] = {0, 0, 1, 1}, o1[4] = {1, 1, 0, 0};
  cr_assert_eq(lbs_trace_write_owners(w, 0, o0), LBS_OK);
  for (int s = 0; s < 40; s += 10) {
    if (s == 20) cr_assert_eq(lbs_trace_write_owners(w, 20, o1), LBS_OK);
    cr_assert_eq(lbs_trace_write_step(w, s, cols), LBS_OK);
  }
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK);
  lbs_trace *t;
  lbs_trace_info in;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK);
  cr_assert_eq(lbs_trace_info_get(t, &in), LBS_OK, "%s", lbs_errmsg());
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  lbs_trace_info_text(f, t, path, &in, 0);
  fclose(f);
  cr_assert(strstr(text, "owners    recorded assignments: 2 (from steps 0, 20)\n"), "%s", text);
  free(text);
  json_t *j = lbs_trace_info_json(t, path, &in, 0), *o = json_object_get(j, "owners");
  cr_assert_eq(json_integer_value(json_object_get(o, "assignments")), 2);
  json_t *steps = json_object_get(o, "steps");
  cr_assert(json_array_size(steps) == 2 && json_integer_value(json_array_get(steps, 1)) == 20);
  json_decref(j);
  lbs_trace_info_free(&in);
  lbs_trace_close(&t);
  free(path);
}

Test(info, totals_the_events) {
  char *path = tu_path(dir, "e.lbt");
  lbs_metric_spec ms = {"t", "ns", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}};
  lbs_trace_spec spec = {4, 0, 1, &ms, NULL, 0, NULL};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(path, &spec, &w), LBS_OK, "%s", lbs_errmsg());
  const char *names[2] = {LBS_EVENT_PARTITION, LBS_EVENT_MIGRATION};
  cr_assert_eq(lbs_trace_writer_set_events(w, 2, names, 2), LBS_OK, "%s", lbs_errmsg());
  double v[4] = {1, 2, 3, 4};
  const double *cols[1] = {v};
  /* 2 ranks x 2 events at steps 1 and 3; none at steps 0 and 2 */
  const double e1[4] = {0.5, 0.25, 1.5, 0.75}, e3[4] = {1, 0, 2, 0.125};
  for (int s = 0; s < 4; s++) {
    if (s % 2) cr_assert_eq(lbs_trace_step_events(w, s == 1 ? e1 : e3), LBS_OK);
    cr_assert_eq(lbs_trace_write_step(w, s, cols), LBS_OK);
  }
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK);
  lbs_trace *t;
  lbs_trace_info in;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK);
  cr_assert_eq(lbs_trace_info_get(t, &in), LBS_OK, "%s", lbs_errmsg());
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  lbs_trace_info_text(f, t, path, &in, 0);
  fclose(f);
  cr_assert(strstr(text, "events    partition_s 5 s, migration_s 1.125 s (totals over 2 ranks and "
                         "the 2 steps that have events)\n"),
            "%s", text);
  free(text);
  json_t *j = lbs_trace_info_json(t, path, &in, 0), *o = json_object_get(j, "events");
  cr_assert_eq(json_integer_value(json_object_get(o, "ranks")), 2);
  cr_assert_eq(json_integer_value(json_object_get(o, "steps")), 2);
  json_t *n = json_object_get(o, "names"), *tot = json_object_get(o, "total_s");
  cr_assert(json_array_size(n) == 2 &&
            !strcmp(json_string_value(json_array_get(n, 1)), "migration_s"));
  cr_assert(json_array_size(tot) == 2 && json_number_value(json_array_get(tot, 0)) == 5 &&
            json_number_value(json_array_get(tot, 1)) == 1.125);
  json_decref(j);
  lbs_trace_info_free(&in);
  lbs_trace_close(&t);
  free(path);
}

Test(info, has_no_events_without_them) {
  char *path = tu_path(dir, "n.lbt");
  lbs_metric_spec ms = {"t", "ns", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}};
  lbs_trace_spec spec = {4, 0, 1, &ms, NULL, 0, NULL};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(path, &spec, &w), LBS_OK, "%s", lbs_errmsg());
  double v[4] = {1, 2, 3, 4};
  const double *cols[1] = {v};
  cr_assert_eq(lbs_trace_write_step(w, 0, cols), LBS_OK);
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK);
  lbs_trace *t;
  lbs_trace_info in;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK);
  cr_assert_eq(lbs_trace_info_get(t, &in), LBS_OK, "%s", lbs_errmsg());
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  lbs_trace_info_text(f, t, path, &in, 0);
  fclose(f);
  cr_assert(!strstr(text, "events"), "%s", text);
  free(text);
  json_t *j = lbs_trace_info_json(t, path, &in, 0);
  cr_assert(!json_object_get(j, "events"));
  json_decref(j);
  lbs_trace_info_free(&in);
  lbs_trace_close(&t);
  free(path);
}
