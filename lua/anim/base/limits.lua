-- limits.lua: the limits every reader of files applies (docs/robustness.md).
--
-- They bound what a file can make the module allocate and how much work it
-- can make a frame do, whatever the numbers in it claim.  The readers look
-- them up at each call, so a host changes them with anim.set_limits{...}
-- (which returns the previous values, to restore them later) and reads them
-- through anim.limits (read-only).
require("anim.base.luajit").no_traversal_traces()
local args = require "anim.base.args"
local compat = require "anim.base.compat"
local suggest = require "anim.base.suggest"
local E = require "anim.base.errors"
local byteorder = require "anim.base.order"

local M = {}

-- name -> { default, hard maximum, what it bounds (for messages and docs) }
local SPEC = {
  bytes = { 16 * 1024 * 1024, 2 ^ 31 - 1, "bytes in a file or text read" },
  depth = { 128, 1000, "levels of nesting of JSON arrays and objects or XML elements" },
  keys = { 1000000, 100000000, "keys in a clip (all channels, a compressed one's too) and envelope points" },
  strings = { 65536, 2 ^ 31 - 1, "bytes in any string of a clip or map (names, values, payloads)" },
  joints = { 4096, 65536, "joints of a clip, of its skeleton or of a retarget map" },
  vertices = { 1000000, 100000000, "vertices of a 2D skeleton's import: its attachments' (meshes, bounding boxes, "
    .. "clippings, paths) and its deform keys' (a key of a mesh of n vertices counting n)" },
  items = { 10000, 1000000, "timed items of a clip: markers, events, sounds and plays together" },
  modifiers = { 4096, 1000000, "curve modifiers of a clip" },
  animations = { 4096, 1000000, "animations imported from one Blockbench or Bedrock file" },
  bake_samples = { 250000, 1000000000, "evaluations of a curve baking may make for one imported file" },
  molang_work = { 40000000, 10000000000, "steps of Molang evaluation (operations, loop iterations) for one imported file" },
  state_entries = { 10000, 1000000, "tracks (a blend space's points too), properties, overrides and constraints of a state animator:restore reads" },
}
M.SPEC = SPEC

-- The values in force: readers index this table at each call.
local current = {}
for k, s in pairs(SPEC) do current[k] = s[1] end
M.current = current
-- Counts the calls of set: what a file was refused for under limits since
-- changed is worth reading again (a library's failures).
M.generation = 0

local function names()
  local list = {}
  for k in pairs(SPEC) do list[#list + 1] = k end
  byteorder.sort(list)
  return list
end

-- A copy of the values in force (a plain table: anim.set_limits accepts it).
function M.get()
  local out = {}
  for k, v in pairs(current) do out[k] = v end
  return out
end

-- anim.set_limits(t) -> the previous values.  Every field of t must name a
-- limit and be a whole number from 1 to that limit's hard maximum; nil
-- leaves a limit as it is.  Nothing changes unless every value is valid.
function M.set(t)
  if type(t) ~= "table" then
    args.error(1, "set_limits", "table expected, got " .. type(t))
  end
  -- (raw: no __pairs of the caller's decides what is set)
  for k, v in next, t do
    local s = SPEC[k]
    if not s then
      local hint = suggest.hint(k, names())
      args.error(1, "set_limits", string.format("unknown limit '%s'%s", E.shown(k),
        hint ~= "" and hint or "; the limits are " .. table.concat(names(), ", ")))
    end
    if compat.mtype(v) ~= "integer" and not (type(v) == "number" and v % 1 == 0 and v == v) then
      args.error(1, "set_limits", string.format("%s must be a whole number, got %s",
        k, type(v) == "number" and compat.numtext("%.14g", v) or type(v)))
    end
    if v < 1 or v > s[2] then
      args.error(1, "set_limits", string.format("%s must be from 1 to %d, got %s",
        k, compat.tointeger(s[2]), compat.numtext("%.14g", v)))
    end
  end
  local old = M.get()
  for k, v in next, t do current[k] = compat.tointeger(v) end
  M.generation = M.generation + 1
  return old
end

-- The read-only view published as anim.limits.
M.view = setmetatable({}, {
  __index = function(_, k) return current[k] end,
  __newindex = function(_, k)
    args.raise("anim.limits is read-only (use anim.set_limits{ " .. E.shown(k) .. " = n })")
  end,
  __pairs = function()
    return function(_, k)
      local nk = next(current, k)
      return nk, current[nk]
    end, nil, nil
  end,
})

return M
