/* describe.c - a grid described: INI text checked to load, an availability profile in words,
 * the grid as text and as JSON (what `lbsim grid info` and `grid gen` show and check). */
#include <stdio.h>

#include "lbs_grid.h"
#include "lbs_json.h"

lbs_err lbs_grid_check_text(const char *name, const char *text) {
  lbs_config *cfg = NULL;
  lbs_grid *g = NULL;
  lbs_err e = lbs_config_parse_string(name, text, &cfg);
  if (!e) e = lbs_grid_from_config(cfg, &g);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  return e;
}

const char *lbs_avail_describe(const lbs_grid *g, const lbs_avail *a, char *buf, size_t n) {
  size_t k;
  if (a->kind == LBS_AVAIL_LINK)
    k = (size_t)snprintf(buf, n, "link %s - %s: bandwidth x%g, latency x%g",
                         lbs_grid_cluster_name(g, a->a), lbs_grid_cluster_name(g, a->b),
                         a->bandwidth_factor, a->latency_factor);
  else if (a->count == 1)
    k = (size_t)snprintf(buf, n, "proc %d", a->first);
  else
    k = (size_t)snprintf(buf, n, "procs %d..%d", a->first, a->first + a->count - 1);
  if (a->kind == LBS_AVAIL_PROCS && k < n)
    k += (size_t)snprintf(buf + k, n - k, a->fail ? ": fails" : ": speed x%g", a->speed_factor);
  if (k < n)
    k += (size_t)snprintf(buf + k, n - k, " %s step %lld", a->fail ? "at" : "from",
                          (long long)a->from_step);
  if (k < n && a->until_step >= 0)
    snprintf(buf + k, n - k, " until before step %lld", (long long)a->until_step);
  return buf;
}

/* Cluster k: its first processor's node type, speed and NIC, its own network. */
static json_t *cluster_json(const lbs_grid *g, int k) {
  int p0 = lbs_grid_cluster_first(g, k);
  lbs_link l = lbs_grid_link(g, k, k);
  json_t *c = json_object();
  int bad = lbs_json_set(c, "name", lbs_json_str(lbs_grid_cluster_name(g, k))) ||
            lbs_json_set(c, "first_proc", lbs_json_int(p0)) ||
            lbs_json_set(c, "procs", lbs_json_int(lbs_grid_cluster_procs(g, k))) ||
            lbs_json_set(c, "nodetype", lbs_json_str(lbs_grid_proc_nodetype(g, p0))) ||
            lbs_json_set(c, "speed", lbs_json_real(lbs_grid_rate(g, p0))) ||
            lbs_json_set(c, "latency_ns", lbs_json_int(l.lat_ns)) ||
            lbs_json_set(c, "bandwidth_gbps", lbs_json_real(l.bw_gbps)) ||
            lbs_json_set(c, "shared", json_boolean(l.shared)) ||
            lbs_json_set(c, "nic_gbps", lbs_json_real(lbs_grid_nic_gbps(g, p0)));
  if (bad) json_decref(c), c = NULL;
  return c;
}

/* The link between clusters a and b. */
static json_t *link_json(const lbs_grid *g, int a, int b) {
  lbs_link l = lbs_grid_link(g, a, b);
  json_t *k = json_object();
  int bad = lbs_json_set(k, "a", lbs_json_str(lbs_grid_cluster_name(g, a))) ||
            lbs_json_set(k, "b", lbs_json_str(lbs_grid_cluster_name(g, b))) ||
            lbs_json_set(k, "latency_ns", lbs_json_int(l.lat_ns)) ||
            lbs_json_set(k, "bandwidth_gbps", lbs_json_real(l.bw_gbps)) ||
            lbs_json_set(k, "shared", json_boolean(l.shared));
  if (bad) json_decref(k), k = NULL;
  return k;
}

/* The profiles, each its name and its change in words. 0, or -1 when out of memory. */
static int avail_json(const lbs_grid *g, json_t *o) {
  json_t *av = json_array();
  int bad = lbs_json_set(o, "availability", json_incref(av));
  for (int i = 0; !bad && i < lbs_grid_avail_count(g); i++) {
    char what[512];
    json_t *a = json_object();
    bad =
        json_array_append_new(av, a) ||
        lbs_json_set(a, "name", lbs_json_str(lbs_grid_avail(g, i)->name)) ||
        lbs_json_set(a, "change",
                     lbs_json_str(lbs_avail_describe(g, lbs_grid_avail(g, i), what, sizeof what)));
  }
  json_decref(av);
  return bad ? -1 : 0;
}

json_t *lbs_grid_json(const lbs_grid *g) {
  int C = lbs_grid_nclusters(g);
  json_t *o = json_object(), *cl = json_array(), *links = json_array();
  int bad = lbs_json_set(o, "name", lbs_json_str(lbs_grid_name(g))) ||
            lbs_json_set(o, "procs", lbs_json_int(lbs_grid_procs(g))) ||
            lbs_json_set(o, "sharing",
                         json_string(lbs_grid_sharing(g) == LBS_SHARING_FAIR ? "fair" : "fifo")) ||
            lbs_json_set(o, "barrier_ns", lbs_json_int(lbs_grid_barrier_ns(g))) ||
            lbs_json_set(o, "clusters", json_incref(cl)) ||
            lbs_json_set(o, "links", json_incref(links));
  for (int k = 0; !bad && k < C; k++) bad = json_array_append_new(cl, cluster_json(g, k));
  for (int a = 0; a < C; a++)
    for (int b = a + 1; !bad && b < C; b++) bad = json_array_append_new(links, link_json(g, a, b));
  if (!bad && lbs_grid_avail_count(g) > 0)
    bad = avail_json(g, o); /* only with profiles: other grids as before */
  double mf, mp, mg;
  if (!bad && lbs_grid_migration_model(g, &mf, &mp, &mg)) /* only with one, as profiles */
    bad = lbs_json_set(o, "migration",
                       json_pack("{s:o,s:o,s:o}", "fixed_us", lbs_json_sig(mf, 6), "per_elem_ns",
                                 lbs_json_sig(mp, 6), "gbps", lbs_json_sig(mg, 6)));
  json_decref(cl);
  json_decref(links);
  if (bad) json_decref(o), o = NULL;
  return o;
}

void lbs_grid_text(FILE *f, const lbs_grid *g) {
  int C = lbs_grid_nclusters(g), P = lbs_grid_procs(g);
  fprintf(f, "grid      %s\nprocs     %d in %d cluster%s\n", lbs_grid_name(g), P, C,
          C == 1 ? "" : "s");
  fprintf(f, "network   %s sharing on shared links and NICs; bsp barrier %lld ns\n",
          lbs_grid_sharing(g) == LBS_SHARING_FAIR ? "fair (max-min)" : "fifo",
          (long long)lbs_grid_barrier_ns(g));
  double mf, mp, mg;
  if (lbs_grid_migration_model(g, &mf, &mp, &mg))
    fprintf(f,
            "migration %.6g us + %.6g ns per element sent or received + bytes at %.6g Gbit/s per "
            "processor, in place of the links\n",
            mf, mp, mg);
  fprintf(f, "  %-12s %-11s %-10s %8s %12s %14s %-6s %s\n", "cluster", "procs", "nodetype", "speed",
          "latency ns", "bandwidth Gb/s", "shared", "NIC Gb/s");
  for (int k = 0; k < C; k++) {
    int p0 = lbs_grid_cluster_first(g, k);
    lbs_link l = lbs_grid_link(g, k, k);
    char range[32];
    snprintf(range, sizeof range, "%d..%d", p0, p0 + lbs_grid_cluster_procs(g, k) - 1);
    char nic[32] = "-";
    if (lbs_grid_nic_gbps(g, p0) > 0) snprintf(nic, sizeof nic, "%.4g", lbs_grid_nic_gbps(g, p0));
    fprintf(f, "  %-12s %-11s %-10s %8.3g %12lld %14.4g %-6s %s\n", lbs_grid_cluster_name(g, k),
            range, lbs_grid_proc_nodetype(g, p0), lbs_grid_rate(g, p0), (long long)l.lat_ns,
            l.bw_gbps, l.shared ? "yes" : "no", nic);
  }
  for (int a = 0; a < C; a++)
    for (int b = a + 1; b < C; b++) {
      lbs_link l = lbs_grid_link(g, a, b);
      fprintf(f, "  link %s - %s: latency %lld ns, %.4g Gb/s%s\n", lbs_grid_cluster_name(g, a),
              lbs_grid_cluster_name(g, b), (long long)l.lat_ns, l.bw_gbps,
              l.shared ? ", shared" : "");
    }
  for (int i = 0; i < lbs_grid_avail_count(g); i++) {
    char what[512];
    fprintf(f, "  availability %s: %s\n", lbs_grid_avail(g, i)->name,
            lbs_avail_describe(g, lbs_grid_avail(g, i), what, sizeof what));
  }
}
