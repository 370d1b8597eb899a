/* cmd_grid.c - lbsim grid info: load, validate and describe a grid file (grid/describe.c); grid
 * gen: write a grid of the seed's families (grid/family.c). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "lbs_grid.h"

static int grid_info(int argc, char **argv) {
  static const struct option lo[] = {{"json", no_argument, 0, 'j'},
                                     {"help", no_argument, 0, 'h'},
                                     {"set", required_argument, 0, 'o'},
                                     {0, 0, 0, 0}};
  int json = 0, c, nover = 0;
  const char **over = calloc((size_t)argc, sizeof *over);
  while ((c = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
    if (c == 'j')
      json = 1;
    else if (c == 'o') {
      int rc = cli_override_check("grid info", optarg);
      if (rc) return free(over), rc;
      over[nover++] = optarg;
    } else if (c == 'h') {
      printf("usage: lbsim grid info g.ini [-o section.key=value]... [--json]\n\n"
             "Loads and validates a grid file and lists its clusters, node types, processors\n"
             "and links. -o overrides a key, e.g. -o 'cluster A.nodes=32'. The keys are listed\n"
             "by 'lbsim grid --help-config'.\n");
      free(over);
      return 0;
    } else {
      free(over);
      return cli_usage("grid info", "bad option");
    }
  }
  if (optind != argc - 1) {
    free(over);
    return cli_usage("grid info", "expected one grid file");
  }
  lbs_grid *g;
  lbs_err e = lbs_grid_load(argv[optind], over, nover, &g);
  free(over);
  if (e) return cli_error("grid info", e);
  int C = lbs_grid_nclusters(g), P = lbs_grid_procs(g);
  int rc = 0;
  if (json) {
    rc = cli_json_print("grid info", lbs_grid_json(g), LBS_JSON_COMPACT, LBS_JSON_EXACT);
  } else {
    printf("grid      %s\nprocs     %d in %d cluster%s\n", lbs_grid_name(g), P, C,
           C == 1 ? "" : "s");
    printf("network   %s sharing on shared links and NICs; bsp barrier %lld ns\n",
           lbs_grid_sharing(g) == LBS_SHARING_FAIR ? "fair (max-min)" : "fifo",
           (long long)lbs_grid_barrier_ns(g));
    printf("  %-12s %-11s %-10s %8s %12s %14s %-6s %s\n", "cluster", "procs", "nodetype", "speed",
           "latency ns", "bandwidth Gb/s", "shared", "NIC Gb/s");
    for (int k = 0; k < C; k++) {
      int p0 = lbs_grid_cluster_first(g, k);
      lbs_link l = lbs_grid_link(g, k, k);
      char range[32];
      snprintf(range, sizeof range, "%d..%d", p0, p0 + lbs_grid_cluster_procs(g, k) - 1);
      char nic[32] = "-";
      if (lbs_grid_nic_gbps(g, p0) > 0) snprintf(nic, sizeof nic, "%.4g", lbs_grid_nic_gbps(g, p0));
      printf("  %-12s %-11s %-10s %8.3g %12lld %14.4g %-6s %s\n", lbs_grid_cluster_name(g, k),
             range, lbs_grid_proc_nodetype(g, p0), lbs_grid_rate(g, p0), (long long)l.lat_ns,
             l.bw_gbps, l.shared ? "yes" : "no", nic);
    }
    for (int a = 0; a < C; a++)
      for (int b = a + 1; b < C; b++) {
        lbs_link l = lbs_grid_link(g, a, b);
        printf("  link %s - %s: latency %lld ns, %.4g Gb/s%s\n", lbs_grid_cluster_name(g, a),
               lbs_grid_cluster_name(g, b), (long long)l.lat_ns, l.bw_gbps,
               l.shared ? ", shared" : "");
      }
    for (int i = 0; i < lbs_grid_avail_count(g); i++) {
      char what[512];
      printf("  availability %s: %s\n", lbs_grid_avail(g, i)->name,
             lbs_avail_describe(g, lbs_grid_avail(g, i), what, sizeof what));
    }
  }
  lbs_grid_destroy(&g);
  return rc;
}

static int grid_gen(int argc, char **argv) {
  static const struct option lo[] = {{"family", required_argument, 0, 'F'},
                                     {"procs", required_argument, 0, 'P'},
                                     {"clusters", required_argument, 0, 'C'},
                                     {"slowdown", required_argument, 0, 'I'},
                                     {"latency-us", required_argument, 0, 'L'},
                                     {"bandwidth-gbps", required_argument, 0, 'B'},
                                     {"output", required_argument, 0, 'o'},
                                     {"force", no_argument, 0, 'f'},
                                     {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  const char *family = NULL, *out = NULL;
  int64_t P = 0, C = 1;
  double I = 1, lat = 10, bw = 10;
  int force = 0, c;
  while ((c = getopt_long(argc, argv, "o:fh", lo, NULL)) != -1) {
    switch (c) {
    case 'F': family = optarg; break;
    case 'P':
      if (cli_parse_i64("--procs", optarg, 1, 1 << 24, &P)) return 2;
      break;
    case 'C':
      if (cli_parse_i64("--clusters", optarg, 1, 1 << 16, &C)) return 2;
      break;
    case 'I':
      if (cli_parse_f64("--slowdown", optarg, 1, 1e9, &I)) return 2;
      break;
    case 'L':
      if (cli_parse_f64("--latency-us", optarg, 0, 1e9, &lat)) return 2;
      break;
    case 'B':
      if (cli_parse_f64("--bandwidth-gbps", optarg, 1e-9, 1e9, &bw)) return 2;
      break;
    case 'o':
      if (cli_output_arg("grid gen", "-o", optarg, &out)) return 2;
      break;
    case 'f': force = 1; break;
    case 'h':
      printf(
          "usage: lbsim grid gen --family HO|UP|DN --procs P --clusters C --slowdown I [-o g.ini]\n\n"
          "The seed's grid families (seed 003): P processors in C equal clusters; cluster i of C\n"
          "has processing slowdown 1 (HO) or i (UP, DN) and network slowdown 1 (HO), i (UP) or\n"
          "C+1-i (DN); links between clusters are I times slower than the base link.\n"
          "  --latency-us L0, --bandwidth-gbps B0   the base link (default 10 us, 10 Gbit/s)\n"
          "  -o FILE   write there (default: standard output); -f replaces a regular file\n");
      return 0;
    default: return cli_usage("grid gen", "bad option");
    }
  }
  if (!family) return cli_usage("grid gen", "missing --family HO|UP|DN");
  if (!P) return cli_usage("grid gen", "missing --procs P");
  if (optind < argc) return cli_usage("grid gen", "unexpected argument '%s'", argv[optind]);
  if (out && cli_check_output(out, force ? CLI_OUT_FORCE : CLI_OUT_NEW, CLI_FILE_GRID)) return 1;
  lbs_buf b = {0};
  lbs_err e = lbs_grid_family_ini(family, (int)P, (int)C, I, lat, bw, &b);
  if (e && e != LBS_NOMEM) { /* the flags alone say what it makes: they are wrong */
    lbs_buf_free(&b);
    return cli_usage("grid gen", "%s", lbs_errmsg());
  }
  if (!e) e = lbs_grid_check_text("generated grid", (const char *)b.data); /* it must load */
  if (e) {
    lbs_buf_free(&b);
    return cli_error("grid gen", e);
  }
  if (!out) { /* a write error on standard output is reported in main() */
    fwrite(b.data, 1, b.len, stdout);
    lbs_buf_free(&b);
    return 0;
  }
  int rc = cli_replace_output(out, force, CLI_FILE_GRID) || cli_write_file(out, b.data, b.len);
  lbs_buf_free(&b);
  return rc;
}

int cmd_grid(int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "--help-config")) {
    printf("Grid files are INI: '[section]' lines, 'key = value' lines, ';' or '#' comments.\n\n");
    lbs_config_help(stdout, lbs_grid_spec());
    return 0;
  }
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    FILE *f = argc < 2 ? stderr : stdout;
    fprintf(f, "usage: lbsim grid <command> [options]\n\ncommands:\n"
               "  info    validate a grid file and describe its processors and links\n"
               "  gen     write a grid of the seed's families HO, UP, DN\n"
               "  probe   measure the machine it runs on (MPI) and write it as a grid\n\n"
               "'lbsim grid --help-config' lists every section and key of a grid file.\n");
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "info")) {
    optind = 1;
    return grid_info(argc - 1, argv + 1);
  }
  if (!strcmp(argv[1], "gen")) {
    optind = 1;
    return grid_gen(argc - 1, argv + 1);
  }
  if (!strcmp(argv[1], "probe")) {
    optind = 1;
    return cmd_grid_probe(argc - 1, argv + 1);
  }
  return cli_usage("grid", "unknown command '%s' (known: info, gen, probe)", argv[1]);
}
