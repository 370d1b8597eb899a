#!/usr/bin/env bash
# lbsim validate --emulate: a heterogeneous grid emulated on this machine by capping each rank's
# CPU in a control group (study/emulate.c). On a small real wave run (2 ranks, 2 real runs):
# - the half-speed rank is throttled and the full-speed one never is (cpu.stat, in the JSON);
# - the groups are gone afterwards, also after SIGTERM in the middle of the runs (no rank left
#   capped or running), and a dead lbsim's group is removed by the next run;
# - refused before any run: a processor faster than this machine, a failed one, more ranks than
#   CPUs, no CPU controller.
# Skipped (exit 77, with the reason) where no CPU controller can be written: not root, or none
# mounted.
set -u
LBSIM=${1:?usage: validate_emulate.sh lbsim wave}
WAVE=${2:?}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
unset LBSPROF_BOUND LBSPROF_CODEC LBSPROF_SAMPLE_EVERY LBSPROF_COLLECTOR LBSPROF_METRICS LBSPROF_ON_FULL

# the controller lbsim would find: v2 with cpu listed, else a v1 mount with the cpu option
root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -z "$root" ] || ! grep -qw cpu "$root/cgroup.controllers" 2>/dev/null; then
  root=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/self/mounts)
fi
if [ -z "$root" ]; then echo "SKIP: no CPU controller mounted"; exit 77; fi
if [ ! -w "$root" ]; then echo "SKIP: the CPU controller at $root is not writable (not root)"; exit 77; fi
if [ "$(nproc)" -lt 2 ]; then echo "SKIP: one CPU: two capped ranks need two"; exit 77; fi
left() { ls "$root" | grep -c '^lbsim-emulate-' ; }
before=$(left)

expect 0 "profile wave on 2 ranks" -- "${MPI[@]}" -n 2 "$WAVE" --mesh 12x8x8 --steps 40 --quiet --trace "$T/w.lbt"
grid() { # grid NAME SPEED_OF_PROCESSOR_1
  cat >"$T/$1.ini" <<INI
[grid]
ns_per_work = 1
[nodetype full]
speed = 1
cores = 1
[nodetype other]
speed = $2
cores = 1
[cluster a]
nodes = 1
nodetype = full
[cluster b]
nodes = 1
nodetype = other
INI
}
grid half 0.5
grid fast 2
grid dead 0.01

# a group left by an lbsim that was killed (its pid is not running): removed by the next run
stale="$root/lbsim-emulate-$((4194304 + RANDOM))"
mkdir -p "$stale/rank0"

expect 0 "validate --emulate on a half-speed rank 1" -- "$LBSIM" validate "$T/w.lbt" --grid "$T/half.ini" \
  --emulate --runs 2 --policies none,fixed:10 --json
python3 - "$T/out" <<'PY' || bad "the emulation in the JSON"
import json, sys
d = json.load(open(sys.argv[1]))
e = d["emulation"]
assert e["controller"].startswith("cgroup v"), e
r0, r1 = e["ranks"]
assert (r0["share"], r1["share"]) == (1, 0.5), e
assert r0["throttled_periods"] == 0 and r0["throttled_s"] == 0, ("a rank without a cap was throttled", e)
# the counts are there; they can read 0 where a loaded machine gave the rank less than its quota
# anyway (seen: 0 periods at a load of 7.5 on 2 cores): the cap itself is read from the group
# while a run goes on, below
assert r1["throttled_periods"] >= 0 and r1["throttled_s"] >= 0, e
assert all(len(p["measured_s"]) == 2 for p in d["policies"]), d["policies"]
# app and replay aim at the same parts: by speed, 2/3 and 1/3
assert d["part_sizes_rule"] == "speed" and [round(x, 6) for x in d["part_sizes"]] == [0.666667, 0.333333], d
PY
expect 0 "validate with part_sizes = equal" -- "$LBSIM" validate "$T/w.lbt" --grid "$T/half.ini" --runs 1 \
  --policies none --set sim.part_sizes=equal
has "$T/out" "part sizes       equal: equal, the replay's and the app's (--part-sizes)" "equal parts said"
[ "$(left)" = "$before" ] && ok || bad "groups left after the run: $(ls "$root" | grep lbsim-emulate-)"
[ -d "$stale" ] && bad "a dead lbsim's group was not removed: $stale" || ok

expect 0 "validate --emulate as a table" -- "$LBSIM" validate "$T/w.lbt" --grid "$T/half.ini" \
  --emulate --runs 1 --policies none
has "$T/out" "rank 1 at 0.5 of a CPU: throttled in" "the table's emulation"
has "$T/out" "rank 0 at full speed (not capped)" "the table's full-speed rank"
expect 0 "validate without --emulate" -- "$LBSIM" validate "$T/w.lbt" --grid "$T/half.ini" --runs 1 \
  --policies none --json
grep -q '"emulation":null' "$T/out" && ok || bad "no emulation: $(head -c 300 "$T/out")"

# SIGTERM in the middle of the real runs: the groups removed, no wave left running or capped
"$LBSIM" validate "$T/w.lbt" --grid "$T/half.ini" --emulate --runs 50 --policies none \
  >"$T/term.out" 2>&1 &
pid=$!
for _ in $(seq 100); do
  [ -s "$root/lbsim-emulate-$pid/rank1/cgroup.procs" ] && break
  sleep 0.1
done
[ -d "$root/lbsim-emulate-$pid" ] && ok || bad "no group while running"
# rank 1's cap as the kernel holds it: half of every period (v1 quota and period, v2 cpu.max)
g="$root/lbsim-emulate-$pid/rank1"
if [ -f "$g/cpu.max" ]; then read -r q p <"$g/cpu.max"; else
  q=$(cat "$g/cpu.cfs_quota_us" 2>/dev/null) p=$(cat "$g/cpu.cfs_period_us" 2>/dev/null); fi
[ -n "$q" ] && [ "$q" != max ] && [ $((2 * q)) -eq "$p" ] && ok ||
  bad "rank 1's group is not capped at half a CPU: quota '$q', period '$p'"
kill -TERM $pid
wait $pid
[ $? -eq 143 ] && ok || bad "validate was not ended by SIGTERM"
[ -d "$root/lbsim-emulate-$pid" ] && bad "group left after SIGTERM" || ok
sleep 1
pgrep -f -- "^$WAVE --mesh 12x8x8" >/dev/null && bad "wave still running after SIGTERM" || ok
pgrep -f -- "lbsim-emulate-$pid" >/dev/null && bad "the launcher still running after SIGTERM" || ok

# refused before any run, with the reason
expect 1 "a processor twice this machine's speed" -- "$LBSIM" validate "$T/w.lbt" --grid "$T/fast.ini" --emulate
has "$T/err" "lbsim: validate: --emulate: processor 1 (other) runs 2 times as fast as this machine" "speed 2"
expect 1 "a processor at 0.01" -- "$LBSIM" validate "$T/w.lbt" --grid "$T/dead.ini" --emulate
has "$T/err" "below the 0.05 a CPU quota can hold" "speed 0.01"
expect 1 "2 ranks on one CPU" -- taskset -c 0 "$LBSIM" validate "$T/w.lbt" --grid "$T/half.ini" --emulate
has "$T/err" "--emulate: 2 ranks on 1 CPU: each capped rank needs a CPU of its own" "ranks over CPUs"
expect 1 "no controller there" -- env LBSIM_CGROUP_CPU="$T/none" "$LBSIM" validate "$T/w.lbt" --grid "$T/half.ini" --emulate
has "$T/err" "--emulate: no CPU controller at $T/none" "no controller"
[ "$(left)" = "$before" ] && ok || bad "groups left after the refusals"
finish
