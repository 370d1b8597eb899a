#!/usr/bin/env bash
# bench/pinned.sh - what pinned elements cost a partitioner (issue 32, item 2), side by side with
# its baseline in one run: the same DARMA vt data (tests/e2e/pinned_vt.py: N migratable tasks in a
# chain, two heavy objgroups, one task created and one destroyed) imported twice, with the
# objgroups pinned (not migratable) and, the baseline, migratable (FREE=1). `lbsim partition`
# then partitions step 1 onto 2 processors with each partitioner, REPS times alternating (each
# --repeat 3, the fastest kept), and prints the median partitioning wall time and the work
# imbalance against the grid's shares. Pinned, Zoltan and METIS go through lbs_part_run's generic
# path (the migratable elements renumbered, part sizes less the pinned load), objlb keeps them
# itself (LBS_PART_FIXED); the best a pinned run can do is the heavy objgroup's imbalance.
# usage: bench/pinned.sh [BUILD_DIR [N [REPS]]]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
N=${2:-24000}
REPS=${3:-5}
T=$(mktemp -d /tmp/lbs_pinned_XXXXXX)
trap 'rm -rf "$T"' EXIT
export LBSIM_NO_PROGRESS=1
mkdir -p "$T/pinned" "$T/free"
python3 tests/e2e/pinned_vt.py write "$T/pinned" "$N"
FREE=1 python3 tests/e2e/pinned_vt.py write "$T/free" "$N"
printf '[grid]\nns_per_work = 1\n[cluster A]\nnodes = 2\n' >"$T/g2.ini"
for k in pinned free; do
  "$B/bin/lbsim" trace import --vt "$T/$k" --bound lossless -o "$T/$k.lbt" 2>/dev/null
done
PARTS=zoltan:rcb,zoltan:phg,metis:kway:speed,objlb:greedy,objlb:refine
for r in $(seq "$REPS"); do
  for k in pinned free; do
    "$B/bin/lbsim" partition "$T/$k.lbt" --grid "$T/g2.ini" --step 1 --partitioner "$PARTS" \
      --from block --repeat 3 --json </dev/null >"$T/$k.$r.json" 2>/dev/null
  done
done
python3 - "$T" "$REPS" "$N" <<'PY'
import json, statistics, sys
t, reps, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
runs = {k: [json.load(open(f"{t}/{k}.{r}.json")) for r in range(1, reps + 1)] for k in ("pinned", "free")}
print(f"{n + 4} elements (2 pinned), step 1, 2 processors, median of {reps} (each the fastest of 3)")
print(f"{'partitioner':18} {'pinned ms':>10} {'free ms':>10} {'pinned/free':>11} {'imb pinned':>11} {'imb free':>9}")
for i, p in enumerate(runs["pinned"][0]):
    med = {k: statistics.median(run[i]["partition_wall_s"] for run in runs[k]) for k in runs}
    imb = {k: runs[k][0][i]["work_imbalance"] for k in runs}
    print(f"{p['partitioner']:18} {med['pinned'] * 1e3:10.3f} {med['free'] * 1e3:10.3f} "
          f"{med['pinned'] / med['free']:11.2f} {imb['pinned']:11.4f} {imb['free']:9.4f}")
PY
