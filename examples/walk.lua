-- examples/walk.lua: a small game loop.  The player rig walks with a
-- looping clip; after a second an action clip (a wave of the right arm, on
-- a higher priority) fades in, and a second later it fades out again.
-- Markers and events print as they fire.  Run with `make demo`.
local anim = require "anim"
local compat = require "anim.base.compat"

local here = arg and arg[0] and arg[0]:match("^(.*)/[^/]*$") or "examples"
local walk = assert(anim.load(here .. "/clips/walk.anim"))
local wave = assert(anim.load(here .. "/clips/wave.anim"))

print(string.format("walk.anim: %g s, %s, priority %g, joints %s", walk.length, walk.loop, walk.priority,
  table.concat(walk:joints(), ", ")))
print(string.format("wave.anim: %g s, %s, priority %g, mask %s\n", wave.length, wave.loop, wave.priority,
  table.concat(wave.mask, ", ")))

local player = anim.animator(anim.rig("player"))
local clock = 0

player:on_marker(function(track, name, value, late)
  print(string.format("%6.3f  marker %-5s %-6s from %s", clock - late, name, value or "", track.clip.name))
end)
player:on_event(function(_, name, payload, late)
  print(string.format("%6.3f  event  %s (size %g)", clock - late, name, payload.size))
end)

player:play(walk, { fade = 0.2 })
local waving

-- Rotation about z and x of a joint's world transform, in degrees.
local function angles(joint)
  local _, _, _, qx, _, qz, qw = player:world_transform(joint)
  return math.deg(2 * compat.atan2(qz, qw)), math.deg(2 * compat.atan2(qx, qw))
end

local dt = 1 / 20
for frame = 1, 60 do
  -- this update runs from `now` to `clock`; callbacks say how late they are
  local now = (frame - 1) * dt
  clock = frame * dt
  if frame == 21 then
    waving = player:play(wave, { fade = 0.25 })
    waving:on_stopped(function(_, late) print(string.format("%6.3f  wave stopped", clock - late)) end)
    waving:on_ended(function(_, late) print(string.format("%6.3f  wave ended (faded out)", clock - late)) end)
    print(string.format("%6.3f  play wave (fade 0.25)", now))
  elseif frame == 41 then
    waving:stop(0.3)
    print(string.format("%6.3f  stop wave (fade 0.3)", now))
  end
  player:update(dt)
  if frame % 5 == 0 then
    local roll = angles("rightArm")
    local _, leg = angles("rightLeg")
    local _, y = player:world_transform("torso")
    print(string.format("%6.3f    right arm roll %7.2f°  right leg pitch %6.2f°  torso y %.3f", clock, roll, leg, y))
  end
end
