-- A .animc's skeleton read from its bytes by the decoder (core.animc_read's
-- 7th result, csrc/lua/lua_skeleton.c; issue 41: a small file's load):
-- the same tables as the Lua reader's (format/read.lua), its vectors the
-- decoded table's own; nil for any other skeleton, which the Lua reader
-- then reads and words.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local core = require "anim.core"
local H = require "spec.helper"
local json = require "anim.base.json"
local format = require "anim.format.read"
local animc = require "anim.format.animc"
local E = require "anim.base.errors"

local same = H.same_typed

local STATS = { 0, 0, 0, 0, 0 }

-- The decoded table and the decoder's skeleton of a file whose table is t.
local function decoded(t, max)
  local tab, _, _, _, _, _, sk = core.animc_read(core.animc_write(STATS, core.value_encode(t), ""), max or 1000)
  return tab, sk
end

local function by_lua(s) return format.skeleton(setmetatable(json.copy(s), {}), "skeleton") end

describe(".animc skeleton from the bytes", function()
  it("is the Lua reader's skeleton, the decoded vectors kept", function()
    local cases = {
      '{}',
      '{"a": {}}',
      '{"root": {"position": [0, 1.5, 0], "rotation": [0, 0, 0, 1]},' ..
        ' "arm": {"parent": "root", "position": [0.25, 1, -0.5], "rotation": [0.1, 0.2, 0.3, 2]}}',
      '{"a": {"parent": null, "rotation": [10, 20, 30], "translation": [1, 2, 3], "scale": [1, 1.5, 2]},' ..
        ' "b": {"parent": "a", "position": null, "rotation": [-3, 0, 0, 0], "extra": {"kept": [1, {"x": null}, "s"]}}}',
      '{"z": {"parent": "y"}, "y": {"parent": "x"}, "x": {}, "w": {"parent": "x", "rotation": [1e-300, 0, 0, 1e-300]}}',
    }
    for _, text in ipairs(cases) do
      local tab, sk = decoded({ joints = {}, skeleton = json.decode(text) })
      assert.is_table(sk, text)
      assert.is_true(same(sk, by_lua(tab.skeleton)), text)
      for name, j in pairs(tab.skeleton) do
        if type(j.position) == "table" then assert.are.equal(j.position, sk[name].position) end
        if type(j.scale) == "table" then assert.are.equal(j.scale, sk[name].scale) end
      end
    end
  end)

  it("is nil for what the Lua reader must word or read, and without a limit", function()
    local cases = {
      '{"a": {"parent": "nobody"}}',
      '{"a": {"parent": "b"}, "b": {"parent": "a"}}',
      '{"a": {"parent": 3}}',
      '{"a": {"rotation": [0, 0, 0, 0]}}',
      '{"a": {"rotation": [1, 2]}}',
      '{"a": {"position": [1, 2, "3"]}}',
      '{"a": {"scale": {"x": 1}}}',
      '{"a": [1, 2]}',
      '{"a": 5}',
      '[1, 2]',
      '"skeleton"',
    }
    for _, text in ipairs(cases) do
      local _, sk = decoded({ joints = {}, skeleton = json.decode(text) })
      assert.is_nil(sk, text)
    end
    if math.type then -- (an integer beyond 2^53: the Lua reader's numbers)
      local big = math.tointeger(2 ^ 53) + 1
      assert.is_nil(select(2, decoded({ joints = {}, skeleton = { a = { rotation = { big, 0, 0, 1 } } } })))
    end
    local t = { joints = {}, skeleton = { a = {}, b = {} } }
    assert.is_nil(select(2, decoded(t, 1)), "over the joints' limit")
    assert.is_table(select(2, decoded(t, 2)))
    assert.is_nil(select(7, core.animc_read(core.animc_write(STATS, core.value_encode(t), ""))), "no limit given")
    assert.is_nil(select(2, decoded({ joints = {} })), "no skeleton")
  end)

  it("leaves a bad skeleton to the Lua reader's message, with the clip's name", function()
    local c = assert(anim.compress(assert(anim.clip({ version = 3, length = 1, skeleton = { a = {}, b = { parent = "a" } },
      joints = { b = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, 90, 0 } } } } } }, "ok"))))
    local tab, pack, stats = core.animc_read(animc.bytes(c))
    local function message(skeleton)
      tab.skeleton = skeleton
      local clip, err = E.catch("x.animc", animc.decode, core.animc_write(stats, core.value_encode(tab), pack), "x.animc")
      assert.is_nil(clip)
      return err
    end
    assert.are.equal("x.animc: skeleton.a.parent: parents form a cycle through 'a'",
      message({ a = { parent = "b" }, b = { parent = "a" } }))
    assert.are.equal("x.animc: skeleton.b.rotation: rotation is a zero quaternion (a rotation needs a non-zero [x, y, z, w])",
      message({ a = {}, b = { parent = "a", rotation = { 0, 0, 0, 0 } } }))
    tab.skeleton = { a = { rotation = { 0, 0, 0, 2 } }, b = { parent = "a" } }
    local back = assert(E.catch("x.animc", animc.decode, core.animc_write(stats, core.value_encode(tab), pack), "x.animc"))
    assert.are.same({ 0, 0, 0, 1 }, core.clip_info(back).skeleton.a.rotation)
  end)
end)
