-- random_clips.lua: the random clips and blend spaces of the specs that
-- compare two ways of playing the same scene bit for bit
-- (spec/batch_bits_spec.lua and spec/threads_spec.lua through spec/scenes.lua,
-- spec/state_spec.lua), from a generator r
-- (r(n): 1..n; r(): [0, 1)).
local anim = require "anim"

local M = {}

M.JOINTS = { "root", "torso", "head", "rightArm", "leftArm", "rightLeg", "leftLeg" }
local INTERPS = { "linear", "step", "catmullrom", "bezier", "sine", "quad", "back", "elastic" }
local LOOPS = { "loop", "once", "hold", "pingpong" }

-- A random clip from the generator r (r(n): 1..n; r(): [0, 1)).
function M.clip(r, name)
  local length = 0.2 + 2 * r()
  local joints = {}
  for _, j in ipairs(M.JOINTS) do
    if r() < 0.6 then
      local jt = {}
      local function keys(arity, quat)
        local out, t = {}, 0
        for _ = 1, r(5) do
          local v = {}
          if quat then
            local a = (r() - 0.5) * 3
            v = { math.sin(a) * 0.6, math.sin(a) * 0.8, 0, math.cos(a) }
          else
            for k = 1, arity do v[k] = (r() - 0.5) * (k == 1 and 90 or 2) end
          end
          out[#out + 1] = { t, v, INTERPS[r(#INTERPS)] }
          t = t + r() * length / 2
        end
        return out
      end
      if r() < 0.7 then jt.rotation = keys(3, r() < 0.4) end
      if r() < 0.5 then jt.position = keys(3) end
      if r() < 0.3 then
        jt.scale = keys(3)
        for _, k in ipairs(jt.scale) do for a = 1, 3 do k[2][a] = 1 + k[2][a] / 4 end end
      end
      if r() < 0.2 then jt.weight = r() end
      joints[j] = jt
    end
  end
  local markers = {}
  for i = 1, r(4) - 1 do markers[i] = { time = r() * length, name = "m" .. i } end
  local props = {}
  if r() < 0.5 then props.glow = { { 0, r() }, { length * r(), 4 * r(), INTERPS[r(#INTERPS)] }, { length, r() } } end
  if r() < 0.3 then props.tint = { { 0, { r(), r(), r() } }, { length, { r(), r(), r() }, INTERPS[r(#INTERPS)] } } end
  return assert(anim.clip({
    length = length, loop = LOOPS[r(#LOOPS)], joints = joints, markers = markers, properties = props,
    priority = r(3) - 1, blend = r() < 0.15 and "additive" or "normal",
  }, name))
end

-- Blend spaces of the pool's clips: 1D and 2D, synced when the clips
-- allow it, each markers mode.
function M.spaces(r, clips)
  local out = {}
  for k = 1, 4 do
    local pts, dim = {}, k <= 2 and 1 or 2
    local n = dim == 1 and 2 + r(2) or 3 + r(3)
    local loop = nil
    local same = true
    local first = clips[r(#clips)]
    for i = 1, n do
      local c = i == 1 and first or clips[r(#clips)]
      if c.blend ~= first.blend then c = first end -- (one blend mode a space)
      loop = loop or c.loop
      same = same and c.loop == loop
      pts[i] = { clip = c, at = dim == 1 and i + r() / 2 or { i % 3 + r() / 2, math.floor(i / 3) + r() / 2 } }
    end
    out[k] = anim.blendspace { points = pts, sync = same and k % 2 == 1, markers = ({ "dominant", "all", "none" })[k] }
  end
  return out
end

return M
