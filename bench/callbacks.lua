-- bench/callbacks.lua: the cost of a delivered marker callback.
--
--   lua5.4 bench/callbacks.lua [--n N] [--runs R]
--
-- N animators (default 1000) on a one-joint rig, each playing a looping
-- 1 s clip with 60 markers, one every 1/60 s half a frame apart from the
-- frame times, so that each update (dt = 1/60) fires exactly one marker on
-- every animator.  Three sets of N animators are timed over 600 frames
-- (one warm-up, then R runs, interleaved; medians):
--   plain    the same clip without markers, no callback;
--   markers  the clip with markers, no callback connected;
--   callback the clip with markers and one animator:on_marker callback
--            each (it counts its calls).
-- One JSON line: ns per delivered callback = (callback - markers) / calls,
-- and the whole marker cost (callback - plain) / calls, with the update
-- cost per animator of each set.  Time is os.clock() (process CPU time).
local anim = require "anim"

local args = { n = 1000, runs = 5 }
do
  local i = 1
  while i <= #arg do
    local a = arg[i]
    if a == "--n" then i = i + 1; args.n = tonumber(arg[i])
    elseif a == "--runs" then i = i + 1; args.runs = tonumber(arg[i])
    else
      io.stderr:write("usage: lua5.4 bench/callbacks.lua [--n N] [--runs R]\n")
      os.exit(2)
    end
    i = i + 1
  end
end

local FRAMES, DT, N = 600, 1 / 60, args.n
local rig = assert(anim.rig { joints = { { name = "root" } } })
local function clip(with_markers)
  local markers = {}
  if with_markers then
    for k = 1, 60 do markers[k] = { time = (k - 0.5) / 60, name = "m" .. k, value = "v" } end
  end
  return assert(anim.clip({
    version = 3, length = 1, loop = "loop",
    joints = { root = { position = { { 0, { 0, 0, 0 } }, { 1, { 0, 1, 0 } } } } },
    markers = markers,
  }, with_markers and "markers" or "plain"))
end
local plain, marked = clip(false), clip(true)

local calls = 0
local function on_marker() calls = calls + 1 end

local function set(c, connect)
  local list = {}
  for i = 1, N do
    local a = anim.animator(rig)
    a:play(c, { fade = 0 })
    if connect then a:on_marker(on_marker) end
    list[i] = a
  end
  return list
end
local sets = { plain = set(plain, false), markers = set(marked, false), callback = set(marked, true) }
local order = { "plain", "markers", "callback" }

local function run(list, frames)
  local t0 = os.clock()
  for _ = 1, frames do
    for i = 1, #list do list[i]:update(DT) end
  end
  return os.clock() - t0
end

for _, k in ipairs(order) do run(sets[k], FRAMES) end -- warm-up
local times = { plain = {}, markers = {}, callback = {} }
local per_run
for r = 1, args.runs do
  calls = 0
  for _, k in ipairs(order) do times[k][r] = run(sets[k], FRAMES) end
  per_run = calls
end
if per_run < N * FRAMES then
  io.stderr:write(string.format("callbacks.lua: %d calls in a run, expected at least %d (one per animator per frame)\n",
    per_run, N * FRAMES))
  os.exit(1)
end

-- Lua-heap allocation in steady play, with callbacks: 60 frames, collector
-- stopped (after one frame: a full collection shrinks the Lua stack, which
-- the next calls grow again once)
-- (and the malloc calls, C and Lua, under LD_PRELOAD=build/bench/malloc_count.so)
local has_memstat, memstat = pcall(require, "bench.memstat")
local function malloc_calls() return has_memstat and memstat.calls() or nil end
collectgarbage("collect")
collectgarbage("stop")
run(sets.callback, 1)
local kb0, calls0 = collectgarbage("count"), malloc_calls()
run(sets.callback, 60)
local alloc = (collectgarbage("count") - kb0) * 1024 / 60
local mcalls = calls0 and (malloc_calls() - calls0) / 60
collectgarbage("restart")

local med = {}
for _, k in ipairs(order) do
  table.sort(times[k])
  med[k] = times[k][math.floor((args.runs + 1) / 2)]
end
local function per_update(k) return med[k] / (FRAMES * N) * 1e9 end
print(string.format('{"workload":"callbacks","n":%d,"runs":%d,"calls_per_run":%d,'
  .. '"ns_per_callback":%.1f,"ns_per_marker_with_callback":%.1f,'
  .. '"ns_per_update_plain":%.1f,"ns_per_update_markers":%.1f,"ns_per_update_callback":%.1f,'
  .. '"lua_alloc_bytes_per_frame":%.1f,"malloc_calls_per_frame":%s,"clock":"os.clock"}',
  N, args.runs, per_run, (med.callback - med.markers) / per_run * 1e9,
  (med.callback - med.plain) / per_run * 1e9,
  per_update("plain"), per_update("markers"), per_update("callback"), alloc,
  mcalls and string.format("%.2f", mcalls) or "null"))
