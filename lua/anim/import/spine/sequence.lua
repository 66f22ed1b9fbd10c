-- import/spine/sequence.lua: Spine 4.1+ attachment sequences played
-- (issue 40).  Written from the "JSON export format" page
-- (https://esotericsoftware.com/spine-json-format), never from the Spine
-- Runtimes' code:
--   * a region's or mesh's `sequence` { count, start 1, digits 0,
--     setup 0 }: its regions are the attachment's path numbered
--     start + i (i from 0 to count - 1), at least `digits` digits long;
--     the setup pose shows frame setup;
--   * the attachment timeline `sequence` (animations.<name>.attachments.
--     <skin>.<slot>.<attachment>.sequence): keys { time 0, mode "hold",
--     index 0, delay 0 }, the modes hold, once, loop, pingpong,
--     onceReverse, loopReverse, pingpongReverse; `delay` the seconds each
--     frame shows.
-- Where the page is silent, the readings chosen (docs/formats.md, "Spine"):
--   * after a key at time k, frame step f (0, 1, 2...) begins at the
--     instant k + f * delay (that product and sum in doubles): the frame
--     shown at t is the last step begun, i.e. floor((t - k) / delay);
--     a delay of 0 (or the hold mode) shows `index` until the next key;
--   * with n frames and p = index + f: once min(p, n - 1); loop p mod n;
--     pingpong 0, 1, ..., n-1, n-2, ..., 1, 0, 1... (its ends shown once
--     a round: period 2n - 2; n = 1: 0) from place p; a reverse mode
--     shows n - 1 - (its forward mode's frame): `index` counts from the
--     last frame;
--   * before the timeline's first key the setup frame (setup).
-- The timeline is baked into the discrete property
-- `sequence.<skin>.<slot>.<attachment>` (the frame, 0-based): a stepped
-- key at each frame change up to the next key, the last segment up to the
-- clip's end -- exact, no approximation, at most anim.limits.keys keys
-- (the file's budget left): over it the timeline is not played, with a
-- warning naming it.
local E = require "anim.base.errors"

local M = {}

local key, index, fail = E.key, E.index, E.fail
local floor = math.floor

M.MODES = { "hold", "once", "loop", "pingpong", "onceReverse", "loopReverse", "pingpongReverse" }
local HOLD, ONCE = 1, 2

-- The frame (0-based) of mode m (an index of M.MODES) from index i after
-- f steps, of n frames.
function M.frame(m, i, f, n)
  if m == HOLD then return i end
  local base = (m - 2) % 3 -- (0 once, 1 loop, 2 pingpong; the reverse modes after them)
  local p = i + f
  local k
  if base == 0 then
    k = p < n - 1 and p or n - 1
  elseif base == 1 then
    k = p % n
  elseif n == 1 then
    k = 0
  else
    k = p % (2 * n - 2)
    if k >= n then k = 2 * n - 2 - k end
  end
  if m > 4 then k = n - 1 - k end
  return k
end

-- The steps after a key (at t0, ending at t1: before it, or at it when
-- `last`) where the frame may change: 0 for a hold, else the steps begun
-- in time, a once mode's stopping at its end frame.
local function steps(k, t1, last, n)
  if k.mode == HOLD or k.delay == 0 or n == 1 then return 0 end
  local f = floor((t1 - k.t) / k.delay)
  if f < 0 then f = 0 end
  if k.mode == ONCE or k.mode == ONCE + 3 then
    local left = n - 1 - k.index
    if left < f then f = left end
  end
  if f >= 2 ^ 50 then return f end -- (over any budget: f - 1 may be f)
  -- (a step at exactly t1 belongs to the next key, but to the last one)
  while f > 0 and (k.t + f * k.delay > t1 or (not last and k.t + f * k.delay >= t1)) do f = f - 1 end
  return f
end

local function whole(v, p, name, lo, hi)
  if v % 1 ~= 0 or v < lo or v > hi then
    fail(key(p, name), "%s must be a whole number from %d to %d, got %s", name, lo, hi, E.num(v))
  end
  return v
end

-- The keys of an attachment's sequence timeline at path tp, checked:
-- { { t, mode, index, delay } }, and the last key's time (nil: no keys).
-- att: the attachment (its `sequence`, else the timeline is refused).
function M.read(list, tp, att)
  local seq = att.sequence
  if not seq then fail(tp, "a sequence timeline of a %s attachment without a sequence", att.type) end
  E.array(list, tp, "a timeline")
  local n, out, last = seq.count, {}, -math.huge
  for k, kv in ipairs(list) do
    local kp = index(tp, k)
    E.object(kv, kp, "a key")
    local function num(name, default)
      local v = kv[name]
      if E.absent(v) then return default end
      return E.number(v, key(kp, name), name)
    end
    local t = num("time", 0)
    if t < 0 then fail(key(kp, "time"), "time must be >= 0, got %s", E.num(t)) end
    if t < last then fail(key(kp, "time"), "keys must be in time order: %s comes after %s", E.num(t), E.num(last)) end
    last = t
    local mode = HOLD
    if not E.absent(kv.mode) then mode = E.enum(kv.mode, M.MODES, key(kp, "mode"), "sequence mode") end
    local delay = num("delay", 0)
    if delay < 0 then fail(key(kp, "delay"), "delay must be >= 0 (seconds a frame), got %s", E.num(delay)) end
    out[k] = { t = t, mode = mode, index = whole(num("index", 0), kp, "index", 0, n - 1), delay = delay }
  end
  if #out == 0 then return nil end
  return out, last
end

-- The stepped keys { { t, { frame }, "step" } } of the keys read, up to
-- the clip's end `length`, or nil and their count when that is more than
-- `budget`.
function M.bake(keys, setup, n, length, budget)
  local count = keys[1].t > 0 and 1 or 0
  for i, k in ipairs(keys) do
    local nx = keys[i + 1]
    count = count + 1 + steps(k, nx and nx.t or length, not nx, n)
    if count > budget then return nil, count end
  end
  local out = {}
  local prev
  local function put(t, frame)
    -- (keys at one time: the last one's frame)
    while out[#out] and out[#out][1] >= t do out[#out] = nil end
    if frame ~= prev or #out == 0 then out[#out + 1] = { t, { frame }, "step" } end
    prev = frame
  end
  if keys[1].t > 0 then put(0, setup) end
  for i, k in ipairs(keys) do
    local nx = keys[i + 1]
    prev = nil -- (each key's own frame keyed: a key after it may change it)
    for f = 0, steps(k, nx and nx.t or length, not nx, n) do
      put(k.t + f * k.delay, M.frame(k.mode, k.index, f, n))
    end
  end
  return out, #out
end

-- The channel of an attachment's sequence timeline (list, at path tp; the
-- attachment att named <skin>.<slot>.<attachment> by `owner`) put in the
-- animation's channels ch as the discrete property sequence.<owner>,
-- baked once the clip's length is known (M.bake); a timeline that cannot
-- be read is left out with a warning (ctx.try).
function M.put(ctx, list, tp, owner, att, ch)
  ctx.try(tp, function()
    local keys, last = M.read(list, tp, att)
    if not keys then return end
    local name, seq = "sequence." .. owner, att.sequence
    if not ch[name] then ch[#ch + 1] = name end
    ch[name] = { prop = name, discrete = true, where = tp, sequence = { keys = keys, last = last,
      setup = seq.setup_index, count = seq.count } }
  end)
end

return M
