-- 2D transform constraints (issue 40): a target's world or local
-- transform copied to the constrained bones (or added, relative), channel
-- by channel with mixes and offsets (docs/formats.md, "2D skeletons"),
-- against values worked here from the rules.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"

local rad = math.pi / 180
local atan2 = rawget(math, "atan2") or math.atan

local function W(a, bone) return { a:world2d(bone) } end

local function near(want, got, tol, what)
  for i = 1, #want do
    assert(math.abs(want[i] - got[i]) <= (tol or 1e-9),
      string.format("%s: component %d: want %.17g, got %.17g", what or "", i, want[i], got[i]))
  end
end

-- root, the target t (turned 30, scaled 2 by 0.5, sheared 20 in y) and the
-- constrained bone b (turned 20, scale 1.5), its child k; the constraint
-- from tc's fields.
local function posed(tc, clip)
  local sk = assert(anim.skeleton2d{ bones = {
    { name = "root" },
    { name = "t", parent = "root", x = 10, y = 5, rotation = 30, scale_x = 2, scale_y = 0.5, shear_y = 20 },
    { name = "b", parent = "root", x = 1, y = 2, rotation = 20, scale_x = 1.5 },
    { name = "k", parent = "b", x = 4 },
  }, transforms = { tc } })
  local a = anim.animator(sk)
  if clip then a:play(clip, { fade = 0 }) end
  a:update(0)
  return a
end

local function tc(more)
  local c = { name = "copy", bones = { "b" }, target = "t" }
  for k, v in pairs(more or {}) do c[k] = v end
  return c
end

local function zero_mixes(c)
  for _, k in ipairs({ "mix_rotate", "mix_x", "mix_y", "mix_scale_x", "mix_scale_y", "mix_shear_y" }) do
    c[k] = c[k] or 0
  end
  return c
end

describe("2D transform constraints", function()
  it("world, every mix 1: the bone takes the target's whole world transform; its child follows", function()
    local a = posed(tc())
    near(W(a, "t"), W(a, "b"), 1e-9, "b")
    local b = W(a, "b")
    near({ b[1] * 4 + b[5], b[3] * 4 + b[6] }, { W(a, "k")[5], W(a, "k")[6] }, 1e-9, "k")
  end)

  it("world: a mix turns part of the way; offsets are in the target's own axes", function()
    local a = posed(zero_mixes(tc{ mix_rotate = 0.5 }))
    -- from 20 to 30, half way: 25, the scale kept
    near({ 1.5 * math.cos(25 * rad), -math.sin(25 * rad), 1.5 * math.sin(25 * rad), math.cos(25 * rad), 1, 2 },
      W(a, "b"), 1e-9)
    a = posed(zero_mixes(tc{ mix_rotate = 1, mix_x = 1, mix_y = 1, offset_rotation = 10, offset_x = 2 }))
    -- the target's x axis is 2 long at 30 degrees: its point (2, 0) is 4 along it
    local x, y = 10 + 4 * math.cos(30 * rad), 5 + 4 * math.sin(30 * rad)
    near({ 1.5 * math.cos(40 * rad), -math.sin(40 * rad), 1.5 * math.sin(40 * rad), math.cos(40 * rad), x, y },
      W(a, "b"), 1e-9)
  end)

  it("world: a target whose x axis has no length turns the bone toward the direction 0", function()
    -- (the turn is one atan2 of the axes' cross and dot products, which an
    -- axis of no length leaves at 0: its direction is then atan2(0, 0), 0)
    local sk = assert(anim.skeleton2d{ bones = {
      { name = "root" },
      { name = "t", parent = "root", x = 10, y = 5, rotation = 30, scale_x = 0 },
      { name = "b", parent = "root", x = 1, y = 2, rotation = 20, scale_x = 1.5 },
    }, transforms = { zero_mixes(tc{ mix_rotate = 0.5 }) } })
    local a = anim.animator(sk)
    a:update(0)
    -- from 20 toward 0, half way: 10
    near({ 1.5 * math.cos(10 * rad), -math.sin(10 * rad), 1.5 * math.sin(10 * rad), math.cos(10 * rad), 1, 2 },
      W(a, "b"), 1e-9)
  end)

  it("world: a turn and a shear read back and posed again through the bone's child", function()
    -- the constrained bone's local values are read back from its world
    -- (its turn kept as its x axis' direction, its shearY with its cosine
    -- and sine): its child, posed after it, follows the world it was given
    local a = posed(zero_mixes(tc{ mix_rotate = 0.7, mix_shear_y = 0.6, mix_scale_y = 0.4, offset_shear_y = 5 }))
    local b, k = W(a, "b"), W(a, "k")
    near({ b[1], b[2], b[3], b[4], b[1] * 4 + b[5], b[3] * 4 + b[6] }, k, 1e-12, "k")
  end)

  it("world: scale and shear copied, with offsets", function()
    local a = posed(zero_mixes(tc{ mix_scale_x = 1, mix_scale_y = 0.5, offset_scale_x = 0.5 }))
    local b = W(a, "b")
    near({ 2.5, 0.75 }, { math.sqrt(b[1] ^ 2 + b[3] ^ 2), math.sqrt(b[2] ^ 2 + b[4] ^ 2) }, 1e-9, "scales")
    a = posed(zero_mixes(tc{ mix_shear_y = 1, offset_shear_y = 5 }))
    b = W(a, "b")
    -- the angle from the x axis to the y axis: the target's 110, plus 5
    near({ 115 }, { (atan2(b[4], b[2]) - atan2(b[3], b[1])) / rad }, 1e-9, "shear")
  end)

  it("relative: the target's transform added (world and local)", function()
    local a = posed(zero_mixes(tc{ relative = true, mix_rotate = 1, mix_x = 1, mix_y = 1 }))
    near({ 1.5 * math.cos(50 * rad), -math.sin(50 * rad), 1.5 * math.sin(50 * rad), math.cos(50 * rad), 11, 7 },
      W(a, "b"), 1e-9, "world")
    a = posed(tc{ ["local"] = true, relative = true })
    -- rotation 20 + 30, scale 1.5 x 2 and 1 x 0.5, shear 0 + 20, position (1 + 10, 2 + 5)
    local r, sy = 50, 70
    near({ 3 * math.cos(r * rad), 0.5 * math.cos((r + 90 + 20) * rad), 3 * math.sin(r * rad),
      0.5 * math.sin((r + 90 + 20) * rad), 11, 7 }, W(a, "b"), 1e-9, "local " .. sy)
  end)

  it("local, every mix 1: the bone takes the target's local values", function()
    local a = posed(tc{ ["local"] = true })
    near(W(a, "t"), W(a, "b"), 1e-9)
  end)

  it("takes its mixes from the property transform.<name>", function()
    local off = assert(anim.clip{ joints = {}, length = 1, properties = {
      ["transform.copy"] = { { 0, { 0, 0, 0, 0, 0, 0 } } } } })
    local a = posed(tc(), off)
    near({ 1.5 * math.cos(20 * rad), -math.sin(20 * rad), 1.5 * math.sin(20 * rad), math.cos(20 * rad), 1, 2 },
      W(a, "b"), 1e-9)
  end)

  it("refuses what cannot be posed, naming the path", function()
    local function bad(c, msg)
      local sk, err = anim.skeleton2d({ bones = { { name = "root" }, { name = "b", parent = "root" },
        { name = "t", parent = "b" } }, transforms = { c } }, "s")
      assert.is_nil(sk)
      assert.are.equal(msg, err)
    end
    bad({ name = "c", bones = { "b" }, target = "t" },
      "s: transforms[1].target: the target 't' cannot be a constrained bone or below one ('b')")
    bad({ name = "c", bones = { "root", "root" }, target = "t" }, "s: transforms[1].bones[2]: bone 'root' twice in one constraint")
    bad({ name = "c", bones = {}, target = "b" }, "s: transforms[1].bones: a transform constraint needs at least one bone")
    bad({ name = "c", bones = { "t" }, target = "b", mix_x = "1" }, "s: transforms[1].mix_x: mix_x must be a finite number, got string")
  end)
end)
