#!/usr/bin/env bash
# Runs an MPI program on 1 and on 2 ranks and requires that both exit 0 with identical standard
# output (the MPI cases of tests/CMakeLists.txt, lbs_mpi_test: each program's only test). A run
# that fails shows its output (where mpi_check.h's FAIL lines go) and its standard error.
# usage: ranks_equal.sh MPIEXEC [MPIEXEC_ARGS...] -- PROGRAM [ARGS...]
set -u
launcher=()
while [ "$1" != "--" ]; do launcher+=("$1"); shift; done
shift
T=$(mktemp -d /tmp/lbs_ranks_XXXXXX)
trap 'rm -rf "$T"' EXIT
"${launcher[@]}" -n 1 "$@" >"$T/np1" 2>"$T/err1" || { echo "FAIL: 1 rank exited non-zero"; cat "$T/np1" "$T/err1"; exit 1; }
"${launcher[@]}" -n 2 "$@" >"$T/np2" 2>"$T/err2" || { echo "FAIL: 2 ranks exited non-zero"; cat "$T/np2" "$T/err2"; exit 1; }
if cmp -s "$T/np1" "$T/np2"; then
  echo "1 passed, 0 failed (identical output on 1 and 2 ranks, $(wc -l <"$T/np1") lines)"
else
  echo "FAIL: output differs between 1 and 2 ranks:"
  diff "$T/np1" "$T/np2" | head -20
  echo "0 passed, 1 failed"
  exit 1
fi
