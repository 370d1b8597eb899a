/* plan.c - a node's RACECAR plan from the IPGs in a calibration database: the node's resources,
 * its implementations, and the template's own time measured for real (seed 004, 5.3; 5.3.5's
 * third limitation is why: a template's split and combine are not free). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_plan.h"

static void *noop(void *arg) { return arg; }

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The template's own time at work x (median of 3): split in halves, both run (untimed) with
 * the one-thread implementation, then a thread started and joined and the combine, timed. */
static lbs_err overhead_at(const lbs_template *t, const lbs_adapter *a, const lbs_impl_ops *cpu,
                           void *ctx, double x, double *sec) {
  double s[3];
  for (int r = 0; r < 3; r++) {
    void *params = NULL;
    union {
      char b[256];
      double align;
    } va, vb;
    lbs_err e = a->create_params(x, 1000 + (uint64_t)r, &params);
    if (e) return e;
    double wa = t->split(params, x / 2, va.b, vb.b);
    if (wa > 0) e = cpu->execute(ctx, va.b);
    if (!e && wa < x) e = cpu->execute(ctx, vb.b);
    double t0 = lbs_clock_monotonic.now(NULL);
    pthread_t th;
    if (!e && pthread_create(&th, NULL, noop, NULL) == 0) pthread_join(th, NULL);
    wa = t->split(params, x / 2, va.b,
                  vb.b); /* the split is timed too; the sides keep their outputs */
    if (!e) e = t->combine(params, va.b, vb.b);
    s[r] = lbs_clock_monotonic.now(NULL) - t0;
    a->delete_params(params);
    if (e) return e;
  }
  qsort(s, 3, sizeof *s, cmp_double);
  *sec = s[1];
  return LBS_OK;
}

/* Least squares c0 + c1 x through the template's own times at hi/8 .. hi (both >= 0). */
static lbs_err measure_overhead(const char *kernel, const lbs_template *t, double hi, double *c0,
                                double *c1) {
  const lbs_adapter *a = lbs_adapter_find(kernel);
  const lbs_impl_ops *cpu = NULL;
  char name[64];
  snprintf(name, sizeof name, "%s.cpu", kernel);
  lbs_err e =
      a ? lbs_impl_find(name, &cpu) : lbs_fail(LBS_NOTFOUND, "plan: no adapter of %s", kernel);
  void *ctx = NULL;
  char desc[160];
  lbs_impl_args args = {1, 0};
  if (!e) e = cpu->open(&ctx, &args, desc, sizeof desc);
  double xs[4], ys[4];
  for (int i = 0; i < 4 && !e; i++) {
    xs[i] = a->round_metric(hi / (double)(8 >> i));
    e = overhead_at(t, a, cpu, ctx, xs[i], &ys[i]);
  }
  if (cpu && ctx) cpu->close(ctx);
  if (e) return lbs_fail(e, "plan: measuring the %s template's own time: %s", kernel, lbs_errmsg());
  double mx = 0, my = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < 4; i++) mx += xs[i] / 4, my += ys[i] / 4;
  for (int i = 0; i < 4; i++)
    sxx += (xs[i] - mx) * (xs[i] - mx), sxy += (xs[i] - mx) * (ys[i] - my);
  *c1 = sxx > 0 ? sxy / sxx : 0;
  if (*c1 < 0) *c1 = 0;
  *c0 = my - *c1 * mx;
  if (*c0 < 0) *c0 = 0;
  return LBS_OK;
}

static int target_is(const char *impl, const char *target) {
  const char *dot = strrchr(impl, '.');
  return dot && !strcmp(dot + 1, target);
}

/* The IPGs a plan is made from: the database's records, those taken, and the machine and the
 * devices they were measured on. */
typedef struct {
  lbs_ipg_rec *recs; /* n records of the database (owned) */
  int n;
  int *keep;       /* n: 1 for each IPG the plan takes (owned) */
  int cpus, maxt;  /* CPUs of the machines measured (0: unknown); most threads an IPG needs */
  int nocl, ncuda; /* devices of each kind measured, in the order first measured: */
  char ocl[LBS_PLAN_MAX_DEV][160], cuda[LBS_PLAN_MAX_DEV][160];
} found;

/* Keeps the newest complete IPG of each implementation on each device (or partial, when
 * allowed and there is no complete one); cpus is the most of the machines they ran on. */
static lbs_err keep_newest(lbs_calib_db *db, const char *kernel, int allow_partial, found *f) {
  lbs_ipg_rec *recs = f->recs;
  int n = f->n, *keep = f->keep;
  lbs_err e = LBS_OK;
  for (int pass = 0; pass < 1 + !!allow_partial; pass++)
    for (int i = n - 1; i >= 0 && !e; i--) {
      if (strcmp(recs[i].kernel, kernel) || strcmp(recs[i].status, pass ? "partial" : "complete") ||
          recs[i].ipg.n < 2 || keep[i])
        continue;
      int dup = 0;
      for (int j = 0; j < n && !dup; j++) /* one of each: the newest (pass 0 goes newest first) */
        dup = j != i && keep[j] && !strcmp(recs[j].impl, recs[i].impl) &&
              !strcmp(recs[j].device, recs[i].device);
      if (dup) continue;
      keep[i] = 1;
      int c = 0;
      if (recs[i].run_id > 0 && !(e = lbs_calib_run_cpus(db, recs[i].run_id, &c)) && c > f->cpus)
        f->cpus = c;
    }
  return e;
}

/* Lists the OpenCL and CUDA devices of the IPGs kept, in the order first measured, and the
 * most threads one of them needs. */
static void list_devices(found *f) {
  for (int i = 0; i < f->n; i++) {
    if (!f->keep[i]) continue;
    const lbs_ipg_rec *r = &f->recs[i];
    int t, is_dev;
    lbs_plan_needs(r->impl, r->device, &t, &is_dev);
    if (t > f->maxt) f->maxt = t;
    char(*list)[160] = target_is(r->impl, "cuda") ? f->cuda : f->ocl;
    int *cnt = target_is(r->impl, "cuda") ? &f->ncuda : &f->nocl, seen = 0;
    for (int d = 0; d < *cnt && !seen; d++) seen = !strcmp(list[d], r->device);
    if (is_dev && !seen && *cnt < LBS_PLAN_MAX_DEV) snprintf(list[(*cnt)++], 160, "%s", r->device);
  }
}

/* Checks the node asked for against the IPGs found: some IPG, no more devices than measured
 * (LBS_PLAN_MAX_DEV at most), threads within the machine measured. Sets the devices of each
 * kind and the threads the plan gets. */
static lbs_err size_node(const char *kernel, const lbs_plan_node *node, const found *f,
                         int *want_ocl, int *want_cuda, int *threads) {
  int any = 0, nocl = f->nocl, ncuda = f->ncuda, cpus = f->cpus;
  for (int i = 0; i < f->n; i++) any |= f->keep[i];
  if (!any)
    return lbs_fail(LBS_NOTFOUND,
                    "no complete IPG of %s in the calibration database ('lbsim calibrate run "
                    "--kernel %s' makes them%s)",
                    kernel, kernel,
                    node->allow_partial ? "" : "; --allow-partial takes partial ones");
  *want_ocl = node->opencl < 0 ? nocl : node->opencl;
  *want_cuda = node->cuda < 0 ? ncuda : node->cuda;
  if (*want_ocl > nocl)
    return lbs_fail(
        LBS_RANGE, "--node opencl=%d: the database has IPGs of %s on %d OpenCL device%s%s%s",
        *want_ocl, kernel, nocl, nocl == 1 ? "" : "s", nocl ? ": " : "", nocl ? f->ocl[0] : "");
  if (*want_cuda > ncuda)
    return lbs_fail(LBS_RANGE, "--node cuda=%d: the database has IPGs of %s on %d CUDA device%s",
                    *want_cuda, kernel, ncuda, ncuda == 1 ? "" : "s");
  if (*want_ocl + *want_cuda > LBS_PLAN_MAX_DEV)
    return lbs_fail(LBS_RANGE, "--node: %d devices (at most %d)", *want_ocl + *want_cuda,
                    LBS_PLAN_MAX_DEV);
  int T = *threads = node->threads > 0 ? node->threads : cpus > 0 ? cpus : f->maxt;
  if (cpus > 0 && T > cpus)
    return lbs_fail(LBS_RANGE,
                    "--node threads=%d: the IPGs of %s were measured on a machine with %d CPU%s", T,
                    kernel, cpus, cpus == 1 ? "" : "s");
  if (T < 1 || T > LBS_PLAN_MAX_THREADS)
    return lbs_fail(LBS_RANGE, "--node threads=%d: give 1..%d", T, LBS_PLAN_MAX_THREADS);
  return LBS_OK;
}

/* Gives out the node's resources (T threads, the first want_ocl OpenCL and want_cuda CUDA
 * devices), the work range (hi, or the largest the IPGs kept reach) and room for the
 * implementations. */
static lbs_err start_plan(lbs_plan *out, const char *kernel, double hi, int T, int want_ocl,
                          int want_cuda, const found *f) {
  snprintf(out->kernel, sizeof out->kernel, "%s", kernel);
  out->threads = T;
  for (int d = 0; d < want_ocl; d++) memcpy(out->devices[out->ndev++], f->ocl[d], 160);
  for (int d = 0; d < want_cuda; d++) memcpy(out->devices[out->ndev++], f->cuda[d], 160);
  double top = 0;
  for (int i = 0; i < f->n; i++)
    if (f->keep[i]) {
      const lbs_ipg_rec *r = &f->recs[i];
      double h = isfinite(r->hi) && r->hi > 0 ? r->hi : r->ipg.w[r->ipg.n - 1];
      if (h > top) top = h;
    }
  out->hi = hi > 0 ? hi : top;
  out->impl = calloc((size_t)f->n, sizeof *out->impl);
  if (!out->impl) return lbs_fail(LBS_NOMEM, "plan");
  return LBS_OK;
}

/* Adds the IPGs kept that run on the node (T threads at most, on its devices) to out as its
 * implementations; their IPGs move from the records to out. */
static void add_impls(lbs_plan *out, found *f, int T) {
  for (int i = 0; i < f->n; i++) {
    if (!f->keep[i]) continue;
    lbs_ipg_rec *r = &f->recs[i];
    int t, is_dev;
    lbs_plan_needs(r->impl, r->device, &t, &is_dev);
    unsigned mask = 0;
    for (int d = 0; d < out->ndev; d++)
      if (!strcmp(out->devices[d], r->device)) mask = 1u << d;
    if (t > T || (is_dev && !mask)) continue; /* not on this node */
    lbs_plan_impl *m = &out->impl[out->nimpl++];
    snprintf(m->impl, sizeof m->impl, "%s", r->impl);
    snprintf(m->device, sizeof m->device, "%s", r->device);
    m->threads = t, m->devmask = mask, m->ipg_id = r->id;
    m->ipg = r->ipg;
    r->ipg = (lbs_ipg){0};
  }
}

/* Makes kernel's plan for node from db's IPGs: the IPGs to take, their devices, the node's
 * size, the plan's resources and implementations, the template's own time (measured when
 * measure is set and the node has 2 threads or more), then RACECAR (lbs_plan_build). out is
 * the caller's (lbs_plan_free); emptied on an error. */
lbs_err lbs_plan_make(lbs_calib_db *db, const char *kernel, const lbs_plan_node *node, double hi,
                      int measure, lbs_plan *out) {
  memset(out, 0, sizeof *out);
  found f = {0};
  int want_ocl = 0, want_cuda = 0, T = 0;
  lbs_err e = lbs_calib_list(db, &f.recs, &f.n);
  if (!e && !(f.keep = calloc((size_t)(f.n ? f.n : 1), sizeof *f.keep)))
    e = lbs_fail(LBS_NOMEM, "plan");
  if (!e) e = keep_newest(db, kernel, node->allow_partial, &f);
  if (!e) list_devices(&f);
  if (!e) e = size_node(kernel, node, &f, &want_ocl, &want_cuda, &T);
  if (!e) e = start_plan(out, kernel, hi, T, want_ocl, want_cuda, &f);
  if (!e) add_impls(out, &f, T);
  const lbs_template *tm = lbs_template_find(kernel);
  if (!e && tm) snprintf(out->tmpl, sizeof out->tmpl, "%s", tm->kind);
  if (!e && tm && measure && T >= 2)
    e = measure_overhead(kernel, tm, out->hi, &out->ovh_s, &out->ovh_per_work_s);
  if (!e) e = lbs_plan_build(out);
  for (int i = 0; i < f.n; i++) lbs_ipg_rec_free(&f.recs[i]);
  free(f.recs);
  free(f.keep);
  if (e) lbs_plan_free(out);
  return e;
}
