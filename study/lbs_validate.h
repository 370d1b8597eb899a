/* lbs_validate.h - predictions checked against real runs (lbsim validate).
 *
 * For a trace profiled from one of lbsim's apps (apps/README.md: the trace holds app.name,
 * app.args and profiler.ranks), each policy is replayed on the grid (a probed one: `lbsim grid
 * probe`), which gives a predicted total and the schedule the policy chose (the plan); then the
 * app runs for real with each schedule (--schedule LIST) on the profiled number of ranks,
 * several times, interleaved across policies so that a drift of the machine touches them all
 * alike (the runs). The statistics: per policy the measured median, minimum and maximum and the
 * prediction's error; whether simulation and reality rank the policies alike.
 *
 * The life cycle: lbs_validate_init (before MPI_Init), lbs_validate_open, lbs_validate_plan,
 * lbs_validate_run, lbs_validate_stats, lbs_validate_save, lbs_validate_close. The replays run
 * in this process; the app runs under mpiexec in child processes that get the environment this
 * process started with (the MPI singleton's own variables would make mpiexec believe it runs
 * inside a job). */
#ifndef LBS_VALIDATE_H
#define LBS_VALIDATE_H

#include <mpi.h>

#include "lbs_json.h"
#include "lbs_study.h"

#define LBS_VALIDATE_MAXPOL 16  /* policies in one validation */
#define LBS_VALIDATE_MAXRUNS 50 /* real runs per policy */

/* One policy: its prediction, its schedule and its real runs. */
typedef struct lbs_validate_policy {
  char *policy;                            /* as given (owned) */
  lbs_replay_result *r;                    /* its replay (owned) */
  char schedule[8192];                     /* application steps, comma-separated ("" none) */
  int nrep;                                /* repartitions in the schedule */
  double predicted_s;                      /* the replay's total */
  double measured_s[LBS_VALIDATE_MAXRUNS]; /* the real runs' totals, in run order */
  int nmeasured;                           /* real runs */
  double median_s, min_s, max_s;           /* of measured_s (lbs_validate_stats) */
  double error;                            /* (predicted - median) / median */
} lbs_validate_policy;

/* How simulation and reality rank the policies (lbs_validate_stats). */
typedef struct lbs_validate_ranking {
  int order_sim[LBS_VALIDATE_MAXPOL];  /* policy indices by predicted total (stable) */
  int order_real[LBS_VALIDATE_MAXPOL]; /* policy indices by measured median (stable) */
  int discordant; /* pairs ranked the other way round, beyond the measured spread */
  int ties;       /* pairs swapped whose measured spreads overlap: a tie in reality */
  int same;       /* no discordant pair */
  double worst;   /* the largest |error| */
} lbs_validate_ranking;

/* How the app runs for real. */
typedef struct lbs_validate_opts {
  const char *app;      /* the application (NULL: app.name beside this program) */
  int ranks;            /* 0, or what the profiled rank count must be */
  const char *launcher; /* split at blanks (NULL or "": mpiexec, --allow-run-as-root as root) */
  double timeout_s;     /* one real run's limit */
  int runs;             /* real runs per policy, 1 to LBS_VALIDATE_MAXRUNS */
} lbs_validate_opts;

/* A validation. Its fields are read by the caller; the functions fill them. */
typedef struct lbs_validate {
  char **env;              /* the environment this process started with (owned) */
  const char *trace_path;  /* borrowed */
  lbs_trace *trace;        /* the profiled trace (owned) */
  lbs_session session;     /* the grid and [sim] (no trace): the grid file, then the trace's
                              app.partitioner and app.partition_metric where its [sim] has none,
                              then the overrides */
  const char *const *over; /* the caller's overrides (borrowed), for provenance */
  int nover;
  char *app_over[2];        /* the app's overrides (owned) */
  const char **all_over;    /* the app's, then the caller's (owned array) */
  const char *app;          /* app.name (the trace's) */
  char *args;               /* app.args (owned; "" none) */
  int ranks;                /* profiler.ranks */
  char app_bin[4096];       /* the app that runs */
  lbs_validate_policy *pol; /* npol policies (owned) */
  int npol;
  lbs_validate_ranking rank; /* after lbs_validate_stats */
  char *tail;                /* after a real run failed: the last lines of its output (owned) */
} lbs_validate;

/* Zeroes v and keeps a copy of the environment, for the app's runs: call it before MPI_Init.
 * LBS_NOMEM; v is closed with lbs_validate_close in any case. Local. */
lbs_err lbs_validate_init(lbs_validate *v);
/* Opens the profiled trace and checks that it is a whole profile of one of lbsim's apps, every
 * step profiled, on o->ranks ranks when given; finds the app (o->app, named like app.name, or
 * app.name beside this program) and checks it can run; loads the grid (the trace's app
 * partitioner where the grid file's [sim] names none, then over, left to right: lbs_session_open)
 * and checks it has one processor per rank. trace, grid and over are borrowed until
 * lbs_validate_close. Errors name the file at fault and what to do. Local. */
lbs_err lbs_validate_open(lbs_validate *v, const char *trace, const char *grid,
                          const char *const *over, int nover, const lbs_validate_opts *o);
/* Replays the trace with each of the n policies (collective over comm: lbs_replay), giving each
 * its predicted total and the schedule it chose, as application steps. An error names the
 * policy ("replay with P: why"). */
lbs_err lbs_validate_plan(lbs_validate *v, const char *const *policies, int n, MPI_Comm comm);
/* Runs the app for real under the launcher, o->runs times per policy, interleaved across
 * policies, each with its schedule (--schedule LIST, or --policy none) and --json, within
 * o->timeout_s, in a temporary directory removed after; reads each run's total_s and checks
 * that it repartitioned where it was told. progress (may be NULL) counts the runs done of all.
 * On a run that fails, its output's last lines are in v->tail. Local. */
lbs_err lbs_validate_run(lbs_validate *v, const lbs_validate_opts *o, lbs_progress_fn progress,
                         void *progress_arg);

/* The statistics of n policies' measured runs (each nmeasured >= 1): each one's median,
 * minimum, maximum and error, and the ranking comparison into out. Pure. */
void lbs_validate_stats(lbs_validate_policy *p, int n, lbs_validate_ranking *out);

/* Appends the validation to a results store: each policy's replay as a run of one study (kind
 * "validate") with the session's provenance and the caller's overrides, and its validation row
 * with its measurements (lbs_results_save_validation). Local. */
lbs_err lbs_validate_save(const lbs_validate *v, const char *results);

/* The validation as a JSON document (lbsim validate --json): the trace, the app and its
 * arguments, ranks, grid, partitioner, runs, each policy's schedule, prediction, measurements and
 * error, the two orders and the ranking's verdict; NULL when out of memory. The caller owns it. */
json_t *lbs_validate_json(const lbs_validate *v, int runs);

/* Frees what v holds (a zeroed or failed validation too) and zeroes it. */
void lbs_validate_close(lbs_validate *v);

/* Splits a --policies list: "a,b:1,2,c" gives a, b:1,2 and c (a token that starts with a digit
 * belongs to the one before: a steps:LIST policy keeps its commas). The count, or max + 1 when
 * there are more (out then holds max), or -1 out of memory (out then holds none); the caller
 * frees out[0 .. min(count, max) - 1]. */
int lbs_validate_policies(const char *list, char **out, int max);

#endif
