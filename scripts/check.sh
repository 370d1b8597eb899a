#!/usr/bin/env bash
# make check: the tree's format (make format-check), then build and test (Criterion units, CTest
# MPI/end-to-end), the same tests under AddressSanitizer + UBSan, then each fuzz target for a
# few seconds.
# The two test suites run side by side: most end-to-end cases run one at a time (RUN_SERIAL:
# MPI jobs on 2 cores), so each suite alone leaves a core idle; every test must pass on a
# loaded machine anyway. The sanitizer suite's output follows the normal one's.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=$(nproc 2>/dev/null || echo 2)
export LBSIM_NO_PROGRESS=1

echo "== format (make format-check: clang-format with .clang-format changes no file)"
make -s format-check

echo "== build (RelWithDebInfo, -Wall -Wextra -Werror)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS=-Werror >/dev/null
cmake --build build -j"$JOBS"
echo "== sanitizer build (address, undefined)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DLBS_SANITIZE=ON -DCMAKE_C_FLAGS=-Werror >/dev/null
cmake --build build-asan -j"$JOBS"

echo "== tests, and beside them the same tests under sanitizers"
log=build-asan/check-ctest.log
# Each suite keeps Open MPI's session directories apart (one tree per suite under /tmp): two
# suites' jobs in one /tmp/ompi.HOST.UID race to create and remove its subdirectories.
ompi_normal=$(mktemp -d /tmp/lbs-ompi-XXXXXX) ompi_asan=$(mktemp -d /tmp/lbs-ompi-XXXXXX)
trap 'rm -rf "$ompi_normal" "$ompi_asan"' EXIT
(
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  export OMPI_MCA_orte_tmpdir_base=$ompi_asan
  rc=0
  ctest --test-dir build-asan --output-on-failure -j"$JOBS" >"$log" 2>&1 || rc=$?
  exit "$rc"
) &
asan=$!
normal_rc=0
OMPI_MCA_orte_tmpdir_base=$ompi_normal ctest --test-dir build --output-on-failure -j"$JOBS" || normal_rc=$?
asan_rc=0
wait "$asan" || asan_rc=$?
echo "== tests under sanitizers"
cat "$log"
if [ "$normal_rc" -ne 0 ] || [ "$asan_rc" -ne 0 ]; then
  echo "check: tests failed (normal build: exit $normal_rc, sanitizer build: exit $asan_rc)"
  exit 1
fi

echo "== fuzzing"
bash scripts/fuzz.sh "${FUZZ_SECONDS:-10}"
# set -e stops at the first failure, so reaching here means every stage passed
n=$(ctest --test-dir build -N | grep -oE 'Total Tests: [0-9]+' | grep -oE '[0-9]+')
na=$(ctest --test-dir build-asan -N | grep -oE 'Total Tests: [0-9]+' | grep -oE '[0-9]+')
nf=$(bash scripts/fuzz.sh --list | wc -w)
echo "== make check: $n test suites, $na of them again under sanitizers, and $nf fuzz targets"
echo "check: $((n + na + nf)) passed, 0 failed"
