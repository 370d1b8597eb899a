/* cmd_export_vt.c - lbsim export vt: a replay as DARMA vt's LB data, one data.<proc>.json per
 * simulated processor, for vt-tv and LBAF (study/export_vt.c); `trace import --vt` reads it
 * back. The trace is replayed as lbsim replay does (same options, same answer), keeping the
 * assignment after every repartition; then rank 0 writes the files. */
#include <getopt.h>
#include <mpi.h>
#include <string.h>

#include "cli.h"
#include "cmd_export.h"
#include "lbs_export.h"
#include "lbs_mpi.h"

static const char *const CMD = "export vt";

static void usage(void) {
  printf(
      "usage: [mpirun -n R] lbsim export vt t.lbt --grid g.ini [replay options] -o DIR [-f]\n"
      "                      [--brotli]\n\n"
      "Replays the trace as 'lbsim replay' does (same options, same answer) and writes the run\n"
      "as DARMA vt's LB data (\"LBDatafile\" JSON), which vt-tv and LBAF open and\n"
      "'lbsim trace import --vt DIR' reads back:\n"
      "  DIR/data.P.json  one file per simulated processor P (0..P-1): metadata {type,\n"
      "                   rank P, phases.count, attributes}, then one phase per replayed step\n"
      "                   (id = the trace's step) listing the tasks P holds at that step\n"
      "  a task           an element: entity {seq_id = element id, home = its processor at\n"
      "                   the first step, migratable, index = its cell or whole-number\n"
      "                   coordinates}, node = its processor in the replay at that step (the\n"
      "                   policy's and partitioner's owners), time = the replayed metric in\n"
      "                   seconds (time_ns / 1e9; a metric that is not a time: its value, as\n"
      "                   metadata attributes say); a task absent at the step (no work,\n"
      "                   trace meta absent = zero_work) is not in that phase\n"
      "  communications   SendRecv between tasks, bytes = the arc's weight at the step\n"
      "                   (one per pair when both arcs weigh the same), messages 1; an\n"
      "                   imported vt run's node elements as the node end of\n"
      "                   CollectionToNode (task to node) or NodeToCollection\n"
      "Times are written as the shortest decimal that reads back as the same double, so an\n"
      "import of an export of a '--policy recorded' replay gives the trace's loads (whole\n"
      "ns), owners and arc weights back exactly.\n\n"
      "options (as lbsim replay):\n"
      "  --grid FILE, --partitioner NAME, --policy NAME, --mode bsp|des, --metric NAME,\n"
      "  --steps A:B (the replayed window), --cost model|measured|zero, --cost-scale X,\n"
      "  --part-fixed-us US, --part-per-elem-ns NS, --partition-metric NAME\n"
      "  --set SECTION.KEY=VAL  override a grid key, as in every command\n"
      "                         Each replay flag is the [sim] override it names (--policy X\n"
      "                         is --set sim.policy=X): the defaults, then the grid file's\n"
      "                         [sim], then the flags and --set from left to right (the later\n"
      "                         wins)\n"
      "  -o, --output DIR       the output directory: new, empty, or with -f one lbsim wrote\n"
      "  -f, --force            replace an earlier export vt in DIR\n"
      "  --brotli               brotli-compressed files (vt's compressed output; the names\n"
      "                         stay data.P.json, readers tell by content)\n"
      "  --json                 the summary as one JSON object on stdout\n\n"
      "examples:\n"
      "  lbsim export vt app.lbt --grid examples/grids/homogeneous16.ini --policy recorded -o lb\n"
      "  lbsim trace import --vt lb --bound lossless -o back.lbt   # the same loads and owners\n"
      "  lbsim trace gen --kind bump --mesh 16x8x8 --steps 20 -o bump.lbt\n"
      "  lbsim export vt bump.lbt --grid examples/grids/homogeneous16.ini --policy fixed:5 \\\n"
      "      --brotli -o bump-vt  # then: vt-tv or LBAF on bump-vt/data.*.json\n");
}

enum { O_BROTLI = 1100, O_JSON };

typedef struct {
  lbs_vtdata_opts o;
  int json;
} vt_args;

static int vt_opt(void *arg, int c, const char *optarg) {
  (void)optarg;
  vt_args *x = arg;
  if (c == O_BROTLI) return x->o.brotli = 1;
  if (c == O_JSON) return x->json = 1;
  return 0;
}

/* The summary as JSON: what was written where. */
static json_t *summary_json(const cli_outdir *od, const lbs_vtdata_summary *s,
                            const lbs_replay_result *res, int brotli) {
  json_t *o = json_object();
  int bad = !o || lbs_json_set(o, "dir", lbs_json_str(od->dir)) ||
            lbs_json_set(o, "files", lbs_json_int(s->files)) ||
            lbs_json_set(o, "phases", lbs_json_int(s->phases)) ||
            lbs_json_set(o, "tasks", lbs_json_int(s->tasks)) ||
            lbs_json_set(o, "node_elements", lbs_json_int(s->nodes)) ||
            lbs_json_set(o, "communications", lbs_json_int(s->comms)) ||
            lbs_json_set(o, "time_unit", json_string(s->seconds ? "s" : "metric")) ||
            lbs_json_set(o, "brotli", json_boolean(brotli)) ||
            lbs_json_set(o, "first_step", lbs_json_int(res->first_step)) ||
            lbs_json_set(o, "repartitions", lbs_json_int(res->nrep)) ||
            lbs_json_set(o, "moved_elements", lbs_json_int(res->moved));
  if (bad) json_decref(o);
  return bad ? NULL : o;
}

/* Rank 0: the files into the fresh directory, renamed into place, and the summary. Exit code. */
static int vt_write(const vt_args *x, cli_outdir *od, lbs_trace *t, const lbs_replay_result *res) {
  lbs_vtdata_summary sum;
  cli_progress prog;
  cli_progress_start(&prog, "writing", res->steps);
  lbs_vtdata_opts o = x->o;
  o.progress = cli_progress_cb, o.progress_arg = &prog;
  lbs_err e = LBS_OK;
  int rc = cli_outdir_begin(od);
  if (!rc) e = lbs_vtdata_write(t, res, &o, od->tmp, &sum);
  cli_progress_end(&prog);
  rc = rc || (e && cli_error(CMD, e)) || cli_outdir_commit(od);
  cli_outdir_abort(od);
  if (!rc && x->json)
    return cli_json_print(CMD, summary_json(od, &sum, res, o.brotli), LBS_JSON_COMPACT);
  if (!rc)
    printf("export        %s: %lld data.P.json files%s, %lld phases (steps %lld..%lld) of %lld "
           "tasks, %lld communications; %d repartitions, %lld moves%s\n",
           od->dir, (long long)sum.files, o.brotli ? " (brotli)" : "", (long long)sum.phases,
           (long long)res->first_step, (long long)(res->first_step + res->steps - 1),
           (long long)sum.tasks, (long long)sum.comms, res->nrep, (long long)res->moved,
           sum.seconds ? "" : "; time is the metric's value, not seconds");
  return rc;
}

int cmd_export_vt(int argc, char **argv) {
  static const struct option own[] = {
      {"brotli", no_argument, 0, O_BROTLI}, {"json", no_argument, 0, O_JSON}, {0, 0, 0, 0}};
  cli_export_args a = {.cmd = CMD};
  vt_args x = {{0}, 0};
  int rc = cli_export_parse(argc, argv, own, vt_opt, &x, usage, &a);
  if (rc) return cli_overrides_free(&a.over), rc < 0 ? 0 : rc;
  cli_mpi_init();
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  cli_outdir od;
  lbs_session s = {0};
  lbs_replay_result *res = NULL;
  if (cli_export_check(&a, CLI_DIR_VT, CMD, &od))
    rc = 1;
  else {
    lbs_err e = lbs_session_open(&s, a.trace, a.grid, (const char *const *)a.over.v, a.over.n);
    s.opts.save_assignment = 1;
    if (!e) e = cli_session_replay(&s, "replaying", "optimal's search", &res);
    if (e)
      rc = rank == 0 ? cli_error(CMD, e) : 1;
    else if (rank == 0)
      rc = vt_write(&x, &od, s.trace, res);
    rc = lbs_mpi_agree(MPI_COMM_WORLD, rc ? LBS_IO : LBS_OK) ? 1 : 0; /* rank 0's outputs */
  }
  lbs_replay_result_free(&res);
  lbs_session_close(&s);
  cli_overrides_free(&a.over);
  MPI_Finalize();
  return rc;
}
