/* stepsdir.c - interchange formats: the seed's one-file-per-step directory, and CSV.
 *
 * Steps directory (format version 1):
 *   DIR/manifest      text, one declaration a line ('#' starts a comment):
 *                       lbsim-steps 1
 *                       elements N
 *                       metric NAME UNIT          one per value column, in order
 *                       mesh structured NXxNYxNZ natural|hilbert
 *                     | mesh chaco GRAPH [COORDS] (undirected, files beside the manifest)
 *                     | mesh directed GRAPH [COORDS] (Chaco syntax, m counts every entry)
 *                       step FILE APP_STEP        one per step, in order
 *   DIR/step_NNNNNN.txt  one line per element, in element order: "ELEMENT V1 V2 ...",
 *                     values printed with 17 significant digits (exact round trip).
 * CSV: DIR/steps.csv "step,app_step,element,<metric>..." and DIR/elements.csv
 * "element,x,y,z[,i,j,k]". */
#include "traces_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static lbs_err make_dir(const char *dir) {
  struct stat sb;
  if (stat(dir, &sb) == 0) {
    if (!S_ISDIR(sb.st_mode)) return lbs_fail(LBS_IO, "%s: exists and is not a directory", dir);
    return LBS_OK;
  }
  if (mkdir(dir, 0777)) return lbs_fail(LBS_IO, "%s: cannot create: %s", dir, strerror(errno));
  return LBS_OK;
}

static FILE *open_out(const char *dir, const char *name, lbs_err *e) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) *e = lbs_fail(LBS_IO, "%s: cannot write: %s", path, strerror(errno));
  return f;
}

static lbs_err close_out(FILE *f, const char *dir, const char *name) {
  int bad = ferror(f);
  bad |= fclose(f) != 0;
  return bad ? lbs_fail(LBS_IO, "%s/%s: write failed", dir, name) : LBS_OK;
}

static lbs_err check_steps(lbs_trace *t, int64_t first, int64_t *n) {
  int64_t S = lbs_trace_steps(t);
  if (*n < 0) *n = S - first;
  if (first < 0 || first > S || *n > S - first || *n < 0)
    return lbs_fail(LBS_RANGE, "steps [%lld, %lld) outside the trace's %lld steps",
                    (long long)first, (long long)(first + *n), (long long)S);
  return LBS_OK;
}

/* Writes the mesh graph in Chaco syntax (edge weights on). */
static lbs_err write_graph(lbs_mesh *m, const char *dir, const char *name) {
  const int64_t *xadj, *adj;
  const double *w;
  lbs_err e = lbs_mesh_graph(m, &xadj, &adj, &w);
  if (e) return e;
  FILE *f = open_out(dir, name, &e);
  if (!f) return e;
  int64_t n = m->n, ne = xadj[n];
  fprintf(f, "%% lbsim mesh graph\n%lld %lld 1\n", (long long)n,
          (long long)(m->directed ? ne : ne / 2));
  for (int64_t v = 0; v < n; v++) {
    for (int64_t k = xadj[v]; k < xadj[v + 1]; k++)
      fprintf(f, "%s%lld %.17g", k > xadj[v] ? " " : "", (long long)(adj[k] + 1), w[k]);
    fputc('\n', f);
  }
  return close_out(f, dir, name);
}

static lbs_err write_coords(lbs_mesh *m, const char *dir, const char *name) {
  lbs_err e;
  FILE *f = open_out(dir, name, &e);
  if (!f) return e;
  for (int64_t v = 0; v < m->n; v++) {
    for (int d = 0; d < m->dim; d++) fprintf(f, "%s%.17g", d ? " " : "", m->coords[v * m->dim + d]);
    fputc('\n', f);
  }
  return close_out(f, dir, name);
}

lbs_err lbs_stepsdir_export(lbs_trace *t, const char *dir, int64_t first, int64_t nsteps) {
  lbs_err e = check_steps(t, first, &nsteps);
  if (e || (e = make_dir(dir))) return e;
  int64_t E = lbs_trace_elements(t);
  int M = lbs_trace_nmetrics(t);
  FILE *man = open_out(dir, "manifest", &e);
  if (!man) return e;
  fprintf(man, "lbsim-steps 1\nelements %lld\n", (long long)E);
  for (int m = 0; m < M; m++) {
    lbs_metric_info mi;
    lbs_trace_metric(t, m, &mi);
    fprintf(man, "metric %s %s\n", mi.name, *mi.unit ? mi.unit : "1");
  }
  lbs_mesh *mesh = lbs_trace_mesh(t);
  if (mesh && mesh->kind == LBS_MESH_STRUCTURED) {
    fprintf(man, "mesh structured %lldx%lldx%lld %s\n", (long long)mesh->dims[0],
            (long long)mesh->dims[1], (long long)mesh->dims[2],
            mesh->order == LBS_ORDER_HILBERT ? "hilbert" : "natural");
  } else if (mesh) {
    fprintf(man, "mesh %s mesh.graph%s\n", mesh->directed ? "directed" : "chaco",
            mesh->dim ? " mesh.coords" : "");
    if (!e) e = write_graph(mesh, dir, "mesh.graph");
    if (!e && mesh->dim) e = write_coords(mesh, dir, "mesh.coords");
  }
  double *v = malloc((size_t)(E * M) * sizeof *v);
  if (!v && !e) e = lbs_fail(LBS_NOMEM, "step buffer");
  for (int64_t s = first; s < first + nsteps && !e; s++) {
    int64_t app;
    char name[64];
    lbs_trace_app_step(t, s, &app);
    snprintf(name, sizeof name, "step_%06lld.txt", (long long)s);
    fprintf(man, "step %s %lld\n", name, (long long)app);
    for (int m = 0; m < M && !e; m++) e = lbs_trace_read(t, s, m, 0, E, v + m * E);
    FILE *f = e ? NULL : open_out(dir, name, &e);
    if (!f) break;
    for (int64_t i = 0; i < E; i++) {
      fprintf(f, "%lld", (long long)i);
      for (int m = 0; m < M; m++) fprintf(f, " %.17g", v[m * E + i]);
      fputc('\n', f);
    }
    e = close_out(f, dir, name);
  }
  free(v);
  lbs_err e2 = close_out(man, dir, "manifest");
  return e ? e : e2;
}

lbs_err lbs_csv_export(lbs_trace *t, const char *dir, int64_t first, int64_t nsteps) {
  lbs_err e = check_steps(t, first, &nsteps);
  if (e || (e = make_dir(dir))) return e;
  int64_t E = lbs_trace_elements(t);
  int M = lbs_trace_nmetrics(t);
  lbs_mesh *mesh = lbs_trace_mesh(t);
  FILE *f = open_out(dir, "elements.csv", &e);
  if (!f) return e;
  const double *x = NULL;
  int dim = 0;
  if (mesh) e = lbs_mesh_coords(mesh, &x, &dim);
  const int64_t *cell = mesh ? lbs_mesh_cell_index(mesh) : NULL;
  fprintf(f, "element,x,y,z%s\n", cell ? ",i,j,k" : "");
  for (int64_t i = 0; i < E && !e; i++) {
    fprintf(f, "%lld", (long long)i);
    for (int d = 0; d < 3; d++) {
      if (x && d < dim)
        fprintf(f, ",%.17g", x[i * dim + d]);
      else
        fputs(",", f);
    }
    if (cell) {
      int64_t c = cell[i], nx = mesh->dims[0], ny = mesh->dims[1];
      fprintf(f, ",%lld,%lld,%lld", (long long)(c % nx), (long long)(c / nx % ny),
              (long long)(c / (nx * ny)));
    }
    fputc('\n', f);
  }
  lbs_err e2 = close_out(f, dir, "elements.csv");
  if (e || (e = e2)) return e;
  if (!(f = open_out(dir, "steps.csv", &e))) return e;
  fputs("step,app_step,element", f);
  for (int m = 0; m < M; m++) {
    lbs_metric_info mi;
    lbs_trace_metric(t, m, &mi);
    fprintf(f, ",%s", mi.name);
  }
  fputc('\n', f);
  double *v = malloc((size_t)(E * M) * sizeof *v);
  if (!v) e = lbs_fail(LBS_NOMEM, "step buffer");
  for (int64_t s = first; s < first + nsteps && !e; s++) {
    int64_t app;
    lbs_trace_app_step(t, s, &app);
    for (int m = 0; m < M && !e; m++) e = lbs_trace_read(t, s, m, 0, E, v + m * E);
    for (int64_t i = 0; i < E && !e; i++) {
      fprintf(f, "%lld,%lld,%lld", (long long)s, (long long)app, (long long)i);
      for (int m = 0; m < M; m++) fprintf(f, ",%.17g", v[m * E + i]);
      fputc('\n', f);
    }
  }
  free(v);
  e2 = close_out(f, dir, "steps.csv");
  return e ? e : e2;
}

/* ---------------------------------------------------------------- import */

#define MAX_METRICS 64

typedef struct {
  char *names[MAX_METRICS], *units[MAX_METRICS];
  int nm;
  int64_t E;
  lbs_mesh *mesh;
  char **files;
  int64_t *app;
  int64_t S, cap;
} manifest;

static void manifest_free(manifest *mf) {
  for (int i = 0; i < mf->nm; i++) {
    free(mf->names[i]);
    free(mf->units[i]);
  }
  for (int64_t s = 0; s < mf->S; s++) free(mf->files[s]);
  free(mf->files);
  free(mf->app);
  lbs_mesh_destroy(&mf->mesh);
}

static lbs_err load_graph(const char *dir, const char *gfile, const char *cfile, int directed,
                          lbs_mesh **mesh) {
  char gp[4096], cp[4096];
  snprintf(gp, sizeof gp, "%s/%s", dir, gfile);
  if (cfile) snprintf(cp, sizeof cp, "%s/%s", dir, cfile);
  char *g = NULL, *c = NULL;
  size_t gl = 0, cl = 0;
  double *vw = NULL;
  int ncon;
  lbs_err e = lbs_read_file(gp, &g, &gl);
  if (!e && cfile) e = lbs_read_file(cp, &c, &cl);
  if (!e)
    e = lbs__graph_parse(gp, g, gl, directed, mesh, &vw, &ncon, cfile ? cp : NULL, c, cl, NULL);
  free(vw);
  free(g);
  free(c);
  return e;
}

/* A "mesh structured NXxNYxNZ natural|hilbert" declaration (words w) into *mesh; at path:line
 * in its messages. */
static lbs_err structured_mesh(const char *path, int64_t line, char w[][1024], lbs_mesh **mesh) {
  long long nx, ny, nz;
  char tail;
  if (sscanf(w[2], "%lldx%lldx%lld%c", &nx, &ny, &nz, &tail) != 3 ||
      (strcmp(w[3], "natural") && strcmp(w[3], "hilbert")))
    return lbs_fail(LBS_PARSE, "%s:%lld: expected 'mesh structured NXxNYxNZ natural|hilbert'", path,
                    (long long)line);
  return lbs_mesh_create_structured(
      nx, ny, nz, strcmp(w[3], "hilbert") ? LBS_ORDER_NATURAL : LBS_ORDER_HILBERT, mesh);
}

/* A "step FILE APP_STEP" declaration (words w): the file (a copy mf owns) and its application
 * step appended to mf, its arrays grown as needed. */
static lbs_err add_step(const char *path, int64_t line, char w[][1024], manifest *mf) {
  if (mf->S == mf->cap) {
    mf->cap = mf->cap ? 2 * mf->cap : 64;
    char **f = realloc(mf->files, (size_t)mf->cap * sizeof *f);
    int64_t *a = f ? realloc(mf->app, (size_t)mf->cap * sizeof *a) : NULL;
    if (f) mf->files = f;
    if (a) mf->app = a;
    if (!f || !a) return lbs_fail(LBS_NOMEM, "manifest");
  }
  char *end;
  mf->app[mf->S] = strtoll(w[2], &end, 10);
  if (*end)
    return lbs_fail(LBS_PARSE, "%s:%lld: bad application step '%s'", path, (long long)line, w[2]);
  mf->files[mf->S++] = strdup(w[1]);
  return LBS_OK;
}

/* One declaration of the manifest at path:line, its n words in w, into mf (mesh files are read
 * from dir); *version is set by the first, which every other needs before it. */
static lbs_err declaration(const char *dir, const char *path, int64_t line, char w[][1024], int n,
                           int *version, manifest *mf) {
  lbs_err e = LBS_OK;
  char *end;
  if (!strcmp(w[0], "lbsim-steps")) {
    *version = atoi(w[1]);
    if (*version != 1)
      e = lbs_fail(LBS_VERSION, "%s:%lld: format version '%s', expected 1", path, (long long)line,
                   w[1]);
  } else if (!*version) {
    e = lbs_fail(LBS_FORMAT, "%s:%lld: not a steps manifest (first line must be 'lbsim-steps 1')",
                 path, (long long)line);
  } else if (!strcmp(w[0], "elements") && n == 2) {
    mf->E = strtoll(w[1], &end, 10);
    if (*end || mf->E < 1)
      e = lbs_fail(LBS_PARSE, "%s:%lld: bad element count '%s'", path, (long long)line, w[1]);
  } else if (!strcmp(w[0], "metric") && n == 3) {
    if (mf->nm == MAX_METRICS)
      e = lbs_fail(LBS_PARSE, "%s:%lld: more than %d metrics", path, (long long)line, MAX_METRICS);
    else {
      mf->names[mf->nm] = strdup(w[1]);
      mf->units[mf->nm++] = strdup(w[2]);
    }
  } else if (!strcmp(w[0], "mesh") && !mf->mesh && !strcmp(w[1], "structured") && n == 4) {
    e = structured_mesh(path, line, w, &mf->mesh);
  } else if (!strcmp(w[0], "mesh") && !mf->mesh &&
             (!strcmp(w[1], "chaco") || !strcmp(w[1], "directed")) && (n == 3 || n == 4)) {
    e = load_graph(dir, w[2], n == 4 ? w[3] : NULL, !strcmp(w[1], "directed"), &mf->mesh);
  } else if (!strcmp(w[0], "step") && n == 3) {
    e = add_step(path, line, w, mf);
  } else {
    e = lbs_fail(
        LBS_PARSE,
        "%s:%lld: unknown or malformed declaration '%s' (known: elements, metric, mesh, step)",
        path, (long long)line, w[0]);
  }
  return e;
}

/* What a manifest at path must declare, once read: its version, the elements, a metric, a
 * step, and a mesh (if any) of as many elements. */
static lbs_err check_manifest(const char *path, int version, const manifest *mf) {
  if (!version) return lbs_fail(LBS_FORMAT, "%s: empty manifest", path);
  if (mf->E < 1) return lbs_fail(LBS_PARSE, "%s: no 'elements' declaration", path);
  if (mf->nm < 1) return lbs_fail(LBS_PARSE, "%s: no 'metric' declaration", path);
  if (mf->S < 1) return lbs_fail(LBS_PARSE, "%s: no 'step' declaration", path);
  if (mf->mesh && lbs_mesh_elements(mf->mesh) != mf->E)
    return lbs_fail(LBS_PARSE, "%s: the mesh has %lld elements, the manifest says %lld", path,
                    (long long)lbs_mesh_elements(mf->mesh), (long long)mf->E);
  return LBS_OK;
}

/* Reads DIR/manifest into mf (which owns what it holds, freed by manifest_free, on failure
 * too): its declarations a line at a time, '#' starting a comment, then the checks. */
static lbs_err parse_manifest(const char *dir, manifest *mf) {
  char path[4096];
  snprintf(path, sizeof path, "%s/manifest", dir);
  char *text;
  size_t len;
  lbs_err e = lbs_read_file(path, &text, &len);
  if (e) return e;
  int64_t line = 0;
  int version = 0;
  for (char *p = text, *nl; *p && !e; p = nl ? nl + 1 : p + strlen(p)) {
    nl = strchr(p, '\n');
    if (nl) *nl = '\0';
    line++;
    char *hash = strchr(p, '#');
    if (hash) *hash = '\0';
    char w[4][1024] = {{0}};
    char extra[8];
    int n = sscanf(p, "%1023s %1023s %1023s %1023s %7s", w[0], w[1], w[2], w[3], extra);
    if (n <= 0) continue;
    e = declaration(dir, path, line, w, n, &version, mf);
  }
  free(text);
  if (e) return e;
  return check_manifest(path, version, mf);
}

/* Reads one step file into (*vp)[m*E + e]; *vp NULL: allocates it first. A non-finite value is
 * an error naming the file, line and metric unless *nonfinite is not NULL, which then counts them.
 */
static lbs_err read_step(const char *dir, const char *file, const manifest *mf, double **vp,
                         int64_t *nonfinite) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  char *text;
  size_t len;
  lbs_err e = lbs_read_file(path, &text, &len);
  if (e) return e;
  /* every element is a line: a count the file cannot hold never sizes the buffer */
  if (!*vp && (uint64_t)mf->E > len)
    e = lbs_fail(LBS_PARSE, "%s: %zu bytes cannot hold %lld element lines", path, len,
                 (long long)mf->E);
  else if (!*vp && !(*vp = malloc((size_t)mf->E * (size_t)mf->nm * sizeof **vp)))
    e = lbs_fail(LBS_NOMEM, "step buffer");
  double *v = *vp;
  int64_t line = 0, elem = 0;
  for (char *p = text, *nl; *p && !e; p = nl ? nl + 1 : p + strlen(p)) {
    nl = strchr(p, '\n');
    if (nl) *nl = '\0';
    line++;
    char *q = p;
    while (*q == ' ' || *q == '\t' || *q == '\r') q++;
    if (!*q || *q == '#') continue;
    char *end;
    long long id = strtoll(q, &end, 10);
    if (end == q || id != elem) {
      e = lbs_fail(LBS_PARSE, "%s:%lld: expected element %lld first on the line", path,
                   (long long)line, (long long)elem);
      break;
    }
    if (elem >= mf->E) {
      e = lbs_fail(LBS_PARSE, "%s:%lld: more than %lld elements", path, (long long)line,
                   (long long)mf->E);
      break;
    }
    q = end;
    for (int m = 0; m < mf->nm && !e; m++) {
      double x = strtod(q, &end);
      if (end == q)
        e = lbs_fail(LBS_PARSE, "%s:%lld: element %lld: missing value for metric '%s'", path,
                     (long long)line, (long long)elem, mf->names[m]);
      else if (!isfinite(x) && !nonfinite)
        e = lbs_fail(LBS_PARSE,
                     "%s:%lld: element %lld: metric '%s' is %s (a cost must be a finite number; "
                     "--allow-nonfinite imports it as it is)",
                     path, (long long)line, (long long)elem, mf->names[m],
                     isnan(x) ? "NaN" : "infinite");
      else if (!isfinite(x))
        (*nonfinite)++;
      v[(int64_t)m * mf->E + elem] = x;
      q = end;
    }
    while (!e && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
    if (!e && *q)
      e = lbs_fail(LBS_PARSE, "%s:%lld: unexpected text '%.20s'", path, (long long)line, q);
    elem++;
  }
  free(text);
  if (!e && elem != mf->E)
    e = lbs_fail(LBS_PARSE, "%s: %lld element lines, the manifest says %lld", path, (long long)elem,
                 (long long)mf->E);
  return e;
}

lbs_err lbs_stepsdir_import(const char *dir, const char *out_path, lbs_import_opts *o) {
  manifest mf = {0};
  int64_t *nf = o->allow_nonfinite ? &o->nonfinite : NULL;
  o->nonfinite = 0;
  lbs_err e = parse_manifest(dir, &mf);
  double *v = NULL;
  lbs_trace_writer *w = NULL;
  int made = 0;
  if (e) goto done;
  lbs_metric_spec ms[MAX_METRICS];
  for (int m = 0; m < mf.nm; m++)
    ms[m] = (lbs_metric_spec){mf.names[m], mf.units[m], o->codec, o->bound, {0, 0}};
  const char *meta[] = {"source", "steps-dir"};
  lbs_trace_spec spec = {mf.E, o->chunk_elems, mf.nm, ms, mf.mesh, 1, meta};
  /* Read the first step before creating the output, so a bad directory leaves nothing. */
  if ((e = read_step(dir, mf.files[0], &mf, &v, nf))) goto done;
  if ((e = lbs_trace_create(out_path, &spec, &w))) goto done;
  made = 1;
  const double *cols[MAX_METRICS];
  for (int m = 0; m < mf.nm; m++) cols[m] = v + (int64_t)m * mf.E;
  for (int64_t s = 0; s < mf.S && !e; s++) {
    if (s > 0) e = read_step(dir, mf.files[s], &mf, &v, nf);
    if (!e) e = lbs_trace_write_step(w, mf.app[s], cols);
  }
done:
  if (w) {
    lbs_err e2 = lbs_trace_writer_close(&w);
    if (!e) e = e2;
  }
  if (e && made) remove(out_path); /* a bad later step: the half trace made here only misleads */
  free(v);
  manifest_free(&mf);
  return e;
}
