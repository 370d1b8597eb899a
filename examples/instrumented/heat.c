/* heat.c - a tiny instrumented MPI code: an explicit heat step on an N x N grid split in row
 * slabs, where cells inside a hot disc cost ten times more (a refined region). Built against
 * the installed liblbsprof with CMake (CMakeLists.txt) or pkg-config (Makefile).
 * usage: mpiexec -n 2 ./heat trace.lbt [N] [steps] */
#include <lbsprof.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) {
    if (rank == 0) fprintf(stderr, "usage: heat trace.lbt [N] [steps]\n");
    MPI_Finalize();
    return 2;
  }
  int64_t N = argc > 2 ? atoll(argv[2]) : 64, steps = argc > 3 ? atoll(argv[3]) : 10;
  int64_t y0 = N * rank / size, y1 = N * (rank + 1) / size, n = (y1 - y0) * N;
  double *u = calloc((size_t)n, sizeof *u);
  lbsprof_opts o;
  lbsprof_opts_default(&o);
  o.trace_path = argv[1];
  lbsprof *p;
  int64_t g[3] = {N, N, 1}, lo[3] = {0, y0, 0}, hi[3] = {N, y1, 1};
  if (lbsprof_init(MPI_COMM_WORLD, &o, &p) || lbsprof_mesh_box(p, g, lo, hi)) {
    if (rank == 0) fprintf(stderr, "heat: %s\n", lbsprof_errmsg());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int64_t s = 0; s < steps; s++) {
    for (int64_t i = 0; i < n; i++) {
      int64_t x = i % N, y = y0 + i / N;
      double dx = (double)x / N - 0.5, dy = (double)y / N - 0.5;
      int refined = dx * dx + dy * dy < 0.04;
      lbsprof_elem_begin(p, i);
      for (int k = 0; k < (refined ? 2000 : 200); k++) u[i] = 0.999 * u[i] + 1e-6 * k;
      lbsprof_elem_end(p, i);
    }
    lbsprof_step_end(p);
  }
  int rc = lbsprof_finalize(&p);
  if (rank == 0)
    printf("heat: %lld steps of %lld x %lld profiled into %s (%s)\n", (long long)steps,
           (long long)N, (long long)N, argv[1], rc ? "incomplete" : "complete");
  free(u);
  MPI_Finalize();
  return rc;
}
