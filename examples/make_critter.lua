-- examples/make_critter.lua: writes examples/clips/critter.gltf, the glTF
-- character of the LÖVE example (examples/love/): a small four-legged
-- critter with a body, a head, a tail and legs, and a looping trot, made
-- here with the module itself (anim.rig, anim.clip, anim.export_gltf) so
-- that the example's glTF file is ours.  Run: lua5.4 examples/make_critter.lua
local anim = require "anim"

local here = arg and arg[0] and arg[0]:match("^(.*)/[^/]*$") or "examples"

local rig = assert(anim.rig({ joints = {
  { name = "body", position = { 0, 0.6, 0 } },
  { name = "head", parent = "body", position = { 0.55, 0.8, 0 } },
  { name = "tail", parent = "body", position = { -0.5, 0.7, 0 } },
  { name = "frontLeg", parent = "body", position = { 0.35, 0.5, 0.15 } },
  { name = "frontLeg2", parent = "body", position = { 0.35, 0.5, -0.15 } },
  { name = "backLeg", parent = "body", position = { -0.35, 0.5, 0.15 } },
  { name = "backLeg2", parent = "body", position = { -0.35, 0.5, -0.15 } },
} }, "critter"))

local function swing(a) return { { 0, { 0, 0, a } }, { 0.3, { 0, 0, -a } }, { 0.6, { 0, 0, a } } } end
local trot = assert(anim.clip({
  length = 0.6, loop = "loop",
  joints = {
    body = { position = { { 0, { 0, 0, 0 } }, { 0.15, { 0, 0.05, 0 } }, { 0.3, { 0, 0, 0 } }, { 0.45, { 0, 0.05, 0 } },
      { 0.6, { 0, 0, 0 } } } },
    head = { rotation = { { 0, { 0, 0, 5 } }, { 0.3, { 0, 0, -5 } }, { 0.6, { 0, 0, 5 } } } },
    tail = { rotation = { { 0, { 0, 20, 30 } }, { 0.3, { 0, -20, 30 } }, { 0.6, { 0, 20, 30 } } } },
    frontLeg = { rotation = swing(30) }, backLeg2 = { rotation = swing(30) },
    frontLeg2 = { rotation = swing(-30) }, backLeg = { rotation = swing(-30) },
  },
  markers = { { time = 0, name = "step" }, { time = 0.3, name = "step" } },
}, "trot"))

local approx = assert(anim.export_gltf({ trot }, rig, here .. "/clips/critter.gltf", { fps = 30 }))
print(string.format("wrote %s/clips/critter.gltf (%d channels baked)", here, #approx))
