#!/usr/bin/env bash
# bench/recorded.sh - self-validation (issue 30): a profiled run that migrates, replayed with
# its own recorded assignments (--policy recorded) on this machine as a grid, against the
# profiled run's own measured total (and an unprofiled run of the same schedule beside it).
#   1. lbsim grid probe on 2 ranks (this machine as a grid);
#   2. for each schedule (SCHEDULES, default "--schedule 20,65" and "--policy fixed:20"): wave at
#      its default size on 2 ranks, unprofiled then profiled (--trace), each with --json;
#   3. lbsim replay TRACE --grid machine.ini --policy recorded --json: predicted total, its
#      compute, migration, communication and the recorded time outside the elements (event
#      outside_s), against the measured totals; and the same replay without that time
#      (--set sim.outside=no), the prediction before it was recorded.
# Run on a quiet machine (nothing else busy). Extra arguments go to wave.
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin
W=${BENCH_DIR:-/tmp/lbs_bench_recorded}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPI=(mpiexec --allow-run-as-root --oversubscribe)
echo "bench/recorded: $(date -u +%FT%TZ), $(nproc) cores, wave $*"
[ -s "$W/machine.ini" ] || "${MPI[@]}" -n 2 $B/lbsim grid probe -o "$W/machine.ini" -f
i=0
while read -r sched; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  "${MPI[@]}" -n 2 $B/wave --quiet $sched --json "$W/plain$i.json" "$@" </dev/null >/dev/null
  rm -f "$W/w$i.lbt"
  # shellcheck disable=SC2086
  "${MPI[@]}" -n 2 $B/wave --quiet $sched --trace "$W/w$i.lbt" --json "$W/prof$i.json" "$@" </dev/null >/dev/null
  $B/lbsim replay "$W/w$i.lbt" --grid "$W/machine.ini" --policy recorded --json >"$W/rec$i.json"
  $B/lbsim replay "$W/w$i.lbt" --grid "$W/machine.ini" --policy recorded --set sim.outside=no \
    --json >"$W/rec_no$i.json"
  python3 - "$sched" "$W/plain$i.json" "$W/prof$i.json" "$W/rec$i.json" "$W/rec_no$i.json" <<'PY'
import json, sys
s, a, b, r, n = sys.argv[1], *(json.load(open(f)) for f in sys.argv[2:6])
print(f"{s}: repartitions at {b['repartitions']} (recorded {r['repartition_steps']}); "
      f"measured total: unprofiled {a['total_s']:.3f} s, profiled {b['total_s']:.3f} s; "
      f"predicted {r['total_time_s']:.3f} s (compute {r['compute_time_s']:.3f}, migration "
      f"{r['migration_time_s']:.4f}, communication {r['comm_time_s']:.3f}): "
      f"{100 * (r['total_time_s'] / b['total_s'] - 1):+.1f}% of the profiled run, "
      f"{100 * (r['total_time_s'] / a['total_s'] - 1):+.1f}% of the unprofiled; "
      f"outside {r.get('outside_time_s', 0):.3f} s; without it ({n['total_time_s']:.3f} s) "
      f"{100 * (n['total_time_s'] / b['total_s'] - 1):+.1f}% of the profiled run; "
      f"measured migration {b.get('migration_s', float('nan')):.4f} s profiled, {a.get('migration_s', float('nan')):.4f} s unprofiled")
PY
done <<<"${SCHEDULES:-$'--schedule 20,65\n--policy fixed:20'}"
uptime
