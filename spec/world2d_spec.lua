-- The 2D stage (issue 40): a 2D skeleton's world matrices after each
-- update, against values computed here from the rules of docs/formats.md
-- ("2D skeletons"): the local matrix of Spine's JSON format page, each
-- inherit mode's frame, shear from its property, a rotation key beyond half
-- a turn; the same bits on one thread and two; a restored animator's.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"

local rad = math.pi / 180

-- The local 2x2 of (rotation, shearX, shearY, scaleX, scaleY), degrees:
-- [cos(r+shX) sX, cos(r+90+shY) sY; sin(r+shX) sX, sin(r+90+shY) sY].
local function lmat(r, shx, shy, sx, sy)
  return { math.cos((r + shx) * rad) * sx, math.cos((r + 90 + shy) * rad) * sy,
    math.sin((r + shx) * rad) * sx, math.sin((r + 90 + shy) * rad) * sy }
end

local function mul(p, l)
  return { p[1] * l[1] + p[2] * l[3], p[1] * l[2] + p[2] * l[4], p[3] * l[1] + p[4] * l[3], p[3] * l[2] + p[4] * l[4] }
end

-- The frame a child's local matrix is applied in, from its parent's 2x2 p.
local function frame(mode, p)
  local pa, pb, pc, pd = p[1], p[2], p[3], p[4]
  if mode == "normal" then return p end
  if mode == "onlyTranslation" then return { 1, 0, 0, 1 } end
  local th = (rawget(math, "atan2") or math.atan)(pc, pa)
  local sx = math.sqrt(pa * pa + pc * pc)
  local det = pa * pd - pb * pc
  local c, s = math.cos(th), math.sin(th)
  if mode == "noRotationOrReflection" then
    -- R(th) diag(sx, |det| / sx) R(-th)
    return mul(mul({ c, -s, s, c }, { sx, 0, 0, math.abs(det) / sx }), { c, s, -s, c })
  end
  local f = (mode == "noScale" and det < 0) and -1 or 1
  return { c, -s * f, s, c * f }
end

-- The world (a, b, c, d, x, y) of a chain of bone descriptions (each
-- child of the one before), by the rules.
local function chain_world(bones)
  local w
  for _, b in ipairs(bones) do
    local l = lmat(b.rotation or 0, b.shear_x or 0, b.shear_y or 0, b.scale_x or 1, b.scale_y or 1)
    local x, y = b.x or 0, b.y or 0
    if not w then
      w = { l[1], l[2], l[3], l[4], x, y }
    else
      local m = mul(frame(b.inherit or "normal", w), l)
      w = { m[1], m[2], m[3], m[4], w[1] * x + w[2] * y + w[5], w[3] * x + w[4] * y + w[6] }
    end
  end
  return w
end

local function near(want, got, tol, what)
  for i = 1, 6 do
    assert(math.abs(want[i] - got[i]) <= (tol or 1e-9), string.format("%s: component %d: want %.17g, got %.17g",
      what or "", i, want[i], got[i]))
  end
end

local function world(a, bone) return { a:world2d(bone) } end

local ROOT = { name = "root", x = 4, y = -3, rotation = 25, scale_x = 1.5, scale_y = 0.7, shear_x = 5, shear_y = -8 }
local PARENT = { name = "p", parent = "root", x = 12, y = 2, rotation = 40, scale_x = 2, scale_y = 0.5, shear_x = 15,
  shear_y = -10 }
local CHILD = { name = "c", parent = "p", x = 3, y = -2, rotation = -30, scale_x = 1.2, scale_y = 0.8, shear_x = 5,
  shear_y = 7 }

local function with(t, more)
  local o = {}
  for k, v in pairs(t) do o[k] = v end
  for k, v in pairs(more or {}) do o[k] = v end
  return o
end

describe("2D world matrices", function()
  it("a lone root: its local matrix at (x, y), numbers written out", function()
    local sk = assert(anim.skeleton2d{ bones = { { name = "root", x = 1, y = 2, rotation = 90, scale_x = 2, scale_y = 3 } } })
    local a = anim.animator(sk)
    a:update(0)
    -- rotation 90: x axis (0, 2), y axis (-3, 0)
    near({ 0, -3, 2, 0, 1, 2 }, world(a, "root"), 1e-12)
  end)

  for _, mode in ipairs({ "normal", "onlyTranslation", "noRotationOrReflection", "noScale", "noScaleOrReflection" }) do
    it("inherit " .. mode .. ": non-uniform scale and shear above, by the rule", function()
      local child = with(CHILD, { inherit = mode })
      local sk = assert(anim.skeleton2d{ bones = { ROOT, PARENT, child } })
      local a = anim.animator(sk)
      a:update(0)
      near(chain_world({ ROOT, PARENT }), world(a, "p"), 1e-9, "p")
      near(chain_world({ ROOT, PARENT, child }), world(a, "c"), 1e-9, mode)
      -- a reflected parent
      local flipped = with(PARENT, { scale_x = -2 })
      sk = assert(anim.skeleton2d{ bones = { ROOT, flipped, child } })
      a = anim.animator(sk)
      a:update(0)
      near(chain_world({ ROOT, flipped, child }), world(a, "c"), 1e-9, mode .. " (reflected)")
    end)
  end

  it("DragonBones' inherit flags by its runtime's rule, numbers worked by hand", function()
    -- Bone._updateGlobalTransformMatrix of DragonBonesJS (docs/formats.md,
    -- DragonBones).  P: turned 90 degrees, scaled 2 by 1, at (10, 0): its
    -- x axis (0, 2), its y axis (-1, 0); Q: scaleX -1 (reflecting) at (0, 0).
    local c30, s30 = math.cos(30 * rad), math.sin(30 * rad)
    local function db(flags) return { inherit_translation = flags.t ~= false, inherit_rotation = flags.r ~= false,
      inherit_scale = flags.s ~= false, inherit_reflection = flags.f ~= false } end
    local sk = assert(anim.skeleton2d{ bones = {
      { name = "p", x = 10, rotation = 90, scale_x = 2, dragonbones = db{} },
      { name = "q", scale_x = -1, dragonbones = db{} },
      { name = "all", parent = "p", x = 1, rotation = 30, dragonbones = db{} },
      { name = "no_t", parent = "p", x = 5, y = 5, dragonbones = db{ t = false } },
      { name = "no_s", parent = "p", x = 1, rotation = 30, dragonbones = db{ s = false } },
      { name = "no_r", parent = "p", x = 1, rotation = 30, dragonbones = db{ r = false } },
      { name = "no_rs", parent = "p", x = 1, rotation = 30, dragonbones = db{ r = false, s = false } },
      { name = "refl", parent = "q", rotation = 30, scale_y = 2, dragonbones = db{ s = false } },
      { name = "no_refl", parent = "q", rotation = 30, scale_y = 2, dragonbones = db{ s = false, f = false } },
    } })
    local a = anim.animator(sk)
    a:update(0)
    -- all inherited: P·L, the origin P(1, 0) + (10, 0) = (10, 2)
    near({ -s30, -c30, 2 * c30, -2 * s30, 10, 2 }, world(a, "all"), 1e-12, "all")
    -- no translation: the bone's own (5, 5), not P's point
    near({ 0, -1, 2, 0, 5, 5 }, world(a, "no_t"), 1e-12, "no_t")
    -- no scale: the rotation 30 plus the parent's 90, its own scale 1
    near({ -s30 * 1, -c30, c30, -s30, 10, 2 }, world(a, "no_s"), 1e-12, "no_s")
    -- no rotation: the local rotation less the parent's (30 - 90), times P
    near({ 2 * 0 + -1 * math.sin(-60 * rad), -math.cos(-60 * rad) * 1, 2 * math.cos(-60 * rad), -2 * math.sin(-60 * rad),
      10, 2 }, world(a, "no_r"), 1e-12, "no_r")
    -- neither: the bone's own matrix at P's point
    near({ c30, -s30, s30, c30, 10, 2 }, world(a, "no_rs"), 1e-12, "no_rs")
    -- under a reflecting parent (x axis at 180): the rotation 180 - 30 = 150,
    -- the y axis at 150 + 90, half a turn more with inheritReflection
    local c150, s150 = math.cos(150 * rad), math.sin(150 * rad)
    near({ c150, 2 * math.cos(60 * rad), s150, 2 * math.sin(60 * rad), 0, 0 }, world(a, "refl"), 1e-12, "refl")
    near({ c150, 2 * math.cos(240 * rad), s150, 2 * math.sin(240 * rad), 0, 0 }, world(a, "no_refl"), 1e-12, "no_refl")
  end)

  it("the core refuses DragonBones flags out of range (a description of the module's own: raised)", function()
    local core = require "anim.core"
    local skeleton2d = require "anim.format.skeleton2d"
    local sk = assert(anim.skeleton2d{ bones = { { name = "r" }, { name = "c", parent = "r", dragonbones = {} } } })
    local stage = skeleton2d.data(sk).stage
    for _, bits in ipairs({ 64, 2, -1 }) do
      local bones = {}
      for i, b in ipairs(stage.bones) do
        bones[i] = {}
        for k, v in pairs(b) do bones[i][k] = v end
      end
      bones[2].dragonbones = bits
      local ok, err = pcall(core.world2d_shape, { bones = bones, ik = stage.ik, tc = stage.tc, ops = stage.ops })
      assert.is_false(ok)
      assert.truthy(err:find("2D description: bad DragonBones flags", 1, true), err)
    end
  end)

  it("the modes against numbers worked by hand: a parent turned 90 degrees, scaled 2 by 3", function()
    -- parent P = [0 -3; 2 0] at (0, 0); child at (1, 0), rotation 0, scale 1
    local function child_of(mode, px)
      local sk = assert(anim.skeleton2d{ bones = { { name = "p", rotation = 90, scale_x = px or 2, scale_y = 3 },
        { name = "c", parent = "p", x = 1, inherit = mode } } })
      local a = anim.animator(sk)
      a:update(0)
      return world(a, "c")
    end
    -- the origin is always the parent's point: P (1, 0) = (0, 2)
    near({ 0, -3, 2, 0, 0, 2 }, child_of("normal"), 1e-12)
    near({ 1, 0, 0, 1, 0, 2 }, child_of("onlyTranslation"), 1e-12)
    -- the parent's x axis points up (90): its scale along it 2, across 3,
    -- its turn taken out: the child stretched 2 along y, 3 along x
    near({ 3, 0, 0, 2, 0, 2 }, child_of("noRotationOrReflection"), 1e-12)
    -- the turn alone
    near({ 0, -1, 1, 0, 0, 2 }, child_of("noScale"), 1e-12)
    near({ 0, -1, 1, 0, 0, 2 }, child_of("noScaleOrReflection"), 1e-12)
    -- reflected (scale_x -2: x axis down, y axis left): noScale keeps the
    -- reflection, noScaleOrReflection and noRotationOrReflection do not
    near({ 0, -1, -1, 0, 0, -2 }, child_of("noScale", -2), 1e-12)
    near({ 0, 1, -1, 0, 0, -2 }, child_of("noScaleOrReflection", -2), 1e-12)
    near({ 3, 0, 0, 2, 0, -2 }, child_of("noRotationOrReflection", -2), 1e-12)
  end)

  it("the modes' frames where the parent's x axis has no length or its length overflows, by the rule", function()
    -- (the frame's direction is the parent's x axis over its length, and
    -- where that length is 0 its y axis' less a quarter turn; where the
    -- length's square overflows, the direction of the axis still)
    local function child_of(mode, parent)
      local sk = assert(anim.skeleton2d{ bones = { parent, { name = "c", parent = "p", y = 2, inherit = mode } } })
      local a = anim.animator(sk)
      a:update(0)
      return world(a, "c")
    end
    -- no x axis: P = [0 -3; 0 0] (turned 90, scaled 0 by 3): its y axis
    -- points left (180), so the direction is 90
    local flat = { name = "p", rotation = 90, scale_x = 0, scale_y = 3 }
    -- point (0, 2) at P (0, 2) = (-6, 0)
    near({ 0, -1, 1, 0, -6, 0 }, child_of("noScale", flat), 1e-12, "noScale")
    near({ 0, -1, 1, 0, -6, 0 }, child_of("noScaleOrReflection", flat), 1e-12, "noScaleOrReflection")
    -- the scale along the direction 0 (no x axis), across it 3
    near({ 3, 0, 0, 0, -6, 0 }, child_of("noRotationOrReflection", flat), 1e-12, "noRotationOrReflection")
    -- an x axis of length 1e200 at 30 degrees (its square overflows)
    local c30, s30 = math.cos(30 * rad), math.sin(30 * rad)
    local huge = { name = "p", rotation = 30, scale_x = 1e200, scale_y = 1 }
    near({ c30, -s30, s30, c30, -2 * s30, 2 * c30 }, child_of("noScale", huge), 1e-12, "noScale (huge)")
    -- the y axis of length 1e200 and none along x: the direction 30 still
    local tall = { name = "p", rotation = 30, scale_x = 0, scale_y = 1e200 }
    local w = child_of("noScaleOrReflection", tall)
    near({ c30, -s30, s30, c30, w[5], w[6] }, w, 1e-12, "noScaleOrReflection (tall)")
    assert(math.abs(w[5] / (-2e200 * s30) - 1) < 1e-12 and math.abs(w[6] / (2e200 * c30) - 1) < 1e-12)
  end)

  it("an axis whose setup scale is 0 takes the scale channel added (s0 + scale - 1), the others multiplied", function()
    -- (a skeleton with such a bone reads its pose through the rests' tests;
    -- the others through a loop without them: both by the rule)
    local sk = assert(anim.skeleton2d{ bones = { { name = "root" },
      { name = "z", parent = "root", scale_x = 0, scale_y = 2 }, { name = "s", parent = "root", scale_x = 1.5 } } })
    local clip = assert(anim.clip{ length = 1, joints = {
      z = { scale = { { 0, { 3, 2, 1 } } } }, s = { scale = { { 0, { 2, 3, 1 } } } } } })
    local a = anim.animator(sk)
    a:play(clip, { fade = 0 })
    a:update(0)
    near({ 2, 0, 0, 4, 0, 0 }, world(a, "z"), 1e-12, "z: 0 + 3 - 1, 2 x 2")
    near({ 3, 0, 0, 3, 0, 0 }, world(a, "s"), 1e-12, "s: 1.5 x 2, 1 x 3")
  end)

  it("reads the pose of absolute clips: a rotation key beyond half a turn, scale, and the shear property", function()
    local sk = assert(anim.skeleton2d{ bones = { ROOT, PARENT, CHILD } })
    local clip = assert(anim.clip{ absolute = true, euler = "xyz", length = 1, joints = {
      p = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, 0, 270 } } },
            scale = { { 0, { 2, 0.5, 1 } }, { 1, { 1, 1.5, 1 } } } },
    }, properties = { ["c.shear"] = { { 0, { 0, 0 } }, { 1, { 20, 10 } } } } })
    local a = anim.animator(sk)
    a:play(clip, { fade = 0 })
    for _, t in ipairs({ 0.25, 0.5, 0.9 }) do
      a:update(t - (a:tracks()[1].time or 0))
      local p = with(PARENT, { rotation = 270 * t, scale_x = 2 - t, scale_y = 0.5 + t })
      local c = with(CHILD, { shear_x = 20 * t, shear_y = 10 * t })
      near(chain_world({ ROOT, p }), world(a, "p"), 1e-9, "p at " .. t)
      near(chain_world({ ROOT, p, c }), world(a, "c"), 1e-9, "c at " .. t)
    end
    -- at 0.9 the key's turn is 243 degrees (the short way would be -81)
    local w = world(a, "p")
    local r = chain_world({ ROOT, with(PARENT, { rotation = -81, scale_x = 1.1, scale_y = 1.4 }) })
    assert.is_true(math.abs(w[1] - r[1]) > 0.1)
  end)

  it("gives finite matrices where the numbers overflow: +-DBL_MAX for inf, the rest as they are", function()
    local sk = assert(anim.skeleton2d{ bones = { { name = "r", scale_x = 1e200, scale_y = 2 },
      { name = "c", parent = "r", x = 1e300, y = 3, scale_x = 1e200, scale_y = 0.5 } } })
    local a = anim.animator(sk)
    a:update(0)
    local m = { a:world2d("c") }
    local max = 1.7976931348623157e308
    assert.are.same({ max, 0, 0, 1, max, 6 }, m)
    assert.are.same({ 1e200, 0, 0, 2, 0, 0 }, { a:world2d("r") })
  end)

  it("reads a pose number that overflows as +-DBL_MAX, that bone's alone (the whole skeleton's numbers read again)", function()
    local max = 1.7976931348623157e308
    local function skeleton(sx)
      return assert(anim.skeleton2d{ bones = { { name = "r", x = 1, y = 2 },
        { name = "c", parent = "r", x = 3, y = 4, rotation = 30, scale_x = sx, scale_y = 2 },
        { name = "d", parent = "r", x = 5, rotation = 40, scale_x = 1.5 } } })
    end
    -- the rest's 1e200 times the override's 1e200: inf, read as DBL_MAX
    local a = anim.animator(skeleton(1e200))
    a:override("c", { scale = { 1e200, 1, 1 } })
    a:update(0)
    local b = anim.animator(skeleton(max))
    b:update(0)
    for _, bone in ipairs { "r", "c", "d" } do
      assert.are.same({ b:world2d(bone) }, { a:world2d(bone) }, bone)
    end
    local c = { a:world2d("c") }
    assert.is_true(c[1] < max and c[1] > 1e308, "c's x axis: cos 30 DBL_MAX, not the overflow's DBL_MAX")
  end)

  it("an offset clip turning about z alone (its quaternion by its segments) poses the general Euler path's matrices, and the same bits played in order and by jumps", function()
    local sk = assert(anim.skeleton2d{ bones = { ROOT, PARENT, CHILD } })
    local function clip(x, euler)
      local keys = {}
      -- (steps of 97 to 391 degrees: segments up to half a turn and beyond)
      for k = 0, 12 do keys[k + 1] = { k / 12, { x, 0, (k % 5 - 2) * 97.3 + k } } end
      return assert(anim.clip{ euler = euler, length = 1, joints = { p = { rotation = keys }, c = { rotation = keys } } })
    end
    -- x keys of -0 take the general path (a turn about z alone is of +0 x
    -- and y keys): the lerped angle's sine and cosine, where the z turn
    -- turns its segment's middle half angle by the series (curve.h)
    for _, euler in ipairs { "xyz", "yxz" } do
      local zc = clip(0, euler)
      local a, b = anim.animator(sk), anim.animator(sk)
      a:play(zc, { fade = 0, weight = 0.7 })
      b:play(clip(-0.0, euler), { fade = 0, weight = 0.7 })
      for i = 1, 60 do
        a:update(1 / 61)
        b:update(1 / 61)
        -- the same time reached by a jump (a fresh track: its key searched)
        local c = anim.animator(sk)
        c:play(zc, { fade = 0, weight = 0.7 }).time = a:tracks()[1].time
        c:update(0)
        for _, bone in ipairs { "p", "c" } do
          local wa = world(a, bone)
          near(world(b, bone), wa, 1e-13, string.format("%s %s at %d", euler, bone, i))
          local wc = world(c, bone)
          for k = 1, 6 do
            -- (the same bits: equal, zeros of one sign; the matrices are finite)
            local x, y = wa[k], wc[k]
            assert(x == y and (x ~= 0 or 1 / x == 1 / y),
              string.format("%s %s at %d: component %d: %.17g, by a jump %.17g", euler, bone, i, k, x, y))
          end
        end
      end
    end
  end)

  it("poses the same bits through animator:update, anim.update on one thread and on two, and a restored animator poses as the saved one", function()
    local sk = assert(anim.skeleton2d{ bones = { ROOT, PARENT, with(CHILD, { inherit = "noScale" }) } })
    local clip = assert(anim.clip{ absolute = true, euler = "xyz", length = 2, loop = "loop", joints = {
      p = { rotation = { { 0, { 0, 0, 10 } }, { 2, { 0, 0, 400 } } } },
      c = { position = { { 0, { 3, -2, 0 } }, { 1, { 5, 1, 0 } }, { 2, { 3, -2, 0 } } } },
    }, properties = { ["c.shear"] = { { 0, { 0, 0 } }, { 2, { 30, -5 } } } } })
    local function make(n)
      local list = {}
      for i = 1, n do
        list[i] = anim.animator(sk)
        list[i]:play(clip, { fade = 0, speed = 0.5 + i / 37 })
      end
      return list
    end
    local one, two, each = make(40), make(40), make(40)
    for _ = 1, 12 do
      anim.update(one, 1 / 30)
      anim.update(two, 1 / 30, { threads = 2 })
      for _, a in ipairs(each) do a:update(1 / 30) end
    end
    for i = 1, 40 do
      for _, b in ipairs({ "root", "p", "c" }) do
        assert.are.same(world(one[i], b), world(two[i], b))
        assert.are.same(world(one[i], b), world(each[i], b))
      end
    end
    -- save, restore into a fresh animator: the same matrices before any update
    local saved = one[7]:state()
    local b = anim.animator(sk)
    assert(b:restore(saved, function() return clip end))
    for _, bone in ipairs({ "root", "p", "c" }) do near(world(one[7], bone), world(b, bone), 1e-12, bone) end
    one[7]:update(0.1)
    b:update(0.1)
    for _, bone in ipairs({ "root", "p", "c" }) do assert.are.same(world(one[7], bone), world(b, bone)) end
  end)

  it("the animators of a skeleton share its shape, made once; each its own inherit mode and shear", function()
    local core = require "anim.core"
    local skeleton2d = require "anim.format.skeleton2d"
    local made, real_shape = 0, core.world2d_shape
    core.world2d_shape = function(...) made = made + 1; return real_shape(...) end
    local ok, err = pcall(function()
      local sk = assert(anim.skeleton2d{ bones = { ROOT, PARENT, CHILD } })
      local one, other, fresh = anim.animator(sk), anim.animator(sk), anim.animator(sk)
      local shape = skeleton2d.data(sk).shape
      assert.are.equal("userdata", type(shape))
      assert.are.equal(1, made)
      -- one animator's track turns c's inherit mode and shear: the others keep the setup's
      local clip = assert(anim.clip{ length = 1, loop = "loop", joints = {}, properties = {
        ["c.inherit"] = { { 0, { 3 }, "step" }, { 1, { 3 }, "step" } },
        ["c.shear"] = { { 0, { 30, -5 } }, { 1, { 30, -5 } } } } })
      one:play(clip, { fade = 0 })
      for _, a in ipairs({ one, other, fresh }) do a:update(0.25) end
      local bones = { ROOT, PARENT, with(CHILD, { inherit = "noScale", shear_x = 30, shear_y = -5 }) }
      near(chain_world(bones), world(one, "c"), 1e-9, "the animated one")
      near(chain_world({ ROOT, PARENT, CHILD }), world(other, "c"), 1e-9, "the other")
      assert.are.same(world(fresh, "c"), world(other, "c"))
      assert.are.equal(shape, skeleton2d.data(sk).shape)
      assert.are.equal(1, made)
    end)
    core.world2d_shape = real_shape
    assert(ok, err)
  end)

  it("a shape finalized by hand: its animators keep posing, a new animator of it raises", function()
    local skeleton2d = require "anim.format.skeleton2d"
    local sk = assert(anim.skeleton2d{ bones = { ROOT, PARENT, CHILD } })
    local a = anim.animator(sk)
    local shape = skeleton2d.data(sk).shape
    assert.is_false(getmetatable(shape))
    local gc = debug.getmetatable(shape).__gc
    gc(shape)
    gc(shape)
    collectgarbage()
    a:update(0.1)
    near(chain_world({ ROOT, PARENT, CHILD }), world(a, "c"), 1e-9, "after")
    local ok, err = pcall(anim.animator, sk)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("2D skeleton's shape used after it was finalized", 1, true), err)
  end)

  it("a restored animator reads its own properties, not those the animator it restores into played", function()
    local sk = assert(anim.skeleton2d{ bones = { { name = "root" }, { name = "p", parent = "root", x = 1 },
      { name = "c", parent = "p", x = 2 } } })
    local function held(bone, v)
      return assert(anim.clip({ length = 1, loop = "loop", joints = {},
        properties = { [bone .. ".shear"] = { { 0, { v, 0 } }, { 1, { v, 0 } } } } }, bone))
    end
    local cshear, pshear = held("c", 20), held("p", 45)
    local saved = anim.animator(sk)
    saved:play(pshear, { fade = 0 })
    saved:update(0.1)
    local state = saved:state()
    -- b played c's shear (the first property it knew), then takes the saved state: p's alone
    local b = anim.animator(sk)
    b:play(cshear, { fade = 0 })
    b:update(0.1)
    assert(b:restore(state, function(name) return name == "c" and cshear or pshear end))
    saved:update(0.1)
    b:update(0.1)
    for _, bone in ipairs({ "p", "c" }) do assert.are.same(world(saved, bone), world(b, bone)) end
    near(chain_world({ { name = "root" }, { name = "p", x = 1, shear_x = 45 }, { name = "c", x = 2 } }), world(b, "c"),
      1e-12, "c")
  end)

  it("only animators made from a skeleton have the stage; its readers raise on others", function()
    local a = anim.animator(anim.rig("player"))
    local ok, err = pcall(a.world2d, a, "root")
    assert.is_false(ok)
    assert.truthy(err:find("world2d: this animator has no 2D skeleton", 1, true), err)
    local sk = assert(anim.skeleton2d{ bones = { { name = "head" }, { name = "neck", parent = "head" } } })
    local b = anim.animator(sk)
    ok, err = pcall(b.world2d, b, "hed")
    assert.is_false(ok)
    assert.truthy(err:find("bad argument #1 to 'world2d' (unknown bone 'hed'; did you mean 'head'?)", 1, true), err)
    err = select(2, pcall(b.world2d, b, 3))
    assert.truthy(err:find("bad argument #1 to 'world2d' (bone name expected, got number)", 1, true), err)
  end)

  -- (clip played 0.1 s a frame, p and c posed as by a fresh animator at each time)
  local function posed_as_fresh(sk, clip)
    local a = anim.animator(sk)
    a:play(clip, { fade = 0 })
    for i = 1, 10 do
      a:update(0.1)
      local b = anim.animator(sk)
      b:play(clip, { fade = 0 })
      b:update(0.1 * i)
      for _, bone in ipairs { "p", "c" } do
        assert.are.same({ b:world2d(bone) }, { a:world2d(bone) }, bone .. " at " .. i)
      end
    end
  end

  it("a two-bone IK whose child moves in its parent's axes poses as a fresh animator does, frame by frame", function()
    -- (the block keeps the child's direction from the last update: it must
    -- follow the child's x, y and the parent's scale)
    local sk = assert(anim.skeleton2d{ bones = { ROOT, PARENT, with(CHILD, { length = 5 }),
      { name = "t", parent = "root", x = 10, y = 4 } },
      ik = { { name = "leg", bones = { "p", "c" }, target = "t" } } })
    local clip = assert(anim.clip{ absolute = true, euler = "xyz", length = 1, joints = {
      c = { position = { { 0, { 3, 0, 0 } }, { 0.5, { 4, -3, 0 } }, { 1, { -2, 2, 0 } } } },
      p = { scale = { { 0, { 1, 1, 1 } }, { 0.6, { 1, 1, 1 } }, { 1, { 2, 0.5, 1 } } } },
      t = { position = { { 0, { 10, 4, 0 } }, { 1, { 2, 9, 0 } } } } } })
    posed_as_fresh(sk, clip)
  end)

  it("a two-bone IK of mix 0.5 whose bones turn poses as a fresh animator does, frame by frame", function()
    -- (each bone keeps the angle it read from its pose's cosine and sine
    -- last: it must follow the pose's turn)
    local sk = assert(anim.skeleton2d{ bones = { ROOT, PARENT, with(CHILD, { length = 5 }),
      { name = "t", parent = "root", x = 10, y = 4 } },
      ik = { { name = "leg", bones = { "p", "c" }, target = "t", mix = 0.5 } } })
    local clip = assert(anim.clip{ euler = "xyz", length = 1, joints = {
      p = { rotation = { { 0, { 0, 0, 0 } }, { 0.4, { 0, 0, 0 } }, { 1, { 0, 0, 120 } } } },
      c = { rotation = { { 0, { 0, 0, 10 } }, { 0.3, { 0, 0, 10 } }, { 1, { 0, 0, -200 } } } } } })
    posed_as_fresh(sk, clip)
  end)

  it("a frame allocates nothing, in Lua or in the core (bones, IK, shear, slots)", function()
    local H = require "spec.helper"
    local fa = H.failalloc()
    local sk = assert(anim.skeleton2d{ bones = { ROOT, PARENT, with(CHILD, { length = 5 }),
      { name = "t", parent = "root", x = 10, y = 4 } },
      slots = { { name = "s", bone = "c", attachment = "a", attachment_names = { "a", "b" }, dark = { 0, 0, 0 } } },
      ik = { { name = "leg", bones = { "p", "c" }, target = "t", softness = 2 } } })
    local clip = assert(anim.clip{ absolute = true, euler = "xyz", length = 2, loop = "loop", joints = {
      t = { position = { { 0, { 10, 4, 0 } }, { 1, { 2, 9, 0 } }, { 2, { 10, 4, 0 } } } } },
      properties = { ["c.shear"] = { { 0, { 0, 0 } }, { 2, { 30, -5 } } }, ["ik.leg"] = { { 0, { 1, 2 } }, { 2, { 0.5, 4 } } },
        ["slot.s.attachment"] = { keys = { { 0, 1, "step" }, { 1, 2, "step" } }, discrete = true },
        ["slot.s.color"] = { { 0, { 1, 1, 1, 1 } }, { 2, { 0, 0, 0, 1 } } } } })
    local a = anim.animator(sk)
    a:play(clip, { fade = 0.2 })
    local sum = 0
    local function step()
      a:update(1 / 60)
      local x, y, z, w, u, v = a:world2d("c")
      local _, r, g, b = a:slot("s")
      sum = sum + x + y + z + w + u + v + r + g + b
    end
    local n = H.frame_allocations(fa, step)
    assert.is_true(sum == sum)
    assert.are.equal(0, n)
  end)
end)
