-- spec/memory_spec.lua: what an animator and its tracks keep in the core,
-- by the bytes the core takes from the state's allocator (build/failalloc.so
-- counts every block through it: the core's are those Lua's own count does
-- not see).  docs/performance.md ("Memory a character") gives W1's figures.
local anim = require "anim"
local H = require "spec.helper"

local ok_fa, fa = pcall(require, "failalloc")

-- A rig of n joints and a clip of every one (30 linear position keys and
-- 30 quaternion rotation keys each, at other times: W1's shape).
local function rig_and_clip(n)
  local rj, joints = {}, {}
  for j = 1, n do
    rj[j] = { name = "j" .. j }
    local rot, pos = {}, {}
    for k = 0, 29 do
      local a = (k * 0.37 + j) % 1
      rot[#rot + 1] = { k / 15, { 0, math.sin(a), 0, math.cos(a) } }
      pos[#pos + 1] = { k / 15 + 0.01, { k * 0.1, j, 0 } }
    end
    joints["j" .. j] = { rotation = rot, position = pos }
  end
  return assert(anim.rig { joints = rj }),
    assert(anim.clip({ version = 3, length = 2, loop = "loop", joints = joints }, "c" .. n))
end

-- The bytes the core took during fn(), by failalloc's count less Lua's
-- (the collector stopped: no finalizer frees a block meanwhile).
local jit = rawget(_G, "jit")
local function core_bytes(fn)
  local got
  -- (LuaJIT's compiler takes memory Lua's count does not show: off here)
  if jit then jit.off(); jit.flush() end
  collectgarbage()
  collectgarbage("stop")
  fa.pcall(0, false, function()
    local l0, k0 = fa.live(), collectgarbage("count")
    fn()
    got = fa.live() - l0 - (collectgarbage("count") - k0) * 1024
  end)
  collectgarbage("restart")
  if jit then jit.on() end
  return got
end

describe("memory", function()
  it("counts the core's bytes with build/failalloc.so", function()
    assert.is_true(ok_fa, "build/failalloc.so is missing: `make test` builds it (tests/c/failalloc.c)")
  end)
  if not ok_fa then return end

  -- (per joint: the difference between rigs of 20 and 220 joints, over 200;
  -- the structs' own bytes cancel out)
  local small_rig, small_clip = rig_and_clip(20)
  local big_rig, big_clip = rig_and_clip(220)

  it("an animator keeps its pose a joint: 81 bytes (no scratch of the blend, the world or the skinning)", function()
    local keep = {}
    local function animators(rig)
      return core_bytes(function() for _ = 1, 10 do keep[#keep + 1] = anim.animator(rig) end end) / 10
    end
    local per_joint = (animators(big_rig) - animators(small_rig)) / 200
    -- 10 doubles and a byte of animated flags
    assert.is_true(per_joint <= 82, "an animator takes " .. per_joint .. " bytes a joint")
  end)

  it("a track of a clip that needs no cold cursor nor retargeting keeps 29 bytes a binding", function()
    local keep = {}
    local function tracks(rig, clip)
      local as = {}
      for i = 1, 10 do as[i] = anim.animator(rig) end
      return core_bytes(function() for i = 1, 10 do keep[#keep + 1] = as[i]:play(clip, { fade = 0 }) end end) / 10
    end
    local per_binding = (tracks(big_rig, big_clip) - tracks(small_rig, small_clip)) / 200
    -- 3 hot cursors, its clip joint, its rig joint, the next binding of that
    -- joint (ints), whether it is adjusted (a byte), the rig joint's binding
    assert.is_true(per_binding <= 30, "a track takes " .. per_binding .. " bytes a binding")
  end)

  it("makes the world transforms' block at the first world read; out of memory there raises", function()
    -- the block: 10 doubles a joint (200 joints more, 200 such more), made
    -- once (differences of two rigs: what Lua itself keeps of a call, which
    -- its count of bytes misses on some runtimes, cancels out)
    local function reads(rig)
      local w = anim.animator(rig) -- (what a first read makes of Lua's: not measured)
      w:update(0)
      w:world_transform(1)
      w:pose_into({}, "world")
      local b = anim.animator(rig)
      b:update(0)
      return core_bytes(function() b:world_transform(1) end),
        core_bytes(function() b:update(0); b:world_transform(1) end), core_bytes(function() b:pose_into({}, "world") end)
    end
    local f1, u1, p1 = reads(small_rig)
    local f2, u2, p2 = reads(big_rig)
    assert.are.same({ 200 * 80, 0, 0 }, { f2 - f1, u2 - u1, p2 - p1 })
    -- its allocation fails: the read raises, and nothing is lost
    local a = anim.animator(small_rig)
    a:play(small_clip, { fade = 0 })
    a:update(0.3)
    local fresh = anim.animator(small_rig)
    fresh:play(small_clip, { fade = 0 })
    fresh:update(0.3)
    local want = { fresh:world_transform("j20") }
    local _, ok, err = fa.pcall(1, false, function() return a:world_transform("j20") end)
    assert.is_false(ok)
    assert.matches("not enough memory", err)
    assert.are.same(want, { a:world_transform("j20") })
  end)

  it("makes the skinning's block at the first skinning; out of memory there raises", function()
    local fresh = anim.animator(small_rig)
    fresh:play(small_clip, { fade = 0 })
    fresh:update(0.3)
    local want, got = {}, {}
    fresh:skin(want)
    -- the block: a 3x4 matrix of doubles a joint (200 joints more, 200
    -- such more), made once
    local function first_skin(rig)
      anim.animator(rig):skin({}) -- (what the rig makes at its first skinning: not measured)
      local b = anim.animator(rig)
      b:update(0)
      local out = {}
      for i = 1, 12 * #rig:joints() do out[i] = 0 end -- (the table's own growth is Lua's)
      local bytes = core_bytes(function() b:skin(out) end)
      return bytes, core_bytes(function() b:update(0); b:skin(out) end)
    end
    -- (within 1%: under busted a first skinning also shows a few bytes
    -- more, 64 to 192, which a plain script does not)
    local s1, again1 = first_skin(small_rig)
    local s2, again2 = first_skin(big_rig)
    local more = s2 - s1
    assert.is_true(math.abs(more - 200 * 96) <= 192, "the skinning's block grew by " .. more .. " bytes for 200 joints")
    assert.are.equal(0, again2 - again1)
    -- its allocation fails: the skinning raises, and nothing is lost
    local a = anim.animator(small_rig)
    a:play(small_clip, { fade = 0 })
    a:update(0.3)
    local _, ok, err = fa.pcall(1, false, function() return a:skin(got) end)
    assert.is_false(ok)
    assert.matches("not enough memory", err)
    a:skin(got)
    assert.is_nil(H.bitdiff(want, got))
    -- a skin target whose block cannot be made is not set: the next
    -- update neither writes it nor fails
    local bd = require "bytedata" -- (build/bytedata.so: a stand-in for LÖVE's ByteData)
    local c = anim.animator(small_rig)
    c:play(small_clip, { fade = 0 })
    local target = bd.new(4 * 12 * #small_rig:joints())
    target:fill(-7)
    local _, ok2, err2 = fa.pcall(1, false, function() return c:skin_target(target) end)
    assert.is_false(ok2)
    assert.matches("not enough memory", err2)
    anim.update({ c }, 0.3)
    assert.are.equal(-7, target:float(0))
  end)

  it("makes a batch's first skinning block before the update: out of memory leaves the animator as it was", function()
    local bd = require "bytedata"
    local c = assert(anim.clip({ version = 3, length = 2, loop = "loop", joints = { j1 = { rotation = {
      { 0, { 0, 0, 0, 1 } }, { 2, { 0, 1, 0, 0 } } } } }, markers = { { time = 0.1, name = "step" } } }, "m"))
    local shared = bd.new(4 * 12 * #small_rig:joints())
    local function update(a) return anim.update({ a }, 0.2, { skin = shared }) end
    -- each allocation of the update failing in turn (Lua's own are retried
    -- after a collection): where the skinning's fails, the animator has not
    -- moved, and its next update plays the time and hears the marker
    local n = fa.pcall(0, false, update, anim.animator(small_rig))
    local skinning = 0
    for k = 1, n do
      local a, heard = anim.animator(small_rig), {}
      a:on_marker(function(_, name) heard[#heard + 1] = name end)
      local t = a:play(c, { fade = 0 })
      local _, ok, err = fa.pcall(k, false, update, a)
      if not ok and t.time == 0 then
        -- (before 5.4 Lua's own allocations may fail too: "not enough memory")
        assert.matches("^not enough memory", err)
        if err == "not enough memory for the callback queue or the skinning" then skinning = skinning + 1 end
        assert.are.same({}, heard)
        update(a)
        assert.are.equal(0.2, t.time)
        assert.are.same({ "step" }, heard)
      end
    end
    assert.is_true(skinning >= 1, "no failing allocation left the animator as it was")
  end)
end)
