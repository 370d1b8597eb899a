/* session.c - a replay session: the grid file, its overrides, the grid, the replay options and
 * the trace, loaded one way for every command that replays (replay, policy compare, export,
 * validate, ...), and its runs saved with their provenance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_part.h"
#include "lbs_study.h"

lbs_err lbs_session_open(lbs_session *s, const char *trace, const char *grid,
                         const char *const *over, int nover) {
  *s = (lbs_session){.trace_path = trace, .grid_path = grid, .over = over, .nover = nover};
  lbs_replay_opts_default(&s->opts);
  s->failed = grid;
  lbs_err e = lbs_config_load(grid, &s->cfg);
  for (int i = 0; !e && i < nover; i++)
    e = lbs_config_override(s->cfg, over[i]); /* left to right */
  if (!e) e = lbs_grid_from_config(s->cfg, &s->grid);
  if (!e)
    e = lbs_replay_opts_from_config(s->cfg,
                                    &s->opts); /* [sim]: the grid file's, then the overrides' */
  /* every partitioner's section, not only the one this run creates: a file is sound or not
   * whichever partitioner a later run names, and `grid info` checks it the same way */
  if (!e) e = lbs_part_check_config(s->cfg);
  if (e) return e;
  s->opts.cfg = s->cfg;
  s->failed = trace;
  if (trace && (e = lbs_trace_open(trace, &s->trace))) return e;
  s->failed = NULL;
  return LBS_OK;
}

void lbs_session_close(lbs_session *s) {
  lbs_trace_close(&s->trace);
  lbs_grid_destroy(&s->grid);
  lbs_config_destroy(&s->cfg);
  *s = (lbs_session){0};
}

lbs_err lbs_session_save(const lbs_session *s, const char *results, const char *kind,
                         lbs_replay_result *const *r, int n, int iopt, lbs_progress_fn progress,
                         void *progress_arg) {
  lbs_run_info *info = malloc((size_t)(n > 0 ? n : 1) * sizeof *info);
  if (!info) return lbs_fail(LBS_NOMEM, "%s: run provenance", results);
  lbs_prov_study st;
  lbs_prov_run ri;
  lbs_prov_study_init(&st, kind, NULL);
  lbs_prov_run_init(&ri, s->trace_path, s->grid_path, s->cfg, s->over, s->nover, (int)s->opts.cost);
  st.info.progress = progress;
  st.info.progress_arg = progress_arg;
  for (int k = 0; k < n; k++) {
    info[k] = ri.info;
    if (iopt >= 0) { /* the optimum's total, and each run's gap to it */
      double opt = (double)r[iopt]->total_ns;
      info[k].optimum_s = 1e-9 * opt;
      info[k].gap_to_optimal = ((double)r[k]->total_ns - opt) / opt;
    }
  }
  lbs_err e = lbs_results_save_study(results, &st.info, r, info, n, NULL);
  lbs_prov_run_free(&ri);
  free(info);
  return e;
}
