/* edges.c - a trace's communication weights (CWgt) at a step: the stored edge weights, or the
 * edge rule its meta key edge_weight names. The one place the rule is checked and applied:
 * `lbsim partition` reads the whole graph's weights through lbs_trace_edge_weights, the replay
 * engine (sim/engine.c) a rank's rows through lbs_trace_edge_weights_rows, feeding it the
 * values of its ghosts, which it exchanges over MPI itself.
 *
 * The rule lbsim knows, LBS_EDGE_RULE = flag*rwgt[target] (N-body traces, lbs_nbody_trace):
 * the mesh stores each arc's close flag as its weight, and the weight of arc u -> v at step s
 * is that flag x rwgt[v] at s (seed 003's CWgt(v, w) = |Cw| when Cw is close to Cv, else 0).
 * And LBS_EDGE_STEPS = stored@step: whatever weights the writer stored per step (arrays
 * edgew@STEP, read by lbs_trace_edge_weights_slice in store.c), no rule over a metric. */
#include <stdlib.h>
#include <string.h>

#include "lbs_traces.h"

int lbs_trace_edge_weights_vary(const lbs_trace *t) {
  const char *ew = lbs_trace_meta(t, "edge_weight");
  return ew && *ew;
}

int lbs_trace_edge_weights_stored(const lbs_trace *t) {
  const char *ew = lbs_trace_meta(t, "edge_weight");
  return ew && !strcmp(ew, LBS_EDGE_STEPS);
}

lbs_err lbs_trace_edge_rule_check(const lbs_trace *t, int *metric) {
  if (metric) *metric = -1;
  if (!lbs_trace_edge_weights_vary(t) || lbs_trace_edge_weights_stored(t)) return LBS_OK;
  const char *ew = lbs_trace_meta(t, "edge_weight");
  if (strcmp(ew, LBS_EDGE_RULE))
    return lbs_fail(LBS_FORMAT,
                    "meta edge_weight = '%s': the rules lbsim knows are " LBS_EDGE_RULE
                    " and " LBS_EDGE_STEPS,
                    ew);
  int r = lbs_trace_metric_find(t, LBS_EDGE_RULE_METRIC);
  if (r < 0)
    return lbs_fail(LBS_FORMAT,
                    "meta edge_weight = %s, but the trace has no " LBS_EDGE_RULE_METRIC " metric",
                    ew);
  if (metric) *metric = r;
  return LBS_OK;
}

/* The index of global id u among the n sorted ids (it is one of them). */
static int64_t find_id(const int64_t *id, int64_t n, int64_t u) {
  int64_t lo = 0, hi = n;
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (id[mid] <= u)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

void lbs_trace_edge_weights_rows(const lbs_edge_rows *r, double *cw) {
  for (int64_t k = r->xadj[0]; k < r->xadj[r->n]; k++) {
    int64_t u = r->adj[k];
    double v = u >= r->first && u < r->first + r->n ? r->val[u - r->first]
                                                    : r->gval[find_id(r->gid, r->ng, u)];
    cw[k - r->xadj[0]] = (r->flag ? r->flag[k] : 1.0) * v;
  }
}

lbs_err lbs_trace_edge_weights(lbs_trace *t, int64_t s, double *cw) {
  lbs_mesh *mesh = lbs_trace_mesh(t);
  const int64_t *xadj, *adj;
  const double *adjw;
  if (!mesh || lbs_mesh_graph(mesh, &xadj, &adj, &adjw))
    return lbs_fail(LBS_INVAL, "the trace has no mesh graph");
  int64_t E = lbs_trace_elements(t), ne = xadj[E], from;
  if (lbs_trace_edge_weights_stored(t)) return lbs_trace_edge_weights_slice(t, s, 0, ne, cw, &from);
  int r;
  lbs_err e = lbs_trace_edge_rule_check(t, &r);
  if (e) return e;
  if (r < 0) {
    if (ne) memcpy(cw, adjw, (size_t)ne * sizeof *cw);
    return LBS_OK;
  }
  double *rw = malloc((size_t)(E ? E : 1) * sizeof *rw);
  if (!rw) return lbs_fail(LBS_NOMEM, "rwgt of %lld elements", (long long)E);
  if (!(e = lbs_trace_read(t, s, r, 0, E, rw))) {
    const lbs_edge_rows all = {
        .first = 0, .n = E, .xadj = xadj, .adj = adj, .flag = adjw, .val = rw};
    lbs_trace_edge_weights_rows(&all, cw);
  }
  free(rw);
  return e;
}
