#!/usr/bin/env bash
# bench/apps_overhead.sh - the profiler's overhead on the real applications (apps/): each app at
# its default size on RANKS ranks (default 2), REPEATS pairs (default 7) of an unprofiled and a
# profiled run (--trace, every step, the default bound), in the order off-on, on-off, off-on, ...
# so that neither mode always runs second; per pair the ratio profiled / unprofiled, and the
# median of those ratios (robust to the machine's load drifting between pairs) beside the
# medians of each mode, for the contract's total_s (barrier to barrier), compute_s (the
# elements' work, max over ranks, summed over steps) and the wall time of the whole mpiexec
# (set-up, and the trace's last step written).
# usage: bench/apps_overhead.sh [laplace-mc|nbody ...]   (env: RANKS, REPEATS, BENCH_DIR, and
# BIND=none for mpiexec --bind-to none: by default Open MPI binds each rank to a core, and the
# profiler's node agent and collector, started by the rank, inherit that binding)
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_apps}
RANKS=${RANKS:-2}
REPEATS=${REPEATS:-7}
mkdir -p "$W"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset LBSPROF_BOUND LBSPROF_CODEC LBSPROF_SAMPLE_EVERY LBSPROF_COLLECTOR LBSPROF_METRICS LBSPROF_ON_FULL
MPI=(mpiexec --allow-run-as-root --oversubscribe -n "$RANKS")
[ -z "${BIND:-}" ] || MPI+=(--bind-to "$BIND")
apps=("$@")
[ ${#apps[@]} -gt 0 ] || apps=(laplace-mc nbody)
for app in "${apps[@]}"; do
  : >"$W/$app.runs"
  for r in $(seq "$REPEATS"); do
    order="off on"
    [ $((r % 2)) -eq 0 ] && order="on off"
    for mode in $order; do
      rm -f "$W/$app.lbt"
      extra=()
      [ $mode = on ] && extra=(--trace "$W/$app.lbt")
      t0=$(date +%s.%N)
      "${MPI[@]}" "$B/$app" "${extra[@]}" --json "$W/$app.$mode.json" >/dev/null 2>"$W/$app.err"
      t1=$(date +%s.%N)
      [ $mode = off ] || [ -s "$W/$app.lbt" ] || { echo "no trace from $app: $(head -c 300 "$W/$app.err")"; exit 1; }
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], d['total_s'], d['compute_s'], float(sys.argv[3]) - float(sys.argv[4]), d['args'])" \
        "$W/$app.$mode.json" $mode "$t1" "$t0" >>"$W/$app.runs"
    done
  done
  python3 - "$W/$app.runs" "$app" "$RANKS" "$REPEATS" "${BIND:+, --bind-to $BIND}" <<'PY'
import statistics, sys
rows = [l.split(None, 4) for l in open(sys.argv[1])]
app, ranks, reps = sys.argv[2], sys.argv[3], sys.argv[4]
off = [r for r in rows if r[0] == "off"]
on = [r for r in rows if r[0] == "on"]
print(f"{app} {rows[0][4].strip()}, {ranks} ranks, {reps} pairs{sys.argv[5]}")
print(f"  {'':30} {'unprofiled':>10} {'profiled':>10} {'median of pair ratios':>22}")
for name, k in (("total_s (barrier to barrier)", 1), ("compute_s (elements' work)", 2), ("wall of mpiexec, s", 3)):
    a = statistics.median(float(r[k]) for r in off)
    b = statistics.median(float(r[k]) for r in on)
    q = statistics.median(float(y[k]) / float(x[k]) for x, y in zip(off, on))
    print(f"  {name:30} {a:10.3f} {b:10.3f} {100 * (q - 1):+21.1f}%")
for mode, rs in (("off", off), ("on", on)):
    print(f"  total_s {mode:3}: " + " ".join(f"{float(r[1]):.2f}" for r in rs))
PY
done
