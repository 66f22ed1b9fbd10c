-- Inverse kinematics constraints (issue 22): two-bone (the tip on a
-- reachable target within 1e-5, bone lengths kept, the mid joint on the
-- pole's side, unreachable targets straight toward, weights, softening,
-- degenerate chains) and aim (forward on the target within 1e-6 rad, up
-- nearest +y), in creation order after blending, and every message.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"

-- An arm under a turned torso, with rest turns of its own.
local rig = assert(anim.rig { joints = {
  { name = "root" },
  { name = "torso", parent = "root", position = { 0, 1, 0 }, rotation = { 0, 35, 0 } },
  { name = "upperArm", parent = "torso", position = { 0.4, 1.6, 0 }, rotation = { 10, 0, -20 } },
  { name = "foreArm", parent = "upperArm", position = { 0.9, 1.2, 0.1 }, rotation = { 0, 0, 15 } },
  { name = "hand", parent = "foreArm", position = { 1.5, 1.0, 0.3 } },
  { name = "finger", parent = "hand", position = { 1.7, 1.0, 0.3 } },
  { name = "head", parent = "torso", position = { 0, 2, 0 } },
} })

-- A clip that moves the whole arm about (so the constraints start from an
-- animated pose, not the rest).
local swing = assert(anim.clip({ length = 2, loop = "loop", joints = {
  torso = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 5, 20, 0 } }, { 2, { 0, 0, 0 } } } },
  upperArm = { rotation = { { 0, { 10, 20, 30 } }, { 1, { -40, 10, 60 } }, { 2, { 10, 20, 30 } } } },
  foreArm = { rotation = { { 0, { 0, 0, 20 } }, { 1, { 0, 30, 70 } }, { 2, { 0, 0, 20 } } } },
  hand = { rotation = { { 0, { 0, 0, 0 } }, { 2, { 30, 0, 0 } } } },
} }, "swing"))

local function pos(a, j) local x, y, z = a:world_transform(j); return { x, y, z } end
local function sub(p, q) return { p[1] - q[1], p[2] - q[2], p[3] - q[3] } end
local function dot(p, q) return p[1] * q[1] + p[2] * q[2] + p[3] * q[3] end
local function len(p) return math.sqrt(dot(p, p)) end
local function dist(p, q) return len(sub(p, q)) end
local function scale(p, k) return { p[1] * k, p[2] * k, p[3] * k } end
local function add(p, q) return { p[1] + q[1], p[2] + q[2], p[3] + q[3] } end
local function rand_dir(r)
  local v
  repeat v = { r() * 2 - 1, r() * 2 - 1, r() * 2 - 1 } until len(v) > 0.1 and len(v) <= 1
  return scale(v, 1 / len(v))
end
-- The part of v at right angles to unit axis e.
local function across(v, e) return sub(v, scale(e, dot(v, e))) end

-- Two animators in step: one unconstrained, one constrained by make(a).
local function pair(make, t)
  local free, held = anim.animator(rig), anim.animator(rig)
  free:play(swing, { fade = 0 })
  held:play(swing, { fade = 0 })
  local c = make(held)
  free:update(t); held:update(t)
  return free, held, c
end

-- The arm's joints (root, mid, tip) at a random time of the swing: that
-- time, their places and the two bones' lengths.
local function arm_at(r)
  local t = r() * 2
  local probe = anim.animator(rig)
  probe:play(swing, { fade = 0 })
  probe:update(t)
  local R, M, T = pos(probe, "upperArm"), pos(probe, "foreArm"), pos(probe, "hand")
  return t, R, dist(M, R), dist(T, M)
end

describe("a two-bone constraint", function()
  it("puts the tip on random reachable targets, keeps the bones' lengths, bends toward the pole", function()
    math.randomseed(2201)
    local r = math.random
    for n = 1, 300 do
      local t, R, la, lb = arm_at(r)
      local d = math.abs(la - lb) + (la + lb - math.abs(la - lb)) * (0.02 + 0.96 * r())
      local target = add(R, scale(rand_dir(r), d))
      local pole = add(R, scale(rand_dir(r), 3))
      local _, a, c = pair(function(x)
        return x:two_bone_ik { root = "upperArm", mid = "foreArm", tip = "hand", target = target, pole = pole }
      end, t)
      assert.are.equal("two_bone", c.kind)
      local R2, M2, T2 = pos(a, "upperArm"), pos(a, "foreArm"), pos(a, "hand")
      assert.is_true(dist(T2, target) <= 1e-5, n .. ": the tip is " .. dist(T2, target) .. " from the target")
      assert.is_true(H.near(dist(M2, R2), la, 1e-9) and H.near(dist(T2, M2), lb, 1e-9), n .. ": lengths")
      assert.is_true(dist(R2, R) < 1e-12, "the root stays")
      -- the pole's side of the root-target line
      local e = scale(sub(target, R), 1 / d)
      local m, p = across(sub(M2, R), e), across(sub(pole, R), e)
      if len(m) > 1e-6 and len(p) > 1e-6 then
        assert.is_true(dot(m, p) / (len(m) * len(p)) > 1 - 1e-6, n .. ": the mid joint is off the pole's side")
      end
      -- the finger below the tip comes along rigidly
      assert.is_true(H.near(dist(pos(a, "finger"), T2), 0.2, 1e-9))
    end
  end)

  it("stretches the chain straight toward a target out of reach", function()
    math.randomseed(2202)
    local r = math.random
    for n = 1, 100 do
      local t, R, la, lb = arm_at(r)
      local e = rand_dir(r)
      local target = add(R, scale(e, (la + lb) * (1.01 + 3 * r())))
      local _, a = pair(function(x)
        return x:two_bone_ik { root = "upperArm", mid = "foreArm", tip = "hand", target = target, pole = { 0, 5, 5 } }
      end, t)
      assert.is_true(dist(pos(a, "foreArm"), add(R, scale(e, la))) < 1e-9, n .. ": mid " .. dist(pos(a, "foreArm"), add(R, scale(e, la))) .. " " .. dist(pos(a, "hand"), add(R, scale(e, la + lb))))
      assert.is_true(dist(pos(a, "hand"), add(R, scale(e, la + lb))) < 1e-9, n .. ": tip")
    end
  end)

  it("slerps each joint's local rotation by its weight from the unconstrained one", function()
    local target, pole = { 1.2, 2.9, 0.8 }, { 0, 4, 3 }
    local function ik(w)
      return function(x)
        return x:two_bone_ik { root = "upperArm", mid = "foreArm", tip = "hand", target = target, pole = pole, weight = w }
      end
    end
    local free, full = pair(ik(1), 0.7)
    local _, half = pair(ik(0.3), 0.7)
    local _, none = pair(ik(0), 0.7)
    for _, j in ipairs { "upperArm", "foreArm" } do
      local q0 = { select(4, free:local_transform(j)) }
      local q1 = { select(4, full:local_transform(j)) }
      local qh = { select(4, half:local_transform(j)) }
      -- slerp by 0.3: the angle from q0 is 0.3 of the whole, on the way to q1
      local function angle(p, q) return 2 * math.acos(math.min(1, math.abs(dot(p, q) + p[4] * q[4]))) end
      local whole, part, rest = angle(q0, q1), angle(q0, qh), angle(qh, q1)
      assert.is_true(whole > 0.1)
      assert.is_true(H.near(part, 0.3 * whole, 1e-9) and H.near(rest, 0.7 * whole, 1e-9), j)
      assert.are.same({ free:get(j) }, { none:get(j) })
    end
  end)

  it("softens the reach near its end (soften < 1) and not at 1", function()
    local probe = anim.animator(rig)
    probe:update(0)
    local R, M, T = pos(probe, "upperArm"), pos(probe, "foreArm"), pos(probe, "hand")
    local reach = dist(M, R) + dist(T, M)
    local e = scale({ 1, -1, 0.5 }, 1 / len { 1, -1, 0.5 })
    local target = add(R, scale(e, reach * 0.97))
    local a = anim.animator(rig)
    local c = a:two_bone_ik { root = "upperArm", mid = "foreArm", tip = "hand", target = target, pole = { 0, 0, 5 }, soften = 0.8 }
    a:update(0)
    local got = dist(pos(a, "hand"), R)
    assert.is_true(got < reach * 0.97 - 1e-3 and got > reach * 0.8, "softened reach " .. got / reach)
    c.soften = 1
    a:update(0)
    assert.is_true(dist(pos(a, "hand"), target) < 1e-9)
    assert.are.equal(1, c.soften)
  end)

  it("reaches on a chain deeper than the ancestors it composes itself (the whole rig's world then)", function()
    local js = { { name = "j1" } }
    for i = 2, 80 do js[i] = { name = "j" .. i, parent = "j" .. (i - 1), position = { 0, (i - 1) * 0.5, 0 } } end
    local deep = assert(anim.rig { joints = js })
    for _, names in ipairs { { "j3", "j4", "j5" }, { "j77", "j78", "j79" } } do
      local a = anim.animator(deep)
      a:update(0)
      local R = { a:world_transform(names[1]) }
      local target = { R[1] + 0.6, R[2] + 0.3, R[3] + 0.2 }
      a:two_bone_ik { root = names[1], mid = names[2], tip = names[3], target = target, pole = { 0, 0, 100 } }
      a:update(0)
      assert.is_true(dist(pos(a, names[3]), target) < 1e-9, names[1])
    end
  end)

  it("leaves a degenerate chain alone, with no NaN", function()
    local flat = assert(anim.rig { joints = {
      { name = "a" }, { name = "b", parent = "a" }, { name = "c", parent = "b", position = { 0, 1, 0 } },
      { name = "d", parent = "c", position = { 0, 1, 0 } },
    } })
    local a = anim.animator(flat)
    a:two_bone_ik { root = "a", mid = "b", tip = "c", target = { 1, 0, 0 }, pole = { 0, 0, 1 } } -- a bone of no length
    a:two_bone_ik { root = "b", mid = "c", tip = "d", target = { 0, 0, 0 }, pole = { 0, 0, 1 } }  -- the target on the root
    a:update(0.1)
    for _, j in ipairs { "a", "b", "c", "d" } do
      local v = { a:get(j) }
      assert.are.same({ 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 }, v)
    end
  end)
end)

describe("an aim constraint", function()
  it("points the forward axis at random targets, the up axis as near +y as that allows", function()
    math.randomseed(2203)
    local r = math.random
    for n = 1, 300 do
      local fwd = rand_dir(r)
      local up
      repeat up = rand_dir(r) until math.abs(dot(up, fwd)) < 0.95
      local target = scale(rand_dir(r), 0.5 + 5 * r())
      if n % 50 == 0 then target = add(pos(anim.animator(rig), "head"), { 0, 3, 0 }) end -- straight above
      local _, a = pair(function(x) return x:aim { joint = "head", target = target, forward = fwd, up = up } end, r() * 2)
      local w = { a:world_transform("head") }
      local q = { w[4], w[5], w[6], w[7] }
      local to = sub(target, { w[1], w[2], w[3] })
      to = scale(to, 1 / len(to))
      local f = H.qrotate(q, fwd)
      local ang = math.acos(math.min(1, dot(f, to) / len(f)))
      assert.is_true(ang < 1e-6, n .. ": forward is " .. ang .. " rad off")
      -- up: the unit vector at right angles to the target nearest +y
      local u0 = across(sub(up, scale(fwd, dot(up, fwd))), { 0, 0, 0 }) -- (up made at right angles to forward)
      u0 = scale(u0, 1 / len(u0))
      local u = H.qrotate(q, u0)
      local best = across({ 0, 1, 0 }, to)
      if len(best) > 1e-6 then
        best = scale(best, 1 / len(best))
        assert.is_true(dot(u, best) > 1 - 1e-9, n .. ": up is off")
      end
    end
  end)

  it("with weight, slerps; removed, is gone from the next update", function()
    local target = { 2, 2.5, 1 }
    local free, full, c = pair(function(x) return x:aim { joint = "head", target = target } end, 0.3)
    assert.are.equal("aim", c.kind)
    assert.is_nil(c.pole)
    c.weight = 0.5
    full:update(0)
    local q0 = { select(4, free:local_transform("head")) }
    local qh = { select(4, full:local_transform("head")) }
    assert.is_true(2 * math.acos(math.min(1, math.abs(dot(q0, qh) + q0[4] * qh[4]))) > 0.1)
    c:remove()
    assert.is_true(c.removed)
    full:update(0)
    assert.are.same({ free:get("head") }, { full:get("head") })
    c:remove() -- twice: nothing
  end)
end)

describe("constraints", function()
  it("apply in creation order after blending, and every pose reader shows them", function()
    local target = { 0.9, 1.9, 0.6 }
    local look = { 3, 1, 3 }
    -- the arm reaches, then the hand aims: both hold
    local a = anim.animator(rig)
    a:play(swing, { fade = 0 })
    a:two_bone_ik { root = "upperArm", mid = "foreArm", tip = "hand", target = target, pole = { 0, 0, 5 } }
    a:aim { joint = "hand", target = look, forward = { 1, 0, 0 } }
    a:update(0.4)
    assert.is_true(dist(pos(a, "hand"), target) < 1e-9)
    local w = { a:world_transform("hand") }
    local f = H.qrotate({ w[4], w[5], w[6], w[7] }, { 1, 0, 0 })
    local to = sub(look, { w[1], w[2], w[3] })
    assert.is_true(dot(f, to) / len(to) > 1 - 1e-12)
    -- made the other way round, the reach turns the hand away from its aim
    local b = anim.animator(rig)
    b:play(swing, { fade = 0 })
    b:aim { joint = "foreArm", target = look, forward = { 1, 0, 0 } }
    b:two_bone_ik { root = "upperArm", mid = "foreArm", tip = "hand", target = target, pole = { 0, 0, 5 } }
    b:update(0.4)
    assert.is_true(dist(pos(b, "hand"), target) < 1e-9)
    w = { b:world_transform("foreArm") }
    f = H.qrotate({ w[4], w[5], w[6], w[7] }, { 1, 0, 0 })
    to = sub(look, { w[1], w[2], w[3] })
    assert.is_true(dot(f, to) / len(to) < 1 - 1e-3)
    -- get, local_transform and pose_into agree with world_transform
    local world, offsets = a:pose_into({}, "world"), a:pose_into({}, "offsets")
    assert.are.same({ a:world_transform("hand") }, world.hand)
    assert.are.same({ a:get("foreArm") }, offsets.foreArm)
  end)

  it("take new targets, poles and weights between updates", function()
    local a = anim.animator(rig)
    local c = a:two_bone_ik { root = "upperArm", mid = "foreArm", tip = "hand", target = { 0.7, 2.1, 0.5 }, pole = { 0, 0, 5 } }
    a:update(0)
    assert.is_true(dist(pos(a, "hand"), { 0.7, 2.1, 0.5 }) < 1e-9)
    c.target = { 0.5, 2.4, -0.4 }
    assert.are.same({ 0.5, 2.4, -0.4 }, c.target)
    a:update(0)
    assert.is_true(dist(pos(a, "hand"), { 0.5, 2.4, -0.4 }) < 1e-9)
    c:set_target(1, 2, 0)
    c:set_pole(0, 5, -5)
    assert.are.same({ 0, 5, -5 }, c.pole)
    a:update(0)
    assert.is_true(dist(pos(a, "hand"), { 1, 2, 0 }) < 1e-9)
    c.weight = 0
    assert.are.equal(0, c.weight)
    a:update(0)
    assert.are.same({ 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 }, { a:get("upperArm") })
  end)

  it("name what is wrong", function()
    local a = anim.animator(rig)
    local function err(f, ...)
      local ok, e = pcall(f, ...)
      assert.is_false(ok)
      return e
    end
    local base = { root = "upperArm", mid = "foreArm", tip = "hand", target = { 0, 0, 0 }, pole = { 0, 0, 1 } }
    local function with(k, v)
      local t = {}
      for x, y in pairs(base) do t[x] = y end
      t[k] = v
      return t
    end
    local cases = {
      { with("root", "elbow"), "root: unknown joint 'elbow'" },
      { with("mid", 99), "mid: joint index 99 out of range 1..7" },
      { with("tip", true), "tip: joint name or index expected, got boolean" },
      { with("mid", "head"), "mid 'head' is not below root 'upperArm' in the rig" },
      { with("tip", "upperArm"), "tip 'upperArm' is not below mid 'foreArm' in the rig" },
      { with("target", { 1, 2 }), "target must be { x, y, z } of finite numbers, got { 1, 2, nil }" },
      { with("pole", "up"), "pole must be { x, y, z } of finite numbers, got string" },
      { with("weight", 2), "weight must be a number from 0 to 1, got 2" },
      { with("soften", 0 / 0), "soften must be a number from 0 to 1, got nan" },
    }
    for _, c in ipairs(cases) do
      local e = err(a.two_bone_ik, a, c[1])
      assert.truthy(e:find("bad argument #1 to 'two_bone_ik' (" .. c[2] .. ")", 1, true), e)
    end
    assert.truthy(err(a.two_bone_ik, a, 5):find("bad argument #1 to 'two_bone_ik' (table of options expected, got number)", 1, true))
    assert.truthy(err(a.two_bone_ik, a, with("targte", { 1, 1, 1 })):find("bad argument #1 to 'two_bone_ik' (unknown option 'targte'; did you mean 'target'?)", 1, true))
    assert.truthy(err(a.aim, a, { joint = "hed", target = { 1, 1, 1 } }):find("bad argument #1 to 'aim' (joint: unknown joint 'hed'; did you mean 'head'?)", 1, true))
    assert.truthy(err(a.aim, a):find("bad argument #1 to 'aim' (table of options expected, got nil)", 1, true))
    assert.truthy(err(a.aim, a, { joint = "head", target = { 1, 1, 1 }, forward = { 0, 1, 0 }, up = { 0, 2, 0 } }):find(
      "bad argument #1 to 'aim' (forward and up must not be parallel)", 1, true))
    assert.truthy(err(a.aim, a, { joint = "head", target = { 1, 1, 1 }, forward = { 0, 0, 0 } }):find(
      "bad argument #1 to 'aim' (forward must not be { 0, 0, 0 })", 1, true))
    assert.truthy(err(a.aim, a, { joint = "nose", target = { 1, 1, 1 } }):find("bad argument #1 to 'aim' (joint: unknown joint 'nose')", 1, true))
    local c = a:two_bone_ik(base)
    local aim = a:aim { joint = "head", target = { 0, 5, 5 } }
    assert.truthy(err(function() c.target = { 1, 0 / 0, 1 } end):find("constraint.target must be { x, y, z } of finite numbers, got { 1, nan, 1 }", 1, true))
    assert.truthy(err(function() c.weight = -1 end):find("constraint.weight must be a number from 0 to 1, got -1", 1, true))
    assert.truthy(err(function() c.kind = "aim" end):find("cannot set constraint field 'kind'", 1, true))
    assert.truthy(err(function() aim.pole = { 0, 1, 0 } end):find("constraint.pole: an aim constraint has no pole", 1, true))
    assert.truthy(err(aim.set_pole, aim, 0, 1, 0):find("constraint:set_pole: an aim constraint has no pole", 1, true))
    assert.truthy(err(c.set_target, c, 1, "x", 2):find("bad argument #1 to 'set_target' (x, y, z must be finite numbers, got 1, string, 2)", 1, true))
    c:remove()
    assert.truthy(err(c.set_target, c, 1, 2, 3):find("constraint:set_target: the constraint was removed", 1, true))
    assert.truthy(err(function() c.weight = 1 end):find("constraint.weight: the constraint was removed", 1, true))
    assert.is_nil(c.target)
    assert.are.equal("anim.constraint(two_bone, removed)", tostring(c))
  end)
end)
