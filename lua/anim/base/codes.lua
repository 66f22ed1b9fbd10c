-- codes.lua: the codes of csrc/core/codes.h, where every Lua file takes its
-- numbers from (anim.core.codes is the C side's read-only export).
--   codes.interp.linear           -> 0        (codes[group][name])
--   codes.name("interp", 0)       -> "linear"
--   codes.names("interp")         -> { "linear", "step", ... } in code order (a copy)
--   codes.float.default_fade      -> 0.1
-- The groups are plain tables here, copied once from the C export: the
-- module table itself is read-only (as anim.core.codes is), so no script
-- can change a number the core relies on.
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"

local plain = core.codes_copy()
local M = {}

-- group -> { [code] = name }
local by_code = {}
for group, list in pairs(plain) do
  local names = {}
  for name, code in pairs(list) do
    if group ~= "float" then names[code] = name end
  end
  by_code[group] = names
end

-- The name of a code, or nil.
function M.name(group, code)
  local names = by_code[group]
  return names and names[code]
end

-- The names of a group whose codes are 0, 1, 2...: an array in code order.
function M.names(group)
  local names, out = by_code[group], {}
  local i = 0
  while names[i] ~= nil do
    out[i + 1] = names[i]
    i = i + 1
  end
  return out
end

local function readonly(t, what)
  return setmetatable({}, {
    __index = t,
    __newindex = function(_, k) error(what .. " is read-only (cannot set '" .. core.shown(tostring(k)) .. "')", 2) end,
    __pairs = function() return next, t, nil end,
    __metatable = false,
  })
end

for group, list in pairs(plain) do M[group] = readonly(list, "anim codes." .. group) end

return readonly(M, "anim codes")
