#!/usr/bin/env bash
# bench/malloc_tune.sh - whole lbsim commands with the heap set for large arrays
# (cli/malloc_tune.c: arrays from the heap, freed memory kept, transparent huge pages) against
# glibc's defaults (GLIBC_TUNABLES=glibc.malloc.hugetlb=0, glibc's own default value, which
# tells lbsim to leave malloc alone), interleaved, REPS runs each; the median of wall, CPU (user
# + sys), minor page faults and peak RSS.
#
# usage: bash bench/malloc_tune.sh          (BENCH_REPS, default 7; BENCH_DIR, default
#        /tmp/lbs_bench_malloc)
set -euo pipefail
cd "$(dirname "$0")/.."
L=$PWD/build/bin/lbsim
W=${BENCH_DIR:-/tmp/lbs_bench_malloc}
REPS=${BENCH_REPS:-7}
mkdir -p "$W"
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -f "$W/small.lbt" ] || "$L" trace gen --kind bump --mesh 16x12x10 --steps 30 -o "$W/small.lbt" 2>/dev/null
[ -f "$W/b64.lbt" ] || "$L" trace gen --kind bump --mesh 64x64x32 --steps 10 -o "$W/b64.lbt" 2>/dev/null
grid() { # P shared
  printf '[grid]\nname = one%d\nns_per_work = 1\n\n[cluster main]\nnodes = %d\nlatency_us = 5\nbandwidth_gbps = 10\nshared = %s\n' \
    "$1" "$1" "$2" >"$W/g$1$2.ini"
  echo "$W/g$1$2.ini"
}
G16=$(grid 16 false) G256=$(grid 256 true)

# median of column $1 of a file of "wall cpu faults rss" lines
med() { sort -g -k"$1" "$2" | awk -v c="$1" '{v[NR] = $c} END {print v[int((NR + 1) / 2)]}'; }
one() { # file cmd...: appends "wall cpu faults rss_kb"
  local f=$1
  shift
  /usr/bin/time -f '%e %U %S %R %M' -o "$W/t" "$@" >/dev/null 2>"$W/err" </dev/null ||
    { cat "$W/err" >&2; exit 1; }
  awk '{printf "%s %.3f %s %s\n", $1, $2 + $3, $4, $5}' "$W/t" >>"$f"
}
case_() { # name cmd...
  local name=$1
  shift
  : >"$W/on" && : >"$W/off"
  for ((i = 0; i < REPS; i++)); do
    one "$W/on" "$@"
    one "$W/off" env GLIBC_TUNABLES=glibc.malloc.hugetlb=0 "$@"
  done
  printf '%-34s %7s %7s %7s %7s %8s %8s %9s %9s\n' "$name" "$(med 1 "$W/off")" "$(med 1 "$W/on")" \
    "$(med 2 "$W/off")" "$(med 2 "$W/on")" "$(med 3 "$W/off")" "$(med 3 "$W/on")" \
    "$(med 4 "$W/off")" "$(med 4 "$W/on")"
}
printf '%-34s %7s %7s %7s %7s %8s %8s %9s %9s\n' case "wall" "wall" "cpu" "cpu" faults faults \
  "rss KB" "rss KB"
printf '%-34s %7s %7s %7s %7s %8s %8s %9s %9s\n' "" glibc tuned glibc tuned glibc tuned glibc tuned
case_ "replay 1,920 el. x 30, fixed:5" "$L" replay "$W/small.lbt" --grid examples/grids/homogeneous16.ini \
  --policy fixed:5 --json
case_ "replay 131,072 x 10, P=16 bsp" "$L" replay "$W/b64.lbt" --grid "$G16" --mode bsp --json
case_ "replay 131,072 x 10, P=16, fixed:3" "$L" replay "$W/b64.lbt" --grid "$G16" --policy fixed:3 --json
case_ "replay 131,072 x 10, P=256 des shared" "$L" replay "$W/b64.lbt" --grid "$G256" --mode des --json
case_ "partition 131,072, P=256, 3 parts." "$L" partition "$W/b64.lbt" --grid "$G256" \
  --partitioner zoltan:rcb,metis:kway,minex --json
case_ "trace info 131,072 x 10" "$L" trace info "$W/b64.lbt"
