#!/usr/bin/env bash
# The bad-input campaign (issue 29): a list of more than 300 wrong commands across every command
# and sub-command, each run under a time limit in a scratch directory beside "precious" files
# (a results store, a trace, grids, a text file, a directory, a FIFO, a link), and each outcome
# classified:
#   crash     killed by a signal, or a sanitizer's report on standard error
#   hang      still running after 60 s (nothing here should take more than a second)
#   harm      a file the command was not asked to write changed or vanished, or something
#             appeared outside the scratch directory (the source tree, $HOME, $TMPDIR)
#   loss      an output named by the command (-o, --csv, --results, ...) replaced or left
#             behind by a failed command (nothing new may remain in the working directory)
#   accepted  exit 0 for an input that is wrong
# and every command must fail with exit 1 or 2 and a line 'lbsim: ...' on standard error.
# The inputs are made by lbsim itself (trace gen, grid gen, replay --results, trace export) and
# taken from examples/; the bad ones are real files cut short, corrupted or of another kind.
set -u
LBSIM=$(realpath "${1:?usage: bad_inputs.sh lbsim source-dir}")
SRC=$(realpath "${2:?usage: bad_inputs.sh lbsim source-dir}")
T=$(mktemp -d /tmp/lbs_bad_XXXXXX)
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
G=$SRC/examples/grids/homogeneous16.ini
P=$T/p # precious: nothing below may change them
I=$T/in # bad inputs (also checked unchanged)
W=$T/w # the working directory: a failed command leaves nothing here
mkdir -p "$P" "$I" "$W" "$T/home" "$T/tmp"
export HOME=$T/home TMPDIR=$T/tmp LBSIM_NO_PROGRESS=1
unset LBSIM_PLUGIN_PATH LBSIM_LUA_UNSAFE LBSIM_LOG
L=$LBSIM

# ---- the real inputs, made by lbsim
setup() { "$@" >/dev/null 2>"$T/err" || { echo "setup failed: $*: $(cat "$T/err")"; exit 1; }; }
setup "$L" trace gen --kind bump --mesh 4x4x2 --steps 4 -o "$P/t.lbt"
setup "$L" replay "$P/t.lbt" --grid "$G" --policy fixed:2 --results "$P/r.db"
setup "$L" grid gen --family HO --procs 4 -o "$P/g.ini"
setup "$L" trace export "$P/t.lbt" --steps-dir "$P/sd"
setup "$L" trace export "$P/t.lbt" --csv "$P/csv"
cp "$G" "$P/h16.ini"
cp "$SRC/examples/pipeline/laplace.ini" "$P/pipe.ini"
printf 'implementation,device,metric,seconds\nnode.cpu,demo,1000,0.001\nnode.cpu,demo,1000000,0.01\n' >"$P/samples.csv"
setup "$L" calibrate import "$P/samples.csv" -o "$P/c.db"
printf '[study]\nname = s\ntraces = %s\ngrids = %s\npolicies = none\n' "$P/t.lbt" "$G" >"$P/study.ini"
printf 'precious notes\n' >"$P/notes.txt"
mkdir "$P/dir" && printf 'a\n' >"$P/dir/a.txt" && printf 'b\n' >"$P/dir/b.lbt"
mkfifo "$P/fifo"
ln -s t.lbt "$P/link.lbt"
ln -s notes.txt "$P/link.txt"

# ---- the bad inputs, made from the real ones
S=$(stat -c %s "$P/t.lbt")
head -c $((S / 2)) "$P/t.lbt" >"$I/half.lbt"
head -c 16 "$P/t.lbt" >"$I/head16.lbt"
head -c $((S - 4096)) "$P/t.lbt" >"$I/less4k.lbt"
: >"$I/empty.lbt"
# a trace's values are SQLite blobs: four bytes changed inside the first chunk's
at=$(python3 -c 'import sqlite3, sys
raw = open(sys.argv[1], "rb").read()
blob = sqlite3.connect(sys.argv[1]).execute("SELECT data FROM chunks ORDER BY id LIMIT 1").fetchone()[0]
print(raw.find(blob) + len(blob) // 2)' "$P/t.lbt")
[ "${at:--1}" -gt 0 ] || { echo "setup failed: no chunk found in $P/t.lbt"; exit 1; }
cp "$P/t.lbt" "$I/flip.lbt" && printf 'XXXX' | dd of="$I/flip.lbt" bs=1 seek="$at" conv=notrunc status=none
cp "$P/t.lbt" "$I/hdr.lbt" && printf '\377\377\377\377' | dd of="$I/hdr.lbt" bs=1 seek=8 conv=notrunc status=none
head -c "$S" /dev/zero >"$I/zero.lbt"
cp "$P/notes.txt" "$I/text.lbt"
cp "$P/r.db" "$I/store.lbt"
cp "$P/t.lbt" "$I/trace.db"
cp "$P/t.lbt" "$I/trace.ini"
cp "$P/notes.txt" "$I/text.db"
head -c $(($(stat -c %s "$P/r.db") / 2)) "$P/r.db" >"$I/half.db"
: >"$I/empty.db"
cp "$P/c.db" "$I/calib.lbt"
# grids
printf '[grid\nname = x\n[cluster main]\nnodes = 4\n' >"$I/unclosed.ini"
cp "$G" "$I/unknown_key.ini" && printf 'frobnicate = 3\n' >>"$I/unknown_key.ini"
sed 's/^nodes = 16/nodes = abc/' "$G" >"$I/bad_nodes.ini"
sed 's/^nodes = 16/nodes = -4/' "$G" >"$I/neg_nodes.ini"
sed 's/^nodes = 16/nodes = 0/' "$G" >"$I/zero_nodes.ini"
sed 's/^nodes = 16/nodes = 99999999999999999999/' "$G" >"$I/huge_nodes.ini"
sed 's/^latency_us = 5/latency_us = nan/' "$G" >"$I/nan_lat.ini"
sed 's/^bandwidth_gbps = 16 .*/bandwidth_gbps = 1e999/' "$G" >"$I/inf_bw.ini"
sed 's/^bandwidth_gbps = 16 .*/bandwidth_gbps = -1/' "$G" >"$I/neg_bw.ini"
sed 's/^ns_per_work = 1 .*/ns_per_work = 0x10/' "$G" >"$I/hex_npw.ini"
cat "$G" "$G" >"$I/dup.ini"
grep -v '^\[grid\]' "$G" | sed '/^name/d' >"$I/nogrid.ini"
sed '/^\[cluster main\]/,$d' "$G" >"$I/nocluster.ini"
cp "$P/t.lbt" "$I/garbage.ini"
{ printf '[grid]\nname = '; head -c 100000 /dev/zero | tr '\0' x; printf '\n[cluster main]\nnodes = 4\n'; } >"$I/long.ini"
{ printf '[grid]\nname = x\n[cluster main]\nnodes = 4\nlatency_us = '; head -c 100000 /dev/zero | tr '\0' 9; printf '\n'; } >"$I/longnum.ini"
: >"$I/empty.ini"
printf 'name = x\n' >"$I/nosection.ini"
printf '[grid]\nname = x\n[cluster main]\nnodes\n' >"$I/noeq.ini"
printf '[grid]\nname = x\n[cluster main]\nnodes = 4\n[link main main]\nlatency_us = 1\n[sim]\nsteps = 3:1\n' >"$I/badsim.ini"
printf '[grid]\nname = x\n[cluster main]\nnodes = 4\n[bogus thing]\nk = v\n' >"$I/badsect.ini"
# studies
printf '[study]\nname = s\ntraces = %s\ngrids = %s\npolicies = bogus\n' "$P/t.lbt" "$G" >"$I/study_pol.ini"
printf '[study]\nname = s\ntraces = %s\ngrids = %s\npolicies = none\n' "$I/nope.lbt" "$G" >"$I/study_trace.ini"
printf '[study]\nname = s\ntraces = %s\ngrids = gen:XX:4:1:1\npolicies = none\n' "$P/t.lbt" >"$I/study_gen.ini"
printf '[study]\nname = s\ntraces = %s\ngrids = %s\npolicies = none\nfrob = 1\n' "$P/t.lbt" "$G" >"$I/study_key.ini"
printf '[study]\nname = s\n' >"$I/study_empty.ini"
printf '[study]\nname = s\ntraces = %s\ngrids = %s\npolicies = none\n[overrides]\nsim.steps = 9:2\n' "$P/t.lbt" "$G" >"$I/study_ovr.ini"
printf '[study]\nname = s\ntraces = %s\ngrids = %s\npolicies = none\n' "$I/half.lbt" "$G" >"$I/study_half.ini"
# pipelines
sed 's/^jobs = 10000/jobs = -5/' "$P/pipe.ini" >"$I/pipe_jobs.ini"
sed 's/^jobs = 10000/jobs = nan/' "$P/pipe.ini" >"$I/pipe_nan.ini"
sed 's/^seconds = 3.92004126/seconds = abc/' "$P/pipe.ini" >"$I/pipe_sec.ini"
printf '[pipeline]\nname = x\njobs = 10\n' >"$I/pipe_nomap.ini"
# calibration samples
printf 'a,b,c\n1,2,3\n' >"$I/cols.csv"
printf 'implementation,device,metric,seconds\nnode.cpu,demo,abc,0.001\n' >"$I/metric.csv"
printf 'implementation,device,metric,seconds\nnode.cpu,demo,1000,-1\n' >"$I/neg.csv"
printf 'implementation,device,metric,seconds\nnode.cpu,demo,1000,nan\n' >"$I/nan.csv"
printf 'implementation,device,metric,seconds\n' >"$I/header.csv"
cp "$P/t.lbt" "$I/binary.csv"
# steps dirs and graphs
cp -r "$P/sd" "$I/sd_badman" && printf 'lbsim-steps 99\n' >"$I/sd_badman/manifest"
cp -r "$P/sd" "$I/sd_short" && head -n 3 "$P/sd/step_000001.txt" >"$I/sd_short/step_000001.txt"
cp -r "$P/sd" "$I/sd_nan" && sed -i '2s/ 1$/ nan/;2s/^1 [^ ]*/1 abc/' "$I/sd_nan/step_000002.txt"
cp -r "$P/sd" "$I/sd_noman" && rm "$I/sd_noman/manifest"
head -n 5 "$SRC/examples/graphs/grid6x6.graph" >"$I/short.graph"
sed '2s/^36 60/36 61/' "$SRC/examples/graphs/grid6x6.graph" >"$I/count.graph"
sed '3s/^1 /-1 /' "$SRC/examples/graphs/grid6x6.graph" >"$I/negw.graph"
head -n 3 "$SRC/examples/graphs/grid6x6.coords" >"$I/short.coords"
printf 'fixed:1\n' >"$I/not_lua.lua"
printf 'return {' >"$I/broken.lua"
printf '20,abc\n' >"$I/steps_bad.txt"
cp "$P/t.lbt" "$I/steps_bin.txt"
mkdir "$I/emptydir"
chmod -R a-w "$I"

# ---- one command: run it, classify it
n=0 crashes=0 hangs=0 harms=0 losses=0 accepted=0
OUTOPTS=" -o --output --out-parts --csv --results --steps-dir --token-file "
# The precious files and inputs, and the working directory, $TMPDIR and $HOME, are watched by
# one process for the whole campaign (bad_inputs_watch.py says what it lists: every precious
# entry's type, size, mode and time, a link's target and a regular file's checksum, a FIFO never
# opened; every new entry in the working directories, but for ~/.cache, Open MPI's, made by
# MPI_Init, and Open MPI's session directory in $TMPDIR, which its own helper removes, not always
# at once). Listing them with find, cksum, sort and cmp took some fifteen processes a command,
# more CPU time than the commands.
coproc WATCH { exec "${LBS_PYTHON:-python3}" "$(dirname "$0")/bad_inputs_watch.py" "$T/diff" --precious "$P" "$I" \
  --work "$W" "$T/tmp" "$T/home" --prune "$T/home/.cache" "$T/tmp/ompi.*" --wipe "$W" "$T/tmp"; }
# watch REQUEST: asks the watcher; its answer's lines in the array answer
watch() {
  local line
  answer=()
  echo "$1" >&"${WATCH[1]}"
  while IFS= read -r line <&"${WATCH[0]}"; do
    [ "$line" = . ] && return 0
    answer+=("$line")
  done
  echo "bad_inputs_watch.py ended; the campaign cannot go on"
  exit 1
}
try() {
  n=$((n + 1))
  local what="[$n] lbsim $*" rc p prev arg kind fail='' crash named files work
  # the working directories before it; the precious files as the previous command left them
  watch before
  timeout -k 5 60 "$L" "$@" </dev/null >"$T/out" 2>"$T/err" # (in $W: run_list's caller went there)
  rc=$?
  watch "after $T/err"
  read -r crash named files work <<<"${answer[0]}"
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    hangs=$((hangs + 1)) fail="hang (timed out)"
  elif [ $rc -gt 128 ] || [ "$crash" = 1 ]; then
    crashes=$((crashes + 1)) fail="crash: exit $rc: $(head -c 300 "$T/err")"
  elif [ $rc -eq 0 ]; then
    accepted=$((accepted + 1)) fail="accepted: exit 0; stdout: $(head -c 200 "$T/out")"
  elif [ $rc -ne 1 ] && [ $rc -ne 2 ]; then
    fail="exit $rc, not 1 or 2: $(head -c 300 "$T/err")"
  elif [ "$named" != 1 ]; then
    fail="no 'lbsim: ' message on stderr: $(head -c 300 "$T/err")"
  fi
  # what changed among the precious files and inputs: an output it names is a loss, else harm
  kind=
  [ "$files" = 0 ] || for p in "${answer[@]:1}"; do
    prev='' kind=harm
    for arg in "$@"; do
      [ "$arg" = "$p" ] && [ -n "$prev" ] && [[ $OUTOPTS == *" $prev "* ]] && kind=loss
      prev=$arg
    done
    [ $kind = loss ] && break
  done
  if [ "$kind" = harm ]; then
    harms=$((harms + 1)) fail="${fail:+$fail; }harm: changed $(head -c 300 "$T/diff.files")"
  elif [ "$kind" = loss ]; then
    losses=$((losses + 1)) fail="${fail:+$fail; }loss: replaced $(head -c 300 "$T/diff.files")"
  elif [ "$work" = 1 ]; then
    losses=$((losses + 1)) fail="${fail:+$fail; }loss: left behind $(head -c 300 "$T/diff.work")"
  fi
  if [ -n "$fail" ]; then bad "$what: $fail"; else ok; fi
  # a failed command's leftovers must not spoil the next one
  watch clean
}

# ---- the list: one command a line, words as the shell splits them ($P, $I, $W, $G, $SRC
# expanded here); every one of them is wrong.
run_list() {
  local line args
  while IFS= read -r line; do
    [[ -z $line || $line == \#* ]] && continue
    eval "args=($line)"
    try "${args[@]}"
  done
}
touch "$T/stamp"
cd "$W" || exit 1
run_list <<'EOF'
# ---- the launcher
--bogus
frobnicate
replya
help replya
help trace bogus
help a b c
--plugin
--plugin $I/nope.so trace info $P/t.lbt
--plugin $P/notes.txt trace info $P/t.lbt
--plugin $P/fifo trace info $P/t.lbt
--plugin $P/dir trace info $P/t.lbt
''
trace
trace bogus
trace ''
grid bogus
policy bogus
policy
export
export bogus
calibrate
calibrate bogus
# ---- trace gen
trace gen --kind nope -o $W/n.lbt
trace gen --knd bump -o $W/n.lbt
trace gen --kind -o $W/n.lbt
trace gen --kind bump
trace gen --kind bump --mesh 4x4x2 --steps 4 -o
trace gen --kind bump --mesh 4x4x2 --steps 4 -o ''
trace gen --kind bump --mesh 0x4x2 --steps 4 -o $W/n.lbt
trace gen --kind bump --mesh -4x4x2 --steps 4 -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2x2 --steps 4 -o $W/n.lbt
trace gen --kind bump --mesh abc --steps 4 -o $W/n.lbt
trace gen --kind bump --mesh '' --steps 4 -o $W/n.lbt
trace gen --kind bump --mesh 99999999x99999999x99999999 --steps 4 -o $W/n.lbt
trace gen --kind bump --mesh 0x10x4 --steps 4 -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 0 -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps -1 -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 1e999 -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps nan -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 0x10 -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4abc -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 99999999999999999999 -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 --seed abc -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 --order x -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 --noise bogus -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 --noise jitter=-1 -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 --noise jitter=nan -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 --elem-bytes -1 -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 --elem-bytes inf -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 --edge-bytes abc -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 --bound bogus -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 --bound rel:-1 -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 --bound rel:nan -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 --bound nosuch=rel:0.01 -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 --bound '' -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 --codec zip -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 --codec time_ns= -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 --chunk 0 -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 --chunk -8 -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 --chunk 1e999 -o $W/n.lbt
trace gen --kind nbody --bodies 0 --steps 1 -o $W/n.lbt
trace gen --kind nbody --bodies -64 --steps 1 -o $W/n.lbt
trace gen --kind nbody --bodies abc --steps 1 -o $W/n.lbt
trace gen --kind bump --bodies 64 --steps 1 -o $W/n.lbt
trace gen --kind hotspot --theta 0.5 --steps 1 -o $W/n.lbt
trace gen --kind nbody --mesh 4x4 --steps 1 -o $W/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 -o $P/t.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 -o $P/notes.txt
trace gen --kind bump --mesh 4x4x2 --steps 4 -o $P/notes.txt -f
trace gen --kind bump --mesh 4x4x2 --steps 4 -o $P/r.db -f
trace gen --kind bump --mesh 4x4x2 --steps 4 -o $P/g.ini -f
trace gen --kind bump --mesh 4x4x2 --steps 4 -o $P/c.db -f
trace gen --kind bump --mesh 4x4x2 --steps 4 -o $P/dir
trace gen --kind bump --mesh 4x4x2 --steps 4 -o $P/dir -f
trace gen --kind bump --mesh 4x4x2 --steps 4 -o $P/fifo
trace gen --kind bump --mesh 4x4x2 --steps 4 -o $P/fifo -f
trace gen --kind bump --mesh 4x4x2 --steps 4 -o $P/link.txt -f
trace gen --kind bump --mesh 4x4x2 --steps 4 -o /dev/null
trace gen --kind bump --mesh 4x4x2 --steps 4 -o /dev/full -f
trace gen --kind bump --mesh 4x4x2 --steps 4 -o $W/nodir/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 -o $P/notes.txt/n.lbt
trace gen --kind bump --mesh 4x4x2 --steps 4 -o $W/n.lbt --set sim.steps=1:2
trace gen --kind bump --mesh 4x4x2 --steps 4 -o $W/n.lbt --json
trace gen --kind bump --mesh 4x4x2 --steps 4 -o $W/n.lbt extra
trace gen --kind bump --mesh 4x4x2 --steps 4 -o $W/a.lbt -o $W/b.lbt
# ---- trace info
trace info
trace info $I/nope.lbt
trace info ''
trace info $I/empty.lbt
trace info $I/head16.lbt
trace info $I/half.lbt
trace info $I/less4k.lbt
trace info $I/zero.lbt
trace info $I/hdr.lbt
trace info $I/text.lbt
trace info $I/store.lbt
trace info $I/calib.lbt
trace info $P/r.db
trace info $P/g.ini
trace info $P/dir
trace info $P/fifo
trace info /dev/null
trace info /dev/full
trace info -
trace info $P/t.lbt $P/t.lbt
trace info $P/t.lbt --jsn
trace info $P/t.lbt --json --csv $W/d
trace info $P/t.lbt -o $W/x
trace info $P/t.lbt --set sim.steps=1:2
trace info $P/notes.txt/x.lbt
# ---- trace check
trace check
trace check $I/nope.lbt
trace check $I/empty.lbt
trace check $I/head16.lbt
trace check $I/half.lbt
trace check $I/less4k.lbt
trace check $I/flip.lbt
trace check $I/zero.lbt
trace check $I/hdr.lbt
trace check $I/text.lbt
trace check $I/store.lbt
trace check $P/r.db
trace check $P/dir
trace check $P/fifo
trace check /dev/null
trace check $P/t.lbt --no-sauce
trace check $P/t.lbt extra
# ---- trace export
trace export $P/t.lbt
trace export $P/t.lbt --csv
trace export $P/t.lbt --csv ''
trace export $P/t.lbt --csv $W/d --steps-dir $W/e
trace export $P/t.lbt --csv $P/dir
trace export $P/t.lbt --csv $P/dir -f
trace export $P/t.lbt --csv $P/notes.txt
trace export $P/t.lbt --csv $P/notes.txt -f
trace export $P/t.lbt --csv $P/fifo -f
trace export $P/t.lbt --csv $P/sd
trace export $P/t.lbt --csv /dev/null
trace export $P/t.lbt --csv $W/d --step 99
trace export $P/t.lbt --csv $W/d --step -1
trace export $P/t.lbt --csv $W/d --step abc
trace export $P/t.lbt --csv $W/d --step 1e999
trace export $P/t.lbt --csv $W/d --steps 3:1
trace export $P/t.lbt --csv $W/d --steps 0:99
trace export $P/t.lbt --csv $W/d --steps a:b
trace export $P/t.lbt --csv $W/d --steps 1
trace export $P/t.lbt --csv $W/d --steps 2:2
trace export $P/t.lbt --csv $W/d --steps -1:2
trace export $P/t.lbt --csv $W/d --step 1 --steps 0:2
trace export $P/t.lbt --csv $W/d --steps 0:2 --steps 1:3
trace export $P/t.lbt --csv $W/d --step 1 --step 2
trace export $I/half.lbt --csv $W/d
trace export $I/flip.lbt --csv $W/d
trace export $I/text.lbt --csv $W/d
trace export $P/r.db --steps-dir $W/d
trace export $P/fifo --csv $W/d
trace export $I/nope.lbt --csv $W/d
trace export $P/t.lbt --steps-dir $P/csv
trace export $P/t.lbt --steps-dir $P/dir -f
trace export $P/t.lbt --csv $W/d --json --jsn
# ---- trace import
trace import -o $W/n.lbt
trace import --steps-dir $I/nope -o $W/n.lbt
trace import --steps-dir $I/emptydir -o $W/n.lbt
trace import --steps-dir $P/dir -o $W/n.lbt
trace import --steps-dir $I/sd_badman -o $W/n.lbt
trace import --steps-dir $I/sd_short -o $W/n.lbt
trace import --steps-dir $I/sd_nan -o $W/n.lbt
trace import --steps-dir $I/sd_noman -o $W/n.lbt
trace import --steps-dir $P/notes.txt -o $W/n.lbt
trace import --steps-dir $P/fifo -o $W/n.lbt
trace import --steps-dir $P/sd
trace import --steps-dir $P/sd -o $P/t.lbt
trace import --steps-dir $P/sd -o $P/notes.txt -f
trace import --steps-dir $P/sd -o $P/sd -f
trace import --steps-dir $P/sd --chaco $SRC/examples/graphs/grid6x6.graph -o $W/n.lbt
trace import --chaco $I/nope.graph -o $W/n.lbt
trace import --chaco $I/short.graph -o $W/n.lbt
trace import --chaco $I/count.graph -o $W/n.lbt
trace import --chaco $I/negw.graph -o $W/n.lbt
trace import --chaco $P/t.lbt -o $W/n.lbt
trace import --chaco $P/fifo -o $W/n.lbt
trace import --chaco /dev/null -o $W/n.lbt
trace import --chaco $SRC/examples/graphs/grid6x6.graph --coords $I/short.coords -o $W/n.lbt
trace import --chaco $SRC/examples/graphs/grid6x6.graph --coords $I/nope -o $W/n.lbt
trace import --chaco $SRC/examples/graphs/grid6x6.graph --coords $P/fifo -o $W/n.lbt
trace import --coords $SRC/examples/graphs/grid6x6.coords -o $W/n.lbt
trace import --chaco $SRC/examples/graphs/grid6x6.graph --chunk 0 -o $W/n.lbt
trace import --chaco $SRC/examples/graphs/grid6x6.graph --bound rel:x -o $W/n.lbt
trace import --chaco $SRC/examples/graphs/grid6x6.graph -o $W/n.lbt extra
# ---- trace recode
trace recode $P/t.lbt
trace recode -o $W/n.lbt
trace recode $I/half.lbt -o $W/n.lbt
trace recode $I/flip.lbt -o $W/n.lbt
trace recode $I/text.lbt -o $W/n.lbt
trace recode $I/store.lbt -o $W/n.lbt
trace recode $P/fifo -o $W/n.lbt
trace recode $P/dir -o $W/n.lbt
trace recode $P/t.lbt -o $P/t.lbt
trace recode $P/t.lbt -o $P/t.lbt -f
trace recode $P/link.lbt -o $P/t.lbt -f
trace recode $P/t.lbt -o $P/link.lbt -f
trace recode $P/t.lbt -o $P/r.db -f
trace recode $P/t.lbt -o $P/notes.txt
trace recode $P/t.lbt -o $P/dir -f
trace recode $P/t.lbt -o $P/fifo -f
trace recode $P/t.lbt -o /dev/full -f
trace recode $P/t.lbt -o $W/n.lbt --bound nope
trace recode $P/t.lbt -o $W/n.lbt --bound time_ns=rel:-0.5
trace recode $P/t.lbt -o $W/n.lbt --codec bogus
trace recode $P/t.lbt -o $W/n.lbt --chunk abc
trace recode $P/t.lbt -o $W/n.lbt --chunk 99999999999999999999
trace recode $P/t.lbt $P/t.lbt -o $W/n.lbt
trace recode $P/t.lbt -o $W/a.lbt -o $W/b.lbt
# ---- grid info
grid info
grid info $I/nope.ini
grid info $I/empty.ini
grid info $I/unclosed.ini
grid info $I/unknown_key.ini
grid info $I/bad_nodes.ini
grid info $I/neg_nodes.ini
grid info $I/zero_nodes.ini
grid info $I/huge_nodes.ini
grid info $I/nan_lat.ini
grid info $I/inf_bw.ini
grid info $I/neg_bw.ini
grid info $I/dup.ini
grid info $I/nogrid.ini
grid info $I/nocluster.ini
grid info $I/garbage.ini
grid info $I/long.ini
grid info $I/longnum.ini
grid info $I/nosection.ini
grid info $I/noeq.ini
grid info $I/hex_npw.ini
grid info $I/badsim.ini
grid info $I/badsect.ini
grid info $I/trace.ini
grid info $P/t.lbt
grid info $P/r.db
grid info $P/dir
grid info $P/fifo
grid info /dev/null
grid info $G --set nodot
grid info $G --set cluster.nodes
grid info $G --set 'cluster main.nodes=abc'
grid info $G --set 'cluster main.nodes=-1'
grid info $G --set 'cluster main.nodes=1e999'
grid info $G --set 'cluster nope.nodes=2'
grid info $G --set 'cluster main.bogus=2'
grid info $G --set 'grid.ns_per_work=nan'
grid info $G --set 'grid.ns_per_work=inf'
grid info $G --set '+kind name.key=value'
grid info $G --set ''
grid info $G --set =1
grid info $G -o sim.steps=1:2
grid info $G -o $W/x
grid info $G $G
grid info $G --jsn
# ---- grid gen
grid gen
grid gen --family XX --procs 4
grid gen --family HO
grid gen --family HO --procs 0
grid gen --family HO --procs -4
grid gen --family HO --procs abc
grid gen --family HO --procs 1e999
grid gen --family HO --procs 99999999999999999999
grid gen --family HO --procs 4 --clusters 8
grid gen --family HO --procs 4 --clusters 0
grid gen --family HO --procs 4 --clusters 3
grid gen --family UP --procs 4 --clusters 2 --slowdown 0
grid gen --family UP --procs 4 --clusters 2 --slowdown -2
grid gen --family UP --procs 4 --clusters 2 --slowdown nan
grid gen --family UP --procs 4 --clusters 2 --slowdown inf
grid gen --family HO --procs 4 --latency-us -1
grid gen --family HO --procs 4 --latency-us nan
grid gen --family HO --procs 4 --bandwidth-gbps 0
grid gen --family HO --procs 4 --bandwidth-gbps 0x
grid gen --family HO --procs 4 -o $P/g.ini
grid gen --family HO --procs 4 -o $P/h16.ini -f
grid gen --family HO --procs 4 -o $P/t.lbt -f
grid gen --family HO --procs 4 -o $P/notes.txt -f
grid gen --family HO --procs 4 -o $P/dir -f
grid gen --family HO --procs 4 -o $P/fifo -f
grid gen --family HO --procs 4 -o /dev/full -f
grid gen --family HO --procs 4 -o ''
grid gen --family HO --procs 4 extra
grid gen --family HO --procs 4 -o $W/a.ini -o $W/b.ini
# ---- grid probe (all refused while parsing, before any measuring)
grid probe
grid probe --quick
grid probe --quick -o ''
grid probe --quick -o $P/g.ini
grid probe --quick -o $P/notes.txt -f
grid probe --quick -o $P/t.lbt -f
grid probe --quick -o $P/fifo -f
grid probe --quick -o $P/dir -f
grid probe --quick --partitioner nope -o $W/m.ini
grid probe --quick --partitioner '' -o $W/m.ini
grid probe --quikc -o $W/m.ini
grid probe --quick -o $W/m.ini extra
# ---- replay
replay
replay $P/t.lbt
replay $P/t.lbt --grid
replay --grid $G
replay $I/nope.lbt --grid $G
replay $I/half.lbt --grid $G
replay $I/flip.lbt --grid $G
replay $I/text.lbt --grid $G
replay $I/store.lbt --grid $G
replay $P/r.db --grid $G
replay $P/fifo --grid $G
replay $P/dir --grid $G
replay /dev/null --grid $G
replay $P/t.lbt --grid $P/t.lbt
replay $P/t.lbt --grid $P/fifo
replay $P/t.lbt --grid $I/unclosed.ini
replay $P/t.lbt --grid $I/garbage.ini
replay $P/t.lbt --grid $I/long.ini
replay $P/t.lbt --grid $I/zero_nodes.ini
replay $P/t.lbt --grid $I/badsim.ini
replay $P/t.lbt --grid $G --policy nope
replay $P/t.lbt --grid $G --policy fixed:-1
replay $P/t.lbt --grid $G --policy fixed:0
replay $P/t.lbt --grid $G --policy fixed:abc
replay $P/t.lbt --grid $G --policy fixed:
replay $P/t.lbt --grid $G --policy fixed:1e999
replay $P/t.lbt --grid $G --policy threshold:abc
replay $P/t.lbt --grid $G --policy threshold:nan
replay $P/t.lbt --grid $G --policy threshold:-1
replay $P/t.lbt --grid $G --policy adaptive:0.1:20:5
replay $P/t.lbt --grid $G --policy adaptive:0.1:x:5
replay $P/t.lbt --grid $G --policy adaptive:1:2:3:4
replay $P/t.lbt --grid $G --policy cost-benefit:-3
replay $P/t.lbt --grid $G --policy optimal:0
replay $P/t.lbt --grid $G --policy steps:
replay $P/t.lbt --grid $G --policy steps:a,b
replay $P/t.lbt --grid $G --policy steps:-1
replay $P/t.lbt --grid $G --policy steps:@$I/nope.txt
replay $P/t.lbt --grid $G --policy steps:@$I/steps_bad.txt
replay $P/t.lbt --grid $G --policy steps:@$I/steps_bin.txt
replay $P/t.lbt --grid $G --policy steps:@$P/fifo
replay $P/t.lbt --grid $G --policy steps:@$P/dir
replay $P/t.lbt --grid $G --policy lua:$I/nope.lua
replay $P/t.lbt --grid $G --policy lua:$I/broken.lua
replay $P/t.lbt --grid $G --policy lua:$I/not_lua.lua
replay $P/t.lbt --grid $G --policy lua:$P/fifo
replay $P/t.lbt --grid $G --policy lua:$P/dir
replay $P/t.lbt --grid $G --policy ''
replay $P/t.lbt --grid $G --partitioner nope
replay $P/t.lbt --grid $G --partitioner zoltan:nope
replay $P/t.lbt --grid $G --partitioner metis:x
replay $P/t.lbt --grid $G --partitioner lua:$I/broken.lua
replay $P/t.lbt --grid $G --partitioner lua:$P/fifo
replay $P/t.lbt --grid $G --partitioner ''
replay $P/t.lbt --grid $G --mode fast
replay $P/t.lbt --grid $G --metric nope
replay $P/t.lbt --grid $G --partition-metric nope
replay $P/t.lbt --grid $G --steps 3:1
replay $P/t.lbt --grid $G --steps 0:99
replay $P/t.lbt --grid $G --steps 2:2
replay $P/t.lbt --grid $G --steps x:y
replay $P/t.lbt --grid $G --steps 1e999:2
replay $P/t.lbt --grid $G --steps -2:2
replay $P/t.lbt --grid $G --steps ''
replay $P/t.lbt --grid $G --mode ''
replay $P/t.lbt --grid $G --metric ''
replay $P/t.lbt --grid $G --cost ''
export vtk $P/t.lbt --grid $G -o $W/d --steps ''
replay $P/t.lbt --grid $G --cost fast
replay $P/t.lbt --grid $G --cost measured --cost-scale -1
replay $P/t.lbt --grid $G --cost measured --cost-scale nan
replay $P/t.lbt --grid $G --part-fixed-us abc
replay $P/t.lbt --grid $G --part-per-elem-ns -5
replay $P/t.lbt --grid $G --part-per-elem-ns inf
replay $P/t.lbt --grid $G --results $P/t.lbt
replay $P/t.lbt --grid $G --results $P/notes.txt
replay $P/t.lbt --grid $G --results $P/g.ini
replay $P/t.lbt --grid $G --results $P/c.db
replay $P/t.lbt --grid $G --results $P/dir
replay $P/t.lbt --grid $G --results $P/fifo
replay $P/t.lbt --grid $G --results $I/half.db
replay $P/t.lbt --grid $G --results ''
replay $P/t.lbt --grid $G --save-assignment
replay $P/t.lbt --grid $G -o sim.steps=1:2
replay $P/t.lbt --grid $G -o $W/x.json
replay $P/t.lbt --grid $G --set nodot
replay $P/t.lbt --grid $G --set sim.mode=fast
replay $P/t.lbt --grid $G --set sim.steps=3:1
replay $P/t.lbt --grid $G --set sim.bogus=1
replay $P/t.lbt --grid $G --set 'cluster nope.nodes=2'
replay $P/t.lbt --grid $G --set 'cluster main.nodes=0'
replay $P/t.lbt --grid $G --set zoltan.IMBALANCE_TOL=abc
replay $P/t.lbt --grid $G --jsn
replay $P/t.lbt --grid $G --json --csv $W/d
replay $P/t.lbt $P/t.lbt --grid $G
# ---- policy compare
policy compare
policy compare $P/t.lbt --grid $G
policy compare $P/t.lbt --grid $G --policies
policy compare $P/t.lbt --grid $G --policies ''
policy compare $P/t.lbt --grid $G --policies none,,fixed:2
policy compare $P/t.lbt --grid $G --policies ,none
policy compare $P/t.lbt --grid $G --policies none,
policy compare $P/t.lbt --grid $G --policies $(printf 'none,%.0s' {1..64})none
policy compare $P/t.lbt --grid $G --policies none,nope
policy compare $P/t.lbt --grid $G --policies fixed:-1
policy compare $P/t.lbt --grid $G --policies threshold:abc
policy compare $P/t.lbt --grid $G --policies none --cost measured
policy compare $P/t.lbt --grid $G --policies none --steps 5:1
policy compare $P/t.lbt --grid $G --policies none --mode x
policy compare $P/t.lbt --grid $G --policies none --csv
policy compare $P/t.lbt --grid $G --policies none --csv $P/dir -f
policy compare $P/t.lbt --grid $G --policies none --csv $P/csv -f
policy compare $P/t.lbt --grid $G --policies none --csv $P/sd -f
policy compare $P/t.lbt --grid $G --policies none --csv $P/notes.txt
policy compare $P/t.lbt --grid $G --policies none --csv $P/fifo -f
policy compare $P/t.lbt --grid $G --policies none --results $P/t.lbt
policy compare $P/t.lbt --grid $G --policies none --results $P/notes.txt
policy compare $I/half.lbt --grid $G --policies none
policy compare $P/r.db --grid $G --policies none
policy compare $P/t.lbt --grid $P/r.db --policies none
policy compare $P/t.lbt --grid $I/dup.ini --policies none
policy compare $P/t.lbt --grid $G --policies none --set nodot
policy compare $P/t.lbt --grid $G --policies none -o sim.steps=1:2
policy compare $P/t.lbt --grid $G --policies none --policy none
policy compare $P/t.lbt --grid $G --policies steps:@$P/fifo
policy compare $P/t.lbt --grid $G --policies lua:$P/fifo
# ---- partition
partition
partition $P/t.lbt
partition $P/t.lbt --grid $G --partitioner nope
partition $P/t.lbt --grid $G --partitioner minex,nope
partition $P/t.lbt --grid $G --partitioner ''
partition $P/t.lbt --grid $G --partitioner ,
partition $P/t.lbt --grid $G --partitioner lua:$P/fifo
partition $P/t.lbt --grid $G --step 99
partition $P/t.lbt --grid $G --step -1
partition $P/t.lbt --grid $G --step abc
partition $P/t.lbt --grid $G --step 1e999
partition $P/t.lbt --grid $G --metric nope
partition $P/t.lbt --grid $G --from x
partition $P/t.lbt --grid $G --graph X
partition $P/t.lbt --grid $G --procs 3
partition $P/t.lbt --grid $G --procs 0
partition $P/t.lbt --grid $G --procs abc
partition $P/t.lbt --grid $G --repeat 0
partition $P/t.lbt --grid $G --repeat -1
partition $P/t.lbt --grid $G --repeat 99999999999999999999
partition $P/t.lbt --grid $G --partitioner zoltan:rcb -o $P/t.lbt
partition $P/t.lbt --grid $G --partitioner zoltan:rcb -o $P/notes.txt -f
partition $P/t.lbt --grid $G --partitioner zoltan:rcb -o $P/g.ini -f
partition $P/t.lbt --grid $G --partitioner zoltan:rcb -o $P/fifo -f
partition $P/t.lbt --grid $G --partitioner zoltan:rcb -o $P/dir -f
partition $P/t.lbt --grid $G --partitioner zoltan:rcb -o /dev/full -f
partition $P/t.lbt --grid $G --partitioner zoltan:rcb -o ''
partition $P/t.lbt --grid $G --partitioner zoltan:rcb -o sim.steps=1:2
partition $P/t.lbt --grid $G --partitioner zoltan:rcb --results $P/notes.txt
partition $P/t.lbt --grid $G --partitioner zoltan:rcb --results $P/t.lbt
partition $I/half.lbt --grid $G
partition $I/store.lbt --grid $G
partition $P/t.lbt --grid $I/neg_nodes.ini
partition $P/t.lbt --grid $G --set nodot
partition $P/t.lbt --grid $G --set minex.throttle=abc
partition $P/t.lbt --grid $G --jsn
partition $P/t.lbt --grid $G --partitioner zoltan:rcb -o $W/a.parts --out-parts $W/b.parts
# ---- validate (all refused before any run)
validate
validate $P/t.lbt
validate $I/nope.lbt --grid $G
validate $I/half.lbt --grid $G
validate $P/r.db --grid $G
validate $P/fifo --grid $G
validate $P/t.lbt --grid $P/fifo
validate $P/t.lbt --grid $I/unclosed.ini
validate $P/t.lbt --grid $G --mode fast
validate $P/t.lbt --grid $G --runs 0
validate $P/t.lbt --grid $G --runs -1
validate $P/t.lbt --grid $G --runs abc
validate $P/t.lbt --grid $G --ranks 0
validate $P/t.lbt --grid $G --ranks x
validate $P/t.lbt --grid $G --timeout -1
validate $P/t.lbt --grid $G --timeout nan
validate $P/t.lbt --grid $G --policies nope
validate $P/t.lbt --grid $G --policies ''
validate $P/t.lbt --grid $G --set sim.mode
validate $P/t.lbt --grid $G --set nodot
validate $P/t.lbt --grid $G --app $I/nope
validate $P/t.lbt --grid $G --app $P/notes.txt
validate $P/t.lbt --grid $G --mpiexec ''
validate $P/t.lbt --grid $G --results $P/notes.txt
validate $P/t.lbt --grid $G -o sim.steps=1:2
validate $P/t.lbt --grid $G --jsn
# ---- export simgrid
export simgrid $P/t.lbt --grid $G
export simgrid $P/t.lbt -o $W/d
export simgrid $P/t.lbt --grid $G -o
export simgrid $P/t.lbt --grid $G -o ''
export simgrid $P/t.lbt --grid $G -o $P/dir
export simgrid $P/t.lbt --grid $G -o $P/dir -f
export simgrid $P/t.lbt --grid $G -o $P/csv -f
export simgrid $P/t.lbt --grid $G -o $P/notes.txt -f
export simgrid $P/t.lbt --grid $G -o $P/fifo -f
export simgrid $P/t.lbt --grid $G -o /dev/null
export simgrid $P/t.lbt --grid $G -o $W/d --steps x
export simgrid $P/t.lbt --grid $G -o $W/d --steps 4:1
export simgrid $P/t.lbt --grid $G -o $W/d --policy nope
export simgrid $P/t.lbt --grid $G -o $W/d --partitioner nope
export simgrid $P/t.lbt --grid $G -o $W/d --envelope -1
export simgrid $P/t.lbt --grid $G -o $W/d --envelope abc
export simgrid $P/t.lbt --grid $G -o $W/d --set .k=1
export simgrid $P/t.lbt --grid $G -o $W/d --mode x
export simgrid $I/half.lbt --grid $G -o $W/d
export simgrid $I/text.lbt --grid $G -o $W/d
export simgrid $P/t.lbt --grid $I/badsect.ini -o $W/d
export simgrid $P/t.lbt --grid $G -o $W/d --csv $W/e
# ---- export vtk
export vtk $P/t.lbt --grid $G
export vtk $P/t.lbt --grid $G -o ''
export vtk $P/t.lbt --grid $G -o $P/dir -f
export vtk $P/t.lbt --grid $G -o $P/sd -f
export vtk $P/t.lbt --grid $G -o $P/notes.txt -f
export vtk $P/t.lbt --grid $G -o $P/fifo -f
export vtk $P/t.lbt --grid $G -o $W/d --time wall
export vtk $P/t.lbt --grid $G -o $W/d --every 0
export vtk $P/t.lbt --grid $G -o $W/d --every -1
export vtk $P/t.lbt --grid $G -o $W/d --every abc
export vtk $P/t.lbt --grid $G -o $W/d --every 1e999
export vtk $P/t.lbt --grid $G -o $W/d --steps 9:99
export vtk $P/t.lbt --grid $G -o $W/d --policy fixed:-1
export vtk $P/t.lbt --grid $G -o $W/d --set nodot
export vtk $I/flip.lbt --grid $G -o $W/d
# ---- export vt
export vt $P/t.lbt --grid $G
export vt $P/t.lbt --grid $G -o ''
export vt $P/t.lbt --grid $G -o $P/dir -f
export vt $P/t.lbt --grid $G -o $P/sd -f
export vt $P/t.lbt --grid $G -o $P/notes.txt -f
export vt $P/t.lbt --grid $G -o $P/fifo -f
export vt $P/t.lbt --grid $G -o /dev/null
export vt $P/t.lbt --grid $G -o $W/d --brotli=9
export vt $P/t.lbt --grid $G -o $W/d --every 2
export vt $P/t.lbt --grid $G -o $W/d --steps 9:99
export vt $P/t.lbt --grid $G -o $W/d --policy recorded
export vt $P/t.lbt --grid $G -o $W/d --metric nope
export vt $I/flip.lbt --grid $G -o $W/d
export vt $I/half.lbt --grid $G -o $W/d
export vtk $P/r.db --grid $G -o $W/d
export vtk $P/t.lbt --grid $I/nan_lat.ini -o $W/d
# ---- calibrate (all refused before measuring)
calibrate run
calibrate run --kernel nope -o $W/c.db
calibrate run --kernel sort
calibrate run --kernel sort -o ''
calibrate run --kernel sort --impl nope -o $W/c.db
calibrate run --kernel sort --invocations x -o $W/c.db
calibrate run --kernel sort --accuracy -1 -o $W/c.db
calibrate run --kernel sort --accuracy nan -o $W/c.db
calibrate run --kernel sort --accuracy abc -o $W/c.db
calibrate run --kernel sort --min-abs -1 -o $W/c.db
calibrate run --kernel sort --max-abs inf -o $W/c.db
calibrate run --kernel sort --range 10:1 -o $W/c.db
calibrate run --kernel sort --range a:b -o $W/c.db
calibrate run --kernel sort --range -1:5 -o $W/c.db
calibrate run --kernel sort --range 10:1 -o $P/c.db
calibrate run --kernel sort --threads 4097 -o $W/c.db
calibrate run --kernel sort --threads -2 -o $W/c.db
calibrate run --kernel sort --device -1 -o $W/c.db
calibrate run --kernel sort --timeout -1 -o $W/c.db
calibrate run --kernel sort --timeout 1e999 -o $W/c.db
calibrate run --kernel sort --max-samples 0 -o $W/c.db
calibrate run --kernel sort --repeat 0 -o $W/c.db
calibrate run --kernel sort --repeat 16 -o $W/c.db
calibrate run --kernel sort --confidence 2 -o $W/c.db
calibrate run --kernel sort --set-pct abc -o $W/c.db
calibrate run --kernel sort --seed x -o $W/c.db
calibrate run --kernel sort -o $P/t.lbt
calibrate run --kernel sort -o $P/notes.txt
calibrate run --kernel sort -o $P/r.db
calibrate run --kernel sort -o $P/dir
calibrate run --kernel sort -o $P/fifo
calibrate run --kernel sort --set sim.steps=1:2 -o $W/c.db
calibrate run --kernel sort -o $W/c.db extra
calibrate verify
calibrate verify $I/nope.db
calibrate verify $P/t.lbt
calibrate verify $P/notes.txt
calibrate verify $P/r.db
calibrate verify $P/fifo
calibrate verify $P/dir
calibrate verify $I/half.db
calibrate verify $I/empty.db
calibrate verify $P/c.db -n 0
calibrate verify $P/c.db -n -1
calibrate verify $P/c.db -n abc
calibrate verify $P/c.db --impl nope
calibrate verify $P/c.db --floor -1
calibrate show
calibrate show $I/nope.db
calibrate show $P/t.lbt
calibrate show $P/r.db
calibrate show $P/fifo
calibrate show $I/text.db
calibrate show $P/c.db --json --csv $W/d
calibrate show $P/c.db --csv $P/dir
calibrate show $P/c.db --csv $P/dir -f
calibrate show $P/c.db --csv $P/csv -f
calibrate show $P/c.db --csv $P/notes.txt -f
calibrate show $P/c.db --csv $P/fifo -f
calibrate show $P/c.db --csv ''
calibrate show $P/c.db -f
calibrate import
calibrate import $P/samples.csv
calibrate import $I/nope.csv -o $W/c.db
calibrate import $I/cols.csv -o $W/c.db
calibrate import $I/metric.csv -o $W/c.db
calibrate import $I/neg.csv -o $W/c.db
calibrate import $I/nan.csv -o $W/c.db
calibrate import $I/header.csv -o $W/c.db
calibrate import $I/binary.csv -o $W/c.db
calibrate import $P/fifo -o $W/c.db
calibrate import $P/dir -o $W/c.db
calibrate import /dev/null -o $W/c.db
calibrate import $P/samples.csv -o $P/t.lbt
calibrate import $P/samples.csv -o $P/notes.txt
calibrate import $P/samples.csv -o $P/r.db
calibrate import $P/samples.csv -o $P/fifo
calibrate import $P/samples.csv -o $P/dir
calibrate import $P/samples.csv -o ''
calibrate import $P/samples.csv -o $W/c.db --accuracy -5
calibrate import $P/samples.csv -o $W/c.db --accuracy nan
calibrate import $P/samples.csv -o $W/c.db --min-abs abc
calibrate list extra
calibrate list $P/c.db
calibrate list --bogus
calibrate plan
calibrate plan --kernel sort
calibrate plan --kernel nope -o $P/c.db
calibrate plan --kernel sort --node bogus=1 -o $P/c.db
calibrate plan --kernel sort --node threads=-1 -o $P/c.db
calibrate plan --kernel sort --node threads=abc -o $P/c.db
calibrate plan --kernel sort --range 0:0 -o $P/c.db
calibrate plan --kernel sort --range x -o $P/c.db
calibrate plan --kernel sort -o $I/nope.db
calibrate plan --kernel sort -o $P/t.lbt
calibrate plan --kernel sort -o $P/notes.txt
calibrate plan --kernel sort -o $P/fifo
calibrate plan --kernel sort -o ''
calibrate run-plan
calibrate run-plan $I/nope.db
calibrate run-plan $P/t.lbt
calibrate run-plan $P/fifo
calibrate run-plan $P/c.db --kernel nope
calibrate run-plan $P/c.db --work abc
calibrate run-plan $P/c.db --work -1
calibrate run-plan $P/c.db --work 1e999
calibrate run-plan $P/c.db --repeat 0
calibrate run-plan $P/c.db --repeat x
# ---- sweep
sweep
sweep $I/nope.ini
sweep $I/empty.ini
sweep $I/garbage.ini
sweep $I/long.ini
sweep $P/fifo
sweep $P/dir
sweep $P/t.lbt
sweep $P/r.db
sweep $I/study_pol.ini --results $W/s.db --csv $W/s
sweep $I/study_trace.ini --results $W/s.db --csv $W/s
sweep $I/study_gen.ini --results $W/s.db --csv $W/s
sweep $I/study_key.ini --results $W/s.db --csv $W/s
sweep $I/study_empty.ini --results $W/s.db --csv $W/s
sweep $I/study_ovr.ini --results $W/s.db --csv $W/s
sweep $I/study_half.ini --results $W/s.db --csv $W/s
sweep $P/study.ini --results $P/t.lbt --csv $W/s
sweep $P/study.ini --results $P/notes.txt --csv $W/s
sweep $P/study.ini --results $P/fifo --csv $W/s
sweep $P/study.ini --results $P/dir --csv $W/s
sweep $P/study.ini --results $W/s.db --csv $P/notes.txt
sweep $P/study.ini --results $W/s.db --csv $P/notes.txt -f
sweep $P/study.ini --results $W/s.db --csv $P/t.lbt -f
sweep $P/study.ini --results $W/s.db --csv $P/fifo -f
sweep $P/study.ini --results $W/s.db --csv $P/dir -f
sweep $P/study.ini --results $W/s.db --csv $P/dir/a.txt -f
sweep $P/study.ini --results $W/s.db --csv $P/csv -f
sweep $P/study.ini --results $W/s.db --csv $P/sd -f
sweep $P/study.ini --results $P/r.db --csv $P/r.db -f
sweep $P/study.ini --results $P/r.db --csv $P -f
sweep $P/study.ini --results $W/s.db --csv
sweep $P/study.ini --results $W/s.db --csv $W/a --csv $W/b
sweep $P/study.ini --results $W/s.db --csv ''
sweep $P/study.ini --results '' --csv $W/s
sweep $P/study.ini --results $W/s.db --csv $W/s --json
sweep $P/study.ini --results $W/s.db --csv $W/s --set sim.steps=1:2
sweep $P/study.ini $P/study.ini
sweep $P/study.ini --dry-run extra
sweep $P/study.ini --results $W/a.db --results $W/b.db
# ---- results
results
results $I/nope.db
results $P/t.lbt
results $P/notes.txt
results $P/c.db
results $P/fifo
results $P/dir
results $I/half.db
results $I/empty.db
results $I/text.db
results $I/trace.db
results /dev/null
results $P/r.db --study nope
results $P/r.db --study ''
results $P/r.db --json --csv $W/d
results $P/r.db --csv
results $P/r.db --csv ''
results $P/r.db --csv $P/dir
results $P/r.db --csv $P/dir -f
results $P/r.db --csv $P/csv -f
results $P/r.db --csv $P/sd -f
results $P/r.db --csv $P/notes.txt -f
results $P/r.db --csv $P/fifo -f
results $P/r.db -f
results $P/r.db --json -f
results $P/r.db $P/r.db
results $P/r.db -o $W/x
# ---- report
report
report $P/r.db
report $P/r.db -o ''
report $P/r.db -o $P/notes.txt
report $P/r.db -o $P/notes.txt -f
report $P/r.db -o $P/t.lbt -f
report $P/r.db -o $P/r.db -f
report $P/r.db -o $P/dir -f
report $P/r.db -o $P/fifo -f
report $P/r.db -o /dev/full -f
report $P/r.db -o $P/link.txt -f
report $I/nope.db -o $W/r.html
report $P/t.lbt -o $W/r.html
report $P/notes.txt -o $W/r.html
report $P/c.db -o $W/r.html
report $I/half.db -o $W/r.html
report $P/fifo -o $W/r.html
report $P/dir -o $W/r.html
report $P/r.db -o $W/r.html --max-cells 5
report $P/r.db -o $W/r.html --max-cells -1
report $P/r.db -o $W/r.html --max-cells abc
report $P/r.db -o $W/r.html --max-points 0
report $P/r.db -o $W/r.html --max-points 1e999
report $P/r.db -o $W/r.html --study nope
report $P/r.db -o $W/r.html --title
report $P/r.db -o $W/r.html --json
report $P/r.db -o $W/r.html extra
report $P/r.db -o $W/a.html -o $W/b.html
# ---- pipeline
pipeline
pipeline $I/nope.ini
pipeline $I/empty.ini
pipeline $I/garbage.ini
pipeline $I/long.ini
pipeline $I/pipe_jobs.ini
pipeline $I/pipe_nan.ini
pipeline $I/pipe_sec.ini
pipeline $I/pipe_nomap.ini
pipeline $G
pipeline $P/t.lbt
pipeline $P/fifo
pipeline $P/dir
pipeline $P/pipe.ini --mappings nope
pipeline $P/pipe.ini --mappings ''
pipeline $P/pipe.ini --mappings ,
pipeline $P/pipe.ini --json --csv
pipeline $P/pipe.ini --csv
pipeline $P/pipe.ini --csv -o $W/p.csv
pipeline $P/pipe.ini --csv --json
pipeline $P/pipe.ini --csv ''
pipeline $P/pipe.ini --csv $P/dir
pipeline $P/pipe.ini --csv $P/dir -f
pipeline $P/pipe.ini --csv $P/csv -f
pipeline $P/pipe.ini --csv $P/sd -f
pipeline $P/pipe.ini --csv $P/notes.txt -f
pipeline $P/pipe.ini --csv $P/fifo -f
pipeline $P/pipe.ini --csv $P/link.txt -f
pipeline $P/pipe.ini --csv $W/a --csv $W/b
pipeline $P/pipe.ini --csv $W/nodir/d
pipeline $P/pipe.ini -f
pipeline $P/pipe.ini --set nodot
pipeline $P/pipe.ini --set pipeline.jobs=abc
pipeline $P/pipe.ini --set pipeline.jobs=-1
pipeline $P/pipe.ini --set pipeline.jobs=1e999
pipeline $P/pipe.ini --set 'mapping nope.AVG=cpu0'
pipeline $P/pipe.ini -o $P/notes.txt
pipeline $P/pipe.ini -o $P/notes.txt -f
pipeline $P/pipe.ini -o $P/pipe.ini -f
pipeline $P/pipe.ini -o $P/fifo -f
pipeline $P/pipe.ini -o $P/dir -f
pipeline $P/pipe.ini -o /dev/full -f
pipeline $P/pipe.ini -o sim.steps=1:2
pipeline $P/pipe.ini $P/pipe.ini
pipeline $P/pipe.ini --output $W/a.txt -o $W/b.txt
# ---- collect (all refused before listening)
collect
collect -o $W/c.lbt
collect --listen unix:$W/c.sock
collect --listen bogus:x -o $W/c.lbt
collect --listen '' -o $W/c.lbt
collect --listen tcp:127.0.0.1:99999 -o $W/c.lbt
collect --listen tcp:127.0.0.1:-1 -o $W/c.lbt
collect --listen tcp:127.0.0.1:http -o $W/c.lbt
collect --listen tcp: -o $W/c.lbt
collect --listen unix: -o $W/c.lbt
collect --listen unix:$P/notes.txt -o $W/c.lbt
collect --listen unix:$P/fifo -o $W/c.lbt
collect --listen unix:$P/dir -o $W/c.lbt
collect --listen unix:$P/t.lbt -o $W/c.lbt
collect --listen unix:$W/nodir/c.sock -o $W/c.lbt
collect --listen unix:$W/c.sock -o $P/t.lbt
collect --listen unix:$W/c.sock -o $P/notes.txt -f
collect --listen unix:$W/c.sock -o $P/fifo -f
collect --listen unix:$W/c.sock -o $P/dir -f
collect --listen unix:$W/c.sock -o ''
collect --listen unix:$W/c.sock -o $W/c.lbt --nodes 0
collect --listen unix:$W/c.sock -o $W/c.lbt --nodes -1
collect --listen unix:$W/c.sock -o $W/c.lbt --nodes abc
collect --listen unix:$W/c.sock -o $W/c.lbt --token-file $P/fifo
collect --listen unix:$W/c.sock -o $W/c.lbt --token-file $P/dir
collect --listen unix:$W/c.sock -o $W/c.lbt --token-file $I/empty.db
collect --listen unix:$W/c.sock -o $W/c.lbt extra
# ---- help
help --bogus
help trace gen extra
help calibrate nope
calibrate nope --help
grid
help export nope
EOF
# what a command may write is under $T: nothing new in the source tree (its build directories
# aside, where the test suites running beside this one write their logs)
new=$(find "$SRC" -path "$SRC/build*" -prune -o -path "$SRC/.git" -prune -o -newer "$T/stamp" -print 2>/dev/null | head -5)
[ -z "$new" ] && ok || { harms=$((harms + 1)); bad "harm: new or changed in the source tree: $new"; }
# the watcher ends with its input; waited for, it does not outlive the test (and its CPU time
# counts among the test's)
watcher=${WATCH_PID:-}
if [ -n "$watcher" ]; then eval "exec ${WATCH[1]}>&-" && wait "$watcher"; fi
echo "crashes $crashes, hangs $hangs, harms $harms, losses $losses, accepted $accepted of $n commands"
[ "$n" -ge 300 ] && ok || bad "only $n commands"
finish

# KNOWN, not fixed yet (not run, not asserted): none.
# Tried and left out, as not wrong by the grammar (docs/cli.md):
#   trace gen ... -o sim.steps=1:2     writes a file of that name: trace gen and grid gen take no
#                                      --set, and only commands that read a configuration refuse
#                                      -o KEY=VALUE
#   policy compare ... --json --csv D  both written: its usage does not make them exclusive (as
#                                      results' and calibrate show's do, and those refuse it)
#   grid info G --set '+cluster main.nodes=4'   sets the key of the existing section ('+' may add)
#   calibrate run --threads 0, --timeout 0      taken as the defaults (online CPUs, no limit) and
#                                      measure: the ranges in the code start at 0
#   a trace cut short by less than a page (SQLite's): every value is still there and checks
