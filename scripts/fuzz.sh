#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (address + undefined sanitizers) and fuzzes each.
#
#   scripts/fuzz.sh [SECONDS]         the short pass (make fuzz, make check; a target per core at a time): each target for
#                                     SECONDS (default 15) from a fresh seed corpus of real
#                                     chunks, traces, graphs, grids, steps directories and
#                                     results stores, plus the corpus kept in the tree (read only)
#   scripts/fuzz.sh --long [SECONDS]  make fuzz-long: each target for SECONDS (default 600) with
#                                     the tree's corpus tests/fuzz/corpus/<target> first (new
#                                     inputs go there), then that corpus minimised (-merge=1) in
#                                     place, so it stays small and grows in coverage run to run
#   scripts/fuzz.sh --list            the targets
#
# A crash, leak, timeout or out-of-memory leaves its input in build-fuzz/ and makes this fail.
set -euo pipefail
cd "$(dirname "$0")/.."

# The targets: tests/fuzz/fuzz_<name>.c. Keep in step with LBS_FUZZ_TARGETS in tests/fuzz/CMakeLists.txt.
TARGETS="codec reader chaco config stepsdir results collector"

LONG=0
case "${1:-}" in
--list) echo "$TARGETS"; exit 0 ;;
--long) LONG=1; shift ;;
esac
SECS=${1:-$([ $LONG = 1 ] && echo 600 || echo 15)}
cmake_list=$(sed -n 's/^set(LBS_FUZZ_TARGETS \(.*\))$/\1/p' tests/fuzz/CMakeLists.txt)
if [ "$cmake_list" != "$TARGETS" ]; then
  echo "fuzz.sh: TARGETS ($TARGETS) differs from LBS_FUZZ_TARGETS in tests/fuzz/CMakeLists.txt ($cmake_list)" >&2
  exit 1
fi

B=build-fuzz
cmake -S . -B $B -DCMAKE_C_COMPILER=clang -DLBS_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build $B -j"$(nproc 2>/dev/null || echo 2)" >/dev/null

# ---------------------------------------------------------------- seed corpora (build-fuzz/corpus/<target>)
C=$B/corpus
L=$B/bin/lbsim
rm -rf "$C" && for t in $TARGETS; do mkdir -p "$C/$t"; done
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# the sanitized lbsim: MPI's own allocations are not this project's leaks
export LBSIM_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
seedrun() { ASAN_OPTIONS=detect_leaks=0 "$@" >/dev/null 2>&1; }

seedrun $L trace gen --kind bump --mesh 6x5x4 --steps 3 --chunk 50 -o "$C/reader/bump.lbt"
seedrun $L trace gen --kind random --mesh 5x5 --steps 2 --bound lossless -o "$C/reader/random.lbt"
sqlite3 "$C/reader/bump.lbt" "SELECT writefile('$C/codec/s' || id, CAST(char(codec) AS BLOB) || data) FROM chunks" >/dev/null
sqlite3 "$C/reader/random.lbt" "SELECT writefile('$C/codec/r' || id, CAST(char(codec) AS BLOB) || data) FROM chunks" >/dev/null
# the traces with 512-byte pages: a fifth of the size, so the inputs, and the corpus kept in the
# tree that grows from them, stay small (the reader does not depend on the page size)
for f in "$C"/reader/*.lbt; do sqlite3 "$f" "PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM;" >/dev/null; done
printf '%% square\n4 4 1\n2 1 4 2\n1 1 3 5\n2 5 4 1\n3 1 1 2\n' >"$C/chaco/square"
# encoder seeds: [0x80 | codec][bound][doubles]: timings with a spike and zeros, a smooth ramp
python3 - "$C/codec" <<'PY'
import struct, sys, math
d = sys.argv[1]
t = [700 * (1 + 0.01 * math.sin(i)) * (10 if i % 37 < 5 else 1) for i in range(300)]
t[17], t[40], t[41] = 7e6, 0.0, float("nan")
for c in range(4):
    for b in (0, 3, 4, 9):
        open("%s/enc%d_%d" % (d, c, b), "wb").write(bytes([0x80 | c, b]) + struct.pack("<300d", *t))
open(d + "/enc_ramp", "wb").write(bytes([0x81, 2]) + struct.pack("<64d", *[100 + 0.5 * i for i in range(64)]))
PY
printf '3 2 111 2\n9 5 6 2 7\n9 1 1 1 7 3 0.5\n9 2 2 2 0.5\n@@\n0 0\n1 0\n2 0\n' >"$C/chaco/weights"
# what Zoltan's reader forgives: '#' comments, m counting both directions, self loops, no lines
# for trailing isolated vertices (its drake, simple3d and nograph in small)
printf '# drake\n4 8 010\n4 2 4 %% c\n1 1 3\n4 2 4\n1 1 3\n@@\n# xy\n-1 1\n1 1\n1 -1\n-1 -1\n' >"$C/chaco/drake"
printf '3 7 1\n1 2 2 0.5\n2 1 1 0.5 3 0\n3 9 2 0\n' >"$C/chaco/loops"
printf '25 0\n' >"$C/chaco/nograph"
# the real meshes small enough to mutate quickly (Zoltan's bug, 7944, simple3d, film2, ...)
for f in tests/data/meshes/*.graph; do
  if [ "$(stat -c %s "$f")" -le 20000 ]; then cp "$f" "$C/chaco/mesh_$(basename "$f")"; fi
done

# config: the example grids, pipelines and configurations, a generated family grid, and files with overrides
for f in examples/grids/*.ini examples/seed002/grid.ini examples/pipeline/*.ini; do cp "$f" "$C/config/$(basename "$(dirname "$f")")_$(basename "$f")"; done
seedrun $L grid gen --family UP --procs 8 --clusters 2 --slowdown 4 -o "$C/config/family_up.ini"
{ cat examples/grids/two_sites.ini
  printf '@@\ncluster siteA.nodes=4\nsim.policy=fixed:5\nzoltan.IMBALANCE_TOL=1.05\n'
  printf "link siteA siteB.latency_us=10\nnodetype fast.cores = 4\n"; } >"$C/config/overrides"
cat >"$C/config/everything.ini" <<'EOF'
[grid]
name = all keys
ns_per_work = 0.5
bytes_per_elem = 2048
bytes_per_edge = 64
inter_latency_us = 50
inter_bandwidth_gbps = 2.5
inter_shared = false
[nodetype big]
speed_model = linear
speed = 4
cores = 8
[nodetype small]
slowdown = 3
[cluster a]
nodes = 2
nodetype = big
latency_us = 1
bandwidth_gbps = 40
shared = yes
[cluster b]
nodes = 3
nodetype = small
[cluster c]
nodes = 1
[link a b]
latency_us = 100
bandwidth_gbps = 1
shared = off
[zoltan]
IMBALANCE_TOL = 1.1
[minex]
throttle = 2
latency_tolerance = 0.5
passes = 4
coarse_per_proc = 16
[sim]
partitioner = minex:diffusive
policy = adaptive:0.1:5:50
mode = des
metric = time_ns
cost = measured
approach = repartition
cost_scale = 2
partition_fixed_us = 10
partition_per_elem_ns = 0.5
@@
grid.ns_per_work=2
sim.mode=bsp
EOF

# stepsdir: directories exported from generated traces (structured, Chaco and directed meshes)
# and one written by hand, each packed as "manifest text, then '@@ NAME' and the file, ..."
pack() {
  cat "$1/manifest"
  for f in "$1"/*; do
    [ "$(basename "$f")" = manifest ] && continue
    printf '@@ %s\n' "$(basename "$f")"
    cat "$f"
  done
}
seedrun $L trace gen --kind bump --mesh 4x3x2 --steps 3 -o "$W/bump.lbt"
seedrun $L trace gen --kind hotspot --mesh 4x4 --order hilbert --steps 2 -o "$W/hot.lbt"
seedrun $L trace import --chaco examples/graphs/grid6x6.graph --coords examples/graphs/grid6x6.coords -o "$W/chaco.lbt"
seedrun $L trace gen --kind nbody --bodies 64 --steps 2 -o "$W/nbody.lbt"
for t in bump hot chaco nbody; do
  seedrun $L trace export "$W/$t.lbt" --steps-dir "$W/$t.d"
  pack "$W/$t.d" >"$C/stepsdir/$t"
done
printf 'lbsim-steps 1\n# by hand\nelements 3\nmetric time_ns ns\nmetric flops 1\nstep a 7\nstep b 9\n@@ a\n0 1 2\n1 nan 4\n2 5 inf\n@@ b\n# comment\n0 1e300 -0\n 1 -3 0x1p4\n2\t5\t6\r\n' \
  >"$C/stepsdir/by_hand"

# results: stores written by replays (with assignments, DES), a trace (an SQLite file that is
# not a results store), and stores left with a committed WAL and with a hot rollback journal
seedrun $L trace gen --kind bump --mesh 4x4x2 --steps 4 --chunk 10 -o "$W/r.lbt"
seedrun $L replay "$W/r.lbt" --grid examples/grids/two_sites.ini --policy fixed:2 --results "$C/results/store" --save-assignment
seedrun $L replay "$W/r.lbt" --grid examples/grids/homogeneous16.ini --mode des --steps 1:3 --results "$C/results/store_des"
cp "$C/reader/random.lbt" "$C/results/trace"
python3 - "$C/results" "$W" <<'PY'
import os, shutil, sqlite3, sys
d, w = sys.argv[1], sys.argv[2]
def read(p):
    return open(p, "rb").read() if os.path.exists(p) else b""
# a store whose last run is only in its WAL (the process died before a checkpoint)
shutil.copy(d + "/store_des", w + "/wal.db")
c = sqlite3.connect(w + "/wal.db", isolation_level=None)
c.execute("PRAGMA journal_mode=WAL")
c.execute("INSERT INTO runs(partitioner, steps) VALUES('zoltan:rib', 2)")
open(d + "/store_wal", "wb").write(read(w + "/wal.db") + b"@@LBS-SIDE" + b"w" + read(w + "/wal.db-wal"))
c.close()
# a store in the middle of a transaction that spilled to the file (a hot journal beside it)
shutil.copy(d + "/store_des", w + "/hot.db")
c = sqlite3.connect(w + "/hot.db", isolation_level=None)
c.execute("PRAGMA cache_size=1")
c.execute("BEGIN")
for i in range(100):
    c.execute("INSERT INTO steps(run, step, app_step, time_ns, compute_ns, imbalance, loadimb, repartitioned) VALUES(99, ?, ?, 1, 1, 0.5, 1.5, 0)", (i, i))
open(d + "/store_journal", "wb").write(read(w + "/hot.db") + b"@@LBS-SIDE" + b"j" + read(w + "/hot.db-journal"))
c.execute("ROLLBACK")
c.close()
PY
# collector: whole runs from two nodes and from one, as agents send them
"$B/bin/seed_collector" "$C/collector"
# (a target without seeds here starts from nothing and from its corpus in the tree)

# ---------------------------------------------------------------- fuzzing
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
rm -f $B/crash-* $B/leak-* $B/timeout-* $B/oom-* $B/slow-unit-*
LIMITS="-max_len=65536 -timeout=10 -rss_limit_mb=2048"

# failed WHAT LOG: names the input libFuzzer saved (crash, leak, timeout, oom), shows the stack, exits
failed() {
  echo "$1: FAILED; input: $(grep -oE 'Test unit written to [^ ]+' "$2" | sed "s|.* to \./|$B/|" | head -1)"
  grep -E "ERROR|SUMMARY|runtime error|#0 |#1 |#2 |#3 " "$2" | head -20
  exit 1
}

# fuzz TARGET SECONDS CORPUS... : runs it and sets EXECS
fuzz() {
  local t=$1 secs=$2
  shift 2
  (cd $B && ./bin/fuzz_$t -max_total_time="$secs" -print_final_stats=1 $LIMITS -artifact_prefix=./ \
    "$@" >"fuzz_$t.log" 2>&1) || failed "fuzz_$t" "$B/fuzz_$t.log"
  EXECS=$(grep -oE 'number_of_executed_units: [0-9]+' "$B/fuzz_$t.log" | grep -oE '[0-9]+')
}

T=tests/fuzz/corpus
if [ $LONG = 0 ]; then
  # as many targets at a time as there are cores (each still runs SECS seconds on a core of its
  # own), their reports in TARGETS order; a failure is reported after its round
  ncpu=$(nproc 2>/dev/null || echo 2)
  rc=0 i=0 pids=()
  for t in $TARGETS; do
    (
      tree=()
      [ -d "$T/$t" ] && tree=("../$T/$t") # read only here: new inputs go to the seed directory
      fuzz "$t" "$SECS" "corpus/$t" "${tree[@]}"
      echo "fuzz_$t: ${SECS}s, $EXECS inputs, no failure"
    ) >"$B/fuzz_$t.out" 2>&1 &
    pids+=($!)
    i=$((i + 1))
    if [ $((i % ncpu)) -eq 0 ] || [ "$i" -eq "$(echo $TARGETS | wc -w)" ]; then
      for p in "${pids[@]}"; do wait "$p" || rc=1; done
      pids=()
    fi
  done
  for t in $TARGETS; do cat "$B/fuzz_$t.out"; done
  exit "$rc"
fi

total=0
for t in $TARGETS; do
  # FUZZ_ONLY="a b": only those targets (to spread a long run over cores, one script per core)
  [ -n "${FUZZ_ONLY:-}" ] && [[ " $FUZZ_ONLY " != *" $t "* ]] && continue
  mkdir -p "$T/$t"
  fuzz "$t" "$SECS" "../$T/$t" "corpus/$t"
  # minimise the tree's corpus: the inputs that keep its coverage, into a fresh directory
  # (the inputs run again there, in another process and order: one that fails only then fails
  # this too, although libFuzzer's merge goes on past it)
  rm -rf "$B/merge_$t" && mkdir "$B/merge_$t"
  if ! (cd $B && ./bin/fuzz_$t -merge=1 $LIMITS -artifact_prefix=./ "merge_$t" "../$T/$t" >"merge_$t.log" 2>&1) ||
     grep -q 'Test unit written to' "$B/merge_$t.log"; then
    failed "fuzz_$t (merge)" "$B/merge_$t.log"
  fi
  rm -rf "$T/$t" && mv "$B/merge_$t" "$T/$t"
  files=$(find "$T/$t" -type f | wc -l)
  kb=$(du -sk "$T/$t" | cut -f1)
  total=$((total + kb))
  echo "fuzz_$t: ${SECS}s, $EXECS executions, corpus $T/$t: $files files, ${kb} KiB"
done
echo "fuzz-long: corpus $T: ${total} KiB in all"
