#!/usr/bin/env bash
# bench/objlb.sh - the object-level balancers (objlb:greedy, objlb:refine, objlb:tempered) beside
# the graph partitioners zoltan:rcb and metis:kway (metis:kway:speed on heterogeneous grids),
# all from the same start (equal blocks of element ids), in one run each:
#   1. an N-body trace (4000 bodies) and a bump trace (30x20x20 cells), as the tests make them,
#      and the seed's HO and UP grids (16 processors, 4 clusters, slowdown 100);
#   2. lbsim partition --json on step 2 of each, on each grid: work imbalance (max/avg against the
#      processors' shares), elements moved, edge cut, wall time (best of 3);
#   3. lbsim replay --json of the bump trace with a repartition every 5 steps: total time and its
#      parts (partition time from each partitioner's cost model), elements moved.
# A table in Markdown on stdout. Wall times are noisy on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_objlb}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_MCA_ess_singleton_isolated=1
echo "bench/objlb: $(date -u +%FT%TZ), $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg)"
[ -s "$W/nb.lbt" ] || $B/lbsim trace gen --kind nbody --bodies 4000 --steps 3 -o "$W/nb.lbt" 2>/dev/null
[ -s "$W/b.lbt" ] || $B/lbsim trace gen --kind bump --mesh 30x20x20 --steps 20 -o "$W/b.lbt" 2>/dev/null
for f in HO UP; do
  [ -s "$W/$f.ini" ] || $B/lbsim grid gen --family $f --procs 16 --clusters 4 --slowdown 100 \
    -o "$W/$f.ini" 2>/dev/null
done
OBJ=objlb:greedy,objlb:refine,objlb:tempered
echo
echo "| trace | grid | partitioner | work max/avg | moved | edge cut | wall ms (best of 3) |"
echo "|---|---|---|---|---|---|---|"
for t in nb b; do
  for f in HO UP; do
    metis=metis:kway
    [ $f = UP ] && metis=metis:kway,metis:kway:speed
    $B/lbsim partition "$W/$t.lbt" --grid "$W/$f.ini" --step 2 --repeat 3 \
      --partitioner $OBJ,zoltan:rcb,$metis --json 2>/dev/null >"$W/p.json"
    python3 - "$W/p.json" "$t" "$f" <<'EOF'
import json, sys
name = {"nb": "nbody 4000", "b": "bump 30x20x20"}[sys.argv[2]]
for r in json.load(open(sys.argv[1])):
    print("| %s | %s | %s | %.4f | %d | %g | %.2f |" % (name, sys.argv[3], r["partitioner"],
          r["work_imbalance"], r["moved_elements"], r["edge_cut"], 1e3 * r["partition_wall_s"]))
EOF
  done
done
echo
echo "| bump 30x20x20, 20 steps, HO, fixed:5 | total s | compute s | comm s | partition s (model) | migration s | moved | mean_imbalance |"
echo "|---|---|---|---|---|---|---|---|"
for p in objlb:greedy objlb:refine objlb:tempered zoltan:rcb metis:kway; do
  $B/lbsim replay "$W/b.lbt" --grid "$W/HO.ini" --partitioner $p --policy fixed:5 --json \
    2>/dev/null >"$W/r.json"
  python3 - "$W/r.json" "$p" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print("| %s | %.4f | %.4f | %.4f | %.4f | %.4f | %d | %.3f |" % (sys.argv[2], d["total_time_s"],
      d["compute_time_s"], d["comm_time_s"], d["partition_time_s"], d["migration_time_s"],
      d["moved_elements"], d["mean_imbalance"]))
EOF
done
