-- export/gltf/compress.lua: anim.compress (issue 41): a clip made a compressed
-- one within an error bound measured in model space -- the measure and the
-- keyframe reduction of the small exports (reduce.lua), whose family this
-- is -- stored in the core's pack (csrc/core/packed.h).
--
-- How (docs/performance.md, "Compressed clips", says it at length): key
-- times are 16-bit ticks (the clip's rate, else as fine as 16 bits allow
-- over the clip); each joint is sampled at a grid's frames and its keys'
-- times (two keys where a value jumps); identity channels take no bytes;
-- the rest is reduced to linear keys (reduce.reduce, from a few first
-- tolerances: the smallest pack within the bound), quantised at bits
-- chosen per channel over its range ("narrow": a rotation's three
-- components but the largest; or 32-bit floats: "wide"), each round
-- measuring the clip the core plays; joints still astray get more bits,
-- then are made wide, then the grid is made finer; last, ACL's search of
-- bit rates takes the bits the bound does not need.
require("anim.base.luajit").no_traversal_traces()
local compat = require "anim.base.compat"
local core = require "anim.core"
local codes = require "anim.base.codes"
local E = require "anim.base.errors"
local limits = require "anim.base.limits"
local rigmod = require "anim.format.rig"
local bind = require "anim.format.bind"
local encode = require "anim.format.encode"
local clipmod = require "anim.format.clip"
local animc = require "anim.format.animc"
local R = require "anim.export.gltf.reduce"
local RC = require "anim.export.gltf.reduce_clip"
local N = require "anim.export.gltf.nodes"
local Q = require "anim.export.gltf.compress_quant"
local K = require "anim.export.gltf.keys"
local J = require "anim.export.gltf.compress_jumps"

local M = {}

M.GRID = 20 -- samples a second at least (then twice as many, while the bound is not held)
M.MAX_FRAMES = 65536
M.MAX_RATE = 1e6 -- frames a second at most (the pack's: packed.h)
-- The largest size of a value a pack keeps: its keys are 32-bit floats
-- (or quantised over a range of them), so larger values are refused.
M.MAX_VALUE = 1e38
M.WIDEN = 3
-- Bits a component of a narrow channel: at least MIN_BITS, first the fewest
-- whose quantisation takes FRAC of the channel's tolerance (small: at half,
-- the quantisation's error made the reduction keep every sample of
-- geo_npc's Happy at the tight bound, 6,375 bytes against 1,071; the
-- search of bit rates, lower, then takes the bits the bound does not
-- need); BITS_UP more for a joint astray.
M.MIN_BITS, M.FRAC, M.BITS_UP = 4, 0.125, 4
-- The grid's doublings at most: it may get as fine as the 16-bit ticks
-- allow (M.MAX_FRAMES over the clip, which ends the doubling first); a
-- curve between keys -- Animated Java's catmull-rom Euler
-- channels at a tight bound -- may need thousands a second.
M.RATE_TRIES = 16
-- Three doublings of the grid that leave more than this cubed of the
-- worst error end them (a curve's error falls to about a quarter each).
M.GAIN = 0.4
-- reduce.lua's tightening rounds, and the first tolerances tried (times
-- the hierarchy's share: the smallest pack within the bound is kept)
-- (lower: the most measures of the search of bit rates, lower)
M.LEVELS = { fast = { rounds = 3, starts = { 1 }, lower = 20 }, best = { rounds = 8, starts = { 1, 4, 16 }, lower = 60 } }

local PK_IDENTITY, PK_NARROW, PK_WIDE = 1, 2, 3
local CH = { "position", "rotation", "scale" }
local SLOT = codes.slot
local ID = { { 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } }

local function bad(fmt, ...) return nil, "anim.compress: " .. string.format(fmt, ...) end
local KEYS_MAX = limits.SPEC.keys[2]

-- The options' values: nil, message when one is wrong.
local function check(options)
  local e, d, lv, rig = options.error, options.distance, options.level, options.rig
  if rig ~= nil and not rigmod.is_rig(rig) then return bad("option 'rig' must be a rig, got %s", type(rig)) end
  if e ~= nil and not (E.finite(e) and e > 0) then
    return bad("option 'error' must be a finite number > 0, got %s", E.shown(tostring(e)))
  end
  if d ~= nil and not (E.finite(d) and d >= 0) then
    return bad("option 'distance' must be a finite number >= 0, got %s", E.shown(tostring(d)))
  end
  if lv ~= nil and not M.LEVELS[lv] then
    return bad("option 'level' must be \"fast\" or \"best\", got %s", E.shown(tostring(lv)))
  end
  return true
end

-- Every key time of the clip's joints (all, and per joint), and the most
-- keys of one channel; per joint, its curved segments { time, length }
-- (an easing, a Bezier or Catmull-Rom segment, a step), sampled inside too
-- (ticks_of).
local function key_times(c, nj)
  local list, per, densest, inner = {}, {}, 0, {}
  for cj = 1, nj do
    per[cj], inner[cj] = {}, {}
    for _, ch in ipairs(CH) do
      local t, _, ie = core.clip_keys(c, cj, SLOT[ch])
      if t then
        if #t > densest then densest = #t end
        for _, x in ipairs(t) do list[#list + 1] = x; per[cj][#per[cj] + 1] = x end
        for i = 1, #t - 1 do
          local d = t[i + 1] - t[i]
          if d > 0 and not K.is_line(ie[i]) then inner[cj][#inner[cj] + 1] = { t[i], d } end
        end
      end
    end
  end
  return list, per, densest, inner
end

-- The fewest ticks a second on which every key time falls (within a
-- hundredth of a tick: glTF's 32-bit times), as many as 16 bits allow over
-- the clip at most, and true; or, when some key times fall on no such
-- grid (an importer's keys just before a jump), two fall on one tick, or
-- a jump (jumps: their times) is not within compress_jumps.LATE of a tick,
-- as many ticks as 16 bits allow over the clip on which the others fall,
-- and false.
local function pick_rate(times, L, jumps)
  local floor, abs = math.floor, math.abs
  local rate, limit, exact = 1, L > 0 and math.min(M.MAX_RATE, (M.MAX_FRAMES - 1) / L) or M.MAX_RATE, true
  for _, t in ipairs(times) do
    local x = t * rate
    if abs(x - floor(x + 0.5)) > 0.01 then
      local m = 2
      while m <= 1000 do
        local y = x * m
        if abs(y - floor(y + 0.5)) <= 0.01 then break end
        m = m + 1
      end
      if m > 1000 or rate * m > limit then exact = false else rate = rate * m end
    end
  end
  -- (a jump plays at a tick: the clip's own grid only when each jump is
  -- within M.LATE of one, else as many ticks as 16 bits allow)
  for _, t in ipairs(exact and jumps or {}) do
    if abs(t * rate - floor(t * rate + 0.5)) > J.LATE * math.max(1, t) * rate then exact = false end
  end
  -- (two key times more than a nanosecond apart on one tick -- a clip
  -- shorter than a tick: 0 and 1e-6 s at 1 a second -- are no grid's)
  if exact then
    local sorted = {}
    for i, t in ipairs(times) do sorted[i] = t end
    table.sort(sorted)
    for i = 2, #sorted do
      local a, b = sorted[i - 1], sorted[i]
      if b - a > 1e-9 * math.max(1, b) and floor(a * rate + 0.5) == floor(b * rate + 0.5) then exact = false end
    end
  end
  if exact then return rate, true end
  return rate * math.max(1, math.floor(limit / rate)), false
end

local function same(a, b)
  for i = 1, #a do if a[i] ~= b[i] then return false end end
  return true
end

-- The ticks joint cj is sampled at: every frame of the grid (S.grid a
-- second), its keys' times and S.parts parts of each of its curved
-- segments (S.inner: 4, twice as many each time the grid is made finer),
-- each to the nearest tick (S.rate a second).
local function ticks_of(S, cj)
  local set, list = {}, {}
  local function add(k)
    if k >= 0 and k <= S.last and not set[k] then set[k] = true; list[#list + 1] = k end
  end
  for g = 0, math.ceil(S.L * S.grid - 1e-6) do add(math.min(S.last, math.floor(g * S.rate / S.grid + 0.5))) end
  for _, t in ipairs(S.keyt[cj]) do add(math.floor(t * S.rate + 0.5)) end
  -- (each curved segment in S.parts, as many as its ticks at most)
  for _, sg in ipairs(S.inner[cj]) do
    local x, d = sg[1], sg[2]
    local n = math.max(4, math.min(S.parts, math.ceil(d * S.rate)))
    for q = 1, n - 1 do add(math.floor((x + d * q / n) * S.rate + 0.5)) end
  end
  for k, m in pairs(S.moved) do if m.joints[cj] then add(k) end end
  table.sort(list)
  return list
end

-- The channels of every joint sampled at its ticks (ticks_of): { cj, ch
-- (1..3), times, vals, frames (each key's tick), identity }; where a
-- channel jumps at a tick (its value there is apart from its value just
-- before: a step, a cut), two keys at that tick, the one before first.
local function sample_all(S, c)
  local recs = {}
  local band = compat.band
  local BIT = { codes.channel.position, codes.channel.rotation, codes.channel.scale }
  for cj = 1, S.nj do
    local ticks = ticks_of(S, cj)
    local at, left, left2, high, flags = {}, {}, {}, {}, 0
    for f, k in ipairs(ticks) do
      local t = math.min(k / S.rate, S.L)
      flags, at[f] = J.sample3(c, cj, t) -- (the flags: the same at every time)
      local e = 1e-9 * math.max(1, t)
      if f > 1 then
        local _, l = J.sample3(c, cj, t - e)
        local _, l2 = J.sample3(c, cj, t - 2 * e)
        left[f], left2[f] = l, l2
      end
      -- (jumps moved to this tick: the value just before the first of the
      -- tick and the jumps, then the value at the last)
      local m = S.moved[k]
      if m and m.joints[cj] then
        local _, h = J.sample3(c, cj, m.hi)
        local _, l = J.sample3(c, cj, m.lo > 0 and m.lo - 1e-9 * math.max(1, m.lo) or 0)
        high[f] = { h, m.joints[cj], l }
      end
    end
    for ch = 1, 3 do
      if band(flags, BIT[ch]) ~= 0 then
        local times, vals, frames, id = {}, {}, {}, true
        for f, k in ipairs(ticks) do
          local v, t = at[f][ch], math.min(k / S.rate, S.L)
          local h = high[f]
          if h and h[2][ch] then
            times[#times + 1], vals[#vals + 1], frames[#frames + 1] = t, h[3][ch], k
            v = h[1][ch]
          elseif f > 1 and J.apart(left2[f][ch], left[f][ch], v) then
            times[#times + 1], vals[#vals + 1], frames[#frames + 1] = t, left[f][ch], k
          end
          times[#times + 1], vals[#vals + 1], frames[#frames + 1] = t, v, k
        end
        for _, x in ipairs(vals) do
          if not (same(x, ID[ch]) or (ch == 2 and x[1] == 0 and x[2] == 0 and x[3] == 0 and x[4] == -1)) then
            id = false
            break
          end
        end
        local all = {}
        for k = 1, #vals do all[k] = k end
        recs[#recs + 1] = { cj = cj, ch = ch, times = times, vals = vals, frames = frames, all = all, identity = id }
      end
    end
  end
  return recs
end

-- The k-th smallest of a list of numbers (reordered in place): list[k]
-- after table.sort(list), found by quickselect (Hoare's partition) in
-- linear time on average.
local function kth(list, k)
  local lo, hi = 1, #list
  while lo < hi do
    local pivot = list[math.floor((lo + hi) / 2)]
    local i, j = lo, hi
    while i <= j do
      while list[i] < pivot do i = i + 1 end
      while list[j] > pivot do j = j - 1 end
      if i <= j then
        list[i], list[j] = list[j], list[i]
        i, j = i + 1, j - 1
      end
    end
    if k <= j then hi = j elseif k >= i then lo = i else return list[k] end
  end
  return list[k]
end

-- The 99th percentile of a list of numbers (reordered in place).
local function p99(list)
  if #list == 0 then return 0 end
  return kth(list, math.max(1, math.ceil(#list * 0.99)))
end

-- The clip's table with no keys: what the compressed clip is built from.
local function stripped_of(src)
  local out = {}
  for k, v in pairs(src) do out[k] = v end
  out.joints = {}
  for jn, j in pairs(type(src.joints) == "table" and src.joints or {}) do
    local o = {}
    for k, v in pairs(j) do if not animc.KEY_FIELDS[k] then o[k] = v end end
    out.joints[jn] = o
  end
  return out
end

-- The ticks (the pack's frames) and the grid of samples: S.grid samples a
-- second, S.rate ticks a second, S.last the last tick.
local function frames_at(S, grid, ticks)
  local L = S.L
  S.grid, S.rate = math.min(grid, ticks, M.MAX_RATE), math.min(ticks, M.MAX_RATE)
  S.last = math.max(0, math.ceil(L * S.rate - 1e-6))
  if S.last >= M.MAX_FRAMES then S.rate, S.last = (M.MAX_FRAMES - 1) / L, M.MAX_FRAMES - 1 end
end

-- The bytes of a channel of n keys, narrow at `bits` or wide (packed.h;
-- the frames aside, the same for both).
local function narrow_bytes(n, bits, rot) return (rot and 15 or 27) + math.ceil(n * 3 * bits / 8) end
local function wide_bytes(n, rot) return n * (rot and 16 or 12) end

-- The pack of the keys kept (kept[chan]: frame indices from 1, of the
-- channels measured; nil: every frame), each channel narrow at S.bits[r]
-- bits (Q.bits_for the first time) unless S.wide says wide or it is smaller
-- wide (a few keys: the range's 25 bytes).
-- only (optional): the set of the clip joints whose channels are wanted
-- (the others' left out: a joint of a pack is sampled from its own
-- channels alone, so the ones wanted play as in the whole pack).
local function pack_of(S, kept, only)
  local js, byj = {}, {}
  for k, cj in ipairs(S.order) do js[k] = {}; byj[cj] = js[k] end
  for _, r in ipairs(S.recs) do
    local jt = byj[r.cj]
    if only and not only[r.cj] then -- luacheck: ignore 542 (left out)
    elseif r.identity then
      jt[r.ch] = PK_IDENTITY
    else
      local keys = r.chan and kept[r.chan] or r.keys or r.all
      local fv = keys.vals -- (values placed off the samples: reduce.choose)
      if #keys == 2 and keys[1] == 1 and keys[2] == #r.vals then
        local const = true
        for f = 2, #r.vals do if not same(r.vals[f], r.vals[1]) then const = false break end end
        if const then keys = { 1 } end
      end
      local fr, v, nv = {}, {}, 0
      local const = not S.exact[r] and Q.near_constant(S, r, M.FRAC)
      if const then
        fr[1] = r.frames[1]
        for _, x in ipairs(const) do v[#v + 1] = x end
        keys = { 1 }
      else
        local frames, vals = r.frames, r.vals
        for n, k in ipairs(keys) do
          fr[n] = frames[k]
          local x = fv and fv[n] or vals[k]
          for a = 1, #x do v[nv + a] = x[a] end
          nv = nv + #x
        end
      end
      if not S.bits[r] then S.bits[r] = Q.bits_for(S, r, M.MIN_BITS, M.FRAC) end
      local bits = S.bits[r]
      jt[r.ch] = (S.wide[r] or wide_bytes(#keys, r.ch == 2) <= narrow_bytes(#keys, bits, r.ch == 2)) and PK_WIDE or PK_NARROW
      jt[3 + r.ch] = { frames = fr, v = v, bits = bits }
    end
  end
  return core.pack_write { rate = S.rate, nframes = S.last + 1, joints = js }
end

-- The error of compressed clip cc: every joint at every time of S.mtimes
-- (every k-th when there are more than R.MAX_WORK joint poses): the worst,
-- every error (p99 gives their 99th percentile: asked only of the packs
-- kept), the worst of each joint.  The original's frames are measured once
-- for the times (S.mcache).
local function measure(S, cc)
  local times = S.mcache.times
  if S.mcache.mtimes ~= S.mtimes then
    local step = math.max(1, math.ceil(#S.tjoints * #S.mtimes / R.MAX_WORK))
    times = {}
    for k = 1, #S.mtimes, step do times[#times + 1] = S.mtimes[k] end
    S.mcache = { mtimes = S.mtimes, times = times } -- (R.measure adds the frames)
  end
  local errs = {}
  local worst, per = R.measure(S.tjoints, S.localA, S.localB_of(cc), times, S.distance, errs, S.mcache)
  return worst, errs, per
end

-- The channels of the joints beyond the bound, and of their parents, given
-- BITS_UP more bits a component (at 16 already: made wide).
local function widen(S, per)
  local parent, hit = {}, {}
  for _, j in ipairs(S.tjoints) do parent[j.name] = j.parent end
  for i, e in ipairs(per) do
    if e > S.err then
      local p = S.tjoints[i].name
      while p and not hit[p] do hit[p] = true; p = parent[p] end
    end
  end
  for _, r in ipairs(S.recs) do
    local b = S.bound_of[r.cj]
    if b and hit[S.tjoints[b.rj].name] then
      local bits = S.bits[r] or 16
      if r.const and not S.exact[r] then
        S.exact[r] = true
      elseif bits >= 16 then
        S.wide[r] = true
      else
        S.bits[r] = math.min(16, bits + M.BITS_UP)
      end
    end
  end
end

-- ACL's search of bit rates: the narrow channels given one bit fewer,
-- all at once while the clip the core builds keeps the bound, then each in
-- turn (the most bytes first), round after round (at most `tries`
-- measures); the pack, its worst error and 99th percentile.
local function lower(S, kept, pack, worst, q99, tries)
  local list = {}
  for _, r in ipairs(S.recs) do
    if S.bits[r] and not S.wide[r] and not (r.const and not S.exact[r]) and S.bits[r] > M.MIN_BITS then
      local keys = r.chan and kept[r.chan] or r.keys or r.all
      list[#list + 1] = { r = r, bytes = #keys * S.bits[r] }
    end
  end
  table.sort(list, function(a, b) return a.bytes > b.bytes end)
  -- one bit fewer for the channels of `set` (true: kept)
  local function try(set)
    tries = tries - 1
    for _, e in ipairs(set) do S.bits[e.r] = S.bits[e.r] - 1 end
    local p = pack_of(S, kept)
    local w, errs = measure(S, assert(S.build(p)))
    if w > S.err then
      for _, e in ipairs(set) do S.bits[e.r] = S.bits[e.r] + 1 end
      return false
    end
    pack, worst, q99 = p, w, p99(errs)
    for _, e in ipairs(set) do e.done = S.bits[e.r] <= M.MIN_BITS end
    return true
  end
  local function open()
    local o = {}
    for _, e in ipairs(list) do if not e.done then o[#o + 1] = e end end
    return o
  end
  while tries > 0 and #open() > 1 and try(open()) do end
  local more = true
  while more and tries > 0 do
    more = false
    for _, e in ipairs(list) do
      if not e.done and tries > 0 then
        if try({ e }) then more = true else e.done = true end
      end
    end
  end
  return pack, worst, q99
end

-- The reduction, then the measure of the clip the core plays, widened
-- where it strays: the pack, its worst error and its 99th percentile.
local function search(S, L)
  -- (the reduction measures the joints of `dirty` alone, tree indices: the
  -- pack of their channels)
  local function apply(kept, dirty)
    local only
    if dirty then
      only = {}
      for cj, b in pairs(S.bound_of) do if dirty[b.rj] then only[cj] = true end end
    end
    return S.localB_of(assert(S.build(pack_of(S, kept, only))))
  end
  local best
  for attempt = 1, M.WIDEN + 1 do
    local kept = {}
    if attempt <= M.WIDEN and #S.chans > 0 then
      kept = R.reduce(S.tjoints, S.chans, S.localA, apply, L, S.err, S.distance, nil, S.tune) or {}
      -- (nearly every sample kept: noise, or keys already sparse; a looser
      -- start would not cut much more)
      local k, all = 0, 0
      for c, ch in ipairs(S.chans) do k, all = k + (kept[c] and #kept[c] or #ch.times), all + #ch.times end
      S.none_cut = k >= 0.9 * all
    else
      for _, r in ipairs(S.recs) do S.wide[r] = true end
    end
    local pack = pack_of(S, kept)
    local worst, errs, per = measure(S, assert(S.build(pack)))
    if worst <= S.err then return pack, worst, p99(errs), kept end
    -- (widening that gains less than a tenth: the error is not the
    -- quantisation's; what the samples cannot say, more bits will not)
    if best and worst > 0.9 * best[2] then return best[1], best[2], p99(best[3]) end
    if not best or worst < best[2] then best = { pack, worst, errs } end
    if attempt == M.WIDEN + 1 then return best[1], best[2], p99(best[3]) end
    widen(S, per)
  end
end

-- The first sample beyond M.MAX_VALUE (or not finite), said, else nil.
local function beyond(S, info)
  for _, r in ipairs(S.recs) do
    for k, v in ipairs(r.vals) do
      for a = 1, #v do
        if v[a] ~= v[a] or math.abs(v[a]) > M.MAX_VALUE then
          return string.format("joint '%s' %s: %s at %.9g s is beyond what a compressed clip keeps (32-bit floats, at"
            .. " most %g)", E.shown(info.joints[r.cj]), CH[r.ch], tostring(v[a]), r.times[k], M.MAX_VALUE)
        end
      end
    end
  end
  return nil
end

-- The tree the error is measured on (the rig, else the clip's skeleton and
-- its joints off it, else the player rig's), the bound, the clip played
-- on it.
local function tree_of(S, c, options)
  local tree = N.node_tree({ c }, options.rig)
  S.tjoints = tree:joints()
  local rest = {}
  for i, j in ipairs(S.tjoints) do rest[i] = { t = j.translation, r = j.rotation, s = j.scale } end
  local binds = bind.get(c, tree)
  S.bound_of = {}
  for _, b in ipairs(binds) do S.bound_of[b.cj] = b end
  S.err, S.distance = R.bound(S.tjoints, options)
  S.localA = RC.local_of(c, binds, rest)
  S.localB_of = function(cc) return RC.local_of(cc, bind.get(cc, tree), rest) end
end

-- The channels measured (those of joints on the tree; the others are
-- reduced on their own at the bound's tolerance).
local function chans_of(S)
  S.chans = {}
  for _, r in ipairs(S.recs) do
    local b = S.bound_of[r.cj]
    if not r.identity and b then
      S.chans[#S.chans + 1] = { j = b.rj, kind = CH[r.ch], times = r.times, vals = r.vals,
        unit = 1 / (b.pscale or 1) }
      r.chan = #S.chans
    elseif not r.identity then
      local tol = r.ch == 1 and S.err or S.err / math.max(S.distance, 1e-9)
      r.keys = R.simplify(r.times, r.vals, tol, r.ch == 2)
      r.tol = tol
    end
  end
end

function M.compress(c, options)
  local ok, why = check(options)
  if not ok then return nil, why end
  local info = core.clip_info(c)
  local name = info.name or "clip"
  if rawget(info, "compression") then return bad("%s: the clip is compressed already", E.shown(name)) end
  local src, err0 = encode.table(c, { version = 3 })
  if not src then return nil, "anim.compress: " .. err0 end
  local stripped = stripped_of(src)
  local S = { nj = #info.joints, mcache = {} }
  -- (the measures' clips at the most keys any clip may have; the clip
  -- given back within anim.limits.keys, as a .animc file of it is read)
  function S.build(pack, stats, max_keys)
    return E.catch(name, animc.assemble, clipmod.copy(stripped), pack, stats or { 0, 0, 0, 0, 0 }, name, nil, nil,
      max_keys or KEYS_MAX)
  end
  local L = info.length
  local times
  times, S.keyt, S.densest, S.inner = key_times(c, S.nj)
  S.L = L
  tree_of(S, c, options)
  -- the clip's joints in the compressed clip's order
  local empty = {}
  for k = 1, S.nj do empty[k] = {} end
  local shape = S.build(core.pack_write { rate = 30, nframes = 1, joints = empty })
  if not shape then return bad("%s: its table without keys is not a clip", E.shown(name)) end
  local index = {}
  for cj, jn in ipairs(info.joints) do index[jn] = cj end
  S.order = {}
  for k, jn in ipairs(core.clip_info(shape).joints) do S.order[k] = index[jn] end
  -- at the clip's own rate (else 30 a second and the keys' times), then
  -- twice as many frames while the bound is not held (curves between them)
  -- the samples: a grid of at least GRID a second (the ticks, when every key
  -- falls on them) and each joint's keys; a grid twice as fine while the
  -- bound is not held (curves between its frames)
  S.jumps = J.jumps_of(S, c)
  local jt = {}
  for _, list in pairs(S.jumps) do for _, j in ipairs(list) do jt[#jt + 1] = j[1] end end
  local kr, exact = pick_rate(times, L, jt)
  S.on_grid = exact
  local grid = exact and kr * math.ceil(M.GRID / kr) or M.GRID
  local pack, worst, q99, prev
  local grid0, worsts = grid, {}
  for _ = 1, M.RATE_TRIES do
    frames_at(S, grid, exact and grid or kr)
    S.parts = 4 * grid / grid0
    S.moved = J.moved(S)
    S.retime = J.retimer(S)
    S.recs = sample_all(S, c)
    local far = beyond(S, info)
    if far then return bad("%s: %s", E.shown(name), far) end
    chans_of(S)
    S.mtimes = R.sample_times(#S.chans > 0 and S.chans or { { times = { 0, L } } }, L, false)
    if S.retime then S.mtimes = S.retime(S.mtimes) end
    local level = M.LEVELS[options.level or "best"]
    -- (no loosening: the pack is measured at every joint's sample times, the
    -- reduction at its subtree's; a looser choice held at the latter strayed
    -- at the former: showmaster's walk 0.000508 against 0.000441)
    -- from each first tolerance of the level: the smallest pack within the
    -- bound (else the least error)
    pack = nil
    local held
    for _, st in ipairs(level.starts) do
      S.wide, S.bits, S.exact = {}, {}, {}
      S.tune = { rounds = level.rounds, start = st, loosen = 0, jumps = false, retime = S.retime }
      local p2, w2, q2, k2 = search(S, L)
      if not pack or (w2 <= S.err and (worst > S.err or #p2 < #pack)) or (worst > S.err and w2 < worst) then
        pack, worst, q99 = p2, w2, q2
        held = k2 and { kept = k2, bits = S.bits, wide = S.wide, exact = S.exact }
      end
      -- (a looser start does not hold what the first could not, nor cut
      -- much where the first kept most)
      if w2 > S.err or S.none_cut then break end
    end
    -- then the fewest bits that keep the bound, from the smallest pack's
    if held and worst <= S.err then
      S.bits, S.wide, S.exact = held.bits, held.wide, held.exact
      pack, worst, q99 = lower(S, held.kept, pack, worst, q99, level.lower)
    end
    -- (a grid as fine as the ticks samples nothing more when doubled)
    if worst <= S.err or (not exact and S.grid >= S.rate) or grid * 2 * L > M.MAX_FRAMES - 1 then
      break
    end
    -- (three doublings of the grid that cut the worst error by less than a
    -- curve's would -- about a quarter each time --: what strays is
    -- something no grid holds, or holds only as fine as the ticks, keys at
    -- times no tick falls on in fast motion, whose error halves a doubling,
    -- and doubling up to the ticks took seconds and hundreds of kilobytes:
    -- of this pack and the one before, measured at this grid's times, the
    -- one farther within, the smaller at a tie)
    worsts[#worsts + 1] = worst
    if #worsts >= 4 and worst > M.GAIN ^ 3 * worsts[#worsts - 3] then
      local w, errs = measure(S, assert(S.build(prev[1])))
      if w < worst or (w == worst and #prev[1] < #pack) then pack, worst, q99 = prev[1], w, p99(errs) end
      break
    end
    prev = { pack, worst, q99 }
    grid = grid * 2
  end
  local animated, seen = 0, {}
  for _, r in ipairs(S.recs) do
    if not seen[r.cj] then seen[r.cj] = true; animated = animated + 1 end
  end
  -- raw, as ozz and ACL count it: 10 float32 a joint at every key time of
  -- the densest channel (the frames when no channel gives its keys)
  local raw = 40 * animated * (S.densest > 0 and S.densest or S.last + 1)
  local out, failed = S.build(pack, { S.err, S.distance, worst, q99, raw }, limits.current.keys)
  if not out and S.build(pack) then
    return bad("%s: too many keys (at most %d, anim.limits.keys)", E.shown(name), limits.current.keys)
  end
  return out, failed
end

return M
