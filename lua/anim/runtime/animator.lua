-- animator.lua: the Lua face of animators and tracks.  The C core advances
-- tracks, blends the pose and queues what happened; update() delivers that
-- queue to the Lua callbacks in order (SEMANTICS 7): the core's update
-- delivers it from C (csrc/lua/lua_deliver.c), calling runtime/deliver.lua's
-- handlers for what only Lua can do (plays, callbacks that could yield);
-- runtime/connect.lua keeps the connections.  Nothing here runs per joint;
-- the per-frame path allocates nothing while callbacks fire.
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local format = require "anim.format.read"
local codes = require "anim.base.codes"
local bind = require "anim.format.bind"
local clipmod = require "anim.format.clip"
local rigmod = require "anim.format.rig"
local library = require "anim.runtime.library"
local retarget = require "anim.format.retarget"
local playing = require "anim.runtime.playing"
local override = require "anim.runtime.override"
local suggest = require "anim.base.suggest"
local spaces = require "anim.runtime.blendspace"
local ik = require "anim.runtime.ik"
local saved = require "anim.runtime.state"
local dispatch = require "anim.runtime.dispatch"
local connections = require "anim.runtime.connect"
local delivery = require "anim.runtime.deliver"
local bindcheck = require "anim.runtime.bindcheck"
local controller = require "anim.runtime.controller"
local animator2d = require "anim.runtime.animator2d"

local M = {}

local SIDES = codes.side
local ST = codes.status
local DEFAULT_FADE = codes.float.default_fade
local clip_info, track_uv, animator_state = core.clip_info, core.track_uservalue, core.animator_state
-- (a track's user values, named in csrc/core/codes.h)
local UV_SOURCE, UV_ANIMATOR, UV_CALLBACKS = codes.uv.track_source, codes.uv.track_animator, codes.uv.track_callbacks
local core_update, space_info = core.animator_update, core.space_info
local type = type
local compat = require "anim.base.compat"
local connect, owners, animator_mask = connections.connect, connections.owners, connections.animator_mask
local raise_first = delivery.raise_first

local args = require "anim.base.args"
local argerror = args.error

local E = require "anim.base.errors"
local byteorder = require "anim.base.order"
local compat_rawlen = compat.rawlen
local finite = E.finite
local show = args.show
-- (a name or value of a file or a script that a message quotes: escaped,
-- cut at E.SHOWN bytes)
local shown = E.shown

-- An optional number option: nil is absent; else finite and >= lo.
local function opt_number(opts, k, dflt, lo, fname)
  local v = opts[k]
  if v == nil then return dflt end
  if not finite(v) then argerror(2, fname, k .. " must be a finite number, got " .. show(v)) end
  if lo and v < lo then argerror(2, fname, k .. " must be >= " .. lo .. ", got " .. show(v)) end
  return v
end

-- Animators --------------------------------------------------------------------

local methods = {}

-- The options of anim.animator and of play, each listed once.
local ANIMATOR_OPTIONS = args.names { "side", "space", "library", "warn", "root_joint", "root_motion" }
local PLAY_OPTIONS = args.names { "fade", "weight", "speed", "priority", "retarget", "warn", "at", "after", "loop" }
-- (play's loop option: the loop modes by name, as clips name them)
local LOOP_NAMES, LOOP_CODES = codes.names("loop"), codes.loop

-- The warn option: a function, or false for none (nil: dflt).
local function opt_warn(opts, n, fname, dflt)
  local v = opts.warn
  if v == false then return false end
  if v ~= nil and type(v) ~= "function" then
    argerror(n, fname, "warn must be a function or false, got " .. args.typename(v))
  end
  return v or dflt
end

function M.new(rig, opts)
  local sk = animator2d.skeleton(rig); rig = sk and sk.rig or rig -- a 2D skeleton: its rig, then its stage
  if not rigmod.is_rig(rig) then argerror(1, "animator", "rig or 2D skeleton expected, got " .. args.typename(rig)) end
  opts = args.options(opts, ANIMATOR_OPTIONS, 2, "animator")
  local side = opts.side or "both"
  if SIDES[side] == nil then
    argerror(2, "animator", "side must be \"server\", \"client\" or \"both\", got " .. shown(side))
  end
  local space = opts.space or "body"
  if space ~= "body" and space ~= "view" then
    argerror(2, "animator", "space must be \"body\" or \"view\", got " .. shown(space))
  end
  local lib = opts.library
  if lib ~= nil and not library.is_library(lib) then
    argerror(2, "animator", "library must be a library from anim.library, got " .. type(lib))
  end
  -- root_joint, or root_motion (its first name, kept): the root motion joint
  local motion
  local rj, rname = opts.root_joint, "root_joint"
  if opts.root_motion ~= nil then
    if rj ~= nil then argerror(2, "animator", "root_joint and root_motion name the same joint: give one") end
    rj, rname = opts.root_motion, "root_motion"
  end
  if rj ~= nil then
    local why
    motion, why = rigmod.joint(rig, rj)
    if not motion then argerror(2, "animator", rname .. ": " .. why) end
  end
  local warn = opt_warn(opts, 2, "animator", bindcheck.default_warn)
  -- live: track id -> track, for the tracks playing; cbs, src: the same
  -- ids -> the track's callbacks table and source (clip or blend space);
  -- the delivery takes the tracks that ended out of them
  -- (csrc/lua/lua_deliver.c)
  local state = { live = {}, cbs = {}, src = {}, side = side, space = space, library = lib, rig = rig,
    warn = warn }
  local a = core.animator_new(rig, SIDES[side], state)
  owners[state] = a
  core.animator_hear(a, connections.ALWAYS)
  if motion then core.animator_set_root_motion(a, motion) end
  if sk then animator2d.attach(a, state, sk) end
  return a
end

-- How many times play makes a clip's bindings again when a finalizer
-- reloads the clip while the core makes its track (a finalizer runs once:
-- a second reload in a row needs new garbage that reloads it).
local RETRIES = 8

-- play's retarget option: a map, or a res:// path resolved through the
-- animator's library (nil: none).
local function play_map(st, map, fname)
  if map == nil then return nil end
  if type(map) == "string" then
    if not st.library then
      argerror(2, fname, "retarget '" .. shown(map) .. "' needs an animator with a library")
    end
    local m, err = st.library:retarget(map)
    if not m then argerror(2, fname, "retarget: " .. err) end
    return m
  elseif not retarget.is_map(map) then
    argerror(2, fname, "retarget must be a retarget map or a res:// path, got " .. type(map))
  end
  return map
end

local function play(self, clip, opts, fname)
  local space = spaces.is_space(clip)
  if not space and not clipmod.is_clip(clip) then
    argerror(1, fname, "clip or blend space expected, got " .. args.typename(clip))
  end
  opts = args.options(opts, PLAY_OPTIONS, 2, fname)
  local st = animator_state(self)
  local info = space and spaces.info(clip) or clip_info(clip)
  -- (a space is a view space while a clip of it is one: a reload may make it one)
  if (space and spaces.space_of(info.clips) or info.space) == "view" and st.space ~= "view" then
    argerror(1, fname, string.format("%s '%s' is a view clip: a body animator cannot play it",
      space and "blend space" or "clip", shown(info.name)))
  end
  local x, y
  if space then
    local at = opts.at
    if at == nil then at = info.points[1].at end -- (the first point's clip alone)
    x, y = spaces.check_at(clip, at, 2, fname, "at")
  elseif opts.at ~= nil then
    argerror(2, fname, "at: only a blend space takes a parameter (this is clip '" .. shown(info.name) .. "')")
  end
  local after = opts.after
  if after ~= nil then
    if debug.getmetatable(after) ~= core.track_metatable then
      argerror(2, fname, "after must be a track, got " .. args.typename(after))
    end
    if track_uv(after, UV_ANIMATOR) ~= self then argerror(2, fname, "after: the track plays on another animator") end
    local queued = st.queued_after and st.queued_after[after]
    -- (a track finalized by hand no longer waits: its metatable is another)
    if queued and debug.getmetatable(queued) == core.track_metatable and core.track_queued(queued) then
      argerror(2, fname, "after: that track already has a track queued after it (queue after that one)")
    end
  end
  local fade = opt_number(opts, "fade", DEFAULT_FADE, 0, fname)
  local weight = opt_number(opts, "weight", 1, 0, fname)
  local speed = opt_number(opts, "speed", 1, nil, fname)
  local priority = opts.priority
  if priority ~= nil then
    local ok, p = pcall(format.priority, priority, "priority")
    if not ok then
      if type(priority) == "string" then
        argerror(2, fname, "unknown priority '" .. shown(priority) .. "'" .. E.hint(priority, format.PRIORITY_NAMES)
          .. " (the levels: " .. table.concat(format.PRIORITY_NAMES, ", ") .. ", or a finite number)")
      end
      argerror(2, fname, "priority must be a level name or a finite number, got " .. shown(priority))
    end
    priority = p
  end
  local map = play_map(st, opts.retarget, fname)
  local loop = opts.loop
  if loop ~= nil and LOOP_CODES[loop] == nil then
    argerror(2, fname, (type(loop) == "string" and "unknown loop mode '" .. shown(loop) .. "'" .. E.hint(loop, LOOP_NAMES)
      or "loop must be a loop mode name, got " .. args.typename(loop)) .. " (the modes: " .. table.concat(LOOP_NAMES, ", ") .. ")")
  end
  local warn = opt_warn(opts, 2, fname, st.warn)
  -- (nothing silent: a clip that plays on nothing raises before its track
  -- is made; one that plays on part of the rig is told to warn below)
  local unbound = {}
  for i, c in ipairs(space and info.clips or { clip }) do
    unbound[i] = bindcheck.check(c, st.rig, map, fname,
      space and string.format("blend space '%s': points[%d].", shown(info.name), i) or nil)
  end
  local track, p, other, point
  local cbs = {}
  -- (false: a finalizer reloaded a clip while the core made the track;
  -- its bindings are made again for the new content, as a reload makes
  -- them for the tracks that play it)
  for _ = 1, RETRIES do
    if space then
      local bindings = {}
      for i, c in ipairs(info.clips) do bindings[i] = bind.get(c, st.rig, map) end
      track, point, p, other = core.animator_play_space(self, clip, fade, weight, speed, priority, bindings, cbs, x, y)
    else
      track, p, other = core.animator_play(self, clip, fade, weight, speed, priority, bind.get(clip, st.rig, map), cbs)
    end
    if track ~= false then break end
  end
  if track == false then args.raise(fname .. ": the clip kept being reloaded (by finalizers) while it was played") end
  if not track then
    local cinfo = point and clip_info(info.clips[point]) or info
    local prop = cinfo.properties[p]
    argerror(1, fname, string.format("%sclip '%s': its property '%s' has %d component%s, but a track on this animator gives it %d",
      point and string.format("blend space '%s': points[%d].", shown(info.name), point) or "",
      shown(cinfo.name), shown(prop.name), prop.arity, prop.arity == 1 and "" or "s", other))
  end
  if loop ~= nil then core.track_set_loop(track, LOOP_CODES[loop]) end
  local _, _, _, _, _, _, id = core.track_state(track)
  st.live[id], st.cbs[id], st.src[id] = track, cbs, clip
  -- (its entries delivered from C through its slot, its markers through
  -- its marker tables: runtime/dispatch.lua)
  if not space and info.markers and #info.markers > 0 then dispatch.marks(track) end
  core.track_slot(track)
  if not space then playing.note(clip, track, map)
  else
    playing.note_space(info.clips, track, map)
    if map then
      -- (a saved state names the map a space's track plays with: runtime/state.lua)
      st.space_maps = st.space_maps or setmetatable({}, { __mode = "k" })
      st.space_maps[track] = map
    end
  end
  if after ~= nil and core.track_queue_after(track, after) == 1 then
    st.queued_after = st.queued_after or setmetatable({}, { __mode = "kv" })
    st.queued_after[after] = track
  end
  -- the clip joints that play on nothing, once per track (none: silence)
  if warn then bindcheck.report(warn, track, unbound) end
  return track
end

function methods.play(self, clip, opts) return play(self, clip, opts, "play") end
-- (a `plays` item starts its clip through play: runtime/deliver.lua)
delivery.play = play

function methods.autoplay(self, clips)
  if type(clips) ~= "table" then argerror(1, "autoplay", "table of clips expected, got " .. type(clips)) end
  -- (raw: the clips are the list's elements 1 to #list, whatever its
  -- metamethods would answer)
  local out = {}
  for i = 1, compat_rawlen(clips) do
    local c = rawget(clips, i)
    if not clipmod.is_clip(c) then argerror(1, "autoplay", "table of clips expected") end
    if clip_info(c).autoplay then out[#out + 1] = play(self, c, nil, "autoplay") end
  end
  return out
end

-- (on_play: what a `plays` item starts; those are always heard)
function methods.on_marker(self, fn) return connect(animator_state(self), "on_marker", fn, "on_marker") end
function methods.on_event(self, fn) return connect(animator_state(self), "on_event", fn, "on_event") end
function methods.on_sound(self, fn) return connect(animator_state(self), "on_sound", fn, "on_sound") end
function methods.on_play(self, fn) return connect(animator_state(self), "on_play", fn, "on_play") end

-- animator:stop([fade]): every track stops as track:stop does.
function methods.stop(self, fade)
  if fade ~= nil and (not finite(fade) or fade < 0) then
    argerror(1, "stop", "fade must be a finite number >= 0, got " .. show(fade))
  end
  delivery.host(self)
  for _, t in pairs(animator_state(self).live) do core.track_stop(t, fade or DEFAULT_FADE) end
end

-- The tracks playing now, in start order.
function methods.tracks(self)
  local out = {}
  delivery.host(self)
  for _, t in pairs(animator_state(self).live) do out[#out + 1] = t end
  table.sort(out, function(a, b)
    local _, _, _, _, _, _, ia = core.track_state(a)
    local _, _, _, _, _, _, ib = core.track_state(b)
    return ia < ib
  end)
  return out
end

local OWN_CALLBACK = "animator:update called from one of this animator's own callbacks (update it after this one returns)"
local QUEUED = "animator:update called while anim.update has yet to deliver this animator's callbacks"
  .. " (update it after that anim.update returns)"

-- The frame is one call into C, which delivers the callbacks (all of
-- them: csrc/lua/lua_deliver.c) and also refuses a bad dt, an update from this animator's own callbacks and one
-- before anim.update delivered its callbacks without changing anything
-- (codes.status).
function methods.update(self, dt)
  local n, _, _, err = core_update(self, dt)
  if n <= 0 then
    if n == 0 then return end -- nothing to deliver (and nothing ended)
    if n == ST.bad_dt then
      argerror(1, "update", "dt must be a finite number >= 0, got " .. show(dt))
    end
    if n == ST.not_animator then
      args.raise("calling 'update' on bad self (anim.animator expected, got " .. args.typename(self) .. ")")
    end
    args.raise(n == ST.delivering and OWN_CALLBACK or QUEUED)
  end
  -- (n > 0: the first error of a callback; C delivered every entry)
  raise_first(err, "update")
end

-- anim.update(animators, dt): the batch update (runtime/deliver.lua)
M.update_list = delivery.update_list

-- The methods written in C (core.animator_methods, csrc/lua/lua_pose.c
-- and lua_gameplay.c: their argument errors name them), the C functions
-- themselves: a game reads every joint every frame, and ten numbers
-- returned on the stack cost less than anything written into a table.
-- get, animated, local_transform, world_transform: one joint's numbers;
-- animator:pose_array(out [, "local"|"world"|"offsets"]) -> out: every
-- joint's ten numbers in one call, out[10 * (j - 1) + 1 .. 10 * j];
-- animator:pose_into(t [, "offsets"|"local"|"world"]) -> t, t[joint] = {10
-- numbers}, its arguments checked there (with a suggestion for a misspelt
-- pose, as pose_array's); root_motion: this update's motion of the
-- animator's root_motion joint (dx, dy, dz, qx, qy, qz, qw; no joint: 0,
-- 0, 0, 0, 0, 0, 1).
for name, fn in pairs(core.animator_methods) do methods[name] = fn end

-- animator:property(name) -> v1 [, v2, ...] | nil: the blended value of a
-- property channel after the last update (numbers on the stack: no
-- table), nil when the name is known (a track on the animator, playing or
-- fading, has it) but no track gives it a value.  core.animator_property
-- answers false for a name no track has.
local core_property, core_property_names = core.animator_property, core.animator_property_names

local function property_result(self, name, first, ...)
  if first == false then
    local known = byteorder.sort(core_property_names(self))
    local why = "no track on this animator has property channels"
    if #known > 0 then why = "the properties: " .. E.shown_list(known) end
    argerror(1, "property", string.format("unknown property '%s'%s (%s)", shown(name), suggest.hint(name, known), why))
  end
  return first, ...
end

function methods.property(self, name)
  if type(name) ~= "string" then argerror(1, "property", "property name expected, got " .. args.typename(name)) end
  return property_result(self, name, core_property(self, name))
end

-- animator:override(joint, { rotation | position | scale, mode, weight }) -> handle
-- (runtime/override.lua); animator:overrides() -> the handles in creation order
function methods.override(self, joint, opts) return override.new(self, animator_state(self), joint, opts) end
function methods.overrides(self) return override.list(animator_state(self)) end

-- The saveable state (runtime/state.lua): animator:state() -> table,
-- animator:restore(state [, resolve]) -> { tracks, overrides, constraints } | nil, message
function methods.state(self)
  delivery.host(self)
  return saved.save(self, animator_state(self))
end
methods.control = controller.control
function methods.restore(self, state, resolve)
  if resolve ~= nil and type(resolve) ~= "function" then
    argerror(2, "restore", "resolve must be a function, got " .. args.typename(resolve))
  end
  local st = animator_state(self)
  local result, err = saved.restore(self, st, state, resolve)
  -- (the restored core animator hears everything until told what its
  -- callbacks listen to: they stay on the animator)
  if result then core.animator_hear(self, animator_mask(st)) end
  return result, err
end

-- A 2D skeleton's readings (runtime/animator2d.lua).
for _, n in ipairs(animator2d.METHODS) do methods[n] = animator2d[n] end

-- Constraints (runtime/ik.lua).
methods.two_bone_ik = ik.two_bone_ik
methods.aim = ik.aim

-- Where the rig stands: the world transform of its first root joint (rigs
-- keep parents first).  Hosts place sounds there (SEMANTICS 7a.13).
function methods.root_transform(self) return core.animator_world(self, 1) end

local fields = {
  rig = function(st) return st.rig end,
  side = function(st) return st.side end,
  space = function(st) return st.space end,
  library = function(st) return st.library end,
  controller = function(st) return st.controller end,
}

local core_clock, core_set_clock = core.animator_clock, core.animator_set_clock

-- (read on the animator itself)
local function root_joint(self)
  local j = core.animator_root_motion_joint(self)
  return j and rigmod.info(animator_state(self).rig).joints[j].name
end

local self_fields = {
  -- the animator's clock: a time scale on every track, and the pause
  speed = function(self) return (core_clock(self)) end,
  paused = function(self) return select(2, core_clock(self)) end,
  -- the root motion joint's name (root_motion_joint: its first name, kept)
  root_joint = root_joint,
  root_motion_joint = root_joint,
}

-- animator.root_joint = joint name or index | nil (the method root_motion()
-- gives its motion; `animator.root_motion = joint`, its first spelling,
-- still sets it)
local function set_root_joint(self, v, name)
  local j
  if v ~= nil then
    local why
    j, why = rigmod.joint(animator_state(self).rig, v)
    if not j then args.raise("animator." .. name .. ": " .. why) end
  end
  core.animator_set_root_motion(self, j)
end

-- animator.root_motion = joint name or index | nil; animator.speed = s (finite,
-- >= 0; 0 stops the clock); animator.paused = boolean
local setters = {
  speed = function(self, v)
    if not finite(v) or v < 0 then args.raise("animator.speed must be a finite number >= 0, got " .. show(v)) end
    core_set_clock(self, v, (select(2, core_clock(self))))
  end,
  paused = function(self, v)
    if type(v) ~= "boolean" then args.raise("animator.paused must be true or false, got " .. args.typename(v)) end
    core_set_clock(self, (core_clock(self)), v)
  end,
  root_joint = function(self, v) set_root_joint(self, v, "root_joint") end,
  root_motion = function(self, v) set_root_joint(self, v, "root_motion") end,
}

local amt = core.animator_metatable
amt.__name = "anim.animator"
amt.__index = function(self, k)
  local m = methods[k]
  if m then return m end
  local f = fields[k]
  if f then return f(animator_state(self)) end
  f = self_fields[k]
  if f then return f(self) end
  args.no_field("anim.animator", k, methods, fields, self_fields)
end
amt.__newindex = function(self, k, v)
  local f = setters[k]
  if not f then args.raise("cannot set animator field '" .. shown(k) .. "'") end
  f(self, v)
end

-- Tracks -------------------------------------------------------------------------

local tmethods = {}

-- A control of a track that ended raises: it would do nothing (stop stays
-- a harmless no-op).  Queued and fading tracks are not ended.
local function live_track(self)
  local _, _, _, is_playing = core.track_state(self)
  if not is_playing and not core.track_queued(self) then
    local src = track_uv(self, UV_SOURCE)
    local info = spaces.is_space_box(src) and space_info(src) or clip_info(src)
    args.raise("track '" .. shown(info.name) .. "' has ended")
  end
end

function tmethods.stop(self, fade)
  if fade ~= nil and (not finite(fade) or fade < 0) then
    argerror(1, "stop", "fade must be a finite number >= 0, got " .. show(fade))
  end
  core.track_stop(self, fade or DEFAULT_FADE)
end

function tmethods.adjust_weight(self, w, fade)
  live_track(self)
  if not finite(w) or w < 0 then argerror(1, "adjust_weight", "weight must be a finite number >= 0, got " .. show(w)) end
  if fade ~= nil and (not finite(fade) or fade < 0) then
    argerror(2, "adjust_weight", "fade must be a finite number >= 0, got " .. show(fade))
  end
  core.track_adjust_weight(self, w, fade or DEFAULT_FADE)
end

function tmethods.adjust_speed(self, s)
  live_track(self)
  if not finite(s) then argerror(1, "adjust_speed", "speed must be a finite number, got " .. show(s)) end
  core.track_adjust_speed(self, s)
end

-- track:crossfade(clip [, fade]) -> track: plays clip now (a clip or a
-- blend space, fading in over fade) and stops this track over the same.
function tmethods.crossfade(self, clip, fade)
  live_track(self)
  if fade ~= nil and (not finite(fade) or fade < 0) then
    argerror(2, "crossfade", "fade must be a finite number >= 0, got " .. show(fade))
  end
  fade = fade or DEFAULT_FADE
  local new = play(track_uv(self, UV_ANIMATOR), clip, { fade = fade }, "crossfade")
  core.track_stop(self, fade)
  return new
end

-- track:set_at(x [, y]): a blend space track's parameter (track.at), with
-- no table.
function tmethods.set_at(self, x, y)
  live_track(self)
  local src = track_uv(self, UV_SOURCE)
  if not spaces.is_space_box(src) then args.raise("track:set_at: the track plays a clip, not a blend space") end
  local two = space_info(src).dimensions == 2
  if not finite(x) or (two and not finite(y)) then
    argerror(1, "set_at", (two and "x, y must be finite numbers (a 2D blend space), got " .. show(x) .. ", " .. show(y))
      or ("x must be a finite number (a 1D blend space), got " .. show(x)))
  end
  core.track_set_at(self, x, y)
end

-- A track's callbacks table, known as the track's for sync().
local function track_cbs(self)
  local cbs = track_uv(self, UV_CALLBACKS)
  owners[cbs] = self
  return cbs
end

function tmethods.on_marker(self, name, fn)
  if type(name) ~= "string" then argerror(1, "on_marker", "marker name expected, got " .. type(name)) end
  local cbs = track_cbs(self)
  cbs.marker = cbs.marker or {}
  return connect(cbs.marker, name, fn, "on_marker", 2, cbs)
end
function tmethods.on_looped(self, fn) return connect(track_cbs(self), "looped", fn, "on_looped") end
function tmethods.on_stopped(self, fn) return connect(track_cbs(self), "stopped", fn, "on_stopped") end
function tmethods.on_ended(self, fn) return connect(track_cbs(self), "ended", fn, "on_ended") end

local tfields = {
  time = function(self) return (core.track_state(self)) end,
  speed = function(self) return select(2, core.track_state(self)) end,
  weight = function(self) return select(3, core.track_state(self)) end,
  is_playing = function(self) return select(4, core.track_state(self)) end,
  loops = function(self) return select(5, core.track_state(self)) end,
  fade = function(self) return select(6, core.track_state(self)) end,
  -- its start order: the key of animator:restore's tracks (runtime/state.lua)
  id = function(self) return select(7, core.track_state(self)) end,
  clip = function(self) return track_uv(self, UV_SOURCE) end,
  animator = function(self) return track_uv(self, UV_ANIMATOR) end,
  -- a blend space's: its first point's clip's (the space's clock), as
  -- that clip is now (a reload may have changed it)
  length = function(self)
    local src = track_uv(self, UV_SOURCE)
    return clip_info(spaces.is_space_box(src) and space_info(src).clips[1] or src).length
  end,
  at = function(self)
    local x, y = core.track_at(self)
    if y then return { x, y } end
    return x
  end,
}

local tmt = core.track_metatable
tmt.__name = "anim.track"
tmt.__index = function(self, k)
  local m = tmethods[k]
  if m then return m end
  local f = tfields[k]
  if f then return f(self) end
  args.no_field("anim.track", k, tmethods, tfields)
end
tmt.__newindex = function(self, k, v)
  -- (speed and weight: adjust_speed and adjust_weight at once, fade 0)
  if k == "speed" or k == "weight" then
    live_track(self)
    if not finite(v) or (k == "weight" and v < 0) then
      args.raise("track." .. k .. " must be a finite number" .. (k == "weight" and " >= 0" or "") .. ", got " .. show(v))
    end
    if k == "speed" then core.track_adjust_speed(self, v) else core.track_adjust_weight(self, v, 0) end
    return
  end
  if k == "time" or k == "at" then live_track(self) end
  if k == "time" then
    if not finite(v) then args.raise("track time must be a finite number, got " .. show(v)) end
    core.track_seek(self, v)
    return
  end
  if k == "at" then
    local src = track_uv(self, UV_SOURCE)
    if not spaces.is_space_box(src) then args.raise("track.at: the track plays a clip, not a blend space") end
    local dim = space_info(src).dimensions
    if dim == 1 and not finite(v) then
      args.raise("track.at must be a finite number (a 1D blend space), got " .. show(v))
    end
    local x, y = v, nil
    if dim == 2 then
      x, y = type(v) == "table" and rawget(v, 1), type(v) == "table" and rawget(v, 2)
      if not (finite(x) and finite(y)) then
        args.raise("track.at must be { x, y } of finite numbers (a 2D blend space), got " .. args.typename(v))
      end
    end
    core.track_set_at(self, x, y)
    return
  end
  args.raise("cannot set track field '" .. shown(k) .. "'")
end
tmt.__tostring = function(self)
  local src = track_uv(self, UV_SOURCE)
  local info = spaces.is_space_box(src) and space_info(src) or clip_info(src)
  return string.format("anim.track(%s, t=%s)", shown(info.name), compat.numtext("%g", core.track_time(self)))
end

-- After finalization ---------------------------------------------------------------
--
-- An animator and its tracks are collected together (a track keeps its
-- animator alive), and a script that reaches their metatables
-- (debug.getmetatable, anim.core) may call a __gc by hand at any time.
-- Either way the C side gives a finalized object the metatable of its
-- kind's finalized boxes ("anim.track (finalized)"), and every later use
-- raises "anim.track used after it was finalized (...)" instead of
-- reaching freed memory (csrc/lua/lua_box.c).  What is done here:
-- connections are disconnected (disconnect() does nothing then, so that
-- clean-up code may call it anyway), and a track finalized by hand while
-- it plays ends (the C side) and leaves its animator's live tracks, so
-- that the animator plays on without it.

local function disconnect_all(list)
  if list then
    for _, c in ipairs(list) do c.connected = false end
  end
end

local animator_gc = amt.__gc
amt.__gc = function(self)
  local st = animator_state(self)
  animator_gc(self)
  -- (an animator whose making ran out of memory has no state yet: 5.1 to
  -- 5.3 and LuaJIT would raise the error of indexing it wherever the
  -- collector runs)
  if type(st) ~= "table" then return end
  -- (its tracks leave their slots: nothing is delivered to them any more)
  if type(st.live) == "table" then
    for _, t in pairs(st.live) do core.track_unslot(t) end
  end
  disconnect_all(st.on_marker); disconnect_all(st.on_event)
  disconnect_all(st.on_sound); disconnect_all(st.on_play)
  -- (its controller is gone with it: a clip's or a graph's reload, which
  -- list the controllers in a weak table that keeps this one until the
  -- next cycle, pass over it)
  local ctl = type(st.controller) == "table" and rawget(st.controller, "_")
  if type(ctl) == "table" then ctl.detached = true end
end

local track_gc = tmt.__gc
tmt.__gc = function(self)
  -- A track the collector finalizes after its animator: the core's side
  -- is gone with the animator, nothing is left to do.  (5.4 turns an error
  -- in a finalizer into a warning; 5.1 to 5.3 and LuaJIT raise it wherever
  -- the collector runs.)  Called by hand on a finalized box (another
  -- metatable), it still raises.
  local alive, _, _, _, _, _, _, id = pcall(core.track_state, self)
  if not alive and debug.getmetatable(self) == tmt then return end
  local cbs, owner = track_uv(self, UV_CALLBACKS), track_uv(self, UV_ANIMATOR)
  if not alive then _, _, _, _, _, _, id = core.track_state(self) end
  track_gc(self)
  core.track_unslot(self)
  local ok, st = pcall(animator_state, owner)
  if ok and type(st) == "table" and type(st.live) == "table" and st.live[id] == self then
    st.live[id], st.cbs[id], st.src[id] = nil, nil, nil
  end
  if type(cbs) == "table" then
    disconnect_all(cbs.looped); disconnect_all(cbs.stopped); disconnect_all(cbs.ended)
    if type(cbs.marker) == "table" then
      for _, list in pairs(cbs.marker) do disconnect_all(list) end
    end
  end
end

-- a method called on something else says so at the script's line
-- (update: the C side tells, at no cost per frame)
args.methods(methods, amt, "anim.animator", { update = true })
args.methods(tmethods, tmt, "anim.track")
args.methods(connections.Connection, connections.Connection, "anim.connection")
M.methods, M.track_methods = methods, tmethods
return M
