-- Hot reload of every kind of track (issue 35, defects 1 to 3 and the
-- class): whatever a track keeps that comes from its clip's content (its
-- bindings, its root motion binding and samples, a blend space's points)
-- follows a reload, to fewer joints and to more; what a reload would
-- break (a synced space's needs, a body animator's) refuses it, changing
-- nothing.  (A finalizer that reloads a clip in the middle of a call:
-- spec/finalized_spec.lua, which runs in a process of its own.)  make
-- asan runs this spec: a binding index left from the old content reads
-- outside the new arrays there.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"

local rig = anim.rig("player")
local NAMES = { "root", "torso", "head", "rightArm", "leftArm", "rightLeg", "leftLeg" }

-- A looping clip of length len animating `names`: the root moves forward
-- (root motion), the others turn about x by an angle that grows with the
-- joint's place in NAMES and with k.
local function content(names, k, len, extra)
  len = len or 1
  local J = {}
  for _, j in ipairs(names) do
    local i = 0
    for n, name in ipairs(NAMES) do if name == j then i = n end end
    if j == "root" then
      J[j] = { position = { { 0, { 0, 0, 0 } }, { len, { 0.5 * k, 0, 2 * k } } } }
    else
      J[j] = { rotation = { { 0, { 0, 0, 0 } }, { len, { 10 * i * k, 5 * k, 0 } } } }
    end
  end
  local t = { length = len, loop = "loop", joints = J }
  for key, v in pairs(extra or {}) do t[key] = v end
  return t
end

local pose_of, finite = H.pose_and_motion, H.finite

-- `a` and an animator restored from its state (its clips and maps found
-- by name in `by_name`) give the same bits over the next updates: what a
-- reload left in `a` is what a restore builds from the clips as they are
-- now.
local function restores_the_same(a, by_name, dts)
  local b = anim.animator(rig, { root_motion = a.root_motion_joint })
  assert(b:restore(a:state(), function(name) return by_name[name] end))
  for _, dt in ipairs(dts or { 0.05, 0.3, 0.7, 0.05 }) do
    a:update(dt)
    b:update(dt)
    local pa = pose_of(a)
    assert.is_true(finite(pa))
    assert.is_nil(H.bitdiff(pa, pose_of(b)))
  end
end

describe("a reload rebinds root motion", function()
  it("to fewer joints: the track's motion joint binding is found again (it read past the new arrays)", function()
    -- (the issue's script, as it was given)
    local c = anim.clip(content(NAMES, 1), "run")
    local a = anim.animator(rig)
    a.root_motion = "root"
    a:play(c)
    a:update(0.05)
    assert(anim.reload(c, { length = 1, loop = "loop", joints = { head = { position = { { 0, { 0, 5, 0 } } } } } }))
    a:update(0.05)
    assert.is_true(finite(pose_of(a)))
    assert.are.same({ 0, 0, 0, 0, 0, 0, 1 }, { a:root_motion() }) -- (the new content moves no root)
    -- its state restores (it said rm_binding: must be from -1 to 0)
    restores_the_same(a, { run = c })
  end)

  it("to more joints, and back: the motion follows each content from where the playhead is", function()
    local c = anim.clip(content({ "head" }, 1), "run")
    local a = anim.animator(rig, { root_motion = "root" })
    a:play(c, { fade = 0 })
    a:update(0.25)
    assert(anim.reload(c, content(NAMES, 2)))
    a:update(0.25) -- 0.25 .. 0.5 of the new content: the root moves 0.25 of (1, 0, 4)
    local dx, dy, dz = a:root_motion()
    assert.is_true(H.near(dx, 0.25, 1e-12) and dy == 0 and H.near(dz, 1, 1e-12), dx .. " " .. dz)
    restores_the_same(a, { run = c })
    assert(anim.reload(c, content({ "leftLeg" }, 1)))
    restores_the_same(a, { run = c })
  end)
end)

describe("a reload rebinds a blend space's tracks", function()
  -- a space of walk (1 s) and run (0.5 s) at 0.5, and the same space made
  -- of the clips' new contents: after the reload they pose alike
  local function spaces(walk_t, run_t)
    local walk, run = anim.clip(content(NAMES, 1, 1), "walk"), anim.clip(content(NAMES, 2, 0.5), "run")
    local space = anim.blendspace { points = { { clip = walk, at = 0 }, { clip = run, at = 1 } }, name = "move" }
    local a = anim.animator(rig, { root_motion = "root" })
    local tr = a:play(space, { at = 0.5, fade = 0 })
    local ends = {}
    tr:on_stopped(function() ends[#ends + 1] = "stopped" end)
    tr:on_ended(function() ends[#ends + 1] = "ended" end)
    a:update(0.1)
    local ref = anim.animator(rig, { root_motion = "root" })
    local walk2 = walk_t and anim.clip(walk_t, "walk") or walk
    local run2 = run_t and anim.clip(run_t, "run") or run
    ref:play(anim.blendspace { points = { { clip = walk2, at = 0 }, { clip = run2, at = 1 } } }, { at = 0.5, fade = 0 })
    ref:update(0.1)
    return { a = a, tr = tr, ends = ends, ref = ref, walk = walk, run = run, space = space }
  end

  local function same_pose_on(s, dts)
    for _, dt in ipairs(dts) do
      s.a:update(dt)
      s.ref:update(dt)
      assert.is_nil(H.bitdiff(pose_of(s.ref), pose_of(s.a)))
    end
  end

  it("a point's clip to fewer joints, with root motion (it overflowed the heap): the point plays its new content", function()
    local run_t = content({ "head", "rightArm" }, 3, 0.5)
    local s = spaces(nil, run_t)
    assert(anim.reload(s.run, run_t))
    same_pose_on(s, { 0.1, 0.35, 0.02 })
    assert.is_true(s.tr.is_playing)
  end)

  it("the space's first clip: the space plays on (it ended, firing nothing, and stayed in tracks())", function()
    local walk_t = content({ "torso", "leftLeg" }, 4, 1)
    local s = spaces(walk_t, nil)
    assert(anim.reload(s.walk, walk_t))
    same_pose_on(s, { 0.1, 0.6, 0.02 })
    assert.is_true(s.tr.is_playing)
    assert.are.same({ s.tr }, s.a:tracks())
    assert.are.same({}, s.ends)
  end)

  it("to more joints, and a state of the space restores the same", function()
    local s = spaces(nil, nil)
    assert(anim.reload(s.walk, content({ "head" }, 1, 1)))
    assert(anim.reload(s.run, content(NAMES, 5, 0.5)))
    assert.is_true(finite(pose_of(s.a)))
    assert.is_true(s.tr.is_playing)
    restores_the_same(s.a, { walk = s.walk, run = s.run })
  end)

  it("refuses what a space that holds the clip cannot play, changing nothing", function()
    local s = spaces(nil, nil)
    local before = s.run.length
    local cases = {
      { content(NAMES, 1, 0), "blend space 'move' holds this clip: points%[2%]%.clip: a synced blend space needs clips with a length above 0" },
      { content(NAMES, 1, 0.5, { speed = -1 }), "blend space 'move' holds this clip: points%[2%]%.clip: a synced blend space needs clips with a speed above 0 %(it has %-1%)" },
      { content(NAMES, 1, 0.5, { loop = "once" }), "blend space 'move' holds this clip: points%[2%]%.clip: a synced blend space needs clips with the loop mode of points%[1%]%.clip %(loop, this one once%)" },
      { content(NAMES, 1, 0.5, { blend = "additive" }), "blend space 'move' holds this clip: points%[2%]%.clip blends additive, points%[1%]%.clip normal" },
    }
    for _, case in ipairs(cases) do
      local ok, err = anim.reload(s.run, case[1])
      assert.is_nil(ok)
      assert.truthy(err:find("^run: " .. case[2]), err)
      assert.are.equal(before, s.run.length)
    end
    -- an idle space holds its clips to the same
    local idle = anim.clip(content(NAMES, 1, 1), "idle")
    local _ = anim.blendspace { points = { { clip = idle, at = 0 }, { clip = s.walk, at = 1 } }, name = "idle" }
    local ok, err = anim.reload(idle, content(NAMES, 1, 0))
    assert.is_nil(ok)
    assert.truthy(err:find("blend space 'idle' holds this clip: points[1].clip: a synced", 1, true), err)
    assert.is_true(s.tr.is_playing)
    same_pose_on(s, { 0.1 })
  end)

  it("refuses a property with another number of components than another point's, and a view clip", function()
    local glow = function(n)
      local v = {}
      for i = 1, n do v[i] = i end
      return { glow = { { 0, n == 1 and 1 or v } } }
    end
    local walk = anim.clip(content(NAMES, 1, 1, { properties = glow(1) }), "walk")
    local run = anim.clip(content(NAMES, 1, 1, { properties = glow(1) }), "run")
    local space = anim.blendspace { points = { { clip = walk, at = 0 }, { clip = run, at = 1 } }, sync = false, name = "s" }
    local ok, err = anim.reload(run, content(NAMES, 1, 1, { properties = glow(3) }))
    assert.is_nil(ok)
    assert.are.equal("run: blend space 's' holds this clip: points[2].clip: its property 'glow' has 3 components, "
      .. "points[1].clip's has 1", err)
    ok, err = anim.reload(run, content(NAMES, 1, 1, { space = "view" }))
    assert.is_nil(ok)
    assert.are.equal("run: space: blend space 's' holds this clip: a body space cannot become a view space", err)
    -- a body animator that plays a clip keeps it a body clip
    local solo = anim.clip(content(NAMES, 1, 1), "solo")
    anim.animator(rig):play(solo)
    ok, err = anim.reload(solo, content(NAMES, 1, 1, { space = "view" }))
    assert.is_nil(ok)
    assert.are.equal("solo: space: a body animator plays this clip: it cannot become a view clip", err)
    assert.are.equal(2, #space.points)
  end)
end)

describe("a blend space's clips", function()
  it("must give a property one number of components (it said 'not enough memory' when played)", function()
    local function clip(n)
      local v = {}
      for i = 1, n do v[i] = 0 end
      return anim.clip { length = 1, loop = "loop", joints = {}, properties = { glow = { { 0, n == 1 and 0 or v } } } }
    end
    assert.has_error(function() anim.blendspace { points = { { clip = clip(1), at = 0 }, { clip = clip(3), at = 1 } } } end,
      "bad argument #1 to 'blendspace' (points[2].clip: its property 'glow' has 3 components, points[1].clip's has 1)")
    local a = anim.animator(rig)
    a:play(clip(3))
    local space = anim.blendspace { points = { { clip = clip(1), at = 0 }, { clip = clip(1), at = 1 } }, name = "s" }
    assert.has_error(function() a:play(space) end, "bad argument #1 to 'play' (blend space 's': points[1].clip 'clip': "
      .. "its property 'glow' has 1 component, but a track on this animator gives it 3)")
  end)
end)

describe("every kind of track reloaded to fewer and to more joints", function()
  -- One animator playing a plain track, a retargeted one, one queued after
  -- the first, a synced 1D space and an unsynced 2D one, with root motion,
  -- an override and a constraint on, and property channels; each clip in
  -- turn is reloaded to fewer joints then to more, and after each the
  -- animator is updated and compared with one restored from its state.
  it("keeps every track playing its new content, finite, as a restore from scratch has it", function()
    local map = assert(anim.decode_retarget('{"version": 1, "joints": {"skull": "head", "hand": "rightArm"}}', "map"))
    local props = { properties = { glow = { { 0, 0 }, { 1, 1 } } } }
    local by_name = { map = map }
    local function clip(name, t)
      by_name[name] = assert(anim.clip(t, name))
      return by_name[name]
    end
    local plain = clip("plain", content(NAMES, 1, 1, props))
    local retargeted = clip("retargeted", { length = 1, loop = "loop", joints = {
      skull = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 30, 0, 0 } } } },
      hand = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, 0, 40 } } } } } })
    local queued = clip("queued", content({ "leftArm", "rightLeg" }, 2, 0.6))
    local w1, w2 = clip("w1", content(NAMES, 1, 1)), clip("w2", content(NAMES, 3, 0.5, props))
    local p1, p2, p3 = clip("p1", content({ "head" }, 1, 0.7)), clip("p2", content(NAMES, 2, 0.9)), clip("p3", content({ "torso" }, 1, 1.3))
    local a = anim.animator(rig, { root_motion = "root" })
    a:play(plain, { fade = 0, priority = 1 })
    a:play(retargeted, { fade = 0.1, retarget = map, weight = 0.5 })
    local first = a:play(clip("first", content({ "head", "torso" }, 1, 0.3, { loop = "once" })), { fade = 0 })
    a:play(queued, { after = first, fade = 0.2 })
    a:play(anim.blendspace { points = { { clip = w1, at = 0 }, { clip = w2, at = 1 } } }, { at = 0.3, weight = 0.7 })
    a:play(anim.blendspace { points = { { clip = p1, at = { 0, 0 } }, { clip = p2, at = { 1, 0 } }, { clip = p3, at = { 0, 1 } } },
      sync = false }, { at = { 0.2, 0.3 }, priority = 2, weight = 0.4 })
    a:override("head", { rotation = { 0, 0.3826834, 0, 0.9238795 }, mode = "add", weight = 0.5 })
    a:aim { joint = "rightArm", target = { 1, 2, 3 }, weight = 0.6 }
    a:update(0.1)
    local fewer = {
      plain = content({ "head" }, 2, 0.8, props), w2 = content({ "leftLeg" }, 1, 0.5, props),
      retargeted = { length = 1, loop = "loop", joints = { skull = { position = { { 0, { 0, 1, 0 } } } } } },
    }
    local more = {
      plain = content(NAMES, 3, 1.5, props), w2 = content(NAMES, 1, 0.5, props),
      retargeted = { length = 2, loop = "loop", joints = {
        skull = { rotation = { { 0, { 0, 0, 0 } }, { 2, { 60, 0, 0 } } } }, hand = { position = { { 0, { 0, 0, 1 } } } },
        extra = { position = { { 0, { 1, 1, 1 } } } } } },
    }
    for _, name in ipairs { "plain", "retargeted", "queued", "w1", "w2", "p1", "p2", "p3" } do
      for round, shape in ipairs { fewer, more } do
        local t = shape[name] or content(round == 1 and { "rightLeg" } or NAMES, round + 1, round == 1 and 0.4 or 1.1)
        if name == "w1" then t = content(round == 1 and { "root" } or NAMES, round, 1) end -- (synced: its length stays above 0)
        assert.are.equal(by_name[name], (assert(anim.reload(by_name[name], t))))
        assert.is_true(finite(pose_of(a)))
        restores_the_same(a, by_name, { 0.05, 0.2 })
      end
    end
    assert.are.equal(6, #a:tracks() + (first.is_playing and 0 or 1))
  end)
end)

describe("a reload and the queue of the last update", function()
  it("empties the queues that name the clip's items by index (core.animator_event read past the new items)", function()
    local core = require "anim.core"
    local markers = {}
    for i = 1, 1000 do markers[i] = { time = i / 1001, name = "m" } end
    local c = anim.clip({ length = 1, loop = "loop", joints = {}, markers = markers }, "c")
    local a = anim.animator(rig)
    local heard = 0
    a:on_marker(function() heard = heard + 1 end)
    a:play(c, { fade = 0 })
    a:update(0.99)
    assert.are.equal(990, heard)
    assert.are.equal(5, select("#", core.animator_event(a, 900))) -- (type, id, kind, index, late)
    assert(anim.reload(c, { length = 1, loop = "loop", joints = {}, markers = { { time = 0.5, name = "m" } } }))
    assert.are.equal(0, select("#", core.animator_event(a, 900)))
    a:update(0.6) -- 0.99 .. 1, wraps, 0 .. 0.59: the new content's one marker
    assert.are.equal(991, heard)
  end)
end)

describe("a reload while anim.update delivers", function()
  it("waits for every animator whose queue is still to be delivered (each names the old items by index)", function()
    local core = require "anim.core"
    local c = anim.clip({ length = 1, loop = "loop", joints = {}, markers = { { time = 0.25, name = "m" } } }, "c")
    local list, seen = {}, {}
    for i = 1, 3 do
      list[i] = anim.animator(rig)
      list[i]:play(c, { fade = 0 })
      list[i]:on_marker(function()
        seen[#seen + 1] = core.delivering()
        local ok, err = pcall(anim.reload, c, { length = 1, loop = "loop", joints = {} })
        seen[#seen + 1] = not ok and err:match("cannot be reloaded while an update delivers") ~= nil
      end)
    end
    anim.update(list, 0.5)
    -- the one delivering and those still to come
    assert.are.same({ 3, true, 2, true, 1, true }, seen)
    assert.are.equal(0, core.delivering())
    assert(anim.reload(c, { length = 1, loop = "loop", joints = {} }))
  end)
end)
