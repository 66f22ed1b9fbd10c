-- fields.lua: the fields each object of a .anim file (versions 1 to 3), of
-- a .retarget file and of a rig definition may have, and a walk that lists
-- every other field with a suggestion (`rotaton`: did you mean 'rotation'?).
--
-- The formats keep fields nobody knows (docs/format-reference.md: they
-- are read past and kept for encoding), so a default load only lists
-- them: `anim validate` prints them as warnings, `anim.load(path,
-- { strict = true })` refuses the first one, and `anim.clip` and
-- `anim.rig`, which take tables a script wrote, raise for them.
-- Editor-only fields (rig, fps, viewModel, locked, interpolation, a key's
-- type, left and right, an event's preview, a map's source and target)
-- are known: they are never reported.
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local suggest = require "anim.base.suggest"
local byteorder = require "anim.base.order"

local M = {}

local function set(list)
  local s = { list = list, set = {} }
  for _, n in ipairs(list) do s.set[n] = true end
  return s
end

-- Object kinds: the names they may hold, and how to walk their values
-- (name -> kind, or a function(value) -> kind for the entries of a map
-- or of a list).  ANY: a value whose inside is not checked (payloads,
-- editor fields).
local ANY = false

local KINDS = {}
local function kind(name, fields, walk)
  KINDS[name] = { fields = set(fields), walk = walk or {} }
end

-- .anim: the top level, both layouts (version 1 reads a part of it)
kind("clip", { "version", "length", "loop", "looped", "speed", "autoplay", "priority", "mask", "blend",
  "space", "euler", "absolute", "skeleton", "retarget", "joints", "keyframes", "markers", "events", "sounds",
  "plays", "properties", "rig", "fps", "viewModel" }, {
  joints = "map:joint", keyframes = "list:keyframe", skeleton = "map:skeleton_joint", properties = "map:property",
  markers = "list:marker", events = "list:event", sounds = "list:sound", plays = "list:play",
  rig = ANY, fps = ANY, viewModel = ANY,
})
kind("joint", { "rotation", "position", "scale", "weight", "muted", "locked", "interpolation", "modifiers" }, {
  rotation = "keys", position = "keys", scale = "keys", modifiers = "map:modifier_list",
})
kind("skeleton_joint", { "parent", "position", "rotation", "translation", "scale" })
-- a property channel: a list of keys, or this object (format/props.lua)
kind("property_object", { "keys", "discrete", "modifiers" }, { keys = "keys", modifiers = "modifier_list" })
kind("modifier", { "type", "axis", "enabled", "before", "after", "step", "offset", "scale", "strength", "phase",
  "min", "max", "reference", "points" })
kind("key_extra", { "ease", "in", "out", "in_tangent", "out_tangent", "type", "left", "right" })
kind("marker", { "time", "name", "value" })
kind("event", { "time", "name", "payload", "on", "preview" }, { payload = ANY, preview = ANY })
kind("sound", { "time", "sound", "id", "volume", "pitch" })
kind("play", { "time", "clip", "fade" })
kind("keyframe", { "time", "poses" }, { poses = "map:pose" })
kind("pose", { "position", "rotation", "angles", "easing", "direction", "weight" })
-- .retarget
kind("retarget", { "version", "joints", "scale", "source", "target" },
  { joints = "map:retarget_entry", source = ANY, target = ANY })
kind("retarget_entry", { "to", "source", "target" })
-- anim.rig{ ... }
kind("rig", { "joints", "inverse_binds" }, { joints = "list:rig_joint", inverse_binds = ANY })
kind("rig_joint", { "name", "parent", "position", "rotation", "translation", "scale" })

-- What is inside a value of `kind` at `path`, into out.  A table a
-- script's clip holds at several places (anim.clip keeps that sharing) is
-- walked once per kind: `seen` (set by M.unknown) keeps the walk linear in
-- the tables, not in the places (a list of keys shared by 4,096 joints).
-- It is each walk's own (a finalizer may run another walk in the middle
-- of one).
local walk
local function each_entry(v, path, what, out, seen)
  if type(v) ~= "table" then return end
  if what:sub(1, 4) == "map:" then
    local k = what:sub(5)
    for name, x in pairs(v) do
      if type(name) == "string" then walk(x, E.key(path, name), k, out, seen) end
    end
  elseif what:sub(1, 5) == "list:" then
    local k = what:sub(6)
    for i, x in ipairs(v) do walk(x, E.index(path, i), k, out, seen) end
  end
end

function walk(v, path, k, out, seen)
  if k == ANY or type(v) ~= "table" then return end
  local kinds = seen[v]
  if not kinds then kinds = {}; seen[v] = kinds end
  if kinds[k] then return end
  kinds[k] = true
  if k == "property" then
    if next(v) == nil or v[1] ~= nil then k = "keys" else k = "property_object" end
  end
  if k == "keys" then
    -- a list of keys [time, value, interpolation, extra]
    for i, key in ipairs(v) do
      if type(key) == "table" and type(key[4]) == "table" then
        walk(key[4], E.index(E.index(path, i), 4), "key_extra", out, seen)
      end
    end
    return
  end
  if k == "modifier_list" then
    for i, m in ipairs(v) do walk(m, E.index(path, i), "modifier", out, seen) end
    return
  end
  if k:find(":", 1, true) then return each_entry(v, path, k, out, seen) end
  local spec = KINDS[k]
  -- an object only: an array in its place is an error the readers report
  if next(v) ~= nil and v[1] ~= nil then return end
  local names = {}
  for name in pairs(v) do names[#names + 1] = name end
  table.sort(names, function(a, b) return byteorder.less(tostring(a), tostring(b)) end)
  for _, name in ipairs(names) do
    if type(name) == "string" then
      if not spec.fields.set[name] then
        out[#out + 1] = { path = E.key(path, name), name = name, suggestion = suggest.closest(name, spec.fields.list) }
      else
        local inner = spec.walk[name]
        if inner ~= nil then
          if type(inner) == "string" and inner:find(":", 1, true) then each_entry(v[name], E.key(path, name), inner, out, seen)
          else walk(v[name], E.key(path, name), inner, out, seen) end
        end
      end
    end
  end
end

-- The unknown fields of a decoded tree of `kind` ("clip", "retarget",
-- "rig"): a list of { path =, name =, suggestion = (or nil) }, in the
-- order of the paths.
-- The names object kind k may hold (a copy), in fields.lua's order.
function M.names(k)
  local out = {}
  for i, n in ipairs(KINDS[k].fields.list) do out[i] = n end
  return out
end

function M.unknown(tree, k)
  local out = {}
  walk(tree, "", k, out, {})
  return out
end

-- The words of a report: "joints.arm.rotaton: unknown field (did you mean
-- 'rotation'?)"; inside a "bad argument" message (`inner`), "...: unknown
-- field; did you mean 'rotation'?".
function M.message(u, inner)
  local hint = ""
  if u.suggestion then
    hint = string.format(inner and "; did you mean '%s'?" or " (did you mean '%s'?)", u.suggestion)
  end
  return string.format("%s: unknown field%s", u.path, hint)
end

return M
