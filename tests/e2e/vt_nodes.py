"""vt_nodes.py - DARMA vt data with task-to-node traffic for tests/e2e/vt_nodes.sh and
tests/e2e/export_vt.sh, and the checks of what lbsim made of it.

  vt_nodes.py write DIR          three ranks' LB data files, DIR/data.{0,1,2}.json (plain JSON)
  vt_nodes.py comm DB            the per-step comm_ns of the last run in results store DB, as
                                 "c0 c1 c2 c3"
  vt_nodes.py assign DB NAME P [N]  every run's saved assignments in DB (N of them at least, 2
                                 unless given): the node elements on their rank mod P at every
                                 step (prints "NAME: R runs checked, F failures"); and at every
                                 step, communication charged (comm_ns > 0) exactly when an arc of
                                 weight > 0 joins elements on two processors
  vt_nodes.py export DIR SRC     an export vt of the import of SRC (--policy recorded): each phase
                                 holds the tasks SRC has in it (absent ones left out), no node as a
                                 task, and each task's bytes with each node (both directions) as
                                 SRC's, written as CollectionToNode/NodeToCollection

The data: 4 phases on 3 ranks, every task 0.01 s a phase. Task 1 is on rank 0 in phases 0, 1 and
on rank 1 from phase 2; it receives 1000 bytes from node 1 (NodeToCollection) and sends 200 to it
(CollectionToNode) in every phase: charged while it is on rank 0, free once it sits on rank 1.
Task 2 (rank 1) exists in phases 0 and 1 only and sends node 0 500 bytes in phase 0
(CollectionToNodeBcast). Task 3 appears in phase 2 on rank 2 and hears 300 bytes from node 2
(NodeToCollectionBcast), its own rank, in phases 2 and 3. Task 4 sits on rank 2 throughout; task 1
sends it 100 bytes in phase 0. Node 0 broadcasts 50 bytes to node 2 in phase 0 (node to node:
left out). Elements: tasks 1..4 are 0..3, nodes 0, 1, 2 are 4, 5, 6.
"""
import json
import os
import re
import sqlite3
import sys

PHASES = 4
NODE_ELEM = {0: 4, 1: 5, 2: 6}


def where(t, p):
    """the rank task t runs on in phase p, None when absent"""
    if t == 1:
        return 0 if p < 2 else 1
    if t == 2:
        return 1 if p < 2 else None
    if t == 3:
        return 2 if p >= 2 else None
    return 2


def obj(t):
    return {"type": "object", "id": t}


def node(r):
    return {"type": "node", "id": r}


def comms(p):
    """(rank whose file holds it, communication) of phase p"""
    c = [(where(1, p), "NodeToCollection", node(1), obj(1), 1000.0),
         (where(1, p), "CollectionToNode", obj(1), node(1), 200.0)]
    if p == 0:
        c += [(1, "CollectionToNodeBcast", obj(2), node(0), 500.0),
              (0, "SendRecv", obj(1), obj(4), 100.0),
              (0, "Broadcast", node(0), node(2), 50.0)]
    if p >= 2:
        c.append((2, "NodeToCollectionBcast", node(2), obj(3), 300.0))
    return [(r, {"type": ty, "from": a, "to": b, "messages": 1, "bytes": by})
            for r, ty, a, b, by in c]


def write(d):
    os.makedirs(d, exist_ok=True)
    for r in range(3):
        phases = []
        for p in range(PHASES):
            tasks = [{"entity": {"type": "object", "id": t, "home": where(t, 0) or 0,
                                 "migratable": True, "index": [t]},
                      "node": r, "resource": "cpu", "time": 0.01}
                     for t in (1, 2, 3, 4) if where(t, p) == r]
            phases.append({"id": p, "tasks": tasks,
                           "communications": [c for q, c in comms(p) if q == r]})
        with open(f"{d}/data.{r}.json", "w") as f:
            json.dump({"type": "LBDatafile", "metadata": {"type": "LBDatafile", "rank": r},
                       "phases": phases}, f)


def comm(db):
    con = sqlite3.connect(db)
    (run,) = con.execute("SELECT max(id) FROM runs").fetchone()
    rows = con.execute("SELECT step, comm_ns FROM steps WHERE run=? ORDER BY step", (run,))
    print(" ".join(str(c) for _, c in rows))
    return 0


def assign(db, name, procs, least=2):
    con = sqlite3.connect(db)
    runs = con.execute("SELECT id, partitioner FROM runs").fetchall()
    fails = 0 if runs else 1
    for run, part in runs:
        rows = con.execute("SELECT step, element, part FROM assignment WHERE run=?", (run,))
        n = 0
        for s, e, p in rows:
            for r, el in NODE_ELEM.items():
                if e == el:
                    n += 1
                    if p != r % procs:
                        print(f"FAIL {name} {part}: node {r} (element {el}) on {p} at step {s}")
                        fails += 1
        fails += crossing(con, run, name, part)
        if n < least * len(NODE_ELEM):
            print(f"FAIL {name} {part}: {n} node element placements, expected {least} assignments")
            fails += 1
    print(f"{name}: {len(runs)} runs checked, {fails} failures")
    return 1 if fails else 0


def weights(p):
    """the arcs' weights at phase p: {(element, element): bytes}, both directions summed"""
    elem = lambda e: NODE_ELEM[e["id"]] if e["type"] == "node" else e["id"] - 1
    w = {}
    for _, c in comms(p):
        a, b = c["from"], c["to"]
        if a["type"] == "node" and b["type"] == "node":
            continue
        k = tuple(sorted((elem(a), elem(b))))
        w[k] = w.get(k, 0) + c["bytes"]
    return w


def crossing(con, run, name, part):
    """comm_ns > 0 at a step exactly when a weighted arc joins two processors there"""
    asg = {}
    for s, e, p in con.execute("SELECT step, element, part FROM assignment WHERE run=?", (run,)):
        asg.setdefault(s, {})[e] = p
    fails = 0
    for s, c in con.execute("SELECT step, comm_ns FROM steps WHERE run=?", (run,)):
        a = asg[max(k for k in asg if k <= s)]
        cut = sum(w for (u, v), w in weights(s).items() if w > 0 and a[u] != a[v])
        if (c > 0) != (cut > 0):
            print(f"FAIL {name} {part}: step {s}: comm_ns {c}, bytes across processors {cut}")
            fails += 1
    return fails


def load(d):
    files = sorted(f for f in os.listdir(d) if re.fullmatch(r"data\.\d+\.json", f))
    return [json.load(open(os.path.join(d, f))) for f in files]


def export(d, src):
    """the export (tasks by seq_id = element) against the source (tasks by id)"""
    fails = 0

    def bad(msg):
        nonlocal fails
        fails += 1
        print("FAIL", msg)

    want_tasks, want_bytes = {}, {}
    for doc in load(src):
        for ph in doc["phases"]:
            for t in ph["tasks"]:
                want_tasks.setdefault(ph["id"], set()).add(t["entity"]["id"] - 1)
            for c in ph["communications"]:
                f, t = c["from"], c["to"]
                if (f["type"] == "node") != (t["type"] == "node"):
                    task, r = (t["id"] - 1, f["id"]) if f["type"] == "node" else (f["id"] - 1, t["id"])
                    key = (ph["id"], task, r)
                    want_bytes[key] = want_bytes.get(key, 0) + c["bytes"]
    got_tasks, got_bytes, nodecomm = {}, {}, 0
    for doc in load(d):
        for ph in doc["phases"]:
            for t in ph["tasks"]:
                if t["entity"].get("type") == "node":
                    bad(f"phase {ph['id']}: a node written as a task")
                got_tasks.setdefault(ph["id"], set()).add(t["entity"]["seq_id"])
            for c in ph["communications"]:
                f, t = c["from"], c["to"]
                if f["type"] == "node" or t["type"] == "node":
                    nodecomm += 1
                    want = "NodeToCollection" if f["type"] == "node" else "CollectionToNode"
                    if c["type"] != want:
                        bad(f"phase {ph['id']}: {c['type']} from {f} to {t}, expected {want}")
                    task, r = (t["seq_id"], f["id"]) if f["type"] == "node" else (f["seq_id"], t["id"])
                    key = (ph["id"], task, r)
                    got_bytes[key] = got_bytes.get(key, 0) + c["bytes"]
    for p in sorted(set(want_tasks) | set(got_tasks)):
        if want_tasks.get(p, set()) != got_tasks.get(p, set()):
            bad(f"phase {p}: tasks {sorted(got_tasks.get(p, set()))}, "
                f"expected {sorted(want_tasks.get(p, set()))}")
    if want_bytes != got_bytes:
        bad(f"task-to-node bytes {sorted(got_bytes.items())}, expected {sorted(want_bytes.items())}")
    print(f"export: {sum(len(v) for v in got_tasks.values())} tasks in phases, "
          f"{nodecomm} communications with a node, {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "write":
        write(sys.argv[2])
    elif cmd == "comm":
        sys.exit(comm(sys.argv[2]))
    elif cmd == "assign":
        sys.exit(assign(sys.argv[2], sys.argv[3], *(int(a) for a in sys.argv[4:6])))
    else:
        sys.exit(export(sys.argv[2], sys.argv[3]))
