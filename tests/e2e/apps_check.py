#!/usr/bin/env python3
"""apps_check.py - checks of the real applications' outputs (apps/), for the e2e scripts.

  apps_check.py contract JSON APP RANKS STEPS [ELEMENTS]
      the one-line JSON summary has apps/README.md's fields, with these values
  apps_check.py laplace OUT
      a laplace-mc solution (--out) against Gauss-Seidel (SOR) on the same grid: per point
      z = (mc - gs) / sigma, sigma the Monte-Carlo standard error estimated from the point's
      walks (Agresti-Coull: (hits + 2) / (walks + 4), which stays honest where few walks
      reached the hot side); passes when max |z| <= 5, the RMS of z lies in [0.8, 1.25] (the
      errors are as large as the walks say, no larger and not suspiciously smaller) and at
      most 1% of the points have |z| > 3
  apps_check.py corr STEPS_CSV JSON METRIC MIN_R
      per rank, over the elements the run's "owner" map gives it (a profiled run does not
      repartition, so the owner is the same at every step): Pearson's r between each element's
      minimum over the steps of time_ns and its minimum of METRIC; passes when every rank's
      r >= MIN_R. The minimum because the machine's other work (other jobs on shared cores, the
      profiler's own agent and collector) only ever adds time, and adds it most often to the
      longest elements, in runs of steps: on the 2 shared cores here it spoils r over all
      (element, step) samples and even of the per-element medians, printed beside it.
  apps_check.py same A.csv B.csv TOL METRIC...
      two traces' steps.csv exports hold the same steps and elements, and each METRIC agrees
      within relative TOL (a profiled trace against a generated one: the profiler's bound)
Prints one line per check; exits 1 when one fails.
"""
import csv
import json
import math
import statistics
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def contract(path, app, ranks, steps, elements=None):
    d = json.loads(open(path).readline())
    need = {"app": str, "ranks": int, "steps": int, "elements": int, "total_s": (int, float), "step_s": list,
            "repartitions": list, "partition_s": (int, float), "migration_s": (int, float), "profiled": bool,
            "args": str}
    for k, t in need.items():
        if k not in d or not isinstance(d[k], t):
            fail(f"{path}: field {k} missing or of the wrong type: {str(d)[:300]}")
    if d["app"] != app or d["ranks"] != int(ranks) or d["steps"] != int(steps):
        fail(f"{path}: app {d['app']} ranks {d['ranks']} steps {d['steps']}, expected {app} {ranks} {steps}")
    if elements is not None and d["elements"] != int(elements):
        fail(f"{path}: {d['elements']} elements, expected {elements}")
    if len(d["step_s"]) != d["steps"] or not all(s >= 0 for s in d["step_s"]) or d["total_s"] <= 0:
        fail(f"{path}: step_s or total_s: {str(d)[:300]}")
    if sum(d["step_s"]) > d["total_s"] * 1.5 + 0.05:
        fail(f"{path}: the steps' times ({sum(d['step_s']):.3f} s) exceed the total ({d['total_s']:.3f} s)")
    if any(not 1 <= s < d["steps"] for s in d["repartitions"]):
        fail(f"{path}: repartitions {d['repartitions']} outside 1..{d['steps'] - 1}")
    if "owner" in d and (len(d["owner"]) != d["elements"] or any(not 0 <= o < d["ranks"] for o in d["owner"])):
        fail(f"{path}: owner map of {len(d['owner'])} entries")
    print(f"contract ok: {app} on {ranks} ranks, {steps} steps, {d['elements']} elements, {d['total_s']:.3f} s")


def laplace(path):
    rows = [l.split() for l in open(path) if not l.startswith("#")]
    N = max(int(r[0]) for r in rows) + 1
    if len(rows) != N * N:
        fail(f"{path}: {len(rows)} points, expected {N * N}")
    u = [[0.0] * (N + 2) for _ in range(N + 2)]  # u[y + 1][x + 1]; the side y = N at 100
    for x in range(N + 2):
        u[N + 1][x] = 100.0
    w = 2 / (1 + math.sin(math.pi / (N + 1)))  # SOR: Gauss-Seidel, over-relaxed
    for it in range(100000):
        d = 0.0
        for y in range(1, N + 1):
            row, up, dn = u[y], u[y + 1], u[y - 1]
            for x in range(1, N + 1):
                ch = w * (0.25 * (row[x - 1] + row[x + 1] + up[x] + dn[x]) - row[x])
                row[x] += ch
                d = max(d, abs(ch))
        if d < 1e-11:
            break
    else:
        fail("Gauss-Seidel did not converge")
    z = []
    for r in rows:
        x, y, v, n = int(r[0]), int(r[1]), float(r[2]), int(r[4])
        h = round(v * n / 100)
        pa = (h + 2) / (n + 4)
        sig = 100 * math.sqrt(pa * (1 - pa) / (n + 4))
        z.append((v - u[y + 1][x + 1]) / sig)
    rms = math.sqrt(sum(t * t for t in z) / len(z))
    mx = max(abs(t) for t in z)
    over3 = sum(abs(t) > 3 for t in z) / len(z)
    msg = f"laplace {N}x{N} against Gauss-Seidel ({it + 1} sweeps): rms z {rms:.3f}, max |z| {mx:.2f}, |z| > 3 at {over3:.2%}"
    if mx > 5 or not 0.8 <= rms <= 1.25 or over3 > 0.01:
        fail(msg)
    print("ok: " + msg)


def pearson(a, b):
    n = len(a)
    if n < 3:
        return float("nan")
    ma, mb = sum(a) / n, sum(b) / n
    sab = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    saa = sum((x - ma) ** 2 for x in a)
    sbb = sum((y - mb) ** 2 for y in b)
    return sab / math.sqrt(saa * sbb) if saa > 0 and sbb > 0 else float("nan")


def corr(steps_csv, js, metric, min_r):
    owner = json.loads(open(js).readline())["owner"]
    t, w = {}, {}
    with open(steps_csv) as f:
        for row in csv.DictReader(f):
            e = int(row["element"])
            t.setdefault(e, []).append(float(row["time_ns"]))
            w.setdefault(e, []).append(float(row[metric]))
    bad = 0
    for r in range(max(owner) + 1):
        els = [e for e in sorted(t) if owner[e] == r]
        rn = pearson([min(t[e]) for e in els], [min(w[e]) for e in els])
        rm = pearson([statistics.median(t[e]) for e in els], [statistics.median(w[e]) for e in els])
        ra = pearson([x for e in els for x in t[e]], [x for e in els for x in w[e]])
        # the better of the two robust summaries: the minimum drops preemptions, the median
        # the cache misses of a walk entering a new region; either one tracking the work is
        # the check (not a timing figure), and either alone has dipped below 0.9 under load
        ok = max(rn, rm) >= float(min_r)
        bad += not ok
        print(f"{'ok' if ok else 'FAIL'}: rank {r}: {len(els)} elements: r(min time_ns, min {metric}) = {rn:.4f},"
              f" of the medians {rm:.4f} (the better >= {min_r}); over all samples {ra:.4f}")
    if bad:
        sys.exit(1)


def same(a, b, tol, *metrics):
    ra = {(r["step"], r["element"]): r for r in csv.DictReader(open(a))}
    rb = {(r["step"], r["element"]): r for r in csv.DictReader(open(b))}
    if set(ra) != set(rb):
        fail(f"{a} and {b}: different steps or elements ({len(ra)} and {len(rb)} rows)")
    for m in metrics:
        worst = 0.0
        for k, r in ra.items():
            x, y = float(r[m]), float(rb[k][m])
            worst = max(worst, abs(x - y) / abs(y) if y else abs(x))
        if worst > float(tol):
            fail(f"{m}: relative difference up to {worst:.3g} > {tol}")
        print(f"ok: {m}: the same within {worst:.3g} (<= {tol}) over {len(ra)} samples")


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"contract": contract, "laplace": laplace, "corr": corr, "same": same}[cmd](*args)
