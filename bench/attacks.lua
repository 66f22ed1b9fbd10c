-- bench/attacks.lua: the figures of issue 19 (docs/robustness.md).  The peak
-- resident memory over the churn of defect 6 (animators of a 4,096-joint
-- rig made and dropped), and the CPU time of the worst update and the worst
-- import among the hostile inputs of the review, each made here as the
-- review describes it.  Prints a table, then one JSON line; exits non-zero
-- when an input takes more than the budget (0.5 s) or the churn more than
-- 64 MiB.
--   make build && LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='build/?.so;;' lua5.4 bench/attacks.lua [churn]
local anim = require "anim"
local cjson = require "cjson"
local compat = require "anim.base.compat"
local hostile = require "bench.hostile"

local BUDGET, CHURN_MB = 0.5, 64
local churn = tonumber(arg and arg[1]) or 1000

local function rss()
  for line in io.lines("/proc/self/status") do
    local kb = line:match("^VmRSS:%s+(%d+)")
    if kb then return tonumber(kb) / 1024 end
  end
end

local rows, worst = {}, { update = { 0 }, import = { 0 } }
local function measure(kind, name, fn)
  collectgarbage()
  local t0 = os.clock()
  fn()
  local dt = os.clock() - t0
  rows[#rows + 1] = { kind, name, dt }
  if dt > worst[kind][1] then worst[kind] = { dt, name } end
end

-- Defect 6: the churn -------------------------------------------------------------
local joints = {}
for i = 1, 4096 do joints[i] = { name = "j" .. i, parent = i > 1 and "j" .. (i - 1) or nil } end
local big = assert(anim.rig { joints = joints })
collectgarbage()
local before, peak = rss(), 0
local t0 = os.clock()
for _ = 1, churn do
  anim.animator(big):update(1 / 60) -- (1.6 MB of the core's each, dropped at once)
  peak = math.max(peak, rss())
end
local churn_s = os.clock() - t0

-- Updates --------------------------------------------------------------------------
local player = anim.rig("player")
do -- defect 2: two tracks of 4,000 markers at the same times, speed 1e15
  local markers = {}
  for i = 1, 4000 do markers[i] = { time = i / 4000, name = "m" } end
  local c = assert(anim.clip { loop = "loop", length = 1, markers = markers, joints = {} })
  local a = anim.animator(player)
  local n = 0
  a:on_marker(function() n = n + 1 end)
  a:play(c, { speed = 1e15, fade = 0 })
  a:play(c, { speed = 1e15, fade = 0 })
  measure("update", "2: 504,000 tied markers in one update", function() a:update(1) end)
  assert(n == 504000)
end
do -- defect 7: a list of keys 1, 2, 4 ... 2^26 (raw length 2^26)
  local list = {}
  for p = 26, 1, -1 do list[compat.tointeger(2 ^ p)] = anim.animator(player) end
  list[1] = anim.animator(player)
  measure("update", "7: anim.update of a raw length of 2^26", function() assert(not pcall(anim.update, list, 0.1)) end)
end
do -- defect 8: a plays item of a missing clip, 64 passes per update
  local lib = assert(anim.library("."))
  local a = anim.animator(player, { library = lib })
  a:play(assert(anim.clip { loop = "loop", length = 1, joints = {}, plays = { { time = 0.5, clip = "res://missing.anim" } } }),
    { fade = 0, speed = 1e6 })
  measure("update", "8: 10 updates of 64 passes of a missing plays clip", function()
    for _ = 1, 10 do pcall(a.update, a, 1) end
  end)
end
do -- defect 9: a table shared at every level of 25
  local t = { v = 1 }
  for _ = 1, 25 do t = { a = t, b = t } end
  measure("import", "9: anim.clip of a DAG 25 levels deep", function() assert(not anim.clip({ joints = {}, extra = t })) end)
end

-- Imports --------------------------------------------------------------------------
local pad = string.rep(" ", 80000)
measure("import", "4: XML attribute padded with 80,000 spaces", function()
  anim.decode_xml(hostile.xml("1" .. pad .. "x", "0"), "p.xml")
end)
do
  local d = hostile.entities(4) .. hostile.xml("1&e4;x", "1&e4;")
  measure("import", "4: a " .. #d .. "-byte XML file of entities", function() anim.decode_xml(d, "e.xml") end)
end
do
  local text = hostile.bedrock(24, 100, "math.sin(q.anim_time*2292)*20")
  measure("import", "3: a " .. #text .. "-byte Bedrock file of 24 fast channels", function()
    anim.decode_blockbench(text, "k.json")
  end)
  text = hostile.bedrock(3, 100, hostile.molang_terms())
  measure("import", "5: a 1.8 KB Molang expression baked", function() anim.decode_blockbench(text, "m.json") end)
  text = hostile.bezier_bbmodel()
  measure("import", "10: a .bbmodel of 1e300 bezier handles", function() anim.decode_blockbench(text, "b.bbmodel") end)
end

do -- issue 35, 7: a FIFO given to anim.load, refused at once (open(2) waited for a writer: for ever)
  local dir = os.tmpname()
  os.remove(dir)
  if compat.execute("mkdir " .. dir .. " && mkfifo " .. dir .. "/x.anim 2>/dev/null") then
    measure("import", "35: anim.load and five importers of a FIFO", function()
      for _, f in ipairs { anim.load, anim.load_retarget, anim.import_aseprite, anim.import_blockbench, anim.import_xml,
        anim.import_gltf } do
        assert(not f(dir .. "/x.anim"))
      end
    end)
  end
  os.execute("rm -rf " .. dir)
end
do -- issue 35, 8: a valid 15.7 MB Aseprite sheet of 320,000 frames and a ping-pong tag over them (7.8 s before).
  -- Not a hostile input: its bound is a few times the decoding of its JSON (8: it reads 4 to 6 times a warm
  -- decoding on a loaded machine, the decoding being 0.16 to 0.5 s), not the 0.5 s
  local text = hostile.aseprite_pingpong(320000)
  collectgarbage()
  local t = os.clock()
  cjson.decode(text)
  local decode = os.clock() - t
  worst.sheet = { 0 }
  measure("sheet", string.format("35: a %.1f MB Aseprite sheet (budget 8 x JSON's %.2f s)", #text / 1e6, decode),
    function() assert(anim.decode_aseprite(text, "s.json")) end)
  rows[#rows][4] = 8 * decode
end

-- Report ---------------------------------------------------------------------------
local failed = false
print(string.format("%-8s %-58s %8s", "kind", "input", "CPU s"))
for _, r in ipairs(rows) do
  local over = r[3] > (r[4] or BUDGET) -- (r[4]: a row's own budget)
  failed = failed or over
  print(string.format("%-8s %-58s %8.3f%s", r[1], r[2], r[3], over and "  OVER BUDGET" or ""))
end
local grown = peak - before
failed = failed or grown > CHURN_MB
print(string.format("churn: %d animators of a 4,096-joint rig made and dropped in %.2f s: peak resident memory %.0f MiB"
  .. " above the start (%.0f MiB)", churn, churn_s, grown, peak))
print(cjson.encode { workload = "attacks", churn = churn, churn_peak_rss_growth_mb = grown, churn_seconds = churn_s,
  worst_update_s = worst.update[1], worst_update = worst.update[2], worst_import_s = worst.import[1],
  worst_import = worst.import[2], budget_s = BUDGET })
os.exit(failed and 1 or 0)
