-- bench/skin.lua: issue 39's hand-over figures, W1 with the skinning
-- matrices, every set timed in one process.
--
--   lua5.4 bench/skin.lua [--n N] [--rounds R] [--data w1.txt] [--allocs]
--
-- N characters of W1 (default 1000), the sets taking turns slice by slice
-- (60 frames each, who starts rotates from round to round: the machine's
-- speed moves from one second to the next, and slices put the same moments
-- into every set), R rounds (default 9) of 600 frames:
--   update          one anim.update(list, dt, { threads = 1 }) a frame
--   update+skin     the same with { skin = buf }: every character's
--                   matrices (J x 12 floats) into one module buffer
--   update+skin(each) update, then animator:skin(buf, opts) a character
--                   (one options table, its offset moved)
--   update(t2), update+skin(t2) the first two on 2 threads (wall clock)
-- One JSON line: the medians (ns per joint-sample) and the median of each
-- round's ratio to the update of the same thread count.  --allocs (run
-- with LD_PRELOAD=build/bench/malloc_count.so, as bench/allocs.lua runs its
-- scripts): the Lua heap bytes and malloc calls per frame of each skin set
-- over 60 frames with the collector stopped, after its warm-up.
local anim = require "anim"
local median = require "bench.median"
local w1 = require "bench.w1data"

local function usage(msg)
  io.stderr:write("skin.lua: ", msg, "\n",
    "usage: lua5.4 bench/skin.lua [--n N] [--rounds R] [--data w1.txt] [--allocs]\n")
  os.exit(2)
end

local args = w1.pair_args(usage, { "allocs" })
local has_wall, wallclock = pcall(require, "bench.wallclock")
if not has_wall then usage("needs build/bench/wallclock.so (make bench-ref)") end
local has_memstat, memstat = pcall(require, "bench.memstat")

local path = args.path
local data, why = w1.read(path)
if not data then usage(why) end

local FRAMES, SLICE, DT, N, J = 600, 60, 1 / 60, args.n, data.J
local rig = w1.rig(data)
local clips = {}
for c = 1, data.C do clips[c] = w1.clip(data, c) end
local list = w1.characters(rig, clips, N, data.D)
local buf = anim.buffer(N * J * 12)

local ONE, SKIN = { threads = 1 }, { threads = 1, skin = buf }
local TWO, SKIN2 = { threads = 2 }, { threads = 2, skin = buf }
local EACH = { offset = 0 }
local update = anim.update
local sets = {
  { name = "update", threads = 1, frame = function() update(list, DT, ONE) end },
  { name = "update+skin", threads = 1, frame = function() update(list, DT, SKIN) end },
  { name = "update+skin(each)", threads = 1, frame = function()
    update(list, DT, ONE)
    local at = 0
    for i = 1, N do
      EACH.offset = at
      at = at + list[i]:skin(buf, EACH)
    end
  end },
  { name = "update(t2)", threads = 2, frame = function() update(list, DT, TWO) end },
  { name = "update+skin(t2)", threads = 2, frame = function() update(list, DT, SKIN2) end },
}
local function timed(set, frames)
  local clock = set.threads > 1 and wallclock.now or os.clock
  local f = set.frame
  local t0 = clock()
  for _ = 1, frames do f() end
  return clock() - t0
end

-- warm-up (each set's pool and scratch made), the cross-check, then the rounds
for _, s in ipairs(sets) do timed(s, FRAMES / #sets) end
local off = w1.check_error(w1.check(list[1], J))
if off then io.stderr:write("skin.lua: the W1 cross-check is off: ", off, "\n") os.exit(1) end

local times, ratios = {}, {}
for k = 1, #sets do times[k], ratios[k] = {}, {} end
for r = 1, args.rounds do
  local sum = {}
  for k = 1, #sets do sum[k] = 0 end
  for s = 1, FRAMES // SLICE do
    for i = 0, #sets - 1 do
      local k = (r + s + i) % #sets + 1
      sum[k] = sum[k] + timed(sets[k], SLICE)
    end
  end
  local per = 1e9 / (FRAMES * N * J)
  for k, s in ipairs(sets) do
    times[k][r] = sum[k] * per
    ratios[k][r] = sum[k] / sum[s.threads > 1 and 4 or 1]
  end
end

local parts = {}
for k, s in ipairs(sets) do
  local extra = ""
  if args.allocs then
    collectgarbage("collect")
    collectgarbage("stop")
    timed(s, 60)
    local kb0, calls0 = collectgarbage("count"), has_memstat and memstat.calls()
    timed(s, 60)
    local bytes = (collectgarbage("count") - kb0) * 1024 / 60
    local calls = calls0 and (memstat.calls() - calls0) / 60
    collectgarbage("restart")
    extra = string.format(',"lua_bytes_per_frame":%.1f,"malloc_calls_per_frame":%s', bytes,
      calls and string.format("%.2f", calls) or "null")
  end
  parts[#parts + 1] = string.format('"%s":{"ns":%.2f,"over_update":%.3f%s}', s.name, median(times[k]),
    median(ratios[k]), extra)
end
print(string.format('{"workload":"w1-skin","n":%d,"joints":%d,"rounds":%d,"slice_frames":%d,"layout":"mat3x4",'
  .. '"sets":{%s},"clock":"os.clock (1 thread), monotonic (2 threads)"}', N, J, args.rounds, SLICE,
  table.concat(parts, ",")))
