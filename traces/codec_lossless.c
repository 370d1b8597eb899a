/* codec_lossless.c - bit-exact codec: byte-shuffle (8 byte planes) then zstd.
 *
 * Blob: [u8 version=1][varint n][zstd frame of the n*8 shuffled bytes].
 * Shuffling groups the sign/exponent bytes of all values, which zstd compresses far
 * better than interleaved doubles. A range decode decompresses the chunk once and
 * gathers only the requested elements. */
#include "codec_int.h"

#include <string.h>

#define LOSSLESS_VERSION 1
#define LOSSLESS_LEVEL 3

static lbs_err encode(lbs_codec_ctx *ctx, const double *v, size_t n, lbs__tol t, lbs_buf *out) {
  (void)t;
  lbs_buf *st = &ctx->scratch2;
  st->len = 0;
  lbs_err e = lbs_buf_reserve(st, n * 8);
  if (e) return e;
  const uint8_t *src = (const uint8_t *)v;
  for (size_t b = 0; n && b < 8; b++) { /* n = 0: no planes (and st->data may be NULL) */
    uint8_t *plane = st->data + b * n;
    for (size_t i = 0; i < n; i++) plane[i] = src[i * 8 + b];
  }
  st->len = n * 8;
  uint8_t hdr[11];
  hdr[0] = LOSSLESS_VERSION;
  size_t h = 1 + lbs_varint_put(hdr + 1, n);
  if ((e = lbs_buf_append(out, hdr, h))) return e;
  return lbs__zstd_pack(ctx, st->data, st->len, LOSSLESS_LEVEL, 0, out);
}

static lbs_err decode(lbs_codec_ctx *ctx, const uint8_t *blob, size_t len, size_t n, size_t first,
                      size_t count, double *out) {
  const uint8_t *p = blob, *end = blob + len;
  uint64_t bn;
  if (len < 2 || p[0] != LOSSLESS_VERSION)
    return lbs_fail(LBS_CORRUPT, "lossless chunk: bad header");
  p++;
  if (lbs_varint_get(&p, end, &bn) || bn != n)
    return lbs_fail(LBS_CORRUPT, "lossless chunk: element count %llu, expected %zu",
                    (unsigned long long)bn, n);
  lbs_err e = lbs__zstd_unpack(ctx, p, (size_t)(end - p), n * 8);
  if (e) return e;
  if (ctx->scratch.len != n * 8)
    return lbs_fail(LBS_CORRUPT, "lossless chunk: %zu bytes decompressed, expected %zu",
                    ctx->scratch.len, n * 8);
  const uint8_t *s = ctx->scratch.data;
  for (size_t i = 0; i < count; i++) {
    uint8_t d[8];
    for (size_t b = 0; b < 8; b++) d[b] = s[b * n + first + i];
    memcpy(out + i, d, 8);
  }
  return LBS_OK;
}

const lbs_codec_ops lbs__codec_lossless = {.abi = LBS_CODEC_ABI,
                                           .id = LBS_CODEC_LOSSLESS,
                                           .name = "lossless",
                                           .encode = encode,
                                           .decode = decode};

lbs_err lbs__lossless_check(const uint8_t *blob, size_t len, size_t n) {
  const uint8_t *p = blob + 1, *end = blob + len;
  uint64_t bn;
  if (len < 2 || blob[0] != LOSSLESS_VERSION || lbs_varint_get(&p, end, &bn) || bn != n ||
      ZSTD_getFrameContentSize(p, (size_t)(end - p)) != (unsigned long long)n * 8)
    return lbs_fail(LBS_CORRUPT, "lossless blob does not hold %zu values", n);
  return LBS_OK;
}
