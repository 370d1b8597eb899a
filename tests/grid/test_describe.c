/* A grid described (grid/describe.c): text checked to load, availability profiles in words, the
 * grid as JSON against what the grid holds. */
#include <criterion/criterion.h>

#include "lbs_grid.h"
#include "lbs_json.h"

static const char *ini =
    "[grid]\nname = g\nbarrier_us = 2\n"
    "[nodetype fast]\nspeed = 2\nnic_gbps = 5\n"
    "[cluster A]\nnodes = 2\nnodetype = fast\nlatency_us = 1\nshared = true\n"
    "[cluster B]\nnodes = 3\n"
    "[link A B]\nlatency_us = 50\nbandwidth_gbps = 1\n"
    "[availability slow]\ntarget = proc 3\nspeed_factor = 0.5\nfrom_step = 20\nuntil_step = 40\n"
    "[availability gone]\ntarget = cluster A\nfail = true\nfrom_step = 5\n"
    "[availability wan]\ntarget = link A B\nbandwidth_factor = 0.5\nlatency_factor = 2\nfrom_step "
    "= 10\n";

static lbs_grid *load(const char *text) {
  lbs_config *cfg;
  lbs_grid *g;
  cr_assert_eq(lbs_config_parse_string("g.ini", text, &cfg), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_from_config(cfg, &g), LBS_OK, "%s", lbs_errmsg());
  lbs_config_destroy(&cfg);
  return g;
}

Test(describe, text_must_load_as_a_grid) {
  cr_assert_eq(lbs_grid_check_text("made", ini), LBS_OK, "%s", lbs_errmsg());
  cr_assert_neq(lbs_grid_check_text("made", "[grid]\nsharing = maxmin\n[cluster A]\nnodes = 1\n"),
                LBS_OK);
  cr_assert(strstr(lbs_errmsg(), "made"), "the name in the message: %s", lbs_errmsg());
}

Test(describe, profiles_in_words) {
  lbs_grid *g = load(ini);
  cr_assert_eq(lbs_grid_avail_count(g), 3);
  char buf[512];
  cr_assert_str_eq(lbs_avail_describe(g, lbs_grid_avail(g, 0), buf, sizeof buf),
                   "proc 3: speed x0.5 from step 20 until before step 40");
  cr_assert_str_eq(lbs_avail_describe(g, lbs_grid_avail(g, 1), buf, sizeof buf),
                   "procs 0..1: fails at step 5");
  cr_assert_str_eq(lbs_avail_describe(g, lbs_grid_avail(g, 2), buf, sizeof buf),
                   "link A - B: bandwidth x0.5, latency x2 from step 10");
  char small[12];
  cr_assert_eq(strlen(lbs_avail_describe(g, lbs_grid_avail(g, 0), small, sizeof small)),
               sizeof small - 1, "cut short");
  lbs_grid_destroy(&g);
}

Test(describe, json_holds_the_clusters_links_and_profiles) {
  lbs_grid *g = load(ini);
  json_t *j = lbs_grid_json(g);
  cr_assert_str_eq(json_string_value(json_object_get(j, "name")), "g");
  cr_assert_eq(json_integer_value(json_object_get(j, "procs")), 5);
  cr_assert_eq(json_integer_value(json_object_get(j, "barrier_ns")), 2000);
  json_t *a = json_array_get(json_object_get(j, "clusters"), 0),
         *b = json_array_get(json_object_get(j, "clusters"), 1);
  cr_assert_str_eq(json_string_value(json_object_get(a, "nodetype")), "fast");
  cr_assert_eq(json_number_value(json_object_get(a, "speed")), lbs_grid_rate(g, 0));
  cr_assert_gt(lbs_grid_rate(g, 0), lbs_grid_rate(g, 2), "the fast node type's");
  cr_assert_eq(json_number_value(json_object_get(a, "nic_gbps")), 5);
  cr_assert(json_is_true(json_object_get(a, "shared")));
  cr_assert_eq(json_integer_value(json_object_get(b, "first_proc")), 2);
  json_t *l = json_array_get(json_object_get(j, "links"), 0);
  cr_assert_eq(json_array_size(json_object_get(j, "links")), 1);
  cr_assert_eq(json_integer_value(json_object_get(l, "latency_ns")), 50000);
  json_t *av = json_object_get(j, "availability");
  cr_assert_eq(json_array_size(av), 3);
  cr_assert_str_eq(json_string_value(json_object_get(json_array_get(av, 1), "change")),
                   "procs 0..1: fails at step 5");
  json_decref(j);
  lbs_grid_destroy(&g);
  g = load("[cluster A]\nnodes = 1\n");
  j = lbs_grid_json(g);
  cr_assert_null(json_object_get(j, "availability"), "no profiles, no key");
  json_decref(j);
  lbs_grid_destroy(&g);
}

Test(describe, the_migration_model_only_when_given) {
  lbs_grid *g = load("[grid]\nmigration_per_elem_ns = 250\nmigration_gbps = 4\n"
                     "[cluster A]\nnodes = 2\n");
  double f, p, r;
  cr_assert_eq(lbs_grid_migration_model(g, &f, &p, &r), 1);
  cr_assert(f == 0 && p == 250 && r == 4, "%g %g %g", f, p, r);
  json_t *j = lbs_grid_json(g), *m = json_object_get(j, "migration");
  cr_assert_eq(json_number_value(json_object_get(m, "per_elem_ns")), 250);
  cr_assert_eq(json_number_value(json_object_get(m, "gbps")), 4);
  json_decref(j);
  lbs_grid_destroy(&g);
  g = load("[cluster A]\nnodes = 1\n");
  cr_assert_eq(lbs_grid_migration_model(g, &f, &p, &r), 0, "none: the links carry migration");
  j = lbs_grid_json(g);
  cr_assert_null(json_object_get(j, "migration"), "no model, no key");
  json_decref(j);
  lbs_grid_destroy(&g);
  lbs_config *cfg;
  cr_assert_eq(lbs_config_parse_string(
                   "g.ini", "[grid]\nmigration_gbps = 1e-12\n[cluster A]\nnodes = 1\n", &cfg),
               LBS_OK);
  cr_assert_neq(lbs_grid_from_config(cfg, &g), LBS_OK, "a rate below 1 bit/s");
  cr_assert(strstr(lbs_errmsg(), "migration_gbps"), "%s", lbs_errmsg());
  lbs_config_destroy(&cfg);
}
