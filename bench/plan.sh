#!/usr/bin/env bash
# RACECAR plans run for real on this machine (issue: Calibration II).
#  1. lbsim calibrate run: the kernel on one thread, on all threads, and on OpenCL (PoCL here);
#  2. lbsim calibrate plan: the node's plan from those IPGs (the template's own time measured);
#  3. lbsim calibrate run-plan: the plan at large works, median of REPEAT runs, against its own
#     prediction and against every implementation alone (best single, and one thread);
#  4. bench_racecar: RACECAR's planning time and answers against a brute-force search.
# KERNELS (default "matmul bhforce sort"), RUN_OPTS (more `calibrate run` options), REPEAT (5),
# NODE (`calibrate plan --node`, e.g. threads=2,opencl=0; default: every resource).
set -eu
BUILD=${BUILD:-build}
L=$BUILD/bin/lbsim
OUT=${OUT:-$BUILD/bench-plan}
mkdir -p "$OUT"
rm -f "$OUT/calib.db"
export LBSIM_NO_PROGRESS=1
for k in ${KERNELS:-matmul bhforce sort}; do
  "$L" calibrate run --kernel "$k" --impl cpu,threads,opencl ${RUN_OPTS:-} -o "$OUT/calib.db" --json >"$OUT/run_$k.json" || true
  python3 -c "import json; d=json.load(open('$OUT/run_$k.json'));
[print('run      %-16s %-9s %4d samples %3d points %6.1f s' % (i['impl'], i['status'], i['samples'], i['points'], i['seconds'])) for i in d['ipgs']]"
  "$L" calibrate plan --kernel "$k" ${NODE:+--node "$NODE"} -o "$OUT/calib.db" --json >"$OUT/plan_$k.json"
  python3 -c "import json; d=json.load(open('$OUT/plan_$k.json'));
print('plan     %-16s %d threads %d devices, template %s (%.3g s + %.3g s/work), planned in %.4f s' % (d['kernel'], d['threads'], len(d['devices']), d['template'], d['template_s'], d['template_per_work_s'], d['planning_s']))"
  hi=$(python3 -c "import json; print(json.load(open('$OUT/plan_$k.json'))['hi'])")
  works=$(python3 -c "h=$hi; print(','.join('%d' % (h * f) for f in (0.25, 0.5, 1.0)))")
  "$L" calibrate run-plan "$OUT/calib.db" --kernel "$k" --work "$works" --repeat "${REPEAT:-5}" --json >"$OUT/runplan_$k.json"
  python3 - "$OUT/runplan_$k.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["runs"]:
    print("run-plan %-16s work %-12.6g predicted %.4g s measured %.4g s (%+.1f%%)  best single %s %.4g s: %.2fx  one thread %.4g s: %.2fx (its IPG %+.1f%%)  %s" % (
        d["kernel"], r["work"], r["predicted_s"], r["measured_s"], r["error_pct"], r["best_single"], r["best_single_s"],
        r["speedup"], r["one_thread_s"], r["speedup_one_thread"], r["one_thread_error_pct"], r["calls"]))
PY
done
"$BUILD/bin/bench_racecar" "${BRUTE_POINTS:-2000}"
