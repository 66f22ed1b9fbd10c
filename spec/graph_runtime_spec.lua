-- State machines played (docs/format-reference.md "Playing a graph"):
-- transitions at their exact instants, whatever the frame rate; fades,
-- interruptions, triggers, callbacks in the update's stream; the
-- controller's API and its messages.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"

local rig = anim.rig("player")

-- A clip turning `joint` from 0 to `deg` about y over its length.
local function clip(name, length, loop, opts)
  opts = opts or {}
  local t = { length = length, loop = loop or "loop", markers = opts.markers, blend = opts.blend,
    joints = { [opts.joint or "head"] = { rotation = { { 0, { 0, 0, 0 } }, { length, { 0, opts.deg or 90, 0 } } } } } }
  return assert(anim.clip(t, name))
end

local CLIPS = {
  a = clip("a", 0.7), b = clip("b", 1.3), c = clip("c", 0.45, "once"), d = clip("d", 1),
  arm = clip("arm", 1, "loop", { joint = "rightArm" }),
}

local function graph(layers, extra)
  local g = { version = 1, layers = layers }
  for k, v in pairs(extra or {}) do g[k] = v end
  return assert(anim.graph(g, CLIPS))
end

-- One layer named base: its states (name -> clip name, or a table) and
-- transitions.
local function base(entry, states, transitions)
  local st = {}
  for k, v in pairs(states) do st[k] = type(v) == "string" and { clip = v } or v end
  return { name = "base", entry = entry, states = st, transitions = transitions }
end

-- Runs an animator under graph g through dts; log: every callback with
-- the time it happened (now - late), pose: head's and rightArm's rotation.
local function run(g, dts, before)
  local a = anim.animator(rig)
  local c = a:control(g)
  local log, now = {}, 0
  local function at(late) return now - late end
  c:on_exit(function(l, s, late) log[#log + 1] = { "exit", l, s, at(late) } end)
  c:on_transition(function(l, f, t, late) log[#log + 1] = { "transition", l, f .. ">" .. t, at(late) } end)
  c:on_enter(function(l, s, late) log[#log + 1] = { "enter", l, s, at(late) } end)
  a:on_marker(function(_, name, _, late, cl) log[#log + 1] = { "marker", cl.name, name, at(late) } end)
  for i, dt in ipairs(dts) do
    if before then before(c, i) end
    now = now + dt
    a:update(dt)
  end
  return log, { a:get("head") }, { a:get("rightArm") }, a, c
end

-- Random dts summing to T (the last one cut); seeded.
local function splits(T, seed, max)
  math.randomseed(seed)
  local dts, t = {}, 0
  while t < T - 1e-12 do
    local dt = math.random() * max
    if t + dt > T then dt = T - t end
    dts[#dts + 1] = dt
    t = t + dt
  end
  return dts
end

local function same_log(x, y, tol)
  assert.are.equal(#x, #y)
  for i = 1, #x do
    for k = 1, 3 do assert.are.equal(x[i][k], y[i][k], "entry " .. i) end
    assert(math.abs(x[i][4] - y[i][4]) <= tol, string.format("entry %d: %.17g vs %.17g", i, x[i][4], y[i][4]))
  end
end

local function near_all(p, q, tol)
  for i = 1, #p do assert(math.abs(p[i] - q[i]) <= tol, string.format("%d: %.17g vs %.17g", i, p[i], q[i])) end
end

describe("a state machine's timing", function()
  it("a parameter set before update starts its transition at that update's start, the pose holding dt of the fade", function()
    local g = graph({ base("a", { a = "a", d = "d" }, { { from = "a", to = "d", when = { { "go" } }, duration = 0.5 } }) },
      { parameters = { go = { type = "bool" } } })
    local log, _, _, a, c = run(g, { 0.1, 0.1 }, function(ctl, i) if i == 2 then ctl:set("go", true) end end)
    same_log(log, {
      { "enter", "base", "a", 0 },
      { "exit", "base", "a", 0.1 }, { "transition", "base", "a>d", 0.1 }, { "enter", "base", "d", 0.1 },
    }, 1e-15)
    local from, to, progress = c:transition()
    assert.are.same({ "a", "d" }, { from, to })
    assert(math.abs(progress - 0.2) < 1e-12)
    -- d's track: 0.1 s in, its fade 0.2 of the way
    local d
    for _, t in ipairs(a:tracks()) do if t.clip == CLIPS.d then d = t end end
    assert(math.abs(d.time - 0.1) < 1e-12 and math.abs(d.fade - 0.2) < 1e-12)
  end)

  it("a trigger fired before update starts its transition in that update", function()
    local g = graph({ base("a", { a = "a", d = "d" }, { { from = "a", to = "d", when = { { "jump" } }, duration = 0 } }) },
      { parameters = { jump = { type = "trigger" } } })
    local log = run(g, { 0.1, 0.1, 0.1 }, function(ctl, i) if i == 2 then ctl:fire("jump") end end)
    assert.are.equal("a>d", log[3][3])
    assert(math.abs(log[3][4] - 0.1) < 1e-15)
  end)

  it("exit times fire at the same instants, with the same poses, for three splittings of the same time", function()
    local g = graph { base("a", { a = "a", b = { clip = "b", speed = 1.7 }, c = "c" }, {
      { from = "a", to = "b", exit_time = 0.6, duration = 0.23 },
      { from = "b", to = "c", exit_time = 1.35, duration = 0.11 },
      { from = "c", to = "a", exit_time = 1.2, duration = 0.3, curve = "sineinout" } }) }
    local T = 6.3
    local fixed = {}
    for i = 1, math.floor(T * 60) do fixed[i] = 1 / 60 end
    fixed[#fixed + 1] = T - #fixed / 60
    local l1, p1 = run(g, fixed)
    local l2, p2 = run(g, splits(T, 1, 0.1))
    local l3, p3 = run(g, splits(T, 2, 0.37))
    assert.is_true(#l1 > 20)
    same_log(l1, l2, 1e-9)
    same_log(l1, l3, 1e-9)
    near_all(p1, p2, 1e-9)
    near_all(p1, p3, 1e-9)
    -- the first: a reaches 0.6 of its 0.7 s at 0.42
    assert.are.same({ "transition", "base", "a>b" }, { l1[3][1], l1[3][2], l1[3][3] })
    assert(math.abs(l1[3][4] - 0.42) < 1e-12)
    -- b at speed 1.7: 1.35 of 1.3 / 1.7 s after 0.42
    assert(math.abs(l1[6][4] - (0.42 + 1.35 * 1.3 / 1.7)) < 1e-12)
  end)

  it("an exit time below 1 fires in every loop at that phase, one from 1 up once", function()
    local g = graph({ base("a", { a = "a", d = "d" }, {
      { from = "a", to = "d", exit_time = 0.5, when = { { "go" } } },
      { from = "d", to = "a", exit_time = 1.5 } }) }, { parameters = { go = { type = "bool" } } })
    -- go set at 1.0: a's next 0.5 phase is its second loop's, at 1.05
    local dts = {}
    for i = 1, 40 do dts[i] = 0.1 end
    local log = run(g, dts, function(ctl, i) if i == 11 then ctl:set("go", true) end end)
    assert.are.equal("a>d", log[3][3])
    assert(math.abs(log[3][4] - 1.05) < 1e-12)
    -- d (1 s) leaves at 1.5 of its normalized time, once
    assert.are.equal("d>a", log[6][3])
    assert(math.abs(log[6][4] - 2.55) < 1e-12)
  end)

  it("A -> B interrupted by C blends three tracks, B fading out from where it got", function()
    local g = graph({ base("a", { a = "a", b = "b", d = "d" }, {
      { from = "a", to = "b", when = { { "go" } }, duration = 1, interrupt = "destination" },
      { from = "b", to = "d", when = { { "hit" } }, duration = 1 } }) },
      { parameters = { go = { type = "bool" }, hit = { type = "bool" } } })
    local _, _, _, a, c = run(g, { 0.1, 0.4, 0.2 }, function(ctl, i)
      if i == 2 then ctl:set("go", true) end
      if i == 3 then ctl:set("hit", true) end
    end)
    local fades = {}
    for _, t in ipairs(a:tracks()) do fades[t.clip.name] = t.fade end
    -- a fades out over 1 s from 0.1 (0.6 at 0.7), b faded in to 0.4 then out from 0.5 over 1 s
    assert(math.abs(fades.a - 0.4) < 1e-12, fades.a)
    assert(math.abs(fades.b - 0.4 * 0.8) < 1e-12, fades.b)
    assert(math.abs(fades.d - 0.2) < 1e-12, fades.d)
    assert.are.same({ "d", 0.2 }, { select(1, c:current()), (select(2, c:current())) })
  end)

  it("interrupt none lets nothing fire until the fade ends; source and destination say whose transitions may", function()
    local function g(interrupt)
      return graph({ base("a", { a = "a", b = "b", d = "d" }, {
        { from = "a", to = "b", when = { { "go" } }, duration = 0.5, interrupt = interrupt },
        { from = "a", to = "d", when = { { "alt" } }, duration = 0 },
        { from = "b", to = "d", when = { { "alt" } }, duration = 0 } }) },
        { parameters = { go = { type = "bool" }, alt = { type = "bool" } } })
    end
    local function second(interrupt)
      local log = run(g(interrupt), { 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1 }, function(ctl, i)
        if i == 2 then ctl:set("go", true) end
        if i == 3 then ctl:set("alt", true) end
      end)
      return log[6][3], log[6][4]
    end
    local t, at = second("none")
    assert.are.same({ "b>d", 0.6 }, { t, math.floor(at * 1e9 + 0.5) / 1e9 })
    t, at = second("source")      -- a's own transition to d, at once
    assert.are.same({ "b>d", 0.2 }, { t, math.floor(at * 1e9 + 0.5) / 1e9 })
    t, at = second("destination") -- b's transition to d, at once
    assert.are.same({ "b>d", 0.2 }, { t, math.floor(at * 1e9 + 0.5) / 1e9 })
  end)

  it("a chain of zero-duration transitions resolves in one update, bounded at 8 per layer with a warning once", function()
    local g = graph({ base("a", { a = "a", b = "b", d = "d" }, {
      { from = "a", to = "b", when = { { "go" } }, duration = 0 },
      { from = "b", to = "d", duration = 0 },
      { from = "d", to = "a", when = { { "loop" } }, duration = 0 } }) },
      { parameters = { go = { type = "bool" }, loop = { type = "bool" } } })
    local log, _, _, _, c = run(g, { 0.1, 0.1 }, function(ctl, i) if i == 2 then ctl:set("go", true) end end)
    assert.are.same({ "a>b", "b>d" }, { log[3][3], log[6][3] })
    assert.are.equal("d", (c:current()))
    -- a cycle: 8 transitions per update, then the next update goes on
    local lines = {}
    local w = rawget(_G, "warn")
    local function catch(fn)
      if w then rawset(_G, "warn", function(m) lines[#lines + 1] = m end)
      else rawset(io, "stderr", { write = function(_, m) lines[#lines + 1] = m end }) end
      local ok, err = pcall(fn)
      if w then rawset(_G, "warn", w) else rawset(io, "stderr", io.stderr) end
      assert(ok, err)
    end
    local n = 0
    catch(function()
      local a = anim.animator(rig)
      local ctl = a:control(g)
      ctl:on_transition(function() n = n + 1 end)
      ctl:set("go", true)
      ctl:set("loop", true)
      a:update(0.1)
      assert.are.equal(8, n)
      a:update(0.1)
      assert.are.equal(16, n)
    end)
    assert.are.equal(1, #lines)
    assert.truthy(lines[1]:find("layer 'base' had more than 8 transitions in one update", 1, true))
  end)

  it("delivers at one instant: exit, transition, entry, then the markers of that instant", function()
    CLIPS.m = clip("m", 1, "loop", { markers = { { time = 0, name = "start" } } })
    local g = graph({ base("a", { a = "a", m = "m" }, { { from = "a", to = "m", exit_time = 0.5 } }) })
    local log = run(g, { 0.2, 0.2 })
    same_log(log, {
      { "enter", "base", "a", 0 },
      { "exit", "base", "a", 0.35 }, { "transition", "base", "a>m", 0.35 }, { "enter", "base", "m", 0.35 },
      { "marker", "m", "start", 0.35 },
    }, 1e-12)
  end)

  it("queues a layer's exits, transitions and entries only while a callback listens, its tracks listed all the same", function()
    local core = require "anim.core"
    local g = graph({ base("a", { a = "a", d = "d" }, { { from = "a", to = "d", when = { { "go" } } } }) },
      { parameters = { go = { type = "bool" } } })
    local a = anim.animator(rig)
    local c = a:control(g)
    local function entries()
      local n, i = 0, 1
      while core.animator_event(a, i) do
        if core.animator_event(a, i) >= 4 then n = n + 1 end
        i = i + 1
      end
      return n
    end
    a:update(0.1)
    assert.are.equal(0, entries())
    assert.are.equal(1, #a:tracks())  -- (its track has its object all the same)
    local conn = c:on_transition(function() end)
    c:set("go", true)
    a:update(0.1)
    assert.are.equal(1, entries())
    assert.are.equal(CLIPS.d, a:tracks()[1].clip)  -- (a's track cut at once: a fade of 0)
    conn:disconnect()
    c:force("a")
    a:update(0.1)
    assert.are.equal(0, entries())
    -- on a batch update too
    c:force("d")
    anim.update({ a }, 0.1)
    assert.are.equal("d", (c:current()))
    for _, t in ipairs(a:tracks()) do assert.is_true(t.clip == CLIPS.d or t.clip == CLIPS.a) end
  end)

  it("the entry state's on_enter has late = the first dt", function()
    local g = graph { base("a", { a = "a" }, {}) }
    local a = anim.animator(rig)
    local got
    a:control(g):on_enter(function(l, s, late) got = { l, s, late } end)
    a:update(0.25)
    assert.are.same({ "base", "a", 0.25 }, got)
  end)

  it("the mix table: the exact pair, then from->*, then *->to, then *, else 0; the transition's own first", function()
    local params = { parameters = { t = { type = "int" } } }
    local function dur(mix, own)
      local g = graph({ base("a", { a = "a", b = "b", d = "d" }, {
        { from = "a", to = "b", when = { { "t", "==", 1 } }, duration = own },
        { from = "any", to = "d", when = { { "t", "==", 2 } }, can_self = false } }) },
        { parameters = params.parameters, mix = mix })
      local _, _, _, _, c = run(g, { 0.1, 0.01 }, function(ctl, i) if i == 2 then ctl:set("t", 1) end end)
      local _, _, p = c:transition()
      return p and 0.01 / p
    end
    local function near(x, y) return x and math.abs(x - y) < 1e-9 end
    assert.is_true(near(dur({ ["a->b"] = 0.5, ["a->*"] = 0.4, ["*->b"] = 0.3, ["*"] = 0.2 }), 0.5))
    assert.is_true(near(dur({ ["a->*"] = 0.4, ["*->b"] = 0.3, ["*"] = 0.2 }), 0.4))
    assert.is_true(near(dur({ ["*->b"] = 0.3, ["*"] = 0.2 }), 0.3))
    assert.is_true(near(dur({ ["*"] = 0.2 }), 0.2))
    assert.is_nil(dur({}))                          -- 0: done at once
    assert.is_true(near(dur({ ["a->b"] = 0.5 }, 0.8), 0.8))
  end)
end)

describe("a state machine's triggers", function()
  local params = { parameters = { jump = { type = "trigger" }, ready = { type = "bool" } } }
  local function g()
    return graph({ base("a", { a = "a", d = "d" }, {
      { from = "a", to = "d", when = { { "jump" }, { "ready" } }, duration = 0 } }) }, params)
  end

  it("one not consumed by the end of its update is cleared", function()
    local log, _, _, _, c = run(g(), { 0.1, 0.1, 0.1 }, function(ctl, i)
      if i == 1 then ctl:fire("jump") end
      if i == 2 then ctl:set("ready", true) end
    end)
    assert.are.equal(1, #log)
    assert.is_false(c:get("jump"))
  end)

  it("one fired with a buffer stays armed for its seconds, then expires", function()
    local log = run(g(), { 0.1, 0.1, 0.1 }, function(ctl, i)
      if i == 1 then ctl:fire("jump", { buffer = 0.15 }) end
      if i == 2 then ctl:set("ready", true) end
    end)
    assert.are.equal("a>d", log[3][3])
    assert(math.abs(log[3][4] - 0.1) < 1e-12)
    log = run(g(), { 0.1, 0.1, 0.1 }, function(ctl, i)
      if i == 1 then ctl:fire("jump", { buffer = 0.05 }) end
      if i == 2 then ctl:set("ready", true) end
    end)
    assert.are.equal(1, #log)
  end)

  it("is consumed once in each layer", function()
    local gg = graph({ base("a", { a = "a", d = "d" }, { { from = "a", to = "d", when = { { "jump" } } },
        { from = "d", to = "a", when = { { "jump" } } } }),
      { name = "upper", entry = "x", states = { x = { clip = "arm" }, y = { empty = true } },
        transitions = { { from = "x", to = "y", when = { { "jump" } } } } } },
      { parameters = { jump = { type = "trigger" } } })
    local log = run(gg, { 0.1, 0.1 }, function(ctl, i) if i == 2 then ctl:fire("jump") end end)
    local ts = {}
    for _, e in ipairs(log) do if e[1] == "transition" then ts[#ts + 1] = e[2] .. ":" .. e[3] end end
    assert.are.same({ "base:a>d", "upper:x>y" }, ts)
  end)
end)

describe("a state machine's layers", function()
  it("play above the layers before them, on their mask, with their weight", function()
    local g = graph({ base("a", { a = "d" }, {}),
      { name = "upper", entry = "x", mask = { "rightArm" }, weight = 0.5, states = { x = { clip = "arm" } } } })
    local a = anim.animator(rig)
    a:control(g)
    a:update(0.5)
    -- the same as the clips played by hand at those levels
    local b = anim.animator(rig)
    b:play(CLIPS.d, { fade = 0, priority = 0 })
    b:play(CLIPS.arm, { fade = 0, priority = 1, weight = 0.5 })
    b:update(0.5)
    assert.are.same({ b:get("head") }, { a:get("head") })
    assert.are.same({ b:get("rightArm") }, { a:get("rightArm") })
    -- a mask that leaves a state's clip nothing to play is refused
    local ok, err = pcall(a.control, anim.animator(rig), graph({ base("a", { a = "d" }, {}),
      { name = "upper", entry = "x", mask = { "head" }, states = { x = { clip = "arm" } } } }))
    assert.is_false(ok)
    assert.truthy(tostring(err):find("layer 'upper': state 'x': clip 'arm' plays on no joint of the layer's mask (head)", 1, true), err)
    ok, err = pcall(a.control, anim.animator(rig), graph({ base("a", { a = "d" }, {}),
      { name = "upper", entry = "x", mask = { "rightarm" }, states = { x = { clip = "arm" } } } }))
    assert.is_false(ok)
    assert.truthy(tostring(err):find("graph 'graph': layer 'upper': mask joint 'rightarm' is not in rig 'player'; did you mean 'rightArm'?", 1, true), err)
  end)
end)

describe("a controller's API", function()
  local g = graph({ base("a", { a = "a", d = "d" }, { { from = "a", to = "d", when = { { "speed", ">", 1 } } } }) },
    { parameters = { speed = { type = "float" }, n = { type = "int" }, on = { type = "bool" }, jump = { type = "trigger" } } })

  local function raises(fn, msg)
    local ok, err = pcall(fn)
    assert.is_false(ok)
    assert.are.equal(msg, (tostring(err):gsub("^[^:]*:%d+: ", "")))
  end

  it("sets and gets parameters of each type, refusing the wrong one with the right call named", function()
    local a = anim.animator(rig)
    local c = a:control(g)
    c:set("speed", 2.5); c:set("n", 3); c:set("on", true)
    assert.are.same({ 2.5, 3, true, false }, { c:get("speed"), c:get("n"), c:get("on"), c:get("jump") })
    assert.is_true(math.type == nil or math.type(c:get("n")) == "integer")
    raises(function() c:set("sped", 1) end,
      "bad argument #1 to 'set' (unknown parameter 'sped'; did you mean 'speed'? (the parameters: jump, n, on, speed))")
    raises(function() c:set("jump", true) end, "bad argument #1 to 'set' ('jump' is a trigger: fire it (controller:fire('jump')))")
    raises(function() c:fire("speed") end, "bad argument #1 to 'fire' ('speed' is a float parameter: set it (controller:set('speed', value)))")
    raises(function() c:set("n", 2.5) end, "bad argument #2 to 'set' ('n' is an int parameter: an integer expected, got 2.5)")
    raises(function() c:set("on", 1) end, "bad argument #2 to 'set' ('on' is a bool parameter: true or false expected, got 1)")
    raises(function() c:set("speed", 0 / 0) end, "bad argument #2 to 'set' ('speed' is a float parameter: a finite number expected, got nan)")
    raises(function() c:fire("jump", { bufer = 1 }) end, "bad argument #2 to 'fire' (unknown option 'bufer'; did you mean 'buffer'?)")
    raises(function() c:current("uper") end, "bad argument #1 to 'current' (unknown layer 'uper' (the layers: base))")
    raises(function() c:force("D") end, "bad argument #1 to 'force' (unknown state 'D' in layer 'base'; did you mean 'd'? (the states: a, d))")
    raises(function() return c.curent end, "no field 'curent' on anim.controller; did you mean 'current'?")
    raises(function() a:control(g) end, "control: the animator has a controller already (controller:detach() it first)")
    assert.are.equal(c, a.controller)
  end)

  it("forces a state at the next update, and detaches", function()
    local a = anim.animator(rig)
    local c = a:control(g)
    a:update(0.1)
    c:force("d", nil, 0.25)
    a:update(0.1)
    local from, to, p = c:transition()
    assert.are.same({ "d", "a", "d" }, { (c:current()), from, to })
    assert(math.abs(p - 0.4) < 1e-12)
    c:detach()
    assert.is_nil(a.controller)
    raises(function() c:current() end, "the controller was detached from its animator")
    local n = #a:tracks()
    a:update(0.1)
    assert.are.equal(n, #a:tracks())  -- its tracks play on
  end)

  it("anim.graph names every clip it cannot resolve, a space it cannot make, an exit time it cannot mean", function()
    local src = { version = 1, layers = { base("a", { a = "wlak", b = "jmp" }, {}) } }
    local g2, err = anim.graph(src, { walk = CLIPS.a, jump = CLIPS.b })
    assert.is_nil(g2)
    assert.truthy(err:find("layers[1].states.a.clip: unknown clip 'wlak'; did you mean 'walk'?", 1, true), err)
    assert.truthy(err:find("layers[1].states.b.clip: unknown clip 'jmp'; did you mean 'jump'?", 1, true), err)
    g2, err = anim.graph({ version = 1, parameters = { s = { type = "float" } }, layers = { base("m", {
      m = { space = { parameters = { "s" }, points = { { 0, "a" }, { 1, "c" } } } } }, {}) } }, CLIPS)
    assert.is_nil(g2)
    assert.truthy(err:find("graph: layers[1].states.m.space: points[2].clip: a synced blend space needs clips with the loop mode of points[1].clip", 1, true), err)
    g2, err = anim.graph({ version = 1, layers = { base("g", { g = { machine = { entry = "x", states = { x = { clip = "a" } },
      transitions = { { from = "x", to = "exit" } } } }, y = "b" }, { { from = "g", to = "y", exit_time = 0.5 } }) } }, CLIPS)
    assert.is_nil(g2)
    assert.truthy(err:find("graph: layers[1].transitions[1].exit_time: a transition from a sub-machine fires when one to \"exit\" inside it does: it has no exit time of its own", 1, true), err)
    g2, err = anim.graph({ version = 1, layers = { base("a", { a = "a", add = { clip = "a" } }, {}) } }, CLIPS)
    assert.truthy(g2, err)
    raises(function() anim.graph(5) end, "bad argument #1 to 'graph' (a path, JSON text or a table expected, got number)")
  end)
end)

describe("a state machine's sub-machines and blend spaces", function()
  local clips = {
    idle = clip("idle", 2), walk = clip("walk", 1, "loop", { markers = { { time = 0.5, name = "step" } } }),
    run = clip("run", 0.6, "loop", { markers = { { time = 0.3, name = "step" } } }),
    jump = clip("jump", 0.5, "once"), fall = clip("fall", 1), hit = clip("hit", 0.3, "once"),
  }
  local g = assert(anim.graph({ version = 1,
    parameters = { speed = { type = "float" }, jump = { type = "trigger" }, grounded = { type = "bool", default = true },
      hit = { type = "trigger" } },
    layers = { { name = "base", entry = "ground",
      states = {
        ground = { machine = { entry = "move", states = {
            move = { space = { parameters = { "speed" }, points = { { 0, "idle" }, { 1.5, "walk" }, { 4, "run" } } } } },
          transitions = { { from = "move", to = "exit", when = { { "jump" } } } } } },
        air = { machine = { entry = "jump", states = { jump = { clip = "jump" }, fall = { clip = "fall" } },
          transitions = { { from = "jump", to = "fall", exit_time = 1 },
                          { from = "fall", to = "exit", when = { { "grounded" } } } } } },
        hurt = { clip = "hit" } },
      transitions = {
        { from = "ground", to = "air", duration = 0.1 },
        { from = "air", to = "ground", duration = 0.2 },
        { from = "any", to = "hurt", when = { { "hit" } }, can_self = false },
        { from = "hurt", to = "ground", exit_time = 1 } } } } }, clips))

  it("enter entries, exit through the parent's transitions, and take the outer any-state ones inside", function()
    local a = anim.animator(rig)
    local c = a:control(g)
    local log, now = {}, 0
    c:on_transition(function(_, f, t, late) log[#log + 1] = string.format("%s>%s@%.6f", f, t, now - late) end)
    local script = { [6] = function() c:fire("jump"); c:set("grounded", false) end,
      [15] = function() c:set("grounded", true) end, [20] = function() c:fire("hit") end }
    for i = 1, 30 do
      if script[i] then script[i]() end
      now = now + 0.1
      a:update(0.1)
    end
    assert.are.same({ "ground/move>air/jump@0.500000", "air/jump>air/fall@1.000000", "air/fall>ground/move@1.400000",
      "ground/move>hurt@1.900000", "hurt>ground/move@2.200000" }, log)
    assert.are.equal("ground/move", (c:current()))
    c:force("air")
    a:update(0.1)
    assert.are.equal("air/jump", (c:current()))
  end)

  it("a blend-space state takes its parameter from the graph's, its markers from the dominant point", function()
    local a = anim.animator(rig)
    local c = a:control(g)
    local steps = {}
    a:on_marker(function(_, _, _, _, cl) steps[cl.name] = (steps[cl.name] or 0) + 1 end)
    c:set("speed", 3.9)
    for _ = 1, 100 do a:update(0.1) end
    -- at 3.9 run is dominant; a cycle lasts 0.04 x 1 + 0.96 x 0.6 s (of the first point's 2 s clip)
    assert.are.same({ run = 16 }, steps)
    local _, nt = c:current()
    assert(math.abs(nt - 10 / (0.04 * 1 + 0.96 * 0.6)) < 1e-9, nt)
  end)
end)

describe("a controller's travel and layer weights", function()
  local clips = { a = clip("a", 1), b = clip("b", 1), c = clip("c", 0.5, "once"), d = clip("d", 1) }
  local g = assert(anim.graph({ version = 1, parameters = { x = { type = "bool" }, t = { type = "trigger" } },
    layers = { { name = "base", entry = "a",
      states = { a = { clip = "a" }, b = { clip = "b" }, c = { clip = "c" }, d = { clip = "d" } },
      transitions = { { from = "a", to = "b", when = { { "x" } }, duration = 0.2 },
        { from = "b", to = "c", when = { { "x" } }, duration = 0.1 },
        { from = "a", to = "c", exit_time = 0.5, when = { { "t" } }, duration = 0.3 },
        { from = "c", to = "d", exit_time = 1 },
        { from = "b", to = "d", when = { { "x" } } } } } } }, clips))

  local function go(steps)
    local a = anim.animator(rig)
    local c = a:control(g)
    local log, now = {}, 0
    c:on_transition(function(_, f, t, late) log[#log + 1] = string.format("%s>%s@%.6f", f, t, now - late) end)
    for i = 1, steps.n do
      if steps[i] then steps[i](c) end
      now = now + 0.1
      a:update(0.1)
    end
    return log, c, a
  end

  it("travel takes the shortest path, whatever the conditions, each step after the fade before it or at its exit time", function()
    -- one step (at a's exit time 0.5) beats two
    local log, c = go { n = 16, [2] = function(ctl) ctl:travel("c") end, [7] = function(ctl) ctl:travel("d") end }
    -- then c's exit time 1, 0.5 s in, after its 0.3 s fade
    assert.are.same({ "a>c@0.500000", "c>d@1.000000" }, log)
    assert.are.equal("d", (c:current()))
    assert.is_false(c:get("t"))  -- (no trigger consumed: none was fired)
    -- two paths of two steps: a's first transition in file order, b's to d when its fade is done
    log = go { n = 30, [2] = function(ctl) ctl:travel("d") end }
    assert.are.same({ "a>b@0.100000", "b>d@0.300000" }, log)
  end)

  it("travel with no path raises unless teleport, which goes there at once", function()
    local _, c, a = go { n = 16, [2] = function(ctl) ctl:travel("d") end }
    assert.are.equal("d", (c:current()))
    local ok, err = pcall(c.travel, c, "a")
    assert.is_false(ok)
    assert.truthy(tostring(err):find("bad argument #1 to 'travel' (no path of transitions from 'd' to 'a' in layer 'base'"
      .. " (teleport = true goes there at once))", 1, true), err)
    c:travel("a", { teleport = true })
    a:update(0.1)
    assert.are.equal("a", (c:current()))
    ok, err = pcall(c.travel, c, "a", { teleprot = true })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("unknown option 'teleprot'; did you mean 'teleport'?", 1, true), err)
  end)

  it("weight ramps the layer's tracks and those it starts", function()
    local _, c, a = go { n = 2 }
    c:weight("base", 0.5, 0.2)
    a:update(0.1)
    assert.are.equal(0.75, a:tracks()[1].weight)
    c:force("b")
    a:update(0.1)
    local w = {}
    for _, t in ipairs(a:tracks()) do w[t.clip.name] = t.weight end
    assert.are.same({ b = 0.5 }, w)  -- (a, cut at once, ended)
    local ok, err = pcall(c.weight, c, "base", -1)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("bad argument #2 to 'weight' (weight must be a finite number >= 0, got -1)", 1, true), err)
  end)
end)

describe("a controller in a saved state", function()
  local cjson = require "cjson"
  local clips = { a = clip("a", 1), b = clip("b", 1.3), c = clip("c", 0.5, "once") }
  local g = assert(anim.graph({ version = 1,
    parameters = { x = { type = "bool" }, t = { type = "trigger" }, s = { type = "float", default = 1 }, n = { type = "int" } },
    layers = { { name = "base", entry = "a",
      states = { a = { clip = "a" }, b = { clip = "b", speed_parameter = "s" }, c = { clip = "c" } },
      transitions = { { from = "a", to = "b", when = { { "x" } }, duration = 0.5, curve = "sineinout" },
        { from = "b", to = "c", exit_time = 0.7, duration = 0.3, interrupt = "destination" },
        { from = "c", to = "a", when = { { "t" } }, duration = 0.2 } } } } }, clips))
  local function resolve(name, kind) if kind == "graph" then return name == "graph" and g or nil end return clips[name] end

  it("round-trips mid-transition, a buffered trigger armed: the same poses and callbacks to the bit", function()
    local a = anim.animator(rig)
    local c = a:control(g)
    a:update(0.1)
    c:set("x", true)
    c:set("s", 1.25)
    c:set("n", 7)
    a:update(0.2)   -- a -> b fading (sineinout), 0.2 of 0.5 s
    c:fire("t", { buffer = 2 })
    local saved = cjson.decode(cjson.encode(a:state()))
    local b = anim.animator(rig)
    local r = assert(b:restore(saved, resolve))
    assert.are.equal(b.controller, r.controller)
    assert.are.same({ "b", 7, true, true }, { (b.controller:current()), b.controller:get("n"), b.controller:get("x"), b.controller:get("t") })
    local la, lb = {}, {}
    a.controller:on_transition(function(_, f, t, late) la[#la + 1] = f .. t .. string.format("%.17g", late) end)
    b.controller:on_transition(function(_, f, t, late) lb[#lb + 1] = f .. t .. string.format("%.17g", late) end)
    for _ = 1, 30 do
      a:update(0.07)
      b:update(0.07)
      assert.are.same({ a:get("head") }, { b:get("head") })
    end
    assert.are.same(la, lb)
    assert.are.same({ "bc", "ca", "ab", "bc" }, (function() local o = {} for i, x in ipairs(la) do o[i] = x:sub(1, 2) end return o end)())
  end)

  it("a state without a controller takes the animator's away; a graph that does not resolve is named", function()
    local plain = anim.animator(rig)
    plain:play(clips.a)
    local s = plain:state()
    local a = anim.animator(rig)
    local c = a:control(g)
    a:update(0.1)
    assert(a:restore(s, resolve))
    assert.is_nil(a.controller)
    local ok = pcall(c.current, c)
    assert.is_false(ok)
    a = anim.animator(rig)
    a:control(g)
    a:update(0.1)
    local saved = a:state()
    local r, err = anim.animator(rig):restore(saved, function(name) return clips[name] end)
    assert.is_nil(r)
    assert.are.equal("state.controller.graph: resolve('graph') gave no graph (got nil)", err)
    r, err = anim.animator(rig):restore(saved)
    assert.is_nil(r)
    assert.truthy(err:find("^state.tracks%[1%]"), err)
    saved.controller.layers[1].state = "zz"
    r, err = anim.animator(rig):restore(saved, resolve)
    assert.is_nil(r)
    assert.are.equal("state.controller.layers[1].state: must be a state of layer 'base' (a, b, c), got 'zz'", err)
  end)

  -- (found by fuzz_animator: the largest dt made the normalized time
  -- infinite, which current() gave and restore refused)
  it("keeps the normalized time finite through the largest dt, and restores", function()
    local a = anim.animator(rig)
    local c = a:control(g)
    a:update(0.1)
    c:set("s", 1e300)
    c:set("x", true)
    a:update(1.7976931348623157e308)
    a:update(1.7976931348623157e308)
    local s1, nt = c:current()
    assert.are.equal("string", type(s1))
    assert.is_true(nt == nt and nt ~= math.huge, tostring(nt))
    assert(anim.animator(rig):restore(a:state(), resolve))
  end)

  -- (found by fuzz_animator: the restored tracks of a layer with a mask
  -- played on every joint of their clips)
  it("restores a masked layer's tracks on its mask, the current one and those fading out", function()
    local function turn(name, deg)
      local j = {}
      for _, n in ipairs { "head", "torso", "rightArm" } do j[n] = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, deg, 0 } } } } end
      return assert(anim.clip({ length = 1, loop = "loop", joints = j }, name))
    end
    local mc = { up = turn("up", 80), up2 = turn("up2", -80), base = turn("base", 10) }
    local gm = assert(anim.graph({ version = 1, parameters = { go = { type = "trigger" } }, layers = {
      { name = "base", entry = "a", states = { a = { clip = "base" } } },
      { name = "upper", entry = "u", mask = { "rightArm" }, states = { u = { clip = "up" }, v = { clip = "up2" } },
        transitions = { { from = "u", to = "v", when = { { "go" } }, duration = 1 } } } } }, mc, "gm"))
    local function res(name, kind) if kind == "graph" then return gm end return mc[name] end
    local a = anim.animator(rig)
    local c = a:control(gm)
    for step = 1, 2 do
      a:update(0.3)
      local b = anim.animator(rig)
      assert(b:restore(cjson.decode(cjson.encode(a:state())), res))
      for _ = 1, 3 do
        a:update(0.1)
        b:update(0.1)
        for _, j in ipairs { "head", "torso", "rightArm" } do assert.are.same({ a:get(j) }, { b:get(j) }, j .. " at step " .. step) end
      end
      c:fire("go")  -- (then up fades out while up2 fades in)
    end
    -- detached, the tracks play on on the mask; their state says it
    -- (`mask`), and a restore plays them there, then a state of that
    a:update(0.3)
    c:detach()
    local s = a:state()
    assert.are.same({ { "rightArm" }, { "rightArm" } }, { s.tracks[2].mask, s.tracks[3].mask })
    assert.is_nil(s.tracks[1].mask)  -- (the base layer has no mask)
    local b = anim.animator(rig)
    assert(b:restore(cjson.decode(cjson.encode(s)), res))
    local b2 = anim.animator(rig)
    assert(b2:restore(b:state(), res))
    for _ = 1, 3 do
      a:update(0.1)
      b:update(0.1)
      b2:update(0.1)
      for _, j in ipairs { "head", "torso", "rightArm" } do
        assert.are.same({ a:get(j) }, { b:get(j) }, j)
        assert.are.same({ a:get(j) }, { b2:get(j) }, j)
      end
    end
    s.tracks[2].mask = { "rightArm", "tail" }
    local r, err = anim.animator(rig):restore(s, res)
    assert.is_nil(r)
    assert.are.equal("state.tracks[2].mask[2]: no joint 'tail' in the rig", err)
    s.tracks[2].mask = "rightArm"
    r, err = anim.animator(rig):restore(s, res)
    assert.is_nil(r)
    assert.are.equal("state.tracks[2].mask: must be an array of joint names, got string", err)
  end)

  -- (found by fuzz_animator: the layer's track was saved by its id after
  -- it had ended, and restore refused the id as naming no saved track)
  it("restores when the script stopped the current state's track: the layer saved with no track", function()
    for _, updates in ipairs { 1, 2 } do
      local a = anim.animator(rig)
      a:control(g)
      a:update(0.1)
      a:stop(0)
      for _ = 1, updates do a:update(0.1) end  -- (ended; then gone from the animator)
      local s = a:state()
      assert.are.same({ {}, false }, { s.tracks, s.controller.layers[1].track })
      local b = anim.animator(rig)
      assert(b:restore(s, resolve))
      a.controller:set("x", true)
      b.controller:set("x", true)
      a:update(0.3)
      b:update(0.3)
      assert.are.same({ a:get("head") }, { b:get("head") })
      assert.are.same({ a.controller:current() }, { b.controller:current() })
    end
  end)

  -- (found by fuzz_animator: a layer read state 0 as its current and
  -- source state until its first update and its first transition, and the
  -- first state by name, "a" here, is a sub-machine, which restore refuses)
  it("restores when the graph's first state is a sub-machine: before the first update, and before a transition", function()
    local gm = assert(anim.graph({ version = 1, layers = { { name = "base", entry = "b",
      states = { a = { machine = { entry = "x", states = { x = { clip = "a" } } } }, b = { clip = "b" } },
      transitions = { { from = "b", to = "a", exit_time = 1 } } } } }, clips, "gm"))
    local function res(name, kind) if kind == "graph" then return gm end return clips[name] end
    local a = anim.animator(rig)
    local c = a:control(gm)
    assert.are.same({ "b", 0 }, { c:current() })
    for _, dt in ipairs { 0.3, 0.6, 0.5 } do
      local b = anim.animator(rig)
      assert(b:restore(a:state(), res))
      a:update(0.1)
      b:update(0.1)
      assert.are.same({ a:get("head") }, { b:get("head") })
      assert.are.equal(c:current(), b.controller:current())
      a:update(dt)
    end
    -- (travel before the first update goes from the entry, where the layer starts)
    local d = anim.animator(rig)
    d:control(gm):travel("a/x")
    d:update(1.4)
    assert.are.equal("a/x", d.controller:current())
  end)
end)

describe("state machines on threads", function()
  it("anim.update with threads = 1 and 2 gives the same poses and callbacks to the bit", function()
    local g = graph({ base("a", { a = "a", b = { clip = "b", speed = 1.3 }, c = "c" }, {
      { from = "a", to = "b", exit_time = 0.6, duration = 0.23 },
      { from = "b", to = "c", exit_time = 1.35, duration = 0.11, when = { { "go" } } },
      { from = "c", to = "a", exit_time = 1.2, duration = 0.3 } }) }, { parameters = { go = { type = "bool" } } })
    local function many(threads)
      local list, logs = {}, {}
      for i = 1, 40 do
        local a = anim.animator(rig)
        local c = a:control(g)
        c:set("go", i % 3 ~= 0)
        local log = {}
        logs[i] = log
        c:on_transition(function(_, f, t, late) log[#log + 1] = f .. t .. string.format("%.17g", late) end)
        list[i] = a
      end
      for k = 1, 200 do anim.update(list, 0.013 + (k % 7) * 0.004, { threads = threads }) end
      local out = {}
      for i, a in ipairs(list) do out[i] = table.concat({ a:get("head") }, ",") .. table.concat(logs[i], ";") end
      return out
    end
    assert.are.same(many(1), many(2))
  end)
end)

-- (found by fuzz_animator: a state whose clip gave a property another
-- number of components than a track on the animator could not start its
-- track, and the update raised "not enough memory for the callback queue")
describe("a property's number of components under a state machine", function()
  local function pclip(name, v)
    return assert(anim.clip({ length = 1, loop = "loop", joints = { head = { rotation = { { 0, { 0, 0, 0 } } } } },
      properties = { glow = { { 0, v } } } }, name))
  end
  local p1, p1b, p3 = pclip("p1", 1), pclip("p1b", 0.5), pclip("p3", { 1, 2, 3 })

  it("is one for every clip of a graph: anim.graph refuses two, in two layers or in one", function()
    local g, err = anim.graph({ version = 1, layers = { { name = "base", entry = "a", states = { a = { clip = "p1" } } },
      { name = "top", entry = "b", states = { b = { clip = "p3" } } } } }, { p1 = p1, p3 = p3 })
    assert.is_nil(g)
    assert.are.equal("graph: layers[2].states.b: clip 'p3': its property 'glow' has 3 components, clip 'p1'"
      .. " (layers[1].states.a) gives it 1 (a property keeps one number of components on an animator)", err)
    g, err = anim.graph({ version = 1, parameters = { s = { type = "float" } }, layers = { { name = "base", entry = "a",
      states = { a = { clip = "p1" }, m = { space = { parameters = { "s" }, points = { { 0, "p3" }, { 1, "p3" } } } } } } } },
      { p1 = p1, p3 = p3 })
    assert.is_nil(g)
    assert.are.equal("graph: layers[1].states.m.space.points[1]: clip 'p3': its property 'glow' has 3 components, clip"
      .. " 'p1' (layers[1].states.a) gives it 1 (a property keeps one number of components on an animator)", err)
    assert(anim.graph({ version = 1, layers = { { name = "base", entry = "a", states = { a = { clip = "p1" },
      b = { clip = "p1b" } } } } }, { p1 = p1, p1b = p1b }))
  end)

  it("enters a state that a script's track keeps from playing with no track, warning once, and plays it later", function()
    local g = assert(anim.graph({ version = 1, parameters = { go = { type = "trigger" } }, layers = { { name = "base",
      entry = "a", states = { a = { empty = true }, b = { clip = "p1" } },
      transitions = { { from = "a", to = "b", when = { { "go" } } }, { from = "b", to = "a", when = { { "go" } } } } } } },
      { p1 = p1 }))
    local lines = {}
    local w = rawget(_G, "warn")
    if w then rawset(_G, "warn", function(m) lines[#lines + 1] = m end)
    else rawset(io, "stderr", { write = function(_, m) lines[#lines + 1] = m end }) end
    local ok, err = pcall(function()
      local a = anim.animator(rig)
      local c = a:control(g)
      local t3 = a:play(p3, { fade = 0 })
      for _ = 1, 2 do  -- (entered twice, warned once)
        c:fire("go")
        a:update(0.1)
        assert.are.equal("b", (c:current()))
        assert.are.same({ t3 }, a:tracks())
        assert.are.same({ 1, 2, 3 }, { a:property("glow") })
        c:fire("go")
        a:update(0.1)
      end
      t3:stop(0)
      a:update(0.1)
      c:fire("go")
      a:update(0.1)
      assert.are.equal("p1", a:tracks()[1].clip.name)
      assert.are.same({ 1 }, { a:property("glow") })
    end)
    if w then rawset(_G, "warn", w) else rawset(io, "stderr", io.stderr) end
    assert(ok, err)
    assert.are.equal(1, #lines)
    assert.are.equal("anim: graph 'graph': layer 'base': state 'b': clip 'p1': its property 'glow' has 1 component, but a"
      .. " track on the animator gives it 3: the state plays no track (a property keeps one number of components on an"
      .. " animator)", lines[1]:gsub("\n$", ""))
  end)

  it("is kept by a reload: content that gives another number than the graph's other clips is refused", function()
    local q1 = pclip("q1", 1)
    local g = assert(anim.graph({ version = 1, layers = { { name = "base", entry = "a", states = { a = { clip = "q1" },
      b = { clip = "q2b" } } } } }, { q1 = q1, q2b = pclip("q2b", 7) }))
    local a = anim.animator(rig)
    a:control(g)
    a:update(0.1)
    local ok, err2 = anim.reload(q1, { length = 1, loop = "loop", joints = { head = { rotation = { { 0, { 0, 0, 0 } } } } },
      properties = { glow = { { 0, { 1, 2 } } } } })
    assert.is_nil(ok)
    assert.are.equal("q1: bad argument #1 to 'reload' (graph 'graph': layer 'base': state 'b': clip 'q2b': its property"
      .. " 'glow' has 1 component, clip 'q1' (layer 'base': state 'a') gives it 2 (a property keeps one number of"
      .. " components on an animator))", err2)
    assert.are.same({ 1 }, { (function() a:update(0.1) return a:property("glow") end)() })
  end)
end)
