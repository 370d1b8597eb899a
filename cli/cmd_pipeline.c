/* cmd_pipeline.c - lbsim pipeline: seed 000's operational laws applied to block-to-processor
 * mappings of a pipeline, the mappings side by side (pipeline/lbs_pipeline.h). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lbs_pipeline.h"

static void usage(void) {
  printf("usage: lbsim pipeline map.ini [--mappings A,B] [--json | --csv] [--output FILE [-f]]\n"
         "                               [-o SECTION.KEY=VALUE]...\n"
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
         "  --csv             one CSV row per mapping and processor it uses\n"
         "  --output FILE     write there instead of standard output; -f, --force replaces a\n"
         "                    regular file\n"
         "  -o, --set S.K=V   override a key, e.g. -o pipeline.jobs=20000 or -o 'mapping 2A.AVG=cpu0'\n"
         "  --help-config     every section and key of a pipeline file\n\n"
         "examples:\n"
         "  lbsim pipeline examples/pipeline/laplace.ini\n"
         "  lbsim pipeline examples/pipeline/laplace.ini --mappings 2A,2B --json\n"
         "  lbsim pipeline examples/pipeline/laplace.ini --csv --output laplace.csv\n");
}


/* Writes mapping m's copies on processor k as "RNG*0.5 Walk*0.5 AVG" (share 1 unwritten). */
static void copies_text(FILE *f, const lbs_pipeline *p, int m, int k) {
  int n, first = 1;
  const lbs_pipeline_copy *c = lbs_pipeline_mapping_copies(p, m, &n);
  for (int i = 0; i < n; i++) {
    if (c[i].proc != k) continue;
    fprintf(f, "%s%s", first ? "" : " ", lbs_pipeline_block_name(p, c[i].block));
    if (c[i].share != 1) fprintf(f, "*%.6g", c[i].share);
    first = 0;
  }
}

static void write_human(FILE *f, const lbs_pipeline *p, const int *sel, int nsel) {
  double N = (double)lbs_pipeline_jobs(p);
  fprintf(f, "pipeline %s: %lld jobs, think time %g s\n", lbs_pipeline_name(p), lbs_pipeline_jobs(p),
          lbs_pipeline_think_s(p));
  fprintf(f, "  %-12s %14s\n", "block", "demand s/job");
  for (int b = 0; b < lbs_pipeline_nblocks(p); b++)
    fprintf(f, "  %-12s %14.6g\n", lbs_pipeline_block_name(p, b), lbs_pipeline_block_demand_s(p, b));
  for (int i = 0; i < lbs_pipeline_nbuffers(p); i++) {
    int a, b;
    long long cap;
    lbs_pipeline_buffer(p, i, &a, &b, &cap);
    fprintf(f, "  buffer %s -> %s: ", lbs_pipeline_block_name(p, a), lbs_pipeline_block_name(p, b));
    if (cap) fprintf(f, "%lld jobs\n", cap);
    else fprintf(f, "unbounded\n");
  }
  if (lbs_pipeline_nbuffers(p)) fprintf(f, "  (the laws assume no buffer fills: X is an upper bound)\n");
  for (int j = 0; j < nsel; j++) {
    int m = sel[j];
    const lbs_pipeline_law *L = lbs_pipeline_mapping_law(p, m);
    fprintf(f, "\nmapping %s\n  %-12s %14s %12s %12s  %s\n", lbs_pipeline_mapping_name(p, m), "processor",
            "demand s/job", "utilisation", "busy s", "copies");
    for (int k = 0; k < lbs_pipeline_nprocs(p); k++) {
      if (!L->used[k]) continue;
      fprintf(f, "  %-12s %14.6g %11.4f%% %12.6g  ", lbs_pipeline_proc_name(p, k), L->demand_s[k], 100 * L->util[k],
              N * L->demand_s[k]);
      copies_text(f, p, m, k);
      fprintf(f, "%s\n", k == L->bottleneck ? "  <- bottleneck" : "");
    }
  }
  fprintf(f, "\n%-10s %5s  %-12s %14s %14s %12s %14s\n", "mapping", "procs", "bottleneck", "Dmax s/job",
          "X jobs/s", "R s", "balanced X");
  for (int j = 0; j < nsel; j++) {
    const lbs_pipeline_law *L = lbs_pipeline_mapping_law(p, sel[j]);
    fprintf(f, "%-10s %5d  %-12s %14.6g %14.6g %12.6g %14.6g\n", lbs_pipeline_mapping_name(p, sel[j]), L->nused,
            lbs_pipeline_proc_name(p, L->bottleneck), L->dmax_s, L->throughput, L->response_s, L->balanced);
  }
}

/* --json to f: 0, or -1 when out of memory or f failed (ferror(f) tells which). */
static int write_json(FILE *f, const lbs_pipeline *p, const int *sel, int nsel) {
  double N = (double)lbs_pipeline_jobs(p);
  json_t *o = json_object(), *blocks = json_array(), *procs = json_array(), *bufs = json_array(),
         *maps = json_array();
  int bad = lbs_json_set(o, "name", lbs_json_str(lbs_pipeline_name(p))) ||
            lbs_json_set(o, "jobs", lbs_json_int(lbs_pipeline_jobs(p))) ||
            lbs_json_set(o, "think_s", lbs_json_real(lbs_pipeline_think_s(p))) ||
            lbs_json_set(o, "blocks", json_incref(blocks)) ||
            lbs_json_set(o, "processors", json_incref(procs)) ||
            lbs_json_set(o, "buffers", json_incref(bufs)) ||
            lbs_json_set(o, "mappings", json_incref(maps));
  for (int b = 0; !bad && b < lbs_pipeline_nblocks(p); b++) {
    json_t *x = json_object();
    bad = json_array_append_new(blocks, x) ||
          lbs_json_set(x, "name", lbs_json_str(lbs_pipeline_block_name(p, b))) ||
          lbs_json_set(x, "demand_s", lbs_json_real(lbs_pipeline_block_demand_s(p, b)));
  }
  for (int k = 0; !bad && k < lbs_pipeline_nprocs(p); k++) {
    json_t *x = json_object();
    bad = json_array_append_new(procs, x) ||
          lbs_json_set(x, "name", lbs_json_str(lbs_pipeline_proc_name(p, k))) ||
          lbs_json_set(x, "speed", lbs_json_real(lbs_pipeline_proc_speed(p, k)));
  }
  for (int i = 0; !bad && i < lbs_pipeline_nbuffers(p); i++) {
    int a, b;
    long long cap;
    lbs_pipeline_buffer(p, i, &a, &b, &cap);
    json_t *x = json_object();
    bad = json_array_append_new(bufs, x) ||
          lbs_json_set(x, "from", lbs_json_str(lbs_pipeline_block_name(p, a))) ||
          lbs_json_set(x, "to", lbs_json_str(lbs_pipeline_block_name(p, b))) ||
          lbs_json_set(x, "capacity", lbs_json_int(cap));
  }
  for (int j = 0; !bad && j < nsel; j++) {
    int m = sel[j], n;
    const lbs_pipeline_law *L = lbs_pipeline_mapping_law(p, m);
    const lbs_pipeline_copy *c = lbs_pipeline_mapping_copies(p, m, &n);
    json_t *x = json_object(), *used = json_array();
    bad = json_array_append_new(maps, x) ||
          lbs_json_set(x, "name", lbs_json_str(lbs_pipeline_mapping_name(p, m))) ||
          lbs_json_set(x, "bottleneck", lbs_json_str(lbs_pipeline_proc_name(p, L->bottleneck))) ||
          lbs_json_set(x, "dmax_s", lbs_json_real(L->dmax_s)) ||
          lbs_json_set(x, "total_demand_s", lbs_json_real(L->total_s)) ||
          lbs_json_set(x, "throughput_jobs_per_s", lbs_json_real(L->throughput)) ||
          lbs_json_set(x, "response_s", lbs_json_real(L->response_s)) ||
          lbs_json_set(x, "balanced_jobs_per_s", lbs_json_real(L->balanced)) ||
          lbs_json_set(x, "processors", json_incref(used));
    for (int k = 0; !bad && k < lbs_pipeline_nprocs(p); k++) {
      if (!L->used[k]) continue;
      json_t *u = json_object(), *copies = json_array();
      bad = json_array_append_new(used, u) ||
            lbs_json_set(u, "name", lbs_json_str(lbs_pipeline_proc_name(p, k))) ||
            lbs_json_set(u, "demand_s", lbs_json_real(L->demand_s[k])) ||
            lbs_json_set(u, "utilization", lbs_json_real(L->util[k])) ||
            lbs_json_set(u, "busy_s", lbs_json_real(N * L->demand_s[k])) ||
            lbs_json_set(u, "bottleneck", json_boolean(k == L->bottleneck)) ||
            lbs_json_set(u, "copies", json_incref(copies));
      for (int i = 0; !bad && i < n; i++) {
        if (c[i].proc != k) continue;
        json_t *y = json_object();
        bad = json_array_append_new(copies, y) ||
              lbs_json_set(y, "block", lbs_json_str(lbs_pipeline_block_name(p, c[i].block))) ||
              lbs_json_set(y, "share", lbs_json_real(c[i].share));
      }
      json_decref(copies);
    }
    json_decref(used);
  }
  json_decref(blocks), json_decref(procs), json_decref(bufs), json_decref(maps);
  if (bad) json_decref(o), o = NULL;
  int rc = lbs_json_write(f, o, LBS_JSON_COMPACT, LBS_JSON_EXACT);
  json_decref(o);
  return rc;
}

static void write_csv(FILE *f, const lbs_pipeline *p, const int *sel, int nsel) {
  double N = (double)lbs_pipeline_jobs(p);
  fprintf(f, "mapping,processor,speed,demand_s,utilization,busy_s,bottleneck,copies,dmax_s,total_demand_s,"
             "throughput_jobs_per_s,response_s,balanced_jobs_per_s\n");
  for (int j = 0; j < nsel; j++) {
    int m = sel[j];
    const lbs_pipeline_law *L = lbs_pipeline_mapping_law(p, m);
    for (int k = 0; k < lbs_pipeline_nprocs(p); k++) {
      if (!L->used[k]) continue;
      lbs_csv_field(f, lbs_pipeline_mapping_name(p, m));
      fputc(',', f);
      lbs_csv_field(f, lbs_pipeline_proc_name(p, k));
      fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%d,", lbs_pipeline_proc_speed(p, k), L->demand_s[k], L->util[k],
              N * L->demand_s[k], k == L->bottleneck);
      copies_text(f, p, m, k); /* block names and numbers: no comma */
      fprintf(f, ",%.17g,%.17g,%.17g,%.17g,%.17g\n", L->dmax_s, L->total_s, L->throughput, L->response_s,
              L->balanced);
    }
  }
}

/* The mappings to report: all in file order, or those of list (comma-separated). Fills sel
 * (nm entries) and returns how many, or -1 after an error message. */
static int select_mappings(const lbs_pipeline *p, const char *list, int *sel) {
  int nm = lbs_pipeline_nmappings(p), n = 0;
  if (!list) {
    for (int m = 0; m < nm; m++) sel[n++] = m;
    return n;
  }
  char *copy = strdup(list);
  if (!copy) return fprintf(stderr, "lbsim: pipeline: out of memory\n"), -1;
  for (char *save = NULL, *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
    int m = 0;
    while (m < nm && strcmp(lbs_pipeline_mapping_name(p, m), w)) m++;
    if (m == nm || n == nm) {
      fprintf(stderr, "lbsim: pipeline: --mappings: %s '%s' (known:", m == nm ? "no mapping" : "too many, at", w);
      for (int i = 0; i < nm; i++) fprintf(stderr, " %s", lbs_pipeline_mapping_name(p, i));
      fprintf(stderr, ")\n");
      free(copy);
      return -1;
    }
    sel[n++] = m;
  }
  free(copy);
  if (!n) return fprintf(stderr, "lbsim: pipeline: --mappings: no mapping named\n"), -1;
  return n;
}

enum { O_JSON = 1000, O_CSV, O_MAPPINGS, O_OUTPUT, O_HELPCFG };

int cmd_pipeline(int argc, char **argv) {
  static const struct option lo[] = {{"json", no_argument, 0, O_JSON},         {"csv", no_argument, 0, O_CSV},
                                     {"mappings", required_argument, 0, O_MAPPINGS},
                                     {"output", required_argument, 0, O_OUTPUT},
                                     {"force", no_argument, 0, 'f'},          {"set", required_argument, 0, 'o'},
                                     {"help-config", no_argument, 0, O_HELPCFG}, {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  const char *list = NULL, *out = NULL;
  const char **over = calloc((size_t)argc + 1, sizeof *over);
  int json = 0, csv = 0, force = 0, nover = 0, c, rc = 0;
  if (!over) return fprintf(stderr, "lbsim: pipeline: out of memory\n"), 1;
  optind = 1;
  while ((c = getopt_long(argc, argv, "fho:", lo, NULL)) != -1) {
    switch (c) {
    case O_JSON: json = 1; break;
    case O_CSV: csv = 1; break;
    case O_MAPPINGS: list = optarg; break;
    case O_OUTPUT: out = optarg; break;
    case 'f': force = 1; break;
    case 'o':
      if ((rc = cli_override_check("pipeline", optarg))) return free(over), rc;
      over[nover++] = optarg;
      break;
    case O_HELPCFG:
      printf("Pipeline files are INI: '[section]' lines, 'key = value' lines, ';' or '#' comments.\n\n");
      lbs_config_help(stdout, lbs_pipeline_spec());
      free(over);
      return 0;
    case 'h': usage(); free(over); return 0;
    default: free(over); return cli_usage("pipeline", "bad option");
    }
  }
  if (json && csv) rc = cli_usage("pipeline", "--json and --csv exclude each other");
  else if (optind != argc - 1) rc = cli_usage("pipeline", "expected one pipeline file");
  else if (force && !out) rc = cli_usage("pipeline", "--force goes with --output FILE");
  else if (out && cli_check_output(out, force ? CLI_OUT_FORCE : CLI_OUT_NEW)) rc = 1;
  if (rc) {
    free(over);
    return rc;
  }
  lbs_pipeline *p;
  lbs_err e = lbs_pipeline_load(argv[optind], over, nover, &p);
  free(over);
  if (e) return cli_error("pipeline", e);
  int *sel = calloc((size_t)lbs_pipeline_nmappings(p), sizeof *sel);
  int nsel = sel ? select_mappings(p, list, sel) : (fprintf(stderr, "lbsim: pipeline: out of memory\n"), -1);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = nsel < 0 ? NULL : out ? open_memstream(&buf, &len) : stdout;
  if (nsel >= 0 && !f) fprintf(stderr, "lbsim: pipeline: out of memory\n");
  int jbad = 0;
  if (f) {
    if (json)
      jbad = write_json(f, p, sel, nsel);
    else if (csv) write_csv(f, p, sel, nsel);
    else write_human(f, p, sel, nsel);
  }
  if (!f) rc = 1;
  else if (out) { /* stdout's write errors are reported by main() */
    int bad = fclose(f) != 0 || jbad;
    if (bad) {
      fprintf(stderr, "lbsim: pipeline: out of memory\n");
      rc = 1;
    } else
      rc = cli_replace_output(out, force) || cli_write_file(out, buf, len);
    free(buf);
  } else if (jbad && !ferror(stdout)) {
    fprintf(stderr, "lbsim: pipeline: out of memory\n");
    rc = 1;
  }
  free(sel);
  lbs_pipeline_destroy(&p);
  return rc;
}
