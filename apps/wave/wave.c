/* wave.c - a 3-D multi-resolution-style time-domain (MRTD) wave code: the seed's case study
 * (seed 002, section 4: a 30 x 20 x 20 cell MRTD domain, a Gaussian source, 300 steps, RCB),
 * real enough to profile, replay and validate (apps/README.md is the contract it keeps).
 *
 * Physics: Maxwell's equations in normalised units (c = 1, dx = 1) on a Yee grid, leapfrog in
 * time with Courant number S = dt/dx = 1/2 (stable up to 1/sqrt(3)). The box is periodic in y
 * and z; beyond its x faces the fields are zero (a magnetic wall at x = -1/2, an electric one at
 * x = G). The discrete curls of E and H are then exact transposes of each other, so once the
 * source is off the leapfrog conserves W = E^n.E^n + H^(n-1/2).H^(n+1/2) to rounding. The
 * source is a soft Ricker pulse (a Gaussian's second derivative: no charge is left behind) in
 * Ez on the plane x = 0, with a Gaussian transverse profile a quarter of the cross-section
 * wide, so a beam-shaped front crosses the box along +x at about S points per step.
 *
 * Elements: MRTD cells, each a block of B x B x B Yee points (B = 4 by default). A cell whose
 * largest |E| exceeded the threshold at the end of the last step is active, as the wavelet
 * thresholding of MRTD makes a cell multi-resolution: after its own update it runs its block
 * on a 2x finer sub-grid for one coarse step (prolongation, two fine leapfrog substeps of half
 * the time step, restriction) and keeps the difference between the restricted fine field and
 * the coarse one as its error indicator. So the work travels with the front. The `weight` of a
 * cell is its work level, known before it is computed: 1 plain, 8 active (an active cell did 16
 * times the point updates of a plain one and measured 7 to 16 times its time on the 2-core
 * development VM: plain cells stream their block from memory, the sub-grid runs in cache).
 *
 * Parallelism: cells are spread by Zoltan (RCB by default; weights of the last step), moved by
 * Zoltan_Migrate (pack/unpack callbacks carry each cell's interior fields, levels and
 * indicator), and every step exchanges the faces that neighbouring cells on other ranks need
 * (E faces before the H update, H faces before the E update; faces of neighbours on the same
 * rank each cell copies itself, inside its measured work). Results are bitwise the same on any
 * number of ranks and under any schedule: each cell is computed from its own block and its
 * neighbours' faces in a fixed order, and the checksum is order-free.
 *
 * Profiling (--trace): time_ns per cell (elem_begin/end around each of its two updates, which
 * the profiler accumulates), each update's share as the phases time_ns.H and time_ns.E
 * (lbsprof_phase before each update loop: the step costs the slowest rank's H plus the slowest
 * rank's E) and the `weight` value. The mesh is described once
 * (lbsprof_mesh_elements: a rank's local index i is the global id it gave); after each
 * Zoltan_Migrate the rank gives its new cells to lbsprof_remap, so a profiled run repartitions
 * under --schedule and --policy as an unprofiled one does, and the trace records each cell's
 * rank from every repartition step on (its owners). */
#include <errno.h>
#include <inttypes.h>
#include <lbsprof.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <zoltan.h>

#include "lbs_policy.h"
#include "lbs_wave.h"
#include "part_sizes.h"

/* Zoltan's own random generator (not installed): reset before every partition so that a
 * partition never depends on what ran before it (RCB, RIB and HSFC draw nothing today). */
void Zoltan_Srand(unsigned int seed, unsigned int *state);

#define COURANT 0.5
#define REFINED_WEIGHT 8.0 /* --refined-weight's default: an active cell's cost in plain cells */
#define SRC_CUT 4.0        /* the source is off beyond 4 widths from its peak */
#define SRC_AMP 0.55       /* makes the pulse's peak about 1 on the beam's axis */

/* ---------------------------------------------------------------- options */

typedef struct {
  int64_t nx, ny, nz, E; /* cells */
  int b;                 /* Yee points per cell edge */
  int64_t steps;
  double thr, pulse;
  double rw; /* --refined-weight: an active cell's weight (plain cells weigh 1) */
  const char *partitioner, *method; /* "zoltan:rcb", "RCB" */
  const char *schedule, *policy, *trace, *json;
  const char *part_sizes; /* --part-sizes LIST, or NULL: equal parts */
  double sizes[1024];     /* the part each rank aims at (nranks_; part_sizes.h) */
  char pmeta[4096];       /* the trace's app.part_sizes */
  int quiet, help;
  char args[4400]; /* the canonical size options */
} options;

static int rank_, nranks_;

/* "wave: what: why" on rank 0 (every rank calls it: they all see the same problem). */
static int fail(const char *what, const char *fmt, ...) {
  if (rank_ == 0) {
    char why[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    fprintf(stderr, "wave: %s: %s\n", what, why);
  }
  return 1;
}

static void usage(FILE *f) {
  fprintf(
      f,
      "usage: mpiexec -n P wave [--mesh NXxNYxNZ] [--block B] [--steps S] [--threshold T] [--pulse W]\n"
      "                         [--partitioner zoltan:rcb|rib|hsfc] [--schedule LIST | --policy SPEC]\n"
      "                         [--part-sizes LIST] [--trace FILE] [--json FILE] [--quiet]\n"
      "\n"
      "A 3-D multi-resolution-style time-domain (MRTD) wave code (seed 002, section 4): a Yee grid of\n"
      "NX x NY x NZ cells of B^3 points each, a Gaussian (Ricker) beam launched at x = 0 that crosses\n"
      "the box along x, and cells whose |E| exceeds T running a 2x sub-grid refinement (weight W,\n"
      "plain cells 1: --refined-weight), so the load travels with the front. Zoltan spreads the\n"
      "cells and moves them (Zoltan_Migrate) when the schedule or the policy says; faces go to the\n"
      "ranks that own the neighbouring cells every step.\n"
      "\n"
      "Size (recorded as the trace's app.args):\n"
      "  --mesh NXxNYxNZ   cells in x, y and z (default 30x20x20, the seed's; the front moves one\n"
      "                    cell in 2B steps, crossing the default box by step ~260)\n"
      "  --block B         Yee points per cell edge, 2..16 (default 4)\n"
      "  --steps S         time steps (default 300)\n"
      "  --threshold T     |E| above which a cell refines, > 0 (default 0.1; the pulse peaks near 1)\n"
      "  --pulse W         the source's width in steps, 1..1000 (default 6; it peaks at step 4W)\n"
      "Run:\n"
      "  --partitioner M   zoltan:rcb (default), zoltan:rib or zoltan:hsfc\n"
      "  --refined-weight W the weight Zoltan (and the trace's weight) gives an active cell, plain\n"
      "                    cells weighing 1 (default 8; the cost ratio on this machine is\n"
      "                    measured from a profile, apps/wave/README.md)\n"
      "  --part-sizes LIST the part each rank's share of the load aims at, a share per rank\n"
      "                    (\"2,1\"; Zoltan_LB_Set_Part_Sizes; default equal), recorded as the\n"
      "                    trace's app.part_sizes ('lbsim validate' passes the replay's)\n"
      "  --schedule LIST   repartition before these steps: \"20,65\" or \"@file\" (lbsim's steps:LIST\n"
      "                    spelling; steps count from 0, listed steps lie in 1..S-1)\n"
      "  --policy SPEC     or decide online with an lbsim policy: none, fixed:K, threshold:T,\n"
      "                    stop-at-rise, metabalancer, cost-benefit:H (adaptive and optimal need\n"
      "                    look-ahead: choose with lbsim, then run the schedule with --schedule)\n"
      "  --trace FILE      profile into FILE (liblbsprof: time_ns, its phases time_ns.H and\n"
      "                    time_ns.E (the two updates) and weight per cell, every step, and each\n"
      "                    cell's rank from every repartition on)\n"
      "  --json FILE       the run's summary as one line of JSON (\"-\": stdout, the report goes to\n"
      "                    stderr)\n"
      "  --quiet           no line per step\n"
      "  -h, --help        this text\n"
      "\n"
      "Output: a line per step (wall time, the largest rank's compute, imbalance, refined cells), the\n"
      "total from a barrier before step 0 to one after the last step, the field checksum (the same on\n"
      "any number of ranks and under any schedule) and the energy.\n"
      "\n"
      "Examples:\n"
      "  mpiexec -n 2 wave                                      the default run\n"
      "  mpiexec -n 2 wave --trace wave.lbt                     profile it\n"
      "  lbsim replay wave.lbt --grid examples/grids/homogeneous16.ini --policy fixed:20\n"
      "  mpiexec -n 2 wave --schedule 20,65 --json run.json     run a schedule lbsim chose\n"
      "  mpiexec -n 4 wave --mesh 24x16x16 --policy threshold:0.2 --partitioner zoltan:hsfc\n");
}

static int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *v) {
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (end == s || *end || errno || x < lo || x > hi) return -1;
  *v = x;
  return 0;
}

static int parse_args(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  o->nx = 30, o->ny = 20, o->nz = 20, o->b = 4, o->steps = 300, o->thr = 0.1, o->pulse = 6;
  o->rw = REFINED_WEIGHT;
  o->partitioner = "zoltan:rcb";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
    char name[64];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      o->help = 1;
      return 0;
    }
    if (!strcmp(a, "--quiet")) {
      o->quiet = 1;
      continue;
    }
    if (strncmp(a, "--", 2)) return fail(a, "not an option (see --help)");
    const char *eq = strchr(a, '=');
    snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
    if (eq)
      v = eq + 1;
    else if (i + 1 < argc)
      v = argv[++i];
    else
      return fail(name, "needs a value (see --help)");
    int64_t x;
    if (!strcmp(name, "--mesh")) {
      long long d[3];
      int used = 0;
      if (sscanf(v, "%lldx%lldx%lld%n", &d[0], &d[1], &d[2], &used) != 3 || v[used])
        return fail("--mesh", "'%s' is not NXxNYxNZ (e.g. 30x20x20)", v);
      for (int k = 0; k < 3; k++)
        if (d[k] < 1 || d[k] > 4096)
          return fail("--mesh",
                      "'%s': every size must be 1..4096 cells (a zero-sized grid has no cells)", v);
      o->nx = d[0], o->ny = d[1], o->nz = d[2];
    } else if (!strcmp(name, "--block")) {
      if (parse_i64(v, 2, 16, &x))
        return fail("--block", "'%s' is not a whole number of points in 2..16", v);
      o->b = (int)x;
    } else if (!strcmp(name, "--steps")) {
      if (parse_i64(v, 1, 100000000, &x))
        return fail("--steps", "'%s' is not a whole number of steps >= 1", v);
      o->steps = x;
    } else if (!strcmp(name, "--refined-weight")) {
      char *end;
      errno = 0;
      double d = strtod(v, &end);
      if (end == v || *end || errno || !isfinite(d) || d < 1 || d > 1000)
        return fail(name, "'%s' is not a weight in 1..1000 (plain cells weigh 1)", v);
      o->rw = d;
    } else if (!strcmp(name, "--threshold") || !strcmp(name, "--pulse")) {
      char *end;
      errno = 0;
      double d = strtod(v, &end);
      int pulse = !strcmp(name, "--pulse");
      if (end == v || *end || errno || !isfinite(d) || d <= 0 || (pulse && (d < 1 || d > 1000)))
        return fail(name,
                    pulse ? "'%s' is not a width in steps in 1..1000"
                          : "'%s' is not a field magnitude > 0",
                    v);
      if (pulse)
        o->pulse = d;
      else
        o->thr = d;
    } else if (!strcmp(name, "--partitioner")) {
      o->partitioner = v;
    } else if (!strcmp(name, "--part-sizes")) {
      o->part_sizes = v;
    } else if (!strcmp(name, "--schedule")) {
      o->schedule = v;
    } else if (!strcmp(name, "--policy")) {
      o->policy = v;
    } else if (!strcmp(name, "--trace")) {
      o->trace = v;
    } else if (!strcmp(name, "--json")) {
      o->json = v;
    } else {
      return fail(name, "unknown option (see --help)");
    }
  }
  static const char *methods[][2] = {
      {"zoltan:rcb", "RCB"}, {"zoltan:rib", "RIB"}, {"zoltan:hsfc", "HSFC"}};
  for (int k = 0; k < 3; k++)
    if (!strcmp(o->partitioner, methods[k][0])) o->method = methods[k][1];
  if (!o->method)
    return fail("--partitioner",
                "unknown partitioner '%s' (known: zoltan:rcb, zoltan:rib, zoltan:hsfc)",
                o->partitioner);
  if (o->schedule && o->policy) return fail("--schedule", "give --schedule or --policy, not both");
  if (o->schedule && !*o->schedule)
    return fail("--schedule", "an empty list (give steps, e.g. 20,65)");
  char why[128];
  if (nranks_ > (int)(sizeof o->sizes / sizeof *o->sizes))
    return fail("--part-sizes", "%d ranks: at most %d", nranks_,
                (int)(sizeof o->sizes / sizeof *o->sizes));
  if (app_parse_part_sizes(o->part_sizes, nranks_, o->sizes, o->pmeta, sizeof o->pmeta, why,
                           sizeof why))
    return fail("--part-sizes", "'%s': %s", o->part_sizes, why);
  o->E = o->nx * o->ny * o->nz;
  if (o->E > UINT32_MAX / 2)
    return fail("--mesh", "%lld cells are more than this code numbers", (long long)o->E);
  if (o->E < nranks_)
    return fail("--mesh", "%lld cells for %d ranks: more ranks than cells", (long long)o->E,
                nranks_);
  snprintf(
      o->args, sizeof o->args,
      "--mesh %lldx%lldx%lld --block %d --steps %lld --threshold %g --pulse %g --partitioner %s%s%s",
      (long long)o->nx, (long long)o->ny, (long long)o->nz, o->b, (long long)o->steps, o->thr,
      o->pulse, o->partitioner, o->part_sizes ? " --part-sizes " : "",
      o->part_sizes ? o->part_sizes : "");
  if (o->rw != REFINED_WEIGHT) { /* the default keeps the args of earlier traces */
    size_t at = strlen(o->args);
    snprintf(o->args + at, sizeof o->args - at, " --refined-weight %g", o->rw);
  }
  return 0;
}

/* ---------------------------------------------------------------- cells and fields */

/* A cell's fields and their update: workloads/lbs_wave.h (shared with the calibration kernel). */
typedef lbs_wave_geom geom;

typedef struct {
  uint32_t gid;
  int32_t lvl, lvl_next; /* work level of this step / of the next (1: refined) */
  int32_t pad;
  double err; /* the largest error indicator of its refinements so far */
  double *F;  /* 6 * comp */
} cell;

/* The refinement of an active cell: its block (halos included) prolonged onto a 2x grid, two
 * fine leapfrog substeps of half the time step (same Courant number) with the halos held, and
 * the fine E restricted (2x2x2 means) and compared with the coarse E^(n+1): the root of the
 * summed squared differences. Fine holds 6 components of the 2B grid. */
static double refine(const geom *g, const geom *gf, const double *F, double *Ff, double S) {
  int b = g->b, f = gf->b;
  for (int c = 0; c < 3; c++) { /* E: i in 0..f from coarse i/2 in 0..b */
    const double *src = F + c * g->comp;
    double *dst = Ff + c * gf->comp;
    for (int k = 0; k <= f; k++)
      for (int j = 0; j <= f; j++)
        for (int i = 0; i <= f; i++)
          dst[i + j * gf->sy + k * gf->sz] = src[i / 2 + (j / 2) * g->sy + (k / 2) * g->sz];
  }
  for (int c = 3; c < 6; c++) { /* H: i in -1..f-1 from coarse floor(i/2) in -1..b-1 */
    const double *src = F + c * g->comp + g->off;
    double *dst = Ff + c * gf->comp + gf->off;
    for (int k = -1; k < f; k++)
      for (int j = -1; j < f; j++)
        for (int i = -1; i < f; i++)
          dst[i + j * gf->sy + k * gf->sz] =
              src[(i + 2) / 2 - 1 + ((j + 2) / 2 - 1) * g->sy + ((k + 2) / 2 - 1) * g->sz];
  }
  for (int sub = 0; sub < 2; sub++) {
    lbs_wave_update_H(gf, Ff, S);
    lbs_wave_update_E(gf, Ff, S, NULL);
  }
  double d2 = 0;
  for (int c = 0; c < 3; c++) {
    const double *E = F + c * g->comp, *Ef = Ff + c * gf->comp;
    for (int k = 0; k < b; k++)
      for (int j = 0; j < b; j++)
        for (int i = 0; i < b; i++) {
          const double *q = Ef + 2 * i + 2 * j * gf->sy + 2 * k * gf->sz;
          double avg = 0.125 * (q[0] + q[1] + q[gf->sy] + q[gf->sy + 1] + q[gf->sz] +
                                q[gf->sz + 1] + q[gf->sy + gf->sz] + q[gf->sy + gf->sz + 1]);
          double d = avg - E[i + j * g->sy + k * g->sz];
          d2 += d * d;
        }
  }
  return sqrt(d2);
}

/* A face of a cell: the two components other than d of field set `set` (0: E, 3: H) on the
 * layer where coordinate d equals L, B^2 values each; get copies them to buf, put from it. */
static void face_io(const geom *g, double *F, int set, int d, int L, double *buf, int put) {
  int ca = d == 0 ? 1 : 0, cb = d == 2 ? 1 : 2;
  ptrdiff_t s[3] = {1, g->sy, g->sz};
  ptrdiff_t su = s[ca], sv = s[cb], base = (ptrdiff_t)L * s[d] + (set == 3 ? g->off : 0);
  for (int t = 0; t < 2; t++) {
    double *A = F + (set + (t ? cb : ca)) * g->comp + base;
    for (int v = 0; v < g->b; v++)
      for (int u = 0; u < g->b; u++) {
        double *x = A + u * su + v * sv;
        if (put)
          *x = *buf++;
        else
          *buf++ = *x;
      }
  }
}

/* The same face straight from a neighbour on this rank into the cell's halo: E (set 0) from
 * the first layer of the next cell along d, H (set 3) from the last layer of the previous one. */
static void face_pull(const geom *g, double *dst, const double *src, int set, int d) {
  int ca = d == 0 ? 1 : 0, cb = d == 2 ? 1 : 2;
  ptrdiff_t s[3] = {1, g->sy, g->sz};
  ptrdiff_t su = s[ca], sv = s[cb], off = set == 3 ? g->off : 0;
  ptrdiff_t from = (set == 3 ? g->b - 1 : 0) * s[d] + off, to = (set == 3 ? -1 : g->b) * s[d] + off;
  for (int t = 0; t < 2; t++) {
    ptrdiff_t c = (set + (t ? cb : ca)) * g->comp;
    const double *A = src + c + from;
    double *B = dst + c + to;
    for (int v = 0; v < g->b; v++)
      for (int u = 0; u < g->b; u++) B[u * su + v * sv] = A[u * su + v * sv];
  }
}

/* ---------------------------------------------------------------- the application's state */

typedef struct {
  int peer;
  int nes, ner, nhs, nhr; /* entries: local cell * 3 + direction */
  int *es, *er, *hs, *hr;
  double *bes, *ber, *bhs, *bhr;
} peerplan;

typedef struct {
  options o;
  geom g, gf;
  int64_t G[3]; /* Yee points per dimension */
  cell *c;
  int n, cap;
  int32_t *loc; /* gid -> local index or -1 */
  int *owner;   /* gid -> rank */
  double *fine; /* refinement scratch */
  /* halo plan */
  peerplan *pp;
  int npp;
  int *nb; /* per cell: the local index of its neighbour at +x, +y, +z (E halos), then at -x,
              -y, -z (H halos), when this rank owns it, else -1 */
  MPI_Request *req;
  int zerr; /* a callback failed */
} app;

static void cell_xyz(const options *o, int64_t gid, int64_t x[3]) {
  x[0] = gid % o->nx, x[1] = gid / o->nx % o->ny, x[2] = gid / (o->nx * o->ny);
}

/* The neighbour of gid one cell along direction d (sign +1/-1): periodic in y and z, or -1
 * beyond the walls at x = 0 and x = NX. */
static int64_t neighbour(const options *o, int64_t gid, int d, int sign) {
  int64_t x[3], n[3] = {o->nx, o->ny, o->nz};
  cell_xyz(o, gid, x);
  x[d] += sign;
  if (d == 0 && (x[d] < 0 || x[d] >= n[d])) return -1;
  x[d] = (x[d] + n[d]) % n[d];
  return x[0] + o->nx * (x[1] + o->ny * x[2]);
}

static int add_cell(app *a, uint32_t gid) {
  if (a->n == a->cap) {
    int cap = a->cap ? 2 * a->cap : 64;
    cell *c = realloc(a->c, (size_t)cap * sizeof *c);
    if (!c) return -1;
    a->c = c, a->cap = cap;
  }
  cell *c = &a->c[a->n];
  memset(c, 0, sizeof *c);
  c->gid = gid;
  if (!(c->F = calloc((size_t)(6 * a->g.comp), sizeof *c->F))) return -1;
  a->n++;
  return 0;
}

static int cmp_cell(const void *x, const void *y) {
  uint32_t a = ((const cell *)x)->gid, b = ((const cell *)y)->gid;
  return (a > b) - (a < b);
}

static void free_plan(app *a) {
  for (int k = 0; k < a->npp; k++) {
    peerplan *p = &a->pp[k];
    free(p->es), free(p->er), free(p->hs), free(p->hr);
    free(p->bes), free(p->ber), free(p->bhs), free(p->bhr);
  }
  free(a->pp), free(a->nb), free(a->req);
  a->pp = NULL, a->nb = NULL, a->req = NULL;
  a->npp = 0;
}

typedef struct {
  int peer;    /* index into the plan's peers */
  int64_t key; /* neighbour gid * 3 + d: both sides order a peer's entries by it */
  int entry;   /* local cell * 3 + d */
} keyed;

static int cmp_keyed(const void *x, const void *y) {
  const keyed *a = x, *b = y;
  if (a->peer != b->peer) return (a->peer > b->peer) - (a->peer < b->peer);
  return (a->key > b->key) - (a->key < b->key);
}

/* After a migration: the cells sorted by id, the id map, every cell's owner (all ranks) and the
 * halo plan. Returns 0, or -1 out of memory. */
static int settle(app *a) {
  const options *o = &a->o;
  qsort(a->c, (size_t)a->n, sizeof *a->c, cmp_cell);
  for (int64_t g = 0; g < o->E; g++) a->loc[g] = -1;
  for (int i = 0; i < a->n; i++) a->loc[a->c[i].gid] = i;
  int *counts = malloc((size_t)nranks_ * sizeof *counts),
      *displ = malloc((size_t)nranks_ * sizeof *displ);
  uint32_t *mine = malloc((size_t)(a->n ? a->n : 1) * sizeof *mine),
           *all = malloc((size_t)o->E * sizeof *all);
  int bad = !counts || !displ || !mine || !all;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (bad) return free(counts), free(displ), free(mine), free(all), -1;
  for (int i = 0; i < a->n; i++) mine[i] = a->c[i].gid;
  MPI_Allgather(&a->n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0, s = 0; r < nranks_; s += counts[r++]) displ[r] = s;
  MPI_Allgatherv(mine, a->n, MPI_UINT32_T, all, counts, displ, MPI_UINT32_T, MPI_COMM_WORLD);
  for (int r = 0; r < nranks_; r++)
    for (int k = 0; k < counts[r]; k++) a->owner[all[displ[r] + k]] = r;
  free(counts), free(displ), free(mine), free(all);

  free_plan(a);
  /* E halos: cell c needs the first layer of c + e_d (d = x, y, z) for its H update; H halos:
   * the last layer of c - e_d for its E update. Sends mirror them: the E face of n goes to the
   * owner of n - e_d, the H face of n to the owner of n + e_d. */
  int *pidx = malloc((size_t)nranks_ * sizeof *pidx);
  keyed *tmp[4] = {NULL, NULL, NULL, NULL};
  int ntmp[4];
  a->nb = malloc((size_t)(6 * a->n + 1) * sizeof *a->nb);
  bad = !pidx || !a->nb;
  for (int r = 0; pidx && r < nranks_; r++) pidx[r] = -1;
  /* peers first */
  for (int i = 0; !bad && i < a->n; i++)
    for (int d = 0; d < 3; d++)
      for (int sgn = -1; sgn <= 1; sgn += 2) {
        int64_t m = neighbour(o, a->c[i].gid, d, sgn);
        if (m < 0) continue;
        int q = a->owner[m];
        if (q != rank_ && pidx[q] < 0) pidx[q] = a->npp++;
      }
  if (!bad && a->npp) {
    a->pp = calloc((size_t)a->npp, sizeof *a->pp);
    a->req = malloc((size_t)(4 * a->npp) * sizeof *a->req);
    bad = !a->pp || !a->req;
  }
  for (int q = 0; !bad && q < nranks_; q++)
    if (pidx[q] >= 0) a->pp[pidx[q]].peer = q;
  for (int k = 0; !bad && k < 4; k++)
    bad = !(tmp[k] = malloc((size_t)(3 * a->n + 1) * sizeof *tmp[k]));
  memset(ntmp, 0, sizeof ntmp);
  for (int i = 0; !bad && i < a->n; i++) {
    int64_t gid = a->c[i].gid;
    for (int d = 0; d < 3; d++) {
      int64_t lo = neighbour(o, gid, d, -1), hi = neighbour(o, gid, d, +1);
      if (lo >= 0 && a->owner[lo] != rank_) { /* my E face to its owner; its H face to me */
        int q = pidx[a->owner[lo]];
        tmp[0][ntmp[0]++] = (keyed){q, gid * 3 + d, i * 3 + d};
        tmp[3][ntmp[3]++] = (keyed){q, lo * 3 + d, i * 3 + d};
      }
      if (hi >= 0 && a->owner[hi] != rank_) { /* its E face to me; my H face to its owner */
        int q = pidx[a->owner[hi]];
        tmp[1][ntmp[1]++] = (keyed){q, hi * 3 + d, i * 3 + d};
        tmp[2][ntmp[2]++] = (keyed){q, gid * 3 + d, i * 3 + d};
      }
    }
  }
  int per = 2 * a->g.b * a->g.b;
  for (int t = 0; t < 4 && !bad; t++) {
    qsort(tmp[t], (size_t)ntmp[t], sizeof *tmp[t], cmp_keyed);
    for (int e = 0, f; e < ntmp[t] && !bad; e = f) { /* one peer's run of entries */
      for (f = e; f < ntmp[t] && tmp[t][f].peer == tmp[t][e].peer; f++) {}
      peerplan *p = &a->pp[tmp[t][e].peer];
      int **list = t == 0 ? &p->es : t == 1 ? &p->er : t == 2 ? &p->hs : &p->hr;
      int *count = t == 0 ? &p->nes : t == 1 ? &p->ner : t == 2 ? &p->nhs : &p->nhr;
      double **buf = t == 0 ? &p->bes : t == 1 ? &p->ber : t == 2 ? &p->bhs : &p->bhr;
      *count = f - e;
      *list = malloc((size_t)(f - e) * sizeof **list);
      *buf = malloc((size_t)((f - e) * per) * sizeof **buf);
      if (!*list || !*buf)
        bad = 1;
      else
        for (int k = e; k < f; k++) (*list)[k - e] = tmp[t][k].entry;
    }
  }
  for (int i = 0; !bad && i < a->n; i++)
    for (int d = 0; d < 3; d++) {
      int64_t hi = neighbour(o, a->c[i].gid, d, +1), lo = neighbour(o, a->c[i].gid, d, -1);
      a->nb[6 * i + d] = hi >= 0 && a->owner[hi] == rank_ ? a->loc[hi] : -1;
      a->nb[6 * i + 3 + d] = lo >= 0 && a->owner[lo] == rank_ ? a->loc[lo] : -1;
    }
  for (int k = 0; k < 4; k++) free(tmp[k]);
  free(pidx);
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return bad ? -1 : 0;
}

/* Fills the halos from other ranks: set 0 (E faces, before the H update) or 3 (H faces, before
 * the E update). Each cell pulls the faces of its neighbours on this rank itself (pull_local),
 * as part of its own work. */
static void exchange(app *a, int set) {
  const geom *g = &a->g;
  int per = 2 * g->b * g->b, b = g->b, tag = set ? 2 : 1;
  int nreq = 0;
  for (int k = 0; k < a->npp; k++) {
    peerplan *p = &a->pp[k];
    int nr = set ? p->nhr : p->ner;
    if (nr)
      MPI_Irecv(set ? p->bhr : p->ber, nr * per, MPI_DOUBLE, p->peer, tag, MPI_COMM_WORLD,
                &a->req[nreq++]);
  }
  for (int k = 0; k < a->npp; k++) {
    peerplan *p = &a->pp[k];
    int ns = set ? p->nhs : p->nes, *list = set ? p->hs : p->es;
    double *buf = set ? p->bhs : p->bes;
    for (int e = 0; e < ns; e++)
      face_io(g, a->c[list[e] / 3].F, set, list[e] % 3, set ? b - 1 : 0, buf + (size_t)e * per, 0);
    if (ns) MPI_Isend(buf, ns * per, MPI_DOUBLE, p->peer, tag, MPI_COMM_WORLD, &a->req[nreq++]);
  }
  MPI_Waitall(nreq, a->req, MPI_STATUSES_IGNORE);
  for (int k = 0; k < a->npp; k++) {
    peerplan *p = &a->pp[k];
    int nr = set ? p->nhr : p->ner, *list = set ? p->hr : p->er;
    double *buf = set ? p->bhr : p->ber;
    for (int e = 0; e < nr; e++)
      face_io(g, a->c[list[e] / 3].F, set, list[e] % 3, set ? -1 : b, buf + (size_t)e * per, 1);
  }
}

static inline void pull_local(app *a, int i, int set) {
  const int *nb = a->nb + 6 * i + (set ? 3 : 0);
  for (int d = 0; d < 3; d++)
    if (nb[d] >= 0) face_pull(&a->g, a->c[i].F, a->c[nb[d]].F, set, d);
}

/* ---------------------------------------------------------------- Zoltan */

/* What a cell takes in migration: gid, levels, error indicator, the interior fields. */
typedef struct {
  uint32_t gid;
  int32_t lvl, lvl_next, pad;
  double err;
} packed_hdr;

static size_t cell_bytes(const geom *g) {
  return sizeof(packed_hdr) + (size_t)(6 * g->b * g->b * g->b) * sizeof(double);
}

static int z_num_obj(void *d, int *ierr) {
  *ierr = ZOLTAN_OK;
  return ((app *)d)->n;
}

static void z_obj_list(void *d, int ng, int nl, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wdim,
                       float *w, int *ierr) {
  app *a = d;
  (void)ng, (void)nl;
  for (int i = 0; i < a->n; i++) {
    gids[i] = a->c[i].gid;
    lids[i] = (ZOLTAN_ID_TYPE)i;
    /* the weight measured at the last step: its work level */
    if (wdim) w[i] = a->c[i].lvl ? (float)a->o.rw : 1.0f;
  }
  *ierr = ZOLTAN_OK;
}

static int z_num_geom(void *d, int *ierr) {
  (void)d;
  *ierr = ZOLTAN_OK;
  return 3;
}

static void z_geom_multi(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                         int dim, double *geom, int *ierr) {
  app *a = d;
  (void)ng, (void)nl, (void)lids, (void)dim;
  for (int i = 0; i < n; i++) {
    int64_t x[3];
    cell_xyz(&a->o, gids[i], x);
    for (int k = 0; k < 3; k++) geom[3 * i + k] = (double)x[k] + 0.5;
  }
  *ierr = ZOLTAN_OK;
}

static int z_obj_size(void *d, int ng, int nl, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int *ierr) {
  (void)ng, (void)nl, (void)gid, (void)lid;
  *ierr = ZOLTAN_OK;
  return (int)cell_bytes(&((app *)d)->g);
}

static void z_pack(void *d, int ng, int nl, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int dest,
                   int size, char *buf, int *ierr) {
  app *a = d;
  (void)ng, (void)nl, (void)dest;
  const geom *g = &a->g;
  if (*lid >= (ZOLTAN_ID_TYPE)a->n || a->c[*lid].gid != *gid || (size_t)size < cell_bytes(g)) {
    *ierr = ZOLTAN_FATAL;
    return;
  }
  const cell *c = &a->c[*lid];
  packed_hdr h = {c->gid, c->lvl, c->lvl_next, 0, c->err};
  memcpy(buf, &h, sizeof h);
  char *at = buf + sizeof h;
  for (int f = 0; f < 6; f++) {
    const double *A = c->F + f * g->comp + (f >= 3 ? g->off : 0);
    for (int k = 0; k < g->b; k++)
      for (int j = 0; j < g->b; j++, at += (size_t)g->b * sizeof(double))
        memcpy(at, A + j * g->sy + k * g->sz, (size_t)g->b * sizeof(double));
  }
  *ierr = ZOLTAN_OK;
}

/* Exported cells leave before the imported ones are unpacked. */
static void z_mid(void *d, int ng, int nl, int nimp, ZOLTAN_ID_PTR igid, ZOLTAN_ID_PTR ilid,
                  int *iproc, int *ipart, int nexp, ZOLTAN_ID_PTR egid, ZOLTAN_ID_PTR elid,
                  int *eproc, int *epart, int *ierr) {
  app *a = d;
  (void)ng, (void)nl, (void)nimp, (void)igid, (void)ilid, (void)iproc, (void)ipart, (void)egid,
      (void)epart;
  for (int k = 0; k < nexp; k++) {
    if (eproc[k] == rank_) continue; /* an export to this rank itself moves nothing */
    cell *c = &a->c[elid[k]];
    free(c->F);
    c->F = NULL;
    a->loc[c->gid] = -1;
  }
  int m = 0;
  for (int i = 0; i < a->n; i++)
    if (a->c[i].F) a->c[m++] = a->c[i];
  a->n = m;
  *ierr = ZOLTAN_OK;
}

static void z_unpack(void *d, int ng, ZOLTAN_ID_PTR gid, int size, char *buf, int *ierr) {
  app *a = d;
  (void)ng;
  const geom *g = &a->g;
  packed_hdr h;
  memcpy(&h, buf, sizeof h);
  if ((size_t)size < cell_bytes(g) || h.gid != *gid || (int64_t)h.gid >= a->o.E ||
      a->loc[h.gid] >= 0 || add_cell(a, h.gid)) {
    *ierr = ZOLTAN_FATAL;
    a->zerr = 1;
    return;
  }
  cell *c = &a->c[a->n - 1];
  c->lvl = h.lvl, c->lvl_next = h.lvl_next, c->err = h.err;
  a->loc[h.gid] = a->n - 1;
  const char *at = buf + sizeof h;
  for (int f = 0; f < 6; f++) {
    double *A = c->F + f * g->comp + (f >= 3 ? g->off : 0);
    for (int k = 0; k < g->b; k++)
      for (int j = 0; j < g->b; j++, at += (size_t)g->b * sizeof(double))
        memcpy(A + j * g->sy + k * g->sz, at, (size_t)g->b * sizeof(double));
  }
  *ierr = ZOLTAN_OK;
}

static struct Zoltan_Struct *zoltan_setup(app *a) {
  struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
  if (!zz) return NULL;
  const char *params[][2] = {
      {"DEBUG_LEVEL", "0"},     {"LB_METHOD", a->o.method}, {"NUM_GID_ENTRIES", "1"},
      {"NUM_LID_ENTRIES", "1"}, {"OBJ_WEIGHT_DIM", "1"},    {"RETURN_LISTS", "ALL"},
      {"KEEP_CUTS", "0"},       {"IMBALANCE_TOL", "1.05"},  {"AUTO_MIGRATE", "FALSE"}};
  int ok = 1;
  for (size_t i = 0; i < sizeof params / sizeof *params; i++)
    ok &= Zoltan_Set_Param(zz, params[i][0], params[i][1]) == ZOLTAN_OK;
  Zoltan_Set_Num_Obj_Fn(zz, z_num_obj, a);
  Zoltan_Set_Obj_List_Fn(zz, z_obj_list, a);
  Zoltan_Set_Num_Geom_Fn(zz, z_num_geom, a);
  Zoltan_Set_Geom_Multi_Fn(zz, z_geom_multi, a);
  Zoltan_Set_Obj_Size_Fn(zz, z_obj_size, a);
  Zoltan_Set_Pack_Obj_Fn(zz, z_pack, a);
  Zoltan_Set_Unpack_Obj_Fn(zz, z_unpack, a);
  Zoltan_Set_Mid_Migrate_PP_Fn(zz, z_mid, a);
  if (ok && a->o.part_sizes) { /* rank 0 gives every part's size; the others none */
    int n = rank_ == 0 ? nranks_ : 0, *ids = calloc((size_t)nranks_, sizeof *ids),
        *widx = calloc((size_t)nranks_, sizeof *widx);
    float *sz = malloc((size_t)nranks_ * sizeof *sz);
    for (int r = 0; ids && sz && r < nranks_; r++) ids[r] = r, sz[r] = (float)a->o.sizes[r];
    ok = ids && widx && sz && Zoltan_LB_Set_Part_Sizes(zz, 1, n, ids, widx, sz) == ZOLTAN_OK;
    free(ids), free(widx), free(sz);
  }
  if (!ok) Zoltan_Destroy(&zz);
  return zz;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Repartitions with the cells' current weights and migrates: partition and migration seconds
 * (the largest rank's; this rank's own in mine[2], for the profiler's events), cells moved (all
 * ranks). 0, or -1 with a message printed. */
static int repartition(app *a, struct Zoltan_Struct *zz, double *part_s, double *mig_s,
                       double mine[2], int64_t *moved) {
  int changes, ngid, nlid, nimp, nexp, *iproc, *ipart, *eproc, *epart;
  ZOLTAN_ID_PTR igid, ilid, egid, elid;
  double t0 = now_s();
  Zoltan_Srand(123456789u, NULL);
  int rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &igid, &ilid, &iproc, &ipart,
                               &nexp, &egid, &elid, &eproc, &epart);
  int bad = rc != ZOLTAN_OK;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (bad) return fail("--partitioner", "Zoltan_LB_Partition (%s) failed", a->o.partitioner), -1;
  double t1 = now_s();
  /* only what changes rank moves: drop exports and imports that name this rank */
  int ke = 0, ki = 0;
  for (int k = 0; k < nexp; k++)
    if (eproc[k] != rank_)
      egid[ke] = egid[k], elid[ke] = elid[k], eproc[ke] = eproc[k], epart[ke] = epart[k], ke++;
  for (int k = 0; k < nimp; k++)
    if (iproc[k] != rank_)
      igid[ki] = igid[k], ilid[ki] = ilid[k], iproc[ki] = iproc[k], ipart[ki] = ipart[k], ki++;
  a->zerr = 0;
  rc = Zoltan_Migrate(zz, ki, igid, ilid, iproc, ipart, ke, egid, elid, eproc, epart);
  Zoltan_LB_Free_Part(&igid, &ilid, &iproc, &ipart);
  Zoltan_LB_Free_Part(&egid, &elid, &eproc, &epart);
  bad = rc != ZOLTAN_OK || a->zerr;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (bad) return fail("migration", "Zoltan_Migrate failed"), -1;
  if (settle(a)) return fail("migration", "out of memory for %d cells", a->n), -1;
  double t[2] = {t1 - t0, now_s() - t1};
  mine[0] = t[0], mine[1] = t[1];
  MPI_Allreduce(MPI_IN_PLACE, t, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  int64_t mv = ke;
  MPI_Allreduce(MPI_IN_PLACE, &mv, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  *part_s = t[0], *mig_s = t[1], *moved = mv;
  return 0;
}

/* After a migration: the rank's cells, by global id in local order, to the profiler (collective).
 * 0, or -1 with a message printed. */
static int remap_profile(const app *a, lbsprof *prof) {
  int64_t *gid = malloc((size_t)(a->n + 1) * sizeof *gid);
  for (int i = 0; gid && i < a->n; i++) gid[i] = a->c[i].gid;
  int rc = gid ? lbsprof_remap(prof, a->n, gid) : lbsprof_remap(prof, -1, NULL);
  free(gid);
  if (rc) return fail("--trace", "%s: %s", a->o.trace, lbsprof_errmsg()), -1;
  return 0;
}

/* ---------------------------------------------------------------- the run */

/* An order-free hash of every cell's state (its id, levels, indicator and interior fields):
 * the sum over cells of a 64-bit mix of each cell's bytes, the same however cells are spread. */
static uint64_t mix64(uint64_t x) {
  x ^= x >> 30, x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27, x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static uint64_t cell_hash(const geom *g, const cell *c) {
  uint64_t h = mix64(c->gid + 0x9e3779b97f4a7c15ull);
  uint64_t w;
  h = mix64(h ^ (uint64_t)(uint32_t)c->lvl_next);
  memcpy(&w, &c->err, sizeof w);
  h = mix64(h ^ w);
  for (int f = 0; f < 6; f++) {
    const double *A = c->F + f * g->comp + (f >= 3 ? g->off : 0);
    for (int k = 0; k < g->b; k++)
      for (int j = 0; j < g->b; j++)
        for (int i = 0; i < g->b; i++) {
          memcpy(&w, &A[i + j * g->sy + k * g->sz], sizeof w);
          h = mix64(h ^ w);
        }
  }
  return h;
}

/* The source on a cell of the plane x = 0: src times the beam's transverse Gaussian profile,
 * of width a quarter of the smaller cross-section, centred on the box's axis. */
static const double *source_plane(const app *a, int64_t gid, double src, double *out) {
  int64_t x[3];
  int b = a->g.b;
  cell_xyz(&a->o, gid, x);
  double w = 0.25 * (double)(a->G[1] < a->G[2] ? a->G[1] : a->G[2]), py[16], pz[16];
  for (int t = 0; t < b; t++) {
    double dy = ((double)(x[1] * b + t) - 0.5 * (double)a->G[1]) / w,
           dz = ((double)(x[2] * b + t) - 0.5 * (double)a->G[2]) / w;
    py[t] = exp(-dy * dy), pz[t] = exp(-dz * dz);
  }
  for (int k = 0; k < b; k++)
    for (int j = 0; j < b; j++) out[j + b * k] = src * py[j] * pz[k];
  return out;
}

typedef struct {
  double compute_ns, wall_ns, energy, refined;
} stepinfo;

static int json_out(FILE *f, const app *a, double total, const double *step_s, const int64_t *reps,
                    int nrep, double part_s, double mig_s, int profiled, uint64_t hash,
                    double energy, double drift, const double *energies, int64_t arrival,
                    double expected, double peak, double err_max, const int *owner0, int64_t moved,
                    const double cpu[2], const double *imb, const double *rank_compute) {
  const options *o = &a->o;
  fprintf(
      f,
      "{\"app\":\"wave\",\"ranks\":%d,\"steps\":%lld,\"elements\":%lld,\"total_s\":%.6f,\"step_s\":[",
      nranks_, (long long)o->steps, (long long)o->E, total);
  for (int64_t s = 0; s < o->steps; s++) fprintf(f, "%s%.6f", s ? "," : "", step_s[s]);
  fprintf(f, "],\"repartitions\":[");
  for (int k = 0; k < nrep; k++) fprintf(f, "%s%lld", k ? "," : "", (long long)reps[k]);
  fprintf(f, "],\"partition_s\":%.6f,\"migration_s\":%.6f,\"profiled\":%s,\"args\":\"%s\"", part_s,
          mig_s, profiled ? "true" : "false", o->args);
  /* the application's own results, apart from the contract's keys */
  fprintf(f,
          ",\"wave\":{\"partitioner\":\"%s\",\"checksum\":\"%016" PRIx64
          "\",\"energy\":%.17g,\"energy_drift\":%.3g,"
          "\"moved\":%lld,",
          o->partitioner, hash, energy, drift, (long long)moved);
  fprintf(
      f,
      "\"probe_peak_step\":%lld,\"probe_expected_step\":%.2f,\"probe_peak\":%.6g,\"error_indicator_max\":%.6g,",
      (long long)arrival, expected, peak, err_max);
  fprintf(f, "\"cpu_s\":%.3f,\"helpers_cpu_s\":%.3f,\"energy_per_step\":[", cpu[0], cpu[1]);
  for (int64_t s = 0; s < o->steps; s++) fprintf(f, "%s%.17g", s ? "," : "", energies[s]);
  /* per step: the compute imbalance (max - mean) / max over ranks, as lbsim's replay defines it,
   * and each rank's compute seconds (the elements' updates, without the halo waits) */
  fprintf(f, "],\"imbalance\":[");
  for (int64_t s = 0; s < o->steps; s++) fprintf(f, "%s%.6f", s ? "," : "", imb[s]);
  fprintf(f, "],\"rank_compute_s\":[");
  for (int64_t s = 0; s < o->steps; s++) {
    fprintf(f, "%s[", s ? "," : "");
    for (int r = 0; r < nranks_; r++)
      fprintf(f, "%s%.9f", r ? "," : "", rank_compute[s * nranks_ + r]);
    fprintf(f, "]");
  }
  fprintf(f, "],\"initial_owner\":[");
  for (int64_t g = 0; g < o->E; g++) fprintf(f, "%s%d", g ? "," : "", owner0[g]);
  fprintf(f, "]}}\n");
  return fflush(f) || ferror(f);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks_);
  app A, *a = &A;
  memset(a, 0, sizeof A);
  options *o = &a->o;
  int rc = parse_args(argc, argv, o);
  if (rc || o->help) {
    if (o->help && rank_ == 0) usage(stdout);
    MPI_Finalize();
    return rc ? 2 : 0;
  }
  const int P = nranks_;
  a->g = lbs_wave_geom_of(o->b), a->gf = lbs_wave_geom_of(2 * o->b);
  a->G[0] = o->nx * o->b, a->G[1] = o->ny * o->b, a->G[2] = o->nz * o->b;
  FILE *rep = stdout; /* the human-readable report */
  FILE *jf = NULL;

  /* the policy: a schedule, an online policy, or none; a probe instance decides step 0 with
   * no navigation, so that look-ahead policies and schedules out of range are refused now */
  lbs_policy *pol = NULL;
  const char *asked = o->schedule ? "--schedule" : "--policy";
  char spec[4200];
  if (o->schedule)
    snprintf(spec, sizeof spec, "steps:%s", o->schedule);
  else
    snprintf(spec, sizeof spec, "%s", o->policy ? o->policy : "none");
  {
    lbs_policy *probe = NULL;
    lbs_err e = lbs_policy_create(spec, &probe);
    if (!e) {
      int64_t zero[1] = {0}, *loads = calloc((size_t)P, sizeof *loads);
      double zerod[1] = {0};
      lbs_loadview v = {.steps = o->steps,
                        .procs = P,
                        .load_ns = loads,
                        .step_ns = zero,
                        .past_imbalance = zerod,
                        .past_excess_ns = zero};
      int r;
      e = loads ? lbs_policy_decide(probe, &v, &r) : LBS_NOMEM;
      free(loads);
      if (e && o->policy)
        lbs_fail(
            e,
            "%s (a policy that needs look-ahead runs in lbsim: choose a schedule there, e.g. `lbsim replay "
            "TRACE --policy %s --json`, and give its repartition steps to --schedule)",
            lbs_errmsg(), o->policy);
    }
    lbs_policy_destroy(&probe);
    if (e) {
      fail(asked, "%s", lbs_errmsg());
      MPI_Finalize();
      return 2;
    }
    lbs_policy_create(spec, &pol);
  }
  if (o->json) {
    int bad = 0;
    char why[512] = "";
    if (!strcmp(o->json, "-")) {
      jf = stdout, rep = stderr;
    } else if (rank_ == 0 && !(jf = fopen(o->json, "w"))) {
      bad = 1;
      snprintf(why, sizeof why, "%s", strerror(errno));
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(why, sizeof why, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (bad) {
      fail("--json", "%s: %s", o->json, why);
      lbs_policy_destroy(&pol);
      MPI_Finalize();
      return 1;
    }
  }

  /* set-up: a block of ids per rank, then Zoltan's partition with unit weights (not timed) */
  a->loc = malloc((size_t)o->E * sizeof *a->loc);
  a->owner = malloc((size_t)o->E * sizeof *a->owner);
  a->fine = malloc((size_t)(6 * a->gf.comp) * sizeof *a->fine);
  int bad = !a->loc || !a->owner || !a->fine;
  int64_t g0 = o->E * rank_ / P, g1 = o->E * (rank_ + 1) / P;
  for (int64_t g = g0; !bad && g < g1; g++) bad = add_cell(a, (uint32_t)g) != 0;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (bad || settle(a)) {
    fail("--mesh", "out of memory for %lld cells of %d^3 points", (long long)o->E, o->b);
    MPI_Finalize();
    return 1;
  }
  float zver;
  if (Zoltan_Initialize(argc, argv, &zver) != ZOLTAN_OK) {
    fail("--partitioner", "Zoltan_Initialize failed");
    MPI_Finalize();
    return 1;
  }
  struct Zoltan_Struct *zz = zoltan_setup(a);
  bad = !zz;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (bad) {
    fail("--partitioner", "Zoltan rejected the parameters of %s", o->partitioner);
    MPI_Finalize();
    return 1;
  }
  double init_part, init_mig;
  int64_t moved_total = 0, moved;
  double init_mine[2];
  if (repartition(a, zz, &init_part, &init_mig, init_mine, &moved)) {
    MPI_Finalize();
    return 1;
  }
  int *owner0 = malloc((size_t)o->E * sizeof *owner0);
  if (owner0) memcpy(owner0, a->owner, (size_t)o->E * sizeof *owner0);

  /* the profiler: this rank's cells as they are now (remapped after each migration) */
  lbsprof *prof = NULL;
  int wm = -1, ev_part = -1, ev_mig = -1, ph_h = -1, ph_e = -1;
  if (o->trace) {
    lbsprof_opts po;
    lbsprof_opts_default(&po);
    po.trace_path = o->trace;
    char num[32];
    int e = lbsprof_init(MPI_COMM_WORLD, &po, &prof);
    if (!e && (wm = lbsprof_value_metric(prof, "weight", "work")) < 0) e = -wm;
    /* the application's own costs at each repartition (the names the replay knows) */
    if (!e && (ev_part = lbsprof_event_register(prof, LBSPROF_EVENT_PARTITION)) < 0) e = -ev_part;
    if (!e && (ev_mig = lbsprof_event_register(prof, LBSPROF_EVENT_MIGRATION)) < 0) e = -ev_mig;
    /* the step's two updates, H then E with an exchange between them: time_ns.H and time_ns.E
     * (when time_ns is measured: LBSPROF_METRICS may leave it out) */
    if (!e && lbsprof_metric_id(prof, "time_ns") >= 0) {
      if ((ph_h = lbsprof_phase_register(prof, "H")) < 0) e = -ph_h;
      if (!e && (ph_e = lbsprof_phase_register(prof, "E")) < 0) e = -ph_e;
    }
    if (!e) e = lbsprof_meta(prof, "name", "wave");
    if (!e) e = lbsprof_meta(prof, "args", o->args);
    /* what the replay should do as this code does: its partitioner, given the cells' weights */
    if (!e) e = lbsprof_meta(prof, "partitioner", o->partitioner);
    if (!e) e = lbsprof_meta(prof, "part_sizes", o->pmeta);
    if (!e) e = lbsprof_meta(prof, "partition_metric", "weight");
    snprintf(num, sizeof num, "%zu", cell_bytes(&a->g));
    if (!e) e = lbsprof_meta(prof, "bytes_per_elem", num);
    snprintf(num, sizeof num, "%d", 2 * 2 * o->b * o->b * (int)sizeof(double));
    if (!e) e = lbsprof_meta(prof, "bytes_per_edge", num);
    int64_t *gid = malloc((size_t)(a->n + 1) * sizeof *gid),
            *xadj = malloc((size_t)(a->n + 1) * sizeof *xadj);
    int64_t *adj = malloc((size_t)(6 * a->n + 1) * sizeof *adj);
    double *xyz = malloc((size_t)(3 * a->n + 1) * sizeof *xyz);
    int mem = !gid || !xadj || !adj || !xyz, anymem;
    MPI_Allreduce(&mem, &anymem, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anymem) e = lbs_fail(LBS_NOMEM, "the mesh description");
    int agreed = e; /* lbsprof_init agrees on its own; the rest is the same on every rank */
    MPI_Allreduce(MPI_IN_PLACE, &agreed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!agreed) {
      xadj[0] = 0;
      for (int i = 0; i < a->n; i++) {
        int64_t x[3];
        gid[i] = a->c[i].gid;
        cell_xyz(o, gid[i], x);
        for (int k = 0; k < 3; k++) xyz[3 * i + k] = (double)x[k] + 0.5;
        int64_t deg = 0;
        for (int d = 0; d < 3; d++)
          for (int sgn = -1; sgn <= 1; sgn += 2) {
            int64_t m = neighbour(o, gid[i], d, sgn);
            int dup =
                m < 0 || m == gid[i]; /* no self loops or repeats (periodic, 1 or 2 cells across) */
            for (int64_t k = 0; k < deg && !dup; k++) dup = adj[xadj[i] + k] == m;
            if (!dup) adj[xadj[i] + deg++] = m;
          }
        xadj[i + 1] = xadj[i] + deg;
      }
      e = lbsprof_mesh_elements(prof, a->n, gid, 3, xyz, xadj, adj);
    }
    free(gid), free(xadj), free(adj), free(xyz);
    if (e || agreed) {
      fail("--trace", "%s: %s", o->trace, lbsprof_errmsg());
      if (prof) lbsprof_finalize(&prof);
      MPI_Finalize();
      return 1;
    }
  }

  const int64_t S = o->steps;
  const double t0 = SRC_CUT * o->pulse; /* the source's peak: it starts at ~1e-6 of it */
  double *step_s = calloc((size_t)S, sizeof *step_s), *imb = calloc((size_t)S, sizeof *imb);
  double *energies = calloc((size_t)S, sizeof *energies), *probe = calloc((size_t)S, sizeof *probe);
  int64_t *step_ns = calloc((size_t)S, sizeof *step_ns),
          *excess = calloc((size_t)S, sizeof *excess);
  int64_t *reps = calloc((size_t)S, sizeof *reps), *load = calloc((size_t)P, sizeof *load);
  stepinfo *info = calloc((size_t)P, sizeof *info);
  /* each rank's compute at each step (S x P): the measured imbalance a replay is checked against */
  double *rank_compute = calloc((size_t)(S * P), sizeof *rank_compute);
  bad = !rank_compute || !step_s || !imb || !energies || !probe || !step_ns || !excess || !reps ||
        !load || !info || !owner0 || !pol;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (bad) {
    fail("--steps", "out of memory for %lld steps", (long long)S);
    MPI_Finalize();
    return 1;
  }
  /* the probe: Ez at 3/4 of the box along x, on its axis */
  int64_t pp[3] = {3 * a->G[0] / 4, a->G[1] / 2, a->G[2] / 2};
  int64_t probe_gid = pp[0] / o->b + o->nx * (pp[1] / o->b + o->ny * (pp[2] / o->b));
  ptrdiff_t probe_at =
      2 * a->g.comp + pp[0] % o->b + (pp[1] % o->b) * a->g.sy + (pp[2] % o->b) * a->g.sz;
  int nrep = 0;
  double part_s = 0, mig_s = 0, last_rep_ns = 0, est_rep_ns = 1e9 * (init_part + init_mig);
  int64_t last_rep_step = -1;
  double srcyz[16 * 16];
  if (rank_ == 0)
    fprintf(
        rep,
        "wave: %lld x %lld x %lld cells of %d^3 points (%lld x %lld x %lld), %lld steps, %d ranks, %s%s%s\n",
        (long long)o->nx, (long long)o->ny, (long long)o->nz, o->b, (long long)a->G[0],
        (long long)a->G[1], (long long)a->G[2], (long long)S, P, o->partitioner,
        o->trace ? ", profiled into " : "", o->trace ? o->trace : "");

  MPI_Barrier(MPI_COMM_WORLD);
  const double T0 = now_s();
  lbs_err perr = LBS_OK;
  int reported = 0;
  for (int64_t s = 0; s < S; s++) {
    double ts = now_s();
    /* the decision, from what every rank knows of the last step */
    int repart = 0;
    {
      int64_t since = last_rep_step < 0 ? s : s - last_rep_step;
      lbs_loadview v = {.step = s,
                        .steps = S,
                        .since = since,
                        .procs = P,
                        .load_ns = load,
                        .imbalance = s ? imb[s - 1] : 0,
                        .step_ns = step_ns,
                        .past_imbalance = imb,
                        .past_excess_ns = excess,
                        .last_repart_ns = (int64_t)last_rep_ns,
                        .est_repart_ns = (int64_t)(last_rep_ns > 0 ? last_rep_ns : est_rep_ns)};
      perr = lbs_policy_decide(pol, &v, &repart);
      int any = perr != LBS_OK;
      MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      if (any) {
        if (!perr) perr = lbs_fail(LBS_INVAL, "failed on another rank");
        break;
      }
    }
    if (repart) {
      double ps, ms, mine[2];
      if (repartition(a, zz, &ps, &ms, mine, &moved)) { /* said why already */
        perr = LBS_INVAL;
        reported = 1;
        break;
      }
      /* this rank's own seconds, outside the profiler's remap, as the application's costs */
      if (prof && (lbsprof_event_add(prof, ev_part, mine[0]) ||
                   lbsprof_event_add(prof, ev_mig, mine[1]) || remap_profile(a, prof))) {
        perr = LBS_INVAL;
        reported = 1;
        break;
      }
      part_s += ps, mig_s += ms, moved_total += moved;
      last_rep_ns = 1e9 * (ps + ms), last_rep_step = s;
      reps[nrep++] = s;
    }
    for (int i = 0; i < a->n; i++) a->c[i].lvl = a->c[i].lvl_next;
    /* H from E: the E faces of the neighbours first */
    double compute = 0, w = 0, refined = 0;
    exchange(a, 0);
    if (prof) lbsprof_phase(prof, ph_h);
    double tc = now_s();
    for (int i = 0; i < a->n; i++) {
      if (prof) lbsprof_elem_begin(prof, i);
      pull_local(a, i, 0);
      w += lbs_wave_update_H(&a->g, a->c[i].F, COURANT);
      if (prof) lbsprof_elem_end(prof, i);
    }
    compute += now_s() - tc;
    /* E from H, the source, the refinement of active cells, the next step's levels */
    exchange(a, 3);
    double arg = ((double)(s + 1) - t0) / o->pulse;
    /* a Ricker wavelet (no net charge is left behind) */
    double src = fabs(arg) < SRC_CUT ? SRC_AMP * (1 - 2 * arg * arg) * exp(-arg * arg) : 0;
    if (prof) lbsprof_phase(prof, ph_e);
    tc = now_s();
    for (int i = 0; i < a->n; i++) {
      cell *c = &a->c[i];
      if (prof) {
        lbsprof_set_value(prof, wm, i, c->lvl ? a->o.rw : 1.0);
        lbsprof_elem_begin(prof, i);
      }
      pull_local(a, i, 3);
      double m = lbs_wave_update_E(
          &a->g, c->F, COURANT,
          src != 0 && c->gid % o->nx == 0 ? source_plane(a, c->gid, src, srcyz) : NULL);
      if (c->lvl) {
        double err = refine(&a->g, &a->gf, c->F, a->fine, COURANT);
        c->err = err > c->err ? err : c->err;
        refined++;
      }
      c->lvl_next = m > o->thr;
      if (prof) lbsprof_elem_end(prof, i);
    }
    compute += now_s() - tc;
    if (a->loc[probe_gid] >= 0) probe[s] = a->c[a->loc[probe_gid]].F[probe_at];
    if (prof) lbsprof_step_end(prof);
    stepinfo mine = {1e9 * compute, 1e9 * (now_s() - ts), w, refined};
    MPI_Allgather(&mine, 4, MPI_DOUBLE, info, 4, MPI_DOUBLE, MPI_COMM_WORLD);
    double lmax = 0, lsum = 0, wmax = 0, wsum = 0, nref = 0;
    for (int r = 0; r < P; r++) {
      load[r] = (int64_t)info[r].compute_ns;
      rank_compute[s * P + r] = 1e-9 * info[r].compute_ns;
      lmax = info[r].compute_ns > lmax ? info[r].compute_ns : lmax;
      lsum += info[r].compute_ns;
      wmax = info[r].wall_ns > wmax ? info[r].wall_ns : wmax;
      wsum += info[r].energy;
      nref += info[r].refined;
    }
    imb[s] = lmax > 0 ? (lmax - lsum / P) / lmax : 0;
    excess[s] = (int64_t)llround(lmax - lsum / P);
    step_ns[s] = (int64_t)wmax;
    step_s[s] = 1e-9 * wmax;
    energies[s] = wsum;
    if (rank_ == 0 && !o->quiet)
      fprintf(rep, "step %4lld  %9.6f s  compute max %9.6f s  imbalance %.3f  refined %6.0f%s\n",
              (long long)s, step_s[s], 1e-9 * lmax, imb[s], nref,
              repart ? "  (repartitioned)" : "");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double total = now_s() - T0;
  int prc = prof ? lbsprof_finalize(&prof) : 0;
  if (perr) {
    if (!reported) fail(asked, "%s", lbs_errmsg());
    MPI_Finalize();
    return 1;
  }

  /* results: the order-free checksum, the last energy, the probe's peak, the largest indicator */
  uint64_t hash = 0;
  double err_max = 0;
  for (int i = 0; i < a->n; i++) {
    hash += cell_hash(&a->g, &a->c[i]);
    err_max = a->c[i].err > err_max ? a->c[i].err : err_max;
  }
  MPI_Allreduce(MPI_IN_PLACE, &hash, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &err_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, probe, (int)S, MPI_DOUBLE, MPI_SUM,
                MPI_COMM_WORLD); /* one rank's value per step */
  /* processor time, apart from the wall clock that other jobs on the machine stretch: the ranks'
   * own, and their children's (the profiler's agents and collector, waited for by now) */
  double cpu[2] = {0, 0};
  {
    struct rusage ru;
    if (!getrusage(RUSAGE_SELF, &ru))
      cpu[0] = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
               1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    if (!getrusage(RUSAGE_CHILDREN, &ru))
      cpu[1] = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
               1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    MPI_Allreduce(MPI_IN_PLACE, cpu, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  /* the first passage: the largest |Ez| before the reflection from x = G can come back */
  double expected = t0 + (double)pp[0] / COURANT - 1, peak = 0;
  int64_t arrival = -1,
          window = (int64_t)(t0 + (double)(2 * a->G[0] - pp[0]) / COURANT - 2 * o->pulse);
  for (int64_t s = 0; s < S && s < window; s++)
    if (fabs(probe[s]) > peak) peak = fabs(probe[s]), arrival = s;
  /* energy after the source: W is conserved from the first step whose E saw no injection */
  int64_t s_ref = (int64_t)ceil(t0 + SRC_CUT * o->pulse) + 1;
  double drift = -1;
  for (int64_t s = s_ref; s < S; s++) {
    double d = fabs(energies[s] - energies[s_ref]) / energies[s_ref];
    drift = d > drift ? d : drift;
  }
  int out_bad = 0;
  if (rank_ == 0) {
    fprintf(
        rep,
        "wave: total %.3f s over %lld steps on %d ranks (partition %.3f s, migration %.3f s, %d repartitions",
        total, (long long)S, P, part_s, mig_s, nrep);
    for (int k = 0; k < nrep; k++) fprintf(rep, "%s%lld", k ? "," : ": ", (long long)reps[k]);
    fprintf(rep, ", %lld cells moved)\n", (long long)moved_total);
    fprintf(rep, "wave: checksum %016" PRIx64 "  energy %.12g", hash, energies[S - 1]);
    if (drift >= 0)
      fprintf(rep, " (relative drift %.2g since step %lld, the source off)", drift,
              (long long)s_ref);
    fprintf(rep, "\nwave: probe at x = %lld: peak %.4f at step %lld (a front at c: step %.0f)\n",
            (long long)pp[0], peak, (long long)arrival, expected);
    if (jf) {
      out_bad = json_out(jf, a, total, step_s, reps, nrep, part_s, mig_s, o->trace != NULL, hash,
                         energies[S - 1], drift, energies, arrival, expected, peak, err_max, owner0,
                         moved_total, cpu, imb, rank_compute);
      if (jf != stdout) out_bad |= fclose(jf) != 0;
    }
    if (o->trace)
      fprintf(rep, "wave: profiled into %s (%s)\n", o->trace, prc ? "incomplete" : "complete");
  }
  MPI_Bcast(&out_bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (out_bad) fail("--json", "%s: could not be written", o->json);
  if (prc) fail("--trace", "%s: %s", o->trace, lbsprof_errmsg());

  Zoltan_Destroy(&zz);
  lbs_policy_destroy(&pol);
  for (int i = 0; i < a->n; i++) free(a->c[i].F);
  free_plan(a);
  free(a->c), free(a->loc), free(a->owner), free(a->fine), free(owner0);
  free(step_s), free(imb), free(energies), free(probe), free(step_ns), free(excess), free(reps),
      free(load), free(info), free(rank_compute);
  MPI_Finalize();
  return out_bad || prc ? 1 : 0;
}
