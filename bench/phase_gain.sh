#!/usr/bin/env bash
# bench/phase_gain.sh - the predicted gain of repartitioning against the measured one, with the
# step charged per phase and as one sum (issue 30, item 6: "with phases, the optimal schedule's
# predicted gain on a dynamic wave case within 2 points of its measured gain").
#   1. lbsim grid probe on 2 ranks (this machine as a grid), unless $BENCH_DIR/machine.ini exists;
#   2. wave on 2 ranks, profiled (--trace; extra arguments go to wave), unless w.lbt exists, and
#      the same trace denoised (trace recode --denoise spike on time_ns and both phases);
#   3. for each trace: lbsim validate with POLICIES (default none,fixed:20,optimal), RUNS real
#      runs each (default 5, interleaved), phases charged per phase ([sim] phases = yes, the
#      default); then each policy's schedule replayed with --set sim.phases=no (one sum per step);
#   4. a table: each policy's predicted totals (per phase, one sum), the measured median and
#      range, and the gain over the first policy, predicted both ways against measured, with
#      the error in points.
# Run on a quiet machine (nothing else busy).
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_phase_gain}
RUNS=${RUNS:-5}
POLICIES=${POLICIES:-none,fixed:20,optimal}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI="mpiexec --allow-run-as-root --oversubscribe"
echo "bench/phase_gain: $(date -u +%FT%TZ), $(nproc) cores, wave $*, $RUNS real runs per policy"
[ -s "$W/machine.ini" ] || $MPI -n 2 $B/lbsim grid probe -o "$W/machine.ini" -f </dev/null >/dev/null
[ -s "$W/w.lbt" ] || $MPI -n 2 $B/wave --quiet --trace "$W/w.lbt" "$@" </dev/null >/dev/null
[ -s "$W/wc.lbt" ] || $B/lbsim trace recode "$W/w.lbt" -o "$W/wc.lbt" --denoise time_ns=spike \
  --denoise time_ns.H=spike --denoise time_ns.E=spike
for trace in w wc; do
  $B/lbsim validate "$W/$trace.lbt" --grid "$W/machine.ini" --policies "$POLICIES" --runs "$RUNS" \
    --mpiexec "$MPI" --json </dev/null >"$W/v_$trace.json"
  # each schedule replayed with one sum per step: the prediction without phases
  python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["policies"]:
    s = p["schedule"]
    print(p["policy"], "steps:" + ",".join(map(str, s)) if s else "none")' "$W/v_$trace.json" |
    while read -r pol spec; do
      $B/lbsim replay "$W/$trace.lbt" --grid "$W/machine.ini" --policy "$spec" --set sim.phases=no \
        --json </dev/null | tail -n 1 >"$W/np_${trace}_${pol//[:,]/_}.json"
    done
done
python3 - "$W" <<'PY'
import json, os, sys
W = sys.argv[1]
print("| trace | policy | repartitions | predicted s: per phase | one sum | measured s: median (range) "
      "| gain over first: per phase | one sum | measured (rounds' range) | error, points: per phase | one sum |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for t, name in (("w", "as profiled"), ("wc", "denoised")):
    d = json.load(open(os.path.join(W, "v_%s.json" % t)))
    P = d["policies"]
    nop = [json.load(open(os.path.join(W, "np_%s_%s.json" % (t, p["policy"].replace(":", "_").replace(",", "_")))))
           ["total_time_s"] for p in P]
    b = P[0]
    for i, p in enumerate(P):
        gp = 1 - p["predicted_s"] / b["predicted_s"]
        gn = 1 - nop[i] / nop[0]
        gm = 1 - p["measured_median_s"] / b["measured_median_s"]
        r = [1 - x / y for x, y in zip(p["measured_s"], b["measured_s"])]  # paired by round
        print("| %s | %s | %d | %.3f | %.3f | %.3f (%.3f..%.3f) | %+.1f%% | %+.1f%% | %+.1f%% (%+.1f..%+.1f) | %+.1f | %+.1f |"
              % (name, p["policy"], p["repartitions"], p["predicted_s"], nop[i], p["measured_median_s"],
                 p["measured_min_s"], p["measured_max_s"], 100 * gp, 100 * gn, 100 * gm, 100 * min(r), 100 * max(r),
                 100 * (gp - gm), 100 * (gn - gm)))
PY
