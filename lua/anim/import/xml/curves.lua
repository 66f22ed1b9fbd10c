-- import/xml/curves.lua: the viewer's scalar curves (one per
-- transformation: constant, linear and sine segments), and the axes of a
-- channel merged onto shared key times (exact, or cubic pieces within
-- M.TOLERANCE of a sine), cut to a window and repeated.
local E = require "anim.base.errors"
local limits = require "anim.base.limits"
local codes = require "anim.base.codes"

local M = {}

local fail = E.fail
local num = E.num
local LIM = limits.current
-- Cubic pieces that stand in for a sine segment are made short enough that
-- they stay within this many degrees (or blocks) of it.
M.TOLERANCE = 1e-5
local MAX_PIECES = 4096        -- cubic pieces for one segment at most

-- Codes of the C core (csrc/core/codes.h).
local LINEAR, STEP, BEZIER = codes.interp.linear, codes.interp.step, codes.interp.bezier
local EASE_IN, EASE_OUT, EASE_INOUT = codes.ease["in"], codes.ease.out, codes.ease.inOut

-- Scalar curves ---------------------------------------------------------------------
--
-- A key list K is sorted by time (equal times make a jump) and its keys are
-- { t, v, c, e } plus, for the cubic pieces this module makes, mo (the slope
-- leaving a BEZIER key) and mi (the slope arriving at the key after it).
-- These functions evaluate exactly what csrc/core/curve.c evaluates.

local PI = math.pi

-- The sine easing of csrc/core/amath.c and its derivative (in s).
local function ease(e, s)
  if e == EASE_IN then return 1 - math.cos(s * PI / 2) end
  if e == EASE_OUT then return 1 - (1 - math.cos((1 - s) * PI / 2)) end
  if s < 0.5 then return (1 - math.cos(2 * s * PI / 2)) / 2 end
  return 1 - (1 - math.cos((2 - 2 * s) * PI / 2)) / 2
end
local function dease(e, s)
  if e == EASE_IN then return PI / 2 * math.sin(s * PI / 2) end
  if e == EASE_OUT then return PI / 2 * math.cos(s * PI / 2) end
  return PI / 2 * math.sin(s * PI)
end

-- Cubic Hermite from p0 to p1 with end slopes m0, m1 (per unit s).
local function hermite(p0, p1, m0, m1, s)
  local s2, s3 = s * s, s * s * s
  return (2 * s3 - 3 * s2 + 1) * p0 + (s3 - 2 * s2 + s) * m0 + (-2 * s3 + 3 * s2) * p1 + (s3 - s2) * m1
end
local function dhermite(p0, p1, m0, m1, s)
  local s2 = s * s
  return (6 * s2 - 6 * s) * p0 + (3 * s2 - 4 * s + 1) * m0 + (-6 * s2 + 6 * s) * p1 + (3 * s2 - 2 * s) * m1
end

local function seg_value(a, b, t)
  if a.c == STEP then return a.v end
  local T = b.t - a.t
  local s = (t - a.t) / T
  if a.c == LINEAR then return a.v + (b.v - a.v) * s end
  if a.c == BEZIER then return hermite(a.v, b.v, a.mo * T, b.mi * T, s) end
  return a.v + (b.v - a.v) * ease(a.e, s)
end

-- Slope (per second) of the segment a -> b at time t.
local function seg_slope(a, b, t)
  if a.c == STEP then return 0 end
  local T = b.t - a.t
  local s = (t - a.t) / T
  if a.c == LINEAR then return (b.v - a.v) / T end
  if a.c == BEZIER then return dhermite(a.v, b.v, a.mo * T, b.mi * T, s) / T end
  return (b.v - a.v) * dease(a.e, s) / T
end

-- Index of the last key with time <= t (le) or < t (not le); 0 when none.
local function find(K, t, le)
  local lo, hi, ans = 1, #K, 0
  while lo <= hi do
    local mid = math.floor((lo + hi) / 2)
    local kt = K[mid].t
    if kt < t or (le and kt == t) then ans = mid; lo = mid + 1 else hi = mid - 1 end
  end
  return ans
end

-- The value at t (right-continuous: at a jump, the last key's value).
local function value(K, t)
  local i = find(K, t, true)
  if i == 0 then return K[1].v end
  if i == #K or K[i].t == t then return K[i].v end
  return seg_value(K[i], K[i + 1], t)
end

-- The value arriving at t (the limit from the left; before the first key,
-- the first key's value, which is held there).
local function arrival(K, t)
  local i = find(K, t, false)
  if i == 0 then return K[1].v end
  if i == #K then return K[i].v end
  local a, b = K[i], K[i + 1]
  if b.t == t then return a.c == STEP and a.v or b.v end
  return seg_value(a, b, t)
end

-- What curve K does on the open interval (t0, t1), inside which it has no
-- key: { kind = "const" | "linear" | "cubic" | "whole" (a whole sine
-- segment) | "partial" (a part of one), a, b (the segment's keys) }.
local CONST = { kind = "const" }
local function piece(K, t0, t1)
  local i = find(K, t0, true)
  if i == 0 or i == #K then return CONST end
  local a, b = K[i], K[i + 1]
  if a.c == STEP then return CONST end
  if a.c == BEZIER then
    if a.v == b.v and a.mo == 0 and b.mi == 0 then return CONST end
    return { kind = "cubic", a = a, b = b }
  end
  if a.v == b.v then return CONST end
  if a.c == LINEAR then return { kind = "linear", a = a, b = b } end
  if a.t == t0 and b.t == t1 then return { kind = "whole", a = a, b = b } end
  return { kind = "partial", a = a, b = b }
end

-- Largest fourth derivative (per second^4) of a sine piece: the error of
-- a cubic Hermite over a stretch h is at most M4 * h^4 / 384.
local function sine_m4(p)
  local T = p.b.t - p.a.t
  local c = p.a.e == EASE_INOUT and PI ^ 4 / 2 or (PI / 2) ^ 4
  return math.abs(p.b.v - p.a.v) * c / T ^ 4
end

local function same(a, b)
  for i = 1, #a do
    if a[i] ~= b[i] then return false end
  end
  return true
end

-- Merging axes ----------------------------------------------------------------------
--
-- merge(fs, T, window) puts n scalar curves (fs[a] a key list, or false for
-- an axis that stays 0) on the shared key times T (sorted, distinct, every
-- key time of every curve inside [T[1], T[#T]] among them).  It returns keys
-- { t, v = {n values}, c, e, mo, mi (n slopes, for cubic pieces) }, whether
-- they are exact, and a bound on their error where they are not.
--
-- At each time there is a key with the arriving values and, when some axis
-- jumps there, a second one with the leaving values.  Between two times
-- every axis does one thing: stays constant, goes linearly, follows a whole
-- sine segment, a part of one, or a cubic.  When the axes agree on one
-- interpolation (constant axes agree with anything), that is the key's
-- interpolation and the keys are exact; otherwise each axis gets a cubic
-- Hermite piece (a bezier key with handles a third of the way, so that time
-- is linear in the curve parameter), which is exact for constant, linear and
-- cubic axes and, cut short enough, within TOLERANCE of a sine.
--
-- With `window`, the curves are cut to [T[1], T[#T]]: the first key holds
-- the values at T[1] and the last the values arriving at T[#T] (left out
-- after a step, where they are the values held).
-- The state of one merge: the curves (fs, n of them), the keys made so
-- far (out), whether they are exact and their error bound, the slopes
-- arriving at the next key (pending: after a cubic piece), and the path
-- messages name.
local function at(m, t, fn)
  local r = {}
  for a = 1, m.n do r[a] = m.fs[a] and fn(m.fs[a], t) or 0.0 end
  return r
end

local function push(m, t, v)
  local k = { t = t, v = v, c = LINEAR, e = 0 }
  if m.pending then k.mi, m.pending = m.pending, nil end
  local out = m.out
  out[#out + 1] = k
  if #out > LIM.keys then
    fail(m.path, "too many keys once the axes are put together (at most %d, anim.limits.keys)", LIM.keys)
  end
  return k
end

-- The span from key dep (at t) to t1 as cubic pieces (pieces: each axis's
-- piece there), short enough for the sine axes; leaves the slopes
-- arriving at t1 pending.
local function cubic_span(m, dep, pieces, t, t1)
  local n = m.n
  local m4 = 0
  for a = 1, n do
    local p = pieces[a]
    if p.kind == "whole" or p.kind == "partial" then m4 = math.max(m4, sine_m4(p)) end
  end
  local span = t1 - t
  local count = 1
  if m4 > 0 then
    m.exact = false
    count = math.ceil(span / (384 * M.TOLERANCE / m4) ^ 0.25)
    if count > MAX_PIECES then count = MAX_PIECES end
    if count < 1 then count = 1 end
    m.err = math.max(m.err, m4 * (span / count) ^ 4 / 384)
  end
  local function slopes(tt)
    local r = {}
    for a = 1, n do
      local p = pieces[a]
      r[a] = p.kind == "const" and 0.0 or seg_slope(p.a, p.b, tt)
    end
    return r
  end
  local function values(tt)
    local r = {}
    for a = 1, n do
      local p = pieces[a]
      r[a] = p.kind == "const" and dep.v[a] or seg_value(p.a, p.b, tt)
    end
    return r
  end
  dep.c, dep.mo = BEZIER, slopes(t)
  for j = 1, count - 1 do
    local tj = t + span * j / count
    local sl = slopes(tj)
    m.pending = sl
    local key = push(m, tj, values(tj))
    key.c, key.mo = BEZIER, sl
  end
  -- the arriving slopes, for the key at t1
  local r = {}
  for a = 1, n do
    local p = pieces[a]
    if p.kind == "const" then r[a] = 0.0
    elseif p.b.t == t1 then
      -- at the end of its segment: the slope arriving there
      local T0 = p.b.t - p.a.t
      if p.a.c == BEZIER then r[a] = p.b.mi
      elseif p.a.c == LINEAR then r[a] = (p.b.v - p.a.v) / T0
      else r[a] = (p.b.v - p.a.v) * dease(p.a.e, 1) / T0 end
    else
      r[a] = seg_slope(p.a, p.b, t1)
    end
  end
  m.pending = r
end

local function merge(fs, T, window, path)
  local n = #fs
  local m = { fs = fs, n = n, out = {}, exact = true, err = 0, pending = nil, path = path }
  local after_step = false
  for k = 1, #T do
    local t = T[k]
    local dep
    if window and k == 1 then
      dep = push(m, t, at(m, t, value))
    elseif window and k == #T then
      -- after a step the values held arrive unchanged: windowed() adds the
      -- key at the end
      if not after_step then push(m, t, at(m, t, arrival)) end
      break
    else
      local A, D = at(m, t, arrival), at(m, t, value)
      if after_step then
        dep = push(m, t, D) -- the step held the values; they arrive unchanged
      else
        dep = push(m, t, A)
        if not same(A, D) then dep = push(m, t, D) end
      end
    end
    after_step = false
    if k == #T then
      -- the last key: its interpolation does nothing; keep a curve's own
      for a = 1, n do
        local K = fs[a]
        local i = K and find(K, t, true) or 0
        if i > 0 and K[i].t == t and K[i].c ~= BEZIER then
          dep.c, dep.e = K[i].c, K[i].e
          break
        end
      end
      break
    end
    local t1 = T[k + 1]
    local pieces, want, cubic = {}, nil, false
    for a = 1, n do
      local p = fs[a] and piece(fs[a], t, t1) or CONST
      pieces[a] = p
      if p.kind == "partial" or p.kind == "cubic" then
        cubic = true
      elseif p.kind ~= "const" then
        local c, e = p.a.c, p.kind == "whole" and p.a.e or 0
        if want and (want[1] ~= c or want[2] ~= e) then cubic = true end
        want = want or { c, e }
      end
    end
    if not cubic then
      if want then dep.c, dep.e = want[1], want[2]
      else dep.c, dep.e, after_step = STEP, 0, true end
    else
      cubic_span(m, dep, pieces, t, t1)
    end
  end
  return m.out, m.exact, m.err
end

-- The sorted distinct key times of the curves (inside (lo, hi) plus lo and
-- hi when a window is given).
local function times(fs, lo, hi)
  local set, list = {}, {}
  local function add(t)
    if not set[t] then set[t] = true; list[#list + 1] = t end
  end
  if lo then add(lo); add(hi) end
  for _, K in ipairs(fs) do
    if K then
      for _, k in ipairs(K) do
        if not lo or (k.t > lo and k.t < hi) then add(k.t) end
      end
    end
  end
  table.sort(list)
  return list
end

-- A curve with its own length L plays (t mod L): its keys cut to [0, L],
-- ending with a key at L that holds the value at 0 (so that t = L, 2L ...
-- show the start again, as in the viewer), under a cycles modifier that
-- repeats that range.
local function windowed(fs, L, path)
  local keys, exact, err = merge(fs, times(fs, 0.0, L), true, path)
  local last, v0 = keys[#keys], keys[1].v
  if last.t ~= L or not same(last.v, v0) then
    keys[#keys + 1] = { t = L, v = v0, c = LINEAR, e = 0 }
  end
  return keys, exact, err
end

-- Axis a of merged keys, as a scalar key list.
local function axis_keys(keys, a)
  local out = {}
  for i, k in ipairs(keys) do
    out[i] = { t = k.t, v = k.v[a], c = k.c, e = k.e, mo = k.mo and k.mo[a], mi = k.mi and k.mi[a] }
  end
  return out
end

-- The window of a curve with its own length, repeated to cover [0, length].
local function unroll(W, L, length, path)
  local cycles = math.max(1, math.ceil(length / L))
  if cycles * #W > LIM.keys then
    -- (cycles may be far beyond an integer: a float, written as such)
    fail(path, "length %s repeats %s times in the animation's %s s: too many keys (at most %d, anim.limits.keys)",
      num(L), num(cycles), num(length), LIM.keys)
  end
  local out = {}
  for k = 0, cycles - 1 do
    for _, key in ipairs(W) do
      local t = key.t == L and (k + 1) * L or k * L + key.t
      local prev = out[#out]
      if prev and t < prev.t then t = prev.t end
      if prev and prev.t == t and prev.v == key.v then
        -- the end of one cycle is the start of the next: one key
        prev.c, prev.e, prev.mo = key.c, key.e, key.mo
      else
        out[#out + 1] = { t = t, v = key.v, c = key.c, e = key.e, mo = key.mo, mi = key.mi }
      end
    end
  end
  return out
end

M.value, M.arrival, M.piece, M.same, M.merge, M.times, M.windowed, M.axis_keys, M.unroll =
  value, arrival, piece, same, merge, times, windowed, axis_keys, unroll
M.seg_value, M.find = seg_value, find

return M
