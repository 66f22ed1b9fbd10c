-- suggest.lua: "did you mean ...?" for a name a script or file misspelt.
-- The suggestion is the known name that differs only in letter case, else
-- the one nearest by edit distance (insertions, deletions, substitutions
-- and swaps of two neighbours, letter case ignored), when it is close:
-- at most a third of the name's length (at most 3) edits away, and at
-- least one for a name of three letters or more (a name of one or two
-- letters is too short to guess: only its letter case is).  Ties go to the name listed first.  The C side has the same rule
-- for joint names (csrc/lua/lua_helpers.c, anim_lua_suggest).
--
-- The work is bounded whatever the names: the edit distance is computed
-- only between names of at most MAX_EDIT bytes (a longer one is suggested
-- only for its letter case: 64 x 64 steps at most per known name, where
-- two names of 10 MB made 10^14), and letter case is compared only
-- between names of one length.  The suggestion is quoted as user data is
-- (errors.lua's E.shown): it may be a name of the file's.
local E = require "anim.base.errors"

local M = {}

local lower, byte, min = string.lower, string.byte, math.min
local MAX_EDIT = 64 -- (MAX_SUGGEST in csrc/lua/lua_helpers.c)
M.MAX_EDIT = MAX_EDIT

-- Optimal string alignment distance between a and b (both lower case).
local function distance(a, b)
  local la, lb = #a, #b
  if la == 0 then return lb end
  if lb == 0 then return la end
  local prev2, prev, cur = {}, {}, {}
  for j = 0, lb do prev[j] = j end
  for i = 1, la do
    cur[0] = i
    local ca = byte(a, i)
    for j = 1, lb do
      local cb = byte(b, j)
      local d = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca == cb and 0 or 1))
      if i > 1 and j > 1 and ca == byte(b, j - 1) and byte(a, i - 1) == cb then
        d = min(d, prev2[j - 2] + 1)
      end
      cur[j] = d
    end
    prev2, prev, cur = prev, cur, prev2
  end
  return prev[lb]
end
M.distance = distance

-- The closest of the names (an array, or a set: a table of name -> true)
-- to `name`, or nil when none is close.
function M.closest(name, names)
  if type(name) ~= "string" then return nil end
  local list = names
  if #names == 0 and next(names) ~= nil then
    list = {}
    for k in pairs(names) do if type(k) == "string" then list[#list + 1] = k end end
    table.sort(list)
  end
  local len = #name
  local ln -- (lower case, made when a name of its length is there)
  for _, n in ipairs(list) do
    if #n == len and n ~= name then
      ln = ln or lower(name)
      if lower(n) == ln then return n end
    end
  end
  local limit = min(3, math.floor(len / 3))
  if len >= 3 and limit < 1 then limit = 1 end
  if limit == 0 or len > MAX_EDIT then return nil end
  ln = ln or lower(name)
  local best, bestd
  for _, n in ipairs(list) do
    if n ~= name and #n <= MAX_EDIT and math.abs(#n - len) <= limit then
      local d = distance(ln, lower(n))
      if d <= limit and (not bestd or d < bestd) then best, bestd = n, d end
    end
  end
  return best
end

-- "; did you mean 'x'?" or "".
function M.hint(name, names)
  local s = M.closest(name, names)
  return s and string.format("; did you mean '%s'?", E.shown(s)) or ""
end

return M
