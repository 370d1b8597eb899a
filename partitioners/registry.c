/* registry.c - the partitioner registry: one line per partitioner. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_grid.h"
#include "lbs_minex.h"
#include "lbs_registry.h"
#include "part_int.h"

extern const lbs_partitioner_ops lbs__part_zoltan, lbs__part_metis, lbs__part_minex, lbs__part_lua,
    lbs__part_objlb;

static const void *const builtin[] = {&lbs__part_zoltan, &lbs__part_metis, &lbs__part_minex,
                                      &lbs__part_lua,    &lbs__part_objlb, NULL};

/* Lists show a partitioner by its usage ("lua:FILE.lua[:ARGS]"), else with its methods
 * ("zoltan:{rcb,rib,...}"), or by its name alone when it has none (a plug-in's). */
static const char *with_methods(const void *ops, char *buf, size_t size) {
  const lbs_partitioner_ops *o = ops;
  if (o->usage) return o->usage;
  if (!o->methods || !*o->methods) return o->name;
  snprintf(buf, size, "%s:{%s}", o->name, o->methods ? o->methods : "");
  return buf;
}

static lbs_registry registry =
    LBS_REGISTRY("partitioner", builtin, lbs_partitioner_ops, name, with_methods);

struct lbs_partitioner {
  const lbs_partitioner_ops *ops;
  void *state;
  char *name;
};

/* The registered partitioners' sections (lbs_part_sections), rebuilt when the registry grows. */
static lbs_section_spec sections[LBS_PART_MAX_SECTIONS + 1];
static int sections_of = -1; /* partitioners sections[] holds; -1: not built */

const lbs_section_spec *lbs_part_sections(void) {
  int n = lbs_part_count(), k = 0;
  if (sections_of == n) return sections;
  for (int i = 0; i < n; i++) /* lbs_part_register keeps them within LBS_PART_MAX_SECTIONS */
    for (const lbs_section_spec *s = lbs_part_at(i)->sections; s && s->kind; s++)
      sections[k++] = *s;
  sections[k] = (lbs_section_spec){NULL, 0, 0, NULL, NULL};
  sections_of = n;
  return sections;
}

/* A grid file holds the partitioners' sections: the grid library, below this one, asks for them
 * through lbs_part_sections from the moment a program that links this registry starts. */
__attribute__((constructor)) static void give_grid_sections(void) {
  lbs_grid_set_extra_sections(lbs_part_sections);
}

/* LBS_OK when a new partitioner's sections are kinds no grid file has yet (lbs_grid_spec: the
 * grid's own, [sim] and the partitioners' so far) and leave the total within bounds. */
static lbs_err check_sections(const lbs_partitioner_ops *ops) {
  int n = 0;
  for (const lbs_section_spec *s = lbs_part_sections(); s->kind; s++) n++;
  for (const lbs_section_spec *s = ops->sections; s && s->kind; s++) {
    if (++n > LBS_PART_MAX_SECTIONS)
      return lbs_fail(
          LBS_INVAL,
          "cannot register partitioner '%s': the partitioners would have %d sections (at most %d)",
          ops->name, n, LBS_PART_MAX_SECTIONS);
    for (const lbs_section_spec *g = lbs_grid_spec(); g->kind; g++)
      if (!strcmp(g->kind, s->kind))
        return lbs_fail(LBS_INVAL, "cannot register partitioner '%s': a grid file's [%s] is taken",
                        ops->name, s->kind);
  }
  return LBS_OK;
}

lbs_err lbs_part_check_config(const lbs_config *cfg) {
  lbs_err e = lbs_config_check_only(cfg, lbs_part_sections());
  if (!e) e = lbs__zoltan_check(cfg);
  lbs_minex_latency *l = NULL; /* [minex] latency names a function that must exist */
  if (!e) e = lbs_minex_latency_from_config(cfg, &l);
  lbs_minex_latency_destroy(&l);
  return e;
}

lbs_err lbs_part_register(const lbs_partitioner_ops *ops) {
  if (ops->abi != LBS_PART_ABI)
    return lbs_fail(LBS_INVAL, "cannot register partitioner '%s': ABI %d, not %d",
                    ops->name ? ops->name : "?", ops->abi, LBS_PART_ABI);
  lbs_err e = ops->name && !lbs_registry_find(&registry, ops->name) ? check_sections(ops) : LBS_OK;
  return e ? e : lbs_registry_add(&registry, ops);
}

int lbs_part_count(void) { return lbs_registry_count(&registry); }
const lbs_partitioner_ops *lbs_part_at(int i) { return lbs_registry_at(&registry, i); }
const lbs_partitioner_ops *lbs_part_find(const char *spec) {
  return lbs_registry_find_spec(&registry, spec);
}

const char *lbs_part_known(void) {
  static char buf[1024];
  return lbs_registry_list(&registry, buf, sizeof buf);
}

lbs_err lbs_part_create(const char *name, const lbs_config *cfg, MPI_Comm comm,
                        lbs_partitioner **out) {
  *out = NULL;
  const char *colon = strchr(name, ':');
  const lbs_partitioner_ops *ops = lbs_registry_find_spec(&registry, name);
  if (!ops) return lbs_registry_unknown(&registry, NULL, name);
  lbs_partitioner *p = calloc(1, sizeof *p);
  if (!p || !(p->name = strdup(name))) {
    free(p);
    return lbs_fail(LBS_NOMEM, "partitioner");
  }
  p->ops = ops;
  lbs_err e = ops->create(&p->state, colon ? colon + 1 : "", cfg, comm);
  if (e) {
    free(p->name);
    free(p);
    return e;
  }
  *out = p;
  return LBS_OK;
}

void lbs_part_destroy(lbs_partitioner **pp) {
  if (!pp || !*pp) return;
  if ((*pp)->ops->destroy) (*pp)->ops->destroy((*pp)->state);
  free((*pp)->name);
  free(*pp);
  *pp = NULL;
}

const char *lbs_part_name(const lbs_partitioner *p) { return p->name; }
int lbs_part_needs_graph(const lbs_partitioner *p) { return p->ops->needs_graph(p->state); }
int lbs_part_needs_coords(const lbs_partitioner *p) { return p->ops->needs_coords(p->state); }
int lbs_part_takes_sizes(const lbs_partitioner *p) {
  return p->ops->takes_sizes && p->ops->takes_sizes(p->state);
}
double lbs_part_tolerance(const lbs_partitioner *p) {
  return p->ops->tolerance ? p->ops->tolerance(p->state) : 0;
}
int lbs_part_has_distributed(const lbs_partitioner *p) {
  return p->ops->distributed && p->ops->distributed(p->state);
}

void lbs_part_cost_model(const lbs_partitioner *p, double *fixed_us, double *per_elem_ns) {
  *fixed_us = 500;
  *per_elem_ns = 1000;
  if (p->ops->cost_model) p->ops->cost_model(p->state, fixed_us, per_elem_ns);
}

int lbs_part_takes_weights(const lbs_partitioner *p) {
  return (p->ops->flags & LBS_PART_WEIGHTS) != 0;
}

int lbs_part_keeps_fixed(const lbs_partitioner *p) { return (p->ops->flags & LBS_PART_FIXED) != 0; }

int lbs_part_uses_current(const lbs_partitioner *p) {
  return p->ops->uses_current && p->ops->uses_current(p->state);
}

/* ---------------------------------------------------------------- pinned objects */

/* The migratable objects of an input with pinned ones, renumbered 0.. in rank order (what every
 * partitioner expects of gids, rank_first and neighbours), with the arrays the partitioner reads:
 * the input a partitioner without LBS_PART_FIXED is given. */
typedef struct around {
  lbs_part_input in;
  int64_t *idx;      /* nlocal: each one's index in the caller's input */
  int64_t *gid, *rf; /* new global ids; new rank_first */
  double *w, *co, *ws, *rw, *aw, *sizes;
  int64_t *xadj, *adj, *newid; /* newid: every object's new id (-1 pinned), with a graph */
  int *cur;
  unsigned char *allfix; /* every object's flag, with a graph */
} around;

static void around_free(around *a) {
  free(a->idx), free(a->gid), free(a->rf), free(a->w), free(a->co), free(a->ws), free(a->rw);
  free(a->aw), free(a->sizes), free(a->xadj), free(a->adj), free(a->newid), free(a->cur);
  free(a->allfix);
}

/* The part sizes the migratable objects fill around the pinned load: each part's share of the
 * whole load less its pinned load, floored (METIS refuses a zero target, and a part full of
 * pinned load should get next to nothing, not a share) and renormalised. Pinned load and total
 * are summed as fixed-point integers (2^-12 units, as the replay's loads), so the sizes, and the
 * partition, are the same on any number of ranks. Collective. */
static lbs_err around_sizes(const lbs_part_input *in, double *sizes) {
  int P = in->nparts;
  int64_t *sum = calloc((size_t)P + 1, sizeof *sum);
  lbs_err e = sum ? LBS_OK : lbs_fail(LBS_NOMEM, "pinned load");
  for (int64_t i = 0; !e && i < in->nlocal; i++) {
    int64_t v = llround(in->weight[i] * 4096.0);
    sum[P] += v;
    if (in->fixed[i]) sum[in->current[i]] += v;
  }
  int ok = !e, all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, in->comm);
  if (!all) return free(sum), e ? e : lbs_fail(LBS_NOMEM, "pinned load (another rank)");
  MPI_Allreduce(MPI_IN_PLACE, sum, P + 1, MPI_INT64_T, MPI_SUM, in->comm);
  double W = (double)sum[P], tot = 0;
  for (int p = 0; p < P; p++) {
    double share = in->part_sizes ? in->part_sizes[p] : 1.0 / P;
    double left = share * W - (double)sum[p];
    sizes[p] = left > 1e-6 * share * W ? left : 1e-6 * share * W;
    tot += sizes[p];
  }
  for (int p = 0; p < P; p++) /* no load at all: the shares as they were */
    sizes[p] = tot > 0 ? sizes[p] / tot : in->part_sizes ? in->part_sizes[p] : 1.0 / P;
  free(sum);
  return LBS_OK;
}

/* The graph of the migratable objects: arcs to pinned ones dropped, neighbours renumbered
 * (every rank learns every object's flag: O(N) bytes a rank). Collective. */
static lbs_err around_graph(const lbs_part_input *in, int size, around *a) {
  int64_t N = in->rank_first[size];
  int *cnt = malloc((size_t)size * sizeof *cnt), *dsp = malloc((size_t)size * sizeof *dsp);
  a->allfix = malloc((size_t)N + 1), a->newid = malloc((size_t)(N + 1) * sizeof *a->newid);
  int64_t ne = in->xadj[in->nlocal];
  a->xadj = malloc((size_t)(a->in.nlocal + 1) * sizeof *a->xadj);
  a->adj = malloc((size_t)(ne + 1) * sizeof *a->adj),
  a->aw = malloc((size_t)(ne + 1) * sizeof *a->aw);
  int ok = cnt && dsp && a->allfix && a->newid && a->xadj && a->adj && a->aw, all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, in->comm);
  lbs_err e = all ? LBS_OK : lbs_fail(LBS_NOMEM, "graph without pinned objects");
  for (int r = 0; !e && r < size; r++)
    cnt[r] = (int)(in->rank_first[r + 1] - in->rank_first[r]), dsp[r] = (int)in->rank_first[r];
  if (!e)
    MPI_Allgatherv(in->fixed, (int)in->nlocal, MPI_UNSIGNED_CHAR, a->allfix, cnt, dsp,
                   MPI_UNSIGNED_CHAR, in->comm);
  for (int64_t g = 0, k = 0; !e && g < N; g++) a->newid[g] = a->allfix[g] ? -1 : k++;
  for (int64_t k = 0, m = 0; !e && k < a->in.nlocal; k++) {
    int64_t i = a->idx[k];
    a->xadj[k] = m;
    for (int64_t j = in->xadj[i]; j < in->xadj[i + 1]; j++) {
      int64_t g = in->adj[j];
      if (g < 0 || g >= N || a->newid[g] < 0) continue; /* a pinned neighbour stays out */
      a->adj[m] = a->newid[g], a->aw[m++] = in->adjw ? in->adjw[j] : 1;
    }
    a->xadj[k + 1] = m;
  }
  if (!e && !a->in.nlocal) a->xadj[0] = 0;
  free(cnt), free(dsp);
  return e;
}

/* Collective: *a the input of the migratable objects alone (in->fixed given). */
static lbs_err around_make(const lbs_part_input *in, around *a) {
  int rank, size;
  MPI_Comm_rank(in->comm, &rank);
  MPI_Comm_size(in->comm, &size);
  int64_t n = 0, nl = in->nlocal, dim = in->coords ? in->dim : 0, wd = in->wdim > 1 ? in->wdim : 0;
  for (int64_t i = 0; i < nl; i++) n += !in->fixed[i];
  a->idx = malloc((size_t)(n + 1) * sizeof *a->idx), a->gid = malloc((size_t)(n + 1) * 8);
  a->rf = malloc((size_t)(size + 1) * sizeof *a->rf), a->w = malloc((size_t)(n + 1) * 8);
  a->co = malloc((size_t)(n * dim + 1) * 8), a->ws = malloc((size_t)(n * wd + 1) * 8);
  a->rw = malloc((size_t)(n + 1) * 8), a->cur = malloc((size_t)(n + 1) * sizeof *a->cur);
  a->sizes = malloc((size_t)in->nparts * sizeof *a->sizes);
  int ok = a->idx && a->gid && a->rf && a->w && a->co && a->ws && a->rw && a->cur && a->sizes, all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, in->comm);
  if (!all) return lbs_fail(LBS_NOMEM, "objects without pinned ones");
  MPI_Allgather(&n, 1, MPI_INT64_T, a->rf + 1, 1, MPI_INT64_T, in->comm);
  a->rf[0] = 0;
  for (int r = 0; r < size; r++) a->rf[r + 1] += a->rf[r];
  for (int64_t i = 0, k = 0; i < nl; i++) {
    if (in->fixed[i]) continue;
    a->idx[k] = i, a->gid[k] = a->rf[rank] + k, a->w[k] = in->weight[i], a->cur[k] = in->current[i];
    a->rw[k] = in->rwgt ? in->rwgt[i] : 1;
    for (int64_t d = 0; d < dim; d++) a->co[k * dim + d] = in->coords[i * dim + d];
    for (int64_t d = 0; d < wd; d++) a->ws[k * wd + d] = in->weights[i * wd + d];
    k++;
  }
  a->in = *in;
  a->in.nlocal = n, a->in.gid = a->gid, a->in.weight = a->w, a->in.rank_first = a->rf;
  a->in.coords = in->coords ? a->co : NULL, a->in.current = a->cur, a->in.part_sizes = a->sizes;
  a->in.rwgt = in->rwgt ? a->rw : NULL, a->in.weights = wd ? a->ws : NULL, a->in.fixed = NULL;
  lbs_err e = around_sizes(in, a->sizes);
  int graph = in->xadj != NULL, anyg; /* a rank without objects may have no graph arrays */
  MPI_Allreduce(&graph, &anyg, 1, MPI_INT, MPI_MAX, in->comm);
  if (!e && anyg && in->xadj) e = around_graph(in, size, a);
  if (!e && anyg) a->in.xadj = a->xadj, a->in.adj = a->adj, a->in.adjw = a->aw;
  return e;
}

/* A partitioner without LBS_PART_FIXED, given pinned objects: it partitions the others into the
 * room the pinned load leaves (around_sizes), and the pinned ones keep their part. */
static lbs_err run_around(lbs_partitioner *p, const lbs_part_input *in, int *newpart) {
  around a = {0};
  lbs_err e = around_make(in, &a);
  int *np = e ? NULL : malloc((size_t)(a.in.nlocal + 1) * sizeof *np);
  if (!e && !np) e = lbs_fail(LBS_NOMEM, "parts without pinned objects");
  if (!e) e = p->ops->partition(p->state, &a.in, np);
  for (int64_t i = 0; !e && i < in->nlocal; i++) newpart[i] = in->current[i];
  for (int64_t k = 0; !e && k < a.in.nlocal; k++) newpart[a.idx[k]] = np[k];
  free(np);
  around_free(&a);
  return e;
}

lbs_err lbs_part_run(lbs_partitioner *p, const lbs_part_input *in, int *newpart) {
  if (in->nparts < 1) return lbs_fail(LBS_INVAL, "partitioning into %d parts", in->nparts);
  if (lbs_part_needs_graph(p) && in->nlocal && !in->xadj)
    return lbs_fail(LBS_INVAL, "%s needs the mesh graph, and the trace has none", p->name);
  if (in->distributed && !lbs_part_has_distributed(p))
    return lbs_fail(LBS_INVAL, "%s has no distributed path: it partitions on one rank", p->name);
  if (lbs_part_needs_coords(p) && in->nlocal && (!in->coords || in->dim < 1))
    return lbs_fail(LBS_INVAL, "%s needs element coordinates, and the trace has none", p->name);
  if (in->wdim > 1 && !lbs_part_takes_weights(p))
    return lbs_fail(LBS_INVAL, "%s takes one weight per element, not %d", p->name, in->wdim);
  if (in->wdim > 1 && in->nlocal && !in->weights)
    return lbs_fail(LBS_INVAL, "%s: %d weights per element, and none given", p->name, in->wdim);
  /* pinned objects stay in their part, which must be one */
  int64_t pinned = 0;
  lbs_err e = LBS_OK;
  for (int64_t i = 0; in->fixed && i < in->nlocal; i++)
    if (in->fixed[i] && !e && (!in->current || in->current[i] < 0 || in->current[i] >= in->nparts))
      e = lbs_fail(LBS_INVAL, "%s: pinned element %lld is in part %d, not one of %d", p->name,
                   (long long)in->gid[i], in->current ? in->current[i] : -1, in->nparts);
    else
      pinned += in->fixed[i];
  /* the same path on every rank; without fixed (NULL on every rank: lbs_part.h) nothing to agree
   * on, and no collective more than before */
  int64_t v[2] = {e != LBS_OK, pinned};
  int mpi = 0;
  MPI_Initialized(&mpi); /* a unit test may call a serial partitioner without MPI */
  if (mpi && in->fixed) MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT64_T, MPI_SUM, in->comm);
  if (v[0] && !e)
    e = lbs_fail(LBS_INVAL, "%s: a pinned element on another rank has no part", p->name);
  if (!e && v[1] && !lbs_part_keeps_fixed(p) && !mpi)
    e = lbs_fail(LBS_INVAL, "%s: pinned elements need MPI (MPI_Init)", p->name);
  else if (!e && v[1] && !lbs_part_keeps_fixed(p))
    e = run_around(p, in, newpart);
  else if (!e)
    e = p->ops->partition(p->state, in, newpart);
  for (int64_t i = 0; !e && i < in->nlocal; i++)
    if (newpart[i] < 0 || newpart[i] >= in->nparts)
      e = lbs_fail(LBS_INVAL, "%s assigned element %lld to part %d of %d", p->name,
                   (long long)in->gid[i], newpart[i], in->nparts);
  /* a partitioner that says it keeps pinned objects must have */
  for (int64_t i = 0; !e && in->fixed && lbs_part_keeps_fixed(p) && i < in->nlocal; i++)
    if (in->fixed[i] && newpart[i] != in->current[i])
      e = lbs_fail(LBS_INVAL, "%s moved fixed element %lld from part %d to %d", p->name,
                   (long long)in->gid[i], in->current[i], newpart[i]);
  return e;
}
