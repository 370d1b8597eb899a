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
/* The public (lenient, undirected) reader for Zoltan_Generate_Files's graph: vertices numbered
 * from base (0 or 1, its base_index), every weight with a decimal point and every vertex number
 * without one (as Zoltan prints them), which finds a line with a weight too few or too many.
 * Under base 1, *zero_line (may be NULL) gets the first line that names a vertex 0 (0 if none):
 * a file written with base_index 0. */
lbs_err lbs__zoltan_graph_parse(const char *gname, const char *gtext, size_t glen, int base,
                                lbs_mesh **mesh, double **vwgt, int *ncon, const char *cname,
                                const char *ctext, size_t clen, lbs_chaco_notes *notes,
                                int64_t *zero_line);
/* Adds a warning to notes (at most LBS_CHACO_MAX_WARNINGS: later ones are dropped). */
void lbs__chaco_note(lbs_chaco_notes *nt, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A graph as a new one-step trace at out_path (application step 0): a metric a vertex weight
 * (lbs_chaco_metric_name), the metadata source = source, and the recorded owners owner[0..n)
 * at step 0 when owner is not NULL. What lbs_chaco_write_trace and lbs_zfiles_write_trace do. */
lbs_err lbs__graph_write_trace(const char *source, lbs_mesh *mesh, const double *vwgt, int ncon,
                               const int64_t *owner, const lbs_encoding *enc, int64_t chunk_elems,
                               const char *out_path);

/* Values lbs_trace_value_stats gathers at most before narrowing further (tests lower it). */
extern int64_t lbs__stats_collect;
/* The most bytes a brotli-compressed vt file may decompress to (tests lower it). */
extern size_t lbs__vt_max_bytes;
/* The bytes a vt file is read (and decompressed) in at a time (tests lower it to split the
 * text everywhere). */
extern size_t lbs__vt_chunk;

#endif
