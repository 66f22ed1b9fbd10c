-- Which points of a blend space fire their items (issue 37, item 3):
-- anim.blendspace{ markers = "dominant" | "all" | "none" }.  "dominant"
-- (the default): the point of the greatest weight in the update, the
-- lower index at a tie; in a synced space each stretch of phase an update
-- crosses fires the items of the point dominant then, once per pass, also
-- when the dominant changes between updates mid-cycle.  "all": every
-- point with a weight.  "none": no point (the track's own looped, stopped,
-- ended still do).  Markers, events, sounds and plays alike; the mode is
-- saved with the space in animator:state().
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"

local rig = assert(anim.rig { joints = { { name = "j" }, { name = "head" } } })
local lib = assert(anim.library(H.root .. "/examples/clips")) -- (spark.anim: what a `plays` item starts)

-- A looping clip of length len whose x position goes 0 to 1 over it, with
-- markers { { time, name [, value] }, ... } and other fields.
local function clip(name, len, markers, extra)
  local t = {
    length = len, loop = "loop",
    joints = { j = { position = { { 0, { 0, 0, 0 } }, { len, { 1, 0, 0 } } } } },
    markers = {},
  }
  for i, m in ipairs(markers or {}) do t.markers[i] = { time = m[1], name = m[2], value = m[3] } end
  for k, v in pairs(extra or {}) do t[k] = v end
  return assert(anim.clip(t, name))
end

-- Every marker as "name@late" (late to 1e-9), in order.
local function recorder(a)
  local log = {}
  a:on_marker(function(_, name, _, late) log[#log + 1] = string.format("%s@%.9f", name, late) end)
  return log
end
local function since(log, n) return table.concat(log, " ", n + 1) end

-- The issue's walk and run: a step at each foot.
local walk = clip("walk", 1.2, { { 0.3, "step", "walk" }, { 0.9, "step", "walk" } })
local run = clip("run", 0.6, { { 0.15, "step", "run" }, { 0.45, "step", "run" } })
local function walkrun(markers)
  return anim.blendspace { points = { { clip = walk, at = 0 }, { clip = run, at = 4 } }, markers = markers }
end

-- The footsteps of 10 s of updates at 60 per second at parameter `at`.
local function footsteps(space, at)
  local a = anim.animator(rig)
  local n = 0
  a:on_marker(function(_, name) if name == "step" then n = n + 1 end end)
  a:play(space, { at = at, fade = 0 })
  for _ = 1, 600 do a:update(1 / 60) end
  return n
end

describe("a blend space's markers mode", function()
  it("dominant (the default): as many footsteps at 3.9 as at 4.0; all: twice as many at 3.9; none: none", function()
    local dominant = walkrun(nil)
    assert.are.equal("dominant", dominant.markers)
    -- (run's cycle: 0.6 s at 4.0, 0.615 s at 3.9; a step each half)
    assert.are.equal(33, footsteps(dominant, 4.0))
    assert.are.equal(33, footsteps(dominant, 3.9))
    assert.are.equal(33, footsteps(walkrun("dominant"), 3.9))
    local all = walkrun("all")
    assert.are.equal("all", all.markers)
    assert.are.equal(33, footsteps(all, 4.0))
    assert.are.equal(66, footsteps(all, 3.9))
    local none = walkrun("none")
    assert.are.equal("none", none.markers)
    assert.are.equal(0, footsteps(none, 3.9))
    assert.are.equal(0, footsteps(none, 4.0))
  end)

  it("dominant: a tie goes to the lower point index", function()
    local a = clip("a", 1, { { 0.25, "a" } })
    local b = clip("b", 1, { { 0.25, "b" } })
    local c = clip("c", 1, { { 0.25, "c" } })
    -- the markers of 1 s of a space of these points at parameter `at`
    local function fired(points, at)
      local an = anim.animator(rig)
      local log = recorder(an)
      an:play(anim.blendspace { points = points }, { at = at, fade = 0 })
      an:update(1)
      return since(log, 0)
    end
    -- a and b at 0.5 each: a
    assert.are.equal("a@0.750000000", fired({ { clip = a, at = 0 }, { clip = b, at = 1 } }, 0.5))
    -- points given out of order on the line: b (point 2) and c (point 3)
    -- tie at 1.5, a (point 1, at 3) weighs nothing: b
    local unordered = { { clip = a, at = 3 }, { clip = b, at = 1 }, { clip = c, at = 2 } }
    assert.are.equal("b@0.750000000", fired(unordered, 1.5))
    -- and the greater weight wins whatever its index
    assert.are.equal("c@0.750000000", fired(unordered, 1.75))
    assert.are.equal("a@0.750000000", fired(unordered, 2.75))
  end)

  it("dominant, synced: a dominant changed between updates takes over at the phase reached", function()
    -- both 1 s long (the cycle stays 1 s): a's items at 0.25, 0.5, 0.75,
    -- b's at 0.3, 0.5, 0.8
    local a = clip("a", 1, { { 0.25, "a.25" }, { 0.5, "a.5" }, { 0.75, "a.75" } })
    local b = clip("b", 1, { { 0.3, "b.3" }, { 0.5, "b.5" }, { 0.8, "b.8" } })
    local an = anim.animator(rig)
    local log = recorder(an)
    local tr = an:play(anim.blendspace { points = { { clip = a, at = 0 }, { clip = b, at = 1 } } }, { at = 0.4, fade = 0 })
    an:update(0.5) -- a dominant, phase 0 to 0.5: a.25, a.5 (its end included)
    assert.are.equal("a.25@0.250000000 a.5@0.000000000", since(log, 0))
    tr.at = 0.6
    an:update(0.5) -- b dominant, 0.5 to 1: b.5 at the phase already crossed does not fire again, b.8 does
    assert.are.equal("a.25@0.250000000 a.5@0.000000000 b.8@0.200000000", since(log, 0))
    tr.at = 0.4
    an:update(0.3) -- a again, 0 to 0.3 of the next cycle
    assert.are.equal("a.25@0.250000000 a.5@0.000000000 b.8@0.200000000 a.25@0.050000000", since(log, 0))
    -- with the dominant flipped at every update of 0.05 s, for 3 cycles:
    -- each item pair (c's at 0.12, d's at 0.13, ...) falls in one update,
    -- whose dominant alone fires its own
    local c = clip("c", 1, { { 0.12, "c" }, { 0.37, "c" }, { 0.62, "c" }, { 0.87, "c" } })
    local d = clip("d", 1, { { 0.13, "d" }, { 0.38, "d" }, { 0.63, "d" }, { 0.88, "d" } })
    an = anim.animator(rig)
    tr = an:play(anim.blendspace { points = { { clip = c, at = 0 }, { clip = d, at = 1 } } }, { at = 0.4, fade = 0 })
    local names = {}
    an:on_marker(function(_, name) names[#names + 1] = name .. (tr.at < 0.5 and " (c dominant)" or " (d dominant)") end)
    for k = 1, 60 do
      tr.at = k % 2 == 0 and 0.4 or 0.6
      an:update(0.05)
    end
    assert.are.equal(12, #names)
    for _, n in ipairs(names) do assert.truthy(n == "c (c dominant)" or n == "d (d dominant)", n) end
  end)

  it("dominant, not synced: each point keeps its own clock, the dominant's items fire", function()
    local a = clip("a", 0.5, { { 0, "a0" }, { 0.25, "a.25" }, { 0.375, "a.375" } })
    local b = clip("b", 1.5, { { 0, "b0" }, { 0.75, "b.75" }, { 1.2, "b1.2" } })
    local an = anim.animator(rig)
    local log = recorder(an)
    local tr = an:play(anim.blendspace { points = { { clip = a, at = 0 }, { clip = b, at = 1 } }, sync = false },
      { at = 0.25, fade = 0 })
    an:update(0.45) -- a: 0 to 0.45 (b's clock to 0.45 too, silent)
    assert.are.equal("a0@0.450000000 a.25@0.200000000 a.375@0.075000000", since(log, 0))
    tr.at = 0.75
    an:update(0.35) -- b: 0.45 to 0.8 (b.75); a wraps unheard
    assert.are.equal("a0@0.450000000 a.25@0.200000000 a.375@0.075000000 b.75@0.050000000", since(log, 0))
  end)

  it("governs events, sounds and plays too; none leaves the track's own callbacks", function()
    local function items(name)
      return clip(name, 1, { { 0.1, name } }, {
        events = { { time = 0.2, name = name .. " event", payload = name } },
        sounds = { { time = 0.3, sound = name .. " sound" } },
        plays = { { time = 0.4, clip = "res://spark.anim", fade = 0 } },
      })
    end
    local p, q = items("p"), items("q")
    local got = {}
    for _, mode in ipairs { "dominant", "all", "none" } do
      local an = anim.animator(rig, { library = lib })
      local log = {}
      local function note(what) return function(_, x) log[#log + 1] = what .. " " .. tostring(x) end end
      an:on_marker(note("marker"))
      an:on_event(note("event"))
      an:on_sound(note("sound"))
      an:on_play(function(_, c) log[#log + 1] = "play " .. c.name end)
      local tr = an:play(anim.blendspace { points = { { clip = p, at = 0 }, { clip = q, at = 1 } }, markers = mode },
        { at = 0.7, fade = 0 })
      tr:on_looped(function() log[#log + 1] = "looped" end)
      tr:on_stopped(function() log[#log + 1] = "stopped" end)
      tr:on_ended(function() log[#log + 1] = "ended" end)
      an:update(1)
      tr:stop(0)
      an:update(0.1)
      got[mode] = table.concat(log, ", ")
    end
    assert.are.equal("marker q, event q event, sound q sound, play res://spark.anim, looped, stopped, ended", got.dominant)
    assert.are.equal("marker p, marker q, event p event, event q event, sound p sound, sound q sound, "
      .. "play res://spark.anim, play res://spark.anim, looped, stopped, ended", got.all)
    assert.are.equal("looped, stopped, ended", got.none)
  end)

  it("is saved with the space: a restored animator fires as the saved one", function()
    local function resolve(name) return name == "walk" and walk or run end
    for _, mode in ipairs { "dominant", "all", "none" } do
      local a = anim.animator(rig)
      a:play(walkrun(mode), { at = 2, fade = 0 })
      a:update(0.2)
      local state = a:state()
      assert.are.equal(mode, state.tracks[1].space.markers)
      local b = anim.animator(rig)
      assert(b:restore(state, resolve))
      assert.are.equal(mode, b:tracks()[1].clip.markers)
      local la, lb = recorder(a), recorder(b)
      for _ = 1, 40 do a:update(0.05); b:update(0.05) end
      assert.are.equal(since(la, 0), since(lb, 0))
      -- (a cycle of 0.9 s, walk's and run's steps at one phase: 5 steps in 0.2 to 2.2 s)
      assert.are.equal(mode == "none" and 0 or mode == "all" and 10 or 5, #la)
    end
    -- a state written before the option: its spaces fired every point's items
    local a = anim.animator(rig)
    a:play(walkrun("all"), { at = 2, fade = 0 })
    local state = a:state()
    state.tracks[1].space.markers = nil
    local b = anim.animator(rig)
    assert(b:restore(state, resolve))
    assert.are.equal("all", b:tracks()[1].clip.markers)
    state.tracks[1].space.markers = "alll"
    local ok, err = b:restore(state, resolve)
    assert.is_nil(ok)
    assert.are.equal("state.tracks[1].space.markers: must be one of dominant, all, none, got 'alll'", err)
    state.tracks[1].space.markers = true
    ok, err = b:restore(state, resolve)
    assert.is_nil(ok)
    assert.are.equal("state.tracks[1].space.markers: must be one of dominant, all, none, got boolean", err)
  end)

  it("names a bad value", function()
    local function err(markers)
      local ok, e = pcall(anim.blendspace, { points = { { clip = walk, at = 0 } }, markers = markers })
      assert.is_false(ok)
      return e
    end
    assert.are.equal("bad argument #1 to 'blendspace' (unknown markers mode 'dominnat'; did you mean 'dominant'?"
      .. " (the modes: dominant, all, none))", err("dominnat"))
    assert.are.equal("bad argument #1 to 'blendspace' (unknown markers mode 'ALL'; did you mean 'all'?"
      .. " (the modes: dominant, all, none))", err("ALL"))
    assert.are.equal("bad argument #1 to 'blendspace' (unknown markers mode 'loudest' (the modes: dominant, all, none))",
      err("loudest"))
    assert.are.equal("bad argument #1 to 'blendspace' (markers must be a mode name, got boolean (the modes: dominant, all, none))",
      err(true))
    assert.are.equal("bad argument #1 to 'blendspace' (markers must be a mode name, got number (the modes: dominant, all, none))",
      err(1))
    assert.truthy(err("x\0y"):find("unknown markers mode 'x\\000y' (the modes", 1, true))
    -- the space is read-only
    assert.has_error(function() walkrun().markers = "all" end, "blend spaces are read-only (cannot set 'markers')")
  end)
end)

describe("the clip of an item's callback", function()
  -- A clip of 1 s with one item of each kind: marker m at 0.1, event e
  -- at 0.2, sound s at 0.3, a `plays` item at 0.4.
  local function items(name)
    return clip(name, 1, { { 0.1, "m", name } }, {
      events = { { time = 0.2, name = "e", payload = name } },
      sounds = { { time = 0.3, sound = "s", volume = 0.5, pitch = 2 } },
      plays = { { time = 0.4, clip = "res://spark.anim", fade = 0 } },
    })
  end
  local p, q = items("p"), items("q")

  -- Every callback of the animator and of `tr`'s marker m, logged with all
  -- its arguments (a track as "track", a clip by name, a number to 1e-9).
  local function listen(an, log, tr)
    local function note(what)
      return function(...)
        local out = { what }
        for k = 1, select("#", ...) do
          local v = select(k, ...)
          if anim.is_clip(v) then v = "clip " .. v.name
          elseif type(v) == "number" then v = string.format("%.9g", v)
          elseif type(v) == "userdata" then v = "track" end
          out[#out + 1] = tostring(v)
        end
        log[#log + 1] = table.concat(out, " ")
      end
    end
    an:on_marker(note("marker"))
    an:on_event(note("event"))
    an:on_sound(note("sound"))
    an:on_play(note("play"))
    if tr then tr:on_marker("m", note("track marker")) end
  end

  local function played(what, opts, update)
    local an = anim.animator(rig, { library = lib })
    local log = {}
    local tr = an:play(what, opts)
    listen(an, log, tr)
    ;(update or an.update)(an, 0.5)
    return table.concat(log, "\n")
  end

  local PLAIN = table.concat({
    "track marker track p 0.4 clip p", "marker track m p 0.4 clip p", "event track e p 0.3 clip p",
    "sound track s 0.5 2 0.2 clip p", "play track clip res://spark.anim 0.1 clip p" }, "\n")

  it("is the track's clip after `late` for a clip's track, from every callback", function()
    assert.are.equal(PLAIN, played(p, { fade = 0 }))
  end)

  it("is the same where the update could yield (each callback in a coroutine of its own) and in anim.update", function()
    assert.are.equal(PLAIN, played(p, { fade = 0 }, function(an, dt)
      local co = coroutine.wrap(function() an:update(dt) end)
      co()
    end))
    assert.are.equal(PLAIN, played(p, { fade = 0 }, function(an, dt) anim.update({ an }, dt) end))
  end)

  it("reaches track:on_marker alone (the usual update's one marker)", function()
    local an = anim.animator(rig)
    local c = clip("c", 1, { { 0.1, "m", "c" } })
    local tr = an:play(c, { fade = 0 })
    local got
    tr:on_marker("m", function(...) got = table.pack(...) end)
    an:update(0.5)
    assert.are.equal(4, got.n)
    assert.are.equal(tr, got[1])
    assert.are.equal("c", got[2])
    assert.is_true(math.abs(got[3] - 0.4) < 1e-9)
    assert.are.equal(c, got[4])
  end)

  it("reaches the callbacks of a clip of very many markers (read from its info)", function()
    local many = {}
    for k = 1, 5000 do many[k] = { k / 5001, "m", k } end
    local big = clip("big", 1, many)
    local an = anim.animator(rig)
    local tr = an:play(big, { fade = 0 })
    local n, bad = 0, nil
    tr:on_marker("m", function(t, _, _, c) n = n + 1; if t ~= tr or c ~= big then bad = tostring(c) end end)
    an:on_marker(function(t, _, _, _, c) n = n + 1; if t ~= tr or c ~= big then bad = tostring(c) end end)
    an:update(0.01)
    assert.is_nil(bad)
    assert.are.equal(100, n)
  end)

  it("is the point's clip for a blend space's items, with each markers mode", function()
    local function space(markers)
      return anim.blendspace { points = { { clip = p, at = 0 }, { clip = q, at = 1 } }, markers = markers }
    end
    local Q = table.concat({
      "track marker track q 0.4 clip q", "marker track m q 0.4 clip q", "event track e q 0.3 clip q",
      "sound track s 0.5 2 0.2 clip q", "play track clip res://spark.anim 0.1 clip q" }, "\n")
    assert.are.equal(Q, played(space(), { at = 0.75, fade = 0 }))
    assert.are.equal(PLAIN, played(space(), { at = 0.25, fade = 0 }))
    assert.are.equal(table.concat({
      "track marker track p 0.4 clip p", "marker track m p 0.4 clip p",
      "track marker track q 0.4 clip q", "marker track m q 0.4 clip q",
      "event track e p 0.3 clip p", "event track e q 0.3 clip q",
      "sound track s 0.5 2 0.2 clip p", "sound track s 0.5 2 0.2 clip q",
      "play track clip res://spark.anim 0.1 clip p", "play track clip res://spark.anim 0.1 clip q" }, "\n"),
      played(space("all"), { at = 0.75, fade = 0 }))
  end)

  it("of on_play is the clip that held the `plays` item; the track is the one started or restarted", function()
    local an = anim.animator(rig, { library = lib })
    local got = {}
    an:on_play(function(...) got[#got + 1] = table.pack(...) end)
    an:play(p, { fade = 0 })
    an:update(0.5)
    local spark = assert(lib:clip("res://spark.anim"))
    assert.are.equal(1, #got)
    assert.are.equal(4, got[1].n)
    assert.are.equal(spark, got[1][2])
    assert.are.equal(spark, got[1][1].clip)
    assert.are.equal(p, got[1][4])
    -- spark (0.2 s, once) restarted by r's item at 0.05 while it plays: from is r
    local r = clip("r", 1, nil, { plays = { { time = 0.05, clip = "res://spark.anim", fade = 0 } } })
    an:play(r, { fade = 0 })
    an:update(0.1)
    assert.are.equal(2, #got)
    assert.are.equal(got[1][1], got[2][1])
    assert.are.equal(r, got[2][4])
  end)
end)
