#!/usr/bin/env bash
# The node agent and the collector do not inherit the CPU binding of the rank that starts them
# (mpiexec binds ranks to cores by default): bound to rank 0's core they took their time from
# rank 0 alone, inside its measured elements (apps/wave on 2 ranks: rank 0's run 40% longer,
# ~100 us outliers in its cells). They get every CPU this job may use; the rank keeps its own.
set -u
LBSIM=${1:?usage: profiler_affinity.sh lbsim prof_app}
APP=${2:?usage: profiler_affinity.sh lbsim prof_app}
T=$(mktemp -d /tmp/lbs_prof_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
cpus() { awk '/^Cpus_allowed_list/ {print $2}' "/proc/$1/status" 2>/dev/null; }
ALL=$(cpus $$)
if [ "$(nproc)" -lt 2 ]; then
  echo "one CPU: nothing to compare"
  finish
  exit
fi
# one rank bound to a core, 60 steps of 30 ms: time to look at its helpers
mpiexec --allow-run-as-root --bind-to core -n 1 "$APP" "$T/a.lbt" 60 30 >"$T/out" 2>"$T/err" &
RUN=$!
rank= agent= coll=
for _ in $(seq 300); do
  rank=$(pgrep -f "^$APP $T/a.lbt" | head -1)
  [ -n "$rank" ] && agent=$(pgrep -f "lbsprof-$rank-" | head -1)
  coll=$(pgrep -f -- "-o $T/a.lbt" | head -1)
  [ -n "$agent" ] && [ -n "$coll" ] && break
  sleep 0.05
done
R=$(cpus "$rank") A=$(cpus "$agent") C=$(cpus "$coll")
wait $RUN && ok || bad "prof_app failed: $(head -c 300 "$T/err")"
[ -n "$agent" ] && [ -n "$coll" ] && ok || bad "agent ($agent) or collector ($coll) of rank $rank not found"
echo "rank $rank: CPUs $R; agent $agent: $A; collector $coll: $C; this job: $ALL"
[ -n "$R" ] && [ "$R" != "$ALL" ] && ok || bad "the rank is not bound ($R): mpiexec --bind-to core had no effect"
[ "$A" = "$ALL" ] && ok || bad "the agent runs on CPUs $A, not every CPU ($ALL)"
[ "$C" = "$ALL" ] && ok || bad "the collector runs on CPUs $C, not every CPU ($ALL)"
expect 0 "the trace" -- "$LBSIM" trace check "$T/a.lbt"
finish
