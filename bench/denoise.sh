#!/usr/bin/env bash
# bench/denoise.sh - what trace recode --denoise does to a replay (issue 30, item 7): a real
# profile (tests/data/heat_2ranks.lbt: the heat code on 2 ranks, every element timed, lossless;
# a uniform Jacobi sweep, so its real imbalance over processors is near 0) replayed on
# homogeneous16 with fixed:10, as profiled and after each rule, side by side.
# usage: bench/denoise.sh [BUILD_DIR [TRACE]]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
IN=${2:-tests/data/heat_2ranks.lbt}
T=$(mktemp -d /tmp/lbs_denoise_XXXXXX)
trap 'rm -rf "$T"' EXIT
export LBSIM_NO_PROGRESS=1
echo "bench/denoise: $IN replayed on examples/grids/homogeneous16.ini with zoltan:rcb, fixed:10"
printf '%-14s %9s %12s %15s %18s %18s\n' rule changed "total s" "mean imbalance" "initial work imb" "max work imb"
for rule in none spike spike:5:3 spike:3:10 median median:5; do
  f=$IN changed=0
  if [ "$rule" != none ]; then
    f=$T/$rule.lbt
    changed=$("$B/bin/lbsim" trace recode "$IN" -o "$f" --bound lossless --denoise "$rule" 2>&1 |
      sed -n 's/.* changed \([0-9]*\) values.*/\1/p')
  fi
  "$B/bin/lbsim" replay "$f" --grid examples/grids/homogeneous16.ini --policy fixed:10 --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); r,c=sys.argv[1:3]; print("%-14s %9s %12.6f %15.4f %18.4f %18.4f" % (r, c, d["total_time_s"], d["mean_imbalance"], d["initial_work_imbalance"], d["max_work_imbalance"]))' "$rule" "$changed"
done
