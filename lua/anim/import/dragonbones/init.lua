-- import/dragonbones/init.lua: DragonBones 4.5-5.5 JSON (`_ske.json`) with
-- its TextureAtlas JSON (`_tex.json`), as 2D skeleton descriptions and
-- clips (docs/formats.md, DragonBones; the contract of issue 40):
--
--   anim.import_dragonbones(ske_json [, tex_json])
--     -> { skeleton =, clips = { [name] = clip }, skins = { names },
--          armatures = { [name] = { skeleton =, clips =, skins = } },
--          warnings = { "path: message", ... }, version =, stage = }
--      | nil, message
--
-- result.skeleton is the description of the default armature: the one the
-- file's `stage` names, else the first (the format's parser:
-- ObjectDataParser.parseDragonBonesData); result.clips its animations.
-- Versions: the file's `version`, else its `compatibleVersion`, must be
-- 4.5, 5.0 or 5.5 (the layouts this reads); any other is refused, naming
-- it.  DragonBones' binary export (.dbbin, "DBDT") is refused, naming the
-- JSON export.
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local compat = require "anim.base.compat"
local json = require "anim.base.json"
local clipmod = require "anim.format.clip"
local F = require "anim.import.dragonbones.fields"
local atlasmod = require "anim.import.dragonbones.atlas"
local armature = require "anim.import.dragonbones.armature"
local animation = require "anim.import.dragonbones.animation"
local byteorder = require "anim.base.order"

local M = {}

local key, index, fail, shown = E.key, E.index, E.fail, E.shown

M.VERSIONS = { ["4.5"] = true, ["5.0"] = true, ["5.5"] = true }

-- The text of a skeleton or atlas file, refusing DragonBones' binary.
local function text_of(text, what)
  if text:sub(1, 4) == "DBDT" then
    fail("", "this is DragonBones' binary export (DBDT): export the %s as JSON (DragonBones Pro: Export, data type JSON)", what)
  end
  -- (a name an object holds twice: the last value kept, as JavaScript's
  -- JSON.parse keeps it, and a warning)
  local doc, twice, words = json.decode(text, "warn")
  json.check(doc)
  return doc, twice and string.format("%s%s: %s", what == "skeleton" and "" or "the " .. what .. ": ",
    E.path(twice), words) or nil
end

local function version_of(doc)
  local v = doc.version
  if E.absent(v) then fail("version", "a DragonBones skeleton names its data version (version), none here") end
  if type(v) == "number" then v = compat.numtext("%.1f", v) end
  if type(v) ~= "string" then fail("version", "version must be a string, got %s", E.describe(v)) end
  if M.VERSIONS[v] then return v end
  local cv = doc.compatibleVersion
  if type(cv) == "string" and M.VERSIONS[cv] then return cv end
  fail("version", "DragonBones data version '%s'%s is not read (read: 4.5, 5.0 and 5.5): export it from DragonBones Pro 5.5 or later as JSON",
    shown(v), type(cv) == "string" and (" (compatibleVersion '" .. shown(cv) .. "')") or "")
end

-- The result of a decoded skeleton with its atlas (atlas.lua's, or nil);
-- raises a failure.  early: warnings of the reading, listed first.
function M.build(doc, atlas, name, early)
  if type(doc) ~= "table" or (next(doc) ~= nil and E.is_array(doc)) then
    fail("", "expected a DragonBones skeleton (an object with version and armature), got %s", E.describe(doc))
  end
  if E.absent(doc.armature) and not E.absent(doc.SubTexture) then
    fail("", "this is a DragonBones TextureAtlas JSON (_tex.json): give the skeleton (_ske.json) first")
  end
  local version = version_of(doc)
  local warnings = {}
  for i, w in ipairs(early or {}) do warnings[i] = w end
  local function warn(path, fmt, ...)
    local msg = select("#", ...) > 0 and string.format(fmt, ...) or fmt
    warnings[#warnings + 1] = (path == "" and "" or E.path(path) .. ": ") .. msg
  end
  local rate0 = F.number(doc, "frameRate", "", 24)
  if rate0 <= 0 then rate0 = 24 end
  local list = F.array(doc, "armature", "")
  if #list == 0 then fail("armature", "a DragonBones skeleton needs at least one armature") end
  local result = { armatures = {}, warnings = warnings, version = version }
  local count = { n = 0, vertices = 0 }
  local first
  for i, raw in ipairs(list) do
    local p = index("armature", i)
    E.object(raw, p, "armature")
    local A = armature.read(raw, p, warn, atlas, version, count)
    local aname = A.name
    if result.armatures[aname] then fail(key(p, "name"), "two armatures are named '%s'", shown(aname)) end
    local rate = F.number(raw, "frameRate", p, rate0)
    if rate <= 0 then rate = 24 end -- (the runtime's own fallback for 0)
    local clips, skins = {}, {}
    for j, anim_raw in ipairs(F.array(raw, "animation", p)) do
      local ap = index(key(p, "animation"), j)
      local cname, t = animation.read(anim_raw, ap, A, rate, count, warn)
      if clips[cname] then fail(key(ap, "name"), "two animations are named '%s'", shown(cname)) end
      -- (a clip the core refuses, e.g. frames at an infinite time: many
      -- frames at a tiny frameRate, is named by the animation's path, the
      -- clip's own path, which names no field of the file, in brackets)
      local ok, clip = pcall(clipmod.build, t, name .. "#" .. aname .. "/" .. cname, true)
      if not ok then
        if not E.is_failure(clip) then error(clip, 0) end
        fail(ap, "the clip made of animation '%s' is refused (%s)", shown(cname), (E.message("", clip):gsub("^: ", "")))
      end
      clips[cname] = clip
    end
    for k, s in ipairs(A.desc.skins) do skins[k] = s.name end
    A.desc.frame_rate = rate
    result.armatures[aname] = { skeleton = A.desc, clips = clips, skins = skins }
    first = first or aname
  end
  local stage = F.string(doc, "stage", "", nil)
  if stage and not result.armatures[stage] then
    local names = {}
    for k in pairs(result.armatures) do names[#names + 1] = k end
    byteorder.sort(names)
    fail("stage", "stage names armature '%s', which the file does not have%s", shown(stage), E.hint(stage, names))
  end
  result.stage = stage or first
  local main = result.armatures[result.stage]
  result.skeleton, result.clips, result.skins = main.skeleton, main.clips, main.skins
  return result
end

-- The atlas of a TextureAtlas JSON text and the reading's warning (or
-- nil), or nil, message naming tex_name.
local function atlas_of(text_fn, tex_name)
  return E.catch(tex_name, function()
    local doc, warning = text_of(text_fn(), "texture atlas")
    return atlasmod.read(doc), warning
  end)
end

-- The result of the skeleton's text (read by text_fn) with its atlas (as
-- atlas_of gives it, or nil).
local function skeleton_of(text_fn, name, tex_fn, tex_name)
  local atlas, early = nil, {}
  if tex_fn then
    local a, warning = atlas_of(tex_fn, tex_name)
    if not a then return nil, warning end
    atlas, early[1] = a, warning
  end
  return E.catch(name, function()
    local doc, warning = text_of(text_fn(), "skeleton")
    if warning then table.insert(early, 1, warning) end
    return M.build(doc, atlas, name, early)
  end)
end

-- From texts (names: the files', for messages).
function M.decode(ske_text, name, tex_text, tex_name)
  return skeleton_of(function() return ske_text end, name, tex_text and function() return tex_text end,
    tex_name or (name .. " (texture atlas)"))
end

function M.import(ske_path, tex_path)
  return skeleton_of(function() return json.read_file(ske_path) end, ske_path,
    tex_path and function() return json.read_file(tex_path) end, tex_path)
end

return M
