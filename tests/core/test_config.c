#include <criterion/criterion.h>
#include <string.h>

#include "lbs_config.h"

static const lbs_opt a_opts[] = {{"count", LBS_OPT_INT, "3", 1, 10, "a count"},
                                 {"ratio", LBS_OPT_DOUBLE, NULL, 0, 1, "a required ratio"},
                                 {"flag", LBS_OPT_BOOL, "false", 1, 0, "a flag"},
                                 {"label", LBS_OPT_STRING, "x", 1, 0, "a label"},
                                 {NULL, 0, NULL, 0, 0, NULL}};
static const lbs_opt b_opts[] = {{"weight", LBS_OPT_DOUBLE, "1", 1, 0, "a weight"},
                                 {NULL, 0, NULL, 0, 0, NULL}};
static const lbs_section_spec specs[] = {{"alpha", 0, 1, a_opts, "the alpha section"},
                                         {"beta", 1, 0, b_opts, "named betas"},
                                         {NULL, 0, 0, NULL, NULL}};

static lbs_err parse_check(const char *text, lbs_config **c) {
  lbs_err e = lbs_config_parse_string("t.ini", text, c);
  return e ? e : lbs_config_check(*c, specs);
}

Test(config, values_defaults_and_names) {
  lbs_config *c;
  cr_assert_eq(
      parse_check(
          "; comment\n[alpha]\nratio = 0.25 ; inline\nflag = yes\n\n[beta one]\nweight = 2\n"
          "[beta   two]\n# another\nweight=-3.5\n",
          &c),
      LBS_OK, "%s", lbs_errmsg());
  long long n;
  double r, w;
  int f;
  const char *s;
  cr_assert_eq(lbs_config_int(c, specs, "alpha", "", "count", &n), LBS_OK);
  cr_assert_eq(n, 3, "default");
  cr_assert_eq(lbs_config_double(c, specs, "alpha", "", "ratio", &r), LBS_OK);
  cr_assert_eq(r, 0.25);
  cr_assert_eq(lbs_config_bool(c, specs, "alpha", "", "flag", &f), LBS_OK);
  cr_assert_eq(f, 1);
  cr_assert_eq(lbs_config_string(c, specs, "alpha", "", "label", &s), LBS_OK);
  cr_assert_str_eq(s, "x");
  cr_assert_eq(lbs_config_count(c, "beta"), 2);
  cr_assert_str_eq(lbs_config_name(c, "beta", 1), "two");
  cr_assert_eq(lbs_config_double(c, specs, "beta", "two", "weight", &w), LBS_OK);
  cr_assert_eq(w, -3.5);
  cr_assert_str_eq(lbs_config_where(c, "beta", "two", "weight"), "t.ini:10");
  cr_assert(lbs_config_has(c, "beta", "one", "weight"));
  cr_assert(!lbs_config_has(c, "alpha", "", "count"));
  cr_assert_eq(lbs_config_double(c, specs, "alpha", "", "nokey", &r), LBS_INVAL);
  lbs_config_destroy(&c);
  cr_assert_null(c);
}

Test(config, overrides_replace_and_add) {
  lbs_config *c;
  cr_assert_eq(lbs_config_parse_string("t.ini", "[alpha]\nratio = 0.5\ncount = 2\n", &c), LBS_OK);
  cr_assert_eq(lbs_config_override(c, "alpha.count=7"), LBS_OK);
  cr_assert_eq(lbs_config_override(c, "beta new.weight = 9"), LBS_PARSE); /* no [beta new] */
  cr_assert(strstr(lbs_errmsg(), "there is no [beta new]") &&
                strstr(lbs_errmsg(), "'+beta new.weight = 9' adds one"),
            "%s", lbs_errmsg());
  cr_assert_eq(lbs_config_override(c, "+beta new.weight = 9"), LBS_OK);
  cr_assert_eq(lbs_config_override(c, "beta default.weight = 1"), LBS_OK); /* a built-in one */
  cr_assert_eq(lbs_config_check(c, specs), LBS_OK, "%s", lbs_errmsg());
  long long n;
  double w;
  lbs_config_int(c, specs, "alpha", "", "count", &n);
  cr_assert_eq(n, 7);
  lbs_config_double(c, specs, "beta", "new", "weight", &w);
  cr_assert_eq(w, 9);
  cr_assert_eq(lbs_config_override(c, "count=3"), LBS_PARSE);
  cr_assert(strstr(lbs_errmsg(), "SECTION.KEY=VALUE"));
  cr_assert_eq(lbs_config_override(c, "alpha.count=100"), LBS_OK);
  cr_assert_eq(lbs_config_check(c, specs), LBS_RANGE);
  cr_assert(strstr(lbs_errmsg(), "(command line): count = 100 is outside [1, 10]"), "%s",
            lbs_errmsg());
  lbs_config_destroy(&c);
}

#define BAD(text, code, needle)                                                                    \
  do {                                                                                             \
    lbs_config *c = NULL;                                                                          \
    cr_assert_eq(parse_check(text, &c), code, "accepted or wrong code: %s", lbs_errmsg());         \
    cr_assert(strstr(lbs_errmsg(), needle), "message '%s' lacks '%s'", lbs_errmsg(), needle);      \
    lbs_config_destroy(&c);                                                                        \
  } while (0)

Test(config, bad_files_name_file_line_and_closest_key) {
  BAD("[alpha]\nratio = 0.5\ncuont = 2\n", LBS_PARSE,
      "t.ini:3: unknown key 'cuont' in [alpha] (did you mean 'count'?)");
  BAD("[alpha]\nratio = 0.5\nzzzzzz = 2\n", LBS_PARSE,
      "t.ini:3: unknown key 'zzzzzz' in [alpha] (see --help-config)");
  BAD("[alpha]\nratio = 0.5\n[betta x]\n", LBS_PARSE,
      "t.ini:3: unknown section [betta] (did you mean [beta]?");
  BAD("[alpha]\ncount = 2\n", LBS_PARSE, "t.ini:1: [alpha] needs 'ratio' (a required ratio)");
  BAD("[alpha]\nratio = lots\n", LBS_PARSE, "t.ini:2: ratio = 'lots' is not a number");
  BAD("[alpha]\nratio = 0.5\ncount = 2.5\n", LBS_PARSE, "t.ini:3: count = '2.5' is not an integer");
  BAD("[alpha]\nratio = 0.5\nflag = maybe\n", LBS_PARSE, "flag = 'maybe' is not a true/false");
  BAD("[alpha]\nratio = 1.5\n", LBS_RANGE, "t.ini:2: ratio = 1.5 is outside [0, 1]");
  BAD("[alpha]\nratio = 0.5\nratio = 0.6\n", LBS_PARSE,
      "t.ini:3: key 'ratio' repeats in [alpha] (first at line 2)");
  BAD("[alpha]\nratio = 0.5\n[alpha]\n", LBS_PARSE,
      "t.ini:3: section [alpha] given twice (first at line 1)");
  BAD("ratio = 0.5\n", LBS_PARSE, "t.ini:1: key 'ratio' before any [section]");
  BAD("[alpha]\nratio 0.5\n", LBS_PARSE, "t.ini:2: malformed line");
  BAD("[beta b]\nweight = 1\n", LBS_PARSE, "t.ini: no [alpha] section (the alpha section)");
  BAD("[alpha]\nratio = 0.5\n[beta]\nweight = 1\n", LBS_PARSE,
      "t.ini:3: section [beta] needs one name");
  BAD("[]\n", LBS_PARSE, "t.ini:1: empty section name");
  lbs_config *c;
  cr_assert_eq(lbs_config_load("/nonexistent.ini", &c), LBS_IO);
  cr_assert(strstr(lbs_errmsg(), "/nonexistent.ini: cannot open"));
}

Test(config, edit_distance) {
  cr_assert_eq(lbs_edit_distance("latency_us", "latency_us"), 0);
  cr_assert_eq(lbs_edit_distance("latncy_us", "latency_us"), 1);
  cr_assert_eq(lbs_edit_distance("", "abc"), 3);
  cr_assert_eq(lbs_edit_distance("Speed", "speed"), 0);
}

/* libinih hands lines over in pieces of at most 199 characters: the rest of a longer line came
 * back as a line of its own, so a long value was "malformed" one line later, or, when its rest
 * began with '[', silently made a section. Such a line is refused, naming its line. */
Test(config, lines_longer_than_the_parser_buffer_are_refused) {
  char text[512];
  snprintf(text, sizeof text, "[alpha]\nlabel = %0191d[beta z]\nratio = 0.5\n", 0);
  cr_assert_eq(strchr(text + 8, '[') - (text + 8), 199, "the rest of line 2 starts with '['");
  lbs_config *c;
  cr_assert_eq(lbs_config_parse_string("t.ini", text, &c), LBS_PARSE);
  cr_assert_null(c);
  cr_assert(strstr(lbs_errmsg(), "t.ini:2: line longer than 198 characters"), "%s", lbs_errmsg());
  /* a line of 198 characters and its newline still fits */
  snprintf(text, sizeof text, "[alpha]\nlabel = %0190d\nratio = 0.5\n", 0);
  cr_assert_eq(parse_check(text, &c), LBS_OK, "%s", lbs_errmsg());
  const char *s;
  cr_assert_eq(lbs_config_string(c, specs, "alpha", "", "label", &s), LBS_OK);
  cr_assert_eq(strlen(s), 190);
  lbs_config_destroy(&c);
}

/* The resolved configuration as the results store keeps it: every section in order, every
 * key after overrides (an added section included), one line each. */
Test(config, dump_gives_the_configuration_after_overrides) {
  lbs_config *c = NULL;
  cr_assert_eq(lbs_config_parse_string("g.ini", "[grid]\nname = a\n[cluster A]\nnodes = 2\n", &c),
               LBS_OK);
  cr_assert_eq(lbs_config_override(c, "cluster A.nodes=4"), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_config_override(c, "+cluster B.nodes=1"), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_config_override(c, "grid.note=two\nlines"), LBS_OK, "%s", lbs_errmsg());
  lbs_buf b = {0};
  cr_assert_eq(lbs_config_dump(c, &b), LBS_OK);
  cr_assert_str_eq(
      (const char *)b.data,
      "[grid]\nname = a\nnote = two lines\n\n[cluster A]\nnodes = 4\n\n[cluster B]\nnodes = 1\n");
  cr_assert_eq(b.len, strlen((const char *)b.data));
  lbs_buf_free(&b);
  lbs_config_destroy(&c);
}

/* The resolved dump adds what a section leaves to its spec's defaults, and the unnamed sections
 * the file lacks; it parses back with the same values. */
Test(config, dump_resolved_adds_the_defaults) {
  static const lbs_opt g[] = {{"name", LBS_OPT_STRING, "x", 0, -1, "n"},
                              {"speed", LBS_OPT_DOUBLE, "1", 0, 10, "s"},
                              {"need", LBS_OPT_INT, NULL, 0, 9, "required"},
                              {NULL, 0, NULL, 0, 0, NULL}};
  static const lbs_opt sim[] = {{"mode", LBS_OPT_STRING, "bsp", 0, -1, "m"},
                                {NULL, 0, NULL, 0, 0, NULL}};
  static const lbs_section_spec specs[] = {{"grid", 0, 1, g, "g"},
                                           {"cluster", 1, 0, g, "c"},
                                           {"sim", 0, 0, sim, "s"},
                                           {NULL, 0, 0, NULL, NULL}};
  const lbs_section_spec *list[1] = {specs};
  lbs_config *c = NULL, *back = NULL;
  cr_assert_eq(
      lbs_config_parse_string("g.ini", "[grid]\nname = a\nneed = 2\n[cluster A]\nspeed = 3\n", &c),
      LBS_OK);
  lbs_buf b = {0};
  cr_assert_eq(lbs_config_dump_resolved(c, list, 1, &b), LBS_OK);
  cr_assert_str_eq((const char *)b.data,
                   "[grid]\nname = a\nneed = 2\n# defaults\nspeed = 1\n\n[cluster A]\nspeed = 3\n"
                   "# defaults\nname = x\n\n[sim]\n# defaults\nmode = bsp\n");
  cr_assert_eq(lbs_config_parse_string("dump", (const char *)b.data, &back), LBS_OK, "%s",
               lbs_errmsg());
  double v = 0;
  cr_assert_eq(lbs_config_double(back, specs, "cluster", "A", "speed", &v), LBS_OK);
  cr_assert_float_eq(v, 3, 0);
  lbs_buf_free(&b);
  lbs_config_destroy(&back);
  lbs_config_destroy(&c);
}

/* One value from elsewhere (a command-line flag) is checked as a file's would be, the why alone:
 * the caller says where. */
Test(config, a_value_checked_alone) {
  double v = -1;
  cr_assert_eq(lbs_config_value(specs, "alpha", "count", "7", &v), LBS_OK);
  cr_assert_float_eq(v, 7, 0);
  cr_assert_eq(lbs_config_value(specs, "alpha", "flag", "yes", &v), LBS_OK);
  cr_assert_float_eq(v, 1, 0);
  cr_assert_eq(lbs_config_value(specs, "alpha", "label", "anything", &v), LBS_OK);
  cr_assert_eq(lbs_config_value(specs, "alpha", "count", "2.5", &v), LBS_PARSE);
  cr_assert_str_eq(lbs_errmsg(), "'2.5' is not an integer");
  cr_assert_eq(lbs_config_value(specs, "alpha", "ratio", "1.5", &v), LBS_RANGE);
  cr_assert_str_eq(lbs_errmsg(), "1.5 is outside [0, 1]");
  cr_assert_eq(lbs_config_value(specs, "beta", "weight", "-3", &v), LBS_OK, "no range: any number");
  cr_assert_eq(lbs_config_value(specs, "alpha", "nokey", "1", &v), LBS_INVAL);
  cr_assert_eq(lbs_config_value(specs, "gamma", "count", "1", &v), LBS_INVAL);
}
