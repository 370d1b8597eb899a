#!/usr/bin/env bash
# One exit-code rule for every command (issue 16, item 7): a usage error (an unknown option or
# command, a missing or extra argument, a bad option value) exits 2 with 'lbsim: CMD: why'; an
# error met while working exits 1. Every command 'lbsim --help' lists is tried, and every
# sub-command of those that have them, so a new one cannot slip by.
set -u
LBSIM=$(realpath "${1:?usage: cli_usage.sh lbsim source-dir}")
SRC=$(realpath "${2:?}")
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
G=$SRC/examples/grids/homogeneous16.ini
cd "$T" || exit 1

# usage_error DESCRIPTION PREFIX -- command...: exit 2 and 'lbsim: PREFIX: ' on stderr
usage_error() {
  local what=$1 prefix=$2
  shift 3
  expect 2 "$what" -- "$@"
  has "$T/err" "lbsim: $prefix: " "$what: message"
}

# the commands and their sub-commands, as their help lists them
declare -A SUBS=([trace]="gen info check export import recode" [grid]="info gen probe" [policy]="compare"
  [export]="simgrid vtk vt" [calibrate]="run verify show import list plan run-plan")
expect 0 "lbsim --help" -- "$LBSIM" --help
cmds=$(sed -n '/^commands:/,/^$/p' "$T/out" | awk 'NF && $1 != "commands:" {print $1}')
[ "$(echo "$cmds" | wc -w)" -ge 13 ] && ok || bad "lbsim --help lists: $cmds"
for c in trace grid; do
  "$LBSIM" "$c" --help >"$T/h" 2>&1
  listed=$(sed -n '/^commands:/,/^$/p' "$T/h" | awk 'NF && $1 != "commands:" {print $1}' | sort | xargs)
  [ "$listed" = "$(echo ${SUBS[$c]} | tr ' ' '\n' | sort | xargs)" ] && ok || bad "lbsim $c --help lists '$listed', the test knows '${SUBS[$c]}'"
done
"$LBSIM" calibrate --help >"$T/h" 2>&1
listed=$(grep -oE '^ *(usage: )?lbsim calibrate [a-z-]+' "$T/h" | awk '{print $NF}' | sort -u | xargs)
[ "$listed" = "$(echo ${SUBS[calibrate]} | tr ' ' '\n' | sort | xargs)" ] && ok || bad "lbsim calibrate --help lists '$listed'"

# an unknown option, and extra arguments, everywhere
for c in $cmds; do
  if [ -n "${SUBS[$c]:-}" ]; then
    usage_error "$c --bogus" "$c" -- "$LBSIM" "$c" --bogus
    for s in ${SUBS[$c]}; do
      prefix="$c $s"
      [ "$c" = calibrate ] && prefix=calibrate # one command with sub-commands, one usage text
      usage_error "$c $s --bogus" "$prefix" -- "$LBSIM" "$c" "$s" --bogus
      usage_error "$c $s with extra arguments" "$prefix" -- "$LBSIM" "$c" "$s" x y z
    done
  else
    usage_error "$c --bogus" "$c" -- "$LBSIM" "$c" --bogus
    usage_error "$c with extra arguments" "$c" -- "$LBSIM" "$c" x y z
  fi
done
expect 2 "no command" -- "$LBSIM"
expect 2 "unknown command" -- "$LBSIM" frobnicate
has "$T/err" "lbsim: unknown command 'frobnicate'" "unknown command named"
usage_error "an option without its value" "replay" -- "$LBSIM" replay t.lbt --grid

# bad option values: named, exit 2, before any work
expect 0 "gen" -- "$LBSIM" trace gen --kind bump --mesh 8x4x4 --steps 10 -o t.lbt
printf '[pipeline]\n' >p.ini
usage_error "replay --mode" "replay" -- "$LBSIM" replay t.lbt --grid "$G" --mode fast
usage_error "replay --steps" "replay" -- "$LBSIM" replay t.lbt --grid "$G" --steps 5:3
usage_error "replay --set without a key" "replay" -- "$LBSIM" replay t.lbt --grid "$G" --set nodot
has "$T/err" "override 'nodot' is not SECTION.KEY=VALUE" "the override named"
usage_error "policy compare --cost measured" "policy compare" -- "$LBSIM" policy compare t.lbt --grid "$G" --policies none --cost measured
usage_error "policy compare --set without a key" "policy compare" -- "$LBSIM" policy compare t.lbt --grid "$G" --policies none --set x=1
usage_error "export simgrid --steps" "export simgrid" -- "$LBSIM" export simgrid t.lbt --grid "$G" --steps x -o d
usage_error "export simgrid --set without a key" "export simgrid" -- "$LBSIM" export simgrid t.lbt --grid "$G" --set .k=1 -o d
usage_error "export vtk --time" "export vtk" -- "$LBSIM" export vtk t.lbt --grid "$G" --time wall -o d
usage_error "validate --mode" "validate" -- "$LBSIM" validate t.lbt --grid "$G" --mode fast
usage_error "validate --set without a value" "validate" -- "$LBSIM" validate t.lbt --grid "$G" --set sim.mode
usage_error "grid info --set without a key" "grid info" -- "$LBSIM" grid info "$G" --set nodot
usage_error "partition --set without a key" "partition" -- "$LBSIM" partition t.lbt --grid "$G" --set nodot
usage_error "partition --from" "partition" -- "$LBSIM" partition t.lbt --grid "$G" --from x
usage_error "pipeline --set without a key" "pipeline" -- "$LBSIM" pipeline p.ini --set nodot
usage_error "grid gen --family" "grid gen" -- "$LBSIM" grid gen --family XX --procs 4
usage_error "grid gen: clusters that do not divide" "grid gen" -- "$LBSIM" grid gen --family HO --procs 4 --clusters 8
usage_error "trace gen --kind" "trace gen" -- "$LBSIM" trace gen --kind nope -o n.lbt
usage_error "trace gen --order" "trace gen" -- "$LBSIM" trace gen --order x -o n.lbt
usage_error "calibrate --invocations" "calibrate" -- "$LBSIM" calibrate run --kernel sort --invocations x -o c.db
# an option of another sub-command is refused, naming who takes it, before anything runs
usage_error "calibrate verify --warmup" "calibrate" -- "$LBSIM" calibrate verify c.db --warmup 2
has "$T/err" "--warmup: verify does not take it (run-plan does)" "calibrate verify --warmup: who takes it"
usage_error "calibrate run-plan --node" "calibrate" -- "$LBSIM" calibrate run-plan c.db --node threads=1
has "$T/err" "--node: run-plan does not take it (plan does)" "calibrate run-plan --node: who takes it"
usage_error "calibrate run --floor" "calibrate" -- "$LBSIM" calibrate run --kernel sort --floor 1 -o c.db
[ ! -e c.db ] && ok || bad "calibrate run --floor made its database"
usage_error "results --json --csv" "results" -- "$LBSIM" results r.db --json --csv d
[ ! -e n.lbt ] && [ ! -e d ] && [ ! -e c.db ] && ok || bad "a usage error wrote something: $(ls)"
# number options say which option (exit 2 too)
expect 2 "report --max-cells" -- "$LBSIM" report r.db -o r.html --max-cells 5
has "$T/err" "--max-cells" "--max-cells named"
expect 2 "collect --nodes" -- "$LBSIM" collect --listen unix:s --nodes 0 -o c.lbt
has "$T/err" "--nodes" "--nodes named"
expect 2 "collect --listen port out of range" -- "$LBSIM" collect --listen tcp:127.0.0.1:99999 -o c.lbt
has "$T/err" "lbsim: collect: --listen: 'tcp:127.0.0.1:99999': port 99999 is not in 1..65535" "the port named"
expect 2 "collect --listen port not a number" -- "$LBSIM" collect --listen tcp:127.0.0.1:http -o c.lbt
has "$T/err" "port http is not in 1..65535" "a service name is no port"
expect 1 "collect: a limit in the environment that is not a number" -- env LBSPROF_COLLECT_IDLE_S=abc "$LBSIM" collect --listen tcp:127.0.0.1:0 -o c.lbt
has "$T/err" "lbsim: collect: LBSPROF_COLLECT_IDLE_S='abc' is not a number in [0.1, 1000000]" "the variable and its value named"
expect 1 "collect: a limit out of range" -- env LBSPROF_COLLECT_CONN_MB=0 "$LBSIM" collect --listen tcp:127.0.0.1:0 -o c.lbt
has "$T/err" "LBSPROF_COLLECT_CONN_MB='0' is not a number in [1, 1048576]" "a limit out of range named"
[ ! -e c.lbt ] && [ ! -e c.lbt.token ] && ok || bad "a refused collect wrote something: $(ls)"

# errors met while working: exit 1
expect 1 "a missing grid file" -- "$LBSIM" grid info nope.ini
expect 1 "a missing results store" -- "$LBSIM" results nope.db
expect 1 "a missing study" -- "$LBSIM" sweep nope.ini
expect 1 "a section the grid lacks" -- "$LBSIM" replay t.lbt --grid "$G" --set 'cluster nope.nodes=2'
has "$T/err" "there is no [cluster nope]" "the override's section named"
expect 1 "a bad [sim] value by --set" -- "$LBSIM" replay t.lbt --grid "$G" --set sim.mode=fast
has "$T/err" "(command line): mode = 'fast' must be bsp or des" "the --set value named"
finish
