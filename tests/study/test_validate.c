/* test_validate.c - lbsim validate's library parts that need no real run (study/validate.c):
 * a --policies list split where steps:LIST keeps its commas (lbs_policy_split, policies/), the
 * statistics of the measured runs (median, spread, error), each pair's verdict on hand-made
 * measurements (agrees, wrong order, a tie in reality, one run, equal predictions, a drift the
 * rounds see through), their counts, the JSON document, and a trace that is not a profile
 * refused. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_policy.h"
#include "lbs_validate.h"
#include "testutil.h"

Test(validate, a_policy_list_keeps_a_schedule_s_commas) {
  char *out[4];
  int n = lbs_policy_split("none,steps:5,10,fixed:10", out, 4);
  cr_assert_eq(n, 3);
  cr_assert_str_eq(out[0], "none");
  cr_assert_str_eq(out[1], "steps:5,10");
  cr_assert_str_eq(out[2], "fixed:10");
  for (int k = 0; k < n; k++) free(out[k]);
  n = lbs_policy_split("a,b,c,d,e", out, 4);
  cr_assert_eq(n, 5, "more than max: max + 1");
  for (int k = 0; k < 4; k++) free(out[k]);
  cr_assert_eq(lbs_policy_split(",", out, 4), 0);
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

/* The verdict on A and B from their predictions and measured totals by round. */
static lbs_validate_pair verdict(double pa, int na, const double *ma, double pb, int nb,
                                 const double *mb) {
  lbs_validate_pair q = {.a = 7, .b = 8};
  lbs_validate_pair_verdict(pa, ma, na, pb, mb, nb, &q);
  cr_assert(q.a == 7 && q.b == 8, "the indices are the caller's");
  return q;
}

Test(validate, a_pair_reality_separates_and_the_prediction_orders_alike_agrees) {
  /* B predicted 25% faster; measured faster in every round: 50%, 45%, 52.4% */
  lbs_validate_pair q =
      verdict(2.0, 3, (double[]){2.0, 2.0, 2.1}, 1.5, 3, (double[]){1.0, 1.1, 1.0});
  cr_assert_eq(q.verdict, LBS_VERDICT_AGREES);
  cr_assert_str_eq(lbs_validate_verdict_name(q.verdict), "agrees");
  cr_assert_float_eq(q.predicted_gain, 0.25, 1e-12);
  cr_assert_float_eq(q.measured_gain, 0.5, 1e-12, "of the medians: (2 - 1) / 2");
  cr_assert_eq(q.rounds, 3, "paired by round");
  cr_assert_float_eq(q.gain_min, 0.45, 1e-12);
  cr_assert_float_eq(q.gain_max, 1.1 / 2.1, 1e-12);
  cr_assert_float_eq(q.error_points, -25, 1e-9, "100 x (0.25 - 0.5)");
  cr_assert_not(q.predicted_within, "25% is below the rounds' 45..52%");
  cr_assert_float_eq(q.noise, (1.1 / 2.1 - 0.45) / 2, 1e-12, "half the rounds' range");
  cr_assert_not(q.below_noise, "25% is far above 3.7% of noise");
}

Test(validate, a_pair_reality_separates_the_other_way_is_the_wrong_order) {
  /* B predicted 10% slower, measured faster in both rounds */
  lbs_validate_pair q = verdict(1.0, 2, (double[]){1.0, 1.2}, 1.1, 2, (double[]){0.9, 1.0});
  cr_assert_eq(q.verdict, LBS_VERDICT_WRONG_ORDER);
  cr_assert_str_eq(lbs_validate_verdict_name(q.verdict), "wrong order");
  cr_assert_float_eq(q.predicted_gain, -0.1, 1e-12);
  cr_assert(q.gain_min > 0, "every round: B faster");
  cr_assert_float_eq(q.measured_gain, (1.1 - 0.95) / 1.1, 1e-12);
  cr_assert_float_eq(q.error_points, 100 * (-0.1 - (1.1 - 0.95) / 1.1), 1e-9);
  /* swapped the other way: A faster in every round, B predicted faster */
  q = verdict(1.0, 2, (double[]){0.9, 1.0}, 0.8, 2, (double[]){1.0, 1.2});
  cr_assert_eq(q.verdict, LBS_VERDICT_WRONG_ORDER);
  cr_assert(q.gain_max < 0);
}

Test(validate, rounds_that_disagree_on_the_sign_are_a_tie_in_reality) {
  /* round 1: B 10% slower; round 2: B 8.3% faster */
  lbs_validate_pair q = verdict(1.0, 2, (double[]){1.0, 1.2}, 0.95, 2, (double[]){1.1, 1.1});
  cr_assert_eq(q.verdict, LBS_VERDICT_TIE);
  cr_assert_str_eq(lbs_validate_verdict_name(q.verdict), "tie");
  cr_assert_float_eq(q.gain_min, -0.1, 1e-12);
  cr_assert_float_eq(q.gain_max, 0.1 / 1.2, 1e-12);
  cr_assert(q.predicted_within, "5% lies within -10..8.3%: the prediction calls it close too");
  cr_assert(q.below_noise, "5% is within the noise of 9.2%: these runs could not show it");
  q = verdict(1.0, 2, (double[]){1.0, 1.2}, 0.5, 2, (double[]){1.1, 1.1});
  cr_assert_eq(q.verdict, LBS_VERDICT_TIE, "a tie whatever the prediction says");
  cr_assert_not(q.predicted_within, "50% is outside the range");
}

Test(validate, the_rounds_see_through_a_drift_the_spreads_do_not) {
  /* the machine slows down round by round; B is faster in each round, but the spreads overlap */
  lbs_validate_pair q =
      verdict(1.0, 3, (double[]){1.0, 1.5, 2.0}, 0.9, 3, (double[]){0.9, 1.4, 1.8});
  cr_assert_eq(q.verdict, LBS_VERDICT_AGREES);
  cr_assert(q.gain_min > 0 && q.rounds == 3);
  /* another run count each: no rounds, the spreads (B's slowest against A's fastest...) */
  q = verdict(1.0, 3, (double[]){1.0, 1.5, 2.0}, 0.9, 2, (double[]){0.9, 1.4});
  cr_assert_eq(q.rounds, 0);
  cr_assert_float_eq(q.gain_min, 1 - 1.4 / 1.0, 1e-12);
  cr_assert_float_eq(q.gain_max, 1 - 0.9 / 2.0, 1e-12);
  cr_assert_eq(q.verdict, LBS_VERDICT_TIE);
}

Test(validate, one_run_leaves_reality_unknown) {
  lbs_validate_pair q = verdict(1.0, 1, (double[]){1.0}, 0.5, 1, (double[]){0.5});
  cr_assert_eq(q.verdict, LBS_VERDICT_UNKNOWN, "no spread: not separated");
  cr_assert_str_eq(lbs_validate_verdict_name(q.verdict), "unknown (1 run)");
  cr_assert_float_eq(q.measured_gain, 0.5, 1e-12);
  cr_assert(q.gain_min == q.gain_max && q.gain_min == q.measured_gain);
  cr_assert_float_eq(q.error_points, 0, 1e-9);
  q = verdict(1.0, 3, (double[]){1.0, 1.1, 1.2}, 0.5, 1, (double[]){0.5});
  cr_assert_eq(q.verdict, LBS_VERDICT_UNKNOWN, "one policy run once is enough");
}

Test(validate, equal_predictions) {
  /* reality separates them, the prediction does not */
  lbs_validate_pair q = verdict(1.0, 2, (double[]){1.0, 1.1}, 1.0, 2, (double[]){0.8, 0.9});
  cr_assert_eq(q.verdict, LBS_VERDICT_PREDICTED_EQUAL);
  cr_assert_str_eq(lbs_validate_verdict_name(q.verdict), "predicted equal");
  cr_assert_eq(q.predicted_gain, 0);
  cr_assert_not(q.predicted_within);
  /* reality ties them too: still a tie, which confirms nothing */
  q = verdict(1.0, 2, (double[]){1.0, 1.1}, 1.0, 2, (double[]){1.1, 1.0});
  cr_assert_eq(q.verdict, LBS_VERDICT_TIE);
  cr_assert(q.predicted_within);
}

Test(validate, pairs_ranked_the_other_way_round) {
  /* c is predicted between a and b but measured fastest in every round: discordant with a */
  lbs_validate_policy p[3] = {pol("a", 1.0, 2, (double[]){1.2, 1.0}),
                              pol("b", 2.0, 2, (double[]){2.2, 2.0}),
                              pol("c", 1.5, 2, (double[]){0.5, 0.6})};
  lbs_validate_ranking rk;
  lbs_validate_stats(p, 3, &rk);
  cr_assert(rk.order_sim[0] == 0 && rk.order_sim[1] == 2 && rk.order_sim[2] == 1);
  cr_assert(rk.order_real[0] == 2 && rk.order_real[1] == 0 && rk.order_real[2] == 1);
  cr_assert_eq(rk.npairs, 3);
  cr_assert(rk.pairs[0].a == 0 && rk.pairs[0].b == 1, "(a, b)");
  cr_assert(rk.pairs[1].a == 0 && rk.pairs[1].b == 2, "(a, c)");
  cr_assert(rk.pairs[2].a == 1 && rk.pairs[2].b == 2, "(b, c)");
  cr_assert_eq(rk.pairs[0].verdict, LBS_VERDICT_AGREES);
  cr_assert_eq(rk.pairs[1].verdict, LBS_VERDICT_WRONG_ORDER);
  cr_assert_eq(rk.pairs[2].verdict, LBS_VERDICT_AGREES);
  cr_assert(rk.separated == 3 && rk.ordered_right == 2 && rk.discordant == 1);
  cr_assert(rk.ties == 0 && rk.unknown == 0);
  cr_assert_not(rk.same);
  /* (a, c): predicted -50%, measured (1.1 - 0.55) / 1.1 = +50% */
  cr_assert_float_eq(rk.max_gain_error_points, 100.0, 1e-9);
  cr_assert_float_eq(rk.worst, 0.95 / 0.55, 1e-12, "c: (1.5 - 0.55) / 0.55");
}

Test(validate, a_swap_within_the_measured_spread_is_a_tie) {
  lbs_validate_policy p[2] = {pol("a", 1.0, 3, (double[]){1.2, 1.0, 1.1}),
                              pol("c", 0.9, 3, (double[]){1.15, 1.3, 1.0})};
  lbs_validate_ranking rk;
  lbs_validate_stats(p, 2, &rk);
  cr_assert(rk.order_sim[0] == 1 && rk.order_real[0] == 0);
  cr_assert_eq(rk.discordant, 0);
  cr_assert_eq(rk.ties, 1);
  cr_assert_eq(rk.separated, 0);
  cr_assert_not(rk.same, "a tie in reality is not the same ranking");
}

Test(validate, runs_of_one_are_counted_apart) {
  lbs_validate_policy p[3] = {pol("x", 1.0, 1, (double[]){2.0}), pol("y", 0.5, 1, (double[]){1.0}),
                              pol("z", 2.0, 1, (double[]){3.0})};
  lbs_validate_ranking rk;
  lbs_validate_stats(p, 3, &rk);
  cr_assert(rk.npairs == 3 && rk.unknown == 3 && rk.separated == 0 && rk.ordered_right == 0);
  cr_assert_not(rk.same, "ordered alike, but reality unknown");
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
  char *txt = lbs_json_dumps(doc, LBS_JSON_COMPACT);
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
  cr_assert(strstr(txt,
                   "\"pairs\":[{\"a\":\"none\",\"b\":\"fixed:5\",\"predicted_gain\":0.2,"
                   "\"measured_gain\":0.208333,\"measured_gain_min\":0.181818,"
                   "\"measured_gain_max\":0.230769,\"rounds\":2,\"gain_error_points\":-0.833333,"
                   "\"predicted_within\":true,\"noise\":0.0244755,\"predicted_below_noise\":false,"
                   "\"verdict\":\"agrees\"}]"),
            "%s", txt);
  cr_assert(strstr(txt, "\"pairs_summary\":{\"pairs\":1,\"separated\":1,\"ordered_right\":1,"
                        "\"wrong_order\":0,\"ties\":0,\"unknown\":0,"
                        "\"max_gain_error_points\":0.833333}"),
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
