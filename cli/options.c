/* options.c - every command's getopt_long, and one message for an option it does not take:
 * "lbsim: CMD: unknown option '--jsn'; did you mean '--json'?" or "--grid needs a value", in
 * place of getopt's own line (main sets opterr to 0). */
#include <ctype.h>
#include <string.h>

#include "cli.h"

/* The last call's arguments, for cli_bad_option. */
static char *const *last_argv;
static const char *last_short = "";
static const struct option *last_long;

int cli_getopt(int argc, char *const *argv, const char *shortopts, const struct option *lo) {
  last_argv = argv, last_short = shortopts, last_long = lo;
  return getopt_long(argc, argv, shortopts, lo, NULL);
}

/* The long option of that name, or NULL. */
static const struct option *long_named(const char *name) {
  for (const struct option *o = last_long; o && o->name; o++)
    if (!strcmp(o->name, name)) return o;
  return NULL;
}

/* A long option getopt refused: unknown, ambiguous, given no value it needs or one it takes not. */
static int bad_long(const char *cmd, const char *arg) {
  char name[64];
  size_t n = strcspn(arg + 2, "=");
  snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), arg + 2);
  const struct option *o = long_named(name);
  if (o && o->has_arg == required_argument) return cli_usage(cmd, "--%s needs a value", name);
  if (o) return cli_usage(cmd, "--%s takes no value ('%s')", name, arg);
  int prefixed = 0;
  for (const struct option *p = last_long; p && p->name; p++)
    prefixed += !strncmp(p->name, name, strlen(name));
  if (prefixed > 1) return cli_usage(cmd, "option '--%s' is ambiguous: spell it whole", name);
  lbs_near near;
  lbs_near_init(&near, name);
  for (const struct option *p = last_long; p && p->name; p++) lbs_near_offer(&near, p->name);
  if (lbs_near_best(&near))
    return cli_usage(cmd, "unknown option '--%s'; did you mean '--%s'?", name,
                     lbs_near_best(&near));
  return cli_usage(cmd, "unknown option '--%s'", name);
}

int cli_bad_option(const char *cmd) {
  const char *arg = last_argv && optind > 0 ? last_argv[optind - 1] : NULL;
  if (arg && !strncmp(arg, "--", 2) && arg[2]) return bad_long(cmd, arg);
  if (optopt > 0 && optopt < 256 && isprint(optopt)) {
    const char *at = strchr(last_short, optopt);
    if (at && at[1] == ':') return cli_usage(cmd, "-%c needs a value", optopt);
    for (const struct option *o = last_long; o && o->name; o++)
      if (o->val == optopt && o->has_arg == required_argument)
        return cli_usage(cmd, "-%c needs a value", optopt);
    return cli_usage(cmd, "unknown option '-%c'", optopt);
  }
  return cli_usage(cmd, "bad option '%s'", arg ? arg : "");
}

int cli_unknown_sub(const char *cmd, const char *what, const char *word, const char *known) {
  lbs_near near;
  lbs_near_init(&near, word);
  for (const char *k = known; *k;) {
    size_t n = strcspn(k, ",");
    char name[65];
    snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), k);
    lbs_near_offer(&near, name);
    k += n;
    while (*k == ',' || *k == ' ') k++;
  }
  if (lbs_near_best(&near))
    return cli_usage(cmd, "unknown %s '%s'; did you mean '%s'? (known: %s)", what, word,
                     lbs_near_best(&near), known);
  return cli_usage(cmd, "unknown %s '%s' (known: %s)", what, word, known);
}
