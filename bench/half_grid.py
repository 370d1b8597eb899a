#!/usr/bin/env python3
"""bench/half_grid.py PROBED OUT [SPEED]: the grid `lbsim grid probe` wrote for 2 ranks on one
node, with processor 1 on a node type of SPEED (default 0.5) times the speed: processor 0 keeps
the probed node type (one core), processor 1 gets a cluster of its own, joined by a link of the
probed node's latency and bandwidth (both ranks still share one machine). For validate
--emulate (bench/emulate.sh, bench/validate_all.sh)."""
import re
import sys

probed, out = sys.argv[1], sys.argv[2]
speed = float(sys.argv[3]) if len(sys.argv) > 3 else 0.5
g = open(probed).read()
cl = re.search(r"\[cluster (\S+)\]\n((?:[^\[]*\n)*)", g)
net = "".join(l + "\n" for l in cl.group(2).splitlines()
              if l.startswith(("latency_us", "bandwidth_gbps", "shared")))
if "cores = 2" not in g:
    sys.exit("half_grid.py: %s is not a probe of 2 ranks on one node (no 'cores = 2')" % probed)
g = g.replace("cores = 2", "cores = 1")
extra = ("[nodetype slow]\nspeed = %g\ncores = 1\n\n[cluster slow]\nnodes = 1\nnodetype = slow\n" % speed
         + net + "\n[link %s slow]\n" % cl.group(1) + net)
open(out, "w").write(g.rstrip() + "\n\n" + extra)
