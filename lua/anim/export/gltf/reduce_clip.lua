-- export/gltf/reduce_clip.lua: the .anim side of keyframe reduction (issue 41):
-- a clip whose dense channels (linear keys, many a second: an importer's
-- bake of Molang or of easings) are cut to the fewest of their keys within
-- the model-space bound of export/gltf/reduce.lua, measured on the node tree
-- `anim convert` writes glTF on (the clip's skeleton, else the player rig).
-- Every other part of the clip's table (sparse channels, markers, events,
-- sounds, plays, property channels, unknown fields) is kept as it is.
require("anim.base.luajit").no_traversal_traces()
local compat = require "anim.base.compat"
local core = require "anim.core"
local codes = require "anim.base.codes"
local clipmod = require "anim.format.clip"
local encode = require "anim.format.encode"
local bind = require "anim.format.bind"
local E = require "anim.base.errors"
local R = require "anim.export.gltf.reduce"
local N = require "anim.export.gltf.nodes"
local S = require "anim.export.gltf.sample"

local M = {}

local SLOT, I = codes.slot, codes.interp
local INTERP_MASK, EASE_MASK = codes.keybyte.interp_mask, codes.keybyte.ease_mask
local CHANNELS = { "position", "rotation", "scale" }
local CH_FLAG = { position = codes.channel.position, rotation = codes.channel.rotation, scale = codes.channel.scale }

-- The key list of a channel in the clip's table when it is dense: every
-- key [t, [x, y, z]] (or a quaternion), linear, as the core holds them.
local function dense_keys(list, c, cj, ch)
  if type(list) ~= "table" or #list < 3 then return nil end
  local t, _, ie, _, kar = core.clip_keys(c, cj, SLOT[ch])
  if not t or #t ~= #list or not (kar == 3 or (ch == "rotation" and kar == 4)) then return nil end
  local times = {}
  for i, k in ipairs(list) do
    if type(k) ~= "table" or #k ~= 2 or type(k[2]) ~= "table" or #k[2] ~= kar or k[1] ~= t[i] then return nil end
    if i < #list and (compat.band(ie[i], INTERP_MASK) ~= I.linear or compat.band(ie[i], EASE_MASK) ~= 0) then return nil end
    times[i] = k[1]
  end
  if not R.dense(times) then return nil end
  local vals = {}
  for i, k in ipairs(list) do vals[i] = k[2] end
  return times, vals, kar
end

-- The local transform of every node of the tree for clip c: localf(i, t),
-- what sample.lua's `played` gives (played_into: the same arithmetic),
-- into tables kept per node: valid until the next call for that node (the
-- measure uses them at once).  The clip's `absolute` is read once.
local function local_of(c, binds, rest)
  local absolute = c.absolute
  local sample, band, into = core.clip_sample_joint, compat.band, S.played_into
  local FP, FR, FS = CH_FLAG.position, CH_FLAG.rotation, CH_FLAG.scale
  local on, outs = {}, {}
  for _, b in ipairs(binds) do
    on[b.rj] = b
    outs[b.rj] = { {}, {}, {} }
  end
  local function localf(i, t)
    local r = rest[i]
    local b = on[i]
    if not b then return r.t, r.r, r.s end
    local o = outs[i]
    local tr, q, sc = r.t, r.r, r.s
    local f, p1, p2, p3, x, y, z, w, s1, s2, s3 = sample(c, b.cj, t)
    if band(f, FP) ~= 0 then tr = into(o[1], absolute, b, r, 1, f, p1, p2, p3, x, y, z, w, s1, s2, s3) end
    if band(f, FR) ~= 0 then q = into(o[2], absolute, b, r, 2, f, p1, p2, p3, x, y, z, w, s1, s2, s3) end
    if band(f, FS) ~= 0 then sc = into(o[3], absolute, b, r, 3, f, p1, p2, p3, x, y, z, w, s1, s2, s3) end
    return tr, q, sc
  end
  -- (the measure in C plays the same: reduce.lua's native, when every
  -- rest is numbers)
  local flat = R.flat_rest(rest)
  if not flat then return localf end
  return R.native(localf, { clip = c, binds = binds, absolute = absolute, rest = flat, n = #rest })
end

-- (a fresh copy each time: building a clip moves the keys of its table
-- into the core, leaving placeholders in the table)
local function build(tab, name)
  local ok, c = pcall(clipmod.build, clipmod.copy(tab), name, true)
  if not ok then error(E.is_failure(c) and E.message(name, c) or c, 0) end
  return c
end

-- reduce(c, rig, options) -> clip, report | c (nothing dense).  rig: the
-- node tree's rig (nil: the clip's skeleton).  report: { before, after
-- (keys), error (the worst measured), bound, distance }, or { skipped =
-- why } when the clip was too large to measure (then c is returned).
function M.reduce(c, rig, options)
  local info = core.clip_info(c)
  if info.layout == "poses" then return c end
  -- (the clip's own table holds its keys in the core: the file's shape is
  -- what anim.table gives; read only, and every clip built of a copy: not
  -- copied, encode.table_shared)
  local src, why = encode.table_shared(c, { version = 3 })
  if not src then error(why, 0) end
  if type(src.joints) ~= "table" then return c end
  local name = info.name or "clip"
  -- the dense channels of each clip joint, found before the node tree is
  -- made: a clip with none is returned as it is (most of a file's clips:
  -- geo_npc's 22 have 4 with dense channels)
  local dense, any = {}, false
  for cj, jname in ipairs(info.joints) do
    local sj = src.joints[jname]
    local mods = type(sj) == "table" and sj.modifiers
    if type(sj) == "table" and sj.muted ~= true and (type(mods) ~= "table" or next(mods) == nil) then
      local found = {}
      for _, ch in ipairs(CHANNELS) do
        local times, vals, kar = dense_keys(sj[ch], c, cj, ch)
        if times then found[#found + 1], any = { ch = ch, times = times, vals = vals, kar = kar }, true end
      end
      dense[cj] = found
    end
  end
  if not any then return c end
  local tree = N.node_tree({ c }, rig)
  local tjoints = tree:joints()
  local rest = {}
  for i, j in ipairs(tjoints) do rest[i] = { t = j.translation, r = j.rotation, s = j.scale } end
  local binds = bind.get(c, tree)
  local chans = {}
  for _, b in ipairs(binds) do
    for _, d in ipairs(dense[b.cj] or {}) do
      local ch, kar = d.ch, d.kar
      local kind = ch == "rotation" and (kar == 3 and "euler" or "rotation") or ch
      chans[#chans + 1] = { j = b.rj, kind = kind, times = d.times, vals = d.vals, unit = 1 / (b.pscale or 1),
        joint = info.joints[b.cj], ch = ch }
    end
  end
  if #chans == 0 then return c end
  local err, distance = R.bound(tjoints, options)
  -- the clip's table with the channels cut to the keys kept
  -- (only: nil, or the set of the joints wanted, by name: the others left out)
  local function table_of(kept, only)
    local out, joints = {}, {}
    for k, v in pairs(src) do out[k] = v end
    for k, v in pairs(src.joints) do
      if not only or only[k] then joints[k] = v end
    end
    out.joints, out.version = joints, 3
    for ci, ch in ipairs(chans) do
      if kept[ci] and joints[ch.joint] then
        local j = {}
        for k, v in pairs(joints[ch.joint]) do j[k] = v end
        local list, keys = src.joints[ch.joint][ch.ch], {}
        -- the values kept, to the decimals that a sixteenth of the
        -- channel's tolerance needs (the text is shorter; the measure
        -- sees the values rounded)
        -- (counted, not math.log(x, 10): Lua 5.1 has no base argument)
        local places = 0
        while places < 15 and 10 ^ -places > ch.tol / 16 do places = places + 1 end
        local fmt = "%." .. places .. "f"
        local fv = kept[ci].vals
        for n, k in ipairs(kept[ci]) do
          local v = {}
          for a, x in ipairs(fv and fv[n] or list[k][2]) do v[a] = tonumber(fmt:format(x)) end
          keys[n] = { list[k][1], v }
        end
        j[ch.ch] = keys
        joints[ch.joint] = j
      end
    end
    return out
  end
  local localA = local_of(c, binds, rest)
  -- (the clip built of the joints measured only: `dirty`, tree indices)
  local name_of = {}
  for _, b in ipairs(binds) do name_of[b.rj] = info.joints[b.cj] end
  local function apply(kept, dirty)
    local only
    if dirty then
      only = {}
      for i in pairs(dirty) do if name_of[i] then only[name_of[i]] = true end end
    end
    local c2 = build(table_of(kept, only), name)
    return local_of(c2, bind.get(c2, tree), rest)
  end
  local kept, worst = R.reduce(tjoints, chans, localA, apply, info.length, err, distance)
  if not kept then return c, { skipped = worst } end
  local before, after = 0, 0
  for ci, ch in ipairs(chans) do
    before = before + #ch.times
    after = after + (kept[ci] and #kept[ci] or #ch.times)
  end
  return build(table_of(kept), name), { before = before, after = after, error = worst, bound = err, distance = distance }
end

M.local_of = local_of

return M
