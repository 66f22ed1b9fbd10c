-- bind.lua: which rig joint each clip joint plays on, and how its turns are
-- carried across (SEMANTICS 8).  Computed once per (clip, rig, map) and
-- cached; the C core only applies the result.
--
-- Resolution, first that answers: the track's retarget map, the clip's
-- `retarget` field, the rig joint of the same name, a guess from the name
-- (unique matches only, both ways, among rig joints no earlier rule took).  An empty
-- name keeps the joint still.  Masks match the clip or the rig name.
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local rigmod = require "anim.format.rig"

local M = {}
local Q = require "anim.base.quat"
local suggest = require "anim.base.suggest"
local qmul, qinv = Q.mul, Q.inverse

-- Name guessing -----------------------------------------------------------------

local SIDES = { left = "L", l = "L", right = "R", r = "R" }
local SYNONYMS = { body = "torso", chest = "torso", upperbody = "torso" }

-- Words of a name: split at separators and lower-to-upper case changes.
local function words(name)
  local out = {}
  local spaced = name:gsub("(%l)(%u)", "%1 %2"):gsub("(%d)(%a)", "%1 %2")
  for w in spaced:gmatch("[^%s%-_%.:]+") do out[#out + 1] = w:lower() end
  return out
end

-- The key a name is guessed by: a side (from a left/right/l/r word at the
-- start or the end) and the rest of the words run together, lower case.
-- A name in one case throughout ("leftarm", "RIGHTLEG") has no word
-- boundaries to find: a leading or trailing "left"/"right" is its side.
function M.guess_key(name)
  local w = words(name)
  local side = ""
  if #w > 1 and SIDES[w[1]] then side = SIDES[table.remove(w, 1)]
  elseif #w > 1 and SIDES[w[#w]] then side = SIDES[table.remove(w)] end
  local core_name = table.concat(w)
  if side == "" then
    for _, s in ipairs { "left", "right" } do
      if #core_name > #s and core_name:sub(1, #s) == s then
        side, core_name = SIDES[s], core_name:sub(#s + 1)
        break
      elseif #core_name > #s and core_name:sub(-#s) == s then
        side, core_name = SIDES[s], core_name:sub(1, -#s - 1)
        break
      end
    end
  end
  core_name = SYNONYMS[core_name] or core_name
  return side .. ":" .. core_name
end

-- (each name's key made once: the glTF export resolves every clip on its
-- node tree several times, the rig's joints and the clip's each time;
-- a few thousand names kept at most)
local guessed, nguessed = {}, 0
local function guess(name)
  local k = guessed[name]
  if not k then
    k = M.guess_key(name)
    if nguessed >= 4096 then guessed, nguessed = {}, 0 end
    guessed[name], nguessed = k, nguessed + 1
  end
  return k
end

-- Rests ---------------------------------------------------------------------------

-- Rig-space rest rotations of a clip skeleton (composed down its parents).
local function skeleton_rests(skeleton)
  local out = {}
  local function rest(name, depth)
    if out[name] then return out[name] end
    local j = skeleton[name]
    local r = j.rotation and rigmod.rest_quat(j.rotation, "skeleton") or { 0, 0, 0, 1 }
    if j.parent and depth < 10000 then r = qmul(rest(j.parent, depth + 1), r) end
    out[name] = r
    return r
  end
  for name in pairs(skeleton) do rest(name, 0) end
  return out
end

-- Resolution ------------------------------------------------------------------------

-- For each clip joint: { joint = rig joint name or nil, by = how }.
function M.resolve(clip, rig, map)
  local info = core.clip_info(clip)
  local rinfo = core.rig_info(rig)
  local mj = map and core.retarget_info(map).joints or {}
  local field = info.retarget or {}
  local out, taken = {}, {}
  local pending = {}
  for _, name in ipairs(info.joints) do
    local e = mj[name]
    if e then
      out[name] = { joint = e.to ~= "" and e.to or nil, by = "map", entry = e }
    elseif field[name] then
      out[name] = { joint = field[name] ~= "" and field[name] or nil, by = "field" }
    elseif rinfo.index[name] then
      out[name] = { joint = name, by = "same name" }
    else
      pending[#pending + 1] = name
    end
    if out[name] and out[name].joint then
      if not rinfo.index[out[name].joint] then out[name] = { by = "unmatched", wanted = out[name].joint, was = out[name].by } end
    end
    if out[name] and out[name].joint then taken[out[name].joint] = true end
  end
  -- guesses among the rig joints nobody took
  local keys = {}
  for _, j in ipairs(rinfo.joints) do
    if not taken[j.name] then
      local k = guess(j.name)
      if keys[k] == nil then keys[k] = j.name else keys[k] = false end -- false: ambiguous
    end
  end
  -- a guess must be unique both ways: one rig joint for the clip joint,
  -- and no other clip joint guessing the same rig joint
  local claims = {}
  for _, name in ipairs(pending) do
    local hit = keys[guess(name)]
    if hit then claims[hit] = (claims[hit] or 0) + 1 end
  end
  for _, name in ipairs(pending) do
    local hit = keys[guess(name)]
    if hit and claims[hit] == 1 then out[name] = { joint = hit, by = "guess" }
    else out[name] = { by = "unmatched" } end
  end
  return out
end

-- The clip joints that play on no rig joint though nothing asked for
-- that (a map or the clip's retarget field keeping a joint off with ""
-- is asked for): { { joint = clip joint, wanted = the rig joint a map or
-- the field named, if one did, suggestion = the closest rig joint name or
-- nil }, ... } in the clip's joint order.
function M.unmatched(clip, rig, map)
  local info = core.clip_info(clip)
  local rinfo = core.rig_info(rig)
  local resolved = M.resolve(clip, rig, map)
  local out = {}
  -- (one search budget for all: 4,096 joints against a rig of 65,536 were
  -- 268 million names looked at; 1,000 against 1,000 took 12.6 s)
  local names, budget = nil, { cells = suggest.MAX_CELLS }
  for _, name in ipairs(info.joints) do
    local r = resolved[name]
    if r.by == "unmatched" then
      names = names or suggest.prepare(rinfo.names)
      out[#out + 1] = { joint = name, wanted = r.wanted, suggestion = suggest.closest(r.wanted or name, names, budget) }
    end
  end
  return out
end

local function compute(clip, rig, map)
  -- (noted in the list: the core refuses bindings made for content the
  -- clip no longer has, which a finalizer run while they are made or
  -- used may reload: csrc/lua/lua_helpers.h, anim_lua_checkbindings)
  local gen = core.clip_reloads(clip)
  local info = core.clip_info(clip)
  local rinfo = core.rig_info(rig)
  local resolved = M.resolve(clip, rig, map)
  local scale = map and core.retarget_info(map).scale or 1
  local srests = info.skeleton and skeleton_rests(info.skeleton) or {}
  local mask
  if info.mask then
    mask = {}
    for _, n in ipairs(info.mask) do mask[n] = true end
  end
  local out = {}
  for cj, name in ipairs(info.joints) do
    local r = resolved[name]
    local rj = r.joint and rinfo.index[r.joint]
    if rj and (not mask or mask[name] or mask[r.joint]) then
      local b = { cj = cj, rj = rj }
      if scale ~= 1 then b.pscale = scale end
      local entry = r.entry or {}
      -- an absolute clip sets the joint's local transform: no rest to carry
      -- its turns across (the animator makes them offsets from the rig's)
      local S = not info.absolute and (entry.source or srests[name])
      if S then
        local T = entry.target or rinfo.joints[rj].rig_rotation
        b.pre = qmul(qinv(T), S)  -- T^-1 S R S^-1 T
        b.post = qmul(qinv(S), T)
      end
      out[#out + 1] = b
    end
  end
  out.gen = gen
  return out
end

-- Cache: clip -> rig -> map (or the clip itself for none) -> bindings.
local cache = setmetatable({}, { __mode = "k" })
function M.get(clip, rig, map)
  local per = cache[clip]
  if not per then
    per = setmetatable({}, { __mode = "k" })
    cache[clip] = per
  end
  local per_rig = per[rig]
  if not per_rig then
    per_rig = setmetatable({}, { __mode = "k" })
    per[rig] = per_rig
  end
  local k = map or clip
  local b = per_rig[k]
  if not b or b.gen ~= core.clip_reloads(clip) then
    b = compute(clip, rig, map)
    per_rig[k] = b
  end
  return b
end

-- Forgets what was computed for `clip` (its content was replaced: a hot reload).
function M.forget(clip) cache[clip] = nil end

return M
