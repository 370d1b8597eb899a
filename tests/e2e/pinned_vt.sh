#!/usr/bin/env bash
# End-to-end: DARMA vt data with objgroups (tasks that are not migratable) and tasks created and
# destroyed between phases (tests/e2e/pinned_vt.py writes them), imported with `lbsim trace
# import --vt` and replayed with --policy fixed:2 under a partitioner of each family (Zoltan's
# RCB, METIS, objlb's refine) on 1 and 2 MPI ranks. The saved assignments (--save-assignment)
# must keep every pinned element on its recorded rank and every absent element where it was,
# and a partitioner that aims at the grid's shares must fill around the pinned load.
set -u
LBSIM=${1:?usage: pinned_vt.sh lbsim}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
PY=$(dirname "$0")/pinned_vt.py
mkdir -p "$T/vt"
printf '[grid]\nns_per_work = 1\n[cluster A]\nnodes = 2\n' >"$T/g2.ini"

expect 0 "write vt data" -- python3 "$PY" write "$T/vt"
expect 0 "import" -- "$LBSIM" trace import --vt "$T/vt" --bound lossless -o "$T/p.lbt"
has "$T/err" "16 tasks (2 pinned), 6 phases" "import summary counts the objgroups"
expect 0 "check" -- "$LBSIM" trace check "$T/p.lbt"
expect 0 "info" -- "$LBSIM" trace info "$T/p.lbt"
has "$T/out" "pinned    2 elements never move" "info says how many are pinned"
expect 0 "info --json" -- "$LBSIM" trace info "$T/p.lbt" --json
has "$T/out" '"pinned":2' "info --json: pinned"
for np in 1 2; do
  for part in zoltan:rcb metis:kway metis:kway:speed objlb:refine; do
    expect 0 "replay $part on $np ranks" -- "${MPI[@]}" -n "$np" "$LBSIM" replay "$T/p.lbt" \
      --grid "$T/g2.ini" --partitioner "$part" --policy fixed:2 --results "$T/r$np.db" \
      --save-assignment --json </dev/null
    has "$T/out" '"repartition_steps":[2,4]' "$part on $np ranks: repartitions before steps 2 and 4"
  done
  expect 0 "assignments on $np ranks" -- python3 "$PY" check "$T/r$np.db" "np$np"
  [ "$(cat "$T/out")" = "np$np: 4 runs checked, 0 failures" ] && ok || bad "np$np: $(cat "$T/out")"
done
# a task pinned in one phase and migratable in another: refused, naming file, phase and task
sed 's/"id": 100, "home": 0, "migratable": false/"id": 100, "home": 0, "migratable": true/g' \
  "$T/vt/data.0.json" >"$T/mixed.json"
python3 - "$T/mixed.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for t in d["phases"][4]["tasks"]:
    if t["entity"]["id"] == 100:
        t["entity"]["migratable"] = False
json.dump(d, open(sys.argv[1], "w"))
PY
expect 1 "pinned in one phase only" -- "$LBSIM" trace import --vt "$T/mixed.json" -o "$T/m.lbt"
has "$T/err" "mixed.json: phase 4: task 100 is not migratable, but is in " "the refusal names file, phase and task"
finish
