#!/usr/bin/env bash
# bench/lua_policy.sh - a policy in Lua against the same policy built in (issue 18's figures):
# seed 002's case (bump 30x20x20 = 12,000 elements, 300 steps, examples/seed002/grid.ini,
# zoltan:rcb), replayed with `none`, the built-in `adaptive:0.15:5:20` and
# examples/policies/adaptive.lua with the same arguments (which decides exactly as the
# built-in: e2e.lua_policy), alternating, REPS times each (default 9); medians of the replay's
# own wall time (wall_s). The decision time is what a policy adds to `none`'s run: its
# decide() calls and the look-ahead (eval_step) they ask of the engine.
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_lua}
REPS=${REPS:-9}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1
[ -f "$W/bump.lbt" ] || $B/lbsim trace gen --kind bump --mesh 30x20x20 --steps 300 -o "$W/bump.lbt" 2>/dev/null
G=examples/seed002/grid.ini
A=examples/policies/adaptive.lua
wall() { $B/lbsim replay "$W/bump.lbt" --grid $G --partitioner zoltan:rcb --policy "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["wall_s"])'; }
: >"$W/none"; : >"$W/c"; : >"$W/lua"
for r in $(seq "$REPS"); do
  wall none >>"$W/none"
  wall adaptive:0.15:5:20 >>"$W/c"
  wall "lua:$A:0.15:5:20" >>"$W/lua"
done
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
n=$(median "$W/none") c=$(median "$W/c") l=$(median "$W/lua")
echo "bench/lua_policy: seed 002's case, 300 steps, median of $REPS runs each (replay wall time, s)"
awk -v n="$n" -v c="$c" -v l="$l" 'BEGIN {
  printf "  %-44s %10s %10s %8s\n", "figure", "lua", "built-in", "ratio"
  printf "  %-44s %10.3f %10.3f %8.3f   goal: overhead < 5%%\n", "whole replay with adaptive:0.15:5:20, s", l, c, l / c
  printf "  %-44s %10.4f %10.4f %8.2f   goal: ratio <= 2\n", "decision time (run - none run), s", l - n, c - n, (c - n > 0) ? (l - n) / (c - n) : 0
  printf "  %-44s %10.3f\n", "none run, s", n }'
