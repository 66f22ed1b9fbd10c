-- compat.lua: what differs between the Lua versions the module runs on
-- (5.1, LuaJIT 2.1, 5.2, 5.3, 5.4), in one place.  The Lua files are
-- written in the language all of them parse (no bit operators, no //, no
-- goto, no integer-only functions); what the versions' libraries do
-- differently comes from here.  The C side's differences are in
-- csrc/lua/lua_compat.h.
local M = {}

-- The version: 501 (5.1 and LuaJIT), 502, 503, 504; jit: LuaJIT.
M.version = tonumber((_VERSION:gsub("Lua (%d+)%.(%d+)", function(a, b) return a .. "0" .. b end)))
M.jit = type(rawget(_G, "jit")) == "table"
-- Whether numbers have an integer subtype (5.3+): before, 12 and 12.0
-- are one value, and math.type does not exist.
M.integers = math.type ~= nil

M.unpack = table.unpack or unpack -- luacheck: ignore 113 (5.1's global)

function M.pack(...) return { n = select("#", ...), ... } end

-- math.type: "integer", "float" or nil.  Before 5.3 a number is a
-- "float" (there are no integers to tell apart).
M.mtype = math.type or function(v)
  if type(v) == "number" then return "float" end
  return nil
end

-- math.tointeger: the integer of an integral number, or nil.  Before 5.3,
-- the same number (an integral double is what an integer is there).
M.tointeger = math.tointeger or function(v)
  if type(v) == "number" and v == math.floor(v) and v > -math.huge and v < math.huge then return v end
  return nil
end

-- Integer division and the bit operations the key bytes need, on
-- non-negative integers below 2^31 (where every version agrees).
function M.idiv(a, b) return math.floor(a / b) end

local function bit_and(a, b)
  local r, bit = 0, 1
  while a > 0 and b > 0 do
    if a % 2 == 1 and b % 2 == 1 then r = r + bit end
    a, b, bit = math.floor(a / 2), math.floor(b / 2), bit * 2
  end
  return r
end
M.band = bit_and

function M.rshift(a, n) return math.floor(a / 2 ^ n) end

-- Whether the running code may yield (5.3+: coroutine.isyieldable; 5.2:
-- inside a coroutine; 5.1 and LuaJIT: inside a coroutine, which 5.1 can
-- leave only through Lua calls, not across a pcall: a yield there fails
-- with its own error).
M.isyieldable = coroutine.isyieldable or function()
  local co, main = coroutine.running()
  return co ~= nil and not main
end

-- xpcall(f, handler, ...): 5.1 takes no arguments for f (LuaJIT does).
if M.version >= 502 or M.jit then
  M.xpcall = xpcall
else
  M.xpcall = function(f, handler, ...)
    local args = M.pack(...)
    return xpcall(function() return f(M.unpack(args, 1, args.n)) end, handler)
  end
end

-- load(text, name): 5.1 has loadstring for text (LuaJIT's load takes it).
M.load = (M.version >= 502 or M.jit) and load or loadstring -- luacheck: ignore 113

-- A whole number written without a fraction: "12", also for a float on
-- 5.3+ ("12" where tostring gives "12.0").
function M.intstring(v)
  return string.format("%d", v)
end

return M
