-- export/gltf/compress_jumps.lua: anim.compress's jumps (a step, a cut: two
-- keys at one time) where the pack keeps them: a pack jumps only at a
-- tick, so a jump of the clip's between two ticks is moved to one, and
-- the measures take no time inside the part of a tick it was moved over
-- (compress.lua samples and measures; docs/performance.md, "Compressed
-- clips", step 1).
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"

local M = {}

-- A jump between two ticks within this many seconds (times max(1, its
-- time)) before one is moved to it (M.moved: a 32-bit time, 0.7 s as
-- 0.69999999), else to the tick before it; pick_rate takes a grid as the
-- clip's own only when its jumps are within it of their ticks.
M.LATE = 1e-6

-- A jump: two values apart by more than this (the left limit at a frame
-- and the value there) get two keys at the frame.
local JUMP = 1e-6

-- x the value just before a tick (e before it), y the value there, w the
-- value 2e before: apart by more than JUMP, and by far more than the curve
-- moves in e (a steep curve is no jump).
local function apart(w, x, y)
  for i = 1, #x do
    local d = math.abs(x[i] - y[i])
    if d > JUMP and d > 8 * math.abs(w[i] - x[i]) + JUMP then return true end
  end
  return false
end

-- One sample of joint cj at t: its flags and the three channels' values.
local function sample3(c, cj, t)
  local s = { core.clip_sample_joint(c, cj, t) }
  return s[1], { { s[2], s[3], s[4] }, { s[5], s[6], s[7], s[8] }, { s[9], s[10], s[11] } }
end

-- The times each joint jumps at (a step, a cut: its value at a key time
-- apart from its value just before), once: { [cj] = { { t, chans } } },
-- chans[ch] true for the channels that jump.
local function jumps_of(S, c)
  local out = {}
  for cj = 1, S.nj do
    local list, seen = {}, {}
    for _, t in ipairs(S.keyt[cj]) do
      if t > 0 and t <= S.L and not seen[t] then
        seen[t] = true
        local e = 1e-9 * math.max(1, t)
        local _, v = sample3(c, cj, t)
        local _, l = sample3(c, cj, t - e)
        local _, l2 = sample3(c, cj, t - 2 * e)
        local chans, any = {}, false
        for ch = 1, 3 do
          if apart(l2[ch], l[ch], v[ch]) then chans[ch], any = true, true end
        end
        if any then list[#list + 1] = { t, chans } end
      end
    end
    out[cj] = list
  end
  return out
end

-- The jumps that fall between two ticks at S.rate (a glTF STEP key at a
-- 32-bit time, a key at an irregular time) moved to a tick: the pack jumps
-- only at a tick, and a jump between two was a line over the whole tick
-- (0.25 off inside it).  To the tick before it, so that from the jump's
-- own time on the clip is as it was; to the tick after it when it is
-- within M.LATE seconds of that one on the clip's own grid (S.on_grid: a
-- 32-bit time's rounding).  A jump
-- at a tick, or within the nanosecond before one, is left to sample_all's
-- test at the tick (it is part of a moved one at that tick).
-- { [tick] = { lo, hi (the moved part: from the first of the tick and the
-- jumps to the last), joints = { [cj] = chans } } }.
local function moved_jumps(S)
  local moved, rate, L = {}, S.rate, S.L
  local function tt(k) return math.min(k / rate, L) end
  local function put(k, t, cj, chans)
    local m = moved[k]
    if not m then m = { lo = tt(k), hi = tt(k), joints = {} }; moved[k] = m end
    m.lo, m.hi = math.min(m.lo, t), math.max(m.hi, t)
    local cs = m.joints[cj] or {}
    m.joints[cj] = cs
    for ch in pairs(chans) do cs[ch] = true end
  end
  local at_tick = {}
  for cj, list in pairs(S.jumps) do
    for _, j in ipairs(list) do
      local t = j[1]
      local k = math.floor(t * rate)
      if tt(k + 1) <= t then k = k + 1 elseif tt(k) > t then k = k - 1 end
      local t1 = tt(k + 1)
      if tt(k) == t then
        at_tick[#at_tick + 1] = { k, j, cj }
      elseif t > t1 - 1e-9 * math.max(1, t1) then
        at_tick[#at_tick + 1] = { k + 1, j, cj }
      elseif S.on_grid and t1 - t <= M.LATE * math.max(1, t) and k + 1 <= S.last then
        put(k + 1, t, cj, j[2])
      else
        put(k, t, cj, j[2])
      end
    end
  end
  for _, a in ipairs(at_tick) do
    if moved[a[1]] then put(a[1], a[2][1], a[3], a[2][2]) end
  end
  return moved
end

-- The list of times to measure at with none inside a moved jump: a time
-- from its lo up to its hi measured at hi (the pack has jumped there, the
-- clip has not yet, or the other way); nil when no jump was moved.
local function retimer(S)
  local w = {}
  for _, m in pairs(S.moved) do w[#w + 1] = { m.lo, m.hi } end
  if #w == 0 then return nil end
  table.sort(w, function(a, b) return a[1] < b[1] end)
  return function(times)
    local out, j = {}, 1
    for _, t in ipairs(times) do
      while w[j] and w[j][2] <= t do j = j + 1 end
      if w[j] and t >= w[j][1] then t = w[j][2] end
      if out[#out] ~= t then out[#out + 1] = t end
    end
    return out
  end
end

M.apart, M.sample3, M.jumps_of, M.moved, M.retimer = apart, sample3, jumps_of, moved_jumps, retimer

return M
