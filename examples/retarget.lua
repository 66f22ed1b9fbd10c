-- examples/retarget.lua: one clip on two rigs.  walk.anim was made on the
-- player rig; the goblin rig names its joints differently, is smaller, and
-- its arm bones rest twisted a quarter turn about their length (as bones
-- exported from other tools often are).  goblin.retarget maps the names,
-- scales positions and gives both arm rests, so the goblin's hands swing
-- forward and back in the world as the player's do; the last column plays
-- through a map with the names only, where the twisted arms swing sideways.
-- Run with `make retarget`.
local anim = require "anim"

local here = arg and arg[0] and arg[0]:match("^(.*)/[^/]*$") or "examples"
local walk = assert(anim.load(here .. "/clips/walk.anim"))
local map = assert(anim.load_retarget(here .. "/clips/goblin.retarget"))

local goblin = assert(anim.rig { joints = {
  { name = "hips", position = { 0, 0.45, 0 } },
  { name = "spine", parent = "hips", position = { 0, 0.45, 0 } },
  { name = "arm_l", parent = "spine", position = { 0.25, 0.8, 0 }, rotation = { 0, 90, 0 } },
  { name = "arm_r", parent = "spine", position = { -0.25, 0.8, 0 }, rotation = { 0, -90, 0 } },
  { name = "leg_l", parent = "hips", position = { 0.1, 0.45, 0 } },
  { name = "leg_r", parent = "hips", position = { -0.1, 0.45, 0 } },
} })

print("how walk.anim's joints land on the goblin:")
local b = walk:bindings(goblin, map)
for _, name in ipairs(walk:joints()) do
  print(string.format("  %-9s -> %-6s (%s)", name, b[name].joint or "-", b[name].by))
end

local names_only = assert(anim.decode_retarget([[{"version": 1, "scale": 0.6, "joints": {
  "torso": "spine", "leftArm": "arm_l", "rightArm": "arm_r", "leftLeg": "leg_l", "rightLeg": "leg_r"}}]], "names only"))

local player = anim.animator(anim.rig("player"))
local gob = anim.animator(goblin)
local naive = anim.animator(goblin)
player:play(walk, { fade = 0 })
gob:play(walk, { fade = 0, retarget = map })
naive:play(walk, { fade = 0, retarget = names_only })

-- The hand: the end of the arm bone, which hangs along its local -y.
local function hand(animator, joint, length)
  local px, py, pz, qx, qy, qz, qw = animator:world_transform(joint)
  -- rotate (0, -length, 0) by the quaternion
  local vx, vy, vz = 0, -length, 0
  local cx, cy, cz = qy * vz - qz * vy, qz * vx - qx * vz, qx * vy - qy * vx
  local dx, dy, dz = qy * cz - qz * cy, qz * cx - qx * cz, qx * cy - qy * cx
  return px + vx + 2 * (qw * cx + dx), py + vy + 2 * (qw * cy + dy), pz + vz + 2 * (qw * cz + dz)
end

print("\n         left hand, world (x, y, z)")
print("  time   player                  goblin                  goblin, names only")
local dt = 0.125
for i = 0, 8 do
  local step = i > 0 and dt or 0
  player:update(step); gob:update(step); naive:update(step)
  local x1, y1, z1 = hand(player, "leftArm", 0.75)
  local x2, y2, z2 = hand(gob, "arm_l", 0.45)
  local x3, y3, z3 = hand(naive, "arm_l", 0.45)
  print(string.format("  %.3f  (%6.3f, %6.3f, %6.3f)  (%6.3f, %6.3f, %6.3f)  (%6.3f, %6.3f, %6.3f)",
    i * dt, x1, y1, z1, x2, y2, z2, x3, y3, z3))
end
