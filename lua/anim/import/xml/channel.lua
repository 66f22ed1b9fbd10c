-- import/xml/channel.lua: a channel's axes (curves.lua) as the C core's
-- description and the version 3 keys of the .anim table, and how far
-- those keys are from the exact curves where they are not exact.
local codes = require "anim.base.codes"
local format = require "anim.format.read"
local clipmod = require "anim.format.clip"
local C = require "anim.import.xml.curves"

local M = {}

-- Codes of the C core (csrc/core/codes.h).
local LINEAR, STEP, BEZIER, SINE = codes.interp.linear, codes.interp.step, codes.interp.bezier, codes.interp.sine
local EASE_IN, EASE_OUT, EASE_INOUT = codes.ease["in"], codes.ease.out, codes.ease.inOut
local EASE_UNIT = format.EASE_UNIT
local merge, times, windowed, axis_keys, unroll, find = C.merge, C.times, C.windowed, C.axis_keys, C.unroll, C.find
local INTERP_NAME = { [LINEAR] = "linear", [STEP] = "step", [BEZIER] = "bezier", [SINE] = "sine" }
local EASE_NAME = { [EASE_IN] = "in", [EASE_OUT] = "out", [EASE_INOUT] = "inOut" }

-- Curves for the C core (format/read.lua's description) ------------------------------------

local NAN = 0 / 0

-- One axis of keys K as the core's description of keys of arity 1 (a
-- split channel's axis: csrc/lua/lua_clip.c): handle records are out dt, in
-- dt (NaN: absent), out dv, in dv, form.
local function desc_curve(K)
  local c = { t = {}, v = {}, ie = {} }
  for n, k in ipairs(K) do
    c.t[n], c.v[n], c.ie[n] = k.t, k.v, k.c + EASE_UNIT * k.e
    local out = k.c == BEZIER and K[n + 1]
    local inn = k.mi and K[n - 1]
    if out or inn then
      local r = { NAN, NAN, 0, 0, 0 }
      if out then
        local span = K[n + 1].t - k.t
        r[1], r[3] = span / 3, k.mo * span / 3
      end
      if inn then
        local span = k.t - K[n - 1].t
        r[2], r[4] = -span / 3, -k.mi * span / 3
      end
      c.h = c.h or {}
      c.h[n] = r
    end
  end
  return c
end

local CYCLES = { type = 0, before = 1, after = 1 } -- format/read_modifiers.lua's codes: cycles, repeat

-- The version 3 keys of merged keys.
local function z(x) return x == 0 and 0.0 or x end -- no -0 in the file
local function v3_keys(keys)
  local out = {}
  for i, k in ipairs(keys) do
    local extra
    if k.c == SINE then extra = { ease = EASE_NAME[k.e] } end
    if k.c == BEZIER and keys[i + 1] then
      local span = keys[i + 1].t - k.t
      extra = extra or {}
      extra.out = { span / 3, { z(k.mo[1] * span / 3), z(k.mo[2] * span / 3), z(k.mo[3] * span / 3) } }
    end
    if k.mi and keys[i - 1] then
      local span = k.t - keys[i - 1].t
      extra = extra or {}
      extra["in"] = { -span / 3, { z(-k.mi[1] * span / 3), z(-k.mi[2] * span / 3), z(-k.mi[3] * span / 3) } }
    end
    out[i] = { z(k.t), { z(k.v[1]), z(k.v[2]), z(k.v[3]) }, INTERP_NAME[k.c], extra }
  end
  return out
end

-- One channel (rotation or position) of a joint from its three axes
-- (transformations or nil).  Returns the version 3 keys and modifiers, the
-- exact per-axis curves, whether the version 3 keys are exact, and the
-- bound of the exact curves' own error (non-zero only where a sine segment
-- is cut by a transformation's length, see windowed).
local function channel(axes, length)
  local exact_curves, clip_err = {}, 0
  local path -- of the first transformation, for messages
  for a = 3, 1, -1 do path = axes[a] and axes[a].path or path end
  local own, common, plain = {}, nil, true
  for a = 1, 3 do
    local tr = axes[a]
    if not tr then
      exact_curves[a] = { t = { 0.0 }, v = { 0.0 }, ie = { LINEAR } }
    elseif tr.L then
      local W, _, e = windowed({ tr.keys }, tr.L, tr.path)
      clip_err = math.max(clip_err, e)
      own[a] = axis_keys(W, 1)
      exact_curves[a] = desc_curve(own[a])
      exact_curves[a].mods = { { CYCLES } }
      plain = false
      if common == nil then common = tr.L elseif common ~= tr.L then common = false end
    else
      exact_curves[a] = desc_curve(tr.keys)
      common = false
    end
  end
  local fs = {}
  for a = 1, 3 do fs[a] = axes[a] and axes[a].keys or false end
  local keys, exact, mods
  if plain then
    keys, exact = merge(fs, times(fs), false, path)
  elseif common then
    -- every axis repeats on the same length: one cycles modifier
    keys, exact = windowed(fs, common, path)
    mods = { { type = "cycles", before = "repeat", after = "repeat" } }
  else
    -- lengths differ (or some axes have none): repeat the windows over the
    -- whole animation
    -- whole animation; the exact curves are unrolled the same way, so that
    -- both hold their ends outside [0, length] alike
    for a = 1, 3 do
      if own[a] then
        fs[a] = unroll(own[a], axes[a].L, length, axes[a].path)
        exact_curves[a] = desc_curve(fs[a])
      end
    end
    keys, exact = merge(fs, times(fs), false, path)
  end
  return { keys = v3_keys(keys), mods = mods, exact = exact, exact_curves = { axes = exact_curves },
    clip_err = clip_err, raw = keys, period = common or nil }
end

-- Measuring the version 3 table against the exact curves -------------------------------

-- Where the curves of a channel may jump in clip time: its key times,
-- repeated by its period, and up to when they are listed (math.huge when
-- not periodic).  Both the table and the exact curves of a periodic
-- channel repeat on that period, and so does their difference: the first
-- repetitions (about 200000 key times) are enough to measure it.
local function breakpoints(ch, length)
  local list = {}
  local reps, upto = 0, math.huge
  if ch.period then
    reps = math.min(math.ceil(length / ch.period), math.max(1, math.floor(200000 / #ch.raw)))
    upto = reps * ch.period
  end
  for _, k in ipairs(ch.raw) do
    for r = 0, reps do list[#list + 1] = k.t + r * (ch.period or 0) end
  end
  table.sort(list)
  return list, upto
end

-- Is t within eps of a mark ({ t = time }, sorted, so that find() works)?
local function near_any(list, t, eps)
  local i = find(list, t, true)
  for j = math.max(1, i - 1), math.min(#list, i + 1) do
    if math.abs(list[j].t - t) <= eps then return true end
  end
  return false
end

-- Largest difference between the version 3 curves (in desc) and the exact
-- ones over [0, length], sampling the whole at 4096 points and every key
-- stretch at up to 15 more (every few stretches once there are more than
-- 200000), away from the instants where either may jump, then searching
-- around the worst samples for the peaks.
local function measure(list, length)
  local j3, jx = {}, {}
  for i, m in ipairs(list) do
    j3[i] = { name = "p" .. i, pos = m.v3 }
    jx[i] = { name = "p" .. i, pos = m.exact }
  end
  local c3 = clipmod.from_description({ joints = j3, length = length })
  local cx = clipmod.from_description({ joints = jx, length = length })
  -- samples { t, spacing to the next ones }
  local samples = {}
  for i = 0, 4095 do samples[#samples + 1] = { (i + 0.5) / 4096 * length, length / 4096 } end
  local marks, upto, total = {}, {}, 0
  for i, m in ipairs(list) do
    marks[i], upto[i] = breakpoints(m.ch, length)
    total = total + #marks[i]
  end
  -- at most about 200000 samples in all, whatever the number of keys
  local per = math.max(1, math.min(15, math.floor(200000 / math.max(1, total))))
  local stride = math.max(1, math.ceil(total / 200000))
  for i = 1, #list do
    local bp = marks[i]
    for n = 1, #bp - 1, stride do
      local a, b = bp[n], bp[n + 1]
      if b > a and a < length then
        for q = 1, per do samples[#samples + 1] = { a + (b - a) * q / (per + 1), (b - a) / (per + 1) } end
      end
    end
    local wrapped = {}
    for n, t in ipairs(bp) do wrapped[n] = { t = t } end
    marks[i] = wrapped
  end
  local eps = 1e-9 * math.max(1, length)
  -- difference of channel i at t, or nil where it is not measured
  local function diff(i, t, p3, px)
    if t < 0 or t > length or t > upto[i] or near_any(marks[i], t, eps) then return nil end
    p3 = p3 or c3:sample(t)
    px = px or cx:sample(t)
    local a, b = p3["p" .. i].position, px["p" .. i].position
    return math.max(math.abs(a[1] - b[1]), math.abs(a[2] - b[2]), math.abs(a[3] - b[3]))
  end
  -- the 8 worst samples of each channel
  local top = {}
  for i = 1, #list do top[i] = {} end
  for _, smp in ipairs(samples) do
    local t = smp[1]
    if t >= 0 and t <= length then
      local p3, px = c3:sample(t), cx:sample(t)
      for i = 1, #list do
        local d = diff(i, t, p3, px)
        if d and d > 0 then
          local tl = top[i]
          if #tl < 8 or d > tl[#tl][1] then
            if #tl == 8 then tl[8] = nil end
            tl[#tl + 1] = { d, t, smp[2] }
            table.sort(tl, function(x, y) return x[1] > y[1] end)
          end
        end
      end
    end
  end
  -- The samples fall near, not on, the largest differences: a golden-section
  -- search within a spacing of each of the worst finds the peak itself.
  local worst = 0
  local g = (math.sqrt(5) - 1) / 2
  for i = 1, #list do
    for _, cand in ipairs(top[i]) do
      worst = math.max(worst, cand[1])
      local lo, hi = cand[2] - cand[3], cand[2] + cand[3]
      local function f(t) return diff(i, t) or 0 end
      local x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
      local f1, f2 = f(x1), f(x2)
      for _ = 1, 60 do
        if f1 >= f2 then hi, x2, f2 = x2, x1, f1; x1 = hi - g * (hi - lo); f1 = f(x1)
        else lo, x1, f1 = x1, x2, f2; x2 = lo + g * (hi - lo); f2 = f(x2) end
        worst = math.max(worst, f1, f2)
        if hi - lo <= 1e-12 * math.max(1, length) then break end
      end
    end
  end
  return worst
end

M.channel, M.measure = channel, measure

return M
