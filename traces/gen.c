/* gen.c - synthetic workloads on structured meshes (see lbs_traces.h for the models).
 *
 * Everything is a pure function of (recipe, step, cell): noise comes from a counter-based
 * generator indexed by step and cell, so any step can be regenerated on its own (trace
 * check and the tests compare decoded values with the regenerated source). */
#include "lbs_traces.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { GEN_BUMP, GEN_HOTSPOT, GEN_RANDOM } gen_kind;

struct lbs_gen {
  gen_kind kind;
  int64_t nx, ny, nz, steps;
  uint64_t seed;
  lbs_gen_noise noise;
  char recipe[240];
};

static const char *const kind_names[] = {"bump", "hotspot", "random", NULL};

lbs_err lbs_gen_create(const lbs_gen_params *p, lbs_gen **out) {
  *out = NULL;
  int k = -1;
  for (int i = 0; kind_names[i]; i++)
    if (p->kind && !strcmp(p->kind, kind_names[i])) k = i;
  if (k < 0)
    return lbs_fail(LBS_NOTFOUND, "unknown generator '%s' (known: bump, hotspot, random)",
                    p->kind ? p->kind : "");
  /* Each side within the cap before the product, so that the product cannot overflow. */
  const int64_t cap = LBS_GEN_MAX_ELEMENTS;
  if (p->nx < 1 || p->ny < 1 || p->nz < 1 || p->nx > cap || p->ny > cap || p->nz > cap ||
      p->nx > cap / p->ny || p->nx * p->ny > cap / p->nz)
    return lbs_fail(LBS_INVAL, "bad mesh %lldx%lldx%lld (at most %lld elements)", (long long)p->nx,
                    (long long)p->ny, (long long)p->nz, (long long)cap);
  if (p->steps < 1 || p->steps > LBS_GEN_MAX_STEPS)
    return lbs_fail(LBS_INVAL, "steps must be in 1..%lld (got %lld)", (long long)LBS_GEN_MAX_STEPS,
                    (long long)p->steps);
  const lbs_gen_noise *nz = &p->noise;
  if (!(nz->jitter >= 0 && nz->jitter <= 2) || !(nz->tick_ns >= 0 && nz->tick_ns <= 1e9) ||
      nz->spikes < 0 || nz->spikes > 1000000)
    return lbs_fail(LBS_INVAL,
                    "noise: jitter must be in [0, 2], tick in [0, 1e9] ns, spikes in [0, 1e6]");
  lbs_gen *g = calloc(1, sizeof *g);
  if (!g) return lbs_fail(LBS_NOMEM, "generator");
  g->kind = (gen_kind)k;
  g->nx = p->nx;
  g->ny = p->ny;
  g->nz = p->nz;
  g->steps = p->steps;
  g->seed = p->seed;
  g->noise = p->noise;
  int len = snprintf(g->recipe, sizeof g->recipe, "%s %lldx%lldx%lld steps=%lld seed=%llu",
                     kind_names[k], (long long)p->nx, (long long)p->ny, (long long)p->nz,
                     (long long)p->steps, (unsigned long long)p->seed);
  if (nz->jitter > 0 || nz->tick_ns > 0 || nz->spikes > 0)
    snprintf(g->recipe + len, sizeof g->recipe - (size_t)len,
             " noise=jitter:%.17g,tick:%.17g,spikes:%d", nz->jitter, nz->tick_ns, nz->spikes);
  *out = g;
  return LBS_OK;
}

lbs_err lbs_gen_from_recipe(const char *recipe, lbs_gen **out) {
  char kind[16];
  long long nx, ny, nz, steps;
  unsigned long long seed;
  int used = 0, used2 = 0;
  lbs_gen_noise noise = {0, 0, 0};
  if (sscanf(recipe, "%15s %lldx%lldx%lld steps=%lld seed=%llu%n", kind, &nx, &ny, &nz, &steps,
             &seed, &used) != 6)
    return lbs_fail(LBS_PARSE, "bad generator recipe '%s'", recipe);
  if (recipe[used] && (sscanf(recipe + used, " noise=jitter:%lf,tick:%lf,spikes:%d%n",
                              &noise.jitter, &noise.tick_ns, &noise.spikes, &used2) != 3 ||
                       recipe[used + used2] != '\0'))
    return lbs_fail(LBS_PARSE, "bad generator recipe '%s'", recipe);
  lbs_gen_params p = {kind, nx, ny, nz, steps, seed, noise};
  return lbs_gen_create(&p, out);
}

lbs_err lbs_gen_noise_parse(const char *s, lbs_gen_noise *out) {
  *out = (lbs_gen_noise){LBS_GEN_NOISE_JITTER, LBS_GEN_NOISE_TICK, LBS_GEN_NOISE_SPIKES};
  if (!strcmp(s, "default")) return LBS_OK;
  if (!strcmp(s, "none")) {
    *out = (lbs_gen_noise){0, 0, 0};
    return LBS_OK;
  }
  char buf[256];
  snprintf(buf, sizeof buf, "%s", s);
  *out = (lbs_gen_noise){0, 0, 0}; /* only what is given */
  for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '='), *end;
    if (!eq) return lbs_fail(LBS_PARSE, "noise '%s': '%s' is not KEY=VALUE", s, tok);
    *eq = '\0';
    double v = strtod(eq + 1, &end);
    int known = !strcmp(tok, "jitter") || !strcmp(tok, "tick") || !strcmp(tok, "spikes");
    if (!known)
      return lbs_fail(LBS_PARSE, "noise '%s': unknown key '%s' (known: jitter, tick, spikes)", s,
                      tok);
    if (!eq[1] || *end || !isfinite(v) || v < 0)
      return lbs_fail(LBS_PARSE, "noise '%s': %s wants a number >= 0", s, tok);
    if (!strcmp(tok, "jitter")) {
      if (v > 2)
        return lbs_fail(LBS_PARSE, "noise '%s': jitter is a log-normal sigma in [0, 2]", s);
      out->jitter = v;
    } else if (!strcmp(tok, "tick")) {
      if (v > 1e9) return lbs_fail(LBS_PARSE, "noise '%s': tick is at most 1e9 ns", s);
      out->tick_ns = v;
    } else {
      if (v != floor(v) || v > 1e6)
        return lbs_fail(LBS_PARSE, "noise '%s': spikes is a whole number up to 1e6", s);
      out->spikes = (int)v;
    }
  }
  return LBS_OK;
}

void lbs_gen_destroy(lbs_gen **g) {
  if (!g) return;
  free(*g);
  *g = NULL;
}

const char *lbs_gen_recipe(const lbs_gen *g) { return g->recipe; }
int lbs_gen_nmetrics(const lbs_gen *g) { return g->kind == GEN_BUMP ? 2 : 1; }
const char *lbs_gen_metric_name(const lbs_gen *g, int m) {
  return g->kind == GEN_BUMP && m == 1 ? "weight" : "time_ns";
}
const char *lbs_gen_metric_unit(const lbs_gen *g, int m) {
  return g->kind == GEN_BUMP && m == 1 ? "1" : "ns";
}
int64_t lbs_gen_app_step(const lbs_gen *g, int64_t step) {
  (void)g;
  return step;
}

/* MRTD-like refinement levels of the pulse: weight 1 (inactive), 4 or 8 (active). */
static double bump_weight(const lbs_gen *g, int64_t step, int64_t i, int64_t j, int64_t k) {
  double t = ((double)step + 0.5) / (double)g->steps;
  double cx = (-0.25 + 1.5 * t) * (double)g->nx, cy = 0.5 * (double)g->ny, cz = 0.5 * (double)g->nz;
  double sx = 0.1 * (double)g->nx, sy = 0.25 * (double)g->ny, sz = 0.25 * (double)g->nz;
  double dx = ((double)i + 0.5 - cx) / sx, dy = ((double)j + 0.5 - cy) / sy,
         dz = ((double)k + 0.5 - cz) / sz;
  double f = exp(-0.5 * (dx * dx + dy * dy + dz * dz));
  return f > 0.4 ? 8.0 : f > 0.05 ? 4.0 : 1.0;
}

static double hotspot_cost(const lbs_gen *g, int64_t step, int64_t cell, int64_t i, int64_t j,
                           int64_t k) {
  double x = ((double)i + 0.5) / (double)g->nx, y = ((double)j + 0.5) / (double)g->ny,
         z = ((double)k + 0.5) / (double)g->nz, load = 1.0;
  for (int h = 0; h < 4; h++) {
    double th0 = 6.283185307179586 * lbs_rng_unit(g->seed, 1000 + (uint64_t)h, 0);
    double om = (0.01 + 0.03 * lbs_rng_unit(g->seed, 1000 + (uint64_t)h, 1)) * (h & 1 ? -1 : 1);
    double r = 0.15 + 0.25 * lbs_rng_unit(g->seed, 1000 + (uint64_t)h, 2);
    double amp = 2.0 + 3.0 * lbs_rng_unit(g->seed, 1000 + (uint64_t)h, 3);
    double sg = 0.05 + 0.07 * lbs_rng_unit(g->seed, 1000 + (uint64_t)h, 4);
    double th = th0 + om * (double)step;
    double hx = 0.5 + r * cos(th), hy = 0.5 + r * sin(th), hz = 0.5 + 0.25 * sin(0.5 * th);
    double d2 = (x - hx) * (x - hx) + (y - hy) * (y - hy) + (g->nz > 1 ? (z - hz) * (z - hz) : 0);
    load += amp * exp(-d2 / (2 * sg * sg));
  }
  double noise = lbs_rng_normal(g->seed, 2000 + (uint64_t)step, (uint64_t)cell);
  return 100.0 * load * (1.0 + 0.02 * noise);
}

static int cmp_pair(const void *a, const void *b) {
  const uint64_t *x = a, *y = b;
  return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Measured timings, as a profiler sees them: a multiplicative log-normal jitter per element,
 * the timer's resolution, and a few elements per step slowed 1000-10000x (preempted, page
 * faults). Applied to time_ns only; streams 3000+ keep it apart from the models' own noise. */
static double noisy(const lbs_gen *g, int64_t step, int64_t cell, double x) {
  const lbs_gen_noise *nz = &g->noise;
  if (nz->jitter > 0)
    x *= exp(nz->jitter * lbs_rng_normal(g->seed, 3000 + (uint64_t)step, (uint64_t)cell));
  if (nz->tick_ns > 0) x = fmax(nz->tick_ns, nz->tick_ns * floor(x / nz->tick_ns + 0.5));
  return x;
}

void lbs_gen_step(const lbs_gen *g, int64_t step, int m, const int64_t *cell, double *out) {
  int64_t n = g->nx * g->ny * g->nz;
  for (int64_t e = 0; e < n; e++) {
    int64_t c = cell ? cell[e] : e, i = c % g->nx, j = (c / g->nx) % g->ny, k = c / (g->nx * g->ny);
    switch (g->kind) {
    case GEN_BUMP: {
      double w = bump_weight(g, step, i, j, k);
      out[e] =
          m == 1 ? w
                 : w * 250.0 * (1.0 + 1e-4 * lbs_rng_normal(g->seed, (uint64_t)step, (uint64_t)c));
      break;
    }
    case GEN_HOTSPOT: out[e] = hotspot_cost(g, step, c, i, j, k); break;
    case GEN_RANDOM:
      out[e] = 100.0 + 1000.0 * lbs_rng_unit(g->seed, (uint64_t)step, (uint64_t)c);
      break;
    }
    if (m == 0 && (g->noise.jitter > 0 || g->noise.tick_ns > 0)) out[e] = noisy(g, step, c, out[e]);
  }
  /* the spikes: cells drawn per step; a cell drawn twice is slowed once, by its first draw */
  if (m != 0 || g->noise.spikes <= 0) return;
  int ns = g->noise.spikes;
  uint64_t *draw = malloc((size_t)ns * 2 * sizeof *draw);         /* (cell, draw) pairs, sorted */
  int64_t *elem = cell ? malloc((size_t)n * sizeof *elem) : NULL; /* cell -> element */
  if (!draw || (cell && !elem)) { /* no memory for the fast way: the same draws, slowly */
    free(draw), free(elem);
    for (int k = 0; k < ns; k++) {
      uint64_t c = lbs_rng_u64(g->seed, 4000 + (uint64_t)step, (uint64_t)k) % (uint64_t)n;
      int dup = 0;
      for (int r = 0; r < k && !dup; r++)
        dup = lbs_rng_u64(g->seed, 4000 + (uint64_t)step, (uint64_t)r) % (uint64_t)n == c;
      for (int64_t e = 0; e < n && !dup; e++)
        if ((uint64_t)(cell ? cell[e] : e) == c) {
          out[e] *= pow(10.0, 3.0 + lbs_rng_unit(g->seed, 5000 + (uint64_t)step, (uint64_t)k));
          break;
        }
    }
    return;
  }
  for (int64_t e = 0; cell && e < n; e++) elem[cell[e]] = e;
  for (int k = 0; k < ns; k++)
    draw[2 * k] = lbs_rng_u64(g->seed, 4000 + (uint64_t)step, (uint64_t)k) % (uint64_t)n,
             draw[2 * k + 1] = (uint64_t)k;
  qsort(draw, (size_t)ns, 2 * sizeof *draw, cmp_pair);
  for (int k = 0; k < ns; k++) {
    if (k > 0 && draw[2 * k] == draw[2 * k - 2]) continue;
    uint64_t c = draw[2 * k];
    double f = pow(10.0, 3.0 + lbs_rng_unit(g->seed, 5000 + (uint64_t)step, draw[2 * k + 1]));
    out[cell ? elem[c] : (int64_t)c] *= f;
  }
  free(draw), free(elem);
}

int64_t lbs_gen_elements(const lbs_gen *g) { return g->nx * g->ny * g->nz; }

lbs_err lbs_gen_metric_specs(const lbs_gen *g, const lbs_encoding *enc,
                             lbs_metric_spec ms[LBS_GEN_MAX_METRICS]) {
  int nm = lbs_gen_nmetrics(g);
  const char *names[LBS_GEN_MAX_METRICS];
  lbs_bound dflt;
  lbs_bound_parse(LBS_BOUND_DEFAULT, &dflt);
  if (nm > LBS_GEN_MAX_METRICS) return lbs_fail(LBS_INVAL, "generator with %d metrics", nm);
  for (int m = 0; m < nm; m++) {
    names[m] = lbs_gen_metric_name(g, m);
    ms[m] = (lbs_metric_spec){names[m], lbs_gen_metric_unit(g, m), LBS_CODEC_DEFAULT, dflt, {0, 0}};
    lbs_err e =
        lbs_encoding_resolve(enc, names[m], LBS_CODEC_DEFAULT, dflt, &ms[m].codec, &ms[m].bound);
    if (e) return e;
  }
  return lbs_encoding_check_names(enc, names, nm);
}

lbs_err lbs_gen_write_trace(const lbs_gen *g, const lbs_gen_write_opts *o, const char *path,
                            lbs_progress_fn progress, void *arg) {
  lbs_gen_write_opts dflt = LBS_GEN_WRITE_OPTS_DEFAULT;
  if (!o) o = &dflt;
  lbs_metric_spec ms[LBS_GEN_MAX_METRICS];
  lbs_err e = lbs_gen_metric_specs(g, o->enc, ms);
  if (e) return e;
  int nm = lbs_gen_nmetrics(g);
  lbs_mesh *mesh = NULL;
  lbs_trace_writer *w = NULL;
  double *vals = NULL;
  const char *meta[] = {"source", lbs_gen_recipe(g)};
  if ((e = lbs_mesh_create_structured(g->nx, g->ny, g->nz, o->order, &mesh))) return e;
  lbs_mesh_set_bytes(mesh, o->elem_bytes, o->edge_bytes);
  int64_t E = lbs_mesh_elements(mesh);
  lbs_trace_spec spec = {E, o->chunk_elems, nm, ms, mesh, 1, meta};
  const int64_t *cell = lbs_mesh_cell_index(mesh);
  vals = malloc((size_t)(E * nm) * sizeof *vals);
  if (!vals || !cell) e = lbs_fail(LBS_NOMEM, "%lld elements", (long long)E);
  if (!e) e = lbs_trace_create(path, &spec, &w);
  for (int64_t s = 0; !e && s < g->steps; s++) {
    const double *cols[LBS_GEN_MAX_METRICS];
    for (int m = 0; m < nm; m++) {
      lbs_gen_step(g, s, m, cell, vals + m * E);
      cols[m] = vals + m * E;
    }
    e = lbs_trace_write_step(w, lbs_gen_app_step(g, s), cols);
    if (!e && progress && progress(arg, s + 1, g->steps)) e = lbs_fail(LBS_INVAL, "stopped");
  }
  if (!e) e = lbs_trace_writer_close(&w);
  lbs_trace_writer_close(&w);
  free(vals);
  lbs_mesh_destroy(&mesh);
  return e;
}

lbs_err lbs_gen_write(const lbs_gen_params *p, lbs_order order, const char *path,
                      lbs_progress_fn progress, void *arg) {
  lbs_gen *g = NULL;
  lbs_err e = lbs_gen_create(p, &g);
  if (e) return e;
  lbs_gen_write_opts o = LBS_GEN_WRITE_OPTS_DEFAULT;
  o.order = order;
  e = lbs_gen_write_trace(g, &o, path, progress, arg);
  lbs_gen_destroy(&g);
  return e;
}

int lbs_trace_has_gen_source(const lbs_trace *t) {
  const char *r = lbs_trace_meta(t, "source");
  if (!r) return 0;
  for (int i = 0; kind_names[i]; i++) {
    size_t n = strlen(kind_names[i]);
    if (!strncmp(r, kind_names[i], n) && r[n] == ' ') return 1;
  }
  return 0;
}

/* Checks one step of one metric, dec against src (E values each), and folds its errors into out. */
static lbs_err check_values(const lbs_trace *t, int64_t s, const lbs_metric_info *mi,
                            const char *recipe, const double *src, const double *dec, int64_t E,
                            lbs_source_check *out) {
  double lo = INFINITY, hi = -INFINITY;
  for (int64_t i = 0; i < E; i++) {
    if (src[i] < lo) lo = src[i];
    if (src[i] > hi) hi = src[i];
  }
  char b[LBS_BOUND_STRLEN];
  for (int64_t i = 0; i < E; i++) {
    double err = fabs(dec[i] - src[i]), tol = lbs_bound_tolerance(mi->bound, src[i], hi - lo);
    if (err > out->max_abs_error) out->max_abs_error = err;
    if (hi > lo && err / (hi - lo) > out->max_range_error) out->max_range_error = err / (hi - lo);
    if (mi->bound.kind == LBS_BOUND_LOSSLESS ? memcmp(&dec[i], &src[i], sizeof *src) != 0
                                             : !(err <= tol))
      return lbs_fail(
          LBS_CORRUPT,
          "step %lld metric '%s' element %lld: stored %.17g, source %.17g, outside the bound %s",
          (long long)s, mi->name, (long long)i, dec[i], src[i], lbs_bound_format(mi->bound, b));
  }
  /* chunk sums: promised from schema 2 on, by the lossy codecs */
  int64_t C = lbs_trace_chunk_elems(t);
  for (int64_t f = 0;
       f < E && lbs_trace_schema_version(t) >= 2 && mi->bound.kind != LBS_BOUND_LOSSLESS; f += C) {
    size_t n = (size_t)(E - f < C ? E - f : C);
    double se = lbs_sum_error(src + f, dec + f, n);
    if (se > out->max_sum_error) out->max_sum_error = se;
    if (!(se <= LBS_SUM_TOL))
      return lbs_fail(
          LBS_CORRUPT,
          "step %lld metric '%s' chunk %lld: sum off by %.3g of its magnitude (source %s)",
          (long long)s, mi->name, (long long)(f / C), se, recipe);
  }
  return LBS_OK;
}

lbs_err lbs_trace_check_source(lbs_trace *t, lbs_progress_fn progress, void *arg,
                               lbs_source_check *out) {
  *out = (lbs_source_check){0, NAN, NAN, NAN};
  if (!lbs_trace_has_gen_source(t)) return LBS_OK;
  const char *recipe = lbs_trace_meta(t, "source");
  lbs_gen *g;
  lbs_err e = lbs_gen_from_recipe(recipe, &g);
  if (e) return e;
  *out = (lbs_source_check){1, 0, 0, 0};
  int64_t E = lbs_trace_elements(t), S = lbs_trace_steps(t);
  lbs_mesh *mesh = lbs_trace_mesh(t);
  const int64_t *cell = mesh ? lbs_mesh_cell_index(mesh) : NULL;
  double *src = malloc((size_t)E * sizeof *src), *dec = malloc((size_t)E * sizeof *dec);
  if (!src || !dec || !cell) e = lbs_fail(LBS_NOMEM, "source check");
  if (!e && lbs_gen_nmetrics(g) != lbs_trace_nmetrics(t))
    e = lbs_fail(LBS_CORRUPT, "source '%s' has %d metrics, the trace %d", recipe,
                 lbs_gen_nmetrics(g), lbs_trace_nmetrics(t));
  for (int64_t s = 0; s < S && !e; s++) {
    for (int m = 0; m < lbs_trace_nmetrics(t) && !e; m++) {
      lbs_metric_info mi;
      lbs_trace_metric(t, m, &mi);
      lbs_gen_step(g, s, m, cell, src);
      if (!(e = lbs_trace_read(t, s, m, 0, E, dec)))
        e = check_values(t, s, &mi, recipe, src, dec, E, out);
    }
    if (!e && progress && progress(arg, s + 1, S)) e = lbs_fail(LBS_INVAL, "stopped");
  }
  free(src);
  free(dec);
  lbs_gen_destroy(&g);
  return e;
}
