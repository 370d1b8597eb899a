/* lbs_calib_run.h - calibration jobs run in a child process (runner.c): the IA heuristic on
 * one implementation, or the verification of an IPG with random invocations. */
#ifndef LBS_CALIB_RUN_H
#define LBS_CALIB_RUN_H

#include "lbs_calib.h"

#define LBS_CALIB_MAX_REPEAT 15

typedef enum { LBS_JOB_IA = 0, LBS_JOB_VERIFY = 1 } lbs_calib_job_kind;

typedef struct lbs_calib_job {
  lbs_calib_job_kind kind;
  const lbs_adapter *adapter;
  const lbs_impl_ops *impl;
  int threads, device; /* lbs_impl_args */
  double lo, hi;       /* work-metric range */
  lbs_ia_opts opts;    /* LBS_JOB_IA */
  int nverify;         /* LBS_JOB_VERIFY: random invocations */
  int varied;    /* LBS_JOB_VERIFY: 0: CreateParams at log-uniform metrics (the usage assumptions
                  * the IPG was built under), 1: the adapter's random_params (varied shapes) */
  uint64_t seed; /* of the parameters' data */
  int repeat;    /* IA: a sample is the median of this many timed calls (1..LBS_CALIB_MAX_REPEAT) */
  double timeout_s;            /* the child is killed after this long; 0: no limit */
  lbs_ia_progress_fn progress; /* IA: frontier and samples; verify: invocations done twice */
  void *pctx;
} lbs_calib_job;

typedef struct lbs_calib_job_out {
  lbs_err err;       /* the job's own error (open failed, a sample failed, limit, timeout, crash) */
  char message[512]; /* its message, "" when none */
  char note[256];    /* the heuristic's warning */
  char device[160];  /* from the implementation's open() */
  int complete;      /* IA: the IPG covers the range; verify: all invocations done */
  lbs_ipg ipg;       /* IA: what was built (may be empty) */
  lbs_sample *samples; /* IA: samples; verify: (metric, measured seconds) per invocation */
  int nsamples;
  double seconds; /* wall time of the job */
} lbs_calib_job_out;

/* Runs a job in a forked child. Returns an error only when the job could not be run (fork,
 * pipe, memory); what happened to the job itself is in out (err, message), with every sample
 * received before a failure, a crash or the time limit. */
lbs_err lbs_calib_job_run(const lbs_calib_job *job, lbs_calib_job_out *out);
void lbs_calib_job_out_free(lbs_calib_job_out *o);

/* ---------------------------------------------------------------- what jobs leave (record.c) */

/* This machine as JSON text for runs.machine (host, cpu model, online cpus, os, lbsim's
 * version); NULL when out of memory. The caller frees it. */
char *lbs_calib_machine_json(void);
/* An IA job's outcome stored as an IPG record of run run_id: r gets the implementation's name,
 * kernel, device (the one the job opened, else the target), metric, status (complete; partial
 * when it has points; failed), message (the job's, then the heuristic's note), range, time, the
 * heuristic's parameters (JSON) and, borrowed from out, the IPG and samples: r must not be freed.
 * lbs_calib_put_ipg's errors; r->id is the new row's. */
lbs_err lbs_calib_store_ia(lbs_calib_db *db, int64_t run_id, const lbs_calib_job *job,
                           const lbs_calib_job_out *out, lbs_ipg_rec *r);
/* The parameters of imported IPGs as JSON text (the accuracy, "imported": true); NULL when out of
 * memory. The caller frees it. */
char *lbs_calib_import_params_json(const lbs_ia_bound *acc);
/* Samples measured elsewhere (one group) fitted within acc (lbs_ipg_from_samples) and stored as
 * an IPG record of run run_id with params: a group that cannot be fitted is stored as failed,
 * why in r->message (not an error). Returns lbs_calib_put_ipg's errors. r->ipg is owned
 * (lbs_ipg_free), the rest borrowed. */
lbs_err lbs_calib_store_import(lbs_calib_db *db, int64_t run_id, const lbs_import_group *g,
                               const lbs_ia_bound *acc, const char *params, lbs_ipg_rec *r);
/* 1 when recs[k] is the newest complete IPG of its implementation and device in recs[0..n)
 * (id order, as lbs_calib_list gives them): the one a verification checks. */
int lbs_calib_newest(const lbs_ipg_rec *recs, int n, int k);
/* The absolute floor of the accuracy IPG r was built with (its params' accuracy), 0 when it
 * does not say. */
double lbs_calib_floor(const lbs_ipg_rec *r);
/* A verify job's invocations (out) against IPG r, errors floored at floor_s: v->n, floor_s,
 * points (borrowed from out), pred (owned: free(v->pred)), the mean, RMS and largest relative
 * errors and the mean floored one; *median the median relative error. LBS_NOMEM. */
lbs_err lbs_calib_verify_errors(const lbs_ipg_rec *r, const lbs_calib_job_out *out, double floor_s,
                                lbs_verify *v, double *median);

#endif
