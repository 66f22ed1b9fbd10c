-- playing.lua: what the runtime knows of the tracks in play, for a hot
-- reload (runtime/reload.lua): which tracks play each clip, with the
-- retarget map each was played with (whether callbacks are being
-- delivered, when a reload would change the clip under the callbacks
-- still to come, is core.delivering()).  Weak tables: a track and its
-- clip are collected as if nothing here held them.
local M = {}

local by_clip = setmetatable({}, { __mode = "k" })

-- A track of `clip` was started, with retarget map `map` (or nil).
function M.note(clip, track, map)
  local set = by_clip[clip]
  if not set then
    set = setmetatable({}, { __mode = "k" })
    by_clip[clip] = set
  end
  set[track] = map or false
end

-- The tracks that were started on `clip`: { [track] = map or false }.
function M.tracks(clip) return by_clip[clip] or {} end

return M
