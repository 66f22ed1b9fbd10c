-- animator:state() and animator:restore(state [, resolve]) (issue 23): a
-- state restored into a fresh animator of the same rig, from the table
-- itself and after a cjson round trip, poses bit for bit as the saved
-- animator did and goes on exactly as it would have: random scenes of
-- every kind of track (loop, pingpong, once, hold; fades, weights,
-- priorities, additive layers, queued tracks, blend spaces, retargeted
-- tracks, library clips with events, sounds and `plays`), overrides,
-- constraints, root motion and property channels, saved at a random time
-- and then updated 200 times with random dts, every number compared with
-- ==, every callback (names, values, late) in order.  Then each refusal
-- of a bad state by its message, and the animator untouched after one.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local compat = require "anim.base.compat"
local cjson = require "cjson"

local rig = anim.rig("player")
local random = require "spec.random_clips"
local JOINTS = random.JOINTS
local random_clip, random_spaces = random.clip, random.spaces

-- Every number an animator shows (compared with ==), and its properties.
local function numbers(a)
  local out = { a:root_motion() }
  for j = 1, #JOINTS do
    for _, f in ipairs { a.get, a.local_transform, a.world_transform } do
      for _, v in ipairs { f(a, j) } do out[#out + 1] = v end
    end
  end
  for _, name in ipairs { "glow", "tint" } do
    local v = { pcall(a.property, a, name) }
    out[#out + 1] = v[1] and "known" or "unknown"
    for k = 2, #v do out[#out + 1] = v[k] end
  end
  return out
end

local function same_numbers(x, y, what)
  assert(#x == #y, what .. ": not as many numbers")
  for i = 1, #x do
    if x[i] ~= y[i] then
      local function show(v) return type(v) == "number" and compat.hexfloat(v) or tostring(v) end
      error(string.format("%s: number %d is %s, not %s", what, i, show(y[i]), show(x[i])), 2)
    end
  end
end

-- The animator-level callbacks, logged (late compared exactly: %a).
local function listen(a, log)
  local function add(...)
    local parts = {}
    for i = 1, select("#", ...) do
      local v = select(i, ...)
      parts[i] = type(v) == "number" and compat.hexfloat(v) or type(v) == "table" and "table" or tostring(v)
    end
    log[#log + 1] = table.concat(parts, " ")
  end
  a:on_marker(function(t, name, value, late) add("marker", t.id, name, value, late) end)
  a:on_event(function(t, name, _, late) add("event", t.id, name, late) end)
  a:on_sound(function(t, sound, volume, pitch, late) add("sound", t.id, sound, volume, pitch, late) end)
  a:on_play(function(t, clip, late) add("play", t.id, clip.name, late) end)
  return add
end

-- The per-track callbacks, attached to each track of a by its id (tracks:
-- { [id] = track }).
local function listen_tracks(tracks, add)
  for id, t in pairs(tracks) do
    t:on_looped(function(_, late) add("looped", id, late) end)
    t:on_stopped(function(_, late) add("stopped", id, late) end)
    t:on_ended(function(_, late) add("ended", id, late) end)
    t:on_marker("m1", function(_, value, late) add("track m1", id, value, late) end)
  end
end

local function by_id(a)
  local out = {}
  for _, t in ipairs(a:tracks()) do out[t.id] = t end
  return out
end

-- A random scene on animator a: tracks, controls and updates.
local function scene(r, a, pool, spaces, map, lib_clips)
  local ts = {}
  local function play_one()
    local opts = { fade = r(3) == 1 and 0 or r() * 0.3, weight = r() * 1.2, speed = (r() - 0.3) * 2 }
    if r() < 0.3 then opts.priority = r(4) - 1 end
    local what = pool[r(#pool)]
    if r() < 0.15 then what = lib_clips[r(#lib_clips)] end
    if r() < 0.2 then opts.retarget = map end
    if r() < 0.25 then
      what = spaces[r(#spaces)]
      opts.at = what.dimensions == 1 and (r() * 3 - 1) or { r() * 3 - 1, r() * 3 - 1 }
    end
    if #ts > 0 and r() < 0.25 then opts.after = ts[r(#ts)] end
    local ok, t = pcall(a.play, a, what, opts)
    if ok then ts[#ts + 1] = t end
  end
  for _ = 1, 3 + r(6) do play_one() end
  for _ = 1, r(3) - 1 do
    local x = (r() - 0.5) * 2
    a:override(JOINTS[r(#JOINTS)], { mode = r() < 0.5 and "add" or "replace", weight = r(),
      rotation = r() < 0.7 and { math.sin(x) * 3, 0, 0, math.cos(x) * 3 } or nil,
      position = r() < 0.5 and { r(), r(), r() } or nil, scale = r() < 0.3 and { 1 + r(), 1, 1 } or nil })
  end
  if r() < 0.5 then a.root_motion = JOINTS[r(3)] end
  if r() < 0.6 then
    a:two_bone_ik { root = "root", mid = "torso", tip = "head", target = { r() - 0.5, 1 + r(), r() - 0.5 },
      pole = { 0, 1, 1 }, weight = r(), soften = 0.5 + r() / 2 }
  end
  if r() < 0.4 then a:aim { joint = "rightArm", target = { r() * 4 - 2, r() * 3, 2 }, forward = { 0, -1, 0 }, up = { 0, 0, 1 } } end
  -- updates and controls until the save
  for _ = 1, r(80) do
    a:update(({ 0, 1 / 60, 0.1, 1 / 30, 0.7, r() * 0.05 })[r(6)])
    local k = r(12)
    local t = ts[r(#ts)]
    if k == 1 then pcall(t.stop, t, r() * 0.3)
    elseif k == 2 then pcall(t.adjust_weight, t, r() * 1.5, r() * 0.2)
    elseif k == 3 then pcall(t.adjust_speed, t, (r() - 0.3) * 3)
    elseif k == 4 then pcall(function() t.time = r() * 2 end)
    elseif k == 5 then play_one()
    elseif k == 6 and t and anim.is_blendspace(t.clip) then
      pcall(function() t.at = t.clip.dimensions == 1 and r() * 3 or { r() * 3, r() * 2 } end)
    end
  end
end

local function dts(r)
  local out = {}
  for i = 1, 200 do out[i] = ({ 0, 1 / 60, 0.1, 1 / 30, 0.7, r() * 0.05, 1 / 144 })[r(7)] end
  return out
end

describe("animator:state and animator:restore", function()
  -- (made when the specs run, not when busted loads the files: a heap
  -- grown at load moves the collections finalized_spec times)
  local lib, lib_clips, map
  setup(function()
    lib = assert(anim.library("examples/clips"))
    lib_clips = { assert(lib:clip("res://walk.anim")), assert(lib:clip("res://attack.anim")),
      assert(lib:clip("res://wave.anim")) }
    map = assert(anim.decode_retarget([[{"version": 1, "scale": 0.5,
      "joints": {"rightArm": {"to": "leftArm", "source": [0, 0, 0.3826834, 0.9238795]}, "head": "torso"}}]], "half"))
  end)

  for seed = 1, 12 do
    it("round trips random scene " .. seed .. " exactly, directly and through cjson", function()
      math.randomseed(7000 + seed)
      local r = math.random
      local pool, named = {}, { half = map }
      for i = 1, 6 do pool[i] = random_clip(r, "c" .. i); named["c" .. i] = pool[i] end
      local spaces = random_spaces(r, pool)
      local function resolve(name) return named[name] end
      local a = anim.animator(rig, { library = lib })
      local log_a, log_b, log_c = {}, {}, {}
      local add_a = listen(a, log_a)
      scene(r, a, pool, spaces, map, lib_clips)
      local s = a:state()
      local json = cjson.encode(s)
      for k in pairs(log_a) do log_a[k] = nil end -- (what came before the save)
      local b, c = anim.animator(rig, { library = lib }), anim.animator(rig, { library = lib })
      local add_b, add_c = listen(b, log_b), listen(c, log_c)
      local rb = assert(b:restore(s, resolve))
      local rc = assert(c:restore(cjson.decode(json), resolve))
      listen_tracks(by_id(a), add_a)
      listen_tracks(rb.tracks, add_b)
      listen_tracks(rc.tracks, add_c)
      -- the same tracks, by id, and the same numbers before any update
      local n = 0
      for id in pairs(by_id(a)) do
        n = n + 1
        assert(rb.tracks[id] and rc.tracks[id], "track " .. id .. " restored")
      end
      for _ in pairs(rb.tracks) do n = n - 1 end
      assert.are.equal(0, n)
      same_numbers(numbers(a), numbers(b), "after restore")
      same_numbers(numbers(a), numbers(c), "after restore (cjson)")
      if os.getenv("STATE_DIFF") then dofile("/tmp/diff.lua")(s, b:state(), "s") end
      assert.are.same(s, b:state())
      assert.are.same(cjson.decode(json), c:state())
      for i, dt in ipairs(dts(r)) do
        a:update(dt); b:update(dt); c:update(dt)
        same_numbers(numbers(a), numbers(b), "update " .. i)
        same_numbers(numbers(a), numbers(c), "update " .. i .. " (cjson)")
      end
      assert.are.same(log_a, log_b)
      assert.are.same(log_a, log_c)
    end)
  end

  -- (issue 35) States written after play at the extremes the API allows
  -- restore and go on bit for bit: speeds of 1e300 for dts of 1e9 (a
  -- track's loops saturate at 2^63 - 1, a state wrote that count and could
  -- not read it back), root motion over them (its sums were saved as
  -- infinities and NaNs), dts near the largest double (the ramps' elapsed
  -- times overflowed), queued tracks, blend spaces and properties.
  local BIG = 1.7976931348623157e308
  local SPEEDS = { 1e300, -1e300, 5e-324, 1e15, 1, 0, BIG, -BIG }
  local DTS = { 1e9, 1e300, BIG, 5e-324, 0, 1 / 60 }

  local function extreme_scene(r, a, pool, spaces)
    local ts = {}
    if r() < 0.8 then a.root_motion = JOINTS[r(3)] end
    for _ = 1, 2 + r(4) do
      local opts = { speed = SPEEDS[r(#SPEEDS)], fade = ({ 0, 1e300, 1e-300, 0.2, BIG })[r(5)],
        weight = ({ 1, 1e300, 0, 1e-300 })[r(4)] }
      local what = pool[r(#pool)]
      if r() < 0.3 then
        what = spaces[r(#spaces)]
        opts.at = what.dimensions == 1 and r() * 1e300 or { r() * 3, -1e300 }
      end
      if #ts > 0 and r() < 0.3 then opts.after = ts[r(#ts)] end
      local ok, t = pcall(a.play, a, what, opts)
      if ok then ts[#ts + 1] = t end
    end
    for _ = 1, r(6) do
      a:update(DTS[r(#DTS)])
      local t, k = ts[r(#ts)], r(6)
      if t and k == 1 then pcall(t.stop, t, ({ 0, 1e300, BIG })[r(3)])
      elseif t and k == 2 then pcall(t.adjust_speed, t, SPEEDS[r(#SPEEDS)], ({ 0, 1e300 })[r(2)])
      elseif t and k == 3 then pcall(t.adjust_weight, t, ({ 0, 1e300, BIG })[r(3)], ({ 0, 1e300, BIG })[r(3)]) end
    end
  end

  it("restores the states of play at the extremes and goes on bit for bit (issue 35)", function()
    for seed = 1, H.valgrind and 20 or 60 do
      math.randomseed(3500 + seed)
      local r = math.random
      local pool, named = {}, {}
      for i = 1, 4 do pool[i] = random_clip(r, "c" .. i); named["c" .. i] = pool[i] end
      local spaces = random_spaces(r, pool)
      local function resolve(name) return named[name] end
      local a = anim.animator(rig)
      local log_a, log_b, log_c = {}, {}, {}
      local add_a = listen(a, log_a)
      extreme_scene(r, a, pool, spaces)
      local s = a:state()
      local json = cjson.encode(s)
      for k in pairs(log_a) do log_a[k] = nil end
      local b, c = anim.animator(rig), anim.animator(rig)
      local add_b, add_c = listen(b, log_b), listen(c, log_c)
      local rb, err = b:restore(s, resolve)
      assert(rb, "seed " .. seed .. ": " .. tostring(err))
      local rc = assert(c:restore(cjson.decode(json), resolve))
      listen_tracks(by_id(a), add_a)
      listen_tracks(rb.tracks, add_b)
      listen_tracks(rc.tracks, add_c)
      same_numbers(numbers(a), numbers(b), "seed " .. seed .. " after restore")
      assert.are.same(s, b:state())
      assert.are.same(cjson.decode(json), c:state())
      for i = 1, 5 do
        local dt = DTS[r(#DTS)]
        a:update(dt); b:update(dt); c:update(dt)
        same_numbers(numbers(a), numbers(b), "seed " .. seed .. " update " .. i)
        same_numbers(numbers(a), numbers(c), "seed " .. seed .. " update " .. i .. " (cjson)")
      end
      assert.are.same(log_a, log_b)
      assert.are.same(log_a, log_c)
    end
  end)

  it("restores a track whose loops saturated at 2^63 - 1, and its root motion (issue 35)", function()
    local hips = assert(anim.clip({ length = 0.8, loop = "loop", joints = { torso = {
      position = { { 0, { 0, 0, 0 } }, { 0.8, { 0.3, 0, 2 } } },
      rotation = { { 0, { 10, 0, 0 } }, { 0.8, { 10, 30, 0 } } } } } }, "hips"))
    for _, speed in ipairs { 1e300, -1e300 } do
      local a = anim.animator(rig, { root_motion = "torso" })
      a:play(hips, { speed = speed })
      a:update(1e9)
      local s = a:state()
      assert.are.equal("9223372036854775807", s.tracks[1].loops)
      -- (the motion of infinitely many loops: the largest double, not inf)
      for _, x in ipairs(s.tracks[1].rm_dp) do assert.is_truthy(tonumber(x), x) end
      assert.is_truthy(tonumber(s.tracks[1].rm_dy), s.tracks[1].rm_dy)
      local b = anim.animator(rig)
      assert(b:restore(cjson.decode(cjson.encode(s)), function() return hips end))
      assert.are.equal(a:tracks()[1].loops, b:tracks()[1].loops)
      same_numbers(numbers(a), numbers(b), "after restore")
      for i = 1, 3 do
        a:update(1e9); b:update(1e9)
        same_numbers(numbers(a), numbers(b), "update " .. i)
      end
      assert.are.same(a:state(), b:state())
    end
  end)

  it("writes only JSON-safe values: strings, booleans and small integers", function()
    math.randomseed(99)
    local r = math.random
    local pool = {}
    for i = 1, 6 do pool[i] = random_clip(r, "c" .. i) end
    local a = anim.animator(rig, { library = lib })
    scene(r, a, pool, random_spaces(r, pool), map, lib_clips)
    local function walk(v, path)
      if type(v) == "table" then
        for k, x in pairs(v) do walk(x, path .. "." .. tostring(k)) end
      elseif type(v) == "number" then
        assert(v == math.floor(v) and math.abs(v) < 2 ^ 31, path .. " is a number cjson may not keep")
      else
        assert(type(v) == "string" or type(v) == "boolean", path .. " is a " .. type(v))
      end
    end
    walk(a:state(), "state")
  end)

  it("gives the tracks a restore made by their saved ids, with no per-track callbacks", function()
    local lib_walk = lib_clips[1]
    local a = anim.animator(rig, { library = lib })
    local t = a:play(lib_walk)
    local called = false
    t:on_looped(function() called = true end)
    a:update(0.1)
    local b = anim.animator(rig, { library = lib })
    local res = assert(b:restore(a:state()))
    local nt = res.tracks[t.id]
    assert.are.equal(lib_walk, nt.clip)
    assert.are.equal(t.time, nt.time)
    assert.are.equal(b, nt.animator)
    assert.are.same({ nt }, b:tracks())
    for _ = 1, 30 do b:update(0.1) end
    assert.is_false(called)
  end)

  it("replaces what the restoring animator had: its tracks, overrides and constraints", function()
    local a = anim.animator(rig)
    local b = anim.animator(rig)
    local old = b:play(lib_clips[3])
    local ov = b:override("head", { position = { 1, 2, 3 } })
    local c = b:aim { joint = "rightArm", target = { 1, 1, 1 } }
    local kept = a:override("torso", { position = { 0, 1, 0 } })
    b:update(0.1)
    local res = assert(b:restore(a:state()))
    assert.is_false(old.is_playing)
    assert.is_true(ov.removed)
    assert.is_true(c.removed)
    assert.are.same({}, b:tracks())
    assert.are.equal(1, #res.overrides)
    assert.are.same({ 0, 1, 0 }, res.overrides[1].position)
    assert.are.same(res.overrides, b:overrides())
    assert.is_false(kept.removed)
  end)

  it("can be restored only from outside the animator's callbacks", function()
    local a = anim.animator(rig, { library = lib })
    a:play(lib_clips[1])
    local s = a:state()
    local err
    a:on_marker(function() if not err then err = select(2, pcall(a.restore, a, s)) end end)
    for _ = 1, 20 do a:update(0.1) end
    assert.matches("animator:restore called from one of this animator's callbacks", err, 1, true)
    -- and not while anim.update has yet to deliver them (from another animator's callback)
    local other = anim.animator(rig, { library = lib })
    other:play(lib_clips[1])
    local err2
    other:on_marker(function() if not err2 then err2 = select(2, pcall(a.restore, a, s)) end end)
    for _ = 1, 20 do anim.update({ other, a }, 0.1) end
    assert.matches("animator:restore called while anim.update has yet to deliver this animator's callbacks", err2, 1, true)
    -- (found by fuzz_animator: a state restore would refuse gave nil, message
    -- from a callback; the callback is what is refused, whatever the state)
    local bad, ok3, err3 = { version = "x" }, nil, nil
    local c = anim.animator(rig, { library = lib })
    c:play(lib_clips[1])
    c:on_marker(function() if ok3 == nil then ok3, err3 = pcall(c.restore, c, bad) end end)
    for _ = 1, 20 do c:update(0.1) end
    assert.is_false(ok3)
    assert.matches("animator:restore called from one of this animator's callbacks", err3, 1, true)
    local err4
    other:on_marker(function() if not err4 then err4 = select(2, pcall(c.restore, c, bad)) end end)
    for _ = 1, 20 do anim.update({ other, c }, 0.1) end
    assert.matches("animator:restore called while anim.update has yet to deliver this animator's callbacks", err4, 1, true)
  end)

  describe("refuses a bad state with nil, a message naming the field, and changes nothing", function()
    local function saved()
      local walk = lib_clips[1]
      local a = anim.animator(rig, { library = lib })
      local q = a:play(walk, { fade = 0.1 })
      a:play(lib_clips[3], { after = q })
      a:override("head", { rotation = { 0, 0, 0, 1 }, weight = 0.5 })
      a:aim { joint = "rightArm", target = { 1, 1, 1 } }
      for _ = 1, 5 do a:update(1 / 60) end
      return cjson.decode(cjson.encode(a:state()))
    end
    local cases = {
      { "another rig", function(s) s.rig.name = "goblin" end,
        "state.rig: the state is of rig 'goblin' (7 joints), this animator's is 'player' (7 joints)" },
      { "a joint of another name", function(s) s.rig.joints[3] = "neck" end,
        "state.rig.joints[3]: 'neck' where this animator's rig has 'rightLeg'" },
      { "a time that is not finite", function(s) s.tracks[1].time = "inf" end,
        "state.tracks[1].time: must be a finite number" },
      { "a time of the wrong type", function(s) s.tracks[2].time = true end,
        "state.tracks[2].time: must be a finite number" },
      { "a time outside the clip", function(s) s.tracks[1].time = 99 end,
        "state.tracks[1].time: must be from 0 to the clip's length (1), got 99" },
      { "a missing field", function(s) s.tracks[1].tlo = nil end, "state.tracks[1].tlo: missing" },
      { "an unknown field", function(s) s.tracks[1].tiem = 1 end,
        "state.tracks[1]: unknown field 'tiem'; did you mean 'time'?" },
      { "an unknown top-level field", function(s) s.trakcs = {} end,
        "state: unknown field 'trakcs'; did you mean 'tracks'?" },
      { "a track naming nothing", function(s) s.tracks[1].clip = nil end,
        "state.tracks[1]: names no clip and no blend space" },
      { "a clip no library has", function(s) s.tracks[1].clip = "res://nothing.anim" end,
        "state.tracks[1].clip: cannot load clip 'res://nothing.anim': res://nothing.anim: cannot open file: No such file or directory" },
      { "a clip that cannot be resolved", function(s) s.tracks[1].clip = "sprint" end,
        "state.tracks[1].clip: cannot resolve clip 'sprint': not a res:// path, and no resolve function was given" },
      { "a state of another kind", function(s) s.tracks[1].state = "ended" end,
        "state.tracks[1].state: must be one of pending, playing, queued, got 'ended'" },
      { "a count that is not one", function(s) s.tracks[1].loops = "-1" end,
        "state.tracks[1].loops: must be an integer >= 0 (a decimal string)" },
      { "a negative fade", function(s) s.tracks[1].fade[3] = "-0x1p+0" end,
        "state.tracks[1].fade[3]: must be a duration >= 0" },
      { "a queue onto itself", function(s) s.tracks[2].after = 2 end,
        "state.tracks[2].after: a track cannot be queued after itself" },
      { "a queue of a track that is not queued", function(s) s.tracks[1].after = 2 end,
        "state.tracks[1].after: only a queued track waits for another" },
      { "two tracks of one id", function(s) s.tracks[2].id = s.tracks[1].id end,
        "state.tracks[2].id: is the id of state.tracks[1] too" },
      { "two properties of one name (the first repeat named, with the first of its name)", function(s)
          for i, n in ipairs { "a", "b", "c", "b", "a", "b" } do s.properties[i] = { name = n, value = false } end
        end, "state.properties[4].name: is the name of state.properties[2] too" },
      { "a property's bad field before a later repeat", function(s)
          for i, n in ipairs { "a", "b", "a" } do s.properties[i] = { name = n, value = false } end
          s.properties[2].vlaue = 1
        end, "state.properties[2]: unknown field 'vlaue'; did you mean 'value'?" },
      { "an override of no joint", function(s) s.overrides[1].joint = "hed" end,
        "state.overrides[1].joint: no joint 'hed' in the rig; did you mean 'head'?" },
      { "an override of a bad weight", function(s) s.overrides[1].weight = 2 end,
        "state.overrides[1].weight: must be from 0 to 1" },
      { "a constraint of another kind", function(s) s.constraints[1].kind = "look" end,
        "state.constraints[1].kind: must be 'two_bone' or 'aim', got string" },
      -- (refused by the core, once the tracks are built: the new animator is freed)
      { "an aim whose axes are parallel", function(s) s.constraints[1].forward = s.constraints[1].up end,
        "state.constraints[1]: not a valid constraint (joints not in a chain, axes of no length or parallel)" },
      { "a queue onto a track that has one", function(s)
          s.tracks[3] = cjson.decode(cjson.encode(s.tracks[2]))
          s.tracks[3].id = "9"
          s.animator.next_id = "10"
        end, "state.tracks[3].after: does not fit the rest of the state" },
      { "a pose of a NaN", function(s) s.pose[2][4] = "nan" end, "state.pose[2][4]: must be a finite number" },
      { "a version to come", function(s) s.version = 2 end,
        "state.version: must be 1 (this module reads version 1), got 2" },
      { "another side", function(s) s.side = "server" end,
        "state.side: the state is of a 'server' animator, this one is 'both'" },
      { "no table", function() return "walk" end, "state: must be a table (from animator:state()), got string" },
      { "more entries than anim.limits.state_entries", function(s)
          for i = 1, 10001 do s.properties[i] = { name = "p" .. i, value = false } end
        end, "state: holds 10005 tracks, points, properties, overrides and constraints (at most 10000, anim.limits.state_entries)" },
    }
    for _, case in ipairs(cases) do
      it("(" .. case[1] .. ")", function()
        local s = saved()
        s = case[2](s) or s
        local b = anim.animator(rig, { library = lib })
        local t = b:play(lib_clips[3], { weight = 0.5 })
        b:update(0.25)
        local before = numbers(b)
        local ok, msg = b:restore(s)
        assert.is_nil(ok)
        assert.are.equal(case[3], msg)
        -- untouched: the same track, playing on, posing as before
        same_numbers(before, numbers(b), "after the refusal")
        assert.are.same({ t }, b:tracks())
        assert.is_true(t.is_playing)
      end)
    end

    it("(a clip resolve does not find), and leaves the animator playing on as it would have", function()
      local pool = { c1 = random_clip(function(n) return n and 1 or 0.5 end, "c1") }
      local a = anim.animator(rig)
      a:play(pool.c1)
      a:update(0.1)
      local s = a:state()
      local b, twin = anim.animator(rig), anim.animator(rig)
      local tb, tt = b:play(lib_clips[1]), twin:play(lib_clips[1])
      tb:on_looped(function() end)
      b:update(0.3); twin:update(0.3)
      local ok, msg = b:restore(s, function() return nil end)
      assert.is_nil(ok)
      assert.are.equal("state.tracks[1].clip: resolve('c1') gave no clip (got nil)", msg)
      for _ = 1, 50 do
        b:update(0.05); twin:update(0.05)
        same_numbers(numbers(twin), numbers(b), "after the refusal")
      end
      assert.are.equal(tt.time, tb.time)
    end)
  end)
end)
