/* lbs_export.h - a replay written for other tools (study/): SimGrid SMPI time-independent
 * traces with their platform (export_simgrid.c), VTK XML files per step with a .pvd time
 * series for ParaView (export_vtk.c), and DARMA vt's LB data for vt-tv and LBAF (export_vt.c). A
 * session (lbs_study.h) gives the grid, the options and the trace; the replay is the session's, so
 * an export shows what lbsim replay computes. What `lbsim export simgrid|vtk|vt` runs; the command
 * checks and renames the output directory. */
#ifndef LBS_EXPORT_H
#define LBS_EXPORT_H

#include <stdint.h>

#include "lbs_study.h"

/* ---------------------------------------------------------------- SimGrid (export_simgrid.c)
 * The results store keeps per-step and per-processor compute times but not who sends how many
 * bytes to whom, so the export records the replay as it runs (lbs_replay_record):
 *   step s, processor p:  compute <its ns x its speed>, send <bytes> to each halo neighbour,
 *                         recv from each; bsp: barrier, sleep <barrier_us>
 *   repartition:          barrier, sleep <partitioning time>, the migration's sends and
 *                         receives, barrier
 * SMPI adds a 16-byte envelope to every message (smpi_request.cpp), so a message of B bytes is
 * written as B - envelope for the wire to carry lbsim's B. */
typedef struct lbs_simgrid lbs_simgrid;

/* A recorder for a replay of the session's grid in its mode (s->opts.mode); keep: this rank
 * keeps the actions and writes them (rank 0; the others replay along and keep nothing).
 * envelope: bytes taken off every message (>= 0). Local. LBS_RANGE "GRID: N processors: ..."
 * beyond 65536 processors where the platform needs a route per pair of them (several clusters
 * and a processor without a NIC), LBS_NOMEM. Free with lbs_simgrid_destroy. */
lbs_err lbs_simgrid_create(const lbs_session *s, double envelope, int keep, lbs_simgrid **out);
/* The hooks to give lbs_replay_record (valid while x lives). */
const lbs_replay_recorder *lbs_simgrid_recorder(lbs_simgrid *x);
/* Messages recorded so far (halos and migrations). */
int64_t lbs_simgrid_messages(const lbs_simgrid *x);
/* Writes the export of the replay r into dir, an existing directory (files new there): rank_N.txt
 * per processor, replay.txt, hostfile, platform.xml, README, run.sh (executable) and lbsim.json
 * (r as lbs_replay_json), once. Local, on the rank that kept the actions. LBS_IO "PATH: cannot
 * create: why" or "PATH: write failed: why" (what was written stays for the caller to remove),
 * LBS_NOMEM.
 */
lbs_err lbs_simgrid_write(lbs_simgrid *x, const char *dir, const lbs_replay_result *r);
void lbs_simgrid_destroy(lbs_simgrid **x); /* NULL-safe, clears *x */

/* ---------------------------------------------------------------- VTK (export_vtk.c)
 * One file per exported step with each element's replayed metric value (cost), owner processor,
 * whether it moved since the previous exported step, and its id; the step, application step and
 * simulated time as field data:
 *   structured mesh (nx x ny x nz cells)  step_NNNNNN.vti  ImageData, cells of unit size, the
 *                                         cell (i, j, k) centred at (i+0.5, j+0.5, k+0.5) as the
 *                                         trace's cell centres are; cell data in VTK's order
 *   unstructured mesh with coordinates    step_NNNNNN.vtu  UnstructuredGrid, one point per
 *                                         element at its coordinates (1-D and 2-D padded with
 *                                         zeros), one VTK_VERTEX cell per point: a trace keeps
 *                                         element centres and a graph, not cell shapes
 * and replay.pvd, the collection that makes them a time series. Every DataArray is ASCII, floats
 * with 17 significant digits, so a reader gets the trace's doubles back exactly. Memory: one
 * step's values, the cell order and the assignments. */
typedef struct lbs_vtk lbs_vtk;

/* Where the session's trace places its elements, checked before the replay: LBS_INVAL "TRACE: the
 * trace has no mesh ..." or "... has no coordinates (a graph alone) ...", LBS_RANGE for a
 * structured mesh wider than VTK's extents, LBS_CORRUPT for a bad cell index. Local. */
lbs_err lbs_vtk_create(lbs_session *s, lbs_vtk **out);
/* 1: ImageData files (.vti); 0: UnstructuredGrid (.vtu). */
int lbs_vtk_structured(const lbs_vtk *v);

typedef struct lbs_vtk_opts {
  int64_t every;            /* export every every-th replayed step (0, K, 2K, ... of the window) */
  int app_time;             /* the .pvd's timestep: 0 simulated seconds, 1 the application's step */
  lbs_progress_fn progress; /* told each replayed step written (may be NULL) */
  void *progress_arg;
} lbs_vtk_opts;
/* Writes the exported steps of r (a replay of the session's trace with save_assignment) and
 * replay.pvd into dir, an existing directory; *files gets the step files written. Local (rank 0).
 * LBS_IO naming the file, the trace's read errors, LBS_INVAL when r's metric is not in the trace or
 * its steps do not add up to its total. */
lbs_err lbs_vtk_write(lbs_vtk *v, const lbs_replay_result *r, const lbs_vtk_opts *o,
                      const char *dir, int64_t *files);
void lbs_vtk_destroy(lbs_vtk **v); /* NULL-safe, clears *v */

/* ---------------------------------------------------------------- DARMA vt (export_vt.c)
 * vt's "LBDatafile" JSON, one file per simulated processor (DIR/data.<proc>.json, the name vt
 * gives a rank's file), what `trace import --vt` reads back:
 *   metadata   type "LBDatafile", rank (the processor), phases.count (the replayed steps), and
 *              attributes saying what time and bytes are ("lbsim.time", "lbsim.bytes", ...)
 *   phases     one per replayed step, id = the trace step; tasks: the elements the processor
 *              holds at that step in the replay (after the repartitions before it)
 *   task       entity {type "object", seq_id = the element, home = its owner at the window's
 *              first step, migratable true, index = its cell (i, j, k) on a structured mesh or
 *              its coordinates when all are whole numbers, else none}, node = the processor,
 *              resource "cpu", time = the replayed metric's value at the step in seconds when
 *              its unit is a time (ns / 1e9; the shortest decimal that reads back as that
 *              double, so the import's round to the ns gives back a whole ns exactly), else the
 *              value itself (attributes say which)
 *   communications  per step, SendRecv from a task to a task, bytes = the arc's weight at the
 *              step (lbs_trace_edge_weights), messages 1; a pair whose two arcs weigh the same
 *              is one communication (the import gives both arcs a pair's bytes), arcs that
 *              differ one each; arcs of weight 0 none; in the file of the receiver's processor
 * Rank 0 only: each step is read once and streamed to every processor's file, so memory is one
 * step's values (and the graph), not the run's; at most 256 files are open at once, more
 * processors take one more pass over the steps per 256. */
typedef struct lbs_vtdata_opts {
  int brotli;               /* 1: brotli-compressed files (vt's own option); 0: plain JSON */
  lbs_progress_fn progress; /* told each step written (may be NULL; its return is ignored) */
  void *progress_arg;
} lbs_vtdata_opts;
typedef struct lbs_vtdata_summary {
  int64_t files, phases, tasks; /* files written, phases in each, tasks (elements) */
  int64_t nodes;                /* node elements (an imported vt run's): written as node ends */
  int64_t comms;                /* communications written, over every file and phase */
  int seconds;                  /* 1: time is in seconds; 0: the metric is not a time */
} lbs_vtdata_summary;
/* Writes the replay r of trace t (its own session's, with save_assignment) into dir, an
 * existing directory (files new there). Local (rank 0). LBS_IO naming the file (a failed
 * file is removed; the others stay for the caller to remove), the trace's read errors,
 * LBS_INVAL when r's metric is not in t or r kept no assignments, LBS_NOMEM. */
lbs_err lbs_vtdata_write(lbs_trace *t, const lbs_replay_result *r, const lbs_vtdata_opts *o,
                         const char *dir, lbs_vtdata_summary *sum);

#endif
