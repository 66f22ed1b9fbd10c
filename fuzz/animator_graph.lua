-- fuzz/animator_graph.lua: the state machine operations of the fuzz_animator
-- driver (fuzz/animator.lua calls them for the operation bytes it leaves
-- free, GRAPH_BASE and above: the other inputs keep their meaning).
--
-- An animator takes a controller of examples/clips/hero.animgraph (through
-- the driver's library, whose reload moves the controllers onto the new
-- graph) or of one of three small graphs built (once per input, at its
-- first graph operation) over the input's own clips and the shared ones: two layers, a mask, clip, space, empty and sub-machine
-- states, exit times, triggers, any-state transitions, zero-duration
-- transitions and a cycle of them.  Then: set, fire (with a buffer), get,
-- force, travel (and teleport), weight, current() and transition() reads,
-- on_enter/on_exit/on_transition callbacks that do what the driver's other
-- callbacks do and more (detach the controller, read tracks() and state(),
-- stop everything, force, fire, restore, travel, reload the hero graph), detach, state() and a
-- restore into a fresh animator that must pose the next update bit for
-- bit, reloads of the clips the graphs play (also to no joint of the upper
-- layer's mask: refused, cleanly), tracks() and stop() at odd moments, and
-- anim.update batches of controlled and plain animators (threads 1 and 2).
--
-- Checked, besides what the driver checks after every update: every track
-- of tracks() is the animator's and playing (or queued); a controller's
-- current() names a state of its graph, with a finite normalized time; a
-- transition's progress is in [0, 1]; a detached controller raises; no
-- Lua error from inside the module.
local anim = require "anim"
local core = require "anim.core"

local M = {}

local NaN, INF = 0 / 0, math.huge

-- H: the driver's helpers (fuzz/animator.lua fills it in)
local H

local function S() return H.state() end

local function finite(x)
  return type(x) == "number" and x == x and x ~= INF and x ~= -INF
end

local function keys(...) return { ... } end

-- Graphs ---------------------------------------------------------------------------

-- (tables of the file's shape; the clip names resolve through S.named)
local GRAPHS = {
  { version = 1,
    parameters = { speed = { type = "float" }, go = { type = "trigger" }, flag = { type = "bool" }, n = { type = "int" } },
    mix = { ["*"] = 0.1, ["idle->*"] = 0.2 },
    layers = {
      { name = "base", entry = "idle",
        states = { idle = { clip = "own1" }, walk = { clip = "res://walk.anim" }, jump = { clip = "once", loop = "once" },
          move = { space = { parameters = { "speed" }, points = { { 0, "own1" }, { 1, "res://walk.anim" } } }, speed_parameter = "speed" },
          air = { machine = { entry = "fall",
            states = { fall = { clip = "own2" }, land = { clip = "pingpong", loop = "once" } },
            transitions = { { from = "any", to = "land", when = { { "n", "==", 5 } }, duration = 0 },
              { from = "fall", to = "land", when = { { "flag" } } },
              { from = "land", to = "exit", exit_time = 0.9 } } } },
          nothing = { empty = true } },
        transitions = {
          { from = "idle", to = "walk", when = { { "speed", ">", 0.5 } } },
          { from = "walk", to = "idle", when = { { "speed", "<=", 0.5 } }, duration = 0.2 },
          { from = "any", to = "jump", when = { { "go" } }, duration = 0.05, can_self = false },
          { from = "jump", to = "air", exit_time = 0.9 },
          { from = "air", to = "idle", duration = 0.1, curve = "sineinout" },
          { from = "idle", to = "move", when = { { "n", "==", 1 } } },
          { from = "walk", to = "move", exit_time = 0.5, sync = true },
          { from = "move", to = "nothing", when = { { "n", "==", 2 } }, duration = 0 },
          { from = "nothing", to = "move", when = { { "n", "==", 2 } }, duration = 0 },
          { from = "move", to = "idle", when = { { "n", "==", 0 } }, interrupt = "source" },
          { from = "nothing", to = "idle", exit_time = 0.3, offset = 0.5 } } },
      { name = "upper", mask = { "rightArm", "leftArm", "head" }, entry = "none", weight = 0.8,
        states = { none = { empty = true }, wave = { clip = "res://wave.anim" }, tiny = { clip = "tiny" }, own = { clip = "own1", speed = -1 } },
        transitions = {
          { from = "none", to = "wave", when = { { "go" } } },
          { from = "wave", to = "none", exit_time = 1, interrupt = "destination_then_source" },
          { from = "any", to = "own", when = { { "flag", "==", true } }, duration = 0, can_self = true },
          { from = "own", to = "tiny", exit_time = 0.5, duration = 0 },
          { from = "tiny", to = "none", exit_time = 1, duration = 0 } } } } },
  { version = 1,
    parameters = { t = { type = "trigger" }, w = { type = "float", default = 0.5 } },
    layers = { { name = "add", blend = "additive", entry = "a",
      states = { a = { clip = "hold" }, b = { empty = true } },
      transitions = { { from = "a", to = "b", when = { { "t" } } }, { from = "b", to = "a", exit_time = 0.3 } } } } },
  { version = 1,
    parameters = { stop = { type = "bool" }, k = { type = "int", default = 1 }, f = { type = "float" }, g = { type = "float", default = 0.5 } },
    layers = { { name = "spin", entry = "x",
      states = { x = { clip = "fast" }, y = { clip = "own2", loop = "hold" },
        z = { space = { parameters = { "f", "g" }, points = { { { 0, 0 }, "own1" }, { { 1, 1 }, "own2" } } } } },
      transitions = { { from = "x", to = "y", exit_time = 0, duration = 0 },
        { from = "y", to = "x", when = { { "stop", "==", false } }, duration = 0 },
        { from = "any", to = "z", when = { { "k", ">", 3 } }, can_self = false } } },
      { name = "two", entry = "p", mask = { "leftLeg" },
        states = { p = { clip = "own1" }, q = { clip = "res://walk.anim" } },
        transitions = { { from = "p", to = "q", exit_time = 1 }, { from = "q", to = "p", exit_time = 0.25 } } } } },
}

local GRAPH_NAMES = { "g_two", "g_add", "g_cycle" }
local HERO = "res://hero.animgraph"

-- The graphs of the run under way (S.graphs), built at its first graph
-- operation: the own clips are the input's.  A graph that does not build
-- (a space of parameters that are not all float...) is left out.
local function graphs()
  local s = S()
  if s.graphs then return s.graphs end
  s.graphs, s.graph_named, s.detached = {}, {}, {}
  -- (and the example's graph through the driver's library, which
  -- library:reload moves its controllers off)
  local hero = H.library:graph(HERO)
  for i, src in ipairs(GRAPHS) do
    local g, err = anim.graph(src, s.named, GRAPH_NAMES[i])
    if not g and os.getenv("FUZZ_TRACE") then io.stderr:write("graph ", GRAPH_NAMES[i], ": ", err, "\n") end
    if g then
      s.graphs[#s.graphs + 1] = g
      s.graph_named[g.name] = g
    end
  end
  if hero then s.graphs[#s.graphs + 1] = hero end
  return s.graphs
end
M.graphs = graphs

-- Checks ---------------------------------------------------------------------------

-- Every track of a:tracks() is a's and playing (or queued after another);
-- inside a callback (`delivering`) a track that ended in the update being
-- delivered is listed until its own entries are (as without a controller).
local function check_tracks(a, what, delivering)
  local list = a:tracks()
  for i, t in ipairs(list) do
    if t.animator ~= a then H.bug("%s: track %d of tracks() is another animator's", what, i) end
    if not (t.is_playing or core.track_queued(t) or delivering) then
      H.bug("%s: track %d of tracks() (%s) is not playing", what, i, tostring(t))
    end
  end
  return list
end

-- a's controller (if any) is in one of its graph's states in each layer.
local function check_controller(a, what)
  local ctl = a.controller
  if not ctl then return end
  local g = ctl.graph
  for l, name in ipairs(g:layers()) do
    local set = {}
    for _, s in ipairs(g:states(name)) do set[s] = true end
    local s, nt = ctl:current(l)
    if not set[s] then H.bug("%s: controller:current(%d) is %s, no state of layer '%s'", what, l, tostring(s), name) end
    if not finite(nt) then H.bug("%s: controller:current(%d) gives normalized time %s", what, l, tostring(nt)) end
    local from, to, p = ctl:transition(l)
    if from ~= nil then
      if not set[from] or to ~= s then H.bug("%s: controller:transition(%d) is %s -> %s (current %s)", what, l, tostring(from), tostring(to), s) end
      if not (finite(p) and p >= 0 and p <= 1) then H.bug("%s: controller:transition(%d) progress %s", what, l, tostring(p)) end
    end
  end
end

-- (called by the driver's check_animator after every update)
function M.check(a, what)
  if not S().graphs then return end
  check_tracks(a, what)
  check_controller(a, what)
end

-- The controllers of two animators (one restored from the other's state)
-- are in the same states after the same update.
function M.compare(a, b, what)
  local ca, cb = a.controller, b.controller
  -- (a's callbacks may have detached its controller in the update)
  if not ca then return end
  if not cb then H.bug("%s: the restored animator has no controller", what) end
  for l = 1, #ca.graph:layers() do
    local s1, t1 = ca:current(l)
    local s2, t2 = cb:current(l)
    if s1 ~= s2 or (t1 ~= t2 and not (t1 ~= t1 and t2 ~= t2)) then
      H.bug("%s: layer %d is in %s at %.17g, the restored one's in %s at %.17g", what, l, s1, t1, tostring(s2), t2 or 0)
    end
  end
end

-- A graph name for restore's resolve.
function M.resolve_graph(name)
  local s = S()
  if name == HERO then return H.library:graph(HERO) end
  return s.graph_named and s.graph_named[name]
end

-- Operands -------------------------------------------------------------------------

local VALUES = { 0, 0.3, 0.6, 1, 2, 5, -1, 1.5, 4, true, false, NaN, INF, "x", "nil" }
local FADES = { "nil", 0, 0.1, 0.5, -1, NaN, INF }
local WEIGHTS = { 0, 0.5, 1, 2, -1, NaN, 1e300 }
local BUFFERS = { "nil", 0, 0.1, 1, 1e300, -1, NaN }

-- a layer operand: nil, an index, a name, or a bad one
local function pick_layer(r, g)
  local names = g:layers()
  local k = r:byte() % (2 * #names + 3)
  if k == 0 then return nil, 1 end
  if k <= #names then return k, k end
  if k <= 2 * #names then return names[k - #names], k - #names end
  return ({ #names + 1, "uper" })[k - 2 * #names], nil
end

local function pick_state(r, g, l)
  local states = g:states(l or 1)
  local k = r:byte() % (#states + 1) + 1
  return states[k] or "nope", states[k] ~= nil
end

local function pick_param(r, g)
  local ps = g:parameters()
  local k = r:byte() % (#ps + 1) + 1
  local p = ps[k]
  if p then return p.name, p.type end
  return "nope", nil
end

-- a controlled animator (one of the program's, with a controller), its controller
local function pick_controlled(r)
  local a = H.pick_animator(r)
  return a, a and a.controller
end

-- an operation's animator, its controller (nil: the operation does
-- nothing), how (a byte mod n), a layer (nil when bad) and its index
local function operands(r, n)
  local a, ctl = pick_controlled(r)
  local how = r:byte() % n
  if not ctl then return end
  local layer, l = pick_layer(r, ctl.graph)
  return a, ctl, how, layer, l
end

local function fade_ok(f) return f == nil or (finite(f) and f >= 0) end

-- Operations ------------------------------------------------------------------------

local OPS = {}

-- 0: an animator takes a controller (detaching the one it has, or trying a
-- second: that raises)
OPS[#OPS + 1] = function(r)
  local a = H.pick_animator(r)
  local gs = graphs()
  local g = gs[r:byte() % #gs + 1]
  local how = r:byte() % 4
  if not a or not g then return end
  if a.controller then
    if how == 0 then
      local old = a.controller
      H.expect_ok("controller:detach", nil, old.detach, old)
      S().detached[#S().detached + 1] = old
    else
      local err = H.expect_raise("a second animator:control", a.control, a, g)
      if not tostring(err):find("controller already", 1, true) then H.bug("a second control raised an unclear error: %s", tostring(err)) end
      return
    end
  end
  -- (a view animator: the graphs' clips are body clips, and each a state
  -- whose clip plays on no joint... is refused)
  local ok, ctl = H.expect_ok("animator:control", function(e)
    return type(e) == "string" and (e:find("space", 1, true) or e:find("plays on no joint", 1, true) or e:find("component", 1, true))
  end, a.control, a, g)
  if ok and a.controller ~= ctl then H.bug("animator.controller is not the controller control returned") end
end

-- 1: set, get, fire (with a buffer)
OPS[#OPS + 1] = function(r)
  local a, ctl = pick_controlled(r)
  local how = r:byte() % 3
  if not ctl then return end
  local name, ty = pick_param(r, ctl.graph)
  if how == 0 then
    local v = r:pick(VALUES)
    local good = (ty == "float" and finite(v)) or (ty == "int" and finite(v) and v % 1 == 0)
      or (ty == "bool" and type(v) == "boolean")
    H.good_or_raise(string.format("controller:set(%s, %s)", name, tostring(v)), good, a, ctl.set, ctl, name, v)
    if good and ty ~= "bool" and ctl:get(name) ~= v then H.bug("controller:get(%s) is %s after set to %s", name, tostring(ctl:get(name)), tostring(v)) end
  elseif how == 1 then
    local b = r:pick(BUFFERS)
    local opts = r:byte() % 3 == 0 and { buffer = b } or (b ~= nil and { bufer = b } or nil)
    local good = ty == "trigger" and (opts == nil or (opts.bufer == nil and (opts.buffer == nil or (finite(b) and b >= 0))))
    H.good_or_raise(string.format("controller:fire(%s, buffer=%s)", name, tostring(b)), good, a, ctl.fire, ctl, name, opts)
    if good and ctl:get(name) ~= true then H.bug("controller:get(%s) is not true after fire", name) end
  else
    H.good_or_raise("controller:get(" .. name .. ")", ty ~= nil, a, ctl.get, ctl, name)
  end
end

-- 2: force, travel (teleport)
OPS[#OPS + 1] = function(r)
  local a, ctl, how, layer, l = operands(r, 3)
  if not ctl then return end
  local state, known = pick_state(r, ctl.graph, l)
  local fade = r:pick(FADES)
  local good = l ~= nil and known
  if how == 0 then
    good = good and fade_ok(fade)
    H.good_or_raise(string.format("controller:force(%s, %s, %s)", state, tostring(layer), tostring(fade)), good, a,
      ctl.force, ctl, state, layer, fade)
  else
    local opts = how == 2 and { teleport = true } or (fade == 0.5 and { teleprt = true } or nil)
    good = good and (opts == nil or opts.teleport)
    local what = string.format("controller:travel(%s, %s)", state, tostring(layer))
    if not good then return H.good_or_raise(what, false, a, ctl.travel, ctl, state, layer, opts) end
    local before = H.snapshot(a)
    local ok = H.expect_ok(what, function(e)
      return type(e) == "string" and (e:find("no path of transitions", 1, true) or e:find("at most 64", 1, true)) and not opts
    end, ctl.travel, ctl, state, layer, opts)
    if not ok then H.check_unchanged(a, before, what .. " refused") end
  end
end

-- 3: weight, and the reads
OPS[#OPS + 1] = function(r)
  local a, ctl, how, layer, l = operands(r, 3)
  if not ctl then return end
  if how == 0 then
    local w, fade = r:pick(WEIGHTS), r:pick(FADES)
    local good = l ~= nil and finite(w) and w >= 0 and fade_ok(fade)
    H.good_or_raise(string.format("controller:weight(%s, %s, %s)", tostring(layer), tostring(w), tostring(fade)), good, a,
      ctl.weight, ctl, layer, w, fade)
  else
    local f = how == 1 and ctl.current or ctl.transition
    H.good_or_raise("controller:current/transition(" .. tostring(layer) .. ")", l ~= nil, a, f, ctl, layer)
    H.touch(ctl.graph, ctl.animator, tostring(ctl))
    check_controller(a, "controller reads")
  end
end

-- A controller callback doing `act` (graph actions past the driver's).
local function graph_callback(a, act, arg)
  local k = act % 21
  if k < 13 then return H.make_callback(a, k, arg) end
  local box = {}
  local fn = function()
    local s = S()
    s.calls = s.calls + 1
    if s.calls > 2000 then return end
    local c = a.controller
    if k == 13 then
      -- detach the controller from its own callback
      if c then c:detach(); s.detached[#s.detached + 1] = c end
    elseif k == 14 then
      check_tracks(a, "tracks() inside a controller callback", true)
    elseif k == 15 then
      H.touch(a:state())
      check_tracks(a, "state() inside a controller callback", true)
    elseif k == 16 then
      a:stop(arg % 2 == 0 and 0 or 0.1)
      check_tracks(a, "stop() inside a controller callback", true)
    elseif k == 17 then
      if c then
        local g = c.graph
        local states = g:states(1)
        c:force(states[arg % #states + 1], 1, (arg % 3) * 0.05)
        local ps = g:parameters()
        local p = ps[arg % #ps + 1]
        if p.type == "trigger" then c:fire(p.name, arg % 2 == 0 and { buffer = 0.2 } or nil) end
      end
    elseif k == 18 then
      -- restore from its own callback: raises
      local ok, err = pcall(a.restore, a, a:state(), function() end)
      if ok then H.bug("animator:restore from its own callback did not raise") end
      if H.internal_error(err) then H.bug("restore from a callback: %s", tostring(err)) end
    elseif k == 20 then
      -- the hero graph made again while its controllers deliver: they move
      -- onto the new one in the middle of their delivery
      local g2, err = H.library:reload(HERO)
      if not anim.is_graph(g2) then H.bug("library:reload from a callback gave %s, %s", tostring(g2), tostring(err)) end
      if a.controller then check_controller(a, "library:reload from a callback") end
    else
      if c then
        local states = c.graph:states(#c.graph:layers())
        local ok, err = pcall(c.travel, c, states[arg % #states + 1], #c.graph:layers())
        if not ok and (H.internal_error(err) or not tostring(err):find("no path", 1, true)) then
          H.bug("travel from a callback raised: %s", tostring(err))
        end
      end
    end
  end
  return fn, box
end

-- 4: on_enter, on_exit, on_transition
OPS[#OPS + 1] = function(r)
  local a, ctl = pick_controlled(r)
  local kind = ({ "on_enter", "on_exit", "on_transition" })[r:byte() % 3 + 1]
  local act, arg = r:byte(), r:byte()
  local s = S()
  if not ctl or s.connections >= H.MAX_CONNECTIONS then return end
  local fn, box = graph_callback(a, act, arg)
  H.connect(ctl, kind, fn, box, arg)
end

-- 5: detach; tracks() and stop() after it; a detached controller raises
OPS[#OPS + 1] = function(r)
  local a, ctl = pick_controlled(r)
  local how = r:byte() % 4
  local s = S()
  if how == 0 and ctl then
    H.expect_ok("controller:detach", nil, ctl.detach, ctl)
    s.detached[#s.detached + 1] = ctl
    if a.controller ~= nil then H.bug("animator.controller after detach") end
    check_tracks(a, "tracks() after a detach")
  elseif how == 1 and a then
    check_tracks(a, "tracks()")
    for _, t in ipairs(a:tracks()) do H.add_track(t) end
  elseif how == 2 and a then
    H.expect_ok("animator:stop", nil, a.stop, a, r:byte() % 2 == 0 and 0 or 0.2)
    check_tracks(a, "tracks() after stop()")
  elseif #s.detached > 0 then
    local old = s.detached[r:byte() % #s.detached + 1]
    local err = H.expect_raise("a detached controller's use", ({ old.current, old.detach, old.set, old.fire })[r:byte() % 4 + 1], old, "go", 1)
    if not tostring(err):find("detached", 1, true) then H.bug("a detached controller raised an unclear error: %s", tostring(err)) end
  end
end

-- 6: state() restored into a fresh animator: the same next update
OPS[#OPS + 1] = function(r)
  local a = H.pick_animator(r)
  if not a then return end
  H.same_as_restored(a, "state() and restore of a controlled animator")
end

-- Contents a reload gives a clip the graphs play: other keys, fewer joints,
-- more joints (one the rig has not), none of the upper layer's mask (a
-- state would play on nothing: refused), a length of 0.
local GRELOADS = {
  { length = 1, loop = "loop", joints = { head = { rotation = keys({ 0, { 0, 0, 0 } }, { 1, { 0, -40, 0 } }) },
    torso = { rotation = keys({ 0, { 0, 0, 0 } }, { 1, { 10, 0, 0 } }) } } },
  { length = 0.5, loop = "loop", joints = { torso = { rotation = keys({ 0, { 0, 0, 0 } }, { 0.5, { 0, 0, 30 } }) } } },
  { length = 2, loop = "loop", joints = { head = { rotation = keys({ 0, { 0, 0, 0 } }, { 2, { 0, 60, 0 } }) },
    tail = { rotation = keys({ 0, { 0, 0, 0 } }, { 2, { 0, 60, 0 } }) }, leftLeg = { position = keys({ 0, { 0, 0, 0 } }, { 2, { 0, 1, 0 } }) },
    rightArm = { rotation = keys({ 0, { 0, 0, 0 } }, { 2, { 90, 0, 0 } }) } } },
  { length = 0, loop = "once", joints = { leftArm = { rotation = keys({ 0, { 0, 0, 45 } }) } } },
  { length = 1, loop = "once", joints = { rightLeg = { rotation = keys({ 0, { 0, 0, 0 } }, { 1, { 45, 0, 0 } }) } },
    markers = { { time = 0.5, name = "step" } }, events = { { time = 0.2, name = "e", on = "both" } } },
  { length = 1, loop = "loop", joints = { nope = { rotation = keys({ 0, { 0, 0, 0 } }) } } },
}

-- 7: reload of a clip the graphs play (refused when a state would play on
-- nothing); each controlled animator then updates as one restored does
OPS[#OPS + 1] = function(r)
  local s = S()
  local c = s.own[r:byte() % #s.own + 1]
  local k = r:byte() % (#GRELOADS + 1) + 1
  local check = r:byte() % 2 == 0
  graphs()
  if GRELOADS[k] then
    H.reload_with(c, GRELOADS[k], "anim.reload of a graph's clip")
  else
    -- the example's graph made again from its file: its controllers move
    -- onto the new one (their state, parameters and callbacks kept)
    local _, g2, err = H.expect_ok("library:reload of a graph", nil, H.library.reload, H.library, HERO)
    if not anim.is_graph(g2) then H.bug("library:reload of an unchanged graph gave %s, %s", tostring(g2), tostring(err)) end
    for i = 1, 3 do
      local a = s.animators[i]
      if a and a.controller then
        if a.controller.graph ~= H.library:graph(HERO) and a.controller.graph.name == HERO then
          H.bug("library:reload left a controller on the old graph")
        end
        check_controller(a, "library:reload of a graph")
      end
    end
  end
  if not check then return end
  for i = 1, 3 do
    local a = s.animators[i]
    if a and a.controller then H.same_as_restored(a, "anim.reload of a graph's clip") end
  end
end

-- 8: anim.update of every animator of the program and a few controlled
-- ones of its own, on one thread or two
OPS[#OPS + 1] = function(r)
  local s = S()
  local gs = graphs()
  local n, threads, dt = r:byte() % 4, r:byte() % 2 + 1, ({ 0, 1 / 60, 0.1, 0.5, 1e-9, 3 })[r:byte() % 6 + 1]
  s.extra = s.extra or {}
  while #s.extra < n and #gs > 0 do
    local b = anim.animator(H.player)
    local ok = pcall(b.control, b, gs[(#s.extra + n) % #gs + 1])
    if not ok then break end
    s.extra[#s.extra + 1] = b
  end
  local list = {}
  for i = 1, 3 do
    local a = s.animators[i]
    if a then list[#list + 1] = a end
  end
  for i = 1, math.min(n, #s.extra) do
    table.insert(list, (i * 7) % (#list + 1) + 1, s.extra[i])
  end
  H.expect_ok(string.format("anim.update of %d animators, threads = %d", #list, threads), H.update_error,
    anim.update, list, dt, { threads = threads })
  for _, a in ipairs(list) do H.check_animator(a, "anim.update with controllers") end
end

M.OPS = OPS

-- Runs graph operation `k` (0-based) with reader r.
function M.op(helpers, r, k)
  H = helpers
  if H.trace then io.stderr:write("graph op ", k % #OPS, "\n") end
  graphs()  -- (and the run's list of detached controllers)
  OPS[k % #OPS + 1](r)
end

function M.init(helpers) H = helpers end

return M
