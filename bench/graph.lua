-- bench/graph.lua: what a state machine costs (issue 38's target: ≤ 1.25×).
--
--   lua5.4 bench/graph.lua [--n N] [--rounds R] [--threads T[,T...]] [--seed S] [--every S] [--quiet]
--                          [--allocs | --grind]
--
-- N characters (default 1000) on the player rig (7 joints), each an
-- animator under one controller of GRAPH below: 2 layers, 8 states, 20
-- transitions (float, bool and int conditions, triggers, exit times,
-- any-state transitions, an upper layer masked to torso, head and arms).
-- A script of inputs, seeded (--seed, default 38) and the same every run
-- of 600 frames, changes each character's parameters every 0.6 to 2.4 s
-- (--every S: 0.4 to 1.6 x S, default 1.5; speed, grounded, pace; jump and
-- wave fired; gesture): at N = 1000 about 10 controller:set/fire calls
-- and 12 transitions a frame (exit times and landings add to the inputs').
--
-- The set it is compared with ("plain"): the same N characters playing the
-- same clips with no controller.  After the controlled set's warm-up run
-- and a run read (the transitions and the tracks a character holds on
-- average, "tracks_ctl"), each character's live tracks are copied onto an
-- animator of its own, at the first frame of the next run after which the
-- N characters hold that many tracks (within 0.2 %): the same clips, at
-- the weight x fade, speed, playhead, priority (the layer's) and loop mode
-- they have at that instant, held there (no fade).  So the two sets sample
-- as many tracks ("tracks_plain": the copy's) of the same clips.
--
-- --quiet: no input at all (every character stays in its entry states,
-- idle and none, one track): what the stage costs a frame when nothing
-- happens ("quiet":true in the line).
--
-- Both sets go through anim.update(list, 1/60, { threads = T }); for each T
-- (default 1,2) R rounds (default 7), each timing 600 frames of both in
-- slices of 60 taking turns (who starts alternates), as bench/w1pair.lua
-- does.  T = 1 is timed by os.clock() (process CPU time), T > 1 by the
-- wall (bench.wallclock, make bench-ref).  One JSON line per T: the
-- medians of the two (ns per character update), the median of the
-- rounds' own ratios ctl / plain, the least and the greatest, transitions
-- per frame.
--
-- --allocs (run with LD_PRELOAD=build/bench/malloc_count.so, as
-- bench/allocs.lua runs its scripts, for malloc calls; else they are null)
-- times nothing and prints one JSON line "graph-allocs": with the
-- collector stopped, the Lua heap bytes and malloc calls of 120 frames of
-- the N controlled characters with no input (after 180 frames without:
-- every fade over, every exit time passed), checked to have had no
-- transition (the script exits 1 if they allocated anything), then those
-- of 600 frames of the script of inputs over the
-- transitions they had (counted through controller:current() between
-- frames, outside the count: a change of state between two frames counts
-- one).
--
-- --grind runs this script again under valgrind --tool=callgrind (N = 1000
-- unless --n says, about 90 s; build/bench/grind.so from make bench-grind;
-- at a smaller N the copy's tracks stray further from the controlled
-- set's mean, but two versions of the code compared at the same N and
-- seed get the same plain set, to the instruction), counting
-- only a run of 600 frames of each set (bench.grind's client requests),
-- dumped to build/bench/graph.callgrind.1 (controlled) and .2 (plain)
-- (graph-quiet.callgrind.* with --quiet) for callgrind_annotate; one JSON line "graph-callgrind": the instructions
-- per character update of each and their ratio.
local anim = require "anim"
local median = require "bench.median"

local function usage(msg)
  io.stderr:write("graph.lua: ", msg, "\n",
    "usage: lua5.4 bench/graph.lua [--n N] [--rounds R] [--threads T[,T...]] [--seed S] [--every S] [--quiet]"
    .. " [--allocs | --grind]\n")
  os.exit(2)
end

local args = { n = 1000, rounds = 7, threads = "1,2", seed = 38, every = 1.5 }
do
  local i = 1
  while i <= #arg do
    local a, v = arg[i], arg[i + 1]
    if a == "--allocs" or a == "--grind" or a == "--quiet" then args[a:sub(3)] = true; i = i + 1
    else
      local k = a:match("^%-%-(%a+)$")
      if not (k and args[k] ~= nil and not (k == "allocs" or k == "grind" or k == "quiet")) then usage("unknown argument " .. a) end
      if v == nil then usage(a .. " needs a value") end
      args[k] = k == "threads" and v or tonumber(v)
      i = i + 2
    end
  end
end
for _, k in ipairs { "n", "rounds", "seed" } do
  if not args[k] or args[k] < 1 or args[k] % 1 ~= 0 then usage("--" .. k .. " must be a whole number >= 1") end
end
if not args.every or not (args.every > 0 and args.every < 1e6) then usage("--every must be a number of seconds > 0") end
local counts = {}
for x in args.threads:gmatch("[^,]+") do
  local t = tonumber(x)
  if not t or t < 1 or t % 1 ~= 0 then usage("--threads must be whole numbers >= 1, got " .. x) end
  counts[#counts + 1] = t
end
local has_wall, wallclock = pcall(require, "bench.wallclock")
for _, t in ipairs(counts) do
  if t > 1 and not has_wall then usage("--threads " .. t .. " needs build/bench/wallclock.so (make bench-ref)") end
end
local has_memstat, memstat = pcall(require, "bench.memstat")
local FRAMES, SLICE, DT, N = 600, 60, 1 / 60, args.n
local FRAMES_ALL = FRAMES
local here = arg[0]:match("^(.*)/[^/]*$") or "."

-- --grind outside valgrind: this script again under callgrind (N = 1000
-- unless --n says), then its two dumps' totals
local has_grind, grind = pcall(require, "bench.grind")
if args.grind and not (has_grind and grind.running()) then
  if not has_grind then usage("--grind needs build/bench/grind.so (make bench-grind: valgrind's headers)") end
  local out = here .. "/../build/bench/graph" .. (args.quiet and "-quiet" or "") .. ".callgrind"
  os.remove(out .. ".1")
  os.remove(out .. ".2")
  local n = 1000
  for i = 1, #arg - 1 do if arg[i] == "--n" then n = tonumber(arg[i + 1]) end end
  local cmd = string.format("valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=%s %s %s --grind --n %d"
    .. " --seed %d --every %.17g%s 2>/dev/null", out, arg[-1] or "lua5.4", arg[0], n, args.seed, args.every,
    args.quiet and " --quiet" or "")
  io.stderr:write("$ ", cmd, "\n")
  if not os.execute(cmd) then usage("valgrind failed: " .. cmd) end
  local function total(file)
    local f = io.open(file)
    if not f then usage("no " .. file .. " (valgrind --tool=callgrind failed?)") end
    local t = f:read("*a"):match("\ntotals: (%d+)") or ""
    f:close()
    return tonumber(t)
  end
  local ctl, plain = total(out .. ".1"), total(out .. ".2")
  print(string.format('{"workload":"graph-callgrind","n":%d,"frames":%d,"every":%g,"ctl_ir":%.0f,"plain_ir":%.0f,'
    .. '"ctl_over_plain":%.3f,"files":["%s","%s"],"tool":"valgrind --tool=callgrind"%s}', n, FRAMES_ALL, args.every,
    ctl / (FRAMES_ALL * n), plain / (FRAMES_ALL * n), ctl / plain, out .. ".1", out .. ".2",
    args.quiet and ',"quiet":true' or ""))
  os.exit(0)
end


-- The clips ------------------------------------------------------------------------------

local rig = assert(anim.rig("player"))
local ALL = { "root", "torso", "rightLeg", "leftLeg", "head", "rightArm", "leftArm" }
local UPPER = { "torso", "head", "rightArm", "leftArm" }

-- A clip of `length` seconds with a rotation key every 1/15 s on each of
-- `joints` (and root's position), its values a smooth function of k.
local function clip(name, length, loop, joints, k)
  local t = { length = length, loop = loop, joints = {} }
  local keys = math.floor(length * 15 + 0.5)
  for j, name_j in ipairs(joints) do
    local rot, pos = {}, {}
    for i = 0, keys do
      local x = i / keys * length
      local s = math.sin(2 * math.pi * i / keys + j + k)
      rot[#rot + 1] = { x, { 20 * s, 10 * k * s, 5 * j * s } }
      if name_j == "root" then pos[#pos + 1] = { x, { 0, 0.05 * s, 0 } } end
    end
    t.joints[name_j] = { rotation = rot, position = name_j == "root" and pos or nil }
  end
  return assert(anim.clip(t, name))
end
local CLIPS = {
  idle = clip("idle", 2, "loop", ALL, 1), walk = clip("walk", 1, "loop", ALL, 2), run = clip("run", 0.6, "loop", ALL, 3),
  jump = clip("jump", 0.5, "once", ALL, 4), fall = clip("fall", 0.8, "loop", ALL, 5),
  wave = clip("wave", 1.2, "loop", UPPER, 6), point = clip("point", 1.5, "loop", UPPER, 7),
}

-- The graph: 2 layers, 8 states, 20 transitions ------------------------------------------

local function when(...) return { ... } end
local GRAPH = { version = 1,
  parameters = { speed = { type = "float", default = 0 }, pace = { type = "float", default = 1 },
    grounded = { type = "bool", default = true }, gesture = { type = "int", default = 0 },
    jump = { type = "trigger" }, wave = { type = "trigger" } },
  mix = { ["*->jump"] = 0.05, ["run->*"] = 0.3, ["*"] = 0.2 },
  layers = {
    { name = "base", entry = "idle",
      states = { idle = { clip = "idle" }, walk = { clip = "walk", speed_parameter = "pace" },
        run = { clip = "run", speed_parameter = "pace" }, jump = { clip = "jump", loop = "once" },
        fall = { clip = "fall" } },
      transitions = {
        { from = "idle", to = "run", when = { when("speed", ">", 2.5) } },
        { from = "idle", to = "walk", when = { when("speed", ">", 0.1) } },
        { from = "walk", to = "idle", when = { when("speed", "<=", 0.1) } },
        { from = "walk", to = "run", when = { when("speed", ">", 2.5) }, sync = true },
        { from = "run", to = "walk", when = { when("speed", "<=", 2.5), when("speed", ">", 0.1) }, sync = true },
        { from = "run", to = "idle", when = { when("speed", "<=", 0.1) } },
        { from = "any", to = "jump", when = { when("jump"), when("grounded", "==", true) } },
        { from = "any", to = "fall", when = { when("grounded", "==", false) }, interrupt = "destination" },
        { from = "jump", to = "idle", exit_time = 0.9, when = { when("speed", "<=", 0.1) } },
        { from = "jump", to = "walk", exit_time = 0.9, when = { when("speed", "<=", 2.5) } },
        { from = "jump", to = "run", exit_time = 0.9 },
        { from = "fall", to = "idle", when = { when("grounded"), when("speed", "<=", 0.1) }, duration = 0.1 },
        { from = "fall", to = "walk", when = { when("grounded"), when("speed", "<=", 2.5) }, duration = 0.1 },
        { from = "fall", to = "run", when = { when("grounded") }, duration = 0.1 },
      } },
    { name = "upper", entry = "none", mask = UPPER,
      states = { none = { empty = true }, wave = { clip = "wave" }, point = { clip = "point" } },
      transitions = {
        { from = "none", to = "wave", when = { when("wave") } },
        { from = "none", to = "point", when = { when("gesture", "==", 2) } },
        { from = "wave", to = "none", exit_time = 2 },
        { from = "wave", to = "point", when = { when("gesture", "==", 2) } },
        { from = "point", to = "none", when = { when("gesture", "!=", 2) } },
        { from = "any", to = "none", when = { when("grounded", "==", false) }, duration = 0.1 },
      } },
  } }
local graph = assert(anim.graph(GRAPH, CLIPS))
do -- (the figures are for this shape: keep it when editing the graph)
  local ntr, nst = 0, 0
  for _, l in ipairs(GRAPH.layers) do
    ntr = ntr + #l.transitions
    for _ in pairs(l.states) do nst = nst + 1 end
  end
  assert(#GRAPH.layers == 2 and nst == 8 and ntr == 20, "the graph must keep 2 layers, 8 states, 20 transitions")
end

-- The controlled characters and their script of inputs ------------------------------------

local ctl_list, ctls = {}, {}
for i = 1, N do
  local a = anim.animator(rig)
  ctls[i] = a:control(graph)
  ctl_list[i] = a
end

-- script[f]: the inputs before frame f, flat: controller, method ("set"
-- or "fire"), name, value.  Each character acts every 0.4 to 1.6 x
-- --every seconds (its first act within the first 1.6 x --every); a fall lasts 0.3 to 0.7 s (its landing is
-- in the script even when past the run's end: frame 600 then).
local script = {}
for f = 1, FRAMES do script[f] = {} end
math.randomseed(args.seed)
local function act(f, c, method, name, v)
  local s = script[math.min(f, FRAMES)]
  s[#s + 1], s[#s + 2], s[#s + 3], s[#s + 4] = c, method, name, v
end
local nacts = 0
for i = 1, N do
  local c, t = ctls[i], math.random() * 1.6 * args.every
  local speed, gesture = 0, 0
  while not args.quiet do
    local f = math.floor(t / DT) + 1
    if f > FRAMES then break end
    local x = math.random()
    if x < 0.4 then
      local choices = { 0, 1.2, 4 }
      local v
      repeat v = choices[math.random(3)] until v ~= speed
      speed = v
      act(f, c, "set", "speed", v)
    elseif x < 0.55 then act(f, c, "fire", "jump", false)
    elseif x < 0.65 then
      act(f, c, "set", "grounded", false)
      act(f + math.random(18, 42), c, "set", "grounded", true)
      t = t + 0.7
    elseif x < 0.8 then act(f, c, "fire", "wave", false)
    elseif x < 0.95 then
      gesture = gesture == 2 and 0 or 2
      act(f, c, "set", "gesture", gesture)
    else act(f, c, "set", "pace", 0.8 + 0.5 * math.random()) end
    nacts = nacts + 1
    t = t + args.every * (0.4 + 1.2 * math.random())
  end
end

local function inputs(f)
  local s = script[f]
  for k = 1, #s, 4 do
    local c = s[k]
    if s[k + 1] == "fire" then c:fire(s[k + 2]) else c:set(s[k + 2], s[k + 3]) end
  end
end

-- A run of the controlled set is frames f0 .. f1 of the script.
local opts = { threads = 1 }
local function run_ctl(f0, f1)
  for f = f0, f1 do
    inputs(f)
    anim.update(ctl_list, DT, opts)
  end
end
local function run_plain(list, f0, f1)
  for _ = f0, f1 do anim.update(list, DT, opts) end
end

-- Transitions and tracks: an untimed run of the script, reading every
-- controller between frames.
local function census()
  local cur = {}
  for i = 1, N do
    cur[2 * i - 1], cur[2 * i] = ctls[i]:current(1), ctls[i]:current(2)
  end
  local transitions, tracks = 0, 0
  for f = 1, FRAMES do
    run_ctl(f, f)
    for i = 1, N do
      local b, u = ctls[i]:current(1), ctls[i]:current(2)
      if b ~= cur[2 * i - 1] then transitions = transitions + 1 end
      if u ~= cur[2 * i] then transitions = transitions + 1 end
      cur[2 * i - 1], cur[2 * i] = b, u
      tracks = tracks + #ctl_list[i]:tracks()
    end
  end
  return transitions, tracks / (FRAMES * N)
end

-- warm-up: a run, then a run read
run_ctl(1, FRAMES)
local transitions, tracks_ctl = census()

-- The snapshot: the first frame of the next run after which the
-- characters hold as many tracks as on average over the run read (within
-- 0.2 %; else the run's last frame).
local function live_tracks()
  local n = 0
  for i = 1, N do n = n + #ctl_list[i]:tracks() end
  return n
end
local snap = FRAMES
for f = 1, FRAMES do
  run_ctl(f, f)
  if math.abs(live_tracks() - N * tracks_ctl) <= math.max(0.002 * N * tracks_ctl, 0.5) then
    snap = f
    break
  end
end

-- The plain set: each character's tracks now, copied and held.
local LAYER_OF = { wave = 1, point = 1 }
local plain_list, plain_tracks = {}, 0
for i = 1, N do
  local b = anim.animator(rig)
  for _, t in ipairs(ctl_list[i]:tracks()) do
    local c = t.clip
    local name = c.name
    if CLIPS[name] == c then
      local w = t.weight * t.fade
      local u = b:play(c, { fade = 0, weight = w, speed = t.speed, priority = LAYER_OF[name] or 0,
        loop = name == "jump" and "hold" or "loop" })
      u.time = t.time
      plain_tracks = plain_tracks + 1
    end
  end
  plain_list[i] = b
end
run_ctl(snap + 1, FRAMES)

-- --grind under callgrind: a run of each set, counted, each dumped to its
-- own file (1: controlled, 2: plain)
if args.grind then
  run_plain(plain_list, 1, FRAMES)
  grind.toggle()
  run_ctl(1, FRAMES)
  grind.toggle()
  grind.dump("graph: controlled")
  grind.toggle()
  run_plain(plain_list, 1, FRAMES)
  grind.toggle()
  grind.dump("graph: plain")
  os.exit(0)
end

run_plain(plain_list, 1, FRAMES)

-- The timed rounds ------------------------------------------------------------------------

local function clock_for(t) return t > 1 and wallclock.now or os.clock end
for _, t in ipairs(args.allocs and {} or counts) do
  opts.threads = t
  local clock = clock_for(t)
  local tc, tp, ratios = {}, {}, {}
  run_ctl(1, FRAMES)
  run_plain(plain_list, 1, FRAMES)
  for r = 1, args.rounds do
    local c, p = 0, 0
    for s = 1, FRAMES // SLICE do
      local f0, f1 = (s - 1) * SLICE + 1, s * SLICE
      for turn = 1, 2 do
        local t0 = clock()
        if (r + s + turn) % 2 == 0 then
          run_ctl(f0, f1)
          c = c + clock() - t0
        else
          run_plain(plain_list, f0, f1)
          p = p + clock() - t0
        end
      end
    end
    local per = 1e9 / (FRAMES * N)
    tc[r], tp[r], ratios[r] = c * per, p * per, c / p
  end
  local lo, hi = math.huge, -math.huge
  for _, x in ipairs(ratios) do lo, hi = math.min(lo, x), math.max(hi, x) end
  print(string.format('{"workload":"graph","n":%d,"layers":2,"states":8,"transitions":20,"threads":%d,"rounds":%d,'
    .. '"slice_frames":%d,"ctl_ns":%.1f,"plain_ns":%.1f,"ctl_over_plain":%.3f,"ratio_min":%.3f,"ratio_max":%.3f,'
    .. '"every":%g,"inputs_per_frame":%.1f,"transitions_per_frame":%.1f,"tracks_ctl":%.3f,"tracks_plain":%.3f,"clock":"%s"%s}',
    N, t, args.rounds, SLICE, median(tc), median(tp), median(ratios), lo, hi, args.every, nacts / FRAMES, transitions / FRAMES,
    tracks_ctl, plain_tracks / N, t > 1 and "monotonic" or "os.clock", args.quiet and ',"quiet":true' or ""))
  io.stdout:flush()
end

-- Allocations -----------------------------------------------------------------------------

if args.allocs then
  opts.threads = 1
  local counted = has_memstat and memstat.calls() ~= nil
  local function calls() return counted and memstat.calls() or nil end
  local function fmt(x, f) return x and string.format(f or "%.2f", x) or "null" end
  collectgarbage("collect")
  collectgarbage("stop")
  -- quiet: no input for 180 frames (every fade over, every wave's exit
  -- time passed), then 120 frames counted and checked for transitions
  run_plain(ctl_list, 1, 180)
  local before = {}
  for i = 1, N do before[2 * i - 1], before[2 * i] = ctls[i]:current(1), ctls[i]:current(2) end
  local kb0, c0 = collectgarbage("count"), calls()
  run_plain(ctl_list, 1, 120)
  local q_bytes, q_calls = (collectgarbage("count") - kb0) * 1024, c0 and calls() - c0
  local q_trans = 0
  for i = 1, N do
    if ctls[i]:current(1) ~= before[2 * i - 1] then q_trans = q_trans + 1 end
    if ctls[i]:current(2) ~= before[2 * i] then q_trans = q_trans + 1 end
  end
  collectgarbage("restart")
  collectgarbage("collect")
  collectgarbage("stop")
  -- driven: the script, frame by frame, transitions counted between frames
  -- (outside the count)
  local bytes, ncalls, ntrans = 0, 0, 0
  for i = 1, N do before[2 * i - 1], before[2 * i] = ctls[i]:current(1), ctls[i]:current(2) end
  for f = 1, FRAMES do
    local k1, m1 = collectgarbage("count"), calls()
    run_ctl(f, f)
    bytes = bytes + (collectgarbage("count") - k1) * 1024
    if m1 then ncalls = ncalls + calls() - m1 end
    for i = 1, N do
      local b, u = ctls[i]:current(1), ctls[i]:current(2)
      if b ~= before[2 * i - 1] then ntrans = ntrans + 1 end
      if u ~= before[2 * i] then ntrans = ntrans + 1 end
      before[2 * i - 1], before[2 * i] = b, u
    end
  end
  collectgarbage("restart")
  print(string.format('{"workload":"graph-allocs","n":%d,"quiet_frames":120,"quiet_transitions":%d,'
    .. '"quiet_lua_bytes_per_frame":%.1f,"quiet_malloc_calls_per_frame":%s,"frames":%d,"transitions":%d,'
    .. '"lua_bytes_per_transition":%.1f,"malloc_calls_per_transition":%s,"tool":"%s"}',
    N, q_trans, q_bytes / 120, fmt(q_calls and q_calls / 120), FRAMES, ntrans, bytes / math.max(ntrans, 1),
    fmt(counted and ncalls / math.max(ntrans, 1)), counted and "LD_PRELOAD malloc_count.so" or "none"))
  if q_trans == 0 and (q_bytes > 0 or (q_calls or 0) > 0) then
    io.stderr:write("graph.lua: frames with no transition allocated\n")
    os.exit(1)
  end
end
