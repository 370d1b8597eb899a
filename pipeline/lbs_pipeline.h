/* lbs_pipeline.h - operational laws for pipelined block-to-processor mappings (seed 000).
 *
 * A pipeline is a set of blocks, each with a measured service demand per job (seconds of one
 * processor of speed 1 per job, as a simple topology measured it), processors, buffers between
 * blocks, and mappings. A mapping places copies of blocks on processors, each copy with a share
 * of the jobs (its visits per job relative to the measured topology: 1/2 for one of two
 * replicas). The seed's model (Wingbermuehle, "Auto-Pipe Laplace solver", sections 3.1-3.3)
 * treats each processor as a queue and applies the operational laws:
 *
 *   demand     D_k = sum over the copies on k of share x demand_s / speed_k     (s per job)
 *   bottleneck the processor with the largest D_k (Dmax); D = sum of the D_k
 *   throughput X = min(1 / Dmax, N / (D + Z))        (jobs/s; N jobs, think time Z)
 *   utilisation U_k = X x D_k                         (utilisation law; <= 1)
 *   response   R = N / X - Z = max(D, N x Dmax - Z)   (response time law; the seed's
 *                                                      "execution time" N x Dmax when Z = 0)
 *
 * Buffers enter no law: the bounds assume a block never waits on a full buffer nor pays to
 * cross one (no blocking, no communication cost), so X is an upper bound that finite
 * buffers and transfers can only lower. docs/pipeline.md describes the file format. */
#ifndef LBS_PIPELINE_H
#define LBS_PIPELINE_H

#include <stdio.h>

#include "lbs_config.h"
#include "lbs_core.h"

struct json_t; /* jansson's (lbs_json.h) */

typedef struct lbs_pipeline lbs_pipeline;

/* One copy of a block in a mapping. */
typedef struct lbs_pipeline_copy {
  int block;    /* index of the block (lbs_pipeline_block_name) */
  int proc;     /* index of the processor it runs on */
  double share; /* its visits per job relative to the measured topology (> 0) */
} lbs_pipeline_copy;

/* What the laws give for one mapping. Arrays have lbs_pipeline_nprocs() entries, one per
 * processor in file order; a processor the mapping does not use has demand 0 and used 0. */
typedef struct lbs_pipeline_law {
  const double *demand_s; /* D_k, seconds per job */
  const double *util;     /* U_k = X x D_k, in [0, 1] */
  const int *used;        /* 1 when some copy runs on processor k */
  int nused;              /* processors used */
  int bottleneck;         /* index of the first processor with the largest demand */
  double dmax_s;          /* Dmax, seconds per job */
  double total_s;         /* D = sum of the D_k, seconds per job */
  double throughput;      /* X = min(1 / Dmax, N / (D + Z)), jobs/s */
  double response_s;      /* R = N / X - Z = max(D, N x Dmax - Z), seconds (all N jobs) */
  double balanced;        /* X if the work were spread in proportion to the speeds of the
                             processors used: sum of their speeds / work, jobs/s (>= X) */
} lbs_pipeline_law;

/* The section kinds and keys of a pipeline file (for lbs_config_check and --help-config);
 * static storage. */
const lbs_section_spec *lbs_pipeline_spec(void);

/* Builds a pipeline from a loaded configuration, checking every section and key and applying
 * the laws to every mapping. *out is owned by the caller (lbs_pipeline_destroy). LBS_PARSE or
 * LBS_RANGE with "FILE:LINE: ..." in lbs_errmsg() for bad input (unknown block or processor,
 * a block left unmapped, bad shares, nothing to bound); LBS_NOMEM. */
lbs_err lbs_pipeline_from_config(const lbs_config *cfg, lbs_pipeline **out);
/* Loads path, applies the overrides "section.key=value" and builds the pipeline. */
lbs_err lbs_pipeline_load(const char *path, const char *const *overrides, int noverrides,
                          lbs_pipeline **out);
void lbs_pipeline_destroy(lbs_pipeline **p); /* NULL-safe, clears *p */

/* The pipeline ([pipeline] name, jobs N, think_s Z). Strings stay valid while p lives. */
const char *lbs_pipeline_name(const lbs_pipeline *p);
long long lbs_pipeline_jobs(const lbs_pipeline *p);
double lbs_pipeline_think_s(const lbs_pipeline *p);

/* Blocks in file order: name and demand per job in seconds (speed 1). */
int lbs_pipeline_nblocks(const lbs_pipeline *p);
const char *lbs_pipeline_block_name(const lbs_pipeline *p, int b);
double lbs_pipeline_block_demand_s(const lbs_pipeline *p, int b);

/* Processors in file order: name and relative speed. */
int lbs_pipeline_nprocs(const lbs_pipeline *p);
const char *lbs_pipeline_proc_name(const lbs_pipeline *p, int k);
double lbs_pipeline_proc_speed(const lbs_pipeline *p, int k);

/* Buffers in file order: the blocks they join and their capacity in jobs (0: unbounded). */
int lbs_pipeline_nbuffers(const lbs_pipeline *p);
void lbs_pipeline_buffer(const lbs_pipeline *p, int i, int *from, int *to, long long *capacity);

/* Mappings in file order: name, copies (valid while p lives) and what the laws give. */
int lbs_pipeline_nmappings(const lbs_pipeline *p);
const char *lbs_pipeline_mapping_name(const lbs_pipeline *p, int m);
const lbs_pipeline_copy *lbs_pipeline_mapping_copies(const lbs_pipeline *p, int m, int *ncopies);
const lbs_pipeline_law *lbs_pipeline_mapping_law(const lbs_pipeline *p, int m);

/* The laws alone, for P processors: demand_s (D_k, s per job, finite, >= 0), used (1 for the
 * processors the mapping uses; their demands must not all be 0), speed (relative speeds, for
 * the balanced bound; NULL: all 1), N jobs (>= 1) and think time Z (finite, >= 0). Fills out,
 * whose demand_s and used point to the caller's arrays and util to util (P entries, written
 * here). LBS_INVAL naming what breaks those rules. */
lbs_err lbs_pipeline_laws(int P, const double *demand_s, const int *used, const double *speed,
                          long long jobs, double think_s, double *util, lbs_pipeline_law *out);

/* ---------------------------------------------------------------- reports (report.c) */

/* The mappings to report: all in file order (list NULL), or those list names (comma-separated)
 * in its order. sel gets lbs_pipeline_nmappings(p) entries at most, *nsel how many. LBS_NOTFOUND
 * "--mappings: no mapping 'X' (known: A B)", "--mappings: too many, at 'X' (...)" or
 * "--mappings: no mapping named"; LBS_NOMEM. */
lbs_err lbs_pipeline_select(const lbs_pipeline *p, const char *list, int *sel, int *nsel);
/* Mapping m's copies on processor k in words to f: "RNG*0.5 Walk*0.5 AVG" (a share of 1 unwritten).
 */
void lbs_pipeline_copies_text(FILE *f, const lbs_pipeline *p, int m, int k);
/* One CSV row (lbs_csv_field's quoting) per selected mapping and processor it uses, after a header
 * line, to f: the processor's speed, demand, utilisation, busy time and copies, the mapping's laws.
 */
void lbs_pipeline_write_csv(FILE *f, const lbs_pipeline *p, const int *sel, int nsel);
/* The report as `lbsim pipeline` prints it: the jobs, blocks and buffers, each selected mapping's
 * processors (demand, utilisation, busy time, copies, the bottleneck), then a line per mapping
 * (processors used, bottleneck, Dmax, throughput X, response time R, the balanced X). */
void lbs_pipeline_write_text(FILE *f, const lbs_pipeline *p, const int *sel, int nsel);
/* The pipeline (blocks, processors, buffers) and the selected mappings' laws as one JSON object;
 * NULL when out of memory. */
struct json_t *lbs_pipeline_json(const lbs_pipeline *p, const int *sel, int nsel);

#endif
