#!/usr/bin/env python3
"""wave_corr.py STEPS_CSV SUMMARY_JSON [MIN_R [MAX_LOST]] - the weight metric against the time metric of a
profiled apps/wave run, per rank (seed 002, Figures 5-8: a cell's weight follows its time).

STEPS_CSV is `lbsim trace export --csv`'s steps.csv (step,app_step,element,time_ns,weight);
SUMMARY_JSON is the run's --json, whose wave.initial_owner names each cell's rank (a profiled
run without --schedule or --policy keeps its initial partition). For each rank: Pearson's r
between weight and time_ns over its cells and steps, leaving out the samples that a preemption
inflated (time_ns above three times the median of its weight level on that rank: on a busy
machine a bracket sometimes holds another process's time slice). Prints one line per rank and
exits 1 when a rank's r is below MIN_R (default 0.9) or it lost more than MAX_LOST of its samples
to preemption (default 0.05)."""
import csv
import json
import math
import statistics
import sys


def pearson(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def main():
    steps_csv, summary = sys.argv[1], sys.argv[2]
    min_r = float(sys.argv[3]) if len(sys.argv) > 3 else 0.9
    max_lost = float(sys.argv[4]) if len(sys.argv) > 4 else 0.05
    owner = json.load(open(summary))["wave"]["initial_owner"]
    ranks = max(owner) + 1
    samples = [[] for _ in range(ranks)]
    with open(steps_csv) as f:
        rows = csv.reader(f)
        head = next(rows)
        it, iw, ie = head.index("time_ns"), head.index("weight"), head.index("element")
        for row in rows:
            # weights are 1 or 8, stored within the trace's error bound
            samples[owner[int(row[ie])]].append((round(float(row[iw])), float(row[it])))
    failed = 0
    for r, s in enumerate(samples):
        levels = sorted({w for w, _ in s})
        med = {w: statistics.median(t for v, t in s if v == w) for w in levels}
        kept = [(w, t) for w, t in s if t <= 3 * med[w]]
        lost = 1 - len(kept) / len(s)
        rr = pearson([w for w, _ in kept], [t for _, t in kept])
        ok = len(levels) > 1 and rr >= min_r and lost <= max_lost
        failed += not ok
        print(f"rank {r}: r = {rr:.4f} over {len(kept)} samples ({100 * lost:.2f}% preempted left out); "
              "median time_ns by weight: " + ", ".join(f"{w}: {med[w]:.0f}" for w in levels) + ("" if ok else "  FAIL"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
