/* gen_nbody.c - `lbsim trace gen --kind nbody`: the seed-003 N-body workload (workloads/nbody.c,
 * through lbs_nbody.h) integrated with leapfrog (kick-drift-kick, step dt, the octree rebuilt
 * every step) and written as a trace.
 *
 * One element per leaf cell of the initial octree; the mesh stores each edge's close flag (1 or
 * 0) as its weight, and the trace's meta key `edge_weight` = LBS_EDGE_RULE (flag*rwgt[target])
 * says how to get CWgt at a step (traces/edges.c). Metrics: pwgt and rwgt (seed 003's PWgt and
 * RWgt), and `interactions`, what the integration really did: the body-body and body-node force
 * evaluations of the cell's bodies at that step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_nbody.h"
#include "lbs_traces.h"

/* Accelerations and interaction counts of every body. */
static lbs_err forces(const lbs_nb_tree *t, const double *x, int64_t n, double theta, double *acc,
                      int64_t *inter) {
  int32_t *stack = malloc((size_t)(t->nn + 1) * sizeof *stack);
  if (!stack) return lbs_fail(LBS_NOMEM, "forces");
  for (int64_t i = 0; i < n; i++) inter[i] = lbs_nb_accel(t, x, n, theta, i, acc + 3 * i, stack);
  free(stack);
  return LBS_OK;
}

/* The trace of L cells on mesh: pwgt, rwgt and interactions, exact, with the recipe as source. */
static lbs_err open_trace(const lbs_nbody_params *p, const char *path, int32_t L, lbs_mesh *mesh,
                          lbs_trace_writer **w) {
  char recipe[200];
  snprintf(recipe, sizeof recipe, "nbody bodies=%lld steps=%lld seed=%llu leaf=%d theta=%g dt=%g",
           (long long)p->bodies, (long long)p->steps, (unsigned long long)p->seed, p->leaf,
           p->theta, p->dt);
  const lbs_bound exact = {LBS_BOUND_LOSSLESS, 0};
  const lbs_metric_spec ms[] = {{"pwgt", "interactions", LBS_CODEC_LOSSLESS, exact, exact},
                                {"rwgt", "bodies", LBS_CODEC_LOSSLESS, exact, exact},
                                {"interactions", "interactions", LBS_CODEC_LOSSLESS, exact, exact}};
  const char *meta[] = {"source", recipe, "edge_weight", LBS_EDGE_RULE, "workload", "nbody"};
  lbs_trace_spec spec = {L, 0, 3, ms, mesh, 3, meta};
  return lbs_trace_create(path, &spec, w);
}

/* Step s of the trace: per cell, its bodies (rwgt), their interactions and its PWgt, from the
 * bodies' positions x and interactions (val: 3 L values, cnt: a value per tree node, scratch). */
static lbs_err write_cells(lbs_trace_writer *w, int64_t s, const lbs_nb_tree *cells,
                           const lbs_nb_cells *cg, const double *x, const int64_t *inter, int64_t n,
                           double *val, double *cnt) {
  int32_t L = cells->nleaf;
  double *pw = val, *rw = val + L, *it = val + 2 * L;
  memset(val, 0, (size_t)L * 3 * sizeof *val);
  for (int64_t i = 0; i < n; i++) {
    int32_t a = lbs_nb_locate(cells, x + 3 * i);
    rw[a] += 1, it[a] += (double)inter[i];
  }
  lbs_nb_pwgt(cells, cg, rw, cnt, pw);
  const double *vals[] = {pw, rw, it};
  return lbs_trace_write_step(w, s, vals);
}

lbs_err lbs_nbody_trace(const lbs_nbody_params *p, const char *path, lbs_progress_fn progress,
                        void *arg) {
  if (p->bodies < 2 || p->bodies > (INT64_C(1) << 31))
    return lbs_fail(LBS_INVAL, "--bodies must be in [2, 2^31]");
  if (p->steps < 1) return lbs_fail(LBS_INVAL, "--steps must be at least 1");
  if (p->leaf < 1 || p->leaf > 1024) return lbs_fail(LBS_INVAL, "--leaf must be in [1, 1024]");
  if (!(p->theta > 0 && p->theta < 2)) return lbs_fail(LBS_INVAL, "--theta must be in (0, 2)");
  if (!(p->dt > 0 && p->dt < 1)) return lbs_fail(LBS_INVAL, "--dt must be in (0, 1)");
  int64_t n = p->bodies;
  lbs_nb_tree cells = {0}, phys = {0};
  lbs_nb_cells cg = {0};
  lbs_mesh *mesh = NULL;
  lbs_trace_writer *w = NULL;
  double *x = malloc((size_t)n * 3 * sizeof *x), *v = malloc((size_t)n * 3 * sizeof *v);
  double *acc = malloc((size_t)n * 3 * sizeof *acc), *co = NULL, *flag = NULL, *val = NULL,
         *cnt = NULL;
  int64_t *inter = malloc((size_t)n * sizeof *inter), *xadj = NULL, *adj = NULL;
  lbs_err e = LBS_OK;
  if (!x || !v || !acc || !inter) {
    e = lbs_fail(LBS_NOMEM, "%lld bodies", (long long)n);
    goto done;
  }
  lbs_nb_plummer(n, p->seed, x, v);
  if ((e = lbs_nb_build(&cells, x, n, p->leaf)) || (e = lbs_nb_cell_walk(&cells, p->theta, &cg)))
    goto done;
  int32_t L = cells.nleaf;
  if ((e = lbs_nb_cell_graph(&cg, L, &xadj, &adj, &flag))) goto done;
  co = malloc((size_t)L * 3 * sizeof *co);
  val = malloc((size_t)L * 3 * sizeof *val);
  cnt = malloc((size_t)cells.nn * sizeof *cnt);
  if (!co || !val || !cnt) {
    e = lbs_fail(LBS_NOMEM, "cell graph");
    goto done;
  }
  for (int32_t a = 0; a < L; a++) memcpy(co + 3 * a, cells.nd[cg.leaf_node[a]].c, 3 * sizeof *co);
  if ((e = lbs_mesh_create_unstructured(L, 3, co, xadj, adj, flag, 1, &mesh))) goto done;
  lbs_mesh_set_bytes(
      mesh, 64, 32); /* per body: moved with position, velocity, mass; sent as position, mass */
  if ((e = open_trace(p, path, L, mesh, &w))) goto done;
  /* leapfrog: the recorded step s is the state after s steps (s = 0: the initial bodies) */
  if ((e = lbs_nb_build(&phys, x, n, 8)) || (e = forces(&phys, x, n, p->theta, acc, inter)))
    goto done;
  for (int64_t s = 0; s < p->steps; s++) {
    if (s > 0) {
      for (int64_t i = 0; i < 3 * n; i++) v[i] += 0.5 * p->dt * acc[i], x[i] += p->dt * v[i];
      if ((e = lbs_nb_build(&phys, x, n, 8)) || (e = forces(&phys, x, n, p->theta, acc, inter)))
        goto done;
      for (int64_t i = 0; i < 3 * n; i++) v[i] += 0.5 * p->dt * acc[i];
    }
    if ((e = write_cells(w, s, &cells, &cg, x, inter, n, val, cnt))) goto done;
    if (progress && progress(arg, s + 1, p->steps)) {
      e = lbs_fail(LBS_INVAL, "interrupted");
      goto done;
    }
  }
  e = lbs_trace_writer_close(&w);
done:
  if (w) lbs_trace_writer_close(&w);
  lbs_mesh_destroy(&mesh);
  free(x), free(v), free(acc), free(inter), free(co), free(flag), free(val), free(cnt), free(xadj),
      free(adj);
  lbs_nb_tree_free(&cells), lbs_nb_tree_free(&phys);
  lbs_nb_cells_free(&cg);
  return e;
}
