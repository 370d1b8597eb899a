#!/usr/bin/env bash
# MPI paths across nodes for real: nodes made on this machine by scripts/nodes.sh (network and
# UTS namespaces on a bridge, Open MPI launched through a namespace agent), label multinode.
# - the profiler: wave with 2 ranks on each of 2 nodes (and a rank on each of 3) and a
#   repartition, one agent per node, the collector on the bridge address (not loopback), the
#   trace equal to one node's run in everything but timings (arrays and weights, lossless); a
#   tokenless client from a third node refused; a killed agent on one node;
# - the replay in both partitioning modes on 2 ranks over 2 nodes: the same JSON as one node's;
# - grid probe: one cluster per node, ranks not bound to one core; validate across nodes;
# - a sweep across nodes, also killed and resumed: the tidy CSV of one node's;
# - wrong addresses (a bind address of another node, an unroutable collector) and a node lost
#   mid-run (sweep and profiler): clear messages, no hang, the complete work kept;
# - nodes.sh itself: refusals, and nothing left (namespaces, links, bridge, /etc/netns, state)
#   after the test, pass or fail.
# Skipped (exit 77, with the reason) where namespaces cannot be made (not root, no ip).
set -u
LBSIM=${1:?usage: multinode.sh lbsim wave}
WAVE=${2:?}
NODES=$(cd "$(dirname "$0")/../.." && pwd)/scripts/nodes.sh
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
# a set of our own, so that the normal and sanitizer suites can run this at once
export LBS_NODES_PREFIX=m$(($$ % 100000)) LBS_NODES_NET=auto
trap '"$NODES" down; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
. "$(dirname "$0")/lib.sh"
unset LBSPROF_BOUND LBSPROF_CODEC LBSPROF_SAMPLE_EVERY LBSPROF_COLLECTOR LBSPROF_METRICS LBSPROF_ON_FULL
MPI=(mpiexec --allow-run-as-root --oversubscribe)

if [ "$(id -u)" -ne 0 ]; then echo "SKIP: nodes are network namespaces, which need root"; exit 77; fi
if ! "$NODES" up 3 >"$T/up" 2>&1; then
  if grep -q "cannot make\|no 'ip'\|no 'nsenter'" "$T/up"; then
    echo "SKIP: $(cat "$T/up")"
    exit 77
  fi
  bad "nodes.sh up 3: $(cat "$T/up")"
  finish
  exit 1
fi
has "$T/up" "n3 " "three nodes listed"
net=$(sed -n 's/^bridge [^ ]* \([0-9.]*\)\.1\/24$/\1/p' "$T/up")
[ -n "$net" ] && ok || bad "no bridge address in: $(cat "$T/up")"
expect 0 "each node has its own name" -- "$NODES" exec n2 hostname
[ "$(cat "$T/out")" = n2 ] && ok || bad "node n2 is named '$(cat "$T/out")'"
expect 0 "node names resolve inside the nodes" -- "$NODES" exec n1 getent hosts n3
has "$T/out" "$net.13" "n3's address"
h2=$("$NODES" hosts 2 | cut -d, -f1-2) h1=$("$NODES" hosts 1 | cut -d, -f1-2)
# the launcher, as validate and a user call it
X=("$NODES" mpiexec)

# --- the profiler: 2 ranks on each of 2 nodes, against 4 ranks on one node -------------------
wargs=(--quiet --mesh 12x8x8 --steps 24 --schedule 10)
expect 0 "wave profiled on 2 nodes x 2 ranks" -- env LBSPROF_BOUND=lossless LBSPROF_LOG=debug \
  "${X[@]}" -x LBSPROF_BOUND -x LBSPROF_LOG -n 4 --host "$h2" "$WAVE" "${wargs[@]}" --trace "$T/two.lbt"
has "$T/err" "lbsprof: 4 ranks on 2 nodes" "4 ranks on 2 nodes"
has "$T/err" "lbsprof-agent (node 0): connected to the collector at tcp:$net.11:" "node 0's agent on the bridge"
has "$T/err" "lbsprof-agent (node 1): connected to the collector at tcp:$net.11:" "node 1's agent on the bridge"
has "$T/err" "node 1's agent ($net.12:" "node 1's agent joined from its own address"
grep -q "127.0.0.1\|collector at unix:" "$T/err" && bad "a loopback or unix collector: $(grep -m1 '127.0.0.1\|unix:' "$T/err")" || ok
expect 0 "wave profiled on one node, 4 ranks" -- env LBSPROF_BOUND=lossless \
  "${MPI[@]}" -x LBSPROF_BOUND -n 4 "$WAVE" "${wargs[@]}" --trace "$T/one.lbt"
expect 0 "trace info" -- "$LBSIM" trace info "$T/two.lbt"
has "$T/out" "ranks 4, nodes 2" "the trace says 2 nodes"
has "$T/out" "complete; steps dropped 0, incomplete 0; ranks lost 0" "complete"
arrays() { sqlite3 "$1" "select name, type, count, crc32 from arrays where name not like 'events@%' order by name"; }
a1=$(arrays "$T/one.lbt") a2=$(arrays "$T/two.lbt")
[ -n "$a1" ] && [ "$a1" = "$a2" ] && ok || bad "arrays differ between one node and two: $(diff <(echo "$a1") <(echo "$a2") | head -5)"
echo "$a2" | grep -q "^owners@10|" && ok || bad "no owners recorded at the repartition (step 10): $a2"
for t in one two; do
  "$LBSIM" trace export "$T/$t.lbt" --csv "$T/$t.csv" >/dev/null 2>&1 || bad "export $t"
done
w() { python3 -c "
import csv, sys
r = csv.DictReader(open(sys.argv[1]))
for row in r: print(row['step'], row['element'], row['weight'])" "$1/steps.csv"; }
w1=$(w "$T/one.csv") w2=$(w "$T/two.csv")
[ "$(echo "$w1" | wc -l)" -eq $((24 * 768)) ] && [ "$w1" = "$w2" ] && ok ||
  bad "the weight metric differs between one node and two ($(echo "$w1" | wc -l) values)"

# the same across 3 nodes, a rank each, against 3 ranks on one node
h3=$("$NODES" hosts 1)
expect 0 "wave profiled on 3 nodes x 1 rank" -- env LBSPROF_BOUND=lossless "${X[@]}" -x LBSPROF_BOUND \
  -n 3 --host "$h3" "$WAVE" "${wargs[@]}" --trace "$T/three.lbt"
expect 0 "wave profiled on one node, 3 ranks" -- env LBSPROF_BOUND=lossless "${MPI[@]}" -x LBSPROF_BOUND \
  -n 3 "$WAVE" "${wargs[@]}" --trace "$T/three1.lbt"
expect 0 "trace info (3 nodes)" -- "$LBSIM" trace info "$T/three.lbt"
has "$T/out" "ranks 3, nodes 3, sample_every 1: complete" "the trace says 3 nodes, complete"
a1=$(arrays "$T/three1.lbt") a3=$(arrays "$T/three.lbt")
[ -n "$a1" ] && [ "$a1" = "$a3" ] && ok || bad "arrays differ between one node and three: $(diff <(echo "$a1") <(echo "$a3") | head -5)"

# --- the replay across 2 nodes, in both partitioning modes, against one node ---------------
cat >"$T/g.ini" <<'INI'
[grid]
ns_per_work = 1
[nodetype n]
speed = 1
cores = 1
[cluster c]
nodes = 4
nodetype = n
latency_us = 5
bandwidth_gbps = 10
INI
for mode in rank0 distributed; do
  r=("$LBSIM" replay "$T/two.lbt" --grid "$T/g.ini" --policy fixed:6 --metric weight --json
    --set "sim.partition_mode=$mode")
  expect 0 "replay ($mode) on 2 ranks over 2 nodes" -- "${X[@]}" -n 2 --host "$h1" "${r[@]}"
  cp "$T/out" "$T/rep_two_$mode.json"
  expect 0 "replay ($mode) on 2 ranks of one node" -- "${MPI[@]}" -n 2 "${r[@]}"
  cp "$T/out" "$T/rep_one_$mode.json"
  python3 - "$T/rep_one_$mode.json" "$T/rep_two_$mode.json" "$mode" <<'PY' && ok || bad "replay $mode differs across nodes"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in (a, b):  # what depends on the machine, not on the answer
    for k in ("wall_s", "replay_s", "peak_rss_bytes", "ranks_detail", "provenance", "wall"):
        d.pop(k, None)
def strip(d):
    if isinstance(d, dict):
        return {k: strip(v) for k, v in d.items() if not k.endswith("wall_s") and "rss" not in k and k not in ("ranks", "nodes", "host")}
    if isinstance(d, list):
        return [strip(v) for v in d]
    return d
a, b = strip(a), strip(b)
assert a["total_time_s"] > 0 and a["repartitions"] == 3 and a["moved_elements"] > 0, (sys.argv[3], a)
assert a["partition_mode"] == sys.argv[3], a["partition_mode"]
assert a == b, (sys.argv[3], [k for k in a if a[k] != b.get(k)])
PY
done

# --- grid probe across nodes: a cluster per node, figures between them ---------------------
expect 0 "grid probe on 2 nodes" -- "${X[@]}" -n 2 --host "$h1" "$LBSIM" grid probe --quick -o "$T/p.ini"
has "$T/out" "probed 2 ranks on 2 nodes" "2 nodes probed"
has "$T/out" "between nodes   latency" "between-node figures"
[ "$(grep -c '^\[cluster ' "$T/p.ini")" -eq 2 ] && ok || bad "not one cluster per node: $(grep '^\[' "$T/p.ini")"
# ranks unbound (nodes.sh's default): every node sees the machine's cores, and Open MPI's default
# binding put both nodes' first ranks on core 0, where they time-shared it (2-6 ms between nodes)
mine=$(grep Cpus_allowed_list /proc/self/status)
expect 0 "ranks across nodes unbound" -- "${X[@]}" -n 2 --host "$h1" grep Cpus_allowed_list /proc/self/status
[ "$(sort -u "$T/out")" = "$mine" ] && ok || bad "ranks bound: $(cat "$T/out"), where this shell has $mine"

# --- a collector on node 1 for a run on nodes 1 and 2; a client on node 3 without the token --
CLIENT=$(cd "$(dirname "$0")" && pwd)/lbsprof_client.py
"$NODES" exec n1 "$LBSIM" collect --listen "tcp:$net.11:0" -o "$T/c.lbt" 2>"$T/c.log" &
cpid=$!
addr=
for _ in $(seq 150); do
  addr=$(sed -n 's/^lbsim: collect: listening on //p' "$T/c.log")
  [ -n "$addr" ] && [ -e "$T/c.lbt.token" ] && break
  sleep 0.1
done
[ "${addr%:*}" = "tcp:$net.11" ] && ok || bad "collector on node 1: '$addr' $(cat "$T/c.log")"
expect 0 "a client on node 3 without the token" -- "$NODES" exec n3 python3 "$CLIENT" forge "$addr"
has "$T/out" "closed by the collector" "the tokenless client from another node is dropped"
expect 0 "wave on nodes 1 and 2 into node 1's collector" -- env LBSPROF_COLLECTOR="$addr" \
  LBSPROF_TOKEN_FILE="$T/c.lbt.token" "${X[@]}" -x LBSPROF_COLLECTOR -x LBSPROF_TOKEN_FILE -n 4 \
  --host "$h2" "$WAVE" --quiet --mesh 12x8x8 --steps 8 --trace "$T/c.lbt"
wait $cpid && ok || bad "collector: $(tail -3 "$T/c.log")"
has "$T/c.log" "before the challenge was answered; dropped" "the refusal logged"
expect 0 "the collected trace" -- "$LBSIM" trace info "$T/c.lbt"
has "$T/out" "ranks 4, nodes 2, sample_every 1: complete" "complete from 2 nodes"

# --- node 2's agent killed mid-run: the run goes on, the trace keeps its complete steps --------
LBSPROF_COMPACT=stream "${X[@]}" -x LBSPROF_COMPACT -n 4 --host "$h2" "$WAVE" --quiet --mesh 12x8x8 \
  --steps 400 --trace "$T/k.lbt" </dev/null >"$T/k.out" 2>&1 &
mpid=$!
agent="lbsprof-agent agent .*--node 1 --collector tcp:$net.11:"
for _ in $(seq 300); do pgrep -f "$agent" >/dev/null && break; sleep 0.1; done
sleep 1
pkill -KILL -f "$agent" && ok || bad "no agent on node 2 to kill"
wait $mpid
# the app ends its run, and says (exit 1) that the trace it asked for is incomplete
[ $? -eq 1 ] && ok || bad "wave's exit after node 2's agent was killed: $(tail -3 "$T/k.out")"
has "$T/k.out" "rank 2: the node agent is gone; profiling stops here" "node 2's ranks warn"
has "$T/k.out" "node 1's agent went away before its end" "the collector says which node"
has "$T/k.out" "wave: total" "the run went on to its end"
expect 0 "trace check after the agent was killed" -- "$LBSIM" trace check "$T/k.lbt"
s=$(sqlite3 "$T/k.lbt" "select count(*) from steps")
[ "$s" -ge 1 ] && [ "$s" -lt 400 ] && ok || bad "agent killed: $s steps kept"
[ "$(sqlite3 "$T/k.lbt" "select value from meta where key = 'profiler.complete'")" = no ] && ok ||
  bad "agent killed: the trace says complete"

# --- a sweep on 2 nodes x 2 ranks: the tidy CSV of one node's, also killed and resumed ---------
expect 0 "gen" -- "$LBSIM" trace gen --kind bump --mesh 32x24x16 --steps 120 -o "$T/b.lbt"
cat >"$T/s.ini" <<'INI'
[study]
name = mn
traces = b.lbt
grids = gen:UP:16:4:2, gen:HO:16:4:1
partitioners = zoltan:rcb, zoltan:hsfc
policies = none, fixed:7
[overrides]
grid.barrier_us = 1, 20
INI
expect 0 "sweep on one node, 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" sweep "$T/s.ini" --results "$T/one.db" --csv "$T/one"
expect 0 "sweep on 2 nodes x 2 ranks" -- "${X[@]}" -n 4 --host "$h2" "$LBSIM" sweep "$T/s.ini" --results "$T/two.db" --csv "$T/two"
has "$T/out" "16 tasks (0 resumed)" "all tasks run across nodes"
cmp -s "$T/one/tidy.csv" "$T/two/tidy.csv" && ok || bad "2 nodes and one differ: $(diff "$T/one/tidy.csv" "$T/two/tidy.csv" | head -4)"
# The kill must land between the third run stored and the last: where the sweep ends (or fails)
# before the test sees three runs, or all 16 were stored before the kill landed (a loaded
# machine's scheduling), that try says nothing about resuming: a fresh store and another try.
for try in 1 2 3; do
  rm -rf "$T/k.db" "$T/k.db-journal" "$T/k.db-wal" "$T/kc"
  setsid "${X[@]}" -n 4 --host "$h2" "$LBSIM" sweep "$T/s.ini" --results "$T/k.db" --csv "$T/kc" >"$T/kout" 2>&1 &
  pid=$!
  n=0
  for _ in $(seq 1 1000); do
    [ -s "$T/k.db" ] && n=$(sqlite3 -readonly -cmd ".timeout 2000" "$T/k.db" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)
    [ "${n:-0}" -ge 3 ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.02
  done
  # mpiexec's session, then what runs on the nodes (an orted whose mpiexec is gone ends its ranks)
  pkill -KILL -s "$pid"
  for k in 1 2; do ip netns pids "$LBS_NODES_PREFIX-n$k" | xargs -r kill -KILL; done
  { wait "$pid"; } 2>/dev/null
  n=$( ([ -s "$T/k.db" ] && sqlite3 -cmd ".timeout 5000" "$T/k.db" "SELECT count(*) FROM runs") || echo 0)
  [ "$n" -ge 3 ] && [ "$n" -lt 16 ] && break
  echo "note: try $try: the kill landed with $n of 16 runs stored; $(tail -c 300 "$T/kout")" >&2
done
[ "$n" -ge 3 ] && [ "$n" -lt 16 ] && ok || bad "the kill did not land half-way in 3 tries ($n of 16 runs stored)"
expect 0 "resumed across nodes" -- "${X[@]}" -n 4 --host "$h2" "$LBSIM" sweep "$T/s.ini" --results "$T/k.db" --csv "$T/kc"
has "$T/err" "$n done already (resuming)" "resume says what it skips"
cmp -s "$T/one/tidy.csv" "$T/kc/tidy.csv" && ok || bad "killed and resumed across nodes differs: $(diff "$T/one/tidy.csv" "$T/kc/tidy.csv" | head -4)"

# --- validate: the app's real runs span the nodes --------------------------------------------
expect 0 "wave profiled with a rank on each of 2 nodes" -- "${X[@]}" -n 2 --host "$h1" "$WAVE" "${wargs[@]}" \
  --trace "$T/v.lbt"
expect 0 "validate with ranks on 2 nodes" -- "$LBSIM" validate "$T/v.lbt" --grid "$T/p.ini" --runs 1 \
  --policies none,fixed:6 --mpiexec "$NODES mpiexec --host $h1" --json
python3 - "$T/out" <<'PY' && ok || bad "validate across nodes: $(head -c 300 "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert [p["policy"] for p in d["policies"]] == ["none", "fixed:6"], d["policies"]
assert all(len(p["measured_s"]) == 1 and p["measured_s"][0] > 0 for p in d["policies"]), d["policies"]
PY

# --- the profiler's addresses wrong: clear messages, no hang -------------------------------------
# LBSPROF_COLLECTOR_BIND naming node 2's address: rank 0 (on node 1) cannot listen there
expect 1 "a bind address of another node" -- env LBSPROF_COLLECTOR_BIND="$net.12" timeout -s KILL 60 \
  "${X[@]}" -x LBSPROF_COLLECTOR_BIND -n 4 --host "$h2" "$WAVE" --quiet --mesh 12x8x8 --steps 4 --trace "$T/bind.lbt"
has "$T/err" "lbsprof: cannot listen on tcp:$net.12:0: Cannot assign requested address" "bind refused with the address"
# a collector no node can route to: each node's agent gives up after LBSPROF_RETRY_S
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/tok"
chmod 600 "$T/tok"
expect 1 "an unroutable collector" -- env LBSPROF_RETRY_S=2 LBSPROF_COLLECTOR=tcp:10.213.255.1:4000 \
  LBSPROF_TOKEN_FILE="$T/tok" timeout -s KILL 60 "${X[@]}" -x LBSPROF_RETRY_S -x LBSPROF_COLLECTOR \
  -x LBSPROF_TOKEN_FILE -n 4 --host "$h2" "$WAVE" --quiet --mesh 12x8x8 --steps 4 --trace "$T/unr.lbt"
has "$T/err" "lbsprof-agent (node 1): the collector at tcp:10.213.255.1:4000 is unreachable" "node 1's agent says so"
has "$T/err" "a node agent did not deliver every step" "the app says the trace is incomplete"

# --- a node that disappears mid-run: its link down, then its processes killed ----------------
# (nodes.sh's launcher has Open MPI probe its daemons' connections after 5 s idle: the default
# would hang 8 minutes on a link that carries nothing more, not even a reset)
# a lost node found in about 4 s rather than 8 (the launcher's keepalives)
export LBS_NODES_KEEPALIVE="2 1 2"
lose_n2() {
  ip link set "${LBS_NODES_PREFIX}n2" down
  sleep 0.5
  ip netns pids "$LBS_NODES_PREFIX-n2" | xargs -r kill -KILL
}
rm -f "$T/k.db"
timeout -s KILL 120 "${X[@]}" -n 4 --host "$h2" "$LBSIM" sweep "$T/s.ini" --results "$T/k.db" \
  --csv "$T/kc2" </dev/null >"$T/lout" 2>&1 &
pid=$!
n=0
for _ in $(seq 1 1000); do
  [ -s "$T/k.db" ] && n=$(sqlite3 -readonly -cmd ".timeout 2000" "$T/k.db" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)
  [ "${n:-0}" -ge 3 ] && break
  sleep 0.02
done
lose_n2
wait $pid
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 137 ] && ok || bad "the sweep that lost node 2: exit $rc (137: it hung)"
has "$T/lout" "ORTE has lost communication with a remote daemon" "Open MPI says a node was lost"
n=$(sqlite3 -cmd ".timeout 5000" "$T/k.db" "SELECT count(*) FROM runs")
# node 1's ranks may finish the tasks left before Open MPI ends the job: a store holding each run once
[ "$n" -ge 3 ] && [ "$(sqlite3 "$T/k.db" "SELECT count(DISTINCT task) FROM runs")" = "$n" ] && ok ||
  bad "the store after node 2 was lost: $n runs"
ip link set "${LBS_NODES_PREFIX}n2" up
expect 0 "the sweep resumed on node 1 alone" -- "${X[@]}" -n 2 --host "$(echo "$h2" | cut -d, -f1)" \
  "$LBSIM" sweep "$T/s.ini" --results "$T/k.db" --csv "$T/kc2"
has "$T/err" "$n done already (resuming)" "the resume after a lost node says what it skips"
cmp -s "$T/one/tidy.csv" "$T/kc2/tidy.csv" && ok || bad "resumed after a lost node differs: $(diff "$T/one/tidy.csv" "$T/kc2/tidy.csv" | head -4)"

# the profiler: the collector (on node 1) keeps every step completed before node 2 went away
LBSPROF_COMPACT=stream LBSPROF_CONN_IDLE_S=3 timeout -s KILL 120 "${X[@]}" -x LBSPROF_COMPACT \
  -x LBSPROF_CONN_IDLE_S -n 4 --host "$h2" "$WAVE" --quiet --mesh 12x8x8 --steps 3000 \
  --trace "$T/l.lbt" </dev/null >"$T/lout" 2>&1 &
mpid=$!
for _ in $(seq 300); do pgrep -f "$agent" >/dev/null && break; sleep 0.1; done
sleep 1
lose_n2
wait $mpid
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 137 ] && ok || bad "the profiled run that lost node 2: exit $rc (137: it hung)"
for _ in $(seq 300); do pgrep -f "lbsprof-agent collect .* -o $T/l.lbt" >/dev/null || break; sleep 0.1; done
pgrep -f "lbsprof-agent collect .* -o $T/l.lbt" >/dev/null && bad "the collector still runs 30 s after" || ok
expect 0 "trace check after node 2 was lost" -- "$LBSIM" trace check "$T/l.lbt"
expect 0 "trace info after node 2 was lost" -- "$LBSIM" trace info "$T/l.lbt"
has "$T/out" "ranks 4, nodes 2, sample_every 1: did not end cleanly" "the trace says the run did not end"
s=$(sqlite3 "$T/l.lbt" "select count(*) from steps")
[ "$s" -ge 1 ] && [ "$s" -lt 3000 ] && ok || bad "node lost: $s steps kept"
ip link set "${LBS_NODES_PREFIX}n2" up

# --- nodes.sh's refusals -------------------------------------------------------------------
expect 1 "exec on a node that does not exist" -- "$NODES" exec n9 true
has "$T/err" "no node 'n9'" "unknown node named"
expect 1 "a prefix too long" -- env LBS_NODES_PREFIX=toolongname "$NODES" status
has "$T/err" "LBS_NODES_PREFIX 'toolongname'" "prefix refused"
expect 1 "a subnet already in use" -- env LBS_NODES_PREFIX=z$(($$ % 100000)) LBS_NODES_NET="$net" "$NODES" up 1
has "$T/err" "subnet $net.0/24 is in use" "subnet in use"
timeout 60 "${X[@]}" -n 1 --host 10.213.255.99:1 hostname </dev/null >"$T/out" 2>&1
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && ok || bad "a host that is no node: exit $rc (124: it hung)"
has "$T/out" "no node '10.213.255.99'" "the agent names the host"

# --- nothing left ----------------------------------------------------------------------------
"$NODES" down
left=$( (ip netns list; ip -br link; ls /etc/netns /run/lbsim-nodes) 2>/dev/null | grep -- "$LBS_NODES_PREFIX" || true)
[ -z "$left" ] && ok || bad "left after down: $left"
finish
