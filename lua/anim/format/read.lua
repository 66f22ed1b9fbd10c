-- read.lua: reads a clip table in the shape of a .anim file (versions 1,
-- 2 and 3), checks every field, and turns it into the description the C
-- core builds a clip from (core.clip_new) plus the info table the Lua API
-- reads (metadata, timed items).  Nothing here samples: the C core does.
local E = require "anim.base.errors"
local Q = require "anim.base.quat"
local limits = require "anim.base.limits"
local codes = require "anim.base.codes"
local json = require "anim.base.json"
local compat = require "anim.base.compat"
local core = require "anim.core"

local M = {}

local fail, describe, key, index, num = E.fail, E.describe, E.key, E.index, E.num
-- (a name or value of the file a message quotes goes through shown:
-- escaped, and cut at E.SHOWN bytes)
local shown = E.shown

-- Names and their codes in the C core: all from csrc/core/codes.h --------

local INTERPS = codes.names("interp")
local INTERP_CODE = codes.interp
local EASES = codes.names("ease")
local EASE_CODE = codes.ease
local FIRST_EASING, LAST_EASING = INTERP_CODE.sine, INTERP_CODE.elastic
local function is_easing(code) return code >= FIRST_EASING and code <= LAST_EASING end
-- The direction of an easing whose key leaves `ease` out: back, bounce and
-- elastic ease out, the others in (docs/format-reference.md).
local function default_ease(code)
  return (code == INTERP_CODE.back or code == INTERP_CODE.bounce or code == INTERP_CODE.elastic)
    and EASE_CODE.out or EASE_CODE["in"]
end

M.default_ease = default_ease
M.is_easing = is_easing

M.LOOPS = codes.names("loop")
M.BLENDS = codes.names("blend")
M.SPACES = codes.names("space")
M.SIDES = codes.names("side")
M.EULERS = codes.names("euler")
M.PRIORITIES = codes.priority
local PRIORITY_NAMES = codes.names("priority")
M.INTERPS, M.EASES = INTERPS, EASES

local CYCLE_MODES = codes.names("cycle")
local MOD_TYPES = codes.names("modifier")

-- The limits (limits.lua) are read at each call: a host changes them with
-- anim.set_limits.  MAX_CURVE_KEYS is the C core's own bound on one curve.
local L = limits.current
local MAX_CURVE_KEYS = codes.const.max_curve_keys

-- What the clip being read has used of its limits (reset by M.read).
local used = { keys = 0, modifiers = 0 }

local function count_joints(n, path)
  if n > L.joints then fail(path, "too many joints (%d; at most %d, anim.limits.joints)", n, L.joints) end
end

-- Adds n keys (or envelope points) to the clip's count.
local function count_keys(n, path)
  if n > MAX_CURVE_KEYS then
    fail(path, "too many keys in one channel (%d; at most %d)", n, MAX_CURVE_KEYS)
  end
  used.keys = used.keys + n
  if used.keys > L.keys then
    fail(path, "too many keys: the clip would have %d (at most %d, anim.limits.keys)", used.keys, L.keys)
  end
end

-- Shared field readers ---------------------------------------------------------

function M.priority(v, path)
  if type(v) == "string" then
    local p = M.PRIORITIES[v]
    if p then return p end
    fail(path, "unknown priority '%s' (expected %s, or a number)", shown(v), table.concat(PRIORITY_NAMES, ", "))
  end
  if not E.finite(v) then
    fail(path, "priority must be a level name or a finite number, got %s", describe(v))
  end
  return v
end

function M.mask(v, path)
  local names = {}
  if type(v) == "string" then
    for n in v:gmatch("[^,%s]+") do names[#names + 1] = n end
    count_joints(#names, path)
  elseif type(v) == "table" and E.is_array(v) then
    count_joints(#v, path)
    for i, n in ipairs(v) do names[i] = E.string(n, index(path, i), "mask name") end
  else
    fail(path, "mask must be an array of joint names or a string of names, got %s", describe(v))
  end
  return names
end

local function euler_code(v, path)
  if type(v) ~= "string" then fail(path, "euler must be a string like \"yxz\", got %s", describe(v)) end
  local lower = v:lower()
  for i, n in ipairs(M.EULERS) do
    if n == lower then return i - 1 end
  end
  fail(path, "unknown euler order '%s' (expected a permutation of xyz such as yxz or zyx)", shown(v))
end

local huge = math.huge

-- Is v an array of n finite numbers?  (The common case, without building
-- a path or walking the table's keys.)
local function plain_vec(v, n)
  if type(v) ~= "table" or #v ~= n or next(v, n) ~= nil then return false end
  for i = 1, n do
    local x = v[i]
    if type(x) ~= "number" or x ~= x or x == huge or x == -huge then return false end
  end
  return true
end
M.plain_vec = plain_vec

local function vec(v, n, path, what)
  if plain_vec(v, n) then return v end
  if type(v) ~= "table" or not E.is_array(v) or #v ~= n then
    local got = (type(v) == "table" and E.is_array(v)) and ("an array of " .. #v) or describe(v)
    fail(path, "%s must be an array of %d numbers, got %s", what, n, got)
  end
  for i = 1, n do
    local x = v[i]
    if type(x) ~= "number" or x ~= x or x == huge or x == -huge then
      E.number(x, index(path, i), what .. " component")
    end
  end
  return v
end
M.vec = vec

local function quat(v, path, what)
  vec(v, 4, path, what)
  -- scaled by the largest component first, so that any finite non-zero
  -- quaternion normalises (no overflow or underflow in the squares)
  local m = math.max(math.abs(v[1]), math.abs(v[2]), math.abs(v[3]), math.abs(v[4]))
  if m == 0 then fail(path, "%s is a zero quaternion (a rotation needs a non-zero [x, y, z, w])", what) end
  local x, y, z, w = v[1] / m, v[2] / m, v[3] / m, v[4] / m
  local len = math.sqrt(x * x + y * y + z * z + w * w)
  return { x / len, y / len, z / len, w / len }
end
M.quat = quat

-- A rotation given as [x, y, z] degrees or an [x, y, z, w] quaternion.
function M.rotation(v, path, what)
  if type(v) == "table" and #v == 4 then return quat(v, path, what) end
  if type(v) == "table" and #v == 3 then return vec(v, 3, path, what) end
  fail(path, "%s must be [x, y, z] degrees or an [x, y, z, w] quaternion, got %s", what,
    (type(v) == "table" and E.is_array(v)) and ("an array of " .. #v) or describe(v))
end

-- Keys (versions 2 and 3) -------------------------------------------------------

-- A handle [dt, dv] with dv one number or an array of `dims` numbers
-- ([dx, dy, dz] for a joint's channel): dt and the dims values of dv.
local function handle(h, path, which, dims)
  if type(h) ~= "table" or not E.is_array(h) or #h ~= 2 then
    fail(path, "%s handle must be [dt, dv], got %s", which,
      (type(h) == "table" and E.is_array(h)) and ("an array of " .. #h) or describe(h))
  end
  local dt = E.number(h[1], index(path, 1), which .. " handle time")
  local dv = h[2]
  if type(dv) == "table" then
    vec(dv, dims, index(path, 2), which .. " handle value")
    return dt, dv
  end
  dv = E.number(dv, index(path, 2), which .. " handle value")
  local out = {}
  for a = 1, dims do out[a] = dv end
  return dt, out
end

M.count_keys = count_keys

-- Adds n curve modifiers to the clip's count.
local function count_modifiers(n, path)
  used.modifiers = used.modifiers + n
  if used.modifiers > L.modifiers then
    fail(path, "too many curve modifiers: the clip would have %d (at most %d, anim.limits.modifiers)",
      used.modifiers, L.modifiers)
  end
end
M.count_modifiers = count_modifiers

local function interp_code(v, path)
  if E.absent(v) then return INTERP_CODE.linear end
  if type(v) ~= "string" then fail(path, "interpolation must be a string, got %s", describe(v)) end
  local c = INTERP_CODE[v]
  if not c then
    fail(path, "unknown interpolation '%s' (expected %s)", shown(v), table.concat(INTERPS, ", "))
  end
  return c
end

-- The core's interpolation byte (codes.keybyte): the code, the ease times
-- EASE_UNIT (ease << ease_shift), and whether the key wrote its
-- interpolation and its ease, kept so that the clip encodes back to the
-- same keys.
local HAS_INTERP, HAS_EASE = codes.keybyte.has_interp, codes.keybyte.has_ease
local EASE_UNIT = math.floor(2 ^ codes.keybyte.ease_shift)
M.HAS_INTERP, M.HAS_EASE, M.EASE_UNIT = HAS_INTERP, HAS_EASE, EASE_UNIT

-- A handle record for the core (csrc/curve.h, arity 3): out dt, in dt (NaN
-- when absent), out dv[3], in dv[3], then 1 when the out dv was written as
-- one number, + 2 when the in dv was.  (A property of n components has
-- records of 3 + 2n numbers: out dv[n], in dv[n].)
local function handle_record(dims)
  dims = dims or 3
  local r = { 0 / 0, 0 / 0 }
  for i = 3, 3 + 2 * dims do r[i] = 0 end
  return r
end

-- The ease and handles of a key's extra (not absent) for a key of
-- interpolation `code` whose values have `dims` components (3 for a
-- joint's channel): what to add to the key's byte (the ease times
-- EASE_UNIT, and HAS_EASE when the extra wrote it), and the handle record
-- or nil.
local function read_extra(extra, ep, code, dims)
  E.object(extra, ep, "key extra")
  local ease, bits = 0, 0
  if not E.absent(extra.ease) then
    local ez = extra.ease
    if type(ez) ~= "string" then
      fail(key(ep, "ease"), "ease must be in, out or inOut, got %s", describe(ez))
    end
    if not EASE_CODE[ez] then
      fail(key(ep, "ease"), "unknown ease '%s' (expected in, out or inOut)", shown(ez))
    end
    ease = EASE_CODE[ez]
    bits = HAS_EASE
  elseif is_easing(code) then
    ease = default_ease(code)
  end
  local hout, hin = extra.out, extra["in"]
  local hd
  if not E.absent(hout) or not E.absent(hin) then
    hd = handle_record(dims)
    local form = 3 + 2 * dims
    if not E.absent(hout) then
      local dt, dv = handle(hout, key(ep, "out"), "out", dims)
      hd[1] = dt
      for a = 1, dims do hd[2 + a] = dv[a] end
      if type(hout[2]) ~= "table" then hd[form] = 1 end
    end
    if not E.absent(hin) then
      local dt, dv = handle(hin, key(ep, "in"), "in", dims)
      hd[2] = dt
      for a = 1, dims do hd[2 + dims + a] = dv[a] end
      if type(hin[2]) ~= "table" then hd[form] = hd[form] + 2 end
    end
  end
  return bits + EASE_UNIT * ease, hd
end
M.read_extra = read_extra

-- One key of a channel, with every check and the message of each: the
-- general reader.  Stores the key at n of ch; returns its time.  The key
-- is also kept whole (ch.whole): what it holds may be more than the core
-- keeps (a null, an integer beyond 2^53), and encoding writes it as it is.
-- The cubicspline tangents of a key's extra (this module's extension,
-- glTF's in- and out-tangents: arrays of as many numbers as the value, ar):
-- a record of the in-tangent then the out-tangent (NaN where absent), or
-- nil when the extra gives neither.
local function read_tangents(extra, ep, ar)
  local tin, tout = extra.in_tangent, extra.out_tangent
  if E.absent(tin) and E.absent(tout) then return nil end
  local rec = {}
  for a = 1, 2 * ar do rec[a] = 0 / 0 end
  if not E.absent(tin) then
    vec(tin, ar, key(ep, "in_tangent"), "in tangent")
    for a = 1, ar do rec[a] = tin[a] end
  end
  if not E.absent(tout) then
    vec(tout, ar, key(ep, "out_tangent"), "out tangent")
    for a = 1, ar do rec[ar + a] = tout[a] end
  end
  return rec
end
M.read_tangents = read_tangents

-- What every key is checked for first, at path kp: its shape, and its time
-- (a finite number, not before prev).  Returns the time.
local function key_time(k, kp, prev)
  if type(k) ~= "table" or not E.is_array(k) or #k < 2 or #k > 4 then
    fail(kp, "key must be [time, value, interpolation, extra], got %s",
      (type(k) == "table" and E.is_array(k)) and ("an array of " .. #k) or describe(k))
  end
  local t = E.number(k[1], index(kp, 1), "time")
  if prev and t < prev then
    fail(index(kp, 1), "key times must not decrease (%s comes after %s)", num(t), num(prev))
  end
  return t
end
M.key_time = key_time

local function read_key(ch, n, k, path, channel, prev)
  local kp = index(path, n)
  local t = key_time(k, kp, prev)
  local v = k[2]
  local vp = index(kp, 2)
  local is_q
  if channel == "rotation" then
    if type(v) == "table" and #v == 4 then is_q = true end
    M.rotation(v, vp, "rotation")
    if ch.quat == nil then ch.quat = is_q or false
    elseif ch.quat ~= (is_q or false) then
      fail(vp, "a rotation channel must be all Euler angles or all quaternions; this key is %s, the first was %s",
        is_q and "a quaternion" or "Euler angles", ch.quat and "a quaternion" or "Euler angles")
    end
  else
    vec(v, 3, vp, channel)
  end
  local code = interp_code(k[3], index(kp, 3))
  local ie = code + (E.absent(k[3]) and 0 or HAS_INTERP)
  local extra = k[4]
  local ease = 0
  local ep = index(kp, 4)
  if not E.absent(extra) then
    local bits, hd = read_extra(extra, ep, code, 3)
    ie = ie + bits
    if hd then
      ch.h = ch.h or {}
      ch.h[n] = hd
    end
    local rec = read_tangents(extra, ep, #v)
    if rec then
      ch.tan = ch.tan or {}
      ch.tan[n] = rec
    end
  elseif is_easing(code) then
    ease = default_ease(code)
  end
  ch.t[n], ch.vals[n], ch.ie[n] = t, v, ie + EASE_UNIT * ease
  ch.whole = ch.whole or {}
  ch.whole[n] = k
  return t
end

M.interp_code = interp_code
local LINEAR = INTERP_CODE.linear

local finite = E.finite

-- A well-formed handle [dt, dv] (dv a number or [dx, dy, dz]) as read_key
-- reads it into hd (at: 0 out, 1 in), or nothing.
local function plain_handle(h, hd, at)
  if type(h) ~= "table" or #h ~= 2 or next(h, 2) ~= nil then return false end
  local dt, dv = h[1], h[2]
  if not finite(dt) then return false end
  local b = 3 + 3 * at
  hd[1 + at] = dt
  if type(dv) == "table" then
    local x, y, z = dv[1], dv[2], dv[3]
    if #dv ~= 3 or next(dv, 3) ~= nil or not (finite(x) and finite(y) and finite(z)) then return false end
    hd[b], hd[b + 1], hd[b + 2] = x, y, z
  elseif finite(dv) then
    hd[b], hd[b + 1], hd[b + 2] = dv, dv, dv
    hd[9] = hd[9] + 1 + at
  else
    return false
  end
  return true
end

-- A well-formed tangent (nv finite numbers) into rec at offset b, or false.
local function plain_tangent(v, nv, rec, b)
  if type(v) ~= "table" or #v ~= nv or next(v, nv) ~= nil then return false end
  for a = 1, nv do
    if not finite(v[a]) then return false end
    rec[b + a] = v[a]
  end
  return true
end

-- The ease, handles and tangents of a well-formed key extra, as read_key
-- reads them: ease, whether the extra wrote it, handles (or nil), whether
-- the extra holds more than the core keeps (other fields, or none at all),
-- tangents (or nil) -- or nil when read_key must look at it.  nv: the
-- number of values of the key.
local function plain_extra(extra, code, nv)
  if type(extra) ~= "table" then return nil end
  local first = next(extra)
  if first ~= nil and type(first) == "number" then return nil end
  local ez, ease = extra.ease
  if ez == nil then
    ease = is_easing(code) and default_ease(code) or 0
  else
    ease = EASE_CODE[ez]
    if not ease then return nil end
  end
  local more = first == nil
  for f in next, extra do
    if f ~= "ease" and f ~= "out" and f ~= "in" and f ~= "in_tangent" and f ~= "out_tangent" then
      more = true
      break
    end
  end
  local tin, tout, tan = extra.in_tangent, extra.out_tangent, nil
  if tin ~= nil or tout ~= nil then
    tan = {}
    for a = 1, 2 * nv do tan[a] = 0 / 0 end
    if tin ~= nil and not plain_tangent(tin, nv, tan, 0) then return nil end
    if tout ~= nil and not plain_tangent(tout, nv, tan, nv) then return nil end
  end
  local hout, hin = extra.out, extra["in"]
  if hout == nil and hin == nil then return ease, ez ~= nil, nil, more, tan end
  local hd = handle_record()
  if hout ~= nil and not plain_handle(hout, hd, 0) then return nil end
  if hin ~= nil and not plain_handle(hin, hd, 1) then return nil end
  return ease, ez ~= nil, hd, more, tan
end

-- Is any number of a key from a Lua table an integer that a double cannot
-- hold (beyond 2^53)?  Such a key is kept whole, so that nothing is lost.
local function inexact(k)
  for _, x in ipairs(k) do
    if type(x) == "table" then
      if inexact(x) then return true end
    elseif compat.mtype(x) == "integer" and (x > 2 ^ 53 or x < -2 ^ 53) then
      return true
    end
  end
  if type(k[4]) == "table" then
    for _, f in ipairs({ "out", "in" }) do
      if type(k[4][f]) == "table" and inexact(k[4][f]) then return true end
    end
  end
  return false
end

-- Reads one channel's keys; returns { t, vals (the key values as given),
-- ie (interpolation bytes), h (handle records by key, or nil), quat, keep
-- (by key: extras holding more than the core keeps), whole (by key: keys
-- kept whole) }.  Loading time is spent here: a plain key ([time, value]
-- or [time, value, interpolation, extra], well formed) is checked inline,
-- without building the JSON paths of its parts; any other key goes
-- through read_key, which checks it field by field and names the path of
-- what is wrong.  Both give the core the same numbers for the same key
-- (M.plain_keys = false turns the inline checks off: spec/format_spec.lua
-- compares the two).  `lua_table`: the clip came from Lua, whose integers
-- may not fit a double.
--
-- For a decoded file the inline checks run in C first (core.key_scanner,
-- csrc/lua/lua_check.c): the scanner takes keys while they are plain, as
-- the inline checks below take them, and hands the first key it does not
-- take to them; when it takes them all, their numbers go to the core in
-- a key block (ch.block), not in a Lua table per key (M.scan_keys = false
-- leaves it out: spec/format_spec.lua compares).
M.plain_keys = true
M.scan_keys = true
local scan_keys
do
  local interp, ease, dflt = {}, {}, {}
  for i, name in ipairs(INTERPS) do
    interp[name] = INTERP_CODE[name]
    dflt[i] = is_easing(i - 1) and default_ease(i - 1) or 0
  end
  for _, name in ipairs(EASES) do ease[name] = EASE_CODE[name] end
  scan_keys = core.key_scanner(interp, ease, dflt, 0 / 0)
end
M.scanner = scan_keys
local plain_array = core.plain_array
-- `depth`: the list's in the tree (for the scanner's share of the tree
-- check: ch.checked, when it found every key as json.check would).
local function read_keys(list, path, channel, lua_table, depth)
  local scan = M.scan_keys and M.plain_keys and not lua_table
  if not (scan and plain_array(list)) then E.array(list, path, channel .. " keys") end
  local count = #list
  count_keys(count, path)
  local ch = { t = {}, vals = {}, ie = {}, h = nil, quat = nil, keep = nil, whole = nil, checked = false,
    n = count, last = nil, block = nil }
  local T, V, IE = ch.t, ch.vals, ch.ie
  local rot = channel == "rotation"
  local first, prev = 1, nil
  if scan then first, prev, ch.checked = scan_keys(list, count, ch, rot, L.strings, L.depth, depth) end
  for n = first, count do
    local k = list[n]
    local t, v, code, c3
    if type(k) == "table" and M.plain_keys then
      local nk = #k
      if nk >= 2 and nk <= 4 and next(k, nk) == nil then
        t, v = k[1], k[2]
        c3 = k[3]
        if c3 == nil then code = LINEAR else code = INTERP_CODE[c3] end
        if not (code and type(t) == "number" and t == t and t > -huge and t < huge and
                (prev == nil or t >= prev) and type(v) == "table") then
          t = nil
        else
          local nv = #v
          local x, y, z, w = v[1], v[2], v[3], v[4]
          if nv < 3 or next(v, nv) ~= nil or type(x) ~= "number" or type(y) ~= "number" or type(z) ~= "number" or
             not (x == x and y == y and z == z and x > -huge and x < huge and y > -huge and y < huge and
                  z > -huge and z < huge) then
            t = nil
          elseif nv == 3 then
            if rot then
              if ch.quat == nil then ch.quat = false elseif ch.quat then t = nil end
            end
          elseif nv == 4 and rot and type(w) == "number" and w == w and w > -huge and w < huge and
                 ch.quat ~= false and (x ~= 0 or y ~= 0 or z ~= 0 or w ~= 0) then
            ch.quat = true
          else
            t = nil
          end
          if t and lua_table and inexact(k) then t = nil end
        end
      end
    end
    local ease, ew, hd, more, tan
    if t then
      local extra = k[4]
      if extra == nil then
        ease = is_easing(code) and default_ease(code) or 0
      else
        ease, ew, hd, more, tan = plain_extra(extra, code, #v)
        if not ease then t = nil end
      end
    end
    if t then
      T[n], V[n] = t, v
      IE[n] = code + EASE_UNIT * ease + (c3 ~= nil and HAS_INTERP or 0) + (ew and HAS_EASE or 0)
      if hd then
        ch.h = ch.h or {}
        ch.h[n] = hd
      end
      if tan then
        ch.tan = ch.tan or {}
        ch.tan[n] = tan
      end
      if more then
        ch.keep = ch.keep or {}
        ch.keep[n] = k[4]
      end
    else
      t = read_key(ch, n, k, path, channel, prev)
    end
    prev = t
  end
  ch.last = prev
  return ch
end

-- The core's description of a channel read by read_keys (and the
-- modifiers of each axis, when there are).
local function channel_desc(ch, mods)
  local d
  if ch.block then d = { block = ch.block, h = ch.h, tan = ch.tan }
  else d = { t = ch.t, vals = ch.vals, ie = ch.ie, h = ch.h, tan = ch.tan } end
  if mods then
    local per = {}
    for a = 1, 3 do
      local list = {}
      for _, m in ipairs(mods) do
        if m.enabled and (m.axis == nil or m.axis == a) then list[#list + 1] = m end
      end
      if #list > 0 then per[a] = list end
    end
    d.mods = per
  end
  return d
end

-- Curve modifiers -----------------------------------------------------------------

local function opt_number(m, k, path, dflt)
  local v = m[k]
  if E.absent(v) then return dflt end
  return E.number(v, key(path, k), k)
end

-- A modifier of a curve of `naxes` components (3, x y z, when left out:
-- a joint's channel; a property's count otherwise).
local function read_modifier(m, path, naxes)
  E.object(m, path, "modifier")
  local ty = E.enum(m.type, MOD_TYPES, key(path, "type"), "modifier type")
  local out = { type = ty - 1 }
  local axis = m.axis
  if not E.absent(axis) then
    if not naxes then
      if axis ~= 0 and axis ~= 1 and axis ~= 2 then
        fail(key(path, "axis"), "axis must be 0, 1 or 2 (x, y or z), got %s",
          E.finite(axis) and tostring(axis) or describe(axis))
      end
    elseif compat.mtype(axis) == nil or axis % 1 ~= 0 or axis < 0 or axis >= naxes then
      local got = E.finite(axis) and num(axis) or describe(axis)
      if naxes == 1 then fail(key(path, "axis"), "axis must be 0 (the property has one component), got %s", got) end
      fail(key(path, "axis"), "axis must be a component index from 0 to %d, got %s", naxes - 1, got)
    end
    out.axis = compat.tointeger(axis) + 1
  end
  if not E.absent(m.enabled) then out.enabled = E.boolean(m.enabled, key(path, "enabled"), "enabled") end
  if out.enabled == nil then out.enabled = true end
  local tyname = MOD_TYPES[ty]
  if tyname == "cycles" then
    out.before = E.absent(m.before) and codes.cycle["repeat"] or E.enum(m.before, CYCLE_MODES, key(path, "before"), "cycles mode") - 1
    out.after = E.absent(m.after) and codes.cycle["repeat"] or E.enum(m.after, CYCLE_MODES, key(path, "after"), "cycles mode") - 1
  elseif tyname == "stepped" then
    out.p1 = opt_number(m, "step", path, 0.1)
    out.p2 = opt_number(m, "offset", path, 0)
    if out.p1 <= 0 then fail(key(path, "step"), "step must be greater than 0, got %s", num(out.p1)) end
  elseif tyname == "noise" then
    out.p1 = opt_number(m, "scale", path, 1)
    out.p2 = opt_number(m, "strength", path, 1)
    out.p3 = opt_number(m, "phase", path, 0)
    out.p4 = opt_number(m, "offset", path, 0)
    if out.p1 <= 0 then fail(key(path, "scale"), "scale must be greater than 0, got %s", num(out.p1)) end
  elseif tyname == "limits" then
    out.p1 = opt_number(m, "min", path, -math.huge)
    out.p2 = opt_number(m, "max", path, math.huge)
    if out.p2 < out.p1 then
      fail(key(path, "max"), "max (%s) must not be less than min (%s)", num(out.p2), num(out.p1))
    end
  else -- envelope
    out.p1 = opt_number(m, "reference", path, 0)
    out.p2 = opt_number(m, "min", path, -1)
    out.p3 = opt_number(m, "max", path, 1)
    if out.p3 == out.p2 then
      fail(key(path, "max"), "max must differ from min (both %s)", num(out.p2))
    end
    local pts = {}
    if not E.absent(m.points) then
      local pp = key(path, "points")
      E.array(m.points, pp, "points")
      count_keys(#m.points, pp)
      local prev
      for i, p in ipairs(m.points) do
        vec(p, 3, index(pp, i), "envelope point [time, min, max]")
        if prev and p[1] < prev then
          fail(index(index(pp, i), 1), "envelope point times must not decrease (%s comes after %s)", num(p[1]), num(prev))
        end
        prev = p[1]
        pts[#pts + 1], pts[#pts + 2], pts[#pts + 3] = p[1], p[2], p[3]
      end
    end
    out.points = pts
  end
  return out
end

M.read_modifier = read_modifier

-- Timed items ---------------------------------------------------------------------

-- JSON has one kind of number, and lua-cjson decodes every one as a
-- float: a whole number (within 2^53, where doubles hold every integer)
-- of a decoded payload or marker value becomes a Lua integer, so that a
-- file's 12 reaches callbacks as 12, not 12.0 (docs/api.md).  Tables a
-- script gave (anim.clip) keep the types the script wrote.
local TWO53 = 2 ^ 53
local function integers(v)
  if type(v) == "number" then
    if v == math.floor(v) and v >= -TWO53 and v <= TWO53 then return compat.tointeger(v) end
    return v
  end
  if type(v) == "table" then
    for k, x in pairs(v) do
      if type(x) == "number" or type(x) == "table" then v[k] = integers(x) end
    end
  end
  return v
end

-- What a marker value may be: a string, a number or a boolean (a table
-- would be shared by every delivery and changed by none: events carry
-- those, in their payload).
local function marker_value(v, path)
  local t = type(v)
  if t ~= "string" and t ~= "number" and t ~= "boolean" then
    fail(path, "marker value must be a string, a number or a boolean, got %s", describe(v))
  end
  if t == "number" then E.number(v, path, "marker value") end
  return v
end

local function read_items(c, info, items, path, from_file)
  local total = 0
  local function list(name)
    local v = c[name]
    if E.absent(v) then return {} end
    E.array(v, key(path, name), name)
    total = total + #v
    if total > L.items then
      fail(key(path, name), "too many timed items: markers, events, sounds and plays would be %d (at most %d, anim.limits.items)",
        total, L.items)
    end
    return v
  end
  -- every list is checked before any is read
  local lists = { markers = list("markers"), events = list("events"), sounds = list("sounds"), plays = list("plays") }
  local last = nil
  local function add(t, kind, i, side)
    items[#items + 1] = { t = t, kind = kind, index = i - 1, side = side or codes.side.both }
    if not last or t > last then last = t end
  end
  info.markers, info.events, info.sounds, info.plays = {}, {}, {}, {}
  for i, m in ipairs(lists.markers) do
    local p = index(key(path, "markers"), i)
    E.object(m, p, "marker")
    local t = E.number(m.time, key(p, "time"), "time")
    local name = E.string(m.name, key(p, "name"), "name")
    local value = m.value
    if E.absent(value) then value = nil else value = marker_value(value, key(p, "value")) end
    if from_file then value = integers(value) end
    info.markers[i] = { time = t, name = name, value = value }
    add(t, codes.item.marker, i)
  end
  for i, ev in ipairs(lists.events) do
    local p = index(key(path, "events"), i)
    E.object(ev, p, "event")
    local t = E.number(ev.time, key(p, "time"), "time")
    local name = E.string(ev.name, key(p, "name"), "name")
    local on = E.absent(ev.on) and 1 or E.enum(ev.on, M.SIDES, key(p, "on"), "side")
    info.events[i] = { time = t, name = name, payload = from_file and integers(ev.payload) or ev.payload, on = M.SIDES[on] }
    add(t, codes.item.event, i, on - 1)
  end
  for i, s in ipairs(lists.sounds) do
    local p = index(key(path, "sounds"), i)
    E.object(s, p, "sound")
    local t = E.number(s.time, key(p, "time"), "time")
    local id = s.sound
    local idp = key(p, "sound")
    if E.absent(id) then id, idp = s.id, key(p, "id") end
    if E.absent(id) then fail(p, "sound needs a sound id in 'sound' (or 'id')") end
    E.string(id, idp, "sound id")
    local volume = E.absent(s.volume) and 1 or E.number(s.volume, key(p, "volume"), "volume")
    local pitch = E.absent(s.pitch) and 1 or E.number(s.pitch, key(p, "pitch"), "pitch")
    info.sounds[i] = { time = t, sound = id, volume = volume, pitch = pitch }
    add(t, codes.item.sound, i)
  end
  for i, pl in ipairs(lists.plays) do
    local p = index(key(path, "plays"), i)
    E.object(pl, p, "play")
    local t = E.number(pl.time, key(p, "time"), "time")
    local clip = E.string(pl.clip, key(p, "clip"), "clip path")
    local fade = E.absent(pl.fade) and codes.float.default_fade or E.number(pl.fade, key(p, "fade"), "fade")
    if fade < 0 then fail(key(p, "fade"), "fade must be >= 0, got %s", num(fade)) end
    info.plays[i] = { time = t, clip = clip, fade = fade }
    add(t, codes.item.play, i)
  end
  return last
end

-- Top-level fields common to every version ------------------------------------------

local function read_common(c, info, desc)
  if not E.absent(c.mask) then
    info.mask = M.mask(c.mask, "mask") -- (applied by format/bind.lua: the core plays the joints it is given)
  end
  info.blend = "normal"
  if not E.absent(c.blend) then
    desc.blend = E.enum(c.blend, M.BLENDS, "blend", "blend") - 1
    info.blend = M.BLENDS[desc.blend + 1]
  end
  info.space = "body"
  if not E.absent(c.space) then
    info.space = M.SPACES[E.enum(c.space, M.SPACES, "space", "space")] -- (checked by the animator, in Lua)
  end
  -- (this module's extension: the channels are the joints' local
  -- transforms, as glTF's, not offsets from their rests)
  info.absolute = false
  if not E.absent(c.absolute) then
    info.absolute = E.boolean(c.absolute, "absolute", "absolute")
    desc.absolute = info.absolute and 1 or 0
  end
  if not E.absent(c.skeleton) then info.skeleton = M.skeleton(c.skeleton, "skeleton") end
  if not E.absent(c.retarget) then
    E.object(c.retarget, "retarget", "retarget")
    local r = {}
    for k, v in pairs(c.retarget) do r[k] = E.string(v, key("retarget", k), "retarget joint name") end
    info.retarget = r
  end
end

-- skeleton: joint name -> { parent, position, rotation [, translation,
-- scale] } (SEMANTICS 5).
function M.skeleton(s, path)
  E.object(s, path, "skeleton")
  -- in name order, so that the joint a message names does not depend on
  -- the order pairs() visits the table
  local names = {}
  for name in pairs(s) do
    if type(name) ~= "string" then fail(path, "skeleton joint names must be strings") end
    names[#names + 1] = name
  end
  count_joints(#names, path)
  table.sort(names)
  local out = {}
  for _, name in ipairs(names) do
    local j = s[name]
    -- (the path of the joint is built only for a message)
    local function p() return key(path, name) end
    if type(j) ~= "table" or (next(j) ~= nil and E.is_array(j)) then E.object(j, p(), "skeleton joint") end
    local parent = j.parent
    if E.absent(parent) then parent = nil elseif type(parent) ~= "string" then E.string(parent, key(p(), "parent"), "parent") end
    local function field(k, n)
      local v = j[k]
      if E.absent(v) then return nil end
      if plain_vec(v, n) then return v end
      return vec(v, n, key(p(), k), k)
    end
    local pos = field("position", 3) or { 0, 0, 0 }
    local rot = j.rotation
    if E.absent(rot) then rot = nil
    elseif plain_vec(rot, 4) and (rot[1] ~= 0 or rot[2] ~= 0 or rot[3] ~= 0 or rot[4] ~= 0) then
      rot = quat(rot, "", "rotation")
    elseif not plain_vec(rot, 3) then -- (Euler angles are kept as they are)
      rot = M.rotation(rot, key(p(), "rotation"), "rotation")
    end
    -- (this module's extension, for glTF nodes: the local rest position in
    -- the parent's frame, and the rest scale)
    out[name] = { parent = parent, position = pos, rotation = rot, translation = field("translation", 3),
      scale = field("scale", 3) }
  end
  for _, name in ipairs(names) do
    local parent = out[name].parent
    if parent and not out[parent] then
      fail(key(key(path, name), "parent"), "unknown parent '%s'", shown(parent))
    end
  end
  -- a hierarchy: following the parents from any joint reaches a root
  local state = {} -- nil: not seen, 1: on the current chain, 2: reaches a root
  for _, name in ipairs(names) do
    local chain, at = {}, name
    while at and state[at] == nil do
      state[at] = 1
      chain[#chain + 1] = at
      at = out[at].parent
    end
    if at and state[at] == 1 then
      fail(key(key(path, name), "parent"), "parents form a cycle through '%s'", shown(at))
    end
    for _, n in ipairs(chain) do state[n] = 2 end
  end
  return out
end

local function sorted_keys(t)
  local ks = {}
  for k in pairs(t) do
    if type(k) ~= "string" then fail("joints", "joint names must be strings") end
    ks[#ks + 1] = k
  end
  table.sort(ks)
  return ks
end

-- Versions 2 and 3: curves per joint ------------------------------------------------

local CHANNELS = { "position", "rotation", "scale" }

local function read_curves(c, info, desc, from_file, checked)
  E.object(c.joints, "joints", "joints")
  local compact = {}
  info.compact = compact
  local names = sorted_keys(c.joints)
  count_joints(#names, "joints")
  local last_key
  local loop = desc.loop
  desc.joints = {}
  for _, name in ipairs(names) do
    local j = c.joints[name]
    local jp = key("joints", name)
    E.object(j, jp, "joint")
    local dj = { name = name }
    if not E.absent(j.weight) then
      local w = E.number(j.weight, key(jp, "weight"), "weight")
      if w < 0 or w > 1 then fail(key(jp, "weight"), "weight must be between 0 and 1, got %s", num(w)) end
      dj.weight = w
    end
    if not E.absent(j.muted) then dj.muted = E.boolean(j.muted, key(jp, "muted"), "muted") end
    local mods = {}
    if not E.absent(j.modifiers) then
      local mp = key(jp, "modifiers")
      E.object(j.modifiers, mp, "modifiers")
      for ch, list in pairs(j.modifiers) do
        if ch ~= "position" and ch ~= "rotation" and ch ~= "scale" then
          fail(key(mp, ch), "unknown channel '%s' (expected position, rotation or scale)", shown(ch))
        end
        local lp = key(mp, ch)
        E.array(list, lp, "modifier list")
        count_modifiers(#list, lp)
        local out = {}
        for i, m in ipairs(list) do out[i] = read_modifier(m, index(lp, i)) end
        mods[ch] = out
      end
    end
    for _, chname in ipairs(CHANNELS) do
      local list = j[chname]
      if not E.absent(list) then
        local cp = key(jp, chname)
        local ch = read_keys(list, cp, chname, not from_file, 4)
        if ch.checked then checked[list] = true end
        if ch.n > 0 then
          if last_key == nil or ch.last > last_key then last_key = ch.last end
          local field, d
          if ch.quat then
            if mods.rotation and #mods.rotation > 0 then
              fail(index(key(key(jp, "modifiers"), "rotation"), 1),
                "curve modifiers work on Euler angles, not on quaternion keys")
            end
            field, d = "qrot", channel_desc(ch)
          else
            field = chname == "position" and "pos" or chname == "rotation" and "rot" or "scl"
            d = channel_desc(ch, mods[chname])
          end
          dj[field] = d
          -- the source's keys give way to a placeholder once the clip is
          -- built (keys.lua): the core holds their numbers
          compact[#compact + 1] = { src = j, name = chname, joint = #desc.joints + 1, field = field,
            d = d, keep = ch.keep, whole = ch.whole }
        end
      end
    end
    desc.joints[#desc.joints + 1] = dj
  end
  info.joints = names
  desc.loop = loop
  return last_key
end

-- Version 1: poses at keyframes -------------------------------------------------------

local V1_EASINGS = { linear = INTERP_CODE.linear, constant = INTERP_CODE.step }
for i = FIRST_EASING + 1, LAST_EASING + 1 do V1_EASINGS[INTERPS[i]] = i - 1 end
local V1_DIRS = { ["in"] = 0, out = 1, inout = 2 }
local IDENTITY = { 0, 0, 0, 1 }
local ZERO = { 0, 0, 0 }

-- angles are composed in yxz: R = Ry * Rx * Rz (SEMANTICS 4)
local function euler_to_quat(deg) return Q.from_euler(deg, "yxz") end

local function read_v1(c, info, desc)
  local kfs = E.array(c.keyframes, "keyframes", "keyframes")
  if #kfs > MAX_CURVE_KEYS then
    fail("keyframes", "too many keyframes (%d; at most %d)", #kfs, MAX_CURVE_KEYS)
  end
  local times, poses = {}, {}
  local joints = {} -- name -> { pos = bool, rot = bool, w = bool }
  local prev
  for i, kf in ipairs(kfs) do
    local p = index("keyframes", i)
    E.object(kf, p, "keyframe")
    local t = E.number(kf.time, key(p, "time"), "time")
    if prev and t < prev then
      fail(key(p, "time"), "keyframe times must not decrease (%s comes after %s)", num(t), num(prev))
    end
    prev = t
    times[i] = t
    local ps = {}
    if not E.absent(kf.poses) then
      E.object(kf.poses, key(p, "poses"), "poses")
      for name, pose in pairs(kf.poses) do
        local pp = key(key(p, "poses"), name)
        E.object(pose, pp, "pose")
        local jr = joints[name] or {}
        joints[name] = jr
        local out = {}
        if not E.absent(pose.position) then
          out.pos = vec(pose.position, 3, key(pp, "position"), "position")
          jr.pos = true
        end
        if not E.absent(pose.rotation) then
          out.rot = quat(pose.rotation, key(pp, "rotation"), "rotation")
          jr.rot = true
        elseif not E.absent(pose.angles) then
          out.rot = euler_to_quat(vec(pose.angles, 3, key(pp, "angles"), "angles"))
          jr.rot = true
        end
        out.interp = INTERP_CODE.linear
        if not E.absent(pose.easing) then
          local ez = pose.easing
          local names = "linear, constant, " .. table.concat(INTERPS, ", ", FIRST_EASING + 1, LAST_EASING + 1)
          if type(ez) ~= "string" then
            fail(key(pp, "easing"), "easing must be a name (%s), got %s", names, describe(ez))
          end
          local code = V1_EASINGS[ez:lower()]
          if not code then
            fail(key(pp, "easing"), "unknown easing '%s' (expected %s)", shown(ez), names)
          end
          out.interp = code
        end
        out.ease = EASE_CODE.inOut
        if not E.absent(pose.direction) then
          local d = pose.direction
          if type(d) ~= "string" then
            fail(key(pp, "direction"), "direction must be in, out or inOut, got %s", describe(d))
          end
          local code = V1_DIRS[d:lower()]
          if not code then
            fail(key(pp, "direction"), "unknown direction '%s' (expected in, out or inOut)", shown(d))
          end
          out.ease = code
        end
        out.w = 1
        if not E.absent(pose.weight) then
          local w = E.number(pose.weight, key(pp, "weight"), "weight")
          if w < 0 or w > 1 then fail(key(pp, "weight"), "weight must be between 0 and 1, got %s", num(w)) end
          out.w = w
          if w ~= 1 then jr.w = true end
        end
        ps[name] = out
      end
    end
    poses[i] = ps
  end
  local names = sorted_keys(joints)
  count_joints(#names, "keyframes")
  -- every joint gets a key at every keyframe
  if #names > 0 and #times * #names > L.keys then
    fail("keyframes", "too many keys: %d keyframes for %d joints make %d (at most %d, anim.limits.keys)",
      #times, #names, #times * #names, L.keys)
  end
  desc.joints = {}
  info.weights_vary = false
  for _, name in ipairs(names) do
    local jr = joints[name]
    local dj = { name = name }
    local ie, pv, qv, wv = {}, {}, {}, {}
    for i = 1, #times do
      local pose = poses[i][name]
      local pos = pose and pose.pos or ZERO
      local rot = pose and pose.rot or IDENTITY
      ie[i] = (pose and pose.interp or INTERP_CODE.linear) + EASE_UNIT * (pose and pose.ease or EASE_CODE.inOut)
      for a = 1, 3 do pv[3 * (i - 1) + a] = pos[a] end
      for a = 1, 4 do qv[4 * (i - 1) + a] = rot[a] end
      wv[i] = pose and pose.w or 1
    end
    if jr.pos then dj.pos = { t = times, v = pv, ie = ie } end
    if jr.rot then dj.qrot = { t = times, v = qv, ie = ie } end
    if jr.w then
      dj.pw = { t = times, v = wv, ie = ie }
      for i = 2, #wv do
        if wv[i] ~= wv[1] then info.weights_vary = true end
      end
    end
    desc.joints[#desc.joints + 1] = dj
  end
  info.joints = names
  return times[#times]
end

-- Entry point -----------------------------------------------------------------------------

-- Reads a clip table; returns desc (for core.clip_new) and info, or raises a
-- failure (errors.lua).  `from_file`: the table was decoded from a file or
-- text, so everything in it -- unknown fields and payloads too -- must be
-- JSON within the limits (finite numbers, strings within
-- anim.limits.strings); a table from Lua may hold any value in the fields
-- this reader does not know (anim.encode refuses what JSON cannot say).
function M.read(c, from_file)
  used.keys, used.modifiers = 0, 0
  if type(c) ~= "table" or (next(c) ~= nil and E.is_array(c)) then
    fail("", "expected an object with joints or keyframes, got %s", describe(c))
  end
  local version = c.version
  if not E.absent(version) then
    if type(version) ~= "number" then
      fail("version", "version must be 1, 2 or 3, got %s", describe(version))
    end
    if version ~= 1 and version ~= 2 and version ~= 3 then
      fail("version", "unknown version %s (expected 1, 2 or 3)", num(version))
    end
  end
  local curves = not E.absent(c.joints)
  if not curves and E.absent(c.keyframes) then
    fail("", "expected an object with joints or keyframes, got an object without either")
  end
  -- the version as an integer (JSON numbers decode as floats: 3.0)
  local info = { source = c, version = curves and compat.tointeger(version or 2) or 1,
    layout = curves and "curves" or "poses" }
  local desc = {}
  local last
  -- the lists of keys the scanner found as json.check would (it leaves
  -- them out)
  local checked = {}
  -- playback fields
  if curves then
    local loop = 1
    if not E.absent(c.loop) then loop = E.enum(c.loop, M.LOOPS, "loop", "loop mode") end
    desc.loop = loop - 1
    info.loop = M.LOOPS[loop]
    desc.euler = codes.euler.yxz
    if not E.absent(c.euler) then desc.euler = euler_code(c.euler, "euler") end
    info.euler = M.EULERS[desc.euler + 1]
    last = read_curves(c, info, desc, from_file, checked)
  else
    local looped = false
    if not E.absent(c.looped) then looped = E.boolean(c.looped, "looped", "looped") end
    desc.loop = looped and codes.loop.loop or codes.loop.once
    info.loop = looped and "loop" or "once"
    desc.euler = codes.euler.yxz
    info.euler = "yxz"
    last = read_v1(c, info, desc)
  end
  desc.priority = 0
  if not E.absent(c.priority) then desc.priority = M.priority(c.priority, "priority") end
  info.priority = desc.priority
  desc.speed = 1
  if not E.absent(c.speed) then desc.speed = E.number(c.speed, "speed", "speed") end
  info.speed = desc.speed
  info.autoplay = false
  if not E.absent(c.autoplay) then info.autoplay = E.boolean(c.autoplay, "autoplay", "autoplay") end
  read_common(c, info, desc)
  desc.items = {}
  local last_item = read_items(c, info, desc.items, "", from_file)
  if curves and last_item and (last == nil or last_item > last) then last = last_item end
  if not E.absent(c.length) then
    local len = E.number(c.length, "length", "length")
    if len < 0 then fail("length", "length must be >= 0, got %s", num(len)) end
    desc.length = len
  else
    desc.length = math.max(last or 0, 0)
  end
  info.length = desc.length
  if from_file then json.check(c, next(checked) and checked) end
  return desc, info
end

return M
