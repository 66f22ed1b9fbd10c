-- bindcheck.lua: nothing played silently on nothing.  At `play`, a clip
-- whose joints all play on no joint of the rig (and that has no property
-- channel) raises: its track would change nothing.  A clip that binds some
-- of its joints but not all is told to the animator's `warn`, whose default
-- (default_warn) writes one line per (clip, rig) pair.  What a (clip, rig,
-- map) leaves unbound is computed once, with the bindings it goes with
-- (bind.get's cache): a play costs a table read.
local core = require "anim.core"
local bind = require "anim.format.bind"
local E = require "anim.base.errors"
local args = require "anim.base.args"

local M = {}

local shown = E.shown
local UV_ANIMATOR = require("anim.base.codes").uv.track_animator
local clip_info, rig_info, clip_reloads = core.clip_info, core.rig_info, core.clip_reloads

-- bindings (bind.get's table) -> what bind.unmatched said for them; weak:
-- the bindings of a reloaded clip are made again, and these with them.
local unmatched_of = setmetatable({}, { __mode = "k" })

-- A few names of a list, quoted, for a message ("'a', 'b', 'c', 'd', ...").
local FEW = 4
local function few(names)
  local out = {}
  for i = 1, math.min(#names, FEW) do out[i] = "'" .. shown(names[i]) .. "'" end
  if #names > FEW then out[#out + 1] = "... (" .. #names .. " in all)" end
  return #out > 0 and table.concat(out, ", ") or "none"
end

-- The clip joints of clip c that play on no joint of the rig (bind.unmatched's
-- list, each entry also naming the clip: `clip = c`).  Raises argument 1 of
-- fname when none of its joints plays and it has no property channel:
-- `what` prefixes the clip's name in the message (a blend space's point).
-- (the list and the clip's joints are read again while a finalizer run by
-- their making reloads the clip: the list of one content and the joints of
-- another said "no joint" of a clip that had one; a finalizer runs once)
local TRIES = 8
function M.check(c, rig, map, fname, what)
  local u, ci
  for _ = 1, TRIES do
    local gen = clip_reloads(c)
    local b = bind.get(c, rig, map)
    u = unmatched_of[b]
    if u == nil then
      u = bind.unmatched(c, rig, map)
      for _, e in ipairs(u) do e.clip = c end
    end
    ci = clip_info(c)
    if clip_reloads(c) == gen then
      unmatched_of[b] = u
      break
    end
    u = nil
  end
  if not u then
    args.raise(string.format("%s: %sclip '%s' kept being reloaded (by finalizers) while its joints were bound", fname,
      what or "", shown(clip_info(c).name)))
  end
  if #u == 0 then return u end
  if #u == #ci.joints and #ci.properties == 0 then
    local ri = rig_info(rig)
    args.error(1, fname, string.format("%sclip '%s' plays on no joint of rig '%s': its joints %s, the rig's %s%s",
      what or "", shown(ci.name), shown(ri.name or "rig"), few(ci.joints), few(ri.names),
      map and "" or "; retarget? (play's retarget option takes a map from anim.load_retarget)"))
  end
  return u
end

-- Calls warn(track, unmatched) when the lists of M.check (one per clip
-- of the track) hold a joint: unmatched, their entries in clip order, each
-- a copy (a callback may keep or change what it is given).
function M.report(warn, track, lists)
  local out
  for _, u in ipairs(lists) do
    for _, e in ipairs(u) do
      out = out or {}
      out[#out + 1] = { joint = e.joint, wanted = e.wanted, suggestion = e.suggestion, clip = e.clip }
    end
  end
  if out then warn(track, out) end
end

-- The default warn: one line per (clip, rig) pair, through Lua 5.4's warn
-- (shown once warnings are on: `lua -W`, or warn("@on")) where there is
-- one, else io.stderr (both looked up at each call: a host may replace
-- them).  seen: clip -> rig -> true, weak both ways.
local seen = setmetatable({}, { __mode = "k" })
function M.default_warn(track, unmatched)
  local rig = core.animator_state(core.track_uservalue(track, UV_ANIMATOR)).rig
  local by_clip, order = {}, {}
  for _, e in ipairs(unmatched) do
    local c = e.clip
    if not by_clip[c] then
      by_clip[c] = {}
      order[#order + 1] = c
    end
    local list = by_clip[c]
    list[#list + 1] = e
  end
  for _, c in ipairs(order) do
    local per = seen[c] or setmetatable({}, { __mode = "k" })
    seen[c] = per
    if not per[rig] then
      per[rig] = true
      local list, names = by_clip[c], {}
      for i, e in ipairs(list) do
        if i > FEW then names[#names + 1] = "..."; break end
        names[i] = "'" .. shown(e.joint) .. "'" .. (e.suggestion and " (did you mean '" .. shown(e.suggestion) .. "'?)" or "")
      end
      local line = string.format("anim: clip '%s' on rig '%s': %d of its joints play on no joint of the rig: %s",
        shown(clip_info(c).name), shown(rig_info(rig).name or "rig"), #list, table.concat(names, ", "))
      E.warn(line)
    end
  end
end

return M
