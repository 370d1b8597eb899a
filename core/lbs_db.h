/* lbs_db.h - one way to open an lbsim SQLite file (trace, results store, calibration
 * database): for the stores' implementations only, never included by another public header.
 *
 * A store describes its kind of file once (lbs_db_kind: its name in messages, application_id,
 * the schema versions it writes and reads, where the version lives, the CREATE statements, an
 * upgrade step per version) and opens every file through lbs_db_open, which
 *   - refuses a FIFO, directory or device before SQLite sees it, without blocking on a FIFO;
 *   - refuses a file that does not start with SQLite's magic, and an SQLite file of another
 *     kind ("PATH: an SQLite file but not an lbsim results store");
 *   - gives a missing or empty file the schema when writing;
 *   - checks the schema version ("PATH: results schema version 4, this lbsim reads versions 1
 *     to 3 (a newer lbsim wrote it)") and upgrades an older file opened for writing, every step
 *     in the one write transaction;
 *   - removes a file it created when a failure leaves it empty;
 *   - reading, rolls back a killed writer's journal (PATH-journal) that made the read fail, by
 *     opening the file read-write once where it and its directory may be written, and else
 *     says so ("PATH: an interrupted write left PATH-journal; open it writable once ...").
 * Errors from SQLite map to lbs_err in one place (lbs_db_err), and rows go in through
 * lbs_db_row / lbs_db_insert from an array of typed values. */
#ifndef LBS_DB_H
#define LBS_DB_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "lbs_core.h"

typedef struct lbs_db lbs_db;

/* One upgrade step: what turns a file of version to - 1 into version to. Steps run in order, in
 * the transaction that opened the file for writing; a failure rolls every one of them back. */
typedef struct lbs_db_step {
  int to;                           /* the version this step makes */
  const char *sql;                  /* statements run first (NULL: none) */
  lbs_err (*fn)(lbs_db *d, int to); /* then this (NULL: none); an error with its message */
} lbs_db_step;

/* A kind of lbsim SQLite file, described once (static storage). */
typedef struct lbs_db_kind {
  const char *what;        /* "results store": "an SQLite file but not an lbsim results store",
                              "a damaged results store", "results store: empty path" */
  const char *a_what;      /* "a results store": "not a results store (not an SQLite file)" */
  const char *schema_name; /* "results": "results schema version 4, this lbsim reads ..." */
  int terse;               /* messages name the path alone, "PATH: strerror" and "PATH: SQLite's
                              message" (results stores always said so), not "PATH: cannot open:
                              strerror" and "PATH: WHAT: SQLite's message" */
  uint32_t app_id;         /* PRAGMA application_id: set on a new file, checked unless identify */
  lbs_err (*identify)(lbs_db *d); /* NULL: the application_id tells an existing file of this kind;
                                     else this does: LBS_OK, or LBS_FORMAT saying why not */
  int version;                    /* the schema version written */
  int oldest;                     /* the oldest version read */
  int zero_is;                    /* a user_version of 0 reads as this version (0: none) */
  const char *meta_key;    /* NULL: the version is PRAGMA user_version; else the value (text) of
                              this key in meta(key, value) */
  const char *new_pragmas; /* run on an empty file before its schema, outside any transaction
                              (page_size, journal_mode; NULL: none) */
  const char *schema;      /* CREATE statements of a new file */
  int schema_version;      /* the version schema makes (0: version); the steps above it follow */
  lbs_err (*on_create)(lbs_db *d); /* rows a new file gets after its schema (NULL: none) */
  const lbs_db_step *steps;        /* upgrade steps by increasing to (NULL when nsteps is 0) */
  int nsteps;                      /* entries of steps */
  int rw_reader; /* LBS_DB_READ opens read-write where it may, so that SQLite rolls back
                    what a killed writer left, and read-only where it may not */
} lbs_db_kind;

typedef enum lbs_db_mode {
  LBS_DB_READ,   /* an existing file of this kind, not written (not upgraded) */
  LBS_DB_WRITE,  /* an existing file, or a new one where none is or it is empty; upgraded */
  LBS_DB_CREATE, /* a new file: nothing may be at the path, not even a link */
} lbs_db_mode;

/* How one call opens a file. */
typedef struct lbs_db_opts {
  lbs_db_mode mode;
  int busy_ms;     /* wait this long for another connection's lock (0: fail at once) */
  int quick_check; /* PRAGMA quick_check on an existing file: LBS_CORRUPT "a damaged WHAT" */
  int keep_tx;     /* WRITE, CREATE: return inside the write transaction that checked (and made
                      or upgraded) the file, so that the caller's rows join it (lbs_db_finish) */
} lbs_db_opts;

/* Opens path as a file of kind. *out is an owned handle (lbs_db_close, lbs_db_finish), NULL on
 * failure: LBS_INVAL (empty path), LBS_IO (cannot open or make it, not a regular file, a file
 * already there for LBS_DB_CREATE), LBS_FORMAT (not SQLite, another kind, an empty file or
 * database to read), LBS_VERSION (a version outside oldest..version, or not a number),
 * LBS_CORRUPT (damaged), LBS_NOMEM, LBS_DB; each with a message naming the path. A failed open
 * changes no file, except that one it created and left empty is removed. */
lbs_err lbs_db_open(const lbs_db_kind *kind, const char *path, const lbs_db_opts *opts,
                    lbs_db **out);

/* Closes the handle (a transaction still open is rolled back). NULL-safe; clears *d. */
void lbs_db_close(lbs_db **d);

/* Ends the write transaction, committing it when e is LBS_OK and rolling it back otherwise,
 * and closes the handle; on failure a file this handle created and that is still empty is
 * removed. Returns e, or the commit's error. NULL-safe; clears *d. */
lbs_err lbs_db_finish(lbs_db **d, lbs_err e);

/* The connection, owned by the caller from now on (sqlite3_close); the handle is freed and *d
 * cleared. For readers that run their own SQL on a store. */
sqlite3 *lbs_db_detach(lbs_db **d);

/* The handle's connection, path (as given to lbs_db_open) and the file's schema version (after
 * any upgrade); valid until the handle is closed. */
sqlite3 *lbs_db_sqlite(const lbs_db *d);
const char *lbs_db_path(const lbs_db *d);
int lbs_db_version(const lbs_db *d);

/* Records the last error of db as an lbs_err with the message "PATH: WHAT: sqlite's message"
 * ("PATH: sqlite's message" when what is NULL) and returns it: LBS_NOMEM (db NULL too),
 * LBS_CORRUPT for a damaged file ("PATH: WHAT: file is damaged (message)"), LBS_IO for I/O, a
 * file that cannot be opened, written or grown, else LBS_DB. */
lbs_err lbs_db_err(sqlite3 *db, const char *path, const char *what);

/* lbs_db_err on the handle's connection and path (what is left out for a terse kind). */
lbs_err lbs_db_fail(const lbs_db *d, const char *what);

/* Runs sql (one or more statements, no rows wanted); the error as lbs_db_fail(d, what). */
lbs_err lbs_db_exec(lbs_db *d, const char *sql, const char *what);

/* Prepares one statement into *st (owned: sqlite3_finalize); the error as lbs_db_fail. */
lbs_err lbs_db_prepare(lbs_db *d, const char *sql, const char *what, sqlite3_stmt **st);

/* BEGIN IMMEDIATE (the write lock at once), COMMIT, and ROLLBACK (which cannot fail usefully:
 * it is what a failure does). */
lbs_err lbs_db_begin(lbs_db *d, const char *what);
lbs_err lbs_db_commit(lbs_db *d, const char *what);
void lbs_db_rollback(lbs_db *d);

/* PRAGMA quick_check(1): LBS_CORRUPT "PATH: a damaged WHAT (what SQLite found)" when it fails. */
lbs_err lbs_db_quick_check(lbs_db *d);

/* ---------------------------------------------------------------- rows
 * A row is an array of values bound to ?1..?n of an INSERT, in order:
 *   lbs_db_val row[] = {LBS_DB_INT(run), LBS_DB_TEXT(name), LBS_DB_REAL(x)};
 *   e = lbs_db_row(d, st, "steps", row, LBS_DB_COUNT(row)); */
typedef struct lbs_db_val {
  char type;     /* 'i' integer, 'd' real (NaN: NULL), 'f' real, NULL when not finite, 't' text
                    (a NULL pointer: NULL), 'b' blob, 'n' NULL */
  int64_t i;     /* 'i' */
  double d;      /* 'd', 'f' */
  const void *p; /* 't', 'b': borrowed until the row is stepped */
  size_t n;      /* 'b': bytes */
} lbs_db_val;

#define LBS_DB_INT(v) ((lbs_db_val){.type = 'i', .i = (int64_t)(v)})
#define LBS_DB_REAL(v) ((lbs_db_val){.type = 'd', .d = (double)(v)})
#define LBS_DB_FINITE(v) ((lbs_db_val){.type = 'f', .d = (double)(v)})
#define LBS_DB_TEXT(s) ((lbs_db_val){.type = 't', .p = (s)})
#define LBS_DB_BLOB(ptr, bytes) ((lbs_db_val){.type = 'b', .p = (ptr), .n = (size_t)(bytes)})
#define LBS_DB_NULL ((lbs_db_val){.type = 'n'})
#define LBS_DB_COUNT(row) ((int)(sizeof(row) / sizeof(row)[0]))

/* Binds the n values of row to st's parameters 1..n, steps it once (an INSERT: it must be
 * done), then resets it and clears its bindings (nothing borrowed stays bound); st is ready for
 * the next row. The error as lbs_db_fail(d, what). */
lbs_err lbs_db_row(lbs_db *d, sqlite3_stmt *st, const char *what, const lbs_db_val *row, int n);

/* One row through a statement of its own: prepares sql, lbs_db_row, finalizes. */
lbs_err lbs_db_insert(lbs_db *d, const char *sql, const char *what, const lbs_db_val *row, int n);

#endif
