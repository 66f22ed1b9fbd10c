-- fuzz/script.lua: the driver of the fuzz_script target (and of the replay
-- of its inputs in spec/fuzz_regressions_spec.lua): a hostile script
-- (issue 19).  run(bytes) reads the bytes as a program that calls the
-- public API -- and the C functions of anim.core, which any script can
-- require -- with random arguments: odd numbers and strings, tables whose
-- metamethods finalize objects by hand or answer nonsense, objects whose
-- __gc is called by hand (debug.getmetatable), boxes given another kind's
-- metatable, finalizers made to run in the middle of a call (a collector in
-- generational mode runs them at its next minor collection), anim.update
-- lists with holes and stray keys.  One byte picks an operation, the next
-- ones its operands; reading past the end gives zeros.
--
-- What it checks is what no script can do to the module
-- (docs/robustness.md): the fuzzer's sanitizers see any access to freed
-- memory or out of bounds, a leak, a crash; the driver raises an error
-- starting "BUG" when a call raises a Lua runtime error from inside the
-- module's own files (it let a hostile value reach code that did not
-- expect it), when a loader raises instead of returning nil, message, or
-- when an input takes longer than its budget.  Work is bounded: at most
-- MAX_OPS operations per input, objects and tables kept small.
local anim = require "anim"
local core = require "anim.core"
local C = require "fuzz.common"
local compat = require "anim.base.compat"

local M = {}

-- CPU seconds per input on the plain build (times FUZZ_SLOWDOWN under the
-- fuzzer), and MiB of memory (the harness holds it)
M.budget = { seconds = 2, mb = 512 }

local MAX_OPS, POOL = 200, 24
-- FUZZ_TRACE=1 in the environment: each operation is written to stderr
-- (fuzz/replay.lua script FILE, to read what an input does)
local TRACE = os.getenv("FUZZ_TRACE")
local HOSTILE = "fuzz-hostile"
local bug, is_memory_error = C.bug, C.is_memory_error
local getmt, setmt = debug.getmetatable, debug.setmetatable

-- A Lua runtime error raised from one of the module's Lua files: a hostile
-- value reached code that did not check it (fuzz/common.lua).
local internal = C.internal

-- Calls f(...): any error but an internal one is the script's to have.
local function call(what, f, ...)
  local res = compat.pack(pcall(f, ...))
  if not res[1] then
    local e = res[2]
    if is_memory_error(e) then error(e, 0) end
    if type(e) == "string" and e:sub(1, 4) == "BUG:" then error(e, 0) end
    if internal(e) then bug("%s raised an error from inside the module: %s", what, e) end
    return false
  end
  return true, compat.unpack(res, 2, res.n)
end

-- Operands --------------------------------------------------------------------------

local Reader = C.Reader

local S -- the run under way

local NUMBERS = { 0, 1, -1, 0.5, 1 / 60, 2 ^ 26, 2 ^ 53, 1e300, -1e300, 1e-300, 5e-324, 0 / 0, math.huge, -math.huge,
  3, 7, 4096, 65536,
  -- (the integer range's ends; before 5.3, without integers, the doubles there)
  math.maxinteger or 2 ^ 63, math.mininteger or -2 ^ 63, -0.0 }
local STRINGS = { "", "player", "root", "head", "a\0b", "res://walk.anim", "res://../x", "res://missing.anim",
  "offsets", "world", "local", "loop", "x\0y", string.rep("z", 300), "server", "client", "both", "view" }

-- Something of the pool (objects the run made), or nil.
local function obj(r)
  local n = #S.pool
  if n == 0 then return nil end
  return S.pool[r:byte() % n + 1]
end

local function keep(v)
  if v == nil then return end
  if #S.pool < POOL then S.pool[#S.pool + 1] = v else S.pool[S.r:byte() % POOL + 1] = v end
end

-- Calls the __gc of v by hand, as a script that reaches the metatable can.
local function finalize(v)
  local mt = getmt(v)
  local gc = type(mt) == "table" and rawget(mt, "__gc")
  if gc then call("a __gc called by hand", gc, v) end
end

-- A table whose metamethods misbehave: finalize an object of the pool,
-- answer huge lengths, raise, or iterate a little too long.
local function hostile_table(r, base)
  local t = base or {}
  local act, victim = r:byte() % 6, obj(r)
  local mt = {}
  local function mischief()
    if act == 0 and victim then finalize(victim)
    elseif act == 1 then error(HOSTILE)
    elseif act == 2 then collectgarbage("step") end
  end
  mt.__index = function() mischief(); return victim end
  mt.__newindex = function() mischief() end
  mt.__len = function() mischief(); return act == 3 and 2 ^ 26 or 5 end
  mt.__pairs = function()
    local n = 0
    return function()
      n = n + 1
      mischief()
      if n > 50 then return nil end
      return n, victim
    end, t, nil
  end
  return setmetatable(t, mt)
end

-- Any value: a number, a string, an object of the pool, a plain or a
-- hostile table, a function, nil.
local function value(r)
  local k = r:byte() % 8
  if k == 0 then return r:pick(NUMBERS)
  elseif k == 1 then return r:pick(STRINGS)
  elseif k == 2 or k == 3 then return obj(r)
  elseif k == 4 then return {}
  elseif k == 5 then return hostile_table(r)
  elseif k == 6 then return function() end end
  return nil
end

-- A small clip table: joints, markers, maybe a shared subtable, a cycle or
-- metamethods (anim.clip reads it raw and refuses what is not a tree).
local function clip_table(r)
  local n = r:byte() % 4
  local t = { length = r:pick { 1, 0.5, 1e-9, 0, 2 }, loop = r:pick { "loop", "once", "pingpong", "hold" },
    joints = {}, markers = {} }
  local v = { 0, r:byte() % 90, 0 }
  for i = 1, n do
    t.joints[r:pick { "head", "torso", "rightArm", "j" .. i, "a\0b" }] = {
      rotation = { { 0, { 0, 0, 0 } }, { t.length, r:byte() % 5 == 0 and v or { 0, 90, 0 } } } }
  end
  for i = 1, r:byte() % 6 do t.markers[i] = { time = (i / 6) * t.length, name = "m" .. i % 3 } end
  local k = r:byte() % 8
  if k == 0 then t.extra = { a = v, b = v }
  elseif k == 1 then t.extra = t
  elseif k == 2 then t = hostile_table(r, t) end
  return t
end

-- Operations ------------------------------------------------------------------------

local OPS = {}
local function op(f) OPS[#OPS + 1] = f end

-- clips
op(function(r)
  local ok, c = call("anim.clip", anim.clip, clip_table(r), r:pick { "c", nil, "a\0b" }, r:pick { nil, { strict = false } })
  if ok then keep(c) end
end)
op(function(r)
  local text = r:pick { '{"length": 1, "joints": {"head": {"position": [[0, [0, 1, 0]], [1, [0, 0, 0]]]}}}',
    '{"loop": "loop", "length": 0.5, "markers": [{"time": 0.25, "name": "m"}], "joints": {}}', "[", "" }
  local ok, c, err = call("anim.decode", anim.decode, text, r:pick { "d", nil })
  if not ok then bug("anim.decode raised") end
  if c == nil and type(err) ~= "string" then bug("anim.decode returned nil without a message") end
  keep(c)
end)
-- rigs and animators
op(function(r)
  local def = r:byte() % 3 == 0 and "player" or { joints = { { name = r:pick(STRINGS) }, { name = "b", parent = r:pick(STRINGS) } } }
  if r:byte() % 4 == 0 then def = hostile_table(r, type(def) == "table" and def or nil) end
  local ok, rig = call("anim.rig", anim.rig, def)
  if ok then keep(rig) end
end)
op(function(r)
  local opts = r:byte() % 3 == 0 and hostile_table(r) or { side = r:pick { "both", "server", "client", nil },
    space = r:pick { "body", "view", nil }, library = r:byte() % 2 == 0 and S.lib or nil }
  local ok, a = call("anim.animator", anim.animator, r:byte() % 2 == 0 and S.player or obj(r), opts)
  if ok then keep(a) end
end)
-- play, with odd options
op(function(r)
  local a, c = obj(r), obj(r)
  local opts = r:byte() % 4 == 0 and hostile_table(r) or { fade = r:pick(NUMBERS), weight = r:pick(NUMBERS),
    speed = r:pick(NUMBERS), priority = r:pick { nil, "action", 3, 0 / 0 } }
  if anim.is_clip(c) == false and r:byte() % 2 == 0 then c = S.walk end
  local ok, t = call("animator:play", function() return a:play(c, opts) end)
  if ok then keep(t) end
end)
-- callbacks that misbehave
op(function(r)
  local a, victim, act = obj(r), obj(r), r:byte() % 5
  local kind = r:pick { "on_marker", "on_event", "on_sound", "on_play" }
  local fn = function()
    if act == 0 and victim then finalize(victim)
    elseif act == 1 then error(HOSTILE)
    elseif act == 2 then collectgarbage()
    elseif act == 3 and victim then pcall(anim.update, { victim }, 0.1) end
  end
  local ok, conn = call("on_*", function() return a[kind](a, fn) end)
  if ok then keep(conn) end
end)
-- updates, one by one and in batches of odd lists
op(function(r)
  local a = obj(r)
  call("animator:update", function() return a:update(r:pick(NUMBERS)) end)
end)
op(function(r)
  local list, n = {}, r:byte() % 5
  for i = 1, n do list[i] = obj(r) end
  local k = r:byte() % 6
  if k == 0 then list[n + 2] = obj(r)
  elseif k == 1 then list.x = true
  elseif k == 2 then list[1e9] = obj(r)
  elseif k == 3 then list = hostile_table(r, list) end
  call("anim.update", anim.update, list, r:pick { 0, 1 / 60, 0.5, 1e9, -1 })
end)
-- reading the pose, with hostile tables
op(function(r)
  local a = obj(r)
  local t = r:byte() % 2 == 0 and hostile_table(r) or { head = hostile_table(r) }
  call("pose_into", function() return a:pose_into(t, r:pick { "offsets", "local", "world", nil }) end)
  call("get", function() return a:get(r:pick { "head", 1, 7, "a\0b", 0, 1e300 }) end)
  call("world_transform", function() return a:world_transform(r:pick { "root", 2, "torso" }) end)
end)
-- tracks and clips
op(function(r)
  local t = obj(r)
  local k = r:byte() % 6
  if k == 0 then call("track:stop", function() return t:stop(r:pick(NUMBERS)) end)
  elseif k == 1 then call("track:adjust_weight", function() return t:adjust_weight(r:pick(NUMBERS), r:pick(NUMBERS)) end)
  elseif k == 2 then call("track:adjust_speed", function() return t:adjust_speed(r:pick(NUMBERS)) end)
  elseif k == 3 then call("track.time =", function() t.time = r:pick(NUMBERS) end)
  elseif k == 4 then call("track fields", function() return t.time, t.loops, t.is_playing, t.clip, t.length, tostring(t) end)
  else call("track:on_marker", function() return t:on_marker(r:pick(STRINGS), function() finalize(obj(S.r)) end) end) end
end)
op(function(r)
  local c = obj(r)
  local k = r:byte() % 5
  if k == 0 then call("clip:sample", function() return c:sample(r:pick(NUMBERS)) end)
  elseif k == 1 then call("clip:bindings", function() return c:bindings(S.player) end)
  elseif k == 2 then
    local ok, text, err = call("anim.encode", anim.encode, c)
    if ok and text == nil and type(err) ~= "string" then bug("anim.encode returned nil without a message") end
  elseif k == 3 then call("clip fields", function() return c.name, c.length, c.loop, c.mask, c:joints(), c:markers() end)
  else call("autoplay", function() return obj(r):autoplay(r:byte() % 2 == 0 and { c } or hostile_table(r)) end) end
end)
-- finalizers called by hand, and finalizers made to run in the middle of
-- the next operations
op(function(r) finalize(obj(r)) end)
op(function(r)
  local victim = obj(r)
  -- (5.1 and LuaJIT run __gc for userdata only: a newproxy's; the
  -- generational mode, whose minor collections run finalizers soon, is
  -- 5.4's: before, the incremental collector runs it when it comes to it)
  if newproxy then -- luacheck: ignore 113
    getmetatable(newproxy(true)).__gc = function() finalize(victim) end -- luacheck: ignore 113
  else
    setmetatable({}, { __gc = function() finalize(victim) end })
  end
  if compat.version >= 504 then
    S.generational = true
    collectgarbage("generational", 1, 100)
  end
  if r:byte() % 2 == 0 then collectgarbage("step") end
end)
-- a box given another kind's metatable (then its own back: its finalizer
-- goes with its metatable)
op(function(r)
  local v = obj(r)
  if type(v) ~= "userdata" then return end
  local own = getmt(v)
  local mts = { core.clip_metatable, core.rig_metatable, core.animator_metatable, core.track_metatable }
  local forged = mts[r:byte() % #mts + 1]
  setmt(v, forged)
  call("a forged box", core.clip_sample, v, 0)
  call("a forged box", core.animator_pose_into, v, {})
  call("a forged box", core.track_state, v)
  call("a forged box", core.rig_joints, v)
  call("a forged box", function() return v:update(0.1) end)
  -- (unless a finalizer finalized it meanwhile: it keeps the metatable of
  -- a finalized box, and giving it back a live one would resurrect it)
  if getmt(v) == forged then setmt(v, own) end
end)
-- the C functions of anim.core, called directly with odd arguments
local CORE = { "clip_sample", "clip_keys", "clip_info", "rig_joints", "rig_info", "animator_update", "animator_event",
  "animator_get", "animator_local", "animator_world", "animator_pose_into", "animator_state", "track_state",
  "track_time", "track_stop", "track_seek", "track_uservalue", "animators_update", "check_tree", "realpath",
  "file_kind", "retarget_info", "batch_room", "json_members" }
op(function(r)
  local name = r:pick(CORE)
  local a1, a2, a3 = value(r), value(r), value(r)
  if TRACE then io.stderr:write("core.", name, " ", tostring(a1), " ", tostring(a2), " ", tostring(a3), "\n") end
  call("core." .. name, core[name], a1, a2, a3)
end)
-- libraries: odd paths, failures kept, forgotten
op(function(r)
  local path = r:pick(STRINGS)
  local k = r:byte() % 3
  if k == 0 then call("library:clip", S.lib.clip, S.lib, path)
  elseif k == 1 then call("library:retarget", S.lib.retarget, S.lib, path)
  else call("library:forget", S.lib.forget, S.lib, r:byte() % 2 == 0 and path or nil) end
end)
-- limits (restored at the end of the run)
op(function(r)
  call("anim.set_limits", anim.set_limits, r:byte() % 2 == 0 and { keys = r:pick(NUMBERS) } or hostile_table(r))
end)
-- drop references and collect
op(function(r)
  if r:byte() % 2 == 0 then table.remove(S.pool, 1) end
  collectgarbage(r:byte() % 2 == 0 and "collect" or "step")
end)

local here = rawget(_G, "ANIM_ROOT") or (debug.getinfo(1, "S").source:match("^@(.*)/fuzz/script%.lua$") or ".")
local LIB = assert(anim.library(here .. "/examples/clips"))
local LIMITS = anim.set_limits {}

function M.run(data)
  -- (the library, its clip and the player rig are built again when an
  -- earlier run finalized them)
  S = { r = setmetatable({ s = data, i = 1 }, Reader), pool = {}, lib = LIB, player = anim.rig("player") }
  S.walk = assert(LIB:clip("res://walk.anim"))
  -- objects every run starts with (made afresh: the run may finalize them)
  S.pool[1] = anim.animator(S.player, { library = LIB })
  S.pool[2] = assert(anim.clip { loop = "loop", length = 1, markers = { { time = 0.5, name = "m" } },
    joints = { head = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, 90, 0 } } } } } })
  S.pool[3] = S.pool[1]:play(S.pool[2], { fade = 0 })
  local t0, r, n = os.clock(), S.r, 0
  local ok, err = pcall(function()
    while not r:done() and n < MAX_OPS do
      n = n + 1
      local k = r:byte() % #OPS + 1
      if TRACE then io.stderr:write("op ", k, "\n") end
      OPS[k](r)
    end
  end)
  if S.generational then collectgarbage("incremental") end
  anim.set_limits(LIMITS)
  S = nil
  if not ok then
    if is_memory_error(err) or (type(err) == "string" and err:sub(1, 4) == "BUG:") then error(err, 0) end
    if internal(err) then bug("the program raised an error from inside the module: %s", tostring(err)) end
  end
  local limit = M.budget.seconds * (rawget(_G, "FUZZ_SLOWDOWN") or 1)
  if os.clock() - t0 > limit then bug("the program took %.3f s of CPU (budget %.3f s)", os.clock() - t0, limit) end
end

return M
