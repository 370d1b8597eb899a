/* cmd_partition.c - lbsim partition: one step of a trace partitioned for a grid, measured with
 * MinEX's model (seed 003, slide 8): the projected run time of the step (MaxQWgt), LoadImb,
 * edge cut, moved elements and the partitioner's wall time. Several partitioners in one run
 * see the same graph. MPI: each rank holds a slice of the elements. */
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lbs_grid.h"
#include "lbs_minex.h"
#include "lbs_mpi.h"
#include "lbs_part.h"
#include "lbs_traces.h"

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
  printf("usage: [mpirun -n R] lbsim partition t.lbt --grid g.ini [options]\n\n"
         "Partitions one step of the trace onto the grid's processors and reports, for each\n"
         "partitioner, the projected run time of that step (MaxQWgt of MinEX's model: work x\n"
         "processor slowdown + communication and relocation over the grid's links), LoadImb\n"
         "(MaxQWgt / WSysLL), the work imbalance (max over processors of work / target share,\n"
         "beside the partitioner's own tolerance: a warning names a partitioner that misses it),\n"
         "the edge cut (cut CWgt, each undirected edge once), the moved elements and the\n"
         "partitioner's wall time.\n\noptions:\n"
         "  --grid FILE          the grid (INI); may hold %s\n"
         "  -o SECTION.KEY=VAL   override a grid key, e.g. -o minex.throttle=4\n"
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
         "  --out-parts FILE     the partition as METIS writes it (one part per line, element\n"
         "                       order), for gpmetis, zdrive or your tools; with several\n"
         "                       partitioners FILE.<name> each (':' as '-')\n"
         "  -f, --force          replace existing --out-parts files\n"
         "  --results FILE       append a row per partitioner to an SQLite results store (table\n"
         "                       partitions, with the run's provenance; 'lbsim results' lists it)\n"
         "  --json               JSON on stdout (an array when several partitioners)\n"
         "  --help-config        the %s keys\n\n"
         "The trace's rwgt metric, when present, gives relocation weights, and its meta key\n"
         "edge_weight=flag*rwgt[target] (N-body traces) the communication weights at the step.\n"
         "Bytes per unit of edge and relocation weight: the grid's bytes_per_edge and\n"
         "bytes_per_elem, else the trace's.\n\nexample:\n"
         "  lbsim partition mesh.lbt --grid g.ini --partitioner metis,zoltan:phg,minex --out-parts p\n",
         section_list(all, sizeof all, 0), lbs_part_known(), section_list(keyed, sizeof keyed, 1));
}

enum { O_GRID = 1000, O_PART, O_STEP, O_METRIC, O_FROM, O_GRAPH, O_PROCS, O_REPEAT, O_JSON, O_HELPCFG, O_OUTPARTS, O_RESULTS };

typedef struct {
  int64_t E, *xadj, *adj;
  double *cw, *pw, *rw, *coords;
  int dim, *cur;
} problem;

/* The step's weights, the graph with its communication weights, the current parts. */
static lbs_err load(lbs_trace *t, int64_t step, const char *metric, int from_block, int P, problem *pb) {
  memset(pb, 0, sizeof *pb);
  lbs_mesh *mesh = lbs_trace_mesh(t);
  int64_t E = pb->E = lbs_trace_elements(t);
  if (step < 0 || step >= lbs_trace_steps(t))
    return lbs_fail(LBS_RANGE, "step %lld is not in the trace (0..%lld)", (long long)step, (long long)lbs_trace_steps(t) - 1);
  int m = metric ? lbs_trace_metric_find(t, metric) : lbs_trace_metric_find(t, "pwgt");
  if (!metric && m < 0) m = 0;
  if (m < 0) return lbs_fail(LBS_NOTFOUND, "the trace has no metric '%s'", metric);
  const int64_t *xadj, *adj;
  const double *adjw, *co;
  lbs_err e;
  if (!mesh || (e = lbs_mesh_graph(mesh, &xadj, &adj, &adjw)))
    return lbs_fail(LBS_INVAL, "the trace has no mesh graph to partition");
  if ((e = lbs_mesh_coords(mesh, &co, &pb->dim))) return e;
  int64_t ne = xadj[E];
  pb->xadj = malloc((size_t)(E + 1) * sizeof *pb->xadj), pb->adj = malloc((size_t)(ne + 1) * sizeof *pb->adj);
  pb->cw = malloc((size_t)(ne + 1) * sizeof *pb->cw), pb->pw = malloc((size_t)E * sizeof *pb->pw);
  pb->cur = malloc((size_t)E * sizeof *pb->cur);
  if (co) pb->coords = malloc((size_t)E * pb->dim * sizeof *pb->coords);
  int r = lbs_trace_metric_find(t, "rwgt");
  if (r >= 0) pb->rw = malloc((size_t)E * sizeof *pb->rw);
  if (!pb->xadj || !pb->adj || !pb->cw || !pb->pw || !pb->cur || (co && !pb->coords) || (r >= 0 && !pb->rw))
    return lbs_fail(LBS_NOMEM, "%lld elements", (long long)E);
  memcpy(pb->xadj, xadj, (size_t)(E + 1) * sizeof *xadj);
  if (ne) memcpy(pb->adj, adj, (size_t)ne * sizeof *adj);
  if (co) memcpy(pb->coords, co, (size_t)E * pb->dim * sizeof *co);
  if ((e = lbs_trace_read(t, step, m, 0, E, pb->pw))) return e;
  if (r >= 0 && (e = lbs_trace_read(t, step, r, 0, E, pb->rw))) return e;
  if ((e = lbs_trace_edge_weights(t, step, pb->cw))) return e; /* the N-body rule, where it applies */
  (void)adjw;
  for (int64_t i = 0; i < E; i++) {
    if (!(pb->pw[i] >= 0)) return lbs_fail(LBS_INVAL, "step %lld element %lld: weight %g is negative", (long long)step, (long long)i, pb->pw[i]);
    pb->cur[i] = from_block ? (int)((__int128)i * P / E) : -1;
  }
  return LBS_OK;
}

static void problem_free(problem *pb) {
  free(pb->xadj), free(pb->adj), free(pb->cw), free(pb->pw), free(pb->rw), free(pb->coords), free(pb->cur);
}

typedef struct {
  const char *name;
  lbs_minex_eval ev;
  double wall_s, work_imb, tol; /* tol 0: the partitioner promises none */
  char out[4200];               /* its --out-parts file */
} row;

/* The partition, one part per line in element order (METIS's .part format). */
static int write_parts(const char *path, const int *part, int64_t E) {
  lbs_buf b = {0};
  char line[16];
  int bad = 0;
  for (int64_t i = 0; i < E && !bad; i++) bad = lbs_buf_append(&b, line, (size_t)snprintf(line, sizeof line, "%d\n", part[i])) != 0;
  if (bad) fprintf(stderr, "lbsim: %s: out of memory\n", path);
  else bad = cli_write_file(path, b.data, b.len);
  lbs_buf_free(&b);
  return bad;
}

/* --json: an object per partitioner, an array of them when several; NULL when out of memory. */
static json_t *partition_json(const row *rows, int np, int gm, int64_t step, int64_t E, int P,
                              int clusters) {
  json_t *all = np > 1 ? json_array() : NULL;
  for (int k = 0; k < np; k++) {
    const lbs_minex_eval *v = &rows[k].ev;
    json_t *o = json_object();
    int bad =
        lbs_json_set(o, "partitioner", lbs_json_str(rows[k].name)) ||
        lbs_json_set(o, "graph", json_string(gm ? "Gm" : "G")) ||
        lbs_json_set(o, "step", lbs_json_int(step)) ||
        lbs_json_set(o, "elements", lbs_json_int(E)) || lbs_json_set(o, "procs", lbs_json_int(P)) ||
        lbs_json_set(o, "clusters", lbs_json_int(clusters)) ||
        lbs_json_set(o, "runtime_s", lbs_json_real(v->maxqwgt * 1e-9)) ||
        lbs_json_set(o, "loadimb", lbs_json_real(v->loadimb)) ||
        lbs_json_set(o, "work_imbalance", lbs_json_real(rows[k].work_imb)) ||
        lbs_json_set(o, "tolerance", rows[k].tol > 0 ? lbs_json_real(rows[k].tol) : json_null()) ||
        lbs_json_set(o, "wsysll_s", lbs_json_real(v->wsysll * 1e-9)) ||
        lbs_json_set(o, "work_s", lbs_json_real(v->wgt * 1e-9)) ||
        lbs_json_set(o, "comm_s", lbs_json_real(v->comm * 1e-9)) ||
        lbs_json_set(o, "remap_s", lbs_json_real(v->remap * 1e-9)) ||
        lbs_json_set(o, "edge_cut", lbs_json_real(v->edge_cut)) ||
        lbs_json_set(o, "moved_elements", lbs_json_int(v->moved)) ||
        lbs_json_set(o, "partition_wall_s", lbs_json_real(rows[k].wall_s));
    if (bad) json_decref(o), o = NULL;
    if (np == 1) return o;
    if (json_array_append_new(all, o)) return json_decref(all), NULL;
  }
  return all;
}

int cmd_partition(int argc, char **argv) {
  static const struct option lo[] = {{"grid", required_argument, 0, O_GRID},   {"partitioner", required_argument, 0, O_PART},
                                     {"step", required_argument, 0, O_STEP},   {"metric", required_argument, 0, O_METRIC},
                                     {"from", required_argument, 0, O_FROM},   {"graph", required_argument, 0, O_GRAPH},
                                     {"procs", required_argument, 0, O_PROCS}, {"repeat", required_argument, 0, O_REPEAT},
                                     {"json", no_argument, 0, O_JSON},         {"help-config", no_argument, 0, O_HELPCFG},
                                     {"out-parts", required_argument, 0, O_OUTPARTS}, {"force", no_argument, 0, 'f'},
                                     {"results", required_argument, 0, O_RESULTS},
                                     {"help", no_argument, 0, 'h'},            {0, 0, 0, 0}};
  const char *grid_path = NULL, *metric = NULL, *plist = "minex", **over = calloc((size_t)argc + 1, sizeof *over);
  const char *out_parts = NULL, *results = NULL;
  int64_t step = 0, procs = 0, repeat = 1;
  int json = 0, nover = 0, from_block = 1, gm = 0, force = 0, c;
  while ((c = getopt_long(argc, argv, "hfo:", lo, NULL)) != -1) {
    switch (c) {
    case O_GRID: grid_path = optarg; break;
    case 'o':
      if ((c = cli_override_check("partition", optarg))) return free(over), c;
      over[nover++] = optarg;
      break;
    case O_PART: plist = optarg; break;
    case O_METRIC: metric = optarg; break;
    case O_STEP: if (cli_parse_i64("--step", optarg, 0, INT64_MAX, &step)) return free(over), 2; break;
    case O_PROCS: if (cli_parse_i64("--procs", optarg, 1, 1 << 24, &procs)) return free(over), 2; break;
    case O_REPEAT: if (cli_parse_i64("--repeat", optarg, 1, 1000, &repeat)) return free(over), 2; break;
    case O_FROM:
      if (!strcmp(optarg, "block")) from_block = 1;
      else if (!strcmp(optarg, "none")) from_block = 0;
      else return free(over), cli_usage("partition", "--from must be block or none");
      break;
    case O_GRAPH:
      if (!strcmp(optarg, "G")) gm = 0;
      else if (!strcmp(optarg, "Gm")) gm = 1;
      else return free(over), cli_usage("partition", "--graph must be G or Gm");
      break;
    case O_JSON: json = 1; break;
    case O_OUTPARTS: out_parts = optarg; break;
    case O_RESULTS: results = optarg; break;
    case 'f': force = 1; break;
    case 'h': usage(); free(over); return 0;
    case O_HELPCFG: help_config(); free(over); return 0;
    default: free(over); return cli_usage("partition", "bad option");
    }
  }
  if (optind != argc - 1) return free(over), cli_usage("partition", "expected one trace file");
  if (!grid_path) return free(over), cli_usage("partition", "missing --grid FILE");
  char *names = strdup(plist);
  int np = 0;
  row rows[32];
  for (char *tok = strtok(names, ","); tok; tok = strtok(NULL, ","))
    if (np < 32) rows[np++] = (row){.name = tok};
  if (!np) return free(over), free(names), cli_usage("partition", "--partitioner names none");
  /* the outputs before the work: a bad path is found now */
  for (int k = 0; out_parts && k < np; k++) {
    if (np == 1) snprintf(rows[k].out, sizeof rows[k].out, "%s", out_parts);
    else {
      snprintf(rows[k].out, sizeof rows[k].out, "%s.%s", out_parts, rows[k].name);
      for (char *q = rows[k].out + strlen(out_parts) + 1; *q; q++)
        if (*q == ':' || *q == '/') *q = '-';
    }
    if (cli_check_output(rows[k].out, force ? CLI_OUT_FORCE : CLI_OUT_NEW)) return free(over), free(names), 1;
  }
  if (results && cli_check_output(results, CLI_OUT_APPEND)) return free(over), free(names), 1;
  const char *trace_path = argv[optind];
  MPI_Init(NULL, NULL);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  lbs_config *cfg = NULL;
  lbs_grid *g = NULL;
  lbs_trace *t = NULL;
  problem pb = {0};
  lbs_minex_ipg ipg = {0};
  int64_t *rf = calloc((size_t)size + 1, sizeof *rf), *gid = NULL, *lx = NULL, *gx = NULL, *ga = NULL;
  double *sizes = NULL, *gw = NULL;
  lbs_minex_latency *lat = NULL; /* MinEX's model, as [minex] gives it */
  int *newp = NULL, *all = NULL, *counts = NULL, *displs = NULL;
  const char *what = trace_path;
  lbs_err e = lbs_config_load(grid_path, &cfg);
  if (e) what = grid_path;
  for (int i = 0; !e && i < nover; i++) e = lbs_config_override(cfg, over[i]);
  if (!e && (e = lbs_grid_from_config(cfg, &g))) what = grid_path;
  if (!e && (e = lbs_config_check_only(cfg, lbs_part_sections()))) what = grid_path;
  if (!e && (e = lbs_minex_latency_from_config(cfg, &lat))) what = "partition"; /* it says where */
  int P = g ? lbs_grid_procs(g) : 0;
  if (!e && procs && procs != P)
    e = lbs_fail(LBS_INVAL, "%s has %d processors in %d clusters, --procs asks for %lld", grid_path, P,
                 lbs_grid_nclusters(g), (long long)procs), what = "partition";
  if (!e) e = lbs_trace_open(trace_path, &t);
  if (!e) e = load(t, step, metric, from_block, P, &pb);
  if (!e && pb.E < P)
    e = lbs_fail(LBS_INVAL, "more processors (%d) than elements (%lld)", P, (long long)pb.E), what = "partition";
  double be = 0, br = 0;
  if (!e) {
    lbs_mesh *mesh = lbs_trace_mesh(t);
    be = lbs_grid_bytes_per_edge(g) > 0 ? lbs_grid_bytes_per_edge(g) : lbs_mesh_bytes_per_edge(mesh);
    br = lbs_grid_bytes_per_elem(g) > 0 ? lbs_grid_bytes_per_elem(g) : lbs_mesh_bytes_per_elem(mesh);
    e = lbs_minex_ipg_from_grid(g, be, br, &ipg);
  }
  /* what the partitioners see: G or Gm */
  const int64_t *px = pb.xadj, *pa = pb.adj;
  const double *pw = pb.cw;
  if (!e && gm && !(e = lbs_part_symmetrize(pb.E, pb.xadj, pb.adj, pb.cw, 1, &gx, &ga, &gw))) px = gx, pa = ga, pw = gw;
  int64_t E = pb.E;
  for (int r = 0; r <= size; r++) rf[r] = E * r / size;
  int64_t first = rf[rank], n = rf[rank + 1] - first;
  if (!e) {
    sizes = malloc((size_t)P * sizeof *sizes), gid = malloc((size_t)(n + 1) * sizeof *gid);
    lx = malloc((size_t)(n + 1) * sizeof *lx), newp = malloc((size_t)(n + 1) * sizeof *newp);
    all = malloc((size_t)E * sizeof *all), counts = malloc((size_t)size * sizeof *counts);
    displs = malloc((size_t)size * sizeof *displs);
    if (!sizes || !gid || !lx || !newp || !all || !counts || !displs) e = lbs_fail(LBS_NOMEM, "partition");
  }
  if (!e) {
    lbs_grid_part_sizes(g, sizes);
    for (int64_t i = 0; i < n; i++) gid[i] = first + i;
    for (int64_t i = 0; i <= n; i++) lx[i] = px[first + i] - px[first];
    for (int r = 0; r < size; r++) counts[r] = (int)(rf[r + 1] - rf[r]), displs[r] = (int)rf[r];
  }
  lbs_minex_graph mg = {E, pb.xadj, pb.adj, pb.cw, pb.pw, pb.rw, from_block ? pb.cur : NULL};
  for (int k = 0; !e && k < np; k++) {
    lbs_partitioner *part = NULL;
    if ((e = lbs_part_create(rows[k].name, cfg, MPI_COMM_WORLD, &part))) {
      what = "partition";
      break;
    }
    lbs_part_input in = {.comm = MPI_COMM_WORLD, .nlocal = n, .gid = gid, .weight = pb.pw + first,
        .dim = pb.coords ? pb.dim : 0, .coords = pb.coords ? pb.coords + first * pb.dim : NULL, .xadj = lx,
        .adj = pa + px[first], .adjw = pw + px[first], .rank_first = rf, .current = pb.cur + first,
        .nparts = P, .part_sizes = sizes, .repartition = from_block, .grid = g,
        .rwgt = pb.rw ? pb.rw + first : NULL, .bytes_per_edge = be, .bytes_per_rwgt = br};
    double best = 1e300;
    for (int64_t it = 0; !e && it < repeat; it++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      e = lbs_part_run(part, &in, newp);
      double dt = MPI_Wtime() - t0;
      MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      e = lbs_mpi_agree(MPI_COMM_WORLD, e); /* the first failing rank's code and message */
      if (dt < best) best = dt;
    }
    rows[k].tol = lbs_part_tolerance(part);
    int own_sizes = lbs_part_takes_sizes(part);
    lbs_part_destroy(&part);
    if (e) {
      what = rows[k].name;
      break;
    }
    rows[k].wall_s = best;
    MPI_Allgatherv(newp, (int)n, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    lbs_minex_opts mo = lbs_minex_defaults();
    lbs_minex_latency_apply(lat, &mo);
    if (!(e = lbs_minex_latency_begin(lat, &ipg)))
      e = lbs_minex_latency_why(lat, lbs_minex_evaluate(&mg, &ipg, mo.latency, mo.user, all, NULL, &rows[k].ev));
    if (e) what = rows[k].name;
    rows[k].work_imb = lbs_part_work_imbalance(all, pb.pw, E, sizes, P);
    /* the promise is against the shares the partitioner aimed at: the grid's, or equal ones */
    double own = own_sizes ? rows[k].work_imb : lbs_part_work_imbalance(all, pb.pw, E, NULL, P);
    if (!e && rank == 0 && rows[k].tol > 0 && own > rows[k].tol * (1 + 1e-9))
      fprintf(stderr, "lbsim partition: warning: %s left a work imbalance of %.4f%s, above its tolerance %.4g\n",
              rows[k].name, own, own_sizes ? "" : " against equal parts", rows[k].tol);
    int wbad = 0;
    if (!e && rank == 0 && rows[k].out[0]) wbad = cli_replace_output(rows[k].out, force) || write_parts(rows[k].out, all, E);
    if (lbs_mpi_agree(MPI_COMM_WORLD, wbad ? LBS_IO : LBS_OK)) { /* said on rank 0 */
      e = LBS_IO, what = NULL;
      break;
    }
  }
  int rc = 0;
  lbs_err re = LBS_OK; /* a results-store error (a full disk) is reported after the table */
  char rmsg[1024] = "";
  if (!e && rank == 0 && results) {
    lbs_prov_study st;
    lbs_prov_run ri;
    lbs_partition_row pr[32];
    lbs_prov_study_init(&st, "partition", NULL);
    lbs_prov_run_init(&ri, trace_path, grid_path, cfg, over, nover, -1);
    for (int k = 0; k < np; k++) {
      const lbs_minex_eval *v = &rows[k].ev;
      pr[k] = (lbs_partition_row){.run = ri.info, .step = step, .elements = E, .moved = v->moved, .partitioner = rows[k].name,
                                  .procs = P, .maxqwgt_s = v->maxqwgt * 1e-9, .loadimb = v->loadimb,
                                  .work_imbalance = rows[k].work_imb, .tolerance = rows[k].tol > 0 ? rows[k].tol : NAN,
                                  .wsysll_s = v->wsysll * 1e-9, .wgt_s = v->wgt * 1e-9, .comm_s = v->comm * 1e-9,
                                  .remap_s = v->remap * 1e-9, .edge_cut = v->edge_cut, .wall_s = rows[k].wall_s};
    }
    if ((re = lbs_results_save_partitions(results, &st.info, pr, np))) snprintf(rmsg, sizeof rmsg, "%s", lbs_errmsg());
    lbs_prov_run_free(&ri);
  }
  if (e) {
    if (rank == 0 && what) cli_error(what, e); /* what NULL: said already */
    rc = 1;
  } else if (rank == 0 && json) {
    rc =
        cli_json_print("partition", partition_json(rows, np, gm, step, E, P, lbs_grid_nclusters(g)),
                       LBS_JSON_COMPACT, LBS_JSON_EXACT);
  } else if (rank == 0) {
    printf("partition  %s step %lld on %s: %lld elements, %d processors in %d clusters, graph %s, from %s\n\n",
           trace_path, (long long)step, grid_path, (long long)E, P, lbs_grid_nclusters(g), gm ? "Gm" : "G",
           from_block ? "equal blocks" : "nowhere");
    printf("%-20s %12s %9s %9s %7s %14s %9s %12s\n", "partitioner", "runtime_s", "loadimb", "work_imb", "tol", "edge_cut",
           "moved", "wall_s");
    for (int k = 0; k < np; k++) {
      char tolbuf[16] = "-";
      if (rows[k].tol > 0) snprintf(tolbuf, sizeof tolbuf, "%.3f", rows[k].tol);
      printf("%-20s %12.6f %9.4f %9.4f %7s %14.6g %9lld %12.6f\n", rows[k].name, rows[k].ev.maxqwgt * 1e-9,
             rows[k].ev.loadimb, rows[k].work_imb, tolbuf, rows[k].ev.edge_cut, (long long)rows[k].ev.moved, rows[k].wall_s);
    }
  }
  if (re) {
    fflush(stdout);
    fprintf(stderr, "lbsim: results store: %s\n", *rmsg ? rmsg : lbs_strerror(re));
    rc = 1;
  }
  lbs_minex_ipg_free(&ipg);
  lbs_minex_latency_destroy(&lat);
  problem_free(&pb);
  free(rf), free(gid), free(lx), free(gx), free(ga), free(gw), free(sizes), free(newp), free(all), free(counts), free(displs);
  free(names), free(over);
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  MPI_Finalize();
  return rc;
}
