/* lbs_core.h - error codes, error messages, the log, checksums, varints and a deterministic RNG
 * shared by every lbsim library. */
#ifndef LBS_CORE_H
#define LBS_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One list feeds the enum, the message table and the names. */
#define LBS_ERRORS(X)                                                                              \
  X(OK, "success")                                                                                 \
  X(NOMEM, "out of memory")                                                                        \
  X(IO, "I/O failed")                                                                              \
  X(PARSE, "malformed input")                                                                      \
  X(CORRUPT, "data is corrupt")                                                                    \
  X(VERSION, "unsupported version")                                                                \
  X(FORMAT, "not the expected file format")                                                        \
  X(RANGE, "value out of range")                                                                   \
  X(INVAL, "invalid argument")                                                                     \
  X(NOTFOUND, "not found")                                                                         \
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

/* ---------------------------------------------------------------- log (log.c)
 *
 * Library code says what a user should hear through lbs_log, never to stderr itself: the
 * program decides where it goes (a sink) and how much (a level threshold). A message is one
 * line, no newline, naming its component but not the program ("collect: node 2's agent went
 * away", "lbsprof: warning: ..."); the program's sink adds its own prefix ("lbsim: ",
 * "lbsim[rank 1]: "). Unless a program sets one, the sink writes the message as it is to
 * stderr, and only errors and warnings pass. Safe from any thread: each message reaches the
 * sink whole, one at a time. */
typedef enum {
  LBS_LOG_ERROR = 0,
  LBS_LOG_WARN = 1,
  LBS_LOG_INFO = 2,
  LBS_LOG_DEBUG = 3
} lbs_log_level;
#define LBS_LOG_DEFAULT_LEVEL LBS_LOG_WARN
/* Gets every message at or above the threshold, formatted, as one line without a newline. It
 * is called under the log's lock (lines never interleave; the sink needs no lock of its own) and
 * must not call lbs_log: a message logged from inside a sink goes to stderr as it is. */
typedef void (*lbs_log_sink)(void *arg, lbs_log_level level, const char *msg);
/* Formats (printf) and hands the message to the sink when level passes the threshold. */
void lbs_log(lbs_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Installs fn with its arg (NULL: the default, lbs_log_stderr); arg must outlive its use. */
void lbs_log_set_sink(lbs_log_sink fn, void *arg);
/* Messages at `level` and more severe pass (LBS_LOG_DEBUG: all of them). */
void lbs_log_set_level(lbs_log_level level);
lbs_log_level lbs_log_get_level(void);
/* 1 when a message at level would reach the sink: skip work done only for the message. */
int lbs_log_enabled(lbs_log_level level);
/* "error", "warn", "info", "debug". */
const char *lbs_log_level_name(lbs_log_level level);
/* Parses a level name (also "warning"); LBS_PARSE "'S' is not a log level (error, warn, info,
 * debug)". */
lbs_err lbs_log_level_parse(const char *s, lbs_log_level *out);
/* The level the environment variable `var` names into *out (unchanged when var is unset or
 * empty); LBS_PARSE "VAR: 'S' is not a log level (...)" for anything else. */
lbs_err lbs_log_level_from_env(const char *var, lbs_log_level *out);
/* The default sink: the message and a newline to stderr, in one write (arg unused). */
void lbs_log_stderr(void *arg, lbs_log_level level, const char *msg);
/* A sink writing prefix + message + newline to a stream in one write: arg is an lbs_log_stream. */
typedef struct lbs_log_stream {
  FILE *f;         /* NULL: stderr */
  char prefix[64]; /* "lbsim: ", "lbsim[rank 3]: " */
} lbs_log_stream;
void lbs_log_stream_sink(void *arg, lbs_log_level level, const char *msg);
/* The MPI rank and job size the launcher gave this process in its environment (Open MPI's
 * OMPI_COMM_WORLD_RANK/_SIZE, else PMI_RANK/PMI_SIZE as MPICH and Slurm set them): 1 when it
 * says so, 0 with rank 0 of size 1 when the process was not started by an MPI launcher. Known
 * before MPI_Init, and from any thread. */
int lbs_log_mpi_env(int *rank, int *size);
/* A program's prefix for its messages: "NAME: " for one process, "NAME[rank R]: " in a job of
 * more than one rank; into buf (n bytes), returns buf. */
char *lbs_log_prefix(char *buf, size_t n, const char *name, int rank, int size);

/* Strict numbers: s is all of one decimal number (no blanks, no trailing text, no overflow) in
 * [lo, hi]; 0 with *out set, or -1 with *out untouched. What strtoll/atof alone let through
 * ("abc" as 0, "99999" cut to 16 bits, "5x" as 5) every reader of a number refuses this way. */
int lbs_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);
int lbs_parse_f64(const char *s, double lo, double hi, double *out);
/* The number in environment variable name, in [lo, hi]; dflt when it is unset or empty. LBS_INVAL
 * "NAME='VALUE' is not a number in [LO, HI]" otherwise (never a silent default). */
lbs_err lbs_env_f64(const char *name, double dflt, double lo, double hi, double *out);

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

/* Writes s (NULL: empty) as one CSV field (RFC 4180): as it is, or in double quotes with its
 * quotes doubled when it holds a comma, a quote or a line break, or starts or ends with a space
 * or a tab (which readers trim when unquoted). Every CSV lbsim writes quotes this way. */
void lbs_csv_field(FILE *f, const char *s);

/* Deterministic counter-based random numbers (splitmix64): the same (seed, stream,
 * index) always gives the same value, so any element of any step can be regenerated. */
uint64_t lbs_rng_u64(uint64_t seed, uint64_t stream, uint64_t index);
double lbs_rng_unit(uint64_t seed, uint64_t stream, uint64_t index);   /* [0,1) */
double lbs_rng_normal(uint64_t seed, uint64_t stream, uint64_t index); /* N(0,1) */

#endif
