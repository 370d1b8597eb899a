/* lbs_grid.h - the simulated platform: clusters of nodes, processor speed models, links.
 *
 * A grid is described in INI (see lbs_grid_spec(), `lbsim grid --help-config`):
 *   [grid]            defaults for the whole platform
 *   [nodetype NAME]   a kind of node: speed model and its parameters, cores per node
 *   [cluster NAME]    a number of nodes of one type, with its internal network
 *   [link A B]        the network between clusters A and B (else [grid]'s inter_* keys)
 *   [availability NAME] a change from a trace step on: a processor or cluster slows down or
 *                     fails for good, a link's bandwidth or latency changes (avail.c)
 * and how transfers share the network: [grid] sharing (fair or fifo) on shared links and
 * NICs ([nodetype] nic_gbps), [grid] barrier_us for bsp's barrier (sim/network.c).
 * Processors are numbered cluster by cluster in file order, node by node, core by core.
 * Times are integer nanoseconds. One unit of the replayed metric takes ns_per_work ns on a
 * processor of speed 1. Bandwidths are in Gbit/s, i.e. bits per nanosecond. */
#ifndef LBS_GRID_H
#define LBS_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "lbs_config.h"

struct json_t; /* jansson's (lbs_json.h) */

typedef struct lbs_grid lbs_grid;

/* The declarative table of every section and key a grid file may hold. [nodetype] takes the
 * common keys (speed_model, cores, nic_gbps) and the keys of every registered speed model, so
 * the table is built at run time: static storage, rebuilt after a speed model is registered
 * (the pointer stays the same, the contents follow the registry). Not thread-safe while
 * models are registered. */
const lbs_section_spec *lbs_grid_spec(void);
/* The sections that libraries above this one read from a grid file (the partitioners' [zoltan],
 * [minex], ...: each passed through, its keys its reader's to check): fn lists them, NULL-kind
 * terminated, whenever lbs_grid_spec is built; the partitioner registry gives its own when it is
 * linked into a program (partitioners/registry.c). NULL: none. */
void lbs_grid_set_extra_sections(const lbs_section_spec *(*fn)(void));

/* Speed models turn work into time on one processor: linear, and non-linear curves
 * (roofline, calibrated IPGs). A model is one file and one line in grid/registry.c. It owns
 * its [nodetype] keys: a node type may only give the keys of its own speed_model. */
typedef struct lbs_speed_ops {
  int abi;             /* LBS_SPEED_ABI */
  const char *name;    /* "linear": the [nodetype] speed_model that chooses it */
  const lbs_opt *keys; /* its [nodetype] keys, ending with key NULL (NULL: none); unique among
                          models; help without the model's name (--help-config adds it) */
  const char *example; /* [nodetype] lines of its keys, "speed = 2.5\n", from which the contract
                          tests (tests/grid/test_speed_models.c) build a node type (NULL: none) */
  int monotone;        /* 1: time_ns never decreases as work grows (contract-tested) */
  /* Reads the model's keys from [nodetype name] (through lbs_grid_spec()); state owned by the
   * model. */
  lbs_err (*init)(void **state, const lbs_config *cfg, const char *nodetype, double ns_per_work);
  /* Time in ns that work units take; >= 0, deterministic. */
  int64_t (*time_ns)(const void *state, double work);
  /* Relative throughput (work per ns at large work), for part sizes; > 0 and finite. */
  double (*rate)(const void *state);
  void (*fini)(void *state); /* NULL-safe */
  /* Since ABI 3 (a table of ABI 2 is taken with these NULL). The trace metric the replay gives
   * the model as work, its name and unit ("" when the trace has none), told once before the
   * first step (lbs_grid_bind_metric): LBS_OK, or an error saying what to write when the
   * model's curve measures work in another unit. NULL: any metric will do. */
  lbs_err (*bind_metric)(const void *state, const char *metric, const char *unit);
  /* The work, in units of the replayed metric, over which the model measured its times (a
   * curve's first and last points): 1 with [*lo, *hi] and what was measured into what[n] ("the
   * IPG of wave.cpu"; n 0: not asked), 0 when it has no such range (its times hold for any
   * work). NULL: none. */
  int (*range)(const void *state, double *lo, double *hi, char *what, size_t n);
} lbs_speed_ops;
#define LBS_SPEED_ABI 3

/* Registers a speed model after the built-in ones (tests add mocks; ops is borrowed, static).
 * LBS_INVAL when its ABI is not LBS_SPEED_ABI, its name is taken, one of its keys is a common
 * [nodetype] key or another model's, or the registry or the key table is full. */
lbs_err lbs_speed_register(const lbs_speed_ops *ops);
/* The model called name; NULL when there is none. */
const lbs_speed_ops *lbs_speed_find(const char *name);
/* The registered models in registration order (built-in ones first): count, and the i-th
 * (NULL out of range). */
int lbs_speed_count(void);
const lbs_speed_ops *lbs_speed_at(int i);

/* Loads a grid file, applies overrides ("section.key=value", may be NULL) and validates
 * it. Errors name file, line and key. */
lbs_err lbs_grid_load(const char *path, const char *const *overrides, int noverrides,
                      lbs_grid **out);
/* Builds a grid from a checked or unchecked configuration (it is checked here). */
lbs_err lbs_grid_from_config(const lbs_config *cfg, lbs_grid **out);
void lbs_grid_destroy(lbs_grid **g); /* NULL-safe, clears *g */

const char *lbs_grid_name(const lbs_grid *g);
int lbs_grid_procs(const lbs_grid *g);
int lbs_grid_nclusters(const lbs_grid *g);
const char *lbs_grid_cluster_name(const lbs_grid *g, int c);
int lbs_grid_cluster_first(const lbs_grid *g, int c); /* first processor of cluster c */
int lbs_grid_cluster_procs(const lbs_grid *g, int c);
int lbs_grid_proc_cluster(const lbs_grid *g, int p);
int lbs_grid_proc_node(const lbs_grid *g, int p); /* node number within its cluster */
const char *lbs_grid_proc_nodetype(const lbs_grid *g, int p);

/* Compute time of work units on processor p (divided by its speed factor; on a failed
 * processor any work takes forever: 9e18 ns). */
int64_t lbs_grid_compute_ns(const lbs_grid *g, int p, double work);
/* Tells every node type's speed model which trace metric a replay gives it as work (name, unit:
 * "" when the trace has none), before the first step: a model whose curve was measured in
 * another unit refuses it without an explicit conversion (the error names the grid file, the
 * node type, both metrics and units, and what to write). Models without the hook take any. */
lbs_err lbs_grid_bind_metric(const lbs_grid *g, const char *metric, const char *unit);
/* The work, in units of the replayed metric, over which processor p's speed model measured its
 * times: 1 with [*lo, *hi] and what was measured into what[n] (n 0: not asked, what may be
 * NULL), 0 when its times hold for any work (linear, roofline). Outside it a curve's time is
 * extrapolated. */
int lbs_grid_work_range(const lbs_grid *g, int p, double *lo, double *hi, char *what, size_t n);
/* Relative throughput of processor p (speed-proportional part sizes), times its speed factor:
 * 0 for a failed processor. */
double lbs_grid_rate(const lbs_grid *g, int p);
/* Part sizes proportional to the processors' rates: sizes[0..P) summing to 1. */
void lbs_grid_part_sizes(const lbs_grid *g, double *sizes);

typedef struct lbs_link {
  int64_t lat_ns; /* latency */
  double bw_gbps; /* bandwidth, Gbit/s = bits/ns, > 0 */
  int shared;     /* 1: concurrent transfers share the bandwidth */
} lbs_link;
/* The network between clusters a and b (a == b: the cluster's own). */
lbs_link lbs_grid_link(const lbs_grid *g, int a, int b);
/* How transfers share a shared link or a NIC ([grid] sharing): max-min fair bandwidth among
 * the transfers in flight (SimGrid's flow model), or whole transfers one after the other. */
typedef enum { LBS_SHARING_FAIR = 0, LBS_SHARING_FIFO = 1 } lbs_sharing;
lbs_sharing lbs_grid_sharing(const lbs_grid *g);
/* bsp: the cost of the barrier that ends every step ([grid] barrier_us), ns. */
int64_t lbs_grid_barrier_ns(const lbs_grid *g);
/* The migration model ([grid] migration_fixed_us, migration_per_elem_ns, migration_gbps, as
 * `grid probe` fits them): a processor's migration at a repartition costs fixed_us + per_elem_ns
 * per element it sends or receives + those elements' bytes at gbps (0: no byte term), charged by
 * the replay in place of the migration's transfers over the links (sim/engine.c). 1 when the grid
 * gives one (any of the three > 0), 0 when the links carry the migration. */
int lbs_grid_migration_model(const lbs_grid *g, double *fixed_us, double *per_elem_ns,
                             double *gbps);
/* Processor p's NIC bandwidth each way, Gbit/s ([nodetype] nic_gbps); 0: unlimited. */
double lbs_grid_nic_gbps(const lbs_grid *g, int p);
/* Uncontended transfer time of bytes from processor p to q (0 when p == q): latency + bytes
 * at the link's bandwidth, or at the slower NIC's. */
int64_t lbs_grid_transfer_ns(const lbs_grid *g, int p, int q, double bytes);
/* Bytes per element moved by migration and per edge exchanged by halos; 0 = from trace. */
double lbs_grid_bytes_per_elem(const lbs_grid *g);
double lbs_grid_bytes_per_edge(const lbs_grid *g);

/* ---------------------------------------------------------------- availability */

/* An availability profile, [availability NAME]: from trace step from_step (the numbering of
 * `replay --steps`) until before until_step, processors run speed_factor times as fast (their
 * compute times divided by it), or from from_step on they fail for good; or a link's bandwidth
 * and latency are multiplied by factors. Profiles that overlap multiply. */
typedef enum { LBS_AVAIL_PROCS = 0, LBS_AVAIL_LINK = 1 } lbs_avail_kind;
typedef struct lbs_avail {
  const char *name;        /* the section's NAME */
  const char *where;       /* "file:line" of its from_step, for messages */
  const char *until_where; /* "file:line" of its until_step (the section's when not given) */
  lbs_avail_kind kind;     /* processors or a link */
  int first, count;        /* LBS_AVAIL_PROCS: processors [first, first + count) */
  int a, b;            /* LBS_AVAIL_LINK: clusters a and b (a == b: the cluster's own network) */
  int64_t from_step;   /* the first trace step it holds at, >= 0 */
  int64_t until_step;  /* the trace step it ends before; -1: never */
  double speed_factor; /* processors: speed x this (> 0; 1 when they fail) */
  int fail;            /* processors: 1 when they stop for good at from_step */
  double bandwidth_factor; /* link: bandwidth x this (> 0) */
  double latency_factor;   /* link: latency x this (> 0) */
} lbs_avail;
/* The grid's profiles in file order: how many, and the i-th (NULL out of range; valid while
 * the grid lives). */
int lbs_grid_avail_count(const lbs_grid *g);
const lbs_avail *lbs_grid_avail(const lbs_grid *g, int i);

/* A grid that follows g's profiles as the trace steps pass (the replay's, sim/avail.c): it
 * borrows g (node types, names, profiles), which must outlive it, and owns its speed factors
 * and links. It starts as g is (every factor 1); destroy it with lbs_grid_destroy. */
lbs_err lbs_grid_live_create(const lbs_grid *g, lbs_grid **out);
#define LBS_AVAIL_SPEED 1  /* a processor's speed factor changed */
#define LBS_AVAIL_LINKS 2  /* a link changed */
#define LBS_AVAIL_FAILED 4 /* a processor failed that had not */
/* Sets a live grid's speed factors and links to what the profiles say at trace step `step`
 * (any step, forwards or backwards: a pure function of the step); *changed gets the
 * LBS_AVAIL_* bits of what differs from before. LBS_INVAL on a grid that is not live. */
lbs_err lbs_grid_live_step(lbs_grid *live, int64_t step, int *changed);
/* Processor p's speed factor now: 1 without profiles, 0 when it has failed. */
double lbs_grid_speed_factor(const lbs_grid *g, int p);
int lbs_grid_proc_failed(const lbs_grid *g, int p); /* 1: p has failed (never gets work) */

/* The INI text of a grid of the seed's families (HO, UP, DN: see family.c) with P processors
 * in C equal clusters, links between clusters I times slower than the base link (lat_us,
 * bw_gbps). Appends to out (NUL-terminated); LBS_INVAL when P does not divide into C. */
lbs_err lbs_grid_family_ini(const char *family, int P, int C, double I, double lat_us,
                            double bw_gbps, lbs_buf *out);

/* ---------------------------------------------------------------- a grid described (describe.c) */

/* INI text that must load as a grid (a generated or probed grid file, checked before it is
 * written): LBS_OK, or the parser's or the grid's error, name in its messages. */
lbs_err lbs_grid_check_text(const char *name, const char *text);
/* An availability profile in words into buf (n bytes), returned: "proc 3: speed x0.5 from step 20
 * until before step 40", "procs 0..3: fails at step 5", "link A - B: bandwidth x0.5, latency x2
 * from step 10". */
const char *lbs_avail_describe(const lbs_grid *g, const lbs_avail *a, char *buf, size_t n);
/* The grid as `grid info --json` prints it: name, processors, sharing, barrier, each cluster
 * (its first processor's node type, speed and NIC, its network) and each link between clusters,
 * the availability profiles in words when there are any, and the migration model when there is
 * one ("migration": fixed_us, per_elem_ns, gbps). NULL when out of memory. */
struct json_t *lbs_grid_json(const lbs_grid *g);
/* The grid as `grid info` prints it: name, processors, sharing and barrier, the migration model
 * when there is one, a line per cluster, a line per link between clusters, and the availability
 * profiles in words. */
void lbs_grid_text(FILE *f, const lbs_grid *g);

#endif
