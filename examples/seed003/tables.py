#!/usr/bin/env python3
"""Markdown tables of examples/seed003/run.sh's CSV files, and the issue's figures."""
import csv
import statistics
import sys
from collections import defaultdict

LABEL = {("minex", "G"): "MinEX-G", ("minex", "Gm"): "MinEX-Gm", ("metis", "G"): "METIS-Gm"}
COLS = ["MinEX-G", "MinEX-Gm", "METIS-Gm"]


def load(path):
    rows = defaultdict(dict)
    for r in csv.DictReader(open(path)):
        key = (int(r["bodies"]), r["family"], int(r["procs"]), int(r["clusters"]), float(r["slowdown"]))
        rows[key][LABEL[(r["partitioner"], r["graph"])]] = r
    return rows


def quality(path):
    rows = load(path)
    print("## Projected run time of one step (ms) and LoadImb\n")
    ratios = defaultdict(list)
    for bodies in sorted({k[0] for k in rows}):
        print(f"### {bodies} bodies\n")
        print("| grid | P | C | I | " + " | ".join(f"{c} ms | {c} LoadImb" for c in COLS) + " | MinEX-G / METIS-Gm |")
        print("|---|---:|---:|---:|" + "---:|---:|" * len(COLS) + "---:|")
        for key in sorted(k for k in rows if k[0] == bodies):
            _, fam, p, c, i = key
            r = rows[key]
            cells = []
            for col in COLS:
                x = r.get(col)
                cells += [f"{1e3 * float(x['runtime_s']):.2f}", f"{float(x['loadimb']):.3f}"] if x else ["", ""]
            ratio = float(r["MinEX-G"]["runtime_s"]) / float(r["METIS-Gm"]["runtime_s"])
            ratios[(fam, i)].append(ratio)
            print(f"| {fam} | {p} | {c} | {i:g} | " + " | ".join(cells) + f" | {ratio:.2f} |")
        print()
    print("### MinEX-G / METIS-Gm run time, all sizes\n")
    print("| grid | I | configurations | min | median | max | <= 0.5 |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for (fam, i), v in sorted(ratios.items()):
        print(f"| {fam} | {i:g} | {len(v)} | {min(v):.2f} | {statistics.median(v):.2f} | {max(v):.2f} | "
              f"{sum(x <= 0.5 for x in v)} |")
    print()


def speed(path):
    rows = load(path)
    print("## Partitioner wall time (ms, best of 3; HO grid, C = 4, I = 10)\n")
    procs = sorted({k[2] for k in rows})
    print("| bodies | partitioner | " + " | ".join(f"P={p}" for p in procs) + " |")
    print("|---:|---|" + "---:|" * len(procs))
    worst = {}
    for bodies in sorted({k[0] for k in rows}):
        for col in COLS + ["MinEX-G / METIS"]:
            cells = []
            for p in procs:
                key = next((k for k in rows if k[0] == bodies and k[2] == p), None)
                r = rows.get(key, {})
                if col == "MinEX-G / METIS" and "MinEX-G" in r and "METIS-Gm" in r:
                    q = float(r["MinEX-G"]["partition_wall_s"]) / float(r["METIS-Gm"]["partition_wall_s"])
                    cells.append(f"{q:.2f}")
                    if p <= 128:
                        worst[bodies] = max(worst.get(bodies, 0), q)
                elif col in r:
                    cells.append(f"{1e3 * float(r[col]['partition_wall_s']):.1f}")
                else:
                    cells.append("")
            print(f"| {bodies} | {col} | " + " | ".join(cells) + " |")
    print()
    for bodies, q in sorted(worst.items()):
        print(f"- {bodies} bodies: MinEX-G's wall time is at most {q:.2f}x METIS k-way's for P <= 128")
    print()


if __name__ == "__main__":
    quality(sys.argv[1])
    speed(sys.argv[2])
