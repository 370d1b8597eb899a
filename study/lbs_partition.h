/* lbs_partition.h - partitioners measured on one step of a trace for a grid (study/partition.c):
 * MinEX's model (seed 003, slide 8) gives each partition's projected run time of the step
 * (MaxQWgt), LoadImb, edge cut and relocation; beside them the work imbalance against the shares
 * the partitioner aimed at, and its wall time. Several partitioners in one study see the same
 * graph. What `lbsim partition` runs; MPI: each rank holds a slice of the elements. */
#ifndef LBS_PARTITION_H
#define LBS_PARTITION_H

#include <mpi.h>
#include <stdint.h>

#include "lbs_json.h"
#include "lbs_minex.h"
#include "lbs_study.h"

typedef struct lbs_partition_opts {
  int64_t step;       /* the trace step */
  const char *metric; /* processing weight; NULL: pwgt when the trace has it, else its first */
  int from_block;     /* 1: the elements start in equal blocks of ids in processor order (moves
                         cost relocation, partitioners repartition); 0: nowhere */
  int gm;             /* 1: partitioners see Gm (symmetric, zero weights raised to 1); the run
                         time is measured on G, the graph as traced, either way */
  int64_t procs;      /* > 0: the grid must have this many processors */
  int64_t repeat;     /* runs of each partitioner; the fastest wall time is kept (>= 1) */
} lbs_partition_opts;

/* One partitioner's partition, measured. */
typedef struct lbs_partition_eval {
  const char *name;  /* the partitioner as given (borrowed) */
  lbs_minex_eval ev; /* MinEX's metrics on G, [minex]'s latency function */
  double wall_s;     /* the fastest run's wall time (the slowest rank's) */
  double work_imb;   /* max over processors of work / the grid's share */
  double tol;        /* the tolerance the partitioner promises; 0: none */
  double own_imb;    /* the work imbalance against the shares it aimed at: the grid's when it
                        takes them (own_sizes), else equal ones; above tol it missed its promise */
  int own_sizes;
} lbs_partition_eval;

/* Called on every rank after each partitioner with its evaluation and the whole partition
 * (E parts, element order): a non-zero return (after the hook said why, on its own rank) stops
 * the study with that error on every rank. */
typedef lbs_err (*lbs_partition_fn)(void *arg, const lbs_partition_eval *ev, const int *part,
                                    int64_t E);

/* What the study found out besides the evaluations. */
typedef struct lbs_partition_info {
  int64_t elements;
  int procs, clusters;
  const char *failed; /* after a failure: the grid's or the trace's path, "partition" (the
                         study's own checks, a partitioner that cannot be made) or the name of the
                         partitioner that failed; NULL when the hook failed */
} lbs_partition_info;

/* Partitions the session's step o->step with each of the n partitioners ev[k].name (set by the
 * caller), fills ev[k] and calls done (may be NULL) after each. The session's grid file must pass
 * the partitioners' section checks ([minex], ...). Collective over comm; every rank gets the same
 * answers and errors (the first failing rank's). Errors: the grid's section check, [minex]'s
 * latency function, LBS_INVAL for --procs or more processors than elements, the trace's (a step
 * not in the trace, no such metric, no mesh graph, a negative weight), a partitioner's own. */
lbs_err lbs_partition_study(lbs_session *s, const lbs_partition_opts *o, lbs_partition_eval *ev,
                            int n, MPI_Comm comm, lbs_partition_fn done, void *arg,
                            lbs_partition_info *info);

/* Appends a row per evaluation (table partitions) to a results store, as one study of kind
 * "partition" with the session's provenance; one transaction. Local (rank 0). */
lbs_err lbs_partition_save(const lbs_session *s, const char *results, const lbs_partition_opts *o,
                           const lbs_partition_eval *ev, int n, const lbs_partition_info *info);

/* The evaluations as `lbsim partition --json` prints them: an array of an object per partitioner
 * (an array for one too); NULL when out of memory. */
json_t *lbs_partition_json(const lbs_partition_opts *o, const lbs_partition_eval *ev, int n,
                           const lbs_partition_info *info);

#endif
