/* lbsim_plugin.h - lbsim's plug-in interface (installed in PREFIX/include/lbsim/ with the
 * headers it includes). A plug-in is a shared object that lbsim loads at start-up, with
 * `lbsim --plugin PATH.so <command> ...` or from LBSIM_PLUGIN_PATH (colon-separated .so
 * files). It exports one function, lbsim_plugin_entry, that returns its description: the
 * repartitioning policies (lbs_policy_ops, lbs_policy.h) and partitioners
 * (lbs_partitioner_ops, lbs_part.h) it adds. Their names then work wherever a built-in's does
 * (--policy, --policies, --partitioner, sweep files), after "name:" the arguments the ops'
 * init or create parse. A name may not be a built-in's or an earlier plug-in's.
 *
 *   #include <lbsim_plugin.h>
 *   static const lbs_policy_ops mine = {.abi = LBS_POLICY_ABI, .name = "mine", .usage = "mine:T",
 *                                       .init = init, .decide = decide, .fini = free,
 *                                       .example = "mine:0.2"};   (a spec the contract test runs)
 *   static const lbs_policy_ops *const policies[] = {&mine, NULL};
 *   static const lbsim_plugin plugin = {.abi = LBSIM_PLUGIN_ABI, .name = "mine", .policies =
 * policies}; const lbsim_plugin *lbsim_plugin_entry(void) { return &plugin; }
 *
 * Build it with `$(pkg-config --cflags lbsim-plugin)` (mpicc: lbs_part.h includes mpi.h) or
 * CMake's `find_package(lbsim)` and `target_link_libraries(p PRIVATE lbsim::plugin)`, as a
 * shared library (examples/plugins/). The plug-in may call the functions these headers
 * declare (lbs_fail, lbs_log, ...): the lbsim executable exports them.
 *
 * It may also add speed models (lbs_speed_ops, lbs_grid.h: a [nodetype] speed_model with its
 * own keys) and MinEX latency-tolerance functions (lbs_minex_latency_ops, lbs_minex.h: for
 * `[minex] latency = NAME[:ARGS]`).
 *
 * Versions: LBSIM_PLUGIN_ABI is this struct's (2 since speed_models and latencies), and each
 * ops table carries its own (LBS_POLICY_ABI, 3 since lbs_policy_ops.flags; LBS_PART_ABI, 4
 * since usage, example, flags and sections, with lbs_part_input's wdim and weights added at its
 * end within 4: only a partitioner flagged LBS_PART_WEIGHTS gets them; fixed likewise, which
 * only one flagged LBS_PART_FIXED must honour; LBS_SPEED_ABI, 3 since
 * bind_metric and range; LBS_MINEX_LATENCY_ABI, 2 since flags). An ops ABI grows by fields at
 * the end of its table: lbsim takes a table built against the number before (policy 2,
 * partitioner 3, speed model 2, latency function 1) as today's with the new fields 0, and refuses
 * any other number ("rebuild it"), as it refuses another LBSIM_PLUGIN_ABI. Designated
 * initializers keep a plug-in's source compiling across them. */
#ifndef LBSIM_PLUGIN_H
#define LBSIM_PLUGIN_H

#include "lbs_core.h"
#include "lbs_grid.h"
#include "lbs_minex.h"
#include "lbs_part.h"
#include "lbs_policy.h"

#define LBSIM_PLUGIN_ABI 2

typedef struct lbsim_plugin {
  int abi;                                        /* LBSIM_PLUGIN_ABI */
  const char *name;                               /* its name (LBSIM_LOG=debug shows it loaded) */
  const lbs_policy_ops *const *policies;          /* NULL-terminated; NULL: none */
  const lbs_partitioner_ops *const *partitioners; /* NULL-terminated; NULL: none */
  const lbs_speed_ops *const *speed_models;       /* NULL-terminated; NULL: none */
  const lbs_minex_latency_ops *const *latencies;  /* NULL-terminated; NULL: none */
} lbsim_plugin;

/* The symbol lbsim looks up (with dlsym) in a plug-in. The tables it returns are static:
 * lbsim keeps the plug-in loaded until it exits. */
#define LBSIM_PLUGIN_ENTRY "lbsim_plugin_entry"
const lbsim_plugin *lbsim_plugin_entry(void);

#endif
