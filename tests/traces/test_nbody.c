/* test_nbody.c - the N-body workload: the graph and weights follow slides 11-12, the model
 * weight tracks the work the Barnes-Hut integration really did, and runs repeat exactly. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lbs_traces.h"

static char path[64], path2[64];

static void setup(void) {
  snprintf(path, sizeof path, "/tmp/lbs_nbody_%d.lbt", (int)getpid());
  snprintf(path2, sizeof path2, "/tmp/lbs_nbody_%d_b.lbt", (int)getpid());
  unlink(path), unlink(path2);
}
static void teardown(void) { unlink(path), unlink(path2); }

static const lbs_nbody_params small = {3000, 3, 7, 8, 0.7, 1.0 / 128};

Test(nbody, graph_and_weights_follow_the_seed, .init = setup, .fini = teardown) {
  cr_assert_eq(lbs_nbody_trace(&small, path, NULL, NULL), LBS_OK, "%s", lbs_errmsg());
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(path, &t), LBS_OK);
  int64_t E = lbs_trace_elements(t);
  cr_assert_gt(E, 3000 / 8, "at most 8 bodies a leaf: %lld cells", (long long)E);
  cr_assert_lt(E, 3000);
  cr_assert_eq(lbs_trace_steps(t), 3);
  cr_assert_str_eq(lbs_trace_meta(t, "edge_weight"), "flag*rwgt[target]");
  int pm = lbs_trace_metric_find(t, "pwgt"), rm = lbs_trace_metric_find(t, "rwgt"), im = lbs_trace_metric_find(t, "interactions");
  cr_assert(pm >= 0 && rm >= 0 && im >= 0);
  lbs_mesh *m = lbs_trace_mesh(t);
  cr_assert(lbs_mesh_directed(m));
  const int64_t *xadj, *adj;
  const double *flag;
  cr_assert_eq(lbs_mesh_graph(m, &xadj, &adj, &flag), LBS_OK);
  double *pw = malloc((size_t)E * sizeof *pw), *rw = malloc((size_t)E * sizeof *rw), *it = malloc((size_t)E * sizeof *it);
  int64_t zero = 0, ones = 0;
  for (int64_t v = 0; v < E; v++)
    for (int64_t j = xadj[v]; j < xadj[v + 1]; j++) {
      cr_assert(flag[j] == 0 || flag[j] == 1);
      cr_assert_neq(adj[j], v, "self loop at %lld", (long long)v);
      zero += flag[j] == 0, ones += flag[j] == 1;
      /* every edge has its reverse: the structure is symmetric, the weights are not */
      int found = 0;
      for (int64_t k = xadj[adj[j]]; k < xadj[adj[j] + 1]; k++) found |= adj[k] == v;
      cr_assert(found, "edge %lld -> %lld has no reverse", (long long)v, (long long)adj[j]);
    }
  cr_assert_gt(zero, 0, "some cells are close to a cell that is far from them (CWgt 0)");
  cr_assert_gt(ones, zero);
  for (int64_t s = 0; s < 3; s++) {
    cr_assert_eq(lbs_trace_read(t, s, pm, 0, E, pw), LBS_OK);
    cr_assert_eq(lbs_trace_read(t, s, rm, 0, E, rw), LBS_OK);
    cr_assert_eq(lbs_trace_read(t, s, im, 0, E, it), LBS_OK);
    double bodies = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (int64_t v = 0; v < E; v++) {
      bodies += rw[v];
      double close = 0;
      for (int64_t j = xadj[v]; j < xadj[v + 1]; j++) close += flag[j] * rw[adj[j]];
      /* PWgt = |Cv| (|Cv| - 1 + Close + Far) with Far >= 0 whole */
      if (rw[v] == 0) {
        cr_assert_eq(pw[v], 0);
        continue;
      }
      double far = pw[v] / rw[v] - (rw[v] - 1 + close);
      cr_assert(far >= 0 && far == floor(far), "step %lld cell %lld: Far = %g", (long long)s, (long long)v, far);
      sx += pw[v], sy += it[v], sxx += pw[v] * pw[v], syy += it[v] * it[v], sxy += pw[v] * it[v];
    }
    cr_assert_eq(bodies, 3000, "step %lld holds %g bodies", (long long)s, bodies);
    /* the model weight tracks the force evaluations the integration made */
    double n = (double)E, r = (n * sxy - sx * sy) / sqrt((n * sxx - sx * sx) * (n * syy - sy * sy));
    cr_assert_gt(r, 0.8, "step %lld: correlation of PWgt with real interactions %g", (long long)s, r);
  }
  /* the bodies move: some cell's population changes between the first and the last step */
  double *rw0 = malloc((size_t)E * sizeof *rw0);
  cr_assert_eq(lbs_trace_read(t, 0, rm, 0, E, rw0), LBS_OK);
  int changed = 0;
  for (int64_t v = 0; v < E; v++) changed += rw0[v] != rw[v];
  cr_assert_gt(changed, 0);
  free(pw), free(rw), free(it), free(rw0);
  lbs_trace_close(&t);
}

Test(nbody, deterministic, .init = setup, .fini = teardown) {
  lbs_nbody_params p = small;
  p.steps = 2;
  cr_assert_eq(lbs_nbody_trace(&p, path, NULL, NULL), LBS_OK);
  cr_assert_eq(lbs_nbody_trace(&p, path2, NULL, NULL), LBS_OK);
  lbs_trace *a, *b;
  cr_assert_eq(lbs_trace_open(path, &a), LBS_OK);
  cr_assert_eq(lbs_trace_open(path2, &b), LBS_OK);
  int64_t E = lbs_trace_elements(a);
  cr_assert_eq(E, lbs_trace_elements(b));
  double *x = malloc((size_t)E * sizeof *x), *y = malloc((size_t)E * sizeof *y);
  for (int m = 0; m < 3; m++)
    for (int64_t s = 0; s < 2; s++) {
      cr_assert_eq(lbs_trace_read(a, s, m, 0, E, x), LBS_OK);
      cr_assert_eq(lbs_trace_read(b, s, m, 0, E, y), LBS_OK);
      cr_assert_arr_eq(x, y, (size_t)E * sizeof *x);
    }
  free(x), free(y);
  lbs_trace_close(&a), lbs_trace_close(&b);
}

Test(nbody, bad_parameters, .init = setup, .fini = teardown) {
  lbs_nbody_params p = small;
  p.bodies = 1;
  cr_assert_eq(lbs_nbody_trace(&p, path, NULL, NULL), LBS_INVAL);
  p = small, p.theta = 0;
  cr_assert_eq(lbs_nbody_trace(&p, path, NULL, NULL), LBS_INVAL);
  p = small, p.leaf = 0;
  cr_assert_eq(lbs_nbody_trace(&p, path, NULL, NULL), LBS_INVAL);
  p = small, p.steps = 0;
  cr_assert_eq(lbs_nbody_trace(&p, path, NULL, NULL), LBS_INVAL);
  cr_assert_eq(access(path, F_OK), -1, "no file left behind");
}
