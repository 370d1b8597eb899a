/* registry.c - named entries found by name: the built-in array, then the added ones. */
#include "lbs_registry.h"

#include <stdio.h>
#include <string.h>

#include "lbs_config.h" /* lbs_edit_distance */

static int builtin_count(const lbs_registry *r) {
  int n = 0;
  while (r->builtin && r->builtin[n]) n++;
  return n;
}

const char *lbs_registry_name(const lbs_registry *r, const void *entry) {
  const char *name;
  memcpy(&name, (const char *)entry + r->name_off, sizeof name);
  return name;
}

int lbs_registry_count(const lbs_registry *r) { return builtin_count(r) + r->nadded; }

const void *lbs_registry_at(const lbs_registry *r, int i) {
  int nb = builtin_count(r);
  if (i < 0 || i >= nb + r->nadded) return NULL;
  return i < nb ? r->builtin[i] : r->added[i - nb];
}

/* The entry whose name is the len bytes at name. */
static const void *find_n(const lbs_registry *r, const char *name, size_t len) {
  const void *entry;
  for (int i = 0; (entry = lbs_registry_at(r, i)); i++) {
    const char *n = lbs_registry_name(r, entry);
    if (strlen(n) == len && !strncmp(n, name, len)) return entry;
  }
  return NULL;
}

const void *lbs_registry_find(const lbs_registry *r, const char *name) {
  return find_n(r, name, strlen(name));
}

const void *lbs_registry_find_spec(const lbs_registry *r, const char *spec) {
  return find_n(r, spec, strcspn(spec, ":"));
}

lbs_err lbs_registry_add(lbs_registry *r, const void *entry) {
  const char *name = entry ? lbs_registry_name(r, entry) : NULL;
  if (!name || !*name) return lbs_fail(LBS_INVAL, "cannot register a %s without a name", r->what);
  if (strchr(name, ':')) /* lbs_registry_find_spec could never find it */
    return lbs_fail(LBS_INVAL, "cannot register %s '%s': a name holds no ':'", r->what, name);
  if (lbs_registry_find(r, name)) return lbs_fail(LBS_INVAL, "%s '%s' exists", r->what, name);
  if (r->nadded == LBS_REGISTRY_MAX)
    return lbs_fail(LBS_INVAL, "cannot register %s '%s': %d were added already", r->what, name,
                    LBS_REGISTRY_MAX);
  r->added[r->nadded++] = entry;
  return LBS_OK;
}

const char *lbs_registry_list(const lbs_registry *r, char *buf, size_t size) {
  size_t len = 0;
  const void *entry;
  if (size) buf[0] = '\0';
  for (int i = 0; size && (entry = lbs_registry_at(r, i)); i++) {
    char tmp[256];
    const char *label = r->label ? r->label(entry, tmp, sizeof tmp) : lbs_registry_name(r, entry);
    snprintf(buf + len, size - len, "%s%s", i ? ", " : "", label);
    len += strlen(buf + len);
  }
  return buf;
}

const char *lbs_registry_closest(const lbs_registry *r, const char *spec) {
  char name[65];
  size_t len = strcspn(spec, ":");
  if (len == 0 || len >= sizeof name) return NULL;
  memcpy(name, spec, len);
  name[len] = '\0';
  lbs_near near;
  lbs_near_init(&near, name);
  const void *entry;
  for (int i = 0; (entry = lbs_registry_at(r, i)); i++)
    lbs_near_offer(&near, lbs_registry_name(r, entry));
  const char *best = lbs_near_best(&near);
  if (!best) return NULL;
  for (int i = 0; (entry = lbs_registry_at(r, i)); i++) /* the registry's own string */
    if (!strcmp(lbs_registry_name(r, entry), best)) return lbs_registry_name(r, entry);
  return NULL;
}

lbs_err lbs_registry_unknown(const lbs_registry *r, const char *where, const char *spec) {
  char known[768];
  const char *close = lbs_registry_closest(r, spec);
  lbs_registry_list(r, known, sizeof known);
  if (close)
    return lbs_fail(LBS_NOTFOUND, "%s%sunknown %s '%s' (known: %s); did you mean '%s'?",
                    where ? where : "", where ? ": " : "", r->what, spec, known, close);
  return lbs_fail(LBS_NOTFOUND, "%s%sunknown %s '%s' (known: %s)", where ? where : "",
                  where ? ": " : "", r->what, spec, known);
}
