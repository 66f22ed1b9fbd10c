-- bench/skeleton2d.lua: what a 2D skeleton's update costs (issue 40's
-- target: per bone-sample, at most W1's per joint-sample, in the same run).
--
--   lua5.4 bench/skeleton2d.lua [--n N] [--rounds R] [--data w1.txt]
--
-- The 2D set: N skeletons (default 1000) of 30 bones (a tree three bones
-- deep under a root, every inherit mode among them, shears), each an
-- animator playing two clips of 30 keys at weight 0.5 (as W1's characters
-- do): absolute position, rotation (Euler about z, keys up to 400 degrees
-- apart) and scale on every bone, the shear property of ten bones, a
-- two-bone IK constraint (softness, its mix keyed) and a transform
-- constraint.  The W1 set: W1's N characters (20 joints, 2 clips,
-- bench/w1data.lua).  Both go through anim.update(list, 1/60, { threads =
-- 1 }); R rounds (default 5) each time 600 frames of both in slices of 60
-- taking turns (who starts alternates), process CPU time (os.clock).  One
-- JSON line: the medians in ns per bone-sample (frame time / (N x 30)) and
-- per joint-sample (frame time / (N x 20)), their ratio, and the Lua heap
-- allocated per frame by the 2D set in steady play (the collector
-- stopped; 0 expected).
package.path = "lua/?.lua;lua/?/init.lua;./?.lua;" .. package.path
local anim = require "anim"
local w1 = require "bench.w1data"
local median = require "bench.median"

local args = { n = 1000, rounds = 5 }
do
  local i = 1
  while arg[i] do
    local k, v = arg[i], arg[i + 1]
    if k == "--n" then args.n = assert(tonumber(v), "--n N")
    elseif k == "--rounds" then args.rounds = assert(tonumber(v), "--rounds R")
    elseif k == "--data" then args.path = v
    else io.stderr:write("usage: lua5.4 bench/skeleton2d.lua [--n N] [--rounds R] [--data w1.txt]\n"); os.exit(2) end
    i = i + 2
  end
end

local BONES, DT, SLICE, FRAMES = 30, 1 / 60, 60, 600
local INHERIT = { "normal", "normal", "normal", "onlyTranslation", "noRotationOrReflection", "noScale",
  "noScaleOrReflection" }

math.randomseed(40)
local r = math.random

-- The skeleton: bone 1 the root, each other under one of the three before it.
local bones = { { name = "b1" } }
for i = 2, BONES do
  bones[i] = { name = "b" .. i, parent = "b" .. math.max(1, i - r(3)), x = r() * 20, y = r() * 20 - 10,
    rotation = r() * 360, scale_x = 0.5 + r(), scale_y = 0.5 + r(), shear_x = r() * 10, shear_y = r() * 10,
    length = 10, inherit = INHERIT[r(#INHERIT)] }
end
-- the IK chain: b29 under b28, a target b30 under the root
bones[28].parent, bones[29].parent, bones[30].parent = "b1", "b28", "b1"
bones[29].x = 10
local sk = assert(anim.skeleton2d{ bones = bones,
  ik = { { name = "arm", bones = { "b28", "b29" }, target = "b30", softness = 3 } },
  transforms = { { name = "follow", bones = { "b27" }, target = "b2", mix_rotate = 0.5, mix_x = 0.5, mix_y = 0.5,
    mix_scale_x = 0, mix_scale_y = 0, mix_shear_y = 0 } } })

local function clip2d(name)
  local joints, props = {}, {}
  for i = 1, BONES do
    local pos, rot, scl = {}, {}, {}
    for k = 0, 29 do
      local t = k * 2 / 29
      pos[k + 1] = { t, { r() * 20, r() * 20, 0 } }
      rot[k + 1] = { t, { 0, 0, (r() - 0.5) * 800 } }
      scl[k + 1] = { t, { 0.5 + r(), 0.5 + r(), 1 } }
    end
    joints["b" .. i] = { position = pos, rotation = rot, scale = scl }
    if i <= 10 then props["b" .. i .. ".shear"] = { { 0, { 0, 0 } }, { 1, { r() * 20, r() * 20 } }, { 2, { 0, 0 } } } end
  end
  props["ik.arm"] = { { 0, { 1, 3 } }, { 2, { 0.5, 5 } } }
  return assert(anim.clip({ absolute = true, euler = "xyz", length = 2, loop = "loop", joints = joints,
    properties = props }, name))
end

local clips2d = { clip2d("a"), clip2d("b") }
local list2d = {}
for i = 1, args.n do
  local a = anim.animator(sk)
  for _, c in ipairs(clips2d) do
    local t = a:play(c, { fade = 0, weight = 0.5 })
    t.time = (i * 0.6180339887498949) % 1 * 2
  end
  list2d[i] = a
end

local here = arg[0]:match("^(.*)/[^/]*$") or "."
local path = args.path or (os.getenv("ANIM_SHARED") or (here .. "/../../shared")) .. "/bench/w1.txt"
local d = assert(w1.read(path))
local rig = w1.rig(d)
local clips = {}
for c = 1, d.C do clips[c] = w1.clip(d, c) end
local list3d = w1.characters(rig, clips, args.n, d.D)

local opts = { threads = 1 }
local function frames(list, n)
  local t0 = os.clock()
  for _ = 1, n do anim.update(list, DT, opts) end
  return os.clock() - t0
end

-- warm-up: a whole loop of each
frames(list2d, 120)
frames(list3d, 120)

local t2d, t3d, ratios = {}, {}, {}
for round = 1, args.rounds do
  local a, b = 0, 0
  for s = 1, FRAMES / SLICE do
    if (round + s) % 2 == 0 then
      a = a + frames(list2d, SLICE)
      b = b + frames(list3d, SLICE)
    else
      b = b + frames(list3d, SLICE)
      a = a + frames(list2d, SLICE)
    end
  end
  t2d[round] = a * 1e9 / (FRAMES * args.n * BONES)
  t3d[round] = b * 1e9 / (FRAMES * args.n * d.J)
  ratios[round] = t2d[round] / t3d[round]
end

-- the Lua heap in steady play, the collector stopped
collectgarbage("collect")
collectgarbage("stop")
frames(list2d, 1)
local kb0 = collectgarbage("count")
frames(list2d, 60)
local alloc = (collectgarbage("count") - kb0) * 1024 / 60
collectgarbage("restart")

local unpack = rawget(table, "unpack") or rawget(_G, "unpack")
print(string.format('{"workload":"skeleton2d","n":%d,"bones":%d,"rounds":%d,"ns_per_bone_sample":%.2f,'
  .. '"w1_ns_per_joint_sample":%.2f,"ratio":%.3f,"ratio_min":%.3f,"ratio_max":%.3f,'
  .. '"lua_alloc_bytes_per_frame":%.1f,"clock":"os.clock"}',
  args.n, BONES, args.rounds, median(t2d), median(t3d), median(ratios),
  math.min(unpack(ratios)), math.max(unpack(ratios)), alloc))
