-- read_keys.lua: reads the keys of one channel of a .anim clip (versions 2
-- and 3) into what the C core builds a curve from: the C scanner for a
-- decoded file's plain keys, the inline checks for a table's, and the
-- general reader, which checks a key field by field and names the path of
-- what is wrong.
local E = require "anim.base.errors"
local compat = require "anim.base.compat"
local codes = require "anim.base.codes"
local core = require "anim.core"
local values = require "anim.format.read_values"

local M = {}

local fail, index = E.fail, E.index
local INTERPS, INTERP_CODE, EASES, EASE_CODE = values.INTERPS, codes.interp, values.EASES, codes.ease
local is_easing, default_ease = values.is_easing, values.default_ease
local HAS_INTERP, HAS_EASE, EASE_UNIT = values.HAS_INTERP, values.HAS_EASE, values.EASE_UNIT
local key_time, interp_code, read_extra, read_tangents = values.key_time, values.interp_code, values.read_extra, values.read_tangents
local vec, count_keys = values.vec, values.count_keys
local L = require("anim.base.limits").current
local huge = math.huge

-- One key of a channel, with every check and the message of each: the
-- general reader.  Stores the key at n of ch; returns its time.  The key
-- is also kept whole (ch.whole): what it holds may be more than the core
-- keeps (a null, an integer beyond 2^53), and encoding writes it as it is.
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
  local hd = values.handle_record()
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
-- (`plain` false turns the inline checks off: format/read.lua's
-- M.plain_keys, which spec/format_spec.lua sets to compare the two).  `lua_table`: the clip came from Lua, whose integers
-- may not fit a double.
--
-- For a decoded file the inline checks run in C first (core.key_scanner,
-- csrc/io/check.c): the scanner takes keys while they are plain, as
-- the inline checks below take them, and hands the first key it does not
-- take to them; when it takes them all, their numbers go to the core in
-- a key block (ch.block), not in a Lua table per key (`scan` false, from
-- format/read.lua's M.scan_keys, leaves it out: spec/format_spec.lua
-- compares).
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
local function read_keys(list, path, channel, lua_table, depth, plain, scan)
  scan = scan and plain and not lua_table
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
    if type(k) == "table" and plain then
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

M.read_keys = read_keys
M.channel_desc = channel_desc

return M
