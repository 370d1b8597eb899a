/* chaco.c - Chaco/METIS graph files (as used by Zoltan's and METIS's test meshes).
 *
 * Graph file: '%' lines are comments. Header "n m [fmt [ncon]]"; fmt's decimal digits,
 * read from the right, switch on edge weights (1), vertex weights (10, ncon of them, 1 by
 * default) and vertex sizes (100). Then exactly n vertex lines (an empty line is a vertex
 * with no neighbours): [size] [ncon weights] then neighbours numbered from 1, each
 * followed by its weight when edge weights are on. Undirected: every edge appears in both
 * of its vertices' lines and m counts it once. Coordinates file: n lines of 1 to 3
 * numbers. Every error names the file and the line. */
#include "traces_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *name, *p, *end;
  int64_t line; /* number of the line last returned */
} reader;

/* Next line that is not a comment; [*a, *b) its text. Returns 0 at end of input. */
static int next_line(reader *r, const char **a, const char **b, int skip_blank) {
  while (r->p < r->end) {
    const char *s = r->p, *e = memchr(s, '\n', (size_t)(r->end - s));
    if (!e) e = r->end;
    r->p = e < r->end ? e + 1 : e;
    r->line++;
    const char *q = s;
    while (q < e && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
    if (q < e && *q == '%') continue;
    if (skip_blank && q == e) continue;
    *a = s;
    *b = e;
    return 1;
  }
  return 0;
}

/* Parses the next number of [*p, end). 0: got one, 1: none left, -1: not a number. */
static int next_num(const char **p, const char *end, double *v, char *bad, size_t badn) {
  const char *q = *p;
  while (q < end && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
  if (q >= end) {
    *p = q;
    return 1;
  }
  char tmp[64];
  size_t k = 0;
  while (q + k < end && k < sizeof tmp - 1 && q[k] != ' ' && q[k] != '\t' && q[k] != '\r') {
    tmp[k] = q[k];
    k++;
  }
  tmp[k] = '\0';
  char *e;
  errno = 0;
  *v = strtod(tmp, &e);
  if (*e || errno == ERANGE || !isfinite(*v)) {
    snprintf(bad, badn, "%s", tmp);
    return -1;
  }
  *p = q + k;
  return 0;
}

static lbs_err parse_coords(const char *name, const char *text, size_t len, int64_t n, double **out,
                            int *dim_out) {
  reader r = {name, text, text + len, 0};
  double *c = NULL;
  int dim = 0;
  char bad[64];
  for (int64_t v = 0; v < n; v++) {
    const char *a, *b;
    if (!next_line(&r, &a, &b, 1)) {
      free(c);
      return lbs_fail(LBS_PARSE, "%s:%lld: file ends after %lld of %lld coordinate lines", name,
                      (long long)r.line, (long long)v, (long long)n);
    }
    double x[4];
    int k = 0, rc;
    while (k < 4 && (rc = next_num(&a, b, &x[k], bad, sizeof bad)) == 0) k++;
    if (k < 4 && rc < 0) {
      free(c);
      return lbs_fail(LBS_PARSE, "%s:%lld: '%s' is not a number", name, (long long)r.line, bad);
    }
    if (v == 0) {
      if (k < 1 || k > 3) {
        free(c);
        return lbs_fail(LBS_PARSE, "%s:%lld: expected 1 to 3 coordinates, found %d", name,
                        (long long)r.line, k);
      }
      dim = k;
      if (!(c = malloc((size_t)(n * dim) * sizeof *c))) return lbs_fail(LBS_NOMEM, "coordinates");
    } else if (k != dim) {
      free(c);
      return lbs_fail(LBS_PARSE, "%s:%lld: expected %d coordinates, found %d", name, (long long)r.line,
                      dim, k);
    }
    memcpy(c + v * dim, x, (size_t)dim * sizeof *x);
  }
  const char *a, *b;
  if (next_line(&r, &a, &b, 1)) {
    free(c);
    return lbs_fail(LBS_PARSE, "%s:%lld: more coordinate lines than the graph's %lld vertices", name,
                    (long long)r.line, (long long)n);
  }
  *out = c;
  *dim_out = dim;
  return LBS_OK;
}

lbs_err lbs__graph_parse(const char *gname, const char *gtext, size_t glen, int directed,
                         lbs_mesh **mesh, double **vwgt_out, int *ncon_out, const char *cname,
                         const char *ctext, size_t clen) {
  *mesh = NULL;
  *vwgt_out = NULL;
  reader r = {gname, gtext, gtext + glen, 0};
  const char *a, *b;
  char bad[64];
  if (!next_line(&r, &a, &b, 1)) return lbs_fail(LBS_PARSE, "%s: empty graph file", gname);
  double h[4];
  int nh = 0, rc = 0;
  while (nh < 4 && (rc = next_num(&a, b, &h[nh], bad, sizeof bad)) == 0) nh++;
  if ((nh < 4 && rc < 0) || nh < 2 || next_num(&a, b, &h[3], bad, sizeof bad) != 1)
    return lbs_fail(LBS_PARSE, "%s:%lld: header must be 'n m [fmt [ncon]]'", gname, (long long)r.line);
  for (int i = 0; i < nh; i++)
    if (h[i] < 0 || h[i] != floor(h[i]) || h[i] > 1e12)
      return lbs_fail(LBS_PARSE, "%s:%lld: header values must be non-negative integers", gname,
                      (long long)r.line);
  if ((nh > 2 && h[2] > 111) || (nh > 3 && h[3] > 16))
    return lbs_fail(LBS_PARSE, "%s:%lld: fmt must be at most 111 and ncon at most 16", gname,
                    (long long)r.line);
  int64_t n = (int64_t)h[0], m = (int64_t)h[1];
  int fmt = nh > 2 ? (int)h[2] : 0, ncon = nh > 3 ? (int)h[3] : 1;
  int ew = fmt % 10, vw = fmt / 10 % 10, vs = fmt / 100 % 10;
  if (n < 1) return lbs_fail(LBS_PARSE, "%s:%lld: the graph has no vertices", gname, (long long)r.line);
  if (ew > 1 || vw > 1 || vs > 1 || fmt > 111)
    return lbs_fail(LBS_PARSE, "%s:%lld: fmt %d is not one of 0, 1, 10, 11, 100, 101, 110, 111",
                    gname, (long long)r.line, fmt);
  if (ncon < 1 || ncon > 16 || (nh > 3 && !vw))
    return lbs_fail(LBS_PARSE, "%s:%lld: bad ncon %d", gname, (long long)r.line, ncon);
  if (!vw) ncon = 1;
  int64_t want = directed ? m : 2 * m, left = (int64_t)(r.end - r.p);
  /* each vertex needs a line and each listed neighbour two characters: a header that
   * promises more than the file can hold is wrong, and must not make us allocate for it */
  if (n > left + 1 || want > left / 2 + 1)
    return lbs_fail(LBS_PARSE, "%s:%lld: header says %lld vertices and %lld edges, more than the"
                    " %lld remaining bytes can hold", gname, (long long)r.line, (long long)n,
                    (long long)m, (long long)left);
  int64_t *xadj = malloc((size_t)(n + 1) * sizeof *xadj);
  int64_t *adj = malloc((size_t)(want ? want : 1) * sizeof *adj);
  double *w = malloc((size_t)(want ? want : 1) * sizeof *w);
  double *vwgt = malloc((size_t)(n * ncon) * sizeof *vwgt);
  double *coords = NULL;
  lbs_err e = LBS_OK;
  if (!xadj || !adj || !w || !vwgt) {
    e = lbs_fail(LBS_NOMEM, "graph of %lld vertices", (long long)n);
    goto done;
  }
  int64_t k = 0;
  for (int64_t v = 0; v < n && !e; v++) {
    xadj[v] = k;
    if (!next_line(&r, &a, &b, 0)) {
      e = lbs_fail(LBS_PARSE, "%s:%lld: file ends after %lld of %lld vertex lines", gname,
                   (long long)r.line, (long long)v, (long long)n);
      break;
    }
    double x;
    if (vs && (rc = next_num(&a, b, &x, bad, sizeof bad)) != 0) {
      e = lbs_fail(LBS_PARSE, "%s:%lld: vertex %lld: missing vertex size", gname, (long long)r.line,
                   (long long)(v + 1));
      break;
    }
    for (int c = 0; c < ncon && !e; c++) {
      if (!vw) {
        vwgt[v * ncon + c] = 1.0;
      } else if ((rc = next_num(&a, b, &vwgt[v * ncon + c], bad, sizeof bad)) != 0) {
        e = rc < 0 ? lbs_fail(LBS_PARSE, "%s:%lld: '%s' is not a number", gname, (long long)r.line, bad)
                   : lbs_fail(LBS_PARSE, "%s:%lld: vertex %lld: missing vertex weight", gname,
                              (long long)r.line, (long long)(v + 1));
      } else if (vwgt[v * ncon + c] < 0) {
        e = lbs_fail(LBS_PARSE, "%s:%lld: vertex %lld: negative vertex weight", gname,
                     (long long)r.line, (long long)(v + 1));
      }
    }
    while (!e && (rc = next_num(&a, b, &x, bad, sizeof bad)) == 0) {
      if (x != floor(x) || x < 1 || x > (double)n) {
        e = lbs_fail(LBS_PARSE, "%s:%lld: vertex %lld: neighbour %g outside 1..%lld", gname,
                     (long long)r.line, (long long)(v + 1), x, (long long)n);
        break;
      }
      if ((int64_t)x - 1 == v) {
        e = lbs_fail(LBS_PARSE, "%s:%lld: vertex %lld: self loop", gname, (long long)r.line,
                     (long long)(v + 1));
        break;
      }
      double wt = 1.0;
      if (ew && (rc = next_num(&a, b, &wt, bad, sizeof bad)) != 0) {
        e = lbs_fail(LBS_PARSE, "%s:%lld: vertex %lld: neighbour %g has no edge weight", gname,
                     (long long)r.line, (long long)(v + 1), x);
        break;
      }
      if (wt < 0) {
        e = lbs_fail(LBS_PARSE, "%s:%lld: vertex %lld: negative edge weight %g", gname,
                     (long long)r.line, (long long)(v + 1), wt);
        break;
      }
      if (k >= want) {
        e = lbs_fail(LBS_PARSE, "%s:%lld: more edges than the header's m = %lld", gname,
                     (long long)r.line, (long long)m);
        break;
      }
      adj[k] = (int64_t)x - 1;
      w[k++] = wt;
    }
    if (!e && rc < 0) e = lbs_fail(LBS_PARSE, "%s:%lld: '%s' is not a number", gname, (long long)r.line, bad);
  }
  if (e) goto done;
  xadj[n] = k;
  if (next_line(&r, &a, &b, 1)) {
    e = lbs_fail(LBS_PARSE, "%s:%lld: more vertex lines than the header's n = %lld", gname,
                 (long long)r.line, (long long)n);
    goto done;
  }
  if (k != want) {
    e = lbs_fail(LBS_PARSE, "%s: the header says m = %lld edges but the lines list %lld entries (expected %lld)",
                 gname, (long long)m, (long long)k, (long long)want);
    goto done;
  }
  int dim = 0;
  if (ctext && (e = parse_coords(cname, ctext, clen, n, &coords, &dim))) goto done;
  e = lbs__mesh_adopt(n, dim, coords, xadj, adj, w, directed, mesh);
  xadj = adj = NULL;
  w = coords = NULL;
  if (e) {
    e = lbs_fail(e, "%s: %s (vertices numbered from 0)", gname, lbs_errmsg());
    goto done;
  }
  *vwgt_out = vwgt;
  *ncon_out = ncon;
  vwgt = NULL;
done:
  free(xadj);
  free(adj);
  free(w);
  free(vwgt);
  free(coords);
  return e;
}

lbs_err lbs_chaco_parse(const char *gname, const char *gtext, size_t glen, const char *cname,
                        const char *ctext, size_t clen, lbs_mesh **mesh, double **vwgt, int *ncon) {
  return lbs__graph_parse(gname, gtext, glen, 0, mesh, vwgt, ncon, cname, ctext, clen);
}

lbs_err lbs_chaco_read(const char *graph_path, const char *coords_path, lbs_mesh **mesh,
                       double **vwgt, int *ncon) {
  char *g = NULL, *c = NULL;
  size_t gl = 0, cl = 0;
  lbs_err e = lbs_read_file(graph_path, &g, &gl);
  if (!e && coords_path) e = lbs_read_file(coords_path, &c, &cl);
  if (!e) e = lbs_chaco_parse(graph_path, g, gl, coords_path, c, cl, mesh, vwgt, ncon);
  free(g);
  free(c);
  return e;
}
