-- animator:restore fed hostile states (issue 35): a multiplayer game
-- restores states other players send.  Each is done or refused with nil
-- and a message naming the field, in bounded work (counted: the library's
-- entries, the blend spaces made, Lua instructions; or CPU time against
-- the budgets of docs/robustness.md where the work is the core's) and
-- bounded memory, and a refusal leaves the animator as it was.  (States
-- the module wrote after play at the extremes: spec/state_spec.lua.)
local anim = require "anim"
local H = require "spec.helper"
local cjson = require "cjson"

local rig = anim.rig("player")
-- (the budget of docs/robustness.md for a hostile input: 0.5 s of CPU)
local function quick(what, fn, ...) return H.quick(0.5, what, fn, ...) end

local function count(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end

local lib = assert(anim.library("examples/clips"))
local walk = assert(lib:clip("res://walk.anim"))

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

describe("a hostile state given to animator:restore", function()
  it("naming one file in ever new spellings keeps one entry in the library, and memory bounded (defect 4)", function()
    local l = assert(anim.library("examples/clips"))
    local b = anim.animator(rig, { library = l })
    local s = saved(one_walk)
    collectgarbage()
    collectgarbage()
    local kb = collectgarbage("count")
    for round = 1, 3 do
      local hostile = copies(cjson.decode(cjson.encode(s)), 1000, function(r, i)
        r.clip = "res://" .. string.rep(".//", 100) .. string.rep("./", round) .. string.rep("/", i) .. "walk.anim"
      end, true)
      local ok, msg = b:restore(hostile)
      assert.is_nil(ok)
      assert.are.equal("state.tracks[1000].time: must be a finite number", msg)
    end
    -- (every spelling was kept for good: 3,000 entries here, 146 MB for
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
      while k > 0 do p[#p + 1] = k % 2 == 1 and "x/" or "y/"; k = k // 2 end
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
end)
