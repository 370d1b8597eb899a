/* json.c - a replay's result as JSON (lbsim replay --json, policy compare, validate): the fields
 * and the digits every command shows. */
#include "lbs_json.h"
#include "lbs_sim.h"

json_t *lbs_replay_json(const lbs_replay_result *r) {
  json_t *o = json_object();
  if (o && lbs_replay_json_fields(o, r)) json_decref(o), o = NULL;
  return o;
}

/* Seconds from nanoseconds, to the nanosecond (as %.9f always showed them). */
static json_t *seconds(int64_t ns) { return lbs_json_fixed(1e-9 * (double)ns, 9); }

int lbs_replay_json_fields(json_t *o, const lbs_replay_result *r) {
  json_t *steps = json_array();
  int bad = !steps;
  for (int k = 0; !bad && k < r->nrep; k++)
    bad = json_array_append_new(steps, lbs_json_int(r->first_step + r->reparts[k].step));
  if (bad) json_decref(steps), steps = NULL;
  json_t *phases = r->nphases ? json_array() : json_null();
  for (int k = 0; !bad && phases && k < r->nphases; k++)
    bad = json_array_append_new(phases, json_string(r->phases[k]));
  bad |= lbs_json_set(o, "partitioner", lbs_json_str(r->partitioner));
  bad |= lbs_json_set(o, "policy", lbs_json_str(r->policy));
  bad |= lbs_json_set(o, "metric", lbs_json_str(r->metric));
  bad |= lbs_json_set(o, "mode", json_string(r->mode == LBS_MODE_BSP ? "bsp" : "des"));
  if (r->des_shared) bad |= lbs_json_set(o, "des_overlap", json_string("shared"));
  static const char *const rules[] = {"speed", "equal", "app"};
  bad |= lbs_json_set(o, "part_sizes", json_string(rules[r->part_sizes % 3]));
  bad |= lbs_json_set(o, "elements", lbs_json_int(r->elements));
  bad |= lbs_json_set(o, "steps", lbs_json_int(r->steps));
  bad |= lbs_json_set(o, "first_step", lbs_json_int(r->first_step));
  bad |= lbs_json_set(o, "procs", lbs_json_int(r->procs));
  bad |= lbs_json_set(o, "total_time_s", seconds(r->total_ns));
  bad |= lbs_json_set(o, "compute_time_s", seconds(r->compute_ns));
  bad |= lbs_json_set(o, "comm_time_s", seconds(r->comm_ns));
  bad |= lbs_json_set(o, "partition_time_s", seconds(r->partition_ns));
  bad |= lbs_json_set(o, "migration_time_s", seconds(r->migration_ns));
  if (r->mig_fit) { /* only then: the runs charged otherwise show what they always showed */
    json_t *m = json_object();
    bad |= !m;
    bad |= lbs_json_set(m, "per_elem_ns", lbs_json_sig(r->mig_per_elem_ns, 9));
    bad |= lbs_json_set(m, "fixed_us", lbs_json_sig(r->mig_fixed_us, 9));
    bad |= lbs_json_set(m, "from", json_string("trace"));
    bad |= lbs_json_set(m, "fit", json_string(r->mig_fit == 2 ? "least_squares" : "ratio"));
    bad |= lbs_json_set(m, "points", lbs_json_int(r->mig_points));
    bad |= lbs_json_set(o, "migration_rate", m);
  }
  if (r->outside) /* only where charged: other replays print as before */
    bad |= lbs_json_set(o, "outside_time_s", seconds(r->outside_ns));
  bad |= lbs_json_set(o, "phases", phases);
  bad |= lbs_json_set(o, "repartitions", lbs_json_int(r->nrep));
  bad |= lbs_json_set(o, "repartition_steps", steps);
  bad |= lbs_json_set(o, "recorded_costs", lbs_json_int(r->recorded_costs));
  bad |= lbs_json_set(o, "mean_imbalance", lbs_json_fixed(r->mean_imbalance, 9));
  bad |= lbs_json_set(o, "max_imbalance", lbs_json_fixed(r->max_imbalance, 9));
  bad |= lbs_json_set(o, "mean_loadimb", lbs_json_fixed(r->mean_loadimb, 9));
  bad |= lbs_json_set(o, "moved_elements", lbs_json_int(r->moved));
  bad |= lbs_json_set(o, "initial_work_imbalance", lbs_json_fixed(r->initial_work_imbalance, 9));
  bad |= lbs_json_set(o, "max_work_imbalance", lbs_json_fixed(r->max_work_imbalance, 9));
  bad |=
      lbs_json_set(o, "tolerance", r->tolerance > 0 ? lbs_json_sig(r->tolerance, 9) : json_null());
  bad |= lbs_json_set(o, "tolerance_missed", lbs_json_int(r->tolerance_missed));
  bad |= lbs_json_set(o, "partition_mode", json_string(lbs_partition_mode_name(r->partition_mode)));
  bad |= lbs_json_set(o, "wall_s", lbs_json_fixed(r->wall_s, 3));
  return bad ? -1 : 0;
}
