/* Denoising (traces/denoise.c, trace recode --denoise): the rules' spelling, the window at the
 * trace's ends, what each rule changes and keeps, and a recoded trace whose preempted element
 * is back at its neighbours' median while every other value is kept bit for bit. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "lbs_traces.h"
#include "testutil.h"

static lbs_denoise parse_ok(const char *s) {
  lbs_denoise d;
  cr_assert_eq(lbs_denoise_parse(s, &d), LBS_OK, "%s: %s", s, lbs_errmsg());
  return d;
}

Test(denoise, rules_are_spelled_one_way) {
  char b[128];
  lbs_denoise d = parse_ok("spike");
  cr_assert_str_eq(lbs_denoise_format(&d, b, sizeof b), "time_ns=spike:3:3");
  d = parse_ok("cycles=spike:5:2.5");
  cr_assert_str_eq(lbs_denoise_format(&d, b, sizeof b), "cycles=spike:5:2.5");
  d = parse_ok("median:7");
  cr_assert_str_eq(lbs_denoise_format(&d, b, sizeof b), "time_ns=median:7");
  const char *bad[] = {"",          "blur",        "spike:4",     "spike:1", "spike:3:1",
                       "spike:3:x", "median:3:2",  "spike:3:3:3", "=spike",  "median:101",
                       "spike:-3",  "spike:3:nan", NULL};
  for (int i = 0; bad[i]; i++) {
    cr_assert_eq(lbs_denoise_parse(bad[i], &d), LBS_PARSE, "'%s' was taken", bad[i]);
    cr_assert(strstr(lbs_errmsg(), "--denoise '"), "%s", lbs_errmsg());
  }
}

Test(denoise, the_window_shifts_inward_at_the_ends) {
  int64_t lo, hi;
  lbs_denoise_window(3, 0, 10, &lo, &hi);
  cr_assert(lo == 0 && hi == 2);
  lbs_denoise_window(3, 5, 10, &lo, &hi);
  cr_assert(lo == 4 && hi == 6);
  lbs_denoise_window(5, 9, 10, &lo, &hi);
  cr_assert(lo == 5 && hi == 9);
  lbs_denoise_window(5, 1, 2, &lo, &hi); /* fewer steps than the window: all of them */
  cr_assert(lo == 0 && hi == 1);
}

Test(denoise, spike_replaces_only_outliers_median_all) {
  double s0[4] = {1, 10, 0, NAN}, s1[4] = {1.1, 100, 5, 1}, s2[4] = {0.9, 10, 0, 2}, out[4];
  const double *win[3] = {s0, s1, s2};
  lbs_denoise sp = parse_ok("spike"), me = parse_ok("median");
  cr_assert_eq(lbs_denoise_apply(&sp, win, 3, 1, 4, out), 2);
  cr_assert(out[0] == 1.1, "within 3x of the median: kept as measured");
  cr_assert(out[1] == 10, "100 against a median of 10: the median");
  cr_assert(out[2] == 0, "5 against a median of 0: the median");
  cr_assert(out[3] == 1, "1 of the finite {1, 2}: kept");
  cr_assert_eq(lbs_denoise_apply(&me, win, 3, 1, 4, out), 4);
  cr_assert(out[0] == 1 && out[1] == 10 && out[2] == 0 && out[3] == 1.5, "%g %g %g %g", out[0],
            out[1], out[2], out[3]);
  cr_assert_eq(lbs_denoise_apply(&me, win, 3, 0, 4, out), 0, "step 0 is every median already");
  cr_assert(isnan(out[3]), "a non-finite value stays");
}

/* 20 elements, 8 steps of smooth costs; element 7 preempted at step 3 (1000x). */
static double cost(int64_t s, int64_t i) { return 100 + 3 * (double)i + (double)s; }

Test(denoise, recode_removes_a_preemption_and_keeps_the_rest) {
  char *dir = tu_tmpdir(), *in = tu_path(dir, "in.lbt"), *out = tu_path(dir, "out.lbt");
  lbs_metric_spec ms[2] = {{"time_ns", "ns", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}},
                           {"weight", "1", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}}};
  const char *meta[] = {"source", "test"};
  lbs_trace_spec spec = {20, 0, 2, ms, NULL, 1, meta};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(in, &spec, &w), LBS_OK, "%s", lbs_errmsg());
  double t[20], wt[20];
  for (int64_t s = 0; s < 8; s++) {
    for (int64_t i = 0; i < 20; i++) t[i] = cost(s, i) * (s == 3 && i == 7 ? 1000 : 1), wt[i] = 1;
    const double *cols[2] = {t, wt};
    cr_assert_eq(lbs_trace_write_step(w, s, cols), LBS_OK);
  }
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK);
  lbs_trace *tr, *o;
  cr_assert_eq(lbs_trace_open(in, &tr), LBS_OK);
  lbs_denoise dn[2] = {parse_ok("spike"), parse_ok("nope=median")};
  cr_assert_eq(lbs_trace_denoise_check(tr, dn + 1, 1), LBS_NOTFOUND);
  cr_assert(strstr(lbs_errmsg(), "no metric 'nope' (metrics: time_ns weight)"), "%s", lbs_errmsg());
  lbs_encoding enc = {0};
  cr_assert_eq(lbs_encoding_add_bound(&enc, "lossless"), LBS_OK);
  cr_assert_eq(lbs_trace_recode(tr, in, &enc, 0, dn, 1, out, NULL, NULL, NULL), LBS_OK, "%s",
               lbs_errmsg());
  cr_assert_eq(dn[0].changed, 1, "only the preempted value: %lld", (long long)dn[0].changed);
  cr_assert_eq(lbs_trace_open(out, &o), LBS_OK);
  for (int64_t s = 0; s < 8; s++) {
    cr_assert_eq(lbs_trace_read(o, s, 0, 0, 20, t), LBS_OK);
    for (int64_t i = 0; i < 20; i++) {
      /* kept as written; the preempted one is the median of {123, 124000, 125} */
      double want = s == 3 && i == 7 ? cost(4, i) : cost(s, i);
      cr_assert(t[i] == want, "step %lld element %lld: %g, want %g", (long long)s, (long long)i,
                t[i], want);
    }
  }
  cr_assert_str_eq(lbs_trace_meta(o, "denoise"), "time_ns=spike:3:3");
  cr_assert_null(lbs_trace_meta(o, "source"), "the values are no longer the source's");
  cr_assert_str_eq(lbs_trace_meta(o, "recoded_source"), "test");
  lbs_trace_close(&o), lbs_trace_close(&tr);
  free(in), free(out);
  tu_rmrf(dir);
}
