-- The .animc checksum (core.crc32: csrc/core/animc.c), four bytes a step
-- and the last one to three a byte at a time (issue 41: a small file's
-- load), against the polynomial worked bit by bit.
local core = require "anim.core"
local compat = require "anim.base.compat"

local bxor, rshift = compat.bxor, compat.rshift

-- CRC-32 (ISO-HDLC) of s, bit by bit.
local function reference(s)
  local c = 0xffffffff
  for i = 1, #s do
    c = bxor(c, s:byte(i))
    for _ = 1, 8 do
      if c % 2 == 1 then c = bxor(rshift(c, 1), 0xedb88320) else c = rshift(c, 1) end
    end
  end
  return bxor(c, 0xffffffff)
end

describe("core.crc32", function()
  it("is CRC-32 at every length, whole four-byte steps or not", function()
    local seed = 12345
    local bytes = {}
    for i = 1, 2053 do
      seed = (seed * 1103515245 + 12345) % 2147483648
      bytes[i] = string.char(math.floor(seed / 65536) % 256)
    end
    local all = table.concat(bytes)
    assert.are.equal(0xCBF43926, core.crc32("123456789"))
    assert.are.equal(0, core.crc32(""))
    for _, n in ipairs { 1, 3, 1023, 1024, 1027, 2053 } do
      local s = all:sub(1, n)
      assert.are.equal(reference(s), core.crc32(s), n .. " bytes")
    end
  end)
end)
