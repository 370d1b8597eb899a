/* test_options.c - the replay's options: [sim] read through one setter, from a file, an override
 * or a single value (what a command-line flag gives). */
#include <criterion/criterion.h>
#include <string.h>

#include "lbs_sim.h"

static lbs_err from_text(const char *text, const char *override, lbs_replay_opts *o,
                         lbs_config **c) {
  lbs_replay_opts_default(o);
  lbs_err e = lbs_config_parse_string("g.ini", text, c);
  if (!e && override) e = lbs_config_override(*c, override);
  return e ? e : lbs_replay_opts_from_config(*c, o);
}

Test(options, defaults_and_the_file) {
  lbs_replay_opts o;
  lbs_config *c = NULL;
  cr_assert_eq(from_text("[grid]\n", NULL, &o, &c), LBS_OK, "%s", lbs_errmsg());
  cr_assert_str_eq(o.partitioner, "zoltan:rcb");
  cr_assert_str_eq(o.policy, "none");
  cr_assert_eq(o.mode, LBS_MODE_BSP);
  cr_assert_eq(o.cost, LBS_COST_MODEL);
  cr_assert_eq(o.migration_cost, LBS_MIGCOST_MEASURED, "the trace's own rate where it has one");
  cr_assert_eq(o.des_overlap, LBS_DES_AUTO, "steps share the network where they can");
  cr_assert_eq(o.first_step, 0);
  cr_assert_eq(o.nsteps, 0, "the whole trace");
  cr_assert_null(o.metric);
  lbs_config_destroy(&c);
  cr_assert_eq(
      from_text("[sim]\npolicy = fixed:5\nmode = des\ncost = zero\nsteps = 10:25\nmetric = w\n"
                "partition_fixed_us = -1\ncost_scale = 2\napproach = repartition\n",
                NULL, &o, &c),
      LBS_OK, "%s", lbs_errmsg());
  cr_assert_str_eq(o.policy, "fixed:5");
  cr_assert_eq(o.mode, LBS_MODE_DES);
  cr_assert_eq(o.cost, LBS_COST_ZERO);
  cr_assert_eq(o.first_step, 10);
  cr_assert_eq(o.nsteps, 15);
  cr_assert_str_eq(o.metric, "w");
  cr_assert_float_eq(o.cost_scale, 2, 0);
  cr_assert_eq(o.approach, 1);
  lbs_config_destroy(&c);
}

/* An override replaces the file's value; the later of two wins (the command line, left to right).
 */
Test(options, overrides_win_the_later_last) {
  lbs_replay_opts o;
  lbs_config *c = NULL;
  cr_assert_eq(from_text("[sim]\nsteps = 0:5\nmode = des\n", "sim.steps=3:9", &o, &c), LBS_OK, "%s",
               lbs_errmsg());
  cr_assert_eq(o.first_step, 3);
  cr_assert_eq(o.nsteps, 6);
  cr_assert_eq(o.mode, LBS_MODE_DES);
  cr_assert_eq(lbs_config_override(c, "sim.mode=bsp"), LBS_OK);
  cr_assert_eq(lbs_config_override(c, "sim.steps="), LBS_OK);
  cr_assert_eq(lbs_replay_opts_from_config(c, &o), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(o.mode, LBS_MODE_BSP);
  cr_assert_eq(o.nsteps, 0, "an empty steps: the whole trace again");
  cr_assert_eq(o.first_step, 0);
  lbs_config_destroy(&c);
}

/* A bad value names the file and line (or the command line for an override), the key and why. */
Test(options, bad_values_name_where) {
  lbs_replay_opts o;
  lbs_config *c = NULL;
  static const struct {
    const char *text, *msg;
  } bad[] = {
      {"[sim]\nsteps = 5:3\n", "g.ini:2: steps = '5:3' must be A:B with 0 <= A < B"},
      {"[sim]\n\nsteps = 4\n", "g.ini:3: steps = '4' must be A:B with 0 <= A < B"},
      {"[sim]\nsteps = -1:3\n", "g.ini:2: steps = '-1:3' must be A:B"},
      {"[sim]\nsteps = 1:3x\n", "g.ini:2: steps = '1:3x' must be A:B"},
      {"[sim]\nsteps = 1:99999999999999999999\n", "must be A:B"},
      {"[sim]\nmode = fast\n", "g.ini:2: mode = 'fast' must be bsp or des"},
      {"[sim]\ncost = free\n", "g.ini:2: cost = 'free' must be model, measured or zero"},
      {"[sim]\napproach = x\n", "g.ini:2: approach = 'x' must be partition or repartition"},
      {"[sim]\npartition_mode = x\n",
       "g.ini:2: partition_mode = 'x' must be auto, rank0 or distributed"},
      {"[sim]\ncost_scale = -1\n", "g.ini:2: cost_scale = -1 is outside [0, 1e+12]"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    cr_assert_neq(from_text(bad[i].text, NULL, &o, &c), LBS_OK, "%s", bad[i].text);
    cr_assert(strstr(lbs_errmsg(), bad[i].msg), "%s: got '%s'", bad[i].text, lbs_errmsg());
    lbs_config_destroy(&c);
  }
  cr_assert_eq(from_text("[grid]\n", "sim.steps=9:2", &o, &c), LBS_PARSE);
  cr_assert_str_eq(lbs_errmsg(), "g.ini (command line): steps = '9:2' must be A:B with 0 <= A < B");
  lbs_config_destroy(&c);
}

/* One value alone, as a command-line flag gives it: the why without a place. */
Test(options, one_value_alone) {
  lbs_replay_opts o;
  lbs_replay_opts_default(&o);
  cr_assert_eq(lbs_replay_opts_set(&o, "steps", "2:7"), LBS_OK);
  cr_assert_eq(o.first_step, 2);
  cr_assert_eq(o.nsteps, 5);
  cr_assert_eq(lbs_replay_opts_set(&o, "mode", "des"), LBS_OK);
  cr_assert_eq(o.mode, LBS_MODE_DES);
  cr_assert_eq(lbs_replay_opts_set(&o, "mode", "x"), LBS_PARSE);
  cr_assert_str_eq(lbs_errmsg(), "'x' must be bsp or des");
  cr_assert_eq(o.mode, LBS_MODE_DES, "a bad value changes nothing");
  cr_assert_eq(lbs_replay_opts_set(&o, "des_overlap", "ordered"), LBS_OK);
  cr_assert_eq(o.des_overlap, LBS_DES_ORDERED);
  cr_assert_eq(lbs_replay_opts_set(&o, "des_overlap", "shared"), LBS_OK);
  cr_assert_eq(o.des_overlap, LBS_DES_SHARED);
  cr_assert_eq(lbs_replay_opts_set(&o, "des_overlap", "both"), LBS_PARSE);
  cr_assert_str_eq(lbs_errmsg(), "'both' must be auto, shared or ordered");
  cr_assert_eq(lbs_replay_opts_set(&o, "des_overlap", "auto"), LBS_OK);
  cr_assert_eq(o.des_overlap, LBS_DES_AUTO);
  cr_assert_eq(lbs_replay_opts_set(&o, "cost", "measured"), LBS_OK);
  cr_assert_eq(o.cost, LBS_COST_MEASURED);
  cr_assert_eq(lbs_replay_opts_set(&o, "migration_cost", "links"), LBS_OK);
  cr_assert_eq(o.migration_cost, LBS_MIGCOST_LINKS);
  cr_assert_eq(lbs_replay_opts_set(&o, "migration_cost", "model"), LBS_OK);
  cr_assert_eq(o.migration_cost, LBS_MIGCOST_MODEL);
  cr_assert_eq(lbs_replay_opts_set(&o, "migration_cost", "wall"), LBS_PARSE);
  cr_assert_str_eq(lbs_errmsg(), "'wall' must be measured, model or links");
  cr_assert_eq(lbs_replay_opts_set(&o, "partition_fixed_us", "abc"), LBS_PARSE);
  cr_assert_str_eq(lbs_errmsg(), "'abc' is not a number");
  cr_assert_eq(lbs_replay_opts_set(&o, "partition_fixed_us", "12.5"), LBS_OK);
  cr_assert_float_eq(o.part_fixed_us, 12.5, 0);
  cr_assert_eq(lbs_replay_opts_set(&o, "steps", "0:0"), LBS_PARSE);
  cr_assert_eq(lbs_replay_opts_set(&o, "nosuch", "1"), LBS_INVAL);
}
