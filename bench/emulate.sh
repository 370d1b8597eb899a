#!/usr/bin/env bash
# bench/emulate.sh - how close `lbsim validate --emulate` comes to a real slower processor
# (issue 31, item 3). Needs root (or a delegated CPU controller) and 2 CPUs.
#   1. One rank: wave profiled on 1 rank, then run for real RUNS times on a grid of speed 1 (no
#      cap) and, emulated, on one of speed 0.5 and 0.25. A rank at share s should take 1/s times
#      as long (wave on one rank computes, nothing to wait for): the ratio measured/expected.
#   2. Two ranks, rank 1 at half speed: wave profiled on 2 ranks, validated with --emulate on
#      the probed grid with processor 1 at half speed (bench/half_grid.py), policies none and
#      fixed:20, then the same with equal part sizes (--set sim.part_sizes=equal: an app that
#      does not know the speeds): predicted against measured, and the gain of speed-aware parts.
# Extra arguments go to wave (default: its default size, 100 steps). Run on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_emulate}
RUNS=${RUNS:-3}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI="mpiexec --allow-run-as-root --oversubscribe"
ARGS=("$@")
[ ${#ARGS[@]} -gt 0 ] || ARGS=(--steps 100)
echo "bench/emulate: $(date -u +%FT%TZ), $(nproc) cores, wave ${ARGS[*]}, $RUNS real runs each"
grid() { # grid FILE SPEED... : one single-processor cluster per speed
  { echo "[grid]"; echo "ns_per_work = 1"; local i=0
    for s in "${@:2}"; do
      printf '[nodetype t%d]\nspeed = %s\ncores = 1\n[cluster c%d]\nnodes = 1\nnodetype = t%d\n' $i "$s" $i $i
      i=$((i + 1))
    done; } >"$1"
}
grid "$W/one_1.ini" 1
grid "$W/one_0.5.ini" 0.5
grid "$W/one_0.25.ini" 0.25
[ -s "$W/machine.ini" ] || $MPI -n 2 $B/lbsim grid probe -o "$W/machine.ini" -f </dev/null >/dev/null
python3 bench/half_grid.py "$W/machine.ini" "$W/two_half.ini" 0.5
[ -s "$W/w1.lbt" ] || $MPI -n 1 $B/wave --quiet --trace "$W/w1.lbt" "${ARGS[@]}" </dev/null >/dev/null
[ -s "$W/w2.lbt" ] || $MPI -n 2 $B/wave --quiet --trace "$W/w2.lbt" "${ARGS[@]}" </dev/null >/dev/null
$B/lbsim validate "$W/w1.lbt" --grid "$W/one_1.ini" --policies none --runs "$RUNS" --json >"$W/one_1.json"
for s in 0.5 0.25; do
  $B/lbsim validate "$W/w1.lbt" --grid "$W/one_$s.ini" --policies none --runs "$RUNS" --emulate \
    --json >"$W/one_$s.json"
done
$B/lbsim validate "$W/w2.lbt" --grid "$W/two_half.ini" --policies none,fixed:20 --runs "$RUNS" --emulate \
  --json >"$W/two_half.json"
$B/lbsim validate "$W/w2.lbt" --grid "$W/two_half.ini" --policies none,fixed:20 --runs "$RUNS" --emulate \
  --set sim.part_sizes=equal --json >"$W/two_half_equal.json"
python3 - "$W" <<'PY'
import json, os, sys
W = sys.argv[1]
ld = lambda n: json.load(open(os.path.join(W, n)))
full = ld("one_1.json")["policies"][0]
print("One rank (wave on 1 rank; full speed: median %.3f s, %.3f..%.3f):" % (full["measured_median_s"],
      full["measured_min_s"], full["measured_max_s"]))
print("| share | expected s (full / share) | measured s: median (min..max) | measured / expected | throttled s |")
print("|---|---|---|---|---|")
for s in ("0.5", "0.25"):
    d = ld("one_%s.json" % s)
    p, e = d["policies"][0], d["emulation"]["ranks"][0]
    exp = full["measured_median_s"] / float(s)
    print("| %s | %.3f | %.3f (%.3f..%.3f) | %.3f | %.2f |" % (s, exp, p["measured_median_s"], p["measured_min_s"],
          p["measured_max_s"], p["measured_median_s"] / exp, e["throttled_s"]))
print("\nTwo ranks, rank 1 at half speed (probed grid, processor 1 at 0.5: bench/half_grid.py):")
print("| part sizes | policy | repartitions | predicted s | measured s: median (min..max) | error |")
print("|---|---|---|---|---|---|")
runs = {}
for f in ("two_half.json", "two_half_equal.json"):
    d = ld(f)
    for p in d["policies"]:
        runs[(d["part_sizes_rule"], p["policy"])] = p
        print("| %s (%s) | %s | %d | %.3f | %.3f (%.3f..%.3f) | %+.1f%% |" % (d["part_sizes_rule"],
              ",".join("%.3g" % x for x in d["part_sizes"]), p["policy"], p["repartitions"], p["predicted_s"],
              p["measured_median_s"], p["measured_min_s"], p["measured_max_s"], 100 * p["error"]))
    for q in d["pairs"]:
        print("pair %s -> %s (%s): predicted gain %+.1f%%, measured %+.1f%% (%+.1f..%+.1f), %s" % (
            q["a"], q["b"], d["part_sizes_rule"], 100 * q["predicted_gain"], 100 * q["measured_gain"],
            100 * q["measured_gain_min"], 100 * q["measured_gain_max"], q["verdict"]))
    print("throttled: " + ", ".join("rank %d %.2f s" % (r["rank"], r["throttled_s"]) for r in d["emulation"]["ranks"]))
for pol in ("none", "fixed:20"):
    e, s = runs[("equal", pol)], runs[("speed", pol)]
    print("speed-aware parts with %s: predicted gain %+.1f%%, measured %+.1f%% (medians)" % (pol,
          100 * (1 - s["predicted_s"] / e["predicted_s"]), 100 * (1 - s["measured_median_s"] / e["measured_median_s"])))
PY
