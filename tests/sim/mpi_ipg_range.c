/* MPI test of the ipg speed model in a replay (issue 31, item 6; CTest: 1 and 2 ranks, outputs
 * compared): the replay tells the grid its trace metric before the first step, so a node type
 * whose conversion names another metric (ipg_trace_metric) fails the replay on every rank with
 * the grid's message; and rank 0 warns once per processor whose work at some step leaves the
 * range its curve measured, saying by how much (above: extrapolated; below: the first point's
 * time), and nothing for work inside it.
 *
 * The trace: 4 elements on a path, 4 steps, metric "work" (unit "1"), element i's work 10 x (i + 1)
 * + step: 100 + 4 x step in all, each processor's at least 10. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_sim.h"
#include "mpi_check.h"
#include "path_trace.h"

#define E 4
#define S 4

static int write_trace(const char *path) {
  lbs_mesh *m;
  lbs_trace_writer *w;
  lbs_err e = path_trace_create(path, E, &w, &m);
  if (e) return 2;
  for (int64_t s = 0; !e && s < S; s++) {
    double v[E];
    for (int i = 0; i < E; i++) v[i] = 10.0 * (i + 1) + (double)s;
    const double *cols[1] = {v};
    e = lbs_trace_write_step(w, s, cols);
  }
  if (!e) e = lbs_trace_writer_close(&w);
  lbs_mesh_destroy(&m);
  return e ? printf("writing %s: %s\n", path, lbs_errmsg()), 2 : 0;
}

static char said[4096];
static int nsaid;
static void keep(void *arg, lbs_log_level level, const char *msg) {
  (void)arg;
  if (level != LBS_LOG_WARN || !strstr(msg, "replay: warning: processor")) return;
  nsaid++;
  snprintf(said + strlen(said), sizeof said - strlen(said), "%s\n", msg);
}

/* The replay of trace on 2 processors of [nodetype cpu] with keys; the warnings in said. */
static lbs_replay_result *run(const char *trace, const char *keys, lbs_err *err) {
  char text[1024];
  snprintf(text, sizeof text,
           "[grid]\nns_per_work = 1\n[nodetype cpu]\nspeed_model = ipg\n%s\n"
           "[cluster A]\nnodes = 2\nnodetype = cpu\nlatency_us = 1\n",
           keys);
  lbs_config *cfg;
  lbs_grid *g;
  lbs_trace *t;
  lbs_replay_result *r = NULL;
  if (lbs_config_parse_string("ipg.ini", text, &cfg) || lbs_grid_from_config(cfg, &g) ||
      lbs_trace_open(trace, &t)) {
    printf("setup failed: %s\n", lbs_errmsg());
    exit(2);
  }
  lbs_replay_opts o;
  lbs_replay_opts_default(&o);
  o.partitioner = "zoltan:block", o.policy = "none", o.cfg = cfg;
  said[0] = '\0', nsaid = 0;
  lbs_log_set_sink(keep, NULL);
  *err = lbs_replay(t, g, &o, MPI_COMM_WORLD, &r);
  lbs_log_set_sink(NULL, NULL);
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  return r;
}

static void cases(const char *trace) {
  lbs_err e;
  /* inside: 0.1 us + 1 ns a unit from 0 to 1000 units */
  lbs_replay_result *r = run(trace, "ipg_points = 0:1e-7 1000:1.1e-6", &e);
  CHECK(!e && r, "inside the range: %s", lbs_errmsg());
  CHECK(nsaid == 0, "work inside the range: nothing said (%s)", said);
  lbs_replay_result_free(&r);
  /* above: measured up to 5 units, so every processor's work (>= 10) is extrapolated */
  r = run(trace, "ipg_points = 0:1e-7 5:1.05e-7", &e);
  CHECK(!e && r, "above the range: %s", lbs_errmsg());
  if (check_rank == 0) {
    CHECK(nsaid == 2 && /* once per processor, though every step leaves it */
              strstr(said, "processor 0 ([nodetype cpu]) has ") &&
              strstr(said, "processor 1 ([nodetype cpu]) has ") &&
              strstr(said, " of work at trace step 0, ") &&
              strstr(said, "x the most its ipg_points measured (5): its time is extrapolated"),
          "once per processor, saying who, which metric, where and by how much: %d (%s)", nsaid,
          said);
  } else
    CHECK(nsaid == 0, "rank 0 says it (%s)", said);
  lbs_replay_result_free(&r);
  /* below: measured from 1000 units on; the metric converted by name */
  r = run(trace,
          "ipg_points = 1000:1e-6 2000:2e-6\nipg_trace_metric = work\nipg_metric_per_work = 1", &e);
  CHECK(!e && r, "below the range: %s", lbs_errmsg());
  if (check_rank == 0)
    CHECK(nsaid == 2 && strstr(said, "x the least its ipg_points measured (1000): its time is the "
                                     "curve's first point's"),
          "below: %d (%s)", nsaid, said);
  else
    CHECK(nsaid == 0, "rank 0 says it (%s)", said);
  lbs_replay_result_free(&r);
  /* a conversion for another metric: refused before the first step, on every rank */
  r = run(trace, "ipg_points = 0:1e-7 1000:1.1e-6\nipg_trace_metric = weight", &e);
  const char *m = lbs_errmsg();
  CHECK(e == LBS_INVAL && !r && strstr(m, "ipg.ini") && strstr(m, "[nodetype cpu]") &&
            strstr(m, "ipg_trace_metric = weight") && strstr(m, "the replay gives it 'work' (1)"),
        "another metric: code %d, '%s'", e, m);
  lbs_replay_result_free(&r);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
  char dir[64] = "/tmp/lbs_ipgrange_XXXXXX", trace[128];
  if (check_rank == 0 && !mkdtemp(dir)) return 2;
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(trace, sizeof trace, "%s/t.lbt", dir);
  int fail = check_rank == 0 && write_trace(trace);
  MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (fail) return 2;
  cases(trace);
  check_remove_dir(dir);
  int rc = check_finish();
  MPI_Finalize();
  return rc;
}
