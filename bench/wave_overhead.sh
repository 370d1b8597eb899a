#!/usr/bin/env bash
# The profiler's overhead on a real application: apps/wave run unprofiled and profiled
# (--trace, every step sampled, the default bound and codec) in alternating order, REPEATS
# pairs, on RANKS ranks; the total of each run from its --json (barrier to barrier, rank 0's
# clock), the medians, and the median of the pairs' ratios; and the processor time of the ranks
# and of the profiler's agent and collector (wave.cpu_s, wave.helpers_cpu_s), which other jobs
# on a shared machine stretch less than the wall clock. Extra arguments go to wave (default:
# its default size).
# usage: bench/wave_overhead.sh BUILD_DIR [RANKS [REPEATS [wave args...]]]
set -u
B=${1:?usage: wave_overhead.sh BUILD_DIR [RANKS [REPEATS [wave args...]]]}
N=${2:-2}
R=${3:-5}
shift $(($# < 3 ? $# : 3))
T=$(mktemp -d /tmp/lbs_wave_bench_XXXXXX)
trap 'rm -rf "$T"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset LBSPROF_BOUND LBSPROF_CODEC LBSPROF_SAMPLE_EVERY LBSPROF_COLLECTOR LBSPROF_METRICS LBSPROF_ON_FULL
total() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['total_s'], d['wave']['cpu_s'], d['wave']['helpers_cpu_s'])" "$1"; }
one() { # one KIND I: a run, its total appended to $T/KIND
  local kind=$1 i=$2 extra=()
  shift 2
  [ "$kind" = prof ] && extra=(--trace "$T/w$i.lbt")
  mpiexec --allow-run-as-root --oversubscribe -n "$N" "$B/bin/wave" --quiet --json "$T/$kind$i.json" "${extra[@]}" "$@" \
    >/dev/null 2>"$T/err" || { cat "$T/err"; exit 1; }
  total "$T/$kind$i.json" >>"$T/$kind"
}
echo "wave $* on $N ranks, $R pairs (unprofiled, profiled; the order alternates)"
for i in $(seq "$R"); do
  if [ $((i % 2)) -eq 1 ]; then one plain "$i" "$@"; one prof "$i" "$@"; else one prof "$i" "$@"; one plain "$i" "$@"; fi
  echo "  pair $i: unprofiled $(tail -1 "$T/plain" | cut -d' ' -f1) s, profiled $(tail -1 "$T/prof" | cut -d' ' -f1) s"
done
uptime
python3 - "$T/plain" "$T/prof" <<'EOF'
import statistics, sys
A = [[float(v) for v in x.split()] for x in open(sys.argv[1])]
B = [[float(v) for v in x.split()] for x in open(sys.argv[2])]
a, b = [x[0] for x in A], [x[0] for x in B]
r = [y / x - 1 for x, y in zip(a, b)]
med = statistics.median
print(f"median total: unprofiled {med(a):.3f} s, profiled {med(b):.3f} s; "
      f"overhead: median of pairs {100 * med(r):+.1f}% (pairs {', '.join(f'{100 * x:+.1f}%' for x in r)}), "
      f"of medians {100 * (med(b) / med(a) - 1):+.1f}%")
ca, cb, ch = med([x[1] for x in A]), med([x[1] for x in B]), med([x[2] for x in B])
print(f"median processor time: unprofiled ranks {ca:.2f} s; profiled ranks {cb:.2f} s ({100 * (cb / ca - 1):+.1f}%) "
      f"+ agent and collector {ch:.2f} s (all {100 * ((cb + ch) / ca - 1):+.1f}%)")
EOF
