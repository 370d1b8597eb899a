#!/usr/bin/env bash
# lbsim grid probe on 2 ranks writes a grid of this machine that loads (one processor per rank,
# measured links, barrier and partitioning constants, the migration model fitted to Zoltan_Migrate);
# a replay on it charges more migration than on the same grid without the model (the links alone);
# on 1 rank it refuses; outputs are safe.
set -u
LBSIM=${1:?usage: grid_probe.sh lbsim}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

expect 0 "probe on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" grid probe -o "$T/m.ini" --quick --json
python3 - "$T/out" <<'PY' && ok || bad "probe json: $(head -c 600 "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ranks"] == 2 and d["nodes"] == 1, d
l = d["intra_node"]
# what was measured is this machine as it was: on 2 busy cores a ping-pong between two spinning
# ranks waits on the scheduler (a make check run measured 3.4 ms for 8 B, more than for 2 MiB),
# so the figures are checked for form, not size
assert l["latency_us"] > 0 and l["bandwidth_gbps"] > 0, l
sizes = [s for s, _ in l["sizes"]]
assert sizes[0] == 8 and sizes[-1] == 2 << 20, sizes
times = [t for _, t in l["sizes"]]
assert all(t > 0 for t in times), times
assert d["barrier_us"] > 0 and d["partition"]["per_elem_ns"] >= 0 and d["partition"]["fixed_us"] >= 0
assert len(d["partition"]["samples"]) == 4 and d["partition"]["samples"][3][1] > d["partition"]["samples"][0][1]
m = d["migration"]
assert m["fixed_us"] >= 0 and m["per_elem_ns"] >= 0 and m["gbps"] >= 0 and m["fit_rms"] >= 0, m
assert len(m["samples"]) == 9 and all(t > 0 for _, _, t in m["samples"]), m["samples"]
assert [e for e, _, _ in m["samples"]][::3] == [1024, 4096, 16384], m["samples"]
# 8192 elements of 4096 B take longer than 512 of 64 B, whatever the machine's load
assert m["samples"][-1][2] > m["samples"][0][2], m["samples"]
PY
expect 0 "the probed grid loads" -- "$LBSIM" grid info "$T/m.ini" --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["procs"] == 2 and d["migration"]["gbps"] >= 0, d' "$T/out" && ok || bad "2 processors and the migration model"
has "$T/m.ini" "barrier_us = " "barrier cost written"
has "$T/m.ini" "partition_per_elem_ns = " "partitioning constants written"
for k in migration_fixed_us migration_per_elem_ns migration_gbps; do has "$T/m.ini" "$k = " "$k written"; done
# the model in place of the links: more migration than the links alone (the probe's links are
# this machine's shared memory, a few GB/s, where a real migration packs and unpacks each element)
"$LBSIM" trace gen --kind bump --mesh 16x10x8 --steps 40 -o "$T/b.lbt" 2>/dev/null
grep -v '^migration_' "$T/m.ini" >"$T/links.ini"
mig() { "$LBSIM" replay "$T/b.lbt" --grid "$1" --policy fixed:10 --json |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["migration_time_s"])'; }
with=$(mig "$T/m.ini") without=$(mig "$T/links.ini")
python3 -c 'import sys; w, o = map(float, sys.argv[1:]); assert w > o > 0, (w, o)' "$with" "$without" &&
  ok || bad "migration with the model $with s, with the links $without s"
expect 0 "the model on 2 lbsim ranks" -- "${MPI[@]}" -n 2 "$LBSIM" replay "$T/b.lbt" --grid "$T/m.ini" --policy fixed:10 --json
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["migration_time_s"] == float(sys.argv[2])' "$T/out" "$with" &&
  ok || bad "the modelled migration differs on 2 ranks: $(head -c 300 "$T/out")"
expect 1 "an existing output without -f" -- "${MPI[@]}" -n 2 "$LBSIM" grid probe -o "$T/m.ini" --quick
has "$T/err" "exists" "existing output refused"
expect 0 "replaced with -f" -- "${MPI[@]}" -n 2 "$LBSIM" grid probe -o "$T/m.ini" --quick -f
expect 1 "one rank" -- "${MPI[@]}" -n 1 "$LBSIM" grid probe -o "$T/one.ini"
has "$T/err" "needs at least 2 MPI ranks" "one rank refused"
[ ! -e "$T/one.ini" ] && ok || bad "nothing written on one rank"
mkfifo "$T/fifo"
expect 1 "a FIFO as output" -- timeout 20 "${MPI[@]}" -n 2 "$LBSIM" grid probe -o "$T/fifo" -f --quick
expect 1 "an unknown partitioner" -- "${MPI[@]}" -n 2 "$LBSIM" grid probe -o "$T/p.ini" --partitioner zoltan:nope
expect 2 "no output" -- "$LBSIM" grid probe
finish
