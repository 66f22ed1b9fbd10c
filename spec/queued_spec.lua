-- Queued clips and cross-fades (issue 22): animator:play(clip, { after =
-- track, fade = s }) starts where `track` reaches its end (once, hold: its
-- last frame; loop, pingpong: the end of the pass under way) and fades in
-- while `track` fades out and ends; track:crossfade(clip, fade).  Exact
-- callback sequences, `late` within 1e-9, each worked by hand above it.
local anim = require "anim"
local H = require "spec.helper"

local rig = assert(anim.rig { joints = { { name = "j" } } })

-- A clip of length 1 with markers at 0 (a), 0.5 (m) and 1 (z); its x goes
-- from 0 to 1 (from 10 to 11 for "B": the pose tells them apart).
local function clip(name, loop, base)
  base = base or 0
  return assert(anim.clip({
    length = 1, loop = loop,
    joints = { j = { position = { { 0, { base, 0, 0 } }, { 1, { base + 1, 0, 0 } } } } },
    markers = { { time = 0, name = "a" }, { time = 0.5, name = "m" }, { time = 1, name = "z" } },
  }, name))
end

-- Records every callback of the tracks given as "track:name@late".
local function recorder(a)
  local log = {}
  local names = setmetatable({}, { __mode = "k" })
  a:on_marker(function(t, name, _, late) log[#log + 1] = { names[t] .. ":" .. name, late } end)
  local function watch(t, name)
    names[t] = name
    t:on_looped(function(_, late) log[#log + 1] = { name .. ":looped", late } end)
    t:on_stopped(function(_, late) log[#log + 1] = { name .. ":stopped", late } end)
    t:on_ended(function(_, late) log[#log + 1] = { name .. ":ended", late } end)
    return t
  end
  return log, watch
end


local run = H.per_update

-- An animator playing A (loop mode loop_a, fade 0) and B (loop_b, x from
-- 10) queued after it with fade f, both watched.
local function queue(loop_a, loop_b, f)
  local an = anim.animator(rig)
  local log, watch = recorder(an)
  local A = watch(an:play(clip("A", loop_a), { fade = 0 }), "A")
  local B = watch(an:play(clip("B", loop_b, 10), { after = A, fade = f }), "B")
  return an, log, A, B, watch
end

describe("a clip queued after a once track", function()
  it("starts at its end, fading in while the once track holds its last frame and fades out", function()
    -- A: u1 [0,.25] a@.25; u2 m@0; u3 -; u4 reaches 1 at e = .25: z, A
    -- stopped (its fade-out begins), B starts there: B a, all late 0.
    -- u5 (dt .1): A at half its fade, B at half; u6 (dt .1): A's fade
    -- ends at e = .1 (ended, late 0); u7: B's m at .5 (B at .3 -> .55).
    local an, log, A, B = queue("once", "once", 0.2)
    assert.is_false(B.is_playing)
    assert.are.same({ A, B }, an:tracks())
    local per = run(an, log, { 0.25, 0.25, 0.25 })
    H.same_log(per[1], { { "A:a", 0.25 } })
    H.same_log(per[2], { { "A:m", 0 } })
    H.same_log(per[3], {})
    assert.is_false(B.is_playing)
    per = run(an, log, { 0.25 })
    H.same_log(per[1], { { "A:z", 0 }, { "A:stopped", 0 }, { "B:a", 0 } })
    assert.is_true(B.is_playing and A.is_playing)
    assert.are.equal(1, A.time)
    per = run(an, log, { 0.1 })
    H.same_log(per[1], {})
    -- the pose: half A's last frame (x = 1), half B at 0.1 (x = 10.1)
    assert.is_true(math.abs(an:get("j") - (0.5 * 1 + 0.5 * 10.1)) < 1e-12)
    assert.is_true(math.abs(A.fade - 0.5) < 1e-12 and math.abs(B.fade - 0.5) < 1e-12)
    per = run(an, log, { 0.1, 0.25 })
    H.same_log(per[1], { { "A:ended", 0 } })
    H.same_log(per[2], {})
    assert.is_false(A.is_playing)
    per = run(an, log, { 0.3 })
    H.same_log(per[1], { { "B:m", 0.25 } }) -- (B: .45 -> .75)
    assert.is_true(math.abs(an:get("j") - 10.75) < 1e-12)
  end)

  it("with fade 0, starts where the once track ends there", function()
    -- u1 [0,.6]: a@.6, m@.1; u2 (.6, 1.2]: A reaches 1 at e = .4: z, stopped,
    -- ended (late .2), B a@.2; B plays .2 of itself in u2
    local an, log = queue("once", "once", 0)
    local per = run(an, log, { 0.6, 0.6 })
    H.same_log(per[1], { { "A:a", 0.6 }, { "A:m", 0.1 } })
    H.same_log(per[2], { { "A:z", 0.2 }, { "A:stopped", 0.2 }, { "A:ended", 0.2 }, { "B:a", 0.2 } })
    -- A is not posed any more: B alone, at 0.2
    assert.is_true(math.abs(an:get("j") - 10.2) < 1e-12)
  end)
end)

describe("a clip queued after a loop track", function()
  it("starts at the end of the pass under way; the loop goes on into its next pass until its fade ends", function()
    -- dt .375.  A: u1 a@.375; u2 m at e = .125 (late .25); u3 (.75 ->
    -- 1.125): z at e = .25 (late .125), the wrap (A looped), its fade-out
    -- (A stopped), its next pass (A a), all late .125; B starts there: B
    -- a@.125.  The fade (.25) ends at e = .5: in u4 at e = .125, A
    -- ended@.25; B (.125 -> .5): m at the end (late 0).
    local an, log, A, B = queue("loop", "once", 0.25)
    local per = run(an, log, { 0.375, 0.375, 0.375, 0.375 })
    H.same_log(per[1], { { "A:a", 0.375 } })
    H.same_log(per[2], { { "A:m", 0.25 } })
    H.same_log(per[3], { { "A:z", 0.125 }, { "A:looped", 0.125 }, { "A:stopped", 0.125 }, { "A:a", 0.125 }, { "B:a", 0.125 } })
    H.same_log(per[4], { { "A:ended", 0.25 }, { "B:m", 0 } })
    assert.are.equal(1, A.loops)
    assert.is_false(A.is_playing)
    assert.is_true(B.is_playing)
  end)

  it("with fade 0, ends the loop at the bound (ended, not looped)", function()
    local an, log, A = queue("loop", "loop", 0)
    local per = run(an, log, { 0.7, 0.7 })
    H.same_log(per[1], { { "A:a", 0.7 }, { "A:m", 0.2 } })
    H.same_log(per[2], { { "A:z", 0.4 }, { "A:stopped", 0.4 }, { "A:ended", 0.4 }, { "B:a", 0.4 } })
    assert.are.equal(0, A.loops)
    assert.is_true(math.abs(an:get("j") - 10.4) < 1e-12)
  end)

  it("a long fade goes on through more passes of the loop, firing them", function()
    -- dt 2.5 from .9, fade 1.5: A reaches 1 at e = .1 (z, looped,
    -- stopped, a; B a), goes on (m at .6, z looped a at 1.1) and its fade
    -- ends at e = 1.6 as it passes m again (m, then ended); B goes on
    -- (m at .6, z looped a at 1.1, m at 1.6, z looped a at 2.1)
    local an, log = queue("loop", "loop", 1.5)
    local per = run(an, log, { 0.9, 2.5 })
    H.same_log(per[1], { { "A:a", 0.9 }, { "A:m", 0.4 } })
    H.same_log(per[2], {
      { "A:z", 2.4 }, { "A:looped", 2.4 }, { "A:stopped", 2.4 }, { "A:a", 2.4 }, { "B:a", 2.4 },
      { "A:m", 1.9 }, { "B:m", 1.9 },
      { "A:z", 1.4 }, { "A:looped", 1.4 }, { "A:a", 1.4 }, { "B:z", 1.4 }, { "B:looped", 1.4 }, { "B:a", 1.4 },
      { "A:m", 0.9 }, { "A:ended", 0.9 }, { "B:m", 0.9 },
      { "B:z", 0.4 }, { "B:looped", 0.4 }, { "B:a", 0.4 },
    })
  end)

  it("after a pingpong track, at the bounce under way", function()
    local an, log = queue("pingpong", "once", 0)
    local per = run(an, log, { 0.75, 0.75 })
    H.same_log(per[1], { { "A:a", 0.75 }, { "A:m", 0.25 } })
    H.same_log(per[2], { { "A:z", 0.5 }, { "A:stopped", 0.5 }, { "A:ended", 0.5 }, { "B:a", 0.5 }, { "B:m", 0 } })
  end)
end)

describe("queued clips", function()
  it("after a hold track: at its last frame, even one it sits on", function()
    local an = anim.animator(rig)
    local log, watch = recorder(an)
    local A = watch(an:play(clip("A", "hold"), { fade = 0 }), "A")
    local per = run(an, log, { 1.5 })
    H.same_log(per[1], { { "A:a", 1.5 }, { "A:m", 1 }, { "A:z", 0.5 } })
    watch(an:play(clip("B", "once", 10), { after = A, fade = 0.2 }), "B")
    per = run(an, log, { 0.1, 0.1 })
    H.same_log(per[1], { { "A:stopped", 0.1 }, { "B:a", 0.1 } })
    H.same_log(per[2], { { "A:ended", 0 } })
  end)

  it("chain: C after B after A", function()
    local an = anim.animator(rig)
    local log, watch = recorder(an)
    local A = watch(an:play(clip("A", "once"), { fade = 0 }), "A")
    local B = watch(an:play(clip("B", "once"), { after = A, fade = 0 }), "B")
    watch(an:play(clip("C", "once"), { after = B, fade = 0 }), "C")
    local per = run(an, log, { 2.5 })
    H.same_log(per[1], {
      { "A:a", 2.5 }, { "A:m", 2 }, { "A:z", 1.5 }, { "A:stopped", 1.5 }, { "A:ended", 1.5 }, { "B:a", 1.5 },
      { "B:m", 1 }, { "B:z", 0.5 }, { "B:stopped", 0.5 }, { "B:ended", 0.5 }, { "C:a", 0.5 }, { "C:m", 0 },
    })
  end)

  it("start where their track ends another way: stopped before its end", function()
    -- A stopped at .3 with fade .2: passes m as its fade ends at e = .2 of
    -- the next update; B starts there (fading in over .1)
    local an, log, A = queue("once", "once", 0.1)
    run(an, log, { 0.3 })
    A:stop(0.2)
    local per = run(an, log, { 0.3 })
    H.same_log(per[1], { { "A:stopped", 0.3 }, { "A:m", 0.1 }, { "A:ended", 0.1 }, { "B:a", 0.1 } })
  end)

  it("is cancelled by a stop before it starts: stopped and ended, never played", function()
    local an, log, _, B = queue("once", "once", 0)
    B:stop()
    local per = run(an, log, { 0.6, 0.6 })
    -- (at e = 0, A first: the older track, 7a.12)
    H.same_log(per[1], { { "A:a", 0.6 }, { "B:stopped", 0.6 }, { "B:ended", 0.6 }, { "A:m", 0.1 } })
    H.same_log(per[2], { { "A:z", 0.2 }, { "A:stopped", 0.2 }, { "A:ended", 0.2 } })
    -- A can take another now
    local C = an:play(clip("C", "once"), { after = an:play(clip("D", "loop"), { fade = 0 }) })
    assert.is_false(C.is_playing)
  end)

  it("after a track that has ended, plays from the next update", function()
    local an = anim.animator(rig)
    local A = an:play(clip("A", "once"), { fade = 0 })
    an:update(1.5)
    assert.is_false(A.is_playing)
    local B = an:play(clip("B", "once"), { after = A })
    assert.is_true(B.is_playing)
  end)

  it("after or of blend spaces", function()
    local an = anim.animator(rig)
    local log, watch = recorder(an)
    local space = anim.blendspace { points = { { clip = clip("S1", "loop"), at = 0 }, { clip = clip("S2", "loop", 10), at = 1 } } }
    local S = watch(an:play(space, { at = 0.5, fade = 0 }), "S")
    local Q = watch(an:play(space, { after = S, fade = 0, at = 1 }), "Q")
    local per = run(an, log, { 0.75, 0.75 })
    -- (the points tie at 0.5: the first, dominant, fires its items alone)
    H.same_log(per[1], { { "S:a", 0.75 }, { "S:m", 0.25 } })
    H.same_log(per[2], { { "S:z", 0.5 }, { "S:stopped", 0.5 }, { "S:ended", 0.5 }, { "Q:a", 0.5 }, { "Q:m", 0 } })
    assert.is_true(Q.is_playing)
    assert.is_true(math.abs(an:get("j") - 10.5) < 1e-12)
  end)

  it("name a bad `after`", function()
    local an, other = anim.animator(rig), anim.animator(rig)
    local A = an:play(clip("A", "once"))
    local function err(...)
      local ok, e = pcall(an.play, an, ...)
      assert.is_false(ok)
      return e
    end
    assert.truthy(err(clip("B", "once"), { after = 3 }):find("bad argument #2 to 'play' (after must be a track, got number)", 1, true))
    assert.truthy(err(clip("B", "once"), { after = other:play(clip("X", "once")) }):find(
      "bad argument #2 to 'play' (after: the track plays on another animator)", 1, true))
    an:play(clip("B", "once"), { after = A })
    assert.truthy(err(clip("C", "once"), { after = A }):find(
      "bad argument #2 to 'play' (after: that track already has a track queued after it (queue after that one))", 1, true))
    assert.are.equal(2, #an:tracks())
  end)
end)

describe("track:crossfade", function()
  it("plays the clip now and stops the track over the same fade", function()
    -- u1 (dt .1): A a@.1; crossfade(B, .2); u2: A stopped@.1 (at the start of
    -- the update), B a@.1; u3: A's fade ends at e = .1 (ended@0)
    local an = anim.animator(rig)
    local log, watch = recorder(an)
    local A = watch(an:play(clip("A", "loop"), { fade = 0 }), "A")
    run(an, log, { 0.1 })
    local B = watch(A:crossfade(clip("B", "loop", 10), 0.2), "B")
    local per = run(an, log, { 0.1, 0.1 })
    H.same_log(per[1], { { "A:stopped", 0.1 }, { "B:a", 0.1 } })
    H.same_log(per[2], { { "A:ended", 0 } })
    assert.is_true(B.is_playing and not A.is_playing)
    assert.are.equal(1, B.fade)
    -- a blend space too, with the default fade
    local space = anim.blendspace { points = { { clip = clip("S", "loop"), at = 0 } } }
    local S = watch(B:crossfade(space), "S")
    assert.are.equal(space, S.clip)
    an:update(0.05)
    assert.is_true(math.abs(B.fade - 0.5) < 1e-12 and math.abs(S.fade - 0.5) < 1e-12)
    local ok, e = pcall(B.crossfade, B, clip("C", "loop"), -1)
    assert.is_false(ok)
    assert.truthy(e:find("bad argument #2 to 'crossfade' (fade must be a finite number >= 0, got -1)", 1, true))
  end)
end)
