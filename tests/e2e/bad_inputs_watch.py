#!/usr/bin/env python3
"""bad_inputs_watch.py - the file watcher of tests/e2e/bad_inputs.sh, one process for the campaign.

The campaign runs 300+ commands; around each it listed the precious files and the working
directories with find, cksum, awk, sort, comm and cmp, some fifteen processes a command (more
of its CPU time than the commands themselves). This process keeps the lists in memory and
answers on a pipe instead, the same lists taken the same way:

  precious files and inputs (PRECIOUS...): every entry below them, a line each starting with its
    path: its type, mode, and for a regular file its size, modification time and a checksum of
    its bytes (SHA-1), for a link its target (never followed; a FIFO is never opened);
  the working directories (WORK...): every entry's path and type, but for those matching a
    PRUNE pattern (fnmatch, as find -path) and what is below them.

Requests, one a line on standard input; each answer ends with a line ".":
  before       the working directories' list, kept as "before"; the precious list too the first
               time (afterwards "before" is the previous command's "after": nothing else touches
               those files in between, and a late change by a command's leftovers still shows)
  after ERR    both lists again; answers "CRASH NAMED FILES WORK" (each 0 or 1: ERR holds a
               sanitizer's or a crash's words; ERR has a line starting 'lbsim: '; the precious
               list changed; the working list changed), then, where the precious list changed,
               the path of each changed entry, one a line. The changed lines themselves go to
               DIFF.files (as `comm -3 before after` shows them) and DIFF.work (the lines new in
               the working list), where bad_inputs.sh quotes them.
  clean        removes everything below the working directories WIPE... (as find -delete)
usage: bad_inputs_watch.py DIFF --precious P... --work W... --prune X... --wipe D...
"""
import fnmatch
import hashlib
import os
import re
import shutil
import stat
import sys

CRASH = re.compile(rb"runtime error:|AddressSanitizer|LeakSanitizer|Segmentation")
NAMED = re.compile(rb"^lbsim: ", re.M)
TYPES = {stat.S_IFDIR: "d", stat.S_IFREG: "f", stat.S_IFLNK: "l", stat.S_IFIFO: "p",
         stat.S_IFSOCK: "s", stat.S_IFCHR: "c", stat.S_IFBLK: "b"}


def entries(top, prune=()):
    """(path, lstat) of every entry below top, depth first, never following a link."""
    try:
        it = sorted(os.scandir(top), key=lambda e: e.name)
    except OSError:
        return
    for e in it:
        if any(fnmatch.fnmatchcase(e.path, x) for x in prune):
            continue
        try:
            st = os.lstat(e.path)
        except OSError:  # gone meanwhile (Open MPI's helper, a command's leftovers)
            continue
        yield e.path, st
        if stat.S_ISDIR(st.st_mode):
            yield from entries(e.path, prune)


def digest(path):
    h = hashlib.sha1()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError as e:
        return "unreadable " + e.strerror
    return h.hexdigest()


def precious_list(tops):
    out = set()
    for top in tops:
        for p, st in entries(top):
            t, mode = TYPES.get(stat.S_IFMT(st.st_mode), "?"), "%o" % stat.S_IMODE(st.st_mode)
            if t == "f":
                out.add(f"{p} f {st.st_size} {mode} {st.st_mtime_ns}")
                out.add(f"{p} sha1 {digest(p)}")
            elif t == "l":
                out.add(f"{p} l {os.readlink(p)} {mode}")
            else:
                out.add(f"{p} {t} {mode}")
    return out


def work_list(tops, prune):
    return {f"{p} {TYPES.get(stat.S_IFMT(st.st_mode), '?')}" for top in tops for p, st in entries(top, prune)}


def wipe(tops):
    for top in tops:
        try:
            it = list(os.scandir(top))
        except OSError:
            continue
        for e in it:
            try:
                if e.is_dir(follow_symlinks=False):
                    shutil.rmtree(e.path, ignore_errors=True)
                else:
                    os.unlink(e.path)
            except OSError:
                pass


def main():
    args, opt, diff = {"--precious": [], "--work": [], "--prune": [], "--wipe": []}, None, sys.argv[1]
    for a in sys.argv[2:]:
        if a in args:
            opt = a
        else:
            args[opt].append(a)
    prune = args["--prune"]
    f0 = w0 = None
    for req in sys.stdin:
        req = req.rstrip("\n")
        if req == "before":
            w0 = work_list(args["--work"], prune)
            if f0 is None:
                f0 = precious_list(args["--precious"])
        elif req.startswith("after "):
            try:
                with open(req[6:], "rb") as f:
                    err = f.read()
            except OSError:
                err = b""
            f1, w1 = precious_list(args["--precious"]), work_list(args["--work"], prune)
            changed = sorted({line.split(" ", 1)[0] for line in f0 ^ f1})
            if f0 != f1:
                with open(diff + ".files", "w") as f:
                    f.writelines(line + "\n" if line in f0 else "\t" + line + "\n" for line in sorted(f0 ^ f1))
            if w0 != w1:
                with open(diff + ".work", "w") as f:
                    f.writelines(line + "\n" for line in sorted(w1 - w0))
            print(int(bool(CRASH.search(err))), int(bool(NAMED.search(err))), int(f0 != f1), int(w0 != w1))
            print("\n".join(changed) if changed else "", end="\n" if changed else "")
            f0 = f1
        elif req == "clean":
            wipe(args["--wipe"])
        else:
            print(f"bad_inputs_watch.py: unknown request '{req}'", file=sys.stderr)
            return 1
        print(".", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
