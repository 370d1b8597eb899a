/* MPI test (CTest runs it with mpiexec -n 1 and -n 2): every Zoltan method through the
 * registry on the 3-D bump workload (20x12x10 cells, the pulse mid-mesh), 16 simulated
 * processors, objects spread over the ranks. Checks: every element gets exactly one part
 * in range; the balancing methods meet IMBALANCE_TOL (1.1), with equal part sizes and
 * with speed-proportional ones; graph methods refuse to run without a graph. Prints one
 * assignment hash per method so runs on different rank counts can be compared. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_part.h"
#include "lbs_traces.h"
#include "mpi_check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
  int rank = check_rank;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int64_t NX = 20, NY = 12, NZ = 10, E = NX * NY * NZ;
  const int P = 16;
  lbs_gen_params gp = {"bump", NX, NY, NZ, 300, 1, {0, 0, 0}};
  lbs_gen *g;
  lbs_mesh *mesh;
  if (lbs_gen_create(&gp, &g) || lbs_mesh_create_structured(NX, NY, NZ, LBS_ORDER_NATURAL, &mesh))
    return 2;
  double *w = malloc((size_t)E * sizeof *w);
  lbs_gen_step(g, 150, 1, NULL, w); /* the weight metric: 1, 4, 8 */
  const double *coords;
  int dim;
  const int64_t *xadj, *adj;
  const double *adjw;
  lbs_mesh_coords(mesh, &coords, &dim);
  lbs_mesh_graph(mesh, &xadj, &adj, &adjw);
  int64_t *rf = malloc((size_t)(size + 1) * sizeof *rf);
  for (int r = 0; r <= size; r++) rf[r] = E * r / size;
  int64_t first = rf[rank], n = rf[rank + 1] - first;
  int64_t *gid = malloc((size_t)n * sizeof *gid), *lx = malloc((size_t)(n + 1) * sizeof *lx);
  for (int64_t i = 0; i < n; i++) gid[i] = first + i;
  for (int64_t i = 0; i <= n; i++) lx[i] = xadj[first + i] - xadj[first];
  int *cur = calloc((size_t)n, sizeof *cur), *np = malloc((size_t)n * sizeof *np),
      *all = malloc((size_t)E * sizeof *all);
  int *counts = malloc((size_t)size * sizeof *counts),
      *displs = malloc((size_t)size * sizeof *displs);
  for (int r = 0; r < size; r++) {
    counts[r] = (int)(rf[r + 1] - rf[r]);
    displs[r] = (int)rf[r];
  }
  double eq[16], sp[16], total = 0;
  for (int p = 0; p < P; p++) {
    eq[p] = 1.0 / P;
    sp[p] = (p < 4 ? 3.0 : 1.0) / 24.0; /* 4 processors three times as fast */
  }
  for (int64_t e = 0; e < E; e++) total += w[e];
  lbs_part_input in = {.comm = MPI_COMM_WORLD,
                       .nlocal = n,
                       .gid = gid,
                       .weight = w + first,
                       .dim = dim,
                       .coords = coords + first * dim,
                       .xadj = lx,
                       .adj = adj + xadj[first],
                       .adjw = adjw + xadj[first],
                       .rank_first = rf,
                       .current = cur,
                       .nparts = P,
                       .part_sizes = eq};
  const char *names[] = {"zoltan:rcb", "zoltan:rib", "zoltan:hsfc",  "zoltan:phg",   "zoltan:graph",
                         "metis",      "metis:rb",   "zoltan:block", "zoltan:random"};
  uint64_t first_hash[9][2] = {{0}};
  for (int k = 0; k < 9; k++) {
    int balancing = k < 7;
    for (int sizes = 0; sizes < (balancing ? 2 : 1); sizes++) {
      lbs_partitioner *pt;
      char name[64];
      /* METIS takes speeds as targets only when asked: metis:kway:speed, metis:rb:speed */
      snprintf(name, sizeof name, "%s%s", names[k],
               !strncmp(names[k], "metis", 5) && sizes
                   ? (strchr(names[k], ':') ? ":speed" : ":kway:speed")
                   : "");
      lbs_err e = lbs_part_create(name, NULL, MPI_COMM_WORLD, &pt);
      CHECK(!e, "%s: create: %s", names[k], lbs_errmsg());
      if (e) continue;
      in.part_sizes = sizes ? sp : eq;
      e = lbs_part_run(pt, &in, np);
      CHECK(!e, "%s: run: %s", names[k], lbs_errmsg());
      MPI_Allgatherv(np, (int)n, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
      double load[16] = {0};
      int ok = 1;
      uint64_t h = 1469598103934665603ULL;
      for (int64_t el = 0; el < E; el++) {
        ok &= all[el] >= 0 && all[el] < P;
        if (all[el] >= 0 && all[el] < P) load[all[el]] += w[el];
        h = (h ^ (uint64_t)all[el]) * 1099511628211ULL;
      }
      CHECK(ok, "%s: every element in exactly one part in range", names[k]);
      double worst = 0;
      for (int p = 0; p < P; p++) worst = fmax(worst, load[p] / (in.part_sizes[p] * total));
      if (balancing)
        CHECK(worst <= 1.1 + 1e-9, "%s (%s sizes): imbalance %.4f above tolerance 1.1", names[k],
              sizes ? "speed" : "equal", worst);
      if (rank == 0)
        printf("%-14s %-5s sizes: max load / target %.4f, assignment hash %016llx\n", names[k],
               sizes ? "speed" : "equal", worst, (unsigned long long)h);
      first_hash[k][sizes] = h;
      lbs_part_destroy(&pt);
    }
  }
  /* repeatable in one process: every partitioner again, three times on one instance and once on a
   * fresh one, after all the others ran, gives the partition of its first run */
  for (int k = 0; k < 9; k++) {
    lbs_partitioner *pt;
    in.part_sizes = eq;
    for (int fresh = 0; fresh < 2; fresh++) {
      if (lbs_part_create(names[k], NULL, MPI_COMM_WORLD, &pt)) continue;
      for (int rep = 0; rep < (fresh ? 1 : 3); rep++) {
        lbs_part_run(pt, &in, np);
        MPI_Allgatherv(np, (int)n, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
        uint64_t h = 1469598103934665603ULL;
        for (int64_t el = 0; el < E; el++) h = (h ^ (uint64_t)all[el]) * 1099511628211ULL;
        CHECK(h == first_hash[k][0],
              "%s is not repeatable in one process (%s, run %d): hash %016llx, first %016llx",
              names[k], fresh ? "a fresh instance" : "the same instance", rep + 1,
              (unsigned long long)h, (unsigned long long)first_hash[k][0]);
      }
      lbs_part_destroy(&pt);
    }
  }
  /* METIS on Gm: a directed ring with zero-weight edges is made symmetric with weights >= 1 */
  {
    int64_t dx[9], da[8], dg[8], drf[3] = {0, 0, 8};
    double dw[8], dwt[8], dsz[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
    int dcur[8] = {0}, dnp[8];
    for (int i = 0; i < 8; i++)
      dx[i] = i, da[i] = (i + 1) % 8, dw[i] = i % 2 ? 0 : 2, dwt[i] = 1, dg[i] = i;
    dx[8] = 8;
    drf[1] = rank == 0 ? 8 : 8; /* all on rank 0 */
    int64_t mine = rank == 0 ? 8 : 0;
    lbs_part_input din = {.comm = MPI_COMM_WORLD,
                          .nlocal = mine,
                          .gid = dg,
                          .weight = dwt,
                          .xadj = dx,
                          .adj = da,
                          .adjw = dw,
                          .rank_first = drf,
                          .current = dcur,
                          .nparts = 3,
                          .part_sizes = dsz};
    if (size == 1) drf[1] = 8;
    lbs_partitioner *pm;
    lbs_part_create("metis", NULL, MPI_COMM_WORLD, &pm);
    lbs_err de = lbs_part_run(pm, &din, dnp);
    int dok = !de;
    int cnt3[3] = {0};
    for (int64_t i = 0; dok && i < mine; i++) dok &= dnp[i] >= 0 && dnp[i] < 3, cnt3[dnp[i] % 3]++;
    CHECK(dok && (rank != 0 || (cnt3[0] && cnt3[1] && cnt3[2])),
          "metis on a directed ring with zero weights: %s",
          de ? lbs_errmsg() : "every vertex in a part, three parts used");
    lbs_part_destroy(&pm);
  }
  /* graph methods need the graph */
  lbs_partitioner *pt;
  lbs_part_input nog = in;
  nog.xadj = NULL;
  lbs_part_create("zoltan:phg", NULL, MPI_COMM_WORLD, &pt);
  CHECK(lbs_part_run(pt, &nog, np) == LBS_INVAL && strstr(lbs_errmsg(), "needs the mesh graph"),
        "phg without a graph must say so: %s", lbs_errmsg());
  lbs_part_destroy(&pt);
  CHECK(lbs_part_create("zoltan:xyz", NULL, MPI_COMM_WORLD, &pt) == LBS_NOTFOUND &&
            strstr(lbs_errmsg(), "zoltan:rcb"),
        "unknown method lists the known ones: %s", lbs_errmsg());
  CHECK(lbs_part_create("metis2", NULL, MPI_COMM_WORLD, &pt) == LBS_NOTFOUND &&
            strstr(lbs_errmsg(), "known: zoltan"),
        "unknown partitioner lists the known ones: %s", lbs_errmsg());
  int status = check_finish();
  free(w), free(rf), free(gid), free(lx), free(cur), free(np), free(all), free(counts),
      free(displs);
  lbs_mesh_destroy(&mesh);
  lbs_gen_destroy(&g);
  MPI_Finalize();
  return status;
}
