/* registry.c - the policy registry: one line per policy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_policy.h"
#include "lbs_registry.h"

extern const lbs_policy_ops lbs__policy_none, lbs__policy_fixed, lbs__policy_threshold,
    lbs__policy_adaptive, lbs__policy_stop_at_rise, lbs__policy_metabalancer,
    lbs__policy_cost_benefit, lbs__policy_optimal, lbs__policy_steps, lbs__policy_recorded,
    lbs__policy_lua;

static const void *const builtin[] = {
    &lbs__policy_none,         &lbs__policy_fixed,        &lbs__policy_threshold,
    &lbs__policy_adaptive,     &lbs__policy_stop_at_rise, &lbs__policy_metabalancer,
    &lbs__policy_cost_benefit, &lbs__policy_optimal,      &lbs__policy_steps,
    &lbs__policy_recorded,     &lbs__policy_lua,          NULL};

/* Lists show a policy with its arguments ("fixed:K"). */
static const char *usage(const void *ops, char *buf, size_t size) {
  (void)buf, (void)size;
  return ((const lbs_policy_ops *)ops)->usage;
}

static lbs_registry registry = LBS_REGISTRY("policy", builtin, lbs_policy_ops, name, usage);

struct lbs_policy {
  const lbs_policy_ops *ops;
  void *state;
  char *name;
};

lbs_err lbs_policy_register(const lbs_policy_ops *ops) {
  if (ops->abi != LBS_POLICY_ABI)
    return lbs_fail(LBS_INVAL, "cannot register policy '%s': ABI %d, not %d",
                    ops->name ? ops->name : "?", ops->abi, LBS_POLICY_ABI);
  return lbs_registry_add(&registry, ops);
}

int lbs_policy_count(void) { return lbs_registry_count(&registry); }
const lbs_policy_ops *lbs_policy_at(int i) { return lbs_registry_at(&registry, i); }
const lbs_policy_ops *lbs_policy_find(const char *spec) {
  return lbs_registry_find_spec(&registry, spec);
}

int lbs_policy_split(const char *list, char **out, int max) {
  int n = 0;
  char *copy = strdup(list), *save = NULL;
  if (!copy) return -1;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (n && (tok[0] >= '0' && tok[0] <= '9')) {
      size_t l = strlen(out[n - 1]) + strlen(tok) + 2;
      char *j = malloc(l);
      if (!j) goto nomem;
      snprintf(j, l, "%s,%s", out[n - 1], tok);
      free(out[n - 1]);
      out[n - 1] = j;
    } else if (n < max) {
      if (!(out[n++] = strdup(tok))) goto nomem;
    } else {
      n = max + 1;
      break;
    }
  }
  free(copy);
  return n;
nomem:
  for (int k = 0; k < n; k++) free(out[k]);
  free(copy);
  return -1;
}

const char *lbs_policy_known(void) {
  static char buf[1024];
  return lbs_registry_list(&registry, buf, sizeof buf);
}

lbs_err lbs_policy_create(const char *name, lbs_policy **out) {
  *out = NULL;
  const char *colon = strchr(name, ':');
  const lbs_policy_ops *ops = lbs_registry_find_spec(&registry, name);
  if (!ops) return lbs_registry_unknown(&registry, NULL, name);
  lbs_policy *p = calloc(1, sizeof *p);
  if (!p || !(p->name = strdup(name))) {
    free(p);
    return lbs_fail(LBS_NOMEM, "policy");
  }
  p->ops = ops;
  lbs_err e = ops->init(&p->state, colon ? colon + 1 : NULL);
  /* a message starting "policy NAME:" places itself (lua's "policy lua:f.lua:3: ...") */
  size_t nlen = strlen(ops->name);
  const char *m = lbs_errmsg();
  if (e && (strncmp(m, "policy ", 7) || strncmp(m + 7, ops->name, nlen) || m[7 + nlen] != ':')) {
    e = lbs_fail(e, "policy '%s': %s (expected %s)", name, lbs_errmsg(), ops->usage);
    /* (lbs_fail copes with its own message as an argument) */
  }
  if (e) {
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
const lbs_policy_ops *lbs_policy_ops_of(const lbs_policy *p) { return p->ops; }

int lbs_policy_series(const lbs_policy *p, const int64_t **steps, const double **values) {
  *steps = NULL;
  *values = NULL;
  return p->ops->series ? p->ops->series(p->state, steps, values) : 0;
}

lbs_err lbs_policy_decide(lbs_policy *p, const lbs_loadview *view, int *repartition) {
  *repartition = 0;
  return p->ops->decide(p->state, view, repartition);
}
