#!/usr/bin/env bash
# bench/replay.sh - the replay kernel's figures in one run (see bench/RESULTS.md):
#  1-2. bench_replay on a 1M-element x 20-step bump trace (kernel vs decode, adapter vs Zoltan);
#  3.   lbsim replay on 1 and 2 MPI ranks on a 4M-element x 50-step bump trace: wall time and the
#       largest rank's peak memory (VmHWM), with Zoltan RCB and HSFC, policies none and fixed:10;
#  4.   the replay rate per element at 4.1M and 100M elements on 2 ranks (BENCH_BIG=0 skips the
#       100M trace: its generation takes 1.5 minutes and its replay 20 GB).
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
# One run: "wall_s peak_mb mode" from the text output.
one() {
  local n=$1; shift
  "${MPI[@]}" -n "$n" $B/lbsim replay "$@" 2>/dev/null |
    awk '/^wall/ { w = $2 } /^ranks/ { m = $0; sub(/.*peak memory /, "", m); sub(/ MB.*/, "", m); d = $0; sub(/.*partitioning /, "", d); sub(/,.*/, "", d) } END { print w, m, d }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
REPS=${BENCH_REPS:-3}
echo "trace m4: 4096000 elements x 50 steps, bsp; median of $REPS runs, 1 and 2 ranks alternating"
printf '  %-34s %9s %9s %7s   %9s %9s %6s   %s\n' "partitioner, policy" "1 rank s" "2 ranks s" "speedup" "1 rank MB" "2 ranks MB" "ratio" "2-rank mode"
for part in zoltan:rcb zoltan:hsfc; do
  for policy in none fixed:10; do
    : >"$W/t1"; : >"$W/t2"
    for r in $(seq "$REPS"); do
      one 1 "$W/m4.lbt" --grid $G --partitioner $part --policy $policy >>"$W/t1"
      one 2 "$W/m4.lbt" --grid $G --partitioner $part --policy $policy >>"$W/t2"
    done
    w1=$(cut -d' ' -f1 "$W/t1" | median) w2=$(cut -d' ' -f1 "$W/t2" | median)
    m1=$(cut -d' ' -f2 "$W/t1" | median) m2=$(cut -d' ' -f2 "$W/t2" | median) mode=$(cut -d' ' -f3 "$W/t2" | head -1)
    awk -v p="$part, $policy" -v w1="$w1" -v w2="$w2" -v m1="$m1" -v m2="$m2" -v d="$mode" \
      'BEGIN { printf "  %-34s %9.2f %9.2f %6.2fx   %9.1f %9.1f %6.2f   %s\n", p, w1, w2, w1 / w2, m1, m2, m2 / m1, d }'
  done
done
echo "  goals: speed-up >= 1.60 (baseline: 1 rank); memory of the largest rank on 2 ranks <= 0.60 of 1 rank's"

# The replay rate per element at 4.1M and at 100M elements, on 2 ranks: setup (first step:
# rows, ghosts, the initial partition) and steps ((T(3 steps) - T(1 step)) / 2), best of 2.
if [ "${BENCH_BIG:-1}" = 1 ]; then
  [ -f "$W/m100.lbt" ] || $B/lbsim trace gen --kind bump --mesh 500x500x400 --steps 3 -o "$W/m100.lbt" 2>/dev/null
  echo "replay rate per element on 2 ranks, zoltan:rcb, policy none (best of 2)"
  printf '  %-30s %12s %12s %14s %14s %10s\n' trace "1 step s" "3 steps s" "setup Melem/s" "step Melem/s" "peak MB"
  for t in m4:4096000 m100:100000000; do
    name=${t%%:*} E=${t##*:} b1=999999 b3=999999 pk=0
    for r in 1 2; do
      x1=$(one 2 "$W/$name.lbt" --grid $G --steps 0:1) x3=$(one 2 "$W/$name.lbt" --grid $G --steps 0:3)
      b1=$(awk -v a="${x1%% *}" -v b="$b1" 'BEGIN { print (a < b) ? a : b }')
      b3=$(awk -v a="${x3%% *}" -v b="$b3" 'BEGIN { print (a < b) ? a : b }')
      pk=$(echo "$x3" | cut -d' ' -f2)
    done
    awk -v n="$name ($E elements)" -v E="$E" -v a="$b1" -v b="$b3" -v pk="$pk" \
      'BEGIN { printf "  %-30s %12.2f %12.2f %14.2f %14.1f %10.1f\n", n, a, b, E / a / 1e6, 2 * E / (b - a) / 1e6, pk }'
  done
fi
