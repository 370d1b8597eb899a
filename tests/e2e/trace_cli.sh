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
for sub in gen info check export import recode; do
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
# text JSON must escape or repair (jansson writes it): a path with a quote, a backslash, a
# control character and bytes that are not UTF-8; python3's json reads it back, each bad byte
# as U+FFFD
Q="$T/q\"b\\c$(printf '\001')d$(printf '\377')e$(printf '\303')(.lbt"
cp "$T/b.lbt" "$Q"
expect 0 "info --json of an odd path" -- "$LBSIM" trace info "$Q" --json --no-values
python3 - "$T/out" "$Q" <<'PY' && ok || bad "an odd path through JSON: $(head -c 300 "$T/out")"
import json, os, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
want = os.fsencode(sys.argv[2]).decode("utf-8", "replace")
assert d["path"] == want and want.count("\ufffd") == 2 and '"b\\c\x01d' in want, (d["path"], want)
PY
expect 0 "check" -- "$LBSIM" trace check "$T/b.lbt"
has "$T/out" "against the source" "check measures against the generator"

# Hilbert order and the other generators
expect 0 "gen hotspot hilbert" -- "$LBSIM" trace gen --kind hotspot --mesh 16x16x4 --steps 4 --order hilbert --bound rel:0.01 -o "$T/h.lbt"
expect 0 "check hotspot" -- "$LBSIM" trace check "$T/h.lbt" --json
has "$T/out" '"ok":true' "check --json ok"
# against its recipe: the error as a fraction of the step's range, named so (trace info's
# max_rel_error is pointwise)
has "$T/out" '"max_range_error":' "check --json names the range error"
! grep -q max_rel_error "$T/out" && ok || bad "check --json calls a range error max_rel_error"
expect 0 "gen random lossless" -- "$LBSIM" trace gen --kind random --mesh 10x10 --steps 3 --bound lossless -o "$T/r.lbt"
expect 0 "check random" -- "$LBSIM" trace check "$T/r.lbt" --json
has "$T/out" '"max_abs_error":0,' "eps 0 is exact"

# export / import round trip: decoded values survive exactly
expect 0 "export steps-dir" -- "$LBSIM" trace export "$T/b.lbt" --steps-dir "$T/sd"
has "$T/sd/manifest" "mesh structured 16x10x8 natural" "manifest mesh"
expect 0 "import steps-dir" -- "$LBSIM" trace import --steps-dir "$T/sd" --bound lossless -o "$T/b2.lbt"
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
# what Zoltan's reader forgives: '#' comments, m counting both directions, self loops, no lines
# for trailing isolated vertices; each reported once on stderr, the import succeeds
printf '# drake\n4 8 010\n4 2 4\n1 1 3\n4 2 4\n1 1 3\n' >"$T/drake.graph"
expect 0 "import m counting both directions" -- "$LBSIM" trace import --chaco "$T/drake.graph" -o "$T/drake.lbt"
has "$T/err" "lbsim: warning: $T/drake.graph:2: the header says m = 8, but the lines hold 4 edges" "m warning"
printf '3 2\n1 2\n2 1 3\n3 2\n' >"$T/loops.graph"
expect 0 "import self loops" -- "$LBSIM" trace import --chaco "$T/loops.graph" -o "$T/loops.lbt"
[ "$(grep -c 'self loop' "$T/err")" -eq 1 ] && ok || bad "self loops warned once: $(cat "$T/err")"
printf '25 0\n' >"$T/nograph.graph"
expect 0 "import nograph" -- "$LBSIM" trace import --chaco "$T/nograph.graph" -o "$T/nograph.lbt"
has "$T/err" "the last 25 vertices read as isolated ones" "isolated vertices warning"
expect 0 "info nograph" -- "$LBSIM" trace info "$T/nograph.lbt"
has "$T/out" "unstructured, 0 edges" "nograph has no edges"
printf '4 6\n2 4\n1 3\n2 4\n1 3\n' >"$T/badm.graph"
expect 1 "wrong m" -- "$LBSIM" trace import --chaco "$T/badm.graph" -o "$T/badm.lbt"
has "$T/err" "badm.graph:1: the header says m = 6 edges, but the vertex lines hold 4" "wrong m named"

# Bad input: clear messages, non-zero exit, never a crash
expect 1 "existing output" -- "$LBSIM" trace gen --steps 2 -o "$T/b.lbt"
has "$T/err" "file exists (use --force" "no silent overwrite"
expect 2 "bad option value" -- "$LBSIM" trace gen --steps 0 -o "$T/x.lbt"
has "$T/err" "lbsim: option --steps" "option error"
expect 2 "unknown generator" -- "$LBSIM" trace gen --kind wave -o "$T/x.lbt"
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
expect 1 "info on a damaged trace" -- "$LBSIM" trace info "$T/c.lbt"
has "$T/out" "elements  1280" "info still reports what it can"
has "$T/err" "the values could not be read: $T/c.lbt: step 7 metric 'weight' chunk 0: checksum mismatch" "damage named once"
sqlite3 "$T/c.lbt" "PRAGMA user_version=7"
expect 1 "schema version" -- "$LBSIM" trace info "$T/c.lbt"
has "$T/err" "schema version 7" "version message"
size=$(stat -c %s "$T/b.lbt")
head -c $((size / 2)) "$T/b.lbt" >"$T/t.lbt"
expect 1 "truncated file" -- "$LBSIM" trace check "$T/t.lbt"
has "$T/err" "lbsim: " "truncated file message"

# Error bounds: one spelling, checked against the codec, per metric
expect 0 "gen with bounds per metric" -- "$LBSIM" trace gen --kind bump --mesh 12x8x4 --steps 6 --bound rel:0.01 \
  --bound weight=lossless -o "$T/pm.lbt"
expect 0 "info --json of it" -- "$LBSIM" trace info "$T/pm.lbt" --json
has "$T/out" '"name":"time_ns","unit":"ns","codec":"auto","bound":"rel:0.01"' "time_ns bound"
has "$T/out" '"name":"weight","unit":"1","codec":"lossless","bound":"lossless"' "weight lossless"
for f in max_rel_error max_sum_error values median p99 negative nonfinite warnings chunks; do has "$T/out" "\"$f\":" "info field $f"; done
expect 0 "check it" -- "$LBSIM" trace check "$T/pm.lbt" --json
has "$T/out" '"ok":true' "per-metric bounds check against the source"
for combo in "--bound rel:0.01 --codec weight=lossless" "--codec quant --bound weight=lossless" \
             "--codec lossless --bound time_ns=rel:0.01" "--bound lossless --codec time_ns=quant"; do
  # shellcheck disable=SC2086
  expect 0 "per-metric setting over a global one: $combo" -- "$LBSIM" trace gen --kind bump --mesh 6x6x2 --steps 2 $combo \
    -o "$T/combo.lbt" -f
done
expect 0 "the last combination" -- "$LBSIM" trace info "$T/combo.lbt" --json --no-values
has "$T/out" '"name":"time_ns","unit":"ns","codec":"quant","bound":"rel:0.005"' "time_ns quant at the default bound"
has "$T/out" '"name":"weight","unit":"1","codec":"lossless","bound":"lossless"' "weight lossless"
expect 2 "lossless codec with a lossy bound" -- "$LBSIM" trace gen --steps 2 --codec lossless --bound rel:0.01 -o "$T/x.lbt"
has "$T/err" "the lossless codec stores values exactly" "codec/bound mismatch named"
expect 2 "lossy codec with a lossless bound" -- "$LBSIM" trace gen --steps 2 --codec quant --bound lossless -o "$T/x.lbt"
has "$T/err" "the quant codec is lossy" "codec/bound mismatch named"
expect 2 "negative bound" -- "$LBSIM" trace gen --steps 2 --bound rel:-0.1 -o "$T/x.lbt"
has "$T/err" "lbsim: option --bound: error bound 'rel:-0.1': eps is negative" "negative bound"
expect 2 "NaN bound" -- "$LBSIM" trace gen --steps 2 --bound abs:nan -o "$T/x.lbt"
has "$T/err" "eps is NaN" "NaN bound"
expect 2 "unknown bound kind" -- "$LBSIM" trace gen --steps 2 --bound 1e-3 -o "$T/x.lbt"
has "$T/err" "is not one of rel:EPS" "bound kinds listed"
expect 2 "bound for an unknown metric" -- "$LBSIM" trace gen --steps 2 --bound cycles=rel:0.01 -o "$T/x.lbt"
has "$T/err" "no metric 'cycles' (metrics: time_ns weight)" "metric names listed"
[ ! -e "$T/x.lbt" ] && ok || bad "a refused gen left a file"

# Measured-looking noise: outliers make a range bound loose, and trace info says so
expect 0 "gen with noise and a range bound" -- "$LBSIM" trace gen --kind bump --mesh 16x12x4 --steps 5 --noise default \
  --bound range:1e-3 -o "$T/noisy.lbt"
expect 0 "check the noisy trace against its source" -- "$LBSIM" trace check "$T/noisy.lbt"
has "$T/out" "against the source" "noise is part of the recipe"
expect 0 "info warns" -- "$LBSIM" trace info "$T/noisy.lbt"
has "$T/err" "warning: metric 'time_ns': the bound range:0.001 lets a value move by up to" "range warning"
has "$T/err" "use a pointwise bound such as rel:" "advice"
expect 0 "info --json warns" -- "$LBSIM" trace info "$T/noisy.lbt" --json
has "$T/out" '"warnings":["metric '"'"'time_ns'"'"': the bound range:0.001' "warning in JSON"
expect 2 "bad noise" -- "$LBSIM" trace gen --noise jitter=x -o "$T/x.lbt"
has "$T/err" "lbsim: option --noise: noise 'jitter=x': jitter wants a number" "noise message"

# Recode: decide the compaction later; metadata and mesh kept
expect 0 "gen lossless" -- "$LBSIM" trace gen --kind hotspot --mesh 40x40x4 --steps 4 --noise default --bound lossless -o "$T/ll.lbt"
expect 0 "recode at the default bound" -- "$LBSIM" trace recode "$T/ll.lbt" -o "$T/rc.lbt"
expect 0 "recoded info" -- "$LBSIM" trace info "$T/rc.lbt" --json
has "$T/out" '"bound":"rel:0.005"' "recoded to the default bound"
has "$T/out" '"source":"hotspot 40x40x4 steps=4 seed=1 noise=jitter:0.01,tick:1,spikes:2"' "source recipe kept"
has "$T/out" '"mesh":"structured 40x40x4 (natural order)"' "mesh kept"
expect 0 "recoded trace checks against the generator" -- "$LBSIM" trace check "$T/rc.lbt"
has "$T/out" "against the source" "recoded check"
chunk_bytes() { "$LBSIM" trace info "$1" --json --no-values | grep -oE '"chunk_bytes":[0-9]+,"ratio' | grep -oE '[0-9]+'; }
a=$(chunk_bytes "$T/ll.lbt"); b=$(chunk_bytes "$T/rc.lbt")
[ -n "$a" ] && [ -n "$b" ] && [ "$b" -lt "$a" ] && ok || bad "recoded chunks are not smaller ($b >= $a)"
expect 0 "recode back to lossless with a chunk size" -- "$LBSIM" trace recode "$T/rc.lbt" -o "$T/rc2.lbt" --bound lossless --chunk 100
expect 0 "export a" -- "$LBSIM" trace export "$T/rc.lbt" --csv "$T/ra"
expect 0 "export b" -- "$LBSIM" trace export "$T/rc2.lbt" --csv "$T/rb"
cmp -s "$T/ra/steps.csv" "$T/rb/steps.csv" && ok || bad "lossless recode changed values"
cp "$T/ll.lbt" "$T/dmg.lbt"
sqlite3 "$T/dmg.lbt" "UPDATE chunks SET data = zeroblob(length(data)) WHERE step=2 AND metric=0 AND chunk=0"
expect 1 "recode a damaged trace" -- "$LBSIM" trace recode "$T/dmg.lbt" -o "$T/dmgr.lbt"
has "$T/err" "step 2 metric 'time_ns' chunk 0: checksum mismatch" "bad chunk named"
has "$T/err" "keeps the 2 steps before it" "complete steps kept"
expect 0 "the salvaged steps" -- "$LBSIM" trace info "$T/dmgr.lbt" --json
has "$T/out" '"steps":2' "two steps salvaged"
cp "$T/ll.lbt" "$T/keep.lbt"
expect 1 "recode onto its input" -- "$LBSIM" trace recode "$T/keep.lbt" -o "$T/keep.lbt" -f
has "$T/err" "is the input trace" "recode in place refused"
cmp -s "$T/ll.lbt" "$T/keep.lbt" && ok || bad "recode in place changed the input"
ln "$T/keep.lbt" "$T/link.lbt"
expect 1 "recode onto a hard link of its input" -- "$LBSIM" trace recode "$T/keep.lbt" -o "$T/link.lbt" -f
# a lossy input: its recipe is kept aside, the check still verifies every checksum
expect 0 "recode a lossy trace" -- "$LBSIM" trace recode "$T/rc.lbt" -o "$T/rc3.lbt" --bound rel:0.01
expect 0 "check the recoded lossy trace" -- "$LBSIM" trace check "$T/rc3.lbt"
sqlite3 "$T/rc3.lbt" "SELECT value FROM meta WHERE key = 'recoded_source'" >"$T/out"
has "$T/out" "hotspot 40x40x4" "recipe kept as recoded_source"
# a trace of schema 1 (which promised no chunk sums) still checks against its source
expect 0 "gen for schema 1" -- "$LBSIM" trace gen --kind bump --mesh 12x8x4 --steps 3 --bound range:1e-3 -o "$T/v1.lbt"
sqlite3 "$T/v1.lbt" "CREATE TABLE m1(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, unit TEXT NOT NULL,
  codec TEXT NOT NULL, error_bound REAL NOT NULL, relative INTEGER NOT NULL);
  INSERT INTO m1 SELECT id, name, unit, codec, 0.001, 1 FROM metrics; DROP TABLE metrics;
  ALTER TABLE m1 RENAME TO metrics; ALTER TABLE chunks DROP COLUMN err_rel; ALTER TABLE chunks DROP COLUMN sum_err;
  UPDATE chunks SET data = data; PRAGMA user_version=1"
expect 0 "check a schema 1 trace" -- "$LBSIM" trace check "$T/v1.lbt"
has "$T/out" "against the source" "schema 1 checked against its source"
expect 0 "recode it (a schema upgrade)" -- "$LBSIM" trace recode "$T/v1.lbt" -o "$T/v2.lbt" --bound lossless
expect 0 "info of the upgrade" -- "$LBSIM" trace info "$T/v2.lbt" --json
has "$T/out" '"schema_version":2' "upgraded"
expect 2 "recode with a bad bound" -- "$LBSIM" trace recode "$T/ll.lbt" -o "$T/x.lbt" --bound range:2
has "$T/err" "keeps nothing of the data" "bad bound message"

# --denoise: opt-in, recorded, each value kept or set to its neighbouring steps' median
expect 0 "recode with --denoise" -- "$LBSIM" trace recode "$T/ll.lbt" -o "$T/dn.lbt" --denoise spike
has "$T/err" "time_ns=spike:3:3 changed" "the changed values counted"
expect 0 "denoise it again" -- "$LBSIM" trace recode "$T/dn.lbt" -o "$T/dn2.lbt" --denoise median:5
expect 0 "denoised info" -- "$LBSIM" trace info "$T/dn2.lbt" --json
has "$T/out" '"denoise":"time_ns=spike:3:3; time_ns=median:5"' "the rules in the trace's metadata, in order"
expect 2 "two rules for one metric" -- "$LBSIM" trace recode "$T/ll.lbt" -o "$T/x.lbt" --denoise spike --denoise median
has "$T/err" "lbsim: trace recode: --denoise: two rules for metric 'time_ns'" "two rules refused"
expect 2 "denoise a metric the trace lacks" -- "$LBSIM" trace recode "$T/ll.lbt" -o "$T/x.lbt" --denoise cycles=spike
has "$T/err" "no metric 'cycles'" "unknown metric named"
expect 2 "an even window" -- "$LBSIM" trace recode "$T/ll.lbt" -o "$T/x.lbt" --denoise median:4
[ ! -e "$T/x.lbt" ] && ok || bad "a refused recode wrote its output"

# Import of measured values: NaN refused unless allowed
mkdir -p "$T/nf"
printf 'lbsim-steps 1\nelements 3\nmetric time_ns ns\nstep s0 0\n' >"$T/nf/manifest"
printf '0 700\n1 nan\n2 710\n' >"$T/nf/s0"
expect 1 "import NaN" -- "$LBSIM" trace import --steps-dir "$T/nf" -o "$T/nf.lbt"
has "$T/err" "s0:2: element 1: metric 'time_ns' is NaN" "NaN named with file and line"
expect 0 "import NaN allowed" -- "$LBSIM" trace import --steps-dir "$T/nf" -o "$T/nf.lbt" --allow-nonfinite
has "$T/err" "warning: $T/nf: 1 NaN or infinite values imported" "NaN warning"
expect 0 "info counts it" -- "$LBSIM" trace info "$T/nf.lbt" --json
has "$T/out" '"nonfinite":1' "non-finite counted"

# DARMA vt's LB data (traces/vt.c): a directory of two ranks' files (10 tasks each; task 9
# moves from rank 0 to rank 1 in phase 1; tasks 0 and 10 exchange bytes), and files named
mkdir -p "$T/vt"
vt_task() { # id node time
  printf '{"entity":{"type":"object","id":%d,"home":%d,"migratable":true,"index":[%d]},"node":%d,"resource":"cpu","time":%s}' \
    "$1" "$(($1 / 10))" "$1" "$2" "$3"
}
vt_phase() { # id rank: the rank's tasks in that phase
  local first=1 t node
  printf '{"id":%d,"tasks":[' "$1"
  for t in $(seq 0 19); do
    node=$((t / 10))
    if [ "$t" -eq 9 ] && [ "$1" -eq 1 ]; then node=1; fi
    [ "$node" -eq "$2" ] || continue
    [ $first -eq 1 ] || printf ','
    first=0
    vt_task "$t" "$node" "0.00$((t % 9 + 1))"
  done
  printf ']'
  [ "$2" -eq 0 ] && printf ',"communications":[{"type":"SendRecv","from":{"type":"object","id":0},"to":{"type":"object","id":10},"messages":1,"bytes":64}]'
  printf '}'
}
for r in 0 1; do
  { printf '{"metadata":{"type":"LBDatafile","rank":%d},"phases":[' "$r"; vt_phase 0 "$r"; printf ','; vt_phase 1 "$r"; printf ']}'; } >"$T/vt/data.$r.json"
done
expect 0 "import --vt DIR" -- "$LBSIM" trace import --vt "$T/vt" --bound lossless -o "$T/vt.lbt"
has "$T/err" "2 vt files: 20 tasks (0 pinned), 2 phases (0 skipped), 1 communicating pairs" "vt summary"
expect 0 "info vt" -- "$LBSIM" trace info "$T/vt.lbt" --json
has "$T/out" '"elements":20' "vt elements"
has "$T/out" '"steps":2' "vt steps"
expect 0 "import --vt FILE..." -- "$LBSIM" trace import --vt "$T/vt/data.0.json" "$T/vt/data.1.json" -o "$T/vt2.lbt"
expect 1 "import --vt exists" -- "$LBSIM" trace import --vt "$T/vt/data.0.json" "$T/vt/data.1.json" -o "$T/vt2.lbt"
expect 0 "import --vt -f" -- "$LBSIM" trace import --vt "$T/vt/data.0.json" "$T/vt/data.1.json" -f -o "$T/vt2.lbt"
# (a replay starts MPI, whose own allocations LeakSanitizer would report: not ours to check)
expect 0 "replay vt recorded" -- env ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$LBSIM" replay "$T/vt.lbt" --grid "$(dirname "$0")/../../examples/grids/homogeneous16.ini" --policy recorded --json
has "$T/out" '"steps"' "vt replay"
expect 1 "vt same rank twice" -- "$LBSIM" trace import --vt "$T/vt/data.0.json" "$T/vt/data.0.json" -o "$T/vt3.lbt"
has "$T/err" "lbsim: trace import: $T/vt/data.0.json: rank 0 again" "vt rank twice message"
printf 'not json' >"$T/vt/data.2.json"
expect 1 "vt not json" -- "$LBSIM" trace import --vt "$T/vt" -o "$T/vt3.lbt"
has "$T/err" "data.2.json: neither JSON nor brotli" "vt not json message"
[ ! -e "$T/vt3.lbt" ] && ok || bad "a failed vt import leaves no trace"
expect 2 "vt with chaco" -- "$LBSIM" trace import --vt "$T/vt" --chaco x.graph -o "$T/vt3.lbt"

finish
