/* registry.c - the partitioner registry: one line per partitioner. */
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
  lbs_err e = p->ops->partition(p->state, in, newpart);
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
