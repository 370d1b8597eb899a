#!/usr/bin/env bash
# End-to-end checks of `lbsim export simgrid`: what it writes (structure, sizes, barriers,
# compute amounts, the platform and its zones, O(P)), outputs that harm nothing, the same export
# on 1 and 2 ranks. With a third argument, SimGrid's SMPI replays the exports
# (tests/sim/smpi_replay.cpp, and run.sh through smpirun) and the simulated times must agree
# with lbsim's, and be the same on the zones as on a route per pair (simgrid_pairs.py).
# usage: export_simgrid.sh lbsim source-dir [smpi_replay]
set -u
LBSIM=${1:?usage: export_simgrid.sh lbsim source-dir [smpi_replay]}
SRC=${2:?}
SMPI=${3:-}
MPI=(mpiexec --allow-run-as-root --oversubscribe)
T=$(mktemp -d /tmp/lbs_e2e_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

# Two clusters of two processors: A fast (speed 2) on a shared 10 Gbit/s network, B on a
# dedicated 4 Gbit/s one, a shared 1 Gbit/s link of 50 us between them.
cat >"$T/g.ini" <<'EOF'
[grid]
name = crosscheck
ns_per_work = 1000
bytes_per_edge = 4000
bytes_per_elem = 20000
[nodetype fast]
speed = 2
[cluster A]
nodes = 2
nodetype = fast
latency_us = 2
bandwidth_gbps = 10
shared = true
[cluster B]
nodes = 2
latency_us = 5
bandwidth_gbps = 4
[link A B]
latency_us = 50
bandwidth_gbps = 1
shared = true
EOF
expect 0 "gen" -- "$LBSIM" trace gen --kind hotspot --mesh 12x8x4 --steps 8 -o "$T/h.lbt"

# ---------------------------------------------------------------- structure
expect 0 "export --help" -- "$LBSIM" export simgrid --help
has "$T/out" "time-independent trace" "help says what it writes"
has "$T/out" "lbsim export simgrid bump.lbt" "help has an example"
expect 0 "export" -- "$LBSIM" export simgrid "$T/h.lbt" --grid "$T/g.ini" --mode bsp --policy fixed:3 -o "$T/x"
has "$T/out" "4 processors, 8 steps" "summary"
for f in platform.xml hostfile replay.txt rank_0.txt rank_3.txt run.sh README lbsim.json; do
  [ -s "$T/x/$f" ] && ok || bad "no $f"
done
[ -x "$T/x/run.sh" ] && ok || bad "run.sh is not executable"
[ ! -e "$T/x/rank_4.txt" ] && ok || bad "a rank file too many"
ls -d "$T"/x.tmp-* >/dev/null 2>&1 && bad "a temporary directory left" || ok
expect 0 "same answer as replay" -- "$LBSIM" replay "$T/h.lbt" --grid "$T/g.ini" --mode bsp --policy fixed:3 --json
sed 's/,"wall_s":[0-9.]*//' "$T/out" >"$T/replay.json"
sed 's/,"wall_s":[0-9.]*//' "$T/x/lbsim.json" >"$T/export.json"
cmp -s "$T/replay.json" "$T/export.json" && ok || bad "export's lbsim.json differs from replay --json"
# every message sent is received, with its size; compute amounts are the processors' ns x speed;
# bsp: one barrier per step, two per repartition (2 here: steps 3 and 6)
python3 - "$T/x" <<'EOF' && ok || bad "trace structure"
import json, re, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
res = json.load(open(d + "/lbsim.json"))
P = res["procs"]
plat = ET.parse(d + "/platform.xml").getroot()
speed = {h.get("id"): float(h.get("speed").rstrip("f")) for h in plat.iter("host")}
routes = list(plat.iter("route"))
assert len(speed) == P and len(routes) == P * (P - 1), (len(speed), len(routes))
links = {l.get("id"): l.get("sharing_policy") for l in plat.iter("link")}
assert links == {"net_c0": "SHARED", "net_c1": "FATPIPE", "link_c0_c1": "SHARED"}, links
assert open(d + "/replay.txt").read().split() == ["rank_%d.txt" % p for p in range(P)]
assert open(d + "/hostfile").read().split() == ["p%d" % p for p in range(P)]
sent, got, segs = {}, {}, []
for p in range(P):
    lines = open(d + "/rank_%d.txt" % p).read().splitlines()
    assert lines[0] == "%d init" % p and lines[-1] == "%d finalize" % p
    seg = [0.0]  # compute ns between barriers
    for ln in lines[1:-1]:
        a = ln.split()
        assert a[0] == str(p), ln
        if a[1] == "compute": seg[-1] += float(a[2]) / speed["p%d" % p] * 1e9
        elif a[1] == "send": sent.setdefault((p, int(a[2])), []).append(int(a[4]))
        elif a[1] == "recv": got.setdefault((int(a[2]), p), []).append(int(a[4]))
        elif a[1] == "barrier": seg.append(0.0)
        else: assert a[1] == "sleep", ln
    assert len(seg) - 1 == res["steps"] + 2 * res["repartitions"], (p, len(seg))
    segs.append(seg)
assert sent == got and sent, "sends and receives differ"
assert all(s >= 0 for v in sent.values() for s in v)
# bsp's compute time: over the steps (between barriers), the slowest processor's compute
bsp = sum(max(s[k] for s in segs) for k in range(len(segs[0])))
assert abs(bsp * 1e-9 - res["compute_time_s"]) < 1e-9, (bsp, res["compute_time_s"])
EOF
# the sizes: lbsim's whole bytes less the 16-byte envelope (4000 x cut weight - 16 here)
grep -qE '^0 send [0-9]+ 0 [0-9]*984$' "$T/x/rank_0.txt" && ok || bad "sizes less the envelope: $(grep -m1 send "$T/x/rank_0.txt")"
expect 0 "envelope 0" -- "$LBSIM" export simgrid "$T/h.lbt" --grid "$T/g.ini" --envelope 0 -o "$T/e0"
grep -qE '^0 send [0-9]+ 0 [0-9]*000$' "$T/e0/rank_0.txt" && ok || bad "--envelope 0 keeps lbsim's sizes"
# des: no barriers; a NIC becomes a SPLITDUPLEX link on the processor's routes
expect 0 "export des with NICs" -- "$LBSIM" export simgrid "$T/h.lbt" --grid "$T/g.ini" --mode des \
  --set "nodetype fast.nic_gbps=2" --set grid.barrier_us=3 -o "$T/d"
grep -q barrier "$T/d"/rank_*.txt && bad "des has no barriers" || ok
grep -q sleep "$T/d"/rank_*.txt && bad "des: barrier_us is bsp's" || ok
has "$T/d/platform.xml" '<link id="nic_p0" bandwidth="250000000Bps" latency="0ns" sharing_policy="SPLITDUPLEX"/>' "NIC link"
has "$T/d/platform.xml" '<route src="p0" dst="p2" symmetrical="NO"><link_ctn id="nic_p0" direction="UP"/><link_ctn id="link_c0_c1"/></route>' "NIC on the route"
has "$T/d/platform.xml" '<route src="p2" dst="p1" symmetrical="NO"><link_ctn id="link_c0_c1"/><link_ctn id="nic_p1" direction="DOWN"/></route>' "NIC at the end of a route"
# the platform in SimGrid's zones, O(P) lines where a route per pair would be P (P - 1): one
# cluster is a Cluster (star) zone, a grid where every processor has a NIC a DijkstraCache zone
cat >"$T/one.ini" <<'EOF'
[grid]
ns_per_work = 1000
bytes_per_edge = 4000
[nodetype fast]
speed = 2
[cluster A]
nodes = 64
nodetype = fast
latency_us = 5
bandwidth_gbps = 10
EOF
expect 0 "export one cluster of 64" -- "$LBSIM" export simgrid "$T/h.lbt" --grid "$T/one.ini" --mode des -o "$T/z"
expect 0 "export two clusters with NICs" -- "$LBSIM" export simgrid "$T/h.lbt" --grid "$T/g.ini" --mode des \
  --set "nodetype fast.nic_gbps=2" --set "nodetype default.nic_gbps=0.5" -o "$T/zn"
python3 - "$T/z" "$T/zn" <<'EOF' && ok || bad "platform in zones"
import os, sys, xml.etree.ElementTree as ET
star, graph = (ET.parse(d + "/platform.xml").getroot() for d in sys.argv[1:3])
zone = star.find("zone")
assert zone.get("routing") == "Cluster", zone.get("routing")
assert len(list(star.iter("host"))) == 64 and not list(star.iter("route"))
links = {h.get("id"): (h.get("up"), h.get("down")) for h in star.iter("host_link")}
assert links == {"p%d" % p: ("net_c0", "net_c0") for p in range(64)}, links
size = os.path.getsize(sys.argv[1] + "/platform.xml")
assert size < 64 * 150, size  # a route per pair: 4032 routes of about 80 bytes
assert graph.find("zone").get("routing") == "DijkstraCache"
routes = [(r.get("src"), r.get("dst"), [l.get("id") for l in r.iter("link_ctn")]) for r in graph.iter("route")]
assert len(routes) == 2 * 4 + 2 * 2, routes  # 2P + C^2
assert ("c0_in", "c1_out", ["link_c0_c1"]) in routes and ("c1_in", "c1_out", ["net_c1"]) in routes, routes
assert ("p0", "c0_in", ["nic_p0"]) in routes and ("c1_out", "p3", ["nic_p3"]) in routes, routes
EOF
has "$T/z/README" "Platform: one SimGrid Cluster zone" "README names the platform"
expect 0 "bsp barrier" -- "$LBSIM" export simgrid "$T/h.lbt" --grid "$T/g.ini" --set grid.barrier_us=3 -o "$T/b"
[ "$(grep -c '^1 sleep 0.000003000$' "$T/b/rank_1.txt")" -eq 8 ] && ok || bad "bsp: a 3 us sleep after each of 8 barriers"

# the same export on 2 ranks
expect 0 "export on 2 ranks" -- "${MPI[@]}" -n 2 "$LBSIM" export simgrid "$T/h.lbt" --grid "$T/g.ini" --mode bsp \
  --policy fixed:3 -o "$T/x2"
sed -i 's/,"wall_s":[0-9.]*//' "$T/x2/lbsim.json"
sed -i 's/,"wall_s":[0-9.]*//' "$T/x/lbsim.json"
diff -r "$T/x" "$T/x2" >/dev/null && ok || bad "export differs between 1 and 2 ranks: $(diff -r "$T/x" "$T/x2" | head -5)"

# outputs that harm nothing
expect 1 "existing export" -- "$LBSIM" export simgrid "$T/h.lbt" --grid "$T/g.ini" -o "$T/x"
has "$T/err" "directory is not empty (use --force" "refuses to overwrite"
expect 0 "-f replaces an export" -- "$LBSIM" export simgrid "$T/h.lbt" --grid "$T/g.ini" --mode des -o "$T/x" -f
grep -q barrier "$T/x"/rank_*.txt && bad "-f: the new export is in place" || ok
mkdir "$T/foreign" && echo data >"$T/foreign/notes.txt"
expect 1 "foreign directory" -- "$LBSIM" export simgrid "$T/h.lbt" --grid "$T/g.ini" -o "$T/foreign" -f
has "$T/err" "notes.txt: not a file lbsim writes there" "names the foreign file"
[ "$(cat "$T/foreign/notes.txt")" = data ] && ok || bad "the foreign file is left alone"
# an export is not another command's output: trace export --csv -f does not replace it
expect 1 "csv over an export" -- "$LBSIM" trace export "$T/h.lbt" --csv "$T/x" -f
has "$T/err" "not a file lbsim writes there" "another kind of output"
[ -s "$T/x/platform.xml" ] && ok || bad "the export is left alone"
expect 2 "-o KEY=VAL" -- "$LBSIM" export simgrid "$T/h.lbt" --grid "$T/g.ini" -o sim.mode=des
has "$T/err" "override a key with --set sim.mode=des" "the --set spelling given"
expect 2 "no output" -- "$LBSIM" export simgrid "$T/h.lbt" --grid "$T/g.ini"
has "$T/err" "missing -o DIR" "missing output message"
expect 2 "unknown format" -- "$LBSIM" export ns3 "$T/h.lbt"
has "$T/err" "unknown format 'ns3' (known: simgrid, vtk, vt)" "format message"
expect 1 "bad grid" -- "$LBSIM" export simgrid "$T/h.lbt" --grid "$T/g.ini" --set grid.sharing=maxmin -o "$T/bad"
has "$T/err" "sharing = 'maxmin' must be fair or fifo" "grid error"
[ ! -e "$T/bad" ] && ok || bad "nothing written after an error"

# ---------------------------------------------------------------- SMPI
if [ -n "$SMPI" ]; then
  # lbsim against SMPI with an exact barrier (smpi_replay --ideal-barrier): the differences are
  # lbsim's whole-ns event times (each flow's end rounded up), a few ns a step
  # GRID (default g.ini) and ROUTING (the platform's zone, checked where given) from the environment
  check() { # NAME TOLERANCE_NS EXPORT-OPTIONS...
    local name=$1 tol=$2
    shift 2
    rm -rf "$T/s"
    if ! "$LBSIM" export simgrid "${CK_TRACE:-$T/h.lbt}" --grid "${GRID:-$T/g.ini}" "$@" -o "$T/s" \
      >"$T/out" 2>"$T/err"; then
      bad "$name: export: $(head -c 300 "$T/err")"
      return
    fi
    if [ -n "${ROUTING:-}" ] && ! grep -q "<zone id=\"lbsim\" routing=\"$ROUTING\">" "$T/s/platform.xml"; then
      bad "$name: the platform is not a $ROUTING zone"
      return
    fi
    local smpi
    if ! smpi=$("$SMPI" --ideal-barrier "$T/s" 2>"$T/err"); then
      bad "$name: smpi_replay: $(tail -c 300 "$T/err")"
      return
    fi
    echo "$smpi" >>"$T/smpi"
    python3 - "$name" "$tol" "$T/s/lbsim.json" "$smpi" <<'EOF' && ok || bad "$name: lbsim and SMPI disagree"
import json, sys
name, tol, path, smpi = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
lbsim = json.load(open(path))["total_time_s"]
d = round((lbsim - smpi) * 1e9)
print("%-34s lbsim %.9f s  SMPI %.9f s  difference %+d ns (%+.1e)" % (name, lbsim, smpi, d, (lbsim - smpi) / smpi))
sys.exit(abs(d) > tol)
EOF
  }
  check "des, shared links" 50 --mode des
  check "des, dedicated links" 50 --mode des --set "cluster A.shared=false" --set "link A B.shared=false"
  check "des, NICs" 50 --mode des --set "nodetype fast.nic_gbps=2" --set "nodetype default.nic_gbps=0.5"
  check "des, heavy halos" 50 --mode des --set grid.bytes_per_edge=400000
  check "bsp, shared links" 50 --mode bsp
  check "bsp, barrier_us = 3" 50 --mode bsp --set grid.barrier_us=3
  check "bsp, NICs" 50 --mode bsp --set "nodetype fast.nic_gbps=2" --set "nodetype default.nic_gbps=0.5"
  check "bsp, 2 repartitions" 50 --mode bsp --policy fixed:3
  check "des, 2 repartitions" 50 --mode des --policy fixed:3
  check "bsp, fifo, heavy halos" 50 --mode bsp --set grid.sharing=fifo --set grid.bytes_per_edge=400000
  check "des, fifo, dedicated links" 50 --mode des --set grid.sharing=fifo --set "cluster A.shared=false" \
    --set "link A B.shared=false"
  # des_overlap = shared: the halos of overlapping steps share the network as in SMPI. Where they
  # overlap (a shared cluster of 32, a 32x32x16 bump; two_sites with heavy halos and two
  # repartitions), ordered serves the earlier step first and comes out 3.1% and 0.37% early;
  # shared agrees to the ns
  "$LBSIM" trace gen --kind bump --mesh 32x32x16 --steps 6 -o "$T/b.lbt" 2>/dev/null
  printf '[grid]\nns_per_work = 1\n[cluster main]\nnodes = 32\nlatency_us = 5\nbandwidth_gbps = 10\nshared = true\n' \
    >"$T/g32.ini"
  CK_TRACE=$T/b.lbt GRID=$T/g32.ini check "des, overlap shared, 32 on one" 50 --mode des \
    --set sim.des_overlap=shared
  smpi32=$(tail -1 "$T/smpi")
  CK_TRACE=$T/b.lbt GRID=$T/g32.ini check "des, overlap ordered, 32 on one" 10000000 --mode des --set sim.des_overlap=ordered
  python3 -c "import json,sys; l=json.load(open('$T/s/lbsim.json'))['total_time_s']; s=float(sys.argv[1]);
print('%-34s %+.2f%% against SMPI' % ('ordered, 32 on one', 100 * (l - s) / s)); sys.exit(l > s * 0.995)" "$smpi32" &&
    ok || bad "ordered does not differ from SMPI: the case has no overlap to check"
  "$LBSIM" trace gen --kind bump --mesh 16x8x8 --steps 10 -o "$T/b2.lbt" 2>/dev/null
  CK_TRACE=$T/b2.lbt GRID=$SRC/examples/grids/two_sites.ini check "des, overlap shared, two_sites" 50 \
    --mode des --policy fixed:4 --set grid.bytes_per_edge=20000 --set sim.des_overlap=shared
  # three clusters, NICs of 0.5 Gbit/s on one node type, latency 0 on the shared one (from a
  # review: SMPI's default lazy solver was 3.5% off here; smpi_replay runs its full one)
  cat >"$T/g3.ini" <<'EOF'
[grid]
ns_per_work = 100
bytes_per_edge = 4000
bytes_per_elem = 20000
[nodetype n0]
speed = 2
[nodetype n1]
speed = 1
nic_gbps = 0.5
[cluster c0]
nodes = 5
nodetype = n0
latency_us = 0
bandwidth_gbps = 2.5
shared = true
[cluster c1]
nodes = 5
nodetype = n1
latency_us = 0.3
bandwidth_gbps = 4
shared = false
[cluster c2]
nodes = 6
nodetype = n0
latency_us = 0
bandwidth_gbps = 10
shared = false
[link c0 c1]
latency_us = 50
bandwidth_gbps = 4
shared = false
[link c0 c2]
latency_us = 0.3
bandwidth_gbps = 10
shared = false
[link c1 c2]
latency_us = 5
bandwidth_gbps = 2.5
shared = false
EOF
  "$LBSIM" trace gen --kind bump --mesh 24x8x8 --steps 10 -o "$T/b3.lbt" 2>/dev/null
  CK_TRACE=$T/b3.lbt GRID=$T/g3.ini check "des, overlap shared, 3 clusters, NICs" 50 --mode des \
    --set sim.des_overlap=shared
  # the platform's zones: every processor with a NIC (a graph), one cluster (a star, its network
  # the backbone with NICs; a graph with NICs on a dedicated network)
  sed -e 's/^nodes = 2$/nodes = 3/' -e '/^\[cluster B\]/,$d' "$T/g.ini" >"$T/one3.ini"
  ROUTING=DijkstraCache check "des, NICs, graph, dedicated" 50 --mode des --set "nodetype fast.nic_gbps=2" \
    --set "nodetype default.nic_gbps=0.5" --set "cluster A.shared=false" --set "link A B.shared=false"
  ROUTING=DijkstraCache check "bsp, NICs, graph, repartitions" 50 --mode bsp --policy fixed:3 \
    --set "nodetype fast.nic_gbps=2" --set "nodetype default.nic_gbps=0.5"
  GRID=$T/one3.ini ROUTING=Cluster check "one cluster, des, shared" 50 --mode des
  GRID=$T/one3.ini ROUTING=Cluster check "one cluster, des, heavy halos" 50 --mode des \
    --set grid.bytes_per_edge=400000
  GRID=$T/one3.ini ROUTING=Cluster check "one cluster, bsp, dedicated" 50 --mode bsp \
    --set "cluster A.shared=false"
  GRID=$T/one3.ini ROUTING=Cluster check "one cluster, des, NICs" 50 --mode des \
    --set "nodetype fast.nic_gbps=2" --set grid.bytes_per_edge=400000
  GRID=$T/one3.ini ROUTING=DijkstraCache check "one cluster, bsp, NICs, dedicated" 50 --mode bsp \
    --set "nodetype fast.nic_gbps=2" --set "cluster A.shared=false" --policy fixed:3
  # the zones against a route per pair (simgrid_pairs.py writes the same platform as the export
  # wrote it before): SMPI's simulated times are the same, to the ns
  same_as_pairs() { # NAME GRID EXPORT-OPTIONS...
    local name=$1 grid=$2
    shift 2
    rm -rf "$T/s" "$T/sp"
    "$LBSIM" export simgrid "$T/h.lbt" --grid "$grid" "$@" -o "$T/s" >/dev/null 2>"$T/err" &&
      cp -r "$T/s" "$T/sp" && python3 "$SRC/tests/e2e/simgrid_pairs.py" "$T/s/platform.xml" "$T/sp/platform.xml" ||
      { bad "$name: export or simgrid_pairs.py: $(tail -c 300 "$T/err")"; return; }
    local zones pairs
    zones=$("$SMPI" --ideal-barrier "$T/s" 2>&1) && pairs=$("$SMPI" --ideal-barrier "$T/sp" 2>&1) ||
      { bad "$name: smpi_replay: $zones $pairs"; return; }
    printf '%-34s zones %s s  per pair %s s (%s routes)\n' "$name" "$zones" "$pairs" "$(grep -c '<route ' "$T/sp/platform.xml")"
    [ "$zones" = "$pairs" ] && ok || bad "$name: SMPI on the zones and on a route per pair disagree"
  }
  same_as_pairs "star, des, shared, 16, heavy halos" "$T/one3.ini" --mode des --set grid.bytes_per_edge=400000 \
    --set "cluster A.nodes=16"
  same_as_pairs "star, bsp, dedicated" "$T/one3.ini" --mode bsp --set "cluster A.shared=false" --policy fixed:3
  same_as_pairs "star, des, NICs, backbone" "$T/one3.ini" --mode des --set "nodetype fast.nic_gbps=2" \
    --set grid.bytes_per_edge=400000
  same_as_pairs "graph, des, NICs, heavy halos" "$T/g.ini" --mode des --set "nodetype fast.nic_gbps=2" \
    --set "nodetype default.nic_gbps=0.5" --set grid.bytes_per_edge=400000
  same_as_pairs "graph, bsp, one cluster, dedicated" "$T/one3.ini" --mode bsp \
    --set "nodetype fast.nic_gbps=2" --set "cluster A.shared=false" --set grid.bytes_per_edge=400000
  # fifo serves whole messages: on shared links des comes out optimistic against SMPI's flows
  rm -rf "$T/s"
  "$LBSIM" export simgrid "$T/h.lbt" --grid "$T/g.ini" --mode des --set grid.sharing=fifo -o "$T/s" >/dev/null
  python3 -c "import json,sys; l=json.load(open('$T/s/lbsim.json'))['total_time_s']; s=float(sys.argv[1]);
print('%-34s lbsim %.9f s  SMPI %.9f s  (%+.1f%%)' % ('des, fifo, shared links', l, s, 100 * (l - s) / s)); sys.exit(l >= s)" \
    "$("$SMPI" --ideal-barrier "$T/s")" && ok || bad "fifo on shared links is not optimistic"
  # run.sh (smpirun and its replayer, SMPI's own barrier): des without repartitions has no
  # barrier, and agrees to smpirun's us
  rm -rf "$T/s"
  "$LBSIM" export simgrid "$T/h.lbt" --grid "$T/g.ini" --mode des -o "$T/s" >/dev/null
  if command -v smpirun >/dev/null; then
    (cd "$T" && ./s/run.sh >"$T/out" 2>&1) && ok || bad "run.sh: $(tail -c 300 "$T/out")"
    python3 - "$T/s/lbsim.json" "$T/out" <<'EOF' && ok || bad "run.sh and lbsim disagree"
import json, re, sys
lbsim = json.load(open(sys.argv[1]))["total_time_s"]
m = re.search(r"Simulation time ([0-9.]+)", open(sys.argv[2]).read())
print("%-34s lbsim %.9f s  smpirun %s s" % ("run.sh (smpirun), des", lbsim, m.group(1) if m else "?"))
sys.exit(not m or abs(float(m.group(1)) - lbsim) > 1e-6)
EOF
  else
    echo "smpirun not found: run.sh not tried"
  fi
fi

finish
