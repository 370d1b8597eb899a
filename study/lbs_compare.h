/* lbs_compare.h - policies compared (lbsim policy compare): a list of policies replayed on one
 * session (the same trace, grid, partitioner, mode and cost model), the optimum among them and
 * each policy's gap to it, the series as CSV files and the comparison as a JSON document. */
#ifndef LBS_COMPARE_H
#define LBS_COMPARE_H

#include <mpi.h>

#include "lbs_json.h"
#include "lbs_study.h"

#define LBS_COMPARE_MAX 64 /* policies in one comparison */

/* A comparison: one replay per policy, in the order given. */
typedef struct lbs_compare {
  lbs_replay_result *r[LBS_COMPARE_MAX]; /* each policy's replay (owned) */
  int n;                                 /* replays made */
  int iopt; /* the optimum's index (the last policy whose flags say LBS_POLICY_OPTIMUM), -1: none */
} lbs_compare;

/* Watches a comparison on rank 0: called before policy k's replay (after = 0), where it may set
 * o's progress and search_progress (a progress bar each), and after it (after = 1), after which
 * they are cleared. */
typedef void (*lbs_compare_watch_fn)(void *arg, int k, lbs_replay_opts *o, int after);

/* Replays the session's trace with each of the n policies (at most LBS_COMPARE_MAX), collective
 * over comm (lbs_replay: every rank gets every result, errors agreed), into c (zeroed first; freed
 * with lbs_compare_free, also after a failure). The session's options are the replays', but for a
 * measured cost model (a grid file's or an override's), taken as model: the runs must compare and
 * repeat; s->opts.cost says so after. watch (may be NULL) is called on rank 0. */
lbs_err lbs_compare_run(lbs_session *s, const char *const *policies, int n, MPI_Comm comm,
                        lbs_compare_watch_fn watch, void *watch_arg, lbs_compare *c);
/* One network model for the n policies to be compared (lbs_compare_run, lbsim validate): in des
 * on a fair grid, a policy that plans ahead (optimal) runs ordered steps, so beside other policies
 * o->des_overlap = auto becomes ordered for all, and shared is refused (LBS_INVAL, naming both). */
lbs_err lbs_compare_one_model(lbs_replay_opts *o, const lbs_grid *g, const char *const *policies,
                              int n);
/* The index of the optimum among n policies: the last whose flags say LBS_POLICY_OPTIMUM, or -1. */
int lbs_compare_optimum(const char *const *policies, int n);
/* Replay k's gap to the optimum: its extra total time as a fraction of the optimum's; NAN
 * without an optimum. */
double lbs_compare_gap(const lbs_compare *c, int k);
/* Writes the comparison's CSV files into the directory dir (which exists): imbalance.csv (each
 * step's imbalance per policy), summary.csv (a row per policy, gap_to_optimal empty without an
 * optimum) and series_<policy>.csv for each policy that records a series (adaptive's interval
 * at each probe; ':' and '/' in the name as '_'). LBS_IO naming the file on a failed write. Local.
 */
lbs_err lbs_compare_write_csv(const lbs_compare *c, const char *dir);
/* The comparison as a JSON document: the session's trace, grid, partitioner and mode, then each
 * policy with lbs_replay_json's fields and its gap_to_optimal (null without an optimum); NULL when
 * out of memory. The caller owns it. */
json_t *lbs_compare_json(const lbs_compare *c, const lbs_session *s);
/* Frees the replays and zeroes c. */
void lbs_compare_free(lbs_compare *c);

#endif
