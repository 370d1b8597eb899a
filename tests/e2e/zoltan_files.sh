#!/usr/bin/env bash
# End-to-end: files written by real Zoltan (Zoltan_Generate_Files, through
# tests/traces/zoltan_genfiles.c on 2 MPI ranks over the 20 x 19 grid of tests/data/meshes)
# through `lbsim trace import --zoltan-files`, then `lbsim partition` and `lbsim replay --policy
# recorded` on the result. Checks that Zoltan writes the same files on 1 and 2 ranks (the reader
# relies on it), that the trace holds the files' vertices and weights, that the replay starts
# from .assign's parts (its initial imbalance, computed here from the files alone), and the
# refusals a user meets.
set -u
LBSIM=${1:?usage: zoltan_files.sh lbsim zoltan_genfiles source-dir}
GEN=${2:?usage: zoltan_files.sh lbsim zoltan_genfiles source-dir}
SRC=${3:?usage: zoltan_files.sh lbsim zoltan_genfiles source-dir}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
M="$SRC/tests/data/meshes"
G="$SRC/examples/grids/homogeneous16.ini"
# MPI's own allocations at start-up are not ours for LeakSanitizer to report
NOLEAK=(env ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0")

expect 0 "generate on 2 ranks" -- "${NOLEAK[@]}" "${MPI[@]}" -n 2 "$GEN" "$M/grid20x19.graph" "$M/grid20x19.coords" "$T/g2" </dev/null
expect 0 "generate on 1 rank" -- "${NOLEAK[@]}" "${MPI[@]}" -n 1 "$GEN" "$M/grid20x19.graph" "$M/grid20x19.coords" "$T/g1" </dev/null
for ext in graph coords assign; do
  cmp -s "$T/g1.$ext" "$T/g2.$ext" && ok || bad "Zoltan's .$ext differs between 1 and 2 ranks"
done
has "$T/g2.graph" "380 721 011 3 1" "Zoltan's five-field header"

expect 0 "import" -- "$LBSIM" trace import --zoltan-files "$T/g2" -o "$T/g.lbt"
has "$T/err" "$T/g2: 380 vertices, 3 weights a vertex, 4 parts, numbered from 1" "import summary"
expect 0 "info" -- "$LBSIM" trace info "$T/g.lbt" --json
python3 - "$T/out" <<'PY' && ok || bad "info: $(head -c 600 "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["elements"] == 380 and d["steps"] == 1, d
names = [m["name"] for m in d["metrics"]]
assert names == ["weight0", "weight1", "weight2"], names
PY
expect 0 "check" -- "$LBSIM" trace check "$T/g.lbt"
expect 1 "import over an existing trace" -- "$LBSIM" trace import --zoltan-files "$T/g2" -o "$T/g.lbt"
expect 0 "import -f" -- "$LBSIM" trace import --zoltan-files "$T/g2" -f -o "$T/g.lbt"

expect 0 "partition" -- "${NOLEAK[@]}" "$LBSIM" partition "$T/g.lbt" --grid "$G" --partitioner zoltan:rcb --json
python3 - "$T/out" <<'PY' && ok || bad "partition: $(head -c 600 "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))[0]
assert d["elements"] == 380 and d["procs"] == 16 and d["edge_cut"] > 0, d
PY
expect 0 "replay recorded" -- "${NOLEAK[@]}" "$LBSIM" replay "$T/g.lbt" --grid "$G" --policy recorded --json
# the initial imbalance of .assign's parts under weight0, from the files alone: the first word of
# each vertex line of the graph, and the part of each line of .assign
python3 - "$T/out" "$T/g2.graph" "$T/g2.assign" <<'PY' && ok || bad "replay from .assign: $(head -c 600 "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))
lines = [l for l in open(sys.argv[2]) if l.strip() and l.lstrip()[0] != "%"][1:]
w = [float(l.split()[0]) for l in lines]
parts = [int(l) for l in open(sys.argv[3])]
load = {}
for p, x in zip(parts, w):
    load[p] = load.get(p, 0) + x
want = max(load.values()) / (sum(w) / d["procs"])
assert d["metric"] == "weight0" and d["moved_elements"] == 0, d
assert abs(d["initial_work_imbalance"] - want) < 1e-6 * want, (d["initial_work_imbalance"], want)
PY

# base_index 0 and two edge weights an edge: both said, the first weight kept
expect 0 "generate base 0" -- "${NOLEAK[@]}" "${MPI[@]}" -n 2 "$GEN" "$M/grid20x19.graph" "$M/grid20x19.coords" "$T/z0" 2 0 </dev/null
expect 0 "import base 0" -- "$LBSIM" trace import --zoltan-files "$T/z0" -o "$T/z0.lbt"
has "$T/err" "z0.graph:3: 2 weights an edge: the first kept" "two edge weights said"
has "$T/err" "vertices are numbered from 0 (written with base_index 0)" "base 0 said"
has "$T/err" "numbered from 0" "base 0 in the summary"

# Zoltan's graph alone through --chaco: the five-field header is read there too
expect 0 "chaco five fields" -- "$LBSIM" trace import --chaco "$T/g2.graph" --coords "$T/g2.coords" -o "$T/c.lbt"
expect 0 "chaco info" -- "$LBSIM" trace info "$T/c.lbt" --json
has "$T/out" '"name":"weight2"' "chaco import of Zoltan's graph keeps 3 weights"

# refusals: a missing companion (no trace left), options that do not go together
mv "$T/g2.assign" "$T/g2.assign.x"
expect 1 "no .assign" -- "$LBSIM" trace import --zoltan-files "$T/g2" -o "$T/n.lbt"
has "$T/err" "lbsim: trace import: $T/g2.assign: cannot open: No such file or directory" "no .assign message"
[ ! -e "$T/n.lbt" ] && ok || bad "a failed import leaves no trace"
mv "$T/g2.assign.x" "$T/g2.assign"
sed -n '1,380p' "$T/g2.assign" | sed '7s/.*/-2/' >"$T/bad.assign"
cp "$T/g2.graph" "$T/bad.graph"
expect 1 "negative part" -- "$LBSIM" trace import --zoltan-files "$T/bad" -o "$T/n.lbt"
has "$T/err" "$T/bad.assign:7: part -2 of vertex 7 outside 0.." "negative part message"
expect 2 "with --chaco" -- "$LBSIM" trace import --zoltan-files "$T/g2" --chaco "$T/g2.graph" -o "$T/n.lbt"
has "$T/err" "give exactly one of --steps-dir, --chaco, --vt and --zoltan-files" "one input"
expect 2 "with --coords" -- "$LBSIM" trace import --zoltan-files "$T/g2" --coords "$T/g2.coords" -o "$T/n.lbt"
expect 0 "help" -- "$LBSIM" trace import --help
has "$T/out" "--zoltan-files BASE" "help names the option"
finish
