#!/usr/bin/env bash
# Zoltan's and METIS's public test graphs (tests/data/meshes) partitioned by every partitioner at
# P = 4, 16, 64 (where the graph has that many vertices). For each: every vertex is assigned,
# the work imbalance is within the partitioner's tolerance or a warning names it, METIS cuts at
# most 1.2x what Debian's gpmetis cuts on the same file, and every partitioner gives the same
# partition repeated in one process (--repeat 3) on 2 ranks as once on 1 rank.
# With RESULTS=FILE it appends a markdown table of edge cut and work imbalance there.
set -u
LBSIM=${1:?usage: mesh_partitions.sh lbsim source-dir}
SRC=${2:?usage: mesh_partitions.sh lbsim source-dir}
T=$(mktemp -d /tmp/lbs_meshes_XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
MPI=(mpiexec --allow-run-as-root --oversubscribe)
command -v gpmetis >/dev/null || { echo "FAIL: gpmetis is missing (Debian package metis: make check installs it)"; exit 1; }
table=${RESULTS:-}
[ -n "$table" ] && printf '| mesh | P | partitioner | edge cut | gpmetis cut | work imbalance | tolerance |\n|---|---|---|---|---|---|---|\n' >"$table"

for g in "$SRC"/tests/data/meshes/*.graph; do
  name=$(basename "$g" .graph)
  co="$SRC/tests/data/meshes/$name.coords"
  args=(--chaco "$g")
  [ -f "$co" ] && args+=(--coords "$co")
  if ! "$LBSIM" trace import "${args[@]}" -o "$T/$name.lbt" >/dev/null 2>"$T/$name.imp"; then
    echo "note: $name is not imported ($(tail -1 "$T/$name.imp")): skipped"
    continue
  fi
  n=$("$LBSIM" trace info "$T/$name.lbt" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["elements"])')
  parts="metis,zoltan:phg,zoltan:graph,minex"
  [ -f "$co" ] && parts="$parts,zoltan:rcb"
  for P in 4 16 64; do
    [ "$n" -ge $((4 * P)) ] || continue
    "$LBSIM" grid gen --family HO --procs $P --clusters 1 --slowdown 1 -o "$T/g$P.ini" -f 2>/dev/null
    base="$T/$name.$P"
    if ! "$LBSIM" partition "$T/$name.lbt" --grid "$T/g$P.ini" --partitioner "$parts" --from none --json \
         --out-parts "$base" -f >"$base.json" 2>"$base.err"; then
      bad "$name P=$P: partition failed: $(tail -2 "$base.err")"
      continue
    fi
    "${MPI[@]}" -n 2 "$LBSIM" partition "$T/$name.lbt" --grid "$T/g$P.ini" --partitioner "$parts" --from none --repeat 3 \
      --out-parts "$base.r2" -f >/dev/null 2>&1 || bad "$name P=$P: partition on 2 ranks failed"
    # gpmetis gets the graph as lbsim hands it to METIS: '#' comments as '%', real edge weights
    # rounded to integers of at least 1; its .part file goes beside that copy, not into the tree
    python3 - "$g" "$T/$name.graph" <<'PY'
import sys
src, dst = sys.argv[1], sys.argv[2]
out, hdr, fmt = [], None, "0"
for line in open(src):
    if line.lstrip().startswith(("#", "%")):
        out.append("%" + line.lstrip()[1:])
        continue
    t = line.split()
    if hdr is None:
        hdr, fmt = t, (t[2] if len(t) > 2 else "0").rjust(3, "0")
        out.append(line)
        continue
    if fmt[2] == "1":  # edge weights: every second number after the vertex's own fields
        own = int(fmt[1] == "1") + int(fmt[0] == "1")
        head, rest = t[:own], t[own:]
        rest = [x if i % 2 == 0 else str(max(1, round(float(x)))) for i, x in enumerate(rest)]
        t = head + rest
    out.append(" ".join(t) + "\n")
open(dst, "w").write("".join(out))
PY
    gpmetis "$T/$name.graph" $P >"$base.gp" 2>&1 || echo "note: gpmetis on $name P=$P: $(tail -1 "$base.gp")"
    gp=$(sed -n 's/.*Edgecut: *\([0-9]*\).*/\1/p' "$base.gp" | head -1)
    python3 - "$base" "$name" "$P" "$n" "$parts" "${gp:-}" "$table" <<'PY' && ok || bad "$name P=$P: $(tail -3 "$base.py")"
import json, sys
base, name, P, n, parts, gp, table = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5].split(","), sys.argv[6], sys.argv[7]
rows = json.load(open(base + ".json"))
rows = rows if isinstance(rows, list) else [rows]
err = open(base + ".err").read()
out = open(base + ".py", "w")
ok = True
def fail(msg):
    global ok
    ok = False
    out.write(msg + "\n")
for r in rows:
    p = r["partitioner"]
    f = base + "." + p.replace(":", "-")
    part = [int(l) for l in open(f)]
    if len(part) != n or min(part) < 0 or max(part) >= P:
        fail("%s: %d lines, parts %d..%d for %d vertices into %d" % (p, len(part), min(part), max(part), n, P))
    if r["tolerance"] is not None and r["work_imbalance"] > r["tolerance"] * (1 + 1e-9) and ("warning: %s left" % p) not in err:
        fail("%s: work imbalance %.4f above %.4f and no warning" % (p, r["work_imbalance"], r["tolerance"]))
    if open(f).read() != open(base + ".r2." + p.replace(":", "-")).read():
        fail("%s: 2 ranks, repeated, differ from 1 rank once" % p)
    if p == "metis" and gp and float(gp) > 0 and r["edge_cut"] > 1.2 * float(gp):
        fail("metis cuts %g, gpmetis %s: over 1.2x" % (r["edge_cut"], gp))
    if table:
        with open(table, "a") as t:
            t.write("| %s | %d | %s | %g | %s | %.4f | %s |\n" % (name, P, p, r["edge_cut"], gp if p == "metis" else "",
                    r["work_imbalance"], "%.3g" % r["tolerance"] if r["tolerance"] else "-"))
out.close()
sys.exit(0 if ok else 1)
PY
  done
done
finish
