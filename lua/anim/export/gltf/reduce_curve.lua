-- export/gltf/reduce_curve.lua: keyframe reduction of one dense channel
-- (issue 41): the keys kept of its samples, within a tolerance in its own
-- values (the greedy choice; then a looser one with the keys' values placed
-- off the samples, when it keeps fewer), and the curve they make, played as
-- the exports and the core play it (linear; slerp for quaternions).  The
-- tolerance and the model-space measure that holds the clip to its bound:
-- reduce.lua.
local core = require "anim.core"
local K = require "anim.export.gltf.keys"

local M = {}

local lerp, qnorm = K.lerp, K.qnorm

-- The largest distance from the keys a+1 .. b-1 to the interpolation of
-- keys a and b (slerp for unit quaternions: the angle, radians; else the
-- largest difference of a component), and the key where it is.  Written
-- out, allocating nothing: it is the reduction's inner loop.  With stop,
-- the first distance above stop is returned instead (with its key: the
-- question is whether the keys fit); with qa and qb (the segment's end
-- values, for keys placed off the samples), keys a .. b are measured, and
-- errs (when given) gets each one's.
local acos, cos, sin, abs, sqrt = math.acos, math.cos, math.sin, math.abs, math.sqrt
local function farthest_quat(times, vals, a, b, stop, qa, qb, errs)
  local lo, hi = a + 1, b - 1
  if qa then lo, hi = a, b else qa, qb = vals[a], vals[b] end
  local ax, ay, az, aw = qa[1], qa[2], qa[3], qa[4]
  local bx, by, bz, bw = qb[1], qb[2], qb[3], qb[4]
  local d = ax * bx + ay * by + az * bz + aw * bw
  if d < 0 then bx, by, bz, bw, d = -bx, -by, -bz, -bw, -d end
  local th = d < 1 and acos(d) or 0
  local sth = sin(th)
  local t0, span = times[a], times[b] - times[a]
  -- (the cosines of half the angles compared: the angle's acos once)
  local least, wi = 2, nil
  local stopd = stop and (stop < math.pi and cos(stop / 2) or -1) or -1
  for i = lo, hi do
    local u = span > 0 and (times[i] - t0) / span or (i == b and 1 or 0)
    local wa, wb
    if th < 1e-4 then wa, wb = 1 - u, u else wa, wb = sin((1 - u) * th) / sth, sin(u * th) / sth end
    local x, y, z, w = wa * ax + wb * bx, wa * ay + wb * by, wa * az + wb * bz, wa * aw + wb * bw
    local q = vals[i]
    local n = sqrt(x * x + y * y + z * z + w * w)
    local dot = abs(x * q[1] + y * q[2] + z * q[3] + w * q[4]) / n
    -- (for the weights and the worst sample: 2 acos(dot) less e^3 / 96 at most)
    if errs then errs[i] = dot < 1 and sqrt(8 * (1 - dot)) or 0 end
    if dot < least then
      least, wi = dot, i
      if dot < stopd then break end
    end
  end
  if not wi then return -1, nil end
  return least < 1 and 2 * acos(least) or 0, wi
end
local function farthest_lin(times, vals, a, b, stop, va, vb, errs)
  local lo, hi = a + 1, b - 1
  if va then lo, hi = a, b else va, vb = vals[a], vals[b] end
  local t0, span = times[a], times[b] - times[a]
  local worst, wi = -1, nil
  local m = #va
  stop = stop or math.huge
  -- (three components, the most common, written out)
  local a1, a2, a3, d1, d2, d3 = va[1], va[2], va[3], vb[1] - va[1], vb[2] - va[2], vb[3] - va[3]
  for i = lo, hi do
    local u = span > 0 and (times[i] - t0) / span or (i == b and 1 or 0)
    local v = vals[i]
    local e = 0
    if m == 3 then
      local e1, e2, e3 = abs(v[1] - (a1 + d1 * u)), abs(v[2] - (a2 + d2 * u)), abs(v[3] - (a3 + d3 * u))
      if e1 > e then e = e1 end
      if e2 > e then e = e2 end
      if e3 > e then e = e3 end
    else
      for c = 1, m do
        local dd = abs(v[c] - (va[c] + (vb[c] - va[c]) * u))
        if dd > e then e = dd end
      end
    end
    if errs then errs[i] = e end
    if e > worst then
      worst, wi = e, i
      if e > stop then break end
    end
  end
  return worst, wi
end

-- The indices of the keys kept (ascending) so that the keys kept,
-- interpolated (slerp for quaternions, else linearly), stay within tol of
-- every key left out.  Greedy: from each key kept, the farthest key the
-- segment can reach (doubling the reach, then halving the interval), which
-- keeps about a quarter fewer keys than Douglas-Peucker on smooth motion.
-- The work is O(n log n) distances for n keys.  `state` (from an earlier
-- call on the same keys) keeps the quaternions made unit.
-- (quaternions in one hemisphere: each negated when it is in the other
-- half from the one before it as written; choose's `cont`)
local function cont_of(units)
  local cont, prev = {}, nil
  for i, q in ipairs(units) do
    if prev and q[1] * prev[1] + q[2] * prev[2] + q[3] * prev[3] + q[4] * prev[4] < 0 then
      q = { -q[1], -q[2], -q[3], -q[4] }
    end
    cont[i], prev = q, q
  end
  return cont
end

-- (a state of quaternions packed in C, made unit there: its Lua tables,
-- vals made unit and cont, made when asked)
local LAZY = { __index = function(st, k)
  local v
  if k == "vals" then
    v = {}
    for i, q in ipairs(rawget(st, "raw")) do v[i] = qnorm(q) end
  elseif k == "cont" then
    v = cont_of(st.vals)
  else
    return nil
  end
  rawset(st, k, v)
  return v
end }

function M.simplify(times, vals, tol, quat, state)
  local n = #times
  if not state then
    state = { vals = vals, far = farthest_lin }
    local packed = quat and core.keys_pack(times, vals, true, true)
    if packed then
      state = setmetatable({ raw = vals, far = farthest_quat, packed = packed }, LAZY)
    elseif quat then
      local unit = {}
      for i, q in ipairs(vals) do unit[i] = qnorm(q) end
      state.vals, state.far = unit, farthest_quat
    end
  end
  -- (in C when the values are lists of numbers, one count: the same keys)
  if state.packed == nil then state.packed = core.keys_pack(times, state.vals, quat or false) or false end
  if state.packed then return core.keys_simplify(state.packed, tol), state end
  local far, units = state.far, state.vals
  local function fits(a, b) return b - a < 2 or far(times, units, a, b, tol) <= tol end
  local out, a = { 1 }, 1
  while a < n do
    local good, step = a + 1, 2
    while good < n do
      local b = math.min(n, a + step)
      if not fits(a, b) then break end
      good, step = b, step * 2
    end
    local hi = math.min(n, a + step)
    while hi - good > 1 do
      local mid = math.floor((good + hi) / 2)
      if fits(a, mid) then good = mid else hi = mid end
    end
    out[#out + 1] = good
    a = good
  end
  return out, state
end

-- Keys placed off the curve ------------------------------------------------------------
--
-- The keys' values of the greedy choice above are samples, on the curve:
-- a line between two of them strays from a bend by its whole sagitta.  Once
-- the key times are chosen, values placed to follow the samples stray about
-- half as far, which lets the choice be looser.  The values: weighted least
-- squares of the piecewise-linear curve through the chosen key times (each
-- sample i between keys a and b, at fraction u, is (1 - u) V_a + u V_b: the
-- normal equations are tridiagonal, one system for every component), the
-- weights then raised where the error is largest (Lawson's iteration, towards
-- the least largest error).  Quaternions are fitted in components (the
-- samples made one hemisphere's) and made unit; every fit is checked as it
-- is played (slerp), at every sample, before it is used.

M.FIT = true
-- the looser choices tried (times the tolerance), fitted: the fewest keys kept
-- (on the glTF models and the bakes, 2 holds least often and 1.6 most)
M.LOOSE = { 2, 1.6, 1.3 }
M.LAWSON = 4 -- reweighting rounds of a fit
M.REPAIR = 3 -- rounds of keys added where a fit strays

-- The values at the keys `knots` (ascending key indices from 1 to n) of the
-- least-squares curve through vals (m components each) weighted by w; nil
-- when the system is singular.
local function lsq(times, vals, knots, w, m)
  local nk = #knots
  -- (the right-hand sides of up to four components, written out: the loop
  -- over the samples is the fit's inner loop)
  local d, o, r1, r2, r3, r4 = {}, {}, {}, {}, {}, {}
  for j = 1, nk do d[j], o[j], r1[j], r2[j], r3[j], r4[j] = 0, 0, 0, 0, 0, 0 end
  for j = 1, nk - 1 do
    local a, b = knots[j], knots[j + 1]
    local t0, span = times[a], times[b] - times[a]
    local dj, dk, oj, x1, x2, x3, x4, y1, y2, y3, y4 = d[j], d[j + 1], o[j], r1[j], r2[j], r3[j], r4[j], 0, 0, 0, 0
    for i = a, j == nk - 1 and b or b - 1 do
      local u = span > 0 and (times[i] - t0) / span or (i == b and 1 or 0)
      local wi, v = w[i], vals[i]
      local p, q = (1 - u) * wi, u * wi
      dj, dk, oj = dj + p * (1 - u), dk + q * u, oj + p * u
      local v1, v2, v3, v4 = v[1], v[2], v[3], v[4] or 0
      x1, x2, x3, x4 = x1 + p * v1, x2 + p * v2, x3 + p * v3, x4 + p * v4
      y1, y2, y3, y4 = y1 + q * v1, y2 + q * v2, y3 + q * v3, y4 + q * v4
    end
    d[j], d[j + 1], o[j], r1[j], r2[j], r3[j], r4[j] = dj, dk, oj, x1, x2, x3, x4
    r1[j + 1], r2[j + 1], r3[j + 1], r4[j + 1] = y1, y2, y3, y4
  end
  -- (Thomas's elimination: the matrix is symmetric positive definite, each
  -- key's own sample on its diagonal)
  local cp, den = {}, {}
  for j = 1, nk do
    local dj = d[j] - (j > 1 and o[j - 1] * cp[j - 1] or 0)
    if dj ~= dj or dj <= 0 then return nil end
    den[j], cp[j] = dj, o[j] / dj
  end
  local out, r = {}, { r1, r2, r3, r4 }
  for j = 1, nk do out[j] = {} end
  for c = 1, m do
    local rc, y = r[c], {}
    for j = 1, nk do y[j] = (rc[j] - (j > 1 and o[j - 1] * y[j - 1] or 0)) / den[j] end
    out[nk][c] = y[nk]
    for j = nk - 1, 1, -1 do out[j][c] = y[j] - cp[j] * out[j + 1][c] end
  end
  return out
end

local function finite(v)
  for _, x in ipairs(v) do
    if x ~= x or x == math.huge or x == -math.huge then return false end
  end
  return true
end

-- The values fitted at `knots` (made unit and rounded for quaternions, see
-- above), every sample's error (errs) and the worst of each segment (segw);
-- nil when the fit fails (not finite, a zero quaternion).
-- (in C when simplify's samples are: keyreduce.c, the same arithmetic)
local function lsq_packed(st, times)
  if st.packed and st.lsq_packed == nil then
    if st.cont_packed then
      st.lsq_packed = st.cont_packed
    else
      local vals = st.cont or st.vals
      st.lsq_packed = #vals[1] <= 4 and (st.cont and core.keys_pack(times, st.cont, false) or st.packed) or false
    end
  end
  return st.lsq_packed
end

local function fit_once(st, times, knots, w, round)
  local vals, far = st.cont or st.vals, st.far
  lsq_packed(st, times)
  local fv
  if st.lsq_packed then fv = core.keys_lsq(st.lsq_packed, knots, w) else fv = lsq(times, vals, knots, w, #vals[1]) end
  if not fv then return nil end
  for j, v in ipairs(fv) do
    if not finite(v) then return nil end
    if st.cont then
      local n = sqrt(v[1] * v[1] + v[2] * v[2] + v[3] * v[3] + v[4] * v[4])
      if n ~= n or n <= 0 then return nil end
      v = { v[1] / n, v[2] / n, v[3] / n, v[4] / n }
    end
    fv[j] = round and round(v) or v
  end
  local errs, segw = st.errs, {}
  if st.packed then return fv, core.keys_errors(st.packed, knots, fv, errs) end
  for j = 1, #knots - 1 do
    segw[j] = far(times, st.vals, knots[j], knots[j + 1], nil, fv[j], fv[j + 1], errs)
  end
  return fv, segw
end

-- The values fitted at `knots` within tol of every sample, the knots (some
-- added where the fit strayed: REPAIR rounds), or nil when no fit holds
-- with fewer than `most` keys.
local function fit(st, times, knots, tol, most, round)
  -- (in C, rounds and all, when its samples are and the rounding is none
  -- or keys.lua's shorts: keyreduce.c's anim_keys_fit)
  if (round == nil or round == K.short_quat) and lsq_packed(st, times) then
    local cont = st.cont_packed ~= nil or rawget(st, "cont") ~= nil
    local k2, fv = core.keys_fit(st.packed, st.lsq_packed, knots, tol, most, M.LAWSON, M.REPAIR, cont, round ~= nil)
    if not k2 then return nil end
    return fv, k2
  end
  local n = #times
  -- (the weights carry over to the next round, keys added)
  local w = {}
  for i = 1, n do w[i] = 1 end
  for _ = 1, M.REPAIR do
    local fv, segw
    for round_ = 1, M.LAWSON do
      fv, segw = fit_once(st, times, knots, w, round)
      if not fv then return nil end
      local worst = 0
      for _, e in ipairs(segw) do if e > worst then worst = e end end
      if worst <= tol or round_ == M.LAWSON then break end
      -- (Lawson: each weight times its error; a floor keeps the system regular)
      local errs, sum = st.errs, 0
      for i = 1, n do sum = sum + w[i] * errs[i] end
      if sum ~= sum or sum <= 0 then break end
      for i = 1, n do w[i] = math.max(w[i] * errs[i] * n / sum, 1e-6) end
    end
    -- the worst sample of each segment astray becomes a key
    local add = {}
    for j, e in ipairs(segw) do
      if e > tol or e ~= e then
        local a, b, errs = knots[j], knots[j + 1], st.errs
        local wi, we = nil, -1
        for i = a + 1, b - 1 do if errs[i] > we then wi, we = i, errs[i] end end
        if not wi then return nil end
        add[#add + 1] = wi
      end
    end
    if #add == 0 then return fv, knots end
    if #knots + #add >= most then return nil end
    local merged = {}
    for _, k in ipairs(knots) do merged[#merged + 1] = k end
    for _, k in ipairs(add) do merged[#merged + 1] = k end
    table.sort(merged)
    knots = merged
  end
  return nil
end

-- The keys kept (indices, ascending) and their values (kept.vals; nil: the
-- samples' own): the greedy choice at tol, or, when fewer, a looser one
-- with its values fitted (within tol of every sample as played).  round:
-- nil, or what a value becomes as written (applied before the check).
-- fixed: the greedy choice alone (the fit would move the first and last
-- values, which then stay the samples').
function M.choose(times, vals, tol, quat, state, round, fixed)
  local kept
  kept, state = M.simplify(times, vals, tol, quat, state)
  if fixed or not M.FIT or #kept <= 2 then return kept, state end
  if quat and rawget(state, "raw") then
    -- (packed in C: in one hemisphere there)
    if state.cont_packed == nil then state.cont_packed = core.keys_cont(state.packed) end
  elseif quat and not state.cont then
    state.cont = cont_of(state.vals)
  end
  state.errs = state.errs or {}
  local last
  for _, g in ipairs(M.LOOSE) do
    local knots = M.simplify(times, vals, tol * g, quat, state)
    -- (as many keys as the looser choice before: the same keys, no better fitted)
    if #knots < #kept and #knots ~= last then
      last = #knots
      local fv, k2 = fit(state, times, knots, tol, #kept, round)
      if fv then
        kept = k2
        kept.vals = fv
        -- (held with no key added: a tighter choice keeps at least as many)
        if #k2 == #knots then break end
      end
    end
  end
  return kept, state
end

-- The function that gives the value at t of keys (times, vals)
-- interpolated as above (held before the first and after the last).  It
-- is fastest for times in increasing order (it keeps its place).
function M.evaluator(times, vals, quat)
  local n, lo = #times, 1
  if not quat then
    return function(t)
      if t <= times[1] then return vals[1] end
      if t >= times[n] then return vals[n] end
      if t < times[lo] then lo = 1 end
      while times[lo + 1] <= t do lo = lo + 1 end
      local span = times[lo + 1] - times[lo]
      return lerp(vals[lo], vals[lo + 1], span > 0 and (t - times[lo]) / span or 1)
    end
  end
  -- slerp, the arc of the current segment kept (its keys made unit, the
  -- second in the first's hemisphere), into one table
  local units = {}
  for i, q in ipairs(vals) do units[i] = qnorm(q) end
  local out, seg = { 0, 0, 0, 1 }, nil
  local ax, ay, az, aw, bx, by, bz, bw, th, sth
  return function(t)
    if t <= times[1] then return units[1] end
    if t >= times[n] then return units[n] end
    if t < times[lo] then lo = 1 end
    while times[lo + 1] <= t do lo = lo + 1 end
    if seg ~= lo then
      seg = lo
      local qa, qb = units[lo], units[lo + 1]
      ax, ay, az, aw, bx, by, bz, bw = qa[1], qa[2], qa[3], qa[4], qb[1], qb[2], qb[3], qb[4]
      local dd = ax * bx + ay * by + az * bz + aw * bw
      if dd < 0 then bx, by, bz, bw, dd = -bx, -by, -bz, -bw, -dd end
      th = dd < 1 and acos(dd) or 0
      sth = sin(th)
    end
    local span = times[lo + 1] - times[lo]
    local u = span > 0 and (t - times[lo]) / span or 1
    local wa, wb
    if th < 1e-4 then wa, wb = 1 - u, u else wa, wb = sin((1 - u) * th) / sth, sin(u * th) / sth end
    out[1], out[2], out[3], out[4] = wa * ax + wb * bx, wa * ay + wb * by, wa * az + wb * bz, wa * aw + wb * bw
    return out
  end
end

return M
