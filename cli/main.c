/* main.c - the lbsim command: dispatches to one file per sub-command. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifndef LBSIM_VERSION
#define LBSIM_VERSION "0.1.0"
#endif

static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *help;
} commands[] = {
    {"trace", cmd_trace, "generate, inspect, verify, import and export traces"},
    {"grid", cmd_grid, "validate and describe simulated platforms"},
    {"replay", cmd_replay, "replay a trace on a grid with a partitioner and a policy (MPI)"},
    {"policy", cmd_policy, "compare repartitioning policies, against the optimal schedule"},
    {"collect", cmd_collect, "receive the profiler's node agents and write a trace"},
    {"partition", cmd_partition, "partition one step for a grid and measure it (MinEX model)"},
    {NULL, NULL, NULL},
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: lbsim <command> [options]\n\n"
          "lbsim replays per-element traces of mesh-based parallel applications on a\n"
          "simulated grid to evaluate load-balancing policies and partitioners.\n\ncommands:\n");
  for (int i = 0; commands[i].name; i++) fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
  fprintf(f, "\n'lbsim <command> --help' describes a command. Errors: 'lbsim: what: why', exit 1;\n"
             "usage errors exit 2.\n");
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("lbsim %s\n", LBSIM_VERSION);
    return 0;
  }
  for (int i = 0; commands[i].name; i++)
    if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "lbsim: unknown command '%s' (known:", argv[1]);
  for (int i = 0; commands[i].name; i++) fprintf(stderr, " %s", commands[i].name);
  fprintf(stderr, ")\n");
  return 2;
}
