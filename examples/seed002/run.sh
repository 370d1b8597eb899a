#!/usr/bin/env bash
# The seed's experiment (seed 002, sections 4.2-4.3, Figures 9 and 10): the MRTD bump case
# (30x20x20 cells, 300 steps) partitioned with Zoltan RCB, repartitioned every 20 steps, every
# 50 steps, by the adaptive heuristic (threshold 0.15, intervals 5 to 20) and by the optimal
# schedule. Prints the comparison; the per-step series for the figures go to OUT/series/.
# usage: examples/seed002/run.sh [extra 'lbsim policy compare' options, e.g. --json]
set -euo pipefail
cd "$(dirname "$0")/../.."
L=${LBSIM:-build/bin/lbsim}
OUT=${OUT:-demo-out/seed002}
[ -x "$L" ] || make build >/dev/null
mkdir -p "$OUT"
[ -f "$OUT/bump.lbt" ] || $L trace gen --kind bump --mesh 30x20x20 --steps 300 -o "$OUT/bump.lbt"
$L policy compare "$OUT/bump.lbt" --grid examples/seed002/grid.ini --partitioner zoltan:rcb \
  --policies fixed:20,fixed:50,adaptive:0.15:5:20,optimal --csv "$OUT/series" "$@"
