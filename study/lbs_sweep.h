/* lbs_sweep.h - a what-if study (lbsim sweep, docs/sweep.md): a study file's axes (traces,
 * grids, partitioners, policies and override values), their product as numbered tasks, the
 * study's id, its generated traces, and the task farm that replays the tasks over an MPI
 * communicator into one results store, skipping what the store holds of the study already. */
#ifndef LBS_SWEEP_H
#define LBS_SWEEP_H

#include <mpi.h>
#include <stdint.h>

#include "lbs_study.h"
#include "lbs_traces.h"

#define LBS_SWEEP_MAXV 64           /* values per axis (a trace axis with its seeds included) */
#define LBS_SWEEP_MAXOV 64          /* override keys */
#define LBS_SWEEP_OVLEN 1024        /* one override assignment, key=value, and its NUL */
#define LBS_SWEEP_MAXTASKS 10000000 /* tasks a study may have */

/* The four axes every study has, in task order (ax[] of lbs_sweep). */
enum { LBS_SWEEP_TRACES, LBS_SWEEP_GRIDS, LBS_SWEEP_PARTITIONERS, LBS_SWEEP_POLICIES };
/* Their keys in [study] ("traces", ...) and their names in labels and the tidy CSV ("trace",
 * "grid", "partitioner", "policy"). */
extern const char *const lbs_sweep_axis_key[4];
extern const char *const lbs_sweep_axis_label[4];

/* One axis: its values, in the study file's order. */
typedef struct lbs_sweep_axis {
  char *name;              /* "traces", ... or the override's key (owned) */
  char *v[LBS_SWEEP_MAXV]; /* the values, trimmed (into list, or into the study's expanded) */
  char *list;              /* the list as given, cut into v (owned) */
  int n;                   /* values */
} lbs_sweep_axis;

/* A study file, loaded and checked (lbs_sweep_load). Read-only after loading, but for
 * trace_path, which lbs_sweep_inputs completes. */
typedef struct lbs_sweep {
  const char *file;      /* the study file (borrowed: it outlives the study) */
  char dir[4096];        /* its directory: relative trace and grid paths start there */
  char *name;            /* [study] name: the default outputs NAME.db, NAME-csv/ (owned) */
  lbs_sweep_axis ax[4];  /* traces, grids, partitioners, policies (LBS_SWEEP_TRACES, ...) */
  lbs_sweep_axis *ov;    /* the [overrides] keys, in file order (owned) */
  int nov;               /* override keys */
  int64_t first, nsteps; /* [study] steps; nsteps 0: each task's [sim] steps */
  char **trace_path;     /* per trace value: its file; a generated one's after lbs_sweep_inputs */
  lbs_gen_params *gen;   /* per trace value: a generated trace's recipe (kind NULL: a file) */
  char *gen_kinds;       /* the recipes' kinds, 16 bytes each (owned) */
  char *expanded;        /* with seeds: the trace values with their seeds (owned) */
  int has_seeds;         /* [study] seeds given: labels and the tidy CSV have a seed */
  int64_t ntasks;        /* the product of the axes */
  char id[96];           /* sweep-NAME-<16 hex digits of the study's hash> */
  char file_hash[65];    /* the study file's SHA-256 */
} lbs_sweep;

/* Reads and checks a study file into s (local: each rank reads its own): every axis value must
 * be usable (a trace opens or a gen: spec makes one, a grid loads with every override value, a
 * partitioner and a policy exist) and the step window must fit every trace, before any work;
 * an error names the file and line. Then the study's id: a SHA-256 over the study file, this
 * lbsim's version, every trace file's bytes (a generated trace's spec) and every grid as it
 * resolves (and a grid file's bytes), so that a changed input is another study. s is owned by
 * the caller, freed with lbs_sweep_free, also after a failure; file is borrowed while s lives. */
lbs_err lbs_sweep_load(lbs_sweep *s, const char *file);
/* Frees what s holds and zeroes it (a zeroed study is fine). */
void lbs_sweep_free(lbs_sweep *s);

/* Collective over comm: each rank's load (e: its lbs_sweep_load) and rank 0's must be the same
 * study, else every rank fails (another node may miss a file, or see another one). LBS_OK on
 * every rank, or an error on every rank with *tell 1 where this rank's message (lbs_errmsg) is
 * to be said: rank 0's failure; another rank's failure that rank 0 did not share (its own
 * message, e); a rank whose study differs from rank 0's (LBS_INVAL: "rank R sees another study
 * than rank 0 (ID, not ID0): its files differ"). */
lbs_err lbs_sweep_agree(const lbs_sweep *s, lbs_err e, MPI_Comm comm, int *tell);

/* Task t's index along each axis into ax4[4] and iov[s->nov]: the last axis varies fastest
 * (traces, grids, partitioners, policies, then the overrides in file order). Local. */
void lbs_sweep_task_axes(const lbs_sweep *s, int64_t t, int *ax4, int *iov);
/* Task t's overrides, "key=value" in file order, into buf; ov[k] points to buf[k]. Local. */
void lbs_sweep_task_overrides(const lbs_sweep *s, int64_t t, char (*buf)[LBS_SWEEP_OVLEN],
                              const char **ov);
/* The axes as a JSON object (studies.axes: each axis's label or key and its values), and task
 * t's values (runs.labels, with the seed when the study has seeds), as compact text the caller
 * frees; NULL when out of memory. */
char *lbs_sweep_axes_json(const lbs_sweep *s);
char *lbs_sweep_labels_json(const lbs_sweep *s, int64_t t);

/* What the results store at results holds of the study: done[t] = 1 for each task with a run
 * there (done has s->ntasks bytes, zeroed by the caller), their count in *ndone. A store that
 * is absent or empty holds none; one that exists is checked whole once here (SQLite's quick
 * check: LBS_CORRUPT), so that no task's write reads it whole again. Local (rank 0). */
lbs_err lbs_sweep_done(const lbs_sweep *s, const char *results, uint8_t *done, int64_t *ndone);

/* Names each generated trace's file, RESULTS.traces/<spec, ':' and '/' as '_'>.lbt, in
 * s->trace_path (every rank calls it); with make (one rank: rank 0), writes those that are not
 * there yet, each whole under a temporary name then renamed, so a resumed sweep reuses them.
 * note (may be NULL) is told (i, traces) before trace value i is generated. Local. */
lbs_err lbs_sweep_inputs(lbs_sweep *s, const char *results, int make, lbs_progress_fn note,
                         void *note_arg);

/* Replays task t alone (MPI_COMM_SELF: a replay's answer does not depend on the rank count) on
 * its trace (opened by the caller, trace value ax4[0]'s) and appends the run, with its
 * provenance, task number and labels, to the store as a run of study si (one transaction).
 * progress (may be NULL) is the replay's. Local. */
lbs_err lbs_sweep_task(const lbs_sweep *s, int64_t t, lbs_trace *trace, const char *results,
                       const lbs_study_info *si, lbs_progress_fn progress, void *progress_arg);

/* A task that failed: task t, error e with its message in lbs_errmsg(); t = -1 when this rank
 * could not open the study's traces (it then runs no task). */
typedef void (*lbs_sweep_fail_fn)(void *arg, const lbs_sweep *s, int64_t t, lbs_err e);

/* How a farm reports, and what it did. */
typedef struct lbs_sweep_farm {
  lbs_progress_fn progress; /* rank 0: tasks done (resumed ones included) of s->ntasks, now
                               and then and during rank 0's own replays (may be NULL) */
  void *progress_arg;
  lbs_sweep_fail_fn failed; /* on the rank that ran it, when it fails (may be NULL) */
  void *failed_arg;
  int64_t resumed; /* out: tasks the store held already (done[]) */
  int failures;    /* out: tasks that failed on every rank together */
  double wall_s;   /* out: the farm's wall time, from the first task to the last */
} lbs_sweep_farm;

/* Collective over comm: the task farm. done (s->ntasks bytes, rank 0's from lbs_sweep_done) is
 * broadcast from rank 0; each rank opens the study's traces once (after lbs_sweep_inputs), then
 * takes the next task number from a counter on rank 0 (an MPI window, MPI_Fetch_and_op), skips
 * those done, and runs the others with lbs_sweep_task into the study's row (kind "sweep", the
 * study file, its hash, axes and task count). A failed task is told to f->failed on its rank
 * and the rank goes on (a restart retries it), but for an error of the store (LBS_IO, LBS_DB,
 * LBS_CORRUPT, LBS_FORMAT, LBS_VERSION), after which that rank takes no more tasks. Returns
 * LBS_OK on every rank when no task failed, else (on every rank) the code and message of the
 * first failure of the lowest rank that had one; f->failures counts them all. */
lbs_err lbs_sweep_run(const lbs_sweep *s, const char *results, uint8_t *done, MPI_Comm comm,
                      lbs_sweep_farm *f);

/* The tidy CSV (rank 0, after the farm): the study's runs in the store, in task order, a row per
 * run and measure (total_time_s ... moved_elements): study, task, the axes' values (a seed after
 * the trace when seeds are an axis), measure, value. Written whole under a temporary name beside
 * csv, then renamed onto it (a regular file or a link there is replaced, nothing else); nothing is
 * left half-written. LBS_IO with the path when it cannot be written; the store's errors. */
lbs_err lbs_sweep_write_tidy(const lbs_sweep *s, const char *results, const char *csv);

#endif
