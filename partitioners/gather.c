/* gather.c - running a partitioner on rank 0 with every rank's objects.
 *
 * Parallel partitioners depend on how objects are spread over processes, and serial ones
 * (METIS) run on one; either way lbsim gathers the objects on rank 0 (in rank order, which is
 * global id order), runs the partitioner there and scatters the parts back, so the answer
 * does not depend on the number of ranks. Only the arrays the method reads travel (the several
 * weights of a multi-constraint load only when there are several). */
#include <stdlib.h>

#include "lbs_mpi.h"
#include "part_int.h"

/* Where each rank's objects, arcs and coordinates go on rank 0: counts (n) and displacements
 * (d) in objects (o), arcs (e) and coordinate values (c), and the totals. Rank 0's alone. */
typedef struct layout {
  int *on, *od, *en, *ed, *cn, *cd, *wn, *wd; /* wn, wd: weight values (wdim > 1) */
  int64_t N, NE;
} layout;

/* Rank 0: the layout from every rank's (objects, arcs) counts. */
static void lay_out(const int64_t *cnt, int size, int dim, int wdim, layout *l) {
  l->on = malloc((size_t)size * sizeof *l->on), l->od = malloc((size_t)size * sizeof *l->od);
  l->en = malloc((size_t)size * sizeof *l->en), l->ed = malloc((size_t)size * sizeof *l->ed);
  l->cn = malloc((size_t)size * sizeof *l->cn), l->cd = malloc((size_t)size * sizeof *l->cd);
  l->wn = malloc((size_t)size * sizeof *l->wn), l->wd = malloc((size_t)size * sizeof *l->wd);
  for (int r = 0; r < size; r++) {
    l->wn[r] = wdim ? (int)cnt[2 * r] * wdim : 0, l->wd[r] = wdim ? (int)(l->N * wdim) : 0;
    l->on[r] = (int)cnt[2 * r], l->en[r] = (int)cnt[2 * r + 1], l->cn[r] = dim ? l->on[r] * dim : 0;
    l->od[r] = (int)l->N, l->ed[r] = (int)l->NE, l->cd[r] = dim ? (int)(l->N * dim) : 0;
    l->N += cnt[2 * r], l->NE += cnt[2 * r + 1];
  }
}

/* Every rank's objects on rank 0 (the arrays are rank 0's alone). */
typedef struct gathered {
  int64_t *gid, *deg, *adj, *xadj;
  double *w, *co, *aw, *rw, *ws; /* ws: the several weights (wdim > 1) */
  int *cur, *np;                 /* current parts; the new parts the partitioner gives */
  unsigned char *fx;             /* pinned objects (lbs_part_input.fixed), when any rank has */
} gathered;

/* Rank 0: room for N objects, NE arcs and their coordinates (dim values each, or none). */
static void make_room(gathered *g, int64_t N, int64_t NE, int dim, int wdim) {
  g->gid = malloc((size_t)(N + 1) * sizeof *g->gid),
  g->deg = malloc((size_t)(N + 1) * sizeof *g->deg);
  g->xadj = malloc((size_t)(N + 1) * sizeof *g->xadj),
  g->adj = malloc((size_t)(NE + 1) * sizeof *g->adj);
  g->w = malloc((size_t)(N + 1) * sizeof *g->w), g->rw = malloc((size_t)(N + 1) * sizeof *g->rw);
  g->co = malloc((size_t)((dim ? N * dim : 0) + 1) * sizeof *g->co);
  g->ws = malloc((size_t)((wdim ? N * wdim : 0) + 1) * sizeof *g->ws);
  g->aw = malloc((size_t)(NE + 1) * sizeof *g->aw),
  g->cur = malloc((size_t)(N + 1) * sizeof *g->cur);
  g->np = malloc((size_t)(N + 1) * sizeof *g->np);
  g->fx = malloc((size_t)(N + 1) * sizeof *g->fx);
}

/* Collective: what the method reads, gathered on rank 0 in rank order (ldeg: this rank's
 * degrees, ne its arcs). */
static void gather_all(MPI_Comm comm, const lbs_part_input *in, const layout *l,
                       const int64_t *ldeg, int64_t ne, int want_graph, int want_coords,
                       int want_rwgt, const unsigned char *fixed, gathered *g) {
  MPI_Gatherv(in->gid, (int)in->nlocal, MPI_INT64_T, g->gid, l->on, l->od, MPI_INT64_T, 0, comm);
  if (fixed)
    MPI_Gatherv(fixed, (int)in->nlocal, MPI_UNSIGNED_CHAR, g->fx, l->on, l->od, MPI_UNSIGNED_CHAR,
                0, comm);
  MPI_Gatherv(in->weight, (int)in->nlocal, MPI_DOUBLE, g->w, l->on, l->od, MPI_DOUBLE, 0, comm);
  if (in->wdim > 1) /* every rank has the same wdim: the run's */
    MPI_Gatherv(in->weights, (int)in->nlocal * in->wdim, MPI_DOUBLE, g->ws, l->wn, l->wd,
                MPI_DOUBLE, 0, comm);
  if (want_rwgt)
    MPI_Gatherv(in->rwgt, (int)in->nlocal, MPI_DOUBLE, g->rw, l->on, l->od, MPI_DOUBLE, 0, comm);
  MPI_Gatherv(in->current, (int)in->nlocal, MPI_INT, g->cur, l->on, l->od, MPI_INT, 0, comm);
  MPI_Gatherv(ldeg, (int)in->nlocal, MPI_INT64_T, g->deg, l->on, l->od, MPI_INT64_T, 0, comm);
  if (want_coords)
    MPI_Gatherv(in->coords, (int)(in->nlocal * in->dim), MPI_DOUBLE, g->co, l->cn, l->cd,
                MPI_DOUBLE, 0, comm);
  if (want_graph) {
    MPI_Gatherv(in->adj, (int)ne, MPI_INT64_T, g->adj, l->en, l->ed, MPI_INT64_T, 0, comm);
    MPI_Gatherv(in->adjw, (int)ne, MPI_DOUBLE, g->aw, l->en, l->ed, MPI_DOUBLE, 0, comm);
  }
}

/* Rank 0: the partitioner on every object (one process, MPI_COMM_SELF) into g->np. */
static lbs_err run_all(const lbs_part_input *in, gathered *g, int64_t N, int want_graph,
                       int want_coords, int want_rwgt, int want_fixed, lbs__part_fn fn,
                       void *state) {
  g->xadj[0] = 0;
  for (int64_t i = 0; i < N; i++) g->xadj[i + 1] = g->xadj[i] + g->deg[i];
  int64_t rf[2] = {0, N};
  lbs_part_input all = {.comm = MPI_COMM_SELF,
                        .nlocal = N,
                        .gid = g->gid,
                        .weight = g->w,
                        .dim = want_coords ? in->dim : 0,
                        .coords = want_coords ? g->co : NULL,
                        .xadj = want_graph ? g->xadj : NULL,
                        .adj = g->adj,
                        .adjw = g->aw,
                        .rank_first = rf,
                        .current = g->cur,
                        .nparts = in->nparts,
                        .part_sizes = in->part_sizes,
                        .repartition = in->repartition,
                        .grid = in->grid,
                        .rwgt = want_rwgt ? g->rw : NULL,
                        .bytes_per_edge = in->bytes_per_edge,
                        .bytes_per_rwgt = in->bytes_per_rwgt,
                        .wdim = in->wdim > 1 ? in->wdim : 0,
                        .weights = in->wdim > 1 ? g->ws : NULL,
                        .fixed = want_fixed ? g->fx : NULL};
  return fn(state, &all, g->np);
}

lbs_err lbs__part_on_rank0(MPI_Comm comm, const lbs_part_input *in, int graph, int coords,
                           lbs__part_fn fn, void *state, int *newpart) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  /* only what the method reads: coordinates for geometric methods, the graph for graph ones */
  int want_graph = graph && in->xadj, want_coords = coords && in->coords && in->dim;
  int64_t ne = want_graph ? in->xadj[in->nlocal] : 0, mine[2] = {in->nlocal, ne};
  int want[2] = {in->rwgt != NULL, in->fixed != NULL}; /* relocation weights, pinned objects */
  MPI_Allreduce(MPI_IN_PLACE, want, 2, MPI_INT, MPI_MAX, comm);
  int want_rwgt = want[0], want_fixed = want[1];
  /* a rank without pinned objects, where another has some, sends zeros */
  unsigned char *nofix = want_fixed && !in->fixed ? calloc((size_t)in->nlocal + 1, 1) : NULL;
  const unsigned char *fixed = in->fixed ? in->fixed : nofix;
  int64_t *cnt = rank == 0 ? malloc((size_t)size * 2 * sizeof *cnt) : NULL;
  MPI_Gather(mine, 2, MPI_INT64_T, cnt, 2, MPI_INT64_T, 0, comm);
  layout l = {0};
  gathered g = {0};
  int wdim = in->wdim > 1 ? in->wdim : 0;
  if (rank == 0) lay_out(cnt, size, want_coords ? in->dim : 0, wdim, &l);
  int64_t *ldeg = malloc((size_t)(in->nlocal + 1) * sizeof *ldeg);
  if (rank == 0) make_room(&g, l.N, l.NE, want_coords ? in->dim : 0, wdim);
  for (int64_t i = 0; i < in->nlocal; i++) ldeg[i] = want_graph ? in->xadj[i + 1] - in->xadj[i] : 0;
  gather_all(comm, in, &l, ldeg, ne, want_graph, want_coords, want_rwgt, fixed, &g);
  lbs_err e = rank == 0
                  ? run_all(in, &g, l.N, want_graph, want_coords, want_rwgt, want_fixed, fn, state)
                  : LBS_OK;
  e = lbs_mpi_agree(comm, e); /* rank 0's failure, and its message, on every rank */
  MPI_Scatterv(g.np, l.on, l.od, MPI_INT, newpart, (int)in->nlocal, MPI_INT, 0, comm);
  free(cnt), free(l.on), free(l.od), free(l.en), free(l.ed), free(l.cn), free(l.cd), free(l.wn),
      free(l.wd), free(g.gid), free(g.deg), free(g.ws), free(g.fx), free(nofix);
  free(g.adj), free(g.xadj), free(ldeg), free(g.w), free(g.rw), free(g.co), free(g.aw), free(g.cur),
      free(g.np);
  return e;
}
