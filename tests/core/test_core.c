#include <criterion/criterion.h>
#include <math.h>
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
