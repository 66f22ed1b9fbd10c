-- Discrete property channels (issue 40): a property object with
-- `"discrete": true` (every key a `step`) is blended by the largest share
-- (the f of "Blending property channels"), a tie going to the track
-- started later, additive tracks ignored: a slot's attachment or a draw
-- order switches at the middle of a crossfade, never to a third value.
local anim = require "anim"

local function must(c, err) return assert(c, err) end

local function att(values, discrete)
  local keys = {}
  for i, v in ipairs(values) do keys[i] = { i - 1, v, "step" } end
  return { keys = keys, discrete = discrete }
end

describe("discrete property channels", function()
  local rig = anim.rig("player")
  local A = must(anim.clip{ joints = {}, length = 2, loop = "loop", properties = { ["slot.s.attachment"] = att({ 1 }, true) } })
  local B = must(anim.clip{ joints = {}, length = 2, loop = "loop", properties = { ["slot.s.attachment"] = att({ 2 }, true) } })
  local Ac = must(anim.clip{ joints = {}, length = 2, loop = "loop", properties = { ["slot.s.attachment"] = att({ 1 }) } })
  local Bc = must(anim.clip{ joints = {}, length = 2, loop = "loop", properties = { ["slot.s.attachment"] = att({ 2 }) } })
  local add = must(anim.clip{ joints = {}, length = 2, loop = "loop", blend = "additive",
    properties = { ["slot.s.attachment"] = att({ 0, 5 }, true) } })

  it("a crossfade switches at its middle, never to a third value", function()
    local a = anim.animator(rig)
    local ta = a:play(A, { fade = 0 })
    a:update(0.1)
    assert.are.equal(1, a:property("slot.s.attachment"))
    local tb = a:play(B, { fade = 1 })
    ta:stop(1)
    local seen, switched = {}, nil
    for step = 1, 40 do
      a:update(1 / 32)
      local v = a:property("slot.s.attachment")
      seen[v] = true
      -- the rule by hand: the larger weight x fade, a tie to B (started later)
      local wa = ta.fade * ta.weight
      local wb = tb.fade * tb.weight
      local want = (wb >= wa or ta.fade == 0) and 2 or 1
      assert.are.equal(want, v, "update " .. step)
      if v == 2 and not switched then switched = step end
    end
    assert.are.same({ [1] = true, [2] = true }, seen)
    assert.are.equal(16, switched) -- 16/32 s into a fade of 1 s: the middle, the tie to B
  end)

  it("the same crossfade of a continuous property goes through the values between", function()
    local a = anim.animator(rig)
    local ta = a:play(Ac, { fade = 0 })
    a:update(0.1)
    a:play(Bc, { fade = 1 })
    ta:stop(1)
    a:update(0.25)
    local v = a:property("slot.s.attachment")
    assert.is_true(v > 1 and v < 2, tostring(v))
  end)

  it("the higher priority's whole budget wins, and additive tracks are ignored", function()
    local a = anim.animator(rig)
    a:play(A, { fade = 0, priority = "action" })
    a:play(B, { fade = 0, weight = 1 })
    a:play(add, { fade = 0, weight = 1 })
    for _ = 1, 8 do
      a:update(0.25)
      assert.are.equal(1, a:property("slot.s.attachment"))
    end
    -- an additive track alone gives a discrete name no value
    local b = anim.animator(rig)
    b:play(add, { fade = 0 })
    b:update(1.5)
    assert.is_nil(b:property("slot.s.attachment"))
  end)

  it("keeps every component of the winner, and its step keys in time", function()
    local a = anim.animator(rig)
    local c = must(anim.clip{ joints = {}, length = 3, properties = { draworder = att({ 0, 3, 1 }, true),
      pair = att({ { 1, 2 }, { 3, 4 } }, true) } })
    a:play(c, { fade = 0 })
    a:update(0.5)
    assert.are.equal(0, a:property("draworder"))
    a:update(1)
    assert.are.equal(3, a:property("draworder"))
    assert.are.same({ 3, 4 }, { a:property("pair") })
  end)

  it("anim.encode keeps `discrete`, and the clip read back blends alike (one discrete track makes the name discrete)", function()
    local text = assert(anim.encode(A))
    assert.truthy(text:find('"discrete": true', 1, true), text)
    local A2 = must(anim.decode(text, "a.anim"))
    local a = anim.animator(rig)
    a:play(A2, { fade = 0 })
    local tb = a:play(Bc, { fade = 0, weight = 1 })
    a:update(0.1)
    assert.are.equal(2, a:property("slot.s.attachment")) -- a tie: the later track
    tb:adjust_weight(0.5, 0)
    a:update(0.1)
    assert.are.equal(1, a:property("slot.s.attachment"))
  end)

  it("refuses keys that are not steps, and a discrete that is not a boolean, naming the path", function()
    local c, err = anim.clip({ joints = {}, properties = { a = { keys = { { 0, 1, "step" }, { 1, 2, "linear" } },
      discrete = true } } }, "p")
    assert.is_nil(c)
    assert.are.equal("p: properties.a.keys[2][3]: a discrete property's keys must all be 'step', got 'linear'", err)
    c, err = anim.clip({ joints = {}, properties = { a = { keys = { { 0, 1 } }, discrete = true } } }, "p")
    assert.is_nil(c)
    assert.are.equal("p: properties.a.keys[1][3]: a discrete property's keys must all be 'step', got none (linear)", err)
    c, err = anim.clip({ joints = {}, properties = { a = { keys = { { 0, 1, "step" } }, discrete = "yes" } } }, "p")
    assert.is_nil(c)
    assert.are.equal("p: properties.a.discrete: discrete must be true or false, got string", err)
    c, err = anim.decode('{"version":3,"joints":{},"properties":{"a":{"keys":[[0,1,"bezier"]],"discrete":true}}}', "f.anim")
    assert.is_nil(c)
    assert.are.equal("f.anim: properties.a.keys[1][3]: a discrete property's keys must all be 'step', got 'bezier'", err)
  end)
end)
