-- import/xml/init.lua: imports the legacy XML animations of the Minecraft skin viewer
-- (../shared/spec/legacy-xml-format.txt; SEMANTICS 9; import-notes.md,
-- "XML format") as clips on the player rig.
--
-- The file is parsed with expat (lua-expat), never with patterns.  Each
-- pitch/yaw/roll/x/y/z transformation becomes one scalar curve that plays
-- exactly what the viewer shows.  The clip also carries a version 3 table in
-- the shape of a .anim file (info.source, what anim.encode writes).  Version
-- 3 keys carry all three axes at one time with one interpolation, so where
-- the axes of a channel have different key times with eased segments
-- between them, that table is made of per-axis cubic (bezier) pieces close
-- to the curves, the clip plays the exact per-axis curves instead, and
-- info.approx says how far apart the two are.
local lxp = require "lxp"
local keyset = require "anim.format.keys"
local clipmod = require "anim.format.clip"
local E = require "anim.base.errors"
local format = require "anim.format.read"
local limits = require "anim.base.limits"
local codes = require "anim.base.codes"

local M = {}

local fail = E.fail

local num = E.num -- numbers in messages as written (1000, not 1e+03)

-- The limits of limits.lua, read at each call (anim.set_limits changes
-- them): bytes (the largest text), depth (the deepest element nesting: the
-- readers recurse) and keys (per transformation, per channel once the axes
-- are put together, and per clip).
local LIM = limits.current
-- Cubic pieces that stand in for a sine segment are made short enough that
-- they stay within this many degrees (or blocks) of it.
M.TOLERANCE = 1e-5
local MAX_PIECES = 4096        -- cubic pieces for one segment at most

-- Codes of the C core (csrc/core/codes.h).
local LINEAR, STEP, BEZIER, SINE = codes.interp.linear, codes.interp.step, codes.interp.bezier, codes.interp.sine
local EASE_IN, EASE_OUT, EASE_INOUT = codes.ease["in"], codes.ease.out, codes.ease.inOut
local EASE_UNIT = format.EASE_UNIT
local INTERP_NAME = { [LINEAR] = "linear", [STEP] = "step", [BEZIER] = "bezier", [SINE] = "sine" }
local EASE_NAME = { [EASE_IN] = "in", [EASE_OUT] = "out", [EASE_INOUT] = "inOut" }

-- The viewer's interpolations (SEMANTICS 9).  SMOOTH_IN arrives flat (the
-- easing "out"), SMOOTH_OUT leaves flat (the easing "in").
local INTERPS = {
  CONSTANT = { STEP, EASE_IN },
  LINEAR = { LINEAR, EASE_IN },
  SMOOTH = { SINE, EASE_INOUT },
  SMOOTH_IN = { SINE, EASE_OUT },
  SMOOTH_OUT = { SINE, EASE_IN },
}
local INTERP_LIST = "CONSTANT, LINEAR, SMOOTH, SMOOTH_IN or SMOOTH_OUT"

-- Body parts of the player rig (DESIGN.md), and the offsets.
local PARTS = {
  { tag = "torso", joint = "torso" }, { tag = "head", joint = "head" },
  { tag = "left-arm", joint = "leftArm" }, { tag = "right-arm", joint = "rightArm" },
  { tag = "left-leg", joint = "leftLeg" }, { tag = "right-leg", joint = "rightLeg" },
}
local OFFSETS = {
  { tag = "offset", joints = { "root" } },
  { tag = "leg-offset", joints = { "leftLeg", "rightLeg" } },
}
-- Euler x = pitch, y = -yaw (the viewer turns yaw the other way), z = roll.
local ROT_AXES = { { tag = "pitch", sign = 1 }, { tag = "yaw", sign = -1 }, { tag = "roll", sign = 1 } }
local POS_AXES = { { tag = "x", sign = 1 }, { tag = "y", sign = 1 }, { tag = "z", sign = 1 } }

-- Parsing -------------------------------------------------------------------------

-- An element: { name, attrs, line, children, content = {text and children in
-- document order}, parent, index }, index counting the elements of the same
-- name under the same parent.
local function parse(text)
  if #text > LIM.bytes then fail("", "too large (%d bytes; at most %d, anim.limits.bytes)", #text, LIM.bytes) end
  local max_depth = LIM.depth
  local root
  local stack = {}
  local elements, max_elements = 0, LIM.keys
  -- The text and attribute values the parser hands over, entities expanded,
  -- are bounded like a file's bytes: entities defined in the file's DTD can
  -- make a few hundred bytes expand to megabytes (expat's own protection
  -- against "billion laughs" starts at 8 MiB of expansion, then allows
  -- 100 times the input).
  local expanded, max_expanded = 0, LIM.bytes
  local function spend(p, n)
    expanded = expanded + n
    if expanded > max_expanded then
      fail(string.format("line %d", (p:pos())), "the text expands to more than %d bytes with its entities"
        .. " (anim.limits.bytes)", max_expanded)
    end
  end
  local callbacks = {
    StartElement = function(p, name, attrs)
      local line = p:pos()
      -- every element is a few Lua tables: their number is bounded too
      elements = elements + 1
      if elements > max_elements then
        fail(string.format("line %d", line), "too many elements (more than %d, anim.limits.keys)", max_elements)
      end
      for _, v in pairs(attrs) do spend(p, #v) end
      local parent = stack[#stack]
      local el = { name = name, attrs = attrs, line = line, children = {}, content = {}, parent = parent, count = {} }
      if parent then
        parent.children[#parent.children + 1] = el
        parent.content[#parent.content + 1] = el
        local n = (parent.count[name] or 0) + 1
        parent.count[name] = n
        el.index = n
      else
        root = el
      end
      if #stack >= max_depth then
        fail(string.format("line %d", line), "elements nested too deeply (at most %d levels, anim.limits.depth)", max_depth)
      end
      stack[#stack + 1] = el
    end,
    EndElement = function()
      stack[#stack] = nil
    end,
    CharacterData = function(p, s)
      spend(p, #s)
      local el = stack[#stack]
      if el then el.content[#el.content + 1] = s end
    end,
  }
  local parser = lxp.new(callbacks)
  local ok, msg, line, col = parser:parse(text)
  if ok then ok, msg, line, col = parser:parse() end
  -- close raises after a failed parse; the failure is reported below
  pcall(parser.close, parser)
  if not ok then fail(string.format("line %d, column %d", line or 0, col or 0), "not valid XML: %s", msg) end
  return root
end

-- Where an element is, for messages: animation/right-arm/pitch/keyframe[3] (line 12).
-- Keyframes always carry their index; other elements only when the parent
-- has more than one of that name.
local function where(el)
  local up = {}
  local e = el
  while e do
    -- (an element the reader passes over may have any name: shown cut)
    local s = E.shown(e.name)
    if e.parent and (e.name == "keyframe" or e.parent.count[e.name] > 1) then
      s = s .. "[" .. e.index .. "]"
    end
    up[#up + 1] = s
    e = e.parent
  end
  local parts = {}
  for i = #up, 1, -1 do parts[#parts + 1] = up[i] end
  return table.concat(parts, "/") .. " (line " .. el.line .. ")"
end

-- Text for a message, quoted and cut short (E.shown).
local function quote(s)
  return '"' .. E.shown(s) .. '"'
end

-- s without the white space around it, in linear time: the pattern
-- "^%s*(.-)%s*$" tries the trailing %s* at every length of the middle, so
-- "1", 80,000 spaces and "x" took 16 s.  ("^.*%S" backtracks once over the
-- trailing spaces.)
local function trim(s)
  local i = s:find("%S")
  if not i then return "" end
  return s:sub(i, #s:match("^.*%S"))
end
M.trim = trim

-- A number as Java's Float.parseFloat reads decimal text: white space
-- around it, a sign, digits with at most one point, an exponent, and a
-- trailing f/F/d/D.  NaN and Infinity are refused (not finite).  `path`
-- is where it is, or the element (its path is made for a message only).
local function number(s, path, what)
  local body = trim(s):gsub("[fFdD]$", "", 1)
  local mant = body:match("^([+-]?[%d.]+)[eE][+-]?%d+$") or body:match("^[+-]?[%d.]+$")
  local v = mant and select(2, mant:gsub("%.", "")) <= 1 and mant:find("%d") and tonumber(body)
  if type(path) == "table" and not (v and v == v and v ~= math.huge and v ~= -math.huge) then path = where(path) end
  if not v then
    if body == "" then fail(path, "%s must be a number, got nothing", what) end
    fail(path, "%s must be a number, got %s", what, quote(s))
  end
  v = v + 0.0
  if v ~= v or v == math.huge or v == -math.huge then
    fail(path, "%s must be a finite number, got %s", what, quote(s))
  end
  return v
end

local function interp(s, path)
  local ip = INTERPS[s]
  if not ip then
    if type(path) == "table" then path = where(path) end
    fail(path, "unknown interpolation %s (expected %s; the names are case-sensitive)", quote(s), INTERP_LIST)
  end
  return ip
end

-- The first descendant named `name` in document order, as the viewer's
-- getElementsByTagName(name).item(0).
local function first(el, name)
  for _, c in ipairs(el.children) do
    if c.name == name then return c end
    local f = first(c, name)
    if f then return f end
  end
end

local function all(el, name, out)
  out = out or {}
  for _, c in ipairs(el.children) do
    if c.name == name then out[#out + 1] = c end
    all(c, name, out)
  end
  return out
end

-- The text of an element and its descendants, in document order (the
-- viewer's getTextContent).
local function text_of(el)
  local out = {}
  local function walk(e)
    for _, c in ipairs(e.content) do
      if type(c) == "string" then out[#out + 1] = c else walk(c) end
    end
  end
  walk(el)
  return table.concat(out)
end

-- A transformation (pitch, x, ...): its keys in file order, as scalar keys
-- { t, v, c = interpolation code, e = ease code }, and its own length.
local function read_transform(el, sign)
  local path = where(el)
  local L
  if el.attrs.length ~= nil then
    L = number(el.attrs.length, path, "length")
    -- the viewer wraps a transformation only on a positive length
    if L <= 0 then L = nil end
  end
  local default
  if el.attrs.i ~= nil then default = interp(el.attrs.i, path) end
  local kfs = all(el, "keyframe")
  if #kfs == 0 then return nil end -- no keys: the viewer leaves the axis alone
  if #kfs > LIM.keys then fail(path, "too many keyframes (%d; at most %d, anim.limits.keys)", #kfs, LIM.keys) end
  local keys, prev = {}, nil
  for n, kf in ipairs(kfs) do
    local kp = kf -- (its path, where(kf), is made for a message only)
    local t = 0.0
    if kf.attrs.t ~= nil then t = number(kf.attrs.t, kp, "time t") end
    if prev and t < prev.t then
      fail(where(kf), "keys out of order: t=%s comes after t=%s (the viewer does not sort keyframes)", num(t), num(prev.t))
    end
    local v = number(text_of(kf), kp, "value")
    if sign < 0 and v ~= 0 then v = -v end
    local ip
    if kf.attrs.i ~= nil then ip = interp(kf.attrs.i, kp)
    elseif default then ip = default
    elseif prev then ip = { prev.c, prev.e }
    else ip = INTERPS.CONSTANT end
    keys[n] = { t = t, v = v, c = ip[1], e = ip[2] }
    prev = keys[n]
  end
  return { keys = keys, L = L, path = path }
end

-- Scalar curves ---------------------------------------------------------------------
--
-- A key list K is sorted by time (equal times make a jump) and its keys are
-- { t, v, c, e } plus, for the cubic pieces this module makes, mo (the slope
-- leaving a BEZIER key) and mi (the slope arriving at the key after it).
-- These functions evaluate exactly what csrc/curve.c evaluates.

local PI = math.pi

-- The sine easing of csrc/amath.c and its derivative (in s).
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
local function merge(fs, T, window, path)
  local n = #fs
  local out, exact, err = {}, true, 0
  local pending -- slopes arriving at the next key (after a cubic piece)
  local function at(t, fn)
    local r = {}
    for a = 1, n do r[a] = fs[a] and fn(fs[a], t) or 0.0 end
    return r
  end
  local function push(t, v)
    local k = { t = t, v = v, c = LINEAR, e = 0 }
    if pending then k.mi, pending = pending, nil end
    out[#out + 1] = k
    if #out > LIM.keys then
      fail(path, "too many keys once the axes are put together (at most %d, anim.limits.keys)", LIM.keys)
    end
    return k
  end
  local after_step = false
  for k = 1, #T do
    local t = T[k]
    local dep
    if window and k == 1 then
      dep = push(t, at(t, value))
    elseif window and k == #T then
      -- after a step the values held arrive unchanged: windowed() adds the
      -- key at the end
      if not after_step then push(t, at(t, arrival)) end
      break
    else
      local A, D = at(t, arrival), at(t, value)
      if after_step then
        dep = push(t, D) -- the step held the values; they arrive unchanged
      else
        dep = push(t, A)
        if not same(A, D) then dep = push(t, D) end
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
      -- cubic pieces, short enough for the sine axes
      local m4 = 0
      for a = 1, n do
        local p = pieces[a]
        if p.kind == "whole" or p.kind == "partial" then m4 = math.max(m4, sine_m4(p)) end
      end
      local span = t1 - t
      local count = 1
      if m4 > 0 then
        exact = false
        count = math.ceil(span / (384 * M.TOLERANCE / m4) ^ 0.25)
        if count > MAX_PIECES then count = MAX_PIECES end
        if count < 1 then count = 1 end
        err = math.max(err, m4 * (span / count) ^ 4 / 384)
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
        local s = slopes(tj)
        pending = s
        local key = push(tj, values(tj))
        key.c, key.mo = BEZIER, s
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
      pending = r
    end
  end
  return out, exact, err
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

-- Curves for the C core (format.lua's description) ------------------------------------

local NAN = 0 / 0

-- One axis of keys K as the core's description of keys of arity 1 (a
-- split channel's axis: csrc/lua_clip.c): handle records are out dt, in
-- dt (NaN: absent), out dv, in dv, form.
local function desc_curve(K)
  local c = { t = {}, v = {}, ie = {} }
  for n, k in ipairs(K) do
    c.t[n], c.v[n], c.ie[n] = k.t, k.v, k.c + EASE_UNIT * k.e
    local out = k.c == BEZIER and K[n + 1]
    local inn = k.mi and K[n - 1]
    if out or inn then
      local r = { NAN, NAN, 0, 0, 0 }
      if out then
        local span = K[n + 1].t - k.t
        r[1], r[3] = span / 3, k.mo * span / 3
      end
      if inn then
        local span = k.t - K[n - 1].t
        r[2], r[4] = -span / 3, -k.mi * span / 3
      end
      c.h = c.h or {}
      c.h[n] = r
    end
  end
  return c
end

local CYCLES = { type = 0, before = 1, after = 1 } -- format.lua's codes: cycles, repeat

-- The version 3 keys of merged keys.
local function z(x) return x == 0 and 0.0 or x end -- no -0 in the file
local function v3_keys(keys)
  local out = {}
  for i, k in ipairs(keys) do
    local extra
    if k.c == SINE then extra = { ease = EASE_NAME[k.e] } end
    if k.c == BEZIER and keys[i + 1] then
      local span = keys[i + 1].t - k.t
      extra = extra or {}
      extra.out = { span / 3, { z(k.mo[1] * span / 3), z(k.mo[2] * span / 3), z(k.mo[3] * span / 3) } }
    end
    if k.mi and keys[i - 1] then
      local span = k.t - keys[i - 1].t
      extra = extra or {}
      extra["in"] = { -span / 3, { z(-k.mi[1] * span / 3), z(-k.mi[2] * span / 3), z(-k.mi[3] * span / 3) } }
    end
    out[i] = { z(k.t), { z(k.v[1]), z(k.v[2]), z(k.v[3]) }, INTERP_NAME[k.c], extra }
  end
  return out
end

-- One channel (rotation or position) of a joint from its three axes
-- (transformations or nil).  Returns the version 3 keys and modifiers, the
-- exact per-axis curves, whether the version 3 keys are exact, and the
-- bound of the exact curves' own error (non-zero only where a sine segment
-- is cut by a transformation's length, see windowed).
local function channel(axes, length)
  local exact_curves, clip_err = {}, 0
  local path -- of the first transformation, for messages
  for a = 3, 1, -1 do path = axes[a] and axes[a].path or path end
  local own, common, plain = {}, nil, true
  for a = 1, 3 do
    local tr = axes[a]
    if not tr then
      exact_curves[a] = { t = { 0.0 }, v = { 0.0 }, ie = { LINEAR } }
    elseif tr.L then
      local W, _, e = windowed({ tr.keys }, tr.L, tr.path)
      clip_err = math.max(clip_err, e)
      own[a] = axis_keys(W, 1)
      exact_curves[a] = desc_curve(own[a])
      exact_curves[a].mods = { { CYCLES } }
      plain = false
      if common == nil then common = tr.L elseif common ~= tr.L then common = false end
    else
      exact_curves[a] = desc_curve(tr.keys)
      common = false
    end
  end
  local fs = {}
  for a = 1, 3 do fs[a] = axes[a] and axes[a].keys or false end
  local keys, exact, mods
  if plain then
    keys, exact = merge(fs, times(fs), false, path)
  elseif common then
    -- every axis repeats on the same length: one cycles modifier
    keys, exact = windowed(fs, common, path)
    mods = { { type = "cycles", before = "repeat", after = "repeat" } }
  else
    -- lengths differ (or some axes have none): repeat the windows over the
    -- whole animation
    -- whole animation; the exact curves are unrolled the same way, so that
    -- both hold their ends outside [0, length] alike
    for a = 1, 3 do
      if own[a] then
        fs[a] = unroll(own[a], axes[a].L, length, axes[a].path)
        exact_curves[a] = desc_curve(fs[a])
      end
    end
    keys, exact = merge(fs, times(fs), false, path)
  end
  return { keys = v3_keys(keys), mods = mods, exact = exact, exact_curves = { axes = exact_curves },
    clip_err = clip_err, raw = keys, period = common or nil }
end

-- Measuring the version 3 table against the exact curves -------------------------------

-- Where the curves of a channel may jump in clip time: its key times,
-- repeated by its period, and up to when they are listed (math.huge when
-- not periodic).  Both the table and the exact curves of a periodic
-- channel repeat on that period, and so does their difference: the first
-- repetitions (about 200000 key times) are enough to measure it.
local function breakpoints(ch, length)
  local list = {}
  local reps, upto = 0, math.huge
  if ch.period then
    reps = math.min(math.ceil(length / ch.period), math.max(1, math.floor(200000 / #ch.raw)))
    upto = reps * ch.period
  end
  for _, k in ipairs(ch.raw) do
    for r = 0, reps do list[#list + 1] = k.t + r * (ch.period or 0) end
  end
  table.sort(list)
  return list, upto
end

-- Is t within eps of a mark ({ t = time }, sorted, so that find() works)?
local function near_any(list, t, eps)
  local i = find(list, t, true)
  for j = math.max(1, i - 1), math.min(#list, i + 1) do
    if math.abs(list[j].t - t) <= eps then return true end
  end
  return false
end

-- Largest difference between the version 3 curves (in desc) and the exact
-- ones over [0, length], sampling the whole at 4096 points and every key
-- stretch at up to 15 more (every few stretches once there are more than
-- 200000), away from the instants where either may jump, then searching
-- around the worst samples for the peaks.
local function measure(list, length)
  local j3, jx = {}, {}
  for i, m in ipairs(list) do
    j3[i] = { name = "p" .. i, pos = m.v3 }
    jx[i] = { name = "p" .. i, pos = m.exact }
  end
  local c3 = clipmod.from_description({ joints = j3, length = length })
  local cx = clipmod.from_description({ joints = jx, length = length })
  -- samples { t, spacing to the next ones }
  local samples = {}
  for i = 0, 4095 do samples[#samples + 1] = { (i + 0.5) / 4096 * length, length / 4096 } end
  local marks, upto, total = {}, {}, 0
  for i, m in ipairs(list) do
    marks[i], upto[i] = breakpoints(m.ch, length)
    total = total + #marks[i]
  end
  -- at most about 200000 samples in all, whatever the number of keys
  local per = math.max(1, math.min(15, math.floor(200000 / math.max(1, total))))
  local stride = math.max(1, math.ceil(total / 200000))
  for i = 1, #list do
    local bp = marks[i]
    for n = 1, #bp - 1, stride do
      local a, b = bp[n], bp[n + 1]
      if b > a and a < length then
        for q = 1, per do samples[#samples + 1] = { a + (b - a) * q / (per + 1), (b - a) / (per + 1) } end
      end
    end
    local wrapped = {}
    for n, t in ipairs(bp) do wrapped[n] = { t = t } end
    marks[i] = wrapped
  end
  local eps = 1e-9 * math.max(1, length)
  -- difference of channel i at t, or nil where it is not measured
  local function diff(i, t, p3, px)
    if t < 0 or t > length or t > upto[i] or near_any(marks[i], t, eps) then return nil end
    p3 = p3 or c3:sample(t)
    px = px or cx:sample(t)
    local a, b = p3["p" .. i].position, px["p" .. i].position
    return math.max(math.abs(a[1] - b[1]), math.abs(a[2] - b[2]), math.abs(a[3] - b[3]))
  end
  -- the 8 worst samples of each channel
  local top = {}
  for i = 1, #list do top[i] = {} end
  for _, smp in ipairs(samples) do
    local t = smp[1]
    if t >= 0 and t <= length then
      local p3, px = c3:sample(t), cx:sample(t)
      for i = 1, #list do
        local d = diff(i, t, p3, px)
        if d and d > 0 then
          local tl = top[i]
          if #tl < 8 or d > tl[#tl][1] then
            if #tl == 8 then tl[8] = nil end
            tl[#tl + 1] = { d, t, smp[2] }
            table.sort(tl, function(x, y) return x[1] > y[1] end)
          end
        end
      end
    end
  end
  -- The samples fall near, not on, the largest differences: a golden-section
  -- search within a spacing of each of the worst finds the peak itself.
  local worst = 0
  local g = (math.sqrt(5) - 1) / 2
  for i = 1, #list do
    for _, cand in ipairs(top[i]) do
      worst = math.max(worst, cand[1])
      local lo, hi = cand[2] - cand[3], cand[2] + cand[3]
      local function f(t) return diff(i, t) or 0 end
      local x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
      local f1, f2 = f(x1), f(x2)
      for _ = 1, 60 do
        if f1 >= f2 then hi, x2, f2 = x2, x1, f1; x1 = hi - g * (hi - lo); f1 = f(x1)
        else lo, x1, f1 = x1, x2, f2; x2 = lo + g * (hi - lo); f2 = f(x2) end
        worst = math.max(worst, f1, f2)
        if hi - lo <= 1e-12 * math.max(1, length) then break end
      end
    end
  end
  return worst
end

-- Import ----------------------------------------------------------------------------

local function read_axes(el, spec)
  local axes, any = {}, false
  for a, ax in ipairs(spec) do
    local tel = first(el, ax.tag)
    if tel then
      axes[a] = read_transform(tel, ax.sign)
      if axes[a] then any = true end
    end
  end
  return any and axes or nil
end

-- Reads XML text; returns desc and info for keys.build (info.source is
-- the version 3 table), or raises a failure.
function M.read(text, name)
  local root = parse(text)
  if root.name ~= "animation" then
    fail(where(root), "the root element must be <animation>, got <%s>", E.shown(root.name))
  end
  local length = 1.0
  if root.attrs.length ~= nil then
    length = number(root.attrs.length, where(root), "length")
    if length <= 0 then
      fail(where(root), "length must be greater than 0, got %s (the animation loops on it)", num(length))
    end
  end
  -- joint -> { rotation = axes, position = axes }
  local chans, order = {}, {}
  local function add(joint, kind, axes)
    if not chans[joint] then chans[joint] = {}; order[#order + 1] = joint end
    chans[joint][kind] = axes
  end
  for _, part in ipairs(PARTS) do
    local el = first(root, part.tag)
    local axes = el and read_axes(el, ROT_AXES)
    if axes then add(part.joint, "rotation", axes) end
  end
  for _, off in ipairs(OFFSETS) do
    local el = first(root, off.tag)
    local axes = el and read_axes(el, POS_AXES)
    if axes then
      for _, j in ipairs(off.joints) do add(j, "position", axes) end
    end
  end
  local joints, built = {}, {}
  for _, j in ipairs(order) do
    local jt = {}
    for _, kind in ipairs { "rotation", "position" } do
      local axes = chans[j][kind]
      if axes then
        local ch = channel(axes, length)
        built[#built + 1] = { joint = j, kind = kind, ch = ch }
        jt[kind] = ch.keys
        if ch.mods then
          jt.modifiers = jt.modifiers or {}
          jt.modifiers[kind] = ch.mods
        end
      end
    end
    joints[j] = jt
  end
  local source = {
    version = 3, rig = "player", length = length, loop = "loop", euler = "yxz", joints = joints,
  }
  local desc, info = format.read(source)
  -- the exact per-axis curves where the version 3 keys are not exact
  local replaced, clip_err, affected = {}, 0, {}
  local by_name = {}
  for _, dj in ipairs(desc.joints) do by_name[dj.name] = dj end
  for _, b in ipairs(built) do
    clip_err = math.max(clip_err, b.ch.clip_err)
    if not b.ch.exact then
      local dj = by_name[b.joint]
      local field = b.kind == "rotation" and "rot" or "pos"
      replaced[#replaced + 1] = { v3 = dj[field], exact = b.ch.exact_curves, ch = b.ch }
      dj[field] = b.ch.exact_curves
      affected[#affected + 1] = b.joint .. " " .. b.kind
    end
  end
  if #replaced > 0 or clip_err > 0 then
    local bound = clip_err
    local notes = {}
    if #replaced > 0 then
      bound = bound + measure(replaced, length)
      notes[#notes + 1] = "the axes of " .. table.concat(affected, ", ") ..
        " have different key times with eased segments between them; the version 3 keys" ..
        " follow them with cubic (bezier) pieces, and the clip plays the exact per-axis curves"
    end
    if clip_err > 0 then
      notes[#notes + 1] = string.format("a transformation's length cuts a SMOOTH segment, which is" ..
        " played as cubic pieces within %.3g", clip_err)
    end
    info.approx = {
      bound = bound,
      note = table.concat(notes, "; ") .. " (bound in degrees for angles, blocks for positions)",
    }
    if clip_err > 0 then info.approx.clip_bound = clip_err end
  end
  -- the animation's own name (the viewer's menu entry), else the file's
  local own = root.attrs.name
  info.name = (own and own ~= "") and own or name
  return desc, info
end

-- Builds the clip of XML text, or raises a failure (errors.lua).
function M.build(text, name)
  local desc, info = M.read(text, name)
  return keyset.build(desc, info)
end

return M
