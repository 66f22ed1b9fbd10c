-- read_values.lua: the checked readers of a .anim file's values that every
-- part of the reader (format/read.lua) shares: the names of interpolations,
-- eases and modes (from the C core's codes), vectors, rotations, priorities,
-- masks, handles, key extras and tangents, a key's time, and the clip's
-- counts of joints, keys and modifiers against anim.limits.  Each check
-- fails with the JSON path of what is wrong (errors.lua).
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local limits = require "anim.base.limits"
local codes = require "anim.base.codes"
local byteorder = require "anim.base.order"

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
M.PRIORITY_NAMES = PRIORITY_NAMES
M.INTERPS, M.EASES = INTERPS, EASES

-- The limits (limits.lua) are read at each call: a host changes them with
-- anim.set_limits.  MAX_CURVE_KEYS is the C core's own bound on one curve.
local L = limits.current
local MAX_CURVE_KEYS = codes.const.max_curve_keys

-- What the clip being read has used of its limits (reset by M.read).
local used = { keys = 0, modifiers = 0 }

-- (reset by format/read.lua's M.read for each clip)
function M.reset_counts() used.keys, used.modifiers = 0, 0 end

local function count_joints(n, path)
  if n > L.joints then fail(path, "too many joints (%d; at most %d, anim.limits.joints)", n, L.joints) end
end
M.count_joints = count_joints

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
    fail(path, "unknown priority '%s'%s (expected %s, or a number)", shown(v), E.hint(v, PRIORITY_NAMES),
      table.concat(PRIORITY_NAMES, ", "))
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
M.euler_code = euler_code

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

-- A handle [dt, dv] with dt and dv each one number or an array of `dims`
-- numbers ([dx, dy, dz] for a joint's channel: a time and a value per
-- axis): dt (the number or the array) and the dims values of dv.
local function handle(h, path, which, dims)
  if type(h) ~= "table" or not E.is_array(h) or #h ~= 2 then
    fail(path, "%s handle must be [dt, dv], got %s", which,
      (type(h) == "table" and E.is_array(h)) and ("an array of " .. #h) or describe(h))
  end
  local dt = h[1]
  if type(dt) == "table" then vec(dt, dims, index(path, 1), which .. " handle time")
  else E.number(dt, index(path, 1), which .. " handle time") end
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
    fail(path, "unknown interpolation '%s'%s (expected %s)", shown(v), E.hint(v, INTERPS), table.concat(INTERPS, ", "))
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

-- A handle record for the core (csrc/core/curve.h, arity 3): out dt, in dt (NaN
-- when absent), out dv[3], in dv[3], then the form (codes.handle): 1 when
-- the out dv was written as one number, + 2 when the in dv was, + 4 when
-- the out dt was written as an array, + 8 when the in dt was.  (A property
-- of n components has records of 3 + 2n numbers: out dv[n], in dv[n].)
-- Where a handle's times differ between the axes, the record is wide, a
-- time per axis: out dt[dims], in dt[dims], out dv[dims], in dv[dims],
-- form (1 + 4 dims numbers).
local OUT_ONE, IN_ONE = codes.handle.out_one, codes.handle.in_one
local OUT_DTS, IN_DTS = codes.handle.out_dts, codes.handle.in_dts

-- Whether an array of handle times holds one time for every axis (the
-- same number, and the same sign of a zero): the record keeps one.
local function one_time(dt)
  local a = dt[1]
  for i = 2, #dt do
    local b = dt[i]
    if b ~= a or (a == 0 and 1 / a ~= 1 / b) then return false end
  end
  return true
end

-- The record of a key's handles hout and hin (either may be absent) read
-- at ep, of `dims` components.
local function read_handles(hout, hin, ep, dims)
  local odt, odv, idt, idv
  if not E.absent(hout) then odt, odv = handle(hout, key(ep, "out"), "out", dims) end
  if not E.absent(hin) then idt, idv = handle(hin, key(ep, "in"), "in", dims) end
  local form = 0
  if odv and type(hout[2]) ~= "table" then form = form + OUT_ONE end
  if idv and type(hin[2]) ~= "table" then form = form + IN_ONE end
  if type(odt) == "table" then form = form + OUT_DTS end
  if type(idt) == "table" then form = form + IN_DTS end
  local wide = (type(odt) == "table" and not one_time(odt)) or (type(idt) == "table" and not one_time(idt))
  local nt = wide and dims or 1
  local r = {}
  -- the times: nt a handle (NaN: absent)
  for side, dt in ipairs { odt or false, idt or false } do
    for a = 1, nt do
      local x = 0 / 0
      if type(dt) == "table" then x = dt[a] elseif dt then x = dt end
      r[(side - 1) * nt + a] = x
    end
  end
  local b = 2 * nt
  for a = 1, dims do
    r[b + a] = odv and odv[a] or 0
    r[b + dims + a] = idv and idv[a] or 0
  end
  r[b + 2 * dims + 1] = form
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
      fail(key(ep, "ease"), "unknown ease '%s'%s (expected in, out or inOut)", shown(ez), E.hint(ez, { "in", "out", "inOut" }))
    end
    ease = EASE_CODE[ez]
    bits = HAS_EASE
  elseif is_easing(code) then
    ease = default_ease(code)
  end
  local hout, hin = extra.out, extra["in"]
  local hd
  if not E.absent(hout) or not E.absent(hin) then hd = read_handles(hout, hin, ep, dims) end
  return bits + EASE_UNIT * ease, hd
end
M.read_extra = read_extra

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
M.interp_code = interp_code

-- The names of an object's members (joints), sorted, so that the joint a
-- message names does not depend on the order pairs() visits the table.
local function sorted_keys(t)
  local ks = {}
  for k in pairs(t) do
    if type(k) ~= "string" then fail("joints", "joint names must be strings") end
    ks[#ks + 1] = k
  end
  byteorder.sort(ks)
  return ks
end
M.sorted_keys = sorted_keys

return M
