#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_grid.h"

static lbs_err grid_from(const char *text, lbs_grid **g) {
  lbs_config *c;
  lbs_err e = lbs_config_parse_string("g.ini", text, &c);
  if (!e) e = lbs_grid_from_config(c, g);
  lbs_config_destroy(&c);
  return e;
}

static const char *two_sites =
    "[grid]\nns_per_work = 10\ninter_latency_us = 50\ninter_bandwidth_gbps = 2\n"
    "[nodetype fast]\nspeed = 2\ncores = 2\n"
    "[nodetype slow]\nslowdown = 4\n"
    "[cluster A]\nnodes = 3\nnodetype = fast\nlatency_us = 1\nbandwidth_gbps = 8\n"
    "[cluster B]\nnodes = 2\nnodetype = slow\n"
    "[cluster C]\nnodes = 1\n"
    "[link A B]\nlatency_us = 1000\nbandwidth_gbps = 0.5\nshared = false\n";

Test(grid, processors_clusters_and_speeds) {
  lbs_grid *g;
  cr_assert_eq(grid_from(two_sites, &g), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_procs(g), 3 * 2 + 2 + 1);
  cr_assert_eq(lbs_grid_nclusters(g), 3);
  cr_assert_eq(lbs_grid_cluster_first(g, 1), 6);
  cr_assert_eq(lbs_grid_proc_cluster(g, 7), 1);
  cr_assert_eq(lbs_grid_proc_node(g, 5), 2, "cores of a node are consecutive");
  cr_assert_str_eq(lbs_grid_proc_nodetype(g, 8), "default");
  /* linear: work x ns_per_work / speed */
  cr_assert_eq(lbs_grid_compute_ns(g, 0, 100), 500);  /* 100 x 10 / 2 */
  cr_assert_eq(lbs_grid_compute_ns(g, 6, 100), 4000); /* 100 x 10 x 4 */
  cr_assert_eq(lbs_grid_compute_ns(g, 8, 100), 1000); /* default speed 1 */
  cr_assert_eq(lbs_grid_compute_ns(g, 8, 0), 0);
  cr_assert_eq(lbs_grid_rate(g, 0), 2);
  cr_assert_eq(lbs_grid_rate(g, 6), 0.25);
  lbs_grid_destroy(&g);
}

Test(grid, links_and_transfer_times) {
  lbs_grid *g;
  cr_assert_eq(grid_from(two_sites, &g), LBS_OK);
  /* inside A: 1 us + 1000 bytes x 8 bits / 8 Gbit/s = 1000 + 1000 ns */
  cr_assert_eq(lbs_grid_transfer_ns(g, 0, 5, 1000), 2000);
  cr_assert_eq(lbs_grid_transfer_ns(g, 3, 3, 1000), 0);
  /* A-B: the [link]: 1 ms + 8000 bits / 0.5 = 1,000,000 + 16,000 */
  cr_assert_eq(lbs_grid_transfer_ns(g, 0, 6, 1000), 1016000);
  cr_assert_eq(lbs_grid_transfer_ns(g, 7, 1, 1000), 1016000, "links are symmetric");
  /* A-C: [grid] defaults: 50 us + 8000 / 2 */
  cr_assert_eq(lbs_grid_transfer_ns(g, 0, 8, 1000), 54000);
  lbs_link l = lbs_grid_link(g, 0, 1);
  cr_assert_eq(l.shared, 0);
  cr_assert_eq(lbs_grid_link(g, 0, 2).shared, 1, "inter_shared defaults to true");
  cr_assert_eq(lbs_grid_link(g, 1, 1).lat_ns, 1000, "cluster default latency 1 us");
  lbs_grid_destroy(&g);
}

/* A transfer longer than int64 nanoseconds was converted from double unchecked (undefined; on
 * x86 a large negative time) although every key is in range: 1 bit/s and a petabyte. The time
 * is held at 9e18 ns, as compute times are. Reproduced through fuzz_config. */
Test(grid, transfer_times_beyond_int64_are_held) {
  lbs_grid *g;
  cr_assert_eq(grid_from("[grid]\ninter_latency_us = 1\ninter_bandwidth_gbps = 1e-9\n"
                         "[cluster A]\nnodes = 1\n[cluster B]\nnodes = 1\n",
                         &g),
               LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_transfer_ns(g, 0, 1, 1e15), INT64_C(9000000000000000000) + 1000);
  cr_assert_eq(lbs_grid_transfer_ns(g, 0, 1, 1e300), INT64_C(9000000000000000000) + 1000);
  lbs_grid_destroy(&g);
}

#define BAD(text, needle)                                                                          \
  do {                                                                                             \
    lbs_grid *g = NULL;                                                                            \
    cr_assert_neq(grid_from(text, &g), LBS_OK, "accepted: %s", text);                              \
    cr_assert(strstr(lbs_errmsg(), needle), "message '%s' lacks '%s'", lbs_errmsg(), needle);      \
    cr_assert_null(g);                                                                             \
  } while (0)

Test(grid, bad_grids_are_named) {
  BAD("[grid]\nname = empty\n", "g.ini: no [cluster NAME] section");
  BAD("[cluster A]\nnodes = 0\n", "g.ini:2: nodes = 0 is outside [1, 1e+07]");
  BAD("[cluster A]\nnodes = 2\nbandwidth_gbps = 0\n", "g.ini:3: bandwidth_gbps = 0 is outside");
  BAD("[cluster A]\nnodes = 2\nbandwidth_gbps = -5\n", "bandwidth_gbps = -5 is outside");
  BAD("[cluster A]\nnodes = 2\nlatncy_us = 3\n",
      "g.ini:3: unknown key 'latncy_us' in [cluster] (did you mean 'latency_us'?)");
  BAD("[cluster A]\nnodes = 2\nnodetype = gpu\n",
      "g.ini:3: nodetype 'gpu' has no [nodetype gpu] section");
  BAD("[cluster A]\nnodes = 2\n[link A Z]\nlatency_us = 1\nbandwidth_gbps = 1\n",
      "[link A Z] must join two different clusters");
  BAD("[cluster A]\nnodes = 2\n[link A]\nlatency_us = 1\nbandwidth_gbps = 1\n",
      "g.ini:3: section [link A] needs two names");
  BAD("[cluster A]\nnodes = 2\n[link A A]\nlatency_us = 1\nbandwidth_gbps = 1\n",
      "must join two different clusters");
  BAD("[nodetype n]\nspeed = 2\nslowdown = 2\n[cluster A]\nnodes = 1\nnodetype = n\n",
      "g.ini:3: [nodetype n] gives both 'speed' and 'slowdown'");
  BAD("[nodetype n]\nspeed_model = systolic\n[cluster A]\nnodes = 1\nnodetype = n\n",
      "g.ini:2: unknown speed_model 'systolic' (known: linear");
  BAD("[nodetype unused]\nspeed_model = magic\n[cluster A]\nnodes = 1\n",
      "unknown speed_model 'magic'");
  BAD("[nodetype n]\nspeed_model = linaer\n[cluster A]\nnodes = 1\nnodetype = n\n",
      "g.ini:2: unknown speed_model 'linaer' (known: linear");
  cr_assert(strstr(lbs_errmsg(), "; did you mean 'linear'?"), "%s", lbs_errmsg());
  BAD("[cluster A]\nnodes = 2\n[link A B]\nlatency_us = 1\n", "[link A B] needs 'bandwidth_gbps'");
}

static lbs_err mock_init(void **s, const lbs_config *c, const char *nt, double npw) {
  (void)c, (void)nt, (void)npw;
  *s = NULL;
  return LBS_OK;
}
static int64_t mock_time(const void *s, double w) {
  (void)s;
  return w < 10 ? 1000 : (int64_t)w; /* a fixed overhead for small work: non-linear */
}
static double mock_rate(const void *s) {
  (void)s;
  return 1;
}

Test(grid, speed_models_are_pluggable) {
  static const lbs_speed_ops mock = {.abi = LBS_SPEED_ABI,
                                     .name = "mock",
                                     .init = mock_init,
                                     .time_ns = mock_time,
                                     .rate = mock_rate};
  cr_assert_eq(lbs_speed_register(&mock), LBS_OK);
  cr_assert_eq(lbs_speed_register(&mock), LBS_INVAL, "names are unique");
  cr_assert_eq(lbs_speed_find("mock"), &mock);
  cr_assert_eq(lbs_speed_at(lbs_speed_count() - 1), &mock, "registration order");
  lbs_grid *g;
  cr_assert_eq(
      grid_from("[nodetype m]\nspeed_model = mock\n[cluster A]\nnodes = 2\nnodetype = m\n", &g),
      LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_compute_ns(g, 1, 3), 1000);
  cr_assert_eq(lbs_grid_compute_ns(g, 1, 30), 30);
  lbs_grid_destroy(&g);
}

/* A model with a key of its own: a fixed cost added to linear time (ns_per_work 1). */
static const lbs_opt overhead_keys[] = {
    {"overhead_ns", LBS_OPT_DOUBLE, "1000", 0, 1e12, "fixed cost of any work, ns"},
    {NULL, 0, NULL, 0, 0, NULL}};
static lbs_err overhead_init(void **s, const lbs_config *c, const char *nt, double npw) {
  (void)npw;
  double *o = malloc(sizeof *o);
  cr_assert_not_null(o);
  *s = o;
  return lbs_config_double(c, lbs_grid_spec(), "nodetype", nt, "overhead_ns", o);
}
static int64_t overhead_time(const void *s, double w) { return (int64_t)(*(const double *)s + w); }
static const lbs_speed_ops overhead = {.abi = LBS_SPEED_ABI,
                                       .name = "overhead",
                                       .keys = overhead_keys,
                                       .example = "overhead_ns = 5\n",
                                       .monotone = 1,
                                       .init = overhead_init,
                                       .time_ns = overhead_time,
                                       .rate = mock_rate,
                                       .fini = free};

static char *grid_help(void) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  cr_assert_not_null(f);
  lbs_config_help(f, lbs_grid_spec());
  fclose(f);
  return text;
}

Test(grid, speed_models_own_their_keys) {
  char *help = grid_help(); /* the [nodetype] table is built before the model comes */
  cr_assert(strstr(help, "linear: relative speed (2 = twice as fast)"), "%s", help);
  cr_assert(strstr(help, "how work becomes time (linear"), "%s", help);
  cr_assert_null(strstr(help, "overhead_ns"));
  free(help);
  BAD("[nodetype n]\noverhead_ns = 5\n[cluster A]\nnodes = 1\nnodetype = n\n",
      "unknown key 'overhead_ns' in [nodetype]");

  cr_assert_eq(lbs_speed_register(&overhead), LBS_OK, "%s", lbs_errmsg());
  help = grid_help();
  cr_assert(strstr(help, "overhead_ns"), "%s", help);
  cr_assert(strstr(help, "overhead: fixed cost of any work, ns"), "%s", help);
  cr_assert(strstr(help, "how work becomes time (linear, ") && strstr(help, ", overhead)"), "%s",
            help);
  cr_assert(strstr(help, "linear: relative speed"), "%s", help);
  free(help);

  lbs_grid *g;
  cr_assert_eq(grid_from("[nodetype n]\nspeed_model = overhead\noverhead_ns = 50\n"
                         "[cluster A]\nnodes = 1\nnodetype = n\n",
                         &g),
               LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_compute_ns(g, 0, 10), 60);
  lbs_grid_destroy(&g);
  /* a key of another model than the node type's is an error naming both models */
  BAD("[grid]\nname = x\n[nodetype gpu]\nspeed_model = overhead\ncores = 2\nspeed = 2\n[cluster A]\nnodes = 1\n"
      "nodetype = gpu\n",
      "g.ini:6: [nodetype gpu] key 'speed' belongs to speed model 'linear'; this node type uses 'overhead'");
  BAD("[nodetype cpu]\noverhead_ns = 5\n[cluster A]\nnodes = 1\nnodetype = cpu\n",
      "g.ini:2: [nodetype cpu] key 'overhead_ns' belongs to speed model 'overhead'; this node type uses 'linear'");
  BAD("[nodetype unused]\nslowdown = 2\nspeed_model = overhead\n[cluster A]\nnodes = 1\n",
      "g.ini:2: [nodetype unused] key 'slowdown' belongs to speed model 'linear'; this node type uses 'overhead'");
  BAD("[nodetype n]\nspeed_model = overhead\noverhead_ns = -1\n[cluster A]\nnodes = 1\nnodetype = n\n",
      "g.ini:3: overhead_ns = -1 is outside [0, 1e+12]");
  BAD("[nodetype n]\nspeed_model = overhead\noverhed_ns = 1\n[cluster A]\nnodes = 1\nnodetype = n\n",
      "did you mean 'overhead_ns'?");
}

Test(grid, speed_model_registration_is_checked) {
  static const lbs_opt clash[] = {{"slowdown", LBS_OPT_DOUBLE, "1", 0, 1, "x"},
                                  {NULL, 0, NULL, 0, 0, NULL}},
                       common[] = {{"cores", LBS_OPT_INT, "1", 0, 1, "x"},
                                   {NULL, 0, NULL, 0, 0, NULL}},
                       twice[] = {{"k", LBS_OPT_INT, "1", 0, 1, "x"},
                                  {"k", LBS_OPT_INT, "1", 0, 1, "x"},
                                  {NULL, 0, NULL, 0, 0, NULL}};
  int n = lbs_speed_count();
  lbs_speed_ops m = overhead;
  m.abi = 1;
  cr_assert_eq(lbs_speed_register(&m), LBS_INVAL, "an old ABI");
  m = overhead;
  m.keys = clash;
  cr_assert_eq(lbs_speed_register(&m), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "key 'slowdown' belongs to speed model 'linear'"), "%s",
            lbs_errmsg());
  m.keys = common;
  cr_assert_eq(lbs_speed_register(&m), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "key 'cores'"), "%s", lbs_errmsg());
  m.keys = twice;
  cr_assert_eq(lbs_speed_register(&m), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "key 'k' is declared twice"), "%s", lbs_errmsg());
  m = overhead;
  m.time_ns = NULL;
  cr_assert_eq(lbs_speed_register(&m), LBS_INVAL, "time_ns is required");
  m = overhead;
  m.name = "linear";
  cr_assert_eq(lbs_speed_register(&m), LBS_INVAL, "a taken name");
  cr_assert(strstr(lbs_errmsg(), "'linear' exists"), "%s", lbs_errmsg());
  cr_assert_eq(lbs_speed_count(), n, "nothing refused was added");
  cr_assert_null(lbs_speed_find("overhead"));
}

Test(grid, example_files_load) {
  const char *files[] = {"examples/grids/homogeneous16.ini", "examples/grids/two_sites.ini"};
  int procs[] = {16, 32};
  for (int i = 0; i < 2; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", LBS_SOURCE_DIR, files[i]);
    lbs_grid *g;
    cr_assert_eq(lbs_grid_load(path, NULL, 0, &g), LBS_OK, "%s", lbs_errmsg());
    cr_assert_eq(lbs_grid_procs(g), procs[i]);
    lbs_grid_destroy(&g);
  }
  const char *over[] = {"cluster main.nodes=4", "grid.ns_per_work=2"};
  lbs_grid *g;
  char path[512];
  snprintf(path, sizeof path, "%s/%s", LBS_SOURCE_DIR, files[0]);
  cr_assert_eq(lbs_grid_load(path, over, 2, &g), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_procs(g), 4);
  cr_assert_eq(lbs_grid_compute_ns(g, 0, 5), 10);
  lbs_grid_destroy(&g);
}

static lbs_grid *family(const char *f, int P, int C, double I) {
  lbs_buf b = {0};
  lbs_config *c;
  lbs_grid *g = NULL;
  cr_assert_eq(lbs_grid_family_ini(f, P, C, I, 10, 10, &b), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_config_parse_string("family.ini", (const char *)b.data, &c), LBS_OK, "%s",
               lbs_errmsg());
  cr_assert_eq(lbs_grid_from_config(c, &g), LBS_OK, "%s", lbs_errmsg());
  lbs_config_destroy(&c);
  lbs_buf_free(&b);
  return g;
}

Test(grid, families_ho_up_dn) {
  lbs_grid *ho = family("HO", 32, 4, 10), *up = family("UP", 32, 4, 100),
           *dn = family("DN", 32, 4, 100);
  for (int c = 0; c < 4; c++) {
    int p = lbs_grid_cluster_first(up, c);
    cr_assert_eq(lbs_grid_cluster_procs(up, c), 8);
    cr_assert_eq(lbs_grid_rate(ho, p), 1);
    cr_assert_float_eq(lbs_grid_rate(up, p), 1.0 / (c + 1), 1e-12, "UP processing slowdown i");
    cr_assert_float_eq(lbs_grid_rate(dn, p), 1.0 / (c + 1), 1e-12, "DN processing slowdown i");
    cr_assert_eq(lbs_grid_link(ho, c, c).lat_ns, 10000);
    cr_assert_eq(lbs_grid_link(up, c, c).lat_ns, 10000 * (c + 1), "UP network slowdown i");
    cr_assert_eq(lbs_grid_link(dn, c, c).lat_ns, 10000 * (4 - c), "DN network slowdown C+1-i");
    cr_assert_float_eq(lbs_grid_link(dn, c, c).bw_gbps, 10.0 / (4 - c), 1e-12);
  }
  cr_assert_eq(lbs_grid_link(up, 0, 3).lat_ns, 1000000, "inter-cluster latency I x L0");
  cr_assert_float_eq(lbs_grid_link(up, 1, 2).bw_gbps, 0.1, 1e-12);
  cr_assert_eq(lbs_grid_link(up, 1, 2).shared, 0);
  cr_assert_eq(lbs_grid_link(ho, 0, 1).lat_ns, 100000);
  lbs_grid_destroy(&ho);
  lbs_grid_destroy(&up);
  lbs_grid_destroy(&dn);
  lbs_buf b = {0};
  cr_assert_eq(lbs_grid_family_ini("UP", 10, 4, 10, 10, 10, &b), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "10 processors do not divide into 4 equal clusters"));
  cr_assert_eq(lbs_grid_family_ini("XX", 8, 4, 10, 10, 10, &b), LBS_NOTFOUND);
  cr_assert(strstr(lbs_errmsg(), "known: HO, UP, DN"));
  cr_assert_eq(lbs_grid_family_ini("HO", 8, 4, 0.5, 10, 10, &b), LBS_INVAL);
  lbs_buf_free(&b);
}
