-- dispatch.lua: what the delivery reads to call a marker's callbacks in
-- a few raw table reads (csrc/lua/lua_deliver.c; issue 24),
-- kept in two user values of a clip's track:
--   5: the clip's marker table, [2k - 1] = marker k's name, [2k] = its
--      value; one per clip content (its info table), shared by the tracks
--      that play it (set when the track starts, and again when the clip
--      is reloaded);
--   4: its marker callbacks by marker, { [k] = the callbacks the track
--      connected to marker k's name: the function of the only connection,
--      or the list of connections when there are several, [-k] = marker
--      k's value (from the marker table: one read less) }, nil when it
--      has none, false when that would take more than BY_INDEX entries (a
--      clip of very many markers: the delivery reads them from the clip's
--      info and the track's callbacks by name then); set
--      again at every (dis)connection and reload.  The usual table, one
--      name with one function, is shared by every track of the clip with
--      the same (a thousand characters calling one footstep handler read
--      one table: it stays in the processor's cache).
-- Both are caches of what the delivery reads otherwise (the clip's info
-- and the track's callbacks table: a blend space's points, a track
-- without its marker table).
-- Tables are replaced, never changed in place, so that a delivery that
-- read one goes on with it.
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local codes = require "anim.base.codes"

local M = {}

local clip_info, track_uv, set_uv = core.clip_info, core.track_uservalue, core.track_set_dispatch
-- (a track's user values, named in csrc/core/codes.h)
local UV_SOURCE, UV_CALLBACKS = codes.uv.track_source, codes.uv.track_callbacks
local UV_BY_MARKER, UV_MARKS = codes.uv.track_by_marker, codes.uv.track_marks

-- clip info -> its marker table; marker table -> { [name] = { k, ... } }
local marks_of = setmetatable({}, { __mode = "k" })
local at_of = setmetatable({}, { __mode = "k" })

local function marks(info)
  local m = marks_of[info]
  if m then return m end
  local at = {}
  m = {}
  for k, mk in ipairs(info.markers or {}) do
    m[2 * k - 1], m[2 * k] = mk.name, mk.value
    local ks = at[mk.name]
    if not ks then ks = {}; at[mk.name] = ks end
    ks[#ks + 1] = k
  end
  marks_of[info], at_of[m] = m, at
  return m
end

-- The most markers a track's table of callbacks by marker holds.
local BY_INDEX = 4096

-- marker table -> name -> fn -> the table of that one callback, shared.
-- The last level is weak both ways (5.1 and LuaJIT have no ephemerons: a
-- table kept by a weak key that refers to its key would keep it for
-- good): an entry lives while a track holds its table.
local single = setmetatable({}, { __mode = "k" })

-- The callbacks of a list of connections as the delivery from C calls
-- them: the function of the only connection, the list when there are
-- several, nil when none (lists are replaced, never changed in place: a
-- list kept here is the list of the moment).  The animator's on_marker,
-- on_event and on_sound go to it so too (connect.lua's sync).
local function callbacks(list)
  local n = list and #list or 0
  if n == 0 then return nil end
  if n == 1 then return list[1].fn end
  return list
end
M.callbacks = callbacks

-- The marker callbacks of `track` (cbs: its callbacks table) changed, or
-- its marker table did.
function M.update(track, cbs)
  local m = track_uv(track, UV_MARKS)
  local at = m and at_of[m]
  local by, entries, one_name, one = nil, 0, nil, nil
  if at and type(cbs) == "table" and type(cbs.marker) == "table" then
    for name, list in pairs(cbs.marker) do
      local f, ks = callbacks(list), at[name]
      if f ~= nil and ks then
        by = by or {}
        by[name] = f
        entries, one_name, one = entries + #ks, one_name == nil and name or false, f
      end
    end
  end
  local t
  if by == nil then
    t = nil
  elseif entries > BY_INDEX then
    t = false
  elseif one_name and type(one) == "function" then
    local of_marks = single[m]
    if not of_marks then of_marks = {}; single[m] = of_marks end
    local of_name = of_marks[one_name]
    if not of_name then of_name = setmetatable({}, { __mode = "kv" }); of_marks[one_name] = of_name end
    t = of_name[one]
    if not t then
      t = {}
      for _, k in ipairs(at[one_name]) do t[k], t[-k] = one, m[2 * k] end
      of_name[one] = t
    end
  else
    t = {}
    for name, f in pairs(by) do
      for _, k in ipairs(at[name]) do t[k], t[-k] = f, m[2 * k] end
    end
  end
  set_uv(track, UV_BY_MARKER, t)
end

-- Gives `track` (a clip's track) its clip's marker table, nil for a clip
-- without markers, and its callbacks by marker from it.  (A track whose
-- clip was finalized by hand delivers nothing more.)
function M.marks(track)
  local ok, info = pcall(clip_info, track_uv(track, UV_SOURCE))
  set_uv(track, UV_MARKS, ok and info.markers and #info.markers > 0 and marks(info) or nil)
  M.update(track, track_uv(track, UV_CALLBACKS))
end

return M
