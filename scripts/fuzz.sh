#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (address + undefined sanitizers) and runs each
# for SECONDS seconds from a seed corpus of real chunks, traces and Chaco graphs.
# A crash leaves its input in build-fuzz/ and makes this script fail.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-15}
B=build-fuzz
cmake -S . -B $B -DCMAKE_C_COMPILER=clang -DLBS_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build $B -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
C=$B/corpus
rm -rf "$C" && mkdir -p "$C/codec" "$C/reader" "$C/chaco"
$B/bin/lbsim trace gen --kind bump --mesh 6x5x4 --steps 3 --chunk 50 -o "$C/reader/bump.lbt" 2>/dev/null
$B/bin/lbsim trace gen --kind random --mesh 5x5 --steps 2 --bound lossless -o "$C/reader/random.lbt" 2>/dev/null
sqlite3 "$C/reader/bump.lbt" "SELECT writefile('$C/codec/s' || id, CAST(char(codec) AS BLOB) || data) FROM chunks" >/dev/null
sqlite3 "$C/reader/random.lbt" "SELECT writefile('$C/codec/r' || id, CAST(char(codec) AS BLOB) || data) FROM chunks" >/dev/null
printf '%% square\n4 4 1\n2 1 4 2\n1 1 3 5\n2 5 4 1\n3 1 1 2\n' >"$C/chaco/square"
# encoder seeds: [0x80 | codec][bound][doubles]: timings with a spike and zeros, a smooth ramp
python3 - "$C/codec" <<'PY'
import struct, sys, math
d = sys.argv[1]
t = [700 * (1 + 0.01 * math.sin(i)) * (10 if i % 37 < 5 else 1) for i in range(300)]
t[17], t[40], t[41] = 7e6, 0.0, float("nan")
for c in range(4):
    for b in (0, 3, 4, 9):
        open("%s/enc%d_%d" % (d, c, b), "wb").write(bytes([0x80 | c, b]) + struct.pack("<300d", *t))
open(d + "/enc_ramp", "wb").write(bytes([0x81, 2]) + struct.pack("<64d", *[100 + 0.5 * i for i in range(64)]))
PY
printf '3 2 111 2\n9 5 6 2 7\n9 1 1 1 7 3 0.5\n9 2 2 2 0.5\n@@\n0 0\n1 0\n2 0\n' >"$C/chaco/weights"
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
rm -f $B/crash-* $B/leak-* $B/timeout-* $B/oom-*
for t in codec reader chaco; do
  if ! (cd $B && ./bin/fuzz_$t -max_total_time="$SECS" -print_final_stats=1 -max_len=65536 \
        "corpus/$t" >"fuzz_$t.log" 2>&1); then
    echo "fuzz_$t: FAILED (input saved in $B):"
    grep -E "ERROR|SUMMARY|runtime error|#0 |#1 |#2 |#3 " "$B/fuzz_$t.log" | head -20
    exit 1
  fi
  echo "fuzz_$t: ${SECS}s, $(grep -oE 'number_of_executed_units: [0-9]+' "$B/fuzz_$t.log" | grep -oE '[0-9]+') inputs, no failure"
done
