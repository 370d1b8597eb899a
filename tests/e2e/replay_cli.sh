#!/usr/bin/env bash
# End-to-end checks of `lbsim replay`: outputs, results store, 1 vs 2 ranks, bad input.
set -u
LBSIM=${1:?usage: replay_cli.sh lbsim source-dir}
SRC=${2:?}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
G=$SRC/examples/grids/homogeneous16.ini

expect 0 "gen" -- "$LBSIM" trace gen --kind bump --mesh 30x20x20 --steps 60 -o "$T/b.lbt"
expect 0 "replay --help" -- "$LBSIM" replay --help
has "$T/out" "zoltan:{rcb" "help lists partitioners"
expect 0 "replay json" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --policy fixed:20 --json
[ "$(wc -l <"$T/out")" -eq 1 ] && ok || bad "--json prints one line"
for f in elements steps procs total_time_s compute_time_s comm_time_s partition_time_s migration_time_s \
  repartitions repartition_steps mean_imbalance max_imbalance mean_loadimb moved_elements; do
  has "$T/out" "\"$f\":" "json field $f"
done
has "$T/out" '"repartition_steps":[20,40]' "fixed:20 over 60 steps"
sed 's/,"wall_s":[0-9.]*//' "$T/out" >"$T/np1.json"
expect 0 "replay on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" replay "$T/b.lbt" --grid "$G" --policy fixed:20 --json
sed 's/,"wall_s":[0-9.]*//' "$T/out" >"$T/np2.json"
cmp -s "$T/np1.json" "$T/np2.json" && ok || bad "JSON differs between 1 and 2 ranks: $(diff "$T/np1.json" "$T/np2.json")"
# (the first 31 steps: the initial partition and two repartitions, at steps 15 and 30)
expect 0 "des on 2 ranks, phg" -- "${MPI[@]}" -n 2 "$LBSIM" replay "$T/b.lbt" --grid "$SRC/examples/grids/two_sites.ini" \
  --partitioner zoltan:phg --policy fixed:15 --mode des --steps 0:31 --json
sed 's/,"wall_s":[0-9.]*//' "$T/out" >"$T/d2.json"
expect 0 "des on 1 rank, phg" -- "$LBSIM" replay "$T/b.lbt" --grid "$SRC/examples/grids/two_sites.ini" \
  --partitioner zoltan:phg --policy fixed:15 --mode des --steps 0:31 --json
sed 's/,"wall_s":[0-9.]*//' "$T/out" >"$T/d1.json"
cmp -s "$T/d1.json" "$T/d2.json" && ok || bad "des/phg JSON differs between 1 and 2 ranks"
has "$T/out" '"mode":"des"' "des mode reported"
has "$T/out" '"repartition_steps":[15,30]' "des/phg: two repartitions"

# speed_model = roofline beside linear cores (examples/grids/roofline.ini): the same on 1 and 2
# ranks; its fat nodes are never faster than linear ones of the same speed (launches, small parts)
R=$SRC/examples/grids/roofline.ini
expect 0 "replay on a roofline grid" -- "$LBSIM" replay "$T/b.lbt" --grid "$R" --policy fixed:20 --json
has "$T/out" '"procs":10' "roofline grid: 8 cores and 2 fat nodes"
sed 's/,"wall_s":[0-9.]*//' "$T/out" >"$T/r1.json"
expect 0 "roofline grid on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" replay "$T/b.lbt" --grid "$R" --policy fixed:20 --json
sed 's/,"wall_s":[0-9.]*//' "$T/out" >"$T/r2.json"
cmp -s "$T/r1.json" "$T/r2.json" && ok || bad "roofline JSON differs between 1 and 2 ranks"
sed -e 's/^speed_model = roofline/speed = 10.25/' -e '/^roofline_/d' "$R" >"$T/rlin.ini"
expect 0 "the same speeds, linear" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/rlin.ini" --policy fixed:20 --json
python3 -c "
import json; r = json.load(open('$T/r1.json')); l = json.load(open('$T/out'))
assert l['compute_time_s'] <= r['compute_time_s'] < 1.5 * l['compute_time_s'], (r, l)" && ok ||
  bad "roofline compute against linear nodes of its rate: $(cat "$T/r1.json")"

expect 0 "a window of steps" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --policy fixed:10 --steps 25:50 --json
has "$T/out" '"steps":25,"first_step":25' "window reported"
has "$T/out" '"repartition_steps":[35,45]' "window repartitions in trace steps"
expect 1 "window outside the trace" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --steps 50:70
has "$T/err" "steps [50, 70) are outside the trace's 60 steps" "window message"

# [sim] settings from the grid file or --set, flags on top
printf '[cluster A]\nnodes = 4\n[sim]\npolicy = fixed:30\npartition_fixed_us = 1000\npartition_per_elem_ns = 0\n' >"$T/sim.ini"
expect 0 "[sim] from the file" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/sim.ini" --json
has "$T/out" '"policy":"fixed:30"' "[sim] policy"
has "$T/out" '"partition_time_s":0.001,' "[sim] cost model: one call of 1000 us"
expect 0 "flag over [sim]" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/sim.ini" --policy none --set sim.mode=des --json
has "$T/out" '"policy":"none"' "flag wins"
has "$T/out" '"mode":"des"' "--set sim.mode"
# one precedence: the defaults, the file's [sim], then the flags and --set from left to right
expect 0 "-o after the flag wins" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/sim.ini" --policy none --set sim.policy=fixed:25 --json
has "$T/out" '"policy":"fixed:25"' "the later -o wins over the flag"
expect 0 "the flag after -o wins" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/sim.ini" --set sim.policy=fixed:25 --policy fixed:40 --json
has "$T/out" '"policy":"fixed:40"' "the later flag wins over -o"
expect 0 "--steps is sim.steps" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --policy fixed:10 --set sim.steps=25:50 --json
has "$T/out" '"steps":25,"first_step":25' "--set sim.steps window"
has "$T/out" '"repartition_steps":[35,45]' "--set sim.steps: the same as --steps"
printf '[cluster A]\nnodes = 4\n[sim]\nsteps = 10:20\n' >"$T/steps.ini"
expect 0 "[sim] steps" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/steps.ini" --json
has "$T/out" '"steps":10,"first_step":10' "[sim] steps from the file"
expect 0 "--steps over [sim] steps" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/steps.ini" --steps 0:5 --json
has "$T/out" '"steps":5,"first_step":0' "the flag over the file"
printf '[cluster A]\nnodes = 4\n[sim]\nsteps = 20:10\n' >"$T/badsteps.ini"
expect 1 "bad [sim] steps" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/badsteps.ini"
has "$T/err" "badsteps.ini:4: steps = '20:10' must be A:B with 0 <= A < B" "[sim] steps named by file:line"
# a bad flag value is a usage error that names the flag, parsed where [sim]'s values are
expect 2 "bad --mode" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --mode fast
has "$T/err" "lbsim: replay: --mode: 'fast' must be bsp or des" "--mode named"
expect 2 "bad --steps" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --steps 5:3
has "$T/err" "lbsim: replay: --steps: '5:3' must be A:B with 0 <= A < B" "--steps named"
expect 2 "bad --cost" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --cost free
has "$T/err" "lbsim: replay: --cost: 'free' must be model, measured or zero" "--cost named"
expect 2 "bad --cost-scale" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --cost-scale -2
has "$T/err" "lbsim: replay: --cost-scale: -2 is outside [0, 1e+12]" "--cost-scale named"
expect 2 "bad --part-fixed-us" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --part-fixed-us lots
has "$T/err" "lbsim: replay: --part-fixed-us: 'lots' is not a number" "--part-fixed-us named"
expect 1 "bad [sim] key" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/sim.ini" --set sim.polcy=none
has "$T/err" "unknown key 'polcy' in [sim] (did you mean 'policy'?)" "sim key typo"
expect 1 "bad [sim] mode" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/sim.ini" --set sim.mode=fast
has "$T/err" "mode = 'fast' must be bsp or des" "sim mode message"

# results store
expect 0 "results store" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --policy fixed:20 --results "$T/r.db" --save-assignment
[ "$(sqlite3 "$T/r.db" 'SELECT count(*) FROM steps')" = 60 ] && ok || bad "60 step rows"
[ "$(sqlite3 "$T/r.db" 'SELECT count(*) FROM procs')" = 960 ] && ok || bad "60 x 16 processor rows"
[ "$(sqlite3 "$T/r.db" 'SELECT count(*) FROM repartitions')" = 2 ] && ok || bad "2 repartition rows"
[ "$(sqlite3 "$T/r.db" 'SELECT count(DISTINCT step) FROM assignment')" = 3 ] && ok || bad "initial + 2 assignments"
[ "$(sqlite3 "$T/r.db" 'SELECT count(*) FROM assignment WHERE part < 0 OR part >= 16')" = 0 ] && ok || bad "parts in range"
expect 0 "second run appends" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --results "$T/r.db"
[ "$(sqlite3 "$T/r.db" 'SELECT count(*) FROM runs')" = 2 ] && ok || bad "two runs"

# bad input: clear errors, exit 1 (2 for usage), nothing written to the results store
expect 1 "unknown partitioner" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --partitioner metis3 --results "$T/x.db"
has "$T/err" "lbsim: replay: unknown partitioner 'metis3' (known: zoltan:{rcb" "partitioner list"
[ ! -e "$T/x.db" ] && ok || bad "a failed run created the results store"
expect 1 "unknown policy" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --policy smart:3 --results "$T/r.db"
has "$T/err" "unknown policy 'smart:3' (known: none, fixed:K, threshold:T, adaptive:T:MIN:MAX" "policy list"
expect 1 "garbled adaptive" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --policy adaptive:0.15:20:5
has "$T/err" "policy 'adaptive:0.15:20:5': needs 0 < T < 1 and whole steps 1 <= MIN <= MAX (got '0.15:20:5') (expected adaptive:T:MIN:MAX)" "adaptive message"
[ "$(sqlite3 "$T/r.db" 'SELECT count(*) FROM runs')" = 2 ] && ok || bad "a failed run wrote to the results store"
expect 1 "bad policy argument" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --policy fixed:0
has "$T/err" "expected fixed:K" "fixed:0 message"
printf '[cluster A]\nnodes = 13000\n' >"$T/big.ini"
expect 1 "more processors than elements" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/big.ini"
has "$T/err" "13000 processors but the trace only 12000 elements" "processor count message"
printf '[cluster A]\nnodes = 4\nbandwidth_gbps = 0\n' >"$T/zero.ini"
expect 1 "zero bandwidth" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/zero.ini"
has "$T/err" "zero.ini:3: bandwidth_gbps = 0 is outside" "bandwidth message"
printf '[cluster A]\nnodes = 4\nlatncy_us = 2\n' >"$T/typo.ini"
expect 1 "unknown key" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/typo.ini"
has "$T/err" "did you mean 'latency_us'" "closest key"
expect 1 "zoltan parameter rejected" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --set zoltan.NO_SUCH_PARAM=3
has "$T/err" "(command line): [zoltan] NO_SUCH_PARAM = 3 was rejected by Zoltan" "zoltan parameter message"
# a key the adapter sets itself: the method is the name (the run would be recorded as zoltan:rcb),
# the weight dimension what the query functions write (Zoltan would read past them)
expect 1 "zoltan LB_METHOD" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --set zoltan.LB_METHOD=BLOCK
has "$T/err" "(command line): [zoltan] LB_METHOD is set by lbsim: the method is the partitioner's name: choose it there (zoltan:hsfc" "LB_METHOD message"
expect 1 "zoltan OBJ_WEIGHT_DIM" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --set zoltan.obj_weight_dim=3
has "$T/err" "[zoltan] obj_weight_dim is set by lbsim: lbsim gives one weight per element" "OBJ_WEIGHT_DIM message"
cp "$G" "$T/zw.ini" && printf '[zoltan]
IMBALANCE_TOL = 1.2
EDGE_WEIGHT_DIM = 2
' >>"$T/zw.ini"
expect 1 "zoltan EDGE_WEIGHT_DIM in the file" -- "$LBSIM" partition "$T/b.lbt" --grid "$T/zw.ini" --partitioner zoltan:phg
has "$T/err" "zw.ini:$(grep -c '' "$T/zw.ini"): [zoltan] EDGE_WEIGHT_DIM is set by lbsim" "EDGE_WEIGHT_DIM message"
expect 0 "zoltan keys of its own" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --set zoltan.IMBALANCE_TOL=1.2 --set zoltan.RCB_REUSE=1
# a trace without a graph or coordinates: import one step from a steps directory without a mesh
mkdir -p "$T/sd" && printf 'lbsim-steps 1\nelements 40\nmetric w 1\nstep s0 0\n' >"$T/sd/manifest"
for i in $(seq 0 39); do echo "$i $((i % 7 + 1))"; done >"$T/sd/s0"
expect 0 "import meshless" -- "$LBSIM" trace import --steps-dir "$T/sd" -o "$T/nomesh.lbt"
expect 1 "graph method without graph" -- "$LBSIM" replay "$T/nomesh.lbt" --grid "$G" --partitioner zoltan:graph
has "$T/err" "zoltan:graph needs the mesh graph, and this trace has none" "graph message"
expect 1 "geometric method without coordinates" -- "$LBSIM" replay "$T/nomesh.lbt" --grid "$G" --partitioner zoltan:rcb
has "$T/err" "needs element coordinates" "coords message"
expect 0 "block needs neither" -- "$LBSIM" replay "$T/nomesh.lbt" --grid "$G" --partitioner zoltan:block --json
has "$T/out" '"comm_time_s":0,' "no graph, no halo"
expect 1 "missing trace" -- "$LBSIM" replay "$T/none.lbt" --grid "$G"
has "$T/err" "cannot open" "missing trace message"
expect 2 "missing grid option" -- "$LBSIM" replay "$T/b.lbt"
has "$T/err" "missing --grid" "usage message"

# the N-body rule (edge_weight = flag*rwgt[target]) is applied by the replay too: without the
# meta key the same trace charges the raw 0/1 flags, and less communication
"$LBSIM" trace gen --kind nbody --bodies 300 --steps 6 -o "$T/nb.lbt" 2>/dev/null
cp "$T/nb.lbt" "$T/nbraw.lbt" && sqlite3 "$T/nbraw.lbt" "DELETE FROM meta WHERE key = 'edge_weight'"
comm() { "$LBSIM" replay "$1" --grid "$SRC/examples/grids/two_sites.ini" --policy fixed:2 --json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["comm_time_s"])'; }
c1=$(comm "$T/nb.lbt") c0=$(comm "$T/nbraw.lbt")
python3 -c "import sys; sys.exit(0 if $c1 > 1.05 * $c0 > 0 else 1)" && ok || bad "N-body rule: comm $c1 s with it, $c0 s with the raw flags"
# --partition-metric: the partitioner gets another metric's values (what an application gives
# it) while the work stays the replayed metric: bodies per cell balance interactions worse
imb() { "$LBSIM" replay "$T/nb.lbt" --grid "$G" --metric interactions --policy fixed:2 --json "$@" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["mean_imbalance"])'; }
i0=$(imb) i1=$(imb --partition-metric rwgt) i2=$(imb --set sim.partition_metric=rwgt)
python3 -c "import sys; sys.exit(0 if $i1 > $i0 else 1)" && ok || bad "partition by rwgt: imbalance $i1, by interactions $i0"
[ "$i1" = "$i2" ] && ok || bad "--partition-metric and [sim] partition_metric differ: $i1 $i2"
[ "$(imb --partition-metric interactions)" = "$i0" ] && ok || bad "the replayed metric as partition metric changes the run"
expect 1 "an unknown partition metric" -- "$LBSIM" replay "$T/nb.lbt" --grid "$G" --partition-metric nope
has "$T/err" "no partition metric 'nope' (it has: pwgt, rwgt, interactions)" "unknown partition metric named"
# balance beside MinEX's model: the partitioner's promise and what it left
expect 0 "work imbalance in json" -- "$LBSIM" replay "$T/b.lbt" --grid "$G" --policy fixed:20 --json
python3 -c "
import json; d = json.load(open('$T/out'))
assert d['tolerance'] == 1.1 and 1 <= d['initial_work_imbalance'] <= d['max_work_imbalance'], d
assert 0 <= d['tolerance_missed'] <= d['repartitions'] + 1, d" && ok || bad "replay balance fields: $(cat "$T/out")"
finish
