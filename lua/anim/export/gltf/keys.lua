-- export/gltf/keys.lua: a clip's keys as glTF keys: 32-bit floats, the
-- piecewise curves of the keys (what glTF can hold exactly: linear, step,
-- Hermite segments, slerps), Euler channels as quaternions, and the keys
-- cut to the clip's length.
local compat = require "anim.base.compat"
local core = require "anim.core"
local Q = require "anim.base.quat"
local codes = require "anim.base.codes"

local M = {}

local I = codes.interp
local INTERP_MASK, EASE_MASK, EASE_SHIFT = codes.keybyte.interp_mask, codes.keybyte.ease_mask, codes.keybyte.ease_shift
local EASE = codes.ease

-- 32-bit floats ---------------------------------------------------------------------------

local f32 = core.float32
local bits, from_bits = core.float_bits, core.float_from_bits
-- the float just above / below x (a float)
local function next32(x)
  if x == 0 then return from_bits(1) end
  local b = bits(x)
  return from_bits(x > 0 and b + 1 or b - 1)
end
local function prev32(x)
  if x == 0 then return -from_bits(1) end
  local b = bits(x)
  return from_bits(x > 0 and b - 1 or b + 1)
end
-- the largest float at most t
local function floor32(t)
  local f = f32(t)
  if f > t then f = prev32(f) end
  return f
end

-- Hermite value and derivative at s of the segment from key k to key n.
local function herm_at(k, n, s)
  local L = n.t - k.t
  local s2, s3 = s * s, s * s * s
  local v, d = {}, {}
  for a = 1, #k.v do
    local p0, p1, m0, m1 = k.v[a], n.v[a], k.m0[a] * L, k.m1[a] * L
    v[a] = (2 * s3 - 3 * s2 + 1) * p0 + (s3 - 2 * s2 + s) * m0 + (-2 * s3 + 3 * s2) * p1 + (s3 - s2) * m1
    d[a] = ((6 * s2 - 6 * s) * p0 + (3 * s2 - 4 * s + 1) * m0 + (-6 * s2 + 6 * s) * p1 + (3 * s2 - 2 * s) * m1) / L
  end
  return v, d
end

local function lerp(a, b, s)
  local out = {}
  for i = 1, #a do out[i] = a[i] + (b[i] - a[i]) * s end
  return out
end

local function qnorm(q)
  local n = math.sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3] + q[4] * q[4])
  return { q[1] / n, q[2] / n, q[3] / n, q[4] / n }
end

local function qslerp(a, b, s)
  a, b = qnorm(a), qnorm(b)
  local d = a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4]
  if d < 0 then b = { -b[1], -b[2], -b[3], -b[4] }; d = -d end
  if d > 0.9999999 then return qnorm(lerp(a, b, s)) end
  local th = math.acos(d)
  local wa, wb = math.sin((1 - s) * th) / math.sin(th), math.sin(s * th) / math.sin(th)
  return { wa * a[1] + wb * b[1], wa * a[2] + wb * b[2], wa * a[3] + wb * b[3], wa * a[4] + wb * b[4] }
end

-- Piecewise curves of the keys -------------------------------------------------------------
--
-- A channel's keys read from the core (core.clip_keys) become a list of
-- keys { t, v (the values), kind of the segment that starts there: "lin",
-- "step", "herm" (m0, m1: the tangents at its ends, per second), "jump"
-- (zero length), or nil when glTF cannot hold it }.

local function value_of(v, arity, i)
  local b = (i - 1) * arity
  local out = {}
  for a = 1, arity do out[a] = v[b + a] end
  return out
end

-- The catmullrom neighbours of Blockbench's rule, as the core takes them
-- (csrc/core/curve.c, catmullrom: a jump breaks the spline; a looping
-- clip wraps channels of three distinct times or more).
local function catmullrom_tangents(t, vals, i, wrap)
  local n = #t
  local distinct = 1
  for k = 2, n do if t[k] ~= t[k - 1] then distinct = distinct + 1 end end
  wrap = wrap and distinct >= 3
  local function second_time()
    local j = 2
    while j <= n and t[j] == t[1] do j = j + 1 end
    return j <= n and j or n
  end
  local function second_last_time()
    local j = n - 1
    while j > 1 and t[j] == t[n] do j = j - 1 end
    return j > 1 and j or 1
  end
  local p1, p2 = vals[i], vals[i + 1]
  local p0, p3
  if i > 1 then p0 = t[i - 1] == t[i] and p1 or vals[i - 1]
  else p0 = wrap and vals[second_last_time()] or p1 end
  if i + 2 <= n then p3 = t[i + 2] == t[i + 1] and p2 or vals[i + 2]
  else p3 = wrap and vals[second_time()] or p2 end
  local L = t[i + 1] - t[i]
  local m0, m1 = {}, {}
  for a = 1, #p1 do
    m0[a] = (p2[a] - p0[a]) / 2 / L
    m1[a] = (p3[a] - p1[a]) / 2 / L
  end
  return m0, m1
end

-- Handle `side` (1 out, 2 in) of a key's handle record r (nil: none;
-- csrc/core/curve.h: a time a handle or one per axis, then dv[3] each):
-- its time and its dv on each of the three axes; a handle left out is
-- flat, `dt` long.
local function handle_of(r, side, dt)
  local nt = r and (#r - 7) / 2
  local at = r and (side - 1) * nt
  if not r or r[at + 1] ~= r[at + 1] then return { dt, dt, dt }, { 0, 0, 0 } end
  local b = 2 * nt + (side - 1) * 3
  return { r[at + 1], r[at + (nt > 1 and 2 or 1)], r[at + (nt > 1 and 3 or 1)] }, { r[b + 1], r[b + 2], r[b + 3] }
end

-- The easing of a segment's interpolation and easing byte (asked only of
-- the eased segments).
local function ease_of(code) return compat.rshift(compat.band(code, EASE_MASK), EASE_SHIFT) end

-- The segments of a channel: keys { t, v, kind, m0, m1 }.  `wrap`: the
-- clip loops (catmullrom's neighbours).  quat: quaternion keys, for which
-- only slerp, step and cubicspline are held.
local function segments(raw, arity, quat, wrap)
  local t, v, ie, h, tan = raw.t, raw.v, raw.ie, raw.h, raw.tan
  local n = #t
  local vals = {}
  -- (value_of's tables, written out for the common arities)
  if arity == 3 then
    for i = 1, n do vals[i] = { v[3 * i - 2], v[3 * i - 1], v[3 * i] } end
  elseif arity == 4 then
    for i = 1, n do vals[i] = { v[4 * i - 3], v[4 * i - 2], v[4 * i - 1], v[4 * i] } end
  else
    for i = 1, n do vals[i] = value_of(v, arity, i) end
  end
  local keys = {}
  local band = compat.band
  for i = 1, n do
    local k = { t = t[i], v = vals[i] }
    keys[i] = k
    if i < n then
      local ip = band(ie[i], INTERP_MASK)
      local L = t[i + 1] - t[i]
      if L == 0 then
        k.kind = "jump"
      elseif ip == I.step then
        k.kind = "step"
      elseif quat then
        if ip == I.linear or ip == I.catmullrom or ip == I.bezier then k.kind = "lin"
        elseif ip == I.cubicspline then k.kind = "herm" end
      elseif ip == I.linear then
        k.kind = "lin"
      elseif ip == I.cubicspline then
        k.kind = "herm"
      elseif ip == I.catmullrom then
        k.kind = "herm"
        k.m0, k.m1 = catmullrom_tangents(t, vals, i, wrap)
      elseif ip == I.bezier then
        -- handles a third of the segment long: x(u) = t0 + u L, a Hermite
        -- in time (csrc/core/curve.c, bezier: a missing handle is [L/3, 0])
        -- (a handle whose times differ between the axes is a third of the
        -- segment long on none of them, or on all: each axis is checked)
        local odt, od = handle_of(h and h[i], 1, L / 3)
        local idt, id = handle_of(h and h[i + 1], 2, -L / 3)
        local third = true
        for a = 1, 3 do
          third = third and math.abs(odt[a] - L / 3) <= 1e-12 * L and math.abs(idt[a] + L / 3) <= 1e-12 * L
        end
        if third then
          k.kind = "herm"
          k.m0, k.m1 = {}, {}
          for a = 1, arity do k.m0[a] = 3 * od[a] / L; k.m1[a] = -3 * id[a] / L end
        end
      elseif ip == I.quad or ip == I.cubic then
        -- v0 + d s^2, v0 + d s^3 and their "out" mirrors: cubics in time
        -- (in and out: none)
        local ease = ease_of(ie[i])
        if ease ~= EASE.inOut then
          local p = ip == I.quad and 2 or 3
          k.kind = "herm"
          k.m0, k.m1 = {}, {}
          for a = 1, arity do
            local slope = (vals[i + 1][a] - vals[i][a]) * p / L
            if ease == EASE["in"] then k.m0[a], k.m1[a] = 0, slope else k.m0[a], k.m1[a] = slope, 0 end
          end
        end
      end
      if k.kind == "herm" and not k.m0 then
        -- cubicspline: the keys' own tangents (0 when absent)
        local rec0, rec1 = tan and tan[i], tan and tan[i + 1]
        k.m0, k.m1 = {}, {}
        for a = 1, arity do
          local o = rec0 and rec0[arity + a]
          local m = rec1 and rec1[a]
          k.m0[a] = (o and o == o) and o or 0
          k.m1[a] = (m and m == m) and m or 0
        end
      end
      k.exact = k.kind ~= nil
    end
  end
  if quat then
    -- slerped keys are written unit; a cubic spline's keys as they are (its
    -- samples are made unit); one channel cannot mix the two
    local lin, herm = false, false
    for i = 1, n - 1 do
      if keys[i].kind == "lin" then lin = true elseif keys[i].kind == "herm" then herm = true end
    end
    if lin and herm then
      for i = 1, n - 1 do keys[i].exact = false end
    elseif not herm then
      -- (keys unit to a float's precision, as a glTF file's, stay as they are)
      for i = 1, n do
        local q = keys[i].v
        if math.abs(q[1] * q[1] + q[2] * q[2] + q[3] * q[3] + q[4] * q[4] - 1) > 1e-6 then keys[i].v = qnorm(q) end
      end
    end
  end
  return keys
end

-- Is every segment held (the last key's kind does not count)?
local function all_exact(keys)
  for i = 1, #keys - 1 do if not keys[i].exact then return false end end
  return true
end

-- Does an Euler channel of these values (flat: three a key, as
-- core.clip_keys gives them) turn about more than one axis?  Then
-- euler_as_quats below gives nil whatever its segments (their values are
-- these), which the exporter knows before making them.
local function euler_turns_several(v)
  local varying = 0
  for a = 1, 3 do
    for b = a + 3, #v, 3 do
      if v[b] ~= v[a] then varying = varying + 1 break end
    end
  end
  return varying > 1
end

-- An Euler channel that turns about one axis only, by less than half a
-- turn between keys, with linear and step segments: its quaternions slerp
-- exactly as the angles interpolate.  Returns the keys made quaternions.
local function euler_as_quats(keys, order)
  local varying = 0
  for a = 1, 3 do
    for i = 2, #keys do
      if keys[i].v[a] ~= keys[1].v[a] then varying = varying + 1 break end
    end
  end
  if varying > 1 then return nil end
  for i = 1, #keys - 1 do
    local k = keys[i]
    if k.kind == "herm" or not k.exact then return nil end
    if k.kind == "lin" then
      for a = 1, 3 do
        if math.abs(keys[i + 1].v[a] - k.v[a]) >= 180 then return nil end
      end
    end
  end
  local out = {}
  for i, k in ipairs(keys) do
    out[i] = { t = k.t, v = Q.from_euler(k.v, order), kind = k.kind, exact = k.exact }
  end
  return out
end

-- The keys restricted to [0, L]: a key at 0 (and at L) with the value the
-- curve has there when the keys run past them.  Each kind stays what it is
-- on the part kept (a part of a line is a line, of a slerp a slerp, of a
-- cubic a cubic: its tangents are the cubic's slopes at the cut).
local function clamp_keys(keys, L, quat)
  local n = #keys
  if keys[1].t >= 0 and keys[n].t <= L then return keys end
  -- the value (and slope) at x of the segment from keys[i]
  local function at(i, x)
    local k, nk = keys[i], keys[i + 1]
    if not nk or x <= k.t then return k.v end
    if x >= nk.t then return nk.v end
    local s = (x - k.t) / (nk.t - k.t)
    if k.kind == "herm" then return herm_at(k, nk, s) end
    if k.kind == "lin" then return quat and qslerp(k.v, nk.v, s) or lerp(k.v, nk.v, s) end
    return k.v
  end
  -- the segment holding x: the last key at or before it (0 before the first)
  local function seg(x)
    local i = 0
    for k = 1, n do if keys[k].t <= x then i = k end end
    return i
  end
  local out = {}
  -- (keys that start after 0 stay as they are: glTF holds the first value)
  local i0 = seg(0)
  if i0 > 0 and keys[i0].t < 0 then
    local k = keys[i0]
    local v, d = at(i0, 0)
    local nk = { t = 0, v = v, kind = k.kind, exact = k.exact }
    if k.kind == "herm" then nk.m0, nk.m1 = d, k.m1 end
    out[1] = nk
  end
  for k = 1, n do
    local key = keys[k]
    if key.t >= 0 and key.t <= L then
      out[#out + 1] = key
    end
  end
  if #out == 0 then
    -- every key after L
    out[1] = { t = 0, v = keys[1].v, exact = true }
  end
  local iL = seg(L)
  if iL > 0 and iL < n and keys[iL + 1].t > L then
    -- a key at L ends the last segment kept, with the cubic's slope there
    local v, d = at(iL, L)
    local last = out[#out]
    if last.t < L then
      if last.kind == "herm" then
        local _, d2 = at(iL, L)
        last = { t = last.t, v = last.v, kind = "herm", exact = true, m0 = last.m0, m1 = d2 }
        out[#out] = last
      end
      out[#out + 1] = { t = L, v = v, in_d = d }
    end
  end
  out[#out].kind = nil
  return out
end

-- glTF keys of an exact channel: times, values, and for CUBICSPLINE in- and
-- out-tangents (a, b: only CUBICSPLINE writes them, no other mode turns
-- them by df); interpolation.  f(v) and df(m) turn
-- values and tangents into what is written (rests, retargeting).
local function gltf_keys(keys, f, df)
  local n = #keys
  local mode = "STEP"
  for i = 1, n - 1 do
    local kind = keys[i].kind
    if kind == "herm" then mode = "CUBICSPLINE" break end
    if kind == "lin" then mode = "LINEAR" end
  end
  local out = {}
  local function emit(t, v, tin, tout)
    out[#out + 1] = { t = t, v = v, a = tin, b = tout }
  end
  local zero = {}
  for a = 1, #keys[1].v do zero[a] = 0 end
  local function slope(k, nk)
    local m = {}
    for a = 1, #k.v do m[a] = (nk.v[a] - k.v[a]) / (nk.t - k.t) end
    return m
  end
  -- the tangent arriving at key i and leaving it
  local function arriving(i)
    local p = keys[i - 1]
    if not p then return zero end
    if p.kind == "herm" then return p.m1 end
    if p.kind == "lin" and mode == "CUBICSPLINE" then return slope(p, keys[i]) end
    if keys[i].in_d then return keys[i].in_d end
    return zero
  end
  local function leaving(i)
    local k = keys[i]
    if k.kind == "herm" then return k.m0 end
    if k.kind == "lin" and mode == "CUBICSPLINE" and keys[i + 1] then return slope(k, keys[i + 1]) end
    return zero
  end
  for i = 1, n do
    local k = keys[i]
    local prev = keys[i - 1]
    -- a discontinuity arriving here (a step or a jump): the key is
    -- written at the float at or before its time, so that at its time it
    -- shows its value, and the value held until then one float before
    local disc = prev and (prev.kind == "step" or prev.kind == "jump")
    -- (the float at or before the time: used only at a discontinuity or a jump)
    local tf = (disc or k.kind == "jump") and floor32(k.t)
    if mode == "STEP" then
      -- (of keys at one time only the last shows)
      if k.kind ~= "jump" then emit(disc and tf or f32(k.t), f(k.v)) end
    else
      if prev and prev.kind == "step" then emit(prev32(tf), f(prev.v), zero, zero) end
      local herm = mode == "CUBICSPLINE"
      if k.kind == "jump" then
        -- the first of keys at one time: the value arriving, held until just
        -- before (after a step or jump it never shows)
        if not disc then emit(prev32(tf), f(k.v), herm and df(arriving(i)) or nil, zero) end
      else
        emit(disc and tf or f32(k.t), f(k.v), herm and (disc and zero or df(arriving(i))) or nil,
          herm and df(leaving(i)) or nil)
      end
    end
  end
  -- strictly increasing times (floats of nearby times may meet)
  for i = 2, #out do
    if out[i].t <= out[i - 1].t then out[i].t = next32(out[i - 1].t) end
  end
  return out, mode
end

-- Normalized shorts (glTF's SHORT, normalized: a rotation output may be
-- written so, half a float's bytes): q made unit, each component the
-- nearest n / 32767, the value a reader decodes.
local SHORT = 32767
local floor, sqrt = math.floor, math.sqrt
function M.short_quat(q)
  -- (qnorm's arithmetic, written out: no table between)
  local x, y, z, w = q[1], q[2], q[3], q[4]
  local n = sqrt(x * x + y * y + z * z + w * w)
  return { floor(x / n * SHORT + 0.5) / SHORT, floor(y / n * SHORT + 0.5) / SHORT, floor(z / n * SHORT + 0.5) / SHORT,
    floor(w / n * SHORT + 0.5) / SHORT }
end

-- The bytes of such values (each n / 32767), little-endian (in C: one
-- buffer, no string a value).
M.pack_shorts = core.gltf_pack_shorts

-- Segments that are lines, and curves' quarters ------------------------------------------

-- Is a segment whose first key has the core's interpolation and easing
-- byte `code` a plain line (a lerp; a slerp for quaternions)?
function M.is_line(code)
  return compat.band(code, INTERP_MASK) == I.linear and compat.band(code, EASE_MASK) == 0
end

-- The quarters of each segment of keys at times t (their bytes ie) that is
-- not a line, appended to out: where a curve is sampled besides its keys,
-- so that one shorter than the samples' step is followed (an ease in and
-- out meets the line through its keys halfway, where a measure looks).
function M.curve_quarters(t, ie, out)
  for i = 1, #t - 1 do
    local x, d = t[i], t[i + 1] - t[i]
    if d > 0 and not M.is_line(ie[i]) then
      for q = 1, 3 do out[#out + 1] = x + d * q / 4 end
    end
  end
  return out
end

M.f32, M.next32, M.prev32, M.floor32, M.qnorm, M.qslerp, M.lerp = f32, next32, prev32, floor32, qnorm, qslerp, lerp
M.segments, M.all_exact, M.euler_as_quats, M.clamp_keys, M.gltf_keys = segments, all_exact, euler_as_quats, clamp_keys,
  gltf_keys
M.euler_turns_several = euler_turns_several

return M
