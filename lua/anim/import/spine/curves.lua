-- import/spine/curves.lua: Spine's curves made the module's keys, exactly.
--
-- A timeline gives each component of a channel (x and y of a translation,
-- r g b a of a colour, every vertex offset of a deform) a list of keys
-- { t =, v =, c = curve }: c is "linear", "stepped" or { x1, y1, x2, y2 },
-- the control points of the segment's cubic bezier in (time, value), as the
-- JSON export format page defines them (3.8: "curve" normalised to the
-- segment, turned absolute by the reader; 4.x: absolute per component).
-- M.merge puts the components of one channel on the union of their key
-- times and writes the module's keys (docs/format-reference.md, "Bezier
-- handles"): a bezier segment cut at a time inside it is split exactly (de
-- Casteljau at the parameter u where its time is the cut's); a linear
-- segment is a bezier whose handles lie on its line, so it shares any
-- handle times; a stepped one holds its value and the next key jumps (two
-- keys at one time, right-continuous).  Where two components' handles have
-- different times (4.x, cx differ) each keeps its own (the format's handle
-- time per axis): exact.  A handle outside its segment (a file's curve
-- whose time goes back, or a cut's piece: Spine's curve is a bezier in
-- time, which the format's scaling does not follow) is moved into it and
-- the largest deviation measured is reported (an approximation the caller
-- warns of).
local M = {}

local abs, max = math.abs, math.max

-- The value at parameter u of the cubic through a, b, c, d.
local function cubic(a, b, c, d, u)
  local v = 1 - u
  return v * v * v * a + 3 * v * v * u * b + 3 * v * u * u * c + u * u * u * d
end

-- The parameter u in [0, 1] whose time is t on the segment p (p.t0, p.x1,
-- p.x2, p.t1: times; monotone when the handles stay within the segment,
-- which the callers ensure): Newton's steps kept inside a bracket that
-- bisection narrows when a step would leave it, to the last bit (a few
-- steps: a file may split a million segments).
local function param(p, t)
  local a, b, c, d = p.t0, p.x1, p.x2, p.t1
  if t <= a then return 0 end
  if t >= d then return 1 end
  local lo, hi = 0, 1
  local u = (t - a) / (d - a)
  for _ = 1, 200 do
    local x = cubic(a, b, c, d, u) - t
    if x == 0 then return u end
    if x < 0 then lo = u else hi = u end
    local v = 1 - u
    local dx = 3 * v * v * (b - a) + 6 * v * u * (c - b) + 3 * u * u * (d - c)
    local nu = dx > 0 and u - x / dx or lo - 1
    if not (nu > lo and nu < hi) then nu = (lo + hi) / 2 end
    if nu == u or nu == lo or nu == hi or abs(nu - u) < 1e-17 then return nu end
    u = nu
  end
  return u
end
M.param = param

-- The value of bezier segment p at time t (solved exactly, not by Spine's
-- runtimes' fixed subdivision).
function M.bezier_at(p, t)
  return cubic(p.v0, p.y1, p.y2, p.v1, param(p, t))
end

-- Segment p split at time t: the part before and the part after (de
-- Casteljau at the parameter of t, in time and value alike).
local function split(p, t)
  local u = param(p, t)
  local a, b, c, d = p.t0, p.x1, p.x2, p.t1
  local ab, bc, cd = a + (b - a) * u, b + (c - b) * u, c + (d - c) * u
  local abc, bcd = ab + (bc - ab) * u, bc + (cd - bc) * u
  local xa, xb, xc, xd = ab, abc, bcd, cd
  a, b, c, d = p.v0, p.y1, p.y2, p.v1
  ab, bc, cd = a + (b - a) * u, b + (c - b) * u, c + (d - c) * u
  abc, bcd = ab + (bc - ab) * u, bc + (cd - bc) * u
  local ym = abc + (bcd - abc) * u
  return { kind = "bezier", t0 = p.t0, v0 = p.v0, x1 = xa, y1 = ab, x2 = xb, y2 = abc, t1 = t, v1 = ym },
    { kind = "bezier", t0 = t, v0 = ym, x1 = xc, y1 = bcd, x2 = xd, y2 = cd, t1 = p.t1, v1 = p.v1 }
end

-- A component's keys cut at the times of `times` (sorted, distinct,
-- covering its keys), one stretch after the other: cursor(j) gives the
-- segment over [times[j], times[j+1]] (j increasing, each once), of kind
-- "linear" (v0 -> v1), "step" (v0 held, v1 arrives at the end) or
-- "bezier" (control points); before the first key the component holds
-- `setup` and steps to its first key (the runtimes' API documentation of
-- Timeline apply: "setup values are used before the first frame" when an
-- animation is applied from the setup pose); after the last it holds the
-- last.  Keys at one time: the last counts (the editor writes none).  Made
-- as they are asked for, so that a channel's merge holds one segment per
-- component, not one per key time.
local function cursor(keys, times, setup)
  local k = 1
  local n = #keys
  local rest -- { k, piece }: what is left of key k's bezier after a cut
  return function(j)
    local a, b = times[j], times[j + 1]
    while k < n and keys[k + 1].t <= a do k = k + 1 end
    local key = keys[k]
    if a < keys[1].t then return { kind = "step", t0 = a, t1 = b, v0 = setup, v1 = setup } end
    if k == n then return { kind = "linear", t0 = a, t1 = b, v0 = key.v, v1 = key.v } end
    local nxt = keys[k + 1]
    local c = key.c
    local whole
    if c == "stepped" then
      whole = { kind = "step", t0 = key.t, t1 = nxt.t, v0 = key.v, v1 = key.v }
    elseif type(c) == "table" then
      whole = { kind = "bezier", t0 = key.t, v0 = key.v, x1 = c[1], y1 = c[2], x2 = c[3], y2 = c[4],
        t1 = nxt.t, v1 = nxt.v }
    else
      whole = { kind = "linear", t0 = key.t, t1 = nxt.t, v0 = key.v, v1 = nxt.v }
    end
    -- the part of the key's segment from a to b (a bezier's rest after
    -- the last cut is kept: each cut solves one parameter)
    local s
    if a == whole.t0 and b == whole.t1 then
      s = whole -- (the usual case: the segment whole)
    elseif whole.kind == "bezier" then
      if not (rest and rest.k == k and rest.piece.t0 == a) then
        rest = { k = k, piece = a > whole.t0 and select(2, split(whole, a)) or whole }
      end
      s = rest.piece
      if b < whole.t1 then
        s, rest.piece = split(s, b)
      else
        rest = nil
      end
    elseif whole.kind == "linear" then
      local L = whole.t1 - whole.t0
      local function at(t) return whole.v0 + (whole.v1 - whole.v0) * ((t - whole.t0) / L) end
      s = { kind = "linear", t0 = a, t1 = b, v0 = a == whole.t0 and whole.v0 or at(a),
        v1 = b == whole.t1 and whole.v1 or at(b) }
    else
      s = { kind = "step", t0 = a, t1 = b, v0 = whole.v0, v1 = whole.v0 }
    end
    -- a stepped segment's value arrives at the next key's time
    if whole.kind == "step" and b == whole.t1 then s.v1 = whole.v0 end
    return s
  end
end

-- The value a component has from time t on (right-continuous).
local function value_from(keys, t, setup)
  if t < keys[1].t then return setup end
  local v = keys[1].v
  for i = 1, #keys do
    if keys[i].t <= t then v = keys[i].v else break end
  end
  return v
end

-- The handle times of the components: one number when they agree, else
-- the list (the format's time per axis).
local function one_time(dts)
  for i = 2, #dts do
    if dts[i] ~= dts[1] then return dts end
  end
  return dts[1]
end

-- The keys of one channel from its components: comps[i] = { keys =,
-- setup = }.  Calls emit(t, values (one per component), interp ("linear",
-- "step" or "bezier"), out handle { dt (a number, or one per component
-- where theirs differ), { dv... } } | nil, in handle | nil) for each key
-- in order, made as the merge goes (a channel's keys are held once, by the
-- caller); returns their count and the largest deviation (value units) of
-- a handle moved into its segment, with the time of its key (nil when
-- exact).  budget.left: the segments that may still be
-- measured (63 samples each); past it a deviation is reported (0 when
-- none was measured) without being measured.
function M.merge(comps, budget, emit)
  local set, times = {}, {}
  for _, c in ipairs(comps) do
    for _, k in ipairs(c.keys) do
      if not set[k.t] then set[k.t] = true; times[#times + 1] = k.t end
    end
  end
  if not set[0] then times[#times + 1] = 0 end
  table.sort(times)
  local n = #comps
  local cursors, seg, prevseg = {}, {}, {}
  for i, c in ipairs(comps) do cursors[i] = cursor(c.keys, times, c.setup) end
  local worst, worst_t = nil, nil
  local count = 0
  -- (the previous key's interpolation, and the in handle the next key takes)
  local prev_interp, pending_in
  local function put(t, v, interp, out, inh)
    count = count + 1
    emit(t, v, interp, out, inh)
  end
  local ntimes = #times
  for j = 1, ntimes do
    local t = times[j]
    seg, prevseg = prevseg, seg
    if j < ntimes then
      for i = 1, n do seg[i] = cursors[i](j) end
    end
    local v = {}
    -- (the curve's value at t: its segment's start, or after the last
    -- time the last key's)
    for i = 1, n do
      v[i] = j < ntimes and seg[i].v0 or value_from(comps[i].keys, t, comps[i].setup)
    end
    local interp, out_h, in_h = "linear", nil, nil
    -- the arrival at t differs from the value from t: a jump (two keys)
    if j > 1 then
      local jump = false
      for i = 1, n do
        if prevseg[i].v1 ~= v[i] then jump = true; break end
      end
      if jump and prev_interp ~= "step" then
        local arrive = {}
        for i = 1, n do arrive[i] = prevseg[i].v1 end
        put(t, arrive, "linear", nil, pending_in)
      else
        in_h = pending_in
      end
      pending_in = nil
    end
    if j < ntimes then
      local any_bezier, all_step = false, true
      for i = 1, n do
        local s = seg[i]
        if s.kind == "bezier" then any_bezier = true end
        if s.kind ~= "step" and not (s.kind == "linear" and s.v0 == s.v1) then all_step = false end
      end
      local stepped = false
      for i = 1, n do if seg[i].kind == "step" then stepped = true end end
      if all_step and stepped then
        interp = "step"
      elseif any_bezier then
        interp = "bezier"
        local t1 = times[j + 1]
        local L = t1 - t
        -- each component's handle times (a straight line's: the first
        -- bezier component's, so that a channel whose curves agree keeps
        -- one time a handle)
        local dt1, dt2 = {}, {}
        local first1, first2
        for i = 1, n do
          local s = seg[i]
          if s.kind == "bezier" then
            -- (a handle outside the segment, which the format's curve
            -- cannot take, is moved into it: measured below)
            dt1[i] = math.min(math.max(s.x1 - t, 0), L)
            dt2[i] = math.max(math.min(s.x2 - t1, 0), -L)
            if not first1 then first1, first2 = dt1[i], dt2[i] end
          end
        end
        local dv1, dv2 = {}, {}
        for i = 1, n do
          local s = seg[i]
          if s.kind == "bezier" then
            dv1[i], dv2[i] = s.y1 - s.v0, s.y2 - s.v1
            local d = max(abs(s.x1 - t - dt1[i]), abs(s.x2 - t1 - dt2[i]))
            if d > 1e-12 * max(1, L) and budget.left <= 0 then
              -- (past the budget: known to deviate, not measured)
              worst, worst_t = worst or 0, worst_t or t
            elseif d > 1e-12 * max(1, L) then
              budget.left = budget.left - 1
              -- how far the handle moved into the segment takes the component
              local p = { t0 = t, v0 = s.v0, x1 = t + dt1[i], y1 = s.y1, x2 = t1 + dt2[i], y2 = s.y2, t1 = t1, v1 = s.v1 }
              for q = 1, 63 do
                local tt = t + L * q / 64
                local e = abs(M.bezier_at(p, tt) - M.bezier_at(s, tt))
                if not worst or e > worst then worst, worst_t = e, t end
              end
            end
          else
            -- a straight line (a linear or held segment: a step holds
            -- v0 until the jump at the end) with its handles on it: the
            -- line whatever their times
            local v0 = s.v0
            local v1 = s.kind == "step" and s.v0 or s.v1
            dt1[i], dt2[i] = first1, first2
            dv1[i] = (v1 - v0) * first1 / L
            dv2[i] = (v1 - v0) * first2 / L
          end
        end
        out_h = { one_time(dt1), dv1 }
        pending_in = { one_time(dt2), dv2 }
      end
    end
    put(t, v, interp, out_h, in_h)
    prev_interp = interp
  end
  return count, worst, worst_t
end

-- The absolute control points of a 3.8 curve (normalised to the segment:
-- [cx1, cy1, cx2, cy2]) between keys (t0, v0) and (t1, v1).
function M.normalised(c, t0, v0, t1, v1)
  local L, d = t1 - t0, v1 - v0
  return { t0 + c[1] * L, v0 + c[2] * d, t0 + c[3] * L, v0 + c[4] * d }
end

return M
