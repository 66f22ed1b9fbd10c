-- The single-animator path (animator:update) and the batch path
-- (anim.update) must pose bit for bit the same (issue 16): random scenes
-- (spec/scenes.lua), every number of every joint compared by its bits (%a:
-- -0 and 0 differ), and the callbacks of both in the same order.
local anim = require "anim"
local H = require "spec.helper"
local S = require "spec.scenes"

local scene, bits = S.scene, S.bits

describe("animator:update and anim.update pose bit for bit the same", function()
  local map = assert(anim.decode_retarget(S.retarget))
  -- six scenes in make test, forty more in make test-long; under valgrind
  -- (make memcheck) the first two: each takes 40 s there, and make asan
  -- runs all six with the core checked
  for seed = 1, 46 do
    local test = (H.valgrind and seed > 2 and seed <= 6) and pending or it
    test((seed > 6 and "#long " or "") .. "on random scene " .. seed, function()
      local r = math.random
      local clips, spaces = S.pool(1000 + seed, 8)
      local log_one, log_batch = {}, {}
      local one, tone = scene(seed, 12, clips, map, log_one, spaces)
      local batch, tbatch = scene(seed, 12, clips, map, log_batch, spaces)
      math.randomseed(seed)
      for frame = 1, 120 do
        local dt = ({ 0, 1 / 60, 0.1, 1 / 30, 0.7 })[r(5)]
        for _, a in ipairs(one) do a:update(dt) end
        anim.update(batch, dt)
        for i = 1, #one do
          assert(bits(one[i]) == bits(batch[i]), string.format("frame %d, animator %d differs", frame, i))
        end
        if frame % 17 == 0 then -- the same changes to both, between updates
          local i = r(#one)
          local k = r(#tone[i])
          tone[i][k]:stop(0.1); tbatch[i][k]:stop(0.1)
          -- (a track that ended takes no control: the two sides end together)
          if H.live(tone[i][1]) then tone[i][1]:adjust_speed(-1); tbatch[i][1]:adjust_speed(-1) end
          if H.live(tone[i][k]) then
            for _, t in ipairs { tone[i][k], tbatch[i][k] } do
              if anim.is_blendspace(t.clip) then t.at = t.clip.dimensions == 1 and 0.5 or { 1, 0.5 } end
            end
            local c = tone[i][k]:crossfade(clips[1 + frame % #clips], 0.2)
            tone[i][#tone[i] + 1] = c
            tbatch[i][#tbatch[i] + 1] = tbatch[i][k]:crossfade(clips[1 + frame % #clips], 0.2)
          end
        end
      end
      assert.is_true(#log_one > 0)
      assert.are.same(log_one, log_batch)
    end)
  end
end)
