#!/usr/bin/env bash
# lbsim validate's orchestration and bad input, on a real profiled trace (prof_app, 2 ranks)
# with a stand-in for the app: a unit test of validate itself (the real apps are validated in
# apps_validate.sh). The stand-in reports a total that depends on the schedule it was given,
# so the ranking and the results-store rows can be checked.
set -u
LBSIM=${1:?usage: validate_cli.sh lbsim prof_app}
APP=${2:?}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
unset LBSPROF_BOUND LBSPROF_CODEC LBSPROF_SAMPLE_EVERY LBSPROF_COLLECTOR LBSPROF_METRICS LBSPROF_ON_FULL

expect 0 "profile prof_app on 2 ranks" -- "${MPI[@]}" -n 2 "$APP" "$T/p.lbt" 30 0
cat >"$T/grid2.ini" <<'INI'
[grid]
ns_per_work = 1
[cluster node0]
nodes = 1
nodetype = two
[nodetype two]
cores = 2
INI
# the stand-in, named like the profiled app: total = 1 s + 0.1 s per repartition; rank 0 writes
mkdir -p "$T/bin"
cat >"$T/bin/prof_app" <<'SH'
#!/usr/bin/env bash
sched="" json="" pol=""
echo "called with: $*" >&2
while [ $# -gt 0 ]; do
  case $1 in
  --schedule) sched=$2; shift ;;
  --policy) pol=$2; shift ;;
  --json) json=$2; shift ;;
  esac
  shift
done
echo "args seen: $*" >&2
[ "${OMPI_COMM_WORLD_RANK:-0}" = 0 ] || exit 0
[ -n "${FAIL_APP:-}" ] && { echo "stand-in: failing as asked" >&2; exit 3; }
n=0; [ -n "$sched" ] && n=$(echo "$sched" | tr ',' '\n' | wc -l)
reps=$sched; [ -n "${WRONG_SCHEDULE:-}" ] && reps=1
printf '{"app":"prof_app","total_s":%s,"repartitions":[%s]}\n' "$(awk -v n=$n 'BEGIN{print 1+0.1*n}')" "$reps" >"$json"
SH
chmod +x "$T/bin/prof_app"
V=("$LBSIM" validate "$T/p.lbt" --grid "$T/grid2.ini" --app "$T/bin/prof_app" --mpiexec "mpiexec --allow-run-as-root --oversubscribe")

expect 0 "validate with the stand-in" -- "${V[@]}" --policies none,steps:5,10,fixed:10 --runs 2 --json --results "$T/r.db"
python3 - "$T/out" <<'PY' && ok || bad "validate json: $(head -c 600 "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))
p = {x["policy"]: x for x in d["policies"]}
assert set(p) == {"none", "steps:5,10", "fixed:10"}, p.keys()
assert p["none"]["schedule"] == [] and p["steps:5,10"]["schedule"] == [5, 10], p
assert p["fixed:10"]["schedule"] == [10, 20], p["fixed:10"]
assert p["none"]["measured_median_s"] == 1.0 and abs(p["steps:5,10"]["measured_median_s"] - 1.2) < 1e-9
assert all(len(x["measured_s"]) == 2 and x["predicted_s"] > 0 for x in p.values())
assert d["ranks"] == 2 and d["app"] == "prof_app" and d["runs"] == 2
assert d["order_measured"][0] == "none", d["order_measured"]
assert abs(p["none"]["error"] - (p["none"]["predicted_s"] - 1) / 1) < 1e-6
# the pairs in --policies order; the stand-in's totals are the same each round: none 1 s, the
# two others 1.2 s, so reality separates none from each and ties the two others
pairs = d["pairs"]
assert [(q["a"], q["b"]) for q in pairs] == [("none", "steps:5,10"), ("none", "fixed:10"),
                                            ("steps:5,10", "fixed:10")], pairs
for q in pairs[:2]:
    assert abs(q["measured_gain"] + 0.2) < 1e-9 and q["rounds"] == 2, q
    assert abs(q["measured_gain_min"] + 0.2) < 1e-9 and abs(q["measured_gain_max"] + 0.2) < 1e-9, q
    want = "agrees" if q["predicted_gain"] < 0 else "wrong order" if q["predicted_gain"] > 0 else "predicted equal"
    assert q["verdict"] == want, q
    pg = (p[q["a"]]["predicted_s"] - p[q["b"]]["predicted_s"]) / p[q["a"]]["predicted_s"]
    assert abs(q["predicted_gain"] - pg) < 1e-5, (q, pg)
    assert abs(q["gain_error_points"] - 100 * (q["predicted_gain"] + 0.2)) < 1e-3, q
assert pairs[2]["verdict"] == "tie" and pairs[2]["measured_gain"] == 0, pairs[2]
s = d["pairs_summary"]
assert s["pairs"] == 3 and s["separated"] == 2 and s["ties"] == 1 and s["unknown"] == 0, s
assert s["ordered_right"] == sum(q["verdict"] == "agrees" for q in pairs), s
assert abs(s["max_gain_error_points"] - max(abs(q["gain_error_points"]) for q in pairs)) < 1e-3, s
assert d["same_ranking"] is False, "a tie in reality is never the same ranking"
assert d["tied_pairs"] == 1, d["tied_pairs"]
PY
[ "$(sqlite3 "$T/r.db" 'SELECT count(*) FROM validations')" = 3 ] && ok || bad "3 validations stored"
[ "$(sqlite3 "$T/r.db" 'SELECT count(*) FROM measurements')" = 6 ] && ok || bad "6 measurements stored"
[ "$(sqlite3 "$T/r.db" "SELECT v.schedule FROM validations v JOIN runs r ON r.id = v.run WHERE r.policy = 'fixed:10'")" = "10,20" ] \
  && ok || bad "validation rows tie to their replay runs"
[ "$(sqlite3 "$T/r.db" "SELECT count(*) FROM validation_pairs")" = 3 ] && ok || bad "3 validation pairs stored"
[ "$(sqlite3 "$T/r.db" "SELECT p.verdict FROM validation_pairs p JOIN validations a ON a.id = p.a
  JOIN validations b ON b.id = p.b WHERE a.schedule = '5,10' AND b.schedule = '10,20' AND p.policy_a = 'steps:5,10'")" = tie ] \
  && ok || bad "the pairs tie to their validation rows: $(sqlite3 "$T/r.db" "SELECT * FROM validation_pairs")"
expect 0 "the store's tables as CSV" -- "$LBSIM" results "$T/r.db" --csv "$T/csv"
[ "$(wc -l <"$T/csv/validation_pairs.csv")" = 4 ] && ok || bad "validation_pairs.csv: a header and 3 pairs"
has "$T/csv/validation_pairs.csv" "a,b,policy_a,policy_b,predicted_gain,measured_gain,measured_gain_min,measured_gain_max,rounds,gain_error_points,predicted_within,verdict" "validation_pairs.csv header"
expect 0 "the table" -- "${V[@]}" --policies none,steps:5,10,fixed:10 --runs 2
has "$T/out" "measured order" "table has the orders"
has "$T/out" "reality separates 2 of 3 pairs; lbsim orders " "table says what reality separates"
has "$T/out" "1 pair tied in reality (not every round has the same one faster): a tie confirms nothing" "table says a tie confirms nothing"
has "$T/out" "tie (predicted " "the tied pair's verdict"
grep -qiE "ranking +the same|same ranking" "$T/out" && bad "the table calls a ranking the same: $(cat "$T/out")" || ok
expect 0 "the table of one run" -- "${V[@]}" --policies none,fixed:10 --runs 1
has "$T/out" "unknown (1 run)" "one run: the verdict is unknown"
has "$T/out" "reality separates 0 of 1 pair; lbsim orders 0 of them right" "one run separates nothing"
has "$T/out" "1 pair unknown: one real run gives no spread" "one run said"

# bad input: each a clear error, exit 1
expect 1 "another app" -- "$LBSIM" validate "$T/p.lbt" --grid "$T/grid2.ini" --app /bin/true
has "$T/err" "is a profile of 'prof_app', --app runs 'true'" "app mismatch named"
expect 1 "another rank count" -- "${V[@]}" --ranks 4
has "$T/err" "was profiled on 2 ranks, --ranks says 4" "rank mismatch named"
expect 1 "a grid of 16 processors" -- "$LBSIM" validate "$T/p.lbt" --grid "$(dirname "$0")/../../examples/grids/homogeneous16.ini" --app "$T/bin/prof_app"
has "$T/err" "has 16 processors, the app ran on 2 ranks" "grid size named"
expect 1 "a trace of no app" -- "$LBSIM" validate "$(dirname "$0")/../data/heat_2ranks.lbt" --grid "$T/grid2.ini"
has "$T/err" "not a profile of one of lbsim's apps" "no app keys named"
expect 1 "a schedule out of range" -- "${V[@]}" --policies steps:99
has "$T/err" "step 99 is out of range" "out-of-range schedule named"
expect 1 "the app fails" -- env FAIL_APP=1 "${V[@]}" --policies none --runs 1
has "$T/err" "failing as asked" "the app's output shown"
expect 1 "the app ignores its schedule" -- env WRONG_SCHEDULE=1 "${V[@]}" --policies fixed:10 --runs 1
has "$T/err" "not the schedule [10,20]" "schedule mismatch named"
expect 1 "under mpiexec" -- "${MPI[@]}" -n 1 "${V[@]}"
has "$T/err" "run it without mpiexec" "refused under mpiexec"
expect 2 "no grid" -- "$LBSIM" validate "$T/p.lbt"
expect 2 "bad --mode" -- "${V[@]}" --mode fast
has "$T/err" "lbsim: validate: --mode: 'fast' must be bsp or des" "--mode named"
# --partitioner and --mode are the [sim] overrides they name, stored as such, the later winning
expect 0 "flags as overrides" -- "${V[@]}" --policies none --runs 1 --set sim.mode=bsp --partitioner zoltan:hsfc --mode des \
  --results "$T/f.db"
[ "$(sqlite3 "$T/f.db" "SELECT partitioner || ' ' || mode FROM runs")" = "zoltan:hsfc des" ] && ok ||
  bad "partitioner, mode: $(sqlite3 "$T/f.db" "SELECT partitioner, mode FROM runs")"
[ "$(sqlite3 "$T/f.db" "SELECT overrides FROM runs")" = "$(printf 'sim.mode=bsp\nsim.partitioner=zoltan:hsfc\nsim.mode=des')" ] && ok ||
  bad "validate's overrides: $(sqlite3 "$T/f.db" "SELECT overrides FROM runs")"
# the partitioner the app ran with (app.partitioner), under the grid file's [sim], under the flag
cp "$T/p.lbt" "$T/pm.lbt"
sqlite3 "$T/pm.lbt" "DELETE FROM meta WHERE key = 'app.partitioner'; INSERT INTO meta (key, value) VALUES ('app.partitioner', 'zoltan:rib')"
{ cat "$T/grid2.ini"; printf '[sim]\npartitioner = zoltan:hsfc\n'; } >"$T/gsim.ini"
vpart() { # GRID [FLAGS...]: the partitioner the replay ran
  local g=$1; shift
  rm -f "$T/m.db"
  "$LBSIM" validate "$T/pm.lbt" --grid "$g" --app "$T/bin/prof_app" --mpiexec "mpiexec --allow-run-as-root --oversubscribe" \
    --policies none --runs 1 --results "$T/m.db" "$@" >/dev/null 2>"$T/err" && sqlite3 "$T/m.db" "SELECT partitioner FROM runs"
}
[ "$(vpart "$T/grid2.ini")" = zoltan:rib ] && ok || bad "app.partitioner by default: $(cat "$T/err")"
[ "$(vpart "$T/gsim.ini")" = zoltan:hsfc ] && ok || bad "the grid's [sim] over app.partitioner: $(cat "$T/err")"
[ "$(vpart "$T/gsim.ini" --partitioner zoltan:rcb)" = zoltan:rcb ] && ok || bad "the flag over [sim]: $(cat "$T/err")"
# --keep DIR: each run's JSON and log stay, listed in runs.csv; the app got --part-sizes
expect 0 "validate --keep" -- "${V[@]}" --policies none,steps:5,10 --runs 2 --keep "$T/keep"
[ "$(ls "$T/keep" | wc -l)" = 9 ] && ok || bad "--keep: $(ls "$T/keep")"
has "$T/keep/runs.csv" '2,"steps:5,10","5,10",1.2,run1_1.json,run1_1.log' "runs.csv's row of round 2"
has "$T/keep/run0_1.json" '"repartitions":[5,10]' "a run's JSON kept"
has "$T/keep/run0_0.log" "--part-sizes equal" "the app was given the replay's part sizes"
expect 1 "--keep into a kept directory" -- "${V[@]}" --policies none --runs 1 --keep "$T/keep"
has "$T/err" "directory is not empty" "--keep refuses to mix runs"
expect 0 "--keep -f" -- "${V[@]}" --policies none --runs 1 --keep "$T/keep" -f
[ "$(ls "$T/keep" | wc -l)" = 3 ] && ok || bad "--keep -f replaced: $(ls "$T/keep")"
mkdir -p "$T/mine" && echo keep me >"$T/mine/notes.txt"
expect 1 "--keep -f over a directory of another's" -- "${V[@]}" --policies none --runs 1 --keep "$T/mine" -f
[ -s "$T/mine/notes.txt" ] && ok || bad "--keep -f removed another's file"
finish
