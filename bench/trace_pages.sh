#!/usr/bin/env bash
# bench/trace_pages.sh - small traces on disk (see bench/RESULTS.md, "Small traces on disk"):
# records real profiles of examples/instrumented/heat on 2 ranks (N x N cells, 30 steps, the
# profiler's default settings) for N = 64, 128, 256 and 512, and the lossless real profile
# tests/data/heat_2ranks.lbt recoded at the default bound and losslessly, then runs bench_trace_pages on them:
# file bytes against blob bytes and read times, as the writer leaves the file against the same
# rows in 4 KiB pages, in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_pages}
rm -rf "$W"
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_ess_singleton_isolated=1
unset LBSPROF_BOUND LBSPROF_CODEC LBSPROF_SAMPLE_EVERY LBSPROF_COLLECTOR LBSPROF_METRICS
for n in 64 128 256 512; do
  mpiexec --allow-run-as-root --oversubscribe -n 2 $B/heat "$W/heat$n.lbt" $n 30 </dev/null >/dev/null
done
$B/lbsim trace recode tests/data/heat_2ranks.lbt -o "$W/heat96_recoded.lbt" </dev/null >/dev/null
# the lossless profile as it is in the tree (written in 4 KiB pages), and recoded losslessly
cp tests/data/heat_2ranks.lbt "$W/heat96_lossless_old.lbt"
$B/lbsim trace recode tests/data/heat_2ranks.lbt --bound lossless -o "$W/heat96_lossless.lbt" </dev/null >/dev/null
echo "bench/trace_pages: file bytes against blob bytes (chunks and arrays), as written against 4 KiB pages"
$B/bench_trace_pages "$W"/heat64.lbt "$W"/heat128.lbt "$W"/heat256.lbt "$W"/heat512.lbt \
  "$W"/heat96_recoded.lbt "$W"/heat96_lossless.lbt "$W"/heat96_lossless_old.lbt
