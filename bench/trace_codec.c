/* bench/trace_codec - the trace codecs and store against their baselines, side by side.
 *
 * On a 1M-element bump trace (100x100x100, the seed's MRTD pulse), the same with measured-
 * looking noise (`trace gen --noise default`) and a noisy hotspot trace (2% noise), for a few
 * steps spread over a 300-step run, in one run, at the default settings (codec auto, bound
 * LBS_BOUND_DEFAULT) and at the trace-store issue's setting (polyline, range:1e-3):
 *  - encode speed (one core, the store's chunking);
 *  - decode speed into a 128 MiB rotating buffer (larger than the 32 MiB L3 here) against
 *    a memory fill of the same buffer with a linear formula;
 *  - zstd -1 and zlib -6 on the raw doubles: ratio, compression and decompression speed;
 *  - our ratio (codec bytes, and real trace-file bytes at the default), largest error against
 *    the bound, worst chunk sum;
 *  - through a real SQLite trace file: reading 1% of a step against reading all of it.
 * Figures are printed with their ratios; bench/RESULTS.md records them. No pass/fail.
 *
 * `bench_trace_codec --once` encodes and decodes one step of each trace once at the default
 * settings and prints the bytes: for instruction counts (`valgrind --tool=callgrind`, inclusive
 * counts of lbs_codec_encode and lbs_codec_decode), which are repeatable where wall time on a
 * shared machine is not.
 *
 * `bench_trace_codec --decode` decodes step 120 of each trace (default settings) DECODE_REPS
 * times against as many fills of the same rotating buffer, in the thread's CPU time (a neighbour's
 * load preempts the wall clock's figures, not these; it still shares the caches and the memory),
 * and the zstd stage alone (chunks decoded for no element: the payload unpacked, the header read):
 * the best of each, in ns a value.
 *
 * `bench_trace_codec --encode` encodes step 120 of each trace (default settings) ENCODE_REPS
 * times, in the thread's CPU time: the best and the median, in M elements/s. */
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

/* Encodes a step in store-sized chunks within b (a range bound resolved as the store does);
 * returns seconds. */
static double encode_step(lbs_codec_ctx *ctx, lbs_codec codec, lbs_bound b, const double *v,
                          encoded *out) {
  double t0 = now();
  out->bytes = 0;
  if (b.kind == LBS_BOUND_RANGE) b = (lbs_bound){LBS_BOUND_ABS, b.eps * range_of(v)};
  for (int c = 0; c < NCH; c++) {
    size_t n = (size_t)(E - c * CHUNK < CHUNK ? E - c * CHUNK : CHUNK);
    out->blob[c].len = 0;
    if (lbs_codec_encode(ctx, codec, v + c * CHUNK, n, b, &out->blob[c], &out->codec[c]))
      die("encode");
    out->bytes += out->blob[c].len;
  }
  return now() - t0;
}

static double decode_step(lbs_codec_ctx *ctx, const encoded *enc, double *out) {
  double t0 = now();
  for (int c = 0; c < NCH; c++) {
    size_t n = (size_t)(E - c * CHUNK < CHUNK ? E - c * CHUNK : CHUNK);
    if (lbs_codec_decode(ctx, enc->codec[c], enc->blob[c].data, enc->blob[c].len, n, 0, n,
                         out + c * CHUNK))
      die("decode");
  }
  return now() - t0;
}

static double fill_step(double *out, double a, double b) {
  double t0 = now();
  for (int64_t c = 0; c < E; c += CHUNK) /* the decoder's formula, chunk by chunk */
    for (int32_t k = 0; k < (int32_t)(E - c < CHUNK ? E - c : CHUNK); k++)
      out[c + k] = a + b * (double)k;
  return now() - t0;
}

/* What is measured of one codec setting. */
typedef struct {
  const char *label;
  lbs_codec codec;
  const char *bound;
  double enc_s, dec_s, fill_s, bytes, max_err, max_sum_err; /* max_err: of the bound, 1 = at it */
  int64_t chunks[4];
} setting;

#define NSET 3

typedef struct {
  setting set[NSET];
  double zstd_c_s, zstd_d_s, zlib_c_s, zlib_d_s;
  double raw, file, zstd, zlib;
  double full_read_s, part_read_s;
  int64_t reads;
} figures;

/* What run() works with: the steps generated, the codec's context, the buffers, and the next
 * output slot (the slots rotate, so that what is written there does not stay in cache). */
typedef struct {
  lbs_codec_ctx *ctx;
  double *steps; /* NSTEPS x E values */
  double *slots; /* SLOTS x E outputs */
  encoded *enc;  /* a step encoded */
  uint8_t *zbuf; /* zcap bytes: zstd's and zlib's output */
  size_t zcap;
  int slot; /* the next output slot, modulo SLOTS */
} scratch;

/* One codec setting on step v (of range rng): the best of REPS encodes and decodes, and fills
 * of the same buffer, the bytes and the chunks of each codec, the largest error against the
 * bound and the worst chunk sum; added to st. */
static void measure_setting(scratch *s, setting *st, const double *v, double rng) {
  lbs_bound b;
  if (lbs_bound_parse(st->bound, &b)) die("bound");
  double best = INFINITY, bestfill = INFINITY, bestdec = INFINITY;
  for (int r = 0; r < REPS; r++) best = fmin(best, encode_step(s->ctx, st->codec, b, v, s->enc));
  st->enc_s += best;
  st->bytes += (double)s->enc->bytes;
  for (int c = 0; c < NCH; c++) st->chunks[s->enc->codec[c]]++;
  for (int r = 0; r < REPS; r++) {
    bestdec =
        fmin(bestdec, decode_step(s->ctx, s->enc, s->slots + (size_t)(s->slot++ % SLOTS) * E));
    bestfill = fmin(bestfill, fill_step(s->slots + (size_t)(s->slot++ % SLOTS) * E, v[0], 1e-9));
  }
  st->dec_s += bestdec;
  st->fill_s += bestfill;
  double *d = s->slots + (size_t)((s->slot - 2) % SLOTS) * E;
  decode_step(s->ctx, s->enc, d);
  for (int64_t i = 0; i < E; i++) {
    double tol = lbs_bound_tolerance(b, v[i], rng);
    if (tol > 0) st->max_err = fmax(st->max_err, fabs(d[i] - v[i]) / tol);
  }
  for (int64_t c = 0; c < E; c += CHUNK)
    st->max_sum_err =
        fmax(st->max_sum_err, lbs_sum_error(v + c, d + c, (size_t)(E - c < CHUNK ? E - c : CHUNK)));
}

/* zstd -1 (best of REPS) and zlib -6 on step v's raw doubles: bytes and times added to f. */
static void measure_raw(scratch *s, const double *v, figures *f) {
  double tc = INFINITY, td = INFINITY;
  size_t zn = 0;
  for (int r = 0; r < REPS; r++) {
    double t0 = now();
    zn = ZSTD_compress(s->zbuf, s->zcap, v, E * 8, 1);
    tc = fmin(tc, now() - t0);
    t0 = now();
    ZSTD_decompress(s->slots + (size_t)(s->slot++ % SLOTS) * E, E * 8, s->zbuf, zn);
    td = fmin(td, now() - t0);
  }
  f->zstd += (double)zn;
  f->zstd_c_s += tc;
  f->zstd_d_s += td;
  uLongf zl = (uLongf)s->zcap;
  double t0 = now();
  compress2(s->zbuf, &zl, (const Bytef *)v, E * 8, 6);
  f->zlib_c_s += now() - t0;
  f->zlib += (double)zl;
  uLongf dl = E * 8;
  t0 = now();
  uncompress((Bytef *)(s->slots + (size_t)(s->slot++ % SLOTS) * E), &dl, s->zbuf, zl);
  f->zlib_d_s += now() - t0;
  f->raw += E * 8.0;
}

/* A real trace file with the steps at the default settings (a temporary file, removed after):
 * its bytes, and reading 1% of a step against reading all of it, into f. */
static void measure_file(scratch *s, figures *f) {
  char path[] = "/tmp/lbs_bench_XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  remove(path);
  lbs_mesh *mesh;
  lbs_mesh_create_structured(NX, NX, NX, LBS_ORDER_NATURAL, &mesh);
  lbs_metric_spec ms = {"time_ns", "ns", LBS_CODEC_AUTO, {LBS_BOUND_LOSSLESS, 0}, {0, 0}};
  lbs_bound_parse(LBS_BOUND_DEFAULT, &ms.bound);
  lbs_trace_spec spec = {E, CHUNK, 1, &ms, mesh, 0, NULL};
  lbs_trace_writer *w;
  if (lbs_trace_create(path, &spec, &w)) die("create");
  for (int k = 0; k < NSTEPS; k++) {
    const double *cols[1] = {s->steps + (size_t)k * E};
    if (lbs_trace_write_step(w, step_ids[k], cols)) die("write");
  }
  if (lbs_trace_writer_close(&w)) die("close");
  lbs_trace *t;
  if (lbs_trace_open(path, &t)) die("open");
  f->file = (double)lbs_trace_file_bytes(t);
  int64_t part = E / 100, first = E / 2 - part / 2;
  for (int r = 0; r < 5; r++)
    for (int k = 0; k < NSTEPS; k++) {
      double t1 = now();
      if (lbs_trace_read(t, k, 0, 0, E, s->slots + (size_t)(s->slot++ % SLOTS) * E)) die("read");
      double t2 = now();
      for (int q = 0; q < 10; q++)
        if (lbs_trace_read(t, k, 0, first + q * 977, part,
                           s->slots + (size_t)(s->slot % SLOTS) * E))
          die("read");
      double t3 = now();
      f->full_read_s += t2 - t1;
      f->part_read_s += (t3 - t2) / 10;
      f->reads++;
    }
  lbs_trace_close(&t);
  remove(path);
  lbs_mesh_destroy(&mesh);
}

/* Measures the trace of kind (with noise, a --noise spec, or NULL) into f: each setting and the
 * raw baselines on every step, then the trace file. */
static void run(const char *kind, const char *noise, figures *f) {
  lbs_gen_params gp = {kind, NX, NX, NX, 300, 1, {0, 0, 0}};
  if (noise && lbs_gen_noise_parse(noise, &gp.noise)) die("noise");
  lbs_gen *g;
  if (lbs_gen_create(&gp, &g)) die("generator");
  scratch s = {0};
  lbs_codec_ctx_create(&s.ctx);
  s.steps = malloc((size_t)NSTEPS * E * sizeof(double));
  s.slots = malloc((size_t)SLOTS * E * sizeof(double));
  s.enc = calloc(1, sizeof *s.enc);
  s.zcap = ZSTD_compressBound(E * 8);
  s.zbuf = malloc(s.zcap);
  memset(f, 0, sizeof *f);
  f->set[0] = (setting){.label = "auto " LBS_BOUND_DEFAULT " (default)",
                        .codec = LBS_CODEC_AUTO,
                        .bound = LBS_BOUND_DEFAULT};
  f->set[1] = (setting){.label = "auto rel:0.01", .codec = LBS_CODEC_AUTO, .bound = "rel:0.01"};
  f->set[2] = (setting){
      .label = "polyline range:1e-3 (before)", .codec = LBS_CODEC_POLYLINE, .bound = "range:1e-3"};
  memset(s.slots, 0, (size_t)SLOTS * E * sizeof(double)); /* fault the pages in once */
  for (int k = 0; k < NSTEPS; k++) {
    double *v = s.steps + (size_t)k * E;
    lbs_gen_step(g, step_ids[k], 0, NULL, v);
    double rng = range_of(v);
    for (int si = 0; si < NSET; si++) measure_setting(&s, &f->set[si], v, rng);
    measure_raw(&s, v, f);
  }
  measure_file(&s, f);
  for (int c = 0; c < NCH; c++) lbs_buf_free(&s.enc->blob[c]);
  free(s.enc);
  free(s.zbuf);
  free(s.slots);
  free(s.steps);
  lbs_codec_ctx_destroy(&s.ctx);
  lbs_gen_destroy(&g);
}

static void report(const char *kind, const figures *f) {
  double n = (double)E * NSTEPS, mb = f->raw / 1e6;
  printf("\n%s: %d elements x %d steps (app steps %lld..%lld of 300), chunk %d\n", kind, E, NSTEPS,
         (long long)step_ids[0], (long long)step_ids[NSTEPS - 1], CHUNK);
  printf("  %-46s %12s %12s %9s\n", "figure", "lbsim", "baseline", "ratio");
  printf("  %-46s %12s %12.1f %9s   MB/s compress %.1f, decompress %.1f\n",
         "zstd -1 ratio on raw doubles", "", f->raw / f->zstd, "", mb / f->zstd_c_s,
         mb / f->zstd_d_s);
  printf("  %-46s %12s %12.1f %9s   MB/s compress %.1f, decompress %.1f\n",
         "zlib -6 ratio on raw doubles", "", f->raw / f->zlib, "", mb / f->zlib_c_s,
         mb / f->zlib_d_s);
  for (int si = 0; si < NSET; si++) {
    const setting *st = &f->set[si];
    char l[96];
    printf("  %s: chunks lossless/polyline/quant %lld/%lld/%lld\n", st->label,
           (long long)st->chunks[1], (long long)st->chunks[2], (long long)st->chunks[3]);
    snprintf(l, sizeof l, "  encode, M elements/s");
    printf("  %-46s %12.1f %12.1f %9.2f   goal >= 50 (baseline: zstd -1 compress, M doubles/s)\n",
           l, n / st->enc_s / 1e6, n / f->zstd_c_s / 1e6, f->zstd_c_s / st->enc_s);
    printf("  %-46s %12.1f %12.1f %9.2f   goal >= 0.50 (baseline: memory fill)\n",
           "  decode, M elements/s", n / st->dec_s / 1e6, n / st->fill_s / 1e6,
           st->fill_s / st->dec_s);
    printf("  %-46s %12.1f %12.1f %9.1f   goal (bump) >= 100 x smaller than zstd -1\n",
           "  ratio (codec bytes)", f->raw / st->bytes, f->raw / f->zstd, f->zstd / st->bytes);
    printf("  %-46s %12.3f %12s %9s   (1 = at the bound %s)\n", "  largest error / bound",
           st->max_err, "", "", st->bound);
    printf("  %-46s %12.2g %12s %9s   goal <= 1e-9\n", "  worst chunk sum error", st->max_sum_err,
           "", "");
  }
  printf("  %-46s %12.1f %12.1f %9.1f   (whole SQLite file, default settings)\n",
         "ratio (trace file)", f->raw / f->file, f->raw / f->zstd, f->zstd / f->file);
  printf("  %-46s %12.3f %12.3f %9.4f   goal <= 0.02 (1%% of a step vs all of it, SQLite file)\n",
         "read of 1% of a step, ms", 1e3 * f->part_read_s / (double)f->reads,
         1e3 * f->full_read_s / (double)f->reads, f->part_read_s / f->full_read_s);
}

/* The FNV-1a hash of n decoded values' bytes, as hex (static storage). */
static const char *decoded_hash(const double *d) {
  static char s[17];
  uint64_t h = 14695981039346656037u;
  const uint8_t *b = (const uint8_t *)d;
  for (size_t j = 0; j < (size_t)E * 8; j++) h = (h ^ b[j]) * 1099511628211u;
  snprintf(s, sizeof s, "%016llx", (unsigned long long)h);
  return s;
}

/* The steps of --once, --decode and --encode: step 120 of the smooth bump, the noisy bump and
 * the hotspot trace (1M elements each). */
static const struct {
  const char *kind, *noise;
} traces[] = {{"bump", NULL}, {"bump", "default"}, {"hotspot", NULL}};
#define NSTEP120 (sizeof traces / sizeof *traces)
static const char *step120_name(size_t t) {
  return traces[t].noise ? "bump --noise default" : traces[t].kind;
}
/* Trace t's step 120 into v. */
static void step120(size_t t, double *v) {
  lbs_gen_params gp = {traces[t].kind, NX, NX, NX, 300, 1, {0, 0, 0}};
  lbs_gen *g;
  if ((traces[t].noise && lbs_gen_noise_parse(traces[t].noise, &gp.noise)) ||
      lbs_gen_create(&gp, &g))
    die("generator");
  lbs_gen_step(g, 120, 0, NULL, v);
  lbs_gen_destroy(&g);
}

/* --once: step 120 of each trace encoded and decoded once at the default settings. */
static int once(void) {
  lbs_bound b;
  if (lbs_bound_parse(LBS_BOUND_DEFAULT, &b)) die("bound");
  lbs_codec_ctx *ctx;
  if (lbs_codec_ctx_create(&ctx)) die("context");
  double *v = malloc(E * sizeof *v), *d = malloc(E * sizeof *d);
  encoded *enc = calloc(1, sizeof *enc);
  if (!v || !d || !enc) die("out of memory");
  for (size_t t = 0; t < NSTEP120; t++) {
    step120(t, v);
    encode_step(ctx, LBS_CODEC_AUTO, b, v, enc);
    decode_step(ctx, enc, d);
    int64_t chunks[4] = {0};
    uint64_t h = 14695981039346656037u; /* FNV-1a of the blobs: the same bytes, the same hash */
    for (int c = 0; c < NCH; c++) {
      chunks[enc->codec[c]]++;
      for (size_t j = 0; j < enc->blob[c].len; j++) h = (h ^ enc->blob[c].data[j]) * 1099511628211u;
    }
    printf("%s%s%s: %d elements, %zu bytes (lossless/polyline/quant chunks %lld/%lld/%lld), blobs "
           "%016llx, decoded %s\n",
           traces[t].kind, traces[t].noise ? " --noise " : "",
           traces[t].noise ? traces[t].noise : "", E, enc->bytes, (long long)chunks[1],
           (long long)chunks[2], (long long)chunks[3], (unsigned long long)h, decoded_hash(d));
  }
  for (int c = 0; c < NCH; c++) lbs_buf_free(&enc->blob[c]);
  free(enc);
  free(d);
  free(v);
  lbs_codec_ctx_destroy(&ctx);
  return 0;
}

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Decodes every chunk of enc into out, elements [0, count) of each (count 0: the zstd stage and
 * the header alone); returns CPU seconds. */
static double decode_cpu(lbs_codec_ctx *ctx, const encoded *enc, double *out, int all) {
  double t0 = cpu_now();
  for (int c = 0; c < NCH; c++) {
    size_t n = (size_t)(E - c * CHUNK < CHUNK ? E - c * CHUNK : CHUNK);
    if (lbs_codec_decode(ctx, enc->codec[c], enc->blob[c].data, enc->blob[c].len, n, 0, all ? n : 0,
                         out + c * CHUNK))
      die("decode");
  }
  return cpu_now() - t0;
}

/* --decode: step 120 of each trace decoded against a fill, in CPU time (see the top). */
#define DECODE_REPS 25
static int decode_only(void) {
  lbs_bound b;
  lbs_codec_ctx *ctx;
  if (lbs_bound_parse(LBS_BOUND_DEFAULT, &b) || lbs_codec_ctx_create(&ctx)) die("setup");
  double *v = malloc(E * sizeof *v), *slots = malloc((size_t)SLOTS * E * sizeof *slots);
  encoded *enc = calloc(1, sizeof *enc);
  if (!v || !slots || !enc) die("out of memory");
  memset(slots, 0, (size_t)SLOTS * E * sizeof *slots); /* fault the pages in once */
  printf("%-22s %10s %10s %10s %10s %8s\n", "step 120, ns a value", "decode", "zstd", "rest",
         "fill", "fill/dec");
  for (size_t t = 0, s = 0; t < NSTEP120; t++) {
    step120(t, v);
    encode_step(ctx, LBS_CODEC_AUTO, b, v, enc);
    double dec = INFINITY, zst = INFINITY, fill = INFINITY;
    for (int r = 0; r < DECODE_REPS; r++) {
      dec = fmin(dec, decode_cpu(ctx, enc, slots + (s++ % SLOTS) * E, 1));
      zst = fmin(zst, decode_cpu(ctx, enc, slots, 0));
      double *o = slots + (s++ % SLOTS) * E, t0 = cpu_now();
      for (int64_t c = 0; c < E; c += CHUNK) /* fill_step's formula, in CPU time */
        for (int32_t k = 0; k < (int32_t)(E - c < CHUNK ? E - c : CHUNK); k++)
          o[c + k] = v[0] + 1e-9 * (double)k;
      fill = fmin(fill, cpu_now() - t0);
    }
    printf("%-22s %10.3f %10.3f %10.3f %10.3f %8.2f\n", step120_name(t), 1e9 * dec / E,
           1e9 * zst / E, 1e9 * (dec - zst) / E, 1e9 * fill / E, fill / dec);
  }
  for (int c = 0; c < NCH; c++) lbs_buf_free(&enc->blob[c]);
  free(enc);
  free(slots);
  free(v);
  lbs_codec_ctx_destroy(&ctx);
  return 0;
}

/* --encode: step 120 of each trace encoded ENCODE_REPS times at the default settings, the
 * best in the thread's CPU time (see the top), in M elements/s. */
#define ENCODE_REPS 15
static int encode_only(void) {
  lbs_bound b;
  lbs_codec_ctx *ctx;
  if (lbs_bound_parse(LBS_BOUND_DEFAULT, &b) || lbs_codec_ctx_create(&ctx)) die("setup");
  double *v = malloc(E * sizeof *v);
  encoded *enc = calloc(1, sizeof *enc);
  if (!v || !enc) die("out of memory");
  printf("%-22s %12s %12s\n", "step 120", "encode M/s", "median M/s");
  for (size_t t = 0; t < NSTEP120; t++) {
    step120(t, v);
    double sec[ENCODE_REPS];
    for (int r = 0; r < ENCODE_REPS; r++) {
      double t0 = cpu_now();
      encode_step(ctx, LBS_CODEC_AUTO, b, v, enc);
      sec[r] = cpu_now() - t0;
    }
    for (int i = 1; i < ENCODE_REPS; i++) /* sorted: the best and the median */
      for (int j = i; j > 0 && sec[j] < sec[j - 1]; j--) {
        double x = sec[j];
        sec[j] = sec[j - 1], sec[j - 1] = x;
      }
    printf("%-22s %12.1f %12.1f\n", step120_name(t), 1e-6 * E / sec[0],
           1e-6 * E / sec[ENCODE_REPS / 2]);
  }
  for (int c = 0; c < NCH; c++) lbs_buf_free(&enc->blob[c]);
  free(enc);
  free(v);
  lbs_codec_ctx_destroy(&ctx);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "--once")) return once();
  if (argc == 2 && !strcmp(argv[1], "--decode")) return decode_only();
  if (argc == 2 && !strcmp(argv[1], "--encode")) return encode_only();
  if (argc > 1) {
    fprintf(stderr, "usage: bench_trace_codec [--once | --decode | --encode]\n");
    return 2;
  }
  printf("bench/trace_codec: the trace codecs and store against memory fill, zstd and zlib\n");
  static figures f;
  run("bump", NULL, &f);
  report("bump", &f);
  run("bump", "default", &f);
  report("bump --noise default", &f);
  run("hotspot", NULL, &f);
  report("hotspot (2% noise)", &f);
  return 0;
}
