/* main.c - the lbsim command: dispatches to one file per sub-command. */
#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>

#include "cli.h"
#include "lbs_lua.h"

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
    {"validate", cmd_validate, "check predictions against real runs of an app (apps/)"},
    {"export", cmd_export,
     "write a replay for another tool (SimGrid SMPI traces, VTK files for ParaView, vt LB data)"},
    {"calibrate", cmd_calibrate,
     "measure kernels on this machine's devices: performance curves (IPGs)"},
    {"sweep", cmd_sweep,
     "a what-if study: traces x grids x partitioners x policies x overrides (MPI farm)"},
    {"results", cmd_results,
     "list and export what a results store holds (studies, runs, provenance)"},
    {"report", cmd_report,
     "write a results store as one self-contained HTML page (charts, tables)"},
    {"pipeline", cmd_pipeline,
     "operational laws for block-to-processor mappings of a pipeline (seed 000)"},
    {"help", NULL, "this list, or a command's help: lbsim help replay, lbsim help trace gen"},
    {NULL, NULL, NULL},
};

static void usage(FILE *f) {
  fprintf(f, "usage: lbsim [--plugin PATH.so]... [--lua-unsafe] <command> [options]\n\n"
             "lbsim replays per-element traces of mesh-based parallel applications on a\n"
             "simulated grid to evaluate load-balancing policies and partitioners.\n\ncommands:\n");
  for (int i = 0; commands[i].name; i++)
    fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
  fprintf(f, "\n--plugin PATH.so (repeatable; also LBSIM_PLUGIN_PATH, colon-separated) loads a\n"
             "plug-in's policies, partitioners, speed models and MinEX latency functions\n"
             "(see include/lbsim_plugin.h). --lua-unsafe opens every Lua library (os, io,\n"
             "require, ...) to Lua scripts (lua:FILE.lua policies and MinEX latencies), which\n"
             "otherwise see only base, string, table and math (also LBSIM_LUA_UNSAFE=1, a\n"
             "boolean: 1, yes, true or on; 0, no, false, off or empty leave it off).\n");
  fprintf(f, "\n'lbsim help <command>' or 'lbsim <command> --help' describes a command; every\n"
             "command follows one grammar (docs/cli.md): -o FILE is an output, --set KEY=VALUE an\n"
             "override, --json one JSON document on stdout. Errors: 'lbsim: CMD: what: why', exit\n"
             "1; usage errors (an unknown command or option, a missing or extra argument, a bad\n"
             "option value) exit 2.\n");
}

/* Flushes and closes standard output after the command: a write error there (a full disk,
 * a closed descriptor) is an error like any other, exit 1 unless the command failed already.
 * A command that wrote nothing to a closed standard output is not blamed for it. */
static int close_stdout(int rc) {
  int pending = __fpending(stdout) != 0, earlier = ferror(stdout) != 0;
  errno = 0;
  int failed = fclose(stdout) != 0, err = errno;
  if (earlier || (failed && (pending || err != EBADF))) {
    fprintf(stderr, "lbsim: standard output: %s\n", failed && err ? strerror(err) : "write error");
    return rc ? rc : 1;
  }
  return rc;
}

/* The command named name, or -1 after a usage error (from `lbsim` or `lbsim help`) that names
 * the closest one. */
static int find_command(const char *name, const char *from) {
  lbs_near near;
  lbs_near_init(&near, name);
  for (int i = 0; commands[i].name; i++) {
    if (!strcmp(name, commands[i].name)) return i;
    lbs_near_offer(&near, commands[i].name);
  }
  fprintf(stderr, "lbsim: %sunknown command '%s'", from, name);
  if (lbs_near_best(&near)) fprintf(stderr, "; did you mean '%s'?", lbs_near_best(&near));
  fprintf(stderr, " (known:");
  for (int i = 0; commands[i].name; i++) fprintf(stderr, " %s", commands[i].name);
  fprintf(stderr, ")\n");
  return -1;
}

/* lbsim help [CMD [SUB]]: the list, or the command run with --help. */
static int help(int argc, char **argv) {
  if (argc < 2) return usage(stdout), 0;
  if (argv[1][0] == '-') return cli_usage("help", "unknown option '%s'", argv[1]);
  if (argc > 3) return cli_usage("help", "expected a command and at most one sub-command");
  int i = find_command(argv[1], "help: ");
  if (i < 0) return 2;
  if (!commands[i].run) return usage(stdout), 0;
  char *args[4] = {argv[1], argc > 2 ? argv[2] : "--help", argc > 2 ? "--help" : NULL, NULL};
  return commands[i].run(argc > 2 ? 3 : 2, args);
}

static int run(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("lbsim %s\n", LBSIM_VERSION);
    return 0;
  }
  if (!strcmp(argv[1], "help")) return help(argc - 1, argv + 1);
  int i = find_command(argv[1], "");
  return i < 0 ? 2 : commands[i].run(argc - 1, argv + 1);
}

/* Where the libraries' lbs_log messages go: stderr, each line prefixed "lbsim: ", or
 * "lbsim[rank N]: " in an MPI job of more than one rank (as its launcher says), at the level
 * LBSIM_LOG names (default info: the notes lbsim always printed). 0, or 2 after a message for a
 * bad LBSIM_LOG. */
static lbs_log_stream log_sink = {NULL, ""};
static int setup_log(void) {
  int rank, size;
  lbs_log_mpi_env(&rank, &size);
  lbs_log_prefix(log_sink.prefix, sizeof log_sink.prefix, "lbsim", rank, size);
  lbs_log_set_sink(lbs_log_stream_sink, &log_sink);
  lbs_log_level level = LBS_LOG_INFO;
  if (lbs_log_level_from_env("LBSIM_LOG", &level)) {
    fprintf(stderr, "lbsim: %s\n", lbs_errmsg());
    return 2;
  }
  lbs_log_set_level(level);
  return 0;
}

/* Takes --lua-unsafe out of the global options before the command (among --plugin ones). */
static void lua_unsafe_option(int *argc, char **argv) {
  int j = 1;
  for (int i = 1; i < *argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--lua-unsafe")) {
      lbs_lua_set_unsafe(1);
      continue;
    }
    argv[j++] = argv[i];
    if (!strcmp(a, "--plugin") && i + 1 < *argc) {
      argv[j++] = argv[++i];
    } else if (strncmp(a, "--plugin=", 9)) { /* the command: the rest is its own */
      while (++i < *argc) argv[j++] = argv[i];
    }
  }
  argv[j] = NULL;
  *argc = j;
}

/* LBSIM_LUA_UNSAFE checked before any command, as LBSIM_LOG: a bad value is a usage error, not
 * a script's failure later (and not the unsafe mode: "false" is no). 0, or 2 after a message. */
static int check_lua_unsafe(void) {
  int on;
  if (!lbs_lua_unsafe_from_env(&on)) return 0;
  fprintf(stderr, "lbsim: %s\n", lbs_errmsg());
  return 2;
}

int main(int argc, char **argv) {
  cli_malloc_tune(argc, argv);
  lbs_prov_capture(argc, argv);
  opterr = 0; /* a command's refused option is cli_bad_option's message, not getopt's */
  if (setup_log() || check_lua_unsafe()) return 2;
  lua_unsafe_option(&argc, argv);
  int rc = cli_plugins_load(&argc, &argv);
  if (rc) return rc;
  return close_stdout(run(argc, argv));
}
