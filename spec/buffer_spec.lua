-- The module buffer (issue 39; docs/api.md, "Buffers"): anim.buffer(n [,
-- kind]), #buf, buf[i] read and written, buf:pointer(), buf:string([i [,
-- j]]), buf.kind, anim.is_buffer; each error's message, and a buffer's
-- memory counted by the collector (its elements live in the userdata).
local anim = require "anim"

local has_unpack = string.unpack ~= nil

local function err(fn)
  local ok, msg = pcall(fn)
  assert.is_false(ok)
  return tostring(msg)
end

describe("anim.buffer", function()
  it("makes n zeros of float (the default) or double", function()
    local f, d = anim.buffer(3), anim.buffer(5, "double")
    assert.are.equal(3, #f)
    assert.are.equal(5, #d)
    assert.are.equal("float", f.kind)
    assert.are.equal("double", d.kind)
    assert.are.equal("float", anim.buffer(2, "float").kind)
    for i = 1, 3 do assert.are.equal(0, f[i]) end
    for i = 1, 5 do assert.are.equal(0, d[i]) end
    local e = anim.buffer(0)
    assert.are.equal(0, #e)
    assert.are.equal("", e:string())
  end)

  it("stores numbers as its kind: floats rounded, doubles exact, beyond the float range infinite", function()
    local f, d = anim.buffer(4), anim.buffer(2, "double")
    f[1], f[2], f[3], f[4] = 0.1, 1.5, 1e300, -1e300
    d[1], d[2] = 0.1, -2
    assert.are_not.equal(0.1, f[1])
    assert.is_true(math.abs(f[1] - 0.1) < 1e-8)
    assert.are.equal(1.5, f[2])
    assert.are.equal(math.huge, f[3])
    assert.are.equal(-math.huge, f[4])
    assert.are.equal(0.1, d[1])
    assert.are.equal(-2, d[2])
    f[2.0] = 7 -- (an integral float is an index)
    assert.are.equal(7, f[2])
  end)

  it("gives the bytes of elements i..j, all by default, in the machine's order", function()
    local f, d = anim.buffer(3), anim.buffer(2, "double")
    f[1], f[2], f[3] = 1, -2.5, 3
    d[1], d[2] = 0.1, 4
    assert.are.equal(12, #f:string())
    assert.are.equal(8, #f:string(2, 3))
    assert.are.equal(4, #f:string(3))
    assert.are.equal("", f:string(2, 1))
    assert.are.equal("", f:string(4))
    assert.are.equal(16, #d:string())
    if has_unpack then
      local a, b, c = string.unpack("=fff", f:string())
      assert.are.same({ 1, -2.5, 3 }, { a, b, c })
      local p, q, pos = string.unpack("=ff", f:string(2, 3))
      assert.are.same({ -2.5, 3, 9 }, { p, q, pos })
      assert.are.equal(-2.5, (string.unpack("=f", f:string(2, 2))))
      local x, y = string.unpack("=dd", d:string())
      assert.are.equal(0.1, x)
      assert.are.equal(4, y)
    end
  end)

  it("gives a light userdata to its first element", function()
    local b = anim.buffer(2)
    local p = b:pointer()
    assert.are.equal("userdata", type(p))
    assert.are.equal(p, b:pointer())
    assert.is_nil(getmetatable(p) and getmetatable(p).__name == "anim.buffer" or nil)
    assert.truthy(tostring(b):find("anim.buffer (2 floats)", 1, true))
  end)

  it("is known by anim.is_buffer, and nothing else is", function()
    assert.is_true(anim.is_buffer(anim.buffer(1)))
    assert.is_true(anim.is_buffer(anim.buffer(0, "double")))
    for _, v in ipairs { {}, "buf", 1, io.stdout, anim.buffer } do
      assert.is_false(anim.is_buffer(v))
    end
    assert.is_false(anim.is_buffer(nil))
    assert.are.equal("anim.buffer", getmetatable(anim.buffer(1)))
  end)

  it("refuses a userdata given its metatable by debug.setmetatable", function()
    local f = io.tmpfile()
    local old = debug.getmetatable(f)
    debug.setmetatable(f, debug.getmetatable(anim.buffer(1)))
    local is = anim.is_buffer(f)
    local msg = err(function() return #f end)
    local msg2 = err(function() return f[1] end)
    debug.setmetatable(f, old)
    f:close()
    assert.is_false(is)
    assert.truthy(msg:find("anim.buffer expected, got", 1, true), msg)
    assert.truthy(msg2:find("anim.buffer expected, got", 1, true), msg2)
  end)
end)

describe("anim.buffer's errors", function()
  it("a count that is no integer from 0 to 2^26", function()
    assert.truthy(err(function() anim.buffer(-1) end)
      :find("bad argument #1 to 'buffer' (element count -1 out of range 0..67108864)", 1, true))
    assert.truthy(err(function() anim.buffer(2 ^ 26 + 1) end)
      :find("element count 67108865 out of range 0..67108864", 1, true))
    assert.truthy(err(function() anim.buffer(1.5) end):find("element count must be an integer, got 1.5", 1, true))
    assert.truthy(err(function() anim.buffer("3") end):find("element count expected, got string", 1, true))
    assert.truthy(err(function() anim.buffer() end):find("element count expected, got no value", 1, true))
  end)

  it("a kind misspelt (with a suggestion) or unknown", function()
    assert.truthy(err(function() anim.buffer(3, "flaot") end)
      :find("bad argument #2 to 'buffer' (unknown kind 'flaot'; did you mean 'float'?)", 1, true))
    assert.truthy(err(function() anim.buffer(3, "Double") end):find("did you mean 'double'?", 1, true))
    assert.truthy(err(function() anim.buffer(3, "quad") end)
      :find("unknown kind 'quad' (expected 'float' or 'double')", 1, true))
    assert.truthy(err(function() anim.buffer(3, 4) end):find("'float' or 'double' expected, got number", 1, true))
  end)

  it("an index out of range, not an integer or not a number, naming it and the size", function()
    local b = anim.buffer(4)
    assert.truthy(err(function() return b[0] end)
      :find("anim.buffer index 0 out of range 1..4 (buffer of 4 floats)", 1, true))
    assert.truthy(err(function() return b[5] end):find("index 5 out of range 1..4", 1, true))
    assert.truthy(err(function() b[5] = 1 end):find("index 5 out of range 1..4", 1, true))
    assert.truthy(err(function() b[-1] = 1 end):find("index -1 out of range 1..4", 1, true))
    assert.truthy(err(function() return b[1.5] end)
      :find("anim.buffer index 1.5 is not an integer (buffer of 4 floats)", 1, true))
    assert.truthy(err(function() return b[0 / 0] end):find("is not an integer", 1, true))
    assert.truthy(err(function() return b[math.huge] end):find("out of range 1..4", 1, true))
    assert.truthy(err(function() return b[true] end)
      :find("anim.buffer index must be a number, got boolean (buffer of 4 floats)", 1, true))
    local d = anim.buffer(0, "double")
    assert.truthy(err(function() return d[1] end)
      :find("anim.buffer index 1 out of range 1..0 (buffer of 0 doubles)", 1, true))
  end)

  it("a value that is not a number, naming the index", function()
    local b = anim.buffer(2, "double")
    assert.truthy(err(function() b[2] = "1" end)
      :find("anim.buffer[2] = value: number expected, got string (buffer of 2 doubles)", 1, true))
    assert.truthy(err(function() b[1] = nil end):find("number expected, got nil", 1, true))
    assert.are.equal(0, b[2])
  end)

  it("a field it does not have, read (with a suggestion) or written", function()
    local b = anim.buffer(1)
    assert.truthy(err(function() return b.knid end):find("no field 'knid' on anim.buffer; did you mean 'kind'?", 1, true))
    assert.truthy(err(function() return b.size end)
      :find("no field 'size' on anim.buffer (its fields: kind, pointer, string)", 1, true))
    assert.truthy(err(function() b.kind = "double" end)
      :find("cannot set field 'kind' of anim.buffer (only its elements buf[i] are written)", 1, true))
    assert.are.equal("float", b.kind)
  end)

  it("string's bounds, and a method called on something else", function()
    local b = anim.buffer(4)
    assert.truthy(err(function() return b:string(0) end)
      :find("bad argument #1 to 'string' (first index 0 out of range 1..5)", 1, true))
    assert.truthy(err(function() return b:string(2, 7) end)
      :find("bad argument #2 to 'string' (last index 7 out of range 1..4)", 1, true))
    assert.truthy(err(function() return b:string(3, 1) end):find("last index 1 out of range 2..4", 1, true))
    assert.truthy(err(function() return b.string({}) end):find("anim.buffer expected, got table", 1, true))
    assert.truthy(err(function() return b.pointer(1) end):find("anim.buffer expected, got number", 1, true))
  end)
end)

describe("a buffer's memory", function()
  it("is counted by the collector and given back when the buffer is collected", function()
    collectgarbage("collect")
    local before = collectgarbage("count")
    local b = anim.buffer(1000000, "double") -- 8 MB
    local during = collectgarbage("count")
    assert.is_true(during - before > 7800, tostring(during - before))
    b[1000000] = 1
    local weak = setmetatable({ b }, { __mode = "v" })
    b = nil -- luacheck: ignore 311
    collectgarbage("collect")
    collectgarbage("collect")
    assert.is_nil(weak[1])
    assert.is_true(collectgarbage("count") - before < 200, tostring(collectgarbage("count") - before))
  end)

  it("keeps a buffer's bytes readable through a string made before it is collected", function()
    local s
    do
      local b = anim.buffer(2)
      b[1], b[2] = 3, 4
      s = b:string()
    end
    collectgarbage("collect")
    assert.are.equal(8, #s)
    if has_unpack then assert.are.same({ 3, 4, 9 }, { string.unpack("=ff", s) }) end
  end)
end)
