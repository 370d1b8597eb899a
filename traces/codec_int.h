/* codec_int.h - codec ops table (private to traces/). */
#ifndef LBS_CODEC_INT_H
#define LBS_CODEC_INT_H

#include "lbs_traces.h"

#include <zstd.h>

/* Scratch state reused across chunks so decoding allocates nothing per chunk. */
struct lbs_codec_ctx {
  ZSTD_CCtx *cctx;  /* lazily created */
  ZSTD_DCtx *dctx;  /* lazily created */
  lbs_buf scratch;  /* decompressed payloads */
  lbs_buf scratch2; /* encoder staging */
  double *work;     /* encoder work arrays (hulls) */
  size_t work_n;    /* elements of each work array */
};

typedef struct lbs_codec_ops {
  int abi;          /* LBS_CODEC_ABI */
  lbs_codec id;     /* stored in every chunk row */
  const char *name; /* "polyline", "lossless" */
  /* Appends the encoding of v[0..n) to out; every decoded value is within eps of v. */
  lbs_err (*encode)(lbs_codec_ctx *ctx, const double *v, size_t n, double eps, lbs_buf *out);
  /* Decodes elements [first, first+count) of an n-element blob into out. */
  lbs_err (*decode)(lbs_codec_ctx *ctx, const uint8_t *blob, size_t len, size_t n, size_t first,
                    size_t count, double *out);
} lbs_codec_ops;

#define LBS_CODEC_ABI 1

extern const lbs_codec_ops lbs__codec_polyline;
extern const lbs_codec_ops lbs__codec_lossless;
const lbs_codec_ops *lbs__codec_get(lbs_codec id);

/* Decompresses a zstd frame of at most max_out bytes into ctx->scratch. */
lbs_err lbs__zstd_unpack(lbs_codec_ctx *ctx, const uint8_t *src, size_t len, size_t max_out);
/* Frames smaller than this keep their literals uncompressed (cheaper to decode). */
#define LBS_ZSTD_SMALL_FRAME 4096
/* Compresses src into out (appending) at the given level. */
lbs_err lbs__zstd_pack(lbs_codec_ctx *ctx, const void *src, size_t len, int level, lbs_buf *out);

/* LBS_OK when a lossless blob declares exactly n values (checked before allocating). */
lbs_err lbs__lossless_check(const uint8_t *blob, size_t len, size_t n);
/* For tests: the ends (exclusive) of the greedy segments of finite v[0..n) at fit tolerance
 * eps; returns their count. */
size_t lbs__polyline_segments(lbs_codec_ctx *ctx, const double *v, size_t n, double eps, size_t *ends);
/* The tolerance the polyline encoder fits with for bound eps: eps minus the quantization
 * margin (eps/8) and a rounding slack. */
double lbs__polyline_fit_tolerance(const double *v, size_t n, double eps);

#endif
