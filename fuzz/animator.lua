-- fuzz/animator.lua: the driver of the fuzz_animator target (and of the
-- replay of its regression inputs in spec/fuzz_regressions_spec.lua).
--
-- run(bytes) reads the bytes as a program of animator operations over a few
-- small clips (markers, events, sounds, plays; once, loop, hold, pingpong; a
-- clip of length 1e-9; a backwards and a very fast clip): play, stop, adjust
-- weight and speed, seek, update with odd dt (0, tiny, huge, negative, NaN,
-- infinite; every other one through anim.update), callbacks that play, stop, error, disconnect, update, yield or
-- drop their animator, references dropped and collected, tracks used after
-- their animator is gone.  One byte picks an operation, the next ones its
-- operands; reading past the end gives zeros.
--
-- It checks the documented contracts (docs/api.md, docs/formats.md): a
-- call with bad arguments raises a clean error and changes nothing, a good
-- call does not raise (other than with the errors of the callbacks), track
-- time stays within [0, length], poses are finite with unit rotations.  A
-- broken contract raises an error starting "BUG"; the C harness aborts on
-- it so that libFuzzer keeps the input.  Work is bounded: at most MAX_OPS
-- operations and MAX_PLAYS tracks started per input.
local anim = require "anim"
local core = require "anim.core"
local C = require "fuzz.common"
local compat = require "anim.base.compat"
local binary = require "spec.bytes"
local G = require "fuzz.animator_graph"

local M = {}

local MAX_OPS, MAX_PLAYS, MAX_TRACKS, MAX_CONNECTIONS = 300, 32, 32, 48
local CALLBACK_ERROR = "fuzz-callback-error"
local NaN, INF = 0 / 0, math.huge
-- FUZZ_TRACE=1 in the environment: each operation (0-based) to stderr
local TRACE = os.getenv("FUZZ_TRACE")

local function bug(fmt, ...)
  error("BUG: " .. string.format(fmt, ...), 0)
end

-- reads fields (each read runs the module's code)
-- (5.3+: of the integer subtype; before, without one, an integral number)
local function is_integer(v)
  if compat.integers then return compat.mtype(v) == "integer" end
  return type(v) == "number" and v % 1 == 0
end

local function touch(...) return select("#", ...) end

local function finite(x)
  return type(x) == "number" and x == x and x ~= INF and x ~= -INF
end

local function is_memory_error(e)
  return type(e) == "string" and e:find("not enough memory", 1, true) ~= nil
end

-- Errors that only a bug in the module raises (a Lua runtime error inside
-- it, an overflow), whatever the call.
local INTERNAL = { "attempt to index", "attempt to call", "attempt to perform", "attempt to compare",
  "attempt to concatenate", "attempt to get length", "stack overflow", "number has no integer representation",
  "table index is nil", "table index is NaN", "invalid key to 'next'" }
local function internal_error(e)
  if type(e) ~= "string" then return "an error object of type " .. type(e) end
  for _, p in ipairs(INTERNAL) do
    if e:find(p, 1, true) then return p end
  end
end

-- The clips ---------------------------------------------------------------------

local here = rawget(_G, "ANIM_ROOT") or (debug.getinfo(1, "S").source:match("^@(.*)/fuzz/animator%.lua$") or ".")
local library = assert(anim.library(here .. "/examples/clips"))
local player = anim.rig("player")

local function clip(text, name)
  return assert(anim.decode(text, name))
end

local CLIPS = {
  assert(library:clip("res://walk.anim")),
  assert(library:clip("res://wave.anim")),
  assert(library:clip("res://attack.anim")), -- plays res://spark.anim
  assert(library:clip("res://spark.anim")),
  clip([==[{"version":3,"length":1e-9,"loop":"loop","markers":[{"time":0,"name":"a"},{"time":1e-9,"name":"b"}],
    "joints":{"head":{"position":[[0,[0,0,0]],[1e-9,[0,1,0]]]}}}]==], "tiny"),
  clip([==[{"version":3,"length":0.5,"loop":"pingpong","speed":-2,
    "markers":[{"time":0,"name":"start"},{"time":0.25,"name":"mid","value":"v"},{"time":0.5,"name":"end"}],
    "events":[{"time":0.1,"name":"e1","payload":{"n":1},"on":"both"},{"time":0.4,"name":"e2","on":"client"}],
    "sounds":[{"time":0.2,"sound":"s","volume":0.5}],
    "joints":{"rightArm":{"rotation":[[0,[0,0,0],"sine"],[0.5,[90,0,0]]]}}}]==], "pingpong"),
  clip([==[{"version":3,"length":0.3,"loop":"once",
    "markers":[{"time":0,"name":"begin"},{"time":0.3,"name":"done"}],
    "events":[{"time":0.3,"name":"hit","payload":[1,2,3],"on":"server"}],
    "plays":[{"time":0.1,"clip":"res://spark.anim","fade":0},{"time":0.2,"clip":"res://missing.anim"}],
    "joints":{"leftArm":{"rotation":[[0,[0,0,0]],[0.3,[0,0,45]]]}}}]==], "once"),
  clip([==[{"version":3,"length":2,"loop":"hold","blend":"additive","priority":"action4",
    "markers":[{"time":2,"name":"held"}],
    "joints":{"torso":{"position":[[0,[0,0,0]],[2,[0,0.5,0]]],"scale":[[0,[1,1,1]],[2,[2,2,2]]]}}}]==], "hold"),
  clip([==[{"version":3,"length":0.01,"loop":"loop","speed":1e6,"priority":0,
    "markers":[{"time":0.005,"name":"fast"}],
    "joints":{"leftLeg":{"rotation":[[0,[0,0,0]],[0.01,[0,180,0]]]}}}]==], "fast"),
  clip([==[{"version":3,"length":1,"loop":"loop","space":"view",
    "joints":{"head":{"rotation":[[0,[0,0,0]],[1,[0,90,0]]]}}}]==], "view"),
}
local MAP = assert(library:retarget("res://goblin.retarget"))

-- Each input's own clips (made afresh by reset: reloads change them), and
-- the contents a reload gives them: fewer joints and more, other lengths,
-- loop modes, speeds, blends, markers, properties of the same or another
-- number of components, a view clip, text, a table that does not build.
local function keys(...) return { ... } end
local OWN = {
  { length = 1, loop = "loop", markers = { { time = 0, name = "step" }, { time = 0.5, name = "step" } },
    -- (every joint: the root's binding comes late among them, as a root
    -- motion binding left from this content would read past a smaller one)
    joints = { root = { position = keys({ 0, { 0, 0, 0 } }, { 1, { 0.5, 0, 2 } }), rotation = keys({ 0, { 0, 0, 0 } }, { 1, { 0, 30, 0 } }) },
      rightArm = { rotation = keys({ 0, { -20, 0, 0 } }, { 0.5, { 20, 0, 0 } }, { 1, { -20, 0, 0 } }) },
      leftArm = { rotation = keys({ 0, { 20, 0, 0 } }, { 0.5, { -20, 0, 0 } }, { 1, { 20, 0, 0 } }) },
      rightLeg = { rotation = keys({ 0, { -30, 0, 0 } }, { 1, { 30, 0, 0 } }) },
      leftLeg = { rotation = keys({ 0, { 30, 0, 0 } }, { 1, { -30, 0, 0 } }) },
      head = { rotation = keys({ 0, { 0, 0, 0 } }, { 1, { 0, 20, 0 } }) },
      torso = { position = keys({ 0, { 0, 0, 0 } }, { 1, { 0, 0.1, 0 } }) } } },
  { length = 0.5, loop = "loop", markers = { { time = 0.25, name = "mid" } },
    joints = { torso = { rotation = keys({ 0, { 0, 0, 0 } }, { 0.5, { 0, 0, 20 } }) }, root = { position = keys({ 0, { 0, 0, 0 } }, { 0.5, { 0, 0, 1 } }) } },
    properties = { glow = keys({ 0, 0 }, { 0.5, 1 }) } },
}
local ALL = { "root", "torso", "head", "rightArm", "leftArm", "rightLeg", "leftLeg" }
local function every_joint(len, k)
  local J = {}
  for i, j in ipairs(ALL) do
    J[j] = { rotation = keys({ 0, { 0, 0, 0 } }, { len, { 10 * i * k, 5 * k, 0 } }) }
  end
  J.root.position = keys({ 0, { 0, 0, 0 } }, { len, { k, 0, 3 * k } })
  return J
end
local RELOADS = {
  { length = 1, loop = "loop", joints = { head = { position = keys({ 0, { 0, 5, 0 } }) } } },
  { length = 2, loop = "loop", joints = every_joint(2, 1), markers = { { time = 0, name = "step" }, { time = 1, name = "b" }, { time = 2, name = "c" } } },
  { length = 0.25, loop = "pingpong", speed = -2, joints = every_joint(0.25, 2), markers = { { time = 0.1, name = "step" } } },
  { length = 3, loop = "once", blend = "additive", joints = { torso = { rotation = keys({ 0, { 0, 0, 0 } }, { 3, { 0, 90, 0 } }) } } },
  { length = 1, loop = "loop", joints = every_joint(1, -1), properties = { glow = keys({ 0, { 0, 0, 0 } }, { 1, { 1, 2, 3 } }) } },
  { length = 0.5, loop = "loop", joints = { root = { rotation = keys({ 0, { 0, 0, 0 } }, { 0.5, { 0, 90, 0 } }) } },
    properties = { glow = keys({ 0, 1 }, { 0.5, 0 }), tint = keys({ 0, { 1, 0, 0 } }, { 0.5, { 0, 0, 1 } }) } },
  { length = 1, loop = "loop", space = "view", joints = { head = { rotation = keys({ 0, { 0, 0, 0 } }, { 1, { 0, 90, 0 } }) } } },
  { length = 0, loop = "once", markers = { { time = 0, name = "now" } }, joints = { root = { position = keys({ 0, { 1, 0, 0 } }) } } },
  { length = 1e-9, loop = "loop", joints = every_joint(1e-9, 3), markers = { { time = 1e-9, name = "step" } } },
  { length = 1, loop = "loop", speed = 0, joints = { leftLeg = { rotation = keys({ 0, { 0, 0, 0 } }, { 1, { 45, 0, 0 } }) } } },
  { length = 0.3, loop = "hold", priority = "action4", joints = { rightArm = { rotation = keys({ 0, { 0, 0, 0 } }, { 0.3, { -90, 0, 0 } }) } },
    events = { { time = 0.3, name = "hit", on = "both" } }, plays = { { time = 0.1, clip = "res://spark.anim", fade = 0 } } },
  '{"length": 0.5, "loop": "loop", "joints": {"root": {"position": [[0, [0, 0, 0]], [0.5, [0, 0, 1]]]}}}',
  { length = 1, joints = { head = { rotation = keys({ "x", { 0, 0, 0 } }) } } },
  { length = 1, loop = "loop", joints = {}, properties = { glow = keys({ 0, 0.5 }) } },
}
local RELOAD_ERROR = "cannot be reloaded while an update delivers"

-- A blend space's parameter: numbers (1D), pairs (2D), bad ones
local AT = { "nil", 0, 0.5, 1, 2, -1, 1e300, { 0.5, 0.5 }, { 0, 1 }, { 1e300, -1e300 }, { 2, 0.25 }, NaN, INF, { NaN, 0 },
  { 0 }, "x", "raw" }
local ROOT = { "nil", "root", "torso", "head", 1, 3, 0, 8, "nope", 1.5, "rightArm" }
local JOINTS = { "root", "torso", "head", "rightArm", "leftArm", "rightLeg", "leftLeg", 1, 7, 0, 8, "nope" }

-- Operand decoding ---------------------------------------------------------------

local DT = { 0, 1 / 60, 1 / 30, 0.25, 0.5, 1, 3.7, 1e-9, 1e-300, 5e-324, 1e9, 1e300, 1.7976931348623157e308,
  -1, -0.0, -1e-300, NaN, INF, -INF, 0.1 + 0.2, 2 ^ 53, "raw" }
local SPEED = { 1, 0, -1, 2, 0.5, -3, 1e-300, 1e300, -1e300, 1e9, -0.0, NaN, INF, -INF, "raw" }
local WEIGHT = { 1, 0, 0.5, 2, 1e300, 5e-324, -1, NaN, INF, "raw" }
local FADE = { "nil", 0, 0.1, 1e-9, 0.5, 1e300, -1, NaN, INF, "raw" }
local TIME = { 0, 0.1, 0.25, 0.5, 1, -1, 1e300, -1e300, 1e-300, 1e9, NaN, INF, "raw" }
local PRIORITY = { "nil", "core", "idle", "movement", "action", "action4", 3.5, -7, 1e300, "bogus", NaN }

-- (a reader of fuzz/common.lua whose pick also reads "raw" doubles and "nil")
local Reader = setmetatable({}, { __index = C.Reader })
Reader.__index = Reader

function Reader:pick(list)
  local v = list[self:byte() % #list + 1]
  if v == "raw" then
    local bytes = self.s:sub(self.i, self.i + 7)
    self.i = self.i + 8
    v = binary.unpack("<d", bytes .. string.rep("\0", 8 - #bytes))
  elseif v == "nil" then
    v = nil
  end
  return v
end

-- The program's state --------------------------------------------------------------

local S -- the state of the run under way (fresh per input)

local function add_track(t)
  if #S.tracks < MAX_TRACKS then S.tracks[#S.tracks + 1] = t
  else S.tracks[S.r:byte() % MAX_TRACKS + 1] = t end
end

local function pick_track(r)
  local n = #S.tracks
  if n == 0 then return nil end
  return S.tracks[r:byte() % n + 1]
end

local function pick_animator(r)
  return S.animators[r:byte() % 3 + 1]
end

-- The state of every live track of `a`, to compare before and after a call
-- that must change nothing.
local function snapshot(a)
  -- (a finalizer that reloads a clip may change its tracks' times meanwhile)
  local out = { finalized = S.finalizers }
  for i, t in ipairs(a:tracks()) do
    out[i] = { t, t.time, t.speed, t.weight, t.is_playing, t.loops, t.fade }
  end
  return out
end

local function same(x, y) return x == y or (x ~= x and y ~= y) end

local function check_unchanged(a, before, what)
  local after = snapshot(a)
  if after.finalized ~= before.finalized then return end
  if #after ~= #before then bug("%s changed the number of tracks (%d -> %d)", what, #before, #after) end
  for i, b in ipairs(before) do
    for k = 1, #b do
      if not same(b[k], after[i][k]) then
        bug("%s changed track %d (field %d: %s -> %s)", what, i, k, tostring(b[k]), tostring(after[i][k]))
      end
    end
  end
end

-- After an update: every live track within [0, length], a finite pose with
-- unit rotations.
local function check_animator(a, what)
  for _, t in ipairs(a:tracks()) do
    -- (a finalizer's reload between the two reads changes both)
    local finalized = S.finalizers
    local time, len = t.time, t.length
    if (not finite(time) or time < 0 or time > len) and S.finalizers == finalized then
      bug("%s: track %s has time %.17g outside [0, %.17g]", what, tostring(t.clip.name), time, len)
    end
    local loops = t.loops
    if type(loops) ~= "number" or loops ~= loops or loops < 0 then
      bug("%s: track loops is %s", what, tostring(loops))
    end
  end
  for i, v in ipairs { a:root_motion() } do
    if not finite(v) then bug("%s: root motion %d is %s", what, i, tostring(v)) end
  end
  for j = 1, 7 do
    local v = { a:world_transform(j) }
    for i = 1, 10 do
      if not finite(v[i]) then bug("%s: world transform of joint %d has %s at %d", what, j, tostring(v[i]), i) end
    end
    local o = { a:get(j) }
    local n = o[4] * o[4] + o[5] * o[5] + o[6] * o[6] + o[7] * o[7]
    if n ~= n or math.abs(n - 1) >= 1e-6 then bug("%s: rotation offset of joint %d has |q|^2 = %.17g", what, j, n) end
  end
  -- (state machines: fuzz/animator_graph.lua)
  G.check(a, what)
end

-- A call that must succeed, or raise only the errors `allowed` says it may.
local function expect_ok(what, allowed, f, ...)
  local ok, err, more = compat.xpcall(f, debug.traceback, ...)
  if ok then return true, err, more end
  if is_memory_error(err) then error(err, 0) end
  local internal = internal_error(err)
  if internal then bug("%s raised a Lua error from inside the module (%s): %s", what, internal, tostring(err)) end
  if allowed and allowed(err) then return false, err end
  bug("%s raised: %s", what, tostring(err))
end

-- A call with a bad argument: raises a clean "bad argument" error.
local function expect_raise(what, f, ...)
  local ok, err = pcall(f, ...)
  if ok then bug("%s did not raise", what) end
  if is_memory_error(err) then error(err, 0) end
  local internal = internal_error(err)
  if internal then bug("%s raised a Lua error from inside the module (%s): %s", what, internal, tostring(err)) end
  return err
end

-- A call that must succeed when `good`, else raise a clean error and
-- change nothing of animator a's tracks.
-- Whether track t has ended (not playing, not queued): its controls then
-- raise "track '...' has ended" (docs/api.md), stop() excepted.
local function has_ended(t)
  local ok, playing = pcall(function() return t.is_playing end)
  return ok and not playing and not core.track_queued(t)
end

-- A control of a track that has ended: it raises, saying so (or, for a bad
-- argument, that), and changes nothing.
local function ended_raise(what, a, f, ...)
  local before = snapshot(a)
  local err = tostring(expect_raise(what .. " on an ended track", f, ...))
  if not (err:find("has ended", 1, true) or err:find("bad argument", 1, true)) then
    bug("%s on an ended track raised an unclear error: %s", what, err)
  end
  check_unchanged(a, before, what .. " on an ended track")
end

local function good_or_raise(what, good, a, f, ...)
  if good then return expect_ok(what, nil, f, ...) end
  local before = snapshot(a)
  expect_raise(what, f, ...)
  check_unchanged(a, before, what)
end

-- What an update may raise: the errors of our callbacks, a `plays` item whose
-- clip cannot be found, an update of an animator from its own callback (that
-- callback's error), a yield outside a coroutine.
local function update_error(err)
  return type(err) == "string" and not err:find("BUG:", 1, true) and (err:find(CALLBACK_ERROR, 1, true) or err:find("plays '", 1, true)
    or err:find("own callbacks", 1, true) or err:find("yield", 1, true)
    -- anim.update: an animator of a batch updated from a callback (api.md)
    or err:find("callbacks of the animator at index", 1, true) or err:find("yet to deliver", 1, true))
end

-- Callbacks ------------------------------------------------------------------------

-- A callback doing action `act` (a byte) on animator `a`; `conn` is filled in
-- after registration so that it can disconnect itself.
local function make_callback(a, act, arg)
  local box = {}
  local fn = function(track)
    S.calls = S.calls + 1
    if S.calls > 2000 then return end
    local k = act % 13
    if k == 0 then
      return
    elseif k == 1 then
      if S.plays < MAX_PLAYS then
        S.plays = S.plays + 1
        local c = CLIPS[arg % (#CLIPS - 1) + 1] -- not the view clip
        add_track(a:play(c, { fade = (arg % 3) * 0.05, speed = ({ 1, -1, 0, 1e6 })[arg % 4 + 1] }))
      end
    elseif k == 2 then
      if anim.is_clip(track and track.clip) then track:stop(({ 0, 0.1, 1e-9 })[arg % 3 + 1]) end
    elseif k == 3 then
      for _, t in ipairs(a:tracks()) do t:stop(arg % 2 == 0 and 0 or 0.2) end
    elseif k == 4 then
      error(CALLBACK_ERROR)
    elseif k == 5 then
      if box.conn then box.conn:disconnect() end
    elseif k == 6 then
      -- updating its own animator from its callback: refused, clearly
      local ok, err = pcall(a.update, a, 1 / 60)
      if ok then bug("animator:update from its own callback did not raise") end
      if type(err) ~= "string" or not err:find("own callbacks", 1, true) then
        bug("animator:update from its own callback raised an unclear error: %s", tostring(err))
      end
    elseif k == 7 then
      -- update another animator (allowed), its errors are its own
      local other = S.animators[arg % 3 + 1]
      if other and other ~= a and S.depth < 2 then
        S.depth = S.depth + 1
        expect_ok("update of another animator from a callback", update_error, other.update, other, 1 / 30)
        S.depth = S.depth - 1
      end
    elseif k == 8 then
      -- drop every reference the program holds to this animator and collect
      for i = 1, 3 do
        if S.animators[i] == a then S.animators[i] = nil end
      end
      a = nil
      collectgarbage("collect")
    elseif k == 9 then
      if track and anim.is_clip(track.clip) and not has_ended(track) then
        track:adjust_speed(({ 0, -1, 1e300, 2 })[arg % 4 + 1])
        track:adjust_weight(arg % 3, 0)
        track.time = (arg % 5) * 0.1
      end
    elseif k == 10 then
      coroutine.yield("from a callback")
    elseif k == 12 then
      -- reloading a clip from a callback: refused, clearly (docs/api.md)
      local c = S.own[arg % #S.own + 1]
      local ok, res, err = pcall(anim.reload, c, RELOADS[arg % #RELOADS + 1])
      if ok and res ~= nil then bug("anim.reload from a callback reloaded the clip") end
      if ok and type(err) ~= "string" then bug("anim.reload from a callback returned nil without a message") end
      if not ok then
        if is_memory_error(res) then error(res, 0) end
        if type(res) ~= "string" or not res:find(RELOAD_ERROR, 1, true) then
          bug("anim.reload from a callback raised an unclear error: %s", tostring(res))
        end
      end
    else
      S.tracks = {}
      collectgarbage("collect")
    end
  end
  return fn, box
end

-- Operations -------------------------------------------------------------------------

local OPS = {}

-- 0: a new animator in one of the three slots
OPS[#OPS + 1] = function(r)
  local slot = r:byte() % 3 + 1
  local b = r:byte()
  local side = ({ "both", "server", "client" })[b % 3 + 1]
  local space = math.floor(b / 3) % 4 == 3 and "view" or "body"
  S.animators[slot] = anim.animator(player, { side = side, space = space, library = math.floor(b / 12) % 2 == 0 and library or nil })
end

-- play a clip with odd options
OPS[#OPS + 1] = function(r)
  local a = pick_animator(r)
  -- (the shared clips, then the input's own, which reloads change)
  local i = r:byte() % (#CLIPS + #S.own) + 1
  local c = CLIPS[i] or S.own[i - #CLIPS]
  local opts = { fade = r:pick(FADE), weight = r:pick(WEIGHT), speed = r:pick(SPEED), priority = r:pick(PRIORITY) }
  local rt = r:byte() % 8
  if rt == 0 then opts.retarget = MAP elseif rt == 1 then opts.retarget = "res://goblin.retarget" end
  if not a or S.plays >= MAX_PLAYS then return end
  local good = (opts.fade == nil or (finite(opts.fade) and opts.fade >= 0)) and finite(opts.weight) and opts.weight >= 0
    and finite(opts.speed) and (c.space ~= "view" or a.space == "view")
    and (opts.priority == nil or type(opts.priority) == "string" and opts.priority ~= "bogus" or finite(opts.priority))
    and (rt ~= 1 or a.library ~= nil)
  if good then
    S.plays = S.plays + 1
    local before = snapshot(a)
    local ok, t = pcall(a.play, a, c, opts)
    if not ok then
      if is_memory_error(t) then error(t, 0) end
      -- (a clip whose property has another number of components than a
      -- track on the animator gives it: refused, changing nothing)
      -- (a clip none of whose joints a retarget map puts on the rig: refused
      -- too, as play says)
      if type(t) == "string" and (t:find("component", 1, true) or C.plays_on_nothing(t)) and not internal_error(t) then
        check_unchanged(a, before, "play refused")
        return
      end
      bug("play(%s, fade=%s weight=%s speed=%s priority=%s) raised: %s", c.name, tostring(opts.fade),
        tostring(opts.weight), tostring(opts.speed), tostring(opts.priority), tostring(t))
    end
    add_track(t)
  else
    local before = snapshot(a)
    expect_raise("play with a bad option", a.play, a, c, opts)
    check_unchanged(a, before, "play with a bad option")
  end
end

local function track_call(r, name, list, list2)
  local t = pick_track(r)
  local v, w = r:pick(list), list2 and r:pick(list2)
  if not t then return end
  local a = t.animator
  local good
  if name == "stop" then good = v == nil or (finite(v) and v >= 0)
  elseif name == "adjust_weight" then good = finite(v) and v >= 0 and (w == nil or (finite(w) and w >= 0))
  elseif name == "adjust_speed" then good = finite(v) end
  if name ~= "stop" and has_ended(t) then return ended_raise("track:" .. name, a, t[name], t, v, w) end
  good_or_raise("track:" .. name .. (good and "" or " with a bad argument"), good, a, t[name], t, v, w)
end

OPS[#OPS + 1] = function(r) track_call(r, "stop", FADE) end
OPS[#OPS + 1] = function(r) track_call(r, "adjust_weight", WEIGHT, FADE) end
OPS[#OPS + 1] = function(r) track_call(r, "adjust_speed", SPEED) end

-- seek: track.time = v
OPS[#OPS + 1] = function(r)
  local t = pick_track(r)
  local v = r:pick(TIME)
  if not t then return end
  if has_ended(t) then return ended_raise("track.time = " .. tostring(v), t.animator, function() t.time = v end) end
  good_or_raise("track.time = " .. tostring(v), finite(v), t.animator, function() t.time = v end)
end

-- Every other update goes through anim.update with every animator of the
-- program, a first (taking turns this way reads no byte: the inputs of the
-- corpus keep their meaning).
local function update(a, dt, what)
  local fn, args = a.update, { a, dt }
  S.updates = S.updates + 1
  if S.updates % 2 == 0 then
    local list = { a }
    for i = 1, 3 do
      local o = S.animators[i]
      if o and o ~= a then list[#list + 1] = o end
    end
    fn, args, what = anim.update, { list, dt }, what .. " through anim.update"
  end
  if finite(dt) and dt >= 0 then
    expect_ok(what, update_error, fn, compat.unpack(args))
    check_animator(a, what)
  else
    local before = snapshot(a)
    local err = expect_raise(what, fn, compat.unpack(args))
    if not err:find("bad argument", 1, true) then bug("%s raised an unclear error: %s", what, tostring(err)) end
    check_unchanged(a, before, what)
  end
end

-- update(dt)
OPS[#OPS + 1] = function(r)
  local a = pick_animator(r)
  local dt = r:pick(DT)
  if a then update(a, dt, string.format("update(%.17g)", dt)) end
end

-- update inside a coroutine, whose callbacks may yield: a callback cannot
-- suspend update (its yield is an error of that callback)
OPS[#OPS + 1] = function(r)
  local a = pick_animator(r)
  local dt = r:pick(DT)
  if not a then return end
  local co = coroutine.create(function() update(a, dt, string.format("update(%.17g) in a coroutine", dt)) end)
  local ok, err = coroutine.resume(co)
  if not ok then
    if is_memory_error(err) then error(err, 0) end
    if type(err) == "string" and err:find("^BUG") then error(err, 0) end
    bug("update in a coroutine: %s", tostring(err))
  end
  if coroutine.status(co) ~= "dead" then bug("a callback suspended animator:update (it yielded out of it)") end
end

-- Connects callback fn (its box to hold the connection) to obj[kind]; one
-- in five (by `arg`) is kept for a later disconnect.
local function connect(obj, kind, fn, box, arg)
  box.conn = obj[kind](obj, fn)
  S.connections = S.connections + 1
  if arg % 5 == 0 then S.conns[#S.conns + 1] = box.conn end
end

-- an animator callback
OPS[#OPS + 1] = function(r)
  local a = pick_animator(r)
  local kind = ({ "on_marker", "on_event", "on_sound", "on_play" })[r:byte() % 4 + 1]
  local act, arg = r:byte(), r:byte()
  if not a or S.connections >= MAX_CONNECTIONS then return end
  local fn, box = make_callback(a, act, arg)
  connect(a, kind, fn, box, arg)
end

-- a track callback
OPS[#OPS + 1] = function(r)
  local t = pick_track(r)
  local kind = ({ "on_looped", "on_stopped", "on_ended", "on_marker" })[r:byte() % 4 + 1]
  local act, arg = r:byte(), r:byte()
  if not t or S.connections >= MAX_CONNECTIONS then return end
  local fn, box = make_callback(t.animator, act, arg)
  if kind == "on_marker" then
    local names = { "step", "wave", "hit", "a", "b", "mid", "end", "done", "fast", "held", "spark-done" }
    box.conn = t:on_marker(names[arg % #names + 1], fn)
  else
    box.conn = t[kind](t, fn)
  end
  S.connections = S.connections + 1
end

-- drop references, collect
OPS[#OPS + 1] = function(r)
  local what = r:byte() % 6
  if what == 0 then S.animators[r:byte() % 3 + 1] = nil
  elseif what == 1 then S.tracks = {}
  elseif what == 2 and #S.tracks > 0 then table.remove(S.tracks, r:byte() % #S.tracks + 1)
  elseif what == 3 then
    local c = S.conns[#S.conns]
    if c then c:disconnect(); c:disconnect(); S.conns[#S.conns] = nil end
  elseif what == 4 then
    -- keep a track, drop its animator everywhere, collect: the track must
    -- still answer (or raise a clear error)
    local t = pick_track(r)
    if t then
      for i = 1, 3 do S.animators[i] = nil end
      S.orphans[#S.orphans + 1] = t
    end
  end
  collectgarbage(r:byte() % 2 == 0 and "collect" or "step")
end

-- read the pose
OPS[#OPS + 1] = function(r)
  local a = pick_animator(r)
  local j = JOINTS[r:byte() % #JOINTS + 1]
  local how = r:byte() % 6
  if not a then return end
  local good = player:has(j) or (is_integer(j) and j >= 1 and j <= 7)
  local f = ({ a.get, a.animated, a.local_transform, a.world_transform })[how % 4 + 1]
  if how == 4 then
    local t = {}
    expect_ok("pose_into", nil, a.pose_into, a, t, ({ "offsets", "local", "world" })[r:byte() % 3 + 1])
    expect_ok("pose_into again", nil, a.pose_into, a, t)
  elseif how == 5 then
    expect_ok("root_transform", nil, a.root_transform, a)
  elseif good then
    expect_ok("reading joint " .. tostring(j), nil, f, a, j)
  else
    expect_raise("reading unknown joint " .. tostring(j), f, a, j)
  end
end

-- tracks(), autoplay(), fields
OPS[#OPS + 1] = function(r)
  local a = pick_animator(r)
  if not a then return end
  if r:byte() % 2 == 0 then
    for _, t in ipairs(a:tracks()) do
      touch(t.time, t.speed, t.weight, t.is_playing, t.loops, t.fade, t.clip, t.animator, t.length, tostring(t))
    end
  elseif S.plays < MAX_PLAYS then
    S.plays = S.plays + 1
    for _, t in ipairs(a:autoplay(CLIPS)) do add_track(t) end
  end
  touch(a.rig, a.side, a.space, a.library)
end

-- use a track whose animator may have been collected
OPS[#OPS + 1] = function(r)
  local t = S.orphans[r:byte() % math.max(1, #S.orphans) + 1]
  if not t then return end
  local op = r:byte() % 5
  local allowed = function(err) return type(err) == "string" end
  if op == 0 then expect_ok("an orphan track's fields", allowed, function() return t.time, t.loops, t.is_playing, tostring(t) end)
  elseif op == 1 then expect_ok("stop on an orphan track", allowed, t.stop, t, 0)
  elseif op == 2 then expect_ok("adjust_speed on an orphan track", allowed, t.adjust_speed, t, -1)
  elseif op == 3 then expect_ok("seek on an orphan track", allowed, function() t.time = 0.1 end)
  else
    local ok, a = pcall(function() return t.animator end)
    if ok and a then update(a, 1 / 60, "update of an orphan track's animator") end
  end
end

-- Whether v is a good parameter for a space of `dims` dimensions.
local function good_at(v, dims)
  if v == nil then return true end
  if dims == 1 then return finite(v) end
  return type(v) == "table" and finite(v[1]) and finite(v[2])
end

-- the tracks of clip c on the program's animators
local function tracks_of(c)
  local out = {}
  for i = 1, 3 do
    local a = S.animators[i]
    if a then
      for _, t in ipairs(a:tracks()) do
        local src = t.clip
        local holds = src == c
        if anim.is_blendspace(src) then
          for _, p in ipairs(src.points) do holds = holds or p.clip == c end
        end
        if holds then out[#out + 1] = t end
      end
    end
  end
  return out
end

-- play a blend space (1D or 2D, synced or not, of the input's own clips
-- and shared ones), at odd parameters, maybe queued after a track
OPS[#OPS + 1] = function(r)
  local a = pick_animator(r)
  local space = S.spaces[r:byte() % #S.spaces + 1]
  local opts = { fade = r:pick(FADE), weight = r:pick(WEIGHT), speed = r:pick(SPEED), at = r:pick(AT) }
  local k = r:byte()
  if k % 4 == 0 then opts.after = pick_track(r) end
  if not a or S.plays >= MAX_PLAYS then return end
  local good = (opts.fade == nil or (finite(opts.fade) and opts.fade >= 0)) and finite(opts.weight) and opts.weight >= 0
    and finite(opts.speed) and good_at(opts.at, space.dimensions)
  local before = snapshot(a)
  if good then
    S.plays = S.plays + 1
    -- (refused, changing nothing: a track after which another is queued,
    -- or of another animator; a property of another number of components
    -- than a track on the animator gives it)
    -- (and a point's clip reloaded to play on no joint of the rig, as play
    -- refuses such a clip)
    local ok, t = expect_ok("play(space)", function(err)
      return type(err) == "string" and (err:find("after", 1, true) or err:find("component", 1, true) or C.plays_on_nothing(err))
    end, a.play, a, space, opts)
    if ok then add_track(t) else check_unchanged(a, before, "play(space) refused") end
  else
    expect_raise("play(space) with a bad option", a.play, a, space, opts)
    check_unchanged(a, before, "play(space) with a bad option")
  end
end

-- move a space's parameter (track.at = v, track:set_at(x, y))
OPS[#OPS + 1] = function(r)
  local t = pick_track(r)
  local v, how = r:pick(AT), r:byte() % 2
  if not t then return end
  local ok_clip, c = pcall(function() return t.clip end)
  if not ok_clip then return end
  local space = anim.is_blendspace(c) and c
  local a = t.animator
  local set = how == 0 and function() t.at = v end
    or function() if type(v) == "table" then t:set_at(v[1], v[2]) else t:set_at(v) end end
  -- (set_at takes x [, y]: a 1D space reads x alone)
  local good = space and v ~= nil and good_at(v, space.dimensions)
  if space and how == 1 and space.dimensions == 1 and type(v) == "table" then good = finite(v[1]) end
  if space and has_ended(t) then return ended_raise("track.at = " .. tostring(v), a, set) end
  good_or_raise("track.at = " .. tostring(v), good, a, set)
end

-- root motion on, off, on another joint, on none that exists
OPS[#OPS + 1] = function(r)
  local a = pick_animator(r)
  local j = r:pick(ROOT)
  if not a then return end
  good_or_raise("animator.root_motion = " .. tostring(j), j == nil or player:has(j) or (is_integer(j) and j >= 1 and j <= 7), a,
    function() a.root_motion = j end)
  touch(a.root_motion_joint, a:root_motion())
end

-- Reloads one of the input's own clips with RELOADS[k]: the clip itself,
-- or nil and a message with the clip as it was; raises only from a
-- callback (RELOAD_ERROR).
local function reload_with(c, src, what)
  -- (a finalizer may reload it too, in the middle of this reload or of
  -- what reads the clip around it)
  local finalized, gen = S.finalizers, core.clip_reloads(c)
  local length, njoints = c.length, #c:joints()
  local ok, res, err = compat.xpcall(anim.reload, debug.traceback, c, src)
  local by_finalizer = S.finalizers ~= finalized or core.clip_reloads(c) - gen ~= (res == c and 1 or 0)
  if not ok then
    if is_memory_error(res) then error(res, 0) end
    if type(res) == "string" and res:find(RELOAD_ERROR, 1, true) and what ~= "anim.reload" then return end
    bug("%s raised: %s", what, tostring(res))
  end
  if res == nil then
    if type(err) ~= "string" then bug("%s returned nil without a message", what) end
    if not by_finalizer and (c.length ~= length or #c:joints() ~= njoints) then bug("%s refused (%s) but changed the clip", what, err) end
    return
  end
  if res ~= c then bug("%s returned another clip", what) end
  if type(src) == "table" and not by_finalizer and c.length ~= src.length then bug("%s: the clip's length is %s, not %s", what, c.length, src.length) end
  for _, t in ipairs(tracks_of(c)) do
    local finalized2 = S.finalizers
    local time, len = t.time, t.length
    if not (finite(time) and time >= 0 and time <= len) and S.finalizers == finalized2 then
      bug("%s: a track of the clip has time %.17g outside [0, %.17g]", what, time, len)
    end
  end
end

local function reload(c, k, what) return reload_with(c, RELOADS[k], what) end

-- Every number an animator shows.
local function numbers(a)
  local out = { a:root_motion() }
  for j = 1, 7 do
    for _, f in ipairs { a.get, a.world_transform } do
      for _, v in ipairs { f(a, j) } do out[#out + 1] = v end
    end
  end
  return out
end

-- What a reload left in animator `a` is what a restore builds from its
-- state with the clips as they are now (spec/reload_tracks_spec.lua): the
-- next update poses the same bits (a binding left from the old content
-- reads other keys, or past the new arrays).  The pose is made before
-- the callbacks run, so those of `a` change nothing of it.
local function same_as_restored(a, what)
  -- (a finalizer that reloads a clip meanwhile makes the state one of
  -- the old content: then nothing is compared)
  local finalized = S.finalizers
  local s = a:state()
  local b = anim.animator(player, { side = a.side, space = a.space, library = a.library })
  local ok, res, err = pcall(b.restore, b, s, function(name, kind)
    if kind == "retarget" then return MAP end
    if kind == "graph" then return G.resolve_graph(name) end
    -- (an animator with no library driven by a library's graph: its
    -- clips' res:// paths come here, as the docs say, and a game gives
    -- them from its library)
    if name:match("^res://") then return (library:clip(name)) end
    return S.named[name]
  end)
  if not ok then
    if is_memory_error(res) then error(res, 0) end
    bug("%s: restore of the animator's state raised: %s", what, tostring(res))
  end
  if S.finalizers ~= finalized then return end
  if not res then bug("%s: the animator's state was refused: %s", what, tostring(err)) end
  local ok_a, ea = pcall(a.update, a, 1 / 60)
  local ok_b, eb = pcall(b.update, b, 1 / 60)
  if not ok_a and (is_memory_error(ea) or internal_error(ea)) then error(ea, 0) end
  if not ok_b and (is_memory_error(eb) or internal_error(eb)) then error(eb, 0) end
  local x, y = numbers(a), numbers(b)
  for i = 1, S.finalizers == finalized and #x or 0 do
    if x[i] ~= y[i] and not (x[i] ~= x[i] and y[i] ~= y[i]) then
      bug("%s: the next update gives number %d = %.17g, a restore of its state %.17g", what, i, x[i], y[i])
    end
  end
  if S.finalizers == finalized then G.compare(a, b, what) end
  check_animator(a, what .. ", then an update")
end

-- hot reload of one of the input's clips while tracks play it; each
-- animator playing it then updates as one restored from its state does
OPS[#OPS + 1] = function(r)
  local c, k, check = S.own[r:byte() % #S.own + 1], r:byte() % #RELOADS + 1, r:byte() % 2 == 0
  reload(c, k, "anim.reload")
  if not check then return end
  local seen = {}
  for _, t in ipairs(tracks_of(c)) do
    local a = t.animator
    if not seen[a] then
      seen[a] = true
      same_as_restored(a, "anim.reload")
    end
  end
end

-- a finalizer that reloads one of the input's clips at the next minor
-- collection (generational mode): in the middle of a play, an update, a
-- blend space's play...
OPS[#OPS + 1] = function(r)
  local c, k = S.own[r:byte() % #S.own + 1], r:byte() % #RELOADS + 1
  local run = S
  if compat.jit and not C.LUAJIT_RELOADS then return end
  if C.arm_finalizer(function()
    run.finalizers = run.finalizers + 1
    local ok, err = pcall(reload, c, k, "anim.reload from a finalizer")
    if not ok and not run.finalizer_bug then run.finalizer_bug = err end
  end) then S.generational = true end
end

-- The state machine operations (fuzz/animator_graph.lua) take the
-- operation bytes from GRAPH_BASE up, which `byte % #OPS` would have mapped
-- onto the first operations again: the other inputs keep their meaning.
local GRAPH_BASE = 256 - 256 % #OPS
local H = {
  state = function() return S end, bug = bug, expect_ok = expect_ok, expect_raise = expect_raise,
  good_or_raise = good_or_raise, snapshot = snapshot, check_unchanged = check_unchanged, touch = touch,
  pick_animator = pick_animator, add_track = add_track, make_callback = make_callback, internal_error = internal_error,
  MAX_CONNECTIONS = MAX_CONNECTIONS, connect = connect, same_as_restored = same_as_restored, reload_with = reload_with,
  update_error = update_error, check_animator = check_animator, player = player, trace = TRACE, library = library,
}
G.init(H)

local function reset(data)
  S = {
    r = setmetatable({ s = data, i = 1 }, Reader),
    animators = {}, tracks = {}, orphans = {}, conns = {},
    plays = 0, calls = 0, connections = 0, depth = 0, updates = 0, finalizers = 0,
  }
  S.animators[1] = anim.animator(player, { library = library })
  S.animators[2] = anim.animator(player, { side = "server" })
  S.own = { assert(anim.clip(OWN[1], "own1")), assert(anim.clip(OWN[2], "own2")) }
  S.named = { own1 = S.own[1], own2 = S.own[2] }
  for _, c in ipairs(CLIPS) do S.named[c.name] = c end
  local own1, own2, walk, wave = S.own[1], S.own[2], CLIPS[1], CLIPS[2]
  S.spaces = {
    anim.blendspace { name = "synced", points = { { clip = own1, at = 0 }, { clip = walk, at = 1 }, { clip = own2, at = 2 } } },
    anim.blendspace { name = "free", sync = false, markers = "all", points = { { clip = own2, at = 0 }, { clip = CLIPS[7], at = 1 },
      { clip = own1, at = 3 } } },
    anim.blendspace { name = "plane", sync = false, points = { { clip = own1, at = { 0, 0 } }, { clip = walk, at = { 1, 0 } },
      { clip = wave, at = { 0, 1 } }, { clip = own2, at = { 1, 1 } } } },
    anim.blendspace { name = "one", markers = "none", points = { { clip = own2, at = { 0, 0 } } } },
  }
end

function M.run(data)
  reset(data)
  local r = S.r
  local n = 0
  local ok, err = pcall(function()
    while not r:done() and n < MAX_OPS do
      n = n + 1
      local b = r:byte()
      if b >= GRAPH_BASE then
        G.op(H, r, b - GRAPH_BASE)
      else
        if TRACE then io.stderr:write("op ", b % #OPS, "\n") end
        OPS[b % #OPS + 1](r)
      end
      if S.finalizer_bug then error(S.finalizer_bug, 0) end
    end
    -- a last update of whatever is left; the finalizers still pending run
    for i = 1, 3 do
      local a = S.animators[i]
      if a then update(a, 1 / 60, "the last update") end
    end
    collectgarbage("collect")
    if S.finalizer_bug then error(S.finalizer_bug, 0) end
  end)
  if S.generational then collectgarbage("incremental") end
  S = nil
  collectgarbage("collect")
  if not ok then error(err, 0) end
end

return M
