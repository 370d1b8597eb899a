/* Codec contract: the polyline bound holds on random and adversarial inputs, the greedy
 * segmentation is minimal, eps = 0 / lossless round-trips bit-exactly, a partial decode is
 * the slice of a full decode, damaged blobs give errors and never crashes. */
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

/* Encodes with the polyline codec, checks the bound on a full decode and that random
 * partial decodes equal slices of it. Returns the encoded size. */
static size_t check_bound(const double *v, size_t n, double eps) {
  lbs_buf b = {0};
  lbs_err e = lbs_codec_encode(ctx, LBS_CODEC_POLYLINE, v, n, eps, &b);
  cr_assert_eq(e, LBS_OK, "encode failed: %s", lbs_errmsg());
  double *d = malloc(n * sizeof *d), *p = malloc(n * sizeof *p);
  cr_assert_eq(lbs_codec_decode(ctx, LBS_CODEC_POLYLINE, b.data, b.len, n, 0, n, d), LBS_OK, "%s",
               lbs_errmsg());
  for (size_t i = 0; i < n; i++) {
    if (isfinite(v[i]))
      cr_assert(fabs(d[i] - v[i]) <= eps, "element %zu: |%.17g - %.17g| > %g", i, d[i], v[i], eps);
    else
      cr_assert(!memcmp(&d[i], &v[i], 8), "element %zu: non-finite value changed", i);
  }
  uint64_t s = n;
  for (int r = 0; r < 20 && n > 0; r++) {
    size_t a = (size_t)(urand(&s) * (double)n), c = (size_t)(urand(&s) * (double)(n - a + 1));
    cr_assert_eq(lbs_codec_decode(ctx, LBS_CODEC_POLYLINE, b.data, b.len, n, a, c, p), LBS_OK);
    cr_assert(!memcmp(p, d + a, c * sizeof *p), "partial decode [%zu,+%zu) differs from full", a, c);
  }
  size_t len = b.len;
  free(d);
  free(p);
  lbs_buf_free(&b);
  return len;
}

Test(codec, bound_holds_on_random_inputs) {
  enum { N = 5000 };
  static double v[N];
  double epss[] = {1e-3, 1e-2, 0.1, 0.5, 3.0};
  for (int kind = 0; kind < 8; kind++) {
    uint64_t s = (uint64_t)kind * 100000;
    double walk = 0;
    for (size_t i = 0; i < N; i++) {
      double u = urand(&s);
      switch (kind) {
      case 0: v[i] = u; break;                                         /* white noise */
      case 1: walk += u - 0.5; v[i] = walk; break;                     /* random walk */
      case 2: v[i] = sin((double)i * 0.01) + 0.05 * (u - 0.5); break;  /* smooth + noise */
      case 3: v[i] = (double)((i / 37) % 5) * 10 + 0.001 * u; break;   /* steps */
      case 4: v[i] = 1e9 + 100 * u; break;                             /* large offset */
      case 5: v[i] = u < 0.01 ? 1e6 * u : 0; break;                    /* spikes */
      case 6: v[i] = (double)(i % 2) * 2.0; break;                     /* sawtooth of 2 */
      case 7: v[i] = 1e-310 * (double)(i % 7); break;                  /* denormals */
      }
    }
    for (size_t k = 0; k < sizeof epss / sizeof *epss; k++) check_bound(v, N, epss[k]);
  }
}

Test(codec, bound_holds_on_adversarial_inputs) {
  double v[64];
  double eps = 0.25;
  /* values sitting exactly on the +-eps borders of a line */
  for (int i = 0; i < 64; i++) v[i] = 0.5 * i + (i % 2 ? eps : -eps);
  check_bound(v, 64, eps);
  /* sawtooth of amplitude exactly 2 eps: one segment is feasible only with the exact line */
  for (int i = 0; i < 64; i++) v[i] = i % 2 ? 2 * eps : 0;
  check_bound(v, 64, eps);
  /* convex parabola: every segment short, the least-squares line always infeasible */
  for (int i = 0; i < 64; i++) v[i] = 0.05 * i * i;
  check_bound(v, 64, eps);
  /* tiny inputs */
  check_bound(v, 1, eps);
  check_bound(v, 2, eps);
  check_bound(v, 3, eps);
  check_bound(v, 0, eps);
  /* non-finite values among finite ones */
  for (int i = 0; i < 64; i++) v[i] = i;
  v[0] = NAN;
  v[10] = INFINITY;
  v[11] = -INFINITY;
  v[12] = NAN;
  v[63] = NAN;
  check_bound(v, 64, eps);
  /* huge magnitudes with large eps are fine */
  for (int i = 0; i < 64; i++) v[i] = 1e300 * (1 + 1e-3 * i);
  check_bound(v, 64, 1e298);
}

Test(codec, bound_too_small_is_a_range_error) {
  double v[4] = {1e300, -1e300, 5, 7};
  lbs_buf b = {0};
  cr_assert_eq(lbs_codec_encode(ctx, LBS_CODEC_POLYLINE, v, 4, 1.0, &b), LBS_RANGE);
  cr_assert_eq(lbs_codec_encode(ctx, LBS_CODEC_POLYLINE, v, 4, 0.0, &b), LBS_INVAL);
  lbs_buf_free(&b);
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
          for (size_t k = 0; k < m && ok; k++) ok = fabs(yi + b * ((double)k - (double)i) - y[k]) <= e + tol;
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
    size_t k = lbs__polyline_segments(ctx, v, N, e, ends);
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
  cr_assert_eq(lbs_codec_encode(ctx, LBS_CODEC_POLYLINE, v, N, 0.5, &b), LBS_OK);
  cr_assert_eq(lbs_codec_decode(ctx, LBS_CODEC_POLYLINE, b.data, b.len, N, 0, N, d), LBS_OK);
  for (int i = 0; i < N; i++) cr_assert(fabs(d[i] - (3.0 + 0.002 * i)) <= 0.5 / 8 + 1e-9, "element %d", i);
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
  cr_assert_eq(lbs_codec_encode(ctx, LBS_CODEC_LOSSLESS, v, N, 0, &b), LBS_OK);
  cr_assert_eq(lbs_codec_decode(ctx, LBS_CODEC_LOSSLESS, b.data, b.len, N, 0, N, d), LBS_OK);
  cr_assert(!memcmp(d, v, sizeof d));
  cr_assert_eq(lbs_codec_decode(ctx, LBS_CODEC_LOSSLESS, b.data, b.len, N, 100, 50, d), LBS_OK);
  cr_assert(!memcmp(d, v + 100, 50 * sizeof *d));
  lbs_buf_free(&b);
}

Test(codec, damaged_blobs_are_errors_not_crashes) {
  enum { N = 2000 };
  double v[N], d[N];
  for (int i = 0; i < N; i++) v[i] = sin(i * 0.05) * 100 + (i % 3);
  for (int c = 1; c <= 2; c++) {
    lbs_buf b = {0};
    cr_assert_eq(lbs_codec_encode(ctx, (lbs_codec)c, v, N, c == 2 ? 0.5 : 0, &b), LBS_OK);
    for (size_t len = 0; len < b.len; len++)
      cr_assert_neq(lbs_codec_decode(ctx, (lbs_codec)c, b.data, len, N, 0, N, d), LBS_OK,
                    "codec %d: truncated to %zu of %zu bytes accepted", c, len, b.len);
    for (size_t i = 0; i < b.len * 8; i += 3) { /* single bit flips: any result but a crash */
      b.data[i / 8] ^= (uint8_t)(1u << (i % 8));
      (void)lbs_codec_decode(ctx, (lbs_codec)c, b.data, b.len, N, 0, N, d);
      b.data[i / 8] ^= (uint8_t)(1u << (i % 8));
    }
    cr_assert_eq(lbs_codec_decode(ctx, (lbs_codec)c, b.data, b.len, N + 1, 0, N, d), LBS_CORRUPT,
                 "wrong element count accepted");
    cr_assert_eq(lbs_codec_decode(ctx, (lbs_codec)c, b.data, b.len, N, 10, N, d), LBS_RANGE);
    lbs_buf_free(&b);
  }
  cr_assert_eq(lbs_codec_decode(ctx, (lbs_codec)77, (const uint8_t *)"x", 1, 1, 0, 1, d), LBS_CORRUPT);
}

Test(codec, names) {
  lbs_codec c;
  cr_assert_eq(lbs_codec_from_name("polyline", &c), LBS_OK);
  cr_assert_eq(c, LBS_CODEC_POLYLINE);
  cr_assert_eq(lbs_codec_from_name("gzip", &c), LBS_NOTFOUND);
  cr_assert(strstr(lbs_errmsg(), "polyline, lossless"));
}
