/* mpi_edge_steps.c - arc weights per step through the profiler (lbsprof_meta "edge_weight" =
 * stored@step, lbsprof_edge_weights), on 2 ranks (1 works too), streaming or, with
 * LBSPROF_COMPACT=deferred in the environment, spooled by the agents and sent after the run.
 *
 * A ring of 12 elements by id with chords (g -> g +- 1, and g -> g + 6 where 3 divides g: the
 * degrees differ), static weights 100 + k. The ranks give weights at some steps and not at
 * others, the same ones again (nothing to store), a bad call after a good one (nothing recorded),
 * twice in a step (the second counts), across an lbsprof_remap; rank 0 replays the same schedule
 * into a model of every arc's weight and compares lbs_trace_edge_weights_slice at each step,
 * and the step whose array is in force (an array only where something changed). Then a box,
 * whose arcs' order is the trace's own. Refused, with their messages: weights in a run that did
 * not declare stored@step, before the mesh, elements without adjacency (on every rank), and at a
 * step: xadj[0] != 0, a decreasing xadj, a wrong degree, a negative, NaN or infinite weight. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbs_traces.h"
#include "lbsprof.h"
#include "mpi_check.h"

#define E 12
#define STEPS 8
#define MAXARCS (3 * E)

static int rank, size;

/* element g's neighbours in the mesh's order; its degree */
static int nbrs(int64_t g, int64_t *nb) {
  int d = 0;
  nb[d++] = (g + 1) % E, nb[d++] = (g + E - 1) % E;
  if (g % 3 == 0) nb[d++] = (g + 6) % E;
  return d;
}

/* who holds element g: before the remap g % size, from step 4 on (g / 3) % size, reversed */
#define REMAP_AT 4
static int owner(int64_t g, int s) {
  return s < REMAP_AT ? (int)(g % size) : size - 1 - (int)((g / 3) % size);
}

/* the weight of element g's arc k in version v (0: the mesh's own) */
static double weight(int64_t g, int k, int v) {
  return v ? 1000.0 * v + 10.0 * (double)g + k : 100.0 + k;
}

/* the version rank r gives at step s, or 0 for none: both at 0 and 1 (the same: nothing new at
 * 1), rank 0 alone at 2, nobody at 3 (rank 0's good call is undone by a bad one), both at 4 after
 * the remap, rank size-1 alone at 5 (the same again) and at 6 (new), nobody at 7 */
static int version(int r, int s) {
  switch (s) {
  case 0:
  case 1: return 1;
  case 2: return r == 0 ? 2 : 0;
  case 4: return 3;
  case 5: return r == size - 1 ? 3 : 0;
  case 6: return r == size - 1 ? 4 : 0;
  default: return 0;
  }
}

/* the step whose array the trace holds in force at step s */
static const int64_t in_force[STEPS] = {0, 0, 2, 2, 4, 4, 6, 6};

/* rank r's elements at step s and their arcs: ids, CSR, weights of version v */
typedef struct {
  int64_t n, gid[E], xadj[E + 1], adj[MAXARCS];
  double w[MAXARCS];
} local;

static void make_local(local *l, int r, int s, int v) {
  l->n = 0, l->xadj[0] = 0;
  for (int64_t g = 0; g < E; g++) {
    if (owner(g, s) != r) continue;
    int64_t i = l->n++, k = l->xadj[i];
    l->gid[i] = g;
    int d = nbrs(g, l->adj + k);
    for (int j = 0; j < d; j++) l->w[k + j] = weight(g, j, v);
    l->xadj[i + 1] = k + d;
  }
}

/* lbsprof_edge_weights must fail with a message holding want */
static void refused(lbsprof *p, const int64_t *xadj, const double *w, const char *want) {
  int rc = lbsprof_edge_weights(p, xadj, w);
  CHECK(rc != 0 && strstr(lbsprof_errmsg(), want), "want '%s': rc %d, '%s'", want, rc,
        lbsprof_errmsg());
}

/* bad inputs at rank 0's step (its first element has degree 3, its second 2) */
static void bad_steps(lbsprof *p, const local *l) {
  if (l->n < 2) return;
  local b = *l;
  b.xadj[0] = 1;
  refused(p, b.xadj, b.w, "rank 0's xadj[0] is 1, not 0");
  b = *l;
  b.xadj[2] = b.xadj[1] - 1;
  refused(p, b.xadj, b.w, "rank 0's xadj decreases at local element 1 (element ");
  b = *l;
  b.xadj[1] = 2; /* element 0 (3 arcs) given 2 */
  refused(p, b.xadj, b.w, "rank 0's element 0 (local 0) has 3 arcs in the mesh, xadj gives it 2");
  b = *l;
  b.w[4] = -1;
  refused(p, b.xadj, b.w, "rank 0's arc 1 of element");
  refused(p, b.xadj, b.w, "weighs -1: arc weights are finite and >= 0");
  b.w[4] = NAN;
  refused(p, b.xadj, b.w, "weighs nan: arc weights are finite and >= 0");
  b.w[4] = INFINITY;
  refused(p, b.xadj, b.w, "weighs inf: arc weights are finite and >= 0");
}

static void run(const lbsprof_opts *o) {
  lbsprof *p;
  CHECK(lbsprof_init(MPI_COMM_WORLD, o, &p) == 0, "init: %s", lbsprof_errmsg());
  CHECK(lbsprof_meta(p, "edge_weight", LBSPROF_EDGE_STEPS) == 0, "meta: %s", lbsprof_errmsg());
  local l;
  make_local(&l, rank, 0, 0);
  CHECK(lbsprof_mesh_weighted(p, l.n, l.gid, 0, NULL, l.xadj, l.adj, l.w) == 0, "mesh: %s",
        lbsprof_errmsg());
  for (int s = 0; s < STEPS; s++) {
    if (s == REMAP_AT) {
      make_local(&l, rank, s, 0);
      CHECK(lbsprof_remap(p, l.n, l.gid) == 0, "remap: %s", lbsprof_errmsg());
    }
    for (int64_t i = 0; i < l.n; i++) lbsprof_elem_begin(p, i), lbsprof_elem_end(p, i);
    int v = version(rank, s);
    if (s == 0) { /* a first call, replaced by the second */
      make_local(&l, rank, s, 9);
      CHECK(lbsprof_edge_weights(p, l.xadj, l.w) == 0, "step 0: %s", lbsprof_errmsg());
      if (rank == 0) bad_steps(p, &l); /* refused: nothing recorded, then the good call */
    }
    if (s == 3 && rank == 0) { /* a good call, then a bad one: nothing recorded at step 3 */
      make_local(&l, rank, s, 5);
      CHECK(lbsprof_edge_weights(p, l.xadj, l.w) == 0, "step 3: %s", lbsprof_errmsg());
      l.w[0] = -2;
      CHECK(lbsprof_edge_weights(p, l.xadj, l.w) != 0, "a negative weight taken");
    }
    if (v) {
      make_local(&l, rank, s, v);
      CHECK(lbsprof_edge_weights(p, l.xadj, l.w) == 0, "step %d: %s", s, lbsprof_errmsg());
    }
    CHECK(lbsprof_step_end(p) == 0, "step_end: %s", lbsprof_errmsg());
  }
  CHECK(lbsprof_finalize(&p) == 0, "finalize: %s", lbsprof_errmsg());
}

/* rank 0: the trace against the model, step by step */
static void check_trace(const char *path) {
  lbs_trace *t;
  CHECK(lbs_trace_open(path, &t) == LBS_OK, "open: %s", lbs_errmsg());
  if (!t) return;
  const char *ew = lbs_trace_meta(t, "edge_weight");
  CHECK(ew && !strcmp(ew, LBS_EDGE_STEPS), "meta edge_weight %s", ew ? ew : "(none)");
  CHECK(!strcmp(LBSPROF_EDGE_STEPS, LBS_EDGE_STEPS),
        "lbsprof.h's stored@step is not lbs_traces.h's");
  CHECK(lbs_trace_steps(t) == STEPS, "%lld steps", (long long)lbs_trace_steps(t));
  const int64_t *xadj, *adj;
  const double *mw;
  CHECK(lbs_mesh_graph(lbs_trace_mesh(t), &xadj, &adj, &mw) == LBS_OK, "graph: %s", lbs_errmsg());
  int64_t nb[3];
  for (int64_t g = 0; g < E; g++) { /* the trace's arcs are the mesh's, in its order */
    int d = nbrs(g, nb);
    CHECK(xadj[g + 1] - xadj[g] == d, "element %lld has %lld arcs", (long long)g,
          (long long)(xadj[g + 1] - xadj[g]));
    for (int k = 0; k < d && xadj[g + 1] - xadj[g] == d; k++)
      CHECK(adj[xadj[g] + k] == nb[k] && mw[xadj[g] + k] == weight(g, k, 0), "arc %d of %lld", k,
            (long long)g);
  }
  int64_t ne = xadj[E];
  double model[MAXARCS], cw[MAXARCS];
  memcpy(model, mw, (size_t)ne * sizeof *model);
  for (int s = 0; s < STEPS; s++) {
    for (int64_t g = 0; g < E; g++) {
      int v = version(owner(g, s), s);
      for (int64_t k = xadj[g]; v && k < xadj[g + 1]; k++)
        model[k] = weight(g, (int)(k - xadj[g]), v);
    }
    int64_t from = -2;
    CHECK(lbs_trace_edge_weights_slice(t, s, 0, ne, cw, &from) == LBS_OK, "step %d: %s", s,
          lbs_errmsg());
    CHECK(from == in_force[s], "step %d: the array of step %lld is in force, not %lld's", s,
          (long long)from, (long long)in_force[s]);
    for (int64_t k = 0; k < ne; k++)
      CHECK(cw[k] == model[k], "step %d: arc %lld weighs %g, not %g", s, (long long)k, cw[k],
            model[k]);
    double part[4];
    CHECK(lbs_trace_edge_weights_slice(t, s, 5, 4, part, &from) == LBS_OK &&
              !memcmp(part, model + 5, sizeof part),
          "step %d: a slice", s);
  }
  lbs_trace_close(&t);
}

/* A 4 x 3 box split along x: each cell's arcs weigh 100 x its id + the target's id, given in the
 * box's own order (-x, +x, -y, +y); the trace's graph must hold them at the same arcs. */
static void box(const lbsprof_opts *o, const char *path) {
  const int64_t dims[3] = {4, 3, 1};
  int64_t lo[3] = {4 * rank / size, 0, 0}, hi[3] = {4 * (rank + 1) / size, 3, 1};
  lbsprof_opts ob = *o;
  ob.trace_path = path;
  lbsprof *p;
  CHECK(lbsprof_init(MPI_COMM_WORLD, &ob, &p) == 0, "init: %s", lbsprof_errmsg());
  CHECK(lbsprof_meta(p, "edge_weight", LBSPROF_EDGE_STEPS) == 0, "meta: %s", lbsprof_errmsg());
  CHECK(lbsprof_mesh_box(p, dims, lo, hi) == 0, "box: %s", lbsprof_errmsg());
  int64_t xadj[13] = {0}, n = 0;
  double w[48];
  for (int64_t y = lo[1]; y < hi[1]; y++)
    for (int64_t x = lo[0]; x < hi[0]; x++, n++) {
      int64_t c = x + 4 * y, k = xadj[n];
      if (x > 0) w[k++] = 100.0 * (double)c + (double)(c - 1);
      if (x < 3) w[k++] = 100.0 * (double)c + (double)(c + 1);
      if (y > 0) w[k++] = 100.0 * (double)c + (double)(c - 4);
      if (y < 2) w[k++] = 100.0 * (double)c + (double)(c + 4);
      xadj[n + 1] = k;
    }
  CHECK(lbsprof_edge_weights(p, xadj, w) == 0, "box weights: %s", lbsprof_errmsg());
  CHECK(lbsprof_step_end(p) == 0, "step_end: %s", lbsprof_errmsg());
  CHECK(lbsprof_finalize(&p) == 0, "finalize: %s", lbsprof_errmsg());
  if (rank) return;
  lbs_trace *t;
  CHECK(lbs_trace_open(path, &t) == LBS_OK, "open: %s", lbs_errmsg());
  if (!t) return;
  const int64_t *gx, *ga;
  const double *gw;
  double cw[48];
  int64_t from;
  CHECK(lbs_mesh_graph(lbs_trace_mesh(t), &gx, &ga, &gw) == LBS_OK, "graph: %s", lbs_errmsg());
  CHECK(lbs_trace_edge_weights_slice(t, 0, 0, gx[12], cw, &from) == LBS_OK && from == 0,
        "box step 0: %s", lbs_errmsg());
  for (int64_t c = 0; c < 12; c++)
    for (int64_t k = gx[c]; k < gx[c + 1]; k++)
      CHECK(cw[k] == 100.0 * (double)c + (double)ga[k], "box arc %lld -> %lld weighs %g",
            (long long)c, (long long)ga[k], cw[k]);
  lbs_trace_close(&t);
}

/* refused before any step: weights without stored@step, before the mesh; a mesh of elements
 * without adjacency under stored@step (on every rank) */
static void bad_runs(const lbsprof_opts *o) {
  lbsprof *p;
  CHECK(lbsprof_init(MPI_COMM_WORLD, o, &p) == 0, "init: %s", lbsprof_errmsg());
  int64_t x[2] = {0, 0};
  double w = 1;
  refused(p, x, &w, "the run did not declare lbsprof_meta(p, \"edge_weight\", \"stored@step\")");
  CHECK(lbsprof_meta(p, "edge_weight", LBSPROF_EDGE_STEPS) == 0, "meta: %s", lbsprof_errmsg());
  refused(p, x, &w, "lbsprof_edge_weights: before the mesh was described");
  local l;
  make_local(&l, rank, 0, 0);
  int rc = lbsprof_mesh_elements(p, l.n, l.gid, 0, NULL, NULL, NULL);
  CHECK(rc != 0 && strstr(lbsprof_errmsg(), "edge_weight = stored@step weighs the mesh's arcs, "
                                            "but the elements have no adjacency"),
        "a mesh without arcs: rc %d, '%s'", rc, lbsprof_errmsg());
  lbsprof_finalize(&p);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check_rank = rank;
  char path[128], bpath[140];
  if (rank == 0) snprintf(path, sizeof path, "/tmp/lbsprof_edge_steps_%d.lbt", (int)getpid());
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(bpath, sizeof bpath, "%s.box", path);
  lbsprof_opts o;
  lbsprof_opts_default(&o);
  o.trace_path = path, o.bound = "lossless", o.metrics = "time_ns";
  bad_runs(&o);
  run(&o);
  if (rank == 0) check_trace(path), unlink(path);
  box(&o, bpath);
  if (rank == 0) unlink(bpath);
  int rc = check_finish();
  MPI_Finalize();
  return rc;
}
