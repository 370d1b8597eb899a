#!/usr/bin/env bash
# bench/fairnet.sh - the fair network model at scale (issue 34; bench/RESULTS.md, "Fair sharing
# at scale"): bench_fairnet on a 64x64x32 bump trace (131,072 elements, 16 steps), des, one
# shared cluster of 64, 256 and 1024 processors, without NICs (10 Gbit/s) and with 10 Gbit/s
# NICs on a 100 Gbit/s network: fifo, fair with the reference solver, fair with the fast paths,
# per step, in one run. BENCH_PROCS overrides the sizes, BENCH_REPS the runs, BENCH_GRIDS the
# grids ("cluster", "nics").
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_fairnet}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -f "$W/bump16.lbt" ] ||
  $B/lbsim trace gen --kind bump --mesh 64x64x32 --steps 16 -o "$W/bump16.lbt" 2>/dev/null
# shellcheck disable=SC2086
mpiexec --allow-run-as-root --oversubscribe -n 1 $B/bench_fairnet "$W/bump16.lbt" \
  ${BENCH_PROCS:-64 256 1024} </dev/null
