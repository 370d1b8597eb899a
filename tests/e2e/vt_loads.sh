#!/usr/bin/env bash
# A vt data set (bench/vt_gen.py: 4 ranks x 2000 tasks x 10 phases, migrations, SendRecv) imported
# and replayed with its own recorded nodes: at every phase, each processor's compute in the replay
# (results store, table procs) is the sum of the times of the tasks on that rank, and the phase's
# maximum the largest such sum, computed by vt_loads_check.py from the JSON itself.
# usage: vt_loads.sh lbsim source-dir
set -u
LBSIM=${1:?usage: vt_loads.sh lbsim source-dir}
SRC=${2:?}
PY=/usr/bin/python3
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
"$PY" "$SRC/bench/vt_gen.py" "$T/vt" 4 2000 10 >/dev/null && ok || bad "vt_gen"
expect 0 "import" -- "$LBSIM" trace import --vt "$T/vt" --bound lossless -o "$T/t.lbt"
expect 0 "replay recorded" -- "$LBSIM" replay "$T/t.lbt" --grid "$SRC/examples/grids/homogeneous16.ini" \
  --policy recorded --results "$T/r.db"
if "$PY" "$(dirname "$0")/vt_loads_check.py" "$T/vt" "$T/r.db" >"$T/check" 2>&1; then ok; else bad "$(cat "$T/check")"; fi
cat "$T/check"
grep -q "compared 160 rank loads and 10 phase maxima" "$T/check" && ok || bad "compared what it should"
finish
