#!/usr/bin/env bash
# apps/laplace-mc, the Monte-Carlo Laplace solver, end to end (a few seconds):
# - on 1 and 2 ranks the solution is the same, bit for bit, and agrees with Gauss-Seidel on the
#   same grid within the Monte-Carlo error (apps_check.py laplace); repartitioned runs
#   (--schedule on 2 and 3 ranks, --policy fixed:2) migrate the points and still give it
# - profiled on 1 and 2 ranks: the trace passes `lbsim trace check`, replays, holds the app.*
#   keys, and per rank walk_steps correlates with time_ns (r >= 0.9); profiled with --schedule 3,6:
#   the owners recorded from steps 0, 3, 6, every point's walk_steps on its own id, and each
#   rank's partition_s and migration_s (events_check.py)
# - bad parameters: `laplace-mc: what: why` and a non-zero exit on every rank, no hang
set -u
LBSIM=${1:?usage: app_laplace_mc.sh lbsim laplace-mc source-dir}
APP=${2:?}
SRC=${3:?}
MPI=(timeout 120 mpiexec --allow-run-as-root --oversubscribe)
# profiled runs unbound: under Open MPI's default binding the profiler's agent and collector,
# started by rank 0, inherit its core and slow that rank's elements (bench/RESULTS.md)
PMPI=("${MPI[@]}" --bind-to none)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
CHECK=(python3 "$(dirname "$0")/apps_check.py")
G=$SRC/examples/grids/homogeneous16.ini
unset LBSPROF_BOUND LBSPROF_CODEC LBSPROF_SAMPLE_EVERY LBSPROF_COLLECTOR LBSPROF_METRICS LBSPROF_ON_FULL

# the solution: 1 and 2 ranks, the same bits, and Gauss-Seidel's values within the error
SIZE=(--size 32 --walks 100 --steps 16)
for n in 1 2; do
  expect 0 "solve on $n ranks" -- "${MPI[@]}" -n $n "$APP" "${SIZE[@]}" --out "$T/sol$n.txt" --json "$T/sol$n.json"
  "${CHECK[@]}" contract "$T/sol$n.json" laplace-mc $n 16 1024 && ok || bad "JSON summary on $n ranks"
done
cmp -s "$T/sol1.txt" "$T/sol2.txt" && ok || bad "the solution differs on 1 and 2 ranks"
"${CHECK[@]}" laplace "$T/sol1.txt" && ok || bad "the solution against Gauss-Seidel"
# repartitioned: the points move, the solution does not change
for run in "2 --schedule 3,7" "3 --schedule 2,5,11" "2 --policy fixed:2" "2 --part-sizes 3,1 --schedule 3"; do
  set -- $run
  n=$1
  shift
  expect 0 "solve on $n ranks with $*" -- "${MPI[@]}" -n $n "$APP" "${SIZE[@]}" "$@" --out "$T/rep.txt" --json "$T/rep.json"
  cmp -s "$T/sol1.txt" "$T/rep.txt" && ok || bad "the solution with $* on $n ranks differs"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not d['repartitions'])" "$T/rep.json" && ok ||
    bad "no repartition with $*"
done

# --part-sizes: rank 0 starts with about 3/4 of the rows and keeps about 3/4 of the time; the
# trace records the shares as app.part_sizes, which the replay's part_sizes = app reads
expect 0 "profile with --part-sizes 3,1" -- "${PMPI[@]}" -n 2 "$APP" --size 40 --walks 32 --steps 4 --part-sizes 3,1 \
  --trace "$T/pp.lbt"
expect 0 "trace info of it" -- "$LBSIM" trace info "$T/pp.lbt"
has "$T/out" "part_sizes=0.75,0.25" "app.part_sizes recorded"
printf '[grid]\nns_per_work = 1\n[nodetype n]\ncores = 2\n[cluster c]\nnodes = 1\nnodetype = n\n' >"$T/g2.ini"
expect 0 "replay with part_sizes = app" -- "$LBSIM" replay "$T/pp.lbt" --grid "$T/g2.ini" --set sim.part_sizes=app --json
has "$T/out" '"part_sizes":"app"' "the rule in the replay's JSON"
expect 1 "part_sizes = app on 16 processors" -- "$LBSIM" replay "$T/pp.lbt" --grid "$G" --set sim.part_sizes=app
has "$T/err" "the trace's app.part_sizes '0.75,0.25' gives 2 shares, the grid has 16 processors" "shares against the grid's processors"
expect 1 "part_sizes = nope" -- "$LBSIM" replay "$T/pp.lbt" --grid "$T/g2.ini" --set sim.part_sizes=nope
has "$T/err" "'nope' must be speed, equal or app" "a bad rule"
for n in 1 2; do
  expect 0 "profile on $n ranks" -- "${PMPI[@]}" -n $n "$APP" --size 40 --walks 32 --steps 8 --trace "$T/p$n.lbt" \
    --json "$T/p$n.json"
  "${CHECK[@]}" contract "$T/p$n.json" laplace-mc $n 8 1600 && ok || bad "JSON summary of the profiled run on $n ranks"
  expect 0 "trace check on $n ranks" -- "$LBSIM" trace check "$T/p$n.lbt"
  expect 0 "trace info on $n ranks" -- "$LBSIM" trace info "$T/p$n.lbt"
  has "$T/out" "name=laplace-mc" "app.name in the $n-rank trace"
  has "$T/out" "args=--size 40 --walks 32 --steps 8 --seed 1" "app.args in the $n-rank trace"
  has "$T/out" "walk_steps" "the walk_steps metric in the $n-rank trace"
  expect 0 "replay of the $n-rank trace" -- "$LBSIM" replay "$T/p$n.lbt" --grid "$G" --policy fixed:5
  expect 0 "export of the $n-rank trace" -- "$LBSIM" trace export "$T/p$n.lbt" --csv "$T/csv$n"
  "${CHECK[@]}" corr "$T/csv$n/steps.csv" "$T/p$n.json" walk_steps 0.9 && ok || bad "correlation on $n ranks"
done
# profiled while repartitioning (lbsprof_remap after each migration): the owners from steps 0, 3
# and 6, and every point's walk_steps (which depend on the point alone) on its own id
for n in 1 2; do
  expect 0 "profile with a schedule on $n ranks" -- "${PMPI[@]}" -n $n "$APP" --size 40 --walks 32 --steps 8 \
    --trace "$T/ps$n.lbt" --json "$T/ps$n.json" --schedule 3,6
  expect 0 "migrating trace check on $n ranks" -- "$LBSIM" trace check "$T/ps$n.lbt"
  expect 0 "migrating trace info on $n ranks" -- "$LBSIM" trace info "$T/ps$n.lbt"
  has "$T/out" "recorded assignments: 3 (from steps 0, 3, 6)" "the owners of the $n-rank run"
  # the application's own costs: each rank's partition and migration seconds (lbsprof_event_add)
  expect 0 "migrating trace info --json on $n ranks" -- "$LBSIM" trace info "$T/ps$n.lbt" --json
  python3 "$(dirname "$0")/events_check.py" "$T/out" "$T/ps$n.json" $n 8 partition_s migration_s &&
    ok || bad "partition and migration events ($n ranks)"
  expect 0 "export of the migrating $n-rank trace" -- "$LBSIM" trace export "$T/ps$n.lbt" --csv "$T/csvs$n"
  python3 - "$T/csv1/steps.csv" "$T/csvs$n/steps.csv" <<'PY' && ok || bad "walk_steps after migration on $n ranks"
import csv, sys
a, b = ({(r["app_step"], r["element"]): float(r["walk_steps"]) for r in csv.DictReader(open(f))} for f in sys.argv[1:3])
assert a.keys() == b.keys() and len(a) == 8 * 1600, (len(a), len(b))
bad = [k for k in a if abs(a[k] - b[k]) > 0.011 * abs(a[k])]
assert not bad, ("walk_steps differ", bad[:5], [(a[k], b[k]) for k in bad[:5]])
PY
done

# bad parameters: a message naming the app, a non-zero exit, no hang (timeout gives 124)
badrun() {
  local n=$1 want=$2
  shift 2
  "${MPI[@]}" -n $n "$APP" "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -qF "laplace-mc: $want" "$T/err"; then ok; else
    bad "laplace-mc $* on $n ranks: exit $rc, stderr $(head -c 300 "$T/err")"; fi
}
badrun 2 "--size 0: must be in" --size 0
badrun 3 "--size 2 on 3 ranks" --size 2
badrun 2 "--schedule 9: steps:9: step 9 is out of range" --size 8 --steps 8 --schedule 9
badrun 2 "--schedule 0:" --size 8 --schedule 0
badrun 2 "--policy adaptive: needs to look ahead" --size 8 --policy adaptive
badrun 2 "--policy nope: unknown policy" --size 8 --policy nope
badrun 2 "--walks x: not a whole number" --walks x
badrun 2 "--bogus: unknown option" --bogus
badrun 2 "--part-sizes 1,0: share 2 is not a number > 0" --size 8 --part-sizes 1,0
badrun 2 "--part-sizes 1,1,1: 3 shares for 2 ranks (one per rank)" --size 8 --part-sizes 1,1,1
badrun 2 "--json $T/no/such/dir/x.json" --size 8 --json "$T/no/such/dir/x.json"
expect 0 "--help" -- "$APP" --help
has "$T/out" "examples:" "--help has examples"
finish
