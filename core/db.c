/* db.c - one way to open an lbsim SQLite file (lbs_db.h): what is at the path is looked at
 * before SQLite sees it, then the kind's identity and schema version are checked, and a new
 * file gets its schema or an older one its upgrade in the write transaction that checked it.
 * Also the one mapping of SQLite's errors to lbs_err, and the row helpers. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lbs_db.h"

struct lbs_db {
  sqlite3 *db;             /* the connection (NULL before it is made) */
  char *path;              /* owned copy, for messages */
  const lbs_db_kind *kind; /* borrowed (static storage) */
  int version;             /* the file's schema version, after any upgrade */
  int created;             /* this open made the file: a failure that leaves it empty removes it */
  int empty;               /* the file had no bytes when it was looked at */
};

/* ================================================================ errors */

lbs_err lbs_db_err(sqlite3 *db, const char *path, const char *what) {
  int rc = db ? sqlite3_extended_errcode(db) & 0xff : SQLITE_NOMEM;
  const char *msg = db ? sqlite3_errmsg(db) : "cannot allocate";
  const char *sep = what ? ": " : "";
  if (!what) what = "";
  if (rc == SQLITE_NOMEM) return lbs_fail(LBS_NOMEM, "%s: %s%s%s", path, what, sep, msg);
  if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB)
    return lbs_fail(LBS_CORRUPT, "%s: %s%sfile is damaged (%s)", path, what, sep, msg);
  if (rc == SQLITE_IOERR || rc == SQLITE_CANTOPEN || rc == SQLITE_READONLY || rc == SQLITE_FULL)
    return lbs_fail(LBS_IO, "%s: %s%s%s", path, what, sep, msg);
  return lbs_fail(LBS_DB, "%s: %s%s%s", path, what, sep, msg);
}

lbs_err lbs_db_fail(const lbs_db *d, const char *what) {
  return lbs_db_err(d->db, d->path, d->kind->terse ? NULL : what);
}

/* ================================================================ statements and rows */

lbs_err lbs_db_exec(lbs_db *d, const char *sql, const char *what) {
  return sqlite3_exec(d->db, sql, NULL, NULL, NULL) == SQLITE_OK ? LBS_OK : lbs_db_fail(d, what);
}

lbs_err lbs_db_prepare(lbs_db *d, const char *sql, const char *what, sqlite3_stmt **st) {
  *st = NULL;
  return sqlite3_prepare_v2(d->db, sql, -1, st, NULL) == SQLITE_OK ? LBS_OK : lbs_db_fail(d, what);
}

lbs_err lbs_db_begin(lbs_db *d, const char *what) {
  return lbs_db_exec(d, "BEGIN IMMEDIATE", what);
}

lbs_err lbs_db_commit(lbs_db *d, const char *what) { return lbs_db_exec(d, "COMMIT", what); }

void lbs_db_rollback(lbs_db *d) {
  if (d->db && !sqlite3_get_autocommit(d->db)) sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
}

/* Binds value v to parameter k of st: SQLite's result code. */
static int bind(sqlite3_stmt *st, int k, const lbs_db_val *v) {
  switch (v->type) {
  case 'i': return sqlite3_bind_int64(st, k, v->i);
  case 'd': return sqlite3_bind_double(st, k, v->d);
  case 'f': return isfinite(v->d) ? sqlite3_bind_double(st, k, v->d) : sqlite3_bind_null(st, k);
  case 't':
    return v->p ? sqlite3_bind_text(st, k, v->p, -1, SQLITE_STATIC) : sqlite3_bind_null(st, k);
  case 'b': return sqlite3_bind_blob64(st, k, v->p, v->n, SQLITE_STATIC);
  default: return sqlite3_bind_null(st, k);
  }
}

lbs_err lbs_db_row(lbs_db *d, sqlite3_stmt *st, const char *what, const lbs_db_val *row, int n) {
  sqlite3_reset(st);
  int rc = SQLITE_OK;
  for (int k = 0; k < n && rc == SQLITE_OK; k++) rc = bind(st, k + 1, &row[k]);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  lbs_err e = rc == SQLITE_DONE ? LBS_OK : lbs_db_fail(d, what); /* before the reset */
  sqlite3_reset(st);
  sqlite3_clear_bindings(st); /* nothing borrowed stays bound */
  return e;
}

lbs_err lbs_db_insert(lbs_db *d, const char *sql, const char *what, const lbs_db_val *row, int n) {
  sqlite3_stmt *st;
  lbs_err e = lbs_db_prepare(d, sql, what, &st);
  if (e) return e;
  e = lbs_db_row(d, st, what, row, n);
  sqlite3_finalize(st);
  return e;
}

/* The first column of the first row of sql as an integer. */
static lbs_err query_int(lbs_db *d, const char *sql, int64_t *v) {
  sqlite3_stmt *st;
  lbs_err e = lbs_db_prepare(d, sql, "open", &st);
  if (e) return e;
  int rc = sqlite3_step(st);
  *v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  e = rc == SQLITE_ROW ? LBS_OK : lbs_db_fail(d, "open");
  sqlite3_finalize(st);
  return e;
}

lbs_err lbs_db_quick_check(lbs_db *d) {
  sqlite3_stmt *st;
  lbs_err e = lbs_db_prepare(d, "PRAGMA quick_check(1)", "integrity check", &st);
  if (e) return e;
  const char *r = sqlite3_step(st) == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
  if (!r || strcmp(r, "ok"))
    e = lbs_fail(LBS_CORRUPT, "%s: a damaged %s (%s)", d->path, d->kind->what,
                 r ? r : sqlite3_errmsg(d->db));
  sqlite3_finalize(st);
  return e;
}

/* ================================================================ the handle */

sqlite3 *lbs_db_sqlite(const lbs_db *d) { return d->db; }
const char *lbs_db_path(const lbs_db *d) { return d->path; }
int lbs_db_version(const lbs_db *d) { return d->version; }

/* Frees the handle and clears *dp; the connection is the caller's to close or keep. */
static sqlite3 *release(lbs_db **dp) {
  lbs_db *d = *dp;
  sqlite3 *db = d->db;
  free(d->path);
  free(d);
  *dp = NULL;
  return db;
}

void lbs_db_close(lbs_db **d) {
  if (!d || !*d) return;
  lbs_db_rollback(*d);
  sqlite3_close(release(d));
}

sqlite3 *lbs_db_detach(lbs_db **d) { return d && *d ? release(d) : NULL; }

lbs_err lbs_db_finish(lbs_db **dp, lbs_err e) {
  if (!dp || !*dp) return e;
  lbs_db *d = *dp;
  if (!e && d->db && !sqlite3_get_autocommit(d->db)) e = lbs_db_commit(d, "commit");
  lbs_db_rollback(d);
  int created = d->created;
  char *path = d->path;
  d->path = NULL;
  sqlite3_close(release(dp));
  struct stat sb;
  /* a file this open made and left empty (a full disk, a refused schema) is not left behind;
   * one that another process has written to meanwhile is not empty */
  if (e && created && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0) unlink(path);
  free(path);
  return e;
}

/* ================================================================ opening */

/* "PATH: VERB: strerror", or "PATH: strerror" for a terse kind. */
static lbs_err cannot(const lbs_db *d, const char *verb, int err) {
  if (d->kind->terse) return lbs_fail(LBS_IO, "%s: %s", d->path, strerror(err));
  return lbs_fail(LBS_IO, "%s: %s: %s", d->path, verb, strerror(err));
}

/* A regular file (fstat on the open descriptor: a FIFO made after any stat is not waited on,
 * since it was opened with O_NONBLOCK) that is empty or starts with SQLite's magic. Closes fd. */
static lbs_err sniff(lbs_db *d, int fd) {
  struct stat sb;
  if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
    close(fd);
    return lbs_fail(LBS_IO, "%s: not a regular file", d->path);
  }
  char magic[16];
  ssize_t got = read(fd, magic, sizeof magic);
  int err = errno;
  close(fd);
  if (got < 0) return lbs_fail(LBS_IO, "%s: cannot read: %s", d->path, strerror(err));
  d->empty = got == 0;
  if (got > 0 && (got < 16 || memcmp(magic, "SQLite format 3", 16)))
    return lbs_fail(LBS_FORMAT, "%s: not %s (not an SQLite file)", d->path, d->kind->a_what);
  return LBS_OK;
}

/* Makes the file, exclusively: of two processes that find it missing (a sweep's ranks), only
 * the one that made it may remove it. *raced: another process made it first. */
static lbs_err make_file(lbs_db *d, int *raced) {
  int fd = open(d->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  int err = errno;
  *raced = fd < 0 && err == EEXIST;
  if (*raced) return LBS_OK;
  if (fd < 0) { /* "PATH: cannot write in DIR: why" names the directory where it can */
    lbs_err e = d->kind->terse ? LBS_OK : lbs_parent_writable(d->path);
    return e ? e : cannot(d, "cannot create", err);
  }
  close(fd);
  d->created = d->empty = 1;
  return LBS_OK;
}

/* What is at the path, before SQLite sees it. CREATE: nothing, not even a link; then made.
 * READ, WRITE: a regular file, not waited on when it is a FIFO, empty or an SQLite file; WRITE
 * makes a missing one. */
static lbs_err look(lbs_db *d, lbs_db_mode mode) {
  struct stat sb;
  int raced = 0;
  if (mode == LBS_DB_CREATE) {
    if (lstat(d->path, &sb) == 0) /* never written through */
      return lbs_fail(LBS_IO, "%s: %s", d->path,
                      S_ISREG(sb.st_mode) ? "file exists (remove it first)" : "not a regular file");
    lbs_err e = make_file(d, &raced);
    return e || !raced ? e : lbs_fail(LBS_IO, "%s: file exists (remove it first)", d->path);
  }
  for (int tries = 0;; tries++) {
    int fd = open(d->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) return sniff(d, fd);
    if (mode == LBS_DB_READ || errno != ENOENT || tries) return cannot(d, "cannot open", errno);
    lbs_err e = make_file(d, &raced);
    if (e || !raced) return e; /* else look at what the other process made */
  }
}

/* Connects to the file looked at: read-only to read (read-write first for a kind that asks),
 * read-write to write; with the busy timeout asked for. */
static lbs_err connect(lbs_db *d, const lbs_db_opts *o) {
  int rw = o->mode != LBS_DB_READ || d->kind->rw_reader;
  int rc =
      sqlite3_open_v2(d->path, &d->db, rw ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY, NULL);
  if (rc != SQLITE_OK && o->mode == LBS_DB_READ && rw) { /* a file one may read, not write */
    sqlite3_close(d->db);
    d->db = NULL;
    rc = sqlite3_open_v2(d->path, &d->db, SQLITE_OPEN_READONLY, NULL);
  }
  if (rc != SQLITE_OK) return lbs_db_fail(d, "open");
  if (o->busy_ms > 0) sqlite3_busy_timeout(d->db, o->busy_ms);
  return LBS_OK;
}

/* A new file's schema, application_id and first rows (inside the write transaction). */
static lbs_err make_schema(lbs_db *d) {
  const lbs_db_kind *k = d->kind;
  char sql[48];
  snprintf(sql, sizeof sql, "PRAGMA application_id=%d", (int)(int32_t)k->app_id);
  lbs_err e = lbs_db_exec(d, sql, "create");
  if (!e) e = lbs_db_exec(d, k->schema, "create");
  d->version = k->schema_version ? k->schema_version : k->version;
  if (!e && k->on_create) e = k->on_create(d);
  return e;
}

/* Is the file of d's kind? A file without tables is made one when writing (*made), and is
 * none to read unless its application_id says so. */
static lbs_err identify(lbs_db *d, int write, int *made) {
  const lbs_db_kind *k = d->kind;
  int64_t tables, app;
  lbs_err e = query_int(d, "SELECT count(*) FROM sqlite_master", &tables);
  if (!e) e = query_int(d, "PRAGMA application_id", &app);
  if (e) return e;
  *made = tables == 0 && write;
  if (*made) return make_schema(d);
  if (k->identify && tables) return k->identify(d);
  if (!k->identify && app == (int32_t)k->app_id) return LBS_OK;
  if (!tables) return lbs_fail(LBS_FORMAT, "%s: an empty SQLite file, not %s", d->path, k->a_what);
  return lbs_fail(LBS_FORMAT, "%s: an SQLite file but not an lbsim %s", d->path, k->what);
}

/* The version as stored, as text, into buf. */
static lbs_err stored_version(lbs_db *d, char *buf, size_t n) {
  const lbs_db_kind *k = d->kind;
  int64_t v;
  lbs_err e;
  if (!k->meta_key) {
    if (!(e = query_int(d, "PRAGMA user_version", &v))) snprintf(buf, n, "%lld", (long long)v);
    return e;
  }
  sqlite3_stmt *st;
  if ((e = lbs_db_prepare(d, "SELECT value FROM meta WHERE key = ?1", "meta", &st))) return e;
  sqlite3_bind_text(st, 1, k->meta_key, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st);
  const char *s = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
  snprintf(buf, n, "%s", s ? s : "");
  if (rc == SQLITE_DONE)
    e = lbs_fail(LBS_CORRUPT, "%s: %s without meta '%s'", d->path, k->what, k->meta_key);
  else if (rc != SQLITE_ROW)
    e = lbs_db_fail(d, "meta");
  sqlite3_finalize(st);
  return e;
}

/* Reads the version into d->version: one of oldest..version, or LBS_VERSION naming both. */
static lbs_err read_version(lbs_db *d) {
  const lbs_db_kind *k = d->kind;
  char text[128], *end;
  lbs_err e = stored_version(d, text, sizeof text);
  if (e) return e;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  int number = !errno && end != text && !*end;
  if (number && v == 0 && k->zero_is) v = k->zero_is;
  if (!number || v < k->oldest || v > k->version) {
    const char *q = k->meta_key ? "'" : "";
    return lbs_fail(LBS_VERSION,
                    "%s: %s schema version %s%s%s, this lbsim reads versions %d to %d%s", d->path,
                    k->schema_name, q, text, q, k->oldest, k->version,
                    number && v > k->version ? " (a newer lbsim wrote it)" : "");
  }
  d->version = (int)v;
  return LBS_OK;
}

/* A file cut short inside a page: a rolled-back write would restore whole pages and so grow it,
 * changing a file the failed write must leave as it was. (Its size now, under the write lock.) */
static lbs_err check_pages(lbs_db *d) {
  int64_t page;
  lbs_err e = query_int(d, "PRAGMA page_size", &page);
  struct stat sb;
  if (!e && stat(d->path, &sb)) e = lbs_fail(LBS_IO, "%s: %s", d->path, strerror(errno));
  if (!e && page > 0 && sb.st_size % page)
    e = lbs_fail(LBS_CORRUPT,
                 "%s: a damaged %s (%lld bytes: not a whole number of %lld-byte pages)", d->path,
                 d->kind->what, (long long)sb.st_size, (long long)page);
  return e;
}

/* Runs the steps above the file's version, in order, then stores the new version (always for
 * a file made here). Inside the write transaction: a failure leaves the file as it was. */
static lbs_err upgrade(lbs_db *d, int made) {
  const lbs_db_kind *k = d->kind;
  int from = d->version;
  lbs_err e = LBS_OK;
  for (int i = 0; i < k->nsteps && !e; i++) {
    const lbs_db_step *s = &k->steps[i];
    if (s->to <= d->version) continue;
    if (s->sql) e = lbs_db_exec(d, s->sql, "upgrade");
    if (!e && s->fn) e = s->fn(d, s->to);
    if (!e) d->version = s->to;
  }
  if (!e && d->version != k->version)
    e = lbs_fail(LBS_VERSION, "%s: %s schema version %d: no upgrade to version %d", d->path,
                 k->schema_name, d->version, k->version);
  if (e || (!made && d->version == from)) return e;
  char v[16];
  snprintf(v, sizeof v, "%d", d->version);
  if (k->meta_key) {
    lbs_db_val row[] = {LBS_DB_TEXT(k->meta_key), LBS_DB_TEXT(v)};
    return lbs_db_insert(d, "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)", "meta", row,
                         LBS_DB_COUNT(row));
  }
  char sql[48];
  snprintf(sql, sizeof sql, "PRAGMA user_version=%s", v);
  return lbs_db_exec(d, sql, "upgrade");
}

/* Everything after connecting: identity, version, size, integrity, schema or upgrade. */
static lbs_err check(lbs_db *d, const lbs_db_opts *o) {
  int write = o->mode != LBS_DB_READ, made = 0;
  lbs_err e = identify(d, write, &made);
  if (!e && !made) e = read_version(d);
  if (!e && write && !d->created) e = check_pages(d);
  if (!e && o->quick_check && !made) e = lbs_db_quick_check(d);
  if (!e && write) e = upgrade(d, made);
  return e;
}

/* One try at lbs_db_open. */
static lbs_err open_once(const lbs_db_kind *kind, const char *path, const lbs_db_opts *opts,
                         lbs_db **out) {
  *out = NULL;
  if (!path || !*path) /* SQLite would open a temporary database */
    return lbs_fail(LBS_INVAL, "%s: empty path", kind->what);
  lbs_db *d = calloc(1, sizeof *d);
  if (!d || !(d->path = strdup(path))) {
    free(d);
    return lbs_fail(LBS_NOMEM, "%s: %s", path, kind->what);
  }
  d->kind = kind;
  int write = opts->mode != LBS_DB_READ;
  lbs_err e = look(d, opts->mode);
  if (!e && !write && d->empty)
    e = lbs_fail(LBS_FORMAT, "%s: an empty file, not %s", path, kind->a_what);
  if (!e) e = connect(d, opts);
  if (!e && write && d->empty && kind->new_pragmas) e = lbs_db_exec(d, kind->new_pragmas, "create");
  /* the write lock first: what follows reads the file as one transaction, so that another
   * process's commit cannot land between the checks and the schema or upgrade */
  if (!e && write) e = lbs_db_begin(d, "open");
  if (!e) e = check(d, opts);
  if (!e && write && !opts->keep_tx) e = lbs_db_commit(d, "open");
  if (e) return lbs_db_finish(&d, e);
  *out = d;
  return LBS_OK;
}

/* ================================================================ a killed writer's journal */

/* Does a rollback journal that SQLite would play back lie beside path: PATH-journal, a regular
 * file that starts with the journal's magic, beside a regular file? (A file of that name
 * without the magic is not SQLite's to replay, and is left alone.) */
static int journal_left(const char *path) {
  static const unsigned char magic[8] = {0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7};
  char j[4096];
  struct stat sb;
  if (snprintf(j, sizeof j, "%s-journal", path) >= (int)sizeof j) return 0;
  if (stat(path, &sb) || !S_ISREG(sb.st_mode)) return 0;
  int fd = open(j, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return 0;
  unsigned char head[8];
  int left = !fstat(fd, &sb) && S_ISREG(sb.st_mode) && read(fd, head, sizeof head) == 8 &&
             !memcmp(head, magic, sizeof magic);
  close(fd);
  return left;
}

/* Lets SQLite roll back what a killed writer left: a read-write connection that reads the
 * schema plays the journal back into the file and deletes it, which a read-only connection
 * cannot do ("attempt to write a readonly database"), and until then page 1 may even be torn
 * ("not an SQLite file"). Only where the file and its directory may be written. 1: try the
 * open again (the file was read, or the journal is gone); 0: the journal is still there. */
static int recover(const char *path, int busy_ms) {
  if (access(path, W_OK) || lbs_parent_writable(path)) return 0;
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
  if (rc == SQLITE_OK && sqlite3_db_readonly(db, "main")) rc = SQLITE_READONLY;
  if (rc == SQLITE_OK) {
    sqlite3_busy_timeout(db, busy_ms);
    rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
  }
  sqlite3_close(db);
  return rc == SQLITE_OK || !journal_left(path);
}

lbs_err lbs_db_open(const lbs_db_kind *kind, const char *path, const lbs_db_opts *opts,
                    lbs_db **out) {
  lbs_err e = open_once(kind, path, opts, out);
  /* a reader that fails beside a killed writer's journal: roll it back and read again, or say
   * what is wrong and how to mend it (writing opens read-write, and SQLite rolls it back) */
  if (!e || opts->mode != LBS_DB_READ || e == LBS_NOMEM || e == LBS_INVAL || !journal_left(path))
    return e;
  if (!recover(path, opts->busy_ms))
    return lbs_fail(LBS_IO,
                    "%s: an interrupted write left %s-journal; open it writable once (any lbsim "
                    "command that writes it) to recover",
                    path, path);
  return open_once(kind, path, opts, out);
}
