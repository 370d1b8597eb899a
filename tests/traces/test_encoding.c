/* test_encoding.c - codec and bound settings over a trace's metrics (lbs_encoding). */
#include <criterion/criterion.h>
#include <string.h>

#include "lbs_traces.h"

static lbs_bound B(const char *s) {
  lbs_bound b;
  cr_assert_eq(lbs_bound_parse(s, &b), LBS_OK, "%s", lbs_errmsg());
  return b;
}

Test(encoding, defaults_then_every_metric_then_one) {
  lbs_encoding enc = {0};
  cr_assert_eq(lbs_encoding_add_bound(&enc, "rel:0.01"), LBS_OK);
  cr_assert_eq(lbs_encoding_add_bound(&enc, "time_ns=abs:5"), LBS_OK);
  cr_assert_eq(lbs_encoding_add_codec(&enc, "weight=lossless"), LBS_OK);
  cr_assert_eq(enc.nset, 3);
  cr_assert(lbs_encoding_per_metric(&enc));
  lbs_codec c;
  lbs_bound b;
  /* time_ns: its own bound, over the every-metric one */
  cr_assert_eq(lbs_encoding_resolve(&enc, "time_ns", LBS_CODEC_DEFAULT, B("rel:0.005"), &c, &b),
               LBS_OK);
  cr_assert_eq(b.kind, LBS_BOUND_ABS);
  cr_assert_eq(b.eps, 5);
  cr_assert_eq(c, LBS_CODEC_AUTO);
  /* weight: the lossless codec decides its bound */
  cr_assert_eq(lbs_encoding_resolve(&enc, "weight", LBS_CODEC_DEFAULT, B("rel:0.005"), &c, &b),
               LBS_OK);
  cr_assert_eq(c, LBS_CODEC_LOSSLESS);
  cr_assert_eq(b.kind, LBS_BOUND_LOSSLESS);
  /* any other metric: the every-metric bound */
  cr_assert_eq(lbs_encoding_resolve(&enc, "cycles", LBS_CODEC_DEFAULT, B("rel:0.005"), &c, &b),
               LBS_OK);
  cr_assert_eq(b.kind, LBS_BOUND_REL);
  cr_assert_eq(b.eps, 0.01);
}

Test(encoding, later_settings_win_and_a_lossy_bound_turns_lossless_defaults_lossy) {
  lbs_encoding enc = {0};
  cr_assert_eq(lbs_encoding_add_bound(&enc, "abs:1"), LBS_OK);
  cr_assert_eq(lbs_encoding_add_bound(&enc, "range:0.001"), LBS_OK);
  lbs_codec c;
  lbs_bound b;
  /* a Chaco import's defaults are lossless: a lossy bound brings the default codec */
  cr_assert_eq(lbs_encoding_resolve(&enc, "weight", LBS_CODEC_LOSSLESS, B("lossless"), &c, &b),
               LBS_OK);
  cr_assert_eq(b.kind, LBS_BOUND_RANGE);
  cr_assert_eq(c, LBS_CODEC_DEFAULT);
  /* no settings (or none at all): the defaults */
  cr_assert_eq(lbs_encoding_resolve(NULL, "weight", LBS_CODEC_LOSSLESS, B("lossless"), &c, &b),
               LBS_OK);
  cr_assert_eq(c, LBS_CODEC_LOSSLESS);
  cr_assert_not(lbs_encoding_per_metric(&enc));
  cr_assert_not(lbs_encoding_per_metric(NULL));
}

Test(encoding, a_bad_pair_names_the_metric) {
  lbs_encoding enc = {0};
  cr_assert_eq(lbs_encoding_add_bound(&enc, "weight=lossless"), LBS_OK);
  cr_assert_eq(lbs_encoding_add_codec(&enc, "weight=quant"), LBS_OK);
  lbs_codec c;
  lbs_bound b;
  cr_assert_eq(lbs_encoding_resolve(&enc, "weight", LBS_CODEC_DEFAULT, B("rel:0.005"), &c, &b),
               LBS_INVAL);
  cr_assert(!strncmp(lbs_errmsg(), "metric 'weight': the quant codec is lossy", 41), "%s",
            lbs_errmsg());
}

Test(encoding, bad_arguments_leave_the_settings_as_they_were) {
  lbs_encoding enc = {0};
  cr_assert_eq(lbs_encoding_add_bound(&enc, "=rel:0.1"), LBS_PARSE);
  cr_assert_str_eq(lbs_errmsg(), "'=rel:0.1': bad metric name");
  char longname[100];
  memset(longname, 'm', 70);
  strcpy(longname + 70, "=abs:1");
  cr_assert_eq(lbs_encoding_add_bound(&enc, longname), LBS_PARSE);
  cr_assert_eq(lbs_encoding_add_bound(&enc, "rel:-0.1"), LBS_PARSE);
  cr_assert_str_eq(lbs_errmsg(), "error bound 'rel:-0.1': eps is negative");
  cr_assert_neq(lbs_encoding_add_codec(&enc, "t=frob"), LBS_OK);
  cr_assert(strstr(lbs_errmsg(), "unknown codec 'frob'"), "%s", lbs_errmsg());
  cr_assert_eq(enc.nset, 0);
  for (int i = 0; i < LBS_ENCODING_MAX_SETS; i++)
    cr_assert_eq(lbs_encoding_add_codec(&enc, "auto"), LBS_OK);
  cr_assert_eq(lbs_encoding_add_codec(&enc, "auto"), LBS_RANGE);
  cr_assert_str_eq(lbs_errmsg(), "at most 32 settings");
  cr_assert_eq(enc.nset, LBS_ENCODING_MAX_SETS);
}

Test(encoding, settings_must_name_a_metric) {
  lbs_encoding enc = {0};
  const char *names[] = {"time_ns", "weight"};
  cr_assert_eq(lbs_encoding_add_bound(&enc, "rel:0.1"), LBS_OK);
  cr_assert_eq(lbs_encoding_add_bound(&enc, "weight=abs:1"), LBS_OK);
  cr_assert_eq(lbs_encoding_check_names(&enc, names, 2), LBS_OK);
  cr_assert_eq(lbs_encoding_add_codec(&enc, "cycles=quant"), LBS_OK);
  cr_assert_eq(lbs_encoding_check_names(&enc, names, 2), LBS_NOTFOUND);
  cr_assert_str_eq(lbs_errmsg(), "no metric 'cycles' (metrics: time_ns weight)");
  cr_assert_eq(lbs_encoding_check_names(NULL, names, 2), LBS_OK);
}
