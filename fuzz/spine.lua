-- fuzz/spine.lua: the driver of the fuzz_spine target (and of the replay of
-- its inputs in spec/fuzz_regressions_spec.lua): the Spine JSON importer,
-- with or without its atlas (fuzz/README.md).
--
-- run(bytes): the first byte's bit 0 says whether an atlas comes after the
-- JSON (the rest split at its first NUL byte: JSON, atlas), bits 1-2 pick
-- the limits the import runs under (fuzz/common2d.lua, PROFILES).  The
-- import must return its result or `nil, message` naming the file (or the
-- atlas), never raise, within M.budget; a result must keep the limits (its
-- bones, animations, keys, warnings), and its clips must play (common2d.use).
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local C = require "fuzz.common"
local D = require "fuzz.common2d"
local spine = require "anim.import.spine"

local M = {}

M.budget = D.budget

local NAME, ATLAS = C.NAME, "fuzz.atlas"

local function import(json, atlas)
  local r, err = D.timed("anim.import_spine", spine.decode_text, json, NAME, atlas, ATLAS)
  if r == nil then return D.refused("anim.import_spine", err, NAME, atlas and ATLAS) end
  local lim = anim.limits
  for i, w in ipairs(r.warnings) do
    if type(w) ~= "table" or type(w.path) ~= "string" or type(w.message) ~= "string" then
      C.bug("anim.import_spine: warnings[%d] is not { path, message }", i)
    end
  end
  -- the vertices of its attachments, apart from the keys (a mesh counts its
  -- uvs' pairs)
  local verts = 0
  for _, skin in ipairs(r.skeleton.skins) do
    for _, atts in pairs(skin.attachments) do
      for _, att in pairs(atts) do
        if att.uvs then verts = verts + math.floor(#att.uvs / 2) elseif att.vertices and not att.weighted then verts = verts + math.floor(#att.vertices / 2) end
      end
    end
  end
  -- (anim.limits.vertices where the module has it, else keys)
  local vmax = lim.vertices or lim.keys
  if verts > vmax then C.bug("anim.import_spine: %d vertices, over the limit of vertices (%d)", verts, vmax) end
  local n = D.use("anim.import_spine", r, lim, spine.MAX_WARNINGS + 1)
  if n > lim.animations then C.bug("anim.import_spine: %d clips, over anim.limits.animations (%d)", n, lim.animations) end
end

-- The hero fixtures, read once: (JSON text, atlas text | nil).
local VERSIONS, TEXTS, ATLASES = { "3.8", "4.0", "4.1", "4.2" }, {}, {}
local function fixtures(k, with_atlas)
  local v = VERSIONS[k % #VERSIONS + 1]
  if not TEXTS[v] then
    TEXTS[v] = D.fixture("spec/fixtures/spine/hero-" .. v .. ".json")
    ATLASES[v] = D.fixture("spec/fixtures/spine/hero-" .. (v == "3.8" and "3.8" or "4.x") .. ".atlas")
  end
  return TEXTS[v], with_atlas and ATLASES[v] or nil, false
end

function M.run(data) D.run_pair(data, import, fixtures) end

return M
