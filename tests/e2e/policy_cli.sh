#!/usr/bin/env bash
# End-to-end checks of `lbsim policy compare`: table, JSON, CSV series, bad input.
set -u
LBSIM=${1:?usage: policy_cli.sh lbsim source-dir}
SRC=${2:?}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
G=$SRC/examples/grids/homogeneous16.ini
P=fixed:20,fixed:50,adaptive:0.15:5:20,threshold:0.3,stop-at-rise,metabalancer,cost-benefit,optimal

expect 0 "gen" -- "$LBSIM" trace gen --kind bump --mesh 20x12x10 --steps 80 -o "$T/b.lbt"
expect 0 "compare json" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --policies "$P" --json --csv "$T/csv"
# (the 1-rank answer that the 2-rank run below must give: --csv writes files, the JSON is the same)
sed 's/"wall_s":[0-9.]*//g' "$T/out" >"$T/np1"
[ "$(wc -l <"$T/out")" -eq 1 ] && ok || bad "--json prints one line"
for f in policies policy total_time_s repartitions repartition_steps mean_imbalance partition_time_s \
  migration_time_s gap_to_optimal compute_time_s comm_time_s moved_elements mean_loadimb; do has "$T/out" "\"$f\":" "json field $f"; done
has "$T/out" '"policy":"optimal",' "optimal listed"
# each policy carries replay --json's fields (same names), and the gap
"$LBSIM" replay "$T/b.lbt" --grid "$G" --json >"$T/rj"
python3 - "$T/out" "$T/rj" <<'PY' && ok || bad "compare --json carries replay --json's fields"
import json, sys
c = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
for p in c["policies"]:
    assert set(r) <= set(p), set(r) - set(p)
    assert p["compute_time_s"] + p["comm_time_s"] + p["partition_time_s"] + p["migration_time_s"] - p["total_time_s"] < 1e-6
PY
# optimal's gap is 0 and no policy beats it
python3 -c 'import json, sys; assert all(p["gap_to_optimal"] >= 0 for p in json.load(open(sys.argv[1]))["policies"])' "$T/out" \
  && ok || bad "a policy beat optimal"
has "$T/out" '"policy":"fixed:20",' "fixed:20 listed"
has "$T/out" '"repartition_steps":[20,40,60]' "fixed:20 steps"
[ -f "$T/csv/imbalance.csv" ] && [ "$(wc -l <"$T/csv/imbalance.csv")" -eq 81 ] && ok || bad "imbalance.csv: 80 steps + header"
has "$T/csv/imbalance.csv" "step,app_step,fixed:20,fixed:50,adaptive:0.15:5:20" "imbalance.csv header"
has "$T/csv/series_adaptive_0.15_5_20.csv" "probe,step,interval" "adaptive trajectory"
has "$T/csv/summary.csv" "optimal," "summary.csv"
has "$T/csv/summary.csv" ",compute_time_s,comm_time_s,moved_elements,mean_loadimb,max_imbalance,gap_to_optimal" "summary.csv columns"
grep -q "^optimal,.*,0.000000000$" "$T/csv/summary.csv" && ok || bad "optimal's gap_to_optimal in summary.csv is 0"
expect 0 "compare table on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --policies "$P" --json
sed 's/"wall_s":[0-9.]*//g' "$T/out" >"$T/np2"
cmp -s "$T/np1" "$T/np2" && ok || bad "policy compare differs between 1 and 2 ranks"
expect 0 "table" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --policies fixed:20,optimal
has "$T/out" "+0.00%" "optimal's gap in the table"
# a steps:LIST policy among others keeps its commas (the list split as validate splits it)
expect 0 "steps:LIST among others" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --policies none,steps:20,65,fixed:40 --json
python3 - "$T/out" <<'PY' && ok || bad "steps:20,65 among others: $(head -c 400 "$T/out")"
import json, sys
p = {x["policy"]: x for x in json.load(open(sys.argv[1]))["policies"]}
assert list(p) == ["none", "steps:20,65", "fixed:40"], list(p)
assert p["steps:20,65"]["repartition_steps"] == [20, 65], p["steps:20,65"]["repartition_steps"]
assert p["fixed:40"]["repartition_steps"] == [40], p["fixed:40"]["repartition_steps"]
PY
expect 0 "steps:LIST last, as a table" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --policies fixed:40,steps:20,65
has "$T/out" "steps:20,65" "the table names steps:20,65"
expect 2 "an empty policy name" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --policies none,,fixed:40
has "$T/err" "an empty policy name" "empty name refused"

# bad input
expect 1 "adaptive MIN > MAX" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --policies adaptive:0.15:20:5
has "$T/err" "1 <= MIN <= MAX" "adaptive message"
# optimal caches one partition per step: a partitioner that starts from where the elements are is refused
expect 1 "optimal with minex" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --partitioner minex --policy optimal
has "$T/err" "the optimal policy needs a partitioner whose answer depends only on the step; minex" "optimal refuses minex"
# a repeated policy gives the same row each time (a repartition depends only on its step)
expect 0 "phg three times" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --partitioner zoltan:phg --policies fixed:5,fixed:5,fixed:5 --json
[ "$(grep -o '"total_time_s":[0-9.e+-]*' "$T/out" | sort -u | wc -l)" = 1 ] && ok || bad "phg rows differ: $(grep -o '"total_time_s":[0-9.e+-]*' "$T/out")"
expect 1 "fixed:0" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --policies fixed:0
has "$T/err" "K must be a whole number of steps >= 1" "fixed message"
expect 1 "threshold:-1" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --policies threshold:-1
has "$T/err" "T must be an imbalance between 0 and 1" "threshold message"
# optimal plans over ordered steps: beside policies whose des steps share the network, refused
expect 1 "optimal beside shared des steps" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --mode des \
  --policies none,optimal --set sim.des_overlap=shared
has "$T/err" "des_overlap = shared: optimal plans ahead over ordered steps" "shared with optimal refused"
expect 0 "shared des steps without optimal" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --mode des \
  --policies none,fixed:40 --set sim.des_overlap=shared --json
has "$T/out" '"des_overlap":"shared"' "each run says its steps shared the network"
# by default (auto) the steps share where every policy can: here, none beside optimal, ordered
expect 0 "optimal beside none, des, default overlap" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --mode des \
  --policies none,optimal --json --results "$T/ov.db"
grep -q '"des_overlap"' "$T/out" && bad "auto with optimal: a run shared the network" || ok
expect 0 "none alone, des, default overlap" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --mode des \
  --policies none --json --results "$T/ov.db"
has "$T/out" '"des_overlap":"shared"' "auto shares where it applies"
[ "$(sqlite3 "$T/ov.db" "SELECT group_concat(policy || '=' || des_overlap, ' ') FROM runs")" = \
  "none=ordered optimal=ordered none=shared" ] && ok ||
  bad "the store records each run's model: $(sqlite3 "$T/ov.db" "SELECT policy, des_overlap FROM runs")"
expect 0 "optimal beside none, text" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --mode des --policies none,optimal
has "$T/out" "des, ordered steps)" "the table says the steps ran ordered"
# shared named where it cannot apply warns; auto, the default, falls back to ordered silently
expect 0 "shared on fifo" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --mode des --set grid.sharing=fifo \
  --set sim.des_overlap=shared
has "$T/err" "des_overlap = shared does not apply with sharing = fifo" "warns that shared does not apply"
expect 0 "auto on fifo" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --mode des --set grid.sharing=fifo
grep -q "des_overlap" "$T/err" && bad "auto warned: $(cat "$T/err")" || ok
expect 1 "optimal bound" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --policies optimal:10
has "$T/err" "79 candidate steps exceed its bound of 10" "bound message"
expect 1 "optimal with repartition approach" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --policies optimal --set sim.approach=repartition
has "$T/err" "approach = partition" "approach message"
expect 1 "window too short" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --policies fixed:20 --steps 70:90
has "$T/err" "outside the trace's 80 steps" "window message"
expect 2 "no policies" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G"
has "$T/err" "missing --policies" "usage message"
expect 2 "bad --mode" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --policies none --mode fast
has "$T/err" "lbsim: policy compare: --mode: 'fast' must be bsp or des" "--mode named"
expect 2 "--cost measured" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --policies none --cost measured
has "$T/err" "lbsim: policy compare: --cost: 'measured' is not reproducible" "--cost measured refused"
expect 2 "bad --steps" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --policies none --steps 10
has "$T/err" "lbsim: policy compare: --steps: '10' must be A:B" "--steps named"

# the flags are [sim] overrides: --set sim.steps is --steps, the later of the two wins, and a flag is
# stored as the override it is
expect 0 "--set sim.steps" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --policies none,fixed:10 --set sim.steps=10:30 --json
python3 -c 'import json, sys; assert all(p["steps"] == 20 and p["first_step"] == 10 for p in json.load(open(sys.argv[1]))["policies"])' \
  "$T/out" && ok || bad "--set sim.steps window: $(head -c 300 "$T/out")"
expect 0 "the later wins" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$G" --policies none --steps 0:40 --set sim.steps=10:30 \
  --mode des --results "$T/r.db"
[ "$(sqlite3 "$T/r.db" "SELECT steps || ' ' || mode FROM runs")" = "20 des" ] && ok || bad "steps, mode: $(sqlite3 "$T/r.db" "SELECT steps, mode FROM runs")"
[ "$(sqlite3 "$T/r.db" "SELECT overrides FROM runs")" = "$(printf 'sim.steps=0:40\nsim.steps=10:30\nsim.mode=des')" ] && ok ||
  bad "overrides in command-line order: $(sqlite3 "$T/r.db" "SELECT overrides FROM runs")"

finish
