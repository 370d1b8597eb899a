/* test_nbody.c - the N-body workload (workloads/nbody.c): its pieces on their own (the octree,
 * forces against a direct sum, the fixed cells and their graph), and through the trace generator:
 * the graph and weights follow slides 11-12, the model weight tracks the work the Barnes-Hut
 * integration really did, and runs repeat exactly. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lbs_nbody.h"
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
  int pm = lbs_trace_metric_find(t, "pwgt"), rm = lbs_trace_metric_find(t, "rwgt"),
      im = lbs_trace_metric_find(t, "interactions");
  cr_assert(pm >= 0 && rm >= 0 && im >= 0);
  lbs_mesh *m = lbs_trace_mesh(t);
  cr_assert(lbs_mesh_directed(m));
  const int64_t *xadj, *adj;
  const double *flag;
  cr_assert_eq(lbs_mesh_graph(m, &xadj, &adj, &flag), LBS_OK);
  double *pw = malloc((size_t)E * sizeof *pw), *rw = malloc((size_t)E * sizeof *rw),
         *it = malloc((size_t)E * sizeof *it);
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
      cr_assert(far >= 0 && far == floor(far), "step %lld cell %lld: Far = %g", (long long)s,
                (long long)v, far);
      sx += pw[v], sy += it[v], sxx += pw[v] * pw[v], syy += it[v] * it[v], sxy += pw[v] * it[v];
    }
    cr_assert_eq(bodies, 3000, "step %lld holds %g bodies", (long long)s, bodies);
    /* the model weight tracks the force evaluations the integration made */
    double n = (double)E, r = (n * sxy - sx * sy) / sqrt((n * sxx - sx * sx) * (n * syy - sy * sy));
    cr_assert_gt(r, 0.8, "step %lld: correlation of PWgt with real interactions %g", (long long)s,
                 r);
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

/* The octree holds every body once, in leaves of at most `leaf` bodies, with node masses that
 * are body counts; lbs_nb_locate finds each body's leaf. */
Test(nbody_pieces, the_octree_holds_every_body_once) {
  enum { N = 2000, LEAF = 8 };
  double *x = malloc(3 * N * sizeof *x), *v = malloc(3 * N * sizeof *v);
  lbs_nb_plummer(N, 5, x, v);
  lbs_nb_tree t = {0};
  cr_assert_eq(lbs_nb_build(&t, x, N, LEAF), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(t.nd[0].m, N, "the root weighs every body");
  int *seen = calloc(N, sizeof *seen);
  int64_t inleaves = 0;
  for (int64_t k = 0; k < t.nn; k++) {
    const lbs_nb_node *nd = &t.nd[k];
    if (nd->leaf < 0) continue;
    cr_assert_leq(nd->cnt, LEAF);
    cr_assert_eq(nd->m, (double)nd->cnt);
    for (int64_t i = nd->first; i < nd->first + nd->cnt; i++) {
      int64_t b = t.idx[i];
      seen[b]++, inleaves++;
      cr_assert_eq(lbs_nb_locate(&t, x + 3 * b), nd->leaf, "body %lld", (long long)b);
    }
  }
  cr_assert_eq(inleaves, N);
  for (int b = 0; b < N; b++) cr_assert_eq(seen[b], 1, "body %d in %d leaves", b, seen[b]);
  free(seen), free(x), free(v);
  lbs_nb_tree_free(&t);
  cr_assert_null(t.nd);
}

/* theta = 0 opens every node: Barnes-Hut is then the direct sum over the other bodies. */
Test(nbody_pieces, forces_at_theta_zero_are_the_direct_sum) {
  enum { N = 300 };
  double *x = malloc(3 * N * sizeof *x), *v = malloc(3 * N * sizeof *v);
  lbs_nb_plummer(N, 11, x, v);
  lbs_nb_tree t = {0};
  cr_assert_eq(lbs_nb_build(&t, x, N, 4), LBS_OK);
  int32_t *stack = malloc((size_t)(t.nn + 1) * sizeof *stack);
  for (int64_t i = 0; i < N; i++) {
    double a[3], d[3] = {0, 0, 0};
    cr_assert_eq(lbs_nb_accel(&t, x, N, 0, i, a, stack), N - 1, "body %lld meets every other",
                 (long long)i);
    for (int64_t j = 0; j < N; j++) {
      if (j == i) continue;
      double e[3] = {x[3 * j] - x[3 * i], x[3 * j + 1] - x[3 * i + 1], x[3 * j + 2] - x[3 * i + 2]};
      double s2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + LBS_NB_SOFT * LBS_NB_SOFT;
      for (int k = 0; k < 3; k++) d[k] += e[k] / (N * s2 * sqrt(s2));
    }
    for (int k = 0; k < 3; k++)
      cr_assert(fabs(a[k] - d[k]) <= 1e-9 * (fabs(d[k]) + 1e-6), "body %lld, axis %d: %g vs %g",
                (long long)i, k, a[k], d[k]);
  }
  /* an opening angle cuts the interactions */
  double a[3];
  cr_assert_lt(lbs_nb_accel(&t, x, N, 0.7, 0, a, stack), N - 1);
  free(stack), free(x), free(v);
  lbs_nb_tree_free(&t);
}

/* The cell graph: an arc v -> w with flag 1 for each w close to v, its reverse always there. */
Test(nbody_pieces, the_cell_graph_has_every_close_pair) {
  enum { N = 1500 };
  double *x = malloc(3 * N * sizeof *x), *v = malloc(3 * N * sizeof *v);
  lbs_nb_plummer(N, 3, x, v);
  lbs_nb_tree t = {0};
  lbs_nb_cells g = {0};
  cr_assert_eq(lbs_nb_build(&t, x, N, 8), LBS_OK);
  cr_assert_eq(lbs_nb_cell_walk(&t, 0.7, &g), LBS_OK);
  int32_t L = t.nleaf;
  int64_t *xadj, *adj;
  double *flag;
  cr_assert_eq(lbs_nb_cell_graph(&g, L, &xadj, &adj, &flag), LBS_OK);
  for (int32_t a = 0; a < L; a++)
    for (int64_t j = g.cx[a]; j < g.cx[a + 1]; j++) {
      int64_t b = g.close[j], ab = -1, ba = -1;
      for (int64_t k = xadj[a]; k < xadj[a + 1]; k++)
        if (adj[k] == b) ab = k;
      for (int64_t k = xadj[b]; k < xadj[b + 1]; k++)
        if (adj[k] == a) ba = k;
      cr_assert(ab >= 0 && flag[ab] == 1, "%d -> %lld: close, so an arc of flag 1", a,
                (long long)b);
      cr_assert(ba >= 0, "%lld -> %d: the reverse arc", (long long)b, a);
    }
  /* PWgt from the bodies' cells: an empty cell weighs 0, the others at least |Cv| (|Cv| - 1) */
  double *rw = calloc((size_t)L, sizeof *rw), *pw = malloc((size_t)L * sizeof *pw);
  double *cnt = malloc((size_t)t.nn * sizeof *cnt);
  for (int64_t i = 0; i < N; i++) rw[lbs_nb_locate(&t, x + 3 * i)] += 1;
  lbs_nb_pwgt(&t, &g, rw, cnt, pw);
  cr_assert_eq(cnt[0], N, "the root counts every body");
  for (int32_t a = 0; a < L; a++)
    cr_assert(rw[a] == 0 ? pw[a] == 0 : pw[a] >= rw[a] * (rw[a] - 1), "cell %d: %g bodies, PWgt %g",
              a, rw[a], pw[a]);
  free(rw), free(pw), free(cnt), free(xadj), free(adj), free(flag), free(x), free(v);
  lbs_nb_cells_free(&g);
  lbs_nb_tree_free(&t);
}
