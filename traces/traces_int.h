/* traces_int.h - private layouts shared inside traces/. */
#ifndef LBS_TRACES_INT_H
#define LBS_TRACES_INT_H

#include "lbs_traces.h"

struct lbs_mesh {
  lbs_mesh_kind kind; /* structured or unstructured */
  int64_t n;          /* elements */
  int64_t dims[3];    /* structured box */
  lbs_order order;    /* element numbering of a structured box */
  int directed;       /* graph kept as given */
  int dim;            /* coordinate dimensions (0: none) */
  double bytes_elem;  /* migration bytes per element */
  double bytes_edge;  /* halo bytes per edge */
  int64_t *cell;      /* structured: element -> cell (lazy) */
  double *coords;     /* n*dim (lazy for structured) */
  int64_t *xadj;      /* CSR offsets, n+1 (lazy for structured) */
  int64_t *adjncy;    /* CSR targets */
  double *adjwgt;     /* CSR weights */
};

/* Adopts cell (n entries, element -> cell) as the structured mesh's numbering. */
lbs_err lbs__mesh_set_cells(lbs_mesh *m, int64_t *cell_owned);
/* Creates an unstructured mesh that takes ownership of the arrays (validated). */
lbs_err lbs__mesh_adopt(int64_t n, int dim, double *coords, int64_t *xadj, int64_t *adjncy,
                        double *adjwgt, int directed, lbs_mesh **out);

/* Parses a Chaco/METIS graph (directed: m counts every listed entry). With notes (undirected
 * only) it forgives what Zoltan's reader forgives and fills notes; without, the rules are
 * strict (m exact, no self loops, a line per vertex). See chaco.c. */
lbs_err lbs__graph_parse(const char *gname, const char *gtext, size_t glen, int directed,
                         lbs_mesh **mesh, double **vwgt_out, int *ncon_out, const char *cname,
                         const char *ctext, size_t clen, lbs_chaco_notes *notes);

/* Values lbs_trace_value_stats gathers at most before narrowing further (tests lower it). */
extern int64_t lbs__stats_collect;
/* The most bytes a brotli-compressed vt file may decompress to (tests lower it). */
extern size_t lbs__vt_max_bytes;

#endif
