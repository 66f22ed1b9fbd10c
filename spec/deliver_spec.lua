-- Delivery from C (issues 24 and 36; csrc/lua/lua_deliver.c): the one loop
-- over the queue delivers every entry (markers, events, sounds, plays,
-- looped, stopped, ended, blend space items) and calls the Lua handlers of
-- runtime/deliver.lua for what only Lua can do.  Where no callback can
-- yield (the main thread) it calls each callback itself; inside a
-- coroutine ("the Lua side" below) each goes through the `call` handler,
-- in a coroutine of its own.  Both must call the same callbacks, in the
-- same order, with the same arguments, and raise the same first error.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local core = require "anim.core"
local hex = require("spec.scenes").hex -- (lossless on every runtime: 5.1 has no %a)

local rig = anim.rig("player")
local lib = assert(anim.library(H.root .. "/examples/clips")) -- (attack.anim plays spark.anim)

-- Six clips with markers (values of every kind), events, sounds, in every
-- loop mode, and the library's attack (it plays spark: a `plays` item).
local function pool()
  local list, loops = {}, { "loop", "once", "pingpong" }
  local values = { 1, "s", true, 2.5 }
  for i = 1, 6 do
    local markers = {}
    for k = 1, 3 do
      markers[k] = { time = (k * 0.29 + i * 0.07) % 1, name = "m" .. (k % 2 + 1), value = values[(i + k) % 4 + 1] }
    end
    list[i] = assert(anim.clip({ length = 1, loop = loops[i % 3 + 1],
      joints = { torso = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, 0, 0 } } } } },
      markers = markers,
      events = { { time = (0.5 + i * 0.11) % 1, name = "e" .. i, payload = { n = i } } },
      sounds = { { time = (0.3 + i * 0.13) % 1, sound = "s" .. i, volume = 0.5, pitch = 1.25 } } }, "c" .. i))
  end
  list[7] = assert(lib:clip("res://attack.anim"))
  return list
end

local function show(v)
  if type(v) == "table" then
    local keys = {}
    for k, x in pairs(v) do keys[#keys + 1] = tostring(k) .. "=" .. tostring(x) end
    table.sort(keys)
    return "{" .. table.concat(keys, ",") .. "}"
  end
  return type(v) .. ":" .. tostring(v)
end

-- n animators listening to everything, each callback logged with its
-- arguments (the track by its clip's name and start rank); some callbacks
-- fail, stop tracks or play more.
local function scene(seed, n, clips, log)
  math.randomseed(seed)
  local r = math.random
  local list, ranks, rank = {}, setmetatable({}, { __mode = "k" }), 0
  local function name(tr)
    if not ranks[tr] then rank = rank + 1; ranks[tr] = rank end
    return tr.clip.name .. "#" .. ranks[tr]
  end
  local function note(i, what, ...)
    local out = { i, what }
    for k = 1, select("#", ...) do
      local v = select(k, ...)
      if debug.getmetatable(v) == core.track_metatable then out[#out + 1] = name(v)
      elseif type(v) == "userdata" then out[#out + 1] = "clip " .. v.name
      elseif type(v) == "number" then out[#out + 1] = hex(v)
      else out[#out + 1] = show(v) end
    end
    log[#log + 1] = table.concat(out, " ")
  end
  for i = 1, n do
    local a = anim.animator(rig, { library = lib })
    local count = 0
    local conns = {}
    a:on_marker(function(tr, mname, value, late)
      note(i, "marker", tr, mname, value, late)
      count = count + 1
      if count % 7 == 0 then error("marker failed " .. i, 0) end
      if count % 5 == 0 then tr:stop(0.1) end
      if count % 11 == 0 then a:play(clips[1 + count % #clips], { fade = 0.05 }) end
      -- (the track's own marker callbacks change while its markers are delivered)
      if count % 3 == 0 then
        conns[#conns + 1] = tr:on_marker(mname, function(...) note(i, "late track marker", ...) end)
      elseif count % 4 == 0 and #conns > 0 then
        table.remove(conns, 1):disconnect()
      end
    end)
    a:on_event(function(...) note(i, "event", ...) end)
    a:on_sound(function(...) note(i, "sound", ...) end)
    a:on_play(function(...) note(i, "play", ...) end)
    for _ = 1, r(4) do
      local tr = a:play(clips[r(#clips)], { fade = r() * 0.2, speed = (r() - 0.3) * 2 })
      if r() < 0.6 then tr:on_marker("m" .. r(2), function(...) note(i, "track marker", ...) end) end
      if r() < 0.5 then tr:on_looped(function(...) note(i, "looped", ...) end) end
      if r() < 0.5 then tr:on_stopped(function(...) note(i, "stopped", ...) end) end
      if r() < 0.5 then tr:on_ended(function(...) note(i, "ended", ...) end) end
    end
    list[i] = a
  end
  return list
end

-- Updates each animator of the list from fn's thread; logs the first line of
-- each error raised.  Every 20 frames clips[1] is reloaded with its markers
-- moved and renamed (reload: a function of the frame).  batch: one
-- anim.update of the list a frame.
local function run(list, log, frames, inside, reload, batch)
  math.randomseed(99)
  for frame = 1, frames do
    if reload and frame % 20 == 0 then reload(frame) end
    local dt = ({ 1 / 60, 0.1, 1 / 30, 0.45 })[math.random(4)]
    if batch then
      local ok, err
      if inside then
        ok, err = select(2, coroutine.resume(coroutine.create(function() return pcall(anim.update, list, dt) end)))
      else
        ok, err = pcall(anim.update, list, dt)
      end
      if not ok then log[#log + 1] = "batch raised " .. tostring(err):match("^[^\n]*") end
    end
    for i, a in ipairs(batch and {} or list) do
      local ok, err
      if inside then
        local co = coroutine.create(function() return a:update(dt) end)
        ok, err = coroutine.resume(co)
      else
        ok, err = pcall(a.update, a, dt)
      end
      if not ok then log[#log + 1] = i .. " raised " .. tostring(err):match("^[^\n]*") end
    end
  end
end

-- A scene's logs, delivered from C (the main thread), then by the Lua side
-- (in coroutines): play(log, inside) runs it.
local function both(play)
  local log_c, log_lua = {}, {}
  play(log_c, false)
  play(log_lua, true)
  return log_c, log_lua
end

describe("delivery from C", function()
  it("is what the main thread's update does: nothing is left to the Lua side for markers, events, sounds, looped, stopped, ended", function()
    local c = assert(anim.clip { length = 1, loop = "loop", joints = {},
      markers = { { time = 0.05, name = "m" } }, events = { { time = 0.06, name = "e" } },
      sounds = { { time = 0.07, sound = "s" } } })
    local a = anim.animator(rig)
    local seen = {}
    a:on_marker(function(_, n) seen[#seen + 1] = n end)
    a:on_event(function(_, n) seen[#seen + 1] = n end)
    a:on_sound(function(_, s) seen[#seen + 1] = s end)
    local tr = a:play(c, { fade = 0 })
    tr:on_looped(function() seen[#seen + 1] = "looped" end)
    tr:on_stopped(function() seen[#seen + 1] = "stopped" end)
    -- (the core's update, called as animator:update calls it: 0 = all delivered)
    assert.are.equal(0, core.animator_update(a, 0.1))
    assert.are.equal(0, core.animator_update(a, 1.0))
    tr:stop(0.5)
    assert.are.equal(0, core.animator_update(a, 0.1))
    assert.are.same({ "m", "e", "s", "looped", "m", "e", "s", "stopped" }, seen)
    -- an ended track: its callbacks from C, then it leaves the live tracks
    -- and gives its slot back once the queue is delivered
    local ended = 0
    tr:on_ended(function(t, late)
      assert.are.equal(tr, t)
      assert.are.same({ tr }, a:tracks()) -- (still live while the queue is delivered)
      ended = ended + 1 + late
    end)
    assert.are.equal(0, core.animator_update(a, 1))
    assert.is_true(ended > 1, ended)
    assert.are.same({}, a:tracks())
    assert.are.equal(0, core.track_unslot(tr))
  end)

  it("calls the plays handler for a plays item, keeping the order: nothing is left to the Lua side", function()
    local a = anim.animator(rig, { library = lib })
    local seen = {}
    a:on_marker(function(_, n) seen[#seen + 1] = "marker " .. n end)
    a:on_sound(function(_, s) seen[#seen + 1] = "sound " .. s end)
    a:on_play(function(_, c) seen[#seen + 1] = "play " .. c.name end) -- (a library clip is named by its path)
    a:play(assert(lib:clip("res://attack.anim")), { fade = 0 })
    a:update(0.3)
    assert.are.equal(0, core.animator_update(a, 0.1)) -- (the plays item too)
    assert.are.same({ "marker windup", "sound swing", "marker hit", "sound impact", "play res://spark.anim" }, seen)
    assert.are.equal(2, #a:tracks())
  end)

  it("delivers a blend space's items and its end from C, as in a coroutine", function()
    local function ramp(name, markers)
      return assert(anim.clip({ length = 1, loop = "once", joints = { torso = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, 0, 0 } } } } },
        markers = markers, events = { { time = 0.4, name = name .. " event", payload = name } },
        sounds = { { time = 0.6, sound = name .. " sound" } } }, name))
    end
    local space = anim.blendspace { points = {
      { clip = ramp("p", { { time = 0.2, name = "step", value = "p" }, { time = 0.7, name = "land" } }), at = 0 },
      { clip = ramp("q", { { time = 0.3, name = "step", value = "q" } }), at = 1 } }, markers = "all" }  -- (both points fire)
    local logs = {}
    for _, inside in ipairs { false, true } do
      local a = anim.animator(rig)
      local log = {}
      local function note(...)
        local out = {}
        for k = 1, select("#", ...) do out[k] = show((select(k, ...))) end
        log[#log + 1] = table.concat(out, " ")
      end
      local tr = a:play(space, { at = 0.5, fade = 0 })
      a:on_marker(function(_, ...) note("all", ...) end)
      a:on_event(function(_, ...) note("event", ...) end)
      a:on_sound(function(_, ...) note("sound", ...) end)
      tr:on_marker("step", function(t, ...) note("step", t == tr, ...) end)
      tr:on_ended(function(t, ...) note("ended", t == tr, ...) end)
      for _ = 1, 3 do
        if inside then
          local co = coroutine.create(function() return core.animator_update(a, 0.45) end)
          local ok, n = coroutine.resume(co)
          assert.is_true(ok)
          assert.are.equal(0, n)
        else
          assert.are.equal(0, core.animator_update(a, 0.45))
        end
      end
      assert.are.same({}, a:tracks())
      logs[#logs + 1] = table.concat(log, "\n")
    end
    -- (whole lines: each item's callback ends with its point's clip)
    local P, Q = "userdata:" .. tostring(space.points[1].clip), "userdata:" .. tostring(space.points[2].clip)
    for _, want in ipairs { "all string:step string:p number:0.25 " .. P, "step boolean:true string:p number:0.25 " .. P,
                            "step boolean:true string:q number:0.15 " .. Q, "all string:step string:q number:0.15 " .. Q,
                            "event string:p event string:p number:0.05 " .. P, "sound string:q sound number:1 number:1 number:0.3 " .. Q,
                            "all string:land nil:nil number:0.2 " .. P, "ended boolean:true number:0.35" } do
      assert.truthy(("\n" .. logs[1] .. "\n"):find("\nstring:" .. want .. "\n", 1, true), want .. " in\n" .. logs[1])
    end
    assert.are.equal(logs[1], logs[2])
  end)

  for seed = 1, 8 do
    local batch = seed > 6
    it("calls what the Lua side calls, in the same order, raising the same errors (random scene " .. seed
      .. (batch and ", anim.update" or "") .. ")", function()
      local log_c, log_lua = both(function(log, inside)
        local clips = pool()
        local function reload(frame)
          local markers = {}
          for k = 1, 2 + frame % 3 do
            markers[k] = { time = (k * 0.17 + frame * 0.01) % 1, name = "m" .. (k + frame) % 3, value = frame + k }
          end
          assert(anim.reload(clips[1], { length = 1, loop = "loop",
            joints = { torso = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, 0, 0 } } } } }, markers = markers }))
        end
        run(scene(seed, 12, clips, log), log, 60, inside, reload, batch)
      end)
      assert.is_true(#log_c > 150, #log_c .. " entries")
      local raised = 0
      for _, line in ipairs(log_c) do if line:find(" raised ", 1, true) then raised = raised + 1 end end
      assert.is_true(raised > 0)
      for _, kind in ipairs { "marker", "track marker", "late track marker", "event", "sound", "play", "looped",
                              "stopped", "ended" } do
        assert.truthy(table.concat(log_c, "\n"):find("%d " .. kind .. " "), kind)
      end
      assert.are.same(log_lua, log_c)
    end)
  end

  -- The usual frame queues one marker for a track's callback: delivered
  -- without the loop over the queue (deliver_lone_marker), the same.
  describe("the lone marker of an update", function()
    -- n animators, each playing one or two clips with a marker every 1/8 s
    -- (values of every kind, nil too) and no callback of its own: each
    -- track connects one function to one name, which logs its arguments
    -- and sometimes fails, stops its track, disconnects itself or plays.
    local function lone_scene(seed, n, log)
      math.randomseed(seed)
      local r = math.random
      local values, loops, clips = { 1, "s", true, false, 2.5 }, { "loop", "once", "pingpong", "loop" }, {}
      for i = 1, 4 do
        local markers = {}
        for k = 1, 8 do
          markers[k] = { time = (k - 0.5) / 8 + i * 0.01, name = "m" .. (k % 2 + 1), value = values[(i + k) % 6 + 1] }
        end
        clips[i] = assert(anim.clip({ length = 1, loop = loops[i], joints = {}, markers = markers }, "lone" .. i))
      end
      local list = {}
      for i = 1, n do
        local a = anim.animator(rig)
        local count = 0
        for _ = 1, r(2) do
          local tr = a:play(clips[r(#clips)], { fade = 0, speed = (r() - 0.3) * 2 })
          local conn
          conn = tr:on_marker("m" .. r(2), function(t, v, late)
            count = count + 1
            log[#log + 1] = table.concat({ i, t.clip.name, show(v), hex(late) }, " ")
            if count % 7 == 0 then error("lone failed " .. i, 0) end
            if count % 5 == 0 then t:stop(0.1) end
            if count % 9 == 0 then conn:disconnect() end
            if count % 11 == 0 then a:play(clips[1 + count % #clips], { fade = 0 }) end
          end)
        end
        list[i] = a
      end
      return list
    end

    for seed = 1, 4 do
      local batch = seed > 2
      it("calls what the Lua side calls, with the same arguments and errors (random scene " .. seed
        .. (batch and ", anim.update" or "") .. ")", function()
        local log_c, log_lua = both(function(log, inside)
          run(lone_scene(seed, 16, log), log, 150, inside, nil, batch)
        end)
        assert.is_true(#log_c > 80, #log_c .. " entries")
        assert.truthy(table.concat(log_c, "\n"):find(" raised lone failed", 1, true))
        assert.are.same(log_lua, log_c)
      end)
    end

    it("is delivered from C: the track, the marker's value and how late, nothing left to the Lua side", function()
      local c = assert(anim.clip { length = 1, loop = "loop", joints = {},
        markers = { { time = 0.25, name = "step", value = "left" }, { time = 0.75, name = "step" } } })
      local a = anim.animator(rig)
      local tr = a:play(c, { fade = 0 })
      local seen = {}
      tr:on_marker("step", function(t, v, late) seen[#seen + 1] = { t == tr, v, late } end)
      assert.are.equal(0, core.animator_update(a, 0.3))
      assert.are.equal(0, core.animator_update(a, 0.5))
      assert.are.same({ { true, "left", 0.3 - 0.25 } }, { seen[1] })
      assert.are.same({ true, nil }, { seen[2][1], seen[2][2] })
      assert.is_true(math.abs(seen[2][3] - 0.05) < 1e-12, seen[2][3]) -- (0.5 - (0.75 - 0.3))
    end)

    it("a failing callback: its error with a traceback, the animator free for the next update", function()
      local c = assert(anim.clip { length = 1, loop = "loop", joints = {}, markers = { { time = 0.25, name = "step" } } })
      local a = anim.animator(rig)
      local tr = a:play(c, { fade = 0 })
      local calls = 0
      tr:on_marker("step", function() calls = calls + 1; error("stumbled") end)
      local n, st, from, err = core.animator_update(a, 0.3)
      assert.are.same({ 1, "table", 2 }, { n, type(st), from })
      assert.truthy(err:find("stumbled", 1, true))
      assert.truthy(err:find("stack traceback", 1, true))
      local ok, err2 = pcall(a.update, a, 1)
      assert.is_false(ok)
      assert.truthy(err2:find("stumbled", 1, true))
      assert.truthy(err2:find("stack traceback", 1, true))
      assert.are.equal(2, calls)
    end)
  end)

  -- What the delivery from C reads of a track's markers
  -- (runtime/dispatch.lua): the clip's marker table (user value 5) and the
  -- track's callbacks by marker (user value 4), kept up to date by every
  -- connection, disconnection and reload.
  describe("a track's marker tables", function()
    local function clip(markers) return assert(anim.clip { length = 1, loop = "loop", joints = {}, markers = markers }) end

    it("hold the names and values of its clip (false and nil too), one table per clip", function()
      local c = clip { { time = 0.1, name = "a", value = false }, { time = 0.2, name = "b" }, { time = 0.3, name = "a", value = 7 } }
      local a = anim.animator(rig)
      local t1, t2 = a:play(c), a:play(c)
      local m = core.track_uservalue(t1, 5)
      assert.are.same({ "a", false, "b", nil, "a", 7 }, { m[1], m[2], m[3], m[4], m[5], m[6] })
      assert.are.equal(m, core.track_uservalue(t2, 5))
      assert.is_nil(core.track_uservalue(a:play(clip {}), 5))
      local seen = {}
      t1:on_marker("a", function(_, v, late) seen[#seen + 1] = tostring(v) .. " " .. late end)
      t1:on_marker("b", function(_, v) seen[#seen + 1] = "b " .. tostring(v) end)
      assert.are.equal(0, core.animator_update(a, 0.25)) -- (all from C)
      assert.are.same({ "false 0.15", "b nil" }, seen)
    end)

    it("share one table of callbacks by marker between tracks that connect one function to one name", function()
      local c = clip { { time = 0.1, name = "step" } }
      local a = anim.animator(rig)
      local n = 0
      local function step() n = n + 1 end
      local t1, t2, t3 = a:play(c), a:play(c), a:play(c)
      assert.is_nil(core.track_uservalue(t1, 4))
      local c1 = t1:on_marker("step", step)
      t2:on_marker("step", step)
      t3:on_marker("step", function() n = n + 100 end)
      assert.are.equal(core.track_uservalue(t1, 4), core.track_uservalue(t2, 4))
      assert.are_not.equal(core.track_uservalue(t1, 4), core.track_uservalue(t3, 4))
      a:update(0.2)
      assert.are.equal(102, n)
      c1:disconnect()
      assert.is_nil(core.track_uservalue(t1, 4))
      assert.are.equal(step, core.track_uservalue(t2, 4)[1]) -- (replaced, never changed in place)
      a:update(1)
      assert.are.equal(203, n)
    end)

    it("follow connections and disconnections made by a callback in the same update", function()
      local c = clip { { time = 0.1, name = "x" }, { time = 0.2, name = "y" }, { time = 0.3, name = "x" } }
      local a = anim.animator(rig)
      local tr = a:play(c, { fade = 0 })
      local seen, conn = {}, nil
      tr:on_marker("x", function(_, _, late)
        seen[#seen + 1] = "x1"
        if not conn then
          conn = tr:on_marker("y", function() seen[#seen + 1] = "y" end)
          tr:on_marker("x", function() seen[#seen + 1] = "x2" end)
        else
          conn:disconnect()
        end
        assert(late >= 0)
      end)
      assert.are.equal(0, core.animator_update(a, 0.35))
      -- the first x connects y and a second x (not called for this x: its
      -- list was read before), the second x sees both and disconnects y
      assert.are.same({ "x1", "y", "x1", "x2" }, seen)
      seen = {}
      a:update(1)
      assert.are.same({ "x1", "x2", "x1", "x2" }, seen)
    end)

    it("follow a reload of the clip: the new names and values", function()
      local c = clip { { time = 0.1, name = "old", value = 1 } }
      local a = anim.animator(rig)
      local tr = a:play(c, { fade = 0 })
      local seen = {}
      tr:on_marker("new", function(_, v) seen[#seen + 1] = "new " .. v end)
      tr:on_marker("old", function(_, v) seen[#seen + 1] = "old " .. v end)
      a:on_marker(function(_, name, v) seen[#seen + 1] = "all " .. name .. " " .. v end)
      a:update(0.2)
      assert(anim.reload(c, { length = 1, loop = "loop", joints = {},
        markers = { { time = 0.5, name = "new", value = 2 }, { time = 0.6, name = "old", value = 3 } } }))
      assert.are.equal(core.clip_info(c).markers[1].name, core.track_uservalue(tr, 5)[1])
      a:update(0.5)
      assert.are.same({ "old 1", "all old 1", "new 2", "all new 2", "old 3", "all old 3" }, seen)
    end)

    it("keep callbacks by marker up to a bound: past it C reads the markers from the clip's info, the same", function()
      local markers = {}
      for k = 1, 4097 do markers[k] = { time = (k - 1) / 4097, name = k % 2 == 0 and "even" or "odd", value = k } end
      local c = clip(markers)
      local a = anim.animator(rig)
      local tr = a:play(c, { fade = 0 })
      local seen = 0
      tr:on_marker("odd", function(_, v) seen = seen + v end) -- (2,049 markers: kept)
      assert.are.equal("table", type(core.track_uservalue(tr, 4)))
      assert.are.equal(0, core.animator_update(a, 0.001)) -- (from C)
      local got = {}
      tr:on_marker("even", function(_, v) got[#got + 1] = -v end) -- (4,097: not)
      tr:on_marker("odd", function(_, v) got[#got + 1] = v end)
      assert.is_false(core.track_uservalue(tr, 4))
      -- (from C, through the clip's info: ... -k, k + 1, -(k + 2) ... over
      -- the markers it crosses)
      seen = 0
      assert.are.equal(0, core.animator_update(a, 0.01))
      assert.is_true(#got > 30, #got .. " calls")
      local k = math.abs(got[1])
      for i = 1, #got do
        assert.are.equal(k % 2 == 0 and -k or k, got[i])
        k = k + 1
      end
      assert.is_true(seen > 0) -- (the odd ones' first callback too)
    end)

    it("a track without its marker table has its markers read from its clip's info, the same", function()
      -- (the animator's callbacks need the name, which only the marker
      -- table has; the track's own keep the value beside them)
      local c = clip { { time = 0.1, name = "m", value = "v" } }
      local a = anim.animator(rig)
      local tr = a:play(c, { fade = 0 })
      local seen = {}
      a:on_marker(function(_, name, v, late) seen[#seen + 1] = name .. " " .. v .. " " .. late end)
      core.track_set_dispatch(tr, 5, nil)
      assert.are.equal(0, core.animator_update(a, 0.25)) -- (from C, through the clip's info)
      assert.are.same({ "m v 0.15" }, seen)
      a:update(1) -- (the marker of the next loop)
      assert.are.same({ "m v 0.15", "m v 0.15" }, seen)
    end)
  end)

  -- The slot table (csrc/lua/lua_deliver.c): a live clip track's entries
  -- are found through its slot; a track that leaves (ended, finalized, its
  -- animator collected or restored) gives its slot back.
  describe("slots", function()
    local slots = debug.getregistry()["anim.slots"]
    local c = assert(anim.clip { length = 1, loop = "loop", joints = {},
      markers = { { time = 0.1, name = "a" }, { time = 0.2, name = "b" }, { time = 0.3, name = "a" } } })

    it("a callback that finalizes its track and plays another in its slot: the old track's entries are passed over", function()
      local logs = {}
      for _, inside in ipairs { false, true } do
        local a = anim.animator(rig)
        local log, played = {}, nil
        local tr = a:play(c, { fade = 0 })
        tr:on_marker("a", function(t)
          log[#log + 1] = t == tr and "a of the first" or "a of the second"
          if t == tr then
            debug.getmetatable(tr).__gc(tr) -- (by hand: it leaves its slot)
            played = a:play(c, { fade = 0 })
            played:on_marker("a", function() log[#log + 1] = "a of the new" end)
          end
        end)
        tr:on_marker("b", function() log[#log + 1] = "b of the first" end)
        if inside then assert(coroutine.resume(coroutine.create(function() a:update(0.35) end)))
        else a:update(0.35) end
        a:update(0.15) -- (the new track: its a at 0.1)
        logs[#logs + 1] = table.concat(log, ", ")
      end
      assert.are.equal("a of the first, a of the new", logs[1])
      assert.are.equal(logs[2], logs[1]) -- (the Lua side's delivery)
    end)

    it("anim.update: a callback that finalizes another animator's track and plays in its slot: that entry is passed over", function()
      local c1 = assert(anim.clip { length = 1, loop = "loop", joints = {}, markers = { { time = 0.1, name = "a" } } })
      local logs = {}
      for _, inside in ipairs { false, true } do
        local a, b = anim.animator(rig), anim.animator(rig)
        local log = {}
        local ta, tb = a:play(c1, { fade = 0 }), b:play(c1, { fade = 0 })
        ta:on_marker("a", function()
          log[#log + 1] = "a of a"
          debug.getmetatable(tb).__gc(tb) -- (by hand: it leaves its slot, which the next track takes)
          b:play(c1, { fade = 0 }):on_marker("a", function() log[#log + 1] = "a of b's new" end)
        end)
        tb:on_marker("a", function() log[#log + 1] = "a of b's first" end)
        if inside then assert(coroutine.resume(coroutine.create(function() anim.update({ a, b }, 0.15) end)))
        else anim.update({ a, b }, 0.15) end
        anim.update({ a, b }, 0.15) -- (b's new track: its a at 0.1)
        logs[#logs + 1] = table.concat(log, ", ")
      end
      assert.are.equal("a of a, a of b's new", logs[1])
      assert.are.equal(logs[2], logs[1]) -- (the Lua side's delivery)
    end)

    it("are given back: tracks that end, animators collected, restored, finalized by hand", function()
      collectgarbage("collect")
      local before = slots[0]
      for round = 1, 50 do
        local a = anim.animator(rig)
        local once = assert(anim.clip { length = 0.05, loop = "once", joints = {} })
        for _ = 1, 4 do a:play(once, { fade = 0 }) end
        local kept = a:play(c, { fade = 0 })
        a:update(0.1) -- (the once tracks end)
        if round % 3 == 0 then debug.getmetatable(kept).__gc(kept) end
        if round % 5 == 0 then assert(a:restore(a:state(), function() return c end)) end
        a = nil -- luacheck: ignore 311
        collectgarbage("collect")
        collectgarbage("collect")
      end
      assert.is_true(slots[0] - before <= 6, (slots[0] - before) .. " slots made for 250 tracks")
    end)

    it("a track that ends gives its slot back at once (the script may keep it)", function()
      local a = anim.animator(rig)
      local once = assert(anim.clip { length = 0.05, loop = "once", joints = {} })
      local kept, before = {}, slots[0]
      for _ = 1, 100 do
        kept[#kept + 1] = a:play(once, { fade = 0 })
        a:update(0.1)
      end
      assert.is_true(slots[0] - before <= 1, (slots[0] - before) .. " slots made for 100 tracks")
    end)
  end)

  it("refuses a reload from a callback it delivers, and its animator's own update", function()
    local clip = assert(anim.clip { length = 1, joints = {}, markers = { { time = 0, name = "go" } } })
    local a = anim.animator(rig)
    local errs = {}
    a:on_marker(function()
      errs[1] = select(2, pcall(anim.reload, clip, { joints = {} }))
      errs[2] = select(2, pcall(a.update, a, 0.1))
    end)
    a:play(clip)
    assert.are.equal(0, core.animator_update(a, 0.1)) -- (delivered from C)
    assert.truthy(errs[1]:find("a clip cannot be reloaded while an update delivers its callbacks", 1, true), errs[1])
    assert.truthy(errs[2]:find("called from one of this animator's own callbacks", 1, true), errs[2])
    assert.are.equal(0, core.delivering())
    assert(anim.reload(clip, { length = 2, joints = {} }))
  end)

  it("refuses them from a track's callback of the lone marker of an update too, through anim.update as well", function()
    local clip = assert(anim.clip { length = 1, joints = {}, markers = { { time = 0, name = "go" } } })
    for _, batch in ipairs { false, true } do
      local a = anim.animator(rig)
      local errs = {}
      a:play(clip):on_marker("go", function()
        errs[1] = select(2, pcall(anim.reload, clip, { joints = {} }))
        errs[2] = select(2, pcall(a.update, a, 0.1))
        errs[3] = core.delivering()
      end)
      if batch then anim.update({ a }, 0.1)
      else assert.are.equal(0, core.animator_update(a, 0.1)) end -- (delivered from C)
      assert.truthy(errs[1]:find("a clip cannot be reloaded while an update delivers its callbacks", 1, true), errs[1])
      assert.truthy(errs[2]:find("called from one of this animator's own callbacks", 1, true), errs[2])
      assert.are.equal(1, errs[3])
      assert.are.equal(0, core.delivering())
    end
    assert(anim.reload(clip, { length = 2, joints = {} }))
  end)

  it("refuses a reload from a callback the Lua side delivers (in a coroutine) too", function()
    local clip = assert(anim.clip { length = 1, joints = {}, markers = { { time = 0, name = "go" } } })
    local a = anim.animator(rig)
    local err, during
    a:on_marker(function()
      during = core.delivering()
      err = select(2, pcall(anim.reload, clip, { joints = {} }))
    end)
    a:play(clip)
    assert(coroutine.resume(coroutine.create(function() a:update(0.1) end)))
    assert.are.equal(1, during)
    assert.truthy(err:find("a clip cannot be reloaded while an update delivers its callbacks", 1, true), err)
    assert.are.equal(0, core.delivering())
  end)

  it("a callback that finalizes its animator: the Lua side raises for the entries after it", function()
    local c = assert(anim.clip { length = 1, joints = {}, markers = { { time = 0.01, name = "a" }, { time = 0.02, name = "b" } } })
    local a = anim.animator(rig)
    local seen = {}
    a:on_marker(function(_, n)
      seen[#seen + 1] = n
      debug.getmetatable(a).__gc(a)
    end)
    a:play(c, { fade = 0 })
    local ok, err = pcall(a.update, a, 0.1)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("anim.animator used after it was finalized", 1, true), err)
    assert.are.same({ "a" }, seen)
    assert.are.equal(0, core.delivering())
  end)
end)
