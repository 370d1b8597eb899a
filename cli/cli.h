/* cli.h - helpers shared by the lbsim sub-commands. */
#ifndef LBS_CLI_H
#define LBS_CLI_H

#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "lbs_config.h"
#include "lbs_core.h"
#include "lbs_json.h"
#include "lbs_sim.h"
#include "lbs_study.h"

/* Prints "lbsim: <what>: <why>" to stderr, why from lbs_errmsg() or lbs_strerror(e);
 * returns 1. */
int cli_error(const char *what, lbs_err e);
/* The one success line of a command that wrote an output, on stderr (stdout is the command's
 * report or JSON): "lbsim: CMD: wrote PATH" and, when fmt is given, ": " and the details. */
void cli_wrote(const char *cmd, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prints a usage error and returns 2. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* getopt_long for every command (options.c), remembering its arguments so that cli_bad_option,
 * called where it returns an option the command does not take ('?'), can say which and how:
 * "unknown option '--jsn'; did you mean '--json'?", "--grid needs a value". Returns 2. */
int cli_getopt(int argc, char *const *argv, const char *shortopts, const struct option *lo);
int cli_bad_option(const char *cmd);
/* A sub-command cmd does not have ('what': "command", "format"), among known (comma-separated):
 * "lbsim: trace: unknown command 'gne'; did you mean 'gen'? (known: gen, info, ...)". Returns 2. */
int cli_unknown_sub(const char *cmd, const char *what, const char *word, const char *known);

/* Progress bar on stderr with elapsed time and ETA, drawn only when stderr is a terminal. The
 * ETA is the pace since the first update: what came before it (a resumed sweep's tasks, the
 * search of a policy that plans ahead, opening the trace) is not extrapolated. */
typedef struct cli_progress {
  const char *label;
  int64_t total;
  int on;
  int last_pct;
  double t0, last_t; /* when it started, when it was last drawn (monotonic s) */
  double pace_t0;    /* the first update's time (0: none yet) */
  int64_t base;      /* done at the first update: the ETA counts only what follows */
} cli_progress;
void cli_progress_start(cli_progress *p, const char *label, int64_t total);
void cli_progress_update(cli_progress *p, int64_t done);
void cli_progress_end(cli_progress *p);
int cli_progress_cb(void *arg, int64_t done, int64_t total); /* for lbs_progress_fn */

/* MPI_Init for a command. Started without a launcher, lbsim is a singleton: it then asks Open MPI
 * for an isolated singleton (no daemon forked) over its ob1 layer (no UCX probe), which starts in
 * about 0.1 s instead of 0.5 s. Variables the user set win; under mpiexec nothing changes. */
void cli_mpi_init(void);
/* glibc's heap set for large arrays before a command that reads traces: arrays from the heap,
 * freed memory kept, transparent huge pages for its first 512 MiB (malloc_tune.c says why; not
 * under sanitizers, Valgrind or a user's GLIBC_TUNABLES for malloc). */
void cli_malloc_tune(int argc, char **argv);

/* v (its reference taken; NULL when building it ran out of memory) as one line on stdout
 * (lbs_json_write): 0, or 1 with 'lbsim: what: JSON output: out of memory' printed. A write
 * error is left to main(), which checks standard output when it closes it. */
int cli_json_print(const char *what, json_t *v, size_t flags);

/* Strict number parsing for options; print a usage error naming the option on failure. */
int cli_parse_i64(const char *opt, const char *s, int64_t lo, int64_t hi, int64_t *out);
int cli_parse_f64(const char *opt, const char *s, double lo, double hi, double *out);

/* An output path option's argument (-o FILE, --output FILE, -o DIR) into *out: 0, or 2 after
 * "lbsim: CMD: OPT: empty path". An empty path names no file: SQLite would take it for a
 * temporary database, and the command would say it wrote what it threw away. The option given
 * twice is a usage error too (*out must start NULL): the later would silently win. */
int cli_output_arg(const char *cmd, const char *opt, const char *arg, const char **out);

/* Output files. What an existing output may be: NEW refuses it ('file exists'), FORCE
 * (--force) replaces it when it is of the kind the command writes, APPEND (a results store)
 * adds to it. */
typedef enum { CLI_OUT_NEW, CLI_OUT_FORCE, CLI_OUT_APPEND } cli_out_mode;
/* The kind of file a command writes, which is all that --force may replace: a user's file of
 * another kind (a results store under trace gen -f, a hand-written CSV) is never lost to a typo.
 * An empty file holds nothing to lose and counts as any kind. */
typedef enum {
  CLI_FILE_TRACE,    /* trace gen, import, recode, collect: an SQLite file with a trace's
                        application_id (LBS_TRACE_APP_ID) */
  CLI_FILE_GRID,     /* grid gen, grid probe: a grid file that starts with their comment line */
  CLI_FILE_PARTS,    /* partition --out-parts: digits and line ends only (one part per line) */
  CLI_FILE_PIPELINE, /* pipeline --output: its tables or JSON, by how each starts */
  CLI_FILE_STORE     /* a results store or calibration database, only ever added to (APPEND):
                        its own open refuses a file of another kind; never replaced */
} cli_file_kind;
/* Checks an output file before the work, changing nothing: what is at path and at its SQLite
 * side files (-wal, -shm, -journal), if anything, must be a regular file or a link to one (a
 * directory, device, FIFO or socket is never replaced nor opened), which mode must allow (FORCE:
 * only a file of kind); and the directory that holds path must take a new file (a probe: as
 * root, permission bits say yes on a read-only mount). Prints 'lbsim: PATH: why' and returns 1;
 * 0 when fine. */
int cli_check_output(const char *path, cli_out_mode mode, cli_file_kind kind);
/* cli_check_output, then with force removes the regular file at path and its side files (a
 * link is removed, not what it points to). Call it just before the output is created. */
int cli_replace_output(const char *path, int force, cli_file_kind kind);
/* Writes len bytes to a new file at path (after cli_replace_output): 0, or 1 with 'lbsim: PATH:
 * why' printed and the half-written file removed. */
int cli_write_file(const char *path, const void *data, size_t len);

/* An output directory (--csv DIR, --steps-dir DIR) is written into a fresh directory beside
 * it (DIR.tmp-XXXXXX) and renamed into place when complete, so no stale file of an earlier
 * run stays beside the new ones and nothing lbsim did not write is ever deleted. */
/* What an output directory holds: the names one command writes there, which its force may
 * replace (never a directory another command wrote, whose files would go with it). */
typedef enum {
  CLI_DIR_EXPORT = 0, /* trace export --csv: steps.csv, elements.csv; --steps-dir: manifest,
                         step_NNNNNN.txt, mesh.graph, mesh.coords (either replaces the other) */
  CLI_DIR_COMPARE,    /* policy compare --csv: summary.csv, imbalance.csv, series_*.csv */
  CLI_DIR_SIMGRID,    /* export simgrid: platform.xml, hostfile, replay.txt, rank_*.txt, run.sh,
                         README, lbsim.json */
  CLI_DIR_RESULTS,    /* lbsim results --csv: <table>.csv for each table of a results store */
  CLI_DIR_VTK,        /* export vtk: replay.pvd, step_NNNNNN.vti or .vtu */
  CLI_DIR_CALIB,      /* calibrate show --csv: ipgs.csv, points.csv, samples.csv, verifies.csv,
                         plan_pieces.csv */
  CLI_DIR_SWEEP,      /* sweep --csv: tidy.csv */
  CLI_DIR_PIPELINE,   /* pipeline --csv: mappings.csv */
  CLI_DIR_VALIDATE,   /* validate --keep: runs.csv, runR_K.json, runR_K.log */
  CLI_DIR_VT          /* export vt: data.P.json */
} cli_dir_kind;
typedef struct cli_outdir {
  char dir[4096]; /* the destination, trailing slashes dropped */
  char tmp[4200]; /* the directory being written; "" when none */
  int guard;      /* its cli_interrupt_remove id while it is being written, else -1 */
  int force;
  cli_dir_kind kind;
  const char
      *cmd; /* "export vtk": messages read "lbsim: export vtk: DIR: why"; NULL: "lbsim: DIR: why" */
} cli_outdir;
/* Before the work: DIR's parent takes a new directory, and DIR is absent, an empty directory
 * or, with force, a directory holding only regular files that a command of kind writes there.
 * Prints why not and returns 1. cmd (borrowed) names the command in every message about d
 * ("lbsim: CMD: DIR: why") and in its success line (cli_wrote). */
int cli_outdir_check_as(cli_outdir *d, const char *cmd, const char *dir, int force,
                        cli_dir_kind kind);
/* Makes the fresh directory d->tmp to write into, removed with its files if a signal ends the
 * command before cli_outdir_commit (cli_interrupt_remove); prints why not and returns 1. */
int cli_outdir_begin(cli_outdir *d);
/* Checks DIR again and renames d->tmp into place (lbsim's old output there is moved aside,
 * then removed). Prints why not and returns 1; the caller then calls cli_outdir_abort. */
int cli_outdir_commit(cli_outdir *d);
/* Removes d->tmp and what was written in it (nothing when it was committed). */
void cli_outdir_abort(cli_outdir *d);

/* What an interrupted command leaves (interrupt.c). A path registered here is removed when
 * SIGINT, SIGTERM or SIGHUP arrives (one the process did not ignore when it started), then the
 * signal is raised again under its default action, so the exit status is the signal's. What a
 * path is: */
typedef enum {
  CLI_RM_FILE,  /* a file */
  CLI_RM_DB,    /* an SQLite file with its side files (-wal, -shm, -journal) */
  CLI_RM_DIR,   /* a fresh directory of lbsim's: everything in it, then it */
  CLI_RM_CGROUP /* lbsim's control group (lbs_emulate.h): its processes killed, then it removed */
} cli_rm;
/* Registers path (copied); with same, only while it is still that file (its st_dev and st_ino),
 * never what replaced it. An id for cli_interrupt_keep, or -1 when the table is full. */
int cli_interrupt_remove(const char *path, cli_rm kind, const struct stat *same);
/* fn (async-signal-safe; NULL: none) runs first when such a signal arrives, before the paths
 * are removed: validate's, which kills the real run under way. */
void cli_interrupt_call(void (*fn)(void));
/* Forgets id (-1: nothing): the output is complete, or removed already. */
void cli_interrupt_keep(int id);
/* Blocks the signals until release, so that making an output and registering it are one step
 * for a signal (mkdtemp, then cli_interrupt_remove). */
void cli_interrupt_hold(sigset_t *saved);
void cli_interrupt_release(const sigset_t *saved);

/* One way to set options. Every replay flag is a config override: --policy X is --set sim.policy=X,
 * --steps A:B is --set sim.steps=A:B, and so on, appended in command-line order to the one list
 * --set fills. The precedence is one rule: the defaults, then the grid file's [sim], then the
 * command line's flags and overrides from left to right (the later wins);
 * lbs_replay_opts_from_config alone turns the result into options. */
typedef struct cli_overrides {
  char **v; /* "section.key=value", owned */
  int n, cap;
} cli_overrides;
/* Checks the form of an override (SECTION.KEY=VALUE, '+' to add a named section) as
 * lbs_config_override reads it: 0; 2 after a usage message for cmd; 1 out of memory. */
int cli_override_check(const char *cmd, const char *assignment);
/* Appends a copy of an assignment (--set's text as given) after cli_override_check: 0, 2 or 1. */
int cli_override(cli_overrides *l, const char *cmd, const char *assignment);
/* One grammar (docs/cli.md): --set KEY=VALUE is every command's override (code CLI_SET), -o FILE
 * always an output. -o used to be the override in some commands: cli_o_output takes -o's argument
 * as the output, but refuses one that reads as an override (an '=' and no '/') with a usage error
 * that gives the --set spelling (2); cli_o_none is -o on a command that writes no file (2). */
enum { CLI_SET = 1999 };
#define CLI_SET_OPTION                                                                             \
  { "set", required_argument, 0, CLI_SET }
int cli_o_output(const char *cmd, const char *arg, const char **out);
int cli_o_none(const char *cmd, const char *arg);
/* Applies the list to cfg in order (lbs_config_override's errors). */
lbs_err cli_overrides_apply(const cli_overrides *l, lbs_config *cfg);
void cli_overrides_free(cli_overrides *l);
/* The replay flags (the getopt_long entries to put in a command's table, codes from CLI_RO_FIRST
 * on), each the [sim] key it sets. */
enum {
  CLI_RO_FIRST = 2000,
  CLI_RO_PART = CLI_RO_FIRST,
  CLI_RO_POLICY,
  CLI_RO_MODE,
  CLI_RO_METRIC,
  CLI_RO_PMETRIC,
  CLI_RO_COST,
  CLI_RO_SCALE,
  CLI_RO_FIXED,
  CLI_RO_PERELEM,
  CLI_RO_STEPS,
  CLI_RO_LAST = CLI_RO_STEPS
};
#define CLI_REPLAY_OPTIONS                                                                         \
  {"partitioner", required_argument, 0, CLI_RO_PART},                                              \
      {"policy", required_argument, 0, CLI_RO_POLICY},                                             \
      {"mode", required_argument, 0, CLI_RO_MODE},                                                 \
      {"metric", required_argument, 0, CLI_RO_METRIC},                                             \
      {"partition-metric", required_argument, 0, CLI_RO_PMETRIC},                                  \
      {"cost", required_argument, 0, CLI_RO_COST},                                                 \
      {"cost-scale", required_argument, 0, CLI_RO_SCALE},                                          \
      {"part-fixed-us", required_argument, 0, CLI_RO_FIXED},                                       \
      {"part-per-elem-ns", required_argument, 0, CLI_RO_PERELEM}, {                                \
    "steps", required_argument, 0, CLI_RO_STEPS                                                    \
  }
/* Replay flag c (CLI_RO_*) with its argument: the value checked as [sim] reads it
 * (lbs_replay_opts_set), then "sim.KEY=VALUE" appended to l. 0; 2 after a usage message for cmd
 * that names the flag ("lbsim: replay: --mode: 'x' must be bsp or des"); 1 out of memory. */
int cli_replay_flag(cli_overrides *l, const char *cmd, int c, const char *arg);

/* lbs_replay of the session over MPI_COMM_WORLD (collective), with progress bars on rank 0: the
 * replay's steps under label, and the optimal policy's search, when it runs, under search_label. */
lbs_err cli_session_replay(lbs_session *s, const char *label, const char *search_label,
                           lbs_replay_result **out);
/* cli_session_replay telling rec (may be NULL) what happens (lbs_replay_record). */
lbs_err cli_session_record(lbs_session *s, const char *label, const char *search_label,
                           const lbs_replay_recorder *rec, lbs_replay_result **out);

/* Loads the plug-ins LBSIM_PLUGIN_PATH names (colon-separated .so files), then those of the
 * global options --plugin PATH.so (repeatable) before the command, and registers their
 * policies and partitioners (include/lbsim_plugin.h); the options are taken out of argv
 * (argv[0] stays). 0; 1 after "lbsim: plugin PATH: why"; 2 after a usage error. */
int cli_plugins_load(int *argc, char ***argv);

int cmd_trace(int argc, char **argv);
int cmd_grid(int argc, char **argv);
int cmd_grid_probe(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_policy(int argc, char **argv);
int cmd_partition(int argc, char **argv);
int cmd_collect(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_export_vtk(int argc, char **argv); /* lbsim export vtk (argv[0] "vtk") */
int cmd_export_vt(int argc, char **argv);  /* lbsim export vt (argv[0] "vt") */
int cmd_calibrate(int argc, char **argv);
int cmd_pipeline(int argc, char **argv);
int cmd_results(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
