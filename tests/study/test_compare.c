/* test_compare.c - policies compared on one session (study/compare.c): the optimum found by its
 * flag, every gap to it (none below zero, its own zero), no gap without it, a measured cost
 * model taken as model, the CSV files and the JSON document. Under an MPI singleton. */
#include <criterion/criterion.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_compare.h"
#include "testutil.h"

static char *dir, *trace, *grid;

static char *mpi_session; /* tu_mpi_session */
static void up(void) {
  mpi_session = tu_mpi_session();
  MPI_Init(NULL, NULL);
  dir = tu_tmpdir();
  trace = tu_path(dir, "b.lbt");
  grid = tu_path(dir, "g.ini");
  lbs_gen_params p = {"bump", 8, 4, 4, 16, 1, {0, 0, 0}};
  cr_assert_eq(lbs_gen_write(&p, LBS_ORDER_NATURAL, trace, NULL, NULL), LBS_OK, "%s", lbs_errmsg());
  lbs_buf b = {0};
  cr_assert_eq(lbs_grid_family_ini("HO", 4, 2, 1, 10, 10, &b), LBS_OK);
  tu_write(grid, (const char *)b.data);
  lbs_buf_free(&b);
}
static void down(void) {
  free(trace), free(grid);
  tu_rmrf(dir);
  MPI_Finalize();
  tu_rmrf(mpi_session);
}
TestSuite(compare, .init = up, .fini = down);

Test(compare, the_optimum_is_known_by_its_flag) {
  const char *a[] = {"fixed:5", "optimal", "none"}, *b[] = {"none", "fixed:2"};
  cr_assert_eq(lbs_compare_optimum(a, 3), 1);
  cr_assert_eq(lbs_compare_optimum(b, 2), -1);
}

/* The text of dir/name. */
static char *slurp(const char *d, const char *name) {
  char *p = tu_path(d, name), *text = NULL;
  size_t n;
  cr_assert_eq(lbs_read_file(p, &text, &n), LBS_OK, "%s", lbs_errmsg());
  free(p);
  return text;
}

Test(compare, gaps_to_the_optimum) {
  lbs_session s;
  const char *over[] = {"sim.cost=measured"};
  cr_assert_eq(lbs_session_open(&s, trace, grid, over, 1), LBS_OK, "%s", lbs_errmsg());
  const char *pol[] = {"fixed:4", "optimal", "none", "adaptive:0.1:2:8"};
  lbs_compare c;
  cr_assert_eq(lbs_compare_run(&s, pol, 4, MPI_COMM_WORLD, NULL, NULL, &c), LBS_OK, "%s",
               lbs_errmsg());
  cr_assert_eq(s.opts.cost, LBS_COST_MODEL, "measured is not reproducible: taken as model");
  cr_assert_eq(c.n, 4);
  cr_assert_eq(c.iopt, 1);
  cr_assert_str_eq(c.r[3]->policy, "adaptive:0.1:2:8");
  cr_assert_eq(lbs_compare_gap(&c, 1), 0.0);
  for (int k = 0; k < c.n; k++)
    cr_assert_geq(lbs_compare_gap(&c, k), 0.0, "%s beat the optimum", pol[k]);
  cr_assert_eq(lbs_compare_write_csv(&c, dir), LBS_OK, "%s", lbs_errmsg());
  char *sum = slurp(dir, "summary.csv"), *imb = slurp(dir, "imbalance.csv"),
       *ser = slurp(dir, "series_adaptive_0.1_2_8.csv");
  cr_assert(strstr(sum, "\noptimal,") && strstr(sum, ",0.000000000\n"), "%s", sum);
  cr_assert_eq(strncmp(imb, "step,app_step,fixed:4,optimal,none,adaptive:0.1:2:8\n", 52), 0, "%s",
               imb);
  int lines = 0;
  for (const char *q = imb; *q; q++) lines += *q == '\n';
  cr_assert_eq(lines, 1 + 16);
  cr_assert_eq(strncmp(ser, "probe,step,interval\n", 20), 0);
  json_t *doc = lbs_compare_json(&c, &s);
  cr_assert_eq(json_array_size(json_object_get(doc, "policies")), 4);
  json_t *p1 = json_array_get(json_object_get(doc, "policies"), 1);
  cr_assert_eq(json_real_value(json_object_get(p1, "gap_to_optimal")), 0.0);
  cr_assert_str_eq(json_string_value(json_object_get(doc, "trace")), trace);
  json_decref(doc);
  free(sum), free(imb), free(ser);
  lbs_compare_free(&c);
  cr_assert_null(c.r[0]);
  lbs_session_close(&s);
}

Test(compare, no_gap_without_an_optimum) {
  lbs_session s;
  cr_assert_eq(lbs_session_open(&s, trace, grid, NULL, 0), LBS_OK, "%s", lbs_errmsg());
  const char *pol[] = {"none", "fixed:4"};
  lbs_compare c;
  cr_assert_eq(lbs_compare_run(&s, pol, 2, MPI_COMM_WORLD, NULL, NULL, &c), LBS_OK, "%s",
               lbs_errmsg());
  cr_assert_eq(c.iopt, -1);
  cr_assert(isnan(lbs_compare_gap(&c, 0)));
  cr_assert_eq(lbs_compare_write_csv(&c, dir), LBS_OK, "%s", lbs_errmsg());
  char *sum = slurp(dir, "summary.csv");
  cr_assert(strstr(sum, ",gap_to_optimal\nnone,") && strstr(sum, ",\nfixed:4,"),
            "an empty last column: %s", sum);
  free(sum);
  json_t *doc = lbs_compare_json(&c, &s);
  json_t *p0 = json_array_get(json_object_get(doc, "policies"), 0);
  cr_assert(json_is_null(json_object_get(p0, "gap_to_optimal")));
  json_decref(doc);
  lbs_compare_free(&c);
  lbs_session_close(&s);
}

Test(compare, a_failed_replay_is_named) {
  lbs_session s;
  cr_assert_eq(lbs_session_open(&s, trace, grid, NULL, 0), LBS_OK, "%s", lbs_errmsg());
  const char *pol[] = {"none", "fixed:0"};
  lbs_compare c;
  cr_assert_neq(lbs_compare_run(&s, pol, 2, MPI_COMM_WORLD, NULL, NULL, &c), LBS_OK);
  cr_assert(strstr(lbs_errmsg(), "K must be a whole number of steps >= 1"), "%s", lbs_errmsg());
  cr_assert_not_null(c.r[0]);
  lbs_compare_free(&c);
  lbs_session_close(&s);
}

/* One network model for every policy compared (lbs_compare_one_model, also lbsim validate's):
 * in des on a fair grid, auto becomes ordered beside optimal and stays auto without it; shared
 * beside optimal is refused naming both; bsp and fifo are left alone. */
Test(compare, one_network_model_for_all) {
  lbs_session s;
  cr_assert_eq(lbs_session_open(&s, trace, grid, NULL, 0), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_sharing(s.grid), LBS_SHARING_FAIR, "the grid's default sharing");
  const char *mixed[] = {"none", "optimal"}, *plain[] = {"none", "fixed:4"};
  lbs_replay_opts o = s.opts;
  cr_assert_eq(o.des_overlap, LBS_DES_AUTO);
  o.mode = LBS_MODE_BSP;
  cr_assert_eq(lbs_compare_one_model(&o, s.grid, mixed, 2), LBS_OK);
  cr_assert_eq(o.des_overlap, LBS_DES_AUTO, "bsp: no steps overlap, nothing to change");
  o.mode = LBS_MODE_DES;
  cr_assert_eq(lbs_compare_one_model(&o, s.grid, plain, 2), LBS_OK);
  cr_assert_eq(o.des_overlap, LBS_DES_AUTO, "no policy plans ahead: the steps may share");
  cr_assert_eq(lbs_compare_one_model(&o, s.grid, mixed + 1, 1), LBS_OK);
  cr_assert_eq(o.des_overlap, LBS_DES_AUTO, "optimal alone falls back by itself");
  cr_assert_eq(lbs_compare_one_model(&o, s.grid, mixed, 2), LBS_OK);
  cr_assert_eq(o.des_overlap, LBS_DES_ORDERED, "beside optimal: ordered for all");
  o.des_overlap = LBS_DES_SHARED;
  cr_assert_eq(lbs_compare_one_model(&o, s.grid, mixed, 2), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "optimal plans ahead over ordered steps, while none's"), "%s",
            lbs_errmsg());
  lbs_session_close(&s);
}
