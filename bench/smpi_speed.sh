#!/usr/bin/env bash
# bench/smpi_speed.sh - lbsim against SimGrid's SMPI replaying the same run, whole runs timed side
# by side (issue 34; bench/RESULTS.md, "Whole runs against SMPI"). For each P: a grid of one
# cluster of P processors (latency 5 us, 10 Gbit/s, dedicated links, or with BENCH_SHARED=1 one
# shared network), `lbsim export simgrid` of a bump trace (policy none, zoltan:rcb), then, one
# after the other, `lbsim replay` as a user runs it (no mpiexec: start-up included) and
# `smpi_replay --ideal-barrier` of the export (SimGrid's whole run, platform parsing included).
# Prints wall and CPU (user + sys) seconds of each, their ratio, and both simulated times.
#
#   bash bench/smpi_speed.sh                     # P = 16 64 256 1024, bsp, dedicated links
#   BENCH_PROCS="16 64" BENCH_MODE=des BENCH_SHARED=1 bash bench/smpi_speed.sh
#
# BENCH_MESH (64x64x32), BENCH_STEPS (10), BENCH_REPS (best of 3) change the work.
# BENCH_BASE=/path/to/lbsim: another lbsim (main's, say) exports the same run too, and SMPI
# replays both exports, one after the other; the extra columns are SMPI on the base's export
# and both platform.xml sizes (KB), so two exporters are timed side by side in one run:
#
#   BENCH_BASE=/tmp/main/build/bin/lbsim BENCH_PROCS="16 64 256" bash bench/smpi_speed.sh
set -euo pipefail
cd "$(dirname "$0")/.."
B=$PWD/build/bin
[ -x "$B/smpi_replay" ] || {
  echo "smpi_speed.sh: build/bin/smpi_replay missing (SimGrid not found at configure time)" >&2
  exit 1
}
W=${BENCH_DIR:-/tmp/lbs_bench_smpi_speed}
MESH=${BENCH_MESH:-64x64x32} STEPS=${BENCH_STEPS:-10} REPS=${BENCH_REPS:-3}
MODE=${BENCH_MODE:-bsp} SHARED=${BENCH_SHARED:-0}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T=$W/bump_${MESH}_$STEPS.lbt
[ -f "$T" ] || "$B/lbsim" trace gen --kind bump --mesh "$MESH" --steps "$STEPS" -o "$T" 2>/dev/null

. bench/lib.sh # best_of

BASE=${BENCH_BASE:-}
[ -z "$BASE" ] || [ -x "$BASE" ] || {
  echo "smpi_speed.sh: BENCH_BASE=$BASE is not an executable" >&2
  exit 1
}
extra() { [ -z "$BASE" ] || printf " %10s %10s %16s %9s %9s" "$@"; }
printf '%-6s %-5s %-9s %10s %10s %10s %10s %9s %9s %16s %16s' P mode links \
  "lbsim s" "lbsim cpu" "smpi s" "smpi cpu" "wall x" "cpu x" "lbsim sim s" "smpi sim s"
extra "base smpi s" "base cpu" "base sim s" "base KB" "KB"
echo
for P in ${BENCH_PROCS:-16 64 256 1024}; do
  G=$W/grid_$P.ini
  printf '[grid]\nname = one%d\nns_per_work = 1\n\n[cluster main]\nnodes = %d\nlatency_us = 5\nbandwidth_gbps = 10\nshared = %s\n' \
    "$P" "$P" "$([ "$SHARED" = 1 ] && echo true || echo false)" >"$G"
  D=$W/smpi_${P}_$MODE
  "$B/lbsim" export simgrid "$T" --grid "$G" --mode "$MODE" -f -o "$D" >/dev/null 2>&1
  read -r lw lc < <(best_of "$B/lbsim" replay "$T" --grid "$G" --mode "$MODE" --json)
  lsim=$(/usr/bin/python3 -c 'import json,sys; print("%.9f" % json.load(open(sys.argv[1]))["total_time_s"])' "$W/out")
  read -r sw sc < <(best_of "$B/smpi_replay" --ideal-barrier "$D")
  ssim=$(grep -o '[0-9.]*' "$W/out" | tail -1)
  if [ -n "$BASE" ]; then
    "$BASE" export simgrid "$T" --grid "$G" --mode "$MODE" -f -o "$D.base" >/dev/null 2>&1
    read -r bw bc < <(best_of "$B/smpi_replay" --ideal-barrier "$D.base")
    bsim=$(grep -o '[0-9.]*' "$W/out" | tail -1)
  fi
  printf '%-6s %-5s %-9s %10s %10s %10s %10s %9s %9s %16s %16s' "$P" "$MODE" \
    "$([ "$SHARED" = 1 ] && echo shared || echo dedicated)" "$lw" "$lc" "$sw" "$sc" \
    "$(awk -v a="$sw" -v b="$lw" 'BEGIN { printf "%.1f", a / b }')" \
    "$(awk -v a="$sc" -v b="$lc" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')" "$lsim" "$ssim"
  [ -z "$BASE" ] || extra "$bw" "$bc" "$bsim" "$(($(stat -c %s "$D.base/platform.xml") / 1024))" \
    "$(($(stat -c %s "$D/platform.xml") / 1024))"
  echo
done
