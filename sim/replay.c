/* replay.c - the replay: a trace on a simulated grid, under MPI (the main loop; the engine's
 * primitives are in engine.c, its setup in setup.c).
 *
 * Model (docs/design.md): at step s processor p computes for f_p(W_p(s)) ns, W_p(s) the sum
 * of the replayed metric over its elements (with phases, metadata phases.M, it computes each
 * phase in turn, and every phase but the last ends at the slowest processor: the step's compute
 * is the sum over phases of the slowest one's, lbs__compute_done in engine.c); then every pair (p,
 * q) sharing graph edges exchanges B_pq = bytes_per_edge x (weight of the cut edges from p to q)
 * bytes, taking latency + B / bandwidth on the link between their clusters, alone; a shared link
 * and the NICs are shared by max-min fair flows (SimGrid's model) or first come first served
 * (network.c, [grid] sharing), a dedicated link gives each transfer its bandwidth.
 *   bsp: every step ends at a barrier: when the last processor has computed and received,
 *        plus the barrier's cost ([grid] barrier_us).
 *   des: a processor starts step s+1 when its own compute of step s is done and the halos
 *        of step s from its neighbours have arrived. Transfers of one step get what those
 *        of earlier steps leave on a shared resource.
 * A repartition is collective: the clocks meet at a barrier, the partitioner's time is
 * charged (a deterministic model by default), then migration: each element that changes
 * processor moves bytes_per_elem over the links, as one transfer per (old, new) pair.
 *
 * Under MPI, rank r holds a chunk-aligned range of elements (sim_int.h), decodes only those
 * and sums its elements' work per processor; sums are exact, so with partition_mode rank0
 * the result does not depend on the number of ranks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_int.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Step navigation for policies (collective): loads of window step s under the current assignment.
 * With phases they are each processor's sum over its phases (the replayed metric), as the replay
 * gives policies at every step; no step cost is returned (the optimum's segments run the engine's
 * own step, lbs__run_step). */
static lbs_err eval_step(void *nav, int64_t s, int64_t *load_ns, double *imb) {
  lbs__engine *x = nav;
  lbs_err e = lbs__decide_nav(x); /* every rank navigates now, or none goes on (base.c) */
  if (e) return e;
  if (s < 0 || s >= x->S) /* agreed below: a rank's script may ask for another step */
    e = lbs_fail(LBS_RANGE, "step navigation: step %lld outside 0..%lld", (long long)s,
                 (long long)(x->S - 1));
  else if (!x->wnav)
    x->wnav =
        malloc((size_t)(x->n + 1) * sizeof *x->wnav); /* on first use: most policies never look */
  if (!e && !x->wnav) e = lbs_fail(LBS_NOMEM, "step navigation");
  e = lbs__agree(x, e);
  if (!e) e = lbs__read_work(x, x->S0 + s, x->wnav);
  if (e) return e;
  const lbs_grid *g = lbs__avail_grid_at(x, s); /* x->g, or as it is at step s (avail.c) */
  lbs__loads_of(x, x->wnav, g, x->fixnav, load_ns);
  double limb;
  if (imb) lbs__avail_imbalance(g, load_ns, x->P, imb, &limb); /* over the live processors */
  return LBS_OK;
}

static lbs_err optimize_hook(void *nav, int64_t maxcand, const int64_t **steps, int *nsteps) {
  return lbs__optimize(nav, maxcand, steps, nsteps);
}

/* Local: the result's series for the window. */
static lbs_err result_alloc(lbs__engine *x) {
  lbs_replay_result *r = x->r = calloc(1, sizeof *r);
  if (!r) return lbs_fail(LBS_NOMEM, "result");
  size_t S = (size_t)x->S;
  r->metric = strdup(x->o->metric ? x->o->metric : "");
  /* recorded partitions: the application's, not the partitioner option's */
  r->partitioner = strdup(x->recorded ? "recorded" : x->o->partitioner);
  r->policy = strdup(x->o->policy);
  r->app_step = malloc(S * sizeof *r->app_step);
  r->step_ns = malloc(S * sizeof *r->step_ns);
  r->step_compute_ns = malloc(S * sizeof *r->step_compute_ns);
  r->imbalance = malloc(S * sizeof *r->imbalance);
  r->loadimb = malloc(S * sizeof *r->loadimb);
  r->excess_ns = malloc(S * sizeof *r->excess_ns);
  r->repartitioned = calloc(S, sizeof *r->repartitioned);
  r->proc_ns = malloc(S * (size_t)x->P * sizeof *r->proc_ns);
  r->reparts = malloc(S * sizeof *r->reparts);
  if (x->o->save_assignment) r->assign = malloc((S + 1) * (size_t)x->E * sizeof *r->assign);
  if (!r->metric || !r->partitioner || !r->policy || !r->app_step || !r->step_ns ||
      !r->step_compute_ns || !r->imbalance || !r->loadimb || !r->excess_ns || !r->repartitioned ||
      !r->proc_ns || !r->reparts || (x->o->save_assignment && !r->assign))
    return lbs_fail(LBS_NOMEM, "result series for %lld steps", (long long)x->S);
  if (!x->o->metric) {
    lbs_metric_info mi;
    lbs_trace_metric(x->t, 0, &mi);
    free(r->metric);
    if (!(r->metric = strdup(mi.name))) return lbs_fail(LBS_NOMEM, "result");
  }
  if (x->nph && !(r->phases = calloc((size_t)x->nph, sizeof *r->phases)))
    return lbs_fail(LBS_NOMEM, "result");
  for (int k = 0; k < x->nph; k++) {
    lbs_metric_info mi;
    lbs_trace_metric(x->t, x->phm[k], &mi);
    if (!(r->phases[k] = strdup(mi.name))) return lbs_fail(LBS_NOMEM, "result");
    r->nphases = k + 1;
  }
  r->mode = x->o->mode;
  r->des_shared = lbs__ovl_on(x);
  /* Only a shared asked for by name is warned of; auto falls back to ordered silently. */
  int asked = x->o->des_overlap == LBS_DES_SHARED;
  if (x->rank == 0 && x->o->mode == LBS_MODE_BSP && asked)
    lbs_log(LBS_LOG_WARN, "des_overlap = shared applies to des: bsp's steps meet at barriers");
  if (x->rank == 0 && x->o->mode == LBS_MODE_DES && asked && !r->des_shared)
    lbs_log(LBS_LOG_WARN,
            "des_overlap = shared does not apply %s: each step's transfers go after "
            "the earlier steps' (ordered)",
            lbs_grid_sharing(x->g) != LBS_SHARING_FAIR ? "with sharing = fifo"
            : x->nph > 1                               ? "to a trace with phases"
            : x->live                                  ? "on a grid with availability profiles"
                                                       : "under a policy that plans ahead");
  r->part_sizes = x->o->part_sizes;
  r->elements = x->E;
  r->steps = x->S;
  r->first_step = x->S0;
  r->procs = x->P;
  r->partition_mode = x->pmode;
  r->ranks = x->size;
  r->mig_fit = x->mig_fit, r->mig_points = x->mig_points;
  r->mig_fixed_us = x->mig_fixed_us, r->mig_per_elem_ns = x->mig_per_elem_ns;
  r->outside = x->ev_out >= 0;
  return LBS_OK;
}

void lbs_replay_result_free(lbs_replay_result **rp) {
  if (!rp || !*rp) return;
  lbs_replay_result *r = *rp;
  free(r->metric), free(r->partitioner), free(r->policy), free(r->app_step), free(r->step_ns);
  free(r->step_compute_ns), free(r->imbalance), free(r->loadimb), free(r->excess_ns),
      free(r->repartitioned), free(r->proc_ns);
  for (int k = 0; k < r->nphases; k++) free(r->phases[k]);
  free(r->phases);
  free(r->reparts), free(r->assign), free(r->series_step), free(r->series_value), free(r);
  *rp = NULL;
}

/* Collective: a repartition before window step s (the policy's, or one a failure forces), with
 * the work the application measured last: the previous step's; recorded, its loads made current. */
static lbs_err repart_at(lbs__engine *x, int64_t s) {
  lbs_replay_result *r = x->r;
  const double *pw;
  x->cur_step = s;
  lbs_err e = lbs__agree(x, lbs__ovl_drain(x)); /* the barrier: every step in flight ends */
  if (!e) e = lbs__part_weights(x, x->S0 + s - 1, x->wprev, &pw);
  if (!e) e = lbs__repartition(x, pw, x->o->approach, s, &r->reparts[r->nrep]);
  if (!e && r->assign)
    e = lbs__gather_assignment(x, r->assign + (size_t)(r->nrep + 1) * (size_t)x->E);
  if (e) return e;
  r->reparts[r->nrep].step = s;
  double wi = r->reparts[r->nrep].work_imbalance;
  if (wi > r->max_work_imbalance) r->max_work_imbalance = wi;
  r->tolerance_missed += r->tolerance > 0 && x->own_imb > r->tolerance * (1 + 1e-9);
  r->partition_ns += r->reparts[r->nrep].partition_ns;
  r->migration_ns += r->reparts[r->nrep].migration_ns;
  r->moved += r->reparts[r->nrep].moved;
  r->recorded_costs += r->reparts[r->nrep].recorded != 0;
  r->nrep++;
  r->repartitioned[s] = 1;
  lbs__compute_loads(x, s);
  return LBS_OK;
}

/* Collective: the initial partition, from the first step's work: setup, not charged. */
static lbs_err initial_partition(lbs__engine *x) {
  lbs_replay_result *r = x->r;
  const double *pw = NULL;
  lbs_repart_rec rec;
  lbs_err e = lbs__read_work(x, x->S0, x->w);
  if (!e) e = lbs__part_weights(x, x->S0, x->w, &pw);
  if (!e) e = lbs__repartition(x, pw, 0, -1, &rec);
  if (!e && r->assign) e = lbs__gather_assignment(x, r->assign);
  if (e) return e;
  /* balance: the partitioner's promise against what it did */
  r->tolerance = x->part ? lbs_part_tolerance(x->part) : 0;
  r->initial_work_imbalance = r->max_work_imbalance = rec.work_imbalance;
  r->tolerance_missed = r->tolerance > 0 && x->own_imb > r->tolerance * (1 + 1e-9);
  /* time and links start afresh */
  for (int p = 0; p < x->P; p++) x->clock[p] = 0;
  lbs_net_reset(x->net);
  return LBS_OK;
}

/* Collective: the policy's view before window step s and its decision (1 in *rep: repartition). */
static lbs_err decide(lbs__engine *x, int64_t s, double imb, int *rep) {
  lbs_replay_result *r = x->r;
  if (x->recorded) /* where the recorded assignment changes (recorded.c), the same on every rank */
    return *rep = lbs__recorded_due(x, s), LBS_OK;
  int64_t since = s;
  for (int k = r->nrep - 1; k >= 0; k--)
    if (r->reparts[k].step <= s) {
      since = s - r->reparts[k].step;
      break;
    }
  int64_t last =
      r->nrep ? r->reparts[r->nrep - 1].partition_ns + r->reparts[r->nrep - 1].migration_ns : 0;
  int64_t est = r->nrep ? last : (x->o->cost == LBS_COST_ZERO ? 0 : lbs__model_partition_ns(x));
  lbs_loadview v = {.step = s,
                    .steps = x->S,
                    .since = since,
                    .procs = x->P,
                    .load_ns = x->load,
                    .imbalance = imb,
                    .step_ns = r->step_ns,
                    .past_imbalance = r->imbalance,
                    .past_excess_ns = r->excess_ns,
                    .last_repart_ns = last,
                    .est_repart_ns = est,
                    .eval_step = eval_step,
                    .optimize = lbs__plans_ahead(x) ? optimize_hook : NULL,
                    .nav = x};
  x->deciding = s, x->split_nav = 0;
  return lbs__decide_done(x, lbs_policy_decide(x->policy, &v, rep), rep);
}

/* Local: what step s did, into the result. */
static void record_step(lbs__engine *x, int64_t s, int64_t adv, double imb, double limb,
                        int64_t *busy) {
  lbs_replay_result *r = x->r;
  int64_t mx = 0;
  double sum = 0;
  int live = 0; /* a failed processor's idleness is no imbalance */
  lbs_trace_app_step(x->t, x->S0 + s, &r->app_step[s]);
  for (int p = 0; p < x->P; p++) {
    mx = x->load[p] > mx ? x->load[p] : mx;
    busy[p] += x->load[p];
    r->proc_ns[s * x->P + p] = x->load[p];
    if (!lbs_grid_proc_failed(x->g, p)) sum += (double)x->load[p], live++;
  }
  r->step_ns[s] = adv;
  r->step_compute_ns[s] = lbs__compute_done(x, NULL, x->load, x->phload, NULL); /* phase-wise */
  r->imbalance[s] = imb;
  r->loadimb[s] = limb;
  r->excess_ns[s] = mx - llround(sum / live);
  if (imb > r->max_imbalance) r->max_imbalance = imb;
}

/* Collective: window step s, from reading its work to recording it. */
static lbs_err one_step(lbs__engine *x, int64_t s, int64_t *busy) {
  lbs_err e;
  if (s > 0) {
    double *tmp = x->wprev;
    x->wprev = x->w;
    x->w = tmp;
    if ((e = lbs__read_work(x, x->S0 + s, x->w))) return e;
  }
  if ((e = lbs__read_phases(x, x->S0 + s, x->wph))) return e;
  int reloaded; /* the halo of this step under its own communication weights */
  if ((e = lbs__edge_weights_at(x, x->S0 + s, &reloaded))) return e;
  if (reloaded && (e = lbs__build_halo(x))) return e;
  int forced; /* a processor fails now: its elements move before the step (avail.c) */
  if ((e = lbs__avail_step(x, s, &forced))) return e;
  lbs__compute_loads(x, s);
  if (forced && (e = repart_at(x, s))) return e;
  double imb, limb;
  lbs__avail_imbalance(x->g, x->load, x->P, &imb, &limb);
  int rep = 0;
  if ((e = decide(x, s, imb, &rep))) return e;
  if (rep && !forced) { /* (a forced repartition at this step has met the policy's wish) */
    if ((e = repart_at(x, s))) return e;
    lbs__avail_imbalance(x->g, x->load, x->P, &imb, &limb);
  }
  int64_t adv;
  /* charged by this step only (the optimiser's searches run lbs__run_step without it) */
  if (x->ev_out >= 0 && (e = lbs__outside_at(x, s, &x->outside_ns))) return e;
  x->r->outside_ns += x->outside_ns;
  e = lbs__agree(x, lbs__ovl_on(x) ? lbs__ovl_step(x, s, &adv) : lbs__run_step(x, &adv));
  x->outside_ns = 0;
  if (e) return e;
  if (x->rec && x->rec->step &&
      (e = lbs__agree(x, x->rec->step(x->rec->arg, s, x->load, x->P, x->halo, x->nhalo))))
    return e;
  record_step(x, s, adv, imb, limb, busy);
  return LBS_OK;
}

/* The process's peak resident set (VmHWM), MB; 0 when unknown. */
static double peak_rss_mb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  double kb = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmHWM: %lf kB", &kb) == 1) break;
  if (f) fclose(f);
  return kb / 1024;
}

/* Collective: the run's totals once every step is done. */
static void finish(lbs__engine *x, int64_t compute_bsp, const int64_t *busy, double t_start) {
  lbs_replay_result *r = x->r;
  for (int p = 0; p < x->P; p++)
    r->total_ns = x->clock[p] > r->total_ns ? x->clock[p] : r->total_ns;
  int64_t busiest = 0;
  double imb_sum = 0, limb_sum = 0;
  for (int p = 0; p < x->P; p++) busiest = busy[p] > busiest ? busy[p] : busiest;
  for (int64_t s = 0; s < x->S; s++) imb_sum += r->imbalance[s], limb_sum += r->loadimb[s];
  /* compute time: what the run needs with free communication in this mode */
  r->compute_ns = x->o->mode == LBS_MODE_BSP ? compute_bsp : busiest;
  r->comm_ns = r->total_ns - r->compute_ns - r->partition_ns - r->migration_ns - r->outside_ns;
  r->mean_imbalance = imb_sum / (double)x->S;
  r->mean_loadimb = limb_sum / (double)x->S;
  r->optimum_ns = x->opt_done ? x->opt_total : -1;
  const int64_t *ss;
  const double *sv;
  int ns = lbs_policy_series(x->policy, &ss, &sv);
  if (ns > 0 && (r->series_step = malloc((size_t)ns * sizeof *ss)) &&
      (r->series_value = malloc((size_t)ns * sizeof *sv))) {
    memcpy(r->series_step, ss, (size_t)ns * sizeof *ss);
    memcpy(r->series_value, sv, (size_t)ns * sizeof *sv);
    r->nseries = ns;
  }
  r->peak_rss_mb = peak_rss_mb();
  MPI_Allreduce(MPI_IN_PLACE, &r->peak_rss_mb, 1, MPI_DOUBLE, MPI_MAX, x->comm);
  r->wall_s = now_s() - t_start;
  MPI_Allreduce(MPI_IN_PLACE, &r->wall_s, 1, MPI_DOUBLE, MPI_MAX, x->comm);
}

lbs_err lbs_replay(lbs_trace *t, const lbs_grid *g, const lbs_replay_opts *o, MPI_Comm comm,
                   lbs_replay_result **out) {
  return lbs_replay_record(t, g, o, NULL, comm, out);
}

lbs_err lbs_replay_record(lbs_trace *t, const lbs_grid *g, const lbs_replay_opts *o,
                          const lbs_replay_recorder *recorder, MPI_Comm comm,
                          lbs_replay_result **out) {
  *out = NULL;
  lbs__engine x;
  memset(&x, 0, sizeof x);
  x.t = t, x.g = g, x.o = o, x.comm = comm, x.rec = recorder;
  MPI_Comm_rank(comm, &x.rank);
  MPI_Comm_size(comm, &x.size);
  double t_start = now_s();
  lbs_err e = lbs__engine_setup(&x);
  if (!e) e = lbs__agree(&x, result_alloc(&x));
  if (!e) e = initial_partition(&x);
  int64_t compute_bsp = 0, *busy = calloc((size_t)x.P + 1, sizeof *busy);
  if (!e) e = lbs__agree(&x, busy ? LBS_OK : lbs_fail(LBS_NOMEM, "busy times"));
  for (int64_t s = 0; s < x.S && !e; s++) {
    if ((e = one_step(&x, s, busy))) break;
    compute_bsp += x.r->step_compute_ns[s];
    int stop = x.rank == 0 && o->progress &&
               o->progress(o->progress_arg, s + 1, x.S); /* rank 0's: every rank stops */
    MPI_Bcast(&stop, 1, MPI_INT, 0, comm);
    if (stop) {
      e = lbs_fail(LBS_INVAL, "the replay was stopped after step %lld of %lld", (long long)(s + 1),
                   (long long)x.S);
      break;
    }
  }
  if (!e) e = lbs__agree(&x, lbs__ovl_drain(&x)); /* the steps still in flight end */
  if (!e) {
    finish(&x, compute_bsp, busy, t_start);
    *out = x.r;
    x.r = NULL;
  }
  free(busy);
  lbs_replay_result_free(&x.r);
  lbs__engine_free(&x);
  return e;
}
