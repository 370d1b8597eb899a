/* lbs_core.h - error codes, error messages, checksums, varints and a deterministic RNG
 * shared by every lbsim library. */
#ifndef LBS_CORE_H
#define LBS_CORE_H

#include <stddef.h>
#include <stdint.h>

/* One list feeds the enum, the message table and the names. */
#define LBS_ERRORS(X)                                     \
  X(OK, "success")                                        \
  X(NOMEM, "out of memory")                               \
  X(IO, "I/O failed")                                     \
  X(PARSE, "malformed input")                             \
  X(CORRUPT, "data is corrupt")                           \
  X(VERSION, "unsupported version")                       \
  X(FORMAT, "not the expected file format")               \
  X(RANGE, "value out of range")                          \
  X(INVAL, "invalid argument")                            \
  X(NOTFOUND, "not found")                                \
  X(DB, "database error")

typedef enum {
#define X(code, msg) LBS_##code,
  LBS_ERRORS(X)
#undef X
  LBS_NERRORS
} lbs_err;

/* Short static description of an error code; never NULL. */
const char *lbs_strerror(lbs_err e);

/* Records a detailed message for the calling thread (printf format) and returns e, so
 * library code can write `return lbs_fail(LBS_PARSE, "%s:%d: ...", file, line);`. */
lbs_err lbs_fail(lbs_err e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The detailed message of the calling thread's last failure (static thread-local
 * storage, valid until the next failure on this thread); "" when none was recorded. */
const char *lbs_errmsg(void);

/* Clears the calling thread's last message. */
void lbs_clear_error(void);

/* CRC-32 (IEEE, as zlib's crc32) of n bytes. */
uint32_t lbs_crc32(const void *p, size_t n);

/* Unsigned LEB128 varint: writes at most 10 bytes at p, returns the count. */
size_t lbs_varint_put(uint8_t *p, uint64_t v);
/* Reads a varint from [*p, end); advances *p. Returns 0 on success, -1 when truncated
 * or longer than 10 bytes. */
int lbs_varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v);
static inline uint64_t lbs_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t lbs_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* A growable byte buffer. */
typedef struct lbs_buf {
  uint8_t *data; /* owned, may be NULL while len == cap == 0 */
  size_t len;    /* bytes in use */
  size_t cap;    /* bytes allocated */
} lbs_buf;
lbs_err lbs_buf_reserve(lbs_buf *b, size_t extra); /* room for extra more bytes */
lbs_err lbs_buf_append(lbs_buf *b, const void *p, size_t n);
void lbs_buf_free(lbs_buf *b); /* NULL-safe; leaves an empty buffer */

/* Reads a whole file into a new NUL-terminated buffer (*text, owned by the caller; *len
 * excludes the NUL). LBS_IO naming the file when it cannot be read or is not a regular file
 * (a FIFO or device is refused at once, never waited on). */
lbs_err lbs_read_file(const char *path, char **text, size_t *len);

/* Checks that a new file can be made beside path: the directory that holds it exists and
 * takes a file (a probe file is created and removed, since permission bits do not stop root
 * and a read-only mount does). LBS_IO naming path, the directory and why. */
lbs_err lbs_parent_writable(const char *path);

/* Deterministic counter-based random numbers (splitmix64): the same (seed, stream,
 * index) always gives the same value, so any element of any step can be regenerated. */
uint64_t lbs_rng_u64(uint64_t seed, uint64_t stream, uint64_t index);
double lbs_rng_unit(uint64_t seed, uint64_t stream, uint64_t index);   /* [0,1) */
double lbs_rng_normal(uint64_t seed, uint64_t stream, uint64_t index); /* N(0,1) */

#endif
