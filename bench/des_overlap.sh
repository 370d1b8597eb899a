#!/usr/bin/env bash
# bench/des_overlap.sh - des on one shared network, the two ways steps share it ([sim]
# des_overlap: ordered, each step's halo after the earlier steps'; shared, one simulation across
# steps, as SMPI shares), side by side in one run, and against SimGrid's SMPI on the same export
# (bench/RESULTS.md, "Steps that share the network"). For each P: a grid of one shared cluster
# of P processors (latency 5 us, 10 Gbit/s), a bump trace, policy none, zoltan:rcb; `lbsim replay`
# with sharing = fifo, then fair ordered and fair shared (no mpiexec, best of BENCH_REPS by wall
# time: wall and CPU seconds, whole runs; the simulated times), then `smpi_replay --ideal-barrier` of `lbsim export simgrid` (SimGrid's
# simulated time; skipped above BENCH_SMPI_MAX processors, default 256).
#
#   bash bench/des_overlap.sh                      # P = 64 256 1024
#   BENCH_PROCS="32 64" BENCH_MESH=32x32x16 bash bench/des_overlap.sh
#
# BENCH_MESH (64x64x32), BENCH_STEPS (10), BENCH_REPS (3), BENCH_POLICY (none) change the work;
# BENCH_NIC_GBPS (none) gives every node a NIC each way of that bandwidth, BENCH_NET_GBPS (10)
# the network's.
set -euo pipefail
cd "$(dirname "$0")/.."
B=$PWD/build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_des_overlap}${BENCH_NIC_GBPS:+_nic}
MESH=${BENCH_MESH:-64x64x32} STEPS=${BENCH_STEPS:-10} REPS=${BENCH_REPS:-3}
POLICY=${BENCH_POLICY:-none} SMAX=${BENCH_SMPI_MAX:-256}
NIC=${BENCH_NIC_GBPS:-} NET=${BENCH_NET_GBPS:-10}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T=$W/bump_${MESH}_$STEPS.lbt
[ -f "$T" ] || "$B/lbsim" trace gen --kind bump --mesh "$MESH" --steps "$STEPS" -o "$T" 2>/dev/null

. bench/lib.sh # best_of
sim_s() { /usr/bin/python3 -c 'import json,sys; print("%.9f" % json.load(open(sys.argv[1]))["total_time_s"])' "$1"; }

printf '%-6s %9s %9s %9s %9s %9s %9s %7s %7s %14s %14s %14s %10s %10s\n' P "fifo s" "fifo cpu" \
  "ord s" "ord cpu" "shr s" "shr cpu" "shr/ord" "shr/fifo" "ordered sim s" "shared sim s" \
  "SMPI sim s" "ord/SMPI" "shr/SMPI"
for P in ${BENCH_PROCS:-64 256 1024}; do
  G=$W/grid_$P.ini
  {
    printf '[grid]\nname = one%d\nns_per_work = 1\n' "$P"
    [ -n "$NIC" ] && printf '[nodetype n]\nnic_gbps = %s\n' "$NIC"
    printf '[cluster main]\nnodes = %d\nlatency_us = 5\nbandwidth_gbps = %s\nshared = true\n' "$P" "$NET"
    [ -n "$NIC" ] && printf 'nodetype = n\n'
  } >"$G"
  run=("$B/lbsim" replay "$T" --grid "$G" --mode des --policy "$POLICY" --json)
  read -r fw fc < <(best_of "${run[@]}" --set grid.sharing=fifo)
  read -r ow oc < <(best_of "${run[@]}" --set sim.des_overlap=ordered)
  osim=$(sim_s "$W/out")
  read -r sw sc < <(best_of "${run[@]}" --set sim.des_overlap=shared)
  ssim=$(sim_s "$W/out")
  smpi=- od=- sd=-
  if [ "$P" -le "$SMAX" ] && [ -x "$B/smpi_replay" ]; then
    D=$W/smpi_$P
    "$B/lbsim" export simgrid "$T" --grid "$G" --mode des --policy "$POLICY" \
      --set sim.des_overlap=shared -f -o "$D" >/dev/null 2>&1
    smpi=$("$B/smpi_replay" --ideal-barrier "$D" 2>/dev/null | grep -o '[0-9.]*' | tail -1)
    od=$(awk -v a="$osim" -v b="$smpi" 'BEGIN { printf "%+.3f%%", 100 * (a - b) / b }')
    sd=$(awk -v a="$ssim" -v b="$smpi" 'BEGIN { printf "%+.0f ns", 1e9 * (a - b) }')
  fi
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
  printf '%-6s %9s %9s %9s %9s %9s %9s %7s %7s %14s %14s %14s %10s %10s\n' "$P" "$fw" "$fc" "$ow" \
    "$oc" "$sw" "$sc" "$(ratio "$sc" "$oc")" "$(ratio "$sc" "$fc")" "$osim" "$ssim" "$smpi" "$od" "$sd"
done
