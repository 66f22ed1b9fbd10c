-- Root motion (issue 22): the motion joint's translation and turn about +y
-- taken out of the pose (held at their value at the clips' time 0) and
-- handed out per update by animator:root_motion(), loop-aware (N loops
-- move N x (end - start) whatever dt is), pingpong and backwards, seeks
-- moving nothing, blended like the pose.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local compat = require "anim.base.compat"

local rig = assert(anim.rig { joints = {
  { name = "root" }, { name = "hips", parent = "root", position = { 0, 1, 0 } },
  { name = "spine", parent = "hips", position = { 0, 1.5, 0 } },
} })

-- A clip moving hips from `from` to `to` (eased: not a straight line),
-- turning it about y by `turn` degrees and tilting it about x.
local function walk(name, len, from, to, loop, turn, extra)
  local t = {
    length = len, loop = loop or "loop",
    joints = { hips = {
      position = { { 0, from, "sine", { ease = "inOut" } }, { len / 3, { from[1] + 0.1, from[2] + 0.2, from[3] }, "quad" }, { len, to } },
      rotation = { { 0, { 10, 0, 0 } }, { len, { 10, turn or 0, 0 } } },
    } },
  }
  for k, v in pairs(extra or {}) do t[k] = v end
  return assert(anim.clip(t, name))
end

local function motion(a)
  local m = { a:root_motion() }
  return m
end

-- The sum of the motions of updates of dt, n times.
local function travel(a, dt, n)
  local x, y, z, yaw = 0, 0, 0, 0
  for _ = 1, n do
    a:update(dt)
    local m = motion(a)
    x, y, z = x + m[1], y + m[2], z + m[3]
    yaw = yaw + 2 * compat.atan2(m[5], m[7])
  end
  return x, y, z, yaw
end

describe("root motion", function()
  local clip = walk("walk", 0.8, { 0, 0, 0 }, { 0.3, 0.05, 2 }, "loop", 30)

  it("moves N x (end - start) in N loops, whatever dt is (to 1e-9 a loop)", function()
    for _, dt in ipairs { 1 / 60, 1 / 7, 0.37, 0.8, 3.3, 1 / 3 } do
      local a = anim.animator(rig, { root_motion = "hips" })
      a:play(clip, { fade = 0 })
      local n = math.floor(40 / dt + 0.5)
      local T = n * dt
      local x, y, z, yaw = travel(a, dt, n)
      -- N whole loops, then the rest of a loop
      local loops = math.floor(T / 0.8 + 1e-9)
      local rest = clip:sample(T - loops * 0.8).hips.position
      local tol = 1e-9 * (loops + 1)
      assert.is_true(H.near(x, loops * 0.3 + rest[1], tol), dt .. ": x " .. x)
      assert.is_true(H.near(y, loops * 0.05 + rest[2], tol), dt .. ": y " .. y)
      assert.is_true(H.near(z, loops * 2 + rest[3], tol), dt .. ": z " .. z)
      local rq = clip:sample(T - loops * 0.8).hips.rotation
      local rest_yaw = 2 * compat.atan2(rq[2], rq[4]) -- (the turn's twist about y)
      assert.is_true(H.near(yaw, loops * math.rad(30) + rest_yaw, 1e-7 * (loops + 1)), dt .. ": yaw " .. yaw)
    end
  end)

  it("holds the joint at its value at time 0: translation and turn taken out, the tilt kept", function()
    local a = anim.animator(rig, { root_motion = "hips" })
    local b = anim.animator(rig)
    a:play(clip, { fade = 0 })
    b:play(clip, { fade = 0 })
    for _ = 1, 20 do
      a:update(0.13); b:update(0.13)
      local p = { a:get("hips") }
      assert.are.same({ 0, 0, 0 }, { p[1], p[2], p[3] })
      -- the turn about y is 0 again; the tilt of 10 degrees about x stays
      assert.is_true(H.quatdiff({ p[4], p[5], p[6], p[7] }, H.qaxis(1, 10)) < 1e-12)
      -- the other joints are posed as without root motion
      assert.are.same({ b:get("spine") }, { a:get("spine") })
    end
    -- held at a start that is not the rest
    local off = walk("off", 1, { 1, 2, 3 }, { 1, 2, 5 }, "loop", 0)
    local c = anim.animator(rig, { root_motion = "hips" })
    c:play(off, { fade = 0 })
    c:update(0.4)
    local p = { c:get("hips") }
    assert.are.same({ 1, 2, 3 }, { p[1], p[2], p[3] })
    -- its world transform is the rest's plus that
    local w = { c:world_transform("hips") }
    assert.are.same({ 1, 3, 3 }, { w[1], w[2], w[3] })
  end)

  it("plays pingpong and backwards the way the playhead goes", function()
    local pp = walk("pp", 1, { 0, 0, 0 }, { 0, 0, 1 }, "pingpong")
    local a = anim.animator(rig, { root_motion = "hips" })
    a:play(pp, { fade = 0 })
    local _, _, z = travel(a, 0.3, 10) -- 3 s: out (1), back (0), out to 1 at 3 s
    assert.is_true(H.near(z, 1, 1e-12), "pingpong z " .. z)
    _, _, z = travel(a, 0.25, 4) -- back to 0 at 4 s
    assert.is_true(H.near(z, -1, 1e-12))
    -- backwards: -1 a loop
    local back = anim.animator(rig, { root_motion = "hips" })
    back:play(clip, { fade = 0, speed = -1 })
    local _, _, zb = travel(back, 0.1, 80) -- 8 s: 10 loops backwards
    assert.is_true(H.near(zb, -20, 1e-9), "backwards z " .. zb)
  end)

  it("moves nothing on a seek, and N loops in one update past the pass bound", function()
    local a = anim.animator(rig, { root_motion = "hips" })
    local tr = a:play(clip, { fade = 0 })
    a:update(0.2)
    tr.time = 0.6
    a:update(0.1) -- from 0.6 to 0.7: only that
    local m = motion(a)
    local p6, p7 = clip:sample(0.6).hips.position, clip:sample(0.7).hips.position
    assert.is_true(H.near(m[3], p7[3] - p6[3], 1e-12) and m[3] > 0.1)
    -- 1000 loops in one update (beyond the 64 passes that fire): still 1000 x
    a:update(800)
    m = motion(a)
    assert.is_true(H.near(m[3], 1000 * 2, 1e-9 * 1000), "z " .. m[3])
    -- pingpong: an even number of whole passes skipped moves nothing more
    local pp = walk("pp", 1, { 0, 0, 0 }, { 0, 0, 1 }, "pingpong")
    local b = anim.animator(rig, { root_motion = "hips" })
    b:play(pp, { fade = 0 })
    b:update(0.25)
    b:update(200) -- 200 passes: back at 0.25 going forward
    m = motion(b)
    assert.is_true(H.near(m[3], 0, 1e-9), "pingpong " .. m[3])
    b:update(201) -- 201 more: at 0.75 going back (an odd number of whole passes)
    m = motion(b)
    local want = pp:sample(0.75).hips.position[3] - pp:sample(0.25).hips.position[3]
    assert.is_true(H.near(m[3], want, 1e-9) and want > 0.1, m[3] .. " " .. want)
  end)

  it("blends the motion of every track like the pose", function()
    local fast = walk("fast", 0.8, { 0, 0, 0 }, { 0, 0, 4 }, "loop", 0)
    local a = anim.animator(rig, { root_motion = "hips" })
    a:play(clip, { fade = 0, weight = 0.25 })
    a:play(fast, { fade = 0, weight = 0.75 })
    local _, _, z = travel(a, 0.1, 8) -- one loop of each
    assert.is_true(H.near(z, 0.25 * 2 + 0.75 * 4, 1e-12))
    -- a higher priority at weight 0.6 takes 0.6, the rest 0.4
    local b = anim.animator(rig, { root_motion = "hips" })
    b:play(clip, { fade = 0 })
    b:play(fast, { fade = 0, weight = 0.6, priority = "action" })
    _, _, z = travel(b, 0.1, 8)
    assert.is_true(H.near(z, 0.4 * 2 + 0.6 * 4, 1e-12))
    -- a blend space: its points' motions, weighted
    local space = anim.blendspace { points = { { clip = clip, at = 0 }, { clip = fast, at = 1 } } }
    local c = anim.animator(rig, { root_motion = "hips" })
    c:play(space, { at = 0.5, fade = 0 })
    _, _, z = travel(c, 0.1, 8) -- one cycle: 0.8 s
    assert.is_true(H.near(z, 0.5 * 2 + 0.5 * 4, 1e-12))
    -- an additive track adds its weight x its motion
    local add = walk("add", 0.8, { 0, 0, 0 }, { 0, 0, 1 }, "loop", 0, { blend = "additive" })
    local d = anim.animator(rig, { root_motion = "hips" })
    d:play(clip, { fade = 0 })
    d:play(add, { fade = 0, weight = 0.5 })
    _, _, z = travel(d, 0.1, 8)
    assert.is_true(H.near(z, 2 + 0.5, 1e-12))
  end)

  it("keeps the motion of a track that hands over to a queued one within the update", function()
    -- A moves z 0 -> 1 a second, B 0 -> 3; B queued after A with fade 0:
    -- the update that crosses A's end moves A's rest then B's start
    local A = walk("A", 1, { 0, 0, 0 }, { 0, 0, 1 }, "loop")
    local B = walk("B", 1, { 0, 0, 0 }, { 0, 0, 3 }, "loop")
    local a = anim.animator(rig, { root_motion = "hips" })
    local ta = a:play(A, { fade = 0 })
    a:play(B, { after = ta, fade = 0 })
    a:update(0.75)
    a:update(0.5) -- A from 0.75 to its end, then B from 0 to 0.25
    local z = motion(a)[3]
    local want = (1 - A:sample(0.75).hips.position[3]) + B:sample(0.25).hips.position[3]
    assert.is_true(H.near(z, want, 1e-12), z .. " " .. want)
  end)

  it("is in the rig's space: the joint's parents at rest", function()
    local turned = assert(anim.rig { joints = {
      { name = "root", rotation = { 0, 90, 0 } }, { name = "hips", parent = "root", position = { 0, 1, 0 } },
    } })
    local a = anim.animator(turned, { root_motion = "hips" })
    a:play(walk("w", 1, { 0, 0, 0 }, { 0, 0, 1 }, "loop"), { fade = 0 })
    local x, _, z = travel(a, 0.25, 4)
    -- the root's rest turn of 90 degrees about y takes +z to +x
    assert.is_true(H.near(x, 1, 1e-12) and H.near(z, 0, 1e-12))
  end)

  it("is set, changed and cleared by animator.root_motion", function()
    local a = anim.animator(rig)
    a:play(clip, { fade = 0 })
    a:update(0.1)
    assert.are.same({ 0, 0, 0, 0, 0, 0, 1 }, motion(a))
    assert.is_nil(a.root_motion_joint)
    a.root_motion = "hips"
    assert.are.equal("hips", a.root_motion_joint)
    a:update(0.1) -- from here on
    local p1, p2 = clip:sample(0.1).hips.position, clip:sample(0.2).hips.position
    assert.is_true(H.near(motion(a)[3], p2[3] - p1[3], 1e-12))
    a.root_motion = 1 -- root: nothing animates it
    a:update(0.1)
    assert.are.same({ 0, 0, 0, 0, 0, 0, 1 }, motion(a))
    assert.is_true(select(3, a:get("hips")) ~= 0) -- hips plays again
    a.root_motion = nil
    assert.is_nil(a.root_motion_joint)
    local ok, e = pcall(function() a.root_motion = "tail" end)
    assert.is_false(ok)
    assert.truthy(e:find("animator.root_motion: unknown joint 'tail'", 1, true))
    ok, e = pcall(anim.animator, rig, { root_moton = "hips" })
    assert.is_false(ok)
    assert.truthy(e:find("bad argument #2 to 'animator' (unknown option 'root_moton'; did you mean 'root_motion'?)", 1, true))
    ok, e = pcall(function() a.root_motion = "hip" end)
    assert.is_false(ok)
    assert.truthy(e:find("animator.root_motion: unknown joint 'hip'; did you mean 'hips'?", 1, true))
    ok, e = pcall(anim.animator, rig, { root_motion = 9 })
    assert.is_false(ok)
    assert.truthy(e:find("bad argument #2 to 'animator' (root_motion: joint index 9 out of range 1..3)", 1, true))
  end)
end)
