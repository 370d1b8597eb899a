/* libFuzzer: decode arbitrary chunk blobs. Input: [codec id][blob]; the element count is
 * read from the blob's own header, as the reader would take it from the chunk row. */
#include <stdlib.h>
#include <string.h>

#include "lbs_traces.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3) return 0;
  lbs_codec c = (lbs_codec)data[0];
  const uint8_t *blob = data + 1, *p = blob + (c == LBS_CODEC_POLYLINE ? 10 : 1), *end = data + size;
  uint64_t n;
  if (p >= end || lbs_varint_get(&p, end, &n) || n == 0 || n > (1u << 16)) return 0;
  static lbs_codec_ctx *ctx;
  if (!ctx && lbs_codec_ctx_create(&ctx)) abort();
  double *out = malloc((size_t)n * sizeof *out);
  if (!out) return 0;
  (void)lbs_codec_decode(ctx, c, blob, size - 1, (size_t)n, 0, (size_t)n, out);
  size_t first = size % (size_t)n, count = ((size_t)n - first) / 2;
  (void)lbs_codec_decode(ctx, c, blob, size - 1, (size_t)n, first, count, out);
  free(out);
  return 0;
}
