/* cmd_export_vtk.c - lbsim export vtk: a replay as VTK XML files for ParaView, one per replayed
 * step (the replayed metric's value, the owner processor and whether the element moved, per
 * element), with a .pvd collection that makes them a time series (study/export_vtk.c). The
 * trace is replayed as lbsim replay does (same options, same answer), keeping the assignment
 * after every repartition; then rank 0 writes the files. */
#include <getopt.h>
#include <mpi.h>
#include <string.h>

#include "cli.h"
#include "cmd_export.h"
#include "lbs_export.h"
#include "lbs_mpi.h"

static const char *const CMD = "export vtk";

static void usage(void) {
  printf(
      "usage: [mpirun -n R] lbsim export vtk t.lbt --grid g.ini [replay options] -o DIR [-f]\n"
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
      "  --set SECTION.KEY=VAL  override a grid key, as in every command\n"
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

enum { O_EVERY = 1100, O_TIME };

static int vtk_opt(void *arg, int c, const char *optarg) {
  lbs_vtk_opts *x = arg;
  if (c == O_EVERY) return cli_parse_i64("--every", optarg, 1, INT64_MAX, &x->every) ? 2 : 1;
  if (c != O_TIME) return 0;
  if (!strcmp(optarg, "sim"))
    x->app_time = 0;
  else if (!strcmp(optarg, "app"))
    x->app_time = 1;
  else
    return cli_usage(CMD, "--time must be sim or app");
  return 1;
}

/* Rank 0: the files into the fresh directory, renamed into place, and the summary. Exit code. */
static int vtk_write(const lbs_vtk_opts *x, cli_outdir *od, lbs_vtk *v,
                     const lbs_replay_result *res) {
  int64_t files = 0;
  cli_progress prog;
  cli_progress_start(&prog, "writing", res->steps);
  lbs_vtk_opts o = *x;
  o.progress = cli_progress_cb, o.progress_arg = &prog;
  lbs_err e = LBS_OK;
  int rc = cli_outdir_begin(od);
  if (!rc) e = lbs_vtk_write(v, res, &o, od->tmp, &files);
  cli_progress_end(&prog);
  rc = rc || (e && cli_error(CMD, e)) || cli_outdir_commit(od);
  cli_outdir_abort(od);
  if (!rc)
    printf("export        %s: %lld %s files of %lld elements (steps %lld..%lld%s), %d processors, "
           "%d repartitions, "
           "%lld moves; open %s/replay.pvd\n",
           od->dir, (long long)files, lbs_vtk_structured(v) ? ".vti" : ".vtu",
           (long long)res->elements, (long long)res->first_step,
           (long long)(res->first_step + res->steps - 1), x->every > 1 ? ", thinned" : "",
           res->procs, res->nrep, (long long)res->moved, od->dir);
  return rc;
}

int cmd_export_vtk(int argc, char **argv) {
  static const struct option own[] = {{"every", required_argument, 0, O_EVERY},
                                      {"time", required_argument, 0, O_TIME},
                                      {0, 0, 0, 0}};
  cli_export_args a = {.cmd = CMD};
  lbs_vtk_opts x = {.every = 1};
  int rc = cli_export_parse(argc, argv, own, vtk_opt, &x, usage, &a);
  if (rc) return cli_overrides_free(&a.over), rc < 0 ? 0 : rc;
  cli_mpi_init();
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  cli_outdir od;
  lbs_session s = {0};
  lbs_vtk *v = NULL;
  lbs_replay_result *res = NULL;
  if (cli_export_check(&a, CLI_DIR_VTK, CMD, &od))
    rc = 1;
  else {
    lbs_err e = lbs_session_open(&s, a.trace, a.grid, (const char *const *)a.over.v, a.over.n);
    s.opts.save_assignment = 1;
    if (!e)
      e = lbs_vtk_create(&s, &v); /* before the replay: a trace without places fails at once */
    if (!e) e = cli_session_replay(&s, "replaying", "optimal's search", &res);
    if (e)
      rc = rank == 0 ? cli_error(CMD, e) : 1;
    else if (rank == 0)
      rc = vtk_write(&x, &od, v, res);
    rc = lbs_mpi_agree(MPI_COMM_WORLD, rc ? LBS_IO : LBS_OK) ? 1 : 0; /* rank 0's outputs */
  }
  lbs_vtk_destroy(&v);
  lbs_replay_result_free(&res);
  lbs_session_close(&s);
  cli_overrides_free(&a.over);
  MPI_Finalize();
  return rc;
}
