/* edge_compare.c - `edge_compare RULE.lbt STORED.lbt`: the communication weights of two traces
 * of the same run, one recording the edge rule (edge_weight = flag*rwgt[target]) and one the
 * weights given per step (stored@step, lbsprof_edge_weights), must be the same at every step,
 * arc by arc (lbs_trace_edge_weights: the rule applied, or the array in force). Prints how many
 * steps the stored trace holds an array for; exit 1 with the first difference. For the e2e test
 * of apps/nbody --edges (tests/e2e/app_nbody_edges.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_traces.h"

static int fail(const char *what) {
  fprintf(stderr, "edge_compare: %s: %s\n", what, lbs_errmsg());
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3) return fprintf(stderr, "usage: edge_compare RULE.lbt STORED.lbt\n"), 2;
  lbs_trace *a = NULL, *b = NULL;
  if (lbs_trace_open(argv[1], &a) || lbs_trace_open(argv[2], &b)) return fail("open");
  const int64_t *xa, *xb, *adj;
  const double *w;
  if (lbs_mesh_graph(lbs_trace_mesh(a), &xa, &adj, &w) ||
      lbs_mesh_graph(lbs_trace_mesh(b), &xb, &adj, &w))
    return fail("graph");
  int64_t E = lbs_trace_elements(a), S = lbs_trace_steps(a), ne = xa[E], arrays = 0;
  if (E != lbs_trace_elements(b) || S != lbs_trace_steps(b) || memcmp(xa, xb, (size_t)(E + 1) * 8))
    return fprintf(stderr, "edge_compare: the traces' meshes or steps differ\n"), 1;
  if (lbs_trace_edge_weights_stored(a) || !lbs_trace_edge_weights_stored(b))
    return fprintf(stderr, "edge_compare: %s must hold the rule, %s stored@step\n", argv[1],
                   argv[2]),
           1;
  double *ca = malloc((size_t)(ne + 1) * sizeof *ca), *cb = malloc((size_t)(ne + 1) * sizeof *cb);
  if (!ca || !cb) return fprintf(stderr, "edge_compare: out of memory\n"), 1;
  for (int64_t s = 0; s < S; s++) {
    int64_t from;
    if (lbs_trace_edge_weights(a, s, ca) || lbs_trace_edge_weights(b, s, cb) ||
        lbs_trace_edge_weights_slice(b, s, 0, 0, cb + ne, &from))
      return fail("weights");
    arrays += from == s;
    for (int64_t k = 0; k < ne; k++)
      if (ca[k] != cb[k])
        return fprintf(stderr, "edge_compare: step %lld arc %lld: %g by the rule, %g stored\n",
                       (long long)s, (long long)k, ca[k], cb[k]),
               1;
  }
  printf("%lld steps, %lld arcs, %lld arrays\n", (long long)S, (long long)ne, (long long)arrays);
  free(ca), free(cb);
  lbs_trace_close(&a), lbs_trace_close(&b);
  return 0;
}
