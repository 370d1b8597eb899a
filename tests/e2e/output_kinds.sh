#!/usr/bin/env bash
# End-to-end checks of what an output option accepts: an empty path is a usage error for every
# command that writes a file or directory (nothing written, nothing waited for).
set -u
LBSIM=${1:?usage: output_kinds.sh lbsim source-dir}
SRC=${2:?usage: output_kinds.sh lbsim source-dir}
T=$(mktemp -d /tmp/lbs_kinds_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
G=$SRC/examples/grids/homogeneous16.ini
GRAPH=$SRC/examples/graphs/grid6x6.graph
PIPE=$SRC/examples/pipeline/laplace.ini
# lbsim under a time limit: a command that waits (collect listening) fails instead of hanging
run() { timeout 30 "$LBSIM" "$@"; }
sum() { cksum <"$1"; }
# the files of a directory with their checksums, one line each
sums() { (cd "$1" && for f in *; do printf '%s %s\n' "$f" "$(cksum <"$f")"; done); }

expect 0 "gen" -- run trace gen --kind bump --mesh 8x8 --steps 4 -o "$T/t.lbt"
expect 0 "results store" -- run replay "$T/t.lbt" --grid "$G" --policy fixed:2 --results "$T/r.db"
expect 0 "grid gen" -- run grid gen --family HO --procs 4 -o "$T/g.ini"
printf 'implementation,device,metric,seconds\nnode.cpu,demo,1000,0.001\nnode.cpu,demo,1000000,0.01\n' >"$T/samples.csv"
expect 0 "calibrate import" -- run calibrate import "$T/samples.csv" -o "$T/c.db"

# ---- 1. an empty output path: exit 2 naming the option, nothing written anywhere
mkdir "$T/cwd"
empty=(
  "trace gen --kind bump --mesh 4x4 --steps 2 -o"
  "trace gen --kind nbody --bodies 64 --steps 1 -o"
  "trace import --chaco $GRAPH -o"
  "trace recode $T/t.lbt -o"
  "grid gen --family HO --procs 4 -o"
  "grid probe --quick -o"
  "report $T/r.db -o"
  "calibrate import $T/samples.csv -o"
  "calibrate plan --kernel sort -o"
  "collect --listen unix:$T/cwd/c.sock -o"
  "export simgrid $T/t.lbt --grid $G -o"
  "export vtk $T/t.lbt --grid $G -o"
)
for cmd in "${empty[@]}"; do
  # shellcheck disable=SC2086
  expect 2 "$cmd ''" -- bash -c 'cd "$1" && shift && timeout 30 "$@"' _ "$T/cwd" "$LBSIM" $cmd ''
  has "$T/err" "-o: empty path" "$cmd '' message"
  ! grep -q wrote "$T/err" && ok || bad "$cmd '': says it wrote something"
done
expect 2 "pipeline --output ''" -- run pipeline "$PIPE" --output ''
has "$T/err" "lbsim: pipeline: --output: empty path" "pipeline --output '' message"
expect 2 "partition --out-parts ''" -- run partition "$T/t.lbt" --grid "$G" --out-parts ''
has "$T/err" "lbsim: partition: --out-parts: empty path" "partition --out-parts '' message"
[ -z "$(ls -A "$T/cwd")" ] && ok || bad "an empty -o left files behind: $(ls -A "$T/cwd")"

finish
