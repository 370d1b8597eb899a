/* nbody.c - seed 003's N-body case as a real MPI code: Barnes-Hut of a Plummer sphere whose
 * leaf cells are distributed over the ranks by any lbsim partitioner, instrumented with
 * liblbsprof (apps/README.md is the contract it keeps).
 *
 * Physics: that of `lbsim trace gen --kind nbody` (workloads/nbody.c through lbs_nbody.h, the
 * leapfrog of traces/gen_nbody.c):
 * N bodies of mass 1/N from a Plummer model (G = M = 1), softened gravity (eps = 0.01), forces by
 * Barnes-Hut with opening angle theta on an octree of at most 8 bodies a leaf rebuilt every
 * step, kick-drift-kick leapfrog with step dt. The kicks and drifts are the generator's
 * operations in the generator's order, so the bodies follow the generated trace's bit for bit.
 *
 * Elements: the leaf cells (at most --leaf bodies) of the octree built on the initial bodies,
 * fixed while the bodies move through them; each step a body belongs to the cell that holds
 * it. The mesh is the generator's: cell centres as coordinates and the close-cell graph.
 *
 * Parallel design (replicated bodies, the simplest correct one): every rank holds every body
 * and builds the same force tree; a rank computes the forces of the bodies in its own cells
 * and advances them; an MPI_Allgatherv of their positions and velocities gives every rank the
 * new state. Results are therefore the same bits on any number of ranks and with any
 * partition. The cells are assigned by the partitioner (--partitioner, through lbs_part_run:
 * zoltan:*, metis:*, minex:*, weights the work of the step before, coordinates, the cell graph
 * with CWgt = |Cw| for close cells, relocation weights |Cv|), and a repartition changes which
 * rank advances which bodies: migration is a change of ownership and moves no data.
 *
 * Profiling (--trace): per cell, time_ns (the force computation of the cell's bodies), pwgt
 * (seed 003's PWgt_v = |Cv| (|Cv| - 1 + Close_v + Far_v)), rwgt (|Cv|) and interactions (the
 * body-body and body-node evaluations done), every step; the cell graph with each arc's close
 * flag as its weight and the edge rule flag*rwgt[target], so that the replay's communication
 * follows the cells' populations as it does for a generated trace. A profiled run repartitions as
 * an unprofiled one does: after each change of ownership every rank gives its cells to
 * lbsprof_remap, and the trace records each cell's rank from every repartition step on. */
#include <lbsprof.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appkit.h"
#include "lbs_grid.h"
#include "lbs_nbody.h"
#include "lbs_part.h"

#define PHYS_LEAF 8             /* bodies per leaf of the force tree (the generator's) */
#define ENERGY_MAX_BODIES 32768 /* the energy check's direct sum up to this many bodies */
/* Bytes a distributed code moves per body (position, velocity, mass and id), and fetches per
 * body of a close cell (position and mass). */
#define BYTES_PER_BODY_MOVED 64
#define BYTES_PER_BODY_SENT 32

static const char usage[] =
    "usage: mpiexec -n P nbody [--bodies N] [--steps S] [--seed K] [--leaf L] [--theta T] [--dt DT]\n"
    "                [--partitioner NAME] [--grid FILE]\n"
    "                [--trace FILE [--edges rule|stored]] [--schedule LIST | --policy SPEC]\n"
    "                [--json FILE]\n"
    "\n"
    "Barnes-Hut of a Plummer sphere (seed 003): the leaf cells of the initial octree are the\n"
    "elements, distributed over the ranks by an lbsim partitioner; the physics and the cells are\n"
    "those of `lbsim trace gen --kind nbody`.\n"
    "\n"
    "  --bodies N         bodies (default 32768; 2..2^28)\n"
    "  --steps S          time steps (default 60)\n"
    "  --seed K           random seed of the Plummer sphere (default 1)\n"
    "  --leaf L           at most L bodies per leaf cell of the initial tree (default 8; 1..1024)\n"
    "  --theta T          opening angle (default 0.7; in (0, 2))\n"
    "  --dt DT            time step (default 0.0078125; in (0, 1))\n"
    "  --partitioner NAME the cells' partitioner (default zoltan:rcb; zoltan:rcb|rib|hsfc|phg|\n"
    "                     graph|block|random, metis:kway|rb, minex:scratch|diffusive)\n"
    "  --grid FILE        the platform for minex and the part sizes: a grid INI file with one\n"
    "                     processor per rank (default: P equal processors on one cluster)\n"
    "  --part-sizes LIST  the parts the partitioner aims at, a share per rank (\"2,1\"; default:\n"
    "                     the grid's speeds); recorded as the trace's app.part_sizes\n"
    "  --trace FILE       profile every step into FILE: time_ns, pwgt, rwgt and interactions per\n"
    "                     cell, the cell centres and the cell graph\n"
    "  --edges rule|stored  how the trace weighs the graph's arcs at each step, CWgt = close flag\n"
    "                     x rwgt of the target cell: rule (default) records the flags once and the\n"
    "                     rule flag*rwgt[target]; stored gives every arc's weight at every step\n"
    "                     (lbsprof_edge_weights, edge_weight = stored@step): the same weights\n"
    "                     stored per step, as an application whose weights follow no rule would\n"
    "  --schedule LIST    repartition before these steps (\"10,25\" or \"@file\", lbsim's steps:LIST)\n"
    "  --policy SPEC      or let a policy decide online (none, fixed:K, threshold:T, ...; adaptive\n"
    "                     and optimal need lbsim: use --schedule with the steps they choose)\n"
    "                     A repartition gives the partitioner each cell's time at the step before;\n"
    "                     bodies are replicated, so migration only changes who advances them.\n"
    "                     With --trace the profile follows the cells (lbsprof_remap).\n"
    "  --json FILE        the run's summary as one JSON line (\"-\": stdout): apps/README.md's\n"
    "                     fields and compute_s (the force computations' time, max over ranks,\n"
    "                     summed over steps), rank_compute_s (each rank's), bodies, cells,\n"
    "                     partitioner, energy0, energy_rel_drift (direct\n"
    "                     sums, up to 32768 bodies), state_crc32 (of the final positions and\n"
    "                     velocities: the same on any number of ranks), owner (each cell's rank\n"
    "                     at the last step)\n"
    "\n"
    "examples:\n"
    "  mpiexec -n 2 nbody --bodies 16384 --steps 20 --trace nb.lbt --json -\n"
    "  lbsim replay nb.lbt --grid examples/grids/homogeneous16.ini --policy fixed:5\n"
    "  mpiexec -n 4 nbody --partitioner minex:scratch --schedule 10,20 --json run.json\n"
    "  mpiexec -n 2 nbody --partitioner metis:kway --policy threshold:0.1\n";

typedef struct {
  int64_t n; /* bodies */
  int32_t L; /* cells */
  double *x, *v, *acc;
  lbs_nb_tree cells, phys;
  lbs_nb_cells cg;
  int64_t *xadj, *adj;     /* the cell graph */
  double *flag;            /* 1: the target is close to the source */
  double *co;              /* cell centres */
  int32_t *cell_of;        /* body -> cell */
  int64_t *cstart, *cbody; /* CSR: the bodies of each cell, by id */
  double *rw, *pw, *cnt;
  int64_t *fill;  /* L: scratch */
  int32_t *stack; /* the force walk's: phys.nn + 1 entries */
  int64_t stack_cap;
} world;

static void world_free(world *w) {
  free(w->x), free(w->v), free(w->acc), free(w->xadj), free(w->adj), free(w->flag), free(w->co),
      free(w->cell_of);
  free(w->cstart), free(w->cbody), free(w->rw), free(w->pw), free(w->cnt), free(w->fill),
      free(w->stack);
  lbs_nb_tree_free(&w->cells), lbs_nb_tree_free(&w->phys), lbs_nb_cells_free(&w->cg);
}

/* Puts every body in its cell: cell_of, the cells' body lists (bodies by id), rw and pw. */
static void locate_all(world *w) {
  memset(w->cstart, 0, (size_t)(w->L + 1) * sizeof *w->cstart);
  for (int64_t b = 0; b < w->n; b++)
    w->cstart[(w->cell_of[b] = lbs_nb_locate(&w->cells, w->x + 3 * b)) + 1]++;
  for (int32_t c = 0; c < w->L; c++) w->cstart[c + 1] += w->cstart[c];
  for (int32_t c = 0; c < w->L; c++) w->rw[c] = (double)(w->cstart[c + 1] - w->cstart[c]);
  memcpy(w->fill, w->cstart, (size_t)w->L * sizeof *w->fill);
  for (int64_t b = 0; b < w->n; b++) w->cbody[w->fill[w->cell_of[b]]++] = b;
  lbs_nb_pwgt(&w->cells, &w->cg, w->rw, w->cnt, w->pw);
}

/* --edges stored: the arcs' weights of this rank's n cells mine at this sampled step, as the rule
 * gives them (close flag x rwgt of the target: every rank has every cell's bodies), to the
 * profiler; b holds them (grown as needed). Nothing at a step that is not sampled. */
typedef struct {
  int64_t *xadj, cap_x, cap_w;
  double *w;
} edge_buf;

static int edge_weights(lbsprof *prof, const world *w, const int64_t *mine, int64_t n,
                        edge_buf *b) {
  if (!lbsprof_sampled(prof)) return 0;
  int64_t ne = 0;
  for (int64_t k = 0; k < n; k++) ne += w->xadj[mine[k] + 1] - w->xadj[mine[k]];
  if (n + 1 > b->cap_x) {
    int64_t *x = realloc(b->xadj, (size_t)(n + 1) * sizeof *x);
    if (!x) return lbs_fail(LBS_NOMEM, "the weights of %lld cells", (long long)n);
    b->xadj = x, b->cap_x = n + 1;
  }
  if (ne > b->cap_w) {
    double *v = realloc(b->w, (size_t)ne * sizeof *v);
    if (!v) return lbs_fail(LBS_NOMEM, "the weights of %lld arcs", (long long)ne);
    b->w = v, b->cap_w = ne;
  }
  b->xadj[0] = 0;
  for (int64_t k = 0; k < n; k++) {
    int64_t c = mine[k], d = w->xadj[c + 1] - w->xadj[c];
    for (int64_t j = 0; j < d; j++)
      b->w[b->xadj[k] + j] = w->flag[w->xadj[c] + j] * w->rw[w->adj[w->xadj[c] + j]];
    b->xadj[k + 1] = b->xadj[k] + d;
  }
  return lbsprof_edge_weights(prof, b->xadj, b->w);
}

/* Total energy (kinetic + softened potential, direct sums) of the bodies at x with velocities
 * v; the potential's pairs are shared over the ranks. Collective. */
static double energy(const app *a, const world *w, const double *x, const double *v) {
  double mb = 1.0 / (double)w->n, kin = 0, pot = 0, s2 = LBS_NB_SOFT * LBS_NB_SOFT;
  for (int64_t i = a->rank; i < w->n; i += a->size) {
    kin += 0.5 * mb *
           (v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
    for (int64_t j = i + 1; j < w->n; j++) {
      double d0 = x[3 * j] - x[3 * i], d1 = x[3 * j + 1] - x[3 * i + 1],
             d2 = x[3 * j + 2] - x[3 * i + 2];
      pot -= mb * mb / sqrt(d0 * d0 + d1 * d1 + d2 * d2 + s2);
    }
  }
  double e[2] = {kin, pot};
  MPI_Allreduce(MPI_IN_PLACE, e, 2, MPI_DOUBLE, MPI_SUM, a->comm);
  return e[0] + e[1];
}

/* The part sizes: --part-sizes where given (checked on every rank: the same message), else in
 * proportion to the grid's speeds; *meta: the trace's app.part_sizes. LBS_INVAL after a
 * message. */
static lbs_err part_sizes_of(const app *a, const lbs_grid *grid, double *sizes, char *meta,
                             size_t len) {
  if (a->part_sizes) return app_part_sizes(a, sizes, meta, len) ? LBS_INVAL : LBS_OK;
  lbs_grid_part_sizes(grid, sizes);
  char *list = malloc((size_t)a->size * 32 + 1), why[128];
  if (!list) return app_error(a, "part sizes: out of memory"), LBS_NOMEM;
  size_t at = 0;
  for (int r = 0; r < a->size; r++)
    at +=
        (size_t)snprintf(list + at, 32, "%s%.17g", r ? "," : "", sizes[r] > 0 ? sizes[r] : 1e-300);
  int bad = app_parse_part_sizes(list, a->size, sizes, meta, len, why, sizeof why);
  free(list);
  if (bad) app_error(a, "--grid: part sizes: %s", why);
  return bad ? LBS_INVAL : LBS_OK;
}

/* The partitioner's call: cells in blocks over the ranks (rank r: [first[r], first[r+1])),
 * with weights wt[L], the cell graph weighted CWgt = flag x |Cw| at this step, relocation
 * weights |Cv|, the cells' current ranks (owner, or -1 before the first); the new owner of
 * every cell on every rank. Collective; 0 or -1 on every rank after a message. */
static int partition(const app *a, lbs_partitioner *part, const lbs_grid *grid, const double *sizes,
                     const world *w, const int64_t *first, const double *wt, int *owner,
                     int initial) {
  int me = a->rank, P = a->size;
  int64_t f = first[me], nl = first[me + 1] - f, e0 = w->xadj[f], ne = w->xadj[first[me + 1]] - e0;
  int64_t *gid = malloc((size_t)(nl + 1) * sizeof *gid),
          *lx = malloc((size_t)(nl + 1) * sizeof *lx);
  double *cw = malloc((size_t)(ne + 1) * sizeof *cw);
  int *cur = malloc((size_t)(nl + 1) * sizeof *cur), *np = malloc((size_t)(nl + 1) * sizeof *np);
  int *cnt = malloc((size_t)P * sizeof *cnt), *dsp = malloc((size_t)P * sizeof *dsp);
  if (app_agree(a, !gid || !lx || !cw || !cur || !np || !cnt || !dsp)) {
    app_error(a, "--partitioner %s: out of memory", lbs_part_name(part));
    free(gid), free(lx), free(cw), free(cur), free(np), free(cnt), free(dsp);
    return -1;
  }
  for (int64_t i = 0; i < nl; i++)
    gid[i] = f + i, lx[i] = w->xadj[f + i] - e0, cur[i] = initial ? -1 : owner[f + i];
  lx[nl] = ne;
  for (int64_t j = 0; j < ne; j++) cw[j] = w->flag[e0 + j] * w->rw[w->adj[e0 + j]];
  lbs_part_input in = {.comm = a->comm,
                       .nlocal = nl,
                       .gid = gid,
                       .weight = wt + f,
                       .dim = 3,
                       .coords = w->co + 3 * f,
                       .xadj = lx,
                       .adj = w->adj + e0,
                       .adjw = cw,
                       .rank_first = first,
                       .current = cur,
                       .nparts = P,
                       .part_sizes = sizes,
                       .repartition = 0, /* as lbsim replay's default: partition from scratch */
                       .grid = grid,
                       .rwgt = w->rw + f,
                       .bytes_per_edge = BYTES_PER_BODY_SENT,
                       .bytes_per_rwgt = BYTES_PER_BODY_MOVED};
  lbs_err e = lbs_part_run(part, &in, np);
  int bad = app_agree(a, e != LBS_OK);
  if (bad) {
    if (e)
      fprintf(stderr, "%s: --partitioner %s (rank %d): %s\n", a->name, lbs_part_name(part), me,
              lbs_errmsg());
  } else {
    for (int r = 0; r < P; r++) cnt[r] = (int)(first[r + 1] - first[r]), dsp[r] = (int)first[r];
    MPI_Allgatherv(np, (int)nl, MPI_INT, owner, cnt, dsp, MPI_INT, a->comm);
  }
  free(gid), free(lx), free(cw), free(cur), free(np), free(cnt), free(dsp);
  return bad ? -1 : 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  app a;
  app_init(&a, "nbody", MPI_COMM_WORLD);
  long long N = 32768, S = 60, seed = 1, leaf = 8;
  double theta = 0.7, dt = 1.0 / 128;
  const char *pname = "zoltan:rcb", *gridf = NULL;
  int bad = 0, stored = 0; /* --edges stored */
  for (int i = 1; i < argc && !bad; i++) {
    const char *v;
    int r;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      if (a.rank == 0) fputs(usage, stdout);
      MPI_Finalize();
      return 0;
    }
    if ((r = app_common_arg(&a, argc, argv, &i)))
      bad = r < 0;
    else if ((r = app_opt(&a, argc, argv, &i, "--bodies", &v)))
      bad = r < 0 || app_int(&a, "--bodies", v, 2, INT64_C(1) << 28, &N);
    else if ((r = app_opt(&a, argc, argv, &i, "--steps", &v)))
      bad = r < 0 || app_int(&a, "--steps", v, 1, INT32_MAX, &S);
    else if ((r = app_opt(&a, argc, argv, &i, "--seed", &v)))
      bad = r < 0 || app_int(&a, "--seed", v, 0, INT64_MAX, &seed);
    else if ((r = app_opt(&a, argc, argv, &i, "--leaf", &v)))
      bad = r < 0 || app_int(&a, "--leaf", v, 1, 1024, &leaf);
    else if ((r = app_opt(&a, argc, argv, &i, "--theta", &v)))
      bad = r < 0 || app_double(&a, "--theta", v, 0, 2, &theta);
    else if ((r = app_opt(&a, argc, argv, &i, "--dt", &v)))
      bad = r < 0 || app_double(&a, "--dt", v, 0, 1, &dt);
    else if ((r = app_opt(&a, argc, argv, &i, "--partitioner", &v)))
      bad = r < 0, pname = v;
    else if ((r = app_opt(&a, argc, argv, &i, "--grid", &v)))
      bad = r < 0, gridf = v;
    else if ((r = app_opt(&a, argc, argv, &i, "--edges", &v))) {
      bad = r < 0 || (strcmp(v, "rule") && strcmp(v, "stored"));
      if (r > 0 && bad) app_error(&a, "--edges %s: rule or stored", v);
      stored = !bad && !strcmp(v, "stored");
    } else {
      app_error(&a, "%s: unknown option (see --help)", argv[i]);
      bad = 1;
    }
  }
  app_sched sch;
  memset(&sch, 0, sizeof sch);
  if (!bad) bad = app_sched_create(&a, &sch, S) != 0;
  if (!bad) bad = app_check_output(&a, "--json", a.json) != 0;
  /* the platform (one processor per rank) and the partitioner, on every rank */
  lbs_grid *grid = NULL;
  lbs_partitioner *part = NULL;
  double *sizes = NULL;
  char pmeta[4096] = "equal"; /* the trace's app.part_sizes */
  if (!bad) {
    lbs_err e;
    if (gridf) {
      e = lbs_grid_load(gridf, NULL, 0, &grid);
      if (e) app_error(&a, "--grid %s: %s", gridf, lbs_errmsg());
    } else {
      char ini[160];
      snprintf(ini, sizeof ini,
               "[grid]\nname = ranks%d\nns_per_work = 1\n[cluster ranks]\nnodes = %d\n", a.size,
               a.size);
      lbs_config *cfg = NULL;
      e = lbs_config_parse_string("ranks grid", ini, &cfg);
      if (!e) e = lbs_grid_from_config(cfg, &grid);
      lbs_config_destroy(&cfg);
      if (e) app_error(&a, "the default grid: %s", lbs_errmsg());
    }
    if (!e && lbs_grid_procs(grid) != a.size) {
      app_error(
          &a,
          "--grid %s: %d processors, and the run has %d ranks: give a grid of one processor per rank",
          gridf, lbs_grid_procs(grid), a.size);
      e = LBS_INVAL;
    }
    if (!e && (e = lbs_part_create(pname, NULL, a.comm, &part)))
      app_error(&a, "--partitioner %s: %s", pname, lbs_errmsg());
    if (!e && !(sizes = malloc((size_t)a.size * sizeof *sizes))) e = lbs_fail(LBS_NOMEM, "sizes");
    if (!e) e = part_sizes_of(&a, grid, sizes, pmeta, sizeof pmeta);
    bad = app_agree(&a, e != LBS_OK);
  }
  if (bad) {
    app_sched_free(&sch), lbs_part_destroy(&part), lbs_grid_destroy(&grid), free(sizes);
    MPI_Finalize();
    return 2;
  }

  /* set-up: bodies, the fixed cells and their graph, every body in its cell */
  world w;
  memset(&w, 0, sizeof w);
  w.n = N;
  const int P = a.size, me = a.rank;
  lbs_err e = LBS_OK;
  w.x = malloc((size_t)N * 3 * sizeof *w.x), w.v = malloc((size_t)N * 3 * sizeof *w.v);
  w.acc = calloc((size_t)N * 3, sizeof *w.acc), w.cell_of = malloc((size_t)N * sizeof *w.cell_of);
  w.cbody = malloc((size_t)N * sizeof *w.cbody);
  if (!w.x || !w.v || !w.acc || !w.cell_of || !w.cbody) e = lbs_fail(LBS_NOMEM, "%lld bodies", N);
  if (!e) {
    lbs_nb_plummer(N, (uint64_t)seed, w.x, w.v);
    if (!(e = lbs_nb_build(&w.cells, w.x, N, (int)leaf)) &&
        !(e = lbs_nb_cell_walk(&w.cells, theta, &w.cg)))
      e = lbs_nb_cell_graph(&w.cg, w.cells.nleaf, &w.xadj, &w.adj, &w.flag);
  }
  if (!e) {
    w.L = w.cells.nleaf;
    w.co = malloc((size_t)w.L * 3 * sizeof *w.co),
    w.cstart = malloc((size_t)(w.L + 1) * sizeof *w.cstart);
    w.rw = malloc((size_t)w.L * sizeof *w.rw), w.pw = malloc((size_t)w.L * sizeof *w.pw);
    w.cnt = malloc((size_t)w.cells.nn * sizeof *w.cnt),
    w.fill = malloc((size_t)w.L * sizeof *w.fill);
    if (!w.co || !w.cstart || !w.rw || !w.pw || !w.cnt || !w.fill)
      e = lbs_fail(LBS_NOMEM, "%d cells", w.L);
  }
  if (app_agree(&a, e != LBS_OK)) {
    app_error(&a, "set-up: %s", lbs_errmsg());
    world_free(&w), app_sched_free(&sch), lbs_part_destroy(&part), lbs_grid_destroy(&grid),
        free(sizes);
    MPI_Finalize();
    return 1;
  }
  const int32_t L = w.L;
  if (P > L) {
    app_error(
        &a,
        "--bodies %lld --leaf %lld: %d leaf cell%s on %d ranks: every rank needs a cell; run on at most %d "
        "rank%s or give more bodies or a smaller --leaf",
        N, leaf, L, L == 1 ? "" : "s", P, L, L == 1 ? "" : "s");
    world_free(&w), app_sched_free(&sch), lbs_part_destroy(&part), lbs_grid_destroy(&grid),
        free(sizes);
    MPI_Finalize();
    return 2;
  }
  for (int32_t c = 0; c < L; c++)
    memcpy(w.co + 3 * c, w.cells.nd[w.cg.leaf_node[c]].c, 3 * sizeof *w.co);
  locate_all(&w);

  double bpc = (double)N / L; /* bodies per cell, on average */
  char args[4700], th[32], dts[32];
  app_fmt_double(th, sizeof th, theta), app_fmt_double(dts, sizeof dts, dt);
  int alen = snprintf(
      args, sizeof args,
      "--bodies %lld --steps %lld --seed %lld --leaf %lld --theta %s --dt %s --partitioner "
      "%s%s%s%s%s%s",
      N, S, seed, leaf, th, dts, pname, gridf ? " --grid " : "", gridf ? gridf : "",
      stored ? " --edges stored" : "", a.part_sizes ? " --part-sizes " : "",
      a.part_sizes ? a.part_sizes : "");
  if (alen < 0 || (size_t)alen >= sizeof args) {
    app_error(&a, "--partitioner and --grid: too long to record (%d characters)", alen);
    world_free(&w), app_sched_free(&sch), lbs_part_destroy(&part), lbs_grid_destroy(&grid),
        free(sizes);
    MPI_Finalize();
    return 2;
  }

  /* the initial partition (set-up, not timed in the total), from PWgt */
  int64_t *first = malloc((size_t)(P + 1) * sizeof *first);
  int *owner = malloc((size_t)L * sizeof *owner);
  double *tcell = calloc((size_t)L, sizeof *tcell), *wcell = malloc((size_t)L * sizeof *wcell),
         *step_loc = calloc((size_t)S, sizeof *step_loc);
  double *comp_loc = calloc((size_t)S, sizeof *comp_loc),
         *comp_s = calloc((size_t)S, sizeof *comp_s);
  double *rank_comp = calloc((size_t)P, sizeof *rank_comp);
  double *step_s = calloc((size_t)S, sizeof *step_s),
         *sendbuf = malloc((size_t)N * 6 * sizeof *sendbuf);
  double *recvbuf = malloc((size_t)N * 6 * sizeof *recvbuf);
  int64_t *reps = calloc((size_t)S, sizeof *reps), *mine = malloc((size_t)L * sizeof *mine);
  int *rcnt = malloc((size_t)P * sizeof *rcnt), *rdsp = malloc((size_t)P * sizeof *rdsp);
  int *at = malloc((size_t)P * sizeof *at);
  int err = app_agree(&a, !first || !owner || !tcell || !wcell || !step_loc || !step_s ||
                              !sendbuf || !recvbuf || !reps || !mine || !rcnt || !rdsp || !at ||
                              !comp_loc || !comp_s || !rank_comp);
  if (err) app_error(&a, "%d cells: out of memory", L);
  const int alloc_err = err; /* agreed: the arrays exist on every rank unless it is set */
  for (int r = 0; !err && r <= P; r++) first[r] = (int64_t)L * r / P;
  double tp0 = app_now();
  if (!err) err = partition(&a, part, grid, sizes, &w, first, w.pw, owner, 1);
  double tinit = app_now() - tp0;
  MPI_Allreduce(MPI_IN_PLACE, &tinit, 1, MPI_DOUBLE, MPI_MAX, a.comm);
  sch.est_repart_ns = llround(tinit * 1e9);
  int64_t nmine = 0;
  for (int32_t c = 0; !err && c < L; c++)
    if (owner[c] == me) mine[nmine++] = c;
  double e0 = 0, e1 = 0, *xlast = NULL, *vlast = NULL;
  int do_energy = N <= ENERGY_MAX_BODIES;
  if (!err && do_energy) {
    e0 = energy(&a, &w, w.x, w.v);
    xlast = calloc((size_t)N * 3, sizeof *xlast), vlast = calloc((size_t)N * 3, sizeof *vlast);
    if (app_agree(&a, !xlast || !vlast)) do_energy = 0;
  }

  /* the profiler: this rank's cells, their centres and their part of the graph */
  lbsprof *prof = NULL;
  edge_buf ew = {0}; /* --edges stored: each sampled step's weights */
  int mp = -1, mr = -1, mi = -1, ev_part = -1, ev_mig = -1;
  if (!err && a.trace) {
    lbsprof_opts o;
    lbsprof_opts_default(&o);
    o.trace_path = a.trace;
    int64_t *lx = malloc((size_t)(nmine + 1) * sizeof *lx), ne = 0;
    for (int64_t i = 0; i < nmine; i++) ne += w.xadj[mine[i] + 1] - w.xadj[mine[i]];
    int64_t *ladj = malloc((size_t)(ne + 1) * sizeof *ladj);
    double *lco = malloc((size_t)(3 * nmine + 1) * sizeof *lco),
           *lflag = malloc((size_t)(ne + 1) * sizeof *lflag);
    /* an arc weighs flag x the bodies of its target at each step (the edge rule), so an edge's
     * bytes are a body's, as the generator's; a cell's relocation is its mean bodies' */
    char bpe[32], bpg[32];
    snprintf(bpe, sizeof bpe, "%.0f", BYTES_PER_BODY_MOVED * bpc),
        snprintf(bpg, sizeof bpg, "%d", BYTES_PER_BODY_SENT);
    int rc = app_agree(&a, !lx || !ladj || !lco || !lflag);
    if (rc)
      app_error(&a, "--trace: out of memory");
    else {
      lx[0] = 0;
      for (int64_t i = 0; i < nmine; i++) {
        int64_t c = mine[i], d = w.xadj[c + 1] - w.xadj[c];
        memcpy(ladj + lx[i], w.adj + w.xadj[c], (size_t)d * sizeof *ladj);
        memcpy(lflag + lx[i], w.flag + w.xadj[c], (size_t)d * sizeof *lflag);
        lx[i + 1] = lx[i] + d;
        memcpy(lco + 3 * i, w.co + 3 * c, 3 * sizeof *lco);
      }
      rc = lbsprof_init(a.comm, &o, &prof);
      if (!rc && (mp = lbsprof_value_metric(prof, "pwgt", "interactions")) < 0) rc = mp;
      if (!rc && (mr = lbsprof_value_metric(prof, "rwgt", "bodies")) < 0) rc = mr;
      if (!rc && (mi = lbsprof_value_metric(prof, "interactions", "interactions")) < 0) rc = mi;
      /* the application's own costs at each repartition (the names the replay knows) */
      if (!rc && (ev_part = lbsprof_event_register(prof, LBSPROF_EVENT_PARTITION)) < 0)
        rc = ev_part;
      if (!rc && (ev_mig = lbsprof_event_register(prof, LBSPROF_EVENT_MIGRATION)) < 0) rc = ev_mig;
      if (!rc) rc = lbsprof_meta(prof, "name", a.name);
      if (!rc) rc = lbsprof_meta(prof, "args", args);
      if (!rc) rc = lbsprof_meta(prof, "partitioner", pname);
      if (!rc) rc = lbsprof_meta(prof, "part_sizes", pmeta);
      if (!rc) rc = lbsprof_meta(prof, "bytes_per_elem", bpe);
      if (!rc) rc = lbsprof_meta(prof, "bytes_per_edge", bpg);
      /* the communication of the generator's traces: CWgt(v, w) = close flag x |Cw| each step, by
       * the rule or given at each step (--edges stored: edge_weights below) */
      if (!rc)
        rc = lbsprof_meta(prof, "edge_weight", stored ? LBSPROF_EDGE_STEPS : LBSPROF_EDGE_RULE);
      if (!rc) rc = lbsprof_mesh_weighted(prof, nmine, mine, 3, lco, lx, ladj, lflag);
      if (rc) app_error(&a, "--trace %s: %s", a.trace, lbsprof_errmsg());
    }
    free(lx), free(ladj), free(lco), free(lflag);
    err = rc != 0; /* the profiler's calls agree over the ranks */
  }

  /* the run: from a barrier before step 0 to a barrier after the last */
  int nrep = 0;
  double part_s = 0, mig_s = 0;
  MPI_Barrier(a.comm);
  double t0 = app_now();
  for (int64_t s = 0; s < S && !err; s++) {
    double ts = app_now();
    int rep = app_sched_decide(&a, &sch, s);
    if (rep < 0) {
      err = 1;
      break;
    }
    if (rep) { /* with each cell's time at the step before, from its owner */
      double tp = app_now();
      for (int32_t c = 0; c < L; c++) wcell[c] = owner[c] == me ? tcell[c] : 0;
      MPI_Allreduce(MPI_IN_PLACE, wcell, L, MPI_DOUBLE, MPI_SUM, a.comm);
      if (partition(&a, part, grid, sizes, &w, first, wcell, owner, 0)) {
        err = 1;
        break;
      }
      double tm = app_now();
      nmine = 0; /* migration: the bodies are everywhere; only the owners change */
      for (int32_t c = 0; c < L; c++)
        if (owner[c] == me) mine[nmine++] = c;
      double d[2] = {tm - tp, app_now() - tm}; /* the profiler's remap left out */
      /* this rank's own seconds to the profiler (valid ids and values) */
      if (prof) lbsprof_event_add(prof, ev_part, d[0]), lbsprof_event_add(prof, ev_mig, d[1]);
      if (prof && lbsprof_remap(prof, nmine, mine)) { /* every rank fails alike */
        app_error(&a, "--trace %s: %s", a.trace, lbsprof_errmsg());
        err = 1;
        break;
      }
      MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE, MPI_MAX, a.comm);
      part_s += d[0], mig_s += d[1];
      reps[nrep++] = s;
      app_sched_repartitioned(&sch, s, llround((d[0] + d[1]) * 1e9));
    }
    /* the force tree on every rank, then the forces of this rank's cells */
    if (!(e = lbs_nb_build(&w.phys, w.x, N, PHYS_LEAF)) && w.phys.nn + 1 > w.stack_cap) {
      int32_t *st = realloc(w.stack, (size_t)(w.phys.nn + 1) * sizeof *st);
      if (st)
        w.stack = st, w.stack_cap = w.phys.nn + 1;
      else
        e = lbs_fail(LBS_NOMEM, "the force tree's walk");
    }
    if (e) { /* out of memory on one rank in the middle of the run: end them all */
      fprintf(stderr, "nbody: step %lld: %s\n", (long long)s, lbs_errmsg());
      MPI_Abort(a.comm, 1);
    }
    double tc = app_now();
    for (int64_t k = 0; k < nmine; k++) {
      int64_t c = mine[k], inter = 0;
      double tb = sch.active ? app_now() : 0;
      if (prof) lbsprof_elem_begin(prof, k);
      for (int64_t j = w.cstart[c]; j < w.cstart[c + 1]; j++) {
        int64_t b = w.cbody[j];
        inter += lbs_nb_accel(&w.phys, w.x, N, theta, b, w.acc + 3 * b, w.stack);
      }
      if (prof) {
        lbsprof_elem_end(prof, k);
        lbsprof_set_value(prof, mp, k, w.pw[c]);
        lbsprof_set_value(prof, mr, k, w.rw[c]);
        lbsprof_set_value(prof, mi, k, (double)inter);
      }
      if (sch.active) tcell[c] = (app_now() - tb) * 1e9;
    }
    double te = app_now();
    /* kick-drift-kick as the generator does it: the closing half kick of this step, the opening
     * half kick of the next and the drift, for this rank's bodies; then everyone's */
    int64_t m = 0;
    for (int64_t k = 0; k < nmine; k++)
      for (int64_t j = w.cstart[mine[k]]; j < w.cstart[mine[k] + 1]; j++) {
        int64_t b = w.cbody[j];
        double *x = w.x + 3 * b, *v = w.v + 3 * b, *ac = w.acc + 3 * b;
        if (s > 0)
          for (int q = 0; q < 3; q++) v[q] += 0.5 * dt * ac[q];
        if (s == S - 1 && do_energy) /* the last synchronised state, for the energy check */
          memcpy(xlast + 3 * b, x, 3 * sizeof *x), memcpy(vlast + 3 * b, v, 3 * sizeof *v);
        for (int q = 0; q < 3; q++) v[q] += 0.5 * dt * ac[q];
        for (int q = 0; q < 3; q++) x[q] += dt * v[q];
        memcpy(sendbuf + 6 * m, x, 3 * sizeof *x), memcpy(sendbuf + 6 * m + 3, v, 3 * sizeof *v);
        m++;
      }
    /* every rank's bodies, in its cells' order (which every rank knows) */
    for (int r = 0; r < P; r++) rcnt[r] = 0;
    for (int32_t c = 0; c < L; c++) rcnt[owner[c]] += 6 * (int)(w.cstart[c + 1] - w.cstart[c]);
    for (int r = 0, o = 0; r < P; r++) rdsp[r] = o, o += rcnt[r];
    MPI_Allgatherv(sendbuf, (int)(6 * m), MPI_DOUBLE, recvbuf, rcnt, rdsp, MPI_DOUBLE, a.comm);
    memcpy(at, rdsp, (size_t)P * sizeof *at);
    for (int32_t c = 0; c < L; c++)
      for (int64_t j = w.cstart[c]; j < w.cstart[c + 1]; j++) {
        int64_t b = w.cbody[j];
        const double *src = recvbuf + at[owner[c]];
        memcpy(w.x + 3 * b, src, 3 * sizeof *src), memcpy(w.v + 3 * b, src + 3, 3 * sizeof *src);
        at[owner[c]] += 6;
      }
    if (prof && stored && edge_weights(prof, &w, mine, nmine, &ew)) {
      /* out of memory (the weights are the mesh's own arcs): on this rank only, end them all */
      fprintf(stderr, "nbody: step %lld: --trace %s: %s\n", (long long)s, a.trace,
              lbsprof_errmsg());
      MPI_Abort(a.comm, 1);
    }
    if (prof) lbsprof_step_end(prof);
    locate_all(&w); /* the cells of the next step */
    app_sched_record(&a, &sch, s, llround((te - tc) * 1e9), llround((app_now() - ts) * 1e9));
    comp_loc[s] = te - tc;
    step_loc[s] = app_now() - ts;
  }
  MPI_Barrier(a.comm);
  double total = app_now() - t0;
  err = app_agree(&a, err);
  int prc = prof ? lbsprof_finalize(&prof) : 0;
  free(ew.xadj), free(ew.w);
  if (prc) app_error(&a, "--trace %s: the trace is incomplete: %s", a.trace, lbsprof_errmsg());
  double comp_s_sum =
      alloc_err ? 0 : app_step_times(&a, S, step_loc, comp_loc, step_s, comp_s, rank_comp);
  if (!err &&
      do_energy) { /* the last synchronised state: each body from its owner (zeros elsewhere) */
    MPI_Allreduce(MPI_IN_PLACE, xlast, (int)(3 * N), MPI_DOUBLE, MPI_SUM, a.comm);
    MPI_Allreduce(MPI_IN_PLACE, vlast, (int)(3 * N), MPI_DOUBLE, MPI_SUM, a.comm);
    e1 = energy(&a, &w, xlast, vlast);
  }
  uint32_t crc =
      lbs_crc32(w.x, (size_t)N * 3 * sizeof *w.x) ^ lbs_crc32(w.v, (size_t)N * 3 * sizeof *w.v);
  int oerr = 0;
  if (!err && me == 0 && a.json) {
    lbs_buf x = {0};
    app_buf_printf(&x, "\"compute_s\":%.6f,\"rank_compute_s\":[", comp_s_sum);
    for (int r = 0; r < P; r++) app_buf_printf(&x, r ? ",%.6f" : "%.6f", rank_comp[r]);
    app_buf_printf(&x, "],\"bodies\":%lld,\"cells\":%d,\"partitioner\":", N, L);
    app_json_str(&x, pname);
    if (do_energy)
      app_buf_printf(&x, ",\"energy0\":%.17g,\"energy_rel_drift\":%.6g", e0, (e1 - e0) / fabs(e0));
    else
      app_buf_printf(&x, ",\"energy0\":null,\"energy_rel_drift\":null");
    app_buf_printf(&x, ",\"state_crc32\":\"%08x\",\"owner\":[", crc);
    for (int32_t c = 0; c < L; c++) app_buf_printf(&x, c ? ",%d" : "%d", owner[c]);
    app_buf_printf(&x, "]");
    app_summary sm = {S,
                      L,
                      total,
                      step_s,
                      reps,
                      nrep,
                      part_s,
                      mig_s,
                      a.trace != NULL,
                      args,
                      (const char *)x.data};
    oerr = app_write_json(&a, a.json, &sm) != 0;
    lbs_buf_free(&x);
  }
  oerr = app_agree(&a, oerr);
  world_free(&w), app_sched_free(&sch), lbs_part_destroy(&part), lbs_grid_destroy(&grid),
      free(sizes);
  free(first), free(owner), free(tcell), free(wcell), free(step_loc), free(step_s), free(sendbuf),
      free(recvbuf), free(reps), free(mine);
  free(rcnt), free(rdsp), free(at), free(comp_loc), free(comp_s), free(rank_comp), free(xlast),
      free(vlast);
  MPI_Finalize();
  return err ? 1 : prc || oerr ? 1 : 0;
}
