-- The controls a game reaches for (issue 37, item 4): play's loop mode,
-- glTF clips looping by default, the animator's speed and pause, stopping
-- every track, a track's speed and weight as fields.
local H = require "spec.helper"
local anim = require "anim"

local FOX = H.shared .. "/data/gltf/Fox/glTF-Binary/Fox.glb"

local function clip(loop, name)
  return assert(anim.clip({ length = 1, loop = loop, joints = {
    head = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, 90, 0 } } } } } }, name or "c"))
end

describe("play's loop option", function()
  local rig = anim.rig("player")

  it("plays a once clip looping, a loop clip once, and pingpong and hold", function()
    local a = anim.animator(rig)
    local looped = a:play(clip("once"), { fade = 0, loop = "loop" })
    local once = a:play(clip("loop"), { fade = 0, loop = "once" })
    local pp = a:play(clip("once"), { fade = 0, loop = "pingpong" })
    local hold = a:play(clip("loop"), { fade = 0, loop = "hold" })
    for _ = 1, 5 do a:update(0.3) end
    assert.are.equal(1, looped.loops)
    assert.is_true(looped.is_playing)
    assert.is_true(math.abs(looped.time - 0.5) < 1e-12)
    assert.is_false(once.is_playing)
    assert.is_true(math.abs(pp.time - 0.5) < 1e-12)
    assert.are.equal(1, pp.loops)
    assert.is_true(hold.is_playing)
    assert.are.equal(1, hold.time)
  end)

  it("refuses an unknown mode with a suggestion, and another type", function()
    local a = anim.animator(rig)
    local _, err = pcall(a.play, a, clip("once"), { loop = "lop" })
    assert.matches("bad argument #2 to 'play' %(unknown loop mode 'lop'; did you mean 'loop'%? %(the modes: once, loop, hold, pingpong%)%)$", err)
    _, err = pcall(a.play, a, clip("once"), { loop = true })
    assert.matches("bad argument #2 to 'play' %(loop must be a loop mode name, got boolean", err)
  end)

  it("is saved by state() and restored, and a state without it plays the clip's mode", function()
    local c = clip("once")
    local a = anim.animator(rig)
    a:play(c, { fade = 0, loop = "pingpong" })
    a:play(c, { fade = 0 })
    a:update(0.3)
    local s = a:state()
    assert.are.equal("pingpong", s.tracks[1].loop)
    assert.are.equal("clip", s.tracks[2].loop)
    local b = anim.animator(rig)
    assert(b:restore(s, function() return c end))
    for _ = 1, 6 do a:update(0.25); b:update(0.25) end
    local ta, tb = a:tracks(), b:tracks()
    assert.are.equal(1, #tb)
    assert.are.equal(ta[1].time, tb[1].time)
    assert.are.equal(ta[1].loops, tb[1].loops)
    -- (a state written before the field: the clip's mode)
    s.tracks[1].loop = nil
    local d = anim.animator(rig)
    assert(d:restore(s, function() return c end))
    d:update(1)
    assert.are.equal(0, #d:tracks())
    s.tracks[1].loop = "lop"
    local ok, err = d:restore(s, function() return c end)
    assert.is_nil(ok)
    assert.matches("state.tracks%[1%].loop: must be one of clip, once, loop, hold, pingpong, got 'lop'", err)
  end)

  it("plays every point of a blend space in the mode", function()
    local a = anim.animator(rig)
    local space = anim.blendspace { points = { { clip = clip("once", "a"), at = 0 }, { clip = clip("once", "b"), at = 1 } } }
    local t = a:play(space, { fade = 0, loop = "loop", at = 0.5 })
    for _ = 1, 5 do a:update(0.3) end
    assert.is_true(t.is_playing)
    assert.are.equal(1, t.loops)
  end)
end)

describe("glTF clips", function()
  it("import looping unless { loop = 'once' } is passed", function()
    local r = assert(anim.import_gltf(FOX))
    assert.are.equal("loop", r.clips.Walk.loop)
    r = assert(anim.import_gltf(FOX, { loop = "once" }))
    assert.are.equal("once", r.clips.Walk.loop)
  end)

  it("written by the exporter keep a once clip once", function()
    local dir = H.tmpdir()
    local out = dir .. "/once.gltf"
    assert(anim.export_gltf(clip("once", "once"), anim.rig("player"), out))
    assert.are.equal("once", assert(anim.import_gltf(out)).clips.once.loop)
    os.remove(out)
  end)
end)

describe("the animator's speed and pause", function()
  local rig = anim.rig("player")

  it("scale every track's step, and 0 or paused stops the clock", function()
    local a = anim.animator(rig)
    assert.are.equal(1, a.speed)
    assert.is_false(a.paused)
    local t = a:play(clip("loop"), { fade = 0 })
    a.speed = 0.5
    a:update(0.4)
    assert.are.equal(0.5, a.speed)
    assert.is_true(math.abs(t.time - 0.2) < 1e-12)
    a.paused = true
    a:update(0.4)
    assert.is_true(a.paused)
    assert.is_true(math.abs(t.time - 0.2) < 1e-12)
    a.paused = false
    a.speed = 0
    a:update(0.4)
    assert.is_true(math.abs(t.time - 0.2) < 1e-12)
    a.speed = 2
    a:update(0.2)
    assert.is_true(math.abs(t.time - 0.6) < 1e-12)
  end)

  it("give scaled lates, as if the animator's clock ran at that speed", function()
    local c = assert(anim.clip({ length = 1, loop = "loop", markers = { { time = 0.5, name = "m" } },
      joints = { head = {} } }, "m"))
    local a = anim.animator(rig)
    a.speed = 2
    local lates = {}
    a:on_marker(function(_, _, _, late) lates[#lates + 1] = late end)
    a:play(c, { fade = 0 })
    a:update(0.3)
    assert.are.equal(1, #lates)
    assert.is_true(math.abs(lates[1] - 0.1) < 1e-12)
  end)

  it("apply to anim.update's batch, threads too", function()
    local list, solo = {}, {}
    for i = 1, 8 do
      list[i] = anim.animator(rig); list[i].speed = i / 4; list[i]:play(clip("loop"), { fade = 0 })
      solo[i] = anim.animator(rig); solo[i].speed = i / 4; solo[i]:play(clip("loop"), { fade = 0 })
    end
    list[3].paused = true; solo[3].paused = true
    for _ = 1, 3 do
      anim.update(list, 0.1, { threads = 2 })
      for i = 1, 8 do solo[i]:update(0.1) end
    end
    for i = 1, 8 do assert.are.equal(solo[i]:tracks()[1].time, list[i]:tracks()[1].time) end
    assert.are.equal(0, list[3]:tracks()[1].time)
  end)

  it("refuse a negative, non-finite or non-number speed and a non-boolean pause", function()
    local a = anim.animator(rig)
    local function err(k, v)
      local ok, e = pcall(function() a[k] = v end)
      assert.is_false(ok)
      return (tostring(e):gsub("^.-controls_spec.lua:%d+: ", ""))
    end
    assert.are.equal("animator.speed must be a finite number >= 0, got -1", err("speed", -1))
    assert.are.equal("animator.speed must be a finite number >= 0, got nan", err("speed", 0 / 0))
    assert.are.equal("animator.speed must be a finite number >= 0, got inf", err("speed", math.huge))
    assert.are.equal("animator.paused must be true or false, got number", err("paused", 1))
    assert.are.equal(1, a.speed)
  end)

  it("are saved by state() and restored", function()
    local c = clip("loop")
    local a = anim.animator(rig)
    a:play(c, { fade = 0 })
    a.speed = 0.75
    a:update(0.1)
    local s = a:state()
    assert.are.equal("0x1.8p-1", s.animator.speed)
    assert.is_false(s.animator.paused)
    local b = anim.animator(rig)
    assert(b:restore(s, function() return c end))
    assert.are.equal(0.75, b.speed)
    a.paused = true
    assert.is_true(a:state().animator.paused)
    b:restore(a:state(), function() return c end)
    assert.is_true(b.paused)
    -- (a state written before the fields: speed 1, not paused)
    s.animator.speed, s.animator.paused = nil, nil
    assert(b:restore(s, function() return c end))
    assert.are.equal(1, b.speed)
    assert.is_false(b.paused)
    s.animator.speed = -1
    local ok, e = b:restore(s, function() return c end)
    assert.is_nil(ok)
    assert.matches("speed", e)
  end)
end)

describe("animator:stop", function()
  it("stops every track as track:stop does", function()
    local a = anim.animator(anim.rig("player"))
    local t1, t2 = a:play(clip("loop"), { fade = 0 }), a:play(clip("loop", "d"), { fade = 0 })
    a:update(0.1)
    a:stop(0)
    a:update(0.1)
    assert.is_false(t1.is_playing)
    assert.is_false(t2.is_playing)
    local t3 = a:play(clip("loop"), { fade = 0 })
    a:update(0.1)
    a:stop()
    a:update(0.05)
    assert.is_true(t3.is_playing)
    assert.is_true(t3.fade < 1)
    a:update(0.1)
    assert.is_false(t3.is_playing)
    local _, err = pcall(a.stop, a, -1)
    assert.matches("bad argument #1 to 'stop' %(fade must be a finite number >= 0, got %-1%)$", err)
  end)
end)

describe("a track's speed and weight fields", function()
  it("set as adjust_speed and adjust_weight at once", function()
    local a = anim.animator(anim.rig("player"))
    local t = a:play(clip("loop"), { fade = 0 })
    t.speed = 2
    t.weight = 0.5
    a:update(0.1)
    assert.are.equal(2, t.speed)
    assert.are.equal(0.5, t.weight)
    assert.is_true(math.abs(t.time - 0.2) < 1e-12)
    local ok, err = pcall(function() t.weight = -1 end)
    assert.is_false(ok)
    assert.matches("track.weight must be a finite number >= 0, got %-1$", err)
    ok, err = pcall(function() t.speed = 0 / 0 end)
    assert.is_false(ok)
    assert.matches("track.speed must be a finite number, got nan$", err)
  end)
end)

describe("an ended track", function()
  it("refuses every control but stop, naming the clip", function()
    local a = anim.animator(anim.rig("player"))
    local other = clip("loop", "other")
    local t = a:play(clip("once", "walk"), { fade = 0 })
    a:update(2)
    assert.is_false(t.is_playing)
    local function refused(f)
      local ok, err = pcall(f)
      assert.is_false(ok)
      assert.matches("track 'walk' has ended$", err)
    end
    refused(function() t:adjust_speed(2) end)
    refused(function() t:adjust_weight(0.5) end)
    refused(function() t:crossfade(other) end)
    refused(function() t:set_at(1) end)
    refused(function() t.time = 0.3 end)
    refused(function() t.speed = 2 end)
    refused(function() t.weight = 0.5 end)
    refused(function() t.at = 1 end)
    t:stop()
    t:stop(0)
    -- (a queued track has not ended: it takes controls)
    local first = a:play(clip("loop"), { fade = 0 })
    local q = a:play(other, { after = first })
    q:adjust_speed(2)
    q.weight = 0.5
  end)
end)

describe("the root motion joint", function()
  it("is animator.root_joint, read and written; root_motion stays the method and its old setter", function()
    local rig = anim.rig("player")
    local a = anim.animator(rig)
    assert.is_nil(a.root_joint)
    a.root_joint = "torso"
    assert.are.equal("torso", a.root_joint)
    assert.are.equal("function", type(a.root_motion))
    a.root_motion = "head" -- (the documented setter of before)
    assert.are.equal("head", a.root_joint)
    assert.are.equal("head", a.root_motion_joint)
    a.root_joint = nil
    assert.is_nil(a.root_joint)
    local ok, e = pcall(function() a.root_joint = "hed" end)
    assert.is_false(ok)
    assert.matches("animator.root_joint: unknown joint 'hed'; did you mean 'head'%?", e)
    assert.are.equal("torso", anim.animator(rig, { root_joint = "torso" }).root_joint)
    ok, e = pcall(anim.animator, rig, { root_joint = "torso", root_motion = "torso" })
    assert.is_false(ok)
    assert.matches("bad argument #2 to 'animator' %(root_joint and root_motion name the same joint: give one%)", e)
  end)
end)
