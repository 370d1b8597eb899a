#!/usr/bin/env bash
# make calibrate-demo: record a real wave trace, measure apps/wave's cell update on this machine's
# CPU and OpenCL device over the work that trace asks for, check the curves, and replay the trace
# on a node made of those devices
# (examples/grids/calibrated-node.ini), next to the same node with linear processors.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
L=$BUILD/bin/lbsim
OUT=$BUILD/calibrate-demo
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$OUT"
rm -f "$OUT/calib.db" "$OUT/wave.lbt"
step() { echo; echo "== $1"; shift; echo "\$ $*"; "$@"; }
step "A real trace: apps/wave on 2 ranks, profiled" \
  mpiexec --allow-run-as-root --oversubscribe -n 2 "$BUILD/bin/wave" --trace "$OUT/wave.lbt" --steps 100 --quiet
step "Calibrate apps/wave's cell update on one CPU thread and on OpenCL (IA heuristic, 10% or 1 ms), over the work the trace's weight asks for (1 cell per unit)" \
  "$L" calibrate run --kernel wave --impl cpu,opencl --accuracy 10 --min-abs 1e-3 --max-samples 600 \
  --range-from "$OUT/wave.lbt" --trace-metric weight --metric-per-work 1 -o "$OUT/calib.db" || true
step "Check the curves: random invocations against each complete IPG" "$L" calibrate verify "$OUT/calib.db" -n 100
step "The curves" "$L" calibrate show "$OUT/calib.db"
step "The node's plan (RACECAR): how its 2 threads and the device share any work" \
  "$L" calibrate plan --kernel wave --node threads=2 --allow-partial -o "$OUT/calib.db" || true
step "The plan run for real against its prediction" \
  "$L" calibrate run-plan "$OUT/calib.db" --kernel wave --work 2000,20000 || true
cp examples/grids/calibrated-node.ini "$OUT/"
step "The calibrated node" "$L" grid info "$OUT/calibrated-node.ini"
step "Replay on the calibrated node (weights: cells)" \
  "$L" replay "$OUT/wave.lbt" --grid "$OUT/calibrated-node.ini" --metric weight --policy fixed:20 --partitioner zoltan:rcb
