#!/usr/bin/env bash
# bench/validate.sh - predictions against reality on this machine (issue 12's figures):
#   1. lbsim grid probe on 2 ranks (this machine as a grid);
#   2. each app (wave, nbody; APPS="wave nbody") profiled on 2 ranks at its default size;
#   3. lbsim validate: none, fixed:20, adaptive:0.15:5:20 and optimal replayed on the probed
#      grid, each schedule run for real RUNS times (default 3), interleaved;
#   4. seed 002's question on the wave trace: adaptive against fixed:20 (repartitions, totals).
# Prints each table and the JSON lines; run on a quiet machine (nothing else busy).
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_validate}
RUNS=${RUNS:-3}
APPS=${APPS:-wave nbody}
# wave in the case where the schedule matters (apps/README.md; bench/cases.sh); WAVE_ARGS= for
# its default size, where reality ties the policies
WAVE_ARGS=${WAVE_ARGS---mesh 30x12x12 --pulse 40 --threshold 0.02}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI="mpiexec --allow-run-as-root --oversubscribe"
echo "bench/validate: $(date -u +%FT%TZ), $(nproc) cores, $RUNS real runs per policy"
$MPI -n 2 $B/lbsim grid probe -o "$W/machine.ini" -f
for app in $APPS; do
  rm -f "$W/$app.lbt"
  echo; echo "== $app: profiled on 2 ranks"
  args=()
  [ "$app" = wave ] && read -ra args <<<"$WAVE_ARGS"
  $MPI -n 2 $B/$app --trace "$W/$app.lbt" --json "$W/$app.profiled.json" "${args[@]}" >"$W/$app.profiled.log" 2>&1
  tail -n 3 "$W/$app.profiled.log"
  $B/lbsim validate "$W/$app.lbt" --grid "$W/machine.ini" --policies none,fixed:20,adaptive:0.15:5:20,optimal \
    --runs "$RUNS" --mpiexec "$MPI" | tee "$W/$app.validate.txt"
  $B/lbsim validate "$W/$app.lbt" --grid "$W/machine.ini" --policies fixed:20,adaptive:0.15:5:20 --runs "$RUNS" \
    --mpiexec "$MPI" --json >"$W/$app.seed002.json"
  python3 - "$W/$app.seed002.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = {x["policy"]: x for x in d["policies"]}
f, a = p["fixed:20"], p["adaptive:0.15:5:20"]
print("seed 002 on %s: adaptive repartitions %d times, fixed:20 %d (ratio %.2f); measured median %.3f s against %.3f s "
      "(adaptive/fixed %.3f), predicted %.3f s against %.3f s (%.3f)" % (d["app"], a["repartitions"], f["repartitions"],
      a["repartitions"] / max(f["repartitions"], 1), a["measured_median_s"], f["measured_median_s"],
      a["measured_median_s"] / f["measured_median_s"], a["predicted_s"], f["predicted_s"], a["predicted_s"] / f["predicted_s"]))
PY
done
