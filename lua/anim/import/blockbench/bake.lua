-- import/blockbench/bake.lua: turns a function of time into keys that the clip format plays
-- back within a tolerance: linear keys for vectors, slerped keys for
-- quaternions, and a jump (two keys at one time) where the function jumps.
--
-- The importers use it for what a clip cannot say exactly (Molang of
-- time, easings the clip easings do not have, Blockbench's rest +
-- angles).  The error is measured, not
-- assumed: every segment between two keys is compared with the function
-- at its quarter points, and a segment that misses is halved (its
-- midpoint and quarter points are reused by the halves), so a key costs
-- about four evaluations of the function.
--
--   bake.sample(f, t0, t1, kind [, tol [, step [, max_keys [, budget [, weight]]]]]) -> samples, stats
--     f(t) -> {x, y, z} (kind "vec") or a unit quaternion {x, y, z, w}
--     (kind "quat"), for t in [t0, t1].  samples = { {t, v}, ... } from t0
--     to t1, a jump being two samples at one time.  stats = { rate = keys
--     per second, err = largest measured error, refined = segments halved,
--     jumps = jumps found, evals = evaluations of f }.  step is the first
--     grid's spacing (0.1 s, or less for a fast oscillation: a grid as
--     coarse as the wave could see it flat).
--     max_keys is the most samples it may give (M.MAX_KEYS by default): a
--     function that needs more gives nil, stats (stats.over = max_keys),
--     after work in proportion to it.  budget = { used, limit } counts the
--     evaluations of f (a file's anim.limits.bake_samples), each as
--     `weight` (1; more for an f that costs more): passing the limit
--     gives nil, stats (stats.spent = true).
local compat = require "anim.base.compat"
local M = {}

M.BOUND = 0.01      -- what the specs and docs promise (degrees, blocks or scale factors)
M.TOL = 0.005       -- what the baker works to: half of it
M.MIN_GAP = 1e-6    -- a segment this short that still misses is a jump
M.MAX_KEYS = 100000 -- keys per baked channel, at most (channel.lua shares it out)
M.FIRST_GRID = 0.1  -- the first grid's spacing at most, seconds

local function lerp_vec(a, b, s)
  return { a[1] + (b[1] - a[1]) * s, a[2] + (b[2] - a[2]) * s, a[3] + (b[3] - a[3]) * s }
end

local function dist_vec(a, b)
  return math.max(math.abs(a[1] - b[1]), math.abs(a[2] - b[2]), math.abs(a[3] - b[3]))
end

-- Shortest-arc slerp, the interpolation the C core plays quaternion keys
-- with, in pieces that the segment error below shares: the arc from a to
-- b (the sign that takes the shorter way, its angle and sine, nil when the
-- two nearly coincide), the point at f on it (four numbers, made unit).
local function arc(a, b)
  local d = a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4]
  local s = 1
  if d < 0 then d, s = -d, -1 end
  if d > 0.9999999 then return s end
  local th = math.acos(d)
  return s, th, math.sin(th)
end

local function arc_point(a, b, s, th, sn, f)
  local wa, wb
  if not th then
    wa, wb = 1 - f, f
  else
    wa, wb = math.sin((1 - f) * th) / sn, math.sin(f * th) / sn
  end
  local o1, o2 = wa * a[1] + s * wb * b[1], wa * a[2] + s * wb * b[2]
  local o3, o4 = wa * a[3] + s * wb * b[3], wa * a[4] + s * wb * b[4]
  local n = math.sqrt(o1 ^ 2 + o2 ^ 2 + o3 ^ 2 + o4 ^ 2)
  return o1 / n, o2 / n, o3 / n, o4 / n
end

local function slerp(a, b, f)
  local s, th, sn = arc(a, b)
  return { arc_point(a, b, s, th, sn, f) }
end
M.slerp = slerp

-- The angle between rotation (a1, a2, a3, a4) and rotation b, in degrees
-- (atan2 keeps small angles exact).
local function angle_from(a1, a2, a3, a4, b)
  -- r = conj(a) * b
  local x = a4 * b[1] - a1 * b[4] - a2 * b[3] + a3 * b[2]
  local y = a4 * b[2] + a1 * b[3] - a2 * b[4] - a3 * b[1]
  local z = a4 * b[3] - a1 * b[2] + a2 * b[1] - a3 * b[4]
  local w = a4 * b[4] + a1 * b[1] + a2 * b[2] + a3 * b[3]
  return 2 * compat.atan2(math.sqrt(x * x + y * y + z * z), math.abs(w)) * 180 / math.pi
end

local function angle(a, b) return angle_from(a[1], a[2], a[3], a[4], b) end
M.angle = angle

local KINDS = {
  vec = { lerp = lerp_vec, dist = dist_vec },
  quat = { lerp = slerp, dist = angle },
}
M.dist = { vec = dist_vec, quat = angle }

local Over, Spent = {}, {} -- raised (and caught in sample) when a bound is reached

-- The largest distance of the midpoint and quarter points (vm, v1, v3)
-- from the straight (slerped) segment from va to vb, by kind: without a
-- table per point for vectors; for quaternions slerp and angle's own
-- pieces, the arc found once for the three points and no table per point
-- (the same bits as dist(lerp(...))).
local abs = math.abs
local function off(va, vb, s, th, sn, at, v)
  local o1, o2, o3, o4 = arc_point(va, vb, s, th, sn, at)
  return angle_from(o1, o2, o3, o4, v)
end
local SEG_ERR = {
  vec = function(va, vb, vm, v1, v3)
    local e = 0
    for i = 1, 3 do
      local a, d = va[i], vb[i] - va[i]
      local x = abs(a + d * 0.5 - vm[i])
      if x > e then e = x end
      x = abs(a + d * 0.25 - v1[i])
      if x > e then e = x end
      x = abs(a + d * 0.75 - v3[i])
      if x > e then e = x end
    end
    return e
  end,
  quat = function(va, vb, vm, v1, v3)
    local s, th, sn = arc(va, vb)
    return math.max(off(va, vb, s, th, sn, 0.5, vm), off(va, vb, s, th, sn, 0.25, v1),
      off(va, vb, s, th, sn, 0.75, v3))
  end,
}

-- Halving leaves keys on straight runs (a flat stretch halved down to a
-- jump): a key that lies on the line (arc) between its neighbours
-- changes nothing and goes.
local function prune(out, lerp, dist)
  local kept = { out[1] }
  for i = 2, #out - 1 do
    local a, b, c = kept[#kept], out[i], out[i + 1]
    local inline = a[1] < b[1] and b[1] < c[1]
      and dist(lerp(a[2], c[2], (b[1] - a[1]) / (c[1] - a[1])), b[2]) <= 1e-12
    if not inline then kept[#kept + 1] = b end
  end
  if #out > 1 then kept[#kept + 1] = out[#out] end
  return kept
end

function M.sample(f, t0, t1, kind, tol, step, max_keys, budget, weight)
  local k = KINDS[kind]
  local lerp, dist = k.lerp, k.dist
  tol = tol or M.TOL
  max_keys = max_keys or M.MAX_KEYS
  local stats = { rate = 0, err = 0, refined = 0, jumps = 0, evals = 0 }
  local function ev(t)
    stats.evals = stats.evals + 1
    if budget then
      local u = budget.used + (weight or 1)
      budget.used = u
      if u > budget.limit then error(Spent, 0) end
    end
    return f(t)
  end
  local seg_err = SEG_ERR[kind]
  local out = {}
  local function add(t, v)
    if #out >= max_keys then error(Over, 0) end
    out[#out + 1] = { t, v }
  end
  local ok, why = pcall(function()
    local v0 = ev(t0)
    add(t0, v0)
    if t1 <= t0 then return end
    local span = t1 - t0
    local n = math.max(1, math.ceil(span / math.min(M.FIRST_GRID, step or M.FIRST_GRID)))
    if n > max_keys then error(Over, 0) end
    -- segments to do, as a stack (last pushed is the earliest in time):
    -- a, va, b, vb and the value at the midpoint when known
    local stack = {}
    local grid = {}
    for i = 1, n do
      local b = i == n and t1 or t0 + span * i / n
      grid[i] = { b, ev(b) }
    end
    for i = n, 1, -1 do
      local a, va = t0, v0
      if i > 1 then a, va = grid[i - 1][1], grid[i - 1][2] end
      stack[#stack + 1] = { a, va, grid[i][1], grid[i][2] }
    end
    while #stack > 0 do
      local seg = stack[#stack]
      stack[#stack] = nil
      local a, va, b, vb, vm = seg[1], seg[2], seg[3], seg[4], seg[5]
      local h = b - a
      local m = a + h / 2
      if not vm then vm = ev(m) end
      local q1, q3 = a + h / 4, a + 3 * h / 4
      local v1, v3 = ev(q1), ev(q3)
      local e = seg_err(va, vb, vm, v1, v3)
      if e <= tol then
        if e > stats.err then stats.err = e end
        add(b, vb)
      elseif h < M.MIN_GAP then
        -- still off on a tiny segment: the function jumps in there.  Find
        -- where to the last bit, and put two keys at that time.
        local lo, lv, hi, hv = a, va, b, vb
        for _ = 1, 60 do
          local mid = (lo + hi) / 2
          if mid <= lo or mid >= hi then break end
          local x = ev(mid)
          if dist(x, lv) <= dist(x, hv) then lo, lv = mid, x else hi, hv = mid, x end
        end
        add(hi, lv)
        add(hi, hv)
        if hi < b then add(b, vb) end
        stats.jumps = stats.jumps + 1
      else
        stats.refined = stats.refined + 1
        -- the later half first onto the stack: the earlier is done next
        stack[#stack + 1] = { m, vm, b, vb, v3 }
        stack[#stack + 1] = { a, va, m, vm, v1 }
      end
    end
  end)
  if not ok then
    if why == Over then
      stats.over = max_keys
      return nil, stats
    elseif why == Spent then
      stats.spent = true
      return nil, stats
    end
    error(why, 0)
  end
  local kept = prune(out, lerp, dist)
  stats.rate = t1 > t0 and (#kept - 1) / (t1 - t0) or 0
  return kept, stats
end

return M
