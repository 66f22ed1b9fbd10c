-- playing.lua: what the runtime knows of the tracks in play, for a hot
-- reload (runtime/reload.lua): which tracks play each clip, with the
-- retarget map each was played with, and for the track of a blend space
-- which of its points play the clip (whether callbacks are being
-- delivered, when a reload would change the clip under the callbacks
-- still to come, is core.delivering()).  Weak tables: a track and its
-- clip are collected as if nothing here held them.
local M = {}

local by_clip = setmetatable({}, { __mode = "k" })

local function set_of(clip)
  local set = by_clip[clip]
  if not set then
    set = setmetatable({}, { __mode = "k" })
    by_clip[clip] = set
  end
  return set
end

-- A track of `clip` was started, with retarget map `map` (or nil).  (The
-- entries are only read: the tracks played without a map share one.)
local ONE = { 1 }
local PLAIN = { map = false, points = ONE }
function M.note(clip, track, map)
  set_of(clip)[track] = map and { map = map, points = ONE } or PLAIN
end

-- The entries a track of blend space `clips` (its points' clips, in
-- order) played with `map` (or nil) gets: { set, entry, ... }, each clip's
-- set and its entry, the points that hold the clip.
local function space_entries(clips, map)
  local out, noted = {}, {}
  for i, c in ipairs(clips) do
    local entry = noted[c]
    if not entry then
      entry = { map = map or false, points = {} }
      noted[c] = entry
      out[#out + 1], out[#out + 2] = set_of(c), entry
    end
    entry.points[#entry.points + 1] = i
  end
  return out
end

-- What M.note (clip, no map) or M.note_space (clips, no map) of a track
-- would set, made once: { set, entry, ... }, each set[track] = entry
-- (csrc/lua/lua_graph.c's controller_adopt notes a state machine's tracks
-- so, in C).
function M.notes(clip, space_clips)
  if not space_clips then return { set_of(clip), PLAIN } end
  return space_entries(space_clips, nil)
end

-- A track of blend space `clips` (its points' clips, in order) was
-- started, with retarget map `map` (or nil): each clip is played by the
-- points that hold it.
function M.note_space(clips, track, map)
  local list = space_entries(clips, map)
  for k = 1, #list, 2 do list[k][track] = list[k + 1] end
end

-- The tracks that were started on `clip`: { [track] = { map = map or
-- false, points = { point, ... } } } (a clip's track: its point 1).
function M.tracks(clip) return by_clip[clip] or {} end

-- The retarget map `track` plays `clip` with, or nil.
function M.map(clip, track)
  local set = by_clip[clip]
  local entry = set and set[track]
  return entry and entry.map or nil
end

return M
