#!/usr/bin/env bash
# bench/zoltan_files.sh - the cost of `trace import --zoltan-files` (issue 32, item 4) against its
# baseline, the same graph and coordinates through `trace import --chaco`, side by side in one run.
# An N x N grid (a Chaco graph with coordinates, made here) goes through real Zoltan
# (tests/traces/zoltan_genfiles.c on 2 ranks: 3 object weights, 1 edge weight, a part each);
# each import then runs REPS times, alternating, and the median wall and CPU (user + system)
# time of each is printed: on a shared machine the CPU time is the steadier figure, and the wall
# time holds the waits for the disk (each transaction of the trace is synced).
# The difference is what --zoltan-files adds: the .assign file, the owners array in the trace,
# and the check of every word's form (a weight has a decimal point, a vertex number none).
# usage: bench/zoltan_files.sh [BUILD_DIR [N [REPS]]]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
N=${2:-300}
REPS=${3:-5}
T=$(mktemp -d /tmp/lbs_zfiles_XXXXXX)
trap 'rm -rf "$T"' EXIT
export LBSIM_NO_PROGRESS=1
python3 - "$N" "$T/grid" <<'PY'
import sys
n, base = int(sys.argv[1]), sys.argv[2]
with open(base + ".graph", "w") as g, open(base + ".coords", "w") as c:
    g.write("%d %d\n" % (n * n, 2 * n * (n - 1)))
    for j in range(n):
        for i in range(n):
            v = j * n + i + 1
            nb = [v - n] * (j > 0) + [v - 1] * (i > 0) + [v + 1] * (i < n - 1) + [v + n] * (j < n - 1)
            g.write(" ".join(map(str, nb)) + "\n")
            c.write("%d %d\n" % (i, j))
PY
mpiexec --allow-run-as-root --oversubscribe -n 2 "$B/bin/zoltan_genfiles" "$T/grid.graph" "$T/grid.coords" \
  "$T/z" </dev/null
echo "bench/zoltan_files: ${N}x${N} grid, $((N * N)) vertices; Zoltan's files: $(du -ch "$T"/z.graph "$T"/z.coords "$T"/z.assign | tail -1 | cut -f1)"
run() { # one import: "wall cpu" in seconds, appended to file $1
  local out=$1
  shift
  /usr/bin/time -f '%e %U %S' -o "$T/time" "$@" >/dev/null 2>&1
  awk '{print $1, $2 + $3}' "$T/time" >>"$out"
}
: >"$T/chaco.t"
: >"$T/zoltan.t"
for r in $(seq "$REPS"); do
  run "$T/chaco.t" "$B/bin/lbsim" trace import --chaco "$T/z.graph" --coords "$T/z.coords" -f -o "$T/c.lbt"
  run "$T/zoltan.t" "$B/bin/lbsim" trace import --zoltan-files "$T/z" -f -o "$T/z.lbt"
done
med() { cut -d' ' -f"$2" "$1" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
printf '%-34s %13s %12s %12s\n' import "median wall s" "median cpu s" "trace bytes"
for k in chaco zoltan; do
  if [ $k = chaco ]; then what="--chaco z.graph --coords z.coords" f=c.lbt; else what="--zoltan-files z" f=z.lbt; fi
  printf '%-34s %13.3f %12.3f %12d\n' "$what" "$(med "$T/$k.t" 1)" "$(med "$T/$k.t" 2)" "$(stat -c %s "$T/$f")"
done
