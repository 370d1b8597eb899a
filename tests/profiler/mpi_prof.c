/* mpi_prof.c - an instrumented MPI program: every element does a known amount of work;
 * the trace the profiler writes must show it (Spearman correlation >= 0.9 between the pattern
 * and each element's median time over the sampled steps, per rank: a single time on this VM
 * can carry a millisecond of preemption), hold the application's values within the bound, and pass
 * the store's checks. Run on 1 and 2 ranks. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lbs_traces.h"
#include "lbsprof.h"
#include "mpi_check.h"

#define NX 40
#define NY 30
#define NZ 2
#define STEPS 10
#define SAMPLED 5

static double units(int64_t g) { return 1 + (double)((g * 7) % 5); } /* 1..5 */

static volatile double sink;
static void work(double u) { /* about 4u microseconds */
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do {
    for (int k = 0; k < 20; k++) sink += k * 1e-9;
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((double)(t.tv_sec - t0.tv_sec) * 1e9 + (double)(t.tv_nsec - t0.tv_nsec) < u * 4000);
}

/* average ranks (ties share theirs) */
static const double *rank_of;
static int cmp_idx(const void *a, const void *b) {
  double x = rank_of[*(const int64_t *)a], y = rank_of[*(const int64_t *)b];
  return (x > y) - (x < y);
}
static void ranks(const double *v, int64_t n, double *r) {
  int64_t *idx = malloc((size_t)n * sizeof *idx);
  for (int64_t i = 0; i < n; i++) idx[i] = i;
  rank_of = v;
  qsort(idx, (size_t)n, sizeof *idx, cmp_idx);
  for (int64_t i = 0; i < n;) {
    int64_t j = i;
    while (j + 1 < n && v[idx[j + 1]] == v[idx[i]]) j++;
    for (int64_t k = i; k <= j; k++) r[idx[k]] = (double)(i + j) / 2;
    i = j + 1;
  }
  free(idx);
}
static double spearman(const double *x, const double *y, int64_t n) {
  double *rx = malloc((size_t)n * sizeof *rx), *ry = malloc((size_t)n * sizeof *ry);
  ranks(x, n, rx), ranks(y, n, ry);
  double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  for (int64_t i = 0; i < n; i++)
    sx += rx[i], sy += ry[i], sxx += rx[i] * rx[i], syy += ry[i] * ry[i], sxy += rx[i] * ry[i];
  free(rx), free(ry);
  double m = (double)n;
  return (m * sxy - sx * sy) / sqrt((m * sxx - sx * sx) * (m * syy - sy * sy));
}

static int calls;
static void probe_begin(void *arg) { (void)arg; }
static double probe_end(void *arg) { return (void)arg, ++calls, 1.0; } /* counts visits */

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check_rank = rank;
  char path[128];
  if (rank == 0) snprintf(path, sizeof path, "/tmp/lbsprof_mpi_%d.lbt", (int)getpid());
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  lbsprof_opts o;
  lbsprof_opts_default(&o);
  o.trace_path = path;
  o.sample_every = 2; /* steps 0, 2, 4 */
  o.metrics = "time_ns,cycles";
  lbsprof *p;
  CHECK(lbsprof_init(MPI_COMM_WORLD, &o, &p) == 0, "init: %s", lbsprof_errmsg());
  int w = lbsprof_value_metric(p, "weight", "units");
  int v = lbsprof_probe_register(p, "visits", "visits", probe_begin, probe_end, NULL);
  CHECK(w >= 0 && v >= 0, "metrics: %s", lbsprof_errmsg());
  /* slabs along x */
  int64_t global[3] = {NX, NY, NZ}, lo[3] = {NX * rank / size, 0, 0},
          hi[3] = {NX * (rank + 1) / size, NY, NZ};
  CHECK(lbsprof_mesh_box(p, global, lo, hi) == 0, "mesh: %s", lbsprof_errmsg());
  CHECK(lbsprof_value_metric(p, "late", "x") < 0, "a metric after the mesh is refused");
  for (int s = 0; s < STEPS; s++) {
    int64_t i = 0;
    for (int64_t z = lo[2]; z < hi[2]; z++)
      for (int64_t y = lo[1]; y < hi[1]; y++)
        for (int64_t x = lo[0]; x < hi[0]; x++, i++) {
          int64_t g = x + NX * (y + NY * z);
          lbsprof_elem_begin(p, i);
          work(units(g));
          lbsprof_elem_end(p, i);
          lbsprof_set_value(p, w, i, units(g) * (1 + s));
        }
    lbsprof_step_end(p);
    /* idle time between steps (a real code's communication phase): the node agent and the
     * collector, sharing this machine's two cores, work then rather than inside timed elements */
    MPI_Barrier(MPI_COMM_WORLD);
    usleep(20000);
  }
  CHECK(lbsprof_finalize(&p) == 0, "finalize: %s", lbsprof_errmsg());
  CHECK(p == NULL, "finalize clears the handle");
  if (rank == 0) {
    lbs_trace *t;
    CHECK(lbs_trace_open(path, &t) == LBS_OK, "open: %s", lbs_errmsg());
    int64_t E = lbs_trace_elements(t);
    CHECK(E == NX * NY * NZ, "elements %lld", (long long)E);
    CHECK(lbs_trace_steps(t) == SAMPLED, "sampled steps %lld", (long long)lbs_trace_steps(t));
    int tm = lbs_trace_metric_find(t, "time_ns"), wm = lbs_trace_metric_find(t, "weight"),
        vm = lbs_trace_metric_find(t, "visits");
    CHECK(tm >= 0 && wm >= 0 && vm >= 0, "metrics in the trace");
    CHECK(!strcmp(lbs_trace_meta(t, "profiler.complete"), "yes"), "complete run");
    double *tv = malloc((size_t)E * SAMPLED * sizeof *tv), *wv = malloc((size_t)E * sizeof *wv),
           *vv = malloc((size_t)E * sizeof *vv);
    for (int64_t s = 0; s < SAMPLED; s++) {
      int64_t app;
      lbs_trace_app_step(t, s, &app);
      CHECK(app == 2 * s, "step %lld is application step %lld", (long long)s, (long long)app);
      CHECK(lbs_trace_read(t, s, tm, 0, E, tv + s * E) == LBS_OK &&
                lbs_trace_read(t, s, wm, 0, E, wv) == LBS_OK &&
                lbs_trace_read(t, s, vm, 0, E, vv) == LBS_OK,
            "read step %lld", (long long)s);
      lbs_metric_info wi;
      CHECK(lbs_trace_metric(t, wm, &wi) == LBS_OK && wi.bound.kind == LBS_BOUND_REL &&
                wi.bound.eps == 0.005,
            "the default bound, rel:0.005, recorded");
      for (int64_t g = 0; g < E; g++) {
        double u = units(g), want = u * (1 + 2 * s);
        /* the application's values within the bound (the whole path's: agents and store) */
        CHECK(fabs(wv[g] - want) <= 0.005 * want, "step %lld element %lld: weight %g, set %g",
              (long long)s, (long long)g, wv[g], want);
        CHECK(fabs(vv[g] - 1) < 1e-9, "one visit per element per step");
      }
    }
    /* per rank's slab, each time divided by the median time of its row of the slab in that step
     * (two ranks on this VM's two (hyper)threads slow each other while both compute, so a
     * rank's speed drifts within a step; one row sees one speed; the median because on a
     * loaded machine one element of a row is often preempted for milliseconds), Spearman's rank
     * correlation (a single element preempted in most steps would dominate Pearson's) */
    double rowv[NX];
    for (int64_t s = 0; s < SAMPLED; s++)
      for (int64_t row = 0; row < NY * NZ; row++)
        for (int k = 0; k < size; k++) {
          int64_t x0 = NX * k / size, x1 = NX * (k + 1) / size, nr = x1 - x0;
          for (int64_t x = x0; x < x1; x++) { /* insertion sort */
            int64_t q = x - x0;
            for (; q > 0 && rowv[q - 1] > tv[s * E + row * NX + x]; q--) rowv[q] = rowv[q - 1];
            rowv[q] = tv[s * E + row * NX + x];
          }
          double med = nr % 2 ? rowv[nr / 2] : 0.5 * (rowv[nr / 2 - 1] + rowv[nr / 2]);
          for (int64_t x = x0; x < x1 && med > 0; x++) tv[s * E + row * NX + x] /= med;
        }
    double worst = 1;
    double *xs = malloc((size_t)E * sizeof *xs), *ys = malloc((size_t)E * sizeof *ys);
    for (int k = 0; k < size; k++) {
      int64_t cnt = 0;
      for (int64_t g = 0; g < E; g++) {
        int64_t x = g % NX;
        if (x < NX * k / size || x >= NX * (k + 1) / size) continue;
        double m[SAMPLED];
        for (int s = 0; s < SAMPLED; s++) { /* insertion sort of the element's times */
          int q = s;
          for (; q > 0 && m[q - 1] > tv[s * E + g]; q--) m[q] = m[q - 1];
          m[q] = tv[s * E + g];
        }
        xs[cnt] = units(g), ys[cnt++] = m[SAMPLED / 2];
      }
      double r = spearman(xs, ys, cnt);
      worst = r < worst ? r : worst;
    }
    free(xs), free(ys);
    printf("Spearman correlation of the median time_ns with the work pattern (worst rank): %.4f\n",
           worst);
    CHECK(worst >= 0.9, "correlation %g", worst);
    CHECK(lbs_trace_verify(t, NULL, NULL) == LBS_OK, "trace verify: %s", lbs_errmsg());
    free(tv), free(wv), free(vv);
    lbs_trace_close(&t);
    if (!getenv("KEEP")) unlink(path);
  }
  int rc = check_finish();
  MPI_Finalize();
  return rc;
}
