#!/usr/bin/env bash
# End-to-end checks of policy recorded (sim/recorded.c) through the command line: `lbsim replay
# --policy recorded`, [sim] policy = recorded, `policy compare` beside other policies, 1 vs 2
# ranks, and its refusals. The trace (8 elements in a line, owners recorded from application
# steps 0, 10, 20, 22, 24 and 30, tests/sim/mpi_recorded.c) is written by `mpi_recorded --write`:
# no lbsim command makes a trace with recorded owners yet. own.lbt also has the application's
# own costs (events partition_s and migration_s of 3 ranks) before the repartitions at trace
# steps 2 and 5, charged in place of the models; plain.lbt is the same without them.
set -u
LBSIM=${1:?usage: recorded_cli.sh lbsim source-dir mpi_recorded}
SRC=${2:?}
WRITE=${3:?}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
G=$T/g3.ini
printf '[grid]\nns_per_work = 3\nbytes_per_elem = 100\nbytes_per_edge = 8\n[cluster A]\nnodes = 3\nlatency_us = 1\n' >"$G"
printf '[grid]\nns_per_work = 3\n[cluster A]\nnodes = 2\n' >"$T/g2.ini"
{ cat "$G"; printf '[sim]\npolicy = recorded\n'; } >"$T/gsim.ini"

expect 0 "write the traces" -- "$WRITE" --write "$T"
expect 0 "replay --policy recorded" -- "$LBSIM" replay "$T/own.lbt" --grid "$G" --policy recorded --json
has "$T/out" '"partitioner":"recorded"' "the partitioner reported is the application's"
has "$T/out" '"repartition_steps":[2,4,5,6]' "before the sampled steps that reach 10, 20, 24 (22 collapsed) and 30"
has "$T/out" '"moved_elements":6' "2 + 3 + 1 + 0 elements moved"
has "$T/out" '"partition_time_s":0.003734568,' "partitioning: the application's, 2.5 ms at step 2 + 1.234568 ms at step 5"
has "$T/out" '"recorded_costs":2,' "two repartitions charged the application's recorded costs"
sed 's/,"wall_s":[0-9.]*//' "$T/out" >"$T/np1.json"
expect 0 "recorded on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" replay "$T/own.lbt" --grid "$G" --policy recorded --json
sed 's/,"wall_s":[0-9.]*//' "$T/out" | grep -v '"ranks"' >"$T/np2.json"
if cmp -s <(sed 's/,"ranks":[0-9]*//;s/,"peak_rss_mb":[0-9.e+-]*//' "$T/np1.json") \
  <(sed 's/,"ranks":[0-9]*//;s/,"peak_rss_mb":[0-9.e+-]*//' "$T/np2.json"); then ok; else
  bad "1 and 2 ranks differ: $(cat "$T/np1.json") vs $(cat "$T/np2.json")"
fi
expect 0 "recorded, text" -- "$LBSIM" replay "$T/own.lbt" --grid "$G" --policy recorded
has "$T/out" "4 before steps 2, 4, 5, 6; 2 charged the application's own recorded costs" "the report says which"
expect 0 "without the application's costs" -- "$LBSIM" replay "$T/plain.lbt" --grid "$G" --policy recorded --json
has "$T/out" '"partition_time_s":0,' "no partitioning time charged"
has "$T/out" '"recorded_costs":0,' "nothing recorded charged"
expect 0 "--cost zero" -- "$LBSIM" replay "$T/own.lbt" --grid "$G" --policy recorded --cost zero --json
has "$T/out" '"partition_time_s":0,' "--cost zero: no partitioning time"
has "$T/out" '"migration_time_s":0.00475108,' "--cost zero: the recorded migration, 4 + 0.75 ms, and the links' at step 4"
has "$T/out" '"recorded_costs":2,' "--cost zero: the migrations still recorded"
expect 0 "export simgrid" -- "$LBSIM" export simgrid "$T/own.lbt" --grid "$G" --policy recorded -o "$T/x"
has "$T/x/rank_0.txt" "0 sleep 0.002500000" "export: the recorded partitioning"
has "$T/x/rank_2.txt" "2 sleep 0.004000000" "export: the recorded migration"
expect 0 "[sim] policy = recorded" -- "$LBSIM" replay "$T/own.lbt" --grid "$T/gsim.ini" --json
has "$T/out" '"policy":"recorded"' "the grid file's [sim] chooses it"
has "$T/out" '"repartition_steps":[2,4,5,6]' "the same schedule from [sim]"
expect 0 "a window" -- "$LBSIM" replay "$T/own.lbt" --grid "$G" --policy recorded --steps 3:6 --json
has "$T/out" '"repartition_steps":[4,5]' "the window starts under step 10's assignment"
has "$T/out" '"moved_elements":4' "the window's moves"
has "$T/out" '"recorded_costs":1,' "the window's one recorded cost (step 5's)"
expect 0 "policy compare" -- "$LBSIM" policy compare "$T/own.lbt" --grid "$G" --partitioner metis \
  --policies recorded,fixed:2,optimal --json
has "$T/out" '"partitioner":"recorded","policy":"recorded"' "compare: recorded's own partitioner"
has "$T/out" '"partitioner":"metis","policy":"fixed:2"' "compare: the others' partitioner"
expect 0 "results store" -- "$LBSIM" replay "$T/own.lbt" --grid "$G" --policy recorded --results "$T/r.db"
expect 0 "results" -- "$LBSIM" results "$T/r.db" --json
has "$T/out" '"partitioner":"recorded"' "the results store does not claim zoltan:rcb ran"
# refusals: exit 1, the message names the trace and says why
expect 1 "no recorded owners" -- "$LBSIM" replay "$T/bare.lbt" --grid "$G" --policy recorded
has "$T/err" "$T/bare.lbt: policy recorded replays the application's own assignments, and this trace has none recorded" "no owners: why"
expect 1 "no recorded owners on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" replay "$T/bare.lbt" --grid "$G" --policy recorded
has "$T/err" "has none recorded" "no owners on 2 ranks: why"
expect 1 "too few processors" -- "$LBSIM" replay "$T/own.lbt" --grid "$T/g2.ini" --policy recorded
has "$T/err" "puts elements on rank 2, and the grid has 2 processors: it needs 3 or more" "too few processors: why"
expect 1 "too few processors on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" replay "$T/own.lbt" --grid "$T/g2.ini" --policy recorded
has "$T/err" "it needs 3 or more" "too few processors on 2 ranks: why"
expect 1 "a negative recorded cost" -- "$LBSIM" replay "$T/badev.lbt" --grid "$G" --policy recorded
has "$T/err" "$T/badev.lbt: step 5 (application step 25): rank 1's migration_s -1 is negative" "a negative cost: why"
expect 1 "a negative recorded cost on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" replay "$T/badev.lbt" --grid "$G" --policy recorded
has "$T/err" "rank 1's migration_s -1 is negative" "a negative cost on 2 ranks: why"
{ cat "$G"; printf '[availability down]\ntarget = proc 1\nfrom_step = 3\nfail = true\n'; } >"$T/gfail.ini"
expect 1 "a failing processor" -- "$LBSIM" replay "$T/own.lbt" --grid "$T/gfail.ini" --policy recorded
has "$T/err" "[availability down]: policy recorded replays the application's own assignments, which cannot follow a failing processor" "a failing processor: why"
{ cat "$G"; printf '[availability slow]\ntarget = proc 1\nfrom_step = 3\nspeed_factor = 0.5\n'; } >"$T/gslow.ini"
expect 0 "a slowdown" -- "$LBSIM" replay "$T/own.lbt" --grid "$T/gslow.ini" --policy recorded --json
has "$T/out" '"repartition_steps":[2,4,5,6]' "a slowdown leaves the recorded schedule alone"
expect 1 "no arguments" -- "$LBSIM" replay "$T/own.lbt" --grid "$G" --policy recorded:1
has "$T/err" "takes no arguments" "recorded:1"
finish
