/* cmd_pipeline.c - lbsim pipeline: seed 000's operational laws applied to block-to-processor
 * mappings of a pipeline, the mappings side by side (pipeline/lbs_pipeline.h). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lbs_pipeline.h"

static void usage(void) {
  printf(
      "usage: lbsim pipeline map.ini [--mappings A,B] [--json] [-o FILE] [--csv DIR] [-f]\n"
      "                               [--set SECTION.KEY=VALUE]...\n"
      "       lbsim pipeline --help-config\n\n"
      "Applies the operational laws of seed 000 (the Auto-Pipe Laplace solver's queueing model) to\n"
      "every mapping of a pipeline file: blocks with measured demands per job, processors, buffers\n"
      "and mappings of block copies to processors. For each mapping: each processor's demand D_k\n"
      "(the sum of its copies' shares x block demands / speed), the bottleneck (largest D_k),\n"
      "the throughput X = min(1/Dmax, N/(D+Z)), utilisations U_k = X.D_k, the response time\n"
      "R = N/X - Z (the seed's execution time, N.Dmax) and the balanced bound (the throughput if\n"
      "the same work were spread evenly). Buffers enter no law: the bounds assume none fills.\n\n"
      "options:\n"
      "  --mappings LIST   only these mappings (comma-separated), in this order\n"
      "  --json            one JSON object instead of the tables\n"
      "  -o, --output FILE the tables (or JSON) there instead of standard output\n"
      "  --csv DIR         also DIR/mappings.csv: one CSV row per mapping and processor it uses\n"
      "  -f, --force       replace an earlier pipeline report at -o FILE, an earlier --csv DIR\n"
      "  --set S.K=V       override a key, e.g. --set pipeline.jobs=20000 or --set 'mapping 2A.AVG=cpu0'\n"
      "  --help-config     every section and key of a pipeline file\n\n"
      "examples:\n"
      "  lbsim pipeline examples/pipeline/laplace.ini\n"
      "  lbsim pipeline examples/pipeline/laplace.ini --mappings 2A,2B --json\n"
      "  lbsim pipeline examples/pipeline/laplace.ini --csv laplace   # laplace/mappings.csv\n");
}

enum { O_JSON = 1000, O_CSV, O_MAPPINGS, O_HELPCFG };

typedef struct {
  const char *file, *list, *out, *csv; /* csv: --csv's directory */
  int json, force;
  const char **over; /* --set, as given */
  int nover;
  cli_outdir od; /* --csv's directory, checked before the work */
} args;

/* --csv used to be a flag (CSV instead of the tables): its old spellings are refused, never
 * read as a directory. arg is --csv's argument, NULL when there was none. 0, or 2. */
static int csv_arg(const char *arg, args *a) {
  if (!arg || arg[0] == '-')
    return cli_usage("pipeline", "--csv takes a directory (the CSV goes to DIR/mappings.csv)%s%s%s",
                     arg ? ", not '" : "", arg ? arg : "", arg ? "'" : "");
  return cli_output_arg("pipeline", "--csv", arg, &a->csv);
}

/* 1 when getopt's last word was --csv (or a prefix of it) given no value. */
static int csv_without_value(char **argv) {
  const char *w = optind > 0 ? argv[optind - 1] : "";
  return strlen(w) >= 3 && !strncmp(w, "--csv", strlen(w));
}

/* The command line into a: 0, 2 after a usage error (1: out of memory), or -1 after --help or
 * --help-config. */
static int parse(int argc, char **argv, args *a) {
  static const struct option lo[] = {{"json", no_argument, 0, O_JSON},
                                     {"csv", required_argument, 0, O_CSV},
                                     {"mappings", required_argument, 0, O_MAPPINGS},
                                     {"output", required_argument, 0, 'o'},
                                     {"force", no_argument, 0, 'f'},
                                     CLI_SET_OPTION,
                                     {"help-config", no_argument, 0, O_HELPCFG},
                                     {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  int c, rc;
  if (!(a->over = calloc((size_t)argc + 1, sizeof *a->over)))
    return fprintf(stderr, "lbsim: pipeline: out of memory\n"), 1;
  optind = 1;
  while ((c = cli_getopt(argc, argv, "fho:", lo)) != -1) {
    switch (c) {
    case O_JSON: a->json = 1; break;
    case O_CSV:
      if ((rc = csv_arg(optarg, a))) return rc;
      break;
    case O_MAPPINGS: a->list = optarg; break;
    case 'o':
      if ((rc = cli_o_output("pipeline", optarg, &a->out))) return rc;
      break;
    case 'f': a->force = 1; break;
    case CLI_SET:
      if ((rc = cli_override_check("pipeline", optarg))) return rc;
      a->over[a->nover++] = optarg;
      break;
    case O_HELPCFG:
      printf("Pipeline files are INI: '[section]' lines, 'key = value' lines, ';' or '#' "
             "comments.\n\n");
      lbs_config_help(stdout, lbs_pipeline_spec());
      return -1;
    case 'h': usage(); return -1;
    default: return csv_without_value(argv) ? csv_arg(NULL, a) : cli_bad_option("pipeline");
    }
  }
  if (optind != argc - 1) return cli_usage("pipeline", "expected one pipeline file");
  if (a->force && !a->out && !a->csv)
    return cli_usage("pipeline", "--force goes with -o FILE or --csv DIR");
  if (a->out && cli_check_output(a->out, a->force ? CLI_OUT_FORCE : CLI_OUT_NEW, CLI_FILE_PIPELINE))
    return 1;
  if (a->csv && cli_outdir_check_as(&a->od, "pipeline", a->csv, a->force, CLI_DIR_PIPELINE))
    return 1;
  a->file = argv[optind];
  return 0;
}

/* The report (JSON or tables) to f: 0, or -1 when out of memory (JSON). */
static int write_report(FILE *f, const args *a, const lbs_pipeline *p, const int *sel, int nsel) {
  if (!a->json) return lbs_pipeline_write_text(f, p, sel, nsel), 0;
  json_t *o = lbs_pipeline_json(p, sel, nsel);
  int rc = lbs_json_write(f, o, LBS_JSON_COMPACT);
  json_decref(o);
  return rc;
}

/* --csv DIR: DIR/mappings.csv, written into a fresh directory renamed into place (cli_outdir).
 * 0, or 1 after saying why not. */
static int write_csv(args *a, const lbs_pipeline *p, const int *sel, int nsel) {
  char *buf = NULL, path[4400];
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (f) lbs_pipeline_write_csv(f, p, sel, nsel);
  int rc = !f || fclose(f) != 0 ? (fprintf(stderr, "lbsim: pipeline: out of memory\n"), 1) : 0;
  if (!rc) rc = cli_outdir_begin(&a->od);
  if (!rc) {
    snprintf(path, sizeof path, "%s/mappings.csv", a->od.tmp);
    rc = cli_write_file(path, buf, len) || cli_outdir_commit(&a->od);
  }
  cli_outdir_abort(&a->od);
  free(buf);
  return rc;
}

int cmd_pipeline(int argc, char **argv) {
  args a = {0};
  int rc = parse(argc, argv, &a);
  if (rc) return free(a.over), rc < 0 ? 0 : rc;
  lbs_pipeline *p;
  lbs_err e = lbs_pipeline_load(a.file, a.over, a.nover, &p);
  free(a.over);
  if (e) return cli_error("pipeline", e);
  int *sel = calloc((size_t)lbs_pipeline_nmappings(p) + 1, sizeof *sel), nsel = 0;
  e = sel ? lbs_pipeline_select(p, a.list, sel, &nsel) : lbs_fail(LBS_NOMEM, "out of memory");
  char *buf = NULL;
  size_t len = 0;
  FILE *f = e ? NULL : a.out ? open_memstream(&buf, &len) : stdout;
  if (e)
    rc = cli_error("pipeline", e);
  else if (!f)
    rc = (fprintf(stderr, "lbsim: pipeline: out of memory\n"), 1);
  else if (a.out) { /* stdout's write errors are reported by main() */
    int jbad = write_report(f, &a, p, sel, nsel), bad = fclose(f) != 0 || jbad;
    if (bad)
      rc = (fprintf(stderr, "lbsim: pipeline: out of memory\n"), 1);
    else
      rc = cli_replace_output(a.out, a.force, CLI_FILE_PIPELINE) || cli_write_file(a.out, buf, len);
    if (!rc) cli_wrote("pipeline", a.out, NULL);
  } else if (write_report(f, &a, p, sel, nsel) && !ferror(stdout)) {
    rc = (fprintf(stderr, "lbsim: pipeline: out of memory\n"), 1);
  }
  if (!rc && a.csv) rc = write_csv(&a, p, sel, nsel);
  free(buf);
  free(sel);
  lbs_pipeline_destroy(&p);
  return rc;
}
