-- Keys live once, in the C core (lua/anim/keys.lua, csrc/curve.h): the
-- clip's table keeps placeholders, info.source and anim.encode rebuild
-- every key as the file wrote it, handles are found by rank, and the core
-- refuses descriptions that do not hold together.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local core = require "anim.core"
local cjson = require "cjson"
local H = require "spec.helper"

local diff = H.bitdiff

local function assert_same(a, b)
  local d = diff(a, b)
  assert(d == nil, d)
end

local function doc(joints)
  return '{"version":3,"length":2,"joints":' .. joints .. '}'
end

-- Channels whose keys each take another way through the reader and the
-- rebuild: every form a key may be written in.
local FORMS = doc([==[{
  "a": {
    "position": [
      [0, [1, 2, 3]],
      [0.1, [-0, 0.5, 1e-300], "linear"],
      [0.2, [1, 2, 3], "sine"],
      [0.3, [1, 2, 3], "sine", {"ease": "in"}],
      [0.4, [1, 2, 3], "back", {"ease": "out"}],
      [0.5, [4, 5, 6], "bezier", {"out": [0.05, 1.5], "in": [-0.02, [1, 2, 3]]}],
      [0.6, [4, 5, 6], "bezier", {"in": [-0.01, 2]}],
      [0.7, [4, 5, 6], "bezier", {"out": [0.01, [0, -0, 2]]}],
      [0.8, [1, 1, 1], "step", {"type": "hold", "ease": "inOut", "left": "vector"}],
      [0.9, [1, 1, 1], "linear", {}],
      [1.0, [1, 1, 1], null],
      [1.1, [2, 2, 2], "quad", {"ease": "inOut", "out": [0.1, 1], "why": {"n": [1, null]}}]
    ],
    "rotation": [
      [0, [0.1, 0.2, 0.3, 0.9]],
      [0.5, [0, 0, 0.7071, 0.7071], "bezier", {"out": [0.1, 2], "in": [-0.1, [1, 2, 3]]}],
      [1, [-0, 0, 1e-5, -3], "step"]
    ],
    "scale": [[0, [1, 1, 1], "catmullrom"], [2, [2, 2, 2]]]
  },
  "b": {"rotation": [[0, [10, 20, 30], "elastic"], [1, [0, 0, 0]]], "locked": true},
  "c": {
    "position": [
      [0, [1, 2, 3], "bezier", {"out": [[0.1, 0.1, 0.1], 1]}],
      [0.5, [4, 5, 6], "bezier", {"in": [-0.1, 2], "out": [[0.1, 0.2, 0.05], [1, 2, 3]]}],
      [0.6, [4, 5, 6], "bezier", {"in": [[-0.01, -0.02, -0.03], 2], "out": [[0, -0, 0], 1]}],
      [0.7, [4, 5, 6], "bezier", {"in": [[-0.01, -0.01, -0.01], [1, 2, 3]], "why": [null]}],
      [0.9, [1, 1, 1]]
    ],
    "rotation": [
      [0, [0.1, 0.2, 0.3, 0.9], "bezier", {"out": [[0.1, 0.2, 0.3], 2]}],
      [0.5, [0, 0, 0.7071, 0.7071]]
    ],
    "scale": [[0, [1, 1, 1], "bezier", {"out": [[0.1, 0.1, 0.1], [1, 2, 3]]}], [2, [2, 2, 2]]]
  }
}]==])

describe("keys held by the core", function()
  it("rebuild every form of key exactly, in info.source and in anim.encode", function()
    local original = cjson.decode(FORMS)
    local c = assert(anim.decode(FORMS, "forms"))
    local source = core.clip_info(c).source
    assert_same(original.joints, source.joints)
    local back = cjson.decode((assert(anim.encode(c))))
    assert_same(original.joints, back.joints)
    -- and the clip read back plays the same
    local c2 = assert(anim.decode(assert(anim.encode(c)), "forms"))
    for i = 0, 44 do assert.are.same(c:sample(i / 20), c2:sample(i / 20)) end
  end)

  it("keep the quaternions the file wrote, and play them made unit", function()
    local c = assert(anim.decode(doc('{"a":{"rotation":[[0,[0,0,0,2]],[1,[0,0,3,3]]]}}')))
    assert.are.same({ { 0, 0, 0, 2 }, { 0, 0, 3, 3 } },
      { core.clip_info(c).source.joints.a.rotation[1][2], core.clip_info(c).source.joints.a.rotation[2][2] })
    local q = c:sample(1).a.rotation
    assert.are.same({ 0, 0 }, { q[1], q[2] })
    assert.is_true(math.abs(q[3] - math.sqrt(0.5)) < 1e-15 and q[3] == q[4])
    local half = c:sample(0.5).a.rotation -- slerp of the unit keys: 45 degrees / 2 about z
    local s, co = math.sin(math.pi / 8), math.cos(math.pi / 8)
    assert.is_true(math.abs(half[3] - s) < 1e-12 and math.abs(half[4] - co) < 1e-12)
  end)

  it("keep integers of a Lua table that a double cannot hold", function()
    -- (5.1, 5.2 and LuaJIT have no integers: the literal is the double
    -- 2^53 there, which the clip keeps and writes as it is)
    if not H.integers then
      local c = assert(anim.clip({ joints = { a = { position = { { 0, { 9007199254740993, 1, 2 } }, { 1, { 0, 0, 0 } } } } } }))
      assert.truthy(assert(anim.encode(c)):find("9007199254740992", 1, true))
      assert.are.equal(2 ^ 53, core.clip_info(c).source.joints.a.position[1][2][1])
      return
    end
    local big = 9007199254740993 -- 2^53 + 1
    local c = assert(anim.clip({ joints = { a = { position = { { 0, { big, 1, 2 } }, { 1, { 0, 0, 0 } } } } } }))
    local text = assert(anim.encode(c))
    assert.truthy(text:find("9007199254740993", 1, true), text)
    assert.are.equal(big, core.clip_info(c).source.joints.a.position[1][2][1])
    assert.are.equal("integer", math.type(core.clip_info(c).source.joints.a.position[1][2][1]))
  end)

  it("leave placeholders in the table the clip keeps, and few bytes per key in the Lua heap", function()
    local keys, parts = 0, {}
    for j = 1, 20 do
      local chans = {}
      for ci, ch in ipairs { "position", "rotation", "scale" } do
        local list = {}
        for k = 0, 199 do
          local v = ci == 2 and string.format("[%g,0,0,1]", k / 200) or string.format("[%g,1,2]", k / 100)
          list[#list + 1] = string.format('[%g,%s,"%s"]', k / 100, v, k % 3 == 0 and "linear" or "sine")
          keys = keys + 1
        end
        chans[#chans + 1] = string.format('"%s":[%s]', ch, table.concat(list, ","))
      end
      parts[#parts + 1] = string.format('"j%d":{%s}', j, table.concat(chans, ","))
    end
    local text = doc("{" .. table.concat(parts, ",") .. "}")
    collectgarbage("collect")
    collectgarbage("collect")
    local before = collectgarbage("count")
    local c = assert(anim.decode(text, "many"))
    collectgarbage("collect")
    collectgarbage("collect")
    local per_key = (collectgarbage("count") - before) * 1024 / keys
    -- a Lua table per key and per value would be some 200 bytes
    assert.is_true(per_key < 4, per_key .. " bytes per key")
    local tree = core.clip_info(c).tree
    assert.are.equal("anim.keys", getmetatable(tree.joints.j1.position).__name)
    assert.are.equal(200, #core.clip_info(c).source.joints.j7.rotation)
  end)

  it("play quaternions of any magnitude, subnormal or near the largest double", function()
    local c = assert(anim.decode(doc('{"a":{"rotation":[[0,[5e-324,0,0,0]],[1,[0,0,0,1e-310]]]},'
      .. '"b":{"rotation":[[0,[1.7976931348623157e308,0,0,0]],[1,[1.5e308,0,1e308,0]]]}}')))
    local function near(q, want)
      for i = 1, 4 do
        if math.abs(q[i] - want[i]) > 1e-15 then return false end
      end
      return true
    end
    local h = math.sqrt(0.5)
    assert.are.same({ 1, 0, 0, 0 }, c:sample(0).a.rotation)
    assert.is_true(near(c:sample(0.5).a.rotation, { h, 0, 0, h }))
    assert.are.same({ 0, 0, 0, 1 }, c:sample(1).a.rotation)
    assert.are.same({ 1, 0, 0, 0 }, c:sample(0).b.rotation)
    local l = math.sqrt(1.5 ^ 2 + 1)
    assert.is_true(near(c:sample(1).b.rotation, { 1.5 / l, 0, 1 / l, 0 }))
    -- and they are written back as the file wrote them
    local back = cjson.decode((assert(anim.encode(c))))
    assert.are.equal(5e-324, back.joints.a.rotation[1][2][1])
    assert.are.equal(1.7976931348623157e308, back.joints.b.rotation[1][2][1])
  end)

  it("find each key's handles by rank, across many keys", function()
    -- a long bezier channel with handles on scattered keys: each segment
    -- must play as the clip of its two keys alone
    local list = {}
    for k = 0, 99 do
      local extra = {}
      if k % 3 == 0 then extra.out = { 0.004 + k % 5 * 0.001, (k % 7) - 3 } end
      if k % 7 == 1 then extra["in"] = { -0.003, { k % 4, -1, 2 } } end
      list[k + 1] = { k / 100, { math.sin(k), math.cos(k), k / 50 }, "bezier", next(extra) and extra or nil }
    end
    local c = assert(anim.clip({ length = 1, joints = { a = { position = list } } }))
    for k = 1, 99 do
      local pair = { list[k], list[k + 1] }
      local one = assert(anim.clip({ length = 1, joints = { a = { position = pair } } }))
      for _, f in ipairs { 0.25, 0.5, 0.8 } do
        local t = (k - 1 + f) / 100
        assert.are.same(one:sample(t).a.position, c:sample(t).a.position, "segment " .. k)
      end
    end
  end)
end)

describe("the core's description of keys", function()
  local function desc(pos)
    return { length = 1, joints = { { name = "a", pos = pos } } }
  end

  it("refuses what does not hold together, with a message", function()
    local function err(pos)
      local ok, e = pcall(core.clip_new, desc(pos), {})
      assert.is_false(ok)
      return e
    end
    local base = function() return { t = { 0, 1 }, v = { 0, 0, 0, 1, 1, 1 }, ie = { 0, 0 } } end
    local d = base()
    d.v[6] = nil
    assert.truthy(err(d):find("description channel values do not match times", 1, true))
    d = base()
    d.ie = { 0, 300 }
    assert.truthy(err(d):find("description interpolation out of range", 1, true))
    d = base()
    d.h = { [1] = { 0.1, 0 / 0, 1, 1 } }
    assert.truthy(err(d):find("description handle record must hold 9 or 13 numbers", 1, true))
    d = base()
    d.h = { [1] = 7 }
    assert.truthy(err(d):find("description handle record must hold 9 or 13 numbers", 1, true))
    -- a record of a time per axis after one of one time a handle, and the
    -- reverse: each read into the channel's (wide) records
    d = base()
    d.h = { { 0.1, 0 / 0, 1, 1, 1, 0, 0, 0, 0 }, { 0 / 0, 0 / 0, 0 / 0, -0.1, -0.2, -0.3, 0, 0, 0, 1, 1, 1, 0 } }
    assert.is_truthy(core.clip_new(desc(d), {}))
    -- a record wide the second time it is read (__len: 5.2 on)
    if H.meta_pairs then
      d = base()
      local wide = 0
      d.h = { setmetatable({}, { __len = function() wide = wide + 1; return wide > 1 and 13 or 9 end,
        __index = function() return 0 end }) }
      assert.truthy(err(d):find("description handles changed while read", 1, true))
    end
    d = base()
    d.h = 5
    assert.truthy(err(d):find("description handles must be a table", 1, true))
    -- a table that answers differently the second time it is read
    d = base()
    local reads = 0
    d.h = setmetatable({}, { __index = function(_, i)
      reads = reads + 1
      if reads > 2 and i == 1 then return { 0.1, 0 / 0, 1, 1, 1, 0, 0, 0, 0 } end
    end })
    assert.truthy(err(d):find("description handles changed while read", 1, true))
    assert.truthy(err(5):find("description channel 'pos' must be a table", 1, true))
    assert.truthy(err({ v = {}, ie = {} }):find("description channel without times", 1, true))
    d = base()
    -- (5.1 and LuaJIT read # of a table raw, without __len: a real one)
    if H.meta_pairs then
      d.t = setmetatable({}, { __len = function() return 1000001 end })
    else
      d.t = {}
      for i = 1, 1000001 do d.t[i] = 0 end
    end
    assert.truthy(err(d):find("too many keys in one curve (at most 1000000)", 1, true))
    d = base()
    d.ie = { 0 }
    assert.truthy(err(d):find("description channel interpolations do not match times", 1, true))
    d = { t = { 0, 1 }, vals = { { 0, 0, 0 } }, ie = { 0, 0 } }
    assert.truthy(err(d):find("description channel values do not match times", 1, true))
    d = { t = { 0, 1 }, vals = { { 0, 0, 0 }, 7 }, ie = { 0, 0 } }
    assert.truthy(err(d):find("description key value must be a table", 1, true))
    d = base()
    d.h = { [1] = { 1 / 0, 0 / 0, 1, 1, 1, 0, 0, 0, 0 } }
    assert.truthy(err(d):find("invalid clip description: non-finite handle", 1, true))
    d = { axes = { { t = { 0 }, v = { 0 }, ie = { 0 } } } }
    assert.truthy(err(d):find("description axis must be a table", 1, true))
    local ok, e = pcall(core.clip_new, { joints = { { name = "a", qrot = { axes = {} } } } }, {})
    assert.is_false(ok)
    assert.truthy(e:find("description channel 'qrot' cannot be split", 1, true))
    ok, e = pcall(core.clip_new, { joints = { { name = "a", qrot = { t = { 0 }, v = { 0, 0, 0, 0 }, ie = { 0 } } } } }, {})
    assert.is_false(ok)
    assert.truthy(e:find("invalid clip description: quaternion key with no length", 1, true))
    d = base()
    d.t = { 0, 0 / 0 }
    ok, e = pcall(core.clip_new, desc(d), {})
    assert.is_false(ok)
    assert.truthy(e:find("invalid clip description: non-finite key", 1, true))
  end)

  it("gives the keys back for encoding, and names a bad joint or channel", function()
    local c = core.clip_new(desc({ t = { 0, 1 }, v = { 0, 0, 0, 1, 2, 3 }, ie = { 64, 0 },
      h = { [2] = { 0 / 0, -0.1, 0, 0, 0, 5, 6, 7, 0 } } }), {})
    local t, v, ie, h, arity = core.clip_keys(c, 1, 0)
    assert.are.same({ 0, 1 }, t)
    assert.are.same({ 0, 0, 0, 1, 2, 3 }, v)
    assert.are.same({ 64, 0 }, ie)
    assert.are.equal(3, arity)
    assert.is_nil(h[1])
    assert.are.equal(-0.1, h[2][2])
    assert.are.same({ 5, 6, 7 }, { h[2][6], h[2][7], h[2][8] })
    assert.are.equal(0, select("#", core.clip_keys(c, 1, 2))) -- no scale keys
    assert.has_error(function() core.clip_keys(c, 2, 0) end, "bad argument #2 to 'clip_keys' (joint 2 out of range 1..1)")
    assert.has_error(function() core.clip_keys(c, 1, 4) end, "bad argument #3 to 'clip_keys' (channel 4 out of range 0..3)")
  end)
end)
