/* cli.h - helpers shared by the lbsim sub-commands. */
#ifndef LBS_CLI_H
#define LBS_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "lbs_core.h"

/* Prints "lbsim: <what>: <why>" to stderr, why from lbs_errmsg() or lbs_strerror(e);
 * returns 1. */
int cli_error(const char *what, lbs_err e);
/* Prints a usage error and returns 2. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Progress bar on stderr, drawn only when stderr is a terminal. */
typedef struct cli_progress {
  const char *label;
  int64_t total;
  int on;
  int last_pct;
} cli_progress;
void cli_progress_start(cli_progress *p, const char *label, int64_t total);
void cli_progress_update(cli_progress *p, int64_t done);
void cli_progress_end(cli_progress *p);
int cli_progress_cb(void *arg, int64_t done, int64_t total); /* for lbs_progress_fn */

/* JSON string literal with escapes. */
void cli_json_str(FILE *f, const char *s);
/* JSON number, or null when not finite. */
void cli_json_num(FILE *f, double v);

/* Strict number parsing for options; print a usage error naming the option on failure. */
int cli_parse_i64(const char *opt, const char *s, int64_t lo, int64_t hi, int64_t *out);
int cli_parse_f64(const char *opt, const char *s, double lo, double hi, double *out);

/* Removes path and its SQLite side files (for --force). */
void cli_remove_db(const char *path);

int cmd_trace(int argc, char **argv);
int cmd_grid(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_policy(int argc, char **argv);
int cmd_partition(int argc, char **argv);
int cmd_collect(int argc, char **argv);

#endif
