-- bench/gameplay.lua: what the gameplay features of issue 22 cost per
-- character, beside W1 (bench/w1.lua) in the same process.
--
--   lua5.4 bench/gameplay.lua [--n N] [--runs R] [--data w1.txt]
--
-- N characters (default 1000) on the W1 rig of 20 joints, updated with one
-- anim.update(list, 1/60) a frame, 600 frames a run, one untimed warm-up
-- run, then R timed runs (default 5) and their median.  The sets:
--   w1        W1 itself: both W1 clips at weight 0.5 (the baseline);
--   space2d4  a synced 2D blend space of 4 clips (the two W1 clips and the
--             same two with their values moved half a clip on) at points
--             (0,0), (1,0), (0,1), (1,1), each character's parameter moving
--             inside the square, set every frame with track:set_at;
--   w1chain   W1 on the same rig with j0 > j1 > j2 chained (the baseline
--             of the next);
--   ik2       w1chain with a two-bone constraint on j0, j1, j2 per
--             character, its target moving, set every frame with
--             constraint:set_target.
-- One JSON line per set: ns_per_character (run time / (600 x N)),
-- ms_per_frame, ns_per_joint_sample (/ 20 joints, as W1's), and for ik2 the
-- constraint's own cost over w1chain; the Lua heap allocated per frame in
-- steady play (the collector stopped) and, with
-- LD_PRELOAD=build/bench/malloc_count.so (bench/allocs.lua), the malloc
-- calls per frame, C and Lua.
local anim = require "anim"
local w1 = require "bench.w1data"

local FRAMES, DT = 600, 1 / 60
local PHI = 0.6180339887498949

local opts = { n = 1000, runs = 5 }
do
  local i = 1
  while i <= #arg do
    local k = arg[i]:match("^%-%-(%a+)$")
    if not (k and (k == "n" or k == "runs" or k == "data") and arg[i + 1]) then
      io.stderr:write("usage: lua5.4 bench/gameplay.lua [--n N] [--runs R] [--data path/to/w1.txt]\n")
      os.exit(2)
    end
    opts[k] = k == "data" and arg[i + 1] or tonumber(arg[i + 1])
    i = i + 2
  end
end
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local path = opts.data or (os.getenv("ANIM_SHARED") or (here .. "/../../shared")) .. "/bench/w1.txt"
local data = assert(w1.read(path))
local J, D = data.J, data.D
local clips = { w1.clip(data, 1), w1.clip(data, 2) }
local shifted = { w1.clip(data, 1, math.floor(data.K / 2)), w1.clip(data, 2, math.floor(data.K / 2)) }

-- W1's rig with j0 > j1 > j2 chained, each a unit above its parent
local function chained_rig()
  local rj = {}
  for j = 0, J - 1 do
    rj[#rj + 1] = { name = "j" .. j, parent = j > 0 and j <= 2 and "j" .. (j - 1) or nil,
      position = j <= 2 and { 0, j, 0 } or nil }
  end
  return assert(anim.rig { joints = rj })
end
local flat, chained = w1.rig(data), chained_rig()
local space = anim.blendspace { points = {
  { clip = clips[1], at = { 0, 0 } }, { clip = clips[2], at = { 1, 0 } },
  { clip = shifted[1], at = { 0, 1 } }, { clip = shifted[2], at = { 1, 1 } },
} }

-- The characters of a set, and what a frame does to each before the update.
local function characters(set, n)
  local list, each = {}, {}
  for i = 0, n - 1 do
    local start = ((i + 1) * PHI) % 1 * D
    local a = anim.animator((set == "w1" or set == "space2d4") and flat or chained)
    if set == "space2d4" then
      local t = a:play(space, { fade = 0, at = { 0.5, 0.5 } })
      t.time = start
      local u, v = ((i + 1) * PHI) % 1, ((i + 1) * PHI * PHI) % 1
      local frame = 0
      each[i + 1] = function()
        frame = frame + 1
        local s = frame * 0.01
        t:set_at(0.5 + 0.45 * math.sin(s + u * 6.28), 0.5 + 0.45 * math.cos(s * 0.7 + v * 6.28))
      end
    else
      for k = 1, 2 do
        local t = a:play(clips[k], { fade = 0, weight = 0.5 })
        t.time = start
      end
      if set == "ik2" then
        local c = a:two_bone_ik { root = "j0", mid = "j1", tip = "j2", target = { 1, 1, 0 }, pole = { 0, 1, 1 } }
        local frame = 0
        each[i + 1] = function()
          frame = frame + 1
          local s = frame * 0.02 + i
          c:set_target(0.8 * math.cos(s), 1 + 0.5 * math.sin(s), 0.6 * math.sin(s * 0.5))
        end
      end
    end
    list[i + 1] = a
  end
  return list, each
end

local has_memstat, memstat = pcall(require, "bench.memstat")
local function malloc_calls() return has_memstat and memstat.calls() or nil end

-- (on one thread: process CPU time is the figure, as for W1)
local clock, ONE = os.clock, { threads = 1 }
local function update(list, dt) anim.update(list, dt, ONE) end
local function run(list, each, frames)
  local n = #list
  local t0 = clock()
  for _ = 1, frames do
    if #each > 0 then for c = 1, n do each[c]() end end
    update(list, DT)
  end
  return clock() - t0
end

local results = {}
for _, set in ipairs { "w1", "space2d4", "w1chain", "ik2" } do
  local n = opts.n
  local list, each = characters(set, n)
  run(list, each, FRAMES)
  local times = {}
  for r = 1, opts.runs do times[r] = run(list, each, FRAMES) end
  collectgarbage("collect")
  collectgarbage("stop")
  run(list, each, math.ceil(D / DT)) -- (a whole loop first: see bench/w1.lua)
  local kb0, calls0 = collectgarbage("count"), malloc_calls()
  run(list, each, 60)
  local alloc = (collectgarbage("count") - kb0) * 1024 / 60
  local calls = calls0 and (malloc_calls() - calls0) / 60
  collectgarbage("restart")
  table.sort(times)
  local med = times[math.floor((#times + 1) / 2)]
  local per = med / (FRAMES * n) * 1e9
  results[set] = per
  local extra = ""
  if set == "ik2" then extra = string.format(',"ns_per_constraint":%.1f', per - results.w1chain) end
  print(string.format('{"workload":"gameplay","set":"%s","n":%d,"runs":%d,"ns_per_character":%.1f,'
    .. '"ms_per_frame":%.4f,"ns_per_joint_sample":%.2f,"ns_min":%.1f,"ns_max":%.1f,'
    .. '"lua_alloc_bytes_per_frame":%.1f,"malloc_calls_per_frame":%s%s,"clock":"os.clock"}',
    set, n, opts.runs, per, med / FRAMES * 1e3, per / J, times[1] / (FRAMES * n) * 1e9,
    times[#times] / (FRAMES * n) * 1e9, alloc, calls and string.format("%.2f", calls) or "null", extra))
  io.stdout:flush()
  list, each = nil, nil -- luacheck: ignore (dropped before the next set)
  collectgarbage("collect")
end
