-- reload.lua: hot reload.  A clip's content is replaced in place while
-- tracks play it: every track of the clip goes on at its time (clamped
-- into the new length; nothing between the old time and the new fires),
-- keeping its callbacks and options, and the clip object shows the new
-- content (length, joints, markers...).  The new content is built first;
-- a source that fails to load leaves the clip untouched (nil, message).
-- The C side (csrc/core/reload.c) makes everything that can fail before
-- it changes anything.
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local codes = require "anim.base.codes"
-- (a track's user values, named in csrc/core/codes.h)
local UV_SOURCE, UV_ANIMATOR = codes.uv.track_source, codes.uv.track_animator
local args = require "anim.base.args"
local E = require "anim.base.errors"
local json = require "anim.base.json"
local clipmod = require "anim.format.clip"
local animc = require "anim.format.animc"
local bind = require "anim.format.bind"
local fieldset = require "anim.format.fields"
local playing = require "anim.runtime.playing"
local dispatch = require "anim.runtime.dispatch"
local spaces = require "anim.runtime.blendspace"
local delivery = require "anim.runtime.deliver"

local M = {}

local track_mt = core.track_metatable

local DELIVERING = "a clip cannot be reloaded while an update delivers its callbacks "
  .. "(reload after animator:update or anim.update returns)"

-- What the new content `finfo` of `clip` would break, as the end of a
-- message, or nil: a body animator plays the clip (it cannot play a view
-- clip), or a blend space holds it (its clips blend one way; synced, they
-- need a length and a speed above 0 and one loop mode).  Nothing else of
-- a track depends on its clip's content in a way a reload may break: the
-- core rebinds the rest (csrc/core/reload.c).
local function breaks(clip, finfo, entries)
  if finfo.space == "view" then
    for track in pairs(entries) do
      local ok, st = pcall(core.animator_state, core.track_uservalue(track, UV_ANIMATOR))
      if ok and st and st.space ~= "view" then
        return "space: a body animator plays this clip: it cannot become a view clip"
      end
    end
  end
  for _, space in ipairs(spaces.holding(clip)) do
    if spaces.is_space(space) then
      local sinfo = spaces.info(space)
      local infos = {}
      for i, c in ipairs(sinfo.clips) do infos[i] = c == clip and finfo or clipmod.info(c) end
      local bad, why = spaces.props_problem(infos)
      for i = 1, bad and 0 or #infos do
        why = spaces.point_problem(infos[i], infos[1], sinfo.sync)
        if why then bad = i; break end
      end
      if bad then
        return string.format("blend space '%s' holds this clip: points[%d].clip%s", E.shown(sinfo.name), bad, why)
      end
      if finfo.space == "view" and spaces.space_of(sinfo.clips) ~= "view" then
        return string.format("space: blend space '%s' holds this clip: a body space cannot become a view space",
          E.shown(sinfo.name))
      end
    end
  end
end

-- The tracks that play `clip` (a blend space's: once per point that plays
-- it) and their bindings for `fresh`: tracks, bindings, points.
local function list(clip, fresh)
  local tracks, binds, points = {}, {}, {}
  for track, entry in pairs(playing.tracks(clip)) do
    -- (a track collected with its animator is passed over)
    if debug.getmetatable(track) == track_mt then -- (getmetatable gives the name)
      local animator = core.track_uservalue(track, UV_ANIMATOR)
      local ok, st = pcall(core.animator_state, animator)
      if ok and st then
        local b = delivery.track_bindings(st, track, bind.get(fresh, st.rig, entry.map or nil))
        for _, p in ipairs(entry.points) do
          local n = #tracks + 1
          tracks[n], binds[n], points[n] = track, b, p
        end
      end
    end
  end
  return tracks, binds, points
end

-- How many times the tracks are listed again when a finalizer starts one
-- while they are (core.clip_reload answers false, 0): a finalizer runs
-- once, so the second list is whole unless new garbage plays the clip.
local TRIES = 8

-- Gives `clip` the content of `fresh` (a clip just built, nothing plays
-- it): clip | nil, message.  `where` names the source in messages.
function M.replace(clip, fresh, where)
  -- (the animators delivering now, from C or from Lua)
  if core.delivering() > 0 then args.raise(DELIVERING) end
  local finfo = core.clip_info(fresh)
  -- (a state machine's tracks are listed once they have their objects)
  delivery.host_all()
  local why = breaks(clip, finfo, playing.tracks(clip))
  where = E.shown(where)
  if why then return nil, where .. ": " .. why end
  why = delivery.reload_problem(clip, fresh)
  if why then return nil, where .. ": " .. why end
  local old_info = core.clip_info(clip)
  local name = old_info.name
  local done, i, pname, n, m
  for _ = 1, TRIES do
    local tracks, binds, points = list(clip, fresh)
    done, i, pname, n, m = core.clip_reload(clip, fresh, tracks, binds, points)
    if done or i ~= 0 then break end
  end
  if not done and i == 0 then
    return nil, where .. ": the clip was not reloaded: tracks of it kept being started while it was (by finalizers)"
  end
  if not done then
    return nil, string.format("%s: %s: has %d component%s, but a track of another clip on an animator "
      .. "that plays it gives that property %d", where, E.key("properties", pname), n, n == 1 and "" or "s", m)
  end
  -- the clip keeps its name; the keys kept by the core are read through
  -- the clip that holds them now (format/keys.lua)
  rawset(finfo, "name", name)
  if rawget(finfo, "clip") then rawset(finfo, "clip", clip) end
  if rawget(old_info, "clip") then rawset(old_info, "clip", fresh) end
  bind.forget(clip)
  delivery.rebind(clip)
  -- (the markers changed: the clips' tracks' marker tables follow)
  for track, entry in pairs(playing.tracks(clip)) do
    if entry.points[1] == 1 and not spaces.is_space_box(core.track_uservalue(track, UV_SOURCE)) then dispatch.marks(track) end
  end
  return clip
end

-- anim.reload(clip, source, strict): source is a path, JSON text (a string
-- whose first character other than white space is `{`) or a table in the
-- file's shape.  strict: a field the format does not know raises for a
-- table (as anim.clip does, unless strict is false) and fails a path or
-- text (as anim.load does, when strict is true).
function M.reload(clip, source, strict)
  if not clipmod.is_clip(clip) then args.error(1, "reload", "anim.clip expected, got " .. args.typename(clip)) end
  local name = core.clip_info(clip).name
  local fresh, err, where
  if type(source) == "table" then
    local unknown = strict ~= false and fieldset.unknown(source, "clip")[1]
    if unknown then args.error(2, "reload", fieldset.message(unknown, true)) end
    where = name
    fresh, err = E.catch(name, function() return clipmod.build(clipmod.copy(source), name) end)
  elseif type(source) == "string" and source:match("^%s*{") then
    where = name
    fresh, err = E.catch(name, function() return clipmod.build(json.decode(source), name, true, strict) end)
  elseif type(source) == "string" then
    where = source
    fresh, err = animc.load_any(source, source, nil, strict)
  else
    args.error(2, "reload", "path, JSON text or table expected, got " .. args.typename(source))
  end
  if not fresh then return nil, err end
  return M.replace(clip, fresh, where)
end

return M
