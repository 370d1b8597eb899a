/* bench/lua_bridge - the per-call cost of a Lua policy's decide() against the built-in one
 * (issue 18), without the replay around it.
 *
 * usage: bench_lua_bridge [N [REPS]]   (run from the source tree's root: it reads
 *                                       examples/policies/adaptive.lua; defaults 50000 and 7)
 *
 * A fixed view: P = 16 processors with fixed loads, step 100 of 300, 100 steps of history,
 * and a synthetic step navigation (eval_step) whose imbalance grows with the distance from the
 * view's step (it crosses 0.15 100 steps ahead). Two scenarios:
 *   steady  since = 10: after its first call the policy's plan stands and decide() only
 *           compares; for a Lua policy this is the bridge alone (building the view table,
 *           the budgeted lua_pcall, the script's few comparisons).
 *   replan  since = 0: every call looks like an unplanned repartition, so adaptive re-plans
 *           each time: 9 eval_step probes per call (each one a P-entry table in Lua).
 * Policies: adaptive:0.15:5:20 (built-in), lua:examples/policies/adaptive.lua:0.15:5:20 and a
 * trivial Lua script whose decide returns false (written to a temporary file). Each
 * (scenario, policy) is timed REPS times over N calls, alternating the policies, after a
 * warm-up run of N/10 calls; each run on a freshly created policy whose first call (the
 * steady scenario's only plan) is not timed. Prints the median ns per decide() call and the
 * ratios to the built-in's; checks that the built-in and adaptive.lua decided alike. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lbs_policy.h"

#define P 16
#define STEPS 300
#define STEP 100
#define HIST STEP

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct {
  int64_t base; /* the view's step */
  long probes;  /* eval_step calls (counted) */
} nav;

/* Processor i's load is 1 ms + i us, processor 0's grows by 2 us per step of distance d
 * from the view's step: imbalance (0.9375 e - 7500) / (1e6 + e), e = 2000 d, is 0.15 at d = 100. */
static lbs_err eval_step(void *vn, int64_t step, int64_t *load, double *imbalance) {
  nav *n = vn;
  int64_t d = step - n->base, max = 0, sum = 0;
  if (d < 0) d = -d;
  for (int i = 0; i < P; i++) {
    load[i] = 1000000 + (i ? 1000 * (int64_t)i : 2000 * d);
    sum += load[i];
    if (load[i] > max) max = load[i];
  }
  *imbalance = (double)(max - sum / P) / (double)max;
  n->probes++;
  return LBS_OK;
}

typedef struct {
  const char *label, *spec;
  lbs_policy *p;
  double *ns; /* REPS medians' samples */
} pol;

#define NP 3 /* policies compared */

/* Writes the trivial Lua policy to a new file named after the template tmp (its X's
 * replaced). 1 when it cannot (said on stderr). */
static int write_trivial(char *tmp) {
  int fd = mkstemps(tmp, 4);
  if (fd < 0) {
    perror("mkstemps");
    return 1;
  }
  static const char trivial[] = "function decide(view) return false end\n";
  if (write(fd, trivial, sizeof trivial - 1) != (ssize_t)(sizeof trivial - 1)) {
    perror("write");
    return 1;
  }
  close(fd);
  return 0;
}

/* The fixed view (see the head of this file) over the caller's arrays, navigated by nv. */
static lbs_loadview make_view(nav *nv, int64_t *load, int64_t *step_ns, double *past_imb,
                              int64_t *excess) {
  double imb;
  eval_step(nv, STEP, load, &imb);
  for (int i = 0; i < HIST; i++) {
    step_ns[i] = 1100000 + 100 * i;
    past_imb[i] = 0.05 + 0.001 * i;
    excess[i] = 50000 + 500 * i;
  }
  return (lbs_loadview){.step = STEP,
                        .steps = STEPS,
                        .since = 10,
                        .procs = P,
                        .load_ns = load,
                        .imbalance = imb,
                        .step_ns = step_ns,
                        .past_imbalance = past_imb,
                        .past_excess_ns = excess,
                        .last_repart_ns = 2000000,
                        .est_repart_ns = 2000000,
                        .eval_step = eval_step,
                        .optimize = NULL,
                        .nav = nv};
}

/* One run of policy k: a fresh policy and its first call, untimed (the built-in records every
 * probe, which would otherwise pile up over the runs), then n timed calls: ns per call into
 * k->ns[r] (r < 0: the warm-up, not kept), probes per call into *probes, the decision into
 * *rep. 1 when the policy fails (said on stderr). */
static int run_policy(pol *k, const lbs_loadview *v, nav *nv, long n, int r, int *rep,
                      double *probes) {
  lbs_policy_destroy(&k->p);
  if (lbs_policy_create(k->spec, &k->p) || lbs_policy_decide(k->p, v, rep)) {
    fprintf(stderr, "bench_lua_bridge: %s: %s\n", k->spec, lbs_errmsg());
    return 1;
  }
  nv->probes = 0;
  double t0 = now();
  for (long i = 0; i < n; i++) {
    if (lbs_policy_decide(k->p, v, rep)) {
      fprintf(stderr, "bench_lua_bridge: %s: %s\n", k->spec, lbs_errmsg());
      return 1;
    }
  }
  double t = now() - t0;
  if (r >= 0) k->ns[r] = 1e9 * t / (double)n;
  *probes = (double)nv->probes / (double)n;
  return 0;
}

/* One scenario (name, since): a warm-up of N/10 calls, then reps runs of N calls, alternating
 * the policies; prints their medians, the ratios to the built-in's and the probes per call.
 * -1 when a policy failed, 1 when the built-in and adaptive.lua decided differently (both said
 * on stderr), else 0. */
static int run_scenario(pol *pols, lbs_loadview *v, nav *nv, long N, int reps, const char *name,
                        int64_t since) {
  v->since = since;
  double probes[NP] = {0};
  int rep_out[NP];
  for (int r = -1; r < reps; r++) /* r = -1: warm-up */
    for (int k = 0; k < NP; k++)
      if (run_policy(&pols[k], v, nv, r < 0 ? N / 10 : N, r, &rep_out[k], &probes[k])) return -1;
  double med[NP];
  for (int k = 0; k < NP; k++) {
    qsort(pols[k].ns, (size_t)reps, sizeof(double), cmp_double);
    med[k] = pols[k].ns[reps / 2];
  }
  for (int k = 0; k < NP; k++)
    printf("  %-8s %-30s %12.1f %14.1f %14.2f\n", name, pols[k].label, med[k], med[k] / med[0],
           probes[k]);
  printf("  %-8s %-30s %12.1f   (adaptive.lua minus trivial Lua: the script's own work)\n", name,
         "adaptive.lua - trivial", med[1] - med[2]);
  if (rep_out[0] != rep_out[1]) {
    fprintf(stderr,
            "bench_lua_bridge: the built-in and adaptive.lua decided differently (%d, %d)\n",
            rep_out[0], rep_out[1]);
    return 1;
  }
  return 0;
}

/* Runs both scenarios over the three policies and prints the table (see the head of this file).
 * Exit status 1 when something failed, 2 for a usage error. */
int main(int argc, char **argv) {
  long N = argc > 1 ? strtol(argv[1], NULL, 10) : 50000;
  int reps = argc > 2 ? atoi(argv[2]) : 7;
  if (N < 10 || reps < 1) {
    fprintf(stderr, "usage: bench_lua_bridge [N >= 10 [REPS >= 1]]\n");
    return 2;
  }
  char tmp[] = "/tmp/lbs_lua_bridge_XXXXXX.lua";
  if (write_trivial(tmp)) return 1;
  char trivial_spec[sizeof tmp + 8];
  snprintf(trivial_spec, sizeof trivial_spec, "lua:%s", tmp);

  int64_t load[P], step_ns[HIST], excess[HIST];
  double past_imb[HIST];
  nav nv = {STEP, 0};
  lbs_loadview v = make_view(&nv, load, step_ns, past_imb, excess);

  pol pols[NP] = {
      {"built-in adaptive:0.15:5:20", "adaptive:0.15:5:20", NULL, NULL},
      {"adaptive.lua:0.15:5:20", "lua:examples/policies/adaptive.lua:0.15:5:20", NULL, NULL},
      {"trivial Lua (return false)", trivial_spec, NULL, NULL}};
  int rc = 0;
  for (int k = 0; k < NP; k++) {
    if (!(pols[k].ns = calloc((size_t)reps, sizeof(double)))) {
      perror("calloc");
      rc = 1;
      goto out;
    }
  }

  static const struct {
    const char *name;
    int64_t since;
  } scen[] = {{"steady", 10}, {"replan", 0}};
  printf(
      "bench/lua_bridge: ns per decide() call, P=%d, step %d of %d, median of %d runs of %ld calls\n",
      P, STEP, STEPS, reps, N);
  printf("  %-8s %-30s %12s %14s %14s\n", "scenario", "policy", "ns/call", "x built-in",
         "probes/call");
  for (size_t sc = 0; sc < sizeof scen / sizeof scen[0]; sc++) {
    int src = run_scenario(pols, &v, &nv, N, reps, scen[sc].name, scen[sc].since);
    if (src) rc = 1;
    if (src < 0) goto out;
  }
out:
  for (int k = 0; k < NP; k++) {
    lbs_policy_destroy(&pols[k].p);
    free(pols[k].ns);
  }
  unlink(tmp);
  return rc;
}
