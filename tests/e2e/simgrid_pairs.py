"""Writes an `lbsim export simgrid` platform given in zones as the same platform with a route per
pair of processors in a Full zone, as the export wrote every platform before (e2e.smpi_crosscheck:
SMPI must give the same times on both, to the ns). Independent of the exporter's code:
  - a Cluster (star) zone routes p to q over p's host link up, the backbone if any, q's host
    link down, each link once (SimGrid's StarZone);
  - a DijkstraCache zone routes p to q over the links of its path from p to q (the exporter's
    graph has one path between two hosts; breadth first finds it).

usage: simgrid_pairs.py ZONES.xml PAIRS.xml
"""
import sys
import xml.etree.ElementTree as ET
from collections import deque


def link_ctn(name):
    """A link's name as a route names it: a NIC's half is its SPLITDUPLEX link, a direction."""
    for d in ("UP", "DOWN"):
        if name.endswith("_" + d):
            return (name[: -len(d) - 1], d)
    return (name, None)


def star_routes(zone):
    bb = [b.get("id") for b in zone.iter("backbone")]
    hl = {h.get("id"): (h.get("up"), h.get("down")) for h in zone.iter("host_link")}

    def route(p, q):
        links = []
        for l in [hl[p][0]] + bb + bb + [hl[q][1]]:
            if l not in links:
                links.append(l)
        return [link_ctn(l) for l in links]

    return route


def graph_routes(zone):
    edges = {}
    for r in zone.iter("route"):
        links = [(l.get("id"), l.get("direction")) for l in r.iter("link_ctn")]
        edges.setdefault(r.get("src"), []).append((r.get("dst"), links))

    def route(p, q):
        seen, frontier = {p: []}, deque([p])
        while frontier:
            v = frontier.popleft()
            for w, links in edges.get(v, []):
                if w not in seen:
                    seen[w] = seen[v] + links
                    frontier.append(w)
        return seen[q]

    return route


def main(src, dst):
    zone = ET.parse(src).getroot().find("zone")
    route = star_routes(zone) if zone.get("routing") == "Cluster" else graph_routes(zone)
    hosts = [h.get("id") for h in zone.iter("host")]
    out = ["<?xml version='1.0'?>", '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
           '<platform version="4.1">', '  <zone id="lbsim" routing="Full">']
    out += ["    " + ET.tostring(h, encoding="unicode").strip() for h in zone.iter("host")]
    for l in zone:
        if l.tag == "link":
            out.append("    " + ET.tostring(l, encoding="unicode").strip())
        elif l.tag == "backbone":  # SimGrid's backbone is a SHARED link
            out.append('    <link id="%s" bandwidth="%s" latency="%s" sharing_policy="SHARED"/>'
                       % (l.get("id"), l.get("bandwidth"), l.get("latency")))
    for p in hosts:
        for q in hosts:
            if p != q:
                ctns = "".join('<link_ctn id="%s"%s/>' % (i, ' direction="%s"' % d if d else "")
                               for i, d in route(p, q))
                out.append('    <route src="%s" dst="%s" symmetrical="NO">%s</route>' % (p, q, ctns))
    out += ["  </zone>", "</platform>"]
    with open(dst, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
