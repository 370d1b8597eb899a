/* lbs_sim.h - the simulator kernel: event queue, network, replay engine, results store. */
#ifndef LBS_SIM_H
#define LBS_SIM_H

#include <stdint.h>

#include "lbs_core.h"

/* An event: at integer-ns time `time`, of a kind and for a processor, with a payload.
 * Events at the same time come out in insertion order, so replays are deterministic. */
typedef struct lbs_event {
  int64_t time;  /* ns */
  uint64_t seq;  /* insertion counter, set by lbs_queue_push */
  int kind;      /* the engine's event kinds */
  int proc;      /* processor it concerns, or -1 */
  int64_t arg;   /* payload (step, peer, ...) */
} lbs_event;

/* A binary min-heap of events ordered by (time, seq). */
typedef struct lbs_queue lbs_queue;
lbs_err lbs_queue_create(size_t capacity_hint, lbs_queue **out);
void lbs_queue_destroy(lbs_queue **q); /* NULL-safe, clears *q */
/* Adds an event (its seq is assigned here); LBS_NOMEM when it cannot grow. */
lbs_err lbs_queue_push(lbs_queue *q, int64_t time, int kind, int proc, int64_t arg);
/* Removes the earliest event into *out; returns 0 when the queue is empty. */
int lbs_queue_pop(lbs_queue *q, lbs_event *out);
/* The earliest event without removing it, or NULL. Valid until the next push or pop. */
const lbs_event *lbs_queue_peek(const lbs_queue *q);
size_t lbs_queue_size(const lbs_queue *q);

#include <mpi.h>
#include <stdio.h>

#include "lbs_grid.h"
#include "lbs_json.h"
#include "lbs_traces.h"

/* ================================================================ network */

/* A transfer of bytes from processor p to q, ready to go at `ready` ns; lbs_net_run sets
 * `arrival`, when the last byte is at q. */
typedef struct lbs_transfer {
  int p, q;
  double bytes;
  int64_t ready, arrival;
} lbs_transfer;

/* The grid's network as transfers see it (network.c): the links between clusters, the NICs
 * ([nodetype] nic_gbps) and how transfers share them ([grid] sharing: max-min fair flows as
 * SimGrid's CM02 model, or whole transfers first come first served). It remembers what
 * earlier batches put on the shared resources: a batch gets what they left. */
typedef struct lbs_net lbs_net;
lbs_err lbs_net_create(const lbs_grid *g, lbs_net **out); /* g must outlive it */
void lbs_net_destroy(lbs_net **n);                        /* NULL-safe, clears *n */
/* Reads the links' bandwidths again from the grid (a live grid changed them, sim/avail.c);
 * what earlier batches left on the shared links stays. */
void lbs_net_relink(lbs_net *n);
/* Forgets every earlier batch: the network is idle. */
void lbs_net_reset(lbs_net *n);
/* Serves one batch of transfers (sets every xs[i].arrival). Deterministic: the same batches
 * give the same arrivals on every rank. LBS_INVAL for a processor outside the grid, a
 * negative ready time or size. */
lbs_err lbs_net_run(lbs_net *n, lbs_transfer *xs, int nx);

/* ================================================================ replay */

typedef enum { LBS_MODE_BSP = 0, LBS_MODE_DES = 1 } lbs_sim_mode;
typedef enum { LBS_COST_MODEL = 0, LBS_COST_MEASURED = 1, LBS_COST_ZERO = 2 } lbs_cost_kind;
/* Where the partitioner runs. rank0: every rank's elements are gathered on rank 0, which
 * partitions them alone: the same answer on any number of ranks, and O(E) memory on rank 0.
 * distributed: the partitioner runs on every rank's own elements (Zoltan's parallel methods,
 * PT-Scotch through zoltan:graph): O(E/R) memory per rank, and reproducible at a fixed number
 * of ranks only. auto: distributed from distributed_min_elements on 2 or more ranks when the
 * partitioner has a distributed path, else rank0. */
typedef enum { LBS_PARTMODE_AUTO = 0, LBS_PARTMODE_RANK0 = 1, LBS_PARTMODE_DISTRIBUTED = 2 } lbs_partition_mode;
lbs_err lbs_partition_mode_parse(const char *s, lbs_partition_mode *out); /* LBS_PARSE if unknown */
const char *lbs_partition_mode_name(lbs_partition_mode m);

typedef struct lbs_replay_opts {
  const char *metric;        /* replayed metric; NULL: the trace's first */
  int64_t first_step;        /* replay steps [first_step, first_step + nsteps) of the trace */
  int64_t nsteps;            /* 0: to the end */
  const char *partitioner;   /* e.g. "zoltan:rcb" */
  const char *policy;        /* e.g. "fixed:20" */
  lbs_sim_mode mode;         /* bsp or des */
  lbs_cost_kind cost;        /* how partitioning time is charged */
  double cost_scale;         /* LBS_COST_MEASURED: simulated = measured wall time x scale */
  double part_fixed_us;      /* LBS_COST_MODEL: fixed cost per call; < 0: the partitioner's default */
  double part_per_elem_ns;   /* LBS_COST_MODEL: cost per element; < 0: the partitioner's default */
  const lbs_config *cfg;     /* [zoltan] pass-through; may be NULL */
  int save_assignment;       /* keep the assignment after every repartition */
  int approach;              /* repartitions: 0 partition from scratch (default), 1 Zoltan REPARTITION */
  lbs_progress_fn progress;  /* called on rank 0 after each step (may be NULL); non-zero stops the replay, an error on every rank */
  void *progress_arg;
  /* the weights the partitioner gets: a metric of the trace (e.g. the application's own
   * "weight", what it gives its partitioner), while the replayed metric stays the work; NULL:
   * the replayed metric */
  const char *partition_metric;
  /* called on rank 0 as the optimal policy's search goes (it runs before the first step:
   * partitions of every step, a simulation from every step, migrations); may be NULL */
  lbs_progress_fn search_progress;
  void *search_progress_arg;
  lbs_partition_mode partition_mode;  /* auto (default), rank0 or distributed */
  int64_t distributed_min_elements;   /* auto: distributed from this many elements (1,000,000) */
  double memory_limit_gb;             /* a node's memory for the check before the work; 0: available */
} lbs_replay_opts;

typedef struct lbs_repart_rec {
  int64_t step;         /* repartitioned before this step */
  int64_t partition_ns; /* charged partitioning time */
  int64_t migration_ns; /* migration time over the simulated links */
  int64_t moved;        /* elements that changed processor */
  double moved_bytes;   /* bytes they carried */
  double wall_s;        /* measured wall time of the partitioner call */
  double work_imbalance; /* of the new partition: max over processors of work / target share */
} lbs_repart_rec;

typedef struct lbs_replay_result {
  char *metric, *partitioner, *policy; /* owned copies */
  lbs_sim_mode mode;
  int64_t elements, steps;  /* steps replayed (the window) */
  int64_t first_step;       /* the window's first trace step */
  int procs;
  int64_t total_ns, compute_ns, comm_ns, partition_ns, migration_ns, moved;
  double mean_imbalance, max_imbalance, mean_loadimb;
  int64_t *app_step;        /* S application step numbers */
  int64_t *step_ns;         /* S: how much the simulated clock advanced in each step */
  int64_t *step_compute_ns; /* S: largest compute time of the step */
  double *imbalance;        /* S: (Lmax - Lavg) / Lmax */
  double *loadimb;          /* S: Lmax / Lavg */
  int64_t *excess_ns;       /* S: Lmax - Lavg (ns) */
  int *repartitioned;       /* S: 1 when the step started with a repartition */
  int64_t *proc_ns;         /* S*P: compute time of each processor at each step */
  lbs_repart_rec *reparts;  /* nrep records */
  int nrep;
  int *assign;              /* (nrep+1)*E with save_assignment: initial, then after each */
  double wall_s;            /* wall time of the whole replay */
  int64_t *series_step;     /* the policy's recorded series (adaptive: probe step), or NULL */
  double *series_value;     /* ... and value (adaptive: interval) */
  int nseries;
  int64_t optimum_ns;       /* optimal: the total its optimiser computed (-1 for other policies) */
  double initial_work_imbalance; /* of the initial partition */
  double max_work_imbalance;     /* the worst over the initial partition and every repartition */
  double tolerance;              /* the partitioner's promise (0: none) */
  int tolerance_missed;          /* partitions (initial one included) above it */
  lbs_partition_mode partition_mode; /* the one that ran: rank0 or distributed */
  int ranks;                     /* MPI ranks that ran the replay */
  double peak_rss_mb;            /* the largest peak resident set over the ranks (VmHWM), MB */
} lbs_replay_result;

/* Every field at its default, as [sim] has them: zoltan:rcb, policy none, bsp, the cost model
 * with the partitioner's own figures, the whole trace, no callbacks. */
void lbs_replay_opts_default(lbs_replay_opts *o);
/* The [sim] section of a run configuration: partitioner, policy, mode, metric, steps, cost model. */
extern const lbs_section_spec lbs_sim_spec[];
/* Fills o's fields from [sim] (checked against lbs_sim_spec); strings stay valid while cfg
 * lives. Fields not given keep their defaults. */
lbs_err lbs_replay_opts_from_config(const lbs_config *cfg, lbs_replay_opts *o);
/* Sets the field of o that [sim] key sets, from its text as lbs_replay_opts_from_config reads it
 * (it reads every key through this; strings are borrowed): LBS_PARSE or LBS_RANGE with why alone
 * ("'x' must be bsp or des"), for the caller to say where (a file's line, a command-line flag);
 * LBS_INVAL for a key [sim] lacks. */
lbs_err lbs_replay_opts_set(lbs_replay_opts *o, const char *key, const char *value);

/* Replays trace t on grid g: collective over comm (every rank gets the same result).
 * Errors are agreed: every rank returns the same code, rank 0 the message. */
lbs_err lbs_replay(lbs_trace *t, const lbs_grid *g, const lbs_replay_opts *o, MPI_Comm comm,
                   lbs_replay_result **out);
void lbs_replay_result_free(lbs_replay_result **r); /* NULL-safe, clears *r */

/* What a replay does, as it does it (lbsim export simgrid writes it as SMPI traces). Give one
 * on every rank or on none (each call's error is agreed, a collective): it is called on every
 * rank with the same data, and a failure stops the replay with that error. The transfers carry
 * their ready and arrival times. */
typedef struct lbs_replay_recorder {
  /* A repartition before replayed step `step` (0-based in the window): the clocks meet at a
   * barrier, partition_ns pass, the migration's transfers go (ready at the barrier +
   * partition_ns), and the clocks meet again at the last arrival. */
  lbs_err (*repartition)(void *arg, int64_t step, int64_t partition_ns, const lbs_transfer *mig, int nmig);
  /* Step `step`: each processor computes load_ns[p], then sends its halo transfers (ready when
   * its compute is done); bsp then waits at the barrier (its cost: lbs_grid_barrier_ns). */
  lbs_err (*step)(void *arg, int64_t step, const int64_t *load_ns, int procs, const lbs_transfer *halo, int nhalo);
  void *arg;
} lbs_replay_recorder;
/* lbs_replay, telling rec (may be NULL) what happens. */
lbs_err lbs_replay_record(lbs_trace *t, const lbs_grid *g, const lbs_replay_opts *o, const lbs_replay_recorder *rec,
                          MPI_Comm comm, lbs_replay_result **out);
/* The run as one JSON object (DESIGN.md's fields; NULL when out of memory), to be written at
 * LBS_JSON_SHORT (lbs_json_write): its values are what it has always shown, seconds to the
 * nanosecond, imbalances to 9 decimals, wall_s to the millisecond. */
json_t *lbs_replay_json(const lbs_replay_result *r);
/* The same fields, in the same order, set in the object o (policy compare adds its own after
 * them): 0, or -1 when out of memory. */
int lbs_replay_json_fields(json_t *o, const lbs_replay_result *r);
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

#endif
