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
local K = require "anim.export.gltf.keys"
local N = require "anim.export.gltf.nodes"
local S = require "anim.export.gltf.sample"

local M = {}

local SLOT, I = codes.slot, codes.interp
local INTERP_MASK = codes.keybyte.interp_mask
local CHANNELS = { "position", "rotation", "scale" }
local CH_FLAG = { position = codes.channel.position, rotation = codes.channel.rotation, scale = codes.channel.scale }

-- The dense runs of a channel in the clip's table: each run a list of
-- keys a .. b of it whose segments are all linear (no easing), [t, [x, y, z]]
-- (or a quaternion) as the core holds them, dense (reduce.lua's rule) on
-- its own.  A channel of such keys alone is one run, all of it reduced
-- (its ends included: placed off the curve, rounded); in a channel that
-- also holds other keys (an importer's bake of Molang between hand-keyed
-- easings), a run keeps its two ends as they are (each also ends or starts
-- a curve of another kind) and only the keys between them are cut.
-- Returns { { times, vals, a, b, whole } ... } and the value's arity, or nil.
local function dense_runs(list, c, cj, ch)
  if type(list) ~= "table" or #list < 3 then return nil end
  local t, _, ie, _, kar = core.clip_keys(c, cj, SLOT[ch])
  if not t or #t ~= #list or not (kar == 3 or (ch == "rotation" and kar == 4)) then return nil end
  local n = #list
  -- plain[i]: key i is [t, value] of kar numbers, at the core's time;
  -- linear[i]: its segment to key i + 1 is a plain lerp (slerp)
  local plain, linear = {}, {}
  for i, k in ipairs(list) do
    if type(k) ~= "table" or k[1] ~= t[i] then return nil end
    plain[i] = #k == 2 and type(k[2]) == "table" and #k[2] == kar
    linear[i] = i < n and K.is_line(ie[i])
  end
  -- a Catmull-Rom segment i .. i + 1 is bent by keys i - 1 and i + 2
  -- (SEMANTICS 6): they end runs, as they are
  for i = 1, n - 1 do
    if compat.band(ie[i], INTERP_MASK) == I.catmullrom then
      if i > 1 then plain[i - 1] = false end
      if i + 2 <= n then plain[i + 2] = false end
    end
  end
  local runs, a = {}, 1
  while a < n do
    -- a run: from a key whose segment is linear, through plain linear keys,
    -- to the first key that is not (or the last)
    local b = a
    if linear[a] and type(list[a][2]) == "table" and #list[a][2] == kar then
      b = a + 1
      while b < n and plain[b] and linear[b] do b = b + 1 end
      if type(list[b][2]) ~= "table" or #list[b][2] ~= kar then b = b - 1 end
    end
    if b - a >= 2 then
      local times, vals = {}, {}
      for i = a, b do times[#times + 1], vals[#vals + 1] = list[i][1], list[i][2] end
      local whole = a == 1 and b == n and plain[a] and plain[b]
      if R.dense(times) then runs[#runs + 1] = { times = times, vals = vals, a = a, b = b, whole = whole } end
    end
    a = math.max(b, a + 1)
  end
  if #runs == 0 then return nil end
  return runs, kar
end

-- The dense runs of each clip joint's channels (dense[cj]: a list of each
-- channel's runs), or nil when there is none.
local function dense_of(c, info, src)
  local dense, any = {}, false
  for cj, jname in ipairs(info.joints) do
    local sj = src.joints[jname]
    local mods = type(sj) == "table" and sj.modifiers
    if type(sj) == "table" and sj.muted ~= true and (type(mods) ~= "table" or next(mods) == nil) then
      local found = {}
      for _, ch in ipairs(CHANNELS) do
        local runs, kar = dense_runs(sj[ch], c, cj, ch)
        if runs then
          for _, r in ipairs(runs) do r.ch, r.kar = ch, kar end
          found[#found + 1], any = runs, true
        end
      end
      dense[cj] = found
    end
  end
  return any and dense or nil
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

-- (building a clip moves the keys of its table into the core, leaving
-- placeholders in its joint tables (format/keys.lua): table_of, below,
-- gives each build joint tables of its own and shares the rest, which
-- nothing changes, as a clip's rebuilt source does)
local function build(tab, name)
  local ok, c = pcall(clipmod.build, tab, name, true)
  if not ok then error(E.is_failure(c) and E.message(name, c) or c, 0) end
  return c
end

-- The keys of one run as kept: its ci's keys, to the decimals that a
-- sixteenth of the channel's tolerance needs (the text is shorter; the
-- measure sees the values rounded), a fixed run's ends as they were;
-- appended to keys from its from-th (2 when its first key ended the
-- run before)
-- (counted, not math.log(x, 10): Lua 5.1 has no base argument)
-- (made: the keys made once for each choice k, by k (the rounds of the
-- search measure a channel's choice again while another's changes; a
-- choice is one channel's, whose tolerance R.reduce sets once))
local function run_into(made, keys, list, ch, k, from)
  local m = made[k]
  if not m then
    local places = 0
    while places < 15 and 10 ^ -places > ch.tol / 16 do places = places + 1 end
    local fmt = "%." .. places .. "f"
    local fv, last = k.vals, #k
    m = {}
    for n = 1, last do
      local key = list[ch.a + k[n] - 1]
      if ch.fixed and (n == 1 or n == last) then
        m[n] = key
      else
        local v = {}
        for a, x in ipairs(fv and fv[n] or key[2]) do v[a] = tonumber(fmt:format(x)) end
        m[n] = { key[1], v }
      end
    end
    made[k] = m
  end
  for n = from, #m do keys[#keys + 1] = m[n] end
end

-- The clip's table with the channels cut to the keys kept
-- (only: nil, or the set of the joints wanted, by name: the others left out)
local function table_of(src, chans, made, kept, only)
  local out, joints = {}, {}
  for k, v in pairs(src) do out[k] = v end
  for k, v in pairs(src.joints) do
    if not only or only[k] then
      local j = {}
      for f, x in pairs(v) do j[f] = x end
      joints[k] = j
    end
  end
  out.joints, out.version = joints, 3
  -- (each channel's list once, from its runs: they follow each other in chans)
  local ci = 1
  while ci <= #chans do
    local ch = chans[ci]
    local last = ci
    while chans[last + 1] and chans[last + 1].of == ch.of do last = last + 1 end
    local some = false
    for r = ci, last do some = some or kept[r] ~= nil end
    local j = joints[ch.joint]
    if some and j then
      local list, keys, at = src.joints[ch.joint][ch.ch], {}, 1
      for r = ci, last do
        local run = chans[r]
        for i = at, run.a - 1 do keys[#keys + 1] = list[i] end
        local from = run.a < at and 2 or 1
        if kept[r] then
          run_into(made, keys, list, run, kept[r], from)
        else
          for i = run.a + from - 1, run.b do keys[#keys + 1] = list[i] end
        end
        at = run.b + 1
      end
      for i = at, #list do keys[#keys + 1] = list[i] end
      j[ch.ch] = keys
    end
    ci = last + 1
  end
  return out
end

-- reduce(c, rig, options) -> clip, report | c (nothing dense).  rig: the
-- node tree's rig (nil: the clip's skeleton).  report: { before, after
-- (keys), error (the worst measured), bound, distance }, or { skipped =
-- why } when the clip was too large to measure (then c is returned).
function M.reduce(c, rig, options)
  local info = core.clip_info(c)
  if info.layout == "poses" then return c end
  -- (the clip's own table holds its keys in the core: the file's shape is
  -- what anim.table gives; read only, and every clip built of fresh joint
  -- tables: not copied, encode.table_shared)
  local src, why = encode.table_shared(c, { version = 3 })
  if not src then error(why, 0) end
  if type(src.joints) ~= "table" then return c end
  local name = info.name or "clip"
  -- the dense channels of each clip joint, found before the node tree is
  -- made: a clip with none is returned as it is (most of a file's clips:
  -- geo_npc's 22 have 4 with dense channels)
  local dense = dense_of(c, info, src)
  if not dense then return c end
  local tree = N.node_tree({ c }, rig)
  local tjoints = tree:joints()
  local rest = {}
  for i, j in ipairs(tjoints) do rest[i] = { t = j.translation, r = j.rotation, s = j.scale } end
  local binds = bind.get(c, tree)
  local chans = {}
  for _, b in ipairs(binds) do
    for _, runs in ipairs(dense[b.cj] or {}) do
      -- (the runs of one channel share its part of the error: `of`)
      for _, d in ipairs(runs) do
        local ch, kar = d.ch, d.kar
        local kind = ch == "rotation" and (kar == 3 and "euler" or "rotation") or ch
        chans[#chans + 1] = { j = b.rj, kind = kind, times = d.times, vals = d.vals, unit = 1 / (b.pscale or 1),
          joint = info.joints[b.cj], ch = ch, of = runs, a = d.a, b = d.b, fixed = not d.whole }
      end
    end
  end
  if #chans == 0 then return c end
  local err, distance = R.bound(tjoints, options)
  local made = setmetatable({}, { __mode = "k" })
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
    local c2 = build(table_of(src, chans, made, kept, only), name)
    return local_of(c2, bind.get(c2, tree), rest)
  end
  local kept, worst = R.reduce(tjoints, chans, localA, apply, info.length, err, distance)
  if not kept then return c, { skipped = worst } end
  local before, after = 0, 0
  for ci, ch in ipairs(chans) do
    before = before + #ch.times
    after = after + (kept[ci] and #kept[ci] or #ch.times)
  end
  return build(table_of(src, chans, made, kept), name), { before = before, after = after, error = worst, bound = err, distance = distance }
end

M.local_of = local_of

return M
