/* zoltan_files.c - what Zoltan_Generate_Files wrote, as a one-step trace.
 *
 * A Zoltan application can dump its partitioning input with Zoltan_Generate_Files(zz, BASE,
 * base_index, gen_geom, gen_graph, gen_hg). Zoltan 13.2 (Debian's, zz/zz_gen_files.c) writes,
 * as tests/traces/zoltan_genfiles.c shows on 1 and on 2 ranks:
 *  - BASE.assign: each object's part, one a line ("%d"), in the order of the ranks and of each
 *    rank's objects (the ranks append in turn, so 1 and 2 ranks give the same files);
 *  - BASE.graph: a Chaco graph in the same order, header "n m fmt" or, when either side has
 *    several weights, "n m fmt obj_weight_dim edge_weight_dim"; weights printed with %f,
 *    neighbours with %d numbered from base_index (0 or 1: nothing in the files says which);
 *    written when gen_graph or gen_geom is set (without gen_graph: no edges);
 *  - BASE.coords: the coordinates, a line an object (gen_geom);
 *  - BASE.gids: the application's global ids, a line an object (not read: the trace's elements
 *    are the files' order, which is the order of these ids);
 *  - BASE.mtxp: the hypergraph in MatrixMarket+ (gen_hg, with hypergraph query functions), with
 *    the weights again and each object's rank (not read: the graph and .assign carry what a
 *    trace holds).
 * No other file (Zoltan's documentation names a .params; this version writes none).
 *
 * The graph is read by the public Chaco reader (chaco.c) in its Zoltan form: numbered from 1,
 * or from 0 when a neighbour 0 appears (a file written with base_index 0; noted), with the words'
 * forms checked (a weight has a decimal point, a vertex number none). Every error names the file
 * and the line. */
#include "traces_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct lbs_zfiles {
  char *base;            /* BASE, as given */
  lbs_mesh *mesh;        /* the graph and the coordinates */
  double *vwgt;          /* n x ncon vertex weights */
  int ncon;              /* weights a vertex (1 when the graph has none: all 1) */
  int64_t *part;         /* .assign: each vertex's part, n */
  int64_t nparts;        /* the largest part + 1 */
  int base_index;        /* the numbering of the graph's vertices (0 or 1) */
  lbs_chaco_notes notes; /* what the graph reader forgave, and the base noted */
};

/* PATH = base + ext into buf (of size n): LBS_INVAL when it does not fit. */
static lbs_err companion(const char *base, const char *ext, char *buf, size_t n) {
  if ((size_t)snprintf(buf, n, "%s%s", base, ext) >= n)
    return lbs_fail(LBS_INVAL, "%s: name too long", base);
  return LBS_OK;
}

/* Reads the file at path when it exists (*text NULL when it does not). */
static lbs_err read_optional(const char *path, char **text, size_t *len) {
  struct stat st;
  *text = NULL;
  *len = 0;
  if (stat(path, &st) && errno == ENOENT) return LBS_OK;
  return lbs_read_file(path, text, len);
}

/* The parts of .assign: n lines of one integer >= 0 each (blank and '%' lines skipped). */
static lbs_err parse_assign(const char *name, const char *text, size_t len, int64_t n,
                            int64_t *part, int64_t *nparts) {
  const char *p = text, *end = text + len;
  int64_t line = 0, v = 0, most = -1;
  while (p < end) {
    const char *e = memchr(p, '\n', (size_t)(end - p));
    if (!e) e = end;
    line++;
    const char *q = p;
    while (q < e && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
    if (q < e && *q != '%' && *q != '#') {
      if (v == n)
        return lbs_fail(LBS_PARSE, "%s:%lld: more parts than the graph's %lld vertices", name,
                        (long long)line, (long long)n);
      char *after;
      errno = 0;
      long long x = strtoll(q, &after, 10);
      while (after < e && (*after == ' ' || *after == '\t' || *after == '\r')) after++;
      if (after == q || after != e || errno == ERANGE)
        return lbs_fail(LBS_PARSE, "%s:%lld: '%.*s' is not a part number", name, (long long)line,
                        (int)(e - q > 40 ? 40 : e - q), q);
      if (x < 0 || x > INT32_MAX)
        return lbs_fail(LBS_PARSE, "%s:%lld: part %lld of vertex %lld outside 0..%d", name,
                        (long long)line, x, (long long)(v + 1), INT32_MAX);
      part[v++] = x;
      if (x > most) most = x;
    }
    p = e < end ? e + 1 : e;
  }
  if (v < n)
    return lbs_fail(LBS_PARSE, "%s:%lld: file ends after %lld of the graph's %lld parts", name,
                    (long long)line, (long long)v, (long long)n);
  *nparts = most + 1;
  return LBS_OK;
}

/* Reads BASE.graph with BASE.coords: from 1, and again from 0 when the graph names a vertex 0. */
static lbs_err read_graph(lbs_zfiles *z, const char *gpath, const char *gtext, size_t glen,
                          const char *cpath, const char *ctext, size_t clen) {
  int64_t zero_line = 0;
  z->base_index = 1;
  lbs_err e = lbs__zoltan_graph_parse(gpath, gtext, glen, 1, &z->mesh, &z->vwgt, &z->ncon, cpath,
                                      ctext, clen, &z->notes, &zero_line);
  if (e && zero_line) {
    z->base_index = 0;
    e = lbs__zoltan_graph_parse(gpath, gtext, glen, 0, &z->mesh, &z->vwgt, &z->ncon, cpath, ctext,
                                clen, &z->notes, NULL);
    if (!e)
      lbs__chaco_note(&z->notes,
                      "%s:%lld: vertex 0 named: the vertices are numbered from 0 (written with "
                      "base_index 0)",
                      gpath, (long long)zero_line);
  }
  return e;
}

lbs_err lbs_zfiles_read(const char *base, lbs_zfiles **out) {
  *out = NULL;
  char gpath[4096], cpath[4096], apath[4096];
  char *g = NULL, *c = NULL, *a = NULL;
  size_t gl = 0, cl = 0, al = 0;
  lbs_zfiles *z = calloc(1, sizeof *z);
  if (!z || !(z->base = strdup(base))) {
    free(z);
    return lbs_fail(LBS_NOMEM, "zoltan files");
  }
  lbs_err e;
  if ((e = companion(base, ".graph", gpath, sizeof gpath)) ||
      (e = companion(base, ".coords", cpath, sizeof cpath)) ||
      (e = companion(base, ".assign", apath, sizeof apath)))
    goto done;
  /* the graph and the parts are needed; the coordinates only when Zoltan wrote some */
  if ((e = lbs_read_file(gpath, &g, &gl))) {
    e = lbs_fail(e, "%s (Zoltan_Generate_Files writes it with gen_graph or gen_geom)",
                 lbs_errmsg());
    goto done;
  }
  if ((e = lbs_read_file(apath, &a, &al))) {
    e = lbs_fail(e, "%s (Zoltan_Generate_Files writes it beside %s)", lbs_errmsg(), gpath);
    goto done;
  }
  if ((e = read_optional(cpath, &c, &cl))) goto done;
  if ((e = read_graph(z, gpath, g, gl, c ? cpath : NULL, c, cl))) goto done;
  int64_t n = lbs_mesh_elements(z->mesh);
  if (!(z->part = malloc((size_t)n * sizeof *z->part))) {
    e = lbs_fail(LBS_NOMEM, "parts of %lld vertices", (long long)n);
    goto done;
  }
  e = parse_assign(apath, a, al, n, z->part, &z->nparts);
done:
  free(g);
  free(c);
  free(a);
  if (e) lbs_zfiles_destroy(&z);
  *out = z;
  return e;
}

void lbs_zfiles_destroy(lbs_zfiles **z) {
  if (!z || !*z) return;
  lbs_mesh_destroy(&(*z)->mesh);
  free((*z)->vwgt);
  free((*z)->part);
  free((*z)->base);
  free(*z);
  *z = NULL;
}

lbs_mesh *lbs_zfiles_mesh(lbs_zfiles *z) { return z->mesh; }

const double *lbs_zfiles_weights(const lbs_zfiles *z, int *ncon) {
  *ncon = z->ncon;
  return z->vwgt;
}

const int64_t *lbs_zfiles_parts(const lbs_zfiles *z, int64_t *nparts) {
  *nparts = z->nparts;
  return z->part;
}

int lbs_zfiles_base_index(const lbs_zfiles *z) { return z->base_index; }

const lbs_chaco_notes *lbs_zfiles_notes(const lbs_zfiles *z) { return &z->notes; }

lbs_err lbs_zfiles_write_trace(const lbs_zfiles *z, const lbs_encoding *enc, int64_t chunk_elems,
                               const char *out_path) {
  char src[4200];
  snprintf(src, sizeof src, "zoltan-files %s", z->base);
  return lbs__graph_write_trace(src, z->mesh, z->vwgt, z->ncon, z->part, enc, chunk_elems,
                                out_path);
}
