/* codec_int.h - codec ops table and helpers shared by the codecs (private to traces/). */
#ifndef LBS_CODEC_INT_H
#define LBS_CODEC_INT_H

#include "lbs_traces.h"

#include <math.h>
#include <zstd.h>

/* Scratch state reused across chunks so decoding allocates nothing per chunk. */
struct lbs_codec_ctx {
  ZSTD_CCtx *cctx;  /* lazily created */
  ZSTD_DCtx *dctx;  /* lazily created */
  lbs_buf scratch;  /* decompressed payloads */
  lbs_buf scratch2; /* encoder staging */
  lbs_buf alt;      /* auto: the second codec's blob */
  double *work;     /* encoder work arrays (hulls) */
  size_t work_n;    /* elements of each work array */
  double *y;        /* encoder: decoded values before the sum correction */
  uint8_t *exact;   /* encoder: 1 where a value is stored exactly (no correction) */
  int64_t *k;       /* quant: codes */
  double *tab;      /* quant: exp(k tab_w) for k in [tab_k0, tab_k0 + tab_n), kept across chunks */
  size_t tab_n;     /* entries of tab (0: none) */
  double tab_w;     /* the grid step of tab */
  int64_t tab_k0;   /* the code of tab[0] */
  double *val;      /* quant decoder: a chunk's corrected value of each code, from its kmin */
  size_t val_n;     /* entries val holds room for */
  size_t enc_n;     /* elements of y, exact and k */
};

/* The tolerance of a value x: a + r |x| (abs bound: a = eps; relative: r = eps). */
typedef struct {
  double a, r;
} lbs__tol;
static inline double lbs__tol_of(lbs__tol t, double x) { return t.a + t.r * fabs(x); }

/* A hot function built for AVX2 too where the compiler can dispatch at run time: the same IEEE
 * operations in the same order (no contraction into FMA: the build has -ffp-contract=off, and
 * avx2 does not enable FMA), so the same results; the three-operand forms spare the register
 * copies SSE2's two-operand ones need. Left out of gcc's ASan builds; clang's ASan does not
 * define __SANITIZE_ADDRESS__, so the fuzz build (clang, ASan and UBSan) keeps the clones and
 * fuzzes the AVX2 copies too. clang 14 makes the dispatcher of a cloned static function a
 * global symbol (NAME.resolver): two static functions of one name, both cloned, in two files,
 * would not link there. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__)
#define LBS_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define LBS_CLONES
#endif

/* Share of each value's tolerance the codecs keep free for the chunk-sum correction. */
#define LBS_CORR_MARGIN (1.0 / 16)

/* The chunk-sum correction a lossy blob carries: every value not stored exactly decodes as
 * raw * mul + add. (1, 0) changes nothing: x * 1.0 + 0.0 is x for every finite x but -0.0. */
typedef struct {
  double mul, add;
} lbs__corr;

typedef struct lbs_codec_ops {
  int abi;          /* LBS_CODEC_ABI */
  lbs_codec id;     /* stored in every chunk row */
  const char *name; /* "polyline", "quant", "lossless" */
  /* Appends the encoding of v[0..n) to out within tolerance t (lossless ignores it), keeping
   * the chunk's sum (see lbs_codec_encode); LBS_RANGE when it cannot. */
  lbs_err (*encode)(lbs_codec_ctx *ctx, const double *v, size_t n, lbs__tol t, lbs_buf *out);
  /* Decodes elements [first, first+count) of an n-element blob into out. */
  lbs_err (*decode)(lbs_codec_ctx *ctx, const uint8_t *blob, size_t len, size_t n, size_t first,
                    size_t count, double *out);
} lbs_codec_ops;

#define LBS_CODEC_ABI 2

extern const lbs_codec_ops lbs__codec_polyline;
extern const lbs_codec_ops lbs__codec_lossless;
extern const lbs_codec_ops lbs__codec_quant;
/* The codec whose id is id (a stored codec, not auto); NULL when none is registered. */
const lbs_codec_ops *lbs__codec_get(lbs_codec id);
/* For tests: registers a codec after the built-in ones (ops borrowed: static), so that its chunks
 * count wherever the codecs are listed (lbs_codec_count, lbs_trace_codec_chunks, `trace info`).
 * LBS_INVAL when its ABI is not LBS_CODEC_ABI, it lacks encode or decode, its id is auto's (0),
 * negative or taken, or its name is taken. A codec of the tree is a line in codec.c's builtin[]
 * instead: an id, once a trace stores it, is forever. */
lbs_err lbs__codec_register(const lbs_codec_ops *ops);

/* Grows the encoder's per-element work arrays (y, exact, k) to n elements. */
lbs_err lbs__codec_reserve(lbs_codec_ctx *ctx, size_t n);
/* Given the decoder's values before correction in ctx->y (ctx->exact[i] = 1 where a value is
 * stored exactly and takes no correction), finds the correction that brings the chunk's sum
 * within LBS_SUM_TOL of sum(v) while every finite value stays within tolerance t of v: none
 * when none is needed, else a multiplier (first for relative tolerances), an offset (first for
 * absolute ones), or both, from the least-squares line of v on y. LBS_RANGE when none does. */
lbs_err lbs__corr_find(lbs_codec_ctx *ctx, const double *v, size_t n, lbs__tol t, lbs__corr *c);
/* What lbs__corr_find first sums over the finite values of v, in element order: a codec that
 * passes over them anyway (the quant encoder's steering) sums them there and saves a pass. */
typedef struct {
  double sx, sy, sa; /* sums of v, of ctx->y and of |v| */
  double d, sq, sqx; /* over the values not stored exactly: sums of v - y, of y and of v */
  size_t nq;         /* values not stored exactly */
} lbs__corr_sums;
/* 1 when a chunk of n values is short enough for plain sums (lbs__corr_find compensates the
 * sums of longer ones): only then may a codec sum for lbs__corr_find_sums. */
int lbs__corr_plain(size_t n);
/* lbs__corr_find with the sums s already taken (plain sums in element order, as it takes them),
 * the same result bit for bit; it sums again itself when n is not lbs__corr_plain or a sum
 * overflowed. */
lbs_err lbs__corr_find_sums(lbs_codec_ctx *ctx, const double *v, size_t n, lbs__tol t,
                            const lbs__corr_sums *s, lbs__corr *c);

/* Decompresses a zstd frame of at most max_out bytes into ctx->scratch. */
lbs_err lbs__zstd_unpack(lbs_codec_ctx *ctx, const uint8_t *src, size_t len, size_t max_out);
/* Frames smaller than this keep their literals uncompressed (cheaper to decode) when the codec
 * asks for it (the polyline's varints: their literals barely compress). */
#define LBS_ZSTD_SMALL_FRAME 4096
/* Compresses src into out (appending) at the given level; small_plain: frames under
 * LBS_ZSTD_SMALL_FRAME keep their literals uncompressed. */
lbs_err lbs__zstd_pack(lbs_codec_ctx *ctx, const void *src, size_t len, int level, int small_plain,
                       lbs_buf *out);

/* The head of a lossy blob: [u8 version][u8 flags][f64 step]([f64 mul][f64 add] when the
 * correction is not (1, 0): flags then have corr_bit). put returns its length (10 or 26); get
 * (len >= 2) reads it back, returning its length, or -1 for a short blob, a step that is not
 * finite and > 0, or a correction that is not finite. */
size_t lbs__head_put(uint8_t *hdr, uint8_t version, uint8_t flags, double step, lbs__corr c,
                     uint8_t corr_bit);
int lbs__head_get(const uint8_t *blob, size_t len, uint8_t corr_bit, double *step, lbs__corr *c);
/* Appends a varint to b. */
lbs_err lbs__put_varint(lbs_buf *b, uint64_t v);
/* Appends a lossy blob: the header hdr[0..h) (hdr[1] holds the flags, bit 0 "zstd"), then the
 * payload compressed at `level`, or as it is (bit 0 cleared) when zstd does not make it smaller. */
lbs_err lbs__emit_blob(lbs_codec_ctx *ctx, const uint8_t *hdr, size_t h, const lbs_buf *pl,
                       int level, int small_plain, lbs_buf *out);

/* LBS_OK when a lossless blob declares exactly n values (checked before allocating). */
lbs_err lbs__lossless_check(const uint8_t *blob, size_t len, size_t n);
/* For tests: the ends (exclusive) of the greedy segments of finite v[0..n) at fit tolerance t;
 * returns their count. */
size_t lbs__polyline_segments(lbs_codec_ctx *ctx, const double *v, size_t n, lbs__tol t,
                              size_t *ends);

#endif
