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

-- rawlen (5.2+): 5.1's # of a table is raw already (it has no __len).
M.rawlen = rawlen or function(t) return #t end -- luacheck: ignore 113

function M.pack(...) return { n = select("#", ...), ... } end

-- math.type: "integer", "float" or nil.  Before 5.3 a number is a
-- "float" (there are no integers to tell apart).
M.mtype = math.type or function(v)
  if type(v) == "number" then return "float" end
  return nil
end

-- math.tointeger, of numbers only (5.4.3+ also converts the string "3";
-- 5.1 has no such thing): the integer of an integral number in the
-- range of a 64-bit integer, or nil.  Before 5.3, the same number (an
-- integral double is what an integer is there).
local tointeger = math.tointeger
if tointeger then
  M.tointeger = function(v)
    if type(v) ~= "number" then return nil end
    return tointeger(v)
  end
else
  M.tointeger = function(v)
    if type(v) == "number" and v % 1 == 0 and v >= -2 ^ 63 and v < 2 ^ 63 then return v end
    return nil
  end
end

-- (arithmetic, bit by bit: a result bit is set where keep(x, y) says so)
local function bitwise(keep)
  return function(a, b)
    local r, bit = 0, 1
    while a > 0 or b > 0 do
      if keep(a % 2, b % 2) then r = r + bit end
      a, b, bit = math.floor(a / 2), math.floor(b / 2), bit * 2
    end
    return r
  end
end

-- The bit operations the key bytes and flags need, on non-negative
-- integers below 2^31 (where every version agrees): 5.3+'s operators
-- (compiled from text, so that 5.1 parses this file), LuaJIT's bit,
-- 5.2's bit32, else arithmetic.
if M.version >= 503 then
  M.band = load("return function(a, b) return a & b end")()
elseif M.jit then
  M.band = rawget(_G, "bit").band -- (LuaJIT's, loaded with it)
elseif rawget(_G, "bit32") then
  M.band = rawget(_G, "bit32").band
else
  M.band = bitwise(function(x, y) return x == 1 and y == 1 end)
end

-- Exclusive or, on integers below 2^32 (the specs' reference of the noise
-- hash), unsigned on every version: LuaJIT's bit and 5.2's bit32 give
-- signed or 32-bit results, taken back to [0, 2^32) here.
if M.version >= 503 then
  M.bxor = load("return function(a, b) return a ~ b end")()
elseif M.jit then
  local bxor = rawget(_G, "bit").bxor
  M.bxor = function(a, b) return bxor(a, b) % 4294967296 end
elseif rawget(_G, "bit32") then
  M.bxor = rawget(_G, "bit32").bxor
else
  M.bxor = bitwise(function(x, y) return x ~= y end)
end

function M.rshift(a, n) return math.floor(a / 2 ^ n) end

-- Little-endian 32-bit unsigned integers in strings (5.3's string.pack
-- "<I4"): the 4 bytes of n, and the number at byte pos of s (or nil).
function M.pack_u32le(n)
  return string.char(n % 256, math.floor(n / 256) % 256, math.floor(n / 65536) % 256, math.floor(n / 16777216) % 256)
end
function M.u32le(s, pos)
  local a, b, c, d = s:byte(pos, pos + 3)
  if not d then return nil end
  return a + b * 256 + c * 65536 + d * 16777216
end

-- utf8.len(s, i) as 5.3 has it, strict (no surrogates, nothing beyond
-- U+10FFFF, no overlong forms): the count of characters from byte i, or
-- nil and the position of the first byte that is not valid UTF-8.
function M.utf8_len(s, i)
  local n, len = 0, #s
  i = i or 1
  while i <= len do
    local c = s:byte(i)
    local need, min
    if c < 0x80 then need, min = 0, 0
    elseif c >= 0xC2 and c <= 0xDF then need, min = 1, 0x80
    elseif c >= 0xE0 and c <= 0xEF then need, min = 2, 0x800
    elseif c >= 0xF0 and c <= 0xF4 then need, min = 3, 0x10000
    else return nil, i end
    local cp = need == 0 and c or (c % (2 ^ (6 - need)))
    for k = 1, need do
      local cc = s:byte(i + k)
      if not cc or cc < 0x80 or cc > 0xBF then return nil, i end
      cp = cp * 64 + (cc - 0x80)
    end
    if cp < min or cp > 0x10FFFF or (cp >= 0xD800 and cp <= 0xDFFF) then return nil, i end
    i = i + need + 1
    n = n + 1
  end
  return n
end

-- Whether the running code may yield (5.3+: coroutine.isyieldable; 5.2:
-- inside a coroutine; 5.1 and LuaJIT: inside a coroutine, which 5.1 can
-- leave only through Lua calls, not across a pcall: a yield there fails
-- with its own error).
M.isyieldable = coroutine.isyieldable or function()
  local co, main = coroutine.running()
  return co ~= nil and not main
end

-- Whether a coroutine can yield from inside a pcall (5.2+ and LuaJIT; 5.1
-- cannot: "attempt to yield across metamethod/C-call boundary").
M.pcall_yields = M.version >= 502 or M.jit

-- xpcall(f, handler, ...): 5.1 takes no arguments for f (LuaJIT does).
if M.version >= 502 or M.jit then
  M.xpcall = xpcall
else
  M.xpcall = function(f, handler, ...)
    local args = M.pack(...)
    return xpcall(function() return f(M.unpack(args, 1, args.n)) end, handler)
  end
end

-- load(text, name, mode, env) of a text: 5.1's load takes only functions,
-- its loadstring takes no environment (setfenv gives it); LuaJIT's load
-- takes all four.
if M.version >= 502 or M.jit then
  M.load = load
else
  M.load = function(text, name, _, env)
    local f, err = loadstring(text, name) -- luacheck: ignore 113
    if f and env then setfenv(f, env) end -- luacheck: ignore 113
    return f, err
  end
end

-- os.execute(cmd) as 5.2+ answers: true when the command exited with
-- status 0, else nil (5.1 and LuaJIT return the status, 0 on success).
function M.execute(cmd)
  local r = os.execute(cmd)
  if type(r) == "number" then return r == 0 or nil end
  return r or nil
end

-- atan2(y, x): 5.1 and LuaJIT's math.atan takes one argument (their
-- math.atan2 takes two), 5.4 has only math.atan(y, x)
M.atan2 = math.atan2 or math.atan -- luacheck: ignore 143

-- log10: 5.1 and LuaJIT have math.log10, 5.4 only math.log(x, 10), which
-- 5.1 reads as math.log(x)
M.log10 = math.log10 or function(x) return math.log(x, 10) end -- luacheck: ignore 143

-- The text of a number with '.' for its point (JSON's, a file's, the
-- states' "%a" strings) read whatever the C locale: Lua 5.1 and 5.2 read
-- numbers with strtod, whose point is the locale's (a host's
-- setlocale(LC_NUMERIC): under de_DE tonumber("1.5") is nil there); 5.3+
-- and LuaJIT read '.' in any locale.  (Text with the locale's own point,
-- "1,5" under de_DE, reads as that locale reads it, as on 5.3+.)  Anything
-- but a string goes to tonumber as it is.  Where numbers are many, callers
-- write `tonumber(s) or number(s)`: the same, with a call only when
-- tonumber fails.
local reads_dot = M.version >= 503 or M.jit
-- The point the C library writes and reads now (a host may change the
-- locale at any time: asked each time).
local function locale_point() return string.format("%.1f", 0.5):sub(2, -2) end
function M.number(s)
  local v = tonumber(s)
  if v ~= nil or reads_dot or type(s) ~= "string" or not s:find(".", 1, true) then return v end
  local p = locale_point()
  if p == "." then return nil end
  return tonumber((s:gsub("%.", p)))
end

-- string.format(fmt, x) of one number, its point '.' whatever the C
-- locale (printf writes the locale's: "%.2f" of 1.5 is "1,50" under
-- de_DE): the numbers of generated code, of a file's or a message's text.
function M.numtext(fmt, x)
  local s = string.format(fmt, x)
  local p = locale_point()
  if p ~= "." then s = s:gsub(p:gsub("%p", "%%%0"), ".") end
  return s
end

-- A finite double as a hex float string that tonumber reads back bit for
-- bit: string.format("%a") where the version has it (5.1 has not: there,
-- the same digits from math.frexp, each step exact in binary), its point
-- '.' whatever the C locale (printf writes the locale's: "0x1,8p+0" under
-- de_DE, which a peer under another locale could not read back).
local has_a = pcall(string.format, "%a", 1)
function M.hexfloat(x)
  if has_a then
    local t = string.format("%a", x)
    if t:find("[^%x%+%-xXpP%.]") then t = t:gsub("[^%x%+%-xXpP%.]+", ".") end
    return t
  end
  if x == 0 then return 1 / x < 0 and "-0x0p+0" or "0x0p+0" end
  local sign = ""
  if x < 0 then sign, x = "-", -x end
  local m, e = math.frexp(x) -- luacheck: ignore 143 (5.1's, gone from 5.4, which has %a)
  local frac, digits = m * 2 - 1, {}
  while frac > 0 do
    frac = frac * 16
    local d = math.floor(frac)
    digits[#digits + 1] = string.format("%x", d)
    frac = frac - d
  end
  e = e - 1
  return sign .. "0x1" .. (#digits > 0 and "." .. table.concat(digits) or "") .. "p" .. (e >= 0 and "+" or "") .. e
end

return M
