-- import/blockbench/channel.lua: one animated channel of a Blockbench project or Bedrock
-- animation file, held as Blockbench holds it (keys with pre and post
-- values, per-key interpolation, per-axis bezier handles, GeckoLib
-- easings), evaluated as Blockbench evaluates it, and turned into the keys
-- of a version 3 clip channel.
--
-- The readers (bbmodel.lua, bedrock.lua) build channels already in the
-- clip's units and signs: positions in blocks, angles in degrees in
-- Blockbench's internal (three.js) axes, Euler order zyx.  A channel is
--   { keys = { key, ... }, where = "animation 'a', bone 'b', rotation" }
-- sorted by time, a key being
--   { t, pre = {x, y, z}, post = {x, y, z}, two = (pre and post given),
--     path = its JSON path,
--     interp = "linear" | "catmullrom" | "bezier" | "step",
--     ease = nil | a GeckoLib or Animated Java easing (easing.lua),
--     bz = nil | { lt = {3}, lv = {3}, rt = {3}, rv = {3} } }
-- and each axis value is { c = number } or { f = function(t), src, periods,
-- path, where } (Molang of time, with its JSON path and words for messages).
-- A rotation channel with `slerp = true` is one Blockbench interpolates as
-- quaternions (an animator's quaternion_interpolation); one with
-- `ease_linear = true` (a .bbmodel's) plays its easings only on segments
-- Blockbench plays linear, as the plugins do.  `notes` collects, in words,
-- what the channel's import read otherwise than the game (M.note).
--
-- M.convert writes exact keys wherever the clip format can say the same
-- thing, and bakes the rest (bake.lua) within bake.BOUND.
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local molang = require "anim.import.blockbench.molang"
local bake = require "anim.import.blockbench.bake"
local easing = require "anim.import.blockbench.easing"
local Q = require "anim.base.quat"
local byteorder = require "anim.base.order"
local dot_number = require("anim.base.compat").number

local M = {}

local fail = E.fail

-- Values ---------------------------------------------------------------------------

local function num(v)
  if v == 0 then return 0 end -- no -0 in the clip: it reads the same and looks odd
  return v
end

-- Adds a note (a warning, in words) to a channel: what its import had
-- to read some other way than the game does.
function M.note(chan, text)
  if not chan then return end
  local notes = chan.notes
  if not notes then
    notes = {}
    chan.notes = notes
  end
  if not notes[text] then
    notes[text] = true
    notes[#notes + 1] = text
  end
end
local note = M.note

-- A value of a key axis from the file (a number or a Molang string), for
-- messages `where` = "animation 'walk', bone 'head', rotation x".  chan
-- collects the notes (stand-ins the Molang needed), env is the Molang
-- environment of the file (molang.compile); dflt the channel's default
-- (0, or 1 for scale), what Blockbench reads for a value that is neither a
-- number nor a string (Merge.molang in js/util/util.js keeps only those).
function M.value(v, path, where, chan, env, dflt)
  if type(v) == "number" then
    if v ~= v then
      -- Blockbench's Molang reads a number that is not one as 0 (molangjs: `input || 0`)
      note(chan, "a value NaN read as 0 (as Blockbench reads it)")
      return { c = 0 }
    end
    if not E.finite(v) then fail(path, "%s: value must be a finite number, got %s", where, E.describe(v)) end
    return { c = v }
  end
  if type(v) ~= "string" then
    note(chan, string.format("a value that is %s read as %s (as Blockbench reads what is neither a number nor a string)",
      E.describe(v) == "object" and "an object" or E.describe(v) == "array" and "an array" or E.describe(v),
      E.num(dflt or 0)))
    return { c = dflt or 0 }
  end
  if v:match("^%s*$") then return { c = 0 } end -- Blockbench reads an empty field as 0
  local e, err = molang.compile(v, env)
  if not e then fail(path, "%s: cannot import Molang %s", where, err) end
  for _, n in ipairs(e.notes) do note(chan, n) end
  if e.const then
    local c = e.const
    if c ~= c then
      note(chan, string.format("Molang '%s' evaluates to nan: read as 0 (as Blockbench reads it)", E.shown(v)))
      return { c = 0 }
    end
    if not E.finite(c) then
      fail(path, "%s: Molang '%s' evaluates to %s", where, E.shown(v), E.describe(c))
    end
    return { c = c }
  end
  local fn = e.fn
  return {
    src = v,
    id = v, -- values with one id are one function of time
    periods = e.periods,
    path = path,
    where = where,
    f = function(t)
      local x = fn(t)
      if x ~= x then
        note(chan, string.format("Molang '%s' evaluates to nan at some times: read as 0 there (as Blockbench reads it)",
          E.shown(v)))
        return 0
      end
      if x == math.huge or x == -math.huge then
        fail(path, "%s: Molang '%s' evaluates to %s at query.anim_time = %s", where, E.shown(v), E.describe(x), E.num(t))
      end
      return x
    end,
  }
end

-- A number field as Blockbench's Merge.number reads it: a number, or a
-- string that is one ("1.5"); nil for NaN or anything else (Blockbench
-- then keeps the field's default).  E.number refuses what is not finite.
function M.number_field(v, path, what)
  if type(v) == "string" then v = dot_number(v) or v end
  if type(v) == "number" and v ~= v then return nil end
  if type(v) ~= "number" then return nil end
  return E.number(v, path, what)
end

-- k times a value (signs, pixels to blocks).
function M.scale(e, k)
  if e.c then return { c = num(e.c * k) } end
  if k == 1 then return e end
  local f = e.f
  return { src = e.src, id = e.id .. "*" .. k, periods = e.periods, path = e.path, where = e.where,
    f = function(t) return k * f(t) end }
end

local function vec3(p, t)
  local a, b, c = p[1], p[2], p[3]
  return { a.c or a.f(t), b.c or b.f(t), c.c or c.f(t) }
end
local function is_const(p) return p[1].c ~= nil and p[2].c ~= nil and p[3].c ~= nil end

-- The values of two points at t, the same function evaluated once (keys
-- that repeat one Molang expression: the segment between is that function).
local function vec3_pair(p, q, t)
  local a, b = {}, {}
  for x = 1, 3 do
    local e, g = p[x], q[x]
    local v = e.c or e.f(t)
    a[x] = v
    if g == e or (g.id ~= nil and g.id == e.id) then b[x] = v else b[x] = g.c or g.f(t) end
  end
  return a, b
end

-- Rotations --------------------------------------------------------------------------

-- Degrees in Blockbench's order zyx (R = Rz·Ry·Rx, three.js 'ZYX').
function M.quat_zyx(d) return Q.from_euler(d, "zyx") end

-- R(rest)^-1 · R(rest + angles): the turn from the rest that Blockbench
-- shows when it adds the animated angles to the rest angles.
local function rest_offset(rest, v)
  local q = Q.mul(Q.inverse(M.quat_zyx(rest)), M.quat_zyx { rest[1] + v[1], rest[2] + v[2], rest[3] + v[3] })
  if q[4] < 0 then q = { -q[1], -q[2], -q[3], -q[4] } end
  return q
end
M.rest_offset = rest_offset

-- Does R(rest)·R(a) equal R(rest + a) for every a the channel takes?  With
-- R = Rz·Ry·Rx: yes when the rest is a turn about z alone, when it has no
-- x and the channel never turns about z, or when the channel only turns
-- about x (the turns then meet their own axis next to each other).
--
-- An axis turns when any value of it is not 0 (a key's pre or post, or
-- Molang, which may be anything), or when a bezier segment has a handle
-- value on it that is not 0: Blockbench's bezier leaves the line between
-- the keys by the handle values, so an axis keyed 0 at both ends moves in
-- between.  Catmull-Rom, easings and steps only mix key values, so they
-- move an axis only where its values do.  (Slerped channels never come
-- here: they compose with the rest exactly.)
local seg_mode -- below

local function axes_that_move(keys)
  local moves = { false, false, false }
  for _, k in ipairs(keys) do
    for _, p in ipairs { k.pre, k.post } do
      for a = 1, 3 do
        if p[a].c == nil or p[a].c ~= 0 then moves[a] = true end
      end
    end
  end
  for i = 1, #keys - 1 do
    local b, a = keys[i], keys[i + 1]
    if a.t > b.t and seg_mode(b, a, false, true) == "bezier" then
      for x = 1, 3 do
        if b.bz.rv[x] ~= 0 or a.bz.lv[x] ~= 0 then moves[x] = true end
      end
    end
  end
  return moves
end
M.axes_that_move = axes_that_move

local function rest_composes(rest, keys)
  local moves = axes_that_move(keys)
  return (rest[1] == 0 and rest[2] == 0) or (rest[1] == 0 and not moves[3]) or (not moves[2] and not moves[3])
end
M.rest_composes = rest_composes

-- Easings: easing.lua (GeckoLib's and Animated Java's).
M.step_curve, M.EASING_RULES, M.easing = easing.step_curve, easing.EASING_RULES, easing.easing

-- Blockbench's evaluation -------------------------------------------------------------

-- The interpolation of the segment from key b to key a (Blockbench tests
-- both ends, in this order), "ease" for a GeckoLib easing, or "slerp" in a
-- channel interpolated as quaternions.
function seg_mode(b, a, slerp, ease_linear)
  if b.interp == "step" then return "step" end
  if slerp then return "slerp" end
  local bi, ai = b.interp, a.interp
  -- GeckoLib files: a key's easing is its segment's whole interpolation;
  -- .bbmodel (the GeckoLib and Animated Java plugins patch Blockbench's
  -- linear interpolation, Keyframe.getLerp): only where the segment is linear
  if a.ease and (not ease_linear or (bi == "linear" and (ai == "linear" or ai == "step"))) then return "ease" end
  if bi == "linear" and (ai == "linear" or ai == "step") then return "linear" end
  if bi == "catmullrom" or ai == "catmullrom" then return "catmullrom" end
  if bi == "bezier" or ai == "bezier" then return "bezier" end
  return "linear"
end

local function cubic(a, b, c, d, u)
  local v = 1 - u
  return a * v * v * v + 3 * b * u * v * v + 3 * c * u * u * v + d * u * u * u
end

-- Per-axis bezier (Keyframe.getBezierLerp): handle times clamped into the
-- segment, x(u) = t solved by bisection (x is monotone then).
local function bezier_axis(tb, vb, rt, rv, ta, va, lt, lv, t)
  local gap = ta - tb
  local x1 = tb + math.min(math.max(rt, 0), gap)
  local x2 = ta + math.min(math.max(lt, -gap), 0)
  -- Newton's method on x(u) = t, kept inside a shrinking bracket (a step
  -- that leaves it bisects instead): a handful of steps, whatever the handles
  local lo, hi = 0, 1
  local u = gap > 0 and (t - tb) / gap or 0
  for _ = 1, 40 do
    local x = cubic(tb, x1, x2, ta, u) - t
    if x < 0 then lo = u else hi = u end
    if math.abs(x) <= 1e-12 * math.max(1, math.abs(t)) or hi - lo <= 1e-15 then break end
    local v = 1 - u
    local dx = 3 * (v * v * (x1 - tb) + 2 * u * v * (x2 - x1) + u * u * (ta - x2))
    local nu = dx > 0 and u - x / dx or -1
    if nu <= lo or nu >= hi then nu = (lo + hi) / 2 end
    u = nu
  end
  return cubic(vb, vb + rv, va + lv, va, u)
end

-- The value of segment i (keys i and i+1) at t in [t_i, t_i+1].
local function seg_value(K, i, mode, wrap, t)
  local b, a = K[i], K[i + 1]
  if mode == "step" then return vec3(b.post, t) end
  local s = (t - b.t) / (a.t - b.t)
  local v0, v1 = vec3_pair(b.post, a.pre, t)
  if mode == "linear" or mode == "ease" or mode == "slerp" then
    -- (the angles of a slerped segment only matter at its ends: see convert)
    local f = s
    if mode == "ease" then f = s >= 1 and 1 or a.ease.fn(s) end -- GeckoLib ends on the key's value
    return { v0[1] + (v1[1] - v0[1]) * f, v0[2] + (v1[2] - v0[2]) * f, v0[3] + (v1[3] - v0[3]) * f }
  end
  if mode == "catmullrom" then
    -- uniform Catmull-Rom on the values (three.js SplineCurve as Blockbench
    -- uses it); a key with pre and post breaks the neighbourhood
    local p0, p3 = v0, v1
    if not b.two then
      local bp = K[i - 1] or (wrap and K[#K - 1])
      if bp then p0 = vec3(bp.post, t) end
    end
    if not a.two then
      local ap = K[i + 2] or (wrap and K[2])
      if ap then p3 = vec3(ap.pre, t) end
    end
    local out, s2, s3 = {}, s * s, s * s * s
    for x = 1, 3 do
      local p1, p2 = v0[x], v1[x]
      local m1, m2 = (p2 - p0[x]) / 2, (p3[x] - p1) / 2
      out[x] = (2 * p1 - 2 * p2 + m1 + m2) * s3 + (-3 * p1 + 3 * p2 - 2 * m1 - m2) * s2 + m1 * s + p1
    end
    return out
  end
  local out = {}
  for x = 1, 3 do
    out[x] = bezier_axis(b.t, v0[x], b.bz.rt[x], b.bz.rv[x], a.t, v1[x], a.bz.lt[x], a.bz.lv[x], t)
  end
  return out
end

-- The bezier handle times of a segment, clamped into it as Blockbench
-- clamps them (bezier_axis): dt_out, dt_in as one number when the axes
-- that move share them, else as [dtx, dty, dtz] each (the clip's handles
-- take a time per axis: docs/format-reference.md, "Bezier handles").
local function bezier_times(b, a, v0, v1)
  local gap = a.t - b.t
  local dto, dti, rts, lts, same = nil, nil, {}, {}, true
  for x = 1, 3 do
    local rt = math.min(math.max(b.bz.rt[x], 0), gap)
    local lt = math.min(math.max(a.bz.lt[x], -gap), 0)
    rts[x], lts[x] = rt, lt
    local flat = v0[x] == v1[x] and b.bz.rv[x] == 0 and a.bz.lv[x] == 0
    if not flat then
      if dto == nil then
        dto, dti = rt, lt
      elseif dto ~= rt or dti ~= lt then
        same = false
      end
    end
  end
  if not same then return rts, lts end
  if dto == nil then return gap / 3, -gap / 3 end -- every axis flat: any handle does
  return dto, dti
end

-- The channel's value at time t, as Blockbench shows it (Euler angles,
-- offsets or scales; between keys as the segment says; held outside).
function M.evaluate(chan, t, loop)
  local K = chan.keys
  local n = #K
  if t < K[1].t then return vec3(K[1].pre, t) end
  if t >= K[n].t then return vec3(K[n].post, t) end
  local i = 1
  while K[i + 1].t <= t do i = i + 1 end
  return seg_value(K, i, seg_mode(K[i], K[i + 1], chan.slerp, chan.ease_linear), loop == "loop" and n >= 3, t)
end

-- Conversion -------------------------------------------------------------------------------

-- How the channel's values become the clip's: conv (nil: as they are; a
-- function of the Euler angles: quaternion offsets from the rest) and the
-- kind of value baking compares ("quat" or "vec").  Notes in report why
-- the clip plays quaternions.
local function converter(chan, K, rest, report)
  local conv
  if chan.slerp then
    -- Blockbench slerps between the whole rotations R(rest + angles) of the
    -- two keys; slerp commutes with R(rest)^-1, so the offsets from the rest
    -- slerped are exactly that
    rest = rest or { 0, 0, 0 }
    report.quat = true
    conv = function(v) return rest_offset(rest, v) end
  elseif rest and not rest_composes(rest, K) then
    report.quat = true
    report.reasons["rest rotation (Blockbench adds the angles to the rest angles)"] = true
    conv = function(v) return rest_offset(rest, v) end
  end
  return conv, report.quat and "quat" or "vec"
end

-- A first grid for baking, fine enough to see the fastest oscillation.
local function first_grid(K)
  local hint = 0.1
  for _, k in ipairs(K) do
    for _, p in ipairs { k.pre, k.post } do
      for x = 1, 3 do
        for _, per in ipairs(p[x].periods or {}) do hint = math.min(hint, per / 16) end
      end
    end
  end
  return hint
end

-- Which segments the clip plays exactly: modes[i] (seg_mode's), exact[i],
-- bz[i] (the bezier handle times), and whether the clip's length reads
-- Molang before the first key or after the last.  Notes in report why
-- the others are baked.
local function plan_segments(chan, K, L, report)
  local n = #K
  local modes, exact, bz = {}, {}, {}
  local has_catmull = false
  local before = K[1].t > 0 and not is_const(K[1].pre)
  local after = L > K[n].t and not is_const(K[n].post)
  local all_exact = not before and not after
  if before or after then report.reasons["Molang"] = true end
  for i = 1, n - 1 do
    local b, a = K[i], K[i + 1]
    if a.t > b.t then
      local m = seg_mode(b, a, chan.slerp, chan.ease_linear)
      modes[i] = m
      if m == "catmullrom" then has_catmull = true end
      local ok = chan.slerp or not report.quat
      if not (is_const(b.post) and (m == "step" or is_const(a.pre))) then
        ok = false
        report.reasons["Molang"] = true
      end
      if ok and m == "ease" and not a.ease.exact then
        ok = false
        report.reasons[(a.ease.tool or "GeckoLib") .. " easing " .. a.ease.name] = true
      end
      if ok and m == "bezier" then
        bz[i] = { bezier_times(b, a, vec3(b.post, 0), vec3(a.pre, 0)) }
      end
      exact[i] = ok
      all_exact = all_exact and ok
    end
  end
  if has_catmull and not all_exact then
    -- a catmullrom segment reads the keys on either side of it: once keys
    -- are baked in anywhere, bake the whole channel
    for i in pairs(exact) do exact[i] = false end
  end
  return modes, exact, bz, before, after
end

-- The records of the keys being made (bk.recs: { t, v, interp, ease, hin,
-- hout }); a record equal to the last at its time is that one.
local function push(bk, t, v, fresh)
  local recs = bk.recs
  local last = recs[#recs]
  if not fresh and last and last.t == t and bk.dist(last.v, v) <= 1e-9 then return last end
  local r = { t = t, v = v }
  recs[#recs + 1] = r
  return r
end

-- Refuses a stretch that needs more keys than the channel may have:
-- names the first Molang among `points` (the values the stretch reads),
-- or else the stretch's key (`key`) and why it is baked.
local function too_many(bk, points, key, t0, t1)
  local max_keys = bk.max_keys
  local cap = string.format("more than %d keys on the channel (%s) would be needed to stay within %s from %s to %s s",
    max_keys, max_keys < bake.MAX_KEYS and "what anim.limits.keys leaves for the file's clips" or "the cap",
    E.num(bake.BOUND), E.num(t0), E.num(t1))
  for _, p in ipairs(points) do
    for x = 1, 3 do
      local e = p[x]
      if e.f then fail(e.path, "%s: Molang '%s' changes too fast to bake: %s", e.where, E.shown(e.src), cap) end
    end
  end
  local reasons = {}
  for r in pairs(bk.report.reasons) do reasons[#reasons + 1] = r end
  byteorder.sort(reasons)
  fail(key.path, "%s: baked for %s, it changes too fast: %s", bk.chan.where or "channel",
    table.concat(reasons, ", "), cap)
end

-- The values segment i reads: its ends, and for Catmull-Rom the
-- neighbours (as seg_value picks them).
local function reads(bk, i, m)
  local K, n = bk.K, #bk.K
  local pts = { K[i].post, K[i + 1].pre }
  if m == "catmullrom" then
    local bp = K[i - 1] or (bk.wrap and K[n - 1])
    local ap = K[i + 2] or (bk.wrap and K[2])
    if bp then pts[#pts + 1] = bp.post end
    if ap then pts[#pts + 1] = ap.pre end
  end
  return pts
end

-- f baked from t0 to t1 into the records (points: the values it reads,
-- key: the key a refusal names, weight: the cost of one sample).
local function bake_into(bk, f, t0, t1, points, key, weight)
  local report, opts = bk.report, bk.opts
  report.baked = true
  local s, st = bake.sample(f, t0, t1, bk.kind, nil, bk.hint, math.max(1, bk.max_keys - #bk.recs), opts.samples, weight)
  if not s and st.spent then
    fail(key.path, "%s: not baked: the file's baking has used its %d evaluations (anim.limits.bake_samples;"
      .. " anim.set_limits raises it)", bk.chan.where or "channel", opts.samples.limit)
  end
  if not s then too_many(bk, points, key, t0, t1) end
  report.rate = math.max(report.rate, st.rate)
  report.err = math.max(report.err, st.err)
  report.jumps = report.jumps + st.jumps
  for _, x in ipairs(s) do push(bk, x[1], x[2]) end
end

-- The records as .anim keys: [t, v, interpolation, extra].
local function keys_of(recs)
  local keys = {}
  for i, r in ipairs(recs) do
    local v = {}
    for x = 1, #r.v do v[x] = num(r.v[x]) end
    local key = { r.t, v }
    local interp = r.interp or "linear"
    if interp ~= "linear" or r.ease or r.hin or r.hout then
      key[3] = interp
      local extra = {}
      if r.ease then extra.ease = r.ease end
      if r.hin then extra["in"] = r.hin end
      if r.hout then extra.out = r.hout end
      if next(extra) then key[4] = extra end
    end
    keys[i] = key
  end
  return keys
end

-- Keys of a clip channel for chan.  opts = { length, loop, rest = the
-- bone's rest angles (rotation channels of a .bbmodel), keys_left = the
-- most keys baking may still add for the file (what anim.limits.keys
-- leaves), samples = { used, limit } (the file's anim.limits.bake_samples) }.
-- Returns the keys and a report { baked, quat, reasons = {text = true},
-- rate, err, jumps }.
function M.convert(chan, opts)
  local K = chan.keys
  local n = #K
  local L = opts.length
  local wrap = opts.loop == "loop" and n >= 3
  local report = { baked = false, quat = false, reasons = {}, rate = 0, err = 0, jumps = 0 }
  local conv, kind = converter(chan, K, opts.rest, report)
  local function at(p, t)
    local v = vec3(p, t)
    return conv and conv(v) or v
  end
  local modes, exact, bz, before, after = plan_segments(chan, K, L, report)
  local bk = { recs = {}, report = report, chan = chan, K = K, wrap = wrap, kind = kind, dist = bake.dist[kind],
    hint = first_grid(K), opts = opts,
    -- the channel's cap, or less when the clip's budget is nearly spent
    max_keys = math.min(bake.MAX_KEYS, opts.keys_left or math.huge) }

  if before then bake_into(bk, function(t) return at(K[1].pre, t) end, 0, K[1].t, { K[1].pre }, K[1]) end
  local pending_in
  for i = 1, n do
    local k = K[i]
    local rp = push(bk, k.t, at(k.pre, k.t))
    if pending_in then
      rp.hin = pending_in
      pending_in = nil
    end
    -- a key with pre and post is two keys even when they are equal: it
    -- breaks Catmull-Rom's neighbourhood in Blockbench, and so in the clip
    local r = push(bk, k.t, at(k.post, k.t), k.two)
    local a = K[i + 1]
    if a and a.t > k.t then
      local m = modes[i]
      if exact[i] then
        if m == "step" then
          r.interp = "step"
        elseif m == "ease" then
          r.interp, r.ease = a.ease.exact[1], a.ease.exact[2]
        elseif m == "catmullrom" then
          r.interp = "catmullrom"
        elseif m == "bezier" then
          r.interp = "bezier"
          r.hout = { bz[i][1], { k.bz.rv[1], k.bz.rv[2], k.bz.rv[3] } }
          pending_in = { bz[i][2], { a.bz.lv[1], a.bz.lv[2], a.bz.lv[3] } }
        end
      else
        bake_into(bk, function(t)
          if m == "slerp" then
            return bake.slerp(at(k.post, t), at(a.pre, t), (t - k.t) / (a.t - k.t))
          end
          local v = seg_value(K, i, m, wrap, t)
          return conv and conv(v) or v
        end, k.t, a.t, reads(bk, i, m), m == "ease" and a or k, -- an easing is the key's it ends at
          m == "bezier" and 6 or 1) -- a bezier sample solves a cubic per axis
      end
    end
  end
  if after then bake_into(bk, function(t) return at(K[n].post, t) end, K[n].t, L, { K[n].post }, K[n]) end
  return keys_of(bk.recs), report
end

return M
