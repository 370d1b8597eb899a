#!/usr/bin/env bash
# End-to-end checks of `lbsim trace` as a user runs it: outputs, exit codes, messages.
set -u
LBSIM=${1:?usage: trace_cli.sh path/to/lbsim}
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

expect 0 "lbsim --help" -- "$LBSIM" --help
has "$T/out" "trace" "top-level help lists trace"
expect 2 "unknown command" -- "$LBSIM" frobnicate
has "$T/err" "lbsim: unknown command 'frobnicate'" "unknown command message"
for sub in gen info check export import; do
  expect 0 "trace $sub --help" -- "$LBSIM" trace "$sub" --help
  has "$T/out" "usage: lbsim trace $sub" "trace $sub help"
done

expect 0 "gen bump" -- "$LBSIM" trace gen --kind bump --mesh 16x10x8 --steps 12 --seed 3 -o "$T/b.lbt"
expect 0 "info --json" -- "$LBSIM" trace info "$T/b.lbt" --json
[ "$(wc -l <"$T/out")" -eq 1 ] && ok || bad "info --json prints one line"
has "$T/out" '"elements":1280' "info elements"
has "$T/out" '"steps":12' "info steps"
has "$T/out" '"name":"time_ns"' "info metrics"
for f in raw_bytes stored_bytes ratio max_abs_error rms_error codec error_bound; do has "$T/out" "\"$f\":" "info field $f"; done
expect 0 "check" -- "$LBSIM" trace check "$T/b.lbt"
has "$T/out" "against the source" "check measures against the generator"

# Hilbert order and the other generators
expect 0 "gen hotspot hilbert" -- "$LBSIM" trace gen --kind hotspot --mesh 16x16x4 --steps 4 --order hilbert --eps 0.01 -o "$T/h.lbt"
expect 0 "check hotspot" -- "$LBSIM" trace check "$T/h.lbt" --json
has "$T/out" '"ok":true' "check --json ok"
expect 0 "gen random lossless" -- "$LBSIM" trace gen --kind random --mesh 10x10 --steps 3 --eps 0 -o "$T/r.lbt"
expect 0 "check random" -- "$LBSIM" trace check "$T/r.lbt" --json
has "$T/out" '"max_abs_error":0,' "eps 0 is exact"

# export / import round trip: decoded values survive exactly
expect 0 "export steps-dir" -- "$LBSIM" trace export "$T/b.lbt" --steps-dir "$T/sd"
has "$T/sd/manifest" "mesh structured 16x10x8 natural" "manifest mesh"
expect 0 "import steps-dir" -- "$LBSIM" trace import --steps-dir "$T/sd" -o "$T/b2.lbt"
expect 0 "export csv a" -- "$LBSIM" trace export "$T/b.lbt" --csv "$T/ca"
expect 0 "export csv b" -- "$LBSIM" trace export "$T/b2.lbt" --csv "$T/cb"
cmp -s "$T/ca/steps.csv" "$T/cb/steps.csv" && ok || bad "steps.csv differs after export/import"
[ "$(wc -l <"$T/ca/steps.csv")" -eq $((12 * 1280 + 1)) ] && ok || bad "steps.csv row count"
expect 0 "export one step" -- "$LBSIM" trace export "$T/b.lbt" --csv "$T/c1" --step 5
[ "$(wc -l <"$T/c1/steps.csv")" -eq 1281 ] && ok || bad "one step exported"
expect 1 "export step out of range" -- "$LBSIM" trace export "$T/b.lbt" --csv "$T/c2" --step 99
has "$T/err" "outside the trace's 12 steps" "range message"

# Chaco import
printf '%% square\n4 4 1\n2 1 4 2\n1 1 3 5\n2 5 4 1\n3 1 1 2\n' >"$T/g.graph"
printf '0 0\n1 0\n1 1\n0 1\n' >"$T/g.coords"
expect 0 "import chaco" -- "$LBSIM" trace import --chaco "$T/g.graph" --coords "$T/g.coords" -o "$T/g.lbt"
expect 0 "info chaco" -- "$LBSIM" trace info "$T/g.lbt"
has "$T/out" "unstructured, 8 edges" "chaco mesh"
printf '3 2\n2\n1 x\n2\n' >"$T/bad.graph"
expect 1 "malformed chaco" -- "$LBSIM" trace import --chaco "$T/bad.graph" -o "$T/bad.lbt"
has "$T/err" "bad.graph:3: 'x' is not a number" "chaco line number"
[ ! -e "$T/bad.lbt" ] && ok || bad "failed import left a file"

# Bad input: clear messages, non-zero exit, never a crash
expect 1 "existing output" -- "$LBSIM" trace gen --steps 2 -o "$T/b.lbt"
has "$T/err" "file exists (use --force" "no silent overwrite"
expect 2 "bad option value" -- "$LBSIM" trace gen --steps 0 -o "$T/x.lbt"
has "$T/err" "lbsim: option --steps" "option error"
expect 1 "unknown generator" -- "$LBSIM" trace gen --kind wave -o "$T/x.lbt"
has "$T/err" "known: bump, hotspot, random" "generator list"
expect 1 "missing file" -- "$LBSIM" trace info "$T/nope.lbt"
has "$T/err" "lbsim: trace info: $T/nope.lbt: cannot open" "missing file message"
echo "just text" >"$T/notes.txt"
expect 1 "non-trace file" -- "$LBSIM" trace check "$T/notes.txt"
has "$T/err" "not an lbsim trace" "foreign file message"
cp "$T/b.lbt" "$T/c.lbt"
sqlite3 "$T/c.lbt" "UPDATE chunks SET data = zeroblob(length(data)) WHERE step=7 AND metric=1 AND chunk=0"
expect 1 "corrupt chunk" -- "$LBSIM" trace check "$T/c.lbt"
has "$T/err" "step 7 metric 'weight' chunk 0: checksum mismatch" "corrupt chunk named"
sqlite3 "$T/c.lbt" "PRAGMA user_version=7"
expect 1 "schema version" -- "$LBSIM" trace info "$T/c.lbt"
has "$T/err" "schema version 7" "version message"
size=$(stat -c %s "$T/b.lbt")
head -c $((size / 2)) "$T/b.lbt" >"$T/t.lbt"
expect 1 "truncated file" -- "$LBSIM" trace check "$T/t.lbt"
has "$T/err" "lbsim: " "truncated file message"

finish
