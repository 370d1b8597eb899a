"""Reads an `lbsim export vt` directory (plain JSON) on its own and checks it against independent
sources (e2e.export_vt):
  - the form vt's LB data has: metadata {type "LBDatafile", rank = the file's, phases.count},
    one phase per replayed step with the same ids in every file, each task once per phase over
    all files, on the file's processor (node = rank), a seq_id entity with home and migratable
  - the owners: `lbsim replay --results r.db --save-assignment` of the same replay (table
    assignment: the initial partition at the window's first step - 1, then the one after each
    repartition at the trace step it preceded): node = the replay's owner at each step, home = the
    owner at the first step
  - the times: `lbsim trace export --csv` (steps.csv, 17 digits): time = value / 1e9 exactly
usage: export_vt_check.py DIR RESULTS.DB CSVDIR METRIC
       export_vt_check.py --nodes DIR SRC
With --nodes, DIR is the export (--policy recorded) of the import of vt_nodes.py's data SRC:
tests/e2e/vt_nodes.py's export check (absent tasks left out of their phases, node elements as the
node ends of CollectionToNode / NodeToCollection, their bytes as SRC's).
Prints what it compared; exits 0 when everything agrees, else 1 with what differs."""
import csv
import json
import os
import re
import sqlite3
import sys

if sys.argv[1] == "--nodes":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import vt_nodes
    sys.exit(vt_nodes.export(sys.argv[2], sys.argv[3]))

out, db, csvdir, metric = sys.argv[1:5]

files = sorted((int(m.group(1)), f) for f in os.listdir(out)
               for m in [re.fullmatch(r"data\.(\d+)\.json", f)] if m)
assert files and [r for r, _ in files] == list(range(len(files))), files
P = len(files)

con = sqlite3.connect(db)
(run, procs) = con.execute("SELECT id, procs FROM runs ORDER BY id DESC LIMIT 1").fetchone()
assert procs == P, ("one file per processor", procs, P)
assign = {}  # trace step the partition starts at -> element -> part
for step, el, part in con.execute("SELECT step, element, part FROM assignment WHERE run=?", (run,)):
    assign.setdefault(step, {})[el] = part
first = min(assign) + 1
E = len(assign[first - 1])


def owner_at(step):
    """The partition in force at trace step `step`: the last one stored at or before it."""
    return assign[max(k for k in assign if k <= step)]


values = {}  # (step, element) -> the metric's value, as the trace stores it
with open(os.path.join(csvdir, "steps.csv")) as f:
    for row in csv.DictReader(f):
        values[(int(row["step"]), int(row["element"]))] = float(row[metric])

seen = {}  # (phase id, element) -> the file's rank
ids = None
ntime = nnode = 0
for rank, name in files:
    with open(os.path.join(out, name)) as f:
        doc = json.load(f)
    md = doc["metadata"]
    assert md["type"] == "LBDatafile" and md["rank"] == rank, (name, md)
    phases = doc["phases"]
    assert md["phases"]["count"] == len(phases), (name, md["phases"], len(phases))
    mine = [ph["id"] for ph in phases]
    assert ids is None or mine == ids, (name, "other phase ids", mine[:5], ids[:5])
    ids = mine
    for ph in phases:
        s = ph["id"]
        own = owner_at(s)
        for t in ph["tasks"]:
            en = t["entity"]
            el = en["seq_id"]
            assert en["migratable"] is True and en["type"] == "object", en
            assert en["home"] == owner_at(first)[el], ("home", el, en["home"], owner_at(first)[el])
            assert t["node"] == rank, ("node is the file's rank", name, s, el, t["node"])
            assert own[el] == rank, ("step %d element %d: on %d in the replay, in %s" % (s, el, own[el], name))
            assert (s, el) not in seen, ("twice", s, el, seen[(s, el)], rank)
            seen[(s, el)] = rank
            nnode += 1
            v = values[(s, el)]
            assert t["time"] == v / 1e9, ("time", s, el, t["time"], v)
            ntime += 1
        for c in ph.get("communications", []):
            assert c["type"] == "SendRecv" and c["bytes"] > 0 and c["messages"] == 1, c
            assert own[c["to"]["seq_id"]] == rank, ("a communication in its receiver's file", c)
assert ids == list(range(first, first + len(ids))), ("phase ids are the window's steps", ids[:5], first)
assert len(seen) == E * len(ids), ("every task in every phase", len(seen), E, len(ids))
print("checked %d files, %d phases: %d nodes against the replay's owners, %d times against the trace"
      % (P, len(ids), nnode, ntime))
