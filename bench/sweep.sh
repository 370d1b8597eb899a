#!/usr/bin/env bash
# lbsim sweep: the 3 x 3 x 3 study of examples/whatif/study.ini on seed 002's bump trace, on
# 1 and on 2 MPI ranks in one run (fresh stores), and the speed-up; the tidy CSVs must agree.
# Two figures per rank count: the whole command (MPI start-up included) and the farm alone (the
# sweep's own "in X s": from the first task handed out to the last run stored). REPEAT runs
# each, alternating 1 and 2 ranks, medians printed.
# usage: bench/sweep.sh [STEPS [REPEAT]]   (the bump trace's steps, default 120; mesh 30x20x20)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
L=${LBSIM:-$SRC/build/bin/lbsim}
STEPS=${1:-120}
REPEAT=${2:-3}
W=$(mktemp -d /tmp/lbs_bench_sweep_XXXXXX)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 LBSIM_NO_PROGRESS=1
"$L" trace gen --kind bump --steps "$STEPS" -o "$W/bump.lbt" 2>/dev/null
cp "$SRC/examples/whatif/study.ini" "$W/study.ini"
cd "$W"
run() { # RANKS -> "command-seconds farm-seconds"
  rm -f whatif.db whatif.csv
  local t0 t1 farm
  t0=$(date +%s.%N)
  farm=$(mpiexec --allow-run-as-root --oversubscribe -n "$1" "$L" sweep study.ini 2>/dev/null | sed -E 's/.* in ([0-9.]+) s on .*/\1/')
  t1=$(date +%s.%N)
  cp whatif.csv "np$1.csv"
  awk -v a="$t0" -v b="$t1" -v f="$farm" 'BEGIN { print b - a, f }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
: >one.txt
: >two.txt
for _ in $(seq "$REPEAT"); do
  run 1 >>one.txt
  run 2 >>two.txt
  cmp -s np1.csv np2.csv || { echo "bench/sweep.sh: 1 and 2 ranks disagree" >&2; exit 1; }
done
# the baseline a user had: a shell loop of 27 `lbsim replay` runs into one store (MPI started
# 27 times), the same grids, partitioners and policies
for g in HO:1 UP:2 DN:2; do
  "$L" grid gen --family "${g%%:*}" --procs 16 --clusters 4 --slowdown "${g##*:}" -o "grid_${g%%:*}.ini" -f
done
loop() {
  rm -f loop.db
  local t0 t1
  t0=$(date +%s.%N)
  for g in HO UP DN; do
    for p in zoltan:rcb zoltan:hsfc metis; do
      for q in none fixed:10 adaptive:0.1:2:20; do
        "$L" replay bump.lbt --grid "grid_$g.ini" --partitioner "$p" --policy "$q" --results loop.db >/dev/null
      done
    done
  done
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}
: >loop.txt
for _ in $(seq "$REPEAT"); do loop >>loop.txt; done
cl=$(median <loop.txt)
c1=$(cut -d' ' -f1 one.txt | median) f1=$(cut -d' ' -f2 one.txt | median)
c2=$(cut -d' ' -f1 two.txt | median) f2=$(cut -d' ' -f2 two.txt | median)
printf "sweep 27 tasks, bump 30x20x20 x %s steps, median of %s (nproc %s):\n" "$STEPS" "$REPEAT" "$(nproc)"
printf "  whole command: 1 rank %.2f s, 2 ranks %.2f s, speed-up %.2fx\n" "$c1" "$c2" "$(awk -v a="$c1" -v b="$c2" 'BEGIN { print a / b }')"
printf "  the farm:      1 rank %.2f s, 2 ranks %.2f s, speed-up %.2fx\n" "$f1" "$f2" "$(awk -v a="$f1" -v b="$f2" 'BEGIN { print a / b }')"
printf "  baseline, a shell loop of 27 lbsim replay: %.2f s; the sweep on 1 rank is %.2fx faster, on 2 ranks %.2fx\n" "$cl" \
  "$(awk -v a="$cl" -v b="$c1" 'BEGIN { print a / b }')" "$(awk -v a="$cl" -v b="$c2" 'BEGIN { print a / b }')"
