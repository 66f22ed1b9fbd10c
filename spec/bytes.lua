-- spec/bytes.lua: string.pack and string.unpack for the little-endian
-- formats the specs, fuzz drivers and benchmarks write binary data with
-- ("<" then b B h H I4 f d x), on every runtime.  5.3+ have them; on 5.1,
-- 5.2 and LuaJIT they are written here in doubles (math.frexp), written
-- from IEEE 754, not from the module's code, so that what the specs build
-- stays independent of what they check.
local B = {}

if string.pack then
  B.pack, B.unpack = string.pack, string.unpack
  return B
end

local floor, frexp, huge = math.floor, math.frexp, math.huge -- luacheck: ignore 143
local unpack = table.unpack or unpack -- luacheck: ignore 113 (5.1's global)

-- the bits of a float32 nearest to x (ties to even)
local function f32_bits(x)
  if x ~= x then return 0x7FC00000 end
  local sign = 0
  if x < 0 or (x == 0 and 1 / x < 0) then sign, x = 0x80000000, -x end
  if x == 0 then return sign end
  if x == huge then return sign + 0x7F800000 end
  local m, e = frexp(x) -- x = m * 2^e, 0.5 <= m < 1
  local E, frac = e + 126, (m * 2 - 1) * 2 ^ 23
  if E <= 0 then E, frac = 0, x * 2 ^ 149 end
  local r = floor(frac)
  local d = frac - r
  if d > 0.5 or (d == 0.5 and r % 2 == 1) then r = r + 1 end
  -- (a mantissa rounded up to 2^23 carries into the exponent by itself)
  local bits = E * 2 ^ 23 + r
  if bits >= 0x7F800000 then bits = 0x7F800000 end
  return sign + bits
end

local function f32_value(b)
  local sign = 1
  if b >= 0x80000000 then sign, b = -1, b - 0x80000000 end
  local E, r = floor(b / 2 ^ 23), b % 2 ^ 23
  if E == 255 then return r == 0 and sign * huge or 0 / 0 end
  if E == 0 then return sign * r * 2 ^ -149 end
  return sign * (1 + r / 2 ^ 23) * 2 ^ (E - 127)
end

-- the two 32-bit halves (low, high) of the double x
local function f64_words(x)
  if x ~= x then return 0, 0x7FF80000 end
  local sign = 0
  if x < 0 or (x == 0 and 1 / x < 0) then sign, x = 0x80000000, -x end
  if x == 0 then return 0, sign end
  if x == huge then return 0, sign + 0x7FF00000 end
  local m, e = frexp(x)
  local E, frac = e + 1022, (m * 2 - 1) * 2 ^ 52
  if E <= 0 then E, frac = 0, x * 2 ^ 1000 * 2 ^ 74 end
  return frac % 2 ^ 32, sign + E * 2 ^ 20 + floor(frac / 2 ^ 32)
end

local function f64_value(lo, hi)
  local sign = 1
  if hi >= 0x80000000 then sign, hi = -1, hi - 0x80000000 end
  local E = floor(hi / 2 ^ 20)
  local frac = (hi % 2 ^ 20) * 2 ^ 32 + lo
  if E == 2047 then return frac == 0 and sign * huge or 0 / 0 end
  if E == 0 then return sign * frac * 2 ^ -1074 end
  return sign * (1 + frac / 2 ^ 52) * 2 ^ (E - 1023)
end

local function uint_bytes(v, n)
  local t = {}
  for i = 1, n do
    t[i] = v % 256
    v = floor(v / 256)
  end
  return string.char(unpack(t))
end

local function uint_at(s, pos, n)
  local v = 0
  for i = n - 1, 0, -1 do
    local c = s:byte(pos + i)
    if not c then error("bytes.unpack: data string too short", 3) end
    v = v * 256 + c
  end
  return v
end

-- the items of a format: { letter, size }
local SIZES = { b = 1, B = 1, h = 2, H = 2, f = 4, d = 8, x = 1 }
local function items(fmt)
  assert(fmt:sub(1, 1) == "<", "bytes: little-endian formats only ('<...')")
  local out = {}
  for letter, n in fmt:sub(2):gmatch("(%a)(%d*)") do
    local size = letter == "I" and tonumber(n) or SIZES[letter]
    assert(size and (letter == "I" or n == ""), "bytes: unsupported format item " .. letter .. n)
    out[#out + 1] = { letter, size }
  end
  return out
end

function B.pack(fmt, ...)
  local parts, i = {}, 0
  for _, it in ipairs(items(fmt)) do
    local letter, size = it[1], it[2]
    local v
    if letter ~= "x" then
      i = i + 1
      v = select(i, ...)
    end
    if letter == "x" then parts[#parts + 1] = "\0"
    elseif letter == "f" then parts[#parts + 1] = uint_bytes(f32_bits(v), 4)
    elseif letter == "d" then
      local lo, hi = f64_words(v)
      parts[#parts + 1] = uint_bytes(lo, 4) .. uint_bytes(hi, 4)
    else
      -- (signed: two's complement, as 5.3 writes it)
      parts[#parts + 1] = uint_bytes(v % 2 ^ (8 * size), size)
    end
  end
  return table.concat(parts)
end

function B.unpack(fmt, s, pos)
  pos = pos or 1
  local out = {}
  for _, it in ipairs(items(fmt)) do
    local letter, size = it[1], it[2]
    if letter == "f" then out[#out + 1] = f32_value(uint_at(s, pos, 4))
    elseif letter == "d" then out[#out + 1] = f64_value(uint_at(s, pos, 4), uint_at(s, pos + 4, 4))
    elseif letter ~= "x" then
      local v = uint_at(s, pos, size)
      if (letter == "b" or letter == "h") and v >= 2 ^ (8 * size - 1) then v = v - 2 ^ (8 * size) end
      out[#out + 1] = v
    end
    pos = pos + size
  end
  out[#out + 1] = pos
  return unpack(out)
end

return B
