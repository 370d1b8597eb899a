/* cmd_trace.c - lbsim trace gen|info|check|export|import. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "lbs_traces.h"

/* ---------------------------------------------------------------- encoding options */

/* --bound and --codec (lbs_encoding: for every metric or for one, "--bound time_ns=rel:0.01"),
 * --chunk and --force. */
typedef struct {
  lbs_encoding enc;
  int64_t chunk;
  int force;
  int allow_nonfinite;
} enc_opts;

#define ENC_HELP                                                                                   \
  "  --bound [M=]B    error bound, for every metric or for metric M (repeatable):\n"               \
  "                   rel:EPS    |x'-x| <= EPS |x| (keeps signs and zeros, bounds sums)\n"         \
  "                   abs:EPS    |x'-x| <= EPS\n"                                                  \
  "                   range:EPS  |x'-x| <= EPS (max-min of the step)\n"                            \
  "                   lossless   bit-exact\n"                                                      \
  "                   (default %s)\n"                                                              \
  "  --codec [M=]C    auto (per chunk the smaller of polyline and quant, the default),\n"          \
  "                   polyline, quant or lossless\n"                                               \
  "  --chunk N        elements per chunk, the unit of partial decoding (default 8192)\n"           \
  "  -f, --force      replace the output file (a regular file only, never a directory or device)\n"

enum {
  O_DENOISE = 999,
  O_BOUND = 1000,
  O_CODEC,
  O_CHUNK,
  O_JSON,
  O_CSV,
  O_STEPSDIR,
  O_STEP,
  O_STEPS,
  O_CHACO,
  O_COORDS,
  O_ORDER,
  O_ELEMB,
  O_EDGEB,
  O_KIND,
  O_MESH,
  O_SEED,
  O_BODIES,
  O_LEAF,
  O_THETA,
  O_DT,
  O_NOISE,
  O_NONFINITE,
  O_NOVALUES,
  O_VT,
  O_ZFILES,
  O_NO_NODES
};

/* One --bound or --codec argument into the settings: 0, or 2 after a message naming the option. */
static int enc_set_add(enc_opts *o, const char *opt, const char *arg) {
  lbs_err e = !strcmp(opt, "--bound") ? lbs_encoding_add_bound(&o->enc, arg)
                                      : lbs_encoding_add_codec(&o->enc, arg);
  if (!e) return 0;
  fprintf(stderr, "lbsim: option %s: %s\n", opt, lbs_errmsg());
  return 2;
}

/* Handles the shared encoding options; returns 0 if c was not one, 1 if handled, 2 on error. */
static int enc_opt(int c, const char *arg, enc_opts *o) {
  switch (c) {
  case O_BOUND: return enc_set_add(o, "--bound", arg) ? 2 : 1;
  case O_CODEC: return enc_set_add(o, "--codec", arg) ? 2 : 1;
  case O_CHUNK: return cli_parse_i64("--chunk", arg, 1, LBS_TRACE_MAX_CHUNK, &o->chunk) ? 2 : 1;
  case 'f': o->force = 1; return 1;
  }
  return 0;
}

/* The codec and bound of metric `name` (lbs_encoding_resolve). Exit code 2 (message printed) on
 * a bad pair. */
static int enc_resolve(const enc_opts *o, const char *name, lbs_codec dcodec, lbs_bound dbound,
                       lbs_codec *codec, lbs_bound *bound) {
  if (!lbs_encoding_resolve(&o->enc, name, dcodec, dbound, codec, bound)) return 0;
  fprintf(stderr, "lbsim: %s\n", lbs_errmsg());
  return 2;
}

/* Checks the output file before the work (see cli_check_output). */
static int check_output(const char *out, int force) {
  return cli_check_output(out, force ? CLI_OUT_FORCE : CLI_OUT_NEW, CLI_FILE_TRACE);
}

#define ENC_LONGOPTS                                                                               \
  {"bound", required_argument, 0, O_BOUND}, {"codec", required_argument, 0, O_CODEC},              \
      {"chunk", required_argument, 0, O_CHUNK}, {"force", no_argument, 0, 'f'},                    \
      {"output", required_argument, 0, 'o'}, {                                                     \
    "help", no_argument, 0, 'h'                                                                    \
  }

/* ---------------------------------------------------------------- gen */

static void gen_usage(void) {
  printf("usage: lbsim trace gen [--kind bump|hotspot|random] [--mesh 30x20x20] [--steps 300]\n"
         "                       [--seed 1] [--order natural|hilbert] [--noise SPEC] -o t.lbt\n"
         "       lbsim trace gen --kind nbody [--bodies 16384] [--steps 10] [--seed 1]\n"
         "                       [--leaf 8] [--theta 0.7] [--dt 0.0078125] -o t.lbt\n\n"
         "Generates a synthetic trace on a structured mesh and records its recipe, so that\n"
         "'trace check' can measure the stored values against the source.\n"
         "  nbody    seed 003's N-body case: a Barnes-Hut integration of a Plummer sphere;\n"
         "           one element per leaf cell (at most --leaf bodies) of the initial octree,\n"
         "           a directed cell graph (CWgt = |Cw| when Cw is close to Cv, else 0),\n"
         "           metrics pwgt, rwgt and interactions, lossless\n"
         "  bump     the seed's MRTD case: a Gaussian pulse crosses the box along x; cells\n"
         "           above wavelet thresholds cost more (metrics time_ns, weight)\n"
         "  hotspot  four moving hot spots with 2%% noise (metric time_ns)\n"
         "  random   independent uniform costs (metric time_ns)\n\noptions:\n"
         "  --noise SPEC     time_ns as a profiler measures it: 'default' (jitter=%g,tick=%g,\n"
         "                   spikes=%d) or any of jitter=J,tick=T,spikes=N (the others none):\n"
         "                   a log-normal factor of sigma J per element, a timer of T ns, N\n"
         "                   elements per step slowed 1000-10000x (preempted); 'none' (the\n"
         "                   default)\n"
         "  --elem-bytes B   migration bytes per element (default 1024)\n"
         "  --edge-bytes B   halo bytes per edge (default 64)\n" ENC_HELP "\nexamples:\n"
         "  lbsim trace gen --kind bump --mesh 30x20x20 --steps 300 -o bump.lbt\n"
         "  lbsim trace gen --kind hotspot --noise default --bound rel:0.01 -o noisy.lbt\n"
         "  lbsim trace gen --kind bump --bound time_ns=range:1e-3 --codec polyline -o b.lbt\n",
         LBS_GEN_NOISE_JITTER, LBS_GEN_NOISE_TICK, LBS_GEN_NOISE_SPIKES, LBS_BOUND_DEFAULT);
}

typedef struct {
  enc_opts eo;
  lbs_gen_params gp;                        /* kind, mesh, steps, seed, noise */
  lbs_nbody_params np;                      /* the nbody kind's */
  int steps_given, mesh_given, nbody_given; /* --mesh; --bodies, --leaf, --theta or --dt */
  int64_t seed, leaf;
  lbs_order order;
  double eb, gb; /* migration bytes per element, halo bytes per edge */
  const char *out;
} gen_args;

/* One of trace gen's own options: 0, or 2 after a usage error. */
static int gen_opt(int c, const char *arg, gen_args *a) {
  long long nx, ny, nz = 1;
  char tail;
  int n;
  switch (c) {
  case 'o': return cli_output_arg("trace gen", "-o", arg, &a->out);
  case O_KIND: a->gp.kind = arg; return 0;
  case O_MESH:
    n = sscanf(arg, "%lldx%lldx%lld%c", &nx, &ny, &nz, &tail);
    if ((n != 2 && n != 3) || nx < 1 || ny < 1 || (n == 3 && nz < 1))
      return cli_usage("trace gen", "--mesh '%s' is not NXxNY or NXxNYxNZ", arg);
    a->gp.nx = nx, a->gp.ny = ny, a->gp.nz = n == 2 ? 1 : nz;
    a->mesh_given = 1;
    return 0;
  case O_STEPS:
    a->steps_given = 1;
    return cli_parse_i64("--steps", arg, 1, LBS_GEN_MAX_STEPS, &a->gp.steps);
  case O_BODIES: return cli_parse_i64("--bodies", arg, 2, INT64_C(1) << 31, &a->np.bodies);
  case O_LEAF: return cli_parse_i64("--leaf", arg, 1, 1024, &a->leaf);
  case O_THETA: return cli_parse_f64("--theta", arg, 0.01, 1.99, &a->np.theta);
  case O_DT: return cli_parse_f64("--dt", arg, 1e-9, 0.99, &a->np.dt);
  case O_SEED: return cli_parse_i64("--seed", arg, 0, INT64_MAX, &a->seed);
  case O_NOISE:
    if (!lbs_gen_noise_parse(arg, &a->gp.noise)) return 0;
    fprintf(stderr, "lbsim: option --noise: %s\n", lbs_errmsg());
    return 2;
  case O_ELEMB: return cli_parse_f64("--elem-bytes", arg, 0, 1e15, &a->eb);
  case O_EDGEB: return cli_parse_f64("--edge-bytes", arg, 0, 1e15, &a->gb);
  case O_ORDER:
    if (!strcmp(arg, "hilbert"))
      a->order = LBS_ORDER_HILBERT;
    else if (!strcmp(arg, "natural"))
      a->order = LBS_ORDER_NATURAL;
    else
      return cli_usage("trace gen", "--order must be natural or hilbert");
    return 0;
  }
  return cli_bad_option("trace gen");
}

/* The command line into a: 0, 2 after a usage error, or -1 after --help. */
static int gen_parse(int argc, char **argv, gen_args *a) {
  static const struct option lo[] = {ENC_LONGOPTS,
                                     {"kind", required_argument, 0, O_KIND},
                                     {"mesh", required_argument, 0, O_MESH},
                                     {"steps", required_argument, 0, O_STEPS},
                                     {"seed", required_argument, 0, O_SEED},
                                     {"order", required_argument, 0, O_ORDER},
                                     {"elem-bytes", required_argument, 0, O_ELEMB},
                                     {"edge-bytes", required_argument, 0, O_EDGEB},
                                     {"bodies", required_argument, 0, O_BODIES},
                                     {"leaf", required_argument, 0, O_LEAF},
                                     {"theta", required_argument, 0, O_THETA},
                                     {"dt", required_argument, 0, O_DT},
                                     {"noise", required_argument, 0, O_NOISE},
                                     {0, 0, 0, 0}};
  int c, r;
  while ((c = cli_getopt(argc, argv, "o:fh", lo)) != -1) {
    if ((r = enc_opt(c, optarg, &a->eo)) == 2) return 2;
    if (r) continue;
    if (c == 'h') return gen_usage(), -1;
    if (c == O_BODIES || c == O_LEAF || c == O_THETA || c == O_DT) a->nbody_given = 1;
    if ((r = gen_opt(c, optarg, a))) return r;
  }
  if (!a->out) return cli_usage("trace gen", "missing -o FILE");
  if (optind < argc) return cli_usage("trace gen", "unexpected argument '%s'", argv[optind]);
  int nbody = a->gp.kind && !strcmp(a->gp.kind, "nbody");
  if (nbody && a->mesh_given)
    return cli_usage("trace gen", "--mesh goes with a mesh kind, not nbody");
  if (!nbody && a->nbody_given)
    return cli_usage("trace gen", "--bodies, --leaf, --theta and --dt go with --kind nbody");
  a->gp.seed = (uint64_t)a->seed, a->np.seed = (uint64_t)a->seed, a->np.leaf = (int)a->leaf;
  a->np.steps = a->steps_given ? a->gp.steps : 10;
  return 0;
}

/* A new trace being written at path: removed with its side files if a signal interrupts the
 * command (a half trace only misleads, and the command makes it again), kept once complete
 * (cli_interrupt_keep). */
static int guard_trace(const char *path) { return cli_interrupt_remove(path, CLI_RM_DB, NULL); }

/* The nbody workload: integrated and written. */
static int gen_nbody(const gen_args *a) {
  if (a->eo.enc.nset || a->eo.chunk)
    return cli_usage("trace gen", "the nbody workload is stored losslessly in its own chunks: no "
                                  "--bound, --codec or --chunk");
  if (cli_replace_output(a->out, a->eo.force, CLI_FILE_TRACE)) return 1;
  cli_progress p;
  cli_progress_start(&p, "integrating", a->np.steps);
  int guard = guard_trace(a->out);
  lbs_err e = lbs_nbody_trace(&a->np, a->out, cli_progress_cb, &p);
  cli_interrupt_keep(guard);
  cli_progress_end(&p);
  if (e) return cli_error(a->out, e);
  cli_wrote("trace gen", a->out, "%lld bodies, %lld steps", (long long)a->np.bodies,
            (long long)a->np.steps);
  return 0;
}

/* A synthetic workload on a structured mesh: its metrics checked, then written. */
static int gen_mesh(gen_args *a) {
  lbs_gen *g = NULL;
  lbs_err e = lbs_gen_create(&a->gp, &g);
  if (e)
    return e == LBS_NOMEM ? cli_error("trace gen", e)
                          : cli_usage("trace gen", "%s", lbs_errmsg()); /* the flags' */
  lbs_metric_spec ms[LBS_GEN_MAX_METRICS];
  int rc = 0;
  if (lbs_gen_metric_specs(g, &a->eo.enc, ms)) {
    fprintf(stderr, "lbsim: %s\n", lbs_errmsg());
    rc = 2;
  } else if (cli_replace_output(a->out, a->eo.force, CLI_FILE_TRACE)) {
    rc = 1;
  } else {
    lbs_gen_write_opts wo = {a->order, a->eb, a->gb, a->eo.chunk, &a->eo.enc};
    cli_progress p;
    cli_progress_start(&p, "generating", a->gp.steps);
    int guard = guard_trace(a->out);
    e = lbs_gen_write_trace(g, &wo, a->out, cli_progress_cb, &p);
    cli_interrupt_keep(guard);
    cli_progress_end(&p);
    if (e)
      rc = cli_error(a->out, e);
    else
      cli_wrote("trace gen", a->out, "%lld elements, %lld steps (%s)",
                (long long)lbs_gen_elements(g), (long long)a->gp.steps, lbs_gen_recipe(g));
  }
  lbs_gen_destroy(&g);
  return rc;
}

static int trace_gen(int argc, char **argv) {
  gen_args a = {.gp = {"bump", 30, 20, 20, 300, 1, {0, 0, 0}},
                .np = {16384, 10, 1, 8, 0.7, 1.0 / 128},
                .order = LBS_ORDER_NATURAL,
                .eb = 1024,
                .gb = 64,
                .seed = 1,
                .leaf = 8};
  int rc = gen_parse(argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc;
  if (check_output(a.out, a.eo.force)) return 1;
  return !strcmp(a.gp.kind, "nbody") ? gen_nbody(&a) : gen_mesh(&a);
}

/* ---------------------------------------------------------------- info */

/* The stored values of every metric, a progress bar each; a damaged chunk ends the scan, not
 * the report (its error comes last). 1 when every metric's values were read. */
static int info_values(lbs_trace *t, lbs_trace_info *in) {
  for (int m = 0; m < in->nmetrics; m++) {
    lbs_metric_info mi;
    lbs_trace_metric(t, m, &mi);
    cli_progress p;
    char label[80];
    snprintf(label, sizeof label, "values of %s", mi.name);
    cli_progress_start(&p, label, lbs_trace_steps(t));
    lbs_err e = lbs_trace_info_values(t, m, cli_progress_cb, &p, in);
    cli_progress_end(&p);
    if (e) return 0;
  }
  return 1;
}

static int trace_info(int argc, char **argv) {
  static const struct option lo[] = {{"json", no_argument, 0, O_JSON},
                                     {"no-values", no_argument, 0, O_NOVALUES},
                                     {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  int json = 0, novalues = 0, c;
  while ((c = cli_getopt(argc, argv, "h", lo)) != -1) {
    if (c == O_JSON)
      json = 1;
    else if (c == O_NOVALUES)
      novalues = 1;
    else if (c == 'h') {
      printf("usage: lbsim trace info t.lbt [--json] [--no-values]\n\n"
             "Elements, steps, mesh, metrics with their error bound and codecs, sizes and the\n"
             "compression ratio, the errors the writer measured against its input (largest\n"
             "absolute and relative error, worst chunk sum), and the stored values of each\n"
             "metric over all steps: min, median, p99, max, negative and non-finite counts\n"
             "(one pass over the trace, two or more for the exact quantiles; --no-values skips\n"
             "it). Warns when a range-relative bound meets outlier-dominated ranges.\n\n"
             "examples:\n  lbsim trace info run.lbt\n  lbsim trace info run.lbt --json | jq "
             ".metrics\n");
      return 0;
    } else
      return cli_bad_option("trace info");
  }
  if (optind != argc - 1) return cli_usage("trace info", "expected one trace file");
  const char *path = argv[optind];
  lbs_trace *t;
  lbs_trace_info in;
  lbs_err e = lbs_trace_open(path, &t);
  if (e) return cli_error("trace info", e);
  if ((e = lbs_trace_info_get(t, &in))) {
    lbs_trace_info_free(&in);
    lbs_trace_close(&t);
    return cli_error("trace info", e);
  }
  int values = !novalues && info_values(t, &in), rc = 0;
  if (json)
    rc = cli_json_print("trace info", lbs_trace_info_json(t, path, &in, values), LBS_JSON_COMPACT);
  else
    lbs_trace_info_text(stdout, t, path, &in, values);
  for (int m = 0; m < in.nmetrics; m++)
    if (in.warning[m][0]) fprintf(stderr, "lbsim: warning: %s\n", in.warning[m]);
  if (in.values_error[0])
    rc = (fprintf(stderr,
                  "lbsim: trace info: the values could not be read: %s ('lbsim trace check' lists "
                  "the damage)\n",
                  in.values_error),
          1);
  lbs_trace_info_free(&in);
  lbs_trace_close(&t);
  return rc;
}

/* ---------------------------------------------------------------- check */

static int trace_check(int argc, char **argv) {
  static const struct option lo[] = {{"json", no_argument, 0, O_JSON},
                                     {"help", no_argument, 0, 'h'},
                                     {"no-source", no_argument, 0, 'n'},
                                     {0, 0, 0, 0}};
  int json = 0, nosrc = 0, c;
  while ((c = cli_getopt(argc, argv, "hn", lo)) != -1) {
    if (c == O_JSON)
      json = 1;
    else if (c == 'n')
      nosrc = 1;
    else if (c == 'h') {
      printf("usage: lbsim trace check t.lbt [--json] [--no-source]\n\n"
             "Verifies the SQLite file, the structure (every chunk of every metric of every\n"
             "step, with its element range), every CRC-32 and that every chunk decodes, the\n"
             "arrays kept per step (recorded owners, edge weights, events), and\n"
             "that the writer finished (as many steps as a generator's recipe says, a\n"
             "profiled run's profiler.complete, the file closed). When the trace records a\n"
             "generator recipe, regenerates the source and checks every value against the\n"
             "error bound (skip with --no-source). Exit 1 names the bad step, metric and\n"
             "chunk, or the steps missing.\n");
      return 0;
    } else
      return cli_bad_option("trace check");
  }
  if (optind != argc - 1) return cli_usage("trace check", "expected one trace file");
  const char *path = argv[optind];
  lbs_trace *t;
  lbs_err e = lbs_trace_open(path, &t);
  if (e) return cli_error("trace check", e);
  cli_progress p;
  cli_progress_start(&p, "verifying", lbs_trace_steps(t));
  e = lbs_trace_verify(t, cli_progress_cb, &p);
  cli_progress_end(&p);
  if (!e) e = lbs_trace_check_complete(t); /* a trace cut short is whole in every other way */
  lbs_source_check sc = {0, NAN, NAN, NAN};
  if (!e && !nosrc && lbs_trace_has_gen_source(t)) {
    cli_progress_start(&p, "checking source", lbs_trace_steps(t));
    e = lbs_trace_check_source(t, cli_progress_cb, &p, &sc);
    cli_progress_end(&p);
  }
  int64_t S = lbs_trace_steps(t);
  int nm = lbs_trace_nmetrics(t);
  lbs_trace_close(&t);
  if (e) {
    if (json)
      cli_json_print("trace check",
                     json_pack("{s:b,s:o}", "ok", 0, "error", lbs_json_str(lbs_errmsg())),
                     LBS_JSON_COMPACT);
    return cli_error("trace check", e);
  }
  if (json)
    return cli_json_print("trace check",
                          json_pack("{s:b,s:I,s:i,s:b,s:o,s:o,s:o}", "ok", 1, "steps",
                                    (json_int_t)S, "metrics", nm, "source_checked", sc.checked,
                                    "max_abs_error", lbs_json_real(sc.max_abs_error),
                                    "max_range_error", lbs_json_real(sc.max_range_error),
                                    "max_sum_error", lbs_json_real(sc.max_sum_error)),
                          LBS_JSON_COMPACT);
  printf("%s: ok: %lld steps x %d metrics verified", path, (long long)S, nm);
  if (sc.checked)
    printf("; against the source: max error %.4g (%.3g of its step's range), worst chunk sum %.2g",
           sc.max_abs_error, sc.max_range_error, sc.max_sum_error);
  printf("\n");
  return 0;
}

/* ---------------------------------------------------------------- export */

static int parse_steps(const char *arg, int64_t *first, int64_t *n) {
  long long a, b;
  char tail;
  if (sscanf(arg, "%lld:%lld%c", &a, &b, &tail) == 2 && a >= 0 && b > a) {
    *first = a;
    *n = b - a;
    return 0;
  }
  return 1;
}

static int trace_export(int argc, char **argv) {
  static const struct option lo[] = {{"csv", required_argument, 0, O_CSV},
                                     {"steps-dir", required_argument, 0, O_STEPSDIR},
                                     {"step", required_argument, 0, O_STEP},
                                     {"steps", required_argument, 0, O_STEPS},
                                     {"force", no_argument, 0, 'f'},
                                     {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  const char *csv = NULL, *dir = NULL;
  int64_t first = 0, n = -1;
  int c, force = 0;
  while ((c = cli_getopt(argc, argv, "fh", lo)) != -1) {
    switch (c) {
    case 'f': force = 1; break;
    case O_CSV: csv = optarg; break;
    case O_STEPSDIR: dir = optarg; break;
    case O_STEP:
      if (n >= 0) return cli_usage("trace export", "give one of --step and --steps, once");
      if (cli_parse_i64("--step", optarg, 0, INT64_MAX, &first)) return 2;
      n = 1;
      break;
    case O_STEPS:
      if (n >= 0) return cli_usage("trace export", "give one of --step and --steps, once");
      if (parse_steps(optarg, &first, &n))
        return cli_usage("trace export", "--steps wants A:B (steps A..B-1, A < B)");
      break;
    case 'h':
      printf(
          "usage: lbsim trace export t.lbt --csv DIR | --steps-dir DIR [--step N | --steps A:B]\n"
          "                          [-f]\n\n"
          "  --csv DIR        DIR/steps.csv (step,app_step,element,<metrics>) and\n"
          "                   DIR/elements.csv (element,x,y,z[,i,j,k])\n"
          "  --steps-dir DIR  one file per step plus a manifest (format in README.md)\n"
          "  --step N         only step N (0-based); --steps A:B steps A..B-1\n"
          "  -f, --force      replace DIR when it holds an earlier output of lbsim\n\n"
          "DIR is written fresh beside it and renamed into place when complete; an existing\n"
          "DIR must be empty, or with --force hold only files lbsim writes there.\n");
      return 0;
    default: return cli_bad_option("trace export");
    }
  }
  if (optind != argc - 1) return cli_usage("trace export", "expected one trace file");
  if (!csv == !dir) return cli_usage("trace export", "give exactly one of --csv and --steps-dir");
  cli_outdir od;
  if (cli_outdir_check_as(&od, "trace export", csv ? csv : dir, force, CLI_DIR_EXPORT)) return 1;
  lbs_trace *t;
  lbs_err e = lbs_trace_open(argv[optind], &t);
  if (e) return cli_error("trace export", e);
  if (cli_outdir_begin(&od)) return lbs_trace_close(&t), 1;
  e = csv ? lbs_csv_export(t, od.tmp, first, n) : lbs_stepsdir_export(t, od.tmp, first, n);
  lbs_trace_close(&t);
  int rc = e ? cli_error("trace export", e) : cli_outdir_commit(&od);
  cli_outdir_abort(&od);
  if (!rc) fprintf(stderr, "lbsim: exported to %s\n", od.dir);
  return rc;
}

/* ---------------------------------------------------------------- import */

typedef struct {
  enc_opts eo;
  const char *dir, *chaco, *coords, *zfiles, *out;
  const char **vt; /* --vt's files (or one directory): nvt of them (malloc'd array) */
  int nvt;
  int no_nodes; /* --no-node-elements: vt's task-to-node traffic left out, as before */
} import_args;

/* The command line into a: 0, 2 after a usage error, or -1 after --help. */
static void import_help(void) {
  printf("usage: lbsim trace import --steps-dir DIR | --chaco G.graph [--coords G.coords] -o "
         "t.lbt\n"
         "       lbsim trace import --vt FILE... | --vt DIR -o t.lbt\n"
         "       lbsim trace import --zoltan-files BASE -o t.lbt\n\n"
         "  --steps-dir DIR  a one-file-per-step directory of measured values (format in\n"
         "                   README.md), stored within the default bound %s\n"
         "  --chaco G        a Chaco/METIS graph: one step whose metric 'weight' holds the\n"
         "                   vertex weights (weight0.. with several constraints), lossless;\n"
         "                   what Zoltan's reader forgives (self loops, an m counting both\n"
         "                   directions, no lines for trailing isolated vertices) is taken\n"
         "                   with a warning, and so is Zoltan's fifth header field (edge\n"
         "                   weights an edge: an arc keeps the first)\n"
         "  --coords C       vertex coordinates for the graph, one line per vertex\n"
         "  --zoltan-files BASE  what Zoltan_Generate_Files(zz, BASE, ...) wrote: BASE.graph\n"
         "                   as --chaco (numbered from 0 or 1, as written), BASE.coords when\n"
         "                   there, and BASE.assign's parts as the recorded owners at step 0\n"
         "                   (--policy recorded); lossless\n"
         "  --vt FILE...     DARMA vt's LB data files (one a rank, plain or brotli JSON), or a\n"
         "                   directory of data.<rank>.json: a task an element, a phase a\n"
         "                   step, metric time_ns (and time_ns.sID per subphase), the node\n"
         "                   each task ran on as the recorded owners (--policy recorded), the\n"
         "                   bytes task pairs exchange as per-step arc weights, tasks not\n"
         "                   migratable (objgroups) as pinned elements the replay never\n"
         "                   moves, a task absent from a phase as idle and held there;\n"
         "                   each rank a task talks to as a node ({\"type\":\"node\"}) an\n"
         "                   element \"node r\" after the tasks: pinned on r, no work, its\n"
         "                   bytes with the task their arc's (charged only when the task is\n"
         "                   elsewhere); default %s\n"
         "  --no-node-elements  with --vt: leave task-to-node traffic out (counted) instead\n"
         "  --allow-nonfinite  import NaN and infinite values with a warning (default: an\n"
         "                   error naming the file, line and metric)\n" ENC_HELP "\nexamples:\n"
         "  lbsim trace import --steps-dir profile/ --bound lossless -o lossless.lbt\n"
         "  lbsim trace import --chaco hammond.graph --coords hammond.coords -o hammond.lbt\n"
         "  lbsim trace import --vt lbdata/ -o vt.lbt     # lbdata/data.0.json ...\n"
         "  lbsim trace import --vt data.0.json data.1.json --bound lossless -o vt.lbt\n"
         "  lbsim trace import --vt lbdata/ --no-node-elements -o tasks-only.lbt\n"
         "  lbsim trace import --zoltan-files dump/mesh -o mesh.lbt  # dump/mesh.graph ...\n",
         LBS_BOUND_DEFAULT, LBS_BOUND_DEFAULT,
         "rel:0.005 for a steps directory and vt files, lossless for graphs");
}

static int import_parse(int argc, char **argv, import_args *a) {
  static const struct option lo[] = {ENC_LONGOPTS,
                                     {"steps-dir", required_argument, 0, O_STEPSDIR},
                                     {"chaco", required_argument, 0, O_CHACO},
                                     {"coords", required_argument, 0, O_COORDS},
                                     {"allow-nonfinite", no_argument, 0, O_NONFINITE},
                                     {"vt", required_argument, 0, O_VT},
                                     {"zoltan-files", required_argument, 0, O_ZFILES},
                                     {"no-node-elements", no_argument, 0, O_NO_NODES},
                                     {0, 0, 0, 0}};
  int c, r, vt = 0;
  while ((c = cli_getopt(argc, argv, "o:fh", lo)) != -1) {
    if ((r = enc_opt(c, optarg, &a->eo)) == 2) return 2;
    if (r) continue;
    switch (c) {
    case 'o':
      if (cli_output_arg("trace import", "-o", optarg, &a->out)) return 2;
      break;
    case O_VT:
      if (vt++) return cli_usage("trace import", "give --vt once, then its files");
      if (!(a->vt = malloc((size_t)argc * sizeof *a->vt)))
        return cli_error("trace import", LBS_NOMEM);
      a->vt[a->nvt++] = optarg;
      break;
    case O_STEPSDIR: a->dir = optarg; break;
    case O_CHACO: a->chaco = optarg; break;
    case O_ZFILES: a->zfiles = optarg; break;
    case O_NO_NODES: a->no_nodes = 1; break;
    case O_COORDS: a->coords = optarg; break;
    case O_NONFINITE: a->eo.allow_nonfinite = 1; break;
    case 'h': import_help(); return -1;
    default: return cli_bad_option("trace import");
    }
  }
  if (!a->out) return cli_usage("trace import", "missing -o FILE");
  if (!!a->dir + !!a->chaco + !!vt + !!a->zfiles != 1)
    return cli_usage("trace import",
                     "give exactly one of --steps-dir, --chaco, --vt and --zoltan-files");
  if (a->coords && !a->chaco) return cli_usage("trace import", "--coords goes with --chaco");
  if (a->no_nodes && !vt) return cli_usage("trace import", "--no-node-elements goes with --vt");
  if (vt) /* --vt's value and every argument left: its files (getopt moved them to the end) */
    while (optind < argc) a->vt[a->nvt++] = argv[optind++];
  else if (optind < argc)
    return cli_usage("trace import", "unexpected argument '%s'", argv[optind]);
  return 0;
}

/* --steps-dir: one codec and bound for every metric (per-metric settings need the names first). */
static int import_stepsdir(const import_args *a) {
  if (lbs_encoding_per_metric(&a->eo.enc))
    return cli_usage("trace import", "--steps-dir takes one --bound and --codec for every metric");
  lbs_bound dflt;
  lbs_bound_parse(LBS_BOUND_DEFAULT, &dflt);
  lbs_import_opts io = {LBS_CODEC_DEFAULT, dflt, a->eo.chunk, a->eo.allow_nonfinite, 0};
  if (enc_resolve(&a->eo, "*", LBS_CODEC_DEFAULT, dflt, &io.codec, &io.bound)) return 2;
  if (cli_replace_output(a->out, a->eo.force, CLI_FILE_TRACE)) return 1;
  int guard = guard_trace(a->out);
  lbs_err e = lbs_stepsdir_import(a->dir, a->out, &io);
  cli_interrupt_keep(guard);
  if (!e && io.nonfinite)
    fprintf(stderr, "lbsim: warning: %s: %lld NaN or infinite values imported as they are\n",
            a->dir, (long long)io.nonfinite);
  if (e) return cli_error("trace import", e);
  return 0;
}

/* --chaco: the graph read (what it forgave said), the settings checked, the old trace replaced
 * once the input is read, the trace written. */
static int import_chaco(const import_args *a) {
  lbs_mesh *mesh = NULL;
  double *vw = NULL;
  int ncon = 0, rc = 0;
  lbs_chaco_notes notes;
  lbs_err e = lbs_chaco_read(a->chaco, a->coords, &mesh, &vw, &ncon, &notes);
  for (int i = 0; !e && i < notes.nwarn; i++)
    fprintf(stderr, "lbsim: warning: %s\n", notes.warning[i]);
  if (!e && lbs_chaco_check_encoding(ncon, &a->eo.enc))
    rc = (fprintf(stderr, "lbsim: %s\n", lbs_errmsg()), 2);
  else if (!e && cli_replace_output(a->out, a->eo.force, CLI_FILE_TRACE))
    rc = 1;
  else if (!e) {
    int guard = guard_trace(a->out);
    e = lbs_chaco_write_trace(a->chaco, mesh, vw, ncon, &a->eo.enc, a->eo.chunk, a->out);
    cli_interrupt_keep(guard);
  }
  free(vw);
  lbs_mesh_destroy(&mesh);
  if (!rc && e) rc = cli_error("trace import", e);
  return rc;
}

/* --zoltan-files: the files read (what the graph reader forgave said), the settings checked, the
 * old trace replaced once the input is read, the trace written. */
static int import_zfiles(const import_args *a) {
  lbs_zfiles *z = NULL;
  int rc = 0, ncon = 0;
  lbs_err e = lbs_zfiles_read(a->zfiles, &z);
  if (!e) {
    const lbs_chaco_notes *notes = lbs_zfiles_notes(z);
    for (int i = 0; i < notes->nwarn; i++)
      fprintf(stderr, "lbsim: warning: %s\n", notes->warning[i]);
    lbs_zfiles_weights(z, &ncon);
  }
  if (!e && lbs_chaco_check_encoding(ncon, &a->eo.enc))
    rc = (fprintf(stderr, "lbsim: %s\n", lbs_errmsg()), 2);
  else if (!e && cli_replace_output(a->out, a->eo.force, CLI_FILE_TRACE))
    rc = 1;
  else if (!e) {
    int guard = guard_trace(a->out);
    e = lbs_zfiles_write_trace(z, &a->eo.enc, a->eo.chunk, a->out);
    cli_interrupt_keep(guard);
  }
  if (!rc && e) rc = cli_error("trace import", e);
  if (!rc) {
    int64_t np;
    lbs_zfiles_parts(z, &np);
    fprintf(stderr,
            "lbsim: trace import: %s: %lld vertices, %d weights a vertex, %lld parts, "
            "numbered from %d\n",
            a->zfiles, (long long)lbs_mesh_elements(lbs_zfiles_mesh(z)), ncon, (long long)np,
            lbs_zfiles_base_index(z));
  }
  lbs_zfiles_destroy(&z);
  return rc;
}

/* --vt: the files read (a directory's data.<rank>.json files, in rank order), the settings
 * checked, the old trace replaced once the input is read, the trace written. */
static int import_vt(const import_args *a) {
  char **listed = NULL;
  int nlisted = 0, rc = 0;
  struct stat st;
  lbs_err e = LBS_OK;
  if (a->nvt == 1 && stat(a->vt[0], &st) == 0 && S_ISDIR(st.st_mode))
    e = lbs_vt_dir_files(a->vt[0], &listed, &nlisted);
  lbs_vt *v = NULL;
  lbs_vt_opts vo = {.node_elements = !a->no_nodes};
  if (!e)
    e = listed ? lbs_vt_read_opts((const char *const *)listed, nlisted, &vo, &v)
               : lbs_vt_read_opts(a->vt, a->nvt, &vo, &v);
  lbs_vt_files_free(listed, nlisted);
  if (!e && lbs_vt_check_encoding(v, &a->eo.enc))
    rc = (fprintf(stderr, "lbsim: %s\n", lbs_errmsg()), 2);
  else if (!e && cli_replace_output(a->out, a->eo.force, CLI_FILE_TRACE))
    rc = 1;
  else if (!e) {
    int guard = guard_trace(a->out);
    e = lbs_vt_write_trace(v, &a->eo.enc, a->eo.chunk, a->out);
    cli_interrupt_keep(guard);
  }
  if (!rc && e) rc = cli_error("trace import", e);
  if (!rc) {
    lbs_vt_summary s;
    lbs_vt_summary_get(v, &s);
    fprintf(stderr,
            "lbsim: trace import: %d vt files: %lld tasks (%lld pinned), %lld phases (%lld "
            "skipped), %lld communicating pairs (%lld task-to-node communications as traffic "
            "with %lld node elements; %lld communications with a node left out)\n",
            s.files, (long long)s.tasks, (long long)s.pinned, (long long)s.steps,
            (long long)s.skipped, (long long)s.pairs, (long long)s.node_traffic, (long long)s.nodes,
            (long long)s.node_comms);
  }
  lbs_vt_destroy(&v);
  return rc;
}

static int trace_import(int argc, char **argv) {
  import_args a = {0};
  int rc = import_parse(argc, argv, &a);
  if (!rc && check_output(a.out, a.eo.force)) rc = 1;
  if (!rc)
    rc = a.dir      ? import_stepsdir(&a)
         : a.chaco  ? import_chaco(&a)
         : a.zfiles ? import_zfiles(&a)
                    : import_vt(&a);
  if (!rc) cli_wrote("trace import", a.out, NULL);
  free(a.vt);
  return rc < 0 ? 0 : rc;
}

/* ---------------------------------------------------------------- recode */

/* trace recode's command line: the encoding, the denoising rules, the output and the input. */
typedef struct {
  enc_opts eo;
  lbs_denoise dn[LBS_DENOISE_MAX_RULES];
  int ndn;
  const char *out, *in;
} recode_args;

/* The command line into a: 0, 2 after a usage error, or -1 after --help. */
static int recode_parse(int argc, char **argv, recode_args *a) {
  static const struct option lo[] = {
      {"denoise", required_argument, 0, O_DENOISE}, ENC_LONGOPTS, {0, 0, 0, 0}};
  int c, r;
  while ((c = cli_getopt(argc, argv, "o:fh", lo)) != -1) {
    if ((r = enc_opt(c, optarg, &a->eo)) == 2) return 2;
    if (r) continue;
    switch (c) {
    case 'o':
      if (cli_output_arg("trace recode", "-o", optarg, &a->out)) return 2;
      break;
    case O_DENOISE:
      if (a->ndn == LBS_DENOISE_MAX_RULES)
        return cli_usage("trace recode", "at most %d --denoise rules", LBS_DENOISE_MAX_RULES);
      if (lbs_denoise_parse(optarg, &a->dn[a->ndn]))
        return cli_usage("trace recode", "%s", lbs_errmsg());
      a->ndn++;
      break;
    case 'h':
      printf("usage: lbsim trace recode in.lbt -o out.lbt [--bound [M=]B] [--codec [M=]C] [--chunk "
             "N]\n"
             "                          [--denoise [M=]RULE]\n\n"
             "Writes the trace again with other error bounds, codecs or chunk size: profile\n"
             "losslessly, decide the compaction later. The metadata, the mesh, the recorded\n"
             "owners and the steps are kept. The bound applies to the values read (a lossy\n"
             "input's errors add up). A damaged input stops at the bad chunk, named, and the\n"
             "output keeps the steps before it.\n\noptions:\n" ENC_HELP
             "  --denoise [M=]RULE  remove noise that is not the application's from metric M\n"
             "                   (default time_ns; repeatable, one rule a metric), comparing each\n"
             "                   value with the same element's at the W nearest sampled steps:\n"
             "                   spike[:W[:F]]  a value above F x their median becomes the median\n"
             "                                  (default W 3, F 3: preemption spikes), the rest\n"
             "                                  stays as measured\n"
             "                   median[:W]     every value becomes that median (default W 3)\n"
             "                   Recorded in the trace's metadata (denoise).\n"
             "\nexamples:\n"
             "  lbsim trace recode run.lbt -o small.lbt                      # default bound\n"
             "  lbsim trace recode run.lbt -o small.lbt --bound time_ns=rel:0.01\n"
             "  lbsim trace recode old.lbt -o new.lbt --bound lossless       # schema upgrade\n"
             "  lbsim trace recode run.lbt -o clean.lbt --denoise spike      # preemption spikes\n",
             LBS_BOUND_DEFAULT " for every metric");
      return -1;
    default: return cli_bad_option("trace recode");
    }
  }
  if (!a->out) return cli_usage("trace recode", "missing -o FILE");
  if (optind != argc - 1) return cli_usage("trace recode", "expected one input trace");
  a->in = argv[optind];
  return 0;
}

static int trace_recode(int argc, char **argv) {
  recode_args a = {0};
  int rc = recode_parse(argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc;
  const char *out = a.out, *in = a.in;
  enc_opts eo = a.eo;
  struct stat si, so;
  if (stat(in, &si) == 0 && stat(out, &so) == 0 && si.st_dev == so.st_dev &&
      si.st_ino == so.st_ino) {
    fprintf(stderr, "lbsim: trace recode: %s is the input trace; write to another file\n", out);
    return 1;
  }
  if (check_output(out, eo.force)) return 1;
  lbs_trace *t;
  lbs_err e = lbs_trace_open(in, &t);
  if (e) return cli_error("trace recode", e);
  if ((e = lbs_trace_recode_check(t, &eo.enc)) || (e = lbs_trace_denoise_check(t, a.dn, a.ndn)))
    /* the settings against the trace's metrics */
    rc = e == LBS_NOMEM ? cli_error("trace recode", e)
                        : (fprintf(stderr, "lbsim: trace recode: %s\n", lbs_errmsg()), 2);
  else if (cli_replace_output(out, eo.force, CLI_FILE_TRACE))
    rc = 1;
  if (rc) return lbs_trace_close(&t), rc;
  cli_progress p;
  int64_t kept;
  cli_progress_start(&p, "recoding", lbs_trace_steps(t));
  int guard = guard_trace(out);
  e = lbs_trace_recode(t, in, &eo.enc, eo.chunk, a.dn, a.ndn, out, cli_progress_cb, &p, &kept);
  cli_interrupt_keep(guard);
  cli_progress_end(&p);
  struct stat sb;
  if (e && kept == 0) remove(out); /* damaged from its first step: nothing worth keeping */
  if (e && kept > 0)
    rc = (fprintf(stderr, "lbsim: trace recode: %s; %s keeps the %lld steps before it\n",
                  lbs_errmsg(), out, (long long)kept),
          1);
  else if (e)
    rc = cli_error("trace recode", e);
  else {
    char changed[1024] = "";
    for (int k = 0; k < a.ndn; k++) {
      char rule[128];
      size_t len = strlen(changed);
      snprintf(changed + len, sizeof changed - len, "; %s changed %lld values",
               lbs_denoise_format(&a.dn[k], rule, sizeof rule), (long long)a.dn[k].changed);
    }
    cli_wrote("trace recode", out, "%lld steps, %lld bytes (from %lld)%s",
              (long long)lbs_trace_steps(t), stat(out, &sb) ? -1LL : (long long)sb.st_size,
              (long long)lbs_trace_file_bytes(t), changed);
  }
  lbs_trace_close(&t);
  return rc;
}

/* ---------------------------------------------------------------- dispatch */

int cmd_trace(int argc, char **argv) {
  static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *help;
  } subs[] = {{"gen", trace_gen, "generate a synthetic trace (bump, hotspot, random)"},
              {"info", trace_info, "elements, steps, metrics, sizes and errors"},
              {"check", trace_check, "verify every checksum, the structure and the error bound"},
              {"export", trace_export, "write CSV or a one-file-per-step directory"},
              {"import", trace_import,
               "read a one-file-per-step directory, a Chaco graph, vt's LB data or Zoltan's files"},
              {"recode", trace_recode, "write a trace again with other bounds, codecs or chunks"},
              {NULL, NULL, NULL}};
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    FILE *f = argc < 2 ? stderr : stdout;
    fprintf(f, "usage: lbsim trace <command> [options]\n\ncommands:\n");
    for (int i = 0; subs[i].name; i++) fprintf(f, "  %-7s %s\n", subs[i].name, subs[i].help);
    return argc < 2 ? cli_usage("trace", "expected a command") : 0;
  }
  for (int i = 0; subs[i].name; i++)
    if (!strcmp(argv[1], subs[i].name)) {
      optind = 1;
      return subs[i].run(argc - 1, argv + 1);
    }
  return cli_unknown_sub("trace", "command", argv[1], "gen, info, check, export, import, recode");
}
