# lib.sh - helpers shared by the end-to-end scripts (source it after setting T).
# expect CODE DESCRIPTION -- command...   runs it, stdout in $T/out, stderr in $T/err
# has FILE TEXT DESCRIPTION               FILE must contain TEXT
fails=0 passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect() {
  local code=$1 what=$2; shift 3
  "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  if [ "$rc" -eq "$code" ]; then ok; else bad "$what: exit $rc, expected $code; stderr: $(head -c 400 "$T/err")"; fi
}
has() { if grep -qF -- "$2" "$1"; then ok; else bad "$3: '$2' not in $(head -c 300 "$1")"; fi; }
# Open MPI's session directory under $T, this script's own: two tests' jobs in one session tree
# race to make and remove its subdirectories ("A call to mkdir was unable to create the desired
# directory", seen in make check when two end-to-end tests ran side by side in one suite).
if [ -n "${T:-}" ] && [ -d "$T" ] && mkdir -p "$T/ompi"; then export OMPI_MCA_orte_tmpdir_base=$T/ompi; fi
# finish: the closing line CI reads, and the exit status
finish() {
  echo "$passes passed, $fails failed"
  [ "$fails" -eq 0 ]
}
# python3, resolved once to the interpreter itself: a version manager's shim (pyenv's is a bash
# script that runs `pyenv exec`) costs about 0.2 s at every start, and the scripts start python3
# well over a hundred times a suite (profiler_faults alone 42). The same interpreter runs; a
# script that execs python3 from another program still goes through PATH.
LBS_PYTHON=${LBS_PYTHON:-$(command python3 -c 'import sys; print(sys.executable)' 2>/dev/null)}
if [ -n "$LBS_PYTHON" ] && [ -x "$LBS_PYTHON" ]; then
  export LBS_PYTHON
  python3() { "$LBS_PYTHON" "$@"; }
fi
