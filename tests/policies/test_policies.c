#include <criterion/criterion.h>
#include <string.h>

#include "lbs_policy.h"

static int decide_at(lbs_policy *p, int64_t step) {
  int64_t load[2] = {1, 1};
  lbs_loadview v = {step, 300, 0, 2, load, 0, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL};
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
}
