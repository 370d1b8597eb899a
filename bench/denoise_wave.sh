#!/usr/bin/env bash
# bench/denoise_wave.sh - issue 30, item 7's figure: the imbalance a profiled wave trace predicts,
# as profiled and after trace recode --denoise, against the imbalance the unprofiled run measured.
#   1. wave at its default size on 2 ranks, unprofiled, RUNS times (default 3) with --json: each
#      step's compute imbalance (max - mean) / max over the ranks (wave's "imbalance"), averaged;
#   2. the same run profiled (--trace), its own measured imbalance beside;
#   3. the trace replayed with its recorded assignments (--policy recorded) on two equal
#      processors, as profiled and after each rule: the replay's mean_imbalance is the same
#      (max - mean) / max of the replayed per-step compute.
# Goal (issue 30): the denoised prediction within 2 points of the unprofiled measurement.
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
    $B/lbsim trace recode "$W/w.lbt" -o "$f" -f --bound lossless --denoise "$rule" >/dev/null 2>&1
  fi
  $B/lbsim replay "$f" --grid "$W/two.ini" --policy recorded --json >"$W/rec-$rule.json"
done
python3 - "$W" "$RUNS" <<'PY'
import json, statistics, sys
w, runs = sys.argv[1], int(sys.argv[2])
def mean_imb(f):
    return statistics.fmean(json.load(open(f))["wave"]["imbalance"])
plain = [mean_imb(f"{w}/plain{i}.json") for i in range(1, runs + 1)]
m = statistics.fmean(plain)
print(f"measured mean imbalance, unprofiled: {m:.4f} (runs: {', '.join('%.4f' % x for x in plain)})")
print(f"measured mean imbalance, profiled:   {mean_imb(w + '/prof.json'):.4f}")
print(f"{'trace':<12} {'predicted':>9} {'points off':>10}")
for rule in ("none", "spike", "spike:5:3", "median", "median:5"):
    p = json.load(open(f"{w}/rec-{rule}.json"))["mean_imbalance"]
    print(f"{rule:<12} {p:9.4f} {100 * (p - m):+10.2f}")
PY
uptime
