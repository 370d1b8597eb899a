#!/usr/bin/env bash
# End-to-end checks of lbsim's log sink: LBSIM_LOG's levels, the 'lbsim: ' prefix on one process
# and 'lbsim[rank N]: ' on each rank of an MPI job, a bad level refused.
set -u
LBSIM=${1:?usage: log_cli.sh lbsim source-dir}
SRC=${2:?}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
G=$SRC/examples/grids/homogeneous16.ini

expect 0 "gen" -- "$LBSIM" trace gen --kind bump --mesh 10x6x10 --steps 10 -o "$T/b.lbt"
# the default level (info): no debug lines
expect 0 "info at the default level" -- "$LBSIM" trace info "$T/b.lbt" --no-values
grep -q "trace: opened" "$T/err" && bad "a debug line at the default level: $(cat "$T/err")" || ok
expect 0 "info at warn" -- env LBSIM_LOG=warn "$LBSIM" trace info "$T/b.lbt" --no-values
[ ! -s "$T/err" ] && ok || bad "LBSIM_LOG=warn: $(cat "$T/err")"
# debug: the library's line, prefixed once
expect 0 "info at debug" -- env LBSIM_LOG=debug "$LBSIM" trace info "$T/b.lbt" --no-values
has "$T/err" "lbsim: trace: opened $T/b.lbt: 600 elements, 10 steps, 2 metrics, schema 2" "debug line on one process"
expect 0 "one rank under mpiexec" -- env LBSIM_LOG=DEBUG "${MPI[@]}" -n 1 "$LBSIM" trace info "$T/b.lbt" --no-values
has "$T/err" "lbsim: trace: opened" "one rank: no rank in the prefix"
# two ranks: each line says whose it is
expect 0 "replay on 2 ranks at debug" -- env LBSIM_LOG=debug "${MPI[@]}" -n 2 "$LBSIM" replay "$T/b.lbt" --grid "$G" \
  --policy fixed:5 --json
has "$T/err" "lbsim[rank 0]: trace: opened $T/b.lbt" "rank 0's line"
has "$T/err" "lbsim[rank 1]: trace: opened $T/b.lbt" "rank 1's line"
grep -q "^lbsim: trace:" "$T/err" && bad "an unranked line on 2 ranks: $(cat "$T/err")" || ok
# a level that is not one
expect 2 "bad level" -- env LBSIM_LOG=loud "$LBSIM" trace info "$T/b.lbt"
has "$T/err" "lbsim: LBSIM_LOG: 'loud' is not a log level (error, warn, info, debug)" "bad level named"
[ ! -s "$T/out" ] && ok || bad "a bad level still ran the command"
finish
