-- anim.update(list, dt, { threads = n }) (issue 24): the poses are computed
-- on n threads, the callbacks delivered on the calling thread in list
-- order.  Random scenes (spec/scenes.lua) updated on one thread and on two
-- must pose bit for bit the same and log the same callbacks, with
-- callbacks that play and stop tracks; bad options are refused.
-- `make tsan` runs this file under ThreadSanitizer.
local anim = require "anim"
local H = require "spec.helper"
local S = require "spec.scenes"

-- A once clip of length (p + i % 3) / 10 with a property channel: the
-- tracks of the test below end on several updates, many at the same one.
local prop_clips = {}
local function prop_clip(i, p)
  local key = i % 3 .. ":" .. p
  prop_clips[key] = prop_clips[key] or assert(anim.clip({ length = (p + i % 3) / 10, loop = "once",
    joints = { root = { position = { { 0, { 0, 0, 0 } }, { 0.3, { 1, 0, 0 } } } } },
    properties = { glow = { { 0, p }, { 0.5, 2 * p } } } }, "prop" .. key))
  return prop_clips[key]
end

-- Updates scene one on one thread and scene two on two (or `threads`),
-- frame after frame (dt_of(frame) the step), comparing every animator's
-- bits each frame.
local function agree(one, two, frames, dt_of, threads)
  local many = { threads = threads or 2 }
  for frame = 1, frames do
    local dt = dt_of(frame)
    anim.update(one, dt, { threads = 1 })
    anim.update(two, dt, many)
    for i = 1, #one do
      assert(S.bits(one[i]) == S.bits(two[i]), string.format("frame %d, animator %d differs", frame, i))
    end
  end
end

describe("anim.update on threads", function()
  local map = assert(anim.decode_retarget(S.retarget))
  for seed = 1, 16 do
    it((seed > 4 and "#long " or "") .. "threads = 1 and threads = 2 agree on random scene " .. seed, function()
      local r = math.random
      local clips, spaces = S.pool(2000 + seed, 8)
      -- a callback that plays and stops tracks (the same on both scenes:
      -- it depends only on the animator, the marker and the count so far)
      local function changer()
        local count = 0
        return function(a, i, tr, name)
          count = count + 1
          if name == "m1" and count % 3 == 0 then tr:stop(0.05)
          elseif name == "m2" and count % 4 == 1 then a:play(clips[1 + (i + count) % #clips], { fade = 0.1 })
          elseif name == "m3" and H.live(tr) then tr:adjust_speed(-tr.speed) end
        end
      end
      local log1, log2 = {}, {}
      local one = S.scene(seed, 24, clips, map, log1, spaces, changer())
      local two = S.scene(seed, 24, clips, map, log2, spaces, changer())
      math.randomseed(seed)
      agree(one, two, 90, function() return ({ 0, 1 / 60, 0.1, 1 / 30, 0.7 })[r(5)] end)
      assert.is_true(#log1 > 0)
      assert.are.same(log1, log2)
    end)
  end

  -- The threads share a list out through anim_pool_next (csrc/core/pool.c):
  -- each starts on a stretch of its own, in order, and takes the back half
  -- of what another has left when its own is done (at least eight left),
  -- in whatever order the threads come.  On 3 and 5 threads (more than the
  -- processors) the stretches are uneven and the threads take from several.
  for _, threads in ipairs { 2, 3, 5 } do
    it("a list of 300: threads = 1 and threads = " .. threads .. " agree", function()
      local clips, spaces = S.pool(4242, 8)
      local log1, log2 = {}, {}
      local one = S.scene(42, 300, clips, nil, log1, spaces)
      local two = S.scene(42, 300, clips, nil, log2, spaces)
      agree(one, two, 20, function(frame) return frame % 3 == 0 and 0.1 or 1 / 60 end, threads)
      assert.is_true(#log1 > 100)
      assert.are.same(log1, log2)
    end)
  end

  it("more threads than animators, and the default, give the same bits", function()
    local clips, spaces = S.pool(77, 4)
    local logs, lists = {}, {}
    for k = 1, 3 do
      logs[k] = {}
      lists[k] = S.scene(5, 3, clips, nil, logs[k], spaces)
    end
    for _ = 1, 30 do
      anim.update(lists[1], 0.05, { threads = 1 })
      anim.update(lists[2], 0.05, { threads = 8 })
      anim.update(lists[3], 0.05)
      for i = 1, 3 do
        assert.are.equal(S.bits(lists[1][i]), S.bits(lists[2][i]))
        assert.are.equal(S.bits(lists[1][i]), S.bits(lists[3][i]))
      end
    end
    assert.are.same(logs[1], logs[2])
    assert.are.same(logs[1], logs[3])
  end)

  it("tracks with property channels that end on both threads at once (their shares freed there)", function()
    local rig = anim.rig("player")
    local lists = {}
    for k = 1, 2 do
      local list = {}
      for i = 1, 64 do
        local a = anim.animator(rig)
        for p = 1, 3 do
          a:play(prop_clip(i, p), { fade = 0 })
        end
        list[i] = a
      end
      lists[k] = list
    end
    for frame = 1, 12 do
      anim.update(lists[1], 0.1, { threads = 1 })
      anim.update(lists[2], 0.1, { threads = 2 })
      for i = 1, 64 do
        assert(S.bits(lists[1][i]) == S.bits(lists[2][i]), "frame " .. frame .. ", animator " .. i)
        assert.are.same({ pcall(lists[1][i].property, lists[1][i], "glow") },
          { pcall(lists[2][i].property, lists[2][i], "glow") })
      end
    end
    assert.are.same({}, lists[2][1]:tracks())
  end)

  it("refuses bad options with a suggestion, changing nothing", function()
    local rig = assert(anim.rig { joints = { { name = "j" } } })
    local list = { anim.animator(rig), anim.animator(rig) }
    local function msg(opts)
      local ok, err = pcall(anim.update, list, 0.1, opts)
      assert.is_false(ok)
      return err
    end
    assert.matches("bad argument #3 to 'update' %(unknown option 'thread'; did you mean 'threads'%?%)", msg { thread = 2 })
    assert.matches("threads must be an integer from 1 to 64, got 0", msg { threads = 0 })
    assert.matches("threads must be an integer from 1 to 64, got 1.5", msg { threads = 1.5 })
    assert.matches("threads must be an integer from 1 to 64, got string", msg { threads = "2" })
    assert.matches("threads must be an integer from 1 to 64, got 65", msg { threads = 65 })
    assert.matches("table of options expected, got number", msg(2))
  end)
end)
