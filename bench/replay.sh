#!/usr/bin/env bash
# bench/replay.sh - the replay kernel's figures in one run (see bench/RESULTS.md):
#  1-2. bench_replay on a 1M-element x 20-step bump trace (kernel vs decode, adapter vs Zoltan);
#  3.   lbsim replay on 1 and 2 MPI ranks on a 4M-element x 50-step bump trace.
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_replay}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI=(mpiexec --allow-run-as-root --oversubscribe)
[ -f "$W/m1.lbt" ] || $B/lbsim trace gen --kind bump --mesh 100x100x100 --steps 20 -o "$W/m1.lbt" 2>/dev/null
[ -f "$W/m4.lbt" ] || $B/lbsim trace gen --kind bump --mesh 160x160x160 --steps 50 -o "$W/m4.lbt" 2>/dev/null
G=examples/grids/homogeneous16.ini
echo "bench/replay: replay kernel against decoding, the Zoltan adapter against a direct call, 1 vs 2 ranks"
"${MPI[@]}" -n 1 $B/bench_replay "$W/m1.lbt" $G
wall() { sed -n 's/.*"wall_s":\([0-9.]*\).*/\1/p'; }
for policy in none fixed:10; do
  best1=999999 best2=999999
  for r in 1 2; do
    w1=$("${MPI[@]}" -n 1 $B/lbsim replay "$W/m4.lbt" --grid $G --policy $policy --json | wall)
    w2=$("${MPI[@]}" -n 2 $B/lbsim replay "$W/m4.lbt" --grid $G --policy $policy --json | wall)
    best1=$(awk "BEGIN{print ($w1<$best1)?$w1:$best1}")
    best2=$(awk "BEGIN{print ($w2<$best2)?$w2:$best2}")
  done
  awk -v a="$best1" -v b="$best2" -v p="$policy" 'BEGIN { printf "trace m4: 4096000 elements x 50 steps, zoltan:rcb, policy %s, bsp, best of 2\n  %-52s %12.2f %12.2f %8.2f   goal >= 1.60 (baseline: 1 rank)\n", p, "replay wall time on 2 ranks vs 1, s", b, a, a / b }'
done
