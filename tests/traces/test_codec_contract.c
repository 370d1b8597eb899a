/* test_codec_contract.c - the codecs as a registry (traces/codec.c). A test's mock codec, raw
 * (id 9, values stored as they are), registered with lbs__codec_register, joins the built-in
 * ones everywhere they are listed: lbs_codec_count and lbs_codec_at (id order), a trace's chunks
 * per codec (lbs_trace_codec_chunks, what `lbsim trace info` reads) and what `trace info`
 * prints (cmd_trace, the command's own code, linked into this test), in text and in JSON. Every
 * registered codec, the mock included, keeps the codec contract: values within the bound (exact
 * when it takes the lossless bound), the chunk's sum within LBS_SUM_TOL, any element range
 * decoded alone as within the whole. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "codec_int.h"
#include "testutil.h"

#define RAW ((lbs_codec)9)

static lbs_err raw_encode(lbs_codec_ctx *ctx, const double *v, size_t n, lbs__tol t, lbs_buf *out) {
  (void)ctx, (void)t;
  return lbs_buf_append(out, v, n * sizeof *v);
}

static lbs_err raw_decode(lbs_codec_ctx *ctx, const uint8_t *blob, size_t len, size_t n,
                          size_t first, size_t count, double *out) {
  (void)ctx;
  if (len != n * sizeof *out) return lbs_fail(LBS_CORRUPT, "raw: %zu bytes for %zu values", len, n);
  memcpy(out, blob + first * sizeof *out, count * sizeof *out);
  return LBS_OK;
}

static const lbs_codec_ops raw = {
    .abi = LBS_CODEC_ABI, .id = RAW, .name = "raw", .encode = raw_encode, .decode = raw_decode};

static void add_raw(void) { cr_assert_eq(lbs__codec_register(&raw), LBS_OK, "%s", lbs_errmsg()); }

Test(codec_contract, the_built_in_codecs_in_id_order) {
  cr_assert_eq(lbs_codec_count(), 3);
  cr_assert_eq(lbs_codec_at(0), LBS_CODEC_LOSSLESS);
  cr_assert_eq(lbs_codec_at(1), LBS_CODEC_POLYLINE);
  cr_assert_eq(lbs_codec_at(2), LBS_CODEC_QUANT);
  cr_assert_eq(lbs_codec_at(3), LBS_CODEC_AUTO, "out of range");
  cr_assert_eq(lbs_codec_at(-1), LBS_CODEC_AUTO, "out of range");
}

Test(codec_contract, a_registered_codec_is_listed_and_found) {
  add_raw();
  cr_assert_eq(lbs_codec_count(), 4);
  cr_assert_eq(lbs_codec_at(3), RAW);
  cr_assert_str_eq(lbs_codec_name(RAW), "raw");
  lbs_codec c;
  cr_assert_eq(lbs_codec_from_name("raw", &c), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(c, RAW);
  cr_assert_eq(lbs_codec_from_name("rav", &c), LBS_NOTFOUND);
  cr_assert(
      strstr(lbs_errmsg(), "(known: auto, polyline, quant, lossless, raw); did you mean 'raw'?"),
      "%s", lbs_errmsg());
}

Test(codec_contract, what_a_registration_needs) {
  static const lbs_codec_ops bad_abi = {.abi = LBS_CODEC_ABI + 1,
                                        .id = (lbs_codec)10,
                                        .name = "x",
                                        .encode = raw_encode,
                                        .decode = raw_decode};
  static const lbs_codec_ops no_decode = {
      .abi = LBS_CODEC_ABI, .id = (lbs_codec)10, .name = "x", .encode = raw_encode};
  static const lbs_codec_ops autos = {.abi = LBS_CODEC_ABI,
                                      .id = LBS_CODEC_AUTO,
                                      .name = "x",
                                      .encode = raw_encode,
                                      .decode = raw_decode};
  static const lbs_codec_ops quants = {.abi = LBS_CODEC_ABI,
                                       .id = LBS_CODEC_QUANT,
                                       .name = "x",
                                       .encode = raw_encode,
                                       .decode = raw_decode};
  static const lbs_codec_ops named = {.abi = LBS_CODEC_ABI,
                                      .id = (lbs_codec)10,
                                      .name = "quant",
                                      .encode = raw_encode,
                                      .decode = raw_decode};
  cr_assert_eq(lbs__codec_register(&bad_abi), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "ABI"), "%s", lbs_errmsg());
  cr_assert_eq(lbs__codec_register(&no_decode), LBS_INVAL);
  cr_assert_eq(lbs__codec_register(&autos), LBS_INVAL);
  cr_assert_str_eq(lbs_errmsg(), "cannot register codec 'x': id 0 is not a stored codec's");
  cr_assert_eq(lbs__codec_register(&quants), LBS_INVAL);
  cr_assert_str_eq(lbs_errmsg(), "cannot register codec 'x': id 3 is taken");
  cr_assert_eq(lbs__codec_register(&named), LBS_INVAL);
  cr_assert_eq(lbs_codec_count(), 3, "none of them registered");
}

/* Values with a trend and a wiggle, as a profile's costs: in [500, 1500]. */
static void values(double *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    v[i] = 1000 + 400 * sin(0.01 * (double)i) + 90 * sin(1.7 * (double)i);
}

Test(codec_contract, every_registered_codec_keeps_the_bound_the_sum_and_its_ranges) {
  add_raw();
  enum { N = 4000 };
  static double v[N], y[N], part[N];
  values(v, N);
  lbs_codec_ctx *ctx;
  cr_assert_eq(lbs_codec_ctx_create(&ctx), LBS_OK);
  for (int k = 0; k < lbs_codec_count(); k++) {
    lbs_codec c = lbs_codec_at(k), used;
    const char *name = lbs_codec_name(c);
    lbs_bound b = {LBS_BOUND_LOSSLESS, 0}; /* the lossless bound where the codec takes it */
    if (lbs_codec_check(c, b)) b = (lbs_bound){LBS_BOUND_REL, 1e-3};
    lbs_buf blob = {0};
    cr_assert_eq(lbs_codec_encode(ctx, c, v, N, b, &blob, &used), LBS_OK, "%s: %s", name,
                 lbs_errmsg());
    cr_assert(used == c || used == LBS_CODEC_LOSSLESS, "%s: stored as %s", name,
              lbs_codec_name(used));
    cr_assert_leq(blob.len, lbs_codec_max_bytes(N), "%s", name);
    cr_assert_eq(lbs_codec_decode(ctx, used, blob.data, blob.len, N, 0, N, y), LBS_OK, "%s: %s",
                 name, lbs_errmsg());
    for (size_t i = 0; i < N; i++)
      cr_assert(b.kind == LBS_BOUND_LOSSLESS ? y[i] == v[i]
                                             : fabs(y[i] - v[i]) <= 1e-3 * fabs(v[i]) * (1 + 1e-12),
                "%s: value %zu is %.17g, stored %.17g", name, i, v[i], y[i]);
    cr_assert_leq(lbs_sum_error(v, y, N), LBS_SUM_TOL, "%s", name);
    cr_assert_eq(lbs_codec_decode(ctx, used, blob.data, blob.len, N, 1234, 777, part), LBS_OK, "%s",
                 name);
    cr_assert_eq(memcmp(part, y + 1234, 777 * sizeof *part), 0,
                 "%s: a range decodes as within the whole", name);
    lbs_buf_free(&blob);
  }
  lbs_codec_ctx_destroy(&ctx);
}

/* ------------------------------------------------------------ a trace and `trace info` */

#define E 1000
#define CHUNK 250
#define STEPS 3

/* A trace of two metrics, work stored with raw and flag with lossless; its path (owned). */
static char *raw_trace(char **dir) {
  *dir = tu_tmpdir();
  char *path = tu_path(*dir, "raw.lbt");
  lbs_metric_spec ms[2] = {{"work", "1", RAW, {LBS_BOUND_REL, 1e-3}, {0, 0}},
                           {"flag", "1", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}}};
  lbs_trace_spec spec = {.elements = E, .chunk_elems = CHUNK, .nmetrics = 2, .metrics = ms};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(path, &spec, &w), LBS_OK, "%s", lbs_errmsg());
  static double work[E], flag[E];
  values(work, E);
  for (int s = 0; s < STEPS; s++) {
    for (int i = 0; i < E; i++) flag[i] = (i + s) % 2;
    const double *cols[2] = {work, flag};
    cr_assert_eq(lbs_trace_write_step(w, s, cols), LBS_OK, "%s", lbs_errmsg());
  }
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK, "%s", lbs_errmsg());
  return path;
}

Test(codec_contract, a_traces_chunks_count_per_registered_codec) {
  add_raw();
  char *dir, *path = raw_trace(&dir);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK, "%s", lbs_errmsg());
  int nc = lbs_codec_count();
  int64_t work[8], flag[8], all[8];
  cr_assert_eq(nc, 4);
  cr_assert_eq(lbs_trace_codec_chunks(t, 0, work, nc), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_codec_chunks(t, 1, flag, nc), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_codec_chunks(t, -1, all, nc), LBS_OK, "%s", lbs_errmsg());
  int64_t per_metric = STEPS * (E / CHUNK);
  for (int k = 0; k < nc; k++) {
    cr_assert_eq(work[k], lbs_codec_at(k) == RAW ? per_metric : 0, "work, codec %s",
                 lbs_codec_name(lbs_codec_at(k)));
    cr_assert_eq(flag[k], lbs_codec_at(k) == LBS_CODEC_LOSSLESS ? per_metric : 0, "flag");
    cr_assert_eq(all[k], work[k] + flag[k]);
  }
  cr_assert_eq(lbs_trace_codec_chunks(t, 2, all, nc), LBS_RANGE);
  double back[E], want[E];
  values(want, E);
  cr_assert_eq(lbs_trace_read(t, 1, 0, 0, E, back), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(memcmp(back, want, sizeof back), 0, "raw stores the values as they are");
  lbs_trace_close(&t);
  free(path);
  tu_rmrf(dir);
}

/* `lbsim trace info ARGS` through the command's own code: its standard output, as a string. */
static char *trace_info(const char *path, const char *opt) {
  char out[] = "/tmp/lbs_trace_info_XXXXXX";
  int fd = mkstemp(out), saved = dup(1);
  cr_assert(fd >= 0 && saved >= 0);
  fflush(stdout);
  dup2(fd, 1);
  char *argv[] = {"trace", "info", (char *)path, "--no-values", (char *)opt, NULL};
  int rc = cmd_trace(opt ? 5 : 4, argv);
  fflush(stdout);
  dup2(saved, 1);
  close(saved), close(fd);
  cr_assert_eq(rc, 0, "trace info %s", opt ? opt : "");
  char *text = NULL;
  size_t len;
  cr_assert_eq(lbs_read_file(out, &text, &len), LBS_OK, "%s", lbs_errmsg());
  unlink(out);
  return text;
}

Test(codec_contract, trace_info_lists_every_registered_codec) {
  add_raw();
  char *dir, *path = raw_trace(&dir);
  char *text = trace_info(path, NULL);
  cr_assert(strstr(text, " chunks l/p/q/r "), "the header names every codec's initial:\n%s", text);
  cr_assert(strstr(text, "  work         1      rel:0.001      raw       0/0/0/12 "), "%s", text);
  cr_assert(strstr(text, "  flag         1      lossless       lossless  12/0/0/0 "), "%s", text);
  free(text);
  text = trace_info(path, "--json");
  json_error_t je;
  json_t *o = json_loads(text, 0, &je), *m;
  cr_assert_not_null(o, "%s: %s", je.text, text);
  size_t i;
  json_array_foreach(json_object_get(o, "metrics"), i, m) {
    json_t *chunks = json_object_get(m, "chunks");
    cr_assert_eq(json_object_size(chunks), 4, "every codec: %s", text);
    int raw_work = !strcmp(json_string_value(json_object_get(m, "name")), "work");
    cr_assert_eq(json_integer_value(json_object_get(chunks, "raw")), raw_work ? 12 : 0);
    cr_assert_eq(json_integer_value(json_object_get(chunks, "lossless")), raw_work ? 0 : 12);
    cr_assert_not_null(json_object_get(chunks, "polyline"));
    cr_assert_not_null(json_object_get(chunks, "quant"));
  }
  cr_assert_eq(i, 2);
  json_decref(o);
  free(text);
  free(path);
  tu_rmrf(dir);
}
