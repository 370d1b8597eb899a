#!/usr/bin/env bash
# IPG accuracy, creation time and sample economy on this machine (issue: Calibration I).
#  1. lbsim calibrate run for the CPU implementations of every kernel (accuracy 5%, floor
#     50 us, the kernels' default ranges of 4 decades or more): creation time and samples;
#  2. lbsim calibrate verify: 250 random invocations per IPG, mean/RMS/max error;
#  3. bench_calib_samples: the IA heuristic against dense uniform and log-spaced sampling on
#     the same random invocations (the sample count each needs for the IA's error).
set -eu
BUILD=${BUILD:-build}
L=$BUILD/bin/lbsim
OUT=${OUT:-$BUILD/bench-calibrate}
mkdir -p "$OUT"
rm -f "$OUT/calib.db"
export LBSIM_NO_PROGRESS=1
KERNELS=${KERNELS:-"sort dot conv1d matmul wave walk bhforce"}
for k in $KERNELS; do
  "$L" calibrate run --kernel "$k" --impl cpu -o "$OUT/calib.db" --json >"$OUT/run_$k.json" || true
  python3 -c "import json; d=json.load(open('$OUT/run_$k.json'));
[print('run    %-14s %-9s %4d samples %3d points %6.1f s' % (i['impl'], i['status'], i['samples'], i['points'], i['seconds'])) for i in d['ipgs']]"
done
"$L" calibrate verify "$OUT/calib.db" --json >"$OUT/verify.json"
python3 - "$OUT/verify.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for v in d["verifications"]:
    print("verify %-14s n=%d mean %.2f%%  rms %.2f%%  max %.1f%%  median %.2f%%  mean(floor %g s) %.2f%%" % (
        v["impl"], v["n"], 100 * v["mean_err"], 100 * v["rms_err"], 100 * v["max_err"], 100 * v["median_err"],
        v["floor_s"], 100 * v["mean_err_floor"]))
PY
IMPLS=""
for k in ${SAMPLE_KERNELS:-"dot sort wave"}; do IMPLS="$IMPLS $k.cpu"; done
"$BUILD/bin/bench_calib_samples" $IMPLS
