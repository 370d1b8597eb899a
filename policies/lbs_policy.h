/* lbs_policy.h - repartitioning policies: "should the application repartition before the
 * next step?", chosen by name with arguments after colons ("fixed:20"). */
#ifndef LBS_POLICY_H
#define LBS_POLICY_H

#include <stdint.h>

#include "lbs_core.h"

/* What a policy sees before step `step` is computed. Loads are per-processor compute times
 * (ns) under the current assignment; history arrays cover steps 0..step-1. */
typedef struct lbs_loadview {
  int64_t step;                  /* the step about to run (0-based) */
  int64_t steps;                 /* steps in the trace */
  int64_t since;                 /* steps run since the last repartition (or the start) */
  int procs;                     /* P */
  const int64_t *load_ns;        /* P compute times of this step under the current assignment */
  double imbalance;              /* (Lmax - Lavg) / Lmax of load_ns */
  const int64_t *step_ns;        /* time each past step took */
  const double *past_imbalance;  /* imbalance of each past step */
  const int64_t *past_excess_ns; /* Lmax - Lavg of each past step (ns) */
  int64_t last_repart_ns;        /* partition + migration time of the last repartition, 0 if none */
  int64_t est_repart_ns;         /* estimated cost of a repartition now: the last one's, or the
                                    partitioning model's before the first */
  /* Step navigation: the per-processor compute times (P entries) of any step 0..steps-1,
   * forwards or backwards, under the current assignment, without advancing simulated
   * time. Collective under MPI: every rank's policy must make the same calls (policies are
   * deterministic, so they do). NULL when the caller offers no navigation. */
  lbs_err (*eval_step)(void *nav, int64_t step, int64_t *load_ns, double *imbalance);
  /* The offline optimum: the repartition steps that minimise the total simulated time,
   * considering at most maxcand candidate steps. Owned by the caller's engine, valid for the
   * run. Offered only to a policy whose ops say LBS_POLICY_PLANS_AHEAD (the replay holds what
   * the optimum assumes for those alone); NULL otherwise. */
  lbs_err (*optimize)(void *nav, int64_t maxcand, const int64_t **steps, int *nsteps);
  void *nav;
} lbs_loadview;

/* What a policy needs of the engine and what it offers its callers (lbs_policy_ops.flags). The
 * engine and the CLI ask these, never a policy's name. */
enum {
  /* It plans the whole run before its first step through view->optimize (the offline optimum),
   * which the replay offers to such a policy alone. The plan holds only on a grid that does not
   * change and with a partitioner whose answer depends on the step alone: the replay refuses
   * [availability] profiles and a partitioner that uses the current assignment
   * (lbs_part_uses_current) under it. */
  LBS_POLICY_PLANS_AHEAD = 1u << 0,
  /* What it plans is the optimum (with LBS_POLICY_PLANS_AHEAD): `lbsim policy compare` measures
   * every policy's gap to it (gap_to_optimal). */
  LBS_POLICY_OPTIMUM = 1u << 1,
  /* Its argument starts with a script's path ("lua:FILE.lua[:ARGS]"). Its example's path is
   * relative to lbsim's source tree, where the contract test finds it. */
  LBS_POLICY_SCRIPT = 1u << 2,
  /* It needs view->eval_step, the loads of steps to come (adaptive): only a replay, which knows
   * every step's work, offers it; an application deciding as it runs (apps/) refuses it. */
  LBS_POLICY_NAVIGATES = 1u << 3,
  /* Its partitions are the application's own: the trace's recorded assignments (element owners,
   * lbs_trace_owners_*). The replay starts from the one in force at its first step and moves to
   * each later one before the first step it applies to, instead of running the partitioner or
   * asking decide; a trace without them, or an application deciding as it runs, refuses it. */
  LBS_POLICY_RECORDED = 1u << 4,
  /* It never reads view->step_ns. A des replay whose steps share the network ([sim] des_overlap =
   * shared, or auto, the default, on a fair network) then skips working out the time of each
   * step still in flight as if it were the last (a copy of the network's simulation run to its
   * end, before every step); a policy without this flag (a script, a plug-in) gets those
   * provisional times, and pays for them. */
  LBS_POLICY_NO_STEP_TIMES = 1u << 5,
};

typedef struct lbs_policy_ops {
  int abi;           /* LBS_POLICY_ABI */
  const char *name;  /* "fixed" */
  const char *usage; /* "fixed:K (K >= 1 steps)" */
  /* Parses the arguments after "name:" (NULL when none). */
  lbs_err (*init)(void **state, const char *args);
  /* Sets *repartition to 1 to repartition before view->step. */
  lbs_err (*decide)(void *state, const lbs_loadview *view, int *repartition);
  void (*fini)(void *state); /* NULL-safe */
  /* Optional: a series the policy recorded (e.g. adaptive's interval per probe): n points
   * (step, value). NULL when the policy keeps none. */
  int (*series)(const void *state, const int64_t **steps, const double **values);
  /* A spec that runs on any view ("fixed:10", "adaptive:0.15:5:20"): the contract test
   * (tests/policies/test_policy_contract.c) creates the policy from it. NULL: none can be
   * written down, and the test skips it. */
  const char *example;
  unsigned flags; /* LBS_POLICY_* above; 0: none (ABI 3) */
} lbs_policy_ops;
/* 3 since flags. lbs_plugin_load takes a plug-in's table built against 2 (the same layout up to
 * example) as a 3 with no flags. */
#define LBS_POLICY_ABI 3

typedef struct lbs_policy lbs_policy;
/* Registers a policy after the built-in ones (tests add mocks; ops is borrowed, static);
 * LBS_INVAL when its name is taken, its ABI is not LBS_POLICY_ABI or the registry is full. */
lbs_err lbs_policy_register(const lbs_policy_ops *ops);
/* The registered policies, built-in ones first: how many, and the i-th (NULL out of range). */
int lbs_policy_count(void);
const lbs_policy_ops *lbs_policy_at(int i);
/* The registered policy a spec names ("optimal:100" -> optimal's ops), for asking its flags
 * before creating it; NULL when none is registered under that name. */
const lbs_policy_ops *lbs_policy_find(const char *spec);
const char *lbs_policy_known(void); /* "none, fixed:K, ..." (static storage) */
/* Splits a comma-separated list of policies ("--policies a,b:1,2,c": a, b:1,2 and c): a token
 * that starts with a digit belongs to the one before, so a steps:LIST policy keeps its commas;
 * empty tokens are skipped. The count, or max + 1 when there are more (out then holds max), or
 * -1 out of memory (out then holds none); the caller frees out[0 .. min(count, max) - 1]. */
int lbs_policy_split(const char *list, char **out, int max);
/* Creates a policy from its name; LBS_NOTFOUND naming the known ones (and the closest name),
 * LBS_INVAL for bad arguments with the expected form. */
lbs_err lbs_policy_create(const char *name, lbs_policy **out);
void lbs_policy_destroy(lbs_policy **p);
const char *lbs_policy_name(const lbs_policy *p);
/* The ops p was created from (static: valid while the registry holds them, i.e. for good). */
const lbs_policy_ops *lbs_policy_ops_of(const lbs_policy *p);
lbs_err lbs_policy_decide(lbs_policy *p, const lbs_loadview *view, int *repartition);
/* The policy's recorded series (see lbs_policy_ops.series); 0 points when none. */
int lbs_policy_series(const lbs_policy *p, const int64_t **steps, const double **values);

#endif
