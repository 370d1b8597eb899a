/* speed_ipg.c - speed from an implementation performance graph (IPG): a processor's time for
 * work W is IPG(W x ipg_metric_per_work) seconds, the curve `lbsim calibrate` measured for an
 * implementation on a device (docs/calibration.md), or one given point by point.
 *
 *   ipg_db = calib.db         a calibration database (relative to the grid file's directory)
 *   ipg_impl = wave.cpu       the implementation in it
 *   ipg_device = ...          its device, when the database holds it on several
 *   ipg_points = 0:1e-4 1e6:2.1e-3   or the curve itself: metric:seconds pairs, ascending
 *   ipg_metric_per_work = 1   work-metric units per unit of the trace's cost metric
 *
 * No work takes no time; any other work pays the curve, overheads included, so small parts
 * pay what small invocations pay on the device. The rate (for speed-proportional part sizes)
 * is the throughput over the upper half of the curve, relative to a processor of speed 1
 * (ns_per_work ns per unit of work). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid_int.h"
#include "lbs_calib.h"

typedef struct {
  lbs_ipg g;
  double mpw;  /* work-metric units per unit of work */
  double rate; /* relative throughput at large work */
} ipg_model;

static const lbs_opt keys[] = {
    {"ipg_db", LBS_OPT_STRING, "", 1, 0,
     "a calibration database (lbsim calibrate), relative to the grid file"},
    {"ipg_impl", LBS_OPT_STRING, "", 1, 0,
     "the implementation whose IPG gives the time (wave.cpu, dot.opencl, ...)"},
    {"ipg_device", LBS_OPT_STRING, "", 1, 0,
     "its device, when the database holds it on several (\"\": the only one)"},
    {"ipg_points", LBS_OPT_STRING, "", 1, 0,
     "instead of a database, the curve: 'metric:seconds' pairs in ascending metric, blank-separated"},
    {"ipg_allow_partial", LBS_OPT_BOOL, "false", 1, 0,
     "use the newest partial IPG when there is no complete one (its last segment goes on past its end)"},
    {"ipg_metric_per_work", LBS_OPT_DOUBLE, "1", 1e-15, 1e15,
     "work-metric units per unit of the trace's cost metric (cells per unit of weight, ...)"},
    {NULL, 0, NULL, 0, 0, NULL}};

static lbs_err parse_points(const char *where, const char *s, lbs_ipg *g) {
  int cap = 16;
  g->w = malloc((size_t)cap * sizeof *g->w);
  g->t = malloc((size_t)cap * sizeof *g->t);
  if (!g->w || !g->t) return lbs_fail(LBS_NOMEM, "ipg_points");
  while (*s) {
    while (*s == ' ' || *s == '\t' || *s == ',') s++;
    if (!*s) break;
    char *end;
    double w = strtod(s, &end), t;
    if (end == s || *end != ':')
      return lbs_fail(LBS_PARSE, "%s: ipg_points: expected metric:seconds at '%.20s'", where, s);
    s = end + 1;
    t = strtod(s, &end);
    if (end == s || (*end && *end != ' ' && *end != '\t' && *end != ','))
      return lbs_fail(LBS_PARSE, "%s: ipg_points: expected metric:seconds at '%.20s'", where, s);
    if (!(w >= 0) || !(t >= 0) || !isfinite(w) || !isfinite(t) || (g->n && !(w > g->w[g->n - 1])))
      return lbs_fail(
          LBS_PARSE,
          "%s: ipg_points: %g:%g: metrics must ascend, metrics and seconds be finite and >= 0",
          where, w, t);
    if (g->n == cap) {
      cap *= 2;
      double *nw = realloc(g->w, (size_t)cap * sizeof *nw);
      if (nw) g->w = nw;
      double *nt = realloc(g->t, (size_t)cap * sizeof *nt);
      if (nt) g->t = nt;
      if (!nw || !nt) return lbs_fail(LBS_NOMEM, "ipg_points");
    }
    g->w[g->n] = w, g->t[g->n++] = t;
    s = end;
  }
  if (g->n < 2)
    return lbs_fail(LBS_PARSE, "%s: ipg_points: give at least two metric:seconds pairs", where);
  return LBS_OK;
}

static double eval(const void *g, double x) { return lbs_ipg_eval(g, x); }

static void fini(void *state) {
  ipg_model *m = state;
  if (!m) return;
  lbs_ipg_free(&m->g);
  free(m);
}

static lbs_err init(void **state, const lbs_config *cfg, const char *nt, double ns_per_work) {
  const lbs_section_spec *spec = lbs_grid_spec();
  const char *db = "", *impl = "", *dev = "", *pts = "";
  int partial = 0;
  ipg_model *m = calloc(1, sizeof *m);
  if (!m) return lbs_fail(LBS_NOMEM, "speed model");
  lbs_err e = lbs_config_string(cfg, spec, "nodetype", nt, "ipg_db", &db);
  if (!e) e = lbs_config_string(cfg, spec, "nodetype", nt, "ipg_impl", &impl);
  if (!e) e = lbs_config_string(cfg, spec, "nodetype", nt, "ipg_device", &dev);
  if (!e) e = lbs_config_string(cfg, spec, "nodetype", nt, "ipg_points", &pts);
  if (!e) e = lbs_config_double(cfg, spec, "nodetype", nt, "ipg_metric_per_work", &m->mpw);
  if (!e) e = lbs_config_bool(cfg, spec, "nodetype", nt, "ipg_allow_partial", &partial);
  const char *where = lbs_config_where(cfg, "nodetype", nt, NULL);
  char wherebuf[512];
  snprintf(wherebuf, sizeof wherebuf, "%s", where ? where : "grid");
  if (!e && *pts && (*db || *impl))
    e = lbs_fail(LBS_PARSE, "%s: [nodetype %s] gives both ipg_points and ipg_db/ipg_impl; give one",
                 wherebuf, nt);
  else if (!e && *pts)
    e = parse_points(lbs_config_where(cfg, "nodetype", nt, "ipg_points"), pts, &m->g);
  else if (!e && (!*db || !*impl))
    e = lbs_fail(
        LBS_PARSE,
        "%s: [nodetype %s] uses speed_model = ipg: give ipg_db and ipg_impl (or ipg_points)",
        wherebuf, nt);
  else if (!e) {
    char path[4096], dbwhere[512];
    snprintf(dbwhere, sizeof dbwhere, "%s", lbs_config_where(cfg, "nodetype", nt, "ipg_db"));
    lbs_config_relpath(dbwhere, db, path, sizeof path);
    lbs_calib_db *cdb = NULL;
    lbs_ipg_rec rec;
    memset(&rec, 0, sizeof rec);
    e = lbs_calib_open(path, 0, &cdb);
    if (e)
      e = lbs_fail(e, "%s: ipg_db: %s", dbwhere, lbs_errmsg());
    else {
      e = lbs_calib_get(cdb, impl, dev, &rec);
      char msg[1024];
      snprintf(msg, sizeof msg, "%s", lbs_errmsg());
      if (e == LBS_NOTFOUND && partial) { /* the newest partial one */
        lbs_ipg_rec *all = NULL;
        int n = 0, pick = -1;
        if (!lbs_calib_list(cdb, &all, &n))
          for (int k = 0; k < n; k++)
            if (!strcmp(all[k].impl, impl) && !strcmp(all[k].status, "partial") &&
                all[k].ipg.n >= 2 && (!*dev || !strcmp(all[k].device, dev)))
              pick = k;
        if (pick >= 0) {
          rec = all[pick];
          memset(&all[pick], 0, sizeof all[pick]);
          e = LBS_OK;
        }
        for (int k = 0; k < n; k++) lbs_ipg_rec_free(&all[k]);
        free(all);
      }
      if (e)
        e = lbs_fail(e, "%s: [nodetype %s] ipg_impl = %s: %s",
                     lbs_config_where(cfg, "nodetype", nt, "ipg_impl"), nt, impl, msg);
      else {
        m->g = rec.ipg;
        rec.ipg = (lbs_ipg){0};
        if (m->g.n < 1)
          e = lbs_fail(LBS_CORRUPT, "%s: the IPG of %s in %s has no points", dbwhere, impl, path);
      }
    }
    lbs_ipg_rec_free(&rec);
    lbs_calib_close(&cdb);
  }
  if (!e) m->rate = lbs__curve_rate(eval, &m->g, m->g.w[m->g.n - 1], m->mpw, ns_per_work);
  if (e) {
    fini(m);
    return e;
  }
  *state = m;
  return LBS_OK;
}

static int64_t time_ns(const void *state, double work) {
  const ipg_model *m = state;
  return work > 0 ? lbs__seconds_ns(lbs_ipg_eval(&m->g, work * m->mpw)) : 0;
}

static double rate(const void *state) { return ((const ipg_model *)state)->rate; }

const lbs_speed_ops lbs__speed_ipg = {
    .abi = LBS_SPEED_ABI,
    .name = "ipg",
    .keys = keys,
    .example = "ipg_points = 0:1e-4 1000:1.2e-4 1e6:2.1e-3\nipg_metric_per_work = 2\n",
    .monotone = 1,
    .init = init,
    .time_ns = time_ns,
    .rate = rate,
    .fini = fini};
