#!/usr/bin/env bash
# Seed 003's experiments (Harvey, Das & Biswas: MinEX vs METIS on simulated grids, slides
# 17-24): the N-body partitioning graph of a Plummer sphere (16K and 64K bodies) on HO/UP/DN
# grids with P in {32, 64, 128}, C in {4, 8}, I in {10, 100}; the projected run time of one
# step and LoadImb of MinEX-G, MinEX-Gm and METIS-Gm (equal parts, as in the seed), and the
# partitioners' wall time for P from 8 to 1024 (slide 22). All partitioners of a row run on
# the same graph in the same lbsim call.
#
# Cost scale: ns_per_work = NPW ns per body interaction (default 20: about 40 flops at
# 2 Gflop/s), 32 bytes per body sent, 64 per body moved, base link 10 us / 10 Gbit/s.
# Elements start nowhere (--from none): the tables compare partitions, not redistribution.
#
# usage: examples/seed003/run.sh            (full sweep, a few minutes)
#        QUICK=1 examples/seed003/run.sh    (16K bodies, P = 32 only)
# Output: OUT/quality.csv, OUT/speed.csv and the Markdown tables OUT/tables.md (printed).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/../.."
L=${LBSIM:-build/bin/lbsim}
OUT=${OUT:-demo-out/seed003}
NPW=${NPW:-20}
BODIES=${BODIES:-"16384 65536"}
PROCS=${PROCS:-"32 64 128"}
SPEEDP=${SPEEDP:-"8 16 32 64 128 256 512 1024"}
if [ -n "${QUICK:-}" ]; then BODIES=16384 PROCS=32 SPEEDP="8 32 128"; fi
[ -x "$L" ] || make build >/dev/null
mkdir -p "$OUT/grids"
export LBSIM_NO_PROGRESS=1

for B in $BODIES; do
  [ -f "$OUT/nbody$B.lbt" ] || $L trace gen --kind nbody --bodies "$B" --steps 1 -o "$OUT/nbody$B.lbt"
done

grid() { # family P C I -> path
  local g="$OUT/grids/$1-P$2-C$3-I$4.ini"
  [ -f "$g" ] || $L grid gen --family "$1" --procs "$2" --clusters "$3" --slowdown "$4" -o "$g" 2>/dev/null
  echo "$g"
}

row() { # csv prefix, json file: one CSV line per partitioner
  python3 - "$1" "$2" <<'PY'
import json, sys
prefix, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
for r in d:
    print(f'{prefix},{r["partitioner"]},{r["graph"]},{r["runtime_s"]:.9g},{r["loadimb"]:.6g},{r["edge_cut"]:.9g},{r["partition_wall_s"]:.6g}')
PY
}

echo "bodies,family,procs,clusters,slowdown,partitioner,graph,runtime_s,loadimb,edge_cut,partition_wall_s" >"$OUT/quality.csv"
for B in $BODIES; do
  for P in $PROCS; do
    for C in 4 8; do
      for I in 10 100; do
        for F in HO UP DN; do
          g=$(grid $F "$P" $C $I)
          $L partition "$OUT/nbody$B.lbt" --grid "$g" --from none --set grid.ns_per_work="$NPW" \
            --partitioner minex,metis --json >"$OUT/last.json"
          row "$B,$F,$P,$C,$I" "$OUT/last.json" >>"$OUT/quality.csv"
          $L partition "$OUT/nbody$B.lbt" --grid "$g" --from none --set grid.ns_per_work="$NPW" \
            --partitioner minex --graph Gm --json >"$OUT/last.json"
          row "$B,$F,$P,$C,$I" "$OUT/last.json" >>"$OUT/quality.csv"
          echo "quality: $B bodies, $F P=$P C=$C I=$I" >&2
        done
      done
    done
  done
done

echo "bodies,family,procs,clusters,slowdown,partitioner,graph,runtime_s,loadimb,edge_cut,partition_wall_s" >"$OUT/speed.csv"
for B in $BODIES; do
  for P in $SPEEDP; do
    g=$(grid HO "$P" 4 10)
    $L partition "$OUT/nbody$B.lbt" --grid "$g" --from none --repeat 3 --partitioner minex,metis --json >"$OUT/last.json"
    row "$B,HO,$P,4,10" "$OUT/last.json" >>"$OUT/speed.csv"
    $L partition "$OUT/nbody$B.lbt" --grid "$g" --from none --repeat 3 --partitioner minex --graph Gm --json >"$OUT/last.json"
    row "$B,HO,$P,4,10" "$OUT/last.json" >>"$OUT/speed.csv"
    echo "speed: $B bodies, P=$P" >&2
  done
done
rm -f "$OUT/last.json"
python3 "$HERE/tables.py" "$OUT/quality.csv" "$OUT/speed.csv" | tee "$OUT/tables.md"
