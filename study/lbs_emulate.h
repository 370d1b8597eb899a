/* lbs_emulate.h - a heterogeneous grid emulated on this machine (lbsim validate --emulate).
 *
 * Each MPI rank of a real run is capped to its processor's speed with the Linux CPU controller,
 * as platform emulators for grid research (Distem, Wrekavoc) do: a processor the grid gives half
 * this machine's speed runs its rank in a control group allowed half a CPU (cgroup v2 cpu.max,
 * or v1 cpu.cfs_quota_us over cpu.cfs_period_us, whichever this machine mounts). A rank's share
 * is the grid's time for a second of this machine's work on that processor, inverted: 1 s / the
 * processor's compute time of 1e9 work units (a grid probed here has ns_per_work = 1, speed 1:
 * share 1, no cap). The groups lie under the controller's root in CONTROLLER/lbsim-emulate-PID,
 * one child per rank (rank0, rank1, ...), made once and kept for all the runs; each rank joins
 * its own as it starts (lbs_emulate_wrap: a shell that writes its pid, then execs the app).
 * lbs_emulate_close kills what is left in them and removes them; lbs_emulate_remove does that
 * from a signal handler; a group whose lbsim process died (SIGKILL) is removed by the next
 * lbs_emulate_open. LBSIM_CGROUP_CPU=DIR names the controller's directory instead of looking
 * in /proc/self/mounts (a test's way to point at none). */
#ifndef LBS_EMULATE_H
#define LBS_EMULATE_H

#include <stdint.h>

#include "lbs_core.h"
#include "lbs_grid.h"

#define LBS_EMULATE_MAXRANKS 256
#define LBS_EMULATE_MIN_SHARE 0.05 /* one CPU's quota of 1 ms over a 20 ms period */

typedef struct lbs_emulate {
  int version;                        /* 2 (cpu.max) or 1 (cpu.cfs_quota_us); 0 before open */
  char dir[4096];                     /* CONTROLLER/lbsim-emulate-PID ("" none made) */
  int ranks;                          /* groups rank0 .. rank(ranks-1) */
  int64_t period_us;                  /* the quota's period */
  double share[LBS_EMULATE_MAXRANKS]; /* each rank's CPU share, in (0, 1]; 1: not capped */
} lbs_emulate;

/* The shares rank r = processor r of the grid runs at (the grid has >= ranks processors), each
 * checked: a processor faster than this machine (share above 1), slower than
 * LBS_EMULATE_MIN_SHARE, or failed is refused, naming it. Pure (no cgroup touched). */
lbs_err lbs_emulate_shares(const lbs_grid *g, int ranks, double *share);
/* Finds a writable CPU controller, checks that this process may use a CPU per rank, removes the
 * groups of dead lbsim processes and makes this one's with each rank's quota. Refusals say why
 * (no controller mounted, not writable, more ranks than CPUs) before anything is made; on
 * failure what was made is removed. */
lbs_err lbs_emulate_open(lbs_emulate *em, const lbs_grid *g, int ranks);
/* The words that go before the app on the launcher's line (after `-n R`): a shell that moves
 * itself into its rank's group (rank from OMPI_COMM_WORLD_RANK, PMIX_RANK or PMI_RANK) and execs
 * the rest of the line. Fills w[0..4) (pointers into em and static text); returns 4. */
int lbs_emulate_wrap(const lbs_emulate *em, char **w);
/* Rank r's throttling so far (cpu.stat): periods in which it ran out of quota, and for how long
 * it was held back, in seconds. */
lbs_err lbs_emulate_throttled(const lbs_emulate *em, int r, int64_t *periods, double *seconds);
/* Kills what is left in the groups, removes them and zeroes em (a zeroed em is fine). */
void lbs_emulate_close(lbs_emulate *em);
/* The same for a group directory, using only async-signal-safe calls (a signal handler's). */
void lbs_emulate_remove(const char *dir);
/* "cgroup v2 cpu.max" or "cgroup v1 cpu.cfs_quota_us" ("" before open). */
const char *lbs_emulate_controller(const lbs_emulate *em);

#endif
