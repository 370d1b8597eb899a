/* The results store's readers (lbs_results): what the writers wrote read back through every
 * reader, narrowed to a study, in the orders the commands use; stores of schemas 1 and 2 read
 * with their missing columns NULL; what is not a store refused with the messages it always had. */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lbs_study.h"
#include "results_fixtures.h"
#include "testutil.h"

/* A study's provenance and a run's (task -1: none). */
static lbs_study_info study(const char *id, const char *kind, const char *started) {
  return (lbs_study_info){.id = id,
                          .kind = kind,
                          .command = "lbsim x",
                          .version = "9.9",
                          .host = "h",
                          .started = started};
}

static lbs_run_info run_info(int64_t task) {
  return (lbs_run_info){.trace = "dir/t.lbt",
                        .grid = "g.ini",
                        .trace_hash = "ab",
                        .grid_hash = "cd",
                        .cost = "model",
                        .overrides = "grid.x=1\ngrid.y=2",
                        .config = "[grid]\nx = 1\n",
                        .labels = "{\"policy\":\"fixed:1\"}",
                        .task = task,
                        .optimum_s = NAN,
                        .gap_to_optimal = NAN};
}

/* Saves n copies of r as one study's runs, task[i] each (-1: none). */
static void save_runs(const char *db, const char *id, const char *started, lbs_replay_result *r,
                      const int64_t *task, int n) {
  lbs_study_info si = study(id, "sweep", started);
  for (int i = 0; i < n; i++) {
    lbs_run_info ri = run_info(task[i]);
    cr_assert_eq(lbs_results_save_study(db, id ? &si : NULL, &r, &ri, 1, NULL), LBS_OK, "%s",
                 lbs_errmsg());
  }
}

/* Two partition rows of a study. */
static void save_partitions(const char *db, const char *id) {
  lbs_study_info si = study(id, "partition", "2026-01-01T00:00:00Z");
  lbs_partition_row w[2] = {
      {.run = {.trace = "t.lbt", .grid = "g.ini", .config = "[grid]\nx = 2\n"},
       .step = 4,
       .elements = 10,
       .moved = 3,
       .partitioner = "minex",
       .procs = 2,
       .maxqwgt_s = 1.5,
       .loadimb = 1.1,
       .edge_cut = NAN,
       .wall_s = 0.01},
      {.run = {.trace = "t.lbt", .grid = "g.ini", .config = "[grid]\nx = 2\n"},
       .step = 4,
       .elements = 10,
       .moved = 1,
       .partitioner = "metis",
       .procs = 2,
       .maxqwgt_s = 1.7,
       .loadimb = 1.2,
       .edge_cut = 12,
       .wall_s = 0.02}};
  cr_assert_eq(lbs_results_save_partitions(db, &si, w, 2), LBS_OK, "%s", lbs_errmsg());
}

/* What a callback reader handed over, kept for the test. */
typedef struct seen {
  int n, stop_at; /* rows seen; return LBS_IO at this row (0: never) */
  lbs_results_step steps[8];
  lbs_results_proc procs[16];
  lbs_results_repart reparts[4];
  lbs_results_point points[8];
} seen;

static lbs_err on_step(void *arg, const lbs_results_step *s) {
  seen *v = arg;
  if (v->stop_at && v->n + 1 == v->stop_at) return LBS_IO;
  cr_assert_lt(v->n, 8);
  v->steps[v->n++] = *s;
  return LBS_OK;
}

static lbs_err on_proc(void *arg, const lbs_results_proc *p) {
  seen *v = arg;
  cr_assert_lt(v->n, 16);
  v->procs[v->n++] = *p;
  return LBS_OK;
}

static lbs_err on_repart(void *arg, const lbs_results_repart *r) {
  seen *v = arg;
  cr_assert_lt(v->n, 4);
  v->reparts[v->n++] = *r;
  return LBS_OK;
}

static lbs_err on_point(void *arg, const lbs_results_point *p) {
  seen *v = arg;
  cr_assert_lt(v->n, 8);
  v->points[v->n++] = *p;
  return LBS_OK;
}

/* What a table's reader handed over, as text. */
typedef struct text {
  char data[16384];
  size_t len;
} text;

static void add(text *t, const char *s) {
  size_t n = strlen(s);
  cr_assert_lt(t->len + n, sizeof t->data);
  memcpy(t->data + t->len, s, n + 1);
  t->len += n;
}

/* A table's header and rows as text: "a,b\n1,'x',NULL\n" (reals as %g). */
static lbs_err on_row(void *arg, int n, const char *const *names, const lbs_results_val *row) {
  text *b = arg;
  char one[256];
  for (int k = 0; k < n; k++) {
    const lbs_results_val *v = row ? &row[k] : NULL;
    if (!v)
      snprintf(one, sizeof one, "%s", names[k]);
    else if (v->type == LBS_RV_INT)
      snprintf(one, sizeof one, "%lld", (long long)v->i);
    else if (v->type == LBS_RV_REAL)
      snprintf(one, sizeof one, "%g", v->d);
    else if (v->type == LBS_RV_TEXT)
      snprintf(one, sizeof one, "'%s'", v->s);
    else
      snprintf(one, sizeof one, "NULL");
    if (k) add(b, ",");
    add(b, one);
  }
  add(b, "\n");
  return LBS_OK;
}

/* One study's two runs (the first with a policy's series), another study's partition rows, a
 * validation of the first run: every reader gives back what was written. */
Test(results_read, every_reader_gives_back_what_was_written) {
  char *dir = tu_tmpdir(), *db = tu_path(dir, "r.db");
  lbs_replay_result r = run();
  static int64_t sstep[2] = {0, 2};
  static double sval[2] = {5, 7};
  r.series_step = sstep, r.series_value = sval, r.nseries = 2, r.ranks = 3;
  lbs_study_info si = study("a", "policy compare", "2026-01-02T00:00:00Z");
  lbs_run_info ri[2] = {run_info(-1), run_info(-1)};
  ri[0].optimum_s = 2e-6, ri[0].gap_to_optimal = 0.425;
  lbs_replay_result r2 = run(), *rs[2] = {&r, &r2};
  r2.policy = "none";
  cr_assert_eq(lbs_results_save_study(db, &si, rs, ri, 2, NULL), LBS_OK, "%s", lbs_errmsg());
  save_partitions(db, "b");
  double m[3] = {3, 1, 2};
  lbs_validation v = {.run = 1,
                      .app = "wave",
                      .args = "-n 4",
                      .ranks = 2,
                      .schedule = "10,20",
                      .predicted_s = 2.5,
                      .nmeasured = 3,
                      .measured_s = m};
  int64_t vid = 0;
  cr_assert_eq(lbs_results_save_validation_id(db, &v, &vid), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(vid, 1, "the new validation's id");
  lbs_validation_pair vp = {.a = 1,
                            .b = 1,
                            .policy_a = "none",
                            .policy_b = "fixed:5",
                            .predicted_gain = 0.25,
                            .measured_gain = 0.5,
                            .measured_gain_min = 0.25,
                            .measured_gain_max = 0.75,
                            .rounds = 3,
                            .gain_error_points = -25,
                            .predicted_within = 1,
                            .verdict = "agrees"};
  cr_assert_eq(lbs_results_save_validation_pairs(db, &vp, 1), LBS_OK, "%s", lbs_errmsg());

  lbs_results *h;
  cr_assert_eq(lbs_results_open(db, &h), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_results_version(h), 5);
  cr_assert(lbs_results_has_table(h, "series") && lbs_results_has_column(h, "runs", "ranks") &&
            lbs_results_has_column(h, "runs", "des_overlap"));
  cr_assert_not(lbs_results_has_table(h, "nope"));
  cr_assert_not(lbs_results_has_column(h, "runs", "nope"));

  const lbs_results_study *st;
  int64_t n;
  cr_assert_eq(lbs_results_studies(h, NULL, &st, &n), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(n, 2);
  cr_assert_str_eq(st[0].id, "b", "by start time");
  cr_assert_str_eq(st[0].kind, "partition");
  cr_assert(st[0].nruns == 0 && st[0].npartitions == 2 && st[0].tasks == 0);
  cr_assert_str_eq(st[1].id, "a");
  cr_assert(st[1].nruns == 2 && st[1].npartitions == 0);
  cr_assert_str_eq(st[1].command, "lbsim x");
  cr_assert_str_eq(st[1].started, "2026-01-02T00:00:00Z");
  cr_assert_null(st[1].file);

  const lbs_results_run *rr;
  cr_assert_eq(lbs_results_runs(h, NULL, LBS_RESULTS_BY_ID, &rr, &n), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(n, 2);
  cr_assert_eq(rr[0].id, 1);
  cr_assert_str_eq(rr[0].study, "a");
  cr_assert_eq(rr[0].task, LBS_RESULTS_NONE, "no task: NULL");
  cr_assert_str_eq(rr[0].trace, "dir/t.lbt");
  cr_assert_str_eq(rr[0].partitioner, "zoltan:rcb");
  cr_assert_str_eq(rr[0].policy, "fixed:1");
  cr_assert_str_eq(rr[1].policy, "none");
  cr_assert_str_eq(rr[0].mode, "bsp");
  cr_assert(rr[0].elements == 4 && rr[0].steps == 3 && rr[0].procs == 2 && rr[0].ranks == 3);
  cr_assert_float_eq(rr[0].total_time_s, 2850e-9, 1e-18);
  cr_assert(rr[0].repartitions == 1 && rr[0].nsteps == 3);
  cr_assert_str_eq(rr[0].overrides, "grid.x=1\ngrid.y=2");
  cr_assert_str_eq(rr[0].config, "[grid]\nx = 1\n");
  cr_assert_str_eq(rr[0].labels, "{\"policy\":\"fixed:1\"}");
  cr_assert_str_eq(rr[0].cost, "model");
  cr_assert_str_eq(rr[0].trace_hash, "ab");
  cr_assert_str_eq(rr[0].version, "9.9");
  cr_assert_not_null(rr[0].created);
  cr_assert_not_null(rr[0].partition_mode);
  cr_assert_null(rr[0].des_overlap, "a bsp run: NULL");
  cr_assert_float_eq(rr[0].gap_to_optimal, 0.425, 1e-12);
  cr_assert(isnan(rr[1].optimum_s) && isnan(rr[1].gap_to_optimal), "no optimum: NULL, read as NaN");

  seen sv = {0};
  cr_assert_eq(lbs_results_steps(h, 1, on_step, &sv), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(sv.n, 3);
  for (int s = 0; s < 3; s++) {
    cr_assert(sv.steps[s].run == 1 && sv.steps[s].step == s && sv.steps[s].app_step == 10 * s);
    cr_assert_eq(sv.steps[s].comm_ns, 200, "bsp: the step beyond its slowest compute");
    cr_assert_eq(sv.steps[s].partition_ns, s == 1 ? 50 : 0);
    cr_assert_eq(sv.steps[s].repartitioned, s == 1);
  }
  cr_assert_eq(sv.steps[0].time_ns, 1000);
  cr_assert_float_eq(sv.steps[0].imbalance, 0.25, 1e-12);
  sv = (seen){0};
  cr_assert_eq(lbs_results_procs(h, 1, on_proc, &sv), LBS_OK, "%s", lbs_errmsg());
  static const int64_t proc_ns[6] = {800, 600, 700, 700, 750, 740};
  cr_assert_eq(sv.n, 6);
  for (int i = 0; i < 6; i++)
    cr_assert(sv.procs[i].step == i / 2 && sv.procs[i].proc == i % 2 &&
              sv.procs[i].compute_ns == proc_ns[i]);
  sv = (seen){0};
  cr_assert_eq(lbs_results_reparts(h, 1, on_repart, &sv), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(sv.n, 1);
  cr_assert(sv.reparts[0].step == 1 && sv.reparts[0].partition_ns == 50 &&
            sv.reparts[0].migration_ns == 40 && sv.reparts[0].moved_elements == 2 &&
            sv.reparts[0].moved_bytes == 2048);
  sv = (seen){0};
  cr_assert_eq(lbs_results_series(h, NULL, on_point, &sv), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(sv.n, 2, "the first run's series only");
  cr_assert(sv.points[1].run == 1 && sv.points[1].k == 1 && sv.points[1].step == 2 &&
            sv.points[1].value == 7);

  const lbs_results_partition *p;
  cr_assert_eq(lbs_results_partitions(h, NULL, &p, &n), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(n, 2);
  cr_assert_str_eq(p[0].partitioner, "metis", "by trace, grid, step, then partitioner");
  cr_assert(p[0].edge_cut == 12 && p[0].moved == 1 && p[0].step == 4 && p[0].procs == 2);
  cr_assert(isnan(p[1].edge_cut), "a NaN was written as NULL");
  cr_assert_str_eq(p[1].study, "b");

  const lbs_results_validation *va;
  cr_assert_eq(lbs_results_validations(h, NULL, &va, &n), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(n, 1);
  cr_assert(va[0].run == 1 && va[0].ranks == 2 && va[0].real_runs == 3 && va[0].nmeasured == 3);
  cr_assert_str_eq(va[0].schedule, "10,20");
  cr_assert(va[0].measured_median_s == 2 && va[0].measured_min_s == 1 && va[0].measured_max_s == 3);
  cr_assert(va[0].measured_s[0] == 3 && va[0].measured_s[1] == 1 && va[0].measured_s[2] == 2,
            "each real run, by k");

  const lbs_results_config *c;
  cr_assert_eq(lbs_results_configs(h, NULL, &c, &n), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(n, 2, "each configuration once");
  cr_assert_str_eq(c[0].config, "[grid]\nx = 1\n");
  cr_assert_str_eq(c[1].config, "[grid]\nx = 2\n");

  /* any table, column by column */
  const char *const *t = lbs_results_tables();
  cr_assert_str_eq(t[0], "studies");
  cr_assert_str_eq(t[9], "measurements");
  cr_assert_str_eq(t[10], "validation_pairs");
  cr_assert_null(t[11]);
  static text b;
  b.len = 0, b.data[0] = '\0';
  cr_assert_eq(lbs_results_table(h, "measurements", NULL, on_row, &b), LBS_OK, "%s", lbs_errmsg());
  cr_assert_str_eq(b.data, "validation,k,total_s\n1,0,3\n1,1,1\n1,2,2\n");
  b.len = 0, b.data[0] = '\0';
  cr_assert_eq(lbs_results_table(h, "validation_pairs", "a", on_row, &b), LBS_OK, "%s",
               lbs_errmsg());
  cr_assert(strstr(b.data, "a,b,policy_a,policy_b,predicted_gain,measured_gain,"), "%s", b.data);
  cr_assert(strstr(b.data, "\n1,1,'none','fixed:5',"), "the pair, of its validation's study: %s",
            b.data);
  cr_assert(strstr(b.data, ",3,-25,1,'agrees'\n"), "%s", b.data);
  b.len = 0, b.data[0] = '\0';
  cr_assert_eq(lbs_results_table(h, "series", NULL, on_row, &b), LBS_OK, "%s", lbs_errmsg());
  cr_assert_str_eq(b.data, "run,k,step,value\n1,0,0,5\n1,1,2,7\n");
  b.len = 0, b.data[0] = '\0';
  cr_assert_eq(lbs_results_table(h, "runs", NULL, on_row, &b), LBS_OK, "%s", lbs_errmsg());
  cr_assert(!strncmp(b.data, "id,trace,grid,metric,", 21), "%s", b.data);
  cr_assert(strstr(b.data, "\n1,'dir/t.lbt','g.ini','time_ns','zoltan:rcb','fixed:1','bsp',4,3,2,"),
            "%s", b.data);
  cr_assert_eq(lbs_results_table(h, "nope", NULL, on_row, &b), LBS_INVAL);

  int64_t count;
  cr_assert_eq(lbs_results_count(h, "procs", NULL, &count), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(count, 12);
  cr_assert_eq(lbs_results_count(h, "assignment", NULL, &count), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(count, 0);

  /* a callback's error stops the reading and is what the reader returns */
  sv = (seen){.stop_at = 2};
  cr_assert_eq(lbs_results_steps(h, 1, on_step, &sv), LBS_IO);
  cr_assert_eq(sv.n, 1);
  lbs_results_close(&h);
  cr_assert_null(h);
  lbs_results_close(&h);
  lbs_results_close(NULL);
  free(db);
  tu_rmrf(dir);
}

/* Two sweeps and a run of no study in one store, saved interleaved and out of task order: a study
 * narrows every reader to its rows, and the listing's order keeps each study's runs together in
 * task order. */
Test(results_read, a_study_narrows_every_reader) {
  char *dir = tu_tmpdir(), *db = tu_path(dir, "r.db");
  lbs_replay_result r = run();
  static int64_t sstep[1] = {1};
  static double sval[1] = {4};
  r.series_step = sstep, r.series_value = sval, r.nseries = 1;
  save_runs(db, "s1", "2026-01-01T00:00:00Z", &r, (int64_t[]){2}, 1); /* run 1 */
  save_runs(db, "s2", "2026-01-02T00:00:00Z", &r, (int64_t[]){0}, 1); /* run 2 */
  save_runs(db, "s1", "2026-01-01T00:00:00Z", &r, (int64_t[]){0}, 1); /* run 3 */
  save_runs(db, NULL, NULL, &r, (int64_t[]){-1}, 1);                  /* run 4 */
  save_runs(db, "s1", "2026-01-01T00:00:00Z", &r, (int64_t[]){1}, 1); /* run 5 */
  save_partitions(db, "s2");
  double m[1] = {1};
  lbs_validation v = {
      .run = 3, .app = "a", .ranks = 2, .predicted_s = 1, .nmeasured = 1, .measured_s = m};
  cr_assert_eq(lbs_results_save_validation(db, &v), LBS_OK, "%s", lbs_errmsg());

  lbs_results *h;
  cr_assert_eq(lbs_results_open(db, &h), LBS_OK, "%s", lbs_errmsg());
  int found = -1;
  cr_assert_eq(lbs_results_has_study(h, "s1", &found), LBS_OK);
  cr_assert_eq(found, 1);
  cr_assert_eq(lbs_results_has_study(h, "zz", &found), LBS_OK);
  cr_assert_eq(found, 0);

  const lbs_results_run *rr;
  int64_t n;
  static const int64_t all[5] = {3, 5, 1, 2, 4};
  cr_assert_eq(lbs_results_runs(h, NULL, LBS_RESULTS_BY_STUDY, &rr, &n), LBS_OK, "%s",
               lbs_errmsg());
  cr_assert_eq(n, 5);
  for (int i = 0; i < 5; i++)
    cr_assert_eq(rr[i].id, all[i], "run %d: %lld", i, (long long)rr[i].id);
  cr_assert_eq(lbs_results_runs(h, "s1", LBS_RESULTS_BY_STUDY, &rr, &n), LBS_OK, "%s",
               lbs_errmsg());
  cr_assert(n == 3 && rr[0].id == 3 && rr[1].id == 5 && rr[2].id == 1, "s1 in task order");
  cr_assert_eq(lbs_results_runs(h, "s1", LBS_RESULTS_BY_ID, &rr, &n), LBS_OK, "%s", lbs_errmsg());
  cr_assert(n == 3 && rr[0].id == 1 && rr[1].id == 3 && rr[2].id == 5);
  cr_assert_eq(lbs_results_runs(h, "zz", LBS_RESULTS_BY_ID, &rr, &n), LBS_OK);
  cr_assert_eq(n, 0);

  const lbs_results_study *st;
  cr_assert_eq(lbs_results_studies(h, "s2", &st, &n), LBS_OK, "%s", lbs_errmsg());
  cr_assert(n == 1 && !strcmp(st[0].id, "s2") && st[0].nruns == 1 && st[0].npartitions == 2);
  const lbs_results_partition *p;
  cr_assert_eq(lbs_results_partitions(h, "s1", &p, &n), LBS_OK);
  cr_assert_eq(n, 0);
  cr_assert_eq(lbs_results_partitions(h, "s2", &p, &n), LBS_OK);
  cr_assert_eq(n, 2);
  const lbs_results_validation *va;
  cr_assert_eq(lbs_results_validations(h, "s2", &va, &n), LBS_OK);
  cr_assert_eq(n, 0);
  cr_assert_eq(lbs_results_validations(h, "s1", &va, &n), LBS_OK);
  cr_assert(n == 1 && va[0].run == 3);
  const lbs_results_config *c;
  cr_assert_eq(lbs_results_configs(h, "s1", &c, &n), LBS_OK);
  cr_assert(n == 1 && !strcmp(c[0].config, "[grid]\nx = 1\n"), "the runs' only");
  seen sv = {0};
  cr_assert_eq(lbs_results_series(h, "s2", on_point, &sv), LBS_OK);
  cr_assert(sv.n == 1 && sv.points[0].run == 2 && sv.points[0].value == 4);

  int64_t count;
  cr_assert_eq(lbs_results_count(h, "steps", "s1", &count), LBS_OK);
  cr_assert_eq(count, 9);
  cr_assert_eq(lbs_results_count(h, "measurements", "s1", &count), LBS_OK);
  cr_assert_eq(count, 1);
  cr_assert_eq(lbs_results_count(h, "runs", NULL, &count), LBS_OK);
  cr_assert_eq(count, 5);
  static text b;
  b.len = 0, b.data[0] = '\0';
  cr_assert_eq(lbs_results_table(h, "repartitions", "s2", on_row, &b), LBS_OK);
  cr_assert(
      !strncmp(
          b.data,
          "run,step,partition_ns,migration_ns,moved_elements,moved_bytes,wall_s\n2,1,50,40,2,2048,",
          84) &&
          !strchr(strchr(b.data, '\n') + 1, '\n')[1],
      "%s", b.data);
  b.len = 0, b.data[0] = '\0';
  cr_assert_eq(lbs_results_table(h, "studies", "s1", on_row, &b), LBS_OK);
  cr_assert(strstr(b.data, "\n's1','sweep'") && !strstr(b.data, "'s2'"), "%s", b.data);
  lbs_results_close(&h);
  free(db);
  tu_rmrf(dir);
}

/* A schema-1 store is read as it is: no studies, the runs by id with every later column NULL;
 * a study finds nothing in it, and the tables it lacks are not there to read. */
Test(results_read, a_schema_1_store_reads_with_later_columns_null) {
  char *dir = tu_tmpdir(), *db = tu_path(dir, "r.db");
  make_schema1(db);
  exec_sql(db, "INSERT INTO steps(run, step, time_ns) VALUES(1, 5, 100)");
  long n0, n1;
  char *before = slurp(db, &n0);
  lbs_results *h;
  cr_assert_eq(lbs_results_open(db, &h), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_results_version(h), 1);
  const lbs_results_study *st;
  int64_t n;
  cr_assert_eq(lbs_results_studies(h, NULL, &st, &n), LBS_OK);
  cr_assert_eq(n, 0);
  int found = 1;
  cr_assert_eq(lbs_results_has_study(h, "s", &found), LBS_OK);
  cr_assert_eq(found, 0);
  const lbs_results_run *rr;
  cr_assert_eq(lbs_results_runs(h, NULL, LBS_RESULTS_BY_STUDY, &rr, &n), LBS_OK, "%s",
               lbs_errmsg());
  cr_assert_eq(n, 1);
  cr_assert_str_eq(rr[0].trace, "old.lbt");
  cr_assert_str_eq(rr[0].policy, "none");
  cr_assert(!rr[0].study && !rr[0].created && !rr[0].config && !rr[0].partition_mode &&
            !rr[0].grid);
  cr_assert(rr[0].task == LBS_RESULTS_NONE && rr[0].ranks == LBS_RESULTS_NONE &&
            rr[0].elements == LBS_RESULTS_NONE);
  cr_assert(isnan(rr[0].total_time_s) && isnan(rr[0].optimum_s));
  cr_assert_eq(rr[0].nsteps, 1);
  cr_assert_eq(lbs_results_runs(h, "s", LBS_RESULTS_BY_STUDY, &rr, &n), LBS_OK);
  cr_assert_eq(n, 0, "no study column: none of a study's");
  seen sv = {0};
  cr_assert_eq(lbs_results_steps(h, 1, on_step, &sv), LBS_OK, "%s", lbs_errmsg());
  cr_assert(sv.n == 1 && sv.steps[0].step == 5 && sv.steps[0].time_ns == 100);
  cr_assert(sv.steps[0].comm_ns == LBS_RESULTS_NONE &&
            sv.steps[0].migration_ns == LBS_RESULTS_NONE && isnan(sv.steps[0].imbalance));
  sv = (seen){0};
  cr_assert_eq(lbs_results_procs(h, 1, on_proc, &sv), LBS_OK);
  cr_assert_eq(lbs_results_series(h, NULL, on_point, &sv), LBS_OK);
  cr_assert_eq(sv.n, 0);
  const lbs_results_partition *p;
  const lbs_results_validation *va;
  const lbs_results_config *c;
  cr_assert_eq(lbs_results_partitions(h, NULL, &p, &n), LBS_OK);
  cr_assert_eq(n, 0);
  cr_assert_eq(lbs_results_validations(h, NULL, &va, &n), LBS_OK);
  cr_assert_eq(n, 0);
  cr_assert_eq(lbs_results_configs(h, NULL, &c, &n), LBS_OK);
  cr_assert_eq(n, 0);
  int64_t count = -1;
  cr_assert_eq(lbs_results_count(h, "partitions", NULL, &count), LBS_OK);
  cr_assert_eq(count, 0);
  static text b;
  b.len = 0, b.data[0] = '\0';
  cr_assert_eq(lbs_results_table(h, "studies", NULL, on_row, &b), LBS_OK);
  cr_assert_eq(b.len, 0, "no table: nothing handed over");
  cr_assert_eq(lbs_results_table(h, "runs", "s", on_row, &b), LBS_OK);
  cr_assert_eq(b.len, 0, "no study column: nothing of a study's");
  cr_assert_eq(lbs_results_table(h, "runs", NULL, on_row, &b), LBS_OK);
  cr_assert(
      !strncmp(b.data, "id,trace,grid,metric,partitioner,policy,mode,elements,steps,procs,", 66) &&
          !strstr(b.data, "study"),
      "%s", b.data);
  lbs_results_close(&h);
  char *after = slurp(db, &n1);
  cr_assert(n0 == n1 && !memcmp(before, after, (size_t)n0), "reading changed the file");
  free(before), free(after), free(db);
  tu_rmrf(dir);
}

/* A schema-2 store reads without partition_mode and ranks, and is not upgraded by reading. */
Test(results_read, a_schema_2_store_reads_without_its_schema_3_columns) {
  char *dir = tu_tmpdir(), *db = tu_path(dir, "r.db");
  lbs_replay_result r = run();
  r.ranks = 2;
  make_schema2(db, &r);
  lbs_results *h;
  cr_assert_eq(lbs_results_open(db, &h), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_results_version(h), 2);
  const lbs_results_run *rr;
  int64_t n;
  cr_assert_eq(lbs_results_runs(h, NULL, LBS_RESULTS_BY_STUDY, &rr, &n), LBS_OK, "%s",
               lbs_errmsg());
  cr_assert_eq(n, 1);
  cr_assert(!rr[0].partition_mode && rr[0].ranks == LBS_RESULTS_NONE && !rr[0].des_overlap);
  cr_assert_str_eq(rr[0].trace, "t.lbt");
  cr_assert_not_null(rr[0].created, "schema 2's columns are there");
  cr_assert_eq(rr[0].nsteps, 3);
  lbs_results_close(&h);
  cr_assert_eq(query(db, "PRAGMA user_version"), 2, "reading does not upgrade");
  free(db);
  tu_rmrf(dir);
}

/* Opens path, expecting e with a message that has want; the handle stays NULL. */
static void refused(const char *path, lbs_err e, const char *want) {
  lbs_results *h = (lbs_results *)&h;
  cr_assert_eq(lbs_results_open(path, &h), e, "%s: %s", path, lbs_errmsg());
  cr_assert(strstr(lbs_errmsg(), want), "%s", lbs_errmsg());
  cr_assert_null(h);
}

/* What is not a results store is refused with the messages lbsim results and lbsim report always
 * gave, and left as it was; a damaged store opens, and the reader that meets the damage says so. */
Test(results_read, what_is_not_a_store_is_refused) {
  char *dir = tu_tmpdir(), *db = tu_path(dir, "r.db"), *txt = tu_path(dir, "t.db"),
       *other = tu_path(dir, "o.db"), *newer = tu_path(dir, "n.db"), *bare = tu_path(dir, "b.db"),
       *missing = tu_path(dir, "none.db"), *fifo = tu_path(dir, "f.db");
  char want[512];
  snprintf(want, sizeof want, "%s: No such file or directory", missing);
  refused(missing, LBS_IO, want);
  refused(dir, LBS_IO, "not a regular file");
  cr_assert_eq(mkfifo(fifo, 0600), 0);
  refused(fifo, LBS_IO, "not a regular file");
  tu_write(txt,
           "not a database, but text of some length to look like one.............................");
  refused(txt, LBS_FORMAT, "t.db: not a results store (not an SQLite file)");
  exec_sql(other, "CREATE TABLE mine(x)");
  refused(other, LBS_FORMAT, "o.db: an SQLite file but not an lbsim results store");
  exec_sql(bare, "PRAGMA application_id=1279415122; CREATE TABLE steps(run)");
  refused(bare, LBS_FORMAT, "b.db: a results store without its runs table");
  lbs_replay_result r = run();
  cr_assert_eq(lbs_results_save(newer, &r, "t.lbt", "g.ini"), LBS_OK, "%s", lbs_errmsg());
  exec_sql(newer, "PRAGMA user_version=6");
  long n0, n1;
  char *before = slurp(newer, &n0);
  refused(newer, LBS_VERSION,
          "results schema version 6, this lbsim reads versions 1 to 5 (a newer lbsim wrote it)");
  char *after = slurp(newer, &n1);
  cr_assert(n0 == n1 && !memcmp(before, after, (size_t)n0), "a refused store changed");

  /* the runs table's root page made a page of no kind */
  cr_assert_eq(lbs_results_save(db, &r, "t.lbt", "g.ini"), LBS_OK, "%s", lbs_errmsg());
  long page = query(db, "PRAGMA page_size"),
       root = query(db, "SELECT rootpage FROM sqlite_master WHERE name = 'runs'");
  FILE *f = fopen(db, "r+b");
  cr_assert(f && page > 0 && root > 1);
  cr_assert_eq(fseek(f, (root - 1) * page, SEEK_SET), 0);
  cr_assert_eq(fputc(0x55, f), 0x55);
  fclose(f);
  lbs_results *h;
  cr_assert_eq(lbs_results_open(db, &h), LBS_OK, "%s", lbs_errmsg());
  const lbs_results_run *rr = (const lbs_results_run *)&h;
  int64_t n = -1;
  cr_assert_eq(lbs_results_runs(h, NULL, LBS_RESULTS_BY_ID, &rr, &n), LBS_CORRUPT);
  cr_assert(strstr(lbs_errmsg(), "r.db: file is damaged ("), "%s", lbs_errmsg());
  cr_assert(!rr && n == 0, "nothing on failure");
  lbs_results_close(&h);
  cr_assert_eq(lbs_results_check(db), LBS_CORRUPT);
  free(before), free(after);
  free(db), free(txt), free(other), free(newer), free(bare), free(missing), free(fifo);
  tu_rmrf(dir);
}
