/* registry.c - the policy registry: one line per policy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_policy.h"

extern const lbs_policy_ops lbs__policy_none, lbs__policy_fixed, lbs__policy_threshold, lbs__policy_adaptive,
    lbs__policy_stop_at_rise, lbs__policy_metabalancer, lbs__policy_cost_benefit, lbs__policy_optimal,
    lbs__policy_steps;

#define MAX_POLICIES 32
static const lbs_policy_ops *registry[MAX_POLICIES + 1] = {
    &lbs__policy_none,         &lbs__policy_fixed,        &lbs__policy_threshold,    &lbs__policy_adaptive,
    &lbs__policy_stop_at_rise, &lbs__policy_metabalancer, &lbs__policy_cost_benefit, &lbs__policy_optimal,
    &lbs__policy_steps,        NULL};

struct lbs_policy {
  const lbs_policy_ops *ops;
  void *state;
  char *name;
};

lbs_err lbs_policy_register(const lbs_policy_ops *ops) {
  int n = 0;
  for (; registry[n]; n++)
    if (!strcmp(registry[n]->name, ops->name)) return lbs_fail(LBS_INVAL, "policy '%s' exists", ops->name);
  if (n == MAX_POLICIES || ops->abi != LBS_POLICY_ABI) return lbs_fail(LBS_INVAL, "cannot register '%s'", ops->name);
  registry[n] = ops;
  registry[n + 1] = NULL;
  return LBS_OK;
}

const char *lbs_policy_known(void) {
  static char buf[512];
  buf[0] = '\0';
  for (int i = 0; registry[i]; i++) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? ", " : "", registry[i]->usage);
  return buf;
}

lbs_err lbs_policy_create(const char *name, lbs_policy **out) {
  *out = NULL;
  const char *colon = strchr(name, ':');
  size_t len = colon ? (size_t)(colon - name) : strlen(name);
  const lbs_policy_ops *ops = NULL;
  for (int i = 0; registry[i]; i++)
    if (strlen(registry[i]->name) == len && !strncmp(registry[i]->name, name, len)) ops = registry[i];
  if (!ops) return lbs_fail(LBS_NOTFOUND, "unknown policy '%s' (known: %s)", name, lbs_policy_known());
  lbs_policy *p = calloc(1, sizeof *p);
  if (!p || !(p->name = strdup(name))) {
    free(p);
    return lbs_fail(LBS_NOMEM, "policy");
  }
  p->ops = ops;
  lbs_err e = ops->init(&p->state, colon ? colon + 1 : NULL);
  if (e) {
    e = lbs_fail(e, "policy '%s': %s (expected %s)", name, lbs_errmsg(), ops->usage);
    /* (lbs_fail copes with its own message as an argument) */
    free(p->name);
    free(p);
    return e;
  }
  *out = p;
  return LBS_OK;
}

void lbs_policy_destroy(lbs_policy **pp) {
  if (!pp || !*pp) return;
  if ((*pp)->ops->fini) (*pp)->ops->fini((*pp)->state);
  free((*pp)->name);
  free(*pp);
  *pp = NULL;
}

const char *lbs_policy_name(const lbs_policy *p) { return p->name; }

int lbs_policy_series(const lbs_policy *p, const int64_t **steps, const double **values) {
  *steps = NULL;
  *values = NULL;
  return p->ops->series ? p->ops->series(p->state, steps, values) : 0;
}

lbs_err lbs_policy_decide(lbs_policy *p, const lbs_loadview *view, int *repartition) {
  *repartition = 0;
  return p->ops->decide(p->state, view, repartition);
}
