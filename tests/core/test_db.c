/* core/db.c, the one way to open an lbsim SQLite file: its modes, what it refuses before SQLite
 * sees it (FIFOs without blocking, files that are not SQLite) and after (another kind, another
 * version), upgrades run once and in one transaction, the error mapping and the row helpers.
 * The kinds here are the tests' own ("widget store"); the stores' own suites check theirs. */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lbs_db.h"
#include "testutil.h"

/* ---------------------------------------------------------------- kinds and helpers */

static int upgrades; /* calls of add_c (each test runs in a process of its own) */

/* Version 3's step: inside the opening transaction, once. */
static lbs_err add_c(lbs_db *d, int to) {
  upgrades++;
  cr_assert_eq(to, 3);
  cr_assert_not(sqlite3_get_autocommit(lbs_db_sqlite(d)),
                "an upgrade step runs inside the transaction");
  return lbs_db_exec(d, "ALTER TABLE w ADD COLUMN c TEXT", "upgrade");
}

/* A step that fails after the one before it changed the file. */
static lbs_err fail_step(lbs_db *d, int to) {
  (void)to;
  return lbs_fail(LBS_DB, "%s: no upgrade today", lbs_db_path(d));
}

static const lbs_db_step STEPS[] = {{2, "CREATE TABLE extra(x);", NULL}, {3, NULL, add_c}};
static const lbs_db_step BAD_STEPS[] = {{2, "CREATE TABLE extra(x);", NULL}, {3, NULL, fail_step}};

#define WIDGET_FIELDS                                                                              \
  .what = "widget store", .a_what = "a widget store", .schema_name = "widget",                     \
  .app_id = 0x57494447, .version = 3, .oldest = 1

static const lbs_db_kind WIDGET = {
    WIDGET_FIELDS, .schema = "CREATE TABLE w(a INTEGER, b TEXT, c TEXT); CREATE TABLE extra(x);",
    .steps = STEPS, .nsteps = 2};
static const lbs_db_kind BAD_WIDGET = {WIDGET_FIELDS,
                                       .schema = "CREATE TABLE w(a, b, c); CREATE TABLE extra(x);",
                                       .steps = BAD_STEPS, .nsteps = 2};
static const lbs_db_kind BROKEN = {WIDGET_FIELDS, .schema = "CREATE TABLE oops("};
/* version 0 reads as 1, as results stores of schema 1 say */
static const lbs_db_kind ZERO = {WIDGET_FIELDS, .zero_is = 1, .schema = "CREATE TABLE w(a, b, c);",
                                 .steps = STEPS, .nsteps = 2};

/* A kind known by its meta rows, its version in meta('version'). */
static lbs_err meta_rows(lbs_db *d) {
  lbs_db_val row[] = {LBS_DB_TEXT("format"), LBS_DB_TEXT("gadget")};
  return lbs_db_insert(d, "INSERT INTO meta VALUES(?1, ?2)", "meta", row, LBS_DB_COUNT(row));
}

static lbs_err is_gadget(lbs_db *d) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(lbs_db_sqlite(d), "SELECT value FROM meta WHERE key = 'format'", -1, &st,
                         NULL))
    return lbs_fail(LBS_FORMAT, "%s: no meta", lbs_db_path(d));
  int ok =
      sqlite3_step(st) == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(st, 0), "gadget");
  sqlite3_finalize(st);
  return ok ? LBS_OK : lbs_fail(LBS_FORMAT, "%s: not a gadget (format)", lbs_db_path(d));
}

static const lbs_db_kind GADGET = {
    .what = "gadget file",
    .a_what = "a gadget file",
    .schema_name = "gadget",
    .app_id = 0x47414447,
    .identify = is_gadget,
    .version = 2,
    .oldest = 1,
    .meta_key = "version",
    .schema = "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);",
    .on_create = meta_rows};

/* Messages with the path alone, as results stores say them. */
static const lbs_db_kind TERSE = {.what = "terse store",
                                  .a_what = "a terse store",
                                  .schema_name = "terse",
                                  .terse = 1,
                                  .app_id = 2,
                                  .version = 1,
                                  .oldest = 1,
                                  .schema = "CREATE TABLE t(x);"};

/* Every type of value, for the row helpers. */
static const lbs_db_kind ROWS = {.what = "row store",
                                 .a_what = "a row store",
                                 .schema_name = "row",
                                 .app_id = 1,
                                 .version = 1,
                                 .oldest = 1,
                                 .schema = "CREATE TABLE r(i, d, f, t, b, n);"};

static const lbs_db_opts READ = {.mode = LBS_DB_READ}, WRITE = {.mode = LBS_DB_WRITE},
                         CREATE = {.mode = LBS_DB_CREATE};

static void sql(const char *path, const char *stmts) {
  sqlite3 *db;
  cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
  cr_assert_eq(sqlite3_exec(db, stmts, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
  sqlite3_close(db);
}

static long long query(const char *path, const char *q) {
  sqlite3 *db;
  sqlite3_stmt *st;
  long long v = -1;
  cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

static char *slurp(const char *path, long *len) {
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f);
  fseek(f, 0, SEEK_END);
  *len = ftell(f);
  rewind(f);
  char *b = malloc((size_t)*len + 1);
  cr_assert_eq(fread(b, 1, (size_t)*len, f), (size_t)*len);
  fclose(f);
  return b;
}

/* Asserts that path holds what before[0..n) held. */
static void unchanged(const char *path, const char *before, long n) {
  long m;
  char *after = slurp(path, &m);
  cr_assert(n == m && !memcmp(before, after, (size_t)n), "%s was changed", path);
  free(after);
}

/* A widget store of schema 1 as an older lbsim wrote it. */
static void make_v1(const char *path) {
  sql(path, "PRAGMA application_id=1464419399; CREATE TABLE w(a INTEGER, b TEXT); INSERT INTO w "
            "VALUES(7, 'old');"
            "PRAGMA user_version=1");
}

/* ---------------------------------------------------------------- modes */

Test(db, create_makes_a_new_file_and_nothing_else) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "w.db"), *link = tu_path(dir, "link.db"),
       *target = tu_path(dir, "nowhere.db");
  lbs_db *d;
  cr_assert_eq(lbs_db_open(&WIDGET, p, &CREATE, &d), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_db_version(d), 3);
  cr_assert_str_eq(lbs_db_path(d), p);
  lbs_db_close(&d);
  cr_assert_null(d);
  cr_assert_eq(query(p, "PRAGMA application_id"), 0x57494447);
  cr_assert_eq(query(p, "PRAGMA user_version"), 3);
  cr_assert_eq(query(p, "SELECT count(*) FROM sqlite_master WHERE name IN ('w', 'extra')"), 2);
  cr_assert_eq(lbs_db_open(&WIDGET, p, &CREATE, &d), LBS_IO);
  cr_assert(strstr(lbs_errmsg(), "file exists (remove it first)"), "%s", lbs_errmsg());
  cr_assert_null(d);
  cr_assert_eq(symlink(target, link), 0);
  cr_assert_eq(lbs_db_open(&WIDGET, link, &CREATE, &d), LBS_IO, "a link is never written through");
  cr_assert(strstr(lbs_errmsg(), "not a regular file"), "%s", lbs_errmsg());
  cr_assert_neq(access(target, F_OK), 0, "nothing made where the link points");
  cr_assert_eq(lbs_db_open(&WIDGET, "", &CREATE, &d), LBS_INVAL);
  cr_assert_str_eq(lbs_errmsg(), "widget store: empty path");
  free(p), free(link), free(target);
  tu_rmrf(dir);
}

Test(db, write_makes_a_missing_or_empty_file_and_read_needs_one) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "w.db"), *empty = tu_path(dir, "empty.db"),
       *deep = tu_path(dir, "no/such/w.db");
  lbs_db *d;
  cr_assert_eq(lbs_db_open(&WIDGET, p, &READ, &d), LBS_IO);
  cr_assert(strstr(lbs_errmsg(), ": cannot open: No such file"), "%s", lbs_errmsg());
  cr_assert_neq(access(p, F_OK), 0, "reading makes nothing");
  cr_assert_eq(lbs_db_open(&WIDGET, p, &WRITE, &d), LBS_OK, "%s", lbs_errmsg());
  lbs_db_close(&d);
  cr_assert_eq(lbs_db_open(&WIDGET, p, &WRITE, &d), LBS_OK, "an existing one: %s", lbs_errmsg());
  lbs_db_close(&d);
  cr_assert_eq(lbs_db_open(&WIDGET, p, &READ, &d), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_db_version(d), 3);
  cr_assert_eq(lbs_db_exec(d, "INSERT INTO w VALUES(1, 'x', 'y')", "w"), LBS_IO, "read-only");
  lbs_db_close(&d);
  tu_write(empty, "");
  cr_assert_eq(lbs_db_open(&WIDGET, empty, &READ, &d), LBS_FORMAT);
  cr_assert(strstr(lbs_errmsg(), "an empty file, not a widget store"), "%s", lbs_errmsg());
  cr_assert_eq(lbs_db_open(&WIDGET, empty, &WRITE, &d), LBS_OK, "%s", lbs_errmsg());
  lbs_db_close(&d);
  cr_assert_eq(query(empty, "PRAGMA user_version"), 3);
  cr_assert_eq(lbs_db_open(&WIDGET, deep, &WRITE, &d), LBS_IO);
  cr_assert(strstr(lbs_errmsg(), deep) && strstr(lbs_errmsg(), "cannot write in"), "%s",
            lbs_errmsg());
  free(p), free(empty), free(deep);
  tu_rmrf(dir);
}

/* A FIFO, a directory and a device are refused at once in every mode, never opened by SQLite
 * (the alarm ends a test that waits on the FIFO). */
Test(db, not_regular_files_are_refused_without_blocking) {
  alarm(10);
  char *dir = tu_tmpdir(), *fifo = tu_path(dir, "w.db");
  cr_assert_eq(mkfifo(fifo, 0600), 0);
  const char *paths[] = {fifo, dir, "/dev/null"};
  const lbs_db_opts *modes[] = {&READ, &WRITE, &CREATE};
  for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
      lbs_db *d;
      cr_assert_eq(lbs_db_open(&WIDGET, paths[i], modes[m], &d), LBS_IO, "%s", paths[i]);
      cr_assert(strstr(lbs_errmsg(), "not a regular file"), "%s", lbs_errmsg());
      cr_assert_null(d);
    }
  struct stat sb;
  cr_assert_eq(stat(fifo, &sb), 0);
  cr_assert(S_ISFIFO(sb.st_mode), "the FIFO is still there");
  free(fifo);
  tu_rmrf(dir);
}

/* ---------------------------------------------------------------- what is refused */

Test(db, a_file_that_is_not_sqlite_is_refused_and_left_alone) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "notes.txt"), *shortf = tu_path(dir, "short.db");
  tu_write(p, "not a database, but text of some length to look like one........................");
  tu_write(shortf, "SQLite");
  long n;
  char *before = slurp(p, &n);
  const lbs_db_opts *modes[] = {&READ, &WRITE};
  for (int m = 0; m < 2; m++) {
    lbs_db *d;
    cr_assert_eq(lbs_db_open(&WIDGET, p, modes[m], &d), LBS_FORMAT);
    cr_assert_str_eq(strstr(lbs_errmsg(), ": not"), ": not a widget store (not an SQLite file)");
    cr_assert_eq(lbs_db_open(&WIDGET, shortf, modes[m], &d), LBS_FORMAT, "shorter than the magic");
  }
  unchanged(p, before, n);
  free(before), free(p), free(shortf);
  tu_rmrf(dir);
}

Test(db, a_foreign_sqlite_file_is_refused_and_left_alone) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "other.db"), *bare = tu_path(dir, "bare.db");
  sql(p, "PRAGMA application_id=1279415124; CREATE TABLE mine(x); INSERT INTO mine VALUES(1)");
  long n;
  char *before = slurp(p, &n);
  const lbs_db_opts *modes[] = {&READ, &WRITE};
  for (int m = 0; m < 2; m++) {
    lbs_db *d;
    cr_assert_eq(lbs_db_open(&WIDGET, p, modes[m], &d), LBS_FORMAT);
    cr_assert_str_eq(strstr(lbs_errmsg(), ": an"),
                     ": an SQLite file but not an lbsim widget store");
    cr_assert_eq(lbs_db_open(&GADGET, p, modes[m], &d), LBS_FORMAT, "identify decides");
    cr_assert(strstr(lbs_errmsg(), "no meta"), "%s", lbs_errmsg());
  }
  unchanged(p, before, n);
  /* an SQLite file without tables: none to read, one to make when writing */
  sql(bare, "PRAGMA user_version=0");
  lbs_db *d;
  cr_assert_eq(lbs_db_open(&WIDGET, bare, &READ, &d), LBS_FORMAT);
  cr_assert(strstr(lbs_errmsg(), "an empty SQLite file, not a widget store"), "%s", lbs_errmsg());
  cr_assert_eq(lbs_db_open(&WIDGET, bare, &WRITE, &d), LBS_OK, "%s", lbs_errmsg());
  lbs_db_close(&d);
  free(before), free(p), free(bare);
  tu_rmrf(dir);
}

Test(db, another_version_is_refused_and_left_alone) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "w.db"), *g = tu_path(dir, "g.db");
  lbs_db *d;
  cr_assert_eq(lbs_db_open(&WIDGET, p, &CREATE, &d), LBS_OK, "%s", lbs_errmsg());
  lbs_db_close(&d);
  sql(p, "PRAGMA user_version=4");
  long n;
  char *before = slurp(p, &n);
  const lbs_db_opts *modes[] = {&READ, &WRITE};
  for (int m = 0; m < 2; m++) {
    cr_assert_eq(lbs_db_open(&WIDGET, p, modes[m], &d), LBS_VERSION);
    cr_assert_str_eq(
        strstr(lbs_errmsg(), ": widget"),
        ": widget schema version 4, this lbsim reads versions 1 to 3 (a newer lbsim wrote it)");
  }
  unchanged(p, before, n);
  sql(p, "PRAGMA user_version=0");
  cr_assert_eq(lbs_db_open(&WIDGET, p, &READ, &d), LBS_VERSION);
  cr_assert_str_eq(strstr(lbs_errmsg(), ": widget"),
                   ": widget schema version 0, this lbsim reads versions 1 to 3");
  cr_assert_eq(lbs_db_open(&ZERO, p, &READ, &d), LBS_OK, "0 reads as 1: %s", lbs_errmsg());
  cr_assert_eq(lbs_db_version(d), 1);
  lbs_db_close(&d);
  /* a version kept as text: quoted, and not a number is refused too */
  cr_assert_eq(lbs_db_open(&GADGET, g, &WRITE, &d), LBS_OK, "%s", lbs_errmsg());
  lbs_db_close(&d);
  cr_assert_eq(query(g, "SELECT value = '2' FROM meta WHERE key = 'version'"), 1);
  cr_assert_eq(query(g, "SELECT count(*) FROM meta WHERE key = 'format' AND value = 'gadget'"), 1,
               "on_create");
  sql(g, "UPDATE meta SET value = '2x' WHERE key = 'version'");
  cr_assert_eq(lbs_db_open(&GADGET, g, &READ, &d), LBS_VERSION);
  cr_assert_str_eq(strstr(lbs_errmsg(), ": gadget"),
                   ": gadget schema version '2x', this lbsim reads versions 1 to 2");
  sql(g, "DELETE FROM meta WHERE key = 'version'");
  cr_assert_eq(lbs_db_open(&GADGET, g, &READ, &d), LBS_CORRUPT);
  cr_assert(strstr(lbs_errmsg(), "gadget file without meta 'version'"), "%s", lbs_errmsg());
  free(before), free(p), free(g);
  tu_rmrf(dir);
}

/* ---------------------------------------------------------------- upgrades */

Test(db, an_upgrade_runs_once_when_writing_and_never_when_reading) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "w.db");
  make_v1(p);
  lbs_db *d;
  cr_assert_eq(lbs_db_open(&WIDGET, p, &READ, &d), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_db_version(d), 1, "read as it is");
  lbs_db_close(&d);
  cr_assert_eq(upgrades, 0);
  cr_assert_eq(query(p, "PRAGMA user_version"), 1);
  cr_assert_eq(lbs_db_open(&WIDGET, p, &WRITE, &d), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_db_version(d), 3);
  lbs_db_close(&d);
  cr_assert_eq(upgrades, 1);
  cr_assert_eq(query(p, "PRAGMA user_version"), 3);
  cr_assert_eq(query(p, "SELECT count(*) FROM sqlite_master WHERE name = 'extra'"), 1,
               "step 2's SQL");
  cr_assert_eq(query(p, "SELECT count(*) FROM w WHERE a = 7 AND b = 'old' AND c IS NULL"), 1,
               "rows kept");
  cr_assert_eq(lbs_db_open(&WIDGET, p, &WRITE, &d), LBS_OK, "%s", lbs_errmsg());
  lbs_db_close(&d);
  cr_assert_eq(upgrades, 1, "once");
  /* a new file is made at its schema's version: nothing to upgrade */
  char *q = tu_path(dir, "new.db");
  cr_assert_eq(lbs_db_open(&WIDGET, q, &CREATE, &d), LBS_OK, "%s", lbs_errmsg());
  lbs_db_close(&d);
  cr_assert_eq(upgrades, 1);
  free(p), free(q);
  tu_rmrf(dir);
}

/* Every step of an upgrade is in one transaction: when the last fails, the first's table is
 * not there and the version is the old one. */
Test(db, a_failed_upgrade_leaves_the_file_as_it_was) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "w.db");
  make_v1(p);
  long n;
  char *before = slurp(p, &n);
  lbs_db *d;
  cr_assert_eq(lbs_db_open(&BAD_WIDGET, p, &WRITE, &d), LBS_DB);
  cr_assert(strstr(lbs_errmsg(), "no upgrade today"), "%s", lbs_errmsg());
  cr_assert_null(d);
  unchanged(p, before, n);
  cr_assert_eq(query(p, "SELECT count(*) FROM sqlite_master WHERE name = 'extra'"), 0);
  free(before), free(p);
  tu_rmrf(dir);
}

/* The caller's rows join the opening transaction (keep_tx): lbs_db_finish commits them, or on
 * failure rolls everything back and removes the file the open made. */
Test(db, kept_transactions_and_files_left_empty) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "w.db"), *q = tu_path(dir, "broken.db");
  lbs_db_opts keep = {.mode = LBS_DB_WRITE, .keep_tx = 1};
  lbs_db *d;
  cr_assert_eq(lbs_db_open(&WIDGET, p, &keep, &d), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_db_exec(d, "INSERT INTO w VALUES(1, 'a', 'b')", "w"), LBS_OK);
  cr_assert_eq(lbs_db_finish(&d, lbs_fail(LBS_RANGE, "the caller's failure")), LBS_RANGE);
  cr_assert_null(d);
  cr_assert_neq(access(p, F_OK), 0, "a file made and left empty is removed");
  cr_assert_eq(lbs_db_open(&WIDGET, p, &keep, &d), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_db_exec(d, "INSERT INTO w VALUES(1, 'a', 'b')", "w"), LBS_OK);
  cr_assert_eq(lbs_db_finish(&d, LBS_OK), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(query(p, "SELECT count(*) FROM w"), 1);
  cr_assert_eq(lbs_db_open(&WIDGET, p, &keep, &d), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_db_exec(d, "INSERT INTO w VALUES(2, 'a', 'b')", "w"), LBS_OK);
  cr_assert_eq(lbs_db_finish(&d, LBS_IO), LBS_IO);
  cr_assert_eq(query(p, "SELECT count(*) FROM w"), 1,
               "rolled back, and the file kept: it is not empty");
  cr_assert_eq(lbs_db_open(&BROKEN, q, &WRITE, &d), LBS_DB);
  cr_assert(strstr(lbs_errmsg(), "create: "), "%s", lbs_errmsg());
  cr_assert_neq(access(q, F_OK), 0, "a file made and left empty is removed");
  free(p), free(q);
  tu_rmrf(dir);
}

/* ---------------------------------------------------------------- damage */

/* A damaged table is found by quick_check; a file cut inside a page is refused for writing
 * (a rolled-back write would grow it). */
Test(db, damaged_files) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "w.db");
  lbs_db *d;
  cr_assert_eq(lbs_db_open(&WIDGET, p, &CREATE, &d), LBS_OK, "%s", lbs_errmsg());
  lbs_db_close(&d);
  sql(p, "INSERT INTO w VALUES(1, 'a', 'b'); INSERT INTO w VALUES(2, 'c', 'd')");
  long page = query(p, "PRAGMA page_size"),
       root = query(p, "SELECT rootpage FROM sqlite_master WHERE name = 'w'");
  FILE *f = fopen(p, "r+b");
  unsigned char h[8];
  cr_assert_eq(fseek(f, (root - 1) * page, SEEK_SET), 0);
  cr_assert_eq(fread(h, 1, 8, f), 8);
  unsigned start = ((unsigned)h[5] << 8 | h[6]) + 40; /* cells said to start further up */
  h[5] = (unsigned char)(start >> 8), h[6] = (unsigned char)start;
  cr_assert_eq(fseek(f, (root - 1) * page, SEEK_SET), 0);
  cr_assert_eq(fwrite(h, 1, 8, f), 8);
  fclose(f);
  lbs_db_opts check = {.mode = LBS_DB_READ, .quick_check = 1};
  cr_assert_eq(lbs_db_open(&WIDGET, p, &check, &d), LBS_CORRUPT);
  cr_assert(strstr(lbs_errmsg(), "w.db: a damaged widget store ("), "%s", lbs_errmsg());
  cr_assert_eq(lbs_db_open(&WIDGET, p, &READ, &d), LBS_OK, "without the check: %s", lbs_errmsg());
  lbs_db_close(&d);
  f = fopen(p, "ab");
  fputs("tail", f);
  fclose(f);
  long n;
  char *before = slurp(p, &n);
  cr_assert_eq(lbs_db_open(&WIDGET, p, &WRITE, &d), LBS_CORRUPT);
  cr_assert(strstr(lbs_errmsg(), "not a whole number of"), "%s", lbs_errmsg());
  unchanged(p, before, n);
  free(before), free(p);
  tu_rmrf(dir);
}

/* ---------------------------------------------------------------- errors */

Test(db, sqlite_errors_map_to_lbs_errors) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "t.db"), *txt = tu_path(dir, "t.txt");
  cr_assert_eq(lbs_db_err(NULL, "x.db", "open"), LBS_NOMEM);
  cr_assert_str_eq(lbs_errmsg(), "x.db: open: cannot allocate");
  sqlite3 *db;
  cr_assert_eq(sqlite3_open(p, &db), SQLITE_OK);
  cr_assert_eq(sqlite3_exec(db, "CREATE TABLE t(x NOT NULL)", NULL, NULL, NULL), SQLITE_OK);
  cr_assert_neq(sqlite3_exec(db, "INSERT INTO t VALUES(NULL)", NULL, NULL, NULL), SQLITE_OK);
  cr_assert_eq(lbs_db_err(db, "t.db", "t"), LBS_DB);
  cr_assert_str_eq(lbs_errmsg(), "t.db: t: NOT NULL constraint failed: t.x");
  cr_assert_eq(lbs_db_err(db, "t.db", NULL), LBS_DB);
  cr_assert_str_eq(lbs_errmsg(), "t.db: NOT NULL constraint failed: t.x", "no what");
  sqlite3_close(db);
  cr_assert_eq(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  cr_assert_neq(sqlite3_exec(db, "INSERT INTO t VALUES(1)", NULL, NULL, NULL), SQLITE_OK);
  cr_assert_eq(lbs_db_err(db, "t.db", "t"), LBS_IO, "read-only: %s", lbs_errmsg());
  sqlite3_close(db);
  tu_write(txt, "not a database, but text of some length to look like one........................");
  cr_assert_eq(sqlite3_open(txt, &db), SQLITE_OK);
  cr_assert_neq(sqlite3_exec(db, "SELECT * FROM sqlite_master", NULL, NULL, NULL), SQLITE_OK);
  cr_assert_eq(lbs_db_err(db, "t.txt", "read"), LBS_CORRUPT);
  cr_assert_str_eq(lbs_errmsg(), "t.txt: read: file is damaged (file is not a database)");
  sqlite3_close(db);
  /* a terse kind's messages name the path alone */
  char *q = tu_path(dir, "terse.db"), want[300];
  lbs_db *d;
  cr_assert_eq(lbs_db_open(&TERSE, q, &READ, &d), LBS_IO);
  snprintf(want, sizeof want, "%s: No such file or directory", q);
  cr_assert_str_eq(lbs_errmsg(), want);
  cr_assert_eq(lbs_db_open(&TERSE, q, &CREATE, &d), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_db_exec(d, "INSERT INTO nowhere VALUES(1)", "nowhere"), LBS_DB);
  snprintf(want, sizeof want, "%s: no such table: nowhere", q);
  cr_assert_str_eq(lbs_errmsg(), want);
  lbs_db_close(&d);
  free(p), free(txt), free(q);
  tu_rmrf(dir);
}

/* ---------------------------------------------------------------- rows */

Test(db, rows_of_every_type_go_in_and_the_statement_is_reused) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "r.db");
  lbs_db *d;
  cr_assert_eq(lbs_db_open(&ROWS, p, &CREATE, &d), LBS_OK, "%s", lbs_errmsg());
  sqlite3_stmt *st;
  cr_assert_eq(lbs_db_prepare(d, "INSERT INTO r VALUES(?1, ?2, ?3, ?4, ?5, ?6)", "r", &st), LBS_OK);
  const unsigned char blob[3] = {1, 0, 2};
  char text[8] = "abc";
  for (int k = 0; k < 3; k++) {
    lbs_db_val row[] = {LBS_DB_INT(INT64_C(1) << 40 | k),
                        LBS_DB_REAL(k ? 0.5 : NAN),
                        LBS_DB_FINITE(k ? 2.5 : INFINITY),
                        LBS_DB_TEXT(k ? text : NULL),
                        LBS_DB_BLOB(blob, 3),
                        LBS_DB_NULL};
    cr_assert_eq(lbs_db_row(d, st, "r", row, LBS_DB_COUNT(row)), LBS_OK, "%s", lbs_errmsg());
    text[0]++; /* borrowed only until the row is stepped */
  }
  lbs_db_val two[] = {LBS_DB_INT(1), LBS_DB_INT(2)};
  cr_assert_eq(lbs_db_row(d, st, "r", two, 2), LBS_OK, "unbound parameters are NULL: %s",
               lbs_errmsg());
  lbs_db_val seven[7] = {LBS_DB_NULL};
  cr_assert_eq(lbs_db_row(d, st, "r", seven, 7), LBS_DB, "too many values");
  cr_assert(strstr(lbs_errmsg(), "r.db: r: "), "%s", lbs_errmsg());
  sqlite3_finalize(st);
  lbs_db_val one[] = {LBS_DB_INT(9),    LBS_DB_REAL(1), LBS_DB_REAL(2),
                      LBS_DB_TEXT("z"), LBS_DB_NULL,    LBS_DB_NULL};
  cr_assert_eq(lbs_db_insert(d, "INSERT INTO r VALUES(?1, ?2, ?3, ?4, ?5, ?6)", "r", one, 6),
               LBS_OK);
  cr_assert_eq(lbs_db_insert(d, "INSERT INTO nowhere VALUES(?1)", "nowhere", one, 1), LBS_DB);
  cr_assert(strstr(lbs_errmsg(), "r.db: nowhere: no such table: nowhere"), "%s", lbs_errmsg());
  lbs_db_close(&d);
  cr_assert_eq(query(p, "SELECT count(*) FROM r"), 5);
  cr_assert_eq(query(p, "SELECT count(*) FROM r WHERE i >> 40 = 1 AND b = x'010002' AND n IS NULL"),
               3);
  cr_assert_eq(query(p, "SELECT count(*) FROM r WHERE d IS NULL AND f IS NULL AND t IS NULL AND i "
                        "= 1099511627776"),
               1, "NaN, a non-finite 'f' and a NULL text are NULL");
  cr_assert_eq(query(p, "SELECT count(*) FROM r WHERE d = 0.5 AND f = 2.5 AND t IN ('bbc', 'cbc')"),
               2);
  cr_assert_eq(query(p, "SELECT count(*) FROM r WHERE i = 1 AND d = 2 AND f IS NULL"), 1);
  free(p);
  tu_rmrf(dir);
}

/* A connection handed over to a reader that runs its own SQL (lbs_results_open_read). */
Test(db, detach_hands_the_connection_over) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "w.db");
  lbs_db *d;
  cr_assert_eq(lbs_db_open(&WIDGET, p, &CREATE, &d), LBS_OK, "%s", lbs_errmsg());
  lbs_db_close(&d);
  cr_assert_eq(lbs_db_open(&WIDGET, p, &READ, &d), LBS_OK, "%s", lbs_errmsg());
  sqlite3 *db = lbs_db_detach(&d);
  cr_assert_null(d);
  cr_assert_not_null(db);
  cr_assert_eq(sqlite3_exec(db, "SELECT * FROM w", NULL, NULL, NULL), SQLITE_OK);
  cr_assert_eq(sqlite3_close(db), SQLITE_OK);
  cr_assert_null(lbs_db_detach(&d));
  lbs_db_close(&d); /* NULL-safe */
  cr_assert_eq(lbs_db_finish(&d, LBS_RANGE), LBS_RANGE);
  free(p);
  tu_rmrf(dir);
}

/* ---------------------------------------------------------------- a killed writer */

static void copy_file(const char *from, const char *to) {
  long n;
  char *b = slurp(from, &n);
  FILE *f = fopen(to, "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(b, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  free(b);
}

/* A write killed in the middle, as a pair of files: a store of 3 committed rows is copied to
 * to, with its journal, while a transaction that deleted them and spilled new pages into the
 * file (a cache of a few pages) is still open; the original is then rolled back. */
static void killed_write(const char *dir, const char *to) {
  char *p = tu_path(dir, "live.db"), *pj = tu_path(dir, "live.db-journal"),
       *toj = malloc(strlen(to) + 9);
  sprintf(toj, "%s-journal", to);
  lbs_db *d;
  cr_assert_eq(lbs_db_open(&WIDGET, p, &CREATE, &d), LBS_OK, "%s", lbs_errmsg());
  lbs_db_close(&d);
  sql(p, "INSERT INTO w VALUES(1, 'a', 'b'), (2, 'c', 'd'), (3, 'e', 'f')");
  sqlite3 *db;
  cr_assert_eq(sqlite3_open(p, &db), SQLITE_OK);
  cr_assert_eq(sqlite3_exec(db,
                            "PRAGMA cache_size=2; BEGIN; DELETE FROM w;"
                            "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k "
                            "WHERE i < 400) INSERT INTO w SELECT i, hex(randomblob(1000)), '' "
                            "FROM k",
                            NULL, NULL, NULL),
               SQLITE_OK, "%s", sqlite3_errmsg(db));
  copy_file(p, to);
  copy_file(pj, toj);
  sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_close(db);
  struct stat sb;
  cr_assert(stat(to, &sb) == 0 && sb.st_size > 100 * 1024, "pages were spilled into the file");
  unlink(p);
  free(p), free(pj), free(toj);
}

/* Reading a killed write's file rolls its journal back (SQLite does it on a read-write
 * connection, never on a read-only one): the committed rows are read, the journal is gone;
 * even when the file's first page was torn ("not an SQLite file" until it is rolled back). */
Test(db, a_killed_write_is_rolled_back_when_read) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "k.db"), *j = tu_path(dir, "k.db-journal");
  for (int torn = 0; torn < 2; torn++) {
    killed_write(dir, p);
    if (torn) {
      FILE *f = fopen(p, "r+b");
      cr_assert_not_null(f);
      fputs("torn torn torn torn torn", f);
      fclose(f);
    }
    lbs_db *d;
    cr_assert_eq(lbs_db_open(&WIDGET, p, &READ, &d), LBS_OK, "torn %d: %s", torn, lbs_errmsg());
    lbs_db_close(&d);
    cr_assert_eq(query(p, "SELECT count(*) FROM w"), 3, "the committed rows, no more");
    cr_assert_eq(query(p, "SELECT count(*) FROM w WHERE a + 0 < 4 AND b IN ('a', 'c', 'e')"), 3);
    cr_assert_neq(access(j, F_OK), 0, "the journal was played back and removed");
    unlink(p);
  }
  free(p), free(j);
  tu_rmrf(dir);
}

/* Where the file may not be written, the journal cannot be rolled back: the message says what
 * is wrong and how to mend it, and both files are left as they are. (Permission bits do not
 * stop root: as root this part is skipped.) */
Test(db, a_killed_write_that_cannot_be_rolled_back_is_named) {
  if (geteuid() == 0) cr_skip_test("root writes a read-only file");
  char *dir = tu_tmpdir(), *p = tu_path(dir, "k.db"), *j = tu_path(dir, "k.db-journal");
  killed_write(dir, p);
  cr_assert_eq(chmod(p, 0444), 0);
  long n, nj;
  char *before = slurp(p, &n), *before_j = slurp(j, &nj);
  lbs_db *d;
  cr_assert_eq(lbs_db_open(&TERSE, p, &READ, &d), LBS_IO);
  char want[512];
  snprintf(want, sizeof want,
           "%s: an interrupted write left %s-journal; open it writable once (any lbsim command "
           "that writes it) to recover",
           p, p);
  cr_assert_str_eq(lbs_errmsg(), want);
  unchanged(p, before, n);
  unchanged(j, before_j, nj);
  free(before), free(before_j), free(p), free(j);
  tu_rmrf(dir);
}

/* A file named like a journal that is not SQLite's is not played back, nor removed: the file
 * beside it is refused for what it is. */
Test(db, a_file_named_like_a_journal_is_left_alone) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "notes.db"), *j = tu_path(dir, "notes.db-journal");
  tu_write(p, "not a database, but text of some length to look like one........................");
  tu_write(j, "my journal, dear diary");
  lbs_db *d;
  cr_assert_eq(lbs_db_open(&WIDGET, p, &READ, &d), LBS_FORMAT);
  cr_assert(strstr(lbs_errmsg(), "(not an SQLite file)"), "%s", lbs_errmsg());
  long n;
  char *b = slurp(j, &n);
  cr_assert(n == 22 && !memcmp(b, "my journal, dear diary", 22), "the journal is as it was");
  free(b), free(p), free(j);
  tu_rmrf(dir);
}
