-- lua/anim/base/order.lua: names in byte order, whatever the C locale.
--
-- Lua's < on strings compares them with strcoll, so a host that calls
-- setlocale (a game choosing its language; os.setlocale) changes it:
-- under en_US.UTF-8 "a" < "B", under C "B" < "a".  Every order the module
-- keeps or writes -- a clip's joints and properties (a compressed clip's
-- pack is matched to them by index), what its files and states hold, what
-- its messages and commands list -- sorts names with these instead
-- (core.bytes_less: memcmp, the shorter first).
local core = require "anim.core"

local M = {}

-- Whether string a comes before string b by their bytes.
M.less = core.bytes_less

-- The list of strings sorted in place by their bytes; returns it.
function M.sort(list)
  table.sort(list, M.less)
  return list
end

return M
