-- Spine (issue 40): the hero of tools/make-spine-fixtures, every version's
-- export, played by an animator of its 2D skeleton.  The world matrices
-- are composed here from the fixture's numbers (the setup pose and the
-- keys, written out below) by the rules of docs/formats.md "2D skeletons"
-- (spec/spine_rules.lua): each inherit mode under non-uniform scale and
-- shear, the IK constraints (two bones with softness and stretch, one
-- with compress and stretch) by the rules and by geometry, the transform
-- constraint; a mesh's world vertices with its deform offsets through
-- attach2d; slots and draw order; events and sounds delivered with their
-- `late`; and the four versions pose alike.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local attach2d = require "anim.runtime.attach2d"
local H = require "spec.helper"
local R = require "spec.spine_rules"

local rad = math.pi / 180
local unpack = table.unpack or rawget(_G, "unpack")
local bez = R.bez
local BZ1, BZ2, BZ3 = { 0.25, 0, 0.75, 1 }, { 0.1, 0.4, 0.6, 0.9 }, { 0.3, 0.1, 0.7, 0.9 }

local DIR = H.root .. "/spec/fixtures/spine/"
local VERSIONS = { "3.8", "4.0", "4.1", "4.2" }
local loaded = {}
local function load(v)
  if not loaded[v] then
    local atlas = v == "3.8" and DIR .. "hero-3.8.atlas" or DIR .. "hero-4.x.atlas"
    loaded[v] = assert(anim.import_spine(DIR .. "hero-" .. v .. ".json", atlas))
  end
  return loaded[v]
end

-- An animator of version v's hero playing clip (nil: the setup pose) at t
-- (held at its end: act's last keys are at its length).
local function played(v, clip, t)
  local r = load(v)
  local a = anim.animator(r.skeleton)
  if clip then a:play(r.clips[clip], { fade = 0, loop = "hold" }) end
  a:update(t or 0)
  return a
end

local function close(want, got, tol, what)
  if math.abs(want - got) > (tol or 1e-9) then
    error(string.format("%s: want %.17g, got %.17g", what or "value", want, got), 2)
  end
end
local function near6(want, got, tol, what)
  for i = 1, 6 do close(want[i], got[i], tol, (what or "") .. " component " .. i) end
end

-- The fixture's setup pose (tools/make-spine-fixtures, BONES).
local BONES = {
  { name = "root" },
  { name = "hip", parent = "root", y = 50, rotation = 10, sx = 1.2, sy = 0.8, shx = 5, shy = -3 },
  { name = "torso", parent = "hip", x = 5, y = 2, rotation = 80, length = 40 },
  { name = "head", parent = "torso", x = 40, rotation = -10, sx = 0.9, sy = 1.1, length = 20, inherit = "noScale" },
  { name = "arm_upper", parent = "torso", x = 35, y = -5, rotation = 150, length = 30 },
  { name = "arm_lower", parent = "arm_upper", x = 30, rotation = 20, length = 25, shy = 10 },
  { name = "hand", parent = "arm_lower", x = 25, sx = 1.5, inherit = "noRotationOrReflection" },
  { name = "gun", parent = "hand", x = 8, y = 2, rotation = 30 },
  { name = "leg", parent = "hip", x = -4, y = -6, rotation = -95, sx = -1, length = 40, inherit = "onlyTranslation" },
  { name = "foot", parent = "leg", x = 40, rotation = 90, length = 60, inherit = "noScaleOrReflection" },
  { name = "target_arm", parent = "root", x = 60, y = 90 },
  { name = "target_foot", parent = "root", x = -10, y = 0 },
}
for _, b in ipairs(BONES) do b.length = b.length or 0 end
local S = R.new(BONES)

local function setup_locals()
  local L = {}
  for _, b in ipairs(BONES) do
    L[b.name] = { x = b.x or 0, y = b.y or 0, rotation = b.rotation or 0, sx = b.sx or 1, sy = b.sy or 1,
      shx = b.shx or 0, shy = b.shy or 0 }
  end
  return L
end

local function lerp(a, b, u) return a + (b - a) * u end
-- the keys { t, v } of a linear timeline at t (held before and after)
local function linear(keys, t)
  if t <= keys[1][1] then return keys[1][2] end
  for i = 2, #keys do
    if t < keys[i][1] then
      return lerp(keys[i - 1][2], keys[i][2], (t - keys[i - 1][1]) / (keys[i][1] - keys[i - 1][1]))
    end
  end
  return keys[#keys][2]
end

-- The locals at t of the walk animation: setup + each timeline's keys.
local function walk_locals(t)
  local L = setup_locals()
  L.torso.rotation = 80 + (t < 0.5 and bez(BZ1, 0, 0, 0.5, 30, t) or bez(BZ2, 0.5, 30, 1, -20, t))
  L.arm_lower.rotation = 20 + 45 * t
  if t < 0.4 then
    L.hip.x, L.hip.y = bez(BZ3, 0, 0, 0.4, 10, t), 50 + bez(BZ3, 0, 0, 0.4, -4, t)
  else
    L.hip.x, L.hip.y = lerp(10, 0, (t - 0.4) / 0.6), 50 + lerp(-4, 0, (t - 0.4) / 0.6)
  end
  local sx, sy = 1, 1 -- (multiplies the setup's scale)
  if t < 0.5 then sx, sy = lerp(1, 1.2, t / 0.5), lerp(1, 0.8, t / 0.5) elseif t < 1 then sx, sy = 1.2, 0.8 end
  L.head.sx, L.head.sy = 0.9 * sx, 1.1 * sy
  if t >= 0.6 then L.hip.shx, L.hip.shy = 15, -8 end -- (stepped (0, 0) from 0.2: the setup's)
  if t >= 0.8 then L.hip.sx = -1.2 end -- (stepped (1, 1) from 0.6, then (-1, 1))
  return L
end

-- The act animation's bone timelines: the targets moved.
local function act_locals(t)
  local L = setup_locals()
  local ax = { { 0, 0 }, { 0.1, 17 }, { 0.3, 30 }, { 1.2, -10 } }
  local ay = { { 0, 0 }, { 0.1, 2.5 }, { 0.3, 4 }, { 1.2, -5 } }
  L.target_arm.x, L.target_arm.y = 60 + linear(ax, t), 90 + linear(ay, t)
  L.target_foot.x = -10 + linear({ { 0.2, 0 }, { 1.2, -60 } }, t)
  L.target_foot.y = linear({ { 0, 0 }, { 0.2, 50 }, { 1.2, -80 } }, t)
  return L
end

-- The constraints' values at t: the setup's, or act's timelines.
local TC_FROM = { 0.5, 0.25, 0.25, 0.75, 0.75, 0 }
local function constraint_values(clip, t)
  local c = { arm = { mix = 1, soft = 5, bend = -1, stretch = true }, foot = { mix = 0.5, compress = true },
    tc = TC_FROM }
  if clip ~= "act" then return c end
  local mix = linear({ { 0, 1 }, { 0.1, 1 }, { 0.3, 1 }, { 0.5, 0.2 } }, t)
  if t >= 0.5 then mix = bez(BZ1, 0.5, 0.2, 1.2, 1, math.min(t, 1.2)) end
  c.arm = { mix = mix, soft = linear({ { 0, 5 }, { 0.1, 4 }, { 0.3, 0 } }, t), bend = t < 1.2 and -1 or 1,
    stretch = t < 1.2 }
  if t >= 0.9 then
    c.foot = { mix = 1, stretch = true }
  elseif t >= 0.3 then
    c.foot = { mix = 0 }
  end
  if t < 0.6 then
    c.tc = {}
    for i = 1, 6 do c.tc[i] = bez(BZ3, 0, TC_FROM[i], 0.6, 1, t) end
  else
    c.tc = { 1, 1, 1, 1, 1, 1 }
  end
  return c
end

-- Every bone's world by the rules: composed, then the constraints by their
-- order (arm_ik 0, foot_ik 1, hand_tc 1, gun_tc 2), the bones composed
-- again after each.  Returns W, and what the arm's IK measured.
local function expected(clip, t)
  local L = clip == "walk" and walk_locals(t) or clip == "act" and act_locals(t) or setup_locals()
  local c = constraint_values(clip, t)
  local W, F = {}, {}
  R.compose(S, L, W, F)
  local m
  if c.arm.mix ~= 0 then
    m = R.ik2(S, L, W, F, "arm_upper", "arm_lower", "target_arm", c.arm.mix, c.arm.soft, c.arm.bend, c.arm.stretch)
    R.compose(S, L, W, F)
  end
  if c.foot.mix ~= 0 then
    R.ik1(S, L, W, F, "foot", "target_foot", c.foot.mix, c.foot.compress, c.foot.stretch, true)
    R.compose(S, L, W, F)
  end
  R.tc_local_relative(L, "hand", "head", { 0.5, 0.1, 0.1, 1, 1, 1 }, { 5, 1, 0, 0, 0.2, 3 })
  R.compose(S, L, W, F)
  R.tc(S, L, W, F, "gun", "head", c.tc, { 15, 2, -1, 0.1, 0, 5 })
  R.compose(S, L, W, F)
  return W, m, L
end

local TIMES = { walk = { 0, 0.1, 0.35, 0.6, 0.7, 0.85, 0.95 }, act = { 0, 0.05, 0.1, 0.2, 0.25, 0.45, 0.8, 0.95, 1.1, 1.2 } }

describe("the Spine hero posed: world matrices by the rules", function()
  it("the setup pose, each inherit mode, numbers written out", function()
    local a = played("4.1")
    local W = expected(nil, 0)
    for _, b in ipairs(BONES) do near6(W[b.name], { a:world2d(b.name) }, 1e-9, b.name) end
    -- hip (normal, under the root): its local matrix, rotation 10, shear
    -- (5, -3), scale (1.2, 0.8), at (0, 50)
    near6({ math.cos(15 * rad) * 1.2, math.cos(97 * rad) * 0.8, math.sin(15 * rad) * 1.2, math.sin(97 * rad) * 0.8, 0, 50 },
      { a:world2d("hip") }, 1e-12, "hip")
    -- leg (onlyTranslation): its own matrix, reflected by scaleX -1, at
    -- the hip's point (-4, -6)
    local h = { a:world2d("hip") }
    near6({ -math.cos(-95 * rad), math.cos(-5 * rad), -math.sin(-95 * rad), math.sin(-5 * rad),
      h[1] * -4 + h[2] * -6 + h[5], h[3] * -4 + h[4] * -6 + h[6] }, { a:world2d("leg") }, 1e-12, "leg")
    -- head (noScale): the torso's turn only: its axes as long as its own
    -- scale (0.9, 1.1), at right angles, its x axis at the torso's + (-10)
    local hd, to = { a:world2d("head") }, { a:world2d("torso") }
    close(0.9, math.sqrt(hd[1] ^ 2 + hd[3] ^ 2), 1e-12, "head x axis")
    close(1.1, math.sqrt(hd[2] ^ 2 + hd[4] ^ 2), 1e-12, "head y axis")
    close(0, hd[1] * hd[2] + hd[3] * hd[4], 1e-12, "head axes at right angles")
    close(R.wrap(R.atan2(to[3], to[1]) / rad - 10), R.atan2(hd[3], hd[1]) / rad, 1e-9, "head turn")
    -- foot (noScaleOrReflection) under the reflected leg: the leg's x axis
    -- (at 85 degrees) turns it, no reflection: x axis at 85 + 90, turned
    -- by the IK half way (mix 0.5) toward the target: checked below
    -- hand (noRotationOrReflection) under arm_lower (scaled non-uniformly
    -- by the hip above, sheared): the frame R(th) diag(sx, det / sx)
    -- R(-th), th and sx the direction and length of arm_lower's x axis.
    -- Its local values: its own (x 25, scale (1.5, 1)) with hand_tc's
    -- (local, relative) the head's plus the offsets added: rotation
    -- (-10 + 5) 0.5, x (40 + 1) 0.1, scaleX (1 + (0.9 - 1)), scaleY
    -- (1 + (1.1 - 1 + 0.2)), shearY 0 + 3
    local lo = { a:world2d("arm_lower") }
    local th, sx = R.atan2(lo[3], lo[1]), math.sqrt(lo[1] ^ 2 + lo[3] ^ 2)
    local sy = math.abs(lo[1] * lo[4] - lo[2] * lo[3]) / sx
    local c, s = math.cos(th), math.sin(th)
    local f = { c * c * sx + s * s * sy, c * s * (sx - sy), c * s * (sx - sy), s * s * sx + c * c * sy }
    local l = { math.cos(-2.5 * rad) * 1.35, math.cos((90 - 2.5 + 3) * rad) * 1.3, math.sin(-2.5 * rad) * 1.35,
      math.sin((90 - 2.5 + 3) * rad) * 1.3 }
    near6({ f[1] * l[1] + f[2] * l[3], f[1] * l[2] + f[2] * l[4], f[3] * l[1] + f[4] * l[3], f[3] * l[2] + f[4] * l[4],
      lo[1] * 29.1 + lo[5], lo[3] * 29.1 + lo[6] }, { a:world2d("hand") }, 1e-9, "hand")
  end)

  it("under the hip reflected (walk from 0.8): noScale keeps the reflection, onlyTranslation ignores it", function()
    local a = played("3.8", "walk", 0.85)
    local function det(m) return m[1] * m[4] - m[2] * m[3] end
    local to, hd = { a:world2d("torso") }, { a:world2d("head") }
    assert(det(to) < 0, "the torso reflected")
    -- the head's own scale (1.2 0.9, 0.8 1.1), reflected
    close(-1.08 * 0.88, det(hd), 1e-9, "head det")
    close(1.08, math.sqrt(hd[1] ^ 2 + hd[3] ^ 2), 1e-9, "head x axis")
    -- the leg (onlyTranslation): its own matrix, as in the setup pose
    local lg = { a:world2d("leg") }
    near6({ -math.cos(-95 * rad), math.cos(-5 * rad), -math.sin(-95 * rad), math.sin(-5 * rad), lg[5], lg[6] }, lg,
      1e-12, "leg")
  end)

  it("4.2's inherit timeline: the leg's inherit mode from each key on, the setup's before the first", function()
    local r = load("4.2")
    for _, w in ipairs(r.warnings) do assert.is_nil(w.message:find("inherit", 1, true), w.message) end
    assert.are.same({ "leg.inherit" }, r.clips.inherit:properties())
    -- (the hip above it turned, sheared and scaled unevenly: every mode
    -- gives the leg other axes)
    for _, case in ipairs { { 0, "onlyTranslation" }, { 0.05, "onlyTranslation" }, { 0.1, "noScale" }, { 0.3, "noScale" },
      { 0.5, "normal" }, { 0.7, "normal" }, { 0.8, "noRotationOrReflection" }, { 0.85, "noRotationOrReflection" },
      { 0.9, "noScaleOrReflection" }, { 2, "noScaleOrReflection" } } do
      local t, mode = case[1], case[2]
      local bones = {}
      for i, b in ipairs(BONES) do
        bones[i] = {}
        for k, v in pairs(b) do bones[i][k] = v end
      end
      bones[9].inherit = mode
      local W, F = {}, {}
      R.compose(R.new(bones), setup_locals(), W, F)
      near6(W.leg, { played("4.2", "inherit", t):world2d("leg") }, 1e-9, string.format("leg at %g (%s)", t, mode))
    end
    -- the modes differ here: normal is not onlyTranslation
    local a, b = { played("4.2", "inherit", 0):world2d("leg") }, { played("4.2", "inherit", 0.5):world2d("leg") }
    local d = 0
    for i = 1, 4 do d = math.max(d, math.abs(a[i] - b[i])) end
    assert.is_true(d > 0.1, "the leg's axes change with its mode: " .. d)
  end)

  local WHAT = { walk = "walk at chosen times, every bone",
    act = "act at chosen times: the targets moved, the constraints' timelines" }
  for _, v in ipairs(VERSIONS) do
    for _, clip in ipairs({ "walk", "act" }) do
      it(WHAT[clip] .. " (" .. v .. ")", function()
        for _, t in ipairs(TIMES[clip]) do
          local a = played(v, clip, t)
          local W = expected(clip, t)
          for _, b in ipairs(BONES) do
            near6(W[b.name], { a:world2d(b.name) }, 1e-9, v .. " " .. clip .. " " .. t .. " " .. b.name)
          end
        end
      end)
    end
  end
end)

-- The tip of bone (its point (len, 0)) in the world.
local function tip(a, bone, len)
  local w = { a:world2d(bone) }
  return w[1] * len + w[5], w[3] * len + w[6]
end

describe("the Spine hero's IK by geometry", function()
  -- the target in the arm's frame F (the torso's world: arm_upper inherits
  -- normally), from arm_upper's origin
  local function in_arm_frame(a, x, y)
    local to, up = { a:world2d("torso") }, { a:world2d("arm_upper") }
    return R.in_frame(to, up[5], up[6], x, y)
  end

  it("two bones, reachable (setup, softness 5 not reached): the tip on the target", function()
    local a = played("3.8")
    local x, y = tip(a, "arm_lower", 25)
    close(60, x, 1e-9, "x")
    close(90, y, 1e-9, "y")
    local lx, ly = in_arm_frame(a, 60, 90)
    assert(math.sqrt(lx * lx + ly * ly) < 55 - 5, "the target is nearer than reach - softness")
  end)

  it("two bones at act's end: bend 1, no stretch, mix 1: the tip on the target, bent the other way", function()
    local a = played("4.1", "act", 1.2)
    local x, y = tip(a, "arm_lower", 25)
    close(50, x, 1e-9, "x")
    close(85, y, 1e-9, "y")
    local b = played("4.1", "act", 1.1) -- (bend -1 before the key at 1.2)
    local function side(p)
      -- the elbow's side of the line from the shoulder to the tip, in F
      local lo = { p:world2d("arm_lower") }
      local ex, ey = in_arm_frame(p, lo[5], lo[6])
      local tx, ty = in_arm_frame(p, tip(p, "arm_lower", 25))
      return ex * ty - ey * tx
    end
    assert(side(a) * side(b) < 0, "bent the other way")
  end)

  it("two bones, softness: the reach eased to l1 + l2 - (l1 + l2 + s - d)^2 / 4s on the line to the target", function()
    -- act at 0.1: mix 1, softness 4, the target at (77, 92.5)
    local a = played("4.2", "act", 0.1)
    local tx, ty = in_arm_frame(a, 77, 92.5)
    local d = math.sqrt(tx * tx + ty * ty)
    assert(d > 55 - 4 and d < 55, "the target in the soft zone: " .. d)
    local px, py = in_arm_frame(a, tip(a, "arm_lower", 25))
    close(55 - (55 + 4 - d) ^ 2 / 16, math.sqrt(px * px + py * py), 1e-9, "eased reach")
    close(0, px * ty - py * tx, 1e-9, "on the line to the target")
    local _, m = expected("act", 0.1)
    close(d, m.d, 1e-9, "the rules' d")
  end)

  it("two bones, stretch: the straight chain's parent scaled so that the tip is on the target", function()
    -- act at 0.2: mix 1, stretch, the target at (83.5, 93.25), beyond reach
    local a = played("4.0", "act", 0.2)
    local tx, ty = in_arm_frame(a, 83.5, 93.25)
    local d = math.sqrt(tx * tx + ty * ty)
    assert(d > 55, "beyond reach: " .. d)
    local x, y = tip(a, "arm_lower", 25)
    close(83.5, x, 1e-9, "x")
    close(93.25, y, 1e-9, "y")
    -- the parent's x axis, in F, stretched d / 55 (its y axis not: not uniform)
    local up, to = { a:world2d("arm_upper") }, { a:world2d("torso") }
    local ax, ay = R.in_frame(to, 0, 0, up[1], up[3])
    local bx, by = R.in_frame(to, 0, 0, up[2], up[4])
    close(d / 55, math.sqrt(ax * ax + ay * ay), 1e-9, "scaleX")
    close(1, math.sqrt(bx * bx + by * by), 1e-9, "scaleY")
    -- straight: the child's x axis along the parent's
    local lo = { a:world2d("arm_lower") }
    local cx, cy = R.in_frame(to, 0, 0, lo[1], lo[3])
    close(0, cx * ay - cy * ax, 1e-9, "straight")
  end)

  it("one bone, compress with mix 0.5: turned half way, its scale (uniform) half way to the target's", function()
    -- act at 0.2: target_foot at (-10, 50); foot_ik's setup mix 0.5, compress
    local a = played("4.1", "act", 0.2)
    local f = { a:world2d("foot") }
    local d = math.sqrt((-10 - f[5]) ^ 2 + (50 - f[6]) ^ 2)
    assert(d < 60, "nearer than the foot's length")
    close(1 + (d / 60 - 1) * 0.5, math.sqrt(f[1] ^ 2 + f[3] ^ 2), 1e-9, "scaleX")
    close(1 + (d / 60 - 1) * 0.5, math.sqrt(f[2] ^ 2 + f[4] ^ 2), 1e-9, "scaleY (uniform)")
    -- the frame is a turn (noScaleOrReflection): the world angle half way
    -- from the unconstrained one (the leg's 85 + the foot's 90) to the target's
    local want = 175 + R.wrap(R.atan2(50 - f[6], -10 - f[5]) / rad - 175) / 2
    close(0, R.wrap(want - R.atan2(f[3], f[1]) / rad), 1e-9, "turn")
  end)

  it("one bone, stretch with mix 1: the tip on the target, uniform", function()
    for _, t in ipairs({ 0.95, 1.1 }) do
      local a = played("3.8", "act", t)
      local x, y = tip(a, "foot", 60)
      local tw = { a:world2d("target_foot") }
      close(tw[5], x, 1e-9, "x at " .. t)
      close(tw[6], y, 1e-9, "y at " .. t)
      local f = { a:world2d("foot") }
      assert(math.sqrt(f[1] ^ 2 + f[3] ^ 2) > 1.5, "stretched")
      close(math.sqrt(f[1] ^ 2 + f[3] ^ 2), math.sqrt(f[2] ^ 2 + f[4] ^ 2), 1e-9, "uniform at " .. t)
    end
  end)

  it("the transform constraint: the gun's axes turned, moved and scaled toward the head's", function()
    -- act at 0.6 and after: every mix 1: the gun's world is the head's
    -- turned 15 degrees, at the head's point (2, -1), its x axis 0.1
    -- longer, its y axis turned 5 degrees more from its x axis
    local a = played("4.2", "act", 0.8)
    local g, h = { a:world2d("gun") }, { a:world2d("head") }
    close(h[1] * 2 + h[2] * -1 + h[5], g[5], 1e-9, "x")
    close(h[3] * 2 + h[4] * -1 + h[6], g[6], 1e-9, "y")
    close(0, R.wrap(R.atan2(h[3], h[1]) / rad + 15 - R.atan2(g[3], g[1]) / rad), 1e-9, "turn")
    close(math.sqrt(h[1] ^ 2 + h[3] ^ 2) + 0.1, math.sqrt(g[1] ^ 2 + g[3] ^ 2), 1e-9, "x axis")
    close(math.sqrt(h[2] ^ 2 + h[4] ^ 2), math.sqrt(g[2] ^ 2 + g[4] ^ 2), 1e-9, "y axis")
    local function shear(m) return R.atan2(m[4], m[2]) / rad - R.atan2(m[3], m[1]) / rad end
    close(0, R.wrap(shear(h) + 5 - shear(g)), 1e-9, "y axis from x axis")
  end)
end)

-- A slot's attachment's world vertices (x, y, ...) through attach2d: the
-- animator's world matrices, its deform offsets, its current skin.
local function vertices(a, slot)
  local c = attach2d.of(a)
  local e = attach2d.lookup(c, a:skin(), slot, (a:slot(slot)))
  local buf = attach2d.buffer(6 * #c.bone_names)
  attach2d.world_into(a, c, buf)
  local scratch = attach2d.buffer(2 * e.n)
  local n = attach2d.place(buf, e.record, attach2d.deform(a, e), scratch)
  local out = {}
  for i = 1, 2 * n do out[i] = scratch[i] end
  return out
end

-- p through the world matrix w
local function at(w, x, y) return w[1] * x + w[2] * y + w[5], w[3] * x + w[4] * y + w[6] end

local function same_list(want, got, tol, what)
  assert.are.equal(#want, #got, what)
  for i = 1, #want do close(want[i], got[i], tol, (what or "") .. "[" .. i .. "]") end
end

describe("the Spine hero's attachments, slots and events", function()
  local HEAD = { -10, -10, 10, -10, 10, 10, -10, 10 }

  it("deform: an unweighted mesh's vertices moved by the offsets, then by its bone", function()
    for _, t in ipairs({ 0.25, 0.8 }) do
      local a = played("4.1", "act", t)
      local W = expected("act", t)
      -- the keys: none (0) at 0, offset 2 { 1, 2, 3, 4 } at 0.5 (linear to
      -- it), { 0 x 6, -2, -2 } at 1 (BZ2 from 0.5)
      local from, to = { 0, 0, 1, 2, 3, 4, 0, 0 }, { 0, 0, 0, 0, 0, 0, -2, -2 }
      local want = {}
      for i = 1, 4 do
        local dx = t < 0.5 and from[2 * i - 1] * t / 0.5 or bez(BZ2, 0.5, from[2 * i - 1], 1, to[2 * i - 1], t)
        local dy = t < 0.5 and from[2 * i] * t / 0.5 or bez(BZ2, 0.5, from[2 * i], 1, to[2 * i], t)
        want[2 * i - 1], want[2 * i] = at(W.head, HEAD[2 * i - 1] + dx, HEAD[2 * i] + dy)
      end
      same_list(want, vertices(a, "head"), 1e-9, "head at " .. t)
      -- the red skin's linked mesh takes its parent's deform; the blue
      -- one's (deform false) does not
      a:skin("red")
      assert.are.equal("linkedmesh", a:attachment("head").type)
      assert.are.equal("leg-red", a:attachment("leg").path)
      -- (red has no body: the default skin's)
      local body, bname = a:attachment("body")
      assert.are.equal(1.1, body.scale_x)
      assert.are.equal("body", bname)
      same_list(want, vertices(a, "head"), 1e-9, "red head at " .. t)
      a:skin("blue")
      local plain = {}
      for i = 1, 4 do plain[2 * i - 1], plain[2 * i] = at(W.head, HEAD[2 * i - 1], HEAD[2 * i]) end
      same_list(plain, vertices(a, "head"), 1e-9, "blue head at " .. t)
    end
  end)

  it("deform: a weighted mesh's vertices, each weight's point moved by its offset", function()
    -- act at 0.3: half way from offset 0 { 1, 1, 2, 2, 3, 3, 4, 4 } to
    -- offset 4 { 5, 5 }: { 0.5, 0.5, 1, 1, 4, 4, 2, 2 }
    local a = played("3.8", "act", 0.3)
    local W = expected("act", 0.3)
    local up, lo = W.arm_upper, W.arm_lower
    local x1, y1 = at(up, 0 + 0.5, -3 + 0.5)
    local ax, ay = at(up, 30 + 1, 0 + 1)
    local bx, by = at(lo, 0 + 4, 0 + 4)
    local x3, y3 = at(lo, 25 + 2, 3 + 2)
    same_list({ x1, y1, 0.5 * ax + 0.5 * bx, 0.5 * ay + 0.5 * by, x3, y3 }, vertices(a, "arm"), 1e-9, "arm")
  end)

  it("a bounding box's vertices on its bone", function()
    local a = played("4.2", "walk", 0.7)
    local W = expected("walk", 0.7)
    local box, want = { -20, -20, 20, -20, 20, 30, -20, 30 }, {}
    for i = 1, 4 do want[2 * i - 1], want[2 * i] = at(W.hip, box[2 * i - 1], box[2 * i]) end
    same_list(want, vertices(a, "hitbox"), 1e-9, "hitbox")
  end)

  it("slots: attachments and colours after updates", function()
    local function slot(t, name) return { played("4.0", "walk", t):slot(name) } end
    assert.are.same({ "eye-open", 1, 1, 1, 1 }, slot(0.1, "eye"))
    assert.are.same({ "eye-closed", 1, 1, 1, 1 }, slot(0.35, "eye"))
    assert.are.same({ 1, 1, 1, 1 }, { select(2, played("4.0", "walk", 0.9):slot("eye")) })
    assert.is_nil(slot(0.9, "eye")[1])
    same_list({ 1, 0.5, 0.5, 0.9 }, { select(2, played("4.0", "walk", 0.75):slot("body")) }, 1e-9, "body")
    local l = 0x80 / 255
    local arm = slot(0.9, "arm")
    assert.are.equal("arm", arm[1])
    same_list({ l, 1, l, 1, 0x40 / 255, 0x20 / 255, 0 }, { unpack(arm, 2) }, 1e-9, "arm")
  end)

  it("draw order: the setup's, then each key's", function()
    local setup = { "body", "leg", "arm", "head", "eye", "fx", "hitbox", "muzzle", "clip", "rail" }
    assert.are.same(setup, played("3.8", "act", 0.1):draw_order())
    -- 0.2: head 3 places up; 0.7: leg 3 down, fx 3 up
    assert.are.same({ "head", "body", "leg", "arm", "eye", "fx", "hitbox", "muzzle", "clip", "rail" },
      played("3.8", "act", 0.3):draw_order())
    assert.are.same({ "body", "arm", "fx", "head", "leg", "eye", "hitbox", "muzzle", "clip", "rail" },
      played("4.2", "act", 0.8):draw_order())
    assert.are.same(setup, played("4.2", "act", 1.1):draw_order())
  end)

  for _, v in ipairs({ "3.8", "4.2" }) do
    it("events and sounds with their payloads, at their late (" .. v .. ")", function()
      local r = load(v)
      local a = anim.animator(r.skeleton)
      local got, sounds = {}, {}
      a:on_event(function(_, name, payload, late) got[#got + 1] = { name, payload, late } end)
      a:on_sound(function(_, id, volume, _, late) sounds[#sounds + 1] = { id, volume, late } end)
      a:play(r.clips.act, { fade = 0 })
      a:update(0.13) -- step at 0.1: 0.03 late
      a:update(0.4)  -- step at 0.5: 0.03 late
      a:update(0.41) -- shout at 0.9: 0.04 late
      a:update(0.15) -- hit at 1: 0.09 late
      assert.are.equal(4, #got)
      local function ev(i, name, payload, late)
        assert.are.equal(name, got[i][1])
        assert.are.same(payload, got[i][2])
        close(late, got[i][3], 1e-9, name .. " late")
      end
      ev(1, "step", { int = 1, float = 0.5, string = "left", volume = 1, balance = 0 }, 0.03)
      ev(2, "step", { int = 2, float = 0.5, string = "right", volume = 1, balance = 0 }, 0.03)
      ev(3, "shout", { int = 0, float = 0, string = "", audio = "shout.ogg", volume = 0.5, balance = -0.5 }, 0.04)
      ev(4, "hit", { int = 0, float = 0, string = "", volume = 1, balance = 0 }, 0.09)
      assert.are.equal(1, #sounds)
      assert.are.equal("shout.ogg", sounds[1][1])
      assert.are.equal(0.5, sounds[1][2])
      close(0.04, sounds[1][3], 1e-9, "sound late")
    end)
  end
end)

describe("the Spine hero: the four versions pose alike", function()
  it("world matrices, slots, draw order and vertices at 10 times per animation", function()
    local SLOTS = { "body", "leg", "arm", "head", "eye", "fx", "hitbox", "muzzle", "clip", "rail" }
    local function state(v, clip, t)
      local a = played(v, clip, t)
      local s = { draw = a:draw_order(), slots = {}, world = {}, verts = {} }
      for _, b in ipairs(BONES) do s.world[b.name] = { a:world2d(b.name) } end
      for _, name in ipairs(SLOTS) do s.slots[name] = { a:slot(name) } end
      for _, name in ipairs({ "arm", "head", "hitbox", "clip" }) do s.verts[name] = vertices(a, name) end
      return s
    end
    local function alike(x, y, what)
      assert.are.same(x.draw, y.draw, what)
      for name, w in pairs(x.world) do same_list(w, y.world[name], 1e-9, what .. " " .. name) end
      for name, sl in pairs(x.slots) do
        assert.are.equal(sl[1], y.slots[name][1], what .. " " .. name)
        same_list({ unpack(sl, 2) }, { unpack(y.slots[name], 2) }, 1e-9, what .. " slot " .. name)
      end
      for name, vs in pairs(x.verts) do same_list(vs, y.verts[name], 1e-9, what .. " vertices " .. name) end
    end
    for _, clip in ipairs({ "walk", "act" }) do
      local len = load("3.8").clips[clip].length
      for i = 0, 9 do
        local t = len * i / 10
        local base = state("3.8", clip, t)
        for k = 2, #VERSIONS do alike(base, state(VERSIONS[k], clip, t), VERSIONS[k] .. " " .. clip .. " " .. t) end
      end
    end
    -- split (4.x only): 4.0, 4.1 and 4.2 alike
    for i = 0, 9 do
      local t = 1.1 * i / 10
      local base = state("4.0", "split", t)
      for k = 3, #VERSIONS do alike(base, state(VERSIONS[k], "split", t), VERSIONS[k] .. " split " .. t) end
    end
  end)
end)
