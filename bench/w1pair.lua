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

local args = { n = 1000, rounds = 9 }
do
  local i = 1
  while i <= #arg do
    local a, v = arg[i], arg[i + 1]
    if a == "--n" then args.n = tonumber(v)
    elseif a == "--rounds" then args.rounds = tonumber(v)
    elseif a == "--data" then args.path = v
    else usage("unknown argument " .. a) end
    if v == nil then usage(a .. " needs a value") end
    i = i + 2
  end
end
for _, k in ipairs { "n", "rounds" } do
  if not args[k] or args[k] < 1 or args[k] % 1 ~= 0 then usage("--" .. k .. " must be a whole number >= 1") end
end
local has_float, float = pcall(require, "bench.w1float")
if not has_float then usage("needs build/bench/w1float.so (make bench-ref)") end

local here = arg[0]:match("^(.*)/[^/]*$") or "."
local path = args.path or (os.getenv("ANIM_SHARED") or (here .. "/../../shared")) .. "/bench/w1.txt"
local data, why = w1.read(path)
if not data then usage(why) end
local ok, ferr = float.setup(path, args.n)
if not ok then usage(ferr) end

local FRAMES, SLICE, DT, N = 600, 60, 1 / 60, args.n
local rj = {}
for j = 0, data.J - 1 do rj[#rj + 1] = { name = "j" .. j } end
local rig = assert(anim.rig { joints = rj })
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

-- warm-up, then the README's cross-check on both (character 0, joint j3,
-- rotation with w >= 0; the sum of its 60 position components)
batch(FRAMES)
floats(FRAMES)
local EXPECT = { -0.1487, -0.0030, -0.1411, 0.9788, 0.3329, 0.9340, -0.1903, 20.024 }
local function off(got, who)
  for k = 1, 8 do
    if got[k] ~= got[k] or math.abs(got[k] - EXPECT[k]) > 1e-3 then -- (NaN is off too)
      io.stderr:write(string.format("w1pair.lua: the W1 cross-check of %s is off: %s\n", who,
        table.concat(got, ", ")))
      return true
    end
  end
end
local function signed(q) return q[4] < 0 and { -q[1], -q[2], -q[3], -q[4] } or q end
local a0 = list[1]
local lt = { a0:local_transform(4) } -- j3: px py pz qx qy qz qw sx sy sz
local q = signed { lt[4], lt[5], lt[6], lt[7] }
local psum = 0
for j = 1, data.J do
  local t = { a0:local_transform(j) }
  psum = psum + t[1] + t[2] + t[3]
end
local f = { float.check() }
local fq = signed { f[4], f[5], f[6], f[7] }
local bad = off({ q[1], q[2], q[3], q[4], lt[1], lt[2], lt[3], psum }, "anim")
bad = off({ fq[1], fq[2], fq[3], fq[4], f[1], f[2], f[3], f[8] }, "the float loop") or bad
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
