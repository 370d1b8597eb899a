/* setup.c - the replay engine's setup: options against the trace and grid, where the elements
 * go, this rank's mesh rows and ghosts, the partitioner and its mode, the memory check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

/* What a run holds per element besides the engine's own arrays (counted in check_memory), as
 * measured with VmHWM on a 4.1M-element bump trace (bench/RESULTS.md, "Memory per rank"): a
 * partitioner's working set per object it is given (Zoltan's copies, lists and RCB's dots:
 * 78 bytes) and per graph arc (Scotch through zoltan:graph: about 100 bytes), the gather's
 * arrays on rank 0 per object (partition_mode rank0), and the process itself. */
#define BYTES_PART_OBJ 80.0
#define BYTES_PART_ARC 100.0
#define BYTES_GATHER_OBJ 48.0
#define BYTES_PROCESS 30e6
#define MEMORY_MARGIN 1.1 /* what the estimate may miss */

void lbs__engine_free(lbs__engine *x) {
  lbs_part_destroy(&x->part);
  lbs_policy_destroy(&x->policy);
  lbs__ovl_free(x);
  lbs_net_destroy(&x->net);
  lbs_grid_destroy(&x->live);
  lbs_grid_destroy(&x->live_nav);
  lbs_mesh_rows_free(&x->rows);
  free(x->gh.id), free(x->gh.rcount), free(x->gh.rdispl), free(x->gh.scount), free(x->gh.sdispl),
      free(x->gh.sidx);
  free(x->gpart), free(x->ones), free(x->adjw_step);
  free(x->rank_first), free(x->sizes), free(x->cur), free(x->newp), free(x->gid);
  free(x->w), free(x->wprev), free(x->wpart), free(x->wnav), free(x->fixnav), free(x->fix),
      free(x->load), free(x->halo);
  free(x->phm), free(x->wph), free(x->phload), free(x->wcon), free(x->pinned), free(x->fixnow);
  free(x->clock), free(x->arrive), free(x->range_said), free(x->opt_steps), free(x->opt_assign),
      free(x->rec_idx);
}

/* What the partitioner needs of the mesh; nothing without one (recorded partitions). */
static int needs_graph(const lbs__engine *x) { return x->part && lbs_part_needs_graph(x->part); }
static int needs_coords(const lbs__engine *x) { return x->part && lbs_part_needs_coords(x->part); }

/* Local: the phases of the replayed metric M (metadata phases.M: comma-separated metric names)
 * into x->nph, x->phm; none without the key or with [sim] phases = no. LBS_FORMAT for a name the
 * trace lacks or an empty one. */
static lbs_err find_phases(lbs__engine *x) {
  lbs_metric_info mi;
  char key[256];
  lbs_err e = lbs_trace_metric(x->t, x->metric, &mi);
  if (e) return e;
  snprintf(key, sizeof key, "%s%s", LBS_PHASES_META_PREFIX, mi.name);
  const char *v = lbs_trace_meta(x->t, key);
  if (!v || x->o->no_phases) return LBS_OK;
  int n = 1;
  for (const char *c = v; *c; c++) n += *c == ',';
  if (!(x->phm = malloc((size_t)n * sizeof *x->phm))) return lbs_fail(LBS_NOMEM, "phases");
  for (const char *c = v;; c++) {
    const char *end = strchr(c, ',');
    size_t len = end ? (size_t)(end - c) : strlen(c);
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), c);
    int m = len && len < sizeof name ? lbs_trace_metric_find(x->t, name) : -1;
    if (m < 0)
      return lbs_fail(LBS_FORMAT,
                      "trace %s: metadata %s = '%s' names the phase metric '%s', which the trace "
                      "lacks (replay with [sim] phases = no to charge %s as one phase)",
                      lbs_trace_path(x->t), key, v, name, mi.name);
    x->phm[x->nph++] = m;
    if (!end) break;
    c = end;
  }
  return LBS_OK;
}

/* The trace's app.part_sizes as P shares into sizes; "equal" gives 1 each. */
static lbs_err app_shares(const lbs_trace *t, int P, double *sizes) {
  const char *v = lbs_trace_meta(t, LBS_APP_PART_SIZES_META);
  if (!v)
    return lbs_fail(LBS_INVAL,
                    "part_sizes = app: the trace records no %s (the application's rule; give "
                    "speed or equal)",
                    LBS_APP_PART_SIZES_META);
  int n = 0;
  for (const char *c = v; strcmp(v, "equal") && *c && n <= P; n++) {
    char *end;
    double d = strtod(c, &end);
    if (end == c || (*end && *end != ',') || !isfinite(d) || d <= 0)
      return lbs_fail(LBS_FORMAT, "%s '%s': share %d is not a number > 0", LBS_APP_PART_SIZES_META,
                      v, n + 1);
    if (n < P) sizes[n] = d;
    c = *end ? end + 1 : end;
  }
  if (!strcmp(v, "equal"))
    for (n = 0; n < P; n++) sizes[n] = 1;
  if (n != P)
    return lbs_fail(LBS_INVAL,
                    "part_sizes = app: the trace's %s '%s' gives %s%d shares, the grid has %d "
                    "processors",
                    LBS_APP_PART_SIZES_META, v, n > P ? "more than " : "", n > P ? P : n, P);
  return LBS_OK;
}

lbs_err lbs_replay_part_sizes(const lbs_trace *t, const lbs_grid *g, int rule, double *sizes) {
  int P = lbs_grid_procs(g);
  if (rule == LBS_PARTS_SPEED) {
    lbs_grid_part_sizes(g, sizes);
    return LBS_OK;
  }
  for (int p = 0; p < P; p++) sizes[p] = 1;
  lbs_err e = rule == LBS_PARTS_APP ? app_shares(t, P, sizes) : LBS_OK;
  double sum = 0;
  for (int p = 0; p < P; p++) sum += sizes[p] *= !lbs_grid_proc_failed(g, p);
  for (int p = 0; p < P; p++) sizes[p] = sum > 0 ? sizes[p] / sum : 0;
  return e;
}

/* Local: the metrics, the window and the sizes against the trace and grid. */
static lbs_err check_trace(lbs__engine *x, int64_t *total_steps) {
  x->E = lbs_trace_elements(x->t);
  x->P = lbs_grid_procs(x->g);
  x->C = lbs_grid_nclusters(x->g);
  x->pmetric = -1;
  const char *names[2] = {x->o->metric, x->o->partition_metric};
  for (int k = 0; k < 2; k++) {
    if (!names[k]) continue;
    int m = lbs_trace_metric_find(x->t, names[k]);
    if (m < 0) {
      char known[512] = "";
      for (int j = 0; j < lbs_trace_nmetrics(x->t); j++) {
        lbs_metric_info mi;
        lbs_trace_metric(x->t, j, &mi);
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", j ? ", " : "",
                 mi.name);
      }
      return lbs_fail(LBS_NOTFOUND, "the trace has no %smetric '%s' (it has: %s)",
                      k ? "partition " : "", names[k], known);
    }
    if (k == 0)
      x->metric = m;
    else if (m != x->metric)
      x->pmetric = m;
  }
  lbs_err e = find_phases(x);
  if (e) return e;
  lbs_metric_info mi; /* the grid's speed models take its unit, or say what to write */
  if ((e = lbs_trace_metric(x->t, x->metric, &mi)) ||
      (e = lbs_grid_bind_metric(x->g, mi.name, mi.unit ? mi.unit : "")))
    return e;
  *total_steps = lbs_trace_steps(x->t);
  x->S0 = x->o->first_step;
  x->S = x->o->nsteps > 0 ? x->o->nsteps : *total_steps - x->S0;
  if (*total_steps < 1) return lbs_fail(LBS_INVAL, "the trace has no steps");
  if (x->S0 < 0 || x->S0 >= *total_steps || x->S < 1 || x->S > *total_steps - x->S0)
    return lbs_fail(LBS_RANGE, "steps [%lld, %lld) are outside the trace's %lld steps",
                    (long long)x->S0, (long long)(x->S0 + x->S), (long long)*total_steps);
  if (x->P > x->E)
    return lbs_fail(LBS_INVAL, "the grid has %d processors but the trace only %lld elements", x->P,
                    (long long)x->E);
  if (x->E >= ((int64_t)1 << 31))
    return lbs_fail(LBS_RANGE, "traces of 2^31 elements or more are not supported");
  if (x->size > x->E)
    return lbs_fail(
        LBS_INVAL,
        "%d MPI ranks but the trace has only %lld elements: run it on at most %lld ranks", x->size,
        (long long)x->E, (long long)x->E);
  return LBS_OK;
}

/* Local: what the partitioner (created) needs of the mesh, and the partitioning mode. Recorded
 * partitions need no partitioner: each rank reads its elements' parts (as rank0, the same answer
 * on any number of ranks). */
static lbs_err setup_partitioner(lbs__engine *x) {
  x->mesh = lbs_trace_mesh(x->t);
  if (!x->part) return x->pmode = LBS_PARTMODE_RANK0, LBS_OK;
  if (needs_graph(x) && !x->mesh)
    return lbs_fail(LBS_INVAL, "%s needs the mesh graph, and this trace has none",
                    x->o->partitioner);
  if (needs_coords(x) && !(x->mesh && lbs_mesh_dim(x->mesh) > 0))
    return lbs_fail(LBS_INVAL, "%s needs element coordinates, and this trace has none",
                    x->o->partitioner);
  /* the optimum caches one partition per step: it holds only when a partition depends on the step
   * alone */
  if (lbs__plans_ahead(x) && lbs_part_uses_current(x->part))
    return lbs_fail(LBS_INVAL,
                    "the %s policy needs a partitioner whose answer depends only on the step; %s "
                    "starts from where the elements are (use zoltan:* or metis)",
                    lbs_policy_ops_of(x->policy)->name, x->o->partitioner);
  int dist = lbs_part_has_distributed(x->part);
  x->pmode = x->o->partition_mode;
  if (x->pmode == LBS_PARTMODE_DISTRIBUTED && x->size < 2)
    return lbs_fail(
        LBS_INVAL,
        "partition_mode = distributed needs 2 or more MPI ranks, and this run has 1 (run it "
        "under mpiexec -n N, or use partition_mode = rank0)");
  if (x->pmode == LBS_PARTMODE_DISTRIBUTED && !dist)
    return lbs_fail(
        LBS_INVAL,
        "partition_mode = distributed: %s has no distributed path (it partitions on one rank: "
        "use partition_mode = rank0, or a zoltan:* method, PT-Scotch through zoltan:graph)",
        x->o->partitioner);
  int64_t dmin =
      x->o->distributed_min_elements > 0 ? x->o->distributed_min_elements : 1000000; /* 0: unset */
  if (x->pmode == LBS_PARTMODE_AUTO)
    x->pmode = x->size > 1 && dist && x->E >= dmin ? LBS_PARTMODE_DISTRIBUTED : LBS_PARTMODE_RANK0;
  /* rank0 gathers every coordinate and arc on rank 0, and MPI counts are ints */
  double deg = x->mesh ? lbs_mesh_avg_degree(x->mesh) : 0, arcs = (double)x->E * deg;
  if (x->pmode == LBS_PARTMODE_RANK0 && x->size > 1 &&
      ((needs_graph(x) && arcs >= 2147483647.0) ||
       (needs_coords(x) && 3.0 * (double)x->E >= 2147483647.0)))
    return lbs_fail(
        LBS_RANGE,
        "partition_mode = rank0 gathers the whole mesh on rank 0, and this trace's %.0f "
        "graph arcs or %lld elements' coordinates are more than one MPI message holds (2^31 - 1); "
        "use partition_mode = distributed",
        arcs, (long long)x->E);
  return LBS_OK;
}

/* Local: [sim] phase_constraints = yes: the phases as the partitioner's weights (x->ncon), or why
 * they cannot be (a clear error rather than a run that balances their sum under the name). */
static lbs_err setup_constraints(lbs__engine *x) {
  if (!x->o->phase_constraints) return LBS_OK;
  if (!x->part)
    return lbs_fail(LBS_INVAL,
                    "phase_constraints = yes: the %s policy runs no partitioner (it replays the "
                    "application's partitions)",
                    x->o->policy);
  if (!lbs_part_takes_weights(x->part)) {
    char can[256] = "";
    for (int i = 0; i < lbs_part_count(); i++) /* by what they say, not by name */
      if (lbs_part_at(i)->flags & LBS_PART_WEIGHTS)
        snprintf(can + strlen(can), sizeof can - strlen(can), "%s%s", *can ? ", " : "",
                 lbs_part_at(i)->name);
    return lbs_fail(LBS_INVAL,
                    "phase_constraints = yes: %s takes one weight per element (partitioners that "
                    "take several: %s)",
                    x->o->partitioner, *can ? can : "none");
  }
  if (x->pmetric >= 0)
    return lbs_fail(LBS_INVAL,
                    "phase_constraints = yes and partition_metric = %s both choose the "
                    "partitioner's weights: give one of them",
                    x->o->partition_metric);
  if (!x->nph && x->o->no_phases)
    return lbs_fail(LBS_INVAL, "phase_constraints = yes needs phases = yes");
  if (!x->nph) {
    lbs_metric_info mi;
    lbs_trace_metric(x->t, x->metric, &mi);
    return lbs_fail(LBS_INVAL,
                    "phase_constraints = yes: the trace lists no phases of %s (metadata %s%s)",
                    mi.name, LBS_PHASES_META_PREFIX, mi.name);
  }
  x->ncon = x->nph > 1 ? x->nph : 0; /* one phase is the metric itself: one weight */
  return LBS_OK;
}

/* Local: chunk-aligned element ranges per rank. */
static lbs_err place_elements(lbs__engine *x) {
  int64_t C = lbs_trace_chunk_elems(x->t), nch = (x->E + C - 1) / C;
  x->rank_first = malloc((size_t)(x->size + 1) * sizeof *x->rank_first);
  if (!x->rank_first) return lbs_fail(LBS_NOMEM, "ranks");
  for (int r = 0; r <= x->size; r++) {
    int64_t f = nch * r / x->size * C;
    x->rank_first[r] = f < x->E ? f : x->E;
  }
  x->first = x->rank_first[x->rank];
  x->n = x->rank_first[x->rank + 1] - x->first;
  return LBS_OK;
}

/* Reads MemAvailable from /proc/meminfo, bytes; 0 when unknown. */
static double mem_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  double kb = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
  if (f) fclose(f);
  return kb * 1024;
}

/* Collective: what this run's mode needs on each node against what the node has, before any work.
 */
static lbs_err check_memory(lbs__engine *x) {
  double deg = x->mesh ? lbs_mesh_avg_degree(x->mesh) : 0,
         dim = x->mesh ? lbs_mesh_dim(x->mesh) : 0;
  int graph = x->mesh && (x->bytes_edge > 0 || needs_graph(x));
  int gpart = needs_graph(x), cpart = needs_coords(x);
  int weighted = x->mesh && lbs_mesh_get_kind(x->mesh) !=
                                LBS_MESH_STRUCTURED; /* arc weights stored, not all 1 */
  /* gid, cur, newp, w, wprev; the partition metric; coordinates; graph rows; unit weights */
  double local = 32 + (x->pmetric >= 0 ? 8 : 0) + 8.0 * (x->nph + x->ncon) + (cpart ? 8 * dim : 0) +
                 (graph ? 8 + (weighted ? 16 : 8) * deg : 0) + (gpart && !weighted ? 8 * deg : 0);
  double obj = BYTES_PART_OBJ + (gpart ? BYTES_PART_ARC * deg : 0);
  double mine = BYTES_PROCESS + MEMORY_MARGIN * (double)x->n *
                                    (local + (x->pmode == LBS_PARTMODE_DISTRIBUTED ? obj : 0));
  if (x->mesh && lbs_mesh_get_kind(x->mesh) == LBS_MESH_STRUCTURED &&
      lbs_mesh_order(x->mesh) == LBS_ORDER_HILBERT && graph)
    mine +=
        8.0 *
        (double)x->E; /* a Hilbert box's rows need its inverse cell index while they are built */
  if (!x->part) /* recorded partitions: every rank reads a whole assignment (sim/recorded.c) */
    mine += MEMORY_MARGIN * 8.0 * (double)x->E;
  else if (x->pmode == LBS_PARTMODE_RANK0 && x->rank == 0)
    mine += MEMORY_MARGIN * (double)x->E *
            (obj + BYTES_GATHER_OBJ + (cpart ? 8 * dim : 0) + (gpart ? 16 * deg : 0));
  if (x->part && x->o->migration_cost == LBS_MIGCOST_MEASURED && lbs_trace_owners_count(x->t) > 1 &&
      lbs_trace_event_find(x->t, LBS_EVENT_MIGRATION) >= 0)
    mine += MEMORY_MARGIN * 16.0 * (double)x->E; /* the rate's fit reads two assignments at once */
  MPI_Comm node;
  MPI_Comm_split_type(x->comm, MPI_COMM_TYPE_SHARED, x->rank, MPI_INFO_NULL, &node);
  double need = 0,
         avail = x->o->memory_limit_gb > 0 ? x->o->memory_limit_gb * 1e9 : mem_available();
  MPI_Allreduce(&mine, &need, 1, MPI_DOUBLE, MPI_SUM, node);
  int on_node;
  MPI_Comm_size(node, &on_node);
  MPI_Comm_free(&node);
  lbs_err e = LBS_OK;
  if (avail > 0 && need > avail)
    e = lbs_fail(LBS_NOMEM,
                 "partition_mode = %s needs about %.1f GB on this node for %lld elements (%d of %d "
                 "rank%s here%s), and the node has %.1f GB (%s); %s",
                 lbs_partition_mode_name(x->pmode), need / 1e9, (long long)x->E, on_node, x->size,
                 x->size > 1 ? "s" : "",
                 x->part && x->pmode == LBS_PARTMODE_RANK0 ? "; rank 0 gathers every element" : "",
                 avail / 1e9,
                 x->o->memory_limit_gb > 0 ? "[sim] memory_limit_gb" : "available memory",
                 x->part && x->pmode == LBS_PARTMODE_RANK0
                     ? (lbs_part_has_distributed(x->part)
                            ? "use partition_mode = distributed on more ranks"
                            : "this partitioner runs on one rank: use a zoltan:* method "
                              "with partition_mode = distributed, or a larger node")
                     : "run it on more nodes");
  return lbs__agree(x, e);
}

/* Local: this rank's mesh rows, as far as the partitioner and the halo need them. */
static lbs_err read_rows(lbs__engine *x) {
  lbs_err e = LBS_OK;
  x->edge_step = -1;
  if (!x->mesh) return LBS_OK;
  int want_graph = x->bytes_edge > 0 || needs_graph(x) || lbs_trace_edge_weights_vary(x->t);
  if ((e = lbs_mesh_rows_get(x->mesh, x->first, x->n, needs_coords(x), want_graph, &x->rows)))
    return e;
  x->adjw = x->rows.adjw;
  int64_t ne = x->rows.xadj ? x->rows.xadj[x->n] : 0;
  if (x->rows.xadj && !x->rows.adjw && needs_graph(x)) {
    if (!(x->ones = malloc((size_t)(ne + 1) * sizeof *x->ones)))
      return lbs_fail(LBS_NOMEM, "edge weights");
    for (int64_t k = 0; k < ne; k++) x->ones[k] = 1;
  }
  if (x->rows.xadj &&
      lbs_trace_edge_weights_vary(x->t)) { /* N-body: read through the trace's rule */
    if ((e = lbs_trace_edge_rule_check(x->t, NULL))) return e;
    if (!(x->adjw_step = malloc((size_t)(ne + 1) * sizeof *x->adjw_step)))
      return lbs_fail(LBS_NOMEM, "edge weights");
  }
  x->edge_from = -2; /* no array read yet */
  if (x->adjw_step && lbs_trace_edge_weights_stored(x->t)) {
    /* the rows' arcs in the whole graph's order start at its offset of the first row (a
     * structured mesh builds its whole graph for it: only traces with per-step weights do) */
    const int64_t *gx, *ga;
    const double *gw;
    if ((e = lbs_mesh_graph(x->mesh, &gx, &ga, &gw))) return e;
    x->arc0 = gx[x->first];
  }
  return LBS_OK;
}

/* Local: the state arrays. */
static lbs_err alloc_state(lbs__engine *x) {
  size_t n1 = (size_t)x->n + 1, P = (size_t)x->P;
  x->sizes = malloc(P * sizeof *x->sizes);
  x->cur = malloc(n1 * sizeof *x->cur);
  x->newp = malloc(n1 * sizeof *x->newp);
  x->gid = malloc(n1 * sizeof *x->gid);
  x->w = malloc(n1 * sizeof *x->w);
  x->wprev = malloc(n1 * sizeof *x->wprev);
  if (x->pmetric >= 0) x->wpart = malloc(n1 * sizeof *x->wpart);
  x->fixnav = malloc(P * sizeof *x->fixnav);
  x->fix = malloc(P * sizeof *x->fix);
  x->load = malloc(P * sizeof *x->load);
  if (x->ncon) x->wcon = malloc((size_t)x->ncon * n1 * sizeof *x->wcon);
  if (x->nph) {
    x->wph = malloc((size_t)x->nph * n1 * sizeof *x->wph);
    x->phload = malloc((size_t)x->nph * P * sizeof *x->phload);
  }
  x->clock = calloc(P, sizeof *x->clock);
  x->arrive = calloc(P, sizeof *x->arrive);
  x->range_said = calloc(P, 1);
  if (!x->range_said ||
      (!x->sizes || !x->cur || !x->newp || !x->gid || !x->w || !x->wprev ||
       (x->pmetric >= 0 && !x->wpart) || (x->nph && (!x->wph || !x->phload)) ||
       (x->ncon && !x->wcon) || !x->fixnav || !x->fix || !x->load || !x->clock || !x->arrive))
    return lbs_fail(LBS_NOMEM, "replay state for %lld elements and %d processors", (long long)x->n,
                    x->P);
  /* where a replay starts: the first step partitioned from nowhere (as `partition --from none`),
   * so no partitioner is steered by a made-up starting assignment and nothing moves */
  for (int64_t i = 0; i < x->n; i++) x->gid[i] = x->first + i, x->cur[i] = -1;
  return LBS_OK;
}

/* Collective: the pinned elements (lbs_trace_pinned) and whether an idle element is absent
 * (LBS_META_ABSENT); a pinned element starts on the processor the recorded owners in force at the
 * window's first step give it (owner mod P: a replay on fewer processors than the recorded ranks
 * folds them), or, without recorded owners, where the first partition puts it. Recorded partitions
 * (policy recorded) are the application's own: nothing to pin. */
static lbs_err setup_pinned(lbs__engine *x) {
  const char *ab = lbs_trace_meta(x->t, LBS_META_ABSENT);
  x->absent_idle = ab && !strcmp(ab, LBS_ABSENT_ZERO_WORK) && !x->recorded;
  unsigned char *all = NULL;
  int64_t *own = NULL;
  lbs_err e = LBS_OK;
  if (!x->recorded) {
    all = malloc((size_t)x->E + 1);
    e = all ? lbs_trace_pinned(x->t, all, &x->npinned) : lbs_fail(LBS_NOMEM, "pinned elements");
  }
  if (!e && (x->npinned || x->absent_idle)) {
    x->fixnow = calloc((size_t)x->n + 1, 1);
    if (!x->fixnow) e = lbs_fail(LBS_NOMEM, "pinned elements");
  }
  if (!e && x->npinned) {
    x->pinned = malloc((size_t)x->n + 1);
    if (!x->pinned) e = lbs_fail(LBS_NOMEM, "pinned elements");
    for (int64_t i = 0; !e && i < x->n; i++) x->pinned[i] = all[x->first + i];
  }
  int64_t na = lbs_trace_owners_count(x->t), a = 0, app = 0;
  if (!e && x->npinned && na > 0) { /* the assignment in force at the window's first step */
    lbs_trace_app_step(x->t, x->S0, &app);
    for (int64_t i = 1; i < na; i++)
      if (lbs_trace_owners_step(x->t, i) <= app) a = i;
    if (!(own = malloc((size_t)x->E * sizeof *own)))
      e = lbs_fail(LBS_NOMEM, "recorded owners");
    else
      e = lbs_trace_owners_read(x->t, a, own);
    for (int64_t i = 0; !e && i < x->n; i++)
      if (x->pinned[i]) x->cur[i] = (int)(own[x->first + i] % x->P);
  }
  free(all), free(own);
  return e;
}

lbs_err lbs__engine_setup(lbs__engine *x) {
  int64_t total_steps = 0;
  lbs_err e = lbs__agree(x, check_trace(x, &total_steps));
  if (!e) e = lbs__agree(x, lbs_policy_create(x->o->policy, &x->policy));
  /* a policy whose partitions are recorded ones runs no partitioner (recorded.c) */
  if (!e) x->recorded = (lbs_policy_ops_of(x->policy)->flags & LBS_POLICY_RECORDED) != 0;
  if (!e && !x->recorded)
    e = lbs__agree(
        x, lbs_part_create(x->o->partitioner, x->o->cfg, x->comm, &x->part)); /* collective */
  if (!e) e = lbs__agree(x, setup_partitioner(x));
  if (!e) e = lbs__agree(x, setup_constraints(x));
  if (!e) e = lbs__agree(x, place_elements(x));
  if (e) return e;
  if (x->mesh) {
    x->bytes_elem = lbs_mesh_bytes_per_elem(x->mesh);
    x->bytes_edge = lbs_mesh_bytes_per_edge(x->mesh);
  }
  if (lbs_grid_bytes_per_elem(x->g) > 0) x->bytes_elem = lbs_grid_bytes_per_elem(x->g);
  if (lbs_grid_bytes_per_edge(x->g) > 0) x->bytes_edge = lbs_grid_bytes_per_edge(x->g);
  if ((e = check_memory(x))) return e;
  if ((e = lbs__agree(x, read_rows(x)))) return e;
  if ((e = lbs__ghost_setup(x))) return e;
  if (!e) e = lbs__agree(x, alloc_state(x));
  if (!e) e = lbs__agree(x, setup_pinned(x));
  if (!e && x->recorded) e = lbs__recorded_setup(x);
  if (!e) e = lbs__migration_rate_setup(x);
  if (!e) lbs__outside_setup(x);
  if (!e)
    e = lbs__agree(x, lbs__avail_setup(x, total_steps)); /* a changing grid: x->g follows it */
  if (!e) e = lbs__agree(x, lbs_net_create(x->g, &x->net));
  if (e) return e;
  if ((e = lbs__agree(x, lbs_replay_part_sizes(x->t, x->g, x->o->part_sizes, x->sizes)))) return e;
  for (int64_t i = 0; i < x->gh.ng; i++) x->gpart[i] = -1;
  if (x->adjw_step) { /* this window's first step's weights */
    int changed;
    if ((e = lbs__edge_weights_at(x, x->S0, &changed))) return e;
    x->adjw = x->adjw_step;
  }
  return LBS_OK;
}
