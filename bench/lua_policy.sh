#!/usr/bin/env bash
# bench/lua_policy.sh - a policy in Lua against the same policy built in (issue 18's figures):
# seed 002's case (bump 30x20x20 = 12,000 elements, 300 steps, examples/seed002/grid.ini,
# zoltan:rcb), replayed with `none`, the built-in `adaptive:0.15:5:20` and
# examples/policies/adaptive.lua with the same arguments (which decides exactly as the
# built-in: e2e.lua_policy), alternating, REPS times each (default 9); medians of the replay's
# own wall time (wall_s). The decision time is what a policy adds to `none`'s run: its
# decide() calls and the look-ahead (eval_step) they ask of the engine, and also the
# repartitions they decide (Zoltan and the migration: the same 31 for both, most of it).
# Then the same three replays under callgrind (instruction counts, repeatable where the wall
# times are not: CALLGRIND=0 skips them), and bench_lua_bridge (bench/lua_bridge.c: ns per
# decide() call on a fixed view, the Lua bridge alone; BRIDGE_N calls, BRIDGE_REPS runs).
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

# Instruction counts (callgrind): the same three replays, one each, under
# `valgrind --tool=callgrind`: the whole run's Ir (the out file's totals: line), repeatable to
# about 0.03% (MPI's start-up varies by some 10^5 Ir), where the wall times above vary up to 30%
# on this VM. Beside the issue's two figures, from `callgrind_annotate`: the Ir of the 300
# decide() calls (lbs_policy_decide, inclusive: with the look-ahead they ask of the engine), the
# repartitions (repart_at, inclusive),
# the policy's own Ir (that minus the engine's eval_step), and the Ir spent in liblua5.4
# itself (its functions' self cost, the whole run: the script's load and init too). Single
# process, no mpiexec; a run takes 5 to 15 s. CALLGRIND=0 skips this part.
if [ "${CALLGRIND:-1}" = 0 ]; then
  echo "bench/lua_policy (callgrind): skipped (CALLGRIND=0)"
elif ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
  echo "bench/lua_policy (callgrind): skipped, valgrind (with callgrind_annotate) is not installed"
else
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  cg() { # cg NAME POLICY: one replay under callgrind, its JSON in $W/cg.NAME.json
    rm -f "$W/cg.$1.out"
    if ! valgrind --tool=callgrind --callgrind-out-file="$W/cg.$1.out" $B/lbsim replay "$W/bump.lbt" --grid $G \
        --partitioner zoltan:rcb --policy "$2" --json >"$W/cg.$1.json" 2>"$W/cg.$1.err"; then
      echo "bench/lua_policy: the callgrind run of $2 failed:" >&2
      tail -20 "$W/cg.$1.err" >&2
      exit 1
    fi
  }
  cg none none
  cg c adaptive:0.15:5:20
  cg lua "lua:$A:0.15:5:20"
  for f in none c lua; do
    callgrind_annotate --auto=no --threshold=100 --inclusive=yes "$W/cg.$f.out" >"$W/cg.$f.incl"
    callgrind_annotate --auto=no --threshold=100 "$W/cg.$f.out" >"$W/cg.$f.self"
  done
  python3 - "$W" <<'PY'
import json, re, sys
W = sys.argv[1]
line = re.compile(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S.*?)\s*$")
def totals(f):
    for l in open(f"{W}/cg.{f}.out"):
        if l.startswith(("totals:", "summary:")):
            return int(l.split()[1])
    sys.exit(f"bench/lua_policy: no totals: line in {W}/cg.{f}.out")
def table(f, kind):
    t = {}
    for l in open(f"{W}/cg.{f}.{kind}"):
        m = line.match(l)
        if m and not m.group(2).startswith("=>"):
            t[m.group(2)] = max(t.get(m.group(2), 0), int(m.group(1).replace(",", "")))
    return t
def fn(t, name):  # a function's Ir, under "dir/file.c:fn" or "/abs/dir/file.c:fn [obj]"
    v = [ir for k, ir in t.items() if re.search(r"(^|/)" + re.escape(name) + r"( \[|$)", k)]
    return max(v) if v else None
n, c, l = totals("none"), totals("c"), totals("lua")
ic, il = table("c", "incl"), table("lua", "incl")
dc, dl = fn(ic, "policies/registry.c:lbs_policy_decide"), fn(il, "policies/registry.c:lbs_policy_decide")
ec, el = fn(ic, "sim/replay.c:eval_step"), fn(il, "sim/replay.c:eval_step")
lua_self = sum(ir for k, ir in table("lua", "self").items() if "liblua5.4.so" in k)
jc, jl = (json.load(open(f"{W}/cg.{f}.json")) for f in ("c", "lua"))
same = jc["repartition_steps"] == jl["repartition_steps"] and jc["total_time_s"] == jl["total_time_s"]
def row(fig, a, b, extra=""):
    if a is None or b is None:
        print(f"  {fig:<50} {'n/a':>13} {'n/a':>13}")
    else:
        r = f"{a / b:8.4f}" if b else f"{'-':>8}"
        print(f"  {fig:<50} {a:13,d} {b:13,d} {r}{extra}")
print(f"bench/lua_policy (callgrind): seed 002's case, {jc['steps']} steps, instructions (Ir) of one run each")
print(f"  {'figure':<50} {'lua':>13} {'built-in':>13} {'ratio':>8}")
row("whole replay with adaptive:0.15:5:20, Ir", l, c, f"   overhead {100 * (l - c) / c:+.2f}%, goal: < 5%")
row("decision Ir (run - none run)", l - n, c - n, "   goal: ratio <= 2")
own = (dl - el, dc - ec) if None not in (dc, dl, ec, el) else (None, None)
row("  of which repartitions (repart_at, inclusive)", fn(il, "sim/replay.c:repart_at"), fn(ic, "sim/replay.c:repart_at"))
row("  of which decide() calls (incl. look-ahead)", dl, dc)
row("  of which the policy's own (decide - eval_step)", *own)
print(f"  {'Ir in liblua5.4 itself (self cost, whole run)':<50} {lua_self:13,d}")
print(f"  {'none run, Ir':<50} {n:13,d}")
print(f"  {jc['repartitions']} repartitions; lua and built-in {'decided alike' if same else 'DIFFER'}"
      f" (repartition steps and simulated time)")
if not same:
    sys.exit(1)
PY
fi

# The bridge alone, per decide() call (no replay around it)
$B/bench_lua_bridge "${BRIDGE_N:-50000}" "${BRIDGE_REPS:-7}"
