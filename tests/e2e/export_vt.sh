#!/usr/bin/env bash
# End-to-end checks of `lbsim export vt` (study/export_vt.c): the round trip through
# `trace import --vt` gives back every load (bit for bit where it is a whole ns; the import
# rounds a time to the ns), owner and arc weight (trace_same: a real profiled trace,
# tests/data/heat_2ranks.lbt, and an imported vt data set with per-step communication and
# migrations, plain and --brotli); an interrupted export leaves nothing; a replay that
# repartitions read back on its own (export_vt_check.py: node = the replay's owners from replay
# --results --save-assignment, time = the trace's values / 1e9); a window; the same files on 1
# and 2 ranks; -f replaces only an earlier export vt; bad input.
# usage: export_vt.sh lbsim source-dir trace_same
set -u
LBSIM=${1:?usage: export_vt.sh lbsim source-dir trace_same}
SRC=${2:?}
SAME=${3:?}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
PY=/usr/bin/python3
GRID=$SRC/examples/grids/homogeneous16.ini
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
# The import and trace_same start no MPI: under ASan they run with LeakSanitizer on, whatever
# the test's environment says for the commands that do (export vt replays under MPI).
LEAKS=(env "ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=1")

# same NAME [--ns] A B: trace_same finds no mismatch, and compared something
same() {
  local name=$1
  shift
  if "${LEAKS[@]}" "$SAME" "$@" >"$T/same" 2>&1; then ok; else bad "$name: $(head -c 600 "$T/same")"; fi
  grep -q "compared [1-9][0-9]* loads" "$T/same" && ok || bad "$name: compared no loads"
  echo "$name: $(cat "$T/same")"
}

expect 0 "export vt --help" -- "$LBSIM" export vt --help
has "$T/out" "DIR/data.P.json" "help names the files"
has "$T/out" "lbsim trace import --vt lb" "help has the round trip"
expect 0 "export --help lists vt" -- "$LBSIM" export --help
has "$T/out" "vt        DARMA vt LB data" "export --help"

# ---------------------------------------------------------------- a real profiled trace
# Its times are TSC ticks made ns (fractions of a ns); the import rounds a vt time to the ns, so
# the loads come back as the trace's rounded (--ns), and bit for bit below where they are whole.
# It records no owners (the application never migrated): policy none, the arcs per step.
HEAT=$SRC/tests/data/heat_2ranks.lbt
expect 1 "heat has no owners to replay" -- "$LBSIM" export vt "$HEAT" --grid "$GRID" --policy recorded -o "$T/heat"
has "$T/err" "lbsim: export vt: $HEAT: policy recorded" "recorded without owners: the message"
[ ! -e "$T/heat" ] && ok || bad "a failed export left DIR"
if [ -n "${LBS_E2E_LIGHT:-}" ]; then
  echo "note: LBS_E2E_LIGHT (the sanitizer build): the profiled trace's round trip is left out"
else
  expect 0 "export heat" -- "$LBSIM" export vt "$HEAT" --grid "$GRID" --policy none -o "$T/heat"
  has "$T/out" "16 data.P.json files, 40 phases (steps 0..39) of 9216 tasks" "summary"
  ls -d "$T"/heat.tmp-* >/dev/null 2>&1 && bad "a temporary directory left" || ok
  head -c 200 "$T/heat/data.0.json" | grep -q '^{"type":"LBDatafile","metadata":{"type":"LBDatafile","rank":0,"phases":{"count":40}' &&
    ok || bad "the file's head: $(head -c 200 "$T/heat/data.0.json")"
  expect 0 "import heat back" -- "${LEAKS[@]}" "$LBSIM" trace import --vt "$T/heat" --bound lossless -o "$T/heat.lbt"
  same "heat round trip" --ns "$HEAT" "$T/heat.lbt"
  grep -q "1459200 arc weights: 0 mismatches" "$T/same" && ok || bad "every arc of every step compared"
  rm -rf "$T/heat" "$T/heat.lbt"
fi
# interrupted (SIGINT, as a terminal's ^C) once its files are there: nothing left behind. env
# gives the background job the default disposition that a script's background jobs lack.
env --default-signal=INT "$LBSIM" export vt "$HEAT" --grid "$GRID" --policy none -o "$T/int" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 3000); do
  compgen -G "$T/int.tmp-*/data.0.json" >/dev/null && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
compgen -G "$T/int.tmp-*/data.0.json" >/dev/null && ok || bad "interrupt: no file appeared"
kill -INT $pid
wait $pid
rc=$?
[ "$rc" = 130 ] && ok || bad "interrupted export vt: exit $rc, expected 130"
left=$(compgen -G "$T/int*")
[ -z "$left" ] && ok || bad "interrupted export vt left $left"

# ---------------------------------------------------------------- per-step communication
"$PY" "$SRC/bench/vt_gen.py" "$T/gen" 4 400 12 >/dev/null || bad "vt_gen"
expect 0 "import gen" -- "${LEAKS[@]}" "$LBSIM" trace import --vt "$T/gen" --bound lossless -o "$T/a.lbt"
expect 0 "export gen recorded" -- "$LBSIM" export vt "$T/a.lbt" --grid "$GRID" --policy recorded -o "$T/a" --json
has "$T/out" '"files":16,"phases":12,"tasks":400' "--json summary"
grep -q '"communications":[1-9]' "$T/out" && ok || bad "communications written: $(cat "$T/out")"
expect 0 "import gen back" -- "${LEAKS[@]}" "$LBSIM" trace import --vt "$T/a" --bound lossless -o "$T/b.lbt"
same "vt data set round trip" "$T/a.lbt" "$T/b.lbt"
grep -q "[1-9][0-9]* arc weights" "$T/same" && ok || bad "no arc weights compared"
# brotli: the same trace back
expect 0 "export gen brotli" -- "$LBSIM" export vt "$T/a.lbt" --grid "$GRID" --policy recorded --brotli -o "$T/abr"
[ "$(head -c 1 "$T/abr/data.0.json")" != "{" ] && ok || bad "--brotli wrote plain JSON"
[ "$(stat -c %s "$T/abr/data.0.json")" -lt "$(stat -c %s "$T/a/data.0.json")" ] && ok || bad "brotli is not smaller"
expect 0 "import brotli back" -- "${LEAKS[@]}" "$LBSIM" trace import --vt "$T/abr" --bound lossless -o "$T/c.lbt"
same "brotli round trip" "$T/a.lbt" "$T/c.lbt"

# ---------------------------------------------------------------- node traffic, absent tasks
# vt_nodes.py's data: tasks that appear and vanish, task-to-node traffic (node elements). The
# export leaves a task out of a phase it is absent from and writes a node element's arcs as
# CollectionToNode / NodeToCollection with a node end (export_vt_check.py --nodes against the
# source files); the import of the export gives the same loads, owners, arcs, pinned elements and
# meta absent and node elements back (trace_same), plain and --brotli.
NODES=$(dirname "$0")/vt_nodes.py
printf '[grid]\nns_per_work = 1\n[cluster A]\nnodes = 3\n' >"$T/g3.ini"
"$PY" "$NODES" write "$T/nodes" || bad "vt_nodes.py write"
expect 0 "import nodes" -- "${LEAKS[@]}" "$LBSIM" trace import --vt "$T/nodes" --bound lossless -o "$T/n.lbt"
expect 0 "export nodes" -- "$LBSIM" export vt "$T/n.lbt" --grid "$T/g3.ini" --policy recorded -o "$T/nx" --json
has "$T/out" '"tasks":4,"node_elements":3' "--json: the tasks, and the node elements apart"
if "$PY" "$(dirname "$0")/export_vt_check.py" --nodes "$T/nx" "$T/nodes" >"$T/check" 2>&1; then ok; else bad "nodes read back: $(tail -c 600 "$T/check")"; fi
cat "$T/check"
expect 0 "import nodes back" -- "${LEAKS[@]}" "$LBSIM" trace import --vt "$T/nx" --bound lossless -o "$T/n2.lbt"
same "node traffic round trip" "$T/n.lbt" "$T/n2.lbt"
grep -q "pinned (3)" "$T/same" && ok || bad "the node elements' pinning compared"
expect 0 "export nodes brotli" -- "$LBSIM" export vt "$T/n.lbt" --grid "$T/g3.ini" --policy recorded --brotli -o "$T/nbr"
expect 0 "import nodes brotli back" -- "${LEAKS[@]}" "$LBSIM" trace import --vt "$T/nbr" --bound lossless -o "$T/n3.lbt"
same "node traffic brotli round trip" "$T/n.lbt" "$T/n3.lbt"

# ---------------------------------------------------------------- a replay that repartitions
expect 0 "gen bump" -- "$LBSIM" trace gen --kind bump --mesh 8x6x4 --steps 12 --order hilbert -o "$T/bump.lbt"
expect 0 "export bump fixed:4" -- "$LBSIM" export vt "$T/bump.lbt" --grid "$GRID" --policy fixed:4 -o "$T/r"
has "$T/out" "2 repartitions" "bump repartitions"
expect 0 "csv" -- "$LBSIM" trace export "$T/bump.lbt" --csv "$T/csv"
expect 0 "replay with assignments" -- "$LBSIM" replay "$T/bump.lbt" --grid "$GRID" --policy fixed:4 --results "$T/r.db" --save-assignment
if "$PY" "$(dirname "$0")/export_vt_check.py" "$T/r" "$T/r.db" "$T/csv" time_ns >"$T/check" 2>&1; then ok; else bad "read back: $(tail -c 600 "$T/check")"; fi
cat "$T/check"
grep -q '"index":\[[0-9]*,[0-9]*,[0-9]*\]' "$T/r/data.0.json" && ok || bad "a structured mesh's tasks have (i,j,k) indices"
# the window: phases are the replayed steps
expect 0 "export a window" -- "$LBSIM" export vt "$T/bump.lbt" --grid "$GRID" --policy fixed:4 --steps 3:9 -o "$T/w"
has "$T/out" "6 phases (steps 3..8)" "window summary"
grep -q '"phases":\[{"id":3,' "$T/w/data.0.json" && ok || bad "the window's first phase is step 3"

# ---------------------------------------------------------------- 1 and 2 ranks
expect 0 "export on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" export vt "$T/bump.lbt" --grid "$GRID" --policy fixed:4 -o "$T/r2" </dev/null
diff -r "$T/r" "$T/r2" >/dev/null && ok || bad "1 and 2 ranks wrote different files"

# ---------------------------------------------------------------- outputs and bad input
expect 1 "DIR not empty" -- "$LBSIM" export vt "$T/bump.lbt" --grid "$GRID" -o "$T/r"
has "$T/err" "lbsim: export vt: " "the message names the command"
expect 0 "-f replaces an export vt" -- "$LBSIM" export vt "$T/bump.lbt" --grid "$GRID" -o "$T/r" -f
echo x >"$T/r/notes.txt"
expect 1 "-f keeps a foreign file" -- "$LBSIM" export vt "$T/bump.lbt" --grid "$GRID" -o "$T/r" -f
has "$T/err" "notes.txt: not a file lbsim writes there" "foreign file message"
[ -f "$T/r/notes.txt" ] && [ -f "$T/r/data.0.json" ] && ok || bad "a refused -f changed DIR"
mkdir -p "$T/vtkdir" && : >"$T/vtkdir/replay.pvd"
expect 1 "-f keeps another export's DIR" -- "$LBSIM" export vt "$T/bump.lbt" --grid "$GRID" -o "$T/vtkdir" -f
expect 2 "missing -o" -- "$LBSIM" export vt "$T/bump.lbt" --grid "$GRID"
has "$T/err" "missing -o DIR" "missing -o message"
expect 2 "unknown option" -- "$LBSIM" export vt "$T/bump.lbt" --grid "$GRID" -o "$T/x" --every 2
expect 1 "no trace" -- "$LBSIM" export vt "$T/none.lbt" --grid "$GRID" -o "$T/x"
has "$T/err" "lbsim: export vt: " "no trace message"
[ ! -e "$T/x" ] && ok || bad "a failed export left DIR"
finish
