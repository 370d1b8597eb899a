/* lbsprof.h - lbsim's fine-grained profiler (seed 002, section 2: Chiffon).
 *
 * An MPI mesh application measures a cost for every element at sampled steps:
 *
 *   lbsprof_opts o;
 *   lbsprof_opts_default(&o);
 *   o.trace_path = "run.lbt";                  // written by the collector
 *   lbsprof *p;
 *   lbsprof_init(MPI_COMM_WORLD, &o, &p);      // collective
 *   int w = lbsprof_value_metric(p, "weight", "cells");   // optional: values the app supplies
 *   int part = lbsprof_event_register(p, LBSPROF_EVENT_PARTITION); // optional: the app's own costs
 *   int ph[2] = {lbsprof_phase_register(p, "H"), lbsprof_phase_register(p, "E")}; // optional
 *   lbsprof_mesh_box(p, global, lo, hi);       // collective: this rank's box; starts the agents
 *                                              // (or lbsprof_mesh_elements / _weighted: a graph)
 *   for (step...) {
 *     lbsprof_phase(p, ph[0]);                   // optional: time_ns.H as well as time_ns
 *     for (i in local elements) {
 *       lbsprof_elem_begin(p, i); work(i); lbsprof_elem_end(p, i);
 *       lbsprof_set_value(p, w, i, weight[i]);
 *     }
 *     exchange_halo(); lbsprof_phase(p, ph[1]); ... the second update's elements, measured ...
 *     lbsprof_edge_weights(p, xadj, w);          // optional: this step's arc weights, under
 *                                                // lbsprof_meta(p, "edge_weight", "stored@step")
 *     lbsprof_step_end(p);                       // every step; sampled ones are sent
 *     if (repartition) {
 *       double t0 = MPI_Wtime(); partition(); migrate();
 *       lbsprof_event_add(p, part, MPI_Wtime() - t0);   // this rank's seconds, this step
 *       lbsprof_remap(p, n, gid);                // collective: local index i is gid[i] from now
 *     }
 *   }
 *   lbsprof_finalize(&p);                        // collective: waits until the trace is written
 *
 * Runtime (the seed's Figure 1): the first rank on each node starts a node agent (the seed's
 * LocalAgent, a separate process) that reads each local rank's samples from a bounded ring in
 * POSIX shared memory, compacts each step with the trace codec and streams it to one
 * collector (the GlobalAgent, started by rank 0 unless opts.collector names a running
 * `lbsim collect`), which writes the SQLite trace store one transaction per completed step.
 * The agent and the collector may run on every CPU the job may use, whatever core mpiexec bound
 * the rank that starts them to: they do not take their time from that rank alone.
 *
 * Metrics: `time_ns` (the invariant TSC where the CPU has one, calibrated against
 * CLOCK_MONOTONIC, else CLOCK_MONOTONIC; LBSPROF_CLOCK=monotonic forces the latter; an element
 * entered several times in a step accumulates), `cycles` and `instructions` through PAPI when the
 * hardware allows (otherwise one warning on rank 0 and the metric is left out), custom probes
 * (begin/end callbacks, the end returning the element's value), values the application sets,
 * and time_ns.NAME for each phase of the step the application registers (lbsprof_phase).
 *
 * Error bound (opts.bound, in lbsim's one spelling): "rel:0.005" (the default: every stored
 * value within 0.5% of the measured one, signs and zeros kept, every sum of costs within the
 * same share), "abs:E", "range:E" (a fraction of each step's value range: outliers make it
 * loose) or "lossless". It is split between the node agent and the store, so that the stored
 * values meet it against the measured ones: rel:eps as sqrt(1 + eps) - 1 at each stage, abs and
 * range as halves. Each stage keeps the sum of every chunk it encodes.
 *
 * Run-time settings (as Charm++'s +LB switches): these environment variables override what the
 * program sets, and a bad value is an error naming the variable:
 *   LBSPROF_BOUND=rel:0.01        the error bound
 *   LBSPROF_CODEC=quant           auto (default), polyline, quant or lossless
 *   LBSPROF_SAMPLE_EVERY=10       profile steps 0, 10, 20, ...
 *   LBSPROF_COLLECTOR=unix:/path  a running `lbsim collect --listen ADDR` (else rank 0 starts one)
 *   LBSPROF_TOKEN_FILE=path       that collector's token file (required with a collector)
 *   LBSPROF_COLLECTOR_BIND=HOST   rank 0's collector listens on tcp:HOST:0 (default: a private
 *                                 unix socket on one node; on several, the address of rank 0's
 *                                 host that the other nodes are reached from)
 *   LBSPROF_METRICS=time_ns,cycles   the built-in probes
 *   LBSPROF_ON_FULL=drop          wait (default) or drop a sample when the ring is full
 *   LBSPROF_LOG=debug             what it says on stderr: error, warn (the library's default),
 *                                 info (its agents' and collector's default) or debug
 * and, for the runtime: LBSPROF_AGENT (the agent program), LBSPROF_CLOCK=monotonic,
 * LBSPROF_RETRY_S and LBSPROF_BUFFER_MB (see README.md).
 *
 * Security: every connection to a collector proves it holds the run's secret (32 random bytes
 * made by rank 0, or a stand-alone collector's token) before anything it sends is read; the
 * built-in collector's unix socket lies in a fresh directory of mode 0700 under $TMPDIR; the
 * shared-memory segment has a random name that is unlinked as soon as the node's ranks have
 * it open (in lbsprof_init). Missing, unreadable, world-readable or malformed token files and
 * collector addresses that do not resolve are errors of lbsprof_init.
 *
 * Faults: a dead agent makes the ranks warn once and stop sampling (the trace keeps the steps
 * completed before); a dead collector makes the agents retry with bounded buffering, then give
 * up with a message; the application always finishes. Functions return 0 or an lbs_err code
 * with lbsprof_errmsg() telling what and why. Not thread-safe: one thread per rank calls it. */
#ifndef LBSPROF_H
#define LBSPROF_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lbsprof lbsprof;

enum { LBSPROF_WAIT = 0, LBSPROF_DROP = 1 }; /* what a rank does when its ring is full */

typedef struct lbsprof_opts {
  const char
      *trace_path; /* the trace file rank 0's collector writes (required without collector) */
  const char
      *collector; /* address of a running collector ("unix:/path", "tcp:host:port"), or NULL */
  const char *
      metrics; /* built-in probes, comma-separated: "time_ns" (default), "cycles", "instructions" */
  int sample_every;  /* profile steps 0, k, 2k, ... (default 1) */
  const char *bound; /* "rel:0.005" (default), "abs:E", "range:E" or "lossless" */
  const char *codec; /* "auto" (default: per chunk the smaller of polyline and quant),
                        "polyline", "quant" or "lossless" (implied by a lossless bound) */
  int on_full;       /* LBSPROF_WAIT (default) or LBSPROF_DROP */
  size_t ring_bytes; /* shared-memory ring per rank (default 8 MiB; raised to hold two steps) */
  const char
      *agent_path; /* the lbsprof-agent program (default: $LBSPROF_AGENT, else the installed one) */
  const char *token_file; /* with collector: the token file `lbsim collect` wrote (mode 0600) */
} lbsprof_opts;

void lbsprof_opts_default(lbsprof_opts *o);

/* Collective over comm. Applies the LBSPROF_* environment variables over o, checks the options
 * and sets up the built-in probes. */
int lbsprof_init(MPI_Comm comm, const lbsprof_opts *o, lbsprof **out);

/* Registers a custom probe before the mesh is described: begin(arg) runs at elem_begin, and
 * end(arg) at elem_end returns the element's value (summed over the step's visits). Returns
 * the metric id (>= 0) or a negative lbs_err. */
int lbsprof_probe_register(lbsprof *p, const char *name, const char *unit, void (*begin)(void *arg),
                           double (*end)(void *arg), void *arg);
/* A metric whose values the application sets with lbsprof_set_value (e.g. cell weights).
 * Before the mesh is described. Returns the metric id or a negative lbs_err. */
int lbsprof_value_metric(lbsprof *p, const char *name, const char *unit);

/* Describes this rank's elements; collective; starts the agents and the collector.
 * Box: a structured global mesh of global[0] x global[1] x global[2] cells, this rank owning
 * [lo, hi) in each dimension; local index i runs x fastest over the box. */
int lbsprof_mesh_box(lbsprof *p, const int64_t global[3], const int64_t lo[3], const int64_t hi[3]);
/* Elements by global id (0..E-1 over all ranks, each once), optionally with coordinates
 * (dim 1..3, n*dim doubles) and adjacency (local CSR xadj[n+1], adj = global ids, symmetric
 * over all ranks); local index i is gid[i]. */
int lbsprof_mesh_elements(lbsprof *p, int64_t n, const int64_t *gid, int dim, const double *coords,
                          const int64_t *xadj, const int64_t *adj);
/* As lbsprof_mesh_elements, with a weight per arc: adjw[k] weighs arc gid[i] -> adj[k] for k in
 * [xadj[i], xadj[i + 1]) (the adjacency's own order), finite and >= 0 (else an error on every
 * rank naming the arc). The trace's mesh stores them as its edge weights (directed: u -> v and
 * v -> u may weigh differently, though both arcs must be given), which the replay charges as
 * communication (x bytes_per_edge) and the partitioners see, instead of unit weights. Every rank
 * with elements gives weights, or none does. With the edge rule (lbsprof_meta "edge_weight")
 * they are the rule's static factor: the seed's N-body close flags. */
int lbsprof_mesh_weighted(lbsprof *p, int64_t n, const int64_t *gid, int dim, const double *coords,
                          const int64_t *xadj, const int64_t *adj, const double *adjw);

/* Records a key of the application in the trace, as meta key "app.KEY" (for example "name" =
 * "wave", "args" = its parameters: `lbsim validate` re-runs the application from them).
 * "bytes_per_elem" and "bytes_per_edge" also set the mesh's migration and halo bytes that the
 * replay charges. "edge_weight" also sets the trace's meta edge_weight, communication that
 * varies, in one of two ways (another value is refused):
 *   LBSPROF_EDGE_RULE, "flag*rwgt[target]" (lbs_traces.h's LBS_EDGE_RULE): the weight of arc
 *     u -> v at a step is its stored weight (lbsprof_mesh_weighted) x the value metric "rwgt" of
 *     v at that step, which the run must record (else the mesh's description fails);
 *   LBSPROF_EDGE_STEPS, "stored@step" (LBS_EDGE_STEPS): the application gives its arcs' weights
 *     at the steps it likes (lbsprof_edge_weights), which the trace stores per step, compactly
 *     (an array only at steps where some weight changed). The mesh must have arcs: a box has its
 *     own, elements give xadj and adj on every rank (else the mesh's description fails).
 * Collective in effect: every rank must give the same keys, before the mesh is described. Keys are
 * [A-Za-z0-9_.-]+, values printable without newlines; all of them together fit in 1000 bytes. */
int lbsprof_meta(lbsprof *p, const char *key, const char *value);
/* The edge rule (the same as lbs_traces.h's LBS_EDGE_RULE) and the value metric it reads. */
#define LBSPROF_EDGE_RULE "flag*rwgt[target]"
#define LBSPROF_EDGE_RULE_METRIC "rwgt"
/* Weights per step, given by the application (the same as lbs_traces.h's LBS_EDGE_STEPS). */
#define LBSPROF_EDGE_STEPS "stored@step"

/* With edge_weight = LBSPROF_EDGE_STEPS: the weights of this rank's elements' arcs at the current
 * step, given during the step (before lbsprof_step_end). xadj holds n + 1 offsets over the local
 * elements (xadj[0] = 0; local index i is gid[i] of the mesh's description or of the last
 * lbsprof_remap), and w[xadj[i] .. xadj[i + 1]) weigh element gid[i]'s arcs in the mesh's order
 * (the adj given for it; a box's cell: -x, +x, -y, +y, -z, +z, those inside the box). Not
 * collective; cheap, and nothing is done, when the step is not sampled. At a sampled step the
 * trace's arcs of this rank's elements weigh w from that step on (the collector places them by
 * the owners at the step); a rank that gives none at a step keeps its arcs' last weights (the
 * mesh's, lbsprof_mesh_weighted, or 1, before any). Called again in a step, it replaces the
 * step's weights. Errors (the step then records no weights of this rank): a run that did not
 * declare LBSPROF_EDGE_STEPS, before the mesh was described, xadj[0] != 0 or decreasing, an element
 * whose degree is not its degree in the mesh, a weight that is negative, NaN or infinite; the
 * message names the rank, the element (id and local index) and the arc. */
int lbsprof_edge_weights(lbsprof *p, const int64_t *xadj, const double *w);

/* Collective: after the application moved elements between ranks, this rank's elements by
 * global id (each of 0..E-1 on one rank over all); local index i is gid[i] from the next step on,
 * and the trace records which rank owns each element from that step (lbs_trace_owners_*). Call it
 * between lbsprof_step_end and the next step's first lbsprof_elem_begin, lbsprof_set_value or
 * lbsprof_edge_weights, at the same step on every rank; any step will do, sampled or not. An error
 * (before the mesh was described, in the middle of a step, a total that is not the mesh's, an id
 * out of range, an element on no rank or on several, n < 0) is returned on every rank with the same
 * message, and the layout stays as it was. The node's ring must hold a step of the largest rank's
 * new elements (opts.ring_bytes). */
int lbsprof_remap(lbsprof *p, int64_t n, const int64_t *gid);

/* Events: the application's own costs that are not per element, such as its partitioning and
 * migration wall time (LBSPROF_EVENT_PARTITION and LBSPROF_EVENT_MIGRATION below, the two the
 * replay knows). Register before the mesh is described;
 * collective in effect: every rank registers the same names in the same order, which the mesh's
 * description checks (an error on every rank naming the lists that differ). Names are 1-31 of
 * [A-Za-z0-9_.-], each once, at most 7 (the trace holds 8: the last is outside_s), not
 * outside_s. Returns the event id (0, 1, ...) or a negative lbs_err. */
int lbsprof_event_register(lbsprof *p, const char *name);
/* The two names the replay knows (the same as lbs_traces.h's LBS_EVENT_PARTITION and
 * LBS_EVENT_MIGRATION): the application's partitioning and its migration, in seconds. */
#define LBSPROF_EVENT_PARTITION "partition_s"
#define LBSPROF_EVENT_MIGRATION "migration_s"
/* The event the profiler records itself, after the application's, wherever the run measures
 * time_ns (lbs_traces.h's LBS_EVENT_OUTSIDE): each rank's wall time of each sampled step outside
 * its measured elements, in seconds. A step runs from the start of the previous lbsprof_step_end
 * (the first step: from its first lbsprof_elem_begin) to the start of its own; outside_s is that,
 * less the elements' time_ns and the application's events added meanwhile (its partitioning
 * and migration). It is what the elements do not hold: halo packing and MPI calls, code between
 * element loops, the profiler's own work, and waiting for slower ranks at exchanges. The
 * replay charges it per step (docs/config.md, [sim] outside). Not the application's to add. */
#define LBSPROF_EVENT_OUTSIDE "outside_s"

/* Adds seconds (finite, >= 0) to this rank's event id at the current step. Not collective. The
 * values accumulate from one sampled step's end to the next sampled step's end, whose record
 * carries them: an event between unsampled steps lands in the next sampled step. The trace
 * stores each sampled step's ranks x events (lbs_trace_read_events; `lbsim trace info` shows
 * their totals). A bad id or value is an error, and nothing is added. */
int lbsprof_event_add(lbsprof *p, int id, double seconds);

/* Phases of a step: an application whose step is several updates with an exchange between them
 * (wave: H, then E) costs, per step, the slowest rank's first phase plus the slowest rank's
 * second, not the slowest rank's sum. Register each phase before the mesh is described;
 * collective in effect: every rank registers the same names in the same order, which the mesh's
 * description checks (an error on every rank naming the lists that differ). Names are 1-23 of
 * [A-Za-z0-9_.-] (the metric's name, "time_ns." NAME, is at most 31), each once, at most 8; the
 * run must measure time_ns (opts.metrics), else an error saying so. Each phase is a metric
 * time_ns.NAME (unit ns; it takes one of the 16 metrics) next to time_ns, and the trace's
 * metadata "phases.time_ns" lists them in registration order ("time_ns.H,time_ns.E"; see
 * lbs_traces.h, LBS_PHASES_META_PREFIX). Returns the phase id (0, 1, ...) or a negative lbs_err. */
int lbsprof_phase_register(lbsprof *p, const char *name);
/* Selects the phase that the following lbsprof_elem_end's times belong to (cheap, not collective;
 * any time, also before the mesh is described): elem_end adds an element's time to time_ns as
 * always and to the selected phase's time_ns.NAME. id -1 selects no phase: that time goes to
 * time_ns alone, and the phases' sum is then less than time_ns (wave selects a phase before each
 * of its update loops, so every element's time is in one). A bad id is refused (LBS_RANGE) and
 * selects no phase; returns 0 otherwise. */
int lbsprof_phase(lbsprof *p, int id);

/* The metric's id by name (built-in, probe or value), or -1. */
int lbsprof_metric_id(const lbsprof *p, const char *name);
/* Sets the value of a value metric for local element i at the current step. */
int lbsprof_set_value(lbsprof *p, int metric, int64_t i, double v);
/* Brackets the work of local element i. Cheap when the step is not sampled. */
void lbsprof_elem_begin(lbsprof *p, int64_t i);
void lbsprof_elem_end(lbsprof *p, int64_t i);
/* Ends the step: a sampled step's values go to the node agent. Not collective. */
int lbsprof_step_end(lbsprof *p);
/* 1 when the current step is sampled. */
int lbsprof_sampled(const lbsprof *p);
/* Collective. Sends what is left, waits for the agents and the collector (rank 0) to finish,
 * frees everything, clears *p. Returns non-zero when the trace could not be completed. */
int lbsprof_finalize(lbsprof **p);

/* The last error message of this thread. */
const char *lbsprof_errmsg(void);

#ifdef __cplusplus
}
#endif
#endif
