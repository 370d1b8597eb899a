/* lbs_probe.h - the machine lbsim runs on, measured with short real calls and described as a grid
 * file (study/probe.c): what `lbsim grid probe` runs.
 *   - ping-pong between two ranks of one node (and between nodes, when there are several):
 *     latency from the smallest message, bandwidth from a least-squares fit of
 *     t(L) = a + L / b over the large messages;
 *   - the cost of one MPI_Barrier over all ranks;
 *   - the partitioner's cost (lbsim's own call, as the replay makes it) at a few sizes, fitted
 *     as fixed + per element;
 *   - migrations with Zoltan_Migrate and pack/unpack callbacks (as applications migrate) at 3
 *     element counts x 3 element sizes, fitted as fixed + per element + bytes at a rate (the
 *     elements and bytes a rank sends or receives), the grid's migration model.
 * The grid has one cluster per node (a nodetype with one core per rank there), links from the
 * ping-pongs, [sim] partitioning constants from the fit, the barrier cost and the migration
 * model ([grid] migration_fixed_us, migration_per_elem_ns, migration_gbps). The ranks must be
 * numbered node by node (the usual by-slot mapping), as lbsim numbers processors, so simulated
 * processor p is MPI rank p. */
#ifndef LBS_PROBE_H
#define LBS_PROBE_H

#include <mpi.h>

#include "lbs_core.h"
#include "lbs_json.h"

#define LBS_PROBE_SIZES 13 /* ping-pong messages: 8 B, then 1 KiB .. 2 MiB by x2 */
#define LBS_PROBE_MIG 9    /* migrations: 512, 2048, 8192 elements x 64, 512, 4096 bytes */

/* A ping-pong between two ranks. */
typedef struct lbs_probe_link {
  int measured; /* 0: no such pair of ranks (one node; no node with two ranks) */
  double size[LBS_PROBE_SIZES], oneway_us[LBS_PROBE_SIZES]; /* bytes, median one-way time */
  double latency_us, bandwidth_gbps;                        /* 8 B's time; the fitted slope */
  double fit_rms;                                           /* the fit's relative RMS residual */
} lbs_probe_link;

typedef struct lbs_probe {
  char host[MPI_MAX_PROCESSOR_NAME]; /* this rank's */
  int ranks, nodes;
  int *cores;                       /* nodes entries: ranks on each node (owned) */
  lbs_probe_link intra, inter;      /* inside a node, between the first two nodes */
  double barrier_us;                /* one MPI_Barrier over all ranks (median of batches) */
  const char *partitioner;          /* borrowed */
  double part_elems[4], part_us[4]; /* the partitioner's samples: elements, median us */
  double part_fixed_us, part_per_elem_ns, part_rms; /* their fit */
  /* the migrations: elements and bytes each rank sends or receives (twice what it exports), the
   * slowest rank's median us; their fit (the grid's migration model) and its relative RMS */
  double mig_elems[LBS_PROBE_MIG], mig_bytes[LBS_PROBE_MIG], mig_us[LBS_PROBE_MIG];
  double mig_fixed_us, mig_per_elem_ns, mig_gbps, mig_rms;
} lbs_probe;

/* Measures the machine over comm (at least 2 ranks) with the partitioner named (its cost is
 * fitted); quick: fewer repeats. Collective; every rank gets the same answers and errors but its
 * own host. LBS_INVAL for fewer than 2 ranks or ranks not numbered node by node; the
 * partitioner's errors (unknown name; "the partitioner: why" for a failed run). Free with
 * lbs_probe_free, also after a failure. */
lbs_err lbs_probe_run(const char *partitioner, int quick, MPI_Comm comm, lbs_probe *out);
/* The grid file describing the machine (its measurements as comments first), appended to ini;
 * checked to load as a grid ("probed grid: ..." when not). Local: the calling rank's host and
 * the time now name it. */
lbs_err lbs_probe_grid(const lbs_probe *p, lbs_buf *ini);
/* The measurements as `grid probe --json` prints them, output the grid file's path; NULL when out
 * of memory. */
json_t *lbs_probe_json(const lbs_probe *p, const char *output);
void lbs_probe_free(lbs_probe *p); /* frees cores; NULL-safe */

#endif
