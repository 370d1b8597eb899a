#!/usr/bin/env bash
# End-to-end checks of what an output option accepts: an empty path is a usage error for every
# command that writes a file or directory (nothing written, nothing waited for); --force
# replaces only a file of the kind the command writes (a trace, an lbsim grid file, a
# partition, a pipeline report), never a results store, a grid or a user's text; and an output
# directory (--csv DIR) is replaced only when it holds what that same command writes there, so
# that policy compare -f never deletes a trace export's files and calibrate show --csv never
# writes over a user's files.
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
  "export vt $T/t.lbt --grid $G -o"
)
for cmd in "${empty[@]}"; do
  # shellcheck disable=SC2086
  expect 2 "$cmd ''" -- bash -c 'cd "$1" && shift && timeout 30 "$@"' _ "$T/cwd" "$LBSIM" $cmd ''
  has "$T/err" "-o: empty path" "$cmd '' message"
  ! grep -q wrote "$T/err" && ok || bad "$cmd '': says it wrote something"
done
# --output and --out-parts are -o's long names: the message names -o
expect 2 "pipeline --output ''" -- run pipeline "$PIPE" --output ''
has "$T/err" "lbsim: pipeline: -o: empty path" "pipeline --output '' message"
expect 2 "partition --out-parts ''" -- run partition "$T/t.lbt" --grid "$G" --out-parts ''
has "$T/err" "lbsim: partition: -o: empty path" "partition --out-parts '' message"
[ -z "$(ls -A "$T/cwd")" ] && ok || bad "an empty -o left files behind: $(ls -A "$T/cwd")"

# ---- 2. --force replaces only a file of the kind the command writes
printf 'precious\n' >"$T/x.txt"
printf '[grid]\nname = mine\n' >"$T/mine.ini"
for f in r.db g.ini mine.ini x.txt c.db; do
  P=$T/$f
  before=$(sum "$P")
  expect 1 "trace gen -f onto $f" -- run trace gen --kind bump --mesh 4x4 --steps 2 -o "$P" -f
  has "$T/err" "lbsim: $P: not an lbsim trace; refusing to replace it" "trace gen -f onto $f message"
  expect 1 "trace gen nbody -f onto $f" -- run trace gen --kind nbody --bodies 64 --steps 1 -o "$P" -f
  expect 1 "trace import -f onto $f" -- run trace import --chaco "$GRAPH" -o "$P" -f
  expect 1 "trace recode -f onto $f" -- run trace recode "$T/t.lbt" -o "$P" -f
  expect 1 "collect -f onto $f" -- run collect --listen "unix:$T/c.sock" -o "$P" -f
  has "$T/err" "not an lbsim trace; refusing to replace it" "collect -f onto $f message"
  [ "$(sum "$P")" = "$before" ] && ok || bad "-f changed $f"
done
for f in t.lbt r.db mine.ini x.txt; do
  P=$T/$f
  before=$(sum "$P")
  expect 1 "grid gen -f onto $f" -- run grid gen --family UP --procs 4 -o "$P" -f
  has "$T/err" "lbsim: $P: not a grid file lbsim wrote; refusing to replace it" "grid gen -f onto $f message"
  expect 1 "pipeline --output -f onto $f" -- run pipeline "$PIPE" --output "$P" -f
  has "$T/err" "not a pipeline report lbsim wrote" "pipeline -f onto $f message"
  expect 1 "partition --out-parts -f onto $f" -- run partition "$T/t.lbt" --grid "$G" --partitioner zoltan:rcb --out-parts "$P" -f
  has "$T/err" "not a partition file" "partition -f onto $f message"
  [ "$(sum "$P")" = "$before" ] && ok || bad "-f changed $f"
done
printf '[study]\nname = k\ntraces = t.lbt\ngrids = %s\npolicies = none\n' "$G" >"$T/study.ini"
for f in t.lbt r.db x.txt; do
  before=$(sum "$T/$f")
  expect 1 "sweep --csv -f onto $f" -- run sweep "$T/study.ini" --results "$T/s.db" --csv "$T/$f" -f
  has "$T/err" "lbsim: sweep: $T/$f: exists and is not a directory; refusing to replace it" "sweep -f onto $f message"
  [ "$(sum "$T/$f")" = "$before" ] && ok || bad "sweep -f changed $f"
done
# what the command wrote itself is replaced
cp "$T/t.lbt" "$T/old.lbt"
expect 0 "trace gen -f onto an older trace" -- run trace gen --kind bump --mesh 4x4 --steps 2 -o "$T/old.lbt" -f
expect 0 "the new trace reads" -- run trace info "$T/old.lbt" --json
has "$T/out" '"steps":2' "the older trace was replaced"
expect 0 "trace recode -f onto a trace" -- run trace recode "$T/t.lbt" -o "$T/old.lbt" -f
: >"$T/empty.lbt"
expect 0 "trace gen -f onto an empty file" -- run trace gen --kind bump --mesh 4x4 --steps 2 -o "$T/empty.lbt" -f
expect 0 "grid gen -f onto grid gen's file" -- run grid gen --family UP --procs 4 --clusters 2 -o "$T/g.ini" -f
has "$T/g.ini" "--family UP" "grid replaced"
for fmt in "" --json; do
  # shellcheck disable=SC2086
  expect 0 "pipeline $fmt --output" -- run pipeline "$PIPE" $fmt --output "$T/p.out" -f
done
expect 0 "partition --out-parts" -- run partition "$T/t.lbt" --grid "$G" --partitioner zoltan:rcb --out-parts "$T/p.parts"
expect 0 "partition --out-parts -f onto its partition" -- run partition "$T/t.lbt" --grid "$G" --partitioner zoltan:rcb --out-parts "$T/p.parts" -f

# ---- 3. an output directory is replaced only when it holds what the same command writes
expect 0 "trace export --csv" -- run trace export "$T/t.lbt" --csv "$T/te"
expect 0 "trace export --steps-dir" -- run trace export "$T/t.lbt" --steps-dir "$T/sd"
expect 0 "policy compare --csv" -- run policy compare "$T/t.lbt" --grid "$G" --policies none --csv "$T/pc"
for d in te sd; do
  before=$(sums "$T/$d")
  expect 1 "policy compare --csv -f onto trace export's $d" -- run policy compare "$T/t.lbt" --grid "$G" --policies none --csv "$T/$d" -f
  has "$T/err" "not a file lbsim writes there; refusing to replace $T/$d" "policy compare onto $d message"
  [ "$(sums "$T/$d")" = "$before" ] && ok || bad "policy compare -f changed trace export's $d: $(ls "$T/$d")"
done
before=$(sums "$T/pc")
expect 1 "trace export --csv -f onto policy compare's" -- run trace export "$T/t.lbt" --csv "$T/pc" -f
[ "$(sums "$T/pc")" = "$before" ] && ok || bad "trace export -f changed policy compare's csv: $(ls "$T/pc")"
expect 0 "policy compare --csv -f onto its own" -- run policy compare "$T/t.lbt" --grid "$G" --policies none --csv "$T/pc" -f
expect 0 "trace export -f: a csv dir onto a steps dir" -- run trace export "$T/t.lbt" --csv "$T/sd" -f
# sweep --csv DIR (tidy.csv) and pipeline --csv DIR (mappings.csv): each replaces only its own
expect 0 "sweep --csv" -- run sweep "$T/study.ini" --results "$T/s.db" --csv "$T/sw"
expect 0 "pipeline --csv" -- run pipeline "$PIPE" --csv "$T/pl"
for d in sw pl pc; do
  before=$(sums "$T/$d")
  for cmd in "sweep $T/study.ini --results $T/s.db" "pipeline $PIPE"; do
    [ "$d" = sw ] && [ "${cmd%% *}" = sweep ] && continue
    [ "$d" = pl ] && [ "${cmd%% *}" = pipeline ] && continue
    # shellcheck disable=SC2086
    expect 1 "${cmd%% *} --csv -f onto $d" -- run $cmd --csv "$T/$d" -f
    has "$T/err" "not a file lbsim writes there; refusing to replace $T/$d" "${cmd%% *} onto $d message"
  done
  [ "$(sums "$T/$d")" = "$before" ] && ok || bad "a --csv -f changed $d: $(ls "$T/$d")"
done
before=$(sums "$T/sw")
expect 1 "policy compare --csv -f onto sweep's" -- run policy compare "$T/t.lbt" --grid "$G" --policies none --csv "$T/sw" -f
[ "$(sums "$T/sw")" = "$before" ] && ok || bad "policy compare -f changed sweep's csv: $(ls "$T/sw")"
expect 0 "sweep --csv onto its own, no -f (a re-run)" -- run sweep "$T/study.ini" --results "$T/s.db" --csv "$T/sw"
expect 1 "pipeline --csv onto its own, no -f" -- run pipeline "$PIPE" --csv "$T/pl"
expect 0 "pipeline --csv -f onto its own" -- run pipeline "$PIPE" --csv "$T/pl" -f

# ---- 4. calibrate show --csv DIR: a new or empty directory, or with -f its own earlier output
mkdir "$T/mine"
printf 'mine\n' >"$T/mine/notes.txt"
printf 'my ipgs\n' >"$T/mine/ipgs.csv"
before=$(sums "$T/mine")
expect 1 "calibrate show --csv into a user's directory" -- run calibrate show "$T/c.db" --csv "$T/mine"
has "$T/err" "lbsim: calibrate show: $T/mine/notes.txt: not a file lbsim writes there" "calibrate show user's directory message"
expect 1 "calibrate show --csv -f into a user's directory" -- run calibrate show "$T/c.db" --csv "$T/mine" -f
has "$T/err" "$T/mine/notes.txt: not a file lbsim writes there" "calibrate show -f user's directory message"
[ "$(sums "$T/mine")" = "$before" ] && ok || bad "calibrate show changed a user's directory: $(ls "$T/mine")"
mkdir "$T/cal"
printf 'my ipgs\n' >"$T/cal/ipgs.csv"
expect 1 "calibrate show --csv over a file it writes, without -f" -- run calibrate show "$T/c.db" --csv "$T/cal"
has "$T/err" "lbsim: calibrate show: $T/cal: directory is not empty (use --force" "calibrate show non-empty message"
[ "$(cat "$T/cal/ipgs.csv")" = "my ipgs" ] && ok || bad "calibrate show wrote over ipgs.csv without -f"
expect 0 "calibrate show --csv -f replaces its own files" -- run calibrate show "$T/c.db" --csv "$T/cal" -f
has "$T/cal/ipgs.csv" "node.cpu" "the new ipgs.csv"
expect 0 "calibrate show --csv into a new directory" -- run calibrate show "$T/c.db" --csv "$T/new"
for f in ipgs points samples verifies plan_pieces; do [ -f "$T/new/$f.csv" ] && ok || bad "calibrate csv: $f.csv missing"; done
expect 1 "calibrate show --csv again" -- run calibrate show "$T/c.db" --csv "$T/new"
expect 0 "calibrate show --csv -f" -- run calibrate show "$T/c.db" --csv "$T/new" -f
before=$(sums "$T/te")
expect 1 "calibrate show --csv -f onto trace export's" -- run calibrate show "$T/c.db" --csv "$T/te" -f
[ "$(sums "$T/te")" = "$before" ] && ok || bad "calibrate show -f changed trace export's files"
expect 2 "calibrate -f without show --csv" -- run calibrate show "$T/c.db" -f
left=$(find "$T" -maxdepth 1 \( -name '*.tmp-*' -o -name '*.old-*' \))
[ -z "$left" ] && ok || bad "temporary directories left: $left"
finish
