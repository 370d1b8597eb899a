"""pinned_vt.py - DARMA vt data of our own for tests/e2e/pinned_vt.sh (and bench/pinned.sh), and
the checks of the replays' saved assignments.

  pinned_vt.py write DIR [N]  two ranks' LB data files, DIR/data.0.json and DIR/data.1.json (N
                              migratable tasks, 12 unless given; FREE=1 in the environment: the
                              objgroups migratable too, the baseline of bench/pinned.sh)
  pinned_vt.py check DB NAME [LEAST [MOST0]]  the assignments of every run in results store DB
      (label NAME): each run LEAST of them (3 unless given), and where the pinned load is counted
      at most MOST0 (0.25) of the migratable work on processor 0, beside the heavy objgroup

The data (N = 12): 6 phases on 2 ranks. Tasks 0..11 are migratable (index [i], 0.01 s each, 0..5
on rank 0 and 6..11 on rank 1, each sending 100 bytes to the next); objgroup 100 (not
migratable, 0.5 s) on rank 0 and objgroup 101 (0.05 s) on rank 1; task 50 is created in phase 3
(on rank 1) and task 51 destroyed after phase 1 (on rank 0). Elements are the tasks in id order
(12, 13: tasks 50, 51; 14, 15: the objgroups). Larger N: the same with tasks N, N + 1 created and
destroyed and objgroups 100 N, 100 N + 1, N / 12 times as heavy.
"""
import json
import os
import sys

PHASES = 6
BORN, DIES = 3, 1  # the created task exists from phase 3 on, the destroyed one up to phase 1


def layout(n):
    global MIG, NEW, GONE, PINNED, IDS, ELEM
    MIG = list(range(n))
    NEW, GONE = (50, 51) if n <= 50 else (n, n + 1)
    big = 100 if n <= 50 else 1000 * n
    PINNED = {big: (0, 0.5 * n / 12), big + 1: (1, 0.05 * n / 12)}
    IDS = sorted(MIG + [NEW, GONE] + list(PINNED))
    ELEM = {t: i for i, t in enumerate(IDS)}


layout(12)


def present(t, p):
    return not ((t == NEW and p < BORN) or (t == GONE and p > DIES))


def home(t):
    if t in PINNED:
        return PINNED[t][0]
    return 1 if t == NEW or len(MIG) // 2 <= t < len(MIG) else 0


def work(t, p):
    """the task's seconds at phase p, 0 when absent"""
    if not present(t, p):
        return 0.0
    if t in PINNED:
        return PINNED[t][1]
    return 0.02 if t in (NEW, GONE) else 0.01


def task(t, p, free):
    return {"entity": {"type": "object", "id": t, "home": home(t),
                       "migratable": free or t not in PINNED, "index": [ELEM[t]]},
            "node": home(t), "resource": "cpu", "time": work(t, p)}


def write(d, free):
    for r in (0, 1):
        phases = []
        for p in range(PHASES):
            tasks = [task(t, p, free) for t in IDS if home(t) == r and present(t, p)]
            comm = [{"type": "SendRecv", "from": {"type": "object", "id": t},
                     "to": {"type": "object", "id": t + 1}, "messages": 1, "bytes": 100.0}
                    for t in MIG[:-1] if home(t) == r]
            phases.append({"id": p, "tasks": tasks, "communications": comm})
        doc = {"metadata": {"type": "LBDatafile", "rank": r}, "phases": phases}
        with open(f"{d}/data.{r}.json", "w") as f:
            json.dump(doc, f)


def check(db, name, least=3, most0=0.25):
    """every run's assignments: pinned elements on their rank throughout; an absent element
    (no work at the step a partition weighs) where it was; with the pinned load counted (runs
    whose partitioner aims at the grid's shares), little migratable work beside objgroup 100"""
    import sqlite3
    con = sqlite3.connect(db)
    runs = con.execute("SELECT id, partitioner FROM runs").fetchall()
    fails = 0
    if not runs:
        print(f"FAIL {name}: no runs in {db}")
        return 1
    for run, part in runs:
        rows = con.execute("SELECT step, element, part FROM assignment WHERE run=? "
                           "ORDER BY step, element", (run,)).fetchall()
        steps = sorted({s for s, _, _ in rows})
        asg = {s: {} for s in steps}
        for s, e, p in rows:
            asg[s][e] = p
        if len(steps) < least:
            print(f"FAIL {name} {part}: {len(steps)} assignments, expected {least} or more")
            fails += 1
        counted = part != "metis:kway"  # METIS without :speed aims at equal parts
        for k, s in enumerate(steps):
            a = asg[s]
            for t, (r, _) in PINNED.items():
                if a[ELEM[t]] != r:
                    print(f"FAIL {name} {part}: pinned task {t} on {a[ELEM[t]]} at step {s}")
                    fails += 1
            if k:  # a repartition before step s weighs step s - 1
                prev = asg[steps[k - 1]]
                for t in (NEW, GONE):
                    if not present(t, s - 1) and a[ELEM[t]] != prev[ELEM[t]]:
                        print(f"FAIL {name} {part}: absent task {t} moved before step {s}")
                        fails += 1
            w = s - 1 if k else 0  # the initial partition weighs the first step
            tot = sum(work(t, w) for t in IDS if t not in PINNED)
            on0 = sum(work(t, w) for t in IDS if t not in PINNED and a[ELEM[t]] == 0)
            if counted and on0 > most0 * tot:
                print(f"FAIL {name} {part}: step {s}: migratable work {on0:.3f} of {tot:.3f} "
                      "beside the heavy objgroup (pinned load not counted)")
                fails += 1
    print(f"{name}: {len(runs)} runs checked, {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    if sys.argv[1] == "write":
        layout(int(sys.argv[3]) if len(sys.argv) > 3 else 12)
        write(sys.argv[2], os.environ.get("FREE") == "1")
    else:
        sys.exit(check(sys.argv[2], sys.argv[3], *(f(a) for f, a in zip((int, float), sys.argv[4:]))))
