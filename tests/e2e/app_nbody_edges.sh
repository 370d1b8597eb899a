#!/usr/bin/env bash
# apps/nbody --edges: the communication weights recorded per step by the application itself
# (--edges stored: lbsprof_edge_weights, edge_weight = stored@step) are the rule's (--edges rule,
# the default: flag*rwgt[target]). The same run (seed, size, a repartition at step 3, so the
# stored weights cross an lbsprof_remap) profiled both ways on 2 ranks, losslessly (rwgt exact,
# so the rule's products are the stored ones to the bit): at every step, every arc of the one
# trace weighs what it weighs in the other (edge_compare), and the stored trace says stored@step
# and holds an array at most once per step. Then the same with LBSPROF_COMPACT=deferred, and
# a bad --edges value refused.
set -u
LBSIM=${1:?usage: app_nbody_edges.sh lbsim nbody edge_compare}
APP=${2:?}
COMPARE=${3:?}
MPI=(timeout 120 mpiexec --allow-run-as-root --oversubscribe)
PMPI=("${MPI[@]}" --bind-to none)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
unset LBSPROF_CODEC LBSPROF_SAMPLE_EVERY LBSPROF_COLLECTOR LBSPROF_METRICS LBSPROF_ON_FULL LBSPROF_COMPACT
export LBSPROF_BOUND=lossless
RUN=(--bodies 2048 --leaf 16 --steps 6 --seed 3 --schedule 3)

expect 0 "profile with --edges rule" -- "${PMPI[@]}" -n 2 "$APP" "${RUN[@]}" --trace "$T/rule.lbt" --edges rule
expect 0 "profile with --edges stored" -- "${PMPI[@]}" -n 2 "$APP" "${RUN[@]}" --trace "$T/stored.lbt" --edges stored
expect 0 "trace check of the stored trace" -- "$LBSIM" trace check "$T/stored.lbt"
expect 0 "trace info of the stored trace" -- "$LBSIM" trace info "$T/stored.lbt"
has "$T/out" "edges     stored@step" "the stored trace's edge_weight"
has "$T/out" "--edges stored" "app.args of the stored trace"
expect 0 "trace info of the rule trace" -- "$LBSIM" trace info "$T/rule.lbt"
has "$T/out" "edges     flag*rwgt[target]" "the rule trace's edge_weight"
expect 0 "the same weights at every step" -- "$COMPARE" "$T/rule.lbt" "$T/stored.lbt"
has "$T/out" "6 steps" "edge_compare's steps"
# an array at step 0 (the close flags x bodies differ from the flags alone), and at most one
# per step (the cells' populations change from step to step)
python3 -c "import re,sys; n=int(re.search(r'(\d+) arrays', open(sys.argv[1]).read()).group(1)); sys.exit(not 1 <= n <= 6)" \
  "$T/out" && ok || bad "arrays stored: $(cat "$T/out")"
expect 0 "a replay of the stored trace" -- "$LBSIM" replay "$T/stored.lbt" --grid "$(dirname "$0")/../../examples/grids/homogeneous16.ini" --policy fixed:3

# the agents spool the raw steps and send them after the run: the same weights
expect 0 "profile with --edges stored, deferred" -- env LBSPROF_COMPACT=deferred "${PMPI[@]}" -n 2 "$APP" "${RUN[@]}" \
  --trace "$T/deferred.lbt" --edges stored
expect 0 "the same weights, deferred" -- "$COMPARE" "$T/rule.lbt" "$T/deferred.lbt"

"${MPI[@]}" -n 2 "$APP" --bodies 64 --edges sometimes >"$T/out" 2>"$T/err"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -qF "nbody: --edges sometimes: rule or stored" "$T/err" && ok ||
  bad "--edges sometimes: exit $rc, stderr $(head -c 300 "$T/err")"
finish
