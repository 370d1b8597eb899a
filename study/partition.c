/* partition.c - partitioners measured on one step of a trace for a grid with MinEX's model
 * (lbs_partition.h): the step's weights and graph read once, each partitioner run on every
 * rank's slice, its whole partition gathered and measured. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_mpi.h"
#include "lbs_part.h"
#include "lbs_partition.h"

/* The step: weights, the graph with its communication weights, the current parts. */
typedef struct {
  int64_t E, *xadj, *adj;
  double *cw, *pw, *rw, *coords;
  int dim, *cur;
  unsigned char *fx; /* pinned elements with a part (lbs_part_input.fixed), NULL: none */
} problem;

/* The trace's pinned elements (lbs_trace_pinned), fixed where they are: on the processor the
 * recorded owners in force at the step give them (mod P, as the replay), else in their --from
 * part; pinned without either, the partitioner places them. */
static lbs_err load_pinned(lbs_trace *t, int64_t step, int P, problem *pb) {
  int64_t E = pb->E, npin = 0, na = lbs_trace_owners_count(t), a = 0, app = 0, *own = NULL;
  if (!(pb->fx = malloc((size_t)E + 1))) return lbs_fail(LBS_NOMEM, "pinned elements");
  lbs_err e = lbs_trace_pinned(t, pb->fx, &npin);
  if (e || !npin) return free(pb->fx), pb->fx = NULL, e;
  lbs_trace_app_step(t, step, &app);
  for (int64_t i = 1; i < na; i++)
    if (lbs_trace_owners_step(t, i) <= app) a = i;
  if (na > 0 && !(own = malloc((size_t)E * sizeof *own))) return lbs_fail(LBS_NOMEM, "owners");
  if (na > 0) e = lbs_trace_owners_read(t, a, own);
  for (int64_t i = 0; !e && i < E; i++) {
    if (pb->fx[i] && own) pb->cur[i] = (int)(own[i] % P);
    pb->fx[i] = pb->fx[i] && pb->cur[i] >= 0;
  }
  free(own);
  return e;
}

/* The step's weights, the graph with its communication weights, the current parts. */
static lbs_err load(lbs_trace *t, const lbs_partition_opts *o, int P, problem *pb) {
  lbs_mesh *mesh = lbs_trace_mesh(t);
  int64_t E = pb->E = lbs_trace_elements(t), step = o->step;
  if (step < 0 || step >= lbs_trace_steps(t))
    return lbs_fail(LBS_RANGE, "step %lld is not in the trace (0..%lld)", (long long)step,
                    (long long)lbs_trace_steps(t) - 1);
  int m = lbs_trace_metric_find(t, o->metric ? o->metric : "pwgt");
  if (!o->metric && m < 0) m = 0;
  if (m < 0) return lbs_fail(LBS_NOTFOUND, "the trace has no metric '%s'", o->metric);
  const int64_t *xadj, *adj;
  const double *adjw, *co;
  lbs_err e;
  if (!mesh || (e = lbs_mesh_graph(mesh, &xadj, &adj, &adjw)))
    return lbs_fail(LBS_INVAL, "the trace has no mesh graph to partition");
  if ((e = lbs_mesh_coords(mesh, &co, &pb->dim))) return e;
  int64_t ne = xadj[E];
  pb->xadj = malloc((size_t)(E + 1) * sizeof *pb->xadj),
  pb->adj = malloc((size_t)(ne + 1) * sizeof *pb->adj);
  pb->cw = malloc((size_t)(ne + 1) * sizeof *pb->cw), pb->pw = malloc((size_t)E * sizeof *pb->pw);
  pb->cur = malloc((size_t)E * sizeof *pb->cur);
  if (co) pb->coords = malloc((size_t)E * pb->dim * sizeof *pb->coords);
  int r = lbs_trace_metric_find(t, "rwgt");
  if (r >= 0) pb->rw = malloc((size_t)E * sizeof *pb->rw);
  if (!pb->xadj || !pb->adj || !pb->cw || !pb->pw || !pb->cur || (co && !pb->coords) ||
      (r >= 0 && !pb->rw))
    return lbs_fail(LBS_NOMEM, "%lld elements", (long long)E);
  memcpy(pb->xadj, xadj, (size_t)(E + 1) * sizeof *xadj);
  if (ne) memcpy(pb->adj, adj, (size_t)ne * sizeof *adj);
  if (co) memcpy(pb->coords, co, (size_t)E * pb->dim * sizeof *co);
  if ((e = lbs_trace_read(t, step, m, 0, E, pb->pw))) return e;
  if (r >= 0 && (e = lbs_trace_read(t, step, r, 0, E, pb->rw))) return e;
  if ((e = lbs_trace_edge_weights(t, step, pb->cw)))
    return e; /* the N-body rule, where it applies */
  for (int64_t i = 0; i < E; i++) {
    if (!(pb->pw[i] >= 0))
      return lbs_fail(LBS_INVAL, "step %lld element %lld: weight %g is negative", (long long)step,
                      (long long)i, pb->pw[i]);
    pb->cur[i] = o->from_block ? (int)((__int128)i * P / E) : -1;
  }
  return load_pinned(t, step, P, pb);
}

/* One study under way. */
typedef struct {
  lbs_session *s;
  const lbs_partition_opts *o;
  MPI_Comm comm;
  int rank, size, P;
  problem pb;
  lbs_minex_ipg ipg;
  lbs_minex_latency *lat; /* MinEX's model, as [minex] gives it */
  double be, br;          /* bytes per unit of edge and relocation weight */
  const int64_t *px, *pa; /* the graph partitioners see: G or Gm */
  const double *pw;
  int64_t *gx, *ga;       /* Gm, when asked for */
  double *gw, *sizes;     /* the grid's shares */
  int64_t *rf, *gid, *lx; /* the ranks' slices: first elements, this rank's ids and rows */
  int64_t first, n;
  int *newp, *all, *counts, *displs; /* this rank's parts, everyone's */
} study;

static void study_free(study *c) {
  problem *pb = &c->pb;
  free(pb->xadj), free(pb->adj), free(pb->cw), free(pb->pw), free(pb->rw), free(pb->coords),
      free(pb->cur), free(pb->fx);
  lbs_minex_ipg_free(&c->ipg);
  lbs_minex_latency_destroy(&c->lat);
  free(c->gx), free(c->ga), free(c->gw), free(c->sizes), free(c->rf), free(c->gid), free(c->lx);
  free(c->newp), free(c->all), free(c->counts), free(c->displs);
}

/* The grid's side: the partitioners' sections, MinEX's latency, the processors asked for. */
static lbs_err check_grid(study *c, lbs_partition_info *info) {
  lbs_session *s = c->s;
  lbs_err e = lbs_config_check_only(s->cfg, lbs_part_sections());
  if (e) return info->failed = s->grid_path, e;
  info->failed = "partition"; /* the latency function says where */
  if ((e = lbs_minex_latency_from_config(s->cfg, &c->lat))) return e;
  if (c->o->procs && c->o->procs != c->P)
    return lbs_fail(LBS_INVAL, "%s has %d processors in %d clusters, --procs asks for %lld",
                    s->grid_path, c->P, lbs_grid_nclusters(s->grid), (long long)c->o->procs);
  return LBS_OK;
}

/* The trace's step, MinEX's configuration graph, the graph partitioners see, the slices. */
static lbs_err prepare(study *c, lbs_partition_info *info) {
  lbs_session *s = c->s;
  info->failed = s->trace_path;
  lbs_err e = load(s->trace, c->o, c->P, &c->pb);
  if (e) return e;
  int64_t E = info->elements = c->pb.E;
  if (E < c->P)
    return info->failed = "partition",
           lbs_fail(LBS_INVAL, "more processors (%d) than elements (%lld)", c->P, (long long)E);
  lbs_mesh *mesh = lbs_trace_mesh(s->trace);
  c->be = lbs_grid_bytes_per_edge(s->grid) > 0 ? lbs_grid_bytes_per_edge(s->grid)
                                               : lbs_mesh_bytes_per_edge(mesh);
  c->br = lbs_grid_bytes_per_elem(s->grid) > 0 ? lbs_grid_bytes_per_elem(s->grid)
                                               : lbs_mesh_bytes_per_elem(mesh);
  if ((e = lbs_minex_ipg_from_grid(s->grid, c->be, c->br, &c->ipg))) return e;
  c->px = c->pb.xadj, c->pa = c->pb.adj, c->pw = c->pb.cw;
  if (c->o->gm &&
      (e = lbs_part_symmetrize(E, c->pb.xadj, c->pb.adj, c->pb.cw, 1, &c->gx, &c->ga, &c->gw)))
    return e;
  if (c->o->gm) c->px = c->gx, c->pa = c->ga, c->pw = c->gw;
  c->rf = calloc((size_t)c->size + 1, sizeof *c->rf);
  if (!c->rf) return lbs_fail(LBS_NOMEM, "partition");
  for (int r = 0; r <= c->size; r++) c->rf[r] = E * r / c->size;
  c->first = c->rf[c->rank], c->n = c->rf[c->rank + 1] - c->first;
  int64_t n = c->n;
  c->sizes = malloc((size_t)c->P * sizeof *c->sizes),
  c->gid = malloc((size_t)(n + 1) * sizeof *c->gid);
  c->lx = malloc((size_t)(n + 1) * sizeof *c->lx),
  c->newp = malloc((size_t)(n + 1) * sizeof *c->newp);
  c->all = malloc((size_t)E * sizeof *c->all),
  c->counts = malloc((size_t)c->size * sizeof *c->counts);
  c->displs = malloc((size_t)c->size * sizeof *c->displs);
  if (!c->sizes || !c->gid || !c->lx || !c->newp || !c->all || !c->counts || !c->displs)
    return lbs_fail(LBS_NOMEM, "partition");
  lbs_grid_part_sizes(s->grid, c->sizes);
  for (int64_t i = 0; i < n; i++) c->gid[i] = c->first + i;
  for (int64_t i = 0; i <= n; i++) c->lx[i] = c->px[c->first + i] - c->px[c->first];
  for (int r = 0; r < c->size; r++)
    c->counts[r] = (int)(c->rf[r + 1] - c->rf[r]), c->displs[r] = (int)c->rf[r];
  return LBS_OK;
}

/* Runs the partitioner o->repeat times on the slices (ev->wall_s the fastest, its tolerance). */
static lbs_err run(study *c, lbs_partitioner *part, lbs_partition_eval *ev) {
  int64_t f = c->first;
  problem *pb = &c->pb;
  lbs_part_input in = {.comm = c->comm,
                       .nlocal = c->n,
                       .gid = c->gid,
                       .weight = pb->pw + f,
                       .dim = pb->coords ? pb->dim : 0,
                       .coords = pb->coords ? pb->coords + f * pb->dim : NULL,
                       .xadj = c->lx,
                       .adj = c->pa + c->px[f],
                       .adjw = c->pw + c->px[f],
                       .rank_first = c->rf,
                       .current = pb->cur + f,
                       .nparts = c->P,
                       .part_sizes = c->sizes,
                       .repartition = c->o->from_block,
                       .grid = c->s->grid,
                       .rwgt = pb->rw ? pb->rw + f : NULL,
                       .bytes_per_edge = c->be,
                       .bytes_per_rwgt = c->br,
                       .fixed = pb->fx ? pb->fx + f : NULL};
  double best = 1e300;
  lbs_err e = LBS_OK;
  for (int64_t it = 0; !e && it < c->o->repeat; it++) {
    MPI_Barrier(c->comm);
    double t0 = MPI_Wtime();
    e = lbs_part_run(part, &in, c->newp);
    double dt = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    e = lbs_mpi_agree(c->comm, e); /* the first failing rank's code and message */
    if (dt < best) best = dt;
  }
  ev->tol = lbs_part_tolerance(part);
  ev->own_sizes = lbs_part_takes_sizes(part);
  ev->wall_s = best;
  return e;
}

/* One partitioner: made, run, its partition gathered everywhere and measured on G. */
static lbs_err measure(study *c, lbs_partition_eval *ev, lbs_partition_info *info) {
  lbs_partitioner *part = NULL;
  info->failed = "partition";
  lbs_err e = lbs_part_create(ev->name, c->s->cfg, c->comm, &part);
  if (e) return e;
  info->failed = ev->name;
  e = run(c, part, ev);
  lbs_part_destroy(&part);
  if (e) return e;
  problem *pb = &c->pb;
  MPI_Allgatherv(c->newp, (int)c->n, MPI_INT, c->all, c->counts, c->displs, MPI_INT, c->comm);
  lbs_minex_graph mg = {
      pb->E, pb->xadj, pb->adj, pb->cw, pb->pw, pb->rw, c->o->from_block ? pb->cur : NULL};
  lbs_minex_opts mo = lbs_minex_defaults();
  lbs_minex_latency_apply(c->lat, &mo);
  if (!(e = lbs_minex_latency_begin(c->lat, &c->ipg)))
    e = lbs_minex_latency_why(
        c->lat, lbs_minex_evaluate(&mg, &c->ipg, mo.latency, mo.user, c->all, NULL, &ev->ev));
  ev->work_imb = lbs_part_work_imbalance(c->all, pb->pw, pb->E, c->sizes, c->P);
  /* the promise is against the shares the partitioner aimed at: the grid's, or equal ones */
  ev->own_imb =
      ev->own_sizes ? ev->work_imb : lbs_part_work_imbalance(c->all, pb->pw, pb->E, NULL, c->P);
  return e;
}

lbs_err lbs_partition_study(lbs_session *s, const lbs_partition_opts *o, lbs_partition_eval *ev,
                            int n, MPI_Comm comm, lbs_partition_fn done, void *arg,
                            lbs_partition_info *info) {
  study c = {.s = s, .o = o, .comm = comm, .P = lbs_grid_procs(s->grid)};
  MPI_Comm_rank(comm, &c.rank);
  MPI_Comm_size(comm, &c.size);
  *info = (lbs_partition_info){.procs = c.P, .clusters = lbs_grid_nclusters(s->grid)};
  lbs_err e = check_grid(&c, info);
  if (!e) e = prepare(&c, info);
  for (int k = 0; !e && k < n; k++) {
    if ((e = measure(&c, &ev[k], info))) break;
    lbs_err he = done ? done(arg, &ev[k], c.all, c.pb.E) : LBS_OK;
    if ((e = lbs_mpi_agree(comm, he ? LBS_IO : LBS_OK)))
      info->failed = NULL; /* the hook said why */
  }
  if (!e) info->failed = NULL;
  study_free(&c);
  return e;
}

lbs_err lbs_partition_save(const lbs_session *s, const char *results, const lbs_partition_opts *o,
                           const lbs_partition_eval *ev, int n, const lbs_partition_info *info) {
  lbs_partition_row *pr = calloc((size_t)(n > 0 ? n : 1), sizeof *pr);
  if (!pr) return lbs_fail(LBS_NOMEM, "%s: partition rows", results);
  lbs_prov_study st;
  lbs_prov_run ri;
  lbs_prov_study_init(&st, "partition", NULL);
  lbs_prov_run_init(&ri, s->trace_path, s->grid_path, s->cfg, s->over, s->nover, -1);
  for (int k = 0; k < n; k++) {
    const lbs_minex_eval *v = &ev[k].ev;
    pr[k] = (lbs_partition_row){.run = ri.info,
                                .step = o->step,
                                .elements = info->elements,
                                .moved = v->moved,
                                .partitioner = ev[k].name,
                                .procs = info->procs,
                                .maxqwgt_s = v->maxqwgt * 1e-9,
                                .loadimb = v->loadimb,
                                .work_imbalance = ev[k].work_imb,
                                .tolerance = ev[k].tol > 0 ? ev[k].tol : NAN,
                                .wsysll_s = v->wsysll * 1e-9,
                                .wgt_s = v->wgt * 1e-9,
                                .comm_s = v->comm * 1e-9,
                                .remap_s = v->remap * 1e-9,
                                .edge_cut = v->edge_cut,
                                .wall_s = ev[k].wall_s};
  }
  lbs_err e = lbs_results_save_partitions(results, &st.info, pr, n);
  lbs_prov_run_free(&ri);
  free(pr);
  return e;
}

/* One evaluation as JSON; NULL when out of memory. */
static json_t *eval_json(const lbs_partition_opts *o, const lbs_partition_eval *ev,
                         const lbs_partition_info *info) {
  const lbs_minex_eval *v = &ev->ev;
  json_t *j = json_object();
  int bad = lbs_json_set(j, "partitioner", lbs_json_str(ev->name)) ||
            lbs_json_set(j, "graph", json_string(o->gm ? "Gm" : "G")) ||
            lbs_json_set(j, "step", lbs_json_int(o->step)) ||
            lbs_json_set(j, "elements", lbs_json_int(info->elements)) ||
            lbs_json_set(j, "procs", lbs_json_int(info->procs)) ||
            lbs_json_set(j, "clusters", lbs_json_int(info->clusters)) ||
            lbs_json_set(j, "runtime_s", lbs_json_real(v->maxqwgt * 1e-9)) ||
            lbs_json_set(j, "loadimb", lbs_json_real(v->loadimb)) ||
            lbs_json_set(j, "work_imbalance", lbs_json_real(ev->work_imb)) ||
            lbs_json_set(j, "tolerance", ev->tol > 0 ? lbs_json_real(ev->tol) : json_null()) ||
            lbs_json_set(j, "wsysll_s", lbs_json_real(v->wsysll * 1e-9)) ||
            lbs_json_set(j, "work_s", lbs_json_real(v->wgt * 1e-9)) ||
            lbs_json_set(j, "comm_s", lbs_json_real(v->comm * 1e-9)) ||
            lbs_json_set(j, "remap_s", lbs_json_real(v->remap * 1e-9)) ||
            lbs_json_set(j, "edge_cut", lbs_json_real(v->edge_cut)) ||
            lbs_json_set(j, "moved_elements", lbs_json_int(v->moved)) ||
            lbs_json_set(j, "partition_wall_s", lbs_json_real(ev->wall_s));
  if (bad) json_decref(j), j = NULL;
  return j;
}

json_t *lbs_partition_json(const lbs_partition_opts *o, const lbs_partition_eval *ev, int n,
                           const lbs_partition_info *info) {
  json_t *all = json_array(); /* one shape however many partitioners: an array */
  for (int k = 0; all && k < n; k++)
    if (json_array_append_new(all, eval_json(o, &ev[k], info))) json_decref(all), all = NULL;
  return all;
}
