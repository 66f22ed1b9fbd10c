-- bench/w1.lua: workload W1 of ../shared/bench/README.md (the benchmark the
-- peers were measured on), through the public API.
--
--   lua5.4 bench/w1.lua [--n N] [--runs R] [--variant w1|w1e] [--batch] [--threads T[,T...]]
--                       [--read | --read-joints | --read-table] [--frames F] [--gap MS]
--                       [--compressed [--animc DIR]] [--data w1.txt]
--
-- --n takes one N or a comma list (default 1,100,1000,10000); --runs the
-- number of timed runs (default 5); --variant w1e builds the rotations as
-- yxz Euler keys; --batch updates all the characters of a frame with one
-- anim.update(list, dt) instead of animator:update(dt) on each ("mode":
-- "update(batch)"); --read also reads every joint's local pose into Lua each
-- frame, allocating nothing, with one call a character:
-- animator:pose_array(t) fills the flat array the character keeps from
-- frame to frame with its joints' ten numbers, which the loop then sums
-- ("mode": "update+read"); --read-joints reads it with a call a joint,
-- animator:local_transform(j), ten numbers returned into locals and summed
-- ("update+read_joints"; on Lua 5.4 the faster of the two,
-- docs/performance.md); --read-table with animator:pose_into(t, "local")
-- into one reused table per character ("update+read_table").  --batch runs
-- anim.update on one thread ({ threads = 1 }: the figures are of the work,
-- not of the machine);
-- --threads T (implies --batch) on T ("mode": "update(batch,threads=T)"),
-- timed by the wall (below); a list (--threads 1,2) measures each count in
-- the same process, their timed runs taking turns (run 1 with each count,
-- then run 2...), so that what the machine does meanwhile falls on all of
-- them alike.  --frames F: frames per timed run (default 600; the warm-up
-- stays 600).  --gap MS: sleeps MS milliseconds before every frame,
-- outside the timed part (each frame is timed alone), as a game's frame
-- leaves time between updates: the pool's workers then go back to sleep
-- and every update wakes them ("mode": "update(batch,threads=T,gap=MSms)").
-- --compressed plays the clips compressed (anim.compress on the W1 rig, its
-- default bound: 0.001 at 0.1; "compressed" in the mode, the bound and the
-- worst error measured in "compressed": the cross-check then holds within
-- the clips' error, not the README's 1e-3, and is not enforced); --animc
-- DIR keeps them in DIR as .animc files, made the first time and loaded
-- after (compressing takes seconds; under valgrind, minutes).
-- One JSON line per N (and thread count) on stdout.  For W1 the
-- cross-check must match the README to 1e-3, else the script exits 1.
--
-- Time is os.clock(): process CPU time (clock(3), CLOCK_PROCESS_CPUTIME_ID),
-- the only monotonic clock plain Lua has; the run is single-threaded, so it
-- follows wall time, minus the time the machine takes the CPU away.  With
-- --threads, CPU time would add up the threads: the time is then the wall
-- clock CLOCK_MONOTONIC, read through build/bench/wallclock.so
-- (bench.wallclock, from make bench-ref), and "cpu_ms_per_frame" says the
-- process CPU time beside it, "caller_cpu_ms_per_frame" the calling
-- thread's (its share of the work, and its delivery).
local anim = require "anim"

local FRAMES, DT = 600, 1 / 60

local function usage(msg)
  io.stderr:write("w1.lua: ", msg, "\n",
    "usage: lua5.4 bench/w1.lua [--n N[,N...]] [--runs R] [--variant w1|w1e] [--batch] [--threads T[,T...]]"
    .. " [--read | --read-joints | --read-table] [--frames F] [--gap MS] [--compressed] [--data path/to/w1.txt]\n")
  os.exit(2)
end

local args = { runs = 5, variant = "w1", frames = FRAMES, gap = 0 }
do
  local i = 1
  local function value()
    i = i + 1
    if arg[i] == nil then usage(arg[i - 1] .. " needs a value") end
    return arg[i]
  end
  while i <= #arg do
    local a = arg[i]
    if a == "--n" then args.n = value()
    elseif a == "--runs" then args.runs = tonumber(value())
    elseif a == "--variant" then args.variant = value()
    elseif a == "--euler" then args.variant = "w1e" -- the old spelling
    elseif a == "--batch" then args.batch = true
    elseif a == "--threads" then args.threads = value(); args.batch = true
    elseif a == "--frames" then args.frames = tonumber(value())
    elseif a == "--gap" then args.gap = tonumber(value())
    elseif a == "--read" then args.read = "array"
    elseif a == "--read-joints" then args.read = "joints"
    elseif a == "--read-table" then args.read = "table"
    elseif a == "--data" then args.path = value()
    elseif a == "--compressed" then args.compressed = true
    elseif a == "--animc" then args.animc = value(); args.compressed = true
    else usage("unknown argument " .. a) end
    i = i + 1
  end
end
if args.variant ~= "w1" and args.variant ~= "w1e" then usage("--variant must be w1 or w1e") end
if not args.runs or args.runs < 1 or args.runs % 1 ~= 0 then usage("--runs must be a whole number >= 1") end
if not args.frames or args.frames < 1 or args.frames % 1 ~= 0 then usage("--frames must be a whole number >= 1") end
if not args.gap or not (args.gap >= 0 and args.gap <= 1000) then usage("--gap must be milliseconds from 0 to 1000") end
-- the thread counts to measure (false: no --threads)
local counts = { false }
if args.threads then
  counts = {}
  for x in args.threads:gmatch("[^,]+") do
    local t = tonumber(x)
    if not t or t < 1 or t % 1 ~= 0 then usage("--threads must be whole numbers >= 1, got " .. x) end
    counts[#counts + 1] = t
  end
end
local has_wall, wallclock = pcall(require, "bench.wallclock")
if args.threads and not has_wall then usage("--threads needs build/bench/wallclock.so (make bench-ref)") end
if args.gap > 0 and not has_wall then usage("--gap needs build/bench/wallclock.so (make bench-ref)") end
local ns = {}
for x in (args.n or "1,100,1000,10000"):gmatch("[^,]+") do
  local n = tonumber(x)
  if not n or n < 1 or n % 1 ~= 0 then usage("--n must be whole numbers >= 1, got " .. x) end
  ns[#ns + 1] = n
end

local here = arg[0]:match("^(.*)/[^/]*$") or "."
local path = args.path or (os.getenv("ANIM_SHARED") or (here .. "/../../shared")) .. "/bench/w1.txt"
local euler = args.variant == "w1e"

local w1 = require "bench.w1data"
local data, why = w1.read(path, euler)
if not data then usage(why) end
local J, C, D = data.J, data.C, data.D
local clips = {}
for c = 1, C do clips[c] = w1.clip(data, c) end

local rig = w1.rig(data)
local compressed = ""
if args.compressed then
  local worst, bytes, raw = 0, 0, 0
  for c = 1, C do
    -- (--animc DIR: the compressed clips kept in DIR, made the first time)
    local file = args.animc and string.format("%s/w1_%s_%d.animc", args.animc, args.variant, c)
    local kept = file and io.open(file, "rb")
    if kept then
      kept:close()
      clips[c] = assert(anim.load(file))
    else
      clips[c] = assert(anim.compress(clips[c], { rig = rig }))
      if file then assert(anim.save(clips[c], file)) end
    end
    local f = clips[c]:compression()
    worst, bytes, raw = math.max(worst, f.worst), bytes + f.bytes, raw + f.bytes_raw
    compressed = string.format(',"compressed":{"error":%g,"distance":%g,"worst":%.3g,"bytes":%d,"bytes_raw":%d}',
      f.error, f.distance, worst, bytes, raw)
  end
end

-- N characters: one animator each, both clips at weight 0.5, no fade,
-- both tracks starting at frac((i + 1) * phi) * 2 (i 0-based).
local function characters(n)
  local list, poses = w1.characters(rig, clips, n, D), {}
  for i = 1, n do poses[i] = {} end
  return list, poses
end

local clock = args.threads and wallclock.now or os.clock
-- (the one table of options, its count set before each run: no table a frame)
local update_opts = { threads = 1 }
local function update_all(list, dt) anim.update(list, dt, update_opts) end
local cpu_time, caller_time = 0, 0 -- the process's and the calling thread's CPU time of a run (--threads)
local read_sum -- luacheck: ignore 231 (kept so the reads are used)
local run_frames
local gap = args.gap / 1000
local function run(list, poses, read, frames)
  local c0, t0 = os.clock(), has_wall and wallclock.thread_cpu()
  local dt
  if gap > 0 then
    dt = 0
    for _ = 1, frames do
      wallclock.sleep(gap)
      dt = dt + run_frames(list, poses, read, 1)
    end
  else
    dt = run_frames(list, poses, read, frames)
  end
  cpu_time = os.clock() - c0
  caller_time = t0 and wallclock.thread_cpu() - t0 or 0
  return dt
end

function run_frames(list, poses, read, frames)
  local n, batch = #list, args.batch
  local t0 = clock()
  if read == "table" then
    for _ = 1, frames do
      if batch then update_all(list, DT) end
      for c = 1, n do
        local a = list[c]
        if not batch then a:update(DT) end
        a:pose_into(poses[c], "local")
      end
    end
  elseif read == "array" then
    -- every joint's ten numbers in the character's array: what a game
    -- hands on to its renderer (summed here so that they are used)
    local sum, m = 0, 10 * J
    for _ = 1, frames do
      if batch then update_all(list, DT) end
      for c = 1, n do
        local a, p = list[c], poses[c]
        if not batch then a:update(DT) end
        a:pose_array(p)
        for k = 1, m do sum = sum + p[k] end
      end
    end
    read_sum = sum
  elseif read then
    -- each joint's ten numbers returned on the stack, into locals
    local sum = 0
    for _ = 1, frames do
      if batch then update_all(list, DT) end
      for c = 1, n do
        local a = list[c]
        if not batch then a:update(DT) end
        local lt = a.local_transform
        for j = 1, J do
          local px, py, pz, qx, qy, qz, qw, sx, sy, sz = lt(a, j)
          sum = sum + px + py + pz + qx + qy + qz + qw + sx + sy + sz
        end
      end
    end
    read_sum = sum
  elseif batch then
    for _ = 1, frames do update_all(list, DT) end
  else
    for _ = 1, frames do
      for c = 1, n do list[c]:update(DT) end
    end
  end
  return clock() - t0
end

local has_memstat, memstat = pcall(require, "bench.memstat")
local function malloc_calls() return has_memstat and memstat.calls() or nil end

local function peak_rss_kb()
  local s = io.open("/proc/self/status")
  if not s then return nil end
  local kb = s:read("*a"):match("VmHWM:%s*(%d+)")
  s:close()
  return tonumber(kb)
end

local function nums(t, fmt)
  local out = {}
  for i, v in ipairs(t) do out[i] = string.format(fmt, v) end
  return "[" .. table.concat(out, ",") .. "]"
end

local function median(t)
  table.sort(t)
  return t[math.floor((#t + 1) / 2)]
end

local failed = false
for _, n in ipairs(ns) do
  local list, poses = characters(n)
  -- the untimed warm-up: 10 s, five loops (the cross-check is the state
  -- after it), then a shorter one on each other thread count (its pool)
  update_opts.threads = counts[1] or 1
  run_frames(list, poses, args.read, FRAMES)
  local chk = w1.check(list[1], J)
  for k = 2, #counts do
    update_opts.threads = counts[k]
    run_frames(list, poses, args.read, 60)
  end
  local times, cpus, callers = {}, {}, {}
  for k = 1, #counts do times[k], cpus[k], callers[k] = {}, {}, {} end
  for r = 1, args.runs do
    for k, t in ipairs(counts) do
      update_opts.threads = t or 1
      times[k][r] = run(list, poses, args.read, args.frames)
      cpus[k][r], callers[k][r] = cpu_time, caller_time
    end
  end
  for k, t in ipairs(counts) do
    update_opts.threads = t or 1
    -- Lua-heap allocation in steady play: 60 more frames with the collector
    -- stopped, after a whole loop of the clips (a full collection shrinks the
    -- Lua stack, which the next calls grow again once: the first frame, and
    -- the first delivery of the tracks' wraps, a frame in 120 at N = 1)
    -- With LD_PRELOAD=build/bench/malloc_count.so (bench/allocs.lua), also
    -- the malloc calls of those frames, C core and Lua together.
    collectgarbage("collect")
    collectgarbage("stop")
    run(list, poses, args.read, math.ceil(D / DT))
    local kb0, calls0 = collectgarbage("count"), malloc_calls()
    run(list, poses, args.read, 60)
    local alloc = (collectgarbage("count") - kb0) * 1024 / 60
    local calls = calls0 and (malloc_calls() - calls0) / 60
    collectgarbage("restart")
    local ts = times[k]
    local med = median(ts)
    local per = 1e9 / (args.frames * n * J)
    local how = {}
    if args.batch then how[#how + 1] = "batch" end
    if t then how[#how + 1] = "threads=" .. t end
    if gap > 0 then how[#how + 1] = "gap=" .. args.gap .. "ms" end
    if args.compressed then how[#how + 1] = "compressed" end
    local mode = "update" .. (#how > 0 and "(" .. table.concat(how, ",") .. ")" or "")
    print(string.format('{"workload":"W1","variant":"%s","n":%d,"mode":"%s","runs":%d,'
      .. '"ns_per_joint_sample":%.2f,"ms_per_frame":%.4f,"peak_rss_kb":%s,'
      .. '"check":{"q3":%s,"p3":%s,"psum":%.6f},'
      .. '"ns_min":%.2f,"ns_max":%.2f,"lua_alloc_bytes_per_frame":%.1f,"malloc_calls_per_frame":%s,"clock":"%s"%s%s%s}',
      args.variant, n, mode .. (args.read == "table" and "+read_table" or args.read == "joints" and "+read_joints"
        or args.read and "+read" or ""), args.runs,
      med * per, med / args.frames * 1e3, tostring(peak_rss_kb() or "null"),
      nums(chk.q3, "%.6f"), nums(chk.p3, "%.6f"), chk.psum,
      ts[1] * per, ts[#ts] * per, alloc, calls and string.format("%.2f", calls) or "null",
      t and "monotonic" or "os.clock",
      t and string.format(',"threads":%d,"cpu_ms_per_frame":%.4f,"caller_cpu_ms_per_frame":%.4f', t,
        median(cpus[k]) / args.frames * 1e3, median(callers[k]) / args.frames * 1e3) or "",
      (gap > 0 or args.frames ~= FRAMES) and string.format(',"frames":%d,"gap_ms":%g', args.frames, args.gap) or "",
      compressed))
    io.stdout:flush()
  end
  if not euler and not args.compressed then
    local bad = w1.check_error(chk)
    if bad then
      io.stderr:write(string.format("w1.lua: N = %d: the W1 cross-check is off: %s\n", n, bad))
      failed = true
    end
  end
  list, poses = nil, nil -- luacheck: ignore (drop this N before the next)
  collectgarbage("collect")
end
if failed then os.exit(1) end
