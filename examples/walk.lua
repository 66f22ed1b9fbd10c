-- examples/walk.lua: load a clip, show what it holds, and sample its pose.
-- Run with `make demo`.
local anim = require "anim"

local here = arg and arg[0] and arg[0]:match("^(.*)/[^/]*$") or "examples"
local clip = assert(anim.load(here .. "/clips/walk.anim"))

print(string.format("walk.anim: %g s, loop %s, priority %g, euler %s",
  clip.length, clip.loop, clip.priority, clip.euler))
print("joints: " .. table.concat(clip:joints(), ", "))
for _, m in ipairs(clip:markers()) do
  print(string.format("  marker %-5s at %.2f s  value %s", m.name, m.time, tostring(m.value)))
end

-- A rotation quaternion as the angle it turns about x, in degrees.
local function pitch(q) return math.deg(2 * math.atan(q[1], q[4])) end

print("\n  time   rightLeg  leftLeg  rightArm  torso y")
for i = 0, 8 do
  local t = i / 8
  local pose = clip:sample(t)
  print(string.format("  %.3f  %7.2f°  %7.2f°  %7.2f°   %.4f", t,
    pitch(pose.rightLeg.rotation), pitch(pose.leftLeg.rotation),
    pitch(pose.rightArm.rotation), pose.torso.position[2]))
end

-- A bad clip gives nil and a message naming the field.
local _, err = anim.decode('{"joints": {"rightLeg": {"rotation": [[0, [1, 2]]]}}}', "broken.anim")
print("\nloading a broken clip: " .. err)
