-- bench/ozz_slices.lua: a copy of ../shared/bench/ozz/pair_slices.lua (W1,
-- ozz-animation against anim's batch update and the C float loop, in ONE
-- process, timed slice by slice: the method of bench/w1pair.lua) with a
-- fourth side, animc: the same batch update on the clips compressed
-- (anim.compress on the W1 rig at its default bound, 0.001 at 0.1, as
-- bench/w1.lua --compressed).
--
--   lua5.4 bench/ozz_slices.lua [--n N] [--rounds R] [--data w1.txt]
--
-- Build ozz and its Lua module w1ozz with ../shared/bench/ozz/build.sh
-- (WORK=/tmp/...), `make bench-ref` here, then from this checkout:
--   LUA_PATH='lua/?.lua;lua/?/init.lua;./?.lua;;'
--   LUA_CPATH='build/?.so;$WORK/bin/?.so;;'
-- Sides, N characters each:
--   anim   one anim.update(list, 1/60, { threads = 1 }) a frame (bench/w1data.lua's
--          clips, rig and characters, as bench/w1.lua --batch)
--   animc  the same on the compressed clips (its own N characters)
--   ozz    w1ozz.frames(k): w1_ozz.cc built as a Lua module (2 SamplingJobs and
--          a BlendingJob per character and frame)
--   float  bench.w1float.frames(k): bench/ref/w1_ref.c's float/nlerp loop, -O2
-- A 600-frame warm-up of each and W1's cross-check of each (any off: exit 1),
-- then R rounds (default 9), each timing 600 frames of every side in slices
-- of 60 frames, the sides taking turns slice by slice (the order rotating),
-- so that the host's changes of speed fall on all three alike. Time is
-- os.clock() (process CPU time). One JSON line: each side's median ns per
-- joint-sample over the rounds, and the median, min and max of the rounds'
-- own ratios anim/ozz, animc/ozz, animc/anim, anim/float, ozz/float, and
-- the compressed clips' bound and worst error measured.  (animc's
-- cross-check holds within the clips' error, not W1's 1e-3: printed, not
-- enforced.)
local anim = require "anim"
local median = require "bench.median"
local w1 = require "bench.w1data"

local function usage(msg)
  io.stderr:write("ozz_slices.lua: ", msg, "\n",
    "usage: lua5.4 bench/ozz_slices.lua [--n N] [--rounds R] [--data w1.txt]\n")
  os.exit(2)
end

local args = { n = 1000, rounds = 9 }
do
  local i = 1
  while i <= #arg do
    local a, v = arg[i], arg[i + 1]
    if v == nil then usage(a .. " needs a value") end
    if a == "--n" then args.n = tonumber(v)
    elseif a == "--rounds" then args.rounds = tonumber(v)
    elseif a == "--data" then args.path = v
    else usage("unknown argument " .. a) end
    i = i + 2
  end
end
for _, k in ipairs { "n", "rounds" } do
  if not args[k] or args[k] < 1 or args[k] % 1 ~= 0 then usage("--" .. k .. " must be a whole number >= 1") end
end
if not args.path then usage("--data path/to/w1.txt is needed") end
local float = require "bench.w1float"
local ozz = require "w1ozz"

local FRAMES, SLICE, DT, N = 600, 60, 1 / 60, args.n
local data = assert(w1.read(args.path))
assert(float.setup(args.path, N))
ozz.setup(args.path, N)
local rig = w1.rig(data)
local clips = {}
for c = 1, data.C do clips[c] = w1.clip(data, c) end
local list = w1.characters(rig, clips, N, data.D)
local cclips, worst, bound = {}, 0, nil
for c = 1, data.C do
  cclips[c] = assert(anim.compress(clips[c], { rig = rig }))
  local f = cclips[c]:compression()
  worst, bound = math.max(worst, f.worst), { f.error, f.distance }
end
local clist = w1.characters(rig, cclips, N, data.D)
local ONE_THREAD = { threads = 1 }

local sides = {
  anim = function(frames)
    local t0 = os.clock()
    for _ = 1, frames do anim.update(list, DT, ONE_THREAD) end
    return os.clock() - t0
  end,
  animc = function(frames)
    local t0 = os.clock()
    for _ = 1, frames do anim.update(clist, DT, ONE_THREAD) end
    return os.clock() - t0
  end,
  ozz = function(frames)
    local t0 = os.clock()
    ozz.frames(frames)
    return os.clock() - t0
  end,
  float = function(frames)
    local t0 = os.clock()
    float.frames(frames)
    return os.clock() - t0
  end,
}
local NAMES = { "anim", "animc", "ozz", "float" }

-- warm-up, then W1's cross-check of each
for _, s in ipairs(NAMES) do sides[s](FRAMES) end
local function from(px, py, pz, qx, qy, qz, qw, psum)
  if qw < 0 then qx, qy, qz, qw = -qx, -qy, -qz, -qw end
  return { q3 = { qx, qy, qz, qw }, p3 = { px, py, pz }, psum = psum }
end
local checks = { anim = w1.check(list[1], data.J), ozz = from(ozz.check()), float = from(float.check()),
  animc = w1.check(clist[1], data.J) }
local bad = false
for _, s in ipairs(NAMES) do
  local off = s ~= "animc" and w1.check_error(checks[s])
  if off then
    io.stderr:write(string.format("ozz_slices.lua: the W1 cross-check of %s is off: %s\n", s, off))
    bad = true
  end
end
if bad then os.exit(1) end

local per = 1e9 / (FRAMES * N * data.J)
local ns = { anim = {}, animc = {}, ozz = {}, float = {} }
local RATIOS = { "anim_ozz", "animc_ozz", "animc_anim", "anim_float", "ozz_float" }
local ratios = {}
for _, k in ipairs(RATIOS) do ratios[k] = {} end
for r = 1, args.rounds do
  local t = { anim = 0, animc = 0, ozz = 0, float = 0 }
  for s = 1, FRAMES // SLICE do
    for k = 0, #NAMES - 1 do -- the order rotates every slice
      local name = NAMES[(r + s + k) % #NAMES + 1]
      t[name] = t[name] + sides[name](SLICE)
    end
  end
  for _, s in ipairs(NAMES) do ns[s][r] = t[s] * per end
  for _, k in ipairs(RATIOS) do
    local x, y = k:match("^(%a+)_(%a+)$")
    ratios[k][r] = t[x] / t[y]
  end
  io.stderr:write(string.format("N=%d round %d/%d: anim %.1f animc %.1f ozz %.1f float %.1f ns, anim/ozz %.3f animc/ozz %.3f\n",
    N, r, args.rounds, ns.anim[r], ns.animc[r], ns.ozz[r], ns.float[r], ratios.anim_ozz[r], ratios.animc_ozz[r]))
end

local function span(t)
  local lo, hi = math.huge, -math.huge
  for _, x in ipairs(t) do lo, hi = math.min(lo, x), math.max(hi, x) end
  return lo, hi
end
local function peak_rss_kb()
  local f = io.open("/proc/self/status")
  if not f then return "null" end
  local kb = f:read("a"):match("VmHWM:%s*(%d+)")
  f:close()
  return kb or "null"
end
local out = {}
for _, s in ipairs(NAMES) do
  local lo, hi = span(ns[s])
  out[#out + 1] = string.format('"%s_ns":%.2f,"%s_ns_min":%.2f,"%s_ns_max":%.2f', s, median(ns[s]), s, lo, s, hi)
end
for _, k in ipairs(RATIOS) do
  local lo, hi = span(ratios[k])
  out[#out + 1] = string.format('"%s":%.3f,"%s_min":%.3f,"%s_max":%.3f', k, median(ratios[k]), k, lo, k, hi)
end
local c = checks.ozz
local cc = checks.animc
print(string.format('{"workload":"w1-slices","n":%d,"rounds":%d,"slice_frames":%d,%s,'
  .. '"ozz_check":{"q3":[%.6f,%.6f,%.6f,%.6f],"p3":[%.6f,%.6f,%.6f],"psum":%.6f},'
  .. '"animc_check":{"q3":[%.6f,%.6f,%.6f,%.6f],"p3":[%.6f,%.6f,%.6f],"psum":%.6f},'
  .. '"compressed":{"error":%g,"distance":%g,"worst":%.3g},'
  .. '"peak_rss_kb":%s,"clock":"os.clock"}',
  N, args.rounds, SLICE, table.concat(out, ","), c.q3[1], c.q3[2], c.q3[3], c.q3[4], c.p3[1], c.p3[2], c.p3[3],
  c.psum, cc.q3[1], cc.q3[2], cc.q3[3], cc.q3[4], cc.p3[1], cc.p3[2], cc.p3[3], cc.psum,
  bound[1], bound[2], worst, peak_rss_kb()))
