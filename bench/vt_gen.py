"""Writes a synthetic DARMA vt LB data set: DIR/data.<rank>.json for RANKS ranks, TASKS tasks
(seq_id 0..TASKS-1 of collection 7, index [t], home rank t * RANKS // TASKS) over PHASES phases
(ids 0..PHASES-1). Each task's time is drawn uniformly in [1 us, 1 ms] (seconds, any double,
so the import's round to the ns matters); every 10th phase (5, 15, ...) moves one task in 50 to
the next rank, so the nodes change; every 20th task sends, each phase, a SendRecv to the next
task and one to a random task (bytes 64..65536, 1..4 messages), listed in the sender's file.
Deterministic for a seed. Used by bench/vt_import.sh (the figures) and tests/e2e/vt_loads.sh.
With VT_GEN_NODES=1 in the environment, every 10th task also sends, each phase, a
CollectionToNode to node (t / 10) mod RANKS (bytes 64..65536, drawn from a second generator, so
the rest of the data set is the same as without); bench/vt_nodes.sh uses it.
usage: vt_gen.py DIR RANKS TASKS PHASES [SEED]"""
import os
import random
import sys

out = sys.argv[1]
R, T, P = (int(a) for a in sys.argv[2:5])
seed = int(sys.argv[5]) if len(sys.argv) > 5 else 1
rng = random.Random(seed)
nodes = os.environ.get("VT_GEN_NODES") == "1"
nrng = random.Random(seed + 1)
os.makedirs(out, exist_ok=True)

node = [t * R // T for t in range(T)]
home = list(node)


def ent(t):
    return ('{"type":"object","collection_id":7,"seq_id":%d,"index":[%d],"home":%d,'
            '"migratable":true}' % (t, t, home[t]))


files = [open(os.path.join(out, "data.%d.json" % r), "w") for r in range(R)]
for r, f in enumerate(files):
    f.write('{"type":"LBDatafile","metadata":{"type":"LBDatafile","rank":%d,"phases":{"count":%d}},'
            '"phases":[' % (r, P))
for p in range(P):
    if p % 10 == 5:
        for t in range(T):
            if (t + p) % 50 == 0:
                node[t] = (node[t] + 1) % R
    tasks = [[] for _ in range(R)]
    comms = [[] for _ in range(R)]
    for t in range(T):
        tasks[node[t]].append('{"entity":%s,"node":%d,"resource":"cpu","time":%r}'
                              % (ent(t), node[t], rng.uniform(1e-6, 1e-3)))
    for t in range(0, T, 20):
        for to in ((t + 1) % T, rng.randrange(T)):
            comms[node[t]].append('{"type":"SendRecv","from":%s,"to":%s,"messages":%d,"bytes":%r}'
                                  % (ent(t), ent(to), rng.randint(1, 4),
                                     float(rng.randint(64, 65536))))
    for t in range(0, T, 10) if nodes else ():
        comms[node[t]].append('{"type":"CollectionToNode","from":%s,"to":{"type":"node","id":%d},'
                              '"messages":1,"bytes":%r}'
                              % (ent(t), t // 10 % R, float(nrng.randint(64, 65536))))
    for r, f in enumerate(files):
        f.write('%s{"id":%d,"tasks":[%s],"communications":[%s]}'
                % ("," if p else "", p, ",".join(tasks[r]), ",".join(comms[r])))
for f in files:
    f.write("]}\n")
    f.close()
print("%s: %d ranks, %d tasks, %d phases, %d SendRecv a phase" % (out, R, T, P, 2 * len(range(0, T, 20))))
