-- Timing of markers and track state callbacks (SEMANTICS 7 and 7a): exact
-- sequences (name, order, count) and `late` within 1e-9.  Every expected
-- sequence is worked by hand in the comment above it.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local compat = require "anim.base.compat"

local rig = assert(anim.rig { joints = { { name = "j" } } })

-- A clip of length 1 with markers at 0 (a), 0.5 (m) and 1 (z).
local function clip(loop, extra)
  local t = {
    length = 1, loop = loop,
    joints = { j = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, 0, 0 } } } } },
    markers = { { time = 0, name = "a" }, { time = 0.5, name = "m" }, { time = 1, name = "z" } },
  }
  for k, v in pairs(extra or {}) do t[k] = v end
  return assert(anim.clip(t, loop))
end

-- Plays c (fade 0) and records every callback as { name, late }.
local function recorder(c, opts)
  local a = anim.animator(rig)
  local log = {}
  opts = opts or {}
  opts.fade = opts.fade or 0
  local tr = a:play(c, opts)
  a:on_marker(function(t, name, _, late) assert(t == tr); log[#log + 1] = { name, late } end)
  tr:on_looped(function(t, late) assert(t == tr); log[#log + 1] = { "looped", late } end)
  tr:on_stopped(function(t, late) assert(t == tr); log[#log + 1] = { "stopped", late } end)
  tr:on_ended(function(t, late) assert(t == tr); log[#log + 1] = { "ended", late } end)
  return a, tr, log
end


-- Runs updates of dt and returns the log of each update separately.
local function run(a, log, dt, n)
  local dts = {}
  for i = 1, n do dts[i] = dt end
  return H.per_update(a, log, dts)
end

describe("timing, speed 1", function()
  it("loop, dt 0.25: first pass inclusive at 0, a wrap at the end of an update fires z, looped, a with late 0", function()
    -- u1 [0,0.25]: a at 0 (late .25); u2 (0.25,0.5]: m at .5 (late 0); u3 (0.5,0.75]: -;
    -- u4 (0.75,1]: z, looped, then [0,0]: a, all late 0 (7a.1); u5 (0,0.25]: -.
    local a, tr, log = recorder(clip("loop"))
    local per = run(a, log, 0.25, 5)
    H.same_log(per[1], { { "a", 0.25 } })
    H.same_log(per[2], { { "m", 0 } })
    H.same_log(per[3], {})
    H.same_log(per[4], { { "z", 0 }, { "looped", 0 }, { "a", 0 } })
    H.same_log(per[5], {})
    assert.are.equal(0.25, tr.time)
    assert.are.equal(1, tr.loops)
  end)

  it("once, dt 0.4: ends at the instant it reaches the end (stopped then ended)", function()
    -- u1 [0,.4]: a (.4); u2 (.4,.8]: m at e=.1 (late .3); u3: z at e=.2 (late .2), stopped, ended (.2)
    local a, tr, log = recorder(clip("once"))
    local per = run(a, log, 0.4, 4)
    H.same_log(per[1], { { "a", 0.4 } })
    H.same_log(per[2], { { "m", 0.3 } })
    H.same_log(per[3], { { "z", 0.2 }, { "stopped", 0.2 }, { "ended", 0.2 } })
    H.same_log(per[4], {})
    assert.is_false(tr.is_playing)
    assert.are.equal(1, tr.time)
  end)

  it("once shows the last frame on the update it ends, then contributes nothing", function()
    local a = anim.animator(rig)
    a:play(clip("once"), { fade = 0 })
    a:update(0.75)
    a:update(0.5) -- ends at 1
    assert.are.equal(1, (a:get("j")))
    a:update(0.1)
    assert.are.equal(0, (a:get("j")))
    assert.are.same({ false, false, false }, { a:animated("j") })
  end)

  it("hold, dt 0.4: reaches the end without a state callback and stays", function()
    local a, tr, log = recorder(clip("hold"))
    local per = run(a, log, 0.4, 5)
    H.same_log(per[1], { { "a", 0.4 } })
    H.same_log(per[2], { { "m", 0.3 } })
    H.same_log(per[3], { { "z", 0.2 } })
    H.same_log(per[4], {})
    H.same_log(per[5], {})
    assert.is_true(tr.is_playing)
    assert.are.equal(1, tr.time)
    assert.are.equal(1, (a:get("j")))
  end)

  it("pingpong, dt 0.4: looped at every bounce; the reversed pass excludes the bounce time", function()
    -- u1 [0,.4]: a (.4); u2: m (.3); u3 (.8,1]: z at e=.2 (.2), looped (.2), then 1 -> .8 backward, excluding 1;
    -- u4 (.8 -> .4): m at e=.3 (.1); u5 (.4 -> 0): a at e=.4 (0), bounce exactly at the end: looped (0) (7a.3);
    -- u6 (0 -> .4 forward, excluding 0): -.
    local a, tr, log = recorder(clip("pingpong"))
    local per = run(a, log, 0.4, 6)
    H.same_log(per[1], { { "a", 0.4 } })
    H.same_log(per[2], { { "m", 0.3 } })
    H.same_log(per[3], { { "z", 0.2 }, { "looped", 0.2 } })
    H.same_log(per[4], { { "m", 0.1 } })
    H.same_log(per[5], { { "a", 0 }, { "looped", 0 } })
    H.same_log(per[6], {})
    assert.are.equal(2, tr.loops)
    assert.is_true(math.abs(tr.time - 0.4) < 1e-12)
  end)
end)

describe("timing, speed -1 (backwards)", function()
  it("loop starts at the length; after a backward wrap the next pass includes the length", function()
    -- u1 [1 -> .6]: z (.4); u2 (.6 -> .2]: m at e=.1 (.3);
    -- u3 (.2 -> 0]: a at e=.2 (.2), looped (.2), then [1 -> .8]: z (.2)
    local a, tr, log = recorder(clip("loop"), { speed = -1 })
    assert.are.equal(1, tr.time)
    local per = run(a, log, 0.4, 3)
    H.same_log(per[1], { { "z", 0.4 } })
    H.same_log(per[2], { { "m", 0.3 } })
    H.same_log(per[3], { { "a", 0.2 }, { "looped", 0.2 }, { "z", 0.2 } })
    assert.is_true(math.abs(tr.time - 0.8) < 1e-12)
  end)

  it("once ends at 0", function()
    local a, tr, log = recorder(clip("once"), { speed = -1 })
    local per = run(a, log, 0.4, 3)
    H.same_log(per[1], { { "z", 0.4 } })
    H.same_log(per[2], { { "m", 0.3 } })
    H.same_log(per[3], { { "a", 0.2 }, { "stopped", 0.2 }, { "ended", 0.2 } })
    assert.is_false(tr.is_playing)
  end)

  it("a negative clip speed plays backwards too (clip speed x track speed)", function()
    local a, _, log = recorder(clip("once", { speed = -2 }))
    local per = run(a, log, 0.2, 3)
    -- v = -2: u1 [1 -> .6]: z (.2); u2 (.6 -> .2]: m at e=.05 (.15); u3 (.2 -> 0]: a at e=.1 (.1), stopped, ended
    H.same_log(per[1], { { "z", 0.2 } })
    H.same_log(per[2], { { "m", 0.15 } })
    H.same_log(per[3], { { "a", 0.1 }, { "stopped", 0.1 }, { "ended", 0.1 } })
  end)

  it("pingpong backwards bounces at 0 then at the length", function()
    -- v=-1, dt .75: u1 [1 -> .25]: z (.75), m (.25); u2 (.25 -> 0]: a at e=.25 (.5), looped (.5),
    -- then (0 -> .5] forward, excluding 0: m at e=.75 (0)
    local a, _, log = recorder(clip("pingpong"), { speed = -1 })
    local per = run(a, log, 0.75, 2)
    H.same_log(per[1], { { "z", 0.75 }, { "m", 0.25 } })
    H.same_log(per[2], { { "a", 0.5 }, { "looped", 0.5 }, { "m", 0 } })
  end)
end)

describe("timing, speed 2.5", function()
  it("loop with dt 0.125 (0.3125 of clip per update)", function()
    -- u1 [0,.3125]: a (.125); u2 (.3125,.625]: m at e=(.5-.3125)/2.5=.075 (.05); u3 (.625,.9375]: -;
    -- u4 (.9375,1.25]: z at e=.025 (.1), looped (.1), a (.1)
    local a, tr, log = recorder(clip("loop"), { speed = 2.5 })
    local per = run(a, log, 0.125, 4)
    H.same_log(per[1], { { "a", 0.125 } })
    H.same_log(per[2], { { "m", 0.05 } })
    H.same_log(per[3], {})
    H.same_log(per[4], { { "z", 0.1 }, { "looped", 0.1 }, { "a", 0.1 } })
    assert.are.equal(0.25, tr.time)
  end)

  it("once with dt 0.125", function()
    local a, _, log = recorder(clip("once"), { speed = 2.5 })
    local per = run(a, log, 0.125, 4)
    H.same_log(per[4], { { "z", 0.1 }, { "stopped", 0.1 }, { "ended", 0.1 } })
  end)
end)

describe("timing, dt values", function()
  it("dt exactly a marker time", function()
    -- u1 [0,.5]: a (.5), m (0); u2 (.5,1]: z (0), looped (0), a (0); u3 (0,.5]: m (0)
    local a, _, log = recorder(clip("loop"))
    local per = run(a, log, 0.5, 3)
    H.same_log(per[1], { { "a", 0.5 }, { "m", 0 } })
    H.same_log(per[2], { { "z", 0 }, { "looped", 0 }, { "a", 0 } })
    H.same_log(per[3], { { "m", 0 } })
  end)

  it("tiny dt fires every marker exactly once per pass", function()
    local a, tr, log = recorder(clip("loop"))
    for _ = 1, 2500 do a:update(0.001) end
    local names = {}
    for i, e in ipairs(log) do
      names[i] = e[1]
      assert(e[2] >= 0 and e[2] <= 0.001 + 1e-12, "late out of range: " .. e[2])
    end
    assert.are.same({ "a", "m", "z", "looped", "a", "m", "z", "looped", "a", "m" }, names)
    assert.are.equal(2, tr.loops)
  end)

  it("one update spanning several loops fires every pass (loop)", function()
    -- dt 3.25: [0,1] a 3.25 m 2.75 z 2.25 looped 2.25 | [0,1] a 2.25 m 1.75 z 1.25 looped 1.25 |
    -- [0,1] a 1.25 m .75 z .25 looped .25 | [0,.25] a .25
    local a, tr, log = recorder(clip("loop"))
    a:update(3.25)
    H.same_log(log, {
      { "a", 3.25 }, { "m", 2.75 }, { "z", 2.25 }, { "looped", 2.25 },
      { "a", 2.25 }, { "m", 1.75 }, { "z", 1.25 }, { "looped", 1.25 },
      { "a", 1.25 }, { "m", 0.75 }, { "z", 0.25 }, { "looped", 0.25 },
      { "a", 0.25 },
    })
    assert.are.equal(3, tr.loops)
    assert.are.equal(0.25, tr.time)
  end)

  it("one update spanning several bounces (pingpong)", function()
    -- [0,1] a 3.25 m 2.75 z 2.25 looped 2.25 | (1 -> 0] m 1.75 a 1.25 looped 1.25 |
    -- (0 -> 1] m .75 z .25 looped .25 | (1 -> .75]: -
    local a, tr, log = recorder(clip("pingpong"))
    a:update(3.25)
    H.same_log(log, {
      { "a", 3.25 }, { "m", 2.75 }, { "z", 2.25 }, { "looped", 2.25 },
      { "m", 1.75 }, { "a", 1.25 }, { "looped", 1.25 },
      { "m", 0.75 }, { "z", 0.25 }, { "looped", 0.25 },
    })
    assert.are.equal(3, tr.loops)
    assert.are.equal(0.75, tr.time)
  end)

  it("one update spanning the whole clip once (once)", function()
    local a, _, log = recorder(clip("once"))
    a:update(3.25)
    H.same_log(log, { { "a", 3.25 }, { "m", 2.75 }, { "z", 2.25 }, { "stopped", 2.25 }, { "ended", 2.25 } })
  end)

  it("ten full lengths in one update still fire every pass (the bound is 64 passes)", function()
    local a, tr, log = recorder(clip("loop"))
    a:update(10.5)
    local count = {}
    for _, e in ipairs(log) do count[e[1]] = (count[e[1]] or 0) + 1 end
    assert.are.same({ a = 11, m = 11, z = 10, looped = 10 }, count)
    assert.are.equal(10, tr.loops)
  end)

  it("beyond the bound whole loops are skipped but counted, and the final partial pass fires", function()
    local a, tr, log = recorder(clip("loop"))
    a:update(100.25)
    local count = {}
    for _, e in ipairs(log) do count[e[1]] = (count[e[1]] or 0) + 1 end
    assert.are.equal(100, tr.loops)
    assert.are.equal(0.25, tr.time)
    assert.are.equal(63, count.looped)          -- 63 passes fired, the rest skipped
    assert.are.same({ "a", 0.25 }, { log[#log][1], log[#log][2] }) -- the final partial pass
  end)
end)

describe("timing, special cases", function()
  it("speed 0: the start point fires once with late = dt, then nothing; never loops or ends", function()
    local a, tr, log = recorder(clip("once"), { speed = 0 })
    local per = run(a, log, 0.3, 3)
    H.same_log(per[1], { { "a", 0.3 } })
    H.same_log(per[2], {})
    H.same_log(per[3], {})
    assert.is_true(tr.is_playing)
  end)

  it("length 0 behaves as hold at 0: items at 0 fire once, a once clip never ends", function()
    local c = assert(anim.clip { length = 0, loop = "once", joints = { j = { position = { { 0, { 1, 2, 3 } } } } },
      markers = { { time = 0, name = "a" } } })
    local a, tr, log = recorder(c)
    local per = run(a, log, 0.5, 3)
    H.same_log(per[1], { { "a", 0.5 } })
    H.same_log(per[2], {})
    assert.is_true(tr.is_playing)
  end)

  it("seeking fires nothing and makes the next pass exclusive of the time sought", function()
    local a, tr, log = recorder(clip("loop"))
    tr.time = 0.5 -- before the first update
    local per = run(a, log, 0.25, 3)
    H.same_log(per[1], {})                -- (.5, .75]: m at .5 is excluded
    H.same_log(per[2], { { "z", 0 }, { "looped", 0 }, { "a", 0 } })
    tr.time = 5                     -- clamps to the length
    assert.are.equal(1, tr.time)
    tr.time = -1
    assert.are.equal(0, tr.time)
    -- the pass after a seek to 0 excludes 0 (no a) and reaches m at .5
    H.same_log(run(a, log, 0.5, 1)[1], { { "m", 0 } })
  end)

  it("at equal times: markers, events, sounds, plays in file order, in both directions", function()
    local c = assert(anim.clip {
      length = 1, loop = "once", joints = { j = { position = { { 0, { 0, 0, 0 } } } } },
      sounds = { { time = 0.5, sound = "s1" } },
      events = { { time = 0.5, name = "e1" }, { time = 0.5, name = "e2" } },
      markers = { { time = 0.5, name = "m1" }, { time = 0.5, name = "m2" } },
    })
    for _, speed in ipairs { 1, -1 } do
      local a = anim.animator(rig)
      local log = {}
      a:on_marker(function(_, n) log[#log + 1] = n end)
      a:on_event(function(_, n) log[#log + 1] = n end)
      a:on_sound(function(_, id) log[#log + 1] = id end)
      a:play(c, { fade = 0, speed = speed })
      a:update(1)
      assert.are.same({ "m1", "m2", "e1", "e2", "s1" }, log)
    end
  end)

  it("with common frame steps, markers at any time fire exactly once per pass (passes join exactly)", function()
    -- markers every 1/100 s, frame steps that are not dyadic: none may be
    -- lost in a gap between passes or fired twice in an overlap
    local markers = {}
    for k = 1, 199 do markers[k] = { time = k / 100, name = tostring(k) } end
    local c = assert(anim.clip { length = 2, loop = "loop", joints = {}, markers = markers })
    for _, dt in ipairs { 1 / 60, 1 / 30, 0.02, 0.1, 1 / 7 } do
      local a = anim.animator(rig)
      local count = {}
      a:on_marker(function(_, n) count[n] = (count[n] or 0) + 1 end)
      a:play(c, { fade = 0 })
      for _ = 1, math.floor(3.999 / dt) do a:update(dt) end -- almost two loops
      for k = 1, 199 do
        local got = count[tostring(k)]
        assert(got == 1 or got == 2, string.format("dt %g: marker %d fired %s times", dt, k, tostring(got)))
      end
      local total = 0
      for _, n in pairs(count) do total = total + n end
      -- every marker once in the first loop, and those the second reached once more
      local second = 0
      for k = 1, 199 do if k / 100 <= math.floor(3.999 / dt) * dt - 2 + 1e-9 then second = second + 1 end end
      assert.are.equal(199 + second, total)
    end
  end)

  it("a once track stopped while it plays to its end says stopped once", function()
    local a, tr, log = recorder(clip("once"))
    a:update(0.8)
    tr:stop(0.5)
    a:update(0.3) -- stopped at the start; the end at e=.2: z, then ended (not stopped again)
    H.same_log(log, { { "a", 0.8 }, { "m", 0.3 }, { "stopped", 0.3 }, { "z", 0.1 }, { "ended", 0.1 } })
  end)

  it("huge steps, speeds and tiny lengths saturate: no NaN, no wrapped loop count, items still fire", function()
    local a, tr, log = recorder(clip("loop"))
    a:update(1e300)
    assert.is_true(tr.loops > 0)
    assert.is_true(tr.time >= 0 and tr.time <= 1)
    assert.are.equal("a", log[1][1])
    local b, tb = recorder(clip("pingpong"))
    b:update(1e20)
    assert.is_true(tb.loops > 0 and tb.time >= 0 and tb.time <= 1)
    local tiny = assert(anim.clip { length = 1e-300, loop = "loop", joints = {} })
    local c2 = anim.animator(rig)
    local t2 = c2:play(tiny, { fade = 0 })
    c2:update(1 / 60)
    assert.is_true(t2.loops > 0 and t2.time >= 0)
    local fast, tf, flog = recorder(clip("loop", { speed = 1e200 }), { speed = 1e200 })
    fast:update(0)
    fast:update(0.1)
    assert.is_true(tf.time == tf.time and tf.time >= 0 and tf.time <= 1)
    assert.are.equal("a", flog[1][1]) -- the first pass's start still fires
  end)
end)

-- SEMANTICS 7a.21: what happens at an instant is delivered by the first
-- update that reaches it, update(0) included.  A track sitting on the bound
-- its playhead moves toward wraps, bounces or ends in that update, late 0,
-- and the pose is the one after; on the other bound nothing happens (the
-- seek made the pass exclusive of the time sought, 7a.6).
describe("update(0) on a bound (SEMANTICS 7a.21)", function()
  -- each case: loop mode, speed, where the seek goes, the callbacks of
  -- update(0), the time after it, and whether the track still plays
  local cases = {
    -- forward to the end: a wrap fires looped then the items at 0
    { "loop", 1, 1, { { "looped", 0 }, { "a", 0 } }, 0, true },
    -- backward to the start: the wrap goes to the length, inclusive there
    { "loop", -1, 0, { { "looped", 0 }, { "z", 0 } }, 1, true },
    -- bounces: looped, the reversed pass excludes the bounce time
    { "pingpong", 1, 1, { { "looped", 0 } }, 1, true },
    { "pingpong", -1, 0, { { "looped", 0 } }, 0, true },
    -- once ends where the playhead meets the bound
    { "once", 1, 1, { { "stopped", 0 }, { "ended", 0 } }, 1, false },
    { "once", -1, 0, { { "stopped", 0 }, { "ended", 0 } }, 0, false },
    -- the other bound: moving inward, nothing is crossed
    { "loop", 1, 0, {}, 0, true }, { "loop", -1, 1, {}, 1, true },
    { "pingpong", 1, 0, {}, 0, true }, { "pingpong", -1, 1, {}, 1, true },
    { "once", 1, 0, {}, 0, true }, { "once", -1, 1, {}, 1, true },
  }
  for _, case in ipairs(cases) do
    local mode, speed, at, want, time, playing = compat.unpack(case)
    it(string.format("%s at speed %d, seek to %d, update(0)", mode, speed, at), function()
      local a, tr, log = recorder(clip(mode), { speed = speed })
      a:update(0.25)
      for k in pairs(log) do log[k] = nil end
      tr.time = at
      a:update(0)
      H.same_log(log, want)
      assert.are.equal(time, tr.time)
      assert.are.equal(playing, tr.is_playing)
      -- the pose of that update is the one after the wrap or bounce
      assert.are.equal(time, (a:get("j")))
      -- and the next update(0) does nothing more
      a:update(0)
      H.same_log(log, want)
    end)
  end

  it("a change of the speed's sign on a bound wraps in the next update(0)", function()
    local a, tr, log = recorder(clip("loop"))
    a:update(1) -- lands on the end: wraps in that update (7a.1), now at 0 moving forward
    H.same_log(log, { { "a", 1 }, { "m", 0.5 }, { "z", 0 }, { "looped", 0 }, { "a", 0 } })
    for k in pairs(log) do log[k] = nil end
    tr:adjust_speed(-1)
    a:update(0)
    H.same_log(log, { { "looped", 0 }, { "z", 0 } })
    assert.are.equal(1, tr.time)
  end)

  it("hold on its last frame stays there: update(0) fires nothing", function()
    local a, tr, log = recorder(clip("hold"))
    tr.time = 1
    a:update(0)
    a:update(0)
    H.same_log(log, {})
    assert.are.equal(1, tr.time)
    assert.is_true(tr.is_playing)
  end)

  it("speed 0 never leaves its bound (7a.4)", function()
    local a, tr, log = recorder(clip("loop"), { speed = 0 })
    a:update(0.25)
    for k in pairs(log) do log[k] = nil end
    tr.time = 1
    a:update(0)
    a:update(0.5)
    H.same_log(log, {})
  end)
end)
