-- A clip's skeleton read in C when it is plain (core.skeleton_plain,
-- csrc/lua/lua_skeleton.c; issue 41: a small .animc's load): the same
-- tables as the Lua reader's (format/read.lua), and nil for every skeleton
-- the Lua reader must see (its messages are the only ones).
local anim = require "anim"
local core = require "anim.core"
local H = require "spec.helper"
local json = require "anim.base.json"
local format = require "anim.format.read"

local same = H.same_typed

-- The Lua reader's result: a metatable (empty: it changes nothing the
-- reader reads) keeps the table from the core's reading.
local function by_lua(s)
  local copy = json.copy(s)
  return format.skeleton(setmetatable(copy, {}), "skeleton")
end

local PLAIN = {
  '{}',
  '{"a": {}}',
  '{"root": {"position": [0, 1.5, 0], "rotation": [0, 0, 0, 1]},' ..
    ' "arm": {"parent": "root", "position": [0.25, 1, -0.5], "rotation": [0.1, 0.2, 0.3, 2]}}',
  '{"a": {"parent": null, "rotation": [10, 20, 30], "translation": [1, 2, 3], "scale": [1, 1.5, 2]},' ..
    ' "b": {"parent": "a", "position": null, "rotation": [-3, 0, 0, 0], "extra": {"kept": true}}}',
  '{"z": {"parent": "y"}, "y": {"parent": "x"}, "x": {}, "w": {"parent": "x", "rotation": [1e-300, 0, 0, 1e-300]}}',
}

describe("core.skeleton_plain", function()
  it("reads a plain skeleton as the Lua reader does", function()
    for _, text in ipairs(PLAIN) do
      local s = json.decode(text)
      local c = core.skeleton_plain(s, 1000)
      assert.is_table(c, text)
      assert.is_true(same(c, by_lua(s)), text)
    end
    -- a joint of length 0 is an object whatever its keys (E.object)
    local s = { a = { [2.5] = true, position = { 1, 2, 3 } }, b = { [3] = 1, parent = "a" } }
    assert.is_true(same(core.skeleton_plain(s, 1000), by_lua(s)))
  end)

  it("keeps the file's vectors and makes a normalised quaternion", function()
    local s = json.decode('{"a": {"position": [1, 2, 3], "rotation": [0, 0, 0, 2], "scale": [1, 1, 1]}}')
    local c = core.skeleton_plain(s, 1000)
    assert.are.equal(s.a.position, c.a.position)
    assert.are.equal(s.a.scale, c.a.scale)
    assert.are_not.equal(s.a.rotation, c.a.rotation)
    assert.are.same({ 0, 0, 0, 1 }, c.a.rotation)
  end)

  it("gives nil for what the Lua reader must word or read", function()
    local cases = {
      '{"a": {"parent": "nobody"}}',
      '{"a": {"parent": "b"}, "b": {"parent": "a"}}',
      '{"a": {"parent": "a"}}',
      '{"a": {"parent": 3}}',
      '{"a": {"rotation": [0, 0, 0, 0]}}',
      '{"a": {"rotation": [1, 2]}}',
      '{"a": {"position": [1, 2]}}',
      '{"a": {"position": [1, 2, "3"]}}',
      '{"a": {"scale": {"x": 1}}}',
      '{"a": {"translation": true}}',
      '{"a": [1, 2]}',
      '{"a": 5}',
      '[1, 2]',
      '"skeleton"',
    }
    for _, text in ipairs(cases) do
      assert.is_nil(core.skeleton_plain(json.decode(text), 1000), text)
    end
    assert.is_nil(core.skeleton_plain(json.decode('{"a": {}, "b": {}}'), 1), "over the joints' limit")
    assert.is_nil(core.skeleton_plain(setmetatable({}, {}), 1000), "a metatable")
    assert.is_nil(core.skeleton_plain({ [1] = {} }, 1000), "a name that is no string")
    assert.is_nil(core.skeleton_plain({ a = { position = setmetatable({ 1, 2, 3 }, {}) } }, 1000), "a vector's metatable")
  end)

  it("leaves the messages to the Lua reader", function()
    local _, e = anim.decode('{"joints": {}, "skeleton": {"a": {"rotation": [0, 0, 0, 0]}}}')
    assert.are.equal("clip: skeleton.a.rotation: rotation is a zero quaternion (a rotation needs a non-zero [x, y, z, w])", e)
    _, e = anim.decode('{"joints": {}, "skeleton": {"b": {"parent": "c"}, "c": {"parent": "b"}}}')
    assert.are.equal("clip: skeleton.b.parent: parents form a cycle through 'b'", e)
  end)
end)
