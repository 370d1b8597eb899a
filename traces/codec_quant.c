/* codec_quant.c - error-bounded prediction and quantization for noisy data (the SZ family's
 * approach: Di and Cappello 2016, Liang et al. 2018).
 *
 * When values jitter by more than the bound from one element to the next, a polyline's
 * segments shrink to a few elements. This codec instead maps every value to an integer code
 * K on a grid that meets the bound, and stores the difference to a prediction of K:
 *   - relative bound eps: the grid is geometric, x' = exp(K w) with w = 2 ln(1 + eps'), so
 *     quantizing ln|x| to the nearest multiple of w keeps |x' - x| <= eps' |x| (a value's sign
 *     and zero are kept: zeros and negative values are stored exactly);
 *   - absolute bound eps: x' = K w with w = 2 eps'.
 * eps' is the bound less LBS_CORR_MARGIN and a little slack for rounding; every value is
 * checked with the decoder's arithmetic and stored literally when it would miss.
 *
 * Sums: rounding to the nearest grid point is unbiased over noisy data, but smooth data can
 * put many values at the same offset from the grid. The chunk-wide correction
 * (lbs__corr_find: a factor for relative bounds, an offset for absolute ones) removes what is
 * left of the chunk's sum error. When it cannot (values biased in different directions), the
 * chunk is coded again on finer grids (half-bins of 0.9, 0.8, 0.7, then 0.5 of the tolerance),
 * where a value often has two codes within its bound: the one that brings the running sum error
 * closer to zero is taken (error feedback), so the final correction is tiny.
 *
 * Prediction, chosen per chunk by the entropy of the residuals it leaves: the previous code
 * (1-D Lorenzo: smooth data), the mean of the previous four (noise over a slow trend), or a
 * constant, the chunk's mean code (white noise). The history starts at that constant.
 *
 * Codes: most residuals are small, so each value takes a nibble, 0..14 a code itself and 15 an
 * escape to a byte in the escape stream (two values a byte help zstd's order-0 Huffman stage,
 * which cannot spend less than a bit on a byte). The codes of a byte, zstd does the entropy
 * coding:
 *   0..249  zigzag(K - prediction)
 *   250     zigzag(K - prediction) as a varint in the big-code stream
 *   251/252 +0.0 / -0.0, exact
 *   253     a literal double (negative or a spike under a relative bound, non-finite, or a
 *           value whose code would miss the bound), exact, from the literal stream
 * Exact values take no correction and leave the history as it is, so a preempted element's spike
 * costs one literal and does not disturb its neighbours' codes.
 *
 * Blob: [u8 version=1][u8 flags: bit0 zstd, bit1 log domain, bit2 correction, bits 3-4
 * predictor][f64 w]([f64 mul][f64 add] with bit2)[varint n][zigzag varint origin]
 * [zigzag varint kmin][varint krange][varint nesc][varint nbig][varint nlit][payload:
 * (n + 1) / 2 bytes of nibbles (low first), nesc escape bytes, nbig bytes of varints, nlit
 * doubles], the payload zstd-compressed with bit0. Decoding walks the codes from the chunk's start
 * (a chunk is the unit of partial decoding); a table of exp(K w) over [kmin, kmin + krange]
 * replaces exp() when the range is smaller than the elements decoded, and then so does a table of
 * every code's corrected value, which the bytes of two residuals index through per-byte tables of
 * their residuals (value_table, pairs()). */
#include "codec_int.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#define QUANT_VERSION 1
#define QUANT_ZSTD_LEVEL 3
#define C_BIG 250
#define C_ZERO 251
#define C_NZERO 252
#define C_LIT 253
/* Slack on the half-width for rounding in log, exp and the division (checked anyway). */
#define QUANT_SLACK (1.0 - 0x1p-20)

typedef struct {
  int log;           /* log domain (relative tolerance) */
  double w;          /* bin width */
  lbs__tol chk;      /* the tolerance each raw value must meet (before the correction) */
  const double *tab; /* exp(K w) for K in [kmin, kmin + ntab) when not NULL */
  int64_t kmin, ntab;
} grid;

/* The decoder's value for code K. */
static inline double grid_value(const grid *g, int64_t k) {
  if (g->tab && k >= g->kmin && k - g->kmin < g->ntab) return g->tab[k - g->kmin];
  return g->log ? exp((double)k * g->w) : (double)k * g->w;
}

/* ln(x) for x > 0 to about 1e-7 (a rational approximation of the mantissa's log): only to
 * find the two codes around a value, which are then checked exactly. */
static inline double fast_log(double x) {
  uint64_t b;
  memcpy(&b, &x, 8);
  int e = (int)((b >> 52) & 0x7ff);
  if (e == 0) return log(x); /* subnormal */
  e -= 1022;
  b = (b & ~(UINT64_C(0x7ff) << 52)) | (UINT64_C(1022) << 52); /* x = m 2^e, m in [0.5, 1) */
  double m;
  memcpy(&m, &b, 8);
  if (m < 0.70710678118654752) m *= 2, e -= 1;
  double t = (m - 1) / (m + 1), t2 = t * t; /* ln m = 2 atanh t, |t| < 0.172 */
  return 2 * t * (1 + t2 * (1.0 / 3 + t2 * (1.0 / 5 + t2 * (1.0 / 7)))) +
         (double)e * 0.69314718055994531;
}

/* The reconstruction table exp(k w) for k in [kmin, kmax]: a pointer p with p[k - kmin] for each,
 * valid until the next call on ctx; NULL when out of memory. Every chunk of a trace's metric has
 * the same grid step w and, on most data, codes in the same range, so the table is kept across
 * chunks (of the encoder and the decoder alike) and only codes not yet in it cost an exp(); each
 * entry is exp((double)k * w), as grid_value computes it, bit for bit. */
#define TAB_KEEP_MAX (1 << 16) /* entries kept across chunks at most */
static const double *exp_table(lbs_codec_ctx *ctx, double w, int64_t kmin, int64_t kmax) {
  /* inclusive ranges throughout: kmax may be INT64_MAX in a damaged blob */
  int64_t k0 = ctx->tab_k0, k1 = k0 + (int64_t)ctx->tab_n - 1; /* what the table holds */
  int same = ctx->tab_n && ctx->tab_w == w;
  if (same && kmin >= k0 && kmax <= k1) return ctx->tab + ((uint64_t)kmin - (uint64_t)k0);
  /* the union of the two ranges when it stays small, else this chunk's alone */
  int64_t lo = kmin, hi = kmax;
  if (same) {
    int64_t ulo = k0 < lo ? k0 : lo, uhi = k1 > hi ? k1 : hi;
    if ((uint64_t)uhi - (uint64_t)ulo < TAB_KEEP_MAX)
      lo = ulo, hi = uhi;
    else
      same = 0;
  }
  size_t n = (size_t)((uint64_t)hi - (uint64_t)lo) + 1;
  double *t = malloc(n * sizeof *t);
  if (!t) return NULL;
  for (size_t j = 0; j < n; j++) {
    int64_t k = (int64_t)((uint64_t)lo + j);
    t[j] = same && k >= k0 && k <= k1 ? ctx->tab[k - k0] : exp((double)k * w);
  }
  free(ctx->tab);
  ctx->tab = t, ctx->tab_n = n, ctx->tab_w = w, ctx->tab_k0 = lo;
  return t + ((uint64_t)kmin - (uint64_t)lo);
}

/* What the encoder's last pass over the codes found, so that emit() need not pass again: the
 * range of the codes, the values stored literally, and the sum of the codes (in element order,
 * the predictor's origin). */
typedef struct {
  int64_t kmin, kmax; /* of the codes not stored exactly (INT64_MAX, INT64_MIN: none) */
  size_t nlit, nq;    /* values stored as literals (exact and not zero); values coded */
  double ksum;        /* sum of the codes */
  lbs__corr_sums cs;  /* the sums lbs__corr_find_sums takes */
} codes;

/* The codes, steering the running sum error: the two codes around a value first, the ones
 * beyond them when rounding put both out of its tolerance. tabbed is a constant where this is
 * inlined: with the table every code looked at is in it (choose() made it cover k - 1 .. k + 2),
 * so a code's value is one load. The same pass takes the sums of the chunk-sum correction. */
static inline __attribute__((always_inline)) void steer(lbs_codec_ctx *ctx, const grid *g,
                                                        const double *v, size_t n, int tabbed,
                                                        codes *st) {
  const double *tab = g->tab;
  const int64_t tk = g->kmin;
  int64_t *kk = ctx->k;
  double *yy = ctx->y;
  uint8_t *ex = ctx->exact;
  int64_t kmin = INT64_MAX, kmax = INT64_MIN;
  size_t nlit = 0, nq = 0;
  double carry = 0, ksum = 0, sx = 0, sy = 0, d = 0, sq = 0, sqx = 0;
  for (size_t i = 0; i < n; i++) {
    double x = v[i];
    if (ex[i]) {
      yy[i] = x; /* here, not in the position pass: a copy of every value there cost a pass */
      nlit += x != 0;
      if (isfinite(x)) sx += x, sy += x; /* y = x */
      continue;
    }
    double tol = lbs__tol_of(g->chk, x);
    int64_t k0 = kk[i], bk;
    double y0 = tabbed ? tab[k0 - tk] : grid_value(g, k0),
           y1 = tabbed ? tab[k0 + 1 - tk] : grid_value(g, k0 + 1), by;
    int ok0 = fabs(y0 - x) <= tol, ok1 = fabs(y1 - x) <= tol;
    if (ok0 && ok1) {
      int one = fabs(carry + (y1 - x)) < fabs(carry + (y0 - x));
      bk = k0 + one, by = one ? y1 : y0;
    } else if (ok0 || ok1) {
      bk = k0 + ok1, by = ok1 ? y1 : y0;
    } else {
      double ym = tabbed ? tab[k0 - 1 - tk] : grid_value(g, k0 - 1),
             yp = tabbed ? tab[k0 + 2 - tk] : grid_value(g, k0 + 2);
      if (fabs(ym - x) <= tol)
        bk = k0 - 1, by = ym;
      else if (fabs(yp - x) <= tol)
        bk = k0 + 2, by = yp;
      else {
        ex[i] = 1, yy[i] = x;
        nlit += x != 0;
        sx += x, sy += x; /* coded values are finite */
        continue;
      }
    }
    kk[i] = bk;
    yy[i] = by;
    carry += by - x;
    kmin = bk < kmin ? bk : kmin;
    kmax = bk > kmax ? bk : kmax;
    ksum += (double)bk;
    nq++;
    sx += x, sy += by, d += x - by, sq += by, sqx += x;
  }
  /* sa, the sum of |v| over the finite values in element order, is choose()'s */
  *st = (codes){kmin, kmax, nlit, nq, ksum, {sx, sy, 0, d, sq, sqx, nq}};
}

/* The code below each value (ctx->k; ctx->exact = 0) and the range of those codes, widened by
 * the candidates steer() looks at (k - 1 .. k + 2); values stored exactly get ctx->exact = 1
 * (steer() then sets their ctx->y). position_log is the common case, a relative bound whose
 * bins fast_log can place (w > 3e-7, so |u| = |ln x / w| < 2^32). Where the CPU has AVX2 (asked
 * at run time) its loop is position_log_vec, one the compiler vectorises: every value goes
 * through the same arithmetic, bit for bit fast_log's and the floor's, with no branch and no
 * conversion between doubles and integers (AVX2 has none for 64-bit lanes):
 *  - the exponent's integer e is the double 2^52 + e less 2^52 (its bits are those of 2^52 with
 *    e or'ed in), exact, so (double)e as fast_log has it;
 *  - floor(u) for |u| < 2^51: u + 1.5 2^52 rounds u to the nearest integer in the low bits of
 *    the sum (integer subtraction of 1.5 2^52's bits gives it as an int64), less 1 where that
 *    is above u;
 *  - the range of the codes from selects by mask (values not coded give INT64_MAX / MIN);
 *  - values that are not coded (exact) take x = 1 through the arithmetic (a code nobody reads),
 *    and positive subnormals, where fast_log takes log(), are placed after the loop. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__)
#define LBS_ENCODE_AVX2 1
__attribute__((target("avx2"))) static size_t position_log_vec(int64_t *restrict kk,
                                                               uint8_t *restrict ex, double w,
                                                               const double *restrict v, size_t n,
                                                               double spike, int64_t *kminp,
                                                               int64_t *kmaxp) {
  const uint64_t two52 = UINT64_C(0x4330000000000000), magic = UINT64_C(0x4338000000000000);
  int64_t kmin = *kminp, kmax = *kmaxp;
  size_t nsub = 0;
  for (size_t i = 0; i < n; i++) {
    double x = v[i];
    /* finite, > 0 and not a spike (spike may be infinite, never NaN) */
    int pos = (x > 0) & (x <= spike) & (x <= DBL_MAX), ok = pos & (x >= DBL_MIN);
    nsub += (size_t)(pos & !ok);
    ex[i] = (uint8_t)!ok;
    /* selects as bit masks: a branch the compiler could thread (x = 1 folds) is none */
    uint64_t b, one = UINT64_C(0x3ff0000000000000), okm = -(uint64_t)ok;
    memcpy(&b, &x, 8);
    b = (b & okm) | (one & ~okm);
    uint64_t mb = (b & ~(UINT64_C(0x7ff) << 52)) | (UINT64_C(1022) << 52);
    double m, ed, r;
    memcpy(&m, &mb, 8);
    uint64_t lo = m < 0.70710678118654752; /* then m 2 and e - 1, exact, as fast_log has them */
    mb += lo << 52;
    memcpy(&m, &mb, 8);
    uint64_t eb = ((b >> 52) - lo) | two52; /* x = m 2^(e - 1022), e the biased exponent */
    memcpy(&ed, &eb, 8);
    ed = (ed - 0x1p52) - 1022;
    double t = (m - 1) / (m + 1), t2 = t * t;
    double u = (2 * t * (1 + t2 * (1.0 / 3 + t2 * (1.0 / 5 + t2 * (1.0 / 7)))) +
                ed * 0.69314718055994531) /
               w;
    r = u + 0x1.8p52; /* u rounded in the low bits */
    uint64_t rb, gt;
    memcpy(&rb, &r, 8);
    gt = (r - 0x1.8p52) > u; /* then floor(u) is one less */
    rb -= gt;
    int64_t k = (int64_t)(rb - magic);
    kk[i] = k;
    int64_t lo1 = (int64_t)(((uint64_t)(k - 1) & okm) | ((uint64_t)INT64_MAX & ~okm));
    int64_t hi1 = (int64_t)(((uint64_t)(k + 2) & okm) | ((uint64_t)INT64_MIN & ~okm));
    kmin = lo1 < kmin ? lo1 : kmin;
    kmax = hi1 > kmax ? hi1 : kmax;
  }
  *kminp = kmin, *kmaxp = kmax;
  return nsub;
}

#endif

/* position_log's loop as it was before the vectorised one, value by value: where the CPU has no
 * AVX2, SSE2's lanes (two, no 64-bit compare for the range) made the vectorised loop cost more
 * instructions than this one. The same codes. */
static size_t position_log_scalar(int64_t *kk, uint8_t *ex, double w, const double *v, size_t n,
                                  double spike, int64_t *kminp, int64_t *kmaxp) {
  int64_t kmin = *kminp, kmax = *kmaxp;
  for (size_t i = 0; i < n; i++) {
    double x = v[i];
    /* finite, > 0 and not a spike (spike may be infinite, never NaN) */
    int ok = x > 0 && x <= spike && x <= DBL_MAX;
    ex[i] = !ok;
    if (!ok) continue;
    double u = fast_log(x) / w;
    int64_t k0 = (int64_t)u; /* floor */
    int64_t k = k0 - ((double)k0 > u);
    kk[i] = k;
    kmin = k - 1 < kmin ? k - 1 : kmin;
    kmax = k + 2 > kmax ? k + 2 : kmax;
  }
  *kminp = kmin, *kmaxp = kmax;
  return 0;
}

static void position_log(lbs_codec_ctx *ctx, double w, const double *v, size_t n, double spike,
                         int64_t *kminp, int64_t *kmaxp) {
  int64_t *kk = ctx->k, kmin = *kminp, kmax = *kmaxp;
  uint8_t *ex = ctx->exact;
#ifdef LBS_ENCODE_AVX2
  size_t nsub = __builtin_cpu_supports("avx2")
                    ? position_log_vec(kk, ex, w, v, n, spike, &kmin, &kmax)
                    : position_log_scalar(kk, ex, w, v, n, spike, &kmin, &kmax);
#else
  size_t nsub = position_log_scalar(kk, ex, w, v, n, spike, &kmin, &kmax);
#endif
  for (size_t i = 0; i < n && nsub; i++) { /* positive subnormals: fast_log's log() */
    double x = v[i];
    if (!(x > 0 && x < DBL_MIN && x <= spike)) continue;
    nsub--;
    double u = fast_log(x) / w;
    int64_t k0 = (int64_t)u; /* floor */
    int64_t k = k0 - ((double)k0 > u);
    kk[i] = k, ex[i] = 0;
    kmin = k - 1 < kmin ? k - 1 : kmin;
    kmax = k + 2 > kmax ? k + 2 : kmax;
  }
  *kminp = kmin, *kmaxp = kmax;
}

static void position_any(lbs_codec_ctx *ctx, const grid *g, const double *v, size_t n, double spike,
                         int64_t *kminp, int64_t *kmaxp) {
  int64_t kmin = *kminp, kmax = *kmaxp;
  for (size_t i = 0; i < n; i++) {
    double x = v[i];
    ctx->exact[i] = 1;
    if (!isfinite(x) || x == 0 || (g->log && (x < 0 || x > spike))) continue;
    /* fast_log is good to ~3e-8 in ln x: a tenth of a bin down to w = 3e-7 */
    double u = g->log ? (g->w > 3e-7 ? fast_log(x) : log(x)) / g->w : x / g->w;
    if (!(fabs(u) < 0x1p52)) continue;
    int64_t k0 = (int64_t)u; /* floor: |u| < 2^52 */
    ctx->k[i] = k0 - ((double)k0 > u);
    ctx->exact[i] = 0;
    if (ctx->k[i] - 1 < kmin) kmin = ctx->k[i] - 1;
    if (ctx->k[i] + 2 > kmax) kmax = ctx->k[i] + 2;
  }
  *kminp = kmin, *kmaxp = kmax;
}

/* Chooses every value's code: ctx->k (codes), ctx->y (the decoder's values before the
 * correction) and ctx->exact (1 for values stored exactly), and what emit() needs of them in
 * *st. Every code within the check tolerance of its value is allowed; among them the one that
 * brings the running sum error closest to zero is taken, so the chunk's sum error stays small
 * wherever the grid leaves a choice (bins narrower than twice the tolerance); with bins exactly
 * twice the tolerance this is rounding to the nearest code. Under a relative bound a value
 * above SPIKE times the chunk's mean magnitude is stored exactly: its error alone could
 * outweigh the chunk's sum correction, and the replay's part holding it would inherit it. */
#define SPIKE 64
LBS_CLONES
static lbs_err choose(lbs_codec_ctx *ctx, grid *g, const double *v, size_t n, codes *st) {
  double mean = 0;
  size_t nf = 0;
  for (size_t i = 0; i < n; i++)
    if (isfinite(v[i])) mean += fabs(v[i]), nf++;
  double spike = g->log && nf ? SPIKE * (mean / (double)nf) : INFINITY;
  /* first the position of every value on the grid, and the range of codes */
  int64_t kmin = INT64_MAX, kmax = INT64_MIN;
  if (g->log && g->w > 3e-7)
    position_log(ctx, g->w, v, n, spike, &kmin, &kmax);
  else
    position_any(ctx, g, v, n, spike, &kmin, &kmax);
  g->tab = NULL;
  if (g->log && kmin <= kmax && (uint64_t)(kmax - kmin) < n + 64) {
    if (!(g->tab = exp_table(ctx, g->w, kmin, kmax))) return lbs_fail(LBS_NOMEM, "quant table");
    g->kmin = kmin, g->ntab = kmax - kmin + 1;
  }
  if (g->tab)
    steer(ctx, g, v, n, 1, st);
  else
    steer(ctx, g, v, n, 0, st);
  st->cs.sa = mean; /* the sum steer() would take again, the same bit for bit */
  return LBS_OK;
}

enum { P_PREV = 0, P_AVG4 = 1, P_CONST = 2, NPRED = 3 };

/* The prediction of the next code from the history h (h[0] the latest). */
static inline int64_t predict(int kind, const int64_t h[4], int64_t origin) {
  switch (kind) {
  case P_PREV: return h[0];
  case P_AVG4: { /* floor of the mean, without overflow for codes far from zero */
    int64_t q = (h[0] >> 2) + (h[1] >> 2) + (h[2] >> 2) + (h[3] >> 2);
    return q + (((h[0] & 3) + (h[1] & 3) + (h[2] & 3) + (h[3] & 3)) >> 2);
  }
  default: return origin;
  }
}

static inline void push(int64_t h[4], int64_t k) {
  h[3] = h[2], h[2] = h[1], h[1] = h[0], h[0] = k;
}

/* The predictor whose residuals have the least entropy, estimated on every fourth value whose
 * four predecessors are coded (residuals clipped to +-64), and the origin: the mean code. */
static int pick_predictor(const lbs_codec_ctx *ctx, size_t n, const codes *st, int64_t *origin) {
  *origin = st->nq ? (int64_t)llround(st->ksum / (double)st->nq) : 0;
  uint32_t hist[NPRED][129];
  memset(hist, 0, sizeof hist);
  uint32_t ns = 0;
  const int64_t *k = ctx->k;
  const uint8_t *x = ctx->exact;
  for (size_t i = 4; i < n; i += 4) {
    if (x[i] | x[i - 1] | x[i - 2] | x[i - 3] | x[i - 4]) continue;
    /* the three predictions, the mean of four as the floor of the plain sum over 4 (what
     * predict() computes without overflow: the codes here are below 2^53 in magnitude) */
    int64_t r[NPRED] = {k[i] - k[i - 1], k[i] - ((k[i - 1] + k[i - 2] + k[i - 3] + k[i - 4]) >> 2),
                        k[i] - *origin};
    for (int p = 0; p < NPRED; p++) hist[p][r[p] < -64 ? 0 : r[p] > 64 ? 128 : r[p] + 64]++;
    ns++;
  }
  if (ns < 16) return P_PREV;
  int best = P_PREV;
  double bestbits = INFINITY;
  for (int p = 0; p < NPRED; p++) {
    double bits = 0;
    for (int b = 0; b < 129; b++)
      if (hist[p][b]) bits -= (double)hist[p][b] * log2((double)hist[p][b] / (double)ns);
    bits += (double)(hist[p][0] + hist[p][128]) * 8; /* big codes */
    if (bits < bestbits) bestbits = bits, best = p;
  }
  return best;
}

/* What nibbles() keeps as it goes: the history (under mean-of-four prediction relative to
 * kmin, with its sum, when rel), the escapes written and the big codes' stream. */
typedef struct {
  int64_t hist[4], origin, kmin;
  uint64_t r[4], sum; /* rel: the history less kmin (each in [0, 2^61)) and their sum */
  int rel;
  uint8_t *esc;
  size_t nesc;
  lbs_buf *big;
} nibst;

/* The nibble of value i (15 for an escape, written to the escape stream). Under mean-of-four
 * prediction with rel the prediction is kmin + the sum of the history less kmin over 4: the
 * floor of the mean as predict() computes it, without its eight shifts and masks a value. */
static inline __attribute__((always_inline)) unsigned nibble_of(nibst *s, const int64_t *k,
                                                                const uint8_t *ex, const double *v,
                                                                size_t i, int pred, lbs_err *e) {
  unsigned code;
  if (ex[i]) {
    code = v[i] != 0 ? C_LIT : signbit(v[i]) ? C_NZERO : C_ZERO;
  } else {
    int64_t p = pred == P_AVG4 && s->rel ? (int64_t)((uint64_t)s->kmin + (s->sum >> 2))
                                         : predict(pred, s->hist, s->origin);
    uint64_t z = lbs_zigzag(k[i] - p);
    if (pred == P_PREV)
      s->hist[0] = k[i];
    else if (pred == P_AVG4 && s->rel) {
      uint64_t r = (uint64_t)k[i] - (uint64_t)s->kmin;
      s->sum += r - s->r[3];
      s->r[3] = s->r[2], s->r[2] = s->r[1], s->r[1] = s->r[0], s->r[0] = r;
    } else if (pred == P_AVG4)
      push(s->hist, k[i]);
    code = z < C_BIG ? (unsigned)z : C_BIG;
    if (z >= C_BIG && !*e) *e = lbs__put_varint(s->big, z);
  }
  if (code >= 15) s->esc[s->nesc++] = (uint8_t)code, code = 15;
  return code;
}

/* The nibbles and escapes of the codes under predictor pred (a constant where this is inlined,
 * so each predictor gets its own loop), a whole byte of two at a time; big codes go to *big.
 * kmin, kmax: the range of the codes. Returns the escapes written. */
static inline __attribute__((always_inline)) size_t nibbles(
    const lbs_codec_ctx *ctx, const double *v, size_t n, int pred, int64_t origin, int64_t kmin,
    int64_t kmax, uint8_t *nib, uint8_t *esc, lbs_buf *big, lbs_err *e) {
  nibst s = {{origin, origin, origin, origin}, origin, kmin, {0}, 0, 0, esc, 0, big};
  /* the origin (the mean code) lies in the range but for a rounded sum of codes near 2^53 */
  s.rel = origin >= kmin && origin <= kmax && (uint64_t)kmax - (uint64_t)kmin < (UINT64_C(1) << 61);
  for (int j = 0; j < 4; j++) s.r[j] = (uint64_t)origin - (uint64_t)kmin;
  s.sum = 4 * s.r[0];
  const int64_t *k = ctx->k;
  const uint8_t *ex = ctx->exact;
  size_t i = 0;
  for (; i + 1 < n && !*e; i += 2) {
    unsigned lo = nibble_of(&s, k, ex, v, i, pred, e);
    nib[i >> 1] = (uint8_t)(lo | nibble_of(&s, k, ex, v, i + 1, pred, e) << 4);
  }
  if (i < n && !*e) nib[i >> 1] = (uint8_t)nibble_of(&s, k, ex, v, i, pred, e);
  return s.nesc;
}

/* Writes the blob for the codes chosen in ctx (st: what choose() found of them). */
static lbs_err emit(lbs_codec_ctx *ctx, const grid *g, const double *v, size_t n, lbs__corr corr,
                    const codes *st, lbs_buf *out) {
  int64_t kmin = st->kmin, kmax = st->kmax;
  size_t nlit = st->nlit;
  if (kmin > kmax) kmin = kmax = 0;
  /* payload: nibbles, escapes, big codes, literals (the escapes first go after the nibbles'
   * room, then move down) */
  lbs_buf *pl = &ctx->scratch2, big = {0};
  pl->len = 0;
  size_t nn = (n + 1) / 2, nesc = 0;
  lbs_err e = lbs_buf_reserve(pl, nn + n + nlit * 8 + 1);
  if (e) return e;
  int64_t origin;
  int pred = pick_predictor(ctx, n, st, &origin);
  uint8_t *nib = pl->data, *esc = pl->data + nn;
  if (pred == P_PREV)
    nesc = nibbles(ctx, v, n, P_PREV, origin, kmin, kmax, nib, esc, &big, &e);
  else if (pred == P_AVG4)
    nesc = nibbles(ctx, v, n, P_AVG4, origin, kmin, kmax, nib, esc, &big, &e);
  else
    nesc = nibbles(ctx, v, n, P_CONST, origin, kmin, kmax, nib, esc, &big, &e);
  if (!e) pl->len = nn + nesc;
  if (!e && big.len) e = lbs_buf_append(pl, big.data, big.len);
  for (size_t i = 0; i < n && nlit && !e; i++)
    if (ctx->exact[i] && v[i] != 0) e = lbs_buf_append(pl, &v[i], 8);
  lbs_buf_free(&big);
  if (e) return e;
  size_t nbig = pl->len - nn - nesc - nlit * 8;
  uint8_t hdr[26 + 7 * 10];
  size_t h =
      lbs__head_put(hdr, QUANT_VERSION, (uint8_t)(1 | (g->log << 1) | (pred << 3)), g->w, corr, 4);
  h += lbs_varint_put(hdr + h, n);
  h += lbs_varint_put(hdr + h, lbs_zigzag(origin));
  h += lbs_varint_put(hdr + h, lbs_zigzag(kmin));
  h += lbs_varint_put(hdr + h, (uint64_t)(kmax - kmin));
  h += lbs_varint_put(hdr + h, nesc);
  h += lbs_varint_put(hdr + h, nbig);
  h += lbs_varint_put(hdr + h, nlit);
  return lbs__emit_blob(ctx, hdr, h, pl, QUANT_ZSTD_LEVEL, 0, out);
}

static lbs_err encode(lbs_codec_ctx *ctx, const double *v, size_t n, lbs__tol t, lbs_buf *out) {
  if (!(t.a >= 0 && t.r >= 0 && (t.a > 0) != (t.r > 0) && isfinite(t.a + t.r)))
    return lbs_fail(LBS_INVAL,
                    "quant codec needs one finite error bound > 0, absolute or relative");
  lbs_err e = lbs__codec_reserve(ctx, n);
  if (e) return e;
  lbs__tol chk = {t.a * (1 - LBS_CORR_MARGIN), t.r * (1 - LBS_CORR_MARGIN)};
  /* half-bins of 1 down to 1/2 of the tolerance: the first that keeps the chunk's sum wins */
  static const double half[] = {1.0, 0.9, 0.8, 0.7, 0.5};
  for (size_t h = 0; h < sizeof half / sizeof *half; h++) {
    double f = half[h] * QUANT_SLACK;
    grid g = {t.r > 0, t.r > 0 ? 2 * log1p(chk.r * f) : 2 * chk.a * f, chk, NULL, 0, 0};
    if (!(g.w > 0) || !isfinite(g.w))
      return lbs_fail(LBS_RANGE, "the bound gives the quant codec no usable grid");
    codes st;
    if ((e = choose(ctx, &g, v, n, &st))) return e;
    lbs__corr corr;
    if (lbs__corr_find_sums(ctx, v, n, t, &st.cs, &corr) == LBS_OK)
      return emit(ctx, &g, v, n, corr, &st, out);
  }
  return lbs_fail(LBS_RANGE, "quant codec: no code keeps the chunk's sum");
}

static lbs_err get(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  return lbs_varint_get(p, end, v) ? lbs_fail(LBS_CORRUPT, "quant chunk: truncated header")
                                   : LBS_OK;
}

/* A decoder's state: the streams, the grid, the correction and the history. */
typedef struct {
  const uint8_t *nib, *ep, *eend, *bp, *bend, *lit, *lend;
  const double *tab; /* exp(K w) from kmin, or NULL */
  const double *val; /* the corrected value of code kmin + j at j, or NULL (see value_table) */
  grid g;
  double mul, add;
  int64_t kmin, kmax, origin;
  int64_t h[4];
} qdec;

/* a nibble's residual: nibbles 0..14 are zigzag codes of -7..7 (15 is an escape) */
static const int8_t unz[15] = {0, -1, 1, -2, 2, -3, 3, -4, 4, -5, 5, -6, 6, -7, 7};

/* The residuals of a byte's two nibbles, a table entry a byte, for the fast path: the low
 * nibble's (rlo), the high one's (rhi) and their sum (psum: previous-code prediction adds both to
 * one code), so that a byte costs a load where picking its nibbles apart cost shifts and masks. A
 * byte with an escape has ESC in all three: added to a code relative to kmin (below 2^30 on the
 * fast path) it wraps far above the range, so the range check alone finds the bytes the tables
 * leave to the slower code. */
#define UNZ(c) (((c) >> 1) ^ -((c)&1))
#define HAS_ESC(b) (((b)&15) == 15 || (b) >> 4 == 15)
#define ESC INT32_MIN
#define RLO(b) (HAS_ESC(b) ? ESC : UNZ((b)&15))
#define RHI(b) (HAS_ESC(b) ? ESC : UNZ((b) >> 4))
#define B4(f, b) f(b), f((b) + 1), f((b) + 2), f((b) + 3)
#define B16(f, b) B4(f, b), B4(f, (b) + 4), B4(f, (b) + 8), B4(f, (b) + 12)
#define B64(f, b) B16(f, b), B16(f, (b) + 16), B16(f, (b) + 32), B16(f, (b) + 48)
#define B256(f) B64(f, 0), B64(f, 64), B64(f, 128), B64(f, 192)
#define PSUM(b) (HAS_ESC(b) ? ESC : UNZ((b)&15) + UNZ((b) >> 4))
static const int32_t rlo[256] = {B256(RLO)}, rhi[256] = {B256(RHI)};
static const int32_t psum[256] = {B256(PSUM)};
#define FAST_SPAN_MAX (UINT64_C(1) << 30) /* the largest krange the fast path takes */

/* The 15 values a nibble can give under constant prediction; cok[c] = 0 for a code outside
 * the range (and for the escape, never set). */
static void const_values(const qdec *d, double *cv, uint8_t *cok) {
  const uint64_t span = (uint64_t)d->kmax - (uint64_t)d->kmin;
  for (unsigned c = 0; c < 15; c++) {
    int64_t k = (int64_t)((uint64_t)d->origin + (uint64_t)(int64_t)unz[c]);
    if ((uint64_t)k - (uint64_t)d->kmin > span) continue;
    double x = d->tab     ? d->tab[k - d->kmin]
               : d->g.log ? exp((double)k * d->g.w)
                          : (double)k * d->g.w;
    cv[c] = x * d->mul + d->add;
    cok[c] = 1;
  }
}

/* An escape above C_BIG: a value written whole (0, -0, or an 8-byte literal) into *x. */
static lbs_err escaped_value(qdec *d, unsigned c, double *x) {
  if (c == C_ZERO)
    *x = 0.0;
  else if (c == C_NZERO)
    *x = -0.0;
  else if (c == C_LIT) {
    if (d->lend - d->lit < 8) return lbs_fail(LBS_CORRUPT, "quant chunk: literals truncated");
    memcpy(x, d->lit, 8);
    d->lit += 8;
  } else
    return lbs_fail(LBS_CORRUPT, "quant chunk: bad code %u", c);
  return LBS_OK;
}

/* A code's value before the correction: from the table when there is one. */
static inline double code_value(const double *tab, int lg, double w, int64_t kmin, int64_t k) {
  return tab ? tab[k - kmin] : lg ? exp((double)k * w) : (double)k * w;
}

/* The corrected value of each code kmin + j of a chunk at [j], j <= krange, in ctx->val (valid
 * until the next chunk): the fast path's values, a load each where the value-by-value path takes
 * a table load (or an exp()) and the correction's multiply and add; computed as that path
 * computes them, bit for bit. NULL when out of memory. */
static const double *value_table(lbs_codec_ctx *ctx, const double *tab, const grid *g, double mul,
                                 double add, int64_t kmin, uint64_t krange) {
  size_t n = (size_t)krange + 1;
  if (ctx->val_n < n) {
    double *v = realloc(ctx->val, n * sizeof *v);
    if (!v) return NULL;
    ctx->val = v, ctx->val_n = n;
  }
  double *v = ctx->val;
  for (size_t j = 0; j < n; j++)
    v[j] = code_value(tab, g->log, g->w, kmin, (int64_t)((uint64_t)kmin + j)) * mul + add;
  return v;
}

/* What run() keeps in locals (out's stores cannot then make the compiler reload them). */
typedef struct {
  const uint8_t *nib;
  const double *tab;
  const double *val; /* value_table's, or NULL: then only constant prediction has a fast path */
  double mul, add, w;
  int lg;
  int64_t kmin, origin;
  uint64_t span; /* kmax - kmin: codes outside are a damaged blob */
} qloc;

/* The residuals of byte b's two nibbles when the fast path's tables have none (an escape), the
 * escapes read from d->ep and big codes from d->bp, both advanced: 1 when both are residuals (a
 * nibble's, an escape byte's below C_BIG, or a big code's), 0 when one is a value stored exactly
 * or a stream is short (nothing then is consumed: the value-by-value path takes the byte, and
 * reports what is wrong). Noisy data escapes a few values in a hundred, most of them to big
 * codes of two bytes, and leaving the fast path for each cost more than the rest of their bytes
 * together. */
static inline __attribute__((always_inline)) int esc_residuals(qdec *d, unsigned b, uint64_t r[2]) {
  const uint8_t *e = d->ep, *g = d->bp;
  uint64_t z[2] = {b & 15, b >> 4};
  for (int j = 0; j < 2; j++) {
    if (z[j] < 15) continue;
    if (e == d->eend || *e > C_BIG) return 0;
    if ((z[j] = *e++) < C_BIG) continue;
    if (d->bend - g >= 2 && g[0] >= 0x80 && g[1] < 0x80) /* the common varint, inline */
      z[j] = (g[0] & 0x7fu) | (uint64_t)g[1] << 7, g += 2;
    else if (lbs_varint_get(&g, d->bend, &z[j]))
      return 0;
  }
  r[0] = (uint64_t)lbs_unzigzag(z[0]), r[1] = (uint64_t)lbs_unzigzag(z[1]);
  d->ep = e, d->bp = g;
  return 1;
}

/* pairs() under previous-code prediction, from byte p (values 2 (p - nib) on) to byte pe, h
 * the last code relative to kmin (in the range): a byte's codes are h + rlo and h + psum, two
 * bytes a turn while all four are in the range. Two zero bytes start a run of values equal to the
 * last one (smooth data is mostly such runs), filled at once; a lone zero byte stays in the
 * tables (noisy data has one byte in ten, and leaving the loop for each cost more in mispredicted
 * branches than its instructions). A byte with an escape is taken alone, its residuals from
 * esc_residuals(). Returns the byte it stopped at. */
static inline const uint8_t *pairs_prev(qdec *d, const double *val, uint64_t span, uint64_t *hp,
                                        const uint8_t *p, const uint8_t *pe, double *o) {
  uint64_t h = *hp;
  while (p < pe) {
    for (; p + 1 < pe; p += 2, o += 4) {
      unsigned b0 = p[0], b1 = p[1];
      if (!(b0 | b1)) break; /* two zero bytes: a run */
      uint64_t k0 = h + (uint64_t)(int64_t)rlo[b0], k1 = h + (uint64_t)(int64_t)psum[b0];
      uint64_t k2 = k1 + (uint64_t)(int64_t)rlo[b1], k3 = k1 + (uint64_t)(int64_t)psum[b1];
      if (k0 > span || k1 > span || k2 > span || k3 > span) break;
      o[0] = val[k0], o[1] = val[k1], o[2] = val[k2], o[3] = val[k3];
      h = k3;
    }
    if (p == pe) break;
    unsigned b = *p;
    if (b == 0) { /* the run of zero bytes (eight at a time), filled */
      const uint8_t *q = p + 1;
      uint64_t w;
      while (pe - q >= 8 && (memcpy(&w, q, 8), w == 0)) q += 8;
      while (q < pe && *q == 0) q++;
      const double x = val[h];
      const size_t nv = 2 * (size_t)(q - p);
      for (size_t k = 0; k < nv; k++) o[k] = x;
      p = q, o += nv;
      continue;
    }
    uint64_t k0 = h + (uint64_t)(int64_t)rlo[b], k1 = h + (uint64_t)(int64_t)psum[b];
    if (k0 > span || k1 > span) { /* an escape, or a code outside the range */
      const uint8_t *ep = d->ep, *bp = d->bp;
      uint64_t r[2];
      if (!esc_residuals(d, b, r)) break;
      k0 = h + r[0], k1 = k0 + r[1];
      if (k0 > span || k1 > span) {
        d->ep = ep, d->bp = bp;
        break;
      }
    }
    o[0] = val[k0], o[1] = val[k1];
    h = k1;
    p++, o += 2;
  }
  *hp = h;
  return p;
}

/* pairs() under mean-of-four prediction, r the history relative to kmin (in the range): the
 * floor of the mean of codes kmin + r[j] is kmin plus the floor of the mean of the r[j], and
 * their sum (below 2^32) is kept as the history moves, so a prediction is a shift. Two bytes a
 * turn, and an escape's byte alone, as pairs_prev() takes them. */
static inline const uint8_t *pairs_avg4(qdec *d, const double *val, uint64_t span, uint64_t r[4],
                                        const uint8_t *p, const uint8_t *pe, double *o) {
  uint64_t h0 = r[0], h1 = r[1], h2 = r[2], h3 = r[3], s = h0 + h1 + h2 + h3;
  while (p < pe) {
    for (; p + 1 < pe; p += 2, o += 4) {
      unsigned b0 = p[0], b1 = p[1];
      uint64_t k0 = (s >> 2) + (uint64_t)(int64_t)rlo[b0], s1 = s - h3 + k0;
      uint64_t k1 = (s1 >> 2) + (uint64_t)(int64_t)rhi[b0], s2 = s1 - h2 + k1;
      uint64_t k2 = (s2 >> 2) + (uint64_t)(int64_t)rlo[b1], s3 = s2 - h1 + k2;
      uint64_t k3 = (s3 >> 2) + (uint64_t)(int64_t)rhi[b1];
      if (k0 > span || k1 > span || k2 > span || k3 > span) break;
      s = s3 - h0 + k3;
      h3 = k0, h2 = k1, h1 = k2, h0 = k3;
      o[0] = val[k0], o[1] = val[k1], o[2] = val[k2], o[3] = val[k3];
    }
    if (p == pe) break;
    unsigned b = *p;
    uint64_t k0 = (s >> 2) + (uint64_t)(int64_t)rlo[b], s1 = s - h3 + k0;
    uint64_t k1 = (s1 >> 2) + (uint64_t)(int64_t)rhi[b];
    if (k0 > span || k1 > span) { /* an escape, or a code outside the range */
      const uint8_t *ep = d->ep, *bp = d->bp;
      uint64_t e[2];
      if (!esc_residuals(d, b, e)) break;
      k0 = (s >> 2) + e[0], s1 = s - h3 + k0, k1 = (s1 >> 2) + e[1];
      if (k0 > span || k1 > span) {
        d->ep = ep, d->bp = bp;
        break;
      }
    }
    s = s1 - h2 + k1;
    h3 = h1, h2 = h0, h1 = k0, h0 = k1;
    o[0] = val[k0], o[1] = val[k1];
    p++, o += 2;
  }
  r[0] = h0, r[1] = h1, r[2] = h2, r[3] = h3;
  return p;
}

/* The fast path of run(): from value i (even) on, a byte of two residuals at a time, into
 * out[i - from]. Under constant prediction (white noise) a nibble's value does not depend on the
 * history: the 15 values a nibble can give are cv (cok[c] = 0 for the escape and codes outside
 * the range). The other predictors need the value table and a history in the range (the origin
 * of a damaged blob may lie outside), take codes relative to kmin and escapes to residuals too.
 * Returns where it stopped: the last value, a value stored exactly, or a code outside the range
 * (the history as it was before it: the value by value path then finds the same code and
 * reports it). */
static inline __attribute__((always_inline)) size_t pairs(qdec *d, const qloc *q, int pred,
                                                          const double *cv, const uint8_t *cok,
                                                          int64_t h[4], size_t i, size_t from,
                                                          size_t to, double *out) {
  if (pred == P_CONST) {
    const uint8_t *nib = q->nib;
    for (; i + 1 < to; i += 2) {
      unsigned b = nib[i >> 1], lo = b & 15, hi = b >> 4;
      if (!(cok[lo] & cok[hi])) break;
      out[i - from] = cv[lo];
      out[i + 1 - from] = cv[hi];
    }
    return i;
  }
  if (!q->val) return i;
  uint64_t r[4]; /* wrapping: a damaged blob's origin may lie anywhere */
  for (int j = 0; j < 4; j++) r[j] = (uint64_t)h[j] - (uint64_t)q->kmin;
  if (r[0] > q->span) return i;
  if (pred == P_AVG4 && ((r[1] > q->span) | (r[2] > q->span) | (r[3] > q->span))) return i;
  /* value i is the low nibble of byte i / 2; the bytes up to to / 2 are whole */
  const uint8_t *p = q->nib + i / 2, *pe = q->nib + to / 2;
  if (pred == P_PREV)
    p = pairs_prev(d, q->val, q->span, &r[0], p, pe, out + (i - from));
  else
    p = pairs_avg4(d, q->val, q->span, r, p, pe, out + (i - from));
  i = 2 * (size_t)(p - q->nib);
  for (int j = 0; j < 4; j++) h[j] = (int64_t)(r[j] + (uint64_t)q->kmin);
  return i;
}

/* Decodes values [from, to) (out[i - from], or nowhere when out is NULL). pred is a constant
 * where this is inlined, so each predictor gets its own loop; the common case (residuals in
 * nibbles) stays on pairs()' fast path, with the history, the grid and the correction in
 * locals. */
static inline __attribute__((always_inline)) lbs_err run(qdec *d, int pred, size_t from, size_t to,
                                                         double *out) {
  const qloc l = {d->nib, d->tab,   d->val,  d->mul,    d->add,
                  d->g.w, d->g.log, d->kmin, d->origin, (uint64_t)d->kmax - (uint64_t)d->kmin};
  int64_t h[4] = {d->h[0], d->h[1], d->h[2], d->h[3]};
  lbs_err e = LBS_OK;
  double cv[16];
  uint8_t cok[16] = {0};
  if (pred == P_CONST && out) const_values(d, cv, cok);
  for (size_t i = from; i < to; i++) {
    if (out && !(i & 1)) {
      i = pairs(d, &l, pred, cv, cok, h, i, from, to, out);
      if (i == to) break;
    }
    unsigned c = (l.nib[i >> 1] >> ((i & 1) * 4)) & 15;
    int64_t r;
    double x;
    if (c < 15) {
      r = unz[c];
    } else {
      if (d->ep == d->eend) {
        e = lbs_fail(LBS_CORRUPT, "quant chunk: escapes truncated");
        break;
      }
      c = *d->ep++;
      if (c > C_BIG) {
        if ((e = escaped_value(d, c, &x))) break;
        if (out) out[i - from] = x;
        continue;
      }
      uint64_t z = c;
      if (c == C_BIG && lbs_varint_get(&d->bp, d->bend, &z)) {
        e = lbs_fail(LBS_CORRUPT, "quant chunk: big codes truncated");
        break;
      }
      r = lbs_unzigzag(z);
    }
    int64_t k = (int64_t)((uint64_t)predict(pred, h, l.origin) + (uint64_t)r);
    if ((uint64_t)k - (uint64_t)l.kmin > l.span) {
      e = lbs_fail(LBS_CORRUPT, "quant chunk: code outside its range");
      break;
    }
    if (pred == P_PREV)
      h[0] = k;
    else if (pred == P_AVG4)
      push(h, k);
    if (out) out[i - from] = code_value(l.tab, l.lg, l.w, l.kmin, k) * l.mul + l.add;
  }
  memcpy(d->h, h, sizeof h);
  return e;
}

static lbs_err decode(lbs_codec_ctx *ctx, const uint8_t *blob, size_t len, size_t n, size_t first,
                      size_t count, double *out) {
  const uint8_t *p = blob, *end = blob + len;
  if (len < 10 || p[0] != QUANT_VERSION || (p[1] >> 3) >= NPRED || ((p[1] & 4) && len < 26))
    return lbs_fail(LBS_CORRUPT, "quant chunk: bad header");
  int pred = p[1] >> 3;
  int zst = p[1] & 1;
  grid g = {(p[1] >> 1) & 1, 0, {0, 0}, NULL, 0, 0};
  lbs__corr corr;
  int h = lbs__head_get(blob, len, 4, &g.w, &corr);
  if (h < 0) return lbs_fail(LBS_CORRUPT, "quant chunk: bad grid");
  double mul = corr.mul, add = corr.add;
  p += h;
  uint64_t bn, zorigin, zkmin, krange, nesc, nbig, nlit;
  lbs_err e;
  if ((e = get(&p, end, &bn)) || (e = get(&p, end, &zorigin)) || (e = get(&p, end, &zkmin)) ||
      (e = get(&p, end, &krange)) || (e = get(&p, end, &nesc)) || (e = get(&p, end, &nbig)) ||
      (e = get(&p, end, &nlit)))
    return e;
  int64_t kmin = lbs_unzigzag(zkmin), origin = lbs_unzigzag(zorigin);
  if (bn != n || nlit > n || nesc > n || nbig > 10 * n || krange > (UINT64_C(1) << 62) ||
      (kmin > 0 && krange > (uint64_t)(INT64_MAX - kmin)))
    return lbs_fail(LBS_CORRUPT, "quant chunk: bad sizes");
  int64_t kmax = kmin + (int64_t)krange;
  size_t nn = (n + 1) / 2, plen = nn + (size_t)nesc + (size_t)nbig + (size_t)nlit * 8;
  if (zst) {
    if ((e = lbs__zstd_unpack(ctx, p, (size_t)(end - p), plen))) return e;
    p = ctx->scratch.data;
    end = p + ctx->scratch.len;
  }
  if ((size_t)(end - p) != plen) return lbs_fail(LBS_CORRUPT, "quant chunk: payload size");
  const uint8_t *nib = p, *ep = p + nn, *eend = ep + nesc, *bp = eend, *bend = bp + nbig,
                *lit = bend, *lend = lit + nlit * 8;
  /* exp(K w) from a table when that is cheaper than one exp() per value decoded (values before
   * `first` need their codes, not exp()), or when the table kept from the chunks before holds
   * every code already */
  const double *tab = NULL;
  int kept = ctx->tab_n && ctx->tab_w == g.w && kmin >= ctx->tab_k0 && krange < ctx->tab_n &&
             (uint64_t)kmin - (uint64_t)ctx->tab_k0 <= ctx->tab_n - 1 - krange;
  if (g.log && (krange + 1 < count || kept) && !(tab = exp_table(ctx, g.w, kmin, kmax)))
    return lbs_fail(LBS_NOMEM, "quant table");
  /* and every code's corrected value once, for the fast path, on the same condition */
  const double *val = NULL;
  if (krange + 1 < count && krange < FAST_SPAN_MAX &&
      !(val = value_table(ctx, tab, &g, mul, add, kmin, krange)))
    return lbs_fail(LBS_NOMEM, "quant values");
  qdec d = {nib, ep, eend, bp,  bend, lit,  lend,   tab,
            val, g,  mul,  add, kmin, kmax, origin, {origin, origin, origin, origin}};
  switch (pred) { /* a loop per predictor, and one that only skips to `first` */
  case P_PREV:
    if ((e = run(&d, P_PREV, 0, first, NULL)) == LBS_OK)
      e = run(&d, P_PREV, first, first + count, out);
    break;
  case P_AVG4:
    if ((e = run(&d, P_AVG4, 0, first, NULL)) == LBS_OK)
      e = run(&d, P_AVG4, first, first + count, out);
    break;
  default:
    if ((e = run(&d, P_CONST, 0, first, NULL)) == LBS_OK)
      e = run(&d, P_CONST, first, first + count, out);
  }
  return e;
}

const lbs_codec_ops lbs__codec_quant = {.abi = LBS_CODEC_ABI,
                                        .id = LBS_CODEC_QUANT,
                                        .name = "quant",
                                        .encode = encode,
                                        .decode = decode};
