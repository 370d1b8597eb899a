/* json.c - JSON built with jansson: strings made valid UTF-8, numbers rounded as a document shows
 * them, documents written with one number format, the shortest that reads back (lbs_json.h). */
#include "lbs_json.h"

#include <float.h>
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

/* The text being written: a growing buffer. */
typedef struct jbuf {
  char *p;
  size_t n, cap;
  int nomem;
} jbuf;

static void put(jbuf *b, const char *s, size_t n) {
  if (b->nomem) return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->nomem = 1;
      return;
    }
    b->p = p, b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = '\0';
}
static void puts_(jbuf *b, const char *s) { put(b, s, strlen(s)); }

/* A string as jansson escapes it: '"', '\\' and the control characters below 0x20 (\b \f \n
 * \r \t, else \u00XX); UTF-8 and '/' as they are. */
static void put_string(jbuf *b, const char *s, size_t n) {
  put(b, "\"", 1);
  size_t run = 0; /* bytes copied as they are, pending */
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    put(b, s + run, i - run);
    run = i + 1;
    char e[8];
    const char *short_ = c == '"'    ? "\\\""
                         : c == '\\' ? "\\\\"
                         : c == '\b' ? "\\b"
                         : c == '\f' ? "\\f"
                         : c == '\n' ? "\\n"
                         : c == '\r' ? "\\r"
                         : c == '\t' ? "\\t"
                                     : NULL;
    if (!short_) snprintf(e, sizeof e, "\\u%04X", c);
    puts_(b, short_ ? short_ : e);
  }
  put(b, s + run, n - run);
  put(b, "\"", 1);
}

void lbs_json_number_text(double v, char out[32]) {
  /* A normal double's rounding interval (one ulp, at most 2.2e-16 of it) never holds two
   * decimals of 15 digits (spaced 1e-15 of it or more): %.15g is the shortest form when any
   * of 15 digits or fewer reads back. A subnormal's interval is wider: from 1 digit. */
  for (int p = fabs(v) < DBL_MIN ? 1 : 15; p <= 17; p++) {
    snprintf(out, 32, "%.*g", p, v);
    if (p == 17 || strtod(out, NULL) == v) break;
  }
  char *e = strchr(out, 'e'); /* 1e+20 as 1e20, 2.5e-07 as 2.5e-7 */
  if (!e) return;
  char *d = e + 1, *q = e + 1;
  if (*q == '+')
    q++;
  else if (*q == '-')
    d++, q++;
  while (*q == '0' && q[1]) q++;
  memmove(d, q, strlen(q) + 1);
}

static void put_value(jbuf *b, const json_t *v, int compact) {
  char t[32];
  switch (json_typeof(v)) {
  case JSON_OBJECT: {
    const char *k;
    json_t *x;
    int first = 1;
    put(b, "{", 1);
    json_object_foreach((json_t *)v, k, x) {
      if (!first) puts_(b, compact ? "," : ", ");
      first = 0;
      put_string(b, k, strlen(k));
      puts_(b, compact ? ":" : ": ");
      put_value(b, x, compact);
    }
    put(b, "}", 1);
    break;
  }
  case JSON_ARRAY:
    put(b, "[", 1);
    for (size_t i = 0; i < json_array_size(v); i++) {
      if (i) puts_(b, compact ? "," : ", ");
      put_value(b, json_array_get(v, i), compact);
    }
    put(b, "]", 1);
    break;
  case JSON_STRING: put_string(b, json_string_value(v), json_string_length(v)); break;
  case JSON_INTEGER:
    snprintf(t, sizeof t, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    puts_(b, t);
    break;
  case JSON_REAL:
    lbs_json_number_text(json_real_value(v), t);
    puts_(b, t);
    break;
  case JSON_TRUE: puts_(b, "true"); break;
  case JSON_FALSE: puts_(b, "false"); break;
  case JSON_NULL: puts_(b, "null"); break;
  }
}

char *lbs_json_dumps(const json_t *v, size_t flags) {
  if (!v) return NULL;
  jbuf b = {0};
  put(&b, "", 0); /* an empty document is still a string */
  put_value(&b, v, (flags & JSON_COMPACT) != 0);
  if (b.nomem) free(b.p);
  return b.nomem ? NULL : b.p;
}

int lbs_json_write(FILE *f, const json_t *v, size_t flags) {
  char *t = lbs_json_dumps(v, flags);
  if (!t) return -1;
  int bad = fputs(t, f) == EOF || fputc('\n', f) == EOF;
  free(t);
  return bad ? -1 : 0;
}
