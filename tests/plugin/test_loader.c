/* test_loader.c - lbs_plugin_load and the ops ABIs before this lbsim's: a plug-in built against
 * them (tests/plugins/old_abi.c) loads, each of its tables taken as today's with the fields
 * added since at 0 (no flags, usage, example or sections), and works; an ABI older still is
 * refused with the message that says to rebuild it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lbs_minex.h"
#include "lbs_part.h"
#include "lbs_plugin_load.h"
#include "lbs_policy.h"

static int decide_at(lbs_policy *p, int64_t step) {
  int64_t load[1] = {1};
  lbs_loadview v = {.step = step, .steps = 20, .procs = 1, .load_ns = load};
  int r = -1;
  cr_assert_eq(lbs_policy_decide(p, &v, &r), LBS_OK, "%s", lbs_errmsg());
  return r;
}

Test(loader, a_policy_of_the_abi_before_is_taken_as_todays) {
  cr_assert_eq(lbs_plugin_load(LBS_TEST_PLUGIN_OLD_ABI), LBS_OK, "%s", lbs_errmsg());
  const lbs_policy_ops *ops = lbs_policy_find("every10");
  cr_assert_not_null(ops);
  cr_assert_eq(ops->abi, LBS_POLICY_ABI);
  cr_assert_eq(ops->flags, 0, "a field added since reads 0");
  cr_assert_str_eq(ops->example, "every10");
  cr_assert(ops->init && ops->decide && !ops->fini && !ops->series);
  lbs_policy *p = NULL;
  cr_assert_eq(lbs_policy_create("every10", &p), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(decide_at(p, 5), 0);
  cr_assert_eq(decide_at(p, 10), 1);
  lbs_policy_destroy(&p);
}

Test(loader, a_partitioner_of_the_abi_before_is_taken_as_todays) {
  cr_assert_eq(lbs_plugin_load(LBS_TEST_PLUGIN_OLD_ABI), LBS_OK, "%s", lbs_errmsg());
  const lbs_partitioner_ops *ops = lbs_part_find("modulo");
  cr_assert_not_null(ops);
  cr_assert_eq(ops->abi, LBS_PART_ABI);
  cr_assert(!ops->usage && !ops->example && !ops->flags && !ops->sections,
            "fields added since read 0");
  cr_assert(strstr(lbs_part_known(), ", modulo"), "listed by its name: %s", lbs_part_known());
  for (const lbs_section_spec *s = lbs_part_sections(); s->kind; s++)
    cr_assert_str_neq(s->kind, "modulo");
  lbs_partitioner *p = NULL;
  cr_assert_eq(lbs_part_create("modulo", NULL, MPI_COMM_SELF, &p), LBS_OK, "%s", lbs_errmsg());
  int64_t gid[] = {0, 1, 2, 3, 4};
  double w[] = {1, 1, 1, 1, 1};
  int cur[] = {0, 0, 0, 0, 0}, np[5];
  double sizes[] = {0.5, 0.5};
  lbs_part_input in = {.comm = MPI_COMM_SELF,
                       .nlocal = 5,
                       .gid = gid,
                       .weight = w,
                       .current = cur,
                       .nparts = 2,
                       .part_sizes = sizes};
  cr_assert_eq(lbs_part_run(p, &in, np), LBS_OK, "%s", lbs_errmsg());
  for (int i = 0; i < 5; i++) cr_assert_eq(np[i], i % 2);
  lbs_part_destroy(&p);
}

Test(loader, a_latency_function_of_the_abi_before_is_taken_as_todays) {
  cr_assert_eq(lbs_plugin_load(LBS_TEST_PLUGIN_OLD_ABI), LBS_OK, "%s", lbs_errmsg());
  const lbs_minex_latency_ops *ops = NULL;
  for (int i = 0; i < lbs_minex_latency_count(); i++)
    if (!strcmp(lbs_minex_latency_at(i)->name, "plain")) ops = lbs_minex_latency_at(i);
  cr_assert_not_null(ops);
  cr_assert_eq(ops->abi, LBS_MINEX_LATENCY_ABI);
  cr_assert_eq(ops->flags, 0, "a field added since reads 0");
  lbs_minex_latency *l = NULL;
  cr_assert_eq(lbs_minex_latency_create("plain", NULL, &l), LBS_OK, "%s", lbs_errmsg());
  lbs_minex_latency_destroy(&l);
}

Test(loader, an_abi_older_than_the_one_before_is_refused) {
  char want[1024];
  snprintf(want, sizeof want,
           "plugin %s: policy 'ancient' built against policy ABI 1, this lbsim has %d: rebuild it",
           LBS_TEST_PLUGIN_ANCIENT, LBS_POLICY_ABI);
  cr_assert_eq(lbs_plugin_load(LBS_TEST_PLUGIN_ANCIENT), LBS_INVAL);
  cr_assert_str_eq(lbs_errmsg(), want);
  cr_assert_null(lbs_policy_find("ancient"));
}
