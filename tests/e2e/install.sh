#!/usr/bin/env bash
# make install's products as an application sees them: the examples/instrumented program
# built against the installed library with find_package(lbsim) and with pkg-config, run on
# 2 ranks, and the lbsim command from the install tree reading the traces; the example
# plug-in (examples/plugins/) built both ways and loaded by the installed lbsim, and the
# plug-ins it refuses (a truncated one included, before dlopen maps it).
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
         lib/pkgconfig/lbsprof.pc include/lbsim/lbsim_plugin.h include/lbsim/lbs_policy.h include/lbsim/lbs_part.h \
         include/lbsim/lbs_core.h include/lbsim/lbs_config.h lib/pkgconfig/lbsim-plugin.pc; do
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

# plug-ins: examples/plugins/ahead.c (the policy ahead:T) with find_package(lbsim) and pkg-config
PL=$T/plugins
mkdir -p "$PL"
cp "$SRC/examples/plugins/"{ahead.c,CMakeLists.txt,Makefile} "$PL/"
expect 0 "plug-in: configure with find_package(lbsim)" -- cmake -S "$PL" -B "$PL/b" -DCMAKE_PREFIX_PATH="$P"
expect 0 "plug-in: build with CMake" -- cmake --build "$PL/b"
expect 0 "plug-in: build with pkg-config" -- env PKG_CONFIG_PATH="$P/lib/pkgconfig" make -C "$PL" libahead.so
expect 0 "trace for the plug-in" -- "$P/bin/lbsim" trace gen --kind bump --mesh 20x20x10 --steps 30 -o "$T/bump.lbt"
G=$SRC/examples/grids/homogeneous16.ini
# policies[i].repartitions of a policy compare --json in $T/out, as "policy=N ..."
reparts() { python3 -c 'import json, sys
print(" ".join("%s=%d" % (p["policy"], p["repartitions"]) for p in json.load(open(sys.argv[1]))["policies"]))' "$T/out"; }
for so in "$PL/b/libahead.so" "$PL/libahead.so"; do
  expect 0 "plug-in $so: policy compare" -- "$P/bin/lbsim" --plugin "$so" policy compare "$T/bump.lbt" --grid "$G" \
    --policies ahead:0.2,none --json
  r=$(reparts)
  # ahead:0.2 repartitions before the steps whose imbalance exceeds 0.2 (the bump's is ~0.5)
  [[ $r =~ ^ahead:0.2=([0-9]+)\ none=0$ ]] && [ "${BASH_REMATCH[1]}" -gt 0 ] && ok || bad "plug-in $so: repartitions: $r"
done
# its argument reaches it: no step is that imbalanced; LBSIM_PLUGIN_PATH (empty entries skipped)
expect 0 "LBSIM_PLUGIN_PATH" -- env LBSIM_PLUGIN_PATH=":$PL/libahead.so:" "$P/bin/lbsim" policy compare "$T/bump.lbt" \
  --grid "$G" --policies ahead:0.99,none --json
[ "$(reparts)" = "ahead:0.99=0 none=0" ] && ok || bad "LBSIM_PLUGIN_PATH: repartitions: $(reparts)"
expect 0 "replay --help lists it" -- "$P/bin/lbsim" --plugin "$PL/libahead.so" replay --help
has "$T/out" ", ahead:T" "ahead in replay --help"
expect 1 "a bad argument" -- "$P/bin/lbsim" --plugin "$PL/libahead.so" policy compare "$T/bump.lbt" --grid "$G" \
  --policies ahead:2
has "$T/err" "T must be an imbalance between 0 and 1 (got '2')" "the plug-in's own message"
# the same file twice (the environment and the option) is loaded once
expect 0 "the same plug-in twice" -- env LBSIM_PLUGIN_PATH="$PL/libahead.so" "$P/bin/lbsim" --plugin "$PL/libahead.so" \
  replay --help
# a partitioner plug-in: stripes puts element e on processor e mod P
cat >"$PL/stripes.c" <<'C'
#include <lbsim_plugin.h>
static lbs_err create(void **s, const char *a, const lbs_config *c, MPI_Comm comm) {
  (void)c, (void)comm;
  *s = NULL;
  return *a ? lbs_fail(LBS_INVAL, "stripes takes no method (got '%s')", a) : LBS_OK;
}
static int no(const void *s) { (void)s; return 0; }
static lbs_err partition(void *s, const lbs_part_input *in, int *newpart) {
  (void)s;
  for (int64_t i = 0; i < in->nlocal; i++) newpart[i] = (int)(in->gid[i] % in->nparts);
  return LBS_OK;
}
static const lbs_partitioner_ops stripes = {.abi = LBS_PART_ABI, .name = "stripes", .create = create,
                                            .needs_graph = no, .needs_coords = no, .partition = partition};
static const lbs_partitioner_ops *const parts[] = {&stripes, NULL};
static const lbsim_plugin p = {.abi = LBSIM_PLUGIN_ABI, .name = "stripes", .partitioners = parts};
const lbsim_plugin *lbsim_plugin_entry(void) { return &p; }
C
CF=$(env PKG_CONFIG_PATH="$P/lib/pkgconfig" pkg-config --cflags lbsim-plugin)
expect 0 "build stripes.so" -- mpicc -Wall -Wextra -Werror -shared -fPIC -o "$PL/stripes.so" "$PL/stripes.c" $CF
expect 0 "partition with a plug-in's partitioner" -- "$P/bin/lbsim" --plugin "$PL/stripes.so" partition "$T/bump.lbt" \
  --grid "$G" --partitioner stripes --json
# from equal blocks of 250 ids on 16 processors, element e stays only where e mod 16 = e / 250
python3 - "$T/out" <<'PY' && ok || bad "stripes' partition: $(head -c 300 "$T/out")"
import json, sys
r, = json.load(open(sys.argv[1]))  # an array, of one partitioner here
want = sum(1 for e in range(4000) if e % 16 != e // 250)
assert r["partitioner"] == "stripes" and r["moved_elements"] == want, (r["moved_elements"], want)
PY
expect 1 "a partitioner plug-in's own message" -- "$P/bin/lbsim" --plugin "$PL/stripes.so" partition "$T/bump.lbt" \
  --grid "$G" --partitioner stripes:x
has "$T/err" "stripes takes no method (got 'x')" "stripes' message"
expect 0 "partition --help lists it" -- "$P/bin/lbsim" --plugin "$PL/stripes.so" partition --help
has "$T/out" ", stripes (default" "stripes in partition --help"
# what it refuses: each 'lbsim: plugin PATH: why', exit 1
cat >"$PL/old.c" <<'C'
#include <lbsim_plugin.h>
static const lbsim_plugin p = {.abi = 999, .name = "old"};
const lbsim_plugin *lbsim_plugin_entry(void) { return &p; }
C
cat >"$PL/clash.c" <<'C'
#include <lbsim_plugin.h>
static lbs_err init(void **s, const char *a) { (void)a; *s = NULL; return LBS_OK; }
static lbs_err decide(void *s, const lbs_loadview *v, int *r) { (void)s; (void)v; *r = 0; return LBS_OK; }
static const lbs_policy_ops threshold = {.abi = LBS_POLICY_ABI, .name = "threshold", .usage = "threshold",
                                         .init = init, .decide = decide};
static const lbs_policy_ops *const pol[] = {&threshold, NULL};
static const lbsim_plugin p = {.abi = LBSIM_PLUGIN_ABI, .name = "clash", .policies = pol};
const lbsim_plugin *lbsim_plugin_entry(void) { return &p; }
C
cat >"$PL/oldpolicy.c" <<'C'
#include <lbsim_plugin.h>
static const lbs_policy_ops old = {.abi = 999, .name = "old", .usage = "old"};
static const lbs_policy_ops *const pol[] = {&old, NULL};
static const lbsim_plugin p = {.abi = LBSIM_PLUGIN_ABI, .name = "oldpolicy", .policies = pol};
const lbsim_plugin *lbsim_plugin_entry(void) { return &p; }
C
echo 'int not_a_plugin;' >"$PL/noentry.c"
for c in old oldpolicy clash noentry; do
  expect 0 "build $c.so" -- mpicc -Wall -Wextra -Werror -shared -fPIC -o "$PL/$c.so" "$PL/$c.c" $CF
done
head -c 4096 /dev/zero | tr '\0' x >"$PL/text.so"
refused() { # SO WHY: lbsim --plugin SO exits 1 with 'lbsim: plugin SO: WHY'
  expect 1 "plug-in $1" -- "$P/bin/lbsim" --plugin "$1" trace --help
  has "$T/err" "lbsim: plugin $1: $2" "plug-in $1's message"
}
refused "$PL/missing.so" "No such file or directory"
refused "$PL/text.so" "truncated or not a shared object: invalid ELF header"
# a truncated plug-in is refused before dlopen maps it (a SIGBUS in every command before)
head -c 5000 "$PL/libahead.so" >"$PL/cut.so"
refused "$PL/cut.so" "truncated or not a shared object: 5000 bytes, its section headers end at byte"
expect 1 "a truncated plug-in with --version" -- "$P/bin/lbsim" --plugin "$PL/cut.so" --version
has "$T/err" "lbsim: plugin $PL/cut.so: truncated or not a shared object: 5000 bytes" "--version's message"
expect 1 "a truncated plug-in in LBSIM_PLUGIN_PATH" -- env LBSIM_PLUGIN_PATH="$PL/cut.so" "$P/bin/lbsim" --version
has "$T/err" "lbsim: plugin $PL/cut.so: truncated or not a shared object: 5000 bytes" "LBSIM_PLUGIN_PATH's truncated message"
refused "$PL/noentry.so" "no function lbsim_plugin_entry: not an lbsim plug-in"
refused "$PL/old.so" "built against plug-in ABI 999, this lbsim has 2: rebuild it"
refused "$PL/oldpolicy.so" "policy 'old' built against policy ABI 999, this lbsim has 3: rebuild it"
refused "$PL/clash.so" "policy 'threshold' is a built-in's name: rename it"
expect 1 "two plug-ins with one name" -- "$P/bin/lbsim" --plugin "$PL/libahead.so" --plugin "$PL/b/libahead.so" trace --help
has "$T/err" "lbsim: plugin $PL/b/libahead.so: policy 'ahead' is plug-in $PL/libahead.so's too: rename one" "clash message"
expect 1 "LBSIM_PLUGIN_PATH refused too" -- env LBSIM_PLUGIN_PATH="$PL/old.so" "$P/bin/lbsim" trace --help
has "$T/err" "lbsim: plugin $PL/old.so: built against" "LBSIM_PLUGIN_PATH's message"
expect 2 "--plugin without a path" -- "$P/bin/lbsim" --plugin
finish
