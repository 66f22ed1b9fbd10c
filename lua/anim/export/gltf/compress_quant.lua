-- export/gltf/compress_quant.lua: the quantisation of anim.compress's
-- channels (compress.lua): a channel's numbers as the pack holds them, the
-- error of its samples at a bit rate, the fewest bits within a share of its
-- tolerance, and the one value of a channel constant but for noise.  S is
-- compress.lua's state (S.chans: the channels measured, each with its
-- tolerance); r a channel's record ({ ch (1..3), vals, chan or tol }), on
-- which the answers are kept.
local M = {}

-- A channel's numbers as the pack quantises them (packed.c, put_narrow):
-- three a key (a rotation's unit quaternion but the component d whose
-- smallest size is the largest, that one made >= 0), and d.
local function narrow_parts(r)
  if r.parts then return r.parts, r.drop end
  local parts, d = {}, 0
  if r.ch == 2 then
    local least, units = { 2, 2, 2, 2 }, {}
    for k, v in ipairs(r.vals) do
      local l = math.sqrt(v[1] * v[1] + v[2] * v[2] + v[3] * v[3] + v[4] * v[4])
      local u = l > 0 and { v[1] / l, v[2] / l, v[3] / l, v[4] / l } or { 0, 0, 0, 1 }
      units[k] = u
      for c = 1, 4 do least[c] = math.min(least[c], math.abs(u[c])) end
    end
    d = 4
    for c = 1, 4 do if least[c] > least[d] then d = c end end
    for k, u in ipairs(units) do
      local sg, x = u[d] < 0 and -1 or 1, {}
      for c = 1, 4 do if c ~= d then x[#x + 1] = sg * u[c] end end
      parts[k] = x
    end
  else
    parts = r.vals
  end
  r.parts, r.drop = parts, d
  return parts, d
end

-- The largest error of channel r's samples quantised at `bits` bits a
-- component over their range: radians for a rotation (the dropped
-- component rebuilt), else the distance in the channel's values.  Kept
-- per channel and bits (r.qerr): the same samples at every search.
local function quant_error(r, bits)
  r.qerr = r.qerr or {}
  if r.qerr[bits] then return r.qerr[bits] end
  local parts, top = narrow_parts(r), 2 ^ bits - 1
  local lo, step = {}, {}
  for a = 1, 3 do
    local mn, mx = math.huge, -math.huge
    for _, x in ipairs(parts) do
      if x[a] < mn then mn = x[a] end
      if x[a] > mx then mx = x[a] end
    end
    lo[a], step[a] = mn, (mx - mn) / top
  end
  local floor, sqrt, worst = math.floor, math.sqrt, 0
  local lo1, lo2, lo3, st1, st2, st3 = lo[1], lo[2], lo[3], step[1], step[2], step[3]
  local rot = r.ch == 2
  -- (each component's quantised value and the sum of squares, in the
  -- order of the three components: no table a sample)
  for _, x in ipairs(parts) do
    local x1, x2, x3 = x[1], x[2], x[3]
    local q1 = st1 > 0 and lo1 + floor((x1 - lo1) / st1 + 0.5) * st1 or lo1
    local q2 = st2 > 0 and lo2 + floor((x2 - lo2) / st2 + 0.5) * st2 or lo2
    local q3 = st3 > 0 and lo3 + floor((x3 - lo3) / st3 + 0.5) * st3 or lo3
    local e
    if rot then
      local s2 = q1 * q1 + q2 * q2 + q3 * q3
      local w, l = 0, 1
      if s2 < 1 then w = sqrt(1 - s2) else l = 1 / sqrt(s2) end
      local xw = sqrt(math.max(0, 1 - x1 * x1 - x2 * x2 - x3 * x3))
      local dot = math.abs((q1 * x1 + q2 * x2 + q3 * x3) * l + w * xw)
      e = 2 * math.acos(math.min(1, dot))
    else
      local d2 = 0
      d2 = d2 + (q1 - x1) ^ 2
      d2 = d2 + (q2 - x2) ^ 2
      d2 = d2 + (q3 - x3) ^ 2
      e = sqrt(d2)
    end
    if e > worst then worst = e end
  end
  r.qerr[bits] = worst
  return worst
end

-- The fewest bits a component (min_bits .. 16) at which channel r's
-- quantisation stays within frac of its tolerance (the rest is the
-- reduction's): ACL's choice of a bit rate a track, the measure of the
-- whole clip (search) then raising it where a joint strays.
function M.bits_for(S, r, min_bits, frac)
  local tol = r.chan and S.chans[r.chan].tol or r.tol
  if not tol then return 16 end
  tol = tol * frac
  local lo, hi = min_bits, 16
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if quant_error(r, mid) <= tol then hi = mid else lo = mid + 1 end
  end
  return lo
end

-- The angle between two rotations (radians).
local function angle(a, b)
  local d = math.abs(a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4])
  local la = a[1] * a[1] + a[2] * a[2] + a[3] * a[3] + a[4] * a[4]
  local lb = b[1] * b[1] + b[2] * b[2] + b[3] * b[3] + b[4] * b[4]
  return 2 * math.acos(math.min(1, d / math.sqrt(la * lb)))
end

-- One value for a channel whose samples all lie within frac of its
-- tolerance of it (a constant up to noise: one key, where the reduction
-- keeps its ends), else nil: a position's or scale's middle of its
-- range, a rotation's sample nearest the middle of its components' range.
function M.near_constant(S, r, frac)
  if r.const ~= nil then return r.const or nil end
  r.const = false
  local tol = r.chan and S.chans[r.chan].tol or r.tol
  if not tol or #r.vals < 2 then return nil end
  tol = tol * frac
  local m = #r.vals[1]
  local lo, hi = {}, {}
  for a = 1, m do lo[a], hi[a] = math.huge, -math.huge end
  for _, v in ipairs(r.vals) do
    for a = 1, m do lo[a], hi[a] = math.min(lo[a], v[a]), math.max(hi[a], v[a]) end
  end
  local mid = {}
  for a = 1, m do mid[a] = (lo[a] + hi[a]) / 2 end
  if r.ch == 2 then
    local best, bd = nil, math.huge
    for _, v in ipairs(r.vals) do
      local d = 0
      for a = 1, 4 do d = d + (v[a] - mid[a]) ^ 2 end
      if d < bd then best, bd = v, d end
    end
    for _, v in ipairs(r.vals) do if angle(v, best) > tol then return nil end end
    r.const = best
  else
    local d2 = 0
    for a = 1, 3 do d2 = d2 + ((hi[a] - lo[a]) / 2) ^ 2 end
    if math.sqrt(d2) > tol then return nil end
    r.const = mid
  end
  return r.const
end

return M
