/* codec.c - codec registry, scratch contexts and the zstd helpers shared by codecs. */
/* for ZSTD_c_literalCompressionMode; an unknown parameter is ignored, output stays valid */
#define ZSTD_STATIC_LINKING_ONLY
#include "codec_int.h"
#include "lbs_registry.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The codecs a chunk may name, in the order messages list them. */
static const void *const builtin[] = {&lbs__codec_polyline, &lbs__codec_quant, &lbs__codec_lossless,
                                      NULL};
static lbs_registry registry = LBS_REGISTRY("codec", builtin, lbs_codec_ops, name, NULL);

const lbs_codec_ops *lbs__codec_get(lbs_codec id) {
  const lbs_codec_ops *o;
  for (int i = 0; (o = lbs_registry_at(&registry, i)); i++)
    if (o->id == id) return o;
  return NULL;
}

lbs_err lbs__codec_register(const lbs_codec_ops *ops) {
  const char *name = ops->name ? ops->name : "?";
  if (ops->abi != LBS_CODEC_ABI)
    return lbs_fail(LBS_INVAL, "cannot register codec '%s': ABI %d, not %d", name, ops->abi,
                    LBS_CODEC_ABI);
  if (!ops->encode || !ops->decode)
    return lbs_fail(LBS_INVAL, "cannot register codec '%s': encode and decode are required", name);
  if ((int)ops->id <= 0 || lbs__codec_get(ops->id))
    return lbs_fail(LBS_INVAL, "cannot register codec '%s': id %d is %s", name, (int)ops->id,
                    (int)ops->id <= 0 ? "not a stored codec's" : "taken");
  return lbs_registry_add(&registry, ops);
}

int lbs_codec_count(void) { return lbs_registry_count(&registry); }

lbs_codec lbs_codec_at(int i) {
  const lbs_codec_ops *o, *p;
  for (int k = 0; (o = lbs_registry_at(&registry, k)); k++) { /* the one with i smaller ids */
    int below = 0;
    for (int j = 0; (p = lbs_registry_at(&registry, j)); j++) below += p->id < o->id;
    if (below == i) return o->id;
  }
  return LBS_CODEC_AUTO;
}

const char *lbs_codec_name(lbs_codec c) {
  if (c == LBS_CODEC_AUTO) return "auto";
  const lbs_codec_ops *o = lbs__codec_get(c);
  return o ? o->name : NULL;
}

lbs_err lbs_codec_from_name(const char *name, lbs_codec *out) {
  if (!strcmp(name, "auto")) {
    *out = LBS_CODEC_AUTO;
    return LBS_OK;
  }
  const lbs_codec_ops *o = lbs_registry_find(&registry, name);
  if (o) {
    *out = o->id;
    return LBS_OK;
  }
  /* auto is a setting, not a codec: the registry's own message would leave it out */
  char known[128];
  const char *close = lbs_registry_closest(&registry, name);
  lbs_registry_list(&registry, known, sizeof known);
  if (close)
    return lbs_fail(LBS_NOTFOUND, "unknown codec '%s' (known: auto, %s); did you mean '%s'?", name,
                    known, close);
  return lbs_fail(LBS_NOTFOUND, "unknown codec '%s' (known: auto, %s)", name, known);
}

lbs_err lbs_codec_check(lbs_codec c, lbs_bound b) {
  char s[LBS_BOUND_STRLEN];
  if (!lbs_codec_name(c)) return lbs_fail(LBS_INVAL, "unknown codec id %d", (int)c);
  if (b.kind < LBS_BOUND_LOSSLESS || b.kind > LBS_BOUND_RANGE)
    return lbs_fail(LBS_INVAL, "unknown error bound kind %d", (int)b.kind);
  if (b.kind != LBS_BOUND_LOSSLESS && !(b.eps > 0 && isfinite(b.eps)))
    return lbs_fail(LBS_INVAL, "error bound %s: eps must be finite and > 0",
                    lbs_bound_format(b, s));
  if (c == LBS_CODEC_LOSSLESS && b.kind != LBS_BOUND_LOSSLESS)
    return lbs_fail(
        LBS_INVAL,
        "the lossless codec stores values exactly: it takes the bound 'lossless', not %s",
        lbs_bound_format(b, s));
  if (c != LBS_CODEC_LOSSLESS && b.kind == LBS_BOUND_LOSSLESS)
    return lbs_fail(LBS_INVAL,
                    "the %s codec is lossy: give it a bound rel:EPS, abs:EPS or range:EPS "
                    "(or use the lossless codec)",
                    lbs_codec_name(c));
  return LBS_OK;
}

lbs_err lbs_codec_ctx_create(lbs_codec_ctx **out) {
  *out = calloc(1, sizeof **out);
  return *out ? LBS_OK : lbs_fail(LBS_NOMEM, "codec context");
}

void lbs_codec_ctx_destroy(lbs_codec_ctx **ctx) {
  if (!ctx || !*ctx) return;
  lbs_codec_ctx *c = *ctx;
  ZSTD_freeCCtx(c->cctx);
  ZSTD_freeDCtx(c->dctx);
  lbs_buf_free(&c->scratch);
  lbs_buf_free(&c->scratch2);
  lbs_buf_free(&c->alt);
  free(c->work);
  free(c->y);
  free(c->exact);
  free(c->k);
  free(c->tab);
  free(c->val);
  free(c);
  *ctx = NULL;
}

lbs_err lbs__codec_reserve(lbs_codec_ctx *ctx, size_t n) {
  if (ctx->enc_n >= n) return LBS_OK;
  double *y = realloc(ctx->y, n * sizeof *y);
  if (y) ctx->y = y;
  uint8_t *x = realloc(ctx->exact, n);
  if (x) ctx->exact = x;
  int64_t *k = realloc(ctx->k, n * sizeof *k);
  if (k) ctx->k = k;
  if (!y || !x || !k) return lbs_fail(LBS_NOMEM, "codec work arrays for %zu elements", n);
  ctx->enc_n = n;
  return LBS_OK;
}

/* A sum: plain, or compensated (Neumaier) for chunks so long that plain rounding could matter
 * against LBS_SUM_TOL (a plain sum of n terms is off by at most about n DBL_EPSILON of their
 * magnitudes). */
typedef struct {
  double s, c;
  int exact;
} acc;

static inline void acc_add(acc *a, double x) {
  if (!a->exact) {
    a->s += x;
    return;
  }
  double t = a->s + x;
  a->c += fabs(a->s) >= fabs(x) ? (a->s - t) + x : (x - t) + a->s;
  a->s = t;
}

static inline int long_chunk(size_t n) { return 4 * (double)n * DBL_EPSILON > 0.25 * LBS_SUM_TOL; }

/* Checks a candidate correction with the decoder's arithmetic, in one pass: every value within
 * its tolerance, and the corrected sum within half of LBS_SUM_TOL of sx (sa = sum |v|, k a
 * power of two the sums are scaled by so they cannot overflow); the other half is kept for the
 * rounding of the sums. */
static inline __attribute__((always_inline)) int corr_pass(const double *v, const double *y,
                                                           const uint8_t *exact, size_t n,
                                                           lbs__tol t, lbs__corr c, double k,
                                                           acc *sz) {
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(v[i])) continue;
    double z = exact[i] ? y[i] : y[i] * c.mul + c.add;
    if (!(fabs(z - v[i]) <= lbs__tol_of(t, v[i]))) return 0;
    acc_add(sz, z * k);
  }
  return 1;
}

LBS_CLONES
static int corr_ok(const double *v, const double *y, const uint8_t *exact, size_t n, lbs__tol t,
                   lbs__corr c, double sx, double sa, double k) {
  if (!isfinite(c.mul) || !isfinite(c.add)) return 0;
  acc sz = {0, 0, long_chunk(n)};
  /* k = 1 (the sums did not overflow) by itself: z * 1 is z */
  if (!(k == 1 ? corr_pass(v, y, exact, n, t, c, 1, &sz) : corr_pass(v, y, exact, n, t, c, k, &sz)))
    return 0;
  double d = fabs((sz.s + sz.c) - sx);
  return sa > 0 ? d <= 0.5 * LBS_SUM_TOL * sa : d == 0;
}

int lbs__corr_plain(size_t n) { return !long_chunk(n); }

/* The correction from the chunk's sums (s, scaled by k): none when the sum is kept, else the
 * first candidate that corr_ok() accepts. */
LBS_CLONES
static lbs_err corr_from_sums(lbs_codec_ctx *ctx, const double *v, size_t n, lbs__tol t,
                              const lbs__corr_sums *s, double k, lbs__corr *c) {
  const double *y = ctx->y;
  const uint8_t *exact = ctx->exact;
  *c = (lbs__corr){1, 0};
  double sx = s->sx, sy = s->sy, sa = s->sa, d = s->d, sq = s->sq, sqx = s->sqx;
  size_t nq = s->nq;
  double dd = fabs(sy - sx);
  /* the codecs kept every value within the tolerance: no correction when the sum is kept */
  if (sa > 0 ? dd <= 0.5 * LBS_SUM_TOL * sa : dd == 0) return LBS_OK;
  if (!nq || !isfinite(d) || !isfinite(sq))
    return lbs_fail(LBS_RANGE, "no sum correction keeps every value within its bound");
  /* a factor (first for relative tolerances), an offset (first for absolute ones), and the
   * least-squares line from decoded to original values (it keeps the sum: its residuals add up
   * to zero), which also removes biases that differ between small and large values */
  lbs__corr mul = {sq != 0 ? (sq + d) / sq : 1, 0}, add = {1, d / (double)nq};
  if (corr_ok(v, y, exact, n, t, t.r > 0 ? mul : add, sx, sa, k))
    return *c = t.r > 0 ? mul : add, LBS_OK;
  if (corr_ok(v, y, exact, n, t, t.r > 0 ? add : mul, sx, sa, k))
    return *c = t.r > 0 ? add : mul, LBS_OK;
  double ybar = sq / (double)nq, xbar = sqx / (double)nq, syy = 0, sxy = 0;
  for (size_t i = 0; i < n; i++)
    if (!exact[i] && isfinite(v[i]))
      syy += (y[i] - ybar) * (y[i] - ybar), sxy += (y[i] - ybar) * (v[i] - xbar);
  if (syy > 0 && isfinite(sxy / syy)) {
    lbs__corr lsq = {sxy / syy, xbar - sxy / syy * ybar};
    if (corr_ok(v, y, exact, n, t, lsq, sx, sa, k)) return *c = lsq, LBS_OK;
  }
  return lbs_fail(LBS_RANGE, "no sum correction keeps every value within its bound");
}

lbs_err lbs__corr_find_sums(lbs_codec_ctx *ctx, const double *v, size_t n, lbs__tol t,
                            const lbs__corr_sums *s, lbs__corr *c) {
  if (!lbs__corr_plain(n) || !isfinite(s->sa) || !isfinite(s->sy))
    return lbs__corr_find(ctx, v, n, t, c);
  return corr_from_sums(ctx, v, n, t, s, 1, c);
}

lbs_err lbs__corr_find(lbs_codec_ctx *ctx, const double *v, size_t n, lbs__tol t, lbs__corr *c) {
  const double *y = ctx->y;
  const uint8_t *exact = ctx->exact;
  lbs__corr_sums s;
  double k = 1;
  for (int pass = 0; pass < 2; pass++) { /* again, scaled, when a sum overflows */
    acc ax = {0, 0, long_chunk(n)}, ay = ax;
    s = (lbs__corr_sums){0};
    for (size_t i = 0; i < n; i++) {
      if (!isfinite(v[i])) continue;
      acc_add(&ax, v[i] * k), acc_add(&ay, y[i] * k), s.sa += fabs(v[i]) * k;
      if (!exact[i]) s.d += v[i] - y[i], s.sq += y[i], s.sqx += v[i], s.nq++;
    }
    s.sx = ax.s + ax.c, s.sy = ay.s + ay.c;
    if (isfinite(s.sa) && isfinite(s.sy)) break;
    k = 0x1p-200;
  }
  return corr_from_sums(ctx, v, n, t, &s, k, c);
}

/* auto's probe: values tried with both lossy codecs, and the share of the other's size below
 * which one codec is clearly the smaller */
#define AUTO_PROBE 1024
#define AUTO_CLEAR 0.8

/* Encodes with one codec; a lossy codec that cannot keep the bound gives way to lossless. */
static lbs_err encode_one(lbs_codec_ctx *ctx, lbs_codec c, const double *v, size_t n, lbs__tol t,
                          lbs_buf *out, lbs_codec *used) {
  size_t at = out->len;
  lbs_err e = lbs__codec_get(c)->encode(ctx, v, n, t, out);
  if (e == LBS_RANGE && c != LBS_CODEC_LOSSLESS) {
    out->len = at;
    c = LBS_CODEC_LOSSLESS;
    e = lbs__codec_lossless.encode(ctx, v, n, t, out);
  }
  *used = c;
  return e;
}

/* lossless: a version byte, a varint n, and one zstd frame of the 8n shuffled bytes */
size_t lbs_codec_max_bytes(size_t n) { return 11 + ZSTD_compressBound(8 * n); }

static lbs_err encode_any(lbs_codec_ctx *ctx, lbs_codec c, const double *v, size_t n, lbs_bound b,
                          lbs_buf *out, lbs_codec *used);

lbs_err lbs_codec_encode(lbs_codec_ctx *ctx, lbs_codec c, const double *v, size_t n, lbs_bound b,
                         lbs_buf *out, lbs_codec *used) {
  size_t at = out->len;
  lbs_err e = encode_any(ctx, c, v, n, b, out, used);
  if (!e && out->len - at > lbs_codec_max_bytes(n)) { /* keeps the promise of lbs_codec_max_bytes */
    out->len = at;
    *used = LBS_CODEC_LOSSLESS;
    e = lbs__codec_lossless.encode(ctx, v, n, (lbs__tol){0, 0}, out);
  }
  return e;
}

static lbs_err encode_any(lbs_codec_ctx *ctx, lbs_codec c, const double *v, size_t n, lbs_bound b,
                          lbs_buf *out, lbs_codec *used) {
  lbs_err e = lbs_codec_check(c, b);
  if (e) return e;
  if (b.kind == LBS_BOUND_RANGE)
    return lbs_fail(LBS_INVAL, "a range bound must be resolved to an absolute one before encoding");
  lbs__tol t = {b.kind == LBS_BOUND_ABS ? b.eps : 0, b.kind == LBS_BOUND_REL ? b.eps : 0};
  if (c != LBS_CODEC_AUTO) return encode_one(ctx, c, v, n, t, out, used);
  /* auto: the polyline and the quantizer first try AUTO_PROBE values from across the chunk; when
   * one stores them in less than AUTO_CLEAR of the other's bytes, it alone encodes the chunk,
   * else both do and the smaller stays */
  size_t at = out->len;
  int which = 0;             /* 1 polyline, 2 quant, 0 both */
  if (n >= 4 * AUTO_PROBE) { /* the probe: four blocks from across the chunk */
    double probe[AUTO_PROBE];
    for (int b = 0; b < 4; b++)
      memcpy(probe + b * (AUTO_PROBE / 4), v + (size_t)b * (n / 4), AUTO_PROBE / 4 * sizeof *v);
    lbs_codec u;
    if ((e = encode_one(ctx, LBS_CODEC_POLYLINE, probe, AUTO_PROBE, t, out, &u))) return e;
    size_t sp = out->len - at;
    out->len = at;
    ctx->alt.len = 0;
    if ((e = encode_one(ctx, LBS_CODEC_QUANT, probe, AUTO_PROBE, t, &ctx->alt, &u))) return e;
    size_t sq = ctx->alt.len;
    which = (double)sp < AUTO_CLEAR * (double)sq ? 1 : (double)sq < AUTO_CLEAR * (double)sp ? 2 : 0;
  }
  lbs_codec u1 = LBS_CODEC_LOSSLESS, u2;
  if (which != 2 && (e = encode_one(ctx, LBS_CODEC_POLYLINE, v, n, t, out, &u1))) return e;
  *used = u1;
  if (which != 1) {
    ctx->alt.len = 0;
    if ((e = encode_one(ctx, LBS_CODEC_QUANT, v, n, t, &ctx->alt, &u2))) return e;
    if (which == 2 || ctx->alt.len < out->len - at) {
      out->len = at;
      *used = u2;
      if ((e = lbs_buf_append(out, ctx->alt.data, ctx->alt.len))) return e;
    }
  }
  /* values on a coarse grid (a timer's whole nanoseconds) can store smaller exactly: where the
   * lossy codecs took more than a byte a value, lossless gets a try */
  if (*used != LBS_CODEC_LOSSLESS && out->len - at > n) {
    ctx->alt.len = 0;
    if ((e = lbs__codec_lossless.encode(ctx, v, n, t, &ctx->alt))) return e;
    if (ctx->alt.len < out->len - at) {
      out->len = at;
      *used = LBS_CODEC_LOSSLESS;
      return lbs_buf_append(out, ctx->alt.data, ctx->alt.len);
    }
  }
  return LBS_OK;
}

lbs_err lbs_codec_decode(lbs_codec_ctx *ctx, lbs_codec c, const uint8_t *blob, size_t len, size_t n,
                         size_t first, size_t count, double *out) {
  const lbs_codec_ops *o = lbs__codec_get(c);
  if (!o) return lbs_fail(LBS_CORRUPT, "unknown codec id %d", (int)c);
  static const uint8_t none[1];
  if (!blob) { /* SQLite gives NULL for an empty blob: the decoders may not offset it */
    if (len) return lbs_fail(LBS_CORRUPT, "a blob of %zu bytes at NULL", len);
    blob = none;
  }
  if (first > n || count > n - first)
    return lbs_fail(LBS_RANGE, "elements [%zu, %zu) outside a chunk of %zu", first, first + count,
                    n);
  return o->decode(ctx, blob, len, n, first, count, out);
}

lbs_err lbs__zstd_pack(lbs_codec_ctx *ctx, const void *src, size_t len, int level, int small_plain,
                       lbs_buf *out) {
  if (!ctx->cctx && !(ctx->cctx = ZSTD_createCCtx())) return lbs_fail(LBS_NOMEM, "zstd context");
  size_t bound = ZSTD_compressBound(len);
  lbs_err e = lbs_buf_reserve(out, bound);
  if (e) return e;
  /* Small frames: building the literals' Huffman table costs the decoder more than the
   * bits it saves, so their literals are stored plain (LZ matches still apply). */
  ZSTD_CCtx_reset(ctx->cctx, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(ctx->cctx, ZSTD_c_compressionLevel, level);
  if (small_plain && len < LBS_ZSTD_SMALL_FRAME)
    (void)ZSTD_CCtx_setParameter(ctx->cctx, ZSTD_c_literalCompressionMode, ZSTD_ps_disable);
  size_t r = ZSTD_compress2(ctx->cctx, out->data + out->len, bound, src, len);
  if (ZSTD_isError(r)) return lbs_fail(LBS_IO, "zstd: %s", ZSTD_getErrorName(r));
  out->len += r;
  return LBS_OK;
}

lbs_err lbs__put_varint(lbs_buf *b, uint64_t v) {
  lbs_err e = lbs_buf_reserve(b, 10);
  if (e) return e;
  b->len += lbs_varint_put(b->data + b->len, v);
  return LBS_OK;
}

size_t lbs__head_put(uint8_t *hdr, uint8_t version, uint8_t flags, double step, lbs__corr c,
                     uint8_t corr_bit) {
  int has = c.mul != 1 || c.add != 0;
  hdr[0] = version;
  hdr[1] = (uint8_t)(flags | (has ? corr_bit : 0));
  memcpy(hdr + 2, &step, 8);
  if (!has) return 10;
  memcpy(hdr + 10, &c.mul, 8);
  memcpy(hdr + 18, &c.add, 8);
  return 26;
}

int lbs__head_get(const uint8_t *blob, size_t len, uint8_t corr_bit, double *step, lbs__corr *c) {
  size_t h = blob[1] & corr_bit ? 26 : 10;
  *c = (lbs__corr){1, 0};
  if (len < h) return -1;
  memcpy(step, blob + 2, 8);
  if (h == 26) memcpy(&c->mul, blob + 10, 8), memcpy(&c->add, blob + 18, 8);
  if (!(*step > 0) || !isfinite(*step) || !isfinite(c->mul) || !isfinite(c->add)) return -1;
  return (int)h;
}

lbs_err lbs__emit_blob(lbs_codec_ctx *ctx, const uint8_t *hdr, size_t h, const lbs_buf *pl,
                       int level, int small_plain, lbs_buf *out) {
  size_t at = out->len;
  lbs_err e = lbs_buf_append(out, hdr, h);
  if (!e) e = lbs__zstd_pack(ctx, pl->data, pl->len, level, small_plain, out);
  if (!e && out->len - at - h >= pl->len) { /* zstd did not help: the payload as it is */
    out->len = at + h;
    out->data[at + 1] &= (uint8_t)~1u;
    e = lbs_buf_append(out, pl->data, pl->len);
  }
  return e;
}

lbs_err lbs__zstd_unpack(lbs_codec_ctx *ctx, const uint8_t *src, size_t len, size_t max_out) {
  if (!ctx->dctx && !(ctx->dctx = ZSTD_createDCtx())) return lbs_fail(LBS_NOMEM, "zstd context");
  unsigned long long sz = ZSTD_getFrameContentSize(src, len);
  if (sz == ZSTD_CONTENTSIZE_ERROR || sz == ZSTD_CONTENTSIZE_UNKNOWN || sz > max_out)
    return lbs_fail(LBS_CORRUPT, "compressed payload has a bad frame header");
  ctx->scratch.len = 0;
  lbs_err e = lbs_buf_reserve(&ctx->scratch, (size_t)sz + 1);
  if (e) return e;
  size_t r = ZSTD_decompressDCtx(ctx->dctx, ctx->scratch.data, (size_t)sz, src, len);
  if (ZSTD_isError(r) || r != sz)
    return lbs_fail(LBS_CORRUPT, "compressed payload: %s",
                    ZSTD_isError(r) ? ZSTD_getErrorName(r) : "size mismatch");
  ctx->scratch.len = r;
  return LBS_OK;
}
