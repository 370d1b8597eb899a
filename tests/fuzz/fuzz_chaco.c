/* libFuzzer: parse arbitrary Chaco/METIS graphs; text after a line "@@" is the coords file. */
#include <stdlib.h>
#include <string.h>

#include "lbs_traces.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *g = (const char *)data, *sep = memmem(g, size, "\n@@\n", 4);
  size_t gl = sep ? (size_t)(sep - g) : size;
  const char *c = sep ? sep + 4 : NULL;
  size_t cl = sep ? size - gl - 4 : 0;
  lbs_mesh *m = NULL;
  double *vw = NULL;
  int ncon;
  lbs_chaco_notes nt;
  if (lbs_chaco_parse("fuzz.graph", g, gl, "fuzz.coords", c, cl, &m, &vw, &ncon, &nt) == LBS_OK) {
    if (nt.nwarn < 0 || nt.nwarn > LBS_CHACO_MAX_WARNINGS) abort();
    for (int i = 0; i < nt.nwarn; i++)
      if (!memchr(nt.warning[i], '\0', sizeof nt.warning[i])) abort();
    const int64_t *x, *a;
    const double *w;
    if (lbs_mesh_graph(m, &x, &a, &w) || x[lbs_mesh_elements(m)] < 0) abort();
  }
  free(vw);
  lbs_mesh_destroy(&m);
  return 0;
}
