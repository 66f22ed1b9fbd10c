-- import/dragonbones/keys.lua: a DragonBones timeline's frames as the
-- module's keys, exactly as the format's runtime plays them where the
-- module's curves can say it (docs/formats.md, DragonBones).
--
-- Timing (DragonBonesJS ObjectDataParser._parseTimeline): frame i starts
-- at the sum of the durations before it (in frames of the armature's
-- frameRate); the last frame lasts to the animation's end.  A frame
-- starting past the end is never reached.  The last frame tweens toward
-- the first over the rest of the animation when the animation repeats
-- (TweenTimelineState._onArriveAtFrame: playTimes 0, or a pass before the
-- last), else it holds.
--
-- Easing of the segment a frame starts (_parseTweenFrame and
-- TweenTimelineState._getEasingValue), as keys of the module:
--   `curve` [x1, y1, x2, y2]          bezier (time x, progress y, normalised):
--                                     out = [x1·L, y1·Δv], in = [(x2−1)·L, (y2−1)·Δv]: exact
--   `curve` of 4 + 6n numbers          n more points on the way ([x, y] then the next
--                                     two handles): a key at each point, exact
--   tweenEasing absent, null           step
--   tweenEasing 0                      linear
--   tweenEasing e < 0                  p + |e|·(p² − p): a quadratic, so exactly a bezier
--                                     with handles at thirds, out dv (1 − |e|)/3·Δv, in −(1 + |e|)/3·Δv
--   tweenEasing 0 < e <= 1             p + e·(2p − p² − p): exactly the bezier out (1 + e)/3·Δv,
--                                     in −(1 − e)/3·Δv
--   tweenEasing 2                      0.5·(1 − cos πp): the module's sine, in-out: exact
--   tweenEasing e > 1 (not 2)          p + (e − 1)·(sine − p): no key says it: the bezier with the
--                                     same slopes at both ends, a warning giving the largest
--                                     deviation (at most 0.01001·|e − 1|·|Δv|: the largest
--                                     gap of smoothstep and the sine in-out)
-- (the runtime keeps tweenEasing to 0.01 and its curve sampled once per
-- frame: the keys here are the exact curve the file describes.)
local E = require "anim.base.errors"
local limits = require "anim.base.limits"
local F = require "anim.import.dragonbones.fields"

local M = {}

local key, index, fail, num = E.key, E.index, E.fail, E.num

-- The easing of frame f: nil (step), or { kind = "linear" | "bezier" |
-- "sine" | "approx", points = { x1, y1, x2, y2 [, x, y, x1, y1, x2, y2 ...] } }
local function easing(f, p)
  local curve = f.curve
  if not E.absent(curve) then
    local c = F.numbers(f, "curve", p)
    if #c < 4 or (#c - 4) % 6 ~= 0 then
      fail(key(p, "curve"), "a curve holds 4 numbers (x1, y1, x2, y2), or 4 + 6 for each point more, got %d", #c)
    end
    for i = 1, #c, 2 do
      if c[i] < 0 or c[i] > 1 then
        fail(index(key(p, "curve"), i), "a curve's x (its time) must be within 0..1, got %s", num(c[i]))
      end
    end
    return { kind = "bezier", points = c }
  end
  local e = F.number(f, "tweenEasing", p, nil)
  if e == nil then return nil end
  if e == 0 then return { kind = "linear" } end
  if e < 0 then
    local k = -e
    return { kind = "bezier", points = { 1 / 3, (1 - k) / 3, 2 / 3, 1 - (1 + k) / 3 } }
  elseif e <= 1 then
    return { kind = "bezier", points = { 1 / 3, (1 + e) / 3, 2 / 3, 1 - (1 - e) / 3 } }
  elseif e == 2 then
    return { kind = "sine" }
  end
  local k = e - 1
  return { kind = "approx", blend = k, points = { 1 / 3, (1 - k) / 3, 2 / 3, 1 - (1 - k) / 3 } }
end

-- The largest |bezier − blend| over the progress of an in-out blend k
-- (the approximation above): the bezier is p + k·(smoothstep − p) (the
-- cubic through (0,0), (1,1) with slopes 1 − k at both ends), the blend
-- p + k·(sine − p), so the gap is |k|·|smoothstep − sine|, whose largest
-- value (at p = 0.278577 and 0.721423, where 6p − 6p² = (π/2)·sin πp,
-- found by Newton's method) is this:
local SMOOTHSTEP_VS_SINE = 0.010008506708657
local function approx_error(k)
  return math.abs(k) * SMOOTHSTEP_VS_SINE
end

-- The start frame of each frame; raises a failure for a bad duration.
function M.starts(frames, p)
  local starts, at = {}, 0
  for i, f in ipairs(frames) do
    local fp = index(p, i)
    E.object(f, fp, "frame")
    starts[i] = at
    at = at + F.whole(f, "duration", fp, 1, 0)
  end
  return starts
end

-- The angles of a rotation timeline (degrees, as the frames give them)
-- unrolled as the format's parser unrolls them
-- (ObjectDataParser._parseBoneRotateFrame / _parseBoneAllFrame): after the
-- first frame, with the previous frame's `clockwise` (5.x) or
-- `tweenRotate` (4.5) n = 0, the shortest way from the previous angle;
-- else n turns more in n's direction, one fewer when the raw angle is
-- already past the previous one that way.
function M.unroll(angles, turns, starts)
  local out = {}
  local prev, prev_turns = 0, 0
  for i, a in ipairs(angles) do
    local r = a
    if starts[i] ~= 0 then
      if prev_turns == 0 then
        r = prev + F.normalize(a - prev)
      else
        if (prev_turns > 0 and a >= prev) or (prev_turns < 0 and a <= prev) then
          prev_turns = prev_turns > 0 and prev_turns - 1 or prev_turns + 1
        end
        r = a + 360 * prev_turns
      end
    end
    prev_turns, prev = turns[i] or 0, r
    out[i] = r
  end
  return out
end

-- base + dv·s per component (base nil: 0)
local function scaled(dv, s, base)
  local out = {}
  for c = 1, #dv do out[c] = dv[c] * s + (base and base[c] or 0) end
  return out
end

-- The keys of a timeline: frames (the file's list) at path p, values[i]
-- the absolute value of frame i (an array of components).  ctx: rate
-- (frames a second), total (the animation's frames), loops (it repeats),
-- count (the import's key counter: { n }), warn, what (the timeline, for
-- warnings); tween: whether the frames ease (a display or draw-order
-- timeline steps).
-- Refuses a timeline whose frames will make more than the keys left
-- (n numbers), before the values are made: a deform or draw-order frame
-- of a few bytes stands for a whole mesh's offsets or slots' order.
function M.reserve(ctx, n, p)
  if ctx.count.n + n > limits.current.keys then
    fail(p, "too many keys: the clips would have more than %d (anim.limits.keys)", limits.current.keys)
  end
end

-- An empty list is no timeline (nil), as the runtime reads it.
function M.build(frames, p, values, starts, ctx, tween)
  local keys = {}
  local n = #frames
  if n == 0 then return nil end
  local last = n
  while last > 1 and starts[last] > ctx.total do last = last - 1 end
  if last < n then
    ctx.warn(index(p, last + 1), "%s: %d frame%s past the animation's end (frame %s) never reached", ctx.what,
      n - last, n - last == 1 and "" or "s", num(ctx.total))
  end
  -- (each key counted as it is made: a curve of many points makes many)
  local counter = ctx.count
  local function push(t, v, interp, extra)
    counter.n = counter.n + #v
    if counter.n > limits.current.keys then
      fail(p, "too many keys: the clips would have more than %d (anim.limits.keys)", limits.current.keys)
    end
    keys[#keys + 1] = { t, v, interp, extra }
  end
  for i = 1, last do
    local fp = index(p, i)
    local f = frames[i]
    local t0, v0 = starts[i] / ctx.rate, values[i]
    local nxt, t1, v1
    if i < last then
      nxt, t1, v1 = i + 1, starts[i + 1] / ctx.rate, values[i + 1]
    elseif last > 1 and ctx.loops and starts[i] < ctx.total then
      nxt, t1, v1 = 1, ctx.total / ctx.rate, values[1]
    end
    local ease = tween and nxt and easing(f, fp)
    local prev = keys[#keys]
    local in_handle = prev and prev.pending_in
    local extra = in_handle and { ["in"] = in_handle } or nil
    if not ease then
      push(t0, v0, "step", extra)
    elseif ease.kind == "linear" then
      push(t0, v0, "linear", extra)
    elseif ease.kind == "sine" then
      extra = extra or {}
      extra.ease = "inOut"
      push(t0, v0, "sine", extra)
    else
      local L = t1 - t0
      local dv = {}
      for c = 1, #v0 do dv[c] = v1[c] - v0[c] end
      local pts = ease.points
      if ease.kind == "approx" then
        local worst, size = approx_error(ease.blend), 0
        for c = 1, #dv do size = math.max(size, math.abs(dv[c])) end
        ctx.warn(fp, "%s: tweenEasing %s (a sine in-out blend) is a bezier with the same end slopes: off by at most %s",
          ctx.what, num(f.tweenEasing), num(worst * size))
      end
      -- one bezier segment per point of the curve: (px, py) -> (qx, qy)
      local px, py = 0, 0
      for s = 1, #pts, 6 do
        local qx, qy = pts[s + 4] or 1, pts[s + 5] or 1
        local tk = t0 + px * L
        local vk = scaled(dv, py, v0)
        local out = { (pts[s] - px) * L, scaled(dv, pts[s + 1] - py) }
        if s == 1 then
          extra = extra or {}
          extra.out = out
          push(t0, v0, "bezier", extra)
        else
          push(tk, vk, "bezier", { out = out, ["in"] = keys[#keys].pending_in })
        end
        keys[#keys].pending_in = { (pts[s + 2] - qx) * L, scaled(dv, pts[s + 3] - qy) }
        px, py = qx, qy
      end
    end
    if ease and nxt == 1 then
      local wrap = keys[#keys].pending_in
      push(t1, v1, "linear", wrap and { ["in"] = wrap } or nil)
    end
  end
  for _, k in ipairs(keys) do k.pending_in = nil end
  return keys
end

return M
