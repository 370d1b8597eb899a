#!/usr/bin/env bash
# Memory per rank (issue: scale out): the peak resident set of the largest rank on 2 ranks
# against 1 rank, on a mid-size trace (1.57M elements), with the partitioner where the
# elements are (partition_mode distributed, which auto picks at this size on 2 ranks); and the
# mode's bad input. Run in the normal build only (the sanitizers' shadow memory is not lbsim's).
set -u
LBSIM=${1:?usage: memory_ranks.sh lbsim source-dir}
SRC=${2:?}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
G=$SRC/examples/grids/homogeneous16.ini
peak() { sed -n 's/.*peak memory \([0-9.]*\) MB.*/\1/p' "$T/out"; }

expect 0 "gen" -- "$LBSIM" trace gen --kind bump --mesh 128x128x96 --steps 3 -o "$T/m.lbt"
expect 0 "1 rank" -- "${MPI[@]}" -n 1 "$LBSIM" replay "$T/m.lbt" --grid "$G"
has "$T/out" "ranks         1, partitioning rank0" "1 rank partitions on rank 0"
m1=$(peak)
sim1=$(grep '^simulated' "$T/out")
expect 0 "2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" replay "$T/m.lbt" --grid "$G" --results "$T/r.db"
has "$T/out" "ranks         2, partitioning distributed" "auto picks distributed on 2 ranks from 1M elements"
[ "$(sqlite3 "$T/r.db" "SELECT partition_mode || ' ' || ranks FROM runs")" = "distributed 2" ] && ok ||
  bad "the results store records the mode and the ranks: $(sqlite3 "$T/r.db" "SELECT partition_mode, ranks FROM runs")"
m2=$(peak)
echo "peak memory of the largest rank: 1 rank $m1 MB, 2 ranks $m2 MB"
if awk -v a="$m1" -v b="$m2" 'BEGIN { exit !(a > 100 && b > 0 && b <= 0.75 * a) }'; then ok; else
  bad "2 ranks should hold at most 0.75x of 1 rank's memory each: $m2 MB against $m1 MB"
fi
expect 0 "2 ranks, rank0" -- "${MPI[@]}" -n 2 "$LBSIM" replay "$T/m.lbt" --grid "$G" --set sim.partition_mode=rank0
[ "$(grep '^simulated' "$T/out")" = "$sim1" ] && ok || bad "rank0 on 2 ranks must simulate what 1 rank does"
m0=$(peak)
echo "2 ranks, partition_mode rank0: $m0 MB (rank 0 gathers every element)"

# bad input: each a clear error before the work
expect 1 "distributed on 1 rank" -- "${MPI[@]}" -n 1 "$LBSIM" replay "$T/m.lbt" --grid "$G" --set sim.partition_mode=distributed
has "$T/err" "partition_mode = distributed needs 2 or more MPI ranks" "distributed on 1 rank says why"
expect 1 "distributed METIS" -- "${MPI[@]}" -n 2 "$LBSIM" replay "$T/m.lbt" --grid "$G" --partitioner metis --set sim.partition_mode=distributed
has "$T/err" "metis has no distributed path" "METIS says it has no distributed path"
expect 1 "too little memory" -- "${MPI[@]}" -n 2 "$LBSIM" replay "$T/m.lbt" --grid "$G" --set sim.memory_limit_gb=0.2
has "$T/err" "partition_mode = distributed needs about" "the memory check names the mode"
has "$T/err" "GB on this node for 1572864 elements (2 of 2 ranks here)" "the memory check gives the figure"
"$LBSIM" replay "$T/m.lbt" --grid "$G" --set sim.partition_mode=everywhere >"$T/out" 2>"$T/err" && bad "an unknown mode must fail" || ok
has "$T/err" "partition_mode = 'everywhere' must be auto, rank0 or distributed" "an unknown mode is named"
finish
