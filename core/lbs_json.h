/* lbs_json.h - every JSON document lbsim writes is built as Debian's jansson objects and
 * written by jansson: one escaper for the whole program.
 *
 * Strings: jansson takes UTF-8 only, and lbsim's text (a trace path, a metric name, a row of a
 * store) is whatever bytes it was given. lbs_json_str keeps valid UTF-8 as it is and replaces
 * each byte that is not part of a valid UTF-8 sequence (a stray continuation byte, a truncated
 * sequence, an overlong form, a surrogate, a code point past U+10FFFF) with U+FFFD, so the
 * output is always valid JSON in UTF-8; control characters, quotes and backslashes are
 * jansson's escapes (\n, \t, \u001F, \", \\).
 *
 * Numbers: a whole number below 1e15 is written as an integer (3, as printf's %g wrote it, not
 * jansson's 3.0); jansson prints every other real of a document with one precision (%.<n>g,
 * the exponent without '+' and leading zeros: 2.5e-7, 2e20). Two precisions are used:
 * LBS_JSON_EXACT (17 significant digits: the value reads back as the same double, 1e-5 as
 * 1.0000000000000001e-5) and LBS_JSON_SHORT (15), for documents whose values are rounded first
 * with lbs_json_fixed or lbs_json_sig to what the document has always shown (%.9f seconds,
 * %.6g measurements), which then print as those decimals (12.345678901, not
 * 12.345678901000001). NaN and infinities, which JSON lacks, are null. Keys keep the order
 * they were set in. */
#ifndef LBS_JSON_H
#define LBS_JSON_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { LBS_JSON_EXACT = 17, LBS_JSON_SHORT = 15 };

/* Layouts: one line, no blanks ({"a":1,"b":[1,2]}), or one line with a blank after ',' and
 * ':' ({"a": 1, "b": [1, 2]}, calibrate's documents). */
#define LBS_JSON_COMPACT (JSON_COMPACT | JSON_PRESERVE_ORDER)
#define LBS_JSON_SPACED (JSON_PRESERVE_ORDER)

/* s as UTF-8: a malloc'd copy of its n bytes with each invalid byte replaced by U+FFFD (EF BF
 * BD), NUL-terminated, its length in *len (may be NULL); NULL when out of memory. */
char *lbs_json_utf8(const char *s, size_t n, size_t *len);
/* A string (NULL as ""), invalid UTF-8 as U+FFFD; NULL only when out of memory. */
json_t *lbs_json_str(const char *s);
/* The same, NULL as null. */
json_t *lbs_json_str_or_null(const char *s);
/* A number: an integer when v is whole and below 1e15, else a real; null when not finite. */
json_t *lbs_json_real(double v);
/* v as printf's %.<decimals>f shows it (the double nearest that decimal); null when not finite. */
json_t *lbs_json_fixed(double v, int decimals);
/* v as printf's %.<digits>g shows it; null when not finite. */
json_t *lbs_json_sig(double v, int digits);
/* An integer. */
json_t *lbs_json_int(int64_t v);
/* obj[key] = v, v's reference taken (jansson's json_object_set_new), key as lbs_json_str
 * makes it valid. 0, or -1 when out of memory (v released). */
int lbs_json_set(json_t *obj, const char *key, json_t *v);

/* v as text with layout flags and reals at precision digits: malloc'd, NUL-terminated, no
 * line end; NULL when out of memory. */
char *lbs_json_dumps(const json_t *v, size_t flags, int precision);
/* v, then a line end, to f. 0, or -1 when v is NULL (out of memory while building it) or
 * jansson could not write it all (ferror(f) then tells a write error from a lack of memory). */
int lbs_json_write(FILE *f, const json_t *v, size_t flags, int precision);

#endif
