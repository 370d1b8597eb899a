/* JSON through jansson (core/lbs_json.h): invalid UTF-8 becomes U+FFFD, escapes are jansson's,
 * numbers print in one format (the shortest that reads back), write errors are reported. */
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

/* v written compactly, compared with want; v released. */
static void dumps_is(json_t *v, const char *want) {
  cr_assert_not_null(v);
  char *t = lbs_json_dumps(v, LBS_JSON_COMPACT);
  cr_assert_not_null(t);
  cr_assert_str_eq(t, want);
  free(t);
  json_decref(v);
}

Test(json, strings_escaped_once_and_valid) {
  dumps_is(lbs_json_str("a\"b\\c\n\t\x01\x1f"
                        "d\xff"),
           "\"a\\\"b\\\\c\\n\\t\\u0001\\u001F"
           "d" FFFD "\"");
  dumps_is(lbs_json_str(NULL), "\"\"");
  dumps_is(lbs_json_str_or_null(NULL), "null");
  dumps_is(lbs_json_str("</script>&"), "\"</script>&\""); /* the report escapes these itself */
  /* what was written reads back (jansson's parser checks UTF-8 too) */
  json_t *o = json_object();
  cr_assert_eq(lbs_json_set(o, "k\xfe\"y", lbs_json_str("v\xc0\x01")), 0,
               "a key with invalid UTF-8 is repaired, not refused");
  char *t = lbs_json_dumps(o, LBS_JSON_COMPACT);
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
  dumps_is(lbs_json_real(NAN), "null");
  dumps_is(lbs_json_real(-INFINITY), "null");
  dumps_is(lbs_json_fixed(INFINITY, 9), "null");
  dumps_is(lbs_json_real(3), "3"); /* as %g writes it */
  dumps_is(lbs_json_real(-0.0), "0");
  dumps_is(lbs_json_real(1e15), "1e15"); /* past that, a real */
  dumps_is(lbs_json_int(-42), "-42");
  dumps_is(lbs_json_real(1e-7), "1e-7"); /* the shortest that reads back */
  dumps_is(lbs_json_real(0.1), "0.1");
  dumps_is(lbs_json_real(1.0 / 3.0), "0.3333333333333333"); /* 16 digits */
  dumps_is(lbs_json_real(2.0 / 3.0), "0.6666666666666666");
  dumps_is(lbs_json_real(5e-324), "5e-324");                               /* the least double */
  dumps_is(lbs_json_real(0x1.23456789abcdep-1030), "9.889217148921e-311"); /* subnormal */
  dumps_is(lbs_json_real(-1.7976931348623157e308), "-1.7976931348623157e308");
  dumps_is(lbs_json_real(1e300 * 10), "1e301");
  dumps_is(json_real(2.0), "2"); /* a whole real built elsewhere: as %g */
  dumps_is(json_pack("[f,f,s,b,n,{s:[]}]", 0.5, 1e-300, "x", 1, "k"),
           "[0.5,1e-300,\"x\",true,null,{\"k\":[]}]");
  dumps_is(lbs_json_real(0.1 + 0.2), "0.30000000000000004"); /* reads back exactly */
  /* %.9f seconds from nanoseconds: the decimals it always printed, not the double's tail */
  dumps_is(lbs_json_fixed(1e-9 * 12345678901.0, 9), "12.345678901");
  dumps_is(lbs_json_fixed(0.3, 9), "0.3");
  dumps_is(lbs_json_fixed(0.0004, 3), "0");
  dumps_is(lbs_json_fixed(2.0 / 3.0, 1), "0.7");
  dumps_is(lbs_json_sig(123456.789, 4), "123500");
  dumps_is(lbs_json_sig(1.0 / 3.0, 6), "0.333333");
  dumps_is(lbs_json_sig(2.5e-12, 6), "2.5e-12");
}

Test(json, write_errors_reported) {
  json_t *o = json_pack("{s:i}", "a", 1);
  FILE *f = fopen("/dev/full", "w");
  cr_assert_not_null(f);
  setvbuf(f, NULL, _IONBF, 0);
  cr_assert_eq(lbs_json_write(f, o, LBS_JSON_COMPACT), -1, "a full disk went unnoticed");
  cr_assert(ferror(f));
  fclose(f);
  cr_assert_eq(lbs_json_write(stderr, NULL, LBS_JSON_COMPACT), -1, "nothing built is not written");
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
  cr_assert_eq(lbs_json_write(f, o, LBS_JSON_COMPACT), 0);
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

/* Doubles of every kind (random bit patterns: subnormals, huge, tiny; and short decimals), each
 * written beside its exact hex form, read by python3: every number reads back as the same
 * double and has as many significant digits as Python's repr, which is the shortest form. */
Test(json, numbers_shortest_that_reads_back_as_python_says) {
  char *dir = tu_tmpdir(), *path = tu_path(dir, "n.json");
  json_t *a = json_array();
  uint64_t x = 0x9e3779b97f4a7c15u;
  for (int i = 0; i < 3000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    double v;
    if (i % 3 == 0) {
      uint64_t bits = x & 0x7fefffffffffffffu; /* finite */
      memcpy(&v, &bits, sizeof v);
    } else {
      v = (double)(int64_t)(x % 2000001 - 1000000) / (i % 3 == 1 ? 1000.0 : 7.0);
    }
    char hex[64];
    snprintf(hex, sizeof hex, "%a", v);
    json_array_append_new(a, json_pack("[s,o]", hex, json_real(v)));
  }
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  cr_assert_eq(lbs_json_write(f, a, LBS_JSON_COMPACT), 0);
  cr_assert_eq(fclose(f), 0);
  json_decref(a);
  char *py = tu_path(dir, "check.py"), cmd[300];
  tu_write(py, "import json, re, sys\n"
               "text = open(sys.argv[1]).read()\n"
               "def digits(t):\n"
               "    m = t.lstrip('-').split('e')[0].replace('.', '').lstrip('0').rstrip('0')\n"
               "    return len(m) or 1\n"
               "pairs = re.findall(r'\\[\"([^\"]+)\",([^\\]]+)\\]', text)\n"
               "assert len(pairs) == 3000, len(pairs)\n"
               "for h, t in pairs:\n"
               "    v = float.fromhex(h)\n"
               "    assert float(t) == v, (h, t)\n"
               "    assert digits(t) == digits(repr(v)), (t, repr(v))\n"
               "assert json.loads(text)\n");
  snprintf(cmd, sizeof cmd, "python3 %s %s", py, path);
  cr_assert_eq(system(cmd), 0, "a number did not read back, or was longer than Python's repr");
  free(py);
  tu_rmrf(dir);
  free(path);
}
