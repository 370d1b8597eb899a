#!/usr/bin/env bash
# e2e.readme_tour: runs README.md's tour as the README writes it, so that the two cannot drift.
# usage: readme_tour.sh LBSIM SRCDIR
#
# The shell blocks (```sh) of the sections "## A short tour" and "## Calibration" are read from
# SRCDIR/README.md itself and run in order, in one bash, in a scratch directory laid out as a
# checkout after `make`: examples/ (a link to SRCDIR's) and build/bin/lbsim (a link to LBSIM).
# After each command its exit status is checked; the first that fails ends the test, naming its
# block, its line in README.md and the command, with the end of the output. Each block's time
# is printed (information, not a check). A command that needs a tool this machine lacks
# (smpi/run.sh needs SimGrid's smpirun) is skipped and reported as such. Finally the tour must
# have written nothing outside tour/, the directory it names.
set -u
LBSIM=$1 SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# Open MPI's session directory of its own (as tests/e2e/lib.sh gives the other scripts)
mkdir -p "$T/ompi" && export OMPI_MCA_orte_tmpdir_base=$T/ompi
fails=0 passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

mkdir -p "$T/root/build/bin"
ln -s "$SRC/examples" "$T/root/examples"
ln -s "$LBSIM" "$T/root/build/bin/lbsim"

# The generated script: every command of every block, each followed by its check.
python3 - "$SRC/README.md" "$T/tour.sh" <<'PY' || exit 1
import shlex, sys
readme, out = sys.argv[1], sys.argv[2]
SECTIONS = ("## A short tour", "## Calibration")
NEEDS = {"smpi/run.sh": "smpirun"}  # a command's first word -> the tool it needs
lines = open(readme).read().split("\n")
blocks, section, inblock = [], None, False
for no, line in enumerate(lines, 1):
    if inblock:
        if line.startswith("```"):
            inblock = False
        else:
            blocks[-1][2].append((no, line))
    elif line.startswith("## "):
        section = line if line.startswith(SECTIONS) else None
    elif section and line.startswith("```sh"):
        inblock = True
        blocks.append((section, no, []))
counts = {s: sum(b[0].startswith(s) for b in blocks) for s in SECTIONS}
if counts[SECTIONS[0]] < 6 or counts[SECTIONS[1]] < 1:
    sys.exit(f"README.md: expected 6 tour blocks and 1 calibration block, found {counts}")
o = ["set -o pipefail", "exec 3>&1 >\"$LOG\" 2>&1", "cmds=0 skips=0"]
for i, (section, start, body) in enumerate(blocks, 1):
    where = f"block {i} ({section[3:]}, README.md line {start})"
    o.append(f"echo {shlex.quote('== ' + where)}; t0=$(date +%s.%N)")
    cmd = []
    for no, line in body:
        cmd.append((no, line))
        if line.endswith("\\"):
            continue
        text = "\n".join(l for _, l in cmd)
        first = cmd[0][1].split("#")[0].strip()
        cmd, word = [], (first.split() or [""])[0]
        if not first:
            continue  # a comment line
        desc = f"{where}, line {no}: {first}"
        check = (f"rc=$?; cmds=$((cmds + 1)); if [ $rc -ne 0 ]; then "
                 f"echo {shlex.quote('FAIL: ' + desc)}\" (exit $rc)\" >&3; exit 1; fi")
        if word in NEEDS:
            o.append(f"if command -v {NEEDS[word]} >/dev/null; then")
            o.append(text)
            o.append(check)
            o.append(f"else echo {shlex.quote(f'SKIP: {desc} ({NEEDS[word]} not found)')} >&3; "
                     "skips=$((skips + 1)); fi")
        else:
            o.append(text)
            o.append(check)
    o.append(f"awk -v a=\"$t0\" -v b=\"$(date +%s.%N)\" "
             f"'BEGIN {{ printf \"%s: %.0f s\\n\", \"{where}\", b - a }}' >&3")
o.append('echo "$cmds commands run, $skips skipped" >&3')
open(out, "w").write("\n".join(o) + "\n")
PY

export LOG=$T/log
if (cd "$T/root" && bash "$T/tour.sh"); then
  ok
else
  bad "the tour stopped; the end of its output:"
  tail -n 25 "$LOG"
fi

# Everything the tour wrote is under tour/ (what a checkout's git status would show).
extra=$(cd "$T/root" && ls -A | grep -vxE 'build|examples|tour')
[ -z "$extra" ] && ok || bad "the tour wrote outside tour/: $extra"
[ -s "$T/root/tour/report.html" ] && ok || bad "tour/report.html not written"
[ -s "$T/root/tour/calib.db" ] && ok || bad "tour/calib.db not written"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
