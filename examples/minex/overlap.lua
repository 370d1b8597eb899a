-- overlap.lua - a MinEX latency-tolerance function in Lua (seed 003, slide 16: the user's
-- MinEX(User, Ipg, Qtot)): the built-in overlap:F, where a fraction F of a processor's
-- processing time hides its communication and relocation. In a grid file:
--
--   [minex]
--   latency = lua:overlap.lua:0.5      ; relative to the grid file
--
-- or `-o minex.latency=lua:examples/minex/overlap.lua:0.5` (relative to the working directory).
-- It partitions exactly as `latency = overlap:0.5` (and `latency_tolerance = 0.5`) does.
--
-- latency(ipg, tot) returns QWgt, the projected time of processor tot.p in ns, from its totals:
-- tot.pproc (sum of Wgt), tot.comm (sum of Comm), tot.remap (sum of Remap), tot.qlen (its
-- vertices). ipg is the configuration graph: ipg.P, ipg.C, ipg.cluster[p], ipg.proc[p] (ns per
-- unit of work), ipg.connect[c][d] and ipg.relocate[c][d] (ns per unit of edge or relocation
-- weight), all 1-based. MinEX calls it for every processor a potential reassignment changes, so
-- it must be cheap, and it must not decrease when a total grows.

local F

function init(args)
  F = tonumber(args or "")
  if not (F and F >= 0 and F <= 1) then
    error("needs 0 <= F <= 1 (got '" .. tostring(args) .. "')")
  end
end

function latency(ipg, tot)
  local hidden = tot.comm + tot.remap - F * tot.pproc
  if hidden > 0 then
    return tot.pproc + hidden
  end
  return tot.pproc
end
