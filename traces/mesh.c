/* mesh.c - structured boxes and unstructured meshes: coordinates and CSR graphs. */
#include "traces_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static lbs_mesh *mesh_new(void) {
  lbs_mesh *m = calloc(1, sizeof *m);
  if (m) {
    m->bytes_elem = 1024;
    m->bytes_edge = 64;
  }
  return m;
}

lbs_err lbs_mesh_create_structured(int64_t nx, int64_t ny, int64_t nz, lbs_order order,
                                   lbs_mesh **out) {
  *out = NULL;
  if (nx < 1 || ny < 1 || nz < 1 || nx > (INT64_C(1) << 21) || ny > (INT64_C(1) << 21) ||
      nz > (INT64_C(1) << 21) || nx * ny > INT64_MAX / nz || nx * ny * nz > (INT64_C(1) << 34))
    return lbs_fail(LBS_INVAL, "bad structured mesh %lldx%lldx%lld", (long long)nx, (long long)ny,
                    (long long)nz);
  lbs_mesh *m = mesh_new();
  if (!m) return lbs_fail(LBS_NOMEM, "mesh");
  m->kind = LBS_MESH_STRUCTURED;
  m->dims[0] = nx;
  m->dims[1] = ny;
  m->dims[2] = nz;
  m->n = nx * ny * nz;
  m->order = order;
  m->dim = 3;
  *out = m;
  return LBS_OK;
}

void lbs_mesh_destroy(lbs_mesh **m) {
  if (!m || !*m) return;
  free((*m)->cell);
  free((*m)->coords);
  free((*m)->xadj);
  free((*m)->adjncy);
  free((*m)->adjwgt);
  free(*m);
  *m = NULL;
}

lbs_mesh_kind lbs_mesh_get_kind(const lbs_mesh *m) { return m->kind; }
int64_t lbs_mesh_elements(const lbs_mesh *m) { return m->n; }
lbs_order lbs_mesh_order(const lbs_mesh *m) { return m->order; }
int lbs_mesh_directed(const lbs_mesh *m) { return m->directed; }
double lbs_mesh_bytes_per_elem(const lbs_mesh *m) { return m->bytes_elem; }
double lbs_mesh_bytes_per_edge(const lbs_mesh *m) { return m->bytes_edge; }

int lbs_mesh_dim(const lbs_mesh *m) { return m->dim; }

double lbs_mesh_avg_degree(const lbs_mesh *m) {
  if (m->kind != LBS_MESH_STRUCTURED) return m->xadj ? (double)m->xadj[m->n] / (double)m->n : 0;
  double nx = (double)m->dims[0], ny = (double)m->dims[1], nz = (double)m->dims[2];
  return 2 * ((nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1)) / (nx * ny * nz);
}

void lbs_mesh_dims(const lbs_mesh *m, int64_t dims[3]) {
  for (int i = 0; i < 3; i++) dims[i] = m->kind == LBS_MESH_STRUCTURED ? m->dims[i] : 0;
}

void lbs_mesh_set_bytes(lbs_mesh *m, double per_elem, double per_edge) {
  m->bytes_elem = per_elem;
  m->bytes_edge = per_edge;
}

lbs_err lbs__mesh_set_cells(lbs_mesh *m, int64_t *cell_owned) {
  free(m->cell);
  m->cell = cell_owned;
  return LBS_OK;
}

const int64_t *lbs_mesh_cell_index(lbs_mesh *m) {
  if (m->kind != LBS_MESH_STRUCTURED) return NULL;
  if (!m->cell) {
    int64_t *c = malloc((size_t)m->n * sizeof *c);
    if (!c) return NULL;
    if (m->order == LBS_ORDER_HILBERT) {
      if (lbs_hilbert_order(m->dims[0], m->dims[1], m->dims[2], c)) {
        free(c);
        return NULL;
      }
    } else {
      for (int64_t e = 0; e < m->n; e++) c[e] = e;
    }
    m->cell = c;
  }
  return m->cell;
}

lbs_err lbs_mesh_coords(lbs_mesh *m, const double **coords, int *dim) {
  *coords = NULL;
  *dim = m->dim;
  if (m->kind == LBS_MESH_STRUCTURED && !m->coords) {
    const int64_t *cell = lbs_mesh_cell_index(m);
    double *x = cell ? malloc((size_t)m->n * 3 * sizeof *x) : NULL;
    if (!x) return lbs_fail(LBS_NOMEM, "coordinates of %lld cells", (long long)m->n);
    int64_t nx = m->dims[0], ny = m->dims[1];
    for (int64_t e = 0; e < m->n; e++) {
      int64_t c = cell[e];
      x[3 * e] = (double)(c % nx) + 0.5;
      x[3 * e + 1] = (double)((c / nx) % ny) + 0.5;
      x[3 * e + 2] = (double)(c / (nx * ny)) + 0.5;
    }
    m->coords = x;
  }
  *coords = m->coords;
  return LBS_OK;
}

static lbs_err structured_graph(lbs_mesh *m) {
  const int64_t *cell = lbs_mesh_cell_index(m);
  int64_t n = m->n, nx = m->dims[0], ny = m->dims[1], nz = m->dims[2];
  int64_t *elem = malloc((size_t)n * sizeof *elem), *xadj = malloc((size_t)(n + 1) * sizeof *xadj);
  int64_t *adj = malloc((size_t)n * 6 * sizeof *adj);
  if (!cell || !elem || !xadj || !adj) {
    free(elem);
    free(xadj);
    free(adj);
    return lbs_fail(LBS_NOMEM, "graph of %lld cells", (long long)n);
  }
  for (int64_t e = 0; e < n; e++) elem[cell[e]] = e;
  int64_t k = 0;
  for (int64_t e = 0; e < n; e++) {
    int64_t c = cell[e], i = c % nx, j = (c / nx) % ny, l = c / (nx * ny);
    xadj[e] = k;
    if (i > 0) adj[k++] = elem[c - 1];
    if (i + 1 < nx) adj[k++] = elem[c + 1];
    if (j > 0) adj[k++] = elem[c - nx];
    if (j + 1 < ny) adj[k++] = elem[c + nx];
    if (l > 0) adj[k++] = elem[c - nx * ny];
    if (l + 1 < nz) adj[k++] = elem[c + nx * ny];
  }
  xadj[n] = k;
  free(elem);
  double *w = malloc((size_t)(k ? k : 1) * sizeof *w);
  if (!w) {
    free(xadj);
    free(adj);
    return lbs_fail(LBS_NOMEM, "graph weights");
  }
  for (int64_t i = 0; i < k; i++) w[i] = 1.0;
  m->xadj = xadj;
  m->adjncy = adj;
  m->adjwgt = w;
  return LBS_OK;
}

lbs_err lbs_mesh_graph(lbs_mesh *m, const int64_t **xadj, const int64_t **adjncy,
                       const double **adjwgt) {
  if (!m->xadj) {
    lbs_err e = structured_graph(m);
    if (e) return e;
  }
  *xadj = m->xadj;
  *adjncy = m->adjncy;
  *adjwgt = m->adjwgt;
  return LBS_OK;
}

typedef struct {
  int64_t v;
  double w;
} nbr;

static int cmp_nbr(const void *a, const void *b) {
  const nbr *x = a, *y = b;
  return (x->v > y->v) - (x->v < y->v);
}

/* Checks the rows one by one: neighbours in range, no self loop, weights finite and not
 * negative, no duplicate (found in a sorted copy of each row: the rows keep their order). */
static lbs_err check_rows(int64_t n, const int64_t *xadj, const int64_t *adjncy,
                          const double *adjwgt) {
  nbr *row = NULL;
  size_t cap = 0;
  lbs_err e = LBS_OK;
  for (int64_t v = 0; v < n && !e; v++) {
    int64_t a = xadj[v], deg = xadj[v + 1] - a;
    if ((size_t)deg > cap) {
      nbr *r = realloc(row, (size_t)deg * sizeof *r);
      if (!r) {
        e = lbs_fail(LBS_NOMEM, "graph row");
        break;
      }
      row = r;
      cap = (size_t)deg;
    }
    for (int64_t k = 0; k < deg; k++) {
      int64_t u = adjncy[a + k];
      double w = adjwgt[a + k];
      if (u < 0 || u >= n)
        e = lbs_fail(LBS_INVAL, "vertex %lld: neighbour %lld out of range", (long long)v,
                     (long long)u);
      else if (u == v)
        e = lbs_fail(LBS_INVAL, "vertex %lld: self loop", (long long)v);
      else if (!isfinite(w) || w < 0)
        e = lbs_fail(LBS_INVAL, "edge %lld-%lld: weight %g is negative or not finite", (long long)v,
                     (long long)u, w);
      if (e) break;
      row[k].v = u;
      row[k].w = w;
    }
    if (e) break;
    if (deg > 1) qsort(row, (size_t)deg, sizeof *row, cmp_nbr);
    for (int64_t k = 1; k < deg; k++)
      if (row[k].v == row[k - 1].v) {
        e = lbs_fail(LBS_INVAL, "vertex %lld: duplicate edge to %lld", (long long)v,
                     (long long)row[k].v);
        break;
      }
  }
  free(row);
  return e;
}

/* An undirected graph: every edge has its reverse, with the same weight. The reverse edges are
 * looked up in a sorted copy of the rows (the rows themselves keep their order). */
static lbs_err check_reverse(int64_t n, const int64_t *xadj, const int64_t *adjncy,
                             const double *adjwgt) {
  int64_t ne = xadj[n];
  nbr *sorted = malloc((size_t)(ne ? ne : 1) * sizeof *sorted);
  if (!sorted) return lbs_fail(LBS_NOMEM, "graph of %lld edges", (long long)ne);
  for (int64_t k = 0; k < ne; k++) sorted[k].v = adjncy[k], sorted[k].w = adjwgt[k];
  for (int64_t v = 0; v < n; v++)
    if (xadj[v + 1] - xadj[v] > 1)
      qsort(sorted + xadj[v], (size_t)(xadj[v + 1] - xadj[v]), sizeof *sorted, cmp_nbr);
  lbs_err e = LBS_OK;
  for (int64_t v = 0; v < n && !e; v++)
    for (int64_t k = xadj[v]; k < xadj[v + 1]; k++) {
      int64_t u = adjncy[k], lo = xadj[u], hi = xadj[u + 1];
      while (lo < hi) { /* binary search for v in row u */
        int64_t mid = lo + (hi - lo) / 2;
        if (sorted[mid].v < v)
          lo = mid + 1;
        else
          hi = mid;
      }
      if (lo == xadj[u + 1] || sorted[lo].v != v) {
        e = lbs_fail(LBS_INVAL, "edge %lld-%lld has no reverse edge in an undirected graph",
                     (long long)v, (long long)u);
        break;
      }
      if (sorted[lo].w != adjwgt[k]) {
        e = lbs_fail(LBS_INVAL, "edge %lld-%lld: weights differ in the two directions",
                     (long long)v, (long long)u);
        break;
      }
    }
  free(sorted);
  return e;
}

/* Checks the CSR arrays (ranges, self loops, duplicates, an undirected graph's reverse edges and
 * their weights), leaving every row in the order it came: METIS's answer depends on it. */
static lbs_err validate(int64_t n, int dim, const double *coords, int64_t *xadj, int64_t *adjncy,
                        double *adjwgt, int directed) {
  if (n < 1) return lbs_fail(LBS_INVAL, "a mesh needs at least one element");
  if (dim < 0 || dim > 3) return lbs_fail(LBS_INVAL, "coordinates need 1 to 3 dimensions");
  for (int64_t i = 0; coords && i < n * dim; i++)
    if (!isfinite(coords[i]))
      return lbs_fail(LBS_INVAL, "vertex %lld: coordinate is not finite", (long long)(i / dim));
  if (xadj[0] != 0) return lbs_fail(LBS_INVAL, "CSR offsets must start at 0");
  for (int64_t v = 0; v < n; v++)
    if (xadj[v + 1] < xadj[v])
      return lbs_fail(LBS_INVAL, "vertex %lld: CSR offsets decrease", (long long)v);
  lbs_err e = check_rows(n, xadj, adjncy, adjwgt);
  if (e || directed) return e;
  return check_reverse(n, xadj, adjncy, adjwgt);
}

lbs_err lbs__mesh_adopt(int64_t n, int dim, double *coords, int64_t *xadj, int64_t *adjncy,
                        double *adjwgt, int directed, lbs_mesh **out) {
  *out = NULL;
  lbs_err e = validate(n, coords ? dim : 0, coords, xadj, adjncy, adjwgt, directed);
  lbs_mesh *m = e ? NULL : mesh_new();
  if (!e && !m) e = lbs_fail(LBS_NOMEM, "mesh");
  if (e) {
    free(coords);
    free(xadj);
    free(adjncy);
    free(adjwgt);
    return e;
  }
  m->kind = LBS_MESH_UNSTRUCTURED;
  m->n = n;
  m->dim = coords ? dim : 0;
  m->directed = directed != 0;
  m->coords = coords;
  m->xadj = xadj;
  m->adjncy = adjncy;
  m->adjwgt = adjwgt;
  *out = m;
  return LBS_OK;
}

lbs_err lbs_mesh_create_unstructured(int64_t n, int dim, const double *coords, const int64_t *xadj,
                                     const int64_t *adjncy, const double *adjwgt, int directed,
                                     lbs_mesh **out) {
  *out = NULL;
  if (n < 1 || !xadj) return lbs_fail(LBS_INVAL, "a mesh needs at least one element and offsets");
  int64_t ne = xadj[n];
  if (ne < 0) return lbs_fail(LBS_INVAL, "negative edge count");
  double *c = coords && dim > 0 ? malloc((size_t)(n * dim) * sizeof *c) : NULL;
  int64_t *x = malloc((size_t)(n + 1) * sizeof *x);
  int64_t *a = malloc((size_t)(ne ? ne : 1) * sizeof *a);
  double *w = malloc((size_t)(ne ? ne : 1) * sizeof *w);
  if ((coords && dim > 0 && !c) || !x || !a || !w) {
    free(c);
    free(x);
    free(a);
    free(w);
    return lbs_fail(LBS_NOMEM, "mesh of %lld elements", (long long)n);
  }
  if (c) memcpy(c, coords, (size_t)(n * dim) * sizeof *c);
  memcpy(x, xadj, (size_t)(n + 1) * sizeof *x);
  if (ne) memcpy(a, adjncy, (size_t)ne * sizeof *a);
  for (int64_t i = 0; i < ne; i++) w[i] = adjwgt ? adjwgt[i] : 1.0;
  return lbs__mesh_adopt(n, dim, c, x, a, w, directed, out);
}

/* ---------------------------------------------------------------- one rank's rows */

void lbs_mesh_rows_free(lbs_mesh_rows *r) {
  if (!r) return;
  free(r->coords), free(r->xadj), free(r->adj), free(r->adjw);
  r->coords = r->adjw = NULL;
  r->xadj = r->adj = NULL;
}

/* A structured box's rows: elem (NULL: natural order) maps a cell to its element, cell (NULL:
 * natural) an element to its cell; the neighbour order is structured_graph's. */
static lbs_err box_rows(const lbs_mesh *m, const int64_t *cell, const int64_t *elem,
                        lbs_mesh_rows *r) {
  int64_t nx = m->dims[0], ny = m->dims[1], nz = m->dims[2], n = r->n;
  if (r->coords)
    for (int64_t i = 0; i < n; i++) {
      int64_t c = cell ? cell[r->first + i] : r->first + i;
      r->coords[3 * i] = (double)(c % nx) + 0.5;
      r->coords[3 * i + 1] = (double)((c / nx) % ny) + 0.5;
      r->coords[3 * i + 2] = (double)(c / (nx * ny)) + 0.5;
    }
  if (!r->xadj) return LBS_OK;
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t c = cell ? cell[r->first + i] : r->first + i, a = c % nx, b = (c / nx) % ny,
            l = c / (nx * ny);
    int64_t nb[6], d = 0;
    if (a > 0) nb[d++] = c - 1;
    if (a + 1 < nx) nb[d++] = c + 1;
    if (b > 0) nb[d++] = c - nx;
    if (b + 1 < ny) nb[d++] = c + nx;
    if (l > 0) nb[d++] = c - nx * ny;
    if (l + 1 < nz) nb[d++] = c + nx * ny;
    r->xadj[i] = k;
    for (int64_t j = 0; j < d; j++) r->adj[k++] = elem ? elem[nb[j]] : nb[j];
  }
  r->xadj[n] = k;
  return LBS_OK;
}

lbs_err lbs_mesh_rows_get(lbs_mesh *m, int64_t first, int64_t n, int want_coords, int want_graph,
                          lbs_mesh_rows *out) {
  memset(out, 0, sizeof *out);
  if (first < 0 || n < 0 || first > m->n || n > m->n - first)
    return lbs_fail(LBS_RANGE, "mesh rows [%lld, %lld) outside its %lld elements", (long long)first,
                    (long long)(first + n), (long long)m->n);
  out->first = first, out->n = n, out->dim = m->dim;
  int structured = m->kind == LBS_MESH_STRUCTURED;
  int64_t ne = 0;
  if (want_graph) {
    if (structured) {
      ne = 6 * n; /* at most; trimmed below */
    } else {
      ne = m->xadj[first + n] - m->xadj[first];
    }
  }
  if (want_coords && m->dim && (structured || m->coords))
    out->coords = malloc((size_t)(n * m->dim + 1) * sizeof *out->coords);
  if (want_graph) {
    out->xadj = malloc((size_t)(n + 1) * sizeof *out->xadj);
    out->adj = malloc((size_t)(ne + 1) * sizeof *out->adj);
  }
  if ((want_coords && m->dim && (structured || m->coords) && !out->coords) ||
      (want_graph && (!out->xadj || !out->adj))) {
    lbs_mesh_rows_free(out);
    return lbs_fail(LBS_NOMEM, "mesh rows of %lld elements", (long long)n);
  }
  lbs_err e = LBS_OK;
  if (structured) {
    const int64_t *cell = m->order == LBS_ORDER_HILBERT ? lbs_mesh_cell_index(m) : NULL;
    int64_t *elem = NULL;
    if (m->order == LBS_ORDER_HILBERT &&
        (!cell || (want_graph && !(elem = malloc((size_t)m->n * sizeof *elem)))))
      e = lbs_fail(LBS_NOMEM, "cell index of %lld cells", (long long)m->n);
    for (int64_t i = 0; !e && elem && i < m->n; i++) elem[cell[i]] = i;
    if (!e) e = box_rows(m, cell, elem, out);
    free(elem);
    if (!e && want_graph) { /* give back what the boundary cells did not use */
      int64_t *a = realloc(out->adj, (size_t)(out->xadj[n] + 1) * sizeof *a);
      if (a) out->adj = a;
    }
  } else {
    if (out->coords)
      memcpy(out->coords, m->coords + first * m->dim, (size_t)(n * m->dim) * sizeof *out->coords);
    if (want_graph) {
      int64_t base = m->xadj[first], ones = 1;
      for (int64_t i = 0; i <= n; i++) out->xadj[i] = m->xadj[first + i] - base;
      if (ne) memcpy(out->adj, m->adjncy + base, (size_t)ne * sizeof *out->adj);
      for (int64_t k = 0; k < ne && ones; k++) ones = m->adjwgt[base + k] == 1.0;
      if (!ones) {
        if (!(out->adjw = malloc((size_t)ne * sizeof *out->adjw)))
          e = lbs_fail(LBS_NOMEM, "mesh rows' weights");
        else
          memcpy(out->adjw, m->adjwgt + base, (size_t)ne * sizeof *out->adjw);
      }
    }
  }
  if (e) lbs_mesh_rows_free(out);
  return e;
}
