#!/usr/bin/env bash
# bench/vt_import.sh - DARMA vt LB data in and out of lbsim, on a generated data set
# (bench/vt_gen.py: RANKS ranks, TASKS tasks, PHASES phases, migrations every 10th phase, two
# SendRecv a phase from every 20th task; default 32 x 100000 x 50):
#   1. import speed: `lbsim trace import --vt` (lossless, and the default bound) in tasks per
#      second, beside bench_vt_jansson (jansson's own json_load_file of the same files, counting
#      tasks, nothing else; and --mem: each file read whole, then json_loadb, as the import
#      did before it read a stream), each run twice alternately; the import's peak RSS
#      (/usr/bin/time -v) against the trace's dense size: S x T loads (8 bytes) + S x T owners
#      (8 bytes) + S x pairs arc weights (8 bytes), what an importer must hold to write the
#      steps in order;
#   2. the round trip: export vt of the recorded replay (a grid of RANKS equal processors), then
#      import --vt, compared with the trace by tests/traces/trace_same.c (every load bit for bit,
#      owner and arc weight at every step);
#   3. the recorded replay's per-phase rank loads (results store) against the sums of the task
#      times per rank that tests/e2e/vt_loads_check.py computes from the JSON itself.
# usage: bench/vt_import.sh [RANKS TASKS PHASES]   (after make; BENCH_DIR to keep the files)
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
R=${1:-32} TASKS=${2:-100000} PH=${3:-50}
W=${BENCH_DIR:-/tmp/lbs_bench_vt}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "bench/vt_import: $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
D=$W/vt_${R}x${TASKS}x${PH}
[ -s "$D/data.0.json" ] || /usr/bin/python3 bench/vt_gen.py "$D" "$R" "$TASKS" "$PH"
echo "data set: $D, $(du -sm "$D" | cut -f1) MB in $R files"
NT=$((TASKS * PH))

# ---------------------------------------------------------------- 1. import speed and memory
imp() { # BOUND: the import's wall seconds and peak RSS (kB) into $W/imp.txt
  /usr/bin/time -v $B/lbsim trace import --vt "$D" --bound "$1" -f -o "$W/t_$1.lbt" 2>"$W/imp.err" >/dev/null
  awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; w = s}
              /Maximum resident set size/ {m = $2} END {print w, m}' "$W/imp.err"
}
for k in 1 2; do
  $B/bench_vt_jansson "$D"/data.*.json | tee "$W/jansson$k.txt"
  $B/bench_vt_jansson --mem "$D"/data.*.json | tee -a "$W/jansson$k.txt"
  for b in lossless rel:0.005; do
    read -r wall rss < <(imp "$b")
    printf 'import --bound %-9s %6.2f s, %8.0f tasks/s, peak RSS %5.0f MB\n' "$b" "$wall" \
      "$(echo "$NT / $wall" | bc -l)" "$(echo "$rss / 1024" | bc -l)" | tee -a "$W/imp$k.txt"
  done
done
grep -h "communicating pairs" "$W/imp.err" | head -1
pairs=$(grep -ho "[0-9]* communicating pairs" "$W/imp.err" | head -1 | cut -d' ' -f1)
dense=$(echo "($NT * 16 + $PH * $pairs * 8) / 1048576" | bc -l)
printf 'trace dense size: %d x %d loads + owners, %d pairs x %d steps: %.0f MB\n' "$PH" "$TASKS" "$pairs" "$PH" "$dense"

# ---------------------------------------------------------------- 2. the round trip
sed "s/^nodes = 16/nodes = $R/; s/^name = homogeneous16/name = homogeneous$R/" \
  examples/grids/homogeneous16.ini >"$W/grid.ini"
/usr/bin/time -f "export vt: %e s, peak RSS %M kB" $B/lbsim export vt "$W/t_lossless.lbt" --grid "$W/grid.ini" \
  --policy recorded -f -o "$W/out"
echo "exported: $(du -sm "$W/out" | cut -f1) MB"
$B/lbsim trace import --vt "$W/out" --bound lossless -f -o "$W/back.lbt" 2>/dev/null
build/bin/trace_same "$W/t_lossless.lbt" "$W/back.lbt"

# ---------------------------------------------------------------- 3. per-phase rank loads
rm -f "$W/r.db"
$B/lbsim replay "$W/t_lossless.lbt" --grid "$W/grid.ini" --policy recorded --results "$W/r.db" >/dev/null
/usr/bin/python3 tests/e2e/vt_loads_check.py "$D" "$W/r.db"
