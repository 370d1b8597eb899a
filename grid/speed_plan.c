/* speed_plan.c - speed from a RACECAR plan (seed 004, chapter 5): a node's time for work W is
 * its plan's function performance graph at W x plan_metric_per_work, for the node's whole
 * working set: the best split of the work over its threads and devices, overheads included.
 * The plan is `lbsim calibrate plan`'s, read from a calibration database, or made here by
 * RACECAR from implementations described point by point (a what-if node).
 *
 *   plan_db = calib.db          a calibration database (relative to the grid file's directory)
 *   plan_kernel = matmul        the kernel whose newest plan it takes (or plan_id = N)
 *   plan_impls = 1:0:1e-4,1e6:2e-3 2:0:3e-4,1e6:1.1e-3   or implementations: threads, then the
 *                               IPG's metric,seconds points; split over plan_threads threads by a
 *                               data-parallel template costing plan_template_s per split
 *   plan_metric_per_work = 1    work-metric units per unit of the trace's cost metric
 *
 * No work takes no time. The rate (for speed-proportional part sizes) is the throughput over
 * the upper half of the plan's range, relative to a processor of speed 1. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid_int.h"
#include "lbs_plan.h"

typedef struct {
  lbs_graph g; /* the FPG of the node's whole working set */
  double mpw, rate;
} plan_model;

static const lbs_opt keys[] = {
    {"plan_db", LBS_OPT_STRING, "", 1, 0,
     "a calibration database with plans (lbsim calibrate plan), relative to the grid file"},
    {"plan_kernel", LBS_OPT_STRING, "", 1, 0,
     "the kernel whose newest plan gives the time (\"\": the newest plan)"},
    {"plan_id", LBS_OPT_INT, "0", 0, 1e15,
     "a plan by its id in plan_db (0: the newest of plan_kernel)"},
    {"plan_impls", LBS_OPT_STRING, "", 1, 0,
     "instead of a database, implementations: 'threads:metric,seconds,metric,seconds...' items, blank-separated"},
    {"plan_threads", LBS_OPT_INT, "1", 1, LBS_PLAN_MAX_THREADS,
     "threads of the node (with plan_impls)"},
    {"plan_template_s", LBS_OPT_DOUBLE, "0", 0, 1e6,
     "seconds a split of the work costs (with plan_impls)"},
    {"plan_metric_per_work", LBS_OPT_DOUBLE, "1", 1e-15, 1e15,
     "work-metric units per unit of the trace's cost metric (cells per unit of weight, ...)"},
    {NULL, 0, NULL, 0, 0, NULL}};

/* plan_impls into p's implementations. */
static lbs_err parse_impls(const char *where, const char *s, lbs_plan *p) {
  while (*s) {
    while (*s == ' ' || *s == '\t') s++;
    if (!*s) break;
    char *end;
    long t = strtol(s, &end, 10);
    if (end == s || *end != ':' || t < 1 || t > p->threads)
      return lbs_fail(
          LBS_PARSE,
          "%s: plan_impls: expected threads:metric,seconds,... with 1 <= threads <= plan_threads (%d) at '%.20s'",
          where, p->threads, s);
    s = end + 1;
    lbs_plan_impl *ni = realloc(p->impl, (size_t)(p->nimpl + 1) * sizeof *ni);
    if (!ni) return lbs_fail(LBS_NOMEM, "plan_impls");
    p->impl = ni;
    lbs_plan_impl *m = &p->impl[p->nimpl++];
    memset(m, 0, sizeof *m);
    snprintf(m->impl, sizeof m->impl, "impl%d", p->nimpl);
    m->threads = (int)t;
    int cap = 0;
    while (*s && *s != ' ' && *s != '\t') {
      double w = strtod(s, &end), sec;
      if (end == s || *end != ',')
        return lbs_fail(LBS_PARSE, "%s: plan_impls: expected metric,seconds at '%.20s'", where, s);
      s = end + 1;
      sec = strtod(s, &end);
      if (end == s || (*end && *end != ',' && *end != ' ' && *end != '\t'))
        return lbs_fail(LBS_PARSE, "%s: plan_impls: expected metric,seconds at '%.20s'", where, s);
      s = *end == ',' ? end + 1 : end;
      if (!(w >= 0) || !(sec >= 0) || !isfinite(w) || !isfinite(sec) ||
          (m->ipg.n && !(w > m->ipg.w[m->ipg.n - 1])))
        return lbs_fail(
            LBS_PARSE,
            "%s: plan_impls: %g,%g: metrics must ascend, metrics and seconds be finite and >= 0",
            where, w, sec);
      if (m->ipg.n == cap) {
        cap = cap ? 2 * cap : 8;
        double *nw = realloc(m->ipg.w, (size_t)cap * sizeof *nw);
        if (nw) m->ipg.w = nw;
        double *nt = realloc(m->ipg.t, (size_t)cap * sizeof *nt);
        if (nt) m->ipg.t = nt;
        if (!nw || !nt) return lbs_fail(LBS_NOMEM, "plan_impls");
      }
      m->ipg.w[m->ipg.n] = w, m->ipg.t[m->ipg.n++] = sec;
    }
    if (m->ipg.n < 2)
      return lbs_fail(LBS_PARSE,
                      "%s: plan_impls: implementation %d: give at least two metric,seconds pairs",
                      where, p->nimpl);
    if (m->ipg.w[m->ipg.n - 1] > p->hi) p->hi = m->ipg.w[m->ipg.n - 1];
  }
  if (!p->nimpl) return lbs_fail(LBS_PARSE, "%s: plan_impls: no implementation", where);
  return LBS_OK;
}

static double eval(const void *g, double x) { return lbs_graph_eval(g, x); }

static void fini(void *state) {
  plan_model *m = state;
  if (!m) return;
  lbs_graph_free(&m->g);
  free(m);
}

static lbs_err init(void **state, const lbs_config *cfg, const char *nt, double ns_per_work) {
  const lbs_section_spec *spec = lbs_grid_spec();
  const char *db = "", *kernel = "", *impls = "";
  long long id = 0, threads = 1;
  double tcost = 0;
  lbs_plan p;
  memset(&p, 0, sizeof p);
  plan_model *m = calloc(1, sizeof *m);
  if (!m) return lbs_fail(LBS_NOMEM, "speed model");
  lbs_err e = lbs_config_string(cfg, spec, "nodetype", nt, "plan_db", &db);
  if (!e) e = lbs_config_string(cfg, spec, "nodetype", nt, "plan_kernel", &kernel);
  if (!e) e = lbs_config_int(cfg, spec, "nodetype", nt, "plan_id", &id);
  if (!e) e = lbs_config_string(cfg, spec, "nodetype", nt, "plan_impls", &impls);
  if (!e) e = lbs_config_int(cfg, spec, "nodetype", nt, "plan_threads", &threads);
  if (!e) e = lbs_config_double(cfg, spec, "nodetype", nt, "plan_template_s", &tcost);
  if (!e) e = lbs_config_double(cfg, spec, "nodetype", nt, "plan_metric_per_work", &m->mpw);
  char wherebuf[512];
  const char *where = lbs_config_where(cfg, "nodetype", nt, NULL);
  snprintf(wherebuf, sizeof wherebuf, "%s", where ? where : "grid");
  if (!e && *impls && *db)
    e = lbs_fail(LBS_PARSE, "%s: [nodetype %s] gives both plan_impls and plan_db; give one",
                 wherebuf, nt);
  else if (!e && !*impls && !*db)
    e = lbs_fail(
        LBS_PARSE,
        "%s: [nodetype %s] uses speed_model = plan: give plan_db (and plan_kernel or plan_id) or plan_impls",
        wherebuf, nt);
  else if (!e && *impls) { /* a what-if node: RACECAR here */
    char iw[512];
    snprintf(iw, sizeof iw, "%s", lbs_config_where(cfg, "nodetype", nt, "plan_impls"));
    p.threads = (int)threads;
    snprintf(p.kernel, sizeof p.kernel, "%s", nt);
    snprintf(p.tmpl, sizeof p.tmpl, "data");
    p.ovh_s = tcost;
    e = parse_impls(iw, impls, &p);
    if (!e) e = lbs_plan_build(&p);
    if (e) e = lbs_fail(e, "%s: [nodetype %s]: %s", wherebuf, nt, lbs_errmsg());
  } else if (!e) {
    char path[4096], dbwhere[512];
    snprintf(dbwhere, sizeof dbwhere, "%s", lbs_config_where(cfg, "nodetype", nt, "plan_db"));
    lbs_config_relpath(dbwhere, db, path, sizeof path);
    lbs_calib_db *cdb = NULL;
    e = lbs_calib_open(path, 0, &cdb);
    if (!e) e = lbs_calib_get_plan(cdb, kernel, id, &p);
    if (e) e = lbs_fail(e, "%s: [nodetype %s] plan_db: %s", dbwhere, nt, lbs_errmsg());
    lbs_calib_close(&cdb);
  }
  if (!e) { /* the whole node's FPG, and its throughput over the upper half of the range */
    int ws = lbs_plan_ws(&p, p.threads, (1u << p.ndev) - 1);
    m->g = p.fpg[ws];
    p.fpg[ws] = (lbs_graph){0};
    m->rate = lbs__curve_rate(eval, &m->g, p.hi, m->mpw, ns_per_work);
  }
  lbs_plan_free(&p);
  if (e) {
    fini(m);
    return e;
  }
  *state = m;
  return LBS_OK;
}

static int64_t time_ns(const void *state, double work) {
  const plan_model *m = state;
  return work > 0 ? lbs__seconds_ns(lbs_graph_eval(&m->g, work * m->mpw)) : 0;
}

static double rate(const void *state) { return ((const plan_model *)state)->rate; }

const lbs_speed_ops lbs__speed_plan = {
    .abi = LBS_SPEED_ABI,
    .name = "plan",
    .keys = keys,
    .example = "plan_impls = 1:0,1e-4,1e6,2e-3 2:0,3e-4,1e6,1.1e-3\nplan_threads = 2\n"
               "plan_template_s = 2e-5\n",
    .monotone = 0,
    .init = init,
    .time_ns = time_ns,
    .rate = rate,
    .fini = fini};
