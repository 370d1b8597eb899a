#!/usr/bin/env bash
# End-to-end checks of the route from a kernel to its IPG to a replay (issue 31, item 6): the
# calibration range taken from a trace (calibrate run --range-from), the replayed metric held to
# the IPG's recorded unit (refused, or converted by ipg_trace_metric), curves that fall refused
# at load, and work outside a curve's measured range warned once per processor.
set -u
LBSIM=${1:?usage: calibrate_route.sh lbsim source-dir}
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
json() { python3 -c "import json,sys; d=json.load(open('$1')); $2" >"$T/py" 2>&1 && ok || bad "$3: $(head -c 300 "$T/py")"; }

mkdir -p "$T/g"
expect 0 "gen" -- "$LBSIM" trace gen --kind bump --mesh 8x8x4 --steps 6 -o "$T/b.lbt"
expect 0 "trace info" -- "$LBSIM" trace info "$T/b.lbt"
has "$T/out" "weight       1" "the bump trace's weight is in unit 1"

# The range from the trace: the trace's metrics are not in dot's elements, so one is named.
expect 1 "no metric in the kernel's unit" -- "$LBSIM" calibrate run --kernel dot --impl cpu --range-from "$T/b.lbt" -o "$T/g/c.db"
has "$T/err" "has no metric in the kernel's unit 'elements' (it has time_ns (ns), weight (1)" "lists the trace's metrics"
has "$T/err" "--trace-metric M with --metric-per-work F (elements per unit of M)" "says what to write"
[ ! -e "$T/g/c.db" ] && ok || bad "no database made before the range is known"
expect 1 "a metric the trace lacks" -- "$LBSIM" calibrate run --kernel dot --impl cpu --range-from "$T/b.lbt" --trace-metric nothere -o "$T/g/c.db"
has "$T/err" "has no metric 'nothere'" "names it"
expect 2 "--range and --range-from" -- "$LBSIM" calibrate run --kernel dot --range 1:2 --range-from "$T/b.lbt" -o "$T/g/c.db"
expect 2 "--trace-metric alone" -- "$LBSIM" calibrate run --kernel dot --trace-metric weight -o "$T/g/c.db"
# A short real calibration over the trace's range: 1000 elements per unit of weight.
"$LBSIM" calibrate run --kernel dot --impl cpu --range-from "$T/b.lbt" --trace-metric weight --metric-per-work 1000 \
  --max-samples 40 --timeout 60 -o "$T/g/c.db" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -le 1 ] && ok || bad "run over the trace's range: exit $rc; $(head -c 300 "$T/err")"
has "$T/out" "elements, from $T/b.lbt (" "says the range it took"
range=$(sed -n 's/^range *\([^ ]*\) elements.*/\1/p' "$T/out")
expect 0 "show" -- "$LBSIM" calibrate show "$T/g/c.db" --json
json "$T/out" "i=d['ipgs'][0]; lo,hi=map(float,'$range'.split(':')); assert abs(i['lo']-lo)<=1e-5*lo and abs(i['hi']-hi)<=1e-5*hi and 0<lo<hi, (i['lo'],i['hi'],'$range'); \
assert i['metric'].startswith('elements'), i['metric']; open('$T/status','w').write(i['status'])" "the IPG covers the trace's range and records its metric"

# The replay: weight (unit 1) on a curve in elements is refused, naming what to write.
printf '[grid]\nns_per_work = 1\n[nodetype cpu]\nspeed_model = ipg\nipg_db = c.db\nipg_impl = dot.cpu\nipg_allow_partial = true\nipg_metric_per_work = 1000\n[cluster A]\nnodes = 2\nnodetype = cpu\n' >"$T/g/bad.ini"
expect 1 "a unit mismatch" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/g/bad.ini" --metric weight --policy fixed:3
has "$T/err" "bad.ini:3: [nodetype cpu]" "names the grid file and the node type"
has "$T/err" "measures work in elements" "names the IPG's unit"
has "$T/err" "the replayed trace metric 'weight' is in 1" "names the trace's metric and unit"
has "$T/err" "'ipg_trace_metric = weight'" "says what to write"
sed 's/^ipg_metric_per_work = 1000$/ipg_trace_metric = weight\nipg_metric_per_work = 1000/' "$T/g/bad.ini" >"$T/g/ok.ini"
expect 0 "the conversion named" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/g/ok.ini" --metric weight --policy fixed:3
# a complete IPG covers every processor's work (a partial one, on a busy machine, may stop short)
if [ "$(cat "$T/status" 2>/dev/null)" = complete ] && grep -q "replay: warning: processor" "$T/err"; then
  bad "work inside the trace's range: no warning ($(head -c 300 "$T/err"))"
else ok; fi
expect 1 "another metric than the one converted" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/g/ok.ini" --metric time_ns --policy fixed:3
has "$T/err" "the replay gives it 'time_ns' (ns)" "names the metric replayed"

# Curves: a falling end refused at load; work beyond the last point warned once per processor.
printf '[nodetype c]\nspeed_model = ipg\nipg_points = 0:1e-4 1000:2e-3 2000:1.5e-3\n[cluster A]\nnodes = 2\nnodetype = c\n' >"$T/g/fall.ini"
expect 1 "a falling end" -- "$LBSIM" grid info "$T/g/fall.ini"
has "$T/err" "would reach zero at 5000" "says where it reaches zero"
printf '[grid]\nns_per_work = 1\n[nodetype c]\nspeed_model = ipg\nipg_points = 0:1e-6 1e-3:1.1e-6\n[cluster A]\nnodes = 3\nnodetype = c\n' >"$T/g/short.ini"
expect 0 "work beyond the curve" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/g/short.ini" --metric weight --policy fixed:3
n=$(grep -c "replay: warning: processor" "$T/err")
[ "$n" -eq 3 ] && ok || bad "once per processor: $n lines: $(head -c 400 "$T/err")"
has "$T/err" "x the most its ipg_points measured (0.001): its time is extrapolated" "says by how much"
finish
