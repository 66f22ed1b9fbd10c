-- suggest.lua: "did you mean ...?" for a name a script or file misspelt.
-- The suggestion is the known name that differs only in letter case, else
-- the one nearest by edit distance (insertions, deletions, substitutions
-- and swaps of two neighbours, letter case ignored), when it is close:
-- at most a third of the name's length (at most 3) edits away, and at
-- least one for a name of three letters or more (a name of one or two
-- letters is too short to guess: only its letter case is); else a longer
-- name whose start it is or shares all but its last two letters with, at
-- least three (`pos` of `position`, `rotate` of `rotation`).  Ties go to
-- the name listed first.  The rule is written once, in C (core.suggest,
-- csrc/lua/lua_suggest.c), for both sides: this file gives it lists.
--
-- The work is bounded whatever the names: the edit distance is computed
-- only between names of at most 64 bytes (a longer one is suggested only
-- for its letter case: two names of 10 MB made 10^14 steps), only in the
-- band of the table within the limit of its diagonal, and one search
-- spends at most MAX_CELLS (a name looked at costs 1, a cell of a
-- distance table 1).  The suggestion is quoted as user data is
-- (errors.lua's E.shown): it may be a name of the file's.
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local E = require "anim.base.errors"
local byteorder = require "anim.base.order"

local M = {}

local core_suggest = core.suggest
M.MAX_CELLS = core.suggest_max_cells
-- (the key of a prepared list: no name of a set can be it)
local PREPARED = {}

-- names (an array, or a set: a table of name -> true) as closest searches
-- them: { list = the array (a set's names sorted) }.  Prepared once, for
-- many searches of one set (bind.lua: a clip's joints against a rig's).
function M.prepare(names)
  local list = names
  if #names == 0 and next(names) ~= nil then
    list = {}
    for k in pairs(names) do if type(k) == "string" then list[#list + 1] = k end end
    byteorder.sort(list)
  end
  return { list = list, [PREPARED] = true }
end

-- The closest of the names (an array, a set, or what M.prepare made of
-- them) to `name`, or nil when none is close.  `budget`: { cells = n }
-- shared by several searches (each spends from it), else MAX_CELLS for
-- this one.
function M.closest(name, names, budget)
  if type(name) ~= "string" then return nil end
  local list = names[PREPARED] and names.list or M.prepare(names).list
  return core_suggest(name, list, budget)
end

-- "; did you mean 'x'?" or "".
function M.hint(name, names)
  return E.did_you_mean(M.closest(name, names))
end

return M
