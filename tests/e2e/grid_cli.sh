#!/usr/bin/env bash
# End-to-end checks of `lbsim grid` as a user runs it.
set -u
LBSIM=${1:?usage: grid_cli.sh path/to/lbsim}
SRC=${2:?usage: grid_cli.sh path/to/lbsim source-dir}
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

expect 0 "grid --help" -- "$LBSIM" grid --help
expect 0 "grid --help-config" -- "$LBSIM" grid --help-config
has "$T/out" "bandwidth_gbps" "help-config lists keys"
has "$T/out" "sharing            fair" "help-config: the network's sharing, fair by default"
has "$T/out" "nic_gbps" "help-config: NICs"
has "$T/out" "linear: relative speed" "help-config: a speed model's keys, under its name"
has "$T/out" "how work becomes time (linear" "help-config: the speed models"
expect 0 "info two_sites" -- "$LBSIM" grid info "$SRC/examples/grids/two_sites.ini" --json
has "$T/out" '"procs":32' "processor count"
has "$T/out" '"latency_ns":5000000' "link latency"
expect 0 "override" -- "$LBSIM" grid info "$SRC/examples/grids/two_sites.ini" --set "cluster siteB.nodes=4" --json
has "$T/out" '"procs":20' "override applied"
# An override cannot invent a platform: a misspelt cluster is an error, '+' adds one.
expect 1 "override of a missing cluster" -- "$LBSIM" grid info "$SRC/examples/grids/two_sites.ini" --set "cluster SiteB.nodes=4"
has "$T/err" "there is no [cluster SiteB] (known: [cluster siteA], [cluster siteB]); '+cluster SiteB.nodes=4' adds one" \
  "names the known clusters and the explicit form"
expect 0 "an added cluster" -- "$LBSIM" grid info "$SRC/examples/grids/two_sites.ini" --set "+cluster siteC.nodes=4" \
  --set "+cluster siteC.nodetype=fast" --json
has "$T/out" '"procs":40' "the added cluster's processors (4 nodes of 2 cores)"
has "$T/out" '"name":"siteC"' "the added cluster"
printf '[cluster a]\nnodes = 2\n[cluster b]\nnodes = 2\n[link a b]\nlatency_us = 5\nbandwidth_gbps = 1\n[link b a]\nlatency_us = 9\nbandwidth_gbps = 1\n' >"$T/twolinks.ini"
expect 1 "a link given both ways" -- "$LBSIM" grid info "$T/twolinks.ini"
has "$T/err" "$T/twolinks.ini:8: [link b a] is [link a b] ($T/twolinks.ini:5) again, the other way round; give one" \
  "names both links"
expect 0 "network keys" -- "$LBSIM" grid info "$SRC/examples/grids/two_sites.ini" --set grid.sharing=fifo --set grid.barrier_us=3 \
  --set "nodetype fast.nic_gbps=25" --json
has "$T/out" '"sharing":"fifo","barrier_ns":3000' "sharing and barrier shown"
has "$T/out" '"nic_gbps":25}' "NIC shown"
expect 1 "bad sharing" -- "$LBSIM" grid info "$SRC/examples/grids/two_sites.ini" --set grid.sharing=maxmin
has "$T/err" "sharing = 'maxmin' must be fair or fifo" "sharing message"
printf '[cluster A]\nnodes = 4\nbandwith_gbps = 10\n' >"$T/typo.ini"
expect 1 "unknown key" -- "$LBSIM" grid info "$T/typo.ini"
has "$T/err" "lbsim: grid info: $T/typo.ini:3: unknown key 'bandwith_gbps' in [cluster] (did you mean 'bandwidth_gbps'?)" "typo message"
printf '[nodetype n]\nspeed_model = linaer\n[cluster A]\nnodes = 1\nnodetype = n\n' >"$T/model.ini"
expect 1 "unknown speed model" -- "$LBSIM" grid info "$T/model.ini"
has "$T/err" "$T/model.ini:2: unknown speed_model 'linaer' (known: linear" "speed model message"
has "$T/err" "did you mean 'linear'?" "closest speed model"
printf '[grid]\nname = x\n' >"$T/none.ini"
expect 1 "no processors" -- "$LBSIM" grid info "$T/none.ini"
has "$T/err" "no [cluster NAME] section" "no cluster message"
printf '[cluster A]\nnodes = 4\nbandwidth_gbps = 0\n' >"$T/zero.ini"
expect 1 "zero bandwidth" -- "$LBSIM" grid info "$T/zero.ini"
has "$T/err" "$T/zero.ini:3: bandwidth_gbps = 0 is outside" "zero bandwidth message"
expect 1 "missing file" -- "$LBSIM" grid info "$T/nope.ini"
has "$T/err" "cannot open" "missing file message"
expect 2 "bad override" -- "$LBSIM" grid info "$SRC/examples/grids/two_sites.ini" --set nodes=3
has "$T/err" "SECTION.KEY=VALUE" "override message"

# the sections a replay reads are checked as a replay checks them, with its message: [sim],
# [minex] (whichever partitioner runs), [zoltan]'s keys that lbsim sets itself
expect 0 "a trace" -- "$LBSIM" trace gen --kind bump --mesh 8x6x4 --steps 4 -o "$T/b.lbt"
printf '[cluster A]\nnodes = 4\n[sim]\nsteps = abc\n' >"$T/sim.ini"
printf '[cluster A]\nnodes = 4\n[minex]\nthrotle = 0.5\n' >"$T/minex.ini"
printf '[cluster A]\nnodes = 4\n[minex]\npasses = many\n' >"$T/minex2.ini"
printf '[cluster A]\nnodes = 4\n[zoltan]\nLB_METHOD = BLOCK\n' >"$T/zoltan.ini"
for f in sim minex minex2 zoltan; do
  expect 1 "replay, a bad [$f]" -- "$LBSIM" replay "$T/b.lbt" --grid "$T/$f.ini" --partitioner minex
  sed 's/^lbsim: replay: /lbsim: grid info: /' "$T/err" >"$T/replay.err"
  expect 1 "grid info, a bad [$f]" -- "$LBSIM" grid info "$T/$f.ini"
  cmp -s "$T/err" "$T/replay.err" && ok || bad "grid info's message is not replay's: $(cat "$T/err") / $(cat "$T/replay.err")"
  has "$T/err" "lbsim: grid info: $T/$f.ini:4: " "$f: the file and line"
done
has "$T/err" "[zoltan] LB_METHOD is set by lbsim" "zoltan message"
expect 1 "grid info, [zoltan] by --set" -- "$LBSIM" grid info "$SRC/examples/grids/two_sites.ini" --set zoltan.OBJ_WEIGHT_DIM=3
has "$T/err" "(command line): [zoltan] OBJ_WEIGHT_DIM is set by lbsim" "--set zoltan message"
expect 0 "grid info, keys a replay takes" -- "$LBSIM" grid info "$SRC/examples/grids/two_sites.ini" --set sim.steps=0:2 \
  --set minex.passes=3 --set zoltan.IMBALANCE_TOL=1.2

# speed_model = roofline: a described node (a CPU and a GPU) beside linear cores
R=$SRC/examples/grids/roofline.ini
expect 0 "help-config: roofline keys" -- "$LBSIM" grid --help-config
has "$T/out" "roofline: the CPU's peak, GFLOP/s" "help-config lists the roofline keys"
has "$T/out" "how work becomes time (linear, ipg" "help-config: the speed models"
expect 0 "info roofline" -- "$LBSIM" grid info "$R" --json
has "$T/out" '"nodetype":"core","speed":1,' "linear cores"
has "$T/out" '"nodetype":"fat","speed":10.25,' "fat node: (Fc + Fg) / flops_per_work = 2.05 units/ns, x 5 ns per work"
expect 0 "info roofline text" -- "$LBSIM" grid info "$R"
has "$T/out" "fat          8..9        fat" "fat cluster listed"
rl() { printf '[nodetype r]\nspeed_model = roofline\n%b[cluster A]\nnodes = 1\nnodetype = r\n' "$1" >"$T/rl.ini"; }
rl 'roofline_cpu_gflops = 50\nroofline_cpu_gbytes_per_s = 20\nroofline_flops_per_work = 10\nroofline_bytes_per_work = 1\n'
expect 0 "roofline without a GPU" -- "$LBSIM" grid info "$T/rl.ini" --json
has "$T/out" '"speed":5,' "the CPU's roofline: 10 flops at 50 GFLOP/s, 1 ns per work at speed 1"
rl 'roofline_cpu_gflops = 0\nroofline_cpu_gbytes_per_s = 20\nroofline_flops_per_work = 1\n'
expect 1 "roofline: zero peak" -- "$LBSIM" grid info "$T/rl.ini"
has "$T/err" "lbsim: grid info: $T/rl.ini:3: [nodetype r] roofline_cpu_gflops = 0: the CPU's peak GFLOP/s must be > 0" "zero peak message"
rl 'roofline_cpu_gflops = 50\nroofline_cpu_gbytes_per_s = -3\nroofline_flops_per_work = 1\n'
expect 1 "roofline: negative bandwidth" -- "$LBSIM" grid info "$T/rl.ini"
has "$T/err" "$T/rl.ini:4: roofline_cpu_gbytes_per_s = -3 is outside [0, 1e+12]" "negative bandwidth message"
rl 'roofline_cpu_gflops = inf\nroofline_cpu_gbytes_per_s = 20\nroofline_flops_per_work = 1\n'
expect 1 "roofline: infinite peak" -- "$LBSIM" grid info "$T/rl.ini"
has "$T/err" "$T/rl.ini:3: roofline_cpu_gflops = 'inf' is not a number" "infinite peak message"
rl 'roofline_cpu_gbytes_per_s = 20\nroofline_flops_per_work = 1\n'
expect 1 "roofline: no CPU peak" -- "$LBSIM" grid info "$T/rl.ini"
has "$T/err" "$T/rl.ini:1: [nodetype r] uses speed_model = roofline: give roofline_cpu_gflops" "missing peak message"
rl 'roofline_cpu_gflops = 50\nroofline_cpu_gbytes_per_s = 20\nroofline_flops_per_work = 1\nroofline_gpu_gflops = 500\nroofline_gpu_gbytes_per_s = 100\n'
expect 1 "roofline: GPU without PCIe" -- "$LBSIM" grid info "$T/rl.ini"
has "$T/err" "$T/rl.ini:6: [nodetype r] describes a GPU (roofline_gpu_gflops) without roofline_pcie_gbytes_per_s" "half GPU message"
rl 'roofline_cpu_gflops = 50\nroofline_cpu_gbytes_per_s = 20\nroofline_flops_per_work = 1\nroofline_launch_us = 5\n'
expect 1 "roofline: launch without a GPU" -- "$LBSIM" grid info "$T/rl.ini"
has "$T/err" "$T/rl.ini:6: [nodetype r] roofline_launch_us describes a GPU the node type does not have" "launch message"
rl 'roofline_cpu_gflops = 50\nroofline_cpu_gbytes_per_s = 20\n'
expect 1 "roofline: no intensity" -- "$LBSIM" grid info "$T/rl.ini"
has "$T/err" "give roofline_flops_per_work or roofline_bytes_per_work > 0" "intensity message"

expect 0 "grid gen" -- "$LBSIM" grid gen --family UP --procs 16 --clusters 4 --slowdown 10 -o "$T/up.ini"
expect 0 "generated grid loads" -- "$LBSIM" grid info "$T/up.ini" --json
has "$T/out" '"procs":16' "generated processors"
expect 2 "grid gen uneven" -- "$LBSIM" grid gen --family DN --procs 10 --clusters 4 --slowdown 10
has "$T/err" "10 processors do not divide into 4 equal clusters" "uneven message"
expect 2 "grid gen family" -- "$LBSIM" grid gen --family XY --procs 8 --clusters 4
has "$T/err" "known: HO, UP, DN" "family list"

finish
