#!/usr/bin/env bash
# The profiler with real processes: a normal run, a stand-alone collector, and the faults of
# issue 6 (agent killed, collector killed, application killed, a full ring in drop and wait
# modes). Every trace left behind must pass `lbsim trace check`, but for the killed collector's,
# which it names unfinished.
set -u
LBSIM=${1:?usage: profiler_faults.sh lbsim prof_app}
APP=${2:?usage: profiler_faults.sh lbsim prof_app}
T=$(mktemp -d /tmp/lbs_prof_XXXXXX)
trap 'pkill -9 -f "$T" 2>/dev/null; rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
MPI=(mpiexec --allow-run-as-root --oversubscribe)
meta() { sqlite3 "$1" "SELECT value FROM meta WHERE key = '$2'"; }
steps() { "$LBSIM" trace info "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["steps"])'; }
# wait until no process matches $1 (up to 20 s)
gone() { for _ in $(seq 200); do pgrep -f "$1" >/dev/null || return 0; sleep 0.1; done; return 1; }
# wait until the agent of the run with $1 on its ranks' command lines runs (up to 30 s):
# MPI start-up on a loaded machine can take seconds
agent_up() {
  for _ in $(seq 300); do
    for pid in $(pgrep -f "^$APP $1"); do pgrep -f "lbsprof-$pid-" >/dev/null && return 0; done
    sleep 0.1
  done
  return 1
}
# the agent of the run whose ranks have $1 on their command line
kill_agent() {
  for pid in $(pgrep -f "^$APP $1"); do pkill "-$2" -f "lbsprof-$pid-" && return 0; done
  return 1
}

# a normal run, 2 ranks, collector started by rank 0
expect 0 "normal run" -- "${MPI[@]}" -n 2 "$APP" "$T/a.lbt" 20 0
has "$T/out" "done 20 finalize 0" "finished"
expect 0 "normal trace check" -- "$LBSIM" trace check "$T/a.lbt"
[ "$(steps "$T/a.lbt")" = 20 ] && ok || bad "normal: $(steps "$T/a.lbt") steps"
[ "$(meta "$T/a.lbt" profiler.complete)" = yes ] && ok || bad "normal run not complete"
[ "$(meta "$T/a.lbt" profiler.ranks)" = 2 ] && ok || bad "ranks in metadata"
expect 0 "info shows the run" -- "$LBSIM" trace info "$T/a.lbt"
has "$T/out" "profiler  ranks 2, nodes 1, sample_every 1: complete; steps dropped 0, incomplete 0; ranks lost 0" "info line"
expect 0 "info json" -- "$LBSIM" trace info "$T/a.lbt" --json
has "$T/out" '"bound":"rel:0.005"' "the default bound recorded"

has "$T/out" '"profiler":{"ranks":"2","nodes":"1","sample_every":"1","on_full":"wait","bound":"rel:0.005","complete":"yes"' "info json"
# the application's keys (lbsprof_meta): a repeated key keeps its last value, bytes_per_elem reaches the mesh
has "$T/out" "\"app\":{\"args\":\"--a value with spaces\",\"bytes_per_elem\":\"96\",\"name\":\"prof_app\"}" "app keys in info json"
[ "$(meta "$T/a.lbt" app.name)" = prof_app ] && ok || bad "app.name in metadata"

# a run that migrates after every 5th step (lbsprof_remap): every step, and the owners from step 0
# and each remap's step (the one after the last step too)
owners() { "$LBSIM" trace info "$1" --json | python3 -c 'import json,sys; o=json.load(sys.stdin).get("owners"); print(o["steps"] if o else [])'; }
for n in 1 2; do
  expect 0 "remap run on $n ranks" -- "${MPI[@]}" -n $n "$APP" "$T/r$n.lbt" 20 0 remap
  has "$T/out" "done 20 finalize 0" "remap run finished"
  expect 0 "remap trace check ($n ranks)" -- "$LBSIM" trace check "$T/r$n.lbt"
  [ "$(steps "$T/r$n.lbt")" = 20 ] && ok || bad "remap run: $(steps "$T/r$n.lbt") steps"
  [ "$(owners "$T/r$n.lbt")" = "[0, 5, 10, 15, 20]" ] && ok || bad "remap run owners: $(owners "$T/r$n.lbt")"
done

# run-time settings: LBSPROF_* override what the program set, bad values name the variable
expect 0 "settings from the environment" -- env LBSPROF_BOUND=lossless LBSPROF_SAMPLE_EVERY=4 "${MPI[@]}" -n 2 \
  "$APP" "$T/env.lbt" 20 0
[ "$(steps "$T/env.lbt")" = 5 ] && ok || bad "LBSPROF_SAMPLE_EVERY=4: $(steps "$T/env.lbt") steps of 20"
expect 0 "env trace info" -- "$LBSIM" trace info "$T/env.lbt" --json
has "$T/out" '"codec":"lossless","bound":"lossless"' "LBSPROF_BOUND=lossless"
[ "$(meta "$T/env.lbt" profiler.sample_every)" = 4 ] && ok || bad "sample_every in the metadata"
# (in an MPI singleton: every rank reads LBSPROF_* alike, as the 2-rank run above shows)
expect 0 "codec and bound from the environment" -- env LBSPROF_BOUND=abs:50 LBSPROF_CODEC=quant "$APP" "$T/env2.lbt" 4 0
expect 0 "env2 trace info" -- "$LBSIM" trace info "$T/env2.lbt" --json
has "$T/out" '"codec":"quant","bound":"abs:50"' "LBSPROF_CODEC=quant, LBSPROF_BOUND=abs:50"
# A bad value is refused on every rank: the first on 2 ranks, the others (the same refusal, each
# variable's own parsing) in an MPI singleton, without mpiexec's second or so of start-up each
launch=("${MPI[@]}" -n 2 "$APP")
for bad in "LBSPROF_BOUND=rel:-1|LBSPROF_BOUND='rel:-1': error bound 'rel:-1': eps is negative" \
           "LBSPROF_BOUND=0.01|LBSPROF_BOUND='0.01': error bound '0.01' is not one of" \
           "LBSPROF_CODEC=gzip|LBSPROF_CODEC='gzip': unknown codec 'gzip'" \
           "LBSPROF_SAMPLE_EVERY=0|LBSPROF_SAMPLE_EVERY='0' is not an integer in [1, 1e9]" \
           "LBSPROF_SAMPLE_EVERY=2x|LBSPROF_SAMPLE_EVERY='2x' is not an integer" \
           "LBSPROF_PING_S=abc|LBSPROF_PING_S='abc' is not a number in [0.01, 3600]" \
           "LBSPROF_RETRY_S=5s|LBSPROF_RETRY_S='5s' is not a number in [0, 1000000]" \
           "LBSPROF_COLLECT_IDLE_S=abc|LBSPROF_COLLECT_IDLE_S='abc' is not a number in [0.1, 1000000]" \
           "LBSPROF_ON_FULL=maybe|LBSPROF_ON_FULL='maybe' is not wait or drop" \
           "LBSPROF_COMPACT=later|LBSPROF_COMPACT='later' is not auto, stream or deferred" \
           "LBSPROF_COLLECTOR=/tmp/x|LBSPROF_COLLECTOR='/tmp/x' is not unix:/path or tcp:HOST:PORT"; do
  var=${bad%%|*} msg=${bad#*|}
  expect 1 "bad $var" -- env "$var" "${launch[@]}" "$T/bad.lbt" 2 0
  has "$T/err" "$msg" "message for $var"
  [ ! -e "$T/bad.lbt" ] && ok || bad "$var: a trace was left"
  launch=("$APP")
done
expect 1 "a lossless codec with a lossy bound" -- env LBSPROF_CODEC=lossless LBSPROF_BOUND=rel:0.01 "$APP" "$T/bad.lbt" 2 0
has "$T/err" "the lossless codec stores values exactly" "codec and bound must fit"
expect 1 "existing trace refused" -- "$APP" "$T/a.lbt" 2 0
has "$T/err" "exists; the profiler does not overwrite traces" "exists message"

# the mesh by element ids, with coordinates and adjacency
expect 0 "elements run" -- "${MPI[@]}" -n 2 "$APP" "$T/e.lbt" 3 0 elements
expect 0 "elements info" -- "$LBSIM" trace info "$T/e.lbt" --json
python3 -c "
import json; d = json.load(open('$T/out'))
assert d['elements'] == 800 and d['steps'] == 3, d
assert 'unstructured' in json.dumps(d) and '1598' in json.dumps(d), d" && ok || bad "elements trace: $(cat "$T/out")"
expect 0 "elements trace check" -- "$LBSIM" trace check "$T/e.lbt"

# a stand-alone collector
"$LBSIM" collect --listen "unix:$T/c.sock" -o "$T/b.lbt" 2>"$T/collect.err" &
cpid=$!
for _ in $(seq 50); do [ -S "$T/c.sock" ] && break; sleep 0.1; done
expect 1 "a run without the collector's token" -- "${MPI[@]}" -n 2 "$APP" "unix:$T/c.sock" 8 0
has "$T/err" "needs its token file: set LBSPROF_TOKEN_FILE" "the token is asked for"
expect 0 "run against lbsim collect" -- env LBSPROF_TOKEN_FILE="$T/b.lbt.token" "${MPI[@]}" -n 2 "$APP" "unix:$T/c.sock" 8 0
wait $cpid && ok || bad "lbsim collect exit: $(cat "$T/collect.err")"
[ "$(steps "$T/b.lbt")" = 8 ] && ok || bad "collect: $(steps "$T/b.lbt") steps"
[ ! -e "$T/b.lbt.token" ] && [ ! -e "$T/c.sock" ] && ok || bad "the collector left its token or socket"
expect 2 "collect without -o" -- "$LBSIM" collect --listen "unix:$T/d.sock"

# The faults below in streaming compaction: what a fault must not lose. A deferred agent
# (LBSPROF_COMPACT=deferred, and auto on a node without a spare core) sends nothing before the
# ranks end: its cases follow these.
export LBSPROF_COMPACT=stream
# the agent killed mid-run: the application finishes, warns once per rank, complete steps stay
"${MPI[@]}" -n 2 "$APP" "$T/k.lbt" 60 40 >"$T/k.out" 2>"$T/k.err" &
mpid=$!
agent_up "$T/k.lbt"
sleep 0.8
kill_agent "$T/k.lbt" 9 && ok || bad "no agent to kill"
wait $mpid && ok || bad "application failed after the agent was killed: $(tail -3 "$T/k.err")"
has "$T/k.out" "done 60" "finished without its agent"
n=$(grep -c "the node agent is gone" "$T/k.err")
[ "$n" -ge 1 ] && [ "$n" -le 2 ] && ok || bad "warnings: $n"
gone "$T/k.lbt" || bad "collector still running"
expect 0 "agent killed: trace check" -- "$LBSIM" trace check "$T/k.lbt"
s=$(steps "$T/k.lbt"); [ "$s" -ge 1 ] && [ "$s" -lt 60 ] && ok || bad "agent killed: $s steps"
[ "$(meta "$T/k.lbt" profiler.complete)" = no ] && ok || bad "agent killed: complete should be no"

# the collector killed: agents retry, give up with a message; the application finishes
LBSPROF_RETRY_S=1 "${MPI[@]}" -n 2 "$APP" "$T/c2.lbt" 80 40 >"$T/c2.out" 2>"$T/c2.err" &
mpid=$!
agent_up "$T/c2.lbt"
sleep 0.8
pkill -9 -f "collect .*$T/c2.lbt" && ok || bad "no collector to kill"
wait $mpid && ok || bad "application failed after the collector was killed: $(tail -3 "$T/c2.err")"
has "$T/c2.out" "done 80 finalize 1" "finished, finalize reports the incomplete trace"
has "$T/c2.err" "giving up" "agent gives up"
# its complete steps are readable, and trace check says the trace is not whole
expect 0 "collector killed: the steps read" -- "$LBSIM" trace info "$T/c2.lbt" --no-values
expect 1 "collector killed: trace check" -- "$LBSIM" trace check "$T/c2.lbt"
has "$T/err" "steps: the collector did not finish (no profiler.complete)" "collector killed: named unfinished"
s=$(steps "$T/c2.lbt"); [ "$s" -ge 1 ] && [ "$s" -lt 80 ] && ok || bad "collector killed: $s steps"

# the same two faults in a run that migrates every 5 steps: the complete steps stay, each with
# its owners recorded before it
for fault in agent collector; do
  LBSPROF_RETRY_S=1 "${MPI[@]}" -n 2 "$APP" "$T/m$fault.lbt" 80 40 remap >"$T/m.out" 2>"$T/m.err" &
  mpid=$!
  agent_up "$T/m$fault.lbt"
  sleep 1.2
  if [ $fault = agent ]; then kill_agent "$T/m$fault.lbt" 9 && ok || bad "no agent to kill"
  else pkill -9 -f "collect .*$T/m$fault.lbt" && ok || bad "no collector to kill"; fi
  wait $mpid && ok || bad "remap, $fault killed: the application failed: $(tail -3 "$T/m.err")"
  has "$T/m.out" "done 80" "remap, $fault killed: finished"
  gone "$T/m$fault.lbt"
  s=$(steps "$T/m$fault.lbt"); [ "$s" -ge 1 ] && [ "$s" -lt 80 ] && ok || bad "remap, $fault killed: $s steps"
  python3 - "$LBSIM" "$T/m$fault.lbt" <<'PY' && ok || bad "remap, $fault killed: owners $(owners "$T/m$fault.lbt")"
import subprocess, sys, json
d = json.loads(subprocess.run([sys.argv[1], "trace", "info", sys.argv[2], "--json", "--no-values"],
                              capture_output=True, text=True).stdout)
last = d["steps"] - 1  # the complete steps are 0..last
want = [0] + [k for k in range(5, 80, 5) if k <= last]  # each remap up to the last step written
assert d["owners"]["steps"] == want, (d["owners"], want)
PY
done
[ "$(meta "$T/magent.lbt" profiler.complete)" = no ] && ok || bad "remap, agent killed: complete should be no"
unset LBSPROF_COMPACT

# deferred compaction: the agent spools the steps (remaps in their place) and compacts them after
# the ranks end; the trace is the one streaming writes, complete
for mode in stream deferred; do
  expect 0 "remap run, $mode" -- env LBSPROF_COMPACT=$mode LBSPROF_LOG=debug "${MPI[@]}" -n 2 "$APP" "$T/d$mode.lbt" 40 0 remap
  cp "$T/err" "$T/d$mode.err"
  expect 0 "remap run, $mode: trace check" -- "$LBSIM" trace check "$T/d$mode.lbt"
  [ "$(steps "$T/d$mode.lbt")" = 40 ] && ok || bad "$mode: $(steps "$T/d$mode.lbt") steps of 40"
  [ "$(meta "$T/d$mode.lbt" profiler.complete)" = yes ] && ok || bad "$mode: not complete"
done
has "$T/ddeferred.err" "spooling the steps, to compact them after the run" "deferred: spooled"
grep -q "spooling" "$T/dstream.err" && bad "stream: spooled" || ok
[ "$(owners "$T/ddeferred.lbt")" = "$(owners "$T/dstream.lbt")" ] && ok ||
  bad "deferred owners $(owners "$T/ddeferred.lbt") differ from streaming's $(owners "$T/dstream.lbt")"
# auto: deferred when the node's ranks have every CPU the agent may use
expect 0 "auto" -- env LBSPROF_COMPACT=auto LBSPROF_LOG=debug "${MPI[@]}" -n 2 "$APP" "$T/dauto.lbt" 10 0
has "$T/err" "node 0: 2 local ranks on $(nproc) CPUs: $([ "$(nproc)" -gt 2 ] && echo "a spare CPU" || echo "no spare CPU")" "auto decides by the CPUs"
# a deferred agent whose collector is killed: it gives up (naming the spooled records it loses
# when the collector went before they did); the application finishes
LBSPROF_COMPACT=deferred LBSPROF_RETRY_S=1 "${MPI[@]}" -n 2 "$APP" "$T/dk.lbt" 80 40 >"$T/dk.out" 2>"$T/dk.err" &
mpid=$!
agent_up "$T/dk.lbt"
sleep 0.8
pkill -9 -f "collect .*$T/dk.lbt" && ok || bad "no collector to kill"
wait $mpid && ok || bad "deferred, collector killed: the application failed: $(tail -3 "$T/dk.err")"
has "$T/dk.out" "done 80 finalize 1" "deferred, collector killed: finished, finalize reports it"
has "$T/dk.err" "giving up: the " "deferred, collector killed: the agent gives up"

# the application killed: the trace is valid up to its last complete step
"${MPI[@]}" -n 2 "$APP" "$T/x.lbt" 200 40 >"$T/x.out" 2>"$T/x.err" &
mpid=$!
agent_up "$T/x.lbt"
sleep 1
pkill -9 -f "^$APP $T/x.lbt" && ok || bad "no ranks to kill"
wait $mpid 2>/dev/null
gone "$T/x.lbt" && ok || bad "agent or collector still running after the application died"
expect 0 "application killed: trace check" -- "$LBSIM" trace check "$T/x.lbt"
s=$(steps "$T/x.lbt"); [ "$s" -ge 1 ] && [ "$s" -lt 200 ] && ok || bad "application killed: $s steps"
[ "$(meta "$T/x.lbt" profiler.complete)" = no ] && ok || bad "application killed: complete should be no"

# a full ring: the agent stopped for a while. drop: samples dropped and counted; wait: none
for mode in drop wait; do
  "${MPI[@]}" -n 1 "$APP" "$T/$mode.lbt" 60 15 $mode 4096 >"$T/$mode.out" 2>"$T/$mode.err" &
  mpid=$!
  agent_up "$T/$mode.lbt"
  sleep 0.2
  kill_agent "$T/$mode.lbt" STOP || bad "$mode: no agent to stop"
  sleep 0.6
  kill_agent "$T/$mode.lbt" CONT
  wait $mpid && ok || bad "$mode: application failed: $(tail -3 "$T/$mode.err")"
  gone "$T/$mode.lbt"
  expect 0 "$mode: trace check" -- "$LBSIM" trace check "$T/$mode.lbt"
  s=$(steps "$T/$mode.lbt") d=$(meta "$T/$mode.lbt" profiler.dropped_steps)
  [ "$(meta "$T/$mode.lbt" profiler.on_full)" = "$mode" ] && ok || bad "$mode: on_full in metadata"
  if [ $mode = drop ]; then
    [ "$d" -gt 0 ] && [ "$s" -lt 60 ] && [ $((s + d)) -eq 60 ] && ok || bad "drop: $s steps, $d dropped"
    has "$T/$mode.err" "dropped" "drop mode says so"
  else
    [ "$d" = 0 ] && [ "$s" = 60 ] && ok || bad "wait: $s steps, $d dropped"
  fi
done

finish
