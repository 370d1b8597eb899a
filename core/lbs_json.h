/* lbs_json.h - every JSON document lbsim writes is built as Debian's jansson objects and
 * written by one writer here (jansson's escapes, one number format): one escaper for the whole
 * program.
 *
 * Strings: jansson takes UTF-8 only, and lbsim's text (a trace path, a metric name, a row of a
 * store) is whatever bytes it was given. lbs_json_str keeps valid UTF-8 as it is and replaces
 * each byte that is not part of a valid UTF-8 sequence (a stray continuation byte, a truncated
 * sequence, an overlong form, a surrogate, a code point past U+10FFFF) with U+FFFD, so the
 * output is always valid JSON in UTF-8; control characters, quotes and backslashes are
 * escaped as jansson does (\n, \t, \u001F, \", \\).
 *
 * Numbers, one format in every document: a whole number below 1e15 is an integer (3, as %g
 * writes it, not 3.0); every other real is the shortest decimal that reads back as the same
 * double (0.1, not 0.10000000000000001; 0.30000000000000004 for 0.1 + 0.2), with the exponent
 * without '+' and leading zeros (2.5e-7, 1e20). A value that a document shows rounded (seconds
 * to the nanosecond, a measurement to 6 digits) is rounded first with lbs_json_fixed or
 * lbs_json_sig, and then prints as those decimals (12.345678901). NaN and infinities, which
 * JSON lacks, are null. Keys keep the order they were set in. */
#ifndef LBS_JSON_H
#define LBS_JSON_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* v's real as text, as every document writes it (above): at most 24 characters and a NUL. */
void lbs_json_number_text(double v, char out[32]);
/* v as text with layout flags (LBS_JSON_COMPACT or LBS_JSON_SPACED; any value, not only an
 * object or array): malloc'd, NUL-terminated, no line end; NULL when out of memory or v is
 * NULL. */
char *lbs_json_dumps(const json_t *v, size_t flags);
/* v, then a line end, to f. 0, or -1 when v is NULL (out of memory while building it), out of
 * memory, or f could not take it all (ferror(f) then tells a write error from a lack of
 * memory). */
int lbs_json_write(FILE *f, const json_t *v, size_t flags);

#endif
