/* metis.c - METIS baselines (seed 003): metis[:kway|rb][:speed].
 *
 * k-way (METIS_PartGraphKway, the default) or recursive bisection (METIS_PartGraphRecursive)
 * on Gm: the mesh graph made symmetric (an edge in either direction joins both), with edge
 * weights raised to at least 1 (the larger of the two directions, rounded), as the seed did
 * for METIS. Parts are equal, as in the seed, unless `speed` is given: then the target part
 * weights follow the processors' speeds (a fairer baseline on heterogeneous grids). Vertex
 * weights are the work, scaled to whole numbers summing to at most 2^30. Several weights per
 * vertex (a multi-constraint load, lbs_part_input.wdim > 1) are METIS's constraints (ncon): each
 * scaled on its own as the one weight is, each balanced within the same tolerance. Serial: the
 * objects are gathered on rank 0. Seeded, so the answer is repeatable. */
#include <math.h>
#include <metis.h>
#include <stdlib.h>
#include <string.h>

#include "part_int.h"

typedef struct {
  int rb;    /* recursive bisection instead of k-way */
  int speed; /* target part weights from speeds */
  MPI_Comm comm;
} mstate;

static lbs_err create(void **state, const char *args, const lbs_config *cfg, MPI_Comm comm) {
  (void)cfg;
  mstate *m = calloc(1, sizeof *m);
  if (!m) return lbs_fail(LBS_NOMEM, "metis");
  m->comm = comm;
  char buf[64];
  snprintf(buf, sizeof buf, "%s", args ? args : "");
  for (char *tok = strtok(buf, ":"); tok; tok = strtok(NULL, ":")) {
    if (!strcmp(tok, "kway"))
      m->rb = 0;
    else if (!strcmp(tok, "rb"))
      m->rb = 1;
    else if (!strcmp(tok, "speed"))
      m->speed = 1;
    else {
      free(m);
      return lbs_fail(
          LBS_NOTFOUND,
          "unknown METIS option '%s' (known: metis, metis:kway, metis:rb, metis:kway:speed, "
          "metis:rb:speed)",
          tok);
    }
  }
  *state = m;
  return LBS_OK;
}

static int needs_graph(const void *s) { return (void)s, 1; }
/* METIS's default ufactor: 30 for k-way (1.03), 1 for recursive bisection (1.001) */
static double tolerance(const void *s) { return ((const mstate *)s)->rb ? 1.001 : 1.03; }
static int takes_sizes(const void *s) { return ((const mstate *)s)->speed; }
static int needs_coords(const void *s) { return (void)s, 0; }
/* Fitted to the real calls' wall time on the 2-core EPYC VM, one rank, 12,000 and 96,000-element
 * bump traces, 10 calls each (bench/RESULTS.md, "Partitioning cost model defaults"). */
static void cost_model(const void *s, double *fixed_us, double *per_elem_ns) {
  int rb = ((const mstate *)s)->rb;
  *fixed_us = rb ? 780 : 5900;
  *per_elem_ns = rb ? 1660 : 1000;
}

/* The vertex weights, ncon per vertex: each weight (the one, or each of in->weights) scaled to
 * whole numbers summing to at most 2^30 over the vertices, on its own, so that a small phase
 * keeps its resolution beside a large one. */
static void vertex_weights(const lbs_part_input *in, int ncon, idx_t *vw) {
  for (int k = 0; k < ncon; k++) {
    const double *w = ncon > 1 ? in->weights + k : in->weight;
    int64_t stride = ncon > 1 ? ncon : 1;
    double total = 0;
    for (int64_t i = 0; i < in->nlocal; i++) total += w[i * stride];
    double scale = total > 0 ? 1073741824.0 / total : 0;
    for (int64_t i = 0; i < in->nlocal; i++) vw[i * ncon + k] = (idx_t)floor(w[i * stride] * scale);
  }
}

/* All objects are here (rank 0): build Gm and call METIS. */
static lbs_err run(void *state, const lbs_part_input *in, int *newpart) {
  mstate *m = state;
  int64_t n = in->nlocal;
  if (n > INT32_MAX / 2) return lbs_fail(LBS_RANGE, "metis: too many vertices");
  if (in->nparts > n)
    return lbs_fail(LBS_INVAL, "metis: more parts (%d) than vertices (%lld)", in->nparts,
                    (long long)n);
  for (int64_t u = 0; u < n; u++)
    for (int64_t j = in->xadj[u]; j < in->xadj[u + 1]; j++)
      if (in->adj[j] == u)
        return lbs_fail(LBS_INVAL, "metis: vertex %lld has a self loop", (long long)u);
  if (in->nparts == 1) {
    for (int64_t i = 0; i < n; i++) newpart[i] = 0;
    return LBS_OK;
  }
  int64_t *sx = NULL, *sa = NULL;
  double *sw = NULL;
  lbs_err err = lbs_part_symmetrize(n, in->xadj, in->adj, in->adjw, 1, &sx, &sa, &sw);
  if (err) return err;
  int64_t m2 = sx[n];
  int ncon = in->wdim > 1 ? in->wdim : 1;
  idx_t *xadj = malloc((size_t)(n + 1) * sizeof *xadj),
        *adj = malloc((size_t)(m2 + 1) * sizeof *adj);
  idx_t *aw = malloc((size_t)(m2 + 1) * sizeof *aw),
        *vw = malloc((size_t)(n * ncon + 1) * sizeof *vw);
  idx_t *part = malloc((size_t)(n + 1) * sizeof *part);
  real_t *tp = m->speed ? malloc((size_t)in->nparts * (size_t)ncon * sizeof *tp) : NULL,
         *ub = malloc((size_t)ncon * sizeof *ub);
  if (!xadj || !adj || !aw || !vw || !part || !ub || (m->speed && !tp))
    err = lbs_fail(LBS_NOMEM, "metis graph");
  if (!err && m2 > INT32_MAX) err = lbs_fail(LBS_RANGE, "metis: too many edges");
  if (!err) {
    for (int64_t u = 0; u <= n; u++) xadj[u] = (idx_t)sx[u];
    for (int64_t j = 0; j < m2; j++)
      adj[j] = (idx_t)sa[j], aw[j] = (idx_t)fmax(1.0, nearbyint(sw[j]));
    vertex_weights(in, ncon, vw);
    /* every constraint's target is the part's share, and its tolerance METIS's default */
    for (int p = 0; tp && p < in->nparts; p++)
      for (int k = 0; k < ncon; k++) tp[p * ncon + k] = (real_t)in->part_sizes[p];
    for (int k = 0; k < ncon; k++) ub[k] = (real_t)tolerance(m);
    idx_t nv = (idx_t)n, nc = ncon, np = in->nparts, obj, opts[METIS_NOPTIONS];
    METIS_SetDefaultOptions(opts);
    opts[METIS_OPTION_SEED] = 1;
    opts[METIS_OPTION_NUMBERING] = 0;
    /* one constraint: ubvec NULL, METIS's default (the same value), as before */
    real_t *ubv = ncon > 1 ? ub : NULL;
    int rc = m->rb ? METIS_PartGraphRecursive(&nv, &nc, xadj, adj, vw, NULL, aw, &np, tp, ubv, opts,
                                              &obj, part)
                   : METIS_PartGraphKway(&nv, &nc, xadj, adj, vw, NULL, aw, &np, tp, ubv, opts,
                                         &obj, part);
    if (rc != METIS_OK) err = lbs_fail(LBS_INVAL, "metis: partitioning failed (code %d)", rc);
    for (int64_t i = 0; !err && i < n; i++) newpart[i] = (int)part[i];
  }
  free(sx), free(sa), free(sw), free(xadj), free(adj), free(aw), free(vw), free(part), free(tp),
      free(ub);
  return err;
}

static lbs_err partition(void *state, const lbs_part_input *in, int *newpart) {
  mstate *m = state;
  int size;
  MPI_Comm_size(m->comm, &size);
  if (size == 1) return run(state, in, newpart);
  return lbs__part_on_rank0(m->comm, in, 1, 0, run, state, newpart);
}

const lbs_partitioner_ops lbs__part_metis = {.abi = LBS_PART_ABI,
                                             .name = "metis",
                                             .methods = "kway,rb,kway:speed,rb:speed",
                                             .create = create,
                                             .needs_graph = needs_graph,
                                             .needs_coords = needs_coords,
                                             .partition = partition,
                                             .destroy = free,
                                             .tolerance = tolerance,
                                             .takes_sizes = takes_sizes,
                                             .cost_model = cost_model,
                                             .flags = LBS_PART_WEIGHTS};
