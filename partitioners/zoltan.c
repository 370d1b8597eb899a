/* zoltan.c - Zoltan through its C API: zoltan:rcb|rib|hsfc|block|random|phg|graph.
 *
 * Called "in the same way as a real parallel application does" (seed 002, 3.2): query
 * functions over the objects each MPI rank holds, Zoltan_LB_Partition, free the lists.
 * NUM_GLOBAL_PARTS is the number of simulated processors; part sizes follow their speeds
 * and are reset before every call (Zoltan accumulates them otherwise); weights are used
 * because OBJ_WEIGHT_DIM is set; RETURN_LISTS=PARTS gives every local object's part, so an
 * export "to its own rank" needs no special case. Parameters in a [zoltan] section are
 * passed through (IMBALANCE_TOL, RCB_REUSE, PHG_REPART_MULTIPLIER, ...), except those this
 * adapter sets itself (lbs__zoltan_check: the method, the weight and id sizes...). phg builds its
 * hypergraph from the mesh graph; graph runs Scotch through Zoltan.
 *
 * Same answer on any number of ranks (the default, partition_mode rank0): Zoltan's parallel
 * algorithms depend on how the objects are spread over the processes (tie-breaking, the order
 * of weight sums, and how RCB splits an uneven number of parts over them: measured in
 * tests/sim/mpi_policies.c), so every rank sends its objects to rank 0, which runs Zoltan on a
 * one-rank communicator and sends the parts back. The distributed path (in->distributed) runs
 * Zoltan's parallel method on every rank's own objects, with a second Zoltan structure over
 * all ranks: O(E/R) memory per rank, the same answer for a fixed number of ranks. Scotch seeds its
 * generator per process in Debian's build and runs threads whose interleaving changes its answer,
 * so it is reseeded before every graph call and runs one thread (SCOTCH_PTHREAD_NUMBER=1 unless the
 * user set it).
 *
 * Several weights per object (a multi-constraint load, lbs_part_input.wdim > 1) go to rcb alone,
 * as OBJ_WEIGHT_DIM = wdim with a part size per weight: Zoltan's multicriteria RCB balances each
 * ([zoltan] RCB_MULTICRITERIA_NORM chooses how, 1 by default). Zoltan's other methods take one
 * weight (RIB and HSFC read the first of several, BLOCK and RANDOM balance none, Scotch has no
 * constraints, and PHG's multi-weight balance is not one lbsim has checked): given several, they
 * get their sum, as without them, and rank 0 warns once, rather than balance the first phase
 * alone and call it the load. */
#include <math.h>
#include <scotch/scotch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zoltan.h>

#include "lbs_mpi.h"
#include "part_int.h"

/* fixed_us, per_elem_ns: the cost model's defaults, fitted to the real calls' wall time on the
 * 2-core EPYC VM, one rank, 12,000 and 96,000-element bump traces, 10 calls each
 * (bench/RESULTS.md, "Partitioning cost model defaults"). */
static const struct {
  const char *arg, *method;
  int graph, coords, multi; /* multi: it balances several weights per object */
  double fixed_us, per_elem_ns;
} methods[] = {{"rcb", "RCB", 0, 1, 1, 600, 100},      {"rib", "RIB", 0, 1, 0, 500, 120},
               {"hsfc", "HSFC", 0, 1, 0, 150, 170},    {"block", "BLOCK", 0, 0, 0, 70, 30},
               {"random", "RANDOM", 0, 0, 0, 140, 30}, {"phg", "HYPERGRAPH", 1, 0, 0, 17000, 15000},
               {"graph", "GRAPH", 1, 0, 0, 500, 5500}, {NULL, NULL, 0, 0, 0, 0, 0}};

typedef struct {
  struct Zoltan_Struct *zz;  /* over rank 0 alone; NULL on the other ranks */
  struct Zoltan_Struct *zzp; /* over every rank (the distributed path), NULL on one rank */
  int m;                     /* index into methods */
  double tol;                /* IMBALANCE_TOL as set (block and random promise none) */
  MPI_Comm comm, solo;       /* all ranks; rank 0 alone (gathering methods) */
  int said_sum;              /* the warning that a method of one weight gets their sum, given */
} zstate;

static int initialized;

/* [zoltan]: Zoltan's parameters by name, passed through as they are (Zoltan refuses a bad one),
 * but for those the adapter sets (owned, below). */
static const lbs_section_spec sections[] = {
    {"zoltan", 0, 0, NULL, "parameters passed to Zoltan as they are (IMBALANCE_TOL = 1.05, ...)"},
    {NULL, 0, 0, NULL, NULL}};

/* Zoltan's own random generator (zz_rand.h, not installed): PHG's coarsening and RANDOM draw
 * from one process-wide state, so without a reset a partition depends on what ran before it. */
void Zoltan_Srand(unsigned int seed, unsigned int *state);
#define LBS_ZOLTAN_SEED 123456789u /* ZOLTAN_RAND_INIT: a fresh process's state */

/* The parameters this adapter sets itself, which [zoltan] may not: the run would be recorded
 * under a method it did not run (LB_METHOD), or Zoltan would read the query functions' arrays
 * at another size than they are written (OBJ_WEIGHT_DIM = 3 reads two weights per object that
 * were never written), or the value would be replaced at each call without a word. */
static const struct {
  const char *key, *why;
} owned[] = {
    {"LB_METHOD", "the method is the partitioner's name: choose it there (zoltan:hsfc, zoltan:phg, "
                  "...), not in [zoltan]"},
    {"HYPERGRAPH_PACKAGE", "the method is the partitioner's name: choose it there (zoltan:phg, "
                           "zoltan:graph, ...), not in [zoltan]"},
    {"GRAPH_PACKAGE", "the method is the partitioner's name: choose it there (zoltan:graph, "
                      "zoltan:phg, ...), not in [zoltan]"},
    {"LB_APPROACH", "lbsim sets it at every call (PARTITION first, REPARTITION after)"},
    {"OBJ_WEIGHT_DIM", "lbsim gives one weight per element (the trace's metric), or one per "
                       "phase with [sim] phase_constraints = yes"},
    {"EDGE_WEIGHT_DIM", "lbsim gives one weight per edge, to the graph methods only"},
    {"NUM_GID_ENTRIES", "lbsim's element ids are one integer"},
    {"NUM_LID_ENTRIES", "lbsim's element ids are one integer"},
    {"NUM_GLOBAL_PARTS", "the parts are the grid's processors"},
    {"NUM_LOCAL_PARTS", "the parts are the grid's processors"},
    {"RETURN_LISTS", "lbsim reads every element's part (PARTS)"},
    {"KEEP_CUTS", "lbsim sets it (0)"},
    {"DEBUG_LEVEL", "Zoltan would print into lbsim's output"},
    {NULL, NULL}};

lbs_err lbs__zoltan_check(const lbs_config *cfg) {
  const char *k, *v;
  for (int i = 0; cfg && lbs_config_entry(cfg, sections[0].kind, "", i, &k, &v); i++)
    for (int j = 0; owned[j].key; j++)
      if (!strcasecmp(k, owned[j].key)) /* Zoltan's names are case-insensitive */
        return lbs_fail(LBS_INVAL, "%s: [zoltan] %s is set by lbsim: %s",
                        lbs_config_where(cfg, sections[0].kind, "", k), k, owned[j].why);
  return LBS_OK;
}

static lbs_err set(struct Zoltan_Struct *zz, const char *k, const char *v) {
  if (Zoltan_Set_Param(zz, k, v) != ZOLTAN_OK)
    return lbs_fail(LBS_INVAL, "zoltan: parameter %s = %s was rejected", k, v);
  return LBS_OK;
}

static void destroy(void *state) {
  zstate *z = state;
  if (!z) return;
  if (z->zz) Zoltan_Destroy(&z->zz);
  if (z->zzp) Zoltan_Destroy(&z->zzp);
  if (z->solo != MPI_COMM_NULL) MPI_Comm_free(&z->solo);
  free(z);
}

/* Sets lbsim's fixed parameters and the [zoltan] section's on zz; *tol gets IMBALANCE_TOL. */
static lbs_err configure(struct Zoltan_Struct *zz, int m, const lbs_config *cfg, double *tol) {
  lbs_err e = LBS_OK;
  const char *fixed[][2] = {
      {"DEBUG_LEVEL", "0"},      {"LB_METHOD", methods[m].method},
      {"NUM_GID_ENTRIES", "1"},  {"NUM_LID_ENTRIES", "1"},
      {"OBJ_WEIGHT_DIM", "1"},   {"EDGE_WEIGHT_DIM", methods[m].graph ? "1" : "0"},
      {"RETURN_LISTS", "PARTS"}, {"KEEP_CUTS", "0"},
      {"IMBALANCE_TOL", "1.1"}};
  for (size_t i = 0; !e && i < sizeof fixed / sizeof *fixed; i++)
    e = set(zz, fixed[i][0], fixed[i][1]);
  if (!e && !strcmp(methods[m].arg, "phg")) e = set(zz, "HYPERGRAPH_PACKAGE", "PHG");
  if (!e && !strcmp(methods[m].arg, "graph")) e = set(zz, "GRAPH_PACKAGE", "SCOTCH");
  const char *k, *v;
  *tol = 1.1;
  for (int i = 0; !e && cfg && lbs_config_entry(cfg, sections[0].kind, "", i, &k, &v); i++) {
    if (Zoltan_Set_Param(zz, k, v) != ZOLTAN_OK) /* where it was given */
      e = lbs_fail(LBS_INVAL, "%s: [zoltan] %s = %s was rejected by Zoltan",
                   lbs_config_where(cfg, sections[0].kind, "", k), k, v);
    if (!strcasecmp(k, "IMBALANCE_TOL")) *tol = atof(v);
  }
  return e;
}

static lbs_err create(void **state, const char *args, const lbs_config *cfg, MPI_Comm comm) {
  int m = -1;
  for (int i = 0; methods[i].arg; i++)
    if (!strcmp(args, methods[i].arg)) m = i;
  if (m < 0)
    return lbs_fail(LBS_NOTFOUND,
                    "unknown Zoltan method '%s' (known: zoltan:rcb, zoltan:rib, zoltan:hsfc, "
                    "zoltan:block, zoltan:random, zoltan:phg, zoltan:graph)",
                    args);
  lbs_err e = lbs__zoltan_check(cfg); /* every rank reads the same cfg: fails alike */
  if (e) return e;
  if (!strcmp(args, "graph")) setenv("SCOTCH_PTHREAD_NUMBER", "1", 0);
  if (!initialized) {
    float ver;
    char *argv0[] = {(char *)"lbsim", NULL};
    if (Zoltan_Initialize(1, argv0, &ver) != ZOLTAN_OK)
      return lbs_fail(LBS_INVAL, "Zoltan_Initialize failed");
    initialized = 1;
  }
  zstate *z = calloc(1, sizeof *z);
  if (!z) return lbs_fail(LBS_NOMEM, "zoltan");
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  z->comm = comm;
  z->m = m;
  MPI_Comm_split(comm, rank == 0 ? 0 : MPI_UNDEFINED, 0, &z->solo);
  if (z->solo != MPI_COMM_NULL && !(z->zz = Zoltan_Create(z->solo)))
    e = lbs_fail(LBS_NOMEM, "Zoltan_Create failed");
  if (size > 1 && !(z->zzp = Zoltan_Create(comm)) && !e)
    e = lbs_fail(LBS_NOMEM, "Zoltan_Create failed");
  double tol = 1.1;
  if (!e && z->zz) e = configure(z->zz, m, cfg, &tol);
  if (!e && z->zzp) e = configure(z->zzp, m, cfg, &tol);
  z->tol = !strcmp(args, "block") || !strcmp(args, "random") ? 0 : tol;
  /* a parameter rejected on rank 0 fails everywhere, with its message */
  e = lbs_mpi_agree(comm, e);
  if (e) {
    destroy(z);
    return e;
  }
  *state = z;
  return LBS_OK;
}

static int needs_graph(const void *s) { return methods[((const zstate *)s)->m].graph; }
static double tolerance(const void *s) { return ((const zstate *)s)->tol; }
static int takes_sizes(const void *s) { return (void)s, 1; }
static int needs_coords(const void *s) { return methods[((const zstate *)s)->m].coords; }
static int distributed(const void *s) { return (void)s, 1; } /* every method runs in parallel */
static void cost_model(const void *s, double *fixed_us, double *per_elem_ns) {
  *fixed_us = methods[((const zstate *)s)->m].fixed_us;
  *per_elem_ns = methods[((const zstate *)s)->m].per_elem_ns;
}

/* ---------------------------------------------------------------- query functions */

static int q_num_obj(void *d, int *ierr) {
  *ierr = ZOLTAN_OK;
  return (int)((const lbs_part_input *)d)->nlocal;
}

/* wdim: OBJ_WEIGHT_DIM as run_zoltan set it: in->wdim where the method balances several weights,
 * else 1 (the sum, in->weight) */
static void q_obj_list(void *d, int ng, int nl, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wdim,
                       float *w, int *ierr) {
  const lbs_part_input *in = d;
  (void)ng, (void)nl;
  for (int64_t i = 0; i < in->nlocal; i++) {
    gids[i] = (ZOLTAN_ID_TYPE)in->gid[i];
    lids[i] = (ZOLTAN_ID_TYPE)i;
    if (wdim > 1)
      for (int k = 0; k < wdim; k++) w[i * wdim + k] = (float)in->weights[i * wdim + k];
    else if (wdim)
      w[i] = (float)in->weight[i];
  }
  *ierr = ZOLTAN_OK;
}

static int q_num_geom(void *d, int *ierr) {
  *ierr = ZOLTAN_OK;
  return ((const lbs_part_input *)d)->dim;
}

static void q_geom_multi(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                         int dim, double *geom, int *ierr) {
  const lbs_part_input *in = d;
  (void)ng, (void)nl, (void)gids;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < dim; k++) geom[i * dim + k] = in->coords[(int64_t)lids[i] * in->dim + k];
  *ierr = ZOLTAN_OK;
}

static void q_num_edges_multi(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids,
                              ZOLTAN_ID_PTR lids, int *ne, int *ierr) {
  const lbs_part_input *in = d;
  (void)ng, (void)nl, (void)gids;
  for (int i = 0; i < n; i++) ne[i] = (int)(in->xadj[lids[i] + 1] - in->xadj[lids[i]]);
  *ierr = ZOLTAN_OK;
}

static int owner(const lbs_part_input *in, int64_t g) {
  int lo = 0, hi;
  MPI_Comm_size(in->comm, &hi);
  while (hi - lo > 1) { /* rank_first is sorted */
    int mid = (lo + hi) / 2;
    if (in->rank_first[mid] <= g)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

static void q_edge_list_multi(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids,
                              ZOLTAN_ID_PTR lids, int *ne, ZOLTAN_ID_PTR nbor, int *nproc, int wdim,
                              float *ew, int *ierr) {
  const lbs_part_input *in = d;
  (void)ng, (void)nl, (void)gids, (void)ne;
  int64_t k = 0;
  for (int i = 0; i < n; i++)
    for (int64_t j = in->xadj[lids[i]]; j < in->xadj[lids[i] + 1]; j++, k++) {
      nbor[k] = (ZOLTAN_ID_TYPE)in->adj[j];
      nproc[k] = owner(in, in->adj[j]);
      if (wdim) ew[k] = (float)in->adjw[j];
    }
  *ierr = ZOLTAN_OK;
}

static void q_part_multi(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                         int *parts, int *ierr) {
  const lbs_part_input *in = d;
  (void)ng, (void)nl, (void)gids;
  for (int i = 0; i < n; i++) parts[i] = in->current[lids[i]];
  *ierr = ZOLTAN_OK;
}

/* ---------------------------------------------------------------- partition */

static lbs_err run_zoltan(zstate *z, struct Zoltan_Struct *zz, const lbs_part_input *in,
                          int *newpart) {
  int rank;
  MPI_Comm_rank(in->comm, &rank);
  if (in->rank_first[0] != 0 || in->nlocal > (int64_t)1 << 31)
    return lbs_fail(LBS_INVAL, "zoltan: bad object distribution");
  int wdim = in->wdim > 1 ? in->wdim : 1;
  if (wdim > 1 && !methods[z->m].multi) { /* the sum, said once per partitioner */
    if (!z->said_sum && rank == 0)
      lbs_log(LBS_LOG_WARN,
              "zoltan:%s balances one weight per element: it gets the sum of the %d it was given "
              "(of Zoltan's methods rcb balances each; metis does too)",
              methods[z->m].arg, wdim);
    z->said_sum = 1;
    wdim = 1;
  }
  char buf[32], wbuf[32];
  snprintf(buf, sizeof buf, "%d", in->nparts);
  snprintf(wbuf, sizeof wbuf, "%d", wdim);
  lbs_err e = set(zz, "NUM_GLOBAL_PARTS", buf);
  if (!e) e = set(zz, "LB_APPROACH", in->repartition ? "REPARTITION" : "PARTITION");
  if (!e) e = set(zz, "OBJ_WEIGHT_DIM", wbuf); /* per call: a run's first may have one weight */
  if (e) return e;
  /* part sizes accumulate across calls unless reset; rank 0 gives them all, the same share for
   * each weight */
  Zoltan_LB_Set_Part_Sizes(zz, 1, -1, NULL, NULL, NULL);
  int P = in->nparts, PW = P * wdim, *ids = malloc((size_t)PW * sizeof *ids),
      *widx = calloc((size_t)PW, sizeof *widx);
  float *sz = malloc((size_t)PW * sizeof *sz);
  if (!ids || !widx || !sz) {
    free(ids), free(widx), free(sz);
    return lbs_fail(LBS_NOMEM, "part sizes");
  }
  for (int p = 0; p < P; p++)
    for (int k = 0; k < wdim; k++) {
      ids[p * wdim + k] = p;
      widx[p * wdim + k] = k;
      sz[p * wdim + k] = (float)in->part_sizes[p];
    }
  int rc = Zoltan_LB_Set_Part_Sizes(zz, 1, rank == 0 ? PW : 0, ids, widx, sz);
  free(ids), free(widx), free(sz);
  if (rc != ZOLTAN_OK) return lbs_fail(LBS_INVAL, "zoltan: setting %d part sizes failed", P);
  void *d = (void *)in;
  Zoltan_Set_Num_Obj_Fn(zz, q_num_obj, d);
  Zoltan_Set_Obj_List_Fn(zz, q_obj_list, d);
  Zoltan_Set_Part_Multi_Fn(zz, q_part_multi, d);
  if (methods[z->m].coords) {
    Zoltan_Set_Num_Geom_Fn(zz, q_num_geom, d);
    Zoltan_Set_Geom_Multi_Fn(zz, q_geom_multi, d);
  }
  if (methods[z->m].graph) {
    Zoltan_Set_Num_Edges_Multi_Fn(zz, q_num_edges_multi, d);
    Zoltan_Set_Edge_List_Multi_Fn(zz, q_edge_list_multi, d);
  }
  if (methods[z->m].graph && !strcmp(methods[z->m].arg, "graph")) {
    SCOTCH_randomSeed(1);
    SCOTCH_randomReset();
  }
  Zoltan_Srand(LBS_ZOLTAN_SEED, NULL); /* every call starts where a fresh process does */
  int changes, ngid, nlid, nimp, nexp, *imp_proc, *imp_part, *exp_proc, *exp_part;
  ZOLTAN_ID_PTR imp_g, imp_l, exp_g, exp_l;
  rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &imp_g, &imp_l, &imp_proc, &imp_part,
                           &nexp, &exp_g, &exp_l, &exp_proc, &exp_part);
  if (rc != ZOLTAN_OK)
    return lbs_fail(LBS_INVAL, "zoltan:%s: Zoltan_LB_Partition failed (code %d)", methods[z->m].arg,
                    rc);
  for (int64_t i = 0; i < in->nlocal; i++) newpart[i] = in->current[i];
  for (int k = 0; k < nexp; k++) /* every local object, with its new part */
    if ((int64_t)exp_l[k] < in->nlocal) newpart[exp_l[k]] = exp_part[k];
  Zoltan_LB_Free_Part(&imp_g, &imp_l, &imp_proc, &imp_part);
  Zoltan_LB_Free_Part(&exp_g, &exp_l, &exp_proc, &exp_part);
  return LBS_OK;
}

static lbs_err run_solo(void *state, const lbs_part_input *all, int *newpart) {
  zstate *z = state;
  lbs_part_input in = *all;
  in.comm = z->solo;
  return run_zoltan(z, z->zz, &in, newpart);
}

static lbs_err partition(void *state, const lbs_part_input *in, int *newpart) {
  zstate *z = state;
  int size;
  MPI_Comm_size(z->comm, &size);
  /* on one rank the gathered objects are the objects: no copy */
  if (size == 1) return run_zoltan(z, z->zz, in, newpart);
  if (in->distributed) return run_zoltan(z, z->zzp, in, newpart);
  return lbs__part_on_rank0(z->comm, in, methods[z->m].graph, methods[z->m].coords, run_solo, z,
                            newpart);
}

const lbs_partitioner_ops lbs__part_zoltan = {.abi = LBS_PART_ABI,
                                              .name = "zoltan",
                                              .methods = "rcb,rib,hsfc,block,random,phg,graph",
                                              .create = create,
                                              .needs_graph = needs_graph,
                                              .needs_coords = needs_coords,
                                              .partition = partition,
                                              .destroy = destroy,
                                              .tolerance = tolerance,
                                              .takes_sizes = takes_sizes,
                                              .distributed = distributed,
                                              .cost_model = cost_model,
                                              .flags = LBS_PART_WEIGHTS,
                                              .sections = sections};
