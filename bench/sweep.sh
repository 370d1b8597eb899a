#!/usr/bin/env bash
# lbsim sweep: the 3 x 3 x 3 study of examples/whatif/study.ini on seed 002's bump trace, on
# 1 and on 2 MPI ranks in one run (fresh stores), and the speed-up; the tidy CSVs must agree.
# usage: bench/sweep.sh [STEPS]   (the bump trace's steps, default 120; mesh 30x20x20)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
L=${LBSIM:-$SRC/build/bin/lbsim}
STEPS=${1:-120}
W=$(mktemp -d /tmp/lbs_bench_sweep_XXXXXX)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 LBSIM_NO_PROGRESS=1
"$L" trace gen --kind bump --steps "$STEPS" -o "$W/bump.lbt" 2>/dev/null
cp "$SRC/examples/whatif/study.ini" "$W/study.ini"
cd "$W"
run() { # RANKS -> seconds of the whole command (MPI start-up included)
  rm -f whatif.db whatif.csv
  local t0 t1
  t0=$(date +%s.%N)
  mpiexec --allow-run-as-root --oversubscribe -n "$1" "$L" sweep study.ini >/dev/null 2>&1
  t1=$(date +%s.%N)
  cp whatif.csv "np$1.csv"
  awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}
t1=$(run 1)
t2=$(run 2)
cmp -s np1.csv np2.csv || { echo "bench/sweep.sh: 1 and 2 ranks disagree" >&2; exit 1; }
printf "sweep 27 tasks, bump 30x20x20 x %s steps: 1 rank %.2f s, 2 ranks %.2f s, speed-up %.2fx (nproc %s)\n" \
  "$STEPS" "$t1" "$t2" "$(awk -v a="$t1" -v b="$t2" 'BEGIN { print a / b }')" "$(nproc)"
