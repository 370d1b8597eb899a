#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_core.h"

Test(core, crc32_known_value) {
  cr_assert_eq(lbs_crc32("123456789", 9), 0xCBF43926u);
  cr_assert_eq(lbs_crc32("", 0), 0u);
}

Test(core, varint_roundtrip_and_truncation) {
  uint64_t vals[] = {0, 1, 127, 128, 300, 1ull << 35, UINT64_MAX};
  for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
    uint8_t b[10];
    size_t n = lbs_varint_put(b, vals[i]);
    const uint8_t *p = b;
    uint64_t v;
    cr_assert_eq(lbs_varint_get(&p, b + n, &v), 0);
    cr_assert_eq(v, vals[i]);
    cr_assert_eq(p, b + n);
    p = b;
    if (n > 1) cr_assert_eq(lbs_varint_get(&p, b + n - 1, &v), -1, "truncated varint accepted");
  }
  uint8_t over[11];
  memset(over, 0xff, sizeof over);
  const uint8_t *p = over;
  uint64_t v;
  cr_assert_eq(lbs_varint_get(&p, over + 11, &v), -1, "an 11-byte varint must be rejected");
}

Test(core, zigzag) {
  int64_t vals[] = {0, -1, 1, -2, INT64_MAX, INT64_MIN};
  for (size_t i = 0; i < 6; i++) cr_assert_eq(lbs_unzigzag(lbs_zigzag(vals[i])), vals[i]);
  cr_assert_eq(lbs_zigzag(-1), 1u);
  cr_assert_eq(lbs_zigzag(1), 2u);
}

Test(core, rng_is_counter_based) {
  cr_assert_eq(lbs_rng_u64(7, 3, 99), lbs_rng_u64(7, 3, 99));
  cr_assert_neq(lbs_rng_u64(7, 3, 99), lbs_rng_u64(7, 3, 100));
  cr_assert_neq(lbs_rng_u64(7, 3, 99), lbs_rng_u64(8, 3, 99));
  double sum = 0, sq = 0;
  for (int i = 0; i < 20000; i++) {
    double x = lbs_rng_normal(1, 2, (uint64_t)i);
    sum += x;
    sq += x * x;
  }
  cr_assert(fabs(sum / 20000) < 0.05, "mean %g", sum / 20000);
  cr_assert(fabs(sq / 20000 - 1) < 0.05, "variance %g", sq / 20000);
}

Test(core, error_messages) {
  cr_assert_str_eq(lbs_strerror(LBS_CORRUPT), "data is corrupt");
  cr_assert_str_eq(lbs_strerror((lbs_err)999), "unknown error");
  cr_assert_eq(lbs_fail(LBS_PARSE, "file %s line %d", "x.graph", 3), LBS_PARSE);
  cr_assert_str_eq(lbs_errmsg(), "file x.graph line 3");
  /* wrapping the last message in a new one, as callers do */
  lbs_fail(LBS_PARSE, "outer: %s (more)", lbs_errmsg());
  cr_assert_str_eq(lbs_errmsg(), "outer: file x.graph line 3 (more)");
}

Test(core, strict_numbers_refuse_what_atoi_lets_through) {
  int64_t i = 7;
  cr_assert_eq(lbs_parse_i64("65535", 1, 65535, &i), 0);
  cr_assert_eq(i, 65535);
  const char *bad_i[] = {"",    "abc",  "99999", "0", " 5", "5 ", "5x",
                         "1e3", "0x10", "-1",    "-", "+",  ".5", "99999999999999999999"};
  for (size_t k = 0; k < sizeof bad_i / sizeof *bad_i; k++) {
    i = 7;
    cr_assert_eq(lbs_parse_i64(bad_i[k], 1, 65535, &i), -1, "'%s' taken", bad_i[k]);
    cr_assert_eq(i, 7, "'%s' changed the output", bad_i[k]);
  }
  double d = 7;
  cr_assert_eq(lbs_parse_f64("1e-300", 0, 10, &d), 0);
  cr_assert_eq(lbs_parse_f64("2.5", 0, 10, &d), 0);
  cr_assert_eq(d, 2.5);
  const char *bad_d[] = {"", "abc", " 1", "1 ", "1s", "nan", "inf", "-0.5", "11", "1e999"};
  for (size_t k = 0; k < sizeof bad_d / sizeof *bad_d; k++) {
    d = 7;
    cr_assert_eq(lbs_parse_f64(bad_d[k], 0, 10, &d), -1, "'%s' taken", bad_d[k]);
    cr_assert_eq(d, 7);
  }
}

Test(core, environment_numbers_are_strict_and_named) {
  double d = 0;
  unsetenv("LBS_TEST_NUM");
  cr_assert_eq(lbs_env_f64("LBS_TEST_NUM", 120, 0, 1e6, &d), LBS_OK);
  cr_assert_eq(d, 120, "unset: the default");
  setenv("LBS_TEST_NUM", "2.5", 1);
  cr_assert_eq(lbs_env_f64("LBS_TEST_NUM", 120, 0, 1e6, &d), LBS_OK);
  cr_assert_eq(d, 2.5);
  setenv("LBS_TEST_NUM", "abc", 1);
  cr_assert_eq(lbs_env_f64("LBS_TEST_NUM", 120, 0, 1e6, &d), LBS_INVAL, "abc is not 0");
  cr_assert_str_eq(lbs_errmsg(), "LBS_TEST_NUM='abc' is not a number in [0, 1000000]");
  unsetenv("LBS_TEST_NUM");
}
