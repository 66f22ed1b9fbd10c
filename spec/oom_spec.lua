-- spec/oom_spec.lua: out of memory at every allocation in turn (SQLite's
-- way).  build/failalloc.so (tests/c/failalloc.c, built by `make test`)
-- puts an allocator in front of the state's; the C core allocates through
-- the state's allocator, so its allocations fail too.  Each failure must
-- raise "not enough memory" -- never crash, leak or leave a half-built
-- object behind.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local compat = require "anim.base.compat"

local ok_fa, fa = pcall(require, "failalloc")

describe("out of memory", function()
  if H.jit then
    -- Debian 12's LuaJIT (2.1.0-beta3, git 2022-03-20) crashes with the
    -- compiler on when these allocations fail (a segmentation fault in
    -- LuaJIT's own code, called from a trace's machine code); LuaJIT
    -- fixed bugs of that kind after that version (github.com/LuaJIT/LuaJIT
    -- issues 906, "lj_err_mem() may corrupt Lua stack", and 1247, "OOM
    -- errors during GC step raising in the context of a JIT trace").  The module's C code is the same
    -- under the interpreter, so the spec runs there: the compiler off
    -- (and its traces flushed) for this file only (docs/runtimes.md).
    local jit = require "jit"
    setup(function() jit.off(); jit.flush() end)
    teardown(function() jit.on() end)
  end
  if not ok_fa then
    it("needs build/failalloc.so (make test builds it)", function()
      error("build/failalloc.so is missing: run `make test` (it builds tests/c/failalloc.c)")
    end)
    return
  end

  local text = H.read(H.root .. "/examples/clips/walk.anim")
  -- decoded once, outside the failures: lua-cjson (2.1.0) takes its own
  -- scratch buffer with malloc and loses it when an allocation fails in
  -- the middle of a decode -- its leak, not the module's (make asan sees
  -- it).  anim.clip reads the decoded table as anim.decode does.
  local doc = require("cjson").decode(text)
  local rig = anim.rig("player")

  -- load, play and update with callbacks (one by one, then in a batch),
  -- read the pose: returns what a host would look at
  local function scenario(host)
    local clip = assert(anim.clip(doc, "walk"))
    local a = anim.animator(rig)
    local seen = 0
    a:on_marker(function() seen = seen + 1 end)
    local tr = a:play(clip, { fade = 0.1 })
    host:play(clip, { weight = 0.5 })
    for _ = 1, 2 do a:update(0.3); host:update(0.3) end
    for _ = 1, 2 do anim.update({ a, host }, 0.3) end
    local pose = a:pose_into({}, "local")
    return seen, tr.time, pose
  end

  local function pose_ok(p)
    for _, v in pairs(p) do
      for i = 1, 10 do
        if v[i] ~= v[i] or math.abs(v[i]) == math.huge then return false end
      end
    end
    return true
  end

  -- The allocations a sweep fails, 1 to last: every one; under valgrind
  -- (make memcheck, where this file was the longest) the first 16 and
  -- every third after them (make test and make asan fail every one).
  local function points(last)
    local list = {}
    for n = 1, last do
      if not H.valgrind or n <= 16 or n % 3 == 0 then list[#list + 1] = n end
    end
    return list
  end

  -- fail allocation n (and, persistent, every one after it) for every n
  -- the scenario makes (points); returns how many runs failed
  local function sweep(persist, total, ref_seen, ref_time, scen)
    local failures, base = 0, nil
    for _, n in ipairs(points(total + 5)) do
      local host = anim.animator(rig)
      local _, ok, seen, time = fa.pcall(n, persist, scen, host)
      if ok then
        assert.are.equal(ref_seen, seen)
        assert.are.equal(ref_time, time)
      else
        failures = failures + 1
        assert.is_truthy(tostring(seen):find("not enough memory", 1, true),
          "allocation " .. n .. " failed with: " .. tostring(seen))
      end
      -- the host animator the failed step played on still works
      host:update(0.1)
      assert.is_true(pose_ok(host:pose_into({}, "world")), "allocation " .. n)
      for _, t in ipairs(host:tracks()) do
        assert.is_true(t.time >= 0 and t.time <= t.length)
      end
      -- half-built objects are collected without harm
      host = nil -- luacheck: ignore 311
      collectgarbage()
      collectgarbage()
      if n == 10 then base = fa.live() end
    end
    -- nothing leaked across all those failures (C memory included: it
    -- goes through the same allocator)
    collectgarbage()
    collectgarbage()
    assert.is_true(fa.live() - base < 64 * 1024, "live bytes grew by " .. (fa.live() - base))
    return failures
  end

  -- Both sweeps over a scenario: from allocation n on, everything fails
  -- (each run up to the last allocation raises); then only allocation n
  -- fails (Lua retries its own after an emergency collection; the core's
  -- fail): whatever happens stays consistent.  Under valgrind (make
  -- memcheck) the first only: the spec took a ninth of that run's time, and
  -- make test and make asan run both.
  local PERSIST = H.valgrind and { true } or { true, false }
  local function sweeps(scen)
    collectgarbage()
    local ref_seen, ref_time = scen(anim.animator(rig))
    assert.is_true(ref_seen > 0)
    local total = fa.pcall(0, false, scen, anim.animator(rig))
    assert.is_true(total > 50, "the scenario allocates (" .. total .. ")")
    local failures = sweep(true, total, ref_seen, ref_time, scen)
    -- (each of the points up to the last allocation fails)
    local upto = #points(total)
    assert.is_true(failures >= upto - 5, failures .. " failures of " .. upto)
    if PERSIST[2] ~= nil then sweep(false, total, ref_seen, ref_time, scen) end
  end

  it("fails every allocation in turn with a memory error, leaving everything usable", function()
    sweeps(scenario)
  end)

  -- Blend spaces, queued clips, cross-fades, root motion and constraints:
  -- the host plays a space, queues after it, reaches and aims
  local function gameplay(host)
    local walk = assert(anim.clip(doc, "walk"))
    local space = anim.blendspace { points = { { clip = walk, at = { 0, 0 } }, { clip = walk, at = { 1, 0 } },
      { clip = walk, at = { 0, 1 } } } }
    local a = anim.animator(rig, { root_motion = "root" })
    local seen = 0
    a:on_marker(function() seen = seen + 1 end)
    local tr = a:play(space, { at = { 0.2, 0.3 }, fade = 0.1 })
    a:play(walk, { after = tr, fade = 0.2 })
    a:two_bone_ik { root = "root", mid = "torso", tip = "head", target = { 0.5, 1.2, 0.3 }, pole = { 0, 1, 1 } }
    a:aim { joint = "rightArm", target = { 1, 1, 2 }, forward = { 0, -1, 0 }, up = { 0, 0, 1 } }
    local h = host:play(space, { at = { 0.5, 0.5 } })
    host.root_motion = "torso"
    host:aim { joint = "head", target = { 0, 2, 3 } }
    for _ = 1, 2 do a:update(0.3); host:update(0.3) end
    h:crossfade(walk, 0.1)
    tr.at = { 0.9, 0.05 }
    for _ = 1, 2 do anim.update({ a, host }, 0.3) end
    local pose = a:pose_into({}, "world")
    return seen, tr.time, pose
  end

  it("fails every allocation of blend spaces, queued clips, root motion and constraints in turn", function()
    sweeps(gameplay)
  end)

  -- Issue 23's pieces: property channels (their slots and each track's
  -- block), joint overrides and a hot reload (every track's new arrays,
  -- made before the content is swapped), at every allocation in turn.
  it("fails every allocation of property channels, overrides and a reload in turn, leaving everything usable", function()
    local pdoc = { length = 1, loop = "loop", joints = { head = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, 0, 0 } } } } },
      properties = { glow = { { 0, 0 }, { 1, 1 } }, tint = { { 0, { 1, 1, 1 } }, { 1, { 1, 0, 0 }, "sine" } } },
      markers = { { time = 0.5, name = "half" } } }
    local ndoc = { length = 2, loop = "loop", joints = { torso = { scale = { { 0, { 1, 1, 1 } }, { 2, { 2, 2, 2 } } } } },
      properties = { glow = { { 0, 5 } }, frame = { { 0, 1, "step" }, { 1, 2, "step" } } } }
    local function beyond(host)
      local clip = assert(anim.clip(pdoc, "p"))
      local a = anim.animator(rig)
      local seen = 0
      a:on_marker(function() seen = seen + 1 end)
      local tr = a:play(clip, { fade = 0.1 })
      host:play(clip, { weight = 0.5 })
      local h = a:override("head", { mode = "add", rotation = { 0, 0.1, 0, 1 }, weight = 0.5 })
      host:override("torso", { position = { 0, 1, 0 } })
      a:update(0.3); host:update(0.3)
      h.position = { 0, 0.5, 0 }
      assert(anim.reload(clip, ndoc))
      anim.update({ a, host }, 0.3)
      local glow = a:property("glow")
      return seen, tr.time, glow
    end
    local ref_seen, ref_time, ref_glow = beyond(anim.animator(rig))
    assert.are.equal(5, ref_glow)
    local total = fa.pcall(0, false, beyond, anim.animator(rig))
    assert.is_true(total > 50, "the scenario allocates (" .. total .. ")")
    for _, persist in ipairs(PERSIST) do
      for _, n in ipairs(points(total + 5)) do
        local host = anim.animator(rig)
        local _, ok, seen, time, glow = fa.pcall(n, persist, beyond, host)
        if ok then
          assert.are.same({ ref_seen, ref_time, ref_glow }, { seen, time, glow })
        else
          assert.is_truthy(tostring(seen):find("not enough memory", 1, true),
            "allocation " .. n .. " failed with: " .. tostring(seen))
        end
        host:update(0.1)
        assert.is_true(pose_ok(host:pose_into({}, "world")), "allocation " .. n)
        local okp, v = pcall(host.property, host, "glow")
        assert.is_true(not okp or v == nil or v == v, "allocation " .. n)
        for _, t in ipairs(host:tracks()) do
          assert.is_true(t.time >= 0 and t.time <= t.clip.length, "allocation " .. n)
        end
        host = nil -- luacheck: ignore 311
        collectgarbage()
        collectgarbage()
      end
    end
  end)

  -- The long tier (make test-long): the same sweeps over every example
  -- clip, retargeted, with the controls a script uses between updates.
  describe("#long at every allocation of", function()
    local map = assert(anim.load_retarget(H.root .. "/examples/clips/goblin.retarget"))
    local lib = assert(anim.library(H.root .. "/examples/clips")) -- (attack.anim plays spark.anim)
    local cjson = require "cjson"
    -- (the map's target: play refuses a clip none of whose joints it puts
    -- on the rig, so the retargeted animator is a goblin's)
    local goblin = assert(anim.rig { joints = {
      { name = "hips", position = { 0, 0.45, 0 } },
      { name = "spine", parent = "hips", position = { 0, 0.45, 0 } },
      { name = "head", parent = "spine", position = { 0, 0.9, 0 } },
      { name = "arm_l", parent = "spine", position = { 0.25, 0.8, 0 }, rotation = { 0, 90, 0 } },
      { name = "arm_r", parent = "spine", position = { -0.25, 0.8, 0 }, rotation = { 0, -90, 0 } },
      { name = "leg_l", parent = "hips", position = { 0.1, 0.45, 0 } },
      { name = "leg_r", parent = "hips", position = { -0.1, 0.45, 0 } },
    } })
    local function animator(r) return anim.animator(r or rig, { library = lib, warn = false }) end
    for _, file in ipairs(H.ls(H.root .. "/examples/clips", "%.anim$")) do
      local d = cjson.decode(H.read(H.root .. "/examples/clips/" .. file))
      it(file .. ", retargeted, stopped, seeked and re-weighted", function()
        local function long_scenario(host)
          local clip = assert(anim.clip(d, file))
          local a = animator(goblin)
          local seen = 0
          a:on_marker(function() seen = seen + 1 end)
          a:on_event(function() seen = seen + 1 end)
          local tr = a:play(clip, { fade = 0.1, retarget = map })
          local t2 = host:play(clip, { weight = 0.5, speed = -1 })
          a:update(0.2); host:update(0.2)
          -- (a short once clip may have ended: its track refuses controls)
          if H.live(tr) then tr:adjust_weight(0.5, 0.1) end
          if H.live(t2) then t2.time = 0.1 end
          t2:stop(0.2)
          for _ = 1, 3 do anim.update({ a, host }, 0.15) end
          local pose = a:pose_into({}, "world")
          return seen, tr.time, pose
        end
        local ref_seen, ref_time = long_scenario(animator())
        local total = fa.pcall(0, false, long_scenario, animator())
        for _, persist in ipairs(PERSIST) do
          for n = 1, total + 5 do
            local host = animator()
            local _, ok, seen, time = fa.pcall(n, persist, long_scenario, host)
            if ok then
              assert.are.equal(ref_seen, seen)
              assert.are.equal(ref_time, time)
            else
              assert.is_truthy(tostring(seen):find("not enough memory", 1, true),
                file .. ", allocation " .. n .. " failed with: " .. tostring(seen))
            end
            host:update(0.1)
            assert.is_true(pose_ok(host:pose_into({}, "world")), file .. ", allocation " .. n)
          end
        end
      end)
    end
  end)

  -- Lua retries an allocation of its own after an emergency collection;
  -- the binding does the same for the core's (a full collection frees what
  -- the finalizers of garbage hold), so that one failed allocation of a
  -- host's allocator that is short for a moment makes nothing fail.
  it("a single failed allocation while making clips, rigs, animators and tracks is retried: nothing fails", function()
    local function make()
      local clip = assert(anim.clip(doc, "walk"))
      local r = assert(anim.rig { joints = { { name = "torso" }, { name = "rightArm", parent = "torso" } } })
      local a = anim.animator(r)
      return a:play(clip)
    end
    local total = fa.pcall(0, false, make)
    assert.is_true(total > 50, "making them allocates (" .. total .. ")")
    -- (5.1 has no emergency collection: an allocation of Lua's own that
    -- fails raises "not enough memory" there; the core's are retried by
    -- the binding on every runtime, docs/runtimes.md)
    local emergency = compat.version >= 502
    local retried = 0
    for _, n in ipairs(points(total)) do
      local _, ok, err = fa.pcall(n, false, make)
      if emergency then
        assert(ok, "with allocation " .. n .. " of " .. total .. " failing: " .. tostring(err))
      else
        assert(ok or tostring(err):find("not enough memory", 1, true),
          "with allocation " .. n .. " of " .. total .. " failing: " .. tostring(err))
        if ok then retried = retried + 1 end
      end
    end
    if not emergency then assert.is_true(retried > 0, "no failed allocation was retried") end
  end)

  it("the core's own allocations go through the state's allocator", function()
    -- an animator of a big rig: its pose is the core's (10 doubles and a
    -- byte of flags a joint: over 800,000 bytes); the Lua side holds a few
    -- small tables
    local joints = {}
    for i = 1, 10000 do joints[i] = { name = "j" .. i } end
    local big = assert(anim.rig { joints = joints })
    collectgarbage()
    collectgarbage()
    local grown
    fa.pcall(0, false, function()
      local before = fa.live()
      local a = anim.animator(big)
      grown = fa.live() - before
      return a
    end)
    assert.is_true(grown > 8e5, "an animator of 10000 joints took " .. grown .. " bytes")
  end)

  it("fails every allocation of the scan for a name held twice in turn: a memory error or the answer, nothing kept",
    function()
      local core = require "anim.core"
      -- (names with escapes, decoded into the scan's arena; objects deep
      -- and wide enough to grow its lists)
      local parts = {}
      for i = 1, 40 do parts[i] = string.format('"k\\u00%02x%d": {"a": [1, {"b": 2}]}', 48 + i % 10, i) end
      local twice = '{"x": [{' .. table.concat(parts, ", ") .. ', "k11": 0}]}' -- (k11: the first, decoded)
      local want = { core.json_duplicate(twice) }
      assert.are.same({ { "x", 1 }, "k11", 1, 1 }, want)
      local total = fa.pcall(0, false, core.json_duplicate, twice)
      assert.is_true(total >= 5, "the scan allocates (" .. total .. ")")
      -- (what went wrong, kept to be asserted after the measure: the
      -- assertions' own bookkeeping is not the scan's)
      local wrong
      local function scans()
        for n = 1, total + 2 do
          for _, persist in ipairs(PERSIST) do
            local _, ok, path, name, l1, l2 = fa.pcall(n, persist, core.json_duplicate, twice)
            if ok == true then
              if not (name == "k11" and l1 == 1 and l2 == 1 and path[1] == "x" and path[2] == 1) then
                wrong = wrong or ("allocation " .. n .. ": another answer")
              end
            elseif not tostring(path):find("not enough memory", 1, true) then
              wrong = wrong or ("allocation " .. n .. ": " .. tostring(path))
            end
          end
        end
      end
      -- (the first sweep grows what Lua keeps for itself -- 4 KiB on 5.3
      -- -- the second must leave nothing: the scan's memory is Lua's)
      scans()
      collectgarbage()
      collectgarbage()
      local base = fa.live()
      scans()
      collectgarbage()
      collectgarbage()
      local grew = fa.live() - base
      -- the same failure ten times over, the collections left to Lua: on
      -- 5.3 a finalizer a collection could not run (memory short) lost
      -- its object, and the scan's blocks with it when a box's __gc was
      -- to free them (300 to 1,400 bytes a call)
      base = fa.live()
      for n = 1, total do
        for _ = 1, 10 do fa.pcall(n, true, core.json_duplicate, twice) end
      end
      collectgarbage()
      collectgarbage()
      local grew_again = fa.live() - base
      assert.is_nil(wrong)
      assert.is_true(grew < 256, "live bytes grew by " .. grew)
      assert.is_true(grew_again < 256, "live bytes grew by " .. grew_again .. " over repeated failures")
    end)
  it("fails every allocation of reading a file in turn, ten times over: no descriptor left open", function()
    local st = io.open("/proc/self/stat")
    if not st then return pending("needs /proc (Linux)") end
    st:close()
    -- In a child process, at the top of its stack, as a game's script
    -- reads, its collector never pausing: there a finalizer's call needs
    -- memory of its own, and when it cannot have it Lua drops the object
    -- unfinalized.  The descriptor was in a box a finalizer closed: 14 left
    -- open on 5.4.
    -- (a file larger than Lua's buffer on the C stack: the buffer grows)
    local dir = H.tmpdir()
    H.write(dir .. "/fds.lua", [[
if rawget(_G, "jit") then jit.off() end -- (as above: LuaJIT's compiler and failing allocations)
local fa = require "failalloc"
local core = require "anim.core"
local root = ...
local real = assert(core.realpath(root))
-- (those naming a file or folder of the checkout: the pipe of the popen
-- that lists them may be there or not, as the shell runs before or after
-- the popen closes its end; when it closes between ls's reading the
-- folder and its reading the link, ls says so on its error stream, which
-- is not the count's: dropped)
local function open_fds()
  local f = io.open("/proc/self/stat")
  local pid = f:read("*l"):match("^(%d+)")
  f:close()
  local p = io.popen("ls -l /proc/" .. pid .. "/fd 2>/dev/null")
  local n = 0
  for l in p:lines() do
    if l:find(" -> " .. real, 1, true) then n = n + 1 end
  end
  p:close()
  return n
end
-- (its size, not its text: a large heap would put the collections off
-- past the failures)
local f = io.open(root .. "/docs/performance.md", "rb")
local size = f:seek("end")
f:close()
local wrong
-- (each called by fa.pcall itself: a Lua function between would leave
-- the call's memory made by the count before the sweep)
local unpack = table.unpack or unpack
local reads = { { core.read_file, root .. "/docs/performance.md", 1e7 },
  { core.read_beneath, root, "docs/performance.md", 1e7 }, { core.read_file, root .. "/docs/performance.md", 10 } }
-- (the count sees a file of the checkout open)
local probe = assert(io.open(root .. "/docs/performance.md", "rb"))
assert(open_fds() == 1, "a file of the checkout open: not counted")
probe:close()
collectgarbage()
collectgarbage()
-- (a collector that never pauses: a step, and finalizers, at nearly every
-- allocation -- the failing ones' too)
if _VERSION == "Lua 5.4" then collectgarbage("incremental", 0, 400)
else collectgarbage("setpause", 0); collectgarbage("setstepmul", 400) end
local before = open_fds()
for _, read in ipairs(reads) do
  local total = fa.pcall(0, false, unpack(read))
  for n = 1, total + 1 do
    for _ = 1, 10 do
      local _, ok, got = fa.pcall(n, true, unpack(read))
      if ok == true and got ~= nil and #got ~= size then wrong = wrong or ("allocation " .. n .. ": other text") end
      if ok ~= true and not tostring(got):find("not enough memory", 1, true) then
        wrong = wrong or ("allocation " .. n .. ": " .. tostring(got))
      end
    end
  end
end
collectgarbage()
collectgarbage()
print(before, open_fds(), wrong)
]])
    local out, code = H.popen(string.format("%s %s %s 2>&1", H.lua, H.sq(dir .. "/fds.lua"), H.sq(H.root)))
    assert.are.equal(0, code, out)
    local before, after, wrong = out:match("^(%d+)\t(%d+)\t(%S+)\n$")
    assert.is_truthy(before, out)
    assert.are.equal("nil", wrong)
    assert.are.equal(before, after)
  end)
end)
