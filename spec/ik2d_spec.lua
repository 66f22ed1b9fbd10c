-- 2D IK constraints (issue 40): one bone turned at its target (compress,
-- stretch, uniform, mix) and two bones whose tip lands on the target (both
-- bend directions, softness, stretch), checked by geometry worked here:
-- where the tip is, how long the bones are, which angles the law of
-- cosines gives (docs/formats.md, "IK constraints").
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"

local rad = math.pi / 180
local atan2 = rawget(math, "atan2") or math.atan

local function W(a, bone) return { a:world2d(bone) } end

-- The point at distance len along bone's x axis, in the world.
local function tip(a, bone, len)
  local w = W(a, bone)
  return w[1] * len + w[5], w[3] * len + w[6]
end

local function close(want, got, tol, what)
  assert(math.abs(want - got) <= (tol or 1e-9), string.format("%s: want %.17g, got %.17g", what or "", want, got))
end

-- A skeleton: root, an arm chain, a target under the root at (tx, ty).
local function skeleton(tx, ty, ik, more)
  local bones = {
    { name = "root", rotation = more and more.root_rotation or 0, scale_x = more and more.root_scale or 1,
      scale_y = more and more.root_scale or 1 },
    { name = "upper", parent = "root", length = 10, rotation = 20 },
    { name = "lower", parent = "upper", x = 10, y = more and more.lower_y or 0, length = 10, rotation = 15 },
    { name = "hand", parent = "lower", x = 10 },
    { name = "t", parent = "root", x = tx, y = ty },
  }
  return assert(anim.skeleton2d{ bones = bones, ik = { ik } })
end

local function posed(sk, clip)
  local a = anim.animator(sk)
  if clip then a:play(clip, { fade = 0 }) end
  a:update(0)
  return a
end

describe("2D IK: one bone", function()
  it("turns the bone at its target; mix blends the turn", function()
    local a = posed(skeleton(3, 4, { name = "aim", bones = { "upper" }, target = "t" }))
    local w = W(a, "upper")
    close(math.cos(atan2(4, 3)), w[1], 1e-12, "a")
    close(math.sin(atan2(4, 3)), w[3], 1e-12, "c")
    a = posed(skeleton(3, 4, { name = "aim", bones = { "upper" }, target = "t", mix = 0.5 }))
    w = W(a, "upper")
    -- halfway from the setup's 20 degrees to 53.13
    local r = 20 + (atan2(4, 3) / rad - 20) / 2
    close(math.cos(r * rad), w[1], 1e-12, "a")
  end)

  it("compress and stretch scale the bone so that its tip reaches the target; uniform scales y too", function()
    local a = posed(skeleton(3, 4, { name = "aim", bones = { "upper" }, target = "t", compress = true }))
    local x, y = tip(a, "upper", 10)
    close(3, x, 1e-12, "x")
    close(4, y, 1e-12, "y")
    -- not stretched without stretch: the tip beyond the target
    a = posed(skeleton(30, 40, { name = "aim", bones = { "upper" }, target = "t", compress = true }))
    x = tip(a, "upper", 10)
    close(6, x, 1e-12, "x")
    a = posed(skeleton(30, 40, { name = "aim", bones = { "upper" }, target = "t", stretch = true, uniform = true }))
    x, y = tip(a, "upper", 10)
    close(30, x, 1e-9, "x")
    close(40, y, 1e-9, "y")
    local w = W(a, "upper")
    -- scale 5 on both axes: the y axis (b, d) 5 long
    close(5, math.sqrt(w[2] ^ 2 + w[4] ^ 2), 1e-9, "uniform")
  end)
end)

describe("2D IK: two bones", function()
  local leg = { name = "leg", bones = { "upper", "lower" }, target = "t" }
  local function with(t, more)
    local o = {}
    for k, v in pairs(t) do o[k] = v end
    for k, v in pairs(more) do o[k] = v end
    return o
  end

  it("puts the tip on a reachable target, bending either way", function()
    -- l1 = l2 = 10, target (10, 10): the law of cosines gives a right angle
    local a = posed(skeleton(10, 10, leg))
    local w = W(a, "upper")
    close(1, w[1], 1e-12, "upper along x (bend 1)")
    local x, y = tip(a, "lower", 10)
    close(10, x, 1e-12, "x")
    close(10, y, 1e-12, "y")
    a = posed(skeleton(10, 10, with(leg, { bend = -1 })))
    w = W(a, "upper")
    close(1, w[3], 1e-12, "upper along y (bend -1)")
    x, y = tip(a, "lower", 10)
    close(10, x, 1e-12, "x")
    close(10, y, 1e-12, "y")
    -- the hand, below the lower bone, follows it
    w = W(a, "hand")
    close(10, w[5], 1e-12, "hand x")
    close(10, w[6], 1e-12, "hand y")
    -- anywhere in reach, under a turned and scaled root, the child off the parent's axis
    for _, t in ipairs({ { 7, -12 }, { -3, 5 }, { 0.5, 14 } }) do
      for _, bend in ipairs({ 1, -1 }) do
        a = posed(skeleton(t[1], t[2], with(leg, { bend = bend }), { root_rotation = 30, root_scale = 1.5, lower_y = 2 }))
        local tw = W(a, "t")
        x, y = tip(a, "lower", 10)
        close(tw[5], x, 1e-9, "x")
        close(tw[6], y, 1e-9, "y")
      end
    end
  end)

  it("softness eases the reach: from reach - softness to straight at reach + softness", function()
    local dir = 35 * rad
    local function reach_at(d, soft)
      local a = posed(skeleton(d * math.cos(dir), d * math.sin(dir), with(leg, { softness = soft })))
      local x, y = tip(a, "lower", 10)
      -- (the tip stays on the line to the target)
      close(0, x * math.sin(dir) - y * math.cos(dir), 1e-9, "on the line")
      return math.sqrt(x * x + y * y)
    end
    close(15, reach_at(15, 4), 1e-9, "below reach - softness: reached")
    -- reach 20, softness 4, target at 19: 20 - (24 - 19)^2 / 16
    close(20 - 25 / 16, reach_at(19, 4), 1e-9, "eased")
    close(20 - 9 / 16, reach_at(21, 4), 1e-9, "eased beyond")
    close(20, reach_at(30, 4), 1e-9, "straight")
    close(20, reach_at(19.5, 0) + 0.5, 1e-9, "no softness: reached")
  end)

  it("stretch scales the parent so that the straight chain reaches a target beyond it", function()
    local a = posed(skeleton(18, 24, with(leg, { stretch = true })))
    local x, y = tip(a, "lower", 10)
    close(18, x, 1e-9, "x")
    close(24, y, 1e-9, "y")
    local w = W(a, "upper")
    close(1.5, math.sqrt(w[1] ^ 2 + w[3] ^ 2), 1e-9, "upper scaled 30 / 20")
    close(1, math.sqrt(w[2] ^ 2 + w[4] ^ 2), 1e-9, "not uniform")
  end)

  it("takes mix, softness and the flags from the constraint's properties", function()
    local sk = skeleton(10, 10, leg)
    local off = assert(anim.clip{ joints = {}, length = 1, properties = { ["ik.leg"] = { { 0, { 0, 0 } } } } })
    local a = posed(sk, off)
    local w = W(a, "upper")
    close(math.cos(20 * rad), w[1], 1e-12, "mix 0: the setup pose")
    local flip = assert(anim.clip{ joints = {}, length = 1, properties = {
      ["ik.leg.flags"] = { keys = { { 0, { -1, 0, 0 }, "step" } }, discrete = true } } })
    a = posed(sk, flip)
    w = W(a, "upper")
    close(1, w[3], 1e-12, "bend -1 from the flags")
  end)

  it("at mix 1 poses sheared and reflected bones as the angles do (their turns set from vectors)", function()
    -- At mix 1 the solve sets the bones' cosines and sines from its vectors
    -- where their shearX is 0 or the setup's; an animated shearX takes the
    -- angles.  The same shear given both ways: the same pose within
    -- rounding; the one bone's axis at the target.
    local function arm(shear, flip)
      local sh = shear and 0 or 12
      return assert(anim.skeleton2d{ bones = {
        { name = "root", rotation = 10 },
        { name = "upper", parent = "root", length = 10, rotation = 20, shear_x = sh, shear_y = 7 },
        { name = "lower", parent = "upper", x = 10, y = 1, length = 10, rotation = 15, shear_x = sh,
          scale_x = flip and -1 or 1 },
        { name = "aim", parent = "root", length = 5, shear_x = sh, scale_x = flip and -2 or 1 },
        { name = "t", parent = "root", x = 8, y = 9 },
      }, ik = { { name = "leg", bones = { "upper", "lower" }, target = "t", order = 1 },
                { name = "one", bones = { "aim" }, target = "t", order = 2 } } })
    end
    local sheared = assert(anim.clip{ joints = {}, length = 1, properties = {
      ["upper.shear"] = { { 0, { 12, 7 } } }, ["lower.shear"] = { { 0, { 12, 0 } } },
      ["aim.shear"] = { { 0, { 12, 0 } } } } })
    for _, flip in ipairs({ false, true }) do
      local a, b = posed(arm(false, flip)), posed(arm(true, flip), sheared)
      for _, bone in ipairs({ "upper", "lower", "aim" }) do
        local wa, wb = W(a, bone), W(b, bone)
        for i = 1, 6 do close(wb[i], wa[i], 1e-12, bone .. "[" .. i .. "]") end
      end
      -- the one bone's x axis (its column) at the target, reflected or not
      local w, tw = W(a, "aim"), W(a, "t")
      local dx, dy = tw[5] - w[5], tw[6] - w[6]
      close(0, w[1] * dy - w[3] * dx, 1e-9, "aim across")
      assert(w[1] * dx + w[3] * dy > 0, "aim at the target")
    end
  end)

  it("refuses constraints that cannot be posed, naming the path", function()
    local function bad(ik, msg)
      local sk, err = anim.skeleton2d({ bones = { { name = "root" }, { name = "upper", parent = "root" },
        { name = "lower", parent = "upper" }, { name = "t", parent = "root" } }, ik = { ik } }, "s")
      assert.is_nil(sk)
      assert.are.equal(msg, err)
    end
    bad({ name = "leg", bones = { "upper", "root" }, target = "t" },
      "s: ik[1].bones[2]: the second bone of an IK constraint is a child of the first ('upper'), got 'root'")
    bad({ name = "leg", bones = { "upper", "lower" }, target = "lower" },
      "s: ik[1].target: the target 'lower' cannot be a constrained bone or below one")
    bad({ name = "leg", bones = { "upper", "lowr" }, target = "t" },
      "s: ik[1].bones[2]: unknown bone 'lowr'; did you mean 'lower'?")
    bad({ name = "leg", bones = {}, target = "t" }, "s: ik[1].bones: an IK constraint has one or two bones, got 0")
    bad({ name = "leg", bones = { "upper" }, target = "t", bend = 0 }, "s: ik[1].bend: bend must be 1 or -1, got 0")
    bad({ name = "leg", bones = { "upper" }, target = "t", mix = "all" },
      "s: ik[1].mix: mix must be a finite number, got string")
    bad({ name = "leg", bones = { "upper" }, target = "t", stretch = 1 },
      "s: ik[1].stretch: stretch must be true or false, got number")
  end)
end)

describe("2D IK: DragonBones' solver (a constraint with `dragonbones`)", function()
  -- IKConstraint._computeA/_computeB of DragonBonesJS (docs/formats.md,
  -- DragonBones): the bones' world matrices turned about their origins.
  local function db_skeleton(ik)
    return assert(anim.skeleton2d{ bones = {
      { name = "root", scale_x = 2 },
      { name = "b", parent = "root", length = 5 },
      { name = "c", parent = "b", x = 5, length = 5 },
      { name = "t", parent = "root", y = 10 },
    }, ik = { ik } })
  end

  it("one bone: its world matrix turned at the target by the weight (not its local rotation)", function()
    -- b's world [2 0; 0 1] at (0, 0), the target at (0, 10): a quarter turn
    local a = posed(db_skeleton{ name = "k", bones = { "b" }, target = "t", dragonbones = { scale = false } })
    local w = W(a, "b")
    for i, v in ipairs({ 0, -1, 2, 0, 0, 0 }) do close(v, w[i], 1e-12, "b[" .. i .. "]") end
    -- (Spine's solver turns the local rotation: P R(90) = [0 -2; 1 0])
    a = posed(db_skeleton{ name = "k", bones = { "b" }, target = "t" })
    close(-2, W(a, "b")[2], 1e-12, "Spine's b")
    -- weight 0.5: an eighth of a turn
    a = posed(db_skeleton{ name = "k", bones = { "b" }, target = "t", mix = 0.5, dragonbones = {} })
    w = W(a, "b")
    local c, s = math.cos(45 * rad), math.sin(45 * rad)
    for i, v in ipairs({ 2 * c, -s, 2 * s, c, 0, 0 }) do close(v, w[i], 1e-12, "b[" .. i .. "] at 0.5") end
  end)

  it("two bones: the child's tip on the target, bent the way bendPositive says", function()
    -- b's segment to c's origin is 10 long (x scaled 2), c's length 5 x 2 =
    -- 10: the target at (0, 10) from b's origin, a triangle 10, 10, 10
    for _, bend in ipairs({ 1, -1 }) do
      local a = posed(db_skeleton{ name = "k", bones = { "b", "c" }, target = "t", bend = bend, dragonbones = {} })
      local x, y = tip(a, "c", 5)
      close(0, x, 1e-9, "tip x")
      close(10, y, 1e-9, "tip y")
      -- the knee 10 from both ends: at (±8.66, 5); bendPositive (y down)
      -- puts it at +x
      local w = W(a, "c")
      close(bend * math.sqrt(75), w[5], 1e-9, "knee x, bend " .. bend)
      close(5, w[6], 1e-9, "knee y")
    end
  end)
end)
