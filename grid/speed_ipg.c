/* speed_ipg.c - speed from an implementation performance graph (IPG): a processor's time for
 * work W is IPG(W x ipg_metric_per_work) seconds, the curve `lbsim calibrate` measured for an
 * implementation on a device (docs/calibration.md), or one given point by point.
 *
 *   ipg_db = calib.db         a calibration database (relative to the grid file's directory)
 *   ipg_impl = wave.cpu       the implementation in it
 *   ipg_device = ...          its device, when the database holds it on several
 *   ipg_points = 0:1e-4 1e6:2.1e-3   or the curve itself: metric:seconds pairs, ascending
 *   ipg_trace_metric = weight the trace metric that ipg_metric_per_work converts
 *   ipg_metric_per_work = 1   work-metric units per unit of the trace's cost metric
 *
 * No work takes no time; any other work pays the curve, overheads included, so small parts
 * pay what small invocations pay on the device. The rate (for speed-proportional part sizes)
 * is the throughput over the upper half of the curve, relative to a processor of speed 1
 * (ns_per_work ns per unit of work).
 *
 * Units: an IPG from a database records its kernel's work metric ("cells (of 4^3 points)", its
 * unit "cells"). The replay tells the model its trace metric before the first step
 * (bind_metric): the metric's unit (its name when it has none) must be that unit, or the node
 * type must name the metric it converts (ipg_trace_metric, with ipg_metric_per_work); anything
 * else is refused, saying what to write. ipg_points and imported curves record no unit: the
 * grid's author vouches for it (ipg_trace_metric, when given, is still held to).
 *
 * Curves: a time of zero or less after some work is refused at load: the replay would take it
 * for real (issue 31: 0.000 s of compute). So is an ipg_points curve whose last point is below an
 * earlier one (past it the time would fall, to zero and below). A measured IPG's falling end is
 * cut instead, with a warning: noise where the sampling stopped (a partial IPG's last samples are
 * often one work unit apart, and the demo's PoCL curve ends so), which refusing would turn into
 * a lost calibration; the curve then ends at its last point that rose. A dip inside a curve, as
 * noise leaves in a measured one, is clamped to the highest time before it with a warning, since
 * this model is monotone (more work never takes less time) and refusing would throw a whole
 * calibration away for a noise the IA heuristic already reported. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "grid_int.h"
#include "lbs_calib.h"

typedef struct {
  lbs_ipg g;
  double mpw;             /* work-metric units per unit of work */
  double rate;            /* relative throughput at large work */
  char where[512];        /* [nodetype NAME]'s file:line */
  char nt[128];           /* the node type's name */
  char what[256];         /* "the IPG of wave.cpu in calib.db", "its ipg_points" */
  char metric[64];        /* the IPG's work metric as recorded ("" for ipg_points) */
  char unit[64];          /* its unit ("" when not recorded: ipg_points, imported) */
  char trace_metric[128]; /* ipg_trace_metric ("": none given) */
  int measured;           /* 1: a database's IPG, 0: ipg_points */
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
    {"ipg_trace_metric", LBS_OPT_STRING, "", 1, 0,
     "the trace metric ipg_metric_per_work converts into the IPG's work metric (needed when their "
     "units differ; \"\": the trace's metric must be in the IPG's unit)"},
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

/* The IPG of impl (on dev) in the database at path (dbwhere: ipg_db's file:line): the newest
 * complete one, or with partial the newest partial one when there is none; its points and
 * recorded work metric into m. */
static lbs_err load_db(ipg_model *m, const lbs_config *cfg, const char *path, const char *dbwhere,
                       const char *impl, const char *dev, int partial) {
  lbs_calib_db *cdb = NULL;
  lbs_ipg_rec rec;
  memset(&rec, 0, sizeof rec);
  lbs_err e = lbs_calib_open(path, 0, &cdb);
  if (e) return lbs_fail(e, "%s: ipg_db: %s", dbwhere, lbs_errmsg());
  e = lbs_calib_get(cdb, impl, dev, &rec);
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", lbs_errmsg());
  if (e == LBS_NOTFOUND && partial) { /* the newest partial one */
    lbs_ipg_rec *all = NULL;
    int n = 0, pick = -1;
    if (!lbs_calib_list(cdb, &all, &n))
      for (int k = 0; k < n; k++)
        if (!strcmp(all[k].impl, impl) && !strcmp(all[k].status, "partial") && all[k].ipg.n >= 2 &&
            (!*dev || !strcmp(all[k].device, dev)))
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
                 lbs_config_where(cfg, "nodetype", m->nt, "ipg_impl"), m->nt, impl, msg);
  else {
    m->g = rec.ipg;
    m->measured = 1;
    rec.ipg = (lbs_ipg){0};
    snprintf(m->metric, sizeof m->metric, "%s", rec.metric);
    lbs_ipg_metric_unit(rec.metric, m->unit, sizeof m->unit);
    snprintf(m->what, sizeof m->what, "the %sIPG of %.63s in %.160s",
             !strcmp(rec.status, "partial") ? "partial " : "", impl, path);
    if (m->g.n < 1)
      e = lbs_fail(LBS_CORRUPT, "%s: the IPG of %s in %s has no points", dbwhere, impl, path);
  }
  lbs_ipg_rec_free(&rec);
  lbs_calib_close(&cdb);
  return e;
}

/* Says a warning once: on rank 0 of a job (every rank loads the grid). */
#define SAY_ONCE(...)                                                                              \
  do {                                                                                             \
    int rank_ = 0, size_ = 1;                                                                      \
    lbs_log_mpi_env(&rank_, &size_);                                                               \
    if (rank_ == 0) lbs_log(LBS_LOG_WARN, __VA_ARGS__);                                            \
  } while (0)

/* The end of a curve whose last point takes less than an earlier one: past it the time would
 * fall, to zero and below. ipg_points are refused (their author wrote that); a measured IPG loses
 * its falling end, point by point, with a warning (noise where the sampling stopped: a partial
 * IPG's last samples often are one work unit apart), refused when fewer than 2 points remain. */
static lbs_err falling_end(ipg_model *m) {
  lbs_ipg *g = &m->g;
  int n = g->n, top = 0; /* top: the earliest point of the highest time before the last one */
  for (int k = 1; k + 1 < n; k++)
    if (g->t[k] > g->t[top]) top = k;
  if (n < 2 || g->t[n - 1] >= g->t[top]) return LBS_OK;
  char why[512];
  if (g->t[n - 1] < g->t[n - 2]) {
    double zero =
        g->w[n - 1] + g->t[n - 1] * (g->w[n - 1] - g->w[n - 2]) / (g->t[n - 2] - g->t[n - 1]);
    snprintf(why, sizeof why,
             "falls on its last segment, from %g s at work metric %g to %g s at %g: past its last "
             "point the time would reach zero at %g",
             g->t[n - 2], g->w[n - 2], g->t[n - 1], g->w[n - 1], zero);
  } else
    snprintf(why, sizeof why,
             "ends at %g s at work metric %g, below the %g s it took at %g: past its last point "
             "the time would be less than for less work",
             g->t[n - 1], g->w[n - 1], g->t[top], g->w[top]);
  int keep = n - 1; /* the measured points kept: up to the last one at the highest time so far */
  while (keep >= 2 && g->t[keep - 1] < g->t[top]) keep--;
  if (!m->measured || keep < 2)
    return lbs_fail(LBS_RANGE, "%s: [nodetype %s] %s %s; refused (%s)", m->where, m->nt, m->what,
                    why, m->measured ? "calibrate further" : "give ipg_points that end rising");
  SAY_ONCE("%s: warning: [nodetype %s] %s %s: its last %d point%s dropped, the curve ends at "
           "work metric %g (calibrate further)",
           m->where, m->nt, m->what, why, n - keep, n - keep == 1 ? "" : "s", g->w[keep - 1]);
  g->n = keep;
  return LBS_OK;
}

/* Refuses a curve whose time is zero or less after some work; refuses or cuts a falling end
 * (falling_end); clamps a dip inside it to the highest time before, saying so once. See the
 * file's comment. */
static lbs_err check_curve(ipg_model *m) {
  lbs_ipg *g = &m->g;
  for (int k = 0; k < g->n; k++)
    if (g->w[k] > 0 && !(g->t[k] > 0))
      return lbs_fail(LBS_RANGE,
                      "%s: [nodetype %s] %s takes %g s at work metric %g: a curve whose time falls "
                      "to zero or below is refused (a measurement that failed: calibrate again, "
                      "or give ipg_points whose times are > 0)",
                      m->where, m->nt, m->what, g->t[k], g->w[k]);
  lbs_err e = falling_end(m);
  if (e) return e;
  int dips = 0, worst = -1;
  double hold = 0, drop = 0; /* the largest fall below the highest time before it */
  for (int k = 0; k < g->n; k++) {
    if (k && g->t[k] < hold) {
      if (hold - g->t[k] > drop) drop = hold - g->t[k], worst = k;
      g->t[k] = hold, dips++;
    }
    hold = g->t[k];
  }
  if (dips)
    SAY_ONCE("%s: warning: [nodetype %s] %s falls in %d point%s (most at work metric %g, %g s "
             "below the time before it): those times are held at the highest before them (the "
             "ipg speed model never takes less time for more work)",
             m->where, m->nt, m->what, dips, dips == 1 ? "" : "s", g->w[worst], drop);
  return LBS_OK;
}

/* The keys naming where the curve is ([nodetype nt]): a database's IPG or ipg_points. */
static lbs_err read_curve(ipg_model *m, const lbs_config *cfg) {
  const lbs_section_spec *spec = lbs_grid_spec();
  const char *db = "", *impl = "", *dev = "", *pts = "", *nt = m->nt;
  int partial = 0;
  lbs_err e = lbs_config_string(cfg, spec, "nodetype", nt, "ipg_db", &db);
  if (!e) e = lbs_config_string(cfg, spec, "nodetype", nt, "ipg_impl", &impl);
  if (!e) e = lbs_config_string(cfg, spec, "nodetype", nt, "ipg_device", &dev);
  if (!e) e = lbs_config_string(cfg, spec, "nodetype", nt, "ipg_points", &pts);
  if (!e) e = lbs_config_bool(cfg, spec, "nodetype", nt, "ipg_allow_partial", &partial);
  if (e) return e;
  if (*pts && (*db || *impl))
    return lbs_fail(LBS_PARSE,
                    "%s: [nodetype %s] gives both ipg_points and ipg_db/ipg_impl; give one",
                    m->where, nt);
  if (*pts) {
    snprintf(m->what, sizeof m->what, "its ipg_points");
    return parse_points(lbs_config_where(cfg, "nodetype", nt, "ipg_points"), pts, &m->g);
  }
  if (!*db || !*impl)
    return lbs_fail(
        LBS_PARSE,
        "%s: [nodetype %s] uses speed_model = ipg: give ipg_db and ipg_impl (or ipg_points)",
        m->where, nt);
  char path[4096], dbwhere[512];
  snprintf(dbwhere, sizeof dbwhere, "%s", lbs_config_where(cfg, "nodetype", nt, "ipg_db"));
  lbs_config_relpath(dbwhere, db, path, sizeof path);
  return load_db(m, cfg, path, dbwhere, impl, dev, partial);
}

static lbs_err init(void **state, const lbs_config *cfg, const char *nt, double ns_per_work) {
  const lbs_section_spec *spec = lbs_grid_spec();
  const char *tm = "";
  ipg_model *m = calloc(1, sizeof *m);
  if (!m) return lbs_fail(LBS_NOMEM, "speed model");
  const char *where = lbs_config_where(cfg, "nodetype", nt, NULL);
  snprintf(m->where, sizeof m->where, "%s", where ? where : "grid");
  snprintf(m->nt, sizeof m->nt, "%s", nt);
  lbs_err e = lbs_config_double(cfg, spec, "nodetype", nt, "ipg_metric_per_work", &m->mpw);
  if (!e) e = lbs_config_string(cfg, spec, "nodetype", nt, "ipg_trace_metric", &tm);
  if (!e) snprintf(m->trace_metric, sizeof m->trace_metric, "%s", tm);
  if (!e) e = read_curve(m, cfg);
  if (!e) e = check_curve(m);
  if (!e) m->rate = lbs__curve_rate(eval, &m->g, m->g.w[m->g.n - 1], m->mpw, ns_per_work);
  if (e) {
    fini(m);
    return e;
  }
  *state = m;
  return LBS_OK;
}

/* The trace metric's unit (its name when it has none) must be the IPG's, or the node type
 * names the metric it converts (see the file's comment). */
static lbs_err bind_metric(const void *state, const char *metric, const char *unit) {
  const ipg_model *m = state;
  const char *tu = *unit ? unit : metric;
  if (*m->trace_metric) {
    if (!strcmp(m->trace_metric, metric)) return LBS_OK;
    return lbs_fail(LBS_INVAL,
                    "%s: [nodetype %s] ipg_trace_metric = %s: its ipg_metric_per_work = %g "
                    "converts the trace metric '%s', but the replay gives it '%s' (%s): replay "
                    "--metric %s, or set ipg_trace_metric and ipg_metric_per_work for '%s'",
                    m->where, m->nt, m->trace_metric, m->mpw, m->trace_metric, metric,
                    *unit ? unit : "no unit", m->trace_metric, metric);
  }
  if (!*m->unit || !strcasecmp(m->unit, tu)) return LBS_OK; /* no unit recorded: vouched for */
  return lbs_fail(
      LBS_INVAL,
      "%s: [nodetype %s] %s measures work in %s (its work metric: %s), but the replayed trace "
      "metric '%s' is in %s: say how they convert in [nodetype %s], 'ipg_trace_metric = %s' and "
      "'ipg_metric_per_work = N' (N: %s per unit of %s), or replay a metric in %s",
      m->where, m->nt, m->what, m->unit, m->metric, metric, *unit ? unit : "no unit", m->nt, metric,
      m->unit, metric, m->unit);
}

static int range(const void *state, double *lo, double *hi, char *what, size_t n) {
  const ipg_model *m = state;
  *lo = m->g.w[0] / m->mpw;
  *hi = m->g.w[m->g.n - 1] / m->mpw;
  if (n) snprintf(what, n, "%s", m->what);
  return 1;
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
    .fini = fini,
    .bind_metric = bind_metric,
    .range = range};
