/* sim_int.h - the replay engine's state, shared by replay.c and optimal.c. */
#ifndef LBS_SIM_INT_H
#define LBS_SIM_INT_H

#include "lbs_part.h"
#include "lbs_policy.h"
#include "lbs_sim.h"

#define FIX 4096.0 /* fixed-point units per work unit */

typedef lbs_transfer xfer; /* p, q, bytes; ready and arrival set for each batch */

typedef struct {
  /* inputs */
  lbs_trace *t;
  const lbs_grid *g;
  const lbs_replay_opts *o;
  MPI_Comm comm;
  int rank, size, metric, P, C;
  int pmetric;           /* the partitioner's weights: a metric, or -1 for the work itself */
  double *wpart;         /* n: scratch for those weights (pmetric >= 0) */
  int64_t E, S, S0, first, n, *rank_first; /* S steps from trace step S0 */
  lbs_mesh *mesh;
  int dim;
  const double *coords;
  const int64_t *xadj, *adj;
  const double *adjw;    /* CWgt per arc: the mesh's, or adjw_step's */
  double *adjw_step;     /* the weights at step edge_step when they vary (N-body rule), else NULL */
  int64_t edge_step;     /* the trace step adjw_step holds, -1 none */
  double bytes_elem, bytes_edge;
  lbs_partitioner *part;
  lbs_policy *policy;
  double *sizes; /* P part sizes */
  /* state */
  int *assign;          /* E: whole assignment */
  int *cur, *newp;      /* n: local current / new parts */
  int64_t *gid;         /* n: local global ids */
  int64_t *lxadj;       /* n+1: local CSR offsets */
  double *w, *wprev;    /* n: local work of the current and the previous step */
  double *wnav;         /* n: scratch for step navigation */
  int64_t *fixnav;      /* P: scratch for step navigation */
  int64_t *fix;         /* P: fixed-point sums */
  int64_t *load;        /* P: compute ns of the current step */
  xfer *halo;           /* halo transfers, sorted by (p, q) */
  int nhalo;
  int64_t *clock;       /* P processor clocks (ns) */
  int64_t *arrive;      /* P: latest arrival into each processor this step */
  lbs_net *net;         /* the links and NICs, with what earlier batches left on them */
  const lbs_replay_recorder *rec; /* may be NULL */
  lbs_replay_result *r;
  /* the offline optimum (optimal.c) */
  int opt_done;          /* 1 once computed */
  int64_t *opt_steps;    /* the plan: repartition steps */
  int opt_n;
  int *opt_assign;       /* S x E cached partitions, A_r for a repartition before step r */
  int64_t opt_total;     /* the total time the plan gives, as the optimiser computed it */
  int64_t cur_step;      /* the step a repartition happens before */
  double own_imb;        /* the last partition's work imbalance against the shares its partitioner aimed at */
  /* a changing grid (avail.c): the live copy g points to when the grid has availability
   * profiles, else NULL */
  lbs_grid *live;
  lbs_grid *live_nav;    /* the grid as it is at a step the policy navigates to, or NULL */
} eng;

/* Makes x->adjw the communication weights of trace step s (a no-op when they do not vary):
 * collective through lbs__agree. 1 in *changed when they were reloaded. */
lbs_err lbs__edge_weights_at(eng *x, int64_t s, int *changed);


lbs_err lbs__agree(eng *x, lbs_err e);
lbs_err lbs__read_work(eng *x, int64_t s, double *w);
/* The partitioner's weights at trace step s: work itself (the work of step s, already read)
 * or the partition metric's values read into x->wpart. Collective. */
lbs_err lbs__part_weights(eng *x, int64_t s, const double *work, const double **out);
void lbs__compute_loads(eng *x);
void lbs__imbalance(const int64_t *load, int P, double *imb, double *limb);
lbs_err lbs__merge_pairs(eng *x, int64_t *kv, int64_t nkv, double unit_bytes, xfer **out, int *nout);
lbs_err lbs__build_halo(eng *x);
/* Serves xs over x->net, each ready at ready[its sender]; arrivals are maxed into x->arrive.
 * *latest: in, the time to start from; out, the latest arrival (or the input when later). */
lbs_err lbs__run_transfers(eng *x, xfer *xs, int nx, const int64_t *ready, int64_t *latest);
lbs_err lbs__run_step(eng *x, int64_t *advance);
int64_t lbs__model_partition_ns(const eng *x);
lbs_err lbs__optimize(void *nav, int64_t maxcand, const int64_t **steps, int *nsteps);

/* Availability profiles (avail.c). Setup: checks the profiles' steps against the trace's
 * total_steps, refuses what cannot follow them (a recorder, the optimal policy), and makes
 * x->g a live grid at the window's first step; nothing without profiles. */
lbs_err lbs__avail_setup(eng *x, int64_t total_steps);
/* Before window step s: applies the profiles due (speeds, links, part sizes); *forced is 1
 * when a processor failed then, so that the engine repartitions before the step. */
lbs_err lbs__avail_step(eng *x, int64_t s, int *forced);
/* After a partitioner's answer in x->newp: the elements it left on failed processors dealt
 * out over the live ones (collective; nothing without failures). */
void lbs__avail_place(eng *x);
/* The grid as it is at window step s, for step navigation: the policies look ahead at the
 * grid's changes as at the trace's (x->g without profiles). */
const lbs_grid *lbs__avail_grid_at(eng *x, int64_t s);
/* lbs__imbalance over the processors of g that have not failed (all of them: the same). */
void lbs__avail_imbalance(const lbs_grid *g, const int64_t *load, int P, double *imb, double *limb);

#endif
