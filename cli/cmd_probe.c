/* cmd_probe.c - lbsim grid probe: describe the machine it runs on as a grid file, from short
 * real measurements (study/probe.c: ping-pongs, the barrier, the partitioner's cost, migrations
 * with Zoltan_Migrate). */
#include <getopt.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lbs_mpi.h"
#include "lbs_probe.h"

static const char *usage_text =
    "usage: mpiexec -n R lbsim grid probe -o machine.ini [-f] [--json] [--partitioner NAME] [--quick]\n\n"
    "Describes the machine it runs on as a grid file, from short real measurements:\n"
    "  - latency and bandwidth from MPI ping-pongs between two ranks of one node, and\n"
    "    between nodes when the ranks span several (8 B to 2 MiB, median of repeats;\n"
    "    bandwidth from a least-squares fit over 64 KiB and more);\n"
    "  - the cost of one MPI_Barrier over all ranks (the bsp barrier per step);\n"
    "  - the partitioner's cost at 4 sizes, fitted as fixed + per element ([sim]\n"
    "    partition_fixed_us and partition_per_elem_ns);\n"
    "  - migrations with Zoltan_Migrate and pack/unpack callbacks at 3 element counts x\n"
    "    3 element sizes, fitted as fixed + per element + bytes at a rate ([grid]\n"
    "    migration_fixed_us, migration_per_elem_ns, migration_gbps: the replay charges\n"
    "    them per repartition in place of the migration's transfers over the links).\n"
    "The grid has one cluster per node, one processor per rank, speed 1 and ns_per_work 1:\n"
    "a trace profiled on this machine (time_ns) then replays as this machine. Needs at\n"
    "least 2 ranks, numbered node by node. Takes a few seconds (--quick: fewer repeats).\n\n"
    "options:\n"
    "  -o FILE            the grid file to write (required)\n"
    "  -f, --force        replace FILE if it exists\n"
    "  --partitioner NAME the partitioner whose cost is fitted (default zoltan:rcb)\n"
    "  --quick            fewer repeats (less accurate)\n"
    "  --json             the measurements as one JSON object on stdout\n\n"
    "example:\n"
    "  mpiexec -n 2 lbsim grid probe -o machine.ini\n"
    "  lbsim replay run.lbt --grid machine.ini --policy fixed:20\n";

typedef struct {
  const char *out, *partitioner;
  int force, json, quick;
} args;

/* The command line into a: 0, 2 after a usage error, or -1 after --help. */
static int parse(int argc, char **argv, args *a) {
  enum { O_PART = 256, O_QUICK, O_JSON };
  static const struct option lo[] = {{"force", no_argument, 0, 'f'},
                                     {"json", no_argument, 0, O_JSON},
                                     {"partitioner", required_argument, 0, O_PART},
                                     {"quick", no_argument, 0, O_QUICK},
                                     {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  int c;
  while ((c = cli_getopt(argc, argv, "ho:f", lo)) != -1) {
    switch (c) {
    case 'o':
      if (cli_output_arg("grid probe", "-o", optarg, &a->out)) return 2;
      break;
    case 'f': a->force = 1; break;
    case O_JSON: a->json = 1; break;
    case O_PART: a->partitioner = optarg; break;
    case O_QUICK: a->quick = 1; break;
    case 'h': fputs(usage_text, stdout); return -1;
    default: return cli_bad_option("grid probe");
    }
  }
  if (optind < argc) return cli_usage("grid probe", "unexpected argument '%s'", argv[optind]);
  if (!a->out) return cli_usage("grid probe", "missing -o FILE (the grid file to write)");
  return 0;
}

/* The measurements in words. */
static void print_probe(const lbs_probe *p) {
  printf("probed %d ranks on %d node%s (%s)\n", p->ranks, p->nodes, p->nodes > 1 ? "s" : "",
         p->host);
  if (p->intra.measured)
    printf("  inside a node   latency %.3f us, bandwidth %.2f Gbit/s\n", p->intra.latency_us,
           p->intra.bandwidth_gbps);
  if (p->inter.measured)
    printf("  between nodes   latency %.3f us, bandwidth %.2f Gbit/s\n", p->inter.latency_us,
           p->inter.bandwidth_gbps);
  printf("  barrier         %.3f us\n  %-15s %.1f us + %.2f ns per element\n", p->barrier_us,
         p->partitioner, p->part_fixed_us, p->part_per_elem_ns);
  printf("  migration       %.1f us + %.2f ns per element + bytes at %.2f Gbit/s (Zoltan_Migrate, "
         "per rank sent + received)\n",
         p->mig_fixed_us, p->mig_per_elem_ns, p->mig_gbps);
}

/* Rank 0: the grid file written, the measurements printed. Exit code. */
static int write_grid(const args *a, const lbs_probe *p) {
  lbs_buf b = {0};
  lbs_err e = lbs_probe_grid(p, &b);
  int rc = e ? cli_error("grid probe", e)
             : cli_replace_output(a->out, a->force, CLI_FILE_GRID) ||
                   cli_write_file(a->out, b.data, b.len);
  lbs_buf_free(&b);
  if (!rc) cli_wrote("grid probe", a->out, NULL);
  if (!rc && a->json)
    rc = cli_json_print("grid probe", lbs_probe_json(p, a->out), LBS_JSON_COMPACT);
  else if (!rc)
    print_probe(p);
  return rc;
}

int cmd_grid_probe(int argc, char **argv) {
  args a = {.partitioner = "zoltan:rcb"};
  int rc = parse(argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc;
  cli_mpi_init();
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  lbs_probe p = {0};
  if (size < 2) {
    fprintf(stderr,
            "lbsim: grid probe: needs at least 2 MPI ranks to measure links between them (run "
            "'mpiexec -n 2 lbsim grid probe -o %s')\n",
            a.out);
    rc = 1;
  } else if (lbs_mpi_agree(MPI_COMM_WORLD,
                           rank == 0 &&
                                   cli_check_output(a.out, a.force ? CLI_OUT_FORCE : CLI_OUT_NEW,
                                                    CLI_FILE_GRID)
                               ? LBS_IO
                               : LBS_OK)) {
    rc = 1; /* said on rank 0 */
  } else {
    lbs_err e = lbs_probe_run(a.partitioner, a.quick, MPI_COMM_WORLD, &p);
    if (e)
      rc = rank == 0 ? cli_error("grid probe", e) : 1;
    else if (rank == 0)
      rc = write_grid(&a, &p);
    rc = lbs_mpi_agree(MPI_COMM_WORLD, rc ? LBS_IO : LBS_OK) ? 1 : 0; /* rank 0's outputs */
  }
  lbs_probe_free(&p);
  MPI_Finalize();
  return rc;
}
