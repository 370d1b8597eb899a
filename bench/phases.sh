#!/usr/bin/env bash
# bench/phases.sh - phases as a multi-constraint load (issue 30, item 6): a phased wave trace
# (time_ns.H, time_ns.E) replayed with and without [sim] phase_constraints, phases charged per
# phase ([sim] phases = yes, the default) in both.
#   1. wave at its default size on 2 ranks, profiled (--trace), unless $BENCH_DIR/w.lbt exists;
#   2. the same trace denoised (lbsim trace recode --denoise spike on time_ns and both phases: a
#      preempted rank charges one element a whole time slice, bench/denoise.sh);
#   3. for each trace (raw, cut), grid (GRIDS), partitioner (PARTS) and policy (POLICIES):
#      lbsim replay --json with --set sim.phase_constraints=no, then =yes: the totals, their
#      compute, and the change.
# Extra arguments go to wave.
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_phases}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI=(mpiexec --allow-run-as-root --oversubscribe)
echo "bench/phases: $(date -u +%FT%TZ), $(nproc) cores, wave $*"
[ -s "$W/w.lbt" ] || "${MPI[@]}" -n 2 $B/wave --quiet --trace "$W/w.lbt" "$@" </dev/null >/dev/null
[ -s "$W/wc.lbt" ] || $B/lbsim trace recode "$W/w.lbt" -o "$W/wc.lbt" --denoise time_ns=spike \
  --denoise time_ns.H=spike --denoise time_ns.E=spike
echo "| trace | grid | partitioner | policy | total (compute), s: sum | phase constraints | change |"
echo "|---|---|---|---|---|---|---|"
for trace in w wc; do
  for grid in ${GRIDS:-homogeneous16 two_sites}; do
    for part in ${PARTS:-zoltan:rcb metis:kway:speed}; do
      for pol in ${POLICIES:-none fixed:20}; do
        for con in no yes; do # METIS prints its complaints on stdout: the JSON is the last line
          $B/lbsim replay "$W/$trace.lbt" --grid "examples/grids/$grid.ini" --partitioner "$part" \
            --policy "$pol" --set "sim.phase_constraints=$con" --json 2>/dev/null | tail -n 1 >"$W/r_$con.json"
        done
        python3 - "$trace" "$grid" "$part" "$pol" "$W/r_no.json" "$W/r_yes.json" <<'PY'
import json, sys
t, g, p, pol = sys.argv[1:5]
a, b = (json.load(open(f)) for f in sys.argv[5:7])
assert a["phases"] == b["phases"] == ["time_ns.H", "time_ns.E"], (a["phases"], b["phases"])
print(f"| {'as profiled' if t == 'w' else 'denoised'} | {g} | {p} | {pol} | "
      f"{a['total_time_s']:.3f} ({a['compute_time_s']:.3f}) | "
      f"{b['total_time_s']:.3f} ({b['compute_time_s']:.3f}) | "
      f"{100 * (b['total_time_s'] / a['total_time_s'] - 1):+.1f}% |")
PY
      done
    done
  done
done
uptime
