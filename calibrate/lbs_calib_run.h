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
  int varied;          /* LBS_JOB_VERIFY: 0: CreateParams at log-uniform metrics (the usage assumptions
                        * the IPG was built under), 1: the adapter's random_params (varied shapes) */
  uint64_t seed;       /* of the parameters' data */
  int repeat;          /* IA: a sample is the median of this many timed calls (1..LBS_CALIB_MAX_REPEAT) */
  double timeout_s;    /* the child is killed after this long; 0: no limit */
  lbs_ia_progress_fn progress; /* IA: frontier and samples; verify: invocations done twice */
  void *pctx;
} lbs_calib_job;

typedef struct lbs_calib_job_out {
  lbs_err err;          /* the job's own error (open failed, a sample failed, limit, timeout, crash) */
  char message[512];    /* its message, "" when none */
  char note[256];       /* the heuristic's warning */
  char device[160];     /* from the implementation's open() */
  int complete;         /* IA: the IPG covers the range; verify: all invocations done */
  lbs_ipg ipg;          /* IA: what was built (may be empty) */
  lbs_sample *samples;  /* IA: samples; verify: (metric, measured seconds) per invocation */
  int nsamples;
  double seconds;       /* wall time of the job */
} lbs_calib_job_out;

/* Runs a job in a forked child. Returns an error only when the job could not be run (fork,
 * pipe, memory); what happened to the job itself is in out (err, message), with every sample
 * received before a failure, a crash or the time limit. */
lbs_err lbs_calib_job_run(const lbs_calib_job *job, lbs_calib_job_out *out);
void lbs_calib_job_out_free(lbs_calib_job_out *o);

#endif
