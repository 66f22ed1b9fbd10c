-- The finer points of SEMANTICS 6 and 7a that the other specs do not pin
-- down: restarts by plays, ties across tracks, additive order and arcs,
-- the rest's hemisphere, pingpong beyond the pass bound, hold after the
-- speed changes sign, world scale.
local anim = require "anim"
local H = require "spec.helper"

local rig = assert(anim.rig { joints = { { name = "j" }, { name = "k", parent = "j", position = { 1, 0, 0 } } } })
local function near(a, b, tol) return math.abs(a - b) <= (tol or 1e-9) end

local MARKERS = { { time = 0, name = "a" }, { time = 0.5, name = "m" }, { time = 1, name = "z" } }
local clip = H.clip

describe("a restart by a plays item (7a.14)", function()
  local dir = H.tmpdir()
  H.write(dir .. "/p.anim", [[{"length": 1, "loop": "pingpong", "joints": {},
    "markers": [{"time": 0, "name": "start"}, {"time": 1, "name": "end"}]}]])
  local lib = assert(anim.library(dir))
  local trigger = clip { length = 10, joints = {}, plays = { { time = 5, clip = "res://p.anim", fade = 0.5 } } }

  it("resets the pingpong direction, cancels a fade-out, and fires the start again", function()
    local a = anim.animator(rig, { library = lib })
    local p = a:play(assert(lib:clip("res://p.anim")), { fade = 0 })
    local log = {}
    p:on_marker("start", function(_, _, late) log[#log + 1] = "start@" .. late end)
    a:play(trigger, { fade = 0 })
    a:update(1.5) -- p: start at 0 (late 1.5), bounce at 1, backwards to .5
    p:stop(4)     -- fading out over 4 s
    a:update(1.5) -- p: back to 0 at e = .5 (start, late 1), bounce, forwards to 1 at the end
    -- (tostring: "1.0" on 5.3+, where late is a float; "1" before, which
    -- has no integer subtype to tell it from)
    assert.are.same({ "start@1.5", "start@" .. tostring(1.0) }, log)
    a:update(2)   -- p: 1 -> 0 -> 1 again (fade .125 by now); the trigger reaches 5: restart
    log = {}
    assert.is_true(p.is_playing)
    assert.are.equal(0, p.time)
    local fade_before = p.fade
    a:update(0.25) -- forwards again from 0, the start inclusive; the fade rises to 1 over .5
    assert.are.equal(0.25, p.time)
    assert.are.same({ "start@0.25" }, log)
    assert.are.equal(0, p.loops) -- moving forwards: no bounce at 0 on the way
    assert.is_true(near(p.fade, fade_before + (1 - fade_before) * 0.5))
    a:update(5)   -- no fade-out any more: it keeps playing
    assert.is_true(p.is_playing)
  end)
end)

describe("order across tracks (7a.12)", function()
  it("occurrences within 1e-12 s are ties, won by the track started earlier", function()
    local a = anim.animator(rig)
    local log = {}
    a:on_marker(function(t, n) log[#log + 1] = t.clip.name .. ":" .. n end)
    -- the second track's marker is 5e-13 s earlier: a tie, the first track wins
    a:play(assert(anim.clip({ length = 1, joints = {}, markers = { { time = 0.5, name = "x" } } }, "first")), { fade = 0 })
    a:play(assert(anim.clip({ length = 1, joints = {}, markers = { { time = 0.5 - 5e-13, name = "y" } } }, "second")),
      { fade = 0 })
    a:update(1)
    assert.are.same({ "first:x", "second:y" }, log)
    -- 1e-9 apart is no tie: time order
    local b = anim.animator(rig)
    local log2 = {}
    b:on_marker(function(t, n) log2[#log2 + 1] = t.clip.name .. ":" .. n end)
    b:play(assert(anim.clip({ length = 1, joints = {}, markers = { { time = 0.5, name = "x" } } }, "first")), { fade = 0 })
    b:play(assert(anim.clip({ length = 1, joints = {}, markers = { { time = 0.5 - 1e-9, name = "y" } } }, "second")),
      { fade = 0 })
    b:update(1)
    assert.are.same({ "second:y", "first:x" }, log2)
  end)
end)

describe("additive tracks (7a.17)", function()
  local function rot_clip(deg_x, deg_y, prio)
    return clip { blend = "additive", priority = prio, joints = { j = { rotation = { { 0, { deg_x, deg_y, 0 } } } } } }
  end

  it("apply in start order at equal priority", function()
    -- rest * X(90) * Y(90) when X started first; rest * Y(90) * X(90) the other way
    local h = 0.5
    local a = anim.animator(rig)
    a:play(rot_clip(90, 0, 1), { fade = 0 })
    a:play(rot_clip(0, 90, 1), { fade = 0 })
    a:update(0.1)
    local q = { select(4, a:get("j")) }
    assert.is_true(H.quatdiff(q, { h, h, h, h }) < 1e-9) -- Rx(90) Ry(90)
    local b = anim.animator(rig)
    b:play(rot_clip(0, 90, 1), { fade = 0 })
    b:play(rot_clip(90, 0, 1), { fade = 0 })
    b:update(0.1)
    local q2 = { select(4, b:get("j")) }
    assert.is_true(H.quatdiff(q2, { h, h, -h, h }) < 1e-9) -- Ry(90) Rx(90)
  end)

  it("take the shortest arc from the identity", function()
    -- a 270 degree key about y is the same rotation as -90: half of it is -45, not 135
    local a = anim.animator(rig)
    a:play(rot_clip(0, 270, 1), { fade = 0, weight = 0.5 })
    a:update(0.1)
    local q = { select(4, a:get("j")) }
    assert.is_true(H.quatdiff(q, H.qaxis(2, -45)) < 1e-9)
  end)
end)

describe("rotation blending (7a.15)", function()
  it("aligns the rest's share to the first contribution's hemisphere", function()
    -- one track at weight .5 holding a quaternion with w < 0 (a 90 degree
    -- turn about y written as its negation): the rest's half must join it
    -- on the same side, giving 45 degrees, not a flip toward 225
    local s = math.sqrt(0.5)
    local a = anim.animator(rig)
    a:play(clip { joints = { j = { rotation = { { 0, { 0, -s, 0, -s } } } } } }, { fade = 0, weight = 0.5 })
    a:update(0.1)
    local q = { select(4, a:get("j")) }
    assert.is_true(H.quatdiff(q, H.qaxis(2, 45)) < 1e-9)
  end)
end)

describe("pingpong beyond the pass bound (7 and 7a.3)", function()
  it("counts every bounce, ends facing the right way and fires the final partial pass", function()
    for _, extra in ipairs { 0, 1 } do
      -- 100 + extra bounces and a quarter: an even count ends moving forwards
      local a = anim.animator(rig)
      local tr = a:play(clip { loop = "pingpong", markers = MARKERS }, { fade = 0 })
      local log = {}
      a:on_marker(function(_, n, _, late) log[#log + 1] = { n, late } end)
      a:update(100 + extra + 0.25)
      assert.are.equal(100 + extra, tr.loops)
      local forwards = extra == 0
      assert.are.equal(forwards and 0.25 or 0.75, tr.time)
      a:update(0.5)
      -- forwards from .25 the next marker is m at .5; backwards from .75 it is m too but later z never
      assert.are.equal(forwards and 0.75 or 0.25, tr.time)
      assert.are.equal("m", log[#log][1])
    end
  end)
end)

describe("hold (7a.8)", function()
  it("stays on the last frame with empty passes until the speed changes sign", function()
    local a = anim.animator(rig)
    local tr = a:play(clip { loop = "hold", markers = MARKERS }, { fade = 0 })
    local log = {}
    a:on_marker(function(_, n) log[#log + 1] = n end)
    a:update(1.5)
    a:update(1)
    assert.are.same({ "a", "m", "z" }, log)
    tr:adjust_speed(-1)
    a:update(0.75) -- back from 1 (excluded: it was reached already) through m at .5
    assert.are.same({ "a", "m", "z", "m" }, log)
    assert.are.equal(0.25, tr.time)
  end)
end)

describe("world transforms", function()
  it("compose positions through the parents' scale and rotation, and multiply scales", function()
    local a = anim.animator(rig)
    a:play(clip { joints = { j = { scale = { { 0, { 2, 3, 4 } } }, rotation = { { 0, { 0, 0, 90 } } } },
      k = { scale = { { 0, { 0.5, 0.5, 0.5 } } } } } }, { fade = 0 })
    a:update(0.1)
    local w = { a:world_transform("k") }
    -- k rests at (1, 0, 0) from j: scaled by j's scale (2, 3, 4) -> (2, 0, 0), turned 90 about z -> (0, 2, 0)
    assert.is_true(near(w[1], 0) and near(w[2], 2) and near(w[3], 0))
    assert.is_true(near(w[8], 1) and near(w[9], 1.5) and near(w[10], 2))
  end)
end)
