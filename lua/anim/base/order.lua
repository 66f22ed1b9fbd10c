-- lua/anim/base/order.lua: names in byte order, whatever the C locale.
--
-- Lua's < on strings compares them with strcoll, so a host that calls
-- setlocale (a game choosing its language; os.setlocale) changes it:
-- under en_US.UTF-8 "a" < "B", under C "B" < "a".  Every order the module
-- keeps or writes -- a clip's joints and properties (a compressed clip's
-- pack is matched to them by index), what its files and states hold, what
-- its messages and commands list -- sorts names with these instead
-- (core.bytes_less: memcmp, the shorter first).
require("anim.base.luajit").no_traversal_traces()
local compat = require "anim.base.compat"
local core = require "anim.core"

local M = {}

-- Whether string a comes before string b by their bytes.
M.less = core.bytes_less

-- The key of table t that `set` lacks (set[k] not true), the first by the
-- bytes of its text, or nil: the unknown field a description's message
-- names, the same whatever the table's order or the locale (a number's
-- text with '.': 5.4's tostring writes the locale's point).
function M.first_unknown(t, set)
  local bad, bad_text
  for k in pairs(t) do
    if not set[k] then
      local text = type(k) == "number" and compat.numtext("%.17g", k) or tostring(k)
      if bad == nil or M.less(text, bad_text) then bad, bad_text = k, text end
    end
  end
  return bad
end

-- The list of strings sorted in place by their bytes; returns it.
function M.sort(list)
  table.sort(list, M.less)
  return list
end

return M
