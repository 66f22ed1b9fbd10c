-- anim.update(animators, dt): the batch update.  It is animator:update(dt)
-- on each animator of the list in order, except that the callbacks are
-- delivered after all are updated (animator by animator, in list order);
-- bad arguments change nothing; a frame allocates nothing.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local compat = require "anim.base.compat"

local rig = anim.rig("player")
local lib = assert(anim.library(H.root .. "/examples/clips"))

local function clip(t, name)
  t.length = t.length or 1
  t.loop = t.loop or "loop"
  return assert(anim.clip(t, name))
end

-- Clips of every kind the blend and the clock treat apart: slerped and
-- Euler rotations, positions, scales, joint weights, priorities, additive,
-- pingpong and once, markers, events, sounds and plays (through lib).
local CLIPS = {
  clip({ joints = {
    rightArm = { rotation = { { 0, { 0, 0, 0, 1 } }, { 0.5, { 0.3826834, 0, 0, 0.9238795 } }, { 1, { 0, 0, 0, 1 } } } },
    torso = { position = { { 0, { 0, 0, 0 } }, { 0.7, { 0, 0.2, 0.1 } }, { 1, { 0, 0, 0 } } } } },
    markers = { { time = 0.2, name = "a" }, { time = 0.6, name = "b", value = "v" } } }, "quat"),
  clip({ length = 0.8, loop = "pingpong", joints = {
    rightArm = { rotation = { { 0, { 10, 20, 0 } }, { 0.8, { -40, 0, 15 } } } },
    head = { scale = { { 0, { 1, 1, 1 } }, { 0.8, { 1.5, 0.5, 1 } } }, weight = 0.6 } },
    events = { { time = 0.4, name = "e", payload = { n = 1 } } }, priority = "action" }, "pingpong"),
  clip({ length = 0.5, loop = "once", joints = {
    leftArm = { rotation = { { 0, { 0, 0, 0 } }, { 0.5, { 0, 90, 0 } } } } },
    sounds = { { time = 0.25, sound = "s", volume = 0.5 } } }, "once"),
  clip({ blend = "additive", joints = {
    torso = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, 0, 30 } } } } } }, "additive"),
  assert(lib:clip("res://walk.anim")),
  assert(lib:clip("res://attack.anim")),
}

-- Animator i of a set: a mix of clips, fades, weights and speeds.
local function populate(a, i)
  local tracks = {}
  for k = 1, 1 + i % 3 do
    local c = CLIPS[(i + 2 * k) % #CLIPS + 1]
    tracks[#tracks + 1] = a:play(c, { fade = (i + k) % 4 * 0.1, weight = 0.3 + (i * k) % 5 * 0.2,
      speed = ({ 1, -0.7, 1.3, 0.5 })[(i + k) % 4 + 1] })
  end
  return tracks
end

-- Everything observable: the offsets, local and world transforms and
-- animated flags of every joint, and the state of every track.
local function snapshot(a, tracks)
  local s = {}
  for j = 1, #rig:joints() do
    s[#s + 1] = { a:get(j) }
    s[#s + 1] = { a:local_transform(j) }
    s[#s + 1] = { a:world_transform(j) }
    s[#s + 1] = { a:animated(j) }
  end
  for _, tr in ipairs(tracks) do
    s[#s + 1] = { tr.time, tr.loops, tr.speed, tr.weight, tr.fade, tr.is_playing }
  end
  return s
end

-- Two identical sets of n animators whose every callback appends to log
-- "<set animator>:<what>:<details>".
local function set_of(n, log)
  local list, tracks = {}, {}
  for i = 1, n do
    local a = anim.animator(rig, { library = lib })
    local function say(s) log[#log + 1] = i .. ":" .. s end
    a:on_marker(function(tr, name, value, late) say(string.format("marker:%s:%s:%s:%.17g", tr.clip.name, name, tostring(value), late)) end)
    a:on_event(function(tr, name, _, late) say(string.format("event:%s:%s:%.17g", tr.clip.name, name, late)) end)
    a:on_sound(function(tr, s, _, _, late) say(string.format("sound:%s:%s:%.17g", tr.clip.name, s, late)) end)
    a:on_play(function(tr, c, late) say(string.format("play:%s:%s:%.17g", tr.clip.name, c.name, late)) end)
    tracks[i] = populate(a, i)
    for _, tr in ipairs(tracks[i]) do
      tr:on_looped(function(t, late) say(string.format("looped:%s:%.17g", t.clip.name, late)) end)
      tr:on_stopped(function(t, late) say(string.format("stopped:%s:%.17g", t.clip.name, late)) end)
      tr:on_ended(function(t, late) say(string.format("ended:%s:%.17g", t.clip.name, late)) end)
    end
    list[i] = a
  end
  return list, tracks
end

local DTS = { 1 / 60, 0.1, 0, 1 / 30, 0.37, 1e-3, 2.5, 1 / 60 }

describe("anim.update(animators, dt)", function()
  it("poses and tracks are exactly those of animator:update(dt) on each, in order", function()
    local log_seq, log_batch = {}, {}
    local seq, tseq = set_of(24, log_seq)
    local bat, tbat = set_of(24, log_batch)
    for frame = 1, 160 do
      local dt = DTS[frame % #DTS + 1]
      for _, a in ipairs(seq) do a:update(dt) end
      anim.update(bat, dt)
      if frame % 37 == 0 then
        -- the same changes to both sets between frames
        for i = 1, #seq, 5 do
          local k = frame % #tseq[i] + 1
          tseq[i][k]:stop(0.2); tbat[i][k]:stop(0.2)
          if H.live(tseq[i][1]) then tseq[i][1]:adjust_weight(0.7, 0.3); tbat[i][1]:adjust_weight(0.7, 0.3) end
          tseq[i][#tseq[i] + 1] = seq[i]:play(CLIPS[i % #CLIPS + 1], { fade = 0.15 })
          tbat[i][#tbat[i] + 1] = bat[i]:play(CLIPS[i % #CLIPS + 1], { fade = 0.15 })
        end
      end
      for i = 1, #seq do
        assert.are.same(snapshot(seq[i], tseq[i]), snapshot(bat[i], tbat[i]), "frame " .. frame .. ", animator " .. i)
      end
    end
    -- and the callbacks, in the same order: each animator's together
    assert.is_true(#log_seq > 500, #log_seq .. " callbacks")
    for _, kind in ipairs { "marker", "event", "sound", "play", "looped", "stopped", "ended" } do
      assert.truthy(table.concat(log_seq, "\n"):find(":" .. kind .. ":", 1, true), "no " .. kind .. " callback")
    end
    assert.are.same(log_seq, log_batch)
  end)

  it("delivers the callbacks after every animator of the list is updated", function()
    local c = clip({ markers = { { time = 0.5, name = "m" } }, joints = { head = { position = { { 0, { 0, 0, 0 } } } } } })
    local a, b = anim.animator(rig), anim.animator(rig)
    local ta, tb = a:play(c, { fade = 0 }), b:play(c, { fade = 0 })
    local seen = {}
    a:on_marker(function() seen[#seen + 1] = "a sees b at " .. tb.time end)
    b:on_marker(function() seen[#seen + 1] = "b sees a at " .. ta.time end)
    anim.update({ a, b }, 0.75)
    assert.are.same({ "a sees b at 0.75", "b sees a at 0.75" }, seen)
    -- with update on each, a's callbacks run before b moves
    local c2, d = anim.animator(rig), anim.animator(rig)
    local tc, td = c2:play(c, { fade = 0 }), d:play(c, { fade = 0 })
    seen = {}
    c2:on_marker(function() seen[#seen + 1] = "c sees d at " .. td.time end)
    d:on_marker(function() seen[#seen + 1] = "d sees c at " .. tc.time end)
    c2:update(0.75)
    d:update(0.75)
    -- (tostring(0.0): "0.0" on 5.3+, "0" before, without integers)
    assert.are.same({ "c sees d at " .. tostring(0.0), "d sees c at 0.75" }, seen)
  end)

  it("delivers every callback, then raises the first error; every animator stays usable", function()
    local c = clip({ markers = { { time = 0.5, name = "m" } }, joints = { head = { position = { { 0, { 0, 0, 0 } } } } } })
    local list, ran = {}, {}
    for i = 1, 3 do
      local a = anim.animator(rig)
      a:play(c, { fade = 0 })
      a:on_marker(function() ran[#ran + 1] = i; if i > 1 then error("boom " .. i) end end)
      list[i] = a
    end
    local ok, err = pcall(anim.update, list, 0.75)
    assert.is_false(ok)
    assert.truthy(err:find("boom 2", 1, true))
    assert.falsy(err:find("boom 3", 1, true))
    assert.truthy(err:find("traceback", 1, true))
    assert.are.same({ 1, 2, 3 }, ran)
    anim.update(list, 0.1)
    for _, a in ipairs(list) do a:update(0.1) end
  end)

  it("an empty list does nothing (dt still checked)", function()
    anim.update({}, 0.1)
    local ok, err = pcall(anim.update, {}, -1)
    assert.is_false(ok)
    assert.truthy(err:find("bad argument #2 to 'update' (dt must be a finite number >= 0, got -1)", 1, true))
  end)

  it("may be called from a callback, for other animators; in a coroutine", function()
    local c = clip({ markers = { { time = 0.5, name = "m" } }, joints = { head = { position = { { 0, { 0, 0, 0 } } } } } })
    local a, b, x = anim.animator(rig), anim.animator(rig), anim.animator(rig)
    for _, an in ipairs { a, b, x } do an:play(c, { fade = 0 }) end
    local log = {}
    a:on_marker(function() log[#log + 1] = "a"; anim.update({ x }, 0.75) end)
    b:on_marker(function() log[#log + 1] = "b" end)
    x:on_marker(function() log[#log + 1] = "x" end)
    local co = coroutine.wrap(function() anim.update({ a, b }, 0.75) return "done" end)
    assert.are.equal("done", co())
    assert.are.same({ "a", "x", "b" }, log)
  end)

  it("a callback cannot yield, also in a coroutine", function()
    local c = clip({ markers = { { time = 0.5, name = "m" } }, joints = { head = { position = { { 0, { 0, 0, 0 } } } } } })
    local a, b = anim.animator(rig), anim.animator(rig)
    a:play(c, { fade = 0 }); b:play(c, { fade = 0 })
    local after = false
    a:on_marker(function() coroutine.yield() end)
    b:on_marker(function() after = true end)
    local co = coroutine.create(function() return pcall(anim.update, { a, b }, 0.75) end)
    local _, ok, err = coroutine.resume(co)
    assert.is_false(ok)
    -- the message names the function delivering
    local msg = "a callback cannot yield (anim.update delivers callbacks and cannot be suspended)"
    assert.are.equal(msg, tostring(err):sub(1, #msg))
    assert.is_true(after)
    assert.are.equal("dead", coroutine.status(co))
    -- where nothing can yield (the main thread), the same words
    ok, err = pcall(anim.update, { a, b }, 1)
    assert.is_false(ok)
    -- (each runtime's own words follow: 5.1 and LuaJIT say "attempt to
    -- yield across ... C-call boundary" on the main thread, LuaJIT after
    -- the callback's position)
    local outside = compat.version >= 502 and not compat.jit and "attempt to yield from outside a coroutine"
      or compat.jit and "attempt to yield across C-call boundary" or "attempt to yield across metamethod/C-call boundary"
    assert.are.equal(1, tostring(err):find(msg .. ": ", 1, true), err)
    assert.truthy(tostring(err):match("^[^\n]*"):find(outside, 1, true), err)
    -- and animator:update, called from inside this delivery, names itself
    local c2 = clip({ markers = { { time = 0.5, name = "n" } }, joints = { head = { position = { { 0, { 0, 0, 0 } } } } } })
    local inner = anim.animator(rig)
    inner:play(c2, { fade = 0 })
    inner:on_marker(function() coroutine.yield() end)
    local d = anim.animator(rig)
    d:play(c2, { fade = 0 })
    local inner_err
    d:on_marker(function() inner_err = select(2, pcall(inner.update, inner, 0.75)) end)
    anim.update({ d }, 0.75)
    local own = "a callback cannot yield (animator:update delivers callbacks and cannot be suspended)"
    assert.are.equal(own, tostring(inner_err):sub(1, #own))
  end)
end)

describe("anim.update arguments", function()
  local c = clip({ joints = { head = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, 0, 0 } } } } } })

  -- n animators each playing c, and a function giving their track times
  local function animators(n)
    local list, tracks = {}, {}
    for i = 1, n do
      list[i] = anim.animator(rig)
      tracks[i] = list[i]:play(c, { fade = 0 })
    end
    return list, function()
      local t = {}
      for i, tr in ipairs(tracks) do t[i] = tr.time end
      return t
    end
  end

  local function refuses(list, dt, msg)
    local ok, err = pcall(anim.update, list, dt)
    assert.is_false(ok)
    assert.are.equal(msg, (err:gsub("^[^:]*:%d+: ", "")))
  end

  it("a list: a table of animators", function()
    for _, bad in ipairs { 5, "x", true } do
      refuses(bad, 0.1, "bad argument #1 to 'update' (table of animators expected, got " .. type(bad) .. ")")
    end
    refuses(nil, 0.1, "bad argument #1 to 'update' (table of animators expected, got nil)")
  end)

  it("each element an animator, named by its index; nothing is updated", function()
    local list, times = animators(3)
    anim.update(list, 0.25)
    local tr = list[1]:play(c)
    for _, case in ipairs {
      { "x", "string" }, { 7, "number" }, { {}, "table" }, { tr, "anim.track" }, { rig, "anim.rig" },
      { c, "anim.clip" },
    } do
      local bad = { list[1], list[2], case[1], list[3] }
      refuses(bad, 0.1, "bad argument #1 to 'update' (animator expected at index 3, got " .. case[2] .. ")")
      assert.are.same({ 0.25, 0.25, 0.25 }, times())
    end
    refuses({ list[1], false, list[2] }, 0.1, "bad argument #1 to 'update' (animator expected at index 2, got boolean)")
    assert.are.same({ 0.25, 0.25, 0.25 }, times())
  end)

  it("dt finite and >= 0, checked first; nothing is updated", function()
    local list, times = animators(2)
    for _, case in ipairs { { 0 / 0, "nan" }, { -1, "-1" }, { math.huge, "inf" }, { -math.huge, "-inf" },
      { "0.1", "string" }, { nil, "nil" } } do
      refuses(list, case[1], "bad argument #2 to 'update' (dt must be a finite number >= 0, got " .. case[2] .. ")")
      refuses({ list[1], "x" }, case[1],
        "bad argument #2 to 'update' (dt must be a finite number >= 0, got " .. case[2] .. ")")
    end
    assert.are.same({ 0, 0 }, times())
  end)

  it("an animator listed twice is refused; nothing is updated", function()
    local list, times = animators(3)
    refuses({ list[1], list[2], list[3], list[2] }, 0.1,
      "bad argument #1 to 'update' (the animator at index 4 is also at index 2: each is updated once per call)")
    refuses({ list[1], list[1] }, 0.1,
      "bad argument #1 to 'update' (the animator at index 2 is also at index 1: each is updated once per call)")
    assert.are.same({ 0, 0, 0 }, times())
    -- a refused call leaves no mark: the same animators are accepted after
    anim.update(list, 0.1)
    anim.update({ list[3], list[2], list[1] }, 0.1)
    assert.are.same({ 0.2, 0.2, 0.2 }, times())
  end)

  -- The list is read in one pass of lua_next, keys and animators at once
  -- (scan_list in csrc/lua/lua_update.c); anything amiss sends it to the
  -- checks by index, then by key, so a refusal names what it always named
  -- whichever order the table keeps its keys in: its array part in order,
  -- its hash part in an order of its own (a table filled out of order).
  local function orders(n)
    local out, r = { {} }, math.random
    for k = 1, n do out[1][k] = n + 1 - k end -- from the last key down
    for o = 2, 12 do
      local p = {}
      for k = 1, n do p[k] = k end
      for k = n, 2, -1 do
        local j = r(k)
        p[k], p[j] = p[j], p[k]
      end
      out[o] = p
    end
    return out
  end
  local function filled(order, values, extra)
    local t = {}
    for _, k in ipairs(order) do t[k] = values[k] end
    for k, v in pairs(extra or {}) do t[k] = v end
    return t
  end

  it("a list filled in any order: updated, or refused naming the lowest bad index, then a bad key", function()
    local list, times = animators(6)
    local dead = anim.animator(rig)
    debug.getmetatable(dead).__gc(dead)
    local function with(changes)
      local v = {}
      for i = 1, 6 do v[i] = list[i] end
      for k, x in pairs(changes) do v[k] = x end
      return v
    end
    -- on one thread and on two (the pool's workers are woken before the
    -- check, and rest when it refuses)
    local function refused(l, msg)
      refuses(l, 0.1, msg)
      local ok, err = pcall(anim.update, l, 0.1, { threads = 2 })
      assert.is_false(ok)
      assert.are.equal(msg, (err:gsub("^[^:]*:%d+: ", "")))
    end
    math.randomseed(24)
    for _, order in ipairs(orders(6)) do
      refused(filled(order, with { [2] = "x", [5] = {} }),
        "bad argument #1 to 'update' (animator expected at index 2, got string)")
      refused(filled(order, with { [3] = dead, [6] = false }),
        "bad argument #1 to 'update' (animator expected at index 3, got anim.animator (finalized))")
      refused(filled(order, with { [4] = list[1], [6] = list[2] }),
        "bad argument #1 to 'update' (the animator at index 4 is also at index 1: each is updated once per call)")
      refused(filled(order, with { [5] = list[6] }),
        "bad argument #1 to 'update' (the animator at index 6 is also at index 5: each is updated once per call)")
      -- an element before a key; a key alone
      refused(filled(order, with { [4] = 7 }, { x = list[1] }),
        "bad argument #1 to 'update' (animator expected at index 4, got number)")
      refused(filled(order, with {}, { [7.5] = true }), "bad argument #1 to 'update' (key 7.5 is not an index"
        .. " from 1 to #list (6): a list of animators holds them at 1 to #list and nothing else)")
      assert.are.same({ 0, 0, 0, 0, 0, 0 }, times())
    end
    -- a hole the length does not see: index 3 is nil, the list has five keys
    refused({ list[1], list[2], nil, list[4], list[5], list[6] },
      "bad argument #1 to 'update' (animator expected at index 3, got nil)")
    local ref = anim.animator(rig)
    local tr = ref:play(c, { fade = 0 })
    for k, order in ipairs(orders(6)) do
      anim.update(filled(order, list), 0.1, { threads = k % 2 + 1 })
      ref:update(0.1)
    end
    assert.are.same({ tr.time, tr.time, tr.time, tr.time, tr.time, tr.time }, times())
    assert.is_true(tr.time > 0)
  end)

  it("takes the boxes of the call before as hints only: they may have been collected since", function()
    -- (the pass prefetches the boxes the last call read at each index; under
    -- make asan a read of a freed one would be reported)
    local list = animators(300)
    anim.update(list, 0.1)
    anim.update(list, 0.1, { threads = 2 })
    list = nil -- luacheck: ignore 311
    collectgarbage()
    collectgarbage()
    local other, times = animators(400)
    anim.update(other, 0.25, { threads = 2 })
    anim.update(other, 0.25)
    for _, t in ipairs(times()) do assert.are.equal(0.5, t) end
  end)

  it("the core refuses a queue table that is the list itself (it writes one while reading the other)", function()
    -- only a script calling the core directly can do this; it crashed once
    local core = require "anim.core"
    local marked = clip({ joints = { head = { position = { { 0, { 0, 0, 0 } }, { 1, { 0, 1, 0 } } } } },
      markers = { { time = 0.05, name = "m" } } })
    local list = {}
    for i = 1, 2 do
      list[i] = anim.animator(rig)
      list[i]:play(marked)
    end
    local ok, err = pcall(core.animators_update, list, 0.1, list)
    assert.is_false(ok)
    -- (5.3+ name a function called by pcall from the loaded modules; 5.1,
    -- 5.2 and LuaJIT have no call site to name it by: '?')
    local name = compat.version >= 503 and "'.-animators_update'" or "'%?'"
    assert.truthy(err:find("bad argument #3 to " .. name .. " %(must not be the list itself%)"), err)
    -- nothing was updated, and the animators still work
    for _, a in ipairs(list) do
      assert.are.equal(0, a:tracks()[1].time)
      a:update(0.1)
    end
  end)

  it("an animator cannot be updated from its own callbacks", function()
    local mc = clip({ markers = { { time = 0.5, name = "m" } }, joints = { head = { position = { { 0, { 0, 0, 0 } } } } } })
    local a, b = anim.animator(rig), anim.animator(rig)
    local ta = a:play(mc, { fade = 0 })
    b:play(mc, { fade = 0 })
    local errs = {}
    a:on_marker(function()
      local ok, err = pcall(anim.update, { b, a }, 0.1)
      errs[#errs + 1] = not ok and err:gsub("^[^:]*:%d+: ", "")
      ok, err = pcall(a.update, a, 0.1)
      errs[#errs + 1] = not ok and err:gsub("^[^:]*:%d+: ", "")
    end)
    a:update(0.75)
    anim.update({ a }, 1)
    local own = "anim.update called from one of the callbacks of the animator at index 2 (update it after this one returns)"
    local method = "animator:update called from one of this animator's own callbacks (update it after this one returns)"
    assert.are.same({ own, method, own, method }, errs)
    assert.are.equal(0.75, ta.time)
  end)

  it("an animator whose batch callbacks are still to come cannot be updated before they are delivered", function()
    local mc = clip({ markers = { { time = 0.5, name = "m" } }, joints = { head = { position = { { 0, { 0, 0, 0 } } } } } })
    local a, b, q, free = anim.animator(rig), anim.animator(rig), anim.animator(rig), anim.animator(rig)
    for _, an in ipairs { a, b, q, free } do an:play(mc, { fade = 0 }) end
    local quiet = anim.animator(rig) -- in the list, nothing to deliver: free to update
    quiet:play(c, { fade = 0 })
    local log = {}
    a:on_marker(function()
      log[#log + 1] = "a"
      for _, f in ipairs {
        function() b:update(0.1) end,
        function() anim.update({ free, b }, 0.1) end,
        function() quiet:update(0.1) end,
        function() anim.update({ free }, 0.75) end,
      } do
        local ok, err = pcall(f)
        log[#log + 1] = ok and "ok" or err:gsub("^[^:]*:%d+: ", "")
      end
    end)
    b:on_marker(function()
      log[#log + 1] = "b"
      local ok, err = pcall(q.update, q, 0.1)
      log[#log + 1] = ok and "ok" or err:gsub("^[^:]*:%d+: ", "")
      ok = pcall(a.update, a, 0.1) -- a's were delivered: a may be updated
      log[#log + 1] = ok and "ok" or "refused"
    end)
    q:on_marker(function() log[#log + 1] = "q" end)
    free:on_marker(function() log[#log + 1] = "free" end)
    anim.update({ a, quiet, b, q }, 0.75)
    assert.are.same({
      "a",
      "animator:update called while anim.update has yet to deliver this animator's callbacks"
        .. " (update it after that anim.update returns)",
      "anim.update has yet to deliver the callbacks of the animator at index 2 (update it after that anim.update returns)",
      "ok",
      "free", "ok",
      "b",
      "animator:update called while anim.update has yet to deliver this animator's callbacks"
        .. " (update it after that anim.update returns)",
      "ok",
      "q",
    }, log)
    -- all delivered: every animator updates again
    anim.update({ a, b, q, free, quiet }, 0.1)
  end)
end)

describe("anim.update in steady play", function()
  it("allocates nothing per frame, callbacks delivered included", function()
    local walk = assert(anim.load(H.root .. "/examples/clips/walk.anim"))
    local wave = assert(anim.load(H.root .. "/examples/clips/wave.anim"))
    local list, n = {}, 0
    for i = 1, 40 do
      local a = anim.animator(rig)
      a:play(walk, { fade = 0 })
      local tr = a:play(wave, { fade = 0.2, weight = 0.5 })
      tr.time = i / 40
      a:on_marker(function() n = n + 1 end)
      a:on_event(function() n = n + 1 end)
      tr:on_looped(function() n = n + 1 end)
      list[i] = a
    end
    for _ = 1, 200 do anim.update(list, 1 / 64) end -- warm up: queues, scratch, pool
    collectgarbage(); collectgarbage()
    collectgarbage("stop")
    -- (a full collection shrinks the Lua stack: a few frames grow it back)
    -- (H.without_jit: LuaJIT's compiler allocates in the Lua heap)
    local before, after, n0 = H.without_jit(function()
      for _ = 1, 64 do anim.update(list, 1 / 64) end
      local b, n_at = collectgarbage("count"), n
      for _ = 1, 3000 do anim.update(list, 1 / 64) end
      return b, collectgarbage("count"), n_at
    end)
    collectgarbage("restart")
    assert.is_true(n - n0 > 3000, (n - n0) .. " callbacks")
    assert.are.equal(before, after)
  end)
end)
