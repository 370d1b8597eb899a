#!/usr/bin/env bash
# The profiler's network path with real processes, on 127.0.0.1 and on unix sockets: foreign
# clients (no token, a wrong one) are refused and leave the trace byte-identical; a frame
# announcing 2 GiB is dropped with the collector's memory kept small; 100 idle connections
# time out and the run completes; another user cannot connect to the sockets; the shared-memory
# name is gone once lbsprof_init returned; bad tokens and addresses are refused up front.
set -u
LBSIM=${1:?usage: profiler_security.sh lbsim prof_app}
APP=${2:?usage: profiler_security.sh lbsim prof_app}
CLIENT="$(cd "$(dirname "$0")" && pwd)/lbsprof_client.py"
T=$(mktemp -d /tmp/lbs_sec_XXXXXX)
trap 'pkill -9 -f "$T" 2>/dev/null; rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
MPI=(mpiexec --allow-run-as-root --oversubscribe)
export LBSPROF_COLLECT_IDLE_S=60
# starts `lbsim collect` on $1 writing $2 (token $2.token); sets cpid and addr
collector() {
  "$LBSIM" collect --listen "$1" -o "$2" 2>"$2.log" &
  cpid=$!
  addr=
  for _ in $(seq 100); do
    addr=$(sed -n 's/^lbsim: collect: listening on //p' "$2.log" 2>/dev/null)
    [ -n "$addr" ] && [ -e "$2.token" ] && return 0
    sleep 0.1
  done
  bad "collector on $1 did not start: $(cat "$2.log")"
}
# another user's process: setpriv needs root (skipped, and said so, otherwise)
asroot=$([ "$(id -u)" = 0 ] && echo 1)
[ -n "$asroot" ] || echo "note: not root: the other-user checks are skipped"
other() { setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$T/pub/client.py" "$@" 2>&1; }
# wait until file $1 holds text $2 (up to 15 s)
await() { for _ in $(seq 150); do grep -qF -- "$2" "$1" && return 0; sleep 0.1; done; return 1; }
kib() { awk '/^'"$2"':/ {print $2}' "/proc/$1/status"; }

# the reference: a run whose trace depends on nothing but the program (no timings)
collector tcp:127.0.0.1:0 "$T/ref.lbt"
cp "$T/ref.lbt.token" "$T/ref.lbt.token.keep"
expect 0 "reference run" -- env LBSPROF_TOKEN_FILE="$T/ref.lbt.token" LBSPROF_COLLECTOR="$addr" "${MPI[@]}" -n 2 \
  "$APP" "$addr" 6 0 values
wait $cpid && ok || bad "reference collector: $(cat "$T/ref.lbt.log")"
has "$T/out" "segments 0" "the shared-memory name is gone after lbsprof_init"

# foreign clients on 127.0.0.1: no answer, a wrong answer; the trace is byte-identical
collector tcp:127.0.0.1:0 "$T/tcp.lbt"
python3 "$CLIENT" forge "$addr" >"$T/forge.out" 2>&1
python3 "$CLIENT" wrongtoken "$addr" >"$T/wrong.out" 2>&1
has "$T/forge.out" "closed by the collector" "a client without the token is dropped"
has "$T/wrong.out" "closed by the collector" "a client with a wrong token is dropped"
expect 0 "run beside foreign clients (tcp)" -- env LBSPROF_TOKEN_FILE="$T/tcp.lbt.token" "${MPI[@]}" -n 2 \
  "$APP" "$addr" 6 0 values
wait $cpid && ok || bad "tcp collector: $(cat "$T/tcp.lbt.log")"
cmp -s "$T/ref.lbt" "$T/tcp.lbt" && ok || bad "the trace beside foreign clients differs from the reference"
has "$T/tcp.lbt.log" "a frame (hello) before the challenge was answered; dropped, nothing it sent was used" "no answer logged"
has "$T/tcp.lbt.log" "wrong token (not this run's secret); dropped" "wrong token logged"
has "$T/tcp.lbt.log" "1 connection refused: wrong token" "refusals counted"

# the same on a unix socket
collector "unix:$T/c.sock" "$T/unix.lbt"
python3 "$CLIENT" forge "$addr" >/dev/null 2>&1
python3 "$CLIENT" wrongtoken "$addr" >/dev/null 2>&1
expect 0 "run beside foreign clients (unix)" -- env LBSPROF_TOKEN_FILE="$T/unix.lbt.token" "${MPI[@]}" -n 2 \
  "$APP" "$addr" 6 0 values
wait $cpid && ok || bad "unix collector: $(cat "$T/unix.lbt.log")"
cmp -s "$T/ref.lbt" "$T/unix.lbt" && ok || bad "the unix trace beside foreign clients differs from the reference"

# the built-in collector (rank 0's): its socket in a private directory under $TMPDIR
mkdir -m 1777 "$T/pub" && chmod 755 "$T"
cp "$CLIENT" "$T/pub/client.py" && chmod 644 "$T/pub/client.py"
TMPDIR="$T/pub" "${MPI[@]}" -n 2 "$APP" "$T/own.lbt" 150 50 values >"$T/own.out" 2>"$T/own.err" &
mpid=$!
sock=
for _ in $(seq 300); do sock=$(ls "$T"/pub/lbsprof-*/collector.sock 2>/dev/null | head -1); [ -n "$sock" ] && break; sleep 0.1; done
if [ -n "$sock" ]; then
  ok
  [ "$(stat -c %a "$(dirname "$sock")")" = 700 ] && ok || bad "private directory mode $(stat -c %a "$(dirname "$sock")")"
  [ "$(stat -c %a "$sock")" = 600 ] && ok || bad "socket mode $(stat -c %a "$sock")"
  if [ -n "$asroot" ]; then
    out=$(other connect "unix:$sock")
    case "$out" in "refused: Permission denied"*) ok ;; *) bad "another user reached the private socket: $out" ;; esac
  fi
  python3 "$CLIENT" forge "unix:$sock" >/dev/null 2>&1 # as this user: it must still answer the challenge
else
  bad "no private socket under $T/pub: $(cat "$T/own.err")"
fi
wait $mpid && ok || bad "run with the built-in collector: $(tail -3 "$T/own.err")"
has "$T/own.out" "done 150 finalize 0" "the built-in collector's run completed"
[ -z "$(ls -A "$T/pub" | grep -v client.py)" ] && ok || bad "left behind in TMPDIR: $(ls -A "$T/pub")"

# another run's token: the collector says no, the agent gives up at once, finalize reports it
collector tcp:127.0.0.1:0 "$T/no.lbt"
expect 0 "a run with another collector's token" -- env LBSPROF_TOKEN_FILE="$T/ref.lbt.token.keep" "${MPI[@]}" -n 2 \
  "$APP" "$addr" 6 0 values
has "$T/err" "the collector refused this run's token" "the agent is told no"
has "$T/out" "done 6 finalize 1" "finalize reports the lost trace"
kill $cpid; wait $cpid 2>/dev/null

# a stand-alone socket: mode 0600; made world-writable by hand, SO_PEERCRED still refuses
collector "unix:$T/pub/s.sock" "$T/peer.lbt"
[ "$(stat -c %a "$T/pub/s.sock")" = 600 ] && ok || bad "stand-alone socket mode $(stat -c %a "$T/pub/s.sock")"
if [ -n "$asroot" ]; then
  out=$(other connect "unix:$T/pub/s.sock")
  case "$out" in "refused: Permission denied"*) ok ;; *) bad "another user reached a 0600 socket: $out" ;; esac
  chmod 777 "$T/pub/s.sock"
  other connect "unix:$T/pub/s.sock" >/dev/null
  await "$T/peer.lbt.log" "(uid 65534): another user" && ok || bad "SO_PEERCRED did not refuse another user: $(cat "$T/peer.lbt.log")"
fi
kill $cpid; wait $cpid 2>/dev/null

# a frame announcing 2 GiB, unauthenticated and authenticated: dropped, memory stays small
collector tcp:127.0.0.1:0 "$T/big.lbt"
rss0=$(kib $cpid VmRSS)
python3 "$CLIENT" big "$addr" >"$T/big1.out" 2>&1
python3 "$CLIENT" big "$addr" "$T/big.lbt.token" >"$T/big2.out" 2>&1
has "$T/big1.out" "closed by the collector" "2 GiB before the challenge: dropped"
has "$T/big2.out" "closed by the collector" "2 GiB mesh after authenticating: dropped"
has "$T/big.lbt.log" "a frame (auth) announcing 2147483648 bytes (it has 40)" "the unauthenticated frame's length refused"
has "$T/big.lbt.log" "a frame (mesh) announcing 2147483648 bytes (at most" "the mesh frame's length refused"
hwm=$(kib $cpid VmHWM)
[ $((hwm - rss0)) -lt 16384 ] && ok || bad "the collector grew from $rss0 KiB to a peak of $hwm KiB"
echo "collector RSS: $rss0 KiB before, peak $hwm KiB after two 2 GiB frames"
kill $cpid; wait $cpid 2>/dev/null

# 100 idle connections: they time out (or make room for newer ones), and a run completes beside them
LBSPROF_AUTH_TIMEOUT_S=1 collector tcp:127.0.0.1:0 "$T/idle.lbt"
python3 "$CLIENT" idle "$addr" 100 4 >"$T/idle.out" 2>&1 &
ipid=$!
sleep 1
expect 0 "run beside 100 idle connections" -- env LBSPROF_TOKEN_FILE="$T/idle.lbt.token" "${MPI[@]}" -n 2 \
  "$APP" "$addr" 6 400 values
wait $ipid
wait $cpid && ok || bad "idle collector: $(tail -3 "$T/idle.lbt.log")"
has "$T/idle.out" "closed by the collector 100 of 100" "every idle connection was closed"
has "$T/idle.lbt.log" "did not authenticate and say hello within 1 s" "idle connections time out"
cmp -s "$T/ref.lbt" "$T/idle.lbt" && ok || bad "the trace beside idle connections differs"

# bad tokens and addresses: refused before the application computes
collector tcp:127.0.0.1:0 "$T/bad.lbt"
printf '%s\n' "$(head -c 32 "$T/bad.lbt.token")" >"$T/short" && chmod 600 "$T/short"
cp "$T/bad.lbt.token" "$T/open" && chmod 644 "$T/open"
# the first on 2 ranks (every rank refuses), the others (each file's own refusal) in an MPI
# singleton, without mpiexec's seconds of start-up and of ending a failed job each
launch=("${MPI[@]}" -n 2 "$APP")
for case in "$T/none|token file $T/none: No such file or directory" \
            "$T/open|mode 0644 lets others read it; it must be 0600" \
            "$T/short|not a token (64 hex digits expected" \
            "$T|token file $T: not a regular file"; do
  f=${case%%|*} msg=${case#*|}
  expect 1 "token $f" -- env LBSPROF_TOKEN_FILE="$f" "${launch[@]}" "$addr" 3 0 values
  has "$T/err" "$msg" "message for token $f"
  grep -q "^done" "$T/out" && bad "token $f: the application ran" || ok
  launch=("$APP")
done
expect 1 "an address that does not resolve" -- env LBSPROF_TOKEN_FILE="$T/bad.lbt.token" "${MPI[@]}" -n 1 \
  "$APP" tcp:nohost.invalid:7000 3 0 values
has "$T/err" "cannot resolve nohost.invalid" "message for the address"
expect 1 "a bind address that does not resolve" -- env LBSPROF_COLLECTOR_BIND=nohost.invalid "${MPI[@]}" -n 1 \
  "$APP" "$T/x.lbt" 3 0 values
has "$T/err" "LBSPROF_COLLECTOR_BIND: cannot resolve nohost.invalid" "message for the bind address"
kill $cpid; wait $cpid 2>/dev/null
expect 1 "lbsim collect with a world-readable token" -- "$LBSIM" collect --listen tcp:127.0.0.1:0 -o "$T/y.lbt" --token-file "$T/open"
has "$T/err" "mode 0644 lets others read it" "collect refuses an open token"
[ ! -e "$T/y.lbt" ] && ok || bad "collect left an output behind"

# rank 0's collector on TCP when asked (LBSPROF_COLLECTOR_BIND), with the run's own secret
expect 0 "built-in collector on 127.0.0.1" -- env LBSPROF_COLLECTOR_BIND=127.0.0.1 "${MPI[@]}" -n 2 \
  "$APP" "$T/bind.lbt" 6 0 values
cmp -s "$T/ref.lbt" "$T/bind.lbt" && ok || bad "the built-in TCP collector's trace differs"
finish
