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

/* ---------------------------------------------------------------- results store (schema 3)
 * One SQLite file: runs (a row per replay, with its provenance), steps, procs, repartitions,
 * series, assignment, studies (what groups runs: one compare, one sweep), partitions (lbsim
 * partition's rows), validations and measurements. docs/results.md lists every column. */
typedef struct sqlite3 sqlite3;

/* Who made a group of runs, and how. id is required; the rest may be NULL. */
typedef struct lbs_study_info {
  const char *id;                     /* unique; a sweep's is a hash of its study */
  const char *kind;                   /* "replay", "policy compare", "partition", "sweep", "validate" */
  const char *command, *version, *host, *started; /* started: ISO 8601 UTC */
  const char *file, *file_hash, *axes; /* a sweep: its study file, SHA-256, axes (a JSON object) */
  int64_t tasks;                      /* a sweep's task count, else 0 */
  lbs_progress_fn progress;           /* rows written of all to write (may be NULL) */
  void *progress_arg;
  int checked;                        /* the caller checked the store (lbs_results_check) and
                                         each write need not read it whole again (a sweep) */
} lbs_study_info;

/* What one run was made of. Any pointer may be NULL. */
typedef struct lbs_run_info {
  const char *trace, *grid;           /* as given */
  const char *trace_hash, *grid_hash; /* hex SHA-256 of the files (lbs_file_sha256) */
  const char *cost;                   /* "model", "measured", "zero" */
  const char *overrides;              /* the -o assignments, one per line */
  const char *config;                 /* the resolved configuration (lbs_config_dump) */
  const char *labels;                 /* a JSON object: the sweep axes' values of this run */
  int64_t task;                       /* the sweep's task number, -1 for none */
  double optimum_s, gap_to_optimal;   /* NAN: none */
} lbs_run_info;

/* Appends n runs (with their study's row, once, when si is given) in one transaction; the
 * new ids in ids (may be NULL). Nothing is written on failure. */
lbs_err lbs_results_save_study(const char *path, const lbs_study_info *si, lbs_replay_result *const *r,
                               const lbs_run_info *ri, int n, int64_t *ids);

/* A partitioner measured on one step (lbsim partition): MinEX's model metrics (seed 003). */
typedef struct lbs_partition_row {
  lbs_run_info run; /* trace, grid, hashes, overrides, config */
  int64_t step, elements, moved;
  const char *partitioner;
  int procs;
  double maxqwgt_s, loadimb, work_imbalance, tolerance, wsysll_s, wgt_s, comm_s, remap_s, edge_cut, wall_s;
} lbs_partition_row;
lbs_err lbs_results_save_partitions(const char *path, const lbs_study_info *si, const lbs_partition_row *rows, int n);

/* Opens a results store read-only (core's lbs_db_open; the caller closes *db with sqlite3_close):
 * LBS_IO when it cannot be read, LBS_FORMAT when it is not one, LBS_VERSION when a newer lbsim
 * wrote it; *version is its schema (1 to 3), the store is not upgraded. */
lbs_err lbs_results_open_read(const char *path, sqlite3 **db, int *version);
/* Reads the whole store and checks it (SQLite's quick check): LBS_CORRUPT when damaged. */
lbs_err lbs_results_check(const char *path);
/* 1 when the table has the column (a schema-1 store lacks schema 2's). */
int lbs_results_has_column(sqlite3 *db, const char *table, const char *column);
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
  lbs_config *cfg;      /* the grid file, then the overrides */
  lbs_grid *grid;
  lbs_trace *trace;     /* NULL when opened without a trace */
  lbs_replay_opts opts; /* the defaults, then cfg's [sim]; opts.cfg = cfg */
  const char *failed;   /* after a failure: the grid's or the trace's path, whichever failed (borrowed) */
} lbs_session;

/* Loads a session: local (each rank loads its own, and the same files give every rank the same
 * error). trace may be NULL (no trace opened). On failure s->failed names the file at fault and
 * what was loaded stays for lbs_session_close. */
lbs_err lbs_session_open(lbs_session *s, const char *trace, const char *grid, const char *const *over, int nover);
/* Frees what the session loaded and clears it; a zeroed session is fine. */
void lbs_session_close(lbs_session *s);
/* Appends n runs of the session to a results store as one study of this kind (lbs_prov_study_init),
 * each with the session's provenance (its files, configuration, overrides and cost model) and,
 * when iopt >= 0, the optimum run r[iopt]'s total and each run's gap to it. progress (may be NULL)
 * counts rows written. One transaction: nothing is written on failure. */
lbs_err lbs_session_save(const lbs_session *s, const char *results, const char *kind, lbs_replay_result *const *r, int n,
                         int iopt, lbs_progress_fn progress, void *progress_arg);

#endif
