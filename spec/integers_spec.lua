-- Every number a script hands the C functions (anim.core, which a script
-- may call directly) that becomes an integer is range-checked first
-- (issue 35): NaN, the infinities, 2^63, -2^63, 1e300, 0.5 or 2^32 + 1
-- give "bad argument #n to 'f' (what must be an integer, got 0.5)" or
-- "(what N out of range lo..hi)": never "number has no integer
-- representation", never a cast of a float that has no integer value (a
-- UBSan float-cast-overflow, under `make asan`), never a silent wrap
-- (2^32 + 1 read as 1).
local anim = require "anim"
local core = require "anim.core"
local format = require "anim.format.read"
local H = require "spec.helper"

-- The edges of lua_Integer as doubles compare them (LuaJIT and 5.1 have
-- floats only: the largest double below 2^63 is the largest integer).
local IMAX = math.maxinteger or (2 ^ 63 - 1024)
local IMIN = math.mininteger or -2 ^ 63
local INT_MAX = 2147483647

local ODD = { 0 / 0, 1 / 0, -1 / 0, 2 ^ 63, -2 ^ 63, 1e300, -1e300, 0.5, -0.5, 2 ^ 32 + 1, -(2 ^ 32 + 1), 2 ^ 53 + 2 }
-- (5.3+: the integers beyond every range of the functions below)
if math.maxinteger then
  ODD[#ODD + 1] = math.maxinteger
  ODD[#ODD + 1] = math.mininteger
end

local function valid(v, lo, hi)
  return v == v and v == math.floor(v) and v >= lo and v <= hi
end

local rig = anim.rig("player")
local clip = assert(anim.clip({ length = 1, joints = { head = { position = { { 0, { 0, 0, 0 } } } } } }, "c"))
local function animator() return anim.animator(rig) end
local data = string.rep("\0", 64)

-- { what, argument index (a method's from its first after self), lo, hi, fn(v) calling the function with v there }
local CASES = {
  { "core.animators_update's threads", 4, 0, core.codes.const.max_threads,
    function(v) return core.animators_update({}, 0, {}, v) end },
  { "core.animator_event", 2, IMIN, IMAX, function(v) return core.animator_event(animator(), v) end },
  { "animator:get's joint index", 1, 1, 7, function(v) return animator():get(v) end },
  { "animator:world_transform's joint index", 1, 1, 7, function(v) return animator():world_transform(v) end },
  { "core.base64_decode's from", 2, 1, 5, function(v) return core.base64_decode("AAAA", v) end },
  { "core.gltf_unpack's offset", 2, 0, 64, function(v) return core.gltf_unpack(data, v, 0, 5126, 1, 1, 4) end },
  { "core.gltf_unpack's count", 3, 0, 3000000, function(v) return core.gltf_unpack(data, 0, v, 5126, 1, 1, 0) end },
  { "core.gltf_unpack's component type", 4, 0, 65535, function(v) return core.gltf_unpack(data, 0, 1, v, 1, 1, 4) end },
  { "core.gltf_unpack's rows", 5, 1, 4, function(v) return core.gltf_unpack(data, 0, 1, 5126, v, 1, 4) end },
  { "core.gltf_unpack's columns", 6, 1, 4, function(v) return core.gltf_unpack(data, 0, 1, 5126, 1, v, 4) end },
  { "core.gltf_unpack's stride", 7, 0, 1024, function(v) return core.gltf_unpack(data, 0, 1, 5126, 1, 1, v) end },
  { "core.gltf_pack_floats's from", 2, 1, IMAX, function(v) return core.gltf_pack_floats({ 1, 2 }, v, 2) end },
  { "core.gltf_pack_floats's to", 3, 0, IMAX, function(v) return core.gltf_pack_floats({ 1, 2 }, 1, v) end },
  { "core.float_from_bits", 1, -2 ^ 31, 2 ^ 32 - 1, function(v) return core.float_from_bits(v) end },
  { "core.check_tree's max_string", 2, 0, IMAX, function(v) return core.check_tree({ "x" }, v, 10) end },
  { "core.check_tree's max_depth", 3, 0, 1000, function(v) return core.check_tree({ "x" }, 10, v) end },
  { "the key scanner's count", 2, 0, 1000000, function(v) return format.scanner({}, v, {}, false, 10, 10, 1) end },
  { "the key scanner's max_string", 5, 0, IMAX, function(v) return format.scanner({}, 0, {}, false, v, 10, 1) end },
  { "the key scanner's max_depth", 6, 0, 1000, function(v) return format.scanner({}, 0, {}, false, 10, v, 1) end },
  { "the key scanner's depth", 7, 0, 1000, function(v) return format.scanner({}, 0, {}, false, 10, 10, v) end },
  { "the key scanner's start", 8, 1, 3, function(v)
    return format.scanner({}, 2, { t = {}, vals = {}, ie = {} }, false, 10, 10, 1, v) end },
  { "core.clip_sample_joint's joint", 2, 1, 1, function(v) return core.clip_sample_joint(clip, v, 0) end },
  { "core.clip_keys's joint", 2, 1, 1, function(v) return core.clip_keys(clip, v, 0) end },
  { "core.clip_keys's channel", 3, 0, 3, function(v) return core.clip_keys(clip, 1, v) end },
  { "core.read_file's limit", 2, IMIN, IMAX - 1, function(v) return core.read_file("/nonexistent/x", v) end },
  { "core.read_beneath's limit", 3, IMIN, IMAX - 1, function(v) return core.read_beneath("/nonexistent", "x", v) end },
  { "core.ik_remove's id", 2, IMIN, IMAX, function(v) return core.ik_remove(animator(), v) end },
  { "core.ik_get's id", 2, IMIN, IMAX, function(v) return core.ik_get(animator(), v, 0) end },
  { "core.ik_set's id", 2, IMIN, IMAX, function(v) return core.ik_set(animator(), v, 0, 1) end },
  { "core.json_members's position", 2, IMIN, IMAX, function(v) return core.json_members("{}", v) end },
  { "core.override_add's joint", 2, 0, INT_MAX,
    function(v) return core.override_add(animator(), v, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1) end },
  { "core.override_add's mode", 3, 0, 1,
    function(v) return core.override_add(animator(), 0, v, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1) end },
  { "core.override_add's channels", 4, 0, 7,
    function(v) return core.override_add(animator(), 0, 0, v, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1) end },
  { "core.override_set's id", 2, IMIN, IMAX,
    function(v) return core.override_set(animator(), v, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1) end },
  { "core.override_remove's id", 2, IMIN, IMAX, function(v) return core.override_remove(animator(), v) end },
}

local function show(v)
  if v ~= v then return "nan" end
  return string.format("%.17g", v)
end

describe("a number a script gives a C function, where an integer is wanted (issue 35)", function()
  for _, case in ipairs(CASES) do
    it("(" .. case[1] .. ")", function()
      for _, v in ipairs(ODD) do
        local ok, err = pcall(case[5], v)
        err = tostring(err)
        assert.is_nil(err:find("no integer representation", 1, true), show(v) .. ": " .. err)
        if not valid(v, case[3], case[4]) then
          assert.is_false(ok, show(v) .. " was taken")
          -- (LuaJIT counts a method's arguments from self: #2 for animator:get's joint)
          local n = H.jit and "%d+" or case[2]
          assert.truthy(err:find("bad argument #" .. n .. " to '[^']+' %(.*must be an integer, got")
            or err:find("bad argument #" .. n .. " to '[^']+' %(.* out of range"), show(v) .. ": " .. err)
        end
      end
    end)
  end

  it("never reads 2^32 + 1 as 1 (a silent wrap made joint 1 of it, bits 1 of it...)", function()
    local a = animator()
    assert.has_error(function() core.override_add(a, 2 ^ 32 + 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1) end)
    assert.are.equal(0, #a:overrides())
    assert.has_error(function() core.float_from_bits(2 ^ 32 + 0x3f800000) end)
    assert.has_error(function() core.gltf_unpack(string.rep("\0", 4), 0, 1, 2 ^ 32 + 5126, 1, 1, 4) end)
  end)

  it("an offset near 2^63 is out of range before it is added to (the sum overflowed: a segfault)", function()
    local ok, err = pcall(core.gltf_unpack, data, IMAX - 2048, 2, 5126, 1, 1, 4)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("offset %S+ out of range 0%.%.64"), err)
  end)

  it("a deeper max_depth than 1000 is refused: the walk recurses once per level (a C stack overflow)", function()
    -- (a table 300,000 deep with a max_depth of 2^31 - 1 was a segfault)
    local ok, err = pcall(core.check_tree, {}, 10, 1001)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("bad argument #3 to '[^']+' %(max_depth 1001 out of range 0%.%.1000%)"), err)
  end)

  it("a key scanner's names and default eases are integers in range (2^32 read as 0 before)", function()
    local ok, err = pcall(core.key_scanner, { linear = 2 ^ 32 }, {}, {}, 0 / 0)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("key_scanner: bad names", 1, true), err)
    ok, err = pcall(core.key_scanner, { linear = 0.5 }, {}, {}, 0 / 0)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("key_scanner: bad names", 1, true), err)
    local dflt = {}
    for i = 1, #format.INTERPS do dflt[i] = 0 end
    dflt[1] = 2 ^ 32
    ok, err = pcall(core.key_scanner, {}, {}, dflt, 0 / 0)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("key_scanner: bad default ease", 1, true), err)
  end)

  it("a restore plan's side is in range before it becomes an int", function()
    for _, side in ipairs { 2 ^ 32, 2 ^ 32 + 1, 0.5, 0 / 0, 1 / 0, 2 ^ 63, -1 } do
      local ok, err = pcall(core.animator_restore, animator(), { side = side })
      assert.is_false(ok)
      assert.truthy(tostring(err):find("state plan: bad side", 1, true), show(side) .. ": " .. tostring(err))
    end
  end)

  it("the messages say what and why", function()
    local function err(f, ...) return select(2, pcall(f, ...)) end
    assert.truthy(err(core.clip_keys, clip, 0.5, 0):find("joint must be an integer, got 0.5", 1, true))
    assert.truthy(err(core.clip_keys, clip, 0 / 0, 0):find("joint must be an integer, got nan", 1, true))
    assert.truthy(err(core.clip_keys, clip, 1 / 0, 0):find("joint inf out of range 1..1", 1, true))
    assert.truthy(err(core.clip_keys, clip, 2 ^ 63, 0):find("joint 9.2233720368548e+18 out of range 1..1", 1, true))
    assert.truthy(err(core.override_remove, animator(), 2 ^ 63)
      :find("id 9.2233720368548e+18 out of range -9223372036854775808..9223372036854775807", 1, true))
  end)
end)

describe("numbers of files that become integers (issue 35)", function()
  it("a version, a modifier axis or a key count far beyond an integer: nil and a message", function()
    local function decode(t) return anim.decode(require("cjson").encode(t), "x.anim") end
    for _, v in ipairs { 1e300, -1e300, 2 ^ 63, 0.5, 2 ^ 53 + 2 } do
      local c, err = decode { version = v, joints = {} }
      assert.is_nil(c)
      assert.truthy(err:find("^x.anim: version: unknown version"), err)
      c, err = decode { length = 1, joints = {}, properties = { p = { keys = { { 0, { 1, 2 } } }, modifiers = {
        { type = "noise", axis = v } } } } }
      assert.is_nil(c)
      assert.truthy(err:find("axis must be a component index from 0 to 1, got", 1, true), err)
    end
  end)

  it("a refusal costs a few instructions", function()
    H.bounded(1, function()
      for _ = 1, 1000 do pcall(core.clip_keys, clip, 0.5, 0) end
    end)
  end)
end)
