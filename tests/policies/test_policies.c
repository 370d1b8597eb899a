#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbs_policy.h"

static int decide_at(lbs_policy *p, int64_t step) {
  int64_t load[2] = {1, 1};
  lbs_loadview v = {.step = step, .steps = 300, .procs = 2, .load_ns = load};
  int r;
  cr_assert_eq(lbs_policy_decide(p, &v, &r), LBS_OK);
  return r;
}

Test(policies, fixed_interval_matches_the_seed) {
  lbs_policy *p;
  cr_assert_eq(lbs_policy_create("fixed:20", &p), LBS_OK);
  int n = 0;
  for (int64_t s = 0; s < 300; s++) n += decide_at(p, s);
  cr_assert_eq(n, 14, "fixed:20 over 300 steps repartitions %d times", n);
  cr_assert(decide_at(p, 20) && decide_at(p, 280) && !decide_at(p, 0) && !decide_at(p, 19));
  lbs_policy_destroy(&p);
  cr_assert_null(p);
}

Test(policies, none_never_repartitions) {
  lbs_policy *p;
  cr_assert_eq(lbs_policy_create("none", &p), LBS_OK);
  for (int64_t s = 0; s < 300; s++) cr_assert(!decide_at(p, s));
  lbs_policy_destroy(&p);
}

Test(policies, bad_names_and_arguments) {
  lbs_policy *p;
  const char *bad[] = {"fixed:0", "fixed", "fixed:", "fixed:-3", "fixed:2x", "none:5"};
  for (int i = 0; i < 6; i++) {
    cr_assert_eq(lbs_policy_create(bad[i], &p), LBS_INVAL, "%s accepted", bad[i]);
    cr_assert(strstr(lbs_errmsg(), "expected"), "%s", lbs_errmsg());
  }
  cr_assert_eq(lbs_policy_create("adaptiv:0.1:5:20", &p), LBS_NOTFOUND);
  cr_assert(strstr(lbs_errmsg(), "known: none, fixed:K"), "%s", lbs_errmsg());
  cr_assert(strstr(lbs_errmsg(), "did you mean 'adaptive'?"), "%s", lbs_errmsg());
}

/* ---------------------------------------------------------------- hand-made load series */

typedef struct {
  int64_t steps;
  double imb[64]; /* imbalance of each step under the current assignment */
  int64_t step_ns[64], excess[64];
  int64_t last_rep; /* last repartition step */
  int64_t cost;
} series;

/* Step navigation over a series whose imbalance is (step - last repartition) x 0.05. */
static lbs_err nav_eval(void *nav, int64_t step, int64_t *load, double *imb) {
  series *s = nav;
  *imb = (double)(step - s->last_rep) * 0.05;
  load[0] = load[1] = 1;
  return LBS_OK;
}

/* Runs a policy over the series, repartitions resetting it; returns the decisions. */
static int run_series(const char *name, series *sr, int64_t *reps) {
  lbs_policy *p;
  cr_assert_eq(lbs_policy_create(name, &p), LBS_OK, "%s: %s", name, lbs_errmsg());
  int n = 0;
  int64_t load[2] = {1, 1};
  sr->last_rep = 0;
  for (int64_t s = 0; s < sr->steps; s++) {
    lbs_loadview v = {.step = s,
                      .steps = sr->steps,
                      .since = s - sr->last_rep,
                      .procs = 2,
                      .load_ns = load,
                      .imbalance = nav_eval(sr, s, load, &sr->imb[s]) ? 0 : sr->imb[s],
                      .step_ns = sr->step_ns,
                      .past_imbalance = sr->imb,
                      .past_excess_ns = sr->excess,
                      .last_repart_ns = n ? sr->cost : 0,
                      .est_repart_ns = sr->cost,
                      .eval_step = nav_eval,
                      .nav = sr};
    int rep;
    cr_assert_eq(lbs_policy_decide(p, &v, &rep), LBS_OK, "%s at %lld: %s", name, (long long)s,
                 lbs_errmsg());
    if (rep) {
      reps[n++] = s;
      sr->last_rep = s;
      nav_eval(sr, s, load, &sr->imb[s]);
    }
    /* what the step costs and how unbalanced it was, for the online policies */
    sr->excess[s] = (s - sr->last_rep) * 100;
    sr->step_ns[s] = 1000 + sr->excess[s];
  }
  lbs_policy_destroy(&p);
  return n;
}

Test(policies, threshold_repartitions_after_the_step_that_crossed) {
  series sr = {.steps = 30, .cost = 500};
  int64_t reps[64];
  /* imbalance 0.05 per step since the last repartition: the step 7 after one is the first
   * above 0.32, so the next step repartitions (0.32, not 0.3: 6 x 0.05 > 0.3 in binary) */
  int n = run_series("threshold:0.32", &sr, reps);
  cr_assert_eq(n, 3, "got %d", n);
  cr_assert(reps[0] == 8 && reps[1] == 16 && reps[2] == 24, "%lld %lld %lld", (long long)reps[0],
            (long long)reps[1], (long long)reps[2]);
}

Test(policies, adaptive_finds_the_first_unbalanced_step_and_records_its_probes) {
  series sr = {.steps = 60, .cost = 500};
  int64_t reps[64];
  /* imbalance reaches 0.15 three steps after each repartition; MIN 5, so every 5 steps */
  int n = run_series("adaptive:0.15:5:20", &sr, reps);
  cr_assert_eq(n, 11, "got %d", n);
  for (int i = 0; i < n; i++) cr_assert_eq(reps[i], 5 * (i + 1));
  /* threshold 0.5: crosses at 10 steps: probes 5 (ok, I=10), 15 (bad, I=5) -> 10 (bad at MIN) */
  n = run_series("adaptive:0.5:5:20", &sr, reps);
  cr_assert_eq(reps[0], 10, "first repartition at %lld", (long long)reps[0]);
  cr_assert_eq(n, 5);
  lbs_policy *p;
  lbs_policy_create("adaptive:0.5:5:20", &p);
  int64_t load[2];
  sr.last_rep = 0;
  lbs_loadview v = {.steps = 60,
                    .procs = 2,
                    .load_ns = load,
                    .step_ns = sr.step_ns,
                    .past_imbalance = sr.imb,
                    .past_excess_ns = sr.excess,
                    .est_repart_ns = 500,
                    .eval_step = nav_eval,
                    .nav = &sr};
  int rep;
  lbs_policy_decide(p, &v, &rep);
  const int64_t *ps;
  const double *pv;
  int np = lbs_policy_series(p, &ps, &pv);
  cr_assert_eq(np, 3, "probes: %d", np);
  cr_assert(ps[0] == 5 && pv[0] == 5 && ps[1] == 15 && pv[1] == 10 && ps[2] == 10 && pv[2] == 5);
  lbs_policy_destroy(&p);
}

Test(policies, stop_at_rise_metabalancer_cost_benefit) {
  series sr = {.steps = 40, .cost = 1000};
  int64_t reps[64];
  /* step time 1000 + 100 k after k steps; avg(k) = (1000 + sum) / k falls while 100 k (k-1)/2
   * grows slower than the cost is amortised: it first rises at k = 6 (avg 1250 -> 1266.7) */
  int n = run_series("stop-at-rise", &sr, reps);
  cr_assert(n >= 1 && reps[0] == 6, "stop-at-rise first at %lld", n ? (long long)reps[0] : -1LL);
  /* excess grows by m = 100 per step, C = 1000: tau = sqrt(2 x 1000 / 100) = 4.47 -> at 5 */
  n = run_series("metabalancer", &sr, reps);
  cr_assert(n >= 1 && reps[0] == 5, "metabalancer first at %lld", n ? (long long)reps[0] : -1LL);
  /* H x excess > C: 20 x 100 k > 1000 from k = 1 on: the step after the first unbalanced one */
  n = run_series("cost-benefit", &sr, reps);
  cr_assert(n >= 1 && reps[0] == 2, "cost-benefit first at %lld", n ? (long long)reps[0] : -1LL);
  n = run_series("cost-benefit:5", &sr, reps);
  cr_assert(n >= 1 && reps[0] == 4, "cost-benefit:5: 5 x 100 k > 1000 from k = 3, first at %lld",
            n ? (long long)reps[0] : -1LL);
}

Test(policies, malformed_arguments) {
  const char *bad[] = {"adaptive:0.15:20:5", "adaptive:0.15:5", "adaptive:1.5:5:20",
                       "adaptive:0.15:0:20", "threshold:-1",    "threshold:0",
                       "threshold:1",        "threshold",       "cost-benefit:0",
                       "optimal:0",          "optimal:x",       "stop-at-rise:3",
                       "metabalancer:1"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    lbs_policy *p;
    cr_assert_eq(lbs_policy_create(bad[i], &p), LBS_INVAL, "%s accepted", bad[i]);
    cr_assert(strstr(lbs_errmsg(), "(expected "), "%s: %s", bad[i], lbs_errmsg());
  }
}

/* ---------------------------------------------------------------- steps:LIST */

Test(policies, steps_replays_the_listed_schedule) {
  lbs_policy *p;
  cr_assert_eq(lbs_policy_create("steps:65,20, 20", &p), LBS_OK, "%s", lbs_errmsg());
  int n = 0;
  for (int64_t s = 0; s < 300; s++) n += decide_at(p, s);
  cr_assert_eq(n, 2);
  cr_assert(decide_at(p, 20) && decide_at(p, 65) && !decide_at(p, 21) && !decide_at(p, 0));
  lbs_policy_destroy(&p);
}

Test(policies, steps_from_a_file_with_comments) {
  char path[] = "/tmp/lbs_steps_XXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fprintf(f, "# chosen by lbsim policy compare\n5\n7, 9 # end\n");
  fclose(f);
  char spec[64];
  snprintf(spec, sizeof spec, "steps:@%s", path);
  lbs_policy *p;
  cr_assert_eq(lbs_policy_create(spec, &p), LBS_OK, "%s", lbs_errmsg());
  int got[10];
  for (int s = 0; s < 10; s++) got[s] = decide_at(p, s);
  cr_assert(got[5] && got[7] && got[9] && !got[6] && !got[8] && !got[0]);
  lbs_policy_destroy(&p);
  f = fopen(path, "w");
  fprintf(f, "5\n\n7x\n");
  fclose(f);
  cr_assert_eq(lbs_policy_create(spec, &p), LBS_PARSE);
  cr_assert(strstr(lbs_errmsg(), ":3: '7x' is not a step number"), "%s", lbs_errmsg());
  unlink(path);
  cr_assert_neq(lbs_policy_create(spec, &p), LBS_OK);
  cr_assert(strstr(lbs_errmsg(), path), "%s", lbs_errmsg());
}

Test(policies, steps_out_of_range_or_malformed) {
  lbs_policy *p;
  const char *bad[] = {"steps",     "steps:",  "steps:0,5", "steps:-1",
                       "steps:5;6", "steps:@", "steps:1e3"};
  for (int i = 0; i < 7; i++)
    cr_assert_eq(lbs_policy_create(bad[i], &p), LBS_INVAL, "%s accepted", bad[i]);
  cr_assert_eq(lbs_policy_create("steps:20,300", &p), LBS_OK);
  int64_t load[2] = {1, 1};
  lbs_loadview v = {.steps = 300, .procs = 2, .load_ns = load};
  int r;
  cr_assert_eq(lbs_policy_decide(p, &v, &r), LBS_RANGE);
  cr_assert(strstr(lbs_errmsg(), "step 300 is out of range: the replay has 300 steps"), "%s",
            lbs_errmsg());
  lbs_policy_destroy(&p);
}

/* ---------------------------------------------------------------- lua:FILE.lua[:ARGS] */

/* Writes text to DIR/name in a fresh directory; returns the path (valid until unscript). */
static char dir[64], paths[8][128];
static int npaths;
static const char *script(const char *name, const char *text) {
  if (!*dir) {
    strcpy(dir, "/tmp/lbs_lua_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
  }
  cr_assert_lt(npaths, 8);
  char *path = paths[npaths++];
  snprintf(path, sizeof paths[0], "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
  return path;
}

static void unscript(void) {
  while (npaths) unlink(paths[--npaths]);
  if (*dir) rmdir(dir);
  *dir = 0;
}

Test(policies, lua_adaptive_decides_as_adaptive) {
  series sr = {.steps = 60, .cost = 500};
  int64_t c[64], l[64];
  const char *args[] = {"0.15:5:20", "0.5:5:20", "0.3:2:7"};
  for (int i = 0; i < 3; i++) {
    char cname[64], lname[256];
    snprintf(cname, sizeof cname, "adaptive:%s", args[i]);
    snprintf(lname, sizeof lname, "lua:%s/examples/policies/adaptive.lua:%s", LBS_SOURCE_DIR,
             args[i]);
    int nc = run_series(cname, &sr, c), nl = run_series(lname, &sr, l);
    cr_assert(nc > 2 && nl == nc, "%s: %d vs %d repartitions", args[i], nc, nl);
    for (int k = 0; k < nc; k++)
      cr_assert_eq(c[k], l[k], "%s: repartition %d at %lld vs %lld", args[i], k, (long long)c[k],
                   (long long)l[k]);
  }
}

Test(policies, lua_sees_the_view) {
  series sr = {.steps = 30, .cost = 500};
  int64_t reps[64];
  /* threshold:0.32 in Lua, reading the history through the view's proxies */
  const char *p = script(
      "past.lua",
      "local T\n"
      "function init(a) T = tonumber(a) end\n"
      "function decide(v)\n"
      "  assert(#v.step_ns == v.step and v.step_ns[v.step + 1] == nil)\n"
      "  assert(v.steps == 30 and v.procs == 2 and v.load_ns[2] == 1 and v.est_repart_ns == 500)\n"
      "  return v.step > 0 and v.since > 0 and v.past_imbalance[v.step] > T\n"
      "end\n");
  char name[256];
  snprintf(name, sizeof name, "lua:%s:0.32", p);
  int n = run_series(name, &sr, reps);
  cr_assert(n == 3 && reps[0] == 8 && reps[1] == 16 && reps[2] == 24, "%d: %lld", n,
            (long long)reps[0]);
  unscript();
}

Test(policies, lua_errors_name_file_and_line) {
  lbs_policy *pol;
  char name[256], want[256];
  const char *p = script("syntax.lua", "function decide(v)\n  return v.imbalance >\nend\n");
  snprintf(name, sizeof name, "lua:%s", p);
  cr_assert_eq(lbs_policy_create(name, &pol), LBS_INVAL);
  snprintf(want, sizeof want, "policy lua:%s:3: unexpected symbol near 'end'", p);
  cr_assert_str_eq(lbs_errmsg(), want); /* not wrapped by the registry */
  p = script("late.lua",
             "function decide(v)\n  if v.step == 4 then return nil end\n  return false\nend\n");
  snprintf(name, sizeof name, "lua:%s", p);
  cr_assert_eq(lbs_policy_create(name, &pol), LBS_OK, "%s", lbs_errmsg());
  for (int64_t s = 0; s < 4; s++) cr_assert(!decide_at(pol, s));
  int64_t load[2] = {1, 1};
  lbs_loadview v = {.step = 4, .steps = 300, .procs = 2, .load_ns = load};
  int r;
  cr_assert_eq(lbs_policy_decide(pol, &v, &r), LBS_INVAL);
  snprintf(want, sizeof want,
           "policy lua:%s:1: decide must return a boolean, not a nil (deciding step 4)", p);
  cr_assert_str_eq(lbs_errmsg(), want);
  lbs_policy_destroy(&pol);
  cr_assert_eq(lbs_policy_create("lua:/nonexistent/x.lua:1", &pol), LBS_INVAL);
  cr_assert_str_eq(lbs_errmsg(),
                   "policy lua:/nonexistent/x.lua: cannot open it: No such file or directory");
  unscript();
}

/* ---------------------------------------------------------------- recorded */

/* Its partitions and schedule are the trace's (the replay reads them, sim/recorded.c): it takes
 * no arguments, and a caller that asks it to decide is told why it cannot. */
Test(policies, recorded_is_known_by_its_flag_and_decides_nothing_itself) {
  const lbs_policy_ops *ops = lbs_policy_find("recorded");
  cr_assert_not_null(ops);
  cr_assert_eq(ops->flags, LBS_POLICY_RECORDED | LBS_POLICY_NO_STEP_TIMES);
  lbs_policy *p;
  cr_assert_eq(lbs_policy_create("recorded:1", &p), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "takes no arguments"), "%s", lbs_errmsg());
  cr_assert_eq(lbs_policy_create("recorded", &p), LBS_OK, "%s", lbs_errmsg());
  int64_t load[2] = {1, 1};
  lbs_loadview v = {.step = 3, .steps = 10, .procs = 2, .load_ns = load};
  int rep = -1;
  cr_assert_eq(lbs_policy_decide(p, &v, &rep), LBS_INVAL);
  cr_assert_eq(rep, 0);
  cr_assert(strstr(lbs_errmsg(), "only a replay"), "%s", lbs_errmsg());
  lbs_policy_destroy(&p);
}
