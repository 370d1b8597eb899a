/* part_minex.c - MinEX behind the partitioner interface: minex[:scratch|diffusive].
 *
 * The objects are the graph's vertices (gathered on rank 0: MinEX is serial), their work the
 * processing weight, the mesh edges' weights the communication weights, and the grid the
 * configuration graph (lbs_minex_ipg_from_grid). The current parts give the relocation costs
 * (whether Zoltan-style PARTITION or REPARTITION was asked for: MinEX always accounts for
 * redistribution); `diffusive` also starts from them. Settings come from [minex], the
 * latency-tolerance function too (`latency`, latency.c). */
#include <stdlib.h>
#include <string.h>

#include "lbs_grid.h"
#include "lbs_minex.h"
#include "part_int.h"

static const lbs_opt minex_opts[] = {
    {"throttle", LBS_OPT_DOUBLE, "1", 0, 1e300,
     "ThroTTle: a move that adds load needs Gain^2/-DVar <= this"},
    {"latency_tolerance", LBS_OPT_DOUBLE, "0", 0, 1,
     "fraction of processing time that hides communication (0: none, QWgt = Wgt + Comm + Remap)"},
    {"latency", LBS_OPT_STRING, "", 1, 0,
     "the latency-tolerance function: none, overlap:F, lua:FILE.lua[:ARGS] (relative to this file) or a plug-in's"},
    {"passes", LBS_OPT_INT, "16", 1, 1000, "refinement passes per level at most"},
    {"coarse_per_proc", LBS_OPT_INT, "8", 1, 1000000,
     "stop contracting at this many vertices per processor"},
    {NULL, 0, NULL, 0, 0, NULL}};

const lbs_section_spec lbs__minex_spec[] = {{"minex", 0, 0, minex_opts, "MinEX settings"},
                                            {NULL, 0, 0, NULL, NULL}};

typedef struct {
  lbs_minex_opts o;
  lbs_minex_latency *latency; /* NULL: none */
  long long passes, coarse;
  MPI_Comm comm;
} xstate;

static lbs_err create(void **state, const char *args, const lbs_config *cfg, MPI_Comm comm) {
  xstate *s = calloc(1, sizeof *s);
  if (!s) return lbs_fail(LBS_NOMEM, "minex");
  s->o = lbs_minex_defaults();
  s->comm = comm;
  lbs_err e = LBS_OK;
  if (!strcmp(args, "diffusive"))
    s->o.diffusive = 1;
  else if (*args && strcmp(args, "scratch"))
    e = lbs_fail(LBS_NOTFOUND,
                 "unknown MinEX option '%s' (known: minex, minex:scratch, minex:diffusive)", args);
  if (!e && cfg) {
    if (!(e = lbs_config_check_only(cfg, lbs__minex_spec)) &&
        !(e = lbs_config_double(cfg, lbs__minex_spec, "minex", "", "throttle", &s->o.throttle)) &&
        !(e = lbs_config_int(cfg, lbs__minex_spec, "minex", "", "passes", &s->passes)) &&
        !(e = lbs_config_int(cfg, lbs__minex_spec, "minex", "", "coarse_per_proc", &s->coarse)))
      e = lbs_minex_latency_from_config(cfg, &s->latency);
    s->o.max_passes = (int)s->passes, s->o.coarse_per_proc = (int)s->coarse;
  }
  if (e) {
    free(s);
    return e;
  }
  lbs_minex_latency_apply(s->latency, &s->o);
  *state = s;
  return LBS_OK;
}

static void destroy(void *state) {
  xstate *s = state;
  if (s) lbs_minex_latency_destroy(&s->latency);
  free(s);
}

static int needs_graph(const void *s) { return (void)s, 1; }
static int needs_coords(const void *s) { return (void)s, 0; }
/* Fitted as METIS's and Zoltan's are (bench/RESULTS.md, "Partitioning cost model defaults"). */
static void cost_model(const void *s, double *fixed_us, double *per_elem_ns) {
  int diffusive = ((const xstate *)s)->o.diffusive;
  *fixed_us = diffusive ? 890 : 7700;
  *per_elem_ns = diffusive ? 860 : 980;
}

static lbs_err run(void *state, const lbs_part_input *in, int *newpart) {
  xstate *s = state;
  if (!in->grid) return lbs_fail(LBS_INVAL, "minex needs the grid (its processors and links)");
  for (int64_t i = 0; i < in->nlocal; i++)
    if (in->gid[i] != i)
      return lbs_fail(LBS_INVAL, "minex partitions the whole graph; element %lld is missing",
                      (long long)i);
  lbs_minex_ipg ipg;
  lbs_err e = lbs_minex_ipg_from_grid(in->grid, in->bytes_per_edge, in->bytes_per_rwgt, &ipg);
  if (e) return e;
  if (ipg.P != in->nparts)
    e = lbs_fail(LBS_INVAL, "minex: %d parts asked for, the grid has %d processors", in->nparts,
                 ipg.P);
  /* the current parts give relocation costs (and diffusive's start), unless some are unknown */
  const int *cur = in->current;
  for (int64_t i = 0; cur && i < in->nlocal; i++)
    if (cur[i] < 0) cur = NULL;
  lbs_minex_graph g = {in->nlocal, in->xadj, in->adj, in->adjw, in->weight, in->rwgt, cur};
  if (!e) e = lbs_minex_latency_begin(s->latency, &ipg);
  if (!e)
    e = lbs_minex_latency_why(s->latency, lbs_minex_partition(&g, &ipg, &s->o, newpart, NULL));
  lbs_minex_ipg_free(&ipg);
  return e;
}

static lbs_err partition(void *state, const lbs_part_input *in, int *newpart) {
  xstate *s = state;
  int size;
  MPI_Comm_size(s->comm, &size);
  if (size == 1) return run(state, in, newpart);
  return lbs__part_on_rank0(s->comm, in, 1, 0, run, state, newpart);
}

/* relocation costs (and diffusive's start) come from where the elements are now */
static int uses_current(const void *state) {
  (void)state;
  return 1;
}

const lbs_partitioner_ops lbs__part_minex = {.abi = LBS_PART_ABI,
                                             .name = "minex",
                                             .methods = "scratch,diffusive",
                                             .create = create,
                                             .needs_graph = needs_graph,
                                             .needs_coords = needs_coords,
                                             .partition = partition,
                                             .destroy = destroy,
                                             .uses_current = uses_current,
                                             .cost_model = cost_model,
                                             .sections = lbs__minex_spec};
