/* cmd_grid.c - lbsim grid info: load and validate a grid file as a replay session does
 * (study/session.c) and describe it (grid/describe.c); grid
 * gen: write a grid of the seed's families (grid/family.c). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "lbs_grid.h"

static int grid_info(int argc, char **argv) {
  static const struct option lo[] = {
      {"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, CLI_SET_OPTION, {0, 0, 0, 0}};
  int json = 0, c, nover = 0;
  const char **over = calloc((size_t)argc, sizeof *over);
  while ((c = cli_getopt(argc, argv, "ho:", lo)) != -1) {
    if (c == 'j')
      json = 1;
    else if (c == 'o')
      return free(over), cli_o_none("grid info", optarg);
    else if (c == CLI_SET) {
      int rc = cli_override_check("grid info", optarg);
      if (rc) return free(over), rc;
      over[nover++] = optarg;
    } else if (c == 'h') {
      printf("usage: lbsim grid info g.ini [--set section.key=value]... [--json]\n\n"
             "Loads and validates a grid file as a replay does ([sim] and the partitioners'\n"
             "sections too) and lists its clusters, node types, processors and links. --set\n"
             "overrides a key, e.g. --set 'cluster A.nodes=32'. The keys are listed by 'lbsim\n"
             "grid --help-config'.\n");
      free(over);
      return 0;
    } else {
      free(over);
      return cli_bad_option("grid info");
    }
  }
  if (optind != argc - 1) {
    free(over);
    return cli_usage("grid info", "expected one grid file");
  }
  /* loaded as a replay loads it (a session without a trace): the grid, [sim] and every
   * partitioner's section are checked, so that a file this accepts a replay accepts too */
  lbs_session s;
  lbs_err e = lbs_session_open(&s, NULL, argv[optind], over, nover);
  free(over);
  int rc = 0;
  if (e)
    rc = cli_error("grid info", e);
  else if (json)
    rc = cli_json_print("grid info", lbs_grid_json(s.grid), LBS_JSON_COMPACT);
  else
    lbs_grid_text(stdout, s.grid);
  lbs_session_close(&s);
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
  while ((c = cli_getopt(argc, argv, "o:fh", lo)) != -1) {
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
    default: return cli_bad_option("grid gen");
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
  if (!rc) cli_wrote("grid gen", out, NULL);
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
    return argc < 2 ? cli_usage("grid", "expected a command") : 0;
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
  return cli_unknown_sub("grid", "command", argv[1], "info, gen, probe");
}
