#!/usr/bin/env bash
# IPG accuracy, creation time and sample economy on this machine (issue: Calibration I).
#  1. lbsim calibrate run for the CPU implementations of every kernel (accuracy 5%, floor
#     50 us, the kernels' default ranges of 4 decades or more): creation time and samples;
#  2. lbsim calibrate verify: 250 random invocations per IPG, mean/RMS/max error, under the
#     usage assumptions (CreateParams at log-uniform metrics) and with varied shapes;
#  3. bench_calib_samples: the IA heuristic against dense uniform and log-spaced sampling on
#     the same random invocations (the sample count each needs for the IA's error).
set -eu
BUILD=${BUILD:-build}
L=$BUILD/bin/lbsim
OUT=${OUT:-$BUILD/bench-calibrate}
mkdir -p "$OUT"
rm -f "$OUT/calib.db"
export LBSIM_NO_PROGRESS=1
# RUN_OPTS: more options of `calibrate run` (e.g. "--accuracy 10"); KERNELS, SAMPLE_KERNELS: subsets.
KERNELS=${KERNELS:-"sort dot conv1d matmul wave walk bhforce"}
for k in $KERNELS; do
  "$L" calibrate run --kernel "$k" --impl cpu ${RUN_OPTS:-} -o "$OUT/calib.db" --json >"$OUT/run_$k.json" || true
  python3 -c "import json; d=json.load(open('$OUT/run_$k.json'));
[print('run    %-14s %-9s %4d samples %3d points %6.1f s' % (i['impl'], i['status'], i['samples'], i['points'], i['seconds'])) for i in d['ipgs']]"
done
for inv in usage varied; do
  "$L" calibrate verify "$OUT/calib.db" --invocations $inv --json >"$OUT/verify_$inv.json" || true
  python3 - "$OUT/verify_$inv.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for v in d["verifications"]:
    print("verify %-14s %-6s n=%d mean %.2f%%  rms %.2f%%  max %.1f%%  median %.2f%%  mean(floor %g s) %.2f%%" % (
        v["impl"], v["invocations"], v["n"], 100 * v["mean_err"], 100 * v["rms_err"], 100 * v["max_err"],
        100 * v["median_err"], v["floor_s"], 100 * v["mean_err_floor"]))
PY
done
# The machine's own repeatability, the floor under any IPG error: the usage verification once
# more (the same invocations: same seeds), paired with the first, |t2 - t1| / max(t1, floor).
"$L" calibrate verify "$OUT/calib.db" --invocations usage --json >"$OUT/verify_again.json" || true
"$L" calibrate show "$OUT/calib.db" --json >"$OUT/show.json"
python3 - "$OUT/show.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
impl = {g["id"]: g["impl"] for g in d["ipgs"]}
by = {}
for v in d["verifies"]:
    by.setdefault(v["ipg_id"], []).append(v)
for gid, vs in sorted(by.items()):
    a, c = vs[0], vs[-1]  # the first usage verification and the repeat (varied ones have other invocations)
    if len(vs) < 3 or len(a["points"]) != len(c["points"]):
        continue
    fl = a["floor_s"]
    e = [abs(q[1] - p[1]) / max(p[1], fl) for p, q in zip(a["points"], c["points"]) if p[0] == q[0]]
    if e:
        print("repeat %-14s n=%d same invocations measured twice: mean |t2-t1|/max(t1, %g s) %.2f%% (IPG: %.2f%% then %.2f%%)" % (
            impl[gid], len(e), fl, 100 * sum(e) / len(e), 100 * a["mean_err_floor"], 100 * c["mean_err_floor"]))
PY
IMPLS=""
for k in ${SAMPLE_KERNELS:-dot sort wave}; do IMPLS="$IMPLS $k.cpu"; done
"$BUILD/bin/bench_calib_samples" $IMPLS
