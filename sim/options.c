/* options.c - the replay's options: their defaults and the [sim] section of a run configuration. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_sim.h"

void lbs_replay_opts_default(lbs_replay_opts *o) {
  memset(o, 0, sizeof *o);
  o->partitioner = "zoltan:rcb";
  o->policy = "none";
  o->mode = LBS_MODE_BSP;
  o->des_overlap = LBS_DES_AUTO;
  o->cost = LBS_COST_MODEL;
  o->cost_scale = 1;
  o->part_fixed_us = -1; /* the partitioner's own figures */
  o->part_per_elem_ns = -1;
  o->partition_mode = LBS_PARTMODE_AUTO;
  o->distributed_min_elements = 1000000;
}

lbs_err lbs_partition_mode_parse(const char *s, lbs_partition_mode *out) {
  static const char *names[] = {"auto", "rank0", "distributed"};
  for (int i = 0; i < 3; i++)
    if (!strcmp(s, names[i])) return *out = (lbs_partition_mode)i, LBS_OK;
  return LBS_PARSE;
}

const char *lbs_partition_mode_name(lbs_partition_mode m) {
  return m == LBS_PARTMODE_RANK0 ? "rank0" : m == LBS_PARTMODE_DISTRIBUTED ? "distributed" : "auto";
}

static const lbs_opt sim_opts[] = {
    {"partitioner", LBS_OPT_STRING, "zoltan:rcb", 1, 0,
     "the partitioner (lbsim replay --help lists them)"},
    {"policy", LBS_OPT_STRING, "none", 1, 0, "the repartitioning policy"},
    {"mode", LBS_OPT_STRING, "bsp", 1, 0,
     "bsp (a barrier per step) or des (discrete events per processor)"},
    {"des_overlap", LBS_OPT_STRING, "auto", 1, 0,
     "des with [grid] sharing = fair: shared (the transfers of overlapping steps share the resources as "
     "SimGrid shares them; docs/design.md says what a policy sees), ordered (each step's transfers get "
     "what the earlier steps' leave, so a step's timing is final once simulated) or auto (shared where "
     "it applies: not with phases, availability profiles or a policy that plans ahead; else ordered)"},
    {"metric", LBS_OPT_STRING, "", 1, 0, "the replayed metric (empty: the trace's first)"},
    {"partition_metric", LBS_OPT_STRING, "", 1, 0,
     "the metric the partitioner gets as weights (empty: the replayed metric), e.g. the weight an application gives "
     "its partitioner while time_ns stays the work"},
    {"cost", LBS_OPT_STRING, "model", 1, 0,
     "partitioning time: model, measured (wall x cost_scale) or zero"},
    {"approach", LBS_OPT_STRING, "partition", 1, 0,
     "Zoltan's LB_APPROACH for repartitions: partition (from scratch) or repartition (from the current one)"},
    {"migration_cost", LBS_OPT_STRING, "measured", 1, 0,
     "migration time of a repartition the trace has no recorded cost for: measured (the application's own rate, "
     "fitted to the migrations its trace recorded, where it has them; else as model), model (the grid's migration "
     "model, [grid] migration_*, where it has one; else as links) or links (each moved element over the simulated "
     "links)"},
    {"cost_scale", LBS_OPT_DOUBLE, "1", 0, 1e12, "measured: simulated = wall time x this"},
    {"partition_fixed_us", LBS_OPT_DOUBLE, "-1", -1, 1e15,
     "model: fixed cost per call, us (-1: the partitioner's)"},
    {"partition_per_elem_ns", LBS_OPT_DOUBLE, "-1", -1, 1e15,
     "model: cost per element, ns (-1: the partitioner's)"},
    {"partition_mode", LBS_OPT_STRING, "auto", 1, 0,
     "rank0 (every rank's elements gathered on rank 0: the same answer on any number of ranks), distributed (the "
     "partitioner runs on every rank's own elements: reproducible at a fixed number of ranks) or auto (distributed "
     "from distributed_min_elements on 2 or more ranks, when the partitioner has a distributed path)"},
    {"distributed_min_elements", LBS_OPT_INT, "1000000", 1, 1e15,
     "auto: the trace size from which it partitions in place"},
    {"memory_limit_gb", LBS_OPT_DOUBLE, "0", 0, 1e9,
     "memory a node may use, GB, checked before the work (0: the node's available memory)"},
    {"phases", LBS_OPT_STRING, "yes", 1, 0,
     "yes: where the trace lists the replayed metric's phases (metadata phases.M), a step costs the sum over "
     "phases of each phase's slowest processor; no: the slowest processor's sum"},
    {"phase_constraints", LBS_OPT_STRING, "no", 1, 0,
     "yes: the partitioner gets the trace's phases as a multi-constraint load, a weight per phase, each balanced "
     "on its own (metis, zoltan:rcb; the trace must list phases, with phases = yes); no: one weight, their sum"},
    {"outside", LBS_OPT_STRING, "yes", 1, 0,
     "yes: where the trace has the profiler's event outside_s and partitioning is charged as measured (cost = "
     "measured, or policy recorded), each step also costs the application's time outside its measured elements "
     "beyond the step's compute (docs/config.md); no: never"},
    {"part_sizes", LBS_OPT_STRING, "speed", 1, 0,
     "the parts the partitioner aims at: speed (in proportion to the processors' speeds), equal, or app (as the "
     "trace's app.part_sizes records the application's: equal, or a share per processor)"},
    {"steps", LBS_OPT_STRING, "", 1, 0,
     "A:B: replay trace steps A..B-1, policies counting from A (empty: the whole trace)"},
    {NULL, 0, NULL, 0, 0, NULL}};

const lbs_section_spec lbs_sim_spec[] = {{"sim", 0, 0, sim_opts, "replay settings"},
                                         {NULL, 0, 0, NULL, NULL}};

/* "A:B" with 0 <= A < B: steps A..B-1. */
static int steps_parse(const char *s, int64_t *first, int64_t *n) {
  char *end;
  errno = 0;
  long long a = strtoll(s, &end, 10);
  if (end == s || *end != ':' || errno) return -1;
  const char *t = end + 1;
  long long b = strtoll(t, &end, 10);
  if (end == t || *end || errno || a < 0 || b <= a) return -1;
  *first = a, *n = b - a;
  return 0;
}

/* The index of s among names, or -1. */
static int one_of(const char *s, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (!strcmp(s, names[i])) return i;
  return -1;
}

lbs_err lbs_replay_opts_set(lbs_replay_opts *o, const char *key, const char *v) {
  static const char *const modes[] = {"bsp", "des"}, *const costs[] = {"model", "measured", "zero"},
                           *const approaches[] = {"partition", "repartition"},
                           *const migcosts[] = {"measured", "model", "links"};
  double num;
  lbs_err e = lbs_config_value(lbs_sim_spec, "sim", key, v, &num); /* its type and range */
  int k;
  if (e) return e;
  if (!strcmp(key, "partitioner"))
    o->partitioner = v;
  else if (!strcmp(key, "policy"))
    o->policy = v;
  else if (!strcmp(key, "metric"))
    o->metric = *v ? v : NULL;
  else if (!strcmp(key, "partition_metric"))
    o->partition_metric = *v ? v : NULL;
  else if (!strcmp(key, "mode")) {
    if ((k = one_of(v, modes, 2)) < 0) return lbs_fail(LBS_PARSE, "'%s' must be bsp or des", v);
    o->mode = k ? LBS_MODE_DES : LBS_MODE_BSP;
  } else if (!strcmp(key, "des_overlap")) {
    static const char *const overlaps[] = {"ordered", "shared", "auto"};
    if ((k = one_of(v, overlaps, 3)) < 0)
      return lbs_fail(LBS_PARSE, "'%s' must be auto, shared or ordered", v);
    o->des_overlap = (lbs_des_overlap)k;
  } else if (!strcmp(key, "cost")) {
    if ((k = one_of(v, costs, 3)) < 0)
      return lbs_fail(LBS_PARSE, "'%s' must be model, measured or zero", v);
    o->cost = k == 0 ? LBS_COST_MODEL : k == 1 ? LBS_COST_MEASURED : LBS_COST_ZERO;
  } else if (!strcmp(key, "migration_cost")) {
    if ((k = one_of(v, migcosts, 3)) < 0)
      return lbs_fail(LBS_PARSE, "'%s' must be measured, model or links", v);
    o->migration_cost = (lbs_migration_cost)k;
  } else if (!strcmp(key, "approach")) {
    if ((k = one_of(v, approaches, 2)) < 0)
      return lbs_fail(LBS_PARSE, "'%s' must be partition or repartition", v);
    o->approach = k;
  } else if (!strcmp(key, "partition_mode")) {
    if (lbs_partition_mode_parse(v, &o->partition_mode))
      return lbs_fail(LBS_PARSE, "'%s' must be auto, rank0 or distributed", v);
  } else if (!strcmp(key, "phases")) {
    static const char *const yesno[] = {"yes", "no"};
    if ((k = one_of(v, yesno, 2)) < 0) return lbs_fail(LBS_PARSE, "'%s' must be yes or no", v);
    o->no_phases = k;
  } else if (!strcmp(key, "phase_constraints")) {
    static const char *const yesno[] = {"no", "yes"};
    if ((k = one_of(v, yesno, 2)) < 0) return lbs_fail(LBS_PARSE, "'%s' must be yes or no", v);
    o->phase_constraints = k;
  } else if (!strcmp(key, "outside")) {
    static const char *const yesno[] = {"yes", "no"};
    if ((k = one_of(v, yesno, 2)) < 0) return lbs_fail(LBS_PARSE, "'%s' must be yes or no", v);
    o->no_outside = k;
  } else if (!strcmp(key, "part_sizes")) {
    static const char *const rules[] = {"speed", "equal", "app"};
    if ((k = one_of(v, rules, 3)) < 0)
      return lbs_fail(LBS_PARSE, "'%s' must be speed, equal or app", v);
    o->part_sizes = k;
  } else if (!strcmp(key, "steps")) {
    int64_t first = 0, n = 0;
    if (*v && steps_parse(v, &first, &n))
      return lbs_fail(LBS_PARSE, "'%s' must be A:B with 0 <= A < B", v);
    o->first_step = first, o->nsteps = n;
  } else if (!strcmp(key, "cost_scale"))
    o->cost_scale = num;
  else if (!strcmp(key, "partition_fixed_us"))
    o->part_fixed_us = num;
  else if (!strcmp(key, "partition_per_elem_ns"))
    o->part_per_elem_ns = num;
  else if (!strcmp(key, "distributed_min_elements"))
    o->distributed_min_elements = (int64_t)num;
  else if (!strcmp(key, "memory_limit_gb"))
    o->memory_limit_gb = num;
  else
    return lbs_fail(LBS_INVAL, "[sim] %s: declared but not read",
                    key); /* a key added to the table alone */
  return LBS_OK;
}

lbs_err lbs_replay_opts_from_config(const lbs_config *cfg, lbs_replay_opts *o) {
  lbs_err e = lbs_config_check_only(cfg, lbs_sim_spec);
  for (const lbs_opt *k = sim_opts; !e && k->key; k++) {
    const char *v;
    if ((e = lbs_config_string(cfg, lbs_sim_spec, "sim", "", k->key, &v))) break;
    if ((e = lbs_replay_opts_set(o, k->key, v)))
      e = lbs_fail(e, "%s: %s = %s", lbs_config_where(cfg, "sim", "", k->key), k->key,
                   lbs_errmsg());
  }
  return e;
}
