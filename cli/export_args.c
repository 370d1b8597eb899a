/* export_args.c - the options and checks every lbsim export format shares (cmd_export.h): export
 * simgrid (cmd_export.c), export vtk (cmd_export_vtk.c) and export vt (cmd_export_vt.c) parse
 * with it. */
#include <getopt.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_export.h"
#include "lbs_mpi.h"

enum { O_GRID = 1000 };

int cli_export_parse(int argc, char **argv, const struct option *own, cli_export_opt opt, void *arg,
                     void (*usage)(void), cli_export_args *a) {
  static const struct option common[] = {{"grid", required_argument, 0, O_GRID},
                                         CLI_REPLAY_OPTIONS,
                                         CLI_SET_OPTION,
                                         {"output", required_argument, 0, 'o'},
                                         {"force", no_argument, 0, 'f'},
                                         {"help", no_argument, 0, 'h'}};
  enum { NC = sizeof common / sizeof *common };
  struct option lo[NC + 9] = {{0}};
  memcpy(lo, common, sizeof common);
  for (int i = 0; own[i].name && i < 8; i++) lo[NC + i] = own[i];
  int c, rc = 0;
  while (!rc && (c = cli_getopt(argc, argv, "ho:f", lo)) != -1) {
    if (c >= CLI_RO_FIRST && c <= CLI_RO_LAST)
      rc = cli_replay_flag(&a->over, a->cmd, c, optarg);
    else if (c == O_GRID)
      a->grid = optarg;
    else if (c == CLI_SET)
      rc = cli_override(&a->over, a->cmd, optarg);
    else if (c == 'f')
      a->force = 1;
    else if (c == 'h')
      return usage(), -1;
    else if (c == 'o')
      rc = cli_o_output(a->cmd, optarg, &a->out);
    else if (!(rc = opt(arg, c, optarg)))
      rc = cli_bad_option(a->cmd);
    else if (rc == 1)
      rc = 0;
  }
  if (!rc && optind != argc - 1)
    rc = cli_usage(a->cmd, "expected one trace file");
  else if (!rc && !a->grid)
    rc = cli_usage(a->cmd, "missing --grid FILE");
  else if (!rc && !a->out)
    rc = cli_usage(a->cmd, "missing -o DIR");
  if (!rc) a->trace = argv[optind];
  return rc;
}

int cli_export_check(const cli_export_args *a, cli_dir_kind kind, const char *msgcmd,
                     cli_outdir *od) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  *od = (cli_outdir){0};
  int bad = rank == 0 && cli_outdir_check_as(od, msgcmd, a->out, a->force, kind);
  return lbs_mpi_agree(MPI_COMM_WORLD, bad ? LBS_IO : LBS_OK) ? 1 : 0; /* said on rank 0 */
}
