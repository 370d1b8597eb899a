/* plugin.c - lbsim --plugin PATH.so and LBSIM_PLUGIN_PATH: shared objects that add policies,
 * partitioners, speed models and MinEX latency functions (include/lbsim_plugin.h), loaded
 * before the command runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lbs_plugin_load.h"

/* Loads one plug-in (plugin/loader.c); 0, or 1 after 'lbsim: plugin PATH: why'. */
static int load(const char *path) {
  if (!lbs_plugin_load(path)) return 0;
  fprintf(stderr, "lbsim: %s\n", lbs_errmsg());
  return 1;
}

int cli_plugins_load(int *argc, char ***argv) {
  const char *env = getenv("LBSIM_PLUGIN_PATH");
  if (env && *env) {
    char *list = strdup(env); /* strtok_r cuts it (the loader keeps its own copies) */
    if (!list) {
      fprintf(stderr, "lbsim: plugin %s: out of memory\n", env);
      return 1;
    }
    int rc = 0;
    for (char *save = NULL, *tok = strtok_r(list, ":", &save); tok && !rc;
         tok = strtok_r(NULL, ":", &save))
      rc = load(tok);
    free(list);
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
