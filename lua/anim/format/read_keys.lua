-- read_keys.lua: reads the keys of one channel of a .anim clip (versions 2
-- and 3) into what the C core builds a curve from.  One reader, the C
-- scanner (core.key_scanner, csrc/io/keyscan.c), takes every plain key, of
-- a decoded file or of a table from Lua; the checker (read_key) reads any
-- key the scanner does not take, field by field: it names the path of what
-- is wrong, or takes a key that holds what the core cannot say (a null,
-- an integer beyond 2^53), kept whole.
local E = require "anim.base.errors"
local codes = require "anim.base.codes"
local core = require "anim.core"
local values = require "anim.format.read_values"

local M = {}

local fail, index = E.fail, E.index
local INTERPS, INTERP_CODE, EASES, EASE_CODE = values.INTERPS, codes.interp, values.EASES, codes.ease
local is_easing, default_ease = values.is_easing, values.default_ease
local HAS_INTERP, EASE_UNIT = values.HAS_INTERP, values.EASE_UNIT
local key_time, interp_code, read_extra, read_tangents = values.key_time, values.interp_code, values.read_extra, values.read_tangents
local vec, count_keys = values.vec, values.count_keys
local L = require("anim.base.limits").current

-- The checker: one key of a channel the scanner did not take, with every
-- check and the message of each.  Stores the key at n of ch; returns its
-- time.  The key is also kept whole (ch.whole): what it holds may be more
-- than the core keeps (a null, an integer beyond 2^53), and encoding
-- writes it as it is.
local function read_key(ch, n, k, path, channel, prev)
  local kp = index(path, n)
  local t = key_time(k, kp, prev)
  local v = k[2]
  local vp = index(kp, 2)
  local is_q
  if channel == "rotation" then
    if type(v) == "table" and #v == 4 then is_q = true end
    values.rotation(v, vp, "rotation")
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
-- Reads one channel's keys; returns { t, vals (the key values as given),
-- ie (interpolation bytes), h (handle records by key, or nil), tan
-- (tangent records by key, or nil), quat, keep (by key: extras holding
-- more than the core keeps), whole (by key: keys kept whole), block, n,
-- last, checked }.  The scanner takes the keys while they are plain; the
-- first key it does not take goes to the checker (read_key), which fails
-- naming what is wrong or takes it whole, and the scanner takes over
-- again after it.  When the scanner takes every key at once, their
-- numbers go to the core in a key block (ch.block), not in a Lua table per
-- key; else the keys are in t, vals and ie, whoever read them.
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
-- `depth`: the list's in the tree (for the scanner's share of
-- the tree check: ch.checked, when it found every key as json.check
-- would).
local function read_keys(list, path, channel, depth)
  if not plain_array(list) then E.array(list, path, channel .. " keys") end
  local count = #list
  count_keys(count, path)
  local ch = { t = {}, vals = {}, ie = {}, h = nil, quat = nil, keep = nil, whole = nil, checked = false,
    n = count, last = nil, block = nil }
  local rot = channel == "rotation"
  local strings, max_depth = L.strings, L.depth
  local n, prev
  n, prev, ch.checked = scan_keys(list, count, ch, rot, strings, max_depth, depth)
  while n <= count do
    prev = read_key(ch, n, list[n], path, channel, prev)
    n, prev = scan_keys(list, count, ch, rot, strings, max_depth, depth, n + 1, prev)
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

M.read_keys = read_keys
M.read_key = read_key
M.channel_desc = channel_desc

return M
