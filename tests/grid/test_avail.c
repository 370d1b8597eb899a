/* test_avail.c - availability profiles ([availability NAME]): what a grid file may say, what it
 * may not (each error naming the file, line and key), and how a live grid follows them. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "grid_int.h" /* lbs__avail_parse, for the test of avail.c alone */
#include "lbs_grid.h"

/* Two clusters of two processors: A = 0, 1 and B = 2, 3, joined by a link. */
static const char *base = "[grid]\nns_per_work = 10\n"
                          "[cluster A]\nnodes = 2\nlatency_us = 1\nbandwidth_gbps = 8\n"
                          "[cluster B]\nnodes = 2\n"
                          "[link A B]\nlatency_us = 100\nbandwidth_gbps = 2\n";

static lbs_err load(const char *profiles, lbs_grid **g) {
  char text[2048];
  snprintf(text, sizeof text, "%s%s", base, profiles);
  lbs_config *c;
  lbs_err e = lbs_config_parse_string("w.ini", text, &c);
  if (!e) e = lbs_grid_from_config(c, g);
  lbs_config_destroy(&c);
  return e;
}

Test(avail, profiles_are_read_in_file_order) {
  lbs_grid *g;
  cr_assert_eq(
      load(
          "[availability slow]\ntarget = proc 3\nfrom_step = 20\nuntil_step = 30\nspeed_factor = 0.5\n"
          "[availability down]\ntarget = cluster A\nfrom_step = 7\nfail = true\n"
          "[availability wan]\ntarget = link B A\nfrom_step = 0\nbandwidth_factor = 0.25\nlatency_factor = 3\n",
          &g),
      LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_avail_count(g), 3);
  const lbs_avail *a = lbs_grid_avail(g, 0);
  cr_assert_str_eq(a->name, "slow");
  cr_assert_eq(a->kind, LBS_AVAIL_PROCS);
  cr_assert(a->first == 3 && a->count == 1 && a->from_step == 20 && a->until_step == 30 &&
            a->speed_factor == 0.5 && !a->fail);
  cr_assert_str_eq(a->where, "w.ini:14", "from_step's line, for the replay's messages");
  a = lbs_grid_avail(g, 1);
  cr_assert(a->kind == LBS_AVAIL_PROCS && a->first == 0 && a->count == 2 && a->fail &&
            a->until_step == -1);
  a = lbs_grid_avail(g, 2);
  cr_assert(a->kind == LBS_AVAIL_LINK && a->a == 1 && a->b == 0 && a->bandwidth_factor == 0.25 &&
            a->latency_factor == 3);
  cr_assert_null(lbs_grid_avail(g, 3));
  for (int p = 0; p < 4; p++)
    cr_assert_eq(lbs_grid_speed_factor(g, p), 1, "a loaded grid is as the file says");
  lbs_grid_destroy(&g);
}

Test(avail, a_live_grid_follows_the_steps) {
  lbs_grid *g, *l;
  cr_assert_eq(
      load(
          "[availability slow]\ntarget = proc 3\nfrom_step = 20\nuntil_step = 30\nspeed_factor = 0.5\n"
          "[availability slower]\ntarget = cluster B\nfrom_step = 25\nspeed_factor = 0.5\n"
          "[availability down]\ntarget = proc 0\nfrom_step = 7\nfail = true\n"
          "[availability wan]\ntarget = link B A\nfrom_step = 10\nuntil_step = 12\nbandwidth_factor = 0.25\n"
          "latency_factor = 3\n",
          &g),
      LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_live_create(g, &l), LBS_OK);
  int ch;
  cr_assert_eq(lbs_grid_live_step(l, 0, &ch), LBS_OK);
  cr_assert_eq(ch, 0);
  cr_assert_eq(lbs_grid_compute_ns(l, 3, 100), 1000);
  cr_assert_eq(lbs_grid_live_step(l, 7, &ch), LBS_OK);
  cr_assert_eq(ch, LBS_AVAIL_SPEED | LBS_AVAIL_FAILED);
  cr_assert(lbs_grid_proc_failed(l, 0) && !lbs_grid_proc_failed(g, 0));
  cr_assert_eq(lbs_grid_rate(l, 0), 0);
  cr_assert_eq(lbs_grid_compute_ns(l, 0, 0), 0);
  cr_assert_gt(lbs_grid_compute_ns(l, 0, 1), (int64_t)1e18,
               "work on a failed processor never ends");
  double sizes[4];
  lbs_grid_part_sizes(l, sizes);
  cr_assert(sizes[0] == 0 && fabs(sizes[1] - 1.0 / 3) < 1e-15, "no share for a failed processor");
  cr_assert_eq(lbs_grid_live_step(l, 10, &ch), LBS_OK);
  cr_assert_eq(ch, LBS_AVAIL_LINKS);
  lbs_link k = lbs_grid_link(l, 0, 1), k2 = lbs_grid_link(l, 1, 0), own = lbs_grid_link(l, 0, 0);
  cr_assert(k.lat_ns == 300000 && k.bw_gbps == 0.5 && k2.lat_ns == 300000 && k2.bw_gbps == 0.5,
            "both ways");
  cr_assert(own.lat_ns == 1000 && own.bw_gbps == 8);
  cr_assert_eq(lbs_grid_link(g, 0, 1).lat_ns, 100000, "the grid itself does not change");
  cr_assert_eq(lbs_grid_live_step(l, 12, &ch), LBS_OK);
  cr_assert_eq(ch, LBS_AVAIL_LINKS, "until_step: the link is back");
  cr_assert_eq(lbs_grid_link(l, 0, 1).lat_ns, 100000);
  cr_assert_eq(lbs_grid_live_step(l, 20, &ch), LBS_OK);
  cr_assert_eq(lbs_grid_compute_ns(l, 3, 100), 2000, "half the speed: twice the time");
  cr_assert_eq(lbs_grid_rate(l, 3), 0.5);
  cr_assert_eq(lbs_grid_live_step(l, 25, &ch), LBS_OK);
  cr_assert_eq(lbs_grid_compute_ns(l, 3, 100), 4000, "overlapping profiles multiply");
  cr_assert_eq(lbs_grid_compute_ns(l, 2, 100), 2000);
  cr_assert_eq(lbs_grid_live_step(l, 30, &ch), LBS_OK);
  cr_assert_eq(lbs_grid_compute_ns(l, 3, 100), 2000);
  cr_assert(lbs_grid_proc_failed(l, 0), "a failure is for good");
  cr_assert_eq(lbs_grid_live_step(l, 0, &ch), LBS_OK,
               "a pure function of the step (navigation goes back)");
  cr_assert(!lbs_grid_proc_failed(l, 0) && lbs_grid_compute_ns(l, 3, 100) == 1000);
  int ch2;
  cr_assert_eq(lbs_grid_live_step(g, 0, &ch2), LBS_INVAL, "only a live grid follows");
  lbs_grid_destroy(&l);
  lbs_grid_destroy(&g);
  cr_assert_null(l);
}

/* Each bad profile: its error, naming the file, line and key. */
Test(avail, bad_profiles_are_named) {
  static const struct {
    const char *text, *want;
  } bad[] = {
      {"[availability x]\ntarget = proc 4\nfrom_step = 1\nfail = true\n",
       "w.ini:13: [availability x] target = 'proc 4': no processor 4 (the grid has 0..3)"},
      {"[availability x]\ntarget = proc -1\nfrom_step = 1\nfail = true\n", "no processor -1"},
      {"[availability x]\ntarget = proc two\nfrom_step = 1\nfail = true\n", "no processor two"},
      {"[availability x]\ntarget = cluster C\nfrom_step = 1\nfail = true\n",
       "w.ini:13: [availability x] target = 'cluster C': no cluster 'C' (known: A, B)"},
      {"[availability x]\ntarget = link A C\nfrom_step = 1\nbandwidth_factor = 2\n",
       "no cluster 'C' to link (known: A, B)"},
      {"[availability x]\ntarget = node 1\nfrom_step = 1\nfail = true\n",
       "must be 'proc N', 'cluster NAME' or 'link A B'"},
      {"[availability x]\ntarget = proc 1\nfrom_step = 1\nspeed_factor = 0\n",
       "w.ini:15: [availability x] speed_factor = 0 must be > 0 (fail = true stops processors)"},
      {"[availability x]\ntarget = proc 1\nfrom_step = 1\nspeed_factor = -2\n",
       "speed_factor = -2 must be > 0"},
      {"[availability x]\ntarget = link A B\nfrom_step = 1\nbandwidth_factor = 0\n",
       "w.ini:15: [availability x] bandwidth_factor = 0 must be > 0"},
      {"[availability x]\ntarget = link A B\nfrom_step = 1\nlatency_factor = -1\n",
       "latency_factor = -1 must be > 0"},
      {"[availability x]\ntarget = proc 1\nfrom_step = 1\nfail = true\nspeed_factor = 0.5\n",
       "w.ini:16: [availability x] gives both fail = true and speed_factor"},
      {"[availability x]\ntarget = proc 1\nfrom_step = 1\nfail = true\nuntil_step = 5\n",
       "w.ini:16: [availability x] until_step with fail = true"},
      {"[availability x]\ntarget = proc 1\nfrom_step = 1\nbandwidth_factor = 0.5\n",
       "w.ini:15: [availability x] bandwidth_factor is for a link"},
      {"[availability x]\ntarget = link A B\nfrom_step = 1\nfail = true\n",
       "w.ini:15: [availability x] fail is for processors"},
      {"[availability x]\ntarget = proc 1\nfrom_step = 1\n",
       "w.ini:12: [availability x] changes nothing"},
      {"[availability x]\ntarget = link A B\nfrom_step = 1\n",
       "changes nothing: give bandwidth_factor or latency_factor"},
      {"[availability x]\ntarget = proc 1\nfrom_step = 5\nuntil_step = 5\nspeed_factor = 2\n",
       "w.ini:15: [availability x] until_step = 5 must come after from_step = 5"},
      {"[availability x]\ntarget = proc 1\nspeed_factor = 2\n", "needs 'from_step'"},
      {"[availability x]\ntarget = proc 1\nfrom_step = -1\nspeed_factor = 2\n",
       "w.ini:14: from_step = -1 is outside"},
      {"[availability x]\ntarget = proc 1\nfrom_step = 1\nspeed = 2\n",
       "w.ini:15: unknown key 'speed' in [availability]"},
      {"[availability x]\ntarget = proc 1\nfrom_step = 1\nfail = maybe\n",
       "fail = 'maybe' is not a true/false"},
      {"[availability a]\ntarget = cluster A\nfrom_step = 1\nfail = true\n"
       "[availability b]\ntarget = proc 2\nfrom_step = 3\nfail = true\n"
       "[availability c]\ntarget = proc 3\nfrom_step = 9\nfail = true\n",
       "w.ini:23: [availability c]: with it every processor of the grid fails"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    lbs_grid *g = (lbs_grid *)1;
    lbs_err e = load(bad[i].text, &g);
    cr_assert_neq(e, LBS_OK, "case %zu accepted", i);
    cr_assert_null(g);
    cr_assert(strstr(lbs_errmsg(), bad[i].want), "case %zu: '%s' lacks '%s'", i, lbs_errmsg(),
              bad[i].want);
  }
}

/* avail.c reads profiles against the processors and clusters it is given, with no grid at all:
 * grid.c calls it, never the other way round (grid_int.h). */
Test(avail, profiles_parse_against_targets_alone) {
  static const lbs_section_spec spec[] = {{"availability", 1, 0, lbs__avail_opts, "profiles"},
                                          {NULL, 0, 0, NULL, NULL}};
  const char *names[] = {"east", "west"};
  const int cfirst[] = {0, 3, 5};
  const lbs__avail_targets tg = {5, 2, names, cfirst};
  lbs_config *c;
  cr_assert_eq(lbs_config_parse_string(
                   "t.ini",
                   "[availability a]\ntarget = cluster west\nfrom_step = 2\nfail = true\n"
                   "[availability b]\ntarget = link east west\nfrom_step = 1\nlatency_factor = 2\n",
                   &c),
               LBS_OK, "%s", lbs_errmsg());
  lbs_avail *a;
  int n;
  cr_assert_eq(lbs__avail_parse(c, spec, &tg, &a, &n), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(n, 2);
  cr_assert(a[0].kind == LBS_AVAIL_PROCS && a[0].first == 3 && a[0].count == 2 && a[0].fail);
  cr_assert(a[1].kind == LBS_AVAIL_LINK && a[1].a == 0 && a[1].b == 1 && a[1].latency_factor == 2);
  lbs__avail_free(a, n);
  lbs_config_destroy(&c);
  /* the known clusters and processors in messages are the targets' */
  cr_assert_eq(
      lbs_config_parse_string(
          "t.ini", "[availability x]\ntarget = cluster north\nfrom_step = 1\nfail = true\n", &c),
      LBS_OK);
  cr_assert_neq(lbs__avail_parse(c, spec, &tg, &a, &n), LBS_OK);
  cr_assert(strstr(lbs_errmsg(), "no cluster 'north' (known: east, west)"), "%s", lbs_errmsg());
  cr_assert_null(a);
  lbs_config_destroy(&c);
  cr_assert_eq(lbs_config_parse_string(
                   "t.ini", "[availability x]\ntarget = proc 5\nfrom_step = 1\nfail = true\n", &c),
               LBS_OK);
  cr_assert_neq(lbs__avail_parse(c, spec, &tg, &a, &n), LBS_OK);
  cr_assert(strstr(lbs_errmsg(), "no processor 5 (the grid has 0..4)"), "%s", lbs_errmsg());
  lbs_config_destroy(&c);
}
