/* config.c - INI files into a flat table, read through declarative specs. */
#include "lbs_config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
  char *kind, *name; /* "[cluster A]" -> "cluster", "A" */
  int line;          /* 0 for command-line overrides */
} section;

typedef struct {
  int sec; /* index into secs */
  char *key, *value;
  int line;
} entry;

struct lbs_config {
  char *file; /* for messages */
  section *secs;
  int nsec;
  entry *ents;
  int nent;
};

/* ---------------------------------------------------------------- building */

static char *dup_trim(const char *s, size_t n) {
  while (n && isspace((unsigned char)*s)) s++, n--;
  while (n && isspace((unsigned char)s[n - 1])) n--;
  char *r = malloc(n + 1);
  if (r) {
    memcpy(r, s, n);
    r[n] = '\0';
  }
  return r;
}

/* Splits "cluster  A" into kind "cluster" and name "A" (inner runs of blanks become one). */
static lbs_err split_section(const char *text, char **kind, char **name) {
  const char *p = text;
  while (*p && !isspace((unsigned char)*p)) p++;
  *kind = dup_trim(text, (size_t)(p - text));
  char *rest = dup_trim(p, strlen(p)), *w = rest;
  for (char *r = rest; rest && *r; r++) /* collapse blanks */
    if (!isspace((unsigned char)*r) || (w > rest && w[-1] != ' '))
      *w++ = isspace((unsigned char)*r) ? ' ' : *r;
  if (rest) {
    while (w > rest && w[-1] == ' ') w--;
    *w = '\0';
  }
  *name = rest;
  if (!*kind || !*name) {
    free(*kind);
    free(*name);
    return lbs_fail(LBS_NOMEM, "config");
  }
  return LBS_OK;
}

static int find_section(const lbs_config *c, const char *kind, const char *name) {
  for (int i = 0; i < c->nsec; i++)
    if (!strcmp(c->secs[i].kind, kind) && !strcmp(c->secs[i].name, name)) return i;
  return -1;
}

static int find_entry(const lbs_config *c, int sec, const char *key) {
  for (int i = 0; i < c->nent; i++)
    if (c->ents[i].sec == sec && !strcmp(c->ents[i].key, key)) return i;
  return -1;
}

static lbs_err add_section(lbs_config *c, const char *text, int line, int *out) {
  char *kind, *name;
  lbs_err e = split_section(text, &kind, &name);
  if (e) return e;
  int i = find_section(c, kind, name);
  if (i >= 0 && line > 0) {
    e = lbs_fail(LBS_PARSE, "%s:%d: section [%s] given twice (first at line %d)", c->file, line,
                 text, c->secs[i].line);
  } else if (i < 0) {
    section *s = realloc(c->secs, (size_t)(c->nsec + 1) * sizeof *s);
    if (!s)
      e = lbs_fail(LBS_NOMEM, "config");
    else {
      c->secs = s;
      s[c->nsec] = (section){kind, name, line};
      i = c->nsec++;
      *out = i;
      return LBS_OK;
    }
  }
  free(kind);
  free(name);
  *out = i;
  return e;
}

static lbs_err set_entry(lbs_config *c, int sec, const char *key, const char *value, int line) {
  int i = find_entry(c, sec, key);
  if (i >= 0 && line > 0)
    return lbs_fail(LBS_PARSE, "%s:%d: key '%s' repeats in [%s%s%s] (first at line %d)", c->file,
                    line, key, c->secs[sec].kind, *c->secs[sec].name ? " " : "", c->secs[sec].name,
                    c->ents[i].line);
  char *v = strdup(value);
  if (!v) return lbs_fail(LBS_NOMEM, "config");
  if (i >= 0) {
    free(c->ents[i].value);
    c->ents[i].value = v;
    c->ents[i].line = line;
    return LBS_OK;
  }
  entry *en = realloc(c->ents, (size_t)(c->nent + 1) * sizeof *en);
  char *k = strdup(key);
  if (!en || !k) {
    free(v);
    free(k);
    if (en) c->ents = en;
    return lbs_fail(LBS_NOMEM, "config");
  }
  c->ents = en;
  en[c->nent++] = (entry){sec, k, v, line};
  return LBS_OK;
}

/* ---------------------------------------------------------------- parsing */

/* The INI format (docs/config.md): a line is blank, a comment (';' or '#' first), "[kind]" or
 * "[kind name]", or "key = value" (':' also separates, as libinih, which lbsim once used, had it).
 * A ';' or '#' after a blank starts a comment to the end of the line, so a value holds one only
 * inside a word ("a#b"). Lines are read here, whole, rather than by libinih, whose Debian build
 * cuts them at 199 characters and drops an unclosed header without a word. */

/* s with blanks trimmed at both ends, in place. */
static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1])) n--;
  s[n] = '\0';
  return s;
}

/* Ends the line at its comment: a ';' or '#' first or after a blank. */
static void strip_comment(char *s) {
  for (char *p = s; *p; p++)
    if ((*p == ';' || *p == '#') && (p == s || isspace((unsigned char)p[-1]))) {
      *p = '\0';
      return;
    }
}

/* "[kind name]" (t trimmed, starting with '[') as the current section. */
static lbs_err parse_header(lbs_config *c, char *t, int line, int *cur) {
  char *close = strchr(t, ']');
  if (!close)
    return lbs_fail(LBS_PARSE, "%s:%d: '%s': section header without ']'", c->file, line, t);
  if (close[1])
    return lbs_fail(LBS_PARSE, "%s:%d: '%s': text after the section header's ']'", c->file, line,
                    t);
  *close = '\0';
  char *text = trim(t + 1);
  if (!*text) return lbs_fail(LBS_PARSE, "%s:%d: empty section name", c->file, line);
  return add_section(c, text, line, cur);
}

/* One line (its break removed) into c; *cur is the current section, -1 before the first. */
static lbs_err parse_line(lbs_config *c, char *s, int line, int *cur) {
  if (strlen(s) > LBS_CONFIG_MAX_LINE)
    return lbs_fail(LBS_PARSE, "%s:%d: line longer than %d characters", c->file, line,
                    LBS_CONFIG_MAX_LINE);
  strip_comment(s);
  char *t = trim(s);
  if (!*t) return LBS_OK;
  if (*t == '[') return parse_header(c, t, line, cur);
  char *eq = strpbrk(t, "=:");
  if (!eq || eq == t)
    return lbs_fail(LBS_PARSE, "%s:%d: malformed line (expected '[section]' or 'key = value')",
                    c->file, line);
  *eq = '\0';
  char *key = trim(t), *value = trim(eq + 1);
  if (*cur < 0)
    return lbs_fail(LBS_PARSE, "%s:%d: key '%s' before any [section]", c->file, line, key);
  return set_entry(c, *cur, key, value, line);
}

lbs_err lbs_config_create(lbs_config **out) {
  *out = calloc(1, sizeof **out);
  if (!*out || !((*out)->file = strdup("command line"))) {
    free(*out);
    *out = NULL;
    return lbs_fail(LBS_NOMEM, "config");
  }
  return LBS_OK;
}

lbs_err lbs_config_parse_string(const char *name, const char *text, lbs_config **out) {
  lbs_config *c;
  lbs_err e = lbs_config_create(&c);
  if (e) return e;
  free(c->file);
  if (!(c->file = strdup(name))) {
    lbs_config_destroy(&c);
    return lbs_fail(LBS_NOMEM, "config");
  }
  /* a copy to cut into lines; an editor's UTF-8 byte order mark is no part of the first line */
  if (!strncmp(text, "\xEF\xBB\xBF", 3)) text += 3;
  char *buf = strdup(text);
  if (!buf) e = lbs_fail(LBS_NOMEM, "config");
  int line = 0, cur = -1;
  for (char *p = buf; p && !e; line++) {
    char *nl = strchr(p, '\n');
    if (nl) *nl = '\0';
    e = parse_line(c, p, line + 1, &cur);
    p = nl ? nl + 1 : NULL;
  }
  free(buf);
  if (e) lbs_config_destroy(&c);
  *out = c;
  return e;
}

lbs_err lbs_config_load(const char *path, lbs_config **out) {
  *out = NULL;
  char *text;
  size_t len;
  lbs_err e = lbs_read_file(path, &text, &len);
  if (!e && strlen(text) != len) e = lbs_fail(LBS_PARSE, "%s: not a text file", path);
  if (!e) e = lbs_config_parse_string(path, text, out);
  free(text);
  return e;
}

lbs_err lbs_config_override(lbs_config *c, const char *assignment) {
  while (isspace((unsigned char)*assignment)) assignment++;
  int add = *assignment == '+'; /* "+kind name.key=value" may add a named section */
  const char *text = assignment + add;
  const char *eq = strchr(text, '='), *dot = NULL;
  for (const char *p = text; eq && p < eq; p++)
    if (*p == '.') dot = p;
  if (!eq || !dot || dot == text || dot + 1 == eq)
    return lbs_fail(LBS_PARSE, "override '%s' is not SECTION.KEY=VALUE", assignment);
  char *sec = dup_trim(text, (size_t)(dot - text)),
       *key = dup_trim(dot + 1, (size_t)(eq - dot - 1));
  char *val = dup_trim(eq + 1, strlen(eq + 1)), *kind = NULL, *name = NULL;
  int si;
  lbs_err e =
      !sec || !key || !val ? lbs_fail(LBS_NOMEM, "config") : split_section(sec, &kind, &name);
  /* a named section must exist: a misspelt one would silently add a cluster, a link... (a
   * section named "default" is a module's built-in one, [nodetype default]: it always exists) */
  if (!e && *name && !add && strcmp(name, "default") && find_section(c, kind, name) < 0) {
    char known[512] = "";
    size_t k = 0;
    for (int i = 0; i < c->nsec && k < sizeof known - 64; i++)
      if (!strcmp(c->secs[i].kind, kind))
        k += (size_t)snprintf(known + k, sizeof known - k, "%s[%s %s]", k ? ", " : "", kind,
                              c->secs[i].name);
    e = lbs_fail(LBS_PARSE, "override '%s': there is no [%s %s] (%s%s); '+%s' adds one", assignment,
                 kind, name, k ? "known: " : "none of that kind", known, text);
  }
  if (!e) e = add_section(c, sec, 0, &si);
  if (!e) e = set_entry(c, si, key, val, 0);
  free(kind);
  free(name);
  free(sec);
  free(key);
  free(val);
  return e;
}

void lbs_config_destroy(lbs_config **cp) {
  if (!cp || !*cp) return;
  lbs_config *c = *cp;
  for (int i = 0; i < c->nsec; i++) {
    free(c->secs[i].kind);
    free(c->secs[i].name);
  }
  for (int i = 0; i < c->nent; i++) {
    free(c->ents[i].key);
    free(c->ents[i].value);
  }
  free(c->secs);
  free(c->ents);
  free(c->file);
  free(c);
  *cp = NULL;
}

/* ---------------------------------------------------------------- checking */

int lbs_edit_distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (n > 64 || m > 64) return 99;
  int d[65][65];
  for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      int sub =
          d[i - 1][j - 1] + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
      int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
      d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
    }
  return d[n][m];
}

void lbs_near_init(lbs_near *n, const char *word) { n->word = word, n->best[0] = '\0', n->d = 99; }

void lbs_near_offer(lbs_near *n, const char *name) {
  int d = lbs_edit_distance(n->word, name);
  if (d < n->d && strlen(name) < sizeof n->best)
    n->d = d, snprintf(n->best, sizeof n->best, "%s", name);
}

const char *lbs_near_best(const lbs_near *n) {
  int len = (int)strlen(n->word), limit = len / 3 > 2 ? len / 3 : 2;
  return n->best[0] && n->d <= limit && n->d < len ? n->best : NULL;
}

static const char *where_line(const lbs_config *c, int line) {
  static _Thread_local char buf[512];
  if (line > 0)
    snprintf(buf, sizeof buf, "%s:%d", c->file, line);
  else
    snprintf(buf, sizeof buf, "%s (command line)", c->file);
  return buf;
}

static const lbs_section_spec *find_spec(const lbs_section_spec *specs, const char *kind) {
  for (; specs->kind; specs++)
    if (!strcmp(specs->kind, kind)) return specs;
  return NULL;
}

static const lbs_opt *find_opt(const lbs_section_spec *s, const char *key) {
  for (const lbs_opt *o = s->opts; o && o->key; o++)
    if (!strcmp(o->key, key)) return o;
  return NULL;
}

static int count_words(const char *s) {
  int n = 0;
  for (const char *p = s; *p; p++)
    if (!isspace((unsigned char)*p) && (p == s || isspace((unsigned char)p[-1]))) n++;
  return n;
}

/* Parses a value of type t; 0 on success. */
static int parse_value(lbs_opt_type t, const char *v, double *num, int *flag) {
  char *end;
  errno = 0;
  switch (t) {
  case LBS_OPT_INT: {
    long long x = strtoll(v, &end, 10);
    if (!*v || *end || errno) return -1;
    *num = (double)x;
    return 0;
  }
  case LBS_OPT_DOUBLE:
    if (strpbrk(v, "xXpP")) return -1; /* decimal only: strtod would read C's hex (0x10 as 16) */
    *num = strtod(v, &end);
    return !*v || *end || errno || !isfinite(*num) ? -1 : 0;
  case LBS_OPT_BOOL:
    if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on") || !strcmp(v, "1"))
      *flag = 1;
    else if (!strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcasecmp(v, "off") ||
             !strcmp(v, "0"))
      *flag = 0;
    else
      return -1;
    return 0;
  case LBS_OPT_STRING: return 0;
  }
  return -1;
}

static const char *type_name(lbs_opt_type t) {
  static const char *const n[] = {"integer", "number", "true/false", "text"};
  return n[t];
}

/* A value against its key's type and range: LBS_PARSE or LBS_RANGE with why alone ("'x' is not a
 * number", "0 is outside [1, 10]"), for the caller to say where; *num its number (a flag: 0 or 1).
 */
static lbs_err check_value(const lbs_opt *o, const char *v, double *num) {
  int flag = 0;
  *num = 0;
  if (parse_value(o->type, v, num, &flag))
    return lbs_fail(LBS_PARSE, "'%s' is not %s %s", v, o->type == LBS_OPT_INT ? "an" : "a",
                    type_name(o->type));
  if ((o->type == LBS_OPT_INT || o->type == LBS_OPT_DOUBLE) && o->min <= o->max &&
      (*num < o->min || *num > o->max))
    return lbs_fail(LBS_RANGE, "%s is outside [%g, %g]", v, o->min, o->max);
  if (o->type == LBS_OPT_BOOL) *num = flag;
  return LBS_OK;
}

lbs_err lbs_config_value(const lbs_section_spec *specs, const char *kind, const char *key,
                         const char *value, double *num) {
  const lbs_section_spec *sp = find_spec(specs, kind);
  const lbs_opt *o = sp ? find_opt(sp, key) : NULL;
  if (!o) return lbs_fail(LBS_INVAL, "no key '%s' declared for [%s]", key, kind);
  return check_value(o, value, num);
}

static lbs_err check(const lbs_config *c, const lbs_section_spec *specs, int only) {
  for (int s = 0; s < c->nsec; s++) {
    const section *sec = &c->secs[s];
    const lbs_section_spec *sp = find_spec(specs, sec->kind);
    if (!sp && only) continue;
    if (!sp) {
      lbs_near near;
      lbs_near_init(&near, sec->kind);
      char known[512] = "";
      for (const lbs_section_spec *q = specs; q->kind; q++) {
        lbs_near_offer(&near, q->kind);
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", q > specs ? ", " : "",
                 q->kind);
      }
      const char *best = lbs_near_best(&near);
      if (best)
        return lbs_fail(LBS_PARSE, "%s: unknown section [%s] (did you mean [%s]? known: %s)",
                        where_line(c, sec->line), sec->kind, best, known);
      return lbs_fail(LBS_PARSE, "%s: unknown section [%s] (known: %s)", where_line(c, sec->line),
                      sec->kind, known);
    }
    if (count_words(sec->name) != sp->named)
      return lbs_fail(LBS_PARSE, "%s: section [%s%s%s] needs %s", where_line(c, sec->line),
                      sec->kind, *sec->name ? " " : "", sec->name,
                      sp->named == 0   ? "no name"
                      : sp->named == 1 ? "one name, as [kind NAME]"
                                       : "two names, as [kind A B]");
    for (const lbs_opt *o = sp->opts; o && o->key; o++)
      if (!o->def && find_entry(c, s, o->key) < 0)
        return lbs_fail(LBS_PARSE, "%s: [%s%s%s] needs '%s' (%s)", where_line(c, sec->line),
                        sec->kind, *sec->name ? " " : "", sec->name, o->key, o->help);
  }
  for (int i = 0; i < c->nent; i++) {
    const entry *en = &c->ents[i];
    const section *sec = &c->secs[en->sec];
    const lbs_section_spec *sp = find_spec(specs, sec->kind);
    if (!sp || !sp->opts) continue; /* another module's, or pass-through: checked there */
    const lbs_opt *o = find_opt(sp, en->key);
    if (!o) {
      lbs_near near;
      lbs_near_init(&near, en->key);
      for (const lbs_opt *q = sp->opts; q && q->key; q++) lbs_near_offer(&near, q->key);
      const char *best = lbs_near_best(&near);
      if (best)
        return lbs_fail(LBS_PARSE, "%s: unknown key '%s' in [%s] (did you mean '%s'?)",
                        where_line(c, en->line), en->key, sec->kind, best);
      return lbs_fail(LBS_PARSE, "%s: unknown key '%s' in [%s] (see --help-config)",
                      where_line(c, en->line), en->key, sec->kind);
    }
    double num;
    lbs_err e = check_value(o, en->value, &num);
    if (e) return lbs_fail(e, "%s: %s = %s", where_line(c, en->line), en->key, lbs_errmsg());
  }
  for (const lbs_section_spec *sp = specs; sp->kind; sp++)
    if (sp->required && lbs_config_count(c, sp->kind) == 0)
      return lbs_fail(LBS_PARSE, "%s: no [%s%s] section (%s)", c->file, sp->kind,
                      sp->named ? " NAME" : "", sp->help);
  return LBS_OK;
}

lbs_err lbs_config_check(const lbs_config *c, const lbs_section_spec *specs) {
  return check(c, specs, 0);
}
lbs_err lbs_config_check_only(const lbs_config *c, const lbs_section_spec *specs) {
  return check(c, specs, 1);
}

/* ---------------------------------------------------------------- reading */

int lbs_config_count(const lbs_config *c, const char *kind) {
  int n = 0;
  for (int i = 0; i < c->nsec; i++) n += !strcmp(c->secs[i].kind, kind);
  return n;
}

const char *lbs_config_name(const lbs_config *c, const char *kind, int k) {
  for (int i = 0; i < c->nsec; i++)
    if (!strcmp(c->secs[i].kind, kind) && k-- == 0) return c->secs[i].name;
  return NULL;
}

const char *lbs_config_where(const lbs_config *c, const char *kind, const char *name,
                             const char *key) {
  int s = find_section(c, kind, name ? name : "");
  if (s < 0) return c->file;
  int e = key ? find_entry(c, s, key) : -1;
  return where_line(c, e >= 0 ? c->ents[e].line : c->secs[s].line);
}

int lbs_config_entry(const lbs_config *c, const char *kind, const char *name, int i,
                     const char **key, const char **value) {
  int s = find_section(c, kind, name ? name : "");
  for (int k = 0; s >= 0 && k < c->nent; k++)
    if (c->ents[k].sec == s && i-- == 0) {
      *key = c->ents[k].key;
      *value = c->ents[k].value;
      return 1;
    }
  return 0;
}

int lbs_config_has(const lbs_config *c, const char *kind, const char *name, const char *key) {
  int s = find_section(c, kind, name ? name : "");
  return s >= 0 && find_entry(c, s, key) >= 0;
}

/* The text of a key, or its default; LBS_INVAL for a key the spec does not have. */
static lbs_err raw(const lbs_config *c, const lbs_section_spec *specs, const char *kind,
                   const char *name, const char *key, const lbs_opt **opt, const char **text) {
  const lbs_section_spec *sp = find_spec(specs, kind);
  *opt = sp ? find_opt(sp, key) : NULL;
  if (!*opt) return lbs_fail(LBS_INVAL, "no key '%s' declared for [%s]", key, kind);
  int s = find_section(c, kind, name ? name : "");
  int e = s >= 0 ? find_entry(c, s, key) : -1;
  *text = e >= 0 ? c->ents[e].value : (*opt)->def;
  if (!*text)
    return lbs_fail(LBS_PARSE, "%s: [%s%s%s] needs '%s'", c->file, kind, name && *name ? " " : "",
                    name ? name : "", key);
  return LBS_OK;
}

lbs_err lbs_config_double(const lbs_config *c, const lbs_section_spec *specs, const char *kind,
                          const char *name, const char *key, double *out) {
  const lbs_opt *o;
  const char *t;
  int flag;
  lbs_err e = raw(c, specs, kind, name, key, &o, &t);
  if (!e && parse_value(o->type == LBS_OPT_INT ? LBS_OPT_INT : LBS_OPT_DOUBLE, t, out, &flag))
    e = lbs_fail(LBS_PARSE, "%s: %s = '%s' is not a number", lbs_config_where(c, kind, name, key),
                 key, t);
  return e;
}

lbs_err lbs_config_int(const lbs_config *c, const lbs_section_spec *specs, const char *kind,
                       const char *name, const char *key, long long *out) {
  double v;
  lbs_err e = lbs_config_double(c, specs, kind, name, key, &v);
  if (!e) *out = (long long)v;
  return e;
}

lbs_err lbs_config_bool(const lbs_config *c, const lbs_section_spec *specs, const char *kind,
                        const char *name, const char *key, int *out) {
  const lbs_opt *o;
  const char *t;
  double num;
  lbs_err e = raw(c, specs, kind, name, key, &o, &t);
  if (!e && parse_value(LBS_OPT_BOOL, t, &num, out))
    e = lbs_fail(LBS_PARSE, "%s: %s = '%s' is not true/false", lbs_config_where(c, kind, name, key),
                 key, t);
  return e;
}

lbs_err lbs_config_string(const lbs_config *c, const lbs_section_spec *specs, const char *kind,
                          const char *name, const char *key, const char **out) {
  const lbs_opt *o;
  return raw(c, specs, kind, name, key, &o, out);
}

void lbs_config_help(FILE *f, const lbs_section_spec *specs) {
  for (const lbs_section_spec *sp = specs; sp->kind; sp++) {
    fprintf(f, "[%s%s]%s\n    %s\n", sp->kind,
            sp->named == 0   ? ""
            : sp->named == 1 ? " NAME"
                             : " A B",
            sp->required ? " (required)" : "", sp->help);
    if (!sp->opts) fprintf(f, "  (any key: passed through as it is)\n");
    for (const lbs_opt *o = sp->opts; o && o->key; o++) {
      char range[64] = "";
      if ((o->type == LBS_OPT_INT || o->type == LBS_OPT_DOUBLE) && o->min <= o->max)
        snprintf(range, sizeof range, ", %g..%g", o->min, o->max);
      fprintf(f, "  %-18s %-10s (%s%s%s) %s\n", o->key, o->def ? o->def : "required",
              type_name(o->type), range, "", o->help);
    }
  }
}

static lbs_err dump_line(lbs_buf *out, const char *a, const char *b, const char *c) {
  lbs_err e = lbs_buf_append(out, a, strlen(a));
  if (!e) e = lbs_buf_append(out, b, strlen(b));
  if (!e) e = lbs_buf_append(out, c, strlen(c));
  return e;
}

/* The keys of spec's sections of this kind that s does not give, with their defaults, after a
 * "# defaults" line. */
static lbs_err dump_defaults(const lbs_config *c, int s, const char *kind,
                             const lbs_section_spec *const *specs, int nspecs, lbs_buf *out) {
  lbs_err e = LBS_OK;
  int said = 0;
  for (int k = 0; !e && k < nspecs; k++)
    for (const lbs_section_spec *sp = specs[k]; !e && sp->kind; sp++) {
      if (strcmp(sp->kind, kind) || !sp->opts) continue;
      for (const lbs_opt *o = sp->opts; !e && o->key; o++) {
        if (!o->def || (s >= 0 && lbs_config_has(c, kind, c->secs[s].name, o->key))) continue;
        if (!said++) e = lbs_buf_append(out, "# defaults\n", 11);
        if (!e) e = dump_line(out, o->key, " = ", o->def);
        if (!e) e = lbs_buf_append(out, "\n", 1);
      }
    }
  return e;
}

lbs_err lbs_config_dump_resolved(const lbs_config *c, const lbs_section_spec *const *specs,
                                 int nspecs, lbs_buf *out) {
  lbs_err e = LBS_OK;
  int any = 0;
  for (int s = 0; !e && s < c->nsec; s++, any = 1) {
    const section *sc = &c->secs[s];
    e = dump_line(out, any ? "\n[" : "[", sc->kind, *sc->name ? " " : "");
    if (!e) e = dump_line(out, sc->name, "]\n", "");
    for (int i = 0; !e && i < c->nent; i++) {
      const entry *en = &c->ents[i];
      if (en->sec != s) continue;
      e = dump_line(out, en->key, " = ", "");
      for (const char *v = en->value; !e && *v; v++)
        e = lbs_buf_append(out, *v == '\n' || *v == '\r' ? " " : v, 1);
      if (!e) e = lbs_buf_append(out, "\n", 1);
    }
    if (!e) e = dump_defaults(c, s, sc->kind, specs, nspecs, out);
  }
  /* unnamed sections the configuration lacks: every key at its default */
  for (int k = 0; !e && k < nspecs; k++)
    for (const lbs_section_spec *sp = specs[k]; !e && sp->kind; sp++) {
      if (sp->named || !sp->opts || find_section(c, sp->kind, "") >= 0) continue;
      lbs_buf d = {0};
      e = dump_defaults(c, -1, sp->kind, specs, nspecs, &d);
      if (!e && d.len) e = dump_line(out, any ? "\n[" : "[", sp->kind, "]\n");
      if (!e && d.len) e = lbs_buf_append(out, d.data, d.len), any = 1;
      lbs_buf_free(&d);
    }
  if (!e) e = lbs_buf_append(out, "", 1);
  if (!e) out->len--; /* the NUL is there, not counted */
  return e;
}

lbs_err lbs_config_dump(const lbs_config *c, lbs_buf *out) {
  return lbs_config_dump_resolved(c, NULL, 0, out);
}

void lbs_config_relpath(const char *where, const char *path, char *out, size_t n) {
  const char *colon = where ? strrchr(where, ':') : NULL, *slash = NULL;
  if (path[0] != '/' && colon)
    for (const char *c = where; c < colon; c++)
      if (*c == '/') slash = c;
  if (path[0] == '/' || !slash)
    snprintf(out, n, "%s", path);
  else
    snprintf(out, n, "%.*s/%s", (int)(slash - where), where, path);
}
