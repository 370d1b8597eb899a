/* registry.c - the speed model registry: one line per model.
 *
 * A new model "foo" is speed_foo.c defining `const lbs_speed_ops lbs__speed_foo` (its [nodetype]
 * keys, an example of them, whether it is monotone, init/time_ns/rate/fini), X(foo) in the list
 * below, and speed_foo.c in CMakeLists.txt. Its keys then join [nodetype] (lbs_grid_spec()) and
 * --help-config, and tests/grid/test_speed_models.c runs the contract on it. */
#include <string.h>

#include "grid_int.h"
#include "lbs_registry.h"

/* The built-in speed models, one X(name) each: lbs__speed_<name>, defined in speed_<name>.c. */
#define BUILTIN_SPEED_MODELS(X) X(linear) X(ipg) X(plan) X(roofline)

#define DECLARE(m) extern const lbs_speed_ops lbs__speed_##m;
BUILTIN_SPEED_MODELS(DECLARE)
#undef DECLARE
#define ENTRY(m) &lbs__speed_##m,
static const void *const builtin[] = {BUILTIN_SPEED_MODELS(ENTRY) NULL};
#undef ENTRY

/* "speed_model", as grid files name the choice, so messages read "unknown speed_model 'x'" */
static lbs_registry registry = LBS_REGISTRY("speed_model", builtin, lbs_speed_ops, name, NULL);

int lbs_speed_count(void) { return lbs_registry_count(&registry); }
const lbs_speed_ops *lbs_speed_at(int i) { return lbs_registry_at(&registry, i); }
const lbs_speed_ops *lbs_speed_find(const char *name) { return lbs_registry_find(&registry, name); }
const char *lbs__speed_known(char *buf, size_t size) {
  return lbs_registry_list(&registry, buf, size);
}
lbs_err lbs__speed_unknown(const char *where, const char *name) {
  return lbs_registry_unknown(&registry, where, name);
}

static int nkeys(const lbs_opt *keys) {
  int n = 0;
  while (keys && keys[n].key) n++;
  return n;
}

const lbs_speed_ops *lbs__speed_owner(const char *key) {
  const lbs_speed_ops *m;
  for (int i = 0; (m = lbs_speed_at(i)); i++)
    for (const lbs_opt *k = m->keys; k && k->key; k++)
      if (!strcmp(k->key, key)) return m;
  return NULL;
}

static int is_common(const char *key) {
  for (const lbs_opt *c = lbs__nodetype_common; c->key; c++)
    if (!strcmp(c->key, key)) return 1;
  return 0;
}

lbs_err lbs_speed_register(const lbs_speed_ops *ops) {
  const char *name = ops->name ? ops->name : "?";
  if (ops->abi != LBS_SPEED_ABI)
    return lbs_fail(LBS_INVAL, "cannot register speed model '%s': ABI %d, not %d", name, ops->abi,
                    LBS_SPEED_ABI);
  if (!ops->init || !ops->time_ns || !ops->rate)
    return lbs_fail(LBS_INVAL,
                    "cannot register speed model '%s': init, time_ns and rate are required", name);
  if (!ops->name || lbs_speed_find(ops->name))
    return lbs_registry_add(&registry, ops); /* refused, with why */
  int total = nkeys(ops->keys);
  for (int i = 0; i < lbs_speed_count(); i++) total += nkeys(lbs_speed_at(i)->keys);
  if (total > LBS__SPEED_MAX_KEYS)
    return lbs_fail(LBS_INVAL,
                    "cannot register speed model '%s': the models would have %d keys (at most %d)",
                    name, total, LBS__SPEED_MAX_KEYS);
  for (const lbs_opt *k = ops->keys; k && k->key; k++) {
    const lbs_speed_ops *owner = lbs__speed_owner(k->key);
    if (is_common(k->key))
      return lbs_fail(LBS_INVAL, "cannot register speed model '%s': key '%s' is every [nodetype]'s",
                      name, k->key);
    if (owner)
      return lbs_fail(LBS_INVAL,
                      "cannot register speed model '%s': key '%s' belongs to speed model '%s'",
                      name, k->key, owner->name);
    for (const lbs_opt *j = ops->keys; j < k; j++)
      if (!strcmp(j->key, k->key))
        return lbs_fail(LBS_INVAL, "cannot register speed model '%s': key '%s' is declared twice",
                        name, k->key);
  }
  return lbs_registry_add(&registry, ops);
}
