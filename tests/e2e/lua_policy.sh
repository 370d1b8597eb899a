#!/usr/bin/env bash
# End-to-end checks of Lua policies (--policy lua:FILE.lua[:ARGS], policies/lua.c): the same
# answers on 1 and 2 ranks, examples/policies/adaptive.lua deciding exactly as the built-in
# adaptive on seed 002's case, and every bad script refused as "policy lua:FILE:LINE: ..." on
# every rank, the sandbox, the instruction budget and the memory limit included.
set -u
LBSIM=${1:?usage: lua_policy.sh lbsim source-dir}
SRC=${2:?}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
G=$SRC/examples/grids/homogeneous16.ini
A=$SRC/examples/policies/adaptive.lua
cd "$T" || exit 1

expect 0 "gen" -- "$LBSIM" trace gen --kind bump --mesh 20x12x10 --steps 80 -o b.lbt
# a policy reading every field of the view
cat >view.lua <<'LUA'
local K
function init(args) K = tonumber(args) or error("needs K") end
function decide(view)
  assert(view.steps == 80 and view.procs == 16 and #view.load_ns == view.procs, "sizes")
  assert(#view.step_ns == view.step and #view.past_imbalance == view.step and #view.past_excess_ns == view.step, "history")
  if view.step > 0 then
    assert(view.step_ns[view.step] > 0 and view.past_imbalance[1] >= 0 and view.past_excess_ns[1] >= 0, "past")
    assert(view.step_ns[view.step + 1] == nil, "no future")
    assert(not pcall(function() view.step_ns[1] = 0 end), "history is read-only")
  end
  assert(view.est_repart_ns > 0 and view.last_repart_ns >= 0, "costs")
  local l, imb = view.eval_step(view.step)
  assert(#l == view.procs and math.abs(imb - view.imbalance) < 1e-12, "eval_step of this step is the view")
  for i = 1, view.procs do assert(l[i] == view.load_ns[i], "eval_step's loads") end
  return view.since >= K and view.imbalance > 0.2
end
LUA
P=lua:view.lua:10,lua:$A:0.15:5:20,adaptive:0.15:5:20
expect 0 "compare on 1 rank" -- "$LBSIM" policy compare b.lbt --grid "$G" --policies "$P" --json
sed 's/"wall_s":[0-9.]*//g' out >np1
has out '"policy":"lua:view.lua:10",' "the Lua policy listed by its spec"
python3 - out <<'PY' && ok || bad "lua:view.lua:10 repartitioned: $(head -c 300 out)"
import json, sys
p = json.load(open(sys.argv[1]))["policies"][0]
assert p["repartitions"] > 0 and all(b - a >= 10 for a, b in zip(p["repartition_steps"], p["repartition_steps"][1:])), p
PY
expect 0 "compare on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" policy compare b.lbt --grid "$G" --policies "$P" --json
sed 's/"wall_s":[0-9.]*//g' out >np2
cmp -s np1 np2 && ok || bad "Lua policies answer differently on 1 and 2 ranks"
expect 0 "replay on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" replay b.lbt --grid "$G" --policy lua:view.lua:10 --json
sed 's/"wall_s":[0-9.]*//g' out >r2
"$LBSIM" replay b.lbt --grid "$G" --policy lua:view.lua:10 --json 2>/dev/null | sed 's/"wall_s":[0-9.]*//g' >r1
cmp -s r1 r2 && ok || bad "replay with a Lua policy differs between 1 and 2 ranks"

# adaptive.lua makes exactly the built-in adaptive's decisions on seed 002's case (and its variants)
expect 0 "seed 002 trace" -- "$LBSIM" trace gen --kind bump --mesh 30x20x20 --steps 300 -o bump.lbt
expect 0 "seed 002 compare" -- "$LBSIM" policy compare bump.lbt --grid "$SRC/examples/seed002/grid.ini" \
  --policies adaptive:0.15:5:20,lua:$A:0.15:5:20,adaptive:0.3:2:40,lua:$A:0.3:2:40 --json
python3 - out <<'PY' && ok || bad "adaptive.lua decides differently from adaptive: $(head -c 600 out)"
import json, sys
p = json.load(open(sys.argv[1]))["policies"]
for c, l in ((p[0], p[1]), (p[2], p[3])):
    assert c["repartitions"] > 2, c
    for k in ("repartition_steps", "total_time_s", "moved_elements", "mean_imbalance"):
        assert c[k] == l[k], (k, c[k], l[k])
PY
expect 1 "adaptive.lua's arguments checked" -- "$LBSIM" replay b.lbt --grid "$G" --policy lua:$A:0.15:20:5
has err "policy lua:$A:17: needs 0 < T < 1 and whole steps 1 <= MIN <= MAX (got '0.15:20:5')" "adaptive.lua's message"

# bad scripts: each refused with its file and line; a syntax error and the failures in decide
# (error, budget, memory) on 1 and on 2 ranks alike (each mpiexec costs about a second and a
# half, so not every one)
printf 'function decide(view)\n  return view.imbalance > 0.3 and\nend\n' >syntax.lua
printf 'function decide(view)\n  if view.step == 7 then\n    error("boom")\n  end\n  return false\nend\n' >runtime.lua
printf 'function decide(view)\n  while true do end\nend\n' >loop.lua
printf 'function decide(view)\n  return 1\nend\n' >number.lua
printf 'function decide(view)\n  os.execute("touch escaped")\n  return false\nend\n' >os.lua
printf 'function decide(view)\n  return load("return true")()\nend\n' >load.lua
printf 'local function f(n) return f(n + 1) + 1 end\nfunction decide(view)\n  return f(1) > 0\nend\n' >deep.lua
printf 'local t = {}\nfunction decide(view)\n  t[#t + 1] = string.rep("x", 4 << 20) .. view.step\n  return false\nend\n' >memory.lua
printf 'function decid(view)\n  return false\nend\n' >nodecide.lua
check() { # script expected-message [ranks...]
  local f=$1 m=$2
  shift 2
  for n in "${@:-1}"; do
    local run=("$LBSIM")
    [ "$n" = 1 ] || run=("${MPI[@]}" -n "$n" "$LBSIM")
    expect 1 "$f on $n rank(s)" -- "${run[@]}" replay b.lbt --grid "$G" --policy "lua:$f"
    has err "lbsim: replay: policy lua:$f$m" "$f's message on $n rank(s)"
  done
}
check syntax.lua ":3: unexpected symbol near 'end'" 1 2
check runtime.lua ":3: boom (deciding step 7)" 1 2
check loop.lua ":2: ran past its budget of 10000000 instructions per call (LBSIM_LUA_BUDGET) (deciding step 0)" 1 2
check number.lua ":1: decide must return a boolean, not a number (deciding step 0)"
check os.lua ":2: attempt to index a nil value (global 'os') (deciding step 0)"
check load.lua ":2: attempt to call a nil value (global 'load') (deciding step 0)"
check deep.lua ":1: stack overflow"
check memory.lua ": ran past its memory limit of 256 MiB (LBSIM_LUA_MEMORY) (deciding step 54)"
# on 2 ranks under a limit of 16 MiB: the same failure on every rank, without each rank filling
# 256 MiB first (that run took 50 s of this test's 65 on a loaded machine)
expect 1 "memory.lua on 2 ranks" -- env LBSIM_LUA_MEMORY=16 "${MPI[@]}" -n 2 "$LBSIM" replay b.lbt --grid "$G" \
  --policy lua:memory.lua
has err "lbsim: replay: policy lua:memory.lua: ran past its memory limit of 16 MiB (LBSIM_LUA_MEMORY) (deciding step 2)" \
  "memory.lua's message on 2 ranks"
check nodecide.lua ": defines no function decide(view)"
check missing.lua ": cannot open it: No such file or directory"
mkfifo fifo.lua && mkdir dir.lua
check fifo.lua ": not a regular file"
check dir.lua ": not a regular file"
# Lua shortens a long path to "...tail" in its messages: lbsim names it whole
D=$T/a_directory_name_long_enough/that_lua_shortens_the_chunk_name
mkdir -p "$D" && cp runtime.lua "$D/"
expect 1 "a long path" -- "$LBSIM" replay b.lbt --grid "$G" --policy "lua:$D/runtime.lua"
has err "lbsim: replay: policy lua:$D/runtime.lua:3: boom (deciding step 7)" "the long path named whole"
[ ! -e escaped ] && ok || bad "os.execute ran in the sandbox"
# (os.lua runs os.execute in its first decision: a replay of one step is enough where it succeeds)
expect 0 "LBSIM_LUA_UNSAFE=1 opens os" -- env LBSIM_LUA_UNSAFE=1 "$LBSIM" replay b.lbt --grid "$G" --policy lua:os.lua \
  --steps 0:1
[ -e escaped ] && ok || bad "LBSIM_LUA_UNSAFE=1 did not open os"
rm -f escaped
# LBSIM_LUA_UNSAFE is a boolean: a "no" in any spelling is the sandbox (it opened os before)
for v in false no off 0 FALSE Off ""; do
  expect 1 "LBSIM_LUA_UNSAFE='$v' keeps the sandbox" -- env LBSIM_LUA_UNSAFE="$v" "$LBSIM" replay b.lbt --grid "$G" \
    --policy lua:os.lua
  has err "lbsim: replay: policy lua:os.lua:2: attempt to index a nil value (global 'os') (deciding step 0)" \
    "LBSIM_LUA_UNSAFE='$v''s sandbox message"
done
for v in yes TRUE On; do
  expect 0 "LBSIM_LUA_UNSAFE=$v opens os" -- env LBSIM_LUA_UNSAFE=$v "$LBSIM" replay b.lbt --grid "$G" --policy lua:os.lua \
    --steps 0:1
  [ -e escaped ] && ok || bad "LBSIM_LUA_UNSAFE=$v did not open os"
  rm -f escaped
done
for v in maybe 2 " 1" yess; do
  expect 2 "LBSIM_LUA_UNSAFE='$v' refused" -- env LBSIM_LUA_UNSAFE="$v" "$LBSIM" replay b.lbt --grid "$G" --policy lua:os.lua
  has err "lbsim: LBSIM_LUA_UNSAFE: '$v': not a boolean (1, 0, yes, no, true, false, on, off)" \
    "LBSIM_LUA_UNSAFE='$v''s message"
done
[ ! -e escaped ] && ok || bad "os.execute ran under a refused LBSIM_LUA_UNSAFE"
expect 2 "a bad LBSIM_LUA_UNSAFE with --lua-unsafe, on 2 ranks" -- env LBSIM_LUA_UNSAFE=maybe "${MPI[@]}" -n 2 "$LBSIM" \
  --lua-unsafe replay b.lbt --grid "$G" --policy lua:os.lua
has err "lbsim: LBSIM_LUA_UNSAFE: 'maybe': not a boolean" "the bad value named on 2 ranks"
[ ! -e escaped ] && ok || bad "os.execute ran under a refused LBSIM_LUA_UNSAFE on 2 ranks"
expect 0 "--lua-unsafe opens os" -- "$LBSIM" --lua-unsafe replay b.lbt --grid "$G" --policy lua:os.lua --steps 0:1
[ -e escaped ] && ok || bad "--lua-unsafe did not open os"
rm -f escaped
expect 0 "--lua-unsafe after --plugin-less options, on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" --lua-unsafe replay b.lbt \
  --grid "$G" --policy lua:os.lua --steps 0:1
[ -e escaped ] && ok || bad "--lua-unsafe did not open os on 2 ranks"
expect 2 "--lua-unsafe is a global option only" -- "$LBSIM" replay b.lbt --grid "$G" --policy lua:os.lua --lua-unsafe
expect 2 "--lua-unsafe without a command" -- "$LBSIM" --lua-unsafe
# a decision, or a call of view.eval_step (collective), that differs between ranks (the rank
# from the MPI launcher's environment, which --lua-unsafe lets the script read): an error naming
# the step, exit 1, where the ranks waited for ever before; timeout makes a regression a
# failure, not a hang (navrank.lua goes on after eval_step's error, under pcall)
cat >byrank.lua <<'LUA'
local rank = tonumber(os.getenv("OMPI_COMM_WORLD_RANK") or os.getenv("PMI_RANK") or error("no rank in the environment"))
function decide(view) return view.step == 5 and rank == 1 end
LUA
expect 1 "a decision that differs between ranks" -- timeout 120 "${MPI[@]}" -n 2 "$LBSIM" --lua-unsafe replay b.lbt \
  --grid "$G" --policy lua:byrank.lua
has err "lbsim: replay: policy lua:byrank.lua: decided differently on the ranks (deciding step 5: repartition on 1 of 2 ranks); a policy must decide the same on every rank" \
  "the divergent decision's message"
cat >navrank.lua <<'LUA'
local rank = tonumber(os.getenv("OMPI_COMM_WORLD_RANK") or os.getenv("PMI_RANK") or error("no rank in the environment"))
function decide(view)
  if view.step == 5 and rank == 1 then pcall(view.eval_step, 0); pcall(view.eval_step, 1) end
  return false
end
LUA
expect 1 "view.eval_step called on one rank only" -- timeout 120 "${MPI[@]}" -n 2 "$LBSIM" --lua-unsafe replay b.lbt \
  --grid "$G" --policy lua:navrank.lua
has err "lbsim: replay: policy lua:navrank.lua: its ranks went apart in deciding step 5 (1 of 2 ranks call view.eval_step where the others have decided); a policy must make the same calls on every rank" \
  "the divergent navigation's message"
expect 1 "... in policy compare too" -- timeout 120 "${MPI[@]}" -n 2 "$LBSIM" --lua-unsafe policy compare b.lbt \
  --grid "$G" --policies fixed:10,lua:byrank.lua
has err "policy lua:byrank.lua: decided differently on the ranks (deciding step 5" "policy compare's message"
expect 1 "a smaller budget" -- env LBSIM_LUA_BUDGET=20 "$LBSIM" replay b.lbt --grid "$G" --policy lua:$A:0.15:5:20
has err "ran past its budget of 20 instructions per call" "LBSIM_LUA_BUDGET's message"
expect 1 "a bad budget" -- env LBSIM_LUA_BUDGET=x "$LBSIM" replay b.lbt --grid "$G" --policy lua:view.lua:10
has err "LBSIM_LUA_BUDGET: 'x' must be a whole number >= 1" "LBSIM_LUA_BUDGET checked"
# 60 steps: past step 54, where the default limit stops memory.lua (checked above), 4 MiB a step
expect 0 "a larger memory limit" -- env LBSIM_LUA_MEMORY=1024 "$LBSIM" replay b.lbt --grid "$G" --policy lua:memory.lua \
  --steps 0:60
expect 1 "a bad memory limit" -- env LBSIM_LUA_MEMORY=0 "$LBSIM" replay b.lbt --grid "$G" --policy lua:view.lua:10
has err "LBSIM_LUA_MEMORY: '0' must be a whole number of MiB >= 1" "LBSIM_LUA_MEMORY checked"
expect 1 "no script" -- "$LBSIM" replay b.lbt --grid "$G" --policy lua
has err "needs a script: lua:FILE.lua[:ARGS]" "lua without a script"

# a policy's series(): what it returns is the run's series, as adaptive's interval per probe
cat >series.lua <<'LUA'
local seen = {}
function decide(view) seen[#seen + 1] = view.step; return view.step % 20 == 10 end
function series()
  local s, v = {}, {}
  for i = 1, #seen, 10 do s[#s + 1] = seen[i]; v[#v + 1] = i / 2 end
  return s, v
end
LUA
printf 'function decide(view) return false end\nfunction series() return {1, 2}, {3} end\n' >badseries.lua
expect 0 "series()" -- "$LBSIM" policy compare b.lbt --grid "$G" --policies lua:series.lua --csv sdir
python3 - sdir/series_lua_series.lua.csv <<'PY' && ok || bad "series.lua's series: $(head -5 sdir/*series*)"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
assert [(int(r[1]), float(r[2])) for r in rows] == [(s, (s + 1) / 2) for s in range(0, 80, 10)], rows
PY
expect 0 "a bad series() is a warning" -- "$LBSIM" replay b.lbt --grid "$G" --policy lua:badseries.lua
has err "policy lua:badseries.lua:2: series returned steps and values of different lengths (its series is left out)" \
  "badseries.lua's warning"

# MinEX's latency-tolerance function in Lua ([minex] latency = lua:FILE.lua[:ARGS]): the same
# partitions as the built-in overlap:F, the script found beside the grid file that names it, the
# same on 1 and 2 ranks, and a failing script named on every rank
mkdir -p grids
cp "$SRC/examples/grids/two_sites.ini" grids/g.ini
cp "$SRC/examples/minex/overlap.lua" grids/
printf '\n[minex]\nlatency = lua:overlap.lua:0.5\n' >>grids/g.ini
expect 0 "gen small" -- "$LBSIM" trace gen --kind bump --mesh 12x10x8 --steps 12 -o s.lbt
M=(replay s.lbt --partitioner minex --policy fixed:4 --json)
expect 0 "minex with overlap:0.5" -- "$LBSIM" "${M[@]}" --grid "$SRC/examples/grids/two_sites.ini" --set minex.latency=overlap:0.5
sed 's/"wall_s":[0-9.]*//g; s/"grid":"[^"]*"//' out >builtin
expect 0 "minex with lua:overlap.lua:0.5 beside the grid" -- "$LBSIM" "${M[@]}" --grid grids/g.ini
sed 's/"wall_s":[0-9.]*//g; s/"grid":"[^"]*"//' out >lua1
cmp -s builtin lua1 && ok || bad "the Lua overlap replays differently from overlap:0.5: $(diff builtin lua1 | head -5)"
expect 0 "minex with the Lua latency on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" "${M[@]}" --grid grids/g.ini
sed 's/"wall_s":[0-9.]*//g; s/"grid":"[^"]*"//' out >lua2
cmp -s lua1 lua2 && ok || bad "the Lua latency replays differently on 1 and 2 ranks"
printf 'function latency(ipg, tot)\n  if tot.p == 5 then error("boom") end\n  return tot.pproc\nend\n' >boom.lua
expect 1 "a failing latency script on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" "${M[@]}" --grid "$SRC/examples/grids/two_sites.ini" \
  --set minex.latency=lua:boom.lua
has err "lbsim: replay: minex latency lua:boom.lua:2: boom (processor 5)" "the latency script's message"
expect 1 "both latency and latency_tolerance" -- "$LBSIM" "${M[@]}" --grid grids/g.ini --set minex.latency_tolerance=0.2
has err "[minex] gives both latency and latency_tolerance; give one" "latency and latency_tolerance refused together"
expect 1 "an unknown latency function" -- "$LBSIM" partition s.lbt --grid "$SRC/examples/grids/two_sites.ini" \
  --partitioner minex --set minex.latency=overlp:0.5
has err "unknown latency function 'overlp:0.5' (known: none, overlap:F, lua:FILE.lua[:ARGS]); did you mean 'overlap'?" \
  "the unknown latency's message"

# a partitioner in Lua (--partitioner lua:FILE.lua[:ARGS]): examples/partitioners/greedy.lua
# balances work, a script reading the graph and coordinates sees them whole, the same on 1 and 2
# ranks, and bad scripts refused on every rank
H=$SRC/examples/grids/homogeneous16.ini
cat >slabs.lua <<'LUA'
local axis
function init(args) axis = tonumber(args) or 1 end
function partition(g)
  assert(g.n == 960 and g.nparts == 16 and g.dim == 3 and #g.coords == g.n and #g.weight == g.n, "sizes")
  local arcs = 0
  for v = 1, g.n do
    assert(#g.adj[v] == #g.adjw[v] and #g.adj[v] >= 3 and #g.adj[v] <= 6, "degree")
    for j, w in ipairs(g.adj[v]) do assert(w ~= v and w >= 1 and w <= g.n and g.adjw[v][j] > 0, "edge") end
    arcs = arcs + #g.adj[v]
    assert(g.current[v] >= 0 and g.current[v] <= g.nparts, "current")
  end
  assert(arcs == 2 * (11 * 10 * 8 + 12 * 9 * 8 + 12 * 10 * 7), "every edge both ways: " .. arcs)
  local lo, hi = math.huge, -math.huge
  for v = 1, g.n do lo = math.min(lo, g.coords[v][axis]); hi = math.max(hi, g.coords[v][axis]) end
  local part = {}
  for v = 1, g.n do part[v] = math.min(g.nparts, 1 + math.floor((g.coords[v][axis] - lo) / (hi - lo + 1e-9) * g.nparts)) end
  return part
end
LUA
GR=$SRC/examples/partitioners/greedy.lua
expect 0 "lua partitioners in partition" -- "$LBSIM" partition s.lbt --grid "$H" --partitioner "lua:$GR,lua:slabs.lua:1" --json
python3 - out <<'PY' && ok || bad "greedy.lua and slabs.lua: $(head -c 600 out)"
import json, sys
rows = json.load(open(sys.argv[1]))
greedy, slabs = rows[0], rows[1]
assert greedy["work_imbalance"] < 1.02 and slabs["work_imbalance"] > 1.02, rows
assert slabs["edge_cut"] < greedy["edge_cut"], rows
PY
R=(replay s.lbt --grid "$H" --policy fixed:3 --json)
expect 0 "a Lua partitioner in replay" -- "$LBSIM" "${R[@]}" --partitioner "lua:$GR"
sed 's/"wall_s":[0-9.]*//g' out >p1
expect 0 "a Lua partitioner on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" "${R[@]}" --partitioner "lua:$GR"
sed 's/"wall_s":[0-9.]*//g' out >p2
cmp -s p1 p2 && ok || bad "a Lua partitioner replays differently on 1 and 2 ranks"
printf 'function partition(g)\n  local p = {}\n  for v = 1, g.n do p[v] = 1 end\n  p[7] = g.nparts + 1\n  return p\nend\n' >range.lua
printf 'function partition(g)\n  error("no")\nend\n' >perr.lua
printf 'function partition(g)\n  return 3\nend\n' >pnum.lua
printf 'function partitio(g)\n  return {}\nend\n' >pnone.lua
expect 1 "a part out of range, on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" "${R[@]}" --partitioner lua:range.lua
has err "partitioner lua:range.lua:1: partition's entry 7 must be a part in 1..16" "range.lua's message"
expect 1 "an error in partition" -- "$LBSIM" "${R[@]}" --partitioner lua:perr.lua
has err "partitioner lua:perr.lua:2: no" "perr.lua's message"
expect 1 "partition returns a number" -- "$LBSIM" "${R[@]}" --partitioner lua:pnum.lua
has err "partitioner lua:pnum.lua:1: partition must return a table of parts, not a number" "pnum.lua's message"
expect 1 "no partition function" -- "$LBSIM" "${R[@]}" --partitioner lua:pnone.lua
has err "partitioner lua:pnone.lua: defines no function partition(g)" "pnone.lua's message"
expect 1 "a Lua partitioner's budget" -- env LBSIM_LUA_BUDGET=1000 "$LBSIM" "${R[@]}" --partitioner "lua:$GR"
has err "ran past its budget of 1000 instructions per call" "the partitioner's budget"

# a plug-in's speed model and latency function through the CLI (tests/plugins/extras.c): a node
# type of speed_model stepped, [minex] latency = hidden:2, the same on 1 and 2 ranks; without the
# plug-in both names are unknown
X=${LBS_TEST_PLUGIN_EXTRAS:-}
if [ -n "$X" ]; then
  sed 's/^speed = 2$/speed_model = stepped\nstepped_speed = 2\nstepped_chunk = 3/' "$SRC/examples/grids/two_sites.ini" >stepped.ini
  printf '\n[minex]\nlatency = hidden:2\n' >>stepped.ini
  grep -q stepped_chunk stepped.ini && ok || bad "stepped.ini was not made"
  expect 0 "a plug-in's speed model and latency function" -- "$LBSIM" --plugin "$X" "${M[@]}" --grid stepped.ini
  sed 's/"wall_s":[0-9.]*//g; s/"grid":"[^"]*"//' out >x1
  cmp -s x1 lua1 && bad "stepped and hidden:2 changed nothing" || ok
  expect 0 "the same on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" --plugin "$X" "${M[@]}" --grid stepped.ini
  sed 's/"wall_s":[0-9.]*//g; s/"grid":"[^"]*"//' out >x2
  cmp -s x1 x2 && ok || bad "the plug-in's models replay differently on 1 and 2 ranks"
  expect 1 "without the plug-in" -- "$LBSIM" "${M[@]}" --grid stepped.ini
  has err "stepped" "the unknown speed model named"
else
  bad "LBS_TEST_PLUGIN_EXTRAS is not set (tests/CMakeLists.txt sets it)"
fi
finish
