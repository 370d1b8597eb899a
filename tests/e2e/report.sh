#!/usr/bin/env bash
# End-to-end checks of `lbsim report`: a small store (two grids x three policies, MinEX and METIS
# partition rows) made into one page that is self-contained, bounded and the same every time;
# the page loaded in headless Chromium with every chart rendered and no error (mode 'browser');
# a schema-1 store; bad stores and outputs.
#   report.sh LBSIM SRC ARTEFACTS browser|nobrowser
# ARTEFACTS receives report.html and its screenshot report.png (the build's Testing/report).
# Chromium that cannot start fails the test: it never skips.
set -u
LBSIM=${1:?usage: report.sh lbsim source-dir artefact-dir browser|nobrowser}
SRC=${2:?}
ART=${3:?}
MODE=${4:-browser}
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
G1=$SRC/examples/grids/homogeneous16.ini
G2=$SRC/examples/grids/two_sites.ini
P=none,fixed:10,adaptive:0.15:5:20
mkdir -p "$ART"

# ---- a store: 6 runs of a policy compare, partition rows
expect 0 "gen" -- "$LBSIM" trace gen --kind bump --mesh 20x12x10 --steps 60 -o "$T/b.lbt"
for g in "$G1" "$G2"; do
  expect 0 "compare on $g" -- "$LBSIM" policy compare "$T/b.lbt" --grid "$g" --policies "$P" --results "$T/r.db"
  expect 0 "partition on $g" -- "$LBSIM" partition "$T/b.lbt" --grid "$g" --partitioner minex,metis --results "$T/r.db"
done

# ---- the page
expect 0 "report" -- "$LBSIM" report "$T/r.db" -o "$T/r.html"
[ -s "$T/r.html" ] && ok || bad "no page written"
size=$(stat -c %s "$T/r.html")
[ "$size" -lt 5000000 ] && ok || bad "the page is $size bytes (5 MB at most)"
# self-contained: nothing fetched from elsewhere
if grep -Eiq "(src|href)[[:space:]]*=[[:space:]]*[\"']?(https?:)?//" "$T/r.html"; then bad "the page refers outside itself"; else ok; fi
if grep -Eiq "<link[^>]*stylesheet|<script[^>]*src=" "$T/r.html"; then bad "an external script or style"; else ok; fi
# exactly four scripts: nothing in the data or in Vega ended one early
[ "$(grep -o '</script>' "$T/r.html" | wc -l)" -eq 4 ] && ok || bad "$(grep -o '</script>' "$T/r.html" | wc -l) </script> tags, expected 4"
has "$T/r.html" '<meta name="generator" content="lbsim ' "generator"
has "$T/r.html" 'id="lbsim-data"' "the data"
has "$T/r.html" '"partitioner":"minex"' "partition rows"
has "$T/r.html" '[link siteA siteB]' "the resolved grid configuration"
# the same store gives the same bytes
expect 0 "report again (-f)" -- "$LBSIM" report "$T/r.db" -o "$T/r2.html"
cmp -s "$T/r.html" "$T/r2.html" && ok || bad "two reports of one store differ"
expect 0 "replace own report" -- "$LBSIM" report "$T/r.db" -o "$T/r2.html" -f
# bounded: a tiny budget thins the steps into buckets
expect 0 "report --max-cells" -- "$LBSIM" report "$T/r.db" -o "$T/small.html" --max-cells 1000 --max-points 10
[ "$(stat -c %s "$T/small.html")" -lt "$size" ] && ok || bad "--max-cells did not make the page smaller"
has "$T/small.html" '"k":12,' "steps summed in buckets of 12 (166 cells for each of 6 runs, 32 processors)"
# a store with text that could end the data's script element
cp "$T/r.db" "$T/evil.db"
sqlite3 "$T/evil.db" "UPDATE runs SET policy = 'x</script><script>window.lbsEvil=1</script>' WHERE id = 1;"
expect 0 "report of a store with markup in it" -- "$LBSIM" report "$T/evil.db" -o "$T/evil.html"
[ "$(grep -o '</script>' "$T/evil.html" | wc -l)" -eq 4 ] && ok || bad "text from the store ended a script element"
# a schema-1 store (no studies, series, partitions, provenance): the sections say so
cp "$T/r.db" "$T/v1.db"
sqlite3 "$T/v1.db" "DROP TABLE studies; DROP TABLE series; DROP TABLE partitions; ALTER TABLE runs DROP COLUMN config;
  ALTER TABLE runs DROP COLUMN labels; ALTER TABLE steps DROP COLUMN comm_ns; PRAGMA user_version = 0;"
expect 0 "report of a schema-1 store" -- "$LBSIM" report "$T/v1.db" -o "$T/v1.html"
has "$T/v1.html" '"schema":1' "schema 1 read"
# a store of partition rows only
cp "$T/r.db" "$T/parts.db"
sqlite3 "$T/parts.db" "DELETE FROM runs; DELETE FROM steps; DELETE FROM procs;"
expect 0 "report of partition rows only" -- "$LBSIM" report "$T/parts.db" -o "$T/parts.html"
cp "$T/r.html" "$ART/report.html"

# ---- in a browser: every chart rendered, no error
# status: the #lbsim-status element of the page at $1 after it settles (stdout)
status() {
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --virtual-time-budget=30000 --dump-dom "file://$1" 2>"$T/chromium.err" | grep -o '<div id="lbsim-status"[^>]*>' | head -1
}
# attr NAME STATUS: one attribute's value
attr() { printf '%s' "$2" | sed -n "s/.* $1=\"\([^\"]*\)\".*/\1/p"; }
# rendered PAGE CHARTS: the page settles with CHARTS charts drawn, as many as it made, no error
rendered() {
  local s
  s=$(status "$1")
  if [ -z "$s" ]; then
    bad "$1: Chromium gave no page (is it installed? scripts/bootstrap.sh): $(tail -c 600 "$T/chromium.err")"
    return
  fi
  [ "$(attr data-done "$s")" = 1 ] && ok || bad "$1: the page did not finish: $s"
  [ "$(attr data-errors "$s")" = 0 ] && ok || bad "$1: errors in the page: $s"
  [ "$(attr data-charts "$s")" = "$2" ] && [ "$(attr data-expected "$s")" = "$2" ] && ok ||
    bad "$1: expected $2 charts rendered: $s"
  echo "$1: $s"
}
if [ "$MODE" = browser ]; then
  command -v chromium >/dev/null && ok || bad "chromium not found (scripts/bootstrap.sh installs it)"
  rendered "$T/r.html" 6     # imbalance, probes, heat map, Gantt, totals, grid
  rendered "$T/small.html" 6
  rendered "$T/evil.html" 6
  rendered "$T/v1.html" 4    # no probes (no series), no grid (no configuration)
  rendered "$T/parts.html" 1 # the grid only
  rm -f "$ART/report.png"
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
    --virtual-time-budget=30000 --window-size=1200,4200 --screenshot="$ART/report.png" "file://$T/r.html" 2>"$T/chromium.err" >/dev/null
  [ -s "$ART/report.png" ] && ok || bad "no screenshot: $(tail -c 400 "$T/chromium.err")"
  echo "screenshot: $ART/report.png (page: $ART/report.html)"
fi

# ---- bad stores: a clear error, exit 1, no page
expect 1 "missing store" -- "$LBSIM" report "$T/nothere.db" -o "$T/x.html"
has "$T/err" "lbsim: report: $T/nothere.db: No such file or directory" "missing store message"
cp "$T/r.db" "$T/empty.db"
sqlite3 "$T/empty.db" "DELETE FROM runs; DELETE FROM partitions;"
expect 1 "empty store" -- "$LBSIM" report "$T/empty.db" -o "$T/x.html"
has "$T/err" "an empty results store (no runs, no partition rows): nothing to report" "empty store message"
expect 1 "a trace, not a results store" -- "$LBSIM" report "$T/b.lbt" -o "$T/x.html"
has "$T/err" "not an lbsim results store" "trace message"
echo "not a database at all, just some text that is long enough to fill a header......." >"$T/text.db"
expect 1 "a text file" -- "$LBSIM" report "$T/text.db" -o "$T/x.html"
has "$T/err" "not a results store (not an SQLite file)" "text file message"
cp "$T/r.db" "$T/new.db"
sqlite3 "$T/new.db" "PRAGMA user_version = 99;"
expect 1 "a newer schema" -- "$LBSIM" report "$T/new.db" -o "$T/x.html"
has "$T/err" "results schema version 99, this lbsim reads versions 1 to 5 (a newer lbsim wrote it)" "newer schema message"
mkfifo "$T/fifo.db"
expect 1 "a FIFO as the store" -- timeout 20 "$LBSIM" report "$T/fifo.db" -o "$T/x.html"
has "$T/err" "not a regular file" "FIFO store message"
[ ! -e "$T/x.html" ] && ok || bad "a page was left after an error"

# ---- a write killed in the middle (gone inside a transaction that spilled pages into the
# file) leaves a hot journal: reading rolls it back, and the committed runs are all there
cp "$T/r.db" "$T/killed.db"
python3 -c '
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA cache_size=2")
c.execute("BEGIN IMMEDIATE")
c.execute("DELETE FROM runs")
c.execute("CREATE TABLE junk(x)")
for i in range(400):
    c.execute("INSERT INTO junk VALUES(randomblob(1000))")
os._exit(9)  # no rollback, no close: what kill -9 leaves' "$T/killed.db"
[ -s "$T/killed.db-journal" ] && ok || bad "the killed write left no journal"
expect 0 "results of a killed write" -- "$LBSIM" results "$T/killed.db" --json
"$LBSIM" results "$T/r.db" --json | sed 's#"path":"[^"]*"##' >"$T/r.json"
sed 's#"path":"[^"]*"##' "$T/out" | cmp -s - "$T/r.json" && ok || bad "the killed write's store reads otherwise: $(head -c 300 "$T/err")"
[ ! -e "$T/killed.db-journal" ] && ok || bad "the journal was not rolled back"
expect 0 "report of a killed write" -- "$LBSIM" report "$T/killed.db" -o "$T/killed.html"

# ---- outputs: checked before the work; only a report lbsim wrote is replaced, with -f
expect 1 "existing output" -- "$LBSIM" report "$T/r.db" -o "$T/r.html"
has "$T/err" "file exists (use --force to overwrite)" "existing output message"
echo "precious" >"$T/notes.html"
expect 1 "-f on a file lbsim did not write" -- "$LBSIM" report "$T/r.db" -o "$T/notes.html" -f
has "$T/err" "not a report lbsim wrote; refusing to replace it" "foreign file message"
[ "$(cat "$T/notes.html")" = precious ] && ok || bad "a foreign file was changed"
expect 1 "-f on the store itself" -- "$LBSIM" report "$T/r.db" -o "$T/r.db" -f
has "$T/err" "that is the results store itself" "store-as-output message"
mkfifo "$T/out.fifo"
expect 1 "-f on a FIFO" -- timeout 20 "$LBSIM" report "$T/r.db" -o "$T/out.fifo" -f
has "$T/err" "not a regular file; refusing to replace it" "FIFO output message"
[ -p "$T/out.fifo" ] && ok || bad "the FIFO was replaced"
mkdir "$T/dir.html"
expect 1 "-f on a directory" -- "$LBSIM" report "$T/r.db" -o "$T/dir.html" -f
[ -d "$T/dir.html" ] && ok || bad "the directory was replaced"
expect 1 "output in a missing directory" -- "$LBSIM" report "$T/r.db" -o "$T/no/such/dir/r.html"
# the output is checked before the store is read: a bad store and a bad output name the output
expect 1 "output checked first" -- "$LBSIM" report "$T/nothere.db" -o "$T/r.html"
has "$T/err" "file exists" "output checked before the store"
# a full disk: the error names the page, nothing is left half-written
if [ "$(id -u)" -eq 0 ] && mkdir "$T/full" && mount -t tmpfs -o size=64k tmpfs "$T/full" 2>/dev/null; then
  expect 1 "a full disk" -- "$LBSIM" report "$T/r.db" -o "$T/full/r.html"
  has "$T/err" "lbsim: $T/full/r.html: write failed: No space left on device" "full disk message"
  [ -z "$(ls -A "$T/full")" ] && ok || bad "a half-written page was left: $(ls -A "$T/full")"
  umount "$T/full" || umount -l "$T/full"
else
  echo "note: no tmpfs mount (not root): the full-disk case is not run"
fi
# usage
expect 2 "no output" -- "$LBSIM" report "$T/r.db"
expect 2 "no store" -- "$LBSIM" report -o "$T/x.html"
expect 2 "bad --max-cells" -- "$LBSIM" report "$T/r.db" -o "$T/x.html" --max-cells 0
expect 0 "help" -- "$LBSIM" report --help
has "$T/out" "examples:" "help has examples"
finish
