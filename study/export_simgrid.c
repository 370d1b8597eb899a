/* export_simgrid.c - a replay recorded as SimGrid SMPI time-independent traces, with the
 * platform, so that SMPI can replay what lbsim simulated (lbs_export.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lbs_export.h"
#include "study_int.h"

/* The SMPI settings under which SMPI models what lbsim models (run.sh; the cross-check's
 * tests/sim/smpi_replay.cpp gives the same). */
#define SMPI_CFG                                                                                   \
  "--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0 \\\n"           \
  "  --cfg=smpi/send-is-detached-thresh:2147483647 --cfg=smpi/async-small-thresh:2147483647 \\\n"  \
  "  --cfg=network/optim:Full"

struct lbs_simgrid {
  const lbs_grid *g;        /* the session's */
  const char *trace, *grid; /* the session's paths, for README */
  int keep;                 /* this rank writes; the others replay along */
  int P, bsp;
  double envelope;
  int64_t barrier_ns;
  double *rate; /* P: each processor's speed */
  lbs_buf *out; /* P: each processor's actions */
  int64_t messages;
  double rounded; /* the largest |bytes - whole bytes| written */
  lbs_replay_recorder hooks;
};

/* How platform.xml describes the network. Every kind gives each pair of processors the links
 * the per-pair routes name, in the same order (p's NIC up, the cluster's network or the link
 * between the clusters, q's NIC down), so SMPI builds the same flows; only the per-pair kind
 * grows as P^2. SimGrid 3.32's zones cannot do better for the rest: a star's host links are in
 * every route of the host, its routes to other zones included, and a graph's edges need a link. */
typedef enum {
  PLAT_STAR,  /* one cluster, without NICs or on a shared network: a Cluster (star) zone */
  PLAT_GRAPH, /* every processor has a NIC: a DijkstraCache zone, two routers per cluster */
  PLAT_PAIRS  /* otherwise (several clusters, a processor without a NIC): a Full zone, a route
                 per pair of processors */
} plat_kind;

static plat_kind platform_kind(const lbs_grid *g) {
  int P = lbs_grid_procs(g), nics = 0;
  for (int p = 0; p < P; p++) nics += lbs_grid_nic_gbps(g, p) > 0;
  if (lbs_grid_nclusters(g) == 1 && (nics == 0 || lbs_grid_link(g, 0, 0).shared)) return PLAT_STAR;
  if (nics == P) return PLAT_GRAPH;
  return PLAT_PAIRS;
}

/* ---------------------------------------------------------------- the recorder */

/* The size written for a transfer of bytes: whole bytes, less the envelope SMPI adds. */
static long long msg_size(lbs_simgrid *r, double bytes) {
  double whole = (double)llround(bytes);
  if (fabs(bytes - whole) > r->rounded) r->rounded = fabs(bytes - whole);
  double s = whole - r->envelope;
  return s > 0 ? (long long)s : 0;
}

static lbs_err transfers(lbs_simgrid *r, const lbs_transfer *xs, int nx) {
  lbs_err e = LBS_OK;
  for (int i = 0; !e && i < nx; i++)
    e = lbs__bprintf(&r->out[xs[i].p], "%d send %d 0 %lld\n", xs[i].p, xs[i].q,
                     msg_size(r, xs[i].bytes));
  for (int i = 0; !e && i < nx; i++)
    e = lbs__bprintf(&r->out[xs[i].q], "%d recv %d 0 %lld\n", xs[i].q, xs[i].p,
                     msg_size(r, xs[i].bytes));
  r->messages += nx;
  return e;
}

static lbs_err on_repartition(void *arg, int64_t step, int64_t partition_ns, int64_t migration_ns,
                              const lbs_transfer *mig, int nmig) {
  lbs_simgrid *r = arg;
  (void)step;
  if (!r->keep) return LBS_OK;
  lbs_err e = LBS_OK;
  for (int p = 0; !e && p < r->P; p++) {
    e = lbs__bprintf(&r->out[p], "%d barrier\n", p);
    if (!e && partition_ns > 0)
      e = lbs__bprintf(&r->out[p], "%d sleep %.9f\n", p, 1e-9 * (double)partition_ns);
    if (!e && migration_ns > 0) /* the recorded or the modelled migration, no transfers */
      e = lbs__bprintf(&r->out[p], "%d sleep %.9f\n", p, 1e-9 * (double)migration_ns);
  }
  if (!e) e = transfers(r, mig, nmig);
  for (int p = 0; !e && p < r->P; p++) e = lbs__bprintf(&r->out[p], "%d barrier\n", p);
  return e;
}

static lbs_err on_step(void *arg, int64_t step, const int64_t *load_ns, int procs,
                       const lbs_transfer *halo, int nhalo) {
  lbs_simgrid *r = arg;
  (void)step;
  if (!r->keep) return LBS_OK;
  lbs_err e = LBS_OK;
  for (int p = 0; !e && p < procs; p++)
    if (load_ns[p] > 0)
      e = lbs__bprintf(&r->out[p], "%d compute %.17g\n", p, (double)load_ns[p] * r->rate[p]);
  if (!e) e = transfers(r, halo, nhalo);
  for (int p = 0; !e && r->bsp && p < procs; p++) {
    e = lbs__bprintf(&r->out[p], "%d barrier\n", p);
    if (!e && r->barrier_ns > 0)
      e = lbs__bprintf(&r->out[p], "%d sleep %.9f\n", p, 1e-9 * (double)r->barrier_ns);
  }
  return e;
}

lbs_err lbs_simgrid_create(const lbs_session *s, double envelope, int keep, lbs_simgrid **out) {
  *out = NULL;
  const lbs_grid *g = s->grid;
  if (lbs_grid_procs(g) > 65536 && platform_kind(g) == PLAT_PAIRS)
    return lbs_fail(
        LBS_RANGE,
        "%s: %d processors: this grid's export writes a route per pair of them (more "
        "than one cluster, not every processor with a NIC), more than this command does",
        s->grid_path, lbs_grid_procs(g));
  lbs_simgrid *x = calloc(1, sizeof *x);
  if (!x) return lbs_fail(LBS_NOMEM, "export: a recorder");
  *x = (lbs_simgrid){.g = g,
                     .trace = s->trace_path,
                     .grid = s->grid_path,
                     .keep = keep,
                     .P = lbs_grid_procs(g),
                     .bsp = s->opts.mode == LBS_MODE_BSP,
                     .envelope = envelope,
                     .barrier_ns = lbs_grid_barrier_ns(g)};
  x->hooks = (lbs_replay_recorder){on_repartition, on_step, x};
  x->rate = malloc((size_t)x->P * sizeof *x->rate);
  x->out = calloc((size_t)x->P, sizeof *x->out);
  lbs_err e = !x->rate || !x->out ? lbs_fail(LBS_NOMEM, "export: %d processors", x->P) : LBS_OK;
  for (int p = 0; !e && p < x->P; p++) {
    x->rate[p] = lbs_grid_rate(g, p);
    if (keep) e = lbs__bprintf(&x->out[p], "%d init\n", p);
  }
  if (e) lbs_simgrid_destroy(&x);
  *out = x;
  return e;
}

const lbs_replay_recorder *lbs_simgrid_recorder(lbs_simgrid *x) { return &x->hooks; }

int64_t lbs_simgrid_messages(const lbs_simgrid *x) { return x->messages; }

void lbs_simgrid_destroy(lbs_simgrid **x) {
  if (!*x) return;
  for (int p = 0; (*x)->out && p < (*x)->P; p++) lbs_buf_free(&(*x)->out[p]);
  free((*x)->out);
  free((*x)->rate);
  free(*x);
  *x = NULL;
}

/* ---------------------------------------------------------------- the files */

/* A link element: latency in ns, bandwidth in bytes/s. A backbone is a star's SHARED link that
 * SimGrid puts into every host link's route (once in a route: a star removes duplicates). */
static lbs_err link_xml(lbs_buf *b, const char *id, int64_t lat_ns, double gbps,
                        const char *policy) {
  if (!strcmp(policy, "backbone"))
    return lbs__bprintf(b, "    <backbone id=\"%s\" bandwidth=\"%.17gBps\" latency=\"%lldns\"/>\n",
                        id, gbps * 1e9 / 8, (long long)lat_ns);
  return lbs__bprintf(
      b, "    <link id=\"%s\" bandwidth=\"%.17gBps\" latency=\"%lldns\" sharing_policy=\"%s\"/>\n",
      id, gbps * 1e9 / 8, (long long)lat_ns, policy);
}

/* The links: a network per cluster, one per pair of clusters, a NIC per processor that has one.
 * A star with NICs has its network as the backbone (platform_kind makes it a shared one). */
static lbs_err links_xml(const lbs_grid *g, plat_kind k, lbs_buf *b) {
  int P = lbs_grid_procs(g), C = lbs_grid_nclusters(g), nics = 0;
  for (int p = 0; p < P; p++) nics += lbs_grid_nic_gbps(g, p) > 0;
  lbs_err e = LBS_OK;
  char id[64];
  for (int a = 0; !e && a < C; a++)
    for (int c = a; !e && c < C; c++) {
      lbs_link l = lbs_grid_link(g, a, c);
      if (a == c)
        snprintf(id, sizeof id, "net_c%d", a);
      else
        snprintf(id, sizeof id, "link_c%d_c%d", a, c);
      const char *policy = l.shared ? "SHARED" : "FATPIPE";
      if (k == PLAT_STAR && nics > 0) policy = "backbone";
      e = link_xml(b, id, l.lat_ns, l.bw_gbps, policy);
    }
  for (int p = 0; !e && p < P; p++)
    if (lbs_grid_nic_gbps(g, p) > 0) {
      snprintf(id, sizeof id, "nic_p%d", p);
      e = link_xml(b, id, 0, lbs_grid_nic_gbps(g, p), "SPLITDUPLEX");
    }
  return e;
}

/* The route from p to q: p's NIC up, the clusters' link, q's NIC down. */
static lbs_err route_xml(const lbs_grid *g, int p, int q, lbs_buf *b) {
  int a = lbs_grid_proc_cluster(g, p), c = lbs_grid_proc_cluster(g, q);
  lbs_err e = lbs__bprintf(b, "    <route src=\"p%d\" dst=\"p%d\" symmetrical=\"NO\">", p, q);
  if (!e && lbs_grid_nic_gbps(g, p) > 0)
    e = lbs__bprintf(b, "<link_ctn id=\"nic_p%d\" direction=\"UP\"/>", p);
  if (!e && a == c) e = lbs__bprintf(b, "<link_ctn id=\"net_c%d\"/>", a);
  if (!e && a != c)
    e = lbs__bprintf(b, "<link_ctn id=\"link_c%d_c%d\"/>", a < c ? a : c, a < c ? c : a);
  if (!e && lbs_grid_nic_gbps(g, q) > 0)
    e = lbs__bprintf(b, "<link_ctn id=\"nic_p%d\" direction=\"DOWN\"/>", q);
  if (!e) e = lbs__bprintf(b, "</route>\n");
  return e;
}

/* The star: each host's link up and down, its NIC's halves or else the network itself. SimGrid
 * routes p to q over p's up, the backbone if any, q's down, each link once: the per-pair route. */
static lbs_err star_xml(const lbs_grid *g, lbs_buf *b) {
  lbs_err e = LBS_OK;
  for (int p = 0; !e && p < lbs_grid_procs(g); p++)
    if (lbs_grid_nic_gbps(g, p) > 0)
      e = lbs__bprintf(b, "    <host_link id=\"p%d\" up=\"nic_p%d_UP\" down=\"nic_p%d_DOWN\"/>\n",
                       p, p, p);
    else
      e = lbs__bprintf(b, "    <host_link id=\"p%d\" up=\"net_c0\" down=\"net_c0\"/>\n", p);
  return e;
}

/* The graph: p -> its cluster's router cN_in over its NIC up; cA_in -> cB_out over the network
 * or the link between A and B; cB_out -> q over q's NIC down. The one path from p to q is the
 * per-pair route, which SimGrid's Dijkstra (fewest links) finds. */
static lbs_err graph_xml(const lbs_grid *g, lbs_buf *b) {
  int P = lbs_grid_procs(g), C = lbs_grid_nclusters(g);
  lbs_err e = LBS_OK;
  for (int p = 0; !e && p < P; p++)
    e = lbs__bprintf(b,
                     "    <route src=\"p%d\" dst=\"c%d_in\" symmetrical=\"NO\"><link_ctn "
                     "id=\"nic_p%d\" direction=\"UP\"/></route>\n",
                     p, lbs_grid_proc_cluster(g, p), p);
  for (int a = 0; !e && a < C; a++)
    for (int c = 0; !e && c < C; c++) {
      e = lbs__bprintf(b, "    <route src=\"c%d_in\" dst=\"c%d_out\" symmetrical=\"NO\">", a, c);
      if (!e && a == c) e = lbs__bprintf(b, "<link_ctn id=\"net_c%d\"/></route>\n", a);
      if (!e && a != c)
        e = lbs__bprintf(b, "<link_ctn id=\"link_c%d_c%d\"/></route>\n", a < c ? a : c,
                         a < c ? c : a);
    }
  for (int q = 0; !e && q < P; q++)
    e = lbs__bprintf(b,
                     "    <route src=\"c%d_out\" dst=\"p%d\" symmetrical=\"NO\"><link_ctn "
                     "id=\"nic_p%d\" direction=\"DOWN\"/></route>\n",
                     lbs_grid_proc_cluster(g, q), q, q);
  return e;
}

static const char *const routing[] = {"Cluster", "DijkstraCache", "Full"}; /* by plat_kind */

static lbs_err platform_xml(const lbs_grid *g, lbs_buf *b) {
  int P = lbs_grid_procs(g), C = lbs_grid_nclusters(g);
  plat_kind k = platform_kind(g);
  lbs_err e = lbs__bprintf(
      b,
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<!-- lbsim export simgrid: %d processors in %d clusters (see README) -->\n"
      "<platform version=\"4.1\">\n  <zone id=\"lbsim\" routing=\"%s\">\n",
      P, C, routing[k]);
  for (int p = 0; !e && p < P; p++)
    e = lbs__bprintf(b, "    <host id=\"p%d\" speed=\"%.17gf\"/>\n", p, lbs_grid_rate(g, p) * 1e9);
  for (int c = 0; !e && k == PLAT_GRAPH && c < C; c++)
    e = lbs__bprintf(b, "    <router id=\"c%d_in\"/>\n    <router id=\"c%d_out\"/>\n", c, c);
  if (!e) e = links_xml(g, k, b);
  if (!e && k == PLAT_STAR) e = star_xml(g, b);
  if (!e && k == PLAT_GRAPH) e = graph_xml(g, b);
  for (int p = 0; !e && k == PLAT_PAIRS && p < P; p++)
    for (int q = 0; !e && q < P; q++)
      if (p != q) e = route_xml(g, p, q, b);
  if (!e) e = lbs__bprintf(b, "  </zone>\n</platform>\n");
  return e;
}

/* README's paragraph on platform.xml: which description, and why when it is the per-pair one. */
static lbs_err platform_readme(const lbs_grid *g, lbs_buf *b) {
  static const char *const what[] = {
      "one SimGrid Cluster zone (a star): each host's link up and down is its NIC's\n"
      "  half or else the cluster's network, which is the backbone when there are NICs",
      "a DijkstraCache zone: pN -> cK_in over pN's NIC up, cA_in -> cB_out over the network\n"
      "  of A (A = B) or the link between A and B, cK_out -> pN over pN's NIC down",
      "a Full zone with a route per pair of processors, P (P - 1) of them: SimGrid's zones\n"
      "  cannot give these routes otherwise (a star puts a host's links into its routes to\n"
      "  other clusters too, a graph's edges need a link: a processor without a NIC has none),\n"
      "  so a grid of several clusters where a processor has no NIC is written this way; the\n"
      "  file grows as P^2"};
  return lbs__bprintf(
      b,
      "\nPlatform: %s.\nEvery route from p to q is p's NIC up (if any), the network of their\n"
      "cluster or the link between theirs, q's NIC down (if any), as lbsim's.\n",
      what[platform_kind(g)]);
}

static lbs_err readme(const lbs_simgrid *x, const lbs_replay_result *res, lbs_buf *b) {
  const lbs_grid *g = x->g;
  int P = lbs_grid_procs(g), C = lbs_grid_nclusters(g);
  int fifo = lbs_grid_sharing(g) == LBS_SHARING_FIFO;
  lbs_err e = lbs__bprintf(
      b,
      "lbsim export simgrid\n====================\n\n"
      "The replay of %.1000s on %.1000s, %s, partitioner %.200s, policy %.200s: %d processors,\n"
      "%lld steps, %lld messages. lbsim's total: %.9f s (lbsim.json).\n\n",
      x->trace, x->grid, res->mode == LBS_MODE_BSP ? "bsp" : "des", res->partitioner, res->policy,
      P, (long long)res->steps, (long long)x->messages, 1e-9 * (double)res->total_ns);
  if (!e)
    e = lbs__bprintf(
        b, "Replay it with SimGrid's SMPI (Debian: libsimgrid-dev, which has smpirun):\n\n"
           "    ./run.sh      # prints 'Simulation time T' (in s, to the us)\n\n"
           "run.sh runs smpirun -replay replay.txt with platform.xml and hostfile, and:\n"
           "  network/model:CM02          SimGrid's flow model, without SMPI's piecewise factors\n"
           "  network/crosstraffic:0      no share of a flow's rate charged on the way back\n"
           "  network/TCP-gamma:0         no TCP window bound on a flow's rate\n"
           "  smpi/send-is-detached-thresh and smpi/async-small-thresh at 2^31 - 1: every send\n"
           "                              goes when posted, the sender does not wait (lbsim's)\n"
           "  network/optim:Full          every rate solved again at each event (SimGrid's lazy\n"
           "                              default was 3.5%% off behind slow NICs)\n\n"
           "Clusters: ");
  for (int c = 0; !e && c < C; c++)
    e = lbs__bprintf(b, "%sc%d = %.200s", c ? ", " : "", c, lbs_grid_cluster_name(g, c));
  if (!e)
    e = lbs__bprintf(
        b,
        ".\n\nWhat agrees with lbsim, and what does not:\n"
        "- compute: exactly (hosts run at the processor's speed x 1 Gflop/s, the amounts are the\n"
        "  simulated ns x that speed).\n"
        "- transfers: lbsim's sharing = fair is SimGrid's CM02 flow model: latency first, then\n"
        "  max-min fair rates weighted by 1/latency. %s\n"
        "- message sizes: SMPI adds a 16-byte envelope to every message; the sizes written are\n"
        "  lbsim's less %g bytes%s, so the wire carries lbsim's bytes (messages below that\n"
        "  carry the envelope: a few ns more). lbsim's sizes are whole bytes here%s.\n"
        "%s"
        "- barriers (bsp steps, repartitions): SMPI's MPI_Barrier is made of messages, each with\n"
        "  its latency and envelope, and lets ranks go at slightly different times; lbsim's is\n"
        "  free and exact, plus barrier_us (%.3f us) per bsp step. With zero latencies the\n"
        "  difference is a few envelopes per barrier; tests/sim/smpi_replay.cpp (--ideal-barrier)\n"
        "  replaces SMPI's by an exact one to compare the rest to the ns.\n"
        "- partitioning: a sleep of the time lbsim charged.\n",
        fifo ? "This grid has sharing = fifo, which SimGrid does not model: only transfers\n"
               "  that never meet on a shared link or NIC agree."
             : "This grid has sharing = fair.",
        x->envelope, x->envelope != 16 ? " (--envelope)" : "",
        x->rounded > 0 ? " (some were not: rounded by up to a byte)" : "",
        res->mode == LBS_MODE_BSP ? ""
        : res->des_shared
            ? "- des: the steps shared the network ([sim] des_overlap), as SMPI's flows do: all\n"
              "  flows in flight share, whatever their step.\n"
            : "- des: on a shared link or NIC, lbsim let an earlier step's transfers go first\n"
              "  (ordered: des_overlap = ordered, or auto with phases, availability profiles, fifo or\n"
              "  optimal); SMPI shares among all flows in flight. They agree unless transfers of\n"
              "  different steps overlap on a shared resource.\n",
        1e-3 * (double)lbs_grid_barrier_ns(g));
  return e;
}

/* b written as dir/name (a new file). */
static lbs_err write_buf(const char *dir, const char *name, const lbs_buf *b) {
  char path[4400];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return lbs__write_new(path, b->data, b->len);
}

/* run.sh: smpirun with the settings under which SMPI models what lbsim does, made executable. */
static lbs_err run_sh(const char *dir, int P, lbs_buf *b) {
  lbs_err e = lbs__bprintf(
      b,
      "#!/bin/sh\n# lbsim export simgrid: replays this run with SimGrid's SMPI (see README).\n"
      "cd \"$(dirname \"$0\")\" || exit 1\n"
      "exec smpirun -np %d -platform platform.xml -hostfile hostfile -replay replay.txt \\\n "
      " " SMPI_CFG " \\\n  --log=xbt_cfg.thresh:warning --log=smpi_config.thresh:error \"$@\"\n",
      P);
  if (!e) e = write_buf(dir, "run.sh", b);
  char path[4400];
  snprintf(path, sizeof path, "%s/run.sh", dir);
  mode_t um = umask(0);
  umask(um);
  if (!e && chmod(path, 0777 & ~um))
    e = lbs_fail(LBS_IO, "%s: cannot make it executable: %s", path, strerror(errno));
  return e;
}

/* lbsim.json: lbsim's answer, as replay --json prints it. */
static lbs_err answer_json(const char *dir, const lbs_replay_result *res) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return lbs_fail(LBS_NOMEM, "out of memory");
  json_t *o = lbs_replay_json(res);
  int jbad = lbs_json_write(f, o, LBS_JSON_COMPACT);
  json_decref(o);
  lbs_err e = fclose(f) || jbad ? lbs_fail(LBS_NOMEM, "lbsim.json: out of memory") : LBS_OK;
  lbs_buf j = {(uint8_t *)text, len, len};
  if (!e) e = write_buf(dir, "lbsim.json", &j);
  free(text);
  return e;
}

/* replay.txt (trace N runs ...) and hostfile (... on host pN). */
static lbs_err lists(const char *dir, int P, lbs_buf *b) {
  lbs_err e = LBS_OK;
  for (int p = 0; !e && p < P; p++) e = lbs__bprintf(b, "rank_%d.txt\n", p);
  if (!e) e = write_buf(dir, "replay.txt", b);
  b->len = 0;
  for (int p = 0; !e && p < P; p++) e = lbs__bprintf(b, "p%d\n", p);
  if (!e) e = write_buf(dir, "hostfile", b);
  return e;
}

lbs_err lbs_simgrid_write(lbs_simgrid *x, const char *dir, const lbs_replay_result *r) {
  lbs_buf b = {0};
  char name[64];
  lbs_err e = LBS_OK;
  for (int p = 0; !e && p < x->P; p++) {
    snprintf(name, sizeof name, "rank_%d.txt", p);
    e = lbs__bprintf(&x->out[p], "%d finalize\n", p);
    if (!e) e = write_buf(dir, name, &x->out[p]);
  }
  if (!e) e = lists(dir, x->P, &b);
  b.len = 0;
  if (!e && !(e = platform_xml(x->g, &b))) e = write_buf(dir, "platform.xml", &b);
  b.len = 0;
  if (!e && !(e = readme(x, r, &b)) && !(e = platform_readme(x->g, &b)))
    e = write_buf(dir, "README", &b);
  b.len = 0;
  if (!e) e = run_sh(dir, x->P, &b);
  if (!e) e = answer_json(dir, r);
  lbs_buf_free(&b);
  return e;
}
