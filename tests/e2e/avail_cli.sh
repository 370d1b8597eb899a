#!/usr/bin/env bash
# End-to-end checks of changing grids ([availability NAME] in grid files, examples/whatif/):
# `lbsim replay` on a generated trace with a slowdown, a failure and a link change, read back
# through --json and the results store; the same on 2 ranks; every bad profile named.
set -u
LBSIM=${1:?usage: avail_cli.sh lbsim source-dir}
SRC=${2:?}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
W=$SRC/examples/whatif
q() { sqlite3 "$1" "$2"; }
# the same grid without its profiles
plain() { sed '/^\[availability/,$d' "$1" >"$T/plain.ini"; }

# random work: balanced at the start and steady, so that only the grid changes the loads
expect 0 "gen" -- "$LBSIM" trace gen --kind random --mesh 16x8x8 --steps 60 -o "$T/r.lbt"
expect 0 "grid info reads the profiles" -- "$LBSIM" grid info "$W/slowdown.ini"
has "$T/out" "availability throttled: proc 3: speed x0.5 from step 20" "grid info lists the slowdown"
expect 0 "grid info, failure" -- "$LBSIM" grid info "$W/failure.ini" --json
has "$T/out" '"availability":[{"name":"node5_down","change":"proc 5: fails at step 30"}]}' "grid info --json lists the failure"
expect 0 "grid info, link" -- "$LBSIM" grid info "$W/link.ini"
has "$T/out" "availability congestion: link A - B: bandwidth x0.1, latency x4 from step 10 until before step 40" "grid info lists the link change"
expect 0 "help-config" -- "$LBSIM" grid --help-config
has "$T/out" "[availability NAME]" "--help-config documents the section"

# ---- a slowdown: processor 3 at half speed from step 20
plain "$W/slowdown.ini"
expect 0 "slowdown, none" -- "$LBSIM" replay "$T/r.lbt" --grid "$W/slowdown.ini" --policy none --results "$T/s.db"
expect 0 "no slowdown, none" -- "$LBSIM" replay "$T/r.lbt" --grid "$T/plain.ini" --policy none --results "$T/s.db"
# proc 3's compute: as without the profile before step 20, twice it (to the ns) from step 20 on
bad_steps=$(q "$T/s.db" "SELECT count(*) FROM procs a JOIN procs b ON a.step = b.step AND a.proc = b.proc
  WHERE a.run = 1 AND b.run = 2 AND a.proc = 3 AND
  ((a.step < 20 AND a.compute_ns != b.compute_ns) OR (a.step >= 20 AND abs(a.compute_ns - 2 * b.compute_ns) > 1))")
[ "$bad_steps" = 0 ] && ok || bad "slowdown: proc 3's compute is not the plain one before step 20 and twice it after ($bad_steps steps)"
others=$(q "$T/s.db" "SELECT count(*) FROM procs a JOIN procs b ON a.step = b.step AND a.proc = b.proc
  WHERE a.run = 1 AND b.run = 2 AND a.proc != 3 AND a.compute_ns != b.compute_ns")
[ "$others" = 0 ] && ok || bad "slowdown: other processors changed ($others)"
[ "$(q "$T/s.db" "SELECT count(*) FROM procs WHERE run = 1 AND proc = 3")" = 60 ] && ok || bad "procs rows"
# adaptive policies react from step 20 (adaptive sees it coming; threshold the step after), not without it
for pol in adaptive:0.2:2:16 threshold:0.2; do
  expect 0 "slowdown, $pol" -- "$LBSIM" replay "$T/r.lbt" --grid "$W/slowdown.ini" --policy "$pol" --json
  first=$(sed -n 's/.*"repartition_steps":\[\([0-9]*\).*/\1/p' "$T/out")
  [ -n "$first" ] && [ "$first" -ge 20 ] && [ "$first" -le 21 ] && ok || bad "$pol: first repartition '$first', not at 20 or 21"
  expect 0 "no slowdown, $pol" -- "$LBSIM" replay "$T/r.lbt" --grid "$T/plain.ini" --policy "$pol" --json
  has "$T/out" '"repartitions":0,' "$pol without the slowdown: no repartition"
done

# ---- a failure: processor 5 stops at step 30
expect 0 "failure, none" -- "$LBSIM" replay "$T/r.lbt" --grid "$W/failure.ini" --policy none --results "$T/f.db" \
  --save-assignment --json
has "$T/out" '"repartitions":1,"repartition_steps":[30]' "the failure forces a repartition at step 30"
[ "$(q "$T/f.db" "SELECT step FROM repartitions WHERE run = 1")" = 30 ] && ok || bad "repartitions table: step 30"
held=$(q "$T/f.db" "SELECT count(*) FROM assignment WHERE run = 1 AND part = 5 AND step = (SELECT max(step) FROM assignment WHERE run = 1 AND step < 30)")
moved=$(q "$T/f.db" "SELECT moved_elements FROM repartitions WHERE run = 1 AND step = 30")
[ "$held" -gt 0 ] && [ "$moved" -ge "$held" ] && ok || bad "moved $moved, processor 5 held $held"
[ "$(q "$T/f.db" "SELECT count(*) FROM assignment WHERE run = 1 AND part = 5 AND step >= 30")" = 0 ] && ok || bad "elements on processor 5 after its failure"
[ "$(q "$T/f.db" "SELECT count(*) FROM assignment WHERE run = 1 AND step = 30")" = 1024 ] && ok || bad "the assignment after the failure"
[ "$(q "$T/f.db" "SELECT count(*) FROM procs WHERE run = 1 AND proc = 5 AND step >= 30 AND compute_ns != 0")" = 0 ] && ok || bad "processor 5 computes after its failure"
[ "$(q "$T/f.db" "SELECT migration_ns > 0 AND partition_ns > 0 FROM repartitions WHERE run = 1")" = 1 ] && ok || bad "the forced repartition is charged"
for pol in fixed:10 adaptive:0.2:2:16 threshold:0.2; do # later repartitions never give it work again
  expect 0 "failure, $pol" -- "$LBSIM" replay "$T/r.lbt" --grid "$W/failure.ini" --policy "$pol" --results "$T/f.db" --save-assignment
done
[ "$(q "$T/f.db" "SELECT count(*) FROM assignment WHERE part = 5 AND step >= 30")" = 0 ] && ok || bad "a policy gave processor 5 work again"
[ "$(q "$T/f.db" "SELECT count(*) FROM repartitions WHERE step = 30")" = 4 ] && ok || bad "every policy's run repartitions at step 30"
[ "$(q "$T/f.db" "SELECT count(*) FROM repartitions WHERE run = 2")" -ge 5 ] && ok || bad "fixed:10 still repartitions"
# the window starting after the failure: it holds from the start, nothing forced
expect 0 "failure before the window" -- "$LBSIM" replay "$T/r.lbt" --grid "$W/failure.ini" --steps 35:60 --policy none --json
has "$T/out" '"repartitions":0,' "a failure before the window forces nothing"

# ---- a link change: the wide-area link congested over steps 10..39
plain "$W/link.ini"
expect 0 "link, none" -- "$LBSIM" replay "$T/r.lbt" --grid "$W/link.ini" --policy none --results "$T/l.db"
expect 0 "no link change, none" -- "$LBSIM" replay "$T/r.lbt" --grid "$T/plain.ini" --policy none --results "$T/l.db"
slower=$(q "$T/l.db" "SELECT sum(a.time_ns > b.time_ns) || ',' || sum(a.time_ns != b.time_ns) FROM steps a JOIN steps b ON a.step = b.step
  WHERE a.run = 1 AND b.run = 2 AND a.step BETWEEN 10 AND 39")
same=$(q "$T/l.db" "SELECT count(*) FROM steps a JOIN steps b ON a.step = b.step WHERE a.run = 1 AND b.run = 2
  AND (a.step < 10 OR a.step >= 40) AND a.time_ns != b.time_ns")
[ "$slower" = "30,30" ] && [ "$same" = 0 ] && ok || bad "link: steps 10..39 slower ($slower of 30), others the same ($same differ)"

# ---- the same on 2 ranks
for g in slowdown failure link; do
  for pol in none adaptive:0.2:2:16; do
    "$LBSIM" replay "$T/r.lbt" --grid "$W/$g.ini" --policy "$pol" --mode des --json 2>/dev/null | sed 's/"wall_s":[0-9.]*//' >"$T/np1"
    expect 0 "$g $pol on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" replay "$T/r.lbt" --grid "$W/$g.ini" --policy "$pol" --mode des --json
    sed 's/"wall_s":[0-9.]*//' "$T/out" >"$T/np2"
    [ -s "$T/np1" ] && cmp -s "$T/np1" "$T/np2" && ok || bad "$g $pol: 1 and 2 ranks differ"
  done
done

# ---- bad profiles: named by file, line and key; nothing written so far is lost
runs=$(q "$T/f.db" "SELECT count(*) FROM runs")
badgrid() { # NAME PROFILE-TEXT MESSAGE
  { sed '/^\[availability/,$d' "$W/failure.ini"; printf '%b' "$2"; } >"$T/$1.ini"
  expect 1 "bad: $1" -- "$LBSIM" replay "$T/r.lbt" --grid "$T/$1.ini" --results "$T/f.db"
  has "$T/err" "$T/$1.ini:$3" "bad: $1's message"
  [ ! -s "$T/out" ] && ok || bad "bad: $1 printed a result"
}
n=$(sed '/^\[availability/,$d' "$W/failure.ini" | wc -l)
badgrid unknown_proc "[availability x]\ntarget = proc 8\nfrom_step = 3\nfail = true\n" \
  "$((n + 2)): [availability x] target = 'proc 8': no processor 8 (the grid has 0..7)"
badgrid unknown_cluster "[availability x]\ntarget = cluster C\nfrom_step = 3\nfail = true\n" \
  "$((n + 2)): [availability x] target = 'cluster C': no cluster 'C' (known: A, B)"
badgrid unknown_link "[availability x]\ntarget = link A Z\nfrom_step = 3\nbandwidth_factor = 2\n" \
  "$((n + 2)): [availability x] target = 'link A Z': no cluster 'Z' to link (known: A, B)"
badgrid past_the_trace "[availability late]\ntarget = proc 1\nfrom_step = 60\nfail = true\n" \
  "$((n + 3)): [availability late] from_step = 60 is past the trace's last step 59"
badgrid until_past "[availability late]\ntarget = proc 1\nfrom_step = 6\nuntil_step = 61\nspeed_factor = 3\n" \
  "$((n + 4)): [availability late] until_step = 61 is past the trace's end (60 steps)"
badgrid zero_factor "[availability x]\ntarget = proc 1\nfrom_step = 3\nspeed_factor = 0\n" \
  "$((n + 4)): [availability x] speed_factor = 0 must be > 0 (fail = true stops processors)"
badgrid negative_bw "[availability x]\ntarget = link A B\nfrom_step = 3\nbandwidth_factor = -1\n" \
  "$((n + 4)): [availability x] bandwidth_factor = -1 must be > 0"
badgrid fail_and_speed "[availability x]\ntarget = proc 1\nfrom_step = 3\nfail = true\nspeed_factor = 0.5\n" \
  "$((n + 5)): [availability x] gives both fail = true and speed_factor"
badgrid fail_until "[availability x]\ntarget = cluster B\nfrom_step = 3\nfail = yes\nuntil_step = 9\n" \
  "$((n + 5)): [availability x] until_step with fail = true: a failed processor does not come back"
badgrid link_speed "[availability x]\ntarget = link A B\nfrom_step = 3\nspeed_factor = 2\n" \
  "$((n + 4)): [availability x] speed_factor is for processors"
badgrid proc_latency "[availability x]\ntarget = proc 2\nfrom_step = 3\nlatency_factor = 2\n" \
  "$((n + 4)): [availability x] latency_factor is for a link"
badgrid no_change "[availability x]\ntarget = proc 2\nfrom_step = 3\n" "$((n + 1)): [availability x] changes nothing"
badgrid all_fail "[availability a]\ntarget = cluster A\nfrom_step = 3\nfail = true\n[availability b]\ntarget = cluster B\nfrom_step = 5\nfail = true\n" \
  "$((n + 8)): [availability b]: with it every processor of the grid fails"
[ "$(q "$T/f.db" "SELECT count(*) FROM runs")" = "$runs" ] && ok || bad "a bad grid changed the results store"
expect 1 "bad: the optimal policy" -- "$LBSIM" replay "$T/r.lbt" --grid "$W/failure.ini" --policy optimal
has "$T/err" "failure.ini:" "optimal's message names the profile"
expect 1 "bad: a profile on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" replay "$T/r.lbt" --grid "$T/past_the_trace.ini"
has "$T/err" "from_step = 60 is past the trace's last step 59" "2 ranks agree on the error"
finish
