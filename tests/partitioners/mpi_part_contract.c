/* MPI test (CTest runs it with mpiexec -n 1 and -n 2, and compares the two outputs): the
 * contract every registered partitioner keeps, with a plug-in's (tests/plugins/stripes.c,
 * loaded through lbs_plugin_load) among them. Each partitioner, with each of its methods,
 * partitions Zoltan's grid20x19 Chaco mesh (380 vertices with coordinates) into the 16
 * processors of examples/grids/homogeneous16.ini, objects spread over the ranks: every
 * element gets a part in [0, 16); the same instance run again and a fresh one give the same
 * parts; a nonsense method is refused or taken, never a crash. A partitioner that takes several
 * weights (LBS_PART_WEIGHTS) does all this again given the work as two (a multi-constraint
 * load, their sum the work); one that keeps pinned objects (LBS_PART_FIXED) does it again with
 * every seventh element pinned, and must leave those where they are. One assignment hash per
 * partitioner is printed, so 1 and 2 ranks must agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_grid.h"
#include "lbs_part.h"
#include "lbs_plugin_load.h"
#include "lbs_traces.h"
#include "mpi_check.h"

#define P 16

/* The whole assignment gathered from the ranks, and its FNV-1a hash; 0 with all set when an
 * element is outside [0, P). */
typedef struct {
  MPI_Comm comm;
  int64_t E, n;
  int *counts, *displs, *all;
} gather;

static uint64_t assignment(const gather *g, const int *np, int *in_range) {
  MPI_Allgatherv(np, (int)g->n, MPI_INT, g->all, g->counts, g->displs, MPI_INT, g->comm);
  uint64_t h = 1469598103934665603ULL;
  *in_range = 1;
  for (int64_t e = 0; e < g->E; e++) {
    *in_range &= g->all[e] >= 0 && g->all[e] < P;
    h = (h ^ (uint64_t)g->all[e]) * 1099511628211ULL;
  }
  return h;
}

/* The input with two weights per element, set up by main: the work split in two; and the input
 * with every seventh element pinned (lbs_part_input.fixed), for a partitioner that keeps them. */
static lbs_part_input in2, infx;

/* One spec ("zoltan:rcb", "stripes") through the contract; prints its hash on rank 0. */
static void contract(const char *spec, const lbs_part_input *in, const gather *g, int *np) {
  char label[160];
  snprintf(label, sizeof label, "%s%s", spec,
           in->wdim > 1 ? " (2 weights)"
           : in->fixed  ? " (pinned)"
                        : "");
  lbs_partitioner *pt;
  lbs_err e = lbs_part_create(spec, NULL, MPI_COMM_WORLD, &pt);
  CHECK(!e, "%s: create: %s", label, lbs_errmsg());
  if (e) return;
  uint64_t first = 0;
  for (int run = 0; run < 3; run++) {
    if (run == 2) { /* a fresh instance after the first one's runs */
      lbs_part_destroy(&pt);
      if ((e = lbs_part_create(spec, NULL, MPI_COMM_WORLD, &pt))) break;
    }
    for (int64_t i = 0; i < in->nlocal; i++) np[i] = -1;
    e = lbs_part_run(pt, in, np);
    CHECK(!e, "%s: run %d: %s", label, run + 1, lbs_errmsg());
    if (e) break;
    int ok;
    uint64_t h = assignment(g, np, &ok);
    CHECK(ok, "%s: run %d: every element in a part in [0, %d)", label, run + 1, P);
    int64_t moved = -1; /* the first pinned element that moved, one check a run on any ranks */
    for (int64_t i = 0; in->fixed && moved < 0 && i < in->nlocal; i++)
      if (in->fixed[i] && np[i] != in->current[i]) moved = in->gid[i];
    if (in->fixed)
      CHECK(moved < 0, "%s: run %d: pinned element %lld moved", label, run + 1, (long long)moved);
    if (!run) first = h;
    CHECK(h == first, "%s: run %d gives hash %016llx, the first %016llx", label, run + 1,
          (unsigned long long)h, (unsigned long long)first);
  }
  if (check_rank == 0) printf("%-20s assignment hash %016llx\n", label, (unsigned long long)first);
  lbs_part_destroy(&pt);
}

/* A partitioner's example, a script's path in it taken from the source tree (LBS_PART_SCRIPT:
 * "lua:examples/x.lua" -> "lua:SRC/examples/x.lua"), into spec (n bytes). */
static const char *example_of(const lbs_partitioner_ops *ops, char *spec, size_t n) {
  size_t len = strlen(ops->name);
  if (!(ops->flags & LBS_PART_SCRIPT)) return ops->example;
  CHECK(!strncmp(ops->example, ops->name, len) && ops->example[len] == ':' &&
            ops->example[len + 1] != '/',
        "%s: a script's example is NAME:PATH[:ARGS], the path relative ('%s')", ops->name,
        ops->example);
  snprintf(spec, n, "%.*s:%s/%s", (int)len, ops->example, LBS_SOURCE_DIR, ops->example + len + 1);
  return spec;
}

/* Every method of every registered partitioner, and its example (its name alone when it has
 * neither methods nor an example). */
static int every_partitioner(const lbs_part_input *in, const gather *g, int *np) {
  int stripes = 0;
  for (int i = 0; i < lbs_part_count(); i++) {
    const lbs_partitioner_ops *ops = lbs_part_at(i);
    CHECK(ops->abi == LBS_PART_ABI && lbs_part_at(i) == ops, "%s: ABI %d", ops->name, ops->abi);
    stripes += !strcmp(ops->name, "stripes");
    char spec[128], example[4096];
    const char *m = ops->methods && *ops->methods ? ops->methods : NULL;
    CHECK(!(ops->flags & ~(unsigned)(LBS_PART_SCRIPT | LBS_PART_WEIGHTS | LBS_PART_FIXED)),
          "%s: unknown flags %#x", ops->name, ops->flags);
    CHECK(ops->example || !(ops->flags & LBS_PART_SCRIPT),
          "%s: a script's partitioner without an example", ops->name);
    if (ops->example)
      contract(example_of(ops, example, sizeof example), in, g, np);
    else if (!m)
      contract(ops->name, in, g, np);
    while (m && *m) { /* methods are comma-separated; one may hold ':' ("kway:speed") */
      size_t len = strcspn(m, ",");
      snprintf(spec, sizeof spec, "%s:%.*s", ops->name, (int)len, m);
      contract(spec, in, g, np);
      if (ops->flags & LBS_PART_WEIGHTS) contract(spec, &in2, g, np);
      if (ops->flags & LBS_PART_FIXED) contract(spec, &infx, g, np);
      m += len + (m[len] == ',');
    }
    /* nonsense: refused (any message) or taken, never a crash */
    lbs_partitioner *pt = NULL;
    snprintf(spec, sizeof spec, "%s:no-such-method:\x01", ops->name);
    if (!lbs_part_create(spec, NULL, MPI_COMM_WORLD, &pt)) lbs_part_destroy(&pt);
    CHECK(pt == NULL, "%s: destroyed", spec);
  }
  return stripes;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  lbs_err le = lbs_plugin_load(LBS_TEST_PLUGIN_STRIPES);
  CHECK(!le, "load the plug-in: %s", lbs_errmsg());
  lbs_mesh *mesh = NULL;
  double *vw = NULL;
  int ncon;
  lbs_grid *grid = NULL;
  const char *gpath = LBS_SOURCE_DIR "/tests/data/meshes/grid20x19.graph";
  const char *cpath = LBS_SOURCE_DIR "/tests/data/meshes/grid20x19.coords";
  if (lbs_chaco_read(gpath, cpath, &mesh, &vw, &ncon, NULL) ||
      lbs_grid_load(LBS_SOURCE_DIR "/examples/grids/homogeneous16.ini", NULL, 0, &grid)) {
    printf("setup: %s\n", lbs_errmsg());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int64_t E = lbs_mesh_elements(mesh);
  const double *coords, *adjw;
  const int64_t *xadj, *adj;
  int dim;
  lbs_mesh_coords(mesh, &coords, &dim);
  lbs_mesh_graph(mesh, &xadj, &adj, &adjw);
  int64_t *rf = malloc((size_t)(size + 1) * sizeof *rf);
  for (int r = 0; r <= size; r++) rf[r] = E * r / size;
  int64_t first = rf[check_rank], n = rf[check_rank + 1] - first;
  int64_t *gid = malloc((size_t)n * sizeof *gid), *lx = malloc((size_t)(n + 1) * sizeof *lx);
  double *w = malloc((size_t)(n ? n : 1) * sizeof *w), sizes[P];
  int *cur = malloc((size_t)(n ? n : 1) * sizeof *cur),
      *np = malloc((size_t)(n ? n : 1) * sizeof *np);
  for (int64_t i = 0; i < n; i++) {
    gid[i] = first + i;
    w[i] = 1 + (double)((first + i) % 5); /* uneven work, so balancing has something to do */
    cur[i] = (int)((first + i) * P / E);  /* equal blocks: where uses_current partitioners start */
  }
  for (int64_t i = 0; i <= n; i++) lx[i] = xadj[first + i] - xadj[first];
  for (int p = 0; p < P; p++) sizes[p] = 1.0 / P;
  lbs_part_input in = {.comm = MPI_COMM_WORLD,
                       .nlocal = n,
                       .gid = gid,
                       .weight = w,
                       .dim = dim,
                       .coords = coords + first * dim,
                       .xadj = lx,
                       .adj = adj + xadj[first],
                       .adjw = adjw + xadj[first],
                       .rank_first = rf,
                       .current = cur,
                       .nparts = P,
                       .part_sizes = sizes,
                       .grid = grid,
                       .bytes_per_edge = 64,
                       .bytes_per_rwgt = 1024};
  /* two weights: the work's first unit, and the rest on every other element (sum: the work) */
  double *w2 = malloc((size_t)(2 * n + 1) * sizeof *w2);
  for (int64_t i = 0; i < n; i++)
    w2[2 * i] = (first + i) % 2 ? 1 : w[i], w2[2 * i + 1] = w[i] - w2[2 * i];
  in2 = in, in2.wdim = 2, in2.weights = w2;
  unsigned char *fx = malloc((size_t)(n + 1));
  for (int64_t i = 0; i < n; i++) fx[i] = (first + i) % 7 == 0;
  infx = in, infx.fixed = fx;
  gather g = {MPI_COMM_WORLD,
              E,
              n,
              malloc((size_t)size * sizeof(int)),
              malloc((size_t)size * sizeof(int)),
              malloc((size_t)E * sizeof(int))};
  for (int r = 0; r < size; r++) g.counts[r] = (int)(rf[r + 1] - rf[r]), g.displs[r] = (int)rf[r];
  CHECK(every_partitioner(&in, &g, np) == 1,
        "the plug-in's partitioner 'stripes' is registered once");
  int status = check_finish();
  free(rf), free(gid), free(lx), free(w), free(w2), free(fx), free(cur), free(np), free(g.counts),
      free(g.displs), free(g.all), free(vw);
  lbs_grid_destroy(&grid);
  lbs_mesh_destroy(&mesh);
  MPI_Finalize();
  return status;
}
