-- bench/beyond.lua: what a frame with property channels, joint overrides
-- and a sprite-frame track allocates in steady play (issue 23): one
-- animator on the player rig plays a body clip with 4 property channels
-- (glow, tint of 3 components, alpha, sway of 2, one track of them
-- additive), a sprite-frame track (Aseprite's `frame`, from
-- examples/clips/slime.json) and has 2 overrides whose fields the script
-- sets every frame from tables it reuses; every frame it updates, reads
-- the 5 properties and the pose.
--
--   lua5.4 bench/beyond.lua [--runs R] [--frames F]
--
-- One JSON line: ns per frame (median of R runs of F frames, os.clock),
-- the Lua heap bytes per frame and, under
-- LD_PRELOAD=build/bench/malloc_count.so (bench/allocs.lua runs it so),
-- the malloc calls per frame of 60 frames with the collector stopped.
local anim = require "anim"

local args = { runs = 5, frames = 20000 }
for i = 1, #arg, 2 do
  local k = arg[i]:match("^%-%-(%w+)$")
  if k then args[k] = tonumber(arg[i + 1]) end
end

local here = arg[0]:match("^(.*)/[^/]*$") or "."
local body = assert(anim.clip{ length = 2, loop = "loop", joints = {
  head = { rotation = { { 0, { 0, -20, 0 } }, { 1, { 0, 20, 0 } }, { 2, { 0, -20, 0 } } } },
  rightArm = { rotation = { { 0, { -30, 0, 0 } }, { 1, { 30, 0, 0 }, "sine" }, { 2, { -30, 0, 0 } } } },
}, properties = {
  glow = { { 0, 0 }, { 1, 1, "quad" }, { 2, 0 } },
  tint = { { 0, { 1, 1, 1 } }, { 1, { 1, 0.2, 0.2 } }, { 2, { 1, 1, 1 } } },
  alpha = { keys = { { 0, 1 }, { 2, 0.5 } }, modifiers = { { type = "noise", strength = 0.1 } } },
} })
local sway = assert(anim.clip{ length = 1, loop = "pingpong", blend = "additive", joints = {},
  properties = { sway = { { 0, { 0, 0 } }, { 1, { 0.3, -0.1 }, "sine", { ease = "inOut" } } } } })
local sprites = assert(anim.import_aseprite(here .. "/../examples/clips/slime.json"))

local a = anim.animator(anim.rig("player"))
a:play(body, { fade = 0.2 })
a:play(sway, { fade = 0.2, weight = 0.5 })
a:play(sprites.idle, { fade = 0 })
local look = a:override("head", { mode = "add", rotation = { 0, 0, 0, 1 }, weight = 0.8 })
local recoil = a:override("rightArm", { position = { 0, 0, 0 }, weight = 0.5 })
local q, p = { 0, 0, 0, 1 }, { 0, 0, 0 }

local sink = 0
local function frame(i)
  local s = math.sin(i * 0.01) * 0.2
  q[2], q[4] = s, 1
  look.rotation = q
  p[3] = -s
  recoil.position = p
  a:update(1 / 60)
  local g = a:property("glow")
  local r, gr, b = a:property("tint")
  local al = a:property("alpha")
  local sx, sy = a:property("sway")
  local f = a:property("frame")
  local px = a:get("head")
  sink = sink + g + r + gr + b + al + sx + sy + f + px
end

for i = 1, 600 do frame(i) end -- warm up
local times = {}
for r = 1, args.runs do
  local t0 = os.clock()
  for i = 1, args.frames do frame(i) end
  times[r] = os.clock() - t0
end
table.sort(times)
local med = times[math.floor((args.runs + 1) / 2)]

local has_memstat, memstat = pcall(require, "bench.memstat")
local function malloc_calls() return has_memstat and memstat.calls() or nil end
collectgarbage("collect")
collectgarbage("stop")
for i = 1, 60 do frame(i) end -- (a full collection shrinks the stack: grown back once)
local kb0, calls0 = collectgarbage("count"), malloc_calls()
for i = 1, 60 do frame(i) end
local alloc = (collectgarbage("count") - kb0) * 1024 / 60
local mcalls = calls0 and (malloc_calls() - calls0) / 60
collectgarbage("restart")
assert(sink == sink)
print(string.format('{"workload":"beyond","what":"4 property channels, 2 overrides, a sprite-frame track","runs":%d,'
  .. '"frames":%d,"ns_per_frame":%.1f,"lua_alloc_bytes_per_frame":%.1f,"malloc_calls_per_frame":%s,"clock":"os.clock"}',
  args.runs, args.frames, med / args.frames * 1e9, alloc, mcalls and string.format("%.2f", mcalls) or "null"))
