#!/usr/bin/env bash
# bench/report.sh - lbsim report on a 27-run study (see bench/RESULTS.md): a 30x20x20 bump trace
# x 3 grids (homogeneous16, UP and DN with 16 processors in 4 clusters) x 3 partitioners
# (zoltan:rcb, zoltan:hsfc, metis) x 3 policies (none, fixed:10, adaptive:0.15:5:20), and
# MinEX/METIS partition rows per grid. Prints the page's size, lbsim report's time, and the
# time headless Chromium takes to draw every chart (the page's data-ms: navigation start to
# the last chart rendered; median of 5 loads) with the whole Chromium process's wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_report}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ ! -f "$W/r27.db" ]; then
  $B/lbsim trace gen --kind bump --mesh 30x20x20 --steps 300 -o "$W/bump.lbt" -f >/dev/null 2>&1
  $B/lbsim grid gen --family UP --procs 16 --clusters 4 --slowdown 10 -o "$W/up16.ini" -f >/dev/null
  $B/lbsim grid gen --family DN --procs 16 --clusters 4 --slowdown 10 -o "$W/dn16.ini" -f >/dev/null
  for g in examples/grids/homogeneous16.ini "$W/up16.ini" "$W/dn16.ini"; do
    for p in zoltan:rcb zoltan:hsfc metis; do
      $B/lbsim policy compare "$W/bump.lbt" --grid "$g" --partitioner "$p" --policies none,fixed:10,adaptive:0.15:5:20 \
        --results "$W/r27.db.tmp" >/dev/null
    done
    $B/lbsim partition "$W/bump.lbt" --grid "$g" --partitioner minex,metis --results "$W/r27.db.tmp" >/dev/null
  done
  mv "$W/r27.db.tmp" "$W/r27.db"
fi
t0=$(date +%s.%N)
$B/lbsim report "$W/r27.db" -o "$W/r27.html" -f
t1=$(date +%s.%N)
echo "bench/report: $($B/lbsim results "$W/r27.db" | head -1)"
printf 'page %s bytes, lbsim report %.3f s\n' "$(stat -c %s "$W/r27.html")" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')"
ms=() walls=()
for i in 1 2 3 4 5; do
  a=$(date +%s.%N)
  s=$(timeout 120 chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=30000 --dump-dom \
      "file://$W/r27.html" 2>/dev/null | grep -o '<div id="lbsim-status"[^>]*>')
  b=$(date +%s.%N)
  ms+=("$(printf '%s' "$s" | sed -n 's/.* data-ms="\([0-9]*\)".*/\1/p')")
  walls+=("$(awk -v a="$a" -v b="$b" 'BEGIN{print b-a}')")
  echo "  load $i: $s"
done
med() { printf '%s\n' "$@" | sort -g | sed -n 3p; }
printf 'Chromium: every chart drawn %s ms after navigation (median of 5); the whole process %.2f s\n' \
  "$(med "${ms[@]}")" "$(med "${walls[@]}")"
