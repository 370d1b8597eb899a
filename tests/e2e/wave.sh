#!/usr/bin/env bash
# apps/wave end to end (apps/README.md's contract), in three parts:
#   runs:   1, 2 and 3 ranks give the same field checksum, with and without repartitioning
#           (schedules, online policies, RCB/RIB/HSFC, another block size): migration does not
#           change the physics; the JSON summary keeps the contract's keys; the energy is
#           conserved once the source is off and the pulse reaches the probe when a front at c
#           would (within 15%: the beam's near field and the grid's dispersion delay it a little)
#   trace:  profiled runs on 1 and 2 ranks: same checksum as unprofiled, the trace passes
#           `lbsim trace check`, records the app keys and the phases time_ns.H and time_ns.E
#           (meta phases.time_ns; their sum is time_ns) and replays; weight against time_ns per
#           rank (tests/e2e/wave_corr.py) r >= 0.85; profiled with --schedule 20,40 (lbsprof_remap):
#           the owners recorded from steps 0, 20, 40, each cell's weight on its own id, and the
#           events partition_s and migration_s against --json's (lbsprof_event_add), which
#           policy recorded charges
#   errors: bad parameters give `wave: what: why` and a non-zero exit on every rank, no hang
# usage: wave.sh runs|trace|errors lbsim wave source-dir
set -u
MODE=${1:?usage: wave.sh runs|trace|errors lbsim wave source-dir}
LBSIM=${2:?}
WAVE=${3:?}
SRC=${4:?}
MPI=(timeout 120 mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
# the profiler's settings are the defaults: nothing from the caller's environment
unset LBSPROF_BOUND LBSPROF_CODEC LBSPROF_SAMPLE_EVERY LBSPROF_COLLECTOR LBSPROF_METRICS LBSPROF_ON_FULL

SIZE=(--mesh 8x6x6 --steps 90)
ARGS="--mesh 8x6x6 --block 4 --steps 90 --threshold 0.1 --pulse 6 --partitioner zoltan:rcb"
# jf FILE EXPR: a Python expression over the JSON summary d
jf() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }
# run NAME RANKS ARGS...: wave --json $T/NAME.json, the checksum into $T/NAME.sum
run() {
  local name=$1 n=$2; shift 2
  expect 0 "wave $name on $n ranks" -- "${MPI[@]}" -n "$n" "$WAVE" --quiet --json "$T/$name.json" "$@"
  jf "$T/$name.json" "d['wave']['checksum']" >"$T/$name.sum" 2>/dev/null || echo none >"$T/$name.sum"
}
same() { # same NAME REF: equal checksums
  if [ "$(cat "$T/$1.sum")" = "$(cat "$T/$2.sum")" ] && [ "$(cat "$T/$1.sum")" != none ]; then ok
  else bad "$1: checksum $(cat "$T/$1.sum") differs from $2's $(cat "$T/$2.sum")"; fi
}
check() { # check NAME PYTHON-CONDITION DESCRIPTION
  [ "$(jf "$T/$1.json" "$2" 2>&1)" = True ] && ok || bad "$1: $3 ($2): $(head -c 300 "$T/$1.json")"
}

case $MODE in
runs)
  expect 0 "help" -- "$WAVE" --help
  has "$T/out" "Examples:" "--help has examples"
  has "$T/out" "--schedule LIST" "--help lists --schedule"
  run np1 1 "${SIZE[@]}"
  run np2 2 "${SIZE[@]}"
  run np3 3 "${SIZE[@]}"
  same np2 np1
  same np3 np1
  # the contract's summary
  for k in app ranks steps elements total_s step_s repartitions partition_s migration_s profiled args; do
    has "$T/np2.json" "\"$k\":" "summary key $k"
  done
  [ "$(wc -l <"$T/np2.json")" -eq 1 ] && ok || bad "the summary is one line"
  check np2 "d['app'] == 'wave' and d['ranks'] == 2 and d['steps'] == 90 and d['elements'] == 288" "app, ranks, steps, elements"
  check np2 "len(d['step_s']) == 90 and d['repartitions'] == [] and d['profiled'] is False" "steps, no repartition, unprofiled"
  check np2 "d['args'] == '$ARGS'" "canonical args"
  check np2 "0 < sum(d['step_s']) <= d['total_s'] * 1.001" "step times within the total"
  # each rank's compute per step, and the imbalance (max - mean) / max over them
  check np3 "len(d['wave']['rank_compute_s']) == 90 and all(len(c) == 3 and min(c) > 0 for c in d['wave']['rank_compute_s'])" "each rank's compute per step"
  check np3 "all(abs(i - (max(c) - sum(c) / 3) / max(c)) < 2e-6 for i, c in zip(d['wave']['imbalance'], d['wave']['rank_compute_s']))" "imbalance from the ranks' compute"
  # migration does not change the physics
  printf '# repartition before these steps\n30\n60 # and this one\n' >"$T/sched"
  run s1 1 "${SIZE[@]}" --schedule 10
  run s2 2 "${SIZE[@]}" --schedule 20,45,70
  run s3 3 "${SIZE[@]}" --schedule "@$T/sched"
  run f2 2 "${SIZE[@]}" --policy fixed:15 --partitioner zoltan:rib
  run h3 3 "${SIZE[@]}" --policy threshold:0.05 --partitioner zoltan:hsfc
  run c2 2 "${SIZE[@]}" --policy cost-benefit
  # part sizes (Zoltan_LB_Set_Part_Sizes): rank 0 aims at 3/4 of the weight (all cells weigh 1
  # at the start), the physics stays
  run p2 2 "${SIZE[@]}" --part-sizes 3,1 --schedule 30
  check p2 "abs(d['wave']['initial_owner'].count(0) - 216) <= 12" "rank 0 starts with about 3/4 of the 288 cells"
  check p2 "d['args'] == '$ARGS --part-sizes 3,1'" "--part-sizes in the args"
  run r2 2 "${SIZE[@]}" --refined-weight 4 --schedule 30
  check r2 "d['args'] == '$ARGS --refined-weight 4'" "--refined-weight in the args"
  for r in s1 s2 s3 f2 h3 c2 p2 r2; do same $r np1; done
  check s1 "d['repartitions'] == [10] and d['wave']['moved'] == 0" "1 rank: a repartition moves nothing"
  check s2 "d['repartitions'] == [20, 45, 70] and d['wave']['moved'] > 0 and d['migration_s'] > 0" "schedule 20,45,70 moved cells"
  check s3 "d['repartitions'] == [30, 60] and d['wave']['moved'] > 0" "schedule from a file"
  check f2 "d['repartitions'] == [15, 30, 45, 60, 75] and d['wave']['partitioner'] == 'zoltan:rib'" "fixed:15 with RIB"
  check h3 "len(d['repartitions']) > 0 and d['wave']['partitioner'] == 'zoltan:hsfc'" "threshold:0.05 repartitioned"
  # another block size, repartitioned on 2 ranks
  run b1 1 --mesh 6x4x4 --block 5 --steps 60
  run b2 2 --mesh 6x4x4 --block 5 --steps 60 --schedule 25,40
  same b2 b1
  # physics: W conserved once the source is off; the pulse's peak at the probe (3/4 along x)
  check np1 "0 <= d['wave']['energy_drift'] < 1e-10 and d['wave']['energy'] > 0" "energy conserved after the source"
  check np1 "d['wave']['probe_peak'] > 0.1" "the pulse reached the probe above the threshold"
  check np1 "abs(d['wave']['probe_peak_step'] - d['wave']['probe_expected_step']) <= 0.15 * d['wave']['probe_expected_step']" \
    "the pulse reached the probe when a front at c would"
  ;;
trace)
  G=$SRC/examples/grids/homogeneous16.ini
  run plain 2 "${SIZE[@]}"
  for n in 1 2; do
    expect 0 "profiled on $n ranks" -- "${MPI[@]}" -n $n "$WAVE" "${SIZE[@]}" --quiet --trace "$T/w$n.lbt" --json "$T/w$n.json"
    has "$T/out" "(complete)" "the profile on $n ranks is complete"
    check w$n "d['profiled'] is True and d['wave']['checksum'] == '$(cat "$T/plain.sum")'" "profiled, same checksum as unprofiled"
    expect 0 "trace check ($n ranks)" -- "$LBSIM" trace check "$T/w$n.lbt"
    expect 0 "trace info ($n ranks)" -- "$LBSIM" trace info "$T/w$n.lbt" --json
    cp "$T/out" "$T/info$n.json"
    check info$n "d['elements'] == 288 and d['steps'] == 90 and d['app']['name'] == 'wave' and d['app']['args'] == '$ARGS'" \
      "elements, steps, app name and args"
    check info$n "d['app']['bytes_per_elem'] == '3096' and d['app']['bytes_per_edge'] == '512'" "migration and halo bytes"
    check info$n "sorted(m['name'] for m in d['metrics']) == ['time_ns', 'time_ns.E', 'time_ns.H', 'weight']" \
      "metrics time_ns, its phases time_ns.H and time_ns.E, and weight"
    [ "$(sqlite3 "$T/w$n.lbt" "SELECT value FROM meta WHERE key='phases.time_ns'")" = time_ns.H,time_ns.E ] &&
      ok || bad "meta phases.time_ns on $n ranks"
    expect 0 "replay the $n-rank trace" -- "$LBSIM" replay "$T/w$n.lbt" --grid "$G" --policy fixed:10 --json
    cp "$T/out" "$T/replay$n.json"
    check replay$n "d['total_time_s'] > 0 and d['steps'] == 90" "replay total"
  done
  # weight against time, per rank (the 2-rank trace; each rank kept its initial cells)
  expect 0 "export the 2-rank trace" -- "$LBSIM" trace export "$T/w2.lbt" --csv "$T/csv"
  # 0.85: r is 0.99 on a quiet machine (bench/RESULTS.md), but make check runs the sanitizer
  # suite beside this one, and a check run saw r = 0.896 and 0.950 on its two ranks; 0.15 of the
  # samples may be preempted there (a check run lost 5.63% on one rank, r still 0.989)
  if python3 "$(dirname "$0")/wave_corr.py" "$T/csv/steps.csv" "$T/w2.json" 0.85 0.15 >"$T/corr"; then ok; else bad "weight vs time: $(cat "$T/corr")"; fi
  cat "$T/corr"
  # a profiled run that repartitions (lbsprof_remap after each migration): the same physics, the
  # owners recorded from steps 0, 20 and 40, each cell's weight on its own id at every step
  # (the same as in the run that kept its partition)
  expect 0 "export the 1-rank trace" -- "$LBSIM" trace export "$T/w1.lbt" --csv "$T/csv1"
  # the phases (lbsprof_phase before each update): every cell's time at every step is H + E, each
  # stored within rel:0.005 of the measured one, so their sum within about 1% of time_ns
  for c in csv csv1; do
    python3 - "$T/$c/steps.csv" <<'PY' && ok || bad "$c: time_ns is not time_ns.H + time_ns.E"
import csv, sys
n = 0
for r in csv.DictReader(open(sys.argv[1])):
    t, h, e = float(r["time_ns"]), float(r["time_ns.H"]), float(r["time_ns.E"])
    assert h > 0 and e > 0 and abs(h + e - t) <= 0.011 * t, r
    n += 1
assert n == 288 * 90, n
PY
  done
  for n in 1 2; do
    expect 0 "profiled with a schedule on $n ranks" -- "${MPI[@]}" -n $n "$WAVE" "${SIZE[@]}" --quiet \
      --trace "$T/ws$n.lbt" --json "$T/ws$n.json" --schedule 20,40
    has "$T/out" "(complete)" "the migrating profile on $n ranks is complete"
    check ws$n "d['repartitions'] == [20, 40] and d['wave']['checksum'] == '$(cat "$T/plain.sum")'" \
      "repartitioned at 20 and 40, same physics"
    expect 0 "migrating trace check ($n ranks)" -- "$LBSIM" trace check "$T/ws$n.lbt"
    expect 0 "migrating trace info ($n ranks)" -- "$LBSIM" trace info "$T/ws$n.lbt" --json
    cp "$T/out" "$T/infos$n.json"
    check infos$n "d['owners'] == {'assignments': 3, 'steps': [0, 20, 40]} and d['steps'] == 90" \
      "three assignments recorded, from steps 0, 20, 40"
    expect 0 "migrating trace info text ($n ranks)" -- "$LBSIM" trace info "$T/ws$n.lbt"
    has "$T/out" "recorded assignments: 3 (from steps 0, 20, 40)" "the owners in the text"
    has "$T/out" "events    partition_s " "the events in the text"
    # the application's own costs (lbsprof_event_add): each rank's partitioning and migration
    # seconds at each repartition; wave's --json sums the largest rank's, the trace every rank's
    python3 "$(dirname "$0")/events_check.py" "$T/infos$n.json" "$T/ws$n.json" $n 90 partition_s migration_s &&
      ok || bad "partition and migration events ($n ranks)"
    expect 0 "export the migrating trace ($n ranks)" -- "$LBSIM" trace export "$T/ws$n.lbt" --csv "$T/csvs$n"
    python3 - "$T/csv1/steps.csv" "$T/csvs$n/steps.csv" <<'PY' && ok || bad "weights after migration ($n ranks)"
import csv, sys
a, b = ({(r["app_step"], r["element"]): float(r["weight"]) for r in csv.DictReader(open(f))} for f in sys.argv[1:3])
assert a.keys() == b.keys() and len(a) == 90 * 288, (len(a), len(b))
bad = [k for k in a if abs(a[k] - b[k]) > 0.011 * abs(a[k])]
assert not bad, ("weights differ", bad[:5], [(a[k], b[k]) for k in bad[:5]])
PY
  done
  # the application's own assignments replayed (--policy recorded) on 1 and 2 lbsim ranks: the
  # same result (less the wall clock, memory and rank count), repartitions at the recorded steps,
  # the partitioner named for what ran
  for n in 1 2; do
    expect 0 "recorded replay of the 2-rank migrating trace on $n lbsim ranks" -- \
      "${MPI[@]}" -n $n "$LBSIM" replay "$T/ws2.lbt" --grid "$G" --policy recorded --json
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [d.pop(k, None) for k in ("wall_s", "peak_rss_mb", "ranks")]; print(json.dumps(d, sort_keys=True))' "$T/out" >"$T/rec$n.json"
  done
  check rec2 "d['policy'] == 'recorded' and d['partitioner'] == 'recorded' and d['repartitions'] == 2" \
    "two recorded repartitions, the partitioner named 'recorded'"
  # the application's own costs (its events) charged: at each repartition the largest rank's, as
  # wave's --json sums them
  python3 - "$T/rec2.json" "$T/ws2.json" <<'PY' && ok || bad "the recorded replay charges wave's partition and migration seconds"
import json, sys
r, w = (json.load(open(f)) for f in sys.argv[1:3])
assert r["recorded_costs"] == 2, r["recorded_costs"]
for mine, app in (("partition_time_s", "partition_s"), ("migration_time_s", "migration_s")):
    assert abs(r[mine] - w[app]) <= 1e-3 * w[app] + 2e-6, (mine, r[mine], app, w[app])
PY
  cmp -s "$T/rec1.json" "$T/rec2.json" && ok || bad "the recorded replay differs on 1 and 2 ranks: $(diff "$T/rec1.json" "$T/rec2.json" | head -3)"
  # the profiler never overwrites a trace
  expect 1 "an existing trace" -- "${MPI[@]}" -n 2 "$WAVE" "${SIZE[@]}" --quiet --trace "$T/w2.lbt"
  has "$T/err" "wave: --trace:" "names --trace"
  ;;
errors)
  # bad ARGS... : exit non-zero (every rank: mpiexec reports the first), the message on rank 0.
  # badrun on 2 ranks; badrun1 as one process (an MPI singleton, 0.3 s where mpiexec takes 1.5)
  # for the arguments whose check does not depend on the rank count: the 2-rank cases keep
  # every kind of check (parsing, the mesh against the ranks, the schedule against the steps,
  # the partitioner, part sizes, an output path) failing on every rank with one message.
  badrun() {
    local what=$1; shift
    "${MPI[@]}" -n 2 "$WAVE" --quiet "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 124 ]; then ok; else bad "wave $*: exit $rc (124: a hang)"; fi
    has "$T/err" "wave: $what:" "wave $*: names $what"
    [ "$(grep -c "^wave: $what:" "$T/err")" -eq 1 ] && ok || bad "wave $*: one message, from rank 0"
  }
  badrun1() {
    local what=$1; shift
    timeout 60 "$WAVE" --quiet "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 124 ]; then ok; else bad "wave $* (1 rank): exit $rc (124: a hang)"; fi
    has "$T/err" "wave: $what:" "wave $*: names $what"
    [ "$(grep -c "^wave: $what:" "$T/err")" -eq 1 ] && ok || bad "wave $* (1 rank): one message"
  }
  badrun --mesh --mesh 0x4x4
  badrun1 --mesh --mesh 4x4
  badrun --mesh --mesh 1x1x1
  badrun1 --schedule "${SIZE[@]}" --schedule 0,10
  badrun --schedule "${SIZE[@]}" --schedule 10,90
  badrun1 --schedule "${SIZE[@]}" --schedule 5,x
  badrun1 --schedule "${SIZE[@]}" --schedule "@$T/none"
  badrun1 --schedule "${SIZE[@]}" --schedule 10 --policy fixed:5
  badrun --partitioner --partitioner zoltan:foo
  badrun1 --partitioner --partitioner metis
  badrun1 --policy "${SIZE[@]}" --policy adaptive:0.15:5:20
  has "$T/err" "--schedule" "adaptive: the message points to --schedule"
  badrun1 --policy "${SIZE[@]}" --policy optimal
  badrun1 --policy "${SIZE[@]}" --policy nosuch
  badrun1 --block --block 1
  badrun1 --steps --steps 0
  badrun1 --threshold --threshold 0
  badrun1 --pulse --pulse abc
  badrun1 --refined-weight --refined-weight 0.5
  badrun --part-sizes --part-sizes 1,-1
  has "$T/err" "share 2 is not a number > 0" "a negative share"
  badrun --part-sizes --part-sizes 1,1,1
  has "$T/err" "3 shares for 2 ranks (one per rank)" "a share too many"
  badrun1 --bogus --bogus 3
  badrun1 --json "${SIZE[@]}" --json "$T/no/such/dir/x.json"
  badrun --trace "${SIZE[@]}" --trace "$T/no/such/dir/x.lbt"
  ;;
*) echo "wave.sh: unknown mode $MODE"; exit 2 ;;
esac
finish
