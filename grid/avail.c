/* avail.c - availability profiles: [availability NAME] sections of a grid file.
 *
 *   [availability slow3]        [availability rack_down]     [availability wan]
 *   target = proc 3             target = cluster B           target = link A B
 *   from_step = 20              from_step = 40               from_step = 10
 *   speed_factor = 0.5          fail = true                  bandwidth_factor = 0.1
 *
 * A profile targets one processor, a cluster's processors or the network between two clusters
 * (link A A: cluster A's own). Processors slow down (speed_factor < 1) or speed up from
 * from_step until before until_step, or fail for good at from_step; a link's bandwidth and
 * latency are multiplied by factors over the same steps. The grid checks what it can know:
 * targets, factors, conflicting keys, that some processor is left; the replay checks the steps
 * against the trace (sim/avail.c). How the grid follows them: lbs_grid_live_step (grid.c).
 *
 * This file knows no grid: grid.c, which owns the profiles, passes the processors and clusters
 * they may target (lbs__avail_targets, grid_int.h) and calls lbs__avail_parse and
 * lbs__avail_free; nothing here calls grid.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid_int.h"

const lbs_opt lbs__avail_opts[] = {
    {"target", LBS_OPT_STRING, NULL, 1, 0,
     "what changes: 'proc N' (a processor, numbered as in 'grid info'), 'cluster NAME' (its processors) or 'link A "
     "B' (the network between clusters A and B; 'link A A': A's own)"},
    {"from_step", LBS_OPT_INT, NULL, 0, 1e15,
     "the trace step the change starts at (numbered as replay --steps)"},
    {"until_step", LBS_OPT_INT, "-1", -1, 1e15,
     "the trace step it ends before, when the target is as before (-1: never; not with fail)"},
    {"speed_factor", LBS_OPT_DOUBLE, "1", 1, 0,
     "processors: speed x this, > 0 (0.5: every compute takes twice as long)"},
    {"fail", LBS_OPT_BOOL, "false", 1, 0,
     "processors: true: they stop for good at from_step; their elements move, and they never get work again"},
    {"bandwidth_factor", LBS_OPT_DOUBLE, "1", 1, 0, "link: bandwidth x this, > 0"},
    {"latency_factor", LBS_OPT_DOUBLE, "1", 1, 0, "link: latency x this, > 0"},
    {NULL, 0, NULL, 0, 0, NULL}};

void lbs__avail_free(lbs_avail *a, int n) {
  for (int i = 0; a && i < n; i++) {
    free((char *)a[i].name);
    free((char *)a[i].where);
    free((char *)a[i].until_where);
  }
  free(a);
}

static int cluster_of(const lbs__avail_targets *tg, const char *name) {
  for (int c = 0; c < tg->C; c++)
    if (!strcmp(tg->cname[c], name)) return c;
  return -1;
}

/* "known: A, B, C" into buf */
static const char *known_clusters(const lbs__avail_targets *tg, char *buf, size_t size) {
  size_t k = (size_t)snprintf(buf, size, "known:");
  for (int c = 0; c < tg->C && k < size; c++)
    k += (size_t)snprintf(buf + k, size - k, "%s %s", c ? "," : "", tg->cname[c]);
  return buf;
}

/* The target of section `name` into a. */
static lbs_err parse_target(const lbs_config *cfg, const char *name, const char *text,
                            const lbs__avail_targets *tg, lbs_avail *a) {
  const char *where = lbs_config_where(cfg, "availability", name, "target");
  char w[3][256], extra[2], known[512];
  int n = sscanf(text, "%255s %255s %255s %1s", w[0], w[1], w[2], extra);
  if (n == 2 && !strcmp(w[0], "proc")) {
    char *end;
    long p = strtol(w[1], &end, 10);
    if (*end || p < 0 || p >= tg->P)
      return lbs_fail(LBS_PARSE,
                      "%s: [availability %s] target = '%s': no processor %s (the grid has 0..%d)",
                      where, name, text, w[1], tg->P - 1);
    a->kind = LBS_AVAIL_PROCS, a->first = (int)p, a->count = 1;
    return LBS_OK;
  }
  if (n == 2 && !strcmp(w[0], "cluster")) {
    int c = cluster_of(tg, w[1]);
    if (c < 0)
      return lbs_fail(LBS_PARSE, "%s: [availability %s] target = '%s': no cluster '%s' (%s)", where,
                      name, text, w[1], known_clusters(tg, known, sizeof known));
    a->kind = LBS_AVAIL_PROCS, a->first = tg->cfirst[c];
    a->count = tg->cfirst[c + 1] - a->first;
    return LBS_OK;
  }
  if (n == 3 && !strcmp(w[0], "link")) {
    int ca = cluster_of(tg, w[1]), cb = cluster_of(tg, w[2]);
    if (ca < 0 || cb < 0)
      return lbs_fail(LBS_PARSE,
                      "%s: [availability %s] target = '%s': no cluster '%s' to link (%s)", where,
                      name, text, ca < 0 ? w[1] : w[2], known_clusters(tg, known, sizeof known));
    a->kind = LBS_AVAIL_LINK, a->a = ca, a->b = cb;
    return LBS_OK;
  }
  return lbs_fail(
      LBS_PARSE,
      "%s: [availability %s] target = '%s' must be 'proc N', 'cluster NAME' or 'link A B'", where,
      name, text);
}

/* One section into a (its strings owned by a). */
static lbs_err parse_one(const lbs_config *cfg, const lbs_section_spec *spec, const char *name,
                         const lbs__avail_targets *tg, lbs_avail *a) {
  const char *target;
  long long from, until;
  lbs_err e;
  if ((e = lbs_config_string(cfg, spec, "availability", name, "target", &target)) ||
      (e = lbs_config_int(cfg, spec, "availability", name, "from_step", &from)) ||
      (e = lbs_config_int(cfg, spec, "availability", name, "until_step", &until)) ||
      (e = lbs_config_double(cfg, spec, "availability", name, "speed_factor", &a->speed_factor)) ||
      (e = lbs_config_bool(cfg, spec, "availability", name, "fail", &a->fail)) ||
      (e = lbs_config_double(cfg, spec, "availability", name, "bandwidth_factor",
                             &a->bandwidth_factor)) ||
      (e = lbs_config_double(cfg, spec, "availability", name, "latency_factor",
                             &a->latency_factor)) ||
      (e = parse_target(cfg, name, target, tg, a)))
    return e;
  a->from_step = from, a->until_step = until;
#define HAS(key) lbs_config_has(cfg, "availability", name, key)
#define AT(key) lbs_config_where(cfg, "availability", name, key)
  static const char *const factors[] = {"speed_factor", "bandwidth_factor", "latency_factor"};
  const double values[] = {a->speed_factor, a->bandwidth_factor, a->latency_factor};
  for (int k = 0; k < 3; k++)
    if (!(values[k] > 0))
      return lbs_fail(LBS_RANGE, "%s: [availability %s] %s = %g must be > 0%s", AT(factors[k]),
                      name, factors[k], values[k], k == 0 ? " (fail = true stops processors)" : "");
  if (a->kind == LBS_AVAIL_PROCS) {
    static const char *const link_keys[] = {"bandwidth_factor", "latency_factor"};
    for (int k = 0; k < 2; k++)
      if (HAS(link_keys[k]))
        return lbs_fail(
            LBS_PARSE,
            "%s: [availability %s] %s is for a link; target = '%s' is processors (give speed_factor "
            "or fail)",
            AT(link_keys[k]), name, link_keys[k], target);
    if (a->fail && HAS("speed_factor"))
      return lbs_fail(
          LBS_PARSE,
          "%s: [availability %s] gives both fail = true and speed_factor: a profile either slows "
          "processors or stops them (give two profiles)",
          AT("speed_factor"), name);
    if (a->fail && HAS("until_step"))
      return lbs_fail(
          LBS_PARSE,
          "%s: [availability %s] until_step with fail = true: a failed processor does not come "
          "back",
          AT("until_step"), name);
    if (!a->fail && !HAS("speed_factor"))
      return lbs_fail(LBS_PARSE,
                      "%s: [availability %s] changes nothing: give speed_factor or fail = true",
                      lbs_config_where(cfg, "availability", name, NULL), name);
    if (a->fail) a->speed_factor = 1;
  } else {
    static const char *const proc_keys[] = {"speed_factor", "fail"};
    for (int k = 0; k < 2; k++)
      if (HAS(proc_keys[k]))
        return lbs_fail(LBS_PARSE,
                        "%s: [availability %s] %s is for processors; target = '%s' is a link (give "
                        "bandwidth_factor or latency_factor)",
                        AT(proc_keys[k]), name, proc_keys[k], target);
    if (!HAS("bandwidth_factor") && !HAS("latency_factor"))
      return lbs_fail(
          LBS_PARSE,
          "%s: [availability %s] changes nothing: give bandwidth_factor or latency_factor",
          lbs_config_where(cfg, "availability", name, NULL), name);
  }
  if (until >= 0 && until <= from)
    return lbs_fail(LBS_RANGE,
                    "%s: [availability %s] until_step = %lld must come after from_step = %lld",
                    AT("until_step"), name, until, from);
  a->name = strdup(name);
  a->where = strdup(AT("from_step"));
  a->until_where = strdup(HAS("until_step") ? AT("until_step")
                                            : lbs_config_where(cfg, "availability", name, NULL));
#undef HAS
#undef AT
  if (!a->name || !a->where || !a->until_where) return lbs_fail(LBS_NOMEM, "availability profiles");
  return LBS_OK;
}

lbs_err lbs__avail_parse(const lbs_config *cfg, const lbs_section_spec *spec,
                         const lbs__avail_targets *tg, lbs_avail **out, int *n) {
  *out = NULL;
  *n = 0;
  int na = lbs_config_count(cfg, "availability"), P = tg->P;
  if (na == 0) return LBS_OK;
  lbs_avail *a = calloc((size_t)na, sizeof *a);
  char *dead = calloc((size_t)P + 1, 1);
  lbs_err e = a && dead ? LBS_OK : lbs_fail(LBS_NOMEM, "availability profiles");
  int ndead = 0;
  for (int i = 0; !e && i < na; i++) {
    const char *name = lbs_config_name(cfg, "availability", i);
    if ((e = parse_one(cfg, spec, name, tg, &a[i]))) break;
    for (int p = a[i].first;
         a[i].kind == LBS_AVAIL_PROCS && a[i].fail && p < a[i].first + a[i].count; p++)
      ndead += !dead[p], dead[p] = 1;
    if (ndead == P) /* failures are for good: at the last one's step no processor would be left */
      e = lbs_fail(
          LBS_PARSE,
          "%s: [availability %s]: with it every processor of the grid fails (at least one must stay)",
          lbs_config_where(cfg, "availability", name, "fail"), name);
  }
  free(dead);
  if (e) {
    lbs__avail_free(a, na);
    return e;
  }
  *out = a;
  *n = na;
  return LBS_OK;
}
