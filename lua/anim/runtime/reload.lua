-- reload.lua: hot reload.  A clip's content is replaced in place while
-- tracks play it: every track of the clip goes on at its time (clamped
-- into the new length; nothing between the old time and the new fires),
-- keeping its callbacks and options, and the clip object shows the new
-- content (length, joints, markers...).  The new content is built first;
-- a source that fails to load leaves the clip untouched (nil, message).
-- The C side (csrc/core/reload.c) makes everything that can fail before
-- it changes anything.
local core = require "anim.core"
local args = require "anim.base.args"
local E = require "anim.base.errors"
local json = require "anim.base.json"
local clipmod = require "anim.format.clip"
local bind = require "anim.format.bind"
local fieldset = require "anim.format.fields"
local playing = require "anim.runtime.playing"
local dispatch = require "anim.runtime.dispatch"

local M = {}

local track_mt = core.track_metatable

local DELIVERING = "a clip cannot be reloaded while an update delivers its callbacks "
  .. "(reload after animator:update or anim.update returns)"

-- Gives `clip` the content of `fresh` (a clip just built, nothing plays
-- it): clip | nil, message.  `where` names the source in messages.
function M.replace(clip, fresh, where)
  -- (the animators delivering now, from C or from Lua)
  if core.delivering() > 0 then args.raise(DELIVERING) end
  local tracks, binds = {}, {}
  for track, map in pairs(playing.tracks(clip)) do
    -- (a track collected with its animator is passed over)
    if debug.getmetatable(track) == track_mt then -- (getmetatable gives the name)
      local animator = core.track_uservalue(track, 2)
      local ok, st = pcall(core.animator_state, animator)
      if ok and st then
        tracks[#tracks + 1] = track
        binds[#binds + 1] = bind.get(fresh, st.rig, map or nil)
      end
    end
  end
  local old_info, new_info = core.clip_info(clip), core.clip_info(fresh)
  local name = old_info.name
  local done, _, pname, n, m = core.clip_reload(clip, fresh, tracks, binds)
  if not done then
    return nil, string.format("%s: %s: has %d component%s, but a track of another clip on an animator "
      .. "that plays it gives that property %d", where, E.key("properties", pname), n, n == 1 and "" or "s", m)
  end
  -- the clip keeps its name; the keys kept by the core are read through
  -- the clip that holds them now (format/keys.lua)
  rawset(new_info, "name", name)
  if rawget(new_info, "clip") then rawset(new_info, "clip", clip) end
  if rawget(old_info, "clip") then rawset(old_info, "clip", fresh) end
  bind.forget(clip)
  -- (the markers changed: the tracks' marker tables follow)
  for track in pairs(playing.tracks(clip)) do dispatch.marks(track) end
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
    fresh, err = clipmod.load_file(source, source, nil, strict)
  else
    args.error(2, "reload", "path, JSON text or table expected, got " .. args.typename(source))
  end
  if not fresh then return nil, err end
  return M.replace(clip, fresh, where)
end

return M
