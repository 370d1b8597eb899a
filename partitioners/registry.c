/* registry.c - the partitioner registry: one line per partitioner. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_part.h"

extern const lbs_partitioner_ops lbs__part_zoltan, lbs__part_metis, lbs__part_minex;

#define MAX_PARTITIONERS 32
static const lbs_partitioner_ops *registry[MAX_PARTITIONERS + 1] = {&lbs__part_zoltan, &lbs__part_metis,
                                                                  &lbs__part_minex, NULL};

struct lbs_partitioner {
  const lbs_partitioner_ops *ops;
  void *state;
  char *name;
};

lbs_err lbs_part_register(const lbs_partitioner_ops *ops) {
  int n = 0;
  for (; registry[n]; n++)
    if (!strcmp(registry[n]->name, ops->name)) return lbs_fail(LBS_INVAL, "partitioner '%s' exists", ops->name);
  if (n == MAX_PARTITIONERS || ops->abi != LBS_PART_ABI) return lbs_fail(LBS_INVAL, "cannot register '%s'", ops->name);
  registry[n] = ops;
  registry[n + 1] = NULL;
  return LBS_OK;
}

const char *lbs_part_known(void) {
  static char buf[512];
  buf[0] = '\0';
  for (int i = 0; registry[i]; i++)
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s:{%s}", i ? ", " : "", registry[i]->name,
             registry[i]->methods);
  return buf;
}

lbs_err lbs_part_create(const char *name, const lbs_config *cfg, MPI_Comm comm, lbs_partitioner **out) {
  *out = NULL;
  const char *colon = strchr(name, ':');
  size_t len = colon ? (size_t)(colon - name) : strlen(name);
  const lbs_partitioner_ops *ops = NULL;
  for (int i = 0; registry[i]; i++)
    if (strlen(registry[i]->name) == len && !strncmp(registry[i]->name, name, len)) ops = registry[i];
  if (!ops) return lbs_fail(LBS_NOTFOUND, "unknown partitioner '%s' (known: %s)", name, lbs_part_known());
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
int lbs_part_takes_sizes(const lbs_partitioner *p) { return p->ops->takes_sizes && p->ops->takes_sizes(p->state); }
double lbs_part_tolerance(const lbs_partitioner *p) { return p->ops->tolerance ? p->ops->tolerance(p->state) : 0; }
int lbs_part_uses_current(const lbs_partitioner *p) { return p->ops->uses_current && p->ops->uses_current(p->state); }

lbs_err lbs_part_run(lbs_partitioner *p, const lbs_part_input *in, int *newpart) {
  if (in->nparts < 1) return lbs_fail(LBS_INVAL, "partitioning into %d parts", in->nparts);
  if (lbs_part_needs_graph(p) && in->nlocal && !in->xadj)
    return lbs_fail(LBS_INVAL, "%s needs the mesh graph, and the trace has none", p->name);
  if (lbs_part_needs_coords(p) && in->nlocal && (!in->coords || in->dim < 1))
    return lbs_fail(LBS_INVAL, "%s needs element coordinates, and the trace has none", p->name);
  lbs_err e = p->ops->partition(p->state, in, newpart);
  for (int64_t i = 0; !e && i < in->nlocal; i++)
    if (newpart[i] < 0 || newpart[i] >= in->nparts)
      e = lbs_fail(LBS_INVAL, "%s assigned element %lld to part %d of %d", p->name, (long long)in->gid[i], newpart[i],
                   in->nparts);
  return e;
}

int lbs_part_is_passthrough_section(const char *kind) { return !strcmp(kind, "zoltan"); }
