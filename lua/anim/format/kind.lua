-- format/kind.lua: which format a file is, told by its content: the one
-- rule of anim.open, of anim.load's message on another format's file and
-- of the command (lua/anim/tool/cli_common.lua).
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local E = require "anim.base.errors"
local json = require "anim.base.json"

local M = {}

-- What a file's name suggests: "xml", "retarget", "graph", "gltf",
-- "blockbench", "aseprite" or "anim".
function M.by_name(path)
  local lower = path:lower()
  if lower:match("%.xml$") then return "xml" end
  if lower:match("%.retarget$") then return "retarget" end
  if lower:match("%.animgraph$") then return "graph" end
  if lower:match("%.gltf$") or lower:match("%.glb$") then return "gltf" end
  if lower:match("%.bbmodel$") or lower:match("%.json$") or lower:match("%.ajblueprint$") or lower:match("%.ajmodel$") then
    return lower:match("%.aseprite%.json$") and "aseprite" or "blockbench"
  end
  return "anim"
end

-- Is a decoded object a Blockbench project (meta and outliner, or
-- animations beside either): "model"; a Bedrock file (format_version
-- with animations, geometry or animation controllers): "bedrock"; else nil.
local function blockbench_of(doc)
  if (not E.absent(doc.animations) and (type(doc.meta) == "table" or not E.absent(doc.outliner)))
    or (type(doc.meta) == "table" and not E.absent(doc.outliner)) then
    return "model"
  end
  if not E.absent(doc.format_version) and (not E.absent(doc.animations) or not E.absent(doc["minecraft:geometry"])
    or not E.absent(doc.animation_controllers)) then
    return "bedrock"
  end
end

-- The kind of a JSON object's content, or nil when it says none; and for
-- Blockbench, which of its files ("model" or "bedrock").
local function json_kind(path, doc)
  if E.is_array(doc) then return nil end
  local bb = blockbench_of(doc)
  if bb then return "blockbench", bb end
  -- the JSON Aseprite writes beside a sprite sheet: frames, no joints
  if type(doc.frames) == "table" and E.absent(doc.joints) and E.absent(doc.keyframes) then return "aseprite" end
  if type(doc.joints) == "table" and next(doc.joints) ~= nil and E.absent(doc.keyframes) then
    -- a retarget map's entries are names or { to = name }; a clip's joints are objects of channels
    local map = true
    for _, j in pairs(doc.joints) do
      if not (type(j) == "string" or (type(j) == "table" and j.to ~= nil)) then map = false break end
    end
    if map then return "retarget" end
  end
  if type(doc.asset) == "table" and not E.absent(doc.asset.version) then return "gltf" end
  -- 2D skeletons: Spine's JSON export (a skeleton object naming the
  -- editor's version, bones), DragonBones' (an armature list) and its
  -- texture atlas (SubTexture), which anim.import_dragonbones takes beside it
  local function list(v) return type(v) == "table" and E.is_array(v) end
  if type(doc.skeleton) == "table" and not list(doc.skeleton) and (not E.absent(doc.skeleton.spine) or list(doc.bones)) then
    return "spine"
  end
  if list(doc.armature) then return "dragonbones" end
  if list(doc.SubTexture) and not E.absent(doc.imagePath) then return "dragonbones", "texture" end
  -- a state machine (.animgraph, docs/format-reference.md): layers of states
  if list(doc.layers) and E.absent(doc.joints) and E.absent(doc.keyframes) then return "graph" end
  if not E.absent(doc.joints) or not E.absent(doc.keyframes) or not E.absent(doc.version) then
    return M.by_name(path) == "retarget" and "retarget" or "anim"
  end
end

-- What reads a file, by its content (text: the file's bytes, or nil when
-- they could not be read): XML by its first element, a .glb by its magic;
-- a JSON object with format_version and animations (or minecraft:geometry,
-- or animation_controllers), or a project with meta, outliner and
-- animations, is Blockbench or Bedrock; frames without joints an Aseprite
-- sheet; joints of names a retarget map; an asset with a version glTF;
-- a list of layers a state machine; joints, keyframes or a version .anim.  Only when the content says none
-- of these (an empty object, text that is not JSON) does the name decide.
-- Returns the kind, whether the content told it, and for Blockbench which
-- of its files ("model" or "bedrock").
function M.of(path, text)
  if text then
    local first = text:gsub("^\239\187\191", ""):match("^%s*(.)")
    -- (a compressed Blockbench file, which the Blockbench reader refuses
    -- saying so, is not XML)
    if text:match("^\239\187\191<lz>") or text:sub(1, 4) == "<lz>" then return "blockbench", true, "model" end
    if first == "<" then return "xml", true end
    if text:sub(1, 4) == "glTF" then return "gltf", true end -- a .glb's magic
    if first == "{" or first == "[" or first == "/" then
      local ok, doc = pcall(json.decode_lenient, text)
      if ok and type(doc) == "table" then
        local kind, which = json_kind(path, doc)
        if kind then return kind, true, which end
      end
    end
  end
  return M.by_name(path)
end

-- Which function of the module reads each kind, and the file as a message
-- names it.
-- (A state machine is no clip file: anim.graph or library:graph reads it,
-- with the clips it plays; M.GRAPH says so.)
M.IMPORTER = { xml = "import_xml", blockbench = "import_blockbench", gltf = "import_gltf", aseprite = "import_aseprite",
  retarget = "load_retarget", anim = "load", spine = "import_spine", dragonbones = "import_dragonbones" }
M.FORMAT_NAME = { xml = "legacy XML", blockbench = "Blockbench", gltf = "glTF", aseprite = "Aseprite",
  retarget = "retarget map", anim = ".anim", spine = "Spine", dragonbones = "DragonBones", graph = "state machine" }
M.GRAPH = "a state machine (.animgraph): read it with anim.graph, or library:graph to find its clips beside it"
local WHAT = { xml = "a legacy XML animation", gltf = "a glTF asset", aseprite = "an Aseprite sprite sheet's JSON",
  retarget = "a retarget map", model = "a Blockbench model", bedrock = "a Bedrock animation file",
  spine = "a Spine skeleton (JSON export)", dragonbones = "a DragonBones skeleton",
  texture = "a DragonBones texture atlas (give it to anim.import_dragonbones beside its skeleton)" }

-- The texture atlas beside a 2D skeleton, by name, when a regular file
-- is there (else nil): a Spine export's "X.json" -> "X.atlas", a
-- DragonBones "X_ske.json" -> "X_tex.json" (as the editors export them).
local BESIDE = { spine = { "%.[Jj][Ss][Oo][Nn]$", ".atlas" }, dragonbones = { "_ske%.json$", "_tex.json" } }
function M.atlas_beside(kind, path)
  local rule = BESIDE[kind]
  local name, n = path:gsub(rule[1], rule[2])
  if n == 1 and core.file_kind(name) == "file" then return name end
end

-- When a file that did not load as a clip is another format's by its
-- content (a retarget map also by its name): the message naming the
-- function to read it with ("walk.bbmodel: a Blockbench model: read it
-- with anim.import_blockbench or anim.open"); else nil.
function M.hint(name, path, text)
  local kind, by_content, which = M.of(path, text)
  if not by_content or kind == "anim" or (kind == "retarget" and M.by_name(path) ~= "retarget") then return nil end
  if which == "texture" then return string.format("%s: %s", E.shown(name), WHAT.texture) end
  if kind == "graph" then return string.format("%s: %s", E.shown(name), M.GRAPH) end
  return string.format("%s: %s: read it with anim.%s%s", E.shown(name), WHAT[which or kind], M.IMPORTER[kind],
    kind == "retarget" and "" or " or anim.open")
end

return M
