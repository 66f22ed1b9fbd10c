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
-- only for its letter case: two names of 10 MB made 10^14 steps), only
-- in the band of the table within the limit of its diagonal, and one
-- search spends at most MAX_CELLS; letter case is compared only between
-- names of one length.  The suggestion is quoted as user data is
-- (errors.lua's E.shown): it may be a name of the file's.
local E = require "anim.base.errors"

local M = {}

local lower, byte, min, max = string.lower, string.byte, math.min, math.max
local MAX_EDIT = 64 -- (MAX_SUGGEST in csrc/lua/lua_helpers.c)
M.MAX_EDIT = MAX_EDIT

-- Optimal string alignment distance between a and b (both lower case)
-- when it is at most `limit`, else limit + 1; and the cells of the table
-- it filled.  Only the band of cells within `limit` of the diagonal is
-- filled (a cell outside it is more than `limit` edits), and a row whose
-- every cell is more than `limit` ends the search (no later cell can
-- come back under it): for unlike names a few rows of 2 * limit + 1
-- cells.  (The rows are kept between calls: nothing is allocated.)
local R0, R1, R2 = {}, {}, {}
local function distance(a, b, limit)
  local la, lb = #a, #b
  local big = limit + 1
  if la - lb > limit or lb - la > limit then return big, 0 end
  local prev2, prev, cur = R0, R1, R2
  for j = 0, lb do prev[j] = j <= limit and j or big end
  local cells = 0
  for i = 1, la do
    local lo, hi = max(1, i - limit), min(lb, i + limit)
    local first = lo == 1 and (i <= limit and i or big) or big
    cur[lo - 1] = first
    local ca, row = byte(a, i), first
    for j = lo, hi do
      local cb = byte(b, j)
      local d = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca == cb and 0 or 1))
      if i > 1 and j > 1 and ca == byte(b, j - 1) and byte(a, i - 1) == cb then
        d = min(d, prev2[j - 2] + 1)
      end
      if d > big then d = big end
      cur[j] = d
      if d < row then row = d end
    end
    cur[hi + 1] = big -- (the next row reads one cell further right)
    cells = cells + hi - lo + 1
    if row > limit then return big, cells end
    prev2, prev, cur = prev, cur, prev2
  end
  return prev[lb], cells
end
M.distance = distance

-- The work one suggestion may do: a name looked at costs 1, a cell of a
-- distance table 1 (at most about 0.12 s of Lua, 22 million
-- instructions).  Names alike enough to be worth it cost 2 * 3 + 1 cells
-- a letter; a list of more names than that (a rig of 65,536 joints) is
-- searched until the budget is spent, and what was found is the answer
-- (65,536 rig joints of 64 bytes alike and a misspelt one took 35 s).
local MAX_CELLS = 500000 -- (MAX_CELLS in csrc/lua/lua_helpers.c)
M.MAX_CELLS = MAX_CELLS

-- names (an array, or a set: a table of name -> true) as closest searches
-- them: { list = the array (a set's names sorted), by_lower = lower case
-- -> the names of that lower case, in list order }.  Prepared once, for
-- many searches of one list (bind.lua: a clip's joints against a rig's).
function M.prepare(names)
  local list = names
  if #names == 0 and next(names) ~= nil then
    list = {}
    for k in pairs(names) do if type(k) == "string" then list[#list + 1] = k end end
    table.sort(list)
  end
  local by_lower = {}
  for _, n in ipairs(list) do
    local l = lower(n)
    local same = by_lower[l]
    if not same then by_lower[l] = { n } elseif #same < 2 then same[2] = n end
  end
  return { list = list, by_lower = by_lower }
end

-- The closest of the names (an array, a set, or what M.prepare made of
-- them) to `name`, or nil when none is close.  `budget`: { cells = n }
-- shared by several searches (each spends from it), else MAX_CELLS for
-- this one.
function M.closest(name, names, budget)
  if type(name) ~= "string" then return nil end
  budget = budget or { cells = MAX_CELLS }
  local len = #name
  local ln -- (lower case, made when a name of its length is there)
  local list
  if names.by_lower then
    list = names.list
    -- (at most two names of one lower case matter: name itself, and one other)
    for _, n in ipairs(names.by_lower[lower(name)] or {}) do
      if n ~= name then return n end
    end
  else
    list = names
    if #names == 0 and next(names) ~= nil then list = M.prepare(names).list end
    for _, n in ipairs(list) do
      if #n == len and n ~= name then
        ln = ln or lower(name)
        if lower(n) == ln then return n end
      end
    end
  end
  local limit = min(3, math.floor(len / 3))
  if len >= 3 and limit < 1 then limit = 1 end
  if limit == 0 or len > MAX_EDIT then return nil end
  ln = ln or lower(name)
  local best, bestd
  for _, n in ipairs(list) do
    if budget.cells <= 0 then break end
    budget.cells = budget.cells - 1
    if n ~= name and #n <= MAX_EDIT and math.abs(#n - len) <= limit then
      -- (past the best so far, nothing is worth the cells)
      local d, cells = distance(ln, lower(n), bestd and bestd - 1 or limit)
      budget.cells = budget.cells - cells
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
