/* cmd_export.c - lbsim export simgrid: a replay written as SimGrid SMPI time-independent traces
 * with the platform, so that SMPI can replay what lbsim simulated.
 *
 * The results store keeps per-step and per-processor compute times but not who sends how
 * many bytes to whom, so the command replays the trace itself (lbs_replay_record) with the
 * options of lbsim replay, and writes what the replay does as it does it:
 *   step s, processor p:  compute <its ns x its speed>, send <bytes> to each halo neighbour,
 *                         recv from each; bsp: barrier, sleep <barrier_us>
 *   repartition:          barrier, sleep <partitioning time>, the migration's sends and
 *                         receives, barrier
 * SMPI adds a 16-byte envelope to every message (smpi_request.cpp), so a message of B bytes
 * is written as B - 16 (--envelope) for the wire to carry lbsim's B. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "lbs_mpi.h"
#include "lbs_part.h"
#include "lbs_policy.h"
#include "lbs_sim.h"

/* The SMPI settings under which SMPI models what lbsim models (run.sh; the cross-check's
 * tests/sim/smpi_replay.cpp gives the same). */
#define SMPI_CFG                                                                                       \
  "--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0 \\\n"               \
  "  --cfg=smpi/send-is-detached-thresh:2147483647 --cfg=smpi/async-small-thresh:2147483647"

static void usage(void) {
  printf("usage: [mpirun -n R] lbsim export simgrid t.lbt --grid g.ini [replay options] -o DIR [-f]\n\n"
         "Replays the trace as 'lbsim replay' does (same options, same answer) and writes the run\n"
         "for SimGrid's SMPI to replay: one time-independent trace per simulated processor and\n"
         "the platform. The results store does not keep who sends what to whom, hence the replay.\n\n"
         "  DIR/platform.xml   host pN per processor (its speed x 1 Gflop/s); a link per cluster\n"
         "                     network and per pair of clusters with the grid's latency and\n"
         "                     bandwidth, SHARED where the grid says shared, else FATPIPE; a\n"
         "                     SPLITDUPLEX link per NIC (nic_gbps); a route per pair of processors\n"
         "  DIR/rank_N.txt     processor N's actions: compute <flops> (its simulated ns x its\n"
         "                     speed), send/recv <peer> 0 <bytes> for halos and migrations,\n"
         "                     barrier and sleep <s> (bsp's barrier_us, partitioning time)\n"
         "  DIR/replay.txt, DIR/hostfile   for smpirun -replay: trace N runs on host pN\n"
         "  DIR/run.sh         runs smpirun with the settings under which SMPI models what lbsim\n"
         "                     does (CM02 flows, no cross-traffic, no TCP window, eager sends)\n"
         "  DIR/lbsim.json     lbsim's answer (as replay --json); DIR/README: what agrees, and why\n\n"
         "options (as lbsim replay):\n"
         "  --grid FILE, --partitioner NAME, --policy NAME, --mode bsp|des, --metric NAME,\n"
         "  --steps A:B, --cost model|measured|zero, --cost-scale X, --part-fixed-us US,\n"
         "  --part-per-elem-ns NS, --partition-metric NAME\n"
         "  --set SECTION.KEY=VAL  override a grid key (replay's -o; here -o is the output)\n"
         "                         Each replay flag is the [sim] override it names (--policy X\n"
         "                         is --set sim.policy=X): the defaults, then the grid file's\n"
         "                         [sim], then the flags and --set from left to right (the later\n"
         "                         wins)\n"
         "  -o, --output DIR       the output directory: new, empty, or with -f one lbsim wrote\n"
         "  -f, --force            replace an earlier export in DIR\n"
         "  --envelope BYTES       subtracted from every message's size: SMPI adds a 16-byte MPI\n"
         "                         envelope (default 16; 0 writes lbsim's sizes as they are)\n"
         "  --json                 lbsim's answer as one JSON object on stdout\n\n"
         "examples:\n"
         "  lbsim trace gen --kind bump --mesh 16x8x8 --steps 20 -o bump.lbt\n"
         "  lbsim export simgrid bump.lbt --grid examples/grids/two_sites.ini --mode des \\\n"
         "      --policy fixed:10 -o smpi\n"
         "  smpi/run.sh            # SMPI prints 'Simulation time T'; lbsim's: smpi/lbsim.json\n");
}

/* ---------------------------------------------------------------- the recorder */

typedef struct {
  int keep; /* rank 0 writes; the others replay along */
  int P, bsp;
  double envelope;
  int64_t barrier_ns;
  const double *rate; /* P: each processor's speed */
  lbs_buf *out;       /* P: each processor's actions */
  int64_t messages;
  double rounded; /* the largest |bytes - whole bytes| written */
} recorder;

static lbs_err put(lbs_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static lbs_err put(lbs_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  lbs_err e = n < 0 ? lbs_fail(LBS_INVAL, "export: a bad format") : lbs_buf_reserve(b, (size_t)n + 1);
  if (e) return e;
  va_start(ap, fmt);
  vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
  return LBS_OK;
}

/* The size written for a transfer of bytes: whole bytes, less the envelope SMPI adds. */
static long long msg_size(recorder *r, double bytes) {
  double whole = (double)llround(bytes);
  if (fabs(bytes - whole) > r->rounded) r->rounded = fabs(bytes - whole);
  double s = whole - r->envelope;
  return s > 0 ? (long long)s : 0;
}

static lbs_err transfers(recorder *r, const lbs_transfer *xs, int nx) {
  lbs_err e = LBS_OK;
  for (int i = 0; !e && i < nx; i++) e = put(&r->out[xs[i].p], "%d send %d 0 %lld\n", xs[i].p, xs[i].q, msg_size(r, xs[i].bytes));
  for (int i = 0; !e && i < nx; i++) e = put(&r->out[xs[i].q], "%d recv %d 0 %lld\n", xs[i].q, xs[i].p, msg_size(r, xs[i].bytes));
  r->messages += nx;
  return e;
}

static lbs_err on_repartition(void *arg, int64_t step, int64_t partition_ns, const lbs_transfer *mig, int nmig) {
  recorder *r = arg;
  (void)step;
  if (!r->keep) return LBS_OK;
  lbs_err e = LBS_OK;
  for (int p = 0; !e && p < r->P; p++) {
    e = put(&r->out[p], "%d barrier\n", p);
    if (!e && partition_ns > 0) e = put(&r->out[p], "%d sleep %.9f\n", p, 1e-9 * (double)partition_ns);
  }
  if (!e) e = transfers(r, mig, nmig);
  for (int p = 0; !e && p < r->P; p++) e = put(&r->out[p], "%d barrier\n", p);
  return e;
}

static lbs_err on_step(void *arg, int64_t step, const int64_t *load_ns, int procs, const lbs_transfer *halo, int nhalo) {
  recorder *r = arg;
  (void)step;
  if (!r->keep) return LBS_OK;
  lbs_err e = LBS_OK;
  for (int p = 0; !e && p < procs; p++)
    if (load_ns[p] > 0) e = put(&r->out[p], "%d compute %.17g\n", p, (double)load_ns[p] * r->rate[p]);
  if (!e) e = transfers(r, halo, nhalo);
  for (int p = 0; !e && r->bsp && p < procs; p++) {
    e = put(&r->out[p], "%d barrier\n", p);
    if (!e && r->barrier_ns > 0) e = put(&r->out[p], "%d sleep %.9f\n", p, 1e-9 * (double)r->barrier_ns);
  }
  return e;
}

/* ---------------------------------------------------------------- the files */

/* A link element: latency in ns, bandwidth in bytes/s. */
static lbs_err link_xml(lbs_buf *b, const char *id, int64_t lat_ns, double gbps, const char *policy) {
  return put(b, "    <link id=\"%s\" bandwidth=\"%.17gBps\" latency=\"%lldns\" sharing_policy=\"%s\"/>\n", id, gbps * 1e9 / 8,
             (long long)lat_ns, policy);
}

static lbs_err platform_xml(const lbs_grid *g, lbs_buf *b) {
  int P = lbs_grid_procs(g), C = lbs_grid_nclusters(g);
  lbs_err e = put(b, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                     "<!-- lbsim export simgrid: %d processors in %d clusters (see README) -->\n"
                     "<platform version=\"4.1\">\n  <zone id=\"lbsim\" routing=\"Full\">\n", P, C);
  for (int p = 0; !e && p < P; p++) e = put(b, "    <host id=\"p%d\" speed=\"%.17gf\"/>\n", p, lbs_grid_rate(g, p) * 1e9);
  char id[64];
  for (int a = 0; !e && a < C; a++)
    for (int c = a; !e && c < C; c++) {
      lbs_link l = lbs_grid_link(g, a, c);
      if (a == c) snprintf(id, sizeof id, "net_c%d", a);
      else snprintf(id, sizeof id, "link_c%d_c%d", a, c);
      e = link_xml(b, id, l.lat_ns, l.bw_gbps, l.shared ? "SHARED" : "FATPIPE");
    }
  for (int p = 0; !e && p < P; p++)
    if (lbs_grid_nic_gbps(g, p) > 0) {
      snprintf(id, sizeof id, "nic_p%d", p);
      e = link_xml(b, id, 0, lbs_grid_nic_gbps(g, p), "SPLITDUPLEX");
    }
  for (int p = 0; !e && p < P; p++)
    for (int q = 0; !e && q < P; q++) {
      if (p == q) continue;
      int a = lbs_grid_proc_cluster(g, p), c = lbs_grid_proc_cluster(g, q);
      e = put(b, "    <route src=\"p%d\" dst=\"p%d\" symmetrical=\"NO\">", p, q);
      if (!e && lbs_grid_nic_gbps(g, p) > 0) e = put(b, "<link_ctn id=\"nic_p%d\" direction=\"UP\"/>", p);
      if (!e && a == c) e = put(b, "<link_ctn id=\"net_c%d\"/>", a);
      if (!e && a != c) e = put(b, "<link_ctn id=\"link_c%d_c%d\"/>", a < c ? a : c, a < c ? c : a);
      if (!e && lbs_grid_nic_gbps(g, q) > 0) e = put(b, "<link_ctn id=\"nic_p%d\" direction=\"DOWN\"/>", q);
      if (!e) e = put(b, "</route>\n");
    }
  if (!e) e = put(b, "  </zone>\n</platform>\n");
  return e;
}

static lbs_err readme(const lbs_grid *g, const lbs_replay_result *res, const recorder *r, const char *trace,
                      const char *grid, lbs_buf *b) {
  int P = lbs_grid_procs(g), C = lbs_grid_nclusters(g);
  int fifo = lbs_grid_sharing(g) == LBS_SHARING_FIFO;
  lbs_err e = put(b, "lbsim export simgrid\n====================\n\n"
                     "The replay of %.1000s on %.1000s, %s, partitioner %.200s, policy %.200s: %d processors,\n"
                     "%lld steps, %lld messages. lbsim's total: %.9f s (lbsim.json).\n\n",
                  trace, grid, res->mode == LBS_MODE_BSP ? "bsp" : "des", res->partitioner, res->policy, P,
                  (long long)res->steps, (long long)r->messages, 1e-9 * (double)res->total_ns);
  if (!e) e = put(b, "Replay it with SimGrid's SMPI (Debian: libsimgrid-dev, which has smpirun):\n\n"
                     "    ./run.sh      # prints 'Simulation time T' (in s, to the us)\n\n"
                     "run.sh runs smpirun -replay replay.txt with platform.xml and hostfile, and:\n"
                     "  network/model:CM02          SimGrid's flow model, without SMPI's piecewise factors\n"
                     "  network/crosstraffic:0      no share of a flow's rate charged on the way back\n"
                     "  network/TCP-gamma:0         no TCP window bound on a flow's rate\n"
                     "  smpi/send-is-detached-thresh and smpi/async-small-thresh at 2^31 - 1: every send\n"
                     "                              goes when posted, the sender does not wait (lbsim's)\n\n"
                     "Clusters: ");
  for (int c = 0; !e && c < C; c++) e = put(b, "%sc%d = %.200s", c ? ", " : "", c, lbs_grid_cluster_name(g, c));
  if (!e) e = put(b, ".\n\nWhat agrees with lbsim, and what does not:\n"
                     "- compute: exactly (hosts run at the processor's speed x 1 Gflop/s, the amounts are the\n"
                     "  simulated ns x that speed).\n"
                     "- transfers: lbsim's sharing = fair is SimGrid's CM02 flow model: latency first, then\n"
                     "  max-min fair rates weighted by 1/latency. %s\n"
                     "- message sizes: SMPI adds a 16-byte envelope to every message; the sizes written are\n"
                     "  lbsim's less %g bytes%s, so the wire carries lbsim's bytes (messages below that\n"
                     "  carry the envelope: a few ns more). lbsim's sizes are whole bytes here%s.\n"
                     "- des: on a shared link or NIC, lbsim lets an earlier step's transfers go first (a later\n"
                     "  step gets what they leave); SMPI shares among all flows in flight. They agree unless\n"
                     "  transfers of different steps overlap on a shared resource.\n"
                     "- barriers (bsp steps, repartitions): SMPI's MPI_Barrier is made of messages, each with\n"
                     "  its latency and envelope, and lets ranks go at slightly different times; lbsim's is\n"
                     "  free and exact, plus barrier_us (%.3f us) per bsp step. With zero latencies the\n"
                     "  difference is a few envelopes per barrier; tests/sim/smpi_replay.cpp (--ideal-barrier)\n"
                     "  replaces SMPI's by an exact one to compare the rest to the ns.\n"
                     "- partitioning: a sleep of the time lbsim charged.\n",
                  fifo ? "This grid has sharing = fifo, which SimGrid does not model: only transfers\n"
                         "  that never meet on a shared link or NIC agree."
                       : "This grid has sharing = fair.",
                  r->envelope, r->envelope != 16 ? " (--envelope)" : "",
                  r->rounded > 0 ? " (some were not: rounded by up to a byte)" : "", 1e-3 * (double)lbs_grid_barrier_ns(g));
  return e;
}

static int write_buf(const char *dir, const char *name, const lbs_buf *b) {
  char path[4400];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return cli_write_file(path, b->data ? (const void *)b->data : "", b->len);
}

static int write_all(const char *dir, const lbs_grid *g, const lbs_replay_result *res, recorder *r, const char *trace,
                     const char *grid) {
  int P = lbs_grid_procs(g), bad = 0;
  lbs_buf b = {0};
  char name[64];
  for (int p = 0; !bad && p < P; p++) {
    snprintf(name, sizeof name, "rank_%d.txt", p);
    lbs_err e = put(&r->out[p], "%d finalize\n", p);
    bad = e ? cli_error("export simgrid", e) : write_buf(dir, name, &r->out[p]);
  }
  lbs_err e = LBS_OK;
  for (int p = 0; !e && p < P; p++) e = put(&b, "rank_%d.txt\n", p);
  if (!bad) bad = e ? cli_error("export simgrid", e) : write_buf(dir, "replay.txt", &b);
  b.len = 0;
  for (int p = 0; !e && p < P; p++) e = put(&b, "p%d\n", p);
  if (!bad) bad = e ? cli_error("export simgrid", e) : write_buf(dir, "hostfile", &b);
  b.len = 0;
  if (!bad) bad = (e = platform_xml(g, &b)) ? cli_error("export simgrid", e) : write_buf(dir, "platform.xml", &b);
  b.len = 0;
  if (!bad) bad = (e = readme(g, res, r, trace, grid, &b)) ? cli_error("export simgrid", e) : write_buf(dir, "README", &b);
  b.len = 0;
  if (!bad) {
    e = put(&b, "#!/bin/sh\n# lbsim export simgrid: replays this run with SimGrid's SMPI (see README).\n"
                "cd \"$(dirname \"$0\")\" || exit 1\n"
                "exec smpirun -np %d -platform platform.xml -hostfile hostfile -replay replay.txt \\\n  " SMPI_CFG
                " \\\n  --log=xbt_cfg.thresh:warning --log=smpi_config.thresh:error \"$@\"\n", P);
    bad = e ? cli_error("export simgrid", e) : write_buf(dir, "run.sh", &b);
    char path[4400];
    snprintf(path, sizeof path, "%s/run.sh", dir);
    mode_t um = umask(0);
    umask(um);
    if (!bad && chmod(path, 0777 & ~um)) {
      fprintf(stderr, "lbsim: %s: cannot make it executable: %s\n", path, strerror(errno));
      bad = 1;
    }
  }
  if (!bad) { /* lbsim's answer */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
      fprintf(stderr, "lbsim: export simgrid: out of memory\n");
      bad = 1;
    } else {
      json_t *o = lbs_replay_json(res);
      int jbad = lbs_json_write(f, o, LBS_JSON_COMPACT, LBS_JSON_SHORT);
      json_decref(o);
      if (fclose(f) || jbad) {
        fprintf(stderr, "lbsim: export simgrid: lbsim.json: out of memory\n");
        bad = 1;
      } else {
        lbs_buf j = {(uint8_t *)text, len, len};
        bad = write_buf(dir, "lbsim.json", &j);
      }
      free(text);
    }
  }
  lbs_buf_free(&b);
  return bad;
}

/* ---------------------------------------------------------------- the command */

enum { O_GRID = 1000, O_JSON, O_SET, O_ENVELOPE };

static int export_simgrid(int argc, char **argv) {
  static const struct option lo[] = {{"grid", required_argument, 0, O_GRID},
                                     CLI_REPLAY_OPTIONS,
                                     {"json", no_argument, 0, O_JSON},
                                     {"set", required_argument, 0, O_SET},
                                     {"envelope", required_argument, 0, O_ENVELOPE},
                                     {"output", required_argument, 0, 'o'},
                                     {"force", no_argument, 0, 'f'},
                                     {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  lbs_replay_opts o;
  lbs_replay_opts_default(&o);
  cli_overrides over = {0}; /* --set and the replay flags, in command-line order */
  const char *grid_path = NULL, *out = NULL;
  int json = 0, force = 0, c, rc = 0;
  double envelope = 16;
  const char *cmd = "export simgrid";
  while (!rc && (c = getopt_long(argc, argv, "ho:f", lo, NULL)) != -1) {
    if (c >= CLI_RO_FIRST && c <= CLI_RO_LAST) {
      rc = cli_replay_flag(&over, cmd, c, optarg);
      continue;
    }
    switch (c) {
    case O_GRID: grid_path = optarg; break;
    case O_SET: rc = cli_override(&over, cmd, optarg); break;
    case 'o':
      if (strchr(optarg, '=') && !strchr(optarg, '/'))
        rc = cli_usage(cmd, "-o names the output directory here; override grid keys with --set %s", optarg);
      out = optarg;
      break;
    case 'f': force = 1; break;
    case O_JSON: json = 1; break;
    case O_ENVELOPE: rc = cli_parse_f64("--envelope", optarg, 0, 1e9, &envelope); break;
    case 'h': usage(); cli_overrides_free(&over); return 0;
    default: rc = cli_usage(cmd, "bad option");
    }
  }
  if (!rc && optind != argc - 1) rc = cli_usage(cmd, "expected one trace file");
  else if (!rc && !grid_path) rc = cli_usage(cmd, "missing --grid FILE");
  else if (!rc && !out) rc = cli_usage(cmd, "missing -o DIR");
  if (rc) return cli_overrides_free(&over), rc;
  const char *trace_path = argv[optind];
  MPI_Init(NULL, NULL);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* the output before the work (rank 0 writes it; every rank learns the answer) */
  cli_outdir od = {0};
  int bad = rank == 0 && cli_outdir_check_kind(&od, out, force, CLI_DIR_SIMGRID);
  if (lbs_mpi_agree(MPI_COMM_WORLD, bad ? LBS_IO : LBS_OK)) { /* said on rank 0 */
    cli_overrides_free(&over);
    MPI_Finalize();
    return 1;
  }
  lbs_config *cfg = NULL;
  lbs_grid *g = NULL;
  lbs_trace *t = NULL;
  lbs_replay_result *res = NULL;
  recorder rec = {rank == 0, 0, 0, envelope, 0, NULL, NULL, 0, 0};
  double *rate = NULL;
  lbs_err e = lbs_config_load(grid_path, &cfg);
  if (!e) e = cli_overrides_apply(&over, cfg); /* --set and the flags, left to right */
  if (!e) e = lbs_grid_from_config(cfg, &g);
  if (!e) e = lbs_replay_opts_from_config(cfg, &o); /* [sim]: the grid file's, then the command line's */
  if (!e && (size_t)lbs_grid_procs(g) > 65536)
    e = lbs_fail(LBS_RANGE, "%s: %d processors: an export writes a route per pair of them, more than this command does",
                 grid_path, lbs_grid_procs(g));
  if (!e) {
    rec.P = lbs_grid_procs(g);
    rec.bsp = o.mode == LBS_MODE_BSP;
    rec.barrier_ns = lbs_grid_barrier_ns(g);
    rate = malloc((size_t)rec.P * sizeof *rate);
    rec.out = calloc((size_t)rec.P, sizeof *rec.out);
    if (!rate || !rec.out) e = lbs_fail(LBS_NOMEM, "export: %d processors", rec.P);
    for (int p = 0; !e && p < rec.P; p++) {
      rate[p] = lbs_grid_rate(g, p);
      if (rec.keep) e = put(&rec.out[p], "%d init\n", p);
    }
    rec.rate = rate;
  }
  if (!e) e = lbs_trace_open(trace_path, &t);
  cli_progress prog;
  cli_progress_start(&prog, "replaying", 0);
  if (!e) {
    o.cfg = cfg;
    if (rank == 0) {
      cli_progress_start(&prog, "replaying", lbs_trace_steps(t));
      o.progress = cli_progress_cb;
      o.progress_arg = &prog;
    }
    lbs_replay_recorder hooks = {on_repartition, on_step, &rec};
    e = lbs_replay_record(t, g, &o, &hooks, MPI_COMM_WORLD, &res);
    cli_progress_end(&prog);
  }
  rc = 0;
  if (e) {
    if (rank == 0) cli_error(cmd, e);
    rc = 1;
  } else if (rank == 0) {
    rc = cli_outdir_begin(&od) || write_all(od.tmp, g, res, &rec, trace_path, grid_path) || cli_outdir_commit(&od);
    cli_outdir_abort(&od);
    if (!rc && json)
      rc = cli_json_print(cmd, lbs_replay_json(res), LBS_JSON_COMPACT, LBS_JSON_SHORT);
    else if (!rc)
      printf("export        %s: %d processors, %lld steps, %lld messages; lbsim: %.9f s (%s); replay: %s/run.sh\n",
             od.dir, res->procs, (long long)res->steps, (long long)rec.messages, 1e-9 * (double)res->total_ns,
             res->mode == LBS_MODE_BSP ? "bsp" : "des", od.dir);
  }
  rc = lbs_mpi_agree(MPI_COMM_WORLD, rc ? LBS_IO : LBS_OK) ? 1 : 0; /* rank 0's outputs */
  for (int p = 0; rec.out && p < rec.P; p++) lbs_buf_free(&rec.out[p]);
  free(rec.out);
  free(rate);
  lbs_replay_result_free(&res);
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  cli_overrides_free(&over);
  MPI_Finalize();
  return rc;
}

int cmd_export(int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "simgrid")) return export_simgrid(argc - 1, argv + 1);
  if (argc >= 2 && !strcmp(argv[1], "vtk")) return cmd_export_vtk(argc - 1, argv + 1);
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    printf("usage: lbsim export simgrid|vtk t.lbt --grid g.ini [replay options] -o DIR\n\n"
           "Writes a replay in another tool's formats. Formats:\n"
           "  simgrid   SimGrid SMPI time-independent traces and platform ('lbsim export simgrid --help')\n"
           "  vtk       VTK XML files per step (cost, owner, moved) and a .pvd time series for ParaView\n"
           "            ('lbsim export vtk --help')\n");
    return 0;
  }
  if (argc < 2) return cli_usage("export", "expected a format: simgrid or vtk");
  return cli_usage("export", "unknown format '%s' (known: simgrid, vtk)", argv[1]);
}
