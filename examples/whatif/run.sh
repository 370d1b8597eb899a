#!/usr/bin/env bash
# The ready what-if study: 3 grids x 3 partitioners x 3 policies on seed 002's bump trace
# (study.ini), farmed over R MPI ranks, then its report.
# usage: examples/whatif/run.sh [OUTDIR [RANKS]]   (default whatif-out, 2)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
L=${LBSIM:-$HERE/../../build/bin/lbsim}
OUT=${1:-whatif-out}
R=${2:-2}
mkdir -p "$OUT"
cp "$HERE/study.ini" "$OUT/study.ini"
[ -f "$OUT/bump.lbt" ] || "$L" trace gen --kind bump --steps 120 -o "$OUT/bump.lbt"
cd "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpiexec --allow-run-as-root --oversubscribe -n "$R" "$L" sweep study.ini   # resumes if stopped
"$L" results whatif.db --study "$(sed -n 2p whatif-csv/tidy.csv | cut -d, -f1)" | sed -n 1,12p   # not head: lbsim would die of SIGPIPE
"$L" report whatif.db -o whatif.html -f
echo "study in $OUT: whatif.db, whatif-csv/tidy.csv, whatif.html"
