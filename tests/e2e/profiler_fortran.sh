#!/usr/bin/env bash
# The Fortran module end to end on 1 and 2 ranks: the trace holds the values the program set and
# times that follow its work pattern, on their cells across the remap after step 4 (lbsprof_remap),
# whose owners it records, its event remap_s (lbsprof_event_add) and its phase time_ns.work; the arc
# weights and the edge rule of fprof_edges (lbsprof_mesh_weighted, lbsprof_meta), and the same
# weights given per step (lbsprof_edge_weights, stored@step), compared with edge_compare.
set -u
LBSIM=${1:?usage: profiler_fortran.sh lbsim fprof fprof_edges}
FPROF=${2:?usage: profiler_fortran.sh lbsim fprof fprof_edges}
FEDGES=${3:?usage: profiler_fortran.sh lbsim fprof fprof_edges [edge_compare]}
COMPARE=${4:-}
T=$(mktemp -d /tmp/lbs_fprof_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
MPI=(mpiexec --allow-run-as-root --oversubscribe)
for n in 1 2; do
  expect 0 "fortran np$n" -- "${MPI[@]}" -n $n "$FPROF" "$T/f$n.lbt"
  has "$T/out" "fprof done, finalize 0 T" "finished"
  expect 0 "np$n trace check" -- "$LBSIM" trace check "$T/f$n.lbt"
  expect 0 "np$n trace info" -- "$LBSIM" trace info "$T/f$n.lbt"
  has "$T/out" "recorded assignments: 2 (from steps 0, 5)" "np$n: lbsprof_remap after step 4 recorded"
  # lbsprof_phase: the one phase 'work', named in the metadata phases.time_ns
  has "$T/out" "time_ns.work" "np$n: the phase's metric"
  [ "$(sqlite3 "$T/f$n.lbt" "SELECT value FROM meta WHERE key='phases.time_ns'")" = time_ns.work ] &&
    ok || bad "np$n: phases.time_ns"
  # lbsprof_event_add: 0.25 s x (rank + 1) on each rank at step 4, in step 5's record
  # (then the profiler's own outside_s)
  has "$T/out" "events    remap_s $([ $n = 1 ] && echo 0.25 || echo 0.75) s, outside_s " \
    "np$n: the event's total"
  expect 0 "np$n export" -- "$LBSIM" trace export "$T/f$n.lbt" --csv "$T/csv$n" --steps 0:9
  python3 - "$T/csv$n/steps.csv" $n <<'PY' && ok || bad "np$n values"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 9 * 2048, len(rows)
t = {}
for r in rows:
    e = int(r["element"]); x, y = e % 64, e // 64
    u = 1 + (x + 64 * y) % 4
    assert abs(float(r["weight"]) - u) <= 0.005 * u, (r, u)  # the default bound, rel:0.005
    t.setdefault(e, []).append(float(r["time_ns"]))
def rank(v):  # average ranks, ties shared
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    i = 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2
        i = j + 1
    return r

# per rank (its slab of x), each time divided by the median time of its row in that step: two
# ranks on this VM's two (hyper)threads slow each other while both compute, so a rank's speed
# drifts within a step; a row of its slab (32 cells, each weight 8 times) sees one speed. The
# median, not the mean: on a loaded machine one element of a row is often preempted for
# milliseconds, and a mean would carry that into the whole row
ranks = int(sys.argv[2])
steps = len(next(iter(t.values())))
row = lambda e, k: (e // 64, k)
norm = {}
for s in range(steps):
    rows = {}
    for e, v in t.items():
        rows.setdefault(row(e, (e % 64) * ranks // 64), []).append(v[s])
    med = {key: statistics.median(vals) for key, vals in rows.items()}
    for e, v in t.items():
        norm.setdefault(e, []).append(v[s] / med[row(e, (e % 64) * ranks // 64)])
worst = 1
for k in range(ranks):
    es = [e for e in sorted(t) if 64 * k // ranks <= e % 64 < 64 * (k + 1) // ranks]
    us = rank([1 + (e % 64 + 64 * (e // 64)) % 4 for e in es])  # Spearman: ranks
    ts = rank([statistics.median(norm[e]) for e in es])
    mu, mt = statistics.mean(us), statistics.mean(ts)
    cov = sum((a - mu) * (b - mt) for a, b in zip(us, ts))
    worst = min(worst, cov / (sum((a - mu) ** 2 for a in us) * sum((b - mt) ** 2 for b in ts)) ** 0.5)
print("correlation", worst)
assert worst >= 0.9, worst
PY
done
# lbsprof_mesh_weighted and lbsprof_meta: the ring's arc weights (i -> i+1: 1 + i, i -> i-1: 0)
# in the mesh, and the edge rule, on 1 and 2 ranks
for n in 1 2; do
  expect 0 "fortran edges np$n" -- "${MPI[@]}" -n $n "$FEDGES" "$T/e$n.lbt"
  has "$T/out" "fprof_edges done, finalize 0" "edges np$n finished"
  expect 0 "edges np$n trace info" -- "$LBSIM" trace info "$T/e$n.lbt"
  has "$T/out" "edges     flag*rwgt[target]" "np$n: the edge rule"
  expect 0 "edges np$n mesh" -- "$LBSIM" trace export "$T/e$n.lbt" --steps-dir "$T/sd$n" --step 0
  python3 - "$T/sd$n/mesh.graph" <<'PY' && ok || bad "np$n: the arc weights $(cat "$T/sd$n/mesh.graph")"
import sys
rows = [l.split() for l in open(sys.argv[1]).readlines()[2:]]
for i, r in enumerate(rows):  # Chaco: 1-based neighbour, weight
    got = {int(r[k]) - 1: float(r[k + 1]) for k in range(0, len(r), 2)}
    assert got == {(i + 1) % 8: 1.0 + i, (i + 7) % 8: 0.0}, (i, got)
assert len(rows) == 8
PY
  # lbsprof_edge_weights: the same products given per step (stored@step), the rule's weights
  [ -n "$COMPARE" ] || continue
  expect 0 "fortran stored edges np$n" -- "${MPI[@]}" -n $n "$FEDGES" "$T/w$n.lbt" stored
  has "$T/out" "fprof_edges done, finalize 0" "stored edges np$n finished"
  expect 0 "stored edges np$n: the rule's weights" -- "$COMPARE" "$T/e$n.lbt" "$T/w$n.lbt"
  has "$T/out" "3 steps, 16 arcs, 3 arrays" "np$n: an array at each step"
done
finish
