-- fuzz/state.lua: the driver of the fuzz_state target (and of the replay of
-- its inputs in spec/fuzz_regressions_spec.lua): animator:restore fed the
-- states a peer would send (issue 35).
--
-- run(bytes): the first bytes pick and drive a real scene -- an animator
-- (side, space, library or none, root motion) playing clips of
-- examples/clips and generated ones, blend spaces 1D and 2D, synced or
-- not, retargeted and queued tracks, overrides, constraints, property
-- channels, at speeds, weights, fades and dts up to the largest double --
-- which is saved with state().  Then:
--   1. the state, as it is or through cjson, is restored into a fresh
--      animator: it must restore, read the same numbers (poses, root
--      motion, properties), write the same state and go on bit for bit
--      over a few updates, with the same callbacks (docs/api.md);
--   2. the rest of the bytes mutate a copy of it as a message received
--      from the network may be (fields replaced by another type, number,
--      huge count, NaN or infinity as a string, a negative number, 2^63,
--      long strings of control bytes; fields added and removed; arrays
--      truncated, duplicated, swapped; ids swapped; queues made into
--      cycles; res:// paths spelled other ways; cjson round trips; the
--      peer's clips other than ours), and it is restored into the animator
--      of 1 (or a fresh one) with a resolve function.  restore returns its
--      result or exactly nil and a message "state...: why" of bounded
--      length (never raises: a Lua runtime error from the module, an
--      internal "state plan: ..." error, any error, is a BUG), within
--      M.budget; a refusal leaves the animator as it was (its state() the
--      same, its tracks the same objects); an accepted state gives an
--      animator whose pose stays finite over later updates and whose own
--      state() restores into another animator that goes on bit for bit.
-- One byte picks an operation, the next ones its operands; reading past
-- the end gives zeros.  Work is bounded: MAX_SCENE operations, MAX_PLAYS
-- tracks, MAX_MUTATIONS mutations, arrays grown to at most MAX_GROW.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local C = require "fuzz.common"
local compat = require "anim.base.compat"
local cjson = require "cjson"
local random = require "spec.random_clips"

local M = {}

-- CPU seconds of one hostile restore on the plain build (docs/robustness.md:
-- the worst states are refused or restored in under 0.3 s), times
-- FUZZ_SLOWDOWN under the fuzzer; MiB of memory per input (the harness)
M.budget = { seconds = 0.5, mb = 256 }
-- (the whole input: the scene, the restores and the updates)
local RUN_SECONDS = 2

local MAX_SCENE, MAX_PLAYS, MAX_MUTATIONS, MAX_GROW, UPDATES = 24, 12, 24, 600, 3
-- (a message names a path and quotes at most 200 bytes of each name)
local MAX_MESSAGE = 1024

local bug, is_memory_error, internal = C.bug, C.is_memory_error, C.internal
local hex = compat.hexfloat
local NaN, INF, BIG = 0 / 0, math.huge, 1.7976931348623157e308
local TRACE = os.getenv("FUZZ_TRACE")

local function trace(...)
  if TRACE then io.stderr:write(table.concat({ ... }, " "), "\n") end
end

-- The clips, blend spaces and maps (made once; nothing changes them) ----------------

local here = rawget(_G, "ANIM_ROOT") or (debug.getinfo(1, "S").source:match("^@(.*)/fuzz/state%.lua$") or ".")
local rig = anim.rig("player")
local JOINTS = random.JOINTS
local LIB = assert(anim.library(here .. "/examples/clips"))

-- a generator of the clips random_clips makes: r(n) in 1..n, r() in [0, 1)
local function generator(seed)
  local x = seed
  return function(n)
    x = (x * 1103515245 + 12345) % 2147483648
    if n then return x % n + 1 end
    return x / 2147483648
  end
end

local function clip(t, name) return assert(anim.clip(t, name)) end
local function keys(...) return { ... } end

local CLIPS = {
  assert(LIB:clip("res://walk.anim")), assert(LIB:clip("res://wave.anim")),
  assert(LIB:clip("res://attack.anim")), -- (events, sounds, a plays item of res://spark.anim)
  assert(LIB:clip("res://spark.anim")),
  -- the root moving forward and turning: root motion
  clip({ length = 0.8, loop = "loop", markers = { { time = 0, name = "step" }, { time = 0.4, name = "step" } },
    joints = { root = { position = keys({ 0, { 0, 0, 0 } }, { 0.8, { 0.3, 0, 2 } }),
      rotation = keys({ 0, { 0, 0, 0 } }, { 0.8, { 0, 40, 0 } }) },
      rightLeg = { rotation = keys({ 0, { 30, 0, 0 } }, { 0.4, { -30, 0, 0 } }, { 0.8, { 30, 0, 0 } }) } } }, "stride"),
  clip({ length = 1.3, loop = "pingpong", joints = { torso = {
    position = keys({ 0, { 0, 0, 0 } }, { 1.3, { 0.3, 0.1, 2 } }), rotation = keys({ 0, { 10, 0, 0 } }, { 1.3, { 10, 30, 0 } }) } },
    properties = { glow = keys({ 0, 0 }, { 1.3, 1 }) } }, "hips"),
  clip({ length = 1e-9, loop = "loop", markers = { { time = 0, name = "a" }, { time = 1e-9, name = "b" } },
    joints = { head = { position = keys({ 0, { 0, 0, 0 } }, { 1e-9, { 0, 1, 0 } }) } } }, "tiny"),
  clip({ length = 0.5, loop = "pingpong", speed = -2,
    markers = { { time = 0, name = "start" }, { time = 0.25, name = "mid", value = "v" }, { time = 0.5, name = "end" } },
    events = { { time = 0.1, name = "e1", payload = { n = 1 }, on = "both" }, { time = 0.4, name = "e2", on = "client" } },
    sounds = { { time = 0.2, sound = "s", volume = 0.5 } },
    joints = { rightArm = { rotation = keys({ 0, { 0, 0, 0 }, "sine" }, { 0.5, { 90, 0, 0 } }) } } }, "pingpong"),
  clip({ length = 0.3, loop = "once", markers = { { time = 0, name = "begin" }, { time = 0.3, name = "done" } },
    plays = { { time = 0.1, clip = "res://spark.anim", fade = 0 } },
    joints = { leftArm = { rotation = keys({ 0, { 0, 0, 0 } }, { 0.3, { 0, 0, 45 } }) } } }, "once"),
  clip({ length = 2, loop = "hold", blend = "additive", priority = "action4", markers = { { time = 2, name = "held" } },
    joints = { torso = { position = keys({ 0, { 0, 0, 0 } }, { 2, { 0, 0.5, 0 } }), scale = keys({ 0, { 1, 1, 1 } }, { 2, { 2, 2, 2 } }) } } },
    "hold"),
  clip({ length = 0, loop = "once", markers = { { time = 0, name = "now" } },
    joints = { head = { rotation = keys({ 0, { 0, 45, 0 } }) } } }, "zero"),
  -- (a property of 3 components where others give it 1: play refuses it next to them)
  clip({ length = 1, loop = "loop", joints = {}, properties = { glow = keys({ 0, { 0, 0, 0 } }, { 1, { 1, 2, 3 } }) } }, "glow3"),
  clip({ length = 1, loop = "loop", space = "view", joints = { head = { rotation = keys({ 0, { 0, 0, 0 } }, { 1, { 0, 90, 0 } }) } } },
    "view"),
}
local VIEW = CLIPS[#CLIPS]
do
  local r = generator(35)
  for i = 1, 6 do CLIPS[#CLIPS + 1] = random.clip(r, "g" .. i) end
end

local SPACES = {}
do
  local r = generator(3535)
  local gen = {}
  for i = #CLIPS - 5, #CLIPS do gen[#gen + 1] = CLIPS[i] end
  for _, s in ipairs(random.spaces(r, gen)) do SPACES[#SPACES + 1] = s end
  local function space(def)
    local ok, s = pcall(anim.blendspace, def)
    if ok then SPACES[#SPACES + 1] = s end
  end
  local walk, wave, attack, stride, hips = CLIPS[1], CLIPS[2], CLIPS[3], CLIPS[5], CLIPS[6]
  space { name = "move", points = { { clip = walk, at = 0 }, { clip = stride, at = 1 }, { clip = hips, at = 2.5 } }, sync = false,
    markers = "all" }
  space { name = "strides", points = { { clip = stride, at = 0 }, { clip = walk, at = 1 } } }
  space { name = "plane", sync = false, markers = "none", points = { { clip = walk, at = { 0, 0 } }, { clip = wave, at = { 1, 0 } },
    { clip = attack, at = { 0, 1 } }, { clip = stride, at = { 1, 1 } }, { clip = gen[1], at = { 0.5, 0.5 } } } }
  space { name = "square", points = { { clip = walk, at = { 0, 0 } }, { clip = stride, at = { 1, 0 } },
    { clip = walk, at = { 0, 1 } }, { clip = stride, at = { 1, 1 } } } }
  space { name = "look", points = { { clip = VIEW, at = 0 }, { clip = walk, at = 1 } } }
end
-- what a track plays: the clips, then the spaces
local PLAYABLE = {}
for _, c in ipairs(CLIPS) do PLAYABLE[#PLAYABLE + 1] = c end
for _, s in ipairs(SPACES) do PLAYABLE[#PLAYABLE + 1] = s end

local HALF = assert(anim.decode_retarget([[{"version": 1, "scale": 0.5,
  "joints": {"rightArm": {"to": "leftArm", "source": [0, 0, 0.3826834, 0.9238795]}, "head": "torso"}}]], "half"))
local GOBLIN = assert(LIB:retarget("res://goblin.retarget"))

-- what resolve finds by name (the peer's names: ours)
local NAMED, MAPS = {}, { half = HALF, [GOBLIN.name] = GOBLIN }
for _, c in ipairs(CLIPS) do NAMED[c.name] = c end
local FINALIZED = clip({ length = 1, joints = {} }, "finalized")
debug.getmetatable(FINALIZED).__gc(FINALIZED)

-- Reading and comparing animators --------------------------------------------------

local function finite(x) return type(x) == "number" and x == x and x ~= INF and x ~= -INF end

-- Every number an animator shows (compared with ==), its properties and
-- its tracks' numbers.
local function numbers(a)
  local out = { a:root_motion() }
  for j = 1, #JOINTS do
    for _, f in ipairs { a.get, a.local_transform, a.world_transform } do
      for _, v in ipairs { f(a, j) } do out[#out + 1] = v end
    end
  end
  for _, name in ipairs { "glow", "tint" } do
    local v = { pcall(a.property, a, name) }
    out[#out + 1] = v[1] and "known" or "unknown"
    for k = 2, #v do out[#out + 1] = v[k] end
  end
  for _, t in ipairs(a:tracks()) do
    for _, v in ipairs { t.id, t.time, t.loops, t.is_playing, t.speed, t.weight, t.fade, t.length } do out[#out + 1] = v end
  end
  return out
end

local function show(v) return type(v) == "number" and hex(v) or tostring(v) end

local function same_numbers(x, y, what)
  if #x ~= #y then bug("%s: %d numbers, not %d", what, #y, #x) end
  for i = 1, #x do
    if x[i] ~= y[i] then bug("%s: number %d is %s, not %s", what, i, show(y[i]), show(x[i])) end
  end
end

-- Tables of values compared deeply (states: no cycles); the path of the
-- first difference, or nil.
local function differ(x, y, path)
  if type(x) ~= "table" or type(y) ~= "table" then
    if x == y then return nil end
    return string.format("%s: %s vs %s", path, show(x), show(y))
  end
  for k, v in pairs(x) do
    local d = differ(v, y[k], path .. "." .. tostring(k))
    if d then return d end
  end
  for k in pairs(y) do
    if x[k] == nil then return path .. "." .. tostring(k) .. ": only in the second" end
  end
end

-- The state holds only what cjson keeps: strings, booleans, small integers.
local function json_safe(v, path)
  if type(v) == "table" then
    for k, x in pairs(v) do json_safe(x, path .. "." .. tostring(k)) end
  elseif type(v) == "number" then
    if not (v == math.floor(v) and math.abs(v) < 2 ^ 31) then bug("state(): %s is a number cjson may not keep (%s)", path, show(v)) end
  elseif type(v) ~= "string" and type(v) ~= "boolean" then
    bug("state(): %s is a %s", path, type(v))
  end
end

-- The pose, root motion, properties and tracks stay finite; track times
-- within their clips; rotations unit once updated.
local function check_finite(a, what, updated)
  for j = 1, #JOINTS do
    local w = { a:world_transform(j) }
    local o = { a:get(j) }
    for i = 1, 10 do
      if not finite(w[i]) then bug("%s: world transform of joint %d has %s at %d", what, j, show(w[i]), i) end
      if not finite(o[i]) then bug("%s: offset of joint %d has %s at %d", what, j, show(o[i]), i) end
    end
    local n = o[4] * o[4] + o[5] * o[5] + o[6] * o[6] + o[7] * o[7]
    if updated and math.abs(n - 1) >= 1e-6 then bug("%s: rotation offset of joint %d has |q|^2 = %.17g", what, j, n) end
  end
  for i, v in ipairs { a:root_motion() } do
    if not finite(v) then bug("%s: root motion %d is %s", what, i, show(v)) end
  end
  for _, name in ipairs { "glow", "tint" } do
    local v = { pcall(a.property, a, name) }
    for k = 2, v[1] and #v or 0 do
      if v[k] ~= nil and not finite(v[k]) then bug("%s: property %s[%d] is %s", what, name, k - 1, show(v[k])) end
    end
  end
  for _, t in ipairs(a:tracks()) do
    local time, len = t.time, t.length
    if not (finite(time) and time >= 0 and time <= len) then
      bug("%s: track %s has time %s outside [0, %s]", what, tostring(t.id), show(time), show(len))
    end
  end
end

-- The callbacks, logged (late by its bits).
local function listen(a, log)
  local function add(...)
    local parts = {}
    for i = 1, select("#", ...) do
      local v = select(i, ...)
      parts[i] = type(v) == "number" and hex(v) or type(v) == "table" and "table" or tostring(v)
    end
    log[#log + 1] = table.concat(parts, " ")
  end
  a:on_marker(function(t, name, value, late) add("marker", t.id, name, value, late) end)
  a:on_event(function(t, name, _, late) add("event", t.id, name, late) end)
  a:on_sound(function(t, sound, volume, pitch, late) add("sound", t.id, sound, volume, pitch, late) end)
  a:on_play(function(t, c, late) add("play", t.id, c.name, late) end)
  return add
end

local function listen_tracks(tracks, add)
  for id, t in pairs(tracks) do
    t:on_looped(function(_, late) add("looped", id, late) end)
    t:on_stopped(function(_, late) add("stopped", id, late) end)
    t:on_ended(function(_, late) add("ended", id, late) end)
    t:on_marker("step", function(_, value, late) add("track step", id, value, late) end)
  end
end

local function by_id(a)
  local out = {}
  for _, t in ipairs(a:tracks()) do out[t.id] = t end
  return out
end

-- An update: (true) or (false, the first line of its error).  A plays
-- item of a missing clip, or of a res:// path on an animator with no
-- library, is an error of update's; a Lua runtime error is a BUG.
local function update(a, dt, what)
  local ok, err = pcall(a.update, a, dt)
  if ok then return true end
  if is_memory_error(err) then error(err, 0) end
  if internal(err) then bug("%s: update(%s) raised from inside the module: %s", what, show(dt), tostring(err)) end
  if type(err) ~= "string" or not err:find("plays '", 1, true) then bug("%s: update(%s) raised: %s", what, show(dt), tostring(err)) end
  return false, err:match("^[^\n]*")
end

-- Operands ---------------------------------------------------------------------------

local Reader = C.Reader
local S -- the run under way

local FADES = { 0, 0.1, 0.3, 1e-9, 0.05, 1e300, BIG }
local WEIGHTS = { 1, 0.5, 0, 1.2, 1e300, 1e-300 }
local SPEEDS = { 1, -1, 2, 0.5, 0, -0.3, 1e300, -1e300, 5e-324, 1e15, BIG, -BIG }
local DTS = { 1 / 60, 0.1, 1 / 30, 0.7, 0, 0.25, 1 / 144, 2.5, 1e9, 1e300, BIG, 5e-324 }
local PRIORITIES = { false, false, "core", "movement", "action", "action4", 0, 3, -2, 7.5 }
local PLACES = { 0, 1, 0.5, 2, 3, -1, 0.25, 1e300, -1e300 }
local TIMES = { 0, 0.3, 0.5, 1, 1e300, 0.01 }
local ROOTS = { false, "root", "torso", "head", 2, false }

local function track_of(r)
  local n = #S.tracks
  if n == 0 then return nil end
  return S.tracks[r:byte() % n + 1]
end

local function place(r, space)
  if space.dimensions == 1 then return r:pick(PLACES) end
  return { r:pick(PLACES), r:pick(PLACES) }
end

-- A call of the scene: errors of bad arguments are the scene's; a Lua
-- runtime error from the module is a BUG.
local function act(what, f, ...)
  local res = compat.pack(pcall(f, ...))
  if res[1] then return compat.unpack(res, 2, res.n) end
  local e = res[2]
  if is_memory_error(e) or (type(e) == "string" and e:sub(1, 4) == "BUG:") then error(e, 0) end
  if internal(e) then bug("%s raised from inside the module: %s", what, tostring(e)) end
end

-- Scene operations -------------------------------------------------------------------

local SCENE, SCENE_NAMES = {}, {}
local function scene_op(name, f) SCENE[#SCENE + 1], SCENE_NAMES[#SCENE_NAMES + 1] = f, name end

local function play(r)
  local what = r:pick(PLAYABLE)
  local opts = { fade = r:pick(FADES), weight = r:pick(WEIGHTS), speed = r:pick(SPEEDS), priority = r:pick(PRIORITIES) or nil }
  local k = r:byte()
  if k % 6 == 1 then opts.retarget = HALF elseif k % 6 == 2 and S.a.library then opts.retarget = "res://goblin.retarget" end
  if math.floor(k / 6) % 4 == 1 then opts.after = track_of(r) end
  if anim.is_blendspace(what) then opts.at = place(r, what) end
  if S.plays >= MAX_PLAYS then return end
  S.plays = S.plays + 1
  local t = act("play", S.a.play, S.a, what, opts)
  if t then S.tracks[#S.tracks + 1] = t end
end
scene_op("play", play)
scene_op("play2", play)
scene_op("update", function(r) update(S.a, r:pick(DTS), "the scene") end)
scene_op("batch", function(r)
  local dt = r:pick(DTS)
  local ok, err = pcall(anim.update, { S.a }, dt)
  if not ok and (is_memory_error(err) or internal(err)) then bug("the scene: anim.update raised: %s", tostring(err)) end
end)
-- a track's controls
scene_op("control", function(r)
  local t, k = track_of(r), r:byte() % 7
  if not t then return end
  if k == 0 then act("stop", t.stop, t, r:pick(FADES))
  elseif k == 1 then act("adjust_weight", t.adjust_weight, t, r:pick(WEIGHTS), r:pick(FADES))
  elseif k == 2 then act("adjust_speed", t.adjust_speed, t, r:pick(SPEEDS))
  elseif k == 3 then act("seek", function() t.time = r:pick(TIMES) end)
  elseif k == 4 and anim.is_blendspace(t.clip) then act("track.at", function() t.at = place(r, t.clip) end)
  elseif k == 5 and S.plays < MAX_PLAYS then
    S.plays = S.plays + 1
    local n = act("crossfade", t.crossfade, t, r:pick(CLIPS), r:pick(FADES))
    if n then S.tracks[#S.tracks + 1] = n end
  else act("stop(0)", t.stop, t, 0) end
end)
-- overrides
scene_op("override", function(r)
  local k, x, joint = r:byte(), (r:byte() - 128) / 40, r:pick(JOINTS)
  local ovs = S.a:overrides()
  if k % 4 == 0 and #ovs > 0 then act("remove", ovs[k % #ovs + 1].remove, ovs[k % #ovs + 1]); return end
  act("override", S.a.override, S.a, joint, { mode = k % 3 == 0 and "add" or "replace", weight = (k % 5) / 4,
    rotation = k % 2 == 0 and { math.sin(x) * 3, 0, 0, math.cos(x) * 3 } or nil,
    position = math.floor(k / 2) % 2 == 0 and { x, 1, -x } or nil, scale = math.floor(k / 8) % 2 == 0 and { 1 + x * x, 1, 1 } or nil })
end)
-- constraints
scene_op("constraint", function(r)
  local k = r:byte() % 3
  local x, y = (r:byte() - 128) / 50, (r:byte() - 128) / 50
  local c
  if k == 0 then
    c = act("two_bone_ik", S.a.two_bone_ik, S.a, { root = "root", mid = "torso", tip = r:pick { "head", "rightArm" },
      target = { x, 1 + y, 0.5 }, pole = { 0, 1, 1 }, weight = (r:byte() % 5) / 4, soften = 0.5 + (r:byte() % 3) / 4 })
  elseif k == 1 then
    c = act("aim", S.a.aim, S.a, { joint = r:pick { "rightArm", "head" }, target = { x * 4, y * 3, 2 }, forward = { 0, -1, 0 },
      up = { 0, 0, 1 }, weight = (r:byte() % 3) / 2 })
  elseif #S.constraints > 0 then
    c = table.remove(S.constraints, r:byte() % #S.constraints + 1)
    act("remove", c.remove, c)
    return
  end
  S.constraints[#S.constraints + 1] = c
end)
-- root motion on, off, on another joint
scene_op("root", function(r) act("root_motion", function() S.a.root_motion = r:pick(ROOTS) or nil end) end)

-- Mutations ----------------------------------------------------------------------------

local KEYS_ORDER = { boolean = 1, number = 2, string = 3 }
local function key_less(x, y)
  local tx, ty = type(x), type(y)
  if tx ~= ty then return (KEYS_ORDER[tx] or 9) < (KEYS_ORDER[ty] or 9) end
  if tx == "number" or tx == "string" then return x < y end
  return tostring(x) < tostring(y)
end

local function keys_of(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out, key_less)
  return out
end

-- A copy of v, its shared tables and cycles kept as they are.
local function copy(v, seen)
  if type(v) ~= "table" then return v end
  seen = seen or {}
  if seen[v] then return seen[v] end
  local out = {}
  seen[v] = out
  for k, x in pairs(v) do out[copy(k, seen)] = copy(x, seen) end
  return out
end

-- A place in the state: (table, key), walking down from the holder
-- { state } a byte at a time.
local function node(r)
  local t, k = S.holder, 1
  for _ = 1, 8 do
    local v = rawget(t, k)
    if type(v) ~= "table" then break end
    local ks = keys_of(v)
    local b = r:byte()
    if #ks == 0 or b >= 224 then break end
    t, k = v, ks[b % #ks + 1]
  end
  return t, k
end

-- A table of the state (one node() reaches), or nil.
local function table_node(r)
  local t, k = node(r)
  local v = rawget(t, k)
  if type(v) == "table" then return v end
  if t ~= S.holder then return t end
end

-- The saved tracks (when the state still has them).
local function tracks(st)
  st = st or S.holder[1]
  return type(st) == "table" and type(rawget(st, "tracks")) == "table" and st.tracks or nil
end

local function saved_track(r)
  local ts = tracks()
  if not ts or #ts == 0 then return nil end
  local t = ts[r:byte() % #ts + 1]
  return type(t) == "table" and t or nil, ts
end

local LONG = string.rep("\0\1\255\n", 3000)
local VALUES = {
  0, -1, 1, 0.5, -0.5, 2, 3, 7, 64, 65, 10000, 10001, 2 ^ 31, 2 ^ 53, 2 ^ 53 + 2, 2 ^ 62, 2 ^ 63, -2 ^ 63, 2 ^ 64, 1e308, -1e308,
  5e-324, NaN, INF, -INF, math.maxinteger or 2 ^ 63, math.mininteger or -2 ^ 63, -0.0, 1.0,
  "nan", "-nan", "inf", "-inf", "NaN", "0x1p+1024", "0x1.fffffffffffffp+1023", "-0x1p-1074", "0x0p+0", "-0x0p+0", "1e999",
  "9223372036854775807", "9223372036854775808", "4611686018427387904", "4611686018427387903", "18446744073709551616",
  "-1", "-0", "0", "00000000000000000000001", " 1", "1 ", "0x10", "1.5", "1e3", "", string.rep("9", 400),
  "\0", "a\0b", LONG, "res://walk.anim", "res://missing.anim", "walk", "stride", "g1", "half",
  "playing", "queued", "pending", "ended", "two_bone", "aim", "replace", "add", "root", "head", "player", "both",
  "server", "client", "body", "view", "anim.state", "loop",
  true, false, "table", "copy", "null", "nil",
}

-- A hostile value: one of VALUES, an empty or small table, a copy of
-- another part of the state, cjson's null, nil.
local function value(r)
  local v = r:pick(VALUES)
  if v == "table" then
    local k = r:byte() % 5
    if k == 0 then return {} end
    if k == 1 then return { "0x1p+0", "0x0p+0", "0x0p+0" } end
    if k == 2 then return { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 } end
    if k == 3 then return { x = 1 } end
    return { [1] = "a", [3] = "c" }
  elseif v == "copy" then
    local t, k = node(r)
    return copy(rawget(t, k))
  elseif v == "null" then
    return cjson.null
  elseif v == "nil" then
    return nil
  end
  return v
end

-- A number of the state nudged: its double changed a little or a lot,
-- given back as a "%a" string, a decimal one or a number.
local function nudge(x, r)
  local k = r:byte() % 8
  local y
  if k == 0 then y = -x elseif k == 1 then y = x * 2 elseif k == 2 then y = x * 1e300
  elseif k == 3 then y = x / 1e300 elseif k == 4 then y = x + 1 elseif k == 5 then y = x - 1e-12
  elseif k == 6 then y = x * (1 + 2 ^ -52) else y = x + 1e9 end
  local how = r:byte() % 3
  if how == 0 then return hex(y) elseif how == 1 then return string.format("%.17g", y) end
  return y
end

-- The spellings of a res:// path a peer may send.
local function respell(name, r)
  local rest = name:match("^res://(.*)$")
  if not rest then return r:byte() % 2 == 0 and "res://" .. name or name .. "\0" end
  local k = r:byte() % 16
  if k == 0 then return "res://./" .. rest
  elseif k == 1 then return "res://" .. rest:gsub("/", "//")
  elseif k == 2 then return "res://x/../" .. rest
  elseif k == 3 then return "res://" .. rest .. "/"
  elseif k == 4 then return "res:///" .. rest
  elseif k == 5 then return "res://" .. rest:upper()
  elseif k == 6 then return "res://%2e/" .. rest
  elseif k == 7 then return "res://.\\" .. rest
  elseif k == 8 then return "res://" .. string.rep("./", 63 + r:byte() % 4) .. rest
  elseif k == 9 then return "res://" .. rest .. "\0../x"
  elseif k == 10 then return "res://" .. string.rep("a/", 2050) .. rest
  elseif k == 11 then return "res:/" .. rest
  elseif k == 12 then return "RES://" .. rest
  elseif k == 13 then return "res://" .. string.rep(".//", r:byte() % 8) .. rest
  elseif k == 14 then return "res://" .. rest .. "/."
  end
  return rest
end

-- The names a state gives: its tracks' clips and their spaces' points'
-- clips, as (table, key) pairs.
local function name_slots(st)
  local out = {}
  for _, t in ipairs(tracks(st) or {}) do
    if type(t) == "table" then
      if type(t.clip) == "string" then out[#out + 1] = { t, "clip" } end
      if type(t.retarget) == "string" then out[#out + 1] = { t, "retarget" } end
      local sp = t.space
      if type(sp) == "table" and type(sp.points) == "table" then
        for _, p in ipairs(sp.points) do
          if type(p) == "table" and type(p.clip) == "string" then out[#out + 1] = { p, "clip" } end
        end
      end
    end
  end
  return out
end

-- the fields of a saved track
local FIELD_NAMES = { "id", "clip", "space", "at", "retarget", "after", "points" }
for _, f in ipairs(require("anim.core").state_fields().track) do FIELD_NAMES[#FIELD_NAMES + 1] = f.name end

local MUTATIONS = {}
local function mutation(name, f) MUTATIONS[#MUTATIONS + 1] = { name, f } end

mutation("set", function(r)
  local t, k = node(r)
  rawset(t, k, value(r))
end)
mutation("remove", function(r)
  local t, k = node(r)
  if t ~= S.holder then rawset(t, k, nil) end
end)
mutation("add", function(r)
  local t = table_node(r)
  if not t then return end
  local k = r:pick { "time", "clip", "space", "after", "points", "at", "retarget", "id", "tiem", "x", 1, 0, -1, 1.5, 2 ^ 53, "",
    "state", "name", "value", "loops", "weight", "format", LONG }
  rawset(t, k, value(r))
end)
mutation("number", function(r)
  local t, k = node(r)
  local v = rawget(t, k)
  local x = type(v) == "number" and v or type(v) == "string" and tonumber(v)
  if x and t ~= S.holder then rawset(t, k, nudge(x, r)) end
end)
-- a field of a saved track (or of one of its blend space's points):
-- another value, or its number nudged
mutation("field", function(r)
  local t = saved_track(r)
  local p, name, sub, how = r:byte(), r:pick(FIELD_NAMES), r:byte(), r:byte()
  if not t then return end
  if p > 0 and type(t.points) == "table" and #t.points > 0 then t = t.points[(p - 1) % #t.points + 1] end
  if type(t) ~= "table" then return end
  local k, v = name, t[name]
  if sub > 0 and type(v) == "table" and #v > 0 then t, k = v, (sub - 1) % #v + 1; v = t[k] end
  local x = type(v) == "number" and v or type(v) == "string" and tonumber(v)
  if x and how % 2 == 0 then t[k] = nudge(x, r) else t[k] = value(r) end
  trace("  field", name, tostring(k), show(t[k]))
end)
-- arrays: truncated, an element duplicated, two swapped, one removed,
-- grown with copies (up to MAX_GROW entries)
mutation("array", function(r)
  local t = table_node(r)
  if not t then return end
  local n, k = #t, r:byte() % 6
  if k == 0 then
    for i = n, r:byte() % (n + 1) + 1, -1 do t[i] = nil end
  elseif k == 1 and n > 0 then
    t[n + 1] = copy(t[r:byte() % n + 1])
  elseif k == 2 and n > 1 then
    local i, j = r:byte() % n + 1, r:byte() % n + 1
    t[i], t[j] = t[j], t[i]
  elseif k == 3 and n > 0 then
    table.remove(t, r:byte() % n + 1)
  elseif k == 4 and n > 0 then
    -- grown with copies that share their subtables (cheap; a peer's
    -- decoder makes them apart, which restore reads the same)
    local m = r:pick { 10, 100, MAX_GROW }
    local src = t[r:byte() % n + 1]
    for i = n + 1, math.min(n + m, MAX_GROW) do
      local c = src
      if type(src) == "table" then
        c = {}
        for a, b in pairs(src) do c[a] = b end
        if c.id ~= nil then c.id = tostring(i + 1000) end
      end
      t[i] = c
    end
  elseif n > 0 then
    t[n + 1 + r:byte() % 3] = copy(t[1])
  end
end)
-- ids: swapped, one made another's, a huge one
mutation("ids", function(r)
  local a, ts = saved_track(r)
  local b = saved_track(r)
  if not (a and b) then return end
  local k = r:byte() % 4
  if k == 0 then a.id, b.id = b.id, a.id
  elseif k == 1 then a.id = b.id
  elseif k == 2 then a.id = r:pick { "4611686018427387903", "4611686018427387904", "0", "-1", #ts + 1, "1e3" }
  else
    local st = S.holder[1]
    if type(st.animator) == "table" then st.animator.next_id = r:pick { "0", "1", a.id, "4611686018427387904" } end
  end
end)
-- queues: a track after another (itself, a cycle through all)
mutation("after", function(r)
  local a, ts = saved_track(r)
  if not a then return end
  local k = r:byte() % 4
  if k == 0 then
    a.after, a.state = r:byte() % (#ts + 2), "queued"
  elseif k == 1 then
    -- a ring: each track after the next
    for i, t in ipairs(ts) do
      if type(t) == "table" then t.after, t.state = i % #ts + 1, "queued" end
    end
  elseif k == 2 then
    a.after = nil
  else
    a.after = r:pick { 0, -1, 1.5, "1", 2 ^ 53, #ts + 1 }
  end
end)
-- names: respelt, another clip's, a space's point's clip changed
mutation("names", function(r)
  local slots = name_slots(S.holder[1])
  if #slots == 0 then return end
  local s = slots[r:byte() % #slots + 1]
  local k = r:byte() % 3
  if k == 0 then s[1][s[2]] = respell(s[1][s[2]], r)
  elseif k == 1 then s[1][s[2]] = r:pick(CLIPS).name
  else s[1][s[2]] = r:pick { "res://spark.anim", "res://nothing.anim", "half", "res://goblin.retarget", "res://walk.anim", "finalized", "space", "res://" } end
end)
-- the peer's clip of a name is another of ours (another shape)
mutation("peer", function(r)
  local c, k, other = r:pick(CLIPS), r:byte(), r:pick(CLIPS)
  S.swap[c.name] = k % 8 == 0 and FINALIZED or other
end)
-- the resolve function misbehaves
mutation("resolve", function(r) S.resolve_mode = r:byte() % 6 end)
mutation("cjson", function()
  local ok, text = pcall(cjson.encode, S.holder[1])
  if ok then S.holder[1] = cjson.decode(text) end
end)
-- a table of the state made to hold itself, or an ancestor
mutation("cycle", function(r)
  local t, k = node(r)
  if t ~= S.holder and r:byte() % 2 == 0 then rawset(t, k, t) else rawset(t, k, S.holder[1]) end
end)
-- the limit of entries lowered for this input
mutation("limit", function(r) anim.set_limits { state_entries = r:pick { 1, 2, 3, 8, 1000000 } } end)
-- restored into a fresh animator (no library: every name through resolve)
mutation("target", function(r) S.fresh_target = r:byte() % 3 end)

-- Running --------------------------------------------------------------------------------

local function resolver(mode)
  return function(name, kind)
    if mode == 1 then error(LONG) end
    if mode == 2 then return kind == "clip" and HALF or CLIPS[1] end
    if mode == 3 then return SPACES[1] end
    if mode == 4 and name == "g1" then return FINALIZED end
    if kind == "retarget" then return MAPS[name] end
    return S.swap[name] or NAMED[name]
  end
end

local function options(b)
  local side = ({ "both", "server", "client" })[b % 3 + 1]
  local space = b >= 240 and "view" or "body"
  return { side = side, space = space, library = math.floor(b / 3) % 5 ~= 0 and LIB or nil }
end

local function within(what, t0, seconds)
  local dt = os.clock() - t0
  local limit = seconds * (rawget(_G, "FUZZ_SLOWDOWN") or 1)
  if dt > limit then bug("%s took %.3f s of CPU (budget %.3f s): a slow input", what, dt, limit) end
end

-- 1: the state as saved restores and goes on bit for bit.
local function round_trip(s, text, opts, dts, via_json)
  local a = S.a
  local b = anim.animator(rig, opts)
  local log_b = {}
  local add_b = listen(b, log_b)
  local given = via_json and cjson.decode(text) or s
  local ok, res, err = pcall(b.restore, b, given, resolver(0))
  if not ok then
    if is_memory_error(res) then error(res, 0) end
    bug("restore of a state state() wrote raised: %s", tostring(res))
  end
  if not res then bug("a state state() wrote was refused: %s", tostring(err)) end
  same_numbers(numbers(a), numbers(b), "after the restore")
  local d = differ(via_json and cjson.decode(text) or s, b:state(), "state")
  if d then bug("the restored animator writes another state: %s", d) end
  for k in pairs(S.log) do S.log[k] = nil end -- (what came before the save)
  listen_tracks(by_id(a), S.add)
  listen_tracks(res.tracks, add_b)
  for i, dt in ipairs(dts) do
    local ra, ea = update(a, dt, "the saved animator")
    local rb, eb = update(b, dt, "the restored animator")
    if ra ~= rb or ea ~= eb then bug("update %d: the saved animator gave %s, the restored one %s", i, tostring(ea), tostring(eb)) end
    same_numbers(numbers(a), numbers(b), "update " .. i .. " after the restore")
    check_finite(b, "update " .. i .. " after the restore", true)
  end
  d = differ(a:state(), b:state(), "state")
  if d then bug("after the updates, the restored animator's state differs: %s", d) end
  if #S.log ~= #log_b then bug("the saved animator made %d callbacks, the restored one %d", #S.log, #log_b) end
  for i = 1, #log_b do
    if S.log[i] ~= log_b[i] then bug("callback %d: %s, restored: %s", i, S.log[i], log_b[i]) end
  end
  return b
end

-- 2: a hostile state: a result, or nil and a message with the animator as
-- it was.
local function hostile(b, opts, dts)
  local st = S.holder[1]
  local before, before_tracks = b:state(), b:tracks()
  local t0 = os.clock()
  local ok, res, err = pcall(b.restore, b, st, resolver(S.resolve_mode))
  within("animator:restore of a hostile state", t0, M.budget.seconds)
  if not ok then
    if is_memory_error(res) then error(res, 0) end
    bug("animator:restore of a hostile state raised: %s", tostring(res))
  end
  if res == nil then
    if type(err) ~= "string" or not err:find("^state") then bug("restore refused with no message naming the state: %s", tostring(err)) end
    if #err > MAX_MESSAGE then bug("restore's message is %d bytes: %q", #err, err:sub(1, 400)) end
    trace("refused:", err)
    local d = differ(before, b:state(), "state")
    if d then bug("a refused restore (%s) changed the animator: %s", err, d) end
    local now = b:tracks()
    if #now ~= #before_tracks then bug("a refused restore changed the animator's tracks") end
    for i, t in ipairs(now) do
      if t ~= before_tracks[i] then bug("a refused restore changed the animator's track %d", i) end
    end
    return
  end
  trace("restored")
  if type(res) ~= "table" or type(res.tracks) ~= "table" or type(res.overrides) ~= "table" or type(res.constraints) ~= "table" then
    bug("restore returned %s, not { tracks, overrides, constraints }", tostring(res))
  end
  local n = 0
  for id, t in pairs(res.tracks) do
    n = n + 1
    if t.id ~= id then bug("result.tracks[%s] is the track of id %s", tostring(id), tostring(t.id)) end
  end
  if n ~= #b:tracks() then bug("result.tracks holds %d tracks, the animator %d", n, #b:tracks()) end
  check_finite(b, "after the restore of a hostile state", false)
  -- what it wrote restores, and goes on bit for bit
  local s2 = b:state()
  json_safe(s2, "state")
  local d = anim.animator(rig, { side = opts.side, space = opts.space, library = b.library })
  local ok2, res2, err2 = pcall(d.restore, d, s2, resolver(S.resolve_mode))
  if not ok2 then
    if is_memory_error(res2) then error(res2, 0) end
    bug("restore of the state of a restored animator raised: %s", tostring(res2))
  end
  if not res2 then bug("the state of an animator restored from a hostile state was refused: %s", tostring(err2)) end
  same_numbers(numbers(b), numbers(d), "the state of a hostile state's animator, restored")
  for i, dt in ipairs(dts) do
    local rb, eb = update(b, dt, "an animator restored from a hostile state")
    local rd, ed = update(d, dt, "its state restored")
    if rb ~= rd or eb ~= ed then bug("update %d: an animator of a hostile state gave %s, its state restored %s", i, tostring(eb), tostring(ed)) end
    check_finite(b, "update " .. i .. " of an animator restored from a hostile state", true)
    same_numbers(numbers(b), numbers(d), "update " .. i .. " of a hostile state's animator and of its state")
  end
end

local LIMITS = anim.set_limits {}

-- (what fuzz/seeds.lua writes its programs with: the operations and the
-- operands' lists, by name)
M.program = { scene = SCENE_NAMES, mutations = {}, playable = {}, lists = { FADES = FADES, WEIGHTS = WEIGHTS,
  SPEEDS = SPEEDS, DTS = DTS, PRIORITIES = PRIORITIES, PLACES = PLACES, TIMES = TIMES, ROOTS = ROOTS, VALUES = VALUES,
  FIELD_NAMES = FIELD_NAMES, JOINTS = JOINTS, CLIPS = {} } }
for i, c in ipairs(CLIPS) do M.program.lists.CLIPS[i] = c.name end
for i, m in ipairs(MUTATIONS) do M.program.mutations[i] = m[1] end
for i, p in ipairs(PLAYABLE) do M.program.playable[i] = p.name end

function M.run(data)
  local r = setmetatable({ s = data, i = 1 }, Reader)
  S = { r = r, tracks = {}, constraints = {}, plays = 0, log = {}, swap = {}, resolve_mode = 0 }
  local t0 = os.clock()
  local ok, err = pcall(function()
    local opts = options(r:byte())
    local root = r:pick(ROOTS)
    local n = r:byte() % MAX_SCENE + 1
    local dts = {}
    for i = 1, UPDATES do dts[i] = r:pick(DTS) end
    local via_json = r:byte() % 2 == 1
    opts.root_motion = root or nil
    S.a = anim.animator(rig, opts)
    S.add = listen(S.a, S.log)
    if opts.space == "view" then
      S.plays = S.plays + 1
      S.tracks[1] = S.a:play(VIEW, { fade = 0 })
    end
    for _ = 1, n do
      local k = r:byte() % #SCENE + 1
      trace("scene op", k)
      SCENE[k](r)
    end
    opts.root_motion = nil
    local ok_s, s = pcall(S.a.state, S.a)
    if not ok_s then
      if is_memory_error(s) then error(s, 0) end
      bug("animator:state() raised: %s", tostring(s))
    end
    json_safe(s, "state")
    local text = cjson.encode(s)
    local b = round_trip(s, text, opts, dts, via_json)
    -- 2: the rest of the bytes mutate a copy of the state
    S.holder = { r:byte() % 2 == 0 and copy(s) or cjson.decode(text) }
    for _ = 1, MAX_MUTATIONS do
      if r:done() then break end
      local m = MUTATIONS[r:byte() % #MUTATIONS + 1]
      trace("mutation", m[1])
      m[2](r)
    end
    if S.fresh_target == 1 then b = anim.animator(rig, { side = opts.side, space = opts.space })
    elseif S.fresh_target == 2 then b = anim.animator(rig, opts) end
    hostile(b, opts, dts)
  end)
  anim.set_limits(LIMITS)
  S = nil
  if not ok then error(err, 0) end
  within("the input", t0, RUN_SECONDS)
end

return M
