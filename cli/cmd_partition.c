/* cmd_partition.c - lbsim partition: one step of a trace partitioned for a grid, measured with
 * MinEX's model (seed 003, slide 8): the projected run time of the step (MaxQWgt), LoadImb,
 * edge cut, moved elements and the partitioner's wall time (study/partition.c). Several
 * partitioners in one run see the same graph. MPI: each rank holds a slice of the elements. */
#include <getopt.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lbs_part.h"
#include "lbs_partition.h"

/* The partitioners' sections as "[zoltan] and [minex]" into buf (n bytes); keyed: only those that
 * declare keys. */
static const char *section_list(char *buf, size_t n, int keyed) {
  const lbs_section_spec *s = lbs_part_sections();
  int total = 0, k = 0;
  for (int i = 0; s[i].kind; i++) total += !keyed || s[i].opts;
  buf[0] = '\0';
  for (int i = 0; s[i].kind; i++) {
    if (keyed && !s[i].opts) continue;
    size_t at = strlen(buf);
    snprintf(buf + at, n - at, "%s[%s]", !k ? "" : k + 1 == total ? " and " : ", ", s[i].kind);
    k++;
  }
  return buf;
}

/* --help-config: the keys of every partitioner's section that declares them (those that pass
 * any key through, as [zoltan], are in 'lbsim grid --help-config'). */
static void help_config(void) {
  for (const lbs_section_spec *s = lbs_part_sections(); s->kind; s++)
    if (s->opts) {
      const lbs_section_spec one[] = {*s, {NULL, 0, 0, NULL, NULL}};
      lbs_config_help(stdout, one);
    }
}

static void usage(void) {
  char all[256], keyed[256];
  printf(
      "usage: [mpirun -n R] lbsim partition t.lbt --grid g.ini [options]\n\n"
      "Partitions one step of the trace onto the grid's processors and reports, for each\n"
      "partitioner, the projected run time of that step (MaxQWgt of MinEX's model: work x\n"
      "processor slowdown + communication and relocation over the grid's links), LoadImb\n"
      "(MaxQWgt / WSysLL), the work imbalance (max over processors of work / target share,\n"
      "beside the partitioner's own tolerance: a warning names a partitioner that misses it),\n"
      "the edge cut (cut CWgt, each undirected edge once), the moved elements and the\n"
      "partitioner's wall time.\n\noptions:\n"
      "  --grid FILE          the grid (INI); may hold %s\n"
      "  --set SEC.KEY=VAL    override a grid key, e.g. --set minex.throttle=4\n"
      "  --partitioner LIST   comma-separated, from %s (default minex)\n"
      "  --step S             the trace step (default 0)\n"
      "  --metric NAME        processing weight (default: pwgt if the trace has it, else its first)\n"
      "  --from block|none    where the elements are now: equal blocks of element ids in\n"
      "                       processor order (default; moves cost relocation), or nowhere\n"
      "  --graph G|Gm         the graph partitioners see: as traced (G, default) or made\n"
      "                       symmetric with zero weights raised to 1 (Gm); the run time is\n"
      "                       always measured on G\n"
      "  --procs P            fail unless the grid has P processors\n"
      "  --repeat N           run each partitioner N times, report the fastest wall time\n"
      "  -o, --out-parts FILE the partition as METIS writes it (one part per line, element\n"
      "                       order), for gpmetis, zdrive or your tools; with several\n"
      "                       partitioners FILE.<name> each (':' as '-')\n"
      "  -f, --force          replace existing -o files\n"
      "  --results FILE       append a row per partitioner to an SQLite results store (table\n"
      "                       partitions, with the run's provenance; 'lbsim results' lists it)\n"
      "  --json               a JSON array on stdout, an object per partitioner\n"
      "  --help-config        the %s keys\n\n"
      "The trace's rwgt metric, when present, gives relocation weights, and its meta key\n"
      "edge_weight=flag*rwgt[target] (N-body traces) the communication weights at the step.\n"
      "Bytes per unit of edge and relocation weight: the grid's bytes_per_edge and\n"
      "bytes_per_elem, else the trace's.\n\nexample:\n"
      "  lbsim partition mesh.lbt --grid g.ini --partitioner metis,zoltan:phg,minex --out-parts p\n",
      section_list(all, sizeof all, 0), lbs_part_known(), section_list(keyed, sizeof keyed, 1));
}

enum { O_GRID = 1000, O_PART, O_STEP, O_METRIC, O_FROM, O_GRAPH, O_PROCS, O_REPEAT };
enum { O_JSON = O_REPEAT + 1, O_HELPCFG, O_RESULTS };
enum { MAXP = 32 }; /* partitioners in one run */

typedef struct {
  const char *trace, *grid, *plist, *out_parts, *results;
  int json, force;
  lbs_partition_opts o;
  cli_overrides over; /* --set, in command-line order */
  char *names;        /* plist cut at its commas (owned) */
  int np;             /* partitioners */
  lbs_partition_eval ev[MAXP];
  char out[MAXP][4200]; /* each one's --out-parts file */
} args;

/* --from and --graph: 0, or 2 after a usage error. */
static int parse_choice(int c, const char *arg, args *a) {
  if (c == O_FROM && (!strcmp(arg, "block") || !strcmp(arg, "none")))
    a->o.from_block = !strcmp(arg, "block");
  else if (c == O_FROM)
    return cli_usage("partition", "--from must be block or none");
  else if (!strcmp(arg, "G") || !strcmp(arg, "Gm"))
    a->o.gm = !strcmp(arg, "Gm");
  else
    return cli_usage("partition", "--graph must be G or Gm");
  return 0;
}

/* The command line into a: 0, 2 after a usage error, or -1 after --help or --help-config. */
static int parse(int argc, char **argv, args *a) {
  static const struct option lo[] = {{"grid", required_argument, 0, O_GRID},
                                     {"partitioner", required_argument, 0, O_PART},
                                     {"step", required_argument, 0, O_STEP},
                                     {"metric", required_argument, 0, O_METRIC},
                                     {"from", required_argument, 0, O_FROM},
                                     {"graph", required_argument, 0, O_GRAPH},
                                     {"procs", required_argument, 0, O_PROCS},
                                     {"repeat", required_argument, 0, O_REPEAT},
                                     {"json", no_argument, 0, O_JSON},
                                     {"help-config", no_argument, 0, O_HELPCFG},
                                     {"out-parts", required_argument, 0, 'o'},
                                     CLI_SET_OPTION,
                                     {"force", no_argument, 0, 'f'},
                                     {"results", required_argument, 0, O_RESULTS},
                                     {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  int c, rc = 0;
  while (!rc && (c = cli_getopt(argc, argv, "hfo:", lo)) != -1) {
    switch (c) {
    case O_GRID: a->grid = optarg; break;
    case CLI_SET: rc = cli_override(&a->over, "partition", optarg); break;
    case 'o': rc = cli_o_output("partition", optarg, &a->out_parts); break;
    case O_PART: a->plist = optarg; break;
    case O_METRIC: a->o.metric = optarg; break;
    case O_STEP: rc = cli_parse_i64("--step", optarg, 0, INT64_MAX, &a->o.step); break;
    case O_PROCS: rc = cli_parse_i64("--procs", optarg, 1, 1 << 24, &a->o.procs); break;
    case O_REPEAT: rc = cli_parse_i64("--repeat", optarg, 1, 1000, &a->o.repeat); break;
    case O_FROM:
    case O_GRAPH: rc = parse_choice(c, optarg, a); break;
    case O_JSON: a->json = 1; break;
    case O_RESULTS: a->results = optarg; break;
    case 'f': a->force = 1; break;
    case 'h': usage(); return -1;
    case O_HELPCFG: help_config(); return -1;
    default: rc = cli_bad_option("partition");
    }
  }
  if (rc) return rc;
  if (optind != argc - 1) return cli_usage("partition", "expected one trace file");
  if (!a->grid) return cli_usage("partition", "missing --grid FILE");
  a->trace = argv[optind];
  if (!(a->names = strdup(a->plist)))
    return fprintf(stderr, "lbsim: partition: out of memory\n"), 1;
  for (char *tok = strtok(a->names, ","); tok; tok = strtok(NULL, ","))
    if (a->np < MAXP) a->ev[a->np++] = (lbs_partition_eval){.name = tok};
  if (!a->np) return cli_usage("partition", "--partitioner names none");
  /* every name known before any partitioner runs or writes its -o file (a family's own options,
   * zoltan:nope, are still its create's to refuse) */
  for (int k = 0; k < a->np; k++)
    if (!lbs_part_find(a->ev[k].name))
      return cli_error("partition", lbs_fail(LBS_NOTFOUND, "unknown partitioner '%s' (known: %s)",
                                             a->ev[k].name, lbs_part_known()));
  return 0;
}

/* The outputs before the work, a bad path found now: the --out-parts files and the store. */
static int check_outputs(args *a) {
  for (int k = 0; a->out_parts && k < a->np; k++) {
    char *out = a->out[k];
    if (a->np == 1)
      snprintf(out, sizeof a->out[k], "%s", a->out_parts);
    else {
      snprintf(out, sizeof a->out[k], "%s.%s", a->out_parts, a->ev[k].name);
      for (char *q = out + strlen(a->out_parts) + 1; *q; q++)
        if (*q == ':' || *q == '/') *q = '-';
    }
    if (cli_check_output(out, a->force ? CLI_OUT_FORCE : CLI_OUT_NEW, CLI_FILE_PARTS)) return 1;
  }
  return a->results && cli_check_output(a->results, CLI_OUT_APPEND, CLI_FILE_STORE);
}

/* The partition, one part per line in element order (METIS's .part format). */
static int write_parts(const char *path, const int *part, int64_t E) {
  lbs_buf b = {0};
  char line[16];
  int bad = 0;
  for (int64_t i = 0; i < E && !bad; i++)
    bad = lbs_buf_append(&b, line, (size_t)snprintf(line, sizeof line, "%d\n", part[i])) != 0;
  if (bad)
    fprintf(stderr, "lbsim: %s: out of memory\n", path);
  else
    bad = cli_write_file(path, b.data, b.len);
  lbs_buf_free(&b);
  if (!bad) cli_wrote("partition", path, "%lld parts, one per line", (long long)E);
  return bad;
}

/* After each partitioner, on rank 0: a missed tolerance said, the partition written. */
static lbs_err on_done(void *arg, const lbs_partition_eval *ev, const int *part, int64_t E) {
  args *a = arg;
  int rank, k = (int)(ev - a->ev);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank) return LBS_OK;
  if (ev->tol > 0 && ev->own_imb > ev->tol * (1 + 1e-9))
    fprintf(
        stderr,
        "lbsim: partition: warning: %s left a work imbalance of %.4f%s, above its tolerance %.4g\n",
        ev->name, ev->own_imb, ev->own_sizes ? "" : " against equal parts", ev->tol);
  if (a->out[k][0] &&
      (cli_replace_output(a->out[k], a->force, CLI_FILE_PARTS) || write_parts(a->out[k], part, E)))
    return LBS_IO;
  return LBS_OK;
}

/* The table on stdout. */
static void print_table(const args *a, const lbs_partition_info *info, int clusters) {
  printf("partition  %s step %lld on %s: %lld elements, %d processors in %d clusters, graph %s, "
         "from %s\n\n",
         a->trace, (long long)a->o.step, a->grid, (long long)info->elements, info->procs, clusters,
         a->o.gm ? "Gm" : "G", a->o.from_block ? "equal blocks" : "nowhere");
  printf("%-20s %12s %9s %9s %7s %14s %9s %12s\n", "partitioner", "runtime_s", "loadimb",
         "work_imb", "tol", "edge_cut", "moved", "wall_s");
  for (int k = 0; k < a->np; k++) {
    const lbs_partition_eval *v = &a->ev[k];
    char tolbuf[16] = "-";
    if (v->tol > 0) snprintf(tolbuf, sizeof tolbuf, "%.3f", v->tol);
    printf("%-20s %12.6f %9.4f %9.4f %7s %14.6g %9lld %12.6f\n", v->name, v->ev.maxqwgt * 1e-9,
           v->ev.loadimb, v->work_imb, tolbuf, v->ev.edge_cut, (long long)v->ev.moved, v->wall_s);
  }
}

/* Rank 0 reports: the error, or the rows (JSON or the table), then a store that failed. */
static int report(const args *a, const lbs_session *s, lbs_err e, const lbs_partition_info *info,
                  lbs_err re) {
  char rmsg[1024] = "";
  if (re) snprintf(rmsg, sizeof rmsg, "%s", lbs_errmsg());
  int rc = 0;
  if (e)
    rc = info->failed ? cli_error(info->failed, e) : 1; /* failed NULL: said already */
  else if (a->json)
    rc = cli_json_print("partition", lbs_partition_json(&a->o, a->ev, a->np, info),
                        LBS_JSON_COMPACT);
  else
    print_table(a, info, lbs_grid_nclusters(s->grid));
  if (re) {
    fflush(stdout);
    fprintf(stderr, "lbsim: results store: %s\n", *rmsg ? rmsg : lbs_strerror(re));
    rc = 1;
  }
  return rc;
}

int cmd_partition(int argc, char **argv) {
  args *a = calloc(1, sizeof *a);
  if (!a) return fprintf(stderr, "lbsim: partition: out of memory\n"), 1;
  a->plist = "minex", a->o = (lbs_partition_opts){.from_block = 1, .repeat = 1};
  int rc = parse(argc, argv, a);
  if (!rc) rc = check_outputs(a);
  if (!rc) {
    cli_mpi_init();
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    lbs_session s;
    lbs_partition_info info = {0};
    lbs_err re = LBS_OK,
            e = lbs_session_open(&s, a->trace, a->grid, (const char *const *)a->over.v, a->over.n);
    if (e)
      info.failed = s.failed;
    else
      e = lbs_partition_study(&s, &a->o, a->ev, a->np, MPI_COMM_WORLD, on_done, a, &info);
    /* a results-store error (a full disk) is reported after the table */
    if (!e && rank == 0 && a->results)
      re = lbs_partition_save(&s, a->results, &a->o, a->ev, a->np, &info);
    rc = rank == 0 ? report(a, &s, e, &info, re) : e ? 1 : 0;
    lbs_session_close(&s);
    MPI_Finalize();
  }
  cli_overrides_free(&a->over);
  free(a->names);
  free(a);
  return rc < 0 ? 0 : rc;
}
