# bench/lib.sh - what the whole-run benchmarks share; sourced, not run.
#
# best_of CMD...: runs CMD $REPS times (stdin /dev/null); prints "wall cpu" (seconds; cpu is user
# + sys) of the fastest run by wall time and leaves that run's stdout in $W/out. A failing run
# prints its stderr and returns 1.
best_of() {
  local best="" i
  for ((i = 0; i < REPS; i++)); do
    /usr/bin/time -f '%e %U %S' -o "$W/time" "$@" >"$W/out.$i" 2>"$W/err" </dev/null ||
      { cat "$W/err" >&2; return 1; }
    read -r wall user sys <"$W/time"
    local cpu
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    if [ -z "$best" ] || awk -v a="$wall" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
      best="$wall $cpu"
      cp "$W/out.$i" "$W/out"
    fi
  done
  echo "$best"
}
