/* Codec contract, for every lossy codec (polyline, quant, auto) and bound kind (abs, rel):
 * every decoded value within its bound, non-finite values kept bit for bit, every chunk's sum
 * within LBS_SUM_TOL of the input's, a partial decode is the slice of a full decode; on random
 * and adversarial inputs (outliers 10^4 x the median, zeros, tiny and huge values, two-level
 * data biased in opposite directions). The greedy segmentation is minimal, lossless is
 * bit-exact, damaged blobs give errors and never crashes, bounds parse in their one spelling. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "codec_int.h"
#include "lbs_traces.h"

static lbs_codec_ctx *ctx;
static void setup(void) { cr_assert_eq(lbs_codec_ctx_create(&ctx), LBS_OK); }
static void teardown(void) { lbs_codec_ctx_destroy(&ctx); }
TestSuite(codec, .init = setup, .fini = teardown);

static double urand(uint64_t *s) { /* deterministic test data */
  *s += 1;
  return lbs_rng_unit(12345, 0, *s);
}

static const lbs_codec lossy[] = {LBS_CODEC_POLYLINE, LBS_CODEC_QUANT, LBS_CODEC_AUTO};

/* Encodes v with codec c within b, checks the bound, the non-finite values and the sum on a
 * full decode, and that random partial decodes equal slices of it. Returns the encoded size;
 * *used says which codec stored it. */
static size_t check_codec(lbs_codec c, const double *v, size_t n, lbs_bound b, lbs_codec *used) {
  lbs_buf blob = {0};
  lbs_codec u;
  char bs[LBS_BOUND_STRLEN];
  lbs_err e = lbs_codec_encode(ctx, c, v, n, b, &blob, &u);
  cr_assert_eq(e, LBS_OK, "%s %s: encode failed: %s", lbs_codec_name(c), lbs_bound_format(b, bs),
               lbs_errmsg());
  double *d = malloc((n + 1) * sizeof *d), *p = malloc((n + 1) * sizeof *p);
  cr_assert_eq(lbs_codec_decode(ctx, u, blob.data, blob.len, n, 0, n, d), LBS_OK, "%s",
               lbs_errmsg());
  for (size_t i = 0; i < n; i++) {
    if (isfinite(v[i])) {
      double tol = lbs_bound_tolerance(b, v[i], 0);
      cr_assert(fabs(d[i] - v[i]) <= tol, "%s (stored as %s) %s: element %zu: |%.17g - %.17g| > %g",
                lbs_codec_name(c), lbs_codec_name(u), bs, i, d[i], v[i], tol);
      if (b.kind == LBS_BOUND_REL) {
        cr_assert(v[i] != 0 || d[i] == 0, "element %zu: zero not kept", i);
        cr_assert(v[i] == 0 || signbit(v[i]) == signbit(d[i]), "element %zu: sign not kept", i);
      }
    } else {
      cr_assert(!memcmp(&d[i], &v[i], 8), "element %zu: non-finite value changed", i);
    }
  }
  double se = lbs_sum_error(v, d, n);
  cr_assert(se <= LBS_SUM_TOL, "%s (stored as %s) %s: chunk sum off by %g", lbs_codec_name(c),
            lbs_codec_name(u), bs, se);
  uint64_t s = n;
  for (int r = 0; r < 12 && n > 0; r++) {
    size_t a = (size_t)(urand(&s) * (double)n), k = (size_t)(urand(&s) * (double)(n - a + 1));
    cr_assert_eq(lbs_codec_decode(ctx, u, blob.data, blob.len, n, a, k, p), LBS_OK);
    cr_assert(!memcmp(p, d + a, k * sizeof *p), "partial decode [%zu,+%zu) differs from full", a,
              k);
  }
  size_t len = blob.len;
  if (used) *used = u;
  free(d), free(p);
  lbs_buf_free(&blob);
  return len;
}

static void check_all(const double *v, size_t n, const lbs_bound *bounds, size_t nb) {
  for (size_t k = 0; k < nb; k++)
    for (size_t c = 0; c < sizeof lossy / sizeof *lossy; c++)
      check_codec(lossy[c], v, n, bounds[k], NULL);
}

/* Random series of eight kinds, non-negative ones first (costs), then signed ones. */
static void series(int kind, double *v, size_t n) {
  uint64_t s = (uint64_t)kind * 100000;
  double walk = 0;
  for (size_t i = 0; i < n; i++) {
    double u = urand(&s);
    switch (kind) {
    case 0: v[i] = u; break;                                                      /* white noise */
    case 1: v[i] = 300 * exp(0.2 * (u - 0.5)) + (u < 0.001 ? 3e6 * u : 0); break; /* timings */
    case 2: v[i] = 1 + sin((double)i * 0.01) + 0.05 * u; break;    /* smooth + noise */
    case 3: v[i] = (double)((i / 37) % 5) * 10 + 0.001 * u; break; /* steps, zeros */
    case 4: v[i] = 1e9 + 100 * u; break;                           /* large offset */
    case 5: v[i] = u < 0.01 ? 1e6 * u : 0; break;                  /* spikes on zeros */
    case 6:
      walk += u - 0.5;
      v[i] = walk;
      break;                                         /* random walk */
    case 7: v[i] = (double)(i % 2) * 2.0 - 1; break; /* sawtooth +-1 */
    }
  }
}

Test(codec, bound_and_sum_hold_on_random_inputs) {
  enum { N = 5000 };
  static double v[N];
  const lbs_bound b[] = {{LBS_BOUND_ABS, 1e-3}, {LBS_BOUND_ABS, 0.1},  {LBS_BOUND_ABS, 3.0},
                         {LBS_BOUND_REL, 1e-3}, {LBS_BOUND_REL, 5e-3}, {LBS_BOUND_REL, 0.05}};
  for (int kind = 0; kind < 8; kind++) {
    series(kind, v, N);
    check_all(v, N, b, sizeof b / sizeof *b);
  }
}

/* Timings as profilers see them: 1% jitter around 0.7 us, one preempted element per 1000 at
 * 10^4 x the median, a few zeros (elements a rank skipped). */
Test(codec, real_looking_timings_with_outliers) {
  enum { N = 8192 };
  static double v[N];
  uint64_t s = 42;
  for (size_t i = 0; i < N; i++) {
    double u = urand(&s);
    v[i] = 700 * (1 + 0.01 * (urand(&s) - 0.5)) * (i % 97 < 20 ? 10 : 1);
    if (u < 0.001) v[i] *= 1e4;
    if (u > 0.9995) v[i] = 0;
  }
  const lbs_bound b[] = {{LBS_BOUND_REL, 5e-3}, {LBS_BOUND_REL, 1e-2}, {LBS_BOUND_ABS, 1.0}};
  check_all(v, N, b, 3);
}

Test(codec, bound_and_sum_hold_on_adversarial_inputs) {
  double v[256];
  const lbs_bound b[] = {{LBS_BOUND_ABS, 0.25}, {LBS_BOUND_REL, 0.01}};
  /* values sitting exactly on the +-eps borders of a line */
  for (int i = 0; i < 64; i++) v[i] = 1 + 0.5 * i + (i % 2 ? 0.25 : -0.25);
  check_all(v, 64, b, 2);
  /* sawtooth of amplitude exactly 2 eps */
  for (int i = 0; i < 64; i++) v[i] = i % 2 ? 0.5 : 0;
  check_all(v, 64, b, 2);
  /* convex parabola: every segment short, the least-squares line always infeasible */
  for (int i = 0; i < 64; i++) v[i] = 0.05 * i * i;
  check_all(v, 64, b, 2);
  /* tiny inputs */
  for (size_t n = 0; n <= 3; n++) check_all(v + 10, n, b, 2);
  /* non-finite values among finite ones */
  for (int i = 0; i < 64; i++) v[i] = i;
  v[0] = NAN, v[10] = INFINITY, v[11] = -INFINITY, v[12] = NAN, v[63] = NAN;
  check_all(v, 64, b, 2);
  /* all zeros, all equal, all non-finite */
  for (int i = 0; i < 64; i++) v[i] = 0;
  check_all(v, 64, b, 2);
  for (int i = 0; i < 64; i++) v[i] = 321.5;
  check_all(v, 64, b, 2);
  for (int i = 0; i < 64; i++) v[i] = NAN;
  check_all(v, 64, b, 2);
  /* two smooth levels at opposite offsets from any grid: biases that no single factor fixes */
  for (int i = 0; i < 256; i++) v[i] = (i / 16) % 2 ? 3035.3 + 1e-4 * i : 321.55 - 1e-5 * i;
  check_all(v, 256, b, 2);
  /* one outlier 10^4 x the rest, first, last and in the middle */
  for (int pos = 0; pos < 3; pos++) {
    for (int i = 0; i < 256; i++) v[i] = 700 + (i % 3);
    v[pos == 0 ? 0 : pos == 1 ? 255 : 128] = 7e6;
    check_all(v, 256, b, 2);
  }
  /* tiny and huge magnitudes in one chunk under a relative bound */
  for (int i = 0; i < 64; i++) v[i] = i % 2 ? 1e-300 * (1 + i) : 1e300 / (1 + i);
  check_all(v, 64, b + 1, 1);
  for (int i = 0; i < 64; i++) v[i] = 4.9e-324 * (i % 5); /* denormals */
  check_all(v, 64, b + 1, 1);
  /* huge magnitudes with a large absolute bound are fine */
  for (int i = 0; i < 64; i++) v[i] = 1e300 * (1 + 1e-3 * i);
  lbs_bound big = {LBS_BOUND_ABS, 1e298};
  check_all(v, 64, &big, 1);
}

/* Values too large for an absolute bound's resolution: the polyline falls back to lossless,
 * the quantizer stores them as literals; both keep the bound. */
Test(codec, a_bound_too_small_falls_back) {
  double v[4] = {1e300, -1e300, 5, 7};
  lbs_codec u;
  check_codec(LBS_CODEC_POLYLINE, v, 4, (lbs_bound){LBS_BOUND_ABS, 1.0}, &u);
  cr_assert_eq(u, LBS_CODEC_LOSSLESS);
  check_codec(LBS_CODEC_QUANT, v, 4, (lbs_bound){LBS_BOUND_ABS, 1.0}, &u);
  cr_assert_eq(u, LBS_CODEC_QUANT);
}

Test(codec, codec_and_bound_must_fit) {
  double v[4] = {1, 2, 3, 4};
  lbs_buf b = {0};
  lbs_codec u;
  cr_assert_eq(
      lbs_codec_encode(ctx, LBS_CODEC_POLYLINE, v, 4, (lbs_bound){LBS_BOUND_LOSSLESS, 0}, &b, &u),
      LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "lossy"), "%s", lbs_errmsg());
  cr_assert_eq(
      lbs_codec_encode(ctx, LBS_CODEC_LOSSLESS, v, 4, (lbs_bound){LBS_BOUND_REL, 0.1}, &b, &u),
      LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "lossless"), "%s", lbs_errmsg());
  cr_assert_eq(
      lbs_codec_encode(ctx, LBS_CODEC_QUANT, v, 4, (lbs_bound){LBS_BOUND_REL, NAN}, &b, &u),
      LBS_INVAL);
  cr_assert_eq(lbs_codec_encode(ctx, LBS_CODEC_QUANT, v, 4, (lbs_bound){LBS_BOUND_ABS, -1}, &b, &u),
               LBS_INVAL);
  cr_assert_eq(
      lbs_codec_encode(ctx, LBS_CODEC_QUANT, v, 4, (lbs_bound){LBS_BOUND_RANGE, 0.1}, &b, &u),
      LBS_INVAL);
  cr_assert_eq(lbs_codec_check(LBS_CODEC_AUTO, (lbs_bound){LBS_BOUND_RANGE, 0.1}), LBS_OK);
  lbs_buf_free(&b);
}

/* Noisy data: the quantizer stores far less than the polyline, and auto takes it. */
Test(codec, quant_wins_on_noise_and_auto_takes_the_smaller) {
  enum { N = 8192 };
  static double v[N];
  uint64_t s = 7;
  for (size_t i = 0; i < N; i++) v[i] = 500 * exp(0.05 * (urand(&s) - 0.5));
  lbs_bound b = {LBS_BOUND_REL, 0.005};
  lbs_codec u;
  size_t poly = check_codec(LBS_CODEC_POLYLINE, v, N, b, NULL),
         quant = check_codec(LBS_CODEC_QUANT, v, N, b, NULL);
  size_t aut = check_codec(LBS_CODEC_AUTO, v, N, b, &u);
  cr_assert(quant < poly / 2, "quant %zu bytes, polyline %zu", quant, poly);
  cr_assert_eq(u, LBS_CODEC_QUANT);
  cr_assert_eq(aut, quant);
  /* a smooth ramp: one polyline segment */
  for (size_t i = 0; i < N; i++) v[i] = 100 + 0.01 * (double)i;
  size_t p2 = check_codec(LBS_CODEC_AUTO, v, N, b, &u);
  cr_assert_eq(u, LBS_CODEC_POLYLINE);
  cr_assert(p2 < 64, "%zu bytes", p2);
}

/* Sums: the correction keeps the chunk's sum exact where plain rounding would not. */
Test(codec, smooth_biased_data_keeps_its_sum) {
  enum { N = 4096 };
  static double v[N], d[N];
  for (size_t i = 0; i < N; i++)
    v[i] = 321.7; /* 0.3 bins off the grid: every value rounds the same way */
  for (size_t c = 0; c < 2; c++) {
    lbs_buf blob = {0};
    lbs_codec u;
    cr_assert_eq(lbs_codec_encode(ctx, lossy[c], v, N, (lbs_bound){LBS_BOUND_REL, 0.01}, &blob, &u),
                 LBS_OK);
    cr_assert_eq(lbs_codec_decode(ctx, u, blob.data, blob.len, N, 0, N, d), LBS_OK);
    double s0 = 0, s1 = 0;
    for (size_t i = 0; i < N; i++) s0 += v[i], s1 += d[i];
    cr_assert(fabs(s1 - s0) <= 1e-9 * s0, "%s: sum %.17g, input %.17g", lbs_codec_name(u), s1, s0);
    cr_assert(blob.len < 200, "%s: %zu bytes for a constant", lbs_codec_name(u), blob.len);
    lbs_buf_free(&blob);
  }
}

/* Exact feasibility of one line through all points within e: if the feasible set is not
 * empty, one of its vertices is a line through two bound points. */
static int feasible(const double *y, size_t m, double e) {
  if (m <= 2) return 1;
  double tol = 1e-9 * (e + fabs(y[0]));
  for (size_t i = 0; i < m; i++)
    for (size_t j = i + 1; j < m; j++)
      for (int si = -1; si <= 1; si += 2)
        for (int sj = -1; sj <= 1; sj += 2) {
          double yi = y[i] + si * e, yj = y[j] + sj * e, b = (yj - yi) / (double)(j - i);
          int ok = 1;
          for (size_t k = 0; k < m && ok; k++)
            ok = fabs(yi + b * ((double)k - (double)i) - y[k]) <= e + tol;
          if (ok) return 1;
        }
  return 0;
}

Test(codec, greedy_segmentation_is_minimal) {
  enum { N = 160 };
  double v[N];
  size_t ends[N];
  for (int trial = 0; trial < 30; trial++) {
    uint64_t s = 777 + (uint64_t)trial * 1000;
    double walk = 0;
    for (size_t i = 0; i < N; i++) {
      walk += urand(&s) - 0.5;
      v[i] = trial % 2 ? walk : sin(0.1 * (double)i) + 0.3 * urand(&s);
    }
    double e = 0.05 + 0.3 * urand(&s);
    size_t k = lbs__polyline_segments(ctx, v, N, (lbs__tol){e, 0}, ends);
    /* brute-force greedy; greedy is optimal because feasibility is hereditary */
    size_t want = 0, st = 0;
    while (st < N) {
      size_t t = st + 1;
      while (t < N && feasible(v + st, t + 1 - st, e)) t++;
      cr_assert_eq(ends[want], t, "trial %d: segment %zu ends at %zu, brute force %zu", trial, want,
                   ends[want], t);
      want++;
      st = t;
    }
    cr_assert_eq(k, want, "trial %d: %zu segments, minimum %zu", trial, k, want);
  }
}

Test(codec, least_squares_line_is_kept_when_feasible) {
  /* Symmetric noise around a line: the least-squares fit recovers the line, so the decoded
   * values are much closer to the line than the bound asks. */
  enum { N = 1000 };
  double v[N], d[N];
  for (int i = 0; i < N; i++) v[i] = 3.0 + 0.002 * i + (i % 2 ? 0.01 : -0.01);
  lbs_buf b = {0};
  lbs_codec u;
  cr_assert_eq(
      lbs_codec_encode(ctx, LBS_CODEC_POLYLINE, v, N, (lbs_bound){LBS_BOUND_ABS, 0.5}, &b, &u),
      LBS_OK);
  cr_assert_eq(lbs_codec_decode(ctx, u, b.data, b.len, N, 0, N, d), LBS_OK);
  for (int i = 0; i < N; i++)
    cr_assert(fabs(d[i] - (3.0 + 0.002 * i)) <= 0.5 / 8 + 1e-9, "element %d", i);
  cr_assert(b.len < 40, "one segment expected, got %zu bytes", b.len);
  lbs_buf_free(&b);
}

Test(codec, lossless_is_bit_exact) {
  enum { N = 3000 };
  uint64_t bits[N];
  for (int i = 0; i < N; i++) bits[i] = lbs_rng_u64(9, 9, (uint64_t)i);
  double special[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 4.9e-324, 1.7976931348623157e308};
  memcpy(bits, special, sizeof special);
  double *v = (double *)bits, d[N];
  lbs_buf b = {0};
  lbs_codec u;
  cr_assert_eq(
      lbs_codec_encode(ctx, LBS_CODEC_LOSSLESS, v, N, (lbs_bound){LBS_BOUND_LOSSLESS, 0}, &b, &u),
      LBS_OK);
  cr_assert_eq(lbs_codec_decode(ctx, LBS_CODEC_LOSSLESS, b.data, b.len, N, 0, N, d), LBS_OK);
  cr_assert(!memcmp(d, v, sizeof d));
  cr_assert_eq(lbs_codec_decode(ctx, LBS_CODEC_LOSSLESS, b.data, b.len, N, 100, 50, d), LBS_OK);
  cr_assert(!memcmp(d, v + 100, 50 * sizeof *d));
  lbs_buf_free(&b);
}

Test(codec, damaged_blobs_are_errors_not_crashes) {
  enum { N = 2000 };
  double v[N], d[N];
  for (int i = 0; i < N; i++) v[i] = 200 + sin(i * 0.05) * 100 + (i % 3) + (i % 7 == 0 ? 1e5 : 0);
  const lbs_codec cs[] = {LBS_CODEC_LOSSLESS, LBS_CODEC_POLYLINE, LBS_CODEC_QUANT};
  for (int k = 0; k < 3; k++) {
    lbs_buf b = {0};
    lbs_codec c = cs[k], u;
    lbs_bound bd = c == LBS_CODEC_LOSSLESS ? (lbs_bound){LBS_BOUND_LOSSLESS, 0}
                                           : (lbs_bound){LBS_BOUND_REL, 0.01};
    cr_assert_eq(lbs_codec_encode(ctx, c, v, N, bd, &b, &u), LBS_OK);
    cr_assert_eq(u, c);
    for (size_t len = 0; len < b.len; len++)
      cr_assert_neq(lbs_codec_decode(ctx, c, b.data, len, N, 0, N, d), LBS_OK,
                    "codec %d: truncated to %zu of %zu bytes accepted", c, len, b.len);
    for (size_t i = 0; i < b.len * 8; i += 3) { /* single bit flips: any result but a crash */
      b.data[i / 8] ^= (uint8_t)(1u << (i % 8));
      (void)lbs_codec_decode(ctx, c, b.data, b.len, N, 0, N, d);
      b.data[i / 8] ^= (uint8_t)(1u << (i % 8));
    }
    cr_assert_eq(lbs_codec_decode(ctx, c, b.data, b.len, N + 1, 0, N, d), LBS_CORRUPT,
                 "wrong element count accepted");
    cr_assert_eq(lbs_codec_decode(ctx, c, b.data, b.len, N, 10, N, d), LBS_RANGE);
    lbs_buf_free(&b);
  }
  cr_assert_eq(lbs_codec_decode(ctx, (lbs_codec)77, (const uint8_t *)"x", 1, 1, 0, 1, d),
               LBS_CORRUPT);
  cr_assert_eq(lbs_codec_decode(ctx, LBS_CODEC_AUTO, (const uint8_t *)"x", 1, 1, 0, 1, d),
               LBS_CORRUPT);
}

/* A version 1 polyline blob (before sum corrections) still decodes. */
Test(codec, polyline_version_1_blobs_decode) {
  /* [1][flags 0][delta 0.25][n 3][segment of 3: len-1=2 << 1][zigzag(q0=4)][zigzag(q1-q0=4)] */
  uint8_t blob[16] = {1, 0};
  double delta = 0.25, d[3];
  memcpy(blob + 2, &delta, 8);
  blob[10] = 3, blob[11] = 2 << 1, blob[12] = 8, blob[13] = 8;
  cr_assert_eq(lbs_codec_decode(ctx, LBS_CODEC_POLYLINE, blob, 14, 3, 0, 3, d), LBS_OK, "%s",
               lbs_errmsg());
  cr_assert(d[0] == 1.0 && d[1] == 1.5 && d[2] == 2.0, "%g %g %g", d[0], d[1], d[2]);
}

Test(codec, names) {
  lbs_codec c;
  cr_assert_eq(lbs_codec_from_name("polyline", &c), LBS_OK);
  cr_assert_eq(c, LBS_CODEC_POLYLINE);
  cr_assert_eq(lbs_codec_from_name("quant", &c), LBS_OK);
  cr_assert_eq(c, LBS_CODEC_QUANT);
  cr_assert_eq(lbs_codec_from_name("auto", &c), LBS_OK);
  cr_assert_eq(c, LBS_CODEC_AUTO);
  cr_assert_eq(lbs_codec_from_name("gzip", &c), LBS_NOTFOUND);
  cr_assert(strstr(lbs_errmsg(), "auto, polyline, quant, lossless"));
  cr_assert_eq(lbs_codec_from_name("polylin", &c), LBS_NOTFOUND);
  cr_assert(strstr(lbs_errmsg(), "did you mean 'polyline'?"), "%s", lbs_errmsg());
  cr_assert_eq(lbs_codec_from_name("lossless", &c), LBS_OK);
  cr_assert_eq(c, LBS_CODEC_LOSSLESS);
  cr_assert_str_eq(lbs_codec_name(LBS_CODEC_LOSSLESS), "lossless");
  cr_assert_null(lbs_codec_name((lbs_codec)99));
}

Test(codec, bounds_have_one_spelling) {
  const char *good[] = {"rel:0.005", "abs:5", "range:0.001", "lossless", "rel:0.5", "abs:1e+300"};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    lbs_bound b, b2;
    char s[LBS_BOUND_STRLEN];
    cr_assert_eq(lbs_bound_parse(good[i], &b), LBS_OK, "%s: %s", good[i], lbs_errmsg());
    cr_assert_eq(lbs_bound_parse(lbs_bound_format(b, s), &b2), LBS_OK);
    cr_assert(b.kind == b2.kind && b.eps == b2.eps, "%s -> %s", good[i], s);
  }
  struct {
    const char *s, *why;
  } bad[] = {{"rel:-0.1", "negative"},   {"rel:nan", "NaN"},           {"abs:inf", "infinite"},
             {"rel:0", "lossless"},      {"rel:0.9", "keeps nothing"}, {"rel:", "not a number"},
             {"rel:1x", "not a number"}, {"pct:1", "not one of"},      {"0.01", "not one of"},
             {"", "not one of"},         {"lossless:0", "not one of"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    lbs_bound b;
    cr_assert_eq(lbs_bound_parse(bad[i].s, &b), LBS_PARSE, "'%s' accepted", bad[i].s);
    cr_assert(strstr(lbs_errmsg(), bad[i].why), "'%s': %s", bad[i].s, lbs_errmsg());
  }
}

/* No values, on a context that has encoded nothing yet: the lossless and polyline encoders
 * formed a pointer from their still NULL work buffers (NULL + 0: undefined; clang's UBSan
 * reports it, GCC's does not). Found by fuzz_codec when a corpus merge ran such an input first. */
Test(codec, no_values_on_a_fresh_context) {
  const lbs_codec all[] = {LBS_CODEC_LOSSLESS, LBS_CODEC_POLYLINE, LBS_CODEC_QUANT, LBS_CODEC_AUTO};
  for (int k = 0; k < 4; k++) {
    lbs_codec_ctx *fresh;
    cr_assert_eq(lbs_codec_ctx_create(&fresh), LBS_OK);
    lbs_bound b = all[k] == LBS_CODEC_LOSSLESS ? (lbs_bound){LBS_BOUND_LOSSLESS, 0}
                                               : (lbs_bound){LBS_BOUND_ABS, 1};
    lbs_buf blob = {0};
    lbs_codec u;
    double d[1];
    cr_assert_eq(lbs_codec_encode(fresh, all[k], d, 0, b, &blob, &u), LBS_OK, "%s", lbs_errmsg());
    cr_assert_eq(lbs_codec_decode(fresh, u, blob.data, blob.len, 0, 0, 0, d), LBS_OK, "%s",
                 lbs_errmsg());
    lbs_buf_free(&blob);
    lbs_codec_ctx_destroy(&fresh);
  }
}

Test(codec, an_empty_blob_at_null_is_refused_cleanly) {
  /* what SQLite hands back for a zero-length blob (fuzz_reader found the quant decoder offsetting
   * it) */
  lbs_codec_ctx *c;
  cr_assert_eq(lbs_codec_ctx_create(&c), LBS_OK);
  double out[4];
  for (int k = LBS_CODEC_LOSSLESS; k <= LBS_CODEC_QUANT; k++)
    cr_assert_eq(lbs_codec_decode(c, (lbs_codec)k, NULL, 0, 4, 0, 4, out), LBS_CORRUPT, "codec %d",
                 k);
  lbs_codec_ctx_destroy(&c);
}

/* The quant codec keeps its table exp(K w) across chunks: decoding chunks of different ranges
 * and grid steps in any order on one context, in full and in part, gives bit for bit what a
 * fresh context gives, and so does encoding. */
Test(codec, quant_table_kept_across_chunks_changes_nothing) {
  enum { N = 2048, NB = 4 };
  static double v[NB][N], d[N], f[N];
  uint64_t s = 7;
  for (size_t i = 0; i < N; i++) {
    v[0][i] = 700 * (1 + 0.05 * urand(&s)); /* codes around ln 700 / w */
    v[1][i] = 9e5 * (1 + 0.1 * urand(&s));  /* far above: a table of its own */
    v[2][i] = 650 + 100 * urand(&s);        /* overlapping the first */
    v[3][i] = 1e-3 * (1 + 2 * urand(&s));   /* far below */
  }
  const lbs_bound b[2] = {{LBS_BOUND_REL, 0.005}, {LBS_BOUND_REL, 0.02}}; /* two grid steps */
  lbs_buf blob[NB][2] = {{{0}}}, again = {0};
  lbs_codec_ctx *fresh;
  for (int c = 0; c < NB; c++)
    for (int k = 0; k < 2; k++) {
      lbs_codec u;
      cr_assert_eq(lbs_codec_encode(ctx, LBS_CODEC_QUANT, v[c], N, b[k], &blob[c][k], &u), LBS_OK);
      /* the same blob from a context that never held a table */
      cr_assert_eq(lbs_codec_ctx_create(&fresh), LBS_OK);
      again.len = 0;
      cr_assert_eq(lbs_codec_encode(fresh, LBS_CODEC_QUANT, v[c], N, b[k], &again, &u), LBS_OK);
      lbs_codec_ctx_destroy(&fresh);
      cr_assert(again.len == blob[c][k].len && !memcmp(again.data, blob[c][k].data, again.len),
                "chunk %d bound %d: another blob from a kept table", c, k);
    }
  static const int order[] = {0, 2, 0, 1, 3, 0, 2, 1, 1, 3, 2, 0};
  for (size_t j = 0; j < sizeof order / sizeof *order; j++) {
    int c = order[j], k = (int)(j % 3 == 1);
    /* the whole chunk, then a part too small for a table of its own */
    size_t first[2] = {0, 1001}, count[2] = {N, 40};
    for (int p = 0; p < 2; p++) {
      const lbs_buf *bl = &blob[c][k];
      cr_assert_eq(
          lbs_codec_decode(ctx, LBS_CODEC_QUANT, bl->data, bl->len, N, first[p], count[p], d),
          LBS_OK, "%s", lbs_errmsg());
      cr_assert_eq(lbs_codec_ctx_create(&fresh), LBS_OK);
      cr_assert_eq(
          lbs_codec_decode(fresh, LBS_CODEC_QUANT, bl->data, bl->len, N, first[p], count[p], f),
          LBS_OK);
      lbs_codec_ctx_destroy(&fresh);
      cr_assert_eq(memcmp(d, f, count[p] * sizeof *d), 0, "chunk %d bound %d part %d differs", c, k,
                   p);
    }
  }
  for (int c = 0; c < NB; c++)
    for (int k = 0; k < 2; k++) lbs_buf_free(&blob[c][k]);
  lbs_buf_free(&again);
}

/* The quant decoder takes a byte of two nibble residuals at once, and under previous-code
 * prediction a run of zero bytes at once: under every predictor, parts that start on either
 * nibble of a byte are slices of the full decode, and a blob whose codes leave its declared range
 * (krange halved in the header) is corrupt wherever the part starts, never an out-of-bounds read
 * of the table. */
Test(codec, quant_pairs_slices_and_codes_outside_the_range) {
  enum { N = 4096 };
  static double v[3][N], d[N], p[N];
  uint64_t s = 11;
  double walk = 0;
  for (size_t i = 0; i < N; i++) {
    walk += 0.004 * (urand(&s) - 0.5);
    v[0][i] = 1000 * exp(walk) * (i % 97 < 9 ? 1 : 1.0001); /* smooth: previous code */
    v[1][i] = 1000 * (2 + sin((double)i / 150)) * (1 + 0.03 * urand(&s)); /* noise over a trend */
    v[2][i] = 1000 * (1 + 0.1 * urand(&s)); /* white noise: constant */
  }
  const lbs_bound b = {LBS_BOUND_REL, 0.005};
  for (int c = 0; c < 3; c++) {
    lbs_buf blob = {0}, bad = {0};
    lbs_codec u;
    cr_assert_eq(lbs_codec_encode(ctx, LBS_CODEC_QUANT, v[c], N, b, &blob, &u), LBS_OK);
    cr_assert_eq(blob.data[1] >> 3, c, "series %d: predictor %d", c, blob.data[1] >> 3);
    cr_assert_eq(lbs_codec_decode(ctx, u, blob.data, blob.len, N, 0, N, d), LBS_OK);
    const size_t firsts[] = {1, 2, 3, 777, 2048, N - 1};
    for (size_t f = 0; f < sizeof firsts / sizeof *firsts; f++) {
      size_t a = firsts[f], k = N - a - (f & 1);
      cr_assert_eq(lbs_codec_decode(ctx, u, blob.data, blob.len, N, a, k, p), LBS_OK);
      cr_assert(!memcmp(p, d + a, k * sizeof *p), "series %d: part [%zu, +%zu) differs", c, a, k);
    }
    /* the header's krange, halved in the same number of bytes (varints may be padded) */
    const uint8_t *q = blob.data + ((blob.data[1] & 4) ? 26 : 10), *end = blob.data + blob.len;
    uint64_t x;
    for (int j = 0; j < 3; j++) cr_assert_eq(lbs_varint_get(&q, end, &x), 0); /* n, origin, kmin */
    const uint8_t *kr = q;
    uint64_t krange;
    cr_assert_eq(lbs_varint_get(&q, end, &krange), 0);
    cr_assert(krange >= 4, "series %d: a range of %llu codes", c, (unsigned long long)krange);
    cr_assert_eq(lbs_buf_append(&bad, blob.data, (size_t)(kr - blob.data)), LBS_OK);
    uint64_t half = krange / 2;
    for (const uint8_t *r = kr; r < q; r++, half >>= 7) {
      uint8_t byte = (uint8_t)((half & 0x7f) | (r + 1 < q ? 0x80 : 0));
      cr_assert_eq(lbs_buf_append(&bad, &byte, 1), LBS_OK);
    }
    cr_assert_eq(lbs_buf_append(&bad, q, (size_t)(end - q)), LBS_OK);
    for (size_t f = 0; f < 3; f++) {
      size_t a = firsts[f] - 1;
      cr_assert_eq(lbs_codec_decode(ctx, u, bad.data, bad.len, N, a, N - a, p), LBS_CORRUPT,
                   "series %d from %zu: %s", c, a, lbs_errmsg());
      cr_assert(strstr(lbs_errmsg(), "outside its range"), "%s", lbs_errmsg());
    }
    lbs_buf_free(&blob);
    lbs_buf_free(&bad);
  }
}

/* The header's krange of a quant blob (`at` its varint's offset, *len its length in bytes). */
static uint64_t quant_krange(const lbs_buf *blob, size_t *at, size_t *len) {
  const uint8_t *q = blob->data + ((blob->data[1] & 4) ? 26 : 10), *end = blob->data + blob->len;
  uint64_t x;
  for (int j = 0; j < 3; j++) cr_assert_eq(lbs_varint_get(&q, end, &x), 0); /* n, origin, kmin */
  const uint8_t *kr = q;
  cr_assert_eq(lbs_varint_get(&q, end, &x), 0);
  *at = (size_t)(kr - blob->data), *len = (size_t)(q - kr);
  return x;
}

/* Noisy data with everything the decoder's fast path takes from outside its per-byte tables:
 * escapes to residual bytes, big codes of two and three bytes, values stored exactly (zeros, -0,
 * negatives under a relative bound), runs of equal values (zero bytes) short and long, at the end
 * too. Series p is smooth (previous code), noise over a trend (mean of four) or white noise
 * (constant); under a relative bound the spikes are factors, under an absolute one offsets. */
static void fast_path_series(int p, int rel, double *v, size_t n) {
  uint64_t s = 29 + (uint64_t)p;
  double walk = 0;
  for (size_t i = 0; i < n; i++) {
    walk += 0.004 * (urand(&s) - 0.5);
    v[i] = p == 0   ? 1000 * exp(walk)
           : p == 1 ? 1000 * (2 + sin((double)i / 150)) * (1 + 0.1 * urand(&s))
                    : 1000 * (1 + 0.1 * urand(&s));
    if (p == 0 && (i % 1000 < 300 || i > n - 100)) v[i] = i ? v[i - 1] : v[i]; /* runs */
    if (i % 397 == 5) v[i] = rel ? v[i] * 3 : v[i] + 300;                      /* an escape byte */
    if (i % 613 == 7) v[i] = rel ? v[i] * 30 : v[i] + 3e4;                     /* two bytes */
    if (i == n / 3) v[i] = rel ? v[i] * 1e-40 : v[i] + 1e5;                    /* three bytes */
    if (i % 499 == 11) v[i] = i % 2 ? 0.0 : -0.0;                              /* exact */
    if (i % 733 == 13) v[i] = -v[i];                                           /* exact under rel */
  }
}

/* The quant decoder's fast path (the corrected value of every code from a table, per-byte
 * residual tables, escapes and big codes without leaving it, the runs of zero bytes) gives what
 * the value-by-value path gives, under every predictor and both bound kinds: the full decode and
 * parts starting and ending on either nibble against slices of seven values (too few for the
 * table: the value-by-value path), and a blob whose codes leave its halved krange is corrupt
 * wherever the part starts. */
Test(codec, quant_fast_path_is_the_value_by_value_path) {
  enum { N = 16384, SLICE = 7 };
  static double v[N], d[N], ref[N], p[N];
  for (int rel = 1; rel >= 0; rel--)
    for (int c = 0; c < 3; c++) {
      fast_path_series(c, rel, v, N);
      const lbs_bound b = {rel ? LBS_BOUND_REL : LBS_BOUND_ABS, rel ? 0.005 : 5};
      lbs_buf blob = {0}, bad = {0};
      lbs_codec u;
      cr_assert_eq(lbs_codec_encode(ctx, LBS_CODEC_QUANT, v, N, b, &blob, &u), LBS_OK);
      cr_assert_eq(u, LBS_CODEC_QUANT);
      cr_assert_eq(blob.data[1] >> 3, c, "rel %d series %d: predictor %d", rel, c,
                   blob.data[1] >> 3);
      size_t at, len;
      uint64_t krange = quant_krange(&blob, &at, &len);
      cr_assert(krange + 1 > SLICE && krange + 1 < N, "rel %d series %d: a range of %llu codes",
                rel, c, (unsigned long long)krange);
      cr_assert_eq(lbs_codec_decode(ctx, u, blob.data, blob.len, N, 0, N, d), LBS_OK);
      for (size_t a = 0; a < N; a += SLICE) {
        size_t k = N - a < SLICE ? N - a : SLICE;
        cr_assert_eq(lbs_codec_decode(ctx, u, blob.data, blob.len, N, a, k, ref + a), LBS_OK);
      }
      cr_assert(!memcmp(d, ref, sizeof d), "rel %d series %d: the fast path differs", rel, c);
      for (size_t i = 0; i < N; i++)
        cr_assert(fabs(d[i] - v[i]) <= lbs_bound_tolerance(b, v[i], 0), "element %zu", i);
      const size_t firsts[] = {1, 2, 3, 777, N / 3, N - 99, N - 1};
      for (size_t f = 0; f < sizeof firsts / sizeof *firsts; f++) {
        size_t a = firsts[f], k = N - a - (f & 1);
        cr_assert_eq(lbs_codec_decode(ctx, u, blob.data, blob.len, N, a, k, p), LBS_OK);
        cr_assert(!memcmp(p, d + a, k * sizeof *p), "rel %d series %d: part [%zu, +%zu) differs",
                  rel, c, a, k);
      }
      /* krange halved in the same number of bytes (varints may be padded) */
      cr_assert_eq(lbs_buf_append(&bad, blob.data, blob.len), LBS_OK);
      uint64_t half = krange / 2;
      for (size_t j = 0; j < len; j++, half >>= 7)
        bad.data[at + j] = (uint8_t)((half & 0x7f) | (j + 1 < len ? 0x80 : 0));
      for (size_t f = 0; f < 3; f++) {
        size_t a = firsts[f] - 1;
        cr_assert_eq(lbs_codec_decode(ctx, u, bad.data, bad.len, N, a, N - a, p), LBS_CORRUPT,
                     "rel %d series %d from %zu: %s", rel, c, a, lbs_errmsg());
        cr_assert(strstr(lbs_errmsg(), "outside its range"), "%s", lbs_errmsg());
      }
      lbs_buf_free(&blob);
      lbs_buf_free(&bad);
    }
}
