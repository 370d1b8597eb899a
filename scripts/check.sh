#!/usr/bin/env bash
# make check: build and test (Criterion units, CTest MPI/end-to-end), then the same tests
# under AddressSanitizer + UBSan, then each fuzz target for a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=$(nproc 2>/dev/null || echo 2)
export LBSIM_NO_PROGRESS=1

echo "== build (RelWithDebInfo, -Wall -Wextra -Werror)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS=-Werror >/dev/null
cmake --build build -j"$JOBS"
echo "== tests"
ctest --test-dir build --output-on-failure -j"$JOBS"

echo "== sanitizer build (address, undefined)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DLBS_SANITIZE=ON -DCMAKE_C_FLAGS=-Werror >/dev/null
cmake --build build-asan -j"$JOBS"
echo "== tests under sanitizers"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$JOBS"

echo "== fuzzing"
bash scripts/fuzz.sh "${FUZZ_SECONDS:-15}"
# set -e stops at the first failure, so reaching here means every stage passed
n=$(ctest --test-dir build -N | grep -oE 'Total Tests: [0-9]+' | grep -oE '[0-9]+')
na=$(ctest --test-dir build-asan -N | grep -oE 'Total Tests: [0-9]+' | grep -oE '[0-9]+')
nf=$(bash scripts/fuzz.sh --list | wc -w)
echo "== make check: $n test suites, $na of them again under sanitizers, and $nf fuzz targets"
echo "check: $((n + na + nf)) passed, 0 failed"
