/* lbs_minex.h - MinEX (seed 003): a latency-tolerant partitioner that minimises the projected
 * run time on a heterogeneous grid instead of balancing work and cutting few edges.
 *
 * The model (seed 003, slide 8). A vertex v of the partitioning graph has a processing
 * weight PWgt_v, a relocation weight RWgt_v, and directed edges with communication weights
 * CWgt(v,w) >= 0 (zero allowed). The configuration graph gives each processor p a processing
 * slowdown Proc_p (ns per unit of PWgt) and each pair of clusters (c,d) a communication
 * slowdown Connect(c,d) (ns per unit of CWgt) and a relocation slowdown (ns per unit of
 * RWgt). With v on processor p of cluster c:
 *   Wgt_v^p   = PWgt_v x Proc_p
 *   Comm_v^p  = sum over edges (v,w) with w on q != p of CWgt(v,w) x Connect(c, cluster(q))
 *   Remap_v^p = RWgt_v x Relocate(c, cluster(r)) when v's current processor r != p, else 0
 *   QWgt(p)   = latency(sum Wgt, sum Comm, sum Remap, QLen) over the vertices on p; the default
 *               latency function adds the three (no latency tolerance)
 *   MaxQWgt = max QWgt(p), QWgtToT = sum QWgt(p), WSysLL = QWgtToT / P,
 *   LoadImb = MaxQWgt / WSysLL, Var = sum (QWgt(p) - WSysLL)^2.
 * MaxQWgt is the projected run time of one step, in ns.
 *
 * The algorithm (slides 7, 9, 14-16): contract edges by best Gain (a min-heap), only between
 * vertices on the same current processor (vertices bucket-sorted by processor), down to a
 * few vertices per processor; partition the contracted graph (diffusive: keep the current
 * processors; from scratch: recursive bisection by graph growing, with shares proportional
 * to speed and clusters kept together); then refine level by level back to the input graph,
 * moving vertices from overloaded processors (QWgt > WSysLL) to underloaded ones, keeping
 * processors sorted by QWgt, and accepting only moves that pass the reassignment filter
 * (lbs_minex_filter) and do not raise MaxQWgt. At each level, boundary vertices also move to
 * a neighbouring processor when that lowers QWgtToT without raising MaxQWgt or pushing the
 * target past (1 + slack) WSysLL (lbsim's addition: the seed's moves only balance, and without
 * these the contracted graph's coarse boundaries stay). Deterministic. Serial. */
#ifndef LBS_MINEX_H
#define LBS_MINEX_H

#include <stdint.h>

#include "lbs_core.h"

struct lbs_grid;
struct lbs_config;
struct lbs_minex_opts;

/* The partitioning graph: directed CSR (edge v->w carries CWgt(v,w); w->v may be absent or
 * carry another weight). Borrowed. */
typedef struct lbs_minex_graph {
  int64_t n;           /* vertices, >= nparts */
  const int64_t *xadj; /* n+1 offsets */
  const int64_t *adj;  /* xadj[n] targets in [0, n), no self loops */
  const double *cwgt;  /* CWgt per edge, >= 0; NULL: 1 each */
  const double *pwgt;  /* PWgt per vertex, >= 0 */
  const double *rwgt;  /* RWgt per vertex, >= 0; NULL: 1 each */
  const int *current;  /* current processor of each vertex, or NULL (nothing to move) */
} lbs_minex_graph;

/* The configuration graph (slide 16's Ipg). Borrowed. */
typedef struct lbs_minex_ipg {
  int P;                  /* processors */
  int C;                  /* clusters */
  const int *cluster;     /* P: cluster of each processor, in [0, C) */
  const double *proc;     /* P: Proc_p, ns per unit of PWgt, > 0 */
  const double *connect;  /* C*C: Connect(c,d), ns per unit of CWgt, >= 0 */
  const double *relocate; /* C*C: ns per unit of RWgt moved from d to c; NULL: connect */
} lbs_minex_ipg;

/* One processor's totals (slide 16's Qtot). */
typedef struct lbs_minex_tot {
  int p;        /* the processor */
  double pproc; /* sum of Wgt */
  double comm;  /* sum of Comm */
  double remap; /* sum of Remap */
  int64_t qlen; /* vertices of the input graph on p */
} lbs_minex_tot;

/* The user's latency-tolerance function (slide 16: MinEX(User, Ipg, Qtot)): the projected
 * QWgt(p) of a processor with these totals. Called before every potential reassignment for
 * each processor it changes. Must not decrease when a total grows. */
typedef double (*lbs_minex_latency_fn)(void *user, const lbs_minex_ipg *ipg,
                                       const lbs_minex_tot *tot);

/* The default: no tolerance, QWgt = pproc + comm + remap. */
double lbs_minex_latency_none(void *user, const lbs_minex_ipg *ipg, const lbs_minex_tot *tot);
/* Overlap: a fraction f (user points at a double in [0, 1]) of the processing time hides
 * communication: QWgt = pproc + max(0, comm + remap - f x pproc). */
double lbs_minex_latency_overlap(void *user, const lbs_minex_ipg *ipg, const lbs_minex_tot *tot);

/* What a latency function is (lbs_minex_latency_ops.flags), asked instead of its name. */
enum {
  /* Its argument starts with a script's path ("lua:FILE.lua[:ARGS]"): a relative path in a grid
   * file is taken from that file's directory (lbs_minex_latency_create), and its example's from
   * lbsim's source tree, where the contract test finds it. */
  LBS_MINEX_LATENCY_SCRIPT = 1u << 0,
};

/* A latency-tolerance function by name, for `[minex] latency = NAME[:ARGS]`: the built-in
 * none, overlap:F and lua:FILE.lua[:ARGS] (partitioners/latency.c), and those plug-ins add
 * (lbsim_plugin.h). Called on rank 0 only (MinEX is serial). */
typedef struct lbs_minex_latency_ops {
  int abi;             /* LBS_MINEX_LATENCY_ABI */
  const char *name;    /* "overlap" */
  const char *usage;   /* "overlap:F (0 <= F <= 1)" */
  const char *example; /* a spec the contract tests run ("overlap:0.5"; NULL: none) */
  /* Parses the arguments after "name:" (NULL when none) into the user state latency gets. */
  lbs_err (*create)(void **user, const char *args);
  lbs_minex_latency_fn latency; /* QWgt: finite */
  /* Optional: called with the configuration graph before each partitioning. */
  lbs_err (*begin)(void *user, const lbs_minex_ipg *ipg);
  /* Optional: why latency failed since begin (it then returned NaN), or NULL. */
  const char *(*failed)(void *user);
  void (*destroy)(void *user); /* NULL-safe */
  unsigned flags;              /* LBS_MINEX_LATENCY_* above; 0: none (ABI 2) */
} lbs_minex_latency_ops;
/* 2 since flags. lbs_plugin_load takes a plug-in's table built against 1 (the same layout up to
 * destroy) as a 2 with no flags. */
#define LBS_MINEX_LATENCY_ABI 2

/* Registers a latency function after the built-in ones (ops is borrowed, static). LBS_INVAL when
 * its ABI is not LBS_MINEX_LATENCY_ABI, it lacks create or latency, its name is taken, or the
 * registry is full. */
lbs_err lbs_minex_latency_register(const lbs_minex_latency_ops *ops);
/* The registered functions in registration order (built-in ones first); NULL out of range. */
int lbs_minex_latency_count(void);
const lbs_minex_latency_ops *lbs_minex_latency_at(int i);
/* The names with their arguments, for messages ("none, overlap:F, ..."). */
const char *lbs_minex_latency_known(void);

/* An instance: a spec's function with its user state. */
typedef struct lbs_minex_latency lbs_minex_latency;
/* From a spec "NAME[:ARGS]". A script's relative path (LBS_MINEX_LATENCY_SCRIPT) is taken from
 * where's directory when where is a "FILE:LINE" (a key in a file), else from the working
 * directory. */
lbs_err lbs_minex_latency_create(const char *spec, const char *where, lbs_minex_latency **out);
/* The one [minex] names: `latency`, or `latency_tolerance = f` as overlap:f (giving both is an
 * error); *out NULL for the default (none). */
lbs_err lbs_minex_latency_from_config(const struct lbs_config *cfg, lbs_minex_latency **out);
/* Sets opts' latency and user to it (NULL: leaves them). */
void lbs_minex_latency_apply(lbs_minex_latency *l, struct lbs_minex_opts *opts);
lbs_err lbs_minex_latency_begin(lbs_minex_latency *l, const lbs_minex_ipg *ipg); /* NULL: OK */
/* After MinEX failed: the function's own failure (LBS_INVAL with its message), else e. */
lbs_err lbs_minex_latency_why(lbs_minex_latency *l, lbs_err e);
const char *lbs_minex_latency_spec(const lbs_minex_latency *l);
void lbs_minex_latency_destroy(lbs_minex_latency **l); /* NULL-safe */

typedef struct lbs_minex_opts {
  int diffusive;   /* 1: start from graph->current; 0: from scratch */
  double throttle; /* ThroTTle (slide 9); moves with Gain > 0 need Gain^2/-DVar <= it */
  lbs_minex_latency_fn latency; /* NULL: lbs_minex_latency_none */
  void *user;                   /* passed to latency */
  int max_passes;               /* refinement passes per level (0: 16) */
  int coarse_per_proc;          /* stop contracting at this many vertices per processor (0: 8) */
  double slack;                 /* gain moves keep targets under (1 + slack) WSysLL (0.03) */
} lbs_minex_opts;

/* Defaults: from scratch, throttle 1, no latency tolerance. */
lbs_minex_opts lbs_minex_defaults(void);

/* Why the filter rejected a reassignment (slide 15), in the order it tests. */
typedef enum {
  LBS_MINEX_PASS = 0,
  LBS_MINEX_FROM_GROWS, /* newQWgt_from > QWgt_from */
  LBS_MINEX_TO_SHRINKS, /* newQWgt_to < QWgt_to */
  LBS_MINEX_VAR_GROWS,  /* DVar > 0 */
  LBS_MINEX_THROTTLE,   /* newGain > 0 and newGain^2 / -DVar > ThroTTle */
  LBS_MINEX_OVERSHOOT,  /* |Dnew| > |Dold| and the two processors swap past each other */
  LBS_MINEX_NREASONS
} lbs_minex_reason;

/* The reassignment filter of slide 15 for moving a vertex between processors with loads
 * qfrom, qto (now) and nqfrom, nqto (projected), the projected change of variance dvar and
 * of total load gain. Dold = qfrom - qto, Dnew = nqfrom - nqto. */
lbs_minex_reason lbs_minex_filter(double qfrom, double qto, double nqfrom, double nqto, double dvar,
                                  double gain, double throttle);

typedef struct lbs_minex_stats {
  int64_t considered;                   /* potential reassignments evaluated */
  int64_t rejected[LBS_MINEX_NREASONS]; /* by filter rule (index 0 unused) */
  int64_t passed;                       /* passed the filter */
  int64_t failed;                       /* passed, but would raise MaxQWgt (not made) */
  int64_t accepted;                     /* made */
  int64_t gain_moves;                   /* boundary moves that lowered QWgtToT (see minex.c) */
  int levels;                           /* graphs in the hierarchy, the input included */
  double level_before[32];         /* MaxQWgt at each level before refinement, coarsest first */
  double level_after[32];          /* and after it */
  double maxqwgt, wsysll, loadimb; /* of the result */
} lbs_minex_stats;

/* Partitions g onto ipg's processors: part[0..n). stats may be NULL. LBS_INVAL (message
 * names the vertex or edge) for self loops, negative or non-finite weights, targets out of
 * range, current processors out of range, more processors than vertices. */
lbs_err lbs_minex_partition(const lbs_minex_graph *g, const lbs_minex_ipg *ipg,
                            const lbs_minex_opts *opts, int *part, lbs_minex_stats *stats);

typedef struct lbs_minex_eval {
  double maxqwgt, wsysll, loadimb; /* slide 8 */
  double qwgttot;                  /* sum of QWgt */
  double wgt, comm, remap;         /* sums of Wgt, Comm and Remap over all processors */
  double edge_cut; /* CWgt of the edges between processors, each undirected edge once
                      (half the cut arcs' weight: see lbs_minex_evaluate) */
  int64_t moved;   /* vertices not on their current processor */
} lbs_minex_eval;

/* The metrics of any partition (e.g. METIS's) under the model; qwgt (P entries) may be
 * NULL. latency NULL: the default. Checks the input as lbs_minex_partition does. */
lbs_err lbs_minex_evaluate(const lbs_minex_graph *g, const lbs_minex_ipg *ipg,
                           lbs_minex_latency_fn latency, void *user, const int *part, double *qwgt,
                           lbs_minex_eval *out);

/* The configuration graph of a simulated grid: Proc_p = ns per unit of work on p,
 * Connect(c,d) = 8 x bytes_per_edge / bandwidth(c,d), Relocate(c,d) = 8 x bytes_per_rwgt /
 * bandwidth(c,d) (ns; link latencies are per message and not part of the per-unit model).
 * Allocates the arrays; free with lbs_minex_ipg_free. */
lbs_err lbs_minex_ipg_from_grid(const struct lbs_grid *grid, double bytes_per_edge,
                                double bytes_per_rwgt, lbs_minex_ipg *out);
void lbs_minex_ipg_free(lbs_minex_ipg *ipg);

#endif
