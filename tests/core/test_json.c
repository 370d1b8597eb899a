/* JSON through jansson (core/lbs_json.h): invalid UTF-8 becomes U+FFFD, escapes are jansson's,
 * numbers print as the document's precision says, write errors are reported. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_json.h"
#include "testutil.h"

#define FFFD "\xef\xbf\xbd"

/* s made valid UTF-8, compared with want. */
static void utf8_is(const char *s, const char *want) {
  size_t len = 0;
  char *t = lbs_json_utf8(s, strlen(s), &len);
  cr_assert_not_null(t);
  cr_assert_eq(len, strlen(want), "length of the repair of '%s': %zu, want %zu", s, len,
               strlen(want));
  cr_assert_eq(memcmp(t, want, len), 0, "repair of '%s': '%s', want '%s'", s, t, want);
  free(t);
}

Test(json, utf8_kept_or_replaced_byte_by_byte) {
  utf8_is("plain ascii", "plain ascii");
  utf8_is("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
          "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"); /* é € emoji */
  utf8_is("a\x80z", "a" FFFD "z");                      /* a stray continuation byte */
  utf8_is("a\xc3", "a" FFFD);                           /* cut short at the end */
  utf8_is("\xc3(", FFFD "(");                           /* lead byte, no continuation */
  utf8_is("\xc0\xaf", FFFD FFFD);                       /* overlong '/' */
  utf8_is("\xe0\x80\xaf", FFFD FFFD FFFD);              /* overlong, three bytes */
  utf8_is("\xed\xa0\x80", FFFD FFFD FFFD);              /* a surrogate, U+D800 */
  utf8_is("\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD);     /* past U+10FFFF */
  utf8_is("\xff\xfe", FFFD FFFD);
  utf8_is("\xe2\x82", FFFD FFFD); /* two of three bytes */
}

/* v written compactly at precision p, compared with want; v released. */
static void dumps_is(json_t *v, int p, const char *want) {
  cr_assert_not_null(v);
  char *t = lbs_json_dumps(v, LBS_JSON_COMPACT | JSON_ENCODE_ANY, p);
  cr_assert_not_null(t);
  cr_assert_str_eq(t, want);
  free(t);
  json_decref(v);
}

Test(json, strings_escaped_once_and_valid) {
  dumps_is(lbs_json_str("a\"b\\c\n\t\x01\x1f"
                        "d\xff"),
           LBS_JSON_EXACT,
           "\"a\\\"b\\\\c\\n\\t\\u0001\\u001F"
           "d" FFFD "\"");
  dumps_is(lbs_json_str(NULL), LBS_JSON_EXACT, "\"\"");
  dumps_is(lbs_json_str_or_null(NULL), LBS_JSON_EXACT, "null");
  dumps_is(lbs_json_str("</script>&"), LBS_JSON_EXACT,
           "\"</script>&\""); /* the report escapes these itself */
  /* what was written reads back (jansson's parser checks UTF-8 too) */
  json_t *o = json_object();
  cr_assert_eq(lbs_json_set(o, "k\xfe\"y", lbs_json_str("v\xc0\x01")), 0,
               "a key with invalid UTF-8 is repaired, not refused");
  char *t = lbs_json_dumps(o, LBS_JSON_COMPACT, LBS_JSON_EXACT);
  cr_assert_not_null(t);
  json_error_t err;
  json_t *back = json_loads(t, 0, &err);
  cr_assert_not_null(back, "%s: %s", t, err.text);
  cr_assert_str_eq(json_string_value(json_object_get(back, "k" FFFD "\"y")), "v" FFFD "\x01");
  json_decref(back);
  free(t);
  json_decref(o);
}

Test(json, numbers_as_the_document_shows_them) {
  dumps_is(lbs_json_real(NAN), LBS_JSON_EXACT, "null");
  dumps_is(lbs_json_real(-INFINITY), LBS_JSON_EXACT, "null");
  dumps_is(lbs_json_fixed(INFINITY, 9), LBS_JSON_SHORT, "null");
  dumps_is(lbs_json_real(3), LBS_JSON_EXACT, "3"); /* as %g writes it */
  dumps_is(lbs_json_real(-0.0), LBS_JSON_EXACT, "0");
  dumps_is(lbs_json_real(1e15), LBS_JSON_EXACT,
           "1000000000000000.0"); /* past that, jansson's real */
  dumps_is(lbs_json_int(-42), LBS_JSON_EXACT, "-42");
  dumps_is(lbs_json_real(1e-7), LBS_JSON_EXACT, "9.9999999999999995e-8");
  dumps_is(lbs_json_real(0.1 + 0.2), LBS_JSON_EXACT,
           "0.30000000000000004"); /* reads back exactly */
  /* %.9f seconds from nanoseconds: the decimals it always printed, not the double's tail */
  dumps_is(lbs_json_fixed(1e-9 * 12345678901.0, 9), LBS_JSON_SHORT, "12.345678901");
  dumps_is(lbs_json_fixed(0.3, 9), LBS_JSON_SHORT, "0.3");
  dumps_is(lbs_json_fixed(0.0004, 3), LBS_JSON_SHORT, "0");
  dumps_is(lbs_json_fixed(2.0 / 3.0, 1), LBS_JSON_SHORT, "0.7");
  dumps_is(lbs_json_sig(123456.789, 4), LBS_JSON_SHORT, "123500");
  dumps_is(lbs_json_sig(1.0 / 3.0, 6), LBS_JSON_SHORT, "0.333333");
  dumps_is(lbs_json_sig(2.5e-12, 6), LBS_JSON_SHORT, "2.5e-12");
}

Test(json, write_errors_reported) {
  json_t *o = json_pack("{s:i}", "a", 1);
  FILE *f = fopen("/dev/full", "w");
  cr_assert_not_null(f);
  setvbuf(f, NULL, _IONBF, 0);
  cr_assert_eq(lbs_json_write(f, o, LBS_JSON_COMPACT, LBS_JSON_EXACT), -1,
               "a full disk went unnoticed");
  cr_assert(ferror(f));
  fclose(f);
  cr_assert_eq(lbs_json_write(stderr, NULL, LBS_JSON_COMPACT, LBS_JSON_EXACT), -1,
               "nothing built is not written");
  json_decref(o);
}

/* A document with a quote, a backslash, control characters and invalid UTF-8 in a key and a
 * value, read by python3's json module: the text comes back with U+FFFD for the bad bytes. */
Test(json, python_reads_what_is_written) {
  char *dir = tu_tmpdir(), *path = tu_path(dir, "d.json");
  json_t *o = json_object();
  lbs_json_set(o, "metric \"q\" \\ \x01\xff", lbs_json_str("path/\"q\"\\\x07\t\xc3(/x"));
  lbs_json_set(o, "n", lbs_json_fixed(1.5, 9));
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  cr_assert_eq(lbs_json_write(f, o, LBS_JSON_COMPACT, LBS_JSON_SHORT), 0);
  cr_assert_eq(fclose(f), 0);
  json_decref(o);
  char *py = tu_path(dir, "check.py"), cmd[300];
  tu_write(
      py,
      "import json, sys\n"
      "d = json.load(open(sys.argv[1], encoding='utf-8'))\n"
      "want = {'metric \"q\" \\\\ \\x01\\ufffd': 'path/\"q\"\\\\\\x07\\t\\ufffd(/x', 'n': 1.5}\n"
      "assert d == want, (d, want)\n");
  snprintf(cmd, sizeof cmd, "python3 %s %s", py, path);
  cr_assert_eq(system(cmd), 0, "python3's json.load did not read back what was written");
  free(py);
  tu_rmrf(dir);
  free(path);
}
