/* test_speed_ipg.c - the ipg speed model's route from a calibrated kernel to a replay (issue 31,
 * item 6): the IPG's recorded work metric tied to the replayed trace metric by unit (a mismatch
 * refused with the grid file, node type, both metrics and what to write; an explicit conversion,
 * ipg_trace_metric with ipg_metric_per_work, taken and held to), ipg_points and imported curves
 * vouched for by the grid; curves whose time falls to zero refused at load, and so are
 * ipg_points whose end falls, while a measured IPG's falling end is cut with a warning (refused
 * when too little is left); a dip inside a curve clamped with a warning; and the work range each
 * processor's curve was measured over (the replay's warning is tests/sim/mpi_ipg_range.c's). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbs_calib.h"
#include "lbs_grid.h"

static char dir[64], dbpath[128];

/* A calibration database in a fresh directory holding complete IPGs: wave.cpu in "cells (of 4^3
 * points)" (1e-4 s + 1e-6 s a cell, 10..1e4 cells), dot.cpu imported, fall.cpu whose last
 * segment falls, zero.cpu whose time is 0 at work 100, drop.cpu which never again reaches its
 * first point's time. */
static void make_db(void) {
  snprintf(dir, sizeof dir, "/tmp/lbs_ipg_XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  snprintf(dbpath, sizeof dbpath, "%s/calib.db", dir);
  lbs_calib_db *db = NULL;
  cr_assert_eq(lbs_calib_open(dbpath, 1, &db), LBS_OK, "%s", lbs_errmsg());
  struct {
    const char *impl, *metric;
    double w[3], t[3];
  } recs[] = {{"wave.cpu", "cells (of 4^3 points)", {10, 1e3, 1e4}, {1.1e-4, 1.1e-3, 1.01e-2}},
              {"dot.cpu", "imported", {0, 1e3, 1e6}, {1e-4, 2e-4, 1.1e-1}},
              {"fall.cpu", "cells (of 4^3 points)", {10, 1e3, 2e3}, {1e-4, 2e-3, 1.5e-3}},
              {"zero.cpu", "elements", {0, 100, 1e3}, {0, 0, 1e-3}},
              {"drop.cpu", "elements", {10, 1e3, 2e3}, {2e-3, 1e-3, 1.5e-3}}};
  for (size_t i = 0; i < sizeof recs / sizeof *recs; i++) {
    lbs_ipg_rec r;
    memset(&r, 0, sizeof r);
    snprintf(r.impl, sizeof r.impl, "%s", recs[i].impl);
    snprintf(r.device, sizeof r.device, "cpu: test");
    snprintf(r.metric, sizeof r.metric, "%s", recs[i].metric);
    snprintf(r.status, sizeof r.status, "complete");
    r.ipg.n = 3, r.ipg.w = recs[i].w, r.ipg.t = recs[i].t;
    cr_assert_eq(lbs_calib_put_ipg(db, &r), LBS_OK, "%s", lbs_errmsg());
  }
  lbs_calib_close(&db);
}

static void drop_db(void) {
  unlink(dbpath);
  rmdir(dir);
}

/* A grid "DIR/g.ini" of one cluster of 2 nodes of [nodetype cpu] with the given keys
 * (speed_model = ipg); LBS_OK with *g, or the error (*g NULL). */
static lbs_err grid_of(const char *keys, lbs_grid **g) {
  char text[2048], name[128];
  snprintf(name, sizeof name, "%s/g.ini", dir);
  snprintf(text, sizeof text,
           "[grid]\nns_per_work = 1\n[nodetype cpu]\nspeed_model = ipg\n%s\n"
           "[cluster A]\nnodes = 2\nnodetype = cpu\n",
           keys);
  lbs_config *c = NULL;
  cr_assert_eq(lbs_config_parse_string(name, text, &c), LBS_OK, "%s", lbs_errmsg());
  lbs_err e = lbs_grid_from_config(c, g);
  lbs_config_destroy(&c);
  return e;
}

static lbs_grid *grid_ok(const char *keys) {
  lbs_grid *g = NULL;
  cr_assert_eq(grid_of(keys, &g), LBS_OK, "%s: %s", keys, lbs_errmsg());
  return g;
}

#define HAS(s, sub) cr_assert(strstr((s), (sub)), "'%s' lacks '%s'", (s), (sub))

TestSuite(speed_ipg, .init = make_db, .fini = drop_db);

Test(speed_ipg, the_metric_unit_is_read_from_the_record) {
  char u[64];
  cr_assert_str_eq(lbs_ipg_metric_unit("cells (of 4^3 points)", u, sizeof u), "cells");
  cr_assert_str_eq(lbs_ipg_metric_unit("multiply-adds (m*n*p)", u, sizeof u), "multiply-adds");
  cr_assert_str_eq(lbs_ipg_metric_unit("target bodies", u, sizeof u), "target bodies");
  cr_assert_str_eq(lbs_ipg_metric_unit("imported", u, sizeof u), "", "no unit recorded");
  cr_assert_str_eq(lbs_ipg_metric_unit("", u, sizeof u), "");
  cr_assert_str_eq(lbs_ipg_metric_unit(NULL, u, sizeof u), "");
}

Test(speed_ipg, a_trace_metric_in_the_ipgs_unit_is_taken) {
  lbs_grid *g = grid_ok("ipg_db = calib.db\nipg_impl = wave.cpu");
  cr_assert_eq(lbs_grid_bind_metric(g, "cells", "cells"), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_bind_metric(g, "load", "Cells"), LBS_OK, "units compare without case");
  cr_assert_eq(lbs_grid_bind_metric(g, "cells", ""), LBS_OK, "no unit: the metric's name is it");
  cr_assert_eq(lbs_grid_compute_ns(g, 0, 1e3), 1100000, "1e3 cells: the curve's 1.1 ms");
  lbs_grid_destroy(&g);
}

Test(speed_ipg, a_mismatch_is_refused_saying_what_to_write) {
  lbs_grid *g = grid_ok("ipg_db = calib.db\nipg_impl = wave.cpu\nipg_metric_per_work = 1");
  cr_assert_eq(lbs_grid_bind_metric(g, "weight", "work"), LBS_INVAL);
  const char *m = lbs_errmsg();
  char file[128];
  snprintf(file, sizeof file, "%s/g.ini:", dir);
  HAS(m, file);                                  /* the grid file */
  HAS(m, "[nodetype cpu]");                      /* the node type */
  HAS(m, "the IPG of wave.cpu");                 /* the curve */
  HAS(m, "measures work in cells");              /* the IPG's unit */
  HAS(m, "cells (of 4^3 points)");               /* and its metric */
  HAS(m, "'weight' is in work");                 /* the trace's metric and unit */
  HAS(m, "'ipg_trace_metric = weight'");         /* what to write */
  HAS(m, "'ipg_metric_per_work = N' (N: cells"); /* ipg_metric_per_work alone is no conversion */
  cr_assert_eq(lbs_grid_bind_metric(g, "weight", ""), LBS_INVAL, "%s", "no unit, another name");
  HAS(lbs_errmsg(), "is in no unit");
  lbs_grid_destroy(&g);
}

Test(speed_ipg, an_explicit_conversion_is_taken_and_held_to) {
  lbs_grid *g = grid_ok(
      "ipg_db = calib.db\nipg_impl = wave.cpu\nipg_trace_metric = weight\nipg_metric_per_work = 8");
  cr_assert_eq(lbs_grid_bind_metric(g, "weight", "work"), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_compute_ns(g, 0, 125), 1100000, "125 weight = 1e3 cells");
  cr_assert_eq(lbs_grid_bind_metric(g, "time_ns", "ns"), LBS_INVAL, "another metric");
  HAS(lbs_errmsg(), "[nodetype cpu] ipg_trace_metric = weight");
  HAS(lbs_errmsg(), "the replay gives it 'time_ns' (ns)");
  HAS(lbs_errmsg(), "replay --metric weight");
  cr_assert_eq(lbs_grid_bind_metric(g, "cells", "cells"), LBS_INVAL,
               "the conversion is for weight, even where the units would match");
  lbs_grid_destroy(&g);
}

Test(speed_ipg, curves_without_a_recorded_unit_are_vouched_for) {
  lbs_grid *g = grid_ok("ipg_points = 0:1e-4 1000:2e-4");
  cr_assert_eq(lbs_grid_bind_metric(g, "weight", "work"), LBS_OK, "ipg_points: %s", lbs_errmsg());
  lbs_grid_destroy(&g);
  g = grid_ok("ipg_db = calib.db\nipg_impl = dot.cpu");
  cr_assert_eq(lbs_grid_bind_metric(g, "weight", "work"), LBS_OK, "imported: %s", lbs_errmsg());
  lbs_grid_destroy(&g);
  g = grid_ok("ipg_points = 0:1e-4 1000:2e-4\nipg_trace_metric = weight");
  cr_assert_eq(lbs_grid_bind_metric(g, "weight", "work"), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_bind_metric(g, "time_ns", "ns"), LBS_INVAL, "ipg_trace_metric holds");
  lbs_grid_destroy(&g);
}

Test(speed_ipg, a_linear_node_type_takes_any_metric) {
  char name[128];
  snprintf(name, sizeof name, "%s/mixed.ini", dir);
  lbs_config *c = NULL;
  cr_assert_eq(lbs_config_parse_string(
                   name,
                   "[nodetype cpu]\nspeed_model = ipg\nipg_db = calib.db\nipg_impl = wave.cpu\n"
                   "[nodetype lin]\nspeed = 2\n[cluster A]\nnodes = 1\nnodetype = lin\n"
                   "[cluster B]\nnodes = 1\nnodetype = cpu\n",
                   &c),
               LBS_OK, "%s", lbs_errmsg());
  lbs_grid *g = NULL;
  cr_assert_eq(lbs_grid_from_config(c, &g), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_bind_metric(g, "weight", "work"), LBS_INVAL, "the ipg node type refuses");
  HAS(lbs_errmsg(), "[nodetype cpu]");
  cr_assert_eq(lbs_grid_bind_metric(g, "cells", "cells"), LBS_OK, "%s", lbs_errmsg());
  lbs_grid_destroy(&g);
  lbs_config_destroy(&c);
}

Test(speed_ipg, a_time_of_zero_after_some_work_is_refused) {
  lbs_grid *g = NULL;
  cr_assert_eq(grid_of("ipg_points = 0:0 100:0 1000:1e-3", &g), LBS_RANGE);
  cr_assert_null(g);
  HAS(lbs_errmsg(), "[nodetype cpu] its ipg_points takes 0 s at work metric 100");
  HAS(lbs_errmsg(), "falls to zero or below is refused");
  cr_assert_eq(grid_of("ipg_db = calib.db\nipg_impl = zero.cpu", &g), LBS_RANGE);
  HAS(lbs_errmsg(), "the IPG of zero.cpu");
  g = grid_ok("ipg_points = 0:0 1000:1e-3"); /* no work, no time: a curve from the origin */
  cr_assert_eq(lbs_grid_compute_ns(g, 0, 500), 500000);
  lbs_grid_destroy(&g);
}

static char said[2048];
static void keep(void *arg, lbs_log_level level, const char *msg) {
  (void)arg;
  if (level == LBS_LOG_WARN) snprintf(said + strlen(said), sizeof said - strlen(said), "%s\n", msg);
}

Test(speed_ipg, a_measured_falling_end_is_cut_with_a_warning) {
  said[0] = '\0';
  lbs_log_set_sink(keep, NULL);
  lbs_grid *g = grid_ok("ipg_db = calib.db\nipg_impl = fall.cpu");
  lbs_log_set_sink(NULL, NULL);
  HAS(said, "warning: [nodetype cpu] the IPG of fall.cpu");
  HAS(said, "falls on its last segment, from 0.002 s at work metric 1000 to 0.0015 s at 2000");
  HAS(said,
      "would reach zero at 5000: its last 1 point dropped, the curve ends at work metric 1000");
  cr_assert_eq(strchr(said, '\n'), said + strlen(said) - 1, "one line: %s", said);
  double lo, hi;
  char what[256];
  cr_assert_eq(lbs_grid_work_range(g, 0, &lo, &hi, what, sizeof what), 1);
  cr_assert(lo == 10 && hi == 1000, "the range ends where the curve now does: %g..%g", lo, hi);
  /* past 1000 the first segment goes on: 1e-4 + (w - 10) x 1.9e-3 / 990 */
  cr_assert_eq(lbs_grid_compute_ns(g, 0, 2000), llround((1e-4 + 1990 * 1.9e-3 / 990) * 1e9));
  lbs_grid_destroy(&g);
  /* nothing after the first point ever takes as long again: nothing to keep */
  cr_assert_eq(grid_of("ipg_db = calib.db\nipg_impl = drop.cpu", &g), LBS_RANGE);
  cr_assert_null(g);
  HAS(lbs_errmsg(), "the IPG of drop.cpu");
  HAS(lbs_errmsg(), "ends at 0.0015 s at work metric 2000, below the 0.002 s it took at 10");
  HAS(lbs_errmsg(), "; refused (calibrate further)");
}

Test(speed_ipg, a_falling_extrapolation_is_refused) {
  lbs_grid *g = NULL;
  cr_assert_eq(grid_of("ipg_points = 0:1e-4 1000:2e-3 2000:1.5e-3", &g), LBS_RANGE);
  cr_assert_null(g);
  HAS(lbs_errmsg(), "falls on its last segment, from 0.002 s at work metric 1000 to 0.0015 s");
  HAS(lbs_errmsg(), "would reach zero at 5000");
  HAS(lbs_errmsg(), "; refused (give ipg_points that end rising)");
  /* the last segment rises, but ends below an earlier point */
  cr_assert_eq(grid_of("ipg_points = 0:1e-4 1000:3e-3 2000:1e-3 3000:2e-3", &g), LBS_RANGE);
  HAS(lbs_errmsg(), "ends at 0.002 s at work metric 3000, below the 0.003 s it took at 1000");
  /* a flat end stays: its time never falls */
  g = grid_ok("ipg_points = 0:1e-4 1000:2e-3 2000:2e-3");
  cr_assert_eq(lbs_grid_compute_ns(g, 0, 4000), 2000000);
  lbs_grid_destroy(&g);
}

Test(speed_ipg, a_dip_inside_is_clamped_with_a_warning) {
  said[0] = '\0';
  lbs_log_set_sink(keep, NULL);
  lbs_grid *g = grid_ok("ipg_points = 0:1e-4 1000:2e-3 1500:1.8e-3 2000:1.9e-3 3000:3e-3");
  lbs_log_set_sink(NULL, NULL);
  HAS(said, "warning: [nodetype cpu] its ipg_points falls in 2 points");
  HAS(said, "most at work metric 1500");
  cr_assert_eq(strchr(said, '\n'), said + strlen(said) - 1, "one line: %s", said);
  cr_assert_eq(lbs_grid_compute_ns(g, 0, 1000), 2000000);
  cr_assert_eq(lbs_grid_compute_ns(g, 0, 1500), 2000000, "held at the time before");
  cr_assert_eq(lbs_grid_compute_ns(g, 0, 2000), 2000000);
  cr_assert_eq(lbs_grid_compute_ns(g, 0, 2500), 2500000);
  int64_t prev = 0;
  for (double w = 0; w <= 4000; w += 10) {
    int64_t t = lbs_grid_compute_ns(g, 0, w);
    cr_assert_geq(t, prev, "monotone at %g", w);
    prev = t;
  }
  lbs_grid_destroy(&g);
  said[0] = '\0';
  lbs_log_set_sink(keep, NULL);
  g = grid_ok("ipg_points = 0:1e-4 1000:2e-3 2000:3e-3");
  lbs_log_set_sink(NULL, NULL);
  cr_assert_str_eq(said, "", "a rising curve: nothing said");
  lbs_grid_destroy(&g);
}

Test(speed_ipg, the_measured_range_is_in_units_of_the_trace_metric) {
  lbs_grid *g = grid_ok(
      "ipg_db = calib.db\nipg_impl = wave.cpu\nipg_trace_metric = weight\nipg_metric_per_work = 8");
  double lo = 0, hi = 0;
  char what[256];
  cr_assert_eq(lbs_grid_work_range(g, 1, &lo, &hi, what, sizeof what), 1);
  cr_assert_float_eq(lo, 10.0 / 8, 1e-12);
  cr_assert_float_eq(hi, 1e4 / 8, 1e-12);
  HAS(what, "the IPG of wave.cpu in ");
  lbs_grid_destroy(&g);
  g = grid_ok("ipg_points = 0:1e-4 1000:2e-4");
  cr_assert_eq(lbs_grid_work_range(g, 0, &lo, &hi, what, sizeof what), 1);
  cr_assert(lo == 0 && hi == 1000);
  cr_assert_str_eq(what, "its ipg_points");
  lbs_grid_destroy(&g);
}

Test(speed_ipg, models_without_a_range_have_none) {
  lbs_config *c = NULL;
  cr_assert_eq(lbs_config_parse_string("l.ini", "[cluster A]\nnodes = 2\n", &c), LBS_OK);
  lbs_grid *g = NULL;
  cr_assert_eq(lbs_grid_from_config(c, &g), LBS_OK, "%s", lbs_errmsg());
  double lo, hi;
  char what[64] = "x";
  cr_assert_eq(lbs_grid_work_range(g, 0, &lo, &hi, what, sizeof what), 0);
  cr_assert_str_eq(what, "");
  cr_assert_eq(lbs_grid_bind_metric(g, "anything", "at all"), LBS_OK);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&c);
}
