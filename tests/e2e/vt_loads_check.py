"""The recorded replay of an imported vt data set against the data set itself, read here on its
own (e2e.vt_loads, bench/vt_import.sh): at every phase, each rank's load is the sum of the times
of the tasks whose node it is (each rounded to the ns, as the import stores a time), and the
replay's compute of that processor at that step (results store, table procs; a grid with
ns_per_work = 1 and equal speeds) must be exactly that sum; so is the phase's largest.
usage: vt_loads_check.py VTDIR RESULTS.DB
Prints how many values it compared; exits 0 when all agree, else 1 with the first that differ."""
import json
import os
import re
import sqlite3
import sys

vtdir, db = sys.argv[1:3]
load = {}  # (phase, rank) -> ns
phases = set()
for f in os.listdir(vtdir):
    if not re.fullmatch(r"data\.\d+\.json", f):
        continue
    with open(os.path.join(vtdir, f)) as fh:
        doc = json.load(fh)
    for ph in doc["phases"]:
        phases.add(ph["id"])
        for t in ph["tasks"]:
            key = (ph["id"], t["node"])
            load[key] = load.get(key, 0) + round(t["time"] * 1e9)  # half to even, as nearbyint

con = sqlite3.connect(db)
(run, P) = con.execute("SELECT id, procs FROM runs ORDER BY id DESC LIMIT 1").fetchone()
app = dict(con.execute("SELECT step, app_step FROM steps WHERE run=?", (run,)).fetchall())
got = {}
for step, proc, ns in con.execute("SELECT step, proc, compute_ns FROM procs WHERE run=?", (run,)):
    got[(app[step], proc)] = ns
bad = []
n = nmax = 0
for ph in sorted(phases):
    for p in range(P):
        n += 1
        if got.get((ph, p)) != load.get((ph, p), 0):
            bad.append((ph, p, got.get((ph, p)), load.get((ph, p), 0)))
    nmax += 1
    mine = max(load.get((ph, p), 0) for p in range(P))
    theirs = max(got.get((ph, p), -1) for p in range(P))
    if mine != theirs:
        bad.append(("max", ph, theirs, mine))
print("compared %d rank loads and %d phase maxima over %d phases: %d mismatches"
      % (n, nmax, len(phases), len(bad)))
for b in bad[:10]:
    print("mismatch (phase, rank, replay, sum):", b)
sys.exit(1 if bad else 0)
