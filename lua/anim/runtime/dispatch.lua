-- dispatch.lua: what the delivery from C reads to call a marker's
-- callbacks in a few raw table reads (csrc/lua/lua_deliver.c; issue 24),
-- kept in two user values of a clip's track:
--   5: the clip's marker table, [2k - 1] = marker k's name, [2k] = its
--      value; one per clip content (its info table), shared by the tracks
--      that play it (set when the track starts, and again when the clip
--      is reloaded);
--   4: its marker callbacks by name, { [name] = the function of the only
--      connection, or the list of connections when there are several },
--      or nil when it has none (set again at every (dis)connection).  The
--      usual table, one name with one function, is shared by every track
--      with the same (a thousand characters calling one footstep handler
--      read one table: it stays in the processor's cache).
-- Both are caches of what the Lua side's own delivery reads (the clip's
-- info and the track's callbacks table, animator.lua's deliver): a track
-- without its marker table has its markers delivered by the Lua side.
-- Tables are replaced, never changed in place, so that a delivery that
-- read one goes on with it.
local core = require "anim.core"

local M = {}

local clip_info, track_uv, set_uv = core.clip_info, core.track_uservalue, core.track_set_dispatch

-- clip info -> its marker table
local marks_of = setmetatable({}, { __mode = "k" })

local function marks(info)
  local m = marks_of[info]
  if m then return m end
  m = {}
  for k, mk in ipairs(info.markers or {}) do m[2 * k - 1], m[2 * k] = mk.name, mk.value end
  marks_of[info] = m
  return m
end

-- Gives `track` (a clip's track) its clip's marker table; nothing for a
-- clip without markers.  (A track whose clip was finalized by hand
-- delivers nothing more.)
function M.marks(track)
  local ok, info = pcall(clip_info, track_uv(track, 1))
  local m = ok and info.markers and #info.markers > 0 and marks(info) or nil
  set_uv(track, 5, m)
end

-- name -> fn -> { [name] = fn }: the shared tables of one callback.  Weak
-- both ways (5.1 and LuaJIT have no ephemerons: a table kept by a weak key
-- that refers to its key would keep it for good): an entry lives while a
-- track holds its table.  At most NAMES names are kept (a script may
-- connect any number of them): past that the cache starts again, and only
-- the sharing of tables made before is lost.
local single, names, NAMES = {}, 0, 1024

-- The callbacks of a list of connections as the delivery from C calls
-- them: the function of the only connection, the list when there are
-- several, nil when none (lists are replaced, never changed in place: a
-- list kept here is the list of the moment).  The animator's on_marker,
-- on_event and on_sound go to it so too (animator.lua's sync).
local function callbacks(list)
  local n = list and #list or 0
  if n == 0 then return nil end
  if n == 1 then return list[1].fn end
  return list
end
M.callbacks = callbacks

-- The marker callbacks of `track` (cbs: its callbacks table) changed.
function M.update(track, cbs)
  local by, n, one_name, one = {}, 0, nil, nil
  for name, list in pairs(cbs.marker or {}) do
    local f = callbacks(list)
    if f ~= nil then by[name], n, one_name, one = f, n + 1, name, f end
  end
  if n == 0 then
    by = nil
  elseif n == 1 and type(one) == "function" then
    local of_name = single[one_name]
    if not of_name then
      if names >= NAMES then single, names = {}, 0 end
      of_name = setmetatable({}, { __mode = "kv" })
      single[one_name], names = of_name, names + 1
    end
    by = of_name[one] or by
    of_name[one] = by
  end
  set_uv(track, 4, by)
end

return M
