/* The calibration database and CSV import: round trips of runs, IPGs, samples and
 * verifications; what get returns and what it says when it cannot; damaged, foreign, newer and
 * non-regular files; a writer killed between and inside writes; JSON and CSV exports; CSV
 * reading with its error lines; IPGs through samples measured elsewhere. */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lbs_calib.h"
#include "lbs_plan.h"
#include "plan_fixture.h"
#include "testutil.h"

/* ================================================================ helpers */

/* An IPG record of n points on t = slope * w + 1 us, with 2n samples; owned arrays. */
static lbs_ipg_rec make_rec(const char *impl, const char *device, const char *status, int n,
                            double slope) {
  lbs_ipg_rec r;
  memset(&r, 0, sizeof r);
  snprintf(r.impl, sizeof r.impl, "%s", impl);
  snprintf(r.device, sizeof r.device, "%s", device);
  snprintf(r.status, sizeof r.status, "%s", status);
  snprintf(r.metric, sizeof r.metric, "elements");
  r.lo = 10;
  r.hi = 10.0 * n;
  r.seconds = 1.25;
  r.ipg.n = n;
  r.ipg.w = malloc((size_t)(n ? n : 1) * sizeof *r.ipg.w);
  r.ipg.t = malloc((size_t)(n ? n : 1) * sizeof *r.ipg.t);
  for (int i = 0; i < n; i++) {
    r.ipg.w[i] = 10.0 * (i + 1);
    r.ipg.t[i] = slope * r.ipg.w[i] + 1e-6;
  }
  r.nsamples = 2 * n;
  r.samples = malloc((size_t)(n ? 2 * n : 1) * sizeof *r.samples);
  for (int i = 0; i < 2 * n; i++)
    r.samples[i] = (lbs_sample){5.0 * (i + 1), slope * 5.0 * (i + 1) * 1.01};
  r.params = strdup("{\"accuracy_pct\": 5, \"window\": 3}");
  return r;
}

static void put(lbs_calib_db *db, lbs_ipg_rec *r) {
  cr_assert_eq(lbs_calib_put_ipg(db, r), LBS_OK, "%s", lbs_errmsg());
  cr_assert_gt(r->id, 0);
}

static void same_rec(const lbs_ipg_rec *a, const lbs_ipg_rec *b) {
  cr_assert_eq(a->id, b->id);
  cr_assert_eq(a->run_id, b->run_id);
  cr_assert_str_eq(a->impl, b->impl);
  cr_assert_str_eq(a->kernel, b->kernel);
  cr_assert_str_eq(a->device, b->device);
  cr_assert_str_eq(a->metric, b->metric);
  cr_assert_str_eq(a->status, b->status);
  cr_assert_str_eq(a->message, b->message);
  cr_assert_str_eq(a->created, b->created);
  cr_assert(a->lo == b->lo || (isnan(a->lo) && isnan(b->lo)));
  cr_assert(a->hi == b->hi || (isnan(a->hi) && isnan(b->hi)));
  cr_assert(a->seconds == b->seconds || (isnan(a->seconds) && isnan(b->seconds)));
  cr_assert_str_eq(a->params ? a->params : "(null)", b->params ? b->params : "(null)");
  cr_assert_eq(a->ipg.n, b->ipg.n);
  for (int i = 0; i < a->ipg.n; i++)
    cr_assert(a->ipg.w[i] == b->ipg.w[i] && a->ipg.t[i] == b->ipg.t[i], "point %d", i);
  cr_assert_eq(a->nsamples, b->nsamples);
  for (int i = 0; i < a->nsamples; i++)
    cr_assert(a->samples[i].w == b->samples[i].w && a->samples[i].t == b->samples[i].t, "sample %d",
              i);
}

static void free_recs(lbs_ipg_rec *r, int n) {
  for (int i = 0; i < n; i++) lbs_ipg_rec_free(&r[i]);
  free(r);
}

/* Runs SQL on a file with SQLite itself. */
static void sql(const char *path, const char *q) {
  sqlite3 *db;
  cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
  char *err = NULL;
  int rc = sqlite3_exec(db, q, NULL, NULL, &err);
  cr_assert_eq(rc, SQLITE_OK, "%s: %s", q, err ? err : "");
  sqlite3_close(db);
}

/* One text value from SQL, into buf. */
static void sql_text(const char *path, const char *q, char *buf, size_t n) {
  sqlite3 *db;
  sqlite3_stmt *st;
  cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
  cr_assert_eq(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK, "%s", q);
  cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", q);
  const char *s = (const char *)sqlite3_column_text(st, 0);
  snprintf(buf, n, "%s", s ? s : "(null)");
  sqlite3_finalize(st);
  sqlite3_close(db);
}

/* Flips byte k of blob column col of table row id, as a damaged disk would. */
static void flip_byte(const char *path, const char *table, const char *col, int64_t id, int k) {
  sqlite3 *db;
  sqlite3_stmt *st;
  char q[200];
  cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
  snprintf(q, sizeof q, "SELECT %s FROM %s WHERE id = %lld", col, table, (long long)id);
  cr_assert_eq(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
  cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
  int n = sqlite3_column_bytes(st, 0);
  cr_assert_gt(n, k);
  unsigned char *b = malloc((size_t)n);
  memcpy(b, sqlite3_column_blob(st, 0), (size_t)n);
  sqlite3_finalize(st);
  b[k] ^= 0x40;
  snprintf(q, sizeof q, "UPDATE %s SET %s = ?1 WHERE id = %lld", table, col, (long long)id);
  cr_assert_eq(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
  sqlite3_bind_blob(st, 1, b, n, SQLITE_TRANSIENT);
  cr_assert_eq(sqlite3_step(st), SQLITE_DONE);
  sqlite3_finalize(st);
  sqlite3_close(db);
  free(b);
}

static char *slurp(const char *path) {
  char *t;
  size_t n;
  cr_assert_eq(lbs_read_file(path, &t, &n), LBS_OK, "%s", lbs_errmsg());
  return t;
}

/* ---------------------------------------------------------------- a JSON syntax check
 * (RFC 8259, hand-written so that the test needs nothing else); NULL when not JSON. */

static const char *j_value(const char *p);

static const char *j_ws(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  return p;
}

static const char *j_string(const char *p) {
  if (*p++ != '"') return NULL;
  while (*p != '"') {
    unsigned char c = (unsigned char)*p++;
    if (c < 0x20) return NULL;
    if (c == '\\') {
      c = (unsigned char)*p++;
      if (c == 'u') {
        for (int i = 0; i < 4; i++)
          if (!*p || !strchr("0123456789abcdefABCDEF", *p++)) return NULL;
      } else if (!c || !strchr("\"\\/bfnrt", c)) {
        return NULL;
      }
    }
  }
  return p + 1;
}

static const char *j_number(const char *p) {
  const char *s = p;
  if (*p == '-') p++;
  if (*p == '0')
    p++;
  else if (*p >= '1' && *p <= '9')
    while (*p >= '0' && *p <= '9') p++;
  else
    return NULL;
  if (*p == '.') {
    if (!(*++p >= '0' && *p <= '9')) return NULL;
    while (*p >= '0' && *p <= '9') p++;
  }
  if (*p == 'e' || *p == 'E') {
    if (*++p == '+' || *p == '-') p++;
    if (!(*p >= '0' && *p <= '9')) return NULL;
    while (*p >= '0' && *p <= '9') p++;
  }
  return p > s ? p : NULL;
}

static const char *j_value(const char *p) {
  p = j_ws(p);
  if (*p == '{' || *p == '[') {
    int obj = *p == '{';
    char close = obj ? '}' : ']';
    p = j_ws(p + 1);
    if (*p == close) return p + 1;
    for (;;) {
      if (obj) {
        if (!(p = j_string(j_ws(p)))) return NULL;
        p = j_ws(p);
        if (*p++ != ':') return NULL;
      }
      if (!(p = j_value(p))) return NULL;
      p = j_ws(p);
      if (*p == close) return p + 1;
      if (*p++ != ',') return NULL;
    }
  }
  if (*p == '"') return j_string(p);
  if (!strncmp(p, "true", 4)) return p + 4;
  if (!strncmp(p, "false", 5)) return p + 5;
  if (!strncmp(p, "null", 4)) return p + 4;
  return j_number(p);
}

static int is_json(const char *s) {
  const char *e = j_value(s);
  return e && !*j_ws(e);
}

/* ================================================================ the database */

Test(db, round_trip_runs_ipgs_samples_verifies) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "calib.db");
  lbs_calib_db *db;
  cr_assert_eq(lbs_calib_open(p, 1, &db), LBS_OK, "%s", lbs_errmsg());
  int64_t run;
  cr_assert_eq(lbs_calib_begin_run(db, "lbsim calibrate run sort.cpu",
                                   "{\"cpu\": \"test\", \"cores\": 2}", &run),
               LBS_OK);
  cr_assert_gt(run, 0);
  lbs_ipg_rec a = make_rec("sort.cpu", "cpu: test", "complete", 5, 1e-8),
              b = make_rec("dot.threads", "threads:2: test", "complete", 3, 2e-9);
  a.run_id = b.run_id = run;
  b.lo = NAN; /* kept as NULL, read back as NaN */
  free(b.params);
  b.params = NULL;
  put(db, &a);
  put(db, &b);
  cr_assert_str_eq(a.kernel, "sort", "kernel from the implementation's name");
  cr_assert_str_eq(b.kernel, "dot");
  cr_assert_eq(strlen(a.created), 20, "ISO 8601 UTC: %s", a.created);
  cr_assert_eq(a.created[10], 'T');
  cr_assert_eq(a.created[19], 'Z');
  lbs_verify v = {.n = 3,
                  .floor_s = 1e-5,
                  .mean_err = 0.01,
                  .rms_err = 0.02,
                  .max_err = 0.05,
                  .mean_err_floor = NAN};
  lbs_sample pts[3] = {{12, 1.2e-7}, {34, 3.5e-7}, {47, 4.6e-7}};
  double pred[3] = {1.21e-7, 3.41e-7, 4.71e-7};
  v.points = pts;
  v.pred = pred;
  cr_assert_eq(lbs_calib_put_verify(db, a.id, &v), LBS_OK, "%s", lbs_errmsg());
  lbs_calib_close(&db);
  cr_assert_null(db);
  lbs_calib_close(&db); /* NULL-safe */

  cr_assert_eq(lbs_calib_open(p, 0, &db), LBS_OK, "%s", lbs_errmsg());
  lbs_ipg_rec *r;
  int n;
  cr_assert_eq(lbs_calib_list(db, &r, &n), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(n, 2);
  same_rec(&r[0], &a);
  same_rec(&r[1], &b);
  cr_assert(isnan(r[1].lo));
  free_recs(r, n);
  lbs_ipg_rec g;
  cr_assert_eq(lbs_calib_get(db, "sort.cpu", NULL, &g), LBS_OK, "%s", lbs_errmsg());
  same_rec(&g, &a);
  lbs_ipg_rec_free(&g);
  cr_assert_eq(lbs_calib_get(db, "dot.threads", "threads:2: test", &g), LBS_OK, "%s", lbs_errmsg());
  same_rec(&g, &b);
  lbs_ipg_rec_free(&g);
  cr_assert_eq(g.ipg.n, 0, "freed record is zeroed");

  lbs_verify *vs;
  int nv;
  cr_assert_eq(lbs_calib_list_verifies(db, 0, &vs, &nv), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(nv, 1);
  cr_assert_eq(vs[0].ipg_id, a.id);
  cr_assert_eq(vs[0].n, 3);
  cr_assert(vs[0].floor_s == v.floor_s && vs[0].mean_err == v.mean_err &&
            vs[0].rms_err == v.rms_err && vs[0].max_err == v.max_err &&
            isnan(vs[0].mean_err_floor));
  for (int i = 0; i < 3; i++)
    cr_assert(vs[0].points[i].w == pts[i].w && vs[0].points[i].t == pts[i].t &&
              vs[0].pred[i] == pred[i]);
  cr_assert_eq(strlen(vs[0].created), 20);
  lbs_verify_free(&vs[0]);
  free(vs);
  cr_assert_eq(lbs_calib_list_verifies(db, b.id, &vs, &nv), LBS_OK);
  cr_assert_eq(nv, 0);
  free(vs);
  lbs_calib_close(&db);

  char buf[256];
  sql_text(p, "SELECT value FROM meta WHERE key = 'format'", buf, sizeof buf);
  cr_assert_str_eq(buf, "lbsim-calibration");
  sql_text(p, "SELECT value FROM meta WHERE key = 'schema'", buf, sizeof buf);
  cr_assert_eq(atoi(buf), LBS_CALIB_SCHEMA);
  sql_text(p, "SELECT value FROM meta WHERE key = 'lbsim'", buf, sizeof buf);
  cr_assert(buf[0] >= '0' && buf[0] <= '9', "lbsim version '%s'", buf);
  sql_text(p, "SELECT value FROM meta WHERE key = 'created'", buf, sizeof buf);
  cr_assert_eq(strlen(buf), 20);
  sql_text(p, "SELECT command || ' | ' || machine FROM runs WHERE id = 1", buf, sizeof buf);
  cr_assert_str_eq(buf, "lbsim calibrate run sort.cpu | {\"cpu\": \"test\", \"cores\": 2}");
  lbs_ipg_rec_free(&a);
  lbs_ipg_rec_free(&b);
  free(p);
  tu_rmrf(dir);
}

Test(db, failed_and_partial_are_listed_not_returned) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "calib.db");
  lbs_calib_db *db;
  cr_assert_eq(lbs_calib_open(p, 1, &db), LBS_OK, "%s", lbs_errmsg());
  lbs_ipg_rec ok = make_rec("sort.cpu", "cpu: x", "complete", 4, 1e-8),
              part = make_rec("sort.cpu", "cpu: x", "partial", 2, 1e-8),
              fail = make_rec("sort.cpu", "cpu: x", "failed", 0, 0),
              only_failed = make_rec("wave.opencl", "opencl: pocl / cpu", "failed", 0, 0);
  snprintf(part.message, sizeof part.message, "sample limit reached at metric 20");
  snprintf(fail.message, sizeof fail.message, "execute failed: out of memory");
  snprintf(only_failed.message, sizeof only_failed.message, "CL_BUILD_PROGRAM_FAILURE");
  put(db, &ok);
  put(db, &part);
  put(db, &fail);
  put(db, &only_failed);
  lbs_ipg_rec *r;
  int n;
  cr_assert_eq(lbs_calib_list(db, &r, &n), LBS_OK);
  cr_assert_eq(n, 4, "every IPG is listed, whatever its status");
  cr_assert_str_eq(r[1].status, "partial");
  cr_assert_str_eq(r[2].status, "failed");
  cr_assert_str_eq(r[2].message, "execute failed: out of memory");
  free_recs(r, n);
  lbs_ipg_rec g;
  cr_assert_eq(lbs_calib_get(db, "sort.cpu", NULL, &g), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(g.id, ok.id, "the newer partial and failed ones are not returned");
  lbs_ipg_rec_free(&g);
  cr_assert_eq(lbs_calib_get(db, "wave.opencl", NULL, &g), LBS_NOTFOUND);
  const char *m = lbs_errmsg();
  cr_assert(strstr(m, "'wave.opencl'") && strstr(m, "'sort.cpu' on 'cpu: x'"), "%s", m);
  cr_assert(strstr(m, "failed") && strstr(m, "CL_BUILD_PROGRAM_FAILURE"), "%s", m);
  cr_assert_eq(g.ipg.n, 0);
  cr_assert_eq(lbs_calib_get(db, "sort.cpu", "cpu: y", &g), LBS_NOTFOUND);
  m = lbs_errmsg();
  cr_assert(strstr(m, "'cpu: y'") && strstr(m, "'sort.cpu' on 'cpu: x'"), "%s", m);
  cr_assert_eq(lbs_calib_get(db, "", NULL, &g), LBS_INVAL);
  cr_assert_eq(lbs_calib_get(db, "matmul.cuda", NULL, &g), LBS_NOTFOUND);
  cr_assert(!strstr(lbs_errmsg(), "not complete"), "%s", lbs_errmsg());
  lbs_calib_close(&db);
  lbs_ipg_rec_free(&ok);
  lbs_ipg_rec_free(&part);
  lbs_ipg_rec_free(&fail);
  lbs_ipg_rec_free(&only_failed);
  free(p);
  tu_rmrf(dir);
}

Test(db, get_with_two_devices_asks_for_one) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "calib.db");
  lbs_calib_db *db;
  cr_assert_eq(lbs_calib_open(p, 1, &db), LBS_OK, "%s", lbs_errmsg());
  lbs_ipg_rec a = make_rec("sort.opencl", "opencl: pocl / cpu", "complete", 3, 1e-8),
              b = make_rec("sort.opencl", "opencl: nvidia / h100", "complete", 3, 1e-10),
              a2 = make_rec("sort.opencl", "opencl: pocl / cpu", "complete", 4, 2e-8);
  put(db, &a);
  put(db, &b);
  put(db, &a2);
  lbs_ipg_rec g;
  cr_assert_eq(lbs_calib_get(db, "sort.opencl", NULL, &g), LBS_INVAL);
  const char *m = lbs_errmsg();
  cr_assert(strstr(m, "'opencl: pocl / cpu'") && strstr(m, "'opencl: nvidia / h100'") &&
                strstr(m, "2 devices"),
            "%s", m);
  cr_assert_eq(lbs_calib_get(db, "sort.opencl", "", &g), LBS_INVAL);
  cr_assert_eq(lbs_calib_get(db, "sort.opencl", "opencl: nvidia / h100", &g), LBS_OK, "%s",
               lbs_errmsg());
  cr_assert_eq(g.id, b.id);
  lbs_ipg_rec_free(&g);
  cr_assert_eq(lbs_calib_get(db, "sort.opencl", "opencl: pocl / cpu", &g), LBS_OK, "%s",
               lbs_errmsg());
  cr_assert_eq(g.id, a2.id, "the newest complete one");
  cr_assert_eq(g.ipg.n, 4);
  lbs_ipg_rec_free(&g);
  lbs_calib_close(&db);
  lbs_ipg_rec_free(&a);
  lbs_ipg_rec_free(&b);
  lbs_ipg_rec_free(&a2);
  free(p);
  tu_rmrf(dir);
}

Test(db, put_refuses_bad_records) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "calib.db");
  lbs_calib_db *db;
  cr_assert_eq(lbs_calib_open(p, 1, &db), LBS_OK, "%s", lbs_errmsg());
  lbs_ipg_rec r = make_rec("sort.cpu", "cpu", "done", 3, 1e-8);
  cr_assert_eq(lbs_calib_put_ipg(db, &r), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "'done'"), "%s", lbs_errmsg());
  snprintf(r.status, sizeof r.status, "complete");
  r.run_id = 42;
  cr_assert_eq(lbs_calib_put_ipg(db, &r), LBS_NOTFOUND);
  cr_assert(strstr(lbs_errmsg(), "run 42"), "%s", lbs_errmsg());
  r.run_id = 0;
  r.ipg.w[2] = 5;
  cr_assert_eq(lbs_calib_put_ipg(db, &r), LBS_RANGE, "points out of order");
  r.ipg.w[2] = 30;
  r.samples[1].t = INFINITY;
  cr_assert_eq(lbs_calib_put_ipg(db, &r), LBS_RANGE, "a non-finite sample");
  r.samples[1].t = 1;
  r.impl[0] = '\0';
  cr_assert_eq(lbs_calib_put_ipg(db, &r), LBS_INVAL);
  lbs_ipg_rec none = make_rec("sort.cpu", "cpu", "complete", 0, 0);
  cr_assert_eq(lbs_calib_put_ipg(db, &none), LBS_INVAL, "a complete IPG needs points");
  lbs_verify v = {0};
  cr_assert_eq(lbs_calib_put_verify(db, 7, &v), LBS_NOTFOUND);
  lbs_ipg_rec *recs;
  int n;
  cr_assert_eq(lbs_calib_list(db, &recs, &n), LBS_OK);
  cr_assert_eq(n, 0, "nothing was written");
  free(recs);
  lbs_calib_close(&db);
  lbs_ipg_rec_free(&r);
  lbs_ipg_rec_free(&none);
  free(p);
  tu_rmrf(dir);
}

Test(db, a_damaged_blob_is_corrupt) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "calib.db");
  lbs_calib_db *db;
  cr_assert_eq(lbs_calib_open(p, 1, &db), LBS_OK, "%s", lbs_errmsg());
  lbs_ipg_rec a = make_rec("sort.cpu", "cpu", "complete", 4, 1e-8),
              b = make_rec("dot.cpu", "cpu", "complete", 4, 1e-9);
  put(db, &a);
  put(db, &b);
  lbs_verify v = {.n = 1, .points = (lbs_sample[]){{10, 1}}, .pred = (double[]){1.1}};
  cr_assert_eq(lbs_calib_put_verify(db, b.id, &v), LBS_OK);
  lbs_calib_close(&db);
  flip_byte(p, "ipgs", "points", a.id, 13);
  flip_byte(p, "ipgs", "samples", b.id, 0);
  flip_byte(p, "verifies", "points", 1, 20);
  cr_assert_eq(lbs_calib_open(p, 0, &db), LBS_OK, "%s", lbs_errmsg());
  lbs_ipg_rec *r;
  int n;
  cr_assert_eq(lbs_calib_list(db, &r, &n), LBS_CORRUPT);
  cr_assert(strstr(lbs_errmsg(), "ipgs row 1 (sort.cpu): points: checksum mismatch"), "%s",
            lbs_errmsg());
  cr_assert_null(r);
  lbs_ipg_rec g;
  cr_assert_eq(lbs_calib_get(db, "sort.cpu", NULL, &g), LBS_CORRUPT);
  cr_assert_eq(lbs_calib_get(db, "dot.cpu", NULL, &g), LBS_CORRUPT);
  cr_assert(strstr(lbs_errmsg(), "ipgs row 2 (dot.cpu): samples"), "%s", lbs_errmsg());
  lbs_verify *vs;
  cr_assert_eq(lbs_calib_list_verifies(db, 0, &vs, &n), LBS_CORRUPT);
  cr_assert(strstr(lbs_errmsg(), "verifies row 1: points"), "%s", lbs_errmsg());
  cr_assert_eq(lbs_calib_export_json(db, stdout), LBS_CORRUPT, "exports read through the checks");
  lbs_calib_close(&db);
  /* a blob cut short is caught by its length */
  sql(p, "UPDATE ipgs SET points = substr(points, 1, 8) WHERE id = 1");
  cr_assert_eq(lbs_calib_open(p, 0, &db), LBS_OK);
  cr_assert_eq(lbs_calib_list(db, &r, &n), LBS_CORRUPT);
  cr_assert(strstr(lbs_errmsg(), "8 bytes for 4 records"), "%s", lbs_errmsg());
  lbs_calib_close(&db);
  lbs_ipg_rec_free(&a);
  lbs_ipg_rec_free(&b);
  free(p);
  tu_rmrf(dir);
}

Test(db, another_schema_version_is_refused) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "calib.db");
  lbs_calib_db *db;
  cr_assert_eq(lbs_calib_open(p, 1, &db), LBS_OK, "%s", lbs_errmsg());
  lbs_calib_close(&db);
  sql(p, "UPDATE meta SET value = '3' WHERE key = 'schema'"); /* LBS_CALIB_SCHEMA + 1 */
  for (int create = 0; create <= 1; create++) {
    cr_assert_eq(lbs_calib_open(p, create, &db), LBS_VERSION);
    cr_assert_null(db);
    char want[64];
    snprintf(want, sizeof want, "reads versions 1 to %d", LBS_CALIB_SCHEMA);
    cr_assert(strstr(lbs_errmsg(), "version '3'") && strstr(lbs_errmsg(), want), "%s",
              lbs_errmsg());
  }
  sql(p, "DELETE FROM meta WHERE key = 'schema'");
  cr_assert_eq(lbs_calib_open(p, 0, &db), LBS_CORRUPT);
  free(p);
  tu_rmrf(dir);
}

Test(db, other_files_are_not_calibration_databases) {
  char *dir = tu_tmpdir(), *trace = tu_path(dir, "trace.lbt"), *other = tu_path(dir, "other.db"),
       *text = tu_path(dir, "notes.txt"), *empty = tu_path(dir, "empty.db");
  sql(trace, "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
             "INSERT INTO meta VALUES('format', 'lbsim-trace');"
             "CREATE TABLE chunks(id INTEGER PRIMARY KEY, data BLOB)");
  sql(other, "CREATE TABLE runs(id INTEGER PRIMARY KEY, total_time_s REAL)");
  tu_write(text, "implementation,device,metric,seconds\nsort.cpu,cpu,10,1\n");
  struct stat before, after;
  cr_assert_eq(stat(trace, &before), 0);
  char tables[64], buf[64];
  sql_text(trace, "SELECT count(*) FROM sqlite_master", tables, sizeof tables);
  lbs_calib_db *db;
  for (int create = 0; create <= 1; create++) {
    cr_assert_eq(lbs_calib_open(trace, create, &db), LBS_FORMAT);
    cr_assert(strstr(lbs_errmsg(), "format 'lbsim-trace'"), "%s", lbs_errmsg());
    cr_assert_eq(lbs_calib_open(other, create, &db), LBS_FORMAT);
    cr_assert_eq(lbs_calib_open(text, create, &db), LBS_FORMAT);
    cr_assert(strstr(lbs_errmsg(), "not an SQLite file"), "%s", lbs_errmsg());
  }
  cr_assert_eq(stat(trace, &after), 0);
  cr_assert_eq(before.st_size, after.st_size);
  sql_text(trace, "SELECT count(*) FROM sqlite_master", buf, sizeof buf);
  cr_assert_str_eq(buf, tables, "the trace was not changed");
  /* an empty file: not one to read; made one when creating */
  tu_write(empty, "");
  cr_assert_eq(lbs_calib_open(empty, 0, &db), LBS_FORMAT);
  cr_assert_eq(lbs_calib_open(empty, 1, &db), LBS_OK, "%s", lbs_errmsg());
  lbs_calib_close(&db);
  cr_assert_eq(lbs_calib_open(empty, 0, &db), LBS_OK, "%s", lbs_errmsg());
  lbs_calib_close(&db);
  free(trace);
  free(other);
  free(text);
  free(empty);
  tu_rmrf(dir);
}

Test(db, missing_files_and_directories) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "calib.db"), *deep = tu_path(dir, "no/such/calib.db");
  lbs_calib_db *db;
  cr_assert_eq(lbs_calib_open("", 1, &db), LBS_INVAL);
  cr_assert_eq(lbs_calib_open(p, 0, &db), LBS_IO, "create = 0 needs an existing database");
  cr_assert(strstr(lbs_errmsg(), p), "%s", lbs_errmsg());
  cr_assert_neq(access(p, F_OK), 0, "nothing made");
  cr_assert_eq(lbs_calib_open(deep, 1, &db), LBS_IO);
  cr_assert(strstr(lbs_errmsg(), deep), "%s", lbs_errmsg());
  cr_assert_eq(lbs_calib_open(p, 1, &db), LBS_OK, "%s", lbs_errmsg());
  lbs_calib_close(&db);
  cr_assert_eq(lbs_calib_open(p, 1, &db), LBS_OK, "an existing one opens with create = 1: %s",
               lbs_errmsg());
  lbs_calib_close(&db);
  free(p);
  free(deep);
  tu_rmrf(dir);
}

/* A FIFO, a directory and a device are refused at once, never opened (the alarm ends a test
 * that waits on the FIFO; Criterion's own .timeout leaks under LeakSanitizer). */
Test(db, not_regular_files_are_refused_without_blocking) {
  alarm(10);
  char *dir = tu_tmpdir(), *fifo = tu_path(dir, "calib.db");
  cr_assert_eq(mkfifo(fifo, 0600), 0);
  lbs_calib_db *db;
  const char *paths[] = {fifo, dir, "/dev/null"};
  for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
    for (int create = 0; create <= 1; create++) {
      cr_assert_eq(lbs_calib_open(paths[i], create, &db), LBS_IO, "%s", paths[i]);
      cr_assert(strstr(lbs_errmsg(), "not a regular file"), "%s", lbs_errmsg());
      cr_assert_null(db);
    }
  struct stat sb;
  cr_assert_eq(stat(fifo, &sb), 0);
  cr_assert(S_ISFIFO(sb.st_mode), "the FIFO is still there");
  free(fifo);
  tu_rmrf(dir);
}

/* Every IPG is its own transaction: one put and then nothing (no close) survives; so does
 * one put before a SIGKILL in the middle of another write. */
Test(db, a_writer_killed_between_puts_keeps_the_first) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "calib.db");
  lbs_ipg_rec a = make_rec("sort.cpu", "cpu", "complete", 4, 1e-8);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) { /* put one, then leave without closing */
    lbs_calib_db *db;
    if (lbs_calib_open(p, 1, &db) || lbs_calib_put_ipg(db, &a)) _exit(1);
    _exit(0);
  }
  int status;
  waitpid(pid, &status, 0);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  int fd[2];
  cr_assert_eq(pipe(fd), 0);
  pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) { /* put a second one, then get killed inside a third write */
    close(fd[0]);
    lbs_calib_db *db;
    lbs_ipg_rec b = make_rec("dot.cpu", "cpu", "complete", 3, 1e-9);
    if (lbs_calib_open(p, 1, &db) || lbs_calib_put_ipg(db, &b)) _exit(1);
    sqlite3 *raw;
    if (sqlite3_open(p, &raw) ||
        sqlite3_exec(raw,
                     "BEGIN IMMEDIATE; UPDATE ipgs SET impl = 'half-written'; DELETE FROM meta",
                     NULL, NULL, NULL))
      _exit(2);
    for (int i = 0; i < 50; i++) /* dirty pages reach the file, the journal is hot */
      sqlite3_exec(raw, "INSERT INTO runs(started, command) VALUES('x', hex(randomblob(2000)))",
                   NULL, NULL, NULL);
    sqlite3_db_cacheflush(raw);
    if (write(fd[1], "k", 1) != 1) _exit(3);
    pause();
    _exit(4);
  }
  close(fd[1]);
  char c;
  cr_assert_eq(read(fd[0], &c, 1), 1, "the child did not get to its write");
  close(fd[0]);
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  char journal[4200];
  snprintf(journal, sizeof journal, "%s-journal", p);
  cr_assert_eq(access(journal, F_OK), 0, "killed inside a write: a hot journal is left");

  lbs_calib_db *db;
  cr_assert_eq(lbs_calib_open(p, 0, &db), LBS_OK, "%s", lbs_errmsg());
  lbs_ipg_rec *r;
  int n;
  cr_assert_eq(lbs_calib_list(db, &r, &n), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(n, 2, "both committed IPGs are there, the killed write is not");
  cr_assert_str_eq(r[0].impl, "sort.cpu");
  cr_assert_str_eq(r[1].impl, "dot.cpu");
  cr_assert_eq(r[0].ipg.n, 4);
  free_recs(r, n);
  lbs_calib_close(&db);
  char buf[32];
  sql_text(p, "SELECT count(*) FROM runs", buf, sizeof buf);
  cr_assert_str_eq(buf, "0");
  lbs_ipg_rec_free(&a);
  free(p);
  tu_rmrf(dir);
}

Test(db, json_export_is_valid_json) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "calib.db"), *out = tu_path(dir, "calib.json");
  lbs_calib_db *db;
  cr_assert_eq(lbs_calib_open(p, 1, &db), LBS_OK, "%s", lbs_errmsg());
  FILE *f = fopen(out, "w");
  cr_assert_eq(lbs_calib_export_json(db, f), LBS_OK, "an empty database: %s", lbs_errmsg());
  fclose(f);
  char *t = slurp(out);
  cr_assert(is_json(t), "%s", t);
  free(t);

  int64_t run;
  cr_assert_eq(
      lbs_calib_begin_run(db, "import \"x.csv\"\n", "{\"cores\": 2, \"model\": \"a\\\"b\"}", &run),
      LBS_OK);
  cr_assert_eq(lbs_calib_begin_run(db, "run", "not json {", NULL), LBS_OK);
  cr_assert_eq(lbs_calib_begin_run(db, "run", NULL, NULL), LBS_OK);
  lbs_ipg_rec a = make_rec("sort.cpu", "cpu: \"quoted\" \\ back\tslash\x01 caf\xc3\xa9 bad\xff",
                           "complete", 3, 1e-8);
  a.run_id = run;
  a.seconds = INFINITY;
  a.hi = NAN;
  snprintf(a.message, sizeof a.message, "line one\nline two, \"three\"");
  put(db, &a);
  lbs_ipg_rec b = make_rec("dot.cpu", "cpu", "failed", 0, 0);
  free(b.params);
  b.params = strdup("{broken");
  put(db, &b);
  lbs_verify v = {.n = 2,
                  .floor_s = 1e-5,
                  .mean_err = NAN,
                  .rms_err = 0.1,
                  .max_err = INFINITY,
                  .points = (lbs_sample[]){{10, 1}, {20, 2}},
                  .pred = (double[]){1.5, NAN}};
  cr_assert_eq(lbs_calib_put_verify(db, a.id, &v), LBS_OK);
  f = fopen(out, "w");
  cr_assert_eq(lbs_calib_export_json(db, f), LBS_OK, "%s", lbs_errmsg());
  fclose(f);
  t = slurp(out);
  cr_assert(is_json(t), "%s", t);
  cr_assert(strstr(t, "\"format\": \"lbsim-calibration\""), "%s", t);
  cr_assert(strstr(t, "cpu: \\\"quoted\\\" \\\\ back\\tslash\\u0001 caf\xc3\xa9 bad\xef\xbf\xbd\""),
            "escapes, a bad byte as U+FFFD: %s", t);
  cr_assert(strstr(t, "\"line one\\nline two, \\\"three\\\"\""), "%s", t);
  cr_assert(strstr(t, "\"machine\": {\"cores\": 2, \"model\": \"a\\\"b\"}"),
            "valid JSON embedded: %s", t);
  cr_assert(strstr(t, "\"machine\": \"not json {\""), "invalid JSON as a string: %s", t);
  cr_assert(strstr(t, "\"machine\": null"), "%s", t);
  cr_assert(strstr(t, "\"params\": \"{broken\""), "%s", t);
  cr_assert(strstr(t, "\"seconds\": null") && strstr(t, "\"hi\": null"), "non-finite as null: %s",
            t);
  cr_assert(strstr(t, "\"points\": [[10, 1, 1.5], [20, 2, null]]"), "%s", t);
  const char *at = strstr(t, "\"points\": [[10, ");
  cr_assert(at, "%s", t);
  char *end;
  cr_assert_eq(strtod(at + 15, &end), a.ipg.t[0], "numbers read back exactly: %s", at);
  cr_assert(!strncmp(end, "], [20, ", 8), "%s", at);
  cr_assert_eq(strtod(end + 8, NULL), a.ipg.t[1]);
  cr_assert(strstr(t, "\"lo\": 10,"), "a whole number as an integer: %s", t);
  at = strstr(t, "\"floor_s\": ");
  cr_assert(at && strtod(at + 11, &end) == 1e-5 && *end == ',', "17 digits that read back: %s",
            at ? at : t);
  free(t);
  /* and Python's parser agrees, when there is one */
  if (system("command -v python3 >/dev/null 2>&1") == 0) {
    char cmd[512];
    snprintf(
        cmd, sizeof cmd,
        "python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding=\"utf-8\")); "
        "assert len(d[\"ipgs\"]) == 2 and len(d[\"runs\"]) == 3 and d[\"ipgs\"][0][\"samples\"][5][0] == 30' %s",
        out);
    cr_assert_eq(system(cmd), 0, "python3 json.load failed");
  }
  /* a write that fails is an error */
  f = fopen("/dev/full", "w");
  if (f) {
    cr_assert_eq(lbs_calib_export_json(db, f), LBS_IO);
    fclose(f);
  }
  lbs_calib_close(&db);
  lbs_ipg_rec_free(&a);
  lbs_ipg_rec_free(&b);
  free(p);
  free(out);
  tu_rmrf(dir);
}

Test(db, csv_export) {
  alarm(10); /* a FIFO below */
  char *dir = tu_tmpdir(), *p = tu_path(dir, "calib.db"), *out = tu_path(dir, "csv/sub");
  lbs_calib_db *db;
  cr_assert_eq(lbs_calib_open(p, 1, &db), LBS_OK, "%s", lbs_errmsg());
  lbs_ipg_rec a = make_rec("sort.cpu", "cpu: Intel, 4 cores", "partial", 2, 1e-8);
  snprintf(a.message, sizeof a.message, "stopped: \"limit\", sample 7");
  a.lo = NAN;
  put(db, &a);
  lbs_verify v = {.n = 1,
                  .floor_s = 1e-5,
                  .mean_err = 0.5,
                  .rms_err = 0.25,
                  .max_err = 1,
                  .mean_err_floor = 0.125,
                  .points = (lbs_sample[]){{10, 1}},
                  .pred = (double[]){1.5}};
  cr_assert_eq(lbs_calib_put_verify(db, a.id, &v), LBS_OK);
  cr_assert_eq(lbs_calib_export_csv(db, out), LBS_OK, "%s", lbs_errmsg());
  char *ipgs = tu_path(out, "ipgs.csv"), *points = tu_path(out, "points.csv"),
       *samples = tu_path(out, "samples.csv"), *verifies = tu_path(out, "verifies.csv");
  char *t = slurp(ipgs);
  const char *head =
      "id,run_id,impl,kernel,device,metric,lo,hi,status,message,created,seconds,npoints,nsamples,params\n";
  cr_assert(!strncmp(t, head, strlen(head)), "%s", t);
  cr_assert(
      strstr(
          t,
          "\n1,,sort.cpu,sort,\"cpu: Intel, 4 cores\",elements,,20,partial,\"stopped: \"\"limit\"\", sample 7\","),
      "%s", t);
  cr_assert(strstr(t, ",1.25,2,4,\"{\"\"accuracy_pct\"\": 5, \"\"window\"\": 3}\"\n"), "%s", t);
  free(t);
  t = slurp(points);
  double t0, t1;
  int nread = -1;
  cr_assert_eq(sscanf(t, "ipg_id,w,t\n1,10,%lf\n1,20,%lf\n%n", &t0, &t1, &nread), 2, "%s", t);
  cr_assert(nread == (int)strlen(t) && t0 == a.ipg.t[0] && t1 == a.ipg.t[1],
            "numbers read back exactly: %s", t);
  free(t);
  t = slurp(samples);
  cr_assert(!strncmp(t, "ipg_id,seq,w,t\n1,0,5,", 21), "%s", t);
  int lines = 0;
  for (char *q = t; *q; q++) lines += *q == '\n';
  cr_assert_eq(lines, 5);
  free(t);
  t = slurp(verifies);
  cr_assert(strstr(t, "id,ipg_id,created,n,floor_s,mean_err,rms_err,max_err,mean_err_floor\n1,1,"),
            "%s", t);
  cr_assert(strstr(t, ",1,1e-05,0.5,0.25,1,0.125\n"), "%s", t);
  free(t);
  /* again: regular files are replaced */
  cr_assert_eq(lbs_calib_export_csv(db, out), LBS_OK, "%s", lbs_errmsg());
  /* a FIFO where a file goes is refused, never opened; so is a directory for dir */
  unlink(points);
  cr_assert_eq(mkfifo(points, 0600), 0);
  cr_assert_eq(lbs_calib_export_csv(db, out), LBS_IO);
  cr_assert(strstr(lbs_errmsg(), "points.csv: not a regular file"), "%s", lbs_errmsg());
  struct stat sb;
  cr_assert_eq(stat(points, &sb), 0);
  cr_assert(S_ISFIFO(sb.st_mode));
  cr_assert_eq(lbs_calib_export_csv(db, ipgs), LBS_IO, "a file as the directory");
  char leftover[4300];
  snprintf(leftover, sizeof leftover, "ls -a '%s' | grep -q '^\\.'[a-z]", out);
  cr_assert_neq(system(leftover), 0, "no temporary files left behind");
  lbs_calib_close(&db);
  lbs_ipg_rec_free(&a);
  free(ipgs);
  free(points);
  free(samples);
  free(verifies);
  free(p);
  free(out);
  tu_rmrf(dir);
}

/* ================================================================ CSV import */

Test(csv, reads_quotes_comments_crlf) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "samples.csv");
  tu_write(p,
           "\xEF\xBB\xBF# measured on the lab machine\r\n"
           "\r\n"
           "Time_s, Extra ,Implementation,DEVICE,Work_Metric\r\n"
           "0.5,x,sort.cpu,\"cpu: Intel, 4 cores\",100\r\n"
           "   # a comment between rows\r\n"
           "0.25 , \"say \"\"hi\"\"\" , sort.cpu , \"cpu: Intel, 4 cores\" , 50\r\n"
           "1e-3,,\"dot.cpu\",\"cpu: \"\"quoted\"\"\",1000\r\n"
           "0.75,\"two\r\nlines\",sort.cpu,\"cpu: Intel, 4 cores\",150"); /* no final line break */
  lbs_import_group *g;
  int n;
  cr_assert_eq(lbs_calib_read_csv(p, &g, &n), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(n, 2);
  cr_assert_str_eq(g[0].impl, "sort.cpu");
  cr_assert_str_eq(g[0].device, "cpu: Intel, 4 cores");
  cr_assert_eq(g[0].n, 3);
  cr_assert(g[0].samples[0].w == 100 && g[0].samples[0].t == 0.5);
  cr_assert(g[0].samples[1].w == 50 && g[0].samples[1].t == 0.25, "file order kept");
  cr_assert(g[0].samples[2].w == 150 && g[0].samples[2].t == 0.75);
  cr_assert_str_eq(g[1].impl, "dot.cpu");
  cr_assert_str_eq(g[1].device, "cpu: \"quoted\"");
  cr_assert_eq(g[1].n, 1);
  cr_assert(g[1].samples[0].w == 1000 && g[1].samples[0].t == 1e-3);
  lbs_import_groups_free(g, n);
  lbs_import_groups_free(NULL, 0);
  /* plain names and LF */
  tu_write(p, "implementation,device,metric,seconds\na,d1,1,2\nb,d1,3,4\na,d2,5,6\na,d1,7,8\n");
  cr_assert_eq(lbs_calib_read_csv(p, &g, &n), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(n, 3, "grouped by (implementation, device)");
  cr_assert(!strcmp(g[0].impl, "a") && !strcmp(g[0].device, "d1") && g[0].n == 2 &&
            g[0].samples[1].w == 7);
  cr_assert(!strcmp(g[1].impl, "b") && g[1].n == 1);
  cr_assert(!strcmp(g[2].impl, "a") && !strcmp(g[2].device, "d2") && g[2].n == 1);
  lbs_import_groups_free(g, n);
  free(p);
  tu_rmrf(dir);
}

/* Each malformed file fails with LBS_PARSE naming the path, the line and what. */
Test(csv, malformed_files_name_the_line) {
  alarm(10); /* a FIFO at the end */
  static const struct {
    const char *text, *where, *what;
  } cases[] = {
      {"# c\nimplementation,device,metric\nsort,d,1\n", ":2:", "no 'seconds' column"},
      {"impl,device,work,time\nsort,d,1,2\n", NULL, NULL}, /* aliases: fine */
      {"implementation,device,metric,work,seconds\n", ":1:", "both the metric column"},
      {"implementation,device,metric,seconds\nsort,d,1,2\n\nsort,d,1\n",
       ":4:", "3 fields, the header has 4"},
      {"implementation,device,metric,seconds\r\nsort,d,1,2\r\n# x\r\nsort,d,1,2,3\r\n",
       ":4:", "5 fields"},
      {"implementation,device,metric,seconds\nsort,d,1,2\nsort,d,1,2\nsort,d,abc,2\n",
       ":4:", "metric 'abc' is not a number"},
      {"implementation,device,metric,seconds\nsort,d,1,2x\n",
       ":2:", "seconds '2x' is not a number"},
      {"implementation,device,metric,seconds\nsort,d,,2\n", ":2:", "empty metric"},
      {"implementation,device,metric,seconds\nsort,d,1,2\nsort,d,-5,2\n",
       ":3:", "metric -5 is negative"},
      {"implementation,device,metric,seconds\nsort,d,1,-0.1\n", ":2:", "seconds -0.1 is negative"},
      {"implementation,device,metric,seconds\nsort,d,1,inf\n",
       ":2:", "seconds 'inf' is not finite"},
      {"implementation,device,metric,seconds\nsort,d,nan,1\n", ":2:", "metric 'nan' is not finite"},
      {"implementation,device,metric,seconds\n\"\",d,1,2\n", ":2:", "empty implementation"},
      {"implementation,device,metric,seconds\n\"a\nb\",\"c\nd\",1,2\nsort,d,1\n",
       ":5:", "3 fields"},
      {"implementation,device,metric,seconds\nsort,d,1,2\nsort,\"d,1,2\nsort,d,1,2\n",
       ":3:", "quoted field is not closed"},
      {"implementation,device,metric,seconds\nsort,\"d\"x,1,2\n",
       ":2:", "text after the closing quote"},
      {"implementation,device,metric,seconds\nsort,d\"x,1,2\n",
       ":2:", "a quote inside unquoted field 2"},
      {"", NULL, "no samples"},
      {"# only a comment\n\n", NULL, "no samples"},
      {"implementation,device,metric,seconds\n# nothing\n", NULL, "no samples"},
  };
  char *dir = tu_tmpdir(), *p = tu_path(dir, "bad.csv");
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    tu_write(p, cases[i].text);
    lbs_import_group *g = (void *)1;
    int n = -1;
    lbs_err e = lbs_calib_read_csv(p, &g, &n);
    if (!cases[i].what) {
      cr_assert_eq(e, LBS_OK, "case %zu: %s", i, lbs_errmsg());
      lbs_import_groups_free(g, n);
      continue;
    }
    cr_assert_eq(e, LBS_PARSE, "case %zu: %s", i, lbs_strerror(e));
    cr_assert_null(g);
    cr_assert_eq(n, 0);
    char want[4200];
    snprintf(want, sizeof want, "%s%s", p, cases[i].where ? cases[i].where : ": ");
    cr_assert(strstr(lbs_errmsg(), want), "case %zu: '%s' lacks '%s'", i, lbs_errmsg(), want);
    cr_assert(strstr(lbs_errmsg(), cases[i].what), "case %zu: '%s' lacks '%s'", i, lbs_errmsg(),
              cases[i].what);
  }
  /* what lbs_read_file refuses */
  lbs_import_group *g;
  int n;
  cr_assert_eq(lbs_calib_read_csv(dir, &g, &n), LBS_IO);
  unlink(p);
  cr_assert_eq(lbs_calib_read_csv(p, &g, &n), LBS_IO);
  cr_assert_eq(mkfifo(p, 0600), 0);
  cr_assert_eq(lbs_calib_read_csv(p, &g, &n), LBS_IO, "a FIFO, refused at once");
  free(p);
  tu_rmrf(dir);
}

/* ================================================================ IPGs through samples */

/* Three segments with breaks at 5 and 12: t = w to 5, then slope 10 to 12, then slope 2. */
static double pw(double w) { return w <= 5 ? w : w <= 12 ? 5 + 10 * (w - 5) : 75 + 2 * (w - 12); }

Test(ipg_samples, bound_at) {
  lbs_ia_bound b = {5, 0.01, 0.2};
  cr_assert_float_eq(lbs_ia_bound_at(&b, 1), 0.05, 1e-15);
  cr_assert_float_eq(lbs_ia_bound_at(&b, 0.1), 0.01, 1e-15, "floor");
  cr_assert_float_eq(lbs_ia_bound_at(&b, 100), 0.2, 1e-15, "ceiling");
  b.max_s = 0;
  cr_assert_float_eq(lbs_ia_bound_at(&b, 100), 5, 1e-12, "no ceiling");
}

Test(ipg_samples, piecewise_linear_merges_to_three_segments) {
  lbs_sample s[20];
  for (int i = 0; i < 20; i++) { /* shuffled: metrics 1..20, out of order */
    double w = (double)((i * 7) % 20 + 1);
    s[i] = (lbs_sample){w, pw(w)};
  }
  lbs_ia_bound acc = {1, 1e-9, 0};
  lbs_ipg g;
  cr_assert_eq(lbs_ipg_from_samples(s, 20, &acc, &g), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(g.n, 4, "3 segments, %d points", g.n);
  const double ws[] = {1, 5, 12, 20};
  for (int i = 0; i < 4; i++) {
    cr_assert_eq(g.w[i], ws[i], "point %d at %g", i, g.w[i]);
    cr_assert_eq(g.t[i], pw(ws[i]));
  }
  for (double w = 1; w <= 20; w += 0.5)
    cr_assert_float_eq(lbs_ipg_eval(&g, w), pw(w), 1e-9, "at %g", w);
  lbs_ipg_free(&g);
  cr_assert_eq(g.n, 0);
}

Test(ipg_samples, noisy_samples_within_the_bound) {
  enum { M = 20, R = 5 };
  lbs_sample s[M * R];
  for (int i = 0; i < M; i++)
    for (int r = 0; r < R;
         r++) { /* +-0.5 % noise, and one wild outlier per metric the median drops */
      double noise = 0.01 * (lbs_rng_unit(7, (uint64_t)i, (uint64_t)r) - 0.5);
      if (r == 2) noise = i % 2 ? 0.5 : -0.3;
      s[i * R + r] = (lbs_sample){i + 1.0, pw(i + 1.0) * (1 + noise)};
    }
  lbs_ia_bound acc = {2, 1e-9, 0};
  lbs_ipg g;
  cr_assert_eq(lbs_ipg_from_samples(s, M * R, &acc, &g), LBS_OK, "%s", lbs_errmsg());
  cr_assert_leq(g.n, 6, "a few segments, not one per metric: %d points", g.n);
  cr_assert_eq(g.w[0], 1);
  cr_assert_eq(g.w[g.n - 1], M);
  for (int i = 1; i <= M; i++) /* within the bound of the true curve plus the noise */
    cr_assert_leq(fabs(lbs_ipg_eval(&g, i) - pw(i)), 0.03 * pw(i), "at %d", i);
  lbs_ipg_free(&g);
}

Test(ipg_samples, medians_and_errors) {
  lbs_ia_bound acc = {1, 1e-9, 0};
  lbs_ipg g;
  /* even counts: the mean of the two middle ones */
  lbs_sample even[] = {{1, 1}, {1, 3}, {2, 10}, {2, 2}, {2, 4}, {2, 100}};
  cr_assert_eq(lbs_ipg_from_samples(even, 6, &acc, &g), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(g.n, 2);
  cr_assert(g.t[0] == 2 && g.t[1] == 7, "medians %g %g", g.t[0], g.t[1]);
  lbs_ipg_free(&g);
  /* a small dip within the bound is noise, kept */
  lbs_sample dip[] = {{1, 1}, {2, 3}, {3, 2.99}, {4, 4}};
  cr_assert_eq(lbs_ipg_from_samples(dip, 4, &acc, &g), LBS_OK, "%s", lbs_errmsg());
  lbs_ipg_free(&g);
  /* more work, clearly less time */
  lbs_sample fall[] = {{10, 1}, {20, 2}, {30, 3}, {40, 1.5}, {50, 5}};
  cr_assert_eq(lbs_ipg_from_samples(fall, 5, &acc, &g), LBS_RANGE);
  cr_assert(strstr(lbs_errmsg(), "metric 40") && strstr(lbs_errmsg(), "metric 30"), "%s",
            lbs_errmsg());
  cr_assert_eq(g.n, 0);
  cr_assert_null(g.w);
  lbs_sample one[] = {{5, 1}, {5, 2}, {5, 3}};
  cr_assert_eq(lbs_ipg_from_samples(one, 3, &acc, &g), LBS_RANGE);
  cr_assert(strstr(lbs_errmsg(), "1 distinct work metric"), "%s", lbs_errmsg());
  cr_assert_eq(lbs_ipg_from_samples(one, 0, &acc, &g), LBS_RANGE);
  lbs_sample neg[] = {{1, 1}, {2, -1}};
  cr_assert_eq(lbs_ipg_from_samples(neg, 2, &acc, &g), LBS_RANGE);
  lbs_sample inf[] = {{1, 1}, {INFINITY, 1}};
  cr_assert_eq(lbs_ipg_from_samples(inf, 2, &acc, &g), LBS_RANGE);
}

Test(db, plans_round_trip_through_the_database) {
  char *dir = tu_tmpdir(), *path = tu_path(dir, "calib.db");
  lbs_calib_db *db = NULL;
  cr_assert_eq(lbs_calib_open(path, 1, &db), LBS_OK, "%s", lbs_errmsg());
  lbs_plan p = {0}, q = {0};
  snprintf(p.kernel, sizeof p.kernel, "sort");
  snprintf(p.tmpl, sizeof p.tmpl, "merge");
  p.threads = 2, p.ndev = 1, p.hi = 1e4, p.ovh_s = 1e-5;
  snprintf(p.devices[0], sizeof p.devices[0], "opencl: a / b");
  add_impl(&p, "sort.cpu", 1, 0, 3, (double[]){0, 5e3, 1e4}, (double[]){1e-5, 1e-3, 3e-3});
  add_impl(&p, "sort.opencl", 1, 1, 2, (double[]){0, 1e4}, (double[]){1e-3, 2e-3});
  cr_assert_eq(lbs_plan_build(&p), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_calib_put_plan(db, &p, "test"), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_calib_get_plan(db, "sort", 0, &q), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(q.id, p.id);
  cr_assert_eq(q.nws, p.nws);
  cr_assert_eq(q.nimpl, 2);
  cr_assert_str_eq(q.devices[0], "opencl: a / b");
  for (int ws = 0; ws < p.nws; ws++)
    for (double x = 0; x <= 1e4; x += 333)
      cr_assert_float_eq(lbs_plan_time(&q, ws, x), lbs_plan_time(&p, ws, x), 1e-15);
  lbs_plan_free(&q);
  cr_assert_eq(lbs_calib_get_plan(db, "dot", 0, &q), LBS_NOTFOUND);
  cr_assert(strstr(lbs_errmsg(), "no plan of dot"), "%s", lbs_errmsg());
  lbs_plan_free(&p);
  lbs_calib_close(&db);
  /* a damaged graph is found */
  sql(path, "UPDATE plan_graphs SET pieces = zeroblob(56) WHERE ws = 0 AND kind = 'fpg'");
  cr_assert_eq(lbs_calib_open(path, 0, &db), LBS_OK);
  cr_assert_eq(lbs_calib_get_plan(db, NULL, 0, &q), LBS_CORRUPT);
  lbs_calib_close(&db);
  free(path);
  tu_rmrf(dir);
}

Test(db, a_version_1_file_gets_the_plan_tables_when_opened_for_writing) {
  char *dir = tu_tmpdir(), *p = tu_path(dir, "calib.db");
  lbs_calib_db *db;
  cr_assert_eq(lbs_calib_open(p, 1, &db), LBS_OK, "%s", lbs_errmsg());
  lbs_calib_close(&db);
  sql(p,
      "DROP TABLE plan_graphs; DROP TABLE plan_impls; DROP TABLE plans; UPDATE meta SET value = '1' WHERE key = 'schema'");
  lbs_plan q;
  cr_assert_eq(lbs_calib_open(p, 0, &db), LBS_OK, "%s", lbs_errmsg()); /* read as it is */
  cr_assert_eq(lbs_calib_get_plan(db, NULL, 0, &q), LBS_NOTFOUND);
  cr_assert(strstr(lbs_errmsg(), "version 1"), "%s", lbs_errmsg());
  lbs_calib_close(&db);
  cr_assert_eq(lbs_calib_open(p, 1, &db), LBS_OK, "%s", lbs_errmsg()); /* upgraded */
  cr_assert_eq(lbs_calib_get_plan(db, NULL, 0, &q), LBS_NOTFOUND);
  cr_assert(strstr(lbs_errmsg(), "no plans ("), "%s", lbs_errmsg());
  lbs_calib_close(&db);
  char buf[64];
  sql_text(p, "SELECT value FROM meta WHERE key = 'schema'", buf, sizeof buf);
  cr_assert_eq(atoi(buf), LBS_CALIB_SCHEMA);
  free(p);
  tu_rmrf(dir);
}
