/* cmd_export_vtk.c - lbsim export vtk: a replay as VTK XML files for ParaView, one per replayed
 * step (the replayed metric's value, the owner processor and whether the element moved, per
 * element), with a .pvd collection that makes them a time series.
 *
 * The trace is replayed as lbsim replay does (same options, same answer), keeping the
 * assignment after every repartition; then rank 0 reads each exported step's values from the
 * trace and writes its file:
 *   structured mesh (nx x ny x nz cells)  step_NNNNNN.vti  ImageData, cells of unit size, the
 *                                         cell (i, j, k) centred at (i+0.5, j+0.5, k+0.5) as the
 *                                         trace's cell centres are; cell data in VTK's order
 *   unstructured mesh with coordinates    step_NNNNNN.vtu  UnstructuredGrid, one point per
 *                                         element at its coordinates (1-D and 2-D padded with
 *                                         zeros), one VTK_VERTEX cell per point: a trace keeps
 *                                         element centres and a graph, not cell shapes
 * Every DataArray is ASCII, floats with 17 significant digits, so a reader gets the trace's
 * doubles back exactly. Memory: one step's values, the cell order and the assignments. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "lbs_mpi.h"
#include "lbs_sim.h"

static const char *const CMD = "export vtk";

static void usage(void) {
  printf("usage: [mpirun -n R] lbsim export vtk t.lbt --grid g.ini [replay options] -o DIR [-f]\n"
         "                       [--every K] [--time sim|app]\n\n"
         "Replays the trace as 'lbsim replay' does (same options, same answer) and writes, for\n"
         "ParaView or any VTK reader, each replayed step's elements with three values:\n"
         "  cost      the replayed metric's value (Float64, exactly the trace's value)\n"
         "  owner     the processor the element is on at that step (Int32, 0..P-1)\n"
         "  moved     1 when its owner differs from the previous exported step's (the first\n"
         "            exported step: from the initial partition's), else 0 (UInt8)\n"
         "  element   the element's id in the trace (Int64)\n"
         "and as field data: step (the trace's step), app_step, time_s (the simulated time at the\n"
         "end of the step: the makespan, repartitions included).\n\n"
         "  DIR/step_NNNNNN.vti  a structured mesh (trace gen --mesh NXxNYxNZ): ImageData with the\n"
         "                       values as cell data, cell (i,j,k) centred at (i+.5, j+.5, k+.5)\n"
         "  DIR/step_NNNNNN.vtu  an unstructured one (trace import --chaco with --coords, nbody):\n"
         "                       UnstructuredGrid, one point and one VTK_VERTEX cell per element\n"
         "                       at its coordinates (the trace has no cell shapes)\n"
         "  DIR/replay.pvd       the time series: one DataSet per file, timestep = time_s\n"
         "                       (--time app: the application's step number)\n"
         "NNNNNN is the trace's step. A trace without coordinates (no mesh, or a graph alone)\n"
         "cannot be placed in space: an error.\n\n"
         "options (as lbsim replay):\n"
         "  --grid FILE, --partitioner NAME, --policy NAME, --mode bsp|des, --metric NAME,\n"
         "  --steps A:B (the replayed window), --cost model|measured|zero, --cost-scale X,\n"
         "  --part-fixed-us US, --part-per-elem-ns NS, --partition-metric NAME\n"
         "  --set SECTION.KEY=VAL  override a grid key (replay's -o; here -o is the output)\n"
         "                         Each replay flag is the [sim] override it names (--policy X\n"
         "                         is --set sim.policy=X): the defaults, then the grid file's\n"
         "                         [sim], then the flags and --set from left to right (the later\n"
         "                         wins)\n"
         "  -o, --output DIR       the output directory: new, empty, or with -f one lbsim wrote\n"
         "  -f, --force            replace an earlier export in DIR\n"
         "  --every K              export every K-th replayed step (0, K, 2K, ... of the window;\n"
         "                         default 1): the replay still runs every step\n"
         "  --time sim|app         the .pvd's timestep: simulated seconds (default) or app_step\n\n"
         "examples:\n"
         "  lbsim trace gen --kind bump --mesh 16x8x8 --steps 20 -o bump.lbt\n"
         "  lbsim export vtk bump.lbt --grid examples/grids/homogeneous16.ini --policy fixed:5 -o vtk\n"
         "  paraview vtk/replay.pvd        # colour by owner, cost or moved; play the steps\n"
         "  lbsim trace gen --kind nbody --bodies 4096 --steps 50 -o nbody.lbt\n"
         "  lbsim export vtk nbody.lbt --grid examples/grids/two_sites.ini --policy threshold:0.1 \\\n"
         "      --every 5 --time app -o nbody-vtk\n");
}

/* ---------------------------------------------------------------- the files */

/* The geometry of the trace's mesh, as the files place it. */
typedef struct {
  int structured;        /* 1: ImageData; 0: points as vertices */
  int64_t E;             /* elements */
  int64_t dims[3];       /* structured: cells along x, y, z */
  int64_t *elem_of_cell; /* structured: the element in VTK cell c (E entries, owned) */
  const double *coords;  /* unstructured: E x dim (the mesh's) */
  int dim;
} geometry;

/* Checks that the trace's elements can be placed; fills g. Errors name the trace. */
static lbs_err geometry_of(lbs_trace *t, const char *path, geometry *g) {
  memset(g, 0, sizeof *g);
  g->E = lbs_trace_elements(t);
  lbs_mesh *m = lbs_trace_mesh(t);
  if (!m) return lbs_fail(LBS_INVAL, "%s: the trace has no mesh: nothing places its elements in space", path);
  if (lbs_mesh_get_kind(m) == LBS_MESH_STRUCTURED) {
    lbs_mesh_dims(m, g->dims);
    for (int k = 0; k < 3; k++)
      if (g->dims[k] < 1 || g->dims[k] >= INT_MAX)
        return lbs_fail(LBS_RANGE, "%s: a %lldx%lldx%lld mesh: VTK's extents take up to %d cells a side", path,
                        (long long)g->dims[0], (long long)g->dims[1], (long long)g->dims[2], INT_MAX - 1);
    const int64_t *cell = lbs_mesh_cell_index(m);
    g->elem_of_cell = malloc((size_t)g->E * sizeof *g->elem_of_cell);
    if (!cell || !g->elem_of_cell) return lbs_fail(LBS_NOMEM, "%s: the cell order of %lld elements", path, (long long)g->E);
    for (int64_t c = 0; c < g->E; c++) g->elem_of_cell[c] = -1;
    for (int64_t e = 0; e < g->E; e++) {
      if (cell[e] < 0 || cell[e] >= g->E || g->elem_of_cell[cell[e]] >= 0)
        return lbs_fail(LBS_CORRUPT, "%s: element %lld: cell %lld is outside the mesh or taken twice", path, (long long)e,
                        (long long)cell[e]);
      g->elem_of_cell[cell[e]] = e;
    }
    g->structured = 1;
    return LBS_OK;
  }
  lbs_err e = lbs_mesh_coords(m, &g->coords, &g->dim);
  if (!e && (!g->coords || g->dim < 1 || g->dim > 3))
    e = lbs_fail(LBS_INVAL, "%s: the trace's mesh has no coordinates (a graph alone): nothing places its elements in "
                 "space (trace import --chaco takes them with --coords)", path);
  return e;
}

/* N values, 8 a line: EXPR of i_ for i_ in [0, N), each printed with FMT. */
#define PUT_VALUES(F, N, EXPR, FMT)                                                                      \
  for (int64_t i_ = 0; i_ < (N); i_++) fprintf((F), (i_ % 8 == 7 || i_ == (N)-1) ? FMT "\n" : FMT " ", EXPR)

/* The field data every step file carries. */
static void field_data(FILE *f, int64_t step, int64_t app_step, int64_t time_ns) {
  fprintf(f,
          "    <FieldData>\n"
          "      <DataArray type=\"Int64\" Name=\"step\" NumberOfTuples=\"1\" format=\"ascii\">%lld</DataArray>\n"
          "      <DataArray type=\"Int64\" Name=\"app_step\" NumberOfTuples=\"1\" format=\"ascii\">%lld</DataArray>\n"
          "      <DataArray type=\"Float64\" Name=\"time_s\" NumberOfTuples=\"1\" format=\"ascii\">%lld.%09lld</DataArray>\n"
          "    </FieldData>\n",
          (long long)step, (long long)app_step, (long long)(time_ns / 1000000000), (long long)(time_ns % 1000000000));
}

/* The cell data: element i of the file's cell order is el(i). */
static void cell_data(FILE *f, const geometry *g, const double *cost, const int *owner, const int *prev) {
  int64_t E = g->E;
  const int64_t *ec = g->elem_of_cell;
#define EL(i) (ec ? ec[i] : (i))
  fprintf(f, "      <CellData Scalars=\"owner\">\n        <DataArray type=\"Float64\" Name=\"cost\" format=\"ascii\">\n");
  PUT_VALUES(f, E, cost[EL(i_)], "%.17g");
  fprintf(f, "        </DataArray>\n        <DataArray type=\"Int32\" Name=\"owner\" format=\"ascii\">\n");
  PUT_VALUES(f, E, owner[EL(i_)], "%d");
  fprintf(f, "        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"moved\" format=\"ascii\">\n");
  PUT_VALUES(f, E, owner[EL(i_)] != prev[EL(i_)], "%d");
  fprintf(f, "        </DataArray>\n        <DataArray type=\"Int64\" Name=\"element\" format=\"ascii\">\n");
  PUT_VALUES(f, E, (long long)EL(i_), "%lld");
  fprintf(f, "        </DataArray>\n      </CellData>\n");
#undef EL
}

/* Writes one step's file at path; 0, or 1 after 'lbsim: export vtk: PATH: why'. */
static int write_step(const char *path, const geometry *g, int64_t step, int64_t app_step, int64_t time_ns,
                      const double *cost, const int *owner, const int *prev) {
  FILE *f = fopen(path, "wx");
  if (!f) return fprintf(stderr, "lbsim: %s: %s: cannot create: %s\n", CMD, path, strerror(errno)), 1;
  static char buf[1 << 16];
  setvbuf(f, buf, _IOFBF, sizeof buf);
  const char *type = g->structured ? "ImageData" : "UnstructuredGrid";
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"%s\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n",
          type);
  int64_t E = g->E;
  if (g->structured) {
    fprintf(f, "  <ImageData WholeExtent=\"0 %lld 0 %lld 0 %lld\" Origin=\"0 0 0\" Spacing=\"1 1 1\">\n",
            (long long)g->dims[0], (long long)g->dims[1], (long long)g->dims[2]);
    field_data(f, step, app_step, time_ns);
    fprintf(f, "    <Piece Extent=\"0 %lld 0 %lld 0 %lld\">\n", (long long)g->dims[0],
            (long long)g->dims[1], (long long)g->dims[2]);
    cell_data(f, g, cost, owner, prev);
    fprintf(f, "    </Piece>\n  </ImageData>\n</VTKFile>\n");
  } else {
    fprintf(f, "  <UnstructuredGrid>\n");
    field_data(f, step, app_step, time_ns);
    fprintf(f, "    <Piece NumberOfPoints=\"%lld\" NumberOfCells=\"%lld\">\n      <Points>\n"
               "        <DataArray type=\"Float64\" Name=\"coordinates\" NumberOfComponents=\"3\" format=\"ascii\">\n",
            (long long)E, (long long)E);
    for (int64_t e = 0; e < E; e++) {
      const double *x = g->coords + e * g->dim;
      fprintf(f, "%.17g %.17g %.17g\n", x[0], g->dim > 1 ? x[1] : 0.0, g->dim > 2 ? x[2] : 0.0);
    }
    fprintf(f, "        </DataArray>\n      </Points>\n      <Cells>\n"
               "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
    PUT_VALUES(f, E, (long long)i_, "%lld");
    fprintf(f, "        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
    PUT_VALUES(f, E, (long long)i_ + 1, "%lld");
    fprintf(f, "        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n"); /* VTK_VERTEX */
    PUT_VALUES(f, E, 1, "%d");
    fprintf(f, "        </DataArray>\n      </Cells>\n");
    cell_data(f, g, cost, owner, prev);
    fprintf(f, "    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
  }
  errno = 0;
  int bad = ferror(f) || fflush(f) != 0, err = errno;
  if (fclose(f) != 0 && !bad) bad = 1, err = errno;
  if (bad) {
    unlink(path);
    return fprintf(stderr, "lbsim: %s: %s: write failed: %s\n", CMD, path, err ? strerror(err) : "I/O error"), 1;
  }
  return 0;
}

/* Writes every exported step and the collection into dir (rank 0). Returns 0 or 1 after a
 * message; *files gets the number of step files. */
static int write_all(const char *dir, lbs_trace *t, const geometry *g, const lbs_replay_result *r, int64_t every,
                     int app_time, int64_t *files) {
  int64_t E = g->E, S = r->steps;
  int metric = lbs_trace_metric_find(t, r->metric);
  double *cost = malloc((size_t)E * sizeof *cost);
  char *pvd = NULL;
  size_t pvd_len = 0;
  FILE *col = open_memstream(&pvd, &pvd_len);
  int bad = 0;
  if (!cost || !col || metric < 0) {
    fprintf(stderr, "lbsim: %s: %s\n", CMD, metric < 0 ? "the replayed metric is not in the trace" : "out of memory");
    bad = 1;
  }
  if (!bad)
    fprintf(col, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
                 "  <Collection>\n");
  cli_progress prog;
  cli_progress_start(&prog, "writing", S);
  const int *prev = r->assign; /* the owners at the previous exported step: the initial partition first */
  int k = 0;                   /* the assignment in force: after reparts[k-1] */
  int64_t time_ns = 0;
  char path[4400], name[64];
  for (int64_t s = 0; s < S && !bad; s++) {
    while (k < r->nrep && r->reparts[k].step <= s) {
      time_ns += r->reparts[k].partition_ns + r->reparts[k].migration_ns;
      k++;
    }
    time_ns += r->step_ns[s];
    if (s % every) continue;
    int64_t step = r->first_step + s;
    const int *owner = r->assign + (size_t)k * (size_t)E;
    lbs_err e = lbs_trace_read(t, step, metric, 0, E, cost);
    if (e) {
      bad = cli_error(CMD, e);
      break;
    }
    snprintf(name, sizeof name, "step_%06lld.%s", (long long)step, g->structured ? "vti" : "vtu");
    snprintf(path, sizeof path, "%s/%s", dir, name);
    bad = write_step(path, g, step, r->app_step[s], time_ns, cost, owner, prev);
    if (!bad && app_time) fprintf(col, "    <DataSet timestep=\"%lld\" group=\"\" part=\"0\" file=\"%s\"/>\n", (long long)r->app_step[s], name);
    else if (!bad)
      fprintf(col, "    <DataSet timestep=\"%lld.%09lld\" group=\"\" part=\"0\" file=\"%s\"/>\n", (long long)(time_ns / 1000000000),
              (long long)(time_ns % 1000000000), name);
    prev = owner;
    ++*files;
    cli_progress_update(&prog, s + 1);
  }
  cli_progress_end(&prog);
  if (!bad && time_ns != r->total_ns) { /* the sum of the steps and repartitions is the replay's total */
    fprintf(stderr, "lbsim: %s: the steps add up to %lld ns, the replay's total is %lld ns\n", CMD, (long long)time_ns,
            (long long)r->total_ns);
    bad = 1;
  }
  if (col) {
    if (!bad) fprintf(col, "  </Collection>\n</VTKFile>\n");
    fclose(col);
  }
  if (!bad) {
    snprintf(path, sizeof path, "%s/replay.pvd", dir);
    bad = cli_write_file(path, pvd, pvd_len);
  }
  free(pvd);
  free(cost);
  return bad;
}

/* ---------------------------------------------------------------- the command */

enum { O_GRID = 1000, O_SET, O_EVERY, O_TIME };

int cmd_export_vtk(int argc, char **argv) {
  static const struct option lo[] = {{"grid", required_argument, 0, O_GRID},
                                     CLI_REPLAY_OPTIONS,
                                     {"set", required_argument, 0, O_SET},
                                     {"every", required_argument, 0, O_EVERY},
                                     {"time", required_argument, 0, O_TIME},
                                     {"output", required_argument, 0, 'o'},
                                     {"force", no_argument, 0, 'f'},
                                     {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  lbs_replay_opts o;
  lbs_replay_opts_default(&o);
  cli_overrides over = {0}; /* --set and the replay flags, in command-line order */
  const char *grid_path = NULL, *out = NULL;
  int force = 0, app_time = 0, c, rc = 0;
  int64_t every = 1;
  while (!rc && (c = getopt_long(argc, argv, "ho:f", lo, NULL)) != -1) {
    if (c >= CLI_RO_FIRST && c <= CLI_RO_LAST) {
      rc = cli_replay_flag(&over, CMD, c, optarg);
      continue;
    }
    switch (c) {
    case O_GRID: grid_path = optarg; break;
    case O_SET: rc = cli_override(&over, CMD, optarg); break;
    case O_EVERY: rc = cli_parse_i64("--every", optarg, 1, INT64_MAX, &every); break;
    case O_TIME:
      if (!strcmp(optarg, "sim")) app_time = 0;
      else if (!strcmp(optarg, "app")) app_time = 1;
      else rc = cli_usage(CMD, "--time must be sim or app");
      break;
    case 'o':
      if (strchr(optarg, '=') && !strchr(optarg, '/'))
        rc = cli_usage(CMD, "-o names the output directory here; override grid keys with --set %s", optarg);
      out = optarg;
      break;
    case 'f': force = 1; break;
    case 'h': usage(); cli_overrides_free(&over); return 0;
    default: rc = cli_usage(CMD, "bad option");
    }
  }
  if (!rc && optind != argc - 1) rc = cli_usage(CMD, "expected one trace file");
  else if (!rc && !grid_path) rc = cli_usage(CMD, "missing --grid FILE");
  else if (!rc && !out) rc = cli_usage(CMD, "missing -o DIR");
  if (rc) return cli_overrides_free(&over), rc;
  const char *trace_path = argv[optind];
  MPI_Init(NULL, NULL);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* the output before the work (rank 0 writes it; every rank learns the answer) */
  cli_outdir od = {0};
  int bad = rank == 0 && cli_outdir_check_as(&od, CMD, out, force, CLI_DIR_VTK);
  if (lbs_mpi_agree(MPI_COMM_WORLD, bad ? LBS_IO : LBS_OK)) { /* said on rank 0 */
    cli_overrides_free(&over);
    MPI_Finalize();
    return 1;
  }
  lbs_config *cfg = NULL;
  lbs_grid *g = NULL;
  lbs_trace *t = NULL;
  lbs_replay_result *res = NULL;
  geometry geo = {0};
  lbs_err e = lbs_config_load(grid_path, &cfg);
  if (!e) e = cli_overrides_apply(&over, cfg); /* --set and the flags, left to right */
  if (!e) e = lbs_grid_from_config(cfg, &g);
  if (!e) e = lbs_replay_opts_from_config(cfg, &o); /* [sim]: the grid file's, then the command line's */
  o.save_assignment = 1;
  if (!e) e = lbs_trace_open(trace_path, &t);
  if (!e) e = geometry_of(t, trace_path, &geo); /* before the replay: a trace without places fails at once */
  cli_progress prog;
  cli_progress_start(&prog, "replaying", 0);
  if (!e) {
    o.cfg = cfg;
    if (rank == 0) {
      cli_progress_start(&prog, "replaying", lbs_trace_steps(t));
      o.progress = cli_progress_cb;
      o.progress_arg = &prog;
    }
    e = lbs_replay(t, g, &o, MPI_COMM_WORLD, &res);
    cli_progress_end(&prog);
  }
  rc = 0;
  if (e) {
    if (rank == 0) cli_error(CMD, e);
    rc = 1;
  } else if (rank == 0) {
    int64_t files = 0;
    rc = cli_outdir_begin(&od) || write_all(od.tmp, t, &geo, res, every, app_time, &files) || cli_outdir_commit(&od);
    cli_outdir_abort(&od);
    if (!rc)
      printf("export        %s: %lld %s files of %lld elements (steps %lld..%lld%s), %d processors, %d repartitions, "
             "%lld moves; open %s/replay.pvd\n",
             od.dir, (long long)files, geo.structured ? ".vti" : ".vtu", (long long)res->elements, (long long)res->first_step,
             (long long)(res->first_step + res->steps - 1), every > 1 ? ", thinned" : "", res->procs, res->nrep,
             (long long)res->moved, od.dir);
  }
  rc = lbs_mpi_agree(MPI_COMM_WORLD, rc ? LBS_IO : LBS_OK) ? 1 : 0; /* rank 0's outputs */
  free(geo.elem_of_cell);
  lbs_replay_result_free(&res);
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  cli_overrides_free(&over);
  MPI_Finalize();
  return rc;
}
