/* gather.c - running a partitioner on rank 0 with every rank's objects.
 *
 * Parallel partitioners depend on how objects are spread over processes, and serial ones
 * (METIS) run on one; either way lbsim gathers the objects on rank 0 (in rank order, which is
 * global id order), runs the partitioner there and scatters the parts back, so the answer
 * does not depend on the number of ranks. Only the arrays the method reads travel. */
#include <stdlib.h>

#include "lbs_mpi.h"
#include "part_int.h"

lbs_err lbs__part_on_rank0(MPI_Comm comm, const lbs_part_input *in, int graph, int coords, lbs__part_fn fn,
                           void *state, int *newpart) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  /* only what the method reads: coordinates for geometric methods, the graph for graph ones */
  int want_graph = graph && in->xadj, want_coords = coords && in->coords && in->dim;
  int64_t ne = want_graph ? in->xadj[in->nlocal] : 0, mine[2] = {in->nlocal, ne};
  int want_rwgt = in->rwgt != NULL;
  MPI_Allreduce(MPI_IN_PLACE, &want_rwgt, 1, MPI_INT, MPI_MAX, comm);
  int64_t *cnt = rank == 0 ? malloc((size_t)size * 2 * sizeof *cnt) : NULL;
  MPI_Gather(mine, 2, MPI_INT64_T, cnt, 2, MPI_INT64_T, 0, comm);
  int *on = NULL, *od = NULL, *en = NULL, *ed = NULL, *cn = NULL, *cd = NULL;
  int64_t N = 0, NE = 0;
  if (rank == 0) {
    on = malloc((size_t)size * sizeof *on), od = malloc((size_t)size * sizeof *od);
    en = malloc((size_t)size * sizeof *en), ed = malloc((size_t)size * sizeof *ed);
    cn = malloc((size_t)size * sizeof *cn), cd = malloc((size_t)size * sizeof *cd);
    for (int r = 0; r < size; r++) {
      on[r] = (int)cnt[2 * r], en[r] = (int)cnt[2 * r + 1], cn[r] = want_coords ? on[r] * in->dim : 0;
      od[r] = (int)N, ed[r] = (int)NE, cd[r] = want_coords ? (int)(N * in->dim) : 0;
      N += cnt[2 * r], NE += cnt[2 * r + 1];
    }
  }
  int64_t *gid = NULL, *deg = NULL, *adj = NULL, *xadj = NULL, *ldeg = malloc((size_t)(in->nlocal + 1) * sizeof *ldeg);
  double *w = NULL, *co = NULL, *aw = NULL, *rw = NULL;
  int *cur = NULL, *np = NULL;
  if (rank == 0) {
    gid = malloc((size_t)(N + 1) * sizeof *gid), deg = malloc((size_t)(N + 1) * sizeof *deg);
    xadj = malloc((size_t)(N + 1) * sizeof *xadj), adj = malloc((size_t)(NE + 1) * sizeof *adj);
    w = malloc((size_t)(N + 1) * sizeof *w), rw = malloc((size_t)(N + 1) * sizeof *rw);
    co = malloc((size_t)((want_coords ? N * in->dim : 0) + 1) * sizeof *co);
    aw = malloc((size_t)(NE + 1) * sizeof *aw), cur = malloc((size_t)(N + 1) * sizeof *cur);
    np = malloc((size_t)(N + 1) * sizeof *np);
  }
  for (int64_t i = 0; i < in->nlocal; i++) ldeg[i] = want_graph ? in->xadj[i + 1] - in->xadj[i] : 0;
  MPI_Gatherv(in->gid, (int)in->nlocal, MPI_INT64_T, gid, on, od, MPI_INT64_T, 0, comm);
  MPI_Gatherv(in->weight, (int)in->nlocal, MPI_DOUBLE, w, on, od, MPI_DOUBLE, 0, comm);
  if (want_rwgt) MPI_Gatherv(in->rwgt, (int)in->nlocal, MPI_DOUBLE, rw, on, od, MPI_DOUBLE, 0, comm);
  MPI_Gatherv(in->current, (int)in->nlocal, MPI_INT, cur, on, od, MPI_INT, 0, comm);
  MPI_Gatherv(ldeg, (int)in->nlocal, MPI_INT64_T, deg, on, od, MPI_INT64_T, 0, comm);
  if (want_coords)
    MPI_Gatherv(in->coords, (int)(in->nlocal * in->dim), MPI_DOUBLE, co, cn, cd, MPI_DOUBLE, 0, comm);
  if (want_graph) {
    MPI_Gatherv(in->adj, (int)ne, MPI_INT64_T, adj, en, ed, MPI_INT64_T, 0, comm);
    MPI_Gatherv(in->adjw, (int)ne, MPI_DOUBLE, aw, en, ed, MPI_DOUBLE, 0, comm);
  }
  lbs_err e = LBS_OK;
  if (rank == 0) {
    xadj[0] = 0;
    for (int64_t i = 0; i < N; i++) xadj[i + 1] = xadj[i] + deg[i];
    int64_t rf[2] = {0, N};
    lbs_part_input all = {.comm = MPI_COMM_SELF, .nlocal = N, .gid = gid, .weight = w,
                          .dim = want_coords ? in->dim : 0, .coords = want_coords ? co : NULL,
                          .xadj = want_graph ? xadj : NULL, .adj = adj, .adjw = aw, .rank_first = rf, .current = cur,
                          .nparts = in->nparts, .part_sizes = in->part_sizes, .repartition = in->repartition,
                          .grid = in->grid, .rwgt = want_rwgt ? rw : NULL, .bytes_per_edge = in->bytes_per_edge,
                          .bytes_per_rwgt = in->bytes_per_rwgt};
    e = fn(state, &all, np);
  }
  e = lbs_mpi_agree(comm, e); /* rank 0's failure, and its message, on every rank */
  MPI_Scatterv(np, on, od, MPI_INT, newpart, (int)in->nlocal, MPI_INT, 0, comm);
  free(cnt), free(on), free(od), free(en), free(ed), free(cn), free(cd), free(gid), free(deg), free(adj);
  free(xadj), free(ldeg), free(w), free(rw), free(co), free(aw), free(cur), free(np);
  return e;
}

