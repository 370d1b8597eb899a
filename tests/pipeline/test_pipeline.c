/* test_pipeline.c - seed 000's figures from Table 3.1's timings, the operational laws, and their
 * reports. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lbs_json.h"
#include "lbs_pipeline.h"

static lbs_err pipeline_from(const char *text, lbs_pipeline **p) {
  lbs_config *c;
  *p = NULL;
  lbs_err e = lbs_config_parse_string("p.ini", text, &c);
  if (!e) e = lbs_pipeline_from_config(c, p);
  lbs_config_destroy(&c);
  return e;
}

/* Table 3.1: run time of each block over the 10000 jobs, s. */
#define TABLE_3_1                                                                                  \
  "[pipeline]\njobs = 10000\n"                                                                     \
  "[block RNG]\nseconds = 3.92004126\n[block Split]\nseconds = 0.14195219\n"                       \
  "[block Walk]\nseconds = 25.2997121\n[block AVG]\nseconds = 0.0007355\n"                         \
  "[block Print]\nseconds = 0.004684558\n"                                                         \
  "[processor p1]\n[processor p2]\n[processor p3]\n[processor p4]\n"

/* Mapping 2A as section 3.3 describes it: RNG replicated with the walks, AVG and Print on p2. */
static const char *seed_2a =
    TABLE_3_1 "[mapping 2A]\nomit = Split\nRNG = p1 p2\nWalk = p1 p2\nAVG = p2\nPrint = p2\n";

/* |x - printed| within half a unit of the printed value's last digit. */
static void assert_printed(double x, double printed, double unit, const char *what) {
  cr_assert(fabs(x - printed) <= unit / 2, "%s: %.9g, the paper prints %.9g", what, x, printed);
}

/* The same value as printed with %.6g (six significant digits, as the paper's). */
static void assert_g6(double x, const char *printed) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.6g", x);
  cr_assert_str_eq(buf, printed);
}

Test(pipeline, seed_2a_demands_and_throughput) {
  lbs_pipeline *p;
  cr_assert_eq(pipeline_from(seed_2a, &p), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_pipeline_nmappings(p), 1);
  const lbs_pipeline_law *L = lbs_pipeline_mapping_law(p, 0);
  assert_printed(L->demand_s[0], 0.00146099, 1e-8, "processor 1's demand");
  assert_printed(L->demand_s[1], 0.00146153, 1e-8, "processor 2's demand");
  assert_g6(L->demand_s[0], "0.00146099");
  assert_g6(L->demand_s[1], "0.00146153");
  cr_assert_eq(L->bottleneck, 1, "processor 2 is the bottleneck");
  assert_printed(L->throughput, 684.215, 1e-3, "throughput");
  assert_g6(L->throughput, "684.215");
  assert_printed(100 * L->util[0], 99.9629, 1e-4, "processor 1's utilisation, %");
  assert_printed(100 * L->util[1], 100.0000, 1e-4, "processor 2's utilisation, %");
  assert_printed(L->response_s, 14.6153, 1e-4, "execution time");
  cr_assert_eq(L->nused, 2);
  cr_assert(!L->used[2] && !L->used[3] && L->demand_s[2] == 0 && L->demand_s[3] == 0);
  lbs_pipeline_destroy(&p);
  cr_assert_null(p);
  lbs_pipeline_destroy(&p); /* NULL-safe */
}

/* The same figures from the same data given as demands per job. */
Test(pipeline, demand_per_job_equals_seconds_over_jobs) {
  lbs_pipeline *p;
  cr_assert_eq(
      pipeline_from("[pipeline]\njobs = 4\n[block A]\nseconds = 2\n[block B]\ndemand_s = 0.5\n"
                    "[processor x]\n[mapping m]\nA = x\nB = x\n",
                    &p),
      LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_pipeline_block_demand_s(p, 0), 0.5);
  cr_assert_eq(lbs_pipeline_block_demand_s(p, 1), 0.5);
  cr_assert_eq(lbs_pipeline_mapping_law(p, 0)->dmax_s, 1.0);
  lbs_pipeline_destroy(&p);
}

/* The example file: every mapping derived from sections 3.2-3.3 gives Table 3.2's figures. */
Test(pipeline, example_reproduces_table_3_2) {
  static const struct {
    const char *name;
    double time_s, x; /* Table 3.2 */
  } want[] = {{"2A", 14.6153, 684.215},
              {"2B", 16.7118, 598.378},
              {"4A", 8.35592, 1196.76},
              {"4B", 7.31073, 1367.85}};
  lbs_pipeline *p;
  cr_assert_eq(lbs_pipeline_load(LBS_SOURCE_DIR "/examples/pipeline/laplace.ini", NULL, 0, &p),
               LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_pipeline_nmappings(p), 4);
  for (int m = 0; m < 4; m++) {
    const lbs_pipeline_law *L = lbs_pipeline_mapping_law(p, m);
    cr_assert_str_eq(lbs_pipeline_mapping_name(p, m), want[m].name);
    char x[32], t[32], wx[32], wt[32];
    snprintf(x, sizeof x, "%.6g", L->throughput);
    snprintf(t, sizeof t, "%.6g", L->response_s);
    snprintf(wx, sizeof wx, "%.6g", want[m].x);
    snprintf(wt, sizeof wt, "%.6g", want[m].time_s);
    cr_assert_str_eq(x, wx, "%s throughput", want[m].name);
    cr_assert_str_eq(t, wt, "%s execution time", want[m].name);
  }
  /* 2B's demands and processor 2's utilisation (section 3.3). */
  const lbs_pipeline_law *B = lbs_pipeline_mapping_law(p, 1);
  assert_g6(B->demand_s[0], "0.00167118");
  assert_g6(B->demand_s[1], "0.00126553");
  cr_assert_eq(B->bottleneck, 0);
  assert_printed(100 * B->util[1], 75.7264, 1e-4, "2B processor 2's utilisation, %");
  lbs_pipeline_destroy(&p);
}

/* 4C's prediction (1369.40 jobs/s) is above what any mapping of Table 3.1's blocks onto four
 * equal processors can reach: Dmax >= D / 4 with D at least RNG + Walk + AVG + Print. */
Test(pipeline, seed_4c_exceeds_the_balanced_bound) {
  lbs_pipeline *p;
  cr_assert_eq(pipeline_from(TABLE_3_1
                             "[mapping all]\nomit = Split\nRNG = p1 p2 p3 p4\nWalk = p1 p2 p3 p4\n"
                             "AVG = p1\nPrint = p1\n",
                             &p),
               LBS_OK, "%s", lbs_errmsg());
  const lbs_pipeline_law *L = lbs_pipeline_mapping_law(p, 0);
  assert_g6(L->balanced, "1368.68");
  cr_assert_lt(L->balanced, 1369.40);
  cr_assert_leq(L->throughput, L->balanced * (1 + 1e-12), "X never exceeds the balanced bound");
  lbs_pipeline_destroy(&p);
}

/* Utilisation law, bottleneck, response time law and Little's law on hand-made demands. */
Test(pipeline, laws) {
  double d[4] = {0.2, 0.5, 0.5, 0}, u[4], s[4] = {1, 1, 1, 1};
  int used[4] = {1, 1, 1, 0};
  lbs_pipeline_law L;
  cr_assert_eq(lbs_pipeline_laws(4, d, used, s, 1000, 0, u, &L), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(L.bottleneck, 1, "the first of equal largest demands");
  cr_assert_eq(L.dmax_s, 0.5);
  cr_assert_float_eq(L.total_s, 1.2, 1e-15);
  cr_assert_eq(L.throughput, 2.0, "1 / Dmax when N is large");
  for (int k = 0; k < 4; k++) {
    cr_assert_float_eq(u[k], L.throughput * d[k], 1e-15, "U = X D");
    cr_assert_leq(u[k], 1.0);
  }
  cr_assert_eq(u[1], 1.0, "the bottleneck is saturated");
  cr_assert_float_eq(L.response_s, 500.0, 1e-9, "R = N / X = N Dmax");
  cr_assert_float_eq(1000.0, L.throughput * (L.response_s + 0), 1e-9, "Little: N = X (R + Z)");
  cr_assert_eq(L.nused, 3);
  cr_assert_float_eq(L.balanced, 3 / 1.2, 1e-12, "3 processors, 1.2 s of work per job");

  /* One job, think time 2 s: X = N / (D + Z), R = D. */
  cr_assert_eq(lbs_pipeline_laws(4, d, used, NULL, 1, 2.0, u, &L), LBS_OK);
  cr_assert_float_eq(L.throughput, 1 / 3.2, 1e-15);
  cr_assert_float_eq(L.response_s, 1.2, 1e-12);
  cr_assert_float_eq(1.0, L.throughput * (L.response_s + 2.0), 1e-12, "Little: N = X (R + Z)");
  for (int k = 0; k < 4; k++) cr_assert_lt(u[k], 1.0);

  /* The rules. */
  cr_assert_eq(lbs_pipeline_laws(4, d, used, s, 0, 0, u, &L), LBS_INVAL);
  cr_assert_eq(lbs_pipeline_laws(4, d, used, s, 1, -1, u, &L), LBS_INVAL);
  double bad[4] = {0.1, -1, 0, 0}, zero[4] = {0, 0, 0, 0}, inf[4] = {INFINITY, 0, 0, 0};
  cr_assert_eq(lbs_pipeline_laws(4, bad, used, s, 1, 0, u, &L), LBS_INVAL);
  cr_assert_eq(lbs_pipeline_laws(4, zero, used, s, 1, 0, u, &L), LBS_INVAL);
  cr_assert_eq(lbs_pipeline_laws(4, inf, used, s, 1, 0, u, &L), LBS_INVAL);
  double unused[4] = {0.1, 0, 0, 0.2};
  cr_assert_eq(lbs_pipeline_laws(4, unused, used, s, 1, 0, u, &L), LBS_INVAL,
               "demand on an unused processor");
}

/* Shares, speeds and replicas: D_k = sum of share x demand / speed. */
Test(pipeline, shares_and_speeds) {
  lbs_pipeline *p;
  cr_assert_eq(
      pipeline_from("[pipeline]\njobs = 100\n[block A]\ndemand_s = 1\n[block B]\ndemand_s = 0.3\n"
                    "[processor x]\nspeed = 2\n[processor y]\n"
                    "[mapping even]\nA = x y\nB = y\n"
                    "[mapping shares]\nA = x*3/4 y*0.25\nB = x*1 x*1\n",
                    &p),
      LBS_OK, "%s", lbs_errmsg());
  const lbs_pipeline_law *L = lbs_pipeline_mapping_law(p, 0);
  cr_assert_float_eq(L->demand_s[0], 0.25, 1e-15, "A/2 at speed 2");
  cr_assert_float_eq(L->demand_s[1], 0.8, 1e-15, "A/2 + B");
  cr_assert_eq(L->bottleneck, 1);
  cr_assert_float_eq(L->balanced, 3 / (0.25 * 2 + 0.8), 1e-12, "speeds 2 + 1 over 1.3 s of work");
  L = lbs_pipeline_mapping_law(p, 1);
  cr_assert_float_eq(L->demand_s[0], (0.75 + 0.6) / 2, 1e-15,
                     "two copies of B on x, each seeing every job");
  cr_assert_float_eq(L->demand_s[1], 0.25, 1e-15);
  int n;
  const lbs_pipeline_copy *c = lbs_pipeline_mapping_copies(p, 1, &n);
  cr_assert_eq(n, 4);
  cr_assert_eq(c[0].share, 0.75);
  cr_assert_eq(c[3].block, 1);
  lbs_pipeline_destroy(&p);
}

/* Bad input: LBS_PARSE or LBS_RANGE with file:line and what is wrong, never a crash. */
Test(pipeline, bad_input) {
  static const struct {
    const char *text, *msg;
  } cases[] = {
      {"[pipeline]\njobs = 1\n[block A]\nseconds = 1\n[block B]\nseconds = 1\n[processor x]\n[mapping m]\nA = x\n",
       "p.ini:8: [mapping m] leaves block 'B' unmapped"},
      {"[pipeline]\njobs = 1\n[block A]\nseconds = 1\n[processor x]\n[mapping m]\nA = y\n",
       "p.ini:7: [mapping m] puts block A on processor 'y', which has no [processor y] section"},
      {"[pipeline]\njobs = 1\n[block A]\nseconds = 1\n[processor x]\n[mapping m]\nA = x\nB = x\n",
       "p.ini:8: [mapping m] maps block 'B', which has no [block B] section"},
      {"[pipeline]\njobs = 1\n[block A]\nseconds = -1\n[processor x]\n[mapping m]\nA = x\n",
       "p.ini:4: seconds = -1 is outside [0, 1e+15]"},
      {"[pipeline]\njobs = 1\n[block A]\ndemand_s = inf\n[processor x]\n[mapping m]\nA = x\n",
       "p.ini:4: demand_s = 'inf' is not a number"},
      {"[pipeline]\njobs = 0\n[block A]\nseconds = 1\n[processor x]\n[mapping m]\nA = x\n",
       "p.ini:2: jobs = 0 is outside [1, 1e+15]"},
      {"[pipeline]\njobs = 1\n[block A]\nseconds = 1\n[processor x]\n",
       "p.ini: no [mapping NAME] section"},
      {"[pipeline]\njobs = 1\n[block A]\nseconds = 1\n[processor x]\n[mapping m]\nA = x\n[mapping m]\nA = x\n",
       "p.ini:8: section [mapping m] given twice (first at line 6)"},
      {"[pipeline]\njobs = 1\n[block A]\nseconds = 1\n[processor x]\n[mapping m]\nA = x*0\n",
       "p.ini:7: [mapping m] A = x*0: the share must be"},
      {"[pipeline]\njobs = 1\n[block A]\nseconds = 1\n[processor x]\n[mapping m]\nA = x*0.5 x\n",
       "give every copy a share"},
      {"[pipeline]\njobs = 1\n[block A]\nseconds = 0\n[processor x]\n[mapping m]\nA = x\n",
       "p.ini:6: [mapping m]: every processor's demand is 0"},
      {"[pipeline]\njobs = 1\n[block A]\n[processor x]\n[mapping m]\nA = x\n",
       "p.ini:3: [block A] needs 'seconds'"},
      {"[pipeline]\njobs = 1\n[block A]\nseconds = 1\n[processor x]\n[buffer A C]\n[mapping m]\nA = x\n",
       "p.ini:6: [buffer A C]: no [block C] section"},
      {"[pipeline]\njobs = 1\n[block A]\nseconds = 1\n[processor x]\n[mapping m]\nomit = A\nA = x\n",
       "p.ini:8: [mapping m] maps block 'A' and omits it too"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    lbs_pipeline *p = (lbs_pipeline *)&cases; /* must come back NULL */
    lbs_err e = pipeline_from(cases[i].text, &p);
    cr_assert(e == LBS_PARSE || e == LBS_RANGE, "case %zu: %s", i, lbs_strerror(e));
    cr_assert_null(p, "case %zu", i);
    cr_assert(strstr(lbs_errmsg(), cases[i].msg), "case %zu: '%s' lacks '%s'", i, lbs_errmsg(),
              cases[i].msg);
  }
}

/* ---------------------------------------------------------------- reports (pipeline/report.c)
 * The mappings asked for and what an unknown one says, copies in words, a CSV row per mapping and
 * processor used, the JSON document. */
static const char *report_text = "[pipeline]\nname = two\njobs = 100\n"
                                 "[block A]\nseconds = 1\n[block B]\nseconds = 2\n"
                                 "[processor p1]\n[processor p2]\nspeed = 2\n[processor p3]\n"
                                 "[buffer A B]\ncapacity = 4\n"
                                 "[mapping one]\nA = p1\nB = p1\n"
                                 "[mapping split]\nA = p1\nB = p2 p3\n";

static lbs_pipeline *report_pipeline(void) {
  lbs_config *c;
  lbs_pipeline *p;
  cr_assert_eq(lbs_config_parse_string("p.ini", report_text, &c), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_pipeline_from_config(c, &p), LBS_OK, "%s", lbs_errmsg());
  lbs_config_destroy(&c);
  return p;
}

/* What fn writes to a memory stream, NUL-terminated (the caller frees it). */
#define CAPTURE(out, call)                                                                         \
  do {                                                                                             \
    size_t len_;                                                                                   \
    FILE *f = open_memstream(&(out), &len_);                                                       \
    call;                                                                                          \
    fclose(f);                                                                                     \
  } while (0)

Test(report, mappings_in_the_order_asked_or_refused_by_name) {
  lbs_pipeline *p = report_pipeline();
  int sel[2], n;
  cr_assert_eq(lbs_pipeline_select(p, NULL, sel, &n), LBS_OK);
  cr_assert(n == 2 && sel[0] == 0 && sel[1] == 1);
  cr_assert_eq(lbs_pipeline_select(p, "split,one", sel, &n), LBS_OK);
  cr_assert(n == 2 && sel[0] == 1 && sel[1] == 0);
  cr_assert_eq(lbs_pipeline_select(p, "one,three", sel, &n), LBS_NOTFOUND);
  cr_assert_str_eq(lbs_errmsg(), "--mappings: no mapping 'three' (known: one split)");
  cr_assert_eq(lbs_pipeline_select(p, "one,one,one", sel, &n), LBS_NOTFOUND);
  cr_assert_str_eq(lbs_errmsg(), "--mappings: too many, at 'one' (known: one split)");
  cr_assert_eq(lbs_pipeline_select(p, ",", sel, &n), LBS_NOTFOUND);
  cr_assert_str_eq(lbs_errmsg(), "--mappings: no mapping named");
  lbs_pipeline_destroy(&p);
}

Test(report, copies_and_csv_rows) {
  lbs_pipeline *p = report_pipeline();
  char *words = NULL, *csv = NULL;
  CAPTURE(words, lbs_pipeline_copies_text(f, p, 1, 1));
  cr_assert_str_eq(words, "B*0.5", "one of two replicas");
  free(words);
  CAPTURE(words, lbs_pipeline_copies_text(f, p, 0, 0));
  cr_assert_str_eq(words, "A B");
  free(words);
  int sel[2] = {0, 1};
  CAPTURE(csv, lbs_pipeline_write_csv(f, p, sel, 2));
  int rows = 0;
  for (char *q = csv; (q = strchr(q, '\n')); q++) rows++;
  cr_assert_eq(rows, 1 + 1 + 3, "a header, one's p1, split's p1 p2 p3: %s", csv);
  cr_assert(strstr(csv, "\nsplit,p2,2,"), "%s", csv);
  free(csv);
  lbs_pipeline_destroy(&p);
}

Test(report, json_has_the_pipeline_and_each_mapping) {
  lbs_pipeline *p = report_pipeline();
  int sel[1] = {1};
  json_t *j = lbs_pipeline_json(p, sel, 1);
  cr_assert_str_eq(json_string_value(json_object_get(j, "name")), "two");
  cr_assert_eq(json_array_size(json_object_get(j, "blocks")), 2);
  cr_assert_eq(json_array_size(json_object_get(j, "processors")), 3);
  cr_assert_eq(json_integer_value(
                   json_object_get(json_array_get(json_object_get(j, "buffers"), 0), "capacity")),
               4);
  json_t *maps = json_object_get(j, "mappings"), *m = json_array_get(maps, 0);
  cr_assert_eq(json_array_size(maps), 1);
  cr_assert_str_eq(json_string_value(json_object_get(m, "name")), "split");
  const lbs_pipeline_law *L = lbs_pipeline_mapping_law(p, 1);
  cr_assert_eq(json_number_value(json_object_get(m, "throughput_jobs_per_s")), L->throughput);
  json_t *used = json_object_get(m, "processors");
  cr_assert_eq(json_array_size(used), 3);
  json_t *p2 = json_array_get(used, 1);
  cr_assert_eq(json_number_value(json_object_get(p2, "busy_s")), 100 * L->demand_s[1]);
  cr_assert_eq(
      json_number_value(json_object_get(json_array_get(json_object_get(p2, "copies"), 0), "share")),
      0.5);
  json_decref(j);
  lbs_pipeline_destroy(&p);
}
