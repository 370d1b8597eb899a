/* chaco.c - Chaco/METIS graph files (as used by Zoltan's and METIS's test meshes).
 *
 * Graph file: lines whose first non-blank character is '%' or '#' are comments, and so is
 * the rest of a line from a word that starts with one of them. Header "n m [fmt [ncon]]";
 * fmt's decimal digits, read from the right, switch on edge weights (1), vertex weights (10,
 * ncon of them, 1 by default) and vertex sizes (100). Then n vertex lines (an empty line is
 * a vertex with no neighbours): [size] [ncon weights] then neighbours numbered from 1, each
 * followed by its weight when edge weights are on. Weights may be zero or real-valued.
 * Undirected: every edge appears in both of its vertices' lines and m counts it once.
 * Coordinates file: n lines of 1 to 3 numbers. Every error names the file and the line.
 *
 * The public reader forgives what Zoltan's reader (ch_input_graph.c) forgives with its input
 * checks on (Debug_Chaco_Input; off, it checks nothing), and reports each kind once in
 * lbs_chaco_notes:
 *  - self loops are dropped;
 *  - a header m that counts every edge in both directions (Zoltan's 7944 and drake) is taken,
 *    because Zoltan takes it: there m only sizes the arrays and a mismatch is a warning. The
 *    adjacency itself must still be symmetric, so nothing of the graph is guessed; gpmetis
 *    refuses these files ("you specified twice the number of edges"). Any other m is
 *    refused, with the count of edges the lines give;
 *  - vertices after the last vertex line have no neighbours (Zoltan's nograph, "25 0" and
 *    nothing else), when the format has no vertex weights or sizes that they would lack.
 * Comment lines among the vertex lines are skipped, as METIS skips them (Zoltan would read
 * one as a vertex without neighbours; a comment after numbers stalls its reader). An edge of
 * weight 0 is kept, as Zoltan keeps it with its checks off (its test driver's default; on,
 * it drops the edge). A duplicate neighbour is refused (Zoltan drops it with a warning).
 * The steps-directory reader calls the parser without notes and keeps the strict rules: m
 * exact, no self loops, n vertex lines. */
#include "traces_int.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* trailing vertices without a line that are read as isolated ones, at most */
#define MAX_IMPLIED_VERTICES ((int64_t)1 << 20)

typedef struct {
  const char *name, *p, *end;
  int64_t line; /* number of the line last returned */
} reader;

static int is_comment(char c) { return c == '%' || c == '#'; }

/* Next line that is not a comment; [*a, *b) its text. Returns 0 at end of input. */
static int next_line(reader *r, const char **a, const char **b, int skip_blank) {
  while (r->p < r->end) {
    const char *s = r->p, *e = memchr(s, '\n', (size_t)(r->end - s));
    if (!e) e = r->end;
    r->p = e < r->end ? e + 1 : e;
    r->line++;
    const char *q = s;
    while (q < e && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
    if (q < e && is_comment(*q)) continue;
    if (skip_blank && q == e) continue;
    *a = s;
    *b = e;
    return 1;
  }
  return 0;
}

/* Parses the next number of [*p, end). 0: got one, 1: none left (end of line, or a comment
 * to its end), -1: not a number. */
static int next_num(const char **p, const char *end, double *v, char *bad, size_t badn) {
  const char *q = *p;
  while (q < end && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
  if (q >= end || is_comment(*q)) {
    *p = end;
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

/* Makes room for need elements of size sz in *p (capacity *cap, doubled). 0 or -1. */
static int reserve(void **p, int64_t *cap, int64_t need, size_t sz) {
  if (need <= *cap) return 0;
  int64_t c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  void *q = realloc(*p, (size_t)c * sz);
  if (!q) return -1;
  *p = q;
  *cap = c;
  return 0;
}

static void note(lbs_chaco_notes *nt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(lbs_chaco_notes *nt, const char *fmt, ...) {
  if (nt->nwarn >= LBS_CHACO_MAX_WARNINGS) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(nt->warning[nt->nwarn++], sizeof nt->warning[0], fmt, ap);
  va_end(ap);
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
                         const char *ctext, size_t clen, lbs_chaco_notes *notes) {
  *mesh = NULL;
  *vwgt_out = NULL;
  int lenient = notes && !directed;
  if (notes) memset(notes, 0, sizeof *notes);
  reader r = {gname, gtext, gtext + glen, 0};
  const char *a, *b;
  char bad[64];
  if (!next_line(&r, &a, &b, 1)) return lbs_fail(LBS_PARSE, "%s: empty graph file", gname);
  int64_t hline = r.line;
  double h[4];
  int nh = 0, rc = 0;
  while (nh < 4 && (rc = next_num(&a, b, &h[nh], bad, sizeof bad)) == 0) nh++;
  if ((nh < 4 && rc < 0) || nh < 2 || next_num(&a, b, &h[3], bad, sizeof bad) != 1)
    return lbs_fail(LBS_PARSE, "%s:%lld: header must be 'n m [fmt [ncon]]'", gname, (long long)hline);
  for (int i = 0; i < nh; i++)
    if (h[i] < 0 || h[i] != floor(h[i]) || h[i] > 1e12)
      return lbs_fail(LBS_PARSE, "%s:%lld: header values must be non-negative integers", gname,
                      (long long)hline);
  if ((nh > 2 && h[2] > 111) || (nh > 3 && h[3] > 16))
    return lbs_fail(LBS_PARSE, "%s:%lld: fmt must be at most 111 and ncon at most 16", gname,
                    (long long)hline);
  int64_t n = (int64_t)h[0], m = (int64_t)h[1];
  int fmt = nh > 2 ? (int)h[2] : 0, ncon = nh > 3 ? (int)h[3] : 1;
  int ew = fmt % 10, vw = fmt / 10 % 10, vs = fmt / 100 % 10;
  if (n < 1) return lbs_fail(LBS_PARSE, "%s:%lld: the graph has no vertices", gname, (long long)hline);
  if (ew > 1 || vw > 1 || vs > 1 || fmt > 111)
    return lbs_fail(LBS_PARSE, "%s:%lld: fmt %d is not one of 0, 1, 10, 11, 100, 101, 110, 111",
                    gname, (long long)hline, fmt);
  if (ncon < 1 || ncon > 16 || (nh > 3 && !vw))
    return lbs_fail(LBS_PARSE, "%s:%lld: bad ncon %d", gname, (long long)hline, ncon);
  if (!vw) ncon = 1;
  /* the most neighbour entries the header allows: 2m (m) when m counts each edge once (each
   * listed entry); arrays grow with what the lines hold, never with what the header says */
  int64_t most = directed ? m : 2 * m;
  int64_t *xadj = NULL, *adj = NULL;
  double *w = NULL, *vwgt = NULL, *coords = NULL;
  int64_t xcap = 0, vcap = 0, acap = 0, wcap = 0;
  int64_t k = 0, v = 0, loops = 0, missing = 0, last_line = 0;
  lbs_err e = LBS_OK;
  for (; v < n && !e; v++) {
    if (!next_line(&r, &a, &b, 0)) break;
    if (reserve((void **)&xadj, &xcap, v + 2, sizeof *xadj) ||
        reserve((void **)&vwgt, &vcap, (v + 1) * ncon, sizeof *vwgt)) {
      e = lbs_fail(LBS_NOMEM, "graph of %lld vertices", (long long)n);
      break;
    }
    xadj[v] = k;
    double x;
    if (vs && (rc = next_num(&a, b, &x, bad, sizeof bad)) != 0) {
      e = rc < 0 ? lbs_fail(LBS_PARSE, "%s:%lld: '%s' is not a number", gname, (long long)r.line, bad)
                 : lbs_fail(LBS_PARSE, "%s:%lld: vertex %lld: missing vertex size", gname,
                            (long long)r.line, (long long)(v + 1));
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
      int self = (int64_t)x - 1 == v;
      if (self && !lenient) {
        e = lbs_fail(LBS_PARSE, "%s:%lld: vertex %lld: self loop", gname, (long long)r.line,
                     (long long)(v + 1));
        break;
      }
      double wt = 1.0;
      if (ew && (rc = next_num(&a, b, &wt, bad, sizeof bad)) != 0) {
        e = rc < 0 ? lbs_fail(LBS_PARSE, "%s:%lld: '%s' is not a number", gname, (long long)r.line, bad)
                   : lbs_fail(LBS_PARSE, "%s:%lld: vertex %lld: neighbour %g has no edge weight",
                              gname, (long long)r.line, (long long)(v + 1), x);
        break;
      }
      if (wt < 0) {
        e = lbs_fail(LBS_PARSE, "%s:%lld: vertex %lld: negative edge weight %g", gname,
                     (long long)r.line, (long long)(v + 1), wt);
        break;
      }
      if (self) { /* dropped, as Zoltan drops it; reported once with the count */
        if (!loops++) {
          notes->self_loop_line = r.line;
          notes->self_loop_vertex = v + 1;
        }
        continue;
      }
      if (k >= most) {
        e = lbs_fail(LBS_PARSE, "%s:%lld: more edges than the header's m = %lld%s", gname,
                     (long long)r.line, (long long)m,
                     directed ? "" : " (each listed in both of its vertices' lines)");
        break;
      }
      if (reserve((void **)&adj, &acap, k + 1, sizeof *adj) ||
          reserve((void **)&w, &wcap, k + 1, sizeof *w)) {
        e = lbs_fail(LBS_NOMEM, "graph of %lld edges", (long long)k);
        break;
      }
      adj[k] = (int64_t)x - 1;
      w[k++] = wt;
    }
    if (!e && rc < 0) e = lbs_fail(LBS_PARSE, "%s:%lld: '%s' is not a number", gname, (long long)r.line, bad);
  }
  if (e) goto done;
  last_line = r.line;
  if (v < n) { /* the file ends early: isolated vertices (Zoltan's nograph), or truncated */
    missing = n - v;
    if (!lenient || vw || vs) {
      e = lbs_fail(LBS_PARSE, "%s:%lld: file ends after %lld of %lld vertex lines%s", gname,
                   (long long)r.line, (long long)v, (long long)n,
                   lenient ? " (the format's vertex weights or sizes need a line per vertex)" : "");
      goto done;
    }
    if (missing > MAX_IMPLIED_VERTICES) {
      e = lbs_fail(LBS_PARSE, "%s:%lld: file ends after %lld of the header's %lld vertex lines: "
                   "more than %lld vertices without a line are not read as isolated ones",
                   gname, (long long)r.line, (long long)v, (long long)n,
                   (long long)MAX_IMPLIED_VERTICES);
      goto done;
    }
    if (reserve((void **)&xadj, &xcap, n + 1, sizeof *xadj) ||
        reserve((void **)&vwgt, &vcap, n * ncon, sizeof *vwgt)) {
      e = lbs_fail(LBS_NOMEM, "graph of %lld vertices", (long long)n);
      goto done;
    }
    for (; v < n; v++) {
      xadj[v] = k;
      vwgt[v] = 1.0; /* ncon is 1: no vertex weights */
    }
  }
  xadj[n] = k;
  if (!adj && (reserve((void **)&adj, &acap, 1, sizeof *adj) || reserve((void **)&w, &wcap, 1, sizeof *w))) {
    e = lbs_fail(LBS_NOMEM, "graph");
    goto done;
  }
  if (next_line(&r, &a, &b, 1)) {
    e = lbs_fail(LBS_PARSE, "%s:%lld: more vertex lines than the header's n = %lld", gname,
                 (long long)r.line, (long long)n);
    goto done;
  }
  if (!lenient && k != most) {
    e = lbs_fail(LBS_PARSE, "%s:%lld: the header says m = %lld edges but the lines list %lld entries (expected %lld)",
                 gname, (long long)hline, (long long)m, (long long)k, (long long)most);
    goto done;
  }
  int dim = 0;
  if (ctext && (e = parse_coords(cname, ctext, clen, n, &coords, &dim))) goto done;
  /* validates range, duplicates and (undirected) that every edge is listed both ways */
  e = lbs__mesh_adopt(n, dim, coords, xadj, adj, w, directed, mesh);
  xadj = adj = NULL;
  w = coords = NULL;
  if (e && missing) { /* most likely a truncated file: say so first */
    e = lbs_fail(e, "%s:%lld: file ends after %lld of %lld vertex lines, and the vertices without"
                 " a line cannot be isolated ones: %s (vertices numbered from 0)", gname,
                 (long long)last_line, (long long)(n - missing), (long long)n, lbs_errmsg());
    goto done;
  }
  if (e) {
    e = lbs_fail(e, "%s: %s (vertices numbered from 0)", gname, lbs_errmsg());
    goto done;
  }
  if (lenient) {
    /* k entries of a symmetric adjacency: k/2 edges. Zoltan takes m as 2m = k, k + s or k + 2s
     * (s self loops counted once or twice) and, with a warning, any m up to k/2; we take the
     * m that count each edge once or every entry once. */
    int64_t edges = k / 2, s = loops;
    notes->edges = edges;
    notes->self_loops = s;
    notes->missing_lines = missing;
    if (2 * m == k || 2 * m == k + s || 2 * m == k + 2 * s) {
      /* m counts each edge once */
    } else if (m == k || m == k + s) {
      notes->m_both_directions = 1;
      note(notes, "%s:%lld: the header says m = %lld, but the lines hold %lld edges: m counts every"
           " edge in both directions%s (Zoltan takes it; gpmetis refuses it)", gname,
           (long long)hline, (long long)m, (long long)edges, m == k + s && s ? " and the self loops" : "");
    } else if (missing) {
      e = lbs_fail(LBS_PARSE, "%s:%lld: file ends after %lld of %lld vertex lines, and the ones"
                   " there hold %lld edges where the header says m = %lld", gname,
                   (long long)last_line, (long long)(n - missing), (long long)n, (long long)edges,
                   (long long)m);
      lbs_mesh_destroy(mesh);
      goto done;
    } else {
      e = lbs_fail(LBS_PARSE, "%s:%lld: the header says m = %lld edges, but the vertex lines hold "
                   "%lld (%lld neighbour entries, each edge listed in both of its vertices' lines%s)",
                   gname, (long long)hline, (long long)m, (long long)edges, (long long)k,
                   s ? ", self loops left out" : "");
      lbs_mesh_destroy(mesh);
      goto done;
    }
    if (s)
      note(notes, "%s:%lld: vertex %lld: self loop dropped, as Zoltan drops them (%lld in all)",
           gname, (long long)notes->self_loop_line, (long long)notes->self_loop_vertex, (long long)s);
    if (missing)
      note(notes, "%s:%lld: file ends after %lld of %lld vertex lines: the last %lld vertices read"
           " as isolated ones, as Zoltan reads them", gname, (long long)last_line,
           (long long)(n - missing), (long long)n, (long long)missing);
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
                        const char *ctext, size_t clen, lbs_mesh **mesh, double **vwgt, int *ncon,
                        lbs_chaco_notes *notes) {
  lbs_chaco_notes local;
  return lbs__graph_parse(gname, gtext, glen, 0, mesh, vwgt, ncon, cname, ctext, clen,
                          notes ? notes : &local);
}

lbs_err lbs_chaco_read(const char *graph_path, const char *coords_path, lbs_mesh **mesh,
                       double **vwgt, int *ncon, lbs_chaco_notes *notes) {
  char *g = NULL, *c = NULL;
  size_t gl = 0, cl = 0;
  lbs_err e = lbs_read_file(graph_path, &g, &gl);
  if (!e && coords_path) e = lbs_read_file(coords_path, &c, &cl);
  if (!e) e = lbs_chaco_parse(graph_path, g, gl, coords_path, c, cl, mesh, vwgt, ncon, notes);
  free(g);
  free(c);
  return e;
}

/* ---------------------------------------------------------------- import as a trace */

char *lbs_chaco_metric_name(int ncon, int k, char *buf) {
  snprintf(buf, 16, ncon == 1 ? "weight" : "weight%d", k);
  return buf;
}

/* The metric specs of a graph with ncon vertex weights under enc, names in names[k]. */
static lbs_err chaco_specs(int ncon, const lbs_encoding *enc, lbs_metric_spec *ms, char (*names)[16]) {
  if (ncon < 1 || ncon > LBS_CHACO_MAX_NCON)
    return lbs_fail(LBS_INVAL, "%d vertex weights (1 to %d)", ncon, LBS_CHACO_MAX_NCON);
  const lbs_bound dflt = {LBS_BOUND_LOSSLESS, 0};
  const char *np[LBS_CHACO_MAX_NCON];
  for (int k = 0; k < ncon; k++) {
    np[k] = lbs_chaco_metric_name(ncon, k, names[k]);
    ms[k] = (lbs_metric_spec){names[k], "1", LBS_CODEC_LOSSLESS, dflt, {0, 0}};
    lbs_err e = lbs_encoding_resolve(enc, names[k], LBS_CODEC_LOSSLESS, dflt, &ms[k].codec, &ms[k].bound);
    if (e) return e;
  }
  return lbs_encoding_check_names(enc, np, ncon);
}

lbs_err lbs_chaco_check_encoding(int ncon, const lbs_encoding *enc) {
  lbs_metric_spec ms[LBS_CHACO_MAX_NCON];
  char names[LBS_CHACO_MAX_NCON][16];
  return chaco_specs(ncon, enc, ms, names);
}

lbs_err lbs_chaco_write_trace(const char *graph_path, lbs_mesh *mesh, const double *vwgt, int ncon,
                              const lbs_encoding *enc, int64_t chunk_elems, const char *out_path) {
  lbs_metric_spec ms[LBS_CHACO_MAX_NCON];
  char names[LBS_CHACO_MAX_NCON][16];
  lbs_err e = chaco_specs(ncon, enc, ms, names);
  if (e) return e;
  /* the weights a vertex, n x ncon, become one column a metric */
  int64_t n = lbs_mesh_elements(mesh);
  const double *cols[LBS_CHACO_MAX_NCON];
  double *v = malloc((size_t)(n * ncon) * sizeof *v);
  if (!v) return lbs_fail(LBS_NOMEM, "weights");
  for (int k = 0; k < ncon; k++) {
    for (int64_t i = 0; i < n; i++) v[k * n + i] = vwgt[i * ncon + k];
    cols[k] = v + k * n;
  }
  char src[4200];
  snprintf(src, sizeof src, "chaco %s", graph_path);
  const char *meta[] = {"source", src};
  lbs_trace_spec spec = {n, chunk_elems, ncon, ms, mesh, 1, meta};
  lbs_trace_writer *w = NULL;
  e = lbs_trace_create(out_path, &spec, &w);
  if (!e) e = lbs_trace_write_step(w, 0, cols);
  if (!e) e = lbs_trace_writer_close(&w);
  lbs_trace_writer_close(&w);
  free(v);
  return e;
}

lbs_err lbs_chaco_import(const char *graph_path, const char *coords_path, const lbs_encoding *enc,
                         int64_t chunk_elems, const char *out_path, lbs_chaco_notes *notes) {
  lbs_mesh *mesh = NULL;
  double *vw = NULL;
  int ncon = 0;
  lbs_err e = lbs_chaco_read(graph_path, coords_path, &mesh, &vw, &ncon, notes);
  if (!e) e = lbs_chaco_write_trace(graph_path, mesh, vw, ncon, enc, chunk_elems, out_path);
  free(vw);
  lbs_mesh_destroy(&mesh);
  return e;
}
