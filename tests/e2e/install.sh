#!/usr/bin/env bash
# make install's products as an application sees them: the examples/instrumented program
# built against the installed library with find_package(lbsim) and with pkg-config, run on
# 2 ranks, and the lbsim command from the install tree reading the traces.
set -u
BUILD=${1:?usage: install.sh build-dir source-dir}
SRC=${2:?usage: install.sh build-dir source-dir}
T=$(mktemp -d /tmp/lbs_install_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
MPI=(mpiexec --allow-run-as-root --oversubscribe)
P=$T/prefix
expect 0 "cmake --install" -- cmake --install "$BUILD" --prefix "$P"
for f in bin/lbsim libexec/lbsim/lbsprof-agent include/lbsprof.h lib/liblbsprof.so lib/cmake/lbsim/lbsimConfig.cmake \
         lib/pkgconfig/lbsprof.pc; do
  [ -e "$P/$f" ] && ok || bad "installed $f"
done
cp "$SRC/examples/instrumented/"{heat.c,CMakeLists.txt,Makefile} "$T/"
# with CMake
expect 0 "configure with find_package(lbsim)" -- cmake -S "$T" -B "$T/b" -DCMAKE_PREFIX_PATH="$P"
expect 0 "build with CMake" -- cmake --build "$T/b"
expect 0 "run (CMake build)" -- "${MPI[@]}" -n 2 "$T/b/heat" "$T/cmake.lbt" 32 4
has "$T/out" "(complete)" "complete trace"
expect 0 "installed lbsim reads it" -- "$P/bin/lbsim" trace check "$T/cmake.lbt"
# with pkg-config: lbsprof.pc finds its prefix from where it lies (installed here, not where
# CMake was configured to install)
expect 0 "pkg-config prefix" -- env PKG_CONFIG_PATH="$P/lib/pkgconfig" pkg-config --variable=libdir lbsprof
[ "$(readlink -f "$(cat "$T/out")")" = "$(readlink -f "$P/lib")" ] && ok || bad "pkg-config libdir $(cat "$T/out") is not $P/lib"
expect 0 "build with pkg-config" -- env PKG_CONFIG_PATH="$P/lib/pkgconfig" make -C "$T" heat
expect 0 "run (pkg-config build)" -- "${MPI[@]}" -n 2 "$T/heat" "$T/pc.lbt" 32 4
expect 0 "pkg-config trace" -- "$P/bin/lbsim" trace info "$T/pc.lbt" --json
has "$T/out" '"steps":4' "four steps"
# the refined disc costs more: median time inside over outside, over every step (medians: one
# preempted element can cost 10,000 x the median, and a loaded machine preempts often)
"$P/bin/lbsim" trace export "$T/pc.lbt" --csv "$T/csv" >/dev/null 2>&1
python3 - "$T/csv/steps.csv" <<'PY' && ok || bad "refined cells cost more"
import csv, sys, statistics
ins, out = [], []
for r in csv.DictReader(open(sys.argv[1])):
    e = int(r["element"]); x, y = e % 32, e // 32
    (ins if (x / 32 - .5) ** 2 + (y / 32 - .5) ** 2 < .04 else out).append(float(r["time_ns"]))
ratio = statistics.median(ins) / statistics.median(out)
print("inside/outside", ratio)
assert ratio > 4, ratio
PY
finish
