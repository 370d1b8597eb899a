#!/usr/bin/env bash
# bench/lua_latency.sh - MinEX with its latency-tolerance function in Lua against the same
# function built in (issue 18): examples/minex/overlap.lua:0.5 against overlap:0.5 (the same
# partitions: unit.partitioners.minex, e2e.lua_policy), `lbsim partition --partitioner minex` on a
# bump mesh (SIZE, default 40x30x20 = 24,000 elements) on examples/grids/two_sites.ini (32
# processors in 2 clusters). Each figure is partition_wall_s (the best of --repeat 3), REPS runs
# alternating (default 5), medians.
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_latency}
REPS=${REPS:-5}
SIZE=${SIZE:-40x30x20}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1
[ -f "$W/m_$SIZE.lbt" ] || $B/lbsim trace gen --kind bump --mesh "$SIZE" --steps 2 -o "$W/m_$SIZE.lbt" 2>/dev/null
G=examples/grids/two_sites.ini
wall() {
  $B/lbsim partition "$W/m_$SIZE.lbt" --grid $G --partitioner minex --set "minex.latency=$1" --repeat 3 --json |
    python3 -c 'import json,sys; d,=json.load(sys.stdin); print(d["partition_wall_s"], d["runtime_s"])'
}
: >"$W/c"; : >"$W/lua"
for r in $(seq "$REPS"); do
  wall overlap:0.5 >>"$W/c"
  wall lua:examples/minex/overlap.lua:0.5 >>"$W/lua"
done
median() { cut -d' ' -f1 "$1" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
c=$(median "$W/c") l=$(median "$W/lua")
same=$(cut -d' ' -f2 "$W/c" "$W/lua" | sort -u | wc -l)
echo "bench/lua_latency: MinEX on a $SIZE bump mesh, two_sites.ini, median of $REPS runs (best of 3 each)"
awk -v c="$c" -v l="$l" -v same="$same" 'BEGIN {
  printf "  %-44s %10s %10s %8s\n", "figure", "lua", "built-in", "ratio"
  printf "  %-44s %10.4f %10.4f %8.2f\n", "MinEX partitioning with overlap:0.5, s", l, c, l / c
  printf "  %-44s %s\n", "the same MaxQWgt in every run", same == 1 ? "yes" : "NO" }'
