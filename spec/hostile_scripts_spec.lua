-- Hostile scripts and hostile numbers (issue 9, docs/robustness.md): what
-- a game script may do to an animator -- odd dt, odd speeds, callbacks that
-- raise, re-enter, yield, stop everything or drop the last reference --
-- raises a plain error or is bounded, and never leaves the animator stuck,
-- corrupt or crashed.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"

local rig = anim.rig("player")
local MAX_PASSES = 64 -- the documented bound on passes per track per update

-- A looping clip of `length` with markers at 0, the middle and the end.
local function clip(length, loop, extra)
  local t = {
    loop = loop or "loop", length = length,
    joints = { rightArm = { rotation = { { 0, { 0, 0, 0 } }, { length, { 90, 0, 0 } } } } },
    markers = { { time = 0, name = "start" }, { time = length / 2, name = "mid" }, { time = length, name = "end" } },
  }
  for k, v in pairs(extra or {}) do t[k] = v end
  return assert(anim.clip(t, "c"))
end

-- Everything observable about an animator and its tracks.
local function snapshot(a, tracks)
  local s = { pose = a:pose_into({}, "world") }
  for i, tr in ipairs(tracks) do
    s[i] = { tr.time, tr.loops, tr.speed, tr.weight, tr.fade, tr.is_playing }
  end
  return s
end

describe("update(dt) with a bad dt", function()
  local BAD = { { 0 / 0, "nan" }, { -1, "-1" }, { -1e-300, "-1e-300" }, { math.huge, "inf" },
    { -math.huge, "-inf" }, { "0.1", "string" }, { nil, "nil" }, { {}, "table" } }

  it("raises a plain error and changes nothing: time, loops, fades, pose, callbacks", function()
    local c = clip(1)
    -- two animators on the same course; only `a` sees the bad calls
    local a, twin = anim.animator(rig), anim.animator(rig)
    local ta = { a:play(c, { fade = 0.3 }), a:play(c, { speed = -0.7 }) }
    local tt = { twin:play(c, { fade = 0.3 }), twin:play(c, { speed = -0.7 }) }
    local fired = 0
    a:on_marker(function() fired = fired + 1 end)
    ta[1]:on_looped(function() fired = fired + 1 end)
    a:update(0.25)
    twin:update(0.25)
    ta[2]:stop(0.5)
    tt[2]:stop(0.5)
    local before, n0 = snapshot(a, ta), fired
    for _, case in ipairs(BAD) do
      local ok, err = pcall(a.update, a, case[1])
      assert.is_false(ok)
      assert.are.equal("bad argument #1 to 'update' (dt must be a finite number >= 0, got " .. case[2] .. ")", err)
      assert.are.same(before, snapshot(a, ta))
      assert.are.equal(n0, fired)
    end
    -- and the bad calls left no trace: both go on identically
    for _, dt in ipairs { 0.4, 1.3, 0 } do
      a:update(dt)
      twin:update(dt)
      assert.are.same(snapshot(twin, tt), snapshot(a, ta))
    end
  end)
end)

describe("odd numbers: bounded work per update", function()
  -- Plays clip c at `speed` and updates `updates` times by dt; returns the
  -- number of marker and looped callbacks of each update, and checks that
  -- the time stays within [0, length] and the pose finite.
  local function run(c, speed, dt, updates)
    local a = anim.animator(rig)
    local tr = a:play(c, { fade = 0, speed = speed })
    local markers, looped = 0, 0
    a:on_marker(function() markers = markers + 1 end)
    tr:on_looped(function() looped = looped + 1 end)
    local most = { markers = 0, looped = 0 }
    for _ = 1, updates do
      markers, looped = 0, 0
      a:update(dt)
      most.markers = math.max(most.markers, markers)
      most.looped = math.max(most.looped, looped)
      local t = tr.time
      assert(t >= 0 and t <= c.length, "time " .. tostring(t) .. " outside [0, " .. c.length .. "]")
      local px, _, _, qx, qy, qz, qw = a:get("rightArm")
      assert(px == px and qx == qx and qy == qy and qz == qz and qw == qw, "NaN in the pose")
    end
    return most, tr
  end

  it("a length of 1e-9 looping, dt 1e9: at most 64 passes per update, loops still counted", function()
    local c = clip(1e-9)
    local most, tr = run(c, 1, 1e9, 3)
    assert.are.equal(MAX_PASSES - 1, most.looped) -- the 64th pass is the final partial one
    -- every marker at most once per pass
    assert.is_true(most.markers <= 3 * (MAX_PASSES + 1), most.markers)
    -- the loops beyond the bound are skipped without firing, but counted
    assert.is_true(tr.loops >= 3 * 1e9 / 1e-9 * 0.999, tr.loops)
  end)

  it("pingpong the same way, and huge speeds both ways", function()
    for _, case in ipairs {
      { clip(1e-9, "pingpong"), 1, 1e9 }, { clip(1, "loop"), 1e300, 1 / 60 }, { clip(1, "loop"), -1e300, 1 / 60 },
      { clip(1, "pingpong"), 1e300, 1e300 }, { clip(1e-9, "loop"), -1e300, 1e300 },
    } do
      local most = run(case[1], case[2], case[3], 4)
      assert.is_true(most.looped <= MAX_PASSES, most.looped)
      assert.is_true(most.markers <= 3 * (MAX_PASSES + 1), most.markers)
    end
  end)

  it("speed 0 fires the start once and then nothing, without looping", function()
    local most, tr = run(clip(1e-9), 0, 1e9, 5)
    assert.are.equal(0, most.looped)
    assert.are.equal(1, most.markers) -- the marker at 0, on the first update
    assert.are.equal(0, tr.loops)
    assert.are.equal(0, tr.time)
  end)

  it("once and hold clips with a huge dt end or hold in one pass", function()
    for _, mode in ipairs { "once", "hold" } do
      local most, tr = run(clip(1e-9, mode), 1e300, 1e300, 3)
      assert.are.equal(0, most.looped)
      assert.are.equal(3, most.markers)
      assert.are.equal(mode == "hold", tr.is_playing)
    end
  end)

  it("a clip with as many timed items as the limit allows: at most 64 passes of them per update", function()
    local markers = {}
    local n = 2000
    for i = 1, n do markers[i] = { time = (i - 1) / n * 1e-9, name = "m" } end
    local c = assert(anim.clip({ loop = "loop", length = 1e-9, joints = {}, markers = markers }, "many"))
    local most = run(c, 1, 1, 2)
    assert.is_true(most.markers <= MAX_PASSES * n, most.markers)
    assert.is_true(most.markers >= 12 * n) -- ten full lengths in one update still fire every pass (7a.20)
  end)

  it("seeking anywhere clamps into [0, length]", function()
    local a = anim.animator(rig)
    local tr = a:play(clip(2))
    for _, t in ipairs { -1e300, -1, 0, 1, 2, 3, 1e300, 5e-324 } do
      tr.time = t
      assert.is_true(tr.time >= 0 and tr.time <= 2)
    end
    assert.has_error(function() tr.time = 0 / 0 end, "track time must be a finite number, got nan")
    assert.has_error(function() tr.time = math.huge end, "track time must be a finite number, got inf")
  end)

  it("play and adjust refuse non-finite speeds, weights and fades", function()
    local a = anim.animator(rig)
    local c = clip(1)
    assert.has_error(function() a:play(c, { speed = 0 / 0 }) end,
      "bad argument #2 to 'play' (speed must be a finite number, got nan)")
    assert.has_error(function() a:play(c, { fade = math.huge }) end,
      "bad argument #2 to 'play' (fade must be a finite number, got inf)")
    local tr = a:play(c)
    assert.has_error(function() tr:adjust_speed(-math.huge) end,
      "bad argument #1 to 'adjust_speed' (speed must be a finite number, got -inf)")
    assert.has_error(function() tr:adjust_weight(0 / 0) end,
      "bad argument #1 to 'adjust_weight' (weight must be a finite number >= 0, got nan)")
    assert.has_error(function() tr:stop(-1) end, "bad argument #1 to 'stop' (fade must be a finite number >= 0, got -1)")
  end)
end)

describe("callbacks that misbehave", function()
  it("one that raises: the others still run, update raises the first error, the animator goes on", function()
    local a = anim.animator(rig)
    local tr = a:play(clip(1), { fade = 0 })
    local seen = {}
    a:on_marker(function(_, name)
      seen[#seen + 1] = name
      if name == "start" then error("first") end
      if name == "mid" then error("second") end
    end)
    local ok, err = pcall(a.update, a, 0.6)
    assert.is_false(ok)
    assert.truthy(err:find("first", 1, true), err)
    assert.truthy(err:find("stack traceback", 1, true), err)
    assert.are.same({ "start", "mid" }, seen)
    assert.is_true(tr.is_playing)
    assert.are.equal(0.6, tr.time)
    ok = pcall(a.update, a, 0.1) -- nothing fires: no error
    assert.is_true(ok)
  end)

  it("one that calls update on its own animator is refused, not re-entered", function()
    local a = anim.animator(rig)
    a:play(clip(1), { fade = 0 })
    local depth, deepest, inner = 0, 0, nil
    a:on_marker(function()
      depth = depth + 1
      deepest = math.max(deepest, depth)
      local ok, e = pcall(a.update, a, 0.1)
      if not ok and not inner then inner = e end
      depth = depth - 1
    end)
    a:update(0.6)
    assert.are.equal(1, deepest)
    assert.truthy(inner:find("animator:update called from one of this animator's own callbacks", 1, true), inner)
    -- and unprotected, it is reported like any other error
    a:on_marker(function() a:update(0.1) end)
    local ok, err = pcall(a.update, a, 0.5)
    assert.is_false(ok)
    assert.truthy(err:find("animator:update called from one of this animator's own callbacks", 1, true), err)
    assert.is_true(pcall(a.update, a, 0)) -- usable afterwards
  end)

  it("another animator may be updated from a callback", function()
    local a, b = anim.animator(rig), anim.animator(rig)
    a:play(clip(1), { fade = 0 })
    local tb = b:play(clip(1), { fade = 0 })
    a:on_marker(function() b:update(0.1) end)
    a:update(0.6)
    assert.is_true(math.abs(tb.time - 0.2) < 1e-12) -- start and mid
  end)

  describe("one that yields", function()
    local function setup()
      local a = anim.animator(rig)
      local tr = a:play(clip(1), { fade = 0 })
      local after = 0
      a:on_marker(function(_, name) if name == "start" then coroutine.yield("from a callback") end end)
      a:on_marker(function() after = after + 1 end)
      return a, tr, function() return after end
    end

    it("inside a coroutine: a clear error, the other callbacks still run, nothing is left suspended", function()
      local a, tr, after = setup()
      local co = coroutine.create(function() return a:update(0.6) end)
      local ok, err = coroutine.resume(co)
      assert.is_false(ok)
      assert.are.equal("dead", coroutine.status(co))
      assert.truthy(err:find("^a callback cannot yield %(animator:update delivers callbacks and cannot be suspended%)"), err)
      assert.truthy(err:find("stack traceback", 1, true), err)
      assert.are.equal(2, after()) -- start and mid
      assert.are.equal(0.6, tr.time)
      -- the animator is not stuck in the middle of an update
      assert.is_true(pcall(a.update, a, 0.1))
    end)

    it("where nothing can yield: the same clear error", function()
      local a, _, after = setup()
      local ok, err = pcall(a.update, a, 0.6)
      assert.is_false(ok)
      assert.truthy(err:find("^a callback cannot yield %(animator:update delivers callbacks and cannot be suspended%)"), err)
      assert.are.equal(2, after())
      assert.is_true(pcall(a.update, a, 0.1))
    end)

    it("a coroutine of the callback's own may yield inside it", function()
      local a = anim.animator(rig)
      a:play(clip(1), { fade = 0 })
      local got = {}
      a:on_marker(function(_, name)
        local co = coroutine.wrap(function() coroutine.yield(name) end)
        got[#got + 1] = co()
      end)
      coroutine.wrap(function() a:update(0.6) end)()
      assert.are.same({ "start", "mid" }, got)
    end)
  end)

  it("one that stops every track, at once or with a fade", function()
    for _, fade in ipairs { 0, 0.05 } do
      local a = anim.animator(rig)
      local c = clip(1)
      local tracks = { a:play(c, { fade = 0 }), a:play(c, { speed = 2 }), a:play(c, { speed = -1 }) }
      local ended = 0
      for _, tr in ipairs(tracks) do tr:on_ended(function() ended = ended + 1 end) end
      a:on_marker(function() for _, tr in ipairs(a:tracks()) do tr:stop(fade) end end)
      a:update(0.3)
      a:update(0.1)
      assert.are.equal(3, ended)
      assert.are.same({}, a:tracks())
      for _, tr in ipairs(tracks) do assert.is_false(tr.is_playing) end
    end
  end)

  it("one that drops the last reference to its animator and clip, and collects", function()
    local weak = setmetatable({}, { __mode = "v" })
    local refs = { animator = anim.animator(rig), clip = clip(1) }
    weak.animator, weak.clip = refs.animator, refs.clip
    refs.track = refs.animator:play(refs.clip, { fade = 0 })
    refs.animator:on_marker(function(t, name)
      if name == "mid" then
        refs = nil -- the last references (update's own stack aside)
        t:stop(0)
        collectgarbage()
        collectgarbage()
      end
    end)
    refs.animator:update(0.6)
    collectgarbage()
    collectgarbage()
    assert.is_nil(weak.animator)
    assert.is_nil(weak.clip)
  end)

  it("a clip dropped while its track plays lives until the track ends, then goes", function()
    local weak = setmetatable({}, { __mode = "v" })
    local a = anim.animator(rig)
    local refs = { clip = clip(1) }
    weak.clip = refs.clip
    a:play(refs.clip, { fade = 0 }):on_marker("mid", function(t)
      refs.clip = nil
      t:stop(0)
      collectgarbage()
    end)
    a:update(0.6)
    collectgarbage()
    assert.is_not_nil(weak.clip) -- its track still holds it
    a:update(0.1) -- the track ends
    collectgarbage()
    collectgarbage()
    assert.is_nil(weak.clip)
    -- the core lets go of the ended track at this update, after its clip went
    a:update(0.1)
    a:play(clip(2), { fade = 0 })
    a:update(0.1)
    assert.are.equal(1, #a:tracks())
  end)

  it("the animator comes out of update usable even when delivering fails outside a callback", function()
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p '" .. dir .. "'")
    local lib = assert(anim.library(dir))
    local a = anim.animator(rig, { library = lib })
    a:play(clip(1, "loop", { plays = { { time = 0.5, clip = "res://x.anim" } } }), { fade = 0 })
    rawset(lib, "clip", function() error("the host's library broke") end)
    local ok, err = pcall(a.update, a, 0.6)
    assert.is_false(ok)
    assert.truthy(err:find("the host's library broke", 1, true), err)
    assert.is_true(pcall(a.update, a, 0.1))
    os.remove(dir)
  end)
end)

describe("after collection", function()
  -- A finalizer made before the animator runs after the animator's and its
  -- tracks' (Lua finalizes in the reverse order of creation): it reaches
  -- a track and a connection whose animator has been collected.
  it("a track used from a finalizer raises a plain error; a connection disconnects quietly", function()
    local got = {}
    local holder = H.finalizer(function(o)
      for _, use in ipairs {
        function() return o.track.time end,
        function() return o.track:stop() end,
        function() return o.track.animator end,
        function() o.track.time = 1 end,
      } do
        local ok, e = pcall(use)
        got[#got + 1] = ok and "ok" or e:gsub("^.-:%d+: ", "")
      end
      got[#got + 1] = tostring(o.track)
      got[#got + 1] = pcall(o.conn.disconnect, o.conn) and "disconnect ok" or "disconnect failed"
      got[#got + 1] = tostring(o.conn.connected)
      got[#got + 1] = pcall(o.tconn.disconnect, o.tconn) and "disconnect ok" or "disconnect failed"
    end)
    do
      local a = anim.animator(rig)
      holder.track = a:play(clip(1))
      holder.conn = a:on_marker(function() end)
      holder.tconn = holder.track:on_looped(function() end)
      a:update(0.1)
    end
    holder = nil -- luacheck: ignore
    collectgarbage()
    collectgarbage()
    local msg = "anim.track used after it was finalized (garbage collected, or its __gc called by hand)"
    assert.are.same({ msg, msg, msg, msg, "anim.track (finalized)", "disconnect ok", "false", "disconnect ok" }, got)
  end)
end)

-- Guarantees the C core keeps itself (csrc/).
describe("the C core", function()
  -- Every number in such a file is finite, but the arithmetic on them
  -- overflows: 1e308 - (-1e308) is inf, and a cycles offset multiplies by
  -- the number of cycles.  The core must not hand out inf or NaN.
  it("finite values whose arithmetic overflows never reach a sample or a pose as inf or NaN", function()
    local c = assert(anim.decode([=[{"length": 1e300, "joints": {
      "rightArm": {"position": [[0, [1e308, 0, 0]], [1, [-1e308, 0, 0]]],
                   "rotation": [[0, [1e308, 0, 0]], [1, [-1e308, 0, 0]]],
                   "scale": [[0, [1e308, 1e308, 1]], [1, [-1e308, 0, 0]]]},
      "leftArm": {"position": [[0, [0, 0, 0]], [1e-9, [1e300, 0, 0]]],
                  "modifiers": {"position": [{"type": "cycles", "after": "offset"}]}}}}]=], "overflow"))
    local function finite(x) return x == x and x ~= math.huge and x ~= -math.huge end
    for _, t in ipairs { 0.5, 1e300 } do
      for _, j in pairs(c:sample(t)) do
        for _, ch in pairs(j) do
          for _, x in ipairs(ch) do assert(finite(x), "sample " .. tostring(x)) end
        end
      end
    end
    local a = anim.animator(rig)
    a:play(c, { fade = 0 })
    a:play(c, { fade = 0, speed = 0.37 })
    for _, dt in ipairs { 0.5, 1e299 } do
      a:update(dt)
      for _, which in ipairs { "offsets", "local", "world" } do
        for _, v in pairs(a:pose_into({}, which)) do
          for _, x in ipairs(v) do assert(finite(x), which .. " " .. tostring(x)) end
        end
      end
    end
  end)

  -- A script that reaches a metatable (debug.getmetatable, or anim.core's
  -- *_metatable fields) can call __gc by hand on an object still in use.
  -- The core reference-counts clips and rigs (tracks retain their clip,
  -- animators their rig), so a box's __gc only drops its own reference.
  -- (spec/finalized_spec.lua has the rest of this class.)
  it("calling a clip's or rig's __gc by hand while it plays does not crash", function()
    local r = anim.rig { joints = { { name = "a" }, { name = "b", parent = "a" } } }
    local c = assert(anim.clip({ loop = "loop", length = 1, joints = { b = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, 1, 1 } } } } } }))
    local a = anim.animator(r)
    a:play(c, { fade = 0 })
    a:update(0.1)
    debug.getmetatable(c).__gc(c)
    debug.getmetatable(r).__gc(r)
    for _ = 1, 10 do a:update(0.1) end
    a:world_transform("b")
  end)
end)
