#!/usr/bin/env bash
# bench/cases.sh - configurations of wave under which schedules differ for real (issue 31,
# item 1): for each case (CASES, ';'-separated lists of wave arguments), wave profiled on 2
# ranks, then `lbsim validate` on the probed grid with POLICIES (default none,fixed:2,fixed:20,
# optimal), RUNS real runs each (default 3, interleaved). Prints each policy's measured gain
# over the first with its per-round range and the predicted gain, and validate's verdict.
# Run on a quiet machine (nothing else busy).
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_cases}
RUNS=${RUNS:-3}
POLICIES=${POLICIES:-none,fixed:2,fixed:20,optimal}
CASES=${CASES:-"--steps 300;--pulse 20 --threshold 0.05;--mesh 40x16x16 --pulse 12 --threshold 0.05"}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI="mpiexec --allow-run-as-root --oversubscribe"
echo "bench/cases: $(date -u +%FT%TZ), $(nproc) cores, $RUNS real runs per policy, policies $POLICIES"
[ -s "$W/machine.ini" ] || $MPI -n 2 $B/lbsim grid probe -o "$W/machine.ini" -f </dev/null >/dev/null
IFS=';' read -ra cases <<<"$CASES"
k=0
for c in "${cases[@]}"; do
  k=$((k + 1))
  read -ra args <<<"$c"
  rm -f "$W/c$k.lbt"
  $MPI -n 2 $B/wave --quiet --trace "$W/c$k.lbt" "${args[@]}" </dev/null >/dev/null
  $B/lbsim validate "$W/c$k.lbt" --grid "$W/machine.ini" --policies "$POLICIES" --runs "$RUNS" \
    --mpiexec "$MPI" --json </dev/null >"$W/c$k.json"
  python3 - "$W/c$k.json" "$c" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("\nwave %s (%s)" % (sys.argv[2], d["args"]))
print("| policy | repartitions | predicted s | measured s: median (min..max) | predicted gain over %s | measured gain (rounds' range) | verdict |"
      % d["policies"][0]["policy"])
print("|---|---|---|---|---|---|---|")
base = d["policies"][0]["policy"]
pairs = {(q["a"], q["b"]): q for q in d["pairs"]}
for p in d["policies"]:
    q = pairs.get((base, p["policy"]))
    g = ("%+.1f%% | %+.1f%% (%+.1f..%+.1f) | %s" % (100 * q["predicted_gain"], 100 * q["measured_gain"],
         100 * q["measured_gain_min"], 100 * q["measured_gain_max"], q["verdict"])) if q else "- | - | -"
    print("| %s | %d | %.3f | %.3f (%.3f..%.3f) | %s |" % (p["policy"], p["repartitions"], p["predicted_s"],
          p["measured_median_s"], p["measured_min_s"], p["measured_max_s"], g))
s = d["pairs_summary"]
print("reality separates %d of %d pairs; lbsim orders %d of them right; largest gain error %.1f points"
      % (s["separated"], s["pairs"], s["ordered_right"], s["max_gain_error_points"]))
PY
done
