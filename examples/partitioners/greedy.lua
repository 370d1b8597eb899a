-- greedy.lua - a partitioner in Lua (lbsim ... --partitioner lua:examples/partitioners/greedy.lua):
-- the longest-processing-time rule. Elements in decreasing order of work (ties by id) each go to
-- the part whose load, relative to its target share, would be the smallest. It balances work
-- within one element of the best and ignores the mesh, so it cuts many edges: an experiment's
-- baseline, not a partitioner to run on a large mesh (sorting happens in Lua).
--
-- g (1-based): g.n elements, g.nparts parts, g.weight[v], g.part_sizes[p] (summing to 1),
-- g.current[v], g.repartition, and g.adj[v] / g.adjw[v] / g.coords[v] unless the script says it
-- does not read them (as here). partition(g) returns the part of each element, 1..g.nparts.

needs_graph = false
needs_coords = false

function partition(g)
  local order = {}
  for v = 1, g.n do order[v] = v end
  table.sort(order, function(a, b)
    if g.weight[a] ~= g.weight[b] then return g.weight[a] > g.weight[b] end
    return a < b
  end)
  local load, part = {}, {}
  for p = 1, g.nparts do load[p] = 0 end
  for _, v in ipairs(order) do
    local best, best_t = 1, math.huge
    for p = 1, g.nparts do
      local share = g.part_sizes[p]
      local t = share > 0 and (load[p] + g.weight[v]) / share or math.huge
      if t < best_t then best, best_t = p, t end
    end
    part[v] = best
    load[best] = load[best] + g.weight[v]
  end
  return part
end
