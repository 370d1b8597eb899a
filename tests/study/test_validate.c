/* test_validate.c - lbsim validate's library parts that need no real run (study/validate.c):
 * a --policies list split where steps:LIST keeps its commas, the statistics of the measured
 * runs (median, spread, error) and the ranking comparison (discordant pairs, and ties where the
 * measured spreads overlap), the JSON document, and a trace that is not a profile refused. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_validate.h"
#include "testutil.h"

Test(validate, a_policy_list_keeps_a_schedule_s_commas) {
  char *out[4];
  int n = lbs_validate_policies("none,steps:5,10,fixed:10", out, 4);
  cr_assert_eq(n, 3);
  cr_assert_str_eq(out[0], "none");
  cr_assert_str_eq(out[1], "steps:5,10");
  cr_assert_str_eq(out[2], "fixed:10");
  for (int k = 0; k < n; k++) free(out[k]);
  n = lbs_validate_policies("a,b,c,d,e", out, 4);
  cr_assert_eq(n, 5, "more than max: max + 1");
  for (int k = 0; k < 4; k++) free(out[k]);
  cr_assert_eq(lbs_validate_policies(",", out, 4), 0);
}

/* A policy with its prediction and measured totals. */
static lbs_validate_policy pol(const char *name, double predicted, int n, const double *m) {
  lbs_validate_policy p = {.policy = (char *)name, .predicted_s = predicted, .nmeasured = n};
  memcpy(p.measured_s, m, (size_t)n * sizeof *m);
  return p;
}

Test(validate, median_spread_and_error) {
  lbs_validate_policy p[2] = {pol("a", 1.0, 3, (double[]){1.2, 1.0, 1.1}),
                              pol("b", 2.0, 2, (double[]){2.2, 2.0})};
  lbs_validate_ranking rk;
  lbs_validate_stats(p, 2, &rk);
  cr_assert_float_eq(p[0].median_s, 1.1, 1e-12, "odd count: the middle one");
  cr_assert(p[0].min_s == 1.0 && p[0].max_s == 1.2);
  cr_assert_float_eq(p[0].error, (1.0 - 1.1) / 1.1, 1e-12);
  cr_assert_float_eq(p[1].median_s, 2.1, 1e-12, "even count: the mean of the middle two");
  cr_assert_float_eq(rk.worst, fabs((1.0 - 1.1) / 1.1), 1e-12);
  cr_assert(rk.same && rk.discordant == 0 && rk.ties == 0);
  cr_assert_eq(p[0].measured_s[0], 1.2, "the runs stay in run order");
}

Test(validate, pairs_ranked_the_other_way_round) {
  /* c is predicted between a and b but measured fastest, beyond a's spread: discordant */
  lbs_validate_policy p[3] = {pol("a", 1.0, 3, (double[]){1.2, 1.0, 1.1}),
                              pol("b", 2.0, 2, (double[]){2.2, 2.0}),
                              pol("c", 1.5, 1, (double[]){0.5})};
  lbs_validate_ranking rk;
  lbs_validate_stats(p, 3, &rk);
  cr_assert(rk.order_sim[0] == 0 && rk.order_sim[1] == 2 && rk.order_sim[2] == 1);
  cr_assert(rk.order_real[0] == 2 && rk.order_real[1] == 0 && rk.order_real[2] == 1);
  cr_assert_eq(rk.discordant, 1);
  cr_assert_eq(rk.ties, 0);
  cr_assert_not(rk.same);
  cr_assert_float_eq(rk.worst, 2.0, 1e-12, "c: (1.5 - 0.5) / 0.5");
}

Test(validate, a_swap_within_the_measured_spread_is_a_tie) {
  lbs_validate_policy p[2] = {pol("a", 1.0, 3, (double[]){1.2, 1.0, 1.1}),
                              pol("c", 0.9, 2, (double[]){1.05, 1.3})};
  lbs_validate_ranking rk;
  lbs_validate_stats(p, 2, &rk);
  cr_assert(rk.order_sim[0] == 1 && rk.order_real[0] == 0);
  cr_assert_eq(rk.discordant, 0);
  cr_assert_eq(rk.ties, 1);
  cr_assert(rk.same, "a tie in reality is not a different ranking");
}

Test(validate, equal_totals_keep_the_order_given) {
  lbs_validate_policy p[3] = {pol("x", 1.0, 1, (double[]){2.0}), pol("y", 1.0, 1, (double[]){2.0}),
                              pol("z", 0.5, 1, (double[]){1.0})};
  lbs_validate_ranking rk;
  lbs_validate_stats(p, 3, &rk);
  cr_assert(rk.order_sim[0] == 2 && rk.order_sim[1] == 0 && rk.order_sim[2] == 1);
  cr_assert(rk.order_real[0] == 2 && rk.order_real[1] == 0 && rk.order_real[2] == 1);
}

Test(validate, the_json_document) {
  lbs_validate v = {.trace_path = "w.lbt", .app = "wave", .args = "--steps 10", .ranks = 2};
  v.session.grid_path = "m.ini";
  v.session.opts.partitioner = "zoltan:rcb";
  lbs_validate_policy p[2] = {pol("none", 1.0, 2, (double[]){1.1, 1.3}),
                              pol("fixed:5", 0.8, 2, (double[]){0.9, 1.0})};
  strcpy(p[1].schedule, "5,10");
  p[1].nrep = 2;
  v.pol = p, v.npol = 2;
  lbs_validate_stats(p, 2, &v.rank);
  json_t *doc = lbs_validate_json(&v, 2);
  cr_assert_not_null(doc);
  char *txt = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
  cr_assert(strstr(txt,
                   "{\"trace\":\"w.lbt\",\"app\":\"wave\",\"args\":\"--steps "
                   "10\",\"ranks\":2,\"grid\":\"m.ini\","
                   "\"partitioner\":\"zoltan:rcb\",\"runs\":2,\"policies\":[{\"policy\":\"none\","),
            "%s", txt);
  cr_assert(strstr(txt, "\"schedule\":[5,10]"), "%s", txt);
  cr_assert(
      strstr(txt,
             "\"order_simulated\":[\"fixed:5\",\"none\"],\"order_measured\":[\"fixed:5\",\"none\"],"
             "\"same_ranking\":true,\"discordant_pairs\":0,\"tied_pairs\":0"),
      "%s", txt);
  free(txt);
  json_decref(doc);
}

Test(validate, a_trace_of_no_app_is_refused) {
  char *dir = tu_tmpdir(), *t = tu_path(dir, "g.lbt");
  lbs_gen_params gp = {"bump", 4, 2, 2, 3, 1, {0, 0, 0}};
  cr_assert_eq(lbs_gen_write(&gp, LBS_ORDER_NATURAL, t, NULL, NULL), LBS_OK, "%s", lbs_errmsg());
  lbs_validate v;
  cr_assert_eq(lbs_validate_init(&v), LBS_OK);
  cr_assert_not_null(v.env);
  lbs_validate_opts o = {.runs = 1, .timeout_s = 10};
  cr_assert_eq(lbs_validate_open(&v, t, "nope.ini", NULL, 0, &o), LBS_FORMAT);
  cr_assert(
      strstr(lbs_errmsg(), "g.lbt: not a profile of one of lbsim's apps (no profiler.ranks key)"),
      "%s", lbs_errmsg());
  lbs_validate_close(&v);
  cr_assert_null(v.env);
  free(t);
  tu_rmrf(dir);
}
