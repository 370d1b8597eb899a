#!/usr/bin/env bash
# End-to-end checks of the object-level balancers (objlb:greedy, objlb:refine, objlb:tempered) as
# a user runs them: `lbsim partition` and `lbsim replay` on the measured heat trace
# (tests/data/heat_2ranks.lbt) and on an N-body trace, the same answer on 1 and 2 ranks, their
# [objlb] keys through --set, and the messages for bad ones.
set -u
LBSIM=${1:?usage: objlb_cli.sh path/to/lbsim source-dir}
SRC=${2:?usage: objlb_cli.sh path/to/lbsim source-dir}
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
MPI=(mpiexec --allow-run-as-root --oversubscribe)
json() { python3 -c "import json,sys; d=json.load(open('$T/out')); $1"; }
strip() { python3 -c "import json,sys; d=json.load(open('$1')); [r.pop('partition_wall_s') for r in d]; print(json.dumps(d))"; }
G=$SRC/examples/grids/homogeneous16.ini
HEAT=$SRC/tests/data/heat_2ranks.lbt
ALL=objlb:greedy,objlb:refine,objlb:tempered

# the measured trace: all three partition it, and replay it with a repartition every 10 steps
expect 0 "partition heat" -- "$LBSIM" partition "$HEAT" --grid "$G" --partitioner $ALL --step 10 --json
json 'assert [r["partitioner"] for r in d] == ["objlb:greedy","objlb:refine","objlb:tempered"], d' \
  && ok || bad "heat: three rows: $(cat "$T/out")"
for m in greedy refine tempered; do
  expect 0 "replay heat $m" -- "$LBSIM" replay "$HEAT" --grid "$G" --partitioner objlb:$m --policy fixed:10 --json
  json 'assert d["repartitions"] >= 3 and d["total_time_s"] > 0, d' && ok || bad "replay $m: $(cat "$T/out")"
  sed 's/,"wall_s":[0-9.]*//' "$T/out" >"$T/r1.json"
  expect 0 "replay heat $m, 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" replay "$HEAT" --grid "$G" \
    --partitioner objlb:$m --policy fixed:10 --json
  sed 's/,"wall_s":[0-9.]*//' "$T/out" >"$T/r2.json"
  cmp -s "$T/r1.json" "$T/r2.json" && ok || bad "replay $m: 1 and 2 ranks differ: $(diff "$T/r1.json" "$T/r2.json")"
done

# an N-body step from equal blocks: LPT balances best and moves most; refine stays within its
# tolerance (1.05) moving few; tempered moves few too and balances far better than the start
expect 0 "nbody gen" -- "$LBSIM" trace gen --kind nbody --bodies 4000 --steps 3 -o "$T/nb.lbt"
expect 0 "grid UP" -- "$LBSIM" grid gen --family UP --procs 16 --clusters 4 --slowdown 100 -o "$T/UP.ini"
expect 0 "partition nbody" -- "$LBSIM" partition "$T/nb.lbt" --grid "$T/UP.ini" --step 2 \
  --partitioner $ALL,metis:kway:speed --json
cp "$T/out" "$T/np1.json"
json 'g,r,t,m=d; assert g["work_imbalance"] < 1.01 and r["work_imbalance"] <= 1.05 and t["work_imbalance"] < 1.1, d' \
  && ok || bad "nbody balance: $(cat "$T/out")"
json 'g,r,t,m=d; assert r["moved_elements"] < g["moved_elements"] / 5 and t["moved_elements"] < g["moved_elements"] / 5, d' \
  && ok || bad "nbody moves: $(cat "$T/out")"
json 'assert all(r["tolerance"] is None for r in d[:3]), d' && ok || bad "objlb promises no tolerance"
expect 0 "partition nbody, 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" partition "$T/nb.lbt" --grid "$T/UP.ini" \
  --step 2 --partitioner $ALL,metis:kway:speed --json
[ "$(strip "$T/np1.json")" = "$(strip "$T/out")" ] && ok || bad "1 and 2 ranks differ: $(cat "$T/out")"

# [objlb] through --set: a wider tolerance leaves refine less to do (it stops within it); another
# seed and criterion are taken
expect 0 "tolerance 2" -- "$LBSIM" partition "$T/nb.lbt" --grid "$T/UP.ini" --step 2 \
  --partitioner objlb:refine --set objlb.tolerance=2 --json
json 'r,=d; d1=json.load(open("'"$T"'/np1.json"))[1]; assert r["work_imbalance"] <= 2 and r["moved_elements"] < d1["moved_elements"] / 4, (r, d1)' \
  && ok || bad "tolerance 2 moves fewer: $(cat "$T/out")"
expect 0 "seed, grapevine" -- "$LBSIM" partition "$T/nb.lbt" --grid "$T/UP.ini" --step 2 \
  --partitioner objlb:tempered --set objlb.seed=7 --set objlb.criterion=grapevine --set objlb.ordering=id --json
expect 0 "help-config" -- "$LBSIM" partition --help-config
has "$T/out" "[objlb]" "help-config lists [objlb]"
has "$T/out" "fanout" "help-config lists fanout"

# bad input: a value that is not one of the names, a key that does not exist, a method
expect 1 "bad ordering" -- "$LBSIM" partition "$T/nb.lbt" --grid "$T/UP.ini" --partitioner objlb:tempered \
  --set objlb.ordering=biggest
has "$T/err" "[objlb] ordering: 'biggest' is not one of largest|smallest|id" "ordering message"
expect 1 "bad key" -- "$LBSIM" partition "$T/nb.lbt" --grid "$T/UP.ini" --partitioner objlb:refine \
  --set objlb.tolerence=1.1
has "$T/err" "tolerance" "the closest key named"
expect 1 "bad method" -- "$LBSIM" partition "$T/nb.lbt" --grid "$T/UP.ini" --partitioner objlb:lpt
has "$T/err" "known: objlb, objlb:greedy, objlb:refine, objlb:tempered" "method message"

finish
