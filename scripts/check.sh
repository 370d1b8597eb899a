#!/usr/bin/env bash
# make check: the tree's format (make format-check), then build and test (Criterion units, CTest
# MPI/end-to-end), the same tests under AddressSanitizer + UBSan, then each fuzz target for a
# few seconds.
# Two chains run side by side once the normal build is done: the normal suite, and beside it the
# sanitizer build and its suite; the chain that ends first then fuzzes. Many end-to-end cases run
# one at a time (RUN_SERIAL: they time something), so one suite alone leaves a core idle much of
# the time; every test must pass on a loaded machine anyway. The second chain's output follows
# the first's.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=$(nproc 2>/dev/null || echo 2)
# each suite one test more than the cores: a serial test (RUN_SERIAL) often waits (on a socket, a
# child, a time limit), and the other suite's tests fill that core while it does
TJOBS=$((JOBS + 1))
export LBSIM_NO_PROGRESS=1
# python3 resolved once, to the interpreter itself, for every test: a version manager's shim
# (pyenv's is a bash script that runs `pyenv exec`) costs some 0.1 s of CPU at every start, and
# each end-to-end script started it once to resolve it (tests/e2e/lib.sh, which takes
# LBS_PYTHON as given); with its directory first on PATH, what other programs start skips the
# shim too. The same interpreter runs.
if py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ]; then
  export LBS_PYTHON=$py PATH=$(dirname "$py"):$PATH
fi

echo "== format (make format-check: clang-format with .clang-format changes no file)"
make -s format-check

echo "== build (RelWithDebInfo, -Wall -Wextra -Werror)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS=-Werror >/dev/null
cmake --build build -j"$JOBS"

echo "== tests; beside them the sanitizer build, the same tests under sanitizers, and fuzzing"
mkdir -p build-asan
log=build-asan/check-ctest.log fuzzlog=build-asan/check-fuzz.log fuzzed=build-asan/check-fuzzed
rm -rf "$log" "$fuzzlog" "$fuzzed"
# Each suite keeps Open MPI's session directories apart (one tree per suite under /tmp): two
# suites' jobs in one /tmp/ompi.HOST.UID race to create and remove its subdirectories.
ompi_normal=$(mktemp -d /tmp/lbs-ompi-XXXXXX) ompi_asan=$(mktemp -d /tmp/lbs-ompi-XXXXXX)
# the fuzzing, run by the chain that gets here first (mkdir claims it); its exit status in the
# directory it claimed
fuzz_once() {
  mkdir "$fuzzed" 2>/dev/null || return 0
  local rc=0
  bash scripts/fuzz.sh "${FUZZ_SECONDS:-10}" >"$fuzzlog" 2>&1 || rc=$?
  echo "$rc" >"$fuzzed/rc"
}
second=
trap '[ -n "$second" ] && kill "$second" 2>/dev/null; rm -rf "$ompi_normal" "$ompi_asan"' EXIT
(
  set +e
  {
    echo "== sanitizer build (address, undefined)"
    # ahead of the normal suite's tests (it is on the longer chain; as root only, elsewhere nice
    # says so and builds at the usual priority)
    cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DLBS_SANITIZE=ON -DCMAKE_C_FLAGS=-Werror >/dev/null &&
      nice -n -5 cmake --build build-asan -j"$JOBS"
  } >"$log" 2>&1 || { echo "check: the sanitizer build failed" >>"$log"; exit 3; }
  (
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    export OMPI_MCA_orte_tmpdir_base=$ompi_asan
    exec ctest --test-dir build-asan --output-on-failure -j"$TJOBS"
  ) >>"$log" 2>&1
  rc=$?
  fuzz_once
  exit $rc
) &
second=$!
normal_rc=0
OMPI_MCA_orte_tmpdir_base=$ompi_normal ctest --test-dir build --output-on-failure -j"$TJOBS" || normal_rc=$?
fuzz_once
second_rc=0
wait "$second" || second_rc=$?
second=
echo "== tests under sanitizers"
cat "$log"
echo "== fuzzing"
[ -f "$fuzzlog" ] && cat "$fuzzlog"
fuzz_rc=$(cat "$fuzzed/rc" 2>/dev/null || echo "not run")
if [ "$normal_rc" -ne 0 ] || [ "$second_rc" -ne 0 ] || [ "$fuzz_rc" != 0 ]; then
  case $second_rc in
  3) what="the sanitizer build failed" ;;
  0) what="passed" ;;
  *) what="exit $second_rc" ;;
  esac
  echo "check: failed (normal tests: exit $normal_rc; sanitizer build and tests: $what; fuzzing: exit $fuzz_rc)"
  exit 1
fi
# reaching here means every stage passed
n=$(ctest --test-dir build -N | grep -oE 'Total Tests: [0-9]+' | grep -oE '[0-9]+')
na=$(ctest --test-dir build-asan -N | grep -oE 'Total Tests: [0-9]+' | grep -oE '[0-9]+')
nf=$(bash scripts/fuzz.sh --list | wc -w)
echo "== make check: $n test suites, $na of them again under sanitizers, and $nf fuzz targets"
echo "check: $((n + na + nf)) passed, 0 failed"
