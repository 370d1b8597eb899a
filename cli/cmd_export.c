/* cmd_export.c - lbsim export: the formats' dispatch, and export simgrid: a replay written as
 * SimGrid SMPI time-independent traces with the platform, so that SMPI can replay what lbsim
 * simulated (study/export_simgrid.c). export vtk is cmd_export_vtk.c; the options and checks both
 * formats share are export_args.c (cmd_export.h); export vt is cmd_export_vt.c. */
#include <getopt.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_export.h"
#include "lbs_export.h"
#include "lbs_mpi.h"

static void usage(void) {
  printf(
      "usage: [mpirun -n R] lbsim export simgrid t.lbt --grid g.ini [replay options] -o DIR [-f]\n\n"
      "Replays the trace as 'lbsim replay' does (same options, same answer) and writes the run\n"
      "for SimGrid's SMPI to replay: one time-independent trace per simulated processor and\n"
      "the platform. The results store does not keep who sends what to whom, hence the replay.\n\n"
      "  DIR/platform.xml   host pN per processor (its speed x 1 Gflop/s); a link per cluster\n"
      "                     network and per pair of clusters with the grid's latency and\n"
      "                     bandwidth, SHARED where the grid says shared, else FATPIPE; a\n"
      "                     SPLITDUPLEX link per NIC (nic_gbps); SimGrid zones give every\n"
      "                     pair of processors lbsim's route: a Cluster zone for one cluster,\n"
      "                     a DijkstraCache zone when every processor has a NIC, else a route\n"
      "                     per pair of processors (README in DIR says which)\n"
      "  DIR/rank_N.txt     processor N's actions: compute <flops> (its simulated ns x its\n"
      "                     speed), send/recv <peer> 0 <bytes> for halos and migrations,\n"
      "                     barrier and sleep <s> (bsp's barrier_us, partitioning time)\n"
      "  DIR/replay.txt, DIR/hostfile   for smpirun -replay: trace N runs on host pN\n"
      "  DIR/run.sh         runs smpirun with the settings under which SMPI models what lbsim\n"
      "                     does (CM02 flows, no cross-traffic, no TCP window, eager sends)\n"
      "  DIR/lbsim.json     lbsim's answer (as replay --json); DIR/README: what agrees, and why\n\n"
      "options (as lbsim replay):\n"
      "  --grid FILE, --partitioner NAME, --policy NAME, --mode bsp|des, --metric NAME,\n"
      "  --steps A:B, --cost model|measured|zero, --cost-scale X, --part-fixed-us US,\n"
      "  --part-per-elem-ns NS, --partition-metric NAME\n"
      "  --set SECTION.KEY=VAL  override a grid key, as in every command\n"
      "                         Each replay flag is the [sim] override it names (--policy X\n"
      "                         is --set sim.policy=X): the defaults, then the grid file's\n"
      "                         [sim], then the flags and --set from left to right (the later\n"
      "                         wins)\n"
      "  -o, --output DIR       the output directory: new, empty, or with -f one lbsim wrote\n"
      "  -f, --force            replace an earlier export in DIR\n"
      "  --envelope BYTES       subtracted from every message's size: SMPI adds a 16-byte MPI\n"
      "                         envelope (default 16; 0 writes lbsim's sizes as they are)\n"
      "  --json                 lbsim's answer as one JSON object on stdout\n\n"
      "examples:\n"
      "  lbsim trace gen --kind bump --mesh 16x8x8 --steps 20 -o bump.lbt\n"
      "  lbsim export simgrid bump.lbt --grid examples/grids/two_sites.ini --mode des \\\n"
      "      --policy fixed:10 -o smpi\n"
      "  smpi/run.sh            # SMPI prints 'Simulation time T'; lbsim's: smpi/lbsim.json\n");
}

/* ---------------------------------------------------------------- export simgrid */

enum { O_JSON = 1100, O_ENVELOPE };

typedef struct {
  int json;
  double envelope;
} simgrid_args;

static int simgrid_opt(void *arg, int c, const char *optarg) {
  simgrid_args *x = arg;
  if (c == O_JSON) return x->json = 1;
  if (c == O_ENVELOPE) return cli_parse_f64("--envelope", optarg, 0, 1e9, &x->envelope) ? 2 : 1;
  return 0;
}

/* Rank 0: the export into the fresh directory, renamed into place, and its summary. Exit code. */
static int simgrid_write(const cli_export_args *a, const simgrid_args *x, cli_outdir *od,
                         lbs_simgrid *sg, const lbs_replay_result *res) {
  lbs_err e = LBS_OK;
  int rc = cli_outdir_begin(od) ||
           ((e = lbs_simgrid_write(sg, od->tmp, res)) && cli_error(a->cmd, e)) ||
           cli_outdir_commit(od);
  cli_outdir_abort(od);
  if (!rc && x->json) return cli_json_print(a->cmd, lbs_replay_json(res), LBS_JSON_COMPACT);
  if (!rc)
    printf("export        %s: %d processors, %lld steps, %lld messages; lbsim: %.9f s (%s); "
           "replay: %s/run.sh\n",
           od->dir, res->procs, (long long)res->steps, (long long)lbs_simgrid_messages(sg),
           1e-9 * (double)res->total_ns, res->mode == LBS_MODE_BSP ? "bsp" : "des", od->dir);
  return rc;
}

static int export_simgrid(int argc, char **argv) {
  static const struct option own[] = {{"json", no_argument, 0, O_JSON},
                                      {"envelope", required_argument, 0, O_ENVELOPE},
                                      {0, 0, 0, 0}};
  cli_export_args a = {.cmd = "export simgrid"};
  simgrid_args x = {0, 16};
  int rc = cli_export_parse(argc, argv, own, simgrid_opt, &x, usage, &a);
  if (rc) return cli_overrides_free(&a.over), rc < 0 ? 0 : rc;
  cli_mpi_init();
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  cli_outdir od;
  lbs_session s = {0};
  lbs_simgrid *sg = NULL;
  lbs_replay_result *res = NULL;
  if (cli_export_check(&a, CLI_DIR_SIMGRID, NULL, &od))
    rc = 1;
  else {
    lbs_err e = lbs_session_open(&s, a.trace, a.grid, (const char *const *)a.over.v, a.over.n);
    if (!e) e = lbs_simgrid_create(&s, x.envelope, rank == 0, &sg);
    if (!e)
      e = cli_session_record(&s, "replaying", "optimal's search", lbs_simgrid_recorder(sg), &res);
    if (e)
      rc = rank == 0 ? cli_error(a.cmd, e) : 1;
    else if (rank == 0)
      rc = simgrid_write(&a, &x, &od, sg, res);
    rc = lbs_mpi_agree(MPI_COMM_WORLD, rc ? LBS_IO : LBS_OK) ? 1 : 0; /* rank 0's outputs */
  }
  lbs_simgrid_destroy(&sg);
  lbs_replay_result_free(&res);
  lbs_session_close(&s);
  cli_overrides_free(&a.over);
  MPI_Finalize();
  return rc;
}

int cmd_export(int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "simgrid")) return export_simgrid(argc - 1, argv + 1);
  if (argc >= 2 && !strcmp(argv[1], "vtk")) return cmd_export_vtk(argc - 1, argv + 1);
  if (argc >= 2 && !strcmp(argv[1], "vt")) return cmd_export_vt(argc - 1, argv + 1);
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    printf(
        "usage: lbsim export simgrid|vtk|vt t.lbt --grid g.ini [replay options] -o DIR\n\n"
        "Writes a replay in another tool's formats. Formats:\n"
        "  simgrid   SimGrid SMPI time-independent traces and platform ('lbsim export simgrid --help')\n"
        "  vtk       VTK XML files per step (cost, owner, moved) and a .pvd time series for ParaView\n"
        "            ('lbsim export vtk --help')\n"
        "  vt        DARMA vt LB data (data.P.json per processor) for vt-tv and LBAF; 'lbsim\n"
        "            trace import --vt' reads it back ('lbsim export vt --help')\n");
    return 0;
  }
  if (argc < 2) return cli_usage("export", "expected a format: simgrid, vtk or vt");
  return cli_unknown_sub("export", "format", argv[1], "simgrid, vtk, vt");
}
