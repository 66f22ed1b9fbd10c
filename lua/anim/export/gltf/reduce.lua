-- export/gltf/reduce.lua: keyframe reduction of dense channels within an error
-- bound measured in model space (issue 41, "small exports"), for
-- anim.export_gltf and the .anim files of `anim convert`.
--
-- The bound is ozz-animation's and ACL's: the largest distance, in model
-- space, between where the original and the reduced clip put virtual points
-- at `distance` from every joint (the six points +-distance on each axis of
-- the joint's frame), so that a parent's error counts in its children.
-- Defaults: error 0.001 and distance 0.1 for a rig of human size in metres,
-- scaled by the rig's rest-pose extent over 1.7 (a Minecraft model in
-- pixels gets a bound to its size).
--
-- How: each dense channel is reduced on its own (reduce_curve.lua: a
-- greedy choice of its keys, linear or slerped between the keys kept, their
-- values placed off the samples when that keeps fewer) to a tolerance derived
-- from the hierarchy (the joint's share of the error, over the distance
-- from it to the farthest virtual point below it); the clip is then
-- measured in model space at every original key time and halfway between
-- (the dense keys' own step, halved); the channels of a joint whose points
-- stray beyond the bound, and of its parents, are reduced again at 0.7 times
-- the tolerance, up to ROUNDS times, after which they are kept as they were;
-- then the channels of joints well inside the bound are reduced again at a
-- looser tolerance, kept where the clip stays within it (loosen, below).
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local mat4 = require "anim.base.mat4"
local K = require "anim.export.gltf.keys"
local C = require "anim.export.gltf.reduce_curve"

local M = {}

M.ERROR, M.DISTANCE, M.HUMAN = 0.001, 0.1, 1.7
M.ROUNDS = 8
-- Loosening a group within the bound: passes at most, the room a joint's
-- points must have (its worst error and those below it at most ROOM times
-- the bound), the most a pass loosens by
M.LOOSEN, M.ROOM, M.LOOSER = 2, 0.7, 4
-- The factor of the first tolerance (1: the hierarchy's share, as the
-- exports start; anim.compress starts looser and tightens, export/gltf/compress.lua)
M.START = 1
M.MAX_WORK = 1000000 -- joints measured x times measured, at most (else nothing is reduced)
M.MIN_KEYS, M.MIN_RATE = 8, 10 -- a channel is dense from this many keys, most this many a second

local qnorm = K.qnorm
local abs, sqrt = math.abs, math.sqrt
-- (one channel's keys: reduce_curve.lua)
M.simplify, M.choose, M.evaluator = C.simplify, C.choose, C.evaluator

-- Is a channel of these key times dense: many keys (MIN_KEYS), most of
-- them close (the median step at most 1 / MIN_RATE s: a bake's steps, even
-- with gaps between the parts baked)?
function M.dense(times)
  local n = #times
  if n < M.MIN_KEYS then return false end
  local steps = {}
  for i = 2, n do steps[i - 1] = times[i] - times[i - 1] end
  table.sort(steps)
  return steps[math.floor(n / 2)] <= 1 / M.MIN_RATE + 1e-9
end

-- The tree ------------------------------------------------------------------------------

-- tjoints: { name, parent (a name), translation, rotation, scale }.
-- Returns parent indices, the rest world matrices, depth and height.
local function shape(tjoints)
  local index, parent, world = {}, {}, {}
  for i, j in ipairs(tjoints) do index[j.name] = i end
  for i, j in ipairs(tjoints) do parent[i] = j.parent and index[j.parent] or nil end
  local depth, height = {}, {}
  local function w(i)
    if world[i] then return world[i] end
    local j = tjoints[i]
    local m = mat4.trs(j.translation, qnorm(j.rotation), j.scale)
    if parent[i] then
      m = mat4.mul(w(parent[i]), m)
      depth[i] = depth[parent[i]] + 1
    else
      depth[i] = 0
    end
    world[i] = m
    return m
  end
  for i = 1, #tjoints do w(i) end
  for i = 1, #tjoints do height[i] = 0 end
  for i = 1, #tjoints do
    -- (each joint raises the heights of its parents)
    local h, p = 0, parent[i]
    while p do
      h = h + 1
      if height[p] < h then height[p] = h end
      p = parent[p]
    end
  end
  return parent, world, depth, height
end

-- The scale of the default bound: the rest pose's extent (the largest side
-- of the box around the joints' rest positions) over 1.7; 1 when the
-- joints are all at one point.
function M.scale_of(tjoints)
  local _, world = shape(tjoints)
  local lo, hi = { math.huge, math.huge, math.huge }, { -math.huge, -math.huge, -math.huge }
  for _, m in ipairs(world) do
    for a = 1, 3 do
      lo[a] = math.min(lo[a], m[12 + a]); hi[a] = math.max(hi[a], m[12 + a])
    end
  end
  local ext = 0
  for a = 1, 3 do if hi[a] > lo[a] then ext = math.max(ext, hi[a] - lo[a]) end end
  if ext <= 0 or ext ~= ext or ext == math.huge then return 1 end
  return ext / M.HUMAN
end

-- The bound: options.error and options.distance, or the defaults scaled
-- to the rig.
function M.bound(tjoints, options)
  local e, d = options and options.error, options and options.distance
  if e and d then return e, d end
  local k = M.scale_of(tjoints)
  return e or M.ERROR * k, d or M.DISTANCE * k
end

-- Model space -------------------------------------------------------------------------

-- The world matrix of a joint (T * R * S, column-major: three axes and
-- the origin, 12 numbers) from its local transform and its parent's world
-- matrix (nil at a root), into `m`.
local function world_into(m, pm, tr, q, s)
  local x, y, z, w = q[1], q[2], q[3], q[4]
  local n = sqrt(x * x + y * y + z * z + w * w)
  if n > 0 then x, y, z, w = x / n, y / n, z / n, w / n end
  local sx, sy, sz = s[1], s[2], s[3]
  local a1, a2, a3 = (1 - 2 * (y * y + z * z)) * sx, 2 * (x * y + z * w) * sx, 2 * (x * z - y * w) * sx
  local b1, b2, b3 = 2 * (x * y - z * w) * sy, (1 - 2 * (x * x + z * z)) * sy, 2 * (y * z + x * w) * sy
  local c1, c2, c3 = 2 * (x * z + y * w) * sz, 2 * (y * z - x * w) * sz, (1 - 2 * (x * x + y * y)) * sz
  local o1, o2, o3 = tr[1], tr[2], tr[3]
  if not pm then
    m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9], m[10], m[11], m[12] =
      a1, a2, a3, b1, b2, b3, c1, c2, c3, o1, o2, o3
    return m
  end
  local p1, p2, p3, p4, p5, p6, p7, p8, p9 = pm[1], pm[2], pm[3], pm[4], pm[5], pm[6], pm[7], pm[8], pm[9]
  m[1], m[2], m[3] = p1 * a1 + p4 * a2 + p7 * a3, p2 * a1 + p5 * a2 + p8 * a3, p3 * a1 + p6 * a2 + p9 * a3
  m[4], m[5], m[6] = p1 * b1 + p4 * b2 + p7 * b3, p2 * b1 + p5 * b2 + p8 * b3, p3 * b1 + p6 * b2 + p9 * b3
  m[7], m[8], m[9] = p1 * c1 + p4 * c2 + p7 * c3, p2 * c1 + p5 * c2 + p8 * c3, p3 * c1 + p6 * c2 + p9 * c3
  m[10] = p1 * o1 + p4 * o2 + p7 * o3 + pm[10]
  m[11] = p2 * o1 + p5 * o2 + p8 * o3 + pm[11]
  m[12] = p3 * o1 + p6 * o2 + p9 * o3 + pm[12]
  return m
end

-- The largest distance between the points +-d on each axis of a joint's
-- frame in world matrices a (flat: 12 numbers from offset o) and b.
local function point_error(a, o, b, d)
  local ox, oy, oz = a[o + 10] - b[10], a[o + 11] - b[11], a[o + 12] - b[12]
  local oo = ox * ox + oy * oy + oz * oz
  local worst = 0
  for ax = 0, 6, 3 do
    local cx = d * (a[o + ax + 1] - b[ax + 1])
    local cy = d * (a[o + ax + 2] - b[ax + 2])
    local cz = d * (a[o + ax + 3] - b[ax + 3])
    -- |o + c| or |o - c|, the larger: |o|^2 + |c|^2 + 2 |o . c|
    local e = oo + cx * cx + cy * cy + cz * cz + 2 * abs(ox * cx + oy * cy + oz * cz)
    if e > worst then worst = e end
  end
  return sqrt(worst)
end

-- The joints in an order that puts parents first.
local function parents_first(depth)
  local order = {}
  for i = 1, #depth do order[i] = i end
  table.sort(order, function(x, y) if depth[x] ~= depth[y] then return depth[x] < depth[y] end return x < y end)
  return order
end

-- The measure in C (csrc/core/measure.c: the same arithmetic as
-- world_into and point_error, and as sample.lua's played_into) for the
-- local transforms reduce_clip.lua's local_of makes: each such function ->
-- { clip, binds (bind.get's), absolute, rest (10 numbers a node), n,
-- chans (nil, or the glTF export's channels: core.measure_frames') }.
local native = setmetatable({}, { __mode = "k" })
function M.native(localf, desc)
  native[localf] = desc
  return localf
end

-- The rests { t, r, s } of the nodes as the C measure takes them: 10
-- numbers a node (translation, rotation, scale); nil when one is not a
-- number.
function M.flat_rest(rest)
  local flat = {}
  for i, r in ipairs(rest) do
    local o = (i - 1) * 10
    for a = 1, 3 do flat[o + a], flat[o + 7 + a] = r.t[a], r.s[a] end
    for a = 1, 4 do flat[o + 3 + a] = r.r[a] end
  end
  for k = 1, 10 * #rest do if type(flat[k]) ~= "number" then return nil end end
  return flat
end

-- The tree as core.measure_* take it, with the rests of desc.
local function native_tree(parent, desc)
  local p0 = {}
  for i = 1, desc.n do p0[i] = parent[i] or 0 end
  return { parent = p0, rest = desc.rest }
end

-- (the key of a frames table made in C: its userdata; the joints' lists
-- are made from it when a Lua localB asks for them)
local NATIVE = {}
local function native_frames(parent, desc, times, list, need)
  local needed = {}
  for _, i in ipairs(list) do if need[i] then needed[#needed + 1] = i end end
  local ud = core.measure_frames(native_tree(parent, desc), desc.clip, desc.binds, desc.absolute, times, list, needed,
    desc.chans)
  return setmetatable({ [NATIVE] = ud }, { __index = function(fa, i)
    if type(i) ~= "number" then return nil end
    local f = core.measure_frame(ud, i)
    rawset(fa, i, f)
    return f
  end })
end

-- The world matrices of localA at each time, for the joints `need`: flat
-- lists of 12 numbers a time (the three axes, then the origin).
local function frames(parent, order, localA, times, need)
  -- (the joints needed and those above them)
  local up = {}
  for i in pairs(need) do
    local p = i
    while p and not up[p] do up[p] = true; p = parent[p] end
  end
  local list = {}
  for _, i in ipairs(order) do if up[i] then list[#list + 1] = i end end
  if native[localA] then return native_frames(parent, native[localA], times, list, need) end
  local fa = {}
  for i in pairs(need) do fa[i] = {} end
  local w = {}
  for _, i in ipairs(list) do w[i] = {} end
  for k, t in ipairs(times) do
    for _, i in ipairs(list) do
      local tr, q, s = localA(i, t)
      local m = world_into(w[i], parent[i] and w[parent[i]], tr, q, s)
      local f = fa[i]
      if f then
        local o = (k - 1) * 12
        for x = 1, 12 do f[o + x] = m[x] end
      end
    end
  end
  return fa
end

-- The worst error of each joint of `dirty` (a set: joints whose frames in
-- localB may differ from localA's; every other joint is where fa has it).
-- each: nil, called with every error (joint, time's index, error), or a
-- list every error is appended to.
local function measure_dirty(parent, order, fa, localB, times, distance, dirty, per, each)
  local into = type(each) == "table" and each
  if into then each = nil end
  for i in pairs(dirty) do per[i] = 0 end
  local list, w = {}, {}
  for _, i in ipairs(order) do
    if dirty[i] then list[#list + 1] = i; w[i] = {} end
  end
  local ud, desc = rawget(fa, NATIVE), native[localB]
  if ud and desc then
    local errs = each and {} or into or nil
    core.measure_error(ud, native_tree(parent, desc), desc.clip, desc.binds, desc.absolute, list, distance, per, errs,
      desc.chans)
    if each then
      for k = 1, #times do
        for l, i in ipairs(list) do each(i, k, errs[(k - 1) * #list + l]) end
      end
    end
    return
  end
  local pm = {}
  for k, t in ipairs(times) do
    local o = (k - 1) * 12
    for _, i in ipairs(list) do
      local p = parent[i]
      local pw
      if p then
        pw = dirty[p] and w[p]
        if not pw then
          local f = fa[p]
          for x = 1, 12 do pm[x] = f[o + x] end
          pw = pm
        end
      end
      local tr, q, s = localB(i, t)
      local e = point_error(fa[i], o, world_into(w[i], pw, tr, q, s), distance)
      if e > per[i] then per[i] = e end
      if into then into[#into + 1] = e elseif each then each(i, k, e) end
    end
  end
end

-- The model-space error of localB against localA over the times: the
-- worst, and the worst of each joint; each (optional) is called with every
-- error (joint, time's index, error), or is a list they are appended to.  cache (optional): a table that
-- keeps localA's frames for the next call with the same localA and times.
function M.measure(tjoints, localA, localB, times, distance, each, cache)
  local all = {}
  for i = 1, #tjoints do all[i] = true end
  local parent, order, fa
  if cache and cache.localA == localA and cache.times == times then
    parent, order, fa = cache.parent, cache.order, cache.fa
  else
    local p, _, depth = shape(tjoints)
    parent, order = p, parents_first(depth)
    fa = frames(parent, order, localA, times, all)
    if cache then
      cache.localA, cache.times, cache.parent, cache.order, cache.fa = localA, times, parent, order, fa
    end
  end
  local per, worst = {}, 0
  measure_dirty(parent, order, fa, localB, times, distance, all, per, each)
  for i = 1, #tjoints do worst = math.max(worst, per[i]) end
  return worst, per
end

-- The times to measure at: every key time of the channels (in [0, L]),
-- halfway between two, and, unless jumps is false, just before a jump
-- (two keys of a channel at one time: the value arriving, where the one
-- leaving is at the time).  (anim.compress measures none there: its keys
-- are on ticks, a jump of the clip's within a hundredth of one of them,
-- and the nanosecond before the tick may be after the clip's jump.)
local function before(t) return t - 1e-9 * math.max(math.abs(t), 1) end

function M.sample_times(channels, L, jumps)
  jumps = jumps ~= false
  -- (in C when the times are numbers: keyreduce.c, the same times)
  local lists = {}
  for i, ch in ipairs(channels) do lists[i] = ch.times end
  local fast = core.keys_times(lists, L, jumps)
  if fast then return fast end
  local set, list = {}, {}
  local function add(t)
    if t >= 0 and t <= L and not set[t] then set[t] = true; list[#list + 1] = t end
  end
  for _, ch in ipairs(channels) do
    for j, t in ipairs(ch.times) do
      if jumps and j > 1 and ch.times[j - 1] == t then add(before(t)) end
      add(t)
    end
  end
  table.sort(list)
  local out = {}
  for i, t in ipairs(list) do
    out[#out + 1] = t
    if list[i + 1] then out[#out + 1] = (t + list[i + 1]) / 2 end
  end
  if #out == 0 then out[1] = 0 end
  return out
end

-- The driver -----------------------------------------------------------------------------

-- Are two choices of keys (M.choose's) the same keys with the same values?
local function same_keys(a, b)
  if not b or #a ~= #b or (a.vals == nil) ~= (b.vals == nil) then return false end
  for i = 1, #a do if a[i] ~= b[i] then return false end end
  if a.vals then
    for i, v in ipairs(a.vals) do
      local w = b.vals[i]
      for c = 1, #v do if v[c] ~= w[c] then return false end end
    end
  end
  return true
end

-- The channels of group g chosen again where their factor changed (or
-- written whole: frozen), and the joints they move measured: the group's
-- worst error.  S: reduce's state (below).
local function remeasure(S, g)
  local channels, kept, parent, order = S.channels, S.kept, S.parent, S.order
  local changed = S.force or {} -- (joints whose keys went back to earlier ones: loosen)
  S.force = nil
  for _, c in ipairs(g.cs) do
    local ch = channels[c]
    if S.frozen[c] then
      if kept[c] then changed[ch.j] = true end
      kept[c] = nil
    elseif not kept[c] or kept[c].factor ~= S.factor[c] then
      local k
      k, S.states[c] = C.choose(ch.times, ch.vals, S.tolerance(ch, S.factor[c]), ch.kind == "rotation", S.states[c],
        ch.round, ch.fixed)
      if not same_keys(k, kept[c]) then changed[ch.j] = true end
      kept[c] = k
      k.factor = S.factor[c]
    end
  end
  local dirty = {}
  for _, i in ipairs(order) do
    if changed[i] or (parent[i] and dirty[parent[i]]) then dirty[i] = true end
  end
  -- (and the moved joints above them: a joint's points are measured
  -- through its parents' frames as written, which an earlier round may
  -- have moved -- a joint loosened under a parent reduced before was
  -- measured as if its parent were exact)
  local above = {}
  for i in pairs(dirty) do
    local p = parent[i]
    while p and g.moved[p] and not dirty[p] and not above[p] do above[p] = true; p = parent[p] end
  end
  for i in pairs(above) do dirty[i] = true end
  if next(dirty) ~= nil then
    measure_dirty(parent, order, S.fa, S.apply(kept, dirty), g.times, S.distance, dirty, S.per)
  end
  local gworst = 0
  for i in pairs(g.moved) do gworst = math.max(gworst, S.per[i]) end
  return gworst
end

-- The joints of group g beyond the bound, and their parents (a set).
local function astray(S, g)
  local hit = {}
  for i in pairs(g.moved) do
    if S.per[i] > S.err then
      local p = i
      while p and not hit[p] do hit[p] = true; p = S.parent[p] end
    end
  end
  return hit
end

-- Group g chosen and measured, the channels of its joints astray (and of
-- their parents) tightened by 0.7 a round, up to ROUNDS times, then written
-- whole, and again those of the joints astray after that (a parent's
-- channels written whole can move a child's reduced ones off: no longer
-- measured, it stayed beyond the bound) until no more is written whole:
-- its worst error.
local function tighten(S, g)
  local round = 0
  while true do
    round = round + 1
    local gworst = remeasure(S, g)
    if gworst <= S.err then return gworst end
    local hit, more = astray(S, g), false
    for _, c in ipairs(g.cs) do
      if hit[S.channels[c].j] and not S.frozen[c] then
        if round >= S.rounds then S.frozen[c] = true else S.factor[c] = S.factor[c] * 0.7 end
        more = true
      end
    end
    if not more then return gworst end
  end
end

-- Group g within the bound (its worst error gworst) made smaller where it
-- has room: the channels of each joint whose points, and those of every
-- joint below it, are within ROOM of the bound get a looser tolerance (by
-- the room, LOOSER times at most), kept when the group stays within the
-- bound; else those of the joints that strayed (and of their parents) go
-- back, the rest kept if the group is then within the bound (else all go
-- back), and the next pass loosens by less.  LOOSEN passes at most: the
-- group's worst error.
local function loosen(S, g, gworst)
  local err, per, channels = S.err, S.per, S.channels
  local most = M.LOOSER
  for _ = 1, S.loosen do
    if most < 1.1 then break end
    local sub = {}
    for i in pairs(g.moved) do
      local p = i
      while p do
        if (sub[p] or 0) < per[i] then sub[p] = per[i] end
        p = S.parent[p]
      end
    end
    local was, saved, tried = {}, {}, 1
    for _, c in ipairs(g.cs) do
      local e = sub[channels[c].j] or 0 -- (nil: its points and those below it exact)
      if not S.frozen[c] and e <= M.ROOM * err then
        was[c] = { S.factor[c], S.kept[c] }
        local by = math.min(most, math.max(1.25, 0.9 * err / math.max(e, 1e-300)))
        S.factor[c], tried = S.factor[c] * by, math.max(tried, by)
      end
    end
    if next(was) == nil then break end
    for i in pairs(g.moved) do saved[i] = per[i] end
    local bytes = S.cost and S.cost(S.kept)
    local function back(which)
      S.force = S.force or {}
      for c, v in pairs(was) do
        if not which or which[channels[c].j] then
          S.factor[c], S.kept[c], was[c] = v[1], v[2], nil
          S.force[channels[c].j] = true
        end
      end
    end
    local w = remeasure(S, g)
    if w > err then
      back(astray(S, g))
      w = next(was) ~= nil and remeasure(S, g) or math.huge
    end
    -- (kept when smaller as written: glTF writes a sampler's times once for
    -- the channels that have the same, which a looser choice may part)
    if w <= err and not (bytes and S.cost(S.kept) >= bytes) then
      gworst = w
    else
      -- (every key as it was when `saved` was measured; the next pass looser by less)
      back()
      S.force = nil
      for i, e in pairs(saved) do per[i] = e end
      most = math.sqrt(tried)
    end
  end
  return gworst
end

-- Reduces channels { j (tree joint index), kind ("position", "rotation",
-- "scale", or "euler": degrees), times, vals, unit (tolerance factor: the
-- channel's values per rig unit; 1 when absent), slack (radians a rotation's
-- values may be off already: its tolerance is that much smaller), round
-- (optional: what a value placed off the samples becomes as written), fixed
-- (true: its first and last values stay the samples': none placed), of
-- (optional: channels of one `of` are runs of one channel, sharing its
-- part of the error) };
-- sets each one's tol (its first tolerance, in its own values).
-- apply(kept, dirty) gives localB for kept[c] (the key indices of channel c,
-- and kept[c].vals their values when placed off the samples, else nil: the
-- samples' own, vals[kept[c][n]]), asked only of the joints of `dirty` (a
-- set of tree indices); localA is the original; cost (optional) gives the
-- bytes kept would be written in (a looser choice that writes more is not
-- kept).  Returns kept and the worst error measured;
-- kept is nil (and the second result says why) when measuring would take
-- more than MAX_WORK joint poses a round (the channels are then written
-- whole).  tune (optional): { rounds, start, loosen, jumps } in place of
-- ROUNDS, START, LOOSEN and sample_times' jumps (anim.compress's levels),
-- and retime: a function of the list of times measured giving the list
-- measured instead (anim.compress: none inside a jump it moved).
function M.reduce(tjoints, channels, localA, apply, L, err, distance, cost, tune)
  tune = tune or {}
  local parent, world, depth, height = shape(tjoints)
  local n = #tjoints
  -- the farthest rest distance from each joint to a joint below it
  local reach = {}
  for i = 1, n do reach[i] = 0 end
  for i = 1, n do
    local p = parent[i]
    while p do
      local dx, dy, dz = world[i][13] - world[p][13], world[i][14] - world[p][14], world[i][15] - world[p][15]
      reach[p] = math.max(reach[p], math.sqrt(dx * dx + dy * dy + dz * dz))
      p = parent[p]
    end
  end
  -- (the channels of one joint share its part)
  -- (a channel's runs, one `of`, are one channel here)
  local on, seen = {}, {}
  for _, ch in ipairs(channels) do
    local id = ch.of or ch
    if not seen[id] then seen[id], on[ch.j] = true, (on[ch.j] or 0) + 1 end
  end
  local function tolerance(ch, factor)
    local j = ch.j
    local share = err / math.sqrt(depth[j] + height[j] + 1) / on[j] * factor
    local lever = distance + reach[j]
    if ch.kind == "position" then return share * (ch.unit or 1) end
    if ch.kind == "rotation" then return math.max(0, share / lever - (ch.slack or 0)) end
    if ch.kind == "euler" then return math.deg(share / lever) / 2 end
    return share / lever -- scale: relative
  end
  local factor, kept, frozen, states = {}, {}, {}, {}
  for c, ch in ipairs(channels) do
    factor[c] = tune.start or M.START
    ch.tol = tolerance(ch, 1) -- (apply may round the values kept to a fraction of it)
  end
  local order = parents_first(depth)
  -- the channels of each root's subtree are measured apart, each at its own
  -- channels' key times (joints of two subtrees never move each other)
  local root, groups, glist = {}, {}, {}
  for _, i in ipairs(order) do root[i] = parent[i] and root[parent[i]] or i end
  for c, ch in ipairs(channels) do
    local r = root[ch.j]
    if not groups[r] then groups[r] = {}; glist[#glist + 1] = r end
    groups[r][#groups[r] + 1] = c
  end
  table.sort(glist)
  local plan, work = {}, 0
  for gi, r in ipairs(glist) do
    local chs = {}
    for k, c in ipairs(groups[r]) do chs[k] = channels[c] end
    local times = M.sample_times(chs, L, tune.jumps)
    if tune.retime then times = tune.retime(times) end
    -- the joints reduction may move (a channel's joint and those below it),
    -- and their parents, whose frames in the original are kept
    local moved, need = {}, {}
    for _, ch in ipairs(chs) do moved[ch.j] = true end
    for _, i in ipairs(order) do
      if parent[i] and moved[parent[i]] then moved[i] = true end
    end
    local count = 0
    for i in pairs(moved) do
      count = count + 1
      need[i] = true
      if parent[i] then need[parent[i]] = true end
    end
    work = work + count * #times
    plan[gi] = { cs = groups[r], times = times, moved = moved, need = need }
  end
  if work > M.MAX_WORK then
    return nil, string.format("not reduced: measuring it would take %d joint poses a round (the most: %d)", work,
      M.MAX_WORK)
  end
  local per = {}
  for i = 1, n do per[i] = 0 end
  local S = { channels = channels, kept = kept, factor = factor, frozen = frozen, states = states, per = per,
    parent = parent, order = order, apply = apply, distance = distance, err = err, tolerance = tolerance, cost = cost,
    rounds = tune.rounds or M.ROUNDS, loosen = tune.loosen or M.LOOSEN }
  local worst = 0
  for _, g in ipairs(plan) do
    S.fa = frames(parent, order, localA, g.times, g.need)
    local gworst = tighten(S, g)
    if gworst <= err then gworst = loosen(S, g, gworst) end
    worst = math.max(worst, gworst)
  end
  return kept, worst
end

return M
