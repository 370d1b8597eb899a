/* codec.c - codec registry, scratch contexts and the zstd helpers shared by codecs. */
/* for ZSTD_c_literalCompressionMode; an unknown parameter is ignored, output stays valid */
#define ZSTD_STATIC_LINKING_ONLY
#include "codec_int.h"

#include <stdlib.h>
#include <string.h>

static const lbs_codec_ops *const registry[] = {&lbs__codec_lossless, &lbs__codec_polyline, NULL};

const lbs_codec_ops *lbs__codec_get(lbs_codec id) {
  for (size_t i = 0; registry[i]; i++)
    if (registry[i]->id == id) return registry[i];
  return NULL;
}

const char *lbs_codec_name(lbs_codec c) {
  const lbs_codec_ops *o = lbs__codec_get(c);
  return o ? o->name : NULL;
}

lbs_err lbs_codec_from_name(const char *name, lbs_codec *out) {
  for (size_t i = 0; registry[i]; i++)
    if (!strcmp(registry[i]->name, name)) {
      *out = registry[i]->id;
      return LBS_OK;
    }
  return lbs_fail(LBS_NOTFOUND, "unknown codec '%s' (known: polyline, lossless)", name);
}

lbs_err lbs_codec_ctx_create(lbs_codec_ctx **out) {
  *out = calloc(1, sizeof **out);
  return *out ? LBS_OK : lbs_fail(LBS_NOMEM, "codec context");
}

void lbs_codec_ctx_destroy(lbs_codec_ctx **ctx) {
  if (!ctx || !*ctx) return;
  ZSTD_freeCCtx((*ctx)->cctx);
  ZSTD_freeDCtx((*ctx)->dctx);
  lbs_buf_free(&(*ctx)->scratch);
  lbs_buf_free(&(*ctx)->scratch2);
  free((*ctx)->work);
  free(*ctx);
  *ctx = NULL;
}

lbs_err lbs_codec_encode(lbs_codec_ctx *ctx, lbs_codec c, const double *v, size_t n, double eps,
                         lbs_buf *out) {
  const lbs_codec_ops *o = lbs__codec_get(c);
  if (!o) return lbs_fail(LBS_INVAL, "unknown codec id %d", (int)c);
  return o->encode(ctx, v, n, eps, out);
}

lbs_err lbs_codec_decode(lbs_codec_ctx *ctx, lbs_codec c, const uint8_t *blob, size_t len, size_t n,
                         size_t first, size_t count, double *out) {
  const lbs_codec_ops *o = lbs__codec_get(c);
  if (!o) return lbs_fail(LBS_CORRUPT, "unknown codec id %d", (int)c);
  if (first > n || count > n - first)
    return lbs_fail(LBS_RANGE, "elements [%zu, %zu) outside a chunk of %zu", first, first + count, n);
  return o->decode(ctx, blob, len, n, first, count, out);
}

lbs_err lbs__zstd_pack(lbs_codec_ctx *ctx, const void *src, size_t len, int level, lbs_buf *out) {
  if (!ctx->cctx && !(ctx->cctx = ZSTD_createCCtx())) return lbs_fail(LBS_NOMEM, "zstd context");
  size_t bound = ZSTD_compressBound(len);
  lbs_err e = lbs_buf_reserve(out, bound);
  if (e) return e;
  /* Small frames: building the literals' Huffman table costs the decoder more than the
   * bits it saves, so their literals are stored plain (LZ matches still apply). */
  ZSTD_CCtx_reset(ctx->cctx, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(ctx->cctx, ZSTD_c_compressionLevel, level);
  if (len < LBS_ZSTD_SMALL_FRAME)
    (void)ZSTD_CCtx_setParameter(ctx->cctx, ZSTD_c_literalCompressionMode, ZSTD_ps_disable);
  size_t r = ZSTD_compress2(ctx->cctx, out->data + out->len, bound, src, len);
  if (ZSTD_isError(r)) return lbs_fail(LBS_IO, "zstd: %s", ZSTD_getErrorName(r));
  out->len += r;
  return LBS_OK;
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
