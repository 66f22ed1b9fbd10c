-- Random scenes for the specs that compare two ways of updating the same
-- animators bit for bit (spec/batch_bits_spec.lua: animator:update and
-- anim.update; spec/threads_spec.lua: anim.update on one thread and on
-- two).  The scenes reach every way the blend goes: one priority level
-- (the register path) and several, more tracks than the one-level path
-- takes, additive layers, joint weights, retargeted joints, Euler and
-- quaternion rotations, all loop modes and both directions of play;
-- property channels (scalar and vector, additive ones too) and joint
-- overrides of both modes; and the gameplay features: blend spaces (1D,
-- 2D, synced or not), root motion, queued clips and constraints.
local anim = require "anim"

local S = {}

-- A number by its bits: %.17g reads back as the same double, and -0 is
-- told from 0 (5.1's and LuaJIT's string.format have no %a).
local function hex(v)
  if v == 0 and 1 / v < 0 then return "-0" end
  return string.format("%.17g", v)
end
S.hex = hex

local rig = anim.rig("player")
local random = require "spec.random_clips"
local JOINTS = random.JOINTS
S.random_clip, S.random_spaces = random.clip, random.spaces

-- Every number the animator shows, by its bits (its root motion too).
function S.bits(a)
  local out = {}
  for _, v in ipairs { a:root_motion() } do out[#out + 1] = hex(v) end
  for j = 1, #JOINTS do
    for _, f in ipairs { a.get, a.local_transform, a.world_transform } do
      local v = { f(a, j) }
      for k = 1, #v do out[#out + 1] = hex(v[k]) end
    end
  end
  for _, name in ipairs { "glow", "tint" } do
    local v = { pcall(a.property, a, name) }
    for k = 2, #v do out[#out + 1] = type(v[k]) == "number" and hex(v[k]) or tostring(v[k]) end
  end
  return table.concat(out, " ")
end

-- A scene: n animators, each with tracks of clips from the pool, built the
-- same way twice from the same seed; callbacks logged.
-- on_marker(a, i, tr, name): more for each marker, when given.
function S.scene(seed, n, clips, map, log, spaces, on_marker)
  math.randomseed(seed)
  local r = math.random
  local list, tracks = {}, {}
  for i = 1, n do
    local a = anim.animator(rig)
    a:on_marker(function(tr, name, _, late)
      log[#log + 1] = string.format("%d %s %s %s", i, tr.clip.name, name, hex(late))
      if on_marker then on_marker(a, i, tr, name) end
    end)
    local ts = {}
    for _ = 1, r(12) do
      local opts = { fade = r(3) == 1 and 0 or r() * 0.3, weight = r() * 1.2, speed = (r() - 0.3) * 2 }
      if r() < 0.2 then opts.retarget = map end
      if r() < 0.3 then opts.priority = r(4) - 1 end
      local what = clips[r(#clips)]
      if r() < 0.25 then what, opts.at = spaces[r(#spaces)], nil end
      if anim.is_blendspace(what) then
        opts.at = what.dimensions == 1 and (r() * 3 - 1) or { r() * 3 - 1, r() * 3 - 1 }
      end
      if #ts > 0 and r() < 0.2 then opts.after = ts[r(#ts)] end
      local ok, t = pcall(a.play, a, what, opts) -- (a track may already have one queued after it)
      if ok then ts[#ts + 1] = t end
    end
    for _ = 1, r(3) - 1 do
      local a_ = (r() - 0.5) * 2
      a:override(JOINTS[r(#JOINTS)], { mode = r() < 0.5 and "add" or "replace", weight = r(),
        rotation = r() < 0.7 and { math.sin(a_), 0, 0, math.cos(a_) } or nil,
        position = r() < 0.5 and { r(), r(), r() } or nil, scale = r() < 0.3 and { 1 + r(), 1, 1 } or nil })
    end
    if r() < 0.5 then a.root_motion = JOINTS[r(3)] end
    if r() < 0.3 then
      a:two_bone_ik { root = "root", mid = "torso", tip = "head", target = { r() - 0.5, 1 + r(), r() - 0.5 },
        pole = { 0, 1, 1 }, weight = r(), soften = 0.5 + r() / 2 }
    end
    if r() < 0.3 then a:aim { joint = "rightArm", target = { r() * 4 - 2, r() * 3, 2 }, forward = { 0, -1, 0 }, up = { 0, 0, 1 } } end
    list[i], tracks[i] = a, ts
  end
  return list, tracks
end

-- n random clips and four blend spaces of them, from the seed.
function S.pool(seed, n)
  math.randomseed(seed)
  local clips = {}
  for i = 1, n do clips[i] = S.random_clip(math.random, "c" .. i) end
  return clips, S.random_spaces(math.random, clips)
end

S.JOINTS = JOINTS
S.retarget = [[{"version": 1, "scale": 0.5,
    "joints": {"rightArm": {"to": "leftArm", "source": [0, 0, 0.3826834, 0.9238795]}, "head": "torso"}}]]
return S
