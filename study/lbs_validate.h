/* lbs_validate.h - predictions checked against real runs (lbsim validate).
 *
 * For a trace profiled from one of lbsim's apps (apps/README.md: the trace holds app.name,
 * app.args and profiler.ranks), each policy is replayed on the grid (a probed one: `lbsim grid
 * probe`), which gives a predicted total and the schedule the policy chose (the plan); then the
 * app runs for real with each schedule (--schedule LIST) on the profiled number of ranks,
 * several times, interleaved across policies so that a drift of the machine touches them all
 * alike (the runs). The statistics: per policy the measured median, minimum and maximum and the
 * prediction's error; per pair of policies the predicted gain against the measured one and its
 * range over the rounds, and a verdict: reality separates the pair or ties it, and where it
 * separates them, the prediction orders them alike or not (a tie confirms nothing).
 *
 * The life cycle: lbs_validate_init (before MPI_Init), lbs_validate_open, lbs_validate_plan,
 * lbs_validate_run, lbs_validate_stats, lbs_validate_save, lbs_validate_close. The replays run
 * in this process; the app runs under mpiexec in child processes that get the environment this
 * process started with (the MPI singleton's own variables would make mpiexec believe it runs
 * inside a job). */
#ifndef LBS_VALIDATE_H
#define LBS_VALIDATE_H

#include <mpi.h>

#include "lbs_emulate.h"
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

/* What reality says of a pair of policies, and whether lbsim's prediction says the same. */
typedef enum lbs_validate_verdict {
  LBS_VERDICT_UNKNOWN,     /* one real run of a policy: no spread, reality unknown */
  LBS_VERDICT_TIE,         /* reality does not separate them: the rounds disagree on the sign */
  LBS_VERDICT_AGREES,      /* reality separates them, and the prediction orders them alike */
  LBS_VERDICT_WRONG_ORDER, /* reality separates them, the prediction orders them the other way */
  LBS_VERDICT_PREDICTED_EQUAL, /* reality separates them, the prediction has equal totals */
} lbs_validate_verdict;

/* A pair of policies A and B (A before B in the order given): B's gain over A, predicted and
 * measured, and the verdict (lbs_validate_pair_verdict). A gain is a fraction of A's total:
 * positive when B is faster. */
typedef struct lbs_validate_pair {
  int a, b;                  /* the policies' indices */
  double predicted_gain;     /* (predicted_a - predicted_b) / predicted_a */
  double measured_gain;      /* (median_a - median_b) / median_a */
  double gain_min, gain_max; /* the measured gain's range: with runs paired by round (as many of
                                each), the rounds' (a_k - b_k) / a_k; else from the spreads,
                                1 - max_b / min_a .. 1 - min_b / max_a */
  int rounds;                /* the rounds paired (0: the spreads were used) */
  double error_points;       /* 100 * (predicted_gain - measured_gain) */
  int predicted_within;      /* the predicted gain lies within the measured range: on a tie, the
                                prediction too calls them close */
  double noise;              /* half the measured range's width: the run-to-run noise */
  int below_noise;           /* |predicted_gain| <= noise: this many runs could not see the
                                predicted difference, even if it were right */
  lbs_validate_verdict verdict;
} lbs_validate_pair;

#define LBS_VALIDATE_MAXPAIRS (LBS_VALIDATE_MAXPOL * (LBS_VALIDATE_MAXPOL - 1) / 2)

/* How simulation and reality rank the policies (lbs_validate_stats). */
typedef struct lbs_validate_ranking {
  int order_sim[LBS_VALIDATE_MAXPOL];             /* policy indices by predicted total (stable) */
  int order_real[LBS_VALIDATE_MAXPOL];            /* policy indices by measured median (stable) */
  lbs_validate_pair pairs[LBS_VALIDATE_MAXPAIRS]; /* each pair once: (0,1), (0,2), ..., (1,2) */
  int npairs;
  int separated;     /* pairs reality separates (agrees, wrong order, predicted equal) */
  int ordered_right; /* of those, the pairs the prediction orders alike (agrees) */
  int discordant;    /* of those, the pairs the prediction orders the other way (wrong order) */
  int ties;          /* pairs reality does not separate (tie): they confirm nothing */
  int unknown;       /* pairs with a policy run once (unknown) */
  int same; /* reality separates every pair and the prediction orders every one alike: never
               said of a tie */
  double max_gain_error_points; /* the largest |error_points| over the pairs */
  double worst;                 /* the largest |error| of a policy's total */
} lbs_validate_ranking;

/* The verdict on policies A and B (A's predicted total pa and its na >= 1 measured totals ma,
 * B's likewise; totals in run order, round k of both being ma[k] and mb[k]): the gains, the
 * measured gain's range, the error in points and the verdict into out (its a and b are left
 * as they are). With as many runs of each (at least 2), the range is the rounds' gains
 * (robust to a drift of the machine); with another count each, it is taken from the spreads.
 * Reality separates the pair when the range excludes 0 (every round agrees on the sign); a
 * policy run once leaves it unknown. Pure. */
void lbs_validate_pair_verdict(double pa, const double *ma, int na, double pb, const double *mb,
                               int nb, lbs_validate_pair *out);
/* The verdict's name: "agrees", "wrong order", "predicted equal", "tie", "unknown (1 run)". */
const char *lbs_validate_verdict_name(lbs_validate_verdict v);

/* How the app runs for real. */
typedef struct lbs_validate_opts {
  const char *app;      /* the application (NULL: app.name beside this program) */
  int ranks;            /* 0, or what the profiled rank count must be */
  const char *launcher; /* split at blanks (NULL or "": mpiexec, --allow-run-as-root as root) */
  double timeout_s;     /* one real run's limit */
  int runs;             /* real runs per policy, 1 to LBS_VALIDATE_MAXRUNS */
  int emulate;          /* each rank capped to its processor's speed (lbs_validate_emulate) */
  const char *keep_dir; /* an empty directory the runs' JSON and logs stay in, with runs.csv
                           (NULL: a temporary one, removed) */
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
  double *part_sizes;        /* the parts replay and app aim at ([sim] part_sizes; ranks, owned) */
  char *part_arg;            /* the app's --part-sizes: "equal" or the shares (owned) */
  lbs_emulate emu;           /* after lbs_validate_emulate: the ranks' control groups */
  int64_t emu_periods[LBS_EMULATE_MAXRANKS];    /* after the runs: each rank's throttled periods */
  double emu_throttled_s[LBS_EMULATE_MAXRANKS]; /* and how long it was held back, s */
} lbs_validate;

/* Zeroes v and keeps a copy of the environment, for the app's runs: call it before MPI_Init.
 * LBS_NOMEM; v is closed with lbs_validate_close in any case. Local. */
lbs_err lbs_validate_init(lbs_validate *v);
/* Opens the profiled trace and checks that it is a whole profile of one of lbsim's apps, every
 * step profiled, on o->ranks ranks when given; finds the app (o->app, named like app.name, or
 * app.name beside this program) and checks it can run; loads the grid (the trace's app
 * partitioner where the grid file's [sim] names none, then over, left to right: lbs_session_open)
 * and checks it has one processor per rank; the part sizes the replay aims at ([sim]
 * part_sizes: by speed, equal, or the trace's app.part_sizes), which every real run is given
 * (--part-sizes) so that app and replay partition alike. trace, grid and over are borrowed until
 * lbs_validate_close. Errors name the file at fault and what to do. Local. */
lbs_err lbs_validate_open(lbs_validate *v, const char *trace, const char *grid,
                          const char *const *over, int nover, const lbs_validate_opts *o);
/* Emulates the grid on this machine for the real runs (lbs_emulate.h): a control group per rank,
 * capped to processor r's speed relative to this machine's, which lbs_validate_run's ranks join
 * and lbs_validate_close removes. Refused before anything is made where the grid asks what a
 * CPU quota cannot give (a processor faster than this machine, or failed), with more ranks than
 * CPUs, or where no CPU controller is writable. After lbs_validate_open. Local. */
lbs_err lbs_validate_emulate(lbs_validate *v);
/* Replays the trace with each of the n policies (collective over comm: lbs_replay), giving each
 * its predicted total and the schedule it chose, as application steps. An error names the
 * policy ("replay with P: why"). */
lbs_err lbs_validate_plan(lbs_validate *v, const char *const *policies, int n, MPI_Comm comm);
/* Runs the app for real under the launcher, o->runs times per policy, interleaved across
 * policies, each with its schedule (--schedule LIST, or --policy none) and --json, within
 * o->timeout_s, in a temporary directory removed after; reads each run's total_s and checks
 * that it repartitioned where it was told; under an emulation, each rank in its group, whose
 * throttling is read after the last run. progress (may be NULL) counts the runs done of all.
 * On a run that fails, its output's last lines are in v->tail. Local. */
lbs_err lbs_validate_run(lbs_validate *v, const lbs_validate_opts *o, lbs_progress_fn progress,
                         void *progress_arg);

/* Kills the real run under way (its launcher's process group), if any: for a signal handler
 * (async-signal-safe), so that an interrupted validation leaves no app running. */
void lbs_validate_kill_running(void);

/* The statistics of n policies' measured runs (each nmeasured >= 1): each one's median,
 * minimum, maximum and error, and into out the two orders, every pair's verdict
 * (lbs_validate_pair_verdict) and their counts. Pure. */
void lbs_validate_stats(lbs_validate_policy *p, int n, lbs_validate_ranking *out);

/* Appends the validation to a results store: each policy's replay as a run of one study (kind
 * "validate") with the session's provenance and the caller's overrides, and its validation row
 * with its measurements (lbs_results_save_validation_id), then the pairs' verdicts (table
 * validation_pairs, lbs_results_save_validation_pairs; after lbs_validate_stats). Local. */
lbs_err lbs_validate_save(const lbs_validate *v, const char *results);

/* The validation as a JSON document (lbsim validate --json): the trace, the app and its
 * arguments, ranks, grid, partitioner, runs, each policy's schedule, prediction, measurements and
 * error, the two orders, the pairs (gains, range, error in points, verdict) and their summary; NULL
 * when out of memory. The caller owns it. */
json_t *lbs_validate_json(const lbs_validate *v, int runs);

/* The rule of the part sizes replay and app aimed at: "speed", "equal" or "app". */
const char *lbs_validate_part_rule(const lbs_validate *v);

/* Frees what v holds (a zeroed or failed validation too) and zeroes it. */
void lbs_validate_close(lbs_validate *v);

#endif
