/* lbs_registry.h - named strategies (speed models, partitioners, policies, codecs) found by
 * name, in one generic table.
 *
 * A registry holds pointers to ops tables that have a `const char *name` field. The built-in
 * entries come from a static NULL-terminated array named when the registry is defined; more
 * are added at run time (tests add mocks). Iteration is in registration order: the built-in
 * ones first, as listed. Nothing is allocated, nothing needs a constructor or a destructor.
 *
 *   static const void *const builtin[] = {&lbs__policy_none, &lbs__policy_fixed, NULL};
 *   static lbs_registry policies = LBS_REGISTRY("policy", builtin, lbs_policy_ops, name, NULL);
 *   const lbs_policy_ops *ops = lbs_registry_find_spec(&policies, "fixed:20");
 *
 * Not thread-safe while entries are added; lookups alone may run concurrently. */
#ifndef LBS_REGISTRY_H
#define LBS_REGISTRY_H

#include <stddef.h>

#include "lbs_core.h"

/* Entries one registry takes at run time, beyond its built-in ones. */
#define LBS_REGISTRY_MAX 32

/* Its fields are visible only so that a registry can be defined statically (LBS_REGISTRY);
 * read and change it through the functions below. */
typedef struct lbs_registry {
  const char *what;           /* the kind of entry for messages: "policy", "speed_model" */
  const void *const *builtin; /* the built-in entries, NULL-terminated (static storage) */
  size_t name_off;            /* offset of the entries' `const char *name` field */
  /* How lists show an entry (e.g. a policy's usage "fixed:K"): a static string, or buf (size
   * bytes) filled in. NULL: its name. */
  const char *(*label)(const void *entry, char *buf, size_t size);
  const void *added[LBS_REGISTRY_MAX]; /* entries added at run time, in order */
  int nadded;                          /* how many of added[] are used */
} lbs_registry;

/* The initializer of a registry of `type` ops tables (the name is in field name_field) whose
 * built-in entries are the NULL-terminated array builtin; label may be NULL. */
#define LBS_REGISTRY(what, builtin, type, name_field, label)                                       \
  { (what), (builtin), offsetof(type, name_field), (label), {NULL}, 0 }

/* Adds entry (borrowed: it must outlive the registry, i.e. be static) after the others.
 * LBS_INVAL when its name is NULL, empty or taken, or when LBS_REGISTRY_MAX entries were
 * added already. The caller checks the entry's ABI before. */
lbs_err lbs_registry_add(lbs_registry *r, const void *entry);

/* The number of entries, built-in and added. */
int lbs_registry_count(const lbs_registry *r);

/* The i-th entry in registration order (built-in ones first); NULL when i is out of range. */
const void *lbs_registry_at(const lbs_registry *r, int i);

/* The name of an entry of r (read through the registry's name offset). */
const char *lbs_registry_name(const lbs_registry *r, const void *entry);

/* The entry called name; NULL when there is none. */
const void *lbs_registry_find(const lbs_registry *r, const char *name);

/* The entry named by the part of spec before its first ':' ("fixed:20" -> "fixed"), or by the
 * whole spec when it has no ':'; NULL when there is none. */
const void *lbs_registry_find_spec(const lbs_registry *r, const char *spec);

/* Every entry as its label shows it (the name by default), joined by ", ", into buf (size
 * bytes, truncated to fit, always NUL-terminated). Returns buf. */
const char *lbs_registry_list(const lbs_registry *r, char *buf, size_t size);

/* The name closest to the part of spec before ':' (edit distance, ignoring case), when it is
 * close enough to be a likely typo; NULL when none is. The pointer is the entry's own name. */
const char *lbs_registry_closest(const lbs_registry *r, const char *spec);

/* Records "WHERE: unknown WHAT 'spec' (known: a, b, c)", followed by "; did you mean 'b'?"
 * when a name is close, and returns LBS_NOTFOUND. where (a "file:line") may be NULL. */
lbs_err lbs_registry_unknown(const lbs_registry *r, const char *where, const char *spec);

#endif
