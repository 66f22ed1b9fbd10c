-- The legacy XML importer (anim.import_xml, anim.decode_xml; SEMANTICS 9).
--
-- Expected values are worked out by hand from the files in
-- ../shared/data/xml/Minecraft-Skin-Viewer/ and the rules, and written here
-- as formulas with the working beside them.  The easings, with s the
-- fraction of the segment and D = v1 - v0:
--   SMOOTH      v0 + D*(1 - cos(pi*s))/2      (sine inOut)
--   SMOOTH_IN   v0 + D*sin(pi*s/2)            (sine out: arrives flat)
--   SMOOTH_OUT  v0 + D*(1 - cos(pi*s/2))      (sine in: leaves flat)
-- Rotations are compared as quaternions up to sign; the expected one is
-- built here from Euler yxz with x = pitch, y = -yaw, z = roll.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local core = require "anim.core"
local H = require "spec.helper"

local dir = H.shared .. "/data/xml/Minecraft-Skin-Viewer"
local pi, sin, cos = math.pi, math.sin, math.cos
local EXACT = 1e-12

-- Quaternions ----------------------------------------------------------------------

local axis, mul = H.qaxis, H.qmul

-- The viewer's pose: Ry(-yaw) * Rx(pitch) * Rz(roll).
local function expected(pitch, yaw, roll)
  return mul(mul(axis(2, -yaw), axis(1, pitch)), axis(3, roll))
end

local function rotate(q, v)
  local p = mul(mul(q, { v[1], v[2], v[3], 0 }), { -q[1], -q[2], -q[3], q[4] })
  return { p[1], p[2], p[3] }
end

-- Checks -----------------------------------------------------------------------------

local function import(file)
  local c, err = anim.import_xml(dir .. "/" .. file)
  assert(c, err)
  return c
end

local function decode(text)
  local c, err = anim.decode_xml(text, "test.xml")
  assert(c, err)
  return c
end

local function rot_is(c, joint, t, pitch, yaw, roll, tol)
  local j = c:sample(t)[joint]
  assert(j and j.rotation, joint .. " has no rotation")
  local d = H.quatdiff(j.rotation, expected(pitch, yaw, roll))
  assert(d <= (tol or EXACT), string.format("%s at t=%.17g: off by %.3g (want pitch %g yaw %g roll %g)",
    joint, t, d, pitch, yaw, roll))
end

local function pos_is(c, joint, t, want, tol)
  local j = c:sample(t)[joint]
  assert(j and j.position, joint .. " has no position")
  local d = H.maxdiff(j.position, want)
  assert(d <= (tol or EXACT), string.format("%s at t=%.17g: off by %.3g", joint, t, d))
end

local function info(c) return core.clip_info(c) end

-- Largest difference between two clips over [0, length] (quaternion units
-- for rotations, blocks for positions).
local function clip_diff(a, b, n)
  local worst = 0
  n = n or 20000
  for i = 0, n - 1 do
    local t = (i + 0.37) / n * a.length
    local pa, pb = a:sample(t), b:sample(t)
    for name, j in pairs(pa) do
      if j.rotation then worst = math.max(worst, H.quatdiff(j.rotation, pb[name].rotation)) end
      if j.position then worst = math.max(worst, H.maxdiff(j.position, pb[name].position)) end
    end
  end
  return worst
end

-- A per-axis error of `bound` degrees moves a quaternion by at most about
-- 1.5 * bound * pi/180 (half of the angle, three axes): twice that is safe.
local function quat_tol(bound) return 2 * bound * pi / 180 + EXACT end

local function xml(body, attrs)
  return '<animation' .. (attrs or ' length="4"') .. '>' .. body .. '</animation>'
end

-- The real files -------------------------------------------------------------------------

describe("anim.import_xml", function()
  local files = H.ls(dir, "%.xml$")

  it("finds the XML files beside the clone (" .. dir .. ")", function()
    assert.is_true(#files >= 4)
  end)

  for _, f in ipairs(files) do
    it("imports " .. f .. " as a looping yxz clip on the player rig", function()
      local c = import(f)
      assert.are.equal("loop", c.loop)
      assert.are.equal("yxz", c.euler)
      local src = info(c).source
      assert.are.equal(3, src.version)
      assert.are.equal("player", src.rig)
      assert.are.equal("loop", src.loop)
      -- the table is a valid version 3 clip on its own
      assert.is_truthy(anim.clip(src, f))
    end)
  end

  describe("walk.xml", function()
    -- length 1; no transformation has an `i`.  Every key but the last sets
    -- its own; the last keys (t=1) take the previous key's SMOOTH_OUT, which
    -- shapes nothing since they are last.  right-leg pitch:
    --   0 SMOOTH_IN 0 | 0.25 SMOOTH 45 | 0.75 SMOOTH_OUT -45 | 1 0
    local c
    setup(function() c = import("walk.xml") end)

    it("keeps the animation's name, length and parts", function()
      assert.are.equal("Walk", c.name)
      assert.are.equal(1, c.length)
      assert.are.same({ "leftArm", "leftLeg", "rightArm", "rightLeg" }, c:joints())
    end)

    it("eases each segment as its key says", function()
      -- t=0.125: SMOOTH_IN 0 -> 45, s = 0.5: 45*sin(pi/4)
      rot_is(c, "rightLeg", 0.125, 45 * sin(pi / 4), 0, 0)
      -- t=0.375: SMOOTH 45 -> -45, s = 0.25: 45 - 90*(1 - cos(pi/4))/2
      rot_is(c, "rightLeg", 0.375, 45 - 90 * (1 - cos(pi / 4)) / 2, 0, 0)
      -- t=0.5: the middle of that SMOOTH segment: 0
      rot_is(c, "rightLeg", 0.5, 0, 0, 0)
      -- t=0.875: SMOOTH_OUT -45 -> 0, s = 0.5: -45 + 45*(1 - cos(pi/4))
      rot_is(c, "rightLeg", 0.875, -45 + 45 * (1 - cos(pi / 4)), 0, 0)
      -- left-arm pitch 0 SMOOTH_IN 0 | 0.25 30: at 0.125, 30*sin(pi/4)
      rot_is(c, "leftArm", 0.125, 30 * sin(pi / 4), 0, 0)
      -- at the last key and after it: its value
      rot_is(c, "rightLeg", 1, 0, 0, 0)
    end)

    it("needs no approximation (one axis per channel)", function()
      assert.is_nil(info(c).approx)
      assert.is_true(clip_diff(c, assert(anim.clip(info(c).source))) <= EXACT)
    end)
  end)

  describe("wave.xml", function()
    -- torso roll, transformation i="SMOOTH":
    --   0.2 (SMOOTH) 0 | 0.4 CONSTANT 10 | 1.8 (SMOOTH) 10 | 2 CONSTANT 0 |
    --   2.2 (SMOOTH) 0 | 2.4 CONSTANT -10 | 3.8 (SMOOTH) -10 | 4 0
    -- The keys at 1.8, 2.2 and 3.8 have no `i`: they take the
    -- transformation's SMOOTH, not the CONSTANT of the key before them.
    local c
    setup(function() c = import("wave.xml") end)

    it("holds the first value before the first key (t=0.2)", function()
      rot_is(c, "torso", 0, 0, 0, 0)
      rot_is(c, "torso", 0.1, 0, 0, 0)
      -- right-arm roll starts at 2.2 with 0
      rot_is(c, "rightArm", 1, 0, 0, 0)
    end)

    it("follows SMOOTH and CONSTANT segments", function()
      -- 0.2 -> 0.4 SMOOTH 0 -> 10, s = 0.5: 5
      rot_is(c, "torso", 0.3, 0, 0, 5)
      -- 0.4 CONSTANT: 10 until 1.8
      rot_is(c, "torso", 1.0, 0, 0, 10)
      rot_is(c, "torso", 1.7999, 0, 0, 10)
      -- 2.0 CONSTANT 0, 2.4 CONSTANT -10
      rot_is(c, "torso", 2.1, 0, 0, 0)
      rot_is(c, "torso", 3, 0, 0, -10)
      -- 3.8 -> 4 SMOOTH -10 -> 0, s = 0.5: -5
      rot_is(c, "torso", 3.9, 0, 0, -5)
    end)

    it("gives a key without i after a CONSTANT key the transformation's SMOOTH", function()
      -- 1.8 -> 2.0 SMOOTH 10 -> 0; s = 0.25: 10 - 10*(1 - cos(pi/4))/2;
      -- s = 0.5: 5.  (Inheriting CONSTANT would give 10.)
      rot_is(c, "torso", 1.85, 0, 0, 10 - 10 * (1 - cos(pi / 4)) / 2)
      rot_is(c, "torso", 1.9, 0, 0, 5)
    end)

    it("waves the arms through +-180 degrees of roll", function()
      -- left-arm 0.6 180 -> 0.85 130 SMOOTH, s = 0.5: 155
      rot_is(c, "leftArm", 0.725, 0, 0, 155)
      -- 1.6 180 -> 2.0 0 SMOOTH, s = 0.5: 90; held 0 after 2.0
      rot_is(c, "leftArm", 1.8, 0, 0, 90)
      rot_is(c, "leftArm", 3, 0, 0, 0)
      -- right-arm 2.2 0 -> 2.6 -180 SMOOTH, s = 0.5: -90
      rot_is(c, "rightArm", 2.4, 0, 0, -90)
    end)

    it("turns the sides the viewer's way: positive roll lifts the left arm outward (+X)", function()
      -- at 0.4 the left arm's roll is 0.2 -> 0.6 SMOOTH 0 -> 180, s = 0.5: 90
      local q = c:sample(0.4).leftArm.rotation
      local down = rotate(q, { 0, -1, 0 })
      assert.is_true(H.maxdiff(down, { 1, 0, 0 }) < 1e-12)
    end)

    it("needs no approximation", function()
      assert.is_nil(info(c).approx)
      assert.is_true(clip_diff(c, assert(anim.clip(info(c).source))) <= EXACT)
    end)
  end)

  describe("breathe.xml", function()
    -- length 12.  right-arm pitch, i="SMOOTH", length 4:
    --   0 SMOOTH_IN 0 | 1 (SMOOTH) 2 | 3 SMOOTH_OUT -2 | 4 (SMOOTH) 0
    -- right-arm roll, i="SMOOTH", length 6:  0 0 | 3 -6 | 6 0
    -- Each plays on (t mod 12) mod its length.  left-arm: the same with the
    -- signs of the values flipped.
    local c
    setup(function() c = import("breathe.xml") end)

    it("runs each transformation on its own length", function()
      local function p(tp) -- pitch at transformation time tp (right arm)
        if tp < 1 then return 2 * sin(pi * tp / 2) end                        -- SMOOTH_IN 0 -> 2
        if tp < 3 then return 2 - 4 * (1 - cos(pi * (tp - 1) / 2)) / 2 end   -- SMOOTH 2 -> -2
        return -2 + 2 * (1 - cos(pi * (tp - 3) / 2))                          -- SMOOTH_OUT -2 -> 0
      end
      local function r(tr) -- roll at transformation time tr
        if tr < 3 then return -6 * (1 - cos(pi * tr / 3)) / 2 end              -- SMOOTH 0 -> -6
        return -6 + 6 * (1 - cos(pi * (tr - 3) / 3)) / 2                       -- SMOOTH -6 -> 0
      end
      -- t = 0.3: pitch 2*sin(0.15 pi) = 0.908, roll -3*(1 - cos(0.1 pi)) = -0.147
      rot_is(c, "rightArm", 0.3, p(0.3), 0, r(0.3))
      -- t = 4.5: pitch at 0.5 (2*sin(pi/4)), roll at 4.5 (-3)
      rot_is(c, "rightArm", 4.5, 2 * sin(pi / 4), 0, -3)
      -- t = 8.5: pitch at 0.5, roll at 2.5: -3*(1 - cos(5pi/6)) = -5.598
      rot_is(c, "rightArm", 8.5, 2 * sin(pi / 4), 0, -3 * (1 - cos(5 * pi / 6)))
      -- t = 11: pitch at 3 (-2), roll at 5: -6 + 3*(1 - cos(2pi/3)) = -1.5
      rot_is(c, "rightArm", 11, -2, 0, -1.5)
      for _, t in ipairs { 0.7, 2.2, 5.3, 7.9, 9.1, 10.6, 11.7 } do
        rot_is(c, "rightArm", t, p(t % 4), 0, r(t % 6))
        rot_is(c, "leftArm", t, -p(t % 4), 0, -r(t % 6))
      end
    end)

    it("starts a transformation again at exactly its length", function()
      -- t = 6: pitch at 2 (the middle of SMOOTH 2 -> -2: 0), roll at 0: 0
      rot_is(c, "rightArm", 6, 0, 0, 0)
      -- t = 4: pitch at 0 (0), roll at 4: -6 + 3*(1 - cos(pi/3)) = -4.5
      rot_is(c, "rightArm", 4, 0, 0, -4.5)
      -- t = 8: pitch at 0, roll at 2: -3*(1 - cos(2pi/3)) = -4.5
      rot_is(c, "rightArm", 8, 0, 0, -4.5)
    end)

    it("reports how far its version 3 table is from the clip", function()
      -- pitch keys at 1, 3, 5, ... cut the roll's SMOOTH segments (and the
      -- roll's keys at 6 cut the pitch's): version 3 has one key time for
      -- all three axes, so the table is inexact and the clip is not.
      local a = info(c).approx
      assert.is_table(a)
      assert.is_true(a.bound > 0 and a.bound < 1e-4, tostring(a.bound))
      assert.truthy(a.note:find("rightArm rotation", 1, true))
      assert.truthy(a.note:find("leftArm rotation", 1, true))
      local v3 = assert(anim.clip(a and info(c).source))
      local d = clip_diff(c, v3)
      assert.is_true(d > 1e-9, "the table should differ from the exact clip")
      assert.is_true(d <= quat_tol(a.bound), string.format("%.3g > bound %.3g", d, a.bound))
    end)
  end)

  describe("sneak.xml", function()
    -- length 4.  head pitch CONSTANT, length 1: 0 0 | 0.5 -30; torso +30;
    -- left-arm -15.  offset y/z CONSTANT, length 1: 0 -> -0.225 / -0.375 at
    -- 0.5; leg-offset y/z: 0 -> 0.1 / 0.1 at 0.5.
    -- right-arm pitch, i="CONSTANT", length 4:
    --   0 0 | 0.5 -15 | 1 0 | 1.5 -15 | 2 0 | 2.5 -15 | 3 SMOOTH_IN 0 |
    --   3.15 SMOOTH_OUT -90 | 3.3 (CONSTANT) 0 | 3.5 -15
    -- right-arm roll, i="SMOOTH", length 4:
    --   3 SMOOTH_IN 0 | 3.1 (SMOOTH) -30 | 3.2 SMOOTH_OUT 15 | 3.3 (SMOOTH) 0
    local c
    setup(function() c = import("sneak.xml") end)

    it("moves root by offset and both legs by leg-offset, in blocks", function()
      pos_is(c, "root", 0.25, { 0, 0, 0 })
      pos_is(c, "root", 0.75, { 0, -0.225, -0.375 })
      pos_is(c, "root", 1.0, { 0, 0, 0 })   -- length 1: t=1 is its start again
      pos_is(c, "root", 3.6, { 0, -0.225, -0.375 })
      for _, leg in ipairs { "leftLeg", "rightLeg" } do
        pos_is(c, leg, 2.25, { 0, 0, 0 })
        pos_is(c, leg, 2.5, { 0, 0.1, 0.1 })
      end
    end)

    it("steps the CONSTANT curves of length 1 four times", function()
      rot_is(c, "head", 2.7, -30, 0, 0)
      rot_is(c, "head", 3, 0, 0, 0)
      rot_is(c, "torso", 0.5, 30, 0, 0)
      rot_is(c, "leftArm", 1.99, -15, 0, 0)
      rot_is(c, "rightArm", 0.75, -15, 0, 0)
      rot_is(c, "rightArm", 2.9, -15, 0, 0)
    end)

    it("holds the roll's first value until its first key at t=3", function()
      -- roll 0 (its first key's value) while pitch steps: 1.5 -> -15, 2 -> 0
      rot_is(c, "rightArm", 1.75, -15, 0, 0)
      rot_is(c, "rightArm", 2.25, 0, 0, 0)
      rot_is(c, "rightArm", 2.999, -15, 0, 0)
    end)

    it("swings the right arm with pitch and roll composed in yxz", function()
      -- t=3.05: pitch SMOOTH_IN 0 -> -90 over 3..3.15, s = 1/3:
      --   -90*sin(pi/6) = -45; roll SMOOTH_IN 0 -> -30 over 3..3.1, s = 0.5:
      --   -30*sin(pi/4)
      rot_is(c, "rightArm", 3.05, -45, 0, -30 * sin(pi / 4))
      -- t=3.15: pitch -90 (its key); roll SMOOTH -30 -> 15, s = 0.5: -7.5
      rot_is(c, "rightArm", 3.15, -90, 0, -7.5)
      -- t=3.25: pitch SMOOTH_OUT -90 -> 0 over 3.15..3.3, s = 2/3:
      --   -90 + 90*(1 - cos(pi/3)) = -45; roll SMOOTH_OUT 15 -> 0 over
      --   3.2..3.3, s = 0.5: 15 - 15*(1 - cos(pi/4))
      rot_is(c, "rightArm", 3.25, -45, 0, 15 - 15 * (1 - cos(pi / 4)))
      -- t=3.4: the key at 3.3 takes the transformation's CONSTANT: 0; roll
      -- held at 0 after its last key
      rot_is(c, "rightArm", 3.4, 0, 0, 0)
      -- t=3.75: the last pitch key's -15, held
      rot_is(c, "rightArm", 3.75, -15, 0, 0)
    end)

    it("reports the approximation of the right arm only", function()
      local a = info(c).approx
      assert.is_table(a)
      assert.truthy(a.note:find("rightArm rotation", 1, true))
      assert.falsy(a.note:find("root", 1, true))
      local d = clip_diff(c, assert(anim.clip(info(c).source)))
      assert.is_true(d > 1e-9 and d <= quat_tol(a.bound), string.format("%.3g, bound %.3g", d, a.bound))
    end)

    it("writes a version 3 table with a cycles modifier where the axes share a length", function()
      local head = info(c).source.joints.head
      assert.are.same({ { type = "cycles", before = "repeat", after = "repeat" } }, head.modifiers.rotation)
      -- keys over exactly [0, 1]: the last holds the value at 0
      local keys = head.rotation
      assert.are.equal(0, keys[1][1])
      assert.are.equal(1, keys[#keys][1])
      assert.are.same({ 0, 0, 0 }, keys[#keys][2])
    end)
  end)

  it("shows the start again at exactly the animation's length in all four files", function()
    -- the viewer plays t mod length, so t = length is t = 0; the clip shows
    -- its curves at that time, which in these files are back at the start
    for _, f in ipairs(files) do
      local c = import(f)
      local a, b = c:sample(0), c:sample(c.length)
      for name, j in pairs(a) do
        if j.rotation then assert.is_true(H.quatdiff(j.rotation, b[name].rotation) <= EXACT, f .. " " .. name) end
        if j.position then assert.is_true(H.maxdiff(j.position, b[name].position) <= EXACT, f .. " " .. name) end
      end
    end
  end)

  it("imports to a clip that anim.encode writes and anim.decode reads back", function()
    for _, f in ipairs(files) do
      local c = import(f)
      local text, approx = anim.encode(c)
      assert(text, approx)
      local back = assert(anim.decode(text, f))
      local bound = info(c).approx and info(c).approx.bound or 0
      local d = clip_diff(c, back, 4000)
      assert.is_true(d <= quat_tol(bound), string.format("%s: %.3g", f, d))
      if bound == 0 then assert.is_true(d <= EXACT) end
    end
  end)
end)

-- The rules, on small files ------------------------------------------------------------

describe("anim.decode_xml", function()
  it("defaults: length 1 s, a loop, the name given (or the animation's own)", function()
    local c = decode('<animation><head><pitch><keyframe>10</keyframe></pitch></head></animation>')
    assert.are.equal(1, c.length)
    assert.are.equal("loop", c.loop)
    assert.are.equal("test.xml", c.name)
    assert.are.equal("clip", assert(anim.decode_xml('<animation/>')).name)
    assert.are.equal("Jump", decode('<animation name="Jump"/>').name)
    -- a keyframe without t is at 0
    rot_is(c, "head", 0.5, 10, 0, 0)
  end)

  it("maps pitch, yaw, roll to x, -y, z composed in yxz", function()
    local c = decode(xml('<head><pitch><keyframe>30</keyframe></pitch><yaw><keyframe>90</keyframe></yaw>' ..
      '<roll><keyframe>45</keyframe></roll></head><torso><yaw><keyframe>90</keyframe></yaw></torso>'))
    rot_is(c, "head", 1, 30, 90, 45)
    -- Ry(-90)*Rx(30)*Rz(45), not the other orders
    assert.is_true(H.quatdiff(c:sample(1).head.rotation,
      mul(mul(axis(3, 45), axis(1, 30)), axis(2, -90))) > 0.1)
    -- positive yaw turns the front (+Z) toward -X, the player's right
    local front = rotate(c:sample(1).torso.rotation, { 0, 0, 1 })
    assert.is_true(H.maxdiff(front, { -1, 0, 0 }) < 1e-12)
    -- the version 3 table says the same: y = -yaw
    assert.are.same({ 0, -90, 0 }, info(c).source.joints.torso.rotation[1][2])
  end)

  it("gives a key without i CONSTANT when first, else the previous key's", function()
    -- 0 (CONSTANT) 0 | 1 LINEAR 10 | 2 (LINEAR, inherited) 20 | 3 30
    local c = decode(xml('<head><pitch><keyframe t="0">0</keyframe><keyframe t="1" i="LINEAR">10</keyframe>' ..
      '<keyframe t="2">20</keyframe><keyframe t="3">30</keyframe></pitch></head>'))
    rot_is(c, "head", 0.5, 0, 0, 0)    -- CONSTANT
    rot_is(c, "head", 1.5, 15, 0, 0)   -- LINEAR
    rot_is(c, "head", 2.5, 25, 0, 0)   -- LINEAR again
    rot_is(c, "head", 3.5, 30, 0, 0)   -- held after the last key
  end)

  it("makes a jump of a later key at an equal time", function()
    -- LINEAR 0 0 | 1 10 | 1 20 | 2 30
    local c = decode(xml('<head><pitch i="LINEAR"><keyframe t="0">0</keyframe><keyframe t="1">10</keyframe>' ..
      '<keyframe t="1">20</keyframe><keyframe t="2">30</keyframe></pitch></head>'))
    rot_is(c, "head", 0.999, 9.99, 0, 0, 1e-9)
    rot_is(c, "head", 1, 20, 0, 0)
    rot_is(c, "head", 1.5, 25, 0, 0)
  end)

  it("runs a transformation of length L on t mod L, showing its start at t = L", function()
    -- LINEAR 0 0 | 1 10, length 2, in 4 s: 10 is held from 1 to 2, then
    -- t=2 is transformation time 0 again
    local c = decode(xml('<head><pitch i="LINEAR" length="2"><keyframe t="0">0</keyframe>' ..
      '<keyframe t="1">10</keyframe></pitch></head>'))
    rot_is(c, "head", 1.5, 10, 0, 0)
    rot_is(c, "head", 1.999, 10, 0, 0)
    rot_is(c, "head", 2, 0, 0, 0)
    rot_is(c, "head", 2.5, 5, 0, 0)
    rot_is(c, "head", 3.999, 10, 0, 0)
    assert.is_nil(info(c).approx)
  end)

  it("restarts at every animation loop when the length is not a multiple", function()
    -- animation 3 s, transformation 2 s, LINEAR 0 0 | 2 20: clip time 2.5
    -- is transformation time 0.5
    local c = decode(xml('<head><pitch i="LINEAR" length="2"><keyframe t="0">0</keyframe>' ..
      '<keyframe t="2">20</keyframe></pitch></head>', ' length="3"'))
    rot_is(c, "head", 1.5, 15, 0, 0)
    rot_is(c, "head", 2.5, 5, 0, 0)
    assert.are.equal(3, c.length)
  end)

  it("cuts keys past the length, exactly for LINEAR", function()
    -- LINEAR 0 0 | 4 40 with length 2 in 6 s: only 0 -> 20 of it plays
    local c = decode(xml('<head><pitch i="LINEAR" length="2"><keyframe t="0">0</keyframe>' ..
      '<keyframe t="4">40</keyframe></pitch></head>', ' length="6"'))
    rot_is(c, "head", 1, 10, 0, 0)
    rot_is(c, "head", 1.999, 19.99, 0, 0, 1e-9)
    rot_is(c, "head", 2, 0, 0, 0)
    rot_is(c, "head", 5.5, 15, 0, 0)
    assert.is_nil(info(c).approx)
  end)

  it("cuts a SMOOTH segment at the length within the stated bound", function()
    -- SMOOTH 0 0 | 4 40 with length 2: at t=1, s = 1/4: 20*(1 - cos(pi/4))
    local c = decode(xml('<head><pitch i="SMOOTH" length="2"><keyframe t="0">0</keyframe>' ..
      '<keyframe t="4">40</keyframe></pitch></head>'))
    local a = info(c).approx
    assert.is_table(a)
    assert.is_true(a.clip_bound > 0 and a.clip_bound <= 1e-5)
    for _, t in ipairs { 0.3, 1, 1.7, 2.3, 3.1 } do
      local tp = t % 2
      rot_is(c, "head", t, 20 * (1 - cos(pi * tp / 4)), 0, 0, quat_tol(a.clip_bound))
    end
  end)

  it("starts a transformation of its own length from keys before 0", function()
    -- LINEAR -1 0 | 1 20, length 2: at 0 it is half way (10)
    local c = decode(xml('<head><pitch i="LINEAR" length="2"><keyframe t="-1">0</keyframe>' ..
      '<keyframe t="1">20</keyframe></pitch></head>'))
    rot_is(c, "head", 0, 10, 0, 0)
    rot_is(c, "head", 0.5, 15, 0, 0)
    rot_is(c, "head", 1.5, 20, 0, 0)
    rot_is(c, "head", 2, 10, 0, 0)
    rot_is(c, "head", 2.5, 15, 0, 0)
  end)

  it("ignores a length of 0 or less on a transformation, as the viewer does", function()
    local c = decode(xml('<head><pitch i="LINEAR" length="0"><keyframe t="0">0</keyframe>' ..
      '<keyframe t="2">20</keyframe></pitch></head>'))
    rot_is(c, "head", 3, 20, 0, 0)
  end)

  it("puts axes of different key times and lengths together exactly where no easing is cut", function()
    -- pitch LINEAR with length 1, roll LINEAR without: version 3 holds both
    local c = decode(xml('<head><pitch i="LINEAR" length="1"><keyframe t="0">0</keyframe>' ..
      '<keyframe t="0.5">10</keyframe><keyframe t="1">0</keyframe></pitch>' ..
      '<roll i="LINEAR"><keyframe t="0.3">0</keyframe><keyframe t="3.3">30</keyframe></roll></head>'))
    -- t=1.8: pitch at 0.8: 10 - 10*0.3/0.5 = 4; roll 0.3 -> 3.3 at 1.8: 15
    rot_is(c, "head", 1.8, 4, 0, 15)
    assert.is_nil(info(c).approx)
    assert.is_true(clip_diff(c, assert(anim.clip(info(c).source))) <= EXACT)
  end)

  it("takes the first matching element, in any order, and ignores unknown ones", function()
    local c = decode(xml(
      '<tail><pitch><keyframe>5</keyframe></pitch></tail>' ..
      '<offset><x><keyframe>0.5</keyframe></x><pitch><keyframe>9</keyframe></pitch></offset>' ..
      '<head><roll><keyframe>7</keyframe></roll><x><keyframe>3</keyframe></x></head>' ..
      '<head><roll><keyframe>9</keyframe></roll></head>' ..
      '<group><left-arm><yaw><keyframe>11</keyframe></yaw></left-arm></group>'))
    assert.are.same({ "head", "leftArm", "root" }, c:joints())
    rot_is(c, "head", 0, 0, 0, 7)
    assert.is_nil(c:sample(0).head.position) -- x under a body part is ignored
    pos_is(c, "root", 0, { 0.5, 0, 0 })
    assert.is_nil(c:sample(0).root.rotation) -- pitch under offset is ignored
    -- a part anywhere in the document counts (getElementsByTagName)
    rot_is(c, "leftArm", 0, 0, 11, 0)
  end)

  it("reads a keyframe's text in document order, through child elements", function()
    -- getTextContent: "1" .. "2" .. "3"; comments are not text
    local c = decode(xml('<head><pitch><keyframe>1<b>2</b>3<!-- 4 --></keyframe></pitch></head>'))
    rot_is(c, "head", 0, 123, 0, 0)
  end)

  it("reads values as Java's parseFloat does: white space and a type suffix", function()
    local c = decode(xml('<head><pitch><keyframe t=" 1 "> 2.5f </keyframe><keyframe t="2">+1e1</keyframe></pitch></head>'))
    rot_is(c, "head", 1.5, 2.5, 0, 0)
    rot_is(c, "head", 2, 10, 0, 0)
  end)
end)

-- Bad files --------------------------------------------------------------------------------

describe("bad XML files", function()
  local function err(text)
    local c, msg = anim.decode_xml(text, "bad.xml")
    assert.is_nil(c)
    assert.is_string(msg)
    return msg
  end

  it("refuses text that is not XML", function()
    assert.are.equal("bad.xml: line 1, column 1: not valid XML: syntax error", err("not xml"))
    assert.are.equal("bad.xml: line 1, column 21: not valid XML: mismatched tag",
      err("<animation><torso></animation>"))
    assert.are.equal("bad.xml: line 1, column 1: not valid XML: no element found", err(""))
  end)

  it("refuses an unknown interpolation name, case-sensitively", function()
    assert.are.equal('bad.xml: animation/right-arm/pitch/keyframe[2] (line 5): unknown interpolation "smooth"' ..
      " (expected CONSTANT, LINEAR, SMOOTH, SMOOTH_IN or SMOOTH_OUT; the names are case-sensitive)",
      err('<animation length="4">\n<right-arm>\n<pitch>\n<keyframe t="0">0</keyframe>\n' ..
        '<keyframe t="1" i="smooth">1</keyframe>\n</pitch></right-arm></animation>'))
    assert.truthy(err('<animation>\n<head><yaw i="FAST"><keyframe>1</keyframe></yaw></head></animation>')
      :find('animation/head/yaw (line 2): unknown interpolation "FAST"', 1, true))
  end)

  it("refuses values and times that are not numbers", function()
    assert.are.equal('bad.xml: animation/head/yaw/keyframe[1] (line 1): value must be a number, got "abc"',
      err('<animation><head><yaw><keyframe t="0">abc</keyframe></yaw></head></animation>'))
    assert.are.equal("bad.xml: animation/head/yaw/keyframe[1] (line 1): value must be a number, got nothing",
      err('<animation><head><yaw><keyframe t="0"></keyframe></yaw></head></animation>'))
    assert.are.equal('bad.xml: animation/head/yaw/keyframe[1] (line 1): time t must be a number, got "soon"',
      err('<animation><head><yaw><keyframe t="soon">1</keyframe></yaw></head></animation>'))
    assert.are.equal('bad.xml: animation/head/yaw (line 1): length must be a number, got "long"',
      err('<animation><head><yaw length="long"><keyframe>1</keyframe></yaw></head></animation>'))
    assert.are.equal('bad.xml: animation (line 1): length must be a number, got "x"', err('<animation length="x"/>'))
    assert.are.equal('bad.xml: animation (line 1): length must be a finite number, got "1e999"',
      err('<animation length="1e999"/>'))
    assert.truthy(err('<animation><head><yaw><keyframe>0x10</keyframe></yaw></head></animation>')
      :find('value must be a number, got "0x10"', 1, true))
  end)

  it("refuses keys out of order (the viewer does not sort them)", function()
    assert.are.equal("bad.xml: animation/head/yaw/keyframe[2] (line 2): keys out of order: t=0.5 comes" ..
      " after t=1 (the viewer does not sort keyframes)",
      err('<animation><head><yaw>\n<keyframe t="1">1</keyframe><keyframe t="0.5">2</keyframe></yaw></head></animation>'))
  end)

  it("refuses an animation that does not loop or is not an animation", function()
    assert.are.equal("bad.xml: animation (line 1): length must be greater than 0, got 0 (the animation loops on it)",
      err('<animation length="0"/>'))
    assert.are.equal("bad.xml: anim (line 1): the root element must be <animation>, got <anim>", err("<anim/>"))
  end)

  it("names the file and the element's path and line", function()
    local tmp = H.tmpdir()
    local path = tmp .. "/walk.xml"
    local text = H.read(dir .. "/walk.xml"):gsub('<keyframe t="0.75" i="SMOOTH_OUT">30</keyframe>',
      '<keyframe t="0.75" i="SMOOTH_OUT">thirty</keyframe>')
    H.write(path, text)
    local c, msg = anim.import_xml(path)
    os.remove(path)
    os.remove(tmp)
    assert.is_nil(c)
    assert.are.equal(path .. ': animation/right-arm/pitch/keyframe[3] (line 22): value must be a number, got "thirty"', msg)
  end)

  it("keeps within the documented limits (anim.limits)", function()
    assert.truthy(err("<animation>" .. string.rep("<a>", 300) .. string.rep("</a>", 300) .. "</animation>")
      :find("^bad.xml: line 1: elements nested too deeply %(at most 128 levels, anim.limits.depth%)"))
    local old = anim.set_limits { bytes = 20 }
    local ok, msg = pcall(err, '<animation length="4"></animation>')
    anim.set_limits(old)
    assert(ok, msg)
    assert.are.equal("bad.xml: too large (34 bytes; at most 20, anim.limits.bytes)", msg)
    -- a length repeated 400 times over the animation, beside an axis with
    -- another length, is unrolled: too many keys for a limit of 100
    old = anim.set_limits { keys = 100 }
    ok, msg = pcall(err, xml('<head><pitch length="0.01"><keyframe>0</keyframe><keyframe t="0.005">1</keyframe>' ..
      '</pitch><roll><keyframe>0</keyframe></roll></head>'))
    anim.set_limits(old)
    assert(ok, msg)
    assert.are.equal("bad.xml: animation/head/pitch (line 1): length 0.01 repeats 400 times in the animation's 4 s:" ..
      " too many keys (at most 100, anim.limits.keys)", msg)
  end)

  it("says when the file cannot be read", function()
    local c, msg = anim.import_xml("/nonexistent/walk.xml")
    assert.is_nil(c)
    assert.truthy(msg:find("^/nonexistent/walk.xml: cannot open file"))
  end)

  it("raises on wrong argument types", function()
    assert.has_error(function() anim.import_xml(5) end, "bad argument #1 to 'import_xml' (string expected, got number)")
    assert.has_error(function() anim.decode_xml({}) end, "bad argument #1 to 'decode_xml' (string expected, got table)")
    assert.has_error(function() anim.decode_xml("<animation/>", 5) end,
      "bad argument #2 to 'decode_xml' (string expected, got number)")
  end)
end)

-- Hostile texts (issue 19, defect 4): every one is done, or refused with a
-- message naming the limit, in linear time (well under half a second).
describe("hostile XML texts", function()
  local BUDGET = H.seconds(0.5)
  local function quick(what, text, name)
    local t0 = os.clock()
    local c, err = anim.decode_xml(text, name or "h.xml")
    local took = os.clock() - t0
    assert(took < BUDGET, string.format("%s took %.2f s (budget %.1f s)", what, took, BUDGET))
    return c, err
  end
  local function doc(length, value)
    return '<animation length="' .. length .. '"><head><pitch><keyframe t="0">' .. value
      .. '</keyframe></pitch></head></animation>'
  end
  local pad = string.rep(" ", 80000)

  it("numbers padded with 80,000 spaces: trimmed in linear time (16 s, quadratic, before)", function()
    local c = assert(quick("a padded length", doc(pad .. "1.5" .. pad, pad .. "2f" .. pad)))
    assert.are.equal(1.5, c.length)
    local _, err = quick("a padded length with junk", doc("1" .. pad .. "x", "0"))
    assert.truthy(err:find('^h.xml: animation %(line 1%): length must be a number, got "1  '), err)
    _, err = quick("a padded value with junk", doc("1", "1" .. pad .. "x"))
    assert.truthy(err:find('^h.xml: animation/head/pitch/keyframe%[1%] %(line 1%): value must be a number, got "1  '), err)
  end)

  -- <!ENTITY e0 "          "> and e1..e<levels>, each ten of the one before
  local function entities(levels)
    local d = '<?xml version="1.0"?><!DOCTYPE animation [<!ENTITY e0 "          ">'
    for i = 1, levels do d = d .. string.format('<!ENTITY e%d "%s">', i, string.rep("&e" .. (i - 1) .. ";", 10)) end
    return d .. "]>"
  end

  it("a 300-byte file whose entities expand to 100,000 spaces: linear too", function()
    local text = entities(4) .. doc("1&e4;x", "1&e4;")
    assert.is_true(#text < 400)
    local _, err = quick("entities", text)
    assert.truthy(err:find('^h.xml: animation %(line 1%): length must be a number, got "1  '), err)
  end)

  it("entities that expand beyond anim.limits.bytes are refused, naming it", function()
    -- 21 kB expanding to 2 MB: a ratio of 100, which expat lets through
    local old = anim.set_limits { bytes = 1024 * 1024 }
    local text = entities(4) .. '<animation length="1"><head><pitch>' .. string.rep('<keyframe t="0">&e4;0</keyframe>', 20)
      .. string.rep(" ", 20000) .. "</pitch></head></animation>"
    local ok, c, err = pcall(quick, "entities over the limit", text)
    anim.set_limits(old)
    assert(ok, c)
    assert.is_nil(c)
    assert.truthy(err:find("^h.xml: line 1: the text expands to more than 1048576 bytes with its entities "
      .. "%(anim.limits.bytes%)$"), err)
  end)

  it("a billion laughs are refused by expat's own protection", function()
    local _, err = quick("a billion laughs", entities(9) .. doc("1", "&e9;"))
    assert.truthy(err:find("^h.xml: line 1, column %d+: not valid XML: limit on input amplification factor"), err)
  end)

  it("15,000 keyframes nested 120 elements deep: their paths are made for messages only", function()
    local kfs = {}
    for i = 1, 15000 do kfs[i] = string.format('<keyframe t="%d" i="LINEAR">%d</keyframe>', i - 1, i % 7) end
    local text = '<animation length="15000"><head><pitch>' .. string.rep("<g>", 120) .. table.concat(kfs)
      .. string.rep("</g>", 120) .. "</pitch></head></animation>"
    assert(quick("deep keyframes", text))
  end)
end)
