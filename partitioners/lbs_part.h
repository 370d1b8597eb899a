/* lbs_part.h - partitioners behind one interface, chosen by name ("zoltan:rcb", ...).
 *
 * The simulated processors are the parts: P parts may be far more than the MPI ranks that
 * run the partitioner. Every rank passes the objects (mesh elements) it holds; the result
 * is the new part of each of them. Part sizes are relative target loads (processor speeds),
 * summing to 1. */
#ifndef LBS_PART_H
#define LBS_PART_H

#include <mpi.h>
#include <stdint.h>

#include "lbs_config.h"

typedef struct lbs_part_input {
  MPI_Comm comm;        /* the ranks that hold objects */
  int64_t nlocal;       /* objects on this rank */
  const int64_t *gid;   /* their global ids (element ids) */
  const double *weight; /* their weights (work at the step), >= 0 */
  int dim;              /* coordinate dimensions, 0 if none */
  const double *coords; /* nlocal*dim, or NULL */
  const int64_t *xadj;  /* local CSR over global neighbour ids, or NULL */
  const int64_t *adj;   /* neighbour global ids */
  const double *adjw;   /* edge weights (>= 0) */
  const int64_t
      *rank_first;          /* ranks+1 offsets: rank r holds ids [rank_first[r], rank_first[r+1]) */
  const int *current;       /* current part of each local object */
  int nparts;               /* P */
  const double *part_sizes; /* P relative sizes, summing to 1 */
  int repartition;          /* 1: LB_APPROACH REPARTITION (starts from current), 0: PARTITION */
  /* for grid-aware partitioners (minex); the others ignore them */
  const struct lbs_grid *grid; /* the simulated platform, or NULL */
  const double *rwgt;          /* relocation weight of each object (NULL: 1 each) */
  double bytes_per_edge;       /* bytes per unit of edge weight */
  double bytes_per_rwgt;       /* bytes per unit of relocation weight */
  /* 1: partition the objects where they are, on every rank of comm (the partitioner's
   * distributed path: reproducible at a fixed number of ranks); 0: the same answer on any
   * number of ranks (a parallel method gathers the objects on rank 0) */
  int distributed;
  /* Several weights per object (a multi-constraint load: the phases of a step, each balanced on
   * its own), for a partitioner with LBS_PART_WEIGHTS; the others are never given them
   * (lbs_part_run refuses). wdim 0 or 1: none, `weight` alone. wdim > 1: weights holds
   * nlocal x wdim values, object-major (object i's are weights[i*wdim .. i*wdim+wdim)), each >= 0,
   * and `weight` stays their sum, so what reads `weight` alone is unchanged. At the end of the
   * struct: lbsim fills it, and a plug-in built against LBS_PART_ABI 4 before these fields reads
   * the fields it knows where they were (no ABI change). */
  int wdim;
  const double *weights;
  /* Pinned objects: fixed[i] 1 says object i must stay where it is (current[i], which must then
   * be a valid part), its weight counted there; 0, or fixed NULL: it may move. A partitioner with
   * LBS_PART_FIXED (objlb's) keeps them and lbs_part_run checks that it did; the others are never
   * given any: lbs_part_run hands them the migratable objects alone (renumbered, arcs to pinned
   * ones dropped) with part sizes less the pinned load, and keeps the pinned ones in place.
   * NULL on every rank of comm or on none (a rank without pinned objects gives zeros). At
   * the end of the struct, as wdim and weights (no ABI change): a plug-in built before it never
   * reads it. */
  const unsigned char *fixed;
} lbs_part_input;

typedef struct lbs_partitioner lbs_partitioner;

/* What a partitioner is, beyond its functions (lbs_partitioner_ops.flags): lbsim asks these,
 * never a partitioner's name. Whether its answer depends on where the elements are now is its
 * uses_current op (it may depend on the method). */
enum {
  /* Its argument starts with a script's path ("lua:FILE.lua[:ARGS]"). Its example's path is
   * relative to lbsim's source tree, where the contract test finds it. */
  LBS_PART_SCRIPT = 1u << 0,
  /* It takes several weights per object (lbs_part_input.wdim > 1) and balances each of them;
   * a method of it that cannot balances their sum (`weight`) and says so in its docs and a
   * warning. Without it, lbsim gives it one weight ([sim] phase_constraints refuses it). A flag
   * and not an op, so that LBS_PART_ABI stays 4. */
  LBS_PART_WEIGHTS = 1u << 1,
  /* It keeps pinned objects where they are (lbs_part_input.fixed); without it lbs_part_run
   * partitions the others around them (their load taken from the part sizes). */
  LBS_PART_FIXED = 1u << 2,
};

typedef struct lbs_partitioner_ops {
  int abi;          /* LBS_PART_ABI */
  const char *name; /* prefix before ':' in the user's name, e.g. "zoltan" */
  const char *
      methods; /* accepted arguments after ':' for messages, e.g. "rcb,rib,..."; NULL or "": none */
  /* Parses args (after ':'; "" when the name has none), reads its config section; state owned
   * by the partitioner. */
  lbs_err (*create)(void **state, const char *args, const lbs_config *cfg, MPI_Comm comm);
  int (*needs_graph)(const void *state);
  int (*needs_coords)(const void *state);
  /* Computes newpart[0..nlocal) (each in [0, nparts)). Collective over in->comm. */
  lbs_err (*partition)(void *state, const lbs_part_input *in, int *newpart);
  void (*destroy)(void *state); /* NULL-safe */
  /* 1 when the answer depends on in->current (where the elements are now), not only on the
   * step's work and graph; NULL means 0. The optimal policy refuses such partitioners. */
  int (*uses_current)(const void *state);
  /* The work imbalance the partitioner promises (max over parts of work / target share), e.g.
   * Zoltan's IMBALANCE_TOL or METIS's 1 + ufactor/1000; NULL or 0: none (MinEX minimises time). */
  double (*tolerance)(const void *state);
  /* 1 when it aims at the part sizes it is given; 0 or NULL: at equal parts (METIS without
   * :speed), so its tolerance is checked against equal shares. */
  int (*takes_sizes)(const void *state);
  /* 1 when it can partition the objects where they are (in->distributed); NULL: it cannot, and
   * runs on one rank (METIS, MinEX). */
  int (*distributed)(const void *state);
  /* The modelled partitioning time (lbs_replay's cost model): fixed us per call plus ns per
   * element, fitted to its real calls; NULL: 500 us + 1000 ns per element. */
  void (*cost_model)(const void *state, double *fixed_us, double *per_elem_ns);
  /* The fields below since ABI 4. */
  /* How lists show it ("lua:FILE.lua[:ARGS]"); NULL: "NAME:{METHODS}", or NAME without methods. */
  const char *usage;
  /* A spec the contract test (mpi.part_contract) runs, besides NAME:METHOD for each of its
   * methods; NULL: NAME alone when it has no methods. */
  const char *example;
  unsigned flags; /* LBS_PART_* above; 0: none */
  /* The configuration sections it reads from a grid file, an array ending with kind NULL that
   * lbs_config_* take as it is ([minex] with its keys; [zoltan] with opts NULL: any key passes
   * through); NULL: none. create reads them from cfg, checking its keys
   * (lbs_config_check_only); lbs_part_sections lists every partitioner's for the grid's check
   * and the --help-config listings. */
  const lbs_section_spec *sections;
} lbs_partitioner_ops;
/* 4 since usage, example, flags and sections. lbs_plugin_load takes a plug-in's table built
 * against 3 (the same layout up to cost_model) as a 4 with those fields zero. */
#define LBS_PART_ABI 4

/* Registers a partitioner after the built-in ones (tests add mocks; ops is borrowed, static);
 * LBS_INVAL when its name is taken, its ABI is not LBS_PART_ABI, the registry is full, or one of
 * its sections is a kind a grid file has already (the grid's own, [sim], another partitioner's)
 * or would make more than LBS_PART_MAX_SECTIONS. */
lbs_err lbs_part_register(const lbs_partitioner_ops *ops);
/* The registered partitioners, built-in ones first: how many, and the i-th (NULL out of range). */
int lbs_part_count(void);
const lbs_partitioner_ops *lbs_part_at(int i);
/* The registered partitioner a spec names ("zoltan:rcb" -> zoltan's ops); NULL when none is. */
const lbs_partitioner_ops *lbs_part_find(const char *spec);
/* Every registered partitioner's sections (lbs_partitioner_ops.sections), in registry order,
 * ending with kind NULL: what a grid file may hold for them. Static storage, valid until the
 * next lbs_part_register. */
const lbs_section_spec *lbs_part_sections(void);
#define LBS_PART_MAX_SECTIONS 32 /* sections of all partitioners together */
/* Checks what a grid file (after overrides) gives every registered partitioner, whichever runs:
 * their sections' keys (lbs_config_check_only), no [zoltan] key the Zoltan adapter sets itself
 * (LB_METHOD: the partitioner's name chooses the method), a [minex] latency that exists. The
 * messages name file:line and key, as the partitioner's create would. */
lbs_err lbs_part_check_config(const lbs_config *cfg);
/* Known names for messages, e.g. "zoltan:{rcb,rib,...}". Static storage. */
const char *lbs_part_known(void);

/* Creates a partitioner from its full name ("zoltan:rcb"); LBS_NOTFOUND naming the known
 * ones (and the closest name). cfg may be NULL; the partitioner reads its sections from it
 * (Zoltan's [zoltan] passes parameters through to Zoltan). */
lbs_err lbs_part_create(const char *name, const lbs_config *cfg, MPI_Comm comm,
                        lbs_partitioner **out);
void lbs_part_destroy(lbs_partitioner **p); /* NULL-safe, clears *p */
const char *lbs_part_name(const lbs_partitioner *p);
int lbs_part_needs_graph(const lbs_partitioner *p);
int lbs_part_needs_coords(const lbs_partitioner *p);
int lbs_part_uses_current(const lbs_partitioner *p);
double lbs_part_tolerance(const lbs_partitioner *p); /* 0: it promises none */
int lbs_part_takes_sizes(const lbs_partitioner *p);
int lbs_part_has_distributed(const lbs_partitioner *p); /* it has a distributed path */
int lbs_part_takes_weights(const lbs_partitioner *p);   /* LBS_PART_WEIGHTS */
int lbs_part_keeps_fixed(const lbs_partitioner *p);     /* LBS_PART_FIXED */
void lbs_part_cost_model(const lbs_partitioner *p, double *fixed_us, double *per_elem_ns);

/* The work imbalance of a whole assignment: max over parts p of (work on p) / (sizes[p] x total
 * work), with equal shares when sizes is NULL; 1 is perfect. Parts with a zero target share
 * and work count as infinite. */
double lbs_part_work_imbalance(const int *part, const double *w, int64_t n, const double *sizes,
                               int P);
/* Runs the partitioner after checking the input against what it can do; collective over
 * in->comm. Pinned objects (in->fixed) must have a part; a partitioner without LBS_PART_FIXED
 * partitions the others into part sizes that leave room for the pinned load (needs MPI). */
lbs_err lbs_part_run(lbs_partitioner *p, const lbs_part_input *in, int *newpart);

/* Gm (seed 003): the graph made symmetric (an edge in either direction joins both ways),
 * self loops and out-of-range targets dropped, each pair weighted by the larger of its two
 * directions and at least min_w. w NULL: weight 1. Each row keeps the input's neighbour order
 * (the vertex's own arcs, then the neighbours only the reverse arcs give, by vertex), so a
 * symmetric input comes out as it went in. Allocates *oxadj (n+1), *oadj, *ow. */
lbs_err lbs_part_symmetrize(int64_t n, const int64_t *xadj, const int64_t *adj, const double *w,
                            double min_w, int64_t **oxadj, int64_t **oadj, double **ow);

#endif
