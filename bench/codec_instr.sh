#!/usr/bin/env bash
# bench/codec_instr.sh - the trace codecs' instructions a value (see bench/RESULTS.md, "Speeds
# and sizes on 1M-element steps"): `bench_trace_codec --once` (step 120 of the smooth bump, the
# noisy bump and the hotspot trace, 1M elements each, encoded and decoded once at the default
# settings) under callgrind, for each build given, side by side; the inclusive counts of
# lbs_codec_encode and lbs_codec_decode per element, and the blobs' hash (the same bytes, the
# same hash). Instruction counts are repeatable where wall time on a shared machine is not.
#
#   bash bench/codec_instr.sh [BENCH_BINARY...]   (default build/bin/bench_trace_codec)
#   e.g. bash bench/codec_instr.sh /tmp/old/bench_trace_codec build/bin/bench_trace_codec
set -euo pipefail
cd "$(dirname "$0")/.."
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
[ $# -gt 0 ] || set -- build/bin/bench_trace_codec
printf '%-44s %-24s %10s %10s  %s\n' binary trace "encode/el" "decode/el" "blobs"
for b in "$@"; do
  # a dump before each trace's generation: part 2 holds the first trace, part 3 the second, the
  # final dump the third
  valgrind --tool=callgrind --dump-before=lbs_gen_step --callgrind-out-file="$W/cg" "$b" --once \
    >"$W/out" 2>/dev/null
  parts=("$W/cg.2" "$W/cg.3" "$W/cg")
  for t in 0 1 2; do
    line=$(grep -v '^==' "$W/out" | sed -n "$((t + 1))p")
    name=${line%%:*}
    counts=$(callgrind_annotate --inclusive=yes --threshold=100 "${parts[$t]}" 2>/dev/null |
      awk '/codec.c:lbs_codec_encode /{gsub(",","",$1); e=$1} /codec.c:lbs_codec_decode /{gsub(",","",$1); d=$1}
           END {printf "%10.1f %10.1f", e / 1e6, d / 1e6}')
    printf '%-44s %-24s %s  %s\n' "$b" "$name" "$counts" "$(echo "$line" | sed -n 's/.*blobs \([0-9a-f]*\).*/\1/p')"
  done
done
