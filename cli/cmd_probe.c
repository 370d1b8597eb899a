/* cmd_probe.c - lbsim grid probe: describe the machine it runs on as a grid file.
 *
 * Run under MPI with at least two ranks. It measures, with short real calls:
 *   - ping-pong between two ranks of one node (and between nodes, when there are several):
 *     latency from the smallest message, bandwidth from a least-squares fit of
 *     t(L) = a + L / b over the large messages;
 *   - the cost of one MPI_Barrier over all ranks;
 *   - the partitioner's cost (lbsim's own call, as the replay makes it) at a few sizes, fitted
 *     as fixed + per element;
 *   - a migration-like exchange (MPI_Alltoallv with packing) at a few sizes, for comparison
 *     with the link model the replay charges.
 * and writes a grid of one cluster per node (a nodetype with one core per rank there), links
 * from the ping-pongs, [sim] partitioning constants from the fit, and the barrier cost. The
 * ranks must be numbered node by node (the usual by-slot mapping), as lbsim numbers
 * processors, so simulated processor p is MPI rank p. */
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "lbs_config.h"
#include "lbs_grid.h"
#include "lbs_mpi.h"
#include "lbs_part.h"

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Least squares y = a + b x weighted by 1 / y^2 (relative errors: the small samples count as
 * much as the large ones); *rms the relative RMS residual. */
static void fit_line(const double *x, const double *y, int n, double *a, double *b, double *rms) {
  double s = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < n; i++) {
    double w = y[i] > 0 ? 1 / (y[i] * y[i]) : 1;
    s += w, sx += w * x[i], sy += w * y[i], sxx += w * x[i] * x[i], sxy += w * x[i] * y[i];
  }
  double d = s * sxx - sx * sx;
  *b = d != 0 ? (s * sxy - sx * sy) / d : 0;
  *a = (sy - *b * sx) / s;
  double r = 0;
  for (int i = 0; i < n; i++) {
    double e = (y[i] - (*a + *b * x[i])) / (y[i] > 0 ? y[i] : 1);
    r += e * e;
  }
  *rms = sqrt(r / n);
}

#define NSIZES 13 /* 8 B, then 1 KiB .. 2 MiB by x2 */

typedef struct {
  int measured;
  double size[NSIZES], oneway_us[NSIZES];
  double latency_us, bandwidth_gbps, fit_rms;
} pingpong;

/* Ping-pong between world ranks a and b (collective: every rank calls it; the others wait). */
static void ping_pong(int a, int b, int rank, int quick, char *buf, pingpong *pp) {
  memset(pp, 0, sizeof *pp);
  pp->measured = 1;
  for (int k = 0; k < NSIZES; k++) {
    int len = k == 0 ? 8 : 1024 << (k - 1);
    int reps = len <= 65536 ? (quick ? 30 : 200) : (quick ? 6 : 30);
    double t[200];
    for (int r = -3; r < reps; r++) { /* 3 warm-up round trips */
      double t0 = MPI_Wtime();
      if (rank == a) {
        MPI_Send(buf, len, MPI_BYTE, b, 7, MPI_COMM_WORLD);
        MPI_Recv(buf, len, MPI_BYTE, b, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == b) {
        MPI_Recv(buf, len, MPI_BYTE, a, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, len, MPI_BYTE, a, 7, MPI_COMM_WORLD);
      }
      if (r >= 0) t[r] = (MPI_Wtime() - t0) / 2 * 1e6;
    }
    double us = rank == a ? median(t, reps) : 0;
    MPI_Bcast(&us, 1, MPI_DOUBLE, a, MPI_COMM_WORLD);
    pp->size[k] = len, pp->oneway_us[k] = us;
  }
  /* latency: the smallest message; bandwidth: the slope over 64 KiB and more */
  pp->latency_us = pp->oneway_us[0];
  double a0, slope;
  fit_line(pp->size + 7, pp->oneway_us + 7, NSIZES - 7, &a0, &slope, &pp->fit_rms);
  pp->bandwidth_gbps = slope > 0 ? 8.0 / (slope * 1e3) : 8.0 * pp->size[NSIZES - 1] / (pp->oneway_us[NSIZES - 1] * 1e3);
}

static const char *usage_text =
    "usage: mpiexec -n R lbsim grid probe -o machine.ini [-f] [--json] [--partitioner NAME] [--quick]\n\n"
    "Describes the machine it runs on as a grid file, from short real measurements:\n"
    "  - latency and bandwidth from MPI ping-pongs between two ranks of one node, and\n"
    "    between nodes when the ranks span several (8 B to 2 MiB, median of repeats;\n"
    "    bandwidth from a least-squares fit over 64 KiB and more);\n"
    "  - the cost of one MPI_Barrier over all ranks (the bsp barrier per step);\n"
    "  - the partitioner's cost at 4 sizes, fitted as fixed + per element ([sim]\n"
    "    partition_fixed_us and partition_per_elem_ns);\n"
    "  - a migration-like MPI_Alltoallv with packing, reported beside the link model.\n"
    "The grid has one cluster per node, one processor per rank, speed 1 and ns_per_work 1:\n"
    "a trace profiled on this machine (time_ns) then replays as this machine. Needs at\n"
    "least 2 ranks, numbered node by node. Takes a few seconds (--quick: fewer repeats).\n\n"
    "options:\n"
    "  -o FILE            the grid file to write (required)\n"
    "  -f, --force        replace FILE if it exists\n"
    "  --partitioner NAME the partitioner whose cost is fitted (default zoltan:rcb)\n"
    "  --quick            fewer repeats (less accurate)\n"
    "  --json             the measurements as one JSON object on stdout\n\n"
    "example:\n"
    "  mpiexec -n 2 lbsim grid probe -o machine.ini\n"
    "  lbsim replay run.lbt --grid machine.ini --policy fixed:20\n";

/* --json: [[x, y], ...], x a whole number, y to 6 digits; NULL when out of memory. */
static json_t *samples_json(const double *x, const double *y, int n) {
  json_t *a = json_array();
  for (int i = 0; a && i < n; i++)
    if (json_array_append_new(a,
                              json_pack("[I,o]", (json_int_t)llround(x[i]), lbs_json_sig(y[i], 6))))
      json_decref(a), a = NULL;
  return a;
}

/* --json: a ping-pong's fit and its samples, null when not measured. */
static json_t *link_json(const pingpong *pp) {
  if (!pp->measured) return json_null();
  return json_pack("{s:o,s:o,s:o,s:o}", "latency_us", lbs_json_sig(pp->latency_us, 6),
                   "bandwidth_gbps", lbs_json_sig(pp->bandwidth_gbps, 6), "fit_rms",
                   lbs_json_sig(pp->fit_rms, 4), "sizes",
                   samples_json(pp->size, pp->oneway_us, NSIZES));
}

int cmd_grid_probe(int argc, char **argv) {
  enum { O_PART = 256, O_QUICK, O_JSON };
  static const struct option lo[] = {{"force", no_argument, 0, 'f'},         {"json", no_argument, 0, O_JSON},
                                     {"partitioner", required_argument, 0, O_PART}, {"quick", no_argument, 0, O_QUICK},
                                     {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
  const char *out = NULL, *pname = "zoltan:rcb";
  int force = 0, json = 0, quick = 0, c;
  while ((c = getopt_long(argc, argv, "ho:f", lo, NULL)) != -1) {
    switch (c) {
    case 'o': out = optarg; break;
    case 'f': force = 1; break;
    case O_JSON: json = 1; break;
    case O_PART: pname = optarg; break;
    case O_QUICK: quick = 1; break;
    case 'h': fputs(usage_text, stdout); return 0;
    default: return cli_usage("grid probe", "bad option");
    }
  }
  if (optind < argc) return cli_usage("grid probe", "unexpected argument '%s'", argv[optind]);
  if (!out) return cli_usage("grid probe", "missing -o FILE (the grid file to write)");
  MPI_Init(NULL, NULL);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    fprintf(stderr, "lbsim: grid probe: needs at least 2 MPI ranks to measure links between them (run "
                    "'mpiexec -n 2 lbsim grid probe -o %s')\n", out);
    MPI_Finalize();
    return 1;
  }
  int bad = rank == 0 && cli_check_output(out, force ? CLI_OUT_FORCE : CLI_OUT_NEW);
  if (lbs_mpi_agree(MPI_COMM_WORLD, bad ? LBS_IO : LBS_OK)) { /* said on rank 0 */
    MPI_Finalize();
    return 1;
  }
  lbs_partitioner *part = NULL;
  lbs_err e = lbs_part_create(pname, NULL, MPI_COMM_WORLD, &part);
  if (e) {
    if (rank == 0) cli_error("grid probe", e);
    MPI_Finalize();
    return 1;
  }
  /* nodes: ranks sharing memory; node k's first world rank */
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int lrank, lsize, leader;
  MPI_Comm_rank(node, &lrank);
  MPI_Comm_size(node, &lsize);
  leader = rank;
  MPI_Bcast(&leader, 1, MPI_INT, 0, node);
  int *leaders = malloc((size_t)size * sizeof *leaders);
  MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD);
  int nodes = 0, contiguous = 1, *first = malloc((size_t)size * sizeof *first), *count = calloc((size_t)size, sizeof *count);
  for (int r = 0; r < size; r++) {
    if (r == 0 || leaders[r] != leaders[r - 1]) {
      for (int k = 0; k < nodes; k++)
        if (first[k] == leaders[r]) contiguous = 0;
      first[nodes++] = leaders[r];
    }
    count[nodes - 1]++;
  }
  if (!contiguous) {
    if (rank == 0)
      fprintf(stderr, "lbsim: grid probe: the ranks are not numbered node by node (as lbsim numbers processors); "
                      "map them by slot (mpiexec --map-by slot)\n");
    free(leaders), free(first), free(count);
    lbs_part_destroy(&part);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 1;
  }
  char host[MPI_MAX_PROCESSOR_NAME] = "";
  int hl;
  MPI_Get_processor_name(host, &hl);
  char *buf = calloc(4u << 20, 1);
  /* 1. ping-pongs */
  pingpong intra, inter;
  memset(&intra, 0, sizeof intra), memset(&inter, 0, sizeof inter);
  int two = -1;
  for (int k = 0; k < nodes && two < 0; k++)
    if (count[k] >= 2) two = first[k];
  if (two >= 0) ping_pong(two, two + 1, rank, quick, buf, &intra);
  if (nodes >= 2) ping_pong(first[0], first[1], rank, quick, buf, &inter);
  /* 2. the barrier: medians of batches of 100 */
  double bt[40];
  int nb = quick ? 10 : 40;
  for (int i = 0; i < 100; i++) MPI_Barrier(MPI_COMM_WORLD);
  for (int k = 0; k < nb; k++) {
    double t0 = MPI_Wtime();
    for (int i = 0; i < 100; i++) MPI_Barrier(MPI_COMM_WORLD);
    bt[k] = (MPI_Wtime() - t0) / 100 * 1e6;
  }
  MPI_Allreduce(MPI_IN_PLACE, bt, nb, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double barrier_us = median(bt, nb);
  /* 3. the partitioner at 4 sizes: a 3-D box of cells with unit weights, one part per rank */
  const int64_t sizes[4] = {4096, 16384, 65536, 262144};
  double pe[4], pt[4];
  for (int k = 0; k < 4 && !e; k++) {
    int64_t E = sizes[k], f0 = E * rank / size, f1 = E * (rank + 1) / size, n = f1 - f0, side = 1;
    while (side * side * side < E) side++;
    int64_t *gid = malloc((size_t)(n ? n : 1) * sizeof *gid), *rf = malloc((size_t)(size + 1) * sizeof *rf);
    double *w = malloc((size_t)(n ? n : 1) * sizeof *w), *co = malloc((size_t)(3 * (n ? n : 1)) * sizeof *co);
    int *cur = malloc((size_t)(n ? n : 1) * sizeof *cur), *np = malloc((size_t)(n ? n : 1) * sizeof *np);
    double *ps = malloc((size_t)size * sizeof *ps);
    for (int r = 0; r <= size; r++) rf[r] = E * r / size;
    for (int p = 0; p < size; p++) ps[p] = 1.0 / size;
    for (int64_t i = 0; i < n; i++) {
      int64_t id = f0 + i;
      gid[i] = id, w[i] = 1, cur[i] = rank;
      co[3 * i] = (double)(id % side), co[3 * i + 1] = (double)(id / side % side), co[3 * i + 2] = (double)(id / side / side);
    }
    lbs_part_input in = {.comm = MPI_COMM_WORLD, .nlocal = n, .gid = gid, .weight = w, .dim = 3, .coords = co,
        .rank_first = rf, .current = cur, .nparts = size, .part_sizes = ps};
    double t[7];
    int reps = quick ? 3 : 7;
    for (int r = 0; r < reps && !e; r++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      e = lbs_part_run(part, &in, np);
      t[r] = MPI_Wtime() - t0;
      MPI_Allreduce(MPI_IN_PLACE, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    pe[k] = (double)E, pt[k] = e ? 0 : median(t, reps) * 1e6; /* us */
    free(gid), free(rf), free(w), free(co), free(cur), free(np), free(ps);
  }
  double pfix = 0, pslope = 0, prms = 0;
  if (!e) fit_line(pe, pt, 4, &pfix, &pslope, &prms);
  if (pfix < 0) pfix = 0; /* a fit below zero at E = 0: no fixed cost to speak of */
  if (pslope < 0) pslope = 0;
  /* 4. migration-like exchange: each rank sends n bytes to every other, packed and unpacked */
  const double mig_bytes[3] = {65536, 1048576, 4194304};
  double mt[3];
  for (int k = 0; k < 3; k++) {
    int per = (int)(mig_bytes[k] / (size - 1));
    char *sb = malloc((size_t)per * (size_t)size), *rb = malloc((size_t)per * (size_t)size), *pk = malloc((size_t)per * (size_t)size);
    int *cnt = malloc((size_t)size * sizeof *cnt), *dsp = malloc((size_t)size * sizeof *dsp);
    for (int r = 0; r < size; r++) cnt[r] = r == rank ? 0 : per, dsp[r] = r * per;
    memset(pk, rank, (size_t)per * (size_t)size);
    double t[9];
    int reps = quick ? 3 : 9;
    for (int r = 0; r < reps; r++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      memcpy(sb, pk, (size_t)per * (size_t)size); /* pack */
      MPI_Alltoallv(sb, cnt, dsp, MPI_BYTE, rb, cnt, dsp, MPI_BYTE, MPI_COMM_WORLD);
      memcpy(pk, rb, (size_t)per * (size_t)size); /* unpack */
      t[r] = MPI_Wtime() - t0;
      MPI_Allreduce(MPI_IN_PLACE, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    mt[k] = median(t, reps) * 1e6;
    free(sb), free(rb), free(pk), free(cnt), free(dsp);
  }
  double mfix, mslope, mrms;
  fit_line(mig_bytes, mt, 3, &mfix, &mslope, &mrms);
  double mig_gbps = mslope > 0 ? 8.0 / (mslope * 1e3) : 0;
  if (mfix < 0) mfix = 0;
  free(buf);
  lbs_part_destroy(&part);
  MPI_Comm_free(&node);
  int rc = 0;
  if (e) {
    if (rank == 0) rc = cli_error("grid probe: the partitioner", e);
    else rc = 1;
  }
  if (!rc && rank == 0) {
    lbs_buf b = {0};
    char when[64];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
    char line[1024];
#define PUT(...) (snprintf(line, sizeof line, __VA_ARGS__), lbs_buf_append(&b, line, strlen(line)))
    PUT("; written by 'lbsim grid probe' on %s at %s: %d MPI ranks on %d node%s\n", host, when, size, nodes,
        nodes > 1 ? "s" : "");
    PUT("; speed 1 and ns_per_work 1: a trace profiled here (time_ns) replays as this machine.\n");
    if (intra.measured)
      PUT("; ping-pong inside a node: %.3f us for 8 B, %.3f Gbit/s fitted over 64 KiB..2 MiB (rms %.1f%%)\n",
          intra.latency_us, intra.bandwidth_gbps, 100 * intra.fit_rms);
    if (inter.measured)
      PUT("; ping-pong between nodes: %.3f us for 8 B, %.3f Gbit/s (rms %.1f%%)\n", inter.latency_us,
          inter.bandwidth_gbps, 100 * inter.fit_rms);
    PUT("; MPI_Barrier over %d ranks: %.3f us (charged per bsp step)\n", size, barrier_us);
    PUT("; %s: %.1f us + %.2f ns per element (fit over 4096..262144 elements, rms %.1f%%)\n", pname, pfix,
        pslope * 1e3, 100 * prms);
    PUT("; migration-like MPI_Alltoallv with packing: %.1f us + %.3f Gbit/s (the replay charges the links)\n",
        mfix, mig_gbps);
    PUT("[grid]\nname = probed-%s\nns_per_work = 1\n", host);
    PUT("barrier_us = %.6g\n", barrier_us);
    if (inter.measured)
      PUT("inter_latency_us = %.6g\ninter_bandwidth_gbps = %.6g\ninter_shared = false\n", inter.latency_us,
          inter.bandwidth_gbps);
    for (int k = 0; k < nodes; k++) {
      PUT("\n[nodetype node%d]\nspeed = 1\ncores = %d\n", k, count[k]);
      pingpong *l = intra.measured ? &intra : &inter;
      PUT("\n[cluster node%d]\nnodes = 1\nnodetype = node%d\nlatency_us = %.6g\nbandwidth_gbps = %.6g\nshared = false\n",
          k, k, l->latency_us, l->bandwidth_gbps);
    }
    PUT("\n[sim]\n; fitted for %s\npartition_fixed_us = %.6g\npartition_per_elem_ns = %.6g\n", pname, pfix,
        pslope * 1e3);
#undef PUT
    if (!lbs_buf_append(&b, "", 1)) b.len--; /* NUL-terminated for the parser, not written */
    lbs_config *cfg = NULL;
    lbs_grid *g = NULL;
    e = lbs_config_parse_string("probed grid", (const char *)b.data, &cfg); /* it must load */
    if (!e) e = lbs_grid_from_config(cfg, &g);
    lbs_grid_destroy(&g);
    lbs_config_destroy(&cfg);
    if (e) rc = cli_error("grid probe", e);
    else rc = cli_replace_output(out, force) || cli_write_file(out, b.data, b.len);
    lbs_buf_free(&b);
    if (!rc && json) {
      json_t *o = json_object();
      int bad =
          lbs_json_set(o, "host", lbs_json_str(host)) ||
          lbs_json_set(o, "ranks", lbs_json_int(size)) ||
          lbs_json_set(o, "nodes", lbs_json_int(nodes)) ||
          lbs_json_set(o, "intra_node", link_json(&intra)) ||
          lbs_json_set(o, "inter_node", link_json(&inter)) ||
          lbs_json_set(o, "barrier_us", lbs_json_sig(barrier_us, 6)) ||
          lbs_json_set(o, "partition",
                       json_pack("{s:o,s:o,s:o,s:o,s:o}", "partitioner", lbs_json_str(pname),
                                 "fixed_us", lbs_json_sig(pfix, 6), "per_elem_ns",
                                 lbs_json_sig(pslope * 1e3, 6), "fit_rms", lbs_json_sig(prms, 4),
                                 "samples", samples_json(pe, pt, 4))) ||
          lbs_json_set(o, "migration",
                       json_pack("{s:o,s:o,s:o}", "fixed_us", lbs_json_sig(mfix, 6),
                                 "bandwidth_gbps", lbs_json_sig(mig_gbps, 6), "samples",
                                 samples_json(mig_bytes, mt, 3))) ||
          lbs_json_set(o, "output", lbs_json_str(out));
      if (bad) json_decref(o), o = NULL;
      rc = cli_json_print("grid probe", o, LBS_JSON_COMPACT, LBS_JSON_SHORT);
    } else if (!rc) {
      printf("probed %d ranks on %d node%s (%s)\n", size, nodes, nodes > 1 ? "s" : "", host);
      if (intra.measured)
        printf("  inside a node   latency %.3f us, bandwidth %.2f Gbit/s\n", intra.latency_us, intra.bandwidth_gbps);
      if (inter.measured)
        printf("  between nodes   latency %.3f us, bandwidth %.2f Gbit/s\n", inter.latency_us, inter.bandwidth_gbps);
      printf("  barrier         %.3f us\n  %-15s %.1f us + %.2f ns per element\n", barrier_us, pname, pfix, pslope * 1e3);
      printf("  migration       %.1f us + %.2f Gbit/s (MPI_Alltoallv with packing)\nwrote %s\n", mfix, mig_gbps, out);
    }
  }
  rc = lbs_mpi_agree(MPI_COMM_WORLD, rc ? LBS_IO : LBS_OK) ? 1 : 0; /* rank 0's outputs */
  free(leaders), free(first), free(count);
  MPI_Finalize();
  return rc;
}
