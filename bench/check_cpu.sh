#!/usr/bin/env bash
# The CPU time (user + sys) of make check's end-to-end tests, each run by ctest as the suite runs
# it, once with its script as the git revision REF has it and once as the work tree has it, back
# to back on the same build: what a change to the scripts saves, test by test, on a machine that
# others load (CPU time is the fairer figure there; wall time is printed beside it). The REF
# version is put in place of tests/e2e/TEST.sh for its run and the tree's put back after (also
# when interrupted). A timing, never a check.
# usage: bench/check_cpu.sh [-b BUILD] REF TEST...   e.g. bench/check_cpu.sh -b build-asan main lua_policy
#   BUILD: build (default) or build-asan, configured and built; TEST: e2e.TEST's script, no .sh
# Prints one line per run: revision, test, ctest's verdict, wall, user and sys seconds, user + sys.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=build
if [ "${1:-}" = -b ]; then BUILD=$2 && shift 2; fi
REF=${1:?usage: bench/check_cpu.sh [-b BUILD] REF TEST...}
shift
[ -f "$SRC/$BUILD/CTestTestfile.cmake" ] || { echo "check_cpu: $SRC/$BUILD: not a build directory" >&2; exit 1; }
W=$(mktemp -d /tmp/lbs_bench_cpu_XXXXXX)
script=
restore() { [ -n "$script" ] && cp "$W/tree.sh" "$script"; script=; }
trap 'restore; rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
run() { # LABEL TEST
  local rc
  /usr/bin/time -o "$W/time" -f '%e %U %S' nice -n 19 ctest --test-dir "$SRC/$BUILD" -R "^e2e\.$2\$" \
    --output-on-failure </dev/null >"$W/out" 2>&1
  rc=$?
  awk -v l="$1" -v t="$2" -v ok="$([ $rc -eq 0 ] && grep -q '100% tests passed' "$W/out" && echo passed || echo FAILED)" \
    '{ printf "%-8s %-20s %-6s %7.1f s wall %6.1f user %6.1f sys %6.1f s CPU\n", l, t, ok, $1, $2, $3, $2 + $3 }' "$W/time"
  [ $rc -eq 0 ] || tail -20 "$W/out"
}
for t in "$@"; do
  script=$SRC/tests/e2e/$t.sh
  cp "$script" "$W/tree.sh" || exit 1
  git -C "$SRC" show "$REF:tests/e2e/$t.sh" >"$script" || { restore; exit 1; }
  run "$REF" "$t"
  restore
  run tree "$t"
done
