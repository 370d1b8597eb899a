/* libFuzzer: the codecs both ways.
 *  - data[0] < 128: decode an arbitrary chunk blob. Input: [codec id][blob]; the element count
 *    is read from the blob's own header, as the reader would take it from the chunk row.
 *  - data[0] >= 128: encode arbitrary doubles (the bytes after a 2-byte prefix) with the codec
 *    data[0] & 3 within a bound chosen by data[1], decode, and abort when a finite value leaves
 *    its bound, a non-finite value changes, or a chunk's sum moves by more than LBS_SUM_TOL. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_traces.h"

/* The element count in a blob's header, or 0 when the header is too short. */
static uint64_t blob_count(lbs_codec c, const uint8_t *blob, const uint8_t *end) {
  const uint8_t *p = blob;
  if (c == LBS_CODEC_LOSSLESS)
    p += 1;
  else if (c == LBS_CODEC_POLYLINE)
    p += end - blob > 1 && (blob[1] & 2) ? 26 : 10;
  else if (c == LBS_CODEC_QUANT)
    p += end - blob > 1 && (blob[1] & 4) ? 26 : 10;
  uint64_t n;
  if (p >= end || lbs_varint_get(&p, end, &n)) return 0;
  return n;
}

static void encode_check(lbs_codec_ctx *ctx, const uint8_t *data, size_t size) {
  static const lbs_codec codecs[4] = {LBS_CODEC_AUTO, LBS_CODEC_POLYLINE, LBS_CODEC_QUANT,
                                      LBS_CODEC_LOSSLESS};
  static const double eps[8] = {1e-3, 5e-3, 0.01, 0.1, 0.5, 1, 100, 1e-9};
  lbs_codec c = codecs[data[0] & 3];
  lbs_bound b = {data[1] & 1 ? LBS_BOUND_ABS : LBS_BOUND_REL, eps[(data[1] >> 1) & 7]};
  if (b.kind == LBS_BOUND_REL && b.eps > LBS_BOUND_MAX_REL) b.eps = LBS_BOUND_MAX_REL;
  if (c == LBS_CODEC_LOSSLESS) b = (lbs_bound){LBS_BOUND_LOSSLESS, 0};
  size_t n = (size - 2) / 8;
  double *v = malloc((n ? n : 1) * sizeof *v), *d = malloc((n ? n : 1) * sizeof *d);
  if (!v || !d) abort();
  memcpy(v, data + 2, n * 8);
  lbs_buf blob = {0};
  lbs_codec used;
  if (lbs_codec_encode(ctx, c, v, n, b, &blob, &used) != LBS_OK) abort();
  if (lbs_codec_decode(ctx, used, blob.data, blob.len, n, 0, n, d) != LBS_OK) abort();
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(v[i]) || b.kind == LBS_BOUND_LOSSLESS) {
      if (memcmp(&v[i], &d[i], 8)) abort();
    } else if (!(fabs(d[i] - v[i]) <= lbs_bound_tolerance(b, v[i], 0))) {
      abort();
    }
  }
  if (!(lbs_sum_error(v, d, n) <= LBS_SUM_TOL)) abort();
  lbs_buf_free(&blob);
  free(v);
  free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3) return 0;
  static lbs_codec_ctx *ctx;
  if (!ctx && lbs_codec_ctx_create(&ctx)) abort();
  if (data[0] >= 128) {
    encode_check(ctx, data, size);
    return 0;
  }
  lbs_codec c = (lbs_codec)data[0];
  const uint8_t *blob = data + 1, *end = data + size;
  uint64_t n = blob_count(c, blob, end);
  if (n == 0 || n > (1u << 16)) return 0;
  double *out = malloc((size_t)n * sizeof *out);
  if (!out) return 0;
  (void)lbs_codec_decode(ctx, c, blob, size - 1, (size_t)n, 0, (size_t)n, out);
  size_t first = size % (size_t)n, count = ((size_t)n - first) / 2;
  (void)lbs_codec_decode(ctx, c, blob, size - 1, (size_t)n, first, count, out);
  free(out);
  return 0;
}
