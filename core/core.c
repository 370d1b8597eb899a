/* core.c - error table, thread-local messages, CRC-32, varints, buffers, RNG. */
#include "lbs_core.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static const char *const messages[] = {
#define X(code, msg) msg,
    LBS_ERRORS(X)
#undef X
};

const char *lbs_strerror(lbs_err e) {
  if ((int)e < 0 || e >= LBS_NERRORS) return "unknown error";
  return messages[e];
}

static _Thread_local char last_msg[1024];

lbs_err lbs_fail(lbs_err e, const char *fmt, ...) {
  /* format into a local buffer first: callers may pass lbs_errmsg() itself as an argument */
  char msg[sizeof last_msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  memcpy(last_msg, msg, sizeof msg);
  return e;
}

const char *lbs_errmsg(void) { return last_msg; }
void lbs_clear_error(void) { last_msg[0] = '\0'; }

/* A number starts with a digit, a sign or a point: strtoll and strtod would skip blanks first. */
static int number_start(const char *s) {
  return (*s >= '0' && *s <= '9') || *s == '-' || *s == '+' || *s == '.';
}

int lbs_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out) {
  if (!s || !number_start(s)) return -1;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (*end || errno || v < lo || v > hi) return -1;
  *out = (int64_t)v;
  return 0;
}

int lbs_parse_f64(const char *s, double lo, double hi, double *out) {
  if (!s || !number_start(s)) return -1;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  /* the range test is false for NaN; ERANGE also flags an underflow to 0, which is a number */
  if (*end || (errno && fabs(v) > 1) || !(v >= lo && v <= hi)) return -1;
  *out = v;
  return 0;
}

lbs_err lbs_env_f64(const char *name, double dflt, double lo, double hi, double *out) {
  const char *v = getenv(name);
  if (!v || !*v) return *out = dflt, LBS_OK;
  if (lbs_parse_f64(v, lo, hi, out))
    return lbs_fail(LBS_INVAL, "%s='%s' is not a number in [%.10g, %.10g]", name, v, lo, hi);
  return LBS_OK;
}

uint32_t lbs_crc32(const void *p, size_t n) {
  uLong c = crc32(0L, Z_NULL, 0);
  const Bytef *b = p;
  while (n > 0) { /* zlib takes uInt lengths */
    uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
    c = crc32(c, b, k);
    b += k;
    n -= k;
  }
  return (uint32_t)c;
}

size_t lbs_varint_put(uint8_t *p, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  p[n++] = (uint8_t)v;
  return n;
}

int lbs_varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  const uint8_t *q = *p;
  uint64_t r = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (q >= end) return -1;
    uint8_t b = *q++;
    if (shift == 63 && b > 1) return -1; /* overflows 64 bits */
    r |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *p = q;
      *v = r;
      return 0;
    }
  }
  return -1;
}

lbs_err lbs_buf_reserve(lbs_buf *b, size_t extra) {
  if (b->cap - b->len >= extra) return LBS_OK;
  size_t cap = b->cap ? b->cap : 256;
  while (cap - b->len < extra) cap *= 2;
  uint8_t *d = realloc(b->data, cap);
  if (!d) return lbs_fail(LBS_NOMEM, "cannot grow a buffer to %zu bytes", cap);
  b->data = d;
  b->cap = cap;
  return LBS_OK;
}

lbs_err lbs_buf_append(lbs_buf *b, const void *p, size_t n) {
  lbs_err e = lbs_buf_reserve(b, n);
  if (e) return e;
  if (n) memcpy(b->data + b->len, p, n);
  b->len += n;
  return LBS_OK;
}

void lbs_buf_free(lbs_buf *b) {
  if (!b) return;
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t lbs_rng_u64(uint64_t seed, uint64_t stream, uint64_t index) {
  return mix(mix(seed * 0x9e3779b97f4a7c15ULL + stream) ^ (index + 0x632be59bd9b4e019ULL));
}

double lbs_rng_unit(uint64_t seed, uint64_t stream, uint64_t index) {
  return (double)(lbs_rng_u64(seed, stream, index) >> 11) * 0x1.0p-53;
}

double lbs_rng_normal(uint64_t seed, uint64_t stream, uint64_t index) {
  /* Box-Muller on two independent draws. */
  double u1 = lbs_rng_unit(seed, stream, 2 * index) + 0x1.0p-54;
  double u2 = lbs_rng_unit(seed, stream, 2 * index + 1);
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

lbs_err lbs_read_file(const char *path, char **text, size_t *len) {
  *text = NULL;
  *len = 0;
  /* Only regular files are read: a device is not even opened (opening one can act), and
   * O_NONBLOCK keeps a FIFO that appears after the stat from waiting for a writer. */
  struct stat sb;
  if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
    return lbs_fail(LBS_IO, "%s: not a regular file", path);
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return lbs_fail(LBS_IO, "%s: cannot open: %s", path, strerror(errno));
  if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
    close(fd);
    return lbs_fail(LBS_IO, "%s: not a regular file", path);
  }
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    close(fd);
    return lbs_fail(LBS_IO, "%s: cannot open: %s", path, strerror(errno));
  }
  lbs_buf b = {0};
  char tmp[65536];
  size_t got;
  lbs_err e = LBS_OK;
  while (!e && (got = fread(tmp, 1, sizeof tmp, f)) > 0) e = lbs_buf_append(&b, tmp, got);
  if (!e && ferror(f)) e = lbs_fail(LBS_IO, "%s: read failed", path);
  fclose(f);
  if (!e) e = lbs_buf_append(&b, "", 1);
  if (e) {
    lbs_buf_free(&b);
    return e;
  }
  *text = (char *)b.data;
  *len = b.len - 1;
  return LBS_OK;
}

/* The directory holding path exists and takes a new file: a probe file is made and removed. */
lbs_err lbs_parent_writable(const char *path) {
  char dir[4096];
  size_t n = strlen(path);
  if (n >= sizeof dir - 32) return lbs_fail(LBS_INVAL, "%s: path too long", path);
  memcpy(dir, path, n + 1);
  while (n > 1 && dir[n - 1] == '/') dir[--n] = '\0'; /* "out/" names out */
  char *slash = strrchr(dir, '/');
  if (!slash)
    strcpy(dir, ".");
  else if (slash == dir)
    dir[1] = '\0';
  else
    *slash = '\0';
  struct stat sb;
  if (stat(dir, &sb))
    return lbs_fail(LBS_IO, "%s: cannot write in %s: %s", path, dir, strerror(errno));
  if (!S_ISDIR(sb.st_mode))
    return lbs_fail(LBS_IO, "%s: cannot write in %s: not a directory", path, dir);
  /* permission bits do not stop root, a read-only mount does: try it */
  char probe[4200];
  snprintf(probe, sizeof probe, "%s/.lbsim-probe-XXXXXX", dir);
  int fd = mkstemp(probe);
  if (fd < 0) return lbs_fail(LBS_IO, "%s: cannot write in %s: %s", path, dir, strerror(errno));
  close(fd);
  unlink(probe);
  return LBS_OK;
}

void lbs_csv_field(FILE *f, const char *s) {
  s = s ? s : "";
  size_t n = strlen(s);
  int edge = n && (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t');
  if (!strpbrk(s, ",\"\r\n") && !edge) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}
