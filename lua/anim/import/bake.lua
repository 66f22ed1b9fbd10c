-- bake.lua: turns a function of time into keys that the clip format plays
-- back within a tolerance: linear keys for vectors, slerped keys for
-- quaternions, and a jump (two keys at one time) where the function jumps.
--
-- The importers use it for what a clip cannot say exactly (Molang of
-- query.anim_time, easings the clip easings do not have, per-axis bezier
-- handle times, Blockbench's rest + angles).  The error is measured, not
-- assumed: between every two keys the function is compared with what
-- playback gives at 7 evenly spaced points, and keys are added until every
-- comparison is within the tolerance.
--
--   bake.sample(f, t0, t1, kind [, tol [, step [, budget]]]) -> samples, stats
--     f(t) -> {x, y, z} (kind "vec") or a unit quaternion {x, y, z, w}
--     (kind "quat"), for t in [t0, t1].  samples = { {t, v}, ... } from t0
--     to t1, a jump being two samples at one time.  stats = { rate = keys
--     per second of the uniform grid, err = largest measured error,
--     refined = segments refined locally, jumps = jumps found }.  step is
--     the first grid's spacing (0.1 s, or less for a fast oscillation: a
--     grid as coarse as the wave could see it flat).
--     budget is the most samples it may give (M.MAX_KEYS by default): a
--     function that needs more to stay within the tolerance gives
--     nil, stats (stats.over = budget), after work in proportion to the
--     budget -- a function that changes ever faster (sin of t²) would
--     otherwise be refined down to M.MIN_GAP everywhere.
local M = {}

-- What the specs and docs promise (degrees, blocks, or scale factors), and
-- the tolerance the baker works to: half of it, so that the error between
-- the measuring points stays within the promise.
M.BOUND = 0.01
M.TOL = 0.005
M.MAX_RATE = 1000   -- keys per second of the uniform grid; beyond, refine locally
M.MIN_GAP = 1e-6    -- a segment this short that still misses is a jump
M.CHECKS = 7        -- measuring points inside every segment
M.MAX_KEYS = 100000 -- keys per baked channel, at most (bbchannel.lua shares it out)

local function lerp_vec(a, b, s)
  return { a[1] + (b[1] - a[1]) * s, a[2] + (b[2] - a[2]) * s, a[3] + (b[3] - a[3]) * s }
end

local function dist_vec(a, b)
  return math.max(math.abs(a[1] - b[1]), math.abs(a[2] - b[2]), math.abs(a[3] - b[3]))
end

-- Shortest-arc slerp, the interpolation the C core plays quaternion keys with.
local function slerp(a, b, f)
  local d = a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4]
  local s = 1
  if d < 0 then d, s = -d, -1 end
  local wa, wb
  if d > 0.9999999 then
    wa, wb = 1 - f, f
  else
    local th = math.acos(d)
    local sn = math.sin(th)
    wa, wb = math.sin((1 - f) * th) / sn, math.sin(f * th) / sn
  end
  local o = {}
  for i = 1, 4 do o[i] = wa * a[i] + s * wb * b[i] end
  local n = math.sqrt(o[1] ^ 2 + o[2] ^ 2 + o[3] ^ 2 + o[4] ^ 2)
  for i = 1, 4 do o[i] = o[i] / n end
  return o
end
M.slerp = slerp

-- The angle between two rotations, in degrees (atan2 keeps small angles exact).
local function angle(a, b)
  -- r = conj(a) * b
  local x = a[4] * b[1] - a[1] * b[4] - a[2] * b[3] + a[3] * b[2]
  local y = a[4] * b[2] + a[1] * b[3] - a[2] * b[4] - a[3] * b[1]
  local z = a[4] * b[3] - a[1] * b[2] + a[2] * b[1] - a[3] * b[4]
  local w = a[4] * b[4] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
  return 2 * math.atan(math.sqrt(x * x + y * y + z * z), math.abs(w)) * 180 / math.pi
end
M.angle = angle

local KINDS = {
  vec = { lerp = lerp_vec, dist = dist_vec },
  quat = { lerp = slerp, dist = angle },
}
M.dist = { vec = dist_vec, quat = angle }

-- Largest error of the straight (or slerped) segment a..b against f.
local function seg_error(k, f, ta, va, tb, vb)
  local worst = 0
  local n = M.CHECKS + 1
  for j = 1, M.CHECKS do
    local s = j / n
    local e = k.dist(k.lerp(va, vb, s), f(ta + (tb - ta) * s))
    if e > worst then worst = e end
  end
  return worst
end

local Over = {} -- raised (and caught in sample) when the budget is spent

-- Appends a sample, within the budget.
local function add(out, stats, t, v)
  if #out >= stats.budget then error(Over, 0) end
  out[#out + 1] = { t, v }
end

-- Keys for f on [a, b] (a and b already sampled as va, vb), appended to out
-- (a excluded, b included).
local function refine(k, f, a, va, b, vb, tol, out, stats)
  if seg_error(k, f, a, va, b, vb) <= tol then
    add(out, stats, b, vb)
    return
  end
  if b - a < M.MIN_GAP then
    -- still off on a tiny segment: f jumps in there.  Find where to the
    -- last bit, and put two keys at that time.
    local lo, lv, hi, hv = a, va, b, vb
    for _ = 1, 60 do
      local m = (lo + hi) / 2
      if m <= lo or m >= hi then break end
      local vm = f(m)
      if k.dist(vm, lv) <= k.dist(vm, hv) then lo, lv = m, vm else hi, hv = m, vm end
    end
    add(out, stats, hi, lv)
    add(out, stats, hi, hv)
    if hi < b then add(out, stats, b, vb) end
    stats.jumps = stats.jumps + 1
    return
  end
  stats.refined = stats.refined + 1
  local m = (a + b) / 2
  local vm = f(m)
  refine(k, f, a, va, m, vm, tol, out, stats)
  refine(k, f, m, vm, b, vb, tol, out, stats)
end

function M.sample(f, t0, t1, kind, tol, step, budget)
  local k = KINDS[kind]
  tol = tol or M.TOL
  budget = budget or M.MAX_KEYS
  local stats = { rate = 0, err = 0, refined = 0, jumps = 0, budget = budget }
  local v0 = f(t0)
  if t1 <= t0 then return { { t0, v0 } }, stats end
  local span = t1 - t0
  -- n segments give n + 1 samples
  local cap = math.max(1, math.min(math.ceil(span * M.MAX_RATE), budget - 1))
  -- Uniform grid first: for a smooth f the error shrinks as 1/n^2, so the
  -- grid is grown by the square root of how far it misses.  When growing
  -- stops paying (a kink or a jump keeps the error up), the segments that
  -- still miss are refined one by one.
  local n = math.min(cap, math.max(1, math.ceil(span / math.min(0.1, step or 0.1))))
  local grid, errs
  local best_n, best_err
  for _ = 1, 20 do
    grid = { v0 }
    for i = 1, n do grid[i + 1] = f(t0 + span * i / n) end
    errs = {}
    local worst = 0
    for i = 1, n do
      errs[i] = seg_error(k, f, t0 + span * (i - 1) / n, grid[i], t0 + span * i / n, grid[i + 1])
      if errs[i] > worst then worst = errs[i] end
    end
    if best_err and worst > best_err * 0.5 then
      -- no better than before: go back to the coarser grid and refine locally
      n = best_n
      grid = { v0 }
      for i = 1, n do grid[i + 1] = f(t0 + span * i / n) end
      errs = nil
      break
    end
    best_n, best_err = n, worst
    if worst <= tol or n >= cap then break end
    local grow = math.min(64, math.max(2, math.sqrt(worst / tol) * 1.2))
    n = math.min(cap, math.ceil(n * grow))
  end
  stats.rate = n / span
  local out = { { t0, v0 } }
  local ok, why = pcall(function()
    for i = 1, n do
      local a, b = t0 + span * (i - 1) / n, t0 + span * i / n
      if i == n then b = t1 end
      if errs and errs[i] <= tol then
        add(out, stats, b, grid[i + 1])
      else
        refine(k, f, a, grid[i], b, grid[i + 1], tol, out, stats)
      end
    end
  end)
  if not ok then
    if why ~= Over then error(why, 0) end
    stats.over = budget
    return nil, stats
  end
  -- Local refinement leaves keys on straight runs (a flat stretch halved
  -- down to a jump): a key that lies on the line (arc) between its
  -- neighbours changes nothing and goes.
  local kept = { out[1] }
  for i = 2, #out - 1 do
    local a, b, c = kept[#kept], out[i], out[i + 1]
    local inline = a[1] < b[1] and b[1] < c[1]
      and k.dist(k.lerp(a[2], c[2], (b[1] - a[1]) / (c[1] - a[1])), b[2]) <= 1e-12
    if not inline then kept[#kept + 1] = b end
  end
  if #out > 1 then kept[#kept + 1] = out[#out] end
  out = kept
  -- the error actually left, for the caller's report
  for i = 2, #out do
    local a, b = out[i - 1], out[i]
    if b[1] > a[1] then
      local e = seg_error(k, f, a[1], a[2], b[1], b[2])
      if e > stats.err then stats.err = e end
    end
  end
  return out, stats
end

return M
