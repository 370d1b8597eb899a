/* study_int.h - what study/'s modules share and nobody else sees: formatted buffers and new
 * files written whole (files.c). Local (no MPI) throughout. */
#ifndef LBS_STUDY_INT_H
#define LBS_STUDY_INT_H

#include <stddef.h>
#include <stdio.h>

#include "lbs_core.h"

/* Appends printf-formatted text to b (no NUL kept): LBS_NOMEM when b cannot grow. */
lbs_err lbs__bprintf(lbs_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes len bytes to a new file at path (an existing one is never replaced): LBS_IO "PATH:
 * cannot create: why" or "PATH: write failed: why", the half-written file removed. */
lbs_err lbs__write_new(const char *path, const void *data, size_t len);

/* Closes f, a new file written at path: LBS_IO "PATH: write failed: why" (the file removed) when
 * a write or the close failed. */
lbs_err lbs__close_new(FILE *f, const char *path);

#endif
