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

-- The contents of a reload (issue 35): clips of other shapes than those
-- tracks play -- fewer joints or more, the root moving or not (root
-- motion), other lengths, loop modes, speeds, blends, a view clip,
-- markers, properties of one number of components or another.
local JOINTS = { "root", "torso", "head", "rightArm", "leftArm", "rightLeg", "leftLeg", "j1", "j2", "j150" }
local function reload_table(r)
  local len = r:pick { 1, 0.5, 2, 1e-9, 0, 0.25 }
  local t = { length = len, loop = r:pick { "loop", "once", "pingpong", "hold", "loop" },
    speed = r:pick { false, -2, 0, 1, 3 } or nil, blend = r:pick { false, false, "additive" } or nil,
    space = r:pick { false, false, false, "view" } or nil,
    joints = {}, markers = {}, properties = {} }
  local mask = r:byte()
  for i, j in ipairs(JOINTS) do
    if math.floor(mask / 2 ^ ((i - 1) % 8)) % 2 == 1 then
      t.joints[j] = { rotation = { { 0, { 0, 0, 0 } }, { len, { 10 * i, 5, 0 } } } }
    end
  end
  if mask % 2 == 1 then t.joints.root = { position = { { 0, { 0, 0, 0 } }, { len, { 0.5, 0, 2 } } } } end
  for i = 1, r:byte() % 4 do t.markers[i] = { time = len * i / 4, name = "m" .. i } end
  local p = r:byte() % 4
  if p == 1 then t.properties.glow = { { 0, 0 }, { len, 1 } }
  elseif p == 2 then t.properties.glow = { { 0, { 0, 0, 0 } }, { len, { 1, 2, 3 } } }
  elseif p == 3 then t.properties.tint = { { 0, { 1, 0, 0 } }, { len, { 0, 1, 0 } } } end
  return t
end
local RELOAD_ERROR = "cannot be reloaded while an update delivers"

-- The pose of an animator just updated: finite, as its root motion.
local function finite(v) return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge end
local function check_pose(a, what)
  local ok, pose = call("pose_array", function() return a:pose_array({}, "world") end)
  if ok and type(pose) == "table" then
    for i, v in ipairs(pose) do
      if not finite(v) then bug("%s: the world pose has %s at %d", what, tostring(v), i) end
    end
  end
  local res = compat.pack(call("root_motion", function() return a:root_motion() end))
  for i = 2, res[1] and res.n or 0 do
    if not finite(res[i]) then bug("%s: root motion %d is %s", what, i - 1, tostring(res[i])) end
  end
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
  local a, victim, act = obj(r), obj(r), r:byte() % 6
  local kind = r:pick { "on_marker", "on_event", "on_sound", "on_play" }
  local shape = act == 5 and reload_table(r)
  local fn = function()
    if act == 0 and victim then finalize(victim)
    elseif act == 1 then error(HOSTILE)
    elseif act == 2 then collectgarbage()
    elseif act == 3 and victim then pcall(anim.update, { victim }, 0.1)
    elseif act == 4 and victim then
      -- (another animator's restore; its own raises, as its update does)
      call("restore from a callback", function() return victim:restore(victim:state()) end)
    elseif act == 5 and anim.is_clip(victim) then
      -- a reload from a callback: refused, clearly (docs/api.md)
      local ok, res = pcall(anim.reload, victim, shape)
      if ok and res ~= nil then bug("anim.reload from a callback reloaded the clip") end
      if not ok then
        if is_memory_error(res) then error(res, 0) end
        if not (type(res) == "string" and (res:find(RELOAD_ERROR, 1, true) or res:find("after it was finalized", 1, true))) then
          bug("anim.reload from a callback raised an unclear error: %s", tostring(res))
        end
      end
    end
  end
  local ok, conn = call("on_*", function() return a[kind](a, fn) end)
  if ok then keep(conn) end
end)
-- updates, one by one and in batches of odd lists
op(function(r)
  local a = obj(r)
  if call("animator:update", function() return a:update(r:pick(NUMBERS)) end) then check_pose(a, "animator:update") end
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
  if C.arm_finalizer(function() finalize(victim) end) then S.generational = true end
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

-- hot reload (issue 35): a clip of the pool given another shape, JSON
-- text, a path, a hostile table or value
local HERE -- (the checkout: set below)
op(function(r)
  local c, k = obj(r), r:byte() % 6
  local src
  if k <= 1 then src = reload_table(r)
  elseif k == 2 then
    src = r:pick { '{"length": 0.5, "loop": "loop", "joints": {"root": {"position": [[0, [0, 0, 0]], [0.5, [0, 0, 1]]]}}}',
      '{"length": 1, "joints": {"head": {"rotation": [["x", [0, 0, 0]]]}}}', "  {", '{"length": 2, "space": "view", "joints": {}}' }
  elseif k == 3 then
    src = r:pick { "/examples/clips/wave.anim", "/examples/clips", "/examples/clips/none.anim", "/examples/clips/goblin.retarget" }
    src = HERE .. src
  elseif k == 4 then src = clip_table(r)
  else src = value(r) end
  local opts = r:pick { false, { strict = false }, { strict = true }, "x" }
  local ok, res, err = call("anim.reload", anim.reload, c, src, opts or nil)
  if ok and res == nil and type(err) ~= "string" then bug("anim.reload returned nil without a message") end
  if ok and res ~= nil and res ~= c then bug("anim.reload returned another object") end
end)
-- blend spaces of the pool's clips: 1D or 2D, synced or not, odd places
local PLACES = { 0, 1, 0.5, 2, -1, 1e300, 0 / 0, "x" }
local MARKERS = { false, "dominant", "all", "none", "dominnt", 3 }
local function place(r, dims)
  if dims == 2 then return { r:pick(PLACES), r:pick(PLACES) } end
  return r:pick(PLACES)
end
op(function(r)
  local n, dims = r:byte() % 4 + 1, r:byte() % 3 == 0 and 2 or 1
  local pts = {}
  for i = 1, n do
    local c = obj(r)
    if not anim.is_clip(c) and r:byte() % 2 == 0 then c = S.walk end
    pts[i] = { clip = c, at = dims == 2 and { i % 2, math.floor(i / 2) } or i }
    if r:byte() % 8 == 0 then pts[i].at = place(r, dims) end
  end
  local sync = r:pick { "none", true, false, "x" }
  local def = { points = r:byte() % 8 == 0 and hostile_table(r, pts) or pts, name = r:pick { false, "move", "a\0b" } or nil }
  if sync ~= "none" then def.sync = sync end
  -- (the markers mode from the draws above: the inputs kept read as they did)
  def.markers = MARKERS[(n * 3 + dims + (sync == true and 1 or 0)) % #MARKERS + 1] or nil
  local ok, space = call("anim.blendspace", anim.blendspace, r:byte() % 8 == 0 and hostile_table(r, def) or def)
  if ok then keep(space) end
end)
-- play a blend space (or what the pool gives), at a parameter, maybe
-- queued after a track; move a track's parameter
op(function(r)
  local a, s, dims = obj(r), obj(r), r:byte() % 2 + 1
  if not anim.is_blendspace(s) then s = S.space end
  local opts = { at = place(r, dims), fade = r:pick(NUMBERS), weight = r:pick { 1, 0.5, 0 }, after = r:byte() % 4 == 0 and obj(r) or nil }
  local ok, t = call("animator:play(space)", function() return a:play(s, opts) end)
  if ok then keep(t) end
end)
op(function(r)
  local t, v, w = obj(r), value(r), r:pick(PLACES)
  if r:byte() % 2 == 0 then call("track.at =", function() t.at = v end)
  else call("track:set_at", function() return t:set_at(v, w) end) end
  call("track.at", function() return t.at, t.length, t.time end)
end)
-- root motion on, off, on a joint that is not one
op(function(r)
  local a, j = obj(r), r:pick { "root", "torso", 1, 7, 99, 0, "nope", "j1", 0 / 0, false }
  call("animator.root_motion =", function() a.root_motion = j or nil end)
  call("animator:root_motion", function() return a.root_motion_joint, a:root_motion() end)
end)
-- one animator's state restored into another (both of the pool), maybe
-- damaged; resolve gives the pool's objects, finalizes, reloads, raises
op(function(r)
  local src, dst, victim, shape = obj(r), obj(r), obj(r), reload_table(r)
  local act, damage, v = r:byte() % 6, r:byte() % 4, value(r)
  local ok, st = call("animator:state", function() return src:state() end)
  if not ok or type(st) ~= "table" then return end
  if damage == 1 and type(st.tracks) == "table" and type(st.tracks[1]) == "table" then st.tracks[1].time = v
  elseif damage == 2 then st.animator = v end
  local resolve = function()
    if act == 0 then finalize(victim)
    elseif act == 1 and anim.is_clip(victim) then pcall(anim.reload, victim, shape)
    elseif act == 2 then error(HOSTILE)
    elseif act == 3 then collectgarbage() end
    return victim
  end
  local okr, res, err = call("animator:restore", function() return dst:restore(st, resolve) end)
  if okr and res == nil and type(err) ~= "string" then bug("animator:restore returned nil without a message") end
end)
-- finalizers made to run in the middle of the next operations that
-- reload a clip of the pool (as a __gc of the host's may), or build one
-- (anim.clip inside anim.clip)
op(function(r)
  local victim, shape, build, k = obj(r), reload_table(r), clip_table(r), r:byte() % 2
  -- (both are clip builds, which hang LuaJIT in a finalizer: C.LUAJIT_RELOADS)
  if compat.jit and not C.LUAJIT_RELOADS then return end
  local fin = function()
    if k == 0 and anim.is_clip(victim) then pcall(anim.reload, victim, shape)
    else pcall(anim.clip, build, "built by a finalizer") end
  end
  if C.arm_finalizer(fin) then S.generational = true end
end)
-- a rig of many joints and a clip of as many, played with root motion
-- (its plays and restores allocate enough that a collection, and a
-- finalizer, comes in the middle of them)
local BIG_RIG, BIG_CLIP = { joints = { { name = "j1" } } }, { length = 1, loop = "loop", joints = {} }
for i = 2, 150 do BIG_RIG.joints[i] = { name = "j" .. i, parent = "j" .. (i - 1), position = { 0, 1, 0 } } end
for i = 1, 150 do BIG_CLIP.joints["j" .. i] = { rotation = { { 0, { 0, 0, 0 } }, { 1, { i, 0, 0 } } } } end
BIG_CLIP.joints.j1.position = { { 0, { 0, 0, 0 } }, { 1, { 0, 0, 2 } } }
op(function(r)
  local ok, rig = call("anim.rig", anim.rig, BIG_RIG)
  if not ok then return end
  local ok2, a = call("anim.animator", anim.animator, rig, { root_motion = r:pick { "j1", "j2", false } or nil })
  local ok3, c = call("anim.clip", anim.clip, BIG_CLIP, "wide")
  if ok2 then keep(a) end
  if ok3 then keep(c) end
  if ok2 and ok3 then
    local ok4, t = call("animator:play", function() return a:play(c, { fade = 0 }) end)
    if ok4 then keep(t) end
  end
end)

local here = rawget(_G, "ANIM_ROOT") or (debug.getinfo(1, "S").source:match("^@(.*)/fuzz/script%.lua$") or ".")
HERE = here
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
  -- (a blend space of them, for the plays of spaces)
  S.space = anim.blendspace { points = { { clip = S.walk, at = 0 }, { clip = S.pool[2], at = 1 } } }
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
  -- (the finalizers the run armed run now, not in the next run)
  collectgarbage("collect")
  anim.set_limits(LIMITS)
  -- (a reload may have changed the library's clips: the next run reads them again)
  LIB:forget()
  S = nil
  if not ok then
    if is_memory_error(err) or (type(err) == "string" and err:sub(1, 4) == "BUG:") then error(err, 0) end
    if internal(err) then bug("the program raised an error from inside the module: %s", tostring(err)) end
  end
  local limit = M.budget.seconds * (rawget(_G, "FUZZ_SLOWDOWN") or 1)
  if os.clock() - t0 > limit then bug("the program took %.3f s of CPU (budget %.3f s)", os.clock() - t0, limit) end
end

return M
