-- animator.lua: the Lua face of animators and tracks.  The C core advances
-- tracks, blends the pose and queues what happened; update() delivers that
-- queue to the Lua callbacks in order (SEMANTICS 7).  Nothing here runs per
-- joint; the per-frame path allocates nothing while callbacks fire.
local core = require "anim.core"
local format = require "anim.format"
local bind = require "anim.bind"
local clipmod = require "anim.clip"
local rigmod = require "anim.rig"
local library = require "anim.library"
local retarget = require "anim.retarget"

local M = {}

local SIDES = { both = 0, server = 1, client = 2 }
local clip_info, track_uv, animator_state = core.clip_info, core.track_uservalue, core.animator_state
local core_update, core_event = core.animator_update, core.animator_event
local core_delivering = core.animator_delivering
local traceback = debug.traceback

local function argerror(n, fname, msg)
  error(string.format("bad argument #%d to '%s' (%s)", n, fname, msg), 3)
end

local function finite(v)
  return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge
end

-- An optional number option: nil is absent; else finite and >= lo.
local function opt_number(opts, k, dflt, lo, fname)
  local v = opts[k]
  if v == nil then return dflt end
  if not finite(v) then argerror(2, fname, k .. " must be a finite number, got " .. tostring(v)) end
  if lo and v < lo then argerror(2, fname, k .. " must be >= " .. lo .. ", got " .. tostring(v)) end
  return v
end

-- Connections: callback lists are replaced, never changed in place, so a
-- delivery loop over the old list is not disturbed by (dis)connections.
local Connection = {}
Connection.__index = Connection
Connection.__name = "anim.connection"

function Connection:disconnect()
  if not self.connected then return end
  self.connected = false
  local old, new = self.owner[self.field], {}
  for _, c in ipairs(old) do
    if c ~= self then new[#new + 1] = c end
  end
  self.owner[self.field] = new
end

local function connect(owner, field, fn, fname)
  if type(fn) ~= "function" then
    error(string.format("bad argument to '%s' (function expected, got %s)", fname, type(fn)), 3)
  end
  local c = setmetatable({ fn = fn, owner = owner, field = field, connected = true }, Connection)
  local old, new = owner[field] or {}, {}
  for i, x in ipairs(old) do new[i] = x end
  new[#new + 1] = c
  owner[field] = new
  return c
end

-- Calls every function of list with the arguments; returns the first error.
local function call(list, err, ...)
  if list == nil then return err end
  for i = 1, #list do
    local ok, e = xpcall(list[i].fn, traceback, ...)
    if not ok and err == nil then err = e end
  end
  return err
end

-- Animators --------------------------------------------------------------------

local methods = {}

function M.new(rig, opts)
  if not rigmod.is_rig(rig) then argerror(1, "animator", "rig expected, got " .. type(rig)) end
  if opts ~= nil and type(opts) ~= "table" then argerror(2, "animator", "table expected, got " .. type(opts)) end
  opts = opts or {}
  local side = opts.side or "both"
  if SIDES[side] == nil then
    argerror(2, "animator", "side must be \"server\", \"client\" or \"both\", got " .. tostring(side))
  end
  local space = opts.space or "body"
  if space ~= "body" and space ~= "view" then
    argerror(2, "animator", "space must be \"body\" or \"view\", got " .. tostring(space))
  end
  local lib = opts.library
  if lib ~= nil and not library.is_library(lib) then
    argerror(2, "animator", "library must be a library from anim.library, got " .. type(lib))
  end
  local state = { live = {}, ended = {}, side = side, space = space, library = lib, rig = rig }
  return core.animator_new(rig, SIDES[side], state)
end

local function play(self, clip, opts, fname)
  if not clipmod.is_clip(clip) then argerror(1, fname, "clip expected, got " .. type(clip)) end
  if opts ~= nil and type(opts) ~= "table" then argerror(2, fname, "table expected, got " .. type(opts)) end
  opts = opts or {}
  local st = animator_state(self)
  local info = clip_info(clip)
  if info.space == "view" and st.space ~= "view" then
    error(string.format("bad argument #1 to '%s' (clip '%s' is a view clip: a body animator cannot play it)",
      fname, tostring(info.name)), 3)
  end
  local fade = opt_number(opts, "fade", 0.1, 0, fname)
  local weight = opt_number(opts, "weight", 1, 0, fname)
  local speed = opt_number(opts, "speed", 1, nil, fname)
  local priority = opts.priority
  if priority ~= nil then
    local ok, p = pcall(format.priority, priority, "priority")
    if not ok then argerror(2, fname, "priority must be a level name or a finite number, got " .. tostring(priority)) end
    priority = p
  end
  local map = opts.retarget
  if map ~= nil then
    if type(map) == "string" then
      if not st.library then
        argerror(2, fname, "retarget '" .. map .. "' needs an animator with a library")
      end
      local m, err = st.library:retarget(map)
      if not m then argerror(2, fname, "retarget: " .. err) end
      map = m
    elseif not retarget.is_map(map) then
      argerror(2, fname, "retarget must be a retarget map or a res:// path, got " .. type(map))
    end
  end
  local bindings = bind.get(clip, st.rig, map)
  local track = core.animator_play(self, clip, fade, weight, speed, priority, bindings, {})
  local _, _, _, _, _, _, id = core.track_state(track)
  st.live[id] = track
  return track
end

function methods.play(self, clip, opts) return play(self, clip, opts, "play") end

function methods.autoplay(self, clips)
  if type(clips) ~= "table" then argerror(1, "autoplay", "table of clips expected, got " .. type(clips)) end
  local out = {}
  for _, c in ipairs(clips) do
    if not clipmod.is_clip(c) then argerror(1, "autoplay", "table of clips expected") end
    if clip_info(c).autoplay then out[#out + 1] = play(self, c, nil, "autoplay") end
  end
  return out
end

function methods.on_marker(self, fn) return connect(animator_state(self), "on_marker", fn, "on_marker") end
function methods.on_event(self, fn) return connect(animator_state(self), "on_event", fn, "on_event") end
function methods.on_sound(self, fn) return connect(animator_state(self), "on_sound", fn, "on_sound") end
function methods.on_play(self, fn) return connect(animator_state(self), "on_play", fn, "on_play") end

-- The tracks playing now, in start order.
function methods.tracks(self)
  local out = {}
  for _, t in pairs(animator_state(self).live) do out[#out + 1] = t end
  table.sort(out, function(a, b)
    local _, _, _, _, _, _, ia = core.track_state(a)
    local _, _, _, _, _, _, ib = core.track_state(b)
    return ia < ib
  end)
  return out
end

-- A `plays` item: start the library clip, or restart its live track.
local function run_play(self, st, item, late, err)
  local lib = st.library
  if not lib then
    return err or string.format("plays '%s': the animator has no library to resolve it", item.clip), nil
  end
  local c, lerr = lib:clip(item.clip)
  if not c then return err or ("plays '" .. item.clip .. "': " .. lerr), nil end
  -- the live track of that clip started first (7a.14: it keeps its rank)
  local found, first
  for id, t in pairs(st.live) do
    if track_uv(t, 1) == c and select(4, core.track_state(t)) and (not first or id < first) then
      found, first = t, id
    end
  end
  if found then
    core.track_restart(found, item.fade)
    return call(st.on_play, err, found, c, late), found
  end
  local ok, t = pcall(play, self, c, { fade = item.fade }, "update")
  if not ok then return err or ("plays '" .. item.clip .. "': " .. tostring(t)), nil end
  return call(st.on_play, err, t, c, late), t
end

-- The common frame (nothing to deliver) is one call into C.
function methods.update(self, dt)
  local n = core_update(self, dt)
  if n <= 0 then
    if n == 0 then return end
    if n == -1 then
      argerror(1, "update", "dt must be a finite number >= 0, got " .. tostring(dt))
    end
    error("animator:update called from one of this animator's own callbacks (update it after this one returns)", 2)
  end
  local st = animator_state(self)
  local live, ended = st.live, st.ended
  local err
  core_delivering(self, true)
  for i = 1, n do
    local ty, id, kind, idx, late = core_event(self, i)
    local tr = live[id]
    if tr then
      local cbs = track_uv(tr, 3)
      if ty == "item" then
        local info = clip_info(track_uv(tr, 1))
        if kind == 0 then
          local m = info.markers[idx]
          local per = cbs.marker
          if per then err = call(per[m.name], err, tr, m.value, late) end
          err = call(st.on_marker, err, tr, m.name, m.value, late)
        elseif kind == 1 then
          local e = info.events[idx]
          err = call(st.on_event, err, tr, e.name, e.payload, late)
        elseif kind == 2 then
          local s = info.sounds[idx]
          err = call(st.on_sound, err, tr, s.sound, s.volume, s.pitch, late)
        else
          err = run_play(self, st, info.plays[idx], late, err)
        end
      elseif ty == "looped" then
        err = call(cbs.looped, err, tr, late)
      elseif ty == "stopped" then
        err = call(cbs.stopped, err, tr, late)
      else
        err = call(cbs.ended, err, tr, late)
        -- it leaves the live tracks after this delivery (kept alive until
        -- then, with its clip); `ended` reuses one table, so no garbage
        ended[#ended + 1] = id
      end
    end
  end
  for i = #ended, 1, -1 do
    live[ended[i]] = nil
    ended[i] = nil
  end
  core_delivering(self, false)
  if err ~= nil then error(err, 0) end
end

local function joint_fn(f)
  return function(self, j) return f(self, j) end
end
methods.get = joint_fn(core.animator_get)
methods.animated = joint_fn(core.animator_animated)
methods.local_transform = joint_fn(core.animator_local)
methods.world_transform = joint_fn(core.animator_world)

-- Where the rig stands: the world transform of its first root joint (rigs
-- keep parents first).  Hosts place sounds there (SEMANTICS 7a.13).
function methods.root_transform(self) return core.animator_world(self, 1) end

-- animator:pose_into(t [, "offsets"|"local"|"world"]) -> t, t[joint] = {10 numbers}
function methods.pose_into(self, t, which)
  if type(t) ~= "table" then argerror(1, "pose_into", "table expected, got " .. type(t)) end
  if which ~= nil and which ~= "offsets" and which ~= "local" and which ~= "world" then
    argerror(2, "pose_into", "\"offsets\", \"local\" or \"world\" expected, got " .. tostring(which))
  end
  return core.animator_pose_into(self, t, which)
end

local fields = {
  rig = function(st) return st.rig end,
  side = function(st) return st.side end,
  space = function(st) return st.space end,
  library = function(st) return st.library end,
}

local amt = core.animator_metatable
amt.__name = "anim.animator"
amt.__index = function(self, k)
  local m = methods[k]
  if m then return m end
  local f = fields[k]
  if f then return f(animator_state(self)) end
end
amt.__newindex = function(_, k) error("cannot set animator field '" .. tostring(k) .. "'", 2) end

-- Tracks -------------------------------------------------------------------------

local tmethods = {}

function tmethods.stop(self, fade)
  if fade ~= nil and (not finite(fade) or fade < 0) then
    argerror(1, "stop", "fade must be a finite number >= 0, got " .. tostring(fade))
  end
  core.track_stop(self, fade or 0.1)
end

function tmethods.adjust_weight(self, w, fade)
  if not finite(w) or w < 0 then argerror(1, "adjust_weight", "weight must be a finite number >= 0, got " .. tostring(w)) end
  if fade ~= nil and (not finite(fade) or fade < 0) then
    argerror(2, "adjust_weight", "fade must be a finite number >= 0, got " .. tostring(fade))
  end
  core.track_adjust_weight(self, w, fade or 0.1)
end

function tmethods.adjust_speed(self, s)
  if not finite(s) then argerror(1, "adjust_speed", "speed must be a finite number, got " .. tostring(s)) end
  core.track_adjust_speed(self, s)
end

function tmethods.on_marker(self, name, fn)
  if type(name) ~= "string" then argerror(1, "on_marker", "marker name expected, got " .. type(name)) end
  local cbs = track_uv(self, 3)
  cbs.marker = cbs.marker or {}
  return connect(cbs.marker, name, fn, "on_marker")
end
function tmethods.on_looped(self, fn) return connect(track_uv(self, 3), "looped", fn, "on_looped") end
function tmethods.on_stopped(self, fn) return connect(track_uv(self, 3), "stopped", fn, "on_stopped") end
function tmethods.on_ended(self, fn) return connect(track_uv(self, 3), "ended", fn, "on_ended") end

local tfields = {
  time = function(self) return (core.track_state(self)) end,
  speed = function(self) return select(2, core.track_state(self)) end,
  weight = function(self) return select(3, core.track_state(self)) end,
  is_playing = function(self) return select(4, core.track_state(self)) end,
  loops = function(self) return select(5, core.track_state(self)) end,
  fade = function(self) return select(6, core.track_state(self)) end,
  clip = function(self) return track_uv(self, 1) end,
  animator = function(self) return track_uv(self, 2) end,
  length = function(self) return clip_info(track_uv(self, 1)).length end,
}

local tmt = core.track_metatable
tmt.__name = "anim.track"
tmt.__index = function(self, k)
  local m = tmethods[k]
  if m then return m end
  local f = tfields[k]
  if f then return f(self) end
end
tmt.__newindex = function(self, k, v)
  if k == "time" then
    if not finite(v) then error("track time must be a finite number, got " .. tostring(v), 2) end
    core.track_seek(self, v)
    return
  end
  error("cannot set track field '" .. tostring(k) .. "'", 2)
end
tmt.__tostring = function(self)
  return string.format("anim.track(%s, t=%g)", tostring(clip_info(track_uv(self, 1)).name), core.track_time(self))
end

M.methods, M.track_methods = methods, tmethods
return M
