#!/usr/bin/env bash
# bench/multinode.sh - the cost of crossing nodes, on nodes made on this machine by
# scripts/nodes.sh (issue 33's figures). Needs root. ROUNDS rounds (default 3), the
# configurations interleaved within each round:
# - a sweep of 16 replay tasks: 1 node x 2 ranks (plain mpiexec) against 2 nodes x 2 ranks and
#   2 nodes x 1 rank (nodes.sh mpiexec): tasks per second (on 2 cores expect no speed-up: the
#   figure is the overhead of crossing nodes, and of 4 ranks on 2 cores);
# - the profiler's slowdown: wave (WAVE_ARGS) profiled and unprofiled on 2 ranks, on one node
#   and with a rank on each of 2 nodes: profiled / unprofiled wall time, per configuration.
# Prints a table per figure; medians over the rounds with their range. Run on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
B=$PWD/build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_multinode}
ROUNDS=${ROUNDS:-3}
WAVE_ARGS=${WAVE_ARGS:---mesh 30x20x20 --steps 100}
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export LBS_NODES_PREFIX=bench LBS_NODES_NET=auto
NODES=scripts/nodes.sh
rm -rf "$W"
mkdir -p "$W"
trap '"$NODES" down >/dev/null 2>&1 || true' EXIT
"$NODES" up 2 >/dev/null
h1=$("$NODES" hosts 1) h2=$("$NODES" hosts 2)
MPI=(mpiexec --allow-run-as-root --oversubscribe)
X=("$NODES" mpiexec --oversubscribe)
echo "bench/multinode: $(date -u +%FT%TZ), $(nproc) cores, $ROUNDS rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"

$B/lbsim trace gen --kind bump --mesh 32x24x16 --steps 480 -o "$W/b.lbt" >/dev/null 2>&1
cat >"$W/s.ini" <<'INI'
[study]
name = bench
traces = b.lbt
grids = gen:UP:16:4:2, gen:HO:16:4:1
partitioners = zoltan:rcb, zoltan:hsfc
policies = none, fixed:7
[overrides]
grid.barrier_us = 1, 20
INI
read -ra wargs <<<"$WAVE_ARGS"
now() { date +%s.%N; }
# run LABEL CMD...: appends "LABEL seconds" to $W/times
run() {
  local label=$1 t0 t1
  shift
  t0=$(now)
  "$@" </dev/null >/dev/null 2>"$W/last.err" || {
    echo "bench/multinode: $label failed: $(tail -3 "$W/last.err")" >&2
    exit 1
  }
  t1=$(now)
  echo "$label $(echo "$t1 - $t0" | bc -l)" >>"$W/times"
}
for ((r = 1; r <= ROUNDS; r++)); do
  for c in one two2 two1; do
    rm -rf "$W/$c.db" "$W/$c.csv"
    case $c in
    one) run "sweep:1x2" "${MPI[@]}" -n 2 $B/lbsim sweep "$W/s.ini" --results "$W/$c.db" --csv "$W/$c.csv" ;;
    two2) run "sweep:2x2" "${X[@]}" -n 4 --host "$h2" $B/lbsim sweep "$W/s.ini" --results "$W/$c.db" --csv "$W/$c.csv" ;;
    two1) run "sweep:2x1" "${X[@]}" -n 2 --host "$h1" $B/lbsim sweep "$W/s.ini" --results "$W/$c.db" --csv "$W/$c.csv" ;;
    esac
  done
  cmp -s "$W/one.csv/tidy.csv" "$W/two2.csv/tidy.csv" || echo "bench/multinode: the sweeps' CSVs differ" >&2
  for c in one two; do
    if [ $c = one ]; then L=("${MPI[@]}" -n 2); else L=("${X[@]}" -n 2 --host "$h1"); fi
    rm -f "$W/w.lbt"
    for m in unprofiled profiled; do
      tr=()
      [ $m = profiled ] && tr=(--trace "$W/w.lbt")
      run "wave:$c:$m" "${L[@]}" $B/wave --quiet "${wargs[@]}" "${tr[@]}" --json "$W/w.json"
      # the app's own total (its steps, without start-up and the profiler's work after the run)
      echo "app:$c:$m $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total_s"])' "$W/w.json")" >>"$W/times"
    done
  done
done
python3 - "$W/times" <<'PY'
import collections, statistics as st, sys
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    k, v = line.split()
    t[k].append(float(v))
def med(k): return st.median(t[k])
print("\nsweep of 16 replay tasks: wall s, median (min..max), and tasks per second")
print("| configuration | wall s | tasks/s | against 1 node x 2 ranks |")
print("|---|---|---|---|")
for k, name in (("sweep:1x2", "1 node x 2 ranks"), ("sweep:2x2", "2 nodes x 2 ranks"), ("sweep:2x1", "2 nodes x 1 rank")):
    print("| %s | %.2f (%.2f..%.2f) | %.2f | %.2fx |" % (name, med(k), min(t[k]), max(t[k]), 16 / med(k), med("sweep:1x2") / med(k)))
print("\nwave: the profiler's slowdown (profiled / unprofiled, per round, then the median)")
print("wall: the whole command (start-up, the run, the trace written after it); app: wave's own")
print("total_s (its steps alone)")
print("| ranks | time | unprofiled s | profiled s | slowdown: median (rounds) |")
print("|---|---|---|---|---|")
for c, name in (("one", "2 ranks on 1 node"), ("two", "1 rank on each of 2 nodes")):
    for kind in ("wave", "app"):
        u, p = t["%s:%s:unprofiled" % (kind, c)], t["%s:%s:profiled" % (kind, c)]
        r = [b / a for a, b in zip(u, p)]
        print("| %s | %s | %.2f | %.2f | %.3f (%s) |" % (name, "wall" if kind == "wave" else "app", st.median(u),
              st.median(p), st.median(r), ", ".join("%.3f" % x for x in r)))
PY
