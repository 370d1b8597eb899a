#!/usr/bin/env bash
# End-to-end checks that lbsim's outputs harm nothing, each hazard made for real in a temp
# dir: --force never replaces a device, FIFO, directory, socket or link to one; a listen path
# may only hold a stale socket; FIFOs and devices are refused as inputs and outputs at once;
# a write error on standard output is an error; output directories are written fresh and
# renamed into place; every output is checked before the work; a full disk after the work
# still prints the summary. Mounts (a read-only and a full tmpfs) need root: without them
# those cases print SKIP and are not counted.
set -u
LBSIM=${1:?usage: outputs.sh lbsim source-dir [prof_app]}
SRC=${2:?usage: outputs.sh lbsim source-dir [prof_app]}
APP=${3:-}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_out_XXXXXX)
MOUNTS=()
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT
. "$(dirname "$0")/lib.sh"
G=$SRC/examples/grids/homogeneous16.ini
skip() { echo "SKIP: $*"; }
# lbsim under a time limit: a regression that blocks (a FIFO) fails instead of hanging
run() { timeout 10 "$LBSIM" "$@"; }
# the exit code was not timeout's
quick() { [ "$(cat "$T/rc")" != 124 ] && ok || bad "$1: timed out (blocked)"; }
# expect with the exit code kept in $T/rc
expect_rc() {
  local code=$1 what=$2; shift 3
  "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  echo $rc >"$T/rc"
  if [ "$rc" -eq "$code" ]; then ok; else bad "$what: exit $rc, expected $code; stderr: $(head -c 400 "$T/err")"; fi
}
# a tmpfs at DIR with OPTIONS, unmounted at exit; 1 when mounting is not permitted
mnt() {
  mkdir -p "$2"
  mount -t tmpfs -o "$1" tmpfs "$2" 2>/dev/null || return 1
  MOUNTS+=("$2")
}
sock() { python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.close()' "$1"; }

expect 0 "gen" -- "$LBSIM" trace gen --kind bump --mesh 8x8x4 --steps 4 -o "$T/t.lbt"
# the hazards: a device with /dev/full's numbers, one with /dev/null's, a FIFO, a directory,
# a link to the device, a stale socket
mknod "$T/dev" c 1 7
mknod "$T/null" c "$(stat -c '%t' /dev/null | xargs printf '%d')" "$(stat -c '%T' /dev/null | xargs printf '%d')"
mkfifo "$T/fifo"
mkdir "$T/dir"
ln -s dev "$T/lnk"
sock "$T/sock"
intact() {
  [ -c "$T/dev" ] && [ -c "$T/null" ] && [ -p "$T/fifo" ] && [ -d "$T/dir" ] && [ -L "$T/lnk" ] && [ -c "$T/lnk" ] &&
    [ -S "$T/sock" ] && ok || bad "$1: a hazard was replaced: $(ls -l "$T")"
}

# ---- 1. --force replaces only a regular file (with its SQLite side files)
for h in dev null fifo dir lnk sock; do
  P=$T/$h
  expect_rc 1 "trace gen -f $h" -- run trace gen --kind bump --mesh 8x8x4 --steps 4 -o "$P" -f
  quick "trace gen -f $h"
  has "$T/err" "lbsim: $P: not a regular file; refusing to replace it" "trace gen -f $h message"
  expect_rc 1 "trace gen --kind nbody --force $h" -- run trace gen --kind nbody --bodies 64 --steps 1 -o "$P" --force
  has "$T/err" "$P: not a regular file; refusing to replace it" "nbody -f $h message"
  expect_rc 1 "trace import -f $h" -- run trace import --chaco "$SRC/examples/graphs/grid6x6.graph" -o "$P" -f
  quick "trace import -f $h"
  has "$T/err" "$P: not a regular file; refusing to replace it" "trace import -f $h message"
  expect_rc 1 "grid gen -f $h" -- run grid gen --family HO --procs 4 -o "$P" -f
  quick "grid gen -f $h"
  has "$T/err" "$P: not a regular file; refusing to replace it" "grid gen -f $h message"
  expect_rc 1 "collect -f $h" -- run collect --listen "unix:$T/c.sock" -o "$P" -f
  quick "collect -f $h"
  has "$T/err" "$P: not a regular file; refusing to replace it" "collect -f $h message"
  intact "-f $h"
done
[ ! -e "$T/c.sock" ] && ok || bad "collect left its socket behind"
# without -f the same: refused, nothing opened
expect_rc 1 "trace gen onto a FIFO" -- run trace gen --kind bump --mesh 8x8x4 --steps 4 -o "$T/fifo"
quick "trace gen onto a FIFO"
has "$T/err" "not a regular file" "trace gen onto a FIFO message"
# a side file that is not a regular file
cp "$T/t.lbt" "$T/s.lbt"
mkdir "$T/s.lbt-wal"
expect 1 "-f with a directory as -wal" -- run trace gen --kind bump --mesh 8x8x4 --steps 4 -o "$T/s.lbt" -f
has "$T/err" "$T/s.lbt-wal: not a regular file; refusing to replace it" "side file message"
[ -d "$T/s.lbt-wal" ] && [ -f "$T/s.lbt" ] && ok || bad "side-file case changed something"
# a regular file (and its side files) is replaced with -f, refused without
expect 1 "existing trace without -f" -- run trace gen --kind bump --mesh 8x8x4 --steps 4 -o "$T/t.lbt"
has "$T/err" "file exists (use --force to overwrite)" "exists message"
echo junk >"$T/t.lbt-journal"
expect 0 "existing trace with -f" -- run trace gen --kind bump --mesh 8x8x4 --steps 2 -o "$T/t.lbt" -f
[ ! -e "$T/t.lbt-journal" ] && ok || bad "-f left the old journal"
expect 0 "replaced trace reads" -- run trace info "$T/t.lbt" --json
has "$T/out" '"steps":2' "the new trace"
expect 0 "gen back to 4 steps" -- run trace gen --kind bump --mesh 8x8x4 --steps 4 -o "$T/t.lbt" -f
expect 0 "grid gen" -- run grid gen --family UP --procs 4 -o "$T/g.ini"
expect 0 "grid gen -f over its own grid file" -- run grid gen --family HO --procs 4 -o "$T/g.ini" -f
has "$T/g.ini" "--family HO" "grid written"

# ---- 2. a listen path may hold only a stale socket
printf 'precious\n' >"$T/listen.file"
expect_rc 1 "collect on a regular file" -- run collect --listen "unix:$T/listen.file" -o "$T/c1.lbt"
quick "collect on a regular file"
has "$T/err" "$T/listen.file: exists and is not a socket; refusing to replace it" "regular file message"
[ "$(cat "$T/listen.file")" = precious ] && ok || bad "the regular file at the listen path was changed"
[ ! -e "$T/c1.lbt" ] && ok || bad "collect wrote a trace anyway"
expect 1 "collect on a directory" -- run collect --listen "unix:$T/dir" -o "$T/c1.lbt"
has "$T/err" "$T/dir: exists and is not a socket" "directory message"
intact "listen on a directory"
python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
open(sys.argv[1] + ".up", "w").close(); time.sleep(60)' "$T/live.sock" &
PIDS+=($!)
for _ in $(seq 100); do [ -e "$T/live.sock.up" ] && break; sleep 0.1; done
expect_rc 1 "collect on a live socket" -- run collect --listen "unix:$T/live.sock" -o "$T/c1.lbt"
quick "collect on a live socket"
has "$T/err" "$T/live.sock: another process listens on this socket" "live socket message"
[ -S "$T/live.sock" ] && ok || bad "the live socket was removed"
sock "$T/stale.sock"
[ -S "$T/stale.sock" ] && ok || bad "no stale socket made"
LBSPROF_COLLECT_IDLE_S=1 timeout 20 "$LBSIM" collect --listen "unix:$T/stale.sock" -o "$T/c2.lbt" >"$T/out" 2>"$T/err"
has "$T/err" "listening on unix:$T/stale.sock" "a stale socket is replaced"
[ ! -e "$T/stale.sock" ] && ok || bad "collect left its socket"

# ---- 3. FIFOs and devices are refused as inputs, at once
mkdir "$T/sd"
mkfifo "$T/sd/manifest"
for h in fifo null; do
  P=$T/$h
  for cmd in "trace info $P" "trace check $P" "grid info $P" "replay $P --grid $G" "replay $T/t.lbt --grid $P" \
    "policy compare $P --grid $G --policies none" "policy compare $T/t.lbt --grid $P --policies none" \
    "partition $P --grid $G" "partition $T/t.lbt --grid $P" "trace import --chaco $P -o $T/i.lbt" \
    "trace export $P --csv $T/x"; do
    # shellcheck disable=SC2086
    expect_rc 1 "$cmd" -- run $cmd
    quick "$cmd"
    has "$T/err" "$P: not a regular file" "$cmd message"
  done
done
expect_rc 1 "import a steps dir whose manifest is a FIFO" -- run trace import --steps-dir "$T/sd" -o "$T/i.lbt"
quick "manifest FIFO"
has "$T/err" "$T/sd/manifest: not a regular file" "manifest FIFO message"
[ ! -e "$T/i.lbt" ] && [ ! -e "$T/x" ] && ok || bad "a refused input left an output"
# outputs that are FIFOs or devices: refused before the work, never opened
for h in fifo dev; do
  P=$T/$h
  expect_rc 1 "replay --results $h" -- run replay "$T/t.lbt" --grid "$G" --policy fixed:2 --results "$P"
  quick "replay --results $h"
  has "$T/err" "$P: not a regular file" "replay --results $h message"
  [ ! -s "$T/out" ] && ok || bad "replay --results $h did the work first"
  expect_rc 1 "policy compare --results $h" -- run policy compare "$T/t.lbt" --grid "$G" --policies none --results "$P"
  quick "policy compare --results $h"
  has "$T/err" "$P: not a regular file" "policy compare --results $h message"
  expect_rc 1 "policy compare --csv $h" -- run policy compare "$T/t.lbt" --grid "$G" --policies none --csv "$P" -f
  quick "policy compare --csv $h"
  has "$T/err" "$P: exists and is not a directory; refusing to replace it" "policy compare --csv $h message"
  expect_rc 1 "trace export --steps-dir $h" -- run trace export "$T/t.lbt" --steps-dir "$P" -f
  has "$T/err" "$P: exists and is not a directory" "export onto $h message"
done
intact "FIFO and device outputs"

# ---- 4. a write error on standard output is an error
for cmd in "trace info $T/t.lbt --json" "trace info $T/t.lbt" "grid info $G" "--help" "--version" "trace --help" \
  "replay --help" "grid gen --family HO --procs 4" "replay $T/t.lbt --grid $G --json"; do
  # shellcheck disable=SC2086
  timeout 30 "$LBSIM" $cmd >/dev/full 2>"$T/err"
  rc=$?
  [ $rc -eq 1 ] && ok || bad "'$cmd' > /dev/full: exit $rc"
  has "$T/err" "lbsim: standard output: No space left on device" "'$cmd' > /dev/full message"
done
timeout 10 "$LBSIM" trace info "$T/t.lbt" >"$T/dev" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && ok || bad "stdout on a full device node: exit $rc"
has "$T/err" "No space left on device" "full device node message"
timeout 10 "$LBSIM" --help >&- 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && ok || bad "--help with standard output closed: exit $rc"
has "$T/err" "lbsim: standard output: Bad file descriptor" "closed stdout message"
timeout 10 "$LBSIM" trace gen --kind bump --mesh 4x4 --steps 2 -o "$T/quiet.lbt" >&- 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "a command that prints nothing with standard output closed: exit $rc ($(cat "$T/err"))"
intact "standard output"

# ---- 5. output directories: written fresh, renamed into place, nothing foreign deleted
expect 0 "export csv" -- run trace export "$T/t.lbt" --csv "$T/csv"
[ -f "$T/csv/steps.csv" ] && [ -f "$T/csv/elements.csv" ] && ok || bad "csv files"
expect 1 "export into a non-empty directory" -- run trace export "$T/t.lbt" --csv "$T/csv"
has "$T/err" "lbsim: trace export: $T/csv: directory is not empty (use --force to replace lbsim's output there)" "non-empty message"
expect 0 "export steps dir" -- run trace export "$T/t.lbt" --steps-dir "$T/steps"
[ -f "$T/steps/step_000003.txt" ] && ok || bad "4 steps exported"
expect 0 "export fewer steps with -f" -- run trace export "$T/t.lbt" --steps-dir "$T/steps/" --steps 0:2 --force
[ -f "$T/steps/step_000001.txt" ] && [ ! -e "$T/steps/step_000002.txt" ] && [ ! -e "$T/steps/step_000003.txt" ] &&
  ok || bad "stale steps stayed: $(ls "$T/steps")"
expect 0 "the new steps dir imports" -- run trace import --steps-dir "$T/steps" -o "$T/back.lbt"
expect 0 "a csv dir replaced by a steps dir (lbsim's files)" -- run trace export "$T/t.lbt" --steps-dir "$T/csv" -f --step 1
[ -f "$T/csv/manifest" ] && [ ! -e "$T/csv/steps.csv" ] && ok || bad "csv -> steps dir: $(ls "$T/csv")"
printf 'mine\n' >"$T/steps/notes.txt"
expect 1 "-f with a foreign file" -- run trace export "$T/t.lbt" --steps-dir "$T/steps" -f
has "$T/err" "$T/steps/notes.txt: not a file lbsim writes there; refusing to replace $T/steps" "foreign file message"
[ "$(cat "$T/steps/notes.txt")" = mine ] && [ -f "$T/steps/step_000001.txt" ] && ok || bad "foreign-file case changed the dir"
rm "$T/steps/notes.txt"
mkdir "$T/steps/sub"
expect 1 "-f with a subdirectory" -- run trace export "$T/t.lbt" --steps-dir "$T/steps" -f
has "$T/err" "$T/steps/sub: not a file lbsim writes there" "subdirectory message"
[ -d "$T/steps/sub" ] && ok || bad "the subdirectory was removed"
mkdir "$T/empty"
expect 0 "an empty directory is replaced" -- run trace export "$T/t.lbt" --csv "$T/empty"
[ -f "$T/empty/steps.csv" ] && ok || bad "export into an empty directory"
expect 1 "export through a symbolic link" -- run trace export "$T/t.lbt" --csv "$T/lnk" -f
has "$T/err" "$T/lnk: a symbolic link; refusing to replace it" "symlink dir message"
expect 0 "policy compare csv" -- run policy compare "$T/t.lbt" --grid "$G" --policies fixed:2,adaptive:0.1:1:2 --csv "$T/pc"
[ -f "$T/pc/summary.csv" ] && [ -f "$T/pc/imbalance.csv" ] && ls "$T/pc"/series_adaptive* >/dev/null 2>&1 && ok ||
  bad "policy compare csv files: $(ls "$T/pc")"
expect 1 "policy compare into a non-empty dir" -- run policy compare "$T/t.lbt" --grid "$G" --policies none --csv "$T/pc"
has "$T/err" "$T/pc: directory is not empty (use --force" "policy compare non-empty message"
[ ! -s "$T/out" ] && ok || bad "policy compare refused its --csv only after the work"
expect 0 "policy compare -f" -- run policy compare "$T/t.lbt" --grid "$G" --policies none,fixed:2 --csv "$T/pc" -f
! ls "$T/pc"/series_* >/dev/null 2>&1 && has "$T/pc/summary.csv" "fixed:2" "summary rewritten" ||
  bad "a stale series file stayed: $(ls "$T/pc")"
left=$(find "$T" -maxdepth 1 \( -name '*.tmp-*' -o -name '*.old-*' \))
[ -z "$left" ] && ok || bad "temporary directories left: $left"

# ---- 6. every output checked before the work: a read-only directory, a missing one
if mnt ro,size=1m "$T/ro"; then
  R=$T/ro
  for cmd in "trace gen --kind bump --mesh 8x8x4 --steps 4 -o $R/t.lbt" \
    "trace import --chaco $SRC/examples/graphs/grid6x6.graph -o $R/t.lbt" "grid gen --family HO --procs 4 -o $R/g.ini" \
    "replay $T/t.lbt --grid $G --policy fixed:2 --results $R/r.db" \
    "policy compare $T/t.lbt --grid $G --policies none --results $R/r.db" \
    "policy compare $T/t.lbt --grid $G --policies none --csv $R/pc" "trace export $T/t.lbt --csv $R/csv" \
    "trace export $T/t.lbt --steps-dir $R/steps" "collect --listen unix:$T/ro.sock -o $R/c.lbt"; do
    # shellcheck disable=SC2086
    expect_rc 1 "read-only: $cmd" -- run $cmd
    quick "read-only: $cmd"
    has "$T/err" "Read-only file system" "read-only: $cmd message"
    [ ! -s "$T/out" ] && ! grep -q "listening" "$T/err" && ok || bad "read-only: $cmd did the work first"
  done
  expect_rc 1 "read-only on 2 ranks" -- timeout 60 "${MPI[@]}" -n 2 "$LBSIM" replay "$T/t.lbt" --grid "$G" --results "$R/r.db"
  [ "$(grep -c "Read-only file system" "$T/err")" = 1 ] && ok || bad "2 ranks: $(cat "$T/err")"
  if [ -n "$APP" ]; then
    expect_rc 1 "profiler trace in a read-only directory" -- timeout 60 "${MPI[@]}" -n 1 "$APP" "$R/p.lbt" 2 0
    has "$T/err" "lbsprof: $R/p.lbt: cannot write in $R: Read-only file system" "profiler read-only message"
  fi
else
  skip "cannot mount a read-only tmpfs: the read-only directory cases are not run"
fi
expect 1 "a missing directory" -- run trace gen --kind bump --mesh 8x8x4 --steps 4 -o "$T/nope/t.lbt"
has "$T/err" "$T/nope/t.lbt: cannot write in $T/nope: No such file or directory" "missing directory message"
expect 1 "a missing parent of --csv" -- run policy compare "$T/t.lbt" --grid "$G" --policies none --csv "$T/nope/pc"
has "$T/err" "cannot write in $T/nope" "missing --csv parent message"
[ ! -s "$T/out" ] && ok || bad "--csv in a missing directory found after the work"

# ---- 7. a full disk: the summary is printed, then the error, exit 1
if mnt size=64k "$T/full"; then
  F=$T/full
  dd if=/dev/zero of="$F/fill" bs=4k 2>/dev/null
  expect 1 "replay --results on a full disk" -- run replay "$T/t.lbt" --grid "$G" --policy fixed:2 --results "$F/r.db"
  has "$T/out" "simulated" "replay summary printed"
  has "$T/err" "lbsim: results store: $F/r.db: database or disk is full" "replay full-disk message"
  [ ! -e "$F/r.db" ] && ok || bad "an empty results store was left on the full disk"
  expect 1 "replay --json --results on a full disk" -- run replay "$T/t.lbt" --grid "$G" --policy fixed:2 --results "$F/r.db" --json
  has "$T/out" '"total_time_s":' "replay JSON printed"
  has "$T/err" "database or disk is full" "replay --json full-disk message"
  expect 1 "policy compare --results on a full disk" -- run policy compare "$T/t.lbt" --grid "$G" --policies none,fixed:2 --results "$F/r.db"
  has "$T/out" "fixed:2" "policy compare summary printed"
  has "$T/err" "lbsim: results store: $F/r.db: database or disk is full" "policy compare full-disk message"
  expect 1 "policy compare --csv on a full disk" -- run policy compare "$T/t.lbt" --grid "$G" --policies none --csv "$F/pc" --json
  has "$T/out" '"policies":[' "policy compare JSON printed"
  has "$T/err" "No space left on device" "policy compare --csv full-disk message"
  expect 1 "trace export on a full disk" -- run trace export "$T/t.lbt" --csv "$F/csv"
  expect 1 "trace gen on a full disk" -- run trace gen --kind bump --mesh 8x8x4 --steps 4 -o "$F/t.lbt"
  has "$T/err" "database or disk is full" "trace gen full-disk message"
  expect 1 "grid gen on a full disk" -- run grid gen --family HO --procs 4 -o "$F/g.ini"
  has "$T/err" "lbsim: $F/g.ini: write failed: No space left on device" "grid gen full-disk message"
  expect 1 "export simgrid on a full disk" -- run export simgrid "$T/t.lbt" --grid "$G" -o "$F/smpi"
  has "$T/err" "No space left on device" "export simgrid full-disk message"
  left=$(find "$F" -mindepth 1 -maxdepth 1 ! -name fill)
  [ -z "$left" ] && ok || bad "failed outputs left on the full disk: $left"
else
  skip "cannot mount a small tmpfs: the full-disk cases are not run"
fi

intact "the end"
finish
