-- Rigs, and how an animator blends its tracks into a pose (SEMANTICS 1, 6).
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local compat = require "anim.base.compat"

local function near(a, b, tol) return math.abs(a - b) <= (tol or 1e-9) end

local function near_all(got, want, tol)
  for i = 1, #want do
    if not near(got[i], want[i], tol) then
      return false, string.format("component %d: got %.17g want %.17g", i, got[i], want[i])
    end
  end
  return true
end

-- Angle (degrees) of a rotation quaternion about the y axis.
local function yaw(qx, qy, qz, qw)
  assert(near(qx, 0) and near(qz, 0), "not a rotation about y")
  if qw < 0 then qy, qw = -qy, -qw end
  return math.deg(2 * compat.atan2(qy, qw))
end

local rig = assert(anim.rig { joints = { { name = "j" }, { name = "k" } } })

local function const_clip(t)
  -- a clip holding one value: { pos = {..}, rot = {..}, scl = {..}, ... }
  local joint = {}
  if t.pos then joint.position = { { 0, t.pos } } end
  if t.rot then joint.rotation = { { 0, t.rot } } end
  if t.scl then joint.scale = { { 0, t.scl } } end
  joint.weight, joint.muted = t.weight, t.muted
  local c = { length = 1, loop = "loop", joints = { [t.joint or "j"] = joint },
    priority = t.priority, blend = t.blend, mask = t.mask, space = t.space, autoplay = t.autoplay }
  if t.k then c.joints.k = { position = { { 0, t.k } } } end
  return assert(anim.clip(c))
end

describe("rigs", function()
  it("the built-in player rig has the viewer's joints, pivots and parents", function()
    local p = assert(anim.rig("player"))
    local joints = {}
    for _, j in ipairs(p:joints()) do joints[j.name] = j end
    assert.are.same({ 0, 0.75, 0 }, joints.torso.position)
    assert.are.equal("root", joints.torso.parent)
    assert.are.equal("torso", joints.head.parent)
    assert.are.equal("torso", joints.rightArm.parent)
    assert.are.equal("root", joints.leftLeg.parent)
    assert.are.same({ -0.375, 1.375, 0 }, joints.rightArm.position)
    assert.are.equal(p, anim.rig("player"))
    local a = anim.animator(p)
    a:update(0)
    assert.is_true(near_all({ a:world_transform("head") }, { 0, 1.5, 0, 0, 0, 0, 1, 1, 1, 1 }))
    assert.is_true(near_all({ a:local_transform("head") }, { 0, 0.75, 0, 0, 0, 0, 1, 1, 1, 1 }))
  end)

  it("world transforms follow the parents: a torso turned 90 degrees about y carries the arms", function()
    local a = anim.animator(anim.rig("player"))
    a:play(const_clip { joint = "torso", rot = { 0, 90, 0 } }, { fade = 0 })
    a:update(0.1)
    -- rightArm rests at pivot - torso pivot = (-0.375, 0.625, 0); R_y(90) maps (x, y, z) to (z, y, -x)
    local w = { a:world_transform("rightArm") }
    assert.is_true(near_all(w, { 0, 1.375, 0.375 }))
    assert.is_true(near(yaw(w[4], w[5], w[6], w[7]), 90))
    -- legs hang from the root, not the torso
    assert.is_true(near_all({ a:world_transform("rightLeg") }, { -0.125, 0.75, 0 }))
  end)

  it("custom rigs: rest rotations in yxz degrees or quaternions, and defaults", function()
    local r = assert(anim.rig { joints = {
      { name = "child", parent = "base", position = { 1, 0, 0 } },
      { name = "base", rotation = { 0, 0, 90 } },
      { name = "q", parent = "base", rotation = { 0, 0, 0, 2 } },
    } })
    local a = anim.animator(r)
    a:update(0)
    -- base turns 90 degrees about z: the child's rest offset (1,0,0) points along +y
    assert.is_true(near_all({ a:world_transform("child") }, { 0, 1, 0 }))
    assert.is_true(near_all({ a:local_transform("child") }, { 1, 0, 0, 0, 0, 0, 1 }))
    assert.is_true(near_all({ a:local_transform("q") }, { 0, 0, 0, 0, 0, 0, 1 }))
    assert.is_true(r:has("q"))
    assert.is_false(r:has("nope"))
  end)

  it("refuses bad rigs with clear messages", function()
    local function err(def) return select(2, anim.rig(def)) end
    assert.are.equal("rig: joints[2].name: duplicate joint name 'a' (also joints[1])",
      err { joints = { { name = "a" }, { name = "a" } } })
    assert.are.equal("rig: joints[2].parent: unknown parent 'zz'",
      err { joints = { { name = "a" }, { name = "b", parent = "zz" } } })
    assert.are.equal("rig: joints: the parents form a cycle: a, b",
      err { joints = { { name = "a", parent = "b" }, { name = "b", parent = "a" } } })
    assert.are.equal("rig: joints: a rig needs at least one joint", err { joints = {} })
    -- the cycle's joints are named, whatever else hangs off it
    assert.are.equal("rig: joints: the parents form a cycle: b, c, d",
      err { joints = { { name = "a", parent = "b" }, { name = "b", parent = "c" }, { name = "c", parent = "d" },
        { name = "d", parent = "b" }, { name = "e" } } })
    local many = {}
    for i = 1, 65537 do many[i] = { name = "j" .. i } end
    assert.are.equal("rig: joints: too many joints (65537; at most 65536)", err { joints = many })
    assert.are.equal("rig: joints[1].position: position must be an array of 3 numbers, got an array of 2",
      err { joints = { { name = "a", position = { 1, 2 } } } })
    assert.are.equal("rig: unknown built-in rig 'dragon' (expected \"player\" or a table)", err "dragon")
    assert.has_error(function() anim.rig(5) end)
  end)
end)

describe("reading the pose", function()
  it("names what is wrong with a joint or the animator", function()
    local a = anim.animator(rig)
    a:update(0)
    local function err(f) local ok, e = pcall(f) assert.is_false(ok) return (e:gsub("^[^:]*:%d+: ", "")) end
    -- (as methods, so that the messages name them; not in tail position,
    -- which on 5.1 and LuaJIT leaves no call site to name them by)
    local calls = {
      get = function(j) return (a:get(j)) end, animated = function(j) return (a:animated(j)) end,
      local_transform = function(j) return (a:local_transform(j)) end,
      world_transform = function(j) return (a:world_transform(j)) end,
    }
    for m, call in pairs(calls) do
      local bad = "bad argument #1 to '" .. m .. "' ("
      assert.are.equal(bad .. "no joint 'nope' in rig 'rig')", err(function() return call("nope") end))
      assert.are.equal(bad .. "joint index 0 out of range 1..2)", err(function() return call(0) end))
      assert.are.equal(bad .. "joint index 3 out of range 1..2)", err(function() return call(3) end))
      -- (integers beyond int, and floats beyond lua_Integer: no cast wraps them onto a joint)
      assert.are.equal(bad .. "joint index 1099511627776 out of range 1..2)", err(function() return call(1099511627776) end))
      assert.are.equal(bad .. "joint index 4294967297 out of range 1..2)", err(function() return call(4294967297) end))
      assert.are.equal(bad .. "joint index 4294967297 out of range 1..2)", err(function() return call(2 ^ 32 + 1) end))
      assert.are.equal(bad .. "joint index 1e+300 out of range 1..2)", err(function() return call(1e300) end))
      assert.are.equal(bad .. "joint index must be an integer, got 2.5)", err(function() return call(2.5) end))
    end
    assert.are.same({ a:get(2) }, { a:get(2.0) }) -- an integral float is an index
    assert.are.equal("bad argument #1 to 'local_transform' (joint name or index expected, got table)",
      err(function() return (a:local_transform({})) end))
    -- the animator itself: checked against the animator metatable
    local clip = anim.clip({ joints = {} })
    assert.are.equal("bad argument #1 to 'world_transform' (anim.animator expected, got anim.clip)",
      err(function() return (a.world_transform(clip, 1)) end))
    assert.are.equal("bad argument #1 to 'animated' (anim.animator expected, got table)",
      err(function() return (a.animated({}, 1)) end))
    -- (a file's metatable has its __name, FILE*, from 5.3 on: before, the
    -- message says what Lua's type is)
    assert.are.equal("bad argument #1 to 'get' (anim.animator expected, got " .. (compat.version >= 503 and "FILE*" or "userdata") .. ")",
      err(function() return (a.get(io.stdout, 1)) end))
    assert.are.equal("bad argument #1 to 'pose_into' (table expected, got number)", err(function() return (a:pose_into(5)) end))
    -- and the readers still read
    assert.are.same({ 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 }, { a:get(1) })
  end)
end)

describe("blending", function()
  local function pose_x(...)
    local a = anim.animator(rig)
    for _, p in ipairs { ... } do a:play(p[1], p[2]) end
    a:update(0.1)
    return (a:get("j")), a
  end

  it("one track of weight 1 gives the clip's values", function()
    local a = anim.animator(rig)
    a:play(const_clip { pos = { 1, 2, 3 }, rot = { 0, 30, 0 }, scl = { 2, 2, 2 } }, { fade = 0 })
    a:update(0.1)
    local v = { a:get("j") }
    assert.is_true(near_all(v, { 1, 2, 3 }))
    assert.is_true(near(yaw(v[4], v[5], v[6], v[7]), 30))
    assert.is_true(near_all({ v[8], v[9], v[10] }, { 2, 2, 2 }))
    assert.are.same({ true, true, true }, { a:animated("j") })
  end)

  it("layers by priority: a level takes min(W, budget) shared by weight; the rest goes to the rest pose", function()
    local action = const_clip { pos = { 1, 0, 0 }, priority = "action" }
    local action2 = const_clip { pos = { 2, 0, 0 }, priority = "action" }
    local movement = const_clip { pos = { 10, 0, 0 }, priority = "movement" }
    local idle = const_clip { pos = { 100, 0, 0 }, priority = "idle" }
    -- action .6 takes .6; movement takes min(1, .4); idle nothing: .6*1 + .4*10
    assert.is_true(near(pose_x({ action, { fade = 0, weight = 0.6 } }, { movement, { fade = 0 } }, { idle, { fade = 0 } }), 4.6))
    -- action level .6 + .3 = .9 shared 2:1; movement takes .1: .6*1 + .3*2 + .1*10
    assert.is_true(near(pose_x({ action, { fade = 0, weight = 0.6 } }, { action2, { fade = 0, weight = 0.3 } },
      { movement, { fade = 0 } }), 2.2))
    -- a level whose weights exceed 1 is normalised: 1.5 and .5 at one level take 3/4 and 1/4
    assert.is_true(near(pose_x({ action, { fade = 0, weight = 1.5 } }, { action2, { fade = 0, weight = 0.5 } }), 1.25))
    -- weights below 1 in all: the rest pose (0) takes what is left
    assert.is_true(near(pose_x({ idle, { fade = 0, weight = 0.3 } }), 30))
    -- a play option priority overrides the clip's
    assert.is_true(near(pose_x({ idle, { fade = 0, priority = "action4" } }, { action, { fade = 0 } }), 100))
    assert.is_true(near(pose_x({ idle, { fade = 0, priority = 7.5 } }, { action, { fade = 0 } }), 100))
  end)

  it("blends rotations as a hemisphere-aligned normalised weighted sum, with the rest", function()
    local a = anim.animator(rig)
    a:play(const_clip { rot = { 0, 0, 0 } }, { fade = 0, weight = 0.5 })
    -- the same 90 degree turn written as the negated quaternion
    local s = math.sqrt(0.5)
    a:play(const_clip { rot = { 0, -s, 0, -s } }, { fade = 0, weight = 0.5 })
    a:update(0.1)
    assert.is_true(near(yaw(select(4, a:get("j"))), 45))
    -- one track at .5: the rest (identity) takes the other half
    local b = anim.animator(rig)
    b:play(const_clip { rot = { 0, 90, 0 } }, { fade = 0, weight = 0.5 })
    b:update(0.1)
    assert.is_true(near(yaw(select(4, b:get("j"))), 45))
  end)

  it("applies additive tracks after, lowest priority first", function()
    local a = anim.animator(rig)
    a:play(const_clip { pos = { 1, 0, 0 }, rot = { 0, 30, 0 }, scl = { 2, 2, 2 } }, { fade = 0 })
    a:play(const_clip { pos = { 2, 0, 0 }, rot = { 0, 20, 0 }, scl = { 3, 3, 3 }, blend = "additive" },
      { fade = 0, weight = 0.5 })
    a:update(0.1)
    local v = { a:get("j") }
    assert.is_true(near(v[1], 2))                    -- 1 + .5*2
    assert.is_true(near(yaw(v[4], v[5], v[6], v[7]), 40)) -- 30 then half of 20
    assert.is_true(near(v[8], 4))                    -- 2 * lerp(1, 3, .5)
    -- order: a lower priority additive applies first: x turn then y turn
    local b = anim.animator(rig)
    b:play(const_clip { rot = { 0, 90, 0 }, blend = "additive", priority = 5 }, { fade = 0 })
    b:play(const_clip { rot = { 90, 0, 0 }, blend = "additive", priority = 1 }, { fade = 0 })
    b:update(0.1)
    -- rest * Rx(90) * Ry(90)
    local h = math.sqrt(0.5)
    local q = { b:get("j") }
    local want = { h * h, h * h, h * h, h * h } -- Rx(90)*Ry(90) = (.5, .5, .5, .5)
    assert.is_true(near_all({ q[4], q[5], q[6], q[7] }, want))
  end)

  it("multiplies by the joint weight and the version 1 pose weight", function()
    assert.is_true(near(pose_x({ const_clip { pos = { 4, 0, 0 }, weight = 0.25 }, { fade = 0 } }), 1))
    local v1 = assert(anim.clip { keyframes = {
      { time = 0, poses = { j = { position = { 4, 0, 0 }, weight = 0.5 } } },
      { time = 1, poses = { j = { position = { 4, 0, 0 }, weight = 0.5 } } } } })
    assert.is_true(near(pose_x({ v1, { fade = 0 } }), 2))
  end)

  it("muted joints and joints outside the mask contribute nothing", function()
    local _, a = pose_x({ const_clip { pos = { 1, 0, 0 }, k = { 5, 0, 0 }, mask = { "k" } }, { fade = 0 } })
    assert.are.same({ false, false, false }, { a:animated("j") })
    assert.are.equal(5, (a:get("k")))
    local _, b = pose_x({ const_clip { pos = { 1, 0, 0 }, k = { 5, 0, 0 }, mask = "j, k" }, { fade = 0 } })
    assert.are.same({ true, false, false }, { b:animated("j") })
    local x, c = pose_x({ const_clip { pos = { 1, 0, 0 }, muted = true, k = { 5, 0, 0 } }, { fade = 0 } })
    assert.are.equal(0, x)
    assert.are.same({ false, false, false }, { c:animated("j") })
    assert.are.same({ true, false, false }, { c:animated("k") })
  end)

  it("leaves channels nothing animates alone; weight 0 still counts as animating", function()
    local a = anim.animator(rig)
    a:play(const_clip { rot = { 0, 90, 0 } }, { fade = 0, weight = 0 })
    a:update(0.1)
    assert.are.same({ false, true, false }, { a:animated("j") })
    assert.are.same({ 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 }, { a:get("j") })
    assert.are.same({ 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 }, { a:get("k") })
    assert.are.same({ false, false, false }, { a:animated("k") })
  end)

  it("reads the whole pose into a reused table", function()
    local a = anim.animator(rig)
    a:play(const_clip { pos = { 1, 2, 3 } }, { fade = 0 })
    a:update(0.1)
    local t = {}
    assert.are.equal(t, a:pose_into(t))
    local j = t.j
    assert.are.same({ 1, 2, 3, 0, 0, 0, 1, 1, 1, 1 }, j)
    a:pose_into(t, "world")
    assert.are.equal(j, t.j)
    assert.are.same({ 1, 2, 3, 0, 0, 0, 1, 1, 1, 1 }, t.j)
    assert.has_error(function() a:pose_into(t, "sideways") end)
  end)
end)

describe("play", function()
  it("a body animator refuses a view clip; a view animator plays both", function()
    local view = const_clip { pos = { 1, 0, 0 }, space = "view" }
    local body = const_clip { pos = { 1, 0, 0 } }
    local ok, err = pcall(anim.animator(rig).play, anim.animator(rig), view)
    assert.is_false(ok)
    assert.truthy(err:find("view clip: a body animator cannot play it", 1, true))
    local va = anim.animator(rig, { space = "view" })
    va:play(view)
    va:play(body)
  end)

  it("accepts explicit nils and refuses bad options with Lua errors", function()
    local a = anim.animator(rig, { side = nil, space = nil, library = nil })
    local tr = a:play(const_clip { pos = { 1, 0, 0 } }, { fade = nil, weight = nil, speed = nil, priority = nil, retarget = nil })
    assert.are.equal(1, tr.weight)
    assert.are.equal(1, tr.speed)
    a:play(const_clip { pos = { 1, 0, 0 } }, nil)
    for _, bad in ipairs {
      { fade = -1 }, { weight = "x" }, { speed = 0 / 0 }, { priority = "bogus" }, { priority = math.huge },
    } do
      assert.has_error(function() a:play(const_clip { pos = { 1, 0, 0 } }, bad) end)
    end
    assert.has_error(function() a:play("walk") end)
    assert.has_error(function() anim.animator(rig, { side = "north" }) end)
    assert.has_error(function() anim.animator(rig, { space = "world" }) end)
    assert.has_error(function() anim.animator("player") end)
    assert.has_error(function() a:get("nope") end)
  end)

  it("tracks expose their clip, length, loops, speed, weight and state", function()
    local a = anim.animator(rig)
    local c = const_clip { pos = { 1, 0, 0 } }
    local tr = a:play(c, { speed = 2, weight = 0.5 })
    assert.are.equal(c, tr.clip)
    assert.are.equal(1, tr.length)
    assert.are.equal(0, tr.loops)
    assert.are.equal(2, tr.speed)
    assert.are.equal(0.5, tr.weight)
    assert.is_true(tr.is_playing)
    assert.are.equal(a, tr.animator)
    assert.has_error(function() tr.speed = "3" end)
    assert.has_error(function() tr.time = "x" end)
    assert.has_error(function() tr:stop(-1) end)
    assert.has_error(function() tr:adjust_weight(-1) end)
    assert.has_error(function() tr:adjust_speed(math.huge) end)
  end)

  it("autoplay plays the clips flagged autoplay", function()
    local a = anim.animator(rig)
    local yes = const_clip { pos = { 1, 0, 0 }, autoplay = true }
    local no = const_clip { pos = { 2, 0, 0 } }
    local tracks = a:autoplay { yes, no }
    assert.are.equal(1, #tracks)
    assert.are.equal(yes, tracks[1].clip)
  end)
end)
