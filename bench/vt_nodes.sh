#!/usr/bin/env bash
# bench/vt_nodes.sh - vt's task-to-node traffic as node elements (trace import --vt) beside the
# old form that leaves it out (--no-node-elements), on one generated data set (bench/vt_gen.py
# with VT_GEN_NODES=1: RANKS ranks, TASKS tasks, PHASES phases, every 10th task sending a
# CollectionToNode each phase; default 16 x 20000 x 20), side by side in one run:
#   1. the import: wall seconds and peak RSS (/usr/bin/time -v), each form twice, alternately;
#   2. the recorded replay on RANKS equal processors (bytes_per_edge 1: an arc weighs its bytes):
#      the communication time each form charges (the node traffic counts only where vt had the
#      task away from the node's rank);
#   3. the round trip of the node-element trace: export vt (--policy recorded), import --vt,
#      tests/traces/trace_same.c (loads, owners, arcs, pinned, meta absent and node elements).
# usage: bench/vt_nodes.sh [RANKS TASKS PHASES]   (after make; BENCH_DIR to keep the files)
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
R=${1:-16} TASKS=${2:-20000} PH=${3:-20}
W=${BENCH_DIR:-/tmp/lbs_bench_vt_nodes}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "bench/vt_nodes: $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
D=$W/vt_${R}x${TASKS}x${PH}
[ -s "$D/data.0.json" ] || VT_GEN_NODES=1 /usr/bin/python3 bench/vt_gen.py "$D" "$R" "$TASKS" "$PH"
echo "data set: $D, $(du -sm "$D" | cut -f1) MB in $R files"

imp() { # NAME FLAGS...: the import's wall seconds and peak RSS (MB)
  local name=$1
  shift
  /usr/bin/time -v $B/lbsim trace import --vt "$D" --bound lossless "$@" -f -o "$W/$name.lbt" \
    2>"$W/$name.err" >/dev/null
  awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; w = s}
              /Maximum resident set size/ {m = $2} END {printf "%.2f s, peak RSS %.0f MB\n", w, m / 1024}' "$W/$name.err"
}
for k in 1 2; do
  echo "import, node elements      (try $k): $(imp nodes)"
  echo "import, --no-node-elements (try $k): $(imp plain --no-node-elements)"
done
grep -h "communicating pairs" "$W/nodes.err" "$W/plain.err"

sed "s/^nodes = 16/nodes = $R/; s/^name = homogeneous16/name = homogeneous$R/" \
  examples/grids/homogeneous16.ini >"$W/grid.ini"
for name in nodes plain; do
  $B/lbsim replay "$W/$name.lbt" --grid "$W/grid.ini" --policy recorded --set grid.bytes_per_edge=1 \
    --json </dev/null >"$W/$name.json"
  /usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
print("recorded replay, %-5s: total %.6f s, compute %.6f s, comm %.6f s" % (sys.argv[2], r["total_time_s"], r["compute_time_s"], r["comm_time_s"]))' "$W/$name.json" "$name"
done

$B/lbsim export vt "$W/nodes.lbt" --grid "$W/grid.ini" --policy recorded -f -o "$W/out" >/dev/null
$B/lbsim trace import --vt "$W/out" --bound lossless -f -o "$W/back.lbt" 2>/dev/null
$B/trace_same "$W/nodes.lbt" "$W/back.lbt"
