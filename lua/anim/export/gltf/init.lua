-- export/gltf/init.lua: writes clips as glTF 2.0 animations (anim.export_gltf):
-- a .gltf with its buffer embedded, or a .glb, with a node tree from a rig
-- (or the clips' skeletons) and one animation per clip.
--
-- Each channel is written with the values the animator plays on that node
-- tree: a node's local translation, rotation and scale (an offset clip's
-- values put together with the nodes' rests; an absolute clip's as they
-- are).  What glTF holds exactly is written as it is: linear, step and
-- cubicspline keys; slerped quaternions; bezier segments whose handles are
-- a third of the segment long, catmullrom, quad and cubic eases (cubic
-- polynomials in time: Hermite segments); Euler channels that turn about
-- one axis (a slerp); jumps and steps as values one float's step apart.
-- Anything else (other easings, bezier handles, curve modifiers, Euler
-- channels turning about several axes or more than half a turn between two
-- keys) is baked at options.fps.  Every channel is then imported back (the
-- importer's own reading of the keys as written, in 32-bit floats) and
-- compared with the clip at four times the bake rate: approx lists the
-- baked channels and any other whose difference exceeds 1e-6.--
-- The parts: keys.lua (the keys glTF holds exactly), sample.lua (what the
-- animator plays, and baking), nodes.lua (the node tree and the skin),
-- json.lua (the document's text).  This file writes the channels of each
-- clip into one buffer, checks them read back, and writes the document.
require("anim.base.luajit").no_traversal_traces()
local compat = require "anim.base.compat"
local core = require "anim.core"
local E = require "anim.base.errors"
local codes = require "anim.base.codes"
local clipmod = require "anim.format.clip"
local bind = require "anim.format.bind"
local encode = require "anim.format.encode"
local gltf = require "anim.import.gltf"
local K = require "anim.export.gltf.keys"
local S = require "anim.export.gltf.sample"
local N = require "anim.export.gltf.nodes"
local J = require "anim.export.gltf.json"
local R = require "anim.export.gltf.reduce"

local M = {}
local fail = E.fail

M.DEFAULT_FPS = 60
M.EXACT = 1e-6 -- a channel written exactly but farther than this from the clip is listed in approx

local SLOT = codes.slot
local MAX_CURVE_KEYS = codes.const.max_curve_keys
local f32, next32 = K.f32, K.next32
local info_of, source_of = N.info_of, N.source_of
local played = S.played
local arr = J.arr

-- The exporter -------------------------------------------------------------------------------

local CHANNELS = { { "position", "translation", SLOT.position, 3 }, { "rotation", "rotation", SLOT.rotation, 4 },
  { "scale", "scale", SLOT.scale, 3 } }
local CH_FLAG = { position = codes.channel.position, rotation = codes.channel.rotation, scale = codes.channel.scale }
local CH_SLOT = { position = 1, rotation = 2, scale = 3 }

-- A clip's name as an animation's: its last path component, less .anim.
local function animation_name(c)
  local n = info_of(c).name or "clip"
  if n:match("%.anim$") then n = (n:match("([^/\\]+)$") or n):gsub("%.anim$", "") end
  return n
end

-- What the animations carry in extras: the clip's timed items, its
-- property channels (as the clip's table has them: a glTF file has no
-- place for values that are not node transforms, and morph weights need
-- a mesh with targets, which the exporter does not write) and the
-- playback fields a glTF animation has no place for (import/gltf/init.lua reads them).
-- (loop is always written: a reader without extras plays the animation
-- looping, as three.js does, and this module's importers before issue 37
-- read it as once)
local DEFAULTS = { loop = false, speed = 1, priority = 0, blend = "normal", space = "body", autoplay = false }
local function extras_of(c)
  local info = info_of(c)
  local src = source_of(info)
  local x = {}
  for _, f in ipairs { "markers", "events", "sounds", "plays" } do
    local list = src[f]
    if type(list) == "table" and #list > 0 then x[f] = arr(list) end
  end
  if type(src.properties) == "table" and next(src.properties) ~= nil then x.properties = src.properties end
  for f, d in pairs(DEFAULTS) do
    if info[f] ~= nil and info[f] ~= d then x[f] = info[f] end
  end
  if info.mask then x.mask = arr(info.mask) end
  return next(x) and x or nil
end

-- The binary buffer the accessors of the document point into: add(numbers,
-- type, components, minmax) -> the accessor's index, or nil and the index
-- of a number a 32-bit float cannot hold.  (packed: the floats' bytes
-- when the caller has them already)
local function new_buffer()
  local buf = { bin = {}, views = arr(), accessors = arr(), len = 0 }
  function buf.add(numbers, ty, ncomp, minmax, short, packed)
    local bytes, bad = packed, nil
    if not bytes then
      if short then bytes = K.pack_shorts(numbers) else bytes, bad = core.gltf_pack_floats(numbers) end
    end
    if not bytes then return nil, bad end
    local acc = { componentType = short and 5122 or 5126, count = math.floor(#numbers / ncomp), type = ty,
      normalized = short or nil }
    if minmax then
      local lo, hi = math.huge, -math.huge
      for _, x in ipairs(numbers) do
        local fx = f32(x)
        if fx < lo then lo = fx end
        if fx > hi then hi = fx end
      end
      acc.min, acc.max = arr { lo }, arr { hi }
    end
    buf.views[#buf.views + 1] = { buffer = 0, byteOffset = buf.len, byteLength = #bytes }
    acc.bufferView = #buf.views - 1
    buf.bin[#buf.bin + 1] = bytes
    buf.len = buf.len + #bytes
    buf.accessors[#buf.accessors + 1] = acc
    return #buf.accessors - 1
  end
  return buf
end

-- The times a channel of keys t is baked at besides the frames: its keys
-- and the quarters of its curves (keys.lua's curve_quarters).
local function bake_times(t, ie)
  if not t then return {} end
  local out = {}
  for i, x in ipairs(t) do out[i] = x end
  return K.curve_quarters(t, ie, out)
end

-- Each channel of clip c on the node tree, as it is written: { joint,
-- node, ch, gpath, n, mode, keys, baked, b, rest, sample }, its keys
-- exact where glTF holds them, else baked at fps (and bake_times).
local function clip_channels(c, info, tree, tjoints, rest, fps, mtree, reducing)
  local cname = info.name or "clip"
  local L = info.length
  local src = source_of(info)
  local wrap = info.loop == "loop"
  local out = {}
  local binds = bind.get(c, tree)
  for _, b in ipairs(binds) do
    local jname = info.joints[b.cj]
    local sj = src.joints and src.joints[jname]
    local muted = type(sj) == "table" and sj.muted == true
    local r = rest[b.rj]
    local sample = S.sampler(c, b.cj)
    local flags = core.clip_sample_joint(c, b.cj, 0)
    for _, chd in ipairs(CHANNELS) do
      local ch, slot, arity = chd[1], chd[3], chd[4]
      if not muted and compat.band(flags, CH_FLAG[ch]) ~= 0 then
        local t, v, ie, h, kar, tan = core.clip_keys(c, b.cj, slot)
        local mods = type(sj) == "table" and type(sj.modifiers) == "table" and sj.modifiers[ch]
        local modded = false
        if type(mods) == "table" then
          for _, m in ipairs(mods) do if type(m) == "table" and m.enabled ~= false then modded = true end end
        end
        local keys
        -- (an Euler channel turning about several axes is baked: known
        -- from its values, before its segments are made)
        local several = kar == 3 and ch == "rotation" and t and K.euler_turns_several(v)
        if t and not modded and (kar == arity or (ch == "rotation" and kar == 3)) and not several then
          keys = K.segments({ t = t, v = v, ie = ie, h = h, tan = tan }, kar, kar == 4, wrap)
          if kar == 3 and ch == "rotation" then keys = K.euler_as_quats(keys, info.euler) end
          if keys and not K.all_exact(keys) then keys = nil end
        end
        local written, mode, baked, ktimes, kvals
        if keys then
          local f, df = S.converters(c, b, r, ch)
          written, mode = K.gltf_keys(K.clamp_keys(keys, L, ch == "rotation"), f, df)
        else
          -- (in C when the rests are numbers: core.measure_bake plays as played)
          local native
          if mtree then
            local one, node, chi = { gen = binds.gen, b }, b.rj, CH_SLOT[ch]
            -- (its times and values as reduce_channels takes them: rotations as shorts)
            native = function(ts) return core.measure_bake(mtree, c, one, c.absolute, node, chi, ts, reducing) end
          end
          written, mode, ktimes, kvals = S.bake(sample, function(s) return played(c, b, r, ch, s) end, L, fps,
            bake_times(t, ie), ch == "rotation", native)
          if not written then
            fail("", "%s: joint '%s' %s: baking at %g fps would need more than %d keys", E.shown(cname), E.shown(jname), ch, fps,
              MAX_CURVE_KEYS)
          end
          baked = true
        end
        out[#out + 1] = { joint = jname, node = tjoints[b.rj].name, ch = ch, gpath = chd[2], n = arity,
          mode = mode, keys = written, baked = baked, b = b, rest = r, sample = sample, ktimes = ktimes, kvals = kvals }
      end
    end
  end
  -- the animation's length is its last input time: a key at the clip's
  -- length, holding the value, when the keys end before it
  local last = 0
  for _, o in ipairs(out) do last = math.max(last, o.keys[#o.keys].t) end
  if out[1] and last < L then
    local k = out[1].keys[#out[1].keys]
    local zero = {}
    for a = 1, out[1].n do zero[a] = 0 end
    out[1].keys[#out[1].keys + 1] = { t = f32(L) < L and next32(f32(L)) or f32(L), v = k.v, a = zero, b = zero }
    out[1].ktimes, out[1].kvals = nil, nil
  end
  return out
end

-- The measure in C for the clip's channels `out` (reduce.lua's native):
-- the channels each node takes from the clip (chans.mask), when each
-- node's channels are of the binding the measure plays it by (the last of
-- bind.get's for it) and every rest is numbers; else nil (measured in Lua).
local function native_desc(c, tree, out, rest)
  local binds = bind.get(c, tree)
  local last, mask, flat = {}, {}, R.flat_rest(rest)
  for _, b in ipairs(binds) do last[b.rj] = b end
  for i = 1, #rest do mask[i] = 0 end
  for _, o in ipairs(out) do
    local i = o.node_index + 1
    if last[i] ~= o.b then return nil end
    mask[i] = mask[i] + CH_FLAG[o.ch]
  end
  if not flat then return nil end
  return { clip = c, binds = binds, absolute = c.absolute, rest = flat, n = #rest, chans = { mask = mask } }
end

-- What reduce.lua measures for the channels `out` of clip c, the dense ones
-- `chans`: localA (each node as the clip plays it) and apply(kept) (the
-- reduced channels from the keys kept); measured in C when it can
-- (native_desc: the keys of each choice packed once).
local function players(c, tree, out, chans, tjoints, rest)
  local on = {}
  for i = 1, #tjoints do on[i] = {} end
  for _, o in ipairs(out) do on[o.node_index + 1][o.ch] = o end
  -- (one sample of the joint for its channels, played into tables kept
  -- per node: the measure uses them at once)
  local absolute, sample, into, NONE = c.absolute, core.clip_sample_joint, S.played_into, {}
  local kept_out = {}
  for i = 1, #tjoints do kept_out[i] = { {}, {}, {} } end
  local function localA(i, t, skip)
    local r, got = rest[i], on[i]
    skip = skip or NONE
    local po, ro, so = not skip.position and got.position, not skip.rotation and got.rotation,
      not skip.scale and got.scale
    local first = po or ro or so
    if not first then return r.t, r.r, r.s end
    local o = kept_out[i]
    local f, p1, p2, p3, x, y, z, w, s1, s2, s3 = sample(c, first.b.cj, t)
    local p = po and into(o[1], absolute, po.b, po.rest, 1, f, p1, p2, p3, x, y, z, w, s1, s2, s3) or r.t
    local q = ro and into(o[2], absolute, ro.b, ro.rest, 2, f, p1, p2, p3, x, y, z, w, s1, s2, s3) or r.r
    local sc = so and into(o[3], absolute, so.b, so.rest, 3, f, p1, p2, p3, x, y, z, w, s1, s2, s3) or r.s
    return p, q, sc
  end
  -- (measured in C when it can: the keys of each choice packed once)
  local desc = native_desc(c, tree, out, rest)
  if desc then localA = R.native(localA, desc) end
  local packs = setmetatable({}, { __mode = "k" })
  local function keys_of(ch, k)
    local p = packs[k]
    if not p then
      local ts, vs = {}, {}
      local fv = k.vals
      for n, x in ipairs(k) do ts[n], vs[n] = ch.times[x], fv and fv[n] or ch.vals[x] end
      p = { ts, vs }
      packs[k] = p
    end
    return p
  end
  local function apply(kept)
    local by
    local function localB(i, t)
      if not by then
        by = {}
        for j = 1, #tjoints do by[j] = {} end
        for ci, ch in ipairs(chans) do
          if kept[ci] then
            local p = keys_of(ch, kept[ci])
            by[ch.j][ch.kind] = R.evaluator(p[1], p[2], ch.kind == "rotation")
          end
        end
      end
      local k = by[i]
      local p, r, s = k.position, k.rotation, k.scale
      if p and r and s then return p(t), r(t), s(t) end
      local a, b, d = localA(i, t, k)
      return p and p(t) or a, r and r(t) or b, s and s(t) or d
    end
    if not desc then return localB end
    local keys = {}
    for ci, ch in ipairs(chans) do
      if kept[ci] then
        local p = keys_of(ch, kept[ci])
        if p.packed == nil then p.packed = core.keys_pack(p[1], p[2], ch.kind == "rotation") or false end
        if not p.packed then return localB end
        keys[3 * (ch.j - 1) + CH_SLOT[ch.kind]] = p.packed
      end
    end
    return R.native(localB, { clip = c, binds = desc.binds, absolute = desc.absolute, rest = desc.rest, n = desc.n,
      chans = { mask = desc.chans.mask, keys = keys } })
  end
  return localA, apply
end

-- Reduces the dense channels of `out` (baked, or linear with many keys)
-- within the model-space bound (export/gltf/reduce.lua): each one's keys become
-- the fewest of them that stay within it.  Returns { clip, before, after
-- (keys), error (the worst measured), bound, distance }, { skipped = why }
-- or nil.
local function reduce_channels(c, tree, out, tjoints, rest, L, err, distance)
  local chans, idx = {}, {}
  for oi, o in ipairs(out) do
    -- (the bake's, when it gave them)
    local times = o.ktimes
    if not times then
      times = {}
      for i, k in ipairs(o.keys) do times[i] = k.t end
    end
    if o.mode == "LINEAR" and #o.keys > 2 and (o.baked or R.dense(times)) then
      -- (rotations are written as normalized shorts: reduced with the values
      -- a reader decodes, so that the measure sees them)
      local vals = o.kvals
      if not vals then
        vals = {}
        for i, k in ipairs(o.keys) do vals[i] = o.ch == "rotation" and K.short_quat(k.v) or k.v end
      end
      -- (a short's rounding turns a unit quaternion by at most 2 asin(sqrt(4) / 2 / 32767))
      chans[#chans + 1] = { j = o.node_index + 1, kind = o.ch, times = times, vals = vals,
        slack = o.ch == "rotation" and 1e-4 or nil, round = o.ch == "rotation" and K.short_quat or nil }
      idx[#chans] = oi
    end
  end
  if #chans == 0 then return nil end
  local localA, apply = players(c, tree, out, chans, tjoints, rest)
  -- (the bytes of the keys, about: a sampler's times are written once for
  -- the channels that have the same; an accessor's JSON about 150 bytes)
  -- (each choice's times as text made once: kept[ci], or o when whole;
  -- each time's text once, as table.concat writes it, but whole numbers:
  -- an integer and a float of one value are one key of `shown`)
  local texts, shown = setmetatable({}, { __mode = "k" }), {}
  local function text(t)
    if t % 1 == 0 then return t end
    local x = shown[t]
    if not x then x = tostring(t); shown[t] = x end
    return x
  end
  -- (times of a count no other channel has are written apart: no text
  -- needed, as two texts of other counts of times differ)
  local function cost(kept)
    local seen, bytes, reduced, counts = {}, 0, {}, {}
    for ci in ipairs(chans) do reduced[idx[ci]] = ci end
    for oi, o in ipairs(out) do
      local ci = reduced[oi]
      local n = ci and kept[ci] and #kept[ci] or #o.keys
      counts[n] = (counts[n] or 0) + 1
    end
    for oi, o in ipairs(out) do
      local ci = reduced[oi]
      local k = ci and kept[ci]
      local nts = k and #k or #o.keys
      local tx = counts[nts] > 1 and texts[k or o]
      if counts[nts] > 1 and not tx then
        local ts = {}
        if k then
          for n, i in ipairs(k) do ts[n] = text(chans[ci].times[i]) end
        else
          for n, key in ipairs(o.keys) do ts[n] = text(key.t) end
        end
        tx = table.concat(ts, " ")
        texts[k or o] = tx
      end
      if not tx or not seen[tx] then
        if tx then seen[tx] = true end
        bytes = bytes + 4 * nts + 150
      end
      bytes = bytes + nts * (k and o.ch == "rotation" and 8 or 4 * o.n * (o.mode == "CUBICSPLINE" and 3 or 1)) + 150
    end
    return bytes
  end
  local kept, worst = R.reduce(tjoints, chans, localA, apply, L, err, distance, cost)
  if not kept then return { skipped = worst } end
  local before, after = 0, 0
  for ci, ch in ipairs(chans) do
    local o = out[idx[ci]]
    before = before + #o.keys
    if kept[ci] then
      local keys, fv = {}, kept[ci].vals
      for n, k in ipairs(kept[ci]) do
        local key = {}
        for f, x in pairs(o.keys[k]) do key[f] = x end
        key.v = fv and fv[n] or ch.vals[k]
        keys[n] = key
      end
      o.keys, o.reduced, o.short = keys, true, o.ch == "rotation"
    end
    after = after + #o.keys
    ch.vals = nil
  end
  return { before = before, after = after, error = worst, bound = err, distance = distance }
end

-- The samplers and channels of the channels `out` into buf (times shared
-- between channels that have the same), and the clip they make as the
-- importer reads them back, in 32-bit floats (a .anim table: check).
local function write_channels(out, buf, input_cache, cname, L, rest)
  local samplers, channels = arr(), arr()
  local check = { version = 3, absolute = true, length = L, joints = {} }
  for _, o in ipairs(out) do
    local times, outs = {}, {}
    for _, k in ipairs(o.keys) do
      times[#times + 1] = k.t
      if o.mode == "CUBICSPLINE" then
        for a = 1, o.n do outs[#outs + 1] = k.a[a] end
        for a = 1, o.n do outs[#outs + 1] = k.v[a] end
        for a = 1, o.n do outs[#outs + 1] = k.b[a] end
      else
        for a = 1, o.n do outs[#outs + 1] = k.v[a] end
      end
    end
    local tbytes = core.gltf_pack_floats(times)
    local input = input_cache[tbytes]
    if not input then
      input = buf.add(times, "SCALAR", 1, true, nil, tbytes)
      input_cache[tbytes] = input
    end
    local output, bad = buf.add(outs, o.n == 4 and "VEC4" or "VEC3", o.n, nil, o.short)
    if not output then
      fail("", "%s: joint '%s' %s: %s cannot be written as a 32-bit float", E.shown(cname), E.shown(o.joint), o.ch,
        E.num(outs[bad]))
    end
    samplers[#samplers + 1] = { input = input, output = output, interpolation = o.mode }
    channels[#channels + 1] = { sampler = #samplers - 1, target = { node = o.node_index, path = o.gpath } }
    -- the channel as the importer reads it back, in 32-bit floats
    for i, x in ipairs(times) do times[i] = f32(x) end
    -- (normalized shorts are read back as written: n / 32767)
    if not o.short then for i, x in ipairs(outs) do outs[i] = f32(x) end end
    check.joints[o.node] = check.joints[o.node] or {}
    check.joints[o.node][o.ch] = gltf.channel_keys(times, { values = outs, count = math.floor(#outs / o.n), path = "" },
      o.mode, o.n, "")
  end
  if #channels == 0 then
    -- a glTF animation needs a channel: the first node's rest, over the length
    local r = rest[1]
    samplers[1] = { input = buf.add({ 0, L }, "SCALAR", 1, true), interpolation = "STEP",
      output = buf.add({ r.t[1], r.t[2], r.t[3], r.t[1], r.t[2], r.t[3] }, "VEC3", 3) }
    channels[1] = { sampler = 0, target = { node = 0, path = "translation" } }
  end
  return samplers, channels, check
end

-- The clip c against its channels read back (check), at four times the
-- bake rate: adds to approx each channel baked or farther than M.EXACT.
local function compare_back(c, out, check, cname, L, fps, approx, mtree)
  local ok, back = pcall(clipmod.build, check, cname .. " (as written)", true)
  if not ok then error(E.is_failure(back) and E.message("check", back) or back, 0) end
  local bindex = {}
  for i, nm in ipairs(info_of(back).joints) do bindex[nm] = i end
  local rate = 4 * fps
  local steps = math.max(1, math.ceil(L * rate - 1e-9))
  local AT, CH = { position = 2, rotation = 5, scale = 9 }, { position = 1, rotation = 2, scale = 3 }
  -- (the clip's `absolute` read once; tables kept: S.difference uses them at once)
  local absolute, sample, into, want, gv = c.absolute, core.clip_sample_joint, S.played_into, {}, {}
  -- (in C when the rests are numbers: core.measure_compare, the same
  -- samples and difference)
  local times, gen, bgen, by
  if mtree then
    times, gen, bgen = {}, core.clip_reloads(c), core.clip_reloads(back)
    for k = 0, steps do times[k + 1] = math.min(L, k / rate) end
    -- (the channels of one binding compared in one pass: each time played
    -- once for all of them, the same differences)
    by = {}
    for _, o in ipairs(out) do
      local g = by[o.b] or {}
      by[o.b], g[#g + 1] = g, o
    end
  end
  for _, o in ipairs(out) do
    local worst, bj, at, ch = 0, bindex[o.node], AT[o.ch], CH[o.ch]
    if times then
      local g = by[o.b]
      if not g.worst then
        local chs = {}
        for k, x in ipairs(g) do chs[k] = CH[x.ch] end
        g.worst = { core.measure_compare(mtree, c, { gen = gen, o.b }, absolute, back,
          { gen = bgen, { cj = bj, rj = o.b.rj } }, true, o.b.rj, chs, times) }
        for k, x in ipairs(g) do g[x] = g.worst[k] end
      end
      worst = g[o]
    else
      for k = 0, steps do
        local tt = math.min(L, k / rate)
        into(want, absolute, o.b, o.rest, ch, sample(c, o.b.cj, tt))
        local got = { sample(back, bj, tt) }
        gv[1], gv[2], gv[3], gv[4] = got[at], got[at + 1], got[at + 2], got[at + 3]
        local d = S.difference(o.ch, want, gv)
        if d > worst then worst = d end
      end
    end
    if o.baked or o.reduced or worst > M.EXACT then
      approx[#approx + 1] = { clip = cname, joint = o.joint, channel = o.ch, error = worst, reduced = o.reduced }
    end
  end
end

-- The nodes of the tree (each with its rest where it is not the
-- identity, and its children) and the scene's roots.
local function write_nodes(tjoints, node_of)
  local nodes = arr()
  local children = {}
  local roots = arr()
  for i, j in ipairs(tjoints) do
    local nd = { name = j.name }
    local t, q, s = j.translation, j.rotation, j.scale
    if t[1] ~= 0 or t[2] ~= 0 or t[3] ~= 0 then nd.translation = arr { t[1], t[2], t[3] } end
    if q[1] ~= 0 or q[2] ~= 0 or q[3] ~= 0 or q[4] ~= 1 then nd.rotation = arr { q[1], q[2], q[3], q[4] } end
    if s[1] ~= 1 or s[2] ~= 1 or s[3] ~= 1 then nd.scale = arr { s[1], s[2], s[3] } end
    nodes[i] = nd
    if j.parent then
      local p = node_of[j.parent]
      children[p] = children[p] or arr()
      children[p][#children[p] + 1] = i - 1
    else
      roots[#roots + 1] = i - 1
    end
  end
  for p, list in pairs(children) do nodes[p + 1].children = list end
  return nodes, roots
end

-- The document's text: a .glb's chunks, or a .gltf with its buffer
-- embedded.
local function document_text(doc, data, glb)
  if glb then
    local js = J.pad4(J.json_text(doc), " ")
    local bd = J.pad4(data, "\0")
    local u32 = compat.pack_u32le
    return u32(0x46546C67) .. u32(2) .. u32(12 + 8 + #js + 8 + #bd) .. u32(#js) .. u32(0x4E4F534A) .. js
      .. u32(#bd) .. u32(0x004E4942) .. bd
  end
  doc.buffers[1].uri = "data:application/octet-stream;base64," .. core.base64_encode(data)
  return J.json_text(doc)
end

-- Writes the clips; returns approx.  Raises failures (errors.lua).
function M.export(clips, rig, path, options)
  local fps = options and options.fps or M.DEFAULT_FPS
  local glb = path:lower():match("%.glb$") ~= nil
  local tree, skin = N.node_tree(clips, rig)
  local tjoints = tree:joints()
  local node_of, rest = {}, {}
  for i, j in ipairs(tjoints) do
    node_of[j.name] = i - 1
    rest[i] = { t = j.translation, r = j.rotation, s = j.scale }
  end
  -- (the tree as core.measure_bake and measure_compare take it, when every rest is numbers)
  local flat, mtree = R.flat_rest(rest), nil
  if flat then
    local zeros = {}
    for i = 1, #tjoints do zeros[i] = 0 end
    mtree = { parent = zeros, rest = flat }
  end
  local buf, input_cache = new_buffer(), {}
  local approx = {}
  local reducing = not options or options.reduce ~= false
  local bound, distance = R.bound(tjoints, options)
  local animations = arr()
  for ci, c in ipairs(clips) do
    local info = info_of(c)
    local cname = info.name or "clip"
    local out = clip_channels(c, info, tree, tjoints, rest, fps, mtree, reducing)
    for _, o in ipairs(out) do o.node_index = node_of[o.node] end
    if reducing then
      local r = reduce_channels(c, tree, out, tjoints, rest, info.length, bound, distance)
      if r then
        r.clip = cname
        approx.reduced = approx.reduced or {}
        approx.reduced[#approx.reduced + 1] = r
      end
    end
    local samplers, channels, check = write_channels(out, buf, input_cache, cname, info.length, rest)
    -- the clip against its channels read back, at four times the bake rate
    if #out > 0 then compare_back(c, out, check, cname, info.length, fps, approx, mtree) end
    local anim_def = { name = animation_name(c), samplers = samplers, channels = channels }
    local x = extras_of(c)
    if x then anim_def.extras = x end
    animations[ci] = anim_def
  end
  -- the document
  local nodes, roots = write_nodes(tjoints, node_of)
  -- the skin: the rig's joints (without one, every node), their inverse
  -- bind matrices consistent with the rests written
  if not skin then
    skin = {}
    for i, j in ipairs(tjoints) do skin[i] = j.name end
  end
  local joints = arr()
  for i, name in ipairs(skin) do joints[i] = node_of[name] end
  local skin_def = { name = "skeleton", joints = joints }
  local binds = N.inverse_binds(tjoints, node_of, skin)
  if binds then skin_def.inverseBindMatrices = buf.add(binds, "MAT4", 16) end
  local data = table.concat(buf.bin)
  local doc = {
    asset = { version = "2.0", generator = "anim (Lua), anim.export_gltf" },
    scene = 0,
    scenes = arr { { nodes = roots } },
    nodes = nodes,
    skins = arr { skin_def },
    animations = animations,
    accessors = buf.accessors,
    bufferViews = buf.views,
    buffers = arr { { byteLength = #data } },
  }
  local ok, err = encode.write_atomic(path, document_text(doc, data, glb))
  if not ok then fail("", "%s", (err:gsub("^.-: ", "", 1))) end
  return approx
end

return M
