-- bench/w1pair.lua: issue 24's W1 target, the batch update over the float
-- loop, both timed in one process.
--
--   lua5.4 bench/w1pair.lua [--n N] [--rounds R] [--data w1.txt]
--
-- N characters of W1 (default 1000) twice: anim's, updated with one
-- anim.update(list, dt, { threads = 1 }) a frame, and the float/nlerp loop
-- of bench/ref/w1_ref.c (the module bench.w1float, build/bench/w1float.so
-- from make bench-ref: the same code and flags as build/bench/w1_ref).
-- One untimed 600-frame warm-up of each, then both cross-checked against
-- W1's README; then R rounds (default 9), each timing 600 frames of both
-- in slices of 60, the two taking turns slice by slice (who starts
-- alternates): the machine's speed moves by a third from one second to the
-- next, and slices put the same moments into both sides of the ratio.
-- One JSON line ("w1-paired", as bench/table.lua reads it): the medians of
-- the two (ns per joint-sample), the median of the rounds' own ratios
-- batch / float, and the least and greatest of them.  Time is os.clock()
-- (process CPU time; the C loop's own clock, CLOCK_PROCESS_CPUTIME_ID).
local anim = require "anim"
local median = require "bench.median"
local w1 = require "bench.w1data"

local function usage(msg)
  io.stderr:write("w1pair.lua: ", msg, "\n", "usage: lua5.4 bench/w1pair.lua [--n N] [--rounds R] [--data w1.txt]\n")
  os.exit(2)
end

local args = w1.pair_args(usage)
local has_float, float = pcall(require, "bench.w1float")
if not has_float then usage("needs build/bench/w1float.so (make bench-ref)") end

local path = args.path
local data, why = w1.read(path)
if not data then usage(why) end
local ok, ferr = float.setup(path, args.n)
if not ok then usage(ferr) end

local FRAMES, SLICE, DT, N = 600, 60, 1 / 60, args.n
local rig = w1.rig(data)
local clips = {}
for c = 1, data.C do clips[c] = w1.clip(data, c) end
local list = w1.characters(rig, clips, N, data.D)
local ONE_THREAD = { threads = 1 }

local function batch(frames)
  local t0 = os.clock()
  for _ = 1, frames do anim.update(list, DT, ONE_THREAD) end
  return os.clock() - t0
end
local function floats(frames)
  local t0 = os.clock()
  float.frames(frames)
  return os.clock() - t0
end

-- warm-up, then the README's cross-check on both (bench/w1data.lua's)
batch(FRAMES)
floats(FRAMES)
local f = { float.check() } -- j3's px py pz qx qy qz qw, then the sum
if f[7] < 0 then f[4], f[5], f[6], f[7] = -f[4], -f[5], -f[6], -f[7] end
local bad = false
for who, got in pairs { anim = w1.check(list[1], data.J),
  ["the float loop"] = { q3 = { f[4], f[5], f[6], f[7] }, p3 = { f[1], f[2], f[3] }, psum = f[8] } } do
  local off = w1.check_error(got)
  if off then
    io.stderr:write(string.format("w1pair.lua: the W1 cross-check of %s is off: %s\n", who, off))
    bad = true
  end
end
if bad then os.exit(1) end

local tb, tf, ratios = {}, {}, {}
for r = 1, args.rounds do
  local b, fl = 0, 0
  for s = 1, FRAMES // SLICE do
    if (r + s) % 2 == 0 then
      b = b + batch(SLICE)
      fl = fl + floats(SLICE)
    else
      fl = fl + floats(SLICE)
      b = b + batch(SLICE)
    end
  end
  local per = 1e9 / (FRAMES * N * data.J)
  tb[r], tf[r], ratios[r] = b * per, fl * per, b / fl
end
local lo, hi = math.huge, -math.huge
for _, x in ipairs(ratios) do lo, hi = math.min(lo, x), math.max(hi, x) end
print(string.format('{"workload":"w1-paired","n":%d,"rounds":%d,"slice_frames":%d,"float_ns":%.2f,"batch_ns":%.2f,'
  .. '"batch_over_float":%.3f,"ratio_min":%.3f,"ratio_max":%.3f,"clock":"os.clock"}', N, args.rounds, SLICE,
  median(tf), median(tb), median(ratios), lo, hi))
