/* db.c - the calibration database: one SQLite file of runs, IPGs with their samples, and
 * verifications (the schema is in lbs_calib.h and SCHEMA below).
 *
 * meta('format') = 'lbsim-calibration' and meta('schema') = LBS_CALIB_SCHEMA identify the file
 * (PRAGMA application_id 'LBSC' marks it too, as 'LBST' marks a trace). Point, sample and
 * verification blobs are little-endian doubles, (w, t) pairs (verifications: (w, measured,
 * predicted) triples), each with its CRC-32 beside it, checked on every read. Every write is
 * its own transaction: a process killed at any moment leaves every IPG it had put. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lbs_calib.h"
#include "lbs_db.h"
#include "lbs_json.h"
#include "lbs_plan.h"

#ifndef LBSIM_VERSION
#define LBSIM_VERSION "unknown" /* calibrate/CMakeLists.txt passes PROJECT_VERSION */
#endif

#define CALIB_APP_ID 0x4C425343 /* 'LBSC' */
#define CALIB_FORMAT "lbsim-calibration"
#define BUSY_MS 10000 /* another process writing: wait this long for it */

static const char SCHEMA[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE runs(id INTEGER PRIMARY KEY, started TEXT NOT NULL, command TEXT NOT NULL, machine TEXT);"
    "CREATE TABLE ipgs(id INTEGER PRIMARY KEY, run_id INTEGER REFERENCES runs(id), impl TEXT NOT NULL,"
    " kernel TEXT NOT NULL, device TEXT NOT NULL, metric TEXT NOT NULL, lo REAL, hi REAL,"
    " status TEXT NOT NULL CHECK(status IN ('complete', 'partial', 'failed')), message TEXT NOT NULL,"
    " created TEXT NOT NULL, seconds REAL, params TEXT, npoints INTEGER NOT NULL, points BLOB NOT NULL,"
    " points_crc INTEGER NOT NULL, nsamples INTEGER NOT NULL, samples BLOB NOT NULL,"
    " samples_crc INTEGER NOT NULL);"
    "CREATE INDEX ipgs_impl ON ipgs(impl, device, status);"
    "CREATE TABLE verifies(id INTEGER PRIMARY KEY, ipg_id INTEGER NOT NULL REFERENCES ipgs(id),"
    " created TEXT NOT NULL, n INTEGER NOT NULL, floor_s REAL, mean_err REAL, rms_err REAL, max_err REAL,"
    " mean_err_floor REAL, points BLOB NOT NULL, points_crc INTEGER NOT NULL);";

/* Schema 2 added RACECAR plans (STEPS below): a new database is made as version 1, then gets
 * these tables as a version 1 file opened for writing does. */
static const char PLAN_SCHEMA[] =
    "CREATE TABLE plans(id INTEGER PRIMARY KEY, created TEXT NOT NULL, command TEXT NOT NULL, kernel TEXT NOT NULL,"
    " threads INTEGER NOT NULL, devices TEXT NOT NULL, hi REAL NOT NULL, template TEXT NOT NULL, ovh_s REAL NOT NULL,"
    " ovh_per_work_s REAL NOT NULL, plan_s REAL, nsplit INTEGER NOT NULL, splits BLOB NOT NULL,"
    " splits_crc INTEGER NOT NULL);"
    "CREATE TABLE plan_impls(plan_id INTEGER NOT NULL REFERENCES plans(id), idx INTEGER NOT NULL, impl TEXT NOT NULL,"
    " device TEXT NOT NULL, threads INTEGER NOT NULL, devmask INTEGER NOT NULL, ipg_id INTEGER,"
    " PRIMARY KEY(plan_id, idx));"
    "CREATE TABLE plan_graphs(plan_id INTEGER NOT NULL REFERENCES plans(id), ws INTEGER NOT NULL,"
    " kind TEXT NOT NULL CHECK(kind IN ('fpg', 'pg')), npieces INTEGER NOT NULL, pieces BLOB NOT NULL,"
    " pieces_crc INTEGER NOT NULL, PRIMARY KEY(plan_id, ws, kind));";

static const char *IPG_COLS =
    "SELECT id, run_id, impl, kernel, device, metric, lo, hi, status, message, created, seconds, params,"
    " npoints, points, points_crc, nsamples, samples, samples_crc FROM ipgs";

struct lbs_calib_db {
  lbs_db *d;
  sqlite3 *db;      /* lbs_db_sqlite(d) */
  const char *path; /* lbs_db_path(d), for messages */
  int schema;       /* the file's schema version (1: no plans) */
};

/* ================================================================ helpers */

/* ISO 8601 UTC, second resolution. */
static void iso_now(char *buf, size_t n) {
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Copies column i (text, possibly NULL) into a fixed field, truncating. */
static void col_copy(sqlite3_stmt *st, int i, char *dst, size_t n) {
  const char *s = (const char *)sqlite3_column_text(st, i);
  snprintf(dst, n, "%s", s ? s : "");
}

/* A REAL column; NULL (how SQLite keeps a NaN) reads as NaN. */
static double col_double(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int field_ok(const char *s, size_t n) { return memchr(s, '\0', n) != NULL; }

/* ---------------------------------------------------------------- blobs
 * k doubles per record, n records, little-endian whatever the host. */

static void put_le(uint8_t *p, double v) {
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(u >> (8 * i));
}

static double get_le(const uint8_t *p) {
  uint64_t u = 0;
  for (int i = 0; i < 8; i++) u |= (uint64_t)p[i] << (8 * i);
  double v;
  memcpy(&v, &u, sizeof v);
  return v;
}

/* cols[j][i]: column j of record i. *blob owned by the caller (never NULL on success). */
static lbs_err encode(int n, int k, const double *const *cols, uint8_t **blob, size_t *bytes) {
  *bytes = (size_t)n * (size_t)k * 8;
  *blob = malloc(*bytes ? *bytes : 1);
  if (!*blob) return lbs_fail(LBS_NOMEM, "calibration blob of %d records", n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < k; j++) put_le(*blob + ((size_t)i * (size_t)k + (size_t)j) * 8, cols[j][i]);
  return LBS_OK;
}

/* Decodes and checks the blob in columns bcol (data) and bcol+1 (CRC) of st against n records
 * of k doubles into cols[j] (each malloc'ed, n >= 1 entries; NULL when n is 0). where names the
 * row for messages. */
static lbs_err decode(lbs_calib_db *c, sqlite3_stmt *st, int bcol, int64_t n, int k,
                      const char *where, const char *what, double **cols[]) {
  const uint8_t *b = sqlite3_column_blob(st, bcol);
  size_t bytes = (size_t)sqlite3_column_bytes(st, bcol);
  uint32_t crc = (uint32_t)sqlite3_column_int64(st, bcol + 1);
  for (int j = 0; j < k; j++) *cols[j] = NULL;
  if (n < 0 || n > INT32_MAX || bytes != (size_t)n * (size_t)k * 8)
    return lbs_fail(LBS_CORRUPT, "%s: %s: %s: %zu bytes for %lld records of %d doubles", c->path,
                    where, what, bytes, (long long)n, k);
  if (sqlite3_column_type(st, bcol + 1) != SQLITE_INTEGER ||
      crc != lbs_crc32(b ? (const void *)b : "", bytes))
    return lbs_fail(LBS_CORRUPT, "%s: %s: %s: checksum mismatch", c->path, where, what);
  if (n == 0) return LBS_OK;
  for (int j = 0; j < k; j++) {
    *cols[j] = malloc((size_t)n * sizeof **cols[j]);
    if (!*cols[j]) {
      for (int q = 0; q <= j; q++) {
        free(*cols[q]);
        *cols[q] = NULL;
      }
      return lbs_fail(LBS_NOMEM, "%s: %s: %s", c->path, where, what);
    }
    for (int64_t i = 0; i < n; i++)
      (*cols[j])[i] = get_le(b + ((size_t)i * (size_t)k + (size_t)j) * 8);
  }
  return LBS_OK;
}

/* Bounded message building (lbs_fail keeps 1023 characters): appends, marks a cut with "...". */
typedef struct msgbuf {
  char s[1024];
  size_t len;
} msgbuf;

static void msg_add(msgbuf *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void msg_add(msgbuf *m, const char *fmt, ...) {
  if (m->len >= sizeof m->s - 1) return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(m->s + m->len, sizeof m->s - m->len, fmt, ap);
  va_end(ap);
  if (k < 0) return;
  if ((size_t)k >= sizeof m->s - m->len) {
    m->len = sizeof m->s - 1;
    memcpy(m->s + sizeof m->s - 4, "...", 4);
  } else {
    m->len += (size_t)k;
  }
}

/* ================================================================ open and close */

/* A calibration database is known by meta('format') (its application_id is set, but files
 * were always told by their format): one without a meta table, or of another format, is not
 * one. A meta table without key and value columns is not ours either. */
static lbs_err identify(lbs_db *d) {
  sqlite3 *db = lbs_db_sqlite(d);
  const char *path = lbs_db_path(d);
  sqlite3_stmt *st;
  lbs_err e =
      lbs_db_prepare(d, "SELECT count(*) FROM sqlite_master WHERE name = 'meta'", "open", &st);
  if (e) return e;
  int has_meta = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
  sqlite3_finalize(st);
  if (!has_meta)
    return lbs_fail(LBS_FORMAT, "%s: an SQLite file but not an lbsim calibration database", path);
  if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'format'", -1, &st, NULL))
    return lbs_fail(LBS_FORMAT, "%s: an SQLite file but not an lbsim calibration database (%s)",
                    path, sqlite3_errmsg(db));
  char v[128] = "";
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW)
    col_copy(st, 0, v, sizeof v);
  else if (rc != SQLITE_DONE)
    e = lbs_db_fail(d, "meta");
  sqlite3_finalize(st);
  if (!e && (rc != SQLITE_ROW || strcmp(v, CALIB_FORMAT)))
    e = lbs_fail(LBS_FORMAT,
                 "%s: an SQLite file but not an lbsim calibration database (format '%s')", path,
                 rc == SQLITE_ROW ? v : "(none)");
  return e;
}

/* A new database's meta rows beside its version: format, when it was made, by which lbsim. */
static lbs_err on_create(lbs_db *d) {
  char created[32];
  iso_now(created, sizeof created);
  const char *const meta[][2] = {
      {"format", CALIB_FORMAT}, {"created", created}, {"lbsim", LBSIM_VERSION}};
  lbs_err e = LBS_OK;
  for (size_t i = 0; !e && i < sizeof meta / sizeof *meta; i++) {
    lbs_db_val row[] = {LBS_DB_TEXT(meta[i][0]), LBS_DB_TEXT(meta[i][1])};
    e = lbs_db_insert(d, "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)", "meta", row,
                      LBS_DB_COUNT(row));
  }
  return e;
}

/* Schema 2 added RACECAR plans: a version 1 file opened for writing gets their tables. */
static const lbs_db_step STEPS[] = {{2, PLAN_SCHEMA, NULL}};

/* A calibration database: the version in meta('schema'). */
static const lbs_db_kind CALIB = {
    .what = "calibration database",
    .a_what = "a calibration database",
    .schema_name = "calibration",
    .app_id = CALIB_APP_ID,
    .identify = identify,
    .version = LBS_CALIB_SCHEMA,
    .oldest = 1,
    .meta_key = "schema",
    .schema = SCHEMA,
    .schema_version = 1,
    .on_create = on_create,
    .steps = STEPS,
    .nsteps = sizeof STEPS / sizeof *STEPS,
    .rw_reader = 1, /* read-only only where it cannot be written */
};

lbs_err lbs_calib_open(const char *path, int create, lbs_calib_db **out) {
  *out = NULL;
  lbs_calib_db *c = calloc(1, sizeof *c);
  if (!c) return lbs_fail(LBS_NOMEM, "%s: calibration database", path ? path : "");
  /* a damaged b-tree can take inserts without complaint and lose what was there: the quick
   * check refuses it */
  lbs_db_opts o = {
      .mode = create ? LBS_DB_WRITE : LBS_DB_READ, .busy_ms = BUSY_MS, .quick_check = 1};
  lbs_err e = lbs_db_open(&CALIB, path, &o, &c->d);
  if (e) {
    free(c);
    return e;
  }
  c->db = lbs_db_sqlite(c->d);
  c->path = lbs_db_path(c->d);
  c->schema = lbs_db_version(c->d);
  *out = c;
  return LBS_OK;
}

void lbs_calib_close(lbs_calib_db **db) {
  if (!db || !*db) return;
  lbs_db_close(&(*db)->d);
  free(*db);
  *db = NULL;
}

/* ================================================================ writing */

lbs_err lbs_calib_begin_run(lbs_calib_db *db, const char *command, const char *machine_json,
                            int64_t *run_id) {
  char started[32];
  iso_now(started, sizeof started);
  lbs_db_val row[] = {LBS_DB_TEXT(started), LBS_DB_TEXT(command ? command : ""),
                      LBS_DB_TEXT(machine_json)};
  lbs_err e = lbs_db_insert(db->d, "INSERT INTO runs(started, command, machine) VALUES(?1, ?2, ?3)",
                            "runs", row, LBS_DB_COUNT(row));
  if (e) return e;
  if (run_id) *run_id = sqlite3_last_insert_rowid(db->db);
  return LBS_OK;
}

/* 1 when a row of table has this id. */
static lbs_err row_exists(lbs_calib_db *c, const char *sql, int64_t id, int *yes) {
  sqlite3_stmt *st;
  *yes = 0;
  if (sqlite3_prepare_v2(c->db, sql, -1, &st, NULL)) return lbs_db_fail(c->d, "lookup");
  sqlite3_bind_int64(st, 1, id);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return lbs_db_fail(c->d, "lookup");
  *yes = rc == SQLITE_ROW;
  return LBS_OK;
}

/* What put_ipg refuses before writing anything. */
static lbs_err check_rec(const lbs_calib_db *c, const lbs_ipg_rec *r) {
  if (!field_ok(r->impl, sizeof r->impl) || !field_ok(r->kernel, sizeof r->kernel) ||
      !field_ok(r->device, sizeof r->device) || !field_ok(r->metric, sizeof r->metric) ||
      !field_ok(r->status, sizeof r->status) || !field_ok(r->message, sizeof r->message) ||
      !field_ok(r->created, sizeof r->created))
    return lbs_fail(LBS_INVAL, "%s: IPG record: a text field is not terminated", c->path);
  if (!r->impl[0]) return lbs_fail(LBS_INVAL, "%s: IPG record without an implementation", c->path);
  int complete = !strcmp(r->status, "complete");
  if (!complete && strcmp(r->status, "partial") && strcmp(r->status, "failed"))
    return lbs_fail(LBS_INVAL, "%s: IPG of %s: status '%s' (expected complete, partial or failed)",
                    c->path, r->impl, r->status);
  if (r->ipg.n < 0 || r->nsamples < 0 || (r->ipg.n > 0 && (!r->ipg.w || !r->ipg.t)) ||
      (r->nsamples > 0 && !r->samples))
    return lbs_fail(LBS_INVAL, "%s: IPG of %s: bad point or sample arrays", c->path, r->impl);
  if (complete && r->ipg.n < 1)
    return lbs_fail(LBS_INVAL, "%s: a complete IPG of %s without points", c->path, r->impl);
  for (int i = 0; i < r->ipg.n; i++)
    if (!isfinite(r->ipg.w[i]) || !isfinite(r->ipg.t[i]) ||
        (i > 0 && r->ipg.w[i] < r->ipg.w[i - 1]))
      return lbs_fail(LBS_RANGE,
                      "%s: IPG of %s: point %d (%g, %g) is not finite or not in ascending metric",
                      c->path, r->impl, i, r->ipg.w[i], r->ipg.t[i]);
  for (int i = 0; i < r->nsamples; i++)
    if (!isfinite(r->samples[i].w) || !isfinite(r->samples[i].t))
      return lbs_fail(LBS_RANGE, "%s: IPG of %s: sample %d is not finite", c->path, r->impl, i);
  return LBS_OK;
}

lbs_err lbs_calib_put_ipg(lbs_calib_db *db, lbs_ipg_rec *r) {
  lbs_err e = check_rec(db, r);
  if (e) return e;
  if (r->run_id > 0) {
    int yes;
    if ((e = row_exists(db, "SELECT 1 FROM runs WHERE id = ?1", r->run_id, &yes))) return e;
    if (!yes)
      return lbs_fail(LBS_NOTFOUND, "%s: IPG of %s: run %lld is not in the database", db->path,
                      r->impl, (long long)r->run_id);
  }
  if (!r->kernel[0]) { /* "sort.cpu" -> "sort" */
    size_t k = strcspn(r->impl, ".");
    snprintf(r->kernel, sizeof r->kernel, "%.*s", (int)k, r->impl);
  }
  if (!r->created[0]) iso_now(r->created, sizeof r->created);
  uint8_t *pts = NULL, *smp = NULL;
  size_t npts_b, nsmp_b;
  double *sw = NULL, *stt = NULL;
  if (r->nsamples > 0) {
    sw = malloc((size_t)r->nsamples * sizeof *sw);
    stt = malloc((size_t)r->nsamples * sizeof *stt);
    if (!sw || !stt)
      e = lbs_fail(LBS_NOMEM, "%s: IPG of %s: %d samples", db->path, r->impl, r->nsamples);
    for (int i = 0; !e && i < r->nsamples; i++) {
      sw[i] = r->samples[i].w;
      stt[i] = r->samples[i].t;
    }
  }
  const double *pcols[2] = {r->ipg.w, r->ipg.t}, *scols[2] = {sw, stt};
  if (!e) e = encode(r->ipg.n, 2, pcols, &pts, &npts_b);
  if (!e) e = encode(r->nsamples, 2, scols, &smp, &nsmp_b);
  free(sw);
  free(stt);
  if (!e) {
    lbs_db_val row[] = {r->run_id > 0 ? LBS_DB_INT(r->run_id) : LBS_DB_NULL,
                        LBS_DB_TEXT(r->impl),
                        LBS_DB_TEXT(r->kernel),
                        LBS_DB_TEXT(r->device),
                        LBS_DB_TEXT(r->metric),
                        LBS_DB_REAL(r->lo),
                        LBS_DB_REAL(r->hi),
                        LBS_DB_TEXT(r->status),
                        LBS_DB_TEXT(r->message),
                        LBS_DB_TEXT(r->created),
                        LBS_DB_REAL(r->seconds),
                        LBS_DB_TEXT(r->params),
                        LBS_DB_INT(r->ipg.n),
                        LBS_DB_BLOB(pts, npts_b),
                        LBS_DB_INT(lbs_crc32(pts, npts_b)),
                        LBS_DB_INT(r->nsamples),
                        LBS_DB_BLOB(smp, nsmp_b),
                        LBS_DB_INT(lbs_crc32(smp, nsmp_b))};
    /* a transaction of its own: the IPG and its id, or nothing */
    if (!(e = lbs_db_begin(db->d, "ipgs")))
      e = lbs_db_insert(
          db->d,
          "INSERT INTO ipgs(run_id, impl, kernel, device, metric, lo, hi, status, message, created,"
          " seconds, params, npoints, points, points_crc, nsamples, samples, samples_crc)"
          " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
          " ?18)",
          "ipgs", row, LBS_DB_COUNT(row));
    int64_t id = sqlite3_last_insert_rowid(db->db);
    if (!e) e = lbs_db_commit(db->d, "ipgs");
    if (e)
      lbs_db_rollback(db->d);
    else
      r->id = id;
  }
  free(pts);
  free(smp);
  return e;
}

lbs_err lbs_calib_put_verify(lbs_calib_db *db, int64_t ipg_id, const lbs_verify *v) {
  if (v->n < 0 || (v->n > 0 && (!v->points || !v->pred)))
    return lbs_fail(LBS_INVAL, "%s: verification of IPG %lld: bad point arrays", db->path,
                    (long long)ipg_id);
  int yes;
  lbs_err e = row_exists(db, "SELECT 1 FROM ipgs WHERE id = ?1", ipg_id, &yes);
  if (e) return e;
  if (!yes)
    return lbs_fail(LBS_NOTFOUND, "%s: verification of IPG %lld: no such IPG", db->path,
                    (long long)ipg_id);
  double *w = malloc(((size_t)v->n + 1) * sizeof *w), *t = malloc(((size_t)v->n + 1) * sizeof *t);
  uint8_t *blob = NULL;
  size_t bytes = 0;
  if (!w || !t)
    e = lbs_fail(LBS_NOMEM, "%s: verification of IPG %lld", db->path, (long long)ipg_id);
  for (int i = 0; !e && i < v->n; i++) {
    w[i] = v->points[i].w;
    t[i] = v->points[i].t;
  }
  const double *cols[3] = {w, t, v->pred};
  if (!e) e = encode(v->n, 3, cols, &blob, &bytes);
  free(w);
  free(t);
  if (!e) {
    char created[32];
    iso_now(created, sizeof created);
    lbs_db_val row[] = {LBS_DB_INT(ipg_id),       LBS_DB_TEXT(created),
                        LBS_DB_INT(v->n),         LBS_DB_REAL(v->floor_s),
                        LBS_DB_REAL(v->mean_err), LBS_DB_REAL(v->rms_err),
                        LBS_DB_REAL(v->max_err),  LBS_DB_REAL(v->mean_err_floor),
                        LBS_DB_BLOB(blob, bytes), LBS_DB_INT(lbs_crc32(blob, bytes))};
    e = lbs_db_insert(
        db->d,
        "INSERT INTO verifies(ipg_id, created, n, floor_s, mean_err, rms_err, max_err,"
        " mean_err_floor, points, points_crc) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        "verifies", row, LBS_DB_COUNT(row));
  }
  free(blob);
  return e;
}

/* ================================================================ reading */

void lbs_ipg_rec_free(lbs_ipg_rec *r) {
  if (!r) return;
  free(r->params);
  lbs_ipg_free(&r->ipg);
  free(r->samples);
  memset(r, 0, sizeof *r);
}

void lbs_verify_free(lbs_verify *v) {
  if (!v) return;
  free(v->points);
  free(v->pred);
  memset(v, 0, sizeof *v);
}

/* One row of IPG_COLS into r (zeroed first; freed again on an error). */
static lbs_err read_ipg(lbs_calib_db *c, sqlite3_stmt *st, lbs_ipg_rec *r) {
  memset(r, 0, sizeof *r);
  r->id = sqlite3_column_int64(st, 0);
  r->run_id = sqlite3_column_int64(st, 1);
  col_copy(st, 2, r->impl, sizeof r->impl);
  col_copy(st, 3, r->kernel, sizeof r->kernel);
  col_copy(st, 4, r->device, sizeof r->device);
  col_copy(st, 5, r->metric, sizeof r->metric);
  r->lo = col_double(st, 6);
  r->hi = col_double(st, 7);
  col_copy(st, 8, r->status, sizeof r->status);
  col_copy(st, 9, r->message, sizeof r->message);
  col_copy(st, 10, r->created, sizeof r->created);
  r->seconds = col_double(st, 11);
  const char *params = (const char *)sqlite3_column_text(st, 12);
  if (params && !(r->params = strdup(params)))
    return lbs_fail(LBS_NOMEM, "%s: ipgs row %lld", c->path, (long long)r->id);
  char where[128];
  snprintf(where, sizeof where, "ipgs row %lld (%s)", (long long)r->id, r->impl);
  int64_t np = sqlite3_column_int64(st, 13), ns = sqlite3_column_int64(st, 16);
  double *sw = NULL, *stt = NULL;
  double **pc[2] = {&r->ipg.w, &r->ipg.t}, **sc[2] = {&sw, &stt};
  lbs_err e = decode(c, st, 14, np, 2, where, "points", pc);
  if (!e) {
    r->ipg.n = (int)np;
    e = decode(c, st, 17, ns, 2, where, "samples", sc);
  }
  if (!e && ns > 0) {
    r->samples = malloc((size_t)ns * sizeof *r->samples);
    if (!r->samples) e = lbs_fail(LBS_NOMEM, "%s: %s: samples", c->path, where);
    for (int64_t i = 0; !e && i < ns; i++) r->samples[i] = (lbs_sample){sw[i], stt[i]};
    if (!e) r->nsamples = (int)ns;
  }
  free(sw);
  free(stt);
  if (e) lbs_ipg_rec_free(r);
  return e;
}

/* Every row a statement gives, read by fn into a growing array of size-byte records. */
typedef lbs_err (*read_row_fn)(lbs_calib_db *c, sqlite3_stmt *st, void *rec);
typedef void (*free_rec_fn)(void *rec);

static lbs_err read_all(lbs_calib_db *c, sqlite3_stmt *st, size_t size, read_row_fn fn,
                        free_rec_fn fr, const char *what, void **out, int *n) {
  char *arr = NULL;
  int cnt = 0, cap = 0, rc = SQLITE_DONE;
  lbs_err e = LBS_OK;
  while (!e && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (cnt == cap) {
      int ncap = cap ? 2 * cap : 8;
      char *a = realloc(arr, (size_t)ncap * size);
      if (!a) {
        e = lbs_fail(LBS_NOMEM, "%s: %s", c->path, what);
        break;
      }
      arr = a;
      cap = ncap;
    }
    if (!(e = fn(c, st, arr + (size_t)cnt * size))) cnt++;
  }
  if (!e && rc != SQLITE_DONE) e = lbs_db_fail(c->d, what);
  if (e) {
    for (int i = 0; i < cnt; i++) fr(arr + (size_t)i * size);
    free(arr);
    return e;
  }
  *out = arr;
  *n = cnt;
  return LBS_OK;
}

static lbs_err read_ipg_row(lbs_calib_db *c, sqlite3_stmt *st, void *rec) {
  return read_ipg(c, st, rec);
}
static void free_ipg_rec(void *rec) { lbs_ipg_rec_free(rec); }

lbs_err lbs_calib_list(lbs_calib_db *db, lbs_ipg_rec **recs, int *n) {
  *recs = NULL;
  *n = 0;
  char sql[512];
  snprintf(sql, sizeof sql, "%s ORDER BY id", IPG_COLS);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db->db, sql, -1, &st, NULL)) return lbs_db_fail(db->d, "ipgs");
  void *arr = NULL;
  lbs_err e = read_all(db, st, sizeof(lbs_ipg_rec), read_ipg_row, free_ipg_rec, "ipgs", &arr, n);
  sqlite3_finalize(st);
  if (!e) *recs = arr;
  return e;
}

static lbs_err read_verify_row(lbs_calib_db *c, sqlite3_stmt *st, void *rec) {
  lbs_verify *v = rec;
  memset(v, 0, sizeof *v);
  v->id = sqlite3_column_int64(st, 0);
  v->ipg_id = sqlite3_column_int64(st, 1);
  col_copy(st, 2, v->created, sizeof v->created);
  int64_t n = sqlite3_column_int64(st, 3);
  v->floor_s = col_double(st, 4);
  v->mean_err = col_double(st, 5);
  v->rms_err = col_double(st, 6);
  v->max_err = col_double(st, 7);
  v->mean_err_floor = col_double(st, 8);
  char where[64];
  snprintf(where, sizeof where, "verifies row %lld", (long long)v->id);
  double *w = NULL, *t = NULL;
  double **cols[3] = {&w, &t, &v->pred};
  lbs_err e = decode(c, st, 9, n, 3, where, "points", cols);
  if (!e && n > 0) {
    v->points = malloc((size_t)n * sizeof *v->points);
    if (!v->points) e = lbs_fail(LBS_NOMEM, "%s: %s", c->path, where);
    for (int64_t i = 0; !e && i < n; i++) v->points[i] = (lbs_sample){w[i], t[i]};
  }
  if (!e) v->n = (int)n;
  free(w);
  free(t);
  if (e) lbs_verify_free(v);
  return e;
}
static void free_verify_rec(void *rec) { lbs_verify_free(rec); }

lbs_err lbs_calib_list_verifies(lbs_calib_db *db, int64_t ipg_id, lbs_verify **v, int *n) {
  *v = NULL;
  *n = 0;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(
          db->db,
          "SELECT id, ipg_id, created, n, floor_s, mean_err, rms_err, max_err, mean_err_floor, points,"
          " points_crc FROM verifies WHERE ?1 = 0 OR ipg_id = ?1 ORDER BY id",
          -1, &st, NULL))
    return lbs_db_fail(db->d, "verifies");
  sqlite3_bind_int64(st, 1, ipg_id);
  void *arr = NULL;
  lbs_err e =
      read_all(db, st, sizeof(lbs_verify), read_verify_row, free_verify_rec, "verifies", &arr, n);
  sqlite3_finalize(st);
  if (!e) *v = arr;
  return e;
}

/* The devices with a complete IPG of impl, "'a', 'b'" into m; *count of them; the only one
 * into only (when exactly one). */
static lbs_err devices_of(lbs_calib_db *c, const char *impl, msgbuf *m, int *count, char *only,
                          size_t n) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(
          c->db,
          "SELECT device FROM ipgs WHERE impl = ?1 AND status = 'complete' GROUP BY device"
          " ORDER BY min(id)",
          -1, &st, NULL))
    return lbs_db_fail(c->d, "ipgs");
  sqlite3_bind_text(st, 1, impl, -1, SQLITE_STATIC);
  int rc;
  *count = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *d = (const char *)sqlite3_column_text(st, 0);
    msg_add(m, "%s'%s'", (*count)++ ? ", " : "", d ? d : "");
    if (*count == 1) col_copy(st, 0, only, n);
  }
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? LBS_OK : lbs_db_fail(c->d, "ipgs");
}

/* LBS_NOTFOUND for impl (on device, when not NULL): what the database holds, complete, and the
 * partial or failed IPGs of impl with their messages. */
static lbs_err not_found(lbs_calib_db *c, const char *impl, const char *device) {
  msgbuf m = {.len = 0};
  m.s[0] = '\0';
  msg_add(&m, "%s: no complete IPG of '%s'", c->path, impl);
  if (device) msg_add(&m, " on '%s'", device);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(
          c->db,
          "SELECT impl, device, count(*) FROM ipgs WHERE status = 'complete' GROUP BY impl, device"
          " ORDER BY min(id)",
          -1, &st, NULL))
    return lbs_db_fail(c->d, "ipgs");
  int k = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *i = (const char *)sqlite3_column_text(st, 0),
               *d = (const char *)sqlite3_column_text(st, 1);
    msg_add(&m, "%s'%s' on '%s'", k++ ? ", " : "; the database holds ", i ? i : "", d ? d : "");
  }
  sqlite3_finalize(st);
  if (!k) msg_add(&m, "; the database holds no complete IPG");
  if (sqlite3_prepare_v2(
          c->db,
          "SELECT id, device, status, message FROM ipgs WHERE impl = ?1 AND status <> 'complete'"
          " AND (?2 IS NULL OR device = ?2) ORDER BY id DESC",
          -1, &st, NULL))
    return lbs_db_fail(c->d, "ipgs");
  sqlite3_bind_text(st, 1, impl, -1, SQLITE_STATIC);
  if (device) sqlite3_bind_text(st, 2, device, -1, SQLITE_STATIC);
  k = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *d = (const char *)sqlite3_column_text(st, 1),
               *s = (const char *)sqlite3_column_text(st, 2),
               *msg = (const char *)sqlite3_column_text(st, 3);
    msg_add(&m, "%s#%lld %s on '%s'%s%s",
            k++ ? "; " : "; not complete: ", (long long)sqlite3_column_int64(st, 0), s ? s : "",
            d ? d : "", msg && *msg ? ": " : "", msg && *msg ? msg : "");
  }
  sqlite3_finalize(st);
  return lbs_fail(LBS_NOTFOUND, "%s", m.s);
}

lbs_err lbs_calib_get(lbs_calib_db *db, const char *impl, const char *device, lbs_ipg_rec *out) {
  memset(out, 0, sizeof *out);
  if (!impl || !*impl) return lbs_fail(LBS_INVAL, "%s: which implementation?", db->path);
  char only[sizeof out->device];
  lbs_err e;
  if (!device || !*device) {
    msgbuf m = {.len = 0};
    m.s[0] = '\0';
    int count = 0;
    if ((e = devices_of(db, impl, &m, &count, only, sizeof only))) return e;
    if (count == 0) return not_found(db, impl, NULL);
    if (count > 1)
      return lbs_fail(LBS_INVAL, "%s: '%s' has complete IPGs on %d devices (%s): name one",
                      db->path, impl, count, m.s);
    device = only;
  }
  char sql[512];
  snprintf(sql, sizeof sql,
           "%s WHERE impl = ?1 AND device = ?2 AND status = 'complete' ORDER BY id DESC LIMIT 1",
           IPG_COLS);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db->db, sql, -1, &st, NULL)) return lbs_db_fail(db->d, "ipgs");
  sqlite3_bind_text(st, 1, impl, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, device, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW)
    e = read_ipg(db, st, out);
  else if (rc == SQLITE_DONE)
    e = not_found(db, impl, device);
  else
    e = lbs_db_fail(db->d, "ipgs");
  sqlite3_finalize(st);
  return e;
}

/* ================================================================ JSON export
 * Through jansson (core/lbs_json.h): text as valid UTF-8 (a bad byte as U+FFFD), every number
 * with 17 significant digits so that it reads back as the same double, NaN and infinities as
 * null, on one line with a blank after ',' and ':'. */

/* The shortest of %.15g, %.16g, %.17g that reads back as v (1e-06, not 9.9999999999999995e-07). */
static void put_num(FILE *f, double v) {
  char b[40];
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(b, sizeof b, "%.*g", digits, v);
    if (strtod(b, NULL) == v) break;
  }
  fputs(b, f);
}

/* Columns holding JSON text (runs.machine, ipgs.params) go into the export as the values they
 * hold when they are valid JSON, else as strings; NULL as null. */
static json_t *json_raw(const char *s) {
  if (!s) return json_null();
  json_t *v = json_loads(s, JSON_DECODE_ANY, NULL);
  return v ? v : lbs_json_str(s);
}

/* [[w, t], ...], or [[w, t, p], ...] with p. */
static json_t *json_pairs(int n, const double *w, const double *t, const double *p) {
  json_t *a = json_array();
  for (int i = 0; a && i < n; i++) {
    json_t *x =
        p ? json_pack("[o,o,o]", lbs_json_real(w[i]), lbs_json_real(t[i]), lbs_json_real(p[i]))
          : json_pack("[o,o]", lbs_json_real(w[i]), lbs_json_real(t[i]));
    if (json_array_append_new(a, x)) json_decref(a), a = NULL;
  }
  return a;
}

static json_t *json_samples(int n, const lbs_sample *s, const double *p) {
  json_t *a = json_array();
  for (int i = 0; a && i < n; i++) {
    json_t *x =
        p ? json_pack("[o,o,o]", lbs_json_real(s[i].w), lbs_json_real(s[i].t), lbs_json_real(p[i]))
          : json_pack("[o,o]", lbs_json_real(s[i].w), lbs_json_real(s[i].t));
    if (json_array_append_new(a, x)) json_decref(a), a = NULL;
  }
  return a;
}

/* The meta table and the runs into doc. LBS_NOMEM leaves no message (the caller's). */
static lbs_err json_meta_runs(lbs_calib_db *c, json_t *doc) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(c->db, "SELECT key, value FROM meta ORDER BY key", -1, &st, NULL))
    return lbs_db_fail(c->d, "meta");
  json_t *meta = json_object(), *runs = json_array();
  int rc = SQLITE_DONE;
  int bad =
      lbs_json_set(doc, "meta", json_incref(meta)) || lbs_json_set(doc, "runs", json_incref(runs));
  while (!bad && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *k = (const char *)sqlite3_column_text(st, 0);
    bad = lbs_json_set(meta, k ? k : "", lbs_json_str((const char *)sqlite3_column_text(st, 1)));
  }
  sqlite3_finalize(st);
  lbs_err e = bad ? LBS_NOMEM : rc != SQLITE_DONE ? lbs_db_fail(c->d, "meta") : LBS_OK;
  if (!e && sqlite3_prepare_v2(c->db, "SELECT id, started, command, machine FROM runs ORDER BY id",
                               -1, &st, NULL))
    e = lbs_db_fail(c->d, "runs");
  if (!e) {
    while (!bad && (rc = sqlite3_step(st)) == SQLITE_ROW)
      bad = json_array_append_new(
          runs, json_pack("{s:I,s:o,s:o,s:o}", "id", (json_int_t)sqlite3_column_int64(st, 0),
                          "started", lbs_json_str((const char *)sqlite3_column_text(st, 1)),
                          "command", lbs_json_str((const char *)sqlite3_column_text(st, 2)),
                          "machine", json_raw((const char *)sqlite3_column_text(st, 3))));
    sqlite3_finalize(st);
    e = bad ? LBS_NOMEM : rc != SQLITE_DONE ? lbs_db_fail(c->d, "runs") : LBS_OK;
  }
  json_decref(meta), json_decref(runs);
  return e;
}

static lbs_err read_plans(lbs_calib_db *c, lbs_plan **plans, int *n);
static void free_plans(lbs_plan *plans, int n);
static json_t *json_plans(const lbs_plan *plans, int n);

static json_t *json_ipg(const lbs_ipg_rec *g) {
  json_t *o = json_object();
  int bad = lbs_json_set(o, "id", lbs_json_int(g->id)) ||
            lbs_json_set(o, "run_id", g->run_id > 0 ? lbs_json_int(g->run_id) : json_null()) ||
            lbs_json_set(o, "impl", lbs_json_str(g->impl)) ||
            lbs_json_set(o, "kernel", lbs_json_str(g->kernel)) ||
            lbs_json_set(o, "device", lbs_json_str(g->device)) ||
            lbs_json_set(o, "metric", lbs_json_str(g->metric)) ||
            lbs_json_set(o, "lo", lbs_json_real(g->lo)) ||
            lbs_json_set(o, "hi", lbs_json_real(g->hi)) ||
            lbs_json_set(o, "status", lbs_json_str(g->status)) ||
            lbs_json_set(o, "message", lbs_json_str(g->message)) ||
            lbs_json_set(o, "created", lbs_json_str(g->created)) ||
            lbs_json_set(o, "seconds", lbs_json_real(g->seconds)) ||
            lbs_json_set(o, "params", json_raw(g->params)) ||
            lbs_json_set(o, "points", json_pairs(g->ipg.n, g->ipg.w, g->ipg.t, NULL)) ||
            lbs_json_set(o, "samples", json_samples(g->nsamples, g->samples, NULL));
  if (bad) json_decref(o), o = NULL;
  return o;
}

static json_t *json_verify(const lbs_verify *x) {
  json_t *o = json_object();
  int bad = lbs_json_set(o, "id", lbs_json_int(x->id)) ||
            lbs_json_set(o, "ipg_id", lbs_json_int(x->ipg_id)) ||
            lbs_json_set(o, "created", lbs_json_str(x->created)) ||
            lbs_json_set(o, "n", lbs_json_int(x->n)) ||
            lbs_json_set(o, "floor_s", lbs_json_real(x->floor_s)) ||
            lbs_json_set(o, "mean_err", lbs_json_real(x->mean_err)) ||
            lbs_json_set(o, "rms_err", lbs_json_real(x->rms_err)) ||
            lbs_json_set(o, "max_err", lbs_json_real(x->max_err)) ||
            lbs_json_set(o, "mean_err_floor", lbs_json_real(x->mean_err_floor)) ||
            lbs_json_set(o, "points", json_samples(x->n, x->points, x->pred));
  if (bad) json_decref(o), o = NULL;
  return o;
}

lbs_err lbs_calib_export_json(lbs_calib_db *db, FILE *f) {
  lbs_ipg_rec *r = NULL;
  lbs_verify *v = NULL;
  lbs_plan *plans = NULL;
  int n = 0, nv = 0, np = 0;
  lbs_err e = lbs_calib_list(db, &r, &n);
  if (!e) e = lbs_calib_list_verifies(db, 0, &v, &nv);
  if (!e) e = read_plans(db, &plans, &np);
  json_t *doc = e ? NULL : json_object(), *ipgs = json_array(), *vers = json_array();
  if (!e) e = doc ? json_meta_runs(db, doc) : LBS_NOMEM;
  if (!e) {
    int bad = lbs_json_set(doc, "ipgs", json_incref(ipgs)) ||
              lbs_json_set(doc, "verifies", json_incref(vers)) ||
              lbs_json_set(doc, "plans", json_plans(plans, np));
    for (int i = 0; !bad && i < n; i++) bad = json_array_append_new(ipgs, json_ipg(&r[i]));
    for (int i = 0; !bad && i < nv; i++) bad = json_array_append_new(vers, json_verify(&v[i]));
    if (bad) e = LBS_NOMEM;
  }
  if (e == LBS_NOMEM) e = lbs_fail(LBS_NOMEM, "%s: JSON export: out of memory", db->path);
  if (!e && (lbs_json_write(f, doc, LBS_JSON_SPACED) || fflush(f) || ferror(f)))
    e = ferror(f) ? lbs_fail(LBS_IO, "%s: JSON export: write failed: %s", db->path, strerror(errno))
                  : lbs_fail(LBS_NOMEM, "%s: JSON export: out of memory", db->path);
  json_decref(doc), json_decref(ipgs), json_decref(vers);
  for (int i = 0; i < n; i++) lbs_ipg_rec_free(&r[i]);
  free(r);
  for (int i = 0; i < nv; i++) lbs_verify_free(&v[i]);
  free(v);
  free_plans(plans, np);
  return e;
}

/* ================================================================ CSV export */

/* An RFC 4180 field: quoted (quotes doubled) when it holds a comma, quote, line break, or
 * starts or ends with a blank. */
/* A number; non-finite ones as an empty field. */
static void csv_num(FILE *f, double v) {
  if (isfinite(v)) put_num(f, v);
}

typedef struct csv_data {
  lbs_ipg_rec *r;
  int n;
  lbs_verify *v;
  int nv;
  lbs_plan *plans;
  int nplans;
} csv_data;

static void write_ipgs(FILE *f, const csv_data *d) {
  fputs(
      "id,run_id,impl,kernel,device,metric,lo,hi,status,message,created,seconds,npoints,nsamples,params\n",
      f);
  for (int i = 0; i < d->n; i++) {
    const lbs_ipg_rec *g = &d->r[i];
    fprintf(f, "%lld,", (long long)g->id);
    if (g->run_id > 0) fprintf(f, "%lld", (long long)g->run_id);
    const char *text[] = {g->impl, g->kernel, g->device, g->metric};
    for (size_t k = 0; k < sizeof text / sizeof *text; k++) {
      fputc(',', f);
      lbs_csv_field(f, text[k]);
    }
    fputc(',', f);
    csv_num(f, g->lo);
    fputc(',', f);
    csv_num(f, g->hi);
    fputc(',', f);
    lbs_csv_field(f, g->status);
    fputc(',', f);
    lbs_csv_field(f, g->message);
    fputc(',', f);
    lbs_csv_field(f, g->created);
    fputc(',', f);
    csv_num(f, g->seconds);
    fprintf(f, ",%d,%d,", g->ipg.n, g->nsamples);
    lbs_csv_field(f, g->params);
    fputc('\n', f);
  }
}

static void write_points(FILE *f, const csv_data *d) {
  fputs("ipg_id,w,t\n", f);
  for (int i = 0; i < d->n; i++)
    for (int k = 0; k < d->r[i].ipg.n; k++) {
      fprintf(f, "%lld,", (long long)d->r[i].id);
      csv_num(f, d->r[i].ipg.w[k]);
      fputc(',', f);
      csv_num(f, d->r[i].ipg.t[k]);
      fputc('\n', f);
    }
}

static void write_samples(FILE *f, const csv_data *d) {
  fputs("ipg_id,seq,w,t\n", f);
  for (int i = 0; i < d->n; i++)
    for (int k = 0; k < d->r[i].nsamples; k++) {
      fprintf(f, "%lld,%d,", (long long)d->r[i].id, k);
      csv_num(f, d->r[i].samples[k].w);
      fputc(',', f);
      csv_num(f, d->r[i].samples[k].t);
      fputc('\n', f);
    }
}

static void write_verifies(FILE *f, const csv_data *d) {
  fputs("id,ipg_id,created,n,floor_s,mean_err,rms_err,max_err,mean_err_floor\n", f);
  for (int i = 0; i < d->nv; i++) {
    const lbs_verify *v = &d->v[i];
    fprintf(f, "%lld,%lld,", (long long)v->id, (long long)v->ipg_id);
    lbs_csv_field(f, v->created);
    fprintf(f, ",%d,", v->n);
    const double x[] = {v->floor_s, v->mean_err, v->rms_err, v->max_err, v->mean_err_floor};
    for (size_t k = 0; k < sizeof x / sizeof *x; k++) {
      if (k) fputc(',', f);
      csv_num(f, x[k]);
    }
    fputc('\n', f);
  }
}

/* dir and its parents, as mkdir -p. */
static lbs_err make_dirs(const char *dir) {
  char p[4096];
  size_t n = strlen(dir);
  if (n == 0 || n >= sizeof p) return lbs_fail(LBS_INVAL, "'%s': bad export directory", dir);
  memcpy(p, dir, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (p[i] != '/' && p[i] != '\0') continue;
    char keep = p[i];
    p[i] = '\0';
    if (mkdir(p, 0777) && errno != EEXIST)
      return lbs_fail(LBS_IO, "%s: cannot make %s: %s", dir, p, strerror(errno));
    p[i] = keep;
  }
  struct stat sb;
  if (stat(dir, &sb) || !S_ISDIR(sb.st_mode)) return lbs_fail(LBS_IO, "%s: not a directory", dir);
  return LBS_OK;
}

/* dir/name written through a temporary file renamed over it: only a regular file (or nothing)
 * is replaced, and never opened (a FIFO, device, directory or link there is refused). */
static lbs_err write_csv(const char *dir, const char *name, void (*fn)(FILE *, const csv_data *),
                         const csv_data *d) {
  char path[4200], tmp[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", dir, name);
  struct stat sb;
  if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
    return lbs_fail(LBS_IO, "%s: not a regular file, not replaced", path);
  int fd = mkstemp(tmp);
  if (fd < 0) return lbs_fail(LBS_IO, "%s: cannot write in %s: %s", path, dir, strerror(errno));
  fchmod(fd, 0644);
  FILE *f = fdopen(fd, "w");
  if (!f) {
    int err = errno;
    close(fd);
    unlink(tmp);
    return lbs_fail(LBS_IO, "%s: cannot write: %s", path, strerror(err));
  }
  fn(f, d);
  int bad = fflush(f) || ferror(f);
  int err = errno;
  if (fclose(f) && !bad) {
    bad = 1;
    err = errno;
  }
  if (!bad && rename(tmp, path)) {
    bad = 1;
    err = errno;
  }
  if (bad) {
    unlink(tmp);
    return lbs_fail(LBS_IO, "%s: write failed: %s", path, strerror(err));
  }
  return LBS_OK;
}

/* Every plan of the database, in id order (*plans owned: lbs_plan_free each, then free()). */
static lbs_err read_plans(lbs_calib_db *c, lbs_plan **plans, int *n) {
  int64_t *ids = NULL;
  int k = 0;
  *plans = NULL, *n = 0;
  lbs_err e = lbs_calib_plan_ids(c, &ids, &k);
  if (!e && k) *plans = calloc((size_t)k, sizeof **plans);
  if (!e && k && !*plans) e = lbs_fail(LBS_NOMEM, "%s: plans", c->path);
  for (int i = 0; i < k && !e; i++)
    if (!(e = lbs_calib_get_plan(c, NULL, ids[i], &(*plans)[i]))) (*n)++;
  free(ids);
  return e;
}

static void free_plans(lbs_plan *plans, int n) {
  for (int i = 0; i < n; i++) lbs_plan_free(&plans[i]);
  free(plans);
}

/* "sort.cpu" or "template on ws N" for a piece of an FPG; "split N" for a PG's. */
static void piece_source(const lbs_plan *p, int is_fpg, int src, char *buf, size_t n) {
  char ws[128];
  if (!is_fpg)
    snprintf(buf, n, "%s | %s", lbs_plan_ws_name(p, p->split[src].ws_a, ws, sizeof ws),
             lbs_plan_ws_name(p, p->split[src].ws_b, buf + n / 2, n / 2));
  else if (src >= 0)
    snprintf(buf, n, "%s", p->impl[src].impl);
  else
    snprintf(buf, n, "%s template on %s", p->tmpl,
             lbs_plan_ws_name(p, LBS_PLAN_TMPL_WS(src), ws, sizeof ws));
}

static json_t *json_plan(const lbs_plan *p) {
  json_t *o = json_object(), *devs = json_array(), *impls = json_array(), *wss = json_array();
  int bad = lbs_json_set(o, "id", lbs_json_int(p->id)) ||
            lbs_json_set(o, "kernel", lbs_json_str(p->kernel)) ||
            lbs_json_set(o, "created", lbs_json_str(p->created)) ||
            lbs_json_set(o, "threads", lbs_json_int(p->threads)) ||
            lbs_json_set(o, "devices", json_incref(devs)) ||
            lbs_json_set(o, "hi", lbs_json_real(p->hi)) ||
            lbs_json_set(o, "template", lbs_json_str(p->tmpl)) ||
            lbs_json_set(o, "template_s", lbs_json_real(p->ovh_s)) ||
            lbs_json_set(o, "template_per_work_s", lbs_json_real(p->ovh_per_work_s)) ||
            lbs_json_set(o, "planning_s", lbs_json_real(p->plan_s)) ||
            lbs_json_set(o, "impls", json_incref(impls)) ||
            lbs_json_set(o, "working_sets", json_incref(wss));
  for (int d = 0; !bad && d < p->ndev; d++)
    bad = json_array_append_new(devs, lbs_json_str(p->devices[d]));
  for (int k = 0; !bad && k < p->nimpl; k++)
    bad = json_array_append_new(
        impls, json_pack("{s:o,s:o,s:i,s:I,s:I}", "impl", lbs_json_str(p->impl[k].impl), "device",
                         lbs_json_str(p->impl[k].device), "threads", p->impl[k].threads, "devmask",
                         (json_int_t)p->impl[k].devmask, "ipg_id", (json_int_t)p->impl[k].ipg_id));
  for (int ws = 0; !bad && ws < p->nws; ws++) {
    char name[128], src[512];
    json_t *w = json_object();
    bad = json_array_append_new(wss, w) || lbs_json_set(w, "ws", lbs_json_int(ws)) ||
          lbs_json_set(w, "name", lbs_json_str(lbs_plan_ws_name(p, ws, name, sizeof name)));
    for (int g = 0; !bad && g < 2; g++) {
      const lbs_graph *gr = g ? &p->pg[ws] : &p->fpg[ws];
      json_t *pieces = json_array();
      bad = lbs_json_set(w, g ? "pg" : "fpg", json_incref(pieces));
      for (int k = 0; !bad && k < gr->n; k++) {
        const lbs_piece *q = &gr->p[k];
        json_t *x = json_pack("[o,o,o,o]", lbs_json_real(q->x0), lbs_json_real(q->x1),
                              lbs_json_real(q->t0), lbs_json_real(q->t1));
        piece_source(p, !g, q->src, src, sizeof src);
        bad = json_array_append_new(pieces, x) ||
              (g && (json_array_append_new(x, lbs_json_real(q->a0)) ||
                     json_array_append_new(x, lbs_json_real(q->a1)))) ||
              json_array_append_new(x, lbs_json_str(src));
      }
      json_decref(pieces);
    }
  }
  json_decref(devs), json_decref(impls), json_decref(wss);
  if (bad) json_decref(o), o = NULL;
  return o;
}

static json_t *json_plans(const lbs_plan *plans, int n) {
  json_t *a = json_array();
  for (int i = 0; a && i < n; i++)
    if (json_array_append_new(a, json_plan(&plans[i]))) json_decref(a), a = NULL;
  return a;
}

static void write_plan_pieces(FILE *f, const csv_data *d) {
  fputs("plan_id,kernel,ws,working_set,graph,x0,x1,t0,t1,a0,a1,source\n", f);
  for (int i = 0; i < d->nplans; i++) {
    const lbs_plan *p = &d->plans[i];
    for (int ws = 0; ws < p->nws; ws++)
      for (int g = 0; g < 2; g++) {
        const lbs_graph *gr = g ? &p->pg[ws] : &p->fpg[ws];
        for (int k = 0; k < gr->n; k++) {
          const lbs_piece *q = &gr->p[k];
          char name[128], src[512];
          fprintf(f, "%lld,", (long long)p->id);
          lbs_csv_field(f, p->kernel);
          fprintf(f, ",%d,", ws);
          lbs_csv_field(f, lbs_plan_ws_name(p, ws, name, sizeof name));
          fputs(g ? ",pg," : ",fpg,", f);
          const double v[6] = {q->x0, q->x1, q->t0, q->t1, q->a0, q->a1};
          for (int j = 0; j < 6; j++) {
            if (g || j < 4) csv_num(f, v[j]);
            fputc(',', f);
          }
          piece_source(p, !g, q->src, src, sizeof src);
          lbs_csv_field(f, src);
          fputc('\n', f);
        }
      }
  }
}

lbs_err lbs_calib_export_csv(lbs_calib_db *db, const char *dir) {
  csv_data d = {0};
  lbs_err e = lbs_calib_list(db, &d.r, &d.n);
  if (!e) e = lbs_calib_list_verifies(db, 0, &d.v, &d.nv);
  if (!e) e = read_plans(db, &d.plans, &d.nplans);
  if (!e) e = make_dirs(dir);
  if (!e) e = write_csv(dir, "ipgs.csv", write_ipgs, &d);
  if (!e) e = write_csv(dir, "points.csv", write_points, &d);
  if (!e) e = write_csv(dir, "samples.csv", write_samples, &d);
  if (!e) e = write_csv(dir, "verifies.csv", write_verifies, &d);
  if (!e) e = write_csv(dir, "plan_pieces.csv", write_plan_pieces, &d);
  free_plans(d.plans, d.nplans);
  for (int i = 0; i < d.n; i++) lbs_ipg_rec_free(&d.r[i]);
  free(d.r);
  for (int i = 0; i < d.nv; i++) lbs_verify_free(&d.v[i]);
  free(d.v);
  return e;
}

/* ================================================================ plans */

static lbs_err no_plans(lbs_calib_db *c) {
  return lbs_fail(
      LBS_NOTFOUND,
      "%s: no plans (a version %d calibration database; 'lbsim calibrate plan' makes one)", c->path,
      c->schema);
}

static lbs_err put_graph(lbs_calib_db *c, int64_t id, int ws, const char *kind,
                         const lbs_graph *g) {
  double *cols[7] = {NULL};
  lbs_err e = LBS_OK;
  for (int j = 0; j < 7 && !e; j++)
    if (!(cols[j] = malloc((size_t)(g->n ? g->n : 1) * sizeof *cols[j])))
      e = lbs_fail(LBS_NOMEM, "plan graph");
  for (int i = 0; i < g->n && !e; i++) {
    const lbs_piece *q = &g->p[i];
    cols[0][i] = q->x0, cols[1][i] = q->x1, cols[2][i] = q->t0, cols[3][i] = q->t1;
    cols[4][i] = q->a0, cols[5][i] = q->a1, cols[6][i] = q->src;
  }
  uint8_t *blob = NULL;
  size_t bytes = 0;
  if (!e) e = encode(g->n, 7, (const double *const *)cols, &blob, &bytes);
  for (int j = 0; j < 7; j++) free(cols[j]);
  if (!e) {
    lbs_db_val row[] = {LBS_DB_INT(id),           LBS_DB_INT(ws),
                        LBS_DB_TEXT(kind),        LBS_DB_INT(g->n),
                        LBS_DB_BLOB(blob, bytes), LBS_DB_INT(lbs_crc32(blob, bytes))};
    e = lbs_db_insert(c->d,
                      "INSERT INTO plan_graphs(plan_id, ws, kind, npieces, pieces, pieces_crc)"
                      " VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
                      "plan_graphs", row, LBS_DB_COUNT(row));
  }
  free(blob);
  return e;
}

/* The plan's implementations, in its transaction. */
static lbs_err put_impls(lbs_calib_db *c, int64_t id, const lbs_plan *p) {
  sqlite3_stmt *st;
  lbs_err e =
      lbs_db_prepare(c->d,
                     "INSERT INTO plan_impls(plan_id, idx, impl, device, threads, devmask, ipg_id)"
                     " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                     "plan_impls", &st);
  for (int i = 0; i < p->nimpl && !e; i++) {
    const lbs_plan_impl *q = &p->impl[i];
    lbs_db_val row[] = {LBS_DB_INT(id),
                        LBS_DB_INT(i),
                        LBS_DB_TEXT(q->impl),
                        LBS_DB_TEXT(q->device),
                        LBS_DB_INT(q->threads),
                        LBS_DB_INT(q->devmask),
                        q->ipg_id > 0 ? LBS_DB_INT(q->ipg_id) : LBS_DB_NULL};
    e = lbs_db_row(c->d, st, "plan_impls", row, LBS_DB_COUNT(row));
  }
  sqlite3_finalize(st);
  return e;
}

lbs_err lbs_calib_put_plan(lbs_calib_db *db, lbs_plan *p, const char *command) {
  if (db->schema < 2) return no_plans(db);
  if (!p->created[0]) iso_now(p->created, sizeof p->created);
  char devices[LBS_PLAN_MAX_DEV * 161 + 1] = "";
  for (int d = 0; d < p->ndev; d++) {
    if (strchr(p->devices[d], '\n'))
      return lbs_fail(LBS_INVAL, "%s: plan: a device name with a newline", db->path);
    strcat(devices, p->devices[d]);
    strcat(devices, "\n");
  }
  double *sa = malloc((size_t)(p->nsplit ? p->nsplit : 1) * sizeof *sa),
         *sb = malloc((size_t)(p->nsplit ? p->nsplit : 1) * sizeof *sb);
  uint8_t *blob = NULL;
  size_t bytes = 0;
  lbs_err e = sa && sb ? LBS_OK : lbs_fail(LBS_NOMEM, "plan");
  for (int i = 0; i < p->nsplit && !e; i++) sa[i] = p->split[i].ws_a, sb[i] = p->split[i].ws_b;
  const double *cols[2] = {sa, sb};
  if (!e) e = encode(p->nsplit, 2, cols, &blob, &bytes);
  free(sa);
  free(sb);
  if (!e) e = lbs_db_begin(db->d, "plans");
  if (!e) {
    lbs_db_val row[] = {LBS_DB_TEXT(p->created),
                        LBS_DB_TEXT(command ? command : ""),
                        LBS_DB_TEXT(p->kernel),
                        LBS_DB_INT(p->threads),
                        LBS_DB_TEXT(devices),
                        LBS_DB_REAL(p->hi),
                        LBS_DB_TEXT(p->tmpl),
                        LBS_DB_REAL(p->ovh_s),
                        LBS_DB_REAL(p->ovh_per_work_s),
                        LBS_DB_REAL(p->plan_s),
                        LBS_DB_INT(p->nsplit),
                        LBS_DB_BLOB(blob, bytes),
                        LBS_DB_INT(lbs_crc32(blob, bytes))};
    e = lbs_db_insert(
        db->d,
        "INSERT INTO plans(created, command, kernel, threads, devices, hi, template, ovh_s,"
        " ovh_per_work_s, plan_s, nsplit, splits, splits_crc)"
        " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        "plans", row, LBS_DB_COUNT(row));
  }
  free(blob);
  int64_t id = sqlite3_last_insert_rowid(db->db);
  if (!e) e = put_impls(db, id, p);
  for (int ws = 0; ws < p->nws && !e; ws++) {
    e = put_graph(db, id, ws, "fpg", &p->fpg[ws]);
    if (!e) e = put_graph(db, id, ws, "pg", &p->pg[ws]);
  }
  if (!e) e = lbs_db_commit(db->d, "plans");
  if (e)
    lbs_db_rollback(db->d);
  else
    p->id = id;
  return e;
}

lbs_err lbs_calib_plan_ids(lbs_calib_db *db, int64_t **ids, int *n) {
  *ids = NULL, *n = 0;
  if (db->schema < 2) return LBS_OK;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db->db, "SELECT id FROM plans ORDER BY id", -1, &st, NULL))
    return lbs_db_fail(db->d, "plans");
  lbs_err e = LBS_OK;
  int cap = 0, rc;
  while (!e && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (*n == cap) {
      cap = cap ? 2 * cap : 8;
      int64_t *ni = realloc(*ids, (size_t)cap * sizeof *ni);
      if (!ni) {
        e = lbs_fail(LBS_NOMEM, "plans");
        break;
      }
      *ids = ni;
    }
    (*ids)[(*n)++] = sqlite3_column_int64(st, 0);
  }
  if (!e && rc != SQLITE_DONE) e = lbs_db_fail(db->d, "plans");
  sqlite3_finalize(st);
  if (e) {
    free(*ids);
    *ids = NULL, *n = 0;
  }
  return e;
}

/* Reads the graphs of plan p->id (every one checked against its CRC and the plan's shape). */
static lbs_err read_graphs(lbs_calib_db *c, lbs_plan *p) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(
          c->db, "SELECT ws, kind, npieces, pieces, pieces_crc FROM plan_graphs WHERE plan_id = ?1",
          -1, &st, NULL))
    return lbs_db_fail(c->d, "plan_graphs");
  sqlite3_bind_int64(st, 1, p->id);
  lbs_err e = LBS_OK;
  int rc;
  while (!e && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    int ws = sqlite3_column_int(st, 0);
    const char *kind = (const char *)sqlite3_column_text(st, 1);
    char where[96];
    snprintf(where, sizeof where, "plan %lld, working set %d", (long long)p->id, ws);
    if (ws < 0 || ws >= p->nws || !kind) {
      e = lbs_fail(LBS_CORRUPT, "%s: %s: not a working set of the plan", c->path, where);
      break;
    }
    lbs_graph *g = !strcmp(kind, "fpg") ? &p->fpg[ws] : &p->pg[ws];
    double *cols[7] = {NULL}, **pc[7];
    for (int j = 0; j < 7; j++) pc[j] = &cols[j];
    e = decode(c, st, 3, sqlite3_column_int64(st, 2), 7, where, "pieces", pc);
    int64_t np = sqlite3_column_int64(st, 2);
    if (!e && np > 0) {
      lbs_graph_free(g);
      g->p = malloc((size_t)np * sizeof *g->p);
      if (!g->p) e = lbs_fail(LBS_NOMEM, "%s: %s", c->path, where);
      for (int64_t i = 0; i < np && !e; i++) {
        lbs_piece q = {cols[0][i], cols[1][i], cols[2][i],     cols[3][i],
                       cols[4][i], cols[5][i], (int)cols[6][i]};
        int is_fpg = g == &p->fpg[ws];
        int src_ok = is_fpg ? (q.src >= 0 ? q.src < p->nimpl : LBS_PLAN_TMPL_WS(q.src) < p->nws)
                            : q.src >= 0 && q.src < p->nsplit;
        if (!(q.x1 > q.x0) || !isfinite(q.t0) || !isfinite(q.t1) || !isfinite(q.a0) ||
            !isfinite(q.a1) || q.src != cols[6][i] || !src_ok || (i && q.x0 < g->p[i - 1].x1))
          e = lbs_fail(LBS_CORRUPT, "%s: %s: piece %lld is not valid", c->path, where,
                       (long long)i);
        g->p[i] = q;
      }
      g->n = g->cap = e ? 0 : (int)np;
    }
    for (int j = 0; j < 7; j++) free(cols[j]);
  }
  if (!e && rc != SQLITE_DONE) e = lbs_db_fail(c->d, "plan_graphs");
  sqlite3_finalize(st);
  return e;
}

/* Reads the plan in row st into out: its columns (threads, devices and work range checked),
 * then its splits, decoded and checked against the working sets. out->nws is set whatever
 * happens, for lbs_plan_free. */
static lbs_err read_plan_row(lbs_calib_db *db, sqlite3_stmt *st, lbs_plan *out) {
  lbs_err e = LBS_OK;
  out->id = sqlite3_column_int64(st, 0);
  col_copy(st, 1, out->created, sizeof out->created);
  col_copy(st, 2, out->kernel, sizeof out->kernel);
  out->threads = sqlite3_column_int(st, 3);
  const char *dv = (const char *)sqlite3_column_text(st, 4);
  for (; dv && *dv && out->ndev < LBS_PLAN_MAX_DEV; out->ndev++) {
    size_t k = strcspn(dv, "\n");
    snprintf(out->devices[out->ndev], sizeof out->devices[0], "%.*s", (int)k, dv);
    dv += k + (dv[k] == '\n');
  }
  out->hi = sqlite3_column_double(st, 5);
  col_copy(st, 6, out->tmpl, sizeof out->tmpl);
  out->ovh_s = sqlite3_column_double(st, 7);
  out->ovh_per_work_s = sqlite3_column_double(st, 8);
  out->plan_s = sqlite3_column_double(st, 9);
  char where[64];
  snprintf(where, sizeof where, "plan %lld", (long long)out->id);
  if (out->threads < 1 || out->threads > LBS_PLAN_MAX_THREADS || (dv && *dv) || !(out->hi > 0))
    e = lbs_fail(LBS_CORRUPT, "%s: %s: %d threads, work up to %g", db->path, where, out->threads,
                 out->hi);
  double *sa = NULL, *sb = NULL, **pc[2] = {&sa, &sb};
  int64_t ns = sqlite3_column_int64(st, 10);
  if (!e) e = decode(db, st, 11, ns, 2, where, "splits", pc);
  out->nws = out->threads << out->ndev;
  if (!e && ns > 0 && !(out->split = malloc((size_t)ns * sizeof *out->split)))
    e = lbs_fail(LBS_NOMEM, "plan");
  for (int64_t i = 0; i < ns && !e; i++) {
    out->split[i] = (lbs_plan_split){(int)sa[i], (int)sb[i]};
    if (sa[i] != out->split[i].ws_a || sb[i] != out->split[i].ws_b || out->split[i].ws_a < 0 ||
        out->split[i].ws_b < 0 || out->split[i].ws_a >= out->nws || out->split[i].ws_b >= out->nws)
      e = lbs_fail(LBS_CORRUPT, "%s: %s: split %lld is not valid", db->path, where, (long long)i);
  }
  if (!e) out->nsplit = (int)ns;
  free(sa);
  free(sb);
  return e;
}

/* Reads the implementations of plan out->id, in order, each checked against the plan's
 * threads and devices. */
static lbs_err read_plan_impls(lbs_calib_db *db, lbs_plan *out) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db->db,
                         "SELECT idx, impl, device, threads, devmask, ipg_id FROM plan_impls"
                         " WHERE plan_id = ?1 ORDER BY idx",
                         -1, &st, NULL))
    return lbs_db_fail(db->d, "plan_impls");
  sqlite3_bind_int64(st, 1, out->id);
  lbs_err e = LBS_OK;
  int rc;
  while (!e && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    lbs_plan_impl *ni = realloc(out->impl, (size_t)(out->nimpl + 1) * sizeof *ni);
    if (!ni) {
      e = lbs_fail(LBS_NOMEM, "plan");
      break;
    }
    out->impl = ni;
    lbs_plan_impl *m = &out->impl[out->nimpl];
    memset(m, 0, sizeof *m);
    col_copy(st, 1, m->impl, sizeof m->impl);
    col_copy(st, 2, m->device, sizeof m->device);
    m->threads = sqlite3_column_int(st, 3);
    m->devmask = (unsigned)sqlite3_column_int64(st, 4);
    m->ipg_id = sqlite3_column_int64(st, 5);
    if (sqlite3_column_int(st, 0) != out->nimpl || m->threads < 1 || m->threads > out->threads ||
        (m->devmask >> out->ndev))
      e = lbs_fail(LBS_CORRUPT, "%s: plan %lld: implementation %d is not valid", db->path,
                   (long long)out->id, out->nimpl);
    out->nimpl++;
  }
  if (!e && rc != SQLITE_DONE) e = lbs_db_fail(db->d, "plan_impls");
  sqlite3_finalize(st);
  return e;
}

/* Reads plan id (id <= 0: the newest, of kernel when it is not NULL or empty) into out: its
 * row with its splits, its implementations, its graphs, a graph for every working set. out is
 * the caller's (lbs_plan_free); emptied on an error. */
lbs_err lbs_calib_get_plan(lbs_calib_db *db, const char *kernel, int64_t id, lbs_plan *out) {
  memset(out, 0, sizeof *out);
  if (db->schema < 2) return no_plans(db);
  sqlite3_stmt *st;
  const char *sql =
      id > 0
          ? "SELECT id, created, kernel, threads, devices, hi, template, ovh_s, ovh_per_work_s, plan_s,"
            " nsplit, splits, splits_crc FROM plans WHERE id = ?1"
          : "SELECT id, created, kernel, threads, devices, hi, template, ovh_s, ovh_per_work_s, plan_s,"
            " nsplit, splits, splits_crc FROM plans WHERE ?2 = '' OR kernel = ?2 ORDER BY id DESC LIMIT 1";
  if (sqlite3_prepare_v2(db->db, sql, -1, &st, NULL)) return lbs_db_fail(db->d, "plans");
  if (id > 0)
    sqlite3_bind_int64(st, 1, id);
  else
    sqlite3_bind_text(st, 2, kernel ? kernel : "", -1, SQLITE_STATIC);
  int rc = sqlite3_step(st);
  lbs_err e = LBS_OK;
  if (rc == SQLITE_DONE) {
    if (id > 0)
      e = lbs_fail(LBS_NOTFOUND, "%s: no plan %lld", db->path, (long long)id);
    else if (kernel && *kernel)
      e = lbs_fail(LBS_NOTFOUND, "%s: no plan of %s ('lbsim calibrate plan --kernel %s' makes one)",
                   db->path, kernel, kernel);
    else
      e = lbs_fail(LBS_NOTFOUND, "%s: no plans ('lbsim calibrate plan' makes one)", db->path);
  } else if (rc != SQLITE_ROW) {
    e = lbs_db_fail(db->d, "plans");
  } else {
    e = read_plan_row(db, st, out);
  }
  sqlite3_finalize(st);
  if (!e) e = read_plan_impls(db, out);
  if (!e) {
    out->fpg = calloc((size_t)out->nws, sizeof *out->fpg);
    out->pg = calloc((size_t)out->nws, sizeof *out->pg);
    e = out->fpg && out->pg ? read_graphs(db, out) : lbs_fail(LBS_NOMEM, "plan");
  }
  for (int ws = 0; ws < out->nws && !e; ws++)
    if (!out->fpg[ws].n)
      e = lbs_fail(LBS_CORRUPT, "%s: plan %lld: working set %d has no graph", db->path,
                   (long long)out->id, ws);
  if (e) lbs_plan_free(out);
  return e;
}

lbs_err lbs_calib_run_cpus(lbs_calib_db *db, int64_t run_id, int *cpus) {
  *cpus = 0;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db->db, "SELECT machine FROM runs WHERE id = ?1", -1, &st, NULL))
    return lbs_db_fail(db->d, "runs");
  sqlite3_bind_int64(st, 1, run_id);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT) {
    const char *m = (const char *)sqlite3_column_text(st, 0),
               *k = m ? strstr(m, "\"cpus\":") : NULL;
    long v = k ? strtol(k + 7, NULL, 10) : 0;
    *cpus = v > 0 && v < 1 << 20 ? (int)v : 0;
  }
  sqlite3_finalize(st);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? LBS_OK : lbs_db_fail(db->d, "runs");
}
