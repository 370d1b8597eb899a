#!/usr/bin/env bash
# End-to-end checks of interrupted commands (issues 10 and 14), each interrupted for real with a
# signal while it writes: `export vtk` and `trace export` leave no DIR.tmp-XXXXXX behind on SIGINT
# or SIGTERM and exit with the signal's status; `trace gen` leaves no half trace on SIGINT, and
# one killed with SIGKILL (which nothing can catch) is named short by `trace check`; `collect`
# removes its socket and token on SIGTERM and SIGINT, and the socket and token a collector
# killed with SIGKILL left are replaced with a warning, never silently reused, while a live
# collector's token is refused.
# usage: interrupt.sh lbsim source-dir
set -u
LBSIM=${1:?usage: interrupt.sh lbsim source-dir}
SRC=${2:?usage: interrupt.sh lbsim source-dir}
GRID=$SRC/examples/grids/homogeneous16.ini
T=$(mktemp -d /tmp/lbs_intr_XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT
. "$(dirname "$0")/lib.sh"

# A background job of a script starts with SIGINT ignored, and lbsim keeps a signal it was
# started ignoring ignored (as nohup asks): env gives the job the default disposition, as an
# interactive shell would.
bg() { env --default-signal=INT,TERM,HUP "$LBSIM" "$@" & }
# until PATTERN matches a path (up to 300 s: a loaded machine), or the job ended; 0 when it matched
until_there() {
  local pid=$1 pattern=$2
  for _ in $(seq 3000); do
    compgen -G "$pattern" >/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
# until FILE is at least BYTES long (the same limits)
until_size() {
  local pid=$1 file=$2 bytes=$3
  for _ in $(seq 3000); do
    [ "$(stat -c %s "$file" 2>/dev/null || echo 0)" -ge "$bytes" ] && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
status() { case $1 in INT) echo 130 ;; TERM) echo 143 ;; KILL) echo 137 ;; esac; }

# a trace whose exports take seconds (216,000 elements x 30 steps: 170-190 MB of files)
expect 0 "gen" -- "$LBSIM" trace gen --kind bump --mesh 60x60x60 --steps 30 -o "$T/t.lbt"

# ---- 1. output directories: interrupted once their first file is there
for sig in INT TERM; do
  bg trace export "$T/t.lbt" --steps-dir "$T/sd"
  pid=$!
  PIDS+=($pid)
  until_there $pid "$T/sd.tmp-*/step_*" && ok || bad "trace export ($sig): no file appeared in sd.tmp-*"
  kill -"$sig" $pid
  wait $pid
  rc=$?
  [ "$rc" = "$(status $sig)" ] && ok || bad "trace export ($sig): exit $rc, expected $(status $sig)"
  left=$(compgen -G "$T/sd*")
  [ -z "$left" ] && ok || bad "trace export ($sig) left $left"

  bg export vtk "$T/t.lbt" --grid "$GRID" -o "$T/vtk" >/dev/null 2>"$T/export.err"
  pid=$!
  PIDS+=($pid)
  until_there $pid "$T/vtk.tmp-*/step_*.vti" && ok || bad "export vtk ($sig): no file appeared: $(cat "$T/export.err")"
  kill -"$sig" $pid
  wait $pid
  rc=$?
  [ "$rc" = "$(status $sig)" ] && ok || bad "export vtk ($sig): exit $rc, expected $(status $sig)"
  left=$(compgen -G "$T/vtk*")
  [ -z "$left" ] && ok || bad "export vtk ($sig) left $left"
done
left=$(compgen -G "$T/*.tmp-*")
[ -z "$left" ] && ok || bad "temporary outputs left: $left"

# ---- 2. trace gen: once some steps are committed (its write-ahead log has grown)
bg trace gen --kind bump --mesh 60x60x60 --steps 400 -o "$T/g.lbt" 2>/dev/null
pid=$!
PIDS+=($pid)
until_size $pid "$T/g.lbt-wal" 65536 && ok || bad "trace gen: no steps written"
kill -INT $pid
wait $pid
rc=$?
[ "$rc" = 130 ] && ok || bad "trace gen (INT): exit $rc, expected 130"
# no file, or one that trace check names short
if [ -e "$T/g.lbt" ]; then
  expect 1 "trace check of an interrupted trace gen" -- "$LBSIM" trace check "$T/g.lbt"
  has "$T/err" "of 400 steps: the writer did not finish" "interrupted trace gen named short"
else
  left=$(compgen -G "$T/g.lbt*")
  [ -z "$left" ] && ok || bad "trace gen (INT) left side files: $left"
fi
# SIGKILL cannot be caught: what is left is a valid trace of fewer steps, which check names
bg trace gen --kind bump --mesh 60x60x60 --steps 400 -o "$T/k.lbt" 2>/dev/null
pid=$!
PIDS+=($pid)
until_size $pid "$T/k.lbt-wal" 65536 && ok || bad "trace gen: no steps written"
kill -KILL $pid
wait $pid 2>/dev/null
expect 1 "trace check of a killed trace gen" -- "$LBSIM" trace check "$T/k.lbt"
grep -Eq "^lbsim: trace check: $T/k.lbt: [0-9]+ of 400 steps: the writer did not finish$" "$T/err" &&
  ok || bad "killed trace gen: $(cat "$T/err")"
expect 1 "trace check --json of a killed trace gen" -- "$LBSIM" trace check "$T/k.lbt" --json
has "$T/out" '"ok":false' "JSON says not ok"
# a whole one is still ok
expect 0 "trace check of a whole trace" -- "$LBSIM" trace check "$T/t.lbt" --no-source
has "$T/out" "ok: 30 steps" "whole trace ok"

# ---- 3. collect: its socket and default token
for sig in TERM INT; do
  bg collect --listen "unix:$T/c.sock" -o "$T/c.lbt" 2>"$T/c.err"
  pid=$!
  PIDS+=($pid)
  until_there $pid "$T/c.sock" && ok || bad "collect ($sig) did not listen: $(cat "$T/c.err")"
  [ -f "$T/c.lbt.token" ] && ok || bad "collect ($sig) made no token"
  kill -"$sig" $pid
  wait $pid
  rc=$?
  [ "$rc" = "$(status $sig)" ] && ok || bad "collect ($sig): exit $rc, expected $(status $sig)"
  [ ! -e "$T/c.sock" ] && ok || bad "collect ($sig) left its socket"
  [ ! -e "$T/c.lbt.token" ] && ok || bad "collect ($sig) left its token"
done
# killed with SIGKILL: the socket and the token stay; the next collector replaces both and says so
bg collect --listen "unix:$T/c.sock" -o "$T/c.lbt" 2>"$T/c.err"
pid=$!
PIDS+=($pid)
until_there $pid "$T/c.sock" && ok || bad "collect did not listen: $(cat "$T/c.err")"
kill -KILL $pid
wait $pid 2>/dev/null
[ -S "$T/c.sock" ] && [ -f "$T/c.lbt.token" ] && ok || bad "SIGKILL: no stale socket and token to test with"
old=$(cat "$T/c.lbt.token")
LBSPROF_COLLECT_IDLE_S=600 "$LBSIM" collect --listen "unix:$T/c.sock" -o "$T/c.lbt" 2>"$T/c.err" &
pid=$!
PIDS+=($pid)
for _ in $(seq 3000); do grep -q "listening on" "$T/c.err" && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
has "$T/c.err" "lbsim: collect: warning: $T/c.lbt.token: a stale token left by a collector that did not finish; removed" "stale token said"
has "$T/c.err" "lbsim: collect: warning: $T/c.sock: a stale socket" "stale socket said"
has "$T/c.err" "listening on unix:$T/c.sock" "listens after replacing the stale socket"
[ -f "$T/c.lbt.token" ] && [ "$(cat "$T/c.lbt.token")" != "$old" ] && ok || bad "the stale token was reused"
# a live collector's token is not stale: a second collector of the same output is refused
expect 1 "a second collector of the same output" -- "$LBSIM" collect --listen "unix:$T/c2.sock" -o "$T/c.lbt"
has "$T/err" "lbsim: collect: $T/c.lbt.token: in use by a running collector" "live token refused"
[ ! -e "$T/c2.sock" ] && ok || bad "the refused collector left a socket"
[ -S "$T/c.sock" ] && [ -f "$T/c.lbt.token" ] && ok || bad "the refused collector removed the live one's socket or token"
kill -TERM $pid
wait $pid
[ ! -e "$T/c.sock" ] && [ ! -e "$T/c.lbt.token" ] && ok || bad "collect (TERM) left its socket or token"

finish
