#!/usr/bin/env python3
"""funclen.py - lists the C functions longer than a limit (issue 28: 80 lines outside apps/, tests/).

  scripts/funclen.py [--max N] [--root DIR] [--skip PREFIX]... [--except PREFIX]... [FILE]...

What it counts: a function's length is the line number of its closing brace minus that of its
opening brace (a body of one line counts 2). It prints 'path:line: N lines: declaration' for each
function over N (default 80) and exits 1 when there is one, 0 otherwise.

How it finds functions (no parser, the tree's layout): a function opens on a line ending with '{'
whose declaration starts in column 0, on that line or on the lines above it that continue it
(indented, not after a line ending with ';', '}', '*/' or '{'); a declaration that starts with
typedef, struct, union or enum, has '=' before its first '(' or ends in '= {' (an initializer),
or has no '(' is not a function. The function ends at the next line starting with '}'.

Its limits: a function returning a struct by value ('struct x f(void) {') is not seen, nor one
whose declaration or closing brace is indented, or built by a macro; braces inside strings or
comments in column 0 confuse it. The tree is formatted so that none of this happens.

Files: the FILEs given, else the C and CUDA sources git tracks under DIR (default: this script's
checkout; without git, the *.c and *.cu files under DIR, outside hidden folders and build trees,
those holding a CMakeCache.txt). --skip PREFIX leaves out the paths under PREFIX (relative to
DIR) where the rule does not hold; --except PREFIX too, for code that does not meet it yet: a
note says when an exception is no longer needed.
"""
import argparse
import os
import re
import subprocess
import sys


def long_functions(path, limit):
    """(line, length, declaration) of each function in path longer than limit lines."""
    with open(path, errors="replace") as f:
        lines = f.read().split("\n")
    found, start = [], None
    for i, line in enumerate(lines):
        if start is None:
            if not line.rstrip().endswith("{") or line.startswith(("#", " }", "}")):
                continue
            j = i  # back to the declaration's first line
            while (j > 0 and lines[j][:1].isspace() and lines[j - 1].strip()
                   and not lines[j - 1].rstrip().endswith((";", "}", "*/", "{"))):
                j -= 1
            head = lines[j]
            decl = " ".join(x.strip() for x in lines[j:i + 1])
            if head[:1].isspace() or not head.strip():
                continue
            if (re.match(r"(typedef|struct|union|enum)\b", head) or "=" in decl.split("(")[0]
                    or "(" not in decl or re.search(r"=\s*\{$", decl)):
                continue
            start = (i, head.strip()[:90])
        elif line.startswith("}"):
            if i - start[0] > limit:
                found.append((start[0] + 1, i - start[0], start[1]))
            start = None
    return found


def sources(root):
    """The C and CUDA sources under root, relative to it."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--", "*.c", "*.cu"],
                             capture_output=True, check=True).stdout
        return sorted(p for p in out.decode().split("\0") if p)
    except (OSError, subprocess.CalledProcessError):
        found = []
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(".")
                       and not os.path.exists(os.path.join(d, x, "CMakeCache.txt"))]
            found += [os.path.relpath(os.path.join(d, f), root) for f in files
                      if f.endswith((".c", ".cu"))]
        return sorted(found)


def main():
    ap = argparse.ArgumentParser(description="Lists the C functions longer than a limit.")
    ap.add_argument("--max", type=int, default=80, help="longest allowed (default 80)")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--skip", action="append", default=[], help="a path prefix outside the rule")
    ap.add_argument("--except", dest="exc", action="append", default=[],
                    help="a path prefix that does not meet the rule yet")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or [p for p in sources(a.root) if not p.startswith(tuple(a.skip))]
    bad, excused = 0, set()
    for p in files:
        for line, n, decl in long_functions(os.path.join(a.root, p) if not a.files else p, a.max):
            exc = [e for e in a.exc if p.startswith(e)]
            if exc:
                excused.update(exc)
                continue
            print(f"{p}:{line}: {n} lines: {decl}")
            bad += 1
    for e in a.exc:
        if e not in excused:
            print(f"note: the exception {e} has no function over {a.max} lines: remove it")
    if bad:
        print(f"{bad} function(s) over {a.max} lines: split them into steps (issue 28)")
        return 1
    print(f"{len(files)} files, no function over {a.max} lines"
          + (f" (excepted: {', '.join(sorted(excused))})" if excused else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
