/* laplace_mc.c - seed 000's Monte-Carlo random-walk solver of Laplace's equation on a 2-D grid,
 * as an MPI code instrumented with liblbsprof (apps/README.md is the contract it keeps).
 *
 * The grid has N x N interior points (x, y in 0..N-1) inside a boundary held at 100 on the side
 * y = N and at 0 on the other three. The value at an interior point is the mean boundary value
 * that random walks from it reach (each step goes to one of the four neighbours with equal
 * probability): an unbiased estimate of the discrete harmonic function, i.e. of the solution
 * that Gauss-Seidel converges to on the same grid (Reynolds 1965).
 *
 * Steps: a walk has no time steps, so a step of the app is a sweep that adds --walks walks at
 * every point; --steps sweeps make the run (and a trace of that many steps). The cost of a point
 * is the number of walk steps taken from it, which grows with its distance from the boundary:
 * the centre costs about N^2 / 3 walk steps per walk, a point next to the boundary a few.
 *
 * Random numbers: walk k (over all sweeps) of point g draws its directions from lbsim's
 * counter-based generator, lbs_rng_u64(seed, g << 32 | k, word), two bits a step. A point's
 * result depends only on (seed, point, walks), never on which rank ran it: 1 and 2 ranks give
 * identical results, with or without repartitioning.
 *
 * Distribution: the points in row-major order (id g = y N + x) are split in contiguous ranges,
 * initially whole rows (rank r: rows N r / P .. N (r+1) / P). A repartition (--schedule or
 * --policy) splits the order again into ranges of equal measured time (the time of each point
 * at the step before, as lbsim's replay uses the step before's work) and migrates each moved
 * point's state (hits, walks, walk steps: 24 bytes) with MPI_Alltoallv. There is no halo: the
 * points are independent.
 *
 * Profiling (--trace): time_ns per point and walk_steps (the walk steps taken at the point in
 * the step) for every step; the mesh is the N x N box, each rank its rows. After each migration
 * every rank gives its new range to lbsprof_remap, so a profiled run repartitions as an
 * unprofiled one does and the trace records each point's rank from every repartition on. */
#include <lbsprof.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appkit.h"
#include "lbs_walk.h" /* walk(): the walk the calibration kernel times too */

#define MAX_SIZE 4096

static const char usage[] =
    "usage: mpiexec -n P laplace-mc [--size N] [--walks W] [--steps S] [--seed K] [--out FILE]\n"
    "                 [--trace FILE] [--schedule LIST | --policy SPEC] [--json FILE]\n"
    "\n"
    "Seed 000's Monte-Carlo Laplace solver: N x N interior points, the boundary at 100 on one\n"
    "side (y = N) and 0 on the others; the value at a point is the mean boundary value reached\n"
    "by random walks from it. Each step (a sweep) adds W walks at every point.\n"
    "\n"
    "  --size N        interior points per side (default 96; 1..4096, at least P)\n"
    "  --walks W       walks per point and step (default 64)\n"
    "  --steps S       sweeps (default 20); W x S < 2^32\n"
    "  --seed K        random seed (default 1); results depend on (K, N, W, S) only, not on P\n"
    "  --out FILE      write the solution: one line 'x y value sigma walks' per point, sigma the\n"
    "                  Monte-Carlo standard error of the value\n"
    "  --trace FILE    profile every step into FILE: time_ns and walk_steps per point\n"
    "  --schedule LIST repartition before these steps (\"5,12\" or \"@file\", lbsim's steps:LIST)\n"
    "  --policy SPEC   or let a policy decide online (none, fixed:K, threshold:T, ...; adaptive\n"
    "                  and optimal need lbsim: use --schedule with the steps they choose)\n"
    "                  A repartition splits the row-major point order into contiguous ranges of\n"
    "                  equal time measured at the step before, and migrates the moved points.\n"
    "                  With --trace the profile follows the points (lbsprof_remap).\n"
    "  --part-sizes LIST  a share per rank (\"2,1\"; default equal): the initial rows and each\n"
    "                  repartition's ranges in proportion; recorded as the trace's app.part_sizes\n"
    "  --json FILE     the run's summary as one JSON line (\"-\": stdout), apps/README.md's\n"
    "                  fields and compute_s (the sweeps' time, max over ranks, summed),\n"
    "                  rank_compute_s (each rank's), size, walks_per_point, mean_sigma,\n"
    "                  max_sigma, owner (the rank holding each point at the last step)\n"
    "\n"
    "examples:\n"
    "  mpiexec -n 2 laplace-mc --size 64 --steps 20 --trace lap.lbt --json -\n"
    "  lbsim replay lap.lbt --grid examples/grids/homogeneous16.ini --policy fixed:5\n"
    "  mpiexec -n 4 laplace-mc --size 96 --walks 16 --schedule 5,10 --json run.json\n"
    "  mpiexec -n 1 laplace-mc --size 32 --walks 100 --steps 4 --out solution.txt\n";

typedef struct {
  int64_t hits, walks, steps; /* walks that ended on the hot side, walks, walk steps */
} pstate;

/* Ranges [first[r], first[r+1]) of equal measured time w (this rank's points from first[rank]),
 * or of the shares of --part-sizes (cum: their cumulated sums from cum[0] = 0; NULL: equal),
 * each rank at least one point. Collective; nfirst has P+1 entries. */
static void split_by_time(const app *a, const int64_t *first, const double *w, int64_t E,
                          const double *cum, int64_t *nfirst) {
  int P = a->size;
  int64_t n = first[a->rank + 1] - first[a->rank];
  double mine = 0, *tot = malloc((size_t)P * sizeof *tot), off = 0, W = 0;
  for (int64_t i = 0; i < n; i++) mine += w[i];
  MPI_Allgather(&mine, 1, MPI_DOUBLE, tot, 1, MPI_DOUBLE, a->comm);
  for (int r = 0; r < P; r++) W += tot[r], off += r < a->rank ? tot[r] : 0;
  free(tot);
  for (int k = 0; k <= P; k++) nfirst[k] = E; /* first point of part k: a minimum over ranks */
  double c = off;
  for (int64_t i = 0; i < n; i++) {
    /* the part of a point: where the middle of its time falls (non-decreasing along the order) */
    double mid = W > 0 ? (c + w[i] / 2) / W : (double)(first[a->rank] + i) / (double)E;
    int part = 0;
    if (!cum) /* equal parts */
      part = (int)(mid * P);
    else
      while (part < P - 1 && mid >= cum[part + 1]) part++;
    part = part < 0 ? 0 : part >= P ? P - 1 : part;
    for (int k = part; k >= 1 && nfirst[k] > first[a->rank] + i; k--)
      nfirst[k] = first[a->rank] + i;
    c += w[i];
  }
  MPI_Allreduce(MPI_IN_PLACE, nfirst, P + 1, MPI_INT64_T, MPI_MIN, a->comm);
  nfirst[0] = 0, nfirst[P] = E;
  for (int k = 1; k < P; k++)
    nfirst[k] = nfirst[k] > nfirst[k - 1] + 1 ? nfirst[k] : nfirst[k - 1] + 1;
  for (int k = P - 1; k >= 1; k--)
    nfirst[k] = nfirst[k] < nfirst[k + 1] - 1 ? nfirst[k] : nfirst[k + 1] - 1;
}

/* --part-sizes: cum[0..P] the shares' cumulated sums (cum holds the P shares in 1..P on entry),
 * and the initial rows in proportion: rank r rows round(N cum[r]) .. round(N cum[r + 1]), at
 * least one each (N >= P). */
static void rows_by_shares(int64_t N, int P, double *cum, int64_t *first) {
  for (int r = 1; r <= P; r++) cum[r] += cum[r - 1];
  int64_t b = 0;
  for (int r = 1; r < P; r++) {
    int64_t x = llround((double)N * cum[r]), lo = b + 1, hi = N - (P - r);
    b = x < lo ? lo : x > hi ? hi : x;
    first[r] = b * N;
  }
}

/* After a migration: this rank's points, ids g0 .. g0 + n - 1, to the profiler (collective).
 * 0, or -1 with the message given. */
static int remap_profile(const app *a, lbsprof *prof, int64_t g0, int64_t n) {
  int64_t *gid = malloc((size_t)(n ? n : 1) * sizeof *gid);
  for (int64_t i = 0; gid && i < n; i++) gid[i] = g0 + i;
  int rc = gid ? lbsprof_remap(prof, n, gid) : lbsprof_remap(prof, -1, NULL);
  free(gid);
  if (rc) app_error(a, "--trace %s: %s", a->trace, lbsprof_errmsg());
  return rc ? -1 : 0;
}

/* Moves the points from ranges first to ranges nfirst: *st is replaced. Collective. */
static int migrate(const app *a, const int64_t *first, const int64_t *nfirst, pstate **st,
                   MPI_Datatype T) {
  int P = a->size, me = a->rank;
  int *sc = calloc((size_t)P, sizeof *sc), *sd = calloc((size_t)P, sizeof *sd),
      *rc = calloc((size_t)P, sizeof *rc), *rd = calloc((size_t)P, sizeof *rd);
  int64_t nn = nfirst[me + 1] - nfirst[me];
  pstate *nst = malloc((size_t)(nn ? nn : 1) * sizeof *nst);
  int bad = !sc || !sd || !rc || !rd || !nst;
  if (!bad)
    for (int r = 0; r < P;
         r++) { /* what I send to r: my old range within r's new one; what r sends me */
      int64_t lo = first[me] > nfirst[r] ? first[me] : nfirst[r],
              hi = first[me + 1] < nfirst[r + 1] ? first[me + 1] : nfirst[r + 1];
      sc[r] = hi > lo ? (int)(hi - lo) : 0, sd[r] = hi > lo ? (int)(lo - first[me]) : 0;
      lo = first[r] > nfirst[me] ? first[r] : nfirst[me],
      hi = first[r + 1] < nfirst[me + 1] ? first[r + 1] : nfirst[me + 1];
      rc[r] = hi > lo ? (int)(hi - lo) : 0, rd[r] = hi > lo ? (int)(lo - nfirst[me]) : 0;
    }
  if (app_agree(a, bad)) {
    free(sc), free(sd), free(rc), free(rd), free(nst);
    app_error(a, "repartition: out of memory");
    return -1;
  }
  MPI_Alltoallv(*st, sc, sd, T, nst, rc, rd, T, a->comm);
  free(*st);
  *st = nst;
  free(sc), free(sd), free(rc), free(rd);
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  app a;
  app_init(&a, "laplace-mc", MPI_COMM_WORLD);
  long long N = 96, W = 64, S = 20, seed = 1;
  const char *out = NULL;
  int bad = 0;
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
    else if ((r = app_opt(&a, argc, argv, &i, "--size", &v)))
      bad = r < 0 || app_int(&a, "--size", v, 1, MAX_SIZE, &N);
    else if ((r = app_opt(&a, argc, argv, &i, "--walks", &v)))
      bad = r < 0 || app_int(&a, "--walks", v, 1, UINT32_MAX, &W);
    else if ((r = app_opt(&a, argc, argv, &i, "--steps", &v)))
      bad = r < 0 || app_int(&a, "--steps", v, 1, UINT32_MAX, &S);
    else if ((r = app_opt(&a, argc, argv, &i, "--seed", &v)))
      bad = r < 0 || app_int(&a, "--seed", v, 0, INT64_MAX, &seed);
    else if ((r = app_opt(&a, argc, argv, &i, "--out", &v)))
      bad = r < 0, out = v;
    else {
      app_error(&a, "%s: unknown option (see --help)", argv[i]);
      bad = 1;
    }
  }
  if (!bad && W * S > (long long)UINT32_MAX) {
    app_error(
        &a,
        "--walks %lld --steps %lld: %lld walks per point; at most 2^32 - 1 (the walk number is 32 bits of "
        "the random stream)",
        W, S, W * S);
    bad = 1;
  }
  if (!bad && N < a.size) {
    app_error(
        &a,
        "--size %lld on %d ranks: every rank starts with a row of points; run on at most %lld ranks or "
        "give --size %d or more",
        N, a.size, N, a.size);
    bad = 1;
  }
  app_sched sch;
  memset(&sch, 0, sizeof sch);
  char pmeta[4096] = "equal"; /* the trace's app.part_sizes */
  double *sh = malloc((size_t)a.size * sizeof *sh);
  if (!bad) bad = app_agree(&a, !sh) || app_part_sizes(&a, sh, pmeta, sizeof pmeta) != 0;
  if (!bad) bad = app_sched_create(&a, &sch, S) != 0;
  if (!bad) bad = app_check_output(&a, "--json", a.json) || app_check_output(&a, "--out", out);
  if (bad) {
    app_sched_free(&sch), free(sh);
    MPI_Finalize();
    return 2;
  }

  const int64_t E = N * N;
  const int P = a.size, me = a.rank;
  char args[4300], sol[200]; /* the run's (recorded), the solution's (written with it) */
  snprintf(sol, sizeof sol, "--size %lld --walks %lld --steps %lld --seed %lld", N, W, S, seed);
  snprintf(args, sizeof args, "%s%s%s", sol, a.part_sizes ? " --part-sizes " : "",
           a.part_sizes ? a.part_sizes : "");
  int64_t *first = malloc((size_t)(P + 1) * sizeof *first),
          *nfirst = malloc((size_t)(P + 1) * sizeof *nfirst);
  double *cum = a.part_sizes ? malloc((size_t)(P + 1) * sizeof *cum) : NULL;
  for (int r = 0; first && r <= P; r++) first[r] = N * r / P * N; /* whole rows */
  for (int r = 0; cum && r < P; r++) cum[0] = 0, cum[r + 1] = sh[r];
  free(sh);
  if (first && cum) rows_by_shares(N, P, cum, first);
  int64_t n = first ? first[me + 1] - first[me] : 0;
  pstate *st = calloc((size_t)(n ? n : 1), sizeof *st);
  double *tw = sch.active ? calloc((size_t)(n ? n : 1), sizeof *tw)
                          : NULL; /* time of each point, for repartitions */
  double *step_loc = calloc((size_t)S, sizeof *step_loc),
         *step_s = calloc((size_t)S, sizeof *step_s);
  double *comp_loc = calloc((size_t)S, sizeof *comp_loc),
         *comp_s = calloc((size_t)S, sizeof *comp_s);
  double *rank_comp = calloc((size_t)P, sizeof *rank_comp);
  int64_t *reps = calloc((size_t)S, sizeof *reps);
  int err =
      app_agree(&a, !first || !nfirst || !st || (a.part_sizes && !cum) || (sch.active && !tw) ||
                        !step_loc || !step_s || !reps || !comp_loc || !comp_s || !rank_comp);
  if (err) app_error(&a, "%lld points: out of memory", (long long)E);
  MPI_Datatype T;
  MPI_Type_contiguous(3, MPI_INT64_T, &T);
  MPI_Type_commit(&T);

  lbsprof *prof = NULL;
  int wm = -1, ev_part = -1, ev_mig = -1;
  if (!err && a.trace) {
    lbsprof_opts o;
    lbsprof_opts_default(&o);
    o.trace_path = a.trace;
    int64_t g[3] = {N, N, 1}, lo[3] = {0, first[me] / N, 0}, hi[3] = {N, first[me + 1] / N, 1};
    char bpe[32];
    snprintf(bpe, sizeof bpe, "%zu", sizeof(pstate));
    int rc = lbsprof_init(a.comm, &o, &prof);
    if (!rc && (wm = lbsprof_value_metric(prof, "walk_steps", "steps")) < 0) rc = wm;
    /* the application's own costs at each repartition (the names the replay knows) */
    if (!rc && (ev_part = lbsprof_event_register(prof, LBSPROF_EVENT_PARTITION)) < 0) rc = ev_part;
    if (!rc && (ev_mig = lbsprof_event_register(prof, LBSPROF_EVENT_MIGRATION)) < 0) rc = ev_mig;
    if (!rc) rc = lbsprof_meta(prof, "name", a.name);
    if (!rc) rc = lbsprof_meta(prof, "args", args);
    if (!rc) rc = lbsprof_meta(prof, "part_sizes", pmeta);
    if (!rc) rc = lbsprof_meta(prof, "bytes_per_elem", bpe);
    if (!rc)
      rc = lbsprof_meta(prof, "bytes_per_edge", "0"); /* no halo: the points are independent */
    if (!rc) rc = lbsprof_mesh_box(prof, g, lo, hi);
    if (rc) { /* the profiler's calls agree over the ranks: every rank fails alike */
      app_error(&a, "--trace %s: %s", a.trace, lbsprof_errmsg());
      err = 1;
    }
  }

  const int setup_err = err; /* agreed: the arrays below exist on every rank unless it is set */
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
    if (rep) {
      double tp = app_now();
      split_by_time(&a, first, tw, E, cum, nfirst);
      double tm = app_now();
      if (migrate(&a, first, nfirst, &st, T)) {
        err = 1;
        break;
      }
      double te = app_now(), d[2] = {tm - tp, te - tm};
      memcpy(first, nfirst, (size_t)(P + 1) * sizeof *first);
      n = first[me + 1] - first[me];
      free(tw);
      tw = calloc((size_t)(n ? n : 1), sizeof *tw);
      if (app_agree(&a, !tw)) {
        app_error(&a, "repartition: out of memory");
        err = 1;
        break;
      }
      /* this rank's own seconds (the profiler's remap left out); valid ids and values */
      if (prof) lbsprof_event_add(prof, ev_part, d[0]), lbsprof_event_add(prof, ev_mig, d[1]);
      if (prof && remap_profile(&a, prof, first[me], n)) {
        err = 1;
        break;
      }
      MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE, MPI_MAX, a.comm);
      part_s += d[0], mig_s += d[1];
      reps[nrep++] = s;
      app_sched_repartitioned(&sch, s, llround((d[0] + d[1]) * 1e9));
    }
    /* the sweep */
    double tc = app_now();
    for (int64_t i = 0; i < n; i++) {
      int64_t gid = first[me] + i, x = gid % N, y = gid / N, steps = 0, hits = 0;
      double tp = tw ? app_now() : 0;
      if (prof) lbsprof_elem_begin(prof, i);
      for (int64_t w = 0; w < W; w++) {
        int hot;
        steps += lbs_walk_one((uint64_t)seed, N, gid, x, y, (uint64_t)(s * W + w), &hot);
        hits += hot;
      }
      if (prof) {
        lbsprof_elem_end(prof, i);
        lbsprof_set_value(prof, wm, i, (double)steps);
      }
      if (tw) tw[i] = (app_now() - tp) * 1e9;
      st[i].hits += hits, st[i].walks += W, st[i].steps += steps;
    }
    double te = app_now();
    if (prof) lbsprof_step_end(prof);
    app_sched_record(&a, &sch, s, llround((te - tc) * 1e9), llround((app_now() - ts) * 1e9));
    comp_loc[s] = te - tc;
    step_loc[s] = app_now() - ts;
  }
  MPI_Barrier(a.comm);
  double total = app_now() - t0;
  err = app_agree(&a, err);
  int prc = prof ? lbsprof_finalize(&prof) : 0;
  if (prc) app_error(&a, "--trace %s: the trace is incomplete: %s", a.trace, lbsprof_errmsg());
  double comp_sum =
      setup_err ? 0 : app_step_times(&a, S, step_loc, comp_loc, step_s, comp_s, rank_comp);

  /* the solution on rank 0 */
  pstate *all = me == 0 ? malloc((size_t)E * sizeof *all) : NULL;
  int *cnt = malloc((size_t)P * sizeof *cnt), *dsp = malloc((size_t)P * sizeof *dsp);
  for (int r = 0; first && cnt && dsp && r < P; r++)
    cnt[r] = (int)(first[r + 1] - first[r]), dsp[r] = (int)first[r];
  if (app_agree(&a, (me == 0 && !all) || !cnt || !dsp)) {
    app_error(&a, "gathering %lld points: out of memory", (long long)E);
    err = 1;
  }
  if (!err) MPI_Gatherv(st, (int)n, T, all, cnt, dsp, T, 0, a.comm);
  int oerr = 0;
  if (!err && me == 0) {
    double sum_sig = 0, max_sig = 0;
    FILE *f = out ? fopen(out, "w") : NULL;
    if (out && !f) {
      app_error(&a, "--out %s: cannot write", out);
      oerr = 1;
    }
    if (f) fprintf(f, "# laplace-mc %s: x y value sigma walks\n", sol);
    for (int64_t g = 0; g < E; g++) {
      double nw = (double)all[g].walks, p = all[g].hits / nw, val = 100 * p,
             sig = 100 * sqrt(p * (1 - p) / nw);
      sum_sig += sig, max_sig = sig > max_sig ? sig : max_sig;
      if (f)
        fprintf(f, "%lld %lld %.17g %.17g %lld\n", (long long)(g % N), (long long)(g / N), val, sig,
                (long long)all[g].walks);
    }
    if (f && fclose(f)) {
      app_error(&a, "--out %s: write failed", out);
      oerr = 1;
    }
    if (a.json) {
      lbs_buf x = {0};
      app_buf_printf(&x, "\"compute_s\":%.6f,\"rank_compute_s\":[", comp_sum);
      for (int r = 0; r < P; r++) app_buf_printf(&x, r ? ",%.6f" : "%.6f", rank_comp[r]);
      app_buf_printf(
          &x,
          "],\"size\":%lld,\"walks_per_point\":%lld,\"mean_sigma\":%.6g,\"max_sigma\":%.6g,\"owner\":[",
          N, W * S, sum_sig / (double)E, max_sig);
      for (int r = 0; r < P; r++)
        for (int64_t g = first[r]; g < first[r + 1]; g++) app_buf_printf(&x, g ? ",%d" : "%d", r);
      app_buf_printf(&x, "]");
      app_summary sm = {S,
                        E,
                        total,
                        step_s,
                        reps,
                        nrep,
                        part_s,
                        mig_s,
                        a.trace != NULL,
                        args,
                        (const char *)x.data};
      oerr |= app_write_json(&a, a.json, &sm) != 0;
      lbs_buf_free(&x);
    }
  }
  MPI_Type_free(&T);
  app_sched_free(&sch);
  free(first), free(nfirst), free(cum), free(st), free(tw), free(step_loc), free(step_s),
      free(comp_loc), free(comp_s), free(rank_comp), free(reps), free(all), free(cnt), free(dsp);
  oerr = app_agree(&a, oerr);
  MPI_Finalize();
  return err ? 1 : prc || oerr ? 1 : 0;
}
