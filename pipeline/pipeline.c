/* pipeline.c - pipeline files (blocks, processors, buffers, mappings) and the operational laws
 * of seed 000 applied to every mapping (see lbs_pipeline.h and docs/pipeline.md). */
#include "lbs_pipeline.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const lbs_opt pipeline_opts[] = {
    {"name", LBS_OPT_STRING, "pipeline", 1, 0, "a name for reports"},
    {"jobs", LBS_OPT_INT, NULL, 1, 1e15,
     "N: jobs the pipeline processes (and the blocks' seconds were measured over)"},
    {"think_s", LBS_OPT_DOUBLE, "0", 0, 1e15,
     "Z: think time between jobs, s (0 for a batch, as the seed's)"},
    {NULL, 0, NULL, 0, 0, NULL}};

static const lbs_opt block_opts[] = {
    {"seconds", LBS_OPT_DOUBLE, "0", 0, 1e15,
     "total time the block took over the [pipeline] jobs, s (demand = seconds / jobs); or give demand_s"},
    {"demand_s", LBS_OPT_DOUBLE, "0", 0, 1e15, "service demand per job, s; or give seconds"},
    {NULL, 0, NULL, 0, 0, NULL}};

static const lbs_opt processor_opts[] = {
    {"speed", LBS_OPT_DOUBLE, "1", 1e-12, 1e12,
     "relative speed: a block's demand on it is demand / speed"},
    {NULL, 0, NULL, 0, 0, NULL}};

static const lbs_opt buffer_opts[] = {
    {"capacity", LBS_OPT_INT, "0", 0, 1e15,
     "jobs the buffer holds (0: unbounded); the laws assume it never fills (no blocking)"},
    {NULL, 0, NULL, 0, 0, NULL}};

static const lbs_section_spec pipeline_spec[] = {
    {"pipeline", 0, 1, pipeline_opts, "the number of jobs and the think time"},
    {"block", 1, 1, block_opts, "a block and its measured demand; at least one"},
    {"processor", 1, 1, processor_opts, "a processor (a queue of the model); at least one"},
    {"buffer", 2, 0, buffer_opts, "the buffer from block A to block B"},
    {"mapping", 1, 1, NULL,
     "BLOCK = PROC[*SHARE] ... (copies of the block and their shares of the jobs; without shares, "
     "k copies take 1/k each) and omit = BLOCK ... (blocks this topology does not have); at least one"},
    {NULL, 0, 0, NULL, NULL}};

const lbs_section_spec *lbs_pipeline_spec(void) { return pipeline_spec; }

/* ---------------------------------------------------------------- the pipeline */

typedef struct {
  char *name;
  lbs_pipeline_copy *copies; /* ncopies, in file order */
  int ncopies;
  double *demand, *util; /* P each, what law points to */
  int *used;             /* P */
  lbs_pipeline_law law;
} mapping;

struct lbs_pipeline {
  char *name;
  long long jobs;
  double think_s;
  int nb, np, nbuf, nm;
  char **bname;           /* nb block names */
  double *bdemand;        /* nb demands per job, s */
  char **pname;           /* np processor names */
  double *pspeed;         /* np relative speeds */
  int *buf_from, *buf_to; /* nbuf block indices */
  long long *buf_cap;     /* nbuf capacities, jobs (0: unbounded) */
  mapping *maps;          /* nm */
};

void lbs_pipeline_destroy(lbs_pipeline **pp) {
  if (!pp || !*pp) return;
  lbs_pipeline *p = *pp;
  for (int b = 0; p->bname && b < p->nb; b++) free(p->bname[b]);
  for (int k = 0; p->pname && k < p->np; k++) free(p->pname[k]);
  for (int m = 0; p->maps && m < p->nm; m++) {
    free(p->maps[m].name);
    free(p->maps[m].copies);
    free(p->maps[m].demand);
    free(p->maps[m].util);
    free(p->maps[m].used);
  }
  free(p->name);
  free(p->bname);
  free(p->bdemand);
  free(p->pname);
  free(p->pspeed);
  free(p->buf_from);
  free(p->buf_to);
  free(p->buf_cap);
  free(p->maps);
  free(p);
  *pp = NULL;
}

static int find_name(char *const *names, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(names[i], name)) return i;
  return -1;
}

/* Writes into buf "did you mean 'X'? known: A, B, C" for an unknown name among names. */
static const char *known_list(char *buf, size_t len, char *const *names, int n, const char *name) {
  int best = -1, bd = 99;
  for (int i = 0; i < n; i++) {
    int d = lbs_edit_distance(name, names[i]);
    if (d < bd) bd = d, best = i;
  }
  size_t off = 0;
  buf[0] = '\0';
  if (best >= 0 && bd <= 2) off = (size_t)snprintf(buf, len, "did you mean '%s'? ", names[best]);
  if (off < len) off += (size_t)snprintf(buf + off, len - off, "known:");
  for (int i = 0; i < n && off < len; i++)
    off += (size_t)snprintf(buf + off, len - off, " %s", names[i]);
  return buf;
}

/* Parses a copy's share: a number or a fraction A/B, finite and > 0. 0 when fine. */
static int parse_share(const char *s, double *out) {
  char *end;
  errno = 0;
  double a = strtod(s, &end), b = 1;
  if (end == s || errno) return -1;
  if (*end == '/') {
    const char *q = end + 1;
    b = strtod(q, &end);
    if (end == q || errno) return -1;
  }
  if (*end || !isfinite(a) || !isfinite(b) || b <= 0) return -1;
  *out = a / b;
  return isfinite(*out) && *out > 0 ? 0 : -1;
}

/* Reads the words of 'omit = BLOCK ...' in [mapping name] (split in place): each names a block
 * neither mapped nor omitted yet, which becomes omitted (state 2). *nwords counts them. */
static lbs_err read_omit(const lbs_pipeline *p, const char *where, const char *name, char *words,
                         int *state, int *nwords) {
  char known[512];
  for (char *save = NULL, *w = strtok_r(words, " \t,", &save); w;
       w = strtok_r(NULL, " \t,", &save)) {
    (*nwords)++;
    int ob = find_name(p->bname, p->nb, w);
    if (ob < 0)
      return lbs_fail(LBS_PARSE, "%s: [mapping %s] omit = %s: no [block %s] section (%s)", where,
                      name, w, w, known_list(known, sizeof known, p->bname, p->nb, w));
    if (state[ob])
      return lbs_fail(LBS_PARSE, "%s: [mapping %s] omits block '%s' %s", where, name, w,
                      state[ob] == 2 ? "twice" : "and maps it too");
    state[ob] = 2;
  }
  return LBS_OK;
}

/* Appends to m the copies of block b that 'key = PROC[*SHARE] ...' lists (words, split in
 * place), shares 0 where none is given. *nwords counts the copies, *nshared those with shares. */
static lbs_err read_copies(const lbs_pipeline *p, const char *where, const char *name,
                           const char *key, int b, char *words, mapping *m, int *nwords,
                           int *nshared) {
  char known[512];
  for (char *save = NULL, *w = strtok_r(words, " \t,", &save); w;
       w = strtok_r(NULL, " \t,", &save)) {
    (*nwords)++;
    char *star = strchr(w, '*');
    double share = 0;
    if (star) {
      *star = '\0';
      if (parse_share(star + 1, &share))
        return lbs_fail(
            LBS_PARSE,
            "%s: [mapping %s] %s = %s*%s: the share must be a number or a fraction A/B, > 0", where,
            name, key, w, star + 1);
      (*nshared)++;
    }
    int k = find_name(p->pname, p->np, w);
    if (k < 0)
      return lbs_fail(LBS_PARSE,
                      "%s: [mapping %s] puts block %s on processor '%s', which has no "
                      "[processor %s] section (%s)",
                      where, name, key, w, w, known_list(known, sizeof known, p->pname, p->np, w));
    lbs_pipeline_copy *c = realloc(m->copies, (size_t)(m->ncopies + 1) * sizeof *c);
    if (!c) return lbs_fail(LBS_NOMEM, "pipeline");
    m->copies = c;
    c[m->ncopies++] = (lbs_pipeline_copy){b, k, share};
  }
  return LBS_OK;
}

/* Reads one entry of [mapping name]: 'omit = BLOCK ...', or 'BLOCK = PROC[*SHARE] ...' whose
 * copies all have shares or none (then k copies take 1/k each). state says which blocks are
 * mapped (1) or omitted (2) so far. */
static lbs_err read_entry(const lbs_pipeline *p, const lbs_config *cfg, const char *name,
                          const char *key, const char *value, mapping *m, int *state) {
  char known[512];
  const char *where = lbs_config_where(cfg, "mapping", name, key);
  char wherebuf[512];
  snprintf(wherebuf, sizeof wherebuf, "%s", where); /* where is overwritten by the next call */
  int omit = !strcmp(key, "omit"), b = omit ? -1 : find_name(p->bname, p->nb, key);
  if (!omit && b < 0)
    return lbs_fail(
        LBS_PARSE, "%s: [mapping %s] maps block '%s', which has no [block %s] section (%s)",
        wherebuf, name, key, key, known_list(known, sizeof known, p->bname, p->nb, key));
  char *words = strdup(value);
  if (!words) return lbs_fail(LBS_NOMEM, "pipeline");
  int first = m->ncopies, nshared = 0, nwords = 0;
  lbs_err e = omit ? read_omit(p, wherebuf, name, words, state, &nwords)
                   : read_copies(p, wherebuf, name, key, b, words, m, &nwords, &nshared);
  free(words);
  if (e) return e;
  if (!nwords)
    return lbs_fail(LBS_PARSE, "%s: [mapping %s] %s = (nothing): name %s", wherebuf, name, key,
                    omit ? "the blocks this topology does not have"
                         : "one processor or more, as PROC or PROC*SHARE");
  if (omit) return LBS_OK;
  int ncp = m->ncopies - first;
  if (nshared && nshared != ncp)
    return lbs_fail(LBS_PARSE,
                    "%s: [mapping %s] %s: give every copy a share (PROC*SHARE) "
                    "or none (k copies take 1/k each)",
                    wherebuf, name, key);
  if (state[b] == 2)
    return lbs_fail(LBS_PARSE, "%s: [mapping %s] maps block '%s' and omits it too", wherebuf, name,
                    key);
  if (!nshared)
    for (int j = first; j < m->ncopies; j++) m->copies[j].share = 1.0 / ncp;
  state[b] = 1;
  return LBS_OK;
}

/* Reads [mapping name]'s copies into m: its entries, then every block mapped or omitted and
 * one copy at least; owns nothing new on failure beyond m's arrays (freed with the pipeline). */
static lbs_err read_mapping(lbs_pipeline *p, const lbs_config *cfg, const char *name, mapping *m) {
  const char *key, *value;
  int *state = calloc((size_t)p->nb, sizeof *state); /* 0 unmapped, 1 mapped, 2 omitted */
  if (!state) return lbs_fail(LBS_NOMEM, "pipeline");
  lbs_err e = LBS_OK;
  for (int i = 0; !e && lbs_config_entry(cfg, "mapping", name, i, &key, &value); i++)
    e = read_entry(p, cfg, name, key, value, m, state);
  for (int b = 0; !e && b < p->nb; b++)
    if (!state[b])
      e = lbs_fail(LBS_PARSE,
                   "%s: [mapping %s] leaves block '%s' unmapped (map it, or list it in 'omit = ' "
                   "when this topology has no such block)",
                   lbs_config_where(cfg, "mapping", name, NULL), name, p->bname[b]);
  if (!e && !m->ncopies)
    e = lbs_fail(LBS_PARSE, "%s: [mapping %s] maps no block",
                 lbs_config_where(cfg, "mapping", name, NULL), name);
  free(state);
  return e;
}

/* Applies the laws to mapping m: processor demands from its copies, then lbs_pipeline_laws. */
static lbs_err apply_laws(lbs_pipeline *p, const lbs_config *cfg, mapping *m) {
  m->demand = calloc((size_t)p->np, sizeof *m->demand);
  m->util = calloc((size_t)p->np, sizeof *m->util);
  m->used = calloc((size_t)p->np, sizeof *m->used);
  if (!m->demand || !m->util || !m->used) return lbs_fail(LBS_NOMEM, "pipeline");
  for (int i = 0; i < m->ncopies; i++) {
    const lbs_pipeline_copy *c = &m->copies[i];
    m->demand[c->proc] += c->share * p->bdemand[c->block] / p->pspeed[c->proc];
    m->used[c->proc] = 1;
  }
  for (int k = 0; k < p->np; k++)
    if (!isfinite(m->demand[k]))
      return lbs_fail(LBS_RANGE,
                      "%s: [mapping %s]: processor %s's demand is not finite (shares too large)",
                      lbs_config_where(cfg, "mapping", m->name, NULL), m->name, p->pname[k]);
  int any = 0;
  for (int k = 0; k < p->np; k++) any |= m->demand[k] > 0;
  if (!any)
    return lbs_fail(
        LBS_PARSE,
        "%s: [mapping %s]: every processor's demand is 0, so nothing bounds the throughput",
        lbs_config_where(cfg, "mapping", m->name, NULL), m->name);
  return lbs_pipeline_laws(p->np, m->demand, m->used, p->pspeed, p->jobs, p->think_s, m->util,
                           &m->law);
}

/* Adds name to a NULL-free array of owned strings. */
static lbs_err push_name(char ***names, int *n, const char *name) {
  char **a = realloc(*names, (size_t)(*n + 1) * sizeof *a);
  if (!a) return lbs_fail(LBS_NOMEM, "pipeline");
  *names = a;
  if (!(a[*n] = strdup(name))) return lbs_fail(LBS_NOMEM, "pipeline");
  (*n)++;
  return LBS_OK;
}

/* Reads [pipeline]: the name, the jobs N and the think time Z. */
static lbs_err read_pipeline_keys(lbs_pipeline *p, const lbs_config *cfg) {
  const lbs_section_spec *spec = pipeline_spec;
  const char *name;
  lbs_err e;
  if ((e = lbs_config_string(cfg, spec, "pipeline", "", "name", &name)) ||
      (e = lbs_config_int(cfg, spec, "pipeline", "", "jobs", &p->jobs)) ||
      (e = lbs_config_double(cfg, spec, "pipeline", "", "think_s", &p->think_s)))
    return e;
  if (!(p->name = strdup(name))) return lbs_fail(LBS_NOMEM, "pipeline");
  return LBS_OK;
}

/* Reads the nb [block] sections: names and demands per job (seconds / jobs, or demand_s). */
static lbs_err read_blocks(lbs_pipeline *p, const lbs_config *cfg, int nb) {
  const lbs_section_spec *spec = pipeline_spec;
  lbs_err e;
  for (int b = 0; b < nb; b++) {
    const char *bn = lbs_config_name(cfg, "block", b);
    int has_s = lbs_config_has(cfg, "block", bn, "seconds"),
        has_d = lbs_config_has(cfg, "block", bn, "demand_s");
    if (!strcmp(bn, "omit"))
      return lbs_fail(LBS_PARSE, "%s: a block cannot be called 'omit' (a [mapping] key)",
                      lbs_config_where(cfg, "block", bn, NULL));
    if (has_s == has_d)
      return lbs_fail(
          LBS_PARSE, "%s: [block %s] %s",
          lbs_config_where(cfg, "block", bn, has_s ? "demand_s" : NULL), bn,
          has_s ? "gives both seconds and demand_s: give one"
                : "needs 'seconds' (total over the [pipeline] jobs) or 'demand_s' (per job)");
    double v;
    if ((e = lbs_config_double(cfg, spec, "block", bn, has_s ? "seconds" : "demand_s", &v)))
      return e;
    p->bdemand[b] = has_s ? v / (double)p->jobs : v;
    if ((e = push_name(&p->bname, &p->nb, bn))) return e;
  }
  return LBS_OK;
}

/* Reads the np [processor] sections: names and relative speeds. */
static lbs_err read_processors(lbs_pipeline *p, const lbs_config *cfg, int np) {
  lbs_err e;
  for (int k = 0; k < np; k++) {
    const char *pn = lbs_config_name(cfg, "processor", k);
    if ((e = lbs_config_double(cfg, pipeline_spec, "processor", pn, "speed", &p->pspeed[k])) ||
        (e = push_name(&p->pname, &p->np, pn)))
      return e;
  }
  return LBS_OK;
}

/* Reads the [buffer A B] sections: two different blocks and a capacity. */
static lbs_err read_buffers(lbs_pipeline *p, const lbs_config *cfg) {
  lbs_err e;
  int nbuf = lbs_config_count(cfg, "buffer");
  p->buf_from = calloc((size_t)nbuf + 1, sizeof *p->buf_from);
  p->buf_to = calloc((size_t)nbuf + 1, sizeof *p->buf_to);
  p->buf_cap = calloc((size_t)nbuf + 1, sizeof *p->buf_cap);
  if (!p->buf_from || !p->buf_to || !p->buf_cap) return lbs_fail(LBS_NOMEM, "pipeline");
  for (int i = 0; i < nbuf; i++, p->nbuf++) {
    const char *bn = lbs_config_name(cfg, "buffer", i), *sp = strchr(bn, ' ');
    char from[256], to[256], known[512];
    snprintf(from, sizeof from, "%.*s", (int)(sp - bn), bn); /* check: exactly two names */
    snprintf(to, sizeof to, "%s", sp + 1);
    const char *bad = (p->buf_from[i] = find_name(p->bname, p->nb, from)) < 0 ? from
                      : (p->buf_to[i] = find_name(p->bname, p->nb, to)) < 0   ? to
                                                                              : NULL;
    if (bad)
      return lbs_fail(LBS_PARSE, "%s: [buffer %s]: no [block %s] section (%s)",
                      lbs_config_where(cfg, "buffer", bn, NULL), bn, bad,
                      known_list(known, sizeof known, p->bname, p->nb, bad));
    if (p->buf_from[i] == p->buf_to[i])
      return lbs_fail(LBS_PARSE, "%s: [buffer %s] joins a block to itself",
                      lbs_config_where(cfg, "buffer", bn, NULL), bn);
    if ((e = lbs_config_int(cfg, pipeline_spec, "buffer", bn, "capacity", &p->buf_cap[i])))
      return e;
  }
  return LBS_OK;
}

/* Reads the [mapping] sections and applies the laws to each. p->nm counts a mapping that
 * failed too, so that its arrays are freed with p. */
static lbs_err read_mappings(lbs_pipeline *p, const lbs_config *cfg) {
  lbs_err e;
  int nm = lbs_config_count(cfg, "mapping");
  if (!(p->maps = calloc((size_t)nm, sizeof *p->maps))) return lbs_fail(LBS_NOMEM, "pipeline");
  for (int i = 0; i < nm; i++, p->nm++) {
    mapping *m = &p->maps[i];
    const char *mn = lbs_config_name(cfg, "mapping", i);
    if (!(m->name = strdup(mn))) {
      p->nm++;
      return lbs_fail(LBS_NOMEM, "pipeline");
    }
    if ((e = read_mapping(p, cfg, mn, m)) || (e = apply_laws(p, cfg, m))) {
      p->nm++; /* m's arrays are freed with p */
      return e;
    }
  }
  return LBS_OK;
}

/* Builds a pipeline from cfg (see lbs_pipeline.h): [pipeline], the blocks, the processors, the
 * buffers, then each mapping with its laws. *out is the caller's; NULL on an error. */
lbs_err lbs_pipeline_from_config(const lbs_config *cfg, lbs_pipeline **out) {
  *out = NULL;
  lbs_err e = lbs_config_check(cfg, pipeline_spec);
  if (e) return e;
  lbs_pipeline *p = calloc(1, sizeof *p);
  if (!p) return lbs_fail(LBS_NOMEM, "pipeline");
  if ((e = read_pipeline_keys(p, cfg))) goto done;
  int nb = lbs_config_count(cfg, "block"), np = lbs_config_count(cfg, "processor");
  p->bdemand = calloc((size_t)nb, sizeof *p->bdemand);
  p->pspeed = calloc((size_t)np, sizeof *p->pspeed);
  if (!p->bdemand || !p->pspeed) {
    e = lbs_fail(LBS_NOMEM, "pipeline");
    goto done;
  }
  e = read_blocks(p, cfg, nb);
  if (!e) e = read_processors(p, cfg, np);
  if (!e) e = read_buffers(p, cfg);
  if (!e) e = read_mappings(p, cfg);
done:
  if (e) lbs_pipeline_destroy(&p);
  *out = p;
  return e;
}

lbs_err lbs_pipeline_load(const char *path, const char *const *overrides, int noverrides,
                          lbs_pipeline **out) {
  *out = NULL;
  lbs_config *cfg;
  lbs_err e = lbs_config_load(path, &cfg);
  for (int i = 0; !e && i < noverrides; i++) e = lbs_config_override(cfg, overrides[i]);
  if (!e) e = lbs_pipeline_from_config(cfg, out);
  lbs_config_destroy(&cfg);
  return e;
}

/* ---------------------------------------------------------------- the laws */

lbs_err lbs_pipeline_laws(int P, const double *demand_s, const int *used, const double *speed,
                          long long jobs, double think_s, double *util, lbs_pipeline_law *out) {
  if (P < 1 || jobs < 1 || !isfinite(think_s) || think_s < 0)
    return lbs_fail(LBS_INVAL,
                    "pipeline laws: need P >= 1 (%d), N >= 1 (%lld), Z finite and >= 0 (%g)", P,
                    jobs, think_s);
  *out = (lbs_pipeline_law){demand_s, util, used, 0, 0, 0, 0, 0, 0, 0};
  double work = 0, speeds = 0;
  for (int k = 0; k < P; k++) {
    double d = demand_s[k], s = speed ? speed[k] : 1;
    if (!isfinite(d) || d < 0)
      return lbs_fail(LBS_INVAL, "pipeline laws: processor %d's demand %g", k, d);
    if (!(s > 0) || !isfinite(s))
      return lbs_fail(LBS_INVAL, "pipeline laws: processor %d's speed %g", k, s);
    if (d > 0 && !used[k])
      return lbs_fail(LBS_INVAL, "pipeline laws: processor %d has demand but is not used", k);
    if (d > out->dmax_s) out->dmax_s = d, out->bottleneck = k;
    out->total_s += d;
    work += d * s;
    if (used[k]) out->nused++, speeds += s;
  }
  if (!(out->dmax_s > 0)) return lbs_fail(LBS_INVAL, "pipeline laws: every demand is 0");
  double n = (double)jobs;
  /* Asymptotic bounds of a closed network of queues (seed 000, section 3.1). */
  out->throughput = fmin(1.0 / out->dmax_s, n / (out->total_s + think_s));
  for (int k = 0; k < P; k++) util[k] = out->throughput * demand_s[k]; /* utilisation law */
  /* Response time law R = N / X - Z, written as its bound max(D, N Dmax - Z) so that rounding
   * never takes it below D. */
  out->response_s = fmax(n * out->dmax_s - think_s, out->total_s);
  out->balanced = speeds / work;
  return LBS_OK;
}

/* ---------------------------------------------------------------- queries */

const char *lbs_pipeline_name(const lbs_pipeline *p) { return p->name; }
long long lbs_pipeline_jobs(const lbs_pipeline *p) { return p->jobs; }
double lbs_pipeline_think_s(const lbs_pipeline *p) { return p->think_s; }
int lbs_pipeline_nblocks(const lbs_pipeline *p) { return p->nb; }
const char *lbs_pipeline_block_name(const lbs_pipeline *p, int b) { return p->bname[b]; }
double lbs_pipeline_block_demand_s(const lbs_pipeline *p, int b) { return p->bdemand[b]; }
int lbs_pipeline_nprocs(const lbs_pipeline *p) { return p->np; }
const char *lbs_pipeline_proc_name(const lbs_pipeline *p, int k) { return p->pname[k]; }
double lbs_pipeline_proc_speed(const lbs_pipeline *p, int k) { return p->pspeed[k]; }
int lbs_pipeline_nbuffers(const lbs_pipeline *p) { return p->nbuf; }
void lbs_pipeline_buffer(const lbs_pipeline *p, int i, int *from, int *to, long long *capacity) {
  *from = p->buf_from[i];
  *to = p->buf_to[i];
  *capacity = p->buf_cap[i];
}
int lbs_pipeline_nmappings(const lbs_pipeline *p) { return p->nm; }
const char *lbs_pipeline_mapping_name(const lbs_pipeline *p, int m) { return p->maps[m].name; }
const lbs_pipeline_copy *lbs_pipeline_mapping_copies(const lbs_pipeline *p, int m, int *ncopies) {
  *ncopies = p->maps[m].ncopies;
  return p->maps[m].copies;
}
const lbs_pipeline_law *lbs_pipeline_mapping_law(const lbs_pipeline *p, int m) {
  return &p->maps[m].law;
}
