#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lbs_registry.h"

/* An ops table whose name is not its first field, as the real ones. */
typedef struct {
  int abi;
  const char *name;
  const char *usage;
} thing_ops;

static const thing_ops alpha = {1, "alpha", "alpha:N"}, beta = {1, "beta", "beta"},
                       gamma_ = {1, "gamma", "gamma:A:B"};
static const void *const builtin[] = {&alpha, &beta, NULL};

static const char *usage(const void *entry, char *buf, size_t size) {
  (void)buf, (void)size;
  return ((const thing_ops *)entry)->usage;
}

Test(registry, builtin_entries_are_found_by_name) {
  lbs_registry r = LBS_REGISTRY("thing", builtin, thing_ops, name, NULL);
  cr_assert_eq(lbs_registry_count(&r), 2);
  cr_assert_eq(lbs_registry_find(&r, "alpha"), &alpha);
  cr_assert_eq(lbs_registry_find(&r, "beta"), &beta);
  cr_assert_null(lbs_registry_find(&r, "alph"), "a prefix is not a name");
  cr_assert_null(lbs_registry_find(&r, "alphabet"));
  cr_assert_null(lbs_registry_find(&r, "alpha:3"), "find takes whole names");
  cr_assert_str_eq(lbs_registry_name(&r, &beta), "beta");
}

Test(registry, register_adds_after_the_builtin_ones) {
  lbs_registry r = LBS_REGISTRY("thing", builtin, thing_ops, name, NULL);
  cr_assert_eq(lbs_registry_add(&r, &gamma_), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_registry_count(&r), 3);
  cr_assert_eq(lbs_registry_find(&r, "gamma"), &gamma_);
  /* registration order: built-in ones as listed, then the added ones */
  cr_assert_eq(lbs_registry_at(&r, 0), &alpha);
  cr_assert_eq(lbs_registry_at(&r, 1), &beta);
  cr_assert_eq(lbs_registry_at(&r, 2), &gamma_);
  cr_assert_null(lbs_registry_at(&r, 3));
  cr_assert_null(lbs_registry_at(&r, -1));
}

Test(registry, duplicates_and_bad_names_are_refused) {
  lbs_registry r = LBS_REGISTRY("thing", builtin, thing_ops, name, NULL);
  static const thing_ops alpha2 = {1, "alpha", "other"}, noname = {1, NULL, ""},
                         empty = {1, "", ""}, colon = {1, "a:b", ""};
  cr_assert_eq(lbs_registry_add(&r, &alpha2), LBS_INVAL, "a built-in name is taken");
  cr_assert(strstr(lbs_errmsg(), "thing 'alpha' exists"), "%s", lbs_errmsg());
  cr_assert_eq(lbs_registry_add(&r, &gamma_), LBS_OK);
  cr_assert_eq(lbs_registry_add(&r, &gamma_), LBS_INVAL, "an added name is taken");
  cr_assert_eq(lbs_registry_add(&r, &noname), LBS_INVAL);
  cr_assert_eq(lbs_registry_add(&r, &empty), LBS_INVAL);
  cr_assert_eq(lbs_registry_add(&r, &colon), LBS_INVAL, "find_spec could never find it");
  cr_assert_eq(lbs_registry_count(&r), 3, "nothing refused was added");
  cr_assert_eq(lbs_registry_find(&r, "alpha"), &alpha);
}

Test(registry, a_full_registry_refuses_more) {
  static thing_ops many[LBS_REGISTRY_MAX + 1];
  static char names[LBS_REGISTRY_MAX + 1][16];
  lbs_registry r = LBS_REGISTRY("thing", NULL, thing_ops, name, NULL);
  cr_assert_eq(lbs_registry_count(&r), 0, "no built-in array: none");
  for (int i = 0; i <= LBS_REGISTRY_MAX; i++) {
    snprintf(names[i], sizeof names[i], "t%d", i);
    many[i] = (thing_ops){1, names[i], ""};
    cr_assert_eq(lbs_registry_add(&r, &many[i]), i < LBS_REGISTRY_MAX ? LBS_OK : LBS_INVAL,
                 "entry %d", i);
  }
  cr_assert_eq(lbs_registry_count(&r), LBS_REGISTRY_MAX);
  cr_assert_eq(lbs_registry_at(&r, LBS_REGISTRY_MAX - 1), &many[LBS_REGISTRY_MAX - 1]);
}

Test(registry, a_spec_is_found_by_the_part_before_the_colon) {
  lbs_registry r = LBS_REGISTRY("thing", builtin, thing_ops, name, NULL);
  cr_assert_eq(lbs_registry_find_spec(&r, "alpha"), &alpha);
  cr_assert_eq(lbs_registry_find_spec(&r, "alpha:3"), &alpha);
  cr_assert_eq(lbs_registry_find_spec(&r, "beta:x:y"), &beta);
  cr_assert_eq(lbs_registry_find_spec(&r, "alpha:"), &alpha);
  cr_assert_null(lbs_registry_find_spec(&r, "alp:3"));
  cr_assert_null(lbs_registry_find_spec(&r, ":alpha"));
  cr_assert_null(lbs_registry_find_spec(&r, ""));
}

Test(registry, lists_join_names_or_labels) {
  char buf[64];
  lbs_registry r = LBS_REGISTRY("thing", builtin, thing_ops, name, NULL);
  cr_assert_eq(lbs_registry_add(&r, &gamma_), LBS_OK);
  cr_assert_str_eq(lbs_registry_list(&r, buf, sizeof buf), "alpha, beta, gamma");
  lbs_registry u = LBS_REGISTRY("thing", builtin, thing_ops, name, usage);
  cr_assert_str_eq(lbs_registry_list(&u, buf, sizeof buf), "alpha:N, beta");
  cr_assert_str_eq(lbs_registry_list(&r, buf, 8), "alpha, ", "truncated to fit");
  lbs_registry none = LBS_REGISTRY("thing", NULL, thing_ops, name, NULL);
  cr_assert_str_eq(lbs_registry_list(&none, buf, sizeof buf), "");
}

Test(registry, unknown_names_list_the_known_ones_and_suggest_the_closest) {
  lbs_registry r = LBS_REGISTRY("thing", builtin, thing_ops, name, usage);
  cr_assert_eq(lbs_registry_add(&r, &gamma_), LBS_OK);
  cr_assert_eq(lbs_registry_unknown(&r, NULL, "xyz"), LBS_NOTFOUND);
  cr_assert_str_eq(lbs_errmsg(), "unknown thing 'xyz' (known: alpha:N, beta, gamma:A:B)");
  cr_assert_eq(lbs_registry_unknown(&r, "f.ini:7", "gamm:1:2"), LBS_NOTFOUND);
  cr_assert_str_eq(
      lbs_errmsg(),
      "f.ini:7: unknown thing 'gamm:1:2' (known: alpha:N, beta, gamma:A:B); did you mean 'gamma'?");
  cr_assert_str_eq(lbs_registry_closest(&r, "Alpah"), "alpha", "case and a swap");
  cr_assert_str_eq(lbs_registry_closest(&r, "bet:2"), "beta");
  cr_assert_null(lbs_registry_closest(&r, "b"), "one letter is no typo");
  cr_assert_null(lbs_registry_closest(&r, "omega"));
  cr_assert_null(lbs_registry_closest(&r, ""));
}
