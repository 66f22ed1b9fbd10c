-- fuzz/dragonbones.lua: the driver of the fuzz_dragonbones target: the
-- DragonBones importer, a skeleton (_ske.json) with or without its texture
-- atlas (_tex.json) (fuzz/README.md).
--
-- run(bytes): the first byte's bit 0 says whether an atlas comes after the
-- skeleton (the rest split at its first NUL byte), bits 1-2 pick the limits
-- (fuzz/common2d.lua, PROFILES).  The import must return its result or
-- `nil, message` naming the file, never raise, within the budget; every
-- armature must keep the limits (bones, slots; the keys of all the file's
-- clips together), and its clips must play (common2d.use).
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local C = require "fuzz.common"
local D = require "fuzz.common2d"

local M = {}

M.budget = D.budget

local NAME, TEX = C.NAME, "fuzz.tex"

local function import(ske, tex)
  local r, err = D.timed("anim.decode_dragonbones", require("anim.import.dragonbones").decode, ske, NAME, tex, TEX)
  if r == nil then return D.refused("anim.decode_dragonbones", err, NAME, tex and TEX) end
  local lim = anim.limits
  for i, w in ipairs(r.warnings) do
    if type(w) ~= "string" then C.bug("anim.decode_dragonbones: warnings[%d] is a %s", i, type(w)) end
  end
  if type(r.armatures) ~= "table" or r.armatures[r.stage] == nil then
    C.bug("anim.decode_dragonbones: result.stage names no armature of result.armatures")
  end
  local keys, n = 0, 0
  for name, arm in pairs(r.armatures) do
    n = n + 1
    D.check_desc("armature '" .. tostring(name) .. "'", arm.skeleton, lim)
    if #arm.skeleton.slots > lim.joints then C.bug("armature '%s': %d slots, over anim.limits.joints", name, #arm.skeleton.slots) end
    local _, k = D.check_clips("armature '" .. tostring(name) .. "'", arm.clips, lim, keys)
    keys = k
  end
  D.use("anim.decode_dragonbones", r, lim)
end

-- The hero fixtures, read once: (skeleton text, atlas text | nil, true:
-- the atlas is JSON, changed too).
local NAMES, TEXTS = { "hero_ske", "hero45_ske" }, {}
local function text(name)
  TEXTS[name] = TEXTS[name] or D.fixture("spec/fixtures/dragonbones/" .. name .. ".json")
  return TEXTS[name]
end
local function fixtures(k, with_atlas)
  return text(NAMES[k % #NAMES + 1]), with_atlas and text("hero_tex") or nil, true
end

function M.run(data) D.run_pair(data, import, fixtures) end

return M
