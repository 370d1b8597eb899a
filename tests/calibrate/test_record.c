/* What calibration jobs leave in the database (calibrate/record.c) and a plan run for real
 * (calibrate/plan_run.c): records built from a job's outcome, imports fitted or failed, the
 * newest IPG, the floor, a verification's errors worked by hand; a plan's run against its
 * prediction and against its implementation alone. */
#include <criterion/criterion.h>
#include <math.h>

#include "lbs_calib_run.h"
#include "lbs_json.h"
#include "lbs_plan.h"
#include "plan_fixture.h"
#include "testutil.h"

static char *dir, *path;
static lbs_calib_db *db;
static int64_t run_id;
static void up(void) {
  dir = tu_tmpdir();
  path = tu_path(dir, "c.db");
  cr_assert_eq(lbs_calib_open(path, 1, &db), LBS_OK, "%s", lbs_errmsg());
  char *machine = lbs_calib_machine_json();
  cr_assert_not_null(machine);
  cr_assert_eq(lbs_calib_begin_run(db, "test", machine, &run_id), LBS_OK);
  free(machine);
}
static void down(void) {
  lbs_calib_close(&db);
  free(path);
  tu_rmrf(dir);
}
TestSuite(record, .init = up, .fini = down);

Test(record, the_machine_names_its_host_cpus_and_lbsim) {
  char *m = lbs_calib_machine_json();
  json_t *j = json_loads(m, 0, NULL);
  cr_assert(json_is_string(json_object_get(j, "host")) &&
            json_integer_value(json_object_get(j, "cpus")) >= 1);
  cr_assert(json_is_string(json_object_get(j, "lbsim")) &&
            json_is_string(json_object_get(j, "os")));
  json_decref(j);
  free(m);
}

/* An IA job's outcome: an IPG of 2 points when points, complete when told. */
static lbs_calib_job_out outcome(int points, int complete) {
  static double w[2] = {1000, 2000}, t[2] = {1e-3, 2e-3};
  static lbs_sample s[3] = {{1000, 1e-3}, {2000, 2e-3}, {1500, 1.5e-3}};
  lbs_calib_job_out out = {.complete = complete,
                           .ipg = {points ? 2 : 0, w, t},
                           .samples = s,
                           .nsamples = 3,
                           .seconds = 1.5};
  snprintf(out.message, sizeof out.message, "%s", complete ? "" : "limit reached");
  snprintf(out.note, sizeof out.note, "%s", "times fall");
  return out;
}

Test(record, an_ia_job_becomes_a_record_with_its_parameters) {
  const lbs_impl_ops *impl;
  cr_assert_eq(lbs_impl_find("sort.cpu", &impl), LBS_OK);
  lbs_calib_job job = {
      .kind = LBS_JOB_IA, .adapter = lbs_adapter_find("sort"), .impl = impl, .lo = 10, .hi = 1e6};
  lbs_ia_defaults(&job.opts, 5, 5e-5, 0);
  const char *status[3] = {"complete", "partial", "failed"};
  for (int k = 0; k < 3; k++) {
    lbs_calib_job_out out = outcome(k < 2, k == 0);
    lbs_ipg_rec r;
    cr_assert_eq(lbs_calib_store_ia(db, run_id, &job, &out, &r), LBS_OK, "%s", lbs_errmsg());
    cr_assert_str_eq(r.status, status[k]);
    cr_assert_str_eq(r.impl, "sort.cpu");
    cr_assert_str_eq(r.device, impl->target, "no device opened: the target");
    cr_assert_str_eq(r.message, k == 0 ? "times fall" : "limit reached; times fall");
    cr_assert_null(r.params);
    cr_assert_gt(r.id, 0);
  }
  lbs_ipg_rec *recs;
  int n;
  cr_assert_eq(lbs_calib_list(db, &recs, &n), LBS_OK);
  cr_assert_eq(n, 3);
  cr_assert_eq(recs[0].lo, 10);
  cr_assert_eq(recs[0].seconds, 1.5);
  cr_assert_float_eq(lbs_calib_floor(&recs[0]), 5e-5, 1e-15,
                     "the accuracy's floor from the parameters");
  cr_assert(lbs_calib_newest(recs, n, 0), "the only complete one");
  for (int k = 0; k < n; k++) lbs_ipg_rec_free(&recs[k]);
  free(recs);
}

Test(record, imports_are_fitted_or_stored_as_failed) {
  lbs_sample good[3] = {{1000, 1e-3}, {2000, 2e-3}, {4000, 4e-3}}, one[1] = {{5, 1}};
  lbs_import_group g[2] = {{"sort.fpga", "fpga0", good, 3}, {"dot.x", "d", one, 1}};
  lbs_ia_bound acc = {5, 5e-5, 0};
  char *params = lbs_calib_import_params_json(&acc);
  cr_assert(strstr(params, "\"imported\": true"), "%s", params);
  lbs_ipg_rec r;
  cr_assert_eq(lbs_calib_store_import(db, run_id, &g[0], &acc, params, &r), LBS_OK, "%s",
               lbs_errmsg());
  cr_assert_str_eq(r.status, "complete");
  cr_assert_str_eq(r.kernel, "sort");
  cr_assert(r.lo == 1000 && r.hi == 4000 && r.ipg.n >= 2);
  lbs_ipg_free(&r.ipg);
  cr_assert_eq(lbs_calib_store_import(db, run_id, &g[1], &acc, params, &r), LBS_OK,
               "a failed fit is stored");
  cr_assert_str_eq(r.status, "failed");
  cr_assert_neq(r.message[0], '\0');
  lbs_ipg_free(&r.ipg);
  free(params);
  lbs_ipg_rec *recs;
  int n;
  cr_assert_eq(lbs_calib_list(db, &recs, &n), LBS_OK);
  cr_assert_eq(n, 2);
  cr_assert_float_eq(lbs_calib_floor(&recs[0]), 5e-5, 1e-15);
  for (int k = 0; k < n; k++) lbs_ipg_rec_free(&recs[k]);
  free(recs);
}

Test(record, only_the_newest_complete_ipg_is_verified) {
  lbs_ipg_rec recs[4] = {0};
  const char *impl[4] = {"a.cpu", "a.cpu", "a.cpu", "b.cpu"},
             *st[4] = {"complete", "complete", "partial", "complete"};
  for (int k = 0; k < 4; k++) {
    snprintf(recs[k].impl, sizeof recs[k].impl, "%s", impl[k]);
    snprintf(recs[k].device, sizeof recs[k].device, "cpu");
    snprintf(recs[k].status, sizeof recs[k].status, "%s", st[k]);
  }
  cr_assert(!lbs_calib_newest(recs, 4, 0));
  cr_assert(lbs_calib_newest(recs, 4, 1), "a newer partial one does not count");
  cr_assert(lbs_calib_newest(recs, 4, 3));
}

Test(record, a_verification_measures_the_ipg_against_the_invocations) {
  double w[2] = {1000, 2000}, t[2] = {1e-3, 2e-3};
  lbs_ipg_rec r = {.ipg = {2, w, t}};
  lbs_sample s[3] = {
      {1500, 2e-3}, {1000, 1e-3}, {2000, 1e-5}}; /* errors 1/4, 0, and 199 (floored: 1) */
  lbs_calib_job_out out = {.complete = 1, .samples = s, .nsamples = 3};
  lbs_verify v;
  double med;
  cr_assert_eq(lbs_calib_verify_errors(&r, &out, 2e-3, &v, &med), LBS_OK);
  cr_assert_eq(v.n, 3);
  cr_assert_eq(v.points, s);
  cr_assert_float_eq(v.pred[0], 1.5e-3, 1e-15);
  cr_assert_float_eq(v.mean_err, (0.25 + 0 + 199) / 3, 1e-9);
  cr_assert_float_eq(v.max_err, 199, 1e-9);
  cr_assert_float_eq(med, 0.25, 1e-12);
  cr_assert_float_eq(v.mean_err_floor, (0.25 + 0 + (2e-3 - 1e-5) / 2e-3) / 3, 1e-9);
  cr_assert_float_eq(v.rms_err, sqrt((0.0625 + 199.0 * 199) / 3), 1e-9);
  free(v.pred);
}

/* A plan of sort on one thread, sort.cpu's IPG linear. */
static lbs_plan sort_plan(void) {
  lbs_plan p = {0};
  snprintf(p.kernel, sizeof p.kernel, "sort");
  p.threads = 1, p.hi = 1e6;
  add_impl(&p, "sort.cpu", 1, 0, 2, (double[]){0, 1e6}, (double[]){1e-5, 1e-1});
  cr_assert_eq(lbs_plan_build(&p), LBS_OK, "%s", lbs_errmsg());
  return p;
}

Test(record, a_plan_runs_here_at_its_works) {
  lbs_plan p = sort_plan();
  const lbs_adapter *a;
  cr_assert_eq(lbs_plan_runnable(&p, &a), LBS_OK, "%s", lbs_errmsg());
  double w[6];
  cr_assert_eq(lbs_plan_works(&p, a, w), 6);
  cr_assert_float_eq(w[5], a->round_metric(1e6), 0);
  cr_assert_float_eq(w[0], a->round_metric(1e3), 0);
  lbs_plan_run r;
  cr_assert_eq(lbs_plan_measure(&p, a, w[1], 1, 1, &r), LBS_OK, "%s", lbs_errmsg());
  cr_assert_float_eq(r.predicted_s, lbs_plan_time(&p, lbs_plan_ws(&p, 1, 0), w[1]), 1e-15);
  cr_assert_gt(r.measured_s, 0);
  cr_assert_eq(r.best, 0, "sort.cpu alone");
  cr_assert_eq(r.best_s, r.one_s, "one thread of the CPU");
  cr_assert(strstr(r.calls, "sort.cpu"), "%s", r.calls);
  p.threads = 1 << 20;
  cr_assert_eq(lbs_plan_runnable(&p, &a), LBS_RANGE);
  cr_assert(strstr(lbs_errmsg(), "online CPU"), "%s", lbs_errmsg());
  snprintf(p.kernel, sizeof p.kernel, "nope");
  cr_assert_eq(lbs_plan_runnable(&p, &a), LBS_NOTFOUND);
  lbs_plan_free(&p);
}
