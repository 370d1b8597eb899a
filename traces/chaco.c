/* chaco.c - Chaco/METIS graph files (as used by Zoltan's and METIS's test meshes).
 *
 * Graph file: lines whose first non-blank character is '%' or '#' are comments, and so is
 * the rest of a line from a word that starts with one of them. Header "n m [fmt [ncon
 * [ewdim]]]"; fmt's decimal digits, read from the right, switch on edge weights (1, ewdim of
 * them, 1 by default), vertex weights (10, ncon of them, 1 by default) and vertex sizes (100).
 * The fifth field is Zoltan's: Zoltan_Generate_Files (zz_gen_files.c) writes "n m fmt
 * obj_dim edge_dim" when either has several weights, with a 0 for the side that has none
 * (ncon 0 without vertex weights, ewdim 0 without edge weights). Then n vertex lines (an
 * empty line is a vertex with no neighbours): [size] [ncon weights] then neighbours numbered
 * from 1, each followed by its ewdim weights when edge weights are on. Weights may be zero or
 * real-valued. A mesh's arc has one weight: of several, the first is kept (noted).
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
#include <math.h>
#include <stdarg.h>
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

void lbs__chaco_note(lbs_chaco_notes *nt, const char *fmt, ...) {
  if (nt->nwarn >= LBS_CHACO_MAX_WARNINGS) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(nt->warning[nt->nwarn++], sizeof nt->warning[0], fmt, ap);
  va_end(ap);
}
/* Whether the word just read, [a, b) less its leading blanks, has a decimal point. Zoltan writes
 * every weight with printf's %f and every vertex number with %d, so in its files a word's form
 * says what it is, and a line with a weight too few or too many is found where it goes wrong
 * rather than read as the neighbours shifted by one. */
static int dotted(const char *a, const char *b) { return memchr(a, '.', (size_t)(b - a)) != NULL; }
/* The word [a, b) less its leading blanks, for a message. */
static const char *word(const char *a, const char *b) {
  while (a < b && (*a == ' ' || *a == '\t')) a++;
  return a;
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
      return lbs_fail(LBS_PARSE, "%s:%lld: expected %d coordinates, found %d", name,
                      (long long)r.line, dim, k);
    }
    memcpy(c + v * dim, x, (size_t)dim * sizeof *x);
  }
  const char *a, *b;
  if (next_line(&r, &a, &b, 1)) {
    free(c);
    return lbs_fail(LBS_PARSE, "%s:%lld: more coordinate lines than the graph's %lld vertices",
                    name, (long long)r.line, (long long)n);
  }
  *out = c;
  *dim_out = dim;
  return LBS_OK;
}

/* A graph file as it is read: the header's numbers, then the arrays the vertex lines fill (owned
 * here until lbs__mesh_adopt takes xadj, adj and w, and the caller vwgt), and the counts the
 * lenient reader's checks and notes need. */
typedef struct {
  const char *name;               /* the graph file, in messages */
  int directed, lenient;          /* lenient: the public reader's rules (notes, undirected) */
  lbs_chaco_notes *notes;         /* NULL for the strict reader */
  int64_t hline;                  /* the header's line */
  int64_t n, m, most;             /* the header's n and m; neighbour entries m allows */
  int ncon, ew, vw, vs;           /* weights a vertex; edge, vertex weights and sizes on */
  int ewdim;                      /* weights an edge (the first kept) */
  int base;                       /* the first vertex's number: 1 (Chaco), or 0 (Zoltan's) */
  int zoltan;                     /* Zoltan_Generate_Files's: weights %f, numbers %d (below) */
  int64_t zero_line;              /* the first line with a neighbour 0 under base 1, or 0 */
  int64_t ewline;                 /* the first line with an edge weight left out */
  int64_t *xadj, *adj;            /* adjacency as read, vertices numbered from 0 */
  double *w, *vwgt;               /* edge weights (one an entry), vertex weights (n x ncon) */
  int64_t xcap, vcap, acap, wcap; /* capacities of xadj, vwgt, adj and w */
  int64_t k, v;                   /* neighbour entries and vertex lines read so far */
  int64_t loops, missing;         /* self loops dropped; vertices without a line */
  int64_t last_line;              /* the line the vertex lines ended on */
} graph;

/* Reads the header "n m [fmt [ncon [ewdim]]]" into g and checks its values: n at least 1, fmt
 * one of the eight formats; ncon given only with vertex weights unless ewdim follows (Zoltan
 * writes 0 there without them), and then ewdim at least 1 exactly when edge weights are on. */
static lbs_err read_header(reader *r, graph *g) {
  const char *gname = g->name, *a, *b;
  char bad[64];
  if (!next_line(r, &a, &b, 1)) return lbs_fail(LBS_PARSE, "%s: empty graph file", gname);
  int64_t hline = g->hline = r->line;
  double h[5];
  int nh = 0, rc = 0;
  while (nh < 5 && (rc = next_num(&a, b, &h[nh], bad, sizeof bad)) == 0) nh++;
  if ((nh < 5 && rc < 0) || nh < 2 || next_num(&a, b, &h[4], bad, sizeof bad) != 1)
    return lbs_fail(LBS_PARSE, "%s:%lld: header must be 'n m [fmt [ncon [ewdim]]]'", gname,
                    (long long)hline);
  for (int i = 0; i < nh; i++)
    if (h[i] < 0 || h[i] != floor(h[i]) || h[i] > 1e12)
      return lbs_fail(LBS_PARSE, "%s:%lld: header values must be non-negative integers", gname,
                      (long long)hline);
  if ((nh > 2 && h[2] > 111) || (nh > 3 && h[3] > 16) || (nh > 4 && h[4] > 16))
    return lbs_fail(LBS_PARSE, "%s:%lld: fmt must be at most 111, ncon and ewdim at most 16", gname,
                    (long long)hline);
  int64_t n = (int64_t)h[0], m = (int64_t)h[1];
  int fmt = nh > 2 ? (int)h[2] : 0, ncon = nh > 3 ? (int)h[3] : 1, ewdim = nh > 4 ? (int)h[4] : 1;
  int ew = fmt % 10, vw = fmt / 10 % 10, vs = fmt / 100 % 10;
  if (n < 1)
    return lbs_fail(LBS_PARSE, "%s:%lld: the graph has no vertices", gname, (long long)hline);
  if (ew > 1 || vw > 1 || vs > 1 || fmt > 111)
    return lbs_fail(LBS_PARSE, "%s:%lld: fmt %d is not one of 0, 1, 10, 11, 100, 101, 110, 111",
                    gname, (long long)hline, fmt);
  if (nh > 4 && (!vw != !ncon))
    return lbs_fail(LBS_PARSE, "%s:%lld: ncon %d %s vertex weights (fmt %d)", gname,
                    (long long)hline, ncon, vw ? "with" : "without", fmt);
  if (nh > 4 && (!ew != !ewdim))
    return lbs_fail(LBS_PARSE, "%s:%lld: ewdim %d %s edge weights (fmt %d)", gname,
                    (long long)hline, ewdim, ew ? "with" : "without", fmt);
  if (nh < 5 && (ncon < 1 || (nh > 3 && !vw)))
    return lbs_fail(LBS_PARSE, "%s:%lld: bad ncon %d", gname, (long long)hline, ncon);
  if (!vw) ncon = 1;
  if (!ew) ewdim = 1;
  if (ewdim > 1 && !g->lenient) /* the strict reader would drop weights without a word */
    return lbs_fail(LBS_PARSE, "%s:%lld: %d weights an edge: a mesh's arc has one", gname,
                    (long long)hline, ewdim);
  g->n = n;
  g->m = m;
  g->ncon = ncon;
  g->ew = ew;
  g->vw = vw;
  g->vs = vs;
  g->ewdim = ewdim;
  /* the most neighbour entries the header allows: 2m (m) when m counts each edge once (each
   * listed entry); arrays grow with what the lines hold, never with what the header says */
  g->most = g->directed ? m : 2 * m;
  return LBS_OK;
}

/* Reads the neighbours of vertex g->v from the rest of its line [a, b), each followed by its
 * weight when edge weights are on, into adj and w. The lenient reader drops a self loop and
 * keeps where it met the first. */
static lbs_err read_neighbours(const reader *r, graph *g, const char *a, const char *b) {
  const char *gname = g->name;
  int64_t v = g->v, n = g->n;
  char bad[64];
  double x;
  int rc;
  const char *w0 = a;
  while ((rc = next_num(&a, b, &x, bad, sizeof bad)) == 0) {
    if (g->zoltan && dotted(w0, a))
      return lbs_fail(LBS_PARSE,
                      "%s:%lld: vertex %lld: '%.*s' stands where a neighbour's number goes, which"
                      " Zoltan writes without a decimal point: the line has a weight more than"
                      " the header's counts (%d a vertex, %d an edge)",
                      gname, (long long)r->line, (long long)(v + g->base), (int)(a - word(w0, a)),
                      word(w0, a), g->vw ? g->ncon : 0, g->ew ? g->ewdim : 0);
    if (x == 0 && g->base && !g->zero_line) g->zero_line = r->line;
    if (x != floor(x) || x < g->base || x > (double)(n - 1 + g->base))
      return lbs_fail(LBS_PARSE, "%s:%lld: vertex %lld: neighbour %g outside %d..%lld", gname,
                      (long long)r->line, (long long)(v + g->base), x, g->base,
                      (long long)(n - 1 + g->base));
    int self = (int64_t)x - g->base == v;
    if (self && !g->lenient)
      return lbs_fail(LBS_PARSE, "%s:%lld: vertex %lld: self loop", gname, (long long)r->line,
                      (long long)(v + g->base));
    double wt = 1.0, wk;
    for (int k = 0; g->ew && k < g->ewdim; k++) {
      w0 = a;
      if ((rc = next_num(&a, b, &wk, bad, sizeof bad)) == 0 && g->zoltan && !dotted(w0, a))
        return lbs_fail(LBS_PARSE,
                        "%s:%lld: vertex %lld: neighbour %g: its edge weight %d of %d is '%.*s',"
                        " a number without the decimal point Zoltan writes weights with: the line"
                        " lacks an edge weight",
                        gname, (long long)r->line, (long long)(v + g->base), x, k + 1, g->ewdim,
                        (int)(a - word(w0, a)), word(w0, a));
      if (rc != 0)
        return rc < 0 ? lbs_fail(LBS_PARSE, "%s:%lld: '%s' is not a number", gname,
                                 (long long)r->line, bad)
               : g->ewdim == 1
                   ? lbs_fail(LBS_PARSE, "%s:%lld: vertex %lld: neighbour %g has no edge weight",
                              gname, (long long)r->line, (long long)(v + g->base), x)
                   : lbs_fail(LBS_PARSE,
                              "%s:%lld: vertex %lld: neighbour %g has %d of its %d edge weights",
                              gname, (long long)r->line, (long long)(v + g->base), x, k, g->ewdim);
      if (wk < 0)
        return lbs_fail(LBS_PARSE, "%s:%lld: vertex %lld: negative edge weight %g", gname,
                        (long long)r->line, (long long)(v + g->base), wk);
      if (!k)
        wt = wk;
      else if (!g->ewline)
        g->ewline = r->line;
    }
    w0 = a;
    if (self) { /* dropped, as Zoltan drops it; reported once with the count */
      if (!g->loops++) {
        g->notes->self_loop_line = r->line;
        g->notes->self_loop_vertex = v + 1;
      }
      continue;
    }
    if (g->k >= g->most)
      return lbs_fail(LBS_PARSE, "%s:%lld: more edges than the header's m = %lld%s", gname,
                      (long long)r->line, (long long)g->m,
                      g->directed ? "" : " (each listed in both of its vertices' lines)");
    if (reserve((void **)&g->adj, &g->acap, g->k + 1, sizeof *g->adj) ||
        reserve((void **)&g->w, &g->wcap, g->k + 1, sizeof *g->w))
      return lbs_fail(LBS_NOMEM, "graph of %lld edges", (long long)g->k);
    g->adj[g->k] = (int64_t)x - g->base;
    g->w[g->k++] = wt;
  }
  if (rc < 0)
    return lbs_fail(LBS_PARSE, "%s:%lld: '%s' is not a number", gname, (long long)r->line, bad);
  return LBS_OK;
}

/* Reads vertex g->v's line [a, b): its size and its ncon weights when the format has them
 * (weights 1 when it has none), then its neighbours. */
static lbs_err read_vertex(const reader *r, graph *g, const char *a, const char *b) {
  const char *gname = g->name;
  int64_t v = g->v;
  int ncon = g->ncon, rc;
  char bad[64];
  if (reserve((void **)&g->xadj, &g->xcap, v + 2, sizeof *g->xadj) ||
      reserve((void **)&g->vwgt, &g->vcap, (v + 1) * ncon, sizeof *g->vwgt))
    return lbs_fail(LBS_NOMEM, "graph of %lld vertices", (long long)g->n);
  g->xadj[v] = g->k;
  double x;
  if (g->vs && (rc = next_num(&a, b, &x, bad, sizeof bad)) != 0)
    return rc < 0 ? lbs_fail(LBS_PARSE, "%s:%lld: '%s' is not a number", gname, (long long)r->line,
                             bad)
                  : lbs_fail(LBS_PARSE, "%s:%lld: vertex %lld: missing vertex size", gname,
                             (long long)r->line, (long long)(v + g->base));
  for (int c = 0; c < ncon; c++) {
    double *wt = &g->vwgt[v * ncon + c];
    const char *w0 = a;
    if (!g->vw) {
      *wt = 1.0;
    } else if ((rc = next_num(&a, b, wt, bad, sizeof bad)) == 0 && g->zoltan && !dotted(w0, a)) {
      return lbs_fail(LBS_PARSE,
                      "%s:%lld: vertex %lld: its vertex weight %d of %d is '%.*s', a number"
                      " without the decimal point Zoltan writes weights with: the line lacks a"
                      " vertex weight",
                      gname, (long long)r->line, (long long)(v + g->base), c + 1, ncon,
                      (int)(a - word(w0, a)), word(w0, a));
    } else if (rc != 0) {
      return rc < 0 ? lbs_fail(LBS_PARSE, "%s:%lld: '%s' is not a number", gname,
                               (long long)r->line, bad)
                    : lbs_fail(LBS_PARSE, "%s:%lld: vertex %lld: has %d of its %d vertex weights",
                               gname, (long long)r->line, (long long)(v + g->base), c, ncon);
    } else if (*wt < 0) {
      return lbs_fail(LBS_PARSE, "%s:%lld: vertex %lld: negative vertex weight", gname,
                      (long long)r->line, (long long)(v + g->base));
    }
  }
  return read_neighbours(r, g, a, b);
}

/* Reads the vertex lines, at most n; g->v counts them (fewer when the file ends early). */
static lbs_err read_vertices(reader *r, graph *g) {
  const char *a, *b;
  for (; g->v < g->n; g->v++) {
    if (!next_line(r, &a, &b, 0)) break;
    lbs_err e = read_vertex(r, g, a, b);
    if (e) return e;
  }
  g->last_line = r->line;
  return LBS_OK;
}

/* The file ended after g->v < n vertex lines: the lenient reader takes the vertices without a
 * line as isolated ones (Zoltan's nograph) when the format has no vertex weights or sizes they
 * would lack and they are not too many; otherwise the file is truncated. */
static lbs_err imply_missing(const reader *r, graph *g) {
  const char *gname = g->name;
  int64_t v = g->v, n = g->n;
  g->missing = n - v;
  if (!g->lenient || g->vw || g->vs)
    return lbs_fail(LBS_PARSE, "%s:%lld: file ends after %lld of %lld vertex lines%s", gname,
                    (long long)r->line, (long long)v, (long long)n,
                    g->lenient ? " (the format's vertex weights or sizes need a line per vertex)"
                               : "");
  if (g->missing > MAX_IMPLIED_VERTICES)
    return lbs_fail(LBS_PARSE,
                    "%s:%lld: file ends after %lld of the header's %lld vertex lines: "
                    "more than %lld vertices without a line are not read as isolated ones",
                    gname, (long long)r->line, (long long)v, (long long)n,
                    (long long)MAX_IMPLIED_VERTICES);
  if (reserve((void **)&g->xadj, &g->xcap, n + 1, sizeof *g->xadj) ||
      reserve((void **)&g->vwgt, &g->vcap, n * g->ncon, sizeof *g->vwgt))
    return lbs_fail(LBS_NOMEM, "graph of %lld vertices", (long long)n);
  for (; v < n; v++) {
    g->xadj[v] = g->k;
    g->vwgt[v] = 1.0; /* ncon is 1: no vertex weights */
  }
  return LBS_OK;
}

/* Closes the adjacency (xadj[n], adj and w never NULL) and checks what follows it: no more
 * vertex lines, and for the strict reader exactly the entries the header's m gives. */
static lbs_err close_adjacency(reader *r, graph *g) {
  const char *a, *b;
  g->xadj[g->n] = g->k;
  if (!g->adj && (reserve((void **)&g->adj, &g->acap, 1, sizeof *g->adj) ||
                  reserve((void **)&g->w, &g->wcap, 1, sizeof *g->w)))
    return lbs_fail(LBS_NOMEM, "graph");
  if (next_line(r, &a, &b, 1))
    return lbs_fail(LBS_PARSE, "%s:%lld: more vertex lines than the header's n = %lld", g->name,
                    (long long)r->line, (long long)g->n);
  if (!g->lenient && g->k != g->most)
    return lbs_fail(LBS_PARSE,
                    "%s:%lld: the header says m = %lld edges but the lines list %lld entries "
                    "(expected %lld)",
                    g->name, (long long)g->hline, (long long)g->m, (long long)g->k,
                    (long long)g->most);
  return LBS_OK;
}

/* Reads the coordinates when there are some and hands them, xadj, adj and w to a new mesh,
 * which validates range, duplicates and (undirected) that every edge is listed both ways. Its
 * message is prefixed with the graph file, and a file that ended early is named first. */
static lbs_err make_mesh(graph *g, const char *cname, const char *ctext, size_t clen,
                         lbs_mesh **mesh) {
  double *coords = NULL; /* parse_coords frees its own on failure */
  int dim = 0;
  lbs_err e;
  if (ctext && (e = parse_coords(cname, ctext, clen, g->n, &coords, &dim))) return e;
  e = lbs__mesh_adopt(g->n, dim, coords, g->xadj, g->adj, g->w, g->directed, mesh);
  g->xadj = g->adj = NULL;
  g->w = NULL;
  if (e && g->missing) /* most likely a truncated file: say so first */
    return lbs_fail(e,
                    "%s:%lld: file ends after %lld of %lld vertex lines, and the vertices without"
                    " a line cannot be isolated ones: %s (vertices numbered from 0)",
                    g->name, (long long)g->last_line, (long long)(g->n - g->missing),
                    (long long)g->n, lbs_errmsg());
  if (e) return lbs_fail(e, "%s: %s (vertices numbered from 0)", g->name, lbs_errmsg());
  return LBS_OK;
}

/* The lenient reader's count of edges, on the symmetric adjacency: the header's m must count
 * each edge once, or every entry once (noted); then the notes of the self loops dropped and of
 * the vertices read as isolated ones. Fills g->notes. */
static lbs_err check_edges(graph *g) {
  const char *gname = g->name;
  lbs_chaco_notes *notes = g->notes;
  int64_t n = g->n, m = g->m, k = g->k, missing = g->missing;
  /* k entries of a symmetric adjacency: k/2 edges. Zoltan takes m as 2m = k, k + s or k + 2s
   * (s self loops counted once or twice) and, with a warning, any m up to k/2; we take the
   * m that count each edge once or every entry once. */
  int64_t edges = k / 2, s = g->loops;
  notes->edges = edges;
  notes->self_loops = s;
  notes->missing_lines = missing;
  if (2 * m == k || 2 * m == k + s || 2 * m == k + 2 * s) {
    /* m counts each edge once */
  } else if (m == k || m == k + s) {
    notes->m_both_directions = 1;
    lbs__chaco_note(
        notes,
        "%s:%lld: the header says m = %lld, but the lines hold %lld edges: m counts every"
        " edge in both directions%s (Zoltan takes it; gpmetis refuses it)",
        gname, (long long)g->hline, (long long)m, (long long)edges,
        m == k + s && s ? " and the self loops" : "");
  } else if (missing) {
    return lbs_fail(LBS_PARSE,
                    "%s:%lld: file ends after %lld of %lld vertex lines, and the ones"
                    " there hold %lld edges where the header says m = %lld",
                    gname, (long long)g->last_line, (long long)(n - missing), (long long)n,
                    (long long)edges, (long long)m);
  } else {
    return lbs_fail(LBS_PARSE,
                    "%s:%lld: the header says m = %lld edges, but the vertex lines hold "
                    "%lld (%lld neighbour entries, each edge listed in both of its vertices' "
                    "lines%s)",
                    gname, (long long)g->hline, (long long)m, (long long)edges, (long long)k,
                    s ? ", self loops left out" : "");
  }
  if (g->ewline)
    lbs__chaco_note(
        notes,
        "%s:%lld: %d weights an edge: the first kept, as an arc of the trace carries one (the"
        " others are left out)",
        gname, (long long)g->ewline, g->ewdim);
  if (s)
    lbs__chaco_note(
        notes, "%s:%lld: vertex %lld: self loop dropped, as Zoltan drops them (%lld in all)", gname,
        (long long)notes->self_loop_line, (long long)notes->self_loop_vertex, (long long)s);
  if (missing)
    lbs__chaco_note(
        notes,
        "%s:%lld: file ends after %lld of %lld vertex lines: the last %lld vertices read"
        " as isolated ones, as Zoltan reads them",
        gname, (long long)g->last_line, (long long)(n - missing), (long long)n, (long long)missing);
  return LBS_OK;
}

/* Parses a graph file and its coordinates (see traces_int.h): the header, the vertex lines, the
 * vertices a short file implies, the checks of what follows and of m, the mesh. The mesh and the
 * vertex weights are the caller's; nothing is left allocated on an error. Vertices are numbered
 * from base; under base 1, *zero_line (may be NULL) gets the first line that names a vertex 0.
 * zoltan: the file is Zoltan_Generate_Files's, whose words' forms are checked (dotted). */
static lbs_err graph_parse(const char *gname, const char *gtext, size_t glen, int directed,
                           int base, lbs_mesh **mesh, double **vwgt_out, int *ncon_out,
                           const char *cname, const char *ctext, size_t clen,
                           lbs_chaco_notes *notes, int zoltan, int64_t *zero_line) {
  *mesh = NULL;
  *vwgt_out = NULL;
  if (notes) memset(notes, 0, sizeof *notes);
  reader r = {gname, gtext, gtext + glen, 0};
  graph g = {.name = gname,
             .directed = directed,
             .lenient = notes && !directed,
             .notes = notes,
             .base = base,
             .zoltan = zoltan};
  lbs_err e;
  if ((e = read_header(&r, &g)) || (e = read_vertices(&r, &g))) goto done;
  if (g.v < g.n && (e = imply_missing(&r, &g))) goto done;
  if ((e = close_adjacency(&r, &g)) || (e = make_mesh(&g, cname, ctext, clen, mesh))) goto done;
  if (g.lenient && (e = check_edges(&g))) {
    lbs_mesh_destroy(mesh);
    goto done;
  }
  *vwgt_out = g.vwgt;
  *ncon_out = g.ncon;
  g.vwgt = NULL;
done:
  if (zero_line) *zero_line = g.zero_line;
  free(g.xadj);
  free(g.adj);
  free(g.w);
  free(g.vwgt);
  return e;
}

lbs_err lbs__graph_parse(const char *gname, const char *gtext, size_t glen, int directed,
                         lbs_mesh **mesh, double **vwgt_out, int *ncon_out, const char *cname,
                         const char *ctext, size_t clen, lbs_chaco_notes *notes) {
  return graph_parse(gname, gtext, glen, directed, 1, mesh, vwgt_out, ncon_out, cname, ctext, clen,
                     notes, 0, NULL);
}

lbs_err lbs__zoltan_graph_parse(const char *gname, const char *gtext, size_t glen, int base,
                                lbs_mesh **mesh, double **vwgt, int *ncon, const char *cname,
                                const char *ctext, size_t clen, lbs_chaco_notes *notes,
                                int64_t *zero_line) {
  lbs_chaco_notes local;
  return graph_parse(gname, gtext, glen, 0, base, mesh, vwgt, ncon, cname, ctext, clen,
                     notes ? notes : &local, 1, zero_line);
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
static lbs_err chaco_specs(int ncon, const lbs_encoding *enc, lbs_metric_spec *ms,
                           char (*names)[16]) {
  if (ncon < 1 || ncon > LBS_CHACO_MAX_NCON)
    return lbs_fail(LBS_INVAL, "%d vertex weights (1 to %d)", ncon, LBS_CHACO_MAX_NCON);
  const lbs_bound dflt = {LBS_BOUND_LOSSLESS, 0};
  const char *np[LBS_CHACO_MAX_NCON];
  for (int k = 0; k < ncon; k++) {
    np[k] = lbs_chaco_metric_name(ncon, k, names[k]);
    ms[k] = (lbs_metric_spec){names[k], "1", LBS_CODEC_LOSSLESS, dflt, {0, 0}};
    lbs_err e =
        lbs_encoding_resolve(enc, names[k], LBS_CODEC_LOSSLESS, dflt, &ms[k].codec, &ms[k].bound);
    if (e) return e;
  }
  return lbs_encoding_check_names(enc, np, ncon);
}

lbs_err lbs_chaco_check_encoding(int ncon, const lbs_encoding *enc) {
  lbs_metric_spec ms[LBS_CHACO_MAX_NCON];
  char names[LBS_CHACO_MAX_NCON][16];
  return chaco_specs(ncon, enc, ms, names);
}

lbs_err lbs__graph_write_trace(const char *source, lbs_mesh *mesh, const double *vwgt, int ncon,
                               const int64_t *owner, const lbs_encoding *enc, int64_t chunk_elems,
                               const char *out_path) {
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
  const char *meta[] = {"source", source};
  lbs_trace_spec spec = {n, chunk_elems, ncon, ms, mesh, 1, meta};
  lbs_trace_writer *w = NULL;
  e = lbs_trace_create(out_path, &spec, &w);
  if (!e && owner) e = lbs_trace_write_owners(w, 0, owner); /* before the step they apply to */
  if (!e) e = lbs_trace_write_step(w, 0, cols);
  if (!e) e = lbs_trace_writer_close(&w);
  lbs_trace_writer_close(&w);
  free(v);
  return e;
}

lbs_err lbs_chaco_write_trace(const char *graph_path, lbs_mesh *mesh, const double *vwgt, int ncon,
                              const lbs_encoding *enc, int64_t chunk_elems, const char *out_path) {
  char src[4200];
  snprintf(src, sizeof src, "chaco %s", graph_path);
  return lbs__graph_write_trace(src, mesh, vwgt, ncon, NULL, enc, chunk_elems, out_path);
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
