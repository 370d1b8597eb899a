/* lbs_sim.h - the simulator kernel: event queue, network, replay engine. (The results store a
 * replay is saved in is the study layer's: study/lbs_study.h.) */
#ifndef LBS_SIM_H
#define LBS_SIM_H

#include <stdint.h>

#include "lbs_core.h"

/* An event: at integer-ns time `time`, of a kind and for a processor, with a payload.
 * Events at the same time come out in insertion order, so replays are deterministic. */
typedef struct lbs_event {
  int64_t time; /* ns */
  uint64_t seq; /* insertion counter, set by lbs_queue_push */
  int kind;     /* the engine's event kinds */
  int proc;     /* processor it concerns, or -1 */
  int64_t arg;  /* payload (step, peer, ...) */
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
/* One fair simulation that goes on across batches (des with [sim] des_overlap = shared,
 * sim/overlap.c): transfers join it while it runs, each given its ready time and a tag, and it
 * is run from arrival to arrival, so that a transfer may be added in answer to another's
 * arrival. The arrivals are those one batch holding every transfer from the start would give
 * (lbs_net_run's arithmetic, the general solver's): the flows of overlapping steps share the
 * resources as SimGrid shares them, where batches serve the earlier step first. Needs [grid]
 * sharing = fair. */
typedef struct lbs_netsim lbs_netsim;
/* Starts an idle simulation at time t0 on n, whose earlier batches are forgotten (none may
 * still be in flight at t0: lbs_net_reset). n must outlive it and run no batch meanwhile. */
lbs_err lbs_netsim_create(lbs_net *n, int64_t t0, lbs_netsim **out);
void lbs_netsim_destroy(lbs_netsim **s); /* NULL-safe, clears *s */
/* A copy that goes on alone (on the same lbs_net, one of them run at a time). */
lbs_err lbs_netsim_copy(const lbs_netsim *src, lbs_netsim **out);
/* Adds transfer t with the caller's tag. t must be ready at or after the simulation's time (the
 * last event it was run to), and a flow that starts at that very time only while the rates there
 * are not computed yet (after lbs_netsim_next handed back arrivals there, or stopped before it):
 * LBS_INVAL otherwise. A caller that adds transfers in answer to arrivals at t, ready at t or
 * later, and runs the simulation with a limit before its own next event, meets both. */
lbs_err lbs_netsim_add(lbs_netsim *s, const lbs_transfer *t, int64_t tag);
/* Runs to the next arrivals no later than limit: *nout tags (in *tags, of capacity *cap, grown
 * as needed) arriving at *t; 0 in *nout when none arrives up to limit (the simulation then stops
 * before any event after limit; it may have computed the rates at limit itself, so a transfer
 * starting at limit must have been added before). Ties: the transfers that share nothing first,
 * then the flows in activation order. */
lbs_err lbs_netsim_next(lbs_netsim *s, int64_t limit, int64_t *t, int64_t **tags, int *nout,
                        int *cap);
/* 1 when nothing is in flight or waiting to start. */
int lbs_netsim_idle(const lbs_netsim *s);
/* For tests and benchmarks only. on != 0: every fair batch from now on, in this process, goes
 * through the reference solver, the general one as it was before issue 34 (progressive
 * filling over all flows at every event, fill_ref), not the shortcuts (flows that share one
 * resource equally; flows that cross one shared resource and NICs) nor the general path's
 * cursors; the arrivals are the same to the ns (tests/sim/test_fairnet.c checks it). */
void lbs__net_full_solver(int on);
/* How many fair batches n served by that shortcut. */
long lbs__net_one_batches(const lbs_net *n);
/* The events of n's batches with one common resource and NICs (sim/network.c, run_common):
 * *one_round those served with every flow at one rate, *general those that went through the
 * general solver's steps. */
void lbs__net_common_events(const lbs_net *n, long *one_round, long *general);
/* The usage records of those batches (sim/network.c, lazy_start): merged into a resource's
 * profile *resolved when a later batch crossed the resource, *flushed whole because too many
 * records were held; *deferred, their merge not written while a later batch crossed the
 * resource, of which *dropped were never written (the profile the next batch kept held nothing
 * of them). */
void lbs__net_lazy_counts(const lbs_net *n, long *resolved, long *flushed, long *deferred,
                          long *dropped);

/* ================================================================ replay */

typedef enum { LBS_MODE_BSP = 0, LBS_MODE_DES = 1 } lbs_sim_mode;
/* des on a fair network ([sim] des_overlap): ordered, each step's transfers after the earlier
 * steps'; shared, overlapping steps' transfers share the resources (overlap.c), with a warning
 * where that cannot apply; auto (the default), shared where it applies and ordered elsewhere,
 * without a warning. */
typedef enum { LBS_DES_ORDERED = 0, LBS_DES_SHARED = 1, LBS_DES_AUTO = 2 } lbs_des_overlap;
typedef enum { LBS_COST_MODEL = 0, LBS_COST_MEASURED = 1, LBS_COST_ZERO = 2 } lbs_cost_kind;
/* How a migration the trace has no recorded cost for is charged ([sim] migration_cost).
 * measured (default): at the application's own rate, fitted to the migrations its trace recorded
 * (events migration_s where the recorded owners change), where it has them; model: the grid's
 * migration model ([grid] migration_*, lbsim grid probe) where it has one; links: each moved
 * element over the simulated links. Each falls to the next where it has nothing. */
typedef enum {
  LBS_MIGCOST_MEASURED = 0,
  LBS_MIGCOST_MODEL = 1,
  LBS_MIGCOST_LINKS = 2
} lbs_migration_cost;
/* Where the partitioner runs. rank0: every rank's elements are gathered on rank 0, which
 * partitions them alone: the same answer on any number of ranks, and O(E) memory on rank 0.
 * distributed: the partitioner runs on every rank's own elements (Zoltan's parallel methods,
 * PT-Scotch through zoltan:graph): O(E/R) memory per rank, and reproducible at a fixed number
 * of ranks only. auto: distributed from distributed_min_elements on 2 or more ranks when the
 * partitioner has a distributed path, else rank0. */
typedef enum {
  LBS_PARTMODE_AUTO = 0,
  LBS_PARTMODE_RANK0 = 1,
  LBS_PARTMODE_DISTRIBUTED = 2
} lbs_partition_mode;
lbs_err lbs_partition_mode_parse(const char *s, lbs_partition_mode *out); /* LBS_PARSE if unknown */
const char *lbs_partition_mode_name(lbs_partition_mode m);

typedef struct lbs_replay_opts {
  const char *metric;          /* replayed metric; NULL: the trace's first */
  int64_t first_step;          /* replay steps [first_step, first_step + nsteps) of the trace */
  int64_t nsteps;              /* 0: to the end */
  const char *partitioner;     /* e.g. "zoltan:rcb" */
  const char *policy;          /* e.g. "fixed:20" */
  lbs_sim_mode mode;           /* bsp or des */
  lbs_des_overlap des_overlap; /* des on a fair network ([sim] des_overlap; default auto) */
  lbs_cost_kind cost;          /* how partitioning time is charged */
  double cost_scale;           /* LBS_COST_MEASURED: simulated = measured wall time x scale */
  double part_fixed_us;    /* LBS_COST_MODEL: fixed cost per call; < 0: the partitioner's default */
  double part_per_elem_ns; /* LBS_COST_MODEL: cost per element; < 0: the partitioner's default */
  const lbs_config *cfg;   /* [zoltan] pass-through; may be NULL */
  int save_assignment;     /* keep the assignment after every repartition */
  int approach; /* repartitions: 0 partition from scratch (default), 1 Zoltan REPARTITION */
  lbs_progress_fn progress; /* called on rank 0 after each step (may be NULL); non-zero stops the
                               replay, an error on every rank */
  void *progress_arg;
  /* the weights the partitioner gets: a metric of the trace (e.g. the application's own
   * "weight", what it gives its partitioner), while the replayed metric stays the work; NULL:
   * the replayed metric */
  const char *partition_metric;
  /* called on rank 0 as the optimal policy's search goes (it runs before the first step:
   * partitions of every step, a simulation from every step, migrations); may be NULL */
  lbs_progress_fn search_progress;
  void *search_progress_arg;
  lbs_partition_mode partition_mode; /* auto (default), rank0 or distributed */
  int64_t distributed_min_elements;  /* auto: distributed from this many elements (1,000,000) */
  double memory_limit_gb; /* a node's memory for the check before the work; 0: available */
  /* 1: the replayed metric is charged as one phase even where the trace lists its phases
   * (metadata phases.M): [sim] phases = no. 0 (default): each phase's slowest processor */
  int no_phases;
  /* 1: the partitioner gets the phases as a multi-constraint load, one weight per phase, each
   * balanced on its own ([sim] phase_constraints = yes; its partitioner has LBS_PART_WEIGHTS and
   * the trace phases). 0 (default): one weight, the replayed metric */
  int phase_constraints;
  lbs_migration_cost migration_cost; /* [sim] migration_cost: measured (default), model or links */
  /* 1: the trace's event outside_s is not charged ([sim] outside = no). 0 (default): where the
   * trace has it and partitioning is charged as measured (cost measured, or the recorded policy),
   * each step costs, after its compute and communication, what the application spent outside its
   * measured elements and beyond the step's compute (sim/recorded.c says how) */
  int no_outside;
  /* The parts the partitioner aims at ([sim] part_sizes): LBS_PARTS_SPEED (default) in
   * proportion to the processors' speeds, LBS_PARTS_EQUAL equal, LBS_PARTS_APP as the trace's
   * app.part_sizes records the application's rule ("equal", or one share per processor) */
  int part_sizes;
} lbs_replay_opts;

enum { LBS_PARTS_SPEED = 0, LBS_PARTS_EQUAL = 1, LBS_PARTS_APP = 2 };
/* The trace's key for the application's part sizes (lbsprof_meta "part_sizes"): "equal", or
 * comma-separated shares, one per rank, as the application gave its partitioner. */
#define LBS_APP_PART_SIZES_META "app.part_sizes"

typedef struct lbs_repart_rec {
  int64_t step;          /* repartitioned before this step */
  int64_t partition_ns;  /* charged partitioning time */
  int64_t migration_ns;  /* migration time: over the simulated links, or the grid's migration
                            model ([grid] migration_*), or the application's own rate fitted to
                            its trace (lbs_replay_result.mig_*), or its recorded one */
  int64_t moved;         /* elements that changed processor */
  double moved_bytes;    /* bytes they carried */
  double wall_s;         /* measured wall time of the partitioner call */
  double work_imbalance; /* of the new partition: max over processors of work / target share */
  int recorded;          /* what the application recorded (policy recorded, the trace's events): 1
                            partition_ns, 2 migration_ns, 3 both; 0 both modelled */
} lbs_repart_rec;

typedef struct lbs_replay_result {
  char *metric, *partitioner, *policy; /* owned copies */
  lbs_sim_mode mode;
  int64_t elements, steps; /* steps replayed (the window) */
  int64_t first_step;      /* the window's first trace step */
  int procs;
  int64_t total_ns, compute_ns, comm_ns, partition_ns, migration_ns, moved;
  double mean_imbalance, max_imbalance, mean_loadimb;
  int64_t *app_step;        /* S application step numbers */
  int64_t *step_ns;         /* S: how much the simulated clock advanced in each step */
  int64_t *step_compute_ns; /* S: largest compute time of the step; with phases, the sum over
                               phases of each phase's largest (what the step's compute costs) */
  double *imbalance;        /* S: (Lmax - Lavg) / Lmax */
  double *loadimb;          /* S: Lmax / Lavg */
  int64_t *excess_ns;       /* S: Lmax - Lavg (ns) */
  int *repartitioned;       /* S: 1 when the step started with a repartition */
  int64_t *proc_ns; /* S*P: compute time of each processor at each step (with phases, the sum of
                       its phases: the replayed metric) */
  lbs_repart_rec *reparts; /* nrep records */
  int nrep;
  int *assign;          /* (nrep+1)*E with save_assignment: initial, then after each */
  double wall_s;        /* wall time of the whole replay */
  int64_t *series_step; /* the policy's recorded series (adaptive: probe step), or NULL */
  double *series_value; /* ... and value (adaptive: interval) */
  int nseries;
  int64_t optimum_ns; /* optimal: the total its optimiser computed (-1 for other policies) */
  double initial_work_imbalance; /* of the initial partition */
  double max_work_imbalance;     /* the worst over the initial partition and every repartition */
  double tolerance;              /* the partitioner's promise (0: none) */
  int tolerance_missed;          /* partitions (initial one included) above it */
  lbs_partition_mode partition_mode; /* the one that ran: rank0 or distributed */
  int ranks;                         /* MPI ranks that ran the replay */
  double peak_rss_mb;                /* the largest peak resident set over the ranks (VmHWM), MB */
  int recorded_costs; /* repartitions charged a recorded cost (reparts[].recorded not 0) */
  char **phases;      /* nphases owned names: the phase metrics charged (trace metadata phases.M) */
  int nphases;        /* 0: the replayed metric was charged as one phase */
  /* the application's own migration rate, fitted to the migrations its trace recorded, that the
   * repartitions were charged (migration_cost = measured, a policy other than recorded): a
   * fixed term and a cost per element the busiest processor sends or receives; fit 0 none (the
   * grid's model or the links charged them), 1 the ratio of sums (fixed 0), 2 least squares */
  int mig_fit, mig_points;
  double mig_fixed_us, mig_per_elem_ns;
  int outside;        /* 1: the trace's outside_s was charged (lbs_replay_opts.no_outside) */
  int64_t outside_ns; /* what it added over the steps (in total_ns, not in comm_ns) */
  int part_sizes;     /* the rule the parts followed (lbs_replay_opts.part_sizes) */
  int des_shared;     /* 1: des whose steps shared the network ([sim] des_overlap shared or auto) */
} lbs_replay_result;

/* The P = lbs_grid_procs(g) part sizes a rule gives (lbs_replay_opts.part_sizes): in proportion
 * to the speeds, equal, or the trace's app.part_sizes ("equal" or P shares); a failed processor
 * gets 0 and the rest share 1. Errors: part_sizes = app on a trace without the key, a share that
 * is not a number > 0, a count other than P. Local. */
lbs_err lbs_replay_part_sizes(const lbs_trace *t, const lbs_grid *g, int rule, double *sizes);

/* Every field at its default, as [sim] has them: zoltan:rcb, policy none, bsp, des_overlap auto,
 * the cost model with the partitioner's own figures, the whole trace, no callbacks. (Options
 * zeroed instead get des_overlap ordered, the model before auto.) */
void lbs_replay_opts_default(lbs_replay_opts *o);
/* The [sim] section of a run configuration: partitioner, policy, mode, metric, steps, cost model.
 */
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
   * partition_ns), and the clocks meet again at the last arrival. migration_ns is -1 then;
   * where it is 0 or more, it is the migration time the application recorded (policy recorded)
   * or the application's fitted rate or the grid's migration model gives ([sim]
   * migration_cost), which passes in place of the
   * transfers (mig NULL, nmig 0) before the clocks meet again. */
  lbs_err (*repartition)(void *arg, int64_t step, int64_t partition_ns, int64_t migration_ns,
                         const lbs_transfer *mig, int nmig);
  /* Step `step`: each processor computes load_ns[p], then sends its halo transfers (ready when
   * its compute is done); bsp then waits at the barrier (its cost: lbs_grid_barrier_ns). */
  lbs_err (*step)(void *arg, int64_t step, const int64_t *load_ns, int procs,
                  const lbs_transfer *halo, int nhalo);
  void *arg;
} lbs_replay_recorder;
/* lbs_replay, telling rec (may be NULL) what happens. */
lbs_err lbs_replay_record(lbs_trace *t, const lbs_grid *g, const lbs_replay_opts *o,
                          const lbs_replay_recorder *rec, MPI_Comm comm, lbs_replay_result **out);
/* The run as one JSON object (DESIGN.md's fields; NULL when out of memory): its values are
 * rounded to what it has always shown, seconds to the nanosecond, imbalances to 9 decimals,
 * wall_s to the millisecond (lbs_json_fixed). */
json_t *lbs_replay_json(const lbs_replay_result *r);
/* The same fields, in the same order, set in the object o (policy compare adds its own after
 * them): 0, or -1 when out of memory. */
int lbs_replay_json_fields(json_t *o, const lbs_replay_result *r);

#endif
