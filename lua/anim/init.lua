-- anim: animation clips, rigs and animators for Lua 5.4, with a C core.
-- See docs/api.md for the whole API.
local E = require "anim.errors"
local json = require "anim.json"
local clip = require "anim.clip"
local encode = require "anim.encode"

local anim = { _VERSION = "anim dev-1" }

local function check_opt_string(v, n, fname)
  if v ~= nil and type(v) ~= "string" then
    error(string.format("bad argument #%d to '%s' (string expected, got %s)", n, fname, type(v)), 3)
  end
end

-- anim.load(path) -> clip | nil, message
function anim.load(path)
  if type(path) ~= "string" then
    error("bad argument #1 to 'load' (string expected, got " .. type(path) .. ")", 2)
  end
  return clip.load_file(path, path)
end

-- anim.decode(json_text [, name]) -> clip | nil, message
function anim.decode(text, name)
  if type(text) ~= "string" then
    error("bad argument #1 to 'decode' (string expected, got " .. type(text) .. ")", 2)
  end
  check_opt_string(name, 2, "decode")
  name = name or "clip"
  return E.catch(name, function() return clip.build(json.decode(text), name) end)
end

-- anim.clip(table [, name]) -> clip | nil, message
function anim.clip(t, name)
  if type(t) ~= "table" then
    error("bad argument #1 to 'clip' (table expected, got " .. type(t) .. ")", 2)
  end
  check_opt_string(name, 2, "clip")
  name = name or "clip"
  return E.catch(name, function() return clip.build(clip.copy(t), name) end)
end

-- anim.import_xml(path) -> clip | nil, message   (the legacy XML format)
-- anim.xml is required here, not at the top, so that `require "anim"`
-- works without lua-expat for those who never import XML.
function anim.import_xml(path)
  if type(path) ~= "string" then
    error("bad argument #1 to 'import_xml' (string expected, got " .. type(path) .. ")", 2)
  end
  local xml = require "anim.xml"
  return E.catch(path, function() return xml.build(json.read_file(path), path) end)
end

-- anim.decode_xml(xml_text [, name]) -> clip | nil, message
function anim.decode_xml(text, name)
  if type(text) ~= "string" then
    error("bad argument #1 to 'decode_xml' (string expected, got " .. type(text) .. ")", 2)
  end
  check_opt_string(name, 2, "decode_xml")
  name = name or "clip"
  local xml = require "anim.xml"
  return E.catch(name, xml.build, text, name)
end

-- anim.encode(clip [, options]) -> text, approx | nil, message   (docs/formats.md, Encoding)
anim.encode = encode.encode
-- anim.save(clip, path [, options]) -> true, approx | nil, message (written atomically)
anim.save = encode.save

-- anim.import_blockbench(path) -> { [animation name] = clip } | nil, message
-- (.bbmodel and Bedrock/GeckoLib *.animation.json; docs/formats.md).  Required
-- here, not at the top: only the importer needs lua-lpeg (for Molang).
function anim.import_blockbench(path)
  if type(path) ~= "string" then
    error("bad argument #1 to 'import_blockbench' (string expected, got " .. type(path) .. ")", 2)
  end
  return require("anim.blockbench").import(path)
end

-- anim.decode_blockbench(json_text [, name]) -> { [animation name] = clip } | nil, message
function anim.decode_blockbench(text, name)
  if type(text) ~= "string" then
    error("bad argument #1 to 'decode_blockbench' (string expected, got " .. type(text) .. ")", 2)
  end
  check_opt_string(name, 2, "decode_blockbench")
  return require("anim.blockbench").decode_text(text, name or "blockbench")
end

anim.is_clip = clip.is_clip

-- Rigs, animators and libraries (docs/api.md).
local rig = require "anim.rig"
local animator = require "anim.animator"
local library = require "anim.library"

-- anim.rig("player") | anim.rig{ joints = {...} } -> rig | nil, message
function anim.rig(def, name) return rig.new(def, name) end
-- anim.animator(rig [, { side, space, library }]) -> animator
function anim.animator(r, opts) return animator.new(r, opts) end
-- anim.library(root) -> library | nil, message
function anim.library(root) return library.new(root) end

-- Retarget maps (SEMANTICS 8).
local retarget = require "anim.retarget"

-- anim.load_retarget(path) -> map | nil, message
function anim.load_retarget(path)
  if type(path) ~= "string" then
    error("bad argument #1 to 'load_retarget' (string expected, got " .. type(path) .. ")", 2)
  end
  return retarget.load_file(path, path)
end

-- anim.decode_retarget(json_text [, name]) -> map | nil, message
function anim.decode_retarget(text, name)
  if type(text) ~= "string" then
    error("bad argument #1 to 'decode_retarget' (string expected, got " .. type(text) .. ")", 2)
  end
  check_opt_string(name, 2, "decode_retarget")
  return retarget.decode(text, name or "retarget")
end
anim.null = json.null

return anim
