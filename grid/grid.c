/* grid.c - grid description: the key table, loading, validation and the cost queries. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid_int.h"

static const lbs_opt grid_opts[] = {
    {"name", LBS_OPT_STRING, "grid", 1, 0, "a name for reports"},
    {"ns_per_work", LBS_OPT_DOUBLE, "1", 1e-12, 1e12,
     "ns one unit of the replayed metric takes on a processor of speed 1"},
    {"bytes_per_elem", LBS_OPT_DOUBLE, "0", 0, 1e15,
     "bytes migrated per element (0: the trace's value)"},
    {"bytes_per_edge", LBS_OPT_DOUBLE, "0", 0, 1e15,
     "halo bytes per graph edge and step (0: the trace's value)"},
    {"inter_latency_us", LBS_OPT_DOUBLE, "100", 0, 1e9,
     "latency between clusters that have no [link], us"},
    {"inter_bandwidth_gbps", LBS_OPT_DOUBLE, "1", 1e-9, 1e9,
     "bandwidth between clusters that have no [link], Gbit/s"},
    {"inter_shared", LBS_OPT_BOOL, "true", 1, 0,
     "transfers between clusters share those links (as sharing says)"},
    {"sharing", LBS_OPT_STRING, "fair", 1, 0,
     "how transfers share a shared link or a NIC: fair (max-min fair rates for the transfers in flight, as "
     "SimGrid's SMPI) or fifo (whole transfers one after the other); a dedicated link is every transfer's own"},
    {"barrier_us", LBS_OPT_DOUBLE, "0", 0, 1e9,
     "bsp: what the barrier ending every step costs, us (a measured MPI_Barrier; 0: free)"},
    {"migration_fixed_us", LBS_OPT_DOUBLE, "0", 0, 1e9,
     "migration model: each processor's fixed cost per repartition that moves elements, us "
     "(`grid probe` fits the three; all three 0: the links carry the migration)"},
    {"migration_per_elem_ns", LBS_OPT_DOUBLE, "0", 0, 1e12,
     "migration model: cost per element a processor sends or receives (packing, unpacking, "
     "callbacks), ns"},
    {"migration_gbps", LBS_OPT_DOUBLE, "0", 0, 1e9,
     "migration model: rate of the bytes a processor sends or receives, Gbit/s (0: no byte "
     "term)"},
    {NULL, 0, NULL, 0, 0, NULL}};

const lbs_opt lbs__nodetype_common[] = {
    {"speed_model", LBS_OPT_STRING, "linear", 1, 0,
     "how work becomes time"}, /* help: see nodetype_build */
    {"cores", LBS_OPT_INT, "1", 1, 65536, "processors per node"},
    {"nic_gbps", LBS_OPT_DOUBLE, "0", 0, 1e9,
     "each processor's NIC, Gbit/s each way: its outgoing transfers share it, its incoming ones too (0: unlimited)"},
    {NULL, 0, NULL, 0, 0, NULL}};
#define NCOMMON (sizeof lbs__nodetype_common / sizeof *lbs__nodetype_common - 1)

/* [nodetype]'s keys: the common ones, then each speed model's with its name before the help.
 * Built by nodetype_build from the registry (see lbs_grid_spec()). */
static lbs_opt nodetype_opts[NCOMMON + LBS__SPEED_MAX_KEYS + 1];
static char nodetype_help[NCOMMON + LBS__SPEED_MAX_KEYS][256];
static int nodetype_models = -1; /* speed models nodetype_opts holds; -1: not built */

static const lbs_opt cluster_opts[] = {
    {"nodes", LBS_OPT_INT, NULL, 1, 1e7, "number of nodes"},
    {"nodetype", LBS_OPT_STRING, "default", 1, 0, "a [nodetype NAME] (default: speed 1, 1 core)"},
    {"latency_us", LBS_OPT_DOUBLE, "1", 0, 1e9, "latency inside the cluster, us"},
    {"bandwidth_gbps", LBS_OPT_DOUBLE, "10", 1e-9, 1e9, "bandwidth inside the cluster, Gbit/s"},
    {"shared", LBS_OPT_BOOL, "false", 1, 0,
     "transfers inside the cluster share one network (as [grid] sharing says)"},
    {NULL, 0, NULL, 0, 0, NULL}};

static const lbs_opt link_opts[] = {
    {"latency_us", LBS_OPT_DOUBLE, NULL, 0, 1e9, "latency between the two clusters, us"},
    {"bandwidth_gbps", LBS_OPT_DOUBLE, NULL, 1e-9, 1e9,
     "bandwidth between the two clusters, Gbit/s"},
    {"shared", LBS_OPT_BOOL, "true", 1, 0,
     "transfers between the two clusters share the link (as [grid] sharing says)"},
    {NULL, 0, NULL, 0, 0, NULL}};

/* The grid's own sections. */
static const lbs_section_spec grid_own[] = {
    {"grid", 0, 0, grid_opts, "platform-wide defaults"},
    {"nodetype", 1, 0, nodetype_opts, "a kind of node: its speed model and cores"},
    {"cluster", 1, 1, cluster_opts, "nodes of one type and their network; at least one"},
    {"link", 2, 0, link_opts, "the network between clusters A and B"},
    {"availability", 1, 0, lbs__avail_opts,
     "from a trace step on, processors slow down or fail, or a link changes (replays follow it)"},
    {NULL, 0, 0, NULL, NULL}};
#define NOWN (sizeof grid_own / sizeof *grid_own - 1)
static const lbs_section_spec sim_section = {"sim", 0, 0, NULL,
                                             "replay settings (see 'lbsim replay --help-config')"};

/* The sections other libraries read from a grid file ([zoltan], [minex], a plug-in's: the
 * partitioners', which sit above this library), asked for through the function they give
 * (lbs_grid_set_extra_sections); none until one is given. */
static const lbs_section_spec *(*extra_sections)(void);

void lbs_grid_set_extra_sections(const lbs_section_spec *(*fn)(void)) { extra_sections = fn; }

#define PART_SECTIONS_MAX 64 /* at least LBS_PART_MAX_SECTIONS (lbs_part.h) */

/* lbs_grid_spec(): grid_own, then each partitioner's section passed through (its keys are its
 * partitioner's to check), then [sim]'s; built by spec_build. */
static lbs_section_spec grid_spec[NOWN + PART_SECTIONS_MAX + 2];
static char part_help[PART_SECTIONS_MAX][256];
static int part_sections = -1; /* partitioners' sections grid_spec holds; -1: not built */

/* Fills nodetype_opts from lbs__nodetype_common and the registered speed models' keys
 * (lbs_speed_register keeps them unique and within LBS__SPEED_MAX_KEYS). */
static void nodetype_build(void) {
  int nmodels = lbs_speed_count();
  size_t n = 0;
  for (; lbs__nodetype_common[n].key; n++) nodetype_opts[n] = lbs__nodetype_common[n];
  char known[192];
  snprintf(nodetype_help[0], sizeof nodetype_help[0], "%s (%s)", lbs__nodetype_common[0].help,
           lbs__speed_known(known,
                            sizeof known)); /* speed_model: "how work becomes time (linear, ...)" */
  nodetype_opts[0].help = nodetype_help[0];
  for (int m = 0; m < nmodels; m++) {
    const lbs_speed_ops *ops = lbs_speed_at(m);
    for (const lbs_opt *k = ops->keys; k && k->key; k++, n++) {
      assert(n < NCOMMON + LBS__SPEED_MAX_KEYS); /* built-in models: keep LBS__SPEED_MAX_KEYS up */
      nodetype_opts[n] = *k;
      snprintf(nodetype_help[n], sizeof nodetype_help[n], "%s: %s", ops->name,
               k->help ? k->help : "");
      nodetype_opts[n].help = nodetype_help[n];
    }
  }
  nodetype_opts[n] = (lbs_opt){NULL, 0, NULL, 0, 0, NULL};
  nodetype_models = nmodels;
}

/* Fills grid_spec with the n sections parts lists, each passing any key through: their keys are
 * their partitioners' to check when they read them. One that has keys sends the reader to
 * 'lbsim partition --help-config', which lists them. */
static void spec_build(const lbs_section_spec *parts, int n) {
  size_t k = 0;
  for (; k < NOWN; k++) grid_spec[k] = grid_own[k];
  for (int i = 0; i < n && i < PART_SECTIONS_MAX; i++, k++) {
    const char *help = parts[i].help ? parts[i].help : "";
    if (parts[i].opts)
      snprintf(part_help[i], sizeof part_help[i], "%s (see 'lbsim partition --help-config')", help);
    else
      snprintf(part_help[i], sizeof part_help[i], "%s", help);
    grid_spec[k] = (lbs_section_spec){parts[i].kind, parts[i].named, 0, NULL, part_help[i]};
  }
  grid_spec[k++] = sim_section;
  grid_spec[k] = (lbs_section_spec){NULL, 0, 0, NULL, NULL};
  part_sections = n;
}

const lbs_section_spec *lbs_grid_spec(void) {
  if (nodetype_models != lbs_speed_count()) nodetype_build(); /* the registries only grow */
  const lbs_section_spec *parts = extra_sections ? extra_sections() : NULL;
  int n = 0;
  while (parts && parts[n].kind) n++;
  if (n != part_sections) spec_build(parts, n);
  return grid_spec;
}

/* ---------------------------------------------------------------- the grid */

typedef struct {
  const lbs_speed_ops *ops;
  void *state;
  char *name;
  double nic_gbps; /* 0: unlimited */
} nodetype;

struct lbs_grid {
  char *name;
  int P, C, nnt;
  char **cname;    /* C cluster names */
  int *cfirst;     /* C+1 processor offsets */
  int *cnt;        /* C node type per cluster */
  int *ccores;     /* C cores per node */
  nodetype *nt;    /* nnt node types */
  lbs_link *links; /* C*C */
  int *pcluster;   /* P */
  double bytes_elem, bytes_edge;
  lbs_sharing sharing;
  int64_t barrier_ns;
  double mig_fixed_us, mig_per_elem_ns, mig_gbps; /* [grid] migration_*: all 0, no model */
  lbs_avail *avail;                               /* navail availability profiles, file order */
  int navail;
  /* a live grid (lbs_grid_live_create): the grid it follows, whose arrays it borrows but for
   * links, which it owns with pfactor; NULL for a grid loaded from a file */
  const lbs_grid *base;
  double *pfactor; /* P speed factors (0: failed), live grids only; NULL: all 1 */
};

void lbs_grid_destroy(lbs_grid **gp) {
  if (!gp || !*gp) return;
  lbs_grid *g = *gp;
  if (g->base) { /* live: only its factors and links are its own */
    free(g->pfactor);
    free(g->links);
    free(g);
    *gp = NULL;
    return;
  }
  lbs__avail_free(g->avail, g->navail);
  for (int i = 0; i < g->nnt; i++) {
    if (g->nt[i].ops && g->nt[i].ops->fini) g->nt[i].ops->fini(g->nt[i].state);
    free(g->nt[i].name);
  }
  for (int c = 0; g->cname && c < g->C; c++) free(g->cname[c]);
  free(g->cname);
  free(g->cfirst);
  free(g->cnt);
  free(g->ccores);
  free(g->nt);
  free(g->links);
  free(g->pcluster);
  free(g->name);
  free(g);
  *gp = NULL;
}

static int cluster_index(const lbs_grid *g, const char *name) {
  for (int c = 0; c < g->C; c++)
    if (!strcmp(g->cname[c], name)) return c;
  return -1;
}

/* Finds or creates the node type `name` (built-in "default" needs no section). */
static lbs_err nodetype_get(lbs_grid *g, const lbs_config *cfg, const char *name,
                            double ns_per_work, const char *where, int *out) {
  for (int i = 0; i < g->nnt; i++)
    if (!strcmp(g->nt[i].name, name)) {
      *out = i;
      return LBS_OK;
    }
  int defined = 0;
  for (int i = 0; i < lbs_config_count(cfg, "nodetype"); i++)
    defined |= !strcmp(lbs_config_name(cfg, "nodetype", i), name);
  if (!defined && strcmp(name, "default"))
    return lbs_fail(LBS_PARSE, "%s: nodetype '%s' has no [nodetype %s] section", where, name, name);
  const lbs_section_spec *spec = lbs_grid_spec();
  const char *model, *key, *value;
  lbs_err e = lbs_config_string(cfg, spec, "nodetype", name, "speed_model", &model);
  if (e) return e;
  const lbs_speed_ops *ops = lbs_speed_find(model);
  if (!ops)
    return lbs__speed_unknown(lbs_config_where(cfg, "nodetype", name, "speed_model"), model);
  for (int i = 0; lbs_config_entry(cfg, "nodetype", name, i, &key, &value);
       i++) { /* its model's keys only */
    const lbs_speed_ops *owner = lbs__speed_owner(key);
    if (owner && owner != ops)
      return lbs_fail(
          LBS_PARSE,
          "%s: [nodetype %s] key '%s' belongs to speed model '%s'; this node type uses '%s'",
          lbs_config_where(cfg, "nodetype", name, key), name, key, owner->name, ops->name);
  }
  double nic;
  if ((e = lbs_config_double(cfg, spec, "nodetype", name, "nic_gbps", &nic))) return e;
  if (nic > 0 && nic < 1e-9) /* as bandwidths: 1 bit/s at least */
    return lbs_fail(LBS_PARSE, "%s: nic_gbps = %g: give 0 (unlimited) or at least 1e-9",
                    lbs_config_where(cfg, "nodetype", name, "nic_gbps"), nic);
  nodetype *nt = realloc(g->nt, (size_t)(g->nnt + 1) * sizeof *nt);
  if (!nt) return lbs_fail(LBS_NOMEM, "grid");
  g->nt = nt;
  nt[g->nnt] = (nodetype){ops, NULL, strdup(name), nic};
  if (!nt[g->nnt].name) return lbs_fail(LBS_NOMEM, "grid");
  g->nnt++;
  if ((e = ops->init(&nt[g->nnt - 1].state, cfg, name, ns_per_work))) return e;
  *out = g->nnt - 1;
  return LBS_OK;
}

static lbs_link make_link(double lat_us, double bw, int shared) {
  return (lbs_link){llround(lat_us * 1000.0), bw, shared};
}

/* g's availability profiles, read by avail.c against g's processors and clusters (set). */
static lbs_err read_profiles(lbs_grid *g, const lbs_config *cfg, const lbs_section_spec *spec) {
  lbs__avail_targets tg = {g->P, g->C, (const char *const *)g->cname, g->cfirst};
  return lbs__avail_parse(cfg, spec, &tg, &g->avail, &g->navail);
}

/* Reads [grid]: the grid's name, the network between clusters that have no [link] (*inter),
 * how transfers share, the barrier; *npw is ns_per_work, which the speed models take. */
static lbs_err read_grid_keys(lbs_grid *g, const lbs_config *cfg, const lbs_section_spec *spec,
                              double *npw, lbs_link *inter) {
  const char *name, *sharing;
  double lat, bw, barrier_us;
  int shared;
  lbs_err e;
  if ((e = lbs_config_string(cfg, spec, "grid", "", "name", &name)) ||
      (e = lbs_config_double(cfg, spec, "grid", "", "ns_per_work", npw)) ||
      (e = lbs_config_double(cfg, spec, "grid", "", "bytes_per_elem", &g->bytes_elem)) ||
      (e = lbs_config_double(cfg, spec, "grid", "", "bytes_per_edge", &g->bytes_edge)) ||
      (e = lbs_config_double(cfg, spec, "grid", "", "inter_latency_us", &lat)) ||
      (e = lbs_config_double(cfg, spec, "grid", "", "inter_bandwidth_gbps", &bw)) ||
      (e = lbs_config_bool(cfg, spec, "grid", "", "inter_shared", &shared)) ||
      (e = lbs_config_string(cfg, spec, "grid", "", "sharing", &sharing)) ||
      (e = lbs_config_double(cfg, spec, "grid", "", "barrier_us", &barrier_us)) ||
      (e = lbs_config_double(cfg, spec, "grid", "", "migration_fixed_us", &g->mig_fixed_us)) ||
      (e = lbs_config_double(cfg, spec, "grid", "", "migration_per_elem_ns",
                             &g->mig_per_elem_ns)) ||
      (e = lbs_config_double(cfg, spec, "grid", "", "migration_gbps", &g->mig_gbps)))
    return e;
  if (g->mig_gbps > 0 && g->mig_gbps < 1e-9) /* as bandwidths: 1 bit/s at least */
    return lbs_fail(LBS_PARSE, "%s: migration_gbps = %g: give 0 (no byte term) or at least 1e-9",
                    lbs_config_where(cfg, "grid", "", "migration_gbps"), g->mig_gbps);
  if (!strcmp(sharing, "fair"))
    g->sharing = LBS_SHARING_FAIR;
  else if (!strcmp(sharing, "fifo"))
    g->sharing = LBS_SHARING_FIFO;
  else
    return lbs_fail(LBS_PARSE, "%s: sharing = '%s' must be fair or fifo",
                    lbs_config_where(cfg, "grid", "", "sharing"), sharing);
  g->barrier_ns = llround(barrier_us * 1000.0);
  *inter = make_link(lat, bw, shared);
  if (!(g->name = strdup(name))) return lbs_fail(LBS_NOMEM, "grid");
  return LBS_OK;
}

/* Allocates g's arrays a cluster, one a [cluster] section, and its C x C links. */
static lbs_err alloc_clusters(lbs_grid *g, const lbs_config *cfg) {
  g->C = lbs_config_count(cfg, "cluster");
  g->cname = calloc((size_t)g->C, sizeof *g->cname);
  g->cfirst = calloc((size_t)g->C + 1, sizeof *g->cfirst);
  g->cnt = calloc((size_t)g->C, sizeof *g->cnt);
  g->ccores = calloc((size_t)g->C, sizeof *g->ccores);
  g->links = calloc((size_t)g->C * (size_t)g->C, sizeof *g->links);
  if (!g->cname || !g->cfirst || !g->cnt || !g->ccores || !g->links)
    return lbs_fail(LBS_NOMEM, "grid");
  return LBS_OK;
}

/* Reads [cluster] c: its name, node type (created on first use), cores and processors (*total
 * so far, at most 2^24), its own network and, by default, inter to every other cluster. */
static lbs_err read_cluster(lbs_grid *g, const lbs_config *cfg, const lbs_section_spec *spec, int c,
                            double npw, lbs_link inter, long long *total) {
  const char *cn = lbs_config_name(cfg, "cluster", c), *ntn;
  long long nodes, cores;
  double clat, cbw;
  int csh;
  lbs_err e;
  if (!(g->cname[c] = strdup(cn))) return lbs_fail(LBS_NOMEM, "grid");
  if ((e = lbs_config_int(cfg, spec, "cluster", cn, "nodes", &nodes)) ||
      (e = lbs_config_string(cfg, spec, "cluster", cn, "nodetype", &ntn)) ||
      (e = lbs_config_double(cfg, spec, "cluster", cn, "latency_us", &clat)) ||
      (e = lbs_config_double(cfg, spec, "cluster", cn, "bandwidth_gbps", &cbw)) ||
      (e = lbs_config_bool(cfg, spec, "cluster", cn, "shared", &csh)) ||
      (e = nodetype_get(g, cfg, ntn, npw, lbs_config_where(cfg, "cluster", cn, "nodetype"),
                        &g->cnt[c])))
    return e;
  if ((e = lbs_config_int(cfg, spec, "nodetype", g->nt[g->cnt[c]].name, "cores", &cores))) return e;
  g->ccores[c] = (int)cores;
  *total += nodes * cores;
  if (*total > (1 << 24))
    return lbs_fail(LBS_RANGE, "%s: the grid has more than %d processors",
                    lbs_config_where(cfg, "cluster", cn, "nodes"), 1 << 24);
  g->cfirst[c + 1] = (int)*total;
  for (int d = 0; d < g->C; d++) g->links[c * g->C + d] = inter;
  g->links[c * g->C + c] = make_link(clat, cbw, csh);
  return LBS_OK;
}

/* Refuses [link] i when an earlier [link] joins the same two clusters the other way round. */
static lbs_err link_reversed(const lbs_config *cfg, int i) {
  const char *ln = lbs_config_name(cfg, "link", i);
  for (int j = 0; j < i; j++) { /* [link a b] and [link b a]: which one holds? neither */
    const char *lj = lbs_config_name(cfg, "link", j);
    char a0[256], b0[256], a1[256], b1[256];
    if (sscanf(ln, "%255s %255s", a0, b0) == 2 && sscanf(lj, "%255s %255s", a1, b1) == 2 &&
        !strcmp(a0, b1) && !strcmp(b0, a1)) {
      char first[512];
      snprintf(first, sizeof first, "%s", lbs_config_where(cfg, "link", lj, NULL));
      return lbs_fail(LBS_PARSE,
                      "%s: [link %s] is [link %s] (%s) again, the other way round; give one",
                      lbs_config_where(cfg, "link", ln, NULL), ln, lj, first);
    }
  }
  return LBS_OK;
}

/* Reads the [link A B] sections: each joins two different clusters, both ways. */
static lbs_err read_links(lbs_grid *g, const lbs_config *cfg, const lbs_section_spec *spec) {
  lbs_err e;
  for (int i = 0; i < lbs_config_count(cfg, "link"); i++) {
    const char *ln = lbs_config_name(cfg, "link", i);
    if ((e = link_reversed(cfg, i))) return e;
    char a[256], b[256];
    if (sscanf(ln, "%255s %255s", a, b) != 2) continue; /* arity checked above */
    int ca = cluster_index(g, a), cb = cluster_index(g, b);
    if (ca < 0 || cb < 0 || ca == cb)
      return lbs_fail(
          LBS_PARSE,
          "%s: [link %s] must join two different clusters (known: see [cluster] sections)",
          lbs_config_where(cfg, "link", ln, NULL), ln);
    double llat, lbw;
    int lsh;
    if ((e = lbs_config_double(cfg, spec, "link", ln, "latency_us", &llat)) ||
        (e = lbs_config_double(cfg, spec, "link", ln, "bandwidth_gbps", &lbw)) ||
        (e = lbs_config_bool(cfg, spec, "link", ln, "shared", &lsh)))
      return e;
    g->links[ca * g->C + cb] = g->links[cb * g->C + ca] = make_link(llat, lbw, lsh);
  }
  return LBS_OK;
}

/* Creates the node types no cluster uses: an unused type must still be valid. */
static lbs_err read_unused_nodetypes(lbs_grid *g, const lbs_config *cfg, double npw) {
  for (int i = 0; i < lbs_config_count(cfg, "nodetype"); i++) {
    const char *ntn = lbs_config_name(cfg, "nodetype", i);
    int idx;
    lbs_err e = nodetype_get(g, cfg, ntn, npw, lbs_config_where(cfg, "nodetype", ntn, NULL), &idx);
    if (e) return e;
  }
  return LBS_OK;
}

/* Fills pcluster, the cluster of each of g's P processors. */
static lbs_err map_processors(lbs_grid *g) {
  if (!(g->pcluster = malloc((size_t)(g->P ? g->P : 1) * sizeof *g->pcluster)))
    return lbs_fail(LBS_NOMEM, "grid");
  for (int c = 0; c < g->C; c++)
    for (int p = g->cfirst[c]; p < g->cfirst[c + 1]; p++) g->pcluster[p] = c;
  return LBS_OK;
}

/* Builds a grid from cfg (see lbs_grid.h): [grid], the clusters with their node types, the links,
 * the node types no cluster uses, each processor's cluster, the availability profiles. *out is
 * the caller's; on an error it stays NULL and nothing is kept. */
lbs_err lbs_grid_from_config(const lbs_config *cfg, lbs_grid **out) {
  *out = NULL;
  const lbs_section_spec *spec = lbs_grid_spec();
  lbs_err e = lbs_config_check(cfg, spec);
  if (e) return e;
  lbs_grid *g = calloc(1, sizeof *g);
  if (!g) return lbs_fail(LBS_NOMEM, "grid");
  double npw = 0;
  lbs_link inter = {0}; /* both set by read_grid_keys */
  if ((e = read_grid_keys(g, cfg, spec, &npw, &inter)) || (e = alloc_clusters(g, cfg))) goto fail;
  long long total = 0;
  for (int c = 0; c < g->C; c++)
    if ((e = read_cluster(g, cfg, spec, c, npw, inter, &total))) goto fail;
  g->P = (int)total;
  if ((e = read_links(g, cfg, spec)) || (e = read_unused_nodetypes(g, cfg, npw)) ||
      (e = map_processors(g)) || (e = read_profiles(g, cfg, spec)))
    goto fail;
  *out = g;
  return LBS_OK;
fail:
  lbs_grid_destroy(&g);
  return e;
}

lbs_err lbs_grid_load(const char *path, const char *const *overrides, int noverrides,
                      lbs_grid **out) {
  *out = NULL;
  lbs_config *cfg;
  lbs_err e = lbs_config_load(path, &cfg);
  for (int i = 0; !e && i < noverrides; i++) e = lbs_config_override(cfg, overrides[i]);
  if (!e) e = lbs_grid_from_config(cfg, out);
  lbs_config_destroy(&cfg);
  return e;
}

const char *lbs_grid_name(const lbs_grid *g) { return g->name; }
int lbs_grid_procs(const lbs_grid *g) { return g->P; }
int lbs_grid_nclusters(const lbs_grid *g) { return g->C; }
const char *lbs_grid_cluster_name(const lbs_grid *g, int c) { return g->cname[c]; }
int lbs_grid_cluster_first(const lbs_grid *g, int c) { return g->cfirst[c]; }
int lbs_grid_cluster_procs(const lbs_grid *g, int c) { return g->cfirst[c + 1] - g->cfirst[c]; }
int lbs_grid_proc_cluster(const lbs_grid *g, int p) { return g->pcluster[p]; }
int lbs_grid_proc_node(const lbs_grid *g, int p) {
  int c = g->pcluster[p];
  return (p - g->cfirst[c]) / g->ccores[c];
}
const char *lbs_grid_proc_nodetype(const lbs_grid *g, int p) {
  return g->nt[g->cnt[g->pcluster[p]]].name;
}
double lbs_grid_bytes_per_elem(const lbs_grid *g) { return g->bytes_elem; }
double lbs_grid_bytes_per_edge(const lbs_grid *g) { return g->bytes_edge; }
lbs_sharing lbs_grid_sharing(const lbs_grid *g) { return g->sharing; }
int64_t lbs_grid_barrier_ns(const lbs_grid *g) { return g->barrier_ns; }
int lbs_grid_migration_model(const lbs_grid *g, double *fixed_us, double *per_elem_ns,
                             double *gbps) {
  *fixed_us = g->mig_fixed_us, *per_elem_ns = g->mig_per_elem_ns, *gbps = g->mig_gbps;
  return g->mig_fixed_us > 0 || g->mig_per_elem_ns > 0 || g->mig_gbps > 0;
}
double lbs_grid_nic_gbps(const lbs_grid *g, int p) {
  return g->nt[g->cnt[g->pcluster[p]]].nic_gbps;
}

#define NS_FOREVER INT64_C(9000000000000000000) /* as the speed models cap their times */

int64_t lbs_grid_compute_ns(const lbs_grid *g, int p, double work) {
  const nodetype *nt = &g->nt[g->cnt[g->pcluster[p]]];
  double f = g->pfactor ? g->pfactor[p] : 1;
  if (f == 1) return nt->ops->time_ns(nt->state, work); /* without profiles: exactly the model */
  if (f <= 0) return work > 0 ? NS_FOREVER : 0;         /* failed */
  double t = (double)nt->ops->time_ns(nt->state, work) / f;
  return t < 9e18 ? llround(t) : NS_FOREVER;
}

lbs_err lbs_grid_bind_metric(const lbs_grid *g, const char *metric, const char *unit) {
  if (g->base) g = g->base; /* a live grid's node types are its base's */
  for (int i = 0; i < g->nnt; i++) {
    const nodetype *nt = &g->nt[i];
    if (!nt->ops->bind_metric) continue;
    lbs_err e = nt->ops->bind_metric(nt->state, metric ? metric : "", unit ? unit : "");
    if (e) return e;
  }
  return LBS_OK;
}

int lbs_grid_work_range(const lbs_grid *g, int p, double *lo, double *hi, char *what, size_t n) {
  const nodetype *nt = &g->nt[g->cnt[g->pcluster[p]]];
  if (n) *what = '\0';
  if (!nt->ops->range) return 0;
  return nt->ops->range(nt->state, lo, hi, what, n);
}

double lbs_grid_rate(const lbs_grid *g, int p) {
  const nodetype *nt = &g->nt[g->cnt[g->pcluster[p]]];
  return nt->ops->rate(nt->state) * (g->pfactor ? g->pfactor[p] : 1);
}

void lbs_grid_part_sizes(const lbs_grid *g, double *sizes) {
  double total = 0;
  for (int p = 0; p < lbs_grid_procs(g); p++) total += lbs_grid_rate(g, p);
  for (int p = 0; p < lbs_grid_procs(g); p++)
    sizes[p] = total > 0 ? lbs_grid_rate(g, p) / total : 0;
}

/* ---------------------------------------------------------------- availability */

int lbs_grid_avail_count(const lbs_grid *g) { return g->navail; }
const lbs_avail *lbs_grid_avail(const lbs_grid *g, int i) {
  return i >= 0 && i < g->navail ? &g->avail[i] : NULL;
}
double lbs_grid_speed_factor(const lbs_grid *g, int p) { return g->pfactor ? g->pfactor[p] : 1; }
int lbs_grid_proc_failed(const lbs_grid *g, int p) { return g->pfactor && g->pfactor[p] <= 0; }

lbs_err lbs_grid_live_create(const lbs_grid *g, lbs_grid **out) {
  *out = NULL;
  if (g->base)
    return lbs_fail(LBS_INVAL,
                    "grid: a live grid follows a grid loaded from a file, not another live one");
  lbs_grid *l = malloc(sizeof *l);
  if (!l) return lbs_fail(LBS_NOMEM, "live grid");
  *l = *g;
  l->base = g;
  l->pfactor = malloc((size_t)(g->P ? g->P : 1) * sizeof *l->pfactor);
  l->links = malloc((size_t)g->C * (size_t)g->C * sizeof *l->links);
  if (!l->pfactor || !l->links) {
    free(l->pfactor), free(l->links), free(l);
    return lbs_fail(LBS_NOMEM, "live grid");
  }
  for (int p = 0; p < g->P; p++) l->pfactor[p] = 1;
  memcpy(l->links, g->links, (size_t)g->C * (size_t)g->C * sizeof *l->links);
  *out = l;
  return LBS_OK;
}

lbs_err lbs_grid_live_step(lbs_grid *l, int64_t step, int *changed) {
  *changed = 0;
  if (!l->base) return lbs_fail(LBS_INVAL, "grid: lbs_grid_live_step on a grid that is not live");
  const lbs_grid *g = l->base;
  size_t CC = (size_t)g->C * (size_t)g->C;
  double *f = malloc((size_t)(g->P ? g->P : 1) * sizeof *f), *bwf = malloc(CC * sizeof *bwf),
         *latf = malloc(CC * sizeof *latf);
  if (!f || !bwf || !latf) {
    free(f), free(bwf), free(latf);
    return lbs_fail(LBS_NOMEM, "live grid");
  }
  for (int p = 0; p < g->P; p++) f[p] = 1; /* a failure holds from its step on: no until_step */
  for (size_t k = 0; k < CC; k++) bwf[k] = latf[k] = 1;
  for (int i = 0; i < g->navail;
       i++) { /* the profiles that hold at step, multiplied in file order */
    const lbs_avail *a = &g->avail[i];
    if (step < a->from_step || (a->until_step >= 0 && step >= a->until_step)) continue;
    if (a->kind == LBS_AVAIL_PROCS)
      for (int p = a->first; p < a->first + a->count; p++)
        f[p] = a->fail ? 0 : f[p] * a->speed_factor;
    else
      for (int k = 0; k < 2; k++) {
        size_t ab = k ? (size_t)a->b * (size_t)g->C + (size_t)a->a
                      : (size_t)a->a * (size_t)g->C + (size_t)a->b;
        if (k && a->a == a->b) break;
        bwf[ab] *= a->bandwidth_factor;
        latf[ab] *= a->latency_factor;
      }
  }
  for (int p = 0; p < g->P; p++) {
    if (f[p] != l->pfactor[p])
      *changed |= f[p] <= 0 ? LBS_AVAIL_FAILED | LBS_AVAIL_SPEED : LBS_AVAIL_SPEED;
    l->pfactor[p] = f[p];
  }
  for (size_t k = 0; k < CC; k++) {
    lbs_link nl = g->links[k];
    if (latf[k] != 1) nl.lat_ns = llround((double)nl.lat_ns * latf[k]);
    nl.bw_gbps *= bwf[k];
    if (nl.lat_ns != l->links[k].lat_ns || nl.bw_gbps != l->links[k].bw_gbps)
      *changed |= LBS_AVAIL_LINKS;
    l->links[k] = nl;
  }
  free(f), free(bwf), free(latf);
  return LBS_OK;
}

lbs_link lbs_grid_link(const lbs_grid *g, int a, int b) { return g->links[a * g->C + b]; }

int64_t lbs_grid_transfer_ns(const lbs_grid *g, int p, int q, double bytes) {
  if (p == q) return 0;
  lbs_link l = lbs_grid_link(g, g->pcluster[p], g->pcluster[q]);
  double bw = l.bw_gbps, np = lbs_grid_nic_gbps(g, p), nq = lbs_grid_nic_gbps(g, q);
  if (np > 0 && np < bw) bw = np;
  if (nq > 0 && nq < bw) bw = nq;
  double t = ceil(bytes * 8.0 / bw);
  return l.lat_ns +
         (t < 9e18 ? (int64_t)t : INT64_C(9000000000000000000)); /* held there, as compute */
}
