#!/usr/bin/env bash
# End-to-end checks of `lbsim sweep` and the results store's provenance (issue 15, items 1-2):
# the product of axes, 1 and 2 ranks giving the same tidy CSV, a sweep killed with SIGKILL
# half-way and resumed giving what an uninterrupted one gives, `lbsim results`, provenance
# rows (hashes that sha256sum agrees with), and bad study files named by file:line.
set -u
LBSIM=${1:?usage: sweep.sh lbsim source-dir}
SRC=${2:?}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

expect 0 "gen" -- "$LBSIM" trace gen --kind bump --mesh 24x16x16 --steps 40 -o "$T/b.lbt"
cp "$SRC/examples/grids/homogeneous16.ini" "$T/h16.ini"
cat >"$T/s.ini" <<'INI'
[study]
name = t
traces = b.lbt
grids = h16.ini, gen:UP:16:4:2
partitioners = zoltan:rcb, zoltan:hsfc
policies = none, fixed:7
[overrides]
sim.cost = model
cluster main.bandwidth_gbps = 1, 16
INI
# 2 grids, but [cluster main] exists only in h16.ini: the override is refused for the other
expect 1 "override on a missing section" -- "$LBSIM" sweep "$T/s.ini" --results "$T/x.db"
has "$T/err" "s.ini:9: cluster main.bandwidth_gbps" "the override named by file:line"
has "$T/err" "there is no [cluster main]" "why"
[ ! -e "$T/x.db" ] && ok || bad "a refused study wrote a store"
sed -i 's/^cluster main.bandwidth_gbps.*/grid.barrier_us = 1, 20/' "$T/s.ini"
expect 0 "dry run" -- "$LBSIM" sweep "$T/s.ini" --dry-run
has "$T/out" ": 16 tasks" "2 x 2 x 2 x 2 tasks"

# the reference: uninterrupted, on 2 ranks
expect 0 "sweep on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" sweep "$T/s.ini" --results "$T/ref.db" --csv "$T/ref"
has "$T/out" "16 tasks (0 resumed)" "all tasks run"
has "$T/out" "tidy CSV in $T/ref/tidy.csv" "the summary names the tidy CSV"
has "$T/err" "lbsim: sweep: wrote $T/ref" "the success line names the directory"
[ "$(ls -A "$T/ref")" = tidy.csv ] && ok || bad "--csv DIR holds tidy.csv alone: $(ls -A "$T/ref")"
[ "$(wc -l <"$T/ref/tidy.csv")" -eq 161 ] && ok || bad "tidy CSV: 16 runs x 10 measures + header, got $(wc -l <"$T/ref/tidy.csv")"
has "$T/ref/tidy.csv" "study,task,trace,grid,partitioner,policy,sim.cost,grid.barrier_us,measure,value" "tidy header"
[ "$(sqlite3 "$T/ref.db" "SELECT count(DISTINCT task) || '/' || count(*) FROM runs")" = "16/16" ] && ok || bad "one run per task"
# on 1 rank: the same CSV
expect 0 "sweep on 1 rank" -- "$LBSIM" sweep "$T/s.ini" --results "$T/one.db" --csv "$T/one"
cmp -s "$T/ref/tidy.csv" "$T/one/tidy.csv" && ok || bad "1 and 2 ranks give different results: $(diff "$T/ref/tidy.csv" "$T/one/tidy.csv" | head -4)"

# killed half-way with SIGKILL (mpiexec and its ranks), then resumed: on a larger trace, so that
# the sweep is still running when the test sees its first runs stored (about 0.3 s a task)
expect 0 "gen a larger trace" -- "$LBSIM" trace gen --kind bump --mesh 32x24x16 --steps 120 -o "$T/kb.lbt"
sed 's/^traces = .*/traces = kb.lbt/' "$T/s.ini" >"$T/k.ini"
expect 0 "uninterrupted larger sweep" -- "${MPI[@]}" -n 2 "$LBSIM" sweep "$T/k.ini" --results "$T/kref.db" --csv "$T/kref"
setsid "${MPI[@]}" -n 2 "$LBSIM" sweep "$T/k.ini" --results "$T/k.db" --csv "$T/k" >"$T/kout" 2>&1 &
pid=$!
n=0
for _ in $(seq 1 600); do
  # (sqlite3 would create the file: read it only once lbsim made it)
  [ -s "$T/k.db" ] && n=$(sqlite3 -readonly -cmd ".timeout 2000" "$T/k.db" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)
  [ "${n:-0}" -ge 3 ] && break
  sleep 0.02
done
# Open MPI puts each rank in its own process group: the session (setsid's) holds them all
pkill -KILL -s "$pid"
wait "$pid" 2>/dev/null
for _ in $(seq 1 100); do pgrep -s "$pid" >/dev/null || break; sleep 0.05; done
n=$(sqlite3 -cmd ".timeout 5000" "$T/k.db" "SELECT count(*) FROM runs")
if [ "$n" -ge 3 ] && [ "$n" -lt 16 ]; then ok; else bad "the kill did not land half-way ($n of 16 runs stored)"; fi
[ ! -e "$T/k" ] && ok || bad "a killed sweep wrote its CSV directory"
[ -z "$(ls -d "$T"/k.tmp-* 2>/dev/null)" ] && ok || bad "a killed sweep left a half-written CSV directory"
expect 0 "resume" -- "$LBSIM" sweep "$T/k.ini" --results "$T/k.db" --csv "$T/k"
has "$T/err" "$n done already (resuming)" "resume says what it skips"
[ "$(sqlite3 "$T/k.db" "SELECT count(DISTINCT task) || '/' || count(*) FROM runs")" = "16/16" ] && ok || bad "resumed store: one run per task"
cmp -s "$T/kref/tidy.csv" "$T/k/tidy.csv" && ok || bad "killed and resumed differs from uninterrupted: $(diff "$T/kref/tidy.csv" "$T/k/tidy.csv" | head -4)"
expect 0 "resume of a complete sweep" -- "$LBSIM" sweep "$T/k.ini" --results "$T/k.db" --csv "$T/k"
has "$T/out" "16 tasks (16 resumed)" "nothing redone"
has "$T/err" "lbsim: sweep: wrote $T/k" "a re-run replaces its own CSV directory without -f"
cmp -s "$T/kref/tidy.csv" "$T/k/tidy.csv" && ok || bad "the re-run's tidy CSV differs"

# generated traces, once per seed: made beside the store, reused by a resume, a seed column
cat >"$T/g.ini" <<'INI'
[study]
name = g
traces = gen:random:12x8x4:10
seeds = 1, 2
grids = h16.ini
policies = none
INI
expect 0 "seeded sweep" -- "$LBSIM" sweep "$T/g.ini" --results "$T/g.db" --csv "$T/g"
[ "$(ls "$T/g.db.traces" | wc -l)" = 2 ] && ok || bad "two generated traces: $(ls "$T/g.db.traces")"
has "$T/g/tidy.csv" "study,task,trace,seed,grid,partitioner,policy,measure,value" "seed column"
has "$T/g/tidy.csv" ",gen:random:12x8x4:10:2,2,h16.ini," "seed 2's rows"
[ "$(grep ',total_time_s,' "$T/g/tidy.csv" | cut -d, -f9 | sort -u | wc -l)" = 2 ] && ok || bad "two seeds, two totals"
"$LBSIM" trace info "$T/g.db.traces/gen_random_12x8x4_10_2.lbt" >"$T/out" 2>&1
has "$T/out" "random 12x8x4 steps=10 seed=2" "the generated trace's recipe"
expect 0 "seeded resume" -- "$LBSIM" sweep "$T/g.ini" --results "$T/g.db" --csv "$T/g"
has "$T/out" "2 tasks (2 resumed)" "nothing regenerated or redone"
[ ! -s "$T/err" ] || ! grep -q generating "$T/err" && ok || bad "a resume regenerated a trace"
sed 's/^traces = .*/traces = gen:random:12x8x4:10:7/' "$T/g.ini" >"$T/g2.ini"
expect 1 "a seed in the spec and seeds" -- "$LBSIM" sweep "$T/g2.ini" --results "$T/g2.db"
has "$T/err" "g2.ini:3: traces: 'gen:random:12x8x4:10:7': with seeds" "seeds with a seeded spec"
sed 's/^traces = .*/traces = gen:nope:12x8x4:10/' "$T/g.ini" >"$T/g2.ini"
expect 1 "unknown generator" -- "$LBSIM" sweep "$T/g2.ini" --results "$T/g2.db"
has "$T/err" "unknown generator 'nope'" "unknown generator named"
sed 's/^traces = .*/traces = gen:random:4x4x4:99999999999/' "$T/g.ini" >"$T/g2.ini"
expect 1 "steps past trace gen's cap" -- timeout 60 "$LBSIM" sweep "$T/g2.ini" --results "$T/g2.db"
has "$T/err" "g2.ini:3: traces: 'gen:random:4x4x4:99999999999" "huge steps named by file and line"
has "$T/err" "steps must be in 1..100000000 (got 99999999999)" "huge steps: the limit"
[ ! -e "$T/g2.db" ] && [ ! -e "$T/g2.db.traces" ] && ok || bad "huge steps: something was written"
sed 's/^seeds = .*/seeds = 1, x/' "$T/g.ini" >"$T/g2.ini"
expect 1 "bad seed" -- "$LBSIM" sweep "$T/g2.ini" --results "$T/g2.db"
has "$T/err" "g2.ini:4: seeds: 'x' is not a whole number" "bad seed named"

# lbsim results
expect 0 "results" -- "$LBSIM" results "$T/ref.db"
has "$T/out" "results schema 5, 16 runs" "listing"
has "$T/out" "16/16" "the study's runs of its tasks"
expect 0 "results json" -- "$LBSIM" results "$T/ref.db" --json
python3 - "$T/out" <<'PY' && ok || bad "results --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 5 and len(d["studies"]) == 1 and len(d["runs"]) == 16, d.keys()
st = d["studies"][0]
assert st["kind"] == "sweep" and st["tasks"] == 16 and st["axes"]["grid.barrier_us"] == ["1", "20"]
for r in d["runs"]:
    lab = r["labels"]  # JSON, not a string of it
    assert lab["partitioner"] == r["partitioner"] and lab["policy"] == r["policy"], lab
    assert ("grid.barrier_us=" + lab["grid.barrier_us"]) in r["overrides"] and r["study"] == st["id"]
    assert r["config"].startswith("[grid]") and r["version"] and r["host"] and r["created"]
    assert r["des_overlap"] is (None if r["mode"] == "bsp" else r["des_overlap"]) and \
        r["des_overlap"] in (None, "shared", "ordered"), r["des_overlap"]
PY
expect 0 "results csv" -- "$LBSIM" results "$T/ref.db" --csv "$T/tables"
python3 -c 'import csv, sys; r = list(csv.DictReader(open(sys.argv[1]))); assert len(r) == 16 and r[0]["config"].startswith("[grid]")' \
  "$T/tables/runs.csv" && [ -s "$T/tables/steps.csv" ] && [ -s "$T/tables/studies.csv" ] && ok || bad "tables as CSV"
expect 1 "results csv again" -- "$LBSIM" results "$T/ref.db" --csv "$T/tables"
expect 0 "results csv forced" -- "$LBSIM" results "$T/ref.db" --csv "$T/tables" -f

# the report of one study of a store that holds two
sid=$(sqlite3 "$T/ref.db" "SELECT id FROM studies")
expect 0 "a compare in the sweep's store" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$T/h16.ini" --policies none,fixed:7 --results "$T/ref.db"
expect 0 "report of the sweep alone" -- "$LBSIM" report "$T/ref.db" --study "$sid" -o "$T/s.html"
has "$T/s.html" '"nruns":16,' "the sweep's 16 runs only"
expect 0 "report of the store" -- "$LBSIM" report "$T/ref.db" -o "$T/all.html"
has "$T/all.html" '"nruns":18,' "all 18 runs"
expect 1 "report of an unknown study" -- "$LBSIM" report "$T/ref.db" --study nope -o "$T/n.html"
has "$T/err" "no study 'nope'" "unknown study named"
[ ! -e "$T/n.html" ] && ok || bad "a page for an unknown study"

# provenance of a replay and a partition: hashes as sha256sum computes them, the command line
expect 0 "replay --results" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/h16.ini" --policy fixed:7 --results "$T/p.db" --set grid.barrier_us=3
expect 0 "partition --results" -- "$LBSIM" partition "$T/b.lbt" --grid "$T/h16.ini" --partitioner minex,metis --results "$T/p.db"
th=$(sha256sum "$T/b.lbt" | cut -d' ' -f1)
gh=$(sha256sum "$T/h16.ini" | cut -d' ' -f1)
[ "$(sqlite3 "$T/p.db" "SELECT count(*) FROM runs WHERE trace_hash = '$th' AND grid_hash = '$gh' AND cost = 'model' AND config LIKE '%barrier_us = 3%'")" = 1 ] && ok || bad "replay provenance"
# a flag is the override it is, in command-line order, in the overrides and the resolved configuration
[ "$(sqlite3 "$T/p.db" "SELECT overrides FROM runs")" = "$(printf 'sim.policy=fixed:7\ngrid.barrier_us=3')" ] && ok ||
  bad "the flag among the overrides: $(sqlite3 "$T/p.db" "SELECT overrides FROM runs")"
sqlite3 "$T/p.db" "SELECT config FROM runs" | sed -n '/^\[sim\]/,/^$/p' | grep -qx 'policy = fixed:7' && ok ||
  bad "the flag in the resolved [sim]: $(sqlite3 "$T/p.db" "SELECT config FROM runs")"
[ "$(sqlite3 "$T/p.db" "SELECT count(*) FROM studies s JOIN runs r ON r.study = s.id WHERE s.kind = 'replay' AND s.command LIKE '%replay%--policy fixed:7%'")" = 1 ] && ok || bad "replay study row"
[ "$(sqlite3 "$T/p.db" "SELECT count(*) FROM partitions WHERE trace_hash = '$th' AND partitioner IN ('minex', 'metis') AND maxqwgt_s > 0")" = 2 ] && ok || bad "partition rows"
[ "$(sqlite3 "$T/p.db" "SELECT sum(s.comm_ns) = (SELECT round(comm_time_s * 1e9) FROM runs) FROM steps s")" = 1 ] && ok || bad "per-step comm adds up to the run's"
[ "$(sqlite3 "$T/p.db" "SELECT (SELECT sum(partition_ns + migration_ns) FROM steps) = (SELECT sum(partition_ns + migration_ns) FROM repartitions)")" = 1 ] && ok || bad "per-step partition and migration"

# bad input: named by file:line, nothing written
bad_study() { # DESCRIPTION LINE-TEXT EXPECTED-MESSAGE
  sed "$2" "$T/s.ini" >"$T/bad.ini"
  expect 1 "$1" -- "$LBSIM" sweep "$T/bad.ini" --results "$T/bad.db"
  has "$T/err" "$3" "$1: message"
  [ ! -e "$T/bad.db" ] && ok || bad "$1: a store was written"
}
bad_study "unknown trace" 's/^traces = .*/traces = b.lbt, nope.lbt/' "bad.ini:3: traces: 'nope.lbt'"
bad_study "unknown grid" 's/^grids = .*/grids = h16.ini, nope.ini/' "bad.ini:4: grids: 'nope.ini'"
bad_study "bad grid spec" 's/^grids = .*/grids = gen:XX:16:4:2/' "bad.ini:4: grids: 'gen:XX:16:4:2'"
bad_study "unknown partitioner" 's/^partitioners = .*/partitioners = zoltan:rcb, nosuch/' "bad.ini:5: partitioners:"
bad_study "unknown policy" 's/^policies = .*/policies = none, sometimes/' "bad.ini:6: policies:"
bad_study "empty axis" 's/^policies = .*/policies = ,/' "bad.ini:6: policies: no values: the product is empty"
bad_study "unknown key" 's/^policies = /policy = /' "bad.ini:6"
bad_study "steps past the trace" 's/^policies = .*/&\nsteps = 0:99/' "steps: 0:99 is past the end of trace 'b.lbt' (40 steps)"
bad_study "steps not A:B" 's/^policies = .*/&\nsteps = 9:3/' "bad.ini:7: steps = '9:3' must be A:B with 0 <= A < B"
bad_study "a name for no path" 's/^name = .*/name = q,x/' "bad.ini:2: name: 'q,x': 1 to 40 letters"
bad_study "a name too long" 's/^name = .*/name = aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/' "bad.ini:2: name:"
# more override keys than a study may have (each a setting): refused, not a crash
{ sed -n '1,/^\[overrides\]/p' "$T/s.ini"; for k in $(seq 1 70); do echo "zoltan.K$k = 1"; done; } >"$T/many.ini"
expect 1 "70 override keys" -- "$LBSIM" sweep "$T/many.ini" --results "$T/many.db"
has "$T/err" "more than 64 override keys" "override keys bounded"
# more tasks than a sweep takes: refused before anything
{ sed -n '1,/^\[overrides\]/p' "$T/s.ini"; for k in $(seq 1 5); do echo "zoltan.K$k = $(seq -s, 1 64)"; done; } >"$T/huge.ini"
expect 1 "2^30 tasks" -- "$LBSIM" sweep "$T/huge.ini" --dry-run
has "$T/err" "more than 10000000 tasks" "tasks bounded"
# values with commas and quotes are quoted in the tidy CSV, quotes doubled
sed 's/^grid.barrier_us = .*/grid.name = a"b, c/' "$T/s.ini" >"$T/q.ini"
sed -i 's/^policies = .*/policies = none/; s/^partitioners = .*/partitioners = zoltan:rcb/; s/^grids = .*/grids = h16.ini/' "$T/q.ini"
expect 0 "quoted values" -- "$LBSIM" sweep "$T/q.ini" --results "$T/q.db" --csv "$T/q"
python3 - "$T/q/tidy.csv" <<'PY' && ok || bad "tidy CSV quoting"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert all(len(r) == len(rows[0]) for r in rows), [len(r) for r in rows]
assert {r[rows[0].index("grid.name")] for r in rows[1:]} == {'a"b', 'c'}, rows[1]
PY
# [sim] steps from the study's overrides (an axis here); the study's own steps, when given, win
sed -e 's/^policies = .*/policies = none/; s/^partitioners = .*/partitioners = zoltan:rcb/; s/^grids = .*/grids = h16.ini/' \
  -e 's/^grid.barrier_us = .*/sim.steps = 0:10, 5:25/' "$T/s.ini" >"$T/w.ini"
expect 0 "[sim] steps as an override" -- "$LBSIM" sweep "$T/w.ini" --results "$T/w.db" --csv "$T/w"
[ "$(sqlite3 "$T/w.db" "SELECT group_concat(steps) FROM (SELECT steps FROM runs ORDER BY task)")" = "10,20" ] && ok ||
  bad "sim.steps override: $(sqlite3 "$T/w.db" "SELECT task, steps FROM runs")"
sed -i 's/^policies = .*/&\nsteps = 2:7/' "$T/w.ini"
expect 0 "the study's steps over [sim]'s" -- "$LBSIM" sweep "$T/w.ini" --results "$T/w2.db" --csv "$T/w2"
[ "$(sqlite3 "$T/w2.db" "SELECT group_concat(steps) FROM (SELECT steps FROM runs ORDER BY task)")" = "5,5" ] && ok ||
  bad "study steps: $(sqlite3 "$T/w2.db" "SELECT task, steps FROM runs")"
expect 1 "the CSV over the store" -- "$LBSIM" sweep "$T/q.ini" --results "$T/q.db" --csv "$T/q.db" -f
has "$T/err" "would replace the results store" "CSV over the store refused"
sqlite3 "$T/q.db" "SELECT count(*) FROM runs" >/dev/null && ok || bad "the store survived"
# ranks that see different files fail together, each saying why, never hang
mkdir -p "$T/other"
cp "$T/s.ini" "$T/other/s.ini"
L_ABS=$(realpath "$LBSIM")
expect 1 "ranks disagree" -- timeout 120 "${MPI[@]}" -n 1 --wdir "$T" "$L_ABS" sweep s.ini --dry-run : -n 1 --wdir "$T/other" "$L_ABS" sweep s.ini --dry-run
has "$T/err" "lbsim: sweep (rank 1):" "the other rank says why"
expect 1 "missing study" -- "$LBSIM" sweep "$T/nope.ini"
has "$T/err" "nope.ini" "missing study named"
# a results store of another schema version is refused and left as it was
cp "$T/ref.db" "$T/v3.db"
sqlite3 "$T/v3.db" "PRAGMA user_version = 6"
sum0=$(sha256sum "$T/v3.db")
expect 1 "newer store" -- "$LBSIM" sweep "$T/s.ini" --results "$T/v3.db" --csv "$T/v3"
has "$T/err" "results schema version 6, this lbsim reads versions 1 to 5" "schema version message"
[ "$(sha256sum "$T/v3.db")" = "$sum0" ] && ok || bad "a newer store was changed"
expect 1 "results of a newer store" -- "$LBSIM" results "$T/v3.db"
# the default outputs: NAME.db and the directory NAME-csv/ (name = t), in the current directory
expect 0 "default outputs" -- bash -c 'cd "$1" && "$2" sweep w.ini' _ "$T" "$L_ABS"
[ -s "$T/t.db" ] && [ -s "$T/t-csv/tidy.csv" ] && ok || bad "default outputs: $(ls -d "$T"/t.* "$T"/t-* 2>/dev/null)"
# --csv DIR is a directory: another study's tidy CSV directory is replaced only with -f
expect 1 "another study's CSV directory" -- "$LBSIM" sweep "$T/w.ini" --results "$T/w2.db" --csv "$T/ref"
has "$T/err" "lbsim: sweep: $T/ref: directory is not empty (use --force" "another study's: message"
has "$T/ref/tidy.csv" ",grid.barrier_us,measure,value" "another study's CSV kept without -f"
expect 0 "another study's CSV directory, -f" -- "$LBSIM" sweep "$T/w.ini" --results "$T/w2.db" --csv "$T/ref/" -f
has "$T/ref/tidy.csv" "study,task,trace,grid,partitioner,policy,sim.cost,sim.steps,measure,value" "replaced with -f"
# a directory holding anything else, or a tidy.csv that is not a sweep's, is never replaced
for d in mine theirs; do
  mkdir "$T/$d"
  echo "precious" >"$T/$d/tidy.csv"
done
echo "precious" >"$T/mine/notes.txt"
for f in "" -f; do
  expect 1 "a user's directory $f" -- "$LBSIM" sweep "$T/s.ini" --results "$T/f.db" --csv "$T/mine" $f
  has "$T/err" "lbsim: sweep: $T/mine/notes.txt: not a file lbsim writes there; refusing to replace $T/mine" \
    "a user's directory $f: message"
done
expect 1 "a user's tidy.csv -f" -- "$LBSIM" sweep "$T/s.ini" --results "$T/f.db" --csv "$T/theirs" -f
has "$T/err" "lbsim: sweep: $T/theirs/tidy.csv: not a sweep's tidy CSV; refusing to replace $T/theirs" \
  "a user's tidy.csv: message"
[ "$(cat "$T/mine/tidy.csv" "$T/mine/notes.txt" "$T/theirs/tidy.csv")" = "$(printf 'precious\nprecious\nprecious')" ] &&
  [ "$(ls -A "$T/mine" | wc -l)" = 2 ] && [ "$(ls -A "$T/theirs")" = tidy.csv ] && ok || bad "a user's files changed"
echo "precious" >"$T/mine.csv"
expect 1 "a file as --csv DIR" -- "$LBSIM" sweep "$T/s.ini" --results "$T/f.db" --csv "$T/mine.csv" -f
has "$T/err" "lbsim: sweep: $T/mine.csv: exists and is not a directory; refusing to replace it" "a file: message"
has "$T/mine.csv" "precious" "a file kept"
mkfifo "$T/fifo.csv"
expect 1 "fifo csv" -- timeout 20 "$LBSIM" sweep "$T/s.ini" --results "$T/f.db" --csv "$T/fifo.csv"
mkdir "$T/fifo"
mkfifo "$T/fifo/tidy.csv"
expect 1 "fifo tidy.csv" -- timeout 20 "$LBSIM" sweep "$T/s.ini" --results "$T/f.db" --csv "$T/fifo" -f
has "$T/err" "$T/fifo/tidy.csv: not a file lbsim writes there" "fifo tidy.csv: message"
# the CSV's directory never holds the results store (its rename would take the store along)
expect 1 "the store's directory as --csv" -- "$LBSIM" sweep "$T/q.ini" --results "$T/q.db" --csv "$T"
has "$T/err" "would hold the results store" "the store's directory: message"
finish
