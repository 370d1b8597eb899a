/* mpi_edges.c - arc weights and the edge rule through the profiler (lbsprof_mesh_weighted,
 * lbsprof_meta "edge_weight"), on 1 and 2 ranks: a ring of 12 elements by id whose arc
 * u -> u+1 weighs 1 + u and u -> u-1 weighs 0 (a close flag one way only), rwgt set each step.
 * The trace must hold the weights per direction and the rule, and lbs_trace_edge_weights give
 * weight x rwgt of the target at every step. Refused, with the same message on every rank: a
 * rule lbsim does not know (by lbsprof_meta), a weight that is negative or not a number on one
 * rank only (naming the arc), weights on some ranks and not on others, the rule in a run that
 * records no rwgt. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbs_traces.h"
#include "lbsprof.h"
#include "mpi_check.h"

#define E 12
#define STEPS 3

static int rank, size;

/* this rank's elements (g % size == rank), their ring arcs and weights */
typedef struct {
  int64_t n, gid[E], xadj[E + 1], adj[2 * E];
  double w[2 * E];
} ring;

static void make_ring(ring *r) {
  r->n = 0, r->xadj[0] = 0;
  for (int64_t g = 0; g < E; g++) {
    if (g % size != rank) continue;
    int64_t i = r->n++, k = r->xadj[i];
    r->gid[i] = g;
    r->adj[k] = (g + 1) % E, r->w[k] = 1.0 + (double)g;
    r->adj[k + 1] = (g + E - 1) % E, r->w[k + 1] = 0;
    r->xadj[i + 1] = k + 2;
  }
}

static double rwgt(int64_t g, int s) { return (double)((s + 1) * (g + 1)); }

/* A mesh description that must fail on every rank with a message holding want. */
static void refused(const lbsprof_opts *o, int with_rwgt, const char *rule, int bad_rank,
                    double bad_w, int weights_on_rank0_only, const char *want) {
  lbsprof *p;
  CHECK(lbsprof_init(MPI_COMM_WORLD, o, &p) == 0, "init: %s", lbsprof_errmsg());
  lbsprof_value_metric(p, with_rwgt ? LBSPROF_EDGE_RULE_METRIC : "other", "bodies");
  if (rule) CHECK(lbsprof_meta(p, "edge_weight", rule) == 0, "rule: %s", lbsprof_errmsg());
  ring r;
  make_ring(&r);
  if (rank == bad_rank) r.w[1] = bad_w;
  const double *w = weights_on_rank0_only && rank != 0 ? NULL : r.w;
  int rc = lbsprof_mesh_weighted(p, r.n, r.gid, 0, NULL, r.xadj, r.adj, w);
  CHECK(rc != 0 && strstr(lbsprof_errmsg(), want), "want '%s': rc %d, '%s'", want, rc,
        lbsprof_errmsg());
  lbsprof_finalize(&p);
}

static void bad_calls(const lbsprof_opts *o) {
  lbsprof *p;
  CHECK(lbsprof_init(MPI_COMM_WORLD, o, &p) == 0, "init: %s", lbsprof_errmsg());
  CHECK(lbsprof_meta(p, "edge_weight", "flag*pwgt[target]") != 0 &&
            strstr(
                lbsprof_errmsg(),
                "the profiler records the edge rule 'flag*rwgt[target]' or weights given per step, "
                "'stored@step'"),
        "another rule accepted (%s)", lbsprof_errmsg());
  lbsprof_finalize(&p);
  int last = size - 1; /* one rank only: every rank hears of it */
  refused(o, 1, LBSPROF_EDGE_RULE, last, -1, 0, "weighs -1: arc weights are finite and >= 0");
  refused(o, 1, LBSPROF_EDGE_RULE, last, NAN, 0, "weighs nan: arc weights are finite and >= 0");
  refused(o, 0, LBSPROF_EDGE_RULE, -1, 0, 0,
          "reads the metric rwgt, which this run does not record");
  if (size > 1) refused(o, 1, NULL, -1, 0, 1, "some ranks give arc weights and some do not");
}

/* rank 0: the weights per direction, the rule, and the weights at each step */
static void check_trace(const char *path) {
  lbs_trace *t;
  CHECK(lbs_trace_open(path, &t) == LBS_OK, "open: %s", lbs_errmsg());
  if (!t) return;
  const char *ew = lbs_trace_meta(t, "edge_weight");
  CHECK(ew && !strcmp(ew, LBS_EDGE_RULE), "meta edge_weight %s", ew ? ew : "(none)");
  CHECK(!strcmp(LBSPROF_EDGE_RULE, LBS_EDGE_RULE) &&
            !strcmp(LBSPROF_EDGE_RULE_METRIC, LBS_EDGE_RULE_METRIC),
        "lbsprof.h's rule is not lbs_traces.h's");
  const int64_t *xadj, *adj;
  const double *w;
  CHECK(lbs_mesh_graph(lbs_trace_mesh(t), &xadj, &adj, &w) == LBS_OK, "graph: %s", lbs_errmsg());
  CHECK(lbs_mesh_directed(lbs_trace_mesh(t)), "an undirected mesh");
  for (int64_t u = 0; u < E; u++)
    for (int64_t k = xadj[u]; k < xadj[u + 1]; k++) {
      double want = adj[k] == (u + 1) % E ? 1.0 + (double)u : 0;
      CHECK(w[k] == want, "arc %lld -> %lld weighs %g, not %g", (long long)u, (long long)adj[k],
            w[k], want);
    }
  double cw[2 * E];
  for (int s = 0; s < STEPS; s++) {
    CHECK(lbs_trace_edge_weights(t, s, cw) == LBS_OK, "step %d: %s", s, lbs_errmsg());
    for (int64_t u = 0; u < E; u++)
      for (int64_t k = xadj[u]; k < xadj[u + 1]; k++)
        CHECK(cw[k] == w[k] * rwgt(adj[k], s), "step %d: arc %lld -> %lld weighs %g", s,
              (long long)u, (long long)adj[k], cw[k]);
  }
  lbs_trace_close(&t);
}

static void run(const lbsprof_opts *o) {
  lbsprof *p;
  CHECK(lbsprof_init(MPI_COMM_WORLD, o, &p) == 0, "init: %s", lbsprof_errmsg());
  int m = lbsprof_value_metric(p, LBSPROF_EDGE_RULE_METRIC, "bodies");
  CHECK(lbsprof_meta(p, "edge_weight", LBSPROF_EDGE_RULE) == 0, "rule: %s", lbsprof_errmsg());
  ring r;
  make_ring(&r);
  CHECK(lbsprof_mesh_weighted(p, r.n, r.gid, 0, NULL, r.xadj, r.adj, r.w) == 0, "mesh: %s",
        lbsprof_errmsg());
  for (int s = 0; s < STEPS; s++) {
    for (int64_t i = 0; i < r.n; i++) lbsprof_set_value(p, m, i, rwgt(r.gid[i], s));
    CHECK(lbsprof_step_end(p) == 0, "step_end: %s", lbsprof_errmsg());
  }
  CHECK(lbsprof_finalize(&p) == 0, "finalize: %s", lbsprof_errmsg());
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check_rank = rank;
  char path[128];
  if (rank == 0) snprintf(path, sizeof path, "/tmp/lbsprof_edges_%d.lbt", (int)getpid());
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  lbsprof_opts o;
  lbsprof_opts_default(&o);
  o.trace_path = path, o.bound = "lossless", o.metrics = "time_ns";
  bad_calls(&o);
  run(&o);
  if (rank == 0) check_trace(path), unlink(path);
  int rc = check_finish();
  MPI_Finalize();
  return rc;
}
