/* options.c - the replay's options: their defaults and the [sim] section of a run configuration. */
#include <string.h>

#include "lbs_sim.h"

void lbs_replay_opts_default(lbs_replay_opts *o) {
  memset(o, 0, sizeof *o);
  o->partitioner = "zoltan:rcb";
  o->policy = "none";
  o->mode = LBS_MODE_BSP;
  o->cost = LBS_COST_MODEL;
  o->cost_scale = 1;
  o->part_fixed_us = -1;   /* the partitioner's own figures */
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
    {"partitioner", LBS_OPT_STRING, "zoltan:rcb", 1, 0, "the partitioner (lbsim replay --help lists them)"},
    {"policy", LBS_OPT_STRING, "none", 1, 0, "the repartitioning policy"},
    {"mode", LBS_OPT_STRING, "bsp", 1, 0, "bsp (a barrier per step) or des (discrete events per processor)"},
    {"metric", LBS_OPT_STRING, "", 1, 0, "the replayed metric (empty: the trace's first)"},
    {"partition_metric", LBS_OPT_STRING, "", 1, 0,
     "the metric the partitioner gets as weights (empty: the replayed metric), e.g. the weight an application gives "
     "its partitioner while time_ns stays the work"},
    {"cost", LBS_OPT_STRING, "model", 1, 0, "partitioning time: model, measured (wall x cost_scale) or zero"},
    {"approach", LBS_OPT_STRING, "partition", 1, 0,
     "Zoltan's LB_APPROACH for repartitions: partition (from scratch) or repartition (from the current one)"},
    {"cost_scale", LBS_OPT_DOUBLE, "1", 0, 1e12, "measured: simulated = wall time x this"},
    {"partition_fixed_us", LBS_OPT_DOUBLE, "-1", -1, 1e15, "model: fixed cost per call, us (-1: the partitioner's)"},
    {"partition_per_elem_ns", LBS_OPT_DOUBLE, "-1", -1, 1e15, "model: cost per element, ns (-1: the partitioner's)"},
    {"partition_mode", LBS_OPT_STRING, "auto", 1, 0,
     "rank0 (every rank's elements gathered on rank 0: the same answer on any number of ranks), distributed (the "
     "partitioner runs on every rank's own elements: reproducible at a fixed number of ranks) or auto (distributed "
     "from distributed_min_elements on 2 or more ranks, when the partitioner has a distributed path)"},
    {"distributed_min_elements", LBS_OPT_INT, "1000000", 1, 1e15, "auto: the trace size from which it partitions in place"},
    {"memory_limit_gb", LBS_OPT_DOUBLE, "0", 0, 1e9,
     "memory a node may use, GB, checked before the work (0: the node's available memory)"},
    {NULL, 0, NULL, 0, 0, NULL}};

const lbs_section_spec lbs_sim_spec[] = {{"sim", 0, 0, sim_opts, "replay settings"}, {NULL, 0, 0, NULL, NULL}};

lbs_err lbs_replay_opts_from_config(const lbs_config *cfg, lbs_replay_opts *o) {
  lbs_err e = lbs_config_check_only(cfg, lbs_sim_spec);
  const char *mode, *cost, *metric, *approach, *pmetric, *pmode;
  long long dmin;
  if (e || (e = lbs_config_string(cfg, lbs_sim_spec, "sim", "", "partitioner", &o->partitioner)) ||
      (e = lbs_config_string(cfg, lbs_sim_spec, "sim", "", "policy", &o->policy)) ||
      (e = lbs_config_string(cfg, lbs_sim_spec, "sim", "", "mode", &mode)) ||
      (e = lbs_config_string(cfg, lbs_sim_spec, "sim", "", "metric", &metric)) ||
      (e = lbs_config_string(cfg, lbs_sim_spec, "sim", "", "partition_metric", &pmetric)) ||
      (e = lbs_config_string(cfg, lbs_sim_spec, "sim", "", "cost", &cost)) ||
      (e = lbs_config_string(cfg, lbs_sim_spec, "sim", "", "approach", &approach)) ||
      (e = lbs_config_double(cfg, lbs_sim_spec, "sim", "", "cost_scale", &o->cost_scale)) ||
      (e = lbs_config_double(cfg, lbs_sim_spec, "sim", "", "partition_fixed_us", &o->part_fixed_us)) ||
      (e = lbs_config_double(cfg, lbs_sim_spec, "sim", "", "partition_per_elem_ns", &o->part_per_elem_ns)) ||
      (e = lbs_config_string(cfg, lbs_sim_spec, "sim", "", "partition_mode", &pmode)) ||
      (e = lbs_config_int(cfg, lbs_sim_spec, "sim", "", "distributed_min_elements", &dmin)) ||
      (e = lbs_config_double(cfg, lbs_sim_spec, "sim", "", "memory_limit_gb", &o->memory_limit_gb)))
    return e;
  o->distributed_min_elements = (int64_t)dmin;
  if (lbs_partition_mode_parse(pmode, &o->partition_mode))
    return lbs_fail(LBS_PARSE, "%s: partition_mode = '%s' must be auto, rank0 or distributed",
                    lbs_config_where(cfg, "sim", "", "partition_mode"), pmode);
  o->metric = *metric ? metric : NULL;
  o->partition_metric = *pmetric ? pmetric : NULL;
  if (!strcmp(mode, "bsp")) o->mode = LBS_MODE_BSP;
  else if (!strcmp(mode, "des")) o->mode = LBS_MODE_DES;
  else return lbs_fail(LBS_PARSE, "%s: mode = '%s' must be bsp or des", lbs_config_where(cfg, "sim", "", "mode"), mode);
  if (!strcmp(cost, "model")) o->cost = LBS_COST_MODEL;
  else if (!strcmp(cost, "measured")) o->cost = LBS_COST_MEASURED;
  else if (!strcmp(cost, "zero")) o->cost = LBS_COST_ZERO;
  else return lbs_fail(LBS_PARSE, "%s: cost = '%s' must be model, measured or zero", lbs_config_where(cfg, "sim", "", "cost"), cost);
  if (!strcmp(approach, "partition")) o->approach = 0;
  else if (!strcmp(approach, "repartition")) o->approach = 1;
  else return lbs_fail(LBS_PARSE, "%s: approach = '%s' must be partition or repartition",
                       lbs_config_where(cfg, "sim", "", "approach"), approach);
  return LBS_OK;
}

