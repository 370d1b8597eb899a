#!/usr/bin/env bash
# End-to-end checks of the application's own migration rate (sim/recorded.c,
# lbs__migration_rate_setup) through the command line: `lbsim replay --json`'s migration_rate and
# the text report's line, [sim] migration_cost = model | links and a bad value, 1 vs 2 ranks.
# The traces are mpi_recorded's (`mpi_recorded --write`): own.lbt records migration_s at the
# changes before trace steps 2 (the busiest rank sends or receives 2 elements, 4 ms) and 5 (two
# collapsed migrations, 8 + 8 elements, 0.75 ms): 2 points, so the ratio of the sums,
# 4.75 ms / 18 = 263888.889 ns per element; plain.lbt has the owners and no events: no rate.
set -u
LBSIM=${1:?usage: migration_rate_cli.sh lbsim source-dir mpi_recorded}
SRC=${2:?}
WRITE=${3:?}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
G=$T/g3.ini
printf '[grid]\nns_per_work = 3\nbytes_per_elem = 100\nbytes_per_edge = 8\n[cluster A]\nnodes = 3\nlatency_us = 1\n' >"$G"
R=(replay --grid "$G" --policy fixed:2 --partitioner metis)

expect 0 "write the traces" -- "$WRITE" --write "$T"
expect 0 "fixed:2 on own.lbt" -- "$LBSIM" "${R[@]}" "$T/own.lbt" --json
has "$T/out" '"migration_rate":{"per_elem_ns":263888.889,"fixed_us":0,"from":"trace","fit":"ratio","points":2}' \
  "the rate: the ratio of the sums of the 2 recorded migrations"
sed 's/,"wall_s":[0-9.]*//;s/,"ranks":[0-9]*//;s/,"peak_rss_mb":[0-9.e+-]*//' "$T/out" >"$T/np1.json"
expect 0 "fixed:2 on own.lbt, 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" "${R[@]}" "$T/own.lbt" --json
sed 's/,"wall_s":[0-9.]*//;s/,"ranks":[0-9]*//;s/,"peak_rss_mb":[0-9.e+-]*//' "$T/out" >"$T/np2.json"
if cmp -s "$T/np1.json" "$T/np2.json"; then ok; else
  bad "1 and 2 ranks differ: $(cat "$T/np1.json") vs $(cat "$T/np2.json")"
fi
expect 0 "text" -- "$LBSIM" "${R[@]}" "$T/own.lbt"
has "$T/out" "migration     the application's own rate, 2.639e+05 ns per element + 0 us (ratio of the sums of the 2 migrations its trace recorded)" \
  "the text report's line"
expect 0 "plain.lbt" -- "$LBSIM" "${R[@]}" "$T/plain.lbt" --json
if grep -q '"migration_rate"' "$T/out"; then bad "plain.lbt: a rate without recorded migration times"; else ok; fi
sed 's/,"wall_s":[0-9.]*//' "$T/out" >"$T/plain.json"
for mc in model links; do
  expect 0 "migration_cost = $mc" -- "$LBSIM" "${R[@]}" "$T/own.lbt" --set "sim.migration_cost=$mc" --json
  sed 's/,"wall_s":[0-9.]*//' "$T/out" >"$T/$mc.json"
  if cmp -s "$T/$mc.json" "$T/plain.json"; then ok; else
    bad "migration_cost = $mc: not plain.lbt's charges: $(cat "$T/$mc.json") vs $(cat "$T/plain.json")"
  fi
done
expect 1 "a bad migration_cost" -- "$LBSIM" "${R[@]}" "$T/own.lbt" --set sim.migration_cost=wall
has "$T/err" "'wall' must be measured, model or links" "why"
finish
