/* sim_int.h - the replay engine's state and its primitives (engine.c), shared by the replay's
 * main loop (replay.c), the offline optimum (optimal.c) and changing grids (avail.c).
 *
 * Data placement: rank r holds the chunk-aligned element range [first, first + n): their
 * work, coordinates, graph rows (neighbours by global id), current and new parts; of the
 * rest of the mesh only the ghosts, the remote neighbours of its elements, with their parts.
 * What every rank holds alike is O(P): clocks, loads, halo and migration transfers. So a
 * rank's memory is O(E/R + P + halo); only partition_mode rank0 gathers O(E) on rank 0.
 *
 * Contracts: "collective" functions are called by every rank of x->comm in the same order,
 * and return the same error everywhere (lbs__agree); "local" ones touch this rank's data only. */
#ifndef LBS_SIM_INT_H
#define LBS_SIM_INT_H

#include "lbs_part.h"
#include "lbs_policy.h"
#include "lbs_sim.h"

#define FIX 4096.0 /* fixed-point units per work unit: per-processor sums are exact integers */

typedef lbs_transfer xfer; /* p, q, bytes; ready and arrival set for each batch */

/* The ghosts of this rank: the remote neighbours of its elements, and how their values travel. */
typedef struct lbs__ghosts {
  int64_t ng;           /* ghosts, sorted by global id (so grouped by owner rank) */
  int64_t *id;          /* ng global ids */
  int *rcount, *rdispl; /* per rank: how many of the ghosts it owns, and where */
  int *scount, *sdispl; /* per rank: how many of this rank's elements it wants */
  int *sidx;            /* the local indices sent, grouped by destination rank */
  int64_t ns;           /* sum of scount */
} lbs__ghosts;

typedef struct lbs__engine {
  /* inputs */
  lbs_trace *t;
  const lbs_grid *g;
  const lbs_replay_opts *o;
  MPI_Comm comm;
  int rank, size, metric, P, C;
  int pmetric; /* the partitioner's weights: a metric, or -1 for the work itself */
  /* the phases of a step (the trace's metadata phases.M, setup.c): nph metrics phm[k] whose sum
   * is the replayed metric, in the order the application runs them; 0 (none) without them or with
   * [sim] phases = no */
  int nph, *phm;
  /* [sim] phase_constraints: the partitioner's weights are the nph phases (ncon = nph), else 0 */
  int ncon;
  int64_t E, S, S0;              /* elements; S steps from trace step S0 */
  int64_t first, n, *rank_first; /* this rank's elements [first, first + n); size + 1 offsets */
  /* this rank's rows of the mesh, as far as they are needed */
  lbs_mesh *mesh;
  lbs_mesh_rows
      rows; /* coords (n*dim) when the partitioner reads them, CSR rows when there is a graph */
  const double *adjw; /* the halo's arc weights: rows.adjw, adjw_step, or NULL for all 1 */
  double *adjw_step;  /* varying weights (N-body rule): those of trace step edge_step, else NULL */
  double *ones;       /* unit arc weights for a graph partitioner when rows.adjw is NULL */
  int64_t edge_step;  /* the trace step adjw_step holds, -1 none */
  /* weights stored per step (edge_weight = stored@step): this rank's first arc in the mesh
   * graph's order, and the step whose array the halo was last built with (-1: the mesh's) */
  int64_t arc0, edge_from;
  double bytes_elem, bytes_edge;
  lbs__ghosts gh;
  int *gpart;               /* gh.ng: the current part of each ghost */
  lbs_partitioner *part;    /* NULL when the policy's partitions are recorded ones */
  lbs_partition_mode pmode; /* rank0 or distributed: the one that runs */
  lbs_policy *policy;
  int recorded;        /* the policy's partitions are the trace's recorded ones (recorded.c) */
  int64_t *rec_idx;    /* recorded: S, the recorded assignment in force at each window step */
  int ev_part, ev_mig; /* recorded (ev_mig: also the rate's fit): the trace's events partition_s
                          and migration_s, -1 none */
  /* the application's migration rate (lbs__migration_rate_setup), charged in place of the
   * grid's model: mig_fit 0 none, 1 the ratio of sums, 2 least squares, from mig_points points */
  int mig_fit, mig_points;
  double mig_fixed_us, mig_per_elem_ns;
  int ev_out;         /* the trace's event outside_s where it is charged, else -1 */
  int64_t outside_ns; /* what the step being run adds after its compute and communication */
  double *sizes;      /* P part sizes (lbs_replay_part_sizes) */
  /* Pinned elements (lbs_trace_pinned: a vt task that is not migratable) never move: pinned (n,
   * NULL when the trace has none or the policy replays recorded partitions) and, with recorded
   * owners, their processor from the window's first assignment. absent_idle: the trace says an
   * element with no work is absent then (LBS_META_ABSENT), so it stays where it is. fixnow (n):
   * what lbs__part_input gives the partitioner as lbs_part_input.fixed. */
  unsigned char *pinned, *fixnow;
  int64_t npinned;
  int absent_idle;
  /* state */
  int *cur, *newp;   /* n: local current / new parts */
  int64_t *gid;      /* n: local global ids */
  double *w, *wprev; /* n: local work of the current and the previous step */
  double *wpart;     /* n: the partition metric's values (pmetric >= 0), else NULL */
  double *wcon;    /* n x ncon, element-major: the phases as the partitioner's weights, else NULL */
  double *wnav;    /* n: scratch for step navigation, allocated on first use */
  int64_t *fixnav; /* P: scratch for step navigation */
  int64_t *fix;    /* P: fixed-point sums */
  int64_t *load;   /* P: compute ns of the current step */
  double *wph;     /* nph x n: local values of each phase metric at the current step */
  int64_t *phload; /* nph x P: compute ns of each phase of the current step */
  xfer *halo;      /* halo transfers, sorted by (p, q) */
  int nhalo;
  int64_t *clock; /* P processor clocks (ns) */
  /* P: 1 for a processor whose work has left its speed model's measured range (warned once) */
  unsigned char *range_said;
  int64_t *arrive;      /* P: latest arrival into each processor this step */
  lbs_net *net;         /* the links and NICs, with what earlier batches left on them */
  struct lbs__ovl *ovl; /* des_overlap = shared: the simulation across steps (overlap.c), or NULL */
  const lbs_replay_recorder *rec; /* may be NULL */
  lbs_replay_result *r;
  /* the offline optimum (optimal.c) */
  int opt_done;       /* 1 once computed */
  int64_t *opt_steps; /* the plan: repartition steps */
  int opt_n;
  int *opt_assign;   /* S x n: this rank's part of A_r, the partition before step r */
  int64_t opt_total; /* the total time the plan gives, as the optimiser computed it */
  int64_t cur_step;  /* the step a repartition happens before */
  double
      own_imb; /* the last partition's work imbalance against the shares its partitioner aimed at */
  /* a changing grid (avail.c): the live copy g points to when the grid has availability
   * profiles, else NULL */
  lbs_grid *live;
  lbs_grid *live_nav; /* the grid as it is at a step the policy navigates to, or NULL */
  /* the decision under way (base.c): its window step, and once the ranks went apart in it (some
   * navigating, the others decided), how many navigate: 0 while they go together */
  int64_t deciding;
  int split_nav;
} lbs__engine;

/* ---------------------------------------------------------------- base.c (the leaves) */

/* Collective: every rank returns the first failing rank's code and message (lbs_mpi_agree over
 * x->comm). */
lbs_err lbs__agree(lbs__engine *x, lbs_err e);
/* A decision is collective in steps: every rank runs the policy on the same view, but a script
 * may still go its own way on a rank (the order of pairs(), the clock), and ranks that went on
 * apart would wait for ever in different collectives. So each collective step of a decision
 * (x->deciding: its window step) first says what it is, and the ranks check that they all take
 * the same one; once they do not, every rank fails with the same LBS_INVAL naming the step, and
 * the later steps of that decision fail at once, with no collective.
 * Collective: the first step of view->eval_step (navigating). */
lbs_err lbs__decide_nav(lbs__engine *x);
/* Collective: the end of the decision, with the policy's result e and decision *rep (0 or not):
 * e agreed (lbs__agree), then *rep the same on every rank, or LBS_INVAL naming the step and how
 * many ranks would repartition. */
lbs_err lbs__decide_done(lbs__engine *x, lbs_err e, int *rep);
/* Local: 1 when the run's policy plans the whole run ahead (LBS_POLICY_PLANS_AHEAD): it alone is
 * offered the optimum, and the grid must not change nor the partitioner use the current
 * assignment. 0 before the policy is created. */
int lbs__plans_ahead(const lbs__engine *x);
/* Local: (Lmax - Lavg) / Lmax and Lmax / Lavg. */
void lbs__imbalance(const int64_t *load, int P, double *imb, double *limb);

/* ---------------------------------------------------------------- engine.c */

/* Collective: checks the options against the trace and grid, places the elements, reads this
 * rank's mesh rows, sets up the ghosts, the partitioner (and its mode), the policy and the
 * state arrays; refuses, before any work, a run its mode's memory cannot hold. */
lbs_err lbs__engine_setup(lbs__engine *x);
void lbs__engine_free(lbs__engine *x); /* local */
/* Collective: this rank's work values of trace step s into w, checked. */
lbs_err lbs__read_work(lbs__engine *x, int64_t s, double *w);
/* Collective: the partitioner's weights at trace step s: the work itself (already read) or the
 * partition metric's values read into x->wpart; with phase constraints (x->ncon) also each
 * phase's values at s into x->wcon, which lbs__part_input hands on. */
lbs_err lbs__part_weights(lbs__engine *x, int64_t s, const double *work, const double **out);
/* Collective: this rank's values of each phase metric at trace step s into wph (nph x n),
 * checked as the work is; nothing without phases. */
lbs_err lbs__read_phases(lbs__engine *x, int64_t s, double *wph);
/* Collective: x->load, the compute time of each processor, from x->w under x->cur; with phases,
 * x->phload too, from x->wph. s: the window step they are (-1: a what-if, not the run's step):
 * rank 0 then warns, once per processor, of work outside the range its speed model measured. */
void lbs__compute_loads(lbs__engine *x, int64_t s);
/* Local: the one place a step's compute is charged. Processor p starts at start[p] (NULL: all
 * at 0) and computes load[p]; with phases (x->nph > 0) it computes them in order, phase k
 * taking phload[k*P + p], and every phase but the last ends when the slowest processor ends it
 * (the exchange between phases synchronises them), so the step's compute is the sum over phases
 * of the slowest processor's time in that phase. When each processor is done into done[p] (done
 * may be NULL); returns the latest. */
int64_t lbs__compute_done(const lbs__engine *x, const int64_t *start, const int64_t *load,
                          const int64_t *phload, int64_t *done);
/* Collective: the same for work w into load (fixed-point scratch fix, P), on grid g. */
void lbs__loads_of(lbs__engine *x, const double *w, const lbs_grid *g, int64_t *fix, int64_t *load);
/* Collective: (p*P + q, fixed-point amount) pairs of every rank summed into sorted transfers
 * of unit_bytes per unit; *out allocated. kv is scratch. */
lbs_err lbs__merge_pairs(lbs__engine *x, int64_t *kv, int64_t nkv, double unit_bytes, xfer **out,
                         int *nout);
/* Collective: the ghosts of this rank's graph rows (none without them), and who sends what. */
lbs_err lbs__ghost_setup(lbs__engine *x);
/* Collective: the ghosts' values of a local array (n items of type t, size bytes each) into
 * ghost (gh.ng items). */
lbs_err lbs__ghost_exchange(lbs__engine *x, const void *local, void *ghost, MPI_Datatype t,
                            size_t size);
/* Collective: the halo transfers under parts cur (local) and gpart (ghosts). */
lbs_err lbs__build_halo_of(lbs__engine *x, const int *cur, const int *gpart, xfer **halo,
                           int *nhalo);
/* Collective: x->halo under x->cur and x->gpart. */
lbs_err lbs__build_halo(lbs__engine *x);
/* Local: serves xs over x->net, each ready at ready[its sender]; arrivals are maxed into
 * x->arrive. *latest: in, the time to start from; out, the latest arrival. */
lbs_err lbs__run_transfers(lbs__engine *x, xfer *xs, int nx, const int64_t *ready, int64_t *latest);
/* Local: one step from the current clocks (loads and halo given); how far the makespan moved. */
lbs_err lbs__run_step(lbs__engine *x, int64_t *advance);
/* Local: the modelled partitioning time: fixed + per element x elements. */
int64_t lbs__model_partition_ns(const lbs__engine *x);
/* Collective: the migration model for the elements that move from place `from` to place `to`
 * (local, x->n each; from < 0: no place yet, does not move), the slowest processor's cost in
 * *ns: the application's own rate where setup fitted one (x->mig_fit), else the grid's model
 * (lbs_grid_migration_model) unless [sim] migration_cost = links; -1 there when there is
 * neither (the links carry it). */
lbs_err lbs__model_migration_ns(lbs__engine *x, const int *from, const int *to, int64_t *ns);
/* Collective: x->adjw becomes the communication weights of trace step s (a no-op when they do
 * not vary); 1 in *changed when they were reloaded. */
lbs_err lbs__edge_weights_at(lbs__engine *x, int64_t s, int *changed);
/* Local: the partitioner's input for weights w: the elements that stay where they are (pinned,
 * or absent with zero weight) marked fixed, from the second partition on (or from the first, for
 * pinned elements placed by the recorded owners). */
lbs_part_input lbs__part_input(lbs__engine *x, const double *w, int approach);
/* Collective: partition with weights w (local), then migrate: updates the parts, the ghosts'
 * parts, the clocks and the halo; rec gets what it cost. step: the window step it happens
 * before (-1: the initial partition, not recorded). */
lbs_err lbs__repartition(lbs__engine *x, const double *w, int approach, int64_t step,
                         lbs_repart_rec *rec);
/* Collective: the whole assignment (E parts, global order) on every rank: for save_assignment. */
lbs_err lbs__gather_assignment(lbs__engine *x, int *out);

/* ---------------------------------------------------------------- optimal.c */

/* Collective: the offline optimal plan (computed once, then cached in x). */
lbs_err lbs__optimize(void *nav, int64_t maxcand, const int64_t **steps, int *nsteps);

/* ---------------------------------------------------------------- recorded.c
 * The application's own assignments (a policy whose flags say LBS_POLICY_RECORDED).
 * Setup (collective): the assignment in force at each window step into x->rec_idx; refuses a
 * trace without recorded owners and a grid with fewer processors than the ranks they name. */
lbs_err lbs__recorded_setup(lbs__engine *x);
/* Local: 1 when the recorded assignment changes before window step s. */
int lbs__recorded_due(const lbs__engine *x, int64_t s);
/* Collective: this rank's elements' parts under the assignment in force at window step s. */
lbs_err lbs__recorded_assign(lbs__engine *x, int64_t s, int *part);
/* Collective: what the application recorded of the repartition before window step s, at trace
 * step S0 + s (its events partition_s and migration_s): its partitioning and migration time, ns,
 * each the largest over the application's ranks, or -1 where the trace has no such event there.
 * Rank 0 reads them, the others get its answer. */
lbs_err lbs__recorded_costs(lbs__engine *x, int64_t s, int64_t *part_ns, int64_t *mig_ns);
/* Setup (collective), for a policy other than recorded under [sim] migration_cost = measured:
 * the application's own migration rate, fitted to the migrations the trace recorded (the event
 * migration_s where its recorded owners change) into x->mig_*; mig_fit 0 (none) for a trace
 * without them, and for the recorded policy, whose own migrations are charged as recorded. */
lbs_err lbs__migration_rate_setup(lbs__engine *x);
/* Local: x->ev_out, the trace's event outside_s when the replay charges it ([sim] outside = yes,
 * cost measured or the recorded policy), else -1. */
void lbs__outside_setup(lbs__engine *x);
/* Collective: what window step s adds for the time the application spent outside its measured
 * elements (ns, 0 where the trace has no events there), from outside_s at trace step S0 + s and,
 * recorded, the step's loads (x->load, x->phload: current): the mean over the ranks of their
 * wall time less the step's compute, else the least outside_s (recorded.c says why). Rank 0
 * computes it, the others get its answer. */
lbs_err lbs__outside_at(lbs__engine *x, int64_t s, int64_t *ns);

/* ---------------------------------------------------------------- avail.c
 * Availability profiles. Setup (collective): checks the profiles' steps against the trace's
 * total_steps, refuses what cannot follow them (a recorder, a policy that plans ahead), and makes
 * x->g a live grid at the window's first step; nothing without profiles. */
lbs_err lbs__avail_setup(lbs__engine *x, int64_t total_steps);
/* Local: before window step s, applies the profiles due (speeds, links, part sizes); *forced is
 * 1 when a processor failed then, so that the engine repartitions before the step. */
lbs_err lbs__avail_step(lbs__engine *x, int64_t s, int *forced);
/* Collective: after a partitioner's answer in x->newp, the elements it left on failed
 * processors dealt out over the live ones (nothing without failures). */
void lbs__avail_place(lbs__engine *x);
/* Local: the grid as it is at window step s, for step navigation (x->g without profiles). */
const lbs_grid *lbs__avail_grid_at(lbs__engine *x, int64_t s);
/* Local: lbs__imbalance over the processors of g that have not failed. */
void lbs__avail_imbalance(const lbs_grid *g, const int64_t *load, int P, double *imb, double *limb);

/* ---------------------------------------------------------------- overlap.c
 * des with [sim] des_overlap = shared or auto: the halos of overlapping steps share the network. */
typedef struct lbs__ovl lbs__ovl;
/* Local: 1 when this run's steps go through overlap.c: des, des_overlap shared or auto, [grid]
 * sharing = fair, and none of what needs a step final before the next starts: two or more phases
 * (their exchanges synchronise the processors), a changing grid, a policy that plans ahead (its
 * plan's total is the one lbs__run_step gives). */
int lbs__ovl_on(const lbs__engine *x);
/* Local: window step s joins (x->load, x->halo and x->outside_ns as lbs__run_step takes them),
 * then the simulation runs until a processor is through it. *adv and x->r->step_ns of every step
 * in flight: their times as if s were the last before a barrier; a step's final time replaces
 * that once every processor is through it. */
lbs_err lbs__ovl_step(lbs__engine *x, int64_t s, int64_t *adv);
/* Local: every step in flight run to its end, as before a barrier (a repartition, the run's end):
 * their final times into x->r->step_ns, the clocks into x->clock; then nothing is in flight. */
lbs_err lbs__ovl_drain(lbs__engine *x);
void lbs__ovl_free(lbs__engine *x); /* local, NULL-safe */

#endif
