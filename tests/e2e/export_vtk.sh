#!/usr/bin/env bash
# End-to-end checks of `lbsim export vtk`: a structured (.vti) and unstructured (.vtu) export
# read back with VTK's own XML readers (Debian's python3-vtk9, tests/e2e/export_vtk_check.py)
# and every value checked against independent sources (trace export --csv for costs and places,
# replay --results --save-assignment for owners and times); --every, --steps, --time; the same
# files on 1 and 2 ranks; bad input and outputs that harm nothing.
# usage: export_vtk.sh lbsim source-dir
set -u
LBSIM=${1:?usage: export_vtk.sh lbsim source-dir}
SRC=${2:?}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
PY=/usr/bin/python3 # Debian's, which has python3-vtk9 (not a pyenv python3 on PATH)
CHECK=$(dirname "$0")/export_vtk_check.py
GRID=$SRC/examples/grids/homogeneous16.ini
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

if ! "$PY" -c 'import vtkmodules.vtkIOXML' 2>/dev/null; then
  echo "NOTE: $PY cannot import vtk (apt-get install python3-vtk9): the files are not read back with VTK"
  READBACK=0
else
  READBACK=1
fi

# readback NAME DIR TRACE METRIC EVERY sim|app REPLAY-OPTIONS...: the replay's own record of the
# run (assignments, times) and the trace's CSV, then every file read back and checked
readback() {
  local name=$1 dir=$2 trace=$3 metric=$4 every=$5 timing=$6
  shift 6
  rm -rf "$T/csv" "$T/r.db"
  "$LBSIM" trace export "$trace" --csv "$T/csv" >/dev/null 2>"$T/err" || { bad "$name: trace export: $(cat "$T/err")"; return; }
  "$LBSIM" replay "$trace" --grid "$GRID" "$@" --results "$T/r.db" --save-assignment >/dev/null 2>"$T/err" ||
    { bad "$name: replay: $(cat "$T/err")"; return; }
  [ "$READBACK" = 1 ] || return 0
  if "$PY" "$CHECK" "$dir" "$T/csv" "$T/r.db" "$metric" "$every" "$timing" >"$T/check" 2>&1; then
    ok
    cat "$T/check"
  else
    bad "$name: read back: $(tail -c 600 "$T/check")"
  fi
}

expect 0 "export --help" -- "$LBSIM" export vtk --help
has "$T/out" "lbsim export vtk bump.lbt" "help has an example"
has "$T/out" "DIR/replay.pvd" "help names the collection"
has "$T/out" "VTK_VERTEX" "help says what an unstructured mesh becomes"
expect 0 "export --help lists vtk" -- "$LBSIM" export --help
has "$T/out" "vtk       VTK XML files" "export --help"

# ---------------------------------------------------------------- structured: .vti
# Hilbert order: the elements are not the cells' order, so the files must map them
expect 0 "gen bump" -- "$LBSIM" trace gen --kind bump --mesh 8x6x4 --steps 12 --order hilbert -o "$T/b.lbt"
expect 0 "export vti" -- "$LBSIM" export vtk "$T/b.lbt" --grid "$GRID" --policy fixed:4 -o "$T/v"
has "$T/out" "12 .vti files of 192 elements (steps 0..11), 16 processors, 2 repartitions" "summary"
ls -d "$T"/v.tmp-* >/dev/null 2>&1 && bad "a temporary directory left" || ok
readback "vti" "$T/v" "$T/b.lbt" time_ns 1 sim --policy fixed:4
# the second metric, a window, every 3rd step, app steps as times, des
expect 0 "export vti thinned" -- "$LBSIM" export vtk "$T/b.lbt" --grid "$GRID" --policy fixed:3 --metric weight \
  --partition-metric weight --steps 2:11 --every 3 --time app --mode des -o "$T/w"
has "$T/out" "3 .vti files of 192 elements (steps 2..10, thinned)" "thinned summary"
[ -f "$T/w/step_000002.vti" ] && [ -f "$T/w/step_000008.vti" ] && [ ! -e "$T/w/step_000003.vti" ] && ok ||
  bad "--steps 2:11 --every 3: steps 2, 5, 8: $(ls "$T/w")"
readback "vti thinned" "$T/w" "$T/b.lbt" weight 3 app --policy fixed:3 --metric weight --partition-metric weight \
  --steps 2:11 --mode des
# each replay flag is the --set sim.KEY=VALUE it names: the same files
expect 0 "export vti by --set" -- "$LBSIM" export vtk "$T/b.lbt" --grid "$GRID" --set sim.policy=fixed:3 --set sim.metric=weight \
  --set sim.partition_metric=weight --set sim.steps=2:11 --every 3 --time app --set sim.mode=des -o "$T/w3"
diff -r "$T/w" "$T/w3" >/dev/null && ok || bad "--set and the flags differ: $(diff -r "$T/w" "$T/w3" | head -3)"

# the same files on 2 ranks, and again on 1 (-f replaces lbsim's export)
expect 0 "export on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" export vtk "$T/b.lbt" --grid "$GRID" --policy fixed:4 -o "$T/v2"
diff -r "$T/v" "$T/v2" >/dev/null && ok || bad "export differs between 1 and 2 ranks: $(diff -r "$T/v" "$T/v2" | head -3)"
expect 0 "-f replaces an export" -- "$LBSIM" export vtk "$T/b.lbt" --grid "$GRID" --policy fixed:4 -o "$T/v2" -f
diff -r "$T/v" "$T/v2" >/dev/null && ok || bad "the same export twice differs"
ls -d "$T"/v2.old-* "$T"/v2.tmp-* >/dev/null 2>&1 && bad "a side directory left" || ok

# ---------------------------------------------------------------- unstructured: .vtu
expect 0 "gen nbody" -- "$LBSIM" trace gen --kind nbody --bodies 1000 --steps 6 -o "$T/n.lbt"
expect 0 "export vtu" -- "$LBSIM" export vtk "$T/n.lbt" --grid "$GRID" --policy fixed:2 -o "$T/u"
has "$T/out" "6 .vtu files of 357 elements" "vtu summary"
readback "vtu (nbody)" "$T/u" "$T/n.lbt" pwgt 1 sim --policy fixed:2
expect 0 "export vtu on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" export vtk "$T/n.lbt" --grid "$GRID" --policy fixed:2 -o "$T/u2"
diff -r "$T/u" "$T/u2" >/dev/null && ok || bad "vtu export differs between 1 and 2 ranks"
# a Chaco graph with 2-D coordinates (z = 0), one step
expect 0 "import chaco" -- "$LBSIM" trace import --chaco "$SRC/tests/data/meshes/grid20x19.graph" \
  --coords "$SRC/tests/data/meshes/grid20x19.coords" -o "$T/c.lbt"
expect 0 "export chaco vtu" -- "$LBSIM" export vtk "$T/c.lbt" --grid "$GRID" -o "$T/c"
has "$T/out" "1 .vtu files of 380 elements" "chaco summary"
readback "vtu (chaco, 2-D)" "$T/c" "$T/c.lbt" weight 1 sim

# ---------------------------------------------------------------- bad input, outputs that harm nothing
expect 2 "missing --grid" -- "$LBSIM" export vtk "$T/b.lbt" -o "$T/x"
has "$T/err" "lbsim: export vtk: missing --grid FILE" "missing --grid"
expect 2 "missing -o" -- "$LBSIM" export vtk "$T/b.lbt" --grid "$GRID"
has "$T/err" "lbsim: export vtk: missing -o DIR" "missing -o"
expect 2 "-o KEY=VAL" -- "$LBSIM" export vtk "$T/b.lbt" --grid "$GRID" -o sim.mode=des
has "$T/err" "override a key with --set sim.mode=des" "the --set spelling given"
expect 2 "--every 0" -- "$LBSIM" export vtk "$T/b.lbt" --grid "$GRID" --every 0 -o "$T/x"
has "$T/err" "--every" "names --every"
expect 2 "bad --steps" -- "$LBSIM" export vtk "$T/b.lbt" --grid "$GRID" --steps 9:2 -o "$T/x"
has "$T/err" "lbsim: export vtk: --steps: '9:2' must be A:B" "--steps named"
expect 2 "--time bad" -- "$LBSIM" export vtk "$T/b.lbt" --grid "$GRID" --time wall -o "$T/x"
has "$T/err" "lbsim: export vtk: --time must be sim or app" "--time"
expect 1 "unknown trace" -- "$LBSIM" export vtk "$T/nope.lbt" --grid "$GRID" -o "$T/x"
has "$T/err" "lbsim: export vtk: " "unknown trace: the command"
has "$T/err" "nope.lbt" "unknown trace: the file"
expect 1 "unknown grid" -- "$LBSIM" export vtk "$T/b.lbt" --grid "$T/nope.ini" -o "$T/x"
has "$T/err" "lbsim: export vtk: " "unknown grid"
expect 1 "unknown metric" -- "$LBSIM" export vtk "$T/b.lbt" --grid "$GRID" --metric nope -o "$T/x"
has "$T/err" "no metric 'nope'" "unknown metric"
[ ! -e "$T/x" ] && ok || bad "nothing written after an error"
ls -d "$T"/x.tmp-* >/dev/null 2>&1 && bad "a temporary directory left after an error" || ok
# a graph without coordinates cannot be placed: said before the replay
expect 0 "import chaco without coordinates" -- "$LBSIM" trace import --chaco "$SRC/tests/data/meshes/grid20x19.graph" \
  -o "$T/nc.lbt"
expect 1 "no coordinates" -- "$LBSIM" export vtk "$T/nc.lbt" --grid "$GRID" -o "$T/x"
has "$T/err" "lbsim: export vtk: $T/nc.lbt: the trace's mesh has no coordinates" "no coordinates"
[ ! -e "$T/x" ] && ok || bad "nothing written without coordinates"
# a trace without a mesh (a steps directory whose manifest has no mesh line)
expect 0 "steps dir" -- "$LBSIM" trace export "$T/b.lbt" --steps-dir "$T/sd" --steps 0:2
sed -i '/^mesh/d' "$T/sd/manifest"
expect 0 "import without a mesh" -- "$LBSIM" trace import --steps-dir "$T/sd" --bound lossless -o "$T/nm.lbt"
expect 1 "no mesh" -- "$LBSIM" export vtk "$T/nm.lbt" --grid "$GRID" --partitioner zoltan:block -o "$T/x"
has "$T/err" "lbsim: export vtk: $T/nm.lbt: the trace has no mesh" "no mesh"
[ ! -e "$T/x" ] && ok || bad "nothing written without a mesh"
# the output is a regular file, a FIFO (never opened: no hang), a foreign directory
echo keep >"$T/file"
expect 1 "output is a file" -- "$LBSIM" export vtk "$T/b.lbt" --grid "$GRID" -o "$T/file" -f
has "$T/err" "lbsim: export vtk: $T/file: exists and is not a directory; refusing to replace it" "file message"
[ "$(cat "$T/file")" = keep ] && ok || bad "the file is left alone"
mkfifo "$T/fifo"
expect 1 "output is a FIFO" -- timeout 20 "$LBSIM" export vtk "$T/b.lbt" --grid "$GRID" -o "$T/fifo" -f
has "$T/err" "$T/fifo: exists and is not a directory" "FIFO message"
[ -p "$T/fifo" ] && ok || bad "the FIFO is left alone"
mkdir "$T/foreign" && echo data >"$T/foreign/notes.txt"
expect 1 "foreign directory" -- "$LBSIM" export vtk "$T/b.lbt" --grid "$GRID" -o "$T/foreign" -f
has "$T/err" "lbsim: export vtk: $T/foreign/notes.txt: not a file lbsim writes there" "names the foreign file"
[ "$(cat "$T/foreign/notes.txt")" = data ] && [ "$(ls "$T/foreign")" = notes.txt ] && ok || bad "the foreign directory is left alone"
mkdir "$T/vtkish" && echo data >"$T/vtkish/step_000000.vtk"
expect 1 "a directory with a file lbsim does not write" -- "$LBSIM" export vtk "$T/b.lbt" --grid "$GRID" -o "$T/vtkish" -f
[ "$(cat "$T/vtkish/step_000000.vtk")" = data ] && ok || bad "step_000000.vtk is left alone"
expect 1 "existing export" -- "$LBSIM" export vtk "$T/b.lbt" --grid "$GRID" -o "$T/v"
has "$T/err" "directory is not empty (use --force" "refuses to overwrite without -f"
# another command's output is not replaced, nor does another command replace this one
expect 0 "simgrid export" -- "$LBSIM" export simgrid "$T/b.lbt" --grid "$GRID" -o "$T/smpi"
expect 1 "vtk over a simgrid export" -- "$LBSIM" export vtk "$T/b.lbt" --grid "$GRID" -o "$T/smpi" -f
has "$T/err" "not a file lbsim writes there" "another kind of output"
[ -s "$T/smpi/platform.xml" ] && ok || bad "the simgrid export is left alone"
expect 1 "csv over a vtk export" -- "$LBSIM" trace export "$T/b.lbt" --csv "$T/v" -f
[ -s "$T/v/replay.pvd" ] && ok || bad "the vtk export is left alone"
if [ "$(id -u)" -ne 0 ]; then
  mkdir "$T/ro" && chmod 0555 "$T/ro"
  expect 1 "read-only parent" -- "$LBSIM" export vtk "$T/b.lbt" --grid "$GRID" -o "$T/ro/x"
  chmod 0755 "$T/ro"
fi

finish
