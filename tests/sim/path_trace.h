/* path_trace.h - the small trace the recorded-replay tests write (mpi_recorded, mpi_outside,
 * mpi_migration_rate): E elements on a path (element i next to i - 1 and i + 1), one lossless
 * metric "work", chunks of 4 steps. */
#ifndef LBS_TEST_PATH_TRACE_H
#define LBS_TEST_PATH_TRACE_H

#include <stdint.h>

#include "lbs_traces.h"

/* Creates the trace at path for writing into *w, its mesh into *m (the caller destroys it after
 * closing the writer); LBS_OK, or the error (nothing left to free). */
static inline lbs_err path_trace_create(const char *path, int64_t E, lbs_trace_writer **w,
                                        lbs_mesh **m) {
  int64_t *xadj = malloc((size_t)(E + 1) * sizeof *xadj),
          *adj = malloc((size_t)(2 * E + 1) * sizeof *adj), na = 0;
  if (!xadj || !adj) return free(xadj), free(adj), LBS_NOMEM;
  for (int64_t i = 0; i < E; i++) {
    xadj[i] = na;
    if (i > 0) adj[na++] = i - 1;
    if (i < E - 1) adj[na++] = i + 1;
  }
  xadj[E] = na;
  lbs_metric_spec ms = {"work", "1", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}};
  lbs_err e = lbs_mesh_create_unstructured(E, 0, NULL, xadj, adj, NULL, 0, m);
  free(xadj), free(adj);
  if (e) return e;
  lbs_trace_spec spec = {E, 4, 1, &ms, *m, 0, NULL};
  if ((e = lbs_trace_create(path, &spec, w))) lbs_mesh_destroy(m);
  return e;
}

#endif
