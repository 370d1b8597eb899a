/* plugin.c - lbsim --plugin PATH.so and LBSIM_PLUGIN_PATH: shared objects that add policies
 * and partitioners (include/lbsim_plugin.h), loaded before the command runs. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "lbs_part.h"
#include "lbs_policy.h"
#include "lbs_registry.h"
#include "lbsim_plugin.h"

static int plugin_error(const char *path, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int plugin_error(const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "lbsim: plugin %s: ", path);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 1;
}

/* The plug-ins loaded (a file named twice, or by two paths, is loaded once) and the names
 * they registered, for messages: a clash with another plug-in names it. */
#define MAX_PLUGINS 64
static struct {
  void *handle;
  const char *path;
} loaded[MAX_PLUGINS];
static int nloaded;
static struct { const char *kind, *name, *path; } added[2 * LBS_REGISTRY_MAX];
static int nadded[2]; /* policies, partitioners */

/* Registers one ops table (kind "policy" or "partitioner", k 0 or 1); 0, or 1 after a message. */
static int add(const char *path, int k, const void *ops, const char *name) {
  const char *kind = k ? "partitioner" : "policy";
  if (!name || !*name) return plugin_error(path, "a %s without a name", kind);
  if (strchr(name, ':')) return plugin_error(path, "%s '%s': a name holds no ':'", kind, name);
  for (int i = 0; i < nadded[0] + nadded[1]; i++)
    if (!strcmp(added[i].kind, kind) && !strcmp(added[i].name, name))
      return plugin_error(path, "%s '%s' is plug-in %s's too: rename one", kind, name,
                          added[i].path);
  if (nadded[k] == LBS_REGISTRY_MAX)
    return plugin_error(path, "%s '%s': plug-ins add at most %d %s", kind, name, LBS_REGISTRY_MAX,
                        k ? "partitioners" : "policies");
  lbs_err e = k ? lbs_part_register(ops) : lbs_policy_register(ops);
  /* a valid name, not a plug-in's, with room left: it is a built-in's */
  if (e) return plugin_error(path, "%s '%s' is a built-in's name: rename it", kind, name);
  added[nadded[0] + nadded[1]].kind = kind;
  added[nadded[0] + nadded[1]].name = name;
  added[nadded[0] + nadded[1]].path = path;
  nadded[k]++;
  return 0;
}

/* Loads one plug-in and registers its ops; 0, or 1 after a message. */
static int load(const char *path) {
  struct stat st;
  if (stat(path, &st)) return plugin_error(path, "%s", strerror(errno));
  if (!S_ISREG(st.st_mode)) return plugin_error(path, "not a regular file");
  /* dlopen searches the library path for a name without '/': a plug-in is a file */
  char buf[4096];
  const char *open_as = path;
  if (!strchr(path, '/')) {
    if (snprintf(buf, sizeof buf, "./%s", path) >= (int)sizeof buf)
      return plugin_error(path, "path too long");
    open_as = buf;
  }
  void *h = dlopen(open_as, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    size_t n = strlen(open_as); /* dlerror names the file first: say it once */
    if (why && !strncmp(why, open_as, n) && !strncmp(why + n, ": ", 2)) why += n + 2;
    return plugin_error(path, "%s", why ? why : "cannot load");
  }
  for (int i = 0; i < nloaded; i++)
    if (loaded[i].handle == h) { /* the same file again: its ops are there */
      dlclose(h);
      return 0;
    }
  if (nloaded == MAX_PLUGINS) return plugin_error(path, "more than %d plug-ins", MAX_PLUGINS);
  /* never dlclosed: the registries keep pointers into it until lbsim exits */
  loaded[nloaded].handle = h;
  loaded[nloaded++].path = path;
  dlerror();
  void *sym = dlsym(h, LBSIM_PLUGIN_ENTRY);
  if (!sym) return plugin_error(path, "no function %s: not an lbsim plug-in", LBSIM_PLUGIN_ENTRY);
  const lbsim_plugin *(*entry)(void);
  memcpy(&entry, &sym, sizeof entry); /* ISO C has no object-to-function pointer cast */
  const lbsim_plugin *p = entry();
  if (!p) return plugin_error(path, "%s returned NULL", LBSIM_PLUGIN_ENTRY);
  if (p->abi != LBSIM_PLUGIN_ABI)
    return plugin_error(path, "built against plug-in ABI %d, this lbsim has %d: rebuild it", p->abi,
                        LBSIM_PLUGIN_ABI);
  int n = 0;
  for (int i = 0; p->policies && p->policies[i]; i++, n++) {
    const lbs_policy_ops *ops = p->policies[i];
    if (ops->abi != LBS_POLICY_ABI)
      return plugin_error(path,
                          "policy '%s' built against policy ABI %d, this lbsim has %d: rebuild it",
                          ops->name ? ops->name : "?", ops->abi, LBS_POLICY_ABI);
    if (!ops->init || !ops->decide)
      return plugin_error(path, "policy '%s' has no init or no decide",
                          ops->name ? ops->name : "?");
    if (add(path, 0, ops, ops->name)) return 1;
  }
  for (int i = 0; p->partitioners && p->partitioners[i]; i++, n++) {
    const lbs_partitioner_ops *ops = p->partitioners[i];
    if (ops->abi != LBS_PART_ABI)
      return plugin_error(
          path, "partitioner '%s' built against partitioner ABI %d, this lbsim has %d: rebuild it",
          ops->name ? ops->name : "?", ops->abi, LBS_PART_ABI);
    if (!ops->create || !ops->needs_graph || !ops->needs_coords || !ops->partition)
      return plugin_error(path,
                          "partitioner '%s' lacks create, needs_graph, needs_coords or partition",
                          ops->name ? ops->name : "?");
    if (add(path, 1, ops, ops->name)) return 1;
  }
  if (!n) return plugin_error(path, "it adds no policy and no partitioner");
  int npol = 0;
  while (p->policies && p->policies[npol]) npol++;
  lbs_log(LBS_LOG_DEBUG, "plugin %s: '%s': %d policies, %d partitioners", path,
          p->name ? p->name : "?", npol, n - npol);
  return 0;
}

int cli_plugins_load(int *argc, char ***argv) {
  const char *env = getenv("LBSIM_PLUGIN_PATH");
  if (env && *env) {
    char *list = strdup(env); /* kept: the messages name its paths */
    if (!list) return plugin_error(env, "out of memory");
    int rc = 0;
    for (char *save = NULL, *tok = strtok_r(list, ":", &save); tok && !rc;
         tok = strtok_r(NULL, ":", &save))
      rc = load(tok);
    if (rc) return rc;
  }
  int i = 1;
  while (i < *argc) {
    const char *a = (*argv)[i], *path;
    if (!strcmp(a, "--plugin")) {
      if (i + 1 >= *argc) {
        fprintf(stderr, "lbsim: --plugin needs a PATH.so (see 'lbsim --help')\n");
        return 2;
      }
      path = (*argv)[i + 1];
      i += 2;
    } else if (!strncmp(a, "--plugin=", 9)) {
      path = a + 9;
      i++;
    } else {
      break;
    }
    if (!*path) {
      fprintf(stderr, "lbsim: --plugin needs a PATH.so (see 'lbsim --help')\n");
      return 2;
    }
    int rc = load(path);
    if (rc) return rc;
  }
  /* the command's argv: the program's name, then the command */
  (*argv)[i - 1] = (*argv)[0];
  *argv += i - 1;
  *argc -= i - 1;
  return 0;
}
