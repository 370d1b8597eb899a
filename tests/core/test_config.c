#include <criterion/criterion.h>
#include <stdlib.h>
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
  /* decimal only: strtod reads C's hex, and 0x10 would be 16 */
  BAD("[alpha]\nratio = 0x10\n", LBS_PARSE, "t.ini:2: ratio = '0x10' is not a number");
  BAD("[alpha]\nratio = 0x1p-2\n", LBS_PARSE, "t.ini:2: ratio = '0x1p-2' is not a number");
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

/* Lines are read whole up to LBS_CONFIG_MAX_LINE characters (a study's axis may list 64 values
 * of any length); a longer line is refused, naming it, never cut: libinih's 199-character pieces
 * once made the rest of a long line a line of its own, a section when it began with '['. */
/* One "did you mean" rule: the closest name, at most a third of the letters off (at least 2),
 * never all of them. */
static const char *near(const char *word, const char *const *names) {
  static lbs_near n;
  lbs_near_init(&n, word);
  for (; *names; names++) lbs_near_offer(&n, *names);
  return lbs_near_best(&n);
}

Test(config, did_you_mean_one_rule) {
  const char *cmds[] = {"replay", "partition", "policy", "results", "report", NULL};
  cr_assert_str_eq(near("replya", cmds), "replay");
  cr_assert_str_eq(near("RESULT", cmds), "results"); /* case is no letter off */
  cr_assert_str_eq(near("partitoin", cmds), "partition");
  cr_assert_null(near("xyz", cmds), "three letters, all off");
  cr_assert_str_eq(near("po", (const char *[]){"px", "ab", NULL}), "px"); /* 1 of 2 letters */
  cr_assert_null(near("polisy_compare", cmds), "too far from every name");
  const char *keys[] = {"bandwidth_gbps", "latency_us", NULL};
  cr_assert_str_eq(near("bandwith_gbs", keys), "bandwidth_gbps"); /* 2 off in 12 */
  cr_assert_null(near("bw", keys));
  cr_assert_null(near("x", (const char *[]){"y", NULL}), "one letter, all of it off");
}

Test(config, long_lines_are_read_whole_and_too_long_ones_named) {
  size_t n = LBS_CONFIG_MAX_LINE + 64;
  char *text = malloc(n + 64);
  snprintf(text, n + 64, "[alpha]\nlabel = %05000d[beta z]\nratio = 0.5\n", 0);
  lbs_config *c;
  cr_assert_eq(parse_check(text, &c), LBS_OK, "%s", lbs_errmsg());
  const char *s;
  cr_assert_eq(lbs_config_string(c, specs, "alpha", "", "label", &s), LBS_OK);
  cr_assert_eq(strlen(s), 5008, "the whole value, '[beta z]' included");
  cr_assert_eq(lbs_config_count(c, "beta"), 0, "no section made of a line's rest");
  lbs_config_destroy(&c);
  /* the longest line taken, and one character more */
  for (int over = 0; over < 2; over++) {
    int len = LBS_CONFIG_MAX_LINE + over;
    snprintf(text, n + 64, "[alpha]\nlabel = %0*d\nratio = 0.5\n", len - 8, 0);
    lbs_err e = lbs_config_parse_string("t.ini", text, &c);
    cr_assert_eq(e, over ? LBS_PARSE : LBS_OK, "%d characters: %s", len, lbs_errmsg());
    if (over)
      cr_assert(strstr(lbs_errmsg(), "t.ini:2: line longer than 65536 characters"), "%s",
                lbs_errmsg());
    lbs_config_destroy(&c);
  }
  free(text);
}

/* An unclosed header was dropped, so the error blamed the next line ("key before any
 * [section]", or a key in the section before). */
Test(config, an_unclosed_section_header_is_named_on_its_own_line) {
  BAD("[alpha\nratio = 0.5\n", LBS_PARSE, "t.ini:1: '[alpha': section header without ']'");
  BAD("[alpha]\nratio = 0.5\n[beta b ; a comment\nweight = 1\n", LBS_PARSE,
      "t.ini:3: '[beta b': section header without ']'");
  BAD("[alpha]\nratio = 0.5\n[beta b] weight = 1\n", LBS_PARSE,
      "t.ini:3: '[beta b] weight = 1': text after the section header's ']'");
}

/* An editor's UTF-8 byte order mark hid the first header ("key before any [section]"). */
Test(config, a_byte_order_mark_is_skipped) {
  lbs_config *c;
  cr_assert_eq(parse_check("\xEF\xBB\xBF[alpha]\nratio = 0.5\n", &c), LBS_OK, "%s", lbs_errmsg());
  double r;
  cr_assert_eq(lbs_config_double(c, specs, "alpha", "", "ratio", &r), LBS_OK);
  cr_assert_eq(r, 0.5);
  lbs_config_destroy(&c);
  BAD("[alpha]\nratio = 0.5\n\xEF\xBB\xBF[beta b]\n", LBS_PARSE, "t.ini:3: malformed line");
}

/* Comments after a value, '#' as ';', when a blank comes before them: '#' was kept in the
 * value ("'0.5 # half' is not a number"). A '#' or ';' inside a word stays. */
Test(config, inline_comments_are_stripped) {
  lbs_config *c;
  cr_assert_eq(parse_check("[alpha] # the first\nratio = 0.5 # half\nlabel = a#b;c\tmore\t; x\n"
                           "count=4\t#tab\n[beta  b]  ; named\nweight = 2#\n",
                           &c),
               LBS_PARSE, "%s", lbs_errmsg());
  cr_assert(strstr(lbs_errmsg(), "weight"), "'2#' is not a number: %s", lbs_errmsg());
  lbs_config_destroy(&c);
  cr_assert_eq(parse_check("[alpha] # the first\nratio = 0.5 # half\nlabel = a#b;c\tmore\t; x\n"
                           "count=4\t#tab\n  flag = yes\n[beta  b]  ; named\nweight = 2\n",
                           &c),
               LBS_OK, "%s", lbs_errmsg());
  double r;
  const char *s;
  long long n;
  int f;
  cr_assert_eq(lbs_config_double(c, specs, "alpha", "", "ratio", &r), LBS_OK);
  cr_assert_eq(r, 0.5);
  cr_assert_eq(lbs_config_string(c, specs, "alpha", "", "label", &s), LBS_OK);
  cr_assert_str_eq(s, "a#b;c\tmore");
  cr_assert_eq(lbs_config_int(c, specs, "alpha", "", "count", &n), LBS_OK);
  cr_assert_eq(n, 4);
  cr_assert_eq(lbs_config_bool(c, specs, "alpha", "", "flag", &f), LBS_OK, "an indented key");
  cr_assert_eq(f, 1);
  cr_assert_eq(lbs_config_double(c, specs, "beta", "b", "weight", &r), LBS_OK);
  cr_assert_eq(r, 2);
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
