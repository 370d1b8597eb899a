#!/usr/bin/env bash
# End-to-end checks of `lbsim pipeline` as a user runs it: seed 000's figures from the example,
# the outputs, and every kind of bad input with its exact message.
set -u
LBSIM=${1:?usage: pipeline_cli.sh path/to/lbsim source-dir}
SRC=${2:?usage: pipeline_cli.sh path/to/lbsim source-dir}
EX="$SRC/examples/pipeline/laplace.ini"
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

expect 0 "pipeline --help" -- "$LBSIM" pipeline --help
has "$T/out" "lbsim pipeline examples/pipeline/laplace.ini" "help has examples"
expect 0 "pipeline --help-config" -- "$LBSIM" pipeline --help-config
has "$T/out" "[mapping NAME] (required)" "help-config lists the sections"
has "$T/out" "demand_s" "help-config lists the keys"
expect 0 "lbsim --help lists pipeline" -- "$LBSIM" --help
has "$T/out" "pipeline" "command listed"

# Section 3.3: mapping 2A's demands, bottleneck, utilisations, throughput, execution time.
expect 0 "example" -- "$LBSIM" pipeline "$EX"
has "$T/out" "  p1               0.00146099     99.9629%      14.6099  RNG*0.5 Walk*0.5" "2A processor 1"
has "$T/out" "  p2               0.00146153    100.0000%      14.6153  RNG*0.5 Walk*0.5 AVG Print  <- bottleneck" \
  "2A processor 2"
has "$T/out" "2A             2  p2               0.00146153        684.215      14.6153" "2A summary"
has "$T/out" "2B             2  p1               0.00167118        598.378      16.7118" "2B summary"
has "$T/out" "4A             4  p1              0.000835592        1196.76      8.35592" "4A summary"
has "$T/out" "4B             4  p4              0.000731073        1367.85      7.31073" "4B summary"
has "$T/out" "75.7264%" "2B processor 2's utilisation"
expect 0 "json" -- "$LBSIM" pipeline "$EX" --json --mappings 2B,2A
has "$T/out" '"mappings":[{"name":"2B","bottleneck":"p1"' "json: mappings in the order asked"
has "$T/out" '"throughput_jobs_per_s":684.2146402679491' "json: 2A's throughput (the shortest decimal that reads back)"
if command -v python3 >/dev/null; then
  cp "$T/out" "$T/p.json"
  expect 0 "json parses" -- python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [m["name"] for m in d["mappings"]]==["2B","2A"]' "$T/p.json"
fi
# --csv DIR: DIR/mappings.csv, and the tables on stdout as ever
expect 0 "csv" -- "$LBSIM" pipeline "$EX" --csv "$T/csv"
has "$T/csv/mappings.csv" "mapping,processor,speed,demand_s,utilization,busy_s,bottleneck,copies," "csv header"
has "$T/csv/mappings.csv" "2A,p2,1,0.0014615296738,1,14.615296738,1,RNG*0.5 Walk*0.5 AVG Print," "csv row"
[ "$(wc -l <"$T/csv/mappings.csv")" -eq 13 ] && ok || bad "csv: 12 rows and a header, got $(wc -l <"$T/csv/mappings.csv") lines"
[ "$(ls -A "$T/csv")" = mappings.csv ] && ok || bad "--csv DIR holds mappings.csv alone: $(ls -A "$T/csv")"
has "$T/out" "2A             2  p2               0.00146153        684.215      14.6153" "csv: the tables on stdout too"
has "$T/err" "lbsim: pipeline: wrote $T/csv" "csv: the success line"
expect 1 "csv directory exists" -- "$LBSIM" pipeline "$EX" --csv "$T/csv"
has "$T/err" "lbsim: pipeline: $T/csv: directory is not empty (use --force" "csv exists message"
expect 0 "csv and json to a file" -- "$LBSIM" pipeline "$EX" --mappings 2B --csv "$T/csv" -f --json -o "$T/p2.json"
[ "$(wc -l <"$T/csv/mappings.csv")" -eq 3 ] && ok || bad "csv -f: 2B's 2 rows and a header, got $(wc -l <"$T/csv/mappings.csv")"
has "$T/p2.json" '"mappings":[{"name":"2B"' "csv with json: the JSON to -o"
[ ! -s "$T/out" ] && ok || bad "csv with -o: something on stdout"
mkdir "$T/mine"
echo precious >"$T/mine/notes.txt"
expect 1 "csv into a user's directory -f" -- "$LBSIM" pipeline "$EX" --csv "$T/mine" -f
has "$T/err" "lbsim: pipeline: $T/mine/notes.txt: not a file lbsim writes there; refusing to replace $T/mine" \
  "a user's directory message"
# the old flag: a usage error, never a directory named after the next word
expect 2 "csv without a directory" -- "$LBSIM" pipeline "$EX" --csv
has "$T/err" "lbsim: pipeline: --csv takes a directory (the CSV goes to DIR/mappings.csv)" "csv flag message"
expect 2 "the old --csv -o FILE" -- "$LBSIM" pipeline "$EX" --csv -o "$T/old.csv"
has "$T/err" "lbsim: pipeline: --csv takes a directory (the CSV goes to DIR/mappings.csv), not '-o'" "old csv message"
[ ! -e "$T/old.csv" ] && [ ! -e "$T/-o" ] && ok || bad "the old --csv -o FILE wrote something"
expect 0 "override" -- "$LBSIM" pipeline "$EX" --mappings 2A --set pipeline.jobs=20000 --json
has "$T/out" '"response_s":14.615296738' "more jobs, the same demands per job: seconds are over the jobs"

# Outputs: a new file, refused when there, replaced with -f, never a directory; stdout errors.
expect 0 "output file" -- "$LBSIM" pipeline "$EX" --json --output "$T/p.csv"
has "$T/p.csv" '"name":"4B"' "written"
expect 1 "output exists" -- "$LBSIM" pipeline "$EX" --output "$T/p.csv"
has "$T/err" "lbsim: $T/p.csv: file exists (use --force to overwrite)" "exists message"
expect 0 "output forced" -- "$LBSIM" pipeline "$EX" -o "$T/p.csv" -f
has "$T/p.csv" "mapping    procs  bottleneck" "replaced"
mkdir "$T/dir"
expect 1 "output directory" -- "$LBSIM" pipeline "$EX" --output "$T/dir" -f
has "$T/err" "lbsim: $T/dir: not a regular file; refusing to replace it" "directory message"
if [ -w /dev/full ]; then
  "$LBSIM" pipeline "$EX" >/dev/full 2>"$T/err"
  [ $? -eq 1 ] && ok || bad "a full standard output must fail"
  has "$T/err" "lbsim: standard output: No space left on device" "stdout message"
fi
expect 2 "force without an output" -- "$LBSIM" pipeline "$EX" -f
has "$T/err" "lbsim: pipeline: --force goes with -o FILE or --csv DIR" "usage message"
expect 2 "no file" -- "$LBSIM" pipeline
has "$T/err" "lbsim: pipeline: expected one pipeline file" "usage message"
expect 1 "unknown mapping" -- "$LBSIM" pipeline "$EX" --mappings 2A,4C
has "$T/err" "lbsim: pipeline: --mappings: no mapping '4C' (known: 2A 2B 4A 4B)" "mapping message"
expect 1 "missing file" -- "$LBSIM" pipeline "$T/nope.ini"
has "$T/err" "lbsim: pipeline: " "missing file message"

# Bad input: file:line and what is wrong, exit 1.
head='[pipeline]\njobs = 10\n[block A]\nseconds = 1\n[block B]\ndemand_s = 0.5\n[processor x]\n[processor y]\n'
bad_case() { # NAME TEXT MESSAGE
  printf "$head$2" >"$T/$1.ini"
  expect 1 "$1" -- "$LBSIM" pipeline "$T/$1.ini"
  has "$T/err" "lbsim: pipeline: $T/$1.ini:$3" "$1 message"
}
bad_case unmapped '[mapping m]\nA = x\n' \
  "9: [mapping m] leaves block 'B' unmapped (map it, or list it in 'omit = ' when this topology has no such block)"
bad_case unknown_proc '[mapping m]\nA = x\nB = z\n' \
  "11: [mapping m] puts block B on processor 'z', which has no [processor z] section (did you mean 'x'? known: x y)"
bad_case unknown_block '[mapping m]\nA = x\nC = y\nB = x\n' \
  "11: [mapping m] maps block 'C', which has no [block C] section (did you mean 'A'? known: A B)"
bad_case negative '[mapping m]\nA = x\nB = y\n[block C]\nseconds = -2\n' "13: seconds = -2 is outside [0, 1e+15]"
bad_case nan '[mapping m]\nA = x\nB = y\n[block C]\ndemand_s = nan\n' "13: demand_s = 'nan' is not a number"
bad_case infinite '[mapping m]\nA = x\nB = y\n[block C]\nseconds = inf\n' "13: seconds = 'inf' is not a number"
bad_case dup_pipeline '[mapping m]\nA = x\nB = y\n[pipeline]\n' "12: section [pipeline] given twice (first at line 1)"
bad_case dup_mapping '[mapping m]\nA = x\nB = y\n[mapping m]\n' "12: section [mapping m] given twice (first at line 9)"
bad_case dup_block '[block A]\n[mapping m]\nA = x\nB = y\n' "9: section [block A] given twice (first at line 3)"
bad_case dup_key '[mapping m]\nA = x\nA = y\nB = y\n' "11: key 'A' repeats in [mapping m] (first at line 10)"
bad_case share '[mapping m]\nA = x*-1\nB = y\n' \
  "10: [mapping m] A = x*-1: the share must be a number or a fraction A/B, > 0"
bad_case mixed '[mapping m]\nA = x*1/2 y\nB = y\n' \
  "10: [mapping m] A: give every copy a share (PROC*SHARE) or none (k copies take 1/k each)"
bad_case empty '[mapping m]\nA =\nB = y\n' "10: [mapping m] A = (nothing): name one processor or more, as PROC or PROC*SHARE"
bad_case omit_twice '[mapping m]\nomit = A\nA = x\nB = y\n' "11: [mapping m] maps block 'A' and omits it too"
bad_case no_block_left '[mapping m]\nomit = A B\n' "9: [mapping m] maps no block"
bad_case buffer '[buffer A C]\n[mapping m]\nA = x\nB = y\n' \
  "9: [buffer A C]: no [block C] section (did you mean 'A'? known: A B)"
bad_case capacity '[buffer A B]\ncapacity = -1\n[mapping m]\nA = x\nB = y\n' "10: capacity = -1 is outside [0, 1e+15]"
bad_case speed '[processor z]\nspeed = 0\n[mapping m]\nA = x\nB = y\n' "10: speed = 0 is outside [1e-12, 1e+12]"
bad_case both '[block C]\nseconds = 1\ndemand_s = 1\n[mapping m]\nA = x\nB = y\nC = y\n' \
  "11: [block C] gives both seconds and demand_s: give one"
bad_case neither '[block C]\n[mapping m]\nA = x\nB = y\nC = y\n' \
  "9: [block C] needs 'seconds' (total over the [pipeline] jobs) or 'demand_s' (per job)"
bad_case typo '[mapping m]\nA = x\nB = y\n[processor z]\nsped = 2\n' "13: unknown key 'sped' in [processor] (did you mean 'speed'?)"

printf '[pipeline]\njobs = 0\n[block A]\nseconds = 1\n[processor x]\n[mapping m]\nA = x\n' >"$T/zero.ini"
expect 1 "zero jobs" -- "$LBSIM" pipeline "$T/zero.ini"
has "$T/err" "lbsim: pipeline: $T/zero.ini:2: jobs = 0 is outside [1, 1e+15]" "zero jobs message"
printf "$head" >"$T/none.ini"
expect 1 "no mappings" -- "$LBSIM" pipeline "$T/none.ini"
has "$T/err" "lbsim: pipeline: $T/none.ini: no [mapping NAME] section" "no mapping message"
printf '[pipeline]\njobs = 1\n[block A]\nseconds = 0\n[processor x]\n[mapping m]\nA = x\n' >"$T/idle.ini"
expect 1 "all demands zero" -- "$LBSIM" pipeline "$T/idle.ini"
has "$T/err" "lbsim: pipeline: $T/idle.ini:6: [mapping m]: every processor's demand is 0, so nothing bounds the throughput" \
  "zero demand message"
expect 1 "bad override" -- "$LBSIM" pipeline "$EX" --set "mapping 2A.Walk=p9"
has "$T/err" "[mapping 2A] puts block Walk on processor 'p9', which has no [processor p9] section" "override checked too"

finish
