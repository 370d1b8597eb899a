/* test_sweep.c - a study file as lbs_sweep_load reads it (study/sweep.c): its axes and their
 * product, task numbers with the last axis varying fastest and each task's overrides and
 * labels, seeds as an axis of the generated traces, the study's id (the same inputs the same
 * id, a changed input another), the errors that name the file and line, and the generated
 * traces made once beside the store. Under an MPI singleton (the partitioners are checked on
 * MPI_COMM_SELF). */
#include <criterion/criterion.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbs_sweep.h"
#include "testutil.h"

static char *dir;

static char *mpi_session; /* tu_mpi_session */
static void up(void) {
  mpi_session = tu_mpi_session();
  MPI_Init(NULL, NULL);
  dir = tu_tmpdir();
  char *t = tu_path(dir, "t.lbt");
  lbs_gen_params p = {"bump", 8, 4, 2, 12, 1, {0, 0, 0}};
  cr_assert_eq(lbs_gen_write(&p, LBS_ORDER_NATURAL, t, NULL, NULL), LBS_OK, "%s", lbs_errmsg());
  free(t);
  lbs_buf b = {0};
  cr_assert_eq(lbs_grid_family_ini("HO", 4, 2, 1, 10, 10, &b), LBS_OK);
  char *g = tu_path(dir, "g.ini");
  tu_write(g, (const char *)b.data);
  free(g);
  lbs_buf_free(&b);
}
static void down(void) {
  tu_rmrf(dir);
  MPI_Finalize();
  tu_rmrf(mpi_session);
}
TestSuite(sweep, .init = up, .fini = down);

/* Writes a study file into the test's directory; its path (freed by the caller). */
static char *study(const char *name, const char *text) {
  char *p = tu_path(dir, name);
  tu_write(p, text);
  return p;
}

static const char *AXES = "[study]\nname = ax\ntraces = t.lbt\ngrids = g.ini, gen:UP:4:2:2\n"
                          "partitioners = zoltan:rcb, zoltan:hsfc\npolicies = none, fixed:3\n"
                          "[overrides]\ngrid.barrier_us = 1, 2, 3\nsim.cost = model\n";

Test(sweep, the_axes_and_their_product) {
  char *f = study("ax.ini", AXES);
  lbs_sweep s;
  cr_assert_eq(lbs_sweep_load(&s, f), LBS_OK, "%s", lbs_errmsg());
  cr_assert_str_eq(s.name, "ax");
  cr_assert_eq(s.ax[LBS_SWEEP_TRACES].n, 1);
  cr_assert_eq(s.ax[LBS_SWEEP_GRIDS].n, 2);
  cr_assert_str_eq(s.ax[LBS_SWEEP_GRIDS].v[1], "gen:UP:4:2:2");
  cr_assert_eq(s.ax[LBS_SWEEP_PARTITIONERS].n, 2);
  cr_assert_eq(s.ax[LBS_SWEEP_POLICIES].n, 2);
  cr_assert_eq(s.nov, 2);
  cr_assert_str_eq(s.ov[0].name, "grid.barrier_us");
  cr_assert_eq(s.ov[0].n, 3);
  cr_assert_str_eq(s.ov[0].v[2], "3");
  cr_assert_eq(s.ntasks, 1 * 2 * 2 * 2 * 3 * 1);
  cr_assert_eq(s.nsteps, 0, "no [study] steps: each task's [sim] steps");
  cr_assert_not(s.has_seeds);
  cr_assert_str_eq(lbs_sweep_axis_key[LBS_SWEEP_POLICIES], "policies");
  cr_assert_str_eq(lbs_sweep_axis_label[LBS_SWEEP_POLICIES], "policy");
  char *axes = lbs_sweep_axes_json(&s);
  cr_assert_str_eq(axes,
                   "{\"trace\":[\"t.lbt\"],\"grid\":[\"g.ini\",\"gen:UP:4:2:2\"],\"partitioner\":"
                   "[\"zoltan:rcb\",\"zoltan:hsfc\"],\"policy\":[\"none\",\"fixed:3\"],"
                   "\"grid.barrier_us\":[\"1\",\"2\",\"3\"],\"sim.cost\":[\"model\"]}");
  free(axes);
  lbs_sweep_free(&s);
  cr_assert_null(s.name, "freed and zeroed");
  free(f);
}

Test(sweep, tasks_vary_the_last_axis_fastest) {
  char *f = study("ax.ini", AXES);
  lbs_sweep s;
  cr_assert_eq(lbs_sweep_load(&s, f), LBS_OK, "%s", lbs_errmsg());
  int seen[24] = {0};
  for (int64_t t = 0; t < s.ntasks; t++) {
    int i4[4], iov[LBS_SWEEP_MAXOV];
    lbs_sweep_task_axes(&s, t, i4, iov);
    cr_assert_eq(iov[1], 0);
    /* the task number back from its indices: a mixed-radix number, overrides last */
    int64_t back =
        (((((int64_t)i4[0] * 2 + i4[1]) * 2 + i4[2]) * 2 + i4[3]) * 3 + iov[0]) * 1 + iov[1];
    cr_assert_eq(back, t);
    seen[t]++;
  }
  for (int t = 0; t < 24; t++) cr_assert_eq(seen[t], 1);
  int i4[4], iov[LBS_SWEEP_MAXOV];
  lbs_sweep_task_axes(&s, 1, i4, iov); /* the next value of the last axis that has several */
  cr_assert(i4[0] == 0 && i4[1] == 0 && i4[2] == 0 && i4[3] == 0 && iov[0] == 1);
  lbs_sweep_task_axes(&s, 3, i4, iov); /* then the policy */
  cr_assert(i4[3] == 1 && iov[0] == 0 && i4[2] == 0);
  char buf[LBS_SWEEP_MAXOV][LBS_SWEEP_OVLEN];
  const char *ov[LBS_SWEEP_MAXOV];
  lbs_sweep_task_overrides(&s, 23, buf, ov);
  cr_assert_str_eq(ov[0], "grid.barrier_us=3");
  cr_assert_str_eq(ov[1], "sim.cost=model");
  char *labels = lbs_sweep_labels_json(&s, 23);
  cr_assert_str_eq(labels,
                   "{\"trace\":\"t.lbt\",\"grid\":\"gen:UP:4:2:2\",\"partitioner\":\"zoltan:hsfc\","
                   "\"policy\":\"fixed:3\",\"grid.barrier_us\":\"3\",\"sim.cost\":\"model\"}");
  free(labels);
  lbs_sweep_free(&s);
  free(f);
}

Test(sweep, seeds_are_an_axis_of_the_generated_traces) {
  char *f = study("seeds.ini", "[study]\nname = sd\ntraces = gen:random:4x4x2:5, gen:bump:4x2x2:6\n"
                               "seeds = 1, 7\ngrids = g.ini\n");
  lbs_sweep s;
  cr_assert_eq(lbs_sweep_load(&s, f), LBS_OK, "%s", lbs_errmsg());
  cr_assert(s.has_seeds);
  cr_assert_eq(s.ax[0].n, 4, "2 traces x 2 seeds");
  cr_assert_eq(s.ntasks, 4);
  cr_assert_str_eq(s.ax[0].v[0], "gen:random:4x4x2:5:1");
  cr_assert_str_eq(s.ax[0].v[1], "gen:random:4x4x2:5:7", "seed-minor");
  cr_assert_str_eq(s.ax[0].v[3], "gen:bump:4x2x2:6:7");
  cr_assert_eq(s.gen[1].seed, 7);
  cr_assert_str_eq(s.gen[3].kind, "bump");
  cr_assert_eq(s.gen[3].steps, 6);
  cr_assert_null(s.trace_path[0], "a generated trace has no file until lbs_sweep_inputs names one");
  char *labels = lbs_sweep_labels_json(&s, 1);
  cr_assert(strstr(labels, "\"seed\":7"), "%s", labels);
  free(labels);
  lbs_sweep_free(&s);
  free(f);
}

/* The id of the study file f as it is now. */
static void id_of(const char *f, char id[96]) {
  lbs_sweep s;
  cr_assert_eq(lbs_sweep_load(&s, f), LBS_OK, "%s", lbs_errmsg());
  memcpy(id, s.id, 96);
  cr_assert_eq(strlen(s.file_hash), 64);
  lbs_sweep_free(&s);
}

Test(sweep, the_id_is_stable_and_follows_the_inputs) {
  char *f = study("id.ini", AXES), a[96], b[96];
  id_of(f, a);
  cr_assert_eq(strncmp(a, "sweep-ax-", 9), 0, "%s", a);
  cr_assert_eq(strlen(a), 9 + 16);
  id_of(f, b);
  cr_assert_str_eq(a, b, "the same inputs, the same study");
  char *g = tu_path(dir, "g.ini"), *text = NULL;
  size_t n;
  cr_assert_eq(lbs_read_file(g, &text, &n), LBS_OK);
  tu_write(g, text); /* rewritten, the same bytes */
  id_of(f, b);
  cr_assert_str_eq(a, b);
  char *more = malloc(n + 32);
  snprintf(more, n + 32, "%s# another grid\n", text);
  tu_write(g, more); /* a grid file's bytes changed */
  id_of(f, b);
  cr_assert_str_neq(a, b, "a changed grid file is another study");
  tu_write(g, text);
  id_of(f, b);
  cr_assert_str_eq(a, b);
  char *f2 = study("id.ini", "# a comment\n");
  FILE *o = fopen(f2, "a");
  fputs(AXES, o);
  fclose(o);
  id_of(f2, b);
  cr_assert_str_neq(a, b, "a changed study file is another study");
  free(more), free(text), free(g), free(f), free(f2);
}

/* Loading text as a study fails with code e and a message holding want. */
static void refused(const char *text, lbs_err e, const char *want) {
  char *f = study("bad.ini", text);
  lbs_sweep s;
  lbs_err got = lbs_sweep_load(&s, f);
  cr_assert_eq(got, e, "%s: %d %s", want, (int)got, lbs_errmsg());
  cr_assert(strstr(lbs_errmsg(), want), "'%s' lacks '%s'", lbs_errmsg(), want);
  lbs_sweep_free(&s);
  free(f);
}

Test(sweep, bad_studies_are_named_by_file_and_line) {
  refused("[study]\nname = x\ntraces = t.lbt\ngrids = g.ini\npolicies = ,\n", LBS_PARSE,
          "bad.ini:5: policies: no values: the product is empty");
  refused("[study]\nname = x\ntraces = t.lbt, nope.lbt\ngrids = g.ini\n", LBS_IO,
          "bad.ini:3: traces: 'nope.lbt'");
  refused("[study]\nname = x\ntraces = t.lbt\ngrids = g.ini\npolicies = sometimes\n", LBS_NOTFOUND,
          "bad.ini:5: policies:");
  refused("[study]\nname = a,b\ntraces = t.lbt\ngrids = g.ini\n", LBS_PARSE,
          "bad.ini:2: name: 'a,b'");
  refused("[study]\nname = x\ntraces = t.lbt\ngrids = g.ini\nsteps = 0:99\n", LBS_PARSE,
          "steps: 0:99 is past the end of trace 't.lbt' (12 steps)");
  refused("[study]\nname = x\ntraces = gen:random:4x4x2:5:3\nseeds = 1\ngrids = g.ini\n", LBS_PARSE,
          "bad.ini:3: traces: 'gen:random:4x4x2:5:3': with seeds");
  /* trace gen's caps, not a generation without end */
  refused(
      "[study]\nname = x\ntraces = gen:random:4x4x4:99999999999\ngrids = g.ini\n", LBS_INVAL,
      "bad.ini:3: traces: 'gen:random:4x4x4:99999999999': expected gen:KIND:NXxNYxNZ:STEPS[:SEED] "
      "with KIND bump, hotspot or random: steps must be in 1..100000000 (got 99999999999)");
  refused("[study]\nname = x\ntraces = gen:random:9999999999x9999999999x1:5\ngrids = g.ini\n",
          LBS_INVAL, "bad.ini:3: traces: 'gen:random:9999999999x9999999999x1:5'");
  refused("[study]\nname = x\ntraces = gen:random:4x4x4:1:99999999999999999999\ngrids = g.ini\n",
          LBS_PARSE, "bad.ini:3: traces: 'gen:random:4x4x4:1:99999999999999999999'");
  refused("[study]\nname = x\ntraces = gen:random:4x4x4x4:5\ngrids = g.ini\n", LBS_PARSE,
          "bad.ini:3: traces: 'gen:random:4x4x4x4:5'");
  refused("[study]\nname = x\ntraces = gen:random:4x4x4:5:1:2\ngrids = g.ini\n", LBS_PARSE,
          "bad.ini:3: traces: 'gen:random:4x4x4:5:1:2'");
  refused(
      "[study]\nname = x\ntraces = t.lbt\ngrids = g.ini\n[overrides]\ncluster nope.nodes = 1, 2\n",
      LBS_PARSE, "bad.ini:6: cluster nope.nodes");
  char text[4096] = "[study]\nname = x\ntraces = t.lbt\ngrids = g.ini\npolicies = x";
  for (int k = 0; k < 64; k++) strcat(text, ",x");
  strcat(text, "\n");
  refused(text, LBS_PARSE, "bad.ini:5: policies: more than 64 values");
}

/* An axis of 64 values on one line of some 700 characters: the INI reader once stopped at 198. */
Test(sweep, an_axis_lists_its_64_values_on_one_long_line) {
  char text[4096] = "[study]\nname = long\ntraces = t.lbt\ngrids = g.ini\npolicies = none";
  for (int k = 1; k < 64; k++) snprintf(text + strlen(text), 32, ",  fixed:%d", 1000 + k);
  strcat(text, "\n");
  cr_assert_gt(strlen(strstr(text, "policies")), 600);
  char *f = study("long.ini", text);
  lbs_sweep s;
  cr_assert_eq(lbs_sweep_load(&s, f), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(s.ax[LBS_SWEEP_POLICIES].n, 64);
  cr_assert_str_eq(s.ax[LBS_SWEEP_POLICIES].v[63], "fixed:1063");
  cr_assert_eq(s.ntasks, 64);
  lbs_sweep_free(&s);
  free(f);
}

/* lbs_sweep_inputs' note: counts the traces made (the second trace value is the generated one). */
static int notes;
static int note(void *arg, int64_t i, int64_t n) {
  (void)arg;
  cr_assert(i == 1 && n == 2);
  notes++;
  return 0;
}

Test(sweep, generated_traces_are_made_once_beside_the_store) {
  char *f =
      study("gen.ini", "[study]\nname = gn\ntraces = t.lbt, gen:random:4x4x2:5\ngrids = g.ini\n");
  lbs_sweep s;
  cr_assert_eq(lbs_sweep_load(&s, f), LBS_OK, "%s", lbs_errmsg());
  char *results = tu_path(dir, "r.db"), want[4096];
  snprintf(want, sizeof want, "%s.traces/gen_random_4x4x2_5.lbt", results);
  cr_assert_eq(lbs_sweep_inputs(&s, results, 0, note, NULL), LBS_OK, "%s", lbs_errmsg());
  cr_assert_str_eq(s.trace_path[1], want);
  cr_assert_eq(notes, 0);
  cr_assert_neq(access(want, F_OK), 0, "named, not made, without make");
  cr_assert_eq(lbs_sweep_inputs(&s, results, 1, note, NULL), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(notes, 1);
  lbs_trace *t = NULL;
  cr_assert_eq(lbs_trace_open(want, &t), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_trace_steps(t), 5);
  lbs_trace_close(&t);
  cr_assert_eq(lbs_sweep_inputs(&s, results, 1, note, NULL), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(notes, 1, "kept for a resume: not made again");
  /* what the store holds of the study: nothing, there being no store */
  uint8_t done[2] = {0, 0};
  int64_t ndone = -1;
  cr_assert_eq(lbs_sweep_done(&s, results, done, &ndone), LBS_OK, "%s", lbs_errmsg());
  cr_assert(ndone == 0 && !done[0] && !done[1]);
  lbs_sweep_free(&s);
  free(results), free(f);
}
