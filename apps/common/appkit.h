/* appkit.h - what every app under apps/ shares to keep apps/README.md's contract: the contract's
 * options (--trace, --schedule, --policy, --json), `APP: what: why` failures that end every
 * rank, the repartitioning decision through lbsim's policies/ library, the step clock and the
 * one-line JSON summary. An app compiles appkit.c into itself (apps/<app>/CMakeLists.txt). */
#ifndef APPKIT_H
#define APPKIT_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "lbs_core.h"
#include "lbs_policy.h"
#include "part_sizes.h"

typedef struct app {
  const char *name; /* "nbody": the prefix of every message */
  MPI_Comm comm;
  int rank, size;
  /* the contract's options (NULL when not given) */
  const char *trace, *schedule, *policy, *json;
  const char *part_sizes; /* --part-sizes LIST (app_part_sizes) */
} app;

void app_init(app *a, const char *name, MPI_Comm comm);

/* An option "--name VALUE" or "--name=VALUE" at argv[*i]: 1 when it is (*value set, *i past it),
 * 0 when argv[*i] is another, -1 when its value is missing (after a message). */
int app_opt(const app *a, int argc, char **argv, int *i, const char *name, const char **value);
/* The contract's options: returns 1 when argv[*i] was one (and *i moved past its value), 0 when
 * it is not, -1 when its value is missing (after a message through app_error). */
int app_common_arg(app *a, int argc, char **argv, int *i);

/* app_parse_part_sizes (part_sizes.h) of a->part_sizes with a message "APP: --part-sizes ...: why"
 * (the same on every rank). */
int app_part_sizes(const app *a, double *sizes, char *meta, size_t len);

/* A message "APP: what: why" on rank 0 (printf format). */
void app_error(const app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 1 on every rank when any rank passes a non-zero bad (collective). */
int app_agree(const app *a, int bad);
/* Parses a whole number in [lo, hi] for option opt; 0 when it is one, else -1 after a message. */
int app_int(const app *a, const char *opt, const char *text, long long lo, long long hi,
            long long *out);
/* A finite number in (lo, hi) (open interval) for option opt; 0 or -1 after a message. */
int app_double(const app *a, const char *opt, const char *text, double lo, double hi, double *out);
/* The shortest "%.Ng" spelling of v that reads back as v (for args that reproduce a run). */
void app_fmt_double(char *buf, size_t len, double v);

double app_now(void); /* CLOCK_MONOTONIC, seconds */

/* ---------------------------------------------------------------- repartitioning decisions */

/* --schedule LIST (lbsim's steps:LIST) or --policy SPEC. Rank 0 holds the policy and decides;
 * the decision is broadcast. Loads are the ranks' compute times of the last step (the app
 * cannot see the coming step as the simulator does); history is kept as lbs_loadview wants. */
typedef struct app_sched {
  lbs_policy *pol; /* rank 0 only; NULL: never repartition */
  int active;      /* 1 when a schedule or a policy other than none was given (every rank) */
  int64_t steps, last_step; /* last_step: the last repartition's (0: the start) */
  int P;
  int64_t *load_ns;   /* P: compute time of each rank at the last step */
  int64_t *gather;    /* 2P: scratch */
  int64_t *step_ns;   /* per past step: wall time (max over ranks) */
  double *imb;        /* per past step: (Lmax - Lavg) / Lmax of the compute times */
  int64_t *excess_ns; /* per past step: Lmax - Lavg */
  int64_t last_repart_ns, est_repart_ns;
} app_sched;

/* Collective. Creates the schedule from a->schedule or a->policy for a run of steps steps:
 * unknown policies, bad arguments, look-ahead policies (adaptive, optimal) and schedule steps
 * outside 1..steps-1 are refused with a message. Returns 0, or -1 on every rank. */
int app_sched_create(const app *a, app_sched *s, int64_t steps);
void app_sched_free(app_sched *s);
/* Collective, at the end of step `step`: records this rank's compute and step time (ns); every
 * rank learns every rank's. */
void app_sched_record(const app *a, app_sched *s, int64_t step, int64_t compute_ns,
                      int64_t step_ns);
/* Collective, before step `step` (>= 1): 1 to repartition now, 0 not, -1 on every rank when
 * the policy failed (message on rank 0). */
int app_sched_decide(const app *a, app_sched *s, int64_t step);
/* After a repartition before step `step`: its cost (partition + migration, ns), for the policies.
 */
void app_sched_repartitioned(app_sched *s, int64_t step, int64_t cost_ns);

/* Collective, after the last step: the per-step wall and compute times of every rank (S
 * each) reduced to their maxima on rank 0 (step_s, comp_s), each rank's own compute total
 * gathered on rank 0 (rank_comp, one per rank); returns the sum of comp_s on rank 0. */
double app_step_times(const app *a, int64_t S, const double *step_loc, const double *comp_loc,
                      double *step_s, double *comp_s, double *rank_comp);

/* ---------------------------------------------------------------- the JSON summary */

typedef struct app_summary {
  int64_t steps, elements;
  double total_s;
  const double *step_s; /* steps: wall time of each step, max over ranks */
  const int64_t *repartitions;
  int nrep;
  double partition_s, migration_s;
  int profiled;
  const char *args;
  const char *extra; /* more fields, "\"key\":value,..." without braces, or NULL */
} app_summary;

/* Collective: rank 0 checks before the run that an output file (not "-") can be written:
 * a regular file or none yet, in a directory that takes files. 0, or -1 after a message. */
int app_check_output(const app *a, const char *opt, const char *path);
/* Rank 0 writes the summary as one JSON line to path ("-": stdout); not collective (other
 * ranks return 0 at once). Returns 0 or -1 after a message. */
int app_write_json(const app *a, const char *path, const app_summary *s);
/* Appends a JSON string (quoted, escaped) to a buffer. */
lbs_err app_json_str(lbs_buf *b, const char *s);
/* Appends printf text to a buffer. */
lbs_err app_buf_printf(lbs_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
