/* cmd_calibrate_plan.h - the plan sub-commands of `lbsim calibrate` (cmd_calibrate_plan.c). */
#ifndef LBS_CMD_CALIBRATE_PLAN_H
#define LBS_CMD_CALIBRATE_PLAN_H

#include <stdio.h>

#include "lbs_core.h"

typedef struct cli_plan_opts {
  const char *db, *kernel, *node, *range, *works;
  int repeat, json, measure, allow_partial, warmup;
} cli_plan_opts;

/* `calibrate plan`: builds and stores a node's plan, prints its tables. Exit status. */
int cli_calibrate_plan(const cli_plan_opts *o, const char *command);
/* `calibrate run-plan`: runs the newest plan (of --kernel) for real against its prediction and
 * the implementations alone. Exit status. */
int cli_calibrate_run_plan(const cli_plan_opts *o);
/* The tables of every plan in the database at path, for `calibrate show`. */
lbs_err cli_calibrate_show_plans(const char *path, FILE *f);

#endif
