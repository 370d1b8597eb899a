#!/usr/bin/env python3
"""layers.py - checks that no source file includes a header of a later stage of the data flow.

docs/design.md draws lbsim's folders as stages, each using only the stages above it. This script
holds the same table (STAGE below: keep the two together) and reads every tracked C, CUDA and
header file of those folders: an `#include "name.h"` whose header lives in a folder of a later
stage is a violation. Headers are matched by file name (lbsim's names are unique across
folders); system headers (<...>) and folders outside the table (apps/, tests/, bench/) are not
checked. Exits 1 and lists the violations, 0 when there are none.

usage: scripts/layers.py [--root DIR]
"""
import argparse
import os
import re
import subprocess
import sys

# The stages of docs/design.md's "Data flow": a folder may include headers of its own stage or
# earlier ones.
STAGE = {
    "core": 0, "workloads": 1, "calibrate": 2, "traces": 3, "grid": 3, "pipeline": 3,
    "profiler": 4, "partitioners": 5, "policies": 5, "plugin": 5, "include": 5,
    "sim": 6, "study": 7, "report": 8, "cli": 8,
}


def tracked(root, patterns):
    try:
        out = subprocess.check_output(["git", "-C", root, "ls-files", *patterns], stderr=subprocess.DEVNULL)
        return out.decode().split()
    except (OSError, subprocess.CalledProcessError):  # not a checkout: walk the folders
        files = []
        for d in STAGE:
            for base, _, names in os.walk(os.path.join(root, d)):
                files += [os.path.relpath(os.path.join(base, n), root) for n in names
                          if any(n.endswith(p[1:]) for p in patterns)]
        return files


def main():
    ap = argparse.ArgumentParser(description="Checks the include directions between lbsim's stages.")
    ap.add_argument("--root", default=".")
    a = ap.parse_args()
    owner = {}
    for f in tracked(a.root, ["*.h"]):
        d = f.split("/")[0]
        if d in STAGE:
            owner.setdefault(os.path.basename(f), d)
    bad = []
    for f in tracked(a.root, ["*.c", "*.h", "*.cu"]):
        d = f.split("/")[0]
        if d not in STAGE:
            continue
        with open(os.path.join(a.root, f), errors="replace") as fh:
            text = fh.read()
        for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            h = os.path.basename(m.group(1))
            if h in owner and STAGE[owner[h]] > STAGE[d]:
                bad.append(f"{f}: includes {owner[h]}/{h}, a later stage ({owner[h]}/ after {d}/)")
    for b in bad:
        print(b)
    print(f"{len(bad)} include(s) against the stages of docs/design.md" if bad else "no include against the stages")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
