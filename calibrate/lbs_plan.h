/* lbs_plan.h - RACECAR: optimization planning across a node's devices (seed 004, chapter 5).
 *
 *   resources       a node's T CPU threads and D devices (OpenCL, CUDA); a working set is t
 *                   threads (1..T) and a subset of the devices; every implementation needs at
 *                   least one thread (a device is driven from a thread)
 *   graph           piecewise linear pieces over work metric x in [0, hi], each naming what
 *                   sources it; gaps allowed; IPGs, FPGs, (restricted) parallelization graphs
 *   FPG (5.3.2)     function performance graph of a working set: the lower envelope of the IPGs
 *                   of every implementation that fits in it, and of its parallelizing template
 *   RPG (5.3.3)     restricted parallelization graph of one split of a working set in two:
 *                   segment adding (Table 5-1) over every pair of the two sides' FPG pieces
 *   PG (5.3.4)      parallelization graph: the lower envelope of the RPGs of every split
 *   tables          the implementation table is the FPGs of every working set, the
 *                   parallelization table the PGs (what `lbsim calibrate show` prints)
 *   execution (5.4) a run of work W on a working set looks W up in its FPG: an implementation
 *                   runs; the template looks W up in the PG, splits the parameters, runs both
 *                   sides at once (each looked up again in its side's FPG) and combines.
 *
 * Times are seconds, work metrics the kernel's (elements, multiply-adds, ...). */
#ifndef LBS_PLAN_H
#define LBS_PLAN_H

#include <stdint.h>
#include <stdio.h>

#include "lbs_calib.h"

/* ---------------------------------------------------------------- graphs */

/* One piece: t goes linearly from t0 at x0 to t1 at x1 (x0 < x1). src says what sources it
 * (in an FPG an implementation's index, or LBS_PLAN_TMPL(ws) for the template run on working
 * set ws; in a PG a split's index); along a parallelization piece, side A's work goes linearly
 * from a0 to a1 (side B takes x - a). */
typedef struct lbs_piece {
  double x0, x1, t0, t1;
  double a0, a1;
  int src;
} lbs_piece;
#define LBS_PLAN_TMPL(ws) (-(ws)-1)
#define LBS_PLAN_TMPL_WS(src) (-(src)-1)

/* Pieces in ascending x, not overlapping (gaps allowed). */
typedef struct lbs_graph {
  int n, cap;
  lbs_piece *p;
} lbs_graph;
void lbs_graph_free(lbs_graph *g); /* leaves it empty */
/* The piece holding x: the first with x <= x1 (the last one past the end); NULL when empty
 * or x falls in a gap. */
const lbs_piece *lbs_graph_find(const lbs_graph *g, double x);
/* t at x on its piece (extrapolated past the last piece); NAN when none holds x. */
double lbs_graph_eval(const lbs_graph *g, double x);
/* Side A's work at x on its piece (a parallelization graph). */
double lbs_piece_a(const lbs_piece *p, double x);

/* An IPG as a graph on [0, hi]: constant below its first point; past its last one, its last
 * segment's slope when that rises, else the last point's seconds per unit of work (never
 * falling to negative times); all pieces with src. LBS_NOMEM, LBS_RANGE when it has no point. */
lbs_err lbs_graph_from_ipg(const lbs_ipg *g, double hi, int src, lbs_graph *out);

/* The lower envelope of n graphs (5.3.2: the segments and intersections tracing the lowest
 * time at every x, with their sources); a tie goes to the graph given first. Pieces of one
 * source that continue each other are joined. *out is replaced. */
lbs_err lbs_graph_envelope(const lbs_graph *gs, int n, lbs_graph *out);

/* Segment adding (5.3.3, Table 5-1): the sub parallelization graph of two segments, the
 * optimal split of x in [p.x0 + q.x0, p.x1 + q.x1] into a on p and x - a on q minimising
 * max(p(a), q(x - a)), traced by moving two pointers. Appends its pieces (src given, a = the
 * work on p) to out, clipped to x <= hi. */
lbs_err lbs_segment_add(const lbs_piece *p, const lbs_piece *q, double hi, int src, lbs_graph *out);

/* The restricted parallelization graph of two FPGs: segment adding over every pair of their
 * pieces, then their lower envelope. *out is replaced. */
lbs_err lbs_graph_rpg(const lbs_graph *fa, const lbs_graph *fb, double hi, int src, lbs_graph *out);

/* ---------------------------------------------------------------- parallelizing templates (5.2) */

/* How a kernel's invocation splits in two and combines (NULL when the kernel has none). Views
 * share the parameters' storage; a side with no work is not run. */
typedef struct lbs_template {
  const char *kernel;
  const char *kind; /* "merge": split, sort both, merge; "data": data parallel */
  size_t size;      /* bytes of a view (the kernel's lbs_k_* struct) */
  /* Views a and b (size bytes each, the caller's) of params: a takes the valid work nearest
   * w_a (0..the whole), b the rest. Returns a's work. */
  double (*split)(const void *params, double w_a, void *a, void *b);
  /* Puts the outputs of a and b into params (a merge, sums). LBS_NOMEM. */
  lbs_err (*combine)(void *params, const void *a, const void *b);
} lbs_template;
const lbs_template *lbs_template_find(const char *kernel);

/* ---------------------------------------------------------------- plans */

#define LBS_PLAN_MAX_DEV 4
#define LBS_PLAN_MAX_THREADS 64

/* An implementation in a plan: its IPG and the resources it needs. */
typedef struct lbs_plan_impl {
  char impl[64], device[160];
  int threads;      /* threads it runs on */
  unsigned devmask; /* devices it needs (bit d: devices[d]) */
  int64_t ipg_id;   /* its row in the calibration database (0: none) */
  lbs_ipg ipg;      /* owned */
} lbs_plan_impl;

/* A split of a working set in two (5.3.3's resource relation). */
typedef struct lbs_plan_split {
  int ws_a, ws_b;
} lbs_plan_split;

typedef struct lbs_plan {
  int64_t id; /* row in the database (0: not stored) */
  char kernel[32], created[32];
  int threads; /* T */
  int ndev;
  char devices[LBS_PLAN_MAX_DEV][160];
  double hi;                    /* planned work metrics: [0, hi] */
  char tmpl[16];                /* the template's kind ("" when none) */
  double ovh_s, ovh_per_work_s; /* a template's own time: split, threads, combine: s + per_work x */
  int nimpl;
  lbs_plan_impl *impl; /* owned */
  int nsplit;
  lbs_plan_split *split; /* owned: every split of every working set */
  int nws;               /* T << ndev working sets: ws = (t - 1) << ndev | devmask */
  lbs_graph *fpg, *pg;   /* nws each, owned (pg empty for a single thread) */
  double plan_s;         /* seconds the planning took */
} lbs_plan;

static inline int lbs_plan_ws(const lbs_plan *p, int threads, unsigned devmask) {
  return (threads - 1) << p->ndev | (int)devmask;
}
static inline int lbs_plan_ws_threads(const lbs_plan *p, int ws) { return (ws >> p->ndev) + 1; }
static inline unsigned lbs_plan_ws_devices(const lbs_plan *p, int ws) {
  return (unsigned)ws & ((1u << p->ndev) - 1);
}

void lbs_plan_free(lbs_plan *p); /* frees owned parts, leaves it zeroed */

/* RACECAR over p's implementations, threads, devices, hi and template overhead (filled by the
 * caller; p->impl[i].ipg owned by p): builds every working set's FPG and PG, smallest first
 * (the RACECAR loop of Figure 5-2), and sets plan_s. LBS_RANGE when an implementation needs
 * more than the node has; LBS_NOMEM. */
lbs_err lbs_plan_build(lbs_plan *p);

/* The working set's estimated time for work x (its FPG). */
double lbs_plan_time(const lbs_plan *p, int ws, double x);

/* The resources of a device string as calibration writes them: "threads:N: ..." -> N threads,
 * "opencl: ..." and "cuda: ..." -> a device (1 thread), anything else 1 thread. */
void lbs_plan_needs(const char *impl, const char *device, int *threads, int *is_device);

/* The tables as text: the implementation table (each working set's FPG: work range, time
 * range, implementation or template) and the parallelization table (each split: side A's
 * working set and work, side B's). */
void lbs_plan_print(const lbs_plan *p, FILE *f);
/* "2 threads + opencl0" */
const char *lbs_plan_ws_name(const lbs_plan *p, int ws, char *buf, size_t n);

/* ---------------------------------------------------------------- plans in the database */

/* Writes a built plan (one transaction; sets p->id, and p->created when empty). The IPGs are
 * referred to by p->impl[i].ipg_id. LBS_NOTFOUND for a version 1 database opened read-only. */
lbs_err lbs_calib_put_plan(lbs_calib_db *db, lbs_plan *p, const char *command);
/* Plan id, or (id 0) the newest plan of kernel (NULL or "": of any kernel). The graphs are
 * read, CRCs checked (LBS_CORRUPT naming the row); the implementations' IPGs are not (ipg.n
 * is 0). LBS_NOTFOUND saying how to make one. *out owned by the caller (lbs_plan_free). */
lbs_err lbs_calib_get_plan(lbs_calib_db *db, const char *kernel, int64_t id, lbs_plan *out);
/* The ids of every plan, ascending (*ids owned by the caller; NULL when none). */
lbs_err lbs_calib_plan_ids(lbs_calib_db *db, int64_t **ids, int *n);

/* The CPUs of the machine a run was on (its machine JSON's "cpus"; 0 when not recorded). */
lbs_err lbs_calib_run_cpus(lbs_calib_db *db, int64_t run_id, int *cpus);

/* ---------------------------------------------------------------- a node's plan from its IPGs */

/* The node a plan is for: threads (0: the CPUs of the machine the IPGs were measured on),
 * OpenCL and CUDA devices (-1: every one the database has IPGs on). */
typedef struct lbs_plan_node {
  int threads, opencl, cuda;
  int allow_partial; /* an implementation without a complete IPG takes its newest partial one */
} lbs_plan_node;

/* The plan of kernel on node from the newest complete IPG of each of its implementations per
 * device in db, over work [0, hi] (hi 0: the widest range measured). Implementations needing
 * more threads than the node has are left out. The template's own time is measured here for
 * real when measure (split, a thread, combine, at four sizes) and taken as 0 otherwise.
 * LBS_RANGE when the node asks for more threads than the machine had, or more devices than
 * the database has IPGs on (the message says what there is); LBS_NOTFOUND when no IPG of
 * kernel is complete. *out owned by the caller. */
lbs_err lbs_plan_make(lbs_calib_db *db, const char *kernel, const lbs_plan_node *node, double hi,
                      int measure, lbs_plan *out);

/* ---------------------------------------------------------------- execution (5.4) */

/* Opens implementation m on the resources the plan names (OpenCL, CUDA: the device whose
 * description is its IPG's). LBS_NOTFOUND when it was not built or its device is not here. */
lbs_err lbs_plan_impl_open(const lbs_plan_impl *m, const lbs_impl_ops **ops, void **ctx);

/* One run of the plan on working set ws at work x: the tree of calls it makes. */
typedef struct lbs_exec lbs_exec;
/* Plans the calls for work x (looking up FPGs and PGs), opens every implementation the calls
 * use (lbs_impl_find by name; LBS_NOTFOUND when one was not built, or its device is absent).
 * pred_s: the plan's estimate. */
lbs_err lbs_exec_create(const lbs_plan *p, int ws, double x, lbs_exec **out, double *pred_s);
/* Runs the calls on params made by the kernel's adapter for x: both sides of a template at once
 * (a thread each), then combine. */
lbs_err lbs_exec_run(lbs_exec *e, void *params);
/* What it runs, one line per call: "sort.cpu 4000 | sort.threads 6000". */
void lbs_exec_describe(const lbs_exec *e, char *buf, size_t n);
void lbs_exec_destroy(lbs_exec **e); /* NULL-safe */

/* ---------------------------------------------------------------- runs for real (plan_run.c) */

/* The plan runs here: its kernel's adapter in *a; LBS_NOTFOUND "plan N: no kernel 'K' in this
 * lbsim", LBS_RANGE when the plan wants more threads than this machine's online CPUs. */
lbs_err lbs_plan_runnable(const lbs_plan *p, const lbs_adapter **a);
/* The works a run-plan runs by default: six from hi/1000 to hi, log spaced, rounded to valid
 * metrics of a; into w (6 entries), returns 6. */
int lbs_plan_works(const lbs_plan *p, const lbs_adapter *a, double *w);
/* One work, measured. */
typedef struct lbs_plan_run {
  double work;
  double predicted_s, measured_s; /* the plan's estimate, its run's median (whole node) */
  int best;               /* the fastest implementation alone (p->impl index), -1: none ran */
  double best_s;          /* its median (infinity when none) */
  double one_s;           /* the fastest one-thread CPU implementation's (infinity: none) */
  double one_predicted_s; /* the one-thread FPG's estimate */
  char calls[512];        /* what the plan runs (lbs_exec_describe) */
} lbs_plan_run;
/* Runs plan p (on the whole node: every thread and device) for real at work w, warm times
 * untimed (0..LBS_CALIB_MAX_REPEAT), then repeat times timed (1..LBS_CALIB_MAX_REPEAT, the
 * median kept), the first run's output checked after the last; then each implementation alone
 * the same way (one that cannot open here is left out). LBS_RANGE for counts out of range; the
 * adapter's, the executor's and a wrong output's errors ("wrong output at work W: why"). */
lbs_err lbs_plan_measure(const lbs_plan *p, const lbs_adapter *a, double w, int repeat, int warm,
                         lbs_plan_run *out);

#endif
