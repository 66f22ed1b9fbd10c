-- animator:restore fed hostile states (issue 35): a multiplayer game
-- restores states other players send.  Each is done or refused with nil
-- and a message naming the field, in bounded work (counted: the library's
-- entries, the blend spaces made, Lua instructions; or CPU time against
-- the budgets of docs/robustness.md where the work is the core's) and
-- bounded memory, and a refusal leaves the animator as it was.  (States
-- the module wrote after play at the extremes: spec/state_spec.lua.)
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local compat = require "anim.base.compat"
local cjson = require "cjson"

local rig = anim.rig("player")
local bounded = H.bounded
-- (the budget of docs/robustness.md for a hostile input: 0.5 s of CPU)
local function quick(what, fn, ...) return H.quick(0.5, what, fn, ...) end

local count = H.count

local lib = assert(anim.library("examples/clips"))
local walk = assert(lib:clip("res://walk.anim"))
local wave = assert(lib:clip("res://wave.anim"))

-- A state of one animator, as a peer would send it (through JSON).
local function saved(setup)
  local a = anim.animator(rig, { library = lib })
  setup(a)
  a:update(0.1)
  return cjson.decode(cjson.encode(a:state()))
end

local function one_walk(a) a:play(walk) end

-- `n` copies of the state's first track, ids 1 to n (the last refused
-- when `refuse`), each given to each(r, i).
local function copies(s, n, each, refuse)
  local t = s.tracks[1]
  s.tracks = {}
  s.animator.next_id = tostring(n + 1)
  for i = 1, n do
    local r = cjson.decode(cjson.encode(t))
    r.id = tostring(i)
    if each then each(r, i) end
    s.tracks[i] = r
  end
  if refuse then s.tracks[n].time = "nan" end
  return s
end

-- An animator playing, and a check that a refusal left it as it was.
local function victim()
  local b = anim.animator(rig, { library = lib })
  local t = b:play(wave, { weight = 0.5 })
  b:update(0.25)
  local before = b:state()
  return b, function()
    assert.are.same({ t }, b:tracks())
    assert.are.same(before, b:state())
  end
end

-- Restores s, changed by change(s), into a playing animator: nil and the
-- message want, the animator as it was.
local function refused(s, change, want)
  change(s)
  local b, same = victim()
  local ok, msg = b:restore(s)
  assert.is_nil(ok)
  assert.are.equal(want, msg)
  same()
end

describe("a hostile state given to animator:restore", function()
  it("naming one file in ever new spellings keeps one entry in the library, and memory bounded (defect 4)", function()
    local l = assert(anim.library("examples/clips"))
    local b = anim.animator(rig, { library = l })
    local s = saved(one_walk)
    local kb
    -- (the heap is measured from after the first round: LuaJIT's grows by
    -- about 300 KiB in the first rounds of any such work, and no more)
    for round = 1, 4 do
      if round == 2 then
        collectgarbage()
        collectgarbage()
        kb = collectgarbage("count")
      end
      local hostile = copies(cjson.decode(cjson.encode(s)), 1000, function(r, i)
        -- (res://./x/./walk.anim, res://.//./walk.anim, ...: the bits of
        -- round * 1000 + i, "./" or "/" each)
        local p, k = {}, round * 1000 + i
        while k > 0 do p[#p + 1] = k % 2 == 1 and "./" or "/"; k = math.floor(k / 2) end
        r.clip = "res://./" .. table.concat(p) .. "walk.anim"
      end, true)
      local ok, msg = b:restore(hostile)
      assert.is_nil(ok)
      assert.are.equal("state.tracks[1000].time: must be a finite number", msg)
    end
    -- (every spelling was kept for good: 4,000 entries here, 185 MB for
    -- eight states of 9,990 spellings of 900 bytes)
    assert.are.same({ "res://walk.anim" }, (function()
      local keys = {}
      for k in pairs(l.cache.clip.path) do keys[#keys + 1] = k end
      return keys
    end)())
    collectgarbage()
    collectgarbage()
    assert.is_true(collectgarbage("count") - kb < 256, "the Lua heap grew by " .. (collectgarbage("count") - kb) .. " KiB")
    -- every spelling is still the one clip
    assert.are.equal(walk, lib:clip("res://.//./walk.anim"))
  end)

  it("naming a file with more than 64 '.' or empty segments is refused at once (defect 4)", function()
    local s = copies(saved(one_walk), 1000, function(r, i)
      r.clip = "res://" .. string.rep(".//", 1000 + i) .. "walk.anim"
    end)
    local b, same = victim()
    -- (each spelling of 3 kB was read through by patterns: 0.15 ms each)
    local ok, msg = bounded(1, function() return b:restore(s) end)
    assert.is_nil(ok)
    local shown = ("res://" .. string.rep(".//", 1001)):sub(1, 197) .. "... (3018 bytes)"
    assert.are.equal("state.tracks[1].clip: cannot load clip '" .. shown .. "': " .. shown
      .. ": refused: the path holds more than 64 '.' or empty segments", msg)
    same()
  end)

  it("naming files that fail keeps at most 1 MiB of their paths and messages in the library (defect 4)", function()
    local l = assert(anim.library("examples/clips"))
    local long = string.rep("d/", 1500)
    for i = 1, 600 do assert.is_nil(l:clip("res://" .. long .. i .. ".anim")) end
    local bytes = 0
    for k, f in pairs(l.cache.clip.failed) do bytes = bytes + #k + #(f.why or f.msg) end
    assert.is_true(bytes <= 1024 * 1024, bytes .. " bytes kept")
    assert.is_true(count(l.cache.clip.failed) >= 200)
    -- the newest is kept, the oldest went
    assert.are.equal(l.cache.clip.failed["res://" .. long .. "600.anim"] ~= nil, true)
    assert.is_nil(l.cache.clip.failed["res://" .. long .. "1.anim"])
  end)

  it("naming files through links to the root in ever new ways keeps at most 4,096 of them (defect 4)", function()
    local dir = H.tmpdir()
    H.write(dir .. "/a.anim", '{"length": 1, "joints": {}}')
    os.execute("ln -s . " .. dir .. "/x && ln -s . " .. dir .. "/y")
    local l = assert(anim.library(dir))
    local first = assert(l:clip("res://a.anim"))
    for i = 1, 5000 do
      -- (res://y/a.anim, res://x/y/a.anim, ...: the bits of i, each a key of its own)
      local p, k = {}, i
      while k > 0 do p[#p + 1] = k % 2 == 1 and "x/" or "y/"; k = math.floor(k / 2) end
      assert.are.equal(first, l:clip("res://" .. table.concat(p) .. "a.anim"))
    end
    assert.is_true(count(l.cache.clip.path) <= 4096, count(l.cache.clip.path) .. " keys kept")
    os.execute("rm -rf " .. dir)
  end)

  it("of 6,000 property names of one 5 kB prefix restores in n log n, and writes back (defect 5)", function()
    local s = saved(function() end)
    local prefix = string.rep("x", 5000)
    for i = 1, 6000 do s.properties[i] = { name = prefix .. string.format("%08d", 6001 - i), value = { "0x1p+0" } } end
    local b = anim.animator(rig)
    -- (a linear search of the names: 6 s; 16 s for 9,998)
    assert(quick("the restore", b.restore, b, s))
    local again = quick("the state", b.state, b)
    assert.are.equal(6000, #again.properties)
    assert.are.equal(prefix .. "00000001", again.properties[1].name)
    assert.are.same({ 1 }, { b:property(prefix .. "00004242") })
  end)

  it("holding a property only ended tracks gave refuses a clip of another number of components, as the saved animator does", function()
    local once = assert(anim.clip({ length = 0.1, loop = "once", joints = {},
      properties = { glow = { { 0, { 1, 2, 3 } }, { 0.1, { 1, 2, 3 } } } } }, "once"))
    local one = assert(anim.clip({ length = 1, loop = "loop", joints = {}, properties = { glow = { { 0, 5 }, { 1, 6 } } } }, "one"))
    local a = anim.animator(rig)
    a:play(once, { fade = 0 })
    a:update(0.5)
    local b = anim.animator(rig)
    assert(b:restore(a:state(), function(n) return n == "once" and once or one end))
    local ok_a, err_a = pcall(a.play, a, one)
    local ok_b, err_b = pcall(b.play, b, one)
    assert.is_false(ok_a)
    -- (it played, and the next update blended 3 components of a 1-component track)
    assert.is_false(ok_b)
    assert.are.equal(err_a:gsub("^.-:%d+: ", ""), err_b:gsub("^.-:%d+: ", ""))
    a:update(0.1)
    b:update(0.1)
    assert.is_true(pcall(b.play, b, one))
  end)

  describe("of tracks of 64-point 2D blend spaces (defect 5; bench/attacks.lua times 156 of them)", function()
    local c = assert(anim.clip({ length = 1, loop = "loop", joints = {} }, "c"))
    local spaces = require "anim.runtime.blendspace"
    local function circle(r)
      local pts = {}
      for i = 1, 64 do
        local t = 2 * math.pi * i / 64
        pts[i] = { clip = c, at = { r * math.cos(t), r * math.sin(t) } }
      end
      return pts
    end
    local function state_of(distinct)
      local a = anim.animator(rig)
      local shared = anim.blendspace { points = circle(1), name = "s" }
      for k = 1, 24 do
        a:play(distinct and anim.blendspace { points = circle(k), name = "s" .. k } or shared, { at = { 0, 0 } })
      end
      a:update(0.1)
      return a:state()
    end
    -- the spaces restore makes, counted
    local function made(fn)
      local new, n = spaces.new, 0
      spaces.new = function(...) n = n + 1; return new(...) end
      local ok, r1, r2 = pcall(fn)
      spaces.new = new
      assert(ok, r1)
      return n, r1, r2
    end
    local function resolve() return c end

    it("a refusal at the last track makes none of the spaces", function()
      local s = state_of(true)
      s.tracks[24].points[63].time = "inf"
      local b, same = victim()
      -- (all 23 were made first: 156 took 2.4 s)
      local n, ok, msg = made(function() return b:restore(s, resolve) end)
      assert.is_nil(ok)
      assert.are.equal("state.tracks[24].points[63].time: must be a finite number", msg)
      assert.are.equal(0, n)
      same()
    end)

    it("one space in every track is made once", function()
      local b = anim.animator(rig)
      local shared = state_of(false)
      local n = made(function() assert(b:restore(shared, resolve)) end)
      assert.are.equal(1, n)
      assert.are.equal(b:tracks()[1].clip, b:tracks()[24].clip)
      local s = state_of(true)
      n = made(function() assert(b:restore(s, resolve)) end)
      assert.are.equal(24, n)
    end)
  end)

  describe("with names of 10 MB of control bytes: a message of at most 200 bytes of each, and its length (defect 5)", function()
    local big = string.rep("\1", 10 * 1024 * 1024)
    local cases = {
      { "a clip name", function(s) s.tracks[1].clip = big end, "state.tracks[1].clip: cannot resolve clip '" },
      { "a res:// clip", function(s) s.tracks[1].clip = "res://" .. big end, "state.tracks[1].clip: cannot load clip 'res://" },
      { "a rig name", function(s) s.rig.name = big end, "state.rig: the state is of rig '" },
      { "a rig joint", function(s) s.rig.joints[2] = big end, "state.rig.joints[2]: '" },
      { "a field", function(s) s.tracks[1][big] = 1 end, "state.tracks[1]: unknown field '" },
      { "a track's state", function(s) s.tracks[1].state = big end,
        "state.tracks[1].state: must be one of pending, playing, queued, got '" },
      { "a side", function(s) s.side = big end, "state.side: the state is of a '" },
      { "a format", function(s) s.format = big end, "state.format: must be 'anim.state', got '" },
      { "a joint", function(s) s.overrides[1] = { id = "1", joint = big, mode = "add", weight = "0x0p+0" } end,
        "state.overrides[1].joint: no joint '" },
      { "a mode", function(s) s.overrides[1] = { id = "1", joint = "head", mode = big, weight = "0x0p+0" } end,
        "state.overrides[1].mode: must be 'replace' or 'add', got '" },
      { "a retarget map", function(s) s.tracks[1].retarget = big end, "state.tracks[1].retarget: cannot resolve retarget '" },
    }
    for _, case in ipairs(cases) do
      it("(" .. case[1] .. ")", function()
        local s = saved(one_walk)
        case[2](s)
        local b, same = victim()
        -- (the escaping of the whole name, function call by function call:
        -- 2 s and a 40 MB message)
        local ok, msg = bounded(2, function() return b:restore(s) end)
        assert.is_nil(ok)
        assert.are.equal(case[3], msg:sub(1, #case[3]))
        assert.is_truthy(msg:find("\\001\\001... (", 1, true), msg)
        assert.is_truthy(msg:find("(" .. #big .. " bytes)", 1, true) or msg:find("(" .. #big + 6 .. " bytes)", 1, true), msg)
        assert.is_true(#msg < 600, #msg .. " bytes")
        same()
      end)
    end

    it("(a message of the game's resolve that quotes the name)", function()
      local s = saved(one_walk)
      s.tracks[1].clip = big
      local b = anim.animator(rig)
      local ok, msg = bounded(2, function() return b:restore(s, function(n) error("no clip " .. n, 0) end) end)
      assert.is_nil(ok)
      assert.is_true(#msg < 800, #msg .. " bytes")
      assert.are.equal(2, select(2, msg:gsub("%(" .. #big + 8 .. " bytes%)", "")) + select(2, msg:gsub("%(" .. #big .. " bytes%)", "")))
    end)
  end)

  describe("with counts beyond what the core holds: nil and a message, never a raise (defect 9)", function()
    local function two(a)
      local q = a:play(walk)
      a:play(wave, { after = q })
      a:override("head", { position = { 1, 2, 3 } })
      a:aim { joint = "rightArm", target = { 1, 1, 1 } }
    end
    local LOOPS = "state.tracks[1].loops: must be an integer from 0 to 9223372036854775807 (a decimal string)"
    local cases = {
      { function(s) s.tracks[1].loops = "9223372036854775808" end, LOOPS },
      { function(s) s.tracks[1].loops = "184467440737095516160000" end, LOOPS },
      { function(s) s.tracks[1].loops = 2 ^ 63 end, LOOPS },
      { function(s) s.tracks[1].loops = 1e300 end, LOOPS },
      { function(s) s.tracks[1].loops = "00000000000000000000000000009223372036854775808" end, LOOPS },
      { function(s) s.tracks[1].loops = math.huge end, "state.tracks[1].loops: must be an integer >= 0 (a decimal string)" },
      { function(s) s.animator.seq = "4611686018427387905" end,
        "state.animator.seq: must be an integer from 0 to 4611686018427387904 (a decimal string)" },
      { function(s) s.animator.next_id = "9223372036854775807" end,
        "state.animator.next_id: must be an integer from 0 to 4611686018427387904 (a decimal string)" },
      { function(s) s.animator.overrides_next = "9223372036854775807" end,
        "state.animator.overrides_next: must be an integer from 0 to 4611686018427387904 (a decimal string)" },
      { function(s) s.tracks[2].id = "9223372036854775806" end,
        "state.tracks[2].id: must be an integer from 0 to 4611686018427387903 (a decimal string)" },
      { function(s) s.overrides[1].id = "9223372036854775807" end,
        "state.overrides[1].id: must be an integer from 1 to 4611686018427387903 (a decimal string)" },
      { function(s) s.constraints[1].id = 2 ^ 64 end,
        "state.constraints[1].id: must be an integer from 1 to 4611686018427387903 (a decimal string)" },
      -- (an id that is not below next_id is refused by the core)
      { function(s) s.tracks[2].id = "4611686018427387903"; s.animator.next_id = "4611686018427387903" end,
        "state.tracks[2].id: does not fit the rest of the state" },
    }
    for i, case in ipairs(cases) do
      it("(case " .. i .. ")", function() refused(saved(two), case[1], case[2]) end)
    end

    it("(the largest of each restores and writes back: loops 2^63 - 1, the clock 2^62, ids below)", function()
      local s = saved(two)
      s.tracks[1].loops = "9223372036854775807"
      s.animator.seq = "4611686018427387904"
      s.animator.next_id = "4611686018427387904"
      s.tracks[2].id = "4611686018427387903"
      -- (an override's handle keeps its id as a Lua number: exact to 2^53
      -- only on 5.1, 5.2 and LuaJIT, docs/runtimes.md)
      if compat.integers then
        s.overrides[1].id, s.animator.overrides_next = "4611686018427387903", "4611686018427387904"
      else
        s.overrides[1].id, s.animator.overrides_next = "9007199254740991", "9007199254740992"
      end
      s.constraints[1].id, s.animator.ik_next = "4611686018427387903", "4611686018427387903"
      local b = anim.animator(rig, { library = lib })
      assert(b:restore(s))
      assert.are.same(s, cjson.decode(cjson.encode(b:state())))
      for _ = 1, 10 do b:update(0.3) end
      assert.are.equal("4611686018427387903", b:state().tracks[1].id)
      b:play(walk)
      assert.are.equal("4611686018427387904", b:state().tracks[2].id)
    end)
  end)

  describe("with a queue that comes back to a track (defect 12)", function()
    local function queue(a)
      local t = a:play(walk)
      local u = a:play(wave, { after = t })
      a:play(walk, { after = u })
    end
    for _, case in ipairs {
      { "1 after 2, 2 after 1", function(s) s.tracks[1].after, s.tracks[1].state = 2, "queued"; s.tracks[3] = nil end,
        "state.tracks[1].after: the queue comes back to this track (2 tracks each waiting for another: none would ever start)" },
      { "1 after 3 after 2 after 1", function(s) s.tracks[1].after, s.tracks[1].state = 3, "queued" end,
        "state.tracks[1].after: the queue comes back to this track (3 tracks each waiting for another: none would ever start)" },
    } do
      it("(" .. case[1] .. ")", function() refused(saved(queue), case[2], case[3]) end)
    end

    it("(3,000 tracks in one ring: refused in linear work)", function()
      local s = copies(saved(one_walk), 3000, function(r, i) r.state, r.after = "queued", i % 3000 + 1 end)
      local b = anim.animator(rig, { library = lib })
      local ok, msg = bounded(25, function() return b:restore(s) end)
      assert.is_nil(ok)
      assert.are.equal("state.tracks[1].after: the queue comes back to this track (3000 tracks each waiting for another: none would ever start)", msg)
    end)
  end)
end)
