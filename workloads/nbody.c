/* nbody.c - the seed-003 N-body workload's pieces (lbs_nbody.h): bodies of a Plummer sphere,
 * the octree, Barnes-Hut forces, the fixed cells, their close-cell graph and PWgt.
 *
 * Physics: N bodies of mass 1/N sampled from a Plummer model (Aarseth, Henon & Wielen 1974)
 * in standard N-body units (G = M = 1, E = -1/4), softened gravity (eps = 0.01), forces by
 * Barnes-Hut on an octree (a node is used whole when its size / distance to the body < theta).
 *
 * The partitioning graph (slides 11-12): one vertex per leaf cell of the octree built on
 * the initial bodies (at most `leaf` bodies a leaf). The cells stay fixed while the bodies
 * move through them, so a step's vertex weights are those of the same cells with that step's
 * bodies. For leaf cell v, a walk of the cell tree decides what each node X is to v: far when
 * size(X) < theta x (distance of centres - the radius of v), else opened; the leaves reached
 * are close to v. Then at each step
 *   PWgt_v = |Cv| x (|Cv| - 1 + Close_v + Far_v)   Close_v = bodies in the cells close to v,
 *                                                  Far_v = non-empty far nodes of v's walk
 *   RWgt_v = |Cv|
 *   CWgt(v,w) = |Cw| when Cw is close to Cv, else 0 (the edge exists when either is close
 *   to the other, so the graph is directed with zero-weight edges).
 *
 * Users: the trace generator (traces/gen_nbody.c: leapfrog steps written as a trace), the real
 * MPI code apps/nbody and the calibration kernel nbody (calibrate/), so that a profiled run, a
 * generated trace and an IPG see the same bodies, cells, graph and weights. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_nbody.h"

static int octant(const double *c, const double *x) {
  return (x[0] >= c[0]) | (x[1] >= c[1]) << 1 | (x[2] >= c[2]) << 2;
}

static int32_t new_node(lbs_nb_tree *t, const double c[3], double h, int32_t parent) {
  if (t->nn == t->cap) {
    int64_t cap = t->cap ? 2 * t->cap : 1024;
    lbs_nb_node *nd = realloc(t->nd, (size_t)cap * sizeof *nd);
    if (!nd) return -1;
    t->nd = nd, t->cap = cap;
  }
  lbs_nb_node *n = &t->nd[t->nn];
  memset(n, 0, sizeof *n);
  memcpy(n->c, c, sizeof n->c);
  n->h = h, n->parent = parent, n->leaf = -1;
  for (int k = 0; k < 8; k++) n->child[k] = -1;
  return (int32_t)t->nn++;
}

/* Splits node k's bodies into octants until a node holds at most leaf bodies. */
static lbs_err split(lbs_nb_tree *t, const double *x, int32_t k, int leaf, int depth) {
  lbs_nb_node *n = &t->nd[k];
  if (n->cnt <= leaf || depth >= 40) {
    n->leaf = t->nleaf++;
    return LBS_OK;
  }
  int64_t cnt[8] = {0}, first = n->first, tot = n->cnt;
  double c[3] = {n->c[0], n->c[1], n->c[2]}, h = n->h / 2;
  int64_t *tmp = malloc((size_t)tot * sizeof *tmp);
  if (!tmp) return lbs_fail(LBS_NOMEM, "octree");
  for (int64_t i = 0; i < tot; i++) cnt[octant(c, x + 3 * t->idx[first + i])]++;
  int64_t off[8], o = 0;
  for (int q = 0; q < 8; q++) off[q] = o, o += cnt[q];
  for (int64_t i = 0; i < tot; i++) {
    int64_t b = t->idx[first + i];
    tmp[off[octant(c, x + 3 * b)]++] = b;
  }
  memcpy(t->idx + first, tmp, (size_t)tot * sizeof *tmp);
  free(tmp);
  o = first;
  for (int q = 0; q < 8; q++) {
    if (cnt[q]) {
      double cc[3] = {c[0] + (q & 1 ? h : -h), c[1] + (q & 2 ? h : -h), c[2] + (q & 4 ? h : -h)};
      int32_t ch = new_node(t, cc, h, k);
      if (ch < 0) return lbs_fail(LBS_NOMEM, "octree");
      t->nd[k].child[q] = ch;
      t->nd[ch].first = o, t->nd[ch].cnt = cnt[q];
      lbs_err e = split(t, x, ch, leaf, depth + 1);
      if (e) return e;
    }
    o += cnt[q];
  }
  return LBS_OK;
}

/* The octree of n bodies at x (a cube around them), leaves of at most leaf bodies, with
 * masses and centres of mass. */
lbs_err lbs_nb_build(lbs_nb_tree *t, const double *x, int64_t n, int leaf) {
  t->nn = 0, t->nleaf = 0;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int64_t i = 0; i < n; i++)
    for (int k = 0; k < 3; k++)
      lo[k] = fmin(lo[k], x[3 * i + k]), hi[k] = fmax(hi[k], x[3 * i + k]);
  double c[3], h = 0;
  for (int k = 0; k < 3; k++) c[k] = (lo[k] + hi[k]) / 2, h = fmax(h, (hi[k] - lo[k]) / 2);
  h = h * (1 + 1e-9) + 1e-12;
  if (!(t->idx = realloc(t->idx, (size_t)(n + 1) * sizeof *t->idx)))
    return lbs_fail(LBS_NOMEM, "octree");
  for (int64_t i = 0; i < n; i++) t->idx[i] = i;
  if (new_node(t, c, h, -1) < 0) return lbs_fail(LBS_NOMEM, "octree");
  t->nd[0].first = 0, t->nd[0].cnt = n;
  lbs_err e = split(t, x, 0, leaf, 0);
  /* masses bottom-up: children always come after their parent */
  for (int64_t k = t->nn - 1; !e && k >= 0; k--) {
    lbs_nb_node *nd = &t->nd[k];
    if (nd->leaf >= 0) {
      nd->m = 0, nd->com[0] = nd->com[1] = nd->com[2] = 0;
      for (int64_t i = nd->first; i < nd->first + nd->cnt; i++)
        for (int d = 0; d < 3; d++) nd->com[d] += x[3 * t->idx[i] + d];
      nd->m = (double)nd->cnt;
      for (int d = 0; d < 3; d++) nd->com[d] /= nd->m > 0 ? nd->m : 1;
    } else {
      double m = 0, s[3] = {0, 0, 0};
      for (int q = 0; q < 8; q++)
        if (nd->child[q] >= 0) {
          lbs_nb_node *ch = &t->nd[nd->child[q]];
          m += ch->m;
          for (int d = 0; d < 3; d++) s[d] += ch->m * ch->com[d];
        }
      nd->m = m;
      for (int d = 0; d < 3; d++) nd->com[d] = s[d] / (m > 0 ? m : 1);
    }
  }
  return e;
}

#define SOFT2 (LBS_NB_SOFT * LBS_NB_SOFT)

/* Barnes-Hut acceleration of body i (masses 1/n: node masses are body counts). */
int64_t lbs_nb_accel(const lbs_nb_tree *t, const double *x, int64_t n, double theta, int64_t i,
                     double a[3], int32_t *stack) {
  double mb = 1.0 / (double)n;
  const double *xi = x + 3 * i;
  a[0] = a[1] = a[2] = 0;
  int64_t cnt = 0, sp = 0;
  stack[sp++] = 0;
  while (sp) {
    const lbs_nb_node *nd = &t->nd[stack[--sp]];
    double d[3] = {nd->com[0] - xi[0], nd->com[1] - xi[1], nd->com[2] - xi[2]};
    double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (nd->leaf < 0 && 4 * nd->h * nd->h < theta * theta * r2) { /* far: the node's monopole */
      double f = nd->m * mb / ((r2 + SOFT2) * sqrt(r2 + SOFT2));
      for (int k = 0; k < 3; k++) a[k] += f * d[k];
      cnt++;
    } else if (nd->leaf >= 0) {
      for (int64_t j = nd->first; j < nd->first + nd->cnt; j++) {
        int64_t b = t->idx[j];
        if (b == i) continue;
        double e[3] = {x[3 * b] - xi[0], x[3 * b + 1] - xi[1], x[3 * b + 2] - xi[2]};
        double s2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + SOFT2, f = mb / (s2 * sqrt(s2));
        for (int k = 0; k < 3; k++) a[k] += f * e[k];
        cnt++;
      }
    } else {
      for (int q = 7; q >= 0; q--)
        if (nd->child[q] >= 0) stack[sp++] = nd->child[q];
    }
  }
  return cnt;
}

/* The cell graph of the fixed tree: per leaf v, its close leaves (edges) and far nodes. */
lbs_err lbs_nb_cell_walk(const lbs_nb_tree *t, double theta, lbs_nb_cells *g) {
  int32_t L = t->nleaf;
  int32_t *stack = malloc((size_t)(t->nn + 1) * sizeof *stack);
  g->leaf_node = malloc((size_t)L * sizeof *g->leaf_node);
  g->cx = malloc((size_t)(L + 1) * sizeof *g->cx), g->fx = malloc((size_t)(L + 1) * sizeof *g->fx);
  int64_t ccap = 64 * (int64_t)L + 64, fcap = 256 * (int64_t)L + 64, nc = 0, nf = 0;
  g->close = malloc((size_t)ccap * sizeof *g->close),
  g->far = malloc((size_t)fcap * sizeof *g->far);
  if (!stack || !g->leaf_node || !g->cx || !g->fx || !g->close || !g->far) {
    free(stack);
    return lbs_fail(LBS_NOMEM, "cell graph");
  }
  for (int64_t k = 0; k < t->nn; k++)
    if (t->nd[k].leaf >= 0) g->leaf_node[t->nd[k].leaf] = (int32_t)k;
  for (int32_t v = 0; v < L; v++) {
    const lbs_nb_node *cv = &t->nd[g->leaf_node[v]];
    double rv = sqrt(3.0) * cv->h;
    g->cx[v] = nc, g->fx[v] = nf;
    int64_t sp = 0;
    stack[sp++] = 0;
    while (sp) {
      int32_t k = stack[--sp];
      const lbs_nb_node *nd = &t->nd[k];
      double d[3] = {nd->c[0] - cv->c[0], nd->c[1] - cv->c[1], nd->c[2] - cv->c[2]};
      double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - rv;
      if (dist > 0 && 2 * nd->h < theta * dist) {
        if (nf == fcap) {
          int32_t *f = realloc(g->far, (size_t)(fcap *= 2) * sizeof *f);
          if (!f) goto nomem;
          g->far = f;
        }
        g->far[nf++] = k;
      } else if (nd->leaf >= 0) {
        if (nd->leaf == v) continue;
        if (nc == ccap) {
          int64_t *c = realloc(g->close, (size_t)(ccap *= 2) * sizeof *c);
          if (!c) goto nomem;
          g->close = c;
        }
        g->close[nc++] = nd->leaf;
      } else {
        for (int q = 7; q >= 0; q--)
          if (nd->child[q] >= 0) stack[sp++] = nd->child[q];
      }
    }
  }
  g->cx[L] = nc, g->fx[L] = nf;
  free(stack);
  return LBS_OK;
nomem:
  free(stack);
  return lbs_fail(LBS_NOMEM, "cell graph");
}

/* The leaf of the fixed tree that holds position x: descend by octant; a missing octant
 * (empty at the start) sends the body to the nearest existing child. */
int32_t lbs_nb_locate(const lbs_nb_tree *t, const double *x) {
  int32_t k = 0;
  while (t->nd[k].leaf < 0) {
    const lbs_nb_node *nd = &t->nd[k];
    int32_t ch = nd->child[octant(nd->c, x)];
    if (ch < 0) {
      double best = INFINITY;
      for (int q = 0; q < 8; q++)
        if (nd->child[q] >= 0) {
          const double *c = t->nd[nd->child[q]].c;
          double d = (c[0] - x[0]) * (c[0] - x[0]) + (c[1] - x[1]) * (c[1] - x[1]) +
                     (c[2] - x[2]) * (c[2] - x[2]);
          if (d < best) best = d, ch = nd->child[q];
        }
    }
    k = ch;
  }
  return t->nd[k].leaf;
}

/* Plummer sphere in standard units. */
void lbs_nb_plummer(int64_t n, uint64_t seed, double *x, double *v) {
  const double rs = 3 * M_PI / 16, vs = 1 / sqrt(rs);
  uint64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    double r;
    do r = 1 / sqrt(pow(lbs_rng_unit(seed, 1, k++) * (1 - 1e-12) + 1e-12, -2.0 / 3) - 1);
    while (r > 20);
    double ct = 2 * lbs_rng_unit(seed, 1, k++) - 1, ph = 2 * M_PI * lbs_rng_unit(seed, 1, k++),
           st = sqrt(1 - ct * ct);
    x[3 * i] = rs * r * st * cos(ph), x[3 * i + 1] = rs * r * st * sin(ph),
          x[3 * i + 2] = rs * r * ct;
    double q, y;
    do q = lbs_rng_unit(seed, 1, k++), y = 0.1 * lbs_rng_unit(seed, 1, k++);
    while (y > q * q * pow(1 - q * q, 3.5));
    double ve = q * sqrt(2.0) * pow(1 + r * r, -0.25);
    ct = 2 * lbs_rng_unit(seed, 1, k++) - 1, ph = 2 * M_PI * lbs_rng_unit(seed, 1, k++),
    st = sqrt(1 - ct * ct);
    v[3 * i] = vs * ve * st * cos(ph), v[3 * i + 1] = vs * ve * st * sin(ph),
          v[3 * i + 2] = vs * ve * ct;
  }
}

/* The cell graph: v -> w for w close to v (flag 1), and w -> v with flag 0 unless v is close to w.
 */
lbs_err lbs_nb_cell_graph(const lbs_nb_cells *g, int32_t L, int64_t **oxadj, int64_t **oadj,
                          double **oflag) {
  lbs_err e = LBS_OK;
  int64_t *xadj = NULL, *adj = NULL;
  double *flag = NULL;
  {
    int64_t nc = g->cx[L], *deg = calloc((size_t)L + 1, sizeof *deg), *fill = NULL;
    int64_t *src = malloc((size_t)(2 * nc + 1) * sizeof *src),
            *dst = malloc((size_t)(2 * nc + 1) * sizeof *dst);
    double *fl = malloc((size_t)(2 * nc + 1) * sizeof *fl);
    int64_t m = 0;
    if (!deg || !src || !dst || !fl) e = lbs_fail(LBS_NOMEM, "cell graph");
    for (int32_t a = 0; !e && a < L; a++)
      for (int64_t j = g->cx[a]; j < g->cx[a + 1]; j++) {
        int64_t b = g->close[j];
        src[m] = a, dst[m] = b, fl[m++] = 1;
        src[m] = b, dst[m] = a, fl[m++] = 0; /* merged below with b -> a when that is close too */
      }
    xadj = calloc((size_t)L + 1, sizeof *xadj), adj = malloc((size_t)(m + 1) * sizeof *adj);
    flag = malloc((size_t)(m + 1) * sizeof *flag), fill = malloc((size_t)(L + 1) * sizeof *fill);
    if (!e && (!xadj || !adj || !flag || !fill)) e = lbs_fail(LBS_NOMEM, "cell graph");
    if (!e) {
      /* bucket by source, then per row keep one entry per target with the larger flag */
      for (int64_t i = 0; i < m; i++) deg[src[i] + 1]++;
      for (int32_t a = 0; a < L; a++) deg[a + 1] += deg[a];
      memcpy(fill, deg, (size_t)L * sizeof *fill);
      int64_t *ta = malloc((size_t)(m + 1) * sizeof *ta);
      double *tf = malloc((size_t)(m + 1) * sizeof *tf);
      int64_t *seen = malloc((size_t)(L + 1) * sizeof *seen);
      if (!ta || !tf || !seen) e = lbs_fail(LBS_NOMEM, "cell graph");
      for (int64_t i = 0; !e && i < m; i++) ta[fill[src[i]]] = dst[i], tf[fill[src[i]]++] = fl[i];
      for (int32_t a = 0; !e && a <= L; a++) seen[a] = -1;
      int64_t k = 0;
      for (int32_t a = 0; !e && a < L; a++) {
        xadj[a] = k;
        for (int64_t i = deg[a]; i < deg[a + 1]; i++) {
          int64_t b = ta[i];
          if (seen[b] >= xadj[a])
            flag[seen[b]] = fmax(flag[seen[b]], tf[i]);
          else
            seen[b] = k, adj[k] = b, flag[k++] = tf[i];
        }
      }
      xadj[L] = k;
      free(ta), free(tf), free(seen);
    }
    free(deg), free(src), free(dst), free(fl), free(fill);
  }
  if (e) {
    free(xadj), free(adj), free(flag);
    return e;
  }
  *oxadj = xadj, *oadj = adj, *oflag = flag;
  return LBS_OK;
}

void lbs_nb_pwgt(const lbs_nb_tree *t, const lbs_nb_cells *g, const double *rw, double *cnt,
                 double *pw) {
  int32_t L = t->nleaf;
  memset(cnt, 0, (size_t)t->nn * sizeof *cnt);
  for (int32_t a = 0; a < L; a++) /* body counts of every node of the fixed tree */
    for (int32_t k = g->leaf_node[a]; k >= 0; k = t->nd[k].parent) cnt[k] += rw[a];
  for (int32_t a = 0; a < L; a++) {
    double close = 0, far = 0;
    for (int64_t j = g->cx[a]; j < g->cx[a + 1]; j++) close += rw[g->close[j]];
    for (int64_t j = g->fx[a]; j < g->fx[a + 1]; j++) far += cnt[g->far[j]] > 0;
    pw[a] = rw[a] > 0 ? rw[a] * (rw[a] - 1 + close + far) : 0;
  }
}

void lbs_nb_tree_free(lbs_nb_tree *t) {
  free(t->nd), free(t->idx);
  memset(t, 0, sizeof *t);
}

void lbs_nb_cells_free(lbs_nb_cells *g) {
  free(g->leaf_node), free(g->cx), free(g->close), free(g->fx), free(g->far);
  memset(g, 0, sizeof *g);
}
