/* lbs_nbody.h - the pieces of the seed-003 N-body workload (nbody.c), shared by the trace
 * generator (`lbsim trace gen --kind nbody`, traces/gen_nbody.c), the real MPI code apps/nbody
 * and the calibration kernel nbody (calibrate/), so that a profiled run, a generated trace and
 * an IPG have the same bodies, cells, graph and weights.
 *
 * Physics: N bodies of mass 1/N from a Plummer model in standard N-body units (G = M = 1),
 * gravity softened by LBS_NB_SOFT, Barnes-Hut on an octree (a node is used whole when its
 * size / distance to the body < theta). Cells: the leaves of the octree built on the initial
 * bodies, kept fixed while the bodies move through them; PWgt, RWgt and the close-cell graph
 * as slides 11-12 define them (see nbody.c). */
#ifndef LBS_NBODY_H
#define LBS_NBODY_H

#include <stdint.h>

#include "lbs_core.h"

#define LBS_NB_SOFT 0.01 /* softening length */

typedef struct lbs_nb_node {
  double c[3], h;     /* centre, half width */
  double m, com[3];   /* mass (in bodies) and centre of mass */
  int32_t child[8];   /* -1: none */
  int64_t first, cnt; /* bodies idx[first .. first+cnt) */
  int32_t leaf;       /* leaf number, -1 for inner nodes */
  int32_t parent;
} lbs_nb_node;

typedef struct lbs_nb_tree {
  lbs_nb_node *nd;
  int64_t nn, cap;
  int64_t *idx; /* bodies in node order */
  int32_t nleaf;
} lbs_nb_tree;

/* The close-cell graph of a fixed tree: per leaf v, its close leaves and its far nodes. */
typedef struct lbs_nb_cells {
  int32_t *leaf_node;  /* leaf -> node */
  int64_t *cx, *close; /* CSR: close leaves of each leaf */
  int64_t *fx;         /* CSR: far nodes of each leaf */
  int32_t *far;
} lbs_nb_cells;

/* n bodies of a Plummer sphere from the counter-based RNG (stream 1 of seed). */
void lbs_nb_plummer(int64_t n, uint64_t seed, double *x, double *v);
/* The octree of n bodies at x (a cube around them, leaves of at most leaf bodies), with masses
 * and centres of mass. Reuses t's memory; start from a zeroed tree. */
lbs_err lbs_nb_build(lbs_nb_tree *t, const double *x, int64_t n, int leaf);
void lbs_nb_tree_free(lbs_nb_tree *t); /* leaves a zeroed tree */
/* The Barnes-Hut acceleration of body i (of n, masses 1/n) into a[3]; returns the number of
 * body-body and body-node interactions. stack: room for t->nn + 1 entries. */
int64_t lbs_nb_accel(const lbs_nb_tree *t, const double *x, int64_t n, double theta, int64_t i,
                     double a[3], int32_t *stack);
/* Per leaf v of t: the nodes far from v (size < theta x (distance of centres - radius of v))
 * and the leaves close to it. */
lbs_err lbs_nb_cell_walk(const lbs_nb_tree *t, double theta, lbs_nb_cells *g);
void lbs_nb_cells_free(lbs_nb_cells *g); /* leaves a zeroed graph */
/* The cell graph (CSR over the L leaves): v -> w with flag 1 when w is close to v, and the
 * reverse arc with flag 0 unless v is close to w too; symmetric as a set of arcs. Allocates
 * *xadj (L+1), *adj and *flag. */
lbs_err lbs_nb_cell_graph(const lbs_nb_cells *g, int32_t L, int64_t **xadj, int64_t **adj,
                          double **flag);
/* The leaf of the fixed tree t that holds position x (a missing octant: the nearest child). */
int32_t lbs_nb_locate(const lbs_nb_tree *t, const double *x);
/* Seed 003's processing weight of every leaf from its body count rw[L]: cnt is scratch for
 * t->nn node counts; pw[L] = |Cv| x (|Cv| - 1 + Close_v + Far_v), 0 for an empty cell. */
void lbs_nb_pwgt(const lbs_nb_tree *t, const lbs_nb_cells *g, const double *rw, double *cnt,
                 double *pw);

#endif
