#!/usr/bin/env bash
# bench/denoise_wave.sh - issue 30, item 7's figure: the imbalance a profiled wave trace predicts,
# as profiled and after trace recode --denoise, against the imbalance the unprofiled run measured.
#   1. wave at its default size on 2 ranks, unprofiled, RUNS times (default 3) with --json: each
#      step's compute imbalance (max - mean) / max over the ranks (wave's "imbalance"), averaged;
#   2. the same run profiled (--trace), its own measured imbalance beside;
#   3. the trace replayed with its recorded assignments (--policy recorded) on two equal
#      processors, as profiled and after each rule (on time_ns and on wave's phases H and E): the replay's mean_imbalance is the same
#      (max - mean) / max of the replayed per-step compute, and its compute_time_s the summed
#      slowest processor's compute (the grid's ns_per_work 1: a trace's nanosecond is one).
# Goals (issue 30, items 5 and 7): the imbalance within 2 points of the unprofiled run's, and the
# summed slowest-rank compute within 3% of it.
# Run on a quiet machine. Extra arguments go to wave.
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_denoise_wave}
RUNS=${RUNS:-3}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI=(mpiexec --allow-run-as-root --oversubscribe)
echo "bench/denoise_wave: $(date -u +%FT%TZ), $(nproc) cores, wave $*"
$B/lbsim grid gen --family HO --procs 2 -o "$W/two.ini" -f >/dev/null
for i in $(seq "$RUNS"); do
  "${MPI[@]}" -n 2 $B/wave --quiet --json "$W/plain$i.json" "$@" </dev/null >/dev/null
done
rm -f "$W/w.lbt"
"${MPI[@]}" -n 2 $B/wave --quiet --trace "$W/w.lbt" --json "$W/prof.json" "$@" </dev/null >/dev/null
for rule in none spike spike:5:3 median median:5; do
  f=$W/w.lbt
  if [ "$rule" != none ]; then
    f=$W/w-$rule.lbt
    # the rule on time_ns and on each phase (H, E), which the replay charges phase by phase
    $B/lbsim trace recode "$W/w.lbt" -o "$f" -f --bound lossless --denoise "time_ns=$rule" \
      --denoise "time_ns.H=$rule" --denoise "time_ns.E=$rule" >/dev/null 2>&1
  fi
  $B/lbsim replay "$f" --grid "$W/two.ini" --policy recorded --json >"$W/rec-$rule.json"
done
python3 - "$W" "$RUNS" <<'PY'
import json, statistics, sys
w, runs = sys.argv[1], int(sys.argv[2])
def load(f):
    return json.load(open(f))["wave"]
def mean_imb(d):
    return statistics.fmean(d["imbalance"])
def slowest(d):  # the per-step slowest rank's compute, summed over the steps
    return sum(max(c) for c in d["rank_compute_s"])
plain = [load(f"{w}/plain{i}.json") for i in range(1, runs + 1)]
prof = load(w + "/prof.json")
m, c = statistics.fmean(map(mean_imb, plain)), statistics.fmean(map(slowest, plain))
print(f"unprofiled, measured: mean imbalance {m:.4f}, summed slowest-rank compute {c:.3f} s "
      f"(runs: {', '.join('%.4f/%.3f' % (mean_imb(d), slowest(d)) for d in plain)})")
print(f"profiled, measured:   mean imbalance {mean_imb(prof):.4f}, summed slowest-rank compute "
      f"{slowest(prof):.3f} s")
print(f"{'trace':<12} {'imbalance':>9} {'points off':>10} {'slowest-rank compute':>21} {'off':>7}")
for rule in ("none", "spike", "spike:5:3", "median", "median:5"):
    r = json.load(open(f"{w}/rec-{rule}.json"))
    p, t = r["mean_imbalance"], r["compute_time_s"]
    print(f"{rule:<12} {p:9.4f} {100 * (p - m):+10.2f} {t:19.3f} s {100 * (t / c - 1):+6.1f}%")
PY
uptime
