-- bind.lua: which rig joint each clip joint plays on, computed once per
-- (clip, rig) and cached.  A clip joint plays on the rig joint of the same
-- name; joints outside the clip's mask (by clip or rig name) play on none.
local core = require "anim.core"

local M = {}
local cache = setmetatable({}, { __mode = "k" }) -- clip -> rig -> bindings

local function compute(clip, rig)
  local info = core.clip_info(clip)
  local rindex = core.rig_info(rig).index
  local mask
  if info.mask then
    mask = {}
    for _, n in ipairs(info.mask) do mask[n] = true end
  end
  local out = {}
  for cj, name in ipairs(info.joints) do
    local rj = rindex[name]
    if rj and (not mask or mask[name]) then
      out[#out + 1] = { cj = cj, rj = rj }
    end
  end
  return out
end

function M.get(clip, rig)
  local per = cache[clip]
  if not per then
    per = setmetatable({}, { __mode = "k" })
    cache[clip] = per
  end
  local b = per[rig]
  if not b then
    b = compute(clip, rig)
    per[rig] = b
  end
  return b
end

return M
