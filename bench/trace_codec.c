/* bench/trace_codec - the trace codec and store against its baselines, side by side.
 *
 * On a 1M-element bump trace (100x100x100, the seed's MRTD pulse) and a noisy hotspot
 * trace (2% noise), for a few steps spread over a 300-step run, in one run:
 *  - polyline encode speed (one core, the store's chunking) at eps = 1e-3 of range;
 *  - decode speed into a 128 MiB rotating buffer (larger than the 32 MiB L3 here) against
 *    a memory fill of the same buffer with a linear formula;
 *  - zstd -1 and zlib -6 on the raw doubles: ratio, compression and decompression speed;
 *  - our ratio at eps = 1e-3 and 1e-2 of range (codec bytes and real trace-file bytes);
 *  - through a real SQLite trace file: reading 1% of a step against reading all of it.
 * Figures are printed with their ratios; bench/RESULTS.md records them. No pass/fail. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "lbs_traces.h"

#define NX 100
#define E (NX * NX * NX)
#define CHUNK 8192
#define NSTEPS 4
#define SLOTS 16 /* 16 x 8 MB output slots = 128 MiB */
#define REPS 3

static const int64_t step_ids[NSTEPS] = {75, 120, 165, 225};

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what) {
  fprintf(stderr, "bench_trace_codec: %s: %s\n", what, lbs_errmsg());
  exit(1);
}

typedef struct {
  lbs_buf blob[(E + CHUNK - 1) / CHUNK];
  lbs_codec codec[(E + CHUNK - 1) / CHUNK];
  size_t bytes;
} encoded;

#define NCH ((E + CHUNK - 1) / CHUNK)

static double range_of(const double *v) {
  double lo = INFINITY, hi = -INFINITY;
  for (int64_t i = 0; i < E; i++) {
    lo = fmin(lo, v[i]);
    hi = fmax(hi, v[i]);
  }
  return hi - lo;
}

/* Encodes a step in store-sized chunks; returns seconds. */
static double encode_step(lbs_codec_ctx *ctx, const double *v, double eps, encoded *out) {
  double t0 = now();
  out->bytes = 0;
  for (int c = 0; c < NCH; c++) {
    size_t n = (size_t)(E - c * CHUNK < CHUNK ? E - c * CHUNK : CHUNK);
    out->blob[c].len = 0;
    out->codec[c] = LBS_CODEC_POLYLINE;
    lbs_err e = lbs_codec_encode(ctx, LBS_CODEC_POLYLINE, v + c * CHUNK, n, eps, &out->blob[c]);
    if (e == LBS_RANGE) {
      out->codec[c] = LBS_CODEC_LOSSLESS;
      out->blob[c].len = 0;
      e = lbs_codec_encode(ctx, LBS_CODEC_LOSSLESS, v + c * CHUNK, n, 0, &out->blob[c]);
    }
    if (e) die("encode");
    out->bytes += out->blob[c].len;
  }
  return now() - t0;
}

static double decode_step(lbs_codec_ctx *ctx, const encoded *enc, double *out) {
  double t0 = now();
  for (int c = 0; c < NCH; c++) {
    size_t n = (size_t)(E - c * CHUNK < CHUNK ? E - c * CHUNK : CHUNK);
    if (lbs_codec_decode(ctx, enc->codec[c], enc->blob[c].data, enc->blob[c].len, n, 0, n, out + c * CHUNK))
      die("decode");
  }
  return now() - t0;
}

static double fill_step(double *out, double a, double b) {
  double t0 = now();
  for (int64_t c = 0; c < E; c += CHUNK) /* the decoder's formula, chunk by chunk */
    for (int32_t k = 0; k < (int32_t)(E - c < CHUNK ? E - c : CHUNK); k++) out[c + k] = a + b * (double)k;
  return now() - t0;
}

typedef struct {
  double enc_s, dec_s, fill_s, zstd_c_s, zstd_d_s, zlib_c_s, zlib_d_s;
  double raw, ours3, ours2, file3, zstd, zlib, max_err_rel;
  double full_read_s, part_read_s;
  int64_t reads;
} figures;

static void run(const char *kind, figures *f) {
  lbs_gen_params gp = {kind, NX, NX, NX, 300, 1};
  lbs_gen *g;
  if (lbs_gen_create(&gp, &g)) die("generator");
  lbs_codec_ctx *ctx;
  lbs_codec_ctx_create(&ctx);
  double *steps = malloc((size_t)NSTEPS * E * sizeof(double));
  double *slots = malloc((size_t)SLOTS * E * sizeof(double));
  encoded *enc = calloc(1, sizeof *enc);
  size_t zcap = ZSTD_compressBound(E * 8);
  uint8_t *zbuf = malloc(zcap);
  memset(f, 0, sizeof *f);
  memset(slots, 0, (size_t)SLOTS * E * sizeof(double)); /* fault the pages in once */
  int slot = 0;
  for (int k = 0; k < NSTEPS; k++) {
    double *v = steps + (size_t)k * E;
    lbs_gen_step(g, step_ids[k], 0, NULL, v);
    double rng = range_of(v), best;
    /* polyline at 1e-2 (size only) then 1e-3 (size, speeds, error) */
    encode_step(ctx, v, 1e-2 * rng, enc);
    f->ours2 += (double)enc->bytes;
    best = INFINITY;
    for (int r = 0; r < REPS; r++) best = fmin(best, encode_step(ctx, v, 1e-3 * rng, enc));
    f->enc_s += best;
    f->ours3 += (double)enc->bytes;
    best = INFINITY;
    double bestfill = INFINITY;
    for (int r = 0; r < REPS; r++) {
      best = fmin(best, decode_step(ctx, enc, slots + (size_t)(slot++ % SLOTS) * E));
      bestfill = fmin(bestfill, fill_step(slots + (size_t)(slot++ % SLOTS) * E, v[0], 1e-9));
    }
    f->dec_s += best;
    f->fill_s += bestfill;
    double *d = slots + (size_t)((slot - 2) % SLOTS) * E;
    decode_step(ctx, enc, d);
    for (int64_t i = 0; i < E; i++) f->max_err_rel = fmax(f->max_err_rel, fabs(d[i] - v[i]) / rng);
    /* zstd -1 and zlib -6 on the raw doubles */
    double tc = INFINITY, td = INFINITY;
    size_t zn = 0;
    for (int r = 0; r < REPS; r++) {
      double t0 = now();
      zn = ZSTD_compress(zbuf, zcap, v, E * 8, 1);
      tc = fmin(tc, now() - t0);
      t0 = now();
      ZSTD_decompress(slots + (size_t)(slot++ % SLOTS) * E, E * 8, zbuf, zn);
      td = fmin(td, now() - t0);
    }
    f->zstd += (double)zn;
    f->zstd_c_s += tc;
    f->zstd_d_s += td;
    uLongf zl = (uLongf)zcap;
    double t0 = now();
    compress2(zbuf, &zl, (const Bytef *)v, E * 8, 6);
    f->zlib_c_s += now() - t0;
    f->zlib += (double)zl;
    uLongf dl = E * 8;
    t0 = now();
    uncompress((Bytef *)(slots + (size_t)(slot++ % SLOTS) * E), &dl, zbuf, zl);
    f->zlib_d_s += now() - t0;
    f->raw += E * 8.0;
  }
  /* a real trace file with these steps: file bytes and partial against full reads */
  char path[] = "/tmp/lbs_bench_XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  remove(path);
  lbs_mesh *mesh;
  lbs_mesh_create_structured(NX, NX, NX, LBS_ORDER_NATURAL, &mesh);
  lbs_metric_spec ms = {"time_ns", "ns", LBS_CODEC_POLYLINE, 1e-3, 1};
  lbs_trace_spec spec = {E, CHUNK, 1, &ms, mesh, 0, NULL};
  lbs_trace_writer *w;
  if (lbs_trace_create(path, &spec, &w)) die("create");
  for (int k = 0; k < NSTEPS; k++) {
    const double *cols[1] = {steps + (size_t)k * E};
    if (lbs_trace_write_step(w, step_ids[k], cols)) die("write");
  }
  if (lbs_trace_writer_close(&w)) die("close");
  lbs_trace *t;
  if (lbs_trace_open(path, &t)) die("open");
  f->file3 = (double)lbs_trace_file_bytes(t);
  int64_t part = E / 100, first = E / 2 - part / 2;
  for (int r = 0; r < 5; r++)
    for (int k = 0; k < NSTEPS; k++) {
      double t1 = now();
      if (lbs_trace_read(t, k, 0, 0, E, slots + (size_t)(slot++ % SLOTS) * E)) die("read");
      double t2 = now();
      for (int q = 0; q < 10; q++)
        if (lbs_trace_read(t, k, 0, first + q * 977, part, slots + (size_t)(slot % SLOTS) * E)) die("read");
      double t3 = now();
      f->full_read_s += t2 - t1;
      f->part_read_s += (t3 - t2) / 10;
      f->reads++;
    }
  lbs_trace_close(&t);
  remove(path);
  lbs_mesh_destroy(&mesh);
  for (int c = 0; c < NCH; c++) lbs_buf_free(&enc->blob[c]);
  free(enc);
  free(zbuf);
  free(slots);
  free(steps);
  lbs_codec_ctx_destroy(&ctx);
  lbs_gen_destroy(&g);
}

static void report(const char *kind, const figures *f) {
  double n = (double)E * NSTEPS, mb = f->raw / 1e6;
  printf("\n%s: %d elements x %d steps (app steps %lld..%lld of 300), chunk %d\n", kind, E, NSTEPS,
         (long long)step_ids[0], (long long)step_ids[NSTEPS - 1], CHUNK);
  printf("  %-44s %14s %14s %9s\n", "figure", "lbsim", "baseline", "ratio");
  printf("  %-44s %14.1f %14s %9s   goal >= 50\n", "encode, M elements/s (eps 1e-3 of range)", n / f->enc_s / 1e6, "", "");
  printf("  %-44s %14.1f %14.1f %9.2f   goal >= 0.50 (baseline: memory fill)\n", "decode, M elements/s",
         n / f->dec_s / 1e6, n / f->fill_s / 1e6, f->fill_s / f->dec_s);
  printf("  %-44s %14.1f %14.1f %9.2f   (baseline: zstd -1 decompress)\n", "decode, MB/s of doubles", mb / f->dec_s,
         mb / f->zstd_d_s, f->zstd_d_s / f->dec_s);
  printf("  %-44s %14.1f %14.1f %9.2f   (baseline: zstd -1 compress)\n", "encode, MB/s of doubles", mb / f->enc_s,
         mb / f->zstd_c_s, f->zstd_c_s / f->enc_s);
  printf("  %-44s %14s %14.1f %9s   MB/s compress %.1f, decompress %.1f\n", "zstd -1 ratio on raw doubles", "",
         f->raw / f->zstd, "", mb / f->zstd_c_s, mb / f->zstd_d_s);
  printf("  %-44s %14s %14.1f %9s   MB/s compress %.1f, decompress %.1f\n", "zlib -6 ratio on raw doubles", "",
         f->raw / f->zlib, "", mb / f->zlib_c_s, mb / f->zlib_d_s);
  printf("  %-44s %14.1f %14.1f %9.1f   goal (bump) >= 100 x smaller than zstd -1\n",
         "ratio at eps 1e-3 of range (codec bytes)", f->raw / f->ours3, f->raw / f->zstd, f->zstd / f->ours3);
  printf("  %-44s %14.1f %14.1f %9.1f   (whole SQLite file, all overhead)\n", "ratio at eps 1e-3 of range (trace file)",
         f->raw / f->file3, f->raw / f->zstd, f->zstd / f->file3);
  printf("  %-44s %14.1f %14.1f %9.1f\n", "ratio at eps 1e-2 of range (codec bytes)", f->raw / f->ours2,
         f->raw / f->zstd, f->zstd / f->ours2);
  printf("  %-44s %14.3g %14s %9s   bound 1e-3\n", "max |error| / range at eps 1e-3", f->max_err_rel, "", "");
  printf("  %-44s %14.3f %14.3f %9.4f   goal <= 0.02 (1%% of a step vs all of it, SQLite file)\n",
         "read of 1% of a step, ms", 1e3 * f->part_read_s / (double)f->reads,
         1e3 * f->full_read_s / (double)f->reads, f->part_read_s / f->full_read_s);
}

int main(void) {
  printf("bench/trace_codec: polyline codec and trace store against memory fill, zstd and zlib\n");
  figures f;
  run("bump", &f);
  report("bump", &f);
  run("hotspot", &f);
  report("hotspot (2% noise)", &f);
  return 0;
}
