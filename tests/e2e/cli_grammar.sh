#!/usr/bin/env bash
# One command-line grammar (docs/cli.md), checked on every command and sub-command that
# 'lbsim --help' lists: 'lbsim help CMD' is CMD's --help; no help offers -o as an override;
# every command that takes --set refuses the old '-o KEY=VALUE' with the --set spelling; -o is
# the output where there is one; --json is one JSON document on stdout; --csv takes a directory;
# exit codes 0/1/2 with the 'lbsim: CMD: ' prefix; "did you mean" for commands and options.
set -u
LBSIM=$(realpath "${1:?usage: cli_grammar.sh lbsim source-dir}")
SRC=$(realpath "${2:?}")
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
G=$SRC/examples/grids/homogeneous16.ini
cd "$T" || exit 1
# one JSON document, its reals in the one number format: the shortest decimal that reads back
# (as many significant digits as Python's repr), the exponent without '+' or leading zeros
json_one() {
  /usr/bin/python3 -c '
import json, re, sys
def digits(t):
    return len(t.lstrip("-").split("e")[0].replace(".", "").lstrip("0").rstrip("0")) or 1
def real(t):
    assert digits(t) == digits(repr(float(t))), "%s is not the shortest form, %r" % (t, float(t))
    assert not re.search("e[+]|e-?0", t), "%s: the exponent" % t
    return float(t)
json.load(open(sys.argv[1]), parse_float=real)' "$1"
}

# every command, and the sub-commands of those that have them (as cli_usage.sh knows them)
declare -A SUBS=([trace]="gen info check export import recode" [grid]="info gen probe" [policy]="compare"
  [export]="simgrid vtk vt" [calibrate]="run verify show import list plan run-plan")
expect 0 "lbsim --help" -- "$LBSIM" --help
cmds=$(sed -n '/^commands:/,/^$/p' "$T/out" | awk 'NF && $1 != "commands:" && $1 != "help" {print $1}')
[ "$(echo "$cmds" | wc -w)" -ge 13 ] && ok || bad "lbsim --help lists: $cmds"
all=()
for c in $cmds; do
  if [ -n "${SUBS[$c]:-}" ]; then for s in ${SUBS[$c]}; do all+=("$c $s"); done; else all+=("$c"); fi
done

# help: 'lbsim help CMD [SUB]' prints what --help prints; no help offers -o KEY=VALUE
expect 0 "lbsim help" -- "$LBSIM" help
has "$T/out" "commands:" "lbsim help lists the commands"
for cs in "${all[@]}"; do
  # shellcheck disable=SC2086
  "$LBSIM" $cs --help >"$T/h1" 2>&1
  # shellcheck disable=SC2086
  expect 0 "lbsim help $cs" -- "$LBSIM" help $cs
  cmp -s "$T/out" "$T/h1" && ok || bad "lbsim help $cs differs from lbsim $cs --help"
  grep -qE -- '(^|[ [])-o +[A-Za-z_+]+\.[A-Za-z_]+=' "$T/h1" && bad "$cs --help offers -o as an override" || ok
done
expect 2 "help of an unknown command" -- "$LBSIM" help replya
has "$T/err" "did you mean 'replay'?" "help: did you mean"

# --set: every command whose help offers it takes it, and refuses '-o KEY=VALUE' naming --set
n=0
for cs in "${all[@]}"; do
  # shellcheck disable=SC2086
  "$LBSIM" $cs --help >"$T/h1" 2>&1
  grep -qiE -- '--set (SEC|SECTION|S)\.' "$T/h1" || continue
  case $cs in
    pipeline) args=(p.ini) ;;
    "grid info") args=("$G") ;;
    *) args=(t.lbt --grid "$G") ;;
  esac
  # shellcheck disable=SC2086
  expect 2 "$cs -o KEY=VALUE" -- "$LBSIM" $cs "${args[@]}" -o sim.steps=1:2
  has "$T/err" "lbsim: $cs: -o sim.steps=1:2: " "$cs: the old spelling named"
  has "$T/err" "--set sim.steps=1:2" "$cs: the new spelling given"
  [ ! -e sim.steps=1:2 ] && ok || bad "$cs wrote a file named by the old override"
  n=$((n + 1))
done
[ "${n:-0}" -ge 8 ] && ok || bad "only ${n:-0} commands offer --set"

# inputs for the runs below
expect 0 "trace gen -o" -- "$LBSIM" trace gen --kind bump --mesh 8x8x4 --steps 20 -o t.lbt
[ -s t.lbt ] && ok || bad "trace gen -o wrote no file"
# the success line: one form, on stderr, stdout left to the report
has "$T/err" "lbsim: trace gen: wrote t.lbt: 256 elements, 20 steps" "trace gen's success line"
[ ! -s "$T/out" ] && ok || bad "trace gen wrote its success line to stdout"
cp "$SRC/examples/pipeline/laplace.ini" p.ini

# -o is the output: written where it says, and only with -f over an earlier one
expect 0 "grid gen -o" -- "$LBSIM" grid gen --family HO --procs 4 -o g4.ini
[ -s g4.ini ] && ok || bad "grid gen -o wrote no file"
has "$T/err" "lbsim: grid gen: wrote g4.ini" "grid gen's success line"
expect 0 "partition -o" -- "$LBSIM" partition t.lbt --grid "$G" --partitioner zoltan:rcb -o parts.txt
[ "$(wc -l <parts.txt)" -eq 256 ] && ok || bad "partition -o: $(wc -l <parts.txt) lines, not one per element"
has "$T/err" "lbsim: partition: wrote parts.txt" "partition's success line"
expect 1 "partition -o over an existing file" -- "$LBSIM" partition t.lbt --grid "$G" --partitioner zoltan:rcb -o parts.txt
expect 0 "pipeline -o" -- "$LBSIM" pipeline p.ini -o p.txt
[ -s p.txt ] && ok || bad "pipeline -o wrote no file"
expect 0 "replay --set" -- "$LBSIM" replay t.lbt --grid "$G" --set sim.steps=0:10 --json --results r.db
json_one "$T/out" && ok || bad "replay --json is not one JSON document"
has "$T/out" '"steps":10' "--set sim.steps applied"

# --json: one document on stdout, for each command that offers it (calibrate, grid probe and
# validate measure this machine or run applications: their --json is checked by their own tests)
J=("trace info t.lbt" "trace check t.lbt" "grid info $G" "replay t.lbt --grid $G"
  "policy compare t.lbt --grid $G --policies none,fixed:5" "partition t.lbt --grid $G --partitioner zoltan:rcb,minex"
  "pipeline p.ini" "results r.db" "export simgrid t.lbt --grid $G -o sg")
for j in "${J[@]}"; do
  # shellcheck disable=SC2086
  expect 0 "$j --json" -- "$LBSIM" $j --json
  json_one "$T/out" && ok || bad "$j --json: not one JSON document: $(head -c 200 "$T/out")"
done

# stable shapes: an array where there can be several, also when there is one
expect 0 "partition --json, one partitioner" -- "$LBSIM" partition t.lbt --grid "$G" --partitioner minex --json
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert isinstance(d, list) and len(d) == 1, d' \
  "$T/out" && ok || bad "partition --json of one partitioner is not an array of one"

# --csv DIR: a directory of CSV files, for every command that writes CSV
printf '[study]\nname = g\ntraces = t.lbt\ngrids = %s\npolicies = none\n' "$G" >study.ini
for c in "policy compare t.lbt --grid $G --policies none,fixed:5" "results r.db" "trace export t.lbt" \
  "sweep study.ini" "pipeline p.ini"; do
  rm -rf csv
  # shellcheck disable=SC2086
  expect 0 "$c --csv DIR" -- "$LBSIM" $c --csv csv
  [ -d csv ] && ls csv/*.csv >/dev/null 2>&1 && ok || bad "$c --csv: no directory of CSV files"
  case $c in policy*) name="policy compare" ;; trace*) name="trace export" ;; *) name=${c%% *} ;; esac
  has "$T/err" "lbsim: $name: wrote csv" "$c --csv: the success line"
done
# every help that offers --csv offers a directory, and --csv without one is a usage error
for cs in "${all[@]}"; do
  # shellcheck disable=SC2086
  "$LBSIM" $cs --help >"$T/h1" 2>&1
  grep -qE -- '--csv( |$)' "$T/h1" || continue
  grep -E -- '^ *(\[|usage:.*)?--csv|\[--csv' "$T/h1" | grep -vqE -- '--csv DIR' &&
    bad "$cs --help: --csv without DIR: $(grep -- '--csv' "$T/h1" | head -2)" || ok
done
expect 2 "pipeline --csv without DIR" -- "$LBSIM" pipeline p.ini --csv
has "$T/err" "lbsim: pipeline: --csv takes a directory" "pipeline --csv: a directory asked for"
expect 2 "sweep --csv without DIR" -- "$LBSIM" sweep study.ini --csv
has "$T/err" "lbsim: sweep: --csv needs a value" "sweep --csv: the value asked for"

# exit codes and the prefix: 0 help, 2 a usage error, 1 a failure while working
for cs in "${all[@]}"; do
  # shellcheck disable=SC2086
  expect 2 "$cs --bogus" -- "$LBSIM" $cs --bogus
  pre="lbsim: $cs: "
  [ "${cs%% *}" = calibrate ] && pre="lbsim: calibrate: "
  has "$T/err" "$pre" "$cs: the error prefix"
  has "$T/err" "unknown option '--bogus'" "$cs: the option named"
done
expect 1 "a missing trace" -- "$LBSIM" replay nope.lbt --grid "$G"
has "$T/err" "lbsim: replay: " "a failure's prefix"

# did you mean: commands and options
expect 2 "a mistyped command" -- "$LBSIM" replya
has "$T/err" "lbsim: unknown command 'replya'; did you mean 'replay'?" "a command suggested"
for w in "trace gne gen" "grid ifno info" "policy compaer compare" "export vtkk vtk" "calibrate shwo show"; do
  set -- $w
  expect 2 "a mistyped sub-command: $1 $2" -- "$LBSIM" "$1" "$2"
  has "$T/err" "'$2'; did you mean '$3'?" "$1: the sub-command suggested"
done
expect 2 "a mistyped option" -- "$LBSIM" replay t.lbt --grid "$G" --jsn
has "$T/err" "lbsim: replay: unknown option '--jsn'; did you mean '--json'?" "an option suggested"
expect 2 "a far option" -- "$LBSIM" trace gen --zzzzzzzz
grep -q "did you mean" "$T/err" && bad "a suggestion for a name like none: $(cat "$T/err")" || ok
expect 2 "an option without its value" -- "$LBSIM" replay t.lbt --grid
has "$T/err" "lbsim: replay: --grid needs a value" "the missing value named"
expect 2 "a short option without its value" -- "$LBSIM" trace gen -o
has "$T/err" "lbsim: trace gen: -o needs a value" "the missing value named (short)"
expect 2 "calibrate's --set" -- "$LBSIM" calibrate run --kernel sort --set 5
has "$T/err" "--set-pct" "calibrate: the SET parameter's new name"
finish
