/* cmd_export.h - what lbsim export simgrid, export vtk and export vt share (export_args.c). */
#ifndef LBS_CMD_EXPORT_H
#define LBS_CMD_EXPORT_H

#include <getopt.h>

#include "cli.h"

/* The options every format takes. */
typedef struct cli_export_args {
  const char *cmd; /* "export simgrid", "export vtk", "export vt": messages name it */
  const char *trace, *grid, *out;
  int force;
  cli_overrides over; /* --set and the replay flags, in command-line order */
} cli_export_args;

/* A format's own option c (codes from 1100 on) with its argument: 0 when it is not one, 1 when
 * taken, 2 after a usage error. */
typedef int (*cli_export_opt)(void *arg, int c, const char *optarg);

/* The command line into a (a->cmd set by the caller): --grid, the replay flags, --set, -o DIR,
 * -f and --help (usage), and the format's own options (own, at most 8, handled by opt). 0; 2
 * after a usage error; -1 after --help. a->over is the caller's to free. */
int cli_export_parse(int argc, char **argv, const struct option *own, cli_export_opt opt, void *arg,
                     void (*usage)(void), cli_export_args *a);

/* After MPI_Init, before the work: rank 0 checks the output directory (od; messages name msgcmd,
 * which may be NULL), every rank learns the answer (collective). 0, or 1 when rank 0 said why. */
int cli_export_check(const cli_export_args *a, cli_dir_kind kind, const char *msgcmd,
                     cli_outdir *od);

#endif
