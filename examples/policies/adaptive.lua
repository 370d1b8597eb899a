-- adaptive.lua - seed 002's adaptive repartitioning heuristic (the built-in adaptive:T:MIN:MAX,
-- policies/adaptive.c) as a Lua policy: lbsim ... --policy lua:examples/policies/adaptive.lua:0.15:5:20
--
-- From the last repartition, probe ahead with an interval: while the probed step's imbalance
-- stays under T, double the interval (up to MAX) and march on; when it exceeds T, halve the
-- interval and step back; when the interval is already MIN and the imbalance still exceeds T,
-- repartition at that step. A probe never goes back to or before the last step known to be
-- balanced, nor past the first step known to be unbalanced; past the end nothing is planned.

local T, MIN, MAX
local next_step = -2 -- planned repartition step; -1: none, -2: plan at the next call

function init(args)
  local t, lo, hi = string.match(args or "", "^([^:]+):([^:]+):([^:]+)$")
  T, MIN, MAX = tonumber(t), math.tointeger(tonumber(lo)), math.tointeger(tonumber(hi))
  if not (T and MIN and MAX and T > 0 and T < 1 and MIN >= 1 and MAX >= MIN and MAX <= 1e9) then
    error("needs 0 < T < 1 and whole steps 1 <= MIN <= MAX (got '" .. (args or "") .. "')")
  end
end

-- plans the next repartition after the one at step r (0: the start)
local function plan(view, r)
  if not view.eval_step then error("adaptive needs the simulator's step navigation") end
  local I = MIN
  local s, good, bad = r + I, r, -1
  while true do
    if bad < 0 and s >= view.steps then return -1 end
    if bad >= 0 and s > bad then s = bad end
    local _, imb = view.eval_step(s)
    if imb < T then -- balanced: double the rate and march
      good = s
      if I <= MAX // 2 then I = I * 2 end
      s = s + I
    elseif I > MIN then -- unbalanced: halve and step back
      bad = s
      I = math.max(I // 2, MIN)
      s = s - I
      if s <= good then s = good + 1 end
    else -- unbalanced at the smallest interval: repartition here
      return s
    end
  end
end

function decide(view)
  -- a repartition this step that we did not plan (a processor failed)
  local forced = view.step > 0 and view.since == 0 and next_step ~= view.step
  if next_step == -2 or forced or (next_step >= 0 and next_step < view.step) then
    next_step = plan(view, (next_step == -2 or forced) and view.step or next_step)
  end
  return next_step == view.step
end
