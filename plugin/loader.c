/* loader.c - lbs_plugin_load: dlopen a plug-in, check its ABIs and register each ops table it
 * lists. What differs between the kinds of ops (policies, partitioners, speed models, MinEX
 * latency functions) is in one table, kinds[] below: a new kind is one more row and its
 * accessors.
 *
 * An ops ABI changes when fields are added at the end of its table. A table built against the
 * ABI before is then taken as it is laid out: its bytes copied into a zeroed table of today's
 * layout, so that the fields it cannot know read 0, which every such field documents as "none"
 * (its flags, usage, example, sections). Any other ABI is refused: "rebuild it". */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elf_check.h"
#include "lbs_grid.h"
#include "lbs_minex.h"
#include "lbs_part.h"
#include "lbs_plugin_load.h"
#include "lbs_policy.h"
#include "lbs_registry.h"
#include "lbsim_plugin.h"

/* Records "plugin PATH: why" (lbsim prints it after "lbsim: "). */
static lbs_err plugin_fail(lbs_err code, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static lbs_err plugin_fail(lbs_err code, const char *path, const char *fmt, ...) {
  char why[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return lbs_fail(code, "plugin %s: %s", path, why);
}

/* One kind of ops table a plug-in may list: how to reach its list, read a table's ABI and
 * name, check its required functions and register it. */
typedef struct kind {
  const char *kind, *plural; /* "policy", "policies": for messages */
  int abi;                   /* the ABI this lbsim has (LBS_POLICY_ABI) */
  int old_abi;               /* the one before, taken by upgrade() (0: none is) */
  size_t old_size;           /* its tables' bytes: today's up to the first field added since */
  size_t size;               /* today's table's bytes */
  const void *(*at)(const lbsim_plugin *p,
                    int i); /* i-th entry of the plug-in's list, NULL at its end */
  int (*abi_of)(const void *ops);
  const char *(*name_of)(const void *ops);
  /* NULL when it has what the registry needs, else the complaint ("has no init or no decide");
   * called only once its ABI matched */
  const char *(*lacks)(const void *ops);
  lbs_err (*reg)(const void *ops);
  /* 1: reg's message says why it refused (a speed model's keys may clash too); 0: a refusal
   * of a valid name is a clash with a built-in, unless find (when given) does not know it */
  int reg_says_why;
  const void *(*find)(const char *name); /* the registered entry called name, or NULL */
} kind;

static const void *policy_at(const lbsim_plugin *p, int i) {
  return p->policies ? p->policies[i] : NULL;
}
static int policy_abi(const void *o) { return ((const lbs_policy_ops *)o)->abi; }
static const char *policy_name(const void *o) { return ((const lbs_policy_ops *)o)->name; }
static const char *policy_lacks(const void *o) {
  const lbs_policy_ops *ops = o;
  return ops->init && ops->decide ? NULL : "has no init or no decide";
}
static lbs_err policy_reg(const void *o) { return lbs_policy_register(o); }
static const void *policy_find(const char *name) { return lbs_policy_find(name); }

static const void *part_at(const lbsim_plugin *p, int i) {
  return p->partitioners ? p->partitioners[i] : NULL;
}
static int part_abi(const void *o) { return ((const lbs_partitioner_ops *)o)->abi; }
static const char *part_name(const void *o) { return ((const lbs_partitioner_ops *)o)->name; }
static const char *part_lacks(const void *o) {
  const lbs_partitioner_ops *ops = o;
  return ops->create && ops->needs_graph && ops->needs_coords && ops->partition
             ? NULL
             : "lacks create, needs_graph, needs_coords or partition";
}
static lbs_err part_reg(const void *o) { return lbs_part_register(o); }
static const void *part_find(const char *name) { return lbs_part_find(name); }

static const void *speed_at(const lbsim_plugin *p, int i) {
  return p->speed_models ? p->speed_models[i] : NULL;
}
static int speed_abi(const void *o) { return ((const lbs_speed_ops *)o)->abi; }
static const char *speed_name(const void *o) { return ((const lbs_speed_ops *)o)->name; }
static const char *speed_lacks(const void *o) {
  const lbs_speed_ops *ops = o;
  return ops->init && ops->time_ns && ops->rate ? NULL : "lacks init, time_ns or rate";
}
static lbs_err speed_reg(const void *o) { return lbs_speed_register(o); }

static const void *latency_at(const lbsim_plugin *p, int i) {
  return p->latencies ? p->latencies[i] : NULL;
}
static int latency_abi(const void *o) { return ((const lbs_minex_latency_ops *)o)->abi; }
static const char *latency_name(const void *o) { return ((const lbs_minex_latency_ops *)o)->name; }
static const char *latency_lacks(const void *o) {
  const lbs_minex_latency_ops *ops = o;
  return ops->create && ops->latency ? NULL : "lacks create or latency";
}
static lbs_err latency_reg(const void *o) { return lbs_minex_latency_register(o); }

/* The tables of the ABIs before: today's without the fields added since. */
#define POLICY_ABI2_SIZE offsetof(lbs_policy_ops, flags)         /* up to example */
#define PART_ABI3_SIZE offsetof(lbs_partitioner_ops, usage)      /* up to cost_model */
#define LATENCY_ABI1_SIZE offsetof(lbs_minex_latency_ops, flags) /* up to destroy */
#define SPEED_ABI2_SIZE offsetof(lbs_speed_ops, bind_metric)     /* up to fini */
_Static_assert(LBS_POLICY_ABI == 3 &&
                   POLICY_ABI2_SIZE == offsetof(lbs_policy_ops, example) + sizeof(char *),
               "policy ABI 2 ended with example: update old_abi and its size with LBS_POLICY_ABI");
_Static_assert(
    LBS_PART_ABI == 4 &&
        PART_ABI3_SIZE == offsetof(lbs_partitioner_ops, cost_model) + sizeof(void (*)(void)),
    "partitioner ABI 3 ended with cost_model: update old_abi and its size with LBS_PART_ABI");
_Static_assert(
    LBS_MINEX_LATENCY_ABI == 2 &&
        LATENCY_ABI1_SIZE == offsetof(lbs_minex_latency_ops, destroy) + sizeof(void (*)(void)),
    "latency ABI 1 ended with destroy: update old_abi and its size with LBS_MINEX_LATENCY_ABI");
_Static_assert(LBS_SPEED_ABI == 3 &&
                   SPEED_ABI2_SIZE == offsetof(lbs_speed_ops, fini) + sizeof(void (*)(void)),
               "speed ABI 2 ended with fini: update old_abi and its size with LBS_SPEED_ABI");

static const kind kinds[] = {
    {.kind = "policy",
     .plural = "policies",
     .abi = LBS_POLICY_ABI,
     .old_abi = 2,
     .old_size = POLICY_ABI2_SIZE,
     .size = sizeof(lbs_policy_ops),
     .at = policy_at,
     .abi_of = policy_abi,
     .name_of = policy_name,
     .lacks = policy_lacks,
     .reg = policy_reg,
     .find = policy_find},
    {.kind = "partitioner",
     .plural = "partitioners",
     .abi = LBS_PART_ABI,
     .old_abi = 3,
     .old_size = PART_ABI3_SIZE,
     .size = sizeof(lbs_partitioner_ops),
     .at = part_at,
     .abi_of = part_abi,
     .name_of = part_name,
     .lacks = part_lacks,
     .reg = part_reg,
     .find = part_find},
    {.kind = "speed model",
     .plural = "speed models",
     .abi = LBS_SPEED_ABI,
     .old_abi = 2,
     .old_size = SPEED_ABI2_SIZE,
     .size = sizeof(lbs_speed_ops),
     .at = speed_at,
     .abi_of = speed_abi,
     .name_of = speed_name,
     .lacks = speed_lacks,
     .reg = speed_reg,
     .reg_says_why = 1},
    {.kind = "latency function",
     .plural = "latency functions",
     .abi = LBS_MINEX_LATENCY_ABI,
     .old_abi = 1,
     .old_size = LATENCY_ABI1_SIZE,
     .size = sizeof(lbs_minex_latency_ops),
     .at = latency_at,
     .abi_of = latency_abi,
     .name_of = latency_name,
     .lacks = latency_lacks,
     .reg = latency_reg},
};
#define NKINDS ((int)(sizeof kinds / sizeof *kinds))

/* The plug-ins loaded (a file named twice, or by two paths, is loaded once), with their paths
 * (copies: messages name them later), and the names they registered, for messages: a clash
 * with another plug-in names it. */
#define MAX_PLUGINS 64
static struct {
  void *handle;
  char *path;
} loaded[MAX_PLUGINS];
static int nloaded;
static struct {
  int k; /* index in kinds[] */
  const char *name, *path;
} added[NKINDS * LBS_REGISTRY_MAX];
static int nadded, nadded_kind[NKINDS];

/* Registers one ops table of kind k after the checks on its name. */
static lbs_err add(const char *path, int k, const void *ops) {
  const kind *K = &kinds[k];
  const char *name = K->name_of(ops);
  if (!name || !*name) return plugin_fail(LBS_INVAL, path, "a %s without a name", K->kind);
  if (strchr(name, ':'))
    return plugin_fail(LBS_INVAL, path, "%s '%s': a name holds no ':'", K->kind, name);
  for (int i = 0; i < nadded; i++)
    if (added[i].k == k && !strcmp(added[i].name, name))
      return plugin_fail(LBS_INVAL, path, "%s '%s' is plug-in %s's too: rename one", K->kind, name,
                         added[i].path);
  if (nadded_kind[k] == LBS_REGISTRY_MAX)
    return plugin_fail(LBS_INVAL, path, "%s '%s': plug-ins add at most %d %s", K->kind, name,
                       LBS_REGISTRY_MAX, K->plural);
  /* a valid name, not a plug-in's, with room left: it is a built-in's, unless the registry says
   * why else it refused (a partitioner's section that a grid file has already) */
  if (K->reg(ops))
    return K->reg_says_why || (K->find && !K->find(name))
               ? plugin_fail(LBS_INVAL, path, "%s '%s': %s", K->kind, name, lbs_errmsg())
               : plugin_fail(LBS_INVAL, path, "%s '%s' is a built-in's name: rename it", K->kind,
                             name);
  added[nadded].k = k;
  added[nadded].name = name;
  added[nadded++].path = path;
  nadded_kind[k]++;
  return LBS_OK;
}

/* A table of kind K built against K->old_abi as one of today's: its old_size bytes copied into
 * a zeroed table (the fields added since read 0, "none"), its abi today's. Allocated and never
 * freed once registered: the registry keeps it as long as the plug-in stays, for good. NULL when
 * out of memory. */
static void *upgrade(const kind *K, const void *ops) {
  unsigned char *copy = calloc(1, K->size);
  if (!copy) return NULL;
  memcpy(copy, ops, K->old_size);
  memcpy(copy, &K->abi, sizeof K->abi); /* every ops table starts with its int abi */
  return copy;
}

/* Checks and registers every table of kind k the plug-in lists; *n counts them. */
static lbs_err add_kind(const char *path, const lbsim_plugin *p, int k, int *n) {
  const kind *K = &kinds[k];
  const void *ops;
  for (int i = 0; (ops = K->at(p, i)); i++, (*n)++) {
    const char *name = K->name_of(ops) ? K->name_of(ops) : "?";
    int abi = K->abi_of(ops);
    if (abi != K->abi && (!K->old_abi || abi != K->old_abi))
      return plugin_fail(LBS_INVAL, path,
                         "%s '%s' built against %s ABI %d, this lbsim has %d: rebuild it", K->kind,
                         name, K->kind, abi, K->abi);
    void *copy = abi == K->abi ? NULL : upgrade(K, ops);
    if (abi != K->abi && !copy) return plugin_fail(LBS_NOMEM, path, "out of memory");
    if (copy) {
      ops = copy;
      lbs_log(LBS_LOG_DEBUG, "plugin %s: %s '%s' built against %s ABI %d: taken as %d", path,
              K->kind, name, K->kind, abi, K->abi);
    }
    const char *lacks = K->lacks(ops);
    lbs_err e = lacks ? plugin_fail(LBS_INVAL, path, "%s '%s' %s", K->kind, name, lacks)
                      : add(path, k, ops);
    if (e) {
      free(copy);
      return e;
    }
  }
  return LBS_OK;
}

/* "no policy and no partitioner", "3 policies, 0 partitioners": the kinds joined for messages. */
static void join_kinds(char *buf, size_t size, const int *counts) {
  size_t at = 0;
  buf[0] = '\0';
  for (int k = 0; k < NKINDS && at < size; k++) {
    const char *sep = !k ? "" : counts ? ", " : k == NKINDS - 1 ? " and " : ", ";
    int w = counts ? snprintf(buf + at, size - at, "%s%d %s", sep, counts[k], kinds[k].plural)
                   : snprintf(buf + at, size - at, "%sno %s", sep, kinds[k].kind);
    at += w > 0 ? (size_t)w : 0;
  }
}

/* dlopen's handle of path (a name without '/' opened as ./name: a plug-in is a file), once the
 * file is checked to hold what dlopen will map (elf_check.c: a truncated one would be a SIGBUS). */
static lbs_err open_file(const char *path, void **h) {
  struct stat st;
  if (stat(path, &st)) return plugin_fail(LBS_IO, path, "%s", strerror(errno));
  if (!S_ISREG(st.st_mode)) return plugin_fail(LBS_IO, path, "not a regular file");
  char buf[4096];
  int bad = lbs__plugin_elf_check(path, buf, sizeof buf);
  if (bad == 1) return plugin_fail(LBS_IO, path, "%s", buf);
  if (bad) return plugin_fail(LBS_INVAL, path, "truncated or not a shared object: %s", buf);
  const char *open_as = path;
  if (!strchr(path, '/')) {
    if (snprintf(buf, sizeof buf, "./%s", path) >= (int)sizeof buf)
      return plugin_fail(LBS_INVAL, path, "path too long");
    open_as = buf;
  }
  *h = dlopen(open_as, RTLD_NOW | RTLD_LOCAL);
  if (!*h) {
    const char *why = dlerror();
    size_t n = strlen(open_as); /* dlerror names the file first: say it once */
    if (why && !strncmp(why, open_as, n) && !strncmp(why + n, ": ", 2)) why += n + 2;
    return plugin_fail(LBS_IO, path, "%s", why ? why : "cannot load");
  }
  return LBS_OK;
}

/* The plug-in's description, through its entry point. */
static lbs_err describe(const char *path, void *h, const lbsim_plugin **out) {
  dlerror();
  void *sym = dlsym(h, LBSIM_PLUGIN_ENTRY);
  if (!sym)
    return plugin_fail(LBS_INVAL, path, "no function %s: not an lbsim plug-in", LBSIM_PLUGIN_ENTRY);
  const lbsim_plugin *(*entry)(void);
  memcpy(&entry, &sym, sizeof entry); /* ISO C has no object-to-function pointer cast */
  const lbsim_plugin *p = entry();
  if (!p) return plugin_fail(LBS_INVAL, path, "%s returned NULL", LBSIM_PLUGIN_ENTRY);
  if (p->abi != LBSIM_PLUGIN_ABI)
    return plugin_fail(LBS_INVAL, path,
                       "built against plug-in ABI %d, this lbsim has %d: rebuild it", p->abi,
                       LBSIM_PLUGIN_ABI);
  *out = p;
  return LBS_OK;
}

lbs_err lbs_plugin_load(const char *path) {
  void *h = NULL;
  lbs_err e = open_file(path, &h);
  if (e) return e;
  for (int i = 0; i < nloaded; i++)
    if (loaded[i].handle == h) { /* the same file again: its ops are there */
      dlclose(h);
      return LBS_OK;
    }
  if (nloaded == MAX_PLUGINS)
    return plugin_fail(LBS_INVAL, path, "more than %d plug-ins", MAX_PLUGINS);
  char *copy = strdup(path);
  if (!copy) return plugin_fail(LBS_NOMEM, path, "out of memory");
  /* never dlclosed: the registries keep pointers into it until the process exits */
  loaded[nloaded].handle = h;
  loaded[nloaded++].path = copy;
  const lbsim_plugin *p = NULL;
  if ((e = describe(copy, h, &p))) return e;
  int n[NKINDS] = {0}, total = 0;
  for (int k = 0; k < NKINDS; k++) {
    if ((e = add_kind(copy, p, k, &n[k]))) return e;
    total += n[k];
  }
  char what[256];
  if (!total) {
    join_kinds(what, sizeof what, NULL);
    return plugin_fail(LBS_INVAL, copy, "it adds %s", what);
  }
  join_kinds(what, sizeof what, n);
  lbs_log(LBS_LOG_DEBUG, "plugin %s: '%s': %s", copy, p->name ? p->name : "?", what);
  return LBS_OK;
}
