/* files.c - formatted buffers and new files written whole, for study/'s exports and probes. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "study_int.h"

lbs_err lbs__bprintf(lbs_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  lbs_err e = n < 0 ? lbs_fail(LBS_INVAL, "a bad format") : lbs_buf_reserve(b, (size_t)n + 1);
  if (e) return e;
  va_start(ap, fmt);
  vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
  return LBS_OK;
}

/* Closes f after a write that failed with err (errno; -1: failed, errno unknown; 0: not yet). */
static lbs_err finish(FILE *f, const char *path, int bad, int err) {
  if (fclose(f) != 0 && !bad) bad = 1, err = errno;
  if (!bad) return LBS_OK;
  unlink(path); /* the half-written file this process made */
  return lbs_fail(LBS_IO, "%s: write failed: %s", path, err > 0 ? strerror(err) : "I/O error");
}

lbs_err lbs__close_new(FILE *f, const char *path) {
  errno = 0;
  int bad = ferror(f) || fflush(f) != 0;
  return finish(f, path, bad, errno);
}

lbs_err lbs__write_new(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wx");
  if (!f) return lbs_fail(LBS_IO, "%s: cannot create: %s", path, strerror(errno));
  errno = 0;
  int bad = fwrite(data, 1, len, f) != len || fflush(f) != 0;
  return finish(f, path, bad, errno);
}
