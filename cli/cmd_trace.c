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

#define ENC_HELP                                                                               \
  "  --bound [M=]B    error bound, for every metric or for metric M (repeatable):\n"           \
  "                   rel:EPS    |x'-x| <= EPS |x| (keeps signs and zeros, bounds sums)\n"   \
  "                   abs:EPS    |x'-x| <= EPS\n"                                             \
  "                   range:EPS  |x'-x| <= EPS (max-min of the step)\n"                       \
  "                   lossless   bit-exact\n"                                                 \
  "                   (default %s)\n"                                                         \
  "  --codec [M=]C    auto (per chunk the smaller of polyline and quant, the default),\n"     \
  "                   polyline, quant or lossless\n"                                         \
  "  --chunk N        elements per chunk, the unit of partial decoding (default 8192)\n"      \
  "  -f, --force      replace the output file (a regular file only, never a directory or device)\n"

enum { O_BOUND = 1000, O_CODEC, O_CHUNK, O_JSON, O_CSV, O_STEPSDIR, O_STEP, O_STEPS, O_CHACO,
       O_COORDS, O_ORDER, O_ELEMB, O_EDGEB, O_KIND, O_MESH, O_SEED, O_BODIES, O_LEAF, O_THETA, O_DT,
       O_NOISE, O_NONFINITE, O_NOVALUES };

/* One --bound or --codec argument into the settings: 0, or 2 after a message naming the option. */
static int enc_set_add(enc_opts *o, const char *opt, const char *arg) {
  lbs_err e = !strcmp(opt, "--bound") ? lbs_encoding_add_bound(&o->enc, arg) : lbs_encoding_add_codec(&o->enc, arg);
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

/* Every per-metric setting must name a metric of the trace: 0, or 2 after the message. */
static int enc_check_names(const enc_opts *o, const char *const *names, int n) {
  if (!lbs_encoding_check_names(&o->enc, names, n)) return 0;
  fprintf(stderr, "lbsim: %s\n", lbs_errmsg());
  return 2;
}

/* Checks the output file before the work (see cli_check_output). */
static int check_output(const char *out, int force) {
  return cli_check_output(out, force ? CLI_OUT_FORCE : CLI_OUT_NEW);
}

#define ENC_LONGOPTS                                                                           \
  {"bound", required_argument, 0, O_BOUND}, {"codec", required_argument, 0, O_CODEC},         \
      {"chunk", required_argument, 0, O_CHUNK}, {"force", no_argument, 0, 'f'},               \
      {"output", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'}

/* ---------------------------------------------------------------- gen */

static int trace_gen(int argc, char **argv) {
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
  enc_opts eo = {0};
  lbs_gen_noise noise = {0, 0, 0};
  const char *kind = "bump", *out = NULL;
  long long nx = 30, ny = 20, nz = 20;
  int64_t steps = 300, seed = 1, bodies = 16384, leaf = 8;
  int steps_given = 0;
  double eb = 1024, gb = 64, theta = 0.7, dt = 1.0 / 128;
  lbs_order order = LBS_ORDER_NATURAL;
  int c, r;
  while ((c = getopt_long(argc, argv, "o:fh", lo, NULL)) != -1) {
    if ((r = enc_opt(c, optarg, &eo)) == 2) return 2;
    if (r) continue;
    switch (c) {
    case 'o': out = optarg; break;
    case O_KIND: kind = optarg; break;
    case O_MESH: {
      char tail;
      int n = sscanf(optarg, "%lldx%lldx%lld%c", &nx, &ny, &nz, &tail);
      if (n == 2) nz = 1;
      if ((n != 2 && n != 3) || nx < 1 || ny < 1 || nz < 1)
        return cli_usage("trace gen", "--mesh '%s' is not NXxNY or NXxNYxNZ", optarg);
      break;
    }
    case O_STEPS: if (cli_parse_i64("--steps", optarg, 1, 100000000, &steps)) return 2; steps_given = 1; break;
    case O_BODIES: if (cli_parse_i64("--bodies", optarg, 2, INT64_C(1) << 31, &bodies)) return 2; break;
    case O_LEAF: if (cli_parse_i64("--leaf", optarg, 1, 1024, &leaf)) return 2; break;
    case O_THETA: if (cli_parse_f64("--theta", optarg, 0.01, 1.99, &theta)) return 2; break;
    case O_DT: if (cli_parse_f64("--dt", optarg, 1e-9, 0.99, &dt)) return 2; break;
    case O_SEED: if (cli_parse_i64("--seed", optarg, 0, INT64_MAX, &seed)) return 2; break;
    case O_NOISE:
      if (lbs_gen_noise_parse(optarg, &noise)) {
        fprintf(stderr, "lbsim: option --noise: %s\n", lbs_errmsg());
        return 2;
      }
      break;
    case O_ELEMB: if (cli_parse_f64("--elem-bytes", optarg, 0, 1e15, &eb)) return 2; break;
    case O_EDGEB: if (cli_parse_f64("--edge-bytes", optarg, 0, 1e15, &gb)) return 2; break;
    case O_ORDER:
      if (!strcmp(optarg, "hilbert")) order = LBS_ORDER_HILBERT;
      else if (!strcmp(optarg, "natural")) order = LBS_ORDER_NATURAL;
      else return cli_usage("trace gen", "--order must be natural or hilbert");
      break;
    case 'h':
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
             "  --edge-bytes B   halo bytes per edge (default 64)\n" ENC_HELP
             "\nexamples:\n"
             "  lbsim trace gen --kind bump --mesh 30x20x20 --steps 300 -o bump.lbt\n"
             "  lbsim trace gen --kind hotspot --noise default --bound rel:0.01 -o noisy.lbt\n"
             "  lbsim trace gen --kind bump --bound time_ns=range:1e-3 --codec polyline -o b.lbt\n",
             LBS_GEN_NOISE_JITTER, LBS_GEN_NOISE_TICK, LBS_GEN_NOISE_SPIKES, LBS_BOUND_DEFAULT);
      return 0;
    default: return cli_usage("trace gen", "bad option");
    }
  }
  if (!out) return cli_usage("trace gen", "missing -o FILE");
  if (optind < argc) return cli_usage("trace gen", "unexpected argument '%s'", argv[optind]);
  if (check_output(out, eo.force)) return 1;
  if (!strcmp(kind, "nbody")) {
    lbs_nbody_params np = {bodies, steps_given ? steps : 10, (uint64_t)seed, (int)leaf, theta, dt};
    if (eo.enc.nset || eo.chunk)
      return cli_usage("trace gen", "the nbody workload is stored losslessly in its own chunks: no --bound, --codec or --chunk");
    if (cli_replace_output(out, eo.force)) return 1;
    cli_progress p;
    cli_progress_start(&p, "integrating", np.steps);
    lbs_err e = lbs_nbody_trace(&np, out, cli_progress_cb, &p);
    cli_progress_end(&p);
    if (e) return cli_error(out, e);
    fprintf(stderr, "lbsim: wrote %s: %lld bodies, %lld steps\n", out, (long long)bodies, (long long)np.steps);
    return 0;
  }
  lbs_gen_params gp = {kind, nx, ny, nz, steps, (uint64_t)seed, noise};
  lbs_gen *g = NULL;
  lbs_err e = lbs_gen_create(&gp, &g);
  if (e) return e == LBS_NOMEM ? cli_error("trace gen", e) : cli_usage("trace gen", "%s", lbs_errmsg()); /* the flags' */
  lbs_metric_spec ms[LBS_GEN_MAX_METRICS];
  int rc = 0;
  if (lbs_gen_metric_specs(g, &eo.enc, ms)) {
    fprintf(stderr, "lbsim: %s\n", lbs_errmsg());
    rc = 2;
  } else if (cli_replace_output(out, eo.force)) {
    rc = 1;
  } else {
    lbs_gen_write_opts wo = {order, eb, gb, eo.chunk, &eo.enc};
    cli_progress p;
    cli_progress_start(&p, "generating", steps);
    e = lbs_gen_write_trace(g, &wo, out, cli_progress_cb, &p);
    cli_progress_end(&p);
    if (e) rc = cli_error(out, e);
    else
      fprintf(stderr, "lbsim: wrote %s: %lld elements, %lld steps (%s)\n", out, (long long)lbs_gen_elements(g),
              (long long)steps, lbs_gen_recipe(g));
  }
  lbs_gen_destroy(&g);
  return rc;
}

/* ---------------------------------------------------------------- info */

/* The warning for a range-relative bound whose range outliers set: the bound then lets every
 * value move by more than a typical value's share. Empty when there is nothing to say. */
static void range_warning(const lbs_metric_info *mi, const lbs_value_stats *vs, char *buf, size_t len) {
  buf[0] = '\0';
  if (mi->bound.kind != LBS_BOUND_RANGE || !(vs->median > 0)) return;
  double tol = mi->bound.eps * vs->max_step_range;
  if (!(tol > 0.05 * vs->median)) return;
  char b[LBS_BOUND_STRLEN];
  snprintf(buf, len,
           "metric '%s': the bound %s lets a value move by up to %.4g, %.3gx the median value %.4g, "
           "because outliers set each step's range (max %.4g, p99 %.4g); the replay sums these "
           "errors over every part: use a pointwise bound such as %s",
           mi->name, lbs_bound_format(mi->bound, b), tol, tol / vs->median, vs->median, vs->max, vs->p99,
           LBS_BOUND_DEFAULT);
}

/* A measured error: null when not known. */
static json_t *json_known(int known, double v) { return known ? lbs_json_real(v) : json_null(); }

/* Every stored codec in id order (lbs_codec_at), joined by '/': its initial when counts is NULL
 * (the text's "l/p/q" header), else its count of chunks ("12/0/3", a metric's cell). */
static const char *codec_column(char *buf, size_t n, const int64_t *counts) {
  size_t at = 0;
  buf[0] = '\0';
  for (int k = 0; k < lbs_codec_count() && at < n; k++) {
    const char *sep = k ? "/" : "";
    int w = counts ? snprintf(buf + at, n - at, "%s%lld", sep, (long long)counts[k])
                   : snprintf(buf + at, n - at, "%s%c", sep, lbs_codec_name(lbs_codec_at(k))[0]);
    at += w > 0 ? (size_t)w : 0;
  }
  return buf;
}

/* --json's chunks of one metric: each stored codec's name and its chunks, in id order. 0, or -1
 * when out of memory. */
static int json_codec_chunks(json_t *chunks, const int64_t *counts) {
  for (int k = 0; k < lbs_codec_count(); k++)
    if (lbs_json_set(chunks, lbs_codec_name(lbs_codec_at(k)), lbs_json_int(counts[k]))) return -1;
  return 0;
}

/* The four errors the writer measured. 0, or -1 when out of memory. */
static int json_errors(json_t *o, const lbs_trace_stats *st) {
  return lbs_json_set(o, "max_abs_error", json_known(st->has_error, st->max_abs_error)) ||
         lbs_json_set(o, "rms_error", json_known(st->has_error, st->rms_error)) ||
         lbs_json_set(o, "max_rel_error",
                      json_known(st->has_error && !isnan(st->max_rel_error), st->max_rel_error)) ||
         lbs_json_set(o, "max_sum_error", json_known(st->has_sum_error, st->max_sum_error));
}

static int trace_info(int argc, char **argv) {
  static const struct option lo[] = {{"json", no_argument, 0, O_JSON},
                                     {"no-values", no_argument, 0, O_NOVALUES},
                                     {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  int json = 0, novalues = 0, c;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    if (c == O_JSON) json = 1;
    else if (c == O_NOVALUES) novalues = 1;
    else if (c == 'h') {
      printf("usage: lbsim trace info t.lbt [--json] [--no-values]\n\n"
             "Elements, steps, mesh, metrics with their error bound and codecs, sizes and the\n"
             "compression ratio, the errors the writer measured against its input (largest\n"
             "absolute and relative error, worst chunk sum), and the stored values of each\n"
             "metric over all steps: min, median, p99, max, negative and non-finite counts\n"
             "(one pass over the trace, two or more for the exact quantiles; --no-values skips\n"
             "it). Warns when a range-relative bound meets outlier-dominated ranges.\n\n"
             "examples:\n  lbsim trace info run.lbt\n  lbsim trace info run.lbt --json | jq .metrics\n");
      return 0;
    } else return cli_usage("trace info", "bad option");
  }
  if (optind != argc - 1) return cli_usage("trace info", "expected one trace file");
  const char *path = argv[optind];
  lbs_trace *t;
  lbs_err e = lbs_trace_open(path, &t);
  if (e) return cli_error("trace info", e);
  int nm = lbs_trace_nmetrics(t), nc = lbs_codec_count();
  lbs_trace_stats all, *ms = calloc((size_t)nm, sizeof *ms);
  lbs_value_stats *vs = calloc((size_t)nm, sizeof *vs);
  char (*warn)[600] = calloc((size_t)nm, sizeof *warn);
  int64_t *cc = calloc((size_t)nm * (size_t)nc + 1, sizeof *cc); /* chunks per metric and codec */
  if (!ms || !vs || !warn || !cc) e = lbs_fail(LBS_NOMEM, "statistics");
  if (!e) e = lbs_trace_get_stats(t, -1, &all);
  for (int m = 0; m < nm && !e; m++) e = lbs_trace_get_stats(t, m, &ms[m]);
  for (int m = 0; m < nm && !e; m++) e = lbs_trace_codec_chunks(t, m, cc + (size_t)m * nc, nc);
  /* the values: a damaged chunk ends the scan, not the report (the error comes last) */
  char values_error[1024] = "";
  for (int m = 0; m < nm && !e && !novalues; m++) {
    lbs_metric_info mi;
    lbs_trace_metric(t, m, &mi);
    cli_progress p;
    char label[80];
    snprintf(label, sizeof label, "values of %s", mi.name);
    cli_progress_start(&p, label, lbs_trace_steps(t));
    lbs_err ev = lbs_trace_value_stats(t, m, cli_progress_cb, &p, &vs[m]);
    cli_progress_end(&p);
    if (ev) {
      snprintf(values_error, sizeof values_error, "%s", lbs_errmsg());
      novalues = 1;
    } else {
      range_warning(&mi, &vs[m], warn[m], sizeof warn[m]);
    }
  }
  if (e) {
    free(ms), free(vs), free(warn), free(cc);
    lbs_trace_close(&t);
    return cli_error("trace info", e);
  }
  int64_t file = lbs_trace_file_bytes(t), E = lbs_trace_elements(t), S = lbs_trace_steps(t);
  lbs_mesh *mesh = lbs_trace_mesh(t);
  char meshdesc[128] = "none";
  if (mesh && lbs_mesh_get_kind(mesh) == LBS_MESH_STRUCTURED) {
    int64_t d[3];
    lbs_mesh_dims(mesh, d);
    snprintf(meshdesc, sizeof meshdesc, "structured %lldx%lldx%lld (%s order)", (long long)d[0],
             (long long)d[1], (long long)d[2],
             lbs_mesh_order(mesh) == LBS_ORDER_HILBERT ? "hilbert" : "natural");
  } else if (mesh) {
    const int64_t *xadj, *adj;
    const double *w;
    lbs_mesh_graph(mesh, &xadj, &adj, &w);
    snprintf(meshdesc, sizeof meshdesc, "unstructured, %lld %sedges", (long long)xadj[E],
             lbs_mesh_directed(mesh) ? "directed " : "");
  }
  const char *src = lbs_trace_meta(t, "source");
  double ratio = file > 0 ? (double)all.raw_bytes / (double)file : NAN;
  int rc = 0;
  if (json) {
    json_t *o = json_object(), *metrics = json_array(), *warnings = json_array();
    int bad = lbs_json_set(o, "path", lbs_json_str(path)) ||
              lbs_json_set(o, "elements", lbs_json_int(E)) ||
              lbs_json_set(o, "steps", lbs_json_int(S)) ||
              lbs_json_set(o, "chunk_elems", lbs_json_int(lbs_trace_chunk_elems(t))) ||
              lbs_json_set(o, "schema_version", lbs_json_int(lbs_trace_schema_version(t))) ||
              lbs_json_set(o, "mesh", lbs_json_str(meshdesc)) ||
              lbs_json_set(o, "source", lbs_json_str_or_null(src));
    /* a profiled run: how it ended (profiler.* keys, see profiler/collector.c) */
    static const char *const pk[] = {"ranks", "nodes", "sample_every", "on_full", "bound", "complete",
                                     "dropped_steps", "incomplete_steps", "lost_ranks"};
    if (!bad && lbs_trace_meta(t, "profiler.ranks")) {
      json_t *prof = json_object();
      bad = lbs_json_set(o, "profiler", json_incref(prof));
      for (size_t k = 0; !bad && k < sizeof pk / sizeof *pk; k++) {
        char key[64];
        snprintf(key, sizeof key, "profiler.%s", pk[k]);
        bad = lbs_json_set(prof, pk[k], lbs_json_str_or_null(lbs_trace_meta(t, key)));
      }
      json_decref(prof);
    }
    /* the application's own keys (lbsprof_meta: app.*) */
    json_t *app = NULL;
    for (int k = 0; !bad && k < lbs_trace_meta_count(t); k++) {
      const char *key = lbs_trace_meta_key(t, k);
      if (strncmp(key, "app.", 4)) continue;
      if (!app) bad = lbs_json_set(o, "app", json_incref(app = json_object()));
      if (!bad) bad = lbs_json_set(app, key + 4, lbs_json_str(lbs_trace_meta(t, key)));
    }
    json_decref(app);
    if (!bad) bad = lbs_json_set(o, "metrics", json_incref(metrics));
    for (int m = 0; !bad && m < nm; m++) {
      lbs_metric_info mi;
      char b[LBS_BOUND_STRLEN];
      lbs_trace_metric(t, m, &mi);
      json_t *x = json_object(), *chunks = json_object();
      bad = json_array_append_new(metrics, x) || lbs_json_set(x, "name", lbs_json_str(mi.name)) ||
            lbs_json_set(x, "unit", lbs_json_str(mi.unit)) ||
            lbs_json_set(x, "codec", json_string(lbs_codec_name(mi.codec))) ||
            lbs_json_set(x, "bound", lbs_json_str(lbs_bound_format(mi.bound, b))) ||
            lbs_json_set(x, "error_bound", lbs_json_real(mi.bound.eps)) ||
            lbs_json_set(x, "chunks", json_incref(chunks));
      if (!bad) bad = json_codec_chunks(chunks, cc + (size_t)m * nc);
      json_decref(chunks);
      if (!bad)
        bad = lbs_json_set(x, "chunk_bytes", lbs_json_int(ms[m].stored_bytes)) ||
              json_errors(x, &ms[m]);
      if (!bad && novalues)
        bad = lbs_json_set(x, "values", json_null());
      else if (!bad)
        bad = lbs_json_set(
            x, "values",
            json_pack("{s:I,s:I,s:I,s:I,s:I,s:o,s:o,s:o,s:o}", "count", (json_int_t)vs[m].values,
                      "finite", (json_int_t)vs[m].finite, "negative", (json_int_t)vs[m].negative,
                      "zero", (json_int_t)vs[m].zero, "nonfinite", (json_int_t)vs[m].nonfinite,
                      "min", lbs_json_real(vs[m].min), "median", lbs_json_real(vs[m].median), "p99",
                      lbs_json_real(vs[m].p99), "max", lbs_json_real(vs[m].max)));
    }
    if (!bad)
      bad = lbs_json_set(o, "raw_bytes", lbs_json_int(all.raw_bytes)) ||
            lbs_json_set(o, "stored_bytes", lbs_json_int(file)) ||
            lbs_json_set(o, "chunk_bytes", lbs_json_int(all.stored_bytes)) ||
            lbs_json_set(o, "ratio", lbs_json_real(ratio)) || json_errors(o, &all) ||
            lbs_json_set(o, "warnings", json_incref(warnings));
    for (int m = 0; !bad && m < nm; m++)
      if (warn[m][0]) bad = json_array_append_new(warnings, lbs_json_str(warn[m]));
    json_decref(metrics), json_decref(warnings);
    if (bad) json_decref(o), o = NULL;
    rc = cli_json_print("trace info", o, LBS_JSON_COMPACT, LBS_JSON_EXACT);
  } else {
    printf("trace     %s\nelements  %lld\nsteps     %lld", path, (long long)E, (long long)S);
    if (S > 0) {
      int64_t a0, a1;
      lbs_trace_app_step(t, 0, &a0);
      lbs_trace_app_step(t, S - 1, &a1);
      printf(" (application steps %lld..%lld)", (long long)a0, (long long)a1);
    }
    printf("\nmesh      %s\nchunks    %lld elements each, %lld stored\nsource    %s\n", meshdesc,
           (long long)lbs_trace_chunk_elems(t), (long long)all.chunks, src ? src : "unknown");
    if (lbs_trace_meta(t, "profiler.ranks")) {
      const char *c = lbs_trace_meta(t, "profiler.complete"), *d = lbs_trace_meta(t, "profiler.dropped_steps");
      const char *i = lbs_trace_meta(t, "profiler.incomplete_steps"), *l = lbs_trace_meta(t, "profiler.lost_ranks");
      printf("profiler  ranks %s, nodes %s, sample_every %s: %s; steps dropped %s, incomplete %s; ranks lost %s\n",
             lbs_trace_meta(t, "profiler.ranks"), lbs_trace_meta(t, "profiler.nodes") ? lbs_trace_meta(t, "profiler.nodes") : "?",
             lbs_trace_meta(t, "profiler.sample_every") ? lbs_trace_meta(t, "profiler.sample_every") : "?",
             c && !strcmp(c, "yes") ? "complete" : c ? "did not end cleanly" : "still being written",
             d ? d : "?", i ? i : "?", l ? l : "?");
    }
    for (int k = 0, n = 0; k < lbs_trace_meta_count(t); k++) {
      const char *key = lbs_trace_meta_key(t, k);
      if (!strncmp(key, "app.", 4)) printf("%s%s=%s", n++ ? ", " : "app       ", key + 4, lbs_trace_meta(t, key));
      if (n && (k + 1 == lbs_trace_meta_count(t) || strncmp(lbs_trace_meta_key(t, k + 1), "app.", 4))) {
        printf("\n");
        break;
      }
    }
    printf("size      %lld bytes raw, %lld bytes on disk (ratio %.1f), %lld in chunks\n",
           (long long)all.raw_bytes, (long long)file, ratio, (long long)all.stored_bytes);
    char head[128], col[96];
    /* "chunks l/p/q": each codec's initial, in id order */
    snprintf(head, sizeof head, "chunks %s", codec_column(col, sizeof col, NULL));
    printf("metrics\n  %-12s %-6s %-14s %-9s %-16s %11s %10s %9s %9s\n", "name", "unit", "bound",
           "codec", head, "chunk bytes", "max error", "max rel", "sum err");
    for (int m = 0; m < nm; m++) {
      lbs_metric_info mi;
      char b[LBS_BOUND_STRLEN], e1[16] = "unknown", e2[16] = "unknown", e3[16] = "unknown";
      lbs_trace_metric(t, m, &mi);
      codec_column(col, sizeof col, cc + (size_t)m * nc);
      if (ms[m].has_error) snprintf(e1, sizeof e1, "%.4g", ms[m].max_abs_error);
      if (ms[m].has_error && !isnan(ms[m].max_rel_error)) snprintf(e2, sizeof e2, "%.3g", ms[m].max_rel_error);
      if (ms[m].has_sum_error) snprintf(e3, sizeof e3, "%.2g", ms[m].max_sum_error);
      printf("  %-12s %-6s %-14s %-9s %-16s %11lld %10s %9s %9s\n", mi.name, mi.unit,
             lbs_bound_format(mi.bound, b), lbs_codec_name(mi.codec), col,
             (long long)ms[m].stored_bytes, e1, e2, e3);
    }
    if (!novalues) {
      printf("values    stored, over all steps\n  %-12s %12s %12s %12s %12s %9s %9s\n", "name", "min", "median",
             "p99", "max", "negative", "nonfinite");
      for (int m = 0; m < nm; m++) {
        lbs_metric_info mi;
        lbs_trace_metric(t, m, &mi);
        printf("  %-12s %12.5g %12.5g %12.5g %12.5g %9lld %9lld\n", mi.name, vs[m].min, vs[m].median, vs[m].p99,
               vs[m].max, (long long)vs[m].negative, (long long)vs[m].nonfinite);
      }
    }
  }
  for (int m = 0; m < nm; m++)
    if (warn[m][0]) fprintf(stderr, "lbsim: warning: %s\n", warn[m]);
  free(ms), free(vs), free(warn), free(cc);
  lbs_trace_close(&t);
  if (values_error[0]) {
    fprintf(stderr, "lbsim: trace info: the values could not be read: %s ('lbsim trace check' lists the damage)\n",
            values_error);
    return 1;
  }
  return rc;
}

/* ---------------------------------------------------------------- check */

static int trace_check(int argc, char **argv) {
  static const struct option lo[] = {{"json", no_argument, 0, O_JSON}, {"help", no_argument, 0, 'h'},
                                     {"no-source", no_argument, 0, 'n'}, {0, 0, 0, 0}};
  int json = 0, nosrc = 0, c;
  while ((c = getopt_long(argc, argv, "hn", lo, NULL)) != -1) {
    if (c == O_JSON) json = 1;
    else if (c == 'n') nosrc = 1;
    else if (c == 'h') {
      printf("usage: lbsim trace check t.lbt [--json] [--no-source]\n\n"
             "Verifies the SQLite file, the structure (every chunk of every metric of every\n"
             "step, with its element range), every CRC-32 and that every chunk decodes. When\n"
             "the trace records a generator recipe, regenerates the source and checks every\n"
             "value against the error bound (skip with --no-source). Exit 1 names the bad\n"
             "step, metric and chunk.\n");
      return 0;
    } else return cli_usage("trace check", "bad option");
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
                     LBS_JSON_COMPACT, LBS_JSON_EXACT);
    return cli_error("trace check", e);
  }
  if (json)
    return cli_json_print(
        "trace check",
        json_pack("{s:b,s:I,s:i,s:b,s:o,s:o,s:o}", "ok", 1, "steps", (json_int_t)S, "metrics", nm,
                  "source_checked", sc.checked, "max_abs_error", lbs_json_real(sc.max_abs_error), "max_rel_error",
                  lbs_json_real(sc.max_rel_error), "max_sum_error", lbs_json_real(sc.max_sum_error)),
        LBS_JSON_COMPACT, LBS_JSON_EXACT);
  printf("%s: ok: %lld steps x %d metrics verified", path, (long long)S, nm);
  if (sc.checked)
    printf("; against the source: max error %.4g (%.3g of range), worst chunk sum %.2g", sc.max_abs_error,
           sc.max_rel_error, sc.max_sum_error);
  printf("\n");
  return 0;
}

/* ---------------------------------------------------------------- export */

static int parse_steps(const char *arg, int64_t *first, int64_t *n) {
  long long a, b;
  char tail;
  if (sscanf(arg, "%lld:%lld%c", &a, &b, &tail) == 2 && a >= 0 && b >= a) {
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
  while ((c = getopt_long(argc, argv, "fh", lo, NULL)) != -1) {
    switch (c) {
    case 'f': force = 1; break;
    case O_CSV: csv = optarg; break;
    case O_STEPSDIR: dir = optarg; break;
    case O_STEP:
      if (cli_parse_i64("--step", optarg, 0, INT64_MAX, &first)) return 2;
      n = 1;
      break;
    case O_STEPS:
      if (parse_steps(optarg, &first, &n)) return cli_usage("trace export", "--steps wants A:B (steps A..B-1)");
      break;
    case 'h':
      printf("usage: lbsim trace export t.lbt --csv DIR | --steps-dir DIR [--step N | --steps A:B]\n"
             "                          [-f]\n\n"
             "  --csv DIR        DIR/steps.csv (step,app_step,element,<metrics>) and\n"
             "                   DIR/elements.csv (element,x,y,z[,i,j,k])\n"
             "  --steps-dir DIR  one file per step plus a manifest (format in README.md)\n"
             "  --step N         only step N (0-based); --steps A:B steps A..B-1\n"
             "  -f, --force      replace DIR when it holds an earlier output of lbsim\n\n"
             "DIR is written fresh beside it and renamed into place when complete; an existing\n"
             "DIR must be empty, or with --force hold only files lbsim writes there.\n");
      return 0;
    default: return cli_usage("trace export", "bad option");
    }
  }
  if (optind != argc - 1) return cli_usage("trace export", "expected one trace file");
  if (!csv == !dir) return cli_usage("trace export", "give exactly one of --csv and --steps-dir");
  cli_outdir od;
  if (cli_outdir_check(&od, csv ? csv : dir, force)) return 1;
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

static int trace_import(int argc, char **argv) {
  static const struct option lo[] = {ENC_LONGOPTS,
                                     {"steps-dir", required_argument, 0, O_STEPSDIR},
                                     {"chaco", required_argument, 0, O_CHACO},
                                     {"coords", required_argument, 0, O_COORDS},
                                     {"allow-nonfinite", no_argument, 0, O_NONFINITE},
                                     {0, 0, 0, 0}};
  enc_opts eo = {0};
  const char *dir = NULL, *chaco = NULL, *coords = NULL, *out = NULL;
  int c, r;
  while ((c = getopt_long(argc, argv, "o:fh", lo, NULL)) != -1) {
    if ((r = enc_opt(c, optarg, &eo)) == 2) return 2;
    if (r) continue;
    switch (c) {
    case 'o': out = optarg; break;
    case O_STEPSDIR: dir = optarg; break;
    case O_CHACO: chaco = optarg; break;
    case O_COORDS: coords = optarg; break;
    case O_NONFINITE: eo.allow_nonfinite = 1; break;
    case 'h':
      printf("usage: lbsim trace import --steps-dir DIR | --chaco G.graph [--coords G.coords] -o t.lbt\n\n"
             "  --steps-dir DIR  a one-file-per-step directory of measured values (format in\n"
             "                   README.md), stored within the default bound %s\n"
             "  --chaco G        a Chaco/METIS graph: one step whose metric 'weight' holds the\n"
             "                   vertex weights (weight0.. with several constraints), lossless;\n"
             "                   what Zoltan's reader forgives (self loops, an m counting both\n"
             "                   directions, no lines for trailing isolated vertices) is taken\n"
             "                   with a warning\n"
             "  --coords C       vertex coordinates for the graph, one line per vertex\n"
             "  --allow-nonfinite  import NaN and infinite values with a warning (default: an\n"
             "                   error naming the file, line and metric)\n" ENC_HELP
             "\nexamples:\n"
             "  lbsim trace import --steps-dir profile/ --bound lossless -o lossless.lbt\n"
             "  lbsim trace import --chaco hammond.graph --coords hammond.coords -o hammond.lbt\n",
             LBS_BOUND_DEFAULT, "rel:0.005 for a steps directory, lossless for a Chaco graph");
      return 0;
    default: return cli_usage("trace import", "bad option");
    }
  }
  if (!out) return cli_usage("trace import", "missing -o FILE");
  if (!dir == !chaco) return cli_usage("trace import", "give exactly one of --steps-dir and --chaco");
  if (coords && !chaco) return cli_usage("trace import", "--coords goes with --chaco");
  if (optind < argc) return cli_usage("trace import", "unexpected argument '%s'", argv[optind]);
  if (check_output(out, eo.force)) return 1;
  lbs_err e;
  if (dir) {
    /* one codec and bound for every metric: per-metric settings need the names first */
    if (lbs_encoding_per_metric(&eo.enc))
      return cli_usage("trace import", "--steps-dir takes one --bound and --codec for every metric");
    lbs_bound dflt;
    lbs_bound_parse(LBS_BOUND_DEFAULT, &dflt);
    lbs_import_opts io = {LBS_CODEC_DEFAULT, dflt, eo.chunk, eo.allow_nonfinite, 0};
    if (enc_resolve(&eo, "*", LBS_CODEC_DEFAULT, dflt, &io.codec, &io.bound)) return 2;
    if (cli_replace_output(out, eo.force)) return 1;
    e = lbs_stepsdir_import(dir, out, &io);
    if (!e && io.nonfinite)
      fprintf(stderr, "lbsim: warning: %s: %lld NaN or infinite values imported as they are\n", dir,
              (long long)io.nonfinite);
  } else {
    lbs_mesh *mesh = NULL;
    double *vw = NULL;
    int ncon = 0;
    lbs_chaco_notes notes;
    e = lbs_chaco_read(chaco, coords, &mesh, &vw, &ncon, &notes);
    for (int i = 0; !e && i < notes.nwarn; i++) fprintf(stderr, "lbsim: warning: %s\n", notes.warning[i]);
    int rc = 0;
    if (!e && lbs_chaco_check_encoding(ncon, &eo.enc)) {
      fprintf(stderr, "lbsim: %s\n", lbs_errmsg());
      rc = 2;
    } else if (!e && cli_replace_output(out, eo.force)) { /* the old trace goes once the input is read */
      rc = 1;
    } else if (!e) {
      e = lbs_chaco_write_trace(chaco, mesh, vw, ncon, &eo.enc, eo.chunk, out);
    }
    free(vw);
    lbs_mesh_destroy(&mesh);
    if (rc) return rc;
  }
  if (e) return cli_error("trace import", e);
  fprintf(stderr, "lbsim: wrote %s\n", out);
  return 0;
}

/* ---------------------------------------------------------------- recode */

/* Metadata the writer sets itself, or that describes the stored chunks: not copied. */
static int own_meta(const char *key) {
  static const char *const own[] = {"format", "schema_version", "elements", "chunk_elems", NULL};
  for (int i = 0; own[i]; i++)
    if (!strcmp(key, own[i])) return 1;
  return !strncmp(key, "mesh.", 5);
}

static int trace_recode(int argc, char **argv) {
  static const struct option lo[] = {ENC_LONGOPTS, {0, 0, 0, 0}};
  enc_opts eo = {0};
  const char *out = NULL;
  int c, r;
  while ((c = getopt_long(argc, argv, "o:fh", lo, NULL)) != -1) {
    if ((r = enc_opt(c, optarg, &eo)) == 2) return 2;
    if (r) continue;
    switch (c) {
    case 'o': out = optarg; break;
    case 'h':
      printf("usage: lbsim trace recode in.lbt -o out.lbt [--bound [M=]B] [--codec [M=]C] [--chunk N]\n\n"
             "Writes the trace again with other error bounds, codecs or chunk size: profile\n"
             "losslessly, decide the compaction later. The metadata, the mesh and the steps are\n"
             "kept. The bound applies to the values read (a lossy input's errors add up). A\n"
             "damaged input stops at the bad chunk, named, and the output keeps the steps\n"
             "before it.\n\noptions:\n"
             ENC_HELP
             "\nexamples:\n"
             "  lbsim trace recode run.lbt -o small.lbt                      # default bound\n"
             "  lbsim trace recode run.lbt -o small.lbt --bound time_ns=rel:0.01\n"
             "  lbsim trace recode old.lbt -o new.lbt --bound lossless       # schema upgrade\n",
             LBS_BOUND_DEFAULT " for every metric");
      return 0;
    default: return cli_usage("trace recode", "bad option");
    }
  }
  if (!out) return cli_usage("trace recode", "missing -o FILE");
  if (optind != argc - 1) return cli_usage("trace recode", "expected one input trace");
  const char *in = argv[optind];
  struct stat si, so;
  if (stat(in, &si) == 0 && stat(out, &so) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
    fprintf(stderr, "lbsim: trace recode: %s is the input trace; write to another file\n", out);
    return 1;
  }
  if (check_output(out, eo.force)) return 1;
  lbs_trace *t;
  lbs_err e = lbs_trace_open(in, &t);
  if (e) return cli_error("trace recode", e);
  int nm = lbs_trace_nmetrics(t), rc = 0;
  int64_t E = lbs_trace_elements(t), S = lbs_trace_steps(t);
  lbs_metric_spec *ms = calloc((size_t)nm, sizeof *ms);
  const char **names = calloc((size_t)nm, sizeof *names), **meta = NULL;
  double *vals = malloc((size_t)(E * nm) * sizeof *vals);
  const double **cols = calloc((size_t)nm, sizeof *cols);
  lbs_trace_writer *w = NULL;
  lbs_bound dflt;
  lbs_bound_parse(LBS_BOUND_DEFAULT, &dflt);
  if (!ms || !names || !vals || !cols) {
    e = lbs_fail(LBS_NOMEM, "%lld elements", (long long)E);
    goto fail;
  }
  for (int m = 0; m < nm && !rc; m++) {
    lbs_metric_info mi;
    lbs_trace_metric(t, m, &mi);
    names[m] = mi.name;
    ms[m] = (lbs_metric_spec){mi.name, mi.unit, LBS_CODEC_DEFAULT, dflt, {0, 0}};
    rc = enc_resolve(&eo, mi.name, LBS_CODEC_DEFAULT, dflt, &ms[m].codec, &ms[m].bound);
    cols[m] = vals + (int64_t)m * E;
  }
  if (rc || (rc = enc_check_names(&eo, names, nm))) goto done;
  /* the input's metadata, less what the writer sets itself; where it came from */
  int nmeta = lbs_trace_meta_count(t);
  meta = calloc((size_t)(2 * nmeta + 2), sizeof *meta);
  if (!meta) {
    e = lbs_fail(LBS_NOMEM, "metadata");
    goto fail;
  }
  /* `source` lets trace check regenerate the values: it stays only when the input held them
   * exactly (else the check would count the input's errors too); kept as recoded_source */
  int k = 0, exact = 1;
  for (int m = 0; m < nm; m++) {
    lbs_metric_info mi;
    lbs_trace_metric(t, m, &mi);
    exact &= mi.bound.kind == LBS_BOUND_LOSSLESS;
  }
  for (int i = 0; i < nmeta; i++) {
    const char *key = lbs_trace_meta_key(t, i);
    if (own_meta(key) || !strcmp(key, "recoded_from") || (!exact && !strcmp(key, "recoded_source"))) continue;
    meta[2 * k] = !exact && !strcmp(key, "source") ? "recoded_source" : key, meta[2 * k + 1] = lbs_trace_meta(t, key), k++;
  }
  meta[2 * k] = "recoded_from", meta[2 * k + 1] = in, k++;
  if (cli_replace_output(out, eo.force)) {
    rc = 1;
    goto done;
  }
  lbs_trace_spec spec = {E, eo.chunk ? eo.chunk : lbs_trace_chunk_elems(t), nm, ms, lbs_trace_mesh(t), k, meta};
  if ((e = lbs_trace_create(out, &spec, &w))) goto fail;
  cli_progress p;
  cli_progress_start(&p, "recoding", S);
  int64_t s;
  for (s = 0; s < S && !e; s++) {
    int64_t app;
    lbs_trace_app_step(t, s, &app);
    for (int m = 0; m < nm && !e; m++) e = lbs_trace_read(t, s, m, 0, E, vals + (int64_t)m * E);
    if (e) {
      char why[1024];
      snprintf(why, sizeof why, "%s", lbs_errmsg());
      lbs_trace_writer_close(&w);
      cli_progress_end(&p);
      fprintf(stderr, "lbsim: trace recode: %s; %s keeps the %lld steps before it\n", why, out, (long long)s);
      rc = 1;
      goto done;
    }
    e = lbs_trace_write_step(w, app, cols);
    cli_progress_update(&p, s + 1);
  }
  cli_progress_end(&p);
  if (e || (e = lbs_trace_writer_close(&w))) goto fail;
  struct stat sb;
  fprintf(stderr, "lbsim: wrote %s: %lld steps, %lld bytes (from %lld)\n", out, (long long)S,
          stat(out, &sb) ? -1LL : (long long)sb.st_size, (long long)lbs_trace_file_bytes(t));
  goto done;
fail:
  rc = cli_error("trace recode", e);
done:
  lbs_trace_writer_close(&w);
  free(ms), free(names), free(vals), free(cols), free(meta);
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
              {"import", trace_import, "read a one-file-per-step directory or a Chaco graph"},
              {"recode", trace_recode, "write a trace again with other bounds, codecs or chunks"},
              {NULL, NULL, NULL}};
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    FILE *f = argc < 2 ? stderr : stdout;
    fprintf(f, "usage: lbsim trace <command> [options]\n\ncommands:\n");
    for (int i = 0; subs[i].name; i++) fprintf(f, "  %-7s %s\n", subs[i].name, subs[i].help);
    return argc < 2 ? 2 : 0;
  }
  for (int i = 0; subs[i].name; i++)
    if (!strcmp(argv[1], subs[i].name)) {
      optind = 1;
      return subs[i].run(argc - 1, argv + 1);
    }
  fprintf(stderr, "lbsim: trace: unknown command '%s' (known: gen, info, check, export, import, recode)\n", argv[1]);
  return 2;
}
