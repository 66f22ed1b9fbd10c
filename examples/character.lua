-- examples/character.lua: a character that walks or runs by its speed, moves
-- by root motion and looks at a lamp.  Its locomotion is a 1D blend space of
-- a walk and a run placed at the speeds they move at (the parameter is the
-- speed wanted); the two clips move the rig's root forward, and the
-- animator takes that motion out of the pose (root_joint = "root") and
-- hands it to the game each update, which moves the character by it; an aim
-- constraint turns the head toward the lamp it passes.  Footsteps are
-- markers of both clips: the space fires only those of the clip that weighs
-- most (its `markers` option, "dominant" by default), one step per foot
-- wherever the speed is; the callback's last argument is the clip that
-- fired.  Run with `make character`.
local anim = require "anim"
local compat = require "anim.base.compat"

-- A stride of the player rig: the root moves `distance` forward (+z) over
-- one cycle, the legs swing by `swing` degrees, a footstep at each half.
local function stride(name, length, distance, swing)
  local h = length / 2
  return assert(anim.clip({
    length = length, loop = "loop", priority = "movement",
    joints = {
      root = { position = { { 0, { 0, 0, 0 } }, { length, { 0, 0, distance } } } },
      rightLeg = { rotation = { { 0, { swing, 0, 0 }, "sine", { ease = "inOut" } }, { h, { -swing, 0, 0 }, "sine", { ease = "inOut" } },
                                { length, { swing, 0, 0 } } } },
      leftLeg = { rotation = { { 0, { -swing, 0, 0 }, "sine", { ease = "inOut" } }, { h, { swing, 0, 0 }, "sine", { ease = "inOut" } },
                               { length, { -swing, 0, 0 } } } },
    },
    markers = { { time = 0, name = name .. "_step", value = "right" }, { time = h, name = name .. "_step", value = "left" } },
  }, name))
end

local walk = stride("walk", 1.0, 1.4, 25)  -- 1.4 blocks a second
local run = stride("run", 0.6, 2.4, 50)    -- 4 blocks a second
local locomotion = anim.blendspace { name = "locomotion", points = { { clip = walk, at = 1.4 }, { clip = run, at = 4 } } }

local hero = anim.animator(anim.rig("player"), { root_joint = "root" })
local moving = hero:play(locomotion, { at = 1.4, fade = 0 })
local clock, steps = 0, 0
hero:on_marker(function(_, name, value, late, clip)
  steps = steps + 1
  if steps <= 3 or steps % 4 == 0 then
    print(string.format("%6.3f  %s %-5s (footstep %d of the %s)", clock - late, name, value, steps, clip.name))
  end
end)

local lamp = { 4, 2, 24 }       -- in the world; the character starts at the origin facing +z
local look = hero:aim { joint = "head", target = lamp, forward = { 0, 0, 1 } }

local x, z = 0, 0               -- where the game has the character
local dt = 1 / 60
for frame = 1, 360 do
  clock = frame * dt
  -- the speed the game wants: walking for a second, then speeding up to a run
  local speed = clock < 1 and 1.4 or math.min(4, 1.4 + (clock - 1) * 1.3)
  moving.at = speed
  -- the lamp seen from where the character stands (the constraint's target
  -- is in the rig's space)
  look:set_target(lamp[1] - x, lamp[2], lamp[3] - z)
  hero:update(dt)
  if frame % 30 == 0 then
    local w = locomotion:weights(speed)
    local hx, hy, hz, qx, qy, qz, qw = hero:world_transform("head")
    -- the head's forward axis, and how far it is off the lamp
    local fx = 2 * (qx * qz + qw * qy)
    local fy = 2 * (qy * qz - qw * qx)
    local fz = 1 - 2 * (qx * qx + qy * qy)
    local tx, ty, tz = lamp[1] - x - hx, lamp[2] - hy, lamp[3] - z - hz
    local cx, cy, cz = fy * tz - fz * ty, fz * tx - fx * tz, fx * ty - fy * tx
    local off = math.deg(compat.atan2(math.sqrt(cx * cx + cy * cy + cz * cz), fx * tx + fy * ty + fz * tz))
    print(string.format("%6.3f    speed %.2f (walk %.2f, run %.2f)  moving %.2f blocks/s  at z %6.3f  head yaw %6.1f°, %.0e° off the lamp",
      clock, speed, w[1], w[2], select(3, hero:root_motion()) / dt, z, math.deg(compat.atan2(fx, fz)), off))
  end
  -- the game moves the character by the root motion of the update
  local dx, _, dz = hero:root_motion()
  x, z = x + dx, z + dz
end
print(string.format("after %.1f s: %d footsteps, %.3f blocks forward, %.3f sideways", clock, steps, z, x))
