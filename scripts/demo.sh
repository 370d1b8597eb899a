#!/usr/bin/env bash
# make demo: the trace store end to end on generated data (the seed's MRTD bump case), then a
# real MPI application profiled, replayed on this machine's probed grid and validated.
set -euo pipefail
cd "$(dirname "$0")/.."
L=build/bin/lbsim
OUT=demo-out
rm -rf "$OUT" && mkdir -p "$OUT"
step() { printf '\n== %s\n$ %s\n' "$1" "${*:2}"; "${@:2}"; }

step "Generate the seed's MRTD case: a Gaussian pulse crossing a 30x20x20 mesh, 300 steps" \
  $L trace gen --kind bump --mesh 30x20x20 --steps 300 -o "$OUT/bump.lbt"
step "What the trace holds, how small it is, and the error the writer measured" \
  $L trace info "$OUT/bump.lbt"
step "Verify every checksum and re-measure every value against the regenerated source" \
  $L trace check "$OUT/bump.lbt"
step "Export step 150 (the pulse in mid-mesh) as CSV" \
  $L trace export "$OUT/bump.lbt" --csv "$OUT/step150" --step 150
echo "   $OUT/step150/steps.csv:"; head -4 "$OUT/step150/steps.csv" | sed 's/^/     /'
echo "   cells per weight level at step 150:"
awk -F, 'NR > 1 { n[$5]++ } END { for (w in n) printf "     weight %s: %d cells\n", w, n[w] }' \
  "$OUT/step150/steps.csv" | sort
step "A noisy workload as a profiler measures it (jitter, timer ticks, preempted elements), Hilbert-ordered, within 1%" \
  $L trace gen --kind hotspot --mesh 64x64x8 --steps 40 --order hilbert --noise default --bound rel:0.01 -o "$OUT/hotspot.lbt"
step "Its summary as JSON (for scripts)" $L trace info "$OUT/hotspot.lbt" --json
step "Round trip through the one-file-per-step interchange format" \
  $L trace export "$OUT/bump.lbt" --steps-dir "$OUT/steps" --steps 0:10
$L trace import --steps-dir "$OUT/steps" --bound lossless -o "$OUT/reimported.lbt"
$L trace info "$OUT/reimported.lbt" | head -3
step "Import a Chaco graph with coordinates (Zoltan/METIS test-mesh format)" \
  $L trace import --chaco examples/graphs/grid6x6.graph --coords examples/graphs/grid6x6.coords -o "$OUT/grid.lbt"
$L trace info "$OUT/grid.lbt" | sed -n 4p
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
step "A grid: two sites joined by a slow shared link" $L grid info examples/grids/two_sites.ini
step "Replay the bump on 16 equal processors, RCB every 20 steps (the seed's fixed interval)" \
  $L replay "$OUT/bump.lbt" --grid examples/grids/homogeneous16.ini --partitioner zoltan:rcb --policy fixed:20 \
  --results "$OUT/results.db"
step "The same on the two-site grid, discrete-event mode, hypergraph partitioner, on 2 MPI ranks" \
  mpiexec --allow-run-as-root --oversubscribe -n 2 $L replay "$OUT/bump.lbt" --grid examples/grids/two_sites.ini \
  --partitioner zoltan:phg --policy fixed:20 --mode des --results "$OUT/results.db"
echo "   imbalance per step of the first run (results store, table steps):"
sqlite3 -column "$OUT/results.db" "SELECT step, round(imbalance, 3) AS imbalance, repartitioned FROM steps WHERE run = 1 AND step % 40 = 19" | sed 's/^/     /'
step "Seed 003's N-body workload: a Barnes-Hut integration of a Plummer sphere (4096 bodies)" \
  $L trace gen --kind nbody --bodies 4096 --steps 2 -o "$OUT/nbody.lbt" --force
$L grid gen --family UP --procs 16 --clusters 4 --slowdown 10 -o "$OUT/up.ini" --force 2>/dev/null
step "MinEX against METIS on an UP grid (faster processors have faster networks): projected run time" \
  $L partition "$OUT/nbody.lbt" --grid "$OUT/up.ini" --partitioner minex,metis,zoltan:rcb --set grid.ns_per_work=20
rm -f "$OUT/heat.lbt"
step "The profiler: a small MPI heat code on 2 ranks, every element timed, node agent and collector (default bound rel:0.005)" \
  mpiexec --allow-run-as-root --oversubscribe -n 2 build/bin/heat "$OUT/heat.lbt" 96 40
step "What was measured: the stored costs keep their signs and sums; preempted elements show as outliers" \
  $L trace info "$OUT/heat.lbt"
step "Replay the profiled run on 16 processors, RCB every 10 steps" \
  $L replay "$OUT/heat.lbt" --grid examples/grids/homogeneous16.ini --partitioner zoltan:rcb --policy fixed:10
step "Profile losslessly, decide the compaction later: a committed lossless profile of a real run, recoded" \
  $L trace recode tests/data/heat_2ranks.lbt -o "$OUT/heat_recoded.lbt" -f
$L trace info "$OUT/heat_recoded.lbt" | sed -n '8,11p'
# Reality: a real MPI application, profiled, replayed on this machine's probed grid, and the
# schedules chosen in simulation run for real (apps/wave: the seed's MRTD case)
rm -f "$OUT/wave.lbt" "$OUT/machine.ini"
step "A real MPI code: apps/wave (MRTD, Yee grid, the load travels with the wave front) on 2 ranks, profiled, in a case where the schedule matters (apps/README.md)" \
  mpiexec --allow-run-as-root --oversubscribe -n 2 build/bin/wave --mesh 30x12x12 --pulse 40 --threshold 0.02 \
  --trace "$OUT/wave.lbt" --quiet
step "This machine as a grid: MPI ping-pong, barrier, partitioner cost (lbsim grid probe)" \
  mpiexec --allow-run-as-root --oversubscribe -n 2 $L grid probe -o "$OUT/machine.ini"
step "Which repartitioning schedule? fixed:20, seed 002's adaptive heuristic and the optimum, in simulation (Zoltan given the cells' weights, as wave gives them)" \
  $L policy compare "$OUT/wave.lbt" --grid "$OUT/machine.ini" --policies none,fixed:20,adaptive:0.15:5:20,optimal \
  --set sim.partition_metric=weight
step "The chosen schedules run for real, twice each: predicted against measured gains" \
  $L validate "$OUT/wave.lbt" --grid "$OUT/machine.ini" --policies none,fixed:20,optimal --runs 2 \
  --mpiexec "mpiexec --allow-run-as-root --oversubscribe" --results "$OUT/validate.db"
# What-if studies: every combination of grids, partitioners and policies on the bump trace,
# farmed over 2 MPI ranks, one results store with provenance, then the report and ParaView files
cp examples/whatif/study.ini "$OUT/study.ini"
step "A what-if study (examples/whatif/study.ini): 3 grids x 3 partitioners x 3 policies on the bump, 2 MPI ranks" \
  mpiexec --allow-run-as-root --oversubscribe -n 2 $L sweep "$OUT/study.ini" --results "$OUT/whatif.db" --csv "$OUT/whatif-csv"
step "What the store holds, with its provenance" $L results "$OUT/whatif.db"
step "The study as one self-contained HTML page (Vega inlined)" \
  $L report "$OUT/whatif.db" -o "$OUT/whatif.html" -f
step "Per-element cost, owner and moves every 50 steps, for ParaView" \
  $L export vtk "$OUT/bump.lbt" --grid examples/grids/homogeneous16.ini --policy fixed:20 --every 50 -o "$OUT/vtk" -f
printf '\nAll demo outputs are in %s/.\n' "$OUT"
