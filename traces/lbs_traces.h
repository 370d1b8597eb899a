/* lbs_traces.h - the trace store: per-element metric values at sampled steps, compacted
 * with error-bounded polylines (or losslessly) and kept in one SQLite file.
 *
 * Terms: a trace has E elements (numbered 0..E-1), S sampled steps (0..S-1, each with the
 * application's own step number) and one or more metrics. A step of a metric is stored as
 * fixed-size chunks of consecutive elements, so a reader decodes only the chunks that
 * overlap the element range it asks for. */
#ifndef LBS_TRACES_H
#define LBS_TRACES_H

#include <stdint.h>
#include <stdio.h>

#include "lbs_core.h"

struct json_t; /* jansson's (lbs_json.h) */

#define LBS_TRACE_SCHEMA_VERSION 2
/* A trace's SQLite application_id ('LBST'), which tells a trace from another SQLite file. */
#define LBS_TRACE_APP_ID 0x4C425354u
#define LBS_TRACE_DEFAULT_CHUNK 8192
#define LBS_TRACE_MAX_CHUNK (1 << 20)

/* ---------------------------------------------------------------- error bounds */

/* How far a stored value may be from the measured one. Costs are non-negative and the
 * simulator sums them over sets of elements, so the default is pointwise relative: it keeps
 * every value's sign, keeps zero at zero, and bounds every sum of non-negative values by the
 * same eps. One spelling everywhere (command line, profiler, trace metadata, trace info):
 * "rel:0.005", "abs:5", "range:1e-3", "lossless". */
typedef enum {
  LBS_BOUND_LOSSLESS = 0, /* bit-exact */
  LBS_BOUND_REL = 1,      /* |x' - x| <= eps |x| */
  LBS_BOUND_ABS = 2,      /* |x' - x| <= eps */
  LBS_BOUND_RANGE = 3     /* |x' - x| <= eps (max - min of the step's finite values) */
} lbs_bound_kind;

typedef struct lbs_bound {
  lbs_bound_kind kind; /* LBS_BOUND_* */
  double eps;          /* > 0 and finite; 0 for LBS_BOUND_LOSSLESS */
} lbs_bound;

/* The default bound for measured costs (the profiler, trace import of measured data, trace
 * gen): the bound that met bench/trace_fidelity's goals at the smallest size. */
#define LBS_BOUND_DEFAULT "rel:0.005"
/* Largest eps accepted for rel and range bounds (abs bounds take any finite eps > 0). */
#define LBS_BOUND_MAX_REL 0.5

/* Parses "rel:E", "abs:E", "range:E" or "lossless". LBS_PARSE with a message naming the
 * text and what is wrong (unknown kind, eps not a number, negative, NaN, zero, too large). */
lbs_err lbs_bound_parse(const char *s, lbs_bound *out);
/* The bound's one spelling ("rel:0.005") into buf (at least LBS_BOUND_STRLEN bytes);
 * returns buf. */
#define LBS_BOUND_STRLEN 40
char *lbs_bound_format(lbs_bound b, char *buf);
/* The absolute tolerance of value x under b; range bounds need the step's range (max - min). */
double lbs_bound_tolerance(lbs_bound b, double x, double range);
/* A range bound made absolute for the values v[0..n) (eps x their max - min; lossless when
 * they are all equal or none is finite); other bounds are returned as they are. */
lbs_bound lbs_bound_resolve(lbs_bound b, const double *v, size_t n);

/* ---------------------------------------------------------------- codecs */

typedef enum {
  LBS_CODEC_AUTO = 0,     /* a metric setting: per chunk the smallest of polyline and quant
                             (and lossless, where those take over a byte a value) */
  LBS_CODEC_LOSSLESS = 1, /* byte-shuffle + zstd, bit-exact */
  LBS_CODEC_POLYLINE = 2, /* error-bounded least-squares polyline + zstd */
  LBS_CODEC_QUANT = 3     /* previous-value prediction, quantized residuals (log domain for
                             relative bounds) + zstd: for noisy data */
} lbs_codec;

/* The codec chunks get unless told otherwise. */
#define LBS_CODEC_DEFAULT LBS_CODEC_AUTO

/* Reusable scratch state for encoding and decoding (not thread-safe; one per thread). */
typedef struct lbs_codec_ctx lbs_codec_ctx;
lbs_err lbs_codec_ctx_create(lbs_codec_ctx **out);
void lbs_codec_ctx_destroy(lbs_codec_ctx **ctx); /* NULL-safe, clears *ctx */

/* Name of a codec ("auto", "polyline", "quant", "lossless"), NULL when unknown. */
const char *lbs_codec_name(lbs_codec c);
/* The codecs a chunk may be stored with (auto is a setting, not one of them), in the order of
 * their ids, as the codec registry has them (traces/codec.c, tests' mocks included): how many,
 * and the i-th's id (LBS_CODEC_AUTO when i is out of range). */
int lbs_codec_count(void);
lbs_codec lbs_codec_at(int i);
/* Codec by name; LBS_NOTFOUND (message lists the known ones) when unknown. */
lbs_err lbs_codec_from_name(const char *name, lbs_codec *out);
/* LBS_INVAL (message says why) when bound b cannot go with codec c: lossless takes only the
 * lossless bound, the lossy codecs take rel, abs or range. */
lbs_err lbs_codec_check(lbs_codec c, lbs_bound b);
/* One level of settings over a codec and bound (defaults, then a program's or the command
 * line's settings for every metric, then the environment's or one metric's): a level's codec
 * and bound replace the pair; when a level sets only one of them, it decides its partner too (a
 * lossless bound means the lossless codec and the other way round; a lossy one turns a lossless
 * partner into the default). set_codec or set_bound NULL: not set at this level. The pair is
 * checked with lbs_codec_check at the end, by the caller. */
void lbs_encoding_apply(lbs_codec *codec, lbs_bound *bound, const lbs_codec *set_codec,
                        const lbs_bound *set_bound);

/* Codec and bound settings over a trace's metrics, as a command line gives them ("--bound
 * rel:0.01 --bound time_ns=abs:5 --codec weight=lossless"): each setting is for every metric or
 * for one metric by name, and later settings win. Start from a zeroed lbs_encoding, add with
 * lbs_encoding_add_bound/_codec, then resolve each metric (encoding.c). */
#define LBS_ENCODING_MAX_SETS 32
typedef struct lbs_encoding_set {
  char metric[64]; /* "" for every metric */
  int has_codec, has_bound;
  lbs_codec codec;
  lbs_bound bound;
} lbs_encoding_set;
typedef struct lbs_encoding {
  lbs_encoding_set set[LBS_ENCODING_MAX_SETS]; /* in the order given */
  int nset;
} lbs_encoding;
/* Adds "[METRIC=]BOUND" (lbs_bound_parse's spelling) or "[METRIC=]CODEC" (a codec name). On
 * error enc is unchanged: LBS_RANGE "at most 32 settings", LBS_PARSE "'ARG': bad metric name"
 * (an empty or a too long name), or the bound's or codec's own parse error. */
lbs_err lbs_encoding_add_bound(lbs_encoding *enc, const char *arg);
lbs_err lbs_encoding_add_codec(lbs_encoding *enc, const char *arg);
/* 1 when a setting names a metric, 0 when all are for every metric (enc may be NULL). */
int lbs_encoding_per_metric(const lbs_encoding *enc);
/* The codec and bound of metric `name`: dcodec and dbound, then enc's settings for every metric,
 * then those for `name`, each level through lbs_encoding_apply (a level that sets only one of the
 * pair decides its partner). The pair is checked with lbs_codec_check: LBS_INVAL "metric 'NAME':
 * why". enc NULL: the defaults alone. */
lbs_err lbs_encoding_resolve(const lbs_encoding *enc, const char *name, lbs_codec dcodec,
                             lbs_bound dbound, lbs_codec *codec, lbs_bound *bound);
/* Every per-metric setting of enc names one of names[0..n): else LBS_NOTFOUND "no metric 'X'
 * (metrics: A B ...)". */
lbs_err lbs_encoding_check_names(const lbs_encoding *enc, const char *const *names, int n);

/* Appends the encoding of v[0..n) to out and says in *used which codec stored it. b is
 * LBS_BOUND_LOSSLESS, ABS or REL (a range bound is resolved to abs by the caller). The lossy
 * codecs keep every finite value within b, store non-finite values exactly, and keep the
 * chunk's sum: |sum(x') - sum(x)| <= LBS_SUM_TOL sum(|x|) over the finite values. A chunk that
 * a lossy codec cannot store within the bound (values too large for the resolution, extreme
 * dynamic range) falls back to lossless (*used says so). LBS_INVAL for a bad codec/bound. */
lbs_err lbs_codec_encode(lbs_codec_ctx *ctx, lbs_codec c, const double *v, size_t n, lbs_bound b,
                         lbs_buf *out, lbs_codec *used);
/* The most bytes lbs_codec_encode appends for n values, whatever the codec and the values (a
 * lossy encoding that would be larger gives way to lossless, which fits): a reader may refuse
 * anything longer before reading it. */
size_t lbs_codec_max_bytes(size_t n);
/* Decodes elements [first, first+count) of an n-element blob of codec c (a stored codec, not
 * auto) into out[0..count). LBS_CORRUPT for a malformed blob; never reads outside
 * [blob, blob+len). */
lbs_err lbs_codec_decode(lbs_codec_ctx *ctx, lbs_codec c, const uint8_t *blob, size_t len, size_t n,
                         size_t first, size_t count, double *out);

/* Chunk sums: the largest |sum(x') - sum(x)| / sum(|x|) a lossy codec leaves. */
#define LBS_SUM_TOL 1e-9
/* |sum(y) - sum(x)| / sum(|x|) over the finite x (compensated sums); 0 when both sums are 0,
 * infinity when only sum(x) is 0. */
double lbs_sum_error(const double *x, const double *y, size_t n);

/* ---------------------------------------------------------------- meshes */

typedef struct lbs_mesh lbs_mesh;
typedef enum { LBS_MESH_STRUCTURED = 1, LBS_MESH_UNSTRUCTURED = 2 } lbs_mesh_kind;
typedef enum { LBS_ORDER_NATURAL = 0, LBS_ORDER_HILBERT = 1 } lbs_order;

/* A structured nx x ny x nz box of cells with 6-neighbour face adjacency (edge weight 1).
 * With LBS_ORDER_HILBERT the elements are numbered along a Hilbert curve, which keeps
 * neighbours close in the element order (longer polyline segments, compact rank ranges);
 * lbs_mesh_cell_index() maps element ids back to cells. */
lbs_err lbs_mesh_create_structured(int64_t nx, int64_t ny, int64_t nz, lbs_order order,
                                   lbs_mesh **out);
/* An unstructured mesh of n elements: coords (n*dim doubles, dim 1..3, or NULL with dim 0)
 * and a CSR graph (xadj[n+1], adjncy[xadj[n]], adjwgt NULL for unit weights). All arrays
 * are copied. directed != 0 keeps the graph as given; otherwise it must be symmetric.
 * Fails with LBS_INVAL naming the first bad vertex or edge. */
lbs_err lbs_mesh_create_unstructured(int64_t n, int dim, const double *coords, const int64_t *xadj,
                                     const int64_t *adjncy, const double *adjwgt, int directed,
                                     lbs_mesh **out);
void lbs_mesh_destroy(lbs_mesh **m); /* NULL-safe, clears *m */

lbs_mesh_kind lbs_mesh_get_kind(const lbs_mesh *m);
int64_t lbs_mesh_elements(const lbs_mesh *m);
lbs_order lbs_mesh_order(const lbs_mesh *m);
void lbs_mesh_dims(const lbs_mesh *m, int64_t dims[3]); /* structured only; else zeros */
int lbs_mesh_directed(const lbs_mesh *m);
/* Migration bytes per element and halo bytes per edge (defaults 1024 and 64). */
void lbs_mesh_set_bytes(lbs_mesh *m, double per_elem, double per_edge);
double lbs_mesh_bytes_per_elem(const lbs_mesh *m);
double lbs_mesh_bytes_per_edge(const lbs_mesh *m);
/* Structured: the cell i + nx*(j + ny*k) of each element (n entries), built on first use;
 * NULL for unstructured meshes. Valid while the mesh lives. */
const int64_t *lbs_mesh_cell_index(lbs_mesh *m);
/* Coordinates (n*dim doubles, element order; cell centres for structured meshes) and dim;
 * *coords NULL when the mesh has none. Valid while the mesh lives. */
lbs_err lbs_mesh_coords(lbs_mesh *m, const double **coords, int *dim);
/* The CSR graph in element numbering (adjwgt never NULL). Valid while the mesh lives. */
lbs_err lbs_mesh_graph(lbs_mesh *m, const int64_t **xadj, const int64_t **adjncy,
                       const double **adjwgt);

int lbs_mesh_dim(const lbs_mesh *m);           /* coordinate dimensions, 0 for none */
double lbs_mesh_avg_degree(const lbs_mesh *m); /* graph arcs per element */
/* Rows [first, first + n) of a mesh: what one MPI rank holds of it. */
typedef struct lbs_mesh_rows {
  int64_t first, n;
  int dim;        /* coordinate dimensions (0: none) */
  double *coords; /* n*dim doubles, or NULL (not asked for, or the mesh has none) */
  int64_t *xadj;  /* n+1 offsets from 0, or NULL (not asked for) */
  int64_t *adj;   /* xadj[n] neighbour ids (global element ids) */
  double *adjw;   /* their weights; NULL when every one of them is 1 */
} lbs_mesh_rows;
/* The rows [first, first + n) of the mesh's coordinates and graph, exactly as lbs_mesh_coords
 * and lbs_mesh_graph give them (same neighbour order). A structured box in natural order
 * computes only these rows; a Hilbert box needs its cell index and, while the rows are built,
 * its inverse (8 bytes per element); an unstructured mesh copies them out of its arrays. */
lbs_err lbs_mesh_rows_get(lbs_mesh *m, int64_t first, int64_t n, int want_coords, int want_graph,
                          lbs_mesh_rows *out);
void lbs_mesh_rows_free(lbs_mesh_rows *r); /* NULL-safe; clears the arrays */

/* Hilbert-curve position of each cell of an nx x ny x nz box: fills order[0..nx*ny*nz)
 * with cell indices i + nx*(j + ny*k) sorted along the curve. */
lbs_err lbs_hilbert_order(int64_t nx, int64_t ny, int64_t nz, int64_t *order);

/* ---------------------------------------------------------------- writing */

typedef struct lbs_metric_spec {
  const char *name; /* e.g. "time_ns" */
  const char *unit; /* e.g. "ns" */
  lbs_codec codec;  /* LBS_CODEC_AUTO, POLYLINE, QUANT or LOSSLESS (checked against bound) */
  lbs_bound bound;  /* the metric's promise; a lossless bound stores it exactly */
  lbs_bound encode; /* when its eps > 0: the tighter bound the chunks are encoded within, an
                       earlier lossy stage (the profiler's node agents) having used the rest */
} lbs_metric_spec;

typedef struct lbs_trace_spec {
  int64_t elements;               /* E > 0 */
  int64_t chunk_elems;            /* elements per chunk; 0 for LBS_TRACE_DEFAULT_CHUNK */
  int nmetrics;                   /* >= 1 */
  const lbs_metric_spec *metrics; /* nmetrics entries */
  lbs_mesh *mesh;                 /* borrowed, may be NULL; its size must be E */
  int nmeta;                      /* extra metadata pairs */
  const char *const *meta;        /* 2*nmeta strings: key, value, ... */
} lbs_trace_spec;

typedef struct lbs_trace_writer lbs_trace_writer;

/* Creates a new trace file at path (LBS_IO if it exists). Each step is committed in its
 * own transaction, so a writer killed at any moment leaves every complete step readable. */
lbs_err lbs_trace_create(const char *path, const lbs_trace_spec *spec, lbs_trace_writer **out);
/* Encodes and commits the next step. values[m] points at E doubles of metric m. */
lbs_err lbs_trace_write_step(lbs_trace_writer *w, int64_t app_step, const double *const *values);
/* Sets (or replaces) a metadata key after creation, in its own transaction (e.g. counts
 * known only at the end of a run). */
lbs_err lbs_trace_writer_set_meta(lbs_trace_writer *w, const char *key, const char *value);
/* Element ownership (the profiler's lbsprof_remap, an application that migrates elements): the
 * rank that holds each element from application step app_step on, owner[0..E) in 0..INT32_MAX,
 * committed in its own transaction. Written before the first step it applies to, so that a
 * writer killed at any moment leaves no step without its owners. A second call for the same
 * step replaces the first. */
lbs_err lbs_trace_write_owners(lbs_trace_writer *w, int64_t app_step, const int64_t *owner);
/* Pinned elements (a DARMA vt task that is not migratable, an objgroup): elements that must stay
 * on the processor that holds them, whatever the partitioner says. pinned[0..E) is 0 or 1; stored
 * as the mesh array LBS_TRACE_PINNED (i64, E items) in its own transaction, and only when one
 * element is pinned (a trace without the array has none). A second call replaces the first. */
#define LBS_TRACE_PINNED "pinned"
/* Meta key: what an element with no work at a step is. LBS_ABSENT_ZERO_WORK: absent from the
 * application then (a vt task created or destroyed, as in AMR: the importer gives it time 0 and
 * holds its owner), so the replay neither moves it nor charges its migration while it has none.
 * Without it, an idle element is an element like another. */
#define LBS_META_ABSENT "absent"
#define LBS_ABSENT_ZERO_WORK "zero_work"
lbs_err lbs_trace_write_pinned(lbs_trace_writer *w, const int64_t *pinned);
/* Per-rank events of a step (the profiler's lbsprof_event: an application's own costs, such as
 * its partitioning and migration wall time in seconds): nevents names (1-31 of [A-Za-z0-9_.-],
 * at most LBS_TRACE_MAX_EVENTS) for ranks ranks, declared once before the first step (meta keys
 * events and events.ranks). lbs_trace_step_events then gives the next step's values, ranks x
 * nevents (rank-major), stored in that step's transaction; a step without them has none. */
#define LBS_TRACE_MAX_EVENTS 8
/* The events the replay knows: an application's own partitioning and migration wall time of a
 * repartition (seconds, each rank's), recorded at the first step after it. */
#define LBS_EVENT_PARTITION "partition_s"
#define LBS_EVENT_MIGRATION "migration_s"
/* Each rank's wall time of the step outside its measured elements (seconds; the profiler
 * records it, lbsprof.h's LBSPROF_EVENT_OUTSIDE): the replay charges it per step ([sim] outside).
 */
#define LBS_EVENT_OUTSIDE "outside_s"
lbs_err lbs_trace_writer_set_events(lbs_trace_writer *w, int nevents, const char *const *names,
                                    int ranks);
lbs_err lbs_trace_step_events(lbs_trace_writer *w, const double *ev);
/* Seconds spent encoding so far (for progress reports). */
double lbs_trace_writer_encode_seconds(const lbs_trace_writer *w);
/* Finishes the file (single self-contained file, no journal) and destroys the writer;
 * NULL-safe, clears *w. */
lbs_err lbs_trace_writer_close(lbs_trace_writer **w);

/* ---------------------------------------------------------------- reading */

/* Called after each step of long work; a non-zero return stops it. */
typedef int (*lbs_progress_fn)(void *arg, int64_t done, int64_t total);

typedef struct lbs_trace lbs_trace;

typedef struct lbs_metric_info {
  const char *name; /* valid while the trace is open */
  const char *unit; /* valid while the trace is open */
  lbs_codec codec;  /* the metric's codec (chunks may use another: auto, lossless fallback) */
  lbs_bound bound;  /* as given to the writer */
} lbs_metric_info;

/* Opens a trace for reading (it is never written; SQLite may roll back what a killed writer
 * left). LBS_FORMAT for a file that is not an lbsim trace, LBS_VERSION for another schema
 * version, LBS_CORRUPT for a damaged file, LBS_IO when missing or not a regular file (a FIFO or
 * device is never opened). */
lbs_err lbs_trace_open(const char *path, lbs_trace **out);
void lbs_trace_close(lbs_trace **t); /* NULL-safe, clears *t */

int64_t lbs_trace_elements(const lbs_trace *t);
int64_t lbs_trace_steps(const lbs_trace *t);
int64_t lbs_trace_chunk_elems(const lbs_trace *t);
int lbs_trace_nmetrics(const lbs_trace *t);
int lbs_trace_schema_version(const lbs_trace *t); /* of the file (1 or 2) */
lbs_err lbs_trace_metric(const lbs_trace *t, int metric, lbs_metric_info *out);
int lbs_trace_metric_find(const lbs_trace *t, const char *name); /* index, or -1 */
/* The application's step number of step s (O(1), any order). */
lbs_err lbs_trace_app_step(const lbs_trace *t, int64_t step, int64_t *app_step);
/* Phases of a step (the profiler's lbsprof_phase; an application whose step is several updates
 * with an exchange between them): the metadata key "phases.M" lists, comma-separated, the
 * metrics that hold metric M's phases, in the order the application runs them ("phases.time_ns"
 * = "time_ns.update1,time_ns.update2"); M is their sum. The replay then charges each phase's
 * slowest processor. */
#define LBS_PHASES_META_PREFIX "phases."

/* The recorded assignments (lbs_trace_write_owners): how many (0: the trace has none), the i-th's
 * first application step (ascending in i; -1 outside), and its owners into owner[0..E) (LBS_RANGE
 * for i outside, LBS_CORRUPT for a damaged one). The assignment at application step a is the
 * last one whose first step is <= a. */
int64_t lbs_trace_owners_count(const lbs_trace *t);
int64_t lbs_trace_owners_step(const lbs_trace *t, int64_t i);
lbs_err lbs_trace_owners_read(lbs_trace *t, int64_t i, int64_t *owner);
/* The pinned elements (lbs_trace_write_pinned): pinned[0..E) 1 for each (all 0 when the trace has
 * none; pinned may be NULL to count them only) and their number into *npinned. LBS_CORRUPT for an
 * array of another size, a bad checksum or a value other than 0 and 1. */
lbs_err lbs_trace_pinned(lbs_trace *t, unsigned char *pinned, int64_t *npinned);
/* The path it was opened from (valid while open), for messages. */
const char *lbs_trace_path(const lbs_trace *t);
/* The per-rank events (lbs_trace_writer_set_events): how many (0: none), of how many ranks, the
 * k-th's name (NULL outside), an event's index by name (-1). read_events: step s's values into
 * out (ranks x nevents, rank-major), *have 1; zeros and *have 0 when the step has none. */
int lbs_trace_nevents(const lbs_trace *t);
int lbs_trace_event_ranks(const lbs_trace *t);
const char *lbs_trace_event_name(const lbs_trace *t, int k);
int lbs_trace_event_find(const lbs_trace *t, const char *name);
lbs_err lbs_trace_read_events(lbs_trace *t, int64_t step, double *out, int *have);
/* A metadata value (valid while open), or NULL. */
const char *lbs_trace_meta(const lbs_trace *t, const char *key);
/* The metadata keys, in key order: lbs_trace_meta_key(t, i) for i < lbs_trace_meta_count(t)
 * (NULL outside; valid while open). */
int lbs_trace_meta_count(const lbs_trace *t);
const char *lbs_trace_meta_key(const lbs_trace *t, int i);
/* The mesh, or NULL when the trace has none. Borrowed; valid while open. */
lbs_mesh *lbs_trace_mesh(lbs_trace *t);

/* Decodes elements [first, first+count) of metric m at step s into out. Reads and checks
 * (CRC-32) only the chunks that overlap the range; any step in any order. LBS_RANGE for a
 * bad step, metric or range; LBS_CORRUPT naming step, metric and chunk on damage. */
lbs_err lbs_trace_read(lbs_trace *t, int64_t step, int metric, int64_t first, int64_t count,
                       double *out);

/* Communication weights (CWgt) and the edge rule (edges.c, the one place it is checked and
 * applied). A trace's arcs weigh what the mesh stores, unless its meta key edge_weight names a
 * rule: the only one is LBS_EDGE_RULE (N-body traces), under which arc u -> v weighs its stored
 * weight (a close flag) x the metric LBS_EDGE_RULE_METRIC of its target v at the step. */
#define LBS_EDGE_RULE "flag*rwgt[target]"
#define LBS_EDGE_RULE_METRIC "rwgt"
/* Arbitrary weights per step (edge_weight = LBS_EDGE_STEPS): the writer stores whole arrays of
 * arc weights at the trace steps it chooses (lbs_trace_write_edge_weights, arrays edgew@STEP,
 * compressed losslessly as every array), and the arcs weigh at step s the array of the latest
 * stored step <= s, the mesh's weights before the first: weights given at every sampled step, or
 * only when they change, cost no more than that. */
#define LBS_EDGE_STEPS "stored@step"

/* 1 when the weights change from step to step (the meta names a rule), 0 when they are the
 * stored ones. */
int lbs_trace_edge_weights_vary(const lbs_trace *t);
/* Checks the trace's rule: LBS_OK when there is none or it is LBS_EDGE_STEPS (*metric = -1), or
 * it is LBS_EDGE_RULE and the trace has its metric (*metric = its index). LBS_FORMAT "meta
 * edge_weight = 'R': the rules lbsim knows are flag*rwgt[target] and stored@step" for another
 * rule, "meta edge_weight = R, but the trace has no rwgt metric" without the metric. metric may
 * be NULL. */
lbs_err lbs_trace_edge_rule_check(const lbs_trace *t, int *metric);

/* Rows [first, first + n) of a graph and the rule metric's values at one step: the rows' own
 * elements' and those of the other targets their arcs reach (a rank's ghosts). Borrowed. */
typedef struct lbs_edge_rows {
  int64_t first, n;    /* the rows: elements [first, first + n) */
  const int64_t *xadj; /* n + 1 offsets into adj and flag (xadj[0] need not be 0) */
  const int64_t *adj;  /* each arc's target, a global element id */
  const double *flag;  /* each arc's stored weight; NULL: 1 each */
  const double *val;   /* n values: the rule metric of elements first .. first + n - 1 */
  int64_t ng;          /* targets outside the rows: every one an arc reaches */
  const int64_t *gid;  /* ng global ids, sorted ascending */
  const double *gval;  /* ng values, in gid's order */
} lbs_edge_rows;
/* The rule on rows r: cw[k - xadj[0]] = flag[k] x the value of adj[k], for every arc k of the
 * rows (xadj[0] <= k < xadj[n]). Local; cannot fail. The values come from the caller: the
 * replay reads its rows' and exchanges its ghosts' over MPI (sim/engine.c). */
void lbs_trace_edge_weights_rows(const lbs_edge_rows *r, double *cw);
/* The communication weight of every arc of the mesh graph at step s, in the graph's arc order:
 * the stored weights, or the rule over the whole graph (lbs_trace_edge_rule_check, then
 * lbs_trace_edge_weights_rows on the step's values). LBS_INVAL without a mesh graph, the
 * check's LBS_FORMAT, the read's errors. */
lbs_err lbs_trace_edge_weights(lbs_trace *t, int64_t s, double *cw);
/* 1 when the trace stores its weights per step (edge_weight = LBS_EDGE_STEPS). */
int lbs_trace_edge_weights_stored(const lbs_trace *t);
/* Stored per step: the weights of arcs [arc0, arc0 + n) of the mesh graph (its arc order) at step
 * s into cw, and in *from the step whose array is in force (-1: the mesh's weights). Decodes the
 * whole array (8 bytes an arc) for the slice. LBS_RANGE for a step or arcs outside the trace,
 * LBS_INVAL for a trace without per-step weights, LBS_CORRUPT for a damaged array. */
lbs_err lbs_trace_edge_weights_slice(lbs_trace *t, int64_t s, int64_t arc0, int64_t n, double *cw,
                                     int64_t *from);
/* The writer's side: the weights of every arc of the mesh graph (its arc order; finite and
 * >= 0) in force from trace step `step` on (>= 0; one given again for a step replaces it), of a
 * trace created with meta edge_weight = LBS_EDGE_STEPS. LBS_INVAL for a trace created without it
 * or without a mesh graph, or for a bad weight (naming the arc). Its own transaction. */
lbs_err lbs_trace_write_edge_weights(lbs_trace_writer *w, int64_t step, const double *cw);
/* The same for the next step lbs_trace_write_step writes, in its transaction (as
 * lbs_trace_step_events): the array is copied now (checked as above), stored with the step. */
lbs_err lbs_trace_step_edge_weights(lbs_trace_writer *w, const double *cw);

typedef struct lbs_trace_stats {
  int64_t raw_bytes;    /* elements * steps * 8 (per metric, or all metrics) */
  int64_t stored_bytes; /* bytes of the compressed chunks */
  int64_t chunks;       /* chunk rows (per codec: lbs_trace_codec_chunks) */
  int has_error;        /* 1 when the writer measured the errors against its input */
  double max_abs_error; /* largest |decoded - original| */
  double rms_error;     /* root mean square of decoded - original */
  double max_rel_error; /* largest |decoded - original| / |original| (nonzero originals) */
  int has_sum_error;    /* 1 when the writer measured chunk sums (schema 2 and later) */
  double max_sum_error; /* worst chunk's |sum(decoded) - sum(original)| / sum(|original|) */
} lbs_trace_stats;
/* Statistics of one metric, or of all of them with metric = -1. */
lbs_err lbs_trace_get_stats(lbs_trace *t, int metric, lbs_trace_stats *out);
/* The chunks of one metric (or of all with metric = -1) stored with each codec: counts[i] for
 * codec lbs_codec_at(i), i < n (the caller's array: lbs_codec_count() entries for every codec).
 * A chunk of a codec this lbsim does not know counts in none. LBS_RANGE for a bad metric. */
lbs_err lbs_trace_codec_chunks(lbs_trace *t, int metric, int64_t *counts, int n);
/* Statistics of the stored values of one metric over every step (what a replay reads). */
typedef struct lbs_value_stats {
  int64_t values;               /* all values (elements x steps) */
  int64_t finite;               /* finite values */
  int64_t negative;             /* finite values below zero */
  int64_t zero;                 /* values equal to zero */
  int64_t nonfinite;            /* NaN and infinities */
  double min, median, p99, max; /* of the finite values (exact order statistics); NaN if none */
  double max_step_range;        /* largest (max - min) of one step's finite values */
} lbs_value_stats;
/* Decodes every step of metric m and fills *out: one pass for the counts and a histogram, then
 * one or more passes that narrow the histogram down to the exact median and p99 (the values of
 * rank ceil(q N) among the N finite values). progress (may be NULL) is called after each step
 * of each pass; a non-zero return stops with LBS_INVAL. */
lbs_err lbs_trace_value_stats(lbs_trace *t, int metric, lbs_progress_fn progress, void *arg,
                              lbs_value_stats *out);

/* Size of the trace file in bytes. */
int64_t lbs_trace_file_bytes(const lbs_trace *t);

/* Verifies the whole file: SQLite integrity, schema, every step has every chunk of every
 * metric with the right element range, every CRC-32, every chunk decodes, the mesh
 * arrays' CRCs, and the arrays kept per step (recorded owners, edge weights, events: each
 * readable, its values in range; edge weights and events at a step the trace has). Returns the
 * first problem, naming step, metric and chunk, or the array. */
lbs_err lbs_trace_verify(lbs_trace *t, lbs_progress_fn progress, void *arg);
/* Whether the writer finished the trace: as many steps as its `source` promises (a generator's
 * recipe, steps=N), profiler.complete in a profiled trace (the collector writes it as it ends),
 * and the file closed (not left in WAL mode, as a killed writer leaves it). LBS_CORRUPT
 * "PATH: 47 of 200 steps: the writer did not finish" (or what else is missing); LBS_OK also for
 * a trace that promises nothing. What `lbsim trace check` adds to lbs_trace_verify. */
lbs_err lbs_trace_check_complete(lbs_trace *t);

/* ---------------------------------------------------------------- a trace described (info.c)
 * What `lbsim trace info` shows: the sizes, the errors the writer measured, the chunks of each
 * metric per codec, the mesh, and the stored values of each metric (one or more passes over the
 * trace each), with a warning where a range-relative bound meets outlier-dominated ranges. */
typedef struct lbs_trace_info {
  int nmetrics, ncodecs;
  lbs_trace_stats all;     /* every metric together */
  lbs_trace_stats *metric; /* nmetrics */
  int64_t *codec_chunks;   /* nmetrics x ncodecs: metric m's chunks of codec lbs_codec_at(k) */
  /* the mesh in words: "structured 30x20x20 (natural order)", "unstructured, N [directed ]edges"
   * or "none" */
  char mesh[128];
  lbs_value_stats *values; /* nmetrics: those lbs_trace_info_values read */
  int values_read;         /* metrics whose values were read */
  char (*warning)[600];    /* nmetrics: a range-bound warning, or "" */
  char values_error[1024]; /* why the values could not be read (a damaged chunk), or "" */
} lbs_trace_info;
/* Everything but the values (one query each, no decoding). Free with lbs_trace_info_free, also
 * after a failure. */
lbs_err lbs_trace_info_get(lbs_trace *t, lbs_trace_info *out);
/* The stored values of metric m (lbs_trace_value_stats, progress told each step of each pass) and
 * its warning. A failure (a damaged chunk) is kept in info->values_error as well as returned. */
lbs_err lbs_trace_info_values(lbs_trace *t, int m, lbs_progress_fn progress, void *arg,
                              lbs_trace_info *info);
/* The description as `trace info --json` prints it (path as given); each metric's values null
 * unless values is set (then every metric's must have been read). NULL when out of memory. */
struct json_t *lbs_trace_info_json(lbs_trace *t, const char *path, const lbs_trace_info *info,
                                   int values);
/* The description as `trace info` prints it: a head (sizes, mesh, source, how a profiled run
 * ended, the application's keys), a line per metric, and the values table when values is set. */
void lbs_trace_info_text(FILE *f, lbs_trace *t, const char *path, const lbs_trace_info *info,
                         int values);
void lbs_trace_info_free(lbs_trace_info *info); /* frees the arrays; leaves the rest */

/* ---------------------------------------------------------------- denoising (denoise.c)
 * Noise that is not the application's: a preempted element's time (a spike of milliseconds
 * against a median of microseconds) is the machine's, and a replay would make one processor
 * carry it. A rule compares each value of a metric with the same element's values at the W
 * nearest sampled steps (centred, shifted inward at the trace's ends, all steps when there are
 * fewer than W), over their finite values:
 *   spike[:W[:F]]  (default 3 and 3) a value above F times that median becomes the median; every
 *                  other value stays as it is
 *   median[:W]     (default 3) every value becomes the median
 * Non-finite values stay. Opt-in (trace recode --denoise), recorded in the trace's metadata. */
#define LBS_DENOISE_MAX_WINDOW 99
#define LBS_DENOISE_MAX_RULES 16
typedef enum { LBS_DENOISE_SPIKE = 1, LBS_DENOISE_MEDIAN = 2 } lbs_denoise_kind;
typedef struct lbs_denoise {
  char metric[64]; /* the metric it applies to (time_ns when not named) */
  lbs_denoise_kind kind;
  int window;      /* W, odd, 3..LBS_DENOISE_MAX_WINDOW */
  double factor;   /* spike: F > 1 */
  int64_t changed; /* set by lbs_trace_recode: the values it changed */
} lbs_denoise;
/* "[METRIC=]spike[:W[:F]]" or "[METRIC=]median[:W]" into *out; LBS_PARSE naming the text. */
lbs_err lbs_denoise_parse(const char *arg, lbs_denoise *out);
/* Its one spelling, "time_ns=spike:3:3", into buf (n bytes); returns buf. */
char *lbs_denoise_format(const lbs_denoise *d, char *buf, size_t n);
/* The window [*lo, *hi] of step s of S. */
void lbs_denoise_window(int window, int64_t s, int64_t S, int64_t *lo, int64_t *hi);
/* Applies d to n elements: win[0..nwin) are the window's steps (their values of the metric),
 * win[self] the step being written; the result into out. Returns how many values changed. */
int64_t lbs_denoise_apply(const lbs_denoise *d, const double *const *win, int nwin, int self,
                          int64_t n, double *out);

/* ---------------------------------------------------------------- recoding (recode.c)
 * A trace written again with other error bounds, codecs or chunk size: the metadata, the mesh
 * and the steps kept. The bound applies to the values read (a lossy input's errors add up). */
/* The codec and bound of every metric of t under enc, over LBS_BOUND_DEFAULT and the default
 * codec: LBS_INVAL "metric 'M': why" for a pair that does not go together, LBS_NOTFOUND for a
 * setting naming no metric of t. The check lbs_trace_recode makes first; a caller with something
 * to do between the check and the new file (replace an old one) calls it before. */
lbs_err lbs_trace_recode_check(lbs_trace *t, const lbs_encoding *enc);
/* Writes t (opened from in_path) again as a new trace at out_path (LBS_IO if it exists) under enc,
 * chunk_elems elements a chunk (0: t's). The metadata is t's less what the writer sets itself
 * (format, schema, sizes, the mesh's), plus recoded_from = in_path; `source`, which lets trace
 * check regenerate the values, stays only when every metric of t is lossless (else it becomes
 * recoded_source, so that a check does not count t's errors too). dn[0..ndn) (may be NULL with
 * ndn 0): denoising rules, each for another metric of t, recorded in the metadata as denoise
 * (after the input's own, if it had one); each one's changed count is set. progress (may be
 * NULL) is told each step. A damaged input stops at the bad chunk, named: *kept (may be NULL) is
 * then the number of steps the new file keeps before it, else -1. */
/* dn[0..ndn) against t's metrics, as lbs_trace_recode checks them first: LBS_NOTFOUND "--denoise:
 * no metric 'X' (metrics: ...)", LBS_INVAL for two rules on one metric, LBS_RANGE for more than
 * LBS_DENOISE_MAX_RULES. */
lbs_err lbs_trace_denoise_check(lbs_trace *t, lbs_denoise *dn, int ndn);
lbs_err lbs_trace_recode(lbs_trace *t, const char *in_path, const lbs_encoding *enc,
                         int64_t chunk_elems, lbs_denoise *dn, int ndn, const char *out_path,
                         lbs_progress_fn progress, void *arg, int64_t *kept);

/* ---------------------------------------------------------------- generators */

/* Synthetic workloads on a structured mesh, deterministic in (recipe, step, cell):
 *  bump    - the seed's MRTD case: a Gaussian pulse crossing the box along x; cells whose
 *            pulse amplitude passes wavelet thresholds are refined and cost more. Metrics
 *            `time_ns` (weight x 250 ns with 1e-4 relative timing jitter) and `weight`
 *            (the application's cell weight, 1, 4 or 8).
 *  hotspot - 4 hot spots moving on circles, 2% Gaussian noise; metric `time_ns`.
 *  random  - independent uniform values in [100, 1100) ns; metric `time_ns`. */
typedef struct lbs_gen lbs_gen;
/* Noise as measured timings have it (time_ns only): x * exp(jitter N(0,1)), rounded to the
 * timer's tick, and `spikes` elements per step slowed by a factor log-uniform in [1e3, 1e4]. */
typedef struct lbs_gen_noise {
  double jitter;  /* log-normal sigma of the per-element factor (0: none) */
  double tick_ns; /* timer resolution in ns (0: none) */
  int spikes;     /* slowed elements per step */
} lbs_gen_noise;
/* The defaults of `--noise default`: 1% jitter, a 1 ns timer, 2 spikes per step. */
#define LBS_GEN_NOISE_JITTER 0.01
#define LBS_GEN_NOISE_TICK 1.0
#define LBS_GEN_NOISE_SPIKES 2
/* Parses "default", "none" or any of "jitter=J,tick=T,spikes=N" (the keys not given: none). */
lbs_err lbs_gen_noise_parse(const char *s, lbs_gen_noise *out);
/* The largest recipe a generator takes (lbs_gen_create refuses more): `trace gen` and a study's
 * gen: traces share these, so that neither generates without end. */
#define LBS_GEN_MAX_STEPS INT64_C(100000000)
#define LBS_GEN_MAX_ELEMENTS (INT64_C(1) << 34)
typedef struct lbs_gen_params {
  const char *kind;    /* "bump", "hotspot", "random" */
  int64_t nx, ny, nz;  /* mesh */
  int64_t steps;       /* number of steps */
  uint64_t seed;       /* random seed */
  lbs_gen_noise noise; /* measurement noise on time_ns (zeros: none) */
} lbs_gen_params;
lbs_err lbs_gen_create(const lbs_gen_params *p, lbs_gen **out);
/* Rebuilds a generator from the recipe string that lbs_gen_recipe() gave. */
lbs_err lbs_gen_from_recipe(const char *recipe, lbs_gen **out);
void lbs_gen_destroy(lbs_gen **g);
const char *lbs_gen_recipe(const lbs_gen *g); /* e.g. "bump 30x20x20 steps=300 seed=1" */
int lbs_gen_nmetrics(const lbs_gen *g);
const char *lbs_gen_metric_name(const lbs_gen *g, int m);
const char *lbs_gen_metric_unit(const lbs_gen *g, int m);
/* Values of metric m at step s for every element; cell maps element -> cell index
 * (NULL: natural order). out has nx*ny*nz entries. */
void lbs_gen_step(const lbs_gen *g, int64_t step, int m, const int64_t *cell, double *out);
/* The application step number of sampled step s. */
int64_t lbs_gen_app_step(const lbs_gen *g, int64_t step);
/* Elements of the generator's mesh (nx x ny x nz). */
int64_t lbs_gen_elements(const lbs_gen *g);

/* How lbs_gen_write_trace lays a generated trace out. */
#define LBS_GEN_MAX_METRICS 2
typedef struct lbs_gen_write_opts {
  lbs_order order;         /* element numbering of the structured mesh */
  double elem_bytes;       /* migration bytes per element (default 1024) */
  double edge_bytes;       /* halo bytes per edge (default 64) */
  int64_t chunk_elems;     /* elements per chunk; 0: LBS_TRACE_DEFAULT_CHUNK */
  const lbs_encoding *enc; /* codec and bound settings over LBS_BOUND_DEFAULT and the default
                              codec; NULL: those defaults */
} lbs_gen_write_opts;
#define LBS_GEN_WRITE_OPTS_DEFAULT ((lbs_gen_write_opts){LBS_ORDER_NATURAL, 1024, 64, 0, NULL})
/* The metric specs of g's trace under enc (NULL: the defaults): ms gets lbs_gen_nmetrics(g)
 * entries, names and units borrowed from g. LBS_INVAL "metric 'M': why" for a codec and bound
 * that do not go together, LBS_NOTFOUND for a setting that names no metric of g. The check
 * lbs_gen_write_trace makes first; a caller with something to do between the check and the new
 * file (replace an old one) calls it before. */
lbs_err lbs_gen_metric_specs(const lbs_gen *g, const lbs_encoding *enc,
                             lbs_metric_spec ms[LBS_GEN_MAX_METRICS]);
/* Writes g's trace to a new file at path (LBS_IO if it exists): every step of every metric as
 * lbs_gen_step gives it, the application's step numbers, the structured mesh in o's order with
 * its bytes, the recipe as metadata `source` (so that lbs_trace_check_source can regenerate it).
 * o NULL: LBS_GEN_WRITE_OPTS_DEFAULT. progress (may be NULL) is told each step; a non-zero return
 * stops with LBS_INVAL, the complete steps kept. What `lbsim trace gen` writes. */
lbs_err lbs_gen_write_trace(const lbs_gen *g, const lbs_gen_write_opts *o, const char *path,
                            lbs_progress_fn progress, void *arg);
/* lbs_gen_write_trace of a new generator of p, with the defaults but for the order. */
lbs_err lbs_gen_write(const lbs_gen_params *p, lbs_order order, const char *path,
                      lbs_progress_fn progress, void *arg);

/* What lbs_trace_check_source measured. */
typedef struct lbs_source_check {
  int checked;            /* 1 when the trace's source is a generator recipe, and it was checked */
  double max_abs_error;   /* largest |stored - source| over every value (NaN when not checked) */
  double max_range_error; /* the same as a fraction of its step's range, max - min of the source */
  double max_sum_error;   /* worst lossy chunk's |sum(stored) - sum(source)| / sum(|source|) */
} lbs_source_check;
/* 1 when the trace's metadata `source` is a recipe of lbs_gen (bump, hotspot, random): a trace
 * lbs_trace_check_source can regenerate. N-body, Chaco, imported and profiled traces are not. */
int lbs_trace_has_gen_source(const lbs_trace *t);
/* Regenerates the trace's recorded source and checks every stored value against it: bit-exact
 * for a lossless metric, within the metric's bound otherwise, and from schema 2 on every lossy
 * chunk's sum within LBS_SUM_TOL of the source's. The first miss is LBS_CORRUPT naming the step,
 * metric and element (or chunk); a recipe with another number of metrics than the trace is
 * LBS_CORRUPT too. Without a generator source: LBS_OK and out->checked = 0, NaN errors. progress
 * (may be NULL) is told each step. What `lbsim trace check` adds to lbs_trace_verify. */
lbs_err lbs_trace_check_source(lbs_trace *t, lbs_progress_fn progress, void *arg,
                               lbs_source_check *out);

/* The seed-003 N-body workload (nbody.c): a Barnes-Hut integration of a Plummer sphere;
 * one element per leaf cell of the initial octree, a directed cell graph whose edge weights
 * are close flags (CWgt = flag x rwgt of the target at each step), and metrics `pwgt`
 * (PWgt = |Cv| x (|Cv| - 1 + Close + Far)), `rwgt` (|Cv|) and `interactions` (the force
 * evaluations the integration made for the cell's bodies), all lossless. Deterministic. */
typedef struct lbs_nbody_params {
  int64_t bodies; /* N >= 2 */
  int64_t steps;  /* recorded steps, one per integration step (step 0: the initial state) */
  uint64_t seed;  /* random seed of the Plummer sample */
  int leaf;       /* bodies per leaf cell at most (8) */
  double theta;   /* opening angle (0.7) */
  double dt;      /* time step in N-body units (1/128) */
} lbs_nbody_params;
/* Integrates and writes the trace at path (LBS_IO if it exists). progress may be NULL; a
 * non-zero return from it stops the run (complete steps stay in the file). */
lbs_err lbs_nbody_trace(const lbs_nbody_params *p, const char *path, lbs_progress_fn progress,
                        void *arg);

/* ---------------------------------------------------------------- import / export */

/* What lbs_chaco_read forgave, as Zoltan's reader forgives it; the caller decides whether
 * to print the warnings. Each kind is reported once. */
#define LBS_CHACO_MAX_WARNINGS 6
typedef struct lbs_chaco_notes {
  int64_t edges;            /* undirected edges read (self loops left out) */
  int64_t self_loops;       /* self loops dropped */
  int64_t self_loop_line;   /* line of the first one */
  int64_t self_loop_vertex; /* its vertex, numbered from 1 */
  int m_both_directions;    /* the header's m counted every edge twice (Zoltan's 7944, drake) */
  int64_t missing_lines;    /* trailing vertices without a line, read as isolated (nograph) */
  int nwarn;                /* warnings below */
  char warning[LBS_CHACO_MAX_WARNINGS][512]; /* "FILE:LINE: ..." each, no newline */
} lbs_chaco_notes;

/* Chaco/METIS graph file (and optional coordinates file, one line per vertex). fmt flags
 * in the header select vertex sizes, vertex weights (ncon of them) and edge weights.
 * Returns the mesh and the vertex weights (n*ncon doubles, owned by the caller; all 1
 * when the file has none). Errors name file and line. Accepts what Zoltan's reader accepts
 * (see chaco.c): '%' and '#' comments, self loops (dropped), a header m that counts both
 * directions, no lines for trailing isolated vertices; notes (may be NULL) says which. */
lbs_err lbs_chaco_read(const char *graph_path, const char *coords_path, lbs_mesh **mesh,
                       double **vwgt, int *ncon, lbs_chaco_notes *notes);
/* The same from memory buffers (coords may be NULL); names are used in messages. */
lbs_err lbs_chaco_parse(const char *gname, const char *gtext, size_t glen, const char *cname,
                        const char *ctext, size_t clen, lbs_mesh **mesh, double **vwgt, int *ncon,
                        lbs_chaco_notes *notes);

/* A Chaco graph as a trace: one step whose metric `weight` (weight0, weight1, ... with ncon > 1;
 * unit "1") holds the vertex weights, losslessly unless enc says otherwise. */
#define LBS_CHACO_MAX_NCON 16
/* The name of the metric of vertex weight k (of ncon) into buf (at least 16 bytes); returns buf. */
char *lbs_chaco_metric_name(int ncon, int k, char *buf);
/* Checks enc against the metrics of a graph with ncon vertex weights: LBS_INVAL "metric 'M':
 * why" for a codec and bound that do not go together, LBS_NOTFOUND for a setting that names no
 * metric. The check lbs_chaco_write_trace makes first; a caller with something to do between the
 * check and the new file (replace an old one, once the input is read) calls it before. */
lbs_err lbs_chaco_check_encoding(int ncon, const lbs_encoding *enc);
/* Writes a graph that lbs_chaco_read gave (mesh, vwgt with ncon weights a vertex) as a new
 * one-step trace at out_path (LBS_IO if it exists), application step 0, chunk_elems elements a
 * chunk (0: the default), the metadata `source` = "chaco GRAPH_PATH". */
lbs_err lbs_chaco_write_trace(const char *graph_path, lbs_mesh *mesh, const double *vwgt, int ncon,
                              const lbs_encoding *enc, int64_t chunk_elems, const char *out_path);
/* lbs_chaco_read, lbs_chaco_check_encoding and lbs_chaco_write_trace in one: what `lbsim trace
 * import --chaco` does. notes (may be NULL) gets what the reader forgave. */
lbs_err lbs_chaco_import(const char *graph_path, const char *coords_path, const lbs_encoding *enc,
                         int64_t chunk_elems, const char *out_path, lbs_chaco_notes *notes);

/* What a Zoltan application wrote with Zoltan_Generate_Files(zz, BASE, ...) (zoltan_files.c):
 * BASE.graph (a Chaco graph whose header may give Zoltan's fifth field, the edge weights a
 * edge; vertices numbered from 1, or from 0 when the file names a vertex 0), BASE.assign (each
 * object's part) and, when present, BASE.coords. Errors name the file and the line; a missing
 * BASE.graph or BASE.assign is LBS_IO naming it. */
typedef struct lbs_zfiles lbs_zfiles;
lbs_err lbs_zfiles_read(const char *base, lbs_zfiles **out);
void lbs_zfiles_destroy(lbs_zfiles **z); /* NULL-safe, clears *z */
/* What was read, valid while z lives: the mesh (graph, first edge weight of each arc,
 * coordinates), the n x ncon vertex weights, the n parts (and the largest + 1), the numbering
 * base of the graph file, and what the graph reader forgave (lbs_chaco_read's notes, plus a
 * warning when the vertices were numbered from 0). */
lbs_mesh *lbs_zfiles_mesh(lbs_zfiles *z);
const double *lbs_zfiles_weights(const lbs_zfiles *z, int *ncon);
const int64_t *lbs_zfiles_parts(const lbs_zfiles *z, int64_t *nparts);
int lbs_zfiles_base_index(const lbs_zfiles *z);
const lbs_chaco_notes *lbs_zfiles_notes(const lbs_zfiles *z);
/* The files as a new one-step trace at out_path (LBS_IO if it exists), application step 0: the
 * metrics of a Chaco import (weight, or weight0.. with several; lossless unless enc says
 * otherwise: lbs_chaco_check_encoding checks enc), the parts as the recorded owners at step 0
 * (`--policy recorded` replays them), the metadata `source` = "zoltan-files BASE". */
lbs_err lbs_zfiles_write_trace(const lbs_zfiles *z, const lbs_encoding *enc, int64_t chunk_elems,
                               const char *out_path);

/* DARMA vt's "LB data" files (vt.c), as vt, LBAF and vt-tv write them: one file a rank
 * (data.<rank>.json), plain JSON or brotli-compressed (told by content: JSON starts with '{').
 * Every task (keyed by its entity's id, else its seq_id and collection or objgroup id) becomes an
 * element, in key order; every phase a step, app step = the phase id, in ascending order (phases
 * the metadata lists as skipped: none; identical_to_previous: the file's previous phase again).
 * Metric time_ns: the task's time x 1e9, rounded to the ns (0 in a phase it is absent from); with
 * subphases, one metric time_ns.sID per subphase id, listed as time_ns's phases (meta
 * phases.time_ns). The node a task ran on is its recorded owner at that phase (a task absent
 * keeps its last one). The task pairs that ever communicate are a symmetric graph whose arcs
 * weigh the bytes the pair exchanged (both directions) at each step (edge_weight = stored@step);
 * communication with a node (not a task) is left out, and counted, unless node elements are asked
 * for (lbs_vt_opts). Coordinates: the tasks' indices, when every task has one. Errors name the
 * file, the phase and the task.
 *
 * Node elements (lbs_vt_opts.node_elements): each rank r that a task's communication names as a
 * node ({"type": "node", "id": r}: CollectionToNode, NodeToCollection, their Bcast forms) is one
 * more element, "node r", after every task (in rank order): no work at any step (meta absent =
 * zero_work), pinned, recorded owner r at every step; the task's bytes with it (both directions
 * summed) the per-step weight of their arc, so the replay charges them between the task's
 * processor and the rank's, and nothing when the task sits there. Node-to-node communication is
 * left out and counted. Meta LBS_VT_META_NODE_ELEMENTS = "FIRST COUNT" (the elements
 * FIRST..FIRST+COUNT-1), LBS_VT_META_NODE_RANKS = their ranks, space-separated, in that order,
 * vt.node_traffic the task-to-node communications read. */
#define LBS_VT_MAX_SUBPHASES 32
#define LBS_VT_MAX_FILES 1048576
typedef struct lbs_vt lbs_vt;
#define LBS_VT_META_NODE_ELEMENTS "vt.node_elements"
#define LBS_VT_META_NODE_RANKS "vt.node_ranks"
typedef struct lbs_vt_opts {
  int node_elements; /* 1: task-to-node traffic as node elements (above); 0: left out, counted */
} lbs_vt_opts;
/* Reads paths[0..n) (one run's files, one a rank): LBS_PARSE for a file that is neither JSON nor
 * brotli, truncated, a phase listed twice, a task without a time or with a negative one, a
 * communication naming an unknown task, files of different runs (the same rank twice, other
 * phases); LBS_IO for a file that cannot be read; LBS_RANGE past the size limit. */
lbs_err lbs_vt_read(const char *const *paths, int n, lbs_vt **out);
/* lbs_vt_read with options (NULL: lbs_vt_read's defaults, node traffic left out). */
lbs_err lbs_vt_read_opts(const char *const *paths, int n, const lbs_vt_opts *o, lbs_vt **out);
void lbs_vt_destroy(lbs_vt **v); /* NULL-safe, clears *v */
typedef struct lbs_vt_summary {
  int files;
  int64_t tasks, pinned, steps, skipped; /* pinned: non-migratable tasks */
  int subphases;
  int64_t pairs, node_comms;   /* communicating pairs (with node elements: task-node ones too);
                                  communications with a node left out */
  int64_t nodes, node_traffic; /* node elements; task-to-node communications they carry */
} lbs_vt_summary;
void lbs_vt_summary_get(const lbs_vt *v, lbs_vt_summary *s);
/* enc against v's metrics (default: LBS_BOUND_DEFAULT, the default codec, measured data):
 * LBS_INVAL or LBS_NOTFOUND with the reason. */
lbs_err lbs_vt_check_encoding(const lbs_vt *v, const lbs_encoding *enc);
/* v as a new trace at out_path (LBS_IO if it exists); meta source = "vt", vt.files, vt.ranks,
 * vt.pinned, vt.skipped_phases, vt.node_comms_left_out. */
lbs_err lbs_vt_write_trace(const lbs_vt *v, const lbs_encoding *enc, int64_t chunk_elems,
                           const char *out_path);
/* The files data.<rank>.json of dir, sorted by rank (LBS_NOTFOUND when none); free with
 * lbs_vt_files_free. */
lbs_err lbs_vt_dir_files(const char *dir, char ***paths, int *n);
void lbs_vt_files_free(char **paths, int n);

/* One-file-per-step directory (format in README.md): writes every step of t into dir. */
lbs_err lbs_stepsdir_export(lbs_trace *t, const char *dir, int64_t first_step, int64_t nsteps);
/* Imports a steps directory into a new trace at out_path; every metric gets codec and bound
 * (its name and unit come from the directory). Values must be finite unless allow_nonfinite is
 * set (see lbs_stepsdir_import_opts). */
typedef struct lbs_import_opts {
  lbs_codec codec;     /* for every metric */
  lbs_bound bound;     /* for every metric */
  int64_t chunk_elems; /* 0: the default */
  int allow_nonfinite; /* 0: a NaN or infinity is an error naming file, line and metric */
  int64_t nonfinite;   /* out: non-finite values imported (with allow_nonfinite) */
} lbs_import_opts;
lbs_err lbs_stepsdir_import(const char *dir, const char *out_path, lbs_import_opts *o);
/* CSV export: DIR/steps.csv (step,app_step,element,<metrics>) and DIR/elements.csv. */
lbs_err lbs_csv_export(lbs_trace *t, const char *dir, int64_t first_step, int64_t nsteps);

#endif
