/* libFuzzer: the INI configuration as `lbsim replay|policy|partition --grid FILE -o ...` reads it.
 * Input: the file's text, then optionally a line "@@" and one "-o" override a line. The text is
 * parsed (a NUL in it is refused, as lbs_config_load refuses a binary file), the overrides
 * applied in order (the first bad one stops, as in the CLI), and the result checked against
 * every section table there is: the grid's (which passes [zoltan], [minex] and [sim] through),
 * then [sim] and the partitioners' sections on their own, as the replay and they read them.
 * Wherever a check passes, every declared key of every such section must read back through its
 * typed getter (lbs_config.h promises it); a grid that builds is queried as the replay queries it.
 * The same text is read as a pipeline file (lbsim pipeline), whose laws must hold where it builds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_config.h"
#include "lbs_grid.h"
#include "lbs_part.h"
#include "lbs_pipeline.h"
#include "lbs_sim.h"

/* Every key of every section of a kind that specs declares reads back. */
static void read_back(const lbs_config *c, const lbs_section_spec *specs) {
  for (const lbs_section_spec *sp = specs; sp->kind; sp++) {
    int n = lbs_config_count(c, sp->kind);
    /* the unnamed sections are read (defaults) even when absent */
    for (int i = 0; i < (n || sp->named ? n : 1); i++) {
      const char *name = n ? lbs_config_name(c, sp->kind, i) : "";
      if (!name) abort();
      for (const lbs_opt *o = sp->opts; o && o->key; o++) {
        long long x;
        double d;
        int b;
        const char *s;
        lbs_err e =
            o->type == LBS_OPT_INT      ? lbs_config_int(c, specs, sp->kind, name, o->key, &x)
            : o->type == LBS_OPT_DOUBLE ? lbs_config_double(c, specs, sp->kind, name, o->key, &d)
            : o->type == LBS_OPT_BOOL   ? lbs_config_bool(c, specs, sp->kind, name, o->key, &b)
                                        : lbs_config_string(c, specs, sp->kind, name, o->key, &s);
        if (e) abort(); /* the check passed: every declared key has a value of its type */
        if (o->type == LBS_OPT_INT && o->min <= o->max && (x < o->min || x > o->max)) abort();
        if (o->type == LBS_OPT_DOUBLE && o->min <= o->max && !(d >= o->min && d <= o->max)) abort();
        (void)lbs_config_where(c, sp->kind, name, o->key);
      }
    }
  }
}

/* What the replay asks of a grid: sizes, names, compute and transfer times, part sizes. */
static void query_grid(const lbs_grid *g) {
  int P = lbs_grid_procs(g), C = lbs_grid_nclusters(g);
  (void)lbs_grid_name(g);
  double be = lbs_grid_bytes_per_elem(g), bg = lbs_grid_bytes_per_edge(g);
  if (!(be >= 0) || !(bg >= 0)) abort();
  for (int c = 0; c < C && c < 16; c++) {
    int first = lbs_grid_cluster_first(g, c), np = lbs_grid_cluster_procs(g, c);
    (void)lbs_grid_cluster_name(g, c);
    if (np < 1 || first < 0 || first + np > P || lbs_grid_proc_cluster(g, first) != c) abort();
    (void)lbs_grid_proc_node(g, first + np - 1);
    (void)lbs_grid_proc_nodetype(g, first);
    for (int k = 0; k < 4; k++) {
      static const double work[4] = {0, 1, 1e6, 1e15};
      if (lbs_grid_compute_ns(g, first, work[k]) < 0) abort();
    }
    if (!(lbs_grid_rate(g, first) > 0)) abort();
    for (int d = 0; d < C && d < 16; d++) {
      lbs_link l = lbs_grid_link(g, c, d);
      if (l.lat_ns < 0 || !(l.bw_gbps > 0)) abort();
      int q = lbs_grid_cluster_first(g, d) + lbs_grid_cluster_procs(g, d) - 1;
      /* a migration of a million elements and a halo of a thousand edges, as the replay charges */
      if (lbs_grid_transfer_ns(g, first, q, 1e6 * (be > 0 ? be : 1024)) < 0) abort();
      if (lbs_grid_transfer_ns(g, first, q, 1e3 * (bg > 0 ? bg : 64)) < 0) abort();
    }
  }
  if (P <= 4096) {
    double sizes[4096], sum = 0;
    lbs_grid_part_sizes(g, sizes);
    for (int p = 0; p < P; p++) sum += sizes[p];
    if (!(sum > 0.999 && sum < 1.001)) abort();
  }
}

/* What lbsim pipeline prints holds together: U = X D <= 1, X <= 1 / Dmax and the balanced bound,
 * the bottleneck's demand is Dmax, N = X (R + Z). */
static void check_pipeline(const lbs_pipeline *p) {
  double n = (double)lbs_pipeline_jobs(p), z = lbs_pipeline_think_s(p);
  for (int m = 0; m < lbs_pipeline_nmappings(p); m++) {
    const lbs_pipeline_law *L = lbs_pipeline_mapping_law(p, m);
    int nc;
    const lbs_pipeline_copy *c = lbs_pipeline_mapping_copies(p, m, &nc);
    for (int i = 0; i < nc; i++)
      if (c[i].block < 0 || c[i].block >= lbs_pipeline_nblocks(p) || c[i].proc < 0 ||
          c[i].proc >= lbs_pipeline_nprocs(p) || !(c[i].share > 0))
        abort();
    if (!(L->dmax_s > 0) || L->demand_s[L->bottleneck] != L->dmax_s || !(L->throughput > 0))
      abort();
    if (L->throughput > (1 / L->dmax_s) * (1 + 1e-12) || L->throughput > L->balanced * (1 + 1e-9))
      abort();
    for (int k = 0; k < lbs_pipeline_nprocs(p); k++)
      if (!(L->util[k] >= 0 && L->util[k] <= 1 + 1e-12) || L->demand_s[k] > L->dmax_s) abort();
    if (!(L->response_s >= 0) ||
        !(fabs(n - L->throughput * (L->response_s + z)) <= 1e-6 * (n + L->throughput * z)))
      abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *in = (const char *)data, *sep = memmem(in, size, "\n@@\n", 4);
  size_t tl = sep ? (size_t)(sep - in) + 1 : size; /* the text keeps its last newline */
  if (memchr(in, '\0', tl)) return 0;
  char *text = malloc(tl + 1);
  if (!text) return 0;
  memcpy(text, in, tl);
  text[tl] = '\0';
  lbs_config *c;
  lbs_err e = lbs_config_parse_string("fuzz.ini", text, &c);
  free(text);
  if (e) {
    if (c) abort(); /* a failed parse hands back nothing */
    return 0;
  }
  /* the overrides: one a line, as argv strings (a NUL ends one) */
  for (const char *p = sep ? sep + 4 : NULL, *end = in + size; p && p < end && !e;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
    char *o = strndup(p, len);
    if (!o) break;
    e = lbs_config_override(c, o);
    free(o);
    p += len + 1;
  }
  if (!e) {
    /* every section and key, as --help-config and the Zoltan pass-through walk them */
    static const char *const kinds[] = {"grid",   "nodetype", "cluster", "link",
                                        "zoltan", "minex",    "sim"};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
      for (int i = 0; i < lbs_config_count(c, kinds[k]); i++) {
        const char *name = lbs_config_name(c, kinds[k], i), *key, *value;
        (void)lbs_config_where(c, kinds[k], name, NULL);
        for (int j = 0; lbs_config_entry(c, kinds[k], name, j, &key, &value); j++)
          if (!lbs_config_has(c, kinds[k], name, key)) abort();
      }
    if (lbs_config_check(c, lbs_grid_spec()) == LBS_OK) read_back(c, lbs_grid_spec());
    if (lbs_config_check_only(c, lbs_sim_spec) == LBS_OK) read_back(c, lbs_sim_spec);
    if (lbs_config_check_only(c, lbs_part_sections()) == LBS_OK) read_back(c, lbs_part_sections());
    (void)lbs_config_check(c, lbs_sim_spec);
    lbs_replay_opts ro;
    lbs_replay_opts_default(&ro);
    (void)lbs_replay_opts_from_config(c, &ro);
    lbs_pipeline *pl;
    if (lbs_pipeline_from_config(c, &pl) == LBS_OK) {
      check_pipeline(pl);
      lbs_pipeline_destroy(&pl);
    } else if (pl) {
      abort();
    }
    lbs_grid *g;
    if (lbs_grid_from_config(c, &g) == LBS_OK) {
      query_grid(g);
      lbs_grid_destroy(&g);
    } else if (g) {
      abort();
    }
  }
  lbs_config_destroy(&c);
  return 0;
}
