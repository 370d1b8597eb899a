#!/usr/bin/env bash
# A real run profiled with the default settings replays: examples/instrumented/heat on 1 and 2
# ranks (96 x 96 cells, 40 steps, the size at which the range-relative default once stored
# negative costs), then `lbsim replay` of each trace on 1 and 2 ranks. The stored costs keep
# their signs, the trace records the default bound, its chunk sums are kept, and the replay
# runs. Also the committed real profile (tests/data) recoded at the default bound.
set -u
LBSIM=${1:?usage: profile_replay.sh lbsim heat source-dir}
HEAT=${2:?}
SRC=${3:?}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
G=$SRC/examples/grids/homogeneous16.ini
# the run's settings are the defaults: nothing from the caller's environment
unset LBSPROF_BOUND LBSPROF_CODEC LBSPROF_SAMPLE_EVERY LBSPROF_COLLECTOR LBSPROF_METRICS LBSPROF_ON_FULL

field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$T/out" "$1"; }
for n in 1 2; do
  expect 0 "heat on $n ranks" -- "${MPI[@]}" -n $n "$HEAT" "$T/h$n.lbt" 96 40
  has "$T/out" "(complete)" "profile on $n ranks complete"
  expect 0 "info of the $n-rank profile" -- "$LBSIM" trace info "$T/h$n.lbt" --json
  [ "$(field "d['metrics'][0]['bound']")" = "rel:0.005" ] && ok || bad "$n ranks: bound $(field "d['metrics'][0]['bound']")"
  [ "$(field "d['metrics'][0]['values']['negative']")" = "0" ] && ok || bad "$n ranks: negative costs stored"
  [ "$(field "d['steps']")" = "40" ] && ok || bad "$n ranks: 40 steps"
  field "d['max_sum_error'] <= 1e-9 and d['max_rel_error'] < 0.005" | grep -q True && ok || bad "$n ranks: sums or bound: $(head -c 600 "$T/out")"
  for r in 1 2; do
    expect 0 "replay the $n-rank profile on $r ranks" -- "${MPI[@]}" -n $r "$LBSIM" replay "$T/h$n.lbt" --grid "$G" \
      --policy fixed:10 --json
    sed 's/,"wall_s":[0-9.]*//' "$T/out" >"$T/r$n.$r.json"
    field "d['total_time_s'] > 0 and d['steps'] == 40" | grep -q True && ok || bad "replay of the $n-rank profile"
  done
  cmp -s "$T/r$n.1.json" "$T/r$n.2.json" && ok || bad "replay of the $n-rank profile differs on 1 and 2 ranks"
  expect 0 "policy compare on the $n-rank profile" -- "$LBSIM" policy compare "$T/h$n.lbt" --grid "$G" \
    --policies none,fixed:5,threshold:0.3 --json
done

# the committed real profile, lossless, at the default bound: every value within 0.5%, sums kept
expect 0 "recode the real profile" -- "$LBSIM" trace recode "$SRC/tests/data/heat_2ranks.lbt" -o "$T/real.lbt"
expect 0 "its info" -- "$LBSIM" trace info "$T/real.lbt" --json
field "d['max_rel_error'] <= 0.005 and d['max_sum_error'] <= 1e-9 and d['metrics'][0]['values']['negative'] == 0" \
  | grep -q True && ok || bad "recoded real profile: $(head -c 600 "$T/out")"
expect 0 "replay the recoded real profile" -- "$LBSIM" replay "$T/real.lbt" --grid "$G" --policy fixed:10 --json
expect 0 "replay the lossless real profile" -- "$LBSIM" replay "$SRC/tests/data/heat_2ranks.lbt" --grid "$G" \
  --policy fixed:10 --json
finish
