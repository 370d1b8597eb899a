/* lbs_config.h - INI configuration (docs/config.md) read through declarative tables.
 *
 * A file holds sections "[kind]" or "[kind name]" (e.g. "[grid]", "[cluster A]",
 * "[link A B]") with "key = value" lines. Every module declares its section kinds and keys
 * once, with type, default, range and help text; lbs_config_check() then rejects unknown
 * kinds and keys (naming file, line and the closest known one), bad types and values out
 * of range, and lbs_config_help() prints the whole table (--help-config). Command-line
 * overrides "--set kind.key=value" or "--set 'kind name.key=value'" replace file values; a named
 * section an override names must exist, or be added explicitly: "--set '+kind name.key=value'". */
#ifndef LBS_CONFIG_H
#define LBS_CONFIG_H

#include <stdio.h>

#include "lbs_core.h"

/* The longest line a file may hold, in characters without its line break: a longer one is an
 * error naming it (never cut). */
#define LBS_CONFIG_MAX_LINE 65536

typedef enum { LBS_OPT_INT, LBS_OPT_DOUBLE, LBS_OPT_BOOL, LBS_OPT_STRING } lbs_opt_type;

typedef struct lbs_opt {
  const char *key; /* key name, e.g. "bandwidth_gbps" */
  lbs_opt_type type;
  const char *def;  /* default as text; NULL when the key is required */
  double min, max;  /* inclusive range for numbers (ignored when min > max) */
  const char *help; /* one line */
} lbs_opt;

typedef struct lbs_section_spec {
  const char *kind;    /* "grid", "cluster", ... */
  int named;           /* 0: "[kind]"; 1: "[kind NAME]"; 2: "[kind NAME NAME]" */
  int required;        /* at least one such section must exist */
  const lbs_opt *opts; /* terminated by an entry with key NULL; NULL: any key (pass-through) */
  const char *help;    /* what the section describes */
} lbs_section_spec;    /* arrays of these end with kind NULL */

typedef struct lbs_config lbs_config;

/* Parses an INI file; LBS_IO when it cannot be read, LBS_PARSE (file:line) when malformed
 * or when a key repeats in a section. */
lbs_err lbs_config_load(const char *path, lbs_config **out);
/* The same from text; name is used in messages. */
lbs_err lbs_config_parse_string(const char *name, const char *text, lbs_config **out);
/* An empty configuration (for overrides only). */
lbs_err lbs_config_create(lbs_config **out);
/* Applies "section.key=value" (section "kind" or "kind name"); creates the key if needed. A
 * named section must exist (LBS_PARSE naming the known ones), unless the assignment starts
 * with '+' ("+cluster X.nodes=4" adds [cluster X]); an unnamed one ([grid], [sim]) and one
 * named "default" (a module's built-in, [nodetype default]) always may be set. */
lbs_err lbs_config_override(lbs_config *c, const char *assignment);
void lbs_config_destroy(lbs_config **c); /* NULL-safe, clears *c */

/* Checks every section and key against specs (see above). */
lbs_err lbs_config_check(const lbs_config *c, const lbs_section_spec *specs);
/* The same for the sections whose kind specs declares, leaving other kinds alone (for a
 * module that reads its own sections of a shared file). */
lbs_err lbs_config_check_only(const lbs_config *c, const lbs_section_spec *specs);

/* Checks one value as lbs_config_check checks key of section kind (its type and range), for a
 * value that comes from elsewhere (a command-line flag): LBS_PARSE or LBS_RANGE with why alone
 * ("'x' is not a number", "0 is outside [1, 10]"), for the caller to say where; LBS_INVAL for a
 * key specs lacks. *num gets its number (a flag 0 or 1; text 0). */
lbs_err lbs_config_value(const lbs_section_spec *specs, const char *kind, const char *key,
                         const char *value, double *num);

/* Sections of a kind, in file order: count, and the name of the i-th ("" for unnamed). */
int lbs_config_count(const lbs_config *c, const char *kind);
const char *lbs_config_name(const lbs_config *c, const char *kind, int i);
/* Where a section or key was given, for messages: "file:line" (static thread-local). */
const char *lbs_config_where(const lbs_config *c, const char *kind, const char *name,
                             const char *key);
/* A path a key gives, taken from the directory of the file it was given in: where is that
 * key's lbs_config_where ("dir/grid.ini:12"); an absolute path, or a key given on the command
 * line ("... (command line)"), stays as it is (the working directory). Into out (n bytes). */
void lbs_config_relpath(const char *where, const char *path, char *out, size_t n);

/* Typed values of kind/name/key, or the spec's default when the key is absent (name ""
 * for unnamed sections). Values were checked by lbs_config_check, so these only fail for
 * a missing required key or a key not in the spec (programmer error: LBS_INVAL). */
lbs_err lbs_config_int(const lbs_config *c, const lbs_section_spec *specs, const char *kind,
                       const char *name, const char *key, long long *out);
lbs_err lbs_config_double(const lbs_config *c, const lbs_section_spec *specs, const char *kind,
                          const char *name, const char *key, double *out);
lbs_err lbs_config_bool(const lbs_config *c, const lbs_section_spec *specs, const char *kind,
                        const char *name, const char *key, int *out);
/* The string value (valid while c lives) or the default. */
lbs_err lbs_config_string(const lbs_config *c, const lbs_section_spec *specs, const char *kind,
                          const char *name, const char *key, const char **out);
/* The i-th key and value given in section kind/name (file order); 0 when there is none. */
int lbs_config_entry(const lbs_config *c, const char *kind, const char *name, int i,
                     const char **key, const char **value);
/* 1 when the key is given (in the file or an override). */
int lbs_config_has(const lbs_config *c, const char *kind, const char *name, const char *key);

/* The configuration as INI text after overrides: every section in order, every key given in
 * it (file or override) with its value, a NUL-terminated string appended to out. A value
 * holding a newline (only an override can) is written with it replaced by a space. */
lbs_err lbs_config_dump(const lbs_config *c, lbs_buf *out);
/* lbs_config_dump, then what the configuration leaves to the specs' defaults: for each section
 * the keys it does not give (after a "# defaults" line, in a repeated section header), and each
 * unnamed section it lacks with every key at its default. The text parses back as INI. */
lbs_err lbs_config_dump_resolved(const lbs_config *c, const lbs_section_spec *const *specs,
                                 int nspecs, lbs_buf *out);

/* Prints every section kind and key with type, default, range and help. */
void lbs_config_help(FILE *f, const lbs_section_spec *specs);

/* Edit distance, for "did you mean" suggestions (case ignored; 99 past 64 characters). */
int lbs_edit_distance(const char *a, const char *b);
/* "Did you mean": one rule for every name lbsim suggests (commands, options, sub-commands,
 * sections, keys, partitioners and policies). Offer each known name; the closest one is
 * suggested when it is near enough: at most a third of the word's letters off (at least 2),
 * and never all of them. */
typedef struct lbs_near {
  const char *word;
  char best[65]; /* a copy: the names offered may be a caller's scratch */
  int d;
} lbs_near;
void lbs_near_init(lbs_near *n, const char *word);
void lbs_near_offer(lbs_near *n, const char *name);
/* The name to suggest (valid while n lives), or NULL when none is near enough. */
const char *lbs_near_best(const lbs_near *n);

#endif
