-- export/gltf/sample.lua: what the animator plays of a clip's channel on
-- the node tree (the values glTF's channels hold), and channels baked at a
-- rate where glTF cannot hold the keys.
local compat = require "anim.base.compat"
local core = require "anim.core"
local Q = require "anim.base.quat"
local codes = require "anim.base.codes"

local K = require "anim.export.gltf.keys"

local M = {}

local MAX_CURVE_KEYS = codes.const.max_curve_keys
local f32, next32, prev32, floor32, qnorm = K.f32, K.next32, K.prev32, K.floor32, K.qnorm

-- Sampling what the animator plays ------------------------------------------------------------

-- A quaternion product a * b (anim.base.quat's mul, the same arithmetic
-- in the same order), as four numbers.
local function qmul(a1, a2, a3, a4, b1, b2, b3, b4)
  return a4 * b1 + a1 * b4 + a2 * b3 - a3 * b2,
    a4 * b2 - a1 * b3 + a2 * b4 + a3 * b1,
    a4 * b3 + a1 * b2 - a2 * b1 + a3 * b4,
    a4 * b4 - a1 * b1 - a2 * b2 - a3 * b3
end

-- The local transform the animator gives a rig joint for one channel of
-- its clip joint's sample, into `out` (no table made: the measure's inner
-- loop), from the numbers of core.clip_sample_joint (its flags first) and
-- the clip's `absolute` read once; ch: 1 position, 2 rotation, 3 scale.
local function played_into(out, absolute, b, rest, ch, _, p1, p2, p3, x, y, z, w, s1, s2, s3)
  if ch == 1 then
    local k = b.pscale or 1
    if absolute then
      out[1], out[2], out[3] = p1 * k, p2 * k, p3 * k
    else
      local rt = rest.t
      out[1], out[2], out[3] = rt[1] + k * p1, rt[2] + k * p2, rt[3] + k * p3
    end
  elseif ch == 2 then
    local pre = b.pre
    if pre then
      local post = b.post
      x, y, z, w = qmul(pre[1], pre[2], pre[3], pre[4], x, y, z, w)
      x, y, z, w = qmul(x, y, z, w, post[1], post[2], post[3], post[4])
    end
    if not absolute then
      local rr = rest.r
      x, y, z, w = qmul(rr[1], rr[2], rr[3], rr[4], x, y, z, w)
    end
    out[1], out[2], out[3], out[4] = x, y, z, w
  elseif absolute then
    out[1], out[2], out[3] = s1, s2, s3
  else
    local rs = rest.s
    out[1] = rs[1] ~= 0 and rs[1] * s1 or s1 - 1
    out[2] = rs[2] ~= 0 and rs[2] * s2 or s2 - 1
    out[3] = rs[3] ~= 0 and rs[3] * s3 or s3 - 1
  end
  return out
end

-- The local transform the animator gives rig joint rj for clip joint cj's
-- sample s (11 values of core.clip_sample_joint), one channel: position,
-- rotation or scale, in a new table (played_into's arithmetic).
local CH_INDEX = { position = 1, rotation = 2, scale = 3 }
local function played(c, b, rest, ch, s)
  return played_into({}, c.absolute, b, rest, CH_INDEX[ch], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9],
    s[10], s[11])
end

-- The functions that turn a channel's key values and tangents into what is
-- written (the transform `played` applies, which is affine in the values).
local function converters(c, b, rest, ch)
  local k = b.pscale or 1
  if ch == "position" then
    local t0 = c.absolute and { 0, 0, 0 } or rest.t
    return function(v) return { t0[1] + k * v[1], t0[2] + k * v[2], t0[3] + k * v[3] } end,
      function(m) return { k * m[1], k * m[2], k * m[3] } end
  elseif ch == "rotation" then
    local pre = b.pre or { 0, 0, 0, 1 }
    local post = b.post or { 0, 0, 0, 1 }
    if not c.absolute then pre = Q.mul(rest.r, pre) end
    -- (Q.mul's arithmetic, as qmul's: one table a key, not two)
    local a1, a2, a3, a4, o1, o2, o3, o4 = pre[1], pre[2], pre[3], pre[4], post[1], post[2], post[3], post[4]
    local function f(q)
      local x, y, z, w = qmul(a1, a2, a3, a4, q[1], q[2], q[3], q[4])
      return { qmul(x, y, z, w, o1, o2, o3, o4) }
    end
    return f, f
  end
  if c.absolute then
    return function(v) return { v[1], v[2], v[3] } end, function(m) return { m[1], m[2], m[3] } end
  end
  local s0 = rest.s
  return function(v)
    local out = {}
    for a = 1, 3 do out[a] = s0[a] ~= 0 and s0[a] * v[a] or v[a] - 1 end
    return out
  end, function(m)
    local out = {}
    for a = 1, 3 do out[a] = s0[a] ~= 0 and s0[a] * m[a] or m[a] end
    return out
  end
end

-- A sampler of clip joint cj: s(t) -> the 11 values of clip_sample_joint.
local function sampler(clip, cj)
  return function(t) return { core.clip_sample_joint(clip, cj, t) } end
end

-- The times a channel is baked at: every 1/fps over [0, L], its key times
-- inside, and just before each instant where it jumps (keys one float
-- apart, as exact channels write jumps).  The values: conv(sample(t)); or
-- native (optional: native(times) -> the keys, the same, baked in C:
-- core.measure_bake, and its key times and values, returned after the
-- mode).
local function bake(sample, conv, L, fps, key_times, quat, native)
  local ts = {}
  local steps = math.max(1, math.ceil(L * fps - 1e-9))
  if L == 0 then steps = 0 end
  if steps + 1 + #key_times > MAX_CURVE_KEYS then
    return nil
  end
  for k = 0, steps do ts[#ts + 1] = math.min(L, k / fps) end
  for _, t in ipairs(key_times) do
    if t > 0 and t < L then ts[#ts + 1] = t end
  end
  if native then
    local keys, times, vals = native(ts)
    return keys, "LINEAR", times, vals
  end
  table.sort(ts)
  local out = {}
  local last
  for _, t in ipairs(ts) do
    if t ~= last then
      local ft = f32(t)
      if out[#out] and ft <= out[#out].t then ft = next32(out[#out].t) end
      -- a jump at t: the value arriving, one float before
      local before = prev32(floor32(t))
      if last and before > out[#out].t then
        local vb, va = conv(sample(before)), conv(sample(t))
        local d = 0
        for a = 1, #va do d = math.max(d, math.abs(va[a] - vb[a])) end
        if d > 1e-9 * (1 + math.abs(va[1])) and d > 1e-6 then
          out[#out + 1] = { t = before, v = vb }
          ft = floor32(t)
        end
      end
      local v = conv(sample(t))
      if quat and out[#out] then
        -- in the hemisphere of the key before (the slerp takes the short way either way)
        local p = out[#out].v
        if p[1] * v[1] + p[2] * v[2] + p[3] * v[3] + p[4] * v[4] < 0 then v = { -v[1], -v[2], -v[3], -v[4] } end
      end
      out[#out + 1] = { t = ft, v = v }
      last = t
    end
  end
  return out, "LINEAR"
end

-- The difference of two values of a channel: the angle between two turns
-- (radians), else the largest difference of a component.
local function difference(ch, a, b)
  if ch == "rotation" then
    local qa, qb = qnorm(a), qnorm(b)
    local d = qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3] + qa[4] * qb[4]
    local sg = d < 0 and -1 or 1
    local dn, sn = 0, 0
    for i = 1, 4 do
      dn = dn + (qa[i] - sg * qb[i]) ^ 2
      sn = sn + (qa[i] + sg * qb[i]) ^ 2
    end
    return 2 * compat.atan2(math.sqrt(dn), math.sqrt(sn))
  end
  local m = 0
  for i = 1, 3 do m = math.max(m, math.abs(a[i] - b[i])) end
  return m
end

M.played, M.played_into, M.converters, M.sampler, M.bake, M.difference = played, played_into, converters, sampler, bake,
  difference

return M
