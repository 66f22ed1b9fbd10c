-- Callbacks: fades and stops in time (7a.9-11), order across tracks
-- (7a.12), events, sounds and plays (7a.13-14), side filtering, errors in
-- callbacks, changes made from callbacks, connections, lifetimes.
local anim = require "anim"
local cjson = require "cjson"
local H = require "spec.helper"

local rig = assert(anim.rig { joints = { { name = "j" }, { name = "k" } } })

local function clip(t)
  t.length = t.length or 1
  t.loop = t.loop or "loop"
  t.joints = t.joints or { j = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, 0, 0 } } } } }
  return assert(anim.clip(t))
end

local MARKERS = { { time = 0, name = "a" }, { time = 0.5, name = "m" }, { time = 1, name = "z" } }

local function near(a, b) return math.abs(a - b) <= 1e-9 end

describe("fades and stops", function()
  it("stop(fade): stopped at the start of the next update (late dt), firing until the fade ends", function()
    local a = anim.animator(rig)
    local tr = a:play(clip { markers = MARKERS }, { fade = 0 })
    local log = {}
    a:on_marker(function(_, n, _, late) log[#log + 1] = n .. "@" .. late end)
    tr:on_stopped(function(_, late) log[#log + 1] = "stopped@" .. late end)
    tr:on_ended(function(_, late) log[#log + 1] = "ended@" .. late end)
    a:update(0.25)          -- a@0.25
    tr:stop(0.3)
    a:update(0.25)          -- stopped@0.25 (at e=0), m@0 ; fade 1 - .25/.3
    assert.is_true(near(tr.fade, 1 - 0.25 / 0.3))
    assert.is_true(tr.is_playing)
    a:update(0.25)          -- the fade reaches 0 at e=.05: ended@.2; z at e=.5... never reached
    -- (tostring(0.0): "0.0" on 5.3+, "0" before, without integers)
    assert.are.same({ "a@0.25", "stopped@0.25", "m@" .. tostring(0.0), "ended@0.2" }, log)
    assert.is_false(tr.is_playing)
    assert.is_true(near(tr.time, 0.55))
    assert.are.same({ false, false, false }, { a:animated("j") })
  end)

  it("stop(0): fires nothing more, adds nothing to that update's pose, stopped and ended with late = dt", function()
    local a = anim.animator(rig)
    local tr = a:play(clip { markers = MARKERS }, { fade = 0 })
    local log = {}
    a:on_marker(function(_, n) log[#log + 1] = n end)
    tr:on_stopped(function(_, late) log[#log + 1] = "stopped@" .. late end)
    tr:on_ended(function(_, late) log[#log + 1] = "ended@" .. late end)
    a:update(0.25)
    tr:stop(0)
    a:update(0.5)
    assert.are.same({ "a", "stopped@0.5", "ended@0.5" }, log)
    assert.are.equal(0, (a:get("j")))
  end)

  it("play{fade = f} then update(dt) gives fade min(1, dt/f); the pose uses the end-of-update values", function()
    local a = anim.animator(rig)
    local tr = a:play(clip {}, { fade = 0.4 })
    a:update(0.1)
    assert.is_true(near(tr.fade, 0.25))
    -- one track of effective weight .25: the rest takes .75 of the budget
    assert.is_true(near((a:get("j")), 0.25 * 0.1))
    a:update(0.4)
    assert.are.equal(1, tr.fade)
  end)

  it("the default fade of play is 0.1 s", function()
    local a = anim.animator(rig)
    local tr = a:play(clip {})
    a:update(0.025)
    assert.is_true(near(tr.fade, 0.25))
  end)

  it("adjust_weight(w, fade) ramps from the current weight; the default fade is 0.1", function()
    local a = anim.animator(rig)
    local tr = a:play(clip {}, { fade = 0, weight = 1 })
    a:update(0.1)
    tr:adjust_weight(0.5, 0.2)
    assert.are.equal(1, tr.weight)     -- ramps start at the next update
    a:update(0.1)
    assert.is_true(near(tr.weight, 0.75))
    tr:adjust_weight(0)                -- a new ramp from the current .75 over .1
    a:update(0.05)
    assert.is_true(near(tr.weight, 0.375))
    a:update(0.05)
    assert.are.equal(0, tr.weight)
  end)

  it("adjust_speed changes the playhead speed from the next update", function()
    local a = anim.animator(rig)
    local tr = a:play(clip {}, { fade = 0 })
    a:update(0.25)
    tr:adjust_speed(-2)
    assert.are.equal(-2, tr.speed)
    a:update(0.0625)
    assert.are.equal(0.125, tr.time)
  end)
end)

describe("order across tracks", function()
  it("delivers in order of occurrence across tracks; ties go to the track started earlier", function()
    local a = anim.animator(rig)
    local log = {}
    a:on_marker(function(t, n) log[#log + 1] = t.clip.name .. ":" .. n end)
    local c1 = assert(anim.clip({ length = 1, loop = "loop", joints = {},
      markers = { { time = 0.5, name = "x" }, { time = 0.75, name = "y" } } }, "first"))
    local c2 = assert(anim.clip({ length = 1, loop = "loop", joints = {},
      markers = { { time = 0.25, name = "p" }, { time = 0.5, name = "q" } } }, "second"))
    a:play(c1, { fade = 0 })
    a:play(c2, { fade = 0 })
    a:update(1)
    assert.are.same({ "second:p", "first:x", "second:q", "first:y" }, log)
  end)

  it("a track played between updates starts at the beginning of the next update", function()
    local a = anim.animator(rig)
    local lates = {}
    a:on_marker(function(_, _, _, late) lates[#lates + 1] = late end)
    a:update(0.3)
    a:play(clip { markers = { { time = 0, name = "a" } } }, { fade = 0 })
    a:update(0.2)
    assert.are.same({ 0.2 }, lates)
  end)
end)

describe("events, sounds and sides", function()
  local c = clip {
    events = {
      { time = 0.1, name = "both", payload = { x = 1, list = { 1, 2 }, none = cjson.null } },
      { time = 0.2, name = "srv", on = "server" },
      { time = 0.3, name = "cli", on = "client" },
    },
    sounds = { { time = 0.4, sound = "step", volume = 0.5 }, { time = 0.45, id = "thud", pitch = 2 } },
  }

  local function heard(side)
    local a = anim.animator(rig, { side = side })
    local log = {}
    a:on_event(function(_, name, payload, late) log[#log + 1] = { "event", name, payload, late } end)
    a:on_sound(function(_, id, volume, pitch, late) log[#log + 1] = { "sound", id, volume, pitch, late } end)
    a:play(c, { fade = 0 })
    a:update(0.5)
    return log
  end

  it("a both animator fires every event and sound, with payloads decoded", function()
    local log = heard(nil)
    assert.are.equal(5, #log)
    assert.are.equal("both", log[1][2])
    assert.are.equal(1, log[1][3].x)
    assert.are.same({ 1, 2 }, log[1][3].list)
    assert.are.equal(cjson.null, log[1][3].none)
    assert.is_true(near(log[1][4], 0.4))
    assert.are.same({ "sound", "step", 0.5, 1 }, { log[4][1], log[4][2], log[4][3], log[4][4] })
    assert.are.same({ "sound", "thud", 1, 2 }, { log[5][1], log[5][2], log[5][3], log[5][4] })
  end)

  it("a sound's track leads to where the rig stands: its animator's root world transform", function()
    local r = assert(anim.rig { joints = { { name = "arm", parent = "base", position = { 1, 2, 3 } },
      { name = "base", position = { 4, 5, 6 } } } })
    local a = anim.animator(r)
    local at
    a:on_sound(function(t) at = { t.animator:root_transform() } end)
    a:play(assert(anim.clip { length = 1, joints = { base = { position = { { 0, { 1, 0, 0 } } } } },
      sounds = { { time = 0, sound = "s" } } }), { fade = 0 })
    a:update(0.1)
    assert.are.same({ 5, 5, 6, 0, 0, 0, 1, 1, 1, 1 }, at)
  end)

  it("a marker without value arrives as nil", function()
    local a = anim.animator(rig)
    local got = "unset"
    a:on_marker(function(_, _, value) got = value end)
    a:play(clip { markers = { { time = 0, name = "a" } } })
    a:update(0.1)
    assert.is_nil(got)
  end)

  it("a server animator fires server and both events and no sounds", function()
    local names = {}
    for _, e in ipairs(heard("server")) do names[#names + 1] = e[2] end
    assert.are.same({ "both", "srv" }, names)
  end)

  it("a client animator fires client and both events and the sounds", function()
    local names = {}
    for _, e in ipairs(heard("client")) do names[#names + 1] = e[2] end
    assert.are.same({ "both", "cli", "step", "thud" }, names)
  end)

  it("payloads are decoded once per clip and shared between deliveries", function()
    local a = anim.animator(rig)
    local seen = {}
    a:on_event(function(_, name, payload) if name == "both" then seen[#seen + 1] = payload end end)
    a:play(c, { fade = 0 })
    a:update(1)
    a:update(0.15)
    assert.are.equal(2, #seen)
    assert.are.equal(seen[1], seen[2])
  end)
end)

describe("plays", function()
  local dir = H.tmpdir()
  os.execute("mkdir -p " .. dir .. "/fx")
  H.write(dir .. "/fx/flash.anim", [==[{"length": 2, "loop": "once", "joints": {"k": {"position": [[0, [0, 0, 0]], [2, [0, 1, 0]]]}},
    "markers": [{"time": 0, "name": "flash-start"}]}]==])
  local main = clip { plays = { { time = 0.25, clip = "res://fx/flash.anim", fade = 0 } } }

  it("start the clip on the same animator from the next update, calling on_play first", function()
    local lib = assert(anim.library(dir))
    local a = anim.animator(rig, { library = lib })
    local log = {}
    a:on_play(function(t, c, late)
      log[#log + 1] = "play " .. c.name .. "@" .. late
      t:on_marker("flash-start", function(_, _, l) log[#log + 1] = "flash-start@" .. l end)
    end)
    a:play(main, { fade = 0 })
    a:update(0.5)
    assert.are.same({ "play res://fx/flash.anim@0.25" }, log)
    a:update(0.125)
    assert.are.same({ "play res://fx/flash.anim@0.25", "flash-start@0.125" }, log)
    assert.are.equal(2, #a:tracks())
  end)

  it("restart the live track of the same library clip (the same track object)", function()
    local lib = assert(anim.library(dir))
    local a = anim.animator(rig, { library = lib })
    local tracks = {}
    a:on_play(function(t) tracks[#tracks + 1] = t end)
    a:play(main, { fade = 0 })
    a:update(0.5)   -- plays flash
    a:update(0.25)  -- flash at .25
    assert.are.equal(0.25, tracks[1].time)
    a:update(0.5)   -- the main clip wraps and reaches .25 again: restart
    assert.are.equal(2, #tracks)
    assert.are.equal(tracks[1], tracks[2])
    assert.are.equal(0, tracks[1].time)
  end)

  it("restart the live track started first when two play the same clip", function()
    local lib = assert(anim.library(dir))
    local a = anim.animator(rig, { library = lib })
    local flash = assert(lib:clip("res://fx/flash.anim"))
    local first = a:play(flash, { fade = 0 })
    local second = a:play(flash, { fade = 0 })
    local restarted
    a:on_play(function(t) restarted = t end)
    a:play(main, { fade = 0 })
    for _ = 1, 20 do
      a:update(0.0625) -- 1.25 s: the plays item at .25 fires once (main loops at 1)
      if restarted then break end
    end
    assert.are.equal(first, restarted)
    assert.are_not.equal(second, restarted)
  end)

  it("run only on server and both animators", function()
    local lib = assert(anim.library(dir))
    local a = anim.animator(rig, { library = lib, side = "client" })
    local n = 0
    a:on_play(function() n = n + 1 end)
    a:play(main, { fade = 0 })
    a:update(0.5)
    assert.are.equal(0, n)
  end)

  it("without a library: update raises an error naming the res:// path, after the other callbacks", function()
    local a = anim.animator(rig)
    local later = false
    a:on_marker(function() later = true end)
    a:play(clip { plays = { { time = 0.25, clip = "res://fx/flash.anim" } }, markers = { { time = 0.3, name = "after" } } },
      { fade = 0 })
    local ok, err = pcall(a.update, a, 0.5)
    assert.is_false(ok)
    assert.truthy(err:find("res://fx/flash.anim", 1, true))
    assert.truthy(err:find("no library", 1, true))
    assert.is_true(later)
  end)

  it("a missing clip in the library raises an error naming the path", function()
    local a = anim.animator(rig, { library = assert(anim.library(dir)) })
    a:play(clip { plays = { { time = 0.25, clip = "res://fx/nope.anim" } } }, { fade = 0 })
    local ok, err = pcall(a.update, a, 0.5)
    assert.is_false(ok)
    assert.truthy(err:find("res://fx/nope.anim", 1, true))
  end)
end)

describe("library", function()
  local dir = H.tmpdir()
  os.execute("mkdir -p " .. dir .. "/root/sub && ln -s /etc " .. dir .. "/root/out")
  H.write(dir .. "/root/sub/a.anim", [[{"joints": {}}]])
  H.write(dir .. "/secret.anim", [[{"joints": {}}]])
  local lib = assert(anim.library(dir .. "/root"))

  it("loads a clip once and caches it", function()
    local c = assert(lib:clip("res://sub/a.anim"))
    assert.are.equal(c, lib:clip("res://sub/a.anim"))
  end)

  it("refuses paths that leave the root", function()
    local _, e1 = lib:clip("res://../secret.anim")
    assert.are.equal("res://../secret.anim: refused: the path leaves the library root", e1)
    local _, e2 = lib:clip("res:///etc/passwd")
    assert.are.equal("res:///etc/passwd: refused: the path must be relative to the library root", e2)
    local _, e3 = lib:clip("res://out/passwd")
    assert.are.equal("res://out/passwd: refused: the path leaves the library root (through a link)", e3)
    local _, e4 = lib:clip("sub/a.anim")
    -- (issue 37: with the path meant)
    assert.are.equal("sub/a.anim: not a res:// path (paths under the library's root are written res://...; did you mean 'res://sub/a.anim'?)", e4)
  end)

  it("names the res:// path in load errors", function()
    H.write(dir .. "/root/sub/bad.anim", [[{"joints": {"x": {"position": 3}}}]])
    local _, err = lib:clip("res://sub/bad.anim")
    assert.are.equal("res://sub/bad.anim: joints.x.position: position keys must be an array, got number", err)
  end)

  it("gives one object for two spellings of a path, and works with / as the root", function()
    assert.are.equal(lib:clip("res://sub/a.anim"), lib:clip("res://sub/./a.anim"))
    assert.are.equal(lib:clip("res://sub/a.anim"), lib:clip("res://sub//a.anim"))
    local rootlib = assert(anim.library("/"))
    local c = assert(rootlib:clip("res://" .. (dir .. "/root/sub/a.anim"):gsub("^/+", "")))
    assert.is_true(anim.is_clip(c))
  end)

  it("answers a path seen before from its cache, without looking at the disk again", function()
    H.write(dir .. "/root/sub/gone.anim", [[{"joints": {}}]])
    local c = assert(lib:clip("res://sub/gone.anim"))
    os.remove(dir .. "/root/sub/gone.anim")
    assert.are.equal(c, lib:clip("res://sub/gone.anim"))
  end)

  it("reports a root that does not exist", function()
    local l, err = anim.library(dir .. "/none")
    assert.is_nil(l)
    assert.truthy(err:find("cannot open library root", 1, true))
  end)
end)

describe("errors and changes in callbacks", function()
  it("an error in one callback lets the others run, then update raises it with a traceback", function()
    local a = anim.animator(rig)
    local ran = {}
    a:on_marker(function(_, n) ran[#ran + 1] = n; if n == "a" then error("boom") end end)
    a:on_marker(function(_, n) ran[#ran + 1] = "second " .. n end)
    local tr = a:play(clip { markers = MARKERS }, { fade = 0 })
    local ok, err = pcall(a.update, a, 0.5)
    assert.is_false(ok)
    assert.truthy(err:find("boom", 1, true))
    assert.truthy(err:find("stack traceback", 1, true))
    assert.are.same({ "a", "second a", "m", "second m" }, ran)
    -- the animator stays usable
    a:update(0.25)
    assert.are.equal(0.75, tr.time)
  end)

  it("callbacks may play, stop and adjust tracks; changes take effect from the next update", function()
    local a = anim.animator(rig)
    local other = clip { joints = { k = { position = { { 0, { 0, 5, 0 } } } } } }
    local tr = a:play(clip { markers = MARKERS }, { fade = 0 })
    local played
    a:on_marker(function(t, n)
      if n == "m" then
        played = a:play(other, { fade = 0 })
        t:stop(0)
        t:adjust_speed(3)
      end
    end)
    a:update(0.5)
    assert.is_true(tr.is_playing)
    assert.are.equal(0, (select(2, a:get("k"))))
    a:update(0.1)
    assert.is_false(tr.is_playing)
    assert.are.equal(5, (select(2, a:get("k"))))
    assert.is_true(played.is_playing)
  end)

  it("a callback may not update its own animator: that is an error, and the animator stays usable", function()
    local a = anim.animator(rig)
    local tr = a:play(clip { markers = MARKERS }, { fade = 0 })
    local conn
    conn = a:on_marker(function() conn:disconnect(); a:update(0.1) end)
    local ok, err = pcall(a.update, a, 0.25)
    assert.is_false(ok)
    assert.truthy(err:find("animator:update called from one of this animator's own callbacks", 1, true))
    a:update(0.25)
    assert.are.equal(0.5, tr.time)
  end)

  it("a callback may drop the animator", function()
    local a = anim.animator(rig)
    local ref = setmetatable({ a }, { __mode = "v" })
    a:on_marker(function() a = nil; collectgarbage() end)
    a:play(clip { markers = MARKERS }, { fade = 0 })
    ref[1]:update(0.6)
    collectgarbage()
    assert.is_nil(a)
  end)

  it("disconnect stops a callback, also during a delivery", function()
    local a = anim.animator(rig)
    local log = {}
    local c1
    c1 = a:on_marker(function(_, n) log[#log + 1] = "1" .. n; c1:disconnect() end)
    a:on_marker(function(_, n) log[#log + 1] = "2" .. n end)
    a:play(clip { markers = MARKERS }, { fade = 0 })
    a:update(0.6)
    assert.are.same({ "1a", "2a", "2m" }, log)
  end)

  it("the track passed to every callback is the value play returned", function()
    local a = anim.animator(rig)
    local tr = a:play(clip { markers = MARKERS, loop = "once" }, { fade = 0 })
    local seen = {}
    tr:on_marker("m", function(t) seen[#seen + 1] = t end)
    a:on_marker(function(t) seen[#seen + 1] = t end)
    tr:on_ended(function(t) seen[#seen + 1] = t end)
    a:update(2)
    assert.are.equal(5, #seen)
    for _, t in ipairs(seen) do assert.are.equal(tr, t) end
  end)
end)

describe("update arguments", function()
  it("dt must be finite and >= 0; a bad dt changes nothing", function()
    local a = anim.animator(rig)
    local tr = a:play(clip {}, { fade = 0 })
    a:update(0.25)
    for _, bad in ipairs { -1, 0 / 0, math.huge, "1" } do
      local ok, err = pcall(a.update, a, bad)
      assert.is_false(ok)
      assert.truthy(tostring(err):find("dt must be a finite number >= 0", 1, true))
    end
    assert.are.equal(0.25, tr.time)
  end)
end)

describe("lifetimes", function()
  it("a track keeps its clip alive; an animator keeps its tracks and callbacks alive", function()
    local weak = setmetatable({}, { __mode = "v" })
    local a = anim.animator(rig)
    do
      local c = clip { markers = MARKERS }
      weak.clip = c
      local fn = function() end
      weak.fn = fn
      a:on_marker(fn)
      weak.track = a:play(c)
    end
    collectgarbage(); collectgarbage()
    assert.is_not_nil(weak.clip)
    assert.is_not_nil(weak.fn)
    assert.is_not_nil(weak.track)
    a = nil -- luacheck: ignore
    collectgarbage(); collectgarbage()
    assert.is_nil(weak.clip)
    assert.is_nil(weak.fn)
    assert.is_nil(weak.track)
  end)
end)

describe("steady state", function()
  it("reading the pose and firing callbacks every frame allocates nothing", function()
    local a = anim.animator(anim.rig("player"))
    local walk = assert(anim.load(H.root .. "/examples/clips/walk.anim"))
    a:play(walk, { fade = 0 })
    local n = 0
    a:on_marker(function() n = n + 1 end)
    a:on_event(function() n = n + 1 end)
    local pose = {}
    for _ = 1, 200 do a:update(1 / 64); a:pose_into(pose) end -- warm up: caches, the queue
    collectgarbage(); collectgarbage()
    collectgarbage("stop")
    -- a full collection shrinks the Lua stack; the next delivery (pcall,
    -- callback) grows it back once -- Lua's, once per collection, not per
    -- frame: a few frames after it, then measure
    -- (H.without_jit: LuaJIT's compiler allocates in the Lua heap)
    local before, after = H.without_jit(function()
      for _ = 1, 64 do a:update(1 / 64); a:pose_into(pose) end
      local b = collectgarbage("count")
      for _ = 1, 5000 do
        a:update(1 / 64)
        a:pose_into(pose)
        local _ = a:get("rightLeg")
      end
      return b, collectgarbage("count")
    end)
    collectgarbage("restart")
    assert.is_true(n > 200)
    assert.are.equal(before, after)
  end)
end)

describe("long play", function()
  it("loops a clip a million times without drift: exact with dyadic dt", function()
    local a = anim.animator(rig)
    local tr = a:play(clip { length = 0.25 }, { fade = 0 })
    -- 2.5 + 1/128 per update: ten loops and 1/32 of one; 99700 updates make
    -- 1,000,116 loops.  All these numbers are dyadic, so the exact total and
    -- phase are computed exactly here.
    local dt, n = 2.5 + 1 / 128, 99700
    for _ = 1, n do a:update(dt) end
    local total = n * dt
    local loops = math.floor(total / 0.25)
    assert.is_true(loops >= 1000000)
    assert.are.equal(loops, tr.loops)
    assert.are.equal(total - loops * 0.25, tr.time)
  end)

  it("stays within 1e-9 s with dt = 1/60 over a million loops", function()
    local a = anim.animator(rig)
    local len = 1 / 6 -- ten frames a loop
    local tr = a:play(clip { length = len }, { fade = 0 })
    local dt = 1 / 60
    local n = 0
    -- 59 frames an update: 5.9 loops; 169492 updates ~ 1e6 loops
    for _ = 1, 169492 do a:update(59 * dt); n = n + 59 end
    local exact = (n % 10) / 60 -- exact phase: n frames of 1/60 in loops of 10 frames
    assert.is_true(tr.loops >= 999999)
    assert.is_true(math.abs(tr.time - exact) < 1e-9, "time " .. tr.time .. " exact " .. exact)
  end)
end)
