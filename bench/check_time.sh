#!/usr/bin/env bash
# make check's end-to-end scripts, each timed as the git revision REF has it and as the work tree
# has it, back to back on the same build (the same lbsim and test programs): what a change to the
# scripts saves, test by test. Each script runs as ctest runs it (LBS_MPI_ENV, LBSIM_NO_PROGRESS;
# under a sanitizer build also make check's ASAN_OPTIONS, leaks off as in LBS_MPI_ENV), niced,
# with its own lib.sh of the same revision. Prints one line per run: revision, test, exit status,
# wall seconds and the script's closing line. A timing, never a check: on a machine others use,
# compare the two lines of a pair only.
# usage: bench/check_time.sh [-b BUILD] REF TEST...   e.g. bench/check_time.sh main bad_inputs lua_policy
#   BUILD: build (default) or build-asan; TEST: a script of tests/e2e without .sh (its usual
#   arguments: lbsim and the source directory, or for profiler_* lbsim and prof_app)
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=build
if [ "${1:-}" = -b ]; then BUILD=$2 && shift 2; fi
REF=${1:?usage: bench/check_time.sh [-b BUILD] REF TEST...}
shift
B=$SRC/$BUILD
[ -x "$B/bin/lbsim" ] || { echo "check_time: $B/bin/lbsim: not built" >&2; exit 1; }
W=$(mktemp -d /tmp/lbs_bench_check_XXXXXX)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_ess_singleton_isolated=1 LBSIM_NO_PROGRESS=1 ASAN_OPTIONS=detect_leaks=0
case $BUILD in *asan*) export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ;; esac
export LBS_TEST_PLUGIN_EXTRAS=$B/tests/libtest_plugin_extras.so
mkdir -p "$W/ref/tests/e2e"
git -C "$SRC" show "$REF:tests/e2e/lib.sh" >"$W/ref/tests/e2e/lib.sh" || exit 1
run() { # LABEL SCRIPT TEST
  local args=("$B/bin/lbsim" "$SRC") t0 rc
  case $3 in profiler_*) args=("$B/bin/lbsim" "$B/bin/prof_app") ;; esac
  t0=$(date +%s.%N)
  nice -n 19 bash "$2" "${args[@]}" </dev/null >"$W/out" 2>&1
  rc=$?
  awk -v a="$t0" -v b="$(date +%s.%N)" -v l="$1" -v t="$3" -v rc="$rc" -v last="$(tail -1 "$W/out")" \
    'BEGIN { printf "%-8s %-18s exit %d %7.1f s  %s\n", l, t, rc, b - a, last }'
}
for t in "$@"; do
  git -C "$SRC" show "$REF:tests/e2e/$t.sh" >"$W/ref/tests/e2e/$t.sh" || exit 1
  run "$REF" "$W/ref/tests/e2e/$t.sh" "$t"
  run "tree" "$SRC/tests/e2e/$t.sh" "$t"
done
