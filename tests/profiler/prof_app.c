/* prof_app.c - a small instrumented MPI program for the fault and security tests
 * (tests/e2e/profiler_faults.sh, profiler_security.sh):
 *   prof_app TRACE STEPS SLEEP_MS [drop|wait|elements|values|remap [RING_BYTES]]
 * Each step: every element of a 20x20x2 box (split over the ranks) does about 1 us of work,
 * then the rank sleeps SLEEP_MS. Prints "done N" on rank 0 when it finishes. `elements`
 * describes the mesh by ids instead (rank r holds ids r, r+R, r+2R, ... of 800, with
 * coordinates and a ring adjacency i-1, i+1). `values` records no timings, only a value metric
 * `weight` that depends on the element and the step alone, so that two runs give the same
 * trace. `remap` migrates after every 5th step (lbsprof_remap): at the k-th, rank r takes the
 * slab of rank (r + k) mod R, in reverse order when k is odd. After the mesh is described rank 0
 * prints "segments N": the shared-memory names of this run still in /dev/shm (lbsprof_init unlinks
 * them). */
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lbsprof.h"

static volatile double sink;

/* The box's ids of rank r's slab of R (x fastest), reversed when rev, into gid; their count. */
static int64_t slab(int r, int R, int rev, int64_t *gid) {
  int64_t n = 0, x0 = 20 * r / R, x1 = 20 * (r + 1) / R;
  for (int64_t z = 0; z < 2; z++)
    for (int64_t y = 0; y < 20; y++)
      for (int64_t x = x0; x < x1; x++) gid[n++] = x + 20 * (y + 20 * z);
  for (int64_t i = 0; rev && i < n / 2; i++) {
    int64_t t = gid[i];
    gid[i] = gid[n - 1 - i], gid[n - 1 - i] = t;
  }
  return n;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc < 4) {
    fprintf(stderr, "usage: prof_app TRACE STEPS SLEEP_MS [drop [RING_BYTES]]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rank, size, steps = atoi(argv[2]), ms = atoi(argv[3]);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  lbsprof_opts o;
  lbsprof_opts_default(&o);
  if (!strncmp(argv[1], "unix:", 5) || !strncmp(argv[1], "tcp:", 4))
    o.collector = argv[1];
  else
    o.trace_path = argv[1];
  if (argc > 4 && !strcmp(argv[4], "drop")) o.on_full = LBSPROF_DROP;
  if (argc > 5) o.ring_bytes = (size_t)atol(argv[5]);
  int values = argc > 4 && !strcmp(argv[4], "values"), wm = -1;
  if (values) o.metrics = "";
  lbsprof *p;
  if (lbsprof_init(MPI_COMM_WORLD, &o, &p) ||
      (values && (wm = lbsprof_value_metric(p, "weight", "units")) < 0) ||
      lbsprof_meta(p, "name", "prof_app") || lbsprof_meta(p, "bytes_per_elem", "1") ||
      lbsprof_meta(p, "bytes_per_elem", "96") || lbsprof_meta(p, "args", "--a value with spaces")) {
    if (rank == 0) fprintf(stderr, "prof_app: %s\n", lbsprof_errmsg());
    MPI_Finalize();
    return 1;
  }
  int64_t g[3] = {20, 20, 2}, lo[3] = {20 * rank / size, 0, 0},
          hi[3] = {20 * (rank + 1) / size, 20, 2};
  int64_t n = (hi[0] - lo[0]) * 40;
  int by_id = argc > 4 && !strcmp(argv[4], "elements"), bad;
  if (by_id) {
    n = (800 - rank + size - 1) / size;
    int64_t *gid = malloc((size_t)n * sizeof *gid), *xadj = malloc((size_t)(n + 1) * sizeof *xadj);
    int64_t *adj = malloc((size_t)(2 * n) * sizeof *adj);
    double *co = malloc((size_t)(2 * n) * sizeof *co);
    xadj[0] = 0;
    for (int64_t i = 0; i < n; i++) {
      int64_t id = rank + i * size, k = xadj[i];
      gid[i] = id, co[2 * i] = (double)(id % 40), co[2 * i + 1] = (double)(id / 40);
      if (id > 0) adj[k++] = id - 1;
      if (id < 799) adj[k++] = id + 1;
      xadj[i + 1] = k;
    }
    bad = lbsprof_mesh_elements(p, n, gid, 2, co, xadj, adj);
    free(gid), free(xadj), free(adj), free(co);
  } else {
    bad = lbsprof_mesh_box(p, g, lo, hi);
  }
  if (bad) {
    if (rank == 0) fprintf(stderr, "prof_app: %s\n", lbsprof_errmsg());
    MPI_Finalize();
    return 1;
  }
  int pid0 = (int)getpid();
  MPI_Bcast(&pid0, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    char prefix[64];
    int left = 0;
    snprintf(prefix, sizeof prefix, "lbsprof-%d-", pid0);
    DIR *d = opendir("/dev/shm");
    for (struct dirent *de; d && (de = readdir(d));)
      left += !strncmp(de->d_name, prefix, strlen(prefix));
    if (d) closedir(d);
    printf("segments %d\n", left);
    fflush(stdout);
  }
  struct timespec nap = {ms / 1000, (long)(ms % 1000) * 1000000L};
  int remap = argc > 4 && !strcmp(argv[4], "remap");
  int64_t mine[800];
  for (int s = 0; s < steps; s++) {
    for (int64_t i = 0; i < n; i++) {
      lbsprof_elem_begin(p, i);
      for (int k = 0; k < 300; k++) sink += k;
      lbsprof_elem_end(p, i);
      if (values) lbsprof_set_value(p, wm, i, (double)(1 + (rank * 1000 + i * 7 + s) % 13));
    }
    lbsprof_step_end(p);
    if (remap && s % 5 == 4) {
      int k = s / 5 + 1;
      n = slab((rank + k) % size, size, k % 2, mine);
      if (lbsprof_remap(p, n, mine)) {
        if (rank == 0) fprintf(stderr, "prof_app: %s\n", lbsprof_errmsg());
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
    nanosleep(&nap, NULL);
  }
  int rc = lbsprof_finalize(&p);
  if (rank == 0) printf("done %d finalize %d\n", steps, rc);
  MPI_Finalize();
  return 0;
}
