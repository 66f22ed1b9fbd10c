-- bench/w1.lua: workload W1 of ../shared/bench (the benchmark the peers were
-- measured on).  Prints ns per joint-sample (run time / (600 x N x 20)),
-- median of several timed runs after one untimed warm-up, for N = 1, 100,
-- 1000, 10000 characters, and the cross-check values.  Never asserts a time.
--   lua5.4 bench/w1.lua [path/to/w1.txt] [--euler] [--runs K] [--n 1,100]
local anim = require "anim"

local args = { runs = 5 }
local i = 1
while i <= #arg do
  local a = arg[i]
  if a == "--euler" then args.euler = true
  elseif a == "--runs" then i = i + 1; args.runs = tonumber(arg[i])
  elseif a == "--n" then i = i + 1; args.n = arg[i]
  elseif a == "--read" then args.read = true
  else args.path = a end
  i = i + 1
end
local here = arg[0]:match("^(.*)/[^/]*$") or "bench"
local path = args.path or (os.getenv("ANIM_SHARED") or (here .. "/../../shared")) .. "/bench/w1.txt"

-- W1 file: line 1 "W1 joints clips keys duration", then per clip, per joint:
-- rotation times, rotation xyzw, position times, position xyz.
local f = assert(io.open(path), "missing " .. path)
local header = f:read("l")
local J, C, K, D = header:match("^W1 (%d+) (%d+) (%d+) (%S+)")
J, C, K, D = tonumber(J), tonumber(C), tonumber(K), tonumber(D)
local function numbers()
  local t = {}
  for x in f:read("l"):gmatch("%S+") do t[#t + 1] = tonumber(x) end
  return t
end

-- Quaternion to yxz Euler degrees (for W1e), unwrapped against prev.
local function to_yxz(q, prev)
  local x, y, z, w = q[1], q[2], q[3], q[4]
  -- R = Ry Rx Rz: m12 = -sin(ax)
  local m12 = 2 * (y * z - w * x)
  local ax = math.asin(math.max(-1, math.min(1, -m12)))
  local ay = math.atan(2 * (x * z + w * y), 1 - 2 * (x * x + y * y))
  local az = math.atan(2 * (x * y + w * z), 1 - 2 * (x * x + z * z))
  local e = { math.deg(ax), math.deg(ay), math.deg(az) }
  if prev then
    for k = 1, 3 do
      while e[k] - prev[k] > 180 do e[k] = e[k] - 360 end
      while e[k] - prev[k] < -180 do e[k] = e[k] + 360 end
    end
  end
  return e
end

local clips = {}
for c = 1, C do
  local joints = {}
  for j = 0, J - 1 do
    local rt, rv, pt, pv = numbers(), numbers(), numbers(), numbers()
    local rot, pos, prev = {}, {}, nil
    for k = 1, K do
      local q = { rv[4 * k - 3], rv[4 * k - 2], rv[4 * k - 1], rv[4 * k] }
      if args.euler then prev = to_yxz(q, prev); q = prev end
      rot[k] = { rt[k], q }
      pos[k] = { pt[k], { pv[3 * k - 2], pv[3 * k - 1], pv[3 * k] } }
    end
    joints["j" .. j] = { rotation = rot, position = pos }
  end
  clips[c] = assert(anim.clip({ version = 3, length = D, loop = "loop", joints = joints }, "w1-" .. c))
end
f:close()

local rj = {}
for j = 0, J - 1 do rj[#rj + 1] = { name = "j" .. j } end
local rig = assert(anim.rig { joints = rj })

local function characters(n)
  local list = {}
  for c = 0, n - 1 do
    local a = anim.animator(rig)
    local start = ((c + 1) * 0.6180339887498949) % 1 * 2
    for k = 1, C do
      local t = a:play(clips[k], { fade = 0, weight = 0.5 })
      t.time = start
    end
    list[#list + 1] = a
  end
  return list
end

local clock = os.clock
local function run(list, read)
  local pose = {}
  local t0 = clock()
  for _ = 1, 600 do
    for c = 1, #list do
      local a = list[c]
      a:update(1 / 60)
      if read then a:pose_into(pose, "local") end
    end
  end
  return clock() - t0
end

local ns = { 1, 100, 1000, 10000 }
if args.n then
  ns = {}
  for x in args.n:gmatch("%d+") do ns[#ns + 1] = tonumber(x) end
end

print(string.format("W1%s: %d joints, %d clips, %d keys, %g s; %d timed runs each%s",
  args.euler and "e" or "", J, C, K, D, args.runs, args.read and "; pose read back each frame" or ""))
for _, n in ipairs(ns) do
  local list = characters(n)
  run(list, args.read) -- warm-up
  if n == ns[1] then
    -- cross-check, character 0, after the warm-up (10 s = 5 loops: back at the start time)
    local a = list[1]
    local px, py, pz, qx, qy, qz, qw = a:local_transform("j3")
    if qw < 0 then qx, qy, qz, qw = -qx, -qy, -qz, -qw end
    local sum = 0
    for j = 0, J - 1 do
      local x, y, z = a:local_transform("j" .. j)
      sum = sum + x + y + z
    end
    print(string.format("check j3 rotation (%.4f, %.4f, %.4f, %.4f) position (%.4f, %.4f, %.4f) sum %.3f",
      qx, qy, qz, qw, px, py, pz, sum))
  end
  local times = {}
  for r = 1, args.runs do times[r] = run(list, args.read) end
  table.sort(times)
  local med = times[(#times + 1) // 2]
  print(string.format("N = %5d: %7.1f ns per joint-sample (median; min %.1f, max %.1f)", n,
    med / (600 * n * J) * 1e9, times[1] / (600 * n * J) * 1e9, times[#times] / (600 * n * J) * 1e9))
end
