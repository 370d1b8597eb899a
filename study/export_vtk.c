/* export_vtk.c - a replay as VTK XML files for ParaView, one per exported step, with a .pvd
 * collection that makes them a time series (lbs_export.h). Rank 0 reads each exported step's
 * values from the trace and writes its file from the replay's assignments. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_export.h"
#include "study_int.h"

/* The geometry of the trace's mesh, as the files place it. */
struct lbs_vtk {
  lbs_trace *t;          /* the session's */
  int structured;        /* 1: ImageData; 0: points as vertices */
  int64_t E;             /* elements */
  int64_t dims[3];       /* structured: cells along x, y, z */
  int64_t *elem_of_cell; /* structured: the element in VTK cell c (E entries, owned) */
  const double *coords;  /* unstructured: E x dim (the mesh's) */
  int dim;
  char buf[1 << 16]; /* the step files' stream buffer */
};

/* The structured mesh's dims and the element in each VTK cell. Errors name the trace. */
static lbs_err structured(lbs_vtk *g, lbs_mesh *m, const char *path) {
  lbs_mesh_dims(m, g->dims);
  for (int k = 0; k < 3; k++)
    if (g->dims[k] < 1 || g->dims[k] >= INT_MAX)
      return lbs_fail(
          LBS_RANGE, "%s: a %lldx%lldx%lld mesh: VTK's extents take up to %d cells a side", path,
          (long long)g->dims[0], (long long)g->dims[1], (long long)g->dims[2], INT_MAX - 1);
  const int64_t *cell = lbs_mesh_cell_index(m);
  g->elem_of_cell = malloc((size_t)g->E * sizeof *g->elem_of_cell);
  if (!cell || !g->elem_of_cell)
    return lbs_fail(LBS_NOMEM, "%s: the cell order of %lld elements", path, (long long)g->E);
  for (int64_t c = 0; c < g->E; c++) g->elem_of_cell[c] = -1;
  for (int64_t e = 0; e < g->E; e++) {
    if (cell[e] < 0 || cell[e] >= g->E || g->elem_of_cell[cell[e]] >= 0)
      return lbs_fail(LBS_CORRUPT, "%s: element %lld: cell %lld is outside the mesh or taken twice",
                      path, (long long)e, (long long)cell[e]);
    g->elem_of_cell[cell[e]] = e;
  }
  g->structured = 1;
  return LBS_OK;
}

lbs_err lbs_vtk_create(lbs_session *s, lbs_vtk **out) {
  const char *path = s->trace_path;
  lbs_vtk *g = *out = calloc(1, sizeof *g);
  if (!g) return lbs_fail(LBS_NOMEM, "%s: the export's geometry", path);
  g->t = s->trace;
  g->E = lbs_trace_elements(s->trace);
  lbs_mesh *m = lbs_trace_mesh(s->trace);
  lbs_err e = LBS_OK;
  if (!m)
    e = lbs_fail(LBS_INVAL, "%s: the trace has no mesh: nothing places its elements in space",
                 path);
  else if (lbs_mesh_get_kind(m) == LBS_MESH_STRUCTURED)
    e = structured(g, m, path);
  else if (!(e = lbs_mesh_coords(m, &g->coords, &g->dim)) &&
           (!g->coords || g->dim < 1 || g->dim > 3))
    e = lbs_fail(
        LBS_INVAL,
        "%s: the trace's mesh has no coordinates (a graph alone): nothing places its elements in "
        "space (trace import --chaco takes them with --coords)",
        path);
  if (e) lbs_vtk_destroy(out);
  return e;
}

int lbs_vtk_structured(const lbs_vtk *v) { return v->structured; }

void lbs_vtk_destroy(lbs_vtk **v) {
  if (!*v) return;
  free((*v)->elem_of_cell);
  free(*v);
  *v = NULL;
}

/* ---------------------------------------------------------------- the files */

/* N values, 8 a line: EXPR of i_ for i_ in [0, N), each printed with FMT. */
#define PUT_VALUES(F, N, EXPR, FMT)                                                                \
  for (int64_t i_ = 0; i_ < (N); i_++)                                                             \
  fprintf((F), (i_ % 8 == 7 || i_ == (N)-1) ? FMT "\n" : FMT " ", EXPR)

/* The field data every step file carries. */
static void field_data(FILE *f, int64_t step, int64_t app_step, int64_t time_ns) {
  fprintf(f,
          "    <FieldData>\n"
          "      <DataArray type=\"Int64\" Name=\"step\" NumberOfTuples=\"1\" "
          "format=\"ascii\">%lld</DataArray>\n"
          "      <DataArray type=\"Int64\" Name=\"app_step\" NumberOfTuples=\"1\" "
          "format=\"ascii\">%lld</DataArray>\n"
          "      <DataArray type=\"Float64\" Name=\"time_s\" NumberOfTuples=\"1\" "
          "format=\"ascii\">%lld.%09lld</DataArray>\n"
          "    </FieldData>\n",
          (long long)step, (long long)app_step, (long long)(time_ns / 1000000000),
          (long long)(time_ns % 1000000000));
}

/* The cell data: element i of the file's cell order is el(i). */
static void cell_data(FILE *f, const lbs_vtk *g, const double *cost, const int *owner,
                      const int *prev) {
  int64_t E = g->E;
  const int64_t *ec = g->elem_of_cell;
#define EL(i) (ec ? ec[i] : (i))
  fprintf(f, "      <CellData Scalars=\"owner\">\n        <DataArray type=\"Float64\" "
             "Name=\"cost\" format=\"ascii\">\n");
  PUT_VALUES(f, E, cost[EL(i_)], "%.17g");
  fprintf(
      f,
      "        </DataArray>\n        <DataArray type=\"Int32\" Name=\"owner\" format=\"ascii\">\n");
  PUT_VALUES(f, E, owner[EL(i_)], "%d");
  fprintf(
      f,
      "        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"moved\" format=\"ascii\">\n");
  PUT_VALUES(f, E, owner[EL(i_)] != prev[EL(i_)], "%d");
  fprintf(f, "        </DataArray>\n        <DataArray type=\"Int64\" Name=\"element\" "
             "format=\"ascii\">\n");
  PUT_VALUES(f, E, (long long)EL(i_), "%lld");
  fprintf(f, "        </DataArray>\n      </CellData>\n");
#undef EL
}

/* The points and VTK_VERTEX cells of an unstructured mesh. */
static void points(FILE *f, const lbs_vtk *g) {
  int64_t E = g->E;
  fprintf(f,
          "    <Piece NumberOfPoints=\"%lld\" NumberOfCells=\"%lld\">\n      <Points>\n"
          "        <DataArray type=\"Float64\" Name=\"coordinates\" NumberOfComponents=\"3\" "
          "format=\"ascii\">\n",
          (long long)E, (long long)E);
  for (int64_t e = 0; e < E; e++) {
    const double *x = g->coords + e * g->dim;
    fprintf(f, "%.17g %.17g %.17g\n", x[0], g->dim > 1 ? x[1] : 0.0, g->dim > 2 ? x[2] : 0.0);
  }
  fprintf(f, "        </DataArray>\n      </Points>\n      <Cells>\n"
             "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
  PUT_VALUES(f, E, (long long)i_, "%lld");
  fprintf(f, "        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" "
             "format=\"ascii\">\n");
  PUT_VALUES(f, E, (long long)i_ + 1, "%lld");
  fprintf(f, "        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" "
             "format=\"ascii\">\n"); /* VTK_VERTEX */
  PUT_VALUES(f, E, 1, "%d");
  fprintf(f, "        </DataArray>\n      </Cells>\n");
}

/* What a step file holds besides the mesh. */
typedef struct {
  int64_t step, app_step, time_ns;
  const double *cost;
  const int *owner, *prev;
} step_data;

/* Writes one step's file at path. */
static lbs_err write_step(lbs_vtk *g, const char *path, const step_data *d) {
  FILE *f = fopen(path, "wx");
  if (!f) return lbs_fail(LBS_IO, "%s: cannot create: %s", path, strerror(errno));
  setvbuf(f, g->buf, _IOFBF, sizeof g->buf);
  const char *type = g->structured ? "ImageData" : "UnstructuredGrid";
  fprintf(f,
          "<?xml version=\"1.0\"?>\n<VTKFile type=\"%s\" version=\"1.0\" "
          "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n",
          type);
  if (g->structured) {
    fprintf(
        f,
        "  <ImageData WholeExtent=\"0 %lld 0 %lld 0 %lld\" Origin=\"0 0 0\" Spacing=\"1 1 1\">\n",
        (long long)g->dims[0], (long long)g->dims[1], (long long)g->dims[2]);
    field_data(f, d->step, d->app_step, d->time_ns);
    fprintf(f, "    <Piece Extent=\"0 %lld 0 %lld 0 %lld\">\n", (long long)g->dims[0],
            (long long)g->dims[1], (long long)g->dims[2]);
    cell_data(f, g, d->cost, d->owner, d->prev);
    fprintf(f, "    </Piece>\n  </ImageData>\n</VTKFile>\n");
  } else {
    fprintf(f, "  <UnstructuredGrid>\n");
    field_data(f, d->step, d->app_step, d->time_ns);
    points(f, g);
    cell_data(f, g, d->cost, d->owner, d->prev);
    fprintf(f, "    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
  }
  return lbs__close_new(f, path);
}

/* The collection's entry of a step file. */
static lbs_err dataset(lbs_buf *pvd, const lbs_vtk_opts *o, int64_t app_step, int64_t time_ns,
                       const char *name) {
  if (o->app_time)
    return lbs__bprintf(pvd, "    <DataSet timestep=\"%lld\" group=\"\" part=\"0\" file=\"%s\"/>\n",
                        (long long)app_step, name);
  return lbs__bprintf(pvd,
                      "    <DataSet timestep=\"%lld.%09lld\" group=\"\" part=\"0\" file=\"%s\"/>\n",
                      (long long)(time_ns / 1000000000), (long long)(time_ns % 1000000000), name);
}

/* Every exported step's file, its entries in pvd; *time_ns the replay's time at the end. */
static lbs_err steps(lbs_vtk *g, const lbs_replay_result *r, const lbs_vtk_opts *o, const char *dir,
                     int metric, double *cost, lbs_buf *pvd, int64_t *files, int64_t *time_ns) {
  const int *prev =
      r->assign; /* the owners at the previous exported step: the initial partition first */
  int k = 0;     /* the assignment in force: after reparts[k-1] */
  char path[4400], name[64];
  lbs_err e = LBS_OK;
  for (int64_t s = 0; s < r->steps && !e; s++) {
    while (k < r->nrep && r->reparts[k].step <= s) {
      *time_ns += r->reparts[k].partition_ns + r->reparts[k].migration_ns;
      k++;
    }
    *time_ns += r->step_ns[s];
    if (s % o->every) continue;
    step_data d = {r->first_step + s,
                   r->app_step[s],
                   *time_ns,
                   cost,
                   r->assign + (size_t)k * (size_t)g->E,
                   prev};
    if ((e = lbs_trace_read(g->t, d.step, metric, 0, g->E, cost))) break;
    snprintf(name, sizeof name, "step_%06lld.%s", (long long)d.step, g->structured ? "vti" : "vtu");
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!(e = write_step(g, path, &d))) e = dataset(pvd, o, d.app_step, *time_ns, name);
    prev = d.owner;
    ++*files;
    if (o->progress) o->progress(o->progress_arg, s + 1, r->steps);
  }
  return e;
}

lbs_err lbs_vtk_write(lbs_vtk *v, const lbs_replay_result *r, const lbs_vtk_opts *o,
                      const char *dir, int64_t *files) {
  int metric = lbs_trace_metric_find(v->t, r->metric);
  if (metric < 0) return lbs_fail(LBS_INVAL, "the replayed metric is not in the trace");
  double *cost = malloc((size_t)v->E * sizeof *cost);
  lbs_buf pvd = {0};
  int64_t time_ns = 0;
  lbs_err e =
      !cost ? lbs_fail(LBS_NOMEM, "out of memory")
            : lbs__bprintf(&pvd,
                           "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\" "
                           "byte_order=\"LittleEndian\">\n  <Collection>\n");
  if (!e) e = steps(v, r, o, dir, metric, cost, &pvd, files, &time_ns);
  if (!e &&
      time_ns != r->total_ns) /* the sum of the steps and repartitions is the replay's total */
    e = lbs_fail(LBS_INVAL, "the steps add up to %lld ns, the replay's total is %lld ns",
                 (long long)time_ns, (long long)r->total_ns);
  if (!e) e = lbs__bprintf(&pvd, "  </Collection>\n</VTKFile>\n");
  char path[4400];
  snprintf(path, sizeof path, "%s/replay.pvd", dir);
  if (!e) e = lbs__write_new(path, pvd.data, pvd.len);
  lbs_buf_free(&pvd);
  free(cost);
  return e;
}
