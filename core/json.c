/* json.c - JSON through jansson: strings made valid UTF-8, numbers rounded as a document shows
 * them, documents written with one precision (lbs_json.h). */
#include "lbs_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at p (at most n bytes there), 0 when p[0] does not
 * start one: the well-formed sequences of Unicode's table 3-7, which jansson accepts. */
static size_t utf8_seq(const unsigned char *p, size_t n) {
  unsigned c = p[0];
  if (c < 0x80) return 1;
  size_t len = c >= 0xc2 && c <= 0xdf   ? 2
               : c >= 0xe0 && c <= 0xef ? 3
               : c >= 0xf0 && c <= 0xf4 ? 4
                                        : 0;
  if (!len || len > n) return 0;
  uint32_t cp = len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
  for (size_t i = 1; i < len; i++) {
    if ((p[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3f);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
      (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return len;
}

char *lbs_json_utf8(const char *s, size_t n, size_t *len) {
  const unsigned char *p = (const unsigned char *)s;
  size_t out = 0;
  for (size_t i = 0; i < n;) { /* first the length: each bad byte grows to 3 */
    size_t k = utf8_seq(p + i, n - i);
    out += k ? k : 3;
    i += k ? k : 1;
  }
  char *t = malloc(out + 1);
  if (!t) return NULL;
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    size_t k = utf8_seq(p + i, n - i);
    if (k) {
      memcpy(t + o, p + i, k);
      o += k, i += k;
    } else {
      memcpy(t + o, "\xef\xbf\xbd", 3);
      o += 3, i++;
    }
  }
  t[o] = '\0';
  if (len) *len = o;
  return t;
}

json_t *lbs_json_str(const char *s) {
  if (!s) s = "";
  size_t n = strlen(s), len;
  json_t *v = json_stringn(s, n); /* valid UTF-8: as it is */
  if (v) return v;
  char *t = lbs_json_utf8(s, n, &len);
  v = t ? json_stringn(t, len) : NULL;
  free(t);
  return v;
}

json_t *lbs_json_str_or_null(const char *s) { return s ? lbs_json_str(s) : json_null(); }

json_t *lbs_json_real(double v) {
  if (!isfinite(v)) return json_null();
  if (v == floor(v) && fabs(v) < 1e15)
    return json_integer((json_int_t)v); /* as %g prints it: 3, not 3.0 */
  return json_real(v);
}

json_t *lbs_json_fixed(double v, int decimals) {
  if (!isfinite(v)) return json_null();
  char b[400]; /* %.9f of 1e308: 309 digits and the decimals */
  snprintf(b, sizeof b, "%.*f", decimals, v);
  return lbs_json_real(strtod(b, NULL));
}

json_t *lbs_json_sig(double v, int digits) {
  if (!isfinite(v)) return json_null();
  char b[64];
  snprintf(b, sizeof b, "%.*g", digits, v);
  return lbs_json_real(strtod(b, NULL));
}

json_t *lbs_json_int(int64_t v) { return json_integer((json_int_t)v); }

int lbs_json_set(json_t *obj, const char *key, json_t *v) {
  if (!v) return -1;
  char *t = lbs_json_utf8(key, strlen(key), NULL);
  int rc = t ? json_object_set_new(obj, t, v) : (json_decref(v), -1);
  free(t);
  return rc;
}

char *lbs_json_dumps(const json_t *v, size_t flags, int precision) {
  return v ? json_dumps(v, flags | JSON_REAL_PRECISION(precision)) : NULL;
}

int lbs_json_write(FILE *f, const json_t *v, size_t flags, int precision) {
  if (!v) return -1;
  if (json_dumpf(v, f, flags | JSON_REAL_PRECISION(precision))) return -1;
  return fputc('\n', f) == EOF ? -1 : 0;
}
