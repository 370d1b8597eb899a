#!/usr/bin/env bash
# End-to-end: DARMA vt's task-to-node communication (CollectionToNode, NodeToCollection and their
# Bcast forms) as node elements (tests/e2e/vt_nodes.py writes the data and reads the results).
# `trace import --vt` makes each rank named as a node one pinned element with no work, and the
# task's bytes with it the per-step weight of their arc; the replay charges that traffic while the
# task is on another processor and nothing once it sits on the node's rank, the same on 1 and 2
# MPI ranks; on fewer processors than ranks, and under every family of partitioner, the optimal
# policy and `lbsim partition`, a node element stays on its rank mod P, and each step is charged
# communication exactly when a weighted arc joins two processors (vt_nodes.py assign).
set -u
LBSIM=${1:?usage: vt_nodes.sh lbsim}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
PY=$(dirname "$0")/vt_nodes.py
# one cluster; the arc weight is the bytes sent (bytes_per_edge 1)
printf '[grid]\nns_per_work = 1\nbytes_per_edge = 1\n[cluster A]\nnodes = 3\n' >"$T/g3.ini"
printf '[grid]\nns_per_work = 1\nbytes_per_edge = 1\n[cluster A]\nnodes = 2\n' >"$T/g2.ini"

expect 0 "write vt data" -- python3 "$PY" write "$T/vt"
expect 0 "import" -- "$LBSIM" trace import --vt "$T/vt" --bound lossless -o "$T/n.lbt"
has "$T/err" "4 tasks (0 pinned), 4 phases (0 skipped), 4 communicating pairs (11 task-to-node communications as traffic with 3 node elements; 1 communications with a node left out)" "import summary"
expect 0 "import without node elements" -- "$LBSIM" trace import --vt "$T/vt" --no-node-elements --bound lossless -o "$T/plain.lbt"
has "$T/err" "1 communicating pairs (0 task-to-node communications as traffic with 0 node elements; 12 communications with a node left out)" "left out, counted"
expect 2 "--no-node-elements goes with --vt" -- "$LBSIM" trace import --chaco x.graph --no-node-elements -o "$T/x.lbt"
has "$T/err" "--no-node-elements goes with --vt" "usage message"
expect 0 "check" -- "$LBSIM" trace check "$T/n.lbt"
expect 0 "info" -- "$LBSIM" trace info "$T/n.lbt" --json
has "$T/out" '"pinned":3' "the node elements are pinned"

# the charge: steps 0 and 1 carry task 1's traffic with node 1 from processor 0; steps 2 and 3 none
# (task 1 on rank 1 beside node 1, task 3 on rank 2 beside node 2); without node elements, none
for np in 1 2; do
  expect 0 "recorded on $np ranks" -- "${MPI[@]}" -n "$np" "$LBSIM" replay "$T/n.lbt" --grid "$T/g3.ini" \
    --policy recorded --results "$T/rec$np.db" </dev/null
  expect 0 "comm on $np ranks" -- python3 "$PY" comm "$T/rec$np.db"
  read -r c0 c1 c2 c3 <"$T/out"
  [ "${c0:-0}" -gt 0 ] && [ "${c1:-0}" -gt 0 ] && ok || bad "$np ranks: task 1 away from node 1 not charged: $(cat "$T/out")"
  [ "${c0:-0}" -gt "${c1:-0}" ] && ok || bad "$np ranks: step 0's task 2 -> node 0 and task 1 -> task 4 not charged: $(cat "$T/out")"
  [ "${c2:-x}" = 0 ] && [ "${c3:-x}" = 0 ] && ok || bad "$np ranks: a task beside its node charged: $(cat "$T/out")"
  cp "$T/out" "$T/comm$np"
done
cmp -s "$T/comm1" "$T/comm2" && ok || bad "1 and 2 ranks charge differently: $(cat "$T/comm1") / $(cat "$T/comm2")"
expect 0 "recorded without node elements" -- "$LBSIM" replay "$T/plain.lbt" --grid "$T/g3.ini" \
  --policy recorded --results "$T/plain.db" </dev/null
expect 0 "comm without node elements" -- python3 "$PY" comm "$T/plain.db"
read -r c0 c1 c2 c3 <"$T/out"
[ "${c0:-0}" -gt 0 ] && [ "${c1:-x}" = 0 ] && ok || bad "without node elements: only step 0's task pair: $(cat "$T/out")"

# fewer processors than ranks: nodes 0, 1, 2 on 0, 1, 0; every family of partitioner, 1 and 2 ranks
for np in 1 2; do
  for part in zoltan:rcb metis:kway objlb:greedy objlb:refine; do
    expect 0 "$part on $np ranks" -- "${MPI[@]}" -n "$np" "$LBSIM" replay "$T/n.lbt" --grid "$T/g2.ini" \
      --partitioner "$part" --policy fixed:2 --results "$T/p$np.db" --save-assignment </dev/null
  done
  expect 0 "assignments on $np ranks" -- python3 "$PY" assign "$T/p$np.db" "np$np" 2
  [ "$(cat "$T/out")" = "np$np: 4 runs checked, 0 failures" ] && ok || bad "np$np: $(cat "$T/out")"
done
expect 0 "optimal" -- "$LBSIM" replay "$T/n.lbt" --grid "$T/g2.ini" --partitioner zoltan:rcb \
  --policy optimal --results "$T/o.db" --save-assignment </dev/null
expect 0 "assignments, optimal" -- python3 "$PY" assign "$T/o.db" opt 2 1
[ "$(cat "$T/out")" = "opt: 1 runs checked, 0 failures" ] && ok || bad "opt: $(cat "$T/out")"
# lbsim partition: elements 4, 5, 6 (lines 5 to 7 of a parts file) fixed on 0, 1, 0
expect 0 "partition" -- "$LBSIM" partition "$T/n.lbt" --grid "$T/g2.ini" --step 0 \
  --partitioner zoltan:rcb,metis:kway,objlb:tempered -o "$T/parts"
for f in zoltan-rcb metis-kway objlb-tempered; do
  [ "$(sed -n '5,7p' "$T/parts.$f" | tr '\n' ' ')" = "0 1 0 " ] && ok || bad "partition $f: node parts $(sed -n '5,7p' "$T/parts.$f" | tr '\n' ' ')"
done
finish
