-- bench/callbacks.lua: the cost of a delivered marker callback.
--
--   lua5.4 bench/callbacks.lua [--n N] [--runs R]
--
-- N animators (default 1000) on a one-joint rig, each playing a looping
-- 1 s clip with 60 markers, one every 1/60 s half a frame apart from the
-- frame times, so that each update (dt = 1/60) fires exactly one marker on
-- every animator (the markers are footsteps: all named "step").  Six sets
-- of N animators are timed over 600 frames (one warm-up, then R runs,
-- interleaved in slices of 60 frames; medians), and a plain Lua loop:
--   plain    the same clip without markers, no callback;
--   markers  the clip with markers, no callback connected;
--   callback the clip with markers and one animator:on_marker callback
--            each (it counts its calls);
--   track    the clip with markers and one track:on_marker("step")
--            callback each;
--   plain_batch, track_batch  plain and track again, on sets of their
--            own updated with one anim.update(list, dt) a frame;
--   lua_loop the track callback's function called N x 600 times from a
--            Lua loop with the same arguments;
--   floor, floor_nop  the least delivery from C (bench/ref/callfloor.c,
--            built by make bench-ref; the two sets are left out without
--            it): for each track of the track set, in turn, what the
--            module's delivery reads found in tables of the same shape
--            (runtime/dispatch.lua: a slot table, [4s - 3] the track and
--            [4s - 2] its callbacks by marker, [k] the function and [-k]
--            the value of each of the clip's markers, a table per track)
--            and the same function called with the same arguments in a
--            protected call, from a Lua loop; floor_nop the same loop
--            calling a C function that does nothing.
-- One JSON line: ns per delivered callback = (callback - markers) / calls,
-- the whole marker cost (callback - plain) / calls, the update cost per
-- animator of each set (medians), and the figures of issue 24, each the
-- median over the rounds of the round's own figure: an unheard marker
-- (markers - plain) / calls, and a delivered track:on_marker callback over
-- the plain Lua call ((track - plain) - lua_loop) / calls (the figure the
-- target is judged on), and the same through anim.update
-- ((track_batch - plain_batch) - lua_loop) / calls; and the floor of a
-- delivery from C over the same Lua call ((floor - floor_nop) - lua_loop)
-- / calls: the part of the delivered callback's figure that the reads
-- and the protected call cost with the module's tables as they are laid
-- out.  Time is os.clock() (process CPU time).
local anim = require "anim"
local median = require "bench.median"

local args = { n = 1000, runs = 7 }
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
    for k = 1, 60 do markers[k] = { time = (k - 0.5) / 60, name = "step", value = "v" } end
  end
  return assert(anim.clip({
    version = 3, length = 1, loop = "loop",
    joints = { root = { position = { { 0, { 0, 0, 0 } }, { 1, { 0, 1, 0 } } } } },
    markers = markers,
  }, with_markers and "markers" or "plain"))
end
local plain, marked = clip(false), clip(true)

local calls, tcalls = 0, 0
local function on_marker() calls = calls + 1 end
local function on_step() tcalls = tcalls + 1 end

local a_track -- a track, for the Lua loop's arguments
local track_of = {} -- animator -> its track
local function character(c, connect)
  local a = anim.animator(rig)
  local tr = a:play(c, { fade = 0 })
  if connect == "animator" then a:on_marker(on_marker)
  elseif connect == "track" then tr:on_marker("step", on_step) end
  a_track = a_track or tr
  track_of[a] = tr
  return a
end
-- the sets' animators made in turns, the i-th of every set one after the
-- other, so that where their memory falls is alike for all sets (made a
-- set after the other, two sets of the same update differed by about 15 ns)
local shape = { plain = { plain }, markers = { marked }, callback = { marked, "animator" },
  track = { marked, "track" }, plain_batch = { plain }, track_batch = { marked, "track" } }
local has_floor, callfloor = pcall(require, "bench.callfloor")
local order = { "plain", "markers", "callback", "track", "plain_batch", "track_batch", "lua_loop" }
if has_floor then
  order[#order + 1] = "floor"
  order[#order + 1] = "floor_nop"
end
local sets = {}
for _, k in ipairs(order) do sets[k] = shape[k] and {} end
for i = 1, N do
  for _, k in ipairs(order) do
    if shape[k] then sets[k][i] = character(shape[k][1], shape[k][2]) end
  end
end
local batch = { plain_batch = true, track_batch = true }

-- the same function called from Lua as the delivery calls it
local function lua_loop(frames)
  local fn, tr, n = on_step, a_track, frames * N
  local t0 = os.clock()
  for _ = 1, n do fn(tr, "v", 0.0) end
  return os.clock() - t0
end

-- the least delivery from C, for the tracks of the track set (see above)
local floor_deliver, floor_nop
if has_floor then
  local slots = {}
  for s, a in ipairs(sets.track) do
    local by = {}
    for k = 1, 60 do by[k], by[-k] = on_step, "v" end
    slots[4 * s - 3], slots[4 * s - 2], slots[4 * s - 1], slots[4 * s] = track_of[a], by, false, false
  end
  floor_deliver, floor_nop = callfloor.delivery(slots), callfloor.nop
  local before = tcalls
  floor_deliver(1, 1, 0.0)
  if tcalls ~= before + 1 then
    io.stderr:write("callbacks.lua: bench.callfloor's delivery did not call the callback\n")
    os.exit(1)
  end
end
local function floor_loop(frames, fn)
  local t0 = os.clock()
  for f = 1, frames do
    local j = f % 60 + 1
    for s = 1, N do fn(s, j, 0.0) end
  end
  return os.clock() - t0
end

local function run(list, frames)
  local t0 = os.clock()
  for _ = 1, frames do
    for i = 1, #list do list[i]:update(DT) end
  end
  return os.clock() - t0
end

local ONE_THREAD = { threads = 1 }
local function run_batch(list, frames)
  local t0 = os.clock()
  for _ = 1, frames do anim.update(list, DT, ONE_THREAD) end
  return os.clock() - t0
end

local function timed(k, frames)
  if k == "lua_loop" then return lua_loop(frames) end
  if k == "floor" then return floor_loop(frames, floor_deliver) end
  if k == "floor_nop" then return floor_loop(frames, floor_nop) end
  return (batch[k] and run_batch or run)(sets[k], frames)
end
for _, k in ipairs(order) do timed(k, FRAMES) end -- warm-up
-- A run's 600 frames of each set are timed in slices of SLICE frames, the
-- sets taking turns slice by slice (each slice starting with the next set
-- in turn): the speed of this shared machine moves by a third between
-- seconds (the same binary's delivered callback read 32 to 190 ns over
-- the Lua call from one run to the next when each set ran its 600 frames
-- at once, a second or so apart), and the figures are differences of sets:
-- slices put the same moments of the machine into all of them.
local SLICE = 60
local times = {}
for _, k in ipairs(order) do times[k] = {} end
local per_run
for r = 1, args.runs do
  calls = 0
  for _, k in ipairs(order) do times[k][r] = 0 end
  for s = 0, FRAMES // SLICE - 1 do
    for i = 0, #order - 1 do
      local k = order[(s + i) % #order + 1]
      times[k][r] = times[k][r] + timed(k, SLICE)
    end
  end
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
for _, k in ipairs(order) do med[k] = median(times[k]) end
-- issue 24's two figures: the median of the rounds' own differences (the
-- sets of a round ran one after the other, under the same load of the
-- machine; differences of medians mix rounds)
local unheard, over, over_batch, floor = {}, {}, {}, {}
for r = 1, args.runs do
  unheard[r] = (times.markers[r] - times.plain[r]) / per_run * 1e9
  over[r] = (times.track[r] - times.plain[r] - times.lua_loop[r]) / per_run * 1e9
  over_batch[r] = (times.track_batch[r] - times.plain_batch[r] - times.lua_loop[r]) / per_run * 1e9
  if has_floor then floor[r] = (times.floor[r] - times.floor_nop[r] - times.lua_loop[r]) / per_run * 1e9 end
end
local function per_update(k) return med[k] / (FRAMES * N) * 1e9 end
print(string.format('{"workload":"callbacks","n":%d,"runs":%d,"calls_per_run":%d,'
  .. '"ns_per_callback":%.1f,"ns_per_marker_with_callback":%.1f,'
  .. '"ns_per_update_plain":%.1f,"ns_per_update_markers":%.1f,"ns_per_update_callback":%.1f,'
  .. '"ns_per_update_track":%.1f,"ns_per_lua_call":%.1f,"ns_per_unheard_marker":%.1f,"ns_track_callback_over_lua_call":%.1f,'
  .. '"ns_per_update_plain_batch":%.1f,"ns_per_update_track_batch":%.1f,"ns_track_callback_over_lua_call_batch":%.1f,'
  .. '"ns_floor_over_lua_call":%s,'
  .. '"lua_alloc_bytes_per_frame":%.1f,"malloc_calls_per_frame":%s,"clock":"os.clock"}',
  N, args.runs, per_run, (med.callback - med.markers) / per_run * 1e9,
  (med.callback - med.plain) / per_run * 1e9,
  per_update("plain"), per_update("markers"), per_update("callback"), per_update("track"),
  med.lua_loop / per_run * 1e9, median(unheard), median(over),
  per_update("plain_batch"), per_update("track_batch"), median(over_batch),
  has_floor and string.format("%.1f", median(floor)) or "null", alloc,
  mcalls and string.format("%.2f", mcalls) or "null"))
