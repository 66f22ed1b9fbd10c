-- anim: animation clips, rigs and animators for Lua 5.4, with a C core.
-- See docs/api.md for the whole API.
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local args = require "anim.base.args"
local json = require "anim.base.json"
local clip = require "anim.format.clip"
local encode = require "anim.format.encode"
local fields = require "anim.format.fields"

local anim = { _VERSION = "anim dev-1" }

-- Argument checks: a Lua error naming the argument and what it had (an
-- optional argument may be nil), at the caller's line.
local check_arg = args.check

-- Options of the loading functions: strict refuses the first field the
-- format does not know (by default such fields are kept, as the format
-- says; `anim validate` lists them).
local LOAD_OPTIONS = args.names { "strict" }
local function strict_of(opts, n, fname)
  opts = args.options(opts, LOAD_OPTIONS, n, fname)
  if opts.strict ~= nil and type(opts.strict) ~= "boolean" then
    args.error(n, fname, "option 'strict' must be a boolean, got " .. args.typename(opts.strict))
  end
  return opts.strict == true
end

-- anim.load(path [, { strict = true }]) -> clip | nil, message; a .animc
-- file (a compressed clip) is read with no JSON library
local animc = require "anim.format.animc"
function anim.load(path, opts)
  check_arg(path, "string", 1, "load")
  return animc.load_any(path, path, nil, strict_of(opts, 2, "load"))
end

-- anim.compress(clip [, { rig, error, distance, level }]) -> clip | nil,
-- message: the clip compressed within the error bound (docs/api.md)
local COMPRESS_OPTIONS = args.names { "rig", "error", "distance", "level" }
function anim.compress(c, options)
  if not clip.is_clip(c) then args.error(1, "compress", "anim.clip expected, got " .. args.typename(c)) end
  options = args.options(options, COMPRESS_OPTIONS, 2, "compress")
  return require("anim.export.gltf.compress").compress(c, options)
end

-- anim.decode(json_text [, name [, { strict = true }]]) -> clip | nil, message
function anim.decode(text, name, opts)
  check_arg(text, "string", 1, "decode")
  check_arg(name, "string", 2, "decode", true)
  local strict = strict_of(opts, 3, "decode")
  name = name or "clip"
  return E.catch(name, function() return clip.build(json.decode(text), name, true, strict) end)
end

-- anim.clip(table [, name [, { strict = false }]]) -> clip | nil, message.
-- The table is the script's own, so strict is the default: a field the
-- format does not know raises (a misspelt `lenght` would otherwise give a
-- clip of length 0 without a word); strict = false keeps such fields, as
-- a file's are kept.
function anim.clip(t, name, opts)
  check_arg(t, "table", 1, "clip")
  check_arg(name, "string", 2, "clip", true)
  opts = args.options(opts, LOAD_OPTIONS, 3, "clip")
  if opts.strict ~= nil and type(opts.strict) ~= "boolean" then
    args.error(3, "clip", "option 'strict' must be a boolean, got " .. args.typename(opts.strict))
  end
  name = name or "clip"
  -- the copy first: it reads the table raw and refuses one that is no tree,
  -- so that nothing after it walks a script's metamethods or a DAG
  local copy, err = E.catch(name, clip.copy, t)
  if not copy then return nil, err end
  local unknown = opts.strict ~= false and fields.unknown(copy, "clip")[1]
  if unknown then args.error(1, "clip", fields.message(unknown, true)) end
  return E.catch(name, function() return clip.build(copy, name) end)
end

-- anim.import_xml(path) -> clip, warnings | nil, message   (the legacy XML format;
-- warnings: the elements and attributes it does not know, { channel, message })
-- anim.xml is required here, not at the top, so that `require "anim"`
-- works without lua-expat for those who never import XML.
-- (it takes no options: a table of them is refused, naming the key, so that
-- a misspelt or missing option is not ignored)
local NO_OPTIONS = args.names {}
function anim.import_xml(path, opts)
  check_arg(path, "string", 1, "import_xml")
  args.options(opts, NO_OPTIONS, 2, "import_xml")
  local xml = require "anim.import.xml"
  return E.catch(path, function() return xml.build(json.read_file(path), path) end)
end

-- anim.decode_xml(xml_text [, name]) -> clip, warnings | nil, message
function anim.decode_xml(text, name, opts)
  check_arg(text, "string", 1, "decode_xml")
  check_arg(name, "string", 2, "decode_xml", true)
  args.options(opts, NO_OPTIONS, 3, "decode_xml")
  name = name or "clip"
  local xml = require "anim.import.xml"
  return E.catch(name, xml.build, text, name)
end

-- anim.encode(clip [, options]) -> text, approx | nil, message   (docs/formats.md, Encoding)
anim.encode = encode.encode
-- anim.save(clip, path [, options]) -> true, approx | nil, message (written atomically)
anim.save = encode.save
-- anim.table(clip [, options]) -> table, approx | nil, message: what anim.encode
-- writes, as a Lua table anim.clip takes
anim.table = encode.table

-- anim.import_blockbench(path [, options]) -> { [animation name] = clip }, warnings, rigs | nil, message
-- (.bbmodel, Animated Java projects and Bedrock/GeckoLib *.animation.json;
-- docs/formats.md).  Required here, not at the top: only the importer needs
-- lua-lpeg (for Molang).
function anim.import_blockbench(path, options)
  check_arg(path, "string", 1, "import_blockbench")
  local bb = require "anim.import.blockbench"
  local opts, values = bb.options(options, "import_blockbench", 2)
  return bb.import(path, opts, values)
end

-- anim.decode_blockbench(json_text [, name [, options]]) -> { [animation name] = clip }, warnings, rigs | nil, message
function anim.decode_blockbench(text, name, options)
  check_arg(text, "string", 1, "decode_blockbench")
  check_arg(name, "string", 2, "decode_blockbench", true)
  local bb = require "anim.import.blockbench"
  local opts, values = bb.options(options, "decode_blockbench", 3)
  return bb.decode_text(text, name or "blockbench", opts, values)
end

-- anim.import_aseprite(path) -> clips, sheet | nil, message: the JSON Aseprite
-- exports with a sprite sheet, as sprite-frame clips (a `frame` property per
-- tag, and clips.all) and the sheet's rectangles (docs/api.md)
function anim.import_aseprite(path)
  check_arg(path, "string", 1, "import_aseprite")
  return require("anim.import.aseprite").import(path)
end

-- anim.decode_aseprite(json_text [, name]) -> clips, sheet | nil, message
function anim.decode_aseprite(text, name)
  check_arg(text, "string", 1, "decode_aseprite")
  check_arg(name, "string", 2, "decode_aseprite", true)
  return require("anim.import.aseprite").decode_text(text, name or "aseprite")
end

-- An importer's 2D descriptions made skeletons (anim.skeleton2d): the
-- result's (the default armature's) at once -- nil, message when it is
-- refused, named by the file --, each other DragonBones armature's when
-- first read (a file may hold thousands: making them all would cost a
-- skeleton each); one the runtime refuses reads as nil, with its message
-- in `skeleton_error`.  Each keeps its table as `description`.
local skeleton2d = require "anim.format.skeleton2d"
local LAZY = { __index = function(arm, k)
  if k ~= "skeleton" then return nil end
  local sk, why = skeleton2d.new(rawget(arm, "description"), rawget(arm, "file"))
  rawset(arm, "skeleton", sk or false)
  if not sk then rawset(arm, "skeleton_error", why) end
  return sk or nil
end }
local function with_skeletons(name, res, err)
  if not res then return nil, err end
  local desc = res.skeleton
  if type(desc) ~= "table" or skeleton2d.is_skeleton(desc) then return res, err end
  local sk, why = skeleton2d.new(desc, name)
  if not sk then return nil, why end
  res.description, res.skeleton = desc, sk
  for _, arm in pairs(res.armatures or {}) do
    if arm.skeleton == desc then
      arm.description, arm.skeleton = desc, sk
    elseif type(arm.skeleton) == "table" and not skeleton2d.is_skeleton(arm.skeleton) then
      arm.description, arm.skeleton, arm.file = arm.skeleton, nil, name
      setmetatable(arm, LAZY)
    end
  end
  return res, err
end

-- anim.import_dragonbones(ske_json [, tex_json]) -> { skeleton, clips,
-- skins, armatures, warnings, version, stage } | nil, message: DragonBones
-- 4.5-5.5 JSON with its TextureAtlas JSON (docs/formats.md, DragonBones)
function anim.import_dragonbones(ske_path, tex_path)
  check_arg(ske_path, "string", 1, "import_dragonbones")
  check_arg(tex_path, "string", 2, "import_dragonbones", true)
  return with_skeletons(ske_path:match("[^/\\]*$"), require("anim.import.dragonbones").import(ske_path, tex_path))
end

-- anim.decode_dragonbones(ske_text [, name [, tex_text]]) -> as import_dragonbones
function anim.decode_dragonbones(text, name, tex_text)
  check_arg(text, "string", 1, "decode_dragonbones")
  check_arg(name, "string", 2, "decode_dragonbones", true)
  check_arg(tex_text, "string", 3, "decode_dragonbones", true)
  return with_skeletons(name or "dragonbones", require("anim.import.dragonbones").decode(text, name or "dragonbones",
    tex_text))
end

-- anim.import_spine(json_path [, atlas_path]) -> { skeleton =, clips =, skins =,
-- warnings = } | nil, message: a Spine 3.8 or 4.0-4.2 JSON export and its
-- atlas (docs/api.md; docs/formats.md, "Spine"); result.skeleton an
-- anim.skeleton2d, result.description its table.
function anim.import_spine(json_path, atlas_path)
  check_arg(json_path, "string", 1, "import_spine")
  check_arg(atlas_path, "string", 2, "import_spine", true)
  return with_skeletons(json_path:match("[^/\\]*$"), require("anim.import.spine").import(json_path, atlas_path))
end

-- anim.decode_spine(json_text [, name [, atlas_text [, atlas_name]]]) -> as
-- import_spine, from texts (a game reads them through love.filesystem, which
-- a fused .love archive needs)
function anim.decode_spine(text, name, atlas_text, atlas_name)
  check_arg(text, "string", 1, "decode_spine")
  check_arg(name, "string", 2, "decode_spine", true)
  check_arg(atlas_text, "string", 3, "decode_spine", true)
  check_arg(atlas_name, "string", 4, "decode_spine", true)
  name = name or "spine"
  return with_skeletons(name, require("anim.import.spine").decode_text(text, name, atlas_text, atlas_name or "atlas"))
end

-- glTF's options root (a folder), loop (the clips' loop mode), meshes (a
-- boolean) and read (decode_gltf's function), argument pos (default 2) of
-- fname.
local function gltf_option(k, v, fname, pos)
  pos = pos or 2
  if k == "root" then
    if type(v) ~= "string" then args.error(pos, fname, "option 'root' must be a string, got " .. args.typename(v)) end
  elseif k == "loop" then
    if not require("anim.import.gltf").LOOPS[v] then
      args.error(pos, fname, "option 'loop' must be once, loop, hold or pingpong, got " ..
        (type(v) == "string" and "'" .. E.shown(v) .. "'" or args.typename(v)))
    end
  elseif k == "meshes" and type(v) ~= "boolean" then
    args.error(pos, fname, "option 'meshes' must be a boolean, got " .. args.typename(v))
  elseif k == "read" and type(v) ~= "function" then
    args.error(pos, fname, "option 'read' must be a function, got " .. args.typename(v))
  end
end

-- anim.import_gltf(path [, options]) -> { clips, rigs, rig, scene, warnings } | nil, message
-- (.gltf and .glb; docs/formats.md, glTF).  options: root (the folder
-- buffers may be read from), loop (the clips' loop mode), meshes (true:
-- result.meshes, the mesh primitives with their attributes in buffers).
local IMPORT_GLTF_OPTIONS = args.names { "root", "loop", "meshes" }
function anim.import_gltf(path, options)
  check_arg(path, "string", 1, "import_gltf")
  check_arg(options, "table", 2, "import_gltf", true)
  local gltf = require "anim.import.gltf"
  if options then
    args.options(options, IMPORT_GLTF_OPTIONS, 2, "import_gltf")
    for _, k in ipairs(IMPORT_GLTF_OPTIONS.list) do
      if options[k] ~= nil then gltf_option(k, options[k], "import_gltf") end
    end
  end
  return E.catch(path, gltf.import, path, options)
end

-- anim.decode_gltf(bytes [, name [, options]]) -> as import_gltf, from the
-- asset's bytes (a .glb, or a .gltf's JSON: a game reads them through
-- love.filesystem, which a fused .love archive needs); name (default
-- "gltf") in messages and the folder of the textures' paths.  options:
-- loop, meshes, and read (a function(uri) -> bytes | nil, message that
-- reads the files the buffers name; without it only a .glb's own buffer
-- and data: URIs are read).
local DECODE_GLTF_OPTIONS = args.names { "read", "loop", "meshes" }
function anim.decode_gltf(bytes, name, options)
  check_arg(bytes, "string", 1, "decode_gltf")
  check_arg(name, "string", 2, "decode_gltf", true)
  check_arg(options, "table", 3, "decode_gltf", true)
  local gltf = require "anim.import.gltf"
  if options then
    if rawget(options, "root") ~= nil then
      args.error(3, "decode_gltf", "option 'root' is import_gltf's: the bytes have no folder (options.read reads "
        .. "the files the buffers name)")
    end
    args.options(options, DECODE_GLTF_OPTIONS, 3, "decode_gltf")
    for _, k in ipairs(DECODE_GLTF_OPTIONS.list) do
      if options[k] ~= nil then gltf_option(k, options[k], "decode_gltf", 3) end
    end
  end
  name = name or "gltf"
  return E.catch(name, gltf.decode, bytes, name, options)
end

-- One option of export_gltf (its name checked already), at argument pos.
local function export_option(k, v, pos)
  if k == "reduce" then
    if type(v) ~= "boolean" then
      args.error(pos, "export_gltf", "option 'reduce' must be a boolean, got " .. args.typename(v))
    end
  elseif k ~= "fps" then
    if type(v) ~= "number" or not (v > 0 and v < math.huge) then
      args.error(pos, "export_gltf", "option '" .. k .. "' must be a number above 0, got " ..
        (type(v) == "number" and tostring(v) or args.typename(v)))
    end
  elseif type(v) ~= "number" or not (v > 0 and v <= 10000) then
    args.error(pos, "export_gltf", "option 'fps' must be a number above 0 and at most 10000, got " ..
      (type(v) == "number" and tostring(v) or args.typename(v)))
  end
end

-- anim.export_gltf(clips [, rig], path [, options]) -> approx | nil, message
-- clips: a clip or a list of clips; a .gltf (buffer embedded) or .glb by
-- the path's extension; options.fps: the rate curves glTF cannot hold are
-- baked at (default 60); options.error, options.distance: the bound dense
-- channels are reduced within (export/gltf/reduce.lua; defaults 0.001 and 0.1
-- scaled by the rig's extent over 1.7); options.reduce = false writes them
-- whole.  approx: { { clip, joint, channel, error [, reduced] }, ...,
-- reduced = { { clip, before, after, error, bound, distance }, ... } }
local EXPORT_GLTF_OPTIONS = args.names { "fps", "error", "distance", "reduce" }
function anim.export_gltf(clips, rig, path, options)
  local rigmod = require "anim.format.rig"
  if type(rig) == "string" or (rig == nil and type(path) ~= "string") then
    rig, path, options = nil, rig, path
    if type(path) ~= "string" then
      args.error(2, "export_gltf", "rig or path expected, got " .. args.typename(path))
    end
  elseif not rigmod.is_rig(rig) then
    args.error(2, "export_gltf", "rig or path expected, got " .. args.typename(rig))
  end
  local n = rig and 3 or 2
  check_arg(path, "string", n, "export_gltf")
  if not path:lower():match("%.gltf$") and not path:lower():match("%.glb$") then
    args.error(n, "export_gltf", "the path must end in .gltf or .glb, got '" .. E.shown(path) .. "'")
  end
  check_arg(options, "table", n + 1, "export_gltf", true)
  if options then
    args.options(options, EXPORT_GLTF_OPTIONS, n + 1, "export_gltf")
    for _, k in ipairs(EXPORT_GLTF_OPTIONS.list) do
      if options[k] ~= nil then export_option(k, options[k], n + 1) end
    end
  end
  local list = clips
  if clip.is_clip(clips) then list = { clips }
  elseif type(clips) ~= "table" or #clips == 0 then
    args.error(1, "export_gltf", "clip or list of clips expected, got " .. args.typename(clips))
  else
    for i, c in ipairs(clips) do
      if not clip.is_clip(c) then
        args.error(1, "export_gltf", "clip expected at index " .. i .. ", got " .. args.typename(c))
      end
    end
  end
  return E.catch(path, require("anim.export.gltf").export, list, rig, path, options)
end

anim.is_clip = clip.is_clip

-- Rigs, animators and libraries (docs/api.md).
local rig = require "anim.format.rig"
local animator = require "anim.runtime.animator"
local library = require "anim.runtime.library"

-- anim.rig("player") | anim.rig{ joints = {...} } -> rig | nil, message
function anim.rig(def, name) return rig.new(def, name) end
-- anim.skeleton2d(desc [, name]) -> skeleton | nil, message: a 2D skeleton
-- (Spine, DragonBones) for anim.animator
function anim.skeleton2d(desc, name) return skeleton2d.new(desc, name) end
-- anim.animator(rig | skeleton [, { side, space, library }]) -> animator
function anim.animator(r, opts) return animator.new(r, opts) end
-- anim.update(animators, dt): animator:update(dt) on each, in one call into
-- C; the callbacks are delivered after all are updated, in list order
anim.update = animator.update_list
-- anim.library(root) -> library | nil, message
function anim.library(root, opts) return library.new(root, opts) end
-- anim.reload(clip, source [, { strict }]) -> clip | nil, message: the clip's
-- content replaced in place by a file's, JSON text's or table's while its
-- tracks play on.  strict as for anim.clip (a table: true unless said) and
-- anim.load (a path or text: false unless said).
local reload = require "anim.runtime.reload"
function anim.reload(c, source, opts)
  opts = args.options(opts, LOAD_OPTIONS, 3, "reload")
  if opts.strict ~= nil and type(opts.strict) ~= "boolean" then
    args.error(3, "reload", "option 'strict' must be a boolean, got " .. args.typename(opts.strict))
  end
  return reload.reload(c, source, opts.strict)
end

-- anim.blendspace{ points = { { clip =, at = }, ... } [, sync, name] } -> space
local blendspace = require "anim.runtime.blendspace"
function anim.blendspace(def) return blendspace.new(def) end

-- anim.graph(source [, clips [, name]]) -> graph | nil, message: a state machine
-- (.animgraph) with its clips resolved, for animator:control
local graphs = require "anim.runtime.graph"
function anim.graph(source, clips, name)
  check_arg(name, "string", 3, "graph", true)
  return graphs.new(source, clips, name)
end
anim.is_graph = graphs.is_graph
anim.is_blendspace = blendspace.is_space

-- Retarget maps (SEMANTICS 8).
local retarget = require "anim.format.retarget"

-- anim.load_retarget(path [, { strict = true }]) -> map | nil, message
function anim.load_retarget(path, opts)
  check_arg(path, "string", 1, "load_retarget")
  return retarget.load_file(path, path, nil, strict_of(opts, 2, "load_retarget"))
end

-- anim.decode_retarget(json_text [, name [, { strict = true }]]) -> map | nil, message
function anim.decode_retarget(text, name, opts)
  check_arg(text, "string", 1, "decode_retarget")
  check_arg(name, "string", 2, "decode_retarget", true)
  return retarget.decode(text, name or "retarget", strict_of(opts, 3, "decode_retarget"))
end
anim.null = json.null

-- Any file, told by its content (docs/api.md, anim.open) ------------------------------

local kinds = require "anim.format.kind"

-- A file's name without its folder and last extension ("walk" for
-- clips/walk.anim): the key of a file's one clip or rig.
local function stem(path)
  local s = (path:match("([^/\\]+)$") or path):gsub("%.[^.]*$", "")
  return s ~= "" and s or path
end

-- The result of each kind from the file's text; raises a failure.
local OPEN = {}
function OPEN.anim(path, text, opts)
  local doc = json.decode(text)
  local warnings = {}
  for _, u in ipairs(fields.unknown(doc, "clip")) do
    warnings[#warnings + 1] = E.shown(path) .. ": " .. fields.message(u)
  end
  local c = clip.build(doc, path, true, opts.strict)
  local rigs, sk = {}, clip.info(c).skeleton
  if sk and next(sk) ~= nil then
    local r, err = E.catch(path, rig.from_skeleton, sk, stem(path))
    if r then rigs[stem(path)] = r else warnings[#warnings + 1] = err .. " (the clip's skeleton makes no rig)" end
  end
  return { clips = { [stem(path)] = c }, rigs = rigs, warnings = warnings }
end
-- An importer's warnings ({ channel, message }) as anim.open gives them: "file: path: message".
local function warning_texts(path, list)
  local warnings = {}
  for i, w in ipairs(list) do warnings[i] = E.message(path, { path = w.channel, msg = w.message }) end
  return warnings
end
function OPEN.xml(path, text)
  local player = rig.new("player")
  local c, list = require("anim.import.xml").build(text, path)
  return { clips = { [stem(path)] = c }, rigs = { player = player }, warnings = warning_texts(path, list) }
end
function OPEN.blockbench(path, text, _, bb)
  local clips, list, rigs = require("anim.import.blockbench").decode(text, path, bb.opts, bb.values)
  return { clips = clips, rigs = rigs, warnings = warning_texts(path, list) }
end
function OPEN.gltf(path, _, _, _, gl)
  local res = require("anim.import.gltf").import(path, gl)
  return { clips = res.clips, rigs = res.rigs, rig = res.rig, scene = res.scene, warnings = res.warnings }
end
function OPEN.aseprite(path, text)
  local clips, sheet = require("anim.import.aseprite").decode(text, path)
  return { clips = clips, rigs = {}, sheet = sheet, warnings = {} }
end
function OPEN.retarget()
  E.fail("", "a retarget map: read it with anim.load_retarget")
end
function OPEN.graph()
  E.fail("", kinds.GRAPH)
end

-- Spine and DragonBones: the importer's result from the file's text and
-- its atlas (options.atlas, else the one beside it: kind.atlas_beside),
-- its skeletons made anim.skeleton2d's as the importers' (with_skeletons),
-- each one's rig in rigs (a DragonBones armature's by its name, a Spine
-- skeleton's by the file's), the warnings as "file: path: message".
-- Returns nil, message as the importer does (naming the atlas for its own).
local function open_2d(kind, path, text, opts)
  local atlas, atlas_text = opts.atlas or kinds.atlas_beside(kind, path), nil
  if atlas then
    local err
    atlas_text, err = E.catch(atlas, json.read_file, atlas)
    if not atlas_text then return nil, err end
  end
  local res, err
  if kind == "dragonbones" then
    res, err = require("anim.import.dragonbones").decode(text, path, atlas_text, atlas)
  else
    res, err = require("anim.import.spine").decode_text(text, path, atlas_text, atlas)
  end
  res, err = with_skeletons(path:match("[^/\\]*$"), res, err)
  if not res then return nil, err end
  local out = { clips = res.clips, skeleton = res.skeleton, description = res.description, skins = res.skins,
    armatures = res.armatures, rigs = {}, warnings = {} }
  for i, w in ipairs(res.warnings) do
    out.warnings[i] = type(w) == "string" and (E.shown(path) .. ": " .. w) or E.message(path, { path = w.path, msg = w.message })
  end
  local main = res.stage or stem(path)
  for name, a in pairs(res.armatures or { [main] = res }) do out.rigs[name] = a.skeleton.rig end
  out.rig = out.rigs[main]
  return out
end

local OPEN_OPTIONS = args.names { "strict", "root", "loop", "molang", "easings", "geckolib", "short_steps", "atlas" }
local BLOCKBENCH_OPTIONS = { "molang", "easings", "geckolib", "short_steps" }

-- anim.open(path [, options]) -> { clips, rigs, warnings, kind [, rig, scene, sheet,
-- skeleton, description, skins, armatures] } | nil, message:
-- any file an importer reads (or a .anim), told by its content as the
-- command tells them; options: each importer's own (strict, root, loop,
-- molang, easings, geckolib, short_steps; atlas: a 2D skeleton's texture
-- atlas), those of other formats unused.
function anim.open(path, options)
  check_arg(path, "string", 1, "open")
  local opts = args.options(options, OPEN_OPTIONS, 2, "open")
  if opts.strict ~= nil and type(opts.strict) ~= "boolean" then
    args.error(2, "open", "option 'strict' must be a boolean, got " .. args.typename(opts.strict))
  end
  if opts.atlas ~= nil and type(opts.atlas) ~= "string" then
    args.error(2, "open", "option 'atlas' must be a string, got " .. args.typename(opts.atlas))
  end
  local gl, bb = {}, nil
  for _, k in ipairs { "root", "loop" } do
    if opts[k] ~= nil then gltf_option(k, opts[k], "open"); gl[k] = opts[k] end
  end
  for _, k in ipairs(BLOCKBENCH_OPTIONS) do
    if opts[k] ~= nil then bb = bb or {}; bb[k] = opts[k] end
  end
  -- (the Blockbench importer, and lua-lpeg, only for its files or options)
  if bb then
    local given = bb
    bb = {}
    bb.opts, bb.values = require("anim.import.blockbench").options(given, "open", 2)
  end
  local text, err = E.catch(path, json.read_file, path)
  if not text then return nil, err end
  local kind, _, which = kinds.of(path, text)
  if which == "texture" then
    return nil, E.shown(path) .. ": a DragonBones texture atlas, not a skeleton: open the skeleton it goes with"
      .. " (anim.open reads X_tex.json beside X_ske.json, or the file the option atlas names)"
  end
  if kind == "blockbench" and not bb then bb = { opts = {}, values = {} } end
  local res, why
  if kind == "spine" or kind == "dragonbones" then
    res, why = open_2d(kind, path, text, opts)
  else
    res, why = E.catch(path, OPEN[kind], path, text, opts, bb, gl)
  end
  if not res then return nil, why end
  res.kind = kind
  if res.rig == nil and kind ~= "gltf" then res.rig = select(2, next(res.rigs)) end
  return res
end

-- Limits on what files may hold (docs/robustness.md).  anim.limits reads
-- the values in force (read-only); anim.set_limits{ name = n, ... } changes
-- some and returns all the previous values, so that
-- `anim.set_limits(old)` restores them.
local limits = require "anim.base.limits"
anim.limits = limits.view

-- anim.buffer(n [, "float" | "double"]) -> buffer: n numbers in one C array
-- (#buf, buf[i], buf:pointer(), buf:string([i [, j]]), buf.kind);
-- anim.is_buffer(v) -> boolean (docs/api.md, Buffers)
local buffer = require "anim.base.buffer"
anim.buffer = buffer.new
anim.is_buffer = buffer.is
-- anim.skin_vertices(mesh, matrices [, out [, options]]) -> positions [,
-- normals]: linear blend skinning on the CPU (docs/api.md)
anim.skin_vertices = buffer.skin_vertices
function anim.set_limits(t) return limits.set(t) end

return anim
