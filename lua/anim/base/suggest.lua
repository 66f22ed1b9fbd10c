-- suggest.lua: "did you mean" for unknown names in messages.  The closest
-- of a list of names to one that is not in it: a different letter case,
-- or few edits (insertions, deletions, substitutions, swaps of two
-- neighbours: the optimal string alignment distance), at most a third of
-- the name's length (at least 1).
local M = {}

local function distance(a, b, limit)
  local la, lb = #a, #b
  if math.abs(la - lb) > limit then return limit + 1 end
  local prev2, prev, cur = {}, {}, {}
  for j = 0, lb do prev[j] = j end
  for i = 1, la do
    cur[0] = i
    local best = i
    local ca = a:byte(i)
    for j = 1, lb do
      local cb = b:byte(j)
      local d = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca == cb and 0 or 1))
      if i > 1 and j > 1 and ca == b:byte(j - 1) and a:byte(i - 1) == cb then d = math.min(d, prev2[j - 2] + 1) end
      cur[j] = d
      if d < best then best = d end
    end
    if best > limit then return limit + 1 end
    prev2, prev, cur = prev, cur, prev2
  end
  return prev[lb]
end

-- The name of `names` closest to `name`, or nil when none is close.
function M.closest(name, names)
  local lower = name:lower()
  local limit = math.max(1, #name // 3)
  local best, bestd
  for _, n in ipairs(names) do
    local d = n:lower() == lower and 0 or distance(name, n, limit)
    if d <= limit and (not bestd or d < bestd or (d == bestd and n < best)) then best, bestd = n, d end
  end
  return best
end

-- "; did you mean 'x'?", or "" when nothing is close.
function M.hint(name, names)
  local c = M.closest(name, names)
  return c and string.format("; did you mean '%s'?", c) or ""
end

return M
