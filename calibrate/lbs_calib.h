/* lbs_calib.h - calibration: implementations measured as black boxes (seed 004, chapters 3-4).
 *
 *   adapter (4.2.3)   a kernel's work-metric interface: RoundMetric, NextMetric, CalcMetric,
 *                     CreateParams, DeleteParams (Table 4-2), plus random parameters for
 *                     verification and an output check for tests
 *   implementation    a kernel on a target: cpu (one thread), threads (pthreads), opencl (any
 *                     ICD; PoCL on this machine), cuda (built with nvcc, run where a GPU is)
 *   IA heuristic      (4.3) samples an implementation through its adapter and builds an
 *                     implementation performance graph (IPG): work metric -> seconds,
 *                     piecewise linear, to a requested accuracy
 *   calibration db    IPGs with their samples, machine, date and parameters (SQLite)
 *
 * Work metrics are doubles holding integral values (elements, multiply-adds, ...); times are
 * seconds. */
#ifndef LBS_CALIB_H
#define LBS_CALIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lbs_core.h"

/* ---------------------------------------------------------------- adapters (4.2) */

typedef struct lbs_adapter {
  const char *kernel; /* "sort", "matmul", "dot", "conv1d", "wave", "walk", "bhforce" */
  /* what one unit of work metric is: its unit first, any detail after in parentheses,
   * "elements", "multiply-adds (m*n*p)" (lbs_ipg_metric_unit; IPGs record it) */
  const char *metric;
  const char *help; /* one line: the function and its usage assumption */
  double lo, hi;    /* default work-metric range of `lbsim calibrate run` */
  /* RoundMetric: the valid work metric closest to w (w may be any double >= 0). */
  double (*round_metric)(double w);
  /* NextMetric: the smallest valid work metric greater than w. */
  double (*next_metric)(double w);
  /* CalcMetric: the work metric of invocation parameters. */
  double (*calc_metric)(const void *params);
  /* CreateParams: representative parameters for a valid metric w, data drawn from seed
   * (lbs_rng_*), outputs allocated. LBS_NOMEM, or LBS_RANGE for a metric the kernel cannot
   * take (the message says why). */
  lbs_err (*create_params)(double w, uint64_t seed, void **params);
  /* Random parameters stressing every degree of freedom of the invocation (lengths, shapes,
   * values) with a metric in [lo, hi], for `calibrate verify` (the thesis' 250 random
   * invocations). calc_metric gives their metric. */
  lbs_err (*random_params)(double lo, double hi, uint64_t seed, void **params);
  /* DeleteParams; NULL-safe. */
  void (*delete_params)(void *params);
  /* Checks the outputs an implementation left in params against a reference computed here:
   * 0 when right (within a tolerance for floating point), else -1 with why filled. */
  int (*check)(const void *params, char *why, size_t n);
} lbs_adapter;

/* ---------------------------------------------------------------- implementations (3.3) */

typedef struct lbs_impl_args {
  int threads; /* target threads: number of threads (0: the online CPUs) */
  int device;  /* opencl: device index over all platforms; cuda: device number */
} lbs_impl_args;

typedef struct lbs_impl_ops {
  const char *kernel; /* its adapter's kernel */
  const char *target; /* "cpu", "threads", "opencl", "cuda" */
  /* Opens the target: thread count, OpenCL context, queue and built program, CUDA device.
   * Not timed. Writes a description of the device into device[n] ("cpu: <model>",
   * "threads:2: <model>", "opencl: <platform> / <device>", "cuda: <name>"). LBS_NOTFOUND with
   * a message when the target has no device here (no OpenCL platform, no GPU). */
  lbs_err (*open)(void **ctx, const lbs_impl_args *args, char *device, size_t n);
  /* One invocation on parameters made by the adapter; the measured thing, so it includes
   * transfers to and from a device. Leaves the outputs in params. */
  lbs_err (*execute)(void *ctx, void *params);
  void (*close)(void *ctx); /* NULL-safe */
} lbs_impl_ops;

/* The built-in adapters and implementations; names of implementations are "kernel.target"
 * ("sort.threads"). NULL past the end. */
const lbs_adapter *lbs_adapter_at(int i);
const lbs_adapter *lbs_adapter_find(const char *kernel);
const lbs_impl_ops *lbs_impl_at(int i);
/* LBS_NOTFOUND naming the known ones (and saying when a target was not built). */
lbs_err lbs_impl_find(const char *name, const lbs_impl_ops **out);
/* "kernel.target" into buf. */
const char *lbs_impl_name(const lbs_impl_ops *ops, char *buf, size_t n);

/* ---------------------------------------------------------------- clock and measurement */

/* Seconds from an arbitrary origin. The default reads CLOCK_MONOTONIC; tests pass a fake one
 * that a fake implementation advances. */
typedef struct lbs_clock {
  double (*now)(void *ctx);
  void *ctx;
} lbs_clock;
extern const lbs_clock lbs_clock_monotonic;

/* One sample: CreateParams(w) -> time Execute -> DeleteParams. */
lbs_err lbs_calib_measure(const lbs_adapter *a, const lbs_impl_ops *impl, void *ctx, double w,
                          uint64_t seed, const lbs_clock *clk, double *seconds);

/* ---------------------------------------------------------------- IPGs */

/* An implementation performance graph: points in ascending work metric, linear between them
 * (4.3, Figure 4-3). Below the first point the time is the first point's; beyond the last,
 * the last segment's slope goes on. */
typedef struct lbs_ipg {
  int n;
  double *w, *t; /* n each, owned */
} lbs_ipg;
double lbs_ipg_eval(const lbs_ipg *g, double w);
/* The unit of an IPG's work metric as its record holds it (lbs_ipg_rec.metric, an adapter's
 * metric): the text before any " (", blanks trimmed ("cells (of 4^3 points)": "cells"), into
 * buf[n], returned; "" when the record says nothing of it: empty, or "imported" (samples
 * measured elsewhere, in units only their importer knows). */
const char *lbs_ipg_metric_unit(const char *metric, char *buf, size_t n);
void lbs_ipg_free(lbs_ipg *g); /* leaves it empty */

typedef struct lbs_sample {
  double w, t;
} lbs_sample;

/* ---------------------------------------------------------------- the IA heuristic (4.3) */

/* A spacing or error bound (Table 4-3): pct percent of a time, clamped to [min_s, max_s]
 * (max_s 0: no upper bound). */
typedef struct lbs_ia_bound {
  double pct, min_s, max_s;
} lbs_ia_bound;
double lbs_ia_bound_at(const lbs_ia_bound *b, double t);

typedef struct lbs_ia_opts {
  lbs_ia_bound accuracy; /* the requested accuracy: what the others derive from */
  int window;            /* active segment window: right-most segments that may still change */
  lbs_ia_bound sets;     /* sampling execution time spacing: where the next sample goes */
  lbs_ia_bound mets;     /* maximum execution time spacing between a candidate's samples */
  lbs_ia_bound ci;       /* segment confidence threshold: widest confidence interval */
  double confidence;     /* of those intervals, e.g. 0.95 */
  int max_point_samples; /* a point with this many samples is a candidate whatever its spread */
  lbs_ia_bound set;      /* sample error threshold: when a sample counts as badly estimated */
  int max_samples;       /* stop (incomplete) after this many samples */
  double max_seconds;    /* stop (incomplete) after this much sampling time; 0: no limit */
} lbs_ia_opts;
/* Defaults from an accuracy (percent, absolute floor and ceiling in seconds; see ia.c). */
void lbs_ia_defaults(lbs_ia_opts *o, double accuracy_pct, double min_abs_s, double max_abs_s);

/* The valid work metrics: [lo, hi] and the adapter's RoundMetric and NextMetric. */
typedef struct lbs_ia_space {
  double lo, hi;
  double (*round_metric)(double w);
  double (*next_metric)(double w);
} lbs_ia_space;

/* Measures one sample at metric w (seconds > 0); an error stops the heuristic. */
typedef lbs_err (*lbs_ia_sample_fn)(void *ctx, double w, double *seconds);

typedef struct lbs_ia_result {
  lbs_ipg ipg;
  lbs_sample *samples; /* in the order taken, owned */
  int nsamples;
  int complete; /* the IPG covers [lo, hi] */
  int iterations;
  double sample_s; /* time the samples took (sum of their seconds) */
  double noise;    /* relative noise of one sample (robust, from repeated metrics; 0 if none) */
  char note[256];  /* a warning about the result ("" when none): times that fall with work */
} lbs_ia_result;
void lbs_ia_result_free(lbs_ia_result *r);

/* Progress callback: frontier metric and samples so far (may be NULL). */
typedef void (*lbs_ia_progress_fn)(void *ctx, double frontier, int nsamples);

/* Runs the heuristic. On an error from the sampler, or a limit reached, the result holds what
 * was built (complete = 0) and the error is returned (LBS_RANGE for a limit). */
lbs_err lbs_ia_run(const lbs_ia_opts *o, const lbs_ia_space *sp, lbs_ia_sample_fn f, void *ctx,
                   lbs_ia_progress_fn progress, void *pctx, lbs_ia_result *res);

/* ---------------------------------------------------------------- the calibration database
 *
 * One SQLite file (calib.db), schema version LBS_CALIB_SCHEMA in meta('schema'); PRAGMA
 * application_id 'LBSC' (db.c has the CREATE statements):
 *   meta(key, value)        format ('lbsim-calibration'), schema, created (ISO 8601 UTC), lbsim
 *                           (the version that made the file)
 *   runs(id, started, command, machine)   one `calibrate run` or `import`; machine: JSON
 *   ipgs(id, run_id, impl, kernel, device, metric, lo, hi, status, message, created, seconds,
 *        params, npoints, points, points_crc, nsamples, samples, samples_crc)
 *        status: complete | partial | failed; params: JSON of the heuristic's parameters;
 *        points, samples: little-endian (w, t) double pairs, CRC-32 each; run_id NULL when none;
 *        a NaN lo, hi or seconds is kept as NULL
 *   verifies(id, ipg_id, created, n, floor_s, mean_err, rms_err, max_err, mean_err_floor, points,
 *            points_crc)
 *        points: little-endian (w, measured t, IPG estimate) double triples, CRC-32
 *   plans, plan_impls, plan_graphs   RACECAR plans (schema 2; lbs_plan.h): a plan's node,
 *        template, splits (little-endian (ws_a, ws_b) pairs), implementations, and per working
 *        set its FPG and PG pieces (x0, x1, t0, t1, a0, a1, src) as little-endian doubles;
 *        a version 1 file opened for writing gets these tables and becomes version 2
 * Every CRC is checked on every read (LBS_CORRUPT naming the table row and the blob). Every IPG
 * is written in its own transaction as soon as it is done, so a run killed half way keeps what
 * completed. */
#define LBS_CALIB_SCHEMA 2
typedef struct lbs_calib_db lbs_calib_db;

/* Opens (create: makes a new file or opens an existing one; else the file must be a
 * calibration database, opened read-only when it cannot be written) a calibration database.
 * LBS_FORMAT when the file is not one (another SQLite file is never modified), LBS_VERSION
 * naming both versions when its schema is another, LBS_CORRUPT when SQLite finds it damaged,
 * LBS_IO/LBS_DB with the path. Refuses a path that is not a regular file (FIFO, directory,
 * device: LBS_IO, at once). */
lbs_err lbs_calib_open(const char *path, int create, lbs_calib_db **out);
void lbs_calib_close(lbs_calib_db **db); /* NULL-safe, clears *db */

/* A row in runs (started now); machine_json may be NULL. *run_id for lbs_ipg_rec.run_id. */
lbs_err lbs_calib_begin_run(lbs_calib_db *db, const char *command, const char *machine_json,
                            int64_t *run_id);

typedef struct lbs_ipg_rec {
  int64_t id, run_id;
  char impl[64], kernel[32], device[160], metric[64], status[16];
  char message[512];
  char created[32]; /* ISO 8601 UTC */
  double lo, hi;
  double seconds;      /* time to build it (sampling included) */
  char *params;        /* JSON, owned (may be NULL) */
  lbs_ipg ipg;         /* owned */
  lbs_sample *samples; /* owned */
  int nsamples;
} lbs_ipg_rec;
void lbs_ipg_rec_free(lbs_ipg_rec *r); /* frees owned parts, leaves it zeroed */

/* Writes one IPG (its own transaction); sets r->id, and r->kernel (the part of impl before the
 * '.') and r->created (now) when they are empty. run_id 0: no run; else it must be in runs
 * (LBS_NOTFOUND). LBS_INVAL for a status other than complete, partial, failed, an empty impl or
 * a complete IPG without points; LBS_RANGE for non-finite points or samples, or points not in
 * ascending metric. */
lbs_err lbs_calib_put_ipg(lbs_calib_db *db, lbs_ipg_rec *r);

/* All IPG records, in id order (with points and samples; CRCs checked: LBS_CORRUPT naming
 * the row). *recs owned by the caller: free each with lbs_ipg_rec_free, then free(). */
lbs_err lbs_calib_list(lbs_calib_db *db, lbs_ipg_rec **recs, int *n);

/* The newest complete IPG of impl on device (device NULL or "": the only device impl has;
 * LBS_INVAL listing them when there are several). LBS_NOTFOUND naming what the database
 * holds. */
lbs_err lbs_calib_get(lbs_calib_db *db, const char *impl, const char *device, lbs_ipg_rec *out);

typedef struct lbs_verify {
  int n;                             /* invocations */
  double floor_s;                    /* absolute floor of the errors */
  double mean_err, rms_err, max_err; /* |measured - IPG| / measured */
  double mean_err_floor;             /* |measured - IPG| / max(measured, floor) */
  lbs_sample *points;                /* the n measured invocations (w, measured t), owned */
  double *pred;                      /* n IPG estimates, owned */
  int64_t id, ipg_id; /* filled by lbs_calib_list_verifies; put_verify ignores them */
  char created[32];   /* ISO 8601 UTC; likewise */
} lbs_verify;
/* Writes one verification of IPG ipg_id (LBS_NOTFOUND when it is not there). */
lbs_err lbs_calib_put_verify(lbs_calib_db *db, int64_t ipg_id, const lbs_verify *v);
/* The verifications of IPG ipg_id (0: all), in id order, CRCs checked. *v owned by the caller:
 * free each with lbs_verify_free, then free(). */
lbs_err lbs_calib_list_verifies(lbs_calib_db *db, int64_t ipg_id, lbs_verify **v, int *n);
void lbs_verify_free(lbs_verify *v); /* frees points and pred, leaves it zeroed; NULL-safe */

/* Exports: JSON of meta, every run, IPG (points, samples) and verification to f (strings
 * escaped, invalid UTF-8 as U+FFFD, NaN and infinities as null, JSON columns embedded when
 * valid JSON, else as strings); CSV files (RFC 4180 quoting, non-finite numbers empty)
 * ipgs.csv (one row per IPG), points.csv (ipg_id, w, t), samples.csv (ipg_id, seq, w, t)
 * and verifies.csv into dir (made when missing). Each CSV file is written beside its name
 * and renamed over it: only a regular file is replaced (anything else there: LBS_IO). LBS_IO
 * when a write fails. */
lbs_err lbs_calib_export_json(lbs_calib_db *db, FILE *f);
lbs_err lbs_calib_export_csv(lbs_calib_db *db, const char *dir);

/* Samples measured elsewhere: a CSV with a header line naming the columns implementation,
 * device, metric, seconds (any order, extra columns ignored; '#' comments, blank lines).
 * Groups the rows by (implementation, device) in file order. Errors name file:line. */
typedef struct lbs_import_group {
  char impl[64], device[160];
  lbs_sample *samples; /* owned */
  int n;
} lbs_import_group;
lbs_err lbs_calib_read_csv(const char *path, lbs_import_group **groups, int *ngroups);
void lbs_import_groups_free(lbs_import_group *g, int n);

/* An IPG through samples measured elsewhere (no sampling decisions to make): the medians of
 * the samples at each metric, joined, then merged into the fewest segments that keep every
 * median within the accuracy bound. LBS_RANGE for fewer than 2 distinct metrics, negative or
 * non-finite values, or times that fall with more work beyond the bound (the message says
 * where). */
lbs_err lbs_ipg_from_samples(const lbs_sample *s, int n, const lbs_ia_bound *accuracy,
                             lbs_ipg *out);

#endif
