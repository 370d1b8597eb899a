/* lbs_study.h - the last stage of the data flow: what a user runs replays for. Replay sessions
 * (a grid file, its overrides, a trace, loaded one way for every command), provenance (who ran
 * what, with what), and the results store every study's runs go to. The commands of cli/ are
 * faces over it; report/ reads the store through it. */
#ifndef LBS_STUDY_H
#define LBS_STUDY_H

#include <stdint.h>

#include "lbs_config.h"
#include "lbs_core.h"
#include "lbs_sim.h"

/* ---------------------------------------------------------------- results store (schema 4)
 * One SQLite file: runs (a row per replay, with its provenance), steps, procs, repartitions,
 * series, assignment, studies (what groups runs: one compare, one sweep), partitions (lbsim
 * partition's rows), validations, measurements and validation_pairs. docs/results.md lists
 * every column. The writers below append to it; the readers further down (lbs_results) read
 * it. */

/* Who made a group of runs, and how. id is required; the rest may be NULL. */
typedef struct lbs_study_info {
  const char *id;   /* unique; a sweep's is a hash of its study */
  const char *kind; /* "replay", "policy compare", "partition", "sweep", "validate" */
  const char *command, *version, *host, *started; /* started: ISO 8601 UTC */
  const char *file, *file_hash, *axes; /* a sweep: its study file, SHA-256, axes (a JSON object) */
  int64_t tasks;                       /* a sweep's task count, else 0 */
  lbs_progress_fn progress;            /* rows written of all to write (may be NULL) */
  void *progress_arg;
  int checked; /* the caller checked the store (lbs_results_check) and
                  each write need not read it whole again (a sweep) */
} lbs_study_info;

/* What one run was made of. Any pointer may be NULL. */
typedef struct lbs_run_info {
  const char *trace, *grid;           /* as given */
  const char *trace_hash, *grid_hash; /* hex SHA-256 of the files (lbs_file_sha256) */
  const char *cost;                   /* "model", "measured", "zero" */
  const char *overrides;              /* the --set assignments, one per line */
  const char *config;                 /* the resolved configuration (lbs_config_dump) */
  const char *labels;                 /* a JSON object: the sweep axes' values of this run */
  int64_t task;                       /* the sweep's task number, -1 for none */
  double optimum_s, gap_to_optimal;   /* NAN: none */
} lbs_run_info;

/* Appends n runs (with their study's row, once, when si is given) in one transaction; the
 * new ids in ids (may be NULL). Nothing is written on failure. */
lbs_err lbs_results_save_study(const char *path, const lbs_study_info *si,
                               lbs_replay_result *const *r, const lbs_run_info *ri, int n,
                               int64_t *ids);

/* A partitioner measured on one step (lbsim partition): MinEX's model metrics (seed 003). */
typedef struct lbs_partition_row {
  lbs_run_info run; /* trace, grid, hashes, overrides, config */
  int64_t step, elements, moved;
  const char *partitioner;
  int procs;
  double maxqwgt_s, loadimb, work_imbalance, tolerance, wsysll_s, wgt_s, comm_s, remap_s, edge_cut,
      wall_s;
} lbs_partition_row;
lbs_err lbs_results_save_partitions(const char *path, const lbs_study_info *si,
                                    const lbs_partition_row *rows, int n);

/* Reads the whole store and checks it (SQLite's quick check): LBS_CORRUPT when damaged. */
lbs_err lbs_results_check(const char *path);
/* Marks done[t] = 1 for every task t < ntasks of the study that the store holds a run of. */
lbs_err lbs_results_study_tasks(const char *path, const char *study, uint8_t *done, int64_t ntasks);
/* The time now as ISO 8601 UTC. */
void lbs_results_now(char iso[32]);
/* The SHA-256 of a file's bytes, as 64 hex digits and a NUL. */
lbs_err lbs_file_sha256(const char *path, char hex[65]);
/* The SHA-256 of len bytes, likewise. */
lbs_err lbs_sha256_hex(const void *data, size_t len, char hex[65]);

/* Appends the run to an SQLite results store in one transaction (nothing on failure). */
lbs_err lbs_results_save(const char *path, const lbs_replay_result *r, const char *trace_path,
                         const char *grid_path);
/* lbs_results_save, giving the new run's id in *run (may be NULL). */
lbs_err lbs_results_save_run(const char *path, const lbs_replay_result *r, const char *trace_path,
                             const char *grid_path, int64_t *run);
/* A prediction checked against real runs (lbsim validate): the replay's run id, the app, its
 * arguments and rank count, the schedule it ran (application steps, comma-separated), the
 * predicted total and the measured totals (seconds). */
typedef struct lbs_validation {
  int64_t run;
  const char *app, *args;
  int ranks;
  const char *schedule;
  double predicted_s;
  int nmeasured;
  const double *measured_s;
} lbs_validation;
/* Appends one row to the table validations and one per real run to measurements, in one
 * transaction. */
lbs_err lbs_results_save_validation(const char *path, const lbs_validation *v);
/* lbs_results_save_validation, giving the new row's id in validations in *id (may be NULL). */
lbs_err lbs_results_save_validation_id(const char *path, const lbs_validation *v, int64_t *id);
/* lbsim validate's verdict on a pair of policies A and B (schema 4, table validation_pairs): the
 * two validations' ids, the policies, B's gain over A (a fraction of A's total) predicted and
 * measured (of the medians), the measured gain's range (over the rounds when paired, else from
 * the spreads) and the rounds paired (0: none), the error in points, whether the prediction
 * lies within the range, and the verdict ("agrees", "wrong order", "predicted equal", "tie",
 * "unknown (1 run)"). */
typedef struct lbs_validation_pair {
  int64_t a, b;
  const char *policy_a, *policy_b;
  double predicted_gain, measured_gain, measured_gain_min, measured_gain_max;
  int rounds;
  double gain_error_points;
  int predicted_within;
  const char *verdict;
} lbs_validation_pair;
/* Appends n rows to the table validation_pairs, in one transaction. */
lbs_err lbs_results_save_validation_pairs(const char *path, const lbs_validation_pair *p, int n);

/* ---------------------------------------------------------------- reading a store (results_read.c)
 * An open store and typed readers of what it holds, for lbsim results, lbsim report and a sweep's
 * tidy CSV. Everything here is local (no MPI) and reads without writing: a store is never
 * upgraded by reading it.
 *
 * NULL: a column that a store of an older schema lacks reads as NULL (schema 1 has no provenance,
 * schema 2 no partition_mode and ranks, schema 4 no des_overlap), and NULL reads as NULL for text,
 * NaN for a real (the writers store a NaN as NULL) and LBS_RESULTS_NONE for an integer.
 *
 * Memory: the arrays a reader returns (studies, runs, partitions, validations, configurations),
 * and the text in them, belong to the handle and stay valid until lbs_results_close. A row handed
 * to a callback (steps, procs, repartitions, series, any table's rows) is valid during that call
 * only. A callback returns LBS_OK to go on; any other code stops the reading and is returned.
 *
 * Errors: LBS_NOMEM, or SQLite's error as core's lbs_db_err gives it: LBS_CORRUPT "PATH: file is
 * damaged (SQLite's message)" where a store is damaged, LBS_IO or LBS_DB "PATH: SQLite's
 * message". */
typedef struct lbs_results lbs_results;

/* An integer column's NULL. */
#define LBS_RESULTS_NONE INT64_MIN

/* Opens the results store at path read-only (core's lbs_db_open; a FIFO or device is refused
 * unopened) into *out, an owned handle (lbs_results_close), NULL on failure: LBS_IO when it
 * cannot be read (missing, not a regular file), LBS_FORMAT when it is not a results store (not
 * SQLite, another kind of SQLite file, no runs table), LBS_VERSION when a newer lbsim wrote it;
 * the message names the path ("PATH: No such file or directory"). The whole store is not read
 * (lbs_results_check does): a damaged part is met by the reader that reads it. */
lbs_err lbs_results_open(const char *path, lbs_results **out);
/* Closes the store and frees what its readers returned. NULL-safe; clears *h. */
void lbs_results_close(lbs_results **h);
/* The store's schema version, 1 to 4 (as it is: reading does not upgrade). */
int lbs_results_version(const lbs_results *h);
/* 1 when the store has the table, or the table has the column (older schemas lack some). */
int lbs_results_has_table(const lbs_results *h, const char *table);
int lbs_results_has_column(const lbs_results *h, const char *table, const char *column);
/* *found = 1 when the store has a study of this id (0 in a store without studies). */
lbs_err lbs_results_has_study(lbs_results *h, const char *id, int *found);
/* The rows of one of the tables lbs_results_tables lists into *n: 0 without the table; with a
 * study (NULL: all), that study's rows only (those of its runs, for steps, procs, ...). */
lbs_err lbs_results_count(lbs_results *h, const char *table, const char *study, int64_t *n);

/* A study (table studies). */
typedef struct lbs_results_study {
  const char *id, *kind;                /* kind: "replay", "policy compare", "sweep", ... */
  const char *command, *version, *host; /* who ran it, with which lbsim, where */
  const char *started;                  /* ISO 8601 UTC */
  const char *file, *file_hash, *axes;  /* a sweep's study file, its SHA-256, its axes (JSON) */
  int64_t tasks;                        /* a sweep's task count, 0 for the others */
  int64_t nruns, npartitions;           /* its rows in runs and in partitions */
} lbs_results_study;
/* The studies (or only the study of that id when study is not NULL) by start time, then id, into
 * *out (the handle's) and *n; none in a store without studies (schema 1). */
lbs_err lbs_results_studies(lbs_results *h, const char *study, const lbs_results_study **out,
                            int64_t *n);

/* The orders of lbs_results_runs. */
typedef enum lbs_results_order {
  LBS_RESULTS_BY_ID,    /* by id: as they were saved */
  LBS_RESULTS_BY_STUDY, /* each study's runs together (the studies in the order of their first
                           run, a run without a study alone), then by task and id: a sweep's runs
                           in task order; by id in a store without studies */
} lbs_results_order;

/* A run (table runs): what was replayed, its measures and its provenance. */
typedef struct lbs_results_run {
  int64_t id;
  const char *study;                         /* the study it belongs to, NULL: none */
  int64_t task;                              /* a sweep's task number */
  const char *labels;                        /* a sweep's axis values (a JSON object) */
  const char *trace, *grid;                  /* as given */
  const char *metric, *partitioner, *policy; /* what the replay used */
  const char *mode;                          /* "bsp", "des" */
  int64_t elements, steps, procs;            /* the trace's elements, steps replayed, processors */
  double total_time_s, compute_time_s, comm_time_s; /* simulated time, and its parts */
  double partition_time_s, migration_time_s;
  int64_t repartitions;
  double mean_imbalance, max_imbalance, mean_loadimb; /* over the steps */
  int64_t moved_elements;                             /* by all repartitions */
  double wall_s;                                      /* the replay's own time */
  const char *created, *command, *version, *host; /* when, by what command line, lbsim, machine */
  const char *cost, *overrides, *config;          /* cost model, -o assignments, resolved INI */
  const char *trace_hash, *grid_hash;             /* SHA-256 of the files */
  double optimum_s, gap_to_optimal;               /* against optimal in the same compare */
  const char *partition_mode;                     /* "rank0", "distributed" (schema 3) */
  int64_t ranks;                                  /* the replay's MPI ranks (schema 3) */
  const char
      *des_overlap; /* des: "shared" or "ordered" steps on the network; bsp: NULL (schema 5) */
  int64_t nsteps;   /* its rows in steps */
} lbs_results_run;
/* The runs (only those of study when it is not NULL; none when the store cannot tell, having no
 * studies) in that order into *out (the handle's) and *n. */
lbs_err lbs_results_runs(lbs_results *h, const char *study, lbs_results_order order,
                         const lbs_results_run **out, int64_t *n);

/* One step of a run (table steps); comm_ns, partition_ns, migration_ns came with schema 2. */
typedef struct lbs_results_step {
  int64_t run, step, app_step; /* step: the trace step */
  int64_t time_ns, compute_ns; /* how far the clock moved, the slowest processor's compute */
  double imbalance, loadimb;
  int64_t repartitioned;                       /* 1 when a repartition preceded the step */
  int64_t comm_ns, partition_ns, migration_ns; /* what the step was charged (comm_ns: bsp only) */
} lbs_results_step;
typedef lbs_err (*lbs_results_step_fn)(void *arg, const lbs_results_step *s);
/* Hands the run's steps to fn in step order. */
lbs_err lbs_results_steps(lbs_results *h, int64_t run, lbs_results_step_fn fn, void *arg);

/* One processor's compute at one step of a run (table procs). */
typedef struct lbs_results_proc {
  int64_t run, step, proc, compute_ns;
} lbs_results_proc;
typedef lbs_err (*lbs_results_proc_fn)(void *arg, const lbs_results_proc *p);
/* Hands the run's rows to fn by step, then processor. */
lbs_err lbs_results_procs(lbs_results *h, int64_t run, lbs_results_proc_fn fn, void *arg);

/* One repartition of a run (table repartitions), charged at its step. */
typedef struct lbs_results_repart {
  int64_t run, step, partition_ns, migration_ns, moved_elements;
  double moved_bytes, wall_s; /* wall_s: the partitioner's own time */
} lbs_results_repart;
typedef lbs_err (*lbs_results_repart_fn)(void *arg, const lbs_results_repart *r);
/* Hands the run's repartitions to fn in step order. */
lbs_err lbs_results_reparts(lbs_results *h, int64_t run, lbs_results_repart_fn fn, void *arg);

/* One point of a policy's recorded series (table series, schema 2): the k-th of its run. */
typedef struct lbs_results_point {
  int64_t run, k, step;
  double value; /* adaptive: the interval chosen at the probe */
} lbs_results_point;
typedef lbs_err (*lbs_results_point_fn)(void *arg, const lbs_results_point *p);
/* Hands every run's series (only the runs of study when it is not NULL) to fn by run, then k;
 * nothing without the table. */
lbs_err lbs_results_series(lbs_results *h, const char *study, lbs_results_point_fn fn, void *arg);

/* A partitioner measured on one step (table partitions, lbsim partition; schema 2). */
typedef struct lbs_results_partition {
  int64_t id;
  const char *study, *trace, *grid;
  int64_t step;
  const char *partitioner;
  int64_t procs, elements;
  double maxqwgt_s, loadimb, work_imbalance, tolerance; /* MinEX's model (seed 003) */
  double wsysll_s, wgt_s, comm_s, remap_s, edge_cut;
  int64_t moved;
  double wall_s;                                  /* the partitioner's own time */
  const char *created, *command, *version, *host; /* provenance, as in runs */
  const char *overrides, *config, *trace_hash, *grid_hash;
} lbs_results_partition;
/* The partition rows (only study's when it is not NULL) by trace, grid, step, partitioner and
 * id into *out (the handle's) and *n; none without the table. */
lbs_err lbs_results_partitions(lbs_results *h, const char *study, const lbs_results_partition **out,
                               int64_t *n);

/* A prediction checked against real runs (tables validations and measurements, lbsim
 * validate). */
typedef struct lbs_results_validation {
  int64_t id, run; /* run: the replay that predicted */
  const char *app, *args;
  int64_t ranks;
  const char *schedule; /* the application steps it ran, comma-separated */
  double predicted_s, measured_median_s, measured_min_s, measured_max_s;
  double error; /* (predicted - median) / median */
  int64_t real_runs;
  int64_t nmeasured;        /* its rows in measurements */
  const double *measured_s; /* each real run's total, by k (the handle's) */
} lbs_results_validation;
/* The validations (only those of study's runs when it is not NULL) by id, each with its
 * measurements, into *out (the handle's) and *n; none without the tables. */
lbs_err lbs_results_validations(lbs_results *h, const char *study,
                                const lbs_results_validation **out, int64_t *n);

/* A resolved grid configuration (the config column of runs and partitions, schema 2). */
typedef struct lbs_results_config {
  const char *grid;   /* the grid file as given with it */
  const char *config; /* INI text */
} lbs_results_config;
/* The distinct configurations of the runs and partition rows (only study's when it is not
 * NULL), each once, by grid and text, into *out (the handle's) and *n. */
lbs_err lbs_results_configs(lbs_results *h, const char *study, const lbs_results_config **out,
                            int64_t *n);

/* ---- any table, column by column (lbsim results --json, --csv) */

/* What a value is. */
typedef enum lbs_results_vtype {
  LBS_RV_NULL,
  LBS_RV_INT,
  LBS_RV_REAL,
  LBS_RV_TEXT, /* a blob too, as its bytes */
} lbs_results_vtype;
/* One value of a row. */
typedef struct lbs_results_val {
  lbs_results_vtype type;
  union {
    int64_t i;     /* LBS_RV_INT */
    double d;      /* LBS_RV_REAL */
    const char *s; /* LBS_RV_TEXT, NUL-terminated */
  };
} lbs_results_val;
/* Called once with row NULL (the column names: a header), then once per row with its ncols
 * values in the order of names. */
typedef lbs_err (*lbs_results_row_fn)(void *arg, int ncols, const char *const *names,
                                      const lbs_results_val *row);
/* The tables of a results store, in the order lbsim results writes them (static storage,
 * NULL-terminated): studies, runs, steps, procs, repartitions, series, assignment, partitions,
 * validations, measurements, validation_pairs. */
const char *const *lbs_results_tables(void);
/* Hands every column of every row of the table (one of lbs_results_tables; LBS_INVAL for another
 * name) to fn in the order the rows were written; with a study (NULL: all), only that study's
 * rows. Calls nothing when the store lacks the table, or has no studies to narrow it with. */
lbs_err lbs_results_table(lbs_results *h, const char *table, const char *study,
                          lbs_results_row_fn fn, void *arg);

/* ---------------------------------------------------------------- provenance (prov.c)
 * Who ran what (command line, version, machine, time), the study that groups runs, and what each
 * run was made of (content hashes, the resolved configuration after overrides, the overrides). */

/* Keeps the command line as given (before getopt permutes argv), shell-quoted, for every study
 * this process starts. Call it once from main. */
void lbs_prov_capture(int argc, char **argv);

/* A study's provenance: info points into the fields. */
typedef struct lbs_prov_study {
  char id[128], command[8192], host[512], started[32];
  lbs_study_info info;
} lbs_prov_study;
/* A study of this kind ("replay", "policy compare", ...): id, or a new one (kind, time and process)
 * when NULL. */
void lbs_prov_study_init(lbs_prov_study *s, const char *kind, const char *id);

/* A run's provenance: info points into the fields (task -1, no optimum). */
typedef struct lbs_prov_run {
  char trace_hash[65], grid_hash[65];
  lbs_buf config;
  char *overrides;
  lbs_run_info info;
} lbs_prov_run;
/* What a run is made of: the files' hashes (none for what is not a regular file; a file's hash is
 * computed once per process while the file stays the same), the resolved configuration, the
 * overrides and the cost model (lbs_cost_kind; -1: none). Never fails: what cannot be had is left
 * out. Free with lbs_prov_run_free. */
void lbs_prov_run_init(lbs_prov_run *ri, const char *trace, const char *grid, const lbs_config *cfg,
                       const char *const *over, int nover, int cost);
void lbs_prov_run_free(lbs_prov_run *ri);

/* ---------------------------------------------------------------- replay sessions (session.c)
 * What every command that replays loads, the same way: the grid file, then the overrides
 * (SECTION.KEY=VALUE, in order: the later wins), the grid, the replay options ([sim] over their
 * defaults) and the trace. */
typedef struct lbs_session {
  const char *trace_path, *grid_path; /* borrowed */
  const char *const *over;            /* the overrides as given (borrowed), for provenance */
  int nover;
  lbs_config *cfg; /* the grid file, then the overrides */
  lbs_grid *grid;
  lbs_trace *trace;     /* NULL when opened without a trace */
  lbs_replay_opts opts; /* the defaults, then cfg's [sim]; opts.cfg = cfg */
  const char
      *failed; /* after a failure: the grid's or the trace's path, whichever failed (borrowed) */
} lbs_session;

/* Loads a session: local (each rank loads its own, and the same files give every rank the same
 * error). trace may be NULL (no trace opened). On failure s->failed names the file at fault and
 * what was loaded stays for lbs_session_close. */
lbs_err lbs_session_open(lbs_session *s, const char *trace, const char *grid,
                         const char *const *over, int nover);
/* Frees what the session loaded and clears it; a zeroed session is fine. */
void lbs_session_close(lbs_session *s);
/* Appends n runs of the session to a results store as one study of this kind (lbs_prov_study_init),
 * each with the session's provenance (its files, configuration, overrides and cost model) and,
 * when iopt >= 0, the optimum run r[iopt]'s total and each run's gap to it. progress (may be NULL)
 * counts rows written. One transaction: nothing is written on failure. */
lbs_err lbs_session_save(const lbs_session *s, const char *results, const char *kind,
                         lbs_replay_result *const *r, int n, int iopt, lbs_progress_fn progress,
                         void *progress_arg);

#endif
