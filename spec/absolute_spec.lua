-- Rigs with local rest positions and rest scales, and absolute clips (the
-- channels are a joint's local transform, as glTF's, not offsets from its
-- rest): what the glTF importer builds on.
local anim = require "anim"
local H = require "spec.helper"

local function near_all(got, want, tol)
  for i = 1, #want do
    if math.abs(got[i] - want[i]) > (tol or 1e-12) then
      return false, string.format("component %d: got %.17g want %.17g", i, got[i], want[i])
    end
  end
  return true
end

local S = math.sqrt(0.5)
-- a at (1, 2, 3) turned 90 degrees about z, scale 2; b one unit along a's x
local function rig()
  return assert(anim.rig { joints = {
    { name = "b", parent = "a", translation = { 1, 0, 0 }, scale = { 1, 0, 3 } },
    { name = "a", translation = { 1, 2, 3 }, rotation = { 0, 0, S, S }, scale = { 2, 2, 2 } },
  } })
end

local function pack(...) return { ... } end

describe("rigs with local rests and rest scales", function()
  it("keep the translation and scale each joint gives, and list them", function()
    local joints = rig():joints()
    assert.are.equal("a", joints[1].name)
    assert.are.same({ 1, 2, 3 }, joints[1].translation)
    assert.are.same({ 2, 2, 2 }, joints[1].scale)
    assert.are.same({ 1, 0, 0 }, joints[2].translation)
    assert.are.same({ 1, 0, 3 }, joints[2].scale)
    -- the pivot of a joint given by its translation: the parent's plus it
    assert.are.same({ 2, 2, 3 }, joints[2].position)
  end)

  it("compose the rest as glTF nodes do: T * R * S down the tree", function()
    local a = anim.animator(rig())
    a:update(0)
    assert(near_all(pack(a:local_transform("b")), { 1, 0, 0, 0, 0, 0, 1, 1, 0, 3 }))
    -- b's translation turned by a's rotation and scaled by a's scale
    assert(near_all(pack(a:world_transform("b")), { 1, 4, 3, 0, 0, S, S, 2, 0, 6 }))
  end)

  it("leave rigs given by pivots as they were: rest scale 1, translation = pivot - parent pivot", function()
    for _, j in ipairs(anim.rig("player"):joints()) do
      assert.are.same({ 1, 1, 1 }, j.scale)
    end
    local r = assert(anim.rig { joints = { { name = "r", position = { 0, 1, 0 } },
      { name = "c", parent = "r", position = { 0.5, 3, 0 } } } })
    assert.are.same({ 0.5, 2, 0 }, r:joints()[2].translation)
  end)

  it("check translation and scale like any vector", function()
    local _, err = anim.rig { joints = { { name = "a", translation = { 1, 2 } } } }
    assert.are.equal("rig: joints[1].translation: translation must be an array of 3 numbers, got an array of 2", err)
    _, err = anim.rig { joints = { { name = "a", scale = { 1, 0 / 0, 1 } } } }
    assert.matches("joints%[1%]%.scale%[2%]", err)
  end)

  it("scale offsets multiply the rest scale", function()
    local c = assert(anim.clip { length = 1, joints = { a = { scale = { { 0, { 1.5, 1.5, 1.5 } } } } } })
    local a = anim.animator(rig())
    a:play(c, { fade = 0 })
    a:update(0.5)
    local l = pack(a:local_transform("a"))
    assert(near_all({ l[8], l[9], l[10] }, { 3, 3, 3 }))
  end)
end)

describe("absolute clips", function()
  local clip = assert(anim.decode([=[{"absolute": true, "length": 1, "joints": {
    "a": {"position": [[0, [5, 5, 5]], [1, [6, 6, 6]]], "rotation": [[0, [0, 0, 0, 1]]]},
    "b": {"scale": [[0, [0, 0, 0]], [1, [2, 2, 2]]]}}}]=], "abs"))

  it("say so (clip.absolute), and sample the values as given", function()
    assert.is_true(clip.absolute)
    assert.is_false(anim.clip { joints = {} }.absolute)
    assert.are.same({ 5.5, 5.5, 5.5 }, clip:sample(0.5).a.position)
  end)

  it("set the local transform of the rig joint: the rest is replaced, not offset", function()
    local a = anim.animator(rig())
    a:play(clip, { fade = 0 })
    a:update(0.5)
    -- position and rotation from the clip; the scale, not animated, stays the rest's
    assert(near_all(pack(a:local_transform("a")), { 5.5, 5.5, 5.5, 0, 0, 0, 1, 2, 2, 2 }))
    -- scale 1 on every axis, the axis whose rest scale is 0 included
    assert(near_all(pack(a:local_transform("b")), { 1, 0, 0, 0, 0, 0, 1, 1, 1, 1 }))
    -- get: the offsets from the rest that make it (scale over the rest scale;
    -- on the axis of rest scale 0, the value plus 1)
    assert(near_all(pack(a:get("b")), { 0, 0, 0, 0, 0, 0, 1, 1, 2, 1 / 3 }))
    assert(near_all(pack(a:get("a")), { 4.5, 3.5, 2.5, 0, 0, -S, S, 1, 1, 1 }))
  end)

  it("blend with the rest by weight, as offsets do", function()
    local a = anim.animator(rig())
    a:play(clip, { fade = 0, weight = 0.5 })
    a:update(0)
    -- half way from the rest (1, 2, 3) to (5, 5, 5)
    local l = pack(a:local_transform("a"))
    assert(near_all({ l[1], l[2], l[3] }, { 3, 3.5, 4 }))
    local q = H.qaxis(3, 45)
    assert(H.quatdiff({ l[4], l[5], l[6], l[7] }, q) < 1e-12)
  end)

  it("play on any rig: the values replace that rig's rests", function()
    local a = anim.animator(anim.rig("player"))
    local c = assert(anim.clip { absolute = true, joints = { head = { position = { { 0, { 0, 2, 0 } } } } } })
    a:play(c, { fade = 0 })
    a:update(0)
    local w = pack(a:world_transform("head"))
    -- the torso at 0.75, the head 2 above it
    assert(near_all({ w[1], w[2], w[3] }, { 0, 2.75, 0 }))
  end)

  it("are not carried across rests by retargeting (their turns are not offsets)", function()
    local c = assert(anim.clip { absolute = true, joints = { head = { rotation = { { 0, { 0, 0, S, S } } } } },
      skeleton = { head = { rotation = { 0, 0, 1, 0 } } } })
    local a = anim.animator(anim.rig("player"))
    a:play(c, { fade = 0 })
    a:update(0)
    local l = pack(a:local_transform("head"))
    assert(H.quatdiff({ l[4], l[5], l[6], l[7] }, { 0, 0, S, S }) < 1e-12)
  end)

  it("encode with the field, and refuse one that is not a boolean", function()
    assert.matches('"absolute": true', (anim.encode(clip)))
    local _, err = anim.decode('{"absolute": 1, "joints": {}}', "x")
    assert.are.equal("x: absolute: absolute must be true or false, got number", err)
  end)
end)
